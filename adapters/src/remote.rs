//! Models served by another engine as bip scorers: [`RemoteScorer`] over a
//! [`RemoteModel`], and [`connect`], which builds one from the command line's words.

use std::path::Path;

use bip_engine::{PolicyFailure, TextRequest};
use bip_models::remote::RemoteRequest;
use bip_models::{
    encode_requests, read_tokenizer, resolve_model, EncodedRequest, Endpoint, ModelError,
    RemoteModel, RemoteOptions, ScoreRequest,
};

use crate::cached::TokenScorer;

/// A served model scoring for the LM policies.
pub struct RemoteScorer {
    name: String,
    identity: String,
    model: RemoteModel,
}

impl RemoteScorer {
    /// Wraps a connected model.
    pub fn new(model: RemoteModel) -> Self {
        Self {
            name: format!("served {}", model.endpoint()),
            identity: model.cache_identity(),
            model,
        }
    }

    /// The model.
    pub fn model(&self) -> &RemoteModel {
        &self.model
    }
}

/// Connects to the model `spec` names (`URL` or `URL#NAME`; `served` replaces the name),
/// tokenizing with the model at `tokenizer` (a path or alias: a GGUF file, a Hugging Face
/// folder or its `tokenizer.json`).
///
/// # Errors
///
/// A bad URL, a tokenizer that cannot be read, or an engine that cannot be reached,
/// echoes no log-probabilities, or tokenizes otherwise than `tokenizer`.
pub fn connect(
    spec: &str,
    served: Option<&str>,
    tokenizer: &str,
    options: RemoteOptions,
) -> Result<RemoteScorer, ModelError> {
    let endpoint = Endpoint::parse(spec)?.with_model(served);
    let path = resolve_model(tokenizer)?;
    let tokenizer = read_tokenizer(&path).map_err(|e| ModelError::Context {
        context: tokenizer_context(&path),
        source: Box::new(e),
    })?;
    Ok(RemoteScorer::new(RemoteModel::connect(
        endpoint, tokenizer, options,
    )?))
}

fn tokenizer_context(path: &Path) -> String {
    format!(
        "reading the tokenizer for the served model from {}",
        path.display()
    )
}

impl TokenScorer for RemoteScorer {
    fn name(&self) -> &str {
        &self.name
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn encode(&self, requests: &[TextRequest<'_>]) -> Result<Vec<EncodedRequest>, PolicyFailure> {
        let requests: Vec<ScoreRequest<'_>> = requests
            .iter()
            .map(|r| ScoreRequest {
                prompt: r.prompt,
                continuation: r.continuation,
            })
            .collect();
        Ok(encode_requests(self.model.tokenizer(), &requests)?)
    }

    fn score_encoded(
        &self,
        texts: &[TextRequest<'_>],
        encoded: &[EncodedRequest],
        done: &mut dyn FnMut(usize, Vec<f32>) -> Result<(), PolicyFailure>,
    ) -> Result<(), PolicyFailure> {
        let whole = whole_texts(texts, encoded);
        let requests = remote_requests(&whole);
        // `done`'s own failure (a cache write) is carried out through the model's error.
        let mut failure: Option<PolicyFailure> = None;
        let result = self.model.score(&requests, &mut |i, logprobs| {
            done(i, logprobs).map_err(|e| {
                let message = e.to_string();
                failure = Some(e);
                ModelError::Remote {
                    endpoint: self.model.endpoint().to_string(),
                    problem: message,
                }
            })
        });
        match (result, failure) {
            (Ok(()), _) => Ok(()),
            (Err(_), Some(e)) => Err(e),
            (Err(e), None) => Err(e.into()),
        }
    }

    fn tokens_computed(&self) -> u64 {
        self.model.tokens_sent()
    }
}

/// Each request as an engine is sent it: the whole text, its tokens, and how many of
/// them are the continuation's.
pub(crate) fn whole_texts(
    texts: &[TextRequest<'_>],
    encoded: &[EncodedRequest],
) -> Vec<(String, Vec<u32>, usize)> {
    texts
        .iter()
        .zip(encoded)
        .map(|(t, e)| {
            let text = format!("{}{}", t.prompt, t.continuation);
            let tokens = [e.prompt.as_slice(), &e.continuation].concat();
            (text, tokens, e.continuation.len())
        })
        .collect()
}

/// The requests of [`whole_texts`], borrowed as the served model takes them.
pub(crate) fn remote_requests(whole: &[(String, Vec<u32>, usize)]) -> Vec<RemoteRequest<'_>> {
    whole
        .iter()
        .map(|(text, tokens, continuation)| RemoteRequest {
            text,
            tokens,
            continuation: *continuation,
        })
        .collect()
}
