//! `bip generate --training-pairs` and `bip train` end to end on a tiny model folder the
//! test writes (random weights, a byte-level tokenizer), and their errors.

use bip::models::{LanguageModel, LoraAdapter};

use crate::util::{bip, write_tiny_model, TempDir};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn generate_pairs_then_train_an_adapter_that_loads() {
    let tmp = TempDir::new();
    let model = tmp.path().join("tiny");
    std::fs::create_dir_all(&model).expect("mkdir");
    write_tiny_model(&model);
    let pairs = tmp.path().join("pairs.jsonl");
    let out = bip(["generate", "--n", "2", "--seed", "3", "--training-pairs"]
        .iter()
        .map(|s| s.to_string())
        .chain([pairs.display().to_string()]));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&pairs).expect("pairs written");
    let first: serde_json::Value =
        serde_json::from_str(text.lines().next().expect("a line")).expect("JSON");
    assert!(first["prompt"]
        .as_str()
        .expect("prompt")
        .ends_with("Next action:"));
    assert!(first["action"].as_str().expect("action").starts_with(' '));

    let adapter = tmp.path().join("adapter");
    let args = [
        "train",
        "--base",
        &model.display().to_string(),
        "--data",
        &pairs.display().to_string(),
        "--validation-fraction",
        "0.2",
        "--limit",
        "2",
        "--rank",
        "2",
        "--alpha",
        "4",
        "--lr",
        "0.01",
        "--epochs",
        "1",
        "--batch",
        "1",
        "--targets",
        "q,v,down",
        "--out",
        &adapter.display().to_string(),
    ]
    .map(String::from);
    let out = bip(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let log = std::fs::read_to_string(adapter.join("training_log.jsonl")).expect("log");
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(kinds, ["config", "epoch", "step", "step", "epoch", "done"]);
    assert!(events[2]["loss"].as_f64().expect("loss").is_finite());
    let loaded = LoraAdapter::load(&adapter).expect("a PEFT adapter");
    assert_eq!(loaded.config().r, 2);
    assert_eq!(loaded.pairs().count(), 2 * 3);
    assert!(!loaded.is_zero(), "training moved B off zero");
    LanguageModel::<bip::models::backend::Cpu>::load_with_adapter(
        &model,
        &loaded,
        &Default::default(),
    )
    .expect("the adapter fits its base");

    // A data line without "action" is named.
    let broken = tmp.write(
        "broken.jsonl",
        "{\"prompt\": \"a\", \"action\": \" b\"}\n{\"prompt\": \"c\"}\n",
    );
    let mut bad = args.clone();
    bad[4] = broken.display().to_string();
    let out = bip(&bad);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("broken.jsonl: line 2: missing field \"action\""),
        "{err}"
    );
    let mut bad = args.clone();
    bad[20] = "q,attn".into();
    let err = stderr(&bip(&bad));
    assert!(err.contains("--targets: unknown module \"attn\""), "{err}");
}
