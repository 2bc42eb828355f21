//! bip's errors as Python exceptions, with the messages the command line prints.

use std::error::Error;

use pyo3::exceptions::PyException;
use pyo3::PyErr;

use bip::engine::EngineError;

pyo3::create_exception!(
    bip,
    BipError,
    PyException,
    "Every error bip raises. The message is the error and its causes, joined by \": \", as \
     the `bip` command prints it."
);
pyo3::create_exception!(
    bip,
    EpisodeError,
    BipError,
    "An episode, action, question or import that is not valid; the message names the \
     field, line, node or sentence at fault."
);
pyo3::create_exception!(
    bip,
    ImpossibleAction,
    EpisodeError,
    "An action pushed to a session that cannot happen in its current state (the session \
     is unchanged)."
);
pyo3::create_exception!(
    bip,
    InferenceError,
    BipError,
    "Inference could not go on: a policy failed, or a session was asked for something it \
     cannot do."
);
pyo3::create_exception!(
    bip,
    PolicyError,
    BipError,
    "A policy could not be built: an unknown name, a parameter out of range, a model or \
     adapter that cannot be loaded."
);

/// An error and its causes, each joined by ": " — `{:#}` of an `anyhow::Error`, which
/// is what the command line prints after `bip: `.
pub(crate) fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

/// An invalid episode, import, action or question.
pub(crate) fn episode(error: &dyn Error) -> PyErr {
    EpisodeError::new_err(chain(error))
}

/// An inference error: [`ImpossibleAction`] for an impossible action.
pub(crate) fn engine(error: &EngineError) -> PyErr {
    match error {
        EngineError::ImpossibleAction { .. } => ImpossibleAction::new_err(chain(error)),
        _ => InferenceError::new_err(chain(error)),
    }
}

/// A policy that cannot be built.
pub(crate) fn policy(error: &dyn Error) -> PyErr {
    PolicyError::new_err(chain(error))
}
