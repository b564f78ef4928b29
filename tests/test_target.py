"""target: the value of an integer option or policy parameter closest to a win rate, found by adaptive
rounds on common random numbers: the decision bounds, the exact answer on the coin game (whose rates are
known), ties, policy parameters, determinism, resuming, Verflucht!, bad input and the command line."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim import runner
from cursedsim.errors import CursedsimError, OptionError, PlayersError, RunError, UnknownPolicyError
from cursedsim.target import (PairSums, closest_probabilities, critical_z, default_values, distance_bounds,
                              resolve_varied, schedule, target)

from conftest import ROOT
from research_games import register_dial


@pytest.fixture
def dial(monkeypatch):
    return register_dial(monkeypatch)


def coin_rate(p_percent: int) -> float:
    """The coin game's exact chance of a win: one draw below(100) < p_percent."""
    return p_percent / 100


# ---------------------------------------------------------------- the statistics, without a game

def correlated_wins(rng, n: int, p_a: float, p_b: float) -> tuple[np.ndarray, np.ndarray]:
    """Wins of two candidates on the same n games, as on common random numbers: one uniform per game."""
    u = rng.random(n)
    return u < p_a, u < p_b


@pytest.mark.parametrize("p_a, p_b, target", [(0.16, 0.13, 0.15), (0.18, 0.16, 0.15), (0.12, 0.155, 0.15)])
def test_distance_bounds_cover_the_true_difference_of_distances(p_a, p_b, target):
    # 2,000 seeded repetitions of 2,000 games; each bound one-sided at 95%: a bound fails in at most 5% of
    # them (the bounds are conservative); the band allows 4 binomial standard errors (~2%)
    rng = np.random.default_rng(3)
    z = 1.6448536269514722
    truth = abs(p_a - target) - abs(p_b - target)
    reps = 2_000
    low_fails = high_fails = 0
    for _ in range(reps):
        a, b = correlated_wins(rng, 2_000, p_a, p_b)
        low, high = distance_bounds(PairSums.of(a, b), target, z)
        low_fails += low > truth
        high_fails += high < truth
    band = 0.05 + 4 * math.sqrt(0.05 * 0.95 / reps)
    assert low_fails / reps <= band and high_fails / reps <= band


def test_distance_bounds_of_identical_candidates_straddle_zero_and_separate_far_ones():
    rng = np.random.default_rng(1)
    a, _ = correlated_wins(rng, 10_000, 0.15, 0.15)
    low, high = distance_bounds(PairSums.of(a, a), 0.15, 3.0)
    assert low <= 0 <= high
    assert high < 0.01   # the same games: nothing but the side of the target is uncertain
    far, near = correlated_wins(rng, 10_000, 0.30, 0.16)
    low, high = distance_bounds(PairSums.of(far, near), 0.15, 3.0)
    assert 0 < low < 0.14 < high   # |0.30 - 0.15| - |0.16 - 0.15| = 0.14


def test_critical_z_is_bonferroni_over_candidates_sides_and_rounds():
    from scipy.stats import norm
    assert critical_z(0.95, 11, 8) == pytest.approx(norm.isf(0.05 / (2 * 10 * 8)))
    assert critical_z(0.95, 2, 1) == pytest.approx(norm.isf(0.025))


def test_schedule_doubles_to_the_maximum():
    assert schedule(10_000, 100_000) == [10_000, 20_000, 40_000, 80_000, 100_000]
    assert schedule(500, 500) == [500]


def test_closest_probabilities_share_ties_and_follow_the_evidence():
    rng = np.random.default_rng(0)
    a, b = correlated_wins(rng, 5_000, 0.15, 0.25)
    same = np.column_stack([a, a, a])
    shared = closest_probabilities([([0, 1, 2], same)], 3, 0.15, np.random.default_rng(1), draws=2_000)
    assert shared == pytest.approx([1 / 3] * 3, abs=1e-12)
    clear = closest_probabilities([([0, 1], np.column_stack([a, b]))], 2, 0.15, np.random.default_rng(1))
    assert clear[0] > 0.999 and clear.sum() == pytest.approx(1)
    # a later round of only the first candidate keeps the second's rate from the first round
    later = closest_probabilities([([0, 1], np.column_stack([a, b])), ([0], a[:1000, None])], 2, 0.25,
                                  np.random.default_rng(1))
    assert later[1] > 0.999


# ---------------------------------------------------------------- what is varied

def test_resolve_varied_accepts_int_options_and_policy_parameters(coin, dial):
    coin_game = cursedsim.get_game("coin")
    assert resolve_varied(coin_game, "p_percent").label == "p_percent"
    varied = resolve_varied(coin_game, "greedy.spare")
    assert (varied.kind, varied.name, varied.policy, varied.label) == ("param", "spare", "greedy", "greedy.spare")
    assert resolve_varied(coin_game, "spare", "greedy").label == "greedy.spare"
    assert resolve_varied(cursedsim.get_game("dial"), "boost").label == "dial.boost"


def test_default_values_come_from_validation_bounds_or_twice_the_default(coin, verflucht):
    coin_game = cursedsim.get_game("coin")
    assert default_values(verflucht, resolve_varied(verflucht, "seals")) == list(range(0, 11))
    assert default_values(coin_game, resolve_varied(coin_game, "p_percent")) == list(range(0, 101))
    assert default_values(verflucht, resolve_varied(verflucht, "smart.slack")) == [0, 1, 2, 3, 4]
    cursed = cursedsim.get_game("cursed")
    assert default_values(cursed, resolve_varied(cursed, "win_souls")) == list(range(1, 31))
    # a fixed option narrows the valid range: a forced starting item needs one starting item at least
    forced = {"starting_item": "shield"}
    assert default_values(cursed, resolve_varied(cursed, "starting_items"), forced) == [1, 2, 3, 4, 5]
    with pytest.raises(CursedsimError, match="no range to try by default"):
        default_values(coin_game, resolve_varied(coin_game, "work"))   # default 0, no bounds


# ---------------------------------------------------------------- the search on the coin game

def test_target_chooses_the_value_whose_exact_rate_is_closest(coin):
    values = list(range(8, 23))
    result = target("coin", 0.172, vary="p_percent", values=values, players=[1, 3], max_games=160_000, seed=4,
                    progress=False)
    exact = min(values, key=lambda v: abs(coin_rate(v) - 0.172))
    assert exact == 17
    assert result.values == {1: exact, 3: exact}
    frame = result.candidates
    assert list(frame.columns) == ["players", "value", "games", "wins", "win_rate", "ci_low", "ci_high", "distance",
                                   "p_closest", "status"]
    assert len(frame) == 2 * len(values)
    one = frame[frame["players"] == 1].set_index("value")
    assert one.loc[exact, "status"] == "chosen" and one.loc[exact, "p_closest"] > 0.9
    assert one["p_closest"].sum() == pytest.approx(1)
    # far values were dropped after the first round, the chosen one played the most games
    assert one.loc[8, "status"] == "dropped" and one.loc[8, "games"] == 10_000
    assert one.loc[exact, "games"] == one["games"].max()
    assert (one["win_rate"] == one["wins"] / one["games"]).all()
    assert (one["distance"] == (one["win_rate"] - 0.172).abs()).all()
    chosen = result.chosen.set_index("players").loc[1]
    assert chosen["stop"] in ("one left", "within tolerance") and chosen["total_games"] == one["games"].sum()


def test_every_candidate_plays_the_same_games_added_round_by_round(coin):
    result = target("coin", 0.30, vary="p_percent", values=[29, 30, 31], players=[2], start_games=1_000,
                    max_games=8_000, tolerance=0.0, seed=9, progress=False)
    frame = result.candidates.set_index("value")
    # common random numbers on the coin: p=31 wins every game p=30 wins, which wins every game p=29 wins;
    # the wins equal those of one run over the same games
    for value, row in frame.iterrows():
        full = cursedsim.simulate("coin", int(row["games"]), players=2, options={"p_percent": value}, seed=9,
                                  progress=False)
        assert row["wins"] == int(full["win"].sum())


def test_identical_candidates_are_tied_and_share_the_probability(coin):
    # the coin ignores its seals: every value plays the very same games
    result = target("coin", 0.15, vary="seals", values=[0, 1, 2, 3], players=[1], progress=False)
    frame = result.candidates
    assert list(frame["status"]) == ["chosen", "tied", "tied", "tied"]
    assert frame["p_closest"].to_list() == pytest.approx([0.25] * 4, abs=1e-12)
    chosen = result.chosen.iloc[0]
    assert chosen["stop"] == "within tolerance" and chosen["tied"] == "1, 2, 3" and chosen["games"] == 10_000


def test_the_last_round_leaves_undecided_candidates_open(coin):
    result = target("coin", 0.155, vary="p_percent", values=[15, 16], players=[1], max_games=2_000,
                    start_games=1_000, tolerance=0.0, progress=False)
    assert sorted(result.candidates["status"]) == ["chosen", "open"]
    assert result.chosen.iloc[0]["stop"] == "max games" and result.chosen.iloc[0]["open"] != ""


def test_a_policy_parameter_is_varied_like_an_option(dial):
    # dial wins 50 - |boost - 7| percent: 45% at boost 2 and at boost 12, on the very same games
    both = [target("dial", 0.45, vary=vary, policy=policy, values=range(0, 15), players=[1], seed=3, progress=False)
            for vary, policy in (("dial.boost", None), ("boost", "dial"))]
    pd.testing.assert_frame_equal(both[0].candidates, both[1].candidates)
    frame = both[0].candidates.set_index("value")
    assert frame.loc[2.0, "status"] == "chosen" and frame.loc[12.0, "status"] == "tied"
    assert (frame.drop(index=[2.0, 12.0])["status"] == "dropped").all()
    assert both[0].settings["vary"] == "dial.boost" and both[0].values == {1: 2.0}


def test_results_do_not_depend_on_jobs_or_chunks(coin):
    args = dict(vary="p_percent", values=range(10, 21), players=[1, 2], max_games=40_000, seed=6, progress=False)
    one = target("coin", 0.141, n_jobs=1, **args)
    two = target("coin", 0.141, n_jobs=2, chunk_size=3_000, **args)
    pd.testing.assert_frame_equal(one.candidates, two.candidates)
    pd.testing.assert_frame_equal(one.chosen, two.chosen)


def test_out_keeps_every_round_and_a_rerun_plays_nothing(coin, tmp_path, monkeypatch):
    out = tmp_path / "target"
    args = dict(vary="p_percent", values=range(12, 19), players=[1], max_games=40_000, seed=2, progress=False)
    first = target("coin", 0.151, out=out, **args)
    assert {"target.json", "candidates.csv", "chosen.csv", "cells"} <= set(os.listdir(out))
    pd.testing.assert_frame_equal(pd.read_csv(out / "chosen.csv")[["players", "value"]],
                                  first.chosen[["players", "value"]])

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played again")

    monkeypatch.setattr(runner.execute, "_play_chunk", no_games)
    again = target("coin", 0.151, out=out, **args)
    pd.testing.assert_frame_equal(first.candidates, again.candidates)
    # another target reuses the rounds it shares with the first search; a different seed is refused
    with pytest.raises(RunError, match="seed"):
        target("coin", 0.151, out=out, **{**args, "seed": 3})


# ---------------------------------------------------------------- Verflucht!

def test_verflucht_seals_for_15_percent_agree_with_the_published_table(verflucht):
    # results/verflucht/seals.csv: 200,000 games per cell on another seed (2026), the reference answer
    table = pd.read_csv(os.path.join(ROOT, "results", "verflucht", "seals.csv"))
    cells = table[(table["policy"] == "baseline") & (table["players"] == 3) & table["seals"].between(3, 7)]
    distance = (cells["win_rate"] - 0.15).abs().sort_values()
    assert distance.iloc[1] - distance.iloc[0] > 0.005   # a clear answer there
    expected = int(cells.loc[distance.index[0], "seals"])
    result = target("verflucht", 0.15, vary="seals", values=range(3, 8), players=[3], policy="baseline",
                    max_games=80_000, progress=False)
    assert result.values == {3: expected}
    assert result.candidates.set_index("value").loc[expected, "p_closest"] > 0.9


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, error, fragments", [
    (dict(vary="voluntary_seal"), OptionError, ["does not take integers", "seals"]),
    (dict(vary="smart.nope"), UnknownPolicyError, ["no parameter 'nope'", "slack"]),
    (dict(vary="nope"), OptionError, ["seals", "parameters of baseline: none"]),
    (dict(vary="nope.slack"), UnknownPolicyError, ["valid policies", "smart"]),
    (dict(vary="smart.slack", policy="baseline"), UnknownPolicyError, ["'smart'", "'baseline'"]),
    (dict(vary="seals", win_rate=15), RunError, ["fraction in 0-1"]),
    (dict(vary="seals", win_rate=-0.1), RunError, ["fraction in 0-1"]),
    (dict(vary="seals", values=[4]), RunError, ["two or more"]),
    (dict(vary="seals", values=[4, 11]), OptionError, ["0-10"]),
    (dict(vary="seals", values=[4, 4.5]), OptionError, ["integer"]),
    (dict(vary="seals", options={"seals": 4}), RunError, ["varied setting"]),
    (dict(vary="seals", players=[0, 1]), PlayersError, ["1-5"]),
    (dict(vary="seals", tolerance=-1), RunError, ["tolerance"]),
    (dict(vary="seals", start_games=10), RunError, ["start_games"]),
])
def test_bad_input_is_a_clear_error(verflucht, kwargs, error, fragments):
    kwargs = {"win_rate": 0.15, **kwargs}
    with pytest.raises(error) as info:
        target("verflucht", kwargs.pop("win_rate"), progress=False, **kwargs)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_a_string_option_of_cursed_is_refused_naming_its_integer_options(verflucht):
    with pytest.raises(OptionError, match="win_souls, starting_items, mimic_power, turkey_cards"):
        target("cursed", 0.2, vary="starting_item")


def test_target_is_part_of_the_public_api():
    assert cursedsim.target is target


# ---------------------------------------------------------------- the command line

def test_cli_prints_one_table_per_player_count_with_the_chosen_value(coin, capsys, tmp_path):
    from test_cli import _table_row, run
    status, out, err = run(capsys, "target", "coin", "--win-rate", "17.2", "--vary", "p_percent", "--values", "8-22",
                           "--players", "1,3", "--max-games", "160000", "--seed", "4", "--out", str(tmp_path / "t"))
    assert status == 0, err
    api = target("coin", 0.172, vary="p_percent", values=range(8, 23), players=[1, 3], max_games=160_000, seed=4,
                 progress=False)
    assert "coin: p_percent for a 17.2% win rate; values 8-22; policy plain; seed 4; tolerance 0.25 points" in out
    for players in (1, 3):
        chosen = api.chosen.set_index("players").loc[players]
        title = (f"{players} player{'s' if players > 1 else ''}: p_percent {chosen['value']} "
                 f"({chosen['total_games']:,} games;")
        assert title in out
    row = _table_row(out, "◀ chosen")
    best = api.candidates.set_index(["players", "value"]).loc[(3, 17)]
    assert row == ["17", f"{best['games']:,}", f"{100 * best['win_rate']:.2f} [{100 * best['ci_low']:.2f}, "
                   f"{100 * best['ci_high']:.2f}]", "> 0.99" if best["p_closest"] < 1 else "1.00",
                   "◀ chosen"]
    assert "P(closest): the share of 10,000 draws" in out
    assert "round 1/5, 15 value(s) left: 8-22" in err
    assert pd.read_csv(tmp_path / "t" / "chosen.csv")["value"].tolist() == [17, 17]


def test_cli_tables_fit_80_columns():
    from rich.console import Console

    from cursedsim.cli.target import summary_table, target_tables
    from cursedsim.target import TargetResult
    candidates = pd.DataFrame([{"players": 5, "value": v, "games": 1_000_000, "wins": 1, "win_rate": 0.1234,
                                "ci_low": 0.1225, "ci_high": 0.1244, "distance": 0.02, "p_closest": 0.5,
                                "status": status} for v, status in ((10, "chosen"), (11, "dropped"))])
    chosen = candidates.iloc[:1].drop(columns="status").assign(tied="11, 12", open="", stop="within tolerance",
                                                                total_games=2_000_000)
    result = TargetResult(candidates, chosen, {"vary": "smart.late_bonus", "win_rate": 0.15})
    for table, rows in ((target_tables(result)[0], 2), (summary_table(result), 1)):
        console = Console(width=80, record=True)
        console.print(table)
        lines = console.export_text().splitlines()
        assert max(len(line) for line in lines) <= 80
        assert len(lines) == 1 + 4 + rows   # title, borders and header, one line per row: nothing wrapped
    assert "tied with 11, 12" in lines[-2]


def test_cli_varies_a_policy_parameter(dial, capsys):
    from test_cli import _table_row, run
    status, out, err = run(capsys, "target", "dial", "--win-rate", "45", "--vary", "boost", "--policy", "dial",
                           "--values", "0-14", "--seed", "3", "--no-progress")
    assert status == 0, err
    assert err == ""
    assert _table_row(out, "◀ chosen")[0] == "2"
    assert _table_row(out, "tied with")[:2] == ["1", "2"] and _table_row(out, "tied with")[-1] == "tied with 12"
    assert "dial.boost for a 45% win rate" in out


@pytest.mark.parametrize("args, fragments", [
    (["--win-rate", "150", "--vary", "seals"], ["--win-rate", "0-100"]),
    (["--win-rate", "15", "--vary", "voluntary_seal"], ["does not take integers", "seals"]),
    (["--win-rate", "15", "--vary", "smart.nope"], ["no parameter 'nope'", "slack"]),
    (["--win-rate", "15", "--vary", "slack", "--policy", "smart", "--policy", "baseline"], ["one --policy"]),
    (["--win-rate", "15", "--vary", "seals", "--values", "4"], ["two or more"]),
    (["--win-rate", "15", "--vary", "seals", "--values", "9-12"], ["0-10"]),
    (["--win-rate", "15", "--vary", "seals", "--seals", "4"], ["varied setting"]),
    (["--win-rate", "15", "--vary", "seals", "--tolerance", "-1"], ["--tolerance"]),
    (["--vary", "seals"], ["--win-rate"]),
])
def test_cli_bad_input_is_one_line_and_status_2(verflucht, capsys, args, fragments):
    from test_cli import assert_one_line_error, run
    assert_one_line_error(*run(capsys, "target", "verflucht", "--no-progress", *args), *fragments)
