//! Why a policy could not be built.

use std::path::PathBuf;

use bip_engine::{EngineError, UnknownName};
use bip_models::ModelError;

/// Why a policy could not be built.
///
/// A variant that wraps a cause keeps it as its [`source`](std::error::Error::source)
/// and does not repeat it in its own message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A policy name that is none of [`PolicyKind`](super::PolicyKind)'s.
    #[error(transparent)]
    UnknownKind(UnknownName),
    /// β is out of range.
    #[error("invalid beta")]
    Beta(#[source] EngineError),
    /// A hybrid weight is out of range.
    #[error("invalid hybrid weights")]
    HybridWeights(#[source] EngineError),
    /// A numeric option is outside its range.
    #[error("{option}: {value} is not a number in {range}")]
    OutOfRange {
        /// The option's name in [`PolicyOptions`](super::PolicyOptions) (`alpha`, `lm_weight`, ...).
        option: &'static str,
        /// Its value, as given.
        value: String,
        /// What it may be.
        range: String,
    },
    /// The weak-to-strong policy was asked for without its three models.
    #[error("the w2s policy needs a large, an expert and a naive model")]
    MissingW2sModels,
    /// The device cannot run models in this build.
    #[error("device")]
    Device(#[source] ModelError),
    /// A model path that does not exist, or an alias whose file is missing (the message
    /// says how to fetch it).
    #[error(transparent)]
    NotFound(ModelError),
    /// A model could not be loaded (its error names the file).
    #[error("loading the model")]
    Model {
        /// The model as given (a path or an alias).
        path: String,
        /// Why.
        #[source]
        source: ModelError,
    },
    /// A LoRA adapter could not be read (its error names the folder).
    #[error("reading the LoRA adapter")]
    Adapter {
        /// The adapter folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: ModelError,
    },
    /// One of the weak-to-strong models could not be loaded.
    #[error("the {role} model")]
    W2sRole {
        /// `large`, `expert` or `naive`.
        role: &'static str,
        /// Why.
        #[source]
        source: Box<PolicyError>,
    },
    /// A served model was given where bip must load the model itself, or with a LoRA
    /// adapter to merge.
    #[error("{what}")]
    NotServable {
        /// What cannot be served.
        what: &'static str,
    },
    /// A served model named without bip's tokenizer for it.
    #[error("{spec} is a served model: name bip's tokenizer for it (a GGUF file, a Hugging Face folder or an alias)")]
    NoTokenizer {
        /// The endpoint as given.
        spec: String,
    },
    /// A served model could not be reached or does not match bip's tokenizer.
    #[error("connecting to the served model {spec}")]
    Served {
        /// The endpoint as given.
        spec: String,
        /// Why.
        #[source]
        source: ModelError,
    },
    /// The score cache could not be opened.
    #[error("opening the score cache")]
    Cache(#[source] ModelError),
    /// The three weak-to-strong models do not go together.
    #[error("combining the weak-to-strong models")]
    W2s(#[source] ModelError),
}
