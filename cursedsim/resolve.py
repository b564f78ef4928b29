"""Resolution of what a run is given, below the runner, ``sides`` and ``contenders``: the game, its player
count, the policy (a game of sides: a policy per side, from a mapping or a ``hunter=tracker,town=coven``
label), the policy's parameters and the rule options, each checked with an error naming the valid
choices.

Everything here reads the game's record (``cursedsim.games``) and nothing above it, so the runner, the
side helpers, the contenders of a comparison and the statistics can all use it without importing each
other.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping
from typing import Any

import numpy as np

from cursedsim.describe import option_choices
from cursedsim.errors import CursedsimError, OptionError, RunError, UnknownGameError, UnknownPolicyError, shorten
from cursedsim.games import Game, get_game, list_games


# ---------------------------------------------------------------- values

def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (Python or numpy), not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_number(value: Any) -> bool:
    """Whether ``value`` is an integer or a float (Python or numpy), not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


# ---------------------------------------------------------------- games, policies, options

def resolve_game(game: str | Game) -> Game:
    """A Game from a registered name (or a Game passed through)."""
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        return get_game(game)
    raise UnknownGameError(f"game must be a game name, got {shorten(game)}; valid games: {', '.join(list_games())}")


def check_finite(value: Any, what: str, error: type[CursedsimError] = RunError) -> float:
    """``value`` as a float, or ``error`` unless it is a finite number (not a bool)."""
    if not is_number(value) or not math.isfinite(float(value)):
        raise error(f"{what} must be a number (finite), got {shorten(value)}")
    return float(value)


def resolve_players(game: Game, players: Any) -> int:
    """The player count of a run: ``players``, or the game's default when None."""
    if players is None:
        players = game.default_players if game.default_players is not None else game.min_players
    return game.check_players(players)


def resolve_policy(game: Game, policy: Any, params: Mapping[str, Any] | None):
    """(policy name, parameter vector, overridden parameters as floats) of a run. For a game of sides
    each of the three is a dict by side, every side in ``game.sides`` order (``resolve_sides``)."""
    if game.sides:
        return resolve_sides(game, policy, params)
    name = game.default_policy if policy is None else policy
    if not isinstance(name, str) or name not in game.policies:
        raise UnknownPolicyError(f"unknown policy {shorten(policy)} for {game.name}; valid policies: "
                                 f"{', '.join(game.policies)}")
    spec = game.policy(name)
    vector, overrides = _policy_params(spec, params, f"policy {name!r}")
    return name, vector, overrides


def _policy_params(spec: Any, params: Any, owner: str) -> tuple[np.ndarray, dict[str, float]]:
    """(parameter vector, overrides as floats) of ``spec`` with ``params``; errors name ``owner``."""
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise UnknownPolicyError(f"params of {owner} must be a mapping of parameter names to numbers, got "
                                 f"{shorten(params)}; parameters of {spec.name}: {', '.join(spec.params) or 'none'}")
    overrides = {}
    for key, value in params.items():
        if not isinstance(key, str) or key not in spec.params:
            raise UnknownPolicyError(f"{owner} has no parameter {shorten(key)}; valid parameters: "
                                     f"{', '.join(spec.params) or 'none'}")
        overrides[key] = check_finite(value, f"parameter {key!r} of {owner}", UnknownPolicyError)
    return spec.param_vector(overrides), overrides


def resolve_sides(game: Game, policy: Any, params: Any):
    """(side -> policy name, side -> parameter vector, side -> overridden parameters) of a run of a game
    of sides, every side in ``game.sides`` order. ``policy``: None (every side its default), a mapping
    side -> policy name or the label ``"hunter=tracker,town=coven"``; a side left out plays its default.
    ``params``: side -> {parameter: value}. Errors name the valid sides, policies and parameters."""
    policy = side_mapping(game, policy, "give a policy per side")
    params = {} if params is None else params
    if not isinstance(params, Mapping):
        raise UnknownPolicyError(f"params of {game.name} must map sides ({', '.join(game.side_names)}) to "
                                 f"{{parameter: value}}, got {shorten(params)}")
    for side in params:
        game.side(side)   # an error naming the valid sides
    names, vectors, overrides = {}, {}, {}
    for side in game.sides:
        name = policy.get(side.name, side.default_policy)
        if not isinstance(name, str) or name not in side.policies:
            side.policy(name)   # an error naming the side's policies
        spec = side.policy(name)
        vectors[side.name], changed = _policy_params(spec, params.get(side.name), f"policy {name!r} of side "
                                                                                   f"{side.name!r}")
        names[side.name] = name
        if changed:
            overrides[side.name] = changed
    return names, vectors, overrides


def policy_specs(game: Game, policy: Any) -> Any:
    """What a game's ``run_chunk`` and ``replay`` get as ``policy``: the PolicySpec of a resolved policy
    name, or (a game of sides) side -> PolicySpec in ``game.sides`` order."""
    if game.sides:
        return {side.name: side.policy(policy[side.name]) for side in game.sides}
    return game.policy(policy)


def option_kinds(options_type: type) -> dict[str, tuple[type, bool]]:
    """Option name -> (base type bool, int, float or str; whether None is allowed), from the RuleOptions
    annotations."""
    hints = typing.get_type_hints(options_type)
    kinds = {}
    for field in dataclasses.fields(options_type):
        hint = hints.get(field.name, str)
        args = typing.get_args(hint)
        optional = type(None) in args
        base = next((a for a in args if a is not type(None)), hint) if args else hint
        kinds[field.name] = (base if base in (bool, int, float) else str, optional)
    return kinds


_KIND_NAMES = {bool: "true or false", int: "an integer", float: "a finite number", str: "a string"}


def option_kind(game: Game, name: Any, kinds: Mapping[str, tuple[type, bool]]) -> tuple[type, bool]:
    """``kinds[name]`` (``option_kinds``), or an OptionError naming the game's options."""
    if not isinstance(name, str) or name not in kinds:
        raise OptionError(f"unknown option {shorten(name)} for {game.name}; valid options: {', '.join(kinds)}")
    return kinds[name]


def option_value(game: Game, name: str, value: Any, kind: tuple[type, bool]) -> Any:
    """``value`` of option ``name`` as the plain Python type its annotation names (numpy scalars
    converted), or an OptionError."""
    base, optional = kind
    if value is None and optional:
        return None
    if base is bool and isinstance(value, (bool, np.bool_)):
        return bool(value)
    if base is int and is_int(value):
        return int(value)
    if base is float and is_number(value) and math.isfinite(float(value)):
        return float(value)
    if base is str and isinstance(value, str):
        return str(value)
    wanted = _KIND_NAMES[base] + (" or None" if optional else "")
    choices = option_choices(game.options_type).get(name)
    valid = f" (one of {', '.join(str(choice) for choice in choices)})" if choices and base is str else ""
    raise OptionError(f"option {name!r} of {game.name} takes {wanted}{valid}, got {shorten(value)}")


def make_options(game: Game, options: Any = None):
    """The game's RuleOptions from a dict (or passed through): names checked, numpy scalars accepted as
    the Python numbers they hold, types checked against the annotations, then the game's own checks."""
    if options is None or isinstance(options, game.options_type):
        return game.make_options(options)
    kinds = option_kinds(game.options_type)
    if not isinstance(options, Mapping):
        raise OptionError(f"options must be a mapping of option names to values, got {type(options).__name__}; "
                          f"valid options: {', '.join(kinds)}")
    values = {name: option_value(game, name, value, option_kind(game, name, kinds)) for name, value in options.items()}
    try:
        return game.make_options(values)
    except CursedsimError:
        raise
    except (TypeError, ValueError, OverflowError) as error:
        raise OptionError(f"options {shorten(values, 200)} are not valid for {game.name}: {error}") from None


# ---------------------------------------------------------------- sides

#: Joins the ``side=policy`` parts of a run's label.
LABEL_JOIN = ","


def policy_label(policy: Any) -> str:
    """A run's policy as one string: the name of a single-side game's policy, or
    ``hunter=tracker,town=coven`` for a mapping side -> policy name (in the mapping's order)."""
    if isinstance(policy, Mapping):
        return LABEL_JOIN.join(f"{side}={name}" for side, name in policy.items())
    return str(policy)


def parse_label(game: Any, text: str) -> dict[str, str]:
    """``"hunter=tracker,town=coven"`` (a frame's ``policy`` label) as ``{"hunter": "tracker", ...}``;
    an UnknownPolicyError naming the sides when ``text`` is not of that form (a bare policy name), except
    in a game whose one policy plays every side (``Game.one_policy_all_sides``): there ``"leader"`` is
    ``{"focus": "leader", "field": "leader"}``."""
    if getattr(game, "one_policy_all_sides", False) and is_bare_policy(game, text):
        return {side: text.strip() for side in game.side_names}
    pairs = {}
    for part in text.split(LABEL_JOIN):
        side, sep, name = part.partition("=")
        if not sep or not side.strip() or not name.strip():
            raise UnknownPolicyError(
                f"{game.name} has sides ({', '.join(game.side_names)}): give a policy per side, as a mapping "
                f"{{side: policy}} or 'side=policy,...' (e.g. {example(game)}), got {shorten(text)}")
        if side.strip() in pairs:
            raise UnknownPolicyError(f"side {side.strip()!r} is given twice in {shorten(text)}")
        pairs[side.strip()] = name.strip()
    return pairs


def is_bare_policy(game: Any, text: str) -> bool:
    """Whether ``text`` names one policy (``leader`` or ``leader:heal_at=3``) rather than ``side=policy``
    pairs: it is not empty, has no ``,`` and nothing before its first ``=`` is a side's name."""
    text = text.strip()
    return bool(text) and LABEL_JOIN not in text and text.partition("=")[0].strip() not in game.side_names


def side_mapping(game: Any, policy: Any, what: str) -> dict[str, Any]:
    """``policy`` (None, a mapping side -> policy, or a label ``"hunter=tracker"``) as a dict whose keys are
    sides of ``game``; an UnknownPolicyError naming the sides otherwise (``what``: what was expected)."""
    if policy is None:
        return {}
    if isinstance(policy, str):
        policy = parse_label(game, policy)
    if not isinstance(policy, Mapping):
        raise UnknownPolicyError(f"{game.name} has sides ({', '.join(game.side_names)}): {what}, e.g. "
                                 f"{{'{game.sides[0].name}': ...}} or '{example(game)}', got {shorten(policy)}")
    for side in policy:
        game.side(side)   # an error naming the valid sides
    return dict(policy)


def example(game: Any) -> str:
    """``hunter=<default>,town=<default>``: the label of the sides' defaults, for messages."""
    return policy_label({side.name: side.default_policy for side in game.sides})


def win_columns(game: Any) -> dict[str, str]:
    """Side name -> its win column (empty for a single-side game)."""
    return {side.name: side.win_column for side in game.sides}


def summary_args(game: Any, side: str | None = None) -> dict[str, Any]:
    """The keyword arguments of ``stats.summarize`` (and ``RunSummary.summarize``) for ``game``: the win
    column of ``side`` (a game of sides without one: its first side's) and, for a game of sides, every
    side's win column (``<side>_wins``, ``<side>_win_rate``, ``<side>_ci_low``, ``<side>_ci_high``)."""
    if not game.sides:
        return {"win": "win"}
    return {"win": game.win_column(side or game.sides[0].name), "sides": win_columns(game)}


__all__ = ["LABEL_JOIN", "check_finite", "example", "is_bare_policy", "is_int", "is_number", "make_options",
           "option_kind", "option_kinds", "option_value", "parse_label", "policy_label", "policy_specs", "resolve_game",
           "resolve_players", "resolve_policy", "resolve_sides", "side_mapping", "summary_args", "win_columns"]
