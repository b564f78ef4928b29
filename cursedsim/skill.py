"""The skill curve of a game: its win rate against the search budget of ``rollout``, beside the heuristics.

A heuristic's win rate is what a rule of thumb wins, not what the game gives a skilled player. The curve
plays every built-in heuristic of the side, then ``rollout`` at each budget ``n`` (playouts per candidate)
of ``budgets`` and, while the last doubling of effort still raised the win rate by more than its
interval, at four times the budget, up to ``max_n``; all on the same games, so each step and the gap to
the best heuristic are paired differences. The strongest point measured is a lower bound on skilled
play (a stronger search may exist); ``saturated`` says whether the last step rose within its interval.

``cursedsim ceiling GAME`` prints it; reports and the README quote its strongest point.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim import stats
from cursedsim.errors import CursedsimError
from cursedsim.games import Game, get_game

#: The search policy of the curve and its budgets.
SEARCH = "rollout"
DEFAULT_BUDGETS = (1, 4, 16, 64, 256)
#: The curve goes past its budgets (x4 each step) while it still rises, up to this.
MAX_N = 1024


class SkillError(CursedsimError):
    """A skill curve that cannot be played as asked (no search for the side, bad budgets)."""


@dataclass
class SkillCurve:
    """The curve of one setting: ``table`` has one row per contender (``label``, ``kind`` heuristic or
    search, ``n``, ``games``, ``win_rate`` with its 95% interval ``ci_low``/``ci_high``, the paired
    difference to the best heuristic ``vs_best`` with ``vs_low``/``vs_high``, the paired step from the
    previous budget ``step`` with ``step_low``/``step_high``, and ``seconds`` of wall time)."""

    game: str
    players: int
    side: str | None
    options: Mapping[str, Any]
    games: int
    seed: int
    table: pd.DataFrame
    saturated: bool
    best_heuristic: str
    base: Mapping[str, float] = field(default_factory=dict)

    def strongest(self) -> pd.Series:
        """The search row with the highest win rate (the lower bound on skilled play)."""
        search = self.table[self.table["kind"] == "search"]
        return search.loc[search["win_rate"].idxmax()]

    def summary(self) -> str:
        """One sentence: the strongest point, the best heuristic, whether the curve saturated."""
        top = self.strongest()
        best = self.table[self.table["label"] == self.best_heuristic].iloc[0]
        where = f"{self.side} " if self.side else ""
        return (f"{self.game}, {self.players} players: {where}{top['label']} wins {100 * top['win_rate']:.1f}% "
                f"[{100 * top['ci_low']:.1f}, {100 * top['ci_high']:.1f}] (a lower bound on skilled play), "
                f"{100 * top['vs_best']:+.1f} points over the best heuristic {self.best_heuristic} "
                f"({100 * best['win_rate']:.1f}%); "
                + ("saturated: the last budget step's gain is within its interval (on these games)."
                   if self.saturated else f"still rising at n={int(self.table['n'].max())} (stopped at max_n)."))


def heuristics_of(game: Game, side: str | None) -> list[str]:
    """The built-in heuristics of ``side``: kernel policies that are neither a search nor a user's."""
    return [name for name, spec in game.policies_of(side).items()
            if spec.engine == "kernel" and spec.impl is None and name != SEARCH]


def _win_column(game: Game, side: str | None) -> str:
    if not game.sides:
        return "win"
    from cursedsim.sides import summary_args
    return summary_args(game)["sides"][side]


def _check(game: Game, side: str | None, budgets: Sequence[int], games: int, max_n: int) -> str | None:
    if game.sides:
        if side is None:
            side = game.side_names[0]
        if side not in game.side_names:
            raise SkillError(f"{game.name} has no side {side!r}; valid sides: {', '.join(game.side_names)}")
    elif side is not None:
        raise SkillError(f"{game.name} has no sides (got side={side!r}); leave it out")
    if SEARCH not in game.policies_of(side):
        raise SkillError(f"{game.name}{' ' + side if side else ''} has no '{SEARCH}' policy yet; policies: "
                         f"{', '.join(game.policies_of(side))}")
    if not budgets or any(isinstance(n, bool) or int(n) != n or n < 1 for n in budgets):
        raise SkillError(f"budgets must be whole numbers >= 1, got {list(budgets)!r}")
    if list(budgets) != sorted(set(budgets)):
        raise SkillError(f"budgets must increase, got {list(budgets)!r}")
    if isinstance(games, bool) or int(games) != games or games < 2:
        raise SkillError(f"games must be a whole number >= 2 (the intervals are paired), got {games!r}")
    if max_n < max(budgets):
        raise SkillError(f"max_n ({max_n}) must be at least the largest budget ({max(budgets)})")
    return side


def skill_curve(game: str | Game, *, players: int | None = None, side: str | None = None,
                options: Mapping[str, Any] | None = None, others: Mapping[str, str] | None = None,
                budgets: Sequence[int] = DEFAULT_BUDGETS, games: int = 2_000, seed: int = 0, n_jobs: int = 1,
                base: Mapping[str, float] | None = None, extend: bool = True, max_n: int = MAX_N,
                out: str | os.PathLike | None = None, progress: bool | None = None,
                echo=None) -> SkillCurve:
    """Play the skill curve of ``game`` (``side`` of a game of sides; the other sides play ``others`` or
    their defaults) on games ``0..games-1`` of ``seed``. ``base``: rollout parameters besides ``n``
    (e.g. ``{"base": 2}``). ``out``: a directory; each contender's games are a resumable run under it.
    ``echo``: called with each finished row (a dict), e.g. to print progress."""
    from cursedsim.runner import resolve_players, simulate
    game = get_game(game) if isinstance(game, str) else game
    side = _check(game, side, budgets, games, max_n)
    players = resolve_players(game, players)
    win = _win_column(game, side)
    base = dict(base or {})
    if "n" in base:
        raise SkillError("base sets the rollout's other parameters; its n is the curve's budget")

    def play(label: str, policy: str, params: Mapping[str, float]) -> tuple[np.ndarray, float]:
        pol: Any = policy if not game.sides else {**(others or {}), side: policy}
        par: Any = dict(params) if not game.sides else {side: dict(params)}
        run_out = None if out is None else os.path.join(os.fspath(out), "cells", label.replace(":", "_"))
        started = time.perf_counter()
        frame = simulate(game, games, players=players, policy=pol, params=par or None, options=options, seed=seed,
                         n_jobs=n_jobs, out=run_out, progress=progress)
        wins = frame.sort_values("game_index")[win].to_numpy(dtype=np.float64)
        return wins, time.perf_counter() - started

    rows: list[dict[str, Any]] = []
    results: dict[str, np.ndarray] = {}

    def add(label: str, kind: str, n: int | None, wins: np.ndarray, seconds: float, previous: str | None) -> None:
        low, high = stats.wilson_interval(int(wins.sum()), wins.size)
        row = {"label": label, "kind": kind, "n": n, "games": int(wins.size), "win_rate": float(wins.mean()),
               "ci_low": float(low), "ci_high": float(high), "seconds": seconds}
        if previous is not None:
            step = stats.paired_difference(wins, results[previous])
            row.update(step=step["diff"], step_low=step["ci_low"], step_high=step["ci_high"])
        results[label] = wins
        rows.append(row)
        if echo is not None:
            echo(row)

    for name in heuristics_of(game, side):
        wins, seconds = play(name, name, {})
        add(name, "heuristic", None, wins, seconds, None)
    best = max((r for r in rows), key=lambda r: r["win_rate"])["label"]
    previous = None
    saturated = False
    budget_list = [int(n) for n in budgets]
    i = 0
    while i < len(budget_list):
        n = budget_list[i]
        label = f"{SEARCH}:n={n}" + "".join(f",{k}={v:g}" for k, v in base.items())
        wins, seconds = play(label, SEARCH, {**base, "n": n})
        add(label, "search", n, wins, seconds, previous)
        if i == len(budget_list) - 1:
            rising = previous is not None and rows[-1]["step_low"] > 0
            if extend and rising and n * 4 <= max_n:
                budget_list.append(n * 4)
            else:
                saturated = previous is not None and not rising
        previous = label
        i += 1
    table = pd.DataFrame(rows)
    for r_label, r_wins in results.items():
        d = stats.paired_difference(r_wins, results[best])
        table.loc[table["label"] == r_label, ["vs_best", "vs_low", "vs_high"]] = (d["diff"], d["ci_low"],
                                                                                  d["ci_high"])
    return SkillCurve(game=game.name, players=players, side=side, options=dict(options or {}), games=games,
                      seed=seed, table=table, saturated=saturated, best_heuristic=best, base=base)


def write_csv(curve: SkillCurve, path: str | os.PathLike) -> None:
    """The curve's table with its setting as columns, written through a temporary file and a rename."""
    table = curve.table.drop(columns="seconds")   # a resumed run's seconds say nothing: speed is benchmarks/'
    table.insert(0, "side", curve.side or "")
    table.insert(0, "players", curve.players)
    table.insert(0, "game", curve.game)
    table["seed"] = curve.seed
    table["saturated"] = curve.saturated
    for key, value in curve.options.items():
        table[f"option_{key}"] = value
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    table.to_csv(tmp, index=False, float_format="%.6g")
    os.replace(tmp, path)


__all__ = ["DEFAULT_BUDGETS", "MAX_N", "SEARCH", "SkillCurve", "SkillError", "heuristics_of", "skill_curve",
           "write_csv"]
