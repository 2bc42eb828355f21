//! llama.cpp's column of the `lm_score` bench: the same token ids, GGUF file and thread
//! count through llama-cpp-python (`scripts/bench-llama.py`), from the virtual environment
//! the remote-scoring tests use (`scripts/llama-env.sh` makes it under ~/.cache/bip/).
//! When that environment is absent the column is skipped, saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The token ids both sides run.
pub struct Workload<'a> {
    pub prefix: &'a [u32],
    pub menu: &'a [Vec<u32>],
    pub unshared: &'a [Vec<u32>],
    pub repeats: usize,
    pub threads: usize,
}

/// llama.cpp's best times, in seconds.
pub struct LlamaTimes {
    pub prefill: f64,
    pub menu: f64,
    pub unshared: f64,
    pub version: String,
}

/// Runs llama.cpp's side, or says why not (`Err`, printed by the caller).
pub fn run(model: &Path, work: &Workload<'_>) -> Result<LlamaTimes, String> {
    let python = python()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench-llama.py");
    let file = std::env::temp_dir().join(format!("bip-bench-llama-{}.json", std::process::id()));
    let json = serde_json::json!({
        "prefix": work.prefix,
        "menu": work.menu,
        "unshared": work.unshared,
        "repeats": work.repeats,
        "threads": work.threads,
    });
    std::fs::write(&file, json.to_string()).map_err(|e| format!("{}: {e}", file.display()))?;
    let out = Command::new(&python)
        .arg(&script)
        .arg(model)
        .arg(&file)
        .output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("{}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{} printed no JSON: {e}", script.display()))?;
    let secs = |k: &str| v[k].as_f64().ok_or(format!("no \"{k}\" in {v}"));
    Ok(LlamaTimes {
        prefill: secs("prefill")?,
        menu: secs("menu")?,
        unshared: secs("unshared")?,
        version: v["version"].as_str().unwrap_or("?").to_string(),
    })
}

/// The Python of the newest complete llama.cpp environment under the cache folder
/// (`$BIP_CACHE`, else ~/.cache/bip), as scripts/llama-env.sh leaves it.
fn python() -> Result<PathBuf, String> {
    let cache = std::env::var_os("BIP_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/bip")))
        .ok_or("neither BIP_CACHE nor HOME is set")?;
    let newest = std::fs::read_dir(&cache)
        .map_err(|e| format!("{}: {e}", cache.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("llama-") && p.join(".complete").is_file()
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok());
    newest.map(|p| p.join("bin/python")).ok_or(format!(
        "no llama.cpp environment under {} (scripts/llama-env.sh makes it, 4-10 minutes)",
        cache.display()
    ))
}
