"""The package's documentation: its example runs, and the stubs cover the module."""

from __future__ import annotations

import ast
import doctest
import inspect
from pathlib import Path

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
