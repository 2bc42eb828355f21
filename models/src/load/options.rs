//! How much a loader may allocate for sizes a model file declares.

use crate::error::{ModelError, Result};

/// Longest context a model runs on unless asked otherwise. A file that declares a longer
/// one (Llama 3 declares 131,072 positions) runs on this many: its rotary tables are built
/// for these only, and longer requests are refused naming both numbers.
pub const DEFAULT_MAX_CONTEXT: usize = 32_768;

/// The largest [`LoadOptions::max_context`] accepted: the rotary tables of 2^20 positions
/// of 128-wide heads take 1 GiB.
pub const MAX_CONTEXT_LIMIT: usize = 1 << 20;

/// Limits a loader applies to what a model file declares.
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
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            max_context: DEFAULT_MAX_CONTEXT,
        }
    }
}

impl LoadOptions {
    /// The same with `max_context` positions at most.
    pub fn with_max_context(mut self, max_context: usize) -> Self {
        self.max_context = max_context;
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
