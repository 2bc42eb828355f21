//! PEFT adapter configurations (`adapter_config.json`), loaded with a fixed weights file
//! and merged into a tiny model.

use std::io;

use bip_models::backend::Cpu;
use bip_models::lora::{AdaptedWeights, LoraAdapter, LoraConfig, LoraModule, ADAPTER_CONFIG};
use bip_models::{LlamaConfig, MemoryWeights, Transformer};

use super::{signature, Scratch, Target};

/// The PEFT target.
pub(super) const TARGET: Target = Target {
    name: "peft",
    about: "PEFT LoRA adapter configs (adapter_config.json), loaded and merged into a tiny model",
    setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"\"r\"",
        b"\"lora_alpha\"",
        b"\"target_modules\"",
        b"\"all-linear\"",
        b"\"use_rslora\"",
        b"\"peft_type\"",
        b"\"rank_pattern\"",
        b"1e308",
        b"-1e308",
        b"18446744073709551615",
        b"0",
        b"null",
        b"true",
        b"[]",
        b"{}",
    ],
    hot: 512,
};

/// The tiny model the adapters are merged into.
fn model() -> LlamaConfig {
    LlamaConfig::new(16, 8, 12, 2, 2, 1).with_max_seq_len(16)
}

/// The adapter whose weights every input's configuration is read with: rank 2, q and v.
fn adapter() -> LoraAdapter {
    let lora = LoraConfig::new(2, 4.0).with_targets(&[LoraModule::Q, LoraModule::V]);
    LoraAdapter::random(&model(), lora, 7, 0.5)
}

/// Writes the adapter's weights (and a valid config) into the scratch folder.
fn setup(scratch: &Scratch) -> io::Result<()> {
    adapter()
        .save(&scratch.file("adapter"))
        .map_err(|e| io::Error::other(e.to_string()))
}

fn run(input: &[u8], scratch: &Scratch) -> String {
    let dir = scratch.file("adapter");
    if let Err(e) = std::fs::write(dir.join(ADAPTER_CONFIG), input) {
        return format!("write: {e}");
    }
    let loaded = match LoraAdapter::load(&dir) {
        Ok(adapter) => adapter,
        Err(e) => return signature(&e, scratch),
    };
    let config = model();
    let mut base = MemoryWeights::random(&config, 1);
    let mut adapted = match AdaptedWeights::new(&mut base, &loaded, &config) {
        Ok(adapted) => adapted,
        Err(e) => return signature(&e, scratch),
    };
    match Transformer::<Cpu>::from_weights(&config, &mut adapted, &Default::default()) {
        Ok(_) => format!("merged scale {:.0e}", loaded.config().scale()),
        Err(e) => signature(&e, scratch),
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let plain = adapter().config().to_json();
    let rs = adapter().config().clone().with_rslora(true).to_json();
    let minimal = r#"{"r": 2, "lora_alpha": 4, "target_modules": "all-linear"}"#.to_string();
    let peft = r#"{"peft_type": "LORA", "r": 2, "lora_alpha": 16.0, "target_modules": ["model.layers.0.self_attn.q_proj", "v_proj"], "bias": "none", "rank_pattern": {}, "alpha_pattern": null}"#.to_string();
    [plain, rs, minimal, peft].map(String::into_bytes).to_vec()
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let alpha = r#"{"r": 2, "lora_alpha": 1e308, "target_modules": ["q_proj", "v_proj"]}"#;
    let negative = r#"{"r": 2, "lora_alpha": -1e300, "target_modules": ["q_proj", "v_proj"]}"#;
    let rank =
        r#"{"r": 18446744073709551615, "lora_alpha": 1, "target_modules": ["q_proj", "v_proj"]}"#;
    vec![
        ("lora-alpha-1e308.json", alpha.into()),
        ("lora-alpha-negative.json", negative.into()),
        ("rank-max.json", rank.into()),
    ]
}
