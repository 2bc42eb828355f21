//! ToMi stories (Le, Boureau and Nickel 2019), read deterministically into stories (the
//! multi-agent kind of `bip-episode/1`), with no language model.
//!
//! A ToMi file is in the bAbI layout ([`read_babi`]): numbered sentences, a story restarting
//! at `1`, a question line holding the answer after a tab. Its sentences are Hi-ToM's
//! kind — agents entering and leaving rooms, an object in a container, an agent moving it,
//! likings that say nothing of where anything is — and are read by Hi-ToM's sentence
//! reader, with what ToMi leaves out decided from the whole story first:
//!
//! - which nouns are rooms, containers and objects (ToMi gives no list of containers):
//!   from the sentence shapes;
//! - the room each container stands in: where an agent later moves an object out of it or
//!   into it, not the room last entered before it is first named, since in ToMi other
//!   agents wander in and out of other rooms meanwhile;
//! - the agent a pronoun stands for: the agents of the latest sentence naming any; the
//!   object "it" stands for: the one last named;
//! - a sentence of two events ("Bo exited the kitchen and entered the hall"): cut in two.
//!
//! Questions ask where an agent will look, where one agent thinks another searches,
//! where the object really is, and where it was at the beginning (asked before any
//! event). The trace beside a file gives each question's type and its story's type, kept
//! as labels for reports and never read: tags `question` and `story`. A question with an
//! answer is tagged `logic`: `follows` when the answer is what Sally–Anne logic says,
//! written out plainly and apart from the engine, `departs` otherwise (the benchmark has
//! such labels; they are reported, never imitated).

mod babi;
mod clauses;
mod lexicon;
mod pronouns;
mod question;
mod record;
mod reference;
mod rooms;

pub use babi::{read_babi, BabiQuestion, MAX_STORY_SENTENCES};
pub use record::{read_question_of, read_tomi, trace_labels, ReadQuestion, TomiLabels, TomiRecord};
