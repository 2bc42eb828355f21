//! The decoder's layers: linear (with an optional LoRA branch), RMSNorm, rotary
//! embeddings, attention, SwiGLU; and the element-wise work they fuse on the CPU.

pub(crate) mod attention;
pub(crate) mod half;
pub(crate) mod host;
pub(crate) mod host_matrix;
pub(crate) mod int8;
pub(crate) mod linear;
pub(crate) mod lora;
pub(crate) mod mlp;
pub(crate) mod norm;
pub(crate) mod rope;
