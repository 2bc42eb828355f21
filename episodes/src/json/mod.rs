//! The `bip-episode/1` JSON format: serde structs that mirror the file, and their
//! conversion to and from the validated [`Episode`](crate::Episode) (one acting agent:
//! [`EpisodeFile`]) and [`Story`](crate::Story) (several agents: [`StoryFile`]).
//!
//! The file speaks in names ("fridge", "apple_2"); [`Episode::from_json`](crate::Episode::from_json) resolves every
//! name once and replays every action, so an [`Episode`](crate::Episode) is always consistent. Errors name
//! the JSON path of the offending field (`actions[3].open`) and its value.

mod file;
mod read;
mod story_file;
mod story_read;
mod story_write;
mod write;

pub use file::{
    default_class, ActionFile, AgentFile, AlternativeFile, BeliefFile, DoorFile, EpisodeFile,
    FurnitureFile, KindFile, ObjectFile, OptionFile, PropositionFile, QuestionFile, WorldFile,
    FORMAT,
};
pub use story_file::{
    EventFile, LocationFile, NestedBeliefFile, StoryAgentFile, StoryFile, StoryOptionFile,
    StoryQuestionFile,
};
