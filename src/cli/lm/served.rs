//! `bip lm score` against a served model.

use std::process::ExitCode;

use anyhow::Context;

use bip::cached::TokenScorer;
use bip::engine::TextRequest;

use super::score::{print_scores, ScoreArgs};
use crate::cli::output::Output;
use crate::cli::policy::error::flag_error;

/// Scores the continuation with the served model of `--model` and prints it as for a
/// model bip loads.
pub(super) fn score(args: &ScoreArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let scorer = args
        .model
        .load
        .scoring
        .options()
        .connect(&args.model.model)
        .map_err(flag_error)?;
    let tokenizer = scorer.model().tokenizer();
    let prompt = if args.chat {
        tokenizer
            .chat_template()
            .render_user(&args.prompt)
            .context("--chat: the tokenizer has no chat template bip recognises")?
    } else {
        args.prompt.clone()
    };
    let request = [TextRequest {
        prompt: &prompt,
        continuation: &args.continuation,
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
    let ids = &encoded.first().context("no tokens returned")?.continuation;
    let texts = tokenizer.token_texts(ids);
    print_scores(args.json, &texts, ids, &logprobs, out)
}

/// `bip lm inspect` and `generate` with a served model: refused, naming it.
pub(super) fn refuse(model: &str) -> anyhow::Result<ExitCode> {
    anyhow::bail!(
        "{model}: a served model scores (`bip lm score`); inspect and generate need a model bip loads"
    )
}
