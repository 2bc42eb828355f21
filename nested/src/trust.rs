//! How much agents take what they are told: the one parameter of nested-belief inference.

use bip_engine::EngineError;

/// The trust τ that weighs testimony (the benchmark's rule 3: agents tend to lie, and
/// tend to trust an agent that left a room later than themselves, the order of leaving
/// being known to all).
///
/// - A listener takes a claim with weight τ when the speaker last left a room after the
///   listener did (the speaker may have seen what the listener missed), and with weight
///   1 − τ otherwise: its belief becomes τ·(the claim) + (1 − τ)·(what it thought).
/// - A listener's model of the speaker moves to the claim with the same weight: a
///   speaker it trusts is taken to say what it thinks.
/// - A speaker's model of its listener moves to the claim with weight τ, whatever the
///   order of leaving: a speaker expects to be believed.
/// - A speaker's own belief never changes by what it says.
///
/// τ is fitted, not set by hand: `bip calibrate` on generated stories maximises the mean
/// log probability of the simulated agents' true beliefs (`fit_trust` of the lab crate, `bip-lab`);
/// [`DEFAULT_TRUST`] is the value it found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trust {
    trust: f64,
}

/// The trust `bip calibrate` fitted on 2,000 generated stories (`bip generate --kind
/// nested --n 2000 --seed 1`, whose simulated agents trust with τ = 0.8): 0.8195, rounded.
/// A test keeps the two together.
pub const DEFAULT_TRUST: f64 = 0.82;

/// The trust is fitted within this range: below ½ agents would trust those who left
/// earlier more, against the rule; at 1 no testimony could ever be doubted.
pub const TRUST_RANGE: (f64, f64) = (0.5, 0.999);

impl Default for Trust {
    fn default() -> Self {
        Self {
            trust: DEFAULT_TRUST,
        }
    }
}

impl Trust {
    /// A trust of `trust`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] unless `trust` is in [0, 1].
    pub fn new(trust: f64) -> Result<Self, EngineError> {
        if (0.0..=1.0).contains(&trust) {
            Ok(Self { trust })
        } else {
            Err(EngineError::InvalidParameter {
                name: "trust",
                value: trust,
                reason: "must lie in [0, 1]",
            })
        }
    }

    /// τ.
    pub fn value(self) -> f64 {
        self.trust
    }

    /// The weight a listener gives a claim, and its model of the speaker's belief: τ when
    /// the speaker left a room later than the listener, 1 − τ otherwise.
    pub fn listener_weight(self, speaker_left_later: bool) -> f64 {
        if speaker_left_later {
            self.trust
        } else {
            1.0 - self.trust
        }
    }

    /// The weight a speaker gives to its listener's having taken the claim: τ.
    pub fn speaker_weight(self) -> f64 {
        self.trust
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_outside_zero_one_is_refused() {
        assert!(Trust::new(1.2).is_err());
        assert!(Trust::new(f64::NAN).is_err());
        let t = Trust::new(0.75).expect("in range");
        assert_eq!(t.listener_weight(true), 0.75);
        assert_eq!(t.listener_weight(false), 0.25);
        assert_eq!(t.speaker_weight(), 0.75);
    }
}
