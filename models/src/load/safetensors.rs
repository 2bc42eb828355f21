//! A reader (and a small writer) of `.safetensors` files: an 8-byte header length, a JSON
//! header of `{name: {dtype, shape, data_offsets}}`, then the data.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use half::{bf16, f16};

use crate::error::{ModelError, Result};

/// Largest JSON header accepted (the format's own limit is 100 MB).
const MAX_HEADER: u64 = 100 << 20;

/// Element types bip reads from safetensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum StDtype {
    /// 32-bit float.
    F32,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    Bf16,
}

impl StDtype {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "F32" => Self::F32,
            "F16" => Self::F16,
            "BF16" => Self::Bf16,
            _ => return None,
        })
    }

    /// The name in safetensors headers.
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "F32",
            Self::F16 => "F16",
            Self::Bf16 => "BF16",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Self::F32 => 4,
            Self::F16 | Self::Bf16 => 2,
        }
    }
}

/// One tensor's entry in the header.
#[derive(Clone, Debug, PartialEq)]
pub struct StTensorInfo {
    /// Element type as written in the header (`F32`, `BF16`, `I64`, ...).
    pub dtype: String,
    /// Row-major shape.
    pub shape: Vec<usize>,
    /// Byte range within the data section.
    pub range: (u64, u64),
}

/// An open safetensors file: its header; data is read one tensor at a time.
#[derive(Clone, Debug)]
pub struct SafetensorsFile {
    path: PathBuf,
    tensors: BTreeMap<String, StTensorInfo>,
    data_start: u64,
}

impl SafetensorsFile {
    /// Reads the header of the safetensors file at `path`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Io`], [`ModelError::Truncated`] when the header or a tensor's data
    /// runs past the end, [`ModelError::Format`] for a malformed header, and
    /// [`ModelError::BadTensor`] for an entry whose byte range does not fit its shape.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| ModelError::io(path, e))?;
        let (mut file, len) = crate::io::regular_file(file, path)?;
        let (json, data_start) = read_header(&mut file, path, len)?;
        let mut tensors = BTreeMap::new();
        for (name, entry) in json {
            if name == "__metadata__" {
                continue;
            }
            let info = tensor_info(path, &name, entry, (data_start, len))?;
            tensors.insert(name, info);
        }
        Ok(Self {
            path: path.to_path_buf(),
            tensors,
            data_start,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every tensor's entry, by name.
    pub fn tensors(&self) -> &BTreeMap<String, StTensorInfo> {
        &self.tensors
    }

    /// Reads tensor `name` as `f32`.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingTensor`] when absent, [`ModelError::BadTensor`] for an element
    /// type other than F32, F16 and BF16, and [`ModelError::Io`] when reading fails.
    pub fn read_f32(&self, name: &str) -> Result<Vec<f32>> {
        let info = self
            .tensors
            .get(name)
            .ok_or_else(|| ModelError::MissingTensor {
                path: self.path.clone(),
                name: name.to_string(),
            })?;
        let dtype = StDtype::parse(&info.dtype).ok_or_else(|| {
            ModelError::tensor(
                &self.path,
                name,
                format!("element type {} is not F32, F16 or BF16", info.dtype),
            )
        })?;
        let (start, end) = info.range;
        let mut file = File::open(&self.path).map_err(|e| ModelError::io(&self.path, e))?;
        file.seek(SeekFrom::Start(self.data_start + start))
            .map_err(|e| ModelError::io(&self.path, e))?;
        let mut bytes = vec![0u8; (end - start) as usize];
        file.read_exact(&mut bytes)
            .map_err(|e| ModelError::io(&self.path, e))?;
        Ok(match dtype {
            StDtype::F32 => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            StDtype::F16 => bytes
                .chunks_exact(2)
                .map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            StDtype::Bf16 => bytes
                .chunks_exact(2)
                .map(|b| bf16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
        })
    }
}

/// The error for a file of `len` bytes that ends before `what`, which needs `needed`.
fn truncated(path: &Path, len: u64, what: &str, needed: u64) -> ModelError {
    ModelError::Truncated {
        path: path.to_path_buf(),
        what: what.to_string(),
        needed,
        len,
    }
}

/// Reads the JSON header of the safetensors file `file` (`len` bytes) and returns it with
/// the offset where the tensor data start.
fn read_header(
    file: &mut File,
    path: &Path,
    len: u64,
) -> Result<(serde_json::Map<String, serde_json::Value>, u64)> {
    if len < 8 {
        return Err(truncated(path, len, "the header length", 8));
    }
    let mut n = [0u8; 8];
    file.read_exact(&mut n)
        .map_err(|e| ModelError::io(path, e))?;
    let n = u64::from_le_bytes(n);
    if n > MAX_HEADER {
        return Err(ModelError::format(
            path,
            format!("header of {n} bytes is too large"),
        ));
    }
    if 8 + n > len {
        return Err(truncated(path, len, "the JSON header", 8 + n));
    }
    let mut header = vec![0u8; n as usize];
    file.read_exact(&mut header)
        .map_err(|e| ModelError::io(path, e))?;
    let json = serde_json::from_slice(&header)
        .map_err(|e| ModelError::format(path, format!("header is not a JSON object: {e}")))?;
    Ok((json, 8 + n))
}

/// The header entry `entry` of tensor `name`, checked against the data, which span
/// `data_start..len` of the file.
fn tensor_info(
    path: &Path,
    name: &str,
    entry: serde_json::Value,
    (data_start, len): (u64, u64),
) -> Result<StTensorInfo> {
    let info: RawInfo = serde_json::from_value(entry)
        .map_err(|e| ModelError::tensor(path, name, format!("malformed header entry: {e}")))?;
    let (start, end) = (info.data_offsets[0], info.data_offsets[1]);
    if start > end {
        return Err(ModelError::tensor(
            path,
            name,
            format!("data offsets [{start}, {end}] are reversed"),
        ));
    }
    if end > len - data_start {
        return Err(truncated(
            path,
            len,
            &format!("tensor `{name}`"),
            data_start.saturating_add(end),
        ));
    }
    if let Some(dt) = StDtype::parse(&info.dtype) {
        let elements = info
            .shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .unwrap_or(usize::MAX);
        let expected = elements.saturating_mul(dt.size()) as u64;
        if end - start != expected {
            return Err(ModelError::tensor(
                path,
                name,
                format!(
                    "{} bytes of data for {} shape {:?} ({expected} bytes)",
                    end - start,
                    info.dtype,
                    info.shape
                ),
            ));
        }
    }
    Ok(StTensorInfo {
        dtype: info.dtype,
        shape: info.shape,
        range: (start, end),
    })
}

#[derive(serde::Deserialize)]
struct RawInfo {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [u64; 2],
}

/// Writes `tensors` (name, row-major shape, values) to a safetensors file at `path`,
/// converting the values to `dtype`.
///
/// # Errors
///
/// Whatever writing the file returns.
///
/// # Panics
///
/// When a tensor's values do not fill its shape.
pub fn write_safetensors(
    path: &Path,
    dtype: StDtype,
    tensors: &[(&str, &[usize], &[f32])],
) -> std::io::Result<()> {
    std::fs::write(path, safetensors_bytes(dtype, tensors))
}

/// The bytes of a safetensors file holding `tensors`, as [`write_safetensors`] writes them.
///
/// # Panics
///
/// When a tensor's values do not fill its shape.
pub(crate) fn safetensors_bytes(dtype: StDtype, tensors: &[(&str, &[usize], &[f32])]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (name, shape, values) in tensors {
        assert_eq!(
            shape.iter().product::<usize>(),
            values.len(),
            "tensor {name}"
        );
        let start = data.len();
        for v in *values {
            match dtype {
                StDtype::F32 => data.extend(v.to_le_bytes()),
                StDtype::F16 => data.extend(f16::from_f32(*v).to_le_bytes()),
                StDtype::Bf16 => data.extend(bf16::from_f32(*v).to_le_bytes()),
            }
        }
        header.insert(
            (*name).to_string(),
            serde_json::json!({"dtype": dtype.name(), "shape": shape, "data_offsets": [start, data.len()]}),
        );
    }
    let mut json = serde_json::Value::Object(header).to_string().into_bytes();
    while !json.len().is_multiple_of(8) {
        json.push(b' ');
    }
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend(json);
    out.extend(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bip-st-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("t.safetensors")
    }

    #[test]
    fn round_trip_in_three_dtypes() {
        for dt in [StDtype::F32, StDtype::F16, StDtype::Bf16] {
            let path = temp(dt.name());
            write_safetensors(
                &path,
                dt,
                &[("a", &[2, 2], &[1.0, -2.0, 0.5, 4.0]), ("b", &[1], &[3.0])],
            )
            .unwrap();
            let f = SafetensorsFile::open(&path).unwrap();
            assert_eq!(f.tensors()["a"].shape, vec![2, 2]);
            assert_eq!(f.read_f32("a").unwrap(), vec![1.0, -2.0, 0.5, 4.0]);
            assert_eq!(f.read_f32("b").unwrap(), vec![3.0]);
            std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
        }
    }

    #[test]
    fn hostile_headers_are_errors_naming_the_tensor() {
        let path = temp("hostile");
        let cases = [
            (
                r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]}}"#,
                "truncated: tensor `w` needs bytes up to offset 18446744073709551615",
            ),
            (
                r#"{"w":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}}"#,
                "tensor `w`: 4 bytes of data for F32 shape [4294967296, 4294967296, 16]",
            ),
            (
                r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}"#,
                "tensor `w`: data offsets [4, 0] are reversed",
            ),
            (r#"[1, 2]"#, "header is not a JSON object"),
        ];
        for (json, expected) in cases {
            let mut bytes = (json.len() as u64).to_le_bytes().to_vec();
            bytes.extend_from_slice(json.as_bytes());
            bytes.extend_from_slice(&[0; 4]);
            std::fs::write(&path, &bytes).unwrap();
            let err = SafetensorsFile::open(&path).unwrap_err().to_string();
            assert!(err.contains(expected), "{json}: {err}");
        }
        std::fs::write(&path, u64::MAX.to_le_bytes()).unwrap();
        let err = SafetensorsFile::open(&path).unwrap_err().to_string();
        assert!(
            err.contains("header of 18446744073709551615 bytes is too large"),
            "{err}"
        );
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn truncated_file_names_the_tensor() {
        let path = temp("trunc");
        write_safetensors(&path, StDtype::F32, &[("w", &[4], &[1.0; 4])]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let err = SafetensorsFile::open(&path).unwrap_err();
        assert!(err.to_string().contains("truncated: tensor `w`"), "{err}");
        std::fs::write(&path, &bytes[..5]).unwrap();
        let err = SafetensorsFile::open(&path).unwrap_err();
        assert!(err.to_string().contains("header length"), "{err}");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
