//! A GGUF file as a model: its configuration from metadata and its tensors as a
//! [`WeightSource`] in the canonical naming.

use std::path::Path;

use super::reader::GgufFile;
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::weights::{permute_rotary_rows, RotaryRows, WeightSource};

/// Architectures read from GGUF, and whether their converter interleaved the rotary pairs
/// of the query/key rows (llama.cpp permutes `llama` weights; `qwen2` keeps Hugging Face's
/// rotate-half layout).
const ARCHITECTURES: [(&str, bool); 2] = [("llama", true), ("qwen2", false)];

/// The architecture named in `general.architecture`, checked against those bip runs.
pub(crate) fn architecture(file: &GgufFile) -> Result<String> {
    let key = "general.architecture";
    let arch = file
        .get(key)
        .ok_or_else(|| ModelError::MissingKey {
            path: file.path().to_path_buf(),
            key: key.into(),
        })?
        .as_str()
        .ok_or_else(|| ModelError::key(file.path(), key, "not a string"))?;
    if ARCHITECTURES.iter().any(|(a, _)| *a == arch) {
        Ok(arch.to_string())
    } else {
        Err(ModelError::key(
            file.path(),
            key,
            format!("architecture `{arch}` is not supported (llama, qwen2)"),
        ))
    }
}

/// The decoder configuration described by `file`'s metadata.
///
/// # Errors
///
/// [`ModelError::MissingKey`] or [`ModelError::BadKey`] naming the key: a missing size, a
/// value of the wrong type, rotary scaling or partial rotary dimensions (unsupported).
pub fn config_from_gguf(file: &GgufFile) -> Result<LlamaConfig> {
    let arch = architecture(file)?;
    let path = file.path();
    let key = |k: &str| format!("{arch}.{k}");
    let usize_of = |k: &str| -> Result<Option<usize>> {
        match file.get(&key(k)) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|v| usize::try_from(v).ok())
                .map(Some)
                .ok_or_else(|| ModelError::key(path, key(k), format!("{v:?} is not a size"))),
        }
    };
    let required = |k: &str| -> Result<usize> {
        usize_of(k)?.ok_or_else(|| ModelError::MissingKey {
            path: path.to_path_buf(),
            key: key(k),
        })
    };
    let float_of = |k: &str| -> Result<Option<f64>> {
        match file.get(&key(k)) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| ModelError::key(path, key(k), format!("{v:?} is not a float"))),
        }
    };
    let hidden = required("embedding_length")?;
    let heads = required("attention.head_count")?;
    let vocab = match usize_of("vocab_size")? {
        Some(v) => v,
        None => file
            .get("tokenizer.ggml.tokens")
            .and_then(|v| v.as_array())
            .map(<[_]>::len)
            .ok_or_else(|| ModelError::MissingKey {
                path: path.to_path_buf(),
                key: key("vocab_size"),
            })?,
    };
    let config = LlamaConfig::new(
        vocab,
        hidden,
        required("feed_forward_length")?,
        required("block_count")?,
        heads,
        usize_of("attention.head_count_kv")?.unwrap_or(heads),
    )
    .with_rope_theta(float_of("rope.freq_base")?.unwrap_or(10_000.0))
    .with_rms_norm_eps(float_of("attention.layer_norm_rms_epsilon")?.unwrap_or(1e-5))
    .with_max_seq_len(usize_of("context_length")?.unwrap_or(2048))
    .with_tie_embeddings(file.tensor_info("output.weight").is_none())
    .with_attention_bias(file.tensor_info("blk.0.attn_q.bias").is_some());
    if let Some(dims) = usize_of("rope.dimension_count")? {
        if heads > 0 && dims != hidden / heads {
            return Err(ModelError::key(
                path,
                key("rope.dimension_count"),
                format!(
                    "partial rotary embeddings ({dims} of {} dimensions) are not supported",
                    hidden / heads
                ),
            ));
        }
    }
    if let Some(kind) = file.get(&key("rope.scaling.type")).and_then(|v| v.as_str()) {
        if kind != "none" {
            return Err(ModelError::key(
                path,
                key("rope.scaling.type"),
                format!("rotary scaling `{kind}` is not supported"),
            ));
        }
    }
    config.validate()?;
    Ok(config)
}

/// A GGUF file's tensors under canonical names, dequantized, with the query/key rows put
/// back in rotate-half order where the converter interleaved them.
pub(crate) struct GgufWeights<'a> {
    file: &'a GgufFile,
    permuted: bool,
    num_heads: usize,
    num_kv_heads: usize,
}

impl<'a> GgufWeights<'a> {
    pub(crate) fn new(file: &'a GgufFile, config: &LlamaConfig) -> Result<Self> {
        let arch = architecture(file)?;
        let permuted = ARCHITECTURES.iter().any(|(a, p)| *a == arch && *p);
        Ok(Self {
            file,
            permuted,
            num_heads: config.num_heads,
            num_kv_heads: config.num_kv_heads,
        })
    }
}

/// The GGUF name of canonical tensor `name`.
pub(crate) fn gguf_name(name: &str) -> Option<String> {
    Some(match name {
        "model.embed_tokens.weight" => "token_embd.weight".into(),
        "model.norm.weight" => "output_norm.weight".into(),
        "lm_head.weight" => "output.weight".into(),
        _ => {
            let rest = name.strip_prefix("model.layers.")?;
            let (layer, part) = rest.split_once('.')?;
            let (module, kind) = part.rsplit_once('.')?;
            let short = match module {
                "input_layernorm" => "attn_norm",
                "self_attn.q_proj" => "attn_q",
                "self_attn.k_proj" => "attn_k",
                "self_attn.v_proj" => "attn_v",
                "self_attn.o_proj" => "attn_output",
                "post_attention_layernorm" => "ffn_norm",
                "mlp.gate_proj" => "ffn_gate",
                "mlp.up_proj" => "ffn_up",
                "mlp.down_proj" => "ffn_down",
                _ => return None,
            };
            format!("blk.{layer}.{short}.{kind}")
        }
    })
}

impl WeightSource for GgufWeights<'_> {
    fn origin(&self) -> &Path {
        self.file.path()
    }

    fn tensor(&mut self, name: &str, shape: &[usize]) -> Result<Option<Vec<f32>>> {
        let Some(gname) = gguf_name(name) else {
            return Ok(None);
        };
        let Some(info) = self.file.tensor_info(&gname) else {
            return Ok(None);
        };
        let found = info.shape();
        // A vector may be stored with trailing unit dimensions.
        let same = found == shape
            || found
                .iter()
                .copied()
                .filter(|&d| d != 1)
                .eq(shape.iter().copied());
        if !same {
            return Err(ModelError::tensor(
                self.file.path(),
                &gname,
                format!(
                    "shape {found:?} (GGML dims {:?}), expected {shape:?}",
                    info.dims
                ),
            ));
        }
        let data = self.file.read_f32(&gname)?;
        if let Some(bad) = data.iter().position(|v| !v.is_finite()) {
            return Err(ModelError::tensor(
                self.file.path(),
                &gname,
                format!("element {bad} is {} after dequantization", data[bad]),
            ));
        }
        let heads = if name.ends_with("q_proj.weight") || name.ends_with("q_proj.bias") {
            Some(self.num_heads)
        } else if name.ends_with("k_proj.weight") || name.ends_with("k_proj.bias") {
            Some(self.num_kv_heads)
        } else {
            None
        };
        Ok(Some(match heads {
            Some(heads) if self.permuted => {
                let cols = if shape.len() == 2 { shape[1] } else { 1 };
                permute_rotary_rows(&data, heads, cols, RotaryRows::Halves)
            }
            _ => data,
        }))
    }
}

/// Whether `path` starts with the GGUF magic number.
pub(crate) fn is_gguf(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"GGUF"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_gguf() {
        assert_eq!(
            gguf_name("model.layers.12.self_attn.k_proj.weight").unwrap(),
            "blk.12.attn_k.weight"
        );
        assert_eq!(
            gguf_name("model.layers.0.self_attn.q_proj.bias").unwrap(),
            "blk.0.attn_q.bias"
        );
        assert_eq!(
            gguf_name("model.layers.3.mlp.down_proj.weight").unwrap(),
            "blk.3.ffn_down.weight"
        );
        assert_eq!(gguf_name("lm_head.weight").unwrap(), "output.weight");
        assert_eq!(gguf_name("model.layers.3.mystery.weight"), None);
    }
}
