//! Adapters on tiny models written by the tests: merging, both file formats, errors.

use std::path::Path;

use super::*;
use crate::tests::TestBackend;
use crate::testutil::{logits, max_diff, temp_dir, tiny_config, write_tiny_gguf_and_hf};
use crate::{LanguageModel, LlamaConfig, MemoryWeights, Transformer};

/// `truth` with `scale · B · A` added by a plain triple loop (independent of the merge).
fn merged_by_hand(
    config: &LlamaConfig,
    truth: &MemoryWeights,
    adapter: &LoraAdapter,
) -> MemoryWeights {
    let mut out = truth.clone();
    let scale = adapter.config().scale() as f32;
    for (layer, module, p) in adapter.pairs() {
        let name = module.weight_name(layer);
        let (shape, w) = truth.get(&name).unwrap();
        let mut w = w.to_vec();
        let [d_out, d_in] = module.shape(config);
        for o in 0..d_out {
            for i in 0..d_in {
                let mut s = 0.0;
                for k in 0..p.rank() {
                    s += p.b()[o * p.rank() + k] * p.a()[k * d_in + i];
                }
                w[o * d_in + i] += scale * s;
            }
        }
        out.insert(&name, shape, w);
    }
    out
}

const IDS: [u32; 6] = [40, 261, 7, 262, 100, 3];

#[test]
fn adapter_merges_identically_into_gguf_and_hf_models() {
    let dir = temp_dir("lora-formats");
    let config = tiny_config();
    let (gguf, hf, truth) = write_tiny_gguf_and_hf(&dir, &config, 21);
    let adapter = LoraAdapter::random(&config, LoraConfig::new(4, 8.0), 5, 0.5);
    let dev = Default::default();
    let from_gguf = LanguageModel::<TestBackend>::load_with_adapter(&gguf, &adapter, &dev).unwrap();
    let from_hf = LanguageModel::<TestBackend>::load_with_adapter(&hf, &adapter, &dev).unwrap();
    let mut by_hand = merged_by_hand(&config, &truth, &adapter);
    let reference = Transformer::<TestBackend>::from_weights(&config, &mut by_hand, &dev).unwrap();
    let (g, h, r) = (
        logits(from_gguf.transformer(), &IDS),
        logits(from_hf.transformer(), &IDS),
        logits(&reference, &IDS),
    );
    // Query/key updates land on the same rows although the GGUF file stores those rows
    // permuted: the two formats agree with each other and with the hand-merged weights.
    assert!(max_diff(&g, &h) < 1e-4, "GGUF vs HF: {}", max_diff(&g, &h));
    assert!(
        max_diff(&g, &r) < 1e-4,
        "GGUF vs by hand: {}",
        max_diff(&g, &r)
    );
    let base = LanguageModel::<TestBackend>::load(&gguf, &dev).unwrap();
    assert!(max_diff(&g, &logits(base.transformer(), &IDS)) > 1e-2);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_adapter_attached_as_branches_scores_as_merged_and_leaves_the_base_alone() {
    let dir = temp_dir("lora-attached");
    let config = tiny_config();
    let (gguf, _, _) = write_tiny_gguf_and_hf(&dir, &config, 24);
    let adapter = LoraAdapter::random(&config, LoraConfig::new(4, 8.0), 7, 0.5);
    let dev = Default::default();
    let merged = LanguageModel::<TestBackend>::load_with_adapter(&gguf, &adapter, &dev).unwrap();
    let base = LanguageModel::<TestBackend>::load(&gguf, &dev).unwrap();
    let before = logits(base.transformer(), &IDS);
    let branched = base.with_adapter(&adapter).unwrap();
    let (b, m) = (
        logits(branched.transformer(), &IDS),
        logits(merged.transformer(), &IDS),
    );
    assert!(
        max_diff(&b, &m) < 1e-4,
        "branches vs merged: {}",
        max_diff(&b, &m)
    );
    assert!(max_diff(&b, &before) > 1e-2, "the adapter changed nothing");
    // The base it was made from still scores as itself.
    assert_eq!(logits(base.transformer(), &IDS), before);
    // An adapter for other sizes is refused, naming its tensor.
    let wider = LlamaConfig::new(config.vocab_size, 512, 256, 2, 4, 2);
    let misfit = LoraAdapter::random(&wider, LoraConfig::new(4, 8.0), 7, 0.5);
    let err = base.with_adapter(&misfit).unwrap_err().to_string();
    assert!(err.contains("does not fit the model"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn query_and_key_updates_alone_agree_across_formats() {
    let dir = temp_dir("lora-qk");
    let config = tiny_config();
    let (gguf, hf, _) = write_tiny_gguf_and_hf(&dir, &config, 22);
    let lora = LoraConfig::new(2, 4.0).with_targets(&[LoraModule::Q, LoraModule::K]);
    let adapter = LoraAdapter::random(&config, lora, 6, 1.0);
    let dev = Default::default();
    let g = LanguageModel::<TestBackend>::load_with_adapter(&gguf, &adapter, &dev).unwrap();
    let h = LanguageModel::<TestBackend>::load_with_adapter(&hf, &adapter, &dev).unwrap();
    let base = LanguageModel::<TestBackend>::load(&hf, &dev).unwrap();
    let (g, h) = (logits(g.transformer(), &IDS), logits(h.transformer(), &IDS));
    assert!(max_diff(&g, &h) < 1e-4, "{}", max_diff(&g, &h));
    assert!(max_diff(&h, &logits(base.transformer(), &IDS)) > 1e-3);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn zero_adapter_leaves_the_model_unchanged() {
    let dir = temp_dir("lora-zero");
    let config = tiny_config();
    let (gguf, _, _) = write_tiny_gguf_and_hf(&dir, &config, 23);
    let adapter = LoraAdapter::init(&config, LoraConfig::new(4, 16.0), 1);
    assert!(adapter.is_zero());
    let dev = Default::default();
    let adapted = LanguageModel::<TestBackend>::load_with_adapter(&gguf, &adapter, &dev).unwrap();
    let base = LanguageModel::<TestBackend>::load(&gguf, &dev).unwrap();
    assert_eq!(
        logits(adapted.transformer(), &IDS),
        logits(base.transformer(), &IDS)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn branches_off_leave_the_base_and_on_equal_the_merged_weights() {
    let dir = temp_dir("lora-branches");
    let config = tiny_config();
    let (gguf, _, truth) = write_tiny_gguf_and_hf(&dir, &config, 24);
    let dev = Default::default();
    let base = LanguageModel::<TestBackend>::load(&gguf, &dev).unwrap();
    let base = base.transformer();
    // Off: with B = 0 every branch adds exactly nothing.
    let zero = LoraAdapter::init(&config, LoraConfig::new(4, 16.0), 1);
    let (off, leaves) = base.with_branches(&zero, false).unwrap();
    assert_eq!(leaves.len(), 2 * 7 * config.num_layers);
    assert_eq!(logits(&off, &IDS), logits(base, &IDS));
    // On: the branches compute what the weights with the update merged compute, query
    // and key updates included (they reach the rotate-half twins too).
    let adapter = LoraAdapter::random(&config, LoraConfig::new(4, 8.0), 5, 0.5);
    let (on, _) = base.with_branches(&adapter, false).unwrap();
    let mut by_hand = merged_by_hand(&config, &truth, &adapter);
    let merged = Transformer::<TestBackend>::from_weights(&config, &mut by_hand, &dev).unwrap();
    let on = logits(&on, &IDS);
    let diff = max_diff(&on, &logits(&merged, &IDS));
    assert!(diff < 1e-4, "branches vs merged: {diff}");
    assert!(max_diff(&on, &logits(base, &IDS)) > 1e-2);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn save_and_load_round_trip_in_peft_layout() {
    let dir = temp_dir("lora-save");
    let config = tiny_config();
    let lora = LoraConfig::new(3, 6.0)
        .with_rslora(true)
        .with_targets(&[LoraModule::V, LoraModule::Down]);
    let adapter = LoraAdapter::random(&config, lora, 9, 0.1);
    adapter.save(&dir).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(ADAPTER_CONFIG)).unwrap()).unwrap();
    assert_eq!(json["peft_type"], "LORA");
    assert_eq!(
        json["target_modules"],
        serde_json::json!(["v_proj", "down_proj"])
    );
    assert_eq!(json["use_rslora"], true);
    let file = crate::load::safetensors::SafetensorsFile::open(&dir.join(ADAPTER_WEIGHTS)).unwrap();
    let a = &file.tensors()["base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight"];
    assert_eq!(a.shape, vec![3, 256]);
    let b = &file.tensors()["base_model.model.model.layers.0.mlp.down_proj.lora_B.weight"];
    assert_eq!(b.shape, vec![256, 3]);
    assert_eq!(file.tensors().len(), 2 * 2 * 2);
    let loaded = LoraAdapter::load(&dir).unwrap();
    assert_eq!(loaded.config(), adapter.config());
    assert_eq!(loaded.pairs().count(), 4);
    for (l, m, p) in adapter.pairs() {
        assert_eq!(loaded.get(l, m), Some(p));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn scale_follows_rslora() {
    let c = LoraConfig::new(16, 32.0);
    assert_eq!(c.scale(), 2.0);
    assert_eq!(c.with_rslora(true).scale(), 8.0);
}

/// Writes `config_json` and an adapter holding `tensors` into a fresh folder.
fn write_adapter(
    name: &str,
    config_json: &str,
    tensors: &[(&str, &[usize])],
) -> std::path::PathBuf {
    let dir = temp_dir(name);
    std::fs::write(dir.join(ADAPTER_CONFIG), config_json).unwrap();
    let data: Vec<Vec<f32>> = tensors
        .iter()
        .map(|(_, s)| vec![0.01; s.iter().product()])
        .collect();
    let refs: Vec<(&str, &[usize], &[f32])> = tensors
        .iter()
        .zip(&data)
        .map(|((n, s), d)| (*n, *s, d.as_slice()))
        .collect();
    crate::load::safetensors::write_safetensors(
        &dir.join(ADAPTER_WEIGHTS),
        crate::load::safetensors::StDtype::F32,
        &refs,
    )
    .unwrap();
    dir
}

const CONFIG: &str =
    r#"{"peft_type": "LORA", "r": 2, "lora_alpha": 4, "target_modules": ["q_proj", "v_proj"]}"#;
const QA: &str = "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight";
const QB: &str = "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight";

fn load_err(dir: &Path) -> String {
    LoraAdapter::load(dir).unwrap_err().to_string()
}

/// The error of loading the tiny GGUF model with the adapter in `dir`.
fn apply_err(dir: &Path) -> String {
    let model_dir = temp_dir(&format!(
        "lora-model-{}",
        dir.file_name().unwrap().to_string_lossy()
    ));
    let (gguf, _, _) = write_tiny_gguf_and_hf(&model_dir, &tiny_config(), 24);
    let adapter = LoraAdapter::load(dir).unwrap();
    let err = LanguageModel::<TestBackend>::load_with_adapter(&gguf, &adapter, &Default::default())
        .unwrap_err()
        .to_string();
    std::fs::remove_dir_all(model_dir).unwrap();
    err
}

#[test]
fn missing_adapter_files_are_named() {
    let dir = write_adapter("lora-missing", CONFIG, &[(QA, &[2, 256]), (QB, &[256, 2])]);
    std::fs::remove_file(dir.join(ADAPTER_WEIGHTS)).unwrap();
    let err = load_err(&dir);
    assert!(
        err.contains(&dir.join(ADAPTER_WEIGHTS).display().to_string()),
        "{err}"
    );
    assert!(err.contains("missing adapter file"), "{err}");
    std::fs::remove_file(dir.join(ADAPTER_CONFIG)).unwrap();
    let err = load_err(&dir);
    assert!(
        err.contains(&dir.join(ADAPTER_CONFIG).display().to_string()),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let err = load_err(&dir);
    assert!(err.contains("no such LoRA adapter folder"), "{err}");
}

#[test]
fn a_lone_half_is_named() {
    let dir = write_adapter("lora-half", CONFIG, &[(QA, &[2, 256])]);
    let err = load_err(&dir);
    assert!(err.contains(&format!("missing tensor `{QB}`")), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn misfitting_shapes_name_the_tensor_and_both_shapes() {
    let dir = write_adapter("lora-shape", CONFIG, &[(QA, &[2, 100]), (QB, &[256, 2])]);
    let err = apply_err(&dir);
    assert!(err.contains(QA), "{err}");
    assert!(
        err.contains("shape [2, 100] does not fit the model"),
        "{err}"
    );
    assert!(
        err.contains("is [256, 256], so lora_A must be [2, 256]"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
    let dir = write_adapter("lora-shape-b", CONFIG, &[(QA, &[2, 256]), (QB, &[64, 2])]);
    let err = apply_err(&dir);
    assert!(err.contains(QB), "{err}");
    assert!(
        err.contains("shape [64, 2] does not fit the model"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
    // Ranks that differ from each other or from `r`.
    let dir = write_adapter("lora-rank", CONFIG, &[(QA, &[2, 256]), (QB, &[256, 3])]);
    let err = load_err(&dir);
    assert!(err.contains(QB) && err.contains("ranks 3 and 2"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
    let dir = write_adapter("lora-r", CONFIG, &[(QA, &[3, 256]), (QB, &[256, 3])]);
    let err = load_err(&dir);
    assert!(err.contains("has rank 3, the config says r = 2"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn layer_out_of_range_is_named() {
    let a = "base_model.model.model.layers.7.self_attn.v_proj.lora_A.weight";
    let b = "base_model.model.model.layers.7.self_attn.v_proj.lora_B.weight";
    let dir = write_adapter("lora-layer", CONFIG, &[(a, &[2, 256]), (b, &[128, 2])]);
    let err = apply_err(&dir);
    assert!(err.contains(a), "{err}");
    assert!(
        err.contains("layer 7 is out of range: the model has 2 layers"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn unsupported_configs_are_named() {
    let tensors: &[(&str, &[usize])] = &[(QA, &[2, 256]), (QB, &[256, 2])];
    let cases = [
        (
            r#"{"r": 2, "lora_alpha": 4, "target_modules": ["q_proj", "lm_head"]}"#,
            "`target_modules`: unknown target module `lm_head`",
        ),
        (
            r#"{"r": 2, "lora_alpha": 4, "target_modules": ["q_proj"], "fan_in_fan_out": true}"#,
            "`fan_in_fan_out`",
        ),
        (
            r#"{"r": 2, "lora_alpha": 4, "target_modules": ".*proj"}"#,
            "regular expression is not supported",
        ),
        (
            r#"{"r": 2, "lora_alpha": 4, "target_modules": ["q_proj"], "layers_to_transform": [0]}"#,
            "`layers_to_transform`: updates to some layers only are not supported",
        ),
        (
            r#"{"r": 2, "lora_alpha": 4, "target_modules": ["q_proj"], "modules_to_save": ["lm_head"]}"#,
            "`modules_to_save`: fully trained modules are not supported",
        ),
        (
            r#"{"r": 2, "target_modules": ["q_proj"]}"#,
            "missing metadata key `lora_alpha`",
        ),
        (
            r#"{"peft_type": "IA3", "r": 2, "lora_alpha": 4, "target_modules": ["q_proj"]}"#,
            "`IA3` is not a LoRA adapter",
        ),
        (
            r#"{"r": 2, "lora_alpha": 4, "target_modules": ["q_proj"], "rank_pattern": {"q_proj": 4}}"#,
            "`rank_pattern`",
        ),
    ];
    for (i, (json, expected)) in cases.into_iter().enumerate() {
        let dir = write_adapter(&format!("lora-config-{i}"), json, tensors);
        let err = load_err(&dir);
        assert!(err.contains(ADAPTER_CONFIG), "{err}");
        assert!(err.contains(expected), "{expected:?} not in {err}");
        std::fs::remove_dir_all(dir).unwrap();
    }
    // A tensor of a module the config does not target, and one that is no LoRA weight.
    let dir = write_adapter(
        "lora-untargeted",
        r#"{"r": 2, "lora_alpha": 4, "target_modules": ["v_proj"]}"#,
        tensors,
    );
    let err = load_err(&dir);
    assert!(
        err.contains(QA) && err.contains("not among the config's target_modules"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
    let odd = "base_model.model.lm_head.lora_A.weight";
    let dir = write_adapter("lora-odd", CONFIG, &[(odd, &[2, 256])]);
    let err = load_err(&dir);
    assert!(
        err.contains(odd) && err.contains("not a LoRA weight"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
    // "all-linear" targets every module.
    let dir = write_adapter(
        "lora-all",
        r#"{"r": 2, "lora_alpha": 4, "target_modules": "all-linear", "use_rslora": true}"#,
        tensors,
    );
    let adapter = LoraAdapter::load(&dir).unwrap();
    assert_eq!(adapter.config().target_modules, LoraModule::ALL.to_vec());
    assert!(adapter.config().use_rslora);
    std::fs::remove_dir_all(dir).unwrap();
}
