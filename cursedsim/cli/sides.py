"""The command line of a game of sides: ``--policy SIDE=POLICY[:param=value,...]`` (repeatable; a side
given several policies is the one that varies, ``--side`` names it when that is ambiguous), ``--param
SIDE.NAME=VALUE`` (or ``NAME=VALUE``: every chosen policy of any side that has it) and the table cells
that show every side's win rate.

``parse_sides`` turns the texts into a ``SidePolicies``: per side, in ``game.sides`` order, the
policies chosen (a side not named plays its default) as ``Contender``s (label, policy, parameters).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click

from cursedsim.cli.grid import CliError, finite, parse_number_values, split_pair
from cursedsim.contenders import Contender, parse_policies, param_text
from cursedsim.sides import is_bare_policy

#: ``--side``: the side whose policy (or parameters) a command varies.
SIDE_HELP = "A game of sides: the side whose policy varies (default: the side given several --policy)."


def side_option() -> Any:
    """The ``--side NAME`` click option (a game of sides; the varied side when that is ambiguous)."""
    return click.option("--side", "side", metavar="SIDE", default=None, help=SIDE_HELP)


@dataclass(frozen=True)
class SidePolicies:
    """The policies chosen per side (``chosen``: side -> Contenders, every side in order, a side not named
    on the command line with its default) and the side that varies (None when none does)."""

    game: Any
    chosen: dict[str, list[Contender]]
    varied: str | None
    #: Bare ``--policy NAME`` of a game whose one policy plays every side: the i-th run plays every
    #: side's i-th policy (the same one), instead of every combination.
    together: bool = False

    def runs(self) -> list[tuple[dict[str, str], dict[str, dict[str, float]], dict[str, str]]]:
        """Every combination of the sides' policies, the varied side fastest (``together``: each policy at
        every side): (policy per side, params per side, label per side) as ``simulate`` takes them."""
        result = []
        combos = zip(*self.chosen.values()) if self.together else itertools.product(*self.chosen.values())
        for combo in combos:
            sides = dict(zip(self.chosen, combo))
            result.append(({side: c.policy for side, c in sides.items()},
                           {side: dict(c.params) for side, c in sides.items() if c.params},
                           {side: c.label for side, c in sides.items()}))
        return result

    def others(self) -> dict[str, dict[str, Any]]:
        """The sides other than the varied one, as the API's ``others`` takes them."""
        return {side: {"policy": c[0].policy, "params": dict(c[0].params)}
                for side, c in self.chosen.items() if side != self.varied}

    def fixed_text(self) -> str:
        """``town=coven:risk=0.3``: what the other sides play."""
        return ", ".join(f"{side}={c[0].label}" for side, c in self.chosen.items() if side != self.varied)


def parse_sides(game, texts: Sequence[str], param_texts: Sequence[str] = (), side: str | None = None, *,
                vary: bool = True) -> SidePolicies:
    """``--policy SIDE=POLICY[:p=v,...]`` texts (and ``--param SIDE.NAME=VALUE`` / ``NAME=VALUE``, one
    number each, added to every chosen policy of the side that has the parameter) of a game of sides.
    ``vary``: at most one side may have several policies, and it (or ``side``) is the varied one."""
    if side is not None:
        game.side(side)   # an error naming the sides
    named: dict[str, list[str]] = {}
    bare = [text.strip() for text in texts if is_bare_policy(game, text)]
    if bare and game.one_policy_all_sides:   # --policy leader[:param=value]: that policy at every seat
        if len(bare) != len(texts):
            raise CliError(f"give either bare policies (each plays every side of {game.name}) or SIDE=POLICY, "
                           f"not both; got {', '.join(repr(t) for t in texts)}")
        if vary:
            raise CliError(f"this command varies one side's policy: give --policy SIDE=POLICY (sides of "
                           f"{game.name}: {', '.join(game.side_names)}); a bare policy plays every side")
        unique = list(dict.fromkeys(bare))
        chosen = {s.name: parse_policies(game, unique, s.name) for s in game.sides}
        _add_params(game, chosen, param_texts)
        return SidePolicies(game, chosen, None, together=True)
    for text in texts:
        name, sep, rest = text.partition("=")
        if not sep or not name.strip() or not rest.strip():
            raise CliError(f"{game.name} has sides ({', '.join(game.side_names)}): --policy takes "
                           f"SIDE=POLICY[:param=value,...], e.g. --policy {game.sides[0].name}="
                           f"{game.sides[0].default_policy}; got {text!r}")
        game.side(name.strip())
        entries = named.setdefault(name.strip(), [])
        if rest.strip() not in entries:
            entries.append(rest.strip())
    chosen = {s.name: parse_policies(game, named.get(s.name, [s.default_policy]), s.name) for s in game.sides}
    _add_params(game, chosen, param_texts)
    several = [name for name, entries in chosen.items() if len(entries) > 1]
    if vary and len(several) > 1:
        raise CliError(f"give several --policy to one side only (the side that varies); got several for "
                       f"{' and '.join(several)}")
    if vary and side is not None and several and several != [side]:
        raise CliError(f"--side {side} varies, but side {several[0]!r} is given several policies")
    varied = side if side is not None else (several[0] if several else None)
    for entries in chosen.values():
        labels = [entry.label for entry in entries]
        if len(set(labels)) != len(labels):
            raise CliError(f"policy {labels[0]!r} is given twice")
    return SidePolicies(game, chosen, varied)


def _add_params(game, chosen: dict[str, list[Contender]], texts: Sequence[str]) -> None:
    """``--param SIDE.NAME=VALUE`` or ``NAME=VALUE`` into the chosen policies that have the parameter."""
    for text in texts:
        key, value = split_pair(text, "--param")
        side, dot, name = key.rpartition(".")
        sides = [game.side(side).name] if dot else list(chosen)
        number = finite(value, f"parameter {name!r}")
        hit = False
        for owner in sides:
            for i, entry in enumerate(chosen[owner]):
                if name in game.policy(entry.policy, owner).params:
                    params = {**entry.params, name: number}
                    label = entry.policy + param_text(params)
                    chosen[owner][i] = Contender(label, entry.policy, params)
                    hit = True
        if not hit:
            where = f"side {side!r}" if dot else "any side"
            valid = sorted({f"{owner}.{p}" for owner in sides for entry in chosen[owner]
                            for p in game.policy(entry.policy, owner).params})
            raise CliError(f"no chosen policy of {where} has a parameter {name!r}; valid parameters: "
                           f"{', '.join(valid) or 'none'}")


def varied_side(game, parsed: SidePolicies, what: str) -> str:
    """The side a command varies: ``parsed.varied``, or a CliError asking for ``--side``."""
    if parsed.varied is None:
        raise CliError(f"{game.name} has sides ({', '.join(game.side_names)}): {what} one side's policy; give that "
                       f"side several --policy SIDE=POLICY, or name it with --side")
    return parsed.varied


def sweep_params(game, parsed: SidePolicies, texts: Sequence[str]) -> dict[str, dict[str, list[float]]]:
    """``--param [SIDE.|POLICY.]NAME=VALUES`` of a sweep of a game of sides: the varied side's policies'
    parameter values as ``{policy: {name: [values]}}``; a parameter of another side takes one value and
    goes into that side's fixed policy (``parsed`` is updated)."""
    side = parsed.varied
    grid: dict[str, dict[str, list[float]]] = {}
    fixed_texts = []
    for text in texts:
        key, value = split_pair(text, "--param")
        owner, dot, name = key.rpartition(".")
        if dot and owner in game.side_names and owner != side:
            fixed_texts.append(text)
            continue
        policies = [c.policy for c in parsed.chosen[side]]
        if dot and owner not in game.side_names and owner not in policies:
            raise CliError(f"--param {key}: {owner!r} is neither a side ({', '.join(game.side_names)}) nor a swept "
                           f"policy of {side} ({', '.join(policies)})")
        takers = [p for p in policies if (not dot or owner in (side, p)) and name in game.policy(p, side).params]
        if not takers:
            valid = sorted({n for p in policies for n in game.policy(p, side).params})
            raise CliError(f"no swept policy of {side} has a parameter {name!r}; valid parameters: "
                           f"{', '.join(valid) or 'none'}")
        values = parse_number_values(value, f"parameter {name!r}")
        for taker in takers:
            if name in grid.get(taker, {}):
                raise CliError(f"parameter {name!r} of policy {taker!r} is given twice")
            grid.setdefault(taker, {})[name] = values
    _add_params(game, parsed.chosen, fixed_texts)
    return grid


# ---------------------------------------------------------------- table cells

def side_headers(game) -> list[str]:
    """``hunter wins % [95% CI]`` per side."""
    return [f"{side.name} wins % [95% CI]" for side in game.sides]


def side_cells(game, row: Any) -> list[str]:
    """Every side's win rate with its interval, in percent (a row of ``summarize(..., sides=...)``)."""
    from cursedsim.cli.tables import pp
    return [f"{pp(row[f'{s.name}_win_rate'])} [{pp(row[f'{s.name}_ci_low'])}, {pp(row[f'{s.name}_ci_high'])}]"
            for s in game.sides]


__all__ = ["SIDE_HELP", "SidePolicies", "parse_sides", "side_cells", "side_headers", "side_option", "sweep_params",
           "varied_side"]
