//! Log-space arithmetic. Probabilities are carried as natural logs so that long episodes
//! never underflow; `f64::NEG_INFINITY` is probability zero.

/// log(Σ exp(xᵢ)), computed stably; `NEG_INFINITY` for an empty slice or all-zero terms.
pub fn log_sum_exp(values: &[f64]) -> f64 {
    log_sum_exp_of(values.iter().copied())
}

/// [`log_sum_exp`] of values an iterator gives (twice: it is cloned), so a sum over a
/// filtered slice needs no vector of its own; the same result, bit for bit.
pub(crate) fn log_sum_exp_of(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let max = values.clone().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    max + values.map(|v| (v - max).exp()).sum::<f64>().ln()
}

/// Turns log weights into probabilities that sum to 1 (all zero when every weight is zero).
pub fn normalize(log_weights: &[f64]) -> Vec<f64> {
    let total = log_sum_exp(log_weights);
    if total == f64::NEG_INFINITY {
        return vec![0.0; log_weights.len()];
    }
    log_weights.iter().map(|w| (w - total).exp()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sum_exp_is_stable_far_below_underflow() {
        // exp(-1000) underflows to 0 in f64, yet two such terms sum to log(2) - 1000.
        let s = log_sum_exp(&[-1000.0, -1000.0]);
        assert!((s - (2f64.ln() - 1000.0)).abs() < 1e-12);
    }

    #[test]
    fn log_sum_exp_ignores_zero_probability_terms() {
        assert_eq!(log_sum_exp(&[f64::NEG_INFINITY, 0.0]), 0.0);
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
        assert_eq!(log_sum_exp(&[f64::NEG_INFINITY]), f64::NEG_INFINITY);
    }

    #[test]
    fn normalize_sums_to_one_without_nan() {
        let p = normalize(&[-2000.0, -2001.0, f64::NEG_INFINITY]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p[0] > p[1] && p[2] == 0.0);
        assert_eq!(normalize(&[f64::NEG_INFINITY; 2]), vec![0.0, 0.0]);
    }
}
