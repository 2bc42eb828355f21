//! Reading a continuation's log-probabilities out of an engine's echo of its text: the
//! tokens checked against bip's, the echo's positions matched to them, the top k grown
//! until every token is found.

use std::sync::atomic::Ordering;

use super::align::Alignment;
use super::echo::{self, Echo};
use super::model::{RemoteModel, RemoteRequest};
use super::tokenize::check;
use crate::error::Result;

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

impl RemoteModel {
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
    pub(super) fn check_tokens(&self, text: &str, tokens: &[u32]) -> Result<()> {
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
    pub(super) fn bos_skipped(&self, tokens: &[u32]) -> usize {
        usize::from(
            tokens
                .first()
                .is_some_and(|t| Some(*t) == self.tokenizer.bos_token()),
        )
    }

    /// The echo position of bip's first token after any BOS: 0, or 1 when the engine
    /// echoes a BOS token bip's tokens lack; checked by comparing every token's text.
    pub(super) fn echo_offset(&self, echo: &Echo, tokens: &[u32]) -> Result<usize> {
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
}
