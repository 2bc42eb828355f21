//! Tokenizers: the `tokenizers` crate's byte-level BPE, built from a GGUF file's own
//! vocabulary or read from a Hugging Face `tokenizer.json`, and chat templates.

mod base;
mod chat;
mod gguf;

pub use base::Tokenizer;
pub use chat::ChatTemplate;
pub(crate) use gguf::from_gguf;
