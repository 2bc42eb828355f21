//! Served models as scorers, against a real engine: llama.cpp's OpenAI-compatible server
//! serving the SmolLM2 file bip loads itself (`scripts/llama-server.sh` starts it on the
//! loopback; `scripts/test.sh` makes its virtual environment first). Requests are few and
//! short: llama-cpp-python spends ~0.1 s of Python per echoed position.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{bip, json, root, TempDir, MAX_TOLERANCE, MEAN_TOLERANCE};

/// A llama.cpp server on the loopback, stopped when dropped.
struct Server {
    port: u16,
    pid: u32,
}

impl Server {
    fn start() -> Self {
        let out = Command::new(root().join("scripts/llama-server.sh"))
            .arg("start")
            .stderr(Stdio::inherit())
            .output()
            .expect("scripts/llama-server.sh runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut words = text.split_whitespace().map(str::parse::<u32>);
        match (out.status.success(), words.next(), words.next()) {
            (true, Some(Ok(port)), Some(Ok(pid))) => Self {
                port: u16::try_from(port).expect("a port"),
                pid,
            },
            _ => panic!(
                "the remote-scoring tests need llama.cpp's server: run scripts/llama-env.sh \
                 (builds its virtual environment, 4-10 minutes) and scripts/fetch-models.sh, \
                 then scripts/llama-server.sh start should print a port and a pid (it \
                 printed {text:?})"
            ),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    fn stop(&self) {
        let _ = Command::new(root().join("scripts/llama-server.sh"))
            .args(["stop", &self.pid.to_string()])
            .status();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn score(model: &str, prompt: &str, continuation: &str) -> serde_json::Value {
    json(&bip([
        "lm",
        "score",
        "--model",
        model,
        "--tokenizer",
        "smollm2-135m",
        "--prompt",
        prompt,
        "--continuation",
        continuation,
        "--json",
    ]))
}

#[test]
fn served_log_probabilities_match_bips_own() {
    let server = Server::start();
    let texts = [
        (
            "The capital of France is",
            " Paris, and the capital of Italy is Rome.",
        ),
        (
            "Ann is in the kitchen. She wants a cupcake.",
            " She walks to the fridge.",
        ),
        ("1, 2, 3,", " 4, 5, 6"),
    ];
    let mut differences: Vec<f64> = Vec::new();
    for (prompt, continuation) in texts {
        let remote = score(&server.url(), prompt, continuation);
        let local = score("smollm2-135m", prompt, continuation);
        assert_eq!(remote["token_ids"], local["token_ids"], "{prompt:?}");
        let values = |v: &serde_json::Value| -> Vec<f64> {
            v["logprobs"]
                .as_array()
                .expect("logprobs")
                .iter()
                .filter_map(|x| x.as_f64())
                .collect()
        };
        let (r, l) = (values(&remote), values(&local));
        assert_eq!(r.len(), l.len());
        assert!(!r.is_empty());
        differences.extend(r.iter().zip(&l).map(|(a, b)| (a - b).abs()));
    }
    let worst = differences.iter().copied().fold(0.0, f64::max);
    let mean = differences.iter().sum::<f64>() / differences.len() as f64;
    assert!(worst <= MAX_TOLERANCE, "largest difference {worst} nats");
    assert!(mean <= MEAN_TOLERANCE, "mean difference {mean} nats");
}

#[test]
fn a_tokenizer_that_does_not_match_is_refused_before_scoring() {
    let server = Server::start();
    let dir = TempDir::new();
    let vocab: serde_json::Map<String, serde_json::Value> = ["[UNK]", "The", "cat"]
        .iter()
        .enumerate()
        .map(|(i, w)| (w.to_string(), serde_json::Value::from(i)))
        .collect();
    crate::util::write_tokenizer(
        dir.path(),
        serde_json::json!({"type": "Whitespace"}),
        serde_json::Value::Null,
        serde_json::json!({"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}),
    );
    let tokenizer = dir.path().join("tokenizer.json");
    let out = bip([
        "lm",
        "score",
        "--model",
        &server.url(),
        "--tokenizer",
        tokenizer.to_str().expect("utf-8"),
        "--prompt",
        "The cat",
        "--continuation",
        " sat",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tokenizer does not match"), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{}", server.port)), "{err}");
}

/// Cache file lines (the header and one per score) in `dir`.
fn cached_lines(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .map(|t| t.lines().count())
                .sum()
        })
        .unwrap_or(0)
}

/// The header line of the one cache file in `dir`.
fn cache_header(dir: &Path) -> String {
    let mut files = std::fs::read_dir(dir)
        .expect("the cache folder")
        .filter_map(Result::ok);
    let file = files.next().expect("a cache file");
    assert!(files.next().is_none(), "one model, one cache file");
    let text = std::fs::read_to_string(file.path()).expect("the cache file reads");
    text.lines().next().unwrap_or_default().to_string()
}

fn eval_args<'a>(url: &'a str, cache: &'a str, episode: &'a str) -> Vec<&'a str> {
    let mut args = vec!["eval", episode, "--json", "--policy", "lm", "--model", url];
    args.extend(["--tokenizer", "smollm2-135m", "--cache", cache]);
    args
}

#[test]
fn a_server_killed_mid_run_loses_nothing_and_the_rerun_finishes_alike() {
    let episode = root().join("episodes/examples/1.2-false-belief-short.json");
    let episode = episode.to_str().expect("utf-8");
    let dir = TempDir::new();
    let cache = dir.path().join("cache");
    let cache_arg = cache.to_str().expect("utf-8");

    // Killed mid-run: a clear error naming the endpoint; what was scored stays.
    let server = Server::start();
    let url = server.url();
    let run = Command::new(env!("CARGO_BIN_EXE_bip"))
        .args(eval_args(&url, cache_arg, episode))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bip runs");
    let started = Instant::now();
    while cached_lines(&cache) < 3 && started.elapsed() < Duration::from_secs(300) {
        std::thread::sleep(Duration::from_millis(100));
    }
    server.stop();
    let out = run.wait_with_output().expect("bip ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{}", server.port)), "{err}");
    let kept = cached_lines(&cache);
    assert!(kept >= 3, "{kept} lines kept");
    // Scores are kept under the served name and the way the echo was read, so that a
    // change of reading never serves old scores.
    let header = cache_header(&cache);
    let reading = format!("echo reading {}", bip::models::remote::ECHO_READING);
    assert!(
        header.contains(&reading) && header.contains("alignment previous"),
        "{header}"
    );

    // The rerun (another server, another port) takes up where it stopped.
    let server = Server::start();
    let out = bip(eval_args(&server.url(), cache_arg, episode));
    let remote = json(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("score cache: {} of", kept - 1)),
        "{err}"
    );

    // The same answers as bip's own model.
    let local = json(&bip(["eval", episode, "--json", "--policy", "lm"]));
    assert_eq!(remote["correct"], local["correct"]);
    assert_eq!(remote["accuracy"], local["accuracy"]);

    // A repeated run recomputes nothing.
    let out = bip(eval_args(&server.url(), cache_arg, episode));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("score cache"))
        .expect("a cache line");
    assert!(line.contains("(100.0%"), "{line}");
}

#[test]
fn weak_to_strong_with_a_served_large_model_answers_as_all_local() {
    use bip::models::{LlamaConfig, LoraAdapter, LoraConfig};
    let dir = TempDir::new();
    let adapter = dir.path().join("adapter");
    LoraAdapter::random(
        &LlamaConfig::smollm2_135m(),
        LoraConfig::new(4, 8.0),
        3,
        0.05,
    )
    .save(&adapter)
    .expect("adapter saved");
    let adapter = adapter.to_str().expect("utf-8");
    let episode = root().join("episodes/examples/1.2-false-belief-short.json");
    let episode = episode.to_str().expect("utf-8");
    let server = Server::start();
    let run = |large: &str| {
        let mut args = vec![
            "infer", episode, "--json", "--policy", "w2s", "--large", large,
        ];
        args.extend(["--tokenizer", "smollm2-135m", "--expert", "smollm2-135m"]);
        args.extend(["--expert-adapter", adapter, "--naive", "smollm2-135m"]);
        let out = bip(args);
        let question = json(&out)["episodes"][0]["questions"][0].clone();
        (question, String::from_utf8_lossy(&out.stderr).to_string())
    };
    let ((remote, said), (local, _)) = (run(&server.url()), run("smollm2-135m"));
    // The top-k mode says how wide its bounds grew.
    let bound = said
        .lines()
        .find_map(|l| l.split("at most ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|nats| nats.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no top-k bound in {said:?}"));
    assert!(bound > 0.0 && bound.is_finite(), "{said}");
    assert_eq!(remote["answer"], local["answer"], "{remote} vs {local}");
    let p = |q: &serde_json::Value| q["posterior"]["a"].as_f64().expect("a posterior");
    // The served L differs by llama.cpp's quantised arithmetic and by the top-k estimate
    // (bounded per token); this question's margin, 0.3, leaves room for both.
    assert!((p(&remote) - p(&local)).abs() < 0.05, "{remote} vs {local}");
}
