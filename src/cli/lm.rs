//! `bip lm`: score text with, generate from and inspect a language model.

use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use bip::models::burn::tensor::backend::Backend;
use bip::models::{
    resolve_model, BackendTask, Device, LanguageModel, LoadOptions, ModelInfo, PrefixCache,
    ScoreOptions, ScoreRequest, DEFAULT_MAX_CONTEXT, MAX_CONTEXT_LIMIT,
};

use super::output::Output;
use super::scoring::ScoringArgs;

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
    /// A GGUF file, a Hugging Face folder, an alias (smollm2-135m, fetched by
    /// scripts/fetch-models.sh), or for `score` a served model (`http://HOST:PORT/v1` or
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
    /// Longest sequence (prompt plus continuation) the model runs on: its own context when
    /// shorter. Rotary tables are built for this many positions (at most 1048576).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONTEXT)]
    max_context: usize,
    #[command(flatten)]
    scoring: ScoringArgs,
}

impl ModelArgs {
    /// The load options of `--max-context`, checked.
    fn load_options(&self) -> anyhow::Result<LoadOptions> {
        max_context(self.max_context)
    }
}

/// `v` as a flag's value is shown in errors: plainly when it reads well that way, in
/// exponent form when it is huge or tiny (`1e308`, not 309 digits).
pub fn number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// `--max-context N` as load options, refused outside 1..=[`MAX_CONTEXT_LIMIT`] (shared
/// by every command that loads a model).
pub fn max_context(n: usize) -> anyhow::Result<LoadOptions> {
    if !(1..=MAX_CONTEXT_LIMIT).contains(&n) {
        bail!("--max-context: {n} is not in 1..={MAX_CONTEXT_LIMIT}");
    }
    Ok(LoadOptions::default().with_max_context(n))
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

/// Runs `bip lm`, its output going to `out`.
pub fn run(args: &LmArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    check(args)?;
    match &args.command {
        LmCommand::Inspect(InspectArgs { model, .. })
        | LmCommand::Generate(GenerateArgs {
            model: ModelArgs { model, .. },
            ..
        }) if ScoringArgs::is_served(model) => {
            bail!("{model}: a served model scores (`bip lm score`); inspect and generate need a model bip loads")
        }
        LmCommand::Inspect(a) => inspect(a, out),
        LmCommand::Score(a) if ScoringArgs::is_served(&a.model.model) => super::lm_remote::score(
            &a.model.scoring,
            &a.model.model,
            a.chat,
            a.json,
            (&a.prompt, &a.continuation),
            out,
        ),
        LmCommand::Score(a) => a.model.device.run(OnModel::Score(a, out))?,
        LmCommand::Generate(a) => a.model.device.run(OnModel::Generate(a, out))?,
    }
}

/// Checks every numeric flag, naming it, before anything is loaded.
fn check(args: &LmArgs) -> anyhow::Result<()> {
    match &args.command {
        LmCommand::Inspect(_) => Ok(()),
        LmCommand::Score(a) => a.model.load_options().map(drop),
        LmCommand::Generate(a) => {
            let options = a.model.load_options()?;
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
            Self::Score(a, out) => score::<B>(a, device, out),
            Self::Generate(a, out) => generate::<B>(a, device, out),
        }
    }
}

fn load<B: Backend>(args: &ModelArgs, device: &B::Device) -> anyhow::Result<LanguageModel<B>> {
    let options = args.load_options()?;
    super::lm_load::load(&args.model, args.adapter.as_deref(), &options, device)
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

fn score<B: Backend>(
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

fn generate<B: Backend>(
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

fn inspect(args: &InspectArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let path = resolve_model(&args.model)?;
    let info = ModelInfo::read(&path).context("reading the model")?;
    if args.json {
        out.json(&info)?;
    } else {
        out.print(&describe(&info))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The human-readable description `inspect` prints.
fn describe(info: &ModelInfo) -> String {
    use std::fmt::Write;
    let c = &info.config;
    let t = &info.tokenizer;
    let mut s = String::new();
    // Writing to a `String` cannot fail.
    let mut line = |text: String| {
        let _ = writeln!(s, "{text}");
    };
    line(format!("model         {}", info.path.display()));
    line(format!("format        {}", info.format));
    if let Some(name) = &info.name {
        line(format!("name          {name}"));
    }
    line(format!("architecture  {}", info.architecture));
    line(format!(
        "parameters    {} ({:.1} M)",
        info.parameters,
        info.parameters as f64 / 1e6
    ));
    line(format!(
        "layers        {} × (hidden {}, ffn {}, heads {} / kv heads {}, head dim {})",
        c.num_layers,
        c.hidden_size,
        c.intermediate_size,
        c.num_heads,
        c.num_kv_heads,
        c.head_dim()
    ));
    let context = if info.declared_context == c.max_seq_len {
        c.max_seq_len.to_string()
    } else {
        format!("{} (declared {})", c.max_seq_len, info.declared_context)
    };
    line(format!(
        "rope theta    {}   rms eps {}   context {context}   tied head {}   qkv bias {}",
        c.rope_theta, c.rms_norm_eps, c.tie_embeddings, c.attention_bias
    ));
    let types: Vec<String> = info
        .tensor_types
        .iter()
        .map(|(k, v)| format!("{k} ×{v}"))
        .collect();
    line(format!("tensors       {}", types.join(", ")));
    if let Some(ft) = &info.file_type {
        line(format!("file type     {ft}"));
    }
    line(format!(
        "tokenizer     {} ({} tokens)",
        t.kind, t.vocab_size
    ));
    let id = |v: Option<u32>| v.map_or("none".to_string(), |v| v.to_string());
    line(format!(
        "special       bos {}  eos {}  adds bos {}  {} special tokens  chat template {}",
        id(t.bos_token),
        id(t.eos_token),
        t.adds_bos,
        t.special_tokens.len(),
        t.chat_template
    ));
    s
}
