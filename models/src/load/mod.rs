//! Weight formats: GGUF files and Hugging Face folders of safetensors, and the limits a
//! loader applies to what they declare.

pub(crate) mod check;
pub mod gguf;
pub mod hf;
mod options;
pub mod safetensors;

pub use options::{LoadOptions, WeightStorage, DEFAULT_MAX_CONTEXT, MAX_CONTEXT_LIMIT};

#[cfg(test)]
mod hostile;
#[cfg(test)]
mod tests;
