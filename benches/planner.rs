//! Questions per second of batch inference with the planner policy on the shipped examples.
//!
//! Run with `cargo bench --bench planner`. Prints a figure; asserts nothing.

use std::time::{Duration, Instant};

use bip::engine::{infer_episode, BatchOptions, PlannerPolicy};

fn main() {
    let episodes = bip_episodes::test_support::examples();
    let policy = PlannerPolicy::default();
    let options = BatchOptions::default();
    let questions: usize = episodes.iter().map(|e| e.questions().len()).sum();
    let steps: usize = episodes.iter().map(|e| e.actions().len()).sum();
    // Warm up once, then repeat whole passes for at least two seconds.
    for e in &episodes {
        infer_episode(e, &policy, &options).expect("inference");
    }
    let mut passes = 0u32;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        for e in &episodes {
            std::hint::black_box(infer_episode(e, &policy, &options).expect("inference"));
        }
        passes += 1;
    }
    let seconds = start.elapsed().as_secs_f64();
    let per_pass = seconds / f64::from(passes);
    println!(
        "planner: {} episodes, {questions} questions, {steps} actions per pass; {passes} passes in {seconds:.2} s",
        episodes.len()
    );
    println!(
        "planner: {:.1} questions/s, {:.2} ms per episode, {:.3} ms per action",
        questions as f64 / per_pass,
        per_pass * 1e3 / episodes.len() as f64,
        per_pass * 1e3 / steps.max(1) as f64
    );
}
