//! Fitting weak-to-strong's α on the real SmolLM2-135M-Instruct steered by itself plus a
//! random LoRA adapter: one run of the models serves every α, the fit is saved with the
//! models it holds for, and `infer` reads it.

use std::sync::Arc;

use bip::cached::CachedScorer;
use bip::engine::{TextRequest, TextScorer};
use bip::models::backend::Cpu;
use bip::models::WeakToStrong;
use bip::models::{resolve_model, LanguageModel, LlamaConfig, LoraAdapter, LoraConfig};
use bip::scorer::{AlphaSweep, W2sScorer};

use crate::util::{bip, posteriors, TempDir};

fn smollm2() -> Arc<LanguageModel<Cpu>> {
    let path = resolve_model("smollm2-135m").unwrap_or_else(|e| {
        panic!("{e}\n(the LM tests need the real model: run scripts/fetch-models.sh)")
    });
    Arc::new(LanguageModel::load(&path, &Default::default()).expect("SmolLM2 loads"))
}

/// A LoRA adapter for SmolLM2 with random (non-zero) factors: an expert that differs.
fn random_adapter() -> LoraAdapter {
    LoraAdapter::random(
        &LlamaConfig::smollm2_135m(),
        LoraConfig::new(4, 8.0),
        7,
        0.05,
    )
}

const REQUESTS: [(&str, &str); 3] = [
    (
        "Mark is in the kitchen. He wants a plate. He walks to",
        " the cabinet",
    ),
    (
        "Mark is in the kitchen. He wants a plate. He walks to",
        " the fridge",
    ),
    ("Elena opens the drawer. Inside she sees", " two apples"),
];

fn score(scorer: &dyn TextScorer) -> Vec<Vec<f64>> {
    let requests: Vec<TextRequest<'_>> = REQUESTS
        .iter()
        .map(|&(prompt, continuation)| TextRequest {
            prompt,
            continuation,
        })
        .collect();
    scorer
        .score(&requests)
        .expect("scores")
        .into_iter()
        .map(|s| s.logprobs)
        .collect()
}

#[test]
fn a_sweep_scores_each_alpha_as_its_own_scorer_would_from_one_run_of_the_models() {
    let base = smollm2();
    let expert = Arc::new(base.with_adapter(&random_adapter()).expect("adapter fits"));
    let w2s = |alpha: f64| {
        WeakToStrong::new(base.clone(), expert.clone(), base.clone(), alpha).expect("one tokenizer")
    };
    let alphas = vec![0.0, 1.0, 2.5];
    let sweep = AlphaSweep::new(w2s(1.0), alphas.clone());
    let scorers: Vec<CachedScorer<_>> = sweep
        .scorers()
        .into_iter()
        .map(|s| CachedScorer::new(s, None))
        .collect();
    let swept: Vec<Vec<Vec<f64>>> = scorers.iter().map(|s| score(s)).collect();
    let computed = scorers[0].tokens_computed();
    assert!(computed > 0);
    assert_eq!(
        scorers[2].tokens_computed(),
        computed,
        "the second and third α ran no model"
    );
    for (alpha, at) in alphas.iter().zip(&swept) {
        let alone = CachedScorer::new(W2sScorer::new(w2s(*alpha)), None);
        assert_eq!(at, &score(&alone), "α = {alpha}");
    }
    assert_ne!(swept[0], swept[2], "α moves the scores");
}

#[test]
fn calibrate_fits_alpha_over_its_grid_and_infer_reads_it() {
    let dir = TempDir::new();
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    let (held, cal, cache, adapter) = (
        path("held.jsonl"),
        path("w2s.json"),
        path("cache"),
        path("expert"),
    );
    random_adapter()
        .save(std::path::Path::new(&adapter))
        .expect("adapter saves");
    let made = bip(["generate", "--n", "2", "--seed", "5", "--out", &held]);
    assert!(made.status.success(), "{made:?}");
    // L = N = SmolLM2, E = SmolLM2 + the adapter.
    let steered_by = |policy: &'static str, naive: &'static str| {
        [
            "--policy",
            policy,
            "--large",
            "smollm2-135m",
            "--expert",
            "smollm2-135m",
            "--expert-adapter",
            adapter.as_str(),
            "--naive",
            naive,
            "--cache",
            cache.as_str(),
        ]
    };
    let steering = steered_by("w2s", "smollm2-135m");
    let calibrate = |more: &[&str]| {
        let args = ["calibrate", held.as_str(), "--out", cal.as_str()];
        bip(args.iter().chain(&steering).chain(more))
    };
    let given = calibrate(&["--alpha", "2"]);
    let err = String::from_utf8_lossy(&given.stderr);
    assert!(
        !given.status.success() && err.contains("calibrate fits α"),
        "{err}"
    );
    assert!(!std::path::Path::new(&cal).exists(), "nothing written");
    let fitted = calibrate(&[]);
    let err = String::from_utf8_lossy(&fitted.stderr);
    assert!(fitted.status.success(), "{err}");
    assert!(err.contains("α = "), "{err}");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cal).expect("saved")).expect("json");
    assert_eq!(file["policy"], "w2s");
    let alpha = file["alpha"].as_f64().expect("an α");
    assert!(bip::lab::calibrate::ALPHA_GRID.contains(&alpha), "{file}");
    // Every α tried is kept with its fit, the fitted one the best of them.
    let curve: Vec<(f64, f64)> = file["alpha_curve"]
        .as_array()
        .expect("the α curve")
        .iter()
        .map(|p| {
            let value = |k: &str| p[k].as_f64().expect("a number");
            (value("alpha"), value("mean_log_likelihood"))
        })
        .collect();
    let tried: Vec<f64> = curve.iter().map(|p| p.0).collect();
    assert_eq!(tried, bip::lab::calibrate::ALPHA_GRID, "{file}");
    let best = file["mean_log_likelihood"].as_f64().expect("a number");
    assert!(curve.iter().all(|p| p.1 <= best), "{file}");
    assert!(curve.contains(&(alpha, best)), "{file}");
    assert_eq!(
        file["lm"]["steering"],
        serde_json::json!({
            "expert": "SmolLM2-135M-Instruct.Q4_1.gguf", "expert_adapter": "expert",
            "naive": "SmolLM2-135M-Instruct.Q4_1.gguf"
        }),
        "α records the models it was fitted for"
    );
    // The calibration sets α: the same posteriors as the flag, all from the scores the
    // fit cached under that α.
    let infer_steered = |steering: &[&str], more: &[&str]| {
        let args = ["infer", "--json", held.as_str()];
        bip(args.iter().chain(steering).chain(more))
    };
    let infer = |more: &[&str]| infer_steered(&steering, more);
    let read = infer(&["--calibration", &cal]);
    let err = String::from_utf8_lossy(&read.stderr);
    assert!(read.status.success(), "{err}");
    assert!(
        err.contains("(100.0%"),
        "every score was cached by the fit: {err}"
    );
    let flagged = infer(&["--alpha", &alpha.to_string()]);
    assert_eq!(posteriors(&read), posteriors(&flagged));
    // α applies to the models it was fitted for, and is given once.
    let twice = infer(&["--calibration", &cal, "--alpha", "1"]);
    let err = String::from_utf8_lossy(&twice.stderr);
    assert!(
        !twice.status.success() && err.contains("sets α; give one or the other"),
        "{err}"
    );
    let other = infer_steered(
        &steered_by("w2s", "qwen2.5-coder-0.5b"),
        &["--calibration", &cal],
    );
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        !other.status.success() && err.contains("--naive SmolLM2-135M-Instruct.Q4_1.gguf"),
        "{err}"
    );
    // The hybrid over the steered model fits its weight at the fitted α, and keeps both.
    let hybrid_cal = path("hybrid.json");
    let hybrid = steered_by("hybrid", "smollm2-135m");
    let args = [
        "calibrate",
        &held,
        "--out",
        &hybrid_cal,
        "--calibration",
        &cal,
    ];
    let fitted = bip(args.iter().chain(&hybrid));
    let err = String::from_utf8_lossy(&fitted.stderr);
    assert!(fitted.status.success(), "{err}");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&hybrid_cal).expect("saved")).expect("json");
    assert_eq!(file["policy"], "hybrid");
    assert_eq!(file["alpha"].as_f64(), Some(alpha));
    assert!(file["lm_weight"].as_f64().is_some(), "{file}");
    assert_eq!(file["lm"]["model"], "SmolLM2-135M-Instruct.Q4_1.gguf");
    assert_eq!(file["lm"]["steering"]["expert_adapter"], "expert");
    let read = infer_steered(&hybrid, &["--calibration", &hybrid_cal]);
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let lm = bip(["infer", "--policy", "lm", "--calibration", &cal, &held]);
    let err = String::from_utf8_lossy(&lm.stderr);
    assert!(
        !lm.status.success() && err.contains("calibrated for the w2s policy"),
        "{err}"
    );
}

#[test]
fn w2s_at_alpha_zero_is_the_large_model_alone_and_shares_its_scores() {
    let dir = TempDir::new();
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    let (held, cache, adapter) = (path("held.jsonl"), path("cache"), path("expert"));
    random_adapter()
        .save(std::path::Path::new(&adapter))
        .expect("adapter saves");
    let made = bip(["generate", "--n", "1", "--seed", "9", "--out", &held]);
    assert!(made.status.success(), "{made:?}");
    let infer = |policy: &[&str]| {
        let args = ["infer", "--json", held.as_str(), "--cache", cache.as_str()];
        let out = bip(args.iter().chain(policy));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        (posteriors(&out), err)
    };
    let (alone, _) = infer(&["--policy", "lm", "--model", "smollm2-135m"]);
    let steered = |alpha: &'static str| {
        infer(&[
            "--policy",
            "w2s",
            "--large",
            "smollm2-135m",
            "--expert",
            "smollm2-135m",
            "--expert-adapter",
            &adapter,
            "--naive",
            "smollm2-135m",
            "--alpha",
            alpha,
        ])
    };
    let (at_zero, err) = steered("0");
    assert!(err.contains("(100.0%"), "every score was L's: {err}");
    assert_eq!(alone, at_zero);
    let (at_one, err) = steered("1");
    assert!(err.contains("(0.0%"), "α = 1 is scored anew: {err}");
    assert_ne!(alone, at_one, "the adapter steers");
}
