//! Tiny models written to disk by the tests: a GGUF file with every supported tensor type
//! and a Hugging Face folder, from the same weights.

use std::path::{Path, PathBuf};

use burn::tensor::{Int, Tensor, TensorData};
use half::{bf16, f16};

use crate::config::LlamaConfig;
use crate::load::gguf::{dequantize, GgmlType, GgufValue, GgufWriter};
use crate::load::hf::config_to_hf;
use crate::load::safetensors::{write_safetensors, StDtype};
use crate::tests::TestBackend;
use crate::transformer::Transformer;
use crate::weights::{
    canonical_tensors, permute_rotary_rows, MemoryWeights, RotaryRows, SplitMix64,
};

/// The tiny architecture: rows of 256 so that k-quant super-blocks fit.
pub(crate) fn tiny_config() -> LlamaConfig {
    LlamaConfig::new(tiny_vocab().len(), 256, 256, 2, 4, 2)
        .with_rope_theta(10_000.0)
        .with_rms_norm_eps(1e-5)
        .with_max_seq_len(64)
}

/// Logits at every position of `ids` in one pass, flattened.
pub(crate) fn logits(model: &Transformer<TestBackend>, ids: &[u32]) -> Vec<f32> {
    let n = ids.len();
    let v: Vec<i32> = ids.iter().map(|&t| t as i32).collect();
    let t = Tensor::<TestBackend, 1, Int>::from_data(TensorData::new(v, [n]), &Default::default());
    let h = model.forward(t.reshape([1, n]), &mut model.new_cache());
    model
        .logits(h.reshape([n, model.hidden_size()]))
        .into_data()
        .to_vec()
        .unwrap()
}

/// The largest absolute difference between `a` and `b`, which must be as long.
pub(crate) fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// A fresh temporary folder.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bip-models-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// GPT-2's map from bytes to the printable characters byte-level BPE spells them with.
///
/// `tests/train.rs` repeats it, deliberately: integration tests cannot reach this crate's
/// test-only helpers, and the map is no part of the library's interface.
pub(crate) fn byte_chars() -> Vec<char> {
    let mut bs: Vec<u32> = (33..=126).chain(161..=172).chain(174..=255).collect();
    let mut cs = bs.clone();
    let mut n = 0;
    for b in 0..256 {
        if !bs.contains(&b) {
            bs.push(b);
            cs.push(256 + n);
            n += 1;
        }
    }
    let mut out = vec![' '; 256];
    for (b, c) in bs.into_iter().zip(cs) {
        out[b as usize] = char::from_u32(c).unwrap();
    }
    out
}

/// Three special tokens, the 256 byte tokens, then four merged tokens.
pub(crate) fn tiny_vocab() -> Vec<String> {
    let mut v: Vec<String> = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
        .map(String::from)
        .to_vec();
    v.extend(byte_chars().into_iter().map(String::from));
    v.extend(["Ġt", "he", "Ġthe", "in"].map(String::from));
    v
}

pub(crate) const TINY_MERGES: [&str; 4] = ["Ġ t", "h e", "Ġt he", "i n"];

const CHATML: &str = "{{ '<|im_start|>system\nYou are tiny.<|im_end|>\n' }}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}";

/// How each tensor of the tiny model is stored in its GGUF file.
pub(crate) fn gguf_storage(name: &str) -> GgmlType {
    use GgmlType::*;
    let table: [(&str, GgmlType); 16] = [
        ("layers.0.self_attn.q_proj", F32),
        ("layers.0.self_attn.k_proj", F16),
        ("layers.0.self_attn.v_proj", Q4_0),
        ("layers.0.self_attn.o_proj", Q4_1),
        ("layers.0.mlp.gate_proj", Q5_0),
        ("layers.0.mlp.up_proj", Q5_1),
        ("layers.0.mlp.down_proj", Q4K),
        ("layers.1.self_attn.q_proj", Bf16),
        ("layers.1.self_attn.k_proj", F32),
        ("layers.1.self_attn.v_proj", Q6K),
        ("layers.1.self_attn.o_proj", Q5K),
        ("layers.1.mlp.gate_proj", Q8_0),
        ("layers.1.mlp.up_proj", Q4K),
        ("layers.1.mlp.down_proj", Q6K),
        ("embed_tokens", Q8_0),
        ("lm_head", Q6K),
    ];
    table
        .iter()
        .find(|(k, _)| name.contains(k))
        .map_or(F32, |&(_, t)| t)
}

/// Random blocks of a quantized type whose values are of order 0.05.
fn random_blocks(ty: GgmlType, elements: usize, rng: &mut SplitMix64) -> Vec<u8> {
    let (block, size) = ty.block_layout().unwrap();
    let mut out = Vec::new();
    for _ in 0..elements / block {
        let mut b: Vec<u8> = (0..size).map(|_| rng.next_u64() as u8).collect();
        let mut put =
            |at: usize, v: f32| b[at..at + 2].copy_from_slice(&f16::from_f32(v).to_le_bytes());
        match ty {
            GgmlType::Q4_0 | GgmlType::Q5_0 => put(0, 0.01),
            GgmlType::Q8_0 => put(0, 0.0008),
            GgmlType::Q4_1 | GgmlType::Q5_1 => {
                put(0, 0.008);
                put(2, -0.06);
            }
            GgmlType::Q4K | GgmlType::Q5K => {
                put(0, 0.0002);
                put(2, 0.0003);
            }
            GgmlType::Q6K => put(208, 0.00003),
            other => panic!("no random blocks for {other}"),
        }
        out.extend(b);
    }
    out
}

/// The tiny model's GGUF metadata: a llama of `config`'s sizes with the tiny vocabulary.
fn tiny_metadata(config: &LlamaConfig) -> Vec<(&'static str, GgufValue)> {
    let text = |s: &str| GgufValue::String(s.into());
    let size = |n: usize| GgufValue::U32(n as u32);
    let vocab = tiny_vocab();
    let types = (0..vocab.len())
        .map(|i| GgufValue::I32(if i < 3 { 3 } else { 1 }))
        .collect();
    let tokens = vocab.into_iter().map(GgufValue::String).collect();
    let merges = TINY_MERGES.iter().map(|m| text(m)).collect();
    vec![
        ("general.architecture", text("llama")),
        ("general.name", text("tiny")),
        ("llama.block_count", size(config.num_layers)),
        ("llama.context_length", size(config.max_seq_len)),
        ("llama.embedding_length", size(config.hidden_size)),
        ("llama.feed_forward_length", size(config.intermediate_size)),
        ("llama.attention.head_count", size(config.num_heads)),
        ("llama.attention.head_count_kv", size(config.num_kv_heads)),
        (
            "llama.rope.freq_base",
            GgufValue::F32(config.rope_theta as f32),
        ),
        (
            "llama.attention.layer_norm_rms_epsilon",
            GgufValue::F32(config.rms_norm_eps as f32),
        ),
        ("tokenizer.ggml.model", text("gpt2")),
        ("tokenizer.ggml.pre", text("smollm")),
        ("tokenizer.ggml.tokens", GgufValue::Array(tokens)),
        ("tokenizer.ggml.token_type", GgufValue::Array(types)),
        ("tokenizer.ggml.merges", GgufValue::Array(merges)),
        ("tokenizer.ggml.eos_token_id", GgufValue::U32(2)),
        ("tokenizer.ggml.bos_token_id", GgufValue::U32(1)),
        ("tokenizer.ggml.add_bos_token", GgufValue::Bool(false)),
        ("tokenizer.chat_template", text(CHATML)),
    ]
}

/// A GGUF tensor as the writer takes it: name, row-major shape, type, encoded data.
pub(crate) type GgufTensor = (String, Vec<usize>, GgmlType, Vec<u8>);

/// The parts of the tiny model's GGUF file, for tests that spoil one before writing it:
/// metadata, tensors, and the weights they hold in canonical naming and layout.
pub(crate) struct TinyGguf {
    pub(crate) metadata: Vec<(String, GgufValue)>,
    pub(crate) tensors: Vec<GgufTensor>,
    pub(crate) truth: MemoryWeights,
}

impl TinyGguf {
    /// Sets metadata key `key` (replacing it when present).
    pub(crate) fn set(&mut self, key: &str, value: GgufValue) -> &mut Self {
        self.metadata.retain(|(k, _)| k != key);
        self.metadata.push((key.to_string(), value));
        self
    }

    /// Writes the file.
    pub(crate) fn write(&self, path: &Path) {
        let mut w = GgufWriter::new();
        for (key, value) in &self.metadata {
            w.metadata(key, value.clone());
        }
        for (name, shape, ty, data) in &self.tensors {
            w.tensor(name, shape, *ty, data.clone());
        }
        w.write(path).unwrap();
    }
}

/// Writes the tiny model as a GGUF file at `path` and returns the weights it holds, in
/// canonical naming and layout (what any correct loader must produce).
pub(crate) fn write_tiny_gguf(path: &Path, config: &LlamaConfig, seed: u64) -> MemoryWeights {
    let parts = tiny_gguf(config, seed);
    parts.write(path);
    parts.truth
}

/// The tiny model's GGUF file in parts ([`write_tiny_gguf`] writes them).
pub(crate) fn tiny_gguf(config: &LlamaConfig, seed: u64) -> TinyGguf {
    let random = MemoryWeights::random(config, seed);
    let mut truth = MemoryWeights::new("truth");
    let metadata = tiny_metadata(config)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let mut tensors = Vec::new();
    let mut rng = SplitMix64::new(seed);
    for (name, shape) in canonical_tensors(config) {
        let gname = crate::load::gguf::gguf_name(&name).unwrap();
        let (_, values) = random.get(&name).unwrap();
        let ty = gguf_storage(&name);
        let heads = if name.contains("q_proj") {
            Some(config.num_heads)
        } else if name.contains("k_proj") {
            Some(config.num_kv_heads)
        } else {
            None
        };
        let cols = *shape.last().unwrap();
        let (canonical, bytes): (Vec<f32>, Vec<u8>) = match ty {
            GgmlType::F32 | GgmlType::F16 | GgmlType::Bf16 => {
                let rounded: Vec<f32> = values
                    .iter()
                    .map(|&v| match ty {
                        GgmlType::F16 => f16::from_f32(v).to_f32(),
                        GgmlType::Bf16 => bf16::from_f32(v).to_f32(),
                        _ => v,
                    })
                    .collect();
                let stored = match heads {
                    Some(h) => permute_rotary_rows(&rounded, h, cols, RotaryRows::Interleaved),
                    None => rounded.clone(),
                };
                let bytes = stored
                    .iter()
                    .flat_map(|&v| match ty {
                        GgmlType::F16 => f16::from_f32(v).to_le_bytes().to_vec(),
                        GgmlType::Bf16 => bf16::from_f32(v).to_le_bytes().to_vec(),
                        _ => v.to_le_bytes().to_vec(),
                    })
                    .collect();
                (rounded, bytes)
            }
            quant => {
                assert!(
                    heads.is_none(),
                    "quantized query/key rows are not generated"
                );
                let bytes = random_blocks(quant, values.len(), &mut rng);
                (dequantize(quant, &bytes).unwrap(), bytes)
            }
        };
        truth.insert(&name, &shape, canonical);
        tensors.push((gname, shape, ty, bytes));
    }
    TinyGguf {
        metadata,
        tensors,
        truth,
    }
}

/// Writes `weights` as a Hugging Face folder in `dir`, split over two safetensors files
/// with an index, with `config.json`, `tokenizer.json` and `tokenizer_config.json`.
pub(crate) fn write_tiny_hf(
    dir: &Path,
    config: &LlamaConfig,
    weights: &MemoryWeights,
    model_type: &str,
    tokenizer_json: &str,
) {
    let names = weights.names();
    let (first, second) = names.split_at(names.len() / 2);
    let mut index = serde_json::Map::new();
    for (file, part) in [
        ("model-00001-of-00002.safetensors", first),
        ("model-00002-of-00002.safetensors", second),
    ] {
        let tensors: Vec<(&str, &[usize], &[f32])> = part
            .iter()
            .map(|n| {
                let (s, d) = weights.get(n).unwrap();
                (*n, s, d)
            })
            .collect();
        write_safetensors(&dir.join(file), StDtype::F32, &tensors).unwrap();
        for n in part {
            index.insert((*n).to_string(), file.into());
        }
    }
    let index = serde_json::json!({"metadata": {}, "weight_map": index});
    std::fs::write(dir.join("model.safetensors.index.json"), index.to_string()).unwrap();
    let mut cfg: serde_json::Value = serde_json::from_str(&config_to_hf(config)).unwrap();
    cfg["model_type"] = model_type.into();
    // Left to the model type's default, which the loader must know.
    cfg.as_object_mut().unwrap().remove("attention_bias");
    cfg["rope_scaling"] = serde_json::Value::Null;
    cfg["bos_token_id"] = 1.into();
    cfg["eos_token_id"] = 2.into();
    std::fs::write(dir.join("config.json"), cfg.to_string()).unwrap();
    std::fs::write(dir.join("tokenizer.json"), tokenizer_json).unwrap();
    let tok_cfg = serde_json::json!({"chat_template": CHATML, "eos_token": "<|im_end|>"});
    std::fs::write(dir.join("tokenizer_config.json"), tok_cfg.to_string()).unwrap();
}

/// Writes the tiny model of `config` (seed `seed`) in `dir` both as `tiny.gguf` and as a
/// Hugging Face folder `hf/` holding the same weights; returns both paths and the weights.
pub(crate) fn write_tiny_gguf_and_hf(
    dir: &Path,
    config: &LlamaConfig,
    seed: u64,
) -> (PathBuf, PathBuf, MemoryWeights) {
    let gguf = dir.join("tiny.gguf");
    let truth = write_tiny_gguf(&gguf, config, seed);
    let file = crate::load::gguf::GgufFile::open(&gguf).unwrap();
    let tokenizer = crate::tokenizer::from_gguf(&file).unwrap();
    let json = tokenizer.inner().to_string(false).unwrap();
    let hf = dir.join("hf");
    std::fs::create_dir_all(&hf).unwrap();
    write_tiny_hf(&hf, config, &truth, "llama", &json);
    (gguf, hf, truth)
}
