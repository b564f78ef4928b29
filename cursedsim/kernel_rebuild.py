"""Kernels around a user's policy: recompile a kernel's policy-calling functions over a namespace in
which ``pol`` names the user's numba functions, so the rule code stays the built-in kernel's.

Numba cannot cache functions built at run time, so such a kernel compiles once per process; each
game's ``user_policies`` keeps the built kernels per process (a worker unpickles the policy anew with
every chunk).
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from typing import Any

from numba import njit


def rebuild(module_globals: Mapping[str, Any], callers: Iterable[str], policy_functions: Mapping[str, Any]):
    """A namespace holding fresh njit copies of the functions ``callers`` (names in ``module_globals``,
    callees before their callers) in which ``pol`` is a module of ``policy_functions``; each copy keeps
    its original's ``inline`` option. Returns the namespace (take the entry point from it)."""
    user = types.ModuleType("user_policy")
    for name, function in policy_functions.items():
        setattr(user, name, function)
    namespace = dict(module_globals, pol=user)
    for name in callers:
        original = module_globals[name]
        function = types.FunctionType(original.py_func.__code__, namespace, name)
        namespace[name] = njit(inline=original.targetoptions.get("inline", "never"))(function)
    return namespace


__all__ = ["rebuild"]
