//! Hi-ToM stories, read deterministically into stories (the multi-agent kind of
//! `bip-episode/1`), with no language model.
//!
//! A Hi-ToM record has a story of numbered sentences (after an instruction line in the
//! `VP` prompting type), a question ("Where does Ann think Bo thinks the pear is?") and
//! fifteen lettered choices, every one a container. The reader is keyed on what is closed
//! — the record's own containers (its choices), the agents (capitalised names), the
//! objects the story places and the rooms agents enter — and on a few cues, and is
//! tolerant of what is open: verbs, adverbs and sentence shapes it has never seen
//! (`sentence` module):
//!
//! - an object and a container: where the object is ("The pear is in the red_box"; a
//!   later mention must agree), a move by the one agent named ("Ann put the pear into
//!   the blue_jar"), or, with a word of saying, "that", or a second agent, a claim:
//!   public ("Ann publicly claimed that ...", or no listener) or private to the second
//!   agent ("Ann privately told Bo that ...");
//! - agents and a room: leaving ("exited", "left", "walked out of"), staying ("made no
//!   movements and stayed in", checked: the agent must be there), or entering ("entered",
//!   "came into", any verb with "into"/"to"); entering the waiting room leaves the room
//!   the agent was in, without a witnessed exit;
//! - a liking ("Ann likes the red_box", "Bo dislikes the turnip"), an agent and nothing
//!   the story tracks ("Noah saw a monkey", "Jacob lost his watch"): nothing happens, and
//!   a note says so.
//!
//! An object is placed where the story first says it is, from the start of the story; a
//! container stands in the room where it is first placed or moved into (containers only
//! among the choices stand, empty, in the first room). A sentence that cannot be grounded
//! — an object moved before it is placed, a container that is no choice, an agent who
//! leaves a room it is not in, a denial — makes the record unreadable, and the error names
//! the sentence and the words. The record's `question_order`, `story_length`,
//! `deception` and `prompting_type` become labels for reports and are never read.

// The builder, the sentence reader and the word lists serve ToMi's reader too.
pub(in crate::import) mod build;
pub(in crate::import) mod question;
pub(in crate::import) mod record;
pub(in crate::import) mod sentence;
mod tell;
pub(in crate::import) mod words;

pub use record::{labels, read_jsonl, read_record, read_text, HitomLabels, HitomRecord};
pub use tell::{tell_record, Choose, HitomText};
