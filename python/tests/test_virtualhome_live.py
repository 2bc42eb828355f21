"""bip live inside VirtualHome's own executor (`examples/virtualhome_live.py`), against
`bip import virtualhome` + `bip infer` on the same graph and program."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import bip
from conftest import close, describe, infer_json, letter, run_bip


@pytest.fixture(scope="module")
def live(shared_data: Path, executor: Any) -> dict[str, Any]:
    import virtualhome_live

    lines: list[str] = []
    result = virtualhome_live.run(str(shared_data), out=lines.append)
    result["printed"] = lines
    return result


def test_a_rejected_line_is_reported_and_not_pushed(live: dict[str, Any]) -> None:
    assert [line for line, _ in live["rejected"]] == ["[Grab] <salmon> (307)"]
    why = live["rejected"][0][1]
    assert "is not close to <salmon> (307)" in why
    assert any("REJECTED by VirtualHome" in p and "salmon" in p for p in live["printed"])
    assert "[Grab] <salmon> (307)" not in live["executed"][:3]
    session = live["session"]
    # Six walks, opens and closes and one grab: the rejected grab left no action.
    assert session.actions == [
        "walk_to kitchen", "walk_to fridge", "open fridge", "close fridge",
        "walk_to microwave", "open microwave", "grab salmon", "close microwave",
    ]
    assert [s["line"] for s in live["steps"]] == list(range(1, 9))


def test_bip_follows_the_simulators_graph(live: dict[str, Any]) -> None:
    steps = live["steps"]
    assert steps[0]["change"] == ["character now in kitchen"]
    assert "fridge (285): CLOSED -> OPEN" in steps[2]["change"]
    assert "holds salmon (307)" in steps[6]["change"]
    assert live["session"].state["held"] == ["salmon"]


def test_the_agent_looked_for_the_salmon_where_it_thought_it_was(live: dict[str, Any]) -> None:
    steps = live["steps"]
    at_fridge = steps[1]["posterior"]  # walked to the fridge, before opening it
    assert at_fridge.belief("salmon", "fridge") > 0.5
    assert at_fridge.belief("salmon", "microwave") < at_fridge.belief("salmon", "fridge")
    assert at_fridge.belief("salmon", "fridge") > 0.5 > steps[2]["posterior"].belief(
        "salmon", "fridge"
    ), "opening the fridge showed it was not there"
    at_microwave = steps[4]["posterior"]
    assert at_microwave.belief("salmon", "microwave") > 0.5
    for step in steps[6:]:  # it took the salmon
        posterior = step["posterior"]
        assert max(posterior.goals, key=posterior.goals.get) == "salmon"
        assert posterior.goal("salmon") > 0.5


@pytest.fixture(scope="module")
def batch(
    tmp_path_factory: pytest.TempPathFactory, bip_bin: Path, live: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`bip import virtualhome` of the graph and the executed program, with the goal
    question and two belief questions (salmon in the fridge, in the microwave) asked
    after every action (`GOAL@k`, `FRIDGE@k`, `MICROWAVE@k`), and `bip infer --trace`'s
    report on it."""
    tmp = tmp_path_factory.mktemp("batch")
    graph, program = tmp / "graph.json", tmp / "program.txt"
    graph.write_text(json.dumps(live["graph"]))
    program.write_text("\n".join(live["executed"]) + "\n")
    imported = tmp / "imported.json"
    run_bip(
        bip_bin, "import", "virtualhome", "--graph", graph, "--script", program,
        "--ask-goal", "--ask-belief", "salmon:fridge", "--ask-belief", "salmon:microwave",
        "--out", imported,
    )
    document = json.loads(imported.read_text())
    asked = document["questions"]
    assert len(asked) == 3
    document["questions"] = [
        {**q, "id": f"{name}@{at}", "at": at}
        for at in range(len(document["actions"]) + 1)
        for name, q in zip(("GOAL", "FRIDGE", "MICROWAVE"), asked)
    ]
    path = tmp / "every-step.json"
    path.write_text(json.dumps(document))
    return document, infer_json(bip_bin, path, "--trace", "--trace-top", "5")


def test_live_posteriors_equal_batch_inference(
    live: dict[str, Any], batch: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    document, report = batch
    by_id = {q["id"]: q for q in report["questions"]}
    goal_options = [o["goal"] for o in document["questions"][0]["options"]]
    session = live["session"]
    assert session.actions == [describe(a) for a in document["actions"]]
    compared = 0
    for step in live["steps"]:
        posterior = step["posterior"]
        at = posterior.step
        goals = by_id[f"GOAL@{at}"]["probability"]
        for index, goal in enumerate(goal_options):
            assert close(posterior.goals[goal], goals[letter(index)]), (at, goal)
        for question, place in (("FRIDGE", "fridge"), ("MICROWAVE", "microwave")):
            thinks = by_id[f"{question}@{at}"]["probability"]["a"]
            assert close(posterior.belief("salmon", place), thinks), (at, place)
        compared += 1
    assert compared == 8
    # After the last action the live space is the whole program's: the trace's last step.
    last = report["trace"][-1]
    end = live["steps"][-1]["posterior"]
    for goal, p in last["goals"].items():
        assert close(end.goals[goal], p)
    for a, b in zip(end.top, last["top"]):
        assert (a["goal"], a["initially_thought"], a["now_thinks"]) == (
            b["goal"], b["initially_thought"], b["now_thinks"])
        assert close(a["probability"], b["probability"])


def test_a_session_over_the_imported_program_follows_the_trace(
    batch: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    document, report = batch
    episode = bip.Episode.from_json(document)
    session = bip.Session(episode, search_sets="episode")
    for step in report["trace"]:
        if step["step"] > 0:
            session.push(episode.actions[step["step"] - 1])
        posterior = session.posterior()
        for goal, p in step["goals"].items():
            assert close(posterior.goals[goal], p)
