"""Who plays in a comparison: the contenders (a policy with its parameters, and the values of the rule
options that vary), their labels, and the one a ``reference=`` names.

``compare`` crosses every policy with every combination of the varied options' values; all of them
play the same games, so any two differ only by what their labels say.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cursedsim.describe import value_text
from cursedsim.errors import CompareError, OptionError, UnknownPolicyError, shorten
from cursedsim.games import Game
from cursedsim.resolve import option_kind, option_kinds, option_value, resolve_policy

#: Joins the parts of a label: ``smart / seals=5``.
LABEL_JOIN = " / "


@dataclass(frozen=True)
class Contender:
    """One side of a comparison: a label, a policy name, parameter overrides and the values of the
    varied rule options it plays (empty when only policies vary)."""

    label: str
    policy: str
    params: Mapping[str, float]
    options: Mapping[str, Any] = field(default_factory=dict)


def parse_policies(game: Game, policies: Sequence[Any], side: str | None = None) -> list[Contender]:
    """Policies given as names, ``"name:param=value,..."`` strings or dicts with ``policy``, optional
    ``params`` and ``label``, checked against the game (names, parameter names, finite values); in a game
    of sides, policies of ``side``."""
    valid = _valid(game, side)
    if isinstance(policies, (str, bytes, Mapping)) or not isinstance(policies, Sequence):
        raise UnknownPolicyError(f"policies must be a list of two or more policies (names, 'name:param=value' or "
                                 f"dicts), or of one with vary=..., got {shorten(policies)}; {valid}")
    result = []
    for item in policies:
        if isinstance(item, Contender):
            entry = item
        elif isinstance(item, Mapping):
            entry = _policy_from_dict(item, valid)
        elif isinstance(item, str):
            entry = _policy_from_text(item)
        else:
            raise UnknownPolicyError(f"a policy to compare must be a name or a dict, got {shorten(item)}; {valid}")
        check_policy(game, entry.policy, entry.params, side)   # the name, parameter names and finite values
        result.append(entry)
    return result


def _valid(game: Game, side: str | None) -> str:
    """``valid policies: ...`` of the game, or of ``side`` (``valid policies of hunter: ...``)."""
    return f"valid policies{'' if side is None else ' of ' + side}: {', '.join(game.policies_of(side))}"


def check_policy(game: Game, policy: Any, params: Mapping[str, Any] | None, side: str | None = None) -> None:
    """An UnknownPolicyError unless ``policy`` with ``params`` is a policy of the game (of ``side`` in a
    game of sides) with parameters it has, finite."""
    if side is None:
        resolve_policy(game, policy, params)
    else:
        game.side(side)
        resolve_policy(game, {side: policy}, {side: params} if params else None)


def _policy_from_dict(item: Mapping[str, Any], valid: str) -> Contender:
    unknown = [key for key in item if key not in ("policy", "params", "label")]
    if "policy" not in item or unknown:
        raise UnknownPolicyError(f"a policy given as a dict takes the keys policy, params and label, got "
                                 f"{shorten(item)}; {valid}")
    params = item.get("params") or {}
    if not isinstance(params, Mapping):
        raise UnknownPolicyError(f"params of policy {shorten(item['policy'])} must map parameter names to "
                                 f"numbers, got {shorten(params)}")
    name = item["policy"]
    if not isinstance(name, str):
        raise UnknownPolicyError(f"unknown policy {shorten(name)}; {valid}")
    label = item.get("label") or (name + param_text(params))
    if not isinstance(label, str):
        raise UnknownPolicyError(f"the label of policy {name!r} must be a string, got {shorten(label)}")
    return Contender(label, name, dict(params))


def _policy_from_text(item: str) -> Contender:
    name, colon, rest = item.partition(":")
    params = {}
    if colon and not rest.strip():
        raise UnknownPolicyError(f"policy {item!r} has a ':' but no parameters; use NAME or NAME:param=value,...")
    for part in rest.split(",") if colon else ():
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise UnknownPolicyError(f"policy parameter {part!r} in {item!r} is not NAME=VALUE")
        try:
            params[key.strip()] = float(value)
        except ValueError:
            raise UnknownPolicyError(f"parameter {key.strip()!r} in {item!r} takes a number, "
                                     f"got {value.strip()!r}") from None
    return Contender(item, name.strip(), params)


def param_text(params: Mapping[str, float]) -> str:
    """``:name=value,...`` of parameter overrides (empty without any)."""
    return (":" + ",".join(f"{k}={v:g}" for k, v in params.items())) if params else ""


def contenders(game: Game, policies: Sequence[Any], side: str | None = None) -> list[Contender]:
    """Two or more policies (of ``side`` in a game of sides) with distinct labels (see ``parse_policies``)."""
    result = parse_policies(game, policies, side)
    labels = [c.label for c in result]
    if len(result) < 2 or len(set(labels)) != len(labels):
        raise UnknownPolicyError(f"compare needs two or more distinct policies, got {labels}; {_valid(game, side)}")
    return result


def option_values(game: Game, vary: Any, fixed: Mapping[str, Any]) -> dict[str, list[Any]]:
    """``vary`` (option name -> a value or a list of values) checked: known options, not also among the
    ``fixed`` ones, no value twice; values as the plain Python type of the option (numpy scalars
    converted). A value the option does not take is refused later, when the contenders' options are
    built."""
    if vary is None:
        return {}
    kinds = option_kinds(game.options_type)
    if not isinstance(vary, Mapping):
        raise OptionError(f"vary must map rule options to lists of values, got {shorten(vary)}; "
                          f"valid options: {', '.join(kinds)}")
    grid = {}
    for name, values in vary.items():
        kind = option_kind(game, name, kinds)
        if name in fixed:
            raise OptionError(f"option {name!r} is given both as fixed (options) and varied (vary); give it once")
        listed = [values] if isinstance(values, (str, bytes)) or not isinstance(values, Iterable) else list(values)
        if not listed:
            raise OptionError(f"vary lists no value for option {name!r}")
        plain = [option_value(game, name, value, kind) for value in listed]
        repeated = [v for i, v in enumerate(plain) if v in plain[:i]]
        if repeated:
            raise OptionError(f"vary lists the value {value_text(repeated[0])} of option {name!r} twice")
        grid[name] = plain
    return grid


def cross(game: Game, policies: list[Contender], grid: Mapping[str, list[Any]], side: str | None = None
          ) -> list[Contender]:
    """Every policy with every combination of the varied values (policy slowest, the last option fastest),
    labelled by what differs: the policy when there are several, ``name=value`` for each option with
    several values (``smart / seals=5``)."""
    names = list(grid)
    shown = [name for name in names if len(grid[name]) > 1]
    result = []
    for policy in policies:
        for combo in itertools.product(*(grid[name] for name in names)):
            options = dict(zip(names, combo))
            parts = ([policy.label] if len(policies) > 1 or not shown else []) + \
                [f"{name}={value_text(options[name])}" for name in shown]
            result.append(Contender(LABEL_JOIN.join(parts), policy.policy, dict(policy.params), options))
    labels = [c.label for c in result]
    if len(result) < 2 or len(set(labels)) != len(labels):
        raise UnknownPolicyError(f"compare needs two or more distinct contenders (policies, or values of the "
                                 f"options in vary), got {labels}; {_valid(game, side)}")
    return result


def lineup(game: Game, policies: Sequence[Any] | None, vary: Any, fixed: Mapping[str, Any], side: str | None = None
           ) -> tuple[list[Contender], dict[str, list[Any]], list[Contender]]:
    """(the policies, the varied options' values, the contenders) of a comparison: every policy (None: the
    game's default; of ``side`` in a game of sides) crossed with the values of ``vary``, checked before any
    game is played."""
    grid = option_values(game, vary, fixed)
    named = parse_policies(game, [game.default_policy_of(side)] if policies is None else policies, side)
    return named, grid, (cross(game, named, grid, side) if grid else contenders(game, named, side))


def find_reference(sides: list[Contender], reference: Any) -> Contender:
    """The contender ``reference`` names: its label, or parts of labels that only it has (a policy, an
    option value ``scroll`` or ``starting_item=scroll``, several joined by ``/``); None is the first."""
    if reference is None:
        return sides[0]
    labels = [side.label for side in sides]
    if isinstance(reference, Contender):
        reference = reference.label
    text = reference if isinstance(reference, str) else value_text(reference)
    if text in labels:
        return sides[labels.index(text)]
    wanted = {part.strip() for part in text.split("/")}
    matches = [side for side in sides if wanted <= _names_of(side)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise CompareError(f"reference {text!r} fits {len(matches)} contenders ({', '.join(m.label for m in matches)});"
                           f" give one of: {', '.join(labels)}")
    raise CompareError(f"reference {shorten(reference)} names no contender; give one of: {', '.join(labels)}")


def _names_of(side: Contender) -> set[str]:
    """What identifies a contender in a ``reference``: its policy (name, name with parameters, and the
    first part of its label, which is the policy's own label when policies vary), its option values
    alone and as ``name=value``."""
    names = {side.policy, side.policy + param_text(side.params), side.label.split(LABEL_JOIN)[0]}
    for name, value in side.options.items():
        names |= {value_text(value), f"{name}={value_text(value)}"}
    return names


__all__ = ["LABEL_JOIN", "Contender", "check_policy", "contenders", "cross", "find_reference", "lineup", "option_values",
           "param_text", "parse_policies"]
