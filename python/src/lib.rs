//! Python bindings of bip: the extension module `bip._bip`, which the `bip` Python
//! package re-exports (`import bip`).
//!
//! - [`episode::Episode`] (`bip.Episode`): episodes read from `bip-episode/1` JSON, from
//!   a VirtualHome graph and program, or from an MMToM-QA record
//!   ([`episode::import_mmtom`]);
//! - [`session::Session`] (`bip.Session`): a live inference session over
//!   [`bip::engine::LiveSession`], fed one action (or VirtualHome program line) at a
//!   time, with its [`posterior::Posterior`] as plain data or numpy arrays;
//! - [`infer::infer`] (`bip.infer`): batch inference, as `bip infer` runs it;
//! - [`error`]: bip's errors as Python exceptions, with the command line's messages.
//!
//! The GIL is released while bip works. The Python-facing documentation is in the
//! docstrings and in `bip/_bip.pyi`.
#![deny(missing_docs)]

mod convert;
pub mod episode;
pub mod error;
pub mod infer;
pub mod options;
pub mod posterior;
pub mod session;

use pyo3::pymodule;

/// bip: Bayesian inverse planning — infer what an embodied agent wants and thinks from
/// what it does.
#[pymodule]
mod _bip {
    #[pymodule_export]
    use super::episode::{import_mmtom, Episode};
    #[pymodule_export]
    use super::error::{BipError, EpisodeError, ImpossibleAction, InferenceError, PolicyError};
    #[pymodule_export]
    use super::infer::infer;
    #[pymodule_export]
    use super::options::option_names;
    #[pymodule_export]
    use super::posterior::Posterior;
    #[pymodule_export]
    use super::session::Session;

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
