# SPDX-License-Identifier: MIT
"""The .pyi stub names what the module has, and the package re-exports it."""
import ast
import inspect
import os

import impact_collision as ic
from impact_collision import _impact

STUB = os.path.join(os.path.dirname(__file__), "..", "impact_collision", "_impact.pyi")


def stub_names():
    tree = ast.parse(open(STUB).read())
    names, params = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
            if isinstance(node, ast.FunctionDef):
                a = node.args
                params[node.name] = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    return names, params


def test_stub_matches_module():
    names, params = stub_names()
    module = {n for n in dir(_impact) if not n.startswith("__")}
    assert module <= names, f"not in the stub: {sorted(module - names)}"
    aliases = {"ArrayLike", "Pose", "Poses", "Motion"}
    assert names - aliases <= module, f"in the stub only: {sorted(names - aliases - module)}"
    # Every function's parameters (the module's text signatures) are the stub's.
    for fn, names_in_stub in params.items():
        sig = inspect.signature(getattr(_impact, fn))
        assert list(sig.parameters) == names_in_stub, fn


def test_package_reexports_everything_public():
    public = {n for n in dir(_impact) if not n.startswith("_")}
    python_only = {"outline"}  # written in Python, in __init__.py
    assert set(ic.__all__) == public | python_only
    assert all(callable(getattr(ic, n)) and n not in public for n in python_only)
    for n in public:
        assert getattr(ic, n) is getattr(_impact, n)
    assert inspect.ismodule(ic._impact)
