//! A reader of GGUF files (versions 2 and 3): header, metadata, tensor infos, and tensor
//! data dequantized to `f32` one tensor at a time.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::quant::{dequantize_into, GgmlType};
use super::value::GgufValue;
use crate::error::{ModelError, Result};

/// GGML's limit on tensor rank.
const MAX_DIMS: u32 = 4;
/// Nesting limit for arrays of arrays (GGUF allows them; models never nest deeply).
const MAX_ARRAY_DEPTH: usize = 4;

/// Where one tensor lives in a GGUF file.
#[derive(Clone, Debug, PartialEq)]
pub struct GgufTensorInfo {
    /// The tensor's name (`blk.0.attn_q.weight`).
    pub name: String,
    /// Dimensions in GGML order: the first is the fastest-varying (a row's length).
    pub dims: Vec<u64>,
    /// Element type.
    pub ty: GgmlType,
    /// Offset of the data from the start of the file's data section.
    pub offset: u64,
}

impl GgufTensorInfo {
    /// The shape in row-major order (GGML dimensions reversed): `[out, in]` for a matrix.
    pub fn shape(&self) -> Vec<usize> {
        self.dims.iter().rev().map(|&d| d as usize).collect()
    }

    /// Number of elements.
    pub fn num_elements(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// An open GGUF file: its metadata and tensor directory. Tensor data is read on demand.
#[derive(Clone, Debug)]
pub struct GgufFile {
    path: PathBuf,
    version: u32,
    metadata: BTreeMap<String, GgufValue>,
    tensors: Vec<GgufTensorInfo>,
    index: HashMap<String, usize>,
    data_start: u64,
    file_len: u64,
}

impl GgufFile {
    /// Reads the header, metadata and tensor infos of the GGUF file at `path`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Io`] when the file cannot be read, [`ModelError::Truncated`] when it
    /// ends inside the header, and [`ModelError::Format`] for a wrong magic number, an
    /// unsupported version, an unknown value type, invalid UTF-8 or a duplicate name.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| ModelError::io(path, e))?;
        let (file, file_len) = crate::io::regular_file(file, path)?;
        let mut h = Header {
            r: BufReader::with_capacity(1 << 16, file),
            pos: 0,
            len: file_len,
            path,
        };
        let version = h.preamble()?;
        let n_tensors = h.u64("the tensor count")?;
        let n_kv = h.u64("the metadata count")?;
        let metadata = h.metadata(n_kv)?;
        let mut tensors = Vec::new();
        let mut index = HashMap::new();
        for i in 0..n_tensors {
            let info = h.tensor_info(i)?;
            if index.insert(info.name.clone(), tensors.len()).is_some() {
                return Err(ModelError::tensor(path, &info.name, "appears twice"));
            }
            tensors.push(info);
        }
        let alignment = alignment(path, &metadata)?;
        let data_start = h.pos.checked_next_multiple_of(alignment).ok_or_else(|| {
            ModelError::key(
                path,
                "general.alignment",
                format!("{alignment} is too large"),
            )
        })?;
        for info in &tensors {
            check_range(path, info, data_start, alignment, file_len)?;
        }
        Ok(Self {
            path: path.to_path_buf(),
            version,
            metadata,
            tensors,
            index,
            data_start,
            file_len,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The GGUF version (2 or 3).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Every metadata key and value, sorted by key.
    pub fn metadata(&self) -> &BTreeMap<String, GgufValue> {
        &self.metadata
    }

    /// The value of metadata key `key`, if present.
    pub fn get(&self, key: &str) -> Option<&GgufValue> {
        self.metadata.get(key)
    }

    /// The tensor directory, in file order.
    pub fn tensors(&self) -> &[GgufTensorInfo] {
        &self.tensors
    }

    /// The info of tensor `name`, if present.
    pub fn tensor_info(&self, name: &str) -> Option<&GgufTensorInfo> {
        self.index.get(name).map(|&i| &self.tensors[i])
    }

    /// Reads tensor `name` and dequantizes it to `f32`, in row-major order of
    /// [`GgufTensorInfo::shape`].
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingTensor`] when absent, [`ModelError::BadTensor`] for a type that
    /// cannot be dequantized or a row that is not a whole number of blocks, and
    /// [`ModelError::Truncated`] when the data runs past the end of the file.
    pub fn read_f32(&self, name: &str) -> Result<Vec<f32>> {
        let mut out = Vec::new();
        self.read_f32_into(name, &mut out, &mut Vec::new())?;
        Ok(out)
    }

    /// [`GgufFile::read_f32`] into `out`, reading the raw bytes through `bytes`: buffers a
    /// loader reuses from one tensor to the next, so that pages already mapped serve again.
    pub(crate) fn read_f32_into(
        &self,
        name: &str,
        out: &mut Vec<f32>,
        bytes: &mut Vec<u8>,
    ) -> Result<()> {
        let info = self
            .tensor_info(name)
            .ok_or_else(|| ModelError::MissingTensor {
                path: self.path.clone(),
                name: name.to_string(),
            })?;
        let elements = usize::try_from(info.num_elements())
            .map_err(|_| ModelError::tensor(&self.path, name, "too large for this machine"))?;
        let row = info.dims.first().copied().unwrap_or(1) as usize;
        let size = match (info.ty.block_layout(), info.ty.byte_size(elements)) {
            (None, _) => {
                return Err(ModelError::tensor(
                    &self.path,
                    name,
                    format!("type {} cannot be dequantized by bip", info.ty),
                ))
            }
            (Some((block, _)), Some(size)) if row.is_multiple_of(block) => size as u64,
            (Some((block, _)), _) => {
                return Err(ModelError::tensor(
                    &self.path,
                    name,
                    format!(
                        "rows of {row} elements are not a whole number of {} blocks of {block}",
                        info.ty
                    ),
                ))
            }
        };
        let start = self.data_start.saturating_add(info.offset);
        let end = start.saturating_add(size);
        if end > self.file_len {
            return Err(ModelError::Truncated {
                path: self.path.clone(),
                what: format!("tensor `{name}`"),
                needed: end,
                len: self.file_len,
            });
        }
        let mut file = File::open(&self.path).map_err(|e| ModelError::io(&self.path, e))?;
        file.seek(SeekFrom::Start(start))
            .map_err(|e| ModelError::io(&self.path, e))?;
        // `read_exact` overwrites every byte: only a buffer that grows is filled first.
        bytes.resize(size as usize, 0);
        file.read_exact(bytes)
            .map_err(|e| ModelError::io(&self.path, e))?;
        if dequantize_into(info.ty, bytes, out) {
            Ok(())
        } else {
            Err(ModelError::tensor(
                &self.path,
                name,
                "could not be dequantized",
            ))
        }
    }
}

/// Checks that the data of tensor `info`, when its type is one bip reads, lies within the
/// file (`file_len` bytes, data from `data_start`) at an offset that is a multiple of the
/// alignment: an offset that wraps around or points past the end is refused when the file
/// is opened, not read as another tensor's bytes.
fn check_range(
    path: &Path,
    info: &GgufTensorInfo,
    data_start: u64,
    alignment: u64,
    file_len: u64,
) -> Result<()> {
    let bad = |problem: String| Err(ModelError::tensor(path, &info.name, problem));
    if !info.offset.is_multiple_of(alignment) {
        return bad(format!(
            "data offset {} is not a multiple of the alignment {alignment}",
            info.offset
        ));
    }
    let size = usize::try_from(info.num_elements())
        .ok()
        .and_then(|n| info.ty.byte_size(n));
    let Some(size) = size else {
        // An unreadable type or a partial block: refused if the tensor is ever read.
        return Ok(());
    };
    match data_start
        .checked_add(info.offset)
        .and_then(|start| start.checked_add(size as u64))
    {
        Some(end) if end <= file_len => Ok(()),
        Some(end) => Err(ModelError::Truncated {
            path: path.to_path_buf(),
            what: format!("tensor `{}`", info.name),
            needed: end,
            len: file_len,
        }),
        None => bad(format!(
            "data offset {} ({size} bytes) lies beyond any file",
            info.offset
        )),
    }
}

/// The data section's alignment: `general.alignment`, a power of two, or 32.
fn alignment(path: &Path, metadata: &BTreeMap<String, GgufValue>) -> Result<u64> {
    match metadata.get("general.alignment") {
        None => Ok(32),
        Some(v) => match v.as_u64() {
            Some(a) if a > 0 && a.is_power_of_two() => Ok(a),
            _ => Err(ModelError::key(
                path,
                "general.alignment",
                format!("{v:?} is not a power of two"),
            )),
        },
    }
}

/// The fewest bytes a metadata value of type `ty` takes (an empty string or array still
/// has its length; an unknown type at least one byte, refused when read).
fn min_encoded_size(ty: u32) -> u64 {
    match ty {
        2 | 3 => 2,
        4..=6 => 4,
        8 | 10..=12 => 8,
        9 => 12,
        _ => 1,
    }
}

/// A position-tracking reader over the header, which turns short reads into
/// [`ModelError::Truncated`] naming what was being read.
struct Header<'a> {
    r: BufReader<File>,
    pos: u64,
    len: u64,
    path: &'a Path,
}

impl Header<'_> {
    /// Reads the magic number and the version, which must be 2 or 3.
    fn preamble(&mut self) -> Result<u32> {
        let magic = self.bytes(4, "the magic number")?;
        if magic != b"GGUF" {
            return Err(ModelError::format(
                self.path,
                format!("not a GGUF file (starts with {magic:02x?}, not \"GGUF\")"),
            ));
        }
        let version = self.u32("the version")?;
        if !(2..=3).contains(&version) {
            return Err(ModelError::format(
                self.path,
                format!("GGUF version {version} is not supported (only 2 and 3)"),
            ));
        }
        Ok(version)
    }

    /// Reads `n` metadata keys and their values; a key may appear once.
    fn metadata(&mut self, n: u64) -> Result<BTreeMap<String, GgufValue>> {
        let mut metadata = BTreeMap::new();
        for i in 0..n {
            let key = self.string(&format!("metadata key #{i}"))?;
            let ty = self.u32(&format!("the type of metadata key `{key}`"))?;
            let value = self.value(ty, &key, 0)?;
            if metadata.insert(key.clone(), value).is_some() {
                return Err(ModelError::format(
                    self.path,
                    format!("metadata key `{key}` appears twice"),
                ));
            }
        }
        Ok(metadata)
    }

    /// Reads the info of tensor number `i`.
    fn tensor_info(&mut self, i: u64) -> Result<GgufTensorInfo> {
        let name = self.string(&format!("the name of tensor #{i}"))?;
        let what = format!("the info of tensor `{name}`");
        let n_dims = self.u32(&what)?;
        if n_dims > MAX_DIMS {
            return Err(ModelError::tensor(
                self.path,
                &name,
                format!("{n_dims} dimensions (GGML allows at most {MAX_DIMS})"),
            ));
        }
        let dims = (0..n_dims)
            .map(|_| self.u64(&what))
            .collect::<Result<Vec<_>>>()?;
        if dims
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .is_none()
        {
            return Err(ModelError::tensor(
                self.path,
                &name,
                format!("dimensions {dims:?} overflow"),
            ));
        }
        let ty = GgmlType::from_id(self.u32(&what)?);
        let offset = self.u64(&what)?;
        Ok(GgufTensorInfo {
            name,
            dims,
            ty,
            offset,
        })
    }

    fn bytes(&mut self, n: u64, what: &str) -> Result<Vec<u8>> {
        let needed = self.pos.saturating_add(n);
        if needed > self.len {
            return Err(ModelError::Truncated {
                path: self.path.to_path_buf(),
                what: what.to_string(),
                needed,
                len: self.len,
            });
        }
        let mut buf = vec![0u8; n as usize];
        self.r
            .read_exact(&mut buf)
            .map_err(|e| ModelError::io(self.path, e))?;
        self.pos = needed;
        Ok(buf)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let v = self.bytes(N as u64, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(&v);
        Ok(a)
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        self.array(what).map(u64::from_le_bytes)
    }

    fn string(&mut self, what: &str) -> Result<String> {
        let n = self.u64(what)?;
        let bytes = self.bytes(n, what)?;
        String::from_utf8(bytes)
            .map_err(|_| ModelError::format(self.path, format!("{what} is not valid UTF-8")))
    }

    fn value(&mut self, ty: u32, key: &str, depth: usize) -> Result<GgufValue> {
        let what = format!("the value of metadata key `{key}`");
        Ok(match ty {
            0 => GgufValue::U8(self.array::<1>(&what)?[0]),
            1 => GgufValue::I8(self.array::<1>(&what)?[0] as i8),
            2 => GgufValue::U16(u16::from_le_bytes(self.array(&what)?)),
            3 => GgufValue::I16(i16::from_le_bytes(self.array(&what)?)),
            4 => GgufValue::U32(self.u32(&what)?),
            5 => GgufValue::I32(i32::from_le_bytes(self.array(&what)?)),
            6 => GgufValue::F32(f32::from_le_bytes(self.array(&what)?)),
            7 => match self.array::<1>(&what)?[0] {
                0 => GgufValue::Bool(false),
                1 => GgufValue::Bool(true),
                b => {
                    return Err(ModelError::key(
                        self.path,
                        key,
                        format!("boolean byte {b} is neither 0 nor 1"),
                    ))
                }
            },
            8 => GgufValue::String(self.string(&what)?),
            9 => {
                if depth >= MAX_ARRAY_DEPTH {
                    return Err(ModelError::key(self.path, key, "arrays nested too deeply"));
                }
                let item_ty = self.u32(&what)?;
                let n = self.u64(&what)?;
                // Every element takes at least its type's smallest encoding: a count
                // beyond what the bytes left can hold is a corrupt file, refused before
                // anything is allocated for it.
                if n.saturating_mul(min_encoded_size(item_ty)) > self.len - self.pos {
                    return Err(ModelError::Truncated {
                        path: self.path.to_path_buf(),
                        what: format!("{what} ({n} elements)"),
                        needed: self.pos.saturating_add(n),
                        len: self.len,
                    });
                }
                let items = (0..n)
                    .map(|_| self.value(item_ty, key, depth + 1))
                    .collect::<Result<Vec<_>>>()?;
                GgufValue::Array(items)
            }
            10 => GgufValue::U64(self.u64(&what)?),
            11 => GgufValue::I64(i64::from_le_bytes(self.array(&what)?)),
            12 => GgufValue::F64(f64::from_le_bytes(self.array(&what)?)),
            other => {
                return Err(ModelError::key(
                    self.path,
                    key,
                    format!("unknown value type {other}"),
                ))
            }
        })
    }
}
