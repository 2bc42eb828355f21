//! The resolved architecture of a Llama-family decoder.

use burn::config::Config;

use crate::error::{ModelError, Result};

/// Sizes and constants of a Llama-family decoder (Llama, SmolLM, Qwen2-style).
///
/// Loaders fill it from GGUF metadata or a Hugging Face `config.json`; [`LlamaConfig::init`]
/// builds a randomly initialised model of these sizes (for tests and benchmarks).
#[derive(Config, Debug, PartialEq)]
pub struct LlamaConfig {
    /// Number of tokens in the vocabulary (rows of the embedding).
    pub vocab_size: usize,
    /// Width of the residual stream.
    pub hidden_size: usize,
    /// Width of the SwiGLU feed-forward layer.
    pub intermediate_size: usize,
    /// Number of decoder blocks.
    pub num_layers: usize,
    /// Number of query heads.
    pub num_heads: usize,
    /// Number of key/value heads (grouped-query attention when fewer than `num_heads`).
    pub num_kv_heads: usize,
    /// Base of the rotary position embedding's frequencies.
    #[config(default = 10000.0)]
    pub rope_theta: f64,
    /// Epsilon of every RMSNorm.
    #[config(default = 1e-5)]
    pub rms_norm_eps: f64,
    /// Longest sequence (prompt plus continuation) the model accepts.
    #[config(default = 2048)]
    pub max_seq_len: usize,
    /// Whether the LM head reuses the token embedding.
    #[config(default = true)]
    pub tie_embeddings: bool,
    /// Whether the query, key and value projections carry biases (Qwen2).
    #[config(default = false)]
    pub attention_bias: bool,
}

impl LlamaConfig {
    /// SmolLM2-135M (and -Instruct): 30 layers, width 576, 9 heads over 3 KV heads.
    pub fn smollm2_135m() -> Self {
        Self::new(49152, 576, 1536, 30, 9, 3)
            .with_rope_theta(100_000.0)
            .with_rms_norm_eps(1e-5)
            .with_max_seq_len(8192)
    }

    /// Width of one attention head.
    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_heads.max(1)
    }

    /// Checks that the sizes fit together.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] naming the first inconsistency: a zero size, heads that do
    /// not divide the width, KV heads that do not divide the heads, or an odd head width.
    pub fn validate(&self) -> Result<()> {
        let sizes = [
            ("vocab_size", self.vocab_size),
            ("hidden_size", self.hidden_size),
            ("intermediate_size", self.intermediate_size),
            ("num_layers", self.num_layers),
            ("num_heads", self.num_heads),
            ("num_kv_heads", self.num_kv_heads),
            ("max_seq_len", self.max_seq_len),
        ];
        if let Some((name, _)) = sizes.iter().find(|(_, v)| *v == 0) {
            return Err(ModelError::Config(format!("{name} is 0")));
        }
        if !self.hidden_size.is_multiple_of(self.num_heads) {
            return Err(ModelError::Config(format!(
                "hidden_size {} is not a multiple of num_heads {}",
                self.hidden_size, self.num_heads
            )));
        }
        if !self.num_heads.is_multiple_of(self.num_kv_heads) {
            return Err(ModelError::Config(format!(
                "num_heads {} is not a multiple of num_kv_heads {}",
                self.num_heads, self.num_kv_heads
            )));
        }
        if !self.head_dim().is_multiple_of(2) {
            return Err(ModelError::Config(format!(
                "head width {} is odd; rotary embeddings need pairs",
                self.head_dim()
            )));
        }
        if !(self.rope_theta.is_finite() && self.rope_theta > 0.0) {
            return Err(ModelError::Config(format!(
                "rope_theta {} is not a positive number",
                self.rope_theta
            )));
        }
        if !(self.rms_norm_eps.is_finite() && self.rms_norm_eps >= 0.0) {
            return Err(ModelError::Config(format!(
                "rms_norm_eps {} is not a non-negative number",
                self.rms_norm_eps
            )));
        }
        Ok(())
    }

    /// Number of parameters (the tied head counted once); `usize::MAX` when sizes read
    /// from a file multiply past it.
    pub fn num_parameters(&self) -> usize {
        let (h, f, v) = (self.hidden_size, self.intermediate_size, self.vocab_size);
        let kv = self.num_kv_heads.saturating_mul(self.head_dim());
        let bias = if self.attention_bias {
            h.saturating_add(kv.saturating_mul(2))
        } else {
            0
        };
        let terms = [
            h.saturating_mul(2),
            h.saturating_mul(h).saturating_mul(2),
            h.saturating_mul(kv).saturating_mul(2),
            bias,
            h.saturating_mul(f).saturating_mul(3),
        ];
        let block = terms.iter().fold(0usize, |a, &t| a.saturating_add(t));
        let embed = v.saturating_mul(h);
        let head = if self.tie_embeddings { 0 } else { embed };
        embed
            .saturating_add(self.num_layers.saturating_mul(block))
            .saturating_add(h)
            .saturating_add(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smollm2_has_135m_parameters() {
        let cfg = LlamaConfig::smollm2_135m();
        cfg.validate().unwrap();
        assert_eq!(cfg.head_dim(), 64);
        assert_eq!(cfg.num_parameters(), 134_515_008);
    }

    #[test]
    fn validate_names_the_inconsistency() {
        let err = LlamaConfig::new(10, 60, 8, 1, 7, 7).validate().unwrap_err();
        assert!(err.to_string().contains("num_heads 7"), "{err}");
        let err = LlamaConfig::new(10, 64, 8, 1, 8, 3).validate().unwrap_err();
        assert!(err.to_string().contains("num_kv_heads 3"), "{err}");
        let err = LlamaConfig::new(0, 64, 8, 1, 8, 8).validate().unwrap_err();
        assert!(err.to_string().contains("vocab_size is 0"), "{err}");
    }
}
