//! Hostile model files and flags at the command line: each is refused with status 2 and
//! a message naming the file and the key, tensor or flag (never an abort, a panic or a
//! silently wrong score), and `bip lm` writes through the command's one output.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bip::models::load::gguf::GgufValue;
use bip::models::load::safetensors::{write_safetensors, StDtype};

use crate::util::{bip, byte_chars, json, stderr_of, write_tiny_gguf, write_tiny_model, TempDir};

/// `bip lm score` of " b" after "a a" on `model`, with `extra` flags.
fn score(model: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "lm",
        "score",
        "--model",
        model.to_str().expect("UTF-8"),
        "--prompt",
        "a a",
        "--continuation",
        " b",
        "--json",
    ];
    args.extend_from_slice(extra);
    bip(args)
}

/// Asserts a clean failure: status 2, every fragment on standard error, no panic, nothing
/// on standard output.
fn assert_refused(output: &std::process::Output, fragments: &[&str]) {
    let err = stderr_of(output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    for f in fragments {
        assert!(err.contains(f), "mentions {f:?}: {err}");
    }
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
    assert!(output.stdout.is_empty(), "nothing printed");
}

type Metadata = Vec<(String, GgufValue)>;
type Tensors = Vec<(String, Vec<usize>, Vec<f32>)>;

fn set(metadata: &mut Metadata, key: &str, value: GgufValue) {
    metadata.retain(|(k, _)| k != key);
    metadata.push((key.to_string(), value));
}

#[test]
fn hostile_gguf_files_are_refused_naming_the_file_and_key() {
    let dir = TempDir::new();
    type Spoil = fn(&mut Metadata, &mut Tensors);
    let cases: [(&str, Spoil, &[&str]); 5] = [
        ("layers-1e12", |m, _| set(m, "llama.block_count", GgufValue::U64(1_000_000_000_000)),
         &["metadata key `llama.block_count`: 1000000000000 layers declared, but the weights hold tensors for 2"]),
        ("layers-1", |m, _| set(m, "llama.block_count", GgufValue::U32(1)),
         &["`llama.block_count`: 1 layers declared, but the weights hold tensors for 2"]),
        ("extra", |_, t| t.push(("blk.0.attn_extra.weight".into(), vec![4], vec![0.0; 4])),
         &["tensor `blk.0.attn_extra.weight`: is not a tensor of the model"]),
        ("bos", |m, _| set(m, "tokenizer.ggml.bos_token_id", GgufValue::U32(256)),
         &["`tokenizer.ggml.bos_token_id`: U32(256) is not a token id: the vocabulary has 256 tokens"]),
        ("eos", |m, _| set(m, "tokenizer.ggml.eos_token_id", GgufValue::U64(1 << 40)),
         &["`tokenizer.ggml.eos_token_id`: U64(1099511627776) is not a token id"]),
    ];
    for (name, spoil, fragments) in cases {
        let path = dir.path().join(format!("{name}.gguf"));
        write_tiny_gguf(&path, spoil);
        let out = score(&path, &[]);
        assert_refused(&out, fragments);
        let err = stderr_of(&out);
        let shown = path.display().to_string();
        assert_eq!(err.matches(&shown).count(), 1, "the path once: {err}");
    }
}

#[test]
fn a_tensor_offset_that_wraps_around_is_refused() {
    let dir = TempDir::new();
    let path = dir.path().join("wrap.gguf");
    write_tiny_gguf(&path, |_, _| {});
    let mut bytes = std::fs::read(&path).expect("written");
    let name = b"blk.1.ffn_up.weight";
    let at = bytes
        .windows(name.len())
        .position(|w| w == name)
        .expect("named")
        + name.len();
    let field = at + 4 + 8 * 2 + 4;
    bytes[field..field + 8].copy_from_slice(&(u64::MAX - 31).to_le_bytes());
    std::fs::write(&path, bytes).expect("rewritten");
    assert_refused(
        &score(&path, &[]),
        &[
            "tensor `blk.1.ffn_up.weight`: data offset 18446744073709551584",
            "lies beyond any file",
        ],
    );
}

#[test]
fn a_huge_declared_context_scores_as_the_model_does() {
    let dir = TempDir::new();
    let plain = dir.path().join("plain.gguf");
    write_tiny_gguf(&plain, |_, _| {});
    let reference = json(&score(&plain, &[]));
    for (name, value) in [
        ("ctx32", GgufValue::U32(u32::MAX)),
        ("ctx60", GgufValue::U64(1 << 60)),
    ] {
        let path = dir.path().join(format!("{name}.gguf"));
        write_tiny_gguf(&path, |m, _| set(m, "llama.context_length", value));
        let doc = json(&score(&path, &[]));
        assert_eq!(doc["logprobs"], reference["logprobs"], "{name}");
        let out = bip(["lm", "inspect", "--model", path.to_str().expect("UTF-8")]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("context 32768 (declared "), "{text}");
    }
}

#[test]
fn hostile_hf_folders_and_adapters_are_refused() {
    let dir = TempDir::new();
    let model = dir.path().join("tiny");
    write_tiny_model(&model);
    let edit = |file: &str, f: &dyn Fn(&mut serde_json::Value)| {
        let path = model.join(file);
        let mut v: serde_json::Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| serde_json::json!({}));
        f(&mut v);
        std::fs::write(&path, v.to_string()).expect("written");
    };
    edit("config.json", &|c| {
        c["num_hidden_layers"] = 1_000_000_000_000u64.into()
    });
    assert_refused(&score(&model, &[]), &["config.json", "num_hidden_layers"]);
    edit("config.json", &|c| c["num_hidden_layers"] = 2.into());
    edit("model.safetensors.index.json", &|i| {
        i["weight_map"]["x"] = "../../../../etc/passwd".into()
    });
    assert_refused(
        &score(&model, &[]),
        &["model.safetensors.index.json: `weight_map` names `../../../../etc/passwd`, which is not a file inside the model folder"],
    );
    std::fs::remove_file(model.join("model.safetensors.index.json")).expect("removed");

    let adapter = dir.path().join("adapter");
    std::fs::create_dir_all(&adapter).expect("mkdir");
    let config = serde_json::json!({"r": 2, "lora_alpha": 1e308, "target_modules": ["q_proj"]});
    std::fs::write(adapter.join("adapter_config.json"), config.to_string()).expect("config");
    write_safetensors(
        &adapter.join("adapter_model.safetensors"),
        StDtype::F32,
        &[],
    )
    .expect("weights");
    let flag = ["--adapter", adapter.to_str().expect("UTF-8")];
    assert_refused(
        &score(&model, &flag),
        &["adapter_config.json: metadata key `lora_alpha`: 1e308 over r (r = 2) scales updates by 5e307"],
    );
    let config = serde_json::json!({"r": 2, "lora_alpha": 4, "target_modules": ["q_proj"]});
    std::fs::write(adapter.join("adapter_config.json"), config.to_string()).expect("config");
    assert_refused(
        &score(&model, &flag),
        &["adapter_model.safetensors: holds no LoRA weights"],
    );
}

#[test]
fn lm_and_policy_flags_are_checked_and_named() {
    let dir = TempDir::new();
    let model = dir.path().join("tiny");
    write_tiny_model(&model);
    let m = model.to_str().expect("UTF-8");
    let out = bip([
        "lm",
        "generate",
        "--model",
        m,
        "--prompt",
        "a",
        "--max-tokens",
        "18446744073709551615",
    ]);
    assert_refused(
        &out,
        &["--max-tokens: 18446744073709551615 is not in 1..=32768 (--max-context)"],
    );
    let out = bip([
        "lm",
        "generate",
        "--model",
        m,
        "--prompt",
        "a a a",
        "--max-tokens",
        "60",
        "--max-context",
        "62",
    ]);
    assert_refused(
        &out,
        &["5 prompt tokens plus 60 new ones exceed the context of 62"],
    );
    let out = score(&model, &["--max-context", "0"]);
    assert_refused(&out, &["--max-context: 0 is not in 1..=1048576"]);

    let episode = crate::util::examples()
        .into_iter()
        .next()
        .expect("an example");
    let e = episode.to_str().expect("UTF-8");
    let out = bip([
        "infer", e, "--policy", "w2s", "--large", m, "--expert", m, "--naive", m, "--alpha",
        "1e308",
    ]);
    assert_refused(&out, &["--alpha: 1e308 is not a number in [-100, 100]"]);
    let out = bip([
        "infer",
        e,
        "--policy",
        "hybrid",
        "--model",
        m,
        "--lm-weight",
        "inf",
    ]);
    assert_refused(&out, &["--lm-weight: inf is not a number in [0, 1000]"]);
}

#[test]
fn train_flags_are_checked_and_named() {
    let dir = TempDir::new();
    let model = dir.path().join("tiny");
    write_tiny_model(&model);
    let m = model.to_str().expect("UTF-8");
    let pairs = dir.path().join("pairs.jsonl");
    std::fs::write(&pairs, "{\"prompt\": \"a\", \"action\": \" b\"}\n").expect("pairs");
    let train = |flag: &str| {
        bip([
            "train",
            "--base",
            m,
            "--data",
            pairs.to_str().expect("UTF-8"),
            "--out",
            dir.path().join("out").to_str().expect("UTF-8"),
            flag,
        ])
    };
    for (flag, message) in [
        (
            "--weight-decay=-5",
            "--weight-decay: -5 is not a number in [0, 1]",
        ),
        ("--lr=1e308", "--lr: 1e308 is not a number in (0, 1]"),
        (
            "--alpha=1e308",
            "--alpha: 1e308 over --rank 8 scales updates by 1.25e307",
        ),
        ("--rank=0", "--rank: 0 is not in 1..=65536"),
        (
            "--epochs=18446744073709551615",
            "--epochs: 18446744073709551615 is not in 1..=1000000",
        ),
        ("--warmup=NaN", "--warmup: NaN is not a number in [0, 1)"),
        ("--limit=0", "--limit: 0 is not in 1.."),
    ] {
        assert_refused(&train(flag), &[message]);
    }
}

#[test]
fn messages_name_the_cause_once() {
    let dir = TempDir::new();
    let model = dir.path().join("tiny");
    write_tiny_model(&model);
    // A pair too long for the context, on line 3 of the validation file.
    let pairs = dir.path().join("pairs.jsonl");
    std::fs::write(&pairs, "{\"prompt\": \"a\", \"action\": \" b\"}\n").expect("pairs");
    let held = dir.path().join("held.jsonl");
    let long = "a ".repeat(40);
    std::fs::write(&held, format!("{{\"prompt\": \"a\", \"action\": \" b\"}}\n\n{{\"prompt\": \"{long}\", \"action\": \" b\"}}\n")).expect("held");
    let out = bip([
        "train",
        "--base",
        model.to_str().expect("UTF-8"),
        "--data",
        pairs.to_str().expect("UTF-8"),
        "--validation",
        held.to_str().expect("UTF-8"),
        "--max-context",
        "16",
        "--out",
        dir.path().join("out").to_str().expect("UTF-8"),
    ]);
    assert_refused(
        &out,
        &[
            "tokenizing the validation pairs",
            "held.jsonl: line 3: 82 tokens exceed the model's context of 16",
        ],
    );

    // A path that cannot be reached is not "no such file".
    let out = bip(["lm", "inspect", "--model", "/etc/hostname/model.gguf"]);
    assert_refused(&out, &["/etc/hostname/model.gguf", "Not a directory"]);
    assert!(
        !stderr_of(&out).contains("no such model file"),
        "{}",
        stderr_of(&out)
    );

    // A tokenizer that cannot spell the prompt says so.
    let narrow = dir.path().join("narrow");
    write_narrow_model(&narrow);
    let out = bip([
        "lm",
        "score",
        "--model",
        narrow.to_str().expect("UTF-8"),
        "--prompt",
        "zzz",
        "--continuation",
        "a",
    ]);
    assert_refused(&out, &["tokenizer.json", "\"zzz\" encodes to no tokens"]);
    assert!(
        !stderr_of(&out).contains("empty prompt"),
        "{}",
        stderr_of(&out)
    );

    // The OS's words follow the path once.
    let out = score(&dir.path().join("none.gguf"), &[]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("none.gguf").count(), 1, "{err}");
}

/// A tiny model whose tokenizer knows only `a`, `b` and the space: other letters encode to
/// nothing.
fn write_narrow_model(dir: &Path) {
    write_tiny_model(dir);
    let chars = byte_chars();
    let three: Vec<char> = [b'a', b'b', b' ']
        .iter()
        .map(|&b| chars[b as usize])
        .collect();
    crate::util::write_byte_level_tokenizer(dir, &three);
}

/// Runs `bip lm inspect` on a tiny model with standard output sent to `stdout`.
fn inspect_into(stdout: impl Into<Stdio>) -> (std::process::Output, TempDir) {
    let dir = TempDir::new();
    let model: PathBuf = dir.path().join("tiny");
    write_tiny_model(&model);
    let out = Command::new(env!("CARGO_BIN_EXE_bip"))
        .args(["lm", "inspect", "--json", "--model"])
        .arg(&model)
        .stdout(stdout)
        .output()
        .expect("bip runs");
    (out, dir)
}

#[test]
fn lm_output_to_a_closed_pipe_ends_quietly() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let (out, _dir) = inspect_into(writer);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "nothing on standard error: {err}");
}

#[test]
fn lm_output_to_a_full_device_is_an_error_naming_it() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("no /dev/full on this system: nothing to write to");
        return;
    };
    let (out, _dir) = inspect_into(full);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
