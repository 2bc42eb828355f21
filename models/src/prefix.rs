//! The shared-prefix cache: keys and values of token prefixes, computed once and reused by
//! every continuation scored after them, within a call and across calls.

use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

use crate::cache::KvCache;
use crate::transformer::Transformer;

/// Longest run of new prefix tokens computed in one forward pass (bounds memory).
const PREFILL_CHUNK: usize = 512;

/// Default budget of cached positions (about 46 KB each for SmolLM2-135M).
pub const DEFAULT_CACHE_TOKENS: usize = 8192;

/// What the cache did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    /// Prefix requests answered.
    pub lookups: u64,
    /// Prefix positions taken from the cache.
    pub reused_tokens: u64,
    /// Prefix positions computed.
    pub computed_tokens: u64,
    /// Entries dropped to stay within the budget.
    pub evictions: u64,
    /// Positions computed after the cached prefixes by the scoring calls that used this
    /// cache (rests of prompts and continuations; a position shared by several suffixes is
    /// counted once).
    pub suffix_tokens: u64,
}

impl CacheStats {
    /// Every position the model computed: prefix positions plus suffix positions.
    pub fn tokens_computed(&self) -> u64 {
        self.computed_tokens + self.suffix_tokens
    }
}

struct Entry<B: Backend> {
    tokens: Vec<u32>,
    kv: KvCache<B>,
    last_used: u64,
}

/// Cached key/value states of token prefixes (batch of one), least recently used dropped
/// first once more than a budget of positions is held.
///
/// A request for a prefix reuses the longest common beginning of any cached entry (an
/// entry is valid for every beginning of itself), computes only the rest, and caches the
/// result. A cache belongs to one model: [`crate::LanguageModel::score`] clears a cache
/// that was last used with another model.
pub struct PrefixCache<B: Backend> {
    entries: Vec<Entry<B>>,
    max_tokens: usize,
    clock: u64,
    stats: CacheStats,
    owner: Option<u64>,
}

impl<B: Backend> Default for PrefixCache<B> {
    fn default() -> Self {
        Self::new(DEFAULT_CACHE_TOKENS)
    }
}

impl<B: Backend> std::fmt::Debug for PrefixCache<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrefixCache")
            .field("entries", &self.entries.len())
            .field("cached_tokens", &self.cached_tokens())
            .field("max_tokens", &self.max_tokens)
            .field("stats", &self.stats)
            .finish()
    }
}

impl<B: Backend> PrefixCache<B> {
    /// An empty cache holding at most `max_tokens` positions (the entry in use is always
    /// kept, even when longer).
    pub fn new(max_tokens: usize) -> Self {
        Self {
            entries: Vec::new(),
            max_tokens,
            clock: 0,
            stats: CacheStats::default(),
            owner: None,
        }
    }

    /// Number of cached prefixes.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Total positions held.
    pub fn cached_tokens(&self) -> usize {
        self.entries.iter().map(|e| e.tokens.len()).sum()
    }

    /// Counters since creation.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// Drops every entry (the counters stay).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many leading tokens of `tokens` some entry holds.
    pub fn longest_match(&self, tokens: &[u32]) -> usize {
        self.entries
            .iter()
            .map(|e| common_prefix(&e.tokens, tokens))
            .max()
            .unwrap_or(0)
    }

    /// Counts `n` suffix positions computed by a scoring call.
    pub(crate) fn count_suffix_tokens(&mut self, n: usize) {
        self.stats.suffix_tokens += n as u64;
    }

    /// Ties the cache to model `id`, clearing it if it was used with another model.
    pub(crate) fn bind(&mut self, id: u64) {
        if self.owner != Some(id) {
            self.clear();
            self.owner = Some(id);
        }
    }

    /// The keys and values of exactly `prefix` (batch of one), reusing what is cached and
    /// caching the result.
    ///
    /// # Panics
    ///
    /// When a token is out of the vocabulary or the prefix exceeds the context length;
    /// scoring checks both first.
    pub(crate) fn get_or_compute(&mut self, model: &Transformer<B>, prefix: &[u32]) -> KvCache<B> {
        self.clock += 1;
        self.stats.lookups += 1;
        if prefix.is_empty() {
            return model.new_cache();
        }
        let best = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (common_prefix(&e.tokens, prefix), i))
            .max_by_key(|&(n, i)| (n, std::cmp::Reverse(i)));
        if let Some((n, i)) = best {
            if n > 0 {
                self.entries[i].last_used = self.clock;
                self.stats.reused_tokens += n as u64;
                if n == prefix.len() {
                    return self.entries[i].kv.truncated(n);
                }
            }
        }
        let (reused, base) = match best {
            Some((n, i)) if n > 0 => (n, self.entries[i].kv.truncated(n)),
            _ => (0, model.new_cache()),
        };
        let mut kv = base;
        for chunk in prefix[reused..].chunks(PREFILL_CHUNK) {
            let ids: Vec<i32> = chunk.iter().map(|&t| t as i32).collect();
            let t = Tensor::<B, 1, Int>::from_data(
                TensorData::new(ids, [chunk.len()]),
                &model.device(),
            );
            model.forward(t.reshape([1, chunk.len()]), &mut kv);
        }
        self.stats.computed_tokens += (prefix.len() - reused) as u64;
        // An entry that is a beginning of the new one is subsumed by it.
        if let Some((n, i)) = best {
            if n > 0 && n == self.entries[i].tokens.len() {
                self.entries.swap_remove(i);
            }
        }
        self.entries.push(Entry {
            tokens: prefix.to_vec(),
            kv: kv.clone(),
            last_used: self.clock,
        });
        self.evict();
        kv
    }

    fn evict(&mut self) {
        while self.cached_tokens() > self.max_tokens && self.entries.len() > 1 {
            let Some((i, _)) = self
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.last_used != self.clock)
                .min_by_key(|(_, e)| e.last_used)
            else {
                break;
            };
            self.entries.swap_remove(i);
            self.stats.evictions += 1;
        }
    }
}

/// Length of the common beginning of `a` and `b`.
pub(crate) fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LlamaConfig;
    use crate::tests::TestBackend;

    fn tiny() -> Transformer<TestBackend> {
        LlamaConfig::new(32, 8, 12, 1, 2, 1)
            .with_max_seq_len(64)
            .init::<TestBackend>(&Default::default())
    }

    #[test]
    fn reuses_the_longest_common_beginning() {
        let model = tiny();
        let mut cache = PrefixCache::new(100);
        let kv = cache.get_or_compute(&model, &[1, 2, 3, 4]);
        assert_eq!(kv.len(), 4);
        let kv = cache.get_or_compute(&model, &[1, 2, 5]);
        assert_eq!(kv.len(), 3);
        let s = cache.stats();
        assert_eq!((s.computed_tokens, s.reused_tokens), (4 + 1, 2));
        // A beginning of a cached entry needs no computation.
        let kv = cache.get_or_compute(&model, &[1, 2, 3]);
        assert_eq!(kv.len(), 3);
        assert_eq!(cache.stats().computed_tokens, 5);
        // Extending an entry replaces it.
        cache.get_or_compute(&model, &[1, 2, 3, 4, 6]);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.cached_tokens(), 5 + 3);
    }

    #[test]
    fn evicts_least_recently_used_beyond_budget() {
        let model = tiny();
        let mut cache = PrefixCache::new(6);
        cache.get_or_compute(&model, &[1, 2, 3]);
        cache.get_or_compute(&model, &[7, 8, 9]);
        cache.get_or_compute(&model, &[1, 2, 3]);
        cache.get_or_compute(&model, &[4, 5]);
        assert_eq!(cache.stats().evictions, 1);
        assert_eq!(cache.cached_tokens(), 5);
        assert_eq!(cache.get_or_compute(&model, &[1, 2, 3]).len(), 3);
        assert_eq!(cache.stats().computed_tokens, 8);
    }
}
