//! The checks behind [`Story::new`](super::Story::new), over typed parts; the file
//! reader resolves names into the same parts and runs the same checks.

use std::collections::HashMap;

use crate::episode::check::{
    claim_id, expected_option, furniture, question_frame, room, within, world,
};
use crate::error::EpisodeError;
use crate::ids::AgentId;
use crate::world::World;

use super::{Event, NestedClaim, StoryAgent, StoryParts, StoryQuestion, StoryState};

/// Checks every part of a story; see [`Story::new`](super::Story::new).
pub(super) fn parts(p: &StoryParts) -> Result<(), EpisodeError> {
    world(&p.world)?;
    agents(&p.world, &p.agents)?;
    events(&p.world, &p.agents, &p.events)?;
    questions(&p.world, p.agents.len(), p.events.len(), &p.questions)
}

fn agents(w: &World, agents: &[StoryAgent]) -> Result<(), EpisodeError> {
    if agents.is_empty() {
        return Err(EpisodeError::invalid(
            "agents",
            "[]",
            "is empty; a story needs at least one agent",
        ));
    }
    let mut names = HashMap::new();
    for (i, a) in agents.iter().enumerate() {
        claim_id(&mut names, &a.name, format!("agents[{i}].name"))?;
        if let Some(start) = a.start {
            room(w, start, || format!("agents[{i}].start"))?;
        }
    }
    Ok(())
}

fn agent(agents: usize, a: AgentId, field: impl FnOnce() -> String) -> Result<(), EpisodeError> {
    within(a.index(), agents, "agent", field)
}

/// Replays `events`, checking that each names what the story has and can happen in turn.
pub(crate) fn events(
    w: &World,
    agents: &[StoryAgent],
    events: &[Event],
) -> Result<(), EpisodeError> {
    let mut state = StoryState::initial(w, agents);
    for (i, event) in events.iter().enumerate() {
        let field = |part: &'static str| move || format!("events[{i}].{part}");
        let n = agents.len();
        match *event {
            Event::Enter { agent: a, room: r } => {
                agent(n, a, field("enter.agent"))?;
                room(w, r, field("enter.room"))?;
            }
            Event::Exit { agent: a, room: r } => {
                agent(n, a, field("exit.agent"))?;
                room(w, r, field("exit.room"))?;
            }
            Event::Move {
                agent: a,
                object,
                to,
            } => {
                agent(n, a, field("move.agent"))?;
                within(
                    object.index(),
                    w.objects.len(),
                    "object",
                    field("move.object"),
                )?;
                furniture(w, to, field("move.to"))?;
            }
            Event::Claim {
                speaker,
                object,
                place,
                listener,
            } => {
                agent(n, speaker, field("claim.speaker"))?;
                within(
                    object.index(),
                    w.objects.len(),
                    "object",
                    field("claim.object"),
                )?;
                furniture(w, place, field("claim.container"))?;
                if let Some(l) = listener {
                    agent(n, l, field("claim.listener"))?;
                }
            }
        }
        apply(&mut state, w, agents, event, i)?;
    }
    Ok(())
}

/// Applies event `index` to `state`, or names it and why it cannot happen.
pub(crate) fn apply(
    state: &mut StoryState,
    w: &World,
    agents: &[StoryAgent],
    event: &Event,
    index: usize,
) -> Result<(), EpisodeError> {
    state
        .apply(w, event)
        .map_err(|why| EpisodeError::ImpossibleEvent {
            index,
            event: event.describe(w, agents),
            reason: why.describe(w, agents),
            why,
        })
}

fn questions(
    w: &World,
    agents: usize,
    event_count: usize,
    questions: &[StoryQuestion],
) -> Result<(), EpisodeError> {
    let mut ids = HashMap::new();
    for (i, q) in questions.iter().enumerate() {
        let field = format!("questions[{i}]");
        question_frame(&mut ids, &field, &q.id, q.at, event_count, q.options.len())?;
        for (j, option) in q.options.iter().enumerate() {
            claim(w, agents, &option.claim, &format!("{field}.options[{j}]"))?;
        }
        expected_option(&field, q.expected, q.options.len())?;
    }
    Ok(())
}

fn claim(w: &World, agents: usize, c: &NestedClaim, field: &str) -> Result<(), EpisodeError> {
    let kind = if c.of.is_empty() {
        "location"
    } else {
        "belief"
    };
    for (k, &a) in c.of.iter().enumerate() {
        agent(agents, a, || format!("{field}.{kind}.of[{k}]"))?;
    }
    within(c.object.index(), w.objects.len(), "object", || {
        format!("{field}.{kind}.object")
    })?;
    furniture(w, c.place, || format!("{field}.{kind}.container"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FurnitureId, ObjectId, RoomId};
    use crate::story::{Story, StoryOption};
    use crate::test_support::story_parts;

    #[test]
    fn parts_with_foreign_ids_or_impossible_events_are_refused() {
        let mut parts = story_parts();
        parts.events.push(Event::Exit {
            agent: AgentId::new(9),
            room: RoomId::new(0),
        });
        let e = Story::new(parts).unwrap_err();
        assert!(
            matches!(e, EpisodeError::ForeignId { ref field, .. } if field == "events[4].exit.agent"),
            "{e}"
        );
        let mut parts = story_parts();
        // Bo is in the patio; the pear is too; the move is possible. Leaving twice is not.
        parts.events.push(Event::Exit {
            agent: AgentId::new(1),
            room: RoomId::new(0),
        });
        parts.events.push(Event::Exit {
            agent: AgentId::new(1),
            room: RoomId::new(0),
        });
        let e = Story::new(parts).unwrap_err();
        assert_eq!(
            e.to_string(),
            "events[5] (Bo leaves patio): impossible: Bo is not in patio"
        );
    }

    #[test]
    fn questions_are_checked() {
        let mut parts = story_parts();
        parts.questions[0].options[1] = StoryOption {
            text: None,
            claim: NestedClaim {
                of: vec![AgentId::new(0), AgentId::new(5)],
                object: ObjectId::new(0),
                place: FurnitureId::new(0),
                inside: true,
            },
        };
        let e = Story::new(parts).unwrap_err();
        assert!(
            matches!(e, EpisodeError::ForeignId { ref field, .. } if field == "questions[0].options[1].belief.of[1]"),
            "{e}"
        );
        let mut parts = story_parts();
        parts.questions[0].at = 99;
        assert!(Story::new(parts).is_err());
        let mut parts = story_parts();
        parts.agents[1].name = "Ann".into();
        assert!(matches!(
            Story::new(parts),
            Err(EpisodeError::DuplicateId { .. })
        ));
    }
}
