//! Training a tiny model written by the tests: LoRA branches agree with the base and the
//! merged model, the loss falls, and the saved adapter reproduces the trained model.

use std::path::PathBuf;

use super::*;
use crate::lora::{LoraAdapter, LoraConfig};
use crate::testutil::{max_diff, temp_dir, tiny_config, write_tiny_gguf};
use crate::{Autodiff, LanguageModel, PrefixCache, ScoreOptions, ScoreRequest};

type Inference = burn_flex::Flex;
type Training = Autodiff<burn_flex::Flex>;

fn pair(prompt: &str, action: &str) -> TextPair {
    TextPair {
        prompt: prompt.into(),
        action: action.into(),
    }
}

/// A tiny task: the action names the thing in the prompt.
fn task() -> Vec<TextPair> {
    ["cat", "dog", "hen", "owl", "elk", "yak", "ant", "bee"]
        .iter()
        .map(|a| pair(&format!("the {a} is in the"), &format!(" {a}s den")))
        .collect()
}

/// Per-token log-probabilities of each pair's action under `model`, by the inference path.
fn scored(model: &LanguageModel<Inference>, pairs: &[TextPair]) -> Vec<Vec<f32>> {
    let requests: Vec<ScoreRequest<'_>> = pairs
        .iter()
        .map(|p| ScoreRequest {
            prompt: &p.prompt,
            continuation: &p.action,
        })
        .collect();
    let mut cache = PrefixCache::default();
    model
        .score(&mut cache, &requests, &ScoreOptions::default())
        .unwrap()
        .into_iter()
        .map(|s| s.logprobs)
        .collect()
}

/// A tiny model written as a GGUF file into a fresh folder (removed on drop), loaded for
/// training, and the task tokenized.
struct Fixture {
    dir: PathBuf,
    gguf: PathBuf,
    trainer: LoraTrainer<Training>,
    pairs: Vec<TextPair>,
    examples: Vec<TokenPair>,
}

impl Fixture {
    fn new(name: &str, seed: u64) -> Self {
        let dir = temp_dir(name);
        let gguf = dir.join("tiny.gguf");
        write_tiny_gguf(&gguf, &tiny_config(), seed);
        let trainer = LoraTrainer::<Training>::load(&gguf, &Default::default()).unwrap();
        let pairs = task();
        let examples = trainer.encode(&pairs).unwrap();
        Self {
            dir,
            gguf,
            trainer,
            pairs,
            examples,
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn assert_all_close(a: &[Vec<f32>], b: &[Vec<f32>], tol: f32) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!(max_diff(x, y) <= tol, "{x:?} vs {y:?} (tolerance {tol})");
    }
}

#[test]
fn lora_branches_off_give_the_base_and_on_give_the_merged_model() {
    let Fixture {
        gguf,
        trainer,
        pairs,
        examples,
        ..
    } = &Fixture::new("train-branches", 31);
    let (config, dev) = (tiny_config(), Default::default());
    let by_trainer = |adapter: Option<&LoraAdapter>| -> Vec<Vec<f32>> {
        examples
            .iter()
            .map(|e| trainer.action_logprobs(e, adapter).unwrap())
            .collect()
    };
    // Off: a fresh adapter's branches (B = 0) add exactly nothing.
    let base = by_trainer(None);
    let zero = LoraAdapter::init(&config, LoraConfig::new(4, 8.0), 9);
    assert_eq!(by_trainer(Some(&zero)), base);
    let plain = LanguageModel::<Inference>::load(gguf, &dev).unwrap();
    assert_all_close(&base, &scored(&plain, pairs), 1e-4);
    // On: branches compute what the merged weights compute. Query and key updates too,
    // which reach the rotate-half twins, although the GGUF file stores those rows permuted.
    let adapter = LoraAdapter::random(&config, LoraConfig::new(4, 8.0), 9, 0.3);
    let merged = LanguageModel::<Inference>::load_with_adapter(gguf, &adapter, &dev).unwrap();
    assert_all_close(&by_trainer(Some(&adapter)), &scored(&merged, pairs), 1e-4);
}

#[test]
fn loss_falls_and_the_saved_adapter_reproduces_the_trained_model() {
    let fixture = Fixture::new("train-run", 32);
    let Fixture {
        dir,
        gguf,
        trainer,
        pairs,
        examples,
    } = &fixture;
    let (train, validation) = examples.split_at(6);
    let options = TrainOptions {
        rank: 4,
        alpha: 8.0,
        learning_rate: 1e-2,
        epochs: 4,
        batch_size: 3,
        ..TrainOptions::default()
    };
    let mut events = Vec::new();
    let outcome = trainer
        .train(train, validation, &options, &mut |e| events.push(e.clone()))
        .unwrap();
    assert_eq!(outcome.steps, 8);
    let steps: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            TrainEvent::Step { loss, .. } => Some(*loss),
            _ => None,
        })
        .collect();
    assert_eq!(steps.len(), 8);
    assert!(steps.iter().all(|l| l.is_finite()));
    let base_train = trainer.mean_loss(train, None).unwrap().unwrap();
    let trained_train = trainer
        .mean_loss(train, Some(&outcome.adapter))
        .unwrap()
        .unwrap();
    assert!(
        trained_train < base_train - 0.5,
        "training loss {base_train} -> {trained_train}"
    );
    let base_val = outcome.base_validation_loss.unwrap();
    let best_val = outcome.best_validation_loss.unwrap();
    assert!(outcome.best_epoch > 0, "no epoch beat the base model");
    assert!(best_val < base_val, "validation {base_val} -> {best_val}");

    let saved = dir.join("adapter");
    outcome.adapter.save(&saved).unwrap();
    let reloaded = LoraAdapter::load(&saved).unwrap();
    let model = LanguageModel::<Inference>::load_with_adapter(gguf, &reloaded, &Default::default())
        .unwrap();
    let by_trainer: Vec<Vec<f32>> = examples
        .iter()
        .map(|e| trainer.action_logprobs(e, Some(&outcome.adapter)).unwrap())
        .collect();
    assert_all_close(&scored(&model, pairs), &by_trainer, 1e-4);
}

#[test]
fn bad_options_and_examples_are_errors() {
    let Fixture {
        trainer, examples, ..
    } = &Fixture::new("train-errors", 33);
    let zero_rank = TrainOptions {
        rank: 0,
        ..TrainOptions::default()
    };
    let err = trainer
        .train(examples, &[], &zero_rank, &mut |_| {})
        .unwrap_err();
    assert!(err.to_string().contains("rank 0"), "{err}");
    let long = pair(&"xyz ".repeat(20), " cat");
    let err = trainer.encode(&[task()[0].clone(), long]).unwrap_err();
    assert!(
        err.to_string().contains("request 1") && err.to_string().contains("context of 64"),
        "{err}"
    );
}
