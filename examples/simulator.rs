//! A simulator loop with bip embedded: an agent in a random apartment looks for something,
//! and after each of its actions the simulator asks bip what the agent seems to want.
//!
//! Run with `cargo run --release --example simulator [SEED]`.

use bip::engine::{Belief, HypothesisConfig, Inference, PlannerPolicy};
use bip::episodes::json::{AgentFile, EpisodeFile, FORMAT};
use bip::episodes::{ClassId, Episode, FurnitureKind, RoomId, State};
use bip::lab::generate::{random_world, simulate};
use bip::lab::rng::Rng;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1);
    let mut rng = Rng::new(seed);

    // The simulator's world: a random apartment, read through the episode format so that
    // every name is checked.
    let world = Episode::from_file(
        EpisodeFile {
            format: FORMAT.to_string(),
            id: None,
            description: None,
            world: random_world(&mut rng),
            agent: AgentFile {
                name: "Ada".to_string(),
                start: "bedroom".to_string(),
                goals: None,
            },
            actions: Vec::new(),
            questions: Vec::new(),
        },
        "simulated",
    )?
    .into_parts()
    .world;

    // The simulated agent wants some class and believes, rightly or not, that it is in a
    // random container; it acts by a noisy planner.
    let goal = ClassId::new(rng.below(world.classes.len()));
    let containers: Vec<_> = world
        .furniture_ids()
        .filter(|f| world.furniture(*f).kind == FurnitureKind::Container)
        .collect();
    let believed = *rng
        .pick(&containers)
        .ok_or("the apartment has no container")?;
    let start = State::initial(&world, RoomId::new(rng.below(world.rooms.len())));
    let agent_policy = PlannerPolicy::new(4.0)?;
    let belief = Belief::thinks_at(believed, world.furniture.len(), 0.1);
    let trajectory = simulate(
        &world,
        &agent_policy,
        start.clone(),
        goal,
        belief,
        30,
        &mut rng,
    );

    // The observer: one bip session, fed one action at a time.
    let observer = PlannerPolicy::default();
    let goals: Vec<ClassId> = world.class_ids().collect();
    let mut session = Inference::new(
        &world,
        &observer,
        start,
        &goals,
        &HypothesisConfig::default(),
    )?;
    println!(
        "Ada wants a {} and thinks one is in the {}.",
        world.class_name(goal),
        world.furniture(believed).name
    );
    for action in &trajectory.actions {
        session.push(action)?;
        let mut ranked = session.posterior().goals();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let top: Vec<String> = ranked
            .iter()
            .take(3)
            .map(|(class, p)| format!("{} {:.2}", world.class_name(*class), p))
            .collect();
        println!("{:<32} {}", action.describe(&world), top.join(", "));
    }
    let posterior = session.posterior();
    let p_true = posterior
        .goals()
        .iter()
        .find(|(c, _)| *c == goal)
        .map_or(0.0, |(_, p)| *p);
    println!(
        "after {} steps: P(goal = {}) = {p_true:.2}",
        session.steps(),
        world.class_name(goal)
    );
    Ok(())
}
