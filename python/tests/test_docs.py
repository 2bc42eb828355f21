"""The package's documentation: its example runs, and the stubs cover the module."""

from __future__ import annotations

import ast
import doctest
import inspect
from pathlib import Path

import pytest

import bip
import bip._bip


def test_the_package_example_runs() -> None:
    failed, attempted = doctest.testmod(bip)
    assert attempted > 0 and failed == 0


def stub() -> ast.Module:
    return ast.parse((Path(bip.__file__).parent / "_bip.pyi").read_text())


def test_stubs_cover_every_class_function_and_member() -> None:
    tree = stub()
    stubbed = {
        node.name: node
        for node in tree.body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef))
    }
    public = [name for name in dir(bip._bip) if not name.startswith("_")]
    assert sorted(public) == sorted(stubbed), "every public name has a stub"
    for name in public:
        thing = getattr(bip._bip, name)
        assert thing.__doc__, f"{name} has a docstring"
        if inspect.isclass(thing) and not issubclass(thing, BaseException):
            members = {n for n in vars(thing) if not n.startswith("_")}
            stubbed_members = {
                n.name for n in stubbed[name].body if isinstance(n, ast.FunctionDef)
            }
            assert members <= stubbed_members, (name, members - stubbed_members)
            for member in members:
                assert getattr(thing, member).__doc__, f"{name}.{member} has a docstring"


def literal_names(tree: ast.Module, alias: str) -> list[str]:
    """The strings of the stub's ``alias = Literal[...]``."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == alias for target in node.targets
        ):
            assert isinstance(node.value, ast.Subscript)
            names = node.value.slice
            elements = names.elts if isinstance(names, ast.Tuple) else [names]
            return [e.value for e in elements if isinstance(e, ast.Constant)]
    raise AssertionError(f"the stub has no {alias}")


def test_named_options_are_the_librarys_names_in_the_stubs_and_accepted() -> None:
    names = bip.option_names()
    aliases = {
        "policy": "PolicyName",
        "lm_score": "LmScore",
        "lm_likelihood": "LmLikelihood",
        "prompt_style": "PromptStyleName",
        "search_sets": "SearchSets",
    }
    assert sorted(names) == sorted(aliases)
    tree = stub()
    for keyword, alias in aliases.items():
        assert literal_names(tree, alias) == names[keyword], keyword
    episode = bip.Episode.from_json(
        {
            "format": "bip-episode/1",
            "world": {
                "rooms": ["kitchen"],
                "furniture": [{"id": "fridge", "room": "kitchen", "kind": "container"}],
                "objects": [{"id": "milk_1", "at": "fridge"}],
            },
            "agent": {"name": "Bo", "start": "kitchen"},
        }
    )
    expected = {k: " or ".join([", ".join(v[:-1]), v[-1]]) for k, v in names.items()}
    for keyword in ["lm_score", "lm_likelihood", "prompt_style"]:
        for name in names[keyword]:
            bip.Session(episode, "planner", **{keyword: name})
        with pytest.raises(bip.PolicyError, match=f"expected {expected[keyword]}$"):
            bip.Session(episode, "planner", **{keyword: "nonesuch"})
    for name in names["search_sets"]:
        bip.Session(episode, search_sets=name)
    with pytest.raises(ValueError, match=f"expected {expected['search_sets']}$"):
        bip.Session(episode, search_sets="nonesuch")
    bip.Session(episode, names["policy"][0])
    for name in names["policy"][1:]:
        with pytest.raises(bip.PolicyError) as raised:
            bip.Session(episode, name, model="/no/such/model.gguf")
        assert "is not a policy" not in str(raised.value), name
    with pytest.raises(bip.PolicyError, match=f"expected {expected['policy']}$"):
        bip.Session(episode, "nonesuch")
