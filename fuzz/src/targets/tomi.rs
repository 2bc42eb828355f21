//! ToMi questions (bAbI layout): every question read into a story with the story before
//! it, and answered by nested-belief inference.

use super::{answered, record_outcomes, Scratch, Target};
use bip_episodes::import::tomi::read_tomi;

/// The ToMi target.
pub(super) const TARGET: Target = Target {
    name: "tomi",
    about: "ToMi questions (bAbI layout): stories and questions read, then inferred",
    setup: super::no_setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b" entered the ",
        b" exited the ",
        b" moved the ",
        b" to the ",
        b"The ",
        b" is in the ",
        b" loves the ",
        b"She ",
        b" They ",
        b"Where will ",
        b" look for the ",
        b"Where does ",
        b" think that ",
        b" searches for the ",
        b" really?",
        b" at the beginning?",
        b"\t",
        b"\n1 ",
        b"\n100000000 ",
        b"green_crate",
    ],
    hot: 1 << 16,
};

fn run(input: &[u8], scratch: &Scratch) -> String {
    super::as_text(input, |text| read(text, scratch))
}

fn read(text: &str, scratch: &Scratch) -> String {
    match read_tomi(text, None) {
        Ok(records) => record_outcomes(records.into_iter(), scratch, |r| answered(&r.story)),
        Err(e) => super::signature(&e, scratch),
    }
}

/// The stories written for the tests, one per input.
fn seeds() -> Vec<Vec<u8>> {
    let own = include_str!("../../../tests/data/tomi-own.txt");
    let mut stories: Vec<Vec<u8>> = Vec::new();
    for line in own.lines() {
        if line.starts_with("1 ") || stories.is_empty() {
            stories.push(Vec::new());
        }
        if let Some(story) = stories.last_mut() {
            story.extend_from_slice(line.as_bytes());
            story.push(b'\n');
        }
    }
    stories.truncate(6);
    stories
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let story = "1 Ann entered the den.\n2 The pear is in the box.\n";
    let long: String = (3..600)
        .map(|n| format!("{n} Ann likes the pear.\n"))
        .collect();
    vec![
        (
            "number-1e8.txt",
            format!("{story}100000000 Where is the pear really?\tbox\t1\n").into_bytes(),
        ),
        (
            "story-600-sentences.txt",
            format!("{story}{long}600 Where is the pear really?\tbox\t1\n").into_bytes(),
        ),
        (
            "one-container.txt",
            format!("{story}3 Where is the pear really?\tbox\t1\n").into_bytes(),
        ),
        (
            "pronoun-first.txt",
            b"1 She entered the den.\n2 Where is the pear really?\tbox\t1\n".to_vec(),
        ),
    ]
}
