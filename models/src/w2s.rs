//! Weak-to-strong steering: a large model's next-token logits shifted by how much a small
//! expert model's differ from a small naive model's, `s_L + α (s_E − s_N)`, then
//! normalised over the whole vocabulary.

use std::sync::Arc;

use burn::tensor::backend::Backend;
use rayon::prelude::*;

use crate::error::{number, ModelError, Result};
use crate::model::LanguageModel;
use crate::prefix::{CacheStats, PrefixCache};
use crate::score::{
    encode_requests, EncodedRequest, ScoreOptions, ScoreRequest, Scored, TokenRequest,
};
use crate::softmax::log_softmax_rows;

/// The largest weak-to-strong steering strength α accepted, either sign. Published runs
/// use α of 0.5 to 2; an α in the hundreds already swamps the large model's logits, and
/// one near `f32::MAX` turns them into infinities.
pub const MAX_W2S_ALPHA: f64 = 100.0;

/// Most continuation tokens scored per round of the three models: each round holds three
/// `rows × vocabulary` logit matrices (about 100 MB each for SmolLM2 at this bound).
const MAX_ROWS_PER_ROUND: usize = 512;

/// Names of the three roles, in the order of [`WeakToStrong`]'s arrays.
const ROLES: [&str; 3] = ["large", "expert", "naive"];

/// Three models sharing one tokenizer, scored together: for every continuation token,
/// `log_softmax(s_L + α (s_E − s_N))[token]` over the whole vocabulary, where `s_L`,
/// `s_E` and `s_N` are the large, expert and naive models' logits.
///
/// Each model keeps its own [`PrefixCache`] across calls. A model passed in more than one
/// role (the same [`Arc`]) is run once per call; with `α = 0`, or when the expert and the
/// naive model are the same, only the large model runs and the scores are exactly its own.
pub struct WeakToStrong<B: Backend> {
    models: [Arc<LanguageModel<B>>; 3],
    caches: [PrefixCache<B>; 3],
    /// For each role, the first role played by the same model (whose results it reuses).
    runs_as: [usize; 3],
    alpha: f32,
}

/// The prefix caches' counters of the three models (a model that plays two roles counts
/// under the first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct W2sStats {
    /// The large model's.
    pub large: CacheStats,
    /// The expert's.
    pub expert: CacheStats,
    /// The naive model's.
    pub naive: CacheStats,
}

impl W2sStats {
    /// Positions computed by all three models together (prefixes and suffixes).
    pub fn tokens_computed(&self) -> u64 {
        self.large.tokens_computed() + self.expert.tokens_computed() + self.naive.tokens_computed()
    }
}

impl<B: Backend> std::fmt::Debug for WeakToStrong<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WeakToStrong")
            .field("large", &self.models[0].info().path)
            .field("expert", &self.models[1].info().path)
            .field("naive", &self.models[2].info().path)
            .field("alpha", &self.alpha)
            .finish()
    }
}

impl<B: Backend> WeakToStrong<B> {
    /// Combines `large`, `expert` and `naive` with weight `alpha`, after checking that they
    /// share a tokenizer (same tokens at every id, same BOS handling) and logit width.
    ///
    /// # Errors
    ///
    /// [`ModelError::Incompatible`] naming both models and the first difference, and
    /// [`ModelError::Config`] for an `alpha` that is not finite or beyond
    /// ±[`MAX_W2S_ALPHA`].
    pub fn new(
        large: Arc<LanguageModel<B>>,
        expert: Arc<LanguageModel<B>>,
        naive: Arc<LanguageModel<B>>,
        alpha: f64,
    ) -> Result<Self> {
        check_alpha(alpha)?;
        let models = [large, expert, naive];
        for (i, m) in models.iter().enumerate().skip(1) {
            let name = |i: usize| {
                format!(
                    "the {} model ({})",
                    ROLES[i],
                    models[i].info().path.display()
                )
            };
            let incompatible = |problem: String| ModelError::Incompatible {
                first: name(0),
                second: name(i),
                problem,
            };
            let (v0, v) = (
                models[0].transformer().vocab_size(),
                m.transformer().vocab_size(),
            );
            if v0 != v {
                return Err(incompatible(format!("logit widths differ: {v0} and {v}")));
            }
            if let Some(d) = models[0].tokenizer().vocabulary_difference(m.tokenizer()) {
                return Err(incompatible(format!("tokenizers differ: {d}")));
            }
        }
        let runs_as = [0, 1, 2].map(|i| {
            (0..i)
                .find(|&j| Arc::ptr_eq(&models[i], &models[j]))
                .unwrap_or(i)
        });
        Ok(Self {
            models,
            caches: Default::default(),
            runs_as,
            alpha: alpha as f32,
        })
    }

    /// The same with prefix caches of at most `max_tokens` positions each.
    pub fn with_cache_tokens(mut self, max_tokens: usize) -> Self {
        self.caches = [0; 3].map(|_| PrefixCache::new(max_tokens));
        self
    }

    /// The weight of the expert-minus-naive shift.
    pub fn alpha(&self) -> f64 {
        f64::from(self.alpha)
    }

    /// The large model.
    pub fn large(&self) -> &LanguageModel<B> {
        &self.models[0]
    }

    /// The small expert model.
    pub fn expert(&self) -> &LanguageModel<B> {
        &self.models[1]
    }

    /// The small naive model.
    pub fn naive(&self) -> &LanguageModel<B> {
        &self.models[2]
    }

    /// The three prefix caches' counters since creation.
    pub fn stats(&self) -> W2sStats {
        W2sStats {
            large: self.caches[0].stats(),
            expert: self.caches[1].stats(),
            naive: self.caches[2].stats(),
        }
    }

    /// Empties the three prefix caches (the counters stay).
    pub fn clear_caches(&mut self) {
        self.caches.iter_mut().for_each(PrefixCache::clear);
    }

    /// Whether only the large model matters at every one of `alphas`: the shift is zero.
    fn large_alone(&self, alphas: &[f32]) -> bool {
        self.runs_as[1] == self.runs_as[2] || alphas.iter().all(|&a| a == 0.0)
    }

    /// Scores each continuation after its prompt with the combined logits; prompts and
    /// continuations are tokenized once, with the shared tokenizer. With
    /// [`ScoreOptions::full_logits`] the combined logits are returned.
    ///
    /// # Errors
    ///
    /// As [`LanguageModel::score`].
    pub fn score(
        &mut self,
        requests: &[ScoreRequest<'_>],
        options: &ScoreOptions,
    ) -> Result<Vec<Scored>> {
        let encoded = encode_requests(self.models[0].tokenizer(), requests)?;
        let token_requests: Vec<TokenRequest<'_>> =
            encoded.iter().map(EncodedRequest::as_tokens).collect();
        self.score_tokens(&token_requests, options)
    }

    /// Like [`WeakToStrong::score`], on token ids.
    ///
    /// # Errors
    ///
    /// [`ModelError::BadRequest`] naming the request (index within `requests`).
    pub fn score_tokens(
        &mut self,
        requests: &[TokenRequest<'_>],
        options: &ScoreOptions,
    ) -> Result<Vec<Scored>> {
        let mut steered = self.steered(requests, options, &[self.alpha])?;
        Ok(steered.pop().unwrap_or_default())
    }

    /// Scores each request at every steering strength of `alphas` at once: the three
    /// models run once and each α only combines their logits anew, so a sweep over α
    /// (fitting it, `bip calibrate --policy w2s`) costs one scoring. `result[k][i]` is
    /// request `i` at `alphas[k]`, as [`WeakToStrong::score_tokens`] would score it with
    /// α = `alphas[k]` (the model's own log-probabilities where α is 0).
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] for an α as [`WeakToStrong::new`] refuses it; otherwise as
    /// [`WeakToStrong::score_tokens`].
    pub fn score_tokens_at(
        &mut self,
        requests: &[TokenRequest<'_>],
        alphas: &[f64],
    ) -> Result<Vec<Vec<Scored>>> {
        alphas.iter().try_for_each(|&a| check_alpha(a))?;
        let alphas: Vec<f32> = alphas.iter().map(|&a| a as f32).collect();
        self.steered(requests, &ScoreOptions::default(), &alphas)
    }

    /// The requests scored at each of `alphas`, in rounds of at most
    /// [`MAX_ROWS_PER_ROUND`] continuation tokens.
    fn steered(
        &mut self,
        requests: &[TokenRequest<'_>],
        options: &ScoreOptions,
        alphas: &[f32],
    ) -> Result<Vec<Vec<Scored>>> {
        if self.large_alone(alphas) {
            let alone = self.models[0].score_tokens(&mut self.caches[0], requests, options)?;
            return Ok(vec![alone; alphas.len()]);
        }
        let mut out = vec![Vec::with_capacity(requests.len()); alphas.len()];
        let mut start = 0;
        while start < requests.len() {
            // At least one request per round, then as many as fit the row bound.
            let mut end = start + 1;
            let mut rows = requests[start].continuation.len();
            while end < requests.len()
                && rows + requests[end].continuation.len() <= MAX_ROWS_PER_ROUND
            {
                rows += requests[end].continuation.len();
                end += 1;
            }
            let round =
                self.round(&requests[start..end], options, alphas)
                    .map_err(|e| match e {
                        ModelError::BadRequest { index, problem } => ModelError::BadRequest {
                            index: index + start,
                            problem,
                        },
                        other => other,
                    })?;
            for (all, part) in out.iter_mut().zip(round) {
                all.extend(part);
            }
            start = end;
        }
        Ok(out)
    }

    /// Scores `requests` with every distinct model and combines the logits at each of
    /// `alphas`.
    fn round(
        &mut self,
        requests: &[TokenRequest<'_>],
        options: &ScoreOptions,
        alphas: &[f32],
    ) -> Result<Vec<Vec<Scored>>> {
        let full = ScoreOptions {
            full_logits: true,
            ..*options
        };
        let mut runs: [Option<Vec<Scored>>; 3] = Default::default();
        for (role, ((run, model), cache)) in runs
            .iter_mut()
            .zip(&self.models)
            .zip(&mut self.caches)
            .enumerate()
        {
            if self.runs_as[role] == role {
                *run = Some(model.score_tokens(cache, requests, &full)?);
            }
        }
        let get = |role: usize| -> Result<&Vec<Scored>> {
            runs[self.runs_as[role]]
                .as_ref()
                .ok_or_else(|| ModelError::Backend("a model's scores are missing".into()))
        };
        let (large, expert, naive) = (get(0)?, get(1)?, get(2)?);
        let mut out = vec![Vec::with_capacity(requests.len()); alphas.len()];
        for ((l, e), n) in large.iter().zip(expert).zip(naive) {
            let (sl, se, sn) = (full_logits(l)?, full_logits(e)?, full_logits(n)?);
            for (&alpha, scored) in alphas.iter().zip(&mut out) {
                scored.push(combined(l, sl, se, sn, alpha, options.full_logits));
            }
        }
        Ok(out)
    }
}

/// The large model's scores `l` (its logits `sl`) steered by `alpha (se − sn)`; at α = 0
/// its own log-probabilities, as when only it runs.
fn combined(l: &Scored, sl: &[f32], se: &[f32], sn: &[f32], alpha: f32, logits: bool) -> Scored {
    let vocab = l.vocab_size;
    if alpha == 0.0 {
        return Scored {
            tokens: l.tokens.clone(),
            logprobs: l.logprobs.clone(),
            logits: logits.then(|| sl.to_vec()),
            vocab_size: vocab,
        };
    }
    let mut z = vec![0.0f32; sl.len()];
    z.par_chunks_mut(vocab.max(1))
        .enumerate()
        .for_each(|(r, zr)| {
            let at = r * vocab;
            for (j, x) in zr.iter_mut().enumerate() {
                *x = sl[at + j] + alpha * (se[at + j] - sn[at + j]);
            }
        });
    let logprobs = log_softmax_rows(&z, vocab, &l.tokens);
    Scored {
        tokens: l.tokens.clone(),
        logprobs,
        logits: logits.then_some(z),
        vocab_size: vocab,
    }
}

/// Refuses an α that is not finite or beyond ±[`MAX_W2S_ALPHA`].
fn check_alpha(alpha: f64) -> Result<()> {
    if alpha.is_finite() && alpha.abs() <= MAX_W2S_ALPHA {
        return Ok(());
    }
    Err(ModelError::Config(format!(
        "weak-to-strong alpha {} is not a number in [-{MAX_W2S_ALPHA}, {MAX_W2S_ALPHA}]",
        number(alpha)
    )))
}

/// The full logits of `s`, which [`WeakToStrong`] always asks for.
fn full_logits(s: &Scored) -> Result<&[f32]> {
    s.logits
        .as_deref()
        .ok_or_else(|| ModelError::Backend("full logits were not returned".into()))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::lora::{LoraAdapter, LoraConfig};
    use crate::tests::TestBackend;
    use crate::testutil::{temp_dir, tiny_config, write_tiny_gguf};
    use crate::{ModelInfo, Tokenizer};

    type Model = Arc<LanguageModel<TestBackend>>;

    /// A large and a small tiny model in `dir`.
    fn files(dir: &Path) -> (PathBuf, PathBuf) {
        let (large, small) = (dir.join("large.gguf"), dir.join("small.gguf"));
        write_tiny_gguf(&large, &tiny_config(), 31);
        write_tiny_gguf(&small, &tiny_config(), 32);
        (large, small)
    }

    fn load(path: &Path, adapter: Option<&LoraAdapter>) -> Model {
        let dev = Default::default();
        Arc::new(match adapter {
            None => LanguageModel::load(path, &dev).unwrap(),
            Some(a) => LanguageModel::load_with_adapter(path, a, &dev).unwrap(),
        })
    }

    const PROMPT: [u32; 5] = [1, 40, 261, 7, 262];

    fn requests() -> Vec<TokenRequest<'static>> {
        vec![
            TokenRequest {
                prompt: &PROMPT,
                continuation: &[100, 3, 261],
            },
            TokenRequest {
                prompt: &PROMPT,
                continuation: &[50],
            },
            TokenRequest {
                prompt: &PROMPT[..2],
                continuation: &[262, 262],
            },
        ]
    }

    /// Large-alone log-probs of [`requests`].
    fn alone(large: &Model) -> Vec<Scored> {
        large
            .score_tokens(
                &mut PrefixCache::default(),
                &requests(),
                &ScoreOptions::default(),
            )
            .unwrap()
    }

    /// The combination computed from each model's own full logits, in f64.
    fn by_hand(l: &Model, e: &Model, n: &Model, alpha: f64) -> Vec<Vec<f64>> {
        let full = ScoreOptions {
            full_logits: true,
            ..ScoreOptions::default()
        };
        let run = |m: &Model| {
            m.score_tokens(&mut PrefixCache::default(), &requests(), &full)
                .unwrap()
        };
        let (sl, se, sn) = (run(l), run(e), run(n));
        let mut out = Vec::new();
        for ((a, b), c) in sl.iter().zip(&se).zip(&sn) {
            let mut lps = Vec::new();
            for (i, &t) in a.tokens.iter().enumerate() {
                let (ra, rb, rc) = (
                    a.logits_row(i).unwrap(),
                    b.logits_row(i).unwrap(),
                    c.logits_row(i).unwrap(),
                );
                let z: Vec<f64> = (0..ra.len())
                    .map(|j| f64::from(ra[j]) + alpha * (f64::from(rb[j]) - f64::from(rc[j])))
                    .collect();
                let max = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let lse = max + z.iter().map(|x| (x - max).exp()).sum::<f64>().ln();
                lps.push(z[t as usize] - lse);
            }
            out.push(lps);
        }
        out
    }

    fn logprobs(s: &[Scored]) -> Vec<Vec<f32>> {
        s.iter().map(|s| s.logprobs.clone()).collect()
    }

    #[test]
    fn alpha_zero_and_equal_small_models_give_the_large_model_exactly() {
        let dir = temp_dir("w2s-exact");
        let (large, small) = files(&dir);
        let l = load(&large, None);
        let n = load(&small, None);
        let adapter = LoraAdapter::random(&tiny_config(), LoraConfig::new(4, 8.0), 3, 0.5);
        let e = load(&small, Some(&adapter));
        let expected = logprobs(&alone(&l));
        let mut w2s = WeakToStrong::new(l.clone(), e.clone(), n.clone(), 0.0).unwrap();
        assert_eq!(
            logprobs(
                &w2s.score_tokens(&requests(), &ScoreOptions::default())
                    .unwrap()
            ),
            expected
        );
        assert_eq!(w2s.stats().expert.tokens_computed(), 0);
        // A zero adapter: the expert is a distinct model with the naive model's weights.
        let zero = LoraAdapter::init(&tiny_config(), LoraConfig::new(4, 8.0), 3);
        let e0 = load(&small, Some(&zero));
        let mut w2s = WeakToStrong::new(l.clone(), e0, n, 1.5).unwrap();
        let scored = w2s
            .score_tokens(&requests(), &ScoreOptions::default())
            .unwrap();
        assert_eq!(logprobs(&scored), expected);
        let stats = w2s.stats();
        assert!(stats.expert.tokens_computed() > 0 && stats.naive.tokens_computed() > 0);
        assert_eq!(stats.tokens_computed(), 3 * stats.large.tokens_computed());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_nonzero_adapter_shifts_the_scores_by_the_formula() {
        let dir = temp_dir("w2s-shift");
        let (large, small) = files(&dir);
        let (l, n) = (load(&large, None), load(&small, None));
        let adapter = LoraAdapter::random(&tiny_config(), LoraConfig::new(4, 8.0), 3, 0.5);
        let e = load(&small, Some(&adapter));
        let expected = by_hand(&l, &e, &n, 0.7);
        let mut w2s = WeakToStrong::new(l.clone(), e, n, 0.7).unwrap();
        let options = ScoreOptions {
            full_logits: true,
            max_batch_tokens: 4,
            min_prefix_pass: 0,
        };
        // Twice: the second call is served by warm prefix caches.
        for _ in 0..2 {
            let scored = w2s.score_tokens(&requests(), &options).unwrap();
            let base = alone(&l);
            let mut largest_shift = 0.0f32;
            for ((s, x), b) in scored.iter().zip(&expected).zip(&base) {
                assert_eq!(s.logprobs.len(), x.len());
                for ((g, w), lb) in s.logprobs.iter().zip(x).zip(&b.logprobs) {
                    assert!((f64::from(*g) - w).abs() < 1e-5, "{g} vs {w}");
                    largest_shift = largest_shift.max((g - lb).abs());
                }
                assert_eq!(
                    s.logits.as_ref().unwrap().len(),
                    s.tokens.len() * s.vocab_size
                );
            }
            assert!(largest_shift > 1e-3, "{largest_shift}");
        }
        assert!(w2s.stats().large.reused_tokens > 0);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_sweep_over_alpha_scores_as_one_run_per_alpha() {
        let dir = temp_dir("w2s-sweep");
        let (large, small) = files(&dir);
        let (l, n) = (load(&large, None), load(&small, None));
        let adapter = LoraAdapter::random(&tiny_config(), LoraConfig::new(4, 8.0), 3, 0.5);
        let e = load(&small, Some(&adapter));
        let alphas = [0.0, 0.5, 1.0, 2.5];
        let mut sweep = WeakToStrong::new(l.clone(), e.clone(), n.clone(), 1.0).unwrap();
        let swept = sweep.score_tokens_at(&requests(), &alphas).unwrap();
        assert_eq!(swept.len(), alphas.len());
        for (&alpha, at) in alphas.iter().zip(&swept) {
            let mut one = WeakToStrong::new(l.clone(), e.clone(), n.clone(), alpha).unwrap();
            let single = one
                .score_tokens(&requests(), &ScoreOptions::default())
                .unwrap();
            assert_eq!(logprobs(at), logprobs(&single), "alpha {alpha}");
        }
        assert_ne!(logprobs(&swept[0]), logprobs(&swept[3]), "α matters");
        // Each model ran once for the four strengths.
        let stats = sweep.stats();
        assert_eq!(stats.tokens_computed(), 3 * stats.large.tokens_computed());
        let computed = stats.large.tokens_computed();
        let mut one = WeakToStrong::new(l, e, n, 1.0).unwrap();
        one.score_tokens(&requests(), &ScoreOptions::default())
            .unwrap();
        assert_eq!(one.stats().large.tokens_computed(), computed);
        let err = sweep
            .score_tokens_at(&requests(), &[1.0, f64::INFINITY])
            .unwrap_err()
            .to_string();
        assert!(err.contains("alpha inf"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_model_in_two_roles_runs_once() {
        let dir = temp_dir("w2s-shared");
        let (large, small) = files(&dir);
        let l = load(&large, None);
        let e = load(&small, None);
        let expected = by_hand(&l, &e, &l, 1.0);
        let mut w2s = WeakToStrong::new(l.clone(), e, l, 1.0).unwrap();
        let scored = w2s
            .score(
                &[ScoreRequest {
                    prompt: "the in",
                    continuation: " the",
                }],
                &ScoreOptions::default(),
            )
            .unwrap();
        assert_eq!(scored[0].tokens, vec![261]);
        assert_eq!(w2s.stats().naive, CacheStats::default());
        let scored = w2s
            .score_tokens(&requests(), &ScoreOptions::default())
            .unwrap();
        for (s, x) in scored.iter().zip(&expected) {
            for (g, w) in s.logprobs.iter().zip(x) {
                assert!((f64::from(*g) - w).abs() < 1e-5, "{g} vs {w}");
            }
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn mismatched_models_are_refused_before_scoring() {
        let dir = temp_dir("w2s-mismatch");
        let (large, small) = files(&dir);
        let (l, s) = (load(&large, None), load(&small, None));
        // Swap two tokens' ids: same size, different spelling at those ids.
        let mut json: serde_json::Value =
            serde_json::from_str(&s.tokenizer().inner().to_string(false).unwrap()).unwrap();
        let vocab = json["model"]["vocab"].as_object_mut().unwrap();
        vocab.insert("Ġthe".into(), 262.into());
        vocab.insert("in".into(), 261.into());
        let path = dir.join("tokenizer.json");
        std::fs::write(&path, json.to_string()).unwrap();
        let tokenizer = Tokenizer::from_file(&path).unwrap();
        let info = ModelInfo::read(&small).unwrap();
        let config = s.config().clone();
        let odd = Arc::new(LanguageModel::from_parts(
            config.init_with_seed(1, &Default::default()),
            tokenizer,
            config,
            info,
        ));
        let err = WeakToStrong::new(l.clone(), odd, s.clone(), 1.0)
            .unwrap_err()
            .to_string();
        assert!(err.contains("the large model ("), "{err}");
        assert!(err.contains("the expert model ("), "{err}");
        assert!(
            err.contains("tokenizers differ: token 261 is \"Ġthe\" and \"in\""),
            "{err}"
        );
        // A different logit width.
        let mut wide = tiny_config();
        wide.vocab_size = 300;
        let wide = Arc::new(LanguageModel::from_parts(
            wide.init(&Default::default()),
            s.tokenizer().clone(),
            wide,
            ModelInfo::read(&small).unwrap(),
        ));
        let err = WeakToStrong::new(l.clone(), s.clone(), wide, 1.0)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("the naive model (") && err.contains("logit widths differ: 263 and 300"),
            "{err}"
        );
        let err = WeakToStrong::new(l, s.clone(), s, f64::NAN)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("alpha NaN is not a number in [-100, 100]"),
            "{err}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
