//! The echoed prompt of an OpenAI-style `/completions` answer (`echo` with `logprobs`):
//! each prompt token's text, its `token_logprobs` entry and its `top_logprobs` map.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{json, Value};

use super::endpoint::Endpoint;
use super::http::remote;
use crate::error::Result;

/// The log-probabilities an engine echoed for a prompt (and the one token it generated).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Echo {
    /// Each position's token, as the engine spells it.
    pub(crate) tokens: Vec<String>,
    /// `token_logprobs`: by the OpenAI format, the log-probability of the token at its
    /// position given those before it (not every engine keeps to that).
    pub(crate) token_logprobs: Vec<Option<f64>>,
    /// `top_logprobs`: a map from token text to log-probability at each position.
    pub(crate) top: Vec<Option<HashMap<String, f64>>>,
}

#[derive(Deserialize)]
struct Answer {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    logprobs: Option<Logprobs>,
}

#[derive(Deserialize)]
struct Logprobs {
    tokens: Vec<String>,
    token_logprobs: Vec<Option<f64>>,
    top_logprobs: Option<Vec<Option<HashMap<String, f64>>>>,
}

/// The body of a `/completions` request that echoes `text` with `top_k` log-probabilities
/// per position and generates one token (engines refuse zero).
pub(crate) fn request(endpoint: &Endpoint, text: &str, top_k: usize) -> Value {
    let mut body = json!({
        "prompt": text,
        "max_tokens": 1,
        "temperature": 0.0,
        "echo": true,
        "logprobs": top_k,
    });
    if let Some(model) = &endpoint.model {
        body["model"] = json!(model);
    }
    body
}

/// POSTs an echo request for `text` and reads the echoed log-probabilities.
///
/// # Errors
///
/// [`crate::ModelError::Remote`] naming the URL: the request failed, or the answer has no
/// `choices[0].logprobs` of the OpenAI shape, or lists of different lengths.
pub(crate) fn fetch(
    client: &super::http::Client,
    endpoint: &Endpoint,
    text: &str,
    top_k: usize,
) -> Result<Echo> {
    let url = endpoint.url("/completions");
    let value = client.post(&url, &request(endpoint, text, top_k))?;
    parse(value).map_err(|problem| remote(&url, problem))
}

/// Reads an answer's echo; the error says what is missing.
pub(crate) fn parse(value: Value) -> std::result::Result<Echo, String> {
    let answer: Answer = serde_json::from_value(value)
        .map_err(|e| format!("the answer is not a completion with log-probabilities: {e}"))?;
    let logprobs = answer
        .choices
        .into_iter()
        .next()
        .ok_or("the answer has no choices")?
        .logprobs
        .ok_or("the answer has no `logprobs` (does the engine support `echo` with `logprobs`?)")?;
    let n = logprobs.tokens.len();
    let top = logprobs.top_logprobs.unwrap_or_else(|| vec![None; n]);
    if logprobs.token_logprobs.len() != n || top.len() != n {
        return Err(format!(
            "`tokens`, `token_logprobs` and `top_logprobs` have {n}, {} and {} entries",
            logprobs.token_logprobs.len(),
            top.len()
        ));
    }
    Ok(Echo {
        tokens: logprobs.tokens,
        token_logprobs: logprobs.token_logprobs,
        top,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_openai_shape() {
        let value = json!({"choices": [{"text": "x", "logprobs": {
            "tokens": ["The", " cat"], "token_logprobs": [null, -1.5],
            "top_logprobs": [null, {" cat": -1.5, " dog": -2.0}]}}]});
        let echo = parse(value).expect("parses");
        assert_eq!(echo.tokens, ["The", " cat"]);
        assert_eq!(echo.token_logprobs, [None, Some(-1.5)]);
        assert_eq!(
            echo.top[1].as_ref().and_then(|m| m.get(" dog")),
            Some(&-2.0)
        );
    }

    #[test]
    fn names_what_is_missing() {
        let err = parse(json!({"choices": [{"text": "x"}]})).expect_err("no logprobs");
        assert!(err.contains("`logprobs`"), "{err}");
        let err = parse(json!({"choices": [{"logprobs": {"tokens": ["a"],
            "token_logprobs": [], "top_logprobs": [null]}}]}))
        .expect_err("ragged");
        assert!(err.contains("1, 0 and 1"), "{err}");
        assert!(parse(json!({"error": "x"})).is_err());
    }
}
