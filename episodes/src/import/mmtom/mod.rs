//! MMToM-QA text questions, read deterministically into `bip-episode/1` episodes.
//!
//! A question's text has three parts, each read by its own module over one shared
//! [`lexicon`](self) of rooms, furniture and objects (with synonyms and plurals) and a
//! small grammar of noun phrases (counts, ordinals, "one of the", "the sixth one"):
//!
//! - the scene ("What's inside the apartment: ...") becomes the world: rooms, numbered
//!   furniture and objects (ids: see the `apartment` module docs);
//! - the narrative ("Actions taken by NAME: ...") becomes actions: walks, opens, closes,
//!   "is about to open X" as a walk to X;
//! - the question and its options become claims: "If NAME has been trying to get a X"
//!   conditions belief options on the goal X, "If NAME thinks there isn't a X inside C"
//!   conditions goal options on that belief.
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

pub use record::{read_jsonl, read_record, read_text, MmtomRecord};
