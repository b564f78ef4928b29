"""target over several modes at once (``modes=``, ``--mode``): the ``Game.modes`` record, one search per
mode giving exactly the rows of that mode's pairing searched by hand, resuming per mode, the errors (unknown
mode, a game without modes, a --policy the mode already gives) and the command line. On the duel test game
given modes (fast, exact rates), plus So, You've Been Cursed.'s table, checked without playing a game."""

from __future__ import annotations

import dataclasses
import os
import re

import pandas as pd
import pytest

from cursedsim import games, runner
from cursedsim.errors import CursedsimError, RunError, UnknownPolicyError
from cursedsim.games.base import Game
from cursedsim.target import mode_side, target

from duel_game import DUEL

#: Two pairings naming both sides, one naming only the dragon (the knight plays ``policy`` or his default).
MODES = {"charge": {"knight": "bold", "dragon": "fire"}, "siege": {"knight": "wary", "dragon": "sleep"},
         "lair": {"dragon": "sleep"}}
FAST = dict(vary="arena", values=range(-6, 7, 2), players=[2, 3], start_games=400, max_games=1_600, seed=5,
            progress=False)


@pytest.fixture
def moded(monkeypatch) -> Game:
    game = dataclasses.replace(DUEL, modes=MODES)
    monkeypatch.setitem(games.GAME_MODULES, "duel", "duel_game")
    monkeypatch.setitem(games._loaded, "duel", game)
    return game


# ---------------------------------------------------------------- the Game record

def test_village_names_each_modes_pairing_once_for_the_game_and_its_report():
    from cursedsim.games.village import mode_of_pairing, rules
    from cursedsim.report.village import data
    village = games.get_game("village")
    assert set(village.modes) == set(rules.MODE_NAMES)
    for mode, pairing in village.modes.items():
        specs = {side: village.policy(name, side) for side, name in pairing.items()}
        assert mode_of_pairing(specs) == mode   # the pairing plays its mode
        assert data.MODE_PAIRINGS[mode] == (pairing["wizard"], pairing["monster"])
    assert data.PLAN.pairing(rules.DUEL) == ("planner", "glutton")


def test_games_without_modes_have_an_empty_table_and_bad_tables_are_refused():
    assert games.get_game("verflucht").modes == {} and DUEL.modes == {}
    for modes, message in (({"charge": {"knight": "nope"}}, "not one of its policies"),
                           ({"charge": {"town": "bold"}}, "not a side (knight, dragon)"),
                           ({"two words": {"knight": "bold"}}, "not an identifier"),
                           ({"charge": {}}, "does not map sides to policies")):
        with pytest.raises(CursedsimError, match=re.escape(message)):
            dataclasses.replace(DUEL, modes=modes)
    verflucht = games.get_game("verflucht")
    with pytest.raises(CursedsimError, match="needs a game of sides"):
        dataclasses.replace(verflucht, modes={"solo": {"knight": "bold"}})


# ---------------------------------------------------------------- the search

def test_each_mode_gives_the_rows_of_its_pairing_searched_by_hand(moded):
    result = target("duel", 0.5, modes="charge,siege,lair", **FAST)
    assert list(result.candidates.columns[:3]) == ["mode", "players", "value"]
    assert list(result.chosen["mode"]) == ["charge", "charge", "siege", "siege", "lair", "lair"]
    assert result.settings["modes"] == {"charge": {"knight": "bold", "dragon": "fire"},
                                        "siege": {"knight": "wary", "dragon": "sleep"},
                                        "lair": {"knight": "bold", "dragon": "sleep"}}
    assert result.settings["side"] == "knight"
    for mode, pairing in result.settings["modes"].items():
        by_hand = target("duel", 0.5, side="knight", policy=pairing["knight"], others={"dragon": pairing["dragon"]},
                         **FAST)
        for name in ("candidates", "chosen"):
            mine = getattr(result, name)
            mine = mine[mine["mode"] == mode].drop(columns="mode").reset_index(drop=True)
            pd.testing.assert_frame_equal(mine, getattr(by_hand, name))
        for players, value in by_hand.values.items():
            assert result.values[(mode, players)] == value
    # a mode naming one side: the other plays the given policy
    wary = target("duel", 0.5, modes=["lair"], policy="wary", **FAST)
    assert wary.settings["modes"] == {"lair": {"knight": "wary", "dragon": "sleep"}}
    by_hand = target("duel", 0.5, side="knight", policy="wary", others={"dragon": "sleep"}, **FAST)
    pd.testing.assert_frame_equal(wary.candidates.drop(columns="mode"), by_hand.candidates)


def test_the_targeted_side_is_given_or_found_from_the_vary(moded):
    assert mode_side(moded, "arena", None) == "knight"          # the first side
    assert mode_side(moded, "sleep.depth", None) == "dragon"    # the side of the policy named
    assert mode_side(moded, "arena", "dragon") == "dragon"
    dragon = target("duel", 0.5, modes="siege,lair", vary="sleep.depth", values=[0, 5, 10], players=[2],
                    start_games=400, max_games=800, progress=False)
    assert dragon.settings["side"] == "dragon" and dragon.settings["vary"] == "sleep.depth"
    rates = dragon.candidates.set_index(["mode", "value"])["win_rate"]
    assert (rates == dragon.candidates.set_index(["mode", "value"])["dragon_win_rate"]).all()


def test_modes_do_not_depend_on_jobs_and_resume_per_mode(moded, tmp_path, monkeypatch):
    out = tmp_path / "target"
    first = target("duel", 0.5, modes="charge,siege", out=out, **FAST)
    # the two modes' knights differ, the cells do not collide: one folder per mode
    assert sorted(os.listdir(out / "cells")) == ["charge", "siege"]
    two = target("duel", 0.5, modes="charge,siege", n_jobs=2, chunk_size=300, **FAST)
    pd.testing.assert_frame_equal(first.candidates, two.candidates)

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played again")

    monkeypatch.setattr(runner.execute, "_play_chunk", no_games)
    again = target("duel", 0.5, modes="siege", out=out, **FAST)   # one mode of the two: every round kept
    pd.testing.assert_frame_equal(again.candidates,
                                  first.candidates[first.candidates["mode"] == "siege"].reset_index(drop=True))
    with pytest.raises(RunError, match="seed"):
        target("duel", 0.5, modes="siege", out=out, **{**FAST, "seed": 6})


@pytest.mark.parametrize("kwargs, error, fragments", [
    (dict(modes="charge,nope"), RunError, ["unknown mode 'nope' of duel", "valid modes: charge, siege, lair"]),
    (dict(modes=[]), RunError, ["at least one mode", "charge, siege, lair"]),
    (dict(modes=7), RunError, ["must name modes of duel"]),
    (dict(modes="siege", policy="bold"), UnknownPolicyError, ["mode siege plays knight=wary, dragon=sleep",
                                                              "leave out its policy"]),
    (dict(modes="lair", others={"dragon": "fire"}), UnknownPolicyError, ["mode lair plays dragon=sleep",
                                                                          "leave side 'dragon' out"]),
    (dict(modes="charge,siege", vary="bold.nerve"), UnknownPolicyError, ["mode siege:", "'bold'", "'wary'"]),
    (dict(modes="charge,siege", side="town"), UnknownPolicyError, ["valid sides: knight, dragon"]),
])
def test_bad_modes_are_clear_errors(moded, kwargs, error, fragments):
    kwargs = {**FAST, **kwargs}
    with pytest.raises(error) as info:
        target("duel", 0.5, **kwargs)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_a_game_without_modes_says_so(coin):
    with pytest.raises(RunError, match="coin has no modes"):
        target("coin", 0.3, vary="p_percent", values=[20, 30], modes="duel", progress=False)


# ---------------------------------------------------------------- the command line

def test_cli_searches_each_mode_and_names_it(moded, capsys, tmp_path):
    from test_cli import _table_row, run
    status, out, err = run(capsys, "target", "duel", "--win-rate", "50", "--vary", "arena", "--values", "-6,-4,-2,0,2,4,6",
                           "--mode", "charge,siege", "--mode", "lair", "--players", "2,3", "--start-games", "400",
                           "--max-games", "1600", "--seed", "5", "--out", str(tmp_path / "t"))
    assert status == 0, err
    api = target("duel", 0.5, modes="charge,siege,lair", **FAST)
    assert ("duel: arena for a 50% knight win rate; values -6, -4, -2, 0, 2, 4, 6; modes charge (knight=bold, "
            "dragon=fire), siege (knight=wary, dragon=sleep), lair (knight=bold, dragon=sleep); seed 5") in out
    for chosen in api.chosen.to_dict("records"):
        assert f"{chosen['mode']}, {chosen['players']} players: arena {chosen['value']} (" in out
        assert _table_row(out, f" {chosen['mode']} ")[:3] == [chosen["mode"], "3", str(chosen["value"])]
    assert "dragon wins % [95% CI]" in out
    assert "target duel siege p=3: round 1/3, 7 value(s) left" in err
    written = pd.read_csv(tmp_path / "t" / "chosen.csv")
    assert list(written["mode"]) == list(api.chosen["mode"]) and list(written["value"]) == list(api.chosen["value"])


def test_cli_help_describes_mode():
    from click.testing import CliRunner

    from cursedsim.cli.app import cli
    text = " ".join(CliRunner().invoke(cli, ["target", "--help"], terminal_width=200).output.split())
    assert "--mode MODE[,MODE...]" in text and "rabid_monster,duel" in text and "Repeatable" in text.title()


@pytest.mark.parametrize("args, fragments", [
    (["--mode", "nope"], ["unknown mode 'nope'", "charge, siege, lair"]),
    (["--mode", "siege", "--policy", "knight=bold"], ["--mode siege plays knight=wary, dragon=sleep",
                                                      "leave out --policy knight=bold"]),
    (["--mode", "lair", "--policy", "dragon=fire"], ["--mode lair plays dragon=sleep"]),
    (["--mode", "siege", "--param", "dragon.depth=1"], ["targeted side's (knight)", "dragon.depth"]),
])
def test_cli_bad_modes_are_one_line_and_status_2(moded, capsys, args, fragments):
    from test_cli import assert_one_line_error, run
    assert_one_line_error(*run(capsys, "target", "duel", "--win-rate", "50", "--vary", "arena", "--no-progress",
                               *args), *fragments)


def test_cli_mode_on_a_game_without_modes(verflucht, capsys):
    from test_cli import assert_one_line_error, run
    assert_one_line_error(*run(capsys, "target", "verflucht", "--win-rate", "15", "--vary", "seals", "--mode", "duel",
                               "--no-progress"), "verflucht has no modes", "--mode")
