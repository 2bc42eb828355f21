"""Per-step cost of a live session from Python: push + posterior, after 10, 100 and
1,000 steps, on a VirtualHome scene graph — the steps `cargo bench --bench online --
--virtualhome GRAPH` times in Rust (the agent paces the apartment room by room; each
posterior gives the goals, the belief table and the top 5 joint hypotheses).

Run with a release wheel installed (`maturin build --release -m python/Cargo.toml`)::

    python python/bench/online.py ../shared/data/virtualhome/TestScene1_graph.json
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Callable, Optional

import bip

WINDOW = 20
REPEATS = 10
CHECKPOINTS = (10, 100, 1000)


def cpu_seconds() -> Optional[float]:
    """The CPU time this process's threads have run (bip's included), from Linux's
    /proc/self/task/*/schedstat, as benches/online.rs reads it."""
    try:
        return sum(
            int(open(f"/proc/self/task/{task}/schedstat").read().split()[0])
            for task in os.listdir("/proc/self/task")
        ) * 1e-9
    except OSError:
        return None


def timed(label: str, step: Callable[[int], None]) -> None:
    """Times `step(k)` after each checkpoint: wall and CPU time per step, each the least
    of REPEATS windows of WINDOW steps, as benches/online.rs does."""
    k = 0
    for checkpoint in CHECKPOINTS:
        while k < checkpoint:
            step(k)
            k += 1
        wall = cpu = float("inf")
        for _ in range(REPEATS):
            start, cpu_start = time.perf_counter(), cpu_seconds()
            for _ in range(WINDOW):
                step(k)
                k += 1
            wall = min(wall, (time.perf_counter() - start) / WINDOW)
            cpu_end = cpu_seconds()
            if cpu_start is not None and cpu_end is not None:
                cpu = min(cpu, (cpu_end - cpu_start) / WINDOW)
        print(f"online (python): {label}: after {checkpoint:>4} steps: "
              f"{wall * 1e3:.3f} ms per step ({cpu * 1e3:.3f} ms CPU)")


def main(path: str) -> None:
    with open(path) as f:
        episode = bip.Episode.from_virtualhome(json.load(f))
    rooms = episode.rooms
    start = rooms.index(episode.start)

    def walk(k: int) -> str:
        return f"walk_to {rooms[(start + k + 1) % len(rooms)]}"

    print(f"online (python): {episode}")
    session = bip.Session(episode)
    timed("push", lambda k: session.push(walk(k)))
    session = bip.Session(episode)

    def push_and_posterior(k: int) -> None:
        session.push(walk(k))
        session.posterior()

    timed("push + posterior", push_and_posterior)
    session = bip.Session(episode)

    def push_and_read(k: int) -> None:
        session.push(walk(k))
        posterior = session.posterior()
        posterior.goals, posterior.beliefs, posterior.top

    timed("push + posterior, goals, beliefs and top read", push_and_read)


if __name__ == "__main__":
    main(sys.argv[1])
