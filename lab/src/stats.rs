//! Paired tests between runs (the exact McNemar test and Holm–Bonferroni adjustment), and
//! the spread of a few accuracies.

/// The range (max − min) and the sample variance (n − 1) of `values`; both 0 for fewer
/// than two values.
pub fn range_and_variance(values: &[f64]) -> (f64, f64) {
    if values.len() < 2 {
        return (0.0, 0.0);
    }
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    (max - min, ss / (values.len() - 1) as f64)
}

/// Two-sided exact McNemar p-value for paired yes/no outcomes: `b` pairs where only the
/// first run was right, `c` where only the second was. Under the null each discordant
/// pair is a fair coin, so p = min(1, 2 · P(X ≤ min(b, c))) with X ~ Binomial(b + c, ½);
/// 1 when there are no discordant pairs.
///
/// # Complexity
/// O(min(b, c)), in log space (no underflow for large tables).
///
/// # Example
/// ```
/// let p = bip_lab::stats::mcnemar_exact(1, 6);
/// assert!((p - 0.125).abs() < 1e-12);
/// ```
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // log P(X = i), i = 0..=k, by the ratio C(n, i+1)/C(n, i) = (n - i)/(i + 1).
    let mut log_p = -(n as f64) * std::f64::consts::LN_2;
    let mut terms = Vec::with_capacity(k + 1);
    for i in 0..=k {
        terms.push(log_p);
        log_p += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tail = max + terms.iter().map(|t| (t - max).exp()).sum::<f64>().ln();
    (2.0 * tail.exp()).min(1.0)
}

/// Holm–Bonferroni adjusted p-values, in the order given: the i-th smallest of m
/// p-values is multiplied by m − i + 1, made non-decreasing in that order, and capped at
/// one. Rejecting where the adjusted value is ≤ α controls the family-wise error rate.
///
/// # Example
/// ```
/// let adjusted = bip_lab::stats::holm(&[0.01, 0.04, 0.03, 0.005]);
/// let expected = [0.03, 0.06, 0.06, 0.02];
/// assert!(adjusted.iter().zip(expected).all(|(a, e)| (a - e).abs() < 1e-12));
/// ```
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-10
    }

    #[test]
    fn mcnemar_matches_binomial_tables() {
        // 2 · P(X ≤ 1), X ~ Bin(7, ½) = 2 · 8/128.
        assert!(close(mcnemar_exact(1, 6), 0.125));
        assert!(close(mcnemar_exact(6, 1), 0.125));
        // 2 · P(X ≤ 0), X ~ Bin(5, ½) = 2/32.
        assert!(close(mcnemar_exact(0, 5), 0.0625));
        // 2 · P(X ≤ 2), X ~ Bin(12, ½) = 2 · 79/4096 (R: binom.test(2, 12)$p.value).
        assert!(close(mcnemar_exact(2, 10), 158.0 / 4096.0));
        // Balanced tables are capped at 1; no discordant pairs is no evidence.
        assert!(close(mcnemar_exact(4, 4), 1.0));
        assert!(close(mcnemar_exact(0, 0), 1.0));
    }

    #[test]
    fn mcnemar_stays_finite_for_large_tables() {
        let p = mcnemar_exact(500, 700);
        assert!(p > 0.0 && p < 1e-7, "{p}");
        // Symmetric big table: p near 1.
        assert!(mcnemar_exact(1000, 1001) > 0.9);
    }

    #[test]
    fn holm_matches_a_known_adjustment() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02.
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (a, e) in adjusted.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!(close(*a, e), "{adjusted:?}");
        }
        // Capped at 1, monotone, empty stays empty.
        assert_eq!(holm(&[0.6, 0.9]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }
}
