//! Log-softmax of logit rows on the host: one fused pass per row, rows in parallel.
//!
//! Scoring and model combination both use these, so that equal logits give bit-equal
//! log-probabilities whichever path produced them.

use rayon::prelude::*;

/// The normaliser of a logits row: its maximum and `ln Σ exp(row − max)`, the sum in
/// `f64`.
pub(crate) fn log_normalizer(row: &[f32]) -> (f32, f64) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = row.iter().map(|&x| f64::from((x - max).exp())).sum();
    (max, sum.ln())
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
}
