//! Training data: `{"prompt": ..., "action": ...}` JSON lines, read and tokenized.

use std::path::Path;

use serde::Serialize;

use crate::error::{ModelError, Result};
use crate::io::json_line_problem;
use crate::tokenizer::Tokenizer;
use crate::weights::SplitMix64;

/// One supervised example as text: the loss falls on `action`'s tokens only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextPair {
    /// The prompt, encoded as a prompt (with the model's BOS token when it wants one).
    pub prompt: String,
    /// The continuation learnt, encoded without BOS and appended to the prompt's tokens
    /// (as [`crate::LanguageModel::score`] does).
    pub action: String,
}

impl TextPair {
    /// Reads a JSON-lines file of pairs; blank lines are skipped, other fields ignored.
    ///
    /// # Errors
    ///
    /// [`ModelError::Io`] when unreadable, and [`ModelError::Format`] naming the file and
    /// line for a line that is not a JSON object, lacks `prompt` or `action`, holds a
    /// non-string there, or has an empty one.
    pub fn read_jsonl(path: &Path) -> Result<Vec<Self>> {
        Ok(Self::read_jsonl_numbered(path)?
            .into_iter()
            .map(|(_, pair)| pair)
            .collect())
    }

    /// Like [`TextPair::read_jsonl`], each pair with its line number (from 1), for
    /// errors found later.
    ///
    /// # Errors
    ///
    /// As [`TextPair::read_jsonl`].
    pub fn read_jsonl_numbered(path: &Path) -> Result<Vec<(usize, Self)>> {
        let text = crate::io::read_text(path)?;
        let mut pairs = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad =
                |problem: String| ModelError::format(path, format!("line {}: {problem}", i + 1));
            let value: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| bad(format!("not JSON ({})", json_line_problem(&e))))?;
            let field = |name: &str| -> Result<String> {
                match value.get(name) {
                    None => Err(bad(format!(
                        "missing field \"{name}\" (each line is {{\"prompt\": ..., \"action\": ...}})"
                    ))),
                    Some(serde_json::Value::String(s)) if s.is_empty() => {
                        Err(bad(format!("field \"{name}\" is empty")))
                    }
                    Some(serde_json::Value::String(s)) => Ok(s.clone()),
                    Some(other) => Err(bad(format!("field \"{name}\" is {other}, not a string"))),
                }
            };
            if !value.is_object() {
                return Err(bad("not a JSON object".into()));
            }
            let pair = Self {
                prompt: field("prompt")?,
                action: field("action")?,
            };
            pairs.push((i + 1, pair));
        }
        if pairs.is_empty() {
            return Err(ModelError::format(path, "no training pairs"));
        }
        Ok(pairs)
    }
}

/// An example as tokens: the prompt's then the action's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenPair {
    /// Prompt tokens followed by action tokens.
    pub tokens: Vec<u32>,
    /// How many of `tokens` are the prompt's (at least 1).
    pub prompt_len: usize,
}

impl TokenPair {
    /// Tokenizes `pair` as scoring does.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadRequest`] naming `index` when the prompt or the action cannot be
    /// encoded or encodes to no tokens, or both exceed `max_len`.
    pub fn encode(
        tokenizer: &Tokenizer,
        pair: &TextPair,
        index: usize,
        max_len: usize,
    ) -> Result<Self> {
        let bad = |problem: String| ModelError::BadRequest { index, problem };
        let in_pair = |what: &str, e: ModelError| bad(format!("{what}: {e}"));
        let mut tokens = tokenizer
            .encode_prompt(&pair.prompt)
            .map_err(|e| in_pair("the prompt", e))?;
        let prompt_len = tokens.len();
        let action = tokenizer
            .encode(&pair.action)
            .map_err(|e| in_pair("the action", e))?;
        if prompt_len == 0 || action.is_empty() {
            return Err(bad("the prompt or the action encodes to no tokens".into()));
        }
        tokens.extend(action);
        if tokens.len() > max_len {
            return Err(bad(format!(
                "{} tokens exceed the model's context of {max_len}",
                tokens.len()
            )));
        }
        Ok(Self { tokens, prompt_len })
    }

    /// How many tokens the loss falls on.
    pub fn action_len(&self) -> usize {
        self.tokens.len() - self.prompt_len
    }
}

/// Splits `0..n` into (training, validation) index lists, `fraction` of them (at least one
/// when `fraction > 0` and `n > 1`) drawn for validation with `seed`; both sorted.
pub fn split_indices(n: usize, fraction: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let want = if fraction > 0.0 && n > 1 {
        ((n as f64 * fraction).round() as usize).clamp(1, n - 1)
    } else {
        0
    };
    let mut order: Vec<usize> = (0..n).collect();
    shuffle(&mut order, seed);
    let (mut validation, mut train) = (order[..want].to_vec(), order[want..].to_vec());
    validation.sort_unstable();
    train.sort_unstable();
    (train, validation)
}

/// Fisher–Yates shuffle driven by `seed`.
pub(crate) fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::temp_dir;

    #[test]
    fn bad_lines_are_named() {
        let dir = temp_dir("train-data");
        let path = dir.join("pairs.jsonl");
        let write = |text: &str| std::fs::write(&path, text).unwrap();
        write("{\"prompt\": \"a\", \"action\": \" b\"}\n\n{\"prompt\": \"c\", \"action\": \" d\", \"x\": 1}\n");
        let pairs = TextPair::read_jsonl(&path).unwrap();
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[1].action, " d");
        write("{\"prompt\": \"a\", \"action\": \" b\"}\n{\"prompt\": \"c\"}\n");
        let err = TextPair::read_jsonl(&path).unwrap_err().to_string();
        assert!(
            err.contains("pairs.jsonl: line 2: missing field \"action\""),
            "{err}"
        );
        write("{\"prompt\": 3, \"action\": \" b\"}\n");
        let err = TextPair::read_jsonl(&path).unwrap_err().to_string();
        assert!(
            err.contains("line 1: field \"prompt\" is 3, not a string"),
            "{err}"
        );
        write("not json\n");
        let err = TextPair::read_jsonl(&path).unwrap_err().to_string();
        assert!(
            err.contains("pairs.jsonl: line 1: not JSON (column "),
            "{err}"
        );
        assert!(!err.contains("line 1 column"), "{err}");
        write("{\"prompt\": \"a\", \"action\": \" b\"}\n{\"prompt\": \"a\",\n");
        let err = TextPair::read_jsonl(&path).unwrap_err().to_string();
        assert!(err.contains("line 2: not JSON (column "), "{err}");
        assert!(err.ends_with(": EOF while parsing a value)"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn split_is_deterministic_and_disjoint() {
        let (train, val) = split_indices(20, 0.25, 3);
        assert_eq!((train.len(), val.len()), (15, 5));
        assert!(val.iter().all(|v| !train.contains(v)));
        assert_eq!(split_indices(20, 0.25, 3), (train, val));
        assert_eq!(split_indices(5, 0.0, 3).1.len(), 0);
        assert_eq!(split_indices(2, 0.01, 3).1.len(), 1);
    }
}
