"""VirtualHome's own symbolic simulator, loaded offline, to run bip inside it.

VirtualHome's executor (``evolving_graph``: an environment graph that evolves as a
program's lines execute, with preconditions checked) ships in the PyPI package
``virtualhome`` (2.3.0) but not its resource files, and the package's ``__init__``
imports the Unity client. ``Simulator`` imports ``evolving_graph`` without it and takes
the resource folder (``class_name_equivalence.json`` ...) by path::

    sim = Simulator(graph, resources="../shared/data/virtualhome/resources")
    ok, error = sim.execute("[Walk] <fridge> (285)")
    sim.graph          # the graph now, as a dict
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import SimpleNamespace
from typing import Any, Optional

INSTALL = "pip install --no-deps virtualhome==2.3.0 numpy"


def load_executor() -> SimpleNamespace:
    """``evolving_graph``'s parts, imported from the installed ``virtualhome`` package
    without running the package's ``__init__`` (which needs Unity).

    Raises ``ModuleNotFoundError`` saying how to install it when it is missing.
    """
    spec = importlib.util.find_spec("virtualhome")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(
            f"VirtualHome's executor comes with the PyPI package virtualhome: {INSTALL} "
            "(its other dependencies are for the Unity simulator and are not needed)"
        )
    simulation = os.path.join(os.path.dirname(spec.origin), "simulation")
    if simulation not in sys.path:
        sys.path.insert(0, simulation)
    from evolving_graph import environment, utils  # type: ignore[import-not-found]
    from evolving_graph.execution import ExecutionInfo, ScriptExecutor  # type: ignore
    from evolving_graph.scripts import read_script_from_list_string  # type: ignore

    return SimpleNamespace(
        environment=environment,
        utils=utils,
        ExecutionInfo=ExecutionInfo,
        ScriptExecutor=ScriptExecutor,
        read_script=read_script_from_list_string,
    )


class Simulator:
    """VirtualHome's executor over one scene graph, run one program line at a time.

    ``graph`` is an environment graph (``{"nodes", "edges"}``); ``resources`` the folder
    with VirtualHome's ``class_name_equivalence.json``.
    """

    def __init__(self, graph: dict[str, Any], resources: str) -> None:
        eg = load_executor()
        path = os.path.join(os.path.abspath(resources), "class_name_equivalence.json")
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"{path}: VirtualHome's resource files are not there (they are in "
                "the VirtualHome repository's virtualhome/resources/)"
            )
        self._eg = eg
        names = eg.utils.load_name_equivalence(path)
        environment = eg.environment.EnvironmentGraph(graph)
        self._executor = eg.ScriptExecutor(environment, names)
        self._state = eg.environment.EnvironmentState(
            environment, names, instance_selection=True
        )

    @property
    def graph(self) -> dict[str, Any]:
        """The graph now."""
        return self._state.to_dict()

    def execute(self, line: str) -> tuple[bool, Optional[str]]:
        """Executes one program line (``"[Open] <fridge> (285)"``, no ``<char0>``
        prefix). Returns ``(True, None)``, or ``(False, why)`` when the executor rejects
        it (a precondition fails); the graph is then unchanged."""
        script = self._eg.read_script([line])
        self._executor.info = self._eg.ExecutionInfo()
        ok, state = self._executor.execute_one_step(script.from_index(0), self._state)
        if not ok:
            return False, self._executor.info.get_error_string()
        self._state = state
        return True, None

    def move(self, node: int, inside: int, room: int) -> None:
        """Moves node ``node`` inside node ``inside`` (in room ``room``), as the
        simulator's own state changers do: what happens while the agent is away."""
        env = self._eg.environment
        thing = self._state.get_node(node)
        self._state.apply_changes(
            [
                env.DeleteEdges(
                    env.NodeInstance(thing),
                    [env.Relation.ON, env.Relation.INSIDE, env.Relation.CLOSE],
                    env.AnyNode(),
                    delete_reverse=True,
                ),
                env.AddEdges(
                    env.NodeInstance(thing),
                    env.Relation.INSIDE,
                    env.NodeInstance(self._state.get_node(inside)),
                ),
                env.AddEdges(
                    env.NodeInstance(thing),
                    env.Relation.INSIDE,
                    env.NodeInstance(self._state.get_node(room)),
                ),
            ]
        )
