//! AdamW over host vectors, and the learning-rate schedule (linear warm-up, cosine decay).
//!
//! burn-core 0.21 has no optimisers (they live in burn-optim); the LoRA factors are few
//! (about 2.4 M numbers for SmolLM2-135M at rank 8), so the update runs on the host.

/// AdamW (decoupled weight decay, Loshchilov & Hutter) with PyTorch's defaults for the
/// moments: `β₁ = 0.9`, `β₂ = 0.999`, `ε = 1e-8`.
#[derive(Debug, Clone)]
pub(crate) struct AdamW {
    weight_decay: f64,
    step: u32,
    /// First and second moments, one pair per parameter vector.
    moments: Vec<(Vec<f32>, Vec<f32>)>,
}

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

impl AdamW {
    /// An optimiser for parameter vectors of these lengths.
    pub(crate) fn new(lengths: &[usize], weight_decay: f64) -> Self {
        Self {
            weight_decay,
            step: 0,
            moments: lengths
                .iter()
                .map(|&n| (vec![0.0; n], vec![0.0; n]))
                .collect(),
        }
    }

    /// One step at learning rate `lr`: `params[i] -= lr · (m̂ / (√v̂ + ε) + λ params[i])`.
    pub(crate) fn step(&mut self, lr: f64, params: &mut [&mut [f32]], grads: &[Vec<f32>]) {
        self.step += 1;
        let t = f64::from(self.step);
        let (c1, c2) = (1.0 - BETA1.powf(t), 1.0 - BETA2.powf(t));
        for ((p, g), (m, v)) in params.iter_mut().zip(grads).zip(&mut self.moments) {
            for i in 0..p.len() {
                let gi = f64::from(g[i]);
                let mi = BETA1 * f64::from(m[i]) + (1.0 - BETA1) * gi;
                let vi = BETA2 * f64::from(v[i]) + (1.0 - BETA2) * gi * gi;
                m[i] = mi as f32;
                v[i] = vi as f32;
                let update = (mi / c1) / ((vi / c2).sqrt() + EPS);
                let pi = f64::from(p[i]);
                p[i] = (pi - lr * (update + self.weight_decay * pi)) as f32;
            }
        }
    }
}

/// Scales `grads` so that their global L2 norm is at most `max_norm` (when positive);
/// returns the norm before clipping.
pub(crate) fn clip_global_norm(grads: &mut [Vec<f32>], max_norm: f64) -> f64 {
    let norm = grads
        .iter()
        .flatten()
        .map(|&g| f64::from(g) * f64::from(g))
        .sum::<f64>()
        .sqrt();
    if max_norm > 0.0 && norm > max_norm {
        let k = (max_norm / norm) as f32;
        grads.iter_mut().flatten().for_each(|g| *g *= k);
    }
    norm
}

/// Learning rate at step `step` (from 0) of `total`: linear warm-up over the first
/// `warmup` steps to `peak`, then cosine decay to zero at `total`.
pub(crate) fn cosine_lr(peak: f64, step: usize, total: usize, warmup: usize) -> f64 {
    if step < warmup {
        return peak * (step + 1) as f64 / warmup as f64;
    }
    let span = total.saturating_sub(warmup).max(1) as f64;
    let progress = ((step - warmup) as f64 / span).min(1.0);
    0.5 * peak * (1.0 + (std::f64::consts::PI * progress).cos())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_step_moves_each_weight_by_the_learning_rate() {
        // With bias correction the first update is lr · sign(g) (up to ε), plus decay.
        let mut opt = AdamW::new(&[3], 0.0);
        let mut p = [1.0f32, -1.0, 0.5];
        let g = vec![vec![0.2f32, -3.0, 0.0]];
        opt.step(0.1, &mut [&mut p[..]], &g);
        assert!((p[0] - 0.9).abs() < 1e-6 && (p[1] + 0.9).abs() < 1e-6);
        assert_eq!(p[2], 0.5);
        let mut opt = AdamW::new(&[1], 0.5);
        let mut q = [2.0f32];
        opt.step(0.1, &mut [&mut q[..]], &[vec![0.0]]);
        assert!((q[0] - 1.9).abs() < 1e-6, "decay alone: {}", q[0]);
    }

    #[test]
    fn schedule_warms_up_then_decays_to_zero() {
        assert!((cosine_lr(1.0, 0, 10, 2) - 0.5).abs() < 1e-12);
        assert!((cosine_lr(1.0, 1, 10, 2) - 1.0).abs() < 1e-12);
        assert!((cosine_lr(1.0, 6, 10, 2) - 0.5).abs() < 1e-12);
        assert!(cosine_lr(1.0, 10, 10, 2).abs() < 1e-12);
        assert!((cosine_lr(2.0, 0, 1, 0) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn clipping_bounds_the_global_norm() {
        let mut g = vec![vec![3.0f32], vec![4.0]];
        assert!((clip_global_norm(&mut g, 1.0) - 5.0).abs() < 1e-9);
        assert!((g[0][0] - 0.6).abs() < 1e-6 && (g[1][0] - 0.8).abs() < 1e-6);
    }
}
