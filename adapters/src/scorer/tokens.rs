//! The hosted scorers at the level of token ids ([`TokenScorer`]), for the score cache,
//! and what identifies a model file to it.

use bip_engine::{PolicyFailure, TextRequest};
use bip_models::burn::tensor::backend::Backend;
use bip_models::{
    encode_requests, EncodedRequest, LanguageModel, PrefixCache, ScoreOptions, WeakToStrong,
    WeightStorage,
};

use super::{score_requests, token_requests, w2s_identity, ModelScorer, W2sScorer, POISONED};
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
        let local = || local_identity(&self.model);
        self.identity.get_or_init(local).clone()
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
        self.cache
            .lock()
            .map(|c| c.stats().tokens_computed())
            .unwrap_or(0)
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
        let steered = || {
            let w2s = self
                .w2s
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            w2s_identity(&w2s, w2s.alpha())
        };
        self.identity.get_or_init(steered).clone()
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
        self.w2s
            .lock()
            .map(|w| w.stats().tokens_computed())
            .unwrap_or(0)
    }
}

/// The score cache's identity of `model` scoring alone.
pub(super) fn local_identity<B: Backend>(model: &LanguageModel<B>) -> String {
    format!("local {}", model_identity(model))
}

/// A loaded model as a score cache's identity knows it: its file, the adapter merged into
/// or attached to it, and how its weights are held (f16 or int8 weights score a little
/// differently from f32 ones), so that no cached score stands in for another model's.
pub fn model_identity<B: Backend>(model: &LanguageModel<B>) -> String {
    let mut identity = file_identity(&model.info().path);
    if let Some(adapter) = model.adapter_origin() {
        identity = format!("{identity} + adapter {}", file_identity(adapter));
    }
    match model.weight_storage() {
        WeightStorage::F32 => identity,
        storage => format!("{identity} as {}", storage.cache_tag()),
    }
}

/// A file as a score cache's identity knows it: its path, size and a hash of its content,
/// so that a file rewritten in place, whatever its times say, is a different model. A
/// folder (Hugging Face weights, a LoRA adapter) is known by its files, each by name,
/// size and content.
pub fn file_identity(path: &std::path::Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if path.is_dir() {
        let mut files: Vec<String> = std::fs::read_dir(&path)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let meta = entry.metadata().ok().filter(std::fs::Metadata::is_file)?;
                let content = content_hash(&entry.path(), &meta);
                let name = entry.file_name().to_string_lossy().into_owned();
                Some(format!("{name} {} {content}", meta.len()))
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
    match std::fs::metadata(&path) {
        Ok(meta) => format!(
            "{} ({} bytes, content {})",
            path.display(),
            meta.len(),
            content_hash(&path, &meta)
        ),
        Err(_) => format!("{} (unreadable)", path.display()),
    }
}

/// A hash of the file's bytes (16 hex digits; `unreadable` when it cannot be read), each
/// file hashed once per process however many models share it. A gigabyte takes about a
/// quarter of a second once the file is in the page cache, as loading the model leaves it.
fn content_hash(path: &std::path::Path, meta: &std::fs::Metadata) -> String {
    use std::collections::HashMap;
    use std::os::unix::fs::MetadataExt;
    use std::sync::{Mutex, OnceLock};
    type Seen = Mutex<HashMap<(u64, u64, u64, i64, i64), String>>;
    static SEEN: OnceLock<Seen> = OnceLock::new();
    // The change time moves at every write and no one can set it back, unlike the
    // modification time.
    let key = (
        meta.dev(),
        meta.ino(),
        meta.len(),
        meta.ctime(),
        meta.ctime_nsec(),
    );
    let seen = SEEN.get_or_init(Seen::default);
    if let Some(hash) = seen.lock().ok().and_then(|s| s.get(&key).cloned()) {
        return hash;
    }
    let hash = hash_bytes(path).map_or_else(|_| "unreadable".to_string(), |h| format!("{h:016x}"));
    if let Ok(mut s) = seen.lock() {
        s.insert(key, hash.clone());
    }
    hash
}

/// Four interleaved FNV-style lanes over 8-byte words, folded with the length: fast
/// enough for gigabytes, stable across Rust versions and machines.
fn hash_bytes(path: &std::path::Path) -> std::io::Result<u64> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut lanes = [0xcbf2_9ce4_8422_2325_u64; 4];
    let mut total = 0u64;
    // Bytes left over from a read that ended mid-word, carried into the next.
    let mut carry: Vec<u8> = Vec::with_capacity(32);
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        carry.extend_from_slice(&buf[..n]);
        let whole = carry.len() / 32 * 32;
        for block in carry[..whole].chunks_exact(32) {
            for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
                let w = u64::from_le_bytes(word.try_into().unwrap_or_default());
                *lane = (*lane ^ w).wrapping_mul(0x0100_0000_01b3).rotate_left(29);
            }
        }
        carry.drain(..whole);
    }
    for &b in &carry {
        lanes[0] = (lanes[0] ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    Ok(lanes
        .iter()
        .fold(total, |a, &x| (a ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}
