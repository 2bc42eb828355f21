//! Where a model's weights come from: one trait over every format, in one naming scheme.
//!
//! The canonical names are Hugging Face Llama's (`model.layers.0.self_attn.q_proj.weight`),
//! with matrices in `[out, in]` order and query/key rows in Hugging Face's order (rotary
//! halves, not interleaved pairs). Each format's source maps its own names and layout onto
//! these, so that one builder ([`crate::Transformer::from_weights`]) serves them all.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};

/// A supplier of named `f32` tensors in the canonical naming.
pub trait WeightSource {
    /// The file or folder the weights come from, for error messages.
    fn origin(&self) -> &Path;

    /// Tensor `name` (canonical naming) in row-major order, or `None` when the source does
    /// not have it.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadTensor`] naming the source's own tensor name when its shape is not
    /// `shape`, and whatever reading or dequantizing it returns.
    fn tensor(&mut self, name: &str, shape: &[usize]) -> Result<Option<Vec<f32>>>;

    /// Takes back a tensor the builder no longer needs, for the source to read the next
    /// one into (a file's source saves faulting its pages in again); the default drops it.
    fn recycle(&mut self, spare: Vec<f32>) {
        drop(spare);
    }
}

/// Weights held in memory, keyed by canonical name.
#[derive(Clone, Debug, Default)]
pub struct MemoryWeights {
    origin: PathBuf,
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl MemoryWeights {
    /// An empty set; `origin` names it in errors.
    pub fn new(origin: impl Into<PathBuf>) -> Self {
        Self {
            origin: origin.into(),
            tensors: HashMap::new(),
        }
    }

    /// Adds (or replaces) tensor `name`.
    ///
    /// # Panics
    ///
    /// When `data.len()` is not the product of `shape`.
    pub fn insert(&mut self, name: &str, shape: &[usize], data: Vec<f32>) {
        assert_eq!(
            shape.iter().product::<usize>(),
            data.len(),
            "tensor {name}: data does not fill shape {shape:?}"
        );
        self.tensors
            .insert(name.to_string(), (shape.to_vec(), data));
    }

    /// Tensor `name`, if present: its shape and data.
    pub fn get(&self, name: &str) -> Option<(&[usize], &[f32])> {
        self.tensors
            .get(name)
            .map(|(s, d)| (s.as_slice(), d.as_slice()))
    }

    /// The names held, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<_> = self.tensors.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// Deterministic pseudo-random weights for every tensor of `config` (matrices and
    /// biases uniform with standard deviation 0.05, norm weights near 1), from `seed`.
    ///
    /// A tensor's values depend only on the seed and its name.
    pub fn random(config: &LlamaConfig, seed: u64) -> Self {
        let mut w = Self::new(format!("random weights (seed {seed})"));
        for (name, shape) in canonical_tensors(config) {
            let n = shape.iter().product();
            let mut rng = SplitMix64::new(seed ^ fnv1a(name.as_bytes()));
            let data = if name.ends_with("norm.weight") {
                (0..n).map(|_| 1.0 + 0.1 * rng.uniform()).collect()
            } else {
                // Uniform on [-a, a] has standard deviation a / sqrt(3).
                (0..n).map(|_| 0.05 * 3f32.sqrt() * rng.uniform()).collect()
            };
            w.insert(&name, &shape, data);
        }
        w
    }
}

impl WeightSource for MemoryWeights {
    fn origin(&self) -> &Path {
        &self.origin
    }

    fn tensor(&mut self, name: &str, shape: &[usize]) -> Result<Option<Vec<f32>>> {
        match self.tensors.get(name) {
            None => Ok(None),
            Some((found, _)) if found != shape => Err(ModelError::tensor(
                &self.origin,
                name,
                format!("shape {found:?}, expected {shape:?}"),
            )),
            Some((_, data)) => Ok(Some(data.clone())),
        }
    }
}

/// Every tensor `config` needs, canonical name and shape, in load order. The LM head is
/// listed only when not tied; biases only with `attention_bias`.
pub fn canonical_tensors(config: &LlamaConfig) -> Vec<(String, Vec<usize>)> {
    expected_tensors(config).collect()
}

/// [`canonical_tensors`] one at a time: the sizes of a configuration read from a file
/// cost nothing until they are walked through.
pub(crate) fn expected_tensors(config: &LlamaConfig) -> impl Iterator<Item = (String, Vec<usize>)> {
    let (h, f, v) = (
        config.hidden_size,
        config.intermediate_size,
        config.vocab_size,
    );
    let (q, kv) = (
        config.num_heads * config.head_dim(),
        config.num_kv_heads * config.head_dim(),
    );
    let bias = config.attention_bias;
    let layers = (0..config.num_layers).flat_map(move |i| {
        let p = format!("model.layers.{i}");
        let mut out = vec![
            (format!("{p}.input_layernorm.weight"), vec![h]),
            (format!("{p}.self_attn.q_proj.weight"), vec![q, h]),
            (format!("{p}.self_attn.k_proj.weight"), vec![kv, h]),
            (format!("{p}.self_attn.v_proj.weight"), vec![kv, h]),
        ];
        if bias {
            out.push((format!("{p}.self_attn.q_proj.bias"), vec![q]));
            out.push((format!("{p}.self_attn.k_proj.bias"), vec![kv]));
            out.push((format!("{p}.self_attn.v_proj.bias"), vec![kv]));
        }
        out.extend([
            (format!("{p}.self_attn.o_proj.weight"), vec![h, q]),
            (format!("{p}.post_attention_layernorm.weight"), vec![h]),
            (format!("{p}.mlp.gate_proj.weight"), vec![f, h]),
            (format!("{p}.mlp.up_proj.weight"), vec![f, h]),
            (format!("{p}.mlp.down_proj.weight"), vec![h, f]),
        ]);
        out
    });
    let head = (!config.tie_embeddings).then(|| ("lm_head.weight".to_string(), vec![v, h]));
    std::iter::once(("model.embed_tokens.weight".to_string(), vec![v, h]))
        .chain(layers)
        .chain(std::iter::once(("model.norm.weight".to_string(), vec![h])))
        .chain(head)
}

/// How a query or key projection orders the rows of each head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RotaryRows {
    /// Rotary halves, Hugging Face's (canonical) order: row `t * d/2 + j`.
    Halves,
    /// Interleaved rotary pairs, GGUF's `llama` order: row `2j + t`.
    #[cfg_attr(
        not(test),
        allow(
            dead_code,
            reason = "only the tests write GGUF files, which use this order"
        )
    )]
    Interleaved,
}

/// The rows of a query or key projection, `[heads * head_dim, cols]` row-major, put in
/// order `to` from the other order.
pub(crate) fn permute_rotary_rows(
    data: &[f32],
    heads: usize,
    cols: usize,
    to: RotaryRows,
) -> Vec<f32> {
    let rows = data.len() / cols.max(1);
    let d = rows / heads.max(1);
    let half = d / 2;
    let mut out = vec![0.0; data.len()];
    for head in 0..heads {
        for j in 0..half {
            for t in 0..2 {
                let halves = (head * d + t * half + j) * cols;
                let interleaved = (head * d + 2 * j + t) * cols;
                let (src, dst) = match to {
                    RotaryRows::Halves => (interleaved, halves),
                    RotaryRows::Interleaved => (halves, interleaved),
                };
                out[dst..dst + cols].copy_from_slice(&data[src..src + cols]);
            }
        }
    }
    out
}

/// `[rows, cols]` row-major to `[cols, rows]` row-major.
pub(crate) fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    // Blocked so that both sides stay in cache for large matrices.
    const B: usize = 64;
    for r0 in (0..rows).step_by(B) {
        for c0 in (0..cols).step_by(B) {
            for r in r0..(r0 + B).min(rows) {
                for c in c0..(c0 + B).min(cols) {
                    out[c * rows + r] = data[r * cols + c];
                }
            }
        }
    }
    out
}

/// FNV-1a of `bytes`: a hash stable across Rust versions (the standard hasher is not
/// promised to be), for per-tensor seeds, score cache file names and test fingerprints.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64: a tiny, well-mixed generator for reproducible test weights.
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform on [-1, 1).
    pub(crate) fn uniform(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotary_rows_move_between_halves_and_pairs() {
        // One head of width 4, one column: halves (a0, a1 | b0, b1) pair up as
        // (a0, b0), (a1, b1).
        let halves = [1.0, 2.0, 10.0, 20.0];
        let interleaved = permute_rotary_rows(&halves, 1, 1, RotaryRows::Interleaved);
        assert_eq!(interleaved, [1.0, 10.0, 2.0, 20.0]);
        assert_eq!(
            permute_rotary_rows(&interleaved, 1, 1, RotaryRows::Halves),
            halves
        );
        let (heads, d, cols) = (2, 4, 3);
        let data: Vec<f32> = (0..heads * d * cols).map(|x| x as f32).collect();
        let there = permute_rotary_rows(&data, heads, cols, RotaryRows::Interleaved);
        assert_ne!(there, data);
        assert_eq!(
            permute_rotary_rows(&there, heads, cols, RotaryRows::Halves),
            data
        );
    }

    #[test]
    fn transpose_is_exact() {
        let a: Vec<f32> = (0..6).map(|x| x as f32).collect();
        assert_eq!(transpose(&a, 2, 3), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        let big: Vec<f32> = (0..70 * 130).map(|x| x as f32).collect();
        assert_eq!(transpose(&transpose(&big, 70, 130), 130, 70), big);
    }

    #[test]
    fn random_weights_are_reproducible_and_named() {
        let cfg = LlamaConfig::new(16, 8, 12, 2, 2, 1);
        let a = MemoryWeights::random(&cfg, 7);
        let b = MemoryWeights::random(&cfg, 7);
        let name = "model.layers.1.mlp.up_proj.weight";
        assert_eq!(a.get(name), b.get(name));
        assert_eq!(a.get(name).unwrap().0, &[12, 8]);
        assert_ne!(a.get(name), MemoryWeights::random(&cfg, 8).get(name));
        assert_eq!(a.names().len(), 1 + 2 * 9 + 1);
    }

    #[test]
    fn memory_weights_check_shapes() {
        let mut w = MemoryWeights::new("mem");
        w.insert("x", &[2, 2], vec![0.0; 4]);
        let err = w.tensor("x", &[4]).unwrap_err();
        assert!(
            err.to_string()
                .contains("tensor `x`: shape [2, 2], expected [4]"),
            "{err}"
        );
        assert!(w.tensor("y", &[4]).unwrap().is_none());
    }
}
