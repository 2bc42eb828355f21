//! `bip lm`: score text with, generate from and inspect a language model.

use std::process::ExitCode;

pub(super) mod generate;
pub(super) mod inspect;
pub(super) mod score;
pub(super) mod served;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use bip::models::burn::tensor::backend::Backend;
use bip::models::{BackendTask, Device, Endpoint, LanguageModel};

use crate::cli::output::Output;
use crate::cli::policy::load::LoadArgs;
use generate::GenerateArgs;
use inspect::InspectArgs;
use score::ScoreArgs;

/// Arguments of `bip lm`.
#[derive(Debug, Args)]
pub struct LmArgs {
    #[command(subcommand)]
    command: LmCommand,
}

#[derive(Debug, Subcommand)]
enum LmCommand {
    /// Per-token log-probabilities of a continuation after a prompt.
    Score(ScoreArgs),
    /// Greedy generation after a prompt.
    Generate(GenerateArgs),
    /// Architecture, sizes, tokenizer and quantization of a model (weights not read).
    Inspect(InspectArgs),
}

#[derive(Debug, Args)]
struct ModelArgs {
    /// A GGUF file, a Hugging Face folder, an alias (smollm2-135m, qwen2.5-coder-0.5b,
    /// qwen2.5-coder-1.5b, fetched by scripts/fetch-models.sh), or for `score` a served model (`http://HOST:PORT/v1` or
    /// `URL#NAME`, with --tokenizer).
    #[arg(long)]
    model: String,
    /// Where to run the model: cpu, cuda (the first GPU) or cuda:N.
    #[arg(long, default_value_t = Device::Cpu)]
    device: Device,
    /// A PEFT LoRA adapter folder (adapter_config.json, adapter_model.safetensors) merged
    /// into the model's weights at load.
    #[arg(long, value_name = "DIR")]
    adapter: Option<std::path::PathBuf>,
    #[command(flatten)]
    load: LoadArgs,
}

/// Runs `bip lm`, its output going to `out`.
pub fn run(args: &LmArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    check(args)?;
    match &args.command {
        LmCommand::Inspect(a) if Endpoint::is_endpoint(&a.model) => served::refuse(&a.model),
        LmCommand::Generate(a) if Endpoint::is_endpoint(&a.model.model) => {
            served::refuse(&a.model.model)
        }
        LmCommand::Inspect(a) => inspect::inspect(a, out),
        LmCommand::Score(a) if Endpoint::is_endpoint(&a.model.model) => served::score(a, out),
        LmCommand::Score(a) => a.model.device.run(OnModel::Score(a, out))?,
        LmCommand::Generate(a) => a.model.device.run(OnModel::Generate(a, out))?,
    }
}

/// Checks every numeric flag, naming it, before anything is loaded.
fn check(args: &LmArgs) -> anyhow::Result<()> {
    match &args.command {
        LmCommand::Inspect(_) => Ok(()),
        LmCommand::Score(a) => a.model.load.load_options().map(drop),
        LmCommand::Generate(a) => {
            let options = a.model.load.load_options()?;
            if !(1..=options.max_context).contains(&a.max_tokens) {
                bail!(
                    "--max-tokens: {} is not in 1..={} (--max-context)",
                    a.max_tokens,
                    options.max_context
                );
            }
            Ok(())
        }
    }
}

/// A subcommand that runs a model, for the backend of its `--device`.
enum OnModel<'a> {
    Score(&'a ScoreArgs, &'a mut Output),
    Generate(&'a GenerateArgs, &'a mut Output),
}

impl BackendTask for OnModel<'_> {
    type Output = anyhow::Result<ExitCode>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        match self {
            Self::Score(a, out) => score::score::<B>(a, device, out),
            Self::Generate(a, out) => generate::generate::<B>(a, device, out),
        }
    }
}

/// The model of `--model` (with `--adapter`), within `--max-context`.
fn load<B: Backend>(args: &ModelArgs, device: &B::Device) -> anyhow::Result<LanguageModel<B>> {
    let options = args.load.load_options()?;
    Ok(bip::policy::load_model(
        &args.model,
        args.adapter.as_deref(),
        &options,
        device,
    )?)
}

/// The prompt as given, or wrapped in the model's chat template with `--chat`.
pub(super) fn chat_or_plain<B: Backend>(
    model: &LanguageModel<B>,
    prompt: &str,
    chat: bool,
) -> anyhow::Result<String> {
    if !chat {
        return Ok(prompt.to_string());
    }
    model
        .chat_prompt(prompt)
        .context("--chat: the model has no chat template bip recognises")
}
