//! Models served by another engine (vLLM, SGLang, llama.cpp's server) over an
//! OpenAI-compatible HTTP API: the way a model too large for one machine scores for bip.
//!
//! [`RemoteModel`] sends each (prompt + continuation) text to `/completions` with `echo`
//! and `logprobs`, checks that the engine splits it into exactly the tokens bip's own
//! tokenizer makes, and reads the continuation's log-probabilities wherever the engine put
//! them ([`Alignment`]).

mod align;
mod echo;
mod endpoint;
mod http;
mod model;
mod pool;
mod scored;
mod tokenize;
mod top_k;

pub use align::Alignment;
pub use endpoint::Endpoint;
pub use http::HttpOptions;
pub use model::{RemoteModel, RemoteOptions, RemoteRequest, ECHO_READING};
pub use top_k::TopK;
