//! Policy errors in the words of the command line.

use anyhow::anyhow;

use bip::policy::PolicyError;

/// A policy error in the words of the command line: options named by their flags.
pub fn flag_error(error: PolicyError) -> anyhow::Error {
    match error {
        PolicyError::Beta(source) => anyhow::Error::new(source).context("invalid --beta"),
        PolicyError::OutOfRange {
            option,
            value,
            range,
        } => {
            let flag = option.replace('_', "-");
            anyhow!("--{flag}: {value} is not a number in {range}")
        }
        PolicyError::MissingW2sModels => {
            anyhow!("--policy w2s needs --large, --expert and --naive")
        }
        PolicyError::NoTokenizer { spec } => anyhow!(
            "{spec} is a served model: name bip's tokenizer for it with --tokenizer (a GGUF \
             file, a Hugging Face folder or an alias)"
        ),
        other => other.into(),
    }
}
