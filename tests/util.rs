//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The repository root (where `episodes/examples/` is).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every shipped example episode, sorted.
pub fn examples() -> Vec<PathBuf> {
    bip_episodes::test_support::example_paths()
}

/// Runs the `bip` binary with `args`.
pub fn bip<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_bip"))
        .args(args)
        .output()
        .expect("bip runs")
}

/// Standard output as JSON.
pub fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "bip failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

/// A folder that is removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty folder under the system temporary directory.
    pub fn new() -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!("bip-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).expect("temp dir");
        Self(path)
    }

    /// Writes `contents` to `name` inside the folder and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).expect("write fixture");
        path
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes a Llama of `config` with random weights (`seed`) into `dir` as a Hugging Face
/// folder's `model.safetensors` and `config.json`; the caller adds `tokenizer.json`.
pub fn write_hf_weights(dir: &Path, config: &bip::models::LlamaConfig, seed: u64) {
    use bip::models::load::safetensors::{write_safetensors, StDtype};
    let weights = bip::models::MemoryWeights::random(config, seed);
    let tensors: Vec<(&str, &[usize], &[f32])> = weights
        .names()
        .into_iter()
        .map(|n| {
            let (shape, data) = weights.get(n).expect("named tensor");
            (n, shape, data)
        })
        .collect();
    std::fs::create_dir_all(dir).expect("model folder");
    write_safetensors(&dir.join("model.safetensors"), StDtype::F32, &tensors)
        .expect("safetensors written");
    let cfg = bip::models::load::hf::config_to_hf(config);
    std::fs::write(dir.join("config.json"), cfg).expect("config written");
}

/// Writes `dir/tokenizer.json`: a `tokenizers` tokenizer of `model` (BPE, WordLevel, ...)
/// with `pre_tokenizer` and `decoder`, no normalizer, added tokens or post-processor.
pub fn write_tokenizer(
    dir: &Path,
    pre_tokenizer: serde_json::Value,
    decoder: serde_json::Value,
    model: serde_json::Value,
) {
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": null,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": decoder,
        "model": model,
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).expect("tokenizer written");
}
