//! Flags of LM scoring shared by every command that scores: the persistent score cache,
//! and served models (an endpoint in place of a model file).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::Args;

use bip::models::ScoreCache;
use bip::policy::ServingOptions;
use bip::remote_w2s::WidestBound;

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
    /// Served models: requests in flight at once (the engine batches them; at most 256).
    #[arg(long, value_name = "N", default_value_t = 4)]
    concurrency: usize,
    /// The caches opened, for the report at the end.
    #[arg(skip)]
    opened: Mutex<Vec<Arc<ScoreCache>>>,
    /// The widest top-k bounds of weak-to-strong scorers with a served L, for the report.
    #[arg(skip)]
    bounds: Mutex<Vec<Arc<WidestBound>>>,
}

impl ScoringArgs {
    /// The library's options for the flags; the API key comes from `BIP_API_KEY` in the
    /// environment, not the command line, where `ps` would show it.
    pub fn options(&self) -> ServingOptions {
        ServingOptions {
            cache: self.cache.clone(),
            served_model: self.served_model.clone(),
            tokenizer: self.tokenizer.clone(),
            concurrency: self.concurrency,
            api_key: std::env::var("BIP_API_KEY").ok().filter(|k| !k.is_empty()),
        }
    }

    /// Notes the caches a policy opened, and its top-k bound if it has one.
    pub fn opened(&self, caches: Vec<Arc<ScoreCache>>, bound: Option<Arc<WidestBound>>) {
        if let Ok(mut opened) = self.opened.lock() {
            opened.extend(caches);
        }
        if let (Ok(mut bounds), Some(bound)) = (self.bounds.lock(), bound) {
            bounds.push(bound);
        }
    }

    /// One line per score cache used (its hits, lookups and file), then one per top-k
    /// bound (the widest interval met).
    pub fn report(&self) -> Vec<String> {
        let bounds = self.bounds.lock().map(|b| b.clone()).unwrap_or_default();
        let bound_lines = bounds.into_iter().map(|bound| {
            format!(
                "top-k mode: every steered log-probability lay within an interval of at most \
                 {:.4} nats (the widest met; the score used lies inside it)",
                bound.nats()
            )
        });
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
            .chain(bound_lines)
            .collect()
    }
}
