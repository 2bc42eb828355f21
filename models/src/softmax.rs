//! Log-softmax of logit rows on the host: one fused pass per row, rows in parallel.
//!
//! Scoring and model combination both use these, so that equal logits give bit-equal
//! log-probabilities whichever path produced them.

use rayon::prelude::*;

/// The normaliser of a logits row: its maximum and `ln Σ exp(row − max)`.
///
/// The exponentials run [`LANES`] at a time with a polynomial (a whole vocabulary row
/// per token makes this the host's hot loop), compiled for the widest vector unit the
/// CPU has. The lanes are plain arrays added in a fixed order and nothing is fused, so
/// the result is bit-identical whichever unit ran it. Each block of [`BLOCK`] values is
/// summed in `f32` and the blocks in `f64`.
pub(crate) fn log_normalizer(row: &[f32]) -> (f32, f64) {
    pulp::Arch::new().dispatch(
        #[inline(always)]
        || normalizer_lanes(row),
    )
}

/// How many values go through the exponential at once.
const LANES: usize = 16;

/// How many values are summed in `f32` before the sum joins the `f64` total.
const BLOCK: usize = 64 * LANES;

#[inline(always)]
fn normalizer_lanes(row: &[f32]) -> (f32, f64) {
    let mut top = [f32::NEG_INFINITY; LANES];
    let chunks = row.chunks_exact(LANES);
    let tail = chunks.remainder();
    for chunk in chunks {
        for (m, &x) in top.iter_mut().zip(chunk) {
            *m = if x > *m { x } else { *m };
        }
    }
    let max = top
        .iter()
        .chain(tail)
        .copied()
        .fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0f64;
    for block in row.chunks(BLOCK) {
        let mut acc = [0.0f32; LANES];
        let chunks = block.chunks_exact(LANES);
        let tail = chunks.remainder();
        for chunk in chunks {
            for (a, &x) in acc.iter_mut().zip(chunk) {
                *a += exp_nonpositive(x - max);
            }
        }
        let lanes: f32 = acc.iter().sum();
        let tail: f32 = tail.iter().map(|&x| exp_nonpositive(x - max)).sum();
        total += f64::from(lanes) + f64::from(tail);
    }
    (max, total.ln())
}

/// `exp(x)` for `x ≤ 0` (Cephes' `expf`: `x = k ln 2 + r`, `|r| ≤ ln 2 / 2`, a degree-7
/// polynomial for `exp(r)`, `2^k` built from its bits), within 2 ulp of the true value.
/// Below −87 it returns `exp(−87)` (about 1.6e-38, nothing beside the row's maximum's
/// 1); NaN stays NaN.
#[inline(always)]
pub(crate) fn exp_nonpositive(x: f32) -> f32 {
    // 1.5 · 2^23: adding it rounds to an integer held in the low mantissa bits.
    const SHIFT: f32 = 12_582_912.0;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let x = if x < -87.0 { -87.0 } else { x };
    let shifted = x * std::f32::consts::LOG2_E + SHIFT;
    let k = shifted - SHIFT;
    let r = x - k * LN2_HI - k * LN2_LO;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let exp_r = p * r * r + r + 1.0;
    let k_bits = shifted.to_bits().wrapping_sub(SHIFT.to_bits());
    let two_to_k = f32::from_bits(k_bits.wrapping_add(127) << 23);
    exp_r * two_to_k
}

/// [`log_normalizer`] of each `vocab`-wide row of `logits`, rows in parallel.
pub(crate) fn log_normalizers(logits: &[f32], vocab: usize) -> Vec<(f32, f64)> {
    logits.par_chunks(vocab).map(log_normalizer).collect()
}

/// `log softmax(row)[target]` given the row's [`log_normalizer`].
pub(crate) fn log_prob(row: &[f32], target: u32, (max, ln_sum): (f32, f64)) -> f32 {
    (f64::from(row[target as usize] - max) - ln_sum) as f32
}

/// `log softmax(row)[target]`: `row[target] − max − ln Σ exp(row − max)`.
pub(crate) fn log_softmax_at(row: &[f32], target: usize) -> f32 {
    log_prob(row, target as u32, log_normalizer(row))
}

/// [`log_softmax_at`] for each `vocab`-wide row of `logits` and its target.
pub(crate) fn log_softmax_rows(logits: &[f32], vocab: usize, targets: &[u32]) -> Vec<f32> {
    logits
        .par_chunks(vocab)
        .zip(targets.par_iter())
        .map(|(row, &t)| log_softmax_at(row, t as usize))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_definition_and_survives_large_logits() {
        let row = [1.0f32, 2.0, 3.0];
        let z: f64 = row.iter().map(|&x| f64::from(x).exp()).sum();
        let expected = 2.0 - z.ln();
        assert!((f64::from(log_softmax_at(&row, 1)) - expected).abs() < 1e-6);
        let big = [1000.0f32, 1000.0];
        assert!((log_softmax_at(&big, 0) + std::f32::consts::LN_2).abs() < 1e-6);
        let rows = log_softmax_rows(&[0.0, 0.0, 5.0, 5.0], 2, &[0, 1]);
        assert_eq!(rows.len(), 2);
        assert!(rows
            .iter()
            .all(|&l| (l + std::f32::consts::LN_2).abs() < 1e-6));
    }

    #[test]
    fn the_polynomial_exponential_is_within_two_ulp_down_to_minus_87() {
        let mut worst = 0u32;
        for i in 0..=870_000 {
            let x = -(i as f32) * 1e-4;
            let got = exp_nonpositive(x);
            let want = f64::from(x).exp() as f32;
            worst = worst.max(got.to_bits().abs_diff(want.to_bits()));
        }
        assert!(worst <= 2, "worst error {worst} ulp");
        assert_eq!(exp_nonpositive(0.0), 1.0);
        assert_eq!(exp_nonpositive(-1000.0), exp_nonpositive(-87.0));
        assert!(exp_nonpositive(f32::NAN).is_nan());
    }

    #[test]
    fn a_vocabulary_row_normalises_as_the_plain_sum_does() {
        // Rows of every length around the lane and block sizes, values spread like logits.
        for len in [1, 15, 16, 17, 1023, 1024, 1025, 49_152] {
            let row: Vec<f32> = (0..len)
                .map(|i| ((i * 7919 % 1000) as f32 - 500.0) * 0.05)
                .collect();
            let (max, ln_sum) = log_normalizer(&row);
            let plain: f64 = row.iter().map(|&x| (f64::from(x - max)).exp()).sum();
            assert_eq!(max, row.iter().copied().fold(f32::NEG_INFINITY, f32::max));
            assert!(
                (ln_sum - plain.ln()).abs() < 1e-6,
                "{len}: {ln_sum} vs {}",
                plain.ln()
            );
        }
        let mut nan = vec![0.0f32; 100];
        nan[40] = f32::NAN;
        assert!(log_normalizer(&nan).1.is_nan());
    }
}
