//! Every loader path on tiny random-weight models written by the tests themselves.

use std::path::Path;

use crate::load::gguf::{dequantize, GgmlType, GgufFile};
use crate::load::hf::{config_from_hf, config_to_hf};
use crate::tests::TestBackend;
use crate::testutil::{logits, max_diff, temp_dir, tiny_config, write_tiny_gguf, write_tiny_hf};
use crate::{LanguageModel, LlamaConfig, MemoryWeights, ModelInfo, Transformer};

fn assert_all_close(a: &[f32], b: &[f32], tol: f32) {
    let worst = max_diff(a, b);
    assert!(worst <= tol, "largest difference {worst} exceeds {tol}");
}

fn reference(config: &LlamaConfig, truth: &mut MemoryWeights) -> Transformer<TestBackend> {
    Transformer::from_weights(config, truth, &Default::default()).unwrap()
}

#[test]
fn dequantization_matches_the_gguf_python_package() {
    let text = include_str!("../../../tests/data/lm/dequant.json");
    let json: serde_json::Value = serde_json::from_str(text).unwrap();
    let cases = json["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 10);
    for case in cases {
        let ty = GgmlType::from_id(case["id"].as_u64().unwrap() as u32);
        assert_eq!(ty.name(), case["type"].as_str().unwrap());
        let hex = case["hex"].as_str().unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let expected: Vec<f32> = case["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        let got = dequantize(ty, &bytes).unwrap();
        assert_eq!(got.len(), expected.len(), "{ty}");
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert!(
                (g - e).abs() <= 1e-6 * e.abs().max(1.0),
                "{ty} element {i}: {g} vs {e}"
            );
        }
    }
}

#[test]
fn gguf_with_every_tensor_type_loads_exactly() {
    let dir = temp_dir("gguf-types");
    let path = dir.join("tiny.gguf");
    let config = tiny_config();
    let mut truth = write_tiny_gguf(&path, &config, 11);
    let model = LanguageModel::<TestBackend>::load(&path, &Default::default()).unwrap();
    // The file stores epsilon as f32.
    assert_eq!(
        model.config(),
        &config.clone().with_rms_norm_eps(f64::from(1e-5f32))
    );
    let ids = [3u32, 70, 200, 259, 261, 5, 1, 2];
    assert_all_close(
        &logits(model.transformer(), &ids),
        &logits(&reference(&config, &mut truth), &ids),
        1e-4,
    );
    let info = model.info();
    assert_eq!(info.format, "GGUF v3");
    for ty in [
        "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q4_K", "Q5_K", "Q6_K", "F16", "BF16", "F32",
    ] {
        assert!(
            info.tensor_types.contains_key(ty),
            "{ty} not exercised: {:?}",
            info.tensor_types
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn untied_gguf_head_loads() {
    let dir = temp_dir("gguf-untied");
    let path = dir.join("tiny.gguf");
    let config = tiny_config().with_tie_embeddings(false);
    let mut truth = write_tiny_gguf(&path, &config, 12);
    let model = LanguageModel::<TestBackend>::load(&path, &Default::default()).unwrap();
    assert!(!model.config().tie_embeddings);
    let ids = [40u32, 41, 42];
    assert_all_close(
        &logits(model.transformer(), &ids),
        &logits(&reference(&config, &mut truth), &ids),
        1e-4,
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn gguf_tokenizer_and_chat_template() {
    let dir = temp_dir("gguf-tok");
    let path = dir.join("tiny.gguf");
    write_tiny_gguf(&path, &tiny_config(), 13);
    let info = ModelInfo::read(&path).unwrap();
    assert_eq!(info.tokenizer.special_tokens.len(), 3);
    assert_eq!(info.tokenizer.chat_template, "chatml");
    let model = LanguageModel::<TestBackend>::load(&path, &Default::default()).unwrap();
    let tok = model.tokenizer();
    // "Ġthe" = 261, "in" = 262; digits are split one by one; specials are matched.
    let ids = tok.encode("<|im_start|> the in 42").unwrap();
    let g = |c: char| tok.token_to_id(&c.to_string()).unwrap();
    assert_eq!(ids, vec![1, 261, g('Ġ'), 262, g('Ġ'), g('4'), g('2')]);
    assert_eq!(tok.decode(&ids).unwrap(), "<|im_start|> the in 42");
    assert_eq!(tok.eos_token(), Some(2));
    let prompt = model.chat_prompt("hi").unwrap();
    assert_eq!(prompt, "<|im_start|>system\nYou are tiny.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn hf_folder_matches_the_gguf_file() {
    let dir = temp_dir("hf");
    let gguf = dir.join("tiny.gguf");
    let config = tiny_config();
    let truth = write_tiny_gguf(&gguf, &config, 14);
    let from_gguf = LanguageModel::<TestBackend>::load(&gguf, &Default::default()).unwrap();
    let folder = dir.join("hf");
    std::fs::create_dir_all(&folder).unwrap();
    let tokenizer_json = from_gguf.tokenizer().inner().to_string(false).unwrap();
    write_tiny_hf(&folder, &config, &truth, "llama", &tokenizer_json);
    let from_hf = LanguageModel::<TestBackend>::load(&folder, &Default::default()).unwrap();
    assert_eq!(from_hf.config(), &config);
    let text = "<|im_start|>the thin 7";
    let ids = from_gguf.tokenizer().encode(text).unwrap();
    assert_eq!(from_hf.tokenizer().encode(text).unwrap(), ids);
    assert_eq!(from_hf.tokenizer().eos_token(), Some(2));
    assert_all_close(
        &logits(from_hf.transformer(), &ids),
        &logits(from_gguf.transformer(), &ids),
        1e-5,
    );
    let info = from_hf.info();
    assert_eq!(info.format, "safetensors (2 files)");
    assert_eq!(info.tokenizer.chat_template, "chatml");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_tied_model_s_head_of_another_shape_is_refused() {
    let dir = temp_dir("hf-tied-head");
    let gguf = dir.join("tiny.gguf");
    let config = tiny_config();
    assert!(config.tie_embeddings);
    let mut truth = write_tiny_gguf(&gguf, &config, 15);
    let from_gguf = LanguageModel::<TestBackend>::load(&gguf, &Default::default()).unwrap();
    let tokenizer_json = from_gguf.tokenizer().inner().to_string(false).unwrap();
    let (v, h) = (config.vocab_size, config.hidden_size);
    for (name, shape, loads) in [("right", [v, h], true), ("wrong", [v + 1, h], false)] {
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        truth.insert("lm_head.weight", &shape, vec![0.5; shape[0] * shape[1]]);
        write_tiny_hf(&folder, &config, &truth, "llama", &tokenizer_json);
        let loaded = LanguageModel::<TestBackend>::load(&folder, &Default::default());
        match loaded {
            Ok(_) => assert!(loads, "{name}: loaded"),
            Err(e) => {
                let e = e.to_string();
                assert!(!loads, "{name}: {e}");
                assert!(
                    e.contains("lm_head.weight") && e.contains("tied to the embedding"),
                    "{e}"
                );
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_written_config_reads_back() {
    let dir = temp_dir("hf-config");
    let other = tiny_config()
        .with_attention_bias(true)
        .with_tie_embeddings(false)
        .with_rms_norm_eps(1e-6);
    for config in [tiny_config(), other] {
        std::fs::write(dir.join("config.json"), config_to_hf(&config)).unwrap();
        assert_eq!(config_from_hf(&dir).unwrap(), config);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn qwen2_style_biases_load_from_hf() {
    let dir = temp_dir("qwen2");
    let config = tiny_config()
        .with_attention_bias(true)
        .with_rms_norm_eps(1e-6);
    let mut truth = MemoryWeights::random(&config, 15);
    let tiny = dir.join("tok.gguf");
    write_tiny_gguf(&tiny, &tiny_config(), 1);
    let tok = LanguageModel::<TestBackend>::load(&tiny, &Default::default()).unwrap();
    let json = tok.tokenizer().inner().to_string(false).unwrap();
    write_tiny_hf(&dir, &config, &truth, "qwen2", &json);
    let model = LanguageModel::<TestBackend>::load(&dir, &Default::default()).unwrap();
    assert!(model.config().attention_bias);
    let ids = [10u32, 20, 30, 40];
    assert_all_close(
        &logits(model.transformer(), &ids),
        &logits(&reference(&config, &mut truth), &ids),
        1e-5,
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn load_err(path: &Path) -> String {
    LanguageModel::<TestBackend>::load(path, &Default::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn broken_gguf_files_are_errors_naming_the_culprit() {
    let dir = temp_dir("gguf-broken");
    let path = dir.join("tiny.gguf");
    write_tiny_gguf(&path, &tiny_config(), 16);
    let bytes = std::fs::read(&path).unwrap();
    let file = GgufFile::open(&path).unwrap();
    let last = file
        .tensors()
        .iter()
        .max_by_key(|t| t.offset)
        .unwrap()
        .name
        .clone();

    let cut = dir.join("cut.gguf");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let err = load_err(&cut);
    assert!(
        err.contains(&format!("truncated: tensor `{last}`")),
        "{err}"
    );

    std::fs::write(&cut, &bytes[..1000]).unwrap();
    let err = load_err(&cut);
    assert!(
        err.contains("truncated") && err.contains("metadata key"),
        "{err}"
    );

    let mut bad = bytes.clone();
    bad[..4].copy_from_slice(b"GGUG");
    std::fs::write(&cut, &bad).unwrap();
    let err = load_err(&cut);
    assert!(err.contains("neither a GGUF file nor"), "{err}");

    // Rewrite one tensor's type to one bip cannot read (GGML 20, IQ4_NL).
    let name = "blk.0.ffn_up.weight";
    let at = find(&bytes, name.as_bytes()) + name.len();
    let n_dims = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let ty_at = at + 4 + 8 * n_dims;
    let mut bad = bytes.clone();
    bad[ty_at..ty_at + 4].copy_from_slice(&20u32.to_le_bytes());
    std::fs::write(&cut, &bad).unwrap();
    let inspected = crate::ModelInfo::read(&cut).expect_err("inspect refuses it too");
    for err in [load_err(&cut), inspected.to_string()] {
        assert!(
            err.contains("tensor `blk.0.ffn_up.weight`: type GGML type 20 cannot be dequantized"),
            "{err}"
        );
    }

    // Swap one tensor's dimensions.
    let mut bad = bytes.clone();
    let name = "blk.1.attn_v.weight";
    let at = find(&bytes, name.as_bytes()) + name.len() + 4;
    let (a, b) = (bad[at..at + 8].to_vec(), bad[at + 8..at + 16].to_vec());
    bad[at..at + 8].copy_from_slice(&b);
    bad[at + 8..at + 16].copy_from_slice(&a);
    std::fs::write(&cut, &bad).unwrap();
    let err = load_err(&cut);
    assert!(
        err.contains("tensor `blk.1.attn_v.weight`: shape [256, 128]"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn hf_folder_errors_name_the_file_and_key() {
    let dir = temp_dir("hf-broken");
    let config = tiny_config();
    let mut truth = MemoryWeights::random(&config, 17);
    truth.insert(
        "model.layers.1.mlp.up_proj.weight",
        &[256, 255],
        vec![0.0; 256 * 255],
    );
    write_tiny_hf(&dir, &config, &truth, "llama", "{}");
    let err = load_err(&dir);
    assert!(err.contains("tokenizer"), "{err}");
    let gguf = dir.join("t.gguf");
    write_tiny_gguf(&gguf, &config, 1);
    let tok = LanguageModel::<TestBackend>::load(&gguf, &Default::default()).unwrap();
    std::fs::remove_file(&gguf).unwrap();
    let json = tok.tokenizer().inner().to_string(false).unwrap();
    write_tiny_hf(&dir, &config, &truth, "llama", &json);
    let err = load_err(&dir);
    assert!(
        err.contains(
            "tensor `model.layers.1.mlp.up_proj.weight`: shape [256, 255], expected [256, 256]"
        ),
        "{err}"
    );
    write_tiny_hf(&dir, &config, &truth, "gpt_neox", &json);
    let err = load_err(&dir);
    assert!(
        err.contains("config.json: metadata key `model_type`: `gpt_neox` is not supported"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap()
}

#[test]
fn weights_held_as_f16_score_as_f32_within_rounding() {
    use crate::{LoadOptions, LoraAdapter, LoraConfig, WeightStorage};
    const IDS: [u32; 7] = [40, 261, 7, 262, 100, 3, 58];
    let dev = Default::default();
    let half = LoadOptions::default().with_weights(WeightStorage::F16);
    for tied in [true, false] {
        let dir = temp_dir(&format!("f16-{tied}"));
        let config = tiny_config().with_tie_embeddings(tied);
        let (gguf, _, _) = crate::testutil::write_tiny_gguf_and_hf(&dir, &config, 31);
        let full = LanguageModel::<TestBackend>::load(&gguf, &dev).unwrap();
        let compact = LanguageModel::<TestBackend>::load_with(&gguf, None, &half, &dev).unwrap();
        let (a, b) = (
            logits(full.transformer(), &IDS),
            logits(compact.transformer(), &IDS),
        );
        let worst = max_diff(&a, &b);
        // Rounded weights move the logits a little, never far.
        assert!(worst > 0.0 && worst < 5e-3, "tied {tied}: {worst}");
        // An adapter attached to the f16 weights scores as the adapter merged into f32.
        let adapter = LoraAdapter::random(&config, LoraConfig::new(4, 8.0), 3, 0.5);
        let merged =
            LanguageModel::<TestBackend>::load_with_adapter(&gguf, &adapter, &dev).unwrap();
        let branched = compact.with_adapter(&adapter).unwrap();
        let worst = max_diff(
            &logits(merged.transformer(), &IDS),
            &logits(branched.transformer(), &IDS),
        );
        assert!(worst < 5e-3, "tied {tied}, with an adapter: {worst}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
