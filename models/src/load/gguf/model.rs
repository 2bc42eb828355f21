//! A GGUF file as a model: its configuration from metadata and its tensors as a
//! [`WeightSource`] in the canonical naming.

use std::path::Path;

use super::reader::GgufFile;
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::load::check::{check_tensors, first_non_finite, same_shape, Entry, Naming};
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
    in_file(path, config)
}

/// `config` when it is consistent, else the inconsistency as an error of the file `path`.
pub(crate) fn in_file(path: &Path, config: LlamaConfig) -> Result<LlamaConfig> {
    match config.validate() {
        Ok(()) => Ok(config),
        Err(e) => Err(ModelError::format(path, e.to_string())),
    }
}

/// A GGUF file's tensors under canonical names, dequantized, with the query/key rows put
/// back in rotate-half order where the converter interleaved them.
pub(crate) struct GgufWeights<'a> {
    file: &'a GgufFile,
    permuted: bool,
    num_heads: usize,
    num_kv_heads: usize,
    /// A tensor given back by the builder, read into next.
    spare: Vec<f32>,
    /// The raw bytes of the tensor last read, reused for the next.
    bytes: Vec<u8>,
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
            spare: Vec::new(),
            bytes: Vec::new(),
        })
    }
}

/// Tensors outside the blocks: canonical name, GGUF name.
const TOP_NAMES: [(&str, &str); 3] = [
    ("model.embed_tokens.weight", "token_embd.weight"),
    ("model.norm.weight", "output_norm.weight"),
    ("lm_head.weight", "output.weight"),
];

/// A block's modules: canonical path within the block, GGUF short name.
const BLOCK_NAMES: [(&str, &str); 9] = [
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

/// The GGUF name of canonical tensor `name`.
pub(crate) fn gguf_name(name: &str) -> Option<String> {
    if let Some((_, g)) = TOP_NAMES.iter().find(|(c, _)| *c == name) {
        return Some((*g).to_string());
    }
    let rest = name.strip_prefix("model.layers.")?;
    let (layer, part) = rest.split_once('.')?;
    let (module, kind) = part.rsplit_once('.')?;
    let (_, short) = BLOCK_NAMES.iter().find(|(c, _)| *c == module)?;
    Some(format!("blk.{layer}.{short}.{kind}"))
}

/// The canonical name of GGUF tensor `name`, when it is one of a Llama-family decoder's
/// (a layer number spelt in its one plain decimal form).
pub(crate) fn canonical_name(name: &str) -> Option<String> {
    if let Some((c, _)) = TOP_NAMES.iter().find(|(_, g)| *g == name) {
        return Some((*c).to_string());
    }
    let rest = name.strip_prefix("blk.")?;
    let (layer, part) = rest.split_once('.')?;
    let plain = layer.parse::<usize>().ok()?.to_string() == layer;
    let (short, kind) = part.rsplit_once('.')?;
    let (module, _) = BLOCK_NAMES.iter().find(|(_, g)| *g == short)?;
    (plain && matches!(kind, "weight" | "bias"))
        .then(|| format!("model.layers.{layer}.{module}.{kind}"))
}

/// Checks that `file` holds exactly the tensors of `config`, in their shapes (before
/// anything of the sizes its metadata declares is allocated).
///
/// # Errors
///
/// What [`check_tensors`] returns, naming the file's own tensor names and the layer
/// count's key.
pub(crate) fn check_gguf_tensors(file: &GgufFile, config: &LlamaConfig) -> Result<()> {
    let arch = architecture(file)?;
    let entries: Vec<Entry> = file
        .tensors()
        .iter()
        .map(|t| Entry {
            name: t.name.clone(),
            canonical: canonical_name(&t.name),
            shape: t.shape(),
        })
        .collect();
    let naming = Naming {
        path: file.path(),
        config: file.path(),
        layers_key: &format!("{arch}.block_count"),
        own_name: &|c| gguf_name(c).unwrap_or_else(|| c.to_string()),
        ignorable: &|_| false,
    };
    check_tensors(config, &entries, &naming)
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
        if !same_shape(&found, shape) {
            return Err(ModelError::tensor(
                self.file.path(),
                &gname,
                format!(
                    "shape {found:?} (GGML dims {:?}), expected {shape:?}",
                    info.dims
                ),
            ));
        }
        // Only matrices read into the spare buffer: a gain or a bias is kept by its layer,
        // and would keep the spare's whole capacity with it.
        let mut data = if shape.len() == 2 {
            std::mem::take(&mut self.spare)
        } else {
            Vec::new()
        };
        self.file
            .read_f32_into(&gname, &mut data, &mut self.bytes)?;
        if let Some(bad) = first_non_finite(&data) {
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

    fn recycle(&mut self, spare: Vec<f32>) {
        // The largest buffer given back is kept: it holds any later tensor without growing.
        if spare.capacity() > self.spare.capacity() {
            self.spare = spare;
        }
    }
}

/// Whether `path` starts with the GGUF magic number.
///
/// # Errors
///
/// [`ModelError::Io`] when the file cannot be opened or read (a file shorter than the
/// magic number is not an error: it is not GGUF).
pub(crate) fn is_gguf(path: &Path) -> Result<bool> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| ModelError::io(path, e))?;
    let mut magic = [0u8; 4];
    match file.read_exact(&mut magic) {
        Ok(()) => Ok(&magic == b"GGUF"),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(ModelError::io(path, e)),
    }
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

    #[test]
    fn names_map_back_from_gguf() {
        for canonical in [
            "model.embed_tokens.weight",
            "lm_head.weight",
            "model.layers.12.self_attn.k_proj.weight",
            "model.layers.0.self_attn.q_proj.bias",
            "model.layers.3.mlp.down_proj.weight",
        ] {
            let g = gguf_name(canonical).unwrap();
            assert_eq!(canonical_name(&g).as_deref(), Some(canonical), "{g}");
        }
        for odd in [
            "blk.01.attn_q.weight",
            "blk.+1.attn_q.weight",
            "blk.1.attn_q.scale",
            "rope_freqs.weight",
        ] {
            assert_eq!(canonical_name(odd), None, "{odd}");
        }
    }
}
