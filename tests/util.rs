//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use bip::models::load::gguf::{GgufValue, GgufWriter};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Largest mean per-token difference allowed between bip's log-probabilities and
/// llama.cpp's on one model file (tests/qwen.rs, tests/remote.rs). The two differ in
/// arithmetic, not in the model: llama.cpp quantises each activation row to 8 bits and
/// multiplies with integer dot products on the file's own blocks, by kernels that differ
/// with the CPU's vector extensions; bip dequantises the weights and multiplies in f32,
/// or requantises them to 8-bit blocks of its own. A scoring mistake (a position off by
/// one, another tokenizer) moves log-probabilities by nats.
pub const MEAN_TOLERANCE: f64 = 0.05;
/// Largest single per-token difference allowed: the least likely tokens swing furthest
/// (SmolLM2's Q4_1 file differs by up to 0.05 nats on one host and 0.21 on an AVX2-only
/// one, mean 0.03).
pub const MAX_TOLERANCE: f64 = 0.3;

/// The repository root (where `episodes/examples/` is).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every shipped example episode, sorted.
pub fn examples() -> Vec<PathBuf> {
    bip_episodes::test_support::example_paths()
}

/// Runs the `bip` binary with `args`.
pub fn bip<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_bip"))
        .args(args)
        .output()
        .expect("bip runs")
}

/// Standard output as JSON.
pub fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "bip failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

/// Every question's posterior in `infer --json`'s standard output, in order.
pub fn posteriors(output: &Output) -> Vec<serde_json::Value> {
    let doc = json(output);
    let episodes = doc["episodes"].as_array().expect("episodes").clone();
    episodes
        .iter()
        .flat_map(|e| e["questions"].as_array().expect("questions").clone())
        .map(|q| q["posterior"].clone())
        .collect()
}

/// A folder that is removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty folder under the system temporary directory.
    pub fn new() -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!("bip-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).expect("temp dir");
        Self(path)
    }

    /// Writes `contents` to `name` inside the folder and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).expect("write fixture");
        path
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes a Llama of `config` with random weights (`seed`) into `dir` as a Hugging Face
/// folder's `model.safetensors` and `config.json`; the caller adds `tokenizer.json`.
pub fn write_hf_weights(dir: &Path, config: &bip::models::LlamaConfig, seed: u64) {
    use bip::models::load::safetensors::{write_safetensors, StDtype};
    let weights = bip::models::MemoryWeights::random(config, seed);
    let tensors: Vec<(&str, &[usize], &[f32])> = weights
        .names()
        .into_iter()
        .map(|n| {
            let (shape, data) = weights.get(n).expect("named tensor");
            (n, shape, data)
        })
        .collect();
    std::fs::create_dir_all(dir).expect("model folder");
    write_safetensors(&dir.join("model.safetensors"), StDtype::F32, &tensors)
        .expect("safetensors written");
    let cfg = bip::models::load::hf::config_to_hf(config);
    std::fs::write(dir.join("config.json"), cfg).expect("config written");
}

/// Writes `dir/tokenizer.json`: a `tokenizers` tokenizer of `model` (BPE, WordLevel, ...)
/// with `pre_tokenizer` and `decoder`, no normalizer, added tokens or post-processor.
pub fn write_tokenizer(
    dir: &Path,
    pre_tokenizer: serde_json::Value,
    decoder: serde_json::Value,
    model: serde_json::Value,
) {
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": null,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": decoder,
        "model": model,
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).expect("tokenizer written");
}

/// GPT-2's map from bytes to the printable characters byte-level BPE spells them with.
///
/// A deliberate copy of `bip-models`' test helper `testutil::byte_chars`, which is compiled
/// only into that crate's unit tests.
pub fn byte_chars() -> Vec<char> {
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
        out[b as usize] = char::from_u32(c).expect("a char");
    }
    out
}

/// Writes a tiny Llama as a Hugging Face folder: one token per byte, random weights.
pub fn write_tiny_model(dir: &Path) {
    let config = bip::models::LlamaConfig::new(256, 32, 48, 2, 4, 2).with_max_seq_len(4096);
    write_hf_weights(dir, &config, 5);
    write_byte_level_tokenizer(dir, &byte_chars());
}

/// Writes a byte-level BPE tokenizer without merges whose tokens are `chars`, in order
/// (GPT-2's spelling of bytes, [`byte_chars`]).
pub fn write_byte_level_tokenizer(dir: &Path, chars: &[char]) {
    let vocab: serde_json::Map<String, serde_json::Value> = chars
        .iter()
        .enumerate()
        .map(|(i, c)| (c.to_string(), serde_json::json!(i)))
        .collect();
    let byte_level = serde_json::json!({
        "type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true
    });
    let bpe = serde_json::json!({
        "type": "BPE", "dropout": null, "unk_token": null,
        "continuing_subword_prefix": null, "end_of_word_suffix": null,
        "fuse_unk": false, "byte_fallback": false, "vocab": vocab, "merges": []
    });
    write_tokenizer(dir, byte_level.clone(), byte_level, bpe);
}

/// Writes a tiny Llama as a GGUF file at `path`: one token per byte (byte-level BPE, no
/// merges), every tensor `F32`, random weights; `edit` may change the metadata and the
/// tensors (name, row-major shape, values) before they are written.
pub fn write_tiny_gguf(
    path: &Path,
    edit: impl FnOnce(&mut Vec<(String, GgufValue)>, &mut Vec<(String, Vec<usize>, Vec<f32>)>),
) {
    let config = bip::models::LlamaConfig::new(256, 32, 48, 2, 4, 2);
    let weights = bip::models::MemoryWeights::random(&config, 9);
    let text = |s: &str| GgufValue::String(s.into());
    let size = |n: usize| GgufValue::U32(n as u32);
    let tokens = byte_chars()
        .into_iter()
        .map(|c| GgufValue::String(c.to_string()));
    let mut metadata: Vec<(String, GgufValue)> = [
        ("general.architecture", text("llama")),
        ("llama.block_count", size(config.num_layers)),
        ("llama.context_length", size(64)),
        ("llama.embedding_length", size(config.hidden_size)),
        ("llama.feed_forward_length", size(config.intermediate_size)),
        ("llama.attention.head_count", size(config.num_heads)),
        ("llama.attention.head_count_kv", size(config.num_kv_heads)),
        ("tokenizer.ggml.model", text("gpt2")),
        ("tokenizer.ggml.tokens", GgufValue::Array(tokens.collect())),
        ("tokenizer.ggml.merges", GgufValue::Array(Vec::new())),
        ("tokenizer.ggml.eos_token_id", GgufValue::U32(0)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut tensors: Vec<(String, Vec<usize>, Vec<f32>)> = bip::models::canonical_tensors(&config)
        .into_iter()
        .map(|(name, shape)| {
            let data = weights.get(&name).expect("a tensor").1.to_vec();
            (gguf_name(&name), shape, data)
        })
        .collect();
    edit(&mut metadata, &mut tensors);
    let mut w = GgufWriter::new();
    for (key, value) in metadata {
        w.metadata(&key, value);
    }
    for (name, shape, data) in &tensors {
        w.tensor_f32(name, shape, data);
    }
    w.write(path).expect("GGUF written");
}

/// The GGUF name of a canonical tensor name (the model is random: query and key rows need
/// no reordering).
fn gguf_name(name: &str) -> String {
    let top = [
        ("model.embed_tokens.weight", "token_embd.weight"),
        ("model.norm.weight", "output_norm.weight"),
        ("lm_head.weight", "output.weight"),
    ];
    if let Some((_, g)) = top.iter().find(|(c, _)| *c == name) {
        return (*g).to_string();
    }
    let parts = [
        ("input_layernorm", "attn_norm"),
        ("self_attn.q_proj", "attn_q"),
        ("self_attn.k_proj", "attn_k"),
        ("self_attn.v_proj", "attn_v"),
        ("self_attn.o_proj", "attn_output"),
        ("post_attention_layernorm", "ffn_norm"),
        ("mlp.gate_proj", "ffn_gate"),
        ("mlp.up_proj", "ffn_up"),
        ("mlp.down_proj", "ffn_down"),
    ];
    let rest = name.strip_prefix("model.layers.").expect("a layer tensor");
    let (layer, part) = rest.split_once('.').expect("layer.part");
    let module = part.strip_suffix(".weight").expect("a weight");
    let short = parts
        .iter()
        .find(|(c, _)| *c == module)
        .expect("a module")
        .1;
    format!("blk.{layer}.{short}.weight")
}

/// Standard error of `output`, as text.
pub fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
