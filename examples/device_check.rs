//! The CUDA backend against the CPU on the same weights, at real models' shapes: seeded
//! random weights (so no model file has to reach the GPU machine) at the shape of
//! SmolLM2-135M or Qwen2.5-Coder-1.5B, built on each device; the same token ids scored on
//! both, per-token log-probabilities compared, and each side timed.
//!
//! ```sh
//! cargo run --release --features cuda --example device_check -- qwen1.5b cuda
//! cargo run --example device_check -- smollm2 cpu      # the CPU half alone (CI runs it)
//! ```
//!
//! Arguments: the shape (`smollm2` or `qwen1.5b`) and the device to compare with the CPU
//! (`cuda`, `cuda:N`, or `cpu` for the CPU half alone). Exits 1 when the two sides differ
//! by more than [`TOLERANCE`] nats on a token, or a log-probability is not a finite
//! negative number; 2 on bad arguments or a device this build cannot run.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use bip::models::burn::tensor::backend::Backend;
use bip::models::{
    score_tokens, BackendTask, Device, LlamaConfig, PrefixCache, ScoreOptions, TokenRequest,
};

/// Largest per-token difference allowed between the device's log-probabilities and the
/// CPU's: both compute in f32, in different orders.
const TOLERANCE: f64 = 5e-3;
/// Seed of the weights and of the token ids.
const SEED: u64 = 7;
/// Prompt and continuation lengths: a step's prompt and a few actions' worth of tokens.
const PROMPT: usize = 200;
const CONTINUATION: usize = 56;

/// The sizes of the model named `shape`.
fn config(shape: &str) -> Option<LlamaConfig> {
    match shape {
        "smollm2" => Some(LlamaConfig::smollm2_135m().with_max_seq_len(1024)),
        // Qwen2.5-Coder-1.5B-Instruct: 28 layers of width 1536, 12 query heads over 2
        // key/value heads, QKV biases, a tied head over 151,936 tokens.
        "qwen1.5b" => Some(
            LlamaConfig::new(151_936, 1536, 8960, 28, 12, 2)
                .with_rope_theta(1_000_000.0)
                .with_rms_norm_eps(1e-6)
                .with_attention_bias(true)
                .with_max_seq_len(1024),
        ),
        _ => None,
    }
}

/// Token ids below `vocab`, from a fixed linear congruential sequence.
fn token_ids(vocab: usize, n: usize) -> Vec<u32> {
    let mut state = SEED;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            u32::try_from((state >> 33) % vocab as u64).expect("ids below the vocabulary fit u32")
        })
        .collect()
}

/// What one side measured.
struct Side {
    logprobs: Vec<f32>,
    build: Duration,
    /// The first scoring pass (kernels compiled and tuned on a GPU).
    first: Duration,
    /// The best of three passes after it.
    best: Duration,
}

/// Builds the model on a device and scores the continuation after the prompt.
struct Score<'a> {
    config: &'a LlamaConfig,
    ids: &'a [u32],
}

impl BackendTask for Score<'_> {
    type Output = Side;

    fn run<B: Backend>(self, device: &B::Device) -> Side {
        let start = Instant::now();
        let model = self.config.init_with_seed::<B>(SEED, device);
        let build = start.elapsed();
        let (prompt, continuation) = self.ids.split_at(PROMPT);
        let request = [TokenRequest {
            prompt,
            continuation,
        }];
        let pass = || {
            let start = Instant::now();
            // A fresh cache each time: every pass computes the whole sequence.
            let scored = score_tokens(
                &model,
                &mut PrefixCache::default(),
                &request,
                &ScoreOptions::default(),
            )
            .expect("random weights score");
            (
                scored.into_iter().next().expect("one request").logprobs,
                start.elapsed(),
            )
        };
        let (logprobs, first) = pass();
        let best = (0..3).map(|_| pass().1).min().unwrap_or(first);
        Side {
            logprobs,
            build,
            first,
            best,
        }
    }
}

/// Nothing, on a device: whether this build can run it.
struct Probe;

impl BackendTask for Probe {
    type Output = ();

    fn run<B: Backend>(self, _device: &B::Device) {}
}

fn report(name: &str, side: &Side) {
    let tokens = (PROMPT + CONTINUATION) as f64;
    println!(
        "{name}: built in {:.2} s; first pass {:.3} s; best of 3 {:.3} s ({:.0} tokens/s)",
        side.build.as_secs_f64(),
        side.first.as_secs_f64(),
        side.best.as_secs_f64(),
        tokens / side.best.as_secs_f64()
    );
}

/// Whether `logprobs` holds one finite negative number per scored token; says why not.
fn plausible(name: &str, logprobs: &[f32]) -> bool {
    let bad = logprobs
        .iter()
        .filter(|x| !(x.is_finite() && **x < 0.0))
        .count();
    let ok = bad == 0 && logprobs.len() == CONTINUATION;
    if !ok {
        eprintln!(
            "device_check: {name} gave {} log-probabilities for {CONTINUATION} tokens, {bad} \
             of them not finite and negative",
            logprobs.len()
        );
    }
    ok
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(shape), Some(device)) = (args.first(), args.get(1)) else {
        eprintln!("usage: device_check smollm2|qwen1.5b cpu|cuda|cuda:N");
        return ExitCode::from(2);
    };
    let Some(config) = config(shape) else {
        eprintln!("device_check: unknown shape `{shape}` (smollm2, qwen1.5b)");
        return ExitCode::from(2);
    };
    let device: Device = match device.parse() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("device_check: {e}");
            return ExitCode::from(2);
        }
    };
    // A device this build cannot run is named before the CPU half's minutes are spent.
    if let Err(e) = device.run(Probe) {
        eprintln!("device_check: {e}");
        return ExitCode::from(2);
    }
    let ids = token_ids(config.vocab_size, PROMPT + CONTINUATION);
    println!(
        "device_check: {shape} ({} parameters), {PROMPT} prompt + {CONTINUATION} scored tokens, seed {SEED}",
        config.num_parameters()
    );
    let task = || Score {
        config: &config,
        ids: &ids,
    };
    let cpu = match Device::Cpu.run(task()) {
        Ok(side) => side,
        Err(e) => {
            eprintln!("device_check: {e}");
            return ExitCode::from(2);
        }
    };
    report("cpu", &cpu);
    if !plausible("cpu", &cpu.logprobs) {
        return ExitCode::from(1);
    }
    if device == Device::Cpu {
        println!("device_check: the CPU half only (name a CUDA device to compare)");
        return ExitCode::SUCCESS;
    }
    let other = match device.run(task()) {
        Ok(side) => side,
        Err(e) => {
            eprintln!("device_check: {e}");
            return ExitCode::from(2);
        }
    };
    report(&device.to_string(), &other);
    if !plausible(&device.to_string(), &other.logprobs) {
        return ExitCode::from(1);
    }
    let diffs: Vec<f64> = cpu
        .logprobs
        .iter()
        .zip(&other.logprobs)
        .map(|(a, b)| (f64::from(*a) - f64::from(*b)).abs())
        .collect();
    let mean = diffs.iter().sum::<f64>() / diffs.len().max(1) as f64;
    let max = diffs.iter().copied().fold(0.0, f64::max);
    println!(
        "{device} vs cpu: mean |Δ| {mean:.2e}, largest {max:.2e} nats per token (allowed {TOLERANCE:.0e}); \
         {device} is {:.1}× the CPU's rate",
        cpu.best.as_secs_f64() / other.best.as_secs_f64()
    );
    if max <= TOLERANCE {
        ExitCode::SUCCESS
    } else {
        eprintln!("device_check: {device} and the CPU disagree");
        ExitCode::from(1)
    }
}
