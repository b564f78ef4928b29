"""sweep: the grid, one tidy row per cell, common random numbers across cells, resume, validation."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim import games, stats
from cursedsim.errors import CursedsimError, OptionError, PlayersError, RunError, UnknownPolicyError
from cursedsim.games.base import Game, Measure
from cursedsim.sweep import cell_dir_name, expand_grid, sweep

from conftest import COIN


def test_sweep_is_part_of_the_public_api():
    assert cursedsim.sweep is sweep


def test_grid_order_scalars_and_per_policy_params(coin):
    cells = expand_grid(COIN, players=[1, 2], policies=["plain", "greedy"],
                        options={"p_percent": [20, 40], "lucky": True},
                        params={"greedy": {"bonus": [1, 2], "spare": 3}})
    assert len(cells) == 2 * 2 + 2 * 2 * 2        # plain: players x p_percent; greedy: x bonus too
    assert [(c.policy, c.players, c.options["p_percent"], c.params.get("bonus")) for c in cells[:6]] == [
        ("plain", 1, 20, None), ("plain", 1, 40, None), ("plain", 2, 20, None), ("plain", 2, 40, None),
        ("greedy", 1, 20, 1.0), ("greedy", 1, 20, 2.0)]
    assert all(c.options["lucky"] is True for c in cells)
    assert all(c.params == {} for c in cells[:4]) and all(c.params["spare"] == 3.0 for c in cells[4:])
    # defaults: the game's default players and policy, one cell
    (only,) = expand_grid(COIN)
    assert (only.policy, only.players, dict(only.options), dict(only.params)) == ("plain", 2, {}, {})


def test_one_tidy_row_per_cell_with_every_column(coin):
    table = sweep("coin", players=[1, 3], policies=["plain", "greedy"], options={"p_percent": [20, 60]},
                  params={"greedy": {"bonus": [0, 7]}}, n_games=2_000, seed=9, progress=False)
    assert list(table.columns) == [
        "game", "seed", "policy", "players", "p_percent", "lucky", "seals", "work", "param_bonus",
        "n", "wins", "win_rate", "ci_low", "ci_high", "mean_score", "score_se", "mean_turns",
        "end_win", "end_timeout", "end_bust"]
    assert len(table) == 4 + 8
    assert (table["game"] == "coin").all() and (table["seed"] == 9).all() and (table["n"] == 2_000).all()
    assert table["seals"].tolist()[:4] == [1, 1, 3, 3]              # resolved per player count
    assert table.loc[table["policy"] == "plain", "param_bonus"].eq(0.0).all()   # plain's default bonus
    assert table.loc[table["policy"] == "greedy", "param_bonus"].tolist() == [0, 7] * 4
    # every row is the summary of the simulate run of its cell (same seed)
    row = table[(table["policy"] == "greedy") & (table["players"] == 3) & (table["p_percent"] == 60)
                & (table["param_bonus"] == 7)].iloc[0]
    frame = cursedsim.simulate("coin", 2_000, players=3, policy="greedy", options={"p_percent": 60},
                               params={"bonus": 7}, seed=9, progress=False)
    expected = stats.summarize(frame).iloc[0]
    for column in ("n", "wins", "win_rate", "ci_low", "ci_high", "mean_score", "score_se", "mean_turns"):
        assert row[column] == pytest.approx(expected[column], rel=1e-12), column
    shares = frame["end"].value_counts(normalize=True)
    assert row["end_timeout"] == pytest.approx(shares["timeout"]) and row["end_bust"] == pytest.approx(shares["bust"])
    assert np.allclose(table[["end_win", "end_timeout", "end_bust"]].sum(axis=1), 1.0)
    assert (table["end_win"] == table["win_rate"]).all()


#: The coin with its own measures: turns with a standard error, the score over every game (lost: -1).
MEASURED = dataclasses.replace(COIN, name="measuredcoin", measures=(
    Measure("turns", "mean turns ± SE", se=True), Measure("score", "mean score (every game)")))


def register_measured(monkeypatch) -> Game:
    """Register MEASURED as "measuredcoin" for the duration of a test."""
    monkeypatch.setitem(games.GAME_MODULES, "measuredcoin", "test_sweep")
    monkeypatch.setitem(games._loaded, "measuredcoin", MEASURED)
    return MEASURED


def test_rows_hold_the_measures_the_game_declares_and_every_other_outcome(monkeypatch, tmp_path):
    register_measured(monkeypatch)
    table = sweep("measuredcoin", policies=["plain", "greedy"], n_games=2_000, seed=3, out=str(tmp_path / "s"),
                  progress=False)
    assert list(table.columns)[-11:] == ["n", "wins", "win_rate", "ci_low", "ci_high", "mean_turns", "turns_se",
                                         "mean_score", "end_win", "end_timeout", "end_bust"]   # nothing dropped
    frame = cursedsim.simulate("measuredcoin", 2_000, policy="greedy", seed=3, progress=False)
    row = table[table["policy"] == "greedy"].iloc[0]
    assert row["mean_score"] == pytest.approx(frame["score"].mean(), rel=1e-12)    # every game, as declared
    assert row["mean_turns"] == pytest.approx(frame["turns"].mean(), rel=1e-12)
    assert row["turns_se"] == pytest.approx(frame["turns"].std() / np.sqrt(2_000), rel=1e-9)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "s" / "sweep.csv"), table, check_dtype=False)


def test_cursed_rows_hold_its_measures_and_the_mean_of_every_other_numeric_outcome():
    game = games.get_game("cursed")
    table = sweep("cursed", n_games=1_000, seed=1, progress=False)
    assert {"mean_souls", "souls_se", "mean_rounds", "mean_damage_taken"} <= set(table.columns)
    numeric = [name for name in game.outcome_columns if name != "win" and name not in game.outcome_categories]
    assert all(f"mean_{name}" in table.columns for name in numeric)
    assert not table[[f"mean_{name}" for name in numeric] + ["souls_se"]].isna().any(axis=None)


def test_every_cell_plays_the_same_random_streams(coin, tmp_path):
    sweep("coin", options={"p_percent": [30, 70]}, n_games=3_000, seed=5, out=str(tmp_path / "s"), progress=False)
    low = pd.read_parquet(tmp_path / "s" / "cells" / "plain_p2_p_percent-30" / "games.parquet")
    high = pd.read_parquet(tmp_path / "s" / "cells" / "plain_p2_p_percent-70" / "games.parquet")
    # the coin's draw is the same in both cells: whoever wins at 30% wins at 70% (common random numbers)
    assert (low["win"] <= high["win"]).all() and high["win"].sum() > low["win"].sum() + 800
    assert (low["seed"] == 5).all() and (high["seed"] == 5).all()


def test_sweep_on_verflucht_has_its_outcome_columns(verflucht):
    table = sweep("verflucht", players=[2, 4], policies=["baseline", "smart"], params={"smart": {"slack": [1, 3]}},
                  n_games=2_000, seed=1, progress=False)
    assert len(table) == 2 + 4
    assert table["seals"].tolist() == [4, 5, 4, 4, 5, 5]            # the rulebook's count per player count
    for column in ("mean_seals_used", "mean_attacks", "end_win", "end_sixth_creature", "end_group"):
        assert column in table.columns and table[column].notna().all(), column
    assert np.allclose(table[["end_win", "end_sixth_creature", "end_group"]].sum(axis=1), 1.0)
    assert (table["end_win"] == table["win_rate"]).all()
    assert table.loc[table["policy"] == "baseline", "param_slack"].isna().all()   # baseline has no slack
    assert (table["mean_seals_used"] <= table["seals"]).all()


# ---------------------------------------------------------------- resume

def test_rerun_resumes_and_plays_nothing_again(coin, tmp_path):
    out = tmp_path / "sweep"
    args = dict(players=[1, 2], policies=["plain", "greedy"], options={"lucky": [False, True]}, n_games=2_500, seed=3,
                chunk_size=1_000, progress=False)
    first = sweep("coin", out=str(out), **args)
    assert sorted(os.listdir(out)) == ["cells", "sweep.csv", "sweep.json"]
    assert len(os.listdir(out / "cells")) == 8
    pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv"), first, check_dtype=False)

    def boom(*_):
        raise AssertionError("a finished cell was played again")
    finished = dataclasses.replace(COIN, run_chunk=boom)
    pd.testing.assert_frame_equal(sweep(finished, out=str(out), **args), first)

    # an interrupted sweep: one cell lost its frame and a chunk, another never started
    grid = expand_grid(COIN, **{k: args[k] for k in ("players", "policies", "options")})
    cell = out / "cells" / cell_dir_name(grid[5])
    os.remove(cell / "games.parquet")
    os.remove(cell / "chunk-1000-2000.parquet")
    calls = []

    def counting(seed, start, count, *rest):
        calls.append((start, count))
        return COIN.run_chunk(seed, start, count, *rest)
    os.remove(out / "sweep.csv")
    resumed = sweep(dataclasses.replace(COIN, run_chunk=counting), out=str(out), **args)
    assert calls == [(1_000, 1_000)]
    pd.testing.assert_frame_equal(resumed, first)


def test_a_different_sweep_or_a_foreign_directory_is_refused(coin, tmp_path):
    out = tmp_path / "sweep"
    sweep("coin", n_games=1_000, seed=3, out=str(out), progress=False)
    with pytest.raises(RunError, match="seed is 3 there but 4 now"):
        sweep("coin", n_games=1_000, seed=4, out=str(out), progress=False)
    with pytest.raises(RunError, match="n_games is 1000 there but 2000 now"):
        sweep("coin", n_games=2_000, seed=3, out=str(out), progress=False)
    # a larger grid in the same directory adds cells and reuses the finished one
    grown = sweep("coin", players=[2, 3], n_games=1_000, seed=3, out=str(out), progress=False)
    assert len(grown) == 2 and len(os.listdir(out / "cells")) == 2
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not a cursedsim sweep directory"):
        sweep("coin", n_games=1_000, out=str(tmp_path / "other"), progress=False)


def test_cell_directory_names_are_readable_and_distinct():
    from cursedsim.sweep import Cell
    assert cell_dir_name(Cell("smart", 3, {"seals": 4}, {"slack": 2.0})) == "smart_p3_seals-4_slack-2"
    assert cell_dir_name(Cell("smart", 3, {}, {"slack": 0.1})) == "smart_p3_slack-0.1"
    close = Cell("smart", 3, {}, {"slack": 1.0000001})
    assert cell_dir_name(close) != cell_dir_name(Cell("smart", 3, {}, {"slack": 1.0}))
    a, b = Cell("x", 1, {"name": "a/b"}, {}), Cell("x", 1, {"name": "ab"}, {})
    assert cell_dir_name(a) != cell_dir_name(b) and cell_dir_name(b) == "x_p1_name-ab"


# ---------------------------------------------------------------- validation

@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"players": [1, 9]}, PlayersError, "1-4 players"),
    ({"policies": ["plain", "nope"]}, UnknownPolicyError, "unknown policy 'nope'"),
    ({"options": {"nope": [1]}}, OptionError, "unknown option 'nope'"),
    ({"options": {"p_percent": [50, 101]}}, OptionError, "0-100"),
    ({"options": {"p_percent": []}}, CursedsimError, "empty list"),
    ({"params": {"greedy": {"bonus": 1}}}, UnknownPolicyError, "not swept; swept policies: plain"),
    ({"params": {"plain": {"spare": 1}}}, UnknownPolicyError, "no parameter 'spare'"),
    ({"params": {"plain": {"bonus": ["x"]}}}, UnknownPolicyError, "must be a number"),
    ({"n_games": 0}, RunError, "positive integer"),
    ({"n_jobs": 0}, RunError, "-1"),
])
def test_bad_grids_are_refused_before_any_game(coin, kwargs, error, fragment):
    calls = []
    game = dataclasses.replace(COIN, run_chunk=lambda *a: calls.append(a))
    settings = {"n_games": 100, **kwargs}
    with pytest.raises(error, match=fragment):
        sweep(game, progress=False, **settings)
    assert calls == []


def test_a_sweep_row_averages_amounts_not_codes():
    """Cursed Gifts' seats, elimination order and dealt-kinds bit mask are codes: a cell row shows no mean of
    them (a mean seat says nothing), while the amounts (ripostes, turns) keep theirs."""
    from cursedsim.games.gifts import rules as gifts_rules
    from cursedsim.sweep import summarize_cell
    gifts = games.get_game("gifts")
    n = 4
    frame = pd.DataFrame({column: np.zeros(n, dtype=dtype) for column, dtype in
                          {**gifts_rules.OUTCOME_DTYPES, **gifts_rules.SIDE_DTYPES}.items()})
    frame["winner_seat"] = np.array([0, 1, 2, 1], dtype=np.int8)
    frame["focus_seat"] = np.array([0, 1, 2, 3], dtype=np.int8)
    frame["focus_won"] = [True, True, True, False]
    frame["field_won"] = ~frame["focus_won"]
    frame["elimination_order"] = np.array([3 + 2 * 8, 1, 2, 9], dtype=np.int32)
    frame["focus_dealt"] = np.array([5, 7, 1, 2**40], dtype=np.int64)
    frame["ripostes"] = np.array([1, 0, 2, 5], dtype=np.int16)
    row = summarize_cell(gifts, frame)
    assert row["mean_ripostes"] == 2.0 and row["focus_wins"] == 3
    for code in ("winner_seat", "focus_seat", "elimination_order", "focus_dealt"):
        assert f"mean_{code}" not in row, code


def test_code_columns_must_be_outcome_columns():
    with pytest.raises(CursedsimError, match="code column 'nope' is not an outcome column"):
        dataclasses.replace(COIN, code_columns=("nope",))


def test_one_bar_over_the_whole_sweep_after_a_warm_up(coin, capsys, monkeypatch):
    """The shared progress step: the first cell's game is played once before the bar (its compile on its
    own line), then one bar counts every cell's games and names the last cell."""
    from cursedsim.runner import execute
    monkeypatch.setenv("COLUMNS", "200")   # the bar on one line
    warmed = []
    real = execute._warm_up
    monkeypatch.setattr(execute, "_warm_up", lambda *a, **k: warmed.append(a[2]) or real(*a, **k))
    monkeypatch.setattr(cursedsim.runner, "_warm_up", execute._warm_up)
    sweep("coin", n_games=1000, players=[1, 2], progress=True)
    err = capsys.readouterr().err
    assert warmed == [1]
    assert "2000/2000" in err and "sweep coin 2/2: plain p=2" in err
    sweep("coin", n_games=1000, players=[1, 2], progress=False)
    assert capsys.readouterr().err == "" and warmed == [1]
