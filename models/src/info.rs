//! What a model file or folder holds, read without loading the weights.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::LlamaConfig;
use crate::error::{ModelError, Result};
use crate::load::gguf::{architecture, check_gguf_tensors, config_from_gguf, is_gguf, GgufFile};
use crate::load::hf::{check_hf_tensors, config_from_hf, model_type, tokenizer_from_hf, HfWeights};
use crate::load::LoadOptions;
use crate::tokenizer::{from_gguf, Tokenizer};

/// A model's description: format, architecture, sizes, quantization, tokenizer.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ModelInfo {
    /// The file or folder.
    pub path: PathBuf,
    /// `GGUF v3`, or `safetensors (N files)`.
    pub format: String,
    /// The model's own name, when the file records one.
    pub name: Option<String>,
    /// The architecture (`llama`, `qwen2`, ...).
    pub architecture: String,
    /// The decoder's sizes; `max_seq_len` is the context the model runs on
    /// ([`LoadOptions::max_context`] at most).
    pub config: LlamaConfig,
    /// The context the file declares (`context_length`, `max_position_embeddings`).
    pub declared_context: usize,
    /// Number of parameters.
    pub parameters: usize,
    /// Number of tensors of each element type (`Q4_1`, `F32`, `BF16`, ...).
    pub tensor_types: BTreeMap<String, usize>,
    /// The file's declared quantization (GGUF `general.file_type`), when present.
    pub file_type: Option<String>,
    /// The tokenizer.
    pub tokenizer: TokenizerInfo,
}

/// A tokenizer's description.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TokenizerInfo {
    /// Model and pre-tokenizer.
    pub kind: String,
    /// Tokens, added ones included.
    pub vocab_size: usize,
    /// Beginning-of-sequence token.
    pub bos_token: Option<u32>,
    /// End-of-sequence token.
    pub eos_token: Option<u32>,
    /// Whether prompts start with the BOS token.
    pub adds_bos: bool,
    /// Special tokens by id.
    pub special_tokens: Vec<(u32, String)>,
    /// The chat template family (`chatml`, `none`).
    pub chat_template: String,
}

impl TokenizerInfo {
    /// Describes `tokenizer`.
    pub fn of(tokenizer: &Tokenizer) -> Self {
        Self {
            kind: tokenizer.kind().to_string(),
            vocab_size: tokenizer.vocab_size(),
            bos_token: tokenizer.bos_token(),
            eos_token: tokenizer.eos_token(),
            adds_bos: tokenizer.adds_bos(),
            special_tokens: tokenizer.special_tokens(),
            chat_template: tokenizer.chat_template().name().to_string(),
        }
    }
}

/// An opened model, before its weights are read.
pub(crate) enum Opened {
    Gguf(GgufFile),
    Hf(HfWeights),
}

/// Everything but the weights: where they are, the configuration, tokenizer and info.
pub(crate) struct Prepared {
    pub(crate) opened: Opened,
    pub(crate) config: LlamaConfig,
    pub(crate) tokenizer: Tokenizer,
    pub(crate) info: ModelInfo,
}

impl ModelInfo {
    /// Describes the model at `path` (a GGUF file or a Hugging Face folder) from its
    /// metadata, configuration and tokenizer, without reading the weights.
    ///
    /// # Errors
    ///
    /// As [`crate::LanguageModel::load`], except for errors in the weights' data.
    pub fn read(path: &Path) -> Result<Self> {
        prepare(path, &LoadOptions::default()).map(|p| p.info)
    }
}

/// The tokenizer of the model at `path`, without reading weights: a GGUF file's own, or
/// a folder's `tokenizer.json` (with its `tokenizer_config.json` and `config.json` when
/// present; `path` may name the `tokenizer.json` itself). This is how bip tokenizes for a
/// model it does not host (a served one).
///
/// # Errors
///
/// As [`ModelInfo::read`] for a GGUF file; [`crate::load::hf::tokenizer_from_hf`]'s for a
/// folder.
pub fn read_tokenizer(path: &Path) -> Result<Tokenizer> {
    let dir = if path.is_dir() {
        Some(path)
    } else if path.extension().is_some_and(|e| e == "json") {
        path.parent()
    } else {
        None
    };
    match dir {
        Some(dir) => tokenizer_from_hf(dir),
        None => prepare(path, &LoadOptions::default()).map(|p| p.tokenizer),
    }
}

/// Opens the model at `path` and reads everything but the weights, checking that the
/// sizes the file declares are borne out by its tensors and tokenizer; the context is
/// limited to `options.max_context`.
pub(crate) fn prepare(path: &Path, options: &LoadOptions) -> Result<Prepared> {
    options.check()?;
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            ModelError::NotFound(format!("{}: no such file or folder", path.display()))
        }
        _ => ModelError::io(path, e),
    })?;
    let is_hf_file = path
        .extension()
        .is_some_and(|e| e == "safetensors" || e == "json");
    let mut prepared = match path.parent() {
        _ if meta.is_dir() => prepare_hf(path)?,
        Some(dir) if is_hf_file => prepare_hf(dir)?,
        _ if is_gguf(path)? => prepare_gguf(path)?,
        _ => return Err(ModelError::format(
            path,
            "neither a GGUF file nor a Hugging Face model folder (config.json, *.safetensors, tokenizer.json)",
        )),
    };
    let context = options.context(prepared.info.declared_context);
    prepared.config.max_seq_len = context;
    prepared.info.config.max_seq_len = context;
    Ok(prepared)
}

/// Checks that `tokenizer`'s ids fit the `rows` of the model's embedding; `key` names the
/// vocabulary in `path`.
fn check_vocabulary(tokenizer: &Tokenizer, rows: usize, path: &Path, key: &str) -> Result<()> {
    let n = tokenizer.vocab_size();
    if n > rows {
        return Err(ModelError::key(
            path,
            key,
            format!("{n} tokens, but the model's embedding has {rows} rows: ids past {rows} would have no embedding"),
        ));
    }
    Ok(())
}

fn prepare_gguf(path: &Path) -> Result<Prepared> {
    let file = GgufFile::open(path)?;
    let config = config_from_gguf(&file)?;
    check_gguf_tensors(&file, &config)?;
    let tokenizer = from_gguf(&file)?;
    check_vocabulary(&tokenizer, config.vocab_size, path, "tokenizer.ggml.tokens")?;
    let mut tensor_types = BTreeMap::new();
    for t in file.tensors() {
        // A description of a model bip cannot load would be a wrong one.
        if t.ty.block_layout().is_none() {
            let why = format!("type {} cannot be dequantized by bip", t.ty);
            return Err(ModelError::tensor(path, &t.name, why));
        }
        *tensor_types.entry(t.ty.name()).or_insert(0) += 1;
    }
    let info = ModelInfo {
        path: path.to_path_buf(),
        format: format!("GGUF v{}", file.version()),
        name: file
            .get("general.name")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        architecture: architecture(&file)?,
        parameters: config.num_parameters(),
        declared_context: config.max_seq_len,
        config: config.clone(),
        tensor_types,
        file_type: file
            .get("general.file_type")
            .and_then(|v| v.as_u64())
            .map(file_type_name),
        tokenizer: TokenizerInfo::of(&tokenizer),
    };
    Ok(Prepared {
        opened: Opened::Gguf(file),
        config,
        tokenizer,
        info,
    })
}

fn prepare_hf(dir: &Path) -> Result<Prepared> {
    let mut config = config_from_hf(dir)?;
    let weights = HfWeights::open(dir)?;
    if !config.tie_embeddings && !weights.contains("lm_head.weight") {
        config.tie_embeddings = true;
    }
    let tokenizer = tokenizer_from_hf(dir)?;
    check_hf_tensors(&weights, &config)?;
    let tokenizer_file = dir.join("tokenizer.json");
    check_vocabulary(
        &tokenizer,
        config.vocab_size,
        &tokenizer_file,
        "model.vocab",
    )?;
    let mut tensor_types = BTreeMap::new();
    for f in weights.files() {
        for t in f.tensors().values() {
            *tensor_types.entry(t.dtype.clone()).or_insert(0) += 1;
        }
    }
    let info = ModelInfo {
        path: dir.to_path_buf(),
        format: format!("safetensors ({} files)", weights.files().len()),
        name: dir.file_name().map(|n| n.to_string_lossy().into_owned()),
        architecture: model_type(dir).unwrap_or_else(|| "llama".into()),
        parameters: config.num_parameters(),
        declared_context: config.max_seq_len,
        config: config.clone(),
        tensor_types,
        file_type: None,
        tokenizer: TokenizerInfo::of(&tokenizer),
    };
    Ok(Prepared {
        opened: Opened::Hf(weights),
        config,
        tokenizer,
        info,
    })
}

/// llama.cpp's names for `general.file_type`.
fn file_type_name(id: u64) -> String {
    match id {
        0 => "ALL_F32".into(),
        1 => "MOSTLY_F16".into(),
        2 => "MOSTLY_Q4_0".into(),
        3 => "MOSTLY_Q4_1".into(),
        7 => "MOSTLY_Q8_0".into(),
        8 => "MOSTLY_Q5_0".into(),
        9 => "MOSTLY_Q5_1".into(),
        10 => "MOSTLY_Q2_K".into(),
        11 => "MOSTLY_Q3_K_S".into(),
        12 => "MOSTLY_Q3_K_M".into(),
        13 => "MOSTLY_Q3_K_L".into(),
        14 => "MOSTLY_Q4_K_S".into(),
        15 => "MOSTLY_Q4_K_M".into(),
        16 => "MOSTLY_Q5_K_S".into(),
        17 => "MOSTLY_Q5_K_M".into(),
        18 => "MOSTLY_Q6_K".into(),
        32 => "MOSTLY_BF16".into(),
        other => format!("file type {other}"),
    }
}
