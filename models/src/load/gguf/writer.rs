//! A minimal GGUF (version 3) writer: metadata and tensors given as raw blocks.
//!
//! bip uses it to build tiny models in tests; it writes exactly what it is given and does
//! not quantize.

use std::path::Path;

use super::quant::GgmlType;
use super::value::GgufValue;

/// Collects metadata and tensors, then serialises them as a GGUF file.
///
/// # Example
///
/// ```
/// use bip_models::load::gguf::{GgufFile, GgufValue, GgufWriter};
///
/// let dir = std::env::temp_dir().join(format!("bip-gguf-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("tiny.gguf");
/// let mut w = GgufWriter::new();
/// w.metadata("general.architecture", GgufValue::String("llama".into()));
/// w.tensor_f32("x.weight", &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// w.write(&path).unwrap();
///
/// let file = GgufFile::open(&path).unwrap();
/// assert_eq!(file.tensor_info("x.weight").unwrap().shape(), vec![2, 3]);
/// assert_eq!(file.read_f32("x.weight").unwrap()[4], 5.0);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Clone, Debug, Default)]
pub struct GgufWriter {
    metadata: Vec<(String, GgufValue)>,
    tensors: Vec<(String, Vec<u64>, GgmlType, Vec<u8>)>,
}

/// Data alignment of the files written.
const ALIGNMENT: usize = 32;

impl GgufWriter {
    /// An empty file.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds metadata key `key`.
    pub fn metadata(&mut self, key: &str, value: GgufValue) -> &mut Self {
        self.metadata.push((key.to_string(), value));
        self
    }

    /// Adds tensor `name` of row-major `shape` whose data is `data`, already encoded as
    /// `ty` (whole blocks along each row).
    pub fn tensor(
        &mut self,
        name: &str,
        shape: &[usize],
        ty: GgmlType,
        data: Vec<u8>,
    ) -> &mut Self {
        let dims = shape.iter().rev().map(|&d| d as u64).collect();
        self.tensors.push((name.to_string(), dims, ty, data));
        self
    }

    /// Adds an `F32` tensor.
    pub fn tensor_f32(&mut self, name: &str, shape: &[usize], values: &[f32]) -> &mut Self {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.tensor(name, shape, GgmlType::F32, data)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend(b"GGUF");
        out.extend(3u32.to_le_bytes());
        out.extend((self.tensors.len() as u64).to_le_bytes());
        out.extend((self.metadata.len() as u64).to_le_bytes());
        for (key, value) in &self.metadata {
            put_string(&mut out, key);
            out.extend(type_id(value).to_le_bytes());
            put_value(&mut out, value);
        }
        let mut offset = 0usize;
        let mut offsets = Vec::new();
        for (name, dims, ty, data) in &self.tensors {
            put_string(&mut out, name);
            out.extend((dims.len() as u32).to_le_bytes());
            for d in dims {
                out.extend(d.to_le_bytes());
            }
            out.extend(ty.id().to_le_bytes());
            out.extend((offset as u64).to_le_bytes());
            offsets.push(offset);
            offset = (offset + data.len()).div_ceil(ALIGNMENT) * ALIGNMENT;
        }
        let start = out.len().div_ceil(ALIGNMENT) * ALIGNMENT;
        out.resize(start, 0);
        for ((_, _, _, data), at) in self.tensors.iter().zip(offsets) {
            out.resize(start + at, 0);
            out.extend(data);
        }
        out
    }

    /// Writes the file to `path`.
    ///
    /// # Errors
    ///
    /// Whatever writing the file returns.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }
}

fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

fn type_id(value: &GgufValue) -> u32 {
    match value {
        GgufValue::U8(_) => 0,
        GgufValue::I8(_) => 1,
        GgufValue::U16(_) => 2,
        GgufValue::I16(_) => 3,
        GgufValue::U32(_) => 4,
        GgufValue::I32(_) => 5,
        GgufValue::F32(_) => 6,
        GgufValue::Bool(_) => 7,
        GgufValue::String(_) => 8,
        GgufValue::Array(_) => 9,
        GgufValue::U64(_) => 10,
        GgufValue::I64(_) => 11,
        GgufValue::F64(_) => 12,
    }
}

fn put_value(out: &mut Vec<u8>, value: &GgufValue) {
    match value {
        GgufValue::U8(v) => out.push(*v),
        GgufValue::I8(v) => out.extend(v.to_le_bytes()),
        GgufValue::U16(v) => out.extend(v.to_le_bytes()),
        GgufValue::I16(v) => out.extend(v.to_le_bytes()),
        GgufValue::U32(v) => out.extend(v.to_le_bytes()),
        GgufValue::I32(v) => out.extend(v.to_le_bytes()),
        GgufValue::U64(v) => out.extend(v.to_le_bytes()),
        GgufValue::I64(v) => out.extend(v.to_le_bytes()),
        GgufValue::F32(v) => out.extend(v.to_le_bytes()),
        GgufValue::F64(v) => out.extend(v.to_le_bytes()),
        GgufValue::Bool(v) => out.push(u8::from(*v)),
        GgufValue::String(s) => put_string(out, s),
        GgufValue::Array(items) => {
            let item_ty = items.first().map_or(0, type_id);
            out.extend(item_ty.to_le_bytes());
            out.extend((items.len() as u64).to_le_bytes());
            for item in items {
                put_value(out, item);
            }
        }
    }
}
