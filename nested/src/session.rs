//! The online nested-belief session: push a story's events one at a time, ask at any
//! moment what anyone thinks anyone thinks.

use std::collections::BTreeMap;

use bip_episodes::{AgentId, Event, NestedClaim, ObjectId, Story, StoryState, World};

use bip_engine::EngineError;

use crate::belief::LocationBelief;
use crate::trust::Trust;

/// Whose belief: `[A, B]` is A's model of B's belief; `[]` is the world as it is.
pub type Chain = Vec<AgentId>;

/// An inference session over a story's agents and world.
///
/// For every chain of agents asked about (`[A]`: what A thinks; `[A, B]`: what A thinks B
/// thinks; ...) it holds a [`LocationBelief`] per object, updated event by event by the
/// rules below. A chain first asked about is brought up to date by replaying the events
/// so far once; from then on each event costs the same, whatever came before.
///
/// - **Witnessing** (rule 1, with rule 2's shared presence): while every agent of a chain
///   is in the room an object is in, the chain's belief about it is certain of where it
///   is — A sees B see it, and A knows that B knows A sees, and so on. This covers
///   entering a room, moves, and statements of where things are.
/// - **Testimony** (rules 3 and 4): a claim is heard by its listener (private) or by
///   everyone in the speaker's room (public). It moves, with the weights of [`Trust`],
///   a hearer's belief (`[L]`), the hearer's model of the speaker (`[L, S]`) and the
///   speaker's model of the hearer (`[S, L]`). A model of a hearer held by anyone else is
///   not moved: one agent infers another's mind from shared presence or from their own
///   exchanges (rule 2), and what a third party makes of a claim is not witnessed.
/// - Beliefs start as no idea (every container alike).
///
/// # Example
/// ```
/// use bip_nested::{NestedInference, Trust};
/// use bip_episodes::{Event, Story};
///
/// let story = Story::from_json(bip_episodes_story(), "demo")?;
/// let mut session = NestedInference::new(&story, Trust::default());
/// for event in story.events() {
///     session.push(event)?;
/// }
/// let ann = story.agent_by_name("Ann").unwrap();
/// let pear = story.world().object_by_name("pear").unwrap();
/// let red_box = story.world().furniture_by_name("red_box").unwrap();
/// // Ann left before Bo moved the pear: she still thinks it is in the red box.
/// assert_eq!(session.belief(&[ann], pear).most_likely(), Some(red_box));
/// # fn bip_episodes_story() -> &'static str { r#"{"format": "bip-episode/1",
/// #  "world": {"rooms": ["patio"], "furniture": [
/// #    {"id": "red_box", "room": "patio", "kind": "container"},
/// #    {"id": "blue_jar", "room": "patio", "kind": "container"}],
/// #    "objects": [{"id": "pear", "at": "red_box"}]},
/// #  "agents": [{"name": "Ann"}, {"name": "Bo"}],
/// #  "events": [{"enter": {"agent": "Ann", "room": "patio"}}, {"enter": {"agent": "Bo", "room": "patio"}},
/// #    {"exit": {"agent": "Ann", "room": "patio"}}, {"move": {"agent": "Bo", "object": "pear", "to": "blue_jar"}}]}"# }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct NestedInference<'a> {
    story: &'a Story,
    trust: Trust,
    state: StoryState,
    history: Vec<Event>,
    tracked: BTreeMap<Chain, Vec<LocationBelief>>,
}

impl<'a> NestedInference<'a> {
    /// A session at the start of `story` (none of its events pushed yet): its world and
    /// agents, everyone where the story starts them.
    pub fn new(story: &'a Story, trust: Trust) -> Self {
        Self {
            story,
            trust,
            state: story.initial_state(),
            history: Vec::new(),
            tracked: BTreeMap::new(),
        }
    }

    /// Events pushed so far.
    pub fn steps(&self) -> usize {
        self.history.len()
    }

    /// Who is where and where everything is now.
    pub fn state(&self) -> &StoryState {
        &self.state
    }

    /// The trust the session weighs testimony with.
    pub fn trust(&self) -> Trust {
        self.trust
    }

    /// Applies `event` and updates every belief tracked.
    ///
    /// # Errors
    /// [`EngineError::ImpossibleEvent`] when it cannot happen now (the session is
    /// unchanged).
    ///
    /// # Panics
    /// If the event names an agent, object, room or container the story does not have.
    pub fn push(&mut self, event: &Event) -> Result<(), EngineError> {
        let (world, agents) = (self.story.world(), self.story.agents());
        let before = self.state.clone();
        self.state
            .apply(world, event)
            .map_err(|why| EngineError::ImpossibleEvent {
                step: self.history.len(),
                event: event.describe(world, agents),
                reason: why.describe(world, agents),
                why,
            })?;
        for (chain, beliefs) in &mut self.tracked {
            step(
                world,
                self.trust,
                chain,
                beliefs,
                &before,
                event,
                &self.state,
            );
        }
        self.history.push(*event);
        Ok(())
    }

    /// What the chain `of` thinks of where `object` is now (`[]`: where it is). The
    /// chain is tracked from now on.
    ///
    /// # Panics
    /// If an agent of the chain or the object is not the story's.
    pub fn belief(&mut self, of: &[AgentId], object: ObjectId) -> &LocationBelief {
        if !self.tracked.contains_key(of) {
            let beliefs = self.replay(of);
            self.tracked.insert(of.to_vec(), beliefs);
        }
        &self.tracked[of][object.index()]
    }

    /// The probability that `claim` holds now.
    ///
    /// # Panics
    /// As [`NestedInference::belief`], or if the claim's place is not the story's.
    pub fn probability(&mut self, claim: &NestedClaim) -> f64 {
        let p = self
            .belief(&claim.of, claim.object)
            .probability(claim.place);
        if claim.inside {
            p
        } else {
            1.0 - p
        }
    }

    /// The chain's beliefs about every object after the events so far.
    fn replay(&self, chain: &[AgentId]) -> Vec<LocationBelief> {
        let world = self.story.world();
        let mut state = self.story.initial_state();
        let places = world.furniture.len();
        let mut beliefs = vec![LocationBelief::uniform(places); world.objects.len()];
        witness(world, chain, &mut beliefs, &state);
        for event in &self.history {
            let before = state.clone();
            if state.apply(world, event).is_err() {
                unreachable!("pushed events were checked");
            }
            step(
                world,
                self.trust,
                chain,
                &mut beliefs,
                &before,
                event,
                &state,
            );
        }
        beliefs
    }
}

/// One event's effect on a chain's beliefs: testimony weighed in the state before it,
/// then what the chain witnesses in the state after it.
fn step(
    world: &World,
    trust: Trust,
    chain: &[AgentId],
    beliefs: &mut [LocationBelief],
    before: &StoryState,
    event: &Event,
    after: &StoryState,
) {
    if let Event::Claim { object, place, .. } = *event {
        if let Some(weight) = claim_weight(trust, chain, before, event) {
            beliefs[object.index()].take_claim(place, weight);
        }
    }
    witness(world, chain, beliefs, after);
}

/// The weight a claim has for a chain's belief, if it moves it at all.
fn claim_weight(trust: Trust, chain: &[AgentId], state: &StoryState, event: &Event) -> Option<f64> {
    let Event::Claim { speaker, .. } = *event else {
        return None;
    };
    let hearers = state.hearers(event);
    let heard = |a: &AgentId| hearers.contains(a);
    match *chain {
        [listener] if heard(&listener) => {
            Some(trust.listener_weight(state.left_later(speaker, listener)))
        }
        [s, listener] if s == speaker && heard(&listener) => Some(trust.speaker_weight()),
        [listener, s] if s == speaker && heard(&listener) => {
            Some(trust.listener_weight(state.left_later(speaker, listener)))
        }
        _ => None,
    }
}

/// Every object in a room where every agent of the chain is: the chain is certain where
/// it is.
fn witness(world: &World, chain: &[AgentId], beliefs: &mut [LocationBelief], state: &StoryState) {
    for (o, belief) in beliefs.iter_mut().enumerate() {
        let object = ObjectId::new(o);
        if state.all_in(chain, state.object_room(world, object)) {
            *belief = LocationBelief::certain(world.furniture.len(), state.object_at[o]);
        }
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
