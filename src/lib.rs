//! bip: Bayesian inverse planning — infer what an embodied agent wants and thinks from
//! what it does.
//!
//! This crate re-exports the workspace's libraries:
//! - [`episodes`]: the world and episode model, the `bip-episode/1` format, replay;
//! - [`engine`]: hypotheses, beliefs, policies, online and batch inference, answers;
//! - [`themes`]: thematic vocabularies;
//! - [`models`]: language-model hosting for LM policies;
//!
//! and adds [`policy`] (policies built from options, as the CLI's flags give them),
//! [`scorer`] (the engine's text scorer over bip's models) and [`io`].
//!
//! ```
//! use bip::engine::{infer_episode, BatchOptions, PlannerPolicy};
//! use bip::episodes::Episode;
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
pub use bip_themes as themes;

pub mod cached;
pub mod io;
pub mod plot;
pub mod policy;
pub mod remote;
pub mod remote_w2s;
pub mod scorer;
