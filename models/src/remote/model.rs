//! [`RemoteModel`]: per-token log-probabilities from a model a serving engine runs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::align::{Alignment, PROBE};
use super::echo::{self, Echo};
use super::endpoint::Endpoint;
use super::http::{remote, Client, HttpOptions};
use super::pool::run_bounded;
use super::tokenize::{check, ServerTokenizer};
use super::top_k::reverse_vocabulary;
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

/// An echo with the continuation's tokens found in it.
pub(super) struct EchoScore {
    /// The engine's answer.
    pub(super) echo: Echo,
    /// The echo position of each continuation token.
    pub(super) positions: Vec<usize>,
    /// Each continuation token's log-probability.
    pub(super) logprobs: Vec<f64>,
    /// The top log-probabilities asked per position.
    pub(super) top_k: usize,
}

/// A language model served by an OpenAI-compatible engine, scored through its
/// `/completions` route with `echo` and `logprobs`, over bip's own tokenizer for it.
///
/// Every text is checked to split into exactly bip's tokens on the engine before its
/// scores are used; a different split is refused, never scored.
pub struct RemoteModel {
    endpoint: Endpoint,
    tokenizer: Tokenizer,
    client: Client,
    options: RemoteOptions,
    alignment: OnceLock<Alignment>,
    server_tokenizer: ServerTokenizer,
    tokens_sent: AtomicU64,
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

    /// The engine's echo of `request` with at least `top_k` log-probabilities per position
    /// where the alignment needs them (1 where it does not), and each continuation token's
    /// echo position and log-probability.
    pub(super) fn scored_echo(
        &self,
        request: &RemoteRequest<'_>,
        top_k: usize,
    ) -> Result<EchoScore> {
        let tokens = request.tokens;
        if request.continuation >= tokens.len() {
            return Err(self.error("a request has no prompt tokens before its continuation"));
        }
        self.check_tokens(request.text, tokens)?;
        let alignment = self.alignment().unwrap_or(Alignment::Own);
        let mut k = match alignment {
            Alignment::Own => top_k.clamp(1, self.options.max_top_k),
            Alignment::Previous => top_k.max(1),
        };
        loop {
            let echo = echo::fetch(&self.client, &self.endpoint, request.text, k)?;
            let offset = self.echo_offset(&echo, tokens)?;
            let first = tokens.len() - request.continuation;
            let found: Vec<Option<f64>> = (first..tokens.len())
                .map(|j| alignment.read(&echo, offset + j - self.bos_skipped(tokens)))
                .collect();
            if let Some(logprobs) = found.iter().copied().collect::<Option<Vec<f64>>>() {
                self.tokens_sent
                    .fetch_add(tokens.len() as u64, Ordering::Relaxed);
                let positions = (first..tokens.len())
                    .map(|j| offset + j - self.bos_skipped(tokens))
                    .collect();
                return Ok(EchoScore {
                    echo,
                    positions,
                    logprobs,
                    top_k: k,
                });
            }
            let missing = found.iter().position(Option::is_none).unwrap_or(0) + first;
            let at = offset + missing - self.bos_skipped(tokens);
            if alignment == Alignment::Previous
                && at >= 1
                && echo.top.get(at - 1).is_none_or(Option::is_none)
            {
                // No top list at all there (llama.cpp gives none at the first position):
                // asking for more would not help.
                return Err(self.error(format!(
                    "the engine gives no log-probabilities at position {} of {:?}, where \
                     token {missing} ({:?}) is predicted (llama.cpp gives none after the \
                     first token: make the prompt longer)",
                    at - 1,
                    request.text,
                    self.tokenizer
                        .token_texts(&tokens[missing..=missing])
                        .join("")
                )));
            }
            if k >= self.options.max_top_k || alignment == Alignment::Own {
                return Err(self.error(format!(
                    "the engine gave no log-probability for token {missing} ({:?}) of {:?} \
                     among its top {k}",
                    self.tokenizer
                        .token_texts(&tokens[missing..=missing])
                        .join(""),
                    request.text
                )));
            }
            k = (k * 4).min(self.options.max_top_k);
        }
    }

    /// Checks the engine's tokens for `text` against bip's.
    fn check_tokens(&self, text: &str, tokens: &[u32]) -> Result<()> {
        let server = self
            .server_tokenizer
            .ids(&self.client, &self.endpoint, text)?;
        check(
            &self.endpoint,
            &server,
            tokens,
            self.tokenizer.bos_token(),
            |ids| format!("{:?}", self.tokenizer.token_texts(ids)),
        )
    }

    /// 1 when `tokens` begin with the BOS token (which engines do not all echo).
    fn bos_skipped(&self, tokens: &[u32]) -> usize {
        usize::from(
            tokens
                .first()
                .is_some_and(|t| Some(*t) == self.tokenizer.bos_token()),
        )
    }

    /// The echo position of bip's first token after any BOS: 0, or 1 when the engine
    /// echoes a BOS token bip's tokens lack; checked by comparing every token's text.
    fn echo_offset(&self, echo: &Echo, tokens: &[u32]) -> Result<usize> {
        let texts = self
            .tokenizer
            .token_texts(&tokens[self.bos_skipped(tokens)..]);
        let matches = |offset: usize| {
            echo.tokens.len() >= offset + texts.len()
                && texts
                    .iter()
                    .zip(&echo.tokens[offset..])
                    .all(|(ours, theirs)| ours == theirs || ours.contains('\u{fffd}'))
        };
        (0..2).find(|&o| matches(o)).ok_or_else(|| {
            self.error(format!(
                "the engine echoed tokens other than bip's ({} against bip's {}): its \
                 tokenizer does not match",
                echo.tokens.len(),
                texts.len()
            ))
        })
    }

    fn error(&self, problem: impl Into<String>) -> ModelError {
        remote(&self.endpoint.to_string(), problem)
    }
}
