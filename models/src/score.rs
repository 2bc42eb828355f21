//! The scoring API: per-token log-probabilities of continuations after prompts, with a
//! shared-prefix cache and batched suffixes.
//!
//! For a batch of requests the prompts' common beginning (up to one token short of the
//! shortest prompt) is taken from, or added to, the [`PrefixCache`]; a prompt shared by
//! several continuations gets its own cached prefix. What remains of each request (the
//! rest of its prompt, then its continuation) is a *suffix*. Suffixes run packed into
//! token trees over the shared prefix ([`crate::tree`]): suffixes that begin alike (the
//! same prompt, actions that start with the same verb) compute those positions once, and
//! nothing is padded. Only the positions that predict continuation tokens go through the
//! LM head, each once.

use std::collections::HashMap;

use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

use crate::error::{ModelError, Result};
use crate::prefix::{common_prefix, PrefixCache};
use crate::softmax::{log_normalizers, log_prob};
use crate::tokenizer::Tokenizer;
use crate::transformer::Transformer;
use crate::tree::TokenTree;

/// Default bound on the positions (tree nodes) run in one forward pass. Attention among a
/// pass's own positions grows with its square; beyond a few hundred positions that costs
/// more than larger matrix products save.
pub const DEFAULT_MAX_BATCH_TOKENS: usize = 384;

/// Default fewest uncached prefix positions worth a forward pass (and a cache entry) of
/// their own.
pub const DEFAULT_MIN_PREFIX_PASS: usize = 48;

/// A prompt whose own continuations number at least this many, and whose own tokens
/// beyond the batch's common beginning number at least [`MIN_OWN_PREFIX`], gets its own
/// cached prefix.
const MIN_SHARED_CONTINUATIONS: usize = 2;
/// See [`MIN_SHARED_CONTINUATIONS`].
const MIN_OWN_PREFIX: usize = 4;

/// A (prompt, continuation) pair of texts to score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreRequest<'a> {
    /// Text before the continuation; encoded with the model's BOS token when it uses one.
    pub prompt: &'a str,
    /// Text scored; encoded on its own (no BOS) and appended to the prompt's tokens.
    pub continuation: &'a str,
}

/// A (prompt, continuation) pair of token ids to score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenRequest<'a> {
    /// Tokens before the continuation; must not be empty.
    pub prompt: &'a [u32],
    /// Tokens scored.
    pub continuation: &'a [u32],
}

/// A [`ScoreRequest`] turned into token ids, owning them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedRequest {
    /// The prompt's tokens (with the model's BOS token when it uses one).
    pub prompt: Vec<u32>,
    /// The continuation's tokens, encoded on their own.
    pub continuation: Vec<u32>,
}

impl EncodedRequest {
    /// The request as [`score_tokens`] takes it.
    pub fn as_tokens(&self) -> TokenRequest<'_> {
        TokenRequest {
            prompt: &self.prompt,
            continuation: &self.continuation,
        }
    }
}

/// Encodes text requests the way scoring reads them: each prompt as a prompt, each
/// continuation on its own.
///
/// # Errors
///
/// [`ModelError::Tokenizer`] when a text cannot be encoded.
pub fn encode_requests(
    tokenizer: &Tokenizer,
    requests: &[ScoreRequest<'_>],
) -> Result<Vec<EncodedRequest>> {
    requests
        .iter()
        .map(|r| {
            Ok(EncodedRequest {
                prompt: tokenizer.encode_prompt(r.prompt)?,
                continuation: tokenizer.encode(r.continuation)?,
            })
        })
        .collect()
}

/// How to score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreOptions {
    /// Also return the raw logits over the whole vocabulary at every continuation token
    /// (for combining models, as weak-to-strong steering does).
    pub full_logits: bool,
    /// Bound on the positions run in one forward pass (a suffix longer than this runs
    /// alone).
    pub max_batch_tokens: usize,
    /// Fewest uncached positions at the end of a shared prefix that get a forward pass
    /// and a cache entry of their own; fewer run as the shared beginning of the suffixes'
    /// tree (not cached for later calls, but far cheaper per position).
    pub min_prefix_pass: usize,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        Self {
            full_logits: false,
            max_batch_tokens: DEFAULT_MAX_BATCH_TOKENS,
            min_prefix_pass: DEFAULT_MIN_PREFIX_PASS,
        }
    }
}

/// The score of one continuation.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Scored {
    /// The continuation's tokens.
    pub tokens: Vec<u32>,
    /// Natural-log probability of each token given everything before it.
    pub logprobs: Vec<f32>,
    /// With [`ScoreOptions::full_logits`]: raw logits, `tokens.len()` rows of
    /// `vocab_size`, row-major; row `i` is the distribution `tokens[i]` was drawn from.
    #[serde(skip)]
    pub logits: Option<Vec<f32>>,
    /// Vocabulary size (the width of a logits row).
    #[serde(skip)]
    pub vocab_size: usize,
}

impl Scored {
    /// Sum of the log-probabilities: the log-probability of the whole continuation.
    pub fn total(&self) -> f64 {
        self.logprobs.iter().map(|&l| f64::from(l)).sum()
    }

    /// Mean log-probability per token (`None` for an empty continuation).
    pub fn mean(&self) -> Option<f64> {
        (!self.logprobs.is_empty()).then(|| self.total() / self.logprobs.len() as f64)
    }

    /// Raw logits before continuation token `i`, when requested.
    pub fn logits_row(&self, i: usize) -> Option<&[f32]> {
        let v = self.vocab_size;
        self.logits.as_ref()?.get(i * v..(i + 1) * v)
    }
}

/// One suffix to run: request index, suffix tokens, where its continuation starts.
struct Suffix {
    request: usize,
    tokens: Vec<u32>,
    cont_start: usize,
    cont_len: usize,
}

impl Suffix {
    /// The tokens that go through the model: all but the last, whose position would
    /// only predict a token after the continuation (and a suffix with nothing to score
    /// runs nothing).
    fn run(&self) -> &[u32] {
        match self.cont_len {
            0 => &[],
            _ => &self.tokens[..self.tokens.len() - 1],
        }
    }
}

/// Scores `requests` with `model`, reusing and extending `cache`.
///
/// # Errors
///
/// [`ModelError::BadRequest`] naming the request for an empty prompt, a token outside the
/// vocabulary, or a prompt and continuation longer than the context;
/// [`ModelError::NotANumber`] naming it when the model computes NaN.
pub fn score_tokens<B: Backend>(
    model: &Transformer<B>,
    cache: &mut PrefixCache<B>,
    requests: &[TokenRequest<'_>],
    options: &ScoreOptions,
) -> Result<Vec<Scored>> {
    validate(model, requests)?;
    let vocab = model.vocab_size();
    let mut results: Vec<Scored> = requests
        .iter()
        .map(|r| Scored {
            tokens: r.continuation.to_vec(),
            logprobs: Vec::new(),
            logits: None,
            vocab_size: vocab,
        })
        .collect();
    for (prefix, members) in plan(requests, |p| cache.longest_match(p)) {
        // A short uncached end of the prefix joins the suffixes instead, where the tree
        // runs it once as their shared beginning: a pass of its own over a few positions
        // costs far more per position than the same positions in a larger pass.
        let held = cache.longest_match(prefix);
        let prefix = if prefix.len() - held < options.min_prefix_pass {
            &prefix[..held]
        } else {
            prefix
        };
        let kv = cache.get_or_compute(model, prefix);
        let p = prefix.len();
        let mut suffixes: Vec<Suffix> = members
            .iter()
            .map(|&i| {
                let r = &requests[i];
                let mut tokens = r.prompt[p..].to_vec();
                tokens.extend_from_slice(r.continuation);
                Suffix {
                    request: i,
                    tokens,
                    cont_start: r.prompt.len() - p,
                    cont_len: r.continuation.len(),
                }
            })
            .collect();
        // Sorted, suffixes that begin alike are neighbours and share the tree's nodes.
        suffixes.sort_by(|a, b| a.tokens.cmp(&b.tokens));
        let mut start = 0;
        while start < suffixes.len() {
            let mut tree = TokenTree::default();
            let mut paths = Vec::new();
            let mut end = start;
            while end < suffixes.len()
                && (end == start
                    || tree.len() + tree.cost(suffixes[end].run()) <= options.max_batch_tokens)
            {
                paths.push(tree.push(suffixes[end].run()));
                end += 1;
            }
            cache.count_suffix_tokens(tree.len());
            let kv_pack = if kv.is_empty() {
                model.new_cache()
            } else {
                kv.clone().into_shared()
            };
            let pack = &suffixes[start..end];
            let scores = run_tree(model, kv_pack, &tree, pack, &paths, options.full_logits)?;
            for (s, (logprobs, logits)) in pack.iter().zip(scores) {
                results[s.request].logprobs = logprobs;
                results[s.request].logits = logits;
            }
            start = end;
        }
    }
    refuse_nan(results)
}

/// `results`, unless one holds a NaN: a broken model (weights finite but too large, say),
/// never a score.
fn refuse_nan(results: Vec<Scored>) -> Result<Vec<Scored>> {
    match results
        .iter()
        .position(|r| r.logprobs.iter().any(|l| l.is_nan()))
    {
        Some(index) => Err(ModelError::NotANumber { index }),
        None => Ok(results),
    }
}

/// Checks every request before any work is done.
fn validate<B: Backend>(model: &Transformer<B>, requests: &[TokenRequest<'_>]) -> Result<()> {
    let vocab = model.vocab_size();
    for (index, r) in requests.iter().enumerate() {
        let bad = |problem: String| Err(ModelError::BadRequest { index, problem });
        if r.prompt.is_empty() {
            return bad(
                "empty prompt: the first continuation token needs a token before it".into(),
            );
        }
        if let Some(t) = r
            .prompt
            .iter()
            .chain(r.continuation)
            .find(|&&t| t as usize >= vocab)
        {
            return bad(format!("token {t} is outside the vocabulary of {vocab}"));
        }
        let len = r.prompt.len() + r.continuation.len();
        if len > model.max_len() {
            return bad(format!(
                "{len} tokens exceed the context of {}",
                model.max_len()
            ));
        }
    }
    Ok(())
}

/// Groups requests by the prefix they will share: `(prefix tokens, request indices)`.
///
/// `cached(p)` is how many leading tokens of `p` the prefix cache already holds: a prompt
/// whose own beginning is cached well beyond the batch's common one gets its own group.
fn plan<'a>(
    requests: &[TokenRequest<'a>],
    cached: impl Fn(&[u32]) -> usize,
) -> Vec<(&'a [u32], Vec<usize>)> {
    let mut by_prompt: HashMap<&'a [u32], Vec<usize>> = HashMap::new();
    let mut order: Vec<&'a [u32]> = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        by_prompt
            .entry(r.prompt)
            .or_insert_with(|| {
                order.push(r.prompt);
                Vec::new()
            })
            .push(i);
    }
    // Every suffix keeps at least one prompt token, whose position predicts the first
    // continuation token.
    let own = |prompt: &'a [u32]| &prompt[..prompt.len() - 1];
    if order.len() == 1 {
        return vec![(
            own(order[0]),
            by_prompt.remove(order[0]).unwrap_or_default(),
        )];
    }
    let first = order[0];
    let base_len = order
        .iter()
        .map(|p| common_prefix(first, p).min(p.len() - 1))
        .min()
        .unwrap_or(0);
    let base = &first[..base_len];
    let mut groups = Vec::new();
    let mut rest = Vec::new();
    for prompt in order {
        let members = by_prompt.remove(prompt).unwrap_or_default();
        let own_len = prompt.len() - 1;
        let shared =
            members.len() >= MIN_SHARED_CONTINUATIONS && own_len >= base_len + MIN_OWN_PREFIX;
        let in_cache = cached(own(prompt)) >= base_len + MIN_OWN_PREFIX;
        if shared || in_cache {
            groups.push((own(prompt), members));
        } else {
            rest.extend(members);
        }
    }
    if !rest.is_empty() {
        rest.sort_unstable();
        groups.insert(0, (base, rest));
    }
    groups
}

/// One suffix's continuation log-probs, and its logits when asked.
type RowScores = (Vec<f32>, Option<Vec<f32>>);

/// Runs one tree of suffixes over `kv` and returns each suffix's continuation log-probs
/// (and logits when asked). `paths[i]` is suffix `i`'s node at each of its positions.
fn run_tree<B: Backend>(
    model: &Transformer<B>,
    kv: crate::cache::KvCache<B>,
    tree: &TokenTree,
    suffixes: &[Suffix],
    paths: &[Vec<usize>],
    full_logits: bool,
) -> Result<Vec<RowScores>> {
    // Node `path[cont_start + k - 1]` predicts continuation token `k`. Suffixes that share
    // that node share its logits row, which goes through the LM head once.
    let mut row_of_node: HashMap<usize, usize> = HashMap::new();
    let mut nodes: Vec<i32> = Vec::new();
    let picks: Vec<Vec<(usize, u32)>> = suffixes
        .iter()
        .zip(paths)
        .map(|(s, path)| {
            (0..s.cont_len)
                .map(|k| {
                    let node = path[s.cont_start + k - 1];
                    let row = *row_of_node.entry(node).or_insert_with(|| {
                        nodes.push(node as i32);
                        nodes.len() - 1
                    });
                    (row, s.tokens[s.cont_start + k])
                })
                .collect()
        })
        .collect();
    if nodes.is_empty() {
        return Ok(suffixes
            .iter()
            .map(|_| (Vec::new(), full_logits.then(Vec::new)))
            .collect());
    }
    let device = model.device();
    let hidden = model.forward_tree(tree, kv);
    let rows = nodes.len();
    let picked = hidden.select(
        0,
        Tensor::<B, 1, Int>::from_data(TensorData::new(nodes, [rows]), &device),
    );
    let vocab = model.vocab_size();
    // The logits come to the host once; a fused, row-parallel normalisation there beats
    // the backend's separate max, exp, sum and log passes.
    let logits = ModelError::read_back(model.logits(picked).into_data())?;
    let norms = log_normalizers(&logits, vocab);
    Ok(picks
        .iter()
        .map(|pick| {
            let logprobs = pick
                .iter()
                .map(|&(row, t)| log_prob(&logits[row * vocab..(row + 1) * vocab], t, norms[row]))
                .collect();
            let copied = full_logits.then(|| {
                pick.iter()
                    .flat_map(|&(row, _)| &logits[row * vocab..(row + 1) * vocab])
                    .copied()
                    .collect()
            });
            (logprobs, copied)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LlamaConfig;
    use crate::tests::TestBackend;
    use burn::tensor::activation::log_softmax;

    fn model() -> Transformer<TestBackend> {
        LlamaConfig::new(50, 16, 24, 2, 4, 2)
            .with_max_seq_len(64)
            .init_with_seed(3, &Default::default())
    }

    /// Log-probs of `cont` after `prompt` from one plain forward pass, no cache reuse.
    fn reference(model: &Transformer<TestBackend>, prompt: &[u32], cont: &[u32]) -> Vec<f32> {
        let all: Vec<i32> = prompt.iter().chain(cont).map(|&t| t as i32).collect();
        let n = all.len();
        let t = Tensor::<TestBackend, 1, Int>::from_data(
            TensorData::new(all.clone(), [n]),
            &Default::default(),
        );
        let h = model.forward(t.reshape([1, n]), &mut model.new_cache());
        let lp = log_softmax(model.logits(h.reshape([n, 16])), 1);
        let v: Vec<f32> = lp.into_data().to_vec().unwrap();
        (prompt.len()..n)
            .map(|i| v[(i - 1) * 50 + all[i] as usize])
            .collect()
    }

    #[test]
    fn cached_batched_scores_equal_plain_forward_passes() {
        let model = model();
        let p1: Vec<u32> = vec![1, 2, 3, 4, 5, 6, 7, 8];
        let p2: Vec<u32> = vec![1, 2, 3, 4, 9, 10];
        let p3: Vec<u32> = vec![11];
        let c: [&[u32]; 4] = [&[20, 21, 22], &[23], &[24, 25, 26, 27, 28], &[]];
        let requests = vec![
            TokenRequest {
                prompt: &p1,
                continuation: c[0],
            },
            TokenRequest {
                prompt: &p1,
                continuation: c[1],
            },
            TokenRequest {
                prompt: &p2,
                continuation: c[2],
            },
            TokenRequest {
                prompt: &p1,
                continuation: c[2],
            },
            TokenRequest {
                prompt: &p3,
                continuation: c[0],
            },
            TokenRequest {
                prompt: &p2,
                continuation: c[3],
            },
            // Shares its first two tokens with request 0, and repeats request 0: both run
            // through the same tree nodes.
            TokenRequest {
                prompt: &p1,
                continuation: &[20, 21, 29],
            },
            TokenRequest {
                prompt: &p1,
                continuation: c[0],
            },
        ];
        let mut cache = PrefixCache::new(1000);
        let cached = ScoreOptions {
            min_prefix_pass: 0,
            ..ScoreOptions::default()
        };
        for options in [
            cached,
            ScoreOptions {
                max_batch_tokens: 3,
                full_logits: true,
                min_prefix_pass: 0,
            },
            // Every prefix here is short enough to run inside the trees.
            ScoreOptions::default(),
        ] {
            let scored = score_tokens(&model, &mut cache, &requests, &options).unwrap();
            for (r, s) in requests.iter().zip(&scored) {
                let expected = reference(&model, r.prompt, r.continuation);
                assert_eq!(s.tokens, r.continuation);
                assert_eq!(s.logprobs.len(), expected.len());
                for (a, b) in s.logprobs.iter().zip(&expected) {
                    assert!((a - b).abs() < 1e-4, "{a} vs {b}");
                }
                if options.full_logits {
                    assert_eq!(s.logits.as_ref().unwrap().len(), 50 * r.continuation.len());
                }
            }
        }
        assert!(cache.stats().reused_tokens > 0);
    }

    #[test]
    fn suffixes_that_begin_alike_compute_their_shared_positions_once() {
        let model = model();
        let prompt = [1u32, 2, 3];
        let conts: [&[u32]; 3] = [&[4, 5, 6], &[4, 8], &[4, 5, 7]];
        let requests: Vec<TokenRequest> = conts
            .iter()
            .map(|c| TokenRequest {
                prompt: &prompt,
                continuation: c,
            })
            .collect();
        let check = |scored: &[Scored]| {
            for (r, s) in requests.iter().zip(scored) {
                let expected = reference(&model, r.prompt, r.continuation);
                for (a, b) in s.logprobs.iter().zip(&expected) {
                    assert!((a - b).abs() < 1e-4, "{a} vs {b}");
                }
            }
        };
        let cached = ScoreOptions {
            min_prefix_pass: 0,
            ..ScoreOptions::default()
        };
        let mut cache = PrefixCache::new(1000);
        check(&score_tokens(&model, &mut cache, &requests, &cached).unwrap());
        // Prefix [1, 2] in a pass of its own; tree: 3 (the prompt's last token) → 4 → 5:
        // three positions, not the eleven of the suffixes one by one (6, 7 and 8 are
        // last tokens, whose positions would predict nothing scored).
        assert_eq!(cache.stats().computed_tokens, 2);
        assert_eq!(cache.stats().suffix_tokens, 3);
        // By default a prefix this short runs as the tree's shared root instead.
        let mut cache = PrefixCache::new(1000);
        check(&score_tokens(&model, &mut cache, &requests, &ScoreOptions::default()).unwrap());
        assert_eq!(cache.stats().computed_tokens, 0);
        assert_eq!(cache.stats().suffix_tokens, 5);
    }

    #[test]
    fn full_logits_agree_with_logprobs() {
        let model = model();
        let prompt = [5u32, 6, 7];
        let requests = [TokenRequest {
            prompt: &prompt,
            continuation: &[8, 9],
        }];
        let options = ScoreOptions {
            full_logits: true,
            ..ScoreOptions::default()
        };
        let s = &score_tokens(&model, &mut PrefixCache::default(), &requests, &options).unwrap()[0];
        for (i, &t) in s.tokens.iter().enumerate() {
            let row = s.logits_row(i).unwrap();
            let max = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            let lse = max + row.iter().map(|&x| (x - max).exp()).sum::<f32>().ln();
            assert!((row[t as usize] - lse - s.logprobs[i]).abs() < 1e-4);
        }
        assert!(s.total() < 0.0 && s.mean().unwrap() < 0.0);
    }

    #[test]
    fn bad_requests_are_named() {
        let model = model();
        let error = |requests: &[TokenRequest<'_>]| {
            let options = ScoreOptions::default();
            score_tokens(&model, &mut PrefixCache::default(), requests, &options)
                .unwrap_err()
                .to_string()
        };
        let request = |prompt, continuation| TokenRequest {
            prompt,
            continuation,
        };
        let ok = [1u32, 2];
        let err = error(&[request(&ok, &[3]), request(&[], &[3])]);
        assert!(err.starts_with("request 1: empty prompt"), "{err}");
        let err = error(&[request(&ok, &[50])]);
        assert!(
            err.contains("token 50 is outside the vocabulary of 50"),
            "{err}"
        );
        let long = vec![1u32; 60];
        let err = error(&[request(&long, &long[..5])]);
        assert!(err.contains("65 tokens exceed the context of 64"), "{err}");
    }

    #[test]
    fn plan_shares_prefixes() {
        let a: Vec<u32> = vec![1, 2, 3];
        let b: Vec<u32> = vec![1, 2, 4, 5, 6, 7, 8, 9];
        let c: Vec<u32> = vec![1, 9];
        let d: Vec<u32> = vec![1, 5, 6, 7, 8, 9, 10];
        let requests = [
            TokenRequest {
                prompt: &a,
                continuation: &[1],
            },
            TokenRequest {
                prompt: &b,
                continuation: &[1],
            },
            TokenRequest {
                prompt: &b,
                continuation: &[2],
            },
            TokenRequest {
                prompt: &c,
                continuation: &[3],
            },
            TokenRequest {
                prompt: &d,
                continuation: &[3],
            },
        ];
        // b has two continuations: its own prefix; the rest share [1].
        let groups = plan(&requests, |_| 0);
        assert_eq!(
            groups,
            vec![(&a[..1], vec![0, 3, 4]), (&b[..7], vec![1, 2])]
        );
        // d's beginning is cached: it gets its own group too.
        let groups = plan(&requests, |p| p.len());
        assert_eq!(
            groups,
            vec![
                (&a[..1], vec![0, 3]),
                (&b[..7], vec![1, 2]),
                (&d[..6], vec![4])
            ]
        );
        let single = plan(&requests[..1], |_| 0);
        assert_eq!(single, vec![(&a[..2], vec![0])]);
    }
}
