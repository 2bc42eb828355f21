//! `bip lm score` against a served model.

use std::process::ExitCode;

use anyhow::Context;

use bip::cached::TokenScorer;
use bip::engine::TextRequest;

use super::output::Output;
use super::scoring::ScoringArgs;

/// Scores `(prompt, continuation)` with the served model `spec` and prints it as `bip lm
/// score` does for a model it loads.
pub fn score(
    scoring: &ScoringArgs,
    spec: &str,
    chat: bool,
    json: bool,
    (prompt, continuation): (&str, &str),
    out: &mut Output,
) -> anyhow::Result<ExitCode> {
    let scorer = scoring.connect(spec)?;
    let tokenizer = scorer.model().tokenizer();
    let prompt = if chat {
        tokenizer
            .chat_template()
            .render_user(prompt)
            .context("--chat: the tokenizer has no chat template bip recognises")?
    } else {
        prompt.to_string()
    };
    let request = [TextRequest {
        prompt: &prompt,
        continuation,
    }];
    let encoded = scorer.encode(&request).map_err(anyhow::Error::from_boxed)?;
    let mut logprobs = Vec::new();
    scorer
        .score_encoded(&request, &encoded, &mut |_, l| {
            logprobs = l;
            Ok(())
        })
        .map_err(anyhow::Error::from_boxed)
        .context("scoring the continuation")?;
    let ids = &encoded[0].continuation;
    let texts = tokenizer.token_texts(ids);
    super::lm::print_scores(json, &texts, ids, &logprobs, out)
}
