//! `bip lm generate`: greedy generation after a prompt.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use bip::models::burn::tensor::backend::Backend;

use super::{chat_or_plain, load, ModelArgs};
use crate::cli::output::Output;

#[derive(Debug, Args)]
pub(super) struct GenerateArgs {
    #[command(flatten)]
    pub(super) model: ModelArgs,
    /// Text to continue.
    #[arg(long)]
    prompt: String,
    /// Most tokens to generate (generation also stops at the end-of-sequence token).
    #[arg(long, default_value_t = 64)]
    pub(super) max_tokens: usize,
    /// Wrap the prompt in the model's chat template as a user message.
    #[arg(long)]
    chat: bool,
    /// Print `{"text", "tokens", "stopped"}` as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `bip lm generate` on `device`.
pub(super) fn generate<B: Backend>(
    args: &GenerateArgs,
    device: &B::Device,
    out: &mut Output,
) -> anyhow::Result<ExitCode> {
    let model = load::<B>(&args.model, device)?;
    let prompt = chat_or_plain(&model, &args.prompt, args.chat)?;
    let (generation, text) = model
        .generate(&prompt, args.max_tokens)
        .context("generating")?;
    if args.json {
        let doc = serde_json::json!({
            "text": text,
            "tokens": generation.tokens,
            "stopped": generation.stopped,
        });
        out.print(&format!("{doc}\n"))?;
    } else {
        out.print(&format!("{text}\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}
