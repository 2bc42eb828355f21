//! Per-step cost of the online inference session after 10, 100 and 1,000 steps: it should
//! not grow with the number of steps already taken.
//!
//! Run with `cargo bench --bench online`. Prints figures; asserts nothing.

use std::time::Instant;

use bip::engine::generate::random_world;
use bip::engine::rng::Rng;
use bip::engine::{HypothesisConfig, Inference, PlannerPolicy};
use bip::episodes::json::{AgentFile, EpisodeFile, FORMAT};
use bip::episodes::{Action, Episode, Place, RoomId};

/// Steps timed at each checkpoint.
const WINDOW: usize = 20;

fn main() {
    let episode = Episode::from_file(
        EpisodeFile {
            format: FORMAT.to_string(),
            id: None,
            description: None,
            world: random_world(&mut Rng::new(42)),
            agent: AgentFile {
                name: "A".to_string(),
                start: "kitchen".to_string(),
                goals: None,
            },
            actions: Vec::new(),
            questions: Vec::new(),
        },
        "bench",
    )
    .expect("generated worlds are valid");
    let world = episode.world();
    let policy = PlannerPolicy::default();
    let goals: Vec<_> = world.class_ids().collect();
    let mut session = Inference::new(
        world,
        &policy,
        episode.initial_state(),
        &goals,
        &HypothesisConfig::default(),
    )
    .expect("session");
    // The agent paces the apartment room by room, forever.
    let rooms = world.rooms.len();
    let step = |k: usize| Action::WalkTo(Place::Room(RoomId::new((k + 1) % rooms)));
    println!(
        "online: {} hypotheses, {} furniture, {} classes",
        goals.len() * (world.furniture.len() + 1),
        world.furniture.len(),
        goals.len()
    );
    let mut k = 0;
    for checkpoint in [10, 100, 1000] {
        while session.steps() < checkpoint {
            session.push(&step(k)).expect("possible");
            k += 1;
        }
        let start = Instant::now();
        for _ in 0..WINDOW {
            session.push(&step(k)).expect("possible");
            k += 1;
        }
        let per_step = start.elapsed().as_secs_f64() / WINDOW as f64;
        println!(
            "online: after {checkpoint:>4} steps: {:.3} ms per step",
            per_step * 1e3
        );
    }
}
