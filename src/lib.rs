//! bip: Bayesian inverse planning — infer what an embodied agent wants and thinks from
//! what it does.
//!
//! This crate is the `bip` command; as a library it is the workspace's facade,
//! [`bip_adapters`] re-exported whole: [`episodes`], [`engine`], [`lab`], [`themes`],
//! [`models`], and the policies built from options ([`policy`]), the scorers
//! ([`scorer`], [`remote`], [`cached`]) and [`io`].
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

pub use bip_adapters::*;
