//! Building a tokenizer from a GGUF file's `tokenizer.ggml.*` metadata.

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::{AddedToken, SplitDelimiterBehavior};

use super::base::Tokenizer;
use super::chat::ChatTemplate;
use crate::error::{ModelError, Result};
use crate::load::gguf::GgufFile;

/// llama.cpp's pre-tokenizer regex for `llama-bpe` (Llama 3).
const LLAMA3_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// llama.cpp's pre-tokenizer regex for `qwen2`.
const QWEN2_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// GGUF token types (llama.cpp's `llama_token_type`).
const TOKEN_TYPE_CONTROL: i64 = 3;
const TOKEN_TYPE_USER_DEFINED: i64 = 4;

/// Builds the tokenizer described by `file`'s metadata: byte-level BPE (`gpt2` model)
/// with the pre-tokenizer named by `tokenizer.ggml.pre`.
///
/// Supported pre-tokenizers: `smollm` (digits split one by one, then GPT-2's regex),
/// `gpt2`/`default` (GPT-2's regex), `llama-bpe` and `qwen2` (llama.cpp's regexes).
///
/// # Errors
///
/// [`ModelError::MissingKey`] or [`ModelError::BadKey`] naming the key, for a missing
/// vocabulary, a malformed merge, an unsupported model or pre-tokenizer, token types that
/// do not match the tokens, or a BOS or EOS id outside the vocabulary.
pub(crate) fn from_gguf(file: &GgufFile) -> Result<Tokenizer> {
    let path = file.path();
    let model = file
        .get("tokenizer.ggml.model")
        .ok_or_else(|| ModelError::MissingKey {
            path: path.to_path_buf(),
            key: "tokenizer.ggml.model".into(),
        })?
        .as_str()
        .ok_or_else(|| ModelError::key(path, "tokenizer.ggml.model", "not a string"))?;
    if model != "gpt2" {
        return Err(ModelError::key(
            path,
            "tokenizer.ggml.model",
            format!("`{model}` is not supported (only byte-level BPE, `gpt2`)"),
        ));
    }
    let tokens = string_array(file, "tokenizer.ggml.tokens")?;
    let merges = merges(file)?;
    let n_merges = merges.len();
    let pre = file
        .get("tokenizer.ggml.pre")
        .and_then(|v| v.as_str())
        .unwrap_or("default");
    let mut inner = bpe(file, &tokens, merges, pre)?;
    let origin = format!("{} (GGUF metadata)", path.display());
    add_special_tokens(file, &mut inner, &tokens, &origin)?;
    let id = |key: &str| special_id(file, key, tokens.len());
    let add_bos = file
        .get("tokenizer.ggml.add_bos_token")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let chat = file
        .get("tokenizer.chat_template")
        .and_then(|v| v.as_str())
        .map_or(ChatTemplate::None, ChatTemplate::from_jinja);
    Ok(Tokenizer::new(
        inner,
        origin,
        format!("byte-level BPE (GGUF), pre-tokenizer `{pre}`, {n_merges} merges"),
        id("tokenizer.ggml.bos_token_id")?,
        id("tokenizer.ggml.eos_token_id")?,
        add_bos,
        chat,
    ))
}

/// The token id at metadata key `key`, if present, which must be one of the `n` tokens.
fn special_id(file: &GgufFile, key: &str, n: usize) -> Result<Option<u32>> {
    let Some(value) = file.get(key) else {
        return Ok(None);
    };
    match value.as_u64().and_then(|v| u32::try_from(v).ok()) {
        Some(id) if (id as usize) < n => Ok(Some(id)),
        _ => Err(ModelError::key(
            file.path(),
            key,
            format!("{value:?} is not a token id: the vocabulary has {n} tokens"),
        )),
    }
}

/// The merges of `tokenizer.ggml.merges`, each two tokens separated by a space.
fn merges(file: &GgufFile) -> Result<Vec<(String, String)>> {
    string_array(file, "tokenizer.ggml.merges")?
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            m.split_once(' ')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| {
                    ModelError::key(
                        file.path(),
                        "tokenizer.ggml.merges",
                        format!("merge #{i} `{m}` is not two tokens separated by a space"),
                    )
                })
        })
        .collect()
}

/// A byte-level BPE tokenizer of `tokens` and `merges`, with pre-tokenizer `pre`.
fn bpe(
    file: &GgufFile,
    tokens: &[String],
    merges: Vec<(String, String)>,
    pre: &str,
) -> Result<tokenizers::Tokenizer> {
    let path = file.path();
    let (pre_tokenizer, ignore_merges) = pre_tokenizer(pre).ok_or_else(|| {
        ModelError::key(
            path,
            "tokenizer.ggml.pre",
            format!(
                "pre-tokenizer `{pre}` is not supported (smollm, gpt2, default, llama-bpe, qwen2)"
            ),
        )
    })?;
    let vocab: Vocab = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), i as u32))
        .collect();
    if vocab.len() != tokens.len() {
        return Err(ModelError::key(
            path,
            "tokenizer.ggml.tokens",
            "the vocabulary repeats a token",
        ));
    }
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .ignore_merges(ignore_merges)
        .build()
        .map_err(|e| ModelError::key(path, "tokenizer.ggml.merges", e.to_string()))?;
    let mut inner = tokenizers::Tokenizer::new(bpe);
    inner
        .with_pre_tokenizer(Some(pre_tokenizer))
        .with_decoder(Some(ByteLevelDecoder::default()));
    Ok(inner)
}

/// Registers the control tokens of `tokenizer.ggml.token_type` as special tokens and the
/// user-defined ones as added tokens.
fn add_special_tokens(
    file: &GgufFile,
    inner: &mut tokenizers::Tokenizer,
    tokens: &[String],
    origin: &str,
) -> Result<()> {
    let types: Vec<i64> = match file.get("tokenizer.ggml.token_type") {
        None => vec![1; tokens.len()],
        Some(v) => v
            .as_array()
            .map(|a| a.iter().map(|x| x.as_i64().unwrap_or(1)).collect())
            .ok_or_else(|| {
                ModelError::key(file.path(), "tokenizer.ggml.token_type", "not an array")
            })?,
    };
    if types.len() != tokens.len() {
        return Err(ModelError::key(
            file.path(),
            "tokenizer.ggml.token_type",
            format!(
                "{} types for {} tokens (`tokenizer.ggml.tokens`)",
                types.len(),
                tokens.len()
            ),
        ));
    }
    let of_type = |wanted: i64, special: bool| -> Vec<AddedToken> {
        tokens
            .iter()
            .zip(&types)
            .filter(|(_, &ty)| ty == wanted)
            .map(|(t, _)| AddedToken::from(t.clone(), special))
            .collect()
    };
    let added = |e: tokenizers::Error| ModelError::Tokenizer {
        origin: origin.to_string(),
        message: format!("adding special tokens: {e}"),
    };
    inner
        .add_special_tokens(of_type(TOKEN_TYPE_CONTROL, true))
        .map_err(added)?;
    inner
        .add_tokens(of_type(TOKEN_TYPE_USER_DEFINED, false))
        .map_err(added)?;
    Ok(())
}

/// The pre-tokenizer llama.cpp calls `pre`, and whether BPE skips merges for whole-word
/// vocabulary hits (`ignore_merges`, as Llama 3's tokenizer does).
fn pre_tokenizer(pre: &str) -> Option<(PreTokenizerWrapper, bool)> {
    let byte_level =
        |regex: bool| PreTokenizerWrapper::ByteLevel(ByteLevel::new(false, true, regex));
    let split = |pattern: &str| {
        Split::new(
            SplitPattern::Regex(pattern.into()),
            SplitDelimiterBehavior::Isolated,
            false,
        )
        .ok()
        .map(PreTokenizerWrapper::Split)
    };
    Some(match pre {
        "smollm" => (
            PreTokenizerWrapper::Sequence(Sequence::new(vec![
                PreTokenizerWrapper::Digits(Digits::new(true)),
                byte_level(true),
            ])),
            false,
        ),
        "gpt2" | "default" => (byte_level(true), false),
        "llama-bpe" | "llama3" => (
            PreTokenizerWrapper::Sequence(Sequence::new(vec![
                split(LLAMA3_PATTERN)?,
                byte_level(false),
            ])),
            true,
        ),
        "qwen2" => (
            PreTokenizerWrapper::Sequence(Sequence::new(vec![
                split(QWEN2_PATTERN)?,
                byte_level(false),
            ])),
            false,
        ),
        _ => return None,
    })
}

fn string_array(file: &GgufFile, key: &str) -> Result<Vec<String>> {
    let path = file.path();
    let value = file.get(key).ok_or_else(|| ModelError::MissingKey {
        path: path.to_path_buf(),
        key: key.into(),
    })?;
    let items = value.as_array().ok_or_else(|| {
        ModelError::key(path, key, format!("a {}, not an array", value.type_name()))
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| ModelError::key(path, key, format!("element #{i} is not a string")))
        })
        .collect()
}
