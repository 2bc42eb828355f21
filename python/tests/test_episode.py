"""Episodes and importers from Python, against the `bip` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bip
from conftest import EXAMPLES, infer_json, run_bip


def test_every_example_reads_and_round_trips() -> None:
    for path in sorted(EXAMPLES.glob("*.json")):
        episode = bip.Episode.from_path(path)
        again = bip.Episode.from_json(episode.to_json())
        assert again.to_dict() == episode.to_dict() == json.loads(episode.to_json())
        assert again.id == episode.id
        assert episode.goal_candidates and set(episode.goal_candidates) <= set(episode.classes)
        assert all("id" in f and "room" in f for f in episode.furniture)


def test_accessors_read_the_document() -> None:
    episode = bip.Episode.from_path(EXAMPLES / "1.2-false-belief-short.json")
    document = episode.to_dict()
    assert episode.agent == document["agent"]["name"]
    assert episode.start == document["agent"]["start"]
    assert episode.rooms == document["world"]["rooms"]
    assert episode.actions == document["actions"]
    assert [q["options"] for q in episode.questions] == [
        q["options"] for q in document["questions"]
    ]
    assert "1.2-false-belief-short" in repr(episode) or episode.id in repr(episode)


def test_invalid_episodes_raise_what_the_command_prints(tmp_path: Path, bip_bin: Path) -> None:
    document = json.loads((EXAMPLES / "1.2-false-belief-short.json").read_text())
    document["actions"].append({"open": "sofa"})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    with pytest.raises(bip.EpisodeError) as raised:
        bip.Episode.from_path(bad)
    printed = run_bip(bip_bin, "infer", bad, ok=False).stderr.strip()
    assert printed == f"bip: {raised.value}"
    with pytest.raises(bip.EpisodeError, match=r"^actions\[2\]"):
        bip.Episode.from_json(document)
    with pytest.raises(bip.EpisodeError, match="line 1, column"):
        bip.Episode.from_json("{not json")
    assert issubclass(bip.EpisodeError, bip.BipError)


def test_virtualhome_imports_as_the_command_does(
    tmp_path: Path, bip_bin: Path, shared_data: Path
) -> None:
    graph_path = shared_data / "virtualhome" / "TestScene1_graph.json"
    program = "[Walk] <kitchen> (198)\n[Open] <fridge> (285)\n[SwitchOn] <stove> (291)\n"
    script = tmp_path / "program.txt"
    script.write_text(program)
    out = tmp_path / "episode.json"
    run_bip(
        bip_bin, "import", "virtualhome", "--graph", graph_path, "--script", script,
        "--ask-goal", "--out", out,
    )
    graph = json.loads(graph_path.read_text())
    episode = bip.Episode.from_virtualhome(
        graph, program.splitlines(), id="TestScene1_graph", ask_goal=True
    )
    assert episode.to_dict() == bip.Episode.from_path(out).to_dict()
    assert any("a walk to it was added first" in n for n in episode.notes)
    assert episode.node_names[285] == "fridge"
    # A line naming a node of another class fails as the command does.
    script.write_text("[Open] <microwave> (285)\n")
    printed = run_bip(
        bip_bin, "import", "virtualhome", "--graph", graph_path, "--script", script,
        "--out", out, ok=False,
    ).stderr.strip()
    with pytest.raises(bip.EpisodeError) as raised:
        bip.Episode.from_virtualhome(json.dumps(graph), "[Open] <microwave> (285)")
    assert printed.endswith(str(raised.value)), (printed, str(raised.value))


def test_mmtom_records_read_and_infer_as_the_command_does(
    tmp_path: Path, bip_bin: Path, shared_data: Path
) -> None:
    lines = (shared_data / "mmtom-qa" / "dev.jsonl").read_text().splitlines()[:3]
    source = tmp_path / "three.jsonl"
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / "three-episodes.jsonl"
    run_bip(bip_bin, "import", "mmtom", source, "--out", out)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    for index, (line, expected) in enumerate(zip(lines, written), start=1):
        episode = bip.import_mmtom(json.loads(line), index)
        expected = bip.Episode.from_json(expected).to_dict()
        assert episode.to_dict() == expected
        assert bip.import_mmtom(line, index).to_dict() == expected
        single = tmp_path / f"episode-{index}.json"
        single.write_text(json.dumps(expected))
        report = bip.infer(episode)
        batch = infer_json(bip_bin, single)
        assert [q["probability"] for q in report["questions"]] == [
            q["probability"] for q in batch["questions"]
        ]
        assert report.get("readings") == batch.get("readings")
    with pytest.raises(bip.EpisodeError):
        bip.import_mmtom({"question": "What's inside the apartment: nothing.", "answer": "a"})
