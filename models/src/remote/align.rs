//! Where an engine puts the log-probability of each echoed token.
//!
//! The OpenAI format puts P(token i | tokens before i) at position i, in `token_logprobs`
//! and in `top_logprobs`. llama.cpp's Python server (0.3.36) does not: its position i holds
//! the distribution that *follows* token i, so P(token i | …) is found in the `top_logprobs`
//! of position i − 1 (only when token i is among that position's top k), while its
//! `token_logprobs` holds a number of no use here. bip does not trust the format: it asks
//! the engine to echo a probe text and takes the reading under which the engine finds that
//! ordinary text likely.

use super::echo::Echo;

/// Where position i's log-probability is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alignment {
    /// At position i, in `token_logprobs` (the OpenAI format; vLLM, SGLang).
    Own,
    /// In the `top_logprobs` of position i − 1, by the token's text (llama.cpp's server).
    Previous,
}

/// A text any language model finds predictable, so that the right reading of its echo
/// scores far above the wrong one.
pub(crate) const PROBE: &str = "One, two, three, four, five, six, seven, eight, nine, ten. \
     Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday.";

/// Nats per token by which the right reading must beat the wrong one.
const MARGIN: f64 = 1.0;

impl Alignment {
    /// Its name in reports and score-cache identities.
    pub fn name(self) -> &'static str {
        match self {
            Alignment::Own => "own",
            Alignment::Previous => "previous",
        }
    }

    /// Reads the probe's echo both ways and keeps the way that finds it likelier.
    ///
    /// # Errors
    ///
    /// A message with both readings' mean log-probabilities when neither is clearly
    /// likelier.
    pub(crate) fn detect(echo: &Echo) -> Result<Self, String> {
        let own = mean((1..echo.tokens.len()).filter_map(|i| read(echo, Self::Own, i)));
        let previous = mean((1..echo.tokens.len()).filter_map(|i| read(echo, Self::Previous, i)));
        match (own, previous) {
            (Some(o), Some(p)) if p > o + MARGIN => Ok(Self::Previous),
            (Some(o), Some(p)) if o > p + MARGIN => Ok(Self::Own),
            (Some(_), None) => Ok(Self::Own),
            (None, Some(_)) => Ok(Self::Previous),
            _ => Err(format!(
                "cannot tell where the engine puts each token's log-probability: a probe \
                 text reads as {} nats per token at the token's own position and {} at \
                 the position before",
                shown(own),
                shown(previous)
            )),
        }
    }

    /// The log-probability of the token at echo position `i`, when the echo has it.
    pub(crate) fn read(self, echo: &Echo, i: usize) -> Option<f64> {
        read(echo, self, i)
    }
}

fn read(echo: &Echo, alignment: Alignment, i: usize) -> Option<f64> {
    let token = echo.tokens.get(i)?;
    let value = match alignment {
        Alignment::Own => echo.token_logprobs.get(i).copied().flatten().or_else(|| {
            let top = echo.top.get(i)?.as_ref()?;
            top.get(token).copied()
        }),
        Alignment::Previous => {
            let top = echo.top.get(i.checked_sub(1)?)?.as_ref()?;
            top.get(token).copied()
        }
    }?;
    (value.is_finite() && value <= 1e-6).then_some(value.min(0.0))
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

fn shown(v: Option<f64>) -> String {
    v.map_or_else(|| "nothing".to_string(), |v| format!("{v:.2}"))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn echo(tokens: &[&str], own: &[Option<f64>], top: &[&[(&str, f64)]]) -> Echo {
        Echo {
            tokens: tokens.iter().map(|t| t.to_string()).collect(),
            token_logprobs: own.to_vec(),
            top: top
                .iter()
                .map(|m| {
                    let map: HashMap<String, f64> =
                        m.iter().map(|(k, v)| (k.to_string(), *v)).collect();
                    Some(map)
                })
                .collect(),
        }
    }

    #[test]
    fn finds_llama_cpp_shift() {
        // Position i holds what follows token i; token_logprobs is P(token i again).
        let e = echo(
            &["One", ",", " two"],
            &[None, Some(-12.0), Some(-14.0)],
            &[
                &[(",", -0.5), ("One", -11.0)],
                &[(" two", -0.3), (",", -12.0)],
                &[(" two", -14.0)],
            ],
        );
        assert_eq!(Alignment::detect(&e), Ok(Alignment::Previous));
        assert_eq!(Alignment::Previous.read(&e, 2), Some(-0.3));
        assert_eq!(Alignment::Previous.read(&e, 0), None);
    }

    #[test]
    fn finds_openai_alignment() {
        let e = echo(
            &["One", ",", " two"],
            &[None, Some(-0.5), Some(-0.3)],
            &[&[], &[(",", -0.5), (".", -2.0)], &[(" two", -0.3)]],
        );
        assert_eq!(Alignment::detect(&e), Ok(Alignment::Own));
        assert_eq!(Alignment::Own.read(&e, 1), Some(-0.5));
    }

    #[test]
    fn refuses_to_guess() {
        let e = echo(
            &["a", "b"],
            &[None, Some(-3.0)],
            &[&[("b", -3.0)], &[("b", -3.0)]],
        );
        let err = Alignment::detect(&e).expect_err("ambiguous");
        assert!(err.contains("-3.00"), "{err}");
    }
}
