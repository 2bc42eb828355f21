//! A belief about where one object is: a distribution over the story's furniture, in log
//! space.

use bip_episodes::FurnitureId;

use bip_engine::{log_sum_exp, normalize};

/// Ties between the most likely places are within this many nats.
const TIE: f64 = 1e-9;

/// P(object at f) for every piece of furniture f, as natural logs (`-inf` is zero),
/// always normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct LocationBelief {
    log_p: Vec<f64>,
}

impl LocationBelief {
    /// No idea: every one of `places` equally likely.
    pub fn uniform(places: usize) -> Self {
        let each = -(places.max(1) as f64).ln();
        Self {
            log_p: vec![each; places],
        }
    }

    /// Certainty that the object is at `at`, one of `places`.
    pub fn certain(places: usize, at: FurnitureId) -> Self {
        let mut log_p = vec![f64::NEG_INFINITY; places];
        if let Some(p) = log_p.get_mut(at.index()) {
            *p = 0.0;
        }
        Self { log_p }
    }

    /// log P(object at `place`); `-inf` for a place the belief does not cover.
    pub fn log_probability(&self, place: FurnitureId) -> f64 {
        self.log_p
            .get(place.index())
            .copied()
            .unwrap_or(f64::NEG_INFINITY)
    }

    /// P(object at `place`).
    pub fn probability(&self, place: FurnitureId) -> f64 {
        self.log_probability(place).exp()
    }

    /// P(object at f) for every f, in furniture order, summing to 1.
    pub fn probabilities(&self) -> Vec<f64> {
        normalize(&self.log_p)
    }

    /// The most likely place, or `None` when two or more tie.
    pub fn most_likely(&self) -> Option<FurnitureId> {
        let best = self.log_p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut at = self
            .log_p
            .iter()
            .enumerate()
            .filter(|(_, &p)| best - p <= TIE);
        match (at.next(), at.next()) {
            (Some((i, _)), None) => Some(FurnitureId::new(i)),
            _ => None,
        }
    }

    /// Takes testimony that the object is at `place` with weight `weight` ∈ [0, 1]: the
    /// belief becomes weight·(certainty at place) + (1 − weight)·(the belief).
    pub(crate) fn take_claim(&mut self, place: FurnitureId, weight: f64) {
        let keep = (1.0 - weight).ln();
        for (i, p) in self.log_p.iter_mut().enumerate() {
            *p = if i == place.index() {
                log_sum_exp(&[weight.ln(), keep + *p])
            } else {
                keep + *p
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(i: usize) -> FurnitureId {
        FurnitureId::new(i)
    }

    #[test]
    fn testimony_mixes_in_log_space_without_nan() {
        let mut b = LocationBelief::certain(3, f(0));
        b.take_claim(f(2), 0.8);
        assert!((b.probability(f(2)) - 0.8).abs() < 1e-12);
        assert!((b.probability(f(0)) - 0.2).abs() < 1e-12);
        assert_eq!(b.probability(f(1)), 0.0);
        assert_eq!(b.most_likely(), Some(f(2)));
        b.take_claim(f(0), 1.0);
        assert_eq!(b.most_likely(), Some(f(0)));
        b.take_claim(f(1), 0.0);
        assert!(b.probabilities().iter().all(|p| p.is_finite()));
        assert!((b.probabilities().iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn no_idea_ties() {
        let b = LocationBelief::uniform(4);
        assert_eq!(b.most_likely(), None);
        assert!((b.probability(f(3)) - 0.25).abs() < 1e-12);
        assert_eq!(b.probability(f(9)), 0.0);
    }
}
