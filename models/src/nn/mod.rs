//! The decoder's layers: linear, RMSNorm, rotary embeddings, attention, SwiGLU.

pub(crate) mod attention;
pub(crate) mod linear;
pub(crate) mod mlp;
pub(crate) mod norm;
pub(crate) mod rope;
