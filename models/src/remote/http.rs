//! JSON over HTTP to a serving engine: one connection pool, timeouts, and retries with
//! backoff on the failures that pass (429, 5xx, a reset or refused connection).

use std::time::Duration;

use serde_json::Value;

use crate::error::{ModelError, Result};

/// How requests to an engine are made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HttpOptions {
    /// Longest wait for one request's whole answer (a long prompt on a busy engine
    /// takes a while).
    pub timeout: Duration,
    /// Longest wait to connect.
    pub connect_timeout: Duration,
    /// Further tries after a failure that may pass (429, 5xx, a reset connection).
    pub retries: u32,
    /// Wait before the first retry; doubled for each one after.
    pub backoff: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(10),
            retries: 4,
            backoff: Duration::from_millis(500),
        }
    }
}

/// Largest answer read (echoed prompts with many top log-probabilities run to megabytes).
const MAX_BODY: u64 = 256 << 20;

/// A pooled HTTP client for one engine.
pub(crate) struct Client {
    agent: ureq::Agent,
    options: HttpOptions,
    authorization: Option<String>,
}

/// What one try came to: an answer, a failure worth another try, or a final one.
enum Try {
    Done(Value),
    Again(String),
    Fail(String),
}

impl Client {
    /// A client keeping up to `connections` idle connections open for reuse, sending
    /// `api_key` as a bearer token when given.
    pub(crate) fn new(options: HttpOptions, connections: usize, api_key: Option<String>) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(options.timeout))
            .timeout_connect(Some(options.connect_timeout))
            .max_idle_connections(connections.max(1))
            .max_idle_connections_per_host(connections.max(1))
            .build();
        Self {
            agent: config.into(),
            options,
            authorization: api_key.map(|key| format!("Bearer {key}")),
        }
    }

    /// POSTs `body` as JSON to `url` and reads the JSON answer, retrying what may pass.
    ///
    /// # Errors
    ///
    /// [`ModelError::Remote`] naming `url`: the status and the engine's message, the
    /// connection failure after the last retry, or an answer that is not JSON.
    pub(crate) fn post(&self, url: &str, body: &Value) -> Result<Value> {
        self.with_retries(url, Some(&body.to_string()))
    }

    /// GETs the JSON at `url`, retrying what may pass.
    ///
    /// # Errors
    ///
    /// As [`Client::post`].
    pub(crate) fn get(&self, url: &str) -> Result<Value> {
        self.with_retries(url, None)
    }

    fn with_retries(&self, url: &str, text: Option<&str>) -> Result<Value> {
        let mut wait = self.options.backoff;
        let mut tries = 0;
        loop {
            match self.try_once(url, text) {
                Try::Done(value) => return Ok(value),
                Try::Fail(problem) => return Err(remote(url, problem)),
                Try::Again(problem) if tries >= self.options.retries => {
                    let tries = tries + 1;
                    return Err(remote(url, format!("{problem} (after {tries} tries)")));
                }
                Try::Again(_) => {
                    tries += 1;
                    std::thread::sleep(wait);
                    wait = wait.saturating_mul(2);
                }
            }
        }
    }

    fn try_once(&self, url: &str, text: Option<&str>) -> Try {
        let auth = self.authorization.as_deref();
        let response = match text {
            Some(text) => {
                let request = self
                    .agent
                    .post(url)
                    .header("content-type", "application/json");
                match auth {
                    Some(a) => request.header("authorization", a).send(text),
                    None => request.send(text),
                }
            }
            None => {
                let request = self.agent.get(url);
                match auth {
                    Some(a) => request.header("authorization", a).call(),
                    None => request.call(),
                }
            }
        };
        let mut response = match response {
            Ok(r) => r,
            Err(e) => return transport(e),
        };
        let status = response.status().as_u16();
        let body = match response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .lossy_utf8(true)
            .read_to_string()
        {
            Ok(b) => b,
            Err(e) => return transport(e),
        };
        if status == 429 || status >= 500 {
            return Try::Again(format!("HTTP {status}: {}", excerpt(&body)));
        }
        if !(200..300).contains(&status) {
            return Try::Fail(format!("HTTP {status}: {}", excerpt(&body)));
        }
        match serde_json::from_str(&body) {
            Ok(v) => Try::Done(v),
            Err(e) => Try::Fail(format!("the answer is not JSON ({e}): {}", excerpt(&body))),
        }
    }
}

/// A transport failure: connections refused or reset and timeouts may pass (an engine
/// restarting, a request queued behind others); the rest will not.
fn transport(e: ureq::Error) -> Try {
    use std::io::ErrorKind;
    match &e {
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::BrokenPipe
                    | ErrorKind::UnexpectedEof
                    | ErrorKind::TimedOut
            ) =>
        {
            Try::Again(format!("connection failed: {e}"))
        }
        ureq::Error::Timeout(_) | ureq::Error::ConnectionFailed | ureq::Error::Protocol(_) => {
            Try::Again(format!("connection failed: {e}"))
        }
        _ => Try::Fail(format!("request failed: {e}")),
    }
}

/// The beginning of an engine's answer, for an error message.
fn excerpt(body: &str) -> String {
    let body = body.trim();
    match body.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &body[..i]),
        None => body.to_string(),
    }
}

/// A [`ModelError::Remote`] for `url`.
pub(crate) fn remote(url: &str, problem: impl Into<String>) -> ModelError {
    ModelError::Remote {
        endpoint: url.to_string(),
        problem: problem.into(),
    }
}
