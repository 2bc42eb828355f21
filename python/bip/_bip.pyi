"""Type stubs of bip's extension module (re-exported by ``bip``)."""

from os import PathLike
from typing import Any, Literal, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

JsonDocument = Union[str, Mapping[str, Any]]
"""JSON text, or the same document as Python values."""

ActionLike = Union[str, Mapping[str, Any]]
"""``{"walk_to": "fridge"}`` as the episode format writes it, or ``"walk_to fridge"``."""

PolicyName = Literal["planner", "lm", "w2s", "hybrid"]
SearchSets = Literal["pushed", "episode", "none"]
LmScore = Literal["mean", "sum"]
LmLikelihood = Literal["text", "choice"]
PromptStyleName = Literal["bip", "bip-alm"]

class BipError(Exception):
    """Every error bip raises; the message is the ``bip`` command's."""

class EpisodeError(BipError):
    """An invalid episode, action, question or import; names the field, line or node."""

class ImpossibleAction(EpisodeError):
    """An action that cannot happen in the session's state (the session is unchanged)."""

class InferenceError(BipError):
    """Inference could not go on (a policy failed, a session cannot do what was asked)."""

class PolicyError(BipError):
    """A policy could not be built (unknown name, bad parameter, model not loadable)."""

class Episode:
    """A valid episode: a world, an agent, its actions and questions about it.

    An episode without actions is a world to run a live ``Session`` in.
    """

    @staticmethod
    def from_json(document: JsonDocument, id: str = "episode") -> Episode:
        """Reads ``bip-episode/1`` JSON (text or a ``dict``); ``id`` names it if the
        document has none. Raises ``EpisodeError`` naming the field at fault."""
    @staticmethod
    def from_path(path: Union[str, PathLike[str]]) -> Episode:
        """Reads a ``bip-episode/1`` file. Raises ``EpisodeError`` naming the file."""
    @staticmethod
    def from_virtualhome(
        graph: JsonDocument,
        script: Union[str, Sequence[str], None] = None,
        *,
        id: str = "virtualhome",
        agent: str = "char0",
        strict: bool = False,
        goals: Optional[Sequence[str]] = None,
        ask_goal: bool = False,
        ask_beliefs: Sequence[tuple[str, str]] = (),
    ) -> Episode:
        """Imports a VirtualHome environment graph (``EnvironmentGraph.to_dict()`` or
        JSON text) and optionally a program bound to it, as ``bip import virtualhome``
        does; every choice made is in ``notes``."""
    def to_json(self) -> str:
        """The episode as ``bip-episode/1`` JSON text."""
    def to_dict(self) -> dict[str, Any]:
        """The episode as a ``bip-episode/1`` document."""
    def readings(self) -> list[Episode]:
        """Every reading of the world (the first as written), without alternatives."""
    @property
    def id(self) -> str: ...
    @property
    def description(self) -> Optional[str]: ...
    @property
    def agent(self) -> str:
        """The agent's name."""
    @property
    def start(self) -> str:
        """The room the agent starts in."""
    @property
    def rooms(self) -> list[str]: ...
    @property
    def furniture(self) -> list[dict[str, Any]]:
        """``{"id", "class"?, "room", "kind", "open"?}`` per container or surface."""
    @property
    def objects(self) -> list[dict[str, Any]]:
        """``{"id", "class"?, "at"}`` per object, where it starts."""
    @property
    def classes(self) -> list[str]:
        """Object classes (goals and beliefs are about classes)."""
    @property
    def goal_candidates(self) -> list[str]:
        """The classes the agent may want."""
    @property
    def actions(self) -> list[dict[str, Any]]:
        """The actions as the episode format writes them (each can be pushed)."""
    @property
    def questions(self) -> list[dict[str, Any]]:
        """The questions as the episode format writes them."""
    @property
    def notes(self) -> list[str]:
        """What an importer chose where its source did not say."""
    @property
    def node_names(self) -> dict[int, str]:
        """VirtualHome imports: the episode id of each imported node, by node id."""

def import_mmtom(record: JsonDocument, index: int = 1) -> Episode:
    """Reads one MMToM-QA text question (a JSONL record as a ``dict`` or a line) into an
    episode, as ``bip import mmtom`` does; assumptions made are in ``notes``."""

def option_names() -> dict[str, list[str]]:
    """Every option that takes a name, by keyword (``policy`` for the policy argument),
    with the names it takes: the ones ``bip infer``'s flags take, read from the library's
    one table of each option's names."""

def infer(
    episode: Episode,
    policy: PolicyName = "planner",
    *,
    trace_top: Optional[int] = None,
    abstain_below: float = 0.0,
    beta: float = 3.0,
    model: str = "smollm2-135m",
    adapter: Union[str, PathLike[str], None] = None,
    large: Optional[str] = None,
    expert: Optional[str] = None,
    expert_adapter: Union[str, PathLike[str], None] = None,
    naive: Optional[str] = None,
    alpha: float = 1.0,
    device: str = "cpu",
    lm_score: LmScore = "mean",
    lm_likelihood: LmLikelihood = "text",
    prompt_style: PromptStyleName = "bip",
    prompt_observations: bool = False,
    planner_weight: float = 1.0,
    lm_weight: float = 1.0,
    prune_to: int = 2,
    max_context: int = 32768,
) -> dict[str, Any]:
    """Answers every question of ``episode`` as ``bip infer`` does; returns the
    episode's entry of ``bip infer --json`` (``trace`` with ``trace_top``)."""

class Posterior:
    """A session's posterior at one step: goals, beliefs, top joint hypotheses."""

    @property
    def step(self) -> int:
        """How many actions had been pushed."""
    @property
    def goals(self) -> dict[str, float]:
        """P(goal) per candidate goal, in the session's order."""
    @property
    def goal_names(self) -> list[str]:
        """The candidate goals: the rows of ``beliefs``."""
    @property
    def goal_probabilities(self) -> npt.NDArray[np.float64]:
        """P(goal) in the order of ``goal_names``."""
    @property
    def places(self) -> list[str]:
        """Containers and surfaces: the columns of ``beliefs``."""
    @property
    def beliefs(self) -> npt.NDArray[np.float64]:
        """goals × places: P(thinks an object of the goal's class is inside the place |
        wants it); NaN rows for goals with no posterior mass."""
    def goal(self, goal: str) -> float:
        """P(``goal``); ``KeyError`` for a class that is not a candidate."""
    def belief(self, goal: str, place: str) -> Optional[float]:
        """P(thinks a ``goal`` is inside ``place`` | wants it); ``None`` if impossible."""
    @property
    def top(self) -> list[dict[str, Any]]:
        """``{"goal", "initially_thought", "now_thinks", "probability"}``, best first."""
    @property
    def log_evidence(self) -> float:
        """log P(actions so far)."""
    def to_dict(self) -> dict[str, Any]:
        """``{"step", "goals", "beliefs": {goal: {place: p} | None}, "top",
        "log_evidence"}``."""

class Session:
    """A live inference session: push actions as they happen, read the posterior.

    Starts where ``episode`` starts (its actions are not pushed). ``search_sets``:
    ``"pushed"`` (read off the actions pushed so far: after each push, the posterior
    ``bip infer`` answers a question asked then from), ``"episode"`` (off the episode's
    actions: the space of ``bip infer --trace``) or ``"none"``. Policy options are
    ``bip infer``'s; ``prune_to`` defaults to 2 for LM policies when the episode has
    questions. Inference runs without the GIL.
    """

    def __init__(
        self,
        episode: Episode,
        policy: PolicyName = "planner",
        *,
        search_sets: SearchSets = "pushed",
        belief_leak: float = 0.05,
        uninformed_weight: float = 1.0,
        beta: float = 3.0,
        model: str = "smollm2-135m",
        adapter: Union[str, PathLike[str], None] = None,
        large: Optional[str] = None,
        expert: Optional[str] = None,
        expert_adapter: Union[str, PathLike[str], None] = None,
        naive: Optional[str] = None,
        alpha: float = 1.0,
        device: str = "cpu",
        lm_score: LmScore = "mean",
        lm_likelihood: LmLikelihood = "text",
        prompt_style: PromptStyleName = "bip",
        prompt_observations: bool = False,
        planner_weight: float = 1.0,
        lm_weight: float = 1.0,
        prune_to: Optional[int] = None,
        max_context: int = 32768,
    ) -> None: ...
    def push(self, action: ActionLike) -> None:
        """Scores, applies and observes one action. ``ImpossibleAction`` if it cannot
        happen now (the session is unchanged)."""
    def push_all(self, actions: Sequence[ActionLike]) -> None:
        """Pushes each action in turn."""
    def push_line(self, line: str) -> dict[str, Any]:
        """Pushes what a VirtualHome program line does (node ids of the imported
        graph), by ``bip import virtualhome``'s rules; returns ``{"line", "actions",
        "notes"}``."""
    def observe(
        self,
        visible: Sequence[str],
        seen: Optional[Sequence[tuple[str, str]]] = None,
        room: Optional[str] = None,
    ) -> None:
        """Adds an observation: places fully in view and ``(object, place)`` seen."""
    def posterior(self, top: int = 5) -> Posterior:
        """The posterior now, with the ``top`` joint hypotheses."""
    def answer(self, question: Union[int, JsonDocument]) -> dict[str, Any]:
        """Answers a question (an index into the episode's, or a question document) from
        the posterior now, as ``bip infer --json`` reports it."""
    @property
    def steps(self) -> int: ...
    @property
    def actions(self) -> list[str]:
        """The actions pushed, as bip describes them."""
    @property
    def state(self) -> dict[str, Any]:
        """``{"room", "at", "open", "held", "objects"}``: the true state now."""
    @property
    def hypothesis_count(self) -> int: ...
    @property
    def search_sets(self) -> list[list[str]]:
        """The "thinks it is in one of S" beliefs of the hypothesis space now."""
    @property
    def rebuilds(self) -> int:
        """How many times the hypothesis space changed (its new hypotheses scored over the steps before)."""
    @property
    def policy(self) -> str: ...
    @property
    def episode(self) -> Episode: ...
