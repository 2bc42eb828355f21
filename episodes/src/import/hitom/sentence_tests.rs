//! Sentences of Hi-ToM's kind in words written for these tests (none copied from the
//! benchmark), each with the reading it must get.

use super::*;

/// What the story knows: three containers, two placed objects, two rooms.
struct Story;

impl Known for Story {
    fn is_container(&self, word: &str) -> bool {
        ["red_box", "blue_jar", "green_pantry"].contains(&word)
    }
    fn is_object(&self, word: &str) -> bool {
        ["pear", "green_pepper"].contains(&word)
    }
    fn is_room(&self, word: &str) -> bool {
        ["patio", "waiting_room"].contains(&word)
    }
}

fn read(sentence: &str) -> Said {
    read_sentence(sentence, &Story).unwrap_or_else(|u| panic!("{sentence}: {u:?}"))
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn entering_in_many_words() {
    for s in [
        "Logan, Charlotte and Hannah walked into the patio.",
        "Logan, Charlotte and Hannah headed to the patio.",
        "Logan, Charlotte, and Hannah made their way into the patio.",
        "Then Logan, Charlotte and Hannah came back to the patio.",
    ] {
        let expected = Said::Enter {
            agents: names(&["Logan", "Charlotte", "Hannah"]),
            room: "patio".into(),
        };
        assert_eq!(read(s), expected, "{s}");
    }
    let new_room = read("Later, Ava arrived in the garden.");
    assert_eq!(
        new_room,
        Said::Enter {
            agents: names(&["Ava"]),
            room: "garden".into()
        }
    );
}

#[test]
fn leaving_and_staying() {
    for s in [
        "Logan left the patio.",
        "Logan walked out of the patio.",
        "Afterwards, Logan departed from the patio.",
    ] {
        let expected = Said::Leave {
            agents: names(&["Logan"]),
            room: Some("patio".into()),
        };
        assert_eq!(read(s), expected, "{s}");
    }
    assert_eq!(
        read("Logan left."),
        Said::Leave {
            agents: names(&["Logan"]),
            room: None
        }
    );
    for s in [
        "Mia made no movements and stayed in the patio for 1 minute.",
        "Mia remained in the patio.",
        "Mia waited quietly in the patio for a while.",
    ] {
        let expected = Said::Stay {
            agents: names(&["Mia"]),
            room: Some("patio".into()),
        };
        assert_eq!(read(s), expected, "{s}");
    }
}

#[test]
fn where_things_are_and_moves() {
    for s in [
        "The pear is in the red_box.",
        "The pear sits inside the red_box.",
        "Inside the red_box is the pear.",
    ] {
        let expected = Said::Place {
            object: "pear".into(),
            container: "red_box".into(),
        };
        assert_eq!(read(s), expected, "{s}");
    }
    for s in [
        "Charlotte moved the pear to the blue_jar.",
        "Charlotte shifted the pear over to the blue_jar.",
        "Charlotte relocated the pear into the blue_jar.",
        "Charlotte tucked the pear away in the blue_jar.",
    ] {
        let expected = Said::Move {
            agent: "Charlotte".into(),
            object: "pear".into(),
            container: "blue_jar".into(),
            from: None,
        };
        assert_eq!(read(s), expected, "{s}");
    }
    let from =
        read("Charlotte took the green_pepper from the red_box and dropped it into the blue_jar.");
    assert_eq!(
        from,
        Said::Move {
            agent: "Charlotte".into(),
            object: "green_pepper".into(),
            container: "blue_jar".into(),
            from: Some("red_box".into()),
        }
    );
}

#[test]
fn public_and_private_claims() {
    for s in [
        "Emily publicly claimed that pear is in the blue_jar.",
        "Emily announced to the group that the pear is in the blue_jar.",
        "Emily told everyone that the pear was in the blue_jar.",
        "Emily said that the pear is in the blue_jar.",
    ] {
        let expected = Said::Claim {
            speaker: "Emily".into(),
            object: "pear".into(),
            container: "blue_jar".into(),
            listener: None,
        };
        assert_eq!(read(s), expected, "{s}");
    }
    for s in [
        "Isabella privately told Logan that the pear is in the red_box.",
        "Isabella whispered to Logan that the pear is in the red_box.",
        "In private, Isabella let Logan know the pear is in the red_box.",
        "Isabella confided in Logan: the pear is in the red_box.",
    ] {
        let expected = Said::Claim {
            speaker: "Isabella".into(),
            object: "pear".into(),
            container: "red_box".into(),
            listener: Some("Logan".into()),
        };
        assert_eq!(read(s), expected, "{s}");
    }
}

#[test]
fn distractors_say_nothing() {
    for s in [
        "Owen likes the red_box.",
        "Jackson dislikes the turnip.",
        "Jackson hates the pear.",
        "Noah saw a monkey.",
        "Jacob lost his watch.",
        "Liam spotted the heron.",
        "Liam sneezed.",
        "It began to snow.",
    ] {
        assert!(matches!(read(s), Said::Nothing { .. }), "{s}");
    }
}

#[test]
fn what_cannot_be_grounded_is_named() {
    let cases = [
        ("Logan moved the pear.", "pear"),
        ("The pear is in the fridge.", "the fridge"),
        ("Logan did not move the pear to the blue_jar.", "not"),
        (
            "Logan, Ann and Bo agreed that the pear is in the red_box.",
            "Logan, Ann, Bo",
        ),
        ("He moved the pear to the red_box.", "He"),
        ("Someone said that the pear is in the red_box.", "Someone"),
        (
            "Isabella whispered that the pear is in the red_box.",
            "Isabella whispered that the pear is in the red_box.",
        ),
        (
            "The pear and the green_pepper are in the red_box.",
            "pear, green_pepper",
        ),
        (
            "Ann moved the pear from the red_box to the blue_jar or the green_pantry.",
            "red_box, blue_jar, green_pantry",
        ),
    ];
    for (s, phrase) in cases {
        let u = read_sentence(s, &Story).expect_err(s);
        assert_eq!(u.phrase, phrase, "{s}: {}", u.reason);
    }
}
