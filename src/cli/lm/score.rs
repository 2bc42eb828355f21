//! `bip lm score`: per-token log-probabilities of a continuation after a prompt.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use bip::models::burn::tensor::backend::Backend;
use bip::models::{PrefixCache, ScoreOptions, ScoreRequest};

use super::{chat_or_plain, load, ModelArgs};
use crate::cli::output::Output;

#[derive(Debug, Args)]
pub(super) struct ScoreArgs {
    #[command(flatten)]
    pub(super) model: ModelArgs,
    /// Text before the continuation.
    #[arg(long)]
    pub(super) prompt: String,
    /// Text whose tokens are scored (not empty: nothing scored is no score).
    #[arg(long, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub(super) continuation: String,
    /// Wrap the prompt in the model's chat template as a user message.
    #[arg(long)]
    pub(super) chat: bool,
    /// Print `{"tokens", "token_ids", "logprobs", "total"}` as JSON.
    #[arg(long)]
    pub(super) json: bool,
}

/// Runs `bip lm score` on `device`.
pub(super) fn score<B: Backend>(
    args: &ScoreArgs,
    device: &B::Device,
    out: &mut Output,
) -> anyhow::Result<ExitCode> {
    let model = load::<B>(&args.model, device)?;
    let prompt = chat_or_plain(&model, &args.prompt, args.chat)?;
    let request = ScoreRequest {
        prompt: &prompt,
        continuation: &args.continuation,
    };
    let scored = model
        .score(
            &mut PrefixCache::default(),
            &[request],
            &ScoreOptions::default(),
        )
        .context("scoring the continuation")?;
    let scored = scored.into_iter().next().context("no score returned")?;
    let texts = model.tokenizer().token_texts(&scored.tokens);
    print_scores(args.json, &texts, &scored.tokens, &scored.logprobs, out)
}

/// Prints one continuation's per-token scores: a table, or JSON with `--json`.
pub(super) fn print_scores(
    json: bool,
    texts: &[String],
    ids: &[u32],
    logprobs: &[f32],
    out: &mut Output,
) -> anyhow::Result<ExitCode> {
    let total: f64 = logprobs.iter().map(|&l| f64::from(l)).sum();
    if json {
        let doc = serde_json::json!({
            "tokens": texts,
            "token_ids": ids,
            "logprobs": logprobs,
            "total": total,
        });
        out.print(&format!("{doc}\n"))?;
    } else {
        let mut text = format!("{:>8}  {:>10}  token\n", "id", "logprob");
        for ((token, id), lp) in texts.iter().zip(ids).zip(logprobs) {
            text += &format!("{id:>8}  {lp:>10.4}  {token:?}\n");
        }
        let mean = total / ids.len().max(1) as f64;
        text += &format!(
            "total {total:.4} over {} tokens (mean {mean:.4})\n",
            ids.len()
        );
        out.print(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}
