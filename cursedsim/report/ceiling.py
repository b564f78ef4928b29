"""The skill-ceiling section every report ends with: per setting (a player count, a side, a mode) the
best built-in policy, ISMCTS at two budgets, and where a game has one the clairvoyant bound, all on the
same games, as intervals on one figure: the optimum lies between the best play found (achievable, a
lower bound) and the clairvoyant's win rate (an upper bound). docs/bounds.md says what each means.

Its runs live in the report's run folder (``ceiling/...``): the search runs resume by chunk like every
other run, the clairvoyant's per-game results from their own file.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.report.data import ReportError, Runs, run_name
from cursedsim.report.figures import ReportFigure, TextTable, error_bars, new_figure, pct, points

#: Search games per setting in a report (the CLI's ``--search-games``): ISMCTS plays slowly.
DEFAULT_SEARCH_GAMES = 100
#: The two ISMCTS budgets (iterations per decision) every setting plays.
BUDGETS = (10, 40)
#: The rollout budgets of a setting whose side has the compiled search, and its games per contender in a
#: default report (at most one per 100 games of the report's cells).
ROLLOUT_BUDGETS = (16, 64, 256)
ROLLOUT_GAMES = 2_000


def has_rollout(game: Any, setting: CeilingSetting | None = None, side: str | None = None) -> bool:
    """Whether the searched side of ``setting`` (or ``side``) has the compiled ``rollout`` search."""
    return "rollout" in game.policies_of(setting.side if setting is not None else side)


@dataclass(frozen=True)
class CeilingSetting:
    """One row of the figure: its ``label``, ``players``, the built-in ``heuristics`` of the bracketed side
    (the best of them on the same games is shown), that ``side`` (None: a single-side game, every seat),
    rule ``options`` and the policies of the other sides (``others``: side -> policy name)."""

    label: str
    players: int
    heuristics: tuple[str, ...]
    side: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    others: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CeilingPlan:
    """What a game's ceiling plays: its ``settings`` and the clairvoyant solver ``"module:function"``
    (``solve_chunk(seed, start, count, players, options) -> {"clairvoyant_won": ...}``) or None with
    ``no_bound``, why there is none."""

    settings: tuple[CeilingSetting, ...]
    clairvoyant: str | None = None
    no_bound: str = ""
    #: The two ISMCTS budgets (iterations per decision), and a cap on the search games per contender with
    #: its reason, for a game whose decisions are many and slow to search.
    budgets: tuple[int, ...] = BUDGETS
    max_games: int | None = None
    why_fewer: str = ""
    #: The rollout budgets (playouts per candidate) played where the searched side has ``rollout``; there it
    #: takes the place of ISMCTS (compiled, and stronger), on ``rollout_games`` games (the same for the
    #: heuristics beside it).
    rollout_budgets: tuple[int, ...] = ROLLOUT_BUDGETS

    def games(self, requested: int) -> int:
        """The search games per contender: ``requested``, capped by ``max_games``."""
        return requested if self.max_games is None else min(requested, self.max_games)


def _policy(game: Any, setting: CeilingSetting, name: str, params: Mapping[str, float] | None = None):
    """simulate's policy and params for ``name`` on the bracketed side, the others as the setting says."""
    if setting.side is None:
        return {"policy": name, "params": dict(params or {})}
    return {"policy": {**setting.others, setting.side: name}, "params": {setting.side: dict(params or {})}}


def _clairvoyant(plan: CeilingPlan, runs: Runs, setting: CeilingSetting, n: int,
                 path: str) -> tuple[np.ndarray, np.ndarray]:
    """The clairvoyant's per-game ``(won, exact)`` on games 0..n-1 (from its file in the run folder when
    there): ``exact`` False where the solver ran out of its budget and counted the game as won."""
    from cursedsim.files import write_via
    file = os.path.join(runs.folder, path, "clairvoyant.csv")
    if os.path.isfile(file):
        done = pd.read_csv(file)
        if len(done) == n and {"clairvoyant_won", "clairvoyant_exact"} <= set(done.columns):
            return done["clairvoyant_won"].to_numpy(bool), done["clairvoyant_exact"].to_numpy(bool)
    module, function = plan.clairvoyant.split(":")
    solve_chunk = getattr(importlib.import_module(module), function)
    options = runs.game.make_options(dict(setting.options))
    runs.log(f"ceiling {setting.label}: clairvoyant bound on {n:,} games")
    columns = solve_chunk(runs.seed, 0, n, setting.players, options)
    won = np.asarray(columns["clairvoyant_won"], dtype=bool)
    exact = np.asarray(columns["clairvoyant_exact"], dtype=bool)
    if np.any(~exact & ~won):
        raise ReportError(f"{runs.game.name} {setting.label}: the clairvoyant reported a game lost that it did "
                          "not settle: an unsettled game must count as won (report it); nothing was written")
    os.makedirs(os.path.dirname(file), exist_ok=True)
    frame = pd.DataFrame({"game_index": np.arange(n), "clairvoyant_won": won, "clairvoyant_exact": exact})
    write_via(file, lambda tmp: frame.to_csv(tmp, index=False))
    return won, exact


def collect(runs: Runs, plan: CeilingPlan, n_search: int, n_rollout: int = 0) -> pd.DataFrame:
    """Play the plan on games 0.. of the report's seed: one row per setting and contender (kind
    ``heuristic``, ``rollout``, ``ismcts`` or ``clairvoyant``) with wins, games, rate and Wilson interval, and
    for the bound ``settled``, the games its solver settled within its budget (the others count as won); a
    policy winning a game the bound lost is a ReportError. A setting whose side has ``rollout`` plays it at
    ``plan.rollout_budgets`` on ``n_rollout`` games (its heuristics too), else ISMCTS on ``n_search`` games;
    the bound plays ``n_search`` games (checked against every contender's first ``n_search``)."""
    from cursedsim.stats import wilson_interval
    game = runs.game
    n_search = plan.games(n_search)
    rows = []
    for setting in plan.settings:
        rollout = has_rollout(game, setting) and plan.rollout_budgets and n_rollout > 0
        n_played = n_rollout if rollout else n_search
        slug = f"ceiling/{run_name(setting.label)}-{n_played}"
        wins: dict[tuple[str, str], np.ndarray] = {}
        settled: int | None = None
        for name in setting.heuristics:
            frame = runs.simulate_n(f"{slug}/{name}", n_played, players=setting.players,
                                    options=dict(setting.options), **_policy(game, setting, name))
            wins[("heuristic", name)] = frame[game.win_column(setting.side)].to_numpy(bool)
        if rollout:
            for budget in plan.rollout_budgets:
                frame = runs.simulate_n(f"{slug}/rollout-{budget}", n_played, players=setting.players,
                                        options=dict(setting.options), chunk_size=max(1, n_played // 16),
                                        **_policy(game, setting, "rollout", {"n": budget}))
                wins[("rollout", f"rollout (n={budget})")] = frame[game.win_column(setting.side)].to_numpy(bool)
        else:
            for budget in plan.budgets:   # small chunks: a slow search run keeps every worker busy and resumes finely
                frame = runs.simulate_n(f"{slug}/ismcts-{budget}", n_search, players=setting.players,
                                        options=dict(setting.options), chunk_size=max(1, n_search // 8),
                                        **_policy(game, setting, "ismcts", {"iterations": budget}))
                wins[("ismcts", f"ismcts ({budget} iterations)")] = frame[game.win_column(setting.side)].to_numpy(bool)
        if plan.clairvoyant:
            bound, exact = _clairvoyant(plan, runs, setting, n_search, f"ceiling/{run_name(setting.label)}-{n_search}")
            settled = int(exact.sum())
            beaten = int(sum(np.sum(w[:n_search] & ~bound[:len(w)]) for w in wins.values()))
            if beaten:
                raise ReportError(f"{game.name} {setting.label}: a policy won {beaten} game(s) the clairvoyant "
                                  "bound lost: the bound is wrong (report it); nothing was written")
            wins[("clairvoyant", "clairvoyant bound")] = bound
        best = max(setting.heuristics, key=lambda name: (wins[("heuristic", name)].sum(), name))
        for (kind, label), won in wins.items():
            low, high = wilson_interval(int(won.sum()), len(won))
            row = {"setting": setting.label, "kind": kind, "contender": label, "games": len(won),
                   "wins": int(won.sum()), "rate": won.mean(), "ci_low": low, "ci_high": high,
                   "best_heuristic": kind == "heuristic" and label == best}
            if kind == "clairvoyant":
                row["settled"] = settled
            rows.append(row)
    return pd.DataFrame(rows)


def strongest(table: pd.DataFrame, setting: str) -> pd.Series | None:
    """The strongest search row of ``setting`` (rollout, else ISMCTS; highest rate), or None."""
    rows = table[(table["setting"] == setting) & table["kind"].isin(["rollout", "ismcts"])]
    return None if rows.empty else rows.loc[rows["rate"].idxmax()]


def headline(table: pd.DataFrame) -> str:
    """The intro's closing sentence: per setting the strongest play measured (the highest win rate of
    any policy or search, a lower bound on skilled play) against the best built-in policy besides it;
    empty when no setting has a contender above its heuristics."""
    parts = []
    for setting in dict.fromkeys(table["setting"]):
        rows = table[(table["setting"] == setting) & (table["kind"] != "clairvoyant")]
        if rows.empty:
            continue
        top = rows.loc[rows["rate"].idxmax()]
        others = rows[(rows["kind"] == "heuristic") & (rows["contender"] != top["contender"])]
        if others.empty:
            continue
        best = others.loc[others["rate"].idxmax()]
        parts.append(f"{setting}: {top['contender']} {pct(top['rate'])} [{pct(top['ci_low'])}, "
                     f"{pct(top['ci_high'])}] on {int(top['games']):,} games, against {best['contender']}'s "
                     f"{pct(best['rate'])} on the same games")
    if not parts:
        return ""
    return (" **Strong play:** the strongest play measured (a lower bound on what a skilled player wins; "
            "the skill ceiling at the end) wins " + "; ".join(parts) + ".")


def _shown(table: pd.DataFrame) -> pd.DataFrame:
    """The rows the figure shows: per setting the best heuristic, both ISMCTS budgets, the bound."""
    return table[(table["kind"] != "heuristic") | table["best_heuristic"]]


def figure(table: pd.DataFrame, plan: CeilingPlan, title_game: str) -> ReportFigure:
    """One row per setting: the best heuristic, ISMCTS at two budgets and the clairvoyant bound as 95%
    intervals; the band from the best play found to the bound is where the optimum lies."""
    shown = _shown(table)
    settings = list(dict.fromkeys(shown["setting"]))
    figure_ = new_figure(7.5, 1.5 + 1.0 * len(settings))
    ax = figure_.subplots()
    ax.grid(alpha=0.3, axis="x")
    styles = {"heuristic": ("C0", "o", -0.3), "ismcts": ("C1", "s", 0.0), "rollout": ("C2", "D", 0.0),
              "clairvoyant": ("C3", "v", 0.32)}
    lines = []
    for y, setting in enumerate(settings):
        rows = shown[shown["setting"] == setting]
        lower = rows[rows["kind"] != "clairvoyant"]["rate"].max()
        bound = rows[rows["kind"] == "clairvoyant"]["rate"]
        if len(bound):
            ax.fill_betweenx([y - 0.38, y + 0.38], 100 * lower, 100 * bound.iloc[0], color="0.85", zorder=0)
        for i, row in enumerate(rows.itertuples()):
            colour, marker, offset = styles[row.kind]
            searches = rows[rows["kind"] == row.kind]
            k = list(searches["contender"]).index(row.contender) if row.kind in ("ismcts", "rollout") else 0
            dy = offset + (0.12 * (k - (len(searches) - 1) / 2) if row.kind in ("ismcts", "rollout") else 0)
            bars = 100 * error_bars(row.rate, row.ci_low, row.ci_high)
            ax.errorbar(100 * row.rate, y + dy, xerr=bars, fmt=marker, color=colour, capsize=3, ms=5)
            short = row.contender.replace(" iterations)", ")").replace("clairvoyant bound", "bound").replace(
                "rollout (n=", "n=").rstrip(")") if row.kind == "rollout" else row.contender.replace(
                " iterations)", ")").replace("clairvoyant bound", "bound")
            ax.annotate(short, (100 * row.rate, y + dy), xytext=(0, 4), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7, color=colour)
            lines.append([setting, row.contender, pct(row.rate), f"{pct(row.ci_low)}–{pct(row.ci_high)}",
                          f"{row.wins:,}/{row.games:,}" + _settled_note(row._asdict())])
    ax.set_yticks(range(len(settings)), settings)
    ax.set_ylim(len(settings) - 0.5, -0.5)
    ax.set_xlabel("win rate (%), 95% Wilson intervals, the same games for every contender")
    ax.plot([], [], "o", color="C0", label="best built-in policy")
    kinds = set(shown["kind"])
    if "rollout" in kinds:
        ax.plot([], [], "D", color="C2", label=f"rollout (n = {', '.join(map(str, plan.rollout_budgets))})")
    if "ismcts" in kinds:
        ax.plot([], [], "s", color="C1", label=f"ISMCTS ({' and '.join(map(str, plan.budgets))} iterations)")
    if plan.clairvoyant:
        ax.plot([], [], "v", color="C3", label="clairvoyant bound")
        ax.fill_between([], [], color="0.85", label="the optimum lies here")
    figure_.legend(loc="outside lower center", ncol=4, fontsize=8, frameon=False)
    return ReportFigure("skill_ceiling", f"How good can play get? The skill ceiling of {title_game}",
                        _about(plan), figure_, reading(table, plan),
                        [TextTable("Contenders on the same games", ["setting", "contender", "win rate",
                                                                    "95% interval", "wins/games"], lines)])


def _unsettled(row: Mapping[str, Any]) -> int:
    """The games a clairvoyant row (a dict or a table's row) left unsettled, counted as won; 0 otherwise."""
    settled = row.get("settled")
    if row["kind"] != "clairvoyant" or settled is None or pd.isna(settled):
        return 0
    return int(row["games"]) - int(settled)


def _settled_note(row: Mapping[str, Any]) -> str:
    """`` (k settled)`` after a clairvoyant row's wins when its solver left games unsettled."""
    unsettled = _unsettled(row)
    return f" ({row['games'] - unsettled:,} settled)" if unsettled else ""


def _about(plan: CeilingPlan) -> str:
    bound = ("The clairvoyant bound knows the shuffled deck and every later draw and plays the best line "
             "for each game: no real policy wins a game it loses, so its win rate bounds every policy's "
             "from above (checked game by game). A game its solver does not settle within its node budget "
             "counts as won, so the bound stays sound but loosens: the table says how many games were "
             "settled. " if plan.clairvoyant else
             f"There is no clairvoyant bound for this game: {plan.no_bound} ")
    return ("Each row plays the same games (same seed, game indices 0 upwards) with the best built-in policy "
            "of the side, with the compiled rollout search at growing budgets (n playouts per candidate at every "
            "decision, finished by a heuristic, never seeing hidden cards; docs/search.md), or where a side has no "
            "rollout yet information-set MCTS at two budgets, and, where there is one, the clairvoyant solver. "
            + bound +
            "The best play found is a lower bound of the optimum (a policy reaches it); docs/bounds.md."
            + (f" {plan.why_fewer}" if plan.why_fewer else ""))


def reading(table: pd.DataFrame, plan: CeilingPlan) -> str:
    """One sentence per setting: where the optimum lies, or the best play found and what search adds."""
    parts = []
    for setting, rows in _shown(table).groupby("setting", sort=False):
        achieved = rows[rows["kind"] != "clairvoyant"].sort_values("rate", ascending=False).iloc[0]
        best = rows[rows["kind"] == "heuristic"].iloc[0]
        search = rows[rows["kind"].isin(["rollout", "ismcts"])].sort_values("rate").iloc[-1]
        text = (f"{setting}: best play found {pct(achieved['rate'])} ({achieved['contender']}); "
                f"{search['contender']} {points(search['rate'] - best['rate'])} points against {best['contender']}")
        bound = rows[rows["kind"] == "clairvoyant"]
        if len(bound):
            text += f"; the optimum lies between {pct(achieved['rate'])} and {pct(bound['rate'].iloc[0])}"
            unsettled = _unsettled(bound.iloc[0])
            if unsettled:
                text += (f" (the bound's solver settled {bound['games'].iloc[0] - unsettled:,} of "
                         f"{bound['games'].iloc[0]:,} games; the other {unsettled:,}, out of its budget, count as won)")
        parts.append(text)
    return ". ".join(parts) + "."


TABLE_NOTE = ("skill ceiling: per setting and contender (kind heuristic, rollout, ismcts or clairvoyant) the wins on "
              "the same games, the win rate and its 95% Wilson interval; best_heuristic marks the built-in "
              "policy shown")
#: What the note adds for a game with a clairvoyant bound (its rows' ``settled`` column).
SETTLED_NOTE = "; settled (clairvoyant rows): the games its solver settled within its budget, the others counted as won"


def table_note(plan: CeilingPlan) -> str:
    """The skill-ceiling table's note in the report's list of tables, for ``plan``."""
    return TABLE_NOTE + (SETTLED_NOTE if plan.clairvoyant else "")


def section(runs: Runs, plan: CeilingPlan, n_search: int, title_game: str,
            n_rollout: int = 0) -> tuple[pd.DataFrame, Callable]:
    """Collect the ceiling (``collect``) and a figure maker for it: what a report adds at its end."""
    table = collect(runs, plan, n_search, n_rollout)
    return table, lambda data: figure(table, plan, title_game)


__all__ = ["BUDGETS", "DEFAULT_SEARCH_GAMES", "headline", "ROLLOUT_BUDGETS", "ROLLOUT_GAMES", "TABLE_NOTE", "has_rollout", "strongest", "CeilingPlan", "CeilingSetting", "collect", "figure",
           "reading", "section", "table_note"]
