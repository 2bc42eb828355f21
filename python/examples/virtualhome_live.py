"""bip live inside VirtualHome's own simulator.

The scene is VirtualHome's TestScene1. The agent (``char0``) is in the bathroom. It
last saw the salmon in the fridge, but while it was away the salmon was moved into the
microwave (the simulator's own state changers move it). Then VirtualHome's executor
runs the agent's program line by line: it walks to the fridge and opens it, tries to
take the salmon — the executor rejects the line, since the salmon is not there — shuts
the fridge, searches the microwave and takes the salmon. After every line the executor
accepts, what the line changed is pushed to a ``bip.Session`` and the posterior over
the agent's goals, and over where it thinks the salmon is, is printed. A rejected line
is reported and not pushed.

Run from the repository root (needs ``pip install --no-deps virtualhome==2.3.0 numpy``
and the wheel of bip)::

    python python/examples/virtualhome_live.py [SHARED_DATA_DIR]

``SHARED_DATA_DIR`` defaults to ``../shared/data`` beside the checkout.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, Callable, Optional

import bip
from bip.virtualhome import Simulator

CHARACTER, KITCHEN, FRIDGE, MICROWAVE, SALMON = 63, 198, 285, 293, 307

PROGRAM = [
    "[Walk] <kitchen> (198)",
    "[Walk] <fridge> (285)",
    "[Open] <fridge> (285)",
    "[Grab] <salmon> (307)",  # rejected: the salmon is no longer in the fridge
    "[Close] <fridge> (285)",
    "[Walk] <microwave> (293)",
    "[Open] <microwave> (293)",
    "[Grab] <salmon> (307)",
    "[Close] <microwave> (293)",
]


def default_data_dir() -> str:
    """``../shared/data`` beside the checkout (or ``$BIP_SHARED_DATA``)."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    return os.environ.get(
        "BIP_SHARED_DATA", os.path.join(os.path.dirname(root), "shared", "data")
    )


def simulator(data_dir: str) -> Simulator:
    """TestScene1 in VirtualHome's executor, the salmon moved while the agent was away."""
    folder = os.path.join(data_dir, "virtualhome")
    with open(os.path.join(folder, "TestScene1_graph.json")) as f:
        graph = json.load(f)
    sim = Simulator(graph, resources=os.path.join(folder, "resources"))
    sim.move(SALMON, inside=FRIDGE, room=KITCHEN)  # where the agent last saw it
    sim.move(SALMON, inside=MICROWAVE, room=KITCHEN)  # moved while it was away
    return sim


def change(before: dict[str, Any], after: dict[str, Any], line: str) -> list[str]:
    """What one line changed in the graph, in a few words: where the character is, what
    it holds, and the states of the nodes the line names."""
    nodes = {n["id"]: n for n in after["nodes"]}
    old = {n["id"]: n for n in before["nodes"]}

    def relations(graph: dict[str, Any], kinds: tuple[str, ...]) -> set[int]:
        return {
            e["to_id"]
            for e in graph["edges"]
            if e["from_id"] == CHARACTER and e["relation_type"] in kinds
        }

    words = []
    rooms = relations(after, ("INSIDE",)) - relations(before, ("INSIDE",))
    words += [f"character now in {nodes[r]['class_name']}" for r in sorted(rooms)]
    held = relations(after, ("HOLDS_RH", "HOLDS_LH")) - relations(
        before, ("HOLDS_RH", "HOLDS_LH")
    )
    words += [f"holds {nodes[h]['class_name']} ({h})" for h in sorted(held)]
    for node in sorted({int(n) for n in re.findall(r"\((\d+)\)", line)}):
        if old[node]["states"] != nodes[node]["states"]:
            words.append(
                f"{nodes[node]['class_name']} ({node}): {'/'.join(old[node]['states'])}"
                f" -> {'/'.join(nodes[node]['states'])}"
            )
    return words


def run(
    data_dir: str,
    program: list[str] = PROGRAM,
    out: Optional[Callable[[str], None]] = print,
    **session_options: Any,
) -> dict[str, Any]:
    """Runs `program` live and returns what happened: ``{"graph": the graph bip was
    given, "episode", "session", "executed": [lines], "rejected": [(line, why)],
    "steps": [{"line", "actions", "notes", "change", "posterior"}]}``."""
    say = out or (lambda _: None)
    sim = simulator(data_dir)
    graph = sim.graph
    episode = bip.Episode.from_virtualhome(graph)
    session = bip.Session(episode, **session_options)
    say(f"{episode}; {session.hypothesis_count} hypotheses")
    result: dict[str, Any] = {
        "graph": graph,
        "episode": episode,
        "session": session,
        "executed": [],
        "rejected": [],
        "steps": [],
    }
    for line in program:
        before = sim.graph
        ok, why = sim.execute(line)
        if not ok:
            say(f"{line:<26} REJECTED by VirtualHome: {why}")
            result["rejected"].append((line, why))
            continue
        pushed = session.push_line(line)
        posterior = session.posterior()
        result["executed"].append(line)
        result["steps"].append(
            {**pushed, "change": change(before, sim.graph, line), "posterior": posterior}
        )
        say(report(line, pushed, posterior))
    return result


def report(line: str, pushed: dict[str, Any], posterior: bip.Posterior) -> str:
    """One line of output: the program line, what bip pushed, the posterior."""
    best, p_best = max(posterior.goals.items(), key=lambda kv: kv[1])
    fridge = posterior.belief("salmon", "fridge")
    microwave = posterior.belief("salmon", "microwave")
    return (
        f"{line:<26} pushed {', '.join(pushed['actions']) or 'nothing':<18} "
        f"P(salmon) {posterior.goal('salmon'):.2f} (best: {best} {p_best:.2f}) | "
        f"wanting salmon, thinks it is in the fridge {fridge:.2f}, "
        f"in the microwave {microwave:.2f}"
    )


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else default_data_dir())
