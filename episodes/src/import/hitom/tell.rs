//! Telling a story in Hi-ToM's record format, in varied words: the generator's text, which
//! the reader must read back to the same story.
//!
//! Each sentence shape has several phrasings; `choose(n)` picks one of `n` (a seeded
//! random draw in the generator). Agents entering a room together are told in one
//! sentence, followed by where every object of the room is; an agent that leaves without
//! having moved anything may first be said to stay; distractors ("Ann likes the
//! red_box", "Bo saw a heron") fall between events.

use serde::{Deserialize, Serialize};

use crate::ids::AgentId;
use crate::story::{Event, Story, StoryState};

/// One record in Hi-ToM's layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HitomText {
    /// Who wrote it: `"bip"` for generated text.
    pub prompting_type: String,
    /// Whether anyone tells anyone anything.
    pub deception: bool,
    /// Chapters.
    pub story_length: u64,
    /// The question's order.
    pub question_order: u64,
    /// The story's number.
    pub sample_id: u64,
    /// Numbered sentences, one a line, after an optional instruction line.
    pub story: String,
    /// The question.
    pub question: String,
    /// `A. c1, B. c2, ...`.
    pub choices: String,
    /// The correct container.
    pub answer: String,
}

/// Picks one of `n` phrasings.
pub type Choose<'a> = dyn FnMut(usize) -> usize + 'a;

fn one<'a>(choose: &mut Choose<'_>, options: &[&'a str]) -> &'a str {
    options[choose(options.len()).min(options.len() - 1)]
}

fn fill(template: &str, pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .fold(template.to_string(), |t, (k, v)| t.replace(k, v))
}

/// "Ann", "Ann and Bo", "Ann, Bo and Cleo".
fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Question `question` of `story` told as a record numbered `sample`.
///
/// # Panics
/// If `question` is not one of the story's questions.
pub fn tell_record(
    story: &Story,
    question: usize,
    sample: usize,
    choose: &mut Choose<'_>,
) -> HitomText {
    let mut text = String::new();
    if choose(3) == 0 {
        text.push_str(one(
            choose,
            &[
                "Read the story and answer the question that follows it.",
                "Below is a short story; choose the container that answers the question.",
            ],
        ));
        text.push('\n');
    }
    for (i, sentence) in sentences(story, choose).iter().enumerate() {
        text.push_str(&format!("{} {sentence}\n", i + 1));
    }
    let q = &story.questions()[question];
    let world = story.world();
    let choices: Vec<String> = q
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            format!(
                "{}. {}",
                crate::option_letter(i).to_uppercase(),
                world.furniture(o.claim.place).name
            )
        })
        .collect();
    let answer = q
        .expected
        .and_then(|e| e.option())
        .map(|i| world.furniture(q.options[i].claim.place).name.clone())
        .unwrap_or_default();
    HitomText {
        prompting_type: "bip".into(),
        deception: story.has_claims(),
        story_length: story
            .tags()
            .get("length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(1),
        question_order: q.order() as u64,
        sample_id: sample as u64,
        story: text,
        question: tell_question(story, question, choose),
        choices: choices.join(", "),
        answer,
    }
}

/// The question in words.
fn tell_question(story: &Story, question: usize, choose: &mut Choose<'_>) -> String {
    let q = &story.questions()[question];
    let Some(first) = q.options.first() else {
        return String::new();
    };
    let object = &story.world().object(first.claim.object).name;
    let of: Vec<&str> = first
        .claim
        .of
        .iter()
        .map(|&a| story.agent_name(a))
        .collect();
    let Some((outer, inner)) = of.split_first() else {
        let template = one(
            choose,
            &[
                "Where is the {o} really?",
                "In which container is the {o} really?",
                "Where is the {o} in truth?",
            ],
        );
        return fill(template, &[("{o}", object)]);
    };
    let mut chain = String::new();
    for name in inner {
        let verb = one(choose, &["thinks", "believes", "supposes"]);
        chain.push_str(&format!(" {name} {verb}"));
    }
    let template = if inner.is_empty() {
        one(
            choose,
            &[
                "Where does {a} think the {o} is?",
                "Where does {a} really think the {o} is?",
                "Where does {a} believe the {o} is?",
                "In {a}'s view, where is the {o}?",
            ],
        )
    } else {
        one(
            choose,
            &[
                "Where does {a} think{chain} the {o} is?",
                "Where does {a} believe{chain} the {o} is?",
                "Where would {a} say{chain} the {o} is?",
            ],
        )
    };
    fill(
        template,
        &[("{a}", outer), ("{chain}", &chain), ("{o}", object)],
    )
}

/// The story's events in words, with statements and distractors.
fn sentences(story: &Story, choose: &mut Choose<'_>) -> Vec<String> {
    let world = story.world();
    let events = story.events();
    let mut state = story.initial_state();
    let mut moved = vec![false; story.agents().len()];
    let mut out = Vec::new();
    let mut i = 0;
    while i < events.len() {
        if let Event::Enter { room, .. } = events[i] {
            let mut names = Vec::new();
            while let Some(&Event::Enter { agent, room: r }) = events.get(i) {
                if r != room {
                    break;
                }
                names.push(story.agent_name(agent));
                moved[agent.index()] = false;
                apply(story, &mut state, &events[i]);
                i += 1;
            }
            out.push(enter(&names, &world.room(room).name, choose));
            out.extend(statements(story, &state, room, choose));
        } else {
            out.extend(event(story, &state, &events[i], &moved, choose));
            if let Event::Move { agent, .. } = events[i] {
                moved[agent.index()] = true;
            }
            apply(story, &mut state, &events[i]);
            i += 1;
        }
        if choose(5) == 0 {
            out.push(distractor(story, choose));
        }
    }
    out
}

fn apply(story: &Story, state: &mut StoryState, event: &Event) {
    if state.apply(story.world(), event).is_err() {
        unreachable!("story events are valid");
    }
}

fn enter(names: &[&str], room: &str, choose: &mut Choose<'_>) -> String {
    let template = one(
        choose,
        &[
            "{who} entered the {room}.",
            "{who} walked into the {room}.",
            "{who} came into the {room}.",
            "{who} went to the {room}.",
            "{who} stepped into the {room}.",
        ],
    );
    fill(template, &[("{who}", &list(names)), ("{room}", room)])
}

/// Where every object in `room` is.
fn statements(
    story: &Story,
    state: &StoryState,
    room: crate::ids::RoomId,
    choose: &mut Choose<'_>,
) -> Vec<String> {
    let world = story.world();
    (0..world.objects.len())
        .filter(|&o| world.furniture(state.object_at[o]).room == room)
        .map(|o| {
            let template = one(
                choose,
                &[
                    "The {o} is in the {c}.",
                    "The {o} sits in the {c}.",
                    "The {o} is inside the {c}.",
                    "In the {c} lies the {o}.",
                    "The {c} holds the {o}.",
                ],
            );
            let c = &world.furniture(state.object_at[o]).name;
            fill(template, &[("{o}", &world.objects[o].name), ("{c}", c)])
        })
        .collect()
}

/// One event other than entering, in words (an exit may come after a stay).
fn event(
    story: &Story,
    state: &StoryState,
    event: &Event,
    moved: &[bool],
    choose: &mut Choose<'_>,
) -> Vec<String> {
    let world = story.world();
    let name = |a: AgentId| story.agent_name(a).to_string();
    let c = |f: crate::ids::FurnitureId| world.furniture(f).name.clone();
    match *event {
        Event::Exit { agent, room } => {
            let stayed = !moved[agent.index()] && choose(2) == 0;
            exit(&name(agent), &world.room(room).name, stayed, choose)
        }
        Event::Move { agent, object, to } => {
            let template = one(
                choose,
                &[
                    "{a} moved the {o} to the {c}.",
                    "{a} put the {o} into the {c}.",
                    "{a} transferred the {o} from the {from} to the {c}.",
                    "{a} took the {o} out of the {from} and put it in the {c}.",
                    "{a} hid the {o} in the {c}.",
                ],
            );
            let from = c(state.object_at[object.index()]);
            let object = world.object(object).name.clone();
            let pairs = [
                ("{a}", name(agent)),
                ("{o}", object),
                ("{from}", from),
                ("{c}", c(to)),
            ];
            vec![fill_owned(template, &pairs)]
        }
        Event::Claim {
            speaker,
            object,
            place,
            listener,
        } => {
            let pairs = [
                ("{s}", name(speaker)),
                ("{l}", listener.map(name).unwrap_or_default()),
                ("{o}", world.object(object).name.clone()),
                ("{c}", c(place)),
            ];
            vec![fill_owned(claim(listener.is_some(), choose), &pairs)]
        }
        Event::Enter { agent, room } => {
            vec![enter(&[&name(agent)], &world.room(room).name, choose)]
        }
    }
}

fn fill_owned(template: &str, pairs: &[(&str, String)]) -> String {
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    fill(template, &pairs)
}

/// An agent leaving, perhaps after being said to stay.
fn exit(agent: &str, room: &str, stayed: bool, choose: &mut Choose<'_>) -> Vec<String> {
    let mut out = Vec::new();
    if stayed {
        let template = one(
            choose,
            &[
                "{a} made no movements and stayed in the {room} for 1 minute.",
                "{a} waited in the {room} for a while.",
                "{a} remained in the {room}.",
            ],
        );
        out.push(fill(template, &[("{a}", agent), ("{room}", room)]));
    }
    let template = one(
        choose,
        &[
            "{a} exited the {room}.",
            "{a} left the {room}.",
            "{a} walked out of the {room}.",
            "{a} left.",
        ],
    );
    out.push(fill(template, &[("{a}", agent), ("{room}", room)]));
    out
}

/// The wording of a claim, private or public.
fn claim(private: bool, choose: &mut Choose<'_>) -> &'static str {
    if private {
        one(
            choose,
            &[
                "{s} privately told {l} that the {o} is in the {c}.",
                "{s} whispered to {l} that the {o} is in the {c}.",
                "{s} told {l} in private that the {o} is in the {c}.",
                "{s} quietly informed {l} that the {o} was in the {c}.",
            ],
        )
    } else {
        one(
            choose,
            &[
                "{s} publicly claimed that the {o} is in the {c}.",
                "{s} publicly claimed that {o} is in the {c}.",
                "{s} announced that the {o} is in the {c}.",
                "{s} told everyone that the {o} was in the {c}.",
                "{s} said aloud that the {o} is in the {c}.",
            ],
        )
    }
}

/// A sentence that says nothing of where anyone or anything is.
fn distractor(story: &Story, choose: &mut Choose<'_>) -> String {
    let agents = story.agents();
    let a = &agents[choose(agents.len()).min(agents.len() - 1)].name;
    let furniture = &story.world().furniture;
    let c = &furniture[choose(furniture.len()).min(furniture.len() - 1)].name;
    let template = one(
        choose,
        &[
            "{a} likes the {c}.",
            "{a} dislikes the turnip.",
            "{a} saw a heron.",
            "{a} lost his umbrella.",
            "{a} hummed a tune.",
            "It started to rain.",
        ],
    );
    fill(template, &[("{a}", a), ("{c}", c)])
}
