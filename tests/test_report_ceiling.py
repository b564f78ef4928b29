"""The skill-ceiling section (cursedsim/report/ceiling.py): what it plays on the same games, the guard that
no policy may win a game the clairvoyant bound loses, its figure and reading, and the report's setting."""

from __future__ import annotations

import sys
import types

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim.report import ceiling, report
from cursedsim.report.data import ReportError, Runs
from cursedsim.runner import resolve_game

SEED, N = 1, 4
PLAN = ceiling.CeilingPlan(settings=(ceiling.CeilingSetting("rulebook", 1, ("threshold", "counting")),),
                           no_bound="a test plan")


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    runs = Runs(resolve_game("cursed"), str(tmp_path_factory.mktemp("ceiling")), n_games=N, seed=SEED, n_jobs=1,
                kernel_only=False)
    return ceiling.collect(runs, PLAN, N)


def test_every_contender_plays_the_same_games(collected):
    """Heuristic rows are the runner's own results on games 0..N-1; both ISMCTS budgets are there."""
    rows = collected.set_index("contender")
    for name in ("threshold", "counting"):
        frame = cursedsim.simulate("cursed", N, seed=SEED, policy=name, progress=False)
        assert rows.loc[name, "wins"] == frame["win"].sum() and rows.loc[name, "games"] == N
    assert {f"ismcts ({b} iterations)" for b in ceiling.BUDGETS} <= set(rows.index)
    best = collected[collected["best_heuristic"]]
    assert len(best) == 1 and best["wins"].iloc[0] == collected[collected["kind"] == "heuristic"]["wins"].max()
    assert ((collected["ci_low"] <= collected["rate"]) & (collected["rate"] <= collected["ci_high"])).all()


def _collect_with_bound(tmp_path, monkeypatch, exact: bool) -> None:
    """The ceiling of threshold on games 0..N-1 against a fake solver that calls every game lost (settled
    when ``exact``)."""
    module = types.ModuleType("fake_bound")
    module.solve_chunk = lambda seed, start, count, players, options: {"clairvoyant_won": np.zeros(count, bool),
                                                                       "clairvoyant_exact": np.full(count, exact)}
    monkeypatch.setitem(sys.modules, "fake_bound", module)
    plan = ceiling.CeilingPlan(settings=(ceiling.CeilingSetting("rulebook", 1, ("threshold",)),),
                               clairvoyant="fake_bound:solve_chunk", budgets=())
    runs = Runs(resolve_game("cursed"), str(tmp_path), n_games=N, seed=SEED, n_jobs=1, kernel_only=False)
    ceiling.collect(runs, plan, N)


def test_a_bound_that_loses_a_won_game_stops_the_report(tmp_path, monkeypatch):
    """A 'bound' losing every game while threshold wins one of them is a wrong bound: a ReportError, not a
    figure (seed 1 games 0-3: threshold wins at least one)."""
    assert cursedsim.simulate("cursed", N, seed=SEED, policy="threshold", progress=False)["win"].any()
    with pytest.raises(ReportError, match="the bound is wrong"):
        _collect_with_bound(tmp_path, monkeypatch, exact=True)


def _table(bound: bool, settled: int = 100) -> pd.DataFrame:
    rows = [("heuristic", "smart", 40, True), ("heuristic", "baseline", 30, False),
            ("ismcts", "ismcts (10 iterations)", 35, False), ("ismcts", "ismcts (40 iterations)", 45, False)]
    rows += [("clairvoyant", "clairvoyant bound", 80, False)] if bound else []
    return pd.DataFrame([{"setting": "2 players", "kind": k, "contender": c, "games": 100, "wins": w,
                          "rate": w / 100, "ci_low": w / 100 - 0.09, "ci_high": w / 100 + 0.09,
                          "best_heuristic": b, **({"settled": settled} if k == "clairvoyant" else {})}
                         for k, c, w, b in rows])


def test_a_bound_with_unsettled_games_says_how_many_it_settled():
    """A bound whose solver ran out of budget on some games (counted as won) says so in the reading and in
    its table row; a fully settled bound says nothing extra."""
    plan = ceiling.CeilingPlan(settings=(), clairvoyant="x:y")
    text = ceiling.reading(_table(True, settled=73), plan)
    assert "settled 73 of 100 games; the other 27, out of its budget, count as won" in text
    row = ceiling.figure(_table(True, settled=73), plan, "A game").tables[0].rows[-1]
    assert row[1] == "clairvoyant bound" and row[-1] == "80/100 (73 settled)"
    assert "settled" not in ceiling.reading(_table(True), plan)
    assert ceiling.figure(_table(True), plan, "A game").tables[0].rows[-1][-1] == "80/100"
    assert "settled" in ceiling.table_note(plan) and "settled" not in ceiling.table_note(
        ceiling.CeilingPlan(settings=(), no_bound="none"))


def test_a_bound_that_calls_an_unsettled_game_lost_stops_the_report(tmp_path, monkeypatch):
    """An unsettled game must count as won: a solver reporting one lost would weaken the bound unseen."""
    with pytest.raises(ReportError, match="did not settle"):
        _collect_with_bound(tmp_path, monkeypatch, exact=False)


def test_the_reading_brackets_the_optimum():
    plan = ceiling.CeilingPlan(settings=(), clairvoyant="x:y")
    text = ceiling.reading(_table(True), plan)
    assert "best play found 45.0% (ismcts (40 iterations))" in text
    assert "+5.0 points against smart" in text and "between 45.0% and 80.0%" in text
    figure = ceiling.figure(_table(True), plan, "A game")
    assert figure.name == "skill_ceiling" and "clairvoyant bound" in figure.about
    assert [row[1] for row in figure.tables[0].rows] == ["smart", "ismcts (10 iterations)",
                                                         "ismcts (40 iterations)", "clairvoyant bound"]


def test_without_a_bound_the_figure_says_why():
    plan = ceiling.CeilingPlan(settings=(), no_bound="the hidden hands of six players.")
    figure = ceiling.figure(_table(False), plan, "A game")
    assert "There is no clairvoyant bound for this game: the hidden hands" in figure.about
    assert "optimum lies between" not in figure.reading


@pytest.mark.parametrize("bad", [-1, 1.5, "ten", True, 10**8])
def test_search_games_must_be_a_count(bad, tmp_path):
    with pytest.raises(ReportError, match="search_games must be an integer from 0"):
        report("cursed", tmp_path / "r", n_games=10, search_games=bad)


def test_every_report_has_a_plan_naming_real_policies():
    """Each game's plan: settings whose heuristics are built-in policies of the bracketed side, and either
    a bound solver or the reason there is none."""
    from cursedsim.report.registry import REPORTS, report_for
    for game in REPORTS:
        plan = report_for(game).ceiling()
        record = resolve_game(game)
        assert plan.settings and (plan.clairvoyant or plan.no_bound)
        for setting in plan.settings:
            record.check_players(setting.players)
            assert setting.heuristics and all(record.policy(h, setting.side).engine != "step"
                                               for h in setting.heuristics)
            for side, name in setting.others.items():
                record.policy(name, side)


def test_a_side_with_rollout_plays_its_budgets_on_more_games_and_the_bound_checks_their_first(tmp_path):
    """Where the searched side has the compiled search, the ceiling plays rollout at the plan's budgets on
    ``n_rollout`` games (the heuristics too, paired), not ISMCTS; the clairvoyant bound plays its own fewer
    games and is checked against every contender's first ones."""
    from cursedsim.report.verflucht.ceiling_plan import clairvoyant_chunk  # noqa: F401 (the plan names it)
    plan = ceiling.CeilingPlan(settings=(ceiling.CeilingSetting("2 players", 2, ("baseline", "smart")),),
                               clairvoyant="cursedsim.report.verflucht.ceiling_plan:clairvoyant_chunk",
                               rollout_budgets=(1, 2))
    runs = Runs(resolve_game("verflucht"), str(tmp_path), n_games=6, seed=SEED, n_jobs=1, kernel_only=False)
    table = ceiling.collect(runs, plan, 6, n_rollout=30)
    assert list(table["kind"]) == ["heuristic", "heuristic", "rollout", "rollout", "clairvoyant"]
    assert list(table["games"]) == [30, 30, 30, 30, 6]
    assert list(table["contender"])[2:4] == ["rollout (n=1)", "rollout (n=2)"]
    assert ceiling.strongest(table, "2 players")["kind"] == "rollout"
    assert "rollout (n=" in ceiling.reading(table, plan)


def test_the_headline_names_the_strongest_play_against_the_best_other_policy():
    """``headline``: per setting the highest win rate of any contender (not the bound) against the best
    built-in policy besides it; nothing when no setting has another built-in policy to compare."""
    rows = [("s", "heuristic", "a", 0.20), ("s", "heuristic", "b", 0.25), ("s", "rollout", "rollout (n=16)", 0.40),
            ("s", "clairvoyant", "clairvoyant bound", 0.90), ("t", "heuristic", "a", 0.30),
            ("t", "ismcts", "ismcts (5 iterations)", 0.10)]
    table = pd.DataFrame([{"setting": s, "kind": k, "contender": c, "rate": r, "ci_low": r - 0.02,
                           "ci_high": r + 0.02, "games": 100} for s, k, c, r in rows])
    text = ceiling.headline(table)
    assert "s: rollout (n=16) 40.0% [38.0%, 42.0%] on 100 games, against b's 25.0%" in text
    assert "t: a 30.0%" not in text and "clairvoyant" not in text   # t: no other built-in policy to compare
    assert ceiling.headline(table[table["setting"] == "t"]) == ""
