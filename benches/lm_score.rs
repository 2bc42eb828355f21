//! Language-model throughput on SmolLM2-135M-Instruct (Q4_1 GGUF, dequantized to f32):
//! prefill, and scoring 32 continuations of ~10 tokens after a 300-token prompt with and
//! without the shared-prefix cache. The continuations are an action menu (distinct
//! actions that share verbs, as an agent's candidate actions do), which the scorer's token
//! trees compute once per shared beginning; the same menu with a distinct first token on
//! every action measures the rate when nothing is shared. Prints figures; asserts nothing.
//!
//! `scripts/fetch-models.sh && cargo bench --bench lm_score` (`BIP_BENCH_REPEATS=N` sets
//! the repetitions, best of which is reported; default 3). `BIP_BENCH_MODEL` runs another
//! model (a path or an alias: `qwen2.5-coder-1.5b`), `BIP_BENCH_WEIGHTS=f16` or `int8` holds
//! its weights so, and `BIP_BENCH_UNCACHED=0` skips scoring without the prefix cache (32
//! re-reads of the prompt: minutes on a 1.5B model).
//!
//! Then the same token ids run through llama.cpp (llama-cpp-python, from the environment
//! `scripts/llama-env.sh` makes; skipped, saying so, when it is absent) and the bench
//! prints bip's speed over llama.cpp's for the prefill with logits at every position,
//! scoring with nothing shared after the cached prompt, and scoring the action menu
//! (whose shared beginnings bip computes once and llama.cpp once per continuation).
//! Measure on an idle machine: llama.cpp's threads spin while they wait for each other,
//! and lose far more than bip when other work takes their cores.

mod llama_column;

use std::path::Path;
use std::time::{Duration, Instant};

use bip::models::backend::Cpu;
use bip::models::{
    resolve_model, LanguageModel, LoadOptions, PrefixCache, ScoreOptions, TokenRequest,
    WeightStorage,
};

const PREFIX_TOKENS: usize = 300;
const CONTINUATIONS: usize = 32;

fn main() {
    let env = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let weights: WeightStorage = match env("BIP_BENCH_WEIGHTS", "f32").parse() {
        Ok(w) => w,
        Err(e) => {
            eprintln!("lm_score: BIP_BENCH_WEIGHTS: {e}");
            std::process::exit(2);
        }
    };
    let uncached = env("BIP_BENCH_UNCACHED", "1") != "0";
    let path = match resolve_model(&env("BIP_BENCH_MODEL", "smollm2-135m")) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("lm_score: {e}");
            std::process::exit(2);
        }
    };
    let repeats: usize = std::env::var("BIP_BENCH_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "model {} ({weights} weights) on {threads} threads, best of {repeats}",
        path.display()
    );

    let start = Instant::now();
    let load = LoadOptions::default().with_weights(weights);
    let model = LanguageModel::<Cpu>::load_with(&path, None, &load, &Default::default())
        .expect("model loads");
    println!(
        "load (read + dequantize + build): {:.2} s",
        start.elapsed().as_secs_f64()
    );

    let (prefix, continuations) = workload(&model);
    let n_cont: usize = continuations.iter().map(Vec::len).sum();
    println!(
        "workload: {}-token prefix, {} continuations of {:.1} tokens on average ({n_cont} scored tokens)",
        prefix.len(),
        continuations.len(),
        n_cont as f64 / continuations.len() as f64
    );
    let options = ScoreOptions::default();

    // Prefill: every prefix position scored (logits at every position).
    let prefill = best(repeats, || {
        let req = [TokenRequest {
            prompt: &prefix[..1],
            continuation: &prefix[1..],
        }];
        model
            .score_tokens(&mut PrefixCache::default(), &req, &options)
            .expect("scores");
    });
    report(
        "prefill, logits at every position",
        prefix.len() - 1,
        prefill,
    );

    // Prefill without the head: the prefix cache's own work.
    let t = best(repeats, || {
        let mut cache = PrefixCache::default();
        let req = [TokenRequest {
            prompt: &prefix,
            continuation: &[],
        }];
        model
            .score_tokens(&mut cache, &req, &options)
            .expect("scores");
    });
    report(
        "prefill, no logits (prefix cache fill)",
        prefix.len() - 1,
        t,
    );

    let requests: Vec<TokenRequest<'_>> = continuations
        .iter()
        .map(|c| TokenRequest {
            prompt: &prefix,
            continuation: c,
        })
        .collect();

    // No prefix cache: every continuation re-reads the prompt.
    let no_cache = uncached.then(|| {
        let t = once(|| {
            for r in &requests {
                model
                    .score_tokens(&mut PrefixCache::default(), &[*r], &options)
                    .expect("scores");
            }
        });
        report(
            "scoring, no prefix cache (prompt re-read per continuation)",
            n_cont,
            t,
        );
        t
    });

    // One call, cold cache: the prompt is computed once for all 32.
    let cold = best(repeats, || {
        model
            .score_tokens(&mut PrefixCache::default(), &requests, &options)
            .expect("scores");
    });
    report("scoring, one batched call, cold prefix cache", n_cont, cold);

    // Warm cache: the prompt was cached by an earlier call (the engine's steady state).
    let mut cache = PrefixCache::default();
    model
        .score_tokens(&mut cache, &requests[..1], &options)
        .expect("scores");
    let before = cache.stats().suffix_tokens;
    let warm = best(repeats, || {
        model
            .score_tokens(&mut cache, &requests, &options)
            .expect("scores");
    });
    let menu_positions = (cache.stats().suffix_tokens - before) / (repeats.max(1) as u64 + 1);
    report("scoring, one batched call, warm prefix cache", n_cont, warm);

    let full = ScoreOptions {
        full_logits: true,
        ..options
    };
    let warm_logits = best(repeats, || {
        model
            .score_tokens(&mut cache, &requests, &full)
            .expect("scores");
    });
    report(
        "scoring, warm prefix cache, full-vocabulary logits returned",
        n_cont,
        warm_logits,
    );

    if let Some(no_cache) = no_cache {
        println!(
            "prefix-cache speed-up: {:.1}x cold, {:.1}x warm (against no cache)",
            no_cache.as_secs_f64() / cold.as_secs_f64(),
            no_cache.as_secs_f64() / warm.as_secs_f64()
        );
    }

    // Nothing shared after the prompt: a distinct first token on every continuation.
    let unshared: Vec<Vec<u32>> = continuations
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let mut t = vec![1000 + k as u32];
            t.extend(c);
            t
        })
        .collect();
    let n_unshared: usize = unshared.iter().map(Vec::len).sum();
    let requests: Vec<TokenRequest<'_>> = unshared
        .iter()
        .map(|c| TokenRequest {
            prompt: &prefix,
            continuation: c,
        })
        .collect();
    let computed = cache.stats().suffix_tokens;
    let warm_unshared = best(repeats, || {
        model
            .score_tokens(&mut cache, &requests, &options)
            .expect("scores");
    });
    report(
        "scoring, warm prefix cache, no shared beginnings",
        n_unshared,
        warm_unshared,
    );
    println!(
        "positions computed per call: {} for the action menu ({n_cont} scored), {} with no shared beginnings ({n_unshared} scored)",
        menu_positions,
        (cache.stats().suffix_tokens - computed) / (repeats.max(1) as u64 + 1),
    );
    let work = llama_column::Workload {
        prefix: &prefix,
        menu: &continuations,
        unshared: &unshared,
        repeats,
        threads,
    };
    let ours = [
        (
            "prefill, logits at every position",
            prefill,
            prefix.len() - 1,
        ),
        ("scoring, no shared beginnings", warm_unshared, n_unshared),
        ("scoring, the action menu", warm, n_cont),
    ];
    compare_with_llama(&path, &work, &ours);
    if let Some(kb) = peak_rss_kb() {
        println!("peak resident memory: {:.0} MiB", kb as f64 / 1024.0);
    }
}

/// Runs llama.cpp on `work` and prints bip's speed over it for each of `ours` (name,
/// bip's time, tokens), in the order prefill, unshared, menu.
fn compare_with_llama(
    model: &Path,
    work: &llama_column::Workload<'_>,
    ours: &[(&str, Duration, usize); 3],
) {
    match llama_column::run(model, work) {
        Ok(llama) => {
            println!(
                "llama.cpp (llama-cpp-python {}, {} threads, the same token ids):",
                llama.version, work.threads
            );
            let theirs = [llama.prefill, llama.unshared, llama.menu];
            for ((what, t, tokens), secs) in ours.iter().zip(theirs) {
                let (bip_rate, llama_rate) =
                    (*tokens as f64 / t.as_secs_f64(), *tokens as f64 / secs);
                println!(
                    "  {what}: llama.cpp {llama_rate:.0} tokens/s, bip {bip_rate:.0}: bip / llama.cpp = {:.2}",
                    bip_rate / llama_rate
                );
            }
        }
        Err(why) => println!("llama.cpp column skipped: {why}"),
    }
}

/// A 300-token prompt in the style of an LM policy's, and 32 distinct action continuations.
fn workload(model: &LanguageModel<Cpu>) -> (Vec<u32>, Vec<Vec<u32>>) {
    let rooms = ["kitchen", "living room", "bedroom", "bathroom"];
    let things = [
        "fridge",
        "microwave",
        "cabinet",
        "dishwasher",
        "sofa",
        "coffee table",
        "desk",
        "bookshelf",
    ];
    let mut text = String::from("What's inside the apartment: ");
    let mut i = 0;
    while model.tokenizer().encode(&text).expect("encodes").len() < PREFIX_TOKENS + 20 {
        let (r, t) = (rooms[i % rooms.len()], things[(i * 3) % things.len()]);
        text.push_str(&format!(
            "The {r} has a {t} number {i}; inside it there are {} plates and a wine glass. ",
            i % 5 + 1
        ));
        i += 1;
    }
    text.push_str("\nGoal: get a cupcake.\nBelief: the cupcake is in the fridge.\nAction:");
    let mut prefix = model.tokenizer().encode(&text).expect("encodes");
    let tail = prefix.split_off(prefix.len() - 20);
    prefix.truncate(PREFIX_TOKENS - tail.len());
    prefix.extend(tail);
    let continuations = (0..CONTINUATIONS)
        .map(|k| {
            let (r, t) = (rooms[k % rooms.len()], things[k / rooms.len()]);
            let action = if k % 2 == 0 {
                format!(" walk to the {r} and open the {t}")
            } else {
                format!(" grab the wine glass from the {t} in the {r}")
            };
            model.tokenizer().encode(&action).expect("encodes")
        })
        .collect();
    (prefix, continuations)
}

/// The time of one run of `f` (for the slow no-cache case, run after the warm-ups of the
/// prefill measurements).
fn once(mut f: impl FnMut()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// The shortest of `repeats` runs of `f` (after one warm-up run).
fn best(repeats: usize, mut f: impl FnMut()) -> Duration {
    f();
    (0..repeats.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn report(what: &str, tokens: usize, t: Duration) {
    println!(
        "{what}: {tokens} tokens in {:.3} s = {:.0} tokens/s",
        t.as_secs_f64(),
        tokens as f64 / t.as_secs_f64()
    );
}

/// Peak resident set size of this process (Linux), in KiB.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
