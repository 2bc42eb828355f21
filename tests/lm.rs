//! The real SmolLM2-135M-Instruct (Q4_1 GGUF) against the independent numpy reference in
//! `tests/data/lm/` (made by `scripts/reference/smollm2_reference.py`), and `bip lm`.
//!
//! These tests need the model file: `scripts/fetch-models.sh` puts it in place (the test
//! suite, `scripts/test.sh`, runs it first). Without it they fail and say so.

use std::sync::{Arc, OnceLock};

use bip::models::backend::Cpu;
use bip::models::{
    resolve_model, LanguageModel, LlamaConfig, LoadOptions, LoraAdapter, LoraConfig, PrefixCache,
    ScoreOptions, ScoreRequest, TokenRequest, WeakToStrong, WeightStorage,
};

use crate::util::{bip, json, root};

/// Largest difference allowed between bip's and the reference's log-probabilities.
const TOLERANCE: f64 = 1e-3;

fn model() -> &'static LanguageModel<Cpu> {
    static MODEL: OnceLock<LanguageModel<Cpu>> = OnceLock::new();
    MODEL.get_or_init(|| {
        let path = resolve_model("smollm2-135m").unwrap_or_else(|e| {
            panic!("{e}\n(the LM tests need the real model: run scripts/fetch-models.sh)")
        });
        LanguageModel::load(&path, &Default::default())
            .unwrap_or_else(|e| panic!("loading {}: {e}", path.display()))
    })
}

fn fixture(name: &str) -> serde_json::Value {
    let path = root().join("tests/data/lm").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("fixture is JSON")
}

/// The reference's scoring cases.
fn cases() -> Vec<serde_json::Value> {
    match fixture("smollm2_logprobs.json")["cases"].take() {
        serde_json::Value::Array(cases) => cases,
        other => panic!("cases: {other}"),
    }
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("id") as u32)
        .collect()
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn assert_logprobs_close(got: &[f32], expected: &[f64], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: token counts differ");
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        let diff = (f64::from(*g) - e).abs();
        assert!(
            diff <= TOLERANCE,
            "{what}: token {i}: bip {g} vs reference {e} (|Δ| {diff:.2e})"
        );
    }
}

#[test]
fn tokenization_matches_the_reference() {
    let m = model();
    for case in &cases() {
        let prompt = case["prompt"].as_str().expect("prompt");
        let continuation = case["continuation"].as_str().expect("continuation");
        assert_eq!(
            m.tokenizer().encode_prompt(prompt).unwrap(),
            ids(&case["prompt_tokens"]),
            "{prompt:?}"
        );
        assert_eq!(
            m.tokenizer().encode(continuation).unwrap(),
            ids(&case["continuation_tokens"]),
            "{continuation:?}"
        );
    }
}

#[test]
fn continuation_logprobs_match_the_reference() {
    let m = model();
    let cases = cases();
    let texts: Vec<(String, String)> = cases
        .iter()
        .map(|c| {
            (
                c["prompt"].as_str().unwrap().to_string(),
                c["continuation"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let requests: Vec<ScoreRequest<'_>> = texts
        .iter()
        .map(|(p, c)| ScoreRequest {
            prompt: p,
            continuation: c,
        })
        .collect();
    let mut cache = PrefixCache::default();
    // All at once (one tree over their common beginning), then one by one with every
    // prompt's beginning cached, then all at once from the warm cache: each must match
    // the reference.
    let together = m
        .score(&mut cache, &requests, &ScoreOptions::default())
        .unwrap();
    let cached = ScoreOptions {
        min_prefix_pass: 0,
        ..ScoreOptions::default()
    };
    for (case, scored) in cases.iter().zip(&together) {
        assert_eq!(scored.tokens, ids(&case["continuation_tokens"]));
        assert_logprobs_close(
            &scored.logprobs,
            &floats(&case["continuation_logprobs"]),
            case["prompt"].as_str().unwrap(),
        );
    }
    for (case, request) in cases.iter().zip(&requests) {
        let scored = m.score(&mut cache, &[*request], &cached).unwrap();
        assert_logprobs_close(
            &scored[0].logprobs,
            &floats(&case["continuation_logprobs"]),
            "alone",
        );
    }
    // Again together: each prompt's beginning now comes from the cache.
    let computed = cache.stats().computed_tokens;
    let again = m.score(&mut cache, &requests, &cached).unwrap();
    for (case, scored) in cases.iter().zip(&again) {
        assert_logprobs_close(
            &scored.logprobs,
            &floats(&case["continuation_logprobs"]),
            "again",
        );
    }
    assert!(cache.stats().reused_tokens > 0, "{:?}", cache.stats());
    assert_eq!(
        cache.stats().computed_tokens,
        computed,
        "{:?}",
        cache.stats()
    );
}

#[test]
fn whole_sequence_logprobs_match_the_reference() {
    for case in &cases() {
        assert_logprobs_close(
            &sequence_logprobs(model(), case),
            &floats(&case["sequence_logprobs"]),
            case["prompt"].as_str().unwrap(),
        );
    }
}

/// `m`'s log-probability of every token of a reference case's prompt and continuation
/// after the first.
fn sequence_logprobs(m: &LanguageModel<Cpu>, case: &serde_json::Value) -> Vec<f32> {
    let mut all = ids(&case["prompt_tokens"]);
    all.extend(ids(&case["continuation_tokens"]));
    let request = TokenRequest {
        prompt: &all[..1],
        continuation: &all[1..],
    };
    let scored = m
        .score_tokens(
            &mut PrefixCache::default(),
            &[request],
            &ScoreOptions::default(),
        )
        .expect("the reference case scores");
    scored.into_iter().next().expect("one request").logprobs
}

#[test]
fn greedy_chat_answer_matches_the_reference() {
    let m = model();
    let reference = fixture("smollm2_greedy.json");
    let prompt = m
        .chat_prompt(reference["question"].as_str().unwrap())
        .expect("SmolLM2 has a chat template");
    assert_eq!(prompt, reference["prompt"].as_str().unwrap());
    assert_eq!(
        m.tokenizer().encode_prompt(&prompt).unwrap(),
        ids(&reference["prompt_tokens"])
    );
    let max = reference["max_tokens"].as_u64().unwrap() as usize;
    let (generation, text) = m.generate(&prompt, max).unwrap();
    assert_eq!(
        generation.tokens,
        ids(&reference["generated_tokens"]),
        "bip said {text:?}"
    );
    assert_eq!(text, reference["generated_text"].as_str().unwrap());
    assert!(text.contains("Paris"), "{text}");
}

#[test]
fn weights_held_as_f16_score_the_reference_within_their_rounding() {
    let path = resolve_model("smollm2-135m").expect("fetched");
    let half = LoadOptions::default().with_weights(WeightStorage::F16);
    let m = LanguageModel::<Cpu>::load_with(&path, None, &half, &Default::default()).unwrap();
    assert_eq!(m.weight_storage(), WeightStorage::F16);
    let mut worst = 0.0f64;
    for case in &cases() {
        let got = sequence_logprobs(&m, case);
        let want = floats(&case["sequence_logprobs"]);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            worst = worst.max((f64::from(*g) - w).abs());
        }
    }
    // Rounding every weight to f16 moves a token's log-probability by hundredths of a nat
    // at most; a wrong product (a panel out of place) would move it by whole nats.
    assert!(worst > 0.0 && worst < 0.05, "largest difference {worst}");
    // The command line takes the same storage by name, and names a wrong one.
    let out = bip([
        "lm",
        "score",
        "--model",
        "smollm2-135m",
        "--lm-weights",
        "f16",
        "--prompt",
        "The capital of France is",
        "--continuation",
        " Paris",
        "--json",
    ]);
    assert!(json(&out)["total"].as_f64().expect("a total") < 0.0);
    let out = bip([
        "lm",
        "score",
        "--model",
        "smollm2-135m",
        "--lm-weights",
        "f8",
        "--prompt",
        "a",
        "--continuation",
        "b",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--lm-weights") && err.contains("f8"), "{err}");
}

#[test]
fn the_score_cache_tells_models_apart_by_adapter_and_storage() {
    use bip::scorer::{file_identity, model_identity};
    let plain = model();
    // A plain model keeps the identity caches were keyed by before.
    assert_eq!(model_identity(plain), file_identity(&plain.info().path));
    let path = resolve_model("smollm2-135m").expect("fetched");
    let half = LoadOptions::default().with_weights(WeightStorage::F16);
    let compact = LanguageModel::<Cpu>::load_with(&path, None, &half, &Default::default()).unwrap();
    let adapter = LoraAdapter::random(plain.config(), LoraConfig::new(4, 8.0), 1, 0.1);
    let expert = plain.with_adapter(&adapter).unwrap();
    let ids = [
        model_identity(plain),
        model_identity(&compact),
        model_identity(&expert),
        model_identity(&compact.with_adapter(&adapter).unwrap()),
    ];
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            assert_ne!(a, b, "two models share a score cache key");
        }
    }
    assert!(ids[1].ends_with(" as f16"), "{}", ids[1]);
}

#[test]
fn weights_rewritten_in_place_are_another_model_to_the_score_cache() {
    use bip::scorer::file_identity;
    let dir = crate::util::TempDir::new();
    let weights = dir.path().join("model.safetensors");
    std::fs::write(&weights, b"first weights").expect("write");
    std::fs::write(dir.path().join("config.json"), b"{}").expect("write");
    let before = file_identity(dir.path());
    assert_eq!(file_identity(dir.path()), before, "nothing changed");
    let file_before = file_identity(&weights);
    // Rewritten in place, the same size, its modification time set back: only the
    // content tells.
    let when = std::fs::metadata(&weights)
        .and_then(|m| m.modified())
        .expect("a time");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&weights, b"other weights").expect("rewrite");
    let file = std::fs::File::options()
        .write(true)
        .open(&weights)
        .expect("open");
    file.set_modified(when).expect("time set back");
    assert_ne!(file_identity(dir.path()), before);
    assert_ne!(file_identity(&weights), file_before);
}

#[test]
fn full_logits_are_consistent_with_logprobs() {
    let m = model();
    let request = ScoreRequest {
        prompt: "The capital of France is",
        continuation: " Paris",
    };
    let options = ScoreOptions {
        full_logits: true,
        ..ScoreOptions::default()
    };
    let scored = &m
        .score(&mut PrefixCache::default(), &[request], &options)
        .unwrap()[0];
    let row = scored.logits_row(0).expect("logits");
    assert_eq!(row.len(), 49152);
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let lse = f64::from(max)
        + row
            .iter()
            .map(|&x| f64::from(x - max).exp())
            .sum::<f64>()
            .ln();
    let lp = f64::from(row[scored.tokens[0] as usize]) - lse;
    assert!((lp - f64::from(scored.logprobs[0])).abs() < 1e-4);
}

#[test]
fn cli_scores_generates_and_inspects() {
    model();
    let out = bip([
        "lm",
        "score",
        "--model",
        "smollm2-135m",
        "--prompt",
        "The capital of France is",
        "--continuation",
        " Paris, a city on the Seine.",
        "--json",
    ]);
    let doc = json(&out);
    let case = &cases()[0];
    let expected = floats(&case["continuation_logprobs"]);
    let got: Vec<f32> = floats(&doc["logprobs"])
        .into_iter()
        .map(|v| v as f32)
        .collect();
    assert_logprobs_close(&got, &expected, "bip lm score");
    assert_eq!(doc["tokens"][0], " Paris");
    let total = doc["total"].as_f64().unwrap();
    assert!((total - expected.iter().sum::<f64>()).abs() < 1e-2);

    let out = bip([
        "lm",
        "generate",
        "--model",
        "smollm2-135m",
        "--chat",
        "--prompt",
        "What is the capital of France?",
        "--max-tokens",
        "24",
        "--json",
    ]);
    let doc = json(&out);
    assert_eq!(doc["text"], "The capital of France is Paris.<|im_end|>");
    assert_eq!(doc["stopped"], true);

    let out = bip(["lm", "inspect", "--model", "smollm2-135m", "--json"]);
    let doc = json(&out);
    assert_eq!(doc["architecture"], "llama");
    assert_eq!(doc["parameters"], 134_515_008);
    assert_eq!(doc["tensor_types"]["Q4_1"], 210);
    assert_eq!(doc["tokenizer"]["vocab_size"], 49152);
    let out = bip(["lm", "inspect", "--model", "smollm2-135m"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("MOSTLY_Q4_1"));
}

#[test]
fn cli_errors_name_the_problem() {
    let out = bip(["lm", "inspect", "--model", "/nonexistent/x.gguf"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/nonexistent/x.gguf: no such model file or folder"),
        "{err}"
    );
    let dir = crate::util::TempDir::new();
    let bad = dir.write("bad.gguf", "GGUF but not really");
    let out = bip([
        "lm",
        "score",
        "--model",
        bad.to_str().unwrap(),
        "--prompt",
        "a",
        "--continuation",
        "b",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("loading the model") && err.contains("bad.gguf"),
        "{err}"
    );
}

/// Two action continuations after one prompt, as the LM policy asks.
const W2S_PROMPT: &str = "Goal: get a cupcake.\nBelief: the cupcake is in the fridge.\nAction:";
const W2S_ACTIONS: [&str; 2] = [" walk to the kitchen", " open the fridge"];

fn w2s_requests() -> Vec<ScoreRequest<'static>> {
    W2S_ACTIONS
        .iter()
        .map(|a| ScoreRequest {
            prompt: W2S_PROMPT,
            continuation: a,
        })
        .collect()
}

#[test]
fn weak_to_strong_on_smollm2_with_a_lora_expert() {
    let path = resolve_model("smollm2-135m").expect("scripts/fetch-models.sh fetches it");
    let dev = Default::default();
    let base = Arc::new(LanguageModel::<Cpu>::load(&path, &dev).unwrap());
    let plain = base
        .score(
            &mut PrefixCache::default(),
            &w2s_requests(),
            &ScoreOptions::default(),
        )
        .unwrap();
    let smol = LlamaConfig::smollm2_135m();
    let lora = LoraConfig::new(4, 8.0);
    // L = N = SmolLM2, E = SmolLM2 + a zero adapter: exactly the plain scores.
    let zero = LoraAdapter::init(&smol, lora.clone(), 7);
    let expert = Arc::new(LanguageModel::load_with_adapter(&path, &zero, &dev).unwrap());
    let mut w2s = WeakToStrong::new(base.clone(), expert, base.clone(), 1.0).unwrap();
    let scored = w2s
        .score(&w2s_requests(), &ScoreOptions::default())
        .unwrap();
    for (s, p) in scored.iter().zip(&plain) {
        assert_eq!(s.tokens, p.tokens);
        assert_eq!(s.logprobs, p.logprobs);
    }
    let stats = w2s.stats();
    assert!(stats.expert.tokens_computed() > 0, "{stats:?}");
    assert_eq!(stats.naive.tokens_computed(), 0, "naive = large runs once");
    // A non-zero adapter, saved and read back as PEFT would: the scores move.
    let dir = crate::util::TempDir::new();
    let adapter_dir = dir.path().join("adapter");
    LoraAdapter::random(&smol, lora, 7, 0.05)
        .save(&adapter_dir)
        .unwrap();
    let adapter = LoraAdapter::load(&adapter_dir).unwrap();
    let expert = Arc::new(LanguageModel::load_with_adapter(&path, &adapter, &dev).unwrap());
    let mut w2s = WeakToStrong::new(base.clone(), expert, base, 1.0).unwrap();
    let scored = w2s
        .score(&w2s_requests(), &ScoreOptions::default())
        .unwrap();
    let shift = scored
        .iter()
        .zip(&plain)
        .flat_map(|(s, p)| {
            s.logprobs
                .iter()
                .zip(&p.logprobs)
                .map(|(a, b)| (a - b).abs())
        })
        .fold(0.0f32, f32::max);
    assert!(shift > 1e-3, "largest shift {shift}");
    assert!(scored
        .iter()
        .all(|s| s.logprobs.iter().all(|l| l.is_finite() && *l <= 0.0)));

    // The CLI applies the same adapter; a missing folder is named.
    let args = |adapter: &str| {
        vec![
            "lm".to_string(),
            "score".into(),
            "--model".into(),
            "smollm2-135m".into(),
            "--prompt".into(),
            W2S_PROMPT.into(),
            "--continuation".into(),
            W2S_ACTIONS[0].into(),
            "--adapter".into(),
            adapter.into(),
            "--json".into(),
        ]
    };
    let out = bip(args(adapter_dir.to_str().unwrap()));
    let doc = json(&out);
    let expert_alone = LanguageModel::<Cpu>::load_with_adapter(&path, &adapter, &dev)
        .unwrap()
        .score(
            &mut PrefixCache::default(),
            &w2s_requests()[..1],
            &ScoreOptions::default(),
        )
        .unwrap();
    let got: Vec<f32> = floats(&doc["logprobs"]).iter().map(|&v| v as f32).collect();
    assert_eq!(got, expert_alone[0].logprobs);
    let missing = dir.path().join("nowhere");
    let out = bip(args(missing.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nowhere: no such LoRA adapter folder"),
        "{err}"
    );
}

/// The real model's file with the `u32` value of metadata key `key` set to `value`,
/// written into `dir`.
fn patched_smollm2(dir: &std::path::Path, key: &str, value: u32) -> std::path::PathBuf {
    let path = resolve_model("smollm2-135m").expect("scripts/fetch-models.sh fetches it");
    let mut bytes = std::fs::read(&path).expect("the model file");
    let needle: Vec<u8> = (key.len() as u64)
        .to_le_bytes()
        .into_iter()
        .chain(key.bytes())
        .collect();
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_slice())
        .expect("the key")
        + needle.len();
    assert_eq!(bytes[at..at + 4], 4u32.to_le_bytes(), "{key} is a uint32");
    bytes[at + 4..at + 8].copy_from_slice(&value.to_le_bytes());
    let out = dir.join(format!("{key}-{value}.gguf"));
    std::fs::write(&out, bytes).expect("written");
    out
}

#[test]
fn patched_smollm2_metadata_is_refused_or_runs_as_the_model() {
    let dir = crate::util::TempDir::new();
    let score = |model: &str| {
        bip([
            "lm",
            "score",
            "--model",
            model,
            "--prompt",
            "The capital of France is",
            "--continuation",
            " Paris",
            "--json",
        ])
    };
    let reference = json(&score("smollm2-135m"));
    // Two layers declared over thirty: once scored as a two-layer model (−27.6 for
    // " Paris" instead of −0.26), now refused naming the key.
    let two = patched_smollm2(dir.path(), "llama.block_count", 2);
    let out = score(two.to_str().expect("UTF-8"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("metadata key `llama.block_count`: 2 layers declared, but the weights hold tensors for 30"),
        "{err}"
    );
    // A context of 2^32 − 1 positions once aborted allocating its rotary tables; it now
    // runs on 32768 and scores exactly as the file does.
    let long = patched_smollm2(dir.path(), "llama.context_length", u32::MAX);
    let doc = json(&score(long.to_str().expect("UTF-8")));
    assert_eq!(doc["logprobs"], reference["logprobs"]);
}
