//! The engine over bip's models: policies built from options (as the command line's flags
//! and Python's keywords give them), the engine's text scorer over models bip hosts, one
//! or three steered ([`scorer`]), over models served elsewhere ([`remote`],
//! [`remote_w2s`]), behind the persistent score cache ([`cached`]), and the files they
//! read and write ([`io`]). The `bip` command and the Python package both build on it;
//! it depends on no command-line parser.
//!
//! It re-exports the workspace's libraries:
//! - [`episodes`]: the world and episode model, the `bip-episode/1` format, replay;
//! - [`engine`]: hypotheses, beliefs, policies, online and batch inference, answers;
//! - [`nested`]: nested beliefs in multi-agent stories (Hi-ToM, ToMi);
//! - [`lab`]: generation, evaluation, calibration, variance, studies, reports, plots;
//! - [`themes`]: thematic vocabularies;
//! - [`models`]: language-model hosting for LM policies.
//!
//! ```
//! use bip_adapters::engine::{infer_episode, BatchOptions, PlannerPolicy};
//! use bip_adapters::episodes::Episode;
//!
//! let episode = Episode::from_json(r#"{
//!   "format": "bip-episode/1",
//!   "world": {"rooms": ["kitchen"],
//!     "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"}],
//!     "objects": [{"id": "apple_1", "at": "fridge"}]},
//!   "agent": {"name": "Ann", "start": "kitchen"},
//!   "actions": [{"walk_to": "fridge"}],
//!   "questions": [{"options": [
//!     {"belief": {"object": "apple", "container": "fridge", "inside": true}, "given": {"goal": "apple"}},
//!     {"belief": {"object": "apple", "container": "fridge", "inside": false}, "given": {"goal": "apple"}}]}]
//! }"#, "demo")?;
//! let result = infer_episode(&episode, &PlannerPolicy::default(), &BatchOptions::default())?;
//! assert_eq!(result.answers[0].choice, Some(0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub use bip_engine as engine;
pub use bip_episodes as episodes;
pub use bip_lab as lab;
pub use bip_models as models;
pub use bip_nested as nested;
pub use bip_themes as themes;

pub mod cached;
pub mod io;
pub mod policy;
pub mod remote;
pub mod remote_w2s;
pub mod scorer;
