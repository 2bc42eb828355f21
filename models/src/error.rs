//! The one error type of `bip-models`.

use std::path::PathBuf;

/// Everything that can go wrong while loading, tokenizing or running a model.
///
/// Every variant names what was at fault: the file, the metadata key, the tensor or the
/// request, with the offending values.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A file could not be opened or read. (The operating system's words are the
    /// source, shown after the path by `{:#}` and error chains, not repeated here.)
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A file ended before the structure being read did.
    #[error("{path}: truncated: {what} needs bytes up to offset {needed}, the file has {len}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// What was being read (a header field, a key, a tensor).
        what: String,
        /// The offset one past the last byte needed.
        needed: u64,
        /// The file's length.
        len: u64,
    },
    /// A file is not in the format its reader expects.
    #[error("{path}: {problem}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the field.
        problem: String,
    },
    /// A required metadata key (GGUF) or config field (`config.json`) is missing.
    #[error("{path}: missing metadata key `{key}`")]
    MissingKey {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
    },
    /// A metadata key or config field has a value bip cannot use.
    #[error("{path}: metadata key `{key}`: {problem}")]
    BadKey {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// What is wrong with its value.
        problem: String,
    },
    /// A tensor the architecture needs is not in the weights.
    #[error("{path}: missing tensor `{name}`")]
    MissingTensor {
        /// The file (or folder) searched.
        path: PathBuf,
        /// The tensor's name in that file's naming scheme.
        name: String,
    },
    /// A tensor is present but unusable: wrong shape, unsupported type, data out of range.
    #[error("{path}: tensor `{name}`: {problem}")]
    BadTensor {
        /// The file.
        path: PathBuf,
        /// The tensor's name in that file's naming scheme.
        name: String,
        /// What is wrong, with the values found and expected.
        problem: String,
    },
    /// A model configuration is inconsistent (say, heads that do not divide the width).
    #[error("invalid model configuration: {0}")]
    Config(String),
    /// The tokenizer could not be built or could not encode or decode.
    #[error("tokenizer ({origin}): {message}")]
    Tokenizer {
        /// Where the tokenizer came from (a file, or "GGUF metadata").
        origin: String,
        /// What the tokenizer library said.
        message: String,
    },
    /// A model path or alias does not resolve to a model.
    #[error("{0}")]
    NotFound(String),
    /// The backend returned tensor data of an unexpected element type.
    #[error("backend: {0}")]
    Backend(String),
    /// Models combined in one score do not fit together (tokenizers, vocabulary sizes).
    #[error("{first} and {second} cannot be combined: {problem}")]
    Incompatible {
        /// The first model's file or folder, with its role.
        first: String,
        /// The second model's file or folder, with its role.
        second: String,
        /// What differs, with both values.
        problem: String,
    },
    /// A scoring or generation request is malformed.
    #[error("request {index}: {problem}")]
    BadRequest {
        /// The request's position in the batch.
        index: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// A model computed NaN for a request: its weights, or an adapter's, are out of
    /// range (finite, but too large for `f32` arithmetic).
    #[error(
        "request {index}: the model computed NaN (its weights, or an adapter's, are out of range)"
    )]
    NotANumber {
        /// The request's position in the batch.
        index: usize,
    },
    /// A device is not one bip knows, or this build has no backend for it.
    #[error("device {device}: {problem}")]
    Device {
        /// The device as given (`cuda:1`).
        device: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A serving engine (an OpenAI-compatible endpoint) could not be reached, failed, or
    /// answered something bip cannot use.
    #[error("{endpoint}: {problem}")]
    Remote {
        /// The endpoint's URL (with the served model's name), and the route that failed.
        endpoint: String,
        /// What went wrong, with the engine's own words where it gave any.
        problem: String,
    },
    /// A step of a longer task failed (the step is named here, the failure is the source).
    #[error("{context}")]
    Context {
        /// What was being done ("loading base model m.gguf").
        context: String,
        /// Why it failed.
        #[source]
        source: Box<ModelError>,
    },
}

/// `v` as errors show a number: plainly when it reads well that way (`16`, `0.001`),
/// in exponent form when it is huge or tiny (`1e308`, not 309 digits).
pub(crate) fn number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// `Result` with [`ModelError`].
pub type Result<T, E = ModelError> = std::result::Result<T, E>;

impl ModelError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }

    /// A format error on `path`.
    pub(crate) fn format(path: impl Into<PathBuf>, problem: impl Into<String>) -> Self {
        Self::Format {
            path: path.into(),
            problem: problem.into(),
        }
    }

    /// A bad tensor in `path`.
    // `tensor` and `key` are alike in shape only: each fills its own variant, and a shared
    // constructor would need a macro that says more than the two of them.
    pub(crate) fn tensor(
        path: impl Into<PathBuf>,
        name: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        Self::BadTensor {
            path: path.into(),
            name: name.into(),
            problem: problem.into(),
        }
    }

    /// This error as the cause of a failure of `context`.
    pub(crate) fn within(self, context: impl Into<String>) -> Self {
        Self::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// Tensor data read back from the backend as `f32`.
    pub(crate) fn read_back(data: burn::tensor::TensorData) -> Result<Vec<f32>> {
        data.to_vec::<f32>()
            .map_err(|e| Self::Backend(format!("reading back f32 data: {e:?}")))
    }

    /// A bad metadata value in `path`.
    pub(crate) fn key(
        path: impl Into<PathBuf>,
        key: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        Self::BadKey {
            path: path.into(),
            key: key.into(),
            problem: problem.into(),
        }
    }
}
