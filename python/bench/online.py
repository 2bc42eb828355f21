"""Per-step cost of a live session from Python: push + posterior, after 10, 100 and
1,000 steps, on a VirtualHome scene graph — the steps `cargo bench --bench online --
--virtualhome GRAPH` times in Rust (the agent paces the apartment room by room; each
posterior gives the goals, the belief table and the top 5 joint hypotheses).

Run with a release wheel installed (`maturin build --release -m python/Cargo.toml`)::

    python python/bench/online.py ../shared/data/virtualhome/TestScene1_graph.json
"""

from __future__ import annotations

import json
import sys
import time
from typing import Callable

import bip

WINDOW = 20
CHECKPOINTS = (10, 100, 1000)


def timed(label: str, step: Callable[[int], None]) -> None:
    k = 0
    for checkpoint in CHECKPOINTS:
        while k < checkpoint:
            step(k)
            k += 1
        start = time.perf_counter()
        for _ in range(WINDOW):
            step(k)
            k += 1
        per_step = (time.perf_counter() - start) / WINDOW
        print(f"online (python): {label}: after {checkpoint:>4} steps: "
              f"{per_step * 1e3:.3f} ms per step")


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
