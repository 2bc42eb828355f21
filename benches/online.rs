//! Per-step cost of the online inference session after 10, 100 and 1,000 steps: it should
//! not grow with the number of steps already taken.
//!
//! Run with `cargo bench --bench online`. Prints, per checkpoint, the wall and CPU time
//! per step of the least disturbed of 10 windows of 20 steps; asserts nothing.
//!
//! `cargo bench --bench online -- --virtualhome GRAPH.json` times the same on a
//! VirtualHome scene graph (`../shared/data/virtualhome/TestScene1_graph.json`), each
//! step also taking the posterior (goals, the belief table, the top 5 joint hypotheses),
//! with [`Inference`] and with the owning [`LiveSession`] that the Python bindings wrap;
//! `python/bench/online.py` times the same steps from Python.

use std::sync::Arc;
use std::time::Instant;

use bip::engine::{
    HypothesisConfig, Inference, LiveOptions, LiveSession, PlannerPolicy, Posterior,
};
use bip::episodes::import::virtualhome::{import, read_graph, ImportOptions};
use bip::episodes::json::{AgentFile, EpisodeFile, FORMAT};
use bip::episodes::{Action, Episode, Place, RoomId};
use bip::lab::generate::random_world;
use bip::lab::rng::Rng;

/// Steps timed together at each checkpoint.
const WINDOW: usize = 20;

/// Windows timed at each checkpoint; the fastest is reported (the least disturbed by
/// other work on the machine).
const REPEATS: usize = 10;

/// Steps after which the cost is timed.
const CHECKPOINTS: [usize; 3] = [10, 100, 1000];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--virtualhome") {
        Some(i) => {
            let path = args.get(i + 1).expect("--virtualhome GRAPH.json");
            virtualhome(path);
        }
        None => random(),
    }
}

/// The agent paces the apartment room by room, forever.
fn pace(rooms: usize) -> impl Fn(usize) -> Action {
    move |k| Action::WalkTo(Place::Room(RoomId::new((k + 1) % rooms)))
}

/// Everything a step's posterior gives: goals, the belief table, the top 5.
fn read(posterior: &Posterior<'_>) -> usize {
    let goals = posterior.goals();
    let beliefs = posterior.beliefs_given_goals();
    let top = posterior.top(5);
    goals.len() + beliefs.len() + top.len()
}

/// The CPU time this process's threads have run, in seconds, from Linux's
/// `/proc/self/task/*/schedstat` (`None` elsewhere): a cost that other work on the
/// machine disturbs far less than wall time. `python/bench/online.py` reads the same.
fn cpu_seconds() -> Option<f64> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total as f64 * 1e-9)
}

/// Times `step(k)` (step `k` of a session) after each checkpoint: wall and CPU time per
/// step, each the least of [`REPEATS`] windows of [`WINDOW`] steps.
fn time(label: &str, mut step: impl FnMut(usize)) {
    let mut k = 0;
    for checkpoint in CHECKPOINTS {
        while k < checkpoint {
            step(k);
            k += 1;
        }
        let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..REPEATS {
            let (start, cpu_start) = (Instant::now(), cpu_seconds());
            for _ in 0..WINDOW {
                step(k);
                k += 1;
            }
            wall = wall.min(start.elapsed().as_secs_f64() / WINDOW as f64);
            if let (Some(end), Some(begin)) = (cpu_seconds(), cpu_start) {
                cpu = cpu.min((end - begin) / WINDOW as f64);
            }
        }
        println!(
            "online: {label}: after {checkpoint:>4} steps: {:.3} ms per step ({:.3} ms CPU)",
            wall * 1e3,
            cpu * 1e3
        );
    }
}

fn random() {
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
    println!(
        "online: {} hypotheses, {} furniture, {} classes",
        goals.len() * (world.furniture.len() + 1),
        world.furniture.len(),
        goals.len()
    );
    let step = pace(world.rooms.len());
    time("push", |k| session.push(&step(k)).expect("possible"));
}

fn virtualhome(path: &str) {
    let text = std::fs::read_to_string(path).expect("readable graph");
    let graph = read_graph(&text).expect("a VirtualHome graph");
    let episode = import(&graph, None, &ImportOptions::default())
        .expect("imports")
        .episode;
    let world = episode.world();
    let policy = PlannerPolicy::default();
    let goals = episode.goal_candidates();
    println!(
        "online (VirtualHome {path}): {} hypotheses, {} furniture, {} classes",
        goals.len() * (world.furniture.len() + 1),
        world.furniture.len(),
        goals.len()
    );
    let step = pace(world.rooms.len());
    let new = || {
        Inference::for_episode(&episode, &policy, &HypothesisConfig::default()).expect("session")
    };
    let mut session = new();
    time("Inference push", |k| {
        session.push(&step(k)).expect("possible")
    });
    let mut session = new();
    let mut sink = 0;
    time("Inference push + posterior", |k| {
        session.push(&step(k)).expect("possible");
        sink += read(&session.posterior());
    });
    let mut live = LiveSession::new(
        Arc::new(episode.clone()),
        Arc::new(PlannerPolicy::default()),
        LiveOptions::default(),
    )
    .expect("session");
    time("LiveSession push + posterior", |k| {
        live.push(&step(k)).expect("possible");
        sink += read(&live.posterior());
    });
    println!("online: ({sink} values read)");
    tour(&episode);
}

/// Pieces of furniture walked to by [`tour`].
const TOUR: usize = 24;

/// Times a [`LiveSession`] reading its search sets off its pushes (the default) while the
/// agent walks to [`TOUR`] pieces of furniture in turn: each walk brings new search sets,
/// whose hypotheses are scored over every step before it.
fn tour(episode: &Episode) {
    let mut live = LiveSession::new(
        Arc::new(episode.clone()),
        Arc::new(PlannerPolicy::default()),
        LiveOptions::default(),
    )
    .expect("session");
    let walks: Vec<Action> = episode
        .world()
        .furniture_ids()
        .take(TOUR)
        .map(|f| Action::WalkTo(Place::Furniture(f)))
        .collect();
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    live.push_all(&walks).expect("possible");
    let cpu = cpu_seconds()
        .zip(cpu_start)
        .map_or(f64::NAN, |(end, begin)| end - begin);
    println!(
        "online: LiveSession furniture tour: {} walks, {} new spaces, {} hypotheses at the \
         end: {:.2} s ({cpu:.2} s CPU)",
        walks.len(),
        live.rebuilds(),
        live.hypothesis_count(),
        start.elapsed().as_secs_f64(),
    );
}
