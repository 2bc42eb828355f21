//! `bip train`: post-train a LoRA adapter on (prompt, action) pairs.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;

use bip::io::write_atomically;
use bip::models::backend::Cpu;
use bip::models::burn::tensor::backend::Backend;
use bip::models::lora::ADAPTER_WEIGHTS;
use bip::models::train::split_indices;
use bip::models::{
    resolve_model, Autodiff, LoraModule, LoraTrainer, TextPair, TrainEvent, TrainOptions,
};

use super::lm_load::Device;

/// The training log written into the output folder.
const LOG: &str = "training_log.jsonl";

/// Arguments of `bip train`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Base model: a GGUF file, a Hugging Face folder, or an alias (`smollm2-135m`).
    #[arg(long)]
    base: String,
    /// Training pairs, JSON lines `{"prompt": ..., "action": ...}` (from
    /// `bip generate --training-pairs`).
    #[arg(long, value_name = "FILE.jsonl")]
    data: PathBuf,
    /// Validation pairs; without it, `--validation-fraction` of `--data` is held out.
    #[arg(long, value_name = "FILE.jsonl")]
    validation: Option<PathBuf>,
    /// Share of `--data` held out for validation when no `--validation` file is given
    /// (0: none; the last epoch is kept).
    #[arg(long, default_value_t = 0.1)]
    validation_fraction: f64,
    /// Train on at most this many pairs (after the validation split).
    #[arg(long)]
    limit: Option<usize>,
    /// LoRA rank.
    #[arg(long, default_value_t = 8)]
    rank: usize,
    /// LoRA alpha (updates are scaled by alpha / rank).
    #[arg(long, default_value_t = 16.0)]
    alpha: f64,
    /// Peak learning rate (AdamW, linear warm-up then cosine decay).
    #[arg(long, default_value_t = 2e-4)]
    lr: f64,
    /// Passes over the training pairs; the epoch with the lowest validation loss is kept.
    #[arg(long, default_value_t = 1)]
    epochs: usize,
    /// Pairs per optimiser step.
    #[arg(long, default_value_t = 8)]
    batch: usize,
    /// Modules adapted in every layer.
    #[arg(long, value_delimiter = ',', default_value = "q,k,v,o,gate,up,down")]
    targets: Vec<String>,
    /// Share of the steps spent warming up.
    #[arg(long, default_value_t = 0.1)]
    warmup: f64,
    /// AdamW's decoupled weight decay.
    #[arg(long, default_value_t = 0.01)]
    weight_decay: f64,
    /// Seed of the initialisation, the validation split and the example order.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output folder: a PEFT adapter (`adapter_config.json`, `adapter_model.safetensors`)
    /// and `training_log.jsonl`.
    #[arg(long)]
    out: PathBuf,
    /// Where to train.
    #[arg(long, value_enum, default_value = "cpu")]
    device: Device,
}

/// Runs `bip train`.
pub fn run(args: &TrainArgs) -> anyhow::Result<ExitCode> {
    let options = options(args)?;
    match args.device {
        Device::Cpu => train::<Cpu>(args, &options, &Default::default()),
        Device::Cuda => {
            #[cfg(feature = "cuda")]
            return train::<bip::models::backend::Cuda>(args, &options, &Default::default());
            #[cfg(not(feature = "cuda"))]
            Err(super::lm_load::no_cuda())
        }
    }
}

/// The run's hyper-parameters, checked.
fn options(args: &TrainArgs) -> anyhow::Result<TrainOptions> {
    if !(0.0..1.0).contains(&args.validation_fraction) {
        bail!(
            "--validation-fraction: {} is not a share in [0, 1)",
            args.validation_fraction
        );
    }
    if args.rank == 0 || args.epochs == 0 || args.batch == 0 {
        bail!("--rank, --epochs and --batch must be at least 1");
    }
    if !(args.lr.is_finite() && args.lr > 0.0) {
        bail!("--lr: {} is not a positive number", args.lr);
    }
    if !(0.0..1.0).contains(&args.warmup) {
        bail!("--warmup: {} is not a share in [0, 1)", args.warmup);
    }
    let targets = args
        .targets
        .iter()
        .map(|t| {
            let t = t.trim();
            LoraModule::from_peft_name(t)
                .or_else(|| LoraModule::from_peft_name(&format!("{t}_proj")))
                .with_context(|| {
                    format!("--targets: unknown module \"{t}\" (q, k, v, o, gate, up, down)")
                })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(TrainOptions {
        rank: args.rank,
        alpha: args.alpha,
        targets,
        learning_rate: args.lr,
        epochs: args.epochs,
        batch_size: args.batch,
        warmup: args.warmup,
        weight_decay: args.weight_decay,
        seed: args.seed,
        ..TrainOptions::default()
    })
}

fn train<B: Backend>(
    args: &TrainArgs,
    options: &TrainOptions,
    device: &B::Device,
) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let data = TextPair::read_jsonl(&args.data)?;
    let (mut train_pairs, validation_pairs) = match &args.validation {
        Some(path) => (data, TextPair::read_jsonl(path)?),
        None => {
            let (train, held) = split_indices(data.len(), args.validation_fraction, args.seed);
            let pick = |ix: &[usize]| ix.iter().map(|&i| data[i].clone()).collect::<Vec<_>>();
            (pick(&train), pick(&held))
        }
    };
    if let Some(limit) = args.limit {
        train_pairs.truncate(limit.max(1));
    }
    let path = resolve_model(&args.base)?;
    let trainer = LoraTrainer::<Autodiff<B>>::load(&path, device)
        .with_context(|| format!("loading base model {}", path.display()))?;
    let train_set = trainer
        .encode(&train_pairs)
        .with_context(|| format!("tokenizing the training pairs of {}", args.data.display()))?;
    let validation_set = trainer
        .encode(&validation_pairs)
        .context("tokenizing the validation pairs")?;
    let tokens: usize = train_set.iter().map(|e| e.tokens.len()).sum();
    eprintln!(
        "bip: training a rank-{} LoRA adapter on {} on {} pairs ({tokens} tokens), validating on {}",
        options.rank,
        path.display(),
        train_set.len(),
        validation_set.len()
    );
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let log_path = args.out.join(LOG);
    let mut log = vec![serde_json::json!({
        "event": "config",
        "base": path.display().to_string(),
        "data": args.data.display().to_string(),
        "train_pairs": train_set.len(),
        "validation_pairs": validation_set.len(),
        "rank": options.rank,
        "alpha": options.alpha,
        "learning_rate": options.learning_rate,
        "epochs": options.epochs,
        "batch": options.batch_size,
        "targets": options.targets.iter().map(|m| m.peft_name()).collect::<Vec<_>>(),
        "warmup": options.warmup,
        "weight_decay": options.weight_decay,
        "seed": options.seed,
    })
    .to_string()];
    let mut progress = ProgressLine::new();
    let mut log_error = None;
    let outcome = trainer.train(&train_set, &validation_set, options, &mut |event| {
        progress.show(event);
        if let Ok(line) = serde_json::to_string(event) {
            log.push(line);
        }
        // The log is rewritten whole after each epoch, so that it is never half a line.
        if matches!(event, TrainEvent::Epoch { .. }) {
            if let Err(e) = write_log(&log_path, &log) {
                log_error.get_or_insert(e);
            }
        }
    })?;
    progress.finish();
    if let Some(e) = log_error {
        return Err(e);
    }
    outcome
        .adapter
        .save(&args.out)
        .with_context(|| format!("writing the adapter to {}", args.out.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    log.push(
        serde_json::json!({
            "event": "done",
            "steps": outcome.steps,
            "best_epoch": outcome.best_epoch,
            "base_validation_loss": outcome.base_validation_loss,
            "best_validation_loss": outcome.best_validation_loss,
            "seconds": seconds,
        })
        .to_string(),
    );
    write_log(&log_path, &log)?;
    match (outcome.base_validation_loss, outcome.best_validation_loss) {
        (Some(base), Some(best)) => eprintln!(
            "bip: {} steps in {seconds:.0}s; validation loss {base:.4} (base) -> {best:.4} (epoch {})",
            outcome.steps, outcome.best_epoch
        ),
        _ => eprintln!("bip: {} steps in {seconds:.0}s", outcome.steps),
    }
    eprintln!(
        "bip: wrote the adapter ({}) and {LOG} to {}",
        ADAPTER_WEIGHTS,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn write_log(path: &Path, lines: &[String]) -> anyhow::Result<()> {
    let mut text = lines.join("\n");
    text.push('\n');
    write_atomically(path, text.as_bytes())?;
    Ok(())
}

/// A one-line progress display with the loss, on standard error, only on a terminal.
struct ProgressLine {
    visible: bool,
    drawn: bool,
}

impl ProgressLine {
    fn new() -> Self {
        Self {
            visible: std::io::stderr().is_terminal(),
            drawn: false,
        }
    }

    fn show(&mut self, event: &TrainEvent) {
        if !self.visible {
            return;
        }
        let mut err = std::io::stderr().lock();
        match event {
            TrainEvent::Step {
                epoch,
                step,
                total_steps,
                loss,
                learning_rate,
                seconds,
                ..
            } => {
                let eta = seconds / *step as f64 * (total_steps - step) as f64;
                let _ = write!(
                    err,
                    "\rtrain epoch {epoch} step {step}/{total_steps} loss {loss:.4} lr {learning_rate:.2e} ({seconds:.0}s, ETA {eta:.0}s)  "
                );
                self.drawn = true;
            }
            TrainEvent::Epoch {
                epoch,
                validation_loss: Some(v),
                best,
                ..
            } => {
                let mark = if *best { " (best)" } else { "" };
                let _ = writeln!(
                    err,
                    "\repoch {epoch}: validation loss {v:.4}{mark}{:40}",
                    ""
                );
                self.drawn = false;
            }
            _ => {}
        }
    }

    fn finish(&mut self) {
        if self.visible && self.drawn {
            let _ = writeln!(std::io::stderr());
        }
    }
}
