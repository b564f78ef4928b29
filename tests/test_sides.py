"""Games of sides in the shared layer, on the two-sided test game "duel" (tests/duel_game.py): the
policy per side, the frame's policy_<side> and param_<side>_<name> columns, defaults, errors naming the
valid sides / policies / parameters, determinism across jobs, chunks and resumes, and each side's wins."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim import rng
from cursedsim.errors import CursedsimError, UnknownPolicyError
from cursedsim.games.base import Game, PolicySpec, Side
from cursedsim.sides import policy_label, summary_args
from cursedsim.stats import summarize

from duel_game import BOLD, DUEL, WARY, knight_chance, register_duel


@pytest.fixture
def duel(monkeypatch):
    return register_duel(monkeypatch)


def draws(seed: int, n: int, first: int = 0) -> np.ndarray:
    """The duel's per-game draw u in 0..99, computed here from the streams (independent of the game)."""
    return np.array([rng.Stream(seed, i).below(100) for i in range(first, first + n)])


# ---------------------------------------------------------------- the Game record

def test_a_game_of_sides_looks_up_policies_per_side(duel):
    assert duel.side_names == ("knight", "dragon")
    assert duel.side("dragon").policy("sleep").name == "sleep"
    assert duel.policy("wary", side="knight").params == {"guard": 0.0}
    assert duel.win_column("dragon") == "dragon_won"
    assert list(duel.policies_of("knight")) == ["bold", "wary"]
    assert duel.default_policy_of("dragon") == "fire"
    with pytest.raises(UnknownPolicyError, match="valid sides: knight, dragon"):
        duel.side("town")
    with pytest.raises(UnknownPolicyError, match="valid policies of dragon: fire, sleep"):
        duel.side("dragon").policy("bold")
    with pytest.raises(UnknownPolicyError, match=r"has sides \(knight, dragon\): name the side"):
        duel.policy("bold")


def test_a_single_side_game_has_no_sides():
    game = cursedsim.get_game("verflucht")
    assert game.sides == () and game.win_column() == "win"
    assert game.policies_of() is game.policies and game.default_policy_of() == "baseline"
    with pytest.raises(UnknownPolicyError, match="has no sides"):
        game.side("hunter")


@pytest.mark.parametrize("change, message", [
    (dict(sides=(Side("knight", {}, "bold", "knight_won"),)), "has no policies"),
    (dict(sides=(Side("knight", DUEL.sides[0].policies, "nope", "knight_won"),)), "no default policy 'nope'"),
    (dict(sides=(Side("knight", DUEL.sides[0].policies, "bold", "won"),)), "not an outcome column"),
    (dict(sides=(DUEL.sides[0], DUEL.sides[0])), "is named twice"),
    (dict(sides=(Side("the knight", DUEL.sides[0].policies, "bold", "knight_won"),)), "not an identifier"),
    (dict(policies={"bold": PolicySpec("bold", 0, "")}, default_policy="bold"), "policies={}"),
])
def test_a_malformed_game_of_sides_is_refused(change, message):
    import dataclasses
    fields = {f.name: getattr(DUEL, f.name) for f in dataclasses.fields(Game)}
    with pytest.raises(CursedsimError, match=message):
        Game(**{**fields, **change})


# ---------------------------------------------------------------- the frame

def test_the_frame_has_a_policy_and_parameter_column_per_side(duel):
    frame = cursedsim.simulate("duel", 3000, policy={"knight": "wary", "dragon": "sleep"},
                               params={"dragon": {"depth": 4}, "knight": {"guard": 2}}, seed=5)
    assert list(frame.columns) == ["game", "seed", "game_index", "players", "policy", "policy_knight", "policy_dragon",
                                   "arena", "param_knight_guard", "param_dragon_depth", "knight_won", "dragon_won",
                                   "winner", "rounds"]
    assert (frame["policy"] == "knight=wary,dragon=sleep").all()
    assert isinstance(frame["policy_knight"].dtype, pd.CategoricalDtype)
    assert set(frame["policy_knight"]) == {"wary"} and set(frame["policy_dragon"]) == {"sleep"}
    assert (frame["param_dragon_depth"] == 4.0).all() and (frame["param_knight_guard"] == 2.0).all()
    expected = draws(5, 3000) < knight_chance("wary", "sleep", 2, 4)   # WARY[sleep] + 2 - 4 = 53
    np.testing.assert_array_equal(frame["knight_won"].to_numpy(), expected)
    np.testing.assert_array_equal(frame["dragon_won"].to_numpy(), ~expected)


def test_a_side_left_out_plays_its_default(duel):
    left_out = cursedsim.simulate("duel", 500, policy={"knight": "wary"}, seed=2)
    assert set(left_out["policy_dragon"]) == {"fire"}
    both = cursedsim.simulate("duel", 500, policy={"dragon": "fire", "knight": "wary"}, seed=2)
    pd.testing.assert_frame_equal(left_out, both)   # the label follows the sides' order, not the mapping's
    none = cursedsim.simulate("duel", 500, seed=2)
    assert set(none["policy"]) == {"knight=bold,dragon=fire"}
    as_label = cursedsim.simulate("duel", 500, policy="knight=wary", seed=2)
    pd.testing.assert_frame_equal(as_label, left_out)


@pytest.mark.parametrize("policy, params, message", [
    ("bold", None, r"has sides \(knight, dragon\): give a policy per side.*knight=bold,dragon=fire"),
    ({"elf": "bold"}, None, "unknown side 'elf' of duel; valid sides: knight, dragon"),
    ({"knight": "fire"}, None, "unknown policy 'fire' for side 'knight'; valid policies of knight: bold, wary"),
    ({"knight": 3}, None, "valid policies of knight: bold, wary"),
    (None, {"dragon": {"nerve": 1}}, "policy 'fire' of side 'dragon' has no parameter 'nerve'; valid parameters: heat"),
    (None, {"orc": {"heat": 1}}, "valid sides: knight, dragon"),
    (None, {"dragon": 5}, "must be a mapping of parameter names"),
    (None, {"dragon": {"heat": float("inf")}}, "must be a number"),
    (None, [("dragon", 1)], "must map sides"),
    ("knight=bold,knight=wary", None, "given twice"),
])
def test_errors_name_the_valid_sides_policies_and_parameters(duel, policy, params, message):
    with pytest.raises(UnknownPolicyError, match=message):
        cursedsim.simulate("duel", 10, policy=policy, params=params)
    with pytest.raises(UnknownPolicyError, match=message):
        cursedsim.replay("duel", 0, 0, policy=policy, params=params)


def test_the_game_gets_every_side_in_order(duel, monkeypatch):
    seen = []

    def spy(seed, start, count, players, options, policy, params):
        seen.append((policy, params))
        return DUEL.run_chunk(seed, start, count, players, options, policy, params)

    import dataclasses
    spied = dataclasses.replace(DUEL, run_chunk=spy)
    cursedsim.simulate(spied, 10, policy={"dragon": "sleep"}, params={"dragon": {"depth": 3}})
    policy, params = seen[-1]
    assert list(policy) == ["knight", "dragon"] and [s.name for s in policy.values()] == ["bold", "sleep"]
    assert params["dragon"].dtype == np.float64 and params["dragon"].tolist() == [3.0]
    assert params["knight"].tolist() == [0.0]


def test_replay_plays_the_row_simulate_played(duel):
    frame = cursedsim.simulate("duel", 40, policy={"dragon": "sleep"}, params={"knight": {"nerve": 5}}, seed=9)
    for index in (0, 17, 39):
        log = cursedsim.replay("duel", 9, index, policy={"dragon": "sleep"}, params={"knight": {"nerve": 5}})
        winner = "knight" if frame["knight_won"][index] else "dragon"
        assert log == f"duel game {index}: knight bold vs dragon sleep: {winner} won\n"


# ---------------------------------------------------------------- determinism and run directories

def test_frames_do_not_depend_on_jobs_chunks_or_resume(duel, tmp_path):
    settings = dict(policy={"knight": "wary"}, params={"dragon": {"heat": 3}}, seed=11, progress=False)
    base = cursedsim.simulate("duel", 4000, **settings)
    pd.testing.assert_frame_equal(base, cursedsim.simulate("duel", 4000, n_jobs=2, chunk_size=700, **settings))
    out = tmp_path / "run"

    def dies_at_2000(seed, start, count, *rest):
        if start >= 2000:
            raise KeyboardInterrupt
        return DUEL.run_chunk(seed, start, count, *rest)

    import dataclasses
    with pytest.raises(KeyboardInterrupt):
        cursedsim.simulate(dataclasses.replace(DUEL, run_chunk=dies_at_2000), 4000, chunk_size=500, out=out,
                           **settings)
    assert len([name for name in os.listdir(out) if name.startswith("chunk-")]) == 4
    resumed = cursedsim.simulate("duel", 4000, chunk_size=900, out=out, **settings)
    pd.testing.assert_frame_equal(base, resumed)
    with pytest.raises(CursedsimError, match="policy"):   # another policy of a side is another run
        cursedsim.simulate("duel", 4000, out=out, **{**settings, "policy": {"knight": "bold"}})


def test_run_json_holds_the_policy_per_side(duel, tmp_path):
    cursedsim.simulate("duel", 100, policy={"knight": "wary"}, params={"dragon": {"heat": 3}}, out=str(tmp_path / "r"))
    with open(tmp_path / "r" / "run.json") as f:
        config = json.load(f)
    config = config.get("config", config)
    assert config["policy"] == {"knight": "wary", "dragon": "fire"}
    assert config["params"] == {"dragon": {"heat": 3.0}}


def test_a_single_side_run_json_keeps_its_keys(coin, tmp_path):
    cursedsim.simulate("coin", 100, params={"bonus": 2}, out=str(tmp_path / "r"), progress=False)
    with open(tmp_path / "r" / "run.json") as f:
        config = json.load(f)
    config = config.get("config", config)
    assert set(config) == {"game", "n_games", "players", "policy", "params", "options", "seed", "chunk_size",
                           "cursedsim_version", "code"}
    assert config["policy"] == "plain" and config["params"] == {"bonus": 2.0}


def test_every_side_keeps_its_wins_in_the_streaming_summary(duel):
    settings = dict(policy={"dragon": "sleep"}, params={"knight": {"nerve": 3}}, seed=4)
    frame = cursedsim.simulate("duel", 3000, **settings)
    summary = cursedsim.simulate("duel", 3000, summary_only=True, chunk_size=800, **settings)
    knight = int(frame["knight_won"].sum())
    assert summary.wins_of("knight") == knight and summary.wins_of("dragon") == 3000 - knight
    for side in ("knight", "dragon"):
        args = summary_args(duel, side)
        pd.testing.assert_frame_equal(summary.summarize(**args),
                                      summarize(frame, measures=duel.measures, **args))
    row = summarize(frame, **summary_args(duel, "dragon")).iloc[0]
    assert row["wins"] == 3000 - knight and row["knight_wins"] == knight and row["dragon_win_rate"] == row["win_rate"]
    assert "knight win rate" in repr(summary) and "dragon win rate" in repr(summary)


def test_policy_label():
    assert policy_label({"knight": "bold", "dragon": "fire"}) == "knight=bold,dragon=fire"
    assert policy_label("smart") == "smart"
    assert BOLD["fire"] - 5 == knight_chance("bold", "fire", 0, 0) and WARY["sleep"] == knight_chance("wary", "sleep", 0, 0)
