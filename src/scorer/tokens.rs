//! The hosted scorers at the level of token ids ([`TokenScorer`]), for the score cache,
//! and what identifies a model file to it.

use bip_engine::{PolicyFailure, TextRequest, TextScorer};
use bip_models::burn::tensor::backend::Backend;
use bip_models::{
    encode_requests, EncodedRequest, LanguageModel, PrefixCache, ScoreOptions, WeakToStrong,
    WeightStorage,
};

use super::{score_requests, token_requests, ModelScorer, W2sScorer, POISONED};
use crate::cached::TokenScorer;

impl<B: Backend> TokenScorer for ModelScorer<B>
where
    LanguageModel<B>: Send + Sync,
    PrefixCache<B>: Send,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn encode(&self, requests: &[TextRequest<'_>]) -> Result<Vec<EncodedRequest>, PolicyFailure> {
        Ok(encode_requests(
            self.model.tokenizer(),
            &score_requests(requests),
        )?)
    }

    fn score_encoded(
        &self,
        _texts: &[TextRequest<'_>],
        encoded: &[EncodedRequest],
        done: &mut dyn FnMut(usize, Vec<f32>) -> Result<(), PolicyFailure>,
    ) -> Result<(), PolicyFailure> {
        let mut cache = self.cache.lock().map_err(|_| POISONED)?;
        let options = ScoreOptions::default();
        let scored = self
            .model
            .score_tokens(&mut cache, &token_requests(encoded), &options)?;
        scored
            .into_iter()
            .enumerate()
            .try_for_each(|(i, s)| done(i, s.logprobs))
    }

    fn tokens_computed(&self) -> u64 {
        TextScorer::tokens_computed(self)
    }

    fn fork(&self) -> Option<Box<dyn TokenScorer>> {
        Some(Box::new(ModelScorer::fork(self)))
    }
}

impl<B: Backend> TokenScorer for W2sScorer<B>
where
    WeakToStrong<B>: Send,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn encode(&self, requests: &[TextRequest<'_>]) -> Result<Vec<EncodedRequest>, PolicyFailure> {
        let w2s = self.w2s.lock().map_err(|_| POISONED)?;
        Ok(encode_requests(
            w2s.large().tokenizer(),
            &score_requests(requests),
        )?)
    }

    fn score_encoded(
        &self,
        _texts: &[TextRequest<'_>],
        encoded: &[EncodedRequest],
        done: &mut dyn FnMut(usize, Vec<f32>) -> Result<(), PolicyFailure>,
    ) -> Result<(), PolicyFailure> {
        let mut w2s = self.w2s.lock().map_err(|_| POISONED)?;
        let scored = w2s.score_tokens(&token_requests(encoded), &ScoreOptions::default())?;
        scored
            .into_iter()
            .enumerate()
            .try_for_each(|(i, s)| done(i, s.logprobs))
    }

    fn tokens_computed(&self) -> u64 {
        TextScorer::tokens_computed(self)
    }
}

/// A loaded model as a score cache's identity knows it: its file, the adapter merged into
/// or attached to it, and how its weights are held (f16 weights score a little
/// differently from f32 ones), so that no cached score stands in for another model's.
pub fn model_identity<B: Backend>(model: &LanguageModel<B>) -> String {
    let mut identity = file_identity(&model.info().path);
    if let Some(adapter) = model.adapter_origin() {
        identity = format!("{identity} + adapter {}", file_identity(adapter));
    }
    match model.weight_storage() {
        WeightStorage::F32 => identity,
        storage => format!("{identity} as {}", storage.name()),
    }
}

/// A file as a score cache's identity knows it: its path, size and modification time,
/// so that a file replaced in place is a different model. A folder (Hugging Face
/// weights, a LoRA adapter) is known by its files, each by name, size and modification
/// time to the nanosecond: a weights file rewritten in place leaves the folder's own
/// time as it was.
pub fn file_identity(path: &std::path::Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if path.is_dir() {
        let mut files: Vec<String> = std::fs::read_dir(&path)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let meta = entry.metadata().ok().filter(std::fs::Metadata::is_file)?;
                let (secs, nanos) = modified(&meta);
                let name = entry.file_name().to_string_lossy().into_owned();
                Some(format!("{name} {} {secs}.{nanos:09}", meta.len()))
            })
            .collect();
        files.sort();
        // FNV-1a, stable across Rust versions: the identity names the cache's file.
        let hash = files
            .join("\n")
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
        return format!("{} (files {hash:016x})", path.display());
    }
    let meta = std::fs::metadata(&path).ok();
    let size = meta.as_ref().map_or(0, |m| m.len());
    let secs = meta.as_ref().map_or(0, |m| modified(m).0);
    format!("{} ({size} bytes, modified {secs})", path.display())
}

/// When `meta`'s file was last modified: seconds and nanoseconds since the epoch.
fn modified(meta: &std::fs::Metadata) -> (u64, u32) {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or((0, 0), |d| (d.as_secs(), d.subsec_nanos()))
}
