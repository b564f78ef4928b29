"""The command line of a game of sides, on the two-sided test game "duel" (tests/duel_game.py):
``--policy SIDE=POLICY[:param=value]``, ``--param SIDE.NAME=VALUE``, ``--side``; every table shows each
side's win rate with its interval, headers say which side varies and what the others play; bad input is
one line naming the valid sides, policies and parameters."""

from __future__ import annotations

import pytest

import cursedsim
from cursedsim.cli.sides import parse_sides
from cursedsim.sides import summary_args
from cursedsim.stats import summarize

from duel_game import register_duel
from test_cli import _table_row, assert_one_line_error, run


@pytest.fixture
def duel(monkeypatch):
    return register_duel(monkeypatch)


def rate_text(rate: float, low: float, high: float) -> str:
    return f"{100 * rate:.2f} [{100 * low:.2f}, {100 * high:.2f}]"


def side_texts(row) -> list[str]:
    return [rate_text(row[f"{side}_win_rate"], row[f"{side}_ci_low"], row[f"{side}_ci_high"])
            for side in ("knight", "dragon")]


def test_policy_texts_per_side_with_parameters(duel):
    parsed = parse_sides(duel, ["dragon=sleep:depth=2", "knight=wary", "knight=bold"], ["knight.guard=3"])
    assert parsed.varied == "knight"
    assert [(c.label, c.policy, dict(c.params)) for c in parsed.chosen["knight"]] == [
        ("wary:guard=3", "wary", {"guard": 3.0}), ("bold", "bold", {})]
    assert [(c.policy, dict(c.params)) for c in parsed.chosen["dragon"]] == [("sleep", {"depth": 2.0})]
    assert parsed.others() == {"dragon": {"policy": "sleep", "params": {"depth": 2.0}}}
    assert parsed.fixed_text() == "dragon=sleep:depth=2"
    unnamed = parse_sides(duel, [], ["heat=4"])   # every side's defaults; a bare name reaches any side having it
    assert [(c.policy, dict(c.params)) for c in unnamed.chosen["dragon"]] == [("fire", {"heat": 4.0})]
    assert unnamed.varied is None and [c.policy for c in unnamed.chosen["knight"]] == ["bold"]


def test_simulate_prints_each_sides_win_rate_per_player_count(duel, capsys):
    status, out, err = run(capsys, "simulate", "duel", "--players", "2-3", "--policy", "knight=wary",
                           "--policy", "dragon=sleep:depth=4", "--param", "knight.guard=2", "--games", "3000",
                           "--seed", "5", "--no-progress")
    assert status == 0, err
    assert "knight wins % [95% CI]" in out and "dragon wins % [95% CI]" in out
    for players in (2, 3):
        frame = cursedsim.simulate("duel", 3000, players=players, policy={"knight": "wary", "dragon": "sleep"},
                                   params={"knight": {"guard": 2}, "dragon": {"depth": 4}}, seed=5)
        row = summarize(frame, **summary_args(duel)).iloc[0]
        line = next(line for line in out.splitlines() if "wary:guard=2" in line and f" {players} " in line)
        for text in side_texts(row):
            assert text in line


def test_simulate_crosses_the_sides_policies(duel, capsys):
    status, out, err = run(capsys, "simulate", "duel", "--policy", "knight=wary", "--policy", "knight=bold",
                           "--policy", "dragon=fire", "--policy", "dragon=sleep", "--games", "500", "--no-progress")
    assert status == 0, err
    assert len([line for line in out.splitlines() if "500" in line]) == 4


def test_compare_varies_one_side_and_says_so(duel, capsys):
    status, out, err = run(capsys, "compare", "duel", "--policy", "knight=bold", "--policy", "knight=wary:guard=2",
                           "--policy", "dragon=sleep:depth=4", "--games", "3000", "--seed", "6", "--no-progress")
    assert status == 0, err
    assert "knight varies; fixed: dragon=sleep:depth=4" in out and "knight's win rate" in out
    assert "knight wins X − ref, pp [95% CI]" in out
    result = cursedsim.compare("duel", ["bold", "wary:guard=2"], 3000, side="knight",
                               others={"dragon": "sleep:depth=4"}, seed=6, progress=False)
    pair = result.pairs.iloc[0]
    assert f"{100 * pair['diff']:+.2f} [{100 * pair['ci_low']:+.2f}, {100 * pair['ci_high']:+.2f}]" in out
    for row in result.policies.to_dict("records"):
        line = _table_row(out, f"│ {row['policy']} ")
        assert side_texts(row)[0] in " ".join(line) and side_texts(row)[1] in " ".join(line)


def test_compare_of_options_only_names_the_side_with_side(duel, capsys):
    status, out, err = run(capsys, "compare", "duel", "--side", "dragon", "--option", "arena=0,10", "--games", "500",
                           "--no-progress")
    assert status == 0, err
    assert "dragon varies; fixed: knight=bold" in out and "dragon wins X − ref" in out


def test_sweep_varies_one_sides_parameters(duel, capsys):
    status, out, err = run(capsys, "sweep", "duel", "--policy", "knight=bold", "--param", "knight.nerve=0,5",
                           "--policy", "dragon=fire", "--param", "dragon.heat=2", "--games", "2000", "--seed", "3",
                           "--no-progress")
    assert status == 0, err
    assert "knight varies, fixed: dragon=fire:heat=2" in out
    table = cursedsim.sweep("duel", policies=["bold"], side="knight", others={"dragon": "fire:heat=2"},
                            params={"bold": {"nerve": [0, 5]}}, n_games=2000, seed=3, progress=False)
    for row in table.to_dict("records"):
        line = " ".join(next(line for line in out.splitlines() if f"│ {row['param_nerve']:g} " in line).split())
        for text in side_texts(row):
            assert text in line


def test_sweep_of_a_fixed_sides_parameter_values_varies_that_side(duel, capsys):
    status, out, err = run(capsys, "sweep", "duel", "--param", "dragon.heat=0,10", "--games", "500", "--no-progress")
    assert status == 0, err
    assert "dragon varies, fixed: knight=bold" in out


def test_tune_and_target_name_the_side(duel, capsys):
    status, out, err = run(capsys, "tune", "duel", "--policy", "knight=bold", "--policy", "dragon=sleep",
                           "--space", "nerve=0:10", "--candidates", "2", "--games", "300", "--final-games", "300",
                           "--reference", "wary", "--players", "2", "--no-progress")
    assert status == 0, err
    assert "bold (knight; fixed: dragon=sleep)" in out and "tuned: knight wins" in out and "dragon wins" in out
    status, out, err = run(capsys, "target", "duel", "--win-rate", "60", "--vary", "wary.guard", "--values", "0,10",
                           "--policy", "knight=wary", "--players", "2", "--start-games", "500", "--max-games", "1000",
                           "--no-progress")
    assert status == 0, err
    assert "60% knight win rate" in out and "knight plays wary; fixed: dragon=fire" in out
    assert "dragon wins % [95% CI]" in out


def test_replay_takes_a_policy_per_side(duel, capsys):
    status, out, err = run(capsys, "replay", "duel", "--seed", "9", "--index", "4", "--policy", "dragon=sleep",
                           "--param", "knight.nerve=5")
    assert status == 0, err
    assert out == cursedsim.replay("duel", 9, 4, policy={"dragon": "sleep"}, params={"knight": {"nerve": 5}})


def test_list_shows_sides_policies_and_defaults(duel, capsys):
    status, out, err = run(capsys, "list", "duel")
    assert status == 0, err
    assert "Sides" in out and "knight: default bold; wins: knight_won" in out and "sleep" in out
    status, out, err = run(capsys, "list")
    assert "side dragon: fire (default), sleep" in " ".join(out.split())


@pytest.mark.parametrize("args, fragments", [
    (["simulate", "duel", "--policy", "bold"], ["SIDE=POLICY", "knight=bold"]),
    (["simulate", "duel", "--policy", "elf=bold"], ["valid sides: knight, dragon"]),
    (["simulate", "duel", "--policy", "knight=fire"], ["valid policies of knight: bold, wary"]),
    (["simulate", "duel", "--policy", "dragon=sleep:nerve=1"], ["valid parameters: depth"]),
    (["simulate", "duel", "--param", "knight.heat=1"], ["valid parameters: knight.nerve"]),
    (["simulate", "duel", "--param", "orc.heat=1"], ["valid sides: knight, dragon"]),
    (["compare", "duel", "--policy", "knight=bold", "--policy", "knight=wary", "--policy", "dragon=fire",
      "--policy", "dragon=sleep"], ["one side only"]),
    (["compare", "duel", "--policy", "knight=bold"], ["compare varies one side", "--side"]),
    (["compare", "duel", "--policy", "knight=bold", "--side", "knight"], ["two or more contenders"]),
    (["compare", "duel", "--policy", "knight=bold", "--policy", "knight=wary", "--side", "dragon"],
     ["--side dragon varies"]),
    (["compare", "coin", "--policy", "plain", "--policy", "greedy", "--side", "knight"], ["has no sides"]),
    (["tune", "duel", "--policy", "knight=bold", "--policy", "knight=wary"], ["one --policy per side"]),
    (["replay", "duel", "--seed", "1", "--index", "1", "--policy", "knight=bold", "--policy", "knight=wary"],
     ["one --policy per side"]),
    (["sweep", "duel", "--policy", "knight=bold", "--param", "bold.heat=1,2"], ["valid parameters: nerve"]),
])
def test_bad_input_is_one_line(duel, coin, capsys, args, fragments):
    status, out, err = run(capsys, *args, *(["--no-progress", "--games", "100"] if args[0] != "replay" and
                                            args[0] != "tune" else []))
    assert_one_line_error(status, out, err, *fragments)
