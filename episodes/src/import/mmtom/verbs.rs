//! The verbs and markers of MMToM-QA narratives and questions, in every inflection:
//! how an agent moves ("strides towards", "makes her way to", "approaches"), what it does
//! to containers ("opens", "secures it shut"), what it is about to do ("is on the verge
//! of opening"), how a narrative says "the same again" ("repeats this action with"), and
//! how a question states a goal ("has been trying to get") or a belief ("thinks that").

use std::collections::HashMap;
use std::sync::LazyLock;

use super::text::Token;

/// What a verb does in a narrative or a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    /// Moves towards a place named after a preposition ("walks towards the fridge").
    Motion,
    /// Moves to a place named as its object ("approaches the fridge").
    Approach,
    /// Leaves a place ("leaves the kitchen"): no destination.
    Depart,
    /// Opens a container.
    Open,
    /// Closes a container ("shuts", "seals", "secures it shut").
    Close,
    /// Takes an object.
    Grab,
    /// Says the previous action is done again ("repeats", "does the same").
    Repeat,
    /// "followed by X": X next, in the same way unless the clause says otherwise.
    Follow,
    /// States a belief ("thinks", "believes").
    Belief,
    /// States a goal ("trying to get", "looking for").
    Goal,
}

/// Verbs that need their own inflections listed (irregular or doubled consonants).
const IRREGULAR: &[(&str, Verb)] = &[
    ("went", Verb::Motion),
    ("gone", Verb::Motion),
    ("goes", Verb::Motion),
    ("strode", Verb::Motion),
    ("came", Verb::Motion),
    ("ran", Verb::Motion),
    ("running", Verb::Motion),
    ("stepping", Verb::Motion),
    ("stepped", Verb::Motion),
    ("jogging", Verb::Motion),
    ("jogged", Verb::Motion),
    ("trotting", Verb::Motion),
    ("trotted", Verb::Motion),
    ("travelling", Verb::Motion),
    ("travelled", Verb::Motion),
    ("getting", Verb::Motion),
    ("got", Verb::Motion),
    ("left", Verb::Depart),
    ("shutting", Verb::Close),
    ("thought", Verb::Belief),
    ("sought", Verb::Goal),
    ("took", Verb::Grab),
    ("taken", Verb::Grab),
    ("taking", Verb::Grab),
    ("sure", Verb::Belief),
    ("certain", Verb::Belief),
    ("convinced", Verb::Belief),
    ("confident", Verb::Belief),
    ("goal", Verb::Goal),
    ("objective", Verb::Goal),
    ("target", Verb::Goal),
];

/// Regular verbs by stem.
const REGULAR: &[(&[&str], Verb)] = &[
    (
        &[
            "proceed", "walk", "stride", "head", "move", "advance", "navigate", "return", "go",
            "amble", "stroll", "wander", "travel", "step", "come", "hurry", "rush", "march",
            "saunter", "pace", "trek", "journey", "trudge", "dash", "run", "jog", "venture",
            "continue", "sprint", "tiptoe", "shuffle", "meander", "scurry", "hike", "trot", "roam",
            "plod", "mosey", "hasten", "lumber", "shift", "turn", "get",
        ],
        Verb::Motion,
    ),
    (
        &["approach", "reach", "enter", "near", "visit"],
        Verb::Approach,
    ),
    (&["leave", "exit", "depart"], Verb::Depart),
    (&["open", "unlock"], Verb::Open),
    (&["close", "shut", "seal"], Verb::Close),
    (
        &[
            "grab", "retrieve", "fetch", "collect", "grasp", "take", "remove",
        ],
        Verb::Grab,
    ),
    (&["repeat"], Verb::Repeat),
    (
        &["think", "believe", "assume", "expect", "suspect", "know"],
        Verb::Belief,
    ),
    (
        &[
            "try", "look", "search", "seek", "want", "hope", "intend", "aim",
        ],
        Verb::Goal,
    ),
];

/// Words that say "the same again" without being verbs.
const REPEAT_NOUNS: &[&str] = &[
    "same",
    "pattern",
    "process",
    "routine",
    "procedure",
    "sequence",
];

static VERBS: LazyLock<HashMap<String, Verb>> = LazyLock::new(|| {
    let mut map = HashMap::new();
    for (stems, verb) in REGULAR {
        for stem in *stems {
            for form in inflections(stem) {
                map.entry(form).or_insert(*verb);
            }
        }
    }
    for (form, verb) in IRREGULAR {
        map.insert((*form).to_string(), *verb);
    }
    for noun in REPEAT_NOUNS {
        map.insert((*noun).to_string(), Verb::Repeat);
    }
    map
});

/// Base, third person, -ing and -ed forms of a regular verb.
fn inflections(stem: &str) -> [String; 4] {
    let third =
        if stem.ends_with(['s', 'x', 'z', 'o']) || stem.ends_with("ch") || stem.ends_with("sh") {
            format!("{stem}es")
        } else if let Some(s) = stem
            .strip_suffix('y')
            .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
        {
            format!("{s}ies")
        } else {
            format!("{stem}s")
        };
    let ing = match stem.strip_suffix('e') {
        Some(s) if !s.ends_with('e') => format!("{s}ing"),
        _ => format!("{stem}ing"),
    };
    let past = if stem.ends_with('e') {
        format!("{stem}d")
    } else if let Some(s) = stem
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{s}ied")
    } else {
        format!("{stem}ed")
    };
    [stem.to_string(), third, ing, past]
}

/// The verb class of `word`, if it is one the readers know.
pub(crate) fn verb(word: &str) -> Option<Verb> {
    VERBS.get(word).copied()
}

/// The verb starting at `tokens[i]` and how many tokens it spans, reading the multi-word
/// forms first: "makes his way" (motion), "picks up" (grab), "interacts with",
/// "arrives at" (approach).
pub(crate) fn verb_at(tokens: &[Token], i: usize) -> Option<(Verb, usize)> {
    let word = |k: usize| tokens.get(i + k).and_then(Token::word);
    let w0 = word(0)?;
    let stem_is =
        |stem: &str| inflections(stem).iter().any(|f| f == w0) || (stem == "make" && w0 == "made");
    let possessive = |w: Option<&str>| matches!(w, Some("his" | "her" | "their" | "its"));
    if stem_is("make") && possessive(word(1)) && word(2) == Some("way") {
        return Some((Verb::Motion, 3));
    }
    if stem_is("pick") && word(1) == Some("up") {
        return Some((Verb::Grab, 2));
    }
    if (stem_is("interact") || stem_is("engage")) && word(1) == Some("with") {
        return Some((Verb::Approach, 2));
    }
    if (stem_is("arrive") || stem_is("stop")) && word(1) == Some("at") {
        return Some((Verb::Approach, 2));
    }
    if stem_is("follow") && word(1) == Some("by") {
        return Some((Verb::Follow, 2));
    }
    if matches!(w0, "action" | "actions") && word(1) == Some("with") {
        return Some((Verb::Repeat, 1));
    }
    // "does it again", "does so again", "does likewise".
    if stem_is("do") || w0 == "did" {
        match (word(1), word(2)) {
            (Some("it" | "so" | "this" | "that"), Some("again")) => return Some((Verb::Repeat, 3)),
            (Some("likewise" | "again"), _) => return Some((Verb::Repeat, 2)),
            _ => {}
        }
    }
    verb(w0).map(|v| (v, 1))
}

/// "is about to", "on the verge of", "preparing to", ...: the next action is only intended.
/// Returns how many tokens the marker spans.
pub(crate) fn intent_at(tokens: &[Token], i: usize) -> Option<usize> {
    const MARKERS: &[&[&str]] = &[
        &["about", "to"],
        &["on", "the", "verge", "of"],
        &["on", "the", "point", "of"],
        &["on", "the", "brink", "of"],
        &["preparing", "to"],
        &["prepares", "to"],
        &["prepared", "to"],
        &["prepare", "to"],
        &["poised", "to"],
        &["ready", "to"],
        &["set", "to"],
        &["going", "to"],
        &["intending", "to"],
        &["intends", "to"],
        &["planning", "to"],
        &["plans", "to"],
        &["getting", "ready", "to"],
        &["gets", "ready", "to"],
        &["gearing", "up", "to"],
        &["reaching", "out", "to"],
    ];
    MARKERS
        .iter()
        .find(|m| {
            m.iter()
                .enumerate()
                .all(|(k, w)| tokens.get(i + k).is_some_and(|t| t.is(w)))
        })
        .map(|m| m.len())
}

/// Prepositions that name where a motion ends: "towards", "to", "into", "for"
/// ("heading for the fridge"), "in the direction of". Returns the span.
pub(crate) fn destination_at(tokens: &[Token], i: usize) -> Option<usize> {
    let word = |k: usize| tokens.get(i + k).and_then(Token::word);
    match word(0)? {
        "to" | "towards" | "toward" | "into" | "onto" | "for" | "unto" => Some(1),
        "in" if word(1) == Some("the") && word(2) == Some("direction") && word(3) == Some("of") => {
            Some(4)
        }
        "up" | "over" | "across" | "back" | "down" | "off" | "on"
            if matches!(word(1), Some("to" | "towards" | "toward" | "into")) =>
        {
            Some(2)
        }
        _ => None,
    }
}

/// Prepositions of place that do not move the agent ("in the kitchen", "around the
/// kitchen", "from the bathroom"): the place after them is not a destination.
pub(crate) fn is_location_preposition(word: &str) -> bool {
    matches!(
        word,
        "in" | "inside"
            | "within"
            | "around"
            | "at"
            | "through"
            | "throughout"
            | "from"
            | "across"
            | "near"
            | "beside"
            | "by"
            | "about"
    )
}

/// Whether `word` negates ("not", "no", "never", "nowhere").
pub(crate) fn is_negation(word: &str) -> bool {
    matches!(word, "not" | "no" | "never" | "nowhere" | "neither")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::mmtom::text::tokenize;

    #[test]
    fn inflections_of_regular_verbs() {
        for (form, expected) in [
            ("strides", Verb::Motion),
            ("striding", Verb::Motion),
            ("strode", Verb::Motion),
            ("ambles", Verb::Motion),
            ("strolls", Verb::Motion),
            ("hurries", Verb::Motion),
            ("approaching", Verb::Approach),
            ("approaches", Verb::Approach),
            ("opening", Verb::Open),
            ("shuts", Verb::Close),
            ("shutting", Verb::Close),
            ("seals", Verb::Close),
            ("closed", Verb::Close),
            ("repeating", Verb::Repeat),
            ("same", Verb::Repeat),
            ("thinks", Verb::Belief),
            ("believes", Verb::Belief),
            ("trying", Verb::Goal),
            ("leaves", Verb::Depart),
        ] {
            assert_eq!(verb(form), Some(expected), "{form}");
        }
        assert_eq!(verb("cooking"), None);
    }

    #[test]
    fn multi_word_verbs() {
        let at = |text: &str| verb_at(&tokenize(text), 0);
        assert_eq!(at("makes her way to"), Some((Verb::Motion, 3)));
        assert_eq!(at("making their way"), Some((Verb::Motion, 3)));
        assert_eq!(at("picks up the apple"), Some((Verb::Grab, 2)));
        assert_eq!(at("interacts with it"), Some((Verb::Approach, 2)));
        assert_eq!(at("followed by the stove"), Some((Verb::Follow, 2)));
        assert_eq!(at("actions with the stove"), Some((Verb::Repeat, 1)));
        assert_eq!(at("actions by approaching"), None);
    }

    #[test]
    fn intent_and_destination_markers() {
        let t = tokenize("is on the verge of opening it");
        assert_eq!(intent_at(&t, 1), Some(4));
        assert_eq!(intent_at(&tokenize("prepares to open"), 0), Some(2));
        assert_eq!(intent_at(&tokenize("proceeds to open"), 0), None);
        let t = tokenize("walks in the direction of the stove");
        assert_eq!(destination_at(&t, 1), Some(4));
        assert_eq!(destination_at(&tokenize("in the kitchen"), 0), None);
    }
}
