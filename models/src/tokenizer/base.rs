//! The tokenizer of a loaded model.

use std::path::Path;

use super::chat::ChatTemplate;
use crate::error::{ModelError, Result};

/// A model's tokenizer: the `tokenizers` crate's pipeline plus what bip needs around it
/// (BOS/EOS ids, special tokens, chat template).
///
/// Text is encoded with special tokens (`<|im_start|>`, ...) matched literally. A prompt
/// gets the model's BOS token when the model asks for one ([`Tokenizer::encode_prompt`]);
/// a continuation never does ([`Tokenizer::encode`]).
#[derive(Clone, Debug)]
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    origin: String,
    kind: String,
    bos: Option<u32>,
    eos: Option<u32>,
    prepend_bos: bool,
    chat: ChatTemplate,
}

impl Tokenizer {
    /// Wraps a `tokenizers` pipeline.
    ///
    /// `origin` names where it came from in errors; `kind` describes it in reports;
    /// `prepend_bos` says whether [`Tokenizer::encode_prompt`] must add `bos` itself (the
    /// pipeline's post-processor may already do it).
    pub fn new(
        inner: tokenizers::Tokenizer,
        origin: impl Into<String>,
        kind: impl Into<String>,
        bos: Option<u32>,
        eos: Option<u32>,
        prepend_bos: bool,
        chat: ChatTemplate,
    ) -> Self {
        Self {
            inner,
            origin: origin.into(),
            kind: kind.into(),
            bos,
            eos,
            prepend_bos,
            chat,
        }
    }

    /// Reads a Hugging Face `tokenizer.json`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Tokenizer`] naming the file when it cannot be read or parsed.
    pub fn from_file(path: &Path) -> Result<Self> {
        let inner = tokenizers::Tokenizer::from_file(path).map_err(|e| ModelError::Tokenizer {
            origin: path.display().to_string(),
            message: e.to_string(),
        })?;
        Ok(Self::new(
            inner,
            path.display().to_string(),
            "tokenizer.json",
            None,
            None,
            false,
            ChatTemplate::None,
        ))
    }

    /// The same tokenizer with these BOS/EOS ids and chat template.
    pub fn with_specials(mut self, bos: Option<u32>, eos: Option<u32>, chat: ChatTemplate) -> Self {
        self.bos = bos;
        self.eos = eos;
        self.chat = chat;
        self
    }

    /// Encodes `text` as it stands (no BOS), matching special tokens literally.
    ///
    /// # Errors
    ///
    /// [`ModelError::Tokenizer`] when the pipeline fails, or turns a text that is not
    /// empty into no tokens (one the vocabulary cannot spell).
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        self.encode_with(text, false)
    }

    /// Encodes a prompt: like [`Tokenizer::encode`], with the model's BOS token first when
    /// the model asks for one.
    ///
    /// # Errors
    ///
    /// As [`Tokenizer::encode`].
    pub fn encode_prompt(&self, text: &str) -> Result<Vec<u32>> {
        let mut ids = self.encode_with(text, true)?;
        if let (true, Some(bos)) = (self.prepend_bos, self.bos) {
            if ids.first() != Some(&bos) {
                ids.insert(0, bos);
            }
        }
        Ok(ids)
    }

    fn encode_with(&self, text: &str, special: bool) -> Result<Vec<u32>> {
        let ids = self
            .inner
            .encode(text, special)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| self.error(e))?;
        if ids.is_empty() && !text.is_empty() {
            // Scored as nothing, the text would get probability 1: refused instead.
            let shown: String = text.chars().take(40).collect();
            let more = if shown.len() < text.len() { "..." } else { "" };
            return Err(self.error(format!(
                "{shown:?}{more} encodes to no tokens: the tokenizer has none for it"
            )));
        }
        Ok(ids)
    }

    /// Decodes `ids` to text, special tokens included.
    ///
    /// # Errors
    ///
    /// [`ModelError::Tokenizer`] when an id is unknown or the pipeline fails.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.inner.decode(ids, false).map_err(|e| self.error(e))
    }

    /// The text of each token alone (as the vocabulary spells it), for display.
    pub fn token_texts(&self, ids: &[u32]) -> Vec<String> {
        ids.iter()
            .map(|&id| {
                self.inner
                    .decode(&[id], false)
                    .unwrap_or_else(|_| format!("<{id}>"))
            })
            .collect()
    }

    /// Number of tokens, added tokens included.
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// The first difference between this tokenizer's vocabulary and `other`'s, or `None`
    /// when both spell every id alike and start prompts alike (what models must share to
    /// have their logits combined).
    ///
    /// # Complexity
    ///
    /// One lookup per id: O(vocabulary).
    pub fn vocabulary_difference(&self, other: &Tokenizer) -> Option<String> {
        let (n, m) = (self.vocab_size(), other.vocab_size());
        if n != m {
            return Some(format!("vocabulary sizes differ: {n} and {m} tokens"));
        }
        for id in 0..n as u32 {
            let (a, b) = (self.inner.id_to_token(id), other.inner.id_to_token(id));
            if a != b {
                let show = |t: Option<String>| t.map_or("no token".into(), |t| format!("{t:?}"));
                return Some(format!("token {id} is {} and {}", show(a), show(b)));
            }
        }
        let start = |t: &Tokenizer| t.bos.filter(|_| t.prepend_bos);
        if start(self) != start(other) {
            return Some(format!(
                "prompts start differently: BOS {:?} (added: {}) and {:?} (added: {})",
                self.bos, self.prepend_bos, other.bos, other.prepend_bos
            ));
        }
        None
    }

    /// The id of token `token`, if any.
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    /// The beginning-of-sequence token, if the model has one.
    pub fn bos_token(&self) -> Option<u32> {
        self.bos
    }

    /// The end-of-sequence token (where generation stops), if known.
    pub fn eos_token(&self) -> Option<u32> {
        self.eos
    }

    /// Whether prompts start with the BOS token.
    pub fn adds_bos(&self) -> bool {
        self.prepend_bos
    }

    /// The special (added) tokens, sorted by id.
    pub fn special_tokens(&self) -> Vec<(u32, String)> {
        let mut v: Vec<_> = self
            .inner
            .get_added_tokens_decoder()
            .into_iter()
            .filter(|(_, t)| t.special)
            .map(|(id, t)| (id, t.content))
            .collect();
        v.sort_unstable();
        v
    }

    /// The chat template.
    pub fn chat_template(&self) -> &ChatTemplate {
        &self.chat
    }

    /// Where the tokenizer came from (a file, or a GGUF file's metadata), as errors name it.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// A description of the tokenizer's kind (model and pre-tokenizer).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The `tokenizers` pipeline.
    pub fn inner(&self) -> &tokenizers::Tokenizer {
        &self.inner
    }

    fn error(&self, e: impl std::fmt::Display) -> ModelError {
        ModelError::Tokenizer {
            origin: self.origin.clone(),
            message: e.to_string(),
        }
    }
}
