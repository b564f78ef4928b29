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


# ---------------------------------------------------------------- research tools vary one side

def knight_rate(seed: int, n: int, knight: str, dragon: str, knight_param: float = 0, dragon_param: float = 0,
                arena: int = 0) -> float:
    """The knight's win rate on games 0..n-1 of ``seed``, from the draws alone."""
    return float((draws(seed, n) < knight_chance(knight, dragon, knight_param, dragon_param, arena)).mean())


def test_compare_varies_one_side_against_a_fixed_other(duel):
    result = cursedsim.compare("duel", ["bold", "wary:guard=2"], 3000, side="knight",
                               others={"dragon": "sleep:depth=4"}, seed=6, progress=False)
    row = result.pairs.iloc[0]
    bold = knight_rate(6, 3000, "bold", "sleep", 0, 4)
    wary = knight_rate(6, 3000, "wary", "sleep", 2, 4)
    assert (row["a"], row["b"]) == ("wary:guard=2", "bold")
    assert row["win_rate_a"] == wary and row["win_rate_b"] == bold and row["diff"] == pytest.approx(wary - bold)
    for label, frame in result.frames.items():   # the same games as separate simulate runs
        policy = label.partition(":")[0]
        params = {"dragon": {"depth": 4}, **({"knight": {"guard": 2}} if policy == "wary" else {})}
        alone = cursedsim.simulate("duel", 3000, seed=6, policy={"knight": policy, "dragon": "sleep"}, params=params)
        pd.testing.assert_frame_equal(frame, alone)
    rates = result.policies.set_index("policy")
    assert rates.loc["bold", "knight_win_rate"] == bold and rates.loc["bold", "dragon_win_rate"] == pytest.approx(1 - bold)
    assert rates.loc["bold", "win_rate"] == bold   # the varied side's
    assert result.settings["side"] == "knight" and result.settings["fixed"] == {"dragon": "sleep"}
    assert result.settings["fixed_params"] == {"dragon": {"depth": 4.0}}


def test_compare_infers_the_varied_side_and_varies_the_dragon(duel):
    result = cursedsim.compare("duel", ["fire", "sleep"], 2000, others={"knight": "wary"}, seed=1, progress=False)
    row = result.pairs.iloc[0]
    assert result.settings["side"] == "dragon"
    assert row["win_rate_a"] == pytest.approx(1 - knight_rate(1, 2000, "wary", "sleep"))   # the dragon's
    assert row["win_rate_b"] == pytest.approx(1 - knight_rate(1, 2000, "wary", "fire"))


@pytest.mark.parametrize("kwargs, message", [
    (dict(policies=["bold", "wary"]), r"name the side whose policy varies"),
    (dict(policies=["bold", "wary"], side="elf"), "valid sides: knight, dragon"),
    (dict(policies=["bold", "fire"], side="knight"), "valid policies of knight: bold, wary"),
    (dict(policies=["bold", "wary"], side="knight", others={"dragon": "bold"}), "valid policies of dragon"),
    (dict(policies=["bold", "wary"], side="knight", others={"knight": "bold"}), "leave it out"),
    (dict(policies=["bold", "wary:heat=1"], side="knight"), "has no parameter 'heat'; valid parameters: guard"),
    (dict(policies=["bold", "wary"], side="knight", others={"dragon": "fire:nerve=1"}), "valid parameters: heat"),
])
def test_compare_errors_name_sides_policies_and_parameters(duel, kwargs, message):
    with pytest.raises(UnknownPolicyError, match=message):
        cursedsim.compare("duel", n_games=100, progress=False, **kwargs)


def test_single_side_games_take_no_side(coin):
    with pytest.raises(UnknownPolicyError, match="has no sides"):
        cursedsim.compare("coin", ["plain", "greedy"], 100, side="knight", progress=False)


def test_sweep_varies_one_side(duel):
    table = cursedsim.sweep("duel", policies=["bold", "wary"], side="knight", others={"dragon": "fire:heat=2"},
                            params={"bold": {"nerve": [0, 5]}}, options={"arena": [0, 10]}, n_games=2000, seed=3,
                            progress=False)
    assert len(table) == 6
    for row in table.to_dict("records"):
        nerve = 0 if row["policy"] == "wary" else row["param_nerve"]
        expected = knight_rate(3, 2000, row["policy"], "fire", nerve, 2, row["arena"])
        assert row["side"] == "knight" and row["policy_knight"] == row["policy"] and row["policy_dragon"] == "fire"
        assert row["param_dragon_heat"] == 2.0
        assert row["win_rate"] == row["knight_win_rate"] == expected
        assert row["dragon_win_rate"] == pytest.approx(1 - expected)
        assert row["dragon_ci_low"] < row["dragon_win_rate"] < row["dragon_ci_high"]
    streamed = cursedsim.sweep("duel", policies=["bold", "wary"], side="knight", others={"dragon": "fire:heat=2"},
                               params={"bold": {"nerve": [0, 5]}}, options={"arena": [0, 10]}, n_games=2000, seed=3,
                               progress=False, summary_only=True)
    pd.testing.assert_frame_equal(table, streamed)


def test_tune_searches_one_sides_parameters(duel):
    from cursedsim.tune import tune
    result = tune("duel", "bold", side="knight", others={"dragon": "sleep"}, players=2, space={"nerve": (0, 10)},
                  candidates=8, start_games=2000, final_games=3000, reference="wary", seed=2, progress=False)
    assert result.sides["side"] == "knight" and result.sides["fixed"] == {"dragon": "sleep"}
    # on common random numbers the closer nerve is to 5, the more games the knight wins
    history = result.history[result.history["round"] == 0]
    best = history.loc[(history["param_nerve"] - 5).abs().idxmin(), "param_nerve"]
    assert result.params["nerve"] == best
    holdout = result.holdout.set_index("role")
    expected = float((draws(result.holdout_seed, 3000) < knight_chance("bold", "sleep", best, 0)).mean())
    assert holdout.loc["tuned", "win_rate"] == expected and "dragon_win_rate" in holdout.columns
    assert result.to_dict()["side"] == "knight"


def test_target_varies_one_sides_parameter(duel):
    from cursedsim.target import target
    result = target("duel", 0.60, vary="wary.guard", values=[0, 5, 10, 15], side="knight", others={"dragon": "fire"},
                    players=2, start_games=1000, max_games=4000, seed=8, progress=False)
    assert result.values == {2: 10}   # WARY[fire] + 10 = 60
    rows = result.candidates.set_index("value")
    for value in (0, 5):
        if rows.loc[value, "games"] >= 1000:
            n = int(rows.loc[value, "games"])
            expected = knight_rate(8, n, "wary", "fire", value)
            assert rows.loc[value, "win_rate"] == rows.loc[value, "knight_win_rate"] == expected
            assert rows.loc[value, "dragon_win_rate"] == pytest.approx(1 - expected)
    assert result.settings["side"] == "knight"
    dragon = target("duel", 0.40, vary="heat", values=[0, 10, 20], side="dragon", others={"knight": "bold"},
                    players=2, start_games=1000, max_games=4000, seed=8, progress=False)
    assert dragon.values == {2: 0}   # the dragon wins 1 - (45 - 5 - heat) percent: 60% at heat 0


def test_precision_targets_the_named_sides_win_rate(duel):
    from cursedsim.precision import simulate_to_precision
    run = simulate_to_precision("duel", 0.02, policy={"dragon": "sleep"}, side="dragon", seed=2, progress=False)
    n = run.n_games
    rate = 1 - knight_rate(2, n, "bold", "sleep")
    from cursedsim.precision import wilson_half_width
    assert run.half_width == pytest.approx(wilson_half_width(round(rate * n), n))


# ---------------------------------------------------------------- plugins

def test_a_user_policy_is_registered_for_one_side(duel, tmp_path):
    from cursedsim.plugins import add_policy, load_plugin
    plugin = tmp_path / "duel_brave_plugin.py"
    plugin.write_text("from cursedsim.games.base import PolicySpec\n"
                      "from cursedsim.plugins import add_policy\n"
                      "add_policy('duel', PolicySpec('brave', 9, 'Plays like wary.', {'guard': 3.0}, impl=object),"
                      " side='knight')\n")
    try:
        loaded = load_plugin(str(plugin))
        assert loaded.policies == (("duel", "knight=brave"),)
        frame = cursedsim.simulate("duel", 1000, policy={"knight": "brave"}, seed=4)
        assert set(frame["policy_knight"]) == {"brave"}
        np.testing.assert_array_equal(frame["knight_won"], draws(4, 1000) < knight_chance("wary", "fire", 3, 0))
        with pytest.raises(UnknownPolicyError, match="valid policies of dragon: fire, sleep"):
            cursedsim.simulate("duel", 10, policy={"dragon": "brave"})   # it plays for the knight only
        spec = PolicySpec("other", 8, "", impl=object)
        with pytest.raises(UnknownPolicyError, match=r"has sides \(knight, dragon\): register policy 'other'"):
            add_policy("duel", spec)
        with pytest.raises(UnknownPolicyError, match="valid sides: knight, dragon"):
            add_policy("duel", spec, side="town")
        with pytest.raises(UnknownPolicyError, match="built-in policy of side 'dragon'"):
            add_policy("duel", PolicySpec("fire", 8, "", impl=object), side="dragon")
    finally:
        DUEL.side("knight").policies.pop("brave", None)


def test_a_single_side_game_registers_without_a_side(coin):
    from cursedsim.plugins import add_policy
    with pytest.raises(UnknownPolicyError, match="has no sides"):
        add_policy("coin", PolicySpec("mine", 5, "", impl=object), side="knight")


# ---------------------------------------------------------------- reports

def test_report_policies_are_a_sides_own(duel, tmp_path):
    from cursedsim.report.data import ReportChoices, ReportError, load_tuned, paired_win_change, report_policies
    from cursedsim.tune import tune, tune_summary
    choices = ReportChoices(policies=("knight=wary:guard=2", "dragon=sleep"))
    knight = report_policies(duel, ["bold"], choices, "knight")
    assert [(p.label, p.policy, dict(p.params), p.side) for p in knight] == [
        ("bold", "bold", {}, "knight"), ("wary:guard=2", "wary", {"guard": 2.0}, "knight")]
    assert [p.label for p in report_policies(duel, ["fire"], choices, "dragon")] == ["fire", "sleep"]
    assert knight[1].run_name(2).startswith("knight-wary")
    with pytest.raises(UnknownPolicyError, match="valid sides: knight, dragon"):
        report_policies(duel, ["bold"], choices)
    with pytest.raises(ReportError, match="SIDE=POLICY"):
        report_policies(duel, ["bold"], ReportChoices(policies=("wary",)), "knight")
    with pytest.raises(UnknownPolicyError, match="valid policies of knight"):
        report_policies(duel, ["bold"], ReportChoices(policies=("knight=sleep",)), "knight")
    result = tune("duel", "bold", side="knight", others={"dragon": "fire"}, players=2, space={"nerve": (0, 10)},
                  candidates=2, start_games=200, final_games=200, reference="wary", seed=1, progress=False)
    path = tmp_path / "tuned.json"
    path.write_text(json.dumps(tune_summary([result])))
    (tuned,) = load_tuned(str(path), duel)
    assert (tuned.label, tuned.side, tuned.params_at(2)) == ("bold (tuned)", "knight", result.params)
    assert [p.label for p in report_policies(duel, ["fire"], ReportChoices(tuned_file=str(path)), "dragon")] == ["fire"]
    a = cursedsim.simulate("duel", 500, policy={"knight": "wary"}, seed=3)
    b = cursedsim.simulate("duel", 500, seed=3)
    change = paired_win_change(a, b, duel.outcome_columns, win=duel.win_column("dragon"))
    assert change["value_option"] == a["dragon_won"].mean() and change["value_default"] == b["dragon_won"].mean()
