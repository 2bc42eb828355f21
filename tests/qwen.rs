//! The real Qwen2.5-Coder-0.5B-Instruct against llama.cpp on the same GGUF file: the
//! tokenizer on text written for this test (digits, unicode, whitespace runs, special
//! tokens, code), and per-token log-probabilities on the same token ids.
//!
//! llama.cpp's side is `scripts/llama-reference.py`, run here with the Python of the
//! virtual environment `scripts/llama-env.sh` makes; the model comes from
//! `scripts/fetch-models.sh`. The test suite (`scripts/test.sh`) runs both first; without
//! them these tests fail and say so.

use std::process::Command;
use std::sync::OnceLock;

use bip::models::backend::Cpu;
use bip::models::{
    resolve_model, LanguageModel, LoadOptions, PrefixCache, ScoreOptions, TokenRequest,
    WeightStorage,
};
use serde_json::json;

use crate::util::{root, TempDir, MAX_TOLERANCE, MEAN_TOLERANCE};

const ALIAS: &str = "qwen2.5-coder-0.5b";

/// Texts tokenized as they stand, each a case the byte-level BPE and Qwen2's
/// pre-tokenizer regex must split exactly as llama.cpp does.
const TEXTS: [&str; 10] = [
    "The capital of France is Paris.",
    "In 2026 the 3 crates held 1,234,567 beans; 42.5% of 0.001 is 0.000425 (x10^-4).",
    "Zoë's café serves naïve crème brûlée \u{2014} 日本語のテキスト, Ελληνικά, emoji 🙂🚀, e\u{301}.",
    "a  b   c\t\td\n\n\n   e    \n\t f  ",
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nWhere is it?<|im_end|>\n",
    "fn main() {\n    let xs: Vec<u32> = (0..10).collect();\n    println!(\"{xs:?}\");\n}\n",
    " HELLO world's   don't I'll 'quoted' WE'RE they've",
    "Mark walks to the kitchen_cabinet_3, opens it, and closes it again.",
    "<|endoftext|>text after the end<|fim_prefix|>",
    "   ",
];

/// (prompt, continuation) pairs scored on both sides.
const SCORED: [(&str, &str); 4] = [
    ("The capital of France is", " Paris"),
    (
        "<|im_start|>user\nMark opened the fridge and found no cupcake. Where will he look \
         next?<|im_end|>\n<|im_start|>assistant\n",
        "He will look in the microwave.",
    ),
    (
        "A person moves through a house. Emma is in the living room. She wants a book.",
        " Emma walks to the bookshelf and takes the book.",
    ),
    ("def add(a, b):\n", "    return a + b\n"),
];

fn model() -> &'static LanguageModel<Cpu> {
    static MODEL: OnceLock<LanguageModel<Cpu>> = OnceLock::new();
    MODEL.get_or_init(|| load(WeightStorage::F32))
}

fn load(weights: WeightStorage) -> LanguageModel<Cpu> {
    let path = resolve_model(ALIAS).unwrap_or_else(|e| {
        panic!("{e}\n(the Qwen tests need the real model: run scripts/fetch-models.sh)")
    });
    let options = LoadOptions {
        weights,
        ..Default::default()
    };
    LanguageModel::load_with(&path, None, &options, &Default::default())
        .unwrap_or_else(|e| panic!("loading {} ({weights:?}): {e}", path.display()))
}

/// llama.cpp's answer to `request` (see `scripts/llama-reference.py`).
fn llama_cpp(request: &serde_json::Value) -> serde_json::Value {
    let env = Command::new(root().join("scripts/llama-env.sh"))
        .output()
        .expect("scripts/llama-env.sh runs");
    assert!(
        env.status.success(),
        "the Qwen parity tests need llama.cpp's Python package: scripts/llama-env.sh \
         builds its virtual environment (4-10 minutes) and failed: {}",
        String::from_utf8_lossy(&env.stderr)
    );
    let venv = String::from_utf8_lossy(&env.stdout).trim().to_string();
    let dir = TempDir::new();
    let file = dir.write("request.json", &request.to_string());
    let model = resolve_model(ALIAS).expect("model fetched");
    let out = Command::new(format!("{venv}/bin/python"))
        .arg(root().join("scripts/llama-reference.py"))
        .arg(&model)
        .arg(&file)
        .output()
        .expect("the llama.cpp reference runs");
    assert!(
        out.status.success(),
        "scripts/llama-reference.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the reference prints JSON")
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .expect("an array of ids")
        .iter()
        .map(|x| u32::try_from(x.as_u64().expect("an id")).expect("a u32 id"))
        .collect()
}

#[test]
fn qwen_tokenizes_as_llama_cpp_does() {
    let tokenizer = model().tokenizer();
    let prompts: Vec<&str> = SCORED.iter().map(|(p, _)| *p).collect();
    let texts: Vec<&str> = TEXTS
        .iter()
        .copied()
        .chain(SCORED.iter().map(|(_, c)| *c))
        .collect();
    let reference = llama_cpp(&json!({ "prompts": prompts, "texts": texts, "score": [] }));
    for (text, want) in texts
        .iter()
        .zip(reference["texts"].as_array().expect("texts"))
    {
        assert_eq!(tokenizer.encode(text).unwrap(), ids(want), "{text:?}");
    }
    for (prompt, want) in prompts
        .iter()
        .zip(reference["prompts"].as_array().expect("prompts"))
    {
        assert_eq!(
            tokenizer.encode_prompt(prompt).unwrap(),
            ids(want),
            "{prompt:?}"
        );
    }
    // Special tokens are single tokens, not their spelling.
    let chat = tokenizer.encode("<|im_start|>user<|im_end|>").unwrap();
    assert_eq!(chat.len(), 3, "{chat:?}");
}

#[test]
fn qwen_log_probabilities_match_llama_cpp_with_weights_in_f32_and_in_int8() {
    let m = model();
    let encoded: Vec<(Vec<u32>, Vec<u32>)> = SCORED
        .iter()
        .map(|(p, c)| {
            (
                m.tokenizer().encode_prompt(p).unwrap(),
                m.tokenizer().encode(c).unwrap(),
            )
        })
        .collect();
    let score: Vec<_> = encoded
        .iter()
        .map(|(p, c)| json!({ "prompt": p, "continuation": c }))
        .collect();
    let reference = llama_cpp(&json!({ "score": score }));
    let want: Vec<Vec<f64>> = reference["logprobs"]
        .as_array()
        .expect("logprobs")
        .iter()
        .map(|case| {
            case.as_array()
                .expect("a case's log-probabilities")
                .iter()
                .map(|x| x.as_f64().expect("a number"))
                .collect()
        })
        .collect();
    let int8 = load(WeightStorage::Int8);
    for (model, weights) in [(m, "f32"), (&int8, "int8")] {
        let (mean, max, tokens) = differences(model, &encoded, &want);
        eprintln!("qwen parity, {weights} weights, over {tokens} tokens: mean |Δ| {mean:.4}, largest {max:.4} nats");
        assert!(
            mean <= MEAN_TOLERANCE && max <= MAX_TOLERANCE,
            "bip ({weights} weights) vs llama.cpp: mean |Δ| {mean:.4} (allowed \
             {MEAN_TOLERANCE}), largest {max:.4} (allowed {MAX_TOLERANCE}) nats per token"
        );
    }
}

/// The mean and largest per-token difference between `model`'s log-probabilities of the
/// `encoded` (prompt, continuation) pairs and `want`, llama.cpp's, and the tokens compared.
fn differences(
    model: &LanguageModel<Cpu>,
    encoded: &[(Vec<u32>, Vec<u32>)],
    want: &[Vec<f64>],
) -> (f64, f64, usize) {
    let requests: Vec<TokenRequest<'_>> = encoded
        .iter()
        .map(|(p, c)| TokenRequest {
            prompt: p,
            continuation: c,
        })
        .collect();
    let got = model
        .score_tokens(
            &mut PrefixCache::default(),
            &requests,
            &ScoreOptions::default(),
        )
        .expect("the model scores every pair");
    let mut diffs = Vec::new();
    for ((scored, want), (prompt, _)) in got.iter().zip(want).zip(&SCORED) {
        assert_eq!(scored.logprobs.len(), want.len(), "{prompt:?}");
        for (g, w) in scored.logprobs.iter().zip(want) {
            assert!(*w < 0.0 && w.is_finite(), "{prompt:?}: llama.cpp gave {w}");
            diffs.push((f64::from(*g) - w).abs());
        }
    }
    let mean = diffs.iter().sum::<f64>() / diffs.len() as f64;
    let max = diffs.iter().copied().fold(0.0, f64::max);
    (mean, max, diffs.len())
}
