//! Naming a served model: an OpenAI-compatible base URL and the model's name there.

use crate::error::{ModelError, Result};

/// A model served over an OpenAI-compatible API.
///
/// Written `URL#NAME` on the command line (`http://127.0.0.1:8000/v1#llama-70b`); the
/// `#NAME` part may be left out for engines that serve one model and ignore the name
/// (llama.cpp's server). The URL is the API's base, the one `/completions` is appended to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The API's base URL without a trailing slash (`http://127.0.0.1:8000/v1`).
    pub base: String,
    /// The model name the engine serves (`model` in each request); `None` sends none.
    pub model: Option<String>,
}

impl Endpoint {
    /// Whether `spec` names an endpoint (`http://` or `https://`) rather than a file or
    /// an alias.
    pub fn is_endpoint(spec: &str) -> bool {
        let lower = spec.trim_start().to_ascii_lowercase();
        lower.starts_with("http://") || lower.starts_with("https://")
    }

    /// Parses `URL` or `URL#NAME`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Remote`] for a URL that is not `http://HOST[:PORT][/PATH]` or an
    /// empty name after `#`.
    pub fn parse(spec: &str) -> Result<Self> {
        let bad = |problem: &str| ModelError::Remote {
            endpoint: spec.to_string(),
            problem: problem.to_string(),
        };
        let (url, model) = match spec.split_once('#') {
            Some((_, "")) => return Err(bad("the served model's name after `#` is empty")),
            Some((url, name)) => (url, Some(name.to_string())),
            None => (spec, None),
        };
        let url = url.trim();
        if !Self::is_endpoint(url) {
            return Err(bad("not an http:// or https:// URL"));
        }
        if url.to_ascii_lowercase().starts_with("https://") {
            return Err(bad(
                "https is not built into bip; reach the engine over http on a private \
                 network or through a local tunnel (ssh -L)",
            ));
        }
        let host = &url["http://".len()..];
        if host.is_empty() || host.starts_with('/') {
            return Err(bad("the URL names no host"));
        }
        if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad("the URL contains spaces or control characters"));
        }
        Ok(Self {
            base: url.trim_end_matches('/').to_string(),
            model: model.map(|m| m.trim().to_string()),
        })
    }

    /// The endpoint with `served` as the model's name (`--served-model`), which replaces
    /// a `#NAME` given in the URL.
    pub fn with_model(mut self, served: Option<&str>) -> Self {
        if let Some(name) = served {
            self.model = Some(name.to_string());
        }
        self
    }

    /// The URL of `route` (`/completions`) under the base.
    pub fn url(&self, route: &str) -> String {
        format!("{}{route}", self.base)
    }

    /// The URL of `route` at the server's root (`/extras/tokenize`), outside the `/v1`
    /// base when the base ends in one.
    pub fn root_url(&self, route: &str) -> String {
        let root = self.base.strip_suffix("/v1").unwrap_or(&self.base);
        format!("{root}{route}")
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.model {
            Some(name) => write!(f, "{}#{name}", self.base),
            None => f.write_str(&self.base),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_url_and_name() {
        let e = Endpoint::parse("http://127.0.0.1:8000/v1/#llama-70b").expect("parses");
        assert_eq!(e.base, "http://127.0.0.1:8000/v1");
        assert_eq!(e.model.as_deref(), Some("llama-70b"));
        assert_eq!(
            e.url("/completions"),
            "http://127.0.0.1:8000/v1/completions"
        );
        assert_eq!(e.root_url("/tokenize"), "http://127.0.0.1:8000/tokenize");
        assert_eq!(e.to_string(), "http://127.0.0.1:8000/v1#llama-70b");
        let e = e.with_model(Some("other"));
        assert_eq!(e.model.as_deref(), Some("other"));
    }

    #[test]
    fn refuses_what_is_not_an_endpoint() {
        for spec in [
            "models/x.gguf",
            "http://",
            "http://h/v1#",
            "ftp://h",
            "http://a b",
        ] {
            let err = Endpoint::parse(spec).expect_err(spec).to_string();
            assert!(
                err.starts_with(spec.split('#').next().unwrap_or(spec)),
                "{err}"
            );
        }
        assert!(Endpoint::parse("https://h/v1").is_err());
        assert!(!Endpoint::is_endpoint("smollm2-135m"));
        assert!(Endpoint::is_endpoint("HTTP://h:1/v1"));
    }
}
