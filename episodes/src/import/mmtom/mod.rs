//! MMToM-QA text questions, read deterministically into `bip-episode/1` episodes.
//!
//! A question's text has three parts, each read by its own module over one shared
//! lexicon of rooms, furniture and objects (with synonyms and plurals), a vocabulary of
//! verbs, and a small grammar of noun phrases (counts, ordinals, "one of the", "the sixth
//! one"):
//!
//! - the scene ("What's inside the apartment: ...") becomes the world: rooms, numbered
//!   furniture and objects;
//! - the narrative ("Actions taken by NAME: ...") becomes actions: walks, opens, closes,
//!   "is about to open X" as a walk to X;
//! - the question and its options become claims: "If NAME has been trying to get a X"
//!   conditions belief options on the goal X, "If NAME thinks there isn't a X inside C"
//!   conditions goal options on that belief.
//!
//! # Ids and choices
//!
//! - Rooms: `kitchen`, `living_room`, `bedroom`, `bathroom` (and `dining_room`); no
//!   `doors`, so every room opens onto every other.
//! - Furniture: the VirtualHome class (`fridge`, `stove`, `coffee_table`); a "cabinet" is a
//!   `kitchen_cabinet` in the kitchen and a `bathroom_cabinet` in the bathroom, a "table"
//!   in the kitchen a `kitchen_table`. The id is the class, prefixed with the room when
//!   the class has pieces in several rooms (`bedroom_coffee_table`), suffixed with the
//!   piece's number in its room when there are several and always for kitchen cabinets
//!   (`kitchen_cabinet_1` .. `_8`, from the left). Containers: stove, microwave, fridge,
//!   dishwasher, cabinets, wardrobe; the rest are surfaces. `class` is always written.
//! - Objects: `class_N`, numbered per class in scene order (`wine_1` for the first
//!   "bottle of wine"), `class` always written.
//! - "Walks towards the wine": `walk_to` the instance in the agent's room, else the first
//!   in scene order. "The cabinet" in the narrative: the one in the agent's room; in a
//!   question: the piece whose class is `cabinet` (see the `resolve` module for the full
//!   order of rules). Opening or closing a container first walks to it; walking where the
//!   agent already is is dropped.
//!
//! What cannot be read is an [`ImportError`](crate::import::ImportError) naming the
//! sentence, the phrase and the reason. The MMToM-QA question type is carried into the
//! episode for reports and is never read.

mod apartment;
mod lexicon;
mod narrative;
mod numbers;
mod phrase;
mod question;
mod record;
mod resolve;
mod scene;
mod script;
mod steps;
mod text;
mod verbs;
pub mod vocabulary;

pub use crate::import::Note;
pub use record::{
    optional_string_field, read_jsonl, read_record, read_text, read_text_noted, record_value,
    string_field, MmtomRecord, TextReading,
};
