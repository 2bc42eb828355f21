//! The LM, weak-to-strong and hybrid policies on the real SmolLM2-135M-Instruct
//! (`scripts/fetch-models.sh` fetches it; the test suite runs that first).

use std::sync::Arc;

use bip::cached::CachedScorer;
use bip::engine::{
    infer_episode, Answer, BatchOptions, LmPolicy, Pruning, TextScorer, DEFAULT_BETA,
};
use bip::episodes::Episode;
use bip::models::backend::Cpu;
use bip::models::{
    resolve_model, LanguageModel, LlamaConfig, LoraAdapter, LoraConfig, WeakToStrong,
};
use bip::scorer::{ModelScorer, W2sScorer};

use crate::util::{bip, examples, json, posteriors, write_hf_weights, write_tokenizer, TempDir};

fn smollm2() -> std::path::PathBuf {
    resolve_model("smollm2-135m").unwrap_or_else(|e| {
        panic!("{e}\n(the LM tests need the real model: run scripts/fetch-models.sh)")
    })
}

fn example_file(name: &str) -> std::path::PathBuf {
    examples()
        .into_iter()
        .find(|p| p.ends_with(name))
        .unwrap_or_else(|| panic!("no shipped example {name}"))
}

fn example(name: &str) -> Episode {
    bip::io::read_episode(&example_file(name)).expect("example reads")
}

/// The sum of a question's posterior over its options (`infer --json`).
fn posterior_total(question: &serde_json::Value) -> f64 {
    question["posterior"]
        .as_object()
        .expect("posterior")
        .values()
        .map(|v| v.as_f64().expect("p"))
        .sum()
}

/// The answers of the LM policy over `scorer`, on a few hypotheses (for speed).
fn answers(episode: &Episode, scorer: Box<dyn TextScorer>) -> Vec<Answer> {
    let policy = LmPolicy::new(scorer);
    let options = BatchOptions {
        pruning: Some(Pruning {
            per_option: 2,
            proposal_beta: DEFAULT_BETA,
        }),
        ..BatchOptions::default()
    };
    infer_episode(episode, &policy, &options)
        .expect("inference")
        .answers
}

/// Equal up to f32 rounding: the steered scores run the LM head over every position and
/// take their own log-softmax, so the last bits may differ from the plain model's.
fn assert_same(a: &[Answer], b: &[Answer]) {
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.choice, y.choice);
        for (p, q) in x.posterior.iter().zip(&y.posterior) {
            assert!((p - q).abs() < 1e-6, "{a:?} vs {b:?}");
        }
    }
}

#[test]
fn weak_to_strong_policy_reduces_to_the_lm_policy_exactly_when_it_should() {
    let path = smollm2();
    let episode = example("1.2-false-belief-short.json");
    let load = |adapter: Option<&LoraAdapter>| {
        Arc::new(
            match adapter {
                None => LanguageModel::<Cpu>::load(&path, &Default::default()),
                Some(a) => LanguageModel::<Cpu>::load_with_adapter(&path, a, &Default::default()),
            }
            .expect("SmolLM2 loads"),
        )
    };
    let base = load(None);
    let plain = answers(
        &episode,
        Box::new(CachedScorer::new(
            ModelScorer::new(
                LanguageModel::<Cpu>::load(&path, &Default::default()).expect("loads"),
            ),
            None,
        )),
    );
    let w2s = |expert: Arc<LanguageModel<Cpu>>, alpha: f64| -> Box<dyn TextScorer> {
        let combined =
            WeakToStrong::new(base.clone(), expert, base.clone(), alpha).expect("one tokenizer");
        Box::new(CachedScorer::new(W2sScorer::new(combined), None))
    };
    let smol = LlamaConfig::smollm2_135m();
    let lora = LoraConfig::new(4, 8.0);
    // E = SmolLM2 + a zero adapter (PEFT's initialisation): exactly the LM policy.
    let zero = load(Some(&LoraAdapter::init(&smol, lora.clone(), 3)));
    assert_same(&answers(&episode, w2s(zero, 1.0)), &plain);
    // A non-zero adapter steers the scores, so the posterior moves...
    let trained = load(Some(&LoraAdapter::random(&smol, lora, 3, 0.05)));
    let steered = answers(&episode, w2s(trained.clone(), 1.0));
    let moved = (steered[0].posterior[0] - plain[0].posterior[0]).abs();
    assert!(moved > 1e-4, "{steered:?} vs {plain:?}");
    // ...unless α = 0, which leaves the large model alone.
    assert_same(&answers(&episode, w2s(trained, 0.0)), &plain);
}

#[test]
fn lm_and_hybrid_policies_answer_from_the_cli_and_report_their_cost() {
    let file = example_file("1.2-false-belief-short.json");
    let file = file.to_str().expect("utf-8 path");
    let pruned = json(&bip(["infer", "--policy", "lm", "--json", file]));
    let q = &pruned["episodes"][0]["questions"][0];
    let cost = &q["cost"];
    let options = q["posterior"].as_object().expect("posterior").len() as u64;
    assert!(cost["lm_tokens"].as_u64().expect("tokens") > 0, "{cost}");
    assert!(
        cost["lm_tokens_unshared"].as_u64() > cost["lm_tokens"].as_u64(),
        "sharing runs fewer tokens than BIP-ALM's way: {cost}"
    );
    assert!(cost["hypotheses"].as_u64().expect("count") <= 2 * options);
    assert!((posterior_total(q) - 1.0).abs() < 1e-9);
    // Saying what the agent has seen lengthens the same hypotheses' prompts and moves
    // the posterior.
    let seen = json(&bip([
        "infer",
        "--policy",
        "lm",
        "--prompt-observations",
        "--json",
        file,
    ]));
    let sq = &seen["episodes"][0]["questions"][0];
    assert_eq!(sq["cost"]["hypotheses"], cost["hypotheses"]);
    assert!(
        sq["cost"]["lm_tokens_unshared"].as_u64() > cost["lm_tokens_unshared"].as_u64(),
        "{sq} vs {q}"
    );
    assert_ne!(sq["posterior"], q["posterior"]);
    // Without pruning every hypothesis is scored.
    let all = json(&bip([
        "infer",
        "--policy",
        "lm",
        "--prune-to",
        "0",
        "--json",
        file,
    ]));
    let all_cost = &all["episodes"][0]["questions"][0]["cost"];
    assert!(all_cost["hypotheses"].as_u64() > cost["hypotheses"].as_u64());
    // The hybrid with the LM switched off is the planner on the pruned hypotheses.
    let hybrid = json(&bip([
        "infer",
        "--policy",
        "hybrid",
        "--lm-weight",
        "0",
        "--json",
        file,
    ]));
    let hq = &hybrid["episodes"][0]["questions"][0];
    let planner = json(&bip(["infer", "--json", file]));
    let pq = &planner["episodes"][0]["questions"][0];
    assert_eq!(hq["answer"], pq["answer"], "{hq} vs {pq}");
    assert!(hybrid["episodes"][0]["policy"]
        .as_str()
        .expect("policy name")
        .starts_with("hybrid (planner"));
}

#[test]
fn choice_likelihoods_score_every_possible_action_and_answer_the_false_belief_goal() {
    let file = example_file("2.2-goal-false-belief.json");
    let file = file.to_str().expect("utf-8 path");
    let run = |likelihood: &str| {
        let out = json(&bip([
            "infer",
            "--policy",
            "lm",
            "--lm-score",
            "sum",
            "--lm-likelihood",
            likelihood,
            "--json",
            file,
        ]));
        out["episodes"][0]["questions"][0].clone()
    };
    let (text, choice) = (run("text"), run("choice"));
    assert_eq!(choice["cost"]["hypotheses"], text["cost"]["hypotheses"]);
    // Every action possible at each step is scored too, most of it shared in the tree of
    // the actions' texts: more tokens, far fewer than one pass per action.
    let tokens = |q: &serde_json::Value| q["cost"]["lm_tokens"].as_u64().expect("tokens");
    assert!(tokens(&choice) > tokens(&text), "{choice} vs {text}");
    assert!(tokens(&choice) < 3 * tokens(&text), "{choice} vs {text}");
    assert!((posterior_total(&choice) - 1.0).abs() < 1e-9);
    // SmolLM2's text scores favour the wrong goal here; as choices among the step's
    // actions they name the goal the agent's false belief serves.
    assert_eq!(choice["answer"], choice["expected"], "{choice}");
    assert_ne!(choice["posterior"], text["posterior"]);
}

#[test]
fn weak_to_strong_adapter_errors_name_the_problem() {
    let dir = TempDir::new();
    let file = examples()[0].to_str().expect("utf-8 path").to_string();
    let run = |adapter: &str| {
        bip([
            "infer",
            "--policy",
            "w2s",
            "--large",
            "smollm2-135m",
            "--expert",
            "smollm2-135m",
            "--naive",
            "smollm2-135m",
            "--expert-adapter",
            adapter,
            &file,
        ])
    };
    let missing = dir.path().join("no-adapter");
    let out = run(missing.to_str().expect("utf-8"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-adapter"), "{err}");
    // An adapter made for a smaller model does not fit SmolLM2.
    let small = LlamaConfig::new(64, 32, 48, 2, 4, 2);
    let misfit = dir.path().join("misfit");
    LoraAdapter::init(&small, LoraConfig::new(2, 4.0), 1)
        .save(&misfit)
        .expect("adapter saves");
    let out = run(misfit.to_str().expect("utf-8"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("q_proj") || err.contains("shape"), "{err}");
}

/// SmolLM2's vocabulary size.
const SMOLLM2_VOCAB: usize = 49152;

/// Writes a tiny random Llama as a Hugging Face folder with SmolLM2's vocabulary size
/// (so the logit widths agree) but another tokenizer: a word-level vocabulary.
fn write_model_with_another_tokenizer(dir: &std::path::Path) {
    let config = LlamaConfig::new(SMOLLM2_VOCAB, 32, 48, 2, 4, 2).with_max_seq_len(512);
    write_hf_weights(dir, &config, 7);
    let vocab: serde_json::Map<String, serde_json::Value> = std::iter::once("[UNK]".to_string())
        .chain((1..SMOLLM2_VOCAB).map(|i| format!("w{i}")))
        .enumerate()
        .map(|(i, w)| (w, serde_json::Value::from(i)))
        .collect();
    write_tokenizer(
        dir,
        serde_json::json!({"type": "Whitespace"}),
        serde_json::Value::Null,
        serde_json::json!({"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}),
    );
}

#[test]
fn weak_to_strong_with_another_tokenizer_is_refused_before_scoring() {
    let dir = TempDir::new();
    let other = dir.path().join("other-tokenizer");
    write_model_with_another_tokenizer(&other);
    let file = examples()[0].to_str().expect("utf-8 path").to_string();
    let out = bip([
        "infer",
        "--policy",
        "w2s",
        "--large",
        other.to_str().expect("utf-8"),
        "--expert",
        "smollm2-135m",
        "--naive",
        "smollm2-135m",
        &file,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("other-tokenizer"), "{err}");
    assert!(err.contains("tokenizers differ"), "{err}");
    assert!(out.stdout.is_empty(), "no answers before the check");
}

#[test]
fn infer_with_a_score_cache_rescores_nothing_the_second_time_and_says_so() {
    let file = example_file("1.2-false-belief-short.json");
    let file = file.to_str().expect("utf-8 path");
    let dir = TempDir::new();
    let cache = dir.path().join("cache");
    let cache = cache.to_str().expect("utf-8 path");
    let run = || bip(["infer", "--policy", "lm", "--json", "--cache", cache, file]);
    let cache_line = |out: &std::process::Output| {
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        err.lines()
            .find(|l| l.contains("score cache"))
            .unwrap_or_else(|| panic!("no cache line in {err:?}"))
            .to_string()
    };
    let (first, second) = (run(), run());
    assert!(cache_line(&first).contains("held at start"));
    assert!(
        cache_line(&second).contains("(100.0%"),
        "{}",
        cache_line(&second)
    );
    let posterior =
        |out: &std::process::Output| json(out)["episodes"][0]["questions"][0]["posterior"].clone();
    assert_eq!(posterior(&first), posterior(&second));
}

#[test]
fn calibrate_fits_the_hybrid_lm_weight_and_infer_reads_it() {
    let dir = TempDir::new();
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    let (held, cal, cache) = (path("held.jsonl"), path("cal.json"), path("cache"));
    let made = bip(["generate", "--n", "2", "--seed", "5", "--out", &held]);
    assert!(made.status.success(), "{made:?}");
    let fitted = bip([
        "calibrate",
        &held,
        "--policy",
        "hybrid",
        "--cache",
        &cache,
        "--out",
        &cal,
    ]);
    let err = String::from_utf8_lossy(&fitted.stderr);
    assert!(fitted.status.success(), "{err}");
    assert!(err.contains("LM weight = "), "{err}");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cal).expect("saved")).expect("json");
    assert_eq!(file["policy"], "hybrid");
    assert_eq!(file["beta"], DEFAULT_BETA);
    let weight = file["lm_weight"].as_f64().expect("an LM weight");
    assert!((1.0 / 64.0..=256.0).contains(&weight), "{file}");
    assert_eq!(
        file["lm"],
        serde_json::json!({
            "model": "SmolLM2-135M-Instruct.Q4_1.gguf", "adapter": null, "score": "mean",
            "likelihood": "text", "prompt_style": "bip", "prompt_observations": false,
            "prune_to": 2
        }),
        "the weight records the LM settings it was fitted under"
    );
    // The calibration gives the hybrid its weight: the same posteriors as the flag.
    let read = bip([
        "infer",
        "--policy",
        "hybrid",
        "--calibration",
        &cal,
        "--cache",
        &cache,
        "--json",
        &held,
    ]);
    let flagged = bip([
        "infer",
        "--policy",
        "hybrid",
        "--lm-weight",
        &weight.to_string(),
        "--cache",
        &cache,
        "--json",
        &held,
    ]);
    assert_eq!(posteriors(&read), posteriors(&flagged));
    // A hybrid calibration is for the hybrid alone, sets the weight alone, and applies
    // only to the LM settings it was fitted under.
    for (args, says) in [
        (vec!["--policy", "lm"], "not --policy lm"),
        (
            vec!["--policy", "hybrid", "--lm-weight", "2"],
            "sets the LM weight",
        ),
        (
            vec![
                "--policy",
                "hybrid",
                "--lm-likelihood",
                "choice",
                "--prune-to",
                "3",
            ],
            "fitted with --lm-likelihood text (this run: choice), --prune-to 2 (this run: 3)",
        ),
    ] {
        let out = bip(["infer", &held, "--calibration", &cal]
            .into_iter()
            .chain(args));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{err}");
    }
    // A file from before the settings were recorded is read, with a warning.
    let mut old = file.clone();
    old.as_object_mut().expect("object").remove("lm");
    let old_cal = path("old.json");
    std::fs::write(&old_cal, old.to_string()).expect("write");
    let read_old = bip([
        "infer",
        "--policy",
        "hybrid",
        "--calibration",
        &old_cal,
        "--cache",
        &cache,
        "--json",
        &held,
    ]);
    let err = String::from_utf8_lossy(&read_old.stderr);
    assert!(err.contains("does not record the LM settings"), "{err}");
    assert_eq!(posteriors(&read_old), posteriors(&flagged));
}
