//! Flags of LM scoring shared by every command that scores: the persistent score cache,
//! and served models (an endpoint in place of a model file).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context};
use clap::Args;

use bip::cached::{CachedScorer, TokenScorer};
use bip::engine::TextScorer;
use bip::models::{Endpoint, RemoteOptions, ScoreCache};
use bip::remote::RemoteScorer;

/// Most requests in flight at once to a served model.
const MAX_CONCURRENCY: usize = 256;

/// Score cache and served-model flags.
#[derive(Debug, Args)]
pub struct ScoringArgs {
    /// Keep every score in this folder (one file per model) across runs: an interrupted
    /// run resumes where it stopped, a repeated one recomputes nothing.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Served models: the model's name at the endpoint given as a model
    /// (`http://HOST:PORT/v1`); the same as writing `URL#NAME`.
    #[arg(long, value_name = "NAME")]
    served_model: Option<String>,
    /// Served models: bip's tokenizer for the served model (a GGUF file, a Hugging Face
    /// folder or its tokenizer.json, or an alias); the engine's tokens are checked
    /// against it before anything is scored.
    #[arg(long, value_name = "MODEL")]
    tokenizer: Option<String>,
    /// Served models: requests in flight at once (the engine batches them).
    #[arg(long, value_name = "N", default_value_t = 4)]
    concurrency: usize,
    /// The caches opened, for the report at the end.
    #[arg(skip)]
    opened: Mutex<Vec<Arc<ScoreCache>>>,
}

impl ScoringArgs {
    /// Whether `spec` (a `--model`, `--large`, ... value) names a served model.
    pub fn is_served(spec: &str) -> bool {
        Endpoint::is_endpoint(spec)
    }

    /// Connects to the served model `spec`.
    pub fn connect(&self, spec: &str) -> anyhow::Result<RemoteScorer> {
        if !(1..=MAX_CONCURRENCY).contains(&self.concurrency) {
            bail!(
                "--concurrency: {} is not in 1..={MAX_CONCURRENCY}",
                self.concurrency
            );
        }
        let Some(tokenizer) = &self.tokenizer else {
            bail!(
                "{spec} is a served model: name bip's tokenizer for it with --tokenizer \
                 (a GGUF file, a Hugging Face folder or an alias)"
            );
        };
        // A key in the environment, not on the command line, where `ps` would show it.
        let api_key = std::env::var("BIP_API_KEY").ok().filter(|k| !k.is_empty());
        let options = RemoteOptions {
            concurrency: self.concurrency,
            api_key,
            ..RemoteOptions::default()
        };
        bip::remote::connect(spec, self.served_model.as_deref(), tokenizer, options)
            .with_context(|| format!("connecting to the served model {spec}"))
    }

    /// `scorer` behind the score cache of `--cache`, when given.
    pub fn cached(&self, scorer: Box<dyn TokenScorer>) -> anyhow::Result<Box<dyn TextScorer>> {
        let cache = match &self.cache {
            Some(dir) => {
                let cache = ScoreCache::open(dir, &scorer.identity())
                    .context("opening the score cache (--cache)")?;
                let cache = Arc::new(cache);
                if let Ok(mut opened) = self.opened.lock() {
                    opened.push(Arc::clone(&cache));
                }
                Some(cache)
            }
            None => None,
        };
        Ok(Box::new(CachedScorer::new(scorer, cache)))
    }

    /// One line per score cache used: its hits, lookups and file.
    pub fn report(&self) -> Vec<String> {
        let opened = self.opened.lock().map(|o| o.clone()).unwrap_or_default();
        opened
            .iter()
            .map(|cache| {
                let stats = cache.stats();
                let rate = stats
                    .hit_rate()
                    .map_or("-".into(), |r| format!("{:.1}%", r * 100.0));
                format!(
                    "score cache: {} of {} scores found ({rate}; {} held at start) in {}",
                    stats.hits,
                    stats.lookups,
                    stats.loaded,
                    cache.path().display()
                )
            })
            .collect()
    }
}
