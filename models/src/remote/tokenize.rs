//! The engine's own tokenization of a text, to check against bip's before scoring.

use std::sync::atomic::{AtomicU8, Ordering};

use serde_json::{json, Value};

use super::endpoint::Endpoint;
use super::http::{remote, Client};
use crate::error::{ModelError, Result};

/// The routes engines tokenize at, tried in turn: llama.cpp's server, then vLLM's and
/// SGLang's.
const ROUTES: [&str; 2] = ["/extras/tokenize", "/tokenize"];
/// Route index not known yet.
const UNKNOWN: u8 = u8::MAX;

/// Asks an engine for its token ids, remembering which route answered.
pub(crate) struct ServerTokenizer {
    route: AtomicU8,
}

impl ServerTokenizer {
    pub(crate) fn new() -> Self {
        Self {
            route: AtomicU8::new(UNKNOWN),
        }
    }

    /// The engine's token ids for `text`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Remote`] naming the endpoint when no route answers with ids.
    pub(crate) fn ids(&self, client: &Client, endpoint: &Endpoint, text: &str) -> Result<Vec<u32>> {
        let known = self.route.load(Ordering::Relaxed);
        if let Some(route) = ROUTES.get(usize::from(known)) {
            return ask(client, endpoint, route, text);
        }
        let mut failures = Vec::new();
        for (i, route) in ROUTES.iter().enumerate() {
            match ask(client, endpoint, route, text) {
                Ok(ids) => {
                    self.route.store(i as u8, Ordering::Relaxed);
                    return Ok(ids);
                }
                // Only a route the engine lacks is worth trying another for; an engine
                // that cannot be reached is reported as such.
                Err(e) if is_missing_route(&e) => failures.push(e.to_string()),
                Err(e) => return Err(e),
            }
        }
        Err(ModelError::Remote {
            endpoint: endpoint.to_string(),
            problem: format!(
                "the engine does not tokenize text for bip to check its tokens against \
                 ({})",
                failures.join("; ")
            ),
        })
    }
}

/// Whether `e` says the engine has no such route (404, 405) or refused its body (400, 422).
fn is_missing_route(e: &ModelError) -> bool {
    matches!(e, ModelError::Remote { problem, .. }
        if ["HTTP 400", "HTTP 404", "HTTP 405", "HTTP 422"].iter().any(|s| problem.starts_with(s)))
}

fn ask(client: &Client, endpoint: &Endpoint, route: &str, text: &str) -> Result<Vec<u32>> {
    let url = endpoint.root_url(route);
    let mut body = json!({"input": text, "prompt": text, "add_special_tokens": false});
    if let Some(model) = &endpoint.model {
        body["model"] = json!(model);
    }
    let answer = client.post(&url, &body)?;
    ids(&answer).ok_or_else(|| remote(&url, "the answer has no `tokens` list of token ids"))
}

/// `tokens` of a tokenize answer, when it is a list of ids.
fn ids(answer: &Value) -> Option<Vec<u32>> {
    answer
        .get("tokens")?
        .as_array()?
        .iter()
        .map(|t| t.as_u64().and_then(|t| u32::try_from(t).ok()))
        .collect()
}

/// Checks that the engine splits a text into `expected` (bip's tokens), ignoring a
/// leading `bos` on either side (engines differ in adding it when asked to tokenize).
///
/// # Errors
///
/// [`ModelError::Remote`] showing the first token where the two differ.
pub(crate) fn check(
    endpoint: &Endpoint,
    server: &[u32],
    expected: &[u32],
    bos: Option<u32>,
    shown: impl Fn(&[u32]) -> String,
) -> Result<()> {
    let strip = |ids: &[u32]| -> Vec<u32> {
        match (ids.first(), bos) {
            (Some(first), Some(b)) if *first == b => ids[1..].to_vec(),
            _ => ids.to_vec(),
        }
    };
    let (server, expected) = (strip(server), strip(expected));
    if server == expected {
        return Ok(());
    }
    let at = server
        .iter()
        .zip(&expected)
        .take_while(|(a, b)| a == b)
        .count();
    let around = |ids: &[u32]| shown(&ids[at..(at + 3).min(ids.len())]);
    Err(ModelError::Remote {
        endpoint: endpoint.to_string(),
        problem: format!(
            "the served model's tokenizer does not match bip's: from token {at}, the engine \
             reads {} where bip reads {} ({} tokens against {}); score with the tokenizer \
             of the served model",
            around(&server),
            around(&expected),
            server.len(),
            expected.len()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ids_and_shows_the_first_difference() {
        assert_eq!(ids(&json!({"tokens": [1, 2, 3]})), Some(vec![1, 2, 3]));
        assert_eq!(ids(&json!({"tokens": ["a"]})), None);
        let endpoint = Endpoint::parse("http://h:1/v1").expect("parses");
        let show = |ids: &[u32]| format!("{ids:?}");
        assert!(check(&endpoint, &[0, 5, 6], &[5, 6], Some(0), show).is_ok());
        let err = check(&endpoint, &[5, 7, 8], &[5, 6], None, show)
            .expect_err("differs")
            .to_string();
        assert!(err.starts_with("http://h:1/v1: "), "{err}");
        assert!(
            err.contains("from token 1, the engine reads [7, 8] where bip reads [6]"),
            "{err}"
        );
    }

    #[test]
    fn only_a_missing_route_is_worth_another() {
        let remote = |problem: &str| ModelError::Remote {
            endpoint: "u".into(),
            problem: problem.into(),
        };
        assert!(is_missing_route(&remote("HTTP 404: not found")));
        assert!(!is_missing_route(&remote("connection failed: refused")));
        assert!(!is_missing_route(&remote("HTTP 500: boom")));
    }
}
