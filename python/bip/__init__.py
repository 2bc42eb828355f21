"""bip: Bayesian inverse planning — infer what an embodied agent wants and thinks from
what it does.

Read an episode (``Episode.from_json``, ``Episode.from_path``,
``Episode.from_virtualhome``, ``import_mmtom``), then either answer its questions in one
go (``infer``) or run a live ``Session``: push the agent's actions as they happen and
read the ``Posterior`` over its goals and beliefs after each.

>>> import bip
>>> world = bip.Episode.from_json({
...     "format": "bip-episode/1",
...     "world": {"rooms": ["kitchen", "hall"],
...               "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"},
...                             {"id": "shelf", "room": "hall", "kind": "surface"}],
...               "objects": [{"id": "milk_1", "at": "fridge"}, {"id": "keys_1", "at": "shelf"}]},
...     "agent": {"name": "Bo", "start": "hall"}})
>>> session = bip.Session(world)
>>> session.push("walk_to fridge")
>>> round(session.posterior().goal("milk"), 3)  # the keys were in view: it wants milk
1.0

Errors are ``BipError`` subclasses whose messages are the ``bip`` command's.
``bip.virtualhome`` loads VirtualHome's own symbolic executor, to run bip inside it.
"""

from ._bip import (
    BipError,
    Episode,
    EpisodeError,
    ImpossibleAction,
    InferenceError,
    PolicyError,
    Posterior,
    Session,
    __version__,
    import_mmtom,
    infer,
    option_names,
)

__all__ = [
    "BipError",
    "Episode",
    "EpisodeError",
    "ImpossibleAction",
    "InferenceError",
    "PolicyError",
    "Posterior",
    "Session",
    "__version__",
    "import_mmtom",
    "infer",
    "option_names",
]
