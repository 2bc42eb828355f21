//! Weak-to-strong steering when the large model is known only through its top k: a
//! served L returns, per position, the log-probabilities of its k likeliest tokens (and
//! of the token scored), not its whole distribution.
//!
//! The steered log-probability of token t is `log p_L(t) + α d(t) − log Z` with
//! `d = s_E − s_N` (the small models' logits, known in full) and
//! `Z = Σ_v p_L(v) e^{α d(v)}` (log-probabilities differ from logits by a constant, which
//! the normalisation removes). Over the tokens K whose `p_L` is known, Z's terms are
//! exact; the rest carries L's remaining mass `R = 1 − Σ_K p_L`, each of its tokens at
//! most `p_min`, the smallest known top-k probability (they rank below it). Putting that
//! mass on the tokens with the largest `α d` first bounds Z from above; on the smallest
//! first, from below. The estimate spreads R as the naive model spreads its own mass over
//! the rest.

use crate::error::{ModelError, Result};
use crate::softmax::log_normalizer;

/// A steered token's log-probability from L's top k, with the bounds it is sure to lie in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopKSteered {
    /// The estimate (L's remaining mass spread as N spreads its own).
    pub estimate: f64,
    /// No smaller than this, whatever L's remaining tokens are.
    pub lower: f64,
    /// No larger than this.
    pub upper: f64,
}

/// The steered log-probability of `token` at one position.
///
/// `top` holds L's top k as `(token id, log p_L)`, `token_logprob` L's log-probability of
/// `token` (which may be outside the top k); `expert` and `naive` are E's and N's logits
/// over the whole vocabulary there.
///
/// # Errors
///
/// [`ModelError::BadRequest`] when the rows' widths differ, an id is outside the
/// vocabulary, or a value is not finite.
pub fn steered_top_k(
    top: &[(u32, f64)],
    token: u32,
    token_logprob: f64,
    expert: &[f32],
    naive: &[f32],
    alpha: f64,
) -> Result<TopKSteered> {
    let bad = |problem: String| ModelError::BadRequest { index: 0, problem };
    let vocab = expert.len();
    if naive.len() != vocab {
        return Err(bad(format!(
            "expert and naive rows of {vocab} and {}",
            naive.len()
        )));
    }
    let steer = |v: usize| alpha * (f64::from(expert[v]) - f64::from(naive[v]));
    let mut known = vec![false; vocab];
    let mut known_z = 0.0;
    let mut known_mass = 0.0;
    let mut p_min: f64 = 1.0;
    let mut target = None;
    // The scored token last: outside the top k it must not lower `p_min`, the bound on
    // the tokens L ranks below its top k.
    let entries = top
        .iter()
        .map(|&e| (e, true))
        .chain([((token, token_logprob), false)]);
    for ((id, logprob), in_top) in entries {
        let v = id as usize;
        if v >= vocab || !logprob.is_finite() {
            return Err(bad(format!(
                "L's top-k entry ({id}, {logprob}) is unusable"
            )));
        }
        if std::mem::replace(&mut known[v], true) {
            continue;
        }
        let p = logprob.min(0.0).exp();
        known_mass += p;
        if in_top {
            p_min = p_min.min(p);
        }
        known_z += p * steer(v).exp();
        if id == token {
            target = Some(logprob.min(0.0) + steer(v));
        }
    }
    let numerator = target.ok_or_else(|| bad(format!("token {token}: no log-probability")))?;
    let rest_mass = (1.0 - known_mass).max(0.0);
    let mut rest: Vec<f64> = (0..vocab).filter(|&v| !known[v]).map(steer).collect();
    rest.sort_by(|a, b| b.total_cmp(a));
    let z_high = known_z + fill(rest_mass, p_min, rest.iter());
    let z_low = known_z + fill(rest_mass, p_min, rest.iter().rev());
    let z_est = known_z + naive_rest(naive, &known, &steer, rest_mass);
    Ok(TopKSteered {
        estimate: numerator - z_est.ln(),
        lower: numerator - z_high.ln(),
        upper: numerator - z_low.ln(),
    })
}

/// The normaliser's term for L's mass outside its known tokens, `rest_mass`, given at
/// most `p_min` a token to the steering values of `order` first.
fn fill<'a>(rest_mass: f64, p_min: f64, order: impl Iterator<Item = &'a f64>) -> f64 {
    let (mut left, mut z) = (rest_mass, 0.0);
    for &s in order {
        if left <= 0.0 {
            break;
        }
        let p = left.min(p_min);
        z += p * s.exp();
        left -= p;
    }
    z
}

/// The same term with `rest_mass` spread over the unknown tokens as the naive model
/// spreads its own mass there (the shape of L's): the estimate.
fn naive_rest(naive: &[f32], known: &[bool], steer: &dyn Fn(usize) -> f64, rest_mass: f64) -> f64 {
    let norm = log_normalizer(naive);
    let (mut n_mass, mut n_z) = (0.0, 0.0);
    for v in (0..naive.len()).filter(|&v| !known[v]) {
        let p = (f64::from(naive[v] - norm.0) - norm.1).exp();
        n_mass += p;
        n_z += p * steer(v).exp();
    }
    if n_mass > 0.0 {
        rest_mass * n_z / n_mass
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact steered log-probability from L's whole distribution.
    fn exact(large: &[f64], token: usize, expert: &[f32], naive: &[f32], alpha: f64) -> f64 {
        let s: Vec<f64> = (0..large.len())
            .map(|v| large[v] + alpha * f64::from(expert[v] - naive[v]))
            .collect();
        let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = s.iter().map(|x| (x - max).exp()).sum();
        s[token] - max - z.ln()
    }

    #[test]
    fn bounds_hold_and_tighten_with_k() {
        // A peaked L over 50 tokens, E and N differing in a pattern.
        let logits: Vec<f64> = (0..50).map(|v| -0.3 * v as f64).collect();
        let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ln_z = logits.iter().map(|x| (x - max).exp()).sum::<f64>().ln() + max;
        let large: Vec<f64> = logits.iter().map(|x| x - ln_z).collect();
        let expert: Vec<f32> = (0..50).map(|v| ((v * 7) % 11) as f32 * 0.2).collect();
        let naive: Vec<f32> = (0..50).map(|v| ((v * 3) % 5) as f32 * 0.1).collect();
        let token = 2;
        let truth = exact(&large, token, &expert, &naive, 1.0);
        let mut last_width = f64::INFINITY;
        for k in [5, 10, 20, 50] {
            let top: Vec<(u32, f64)> = (0..k).map(|v| (v as u32, large[v])).collect();
            let got = steered_top_k(&top, token as u32, large[token], &expert, &naive, 1.0)
                .expect("scores");
            assert!(
                got.lower <= truth + 1e-9 && truth <= got.upper + 1e-9,
                "{k}: {got:?} {truth}"
            );
            assert!(
                got.lower <= got.estimate && got.estimate <= got.upper,
                "{got:?}"
            );
            let width = got.upper - got.lower;
            assert!(
                width <= last_width + 1e-12,
                "{k}: {width} after {last_width}"
            );
            last_width = width;
        }
        assert!(last_width < 1e-9, "all of L known: exact");
        // A token outside the top k keeps the bounds true.
        let truth = exact(&large, 30, &expert, &naive, 1.0);
        for k in [5, 10, 20] {
            let top: Vec<(u32, f64)> = (0..k).map(|v| (v as u32, large[v])).collect();
            let got = steered_top_k(&top, 30, large[30], &expert, &naive, 1.0).expect("scores");
            assert!(
                got.lower <= truth + 1e-9 && truth <= got.upper + 1e-9,
                "{k}: {got:?} {truth}"
            );
        }
    }

    #[test]
    fn refuses_what_it_cannot_use() {
        let row = [0.0_f32; 4];
        assert!(steered_top_k(&[(9, -1.0)], 0, -1.0, &row, &row, 1.0).is_err());
        assert!(steered_top_k(&[(0, -1.0)], 1, f64::NAN, &row, &row, 1.0).is_err());
        assert!(steered_top_k(&[(0, -1.0)], 0, -1.0, &row, &row[..3], 1.0).is_err());
        let ok = steered_top_k(&[(0, -1.0)], 3, -2.0, &row, &row, 1.0).expect("usable");
        assert!(
            (ok.estimate - -2.0).abs() < 1e-9,
            "no steering: L's own {ok:?}"
        );
    }
}
