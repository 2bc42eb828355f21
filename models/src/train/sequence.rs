//! The log-probabilities training differentiates: one whole sequence in one pass.

use burn::tensor::activation::log_softmax;
use burn::tensor::backend::Backend;
use burn::tensor::{Int, Tensor, TensorData};

use crate::error::{ModelError, Result};
use crate::transformer::Transformer;

/// Log-probabilities of `tokens[from..]`, each given the tokens before it, from one pass
/// of `model` over the sequence (a fresh cache, no prefix sharing).
///
/// # Shapes
///
/// → `[tokens.len() - from]`.
///
/// # Errors
///
/// [`ModelError::BadRequest`] (request 0) when `from` is 0 or not below the length, the
/// sequence exceeds the context, or a token is outside the vocabulary.
pub(crate) fn sequence_logprobs<B: Backend>(
    model: &Transformer<B>,
    tokens: &[u32],
    from: usize,
) -> Result<Tensor<B, 1>> {
    check(model, tokens, from)?;
    // The last token predicts nothing scored: run the rest.
    let input: Vec<i32> = tokens[..tokens.len() - 1]
        .iter()
        .map(|&t| t as i32)
        .collect();
    let (len, n) = (input.len(), tokens.len() - from);
    let device = model.device();
    let ids = Tensor::<B, 1, Int>::from_data(TensorData::new(input, [len]), &device);
    let hidden = model.forward(ids.reshape([1, len]), &mut model.new_cache());
    let rows = hidden
        .reshape([len, model.hidden_size()])
        .narrow(0, from - 1, n);
    let logp = log_softmax(model.logits(rows), 1);
    let targets: Vec<i32> = tokens[from..].iter().map(|&t| t as i32).collect();
    let targets = Tensor::<B, 2, Int>::from_data(TensorData::new(targets, [n, 1]), &device);
    Ok(logp.gather(1, targets).reshape([n]))
}

/// What [`sequence_logprobs`] needs of its request.
fn check<B: Backend>(model: &Transformer<B>, tokens: &[u32], from: usize) -> Result<()> {
    let bad = |problem: String| Err(ModelError::BadRequest { index: 0, problem });
    if from == 0 || from >= tokens.len() {
        return bad(format!(
            "scoring tokens {from}.. of {} needs at least one before and one after",
            tokens.len()
        ));
    }
    if tokens.len() > model.max_len() {
        return bad(format!(
            "{} tokens exceed the context of {}",
            tokens.len(),
            model.max_len()
        ));
    }
    match tokens.iter().find(|&&t| t as usize >= model.vocab_size()) {
        Some(t) => bad(format!(
            "token {t} is outside the vocabulary of {}",
            model.vocab_size()
        )),
        None => Ok(()),
    }
}
