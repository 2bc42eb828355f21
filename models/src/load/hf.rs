//! Hugging Face model folders: `config.json`, one or more `*.safetensors`, `tokenizer.json`
//! and optionally `tokenizer_config.json` (chat template, BOS/EOS tokens).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::check::{check_tensors, first_non_finite, same_shape, Entry, Naming};
use super::safetensors::SafetensorsFile;
use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::tokenizer::{ChatTemplate, Tokenizer};
use crate::weights::WeightSource;

/// Model types bip reads from `config.json`.
const MODEL_TYPES: [&str; 3] = ["llama", "mistral", "qwen2"];

/// The fields of `config.json` that bip reads.
#[derive(Debug, Deserialize)]
struct HfConfig {
    model_type: Option<String>,
    vocab_size: Option<usize>,
    hidden_size: Option<usize>,
    intermediate_size: Option<usize>,
    num_hidden_layers: Option<usize>,
    num_attention_heads: Option<usize>,
    num_key_value_heads: Option<usize>,
    head_dim: Option<usize>,
    rope_theta: Option<f64>,
    rms_norm_eps: Option<f64>,
    max_position_embeddings: Option<usize>,
    tie_word_embeddings: Option<bool>,
    attention_bias: Option<bool>,
    mlp_bias: Option<bool>,
    hidden_act: Option<String>,
    rope_scaling: Option<serde_json::Value>,
    sliding_window: Option<usize>,
    use_sliding_window: Option<bool>,
}

/// The decoder configuration in folder `dir`'s `config.json`. Whether the head is tied
/// also depends on the weights: a checkpoint without `lm_head.weight` reuses the embedding.
///
/// # Errors
///
/// [`ModelError::Io`] when the file cannot be read, [`ModelError::Format`] when it is not
/// JSON, [`ModelError::MissingKey`] for a missing size and [`ModelError::BadKey`] for an
/// unsupported model type, activation, rotary scaling, head width or MLP bias.
pub fn config_from_hf(dir: &Path) -> Result<LlamaConfig> {
    let path = dir.join("config.json");
    let text = crate::io::read_text(&path)?;
    let raw: HfConfig = serde_json::from_str(&text)
        .map_err(|e| ModelError::format(&path, format!("not a model config: {e}")))?;
    let need = |v: Option<usize>, key: &str| {
        v.ok_or_else(|| ModelError::MissingKey {
            path: path.clone(),
            key: key.into(),
        })
    };
    let model_type = raw.model_type.clone().unwrap_or_else(|| "llama".into());
    if !MODEL_TYPES.contains(&model_type.as_str()) {
        return Err(ModelError::key(
            &path,
            "model_type",
            format!(
                "`{model_type}` is not supported ({})",
                MODEL_TYPES.join(", ")
            ),
        ));
    }
    if let Some(act) = raw.hidden_act.as_deref().filter(|a| *a != "silu") {
        return Err(ModelError::key(
            &path,
            "hidden_act",
            format!("`{act}` is not supported (silu)"),
        ));
    }
    if raw.rope_scaling.as_ref().is_some_and(|v| !v.is_null()) {
        return Err(ModelError::key(
            &path,
            "rope_scaling",
            "rotary scaling is not supported",
        ));
    }
    if raw.mlp_bias == Some(true) {
        return Err(ModelError::key(
            &path,
            "mlp_bias",
            "MLP biases are not supported",
        ));
    }
    let hidden = need(raw.hidden_size, "hidden_size")?;
    let heads = need(raw.num_attention_heads, "num_attention_heads")?;
    if let Some(d) = raw.head_dim.filter(|&d| heads == 0 || d != hidden / heads) {
        return Err(ModelError::key(
            &path,
            "head_dim",
            format!("{d} differs from hidden_size / num_attention_heads, which is not supported"),
        ));
    }
    let mut max_len = raw.max_position_embeddings.unwrap_or(2048);
    let sliding = raw.use_sliding_window.unwrap_or(model_type == "mistral");
    if let (true, Some(w)) = (sliding, raw.sliding_window) {
        // Within the window, sliding-window attention is plain causal attention.
        max_len = max_len.min(w);
    }
    let config = LlamaConfig::new(
        need(raw.vocab_size, "vocab_size")?,
        hidden,
        need(raw.intermediate_size, "intermediate_size")?,
        need(raw.num_hidden_layers, "num_hidden_layers")?,
        heads,
        raw.num_key_value_heads.unwrap_or(heads),
    )
    .with_rope_theta(raw.rope_theta.unwrap_or(10_000.0))
    .with_rms_norm_eps(raw.rms_norm_eps.unwrap_or(1e-6))
    .with_max_seq_len(max_len)
    .with_tie_embeddings(raw.tie_word_embeddings.unwrap_or(false))
    .with_attention_bias(raw.attention_bias.unwrap_or(model_type == "qwen2"));
    config
        .validate()
        .map_err(|e| ModelError::format(&path, e.to_string()))?;
    Ok(config)
}

/// The text of a Hugging Face Llama `config.json` describing `config`: what
/// [`config_from_hf`] reads back as `config` (for writing a model as a folder).
pub fn config_to_hf(config: &LlamaConfig) -> String {
    serde_json::json!({
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "vocab_size": config.vocab_size,
        "hidden_size": config.hidden_size,
        "intermediate_size": config.intermediate_size,
        "num_hidden_layers": config.num_layers,
        "num_attention_heads": config.num_heads,
        "num_key_value_heads": config.num_kv_heads,
        "rope_theta": config.rope_theta,
        "rms_norm_eps": config.rms_norm_eps,
        "max_position_embeddings": config.max_seq_len,
        "tie_word_embeddings": config.tie_embeddings,
        "attention_bias": config.attention_bias,
        "hidden_act": "silu",
    })
    .to_string()
}

/// The model type named in `dir/config.json` (`llama` when absent).
pub(crate) fn model_type(dir: &Path) -> Option<String> {
    let text = crate::io::read_text(&dir.join("config.json")).ok()?;
    let raw: HfConfig = serde_json::from_str(&text).ok()?;
    Some(raw.model_type.unwrap_or_else(|| "llama".into()))
}

/// The safetensors files of folder `dir`: those named by `model.safetensors.index.json`
/// when present, else every `*.safetensors`, sorted.
///
/// # Errors
///
/// [`ModelError::Io`] when the folder cannot be listed, [`ModelError::Format`] for a bad
/// index (one that names a file outside the folder included), and
/// [`ModelError::NotFound`] when there is no safetensors file.
pub fn safetensors_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let index = dir.join("model.safetensors.index.json");
    let mut files: Vec<PathBuf> = if index.is_file() {
        let text = crate::io::read_text(&index)?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| ModelError::format(&index, format!("not JSON: {e}")))?;
        let map = json
            .get("weight_map")
            .and_then(|m| m.as_object())
            .ok_or_else(|| ModelError::format(&index, "no `weight_map` object"))?;
        let mut names = map
            .values()
            .map(|v| {
                v.as_str().ok_or_else(|| {
                    ModelError::format(&index, format!("`weight_map` value {v} is not a file name"))
                })
            })
            .collect::<Result<Vec<&str>>>()?;
        names.sort_unstable();
        names.dedup();
        names
            .into_iter()
            .map(|n| inside(dir, &index, n))
            .collect::<Result<_>>()?
    } else {
        let entries = std::fs::read_dir(dir).map_err(|e| ModelError::io(dir, e))?;
        entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
            .collect()
    };
    files.sort();
    if files.is_empty() {
        return Err(ModelError::NotFound(format!(
            "{}: no *.safetensors file in the folder",
            dir.display()
        )));
    }
    Ok(files)
}

/// `dir/name` for a file name `name` read from `index`, which must stay inside `dir`: a
/// relative path with no `..`, never absolute. (Symbolic links inside the folder are
/// followed, as Hugging Face's cache links its files to shared blobs.)
fn inside(dir: &Path, index: &Path, name: &str) -> Result<PathBuf> {
    use std::path::Component;
    let rel = Path::new(name);
    let plain = rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if plain && rel.components().any(|c| matches!(c, Component::Normal(_))) {
        Ok(dir.join(rel))
    } else {
        Err(ModelError::format(
            index,
            format!("`weight_map` names `{name}`, which is not a file inside the model folder"),
        ))
    }
}

/// Checks that the folder's safetensors hold exactly the tensors of `config`, in their
/// shapes; cached rotary frequencies, and a head saved beside the embedding it is tied
/// to, are let be (Hugging Face ignores both).
///
/// # Errors
///
/// What [`check_tensors`] returns, naming `num_hidden_layers` for the layer count.
pub(crate) fn check_hf_tensors(weights: &HfWeights, config: &LlamaConfig) -> Result<()> {
    let entries: Vec<Entry> = weights
        .files
        .iter()
        .flat_map(|f| f.tensors().iter())
        .map(|(name, t)| Entry {
            name: name.clone(),
            canonical: Some(name.clone()),
            shape: t.shape.clone(),
        })
        .collect();
    let tied = config.tie_embeddings;
    // A tied model reads no `lm_head.weight`, but one of another shape says the file is
    // not the model the configuration describes.
    let head = [config.vocab_size, config.hidden_size];
    if let Some(e) = entries.iter().find(|e| tied && e.name == "lm_head.weight") {
        if !same_shape(&e.shape, &head) {
            let why = format!(
                "shape {:?}, expected {head:?} (it is tied to the embedding)",
                e.shape
            );
            return Err(ModelError::tensor(&weights.dir, &e.name, why));
        }
    }
    let naming = Naming {
        path: &weights.dir,
        config: &weights.dir.join("config.json"),
        layers_key: "num_hidden_layers",
        own_name: &|n: &str| n.to_string(),
        ignorable: &|n| n.ends_with(".rotary_emb.inv_freq") || (tied && n == "lm_head.weight"),
    };
    check_tensors(config, &entries, &naming)
}

/// The tensors of a folder's safetensors files, under their own (canonical) names.
pub(crate) struct HfWeights {
    dir: PathBuf,
    files: Vec<SafetensorsFile>,
    index: HashMap<String, usize>,
}

impl HfWeights {
    /// Opens every safetensors file of `dir`.
    pub(crate) fn open(dir: &Path) -> Result<Self> {
        let files = safetensors_files(dir)?
            .iter()
            .map(|p| SafetensorsFile::open(p))
            .collect::<Result<Vec<_>>>()?;
        let mut index = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            for name in f.tensors().keys() {
                if let Some(j) = index.insert(name.clone(), i) {
                    return Err(ModelError::tensor(
                        f.path(),
                        name,
                        format!("also in {}", files[j].path().display()),
                    ));
                }
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            files,
            index,
        })
    }

    /// Whether tensor `name` is present.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// The files opened.
    pub(crate) fn files(&self) -> &[SafetensorsFile] {
        &self.files
    }
}

impl WeightSource for HfWeights {
    fn origin(&self) -> &Path {
        &self.dir
    }

    fn tensor(&mut self, name: &str, shape: &[usize]) -> Result<Option<Vec<f32>>> {
        let Some(&i) = self.index.get(name) else {
            return Ok(None);
        };
        let file = &self.files[i];
        let found = &file.tensors()[name].shape;
        if found != shape {
            return Err(ModelError::tensor(
                file.path(),
                name,
                format!("shape {found:?}, expected {shape:?}"),
            ));
        }
        let data = file.read_f32(name)?;
        if let Some(bad) = first_non_finite(&data) {
            return Err(ModelError::tensor(
                file.path(),
                name,
                format!("element {bad} is {}", data[bad]),
            ));
        }
        Ok(Some(data))
    }
}

/// The tokenizer of folder `dir`: `tokenizer.json`, with the chat template and BOS/EOS
/// tokens from `tokenizer_config.json` and `config.json` when present.
///
/// # Errors
///
/// [`ModelError::Tokenizer`] when `tokenizer.json` is missing or malformed,
/// [`ModelError::Format`] when `tokenizer_config.json` is not JSON, and
/// [`ModelError::BadKey`] for a `bos_token_id` or `eos_token_id` in `config.json` outside
/// the vocabulary.
pub fn tokenizer_from_hf(dir: &Path) -> Result<Tokenizer> {
    let tokenizer = Tokenizer::from_file(&dir.join("tokenizer.json"))?;
    let read_json = |name: &str| -> Result<Option<serde_json::Value>> {
        let path = dir.join(name);
        if !path.is_file() {
            return Ok(None);
        }
        let text = crate::io::read_text(&path)?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| ModelError::format(&path, format!("not JSON: {e}")))
    };
    let tok_config = read_json("tokenizer_config.json")?;
    let config = read_json("config.json")?;
    let token_id = |key: &str| -> Result<Option<u32>> {
        let named = tok_config
            .as_ref()
            .and_then(|c| c.get(key))
            .and_then(|v| match v {
                serde_json::Value::String(s) => Some(s.as_str()),
                serde_json::Value::Object(o) => o.get("content").and_then(|c| c.as_str()),
                _ => None,
            });
        if let Some(id) = named.and_then(|s| tokenizer.token_to_id(s)) {
            return Ok(Some(id));
        }
        let id_key = format!("{key}_id");
        let value = config.as_ref().and_then(|c| c.get(&id_key));
        config_token_id(
            &dir.join("config.json"),
            &id_key,
            value,
            tokenizer.vocab_size(),
        )
    };
    let chat = tok_config
        .as_ref()
        .and_then(|c| c.get("chat_template"))
        .and_then(|t| t.as_str())
        .map_or(ChatTemplate::None, ChatTemplate::from_jinja);
    let (bos, eos) = (token_id("bos_token")?, token_id("eos_token")?);
    Ok(tokenizer.with_specials(bos, eos, chat))
}

/// The token id `value` of `key` in `config.json` (`path`): absent or null, a number, or a
/// list whose first element is used; it must be one of the tokenizer's `n` tokens.
fn config_token_id(
    path: &Path,
    key: &str,
    value: Option<&serde_json::Value>,
    n: usize,
) -> Result<Option<u32>> {
    let first = match value {
        None | Some(serde_json::Value::Null) => return Ok(None),
        Some(serde_json::Value::Array(items)) => match items.first() {
            None => return Ok(None),
            Some(first) => first,
        },
        Some(other) => other,
    };
    match first.as_u64().and_then(|v| u32::try_from(v).ok()) {
        Some(id) if (id as usize) < n => Ok(Some(id)),
        _ => Err(ModelError::key(
            path,
            key,
            format!("{first} is not a token id: the tokenizer has {n} tokens"),
        )),
    }
}
