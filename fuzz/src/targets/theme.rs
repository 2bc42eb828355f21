//! `bip-theme/1` theme files: loaded, then applied to an episode and a question text and
//! undone.

use bip_episodes::Episode;
use bip_themes::{apply_record, check_extra, Theme};

use super::{signature, Scratch, Target};

/// The theme target.
pub(super) const TARGET: Target = Target {
    name: "theme",
    about: "bip-theme/1 theme files: loaded, applied to an episode and an MMToM-QA record, undone",
    setup: super::no_setup,
    run,
    seeds,
    reproducers,
    dictionary: &[
        b"\"format\"",
        b"\"bip-theme/1\"",
        b"\"singular\"",
        b"\"plural\"",
        b"\"article\"",
        b"\"forms\"",
        b"\"rooms\"",
        b"\"furniture\"",
        b"\"objects\"",
        b"\"world\"",
        b"\"apartment\"",
        b"\"fridge\"",
        b"\"kitchen\"",
        b"\"an\"",
        b"\"the\"",
        b"\"\"",
        b"null",
        b"{}",
    ],
    hot: 1 << 16,
};

fn run(input: &[u8], scratch: &Scratch) -> String {
    super::as_text(input, |text| read(text, scratch))
}

fn read(text: &str, scratch: &Scratch) -> String {
    let theme = match Theme::from_json(text) {
        Ok(theme) => theme,
        Err(e) => return signature(&e, scratch),
    };
    if let Err(e) = check_extra(std::slice::from_ref(&theme)) {
        return signature(&e, scratch);
    }
    let episode = Episode::from_json(EPISODE, "seed").map(|e| e.to_file());
    let applied = episode.as_ref().map(|file| theme.apply_episode(file));
    let record = include_str!("../../../tests/data/mmtom-sample.jsonl")
        .lines()
        .next()
        .unwrap_or_default();
    let themed = apply_record(record, &theme);
    let text = theme.apply_text("Mark walks to the kitchen and opens the fridge.");
    let back = text.as_ref().map(|t| theme.invert_text(t));
    format!(
        "episode {}, record {}, text {}",
        applied.map_or("-".into(), |a| a
            .map_or_else(|e| signature(&e, scratch), |_| "ok".into())),
        themed.map_or_else(|e| signature(&e, scratch), |_| "ok".into()),
        back.map_or_else(
            |e| signature(&e, scratch),
            |b| (b == "Mark walks to the kitchen and opens the fridge.").to_string()
        ),
    )
}

const EPISODE: &str = include_str!("../../../episodes/examples/1.2-false-belief-short.json");

/// The built-in themes' files, each under another id.
fn seeds() -> Vec<Vec<u8>> {
    [
        include_str!("../../../themes/data/andersen.json"),
        include_str!("../../../themes/data/egypt.json"),
        include_str!("../../../themes/data/space.json"),
        include_str!("../../../themes/data/wild-west.json"),
    ]
    .iter()
    .map(|t| t.replacen("\"id\": \"", "\"id\": \"my-", 1).into_bytes())
    .collect()
}

fn reproducers() -> Vec<(&'static str, Vec<u8>)> {
    let builtin = include_str!("../../../themes/data/egypt.json")
        .as_bytes()
        .to_vec();
    vec![
        ("builtin-id.json", builtin),
        (
            "truncated.json",
            b"{\"format\": \"bip-theme/1\", \"id\": \"x".to_vec(),
        ),
    ]
}
