//! What the agent thinks about where objects of one class are, and how seeing changes it.

use bip_episodes::{ClassId, FurnitureId, Observation, Place, World};

/// The agent's belief about where an object of one class is.
///
/// Three parts: places it has *seen* holding such an object (`known`, certain); the
/// places it *considers* (the ones it thinks the object may be in, and would search); and
/// a probability distribution over the places it has not ruled out (`weights`: most of
/// the mass on the considered places, a small leak on the others, so that an agent that
/// has searched all it considered goes on searching elsewhere). Seeing a place's whole
/// contents either adds it to `known` or rules it out; the distribution is then
/// renormalised. Once every considered place is ruled out, the place the agent walks to
/// next is considered ([`Belief::walked_to`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Belief {
    known: Vec<FurnitureId>,
    considered: Vec<bool>,
    weights: Vec<f64>,
    /// [`Belief::reading`], kept as `known` and `weights` change.
    reading: u64,
}

impl Belief {
    /// A belief of these parts, its reading hashed.
    fn of(known: Vec<FurnitureId>, considered: Vec<bool>, weights: Vec<f64>) -> Self {
        let mut belief = Self {
            known,
            considered,
            weights,
            reading: 0,
        };
        belief.reading = belief.hash_reading();
        belief
    }

    /// No idea: every one of `places` considered and equally likely.
    pub fn uniform(places: usize) -> Self {
        Self::of(
            Vec::new(),
            vec![true; places],
            vec![1.0 / places.max(1) as f64; places],
        )
    }

    /// Thinks it is at `place`: probability `1 - leak` there, the rest spread evenly.
    ///
    /// # Panics
    /// If `place` is not one of the `places`.
    pub fn thinks_at(place: FurnitureId, places: usize, leak: f64) -> Self {
        Self::thinks_among(&[place], places, leak)
    }

    /// Thinks it is in one of `among` (equally likely, `1 - leak` in all), the leak spread
    /// evenly over the other places.
    ///
    /// # Panics
    /// If a place of `among` is not one of the `places`.
    pub fn thinks_among(among: &[FurnitureId], places: usize, leak: f64) -> Self {
        let mut considered = vec![false; places];
        for p in among {
            considered[p.index()] = true;
        }
        let inside = considered.iter().filter(|c| **c).count();
        if inside == 0 || inside == places {
            return Self::uniform(places);
        }
        let weights = considered
            .iter()
            .map(|&c| {
                if c {
                    (1.0 - leak) / inside as f64
                } else {
                    leak / (places - inside) as f64
                }
            })
            .collect();
        Self::of(Vec::new(), considered, weights)
    }

    /// Updates from what the agent sees: for each place in view, an object of `class` is
    /// either there (now known) or not (ruled out).
    ///
    /// # Panics
    /// If the observation is of another world than `world`, or of more places than the
    /// belief is over.
    pub fn observe(&mut self, world: &World, class: ClassId, observation: &Observation) {
        self.see(&in_view(world, class, observation));
    }

    /// [`observe`](Self::observe), with what is in view worked out for the class once
    /// ([`in_view`]) and shared by every belief about it.
    fn see(&mut self, in_view: &[(FurnitureId, bool)]) {
        let (mut changed, mut known_changed) = (false, false);
        for &(place, present) in in_view {
            let known_at = self.known.binary_search(&place);
            match (present, known_at) {
                (true, Err(slot)) => self.known.insert(slot, place),
                (false, Ok(slot)) => {
                    self.known.remove(slot);
                }
                _ => {}
            }
            known_changed |= present != known_at.is_ok();
            if self.weights[place.index()] != 0.0 {
                self.weights[place.index()] = 0.0;
                changed = true;
            }
        }
        if changed {
            let total: f64 = self.weights.iter().sum();
            if total > 0.0 {
                self.weights.iter_mut().for_each(|w| *w /= total);
            }
        }
        if changed || known_changed {
            self.reading = self.hash_reading();
        }
    }

    /// What the agent comes to think after an action: it sees `seen`
    /// ([`observe`](Self::observe)) and then, where `walked` names the place it went to,
    /// may grow its belief by it ([`walked_to`](Self::walked_to)). The engine's sessions
    /// and the generator's agents both go through here, so what an agent thinks and what
    /// the engine takes it to think cannot drift apart.
    pub fn arrive(
        &mut self,
        world: &World,
        class: ClassId,
        seen: &Observation,
        walked: Option<Place>,
    ) {
        self.arrive_seeing(&in_view(world, class, seen), walked);
    }

    /// [`arrive`](Self::arrive), with what is in view worked out for the class
    /// ([`in_view`]).
    pub(crate) fn arrive_seeing(&mut self, in_view: &[(FurnitureId, bool)], walked: Option<Place>) {
        self.see(in_view);
        if let Some(to) = walked {
            self.walked_to(to);
        }
    }

    /// Grows the belief by the place the agent walked to, once it has ruled out every
    /// place it considered without seeing an object of the class: an agent that has
    /// searched all it thought of and heads for a new place has come to think the object
    /// may be there. People revise rather than search nearest-first, and a walk after an
    /// exhausted search says where the revised belief points. Only what the agent thinks
    /// grows ([`thinks_inside`](Self::thinks_inside)); the probabilities, which the
    /// policies read, stay as they were.
    ///
    /// Call it once the agent has arrived and seen what it sees there: a surface found
    /// empty on arrival is ruled out, not added.
    pub fn walked_to(&mut self, to: Place) {
        let Place::Furniture(place) = to else {
            return;
        };
        let still_open = |(&considered, &weight): (&bool, &f64)| considered && weight > 0.0;
        let exhausted = !self.considered.iter().zip(&self.weights).any(still_open);
        if self.known.is_empty() && exhausted && self.weights[place.index()] > 0.0 {
            self.considered[place.index()] = true;
        }
    }

    /// A hash of what the planner reads of the belief (`known` and `weights`, the
    /// probabilities by their bits): beliefs that read alike hash alike. Kept as the
    /// belief changes, so that grouping a step's situations costs a word per belief, not
    /// a pass over its places.
    pub(crate) fn reading(&self) -> u64 {
        self.reading
    }

    fn hash_reading(&self) -> u64 {
        let known = self
            .known
            .iter()
            .fold(0, |h, f| mix_hash(h, f.index() as u64));
        self.weights
            .iter()
            .fold(mix_hash(known, u64::MAX), |h, w| mix_hash(h, w.to_bits()))
    }

    /// Places seen holding an object of the class, in id order.
    pub fn known(&self) -> &[FurnitureId] {
        &self.known
    }

    /// Probability of each place among those not yet seen (all zero once every place has
    /// been ruled out).
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// How strongly the agent thinks an object of the class is at `place`: 1 for a place
    /// it has seen one at; otherwise the unseen-place probability, or 0 once the agent knows
    /// other places.
    ///
    /// # Panics
    /// If `place` is not one of the places the belief is over.
    pub fn probability_at(&self, place: FurnitureId) -> f64 {
        if self.known.contains(&place) {
            1.0
        } else if self.known.is_empty() {
            self.weights[place.index()]
        } else {
            0.0
        }
    }

    /// How strongly the belief draws an agent at `here` that picks where to walk by
    /// belief toward `to`: [`probability_at`](Self::probability_at) for furniture other
    /// than `here`, 0 for a room or where the agent stands. The one weighing both the
    /// planner's search spread and the simulated agents that walk by belief use.
    pub fn walk_mass(&self, here: Place, to: Place) -> f64 {
        match to {
            Place::Furniture(f) if to != here => self.probability_at(f),
            _ => 0.0,
        }
    }

    /// Whether the agent thinks an object of the class is inside (or on) `place`: it has
    /// seen one there, or — knowing of none — `place` is among the places it considers
    /// and has not ruled out. An agent sure of one place thinks it is there and nowhere
    /// else; one searching without a clue thinks it may be in any place not yet searched;
    /// one that has searched every place it considered no longer thinks it is anywhere,
    /// until it goes on to a new place ([`walked_to`](Self::walked_to)).
    ///
    /// This is the reading of MMToM-QA's belief questions: an agent about to open a
    /// container after searching others thinks the object is inside it, and one that
    /// passed a container by to search elsewhere thinks it is not.
    ///
    /// # Panics
    /// If `place` is not one of the places the belief is over.
    pub fn thinks_inside(&self, place: FurnitureId) -> bool {
        if !self.known.is_empty() {
            return self.known.contains(&place);
        }
        self.considered[place.index()] && self.weights[place.index()] > 0.0
    }

    /// Whether every condition holds: `(place, true)` "thinks it is inside place",
    /// `(place, false)` "thinks it is not", in the sense of [`Belief::thinks_inside`].
    pub fn satisfies(&self, conditions: &[(FurnitureId, bool)]) -> bool {
        conditions
            .iter()
            .all(|&(place, inside)| self.thinks_inside(place) == inside)
    }

    /// The place the agent thinks holds an object of the class (the first known one, or
    /// the unseen place it gives more than even odds); `None` while it is undecided.
    pub fn believed_place(&self) -> Option<FurnitureId> {
        if let Some(&first) = self.known.first() {
            return Some(first);
        }
        self.weights
            .iter()
            .position(|&w| w > 0.5)
            .map(FurnitureId::new)
    }
}

/// Each place in view of `observation`, with whether an object of `class` is there.
pub(crate) fn in_view(
    world: &World,
    class: ClassId,
    observation: &Observation,
) -> Vec<(FurnitureId, bool)> {
    observation
        .visible
        .iter()
        .map(|&place| {
            let present = observation
                .seen
                .iter()
                .any(|&(o, at)| at == place && world.object(o).class == class);
            (place, present)
        })
        .collect()
}

/// One word mixed into a hash: multiply-and-rotate, as rustc's own hash tables do. Fast
/// and good enough where a collision costs only a comparison.
pub(crate) fn mix_hash(hash: u64, word: u64) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    (hash.rotate_left(5) ^ word).wrapping_mul(K)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bip_episodes::{Episode, State};

    fn episode() -> Episode {
        Episode::from_json(
            r#"{"format": "bip-episode/1",
                "world": {"rooms": ["kitchen", "hall"],
                  "furniture": [
                    {"id": "fridge", "room": "kitchen", "kind": "container"},
                    {"id": "cabinet", "room": "kitchen", "kind": "container"},
                    {"id": "table", "room": "kitchen", "kind": "surface"},
                    {"id": "shelf", "room": "hall", "kind": "surface"}],
                  "objects": [{"id": "plate_1", "at": "cabinet"}, {"id": "apple_1", "at": "fridge"}]},
                "agent": {"name": "A", "start": "hall"}}"#,
            "t",
        )
        .expect("valid")
    }

    fn seen_after(episode: &Episode, actions: &[&str]) -> Observation {
        let mut state = State::initial(episode.world(), episode.agent().start);
        for a in actions {
            let (verb, target) = a.split_once(' ').expect("verb target");
            let f = episode
                .world()
                .furniture_by_name(target)
                .expect("furniture");
            let action = match verb {
                "walk" => bip_episodes::Action::WalkTo(bip_episodes::Place::Furniture(f)),
                _ => bip_episodes::Action::Open(f),
            };
            state.apply(episode.world(), &action).expect("possible");
        }
        state.observe(episode.world())
    }

    #[test]
    fn opening_a_container_without_the_object_rules_it_out() {
        let e = episode();
        let plate = e.world().class_by_name("plate").expect("class");
        let fridge = e.world().furniture_by_name("fridge").expect("fridge");
        let cabinet = e.world().furniture_by_name("cabinet").expect("cabinet");
        let mut belief = Belief::thinks_at(fridge, 4, 0.1);
        assert!(belief.thinks_inside(fridge));
        belief.observe(
            e.world(),
            plate,
            &seen_after(&e, &["walk fridge", "open fridge"]),
        );
        assert!(!belief.thinks_inside(fridge));
        assert_eq!(belief.probability_at(fridge), 0.0);
        // The table was in view too and held no plate; what is left is the cabinet and shelf.
        assert!((belief.probability_at(cabinet) - 0.5).abs() < 1e-12);
        assert!((belief.weights().iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn seeing_the_object_resolves_the_belief() {
        let e = episode();
        let plate = e.world().class_by_name("plate").expect("class");
        let fridge = e.world().furniture_by_name("fridge").expect("fridge");
        let cabinet = e.world().furniture_by_name("cabinet").expect("cabinet");
        let mut belief = Belief::thinks_at(fridge, 4, 0.1);
        belief.observe(
            e.world(),
            plate,
            &seen_after(&e, &["walk cabinet", "open cabinet"]),
        );
        assert_eq!(belief.known(), &[cabinet]);
        assert!(belief.thinks_inside(cabinet));
        assert!(
            !belief.thinks_inside(fridge),
            "knowing where it is overrides the old guess"
        );
        assert_eq!(belief.believed_place(), Some(cabinet));
        assert_eq!(Belief::uniform(4).believed_place(), None);
    }

    #[test]
    fn the_reading_hash_follows_every_change_the_planner_reads() {
        let e = episode();
        let (plate, apple) = (
            e.world().class_by_name("plate").expect("class"),
            e.world().class_by_name("apple").expect("class"),
        );
        let fridge = e.world().furniture_by_name("fridge").expect("fridge");
        let fresh = |b: &Belief| {
            let rebuilt = Belief::of(b.known.clone(), b.considered.clone(), b.weights.clone());
            rebuilt.reading()
        };
        let mut belief = Belief::thinks_at(fridge, 4, 0.1);
        let before = belief.reading();
        for (class, actions) in [
            (plate, &["walk fridge", "open fridge"][..]),
            (plate, &["walk cabinet", "open cabinet"][..]),
            (apple, &["walk fridge", "open fridge"][..]),
        ] {
            belief.observe(e.world(), class, &seen_after(&e, actions));
            assert_eq!(belief.reading(), fresh(&belief), "after {actions:?}");
        }
        assert_ne!(
            belief.reading(),
            before,
            "seeing changed what the planner reads"
        );
    }

    #[test]
    fn a_closed_container_tells_nothing() {
        let e = episode();
        let apple = e.world().class_by_name("apple").expect("class");
        let fridge = e.world().furniture_by_name("fridge").expect("fridge");
        let mut belief = Belief::thinks_at(fridge, 4, 0.1);
        belief.observe(e.world(), apple, &seen_after(&e, &["walk fridge"]));
        assert!(belief.thinks_inside(fridge));
        assert!(belief.known().is_empty());
    }

    #[test]
    fn a_belief_grows_by_where_the_agent_goes_once_it_has_searched_all_it_considered() {
        let e = episode();
        let plate = e.world().class_by_name("plate").expect("class");
        let [fridge, cabinet, shelf] =
            ["fridge", "cabinet", "shelf"].map(|f| e.world().furniture_by_name(f).expect("f"));
        let mut belief = Belief::thinks_at(fridge, 4, 0.1);
        // Still considering the fridge: walking to the cabinet adds nothing.
        belief.walked_to(Place::Furniture(cabinet));
        assert!(!belief.thinks_inside(cabinet));
        belief.observe(
            e.world(),
            plate,
            &seen_after(&e, &["walk fridge", "open fridge"]),
        );
        assert!(!belief.thinks_inside(cabinet) && !belief.thinks_inside(shelf));
        let weights = belief.weights().to_vec();
        // The fridge searched, the agent walks to a room, then to the cabinet.
        belief.walked_to(Place::Room(e.agent().start));
        assert!(!belief.thinks_inside(cabinet));
        belief.walked_to(Place::Furniture(cabinet));
        assert!(belief.thinks_inside(cabinet), "it went on to the cabinet");
        assert!(!belief.thinks_inside(shelf), "and to nothing else");
        assert_eq!(belief.weights(), weights, "the probabilities are unchanged");
        // Now considering the cabinet, a walk to the shelf adds nothing.
        belief.walked_to(Place::Furniture(shelf));
        assert!(!belief.thinks_inside(shelf));
    }

    #[test]
    fn a_known_place_or_a_ruled_out_one_is_not_added() {
        let e = episode();
        let plate = e.world().class_by_name("plate").expect("class");
        let [fridge, cabinet, table] =
            ["fridge", "cabinet", "table"].map(|f| e.world().furniture_by_name(f).expect("f"));
        let mut searched = Belief::thinks_at(fridge, 4, 0.1);
        let seen = seen_after(&e, &["walk fridge", "open fridge"]);
        searched.observe(e.world(), plate, &seen);
        // The table was in view at the fridge and held no plate.
        searched.walked_to(Place::Furniture(table));
        assert!(!searched.thinks_inside(table));
        let mut knows = Belief::thinks_at(fridge, 4, 0.1);
        knows.observe(
            e.world(),
            plate,
            &seen_after(&e, &["walk cabinet", "open cabinet"]),
        );
        knows.walked_to(Place::Furniture(fridge));
        assert!(knows.thinks_inside(cabinet) && !knows.thinks_inside(fridge));
    }

    #[test]
    fn live_candidates_follow_the_belief() {
        let fridge = FurnitureId::new(0);
        let cabinet = FurnitureId::new(1);
        let sure = Belief::thinks_at(fridge, 4, 0.3);
        assert!(sure.thinks_inside(fridge) && !sure.thinks_inside(cabinet));
        assert!(
            (sure.probability_at(cabinet) - 0.1).abs() < 1e-12,
            "the leak is not a belief"
        );
        assert!(sure.satisfies(&[(fridge, true), (cabinet, false)]));
        assert!(!sure.satisfies(&[(fridge, true), (fridge, false)]));
        let searching = Belief::uniform(4);
        assert!(searching.thinks_inside(fridge) && searching.thinks_inside(cabinet));
        let either = Belief::thinks_among(&[fridge, cabinet], 4, 0.2);
        assert!((either.probability_at(fridge) - 0.4).abs() < 1e-12);
        assert!(either.thinks_inside(cabinet) && !either.thinks_inside(FurnitureId::new(2)));
    }
}
