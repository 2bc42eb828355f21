//! `bip train`: post-train a LoRA adapter on (prompt, action) pairs.

pub(super) mod progress;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use bip::episodes::limits::number;

use bip::models::burn::tensor::backend::Backend;
use bip::models::train::MAX_EPOCHS;
use bip::models::{
    Autodiff, BackendTask, Device, LoraModule, TrainOptions, TrainRun, DEFAULT_MAX_CONTEXT,
    MAX_LORA_SCALE,
};

use crate::cli::train::progress::{report, ProgressLine};

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
    /// Where to train: cpu, cuda (the first GPU) or cuda:N.
    #[arg(long, default_value_t = Device::Cpu)]
    device: Device,
    /// Longest sequence the base model runs on (its own context when shorter; at most
    /// 1048576): a pair longer than this is refused.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONTEXT)]
    max_context: usize,
}

/// Runs `bip train`.
pub fn run(args: &TrainArgs) -> anyhow::Result<ExitCode> {
    args.device.run(Train(&train_run(args)?))?
}

/// The largest `--rank` taken (the base model may refuse a smaller one that exceeds a
/// layer's width).
const MAX_RANK: usize = 65_536;

/// Checks every numeric flag, naming it with its value and range.
fn check_numbers(args: &TrainArgs) -> anyhow::Result<()> {
    let share = |flag: &str, v: f64, upper_closed: bool| -> anyhow::Result<()> {
        let within = if upper_closed {
            (0.0..=1.0).contains(&v)
        } else {
            (0.0..1.0).contains(&v)
        };
        if !within {
            let close = if upper_closed { ']' } else { ')' };
            bail!("{flag}: {} is not a number in [0, 1{close}", number(v));
        }
        Ok(())
    };
    share("--validation-fraction", args.validation_fraction, false)?;
    share("--warmup", args.warmup, false)?;
    share("--weight-decay", args.weight_decay, true)?;
    let count = |flag: &str, v: usize, max: usize| -> anyhow::Result<()> {
        if !(1..=max).contains(&v) {
            bail!("{flag}: {v} is not in 1..={max}");
        }
        Ok(())
    };
    count("--rank", args.rank, MAX_RANK)?;
    count("--epochs", args.epochs, MAX_EPOCHS)?;
    count("--batch", args.batch, usize::MAX)?;
    if let Some(limit) = args.limit {
        count("--limit", limit, usize::MAX)?;
    }
    if !(args.lr.is_finite() && args.lr > 0.0 && args.lr <= 1.0) {
        bail!("--lr: {} is not a number in (0, 1]", number(args.lr));
    }
    let scale = args.alpha / args.rank as f64;
    if !(scale.is_finite() && scale.abs() <= MAX_LORA_SCALE) {
        bail!(
            "--alpha: {} over --rank {} scales updates by {}, beyond ±{MAX_LORA_SCALE}",
            number(args.alpha),
            args.rank,
            number(scale)
        );
    }
    crate::cli::policy::load::max_context(args.max_context).map(drop)
}

/// The run the flags describe, checked.
fn train_run(args: &TrainArgs) -> anyhow::Result<TrainRun> {
    check_numbers(args)?;
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
    Ok(TrainRun {
        base: args.base.clone(),
        data: args.data.clone(),
        validation: args.validation.clone(),
        validation_fraction: args.validation_fraction,
        limit: args.limit,
        options: TrainOptions {
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
        },
        out: args.out.clone(),
        load: crate::cli::policy::load::max_context(args.max_context)?,
    })
}

/// A run on the backend of `--device`.
struct Train<'a>(&'a TrainRun);

impl BackendTask for Train<'_> {
    type Output = anyhow::Result<ExitCode>;

    fn run<B: Backend>(self, device: &B::Device) -> Self::Output {
        let mut progress = ProgressLine::new();
        let summary = self.0.run::<Autodiff<B>>(device, &mut |p| progress.show(p));
        progress.finish();
        report(self.0, &summary?);
        Ok(ExitCode::SUCCESS)
    }
}
