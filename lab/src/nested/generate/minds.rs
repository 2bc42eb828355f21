//! The simulated agents' minds: what each agent thinks, and thinks others think, given
//! the trust decisions each one took. These are the ground truth of generated questions.

use std::collections::BTreeMap;

use bip_episodes::{AgentId, Event, FurnitureId, ObjectId, Story, StoryState};

use crate::rng::Rng;
use bip_nested::Trust;

/// For every claim (by its position among the events) and every hearer: whether the
/// hearer took it, and whether the speaker takes the hearer to have taken it.
#[derive(Debug, Clone, Default)]
pub(super) struct Decisions {
    takes: BTreeMap<(usize, AgentId), bool>,
    expects: BTreeMap<(usize, AgentId), bool>,
}

impl Decisions {
    /// Draws every decision of `story`'s claims, in event order: a hearer takes a claim
    /// with probability τ when the speaker left a room later than it, 1 − τ otherwise; a
    /// speaker expects to be believed with probability τ.
    pub fn draw(story: &Story, trust: Trust, rng: &mut Rng) -> Self {
        let mut decisions = Self::default();
        let mut state = story.initial_state();
        for (k, event) in story.events().iter().enumerate() {
            if let Event::Claim { speaker, .. } = *event {
                for hearer in state.hearers(event) {
                    let later = state.left_later(speaker, hearer);
                    let takes = rng.chance(trust.listener_weight(later));
                    let expects = rng.chance(trust.speaker_weight());
                    decisions.takes.insert((k, hearer), takes);
                    decisions.expects.insert((k, hearer), expects);
                }
            }
            if state.apply(story.world(), event).is_err() {
                unreachable!("generated stories are valid");
            }
        }
        decisions
    }
}

/// Where the chain `of` (`[]`: the world) thinks `object` is after all of `story`'s
/// events, under `decisions`; `None` when it has no idea.
pub(super) fn true_belief(
    story: &Story,
    decisions: &Decisions,
    of: &[AgentId],
    object: ObjectId,
) -> Option<FurnitureId> {
    let world = story.world();
    let mut state = story.initial_state();
    let mut belief = witnessed(story, &state, of, object, None);
    for (k, event) in story.events().iter().enumerate() {
        if let Event::Claim {
            speaker,
            object: o,
            place,
            ..
        } = *event
        {
            let took = |hearer: AgentId, map: &BTreeMap<(usize, AgentId), bool>| {
                map.get(&(k, hearer)).copied().unwrap_or(false)
            };
            let moved = o == object
                && match *of {
                    [l] => took(l, &decisions.takes),
                    [s, l] if s == speaker => took(l, &decisions.expects),
                    [l, s] if s == speaker => took(l, &decisions.takes),
                    _ => false,
                };
            if moved {
                belief = Some(place);
            }
        }
        if state.apply(world, event).is_err() {
            unreachable!("generated stories are valid");
        }
        belief = witnessed(story, &state, of, object, belief);
    }
    belief
}

/// The belief after witnessing: where the object is, when every agent of the chain is in
/// its room; `belief` otherwise.
fn witnessed(
    story: &Story,
    state: &StoryState,
    of: &[AgentId],
    object: ObjectId,
    belief: Option<FurnitureId>,
) -> Option<FurnitureId> {
    if state.all_in(of, state.object_room(story.world(), object)) {
        Some(state.object_at[object.index()])
    } else {
        belief
    }
}
