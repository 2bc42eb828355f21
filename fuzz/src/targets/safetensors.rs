//! Safetensors files: the header's length, its JSON, each tensor's entry, and every
//! tensor's data read back.

use bip_models::load::safetensors::{SafetensorsFile, StDtype};

use super::{signature, Scratch, Target};

/// The safetensors target.
pub(super) const TARGET: Target = Target {
    name: "safetensors",
    about: "safetensors files: header length, JSON header, tensor entries, tensor data",
    setup: |_| Ok(()),
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"\"dtype\"",
        b"\"shape\"",
        b"\"data_offsets\"",
        b"\"F32\"",
        b"\"BF16\"",
        b"\"I64\"",
        b"__metadata__",
        b"[0,18446744073709551615]",
        b"[4294967296,4294967296]",
        b"{}",
        b"[]",
        b"null",
    ],
    hot: 512,
};

fn run(input: &[u8], scratch: &Scratch) -> String {
    let path = scratch.file("model.safetensors");
    if let Err(e) = std::fs::write(&path, input) {
        return format!("write: {e}");
    }
    let file = match SafetensorsFile::open(&path) {
        Ok(file) => file,
        Err(e) => return signature(&e, scratch),
    };
    let mut outcome = String::from("read");
    for (name, info) in file.tensors() {
        match file.read_f32(name) {
            Ok(values) => {
                let elements: usize = info.shape.iter().product();
                assert_eq!(values.len(), elements, "{name}: {info:?}");
            }
            Err(e) => outcome = signature(&e, scratch),
        }
    }
    outcome
}

fn seeds() -> Vec<Vec<u8>> {
    let a: Vec<f32> = (0..12).map(|i| i as f32 * 0.5 - 2.0).collect();
    let tensors: [(&str, &[usize], &[f32]); 3] = [
        ("model.embed_tokens.weight", &[3, 4], &a),
        ("model.norm.weight", &[4], &a[..4]),
        ("scalar", &[], &a[..1]),
    ];
    let mut out: Vec<Vec<u8>> = [StDtype::F32, StDtype::F16, StDtype::Bf16]
        .into_iter()
        .map(|dt| bytes(dt, &tensors))
        .collect();
    let header = br#"{"__metadata__":{"format":"pt"},"w":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}}"#;
    let mut other = (header.len() as u64).to_le_bytes().to_vec();
    other.extend_from_slice(header);
    other.extend_from_slice(&[0; 16]);
    out.push(other);
    out
}

/// A safetensors file of `tensors` in `dtype`.
fn bytes(dtype: StDtype, tensors: &[(&str, &[usize], &[f32])]) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("bip-fuzz-st-{}", std::process::id()));
    let path = dir.join(format!("{}.safetensors", dtype.name()));
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| bip_models::load::safetensors::write_safetensors(&path, dtype, tensors))
        .and_then(|()| std::fs::read(&path));
    let _ = std::fs::remove_dir_all(&dir);
    written.unwrap_or_default()
}

/// A file whose header is `json`, followed by `data` bytes.
fn with_header(json: &str, data: usize) -> Vec<u8> {
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    out.extend(std::iter::repeat_n(0u8, data));
    out
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "huge-header-length.safetensors",
            u64::MAX.to_le_bytes().to_vec(),
        ),
        (
            "offsets-past-the-end.safetensors",
            with_header(
                r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]}}"#,
                4,
            ),
        ),
        (
            "shape-overflows.safetensors",
            with_header(
                r#"{"w":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}}"#,
                4,
            ),
        ),
        (
            "reversed-offsets.safetensors",
            with_header(
                r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}"#,
                4,
            ),
        ),
    ]
}
