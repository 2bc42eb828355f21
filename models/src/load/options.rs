//! How much a loader may allocate for sizes a model file declares, and how it holds the
//! weights.

use crate::error::{ModelError, Result};

/// Longest context a model runs on unless asked otherwise. A file that declares a longer
/// one (Llama 3 declares 131,072 positions) runs on this many: its rotary tables are built
/// for these only, and longer requests are refused naming both numbers.
pub const DEFAULT_MAX_CONTEXT: usize = 32_768;

/// The largest [`LoadOptions::max_context`] accepted: the rotary tables of 2^20 positions
/// of 128-wide heads take 1 GiB.
pub const MAX_CONTEXT_LIMIT: usize = 1 << 20;

/// How a loaded model holds its weight matrices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WeightStorage {
    /// Every weight dequantized to f32 (exactly the values the file encodes).
    #[default]
    F32,
    /// On the CPU backend, the matrices (projections and the LM head) rounded once to
    /// f16 and widened a cache-sized panel at a time for each f32 product: half the
    /// memory of [`WeightStorage::F32`], the arithmetic still f32 (each weight moves by at
    /// most 2⁻¹¹ of itself). Other backends hold f32 whatever is asked.
    F16,
    /// On the CPU backend, the matrices in 8-bit blocks of 32 inputs with an f32 scale
    /// each, multiplied with integer dot products against activations quantized the same
    /// way on the fly: a quarter of the memory of [`WeightStorage::F32`] and, where the
    /// CPU has AVX-512 VNNI, several times its rate; each product moves by a few parts in
    /// a thousand. Other backends hold f32 whatever is asked.
    Int8,
}

impl WeightStorage {
    /// Every storage, in the order help lists them.
    pub const ALL: [Self; 3] = [Self::F32, Self::F16, Self::Int8];

    /// The name the command line and the Python options use (`f32`, `f16`, `int8`).
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F16 => "f16",
            Self::Int8 => "int8",
        }
    }

    /// What a score cache knows the storage by: its name, and for int8 the version of its
    /// rounding, so that scores cached before the rounding changed are not reused.
    pub fn cache_tag(self) -> String {
        match self {
            Self::Int8 => format!("int8 v{}", crate::nn::int8::ROUNDING_VERSION),
            other => other.name().to_string(),
        }
    }
}

impl std::fmt::Display for WeightStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for WeightStorage {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| ModelError::Config(format!("weights `{s}`: not f32, f16 or int8")))
    }
}

/// Limits a loader applies to what a model file declares, and how it holds the weights.
///
/// # Example
///
/// ```
/// use bip_models::{LoadOptions, DEFAULT_MAX_CONTEXT};
///
/// let options = LoadOptions::default();
/// assert_eq!(options.max_context, DEFAULT_MAX_CONTEXT);
/// assert!(options.with_max_context(0).check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// Longest sequence (prompt plus continuation) the model is run on: the model's own
    /// context when that is shorter. At most [`MAX_CONTEXT_LIMIT`].
    pub max_context: usize,
    /// How the weights are held.
    pub weights: WeightStorage,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            max_context: DEFAULT_MAX_CONTEXT,
            weights: WeightStorage::F32,
        }
    }
}

impl LoadOptions {
    /// The same with `max_context` positions at most.
    pub fn with_max_context(mut self, max_context: usize) -> Self {
        self.max_context = max_context;
        self
    }

    /// The same holding weights as `weights`.
    pub fn with_weights(mut self, weights: WeightStorage) -> Self {
        self.weights = weights;
        self
    }

    /// Checks that the limits are usable.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `max_context` is 0 or above [`MAX_CONTEXT_LIMIT`].
    pub fn check(&self) -> Result<()> {
        if (1..=MAX_CONTEXT_LIMIT).contains(&self.max_context) {
            Ok(())
        } else {
            Err(ModelError::Config(format!(
                "max_context {} is not in 1..={MAX_CONTEXT_LIMIT}",
                self.max_context
            )))
        }
    }

    /// The context a model that declares `declared` positions runs on.
    pub(crate) fn context(&self, declared: usize) -> usize {
        declared.min(self.max_context)
    }
}
