//! [`RemoteModel`]: per-token log-probabilities from a model a serving engine runs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::align::{Alignment, PROBE};
use super::echo;
use super::endpoint::Endpoint;
use super::http::{remote, Client, HttpOptions};
use super::pool::run_bounded;
use super::tokenize::ServerTokenizer;
use super::top_k::reverse_vocabulary;

/// The version of bip's reading of an engine's echoed log-probabilities (which tokens,
/// which positions, how a token missing from a top-k list is treated). Raise it whenever
/// that reading changes: it is part of [`RemoteModel::cache_identity`], so scores cached
/// under an older reading are not reused.
pub const ECHO_READING: u32 = 1;
use crate::error::{ModelError, Result};
use crate::tokenizer::Tokenizer;

/// How a [`RemoteModel`] asks its engine.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteOptions {
    /// Timeouts and retries.
    pub http: HttpOptions,
    /// Requests in flight at once (the engine batches them).
    pub concurrency: usize,
    /// Top log-probabilities asked per position when the engine gives a token's own one
    /// only among the previous position's top k ([`Alignment::Previous`]). Small on
    /// purpose: the engine keys them by text, and tokens whose text reads alike (partial
    /// UTF-8 bytes after a space read as a space) overwrite each other, the less likely
    /// last; the fewer asked, the less likely such a clash. Also the k of the top-k
    /// weak-to-strong mode ([`RemoteModel::score_top_k`]).
    pub top_k: usize,
    /// Most top log-probabilities asked for when a token was not among the first `top_k`
    /// (the request is repeated with 4× as many, up to this).
    pub max_top_k: usize,
    /// Where the engine puts each token's log-probability; `None` tells from a probe.
    pub alignment: Option<Alignment>,
    /// Sent as `Authorization: Bearer KEY` (engines started with an API key).
    pub api_key: Option<String>,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        Self {
            http: HttpOptions::default(),
            concurrency: 4,
            top_k: 8,
            max_top_k: 1280,
            alignment: None,
            api_key: None,
        }
    }
}

/// One text to score: `tokens` are bip's tokens of `text`, the last `continuation` of
/// which are scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteRequest<'a> {
    /// Prompt and continuation, as one text (engines take text, not token ids).
    pub text: &'a str,
    /// bip's tokens of `text` (BOS first when the model uses one).
    pub tokens: &'a [u32],
    /// How many of the last `tokens` are scored.
    pub continuation: usize,
}

/// A language model served by an OpenAI-compatible engine, scored through its
/// `/completions` route with `echo` and `logprobs`, over bip's own tokenizer for it.
///
/// Every text is checked to split into exactly bip's tokens on the engine before its
/// scores are used; a different split is refused, never scored.
pub struct RemoteModel {
    pub(super) endpoint: Endpoint,
    pub(super) tokenizer: Tokenizer,
    pub(super) client: Client,
    pub(super) options: RemoteOptions,
    pub(super) alignment: OnceLock<Alignment>,
    pub(super) server_tokenizer: ServerTokenizer,
    pub(super) tokens_sent: AtomicU64,
    reverse: OnceLock<HashMap<String, Option<u32>>>,
}

impl RemoteModel {
    /// Connects to `endpoint`: checks that the engine tokenizes a probe text as
    /// `tokenizer` does and finds where it puts each token's log-probability.
    ///
    /// # Errors
    ///
    /// [`ModelError::Remote`] naming the endpoint: unreachable, no echoed log-probabilities,
    /// a tokenizer that does not match, or an alignment it cannot tell.
    pub fn connect(
        endpoint: Endpoint,
        tokenizer: Tokenizer,
        options: RemoteOptions,
    ) -> Result<Self> {
        let model = Self {
            client: Client::new(options.http, options.concurrency, options.api_key.clone()),
            endpoint,
            tokenizer,
            options,
            alignment: OnceLock::new(),
            server_tokenizer: ServerTokenizer::new(),
            tokens_sent: AtomicU64::new(0),
            reverse: OnceLock::new(),
        };
        let tokens = model.tokenizer.encode_prompt(PROBE)?;
        model.check_tokens(PROBE, &tokens)?;
        let echo = echo::fetch(&model.client, &model.endpoint, PROBE, 5)?;
        model.echo_offset(&echo, &tokens)?;
        let alignment = match model.options.alignment {
            Some(a) => a,
            None => Alignment::detect(&echo).map_err(|p| model.error(p))?,
        };
        let _ = model.alignment.set(alignment);
        Ok(model)
    }

    /// The endpoint.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// bip's tokenizer for the served model.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The name a score cache knows this model's scores by: the served name (not the URL,
    /// so that scores survive the engine moving to another port or host), the way its echo
    /// is read ([`ECHO_READING`]) and the alignment found, so that scores read another way
    /// are never served from the cache.
    pub fn cache_identity(&self) -> String {
        let alignment = self.alignment().map_or("unknown", Alignment::name);
        format!(
            "served {} (echo reading {ECHO_READING}, alignment {alignment})",
            self.served_name()
        )
    }

    /// The served model's name: the endpoint's `#NAME`, else the first model the engine
    /// lists at `/models` (llama.cpp lists its file), else the URL.
    pub fn served_name(&self) -> String {
        if let Some(name) = &self.endpoint.model {
            return name.clone();
        }
        self.client
            .get(&self.endpoint.url("/models"))
            .ok()
            .and_then(|v| v.pointer("/data/0/id")?.as_str().map(str::to_string))
            .unwrap_or_else(|| self.endpoint.base.clone())
    }

    /// Each token text of the vocabulary to its id (`None` where several share a text),
    /// made on first use.
    pub(super) fn reverse_vocabulary(&self) -> &HashMap<String, Option<u32>> {
        self.reverse.get_or_init(|| {
            let n = self.tokenizer.vocab_size() as u32;
            reverse_vocabulary((0..n).map(|id| {
                let text = self.tokenizer.token_texts(&[id]).pop().unwrap_or_default();
                (id, text)
            }))
        })
    }

    /// How it asks its engine.
    pub fn options(&self) -> &RemoteOptions {
        &self.options
    }

    /// Where the engine puts each token's log-probability.
    pub fn alignment(&self) -> Option<Alignment> {
        self.alignment.get().copied()
    }

    /// Tokens sent for scoring so far (the engine may share prefixes among them).
    pub fn tokens_sent(&self) -> u64 {
        self.tokens_sent.load(Ordering::Relaxed)
    }

    /// Scores `requests`, up to [`RemoteOptions::concurrency`] at once, handing each
    /// continuation's log-probabilities to `done` (with its index) as it arrives, so that
    /// what was scored is kept even when a later request fails.
    ///
    /// # Errors
    ///
    /// The first failure, by request order ([`ModelError::Remote`] naming the endpoint),
    /// or what `done` returned; requests not yet sent then are not sent.
    pub fn score(
        &self,
        requests: &[RemoteRequest<'_>],
        done: &mut dyn FnMut(usize, Vec<f32>) -> Result<()>,
    ) -> Result<()> {
        run_bounded(
            requests.len(),
            self.options.concurrency,
            |i| self.score_one(&requests[i]),
            done,
        )
    }

    fn score_one(&self, request: &RemoteRequest<'_>) -> Result<Vec<f32>> {
        let scored = self.scored_echo(request, self.options.top_k)?;
        Ok(scored.logprobs.iter().map(|&l| l as f32).collect())
    }

    pub(super) fn error(&self, problem: impl Into<String>) -> ModelError {
        remote(&self.endpoint.to_string(), problem)
    }
}
