//! GGUF files: header, metadata, tensor directory, tokenizer, and the model they make,
//! loaded and run once.

use bip_models::backend::Cpu;
use bip_models::load::gguf::{GgmlType, GgufFile, GgufValue, GgufWriter};
use bip_models::{LanguageModel, LoadOptions, PrefixCache, ScoreOptions, ScoreRequest};

use super::{signature, Scratch, Target};

/// The GGUF target.
pub(super) const TARGET: Target = Target {
    name: "gguf",
    about: "GGUF files: header, metadata, tensor infos, tokenizer, model load and one score",
    setup: |_| Ok(()),
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"GGUF",
        b"llama.block_count",
        b"llama.context_length",
        b"llama.embedding_length",
        b"llama.vocab_size",
        b"general.alignment",
        b"tokenizer.ggml.bos_token_id",
        b"tokenizer.ggml.tokens",
        b"blk.0.attn_q.weight",
        b"output.weight",
        b"qwen2",
    ],
    hot: 2048,
};

/// Sizes of the seed model: width 32 (rows of quantized blocks fit), 4 heads over 2,
/// two layers, eight tokens.
const HIDDEN: usize = 32;
const KV: usize = 16;
const LAYERS: usize = 2;
const TOKENS: [&str; 8] = ["<|endoftext|>", "a", "b", "c", "Ġ", "Ġa", "ab", "Ġb"];

fn run(input: &[u8], scratch: &Scratch) -> String {
    let path = scratch.file("model.gguf");
    if let Err(e) = std::fs::write(&path, input) {
        return format!("write: {e}");
    }
    // The reader alone, every tensor read: what it returns must be whole.
    if let Ok(file) = GgufFile::open(&path) {
        for t in file.tensors() {
            if let Ok(values) = file.read_f32(&t.name) {
                assert_eq!(values.len() as u64, t.num_elements(), "{}", t.name);
            }
        }
    }
    let options = LoadOptions::default().with_max_context(256);
    let model = match LanguageModel::<Cpu>::load_with(&path, None, &options, &Default::default()) {
        Ok(model) => model,
        Err(e) => return signature(&e, scratch),
    };
    assert!(model.config().max_seq_len <= 256, "context not limited");
    let request = ScoreRequest {
        prompt: "ab a",
        continuation: " b",
    };
    match model.score(
        &mut PrefixCache::default(),
        &[request],
        &ScoreOptions::default(),
    ) {
        Ok(scored) => {
            let lp = &scored[0].logprobs;
            // A model that loads scores with log-probabilities, never NaN or above 0.
            assert!(lp.iter().all(|l| !l.is_nan() && *l <= 1e-4), "{lp:?}");
            "scored".into()
        }
        Err(e) => signature(&e, scratch),
    }
}

/// The seed model's metadata, with `overrides` replacing (or adding) keys.
fn metadata(w: &mut GgufWriter, overrides: &[(&str, GgufValue)]) {
    let text = |s: &str| GgufValue::String(s.into());
    let size = |n: usize| GgufValue::U32(n as u32);
    let tokens = TOKENS.iter().map(|t| text(t)).collect();
    let types = (0..TOKENS.len())
        .map(|i| GgufValue::I32(if i == 0 { 3 } else { 1 }))
        .collect();
    let merges = vec![text("Ġ a"), text("a b"), text("Ġ b")];
    let mut keys = vec![
        ("general.architecture", text("llama")),
        ("general.name", text("fuzz seed")),
        ("llama.block_count", size(LAYERS)),
        ("llama.context_length", size(128)),
        ("llama.embedding_length", size(HIDDEN)),
        ("llama.feed_forward_length", size(HIDDEN)),
        ("llama.attention.head_count", size(4)),
        ("llama.attention.head_count_kv", size(2)),
        ("llama.rope.freq_base", GgufValue::F32(10_000.0)),
        (
            "llama.attention.layer_norm_rms_epsilon",
            GgufValue::F32(1e-5),
        ),
        ("tokenizer.ggml.model", text("gpt2")),
        ("tokenizer.ggml.pre", text("default")),
        ("tokenizer.ggml.tokens", GgufValue::Array(tokens)),
        ("tokenizer.ggml.token_type", GgufValue::Array(types)),
        ("tokenizer.ggml.merges", GgufValue::Array(merges)),
        ("tokenizer.ggml.bos_token_id", GgufValue::U32(0)),
        ("tokenizer.ggml.eos_token_id", GgufValue::U32(0)),
    ];
    for (key, value) in overrides {
        keys.retain(|(k, _)| k != key);
        keys.push((key, value.clone()));
    }
    for (key, value) in keys {
        w.metadata(key, value);
    }
}

/// `rows × cols` values of type `ty`, small and deterministic (`cols` a whole number of
/// blocks).
fn encoded(ty: GgmlType, rows: usize, cols: usize, salt: u8) -> Vec<u8> {
    let n = rows * cols;
    let value = |i: usize| ((i * 7 + usize::from(salt)) % 13) as f32 * 0.01 - 0.06;
    let f16 = |v: f32| half_bits(v).to_le_bytes();
    match ty {
        GgmlType::F32 => (0..n).flat_map(|i| value(i).to_le_bytes()).collect(),
        GgmlType::F16 => (0..n).flat_map(|i| f16(value(i))).collect(),
        GgmlType::Bf16 => (0..n)
            .flat_map(|i| ((value(i).to_bits() >> 16) as u16).to_le_bytes())
            .collect(),
        _ => {
            let (block, size) = ty.block_layout().unwrap_or((32, 18));
            let blocks = n / block;
            (0..blocks)
                .flat_map(|b| {
                    let mut out = vec![0u8; size];
                    out[..2].copy_from_slice(&f16(0.004));
                    for (i, byte) in out.iter_mut().enumerate().skip(2) {
                        *byte = (i * 31 + b * 17 + usize::from(salt)) as u8;
                    }
                    out
                })
                .collect()
        }
    }
}

/// IEEE half-precision bits of `v` (normal, small values only: enough for the seeds).
fn half_bits(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mantissa = ((bits >> 13) & 0x3ff) as u16;
    sign | ((exp.clamp(1, 30) as u16) << 10) | mantissa
}

/// The seed model, written by bip's own writer, with metadata `overrides`.
fn seed_model(overrides: &[(&str, GgufValue)]) -> GgufWriter {
    use GgmlType::*;
    let mut w = GgufWriter::new();
    metadata(&mut w, overrides);
    let (h, kv, v) = (HIDDEN, KV, TOKENS.len());
    w.tensor("token_embd.weight", &[v, h], Q8_0, encoded(Q8_0, v, h, 1));
    let layer0 = [Q8_0, F16, Bf16, Q4_1, Q5_0, Q5_1, Q8_0];
    for layer in 0..LAYERS {
        w.tensor_f32(
            &format!("blk.{layer}.attn_norm.weight"),
            &[h],
            &[1.0; HIDDEN],
        );
        let parts = [
            ("attn_q", [h, h]),
            ("attn_k", [kv, h]),
            ("attn_v", [kv, h]),
            ("attn_output", [h, h]),
            ("ffn_gate", [h, h]),
            ("ffn_up", [h, h]),
            ("ffn_down", [h, h]),
        ];
        for (i, (name, [rows, cols])) in parts.into_iter().enumerate() {
            let ty = if layer == 0 { layer0[i] } else { Q4_0 };
            let data = encoded(ty, rows, cols, (layer * 7 + i) as u8);
            w.tensor(
                &format!("blk.{layer}.{name}.weight"),
                &[rows, cols],
                ty,
                data,
            );
        }
        w.tensor_f32(
            &format!("blk.{layer}.ffn_norm.weight"),
            &[h],
            &[1.0; HIDDEN],
        );
    }
    w.tensor_f32("output_norm.weight", &[h], &[1.0; HIDDEN]);
    w
}

fn seeds() -> Vec<Vec<u8>> {
    let mut header_only = GgufWriter::new();
    let nested = GgufValue::Array(vec![GgufValue::Array(vec![GgufValue::U8(1)])]);
    metadata(
        &mut header_only,
        &[
            ("general.alignment", GgufValue::U32(64)),
            ("x.nested", nested),
            ("x.i64", GgufValue::I64(-1)),
            ("x.f64", GgufValue::F64(0.5)),
            ("x.bool", GgufValue::Bool(true)),
            ("x.u16", GgufValue::U16(7)),
        ],
    );
    let mut untied = seed_model(&[]);
    let (v, h) = (TOKENS.len(), HIDDEN);
    untied.tensor(
        "output.weight",
        &[v, h],
        GgmlType::Q4_0,
        encoded(GgmlType::Q4_0, v, h, 5),
    );
    vec![
        seed_model(&[]).to_bytes(),
        header_only.to_bytes(),
        untied.to_bytes(),
    ]
}

/// The seed model with metadata key `key` set to `value`.
fn with_key(key: &str, value: GgufValue) -> Vec<u8> {
    seed_model(&[(key, value)]).to_bytes()
}

/// The seed model with the data offset of tensor `name` set to `offset`.
fn with_offset(name: &str, offset: u64) -> Vec<u8> {
    let mut bytes = seed_model(&[]).to_bytes();
    if let Some(at) = bytes.windows(name.len()).position(|w| w == name.as_bytes()) {
        let dims_at = at + name.len();
        let n_dims = u32::from_le_bytes(bytes[dims_at..dims_at + 4].try_into().unwrap_or([0; 4]));
        let field = dims_at + 4 + 8 * n_dims as usize + 4;
        bytes[field..field + 8].copy_from_slice(&offset.to_le_bytes());
    }
    bytes
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let mut extra = seed_model(&[]);
    extra.tensor_f32("blk.0.attn_extra.weight", &[4], &[0.0; 4]);
    vec![
        (
            "context-2e32.gguf",
            with_key("llama.context_length", GgufValue::U32(u32::MAX)),
        ),
        (
            "context-2e60.gguf",
            with_key("llama.context_length", GgufValue::U64(1 << 60)),
        ),
        (
            "block-count-1e12.gguf",
            with_key("llama.block_count", GgufValue::U64(1_000_000_000_000)),
        ),
        (
            "block-count-below-tensors.gguf",
            with_key("llama.block_count", GgufValue::U32(1)),
        ),
        (
            "bos-beyond-vocabulary.gguf",
            with_key("tokenizer.ggml.bos_token_id", GgufValue::U32(99)),
        ),
        (
            "offset-wraps.gguf",
            with_offset("blk.1.ffn_up.weight", u64::MAX - 31),
        ),
        ("extra-tensor.gguf", extra.to_bytes()),
        (
            "alignment-2e63.gguf",
            with_key("general.alignment", GgufValue::U64(1 << 63)),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_model_loads_and_scores() {
        let dir = std::env::temp_dir().join(format!("bip-fuzz-gguf-{}", std::process::id()));
        let scratch = Scratch::new(&dir).unwrap();
        for seed in seeds().iter().take(1).chain(seeds().iter().skip(2)) {
            assert_eq!(run(seed, &scratch), "scored");
        }
        for (name, input) in reproducers() {
            let outcome = run(&input, &scratch);
            if name.starts_with("context") {
                assert_eq!(outcome, "scored", "{name}");
            } else {
                assert_ne!(outcome, "scored", "{name}");
            }
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
