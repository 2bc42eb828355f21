"""Fixtures of bip's Python tests: the `bip` command, the shared data, VirtualHome's
executor. Whatever is missing fails the test with a message saying how to get it; no
test is skipped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "episodes" / "examples"
sys.path.insert(0, str(ROOT / "python" / "examples"))


def missing(what: str, how: str) -> None:
    pytest.fail(f"{what} is missing: {how}", pytrace=False)


@pytest.fixture(scope="session")
def numpy() -> Any:
    try:
        import numpy
    except ModuleNotFoundError:
        missing("numpy", "pip install numpy (scripts/test.sh installs it)")
    return numpy


@pytest.fixture(scope="session")
def bip_bin() -> Path:
    """The `bip` command of this checkout: $BIP_BIN, else target/debug/bip."""
    given = os.environ.get("BIP_BIN")
    path = Path(given) if given else ROOT / "target" / "debug" / "bip"
    if not path.is_file():
        missing(
            f"the bip command ({path})",
            "build it with `cargo build` (scripts/test.sh does), or set BIP_BIN",
        )
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data beside the checkout, or $BIP_SHARED_DATA."""
    path = Path(os.environ.get("BIP_SHARED_DATA", ROOT.parent / "shared" / "data"))
    scene = path / "virtualhome" / "TestScene1_graph.json"
    resources = path / "virtualhome" / "resources" / "class_name_equivalence.json"
    for needed in (scene, resources):
        if not needed.is_file():
            missing(
                str(needed),
                "the repository expects its shared data in ../shared/data beside the "
                "checkout (VirtualHome's TestScene1 and resources); put it there or "
                "set BIP_SHARED_DATA",
            )
    return path


@pytest.fixture(scope="session")
def executor() -> Any:
    """VirtualHome's executor (`evolving_graph`), imported offline."""
    from bip.virtualhome import load_executor

    try:
        return load_executor()
    except ModuleNotFoundError as e:
        missing("VirtualHome's executor", str(e))


@pytest.fixture(scope="session")
def smollm2() -> Path:
    """SmolLM2-135M-Instruct, as scripts/fetch-models.sh puts it."""
    folder = Path(os.environ.get("BIP_MODELS", Path.home() / ".cache" / "bip" / "models"))
    path = folder / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        missing(str(path), "run scripts/fetch-models.sh (scripts/test.sh does)")
    return path


def run_bip(bip_bin: Path, *args: Any, ok: bool = True) -> subprocess.CompletedProcess:
    """Runs the `bip` command; fails the test unless its status is as expected."""
    done = subprocess.run(
        [str(bip_bin), *map(str, args)], capture_output=True, text=True, check=False
    )
    if ok and done.returncode != 0:
        pytest.fail(f"bip {' '.join(map(str, args))} failed: {done.stderr}")
    if not ok and done.returncode == 0:
        pytest.fail(f"bip {' '.join(map(str, args))} succeeded; an error was expected")
    return done


def infer_json(bip_bin: Path, path: Path, *flags: Any) -> dict[str, Any]:
    """`bip infer --json` on one episode file: its report."""
    done = run_bip(bip_bin, "infer", "--json", *flags, path)
    return json.loads(done.stdout)["episodes"][0]


def letter(index: int) -> str:
    """The letter of option `index`, as bip writes it."""
    return chr(ord("a") + index) if index < 26 else f"option{index + 1}"


def close(a: float, b: float, tolerance: float = 1e-9) -> bool:
    return abs(a - b) <= tolerance


def describe(action: dict[str, Any]) -> str:
    """An action of the episode format as bip describes it (`walk_to fridge`)."""
    ((verb, what),) = action.items()
    if verb == "put":
        return f"put {what['object']} {what['onto']}"
    return f"{verb} {what}"
