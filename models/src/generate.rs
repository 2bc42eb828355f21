//! Greedy generation.

use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

use crate::error::{ModelError, Result};
use crate::transformer::Transformer;

/// What greedy decoding produced.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Generation {
    /// The tokens generated after the prompt (a stop token included when one was hit).
    pub tokens: Vec<u32>,
    /// Whether decoding ended on a stop token rather than the token limit.
    pub stopped: bool,
}

/// Extends `prompt` one most-probable token at a time (ties go to the lowest id), until a
/// token of `stop` or `max_tokens` tokens.
///
/// # Errors
///
/// [`ModelError::BadRequest`] for an empty prompt, a token outside the vocabulary, or a
/// prompt plus `max_tokens` longer than the context; [`ModelError::NotANumber`] when the
/// model computes NaN.
pub fn generate_greedy<B: Backend>(
    model: &Transformer<B>,
    prompt: &[u32],
    max_tokens: usize,
    stop: &[u32],
) -> Result<Generation> {
    let bad = |problem: String| Err(ModelError::BadRequest { index: 0, problem });
    let vocab = model.vocab_size();
    if prompt.is_empty() {
        return bad("empty prompt".into());
    }
    if let Some(t) = prompt.iter().find(|&&t| t as usize >= vocab) {
        return bad(format!("token {t} is outside the vocabulary of {vocab}"));
    }
    if prompt.len().saturating_add(max_tokens) > model.max_len() {
        return bad(format!(
            "{} prompt tokens plus {max_tokens} new ones exceed the context of {}",
            prompt.len(),
            model.max_len()
        ));
    }
    let device = model.device();
    let mut cache = model.new_cache();
    let mut input: Vec<u32> = prompt.to_vec();
    let mut out = Vec::new();
    while out.len() < max_tokens {
        let n = input.len();
        let ids: Vec<i32> = input.iter().map(|&t| t as i32).collect();
        let t = Tensor::<B, 1, Int>::from_data(TensorData::new(ids, [n]), &device).reshape([1, n]);
        let hidden = model.forward(t, &mut cache);
        let last = hidden.narrow(1, n - 1, 1).reshape([1, model.hidden_size()]);
        let logits = ModelError::read_back(model.logits(last).into_data())?;
        let next = argmax(&logits).ok_or(ModelError::NotANumber { index: 0 })?;
        out.push(next);
        if stop.contains(&next) {
            return Ok(Generation {
                tokens: out,
                stopped: true,
            });
        }
        input = vec![next];
    }
    Ok(Generation {
        tokens: out,
        stopped: false,
    })
}

/// Index of the largest value, the first one on ties; `None` when a value is NaN (the
/// model is broken, and no choice would mean anything). One pass, as before the check.
fn argmax(values: &[f32]) -> Option<u32> {
    let mut best = 0;
    let mut nan = false;
    for (i, &v) in values.iter().enumerate() {
        nan |= v.is_nan();
        if v > values[best] {
            best = i;
        }
    }
    (!nan).then_some(best as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LlamaConfig;
    use crate::tests::TestBackend;

    #[test]
    fn argmax_prefers_first_and_refuses_nan() {
        assert_eq!(argmax(&[1.0, 3.0, 3.0]), Some(1));
        assert_eq!(argmax(&[f32::NAN, 0.5, 0.2]), None);
        assert_eq!(argmax(&[0.5, f32::NAN]), None);
    }

    #[test]
    fn a_token_limit_past_any_context_is_an_error() {
        let model = LlamaConfig::new(30, 16, 24, 1, 4, 2)
            .with_max_seq_len(64)
            .init::<TestBackend>(&Default::default());
        let err = generate_greedy(&model, &[1, 2], usize::MAX, &[]).unwrap_err();
        assert!(
            err.to_string().contains(&format!(
                "2 prompt tokens plus {} new ones exceed the context of 64",
                usize::MAX
            )),
            "{err}"
        );
    }

    #[test]
    fn greedy_matches_stepwise_full_passes() {
        let model = LlamaConfig::new(30, 16, 24, 2, 4, 2)
            .with_max_seq_len(32)
            .init_with_seed(9, &Default::default());
        let prompt = [1u32, 2, 3];
        let g = generate_greedy(&model, &prompt, 5, &[]).unwrap();
        assert_eq!(g.tokens.len(), 5);
        assert!(!g.stopped);
        // Each token is the argmax of a fresh full pass over everything before it.
        let mut seq = prompt.to_vec();
        for &t in &g.tokens {
            let n = seq.len();
            let ids: Vec<i32> = seq.iter().map(|&x| x as i32).collect();
            let x = Tensor::<TestBackend, 1, Int>::from_data(
                TensorData::new(ids, [n]),
                &Default::default(),
            );
            let h = model.forward(x.reshape([1, n]), &mut model.new_cache());
            let logits: Vec<f32> = model
                .logits(h.narrow(1, n - 1, 1).reshape([1, 16]))
                .into_data()
                .to_vec()
                .unwrap();
            assert_eq!(argmax(&logits), Some(t));
            seq.push(t);
        }
        let stop = generate_greedy(&model, &prompt, 5, &[g.tokens[0]]).unwrap();
        assert_eq!(stop.tokens, g.tokens[..1].to_vec());
        assert!(stop.stopped);
        assert!(generate_greedy(&model, &prompt, 30, &[]).is_err());
    }
}
