"""Games of sides (the hunter against the town): a run names a policy per side, and a research tool
varies one side's policy while the others stay fixed.

A run's ``policy`` is then a mapping side -> policy name (``{"hunter": "tracker", "town": "coven"}``; a
side left out plays its default) or the same as the frame's label, ``"hunter=tracker,town=coven"``;
``params`` maps a side to its parameter overrides (``{"town": {"risk": 0.3}}``). A single policy name
is an error naming the sides (a policy belongs to one side), except in a game whose sides are seats of
one game (``Game.one_policy_all_sides``, Cursed Gifts' ``focus`` and ``field``): it plays every side. The frame labels the run
``policy="hunter=tracker,town=coven"`` and adds one ``policy_<side>`` column per side and
``param_<side>_<name>`` per overridden parameter (``frame_columns``).

``Varying`` is what ``compare``, ``sweep``, ``tune`` and ``target`` hold for a game of sides: the side
whose policy (or parameters) they vary, and the policies and parameters of the other sides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.contenders import parse_policies
from cursedsim.errors import UnknownPolicyError, shorten
from cursedsim.resolve import (LABEL_JOIN, example, is_bare_policy, parse_label, policy_label,  # noqa: F401
                               resolve_policy, side_mapping, summary_args, win_columns)


def frame_columns(game: Any, names: Mapping[str, str], overrides: Mapping[str, Mapping[str, float]],
                  n: int) -> dict[str, Any]:
    """The policy columns of ``n`` games of a game of sides: ``policy`` (the label), ``policy_<side>`` per
    side (categorical) and ``param_<side>_<name>`` (float64) per overridden parameter."""
    def constant(value: str) -> pd.Categorical:
        return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[value])

    columns: dict[str, Any] = {"policy": constant(policy_label(names))}
    for side in game.sides:
        columns[f"policy_{side.name}"] = constant(names[side.name])
    for side in game.sides:
        for name, value in overrides.get(side.name, {}).items():
            columns[f"param_{side.name}_{name}"] = np.full(n, value, dtype=np.float64)
    return columns


# ---------------------------------------------------------------- varying one side

@dataclass(frozen=True)
class Varying:
    """What a research tool varies in a game of sides: ``side``, whose policy or parameters change
    between contenders (cells, candidates), and the ``fixed`` policies of the other sides with their
    ``fixed_params``. For a single-side game ``side`` is None and nothing is fixed: ``policy(name)`` and
    ``params(p)`` give back what they get, so a tool calls ``simulate`` the same way for both."""

    side: str | None = None
    fixed: Mapping[str, str] = field(default_factory=dict)
    fixed_params: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    win: str = "win"

    def policy(self, name: str) -> Any:
        """``simulate``'s ``policy`` when the varied side plays ``name``."""
        return name if self.side is None else {**self.fixed, self.side: name}

    def params(self, params: Mapping[str, float] | None) -> Any:
        """``simulate``'s ``params`` when the varied side's parameters are ``params``."""
        if self.side is None:
            return dict(params) if params else None
        merged = {side: dict(values) for side, values in self.fixed_params.items() if values}
        if params:
            merged[self.side] = dict(params)
        return merged or None

    def describe(self) -> str:
        """``hunter varies; town=coven:risk=0.3`` ('' for a single-side game)."""
        if self.side is None:
            return ""
        fixed = [f"{side}={name}" + _param_text(self.fixed_params.get(side, {})) for side, name in self.fixed.items()]
        return f"{self.side} varies" + (f"; {', '.join(fixed)}" if fixed else "")

    def others(self) -> dict[str, dict[str, Any]]:
        """The other sides as ``resolve_varying``'s ``others`` takes them back: side -> {policy, params}."""
        return {side: {"policy": name, "params": dict(self.fixed_params.get(side, {}))}
                for side, name in self.fixed.items()}

    def settings(self) -> dict[str, Any]:
        """The JSON-ready record of what varies (empty for a single-side game)."""
        if self.side is None:
            return {}
        return {"side": self.side, "fixed": dict(self.fixed),
                "fixed_params": {side: dict(values) for side, values in self.fixed_params.items() if values}}


def _param_text(params: Mapping[str, float]) -> str:
    return (":" + ",".join(f"{k}={v:g}" for k, v in params.items())) if params else ""


def resolve_varying(game: Any, side: Any = None, others: Any = None, params: Any = None) -> Varying:
    """The Varying of a research tool: ``side`` (a game of sides: the varied side; None: the one side
    ``others`` leaves out, if exactly one), ``others`` the other sides' policies (a mapping side -> name,
    ``"name:param=value,..."`` or ``{"policy": name, "params": {...}}``, or a label ``"town=coven"``; a
    side left out plays its default) and ``params`` more of their parameters (``{side: {name: value}}``).
    A single-side game takes none of them."""
    policy = others
    if not game.sides:
        if side is not None or policy is not None or params is not None:
            raise UnknownPolicyError(f"{game.name} has no sides (one policy plays every seat): leave out side and "
                                     f"the other sides' policies (others), got side {shorten(side)}")
        return Varying()
    valid = ", ".join(game.side_names)
    policy = side_mapping(game, policy, "others gives the other sides' policies by side")
    if side is None:
        left = [name for name in game.side_names if name not in policy]
        if len(left) != 1:
            raise UnknownPolicyError(f"{game.name} has sides ({valid}): name the side whose policy varies "
                                     "(side=..., --side)")
        side = left[0]
    side = game.side(side).name
    if side in policy:
        raise UnknownPolicyError(f"side {side!r} varies: leave it out of the fixed sides' policies "
                                 f"({', '.join(policy)})")
    fixed, fixed_params = {}, {}
    for other in game.sides:
        if other.name == side:
            continue
        entry = policy.get(other.name, other.default_policy)
        (parsed,) = parse_policies(game, [entry], side=other.name)
        fixed[other.name] = parsed.policy
        fixed_params[other.name] = dict(parsed.params)
    if params is not None:
        if not isinstance(params, Mapping):
            raise UnknownPolicyError(f"params must map the fixed sides to {{parameter: value}}, got {shorten(params)}")
        for name, values in params.items():
            game.side(name)
            if name == side:
                raise UnknownPolicyError(f"side {side!r} varies: its parameters belong to the contenders, not to "
                                         "the fixed params")
            if not isinstance(values, Mapping):
                raise UnknownPolicyError(f"params of side {name!r} must map parameter names to numbers, "
                                         f"got {shorten(values)}")
            fixed_params[name] = {**fixed_params[name], **values}
    resolve_policy(game, {**fixed, side: game.side(side).default_policy}, fixed_params)   # names and values
    return Varying(side, fixed, {k: {n: float(v) for n, v in vs.items()} for k, vs in fixed_params.items()},
                   game.win_column(side))


__all__ = ["LABEL_JOIN", "Varying", "example", "is_bare_policy", "frame_columns", "parse_label", "policy_label", "resolve_varying",
           "side_mapping", "summary_args", "win_columns"]
