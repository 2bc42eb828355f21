//! Weight formats: GGUF files and Hugging Face folders of safetensors.

pub mod gguf;
pub mod hf;
pub mod safetensors;

#[cfg(test)]
mod tests;
