//! The symbolic world and episode model of bip.
//!
//! An [`Episode`] holds a [`World`] (rooms, furniture that is a container or a surface,
//! objects and where they start, and a walking [`Layout`] over a petgraph graph), the
//! [`Agent`], its [`Action`]s and the [`Question`]s asked about it. Episodes are read from
//! the versioned `bip-episode/1` JSON format ([`json`]), which resolves every name to a typed
//! id and replays every action, so an invalid file is rejected with the path of the field at
//! fault. [`State`] replays actions and tells what the agent [observes](State::observe).
//!
//! A [`Story`] is the multi-agent kind of episode, in the same format: several agents
//! enter and leave rooms, move objects and tell each other where objects are (truly or
//! not), and questions nest beliefs ("A thinks B thinks the pear is in the red box").
//! [`AnyEpisode`] reads a document of either kind.
//!
//! ```
//! use bip_episodes::{Episode, Place};
//!
//! let text = r#"{
//!   "format": "bip-episode/1",
//!   "world": {
//!     "rooms": ["kitchen", "bathroom"],
//!     "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"}],
//!     "objects": [{"id": "apple_1", "at": "fridge"}]
//!   },
//!   "agent": {"name": "Mark", "start": "bathroom"},
//!   "actions": [{"walk_to": "fridge"}, {"open": "fridge"}]
//! }"#;
//! let episode = Episode::from_json(text, "demo")?;
//! let states = episode.states();
//! let fridge = episode.world().furniture_by_name("fridge").unwrap();
//! assert_eq!(states[1].place(), Place::Furniture(fridge));
//! // Once open, the fridge's inside is in view.
//! assert_eq!(states[2].observe(episode.world()).seen.len(), 1);
//! # Ok::<(), bip_episodes::EpisodeError>(())
//! ```
#![deny(missing_docs)]

mod action;
mod document;
mod episode;
mod error;
mod ids;
pub mod import;
pub mod json;
mod layout;
pub mod limits;
mod question;
mod question_type;
mod state;
mod story;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
mod world;

pub use action::Action;
pub use document::AnyEpisode;
pub use episode::{Agent, Episode, EpisodeParts};
pub use error::EpisodeError;
pub use ids::{AgentId, ClassId, FurnitureClassId, FurnitureId, ObjectId, RoomId};
pub use layout::{Layout, Place, APPROACH_DISTANCE};
pub use question::{
    option_index, option_letter, AnswerOption, Claim, Expected, Proposition, Question,
};
pub use question_type::{QuestionLabel, QuestionType};
pub use state::{Impossible, Observation, State};
pub use story::{
    Event, NestedClaim, Story, StoryAgent, StoryImpossible, StoryOption, StoryParts, StoryQuestion,
    StoryState,
};
pub use world::{Furniture, FurnitureKind, Object, Room, World};
