//! GGUF files: reader, dequantization, writer, and the mapping onto bip's decoder.

mod model;
mod quant;
mod reader;
mod value;
mod writer;

pub use model::config_from_gguf;
#[cfg(test)]
pub(crate) use model::gguf_name;
pub(crate) use model::{architecture, check_gguf_tensors, is_gguf, GgufWeights};
pub use quant::{dequantize, GgmlType};
pub use reader::{GgufFile, GgufTensorInfo};
pub use value::GgufValue;
pub use writer::GgufWriter;
