//! Hostile model files: every size a file declares is checked against what it holds, and
//! every bad file is an error naming the file and the key or tensor at fault (never an
//! abort, a panic, or a model that silently computes something else).

use std::path::{Path, PathBuf};

use crate::load::gguf::{GgmlType, GgufValue};
use crate::lora::{LoraAdapter, LoraConfig, LoraModule, LoraPair, ADAPTER_CONFIG};
use crate::tests::TestBackend;
use crate::testutil::{temp_dir, tiny_config, tiny_gguf, write_tiny_gguf_and_hf, TinyGguf};
use crate::{
    score_tokens, LanguageModel, LlamaConfig, LoadOptions, MemoryWeights, ModelError, ModelInfo,
    PrefixCache, ScoreOptions, TokenRequest, Transformer, DEFAULT_MAX_CONTEXT,
};

type Model = LanguageModel<TestBackend>;

/// The error of loading `path`, as the command line prints it (the chain, joined).
fn load_error(path: &Path) -> String {
    match Model::load(path, &Default::default()) {
        Ok(_) => panic!("{} loads", path.display()),
        Err(e) => chain(&e),
    }
}

fn chain(err: &ModelError) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        text += &format!(": {s}");
        source = s.source();
    }
    text
}

/// The byte offset of the offset field of tensor `name` in GGUF `bytes`.
fn offset_field(bytes: &[u8], name: &str) -> usize {
    let at = bytes
        .windows(name.len())
        .position(|w| w == name.as_bytes())
        .unwrap()
        + name.len();
    let n_dims = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    at + 4 + 8 * n_dims + 4
}

/// A spoilt tiny GGUF file and what its error must say.
struct GgufCase {
    what: &'static str,
    spoil: fn(&mut TinyGguf),
    expected: &'static [&'static str],
}

const GGUF_CASES: &[GgufCase] = &[
    GgufCase {
        what: "a block count far beyond the tensors",
        spoil: |g| {
            g.set("llama.block_count", GgufValue::U64(1_000_000_000_000));
        },
        expected: &[
            "metadata key `llama.block_count`: 1000000000000 layers declared, but the weights hold tensors for 2",
            "`blk.2.attn_norm.weight` is missing",
        ],
    },
    GgufCase {
        what: "a block count below the tensors",
        spoil: |g| {
            g.set("llama.block_count", GgufValue::U32(1));
        },
        expected: &["`llama.block_count`: 1 layers declared, but the weights hold tensors for 2"],
    },
    GgufCase {
        what: "an unused extra tensor",
        spoil: |g| {
            g.tensors.push(("blk.0.attn_extra.weight".into(), vec![4], GgmlType::F32, vec![0; 16]));
        },
        expected: &["tensor `blk.0.attn_extra.weight`: is not a tensor of the model the file describes"],
    },
    GgufCase {
        what: "rotary frequency factors bip would ignore",
        spoil: |g| {
            g.tensors.push(("rope_freqs.weight".into(), vec![32], GgmlType::F32, vec![0; 128]));
        },
        expected: &["tensor `rope_freqs.weight`: is not a tensor"],
    },
    GgufCase {
        what: "a BOS id beyond the vocabulary",
        spoil: |g| {
            g.set("tokenizer.ggml.bos_token_id", GgufValue::U32(263));
        },
        expected: &["metadata key `tokenizer.ggml.bos_token_id`: U32(263) is not a token id: the vocabulary has 263 tokens"],
    },
    GgufCase {
        what: "an EOS id that is not an id",
        spoil: |g| {
            g.set("tokenizer.ggml.eos_token_id", GgufValue::I32(-1));
        },
        expected: &["`tokenizer.ggml.eos_token_id`: I32(-1) is not a token id"],
    },
    GgufCase {
        what: "more tokens than embedding rows",
        spoil: |g| {
            let rows = 250;
            g.set("llama.vocab_size", GgufValue::U32(rows));
            let embed = g.tensors.iter_mut().find(|t| t.0 == "token_embd.weight").unwrap();
            embed.1[0] = rows as usize;
            embed.3.truncate(rows as usize * 256 / 32 * 34);
        },
        expected: &["`tokenizer.ggml.tokens`: 263 tokens, but the model's embedding has 250 rows"],
    },
    GgufCase {
        what: "token types that do not match the tokens",
        spoil: |g| {
            g.set("tokenizer.ggml.token_type", GgufValue::Array(vec![GgufValue::I32(1); 3]));
        },
        expected: &["`tokenizer.ggml.token_type`: 3 types for 263 tokens"],
    },
    GgufCase {
        what: "an alignment past any offset",
        spoil: |g| {
            g.set("general.alignment", GgufValue::U64(1 << 63));
        },
        expected: &["truncated: tensor `token_embd.weight` needs bytes up to offset 92233"],
    },
];

#[test]
fn spoilt_gguf_files_are_errors_naming_the_key_or_tensor() {
    let dir = temp_dir("hostile-gguf");
    for (i, case) in GGUF_CASES.iter().enumerate() {
        let mut parts = tiny_gguf(&tiny_config(), 40);
        (case.spoil)(&mut parts);
        let path = dir.join(format!("case{i}.gguf"));
        parts.write(&path);
        let err = load_error(&path);
        let name = path.display().to_string();
        assert_eq!(
            err.matches(&name).count(),
            1,
            "{}: names the file once: {err}",
            case.what
        );
        for fragment in case.expected {
            assert!(err.contains(fragment), "{}: {err}", case.what);
        }
        // What `bip lm inspect` reads fails alike: the sizes are checked before use.
        let info = ModelInfo::read(&path).map(|_| ()).unwrap_err();
        assert_eq!(chain(&info), err, "{}", case.what);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn tensor_offsets_outside_the_file_are_refused_when_opened() {
    let dir = temp_dir("hostile-offsets");
    let path = dir.join("tiny.gguf");
    tiny_gguf(&tiny_config(), 41).write(&path);
    let bytes = std::fs::read(&path).unwrap();
    let name = "blk.1.ffn_up.weight";
    let at = offset_field(&bytes, name);
    for (offset, expected) in [
        // Wraps around when added to the data section's start.
        (
            u64::MAX - 31,
            "data offset 18446744073709551584 (36864 bytes) lies beyond any file",
        ),
        (
            bytes.len() as u64 / 32 * 32,
            "truncated: tensor `blk.1.ffn_up.weight` needs bytes up to",
        ),
        (33, "data offset 33 is not a multiple of the alignment 32"),
    ] {
        let mut bad = bytes.clone();
        bad[at..at + 8].copy_from_slice(&offset.to_le_bytes());
        std::fs::write(&path, &bad).unwrap();
        let err = load_error(&path);
        assert!(err.contains(expected), "offset {offset}: {err}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_declared_context_far_beyond_memory_runs_on_the_limit() {
    let dir = temp_dir("hostile-context");
    for (i, declared) in [GgufValue::U32(u32::MAX), GgufValue::U64(1 << 60)]
        .into_iter()
        .enumerate()
    {
        let mut parts = tiny_gguf(&tiny_config(), 42);
        parts.set("llama.context_length", declared);
        let path = dir.join(format!("ctx{i}.gguf"));
        parts.write(&path);
        let model = Model::load(&path, &Default::default()).unwrap();
        assert_eq!(model.config().max_seq_len, DEFAULT_MAX_CONTEXT);
        assert!(model.info().declared_context >= u32::MAX as usize);
        assert_eq!(model.transformer().max_len(), DEFAULT_MAX_CONTEXT);
        // Scores as the same weights do under their own context of 64.
        let reference = Model::load_with(
            &path,
            None,
            &LoadOptions::default().with_max_context(64),
            &Default::default(),
        )
        .unwrap();
        assert_eq!(reference.config().max_seq_len, 64);
        let request = [TokenRequest {
            prompt: &[40, 261, 7],
            continuation: &[262, 100],
        }];
        let score = |m: &Model| {
            m.score_tokens(
                &mut PrefixCache::default(),
                &request,
                &ScoreOptions::default(),
            )
            .unwrap()[0]
                .logprobs
                .clone()
        };
        assert_eq!(score(&model), score(&reference));
    }
    let err = Model::load_with(
        &dir.join("ctx0.gguf"),
        None,
        &LoadOptions::default().with_max_context(usize::MAX),
        &Default::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("max_context 18446744073709551615 is not in 1..=1048576"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Edits `dir/config.json` with `edit`.
fn edit_json(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut json);
    std::fs::write(path, json.to_string()).unwrap();
}

/// A fresh copy of the tiny Hugging Face folder.
fn tiny_hf(dir: &Path, name: &str) -> PathBuf {
    let dir = dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let (_, hf, _) = write_tiny_gguf_and_hf(&dir, &tiny_config(), 43);
    hf
}

#[test]
fn spoilt_hf_folders_are_errors_naming_the_file_and_key() {
    let dir = temp_dir("hostile-hf");
    type Edit = fn(&Path);
    let cases: [(&str, Edit, &str); 6] = [
        ("layers", |hf| edit_json(&hf.join("config.json"), |c| c["num_hidden_layers"] = 1_000_000_000_000u64.into()),
         "metadata key `num_hidden_layers`: 1000000000000 layers declared, but the weights hold tensors for 2"),
        ("fewer-layers", |hf| edit_json(&hf.join("config.json"), |c| c["num_hidden_layers"] = 1.into()),
         "metadata key `num_hidden_layers`: 1 layers declared, but the weights hold tensors for 2"),
        ("escape", |hf| edit_json(&hf.join("model.safetensors.index.json"), |i| i["weight_map"]["x"] = "../../../../etc/passwd".into()),
         "model.safetensors.index.json: `weight_map` names `../../../../etc/passwd`, which is not a file inside the model folder"),
        ("absolute", |hf| edit_json(&hf.join("model.safetensors.index.json"), |i| i["weight_map"]["x"] = "/etc/passwd".into()),
         "`weight_map` names `/etc/passwd`, which is not a file inside"),
        ("bos", |hf| edit_json(&hf.join("config.json"), |c| c["bos_token_id"] = 1_000_000.into()),
         "config.json: metadata key `bos_token_id`: 1000000 is not a token id: the tokenizer has 263 tokens"),
        ("bos-list", |hf| edit_json(&hf.join("config.json"), |c| c["bos_token_id"] = serde_json::json!([-1])),
         "config.json: metadata key `bos_token_id`: -1 is not a token id"),
    ];
    for (name, edit, expected) in cases {
        let hf = tiny_hf(&dir, name);
        edit(&hf);
        let err = load_error(&hf);
        assert!(err.contains(expected), "{name}: {err}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_declared_hf_context_far_beyond_memory_runs_on_the_limit() {
    let dir = temp_dir("hostile-hf-context");
    let hf = tiny_hf(&dir, "ctx");
    edit_json(&hf.join("config.json"), |c| {
        c["max_position_embeddings"] = (1u64 << 62).into()
    });
    let model = Model::load(&hf, &Default::default()).unwrap();
    assert_eq!(model.config().max_seq_len, DEFAULT_MAX_CONTEXT);
    assert_eq!(model.info().declared_context, 1 << 62);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Writes `adapter` to `dir`, then rewrites its config with `edit`.
fn saved_adapter(
    dir: &Path,
    adapter: &LoraAdapter,
    edit: impl FnOnce(&mut serde_json::Value),
) -> PathBuf {
    adapter.save(dir).unwrap();
    edit_json(&dir.join(ADAPTER_CONFIG), edit);
    dir.to_path_buf()
}

#[test]
fn hostile_adapters_are_errors_naming_the_key_or_tensor() {
    let dir = temp_dir("hostile-lora");
    let config = tiny_config();
    let (gguf, _, _) = write_tiny_gguf_and_hf(&dir, &config, 44);
    let adapter = LoraAdapter::random(&config, LoraConfig::new(4, 8.0), 1, 0.5);

    let huge_alpha = saved_adapter(&dir.join("alpha"), &adapter, |c| {
        c["lora_alpha"] = 1e308.into()
    });
    let err = chain(&LoraAdapter::load(&huge_alpha).unwrap_err());
    assert!(
        err.contains("adapter_config.json: metadata key `lora_alpha`: 1e308 over r (r = 4) scales updates by 2.5e307, beyond ±1000"),
        "{err}"
    );

    let empty = LoraAdapter::new(LoraConfig::new(4, 8.0));
    let none = saved_adapter(&dir.join("empty"), &empty, |_| {});
    let err = chain(&LoraAdapter::load(&none).unwrap_err());
    assert!(
        err.contains("adapter_model.safetensors: holds no LoRA weights"),
        "{err}"
    );

    // Finite factors whose product overflows `f32`.
    let mut huge = LoraAdapter::new(LoraConfig::new(1, 1.0));
    let [d_out, d_in] = LoraModule::Q.shape(&config);
    let pair = LoraPair::new(vec![3e38; d_in], [1, d_in], vec![3e38; d_out], [d_out, 1]).unwrap();
    huge.insert(0, LoraModule::Q, pair).unwrap();
    let huge = saved_adapter(&dir.join("huge"), &huge, |_| {});
    let loaded = LoraAdapter::load(&huge).unwrap();
    let err = Model::load_with_adapter(&gguf, &loaded, &Default::default()).unwrap_err();
    let err = chain(&err);
    assert!(
        err.contains("tensor `base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight`: merged into `model.layers.0.self_attn.q_proj.weight`, the update makes element 0 inf"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn weights_whose_squares_overflow_are_an_error_not_a_uniform_score() {
    let config = LlamaConfig::new(40, 16, 24, 1, 4, 2).with_max_seq_len(32);
    let mut weights = MemoryWeights::random(&config, 4);
    let name = "model.embed_tokens.weight";
    let (shape, data) = weights.get(name).unwrap();
    let (shape, huge) = (shape.to_vec(), vec![3e38; data.len()]);
    weights.insert(name, &shape, huge);
    let model =
        Transformer::<TestBackend>::from_weights(&config, &mut weights, &Default::default())
            .unwrap();
    let requests = [TokenRequest {
        prompt: &[1, 2, 3],
        continuation: &[4],
    }];
    let options = ScoreOptions::default();
    let err = score_tokens(&model, &mut PrefixCache::default(), &requests, &options).unwrap_err();
    assert!(matches!(err, ModelError::NotANumber { index: 0 }), "{err}");
}

#[test]
fn weights_that_overflow_in_use_are_an_error_not_nan() {
    let config = LlamaConfig::new(40, 16, 24, 1, 4, 2).with_max_seq_len(32);
    let mut weights = MemoryWeights::random(&config, 3);
    // Finite, but queries times keys overflow `f32`.
    for name in ["q_proj", "k_proj"].map(|m| format!("model.layers.0.self_attn.{m}.weight")) {
        let (shape, data) = weights.get(&name).unwrap();
        let (shape, huge) = (shape.to_vec(), vec![1e25; data.len()]);
        weights.insert(&name, &shape, huge);
    }
    let model =
        Transformer::<TestBackend>::from_weights(&config, &mut weights, &Default::default())
            .unwrap();
    let requests = [TokenRequest {
        prompt: &[1, 2, 3],
        continuation: &[4],
    }];
    let err = score_tokens(
        &model,
        &mut PrefixCache::default(),
        &requests,
        &ScoreOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ModelError::NotANumber { index: 0 }), "{err}");
    let err = crate::generate_greedy(&model, &[1, 2, 3], 2, &[]).unwrap_err();
    assert!(err.to_string().contains("the model computed NaN"), "{err}");
}
