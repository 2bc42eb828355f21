//! Prompts that render a situation (world, state, goal, belief) and an action as text.
//!
//! A prompt is built from the most shared part to the least, so that a prefix cache
//! computes each part once: the instructions and the world's layout (the same for the
//! whole episode), then, when asked for, what the agent has seen so far, then where the
//! agent is now (both the same for every hypothesis at a step), then the goal, then the
//! belief; the action follows as the scored continuation. The record of sightings comes
//! before "now" because it grows at its end from step to step, so consecutive steps
//! share it as a prefix.

use bip_episodes::{Action, ClassId, FurnitureId, FurnitureKind, Place, State, World};

use crate::belief::Belief;
use crate::named::{named_impls, Named};
use crate::policy::Situation;
use crate::sightings::Sightings;

/// Which wording to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PromptStyle {
    /// bip's own: a short instruction, then "Rooms:", "Now:", "Goal:", "Belief:" and
    /// "Next action:" lines in plain English.
    #[default]
    Bip,
    /// After BIP-ALM (Jin et al., 2024): lower-case `state:`, `goal:`, `belief:`,
    /// `action:` fields with no instruction, the layout read as part of the state.
    BipAlm,
}

impl Named for PromptStyle {
    const WHAT: &'static str = "prompt style";
    const VALUES: &'static [(Self, &'static str, &'static str)] = &[
        (Self::Bip, "bip", "bip's plain-English lines"),
        (
            Self::BipAlm,
            "bip-alm",
            "BIP-ALM's `state:` / `goal:` / `belief:` / `action:` fields",
        ),
    ];
}

named_impls!(PromptStyle);

/// A prompt template: renders situations and actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PromptTemplate {
    /// The wording.
    pub style: PromptStyle,
    /// Whether prompts also say what the agent has seen so far: every container it has
    /// looked into with what was inside (or "nothing"), and every surface it saw holding
    /// something. Off by default: the beliefs already carry what was seen of the goal
    /// class; this adds what was seen of every other class.
    pub observations: bool,
}

impl PromptTemplate {
    /// The prompt before the action, for one situation.
    pub fn prompt(&self, situation: &Situation<'_>) -> String {
        let world = situation.world;
        let mut text = self.episode_part(world);
        if self.observations {
            text.push_str(&self.seen_part(world, situation.seen));
        }
        text.push_str(&self.step_part(world, situation.state));
        text.push_str(&self.goal_part(world, situation.goal));
        text.push_str(&self.belief_part(world, situation.goal, situation.belief));
        text.push_str(match self.style {
            PromptStyle::Bip => "Next action:",
            PromptStyle::BipAlm => "action:",
        });
        text
    }

    /// The action as the continuation scored after [`prompt`](Self::prompt).
    pub fn action(&self, world: &World, action: &Action) -> String {
        let body = match *action {
            Action::WalkTo(place) => format!("walk to the {}", place_words(world, place)),
            Action::Open(f) => format!("open the {}", words(&world.furniture(f).name)),
            Action::Close(f) => format!("close the {}", words(&world.furniture(f).name)),
            Action::Grab(o) => format!("grab the {}", class_words(world, world.object(o).class)),
            Action::Put { object, onto } => format!(
                "put the {} {} the {}",
                class_words(world, world.object(object).class),
                preposition(world, onto),
                words(&world.furniture(onto).name)
            ),
        };
        format!(" {body}")
    }

    /// Instructions and layout: shared by every prompt of an episode.
    fn episode_part(&self, world: &World) -> String {
        let mut rooms = String::new();
        for (index, room) in world.rooms.iter().enumerate() {
            let furniture: Vec<String> = world
                .furniture
                .iter()
                .filter(|f| f.room.index() == index)
                .map(|f| words(&f.name))
                .collect();
            rooms.push_str(&format!(
                "- {}: {}\n",
                words(&room.name),
                if furniture.is_empty() {
                    "nothing".to_string()
                } else {
                    furniture.join(", ")
                }
            ));
        }
        match self.style {
            PromptStyle::Bip => format!(
                "A person moves through a house to get an object. \
                 Predict the person's next action.\nRooms:\n{rooms}"
            ),
            PromptStyle::BipAlm => format!("state: rooms and furniture:\n{rooms}"),
        }
    }

    /// What the agent has seen, in the order it first saw each place: empty surfaces are
    /// left out (a surface is in view whenever its room is), empty containers are not
    /// (looking into one and finding nothing is news). Nothing at all when nothing is
    /// worth saying.
    fn seen_part(&self, world: &World, seen: &Sightings) -> String {
        let mut places = Vec::new();
        for (place, objects) in seen.places() {
            let furniture = world.furniture(*place);
            let mut classes: Vec<String> = Vec::new();
            for object in objects {
                let class = class_words(world, world.object(*object).class);
                if !classes.contains(&class) {
                    classes.push(class);
                }
            }
            let contents = match (furniture.kind, classes.is_empty()) {
                (FurnitureKind::Surface, true) => continue,
                (FurnitureKind::Container, true) => "nothing".to_string(),
                (_, false) => classes.join(", "),
            };
            let name = words(&furniture.name);
            places.push(format!(
                "{} the {name}: {contents}",
                preposition(world, *place)
            ));
        }
        if places.is_empty() {
            return String::new();
        }
        let places = places.join("; ");
        match self.style {
            PromptStyle::Bip => format!("Seen: {places}.\n"),
            PromptStyle::BipAlm => format!("observed: {places}.\n"),
        }
    }

    /// Where the agent is and what is open around it: shared by every hypothesis at a step.
    fn step_part(&self, world: &World, state: &State) -> String {
        let mut now = format!("in the {}", words(&world.rooms[state.room.index()].name));
        if let Some(f) = state.at {
            now.push_str(&format!(", at the {}", words(&world.furniture(f).name)));
        }
        let open: Vec<String> = world
            .furniture
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                f.kind == FurnitureKind::Container && f.room == state.room && state.open[*i]
            })
            .map(|(_, f)| words(&f.name))
            .collect();
        if !open.is_empty() {
            now.push_str(&format!("; open: {}", open.join(", ")));
        }
        let held: Vec<String> = state
            .held()
            .map(|o| class_words(world, world.object(o).class))
            .collect();
        if !held.is_empty() {
            now.push_str(&format!("; holding: {}", held.join(", ")));
        }
        match self.style {
            PromptStyle::Bip => format!("Now: {now}.\n"),
            PromptStyle::BipAlm => format!("the person is {now}.\n"),
        }
    }

    fn goal_part(&self, world: &World, goal: ClassId) -> String {
        let object = class_words(world, goal);
        match self.style {
            PromptStyle::Bip => format!("Goal: get the {object}.\n"),
            PromptStyle::BipAlm => format!("goal: be near the {object}.\n"),
        }
    }

    fn belief_part(&self, world: &World, goal: ClassId, belief: &Belief) -> String {
        let object = class_words(world, goal);
        let places = |ids: &[usize]| {
            ids.iter()
                .map(|&i| {
                    let f = FurnitureId::new(i);
                    let name = words(&world.furniture(f).name);
                    format!("{} the {name}", preposition(world, f))
                })
                .collect::<Vec<_>>()
                .join(" or ")
        };
        let known: Vec<usize> = belief.known().iter().map(|f| f.index()).collect();
        let unseen: Vec<usize> = (0..world.furniture.len())
            .filter(|&i| belief.weights()[i] > 0.0)
            .collect();
        let live: Vec<usize> = unseen
            .iter()
            .copied()
            .filter(|&i| belief.thinks_inside(FurnitureId::new(i)))
            .collect();
        let thought = if !known.is_empty() {
            format!("the {object} is {}", places(&known))
        } else if live.is_empty() {
            format!("the {object} is not where they looked; it may be anywhere else")
        } else if live.len() == unseen.len() {
            format!("they do not know where the {object} is")
        } else {
            format!("the {object} is {}", places(&live))
        };
        match self.style {
            PromptStyle::Bip => format!("Belief: {thought}.\n"),
            PromptStyle::BipAlm => format!("belief: {thought}.\n"),
        }
    }
}

/// An identifier as words: `kitchen_cabinet_2` → `kitchen cabinet 2`.
fn words(name: &str) -> String {
    name.replace('_', " ")
}

fn class_words(world: &World, class: ClassId) -> String {
    words(world.class_name(class))
}

fn place_words(world: &World, place: Place) -> String {
    words(world.place_name(place))
}

/// "in" a container, "on" a surface.
fn preposition(world: &World, furniture: FurnitureId) -> &'static str {
    match world.furniture(furniture).kind {
        FurnitureKind::Container => "in",
        FurnitureKind::Surface => "on",
    }
}
