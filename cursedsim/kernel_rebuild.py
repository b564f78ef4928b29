"""Kernels around a user's policy: recompile a kernel's policy-calling functions over a namespace in
which ``pol`` names the user's numba functions, so the rule code stays the built-in kernel's.

Every rebuild lives in a module of its own, with a name no other rebuild or process uses, registered
in ``sys.modules``. Numba names a compiled function's symbol after its module, qualified name and a
per-process counter; a copy that kept the built-in kernel's module name could get the very symbol of
the built-in kernel loaded from the on-disk cache, and whichever was linked first would then play for
both (a user policy's decisions inside a built-in policy's games, or the reverse).

A user's decision functions are merged into the game loop (``merged``: numba's ``inline="always"``), as
the built-in policies' are, so a user's policy runs on the same fast path (no call with the whole view
copied at every decision); the price is a longer first compile, which grows with the policy's size.

Numba cannot cache functions built at run time, so such a kernel compiles once per process; each
game's ``user_policies`` keeps the built kernels per process (a worker unpickles the policy anew with
every chunk).
"""

from __future__ import annotations

import sys
import types
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from numba import njit


def merged(function):
    """``function`` (a numba function) as a copy that numba inlines where it is called, with the
    function's other compile options; a plain Python function, or one inlined already, unchanged."""
    options = getattr(function, "targetoptions", None)
    if options is None or options.get("inline") == "always":
        return function
    kept = {key: value for key, value in options.items() if key != "nopython"}
    return njit(**{**kept, "inline": "always"})(function.py_func)


def rebuild(module_globals: Mapping[str, Any], callers: Iterable[str], policy_functions: Mapping[str, Any]):
    """A namespace holding fresh njit copies of the functions ``callers`` (names in ``module_globals``,
    callees before their callers) in which ``pol`` is a module of ``policy_functions``; each copy keeps
    its original's default arguments and its ``inline`` and ``_nrt`` options, and lives in a new uniquely
    named module (see the module docstring). Returns the namespace (take the entry point from it)."""
    unique = uuid.uuid4().hex
    user = types.ModuleType(f"cursedsim_user_policy_{unique}")
    for name, function in policy_functions.items():
        setattr(user, name, function)
    home = types.ModuleType(f"{module_globals['__name__']}_rebuilt_{unique}")
    namespace = home.__dict__
    namespace.update((key, value) for key, value in module_globals.items() if not key.startswith("__"))
    namespace["pol"] = user
    sys.modules[home.__name__] = home  # numba takes a function's module name from sys.modules
    for name in callers:
        original = module_globals[name]
        function = types.FunctionType(original.py_func.__code__, namespace, name, original.py_func.__defaults__)
        function.__qualname__ = original.py_func.__qualname__
        options = {"inline": original.targetoptions.get("inline", "never")}
        if "_nrt" in original.targetoptions:   # an original without reference counting stays without
            options["_nrt"] = original.targetoptions["_nrt"]
        namespace[name] = njit(**options)(function)
    return namespace


__all__ = ["merged", "rebuild"]
