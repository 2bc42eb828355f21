//! Language-model hosting for bip's LM policies: a Llama-family decoder in burn, GGUF and
//! Hugging Face weight loading, tokenizers, a prefix-cached scoring API, LoRA and
//! weak-to-strong combination.
//!
//! Reserved in the workspace so that the dependency graph is fixed from the start; the
//! models arrive with the LM-hosting work. Nothing here is used yet, and the symbolic
//! planner, bip's default policy, needs no model.
#![deny(missing_docs)]
