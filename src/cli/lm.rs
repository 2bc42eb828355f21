//! `bip lm`: score text with, generate from and inspect a language model.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use bip::models::burn::tensor::backend::Backend;
use bip::models::{
    resolve_model, BackendTask, Device, LanguageModel, ModelInfo, PrefixCache, ScoreOptions,
    ScoreRequest,
};

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
    /// A GGUF file, a Hugging Face folder, or an alias (smollm2-135m, fetched by
    /// scripts/fetch-models.sh).
    #[arg(long)]
    model: String,
    /// Where to run the model: cpu, cuda (the first GPU) or cuda:N.
    #[arg(long, default_value_t = Device::Cpu)]
    device: Device,
    /// A PEFT LoRA adapter folder (adapter_config.json, adapter_model.safetensors) merged
    /// into the model's weights at load.
    #[arg(long, value_name = "DIR")]
    adapter: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
struct ScoreArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Text before the continuation.
    #[arg(long)]
    prompt: String,
    /// Text whose tokens are scored.
    #[arg(long)]
    continuation: String,
    /// Wrap the prompt in the model's chat template as a user message.
    #[arg(long)]
    chat: bool,
    /// Print `{"tokens", "token_ids", "logprobs", "total"}` as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct GenerateArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Text to continue.
    #[arg(long)]
    prompt: String,
    /// Most tokens to generate (generation also stops at the end-of-sequence token).
    #[arg(long, default_value_t = 64)]
    max_tokens: usize,
    /// Wrap the prompt in the model's chat template as a user message.
    #[arg(long)]
    chat: bool,
    /// Print `{"text", "tokens", "stopped"}` as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct InspectArgs {
    /// A GGUF file, a Hugging Face folder, or an alias (smollm2-135m).
    #[arg(long)]
    model: String,
    /// Print the description as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `bip lm`.
pub fn run(args: &LmArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        LmCommand::Inspect(a) => inspect(a),
        LmCommand::Score(a) => a.model.device.run(OnModel::Score(a))?,
        LmCommand::Generate(a) => a.model.device.run(OnModel::Generate(a))?,
    }
}

/// A subcommand that runs a model, for the backend of its `--device`.
enum OnModel<'a> {
    Score(&'a ScoreArgs),
    Generate(&'a GenerateArgs),
}

impl BackendTask for OnModel<'_> {
    type Output = anyhow::Result<ExitCode>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        match self {
            Self::Score(a) => score::<B>(a, device),
            Self::Generate(a) => generate::<B>(a, device),
        }
    }
}

fn load<B: Backend>(args: &ModelArgs, device: &B::Device) -> anyhow::Result<LanguageModel<B>> {
    Ok(bip::policy::load_model(
        &args.model,
        args.adapter.as_deref(),
        device,
    )?)
}

fn chat_or_plain<B: Backend>(
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

fn score<B: Backend>(args: &ScoreArgs, device: &B::Device) -> anyhow::Result<ExitCode> {
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
    if args.json {
        let doc = serde_json::json!({
            "tokens": texts,
            "token_ids": scored.tokens,
            "logprobs": scored.logprobs,
            "total": scored.total(),
        });
        println!("{doc}");
    } else {
        println!("{:>8}  {:>10}  token", "id", "logprob");
        for ((text, id), lp) in texts.iter().zip(&scored.tokens).zip(&scored.logprobs) {
            println!("{id:>8}  {lp:>10.4}  {text:?}");
        }
        let mean = scored.mean().unwrap_or(0.0);
        println!(
            "total {:.4} over {} tokens (mean {mean:.4})",
            scored.total(),
            scored.tokens.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn generate<B: Backend>(args: &GenerateArgs, device: &B::Device) -> anyhow::Result<ExitCode> {
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
        println!("{doc}");
    } else {
        println!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

fn inspect(args: &InspectArgs) -> anyhow::Result<ExitCode> {
    let path = resolve_model(&args.model)?;
    let info =
        ModelInfo::read(&path).with_context(|| format!("reading model {}", path.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(ExitCode::SUCCESS);
    }
    let c = &info.config;
    let t = &info.tokenizer;
    println!("model         {}", info.path.display());
    println!("format        {}", info.format);
    if let Some(name) = &info.name {
        println!("name          {name}");
    }
    println!("architecture  {}", info.architecture);
    println!(
        "parameters    {} ({:.1} M)",
        info.parameters,
        info.parameters as f64 / 1e6
    );
    println!(
        "layers        {} × (hidden {}, ffn {}, heads {} / kv heads {}, head dim {})",
        c.num_layers,
        c.hidden_size,
        c.intermediate_size,
        c.num_heads,
        c.num_kv_heads,
        c.head_dim()
    );
    println!(
        "rope theta    {}   rms eps {}   context {}   tied head {}   qkv bias {}",
        c.rope_theta, c.rms_norm_eps, c.max_seq_len, c.tie_embeddings, c.attention_bias
    );
    let types: Vec<String> = info
        .tensor_types
        .iter()
        .map(|(k, v)| format!("{k} ×{v}"))
        .collect();
    println!("tensors       {}", types.join(", "));
    if let Some(ft) = &info.file_type {
        println!("file type     {ft}");
    }
    println!("tokenizer     {} ({} tokens)", t.kind, t.vocab_size);
    let id = |v: Option<u32>| v.map_or("none".to_string(), |v| v.to_string());
    println!(
        "special       bos {}  eos {}  adds bos {}  {} special tokens  chat template {}",
        id(t.bos_token),
        id(t.eos_token),
        t.adds_bos,
        t.special_tokens.len(),
        t.chat_template
    );
    Ok(ExitCode::SUCCESS)
}
