"""Hostile input to the new arguments of games of sides (a policy and params per side, ``side=``,
``others=``, ``--policy SIDE=POLICY``, ``--side``): a CursedsimError naming what is wrong, in one line,
never a traceback; on the two-sided test game "duel". The single-side arguments are
test_hostile_input.py's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import cursedsim
from cursedsim.compare import compare
from cursedsim.sweep import sweep

from duel_game import register_duel
from test_cli import assert_one_line_error, run
from test_hostile_input import _check   # a CursedsimError of one line naming one of the words, nothing written

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

SOMETHING = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=12),
                      st.lists(st.integers(-2, 2), max_size=2),
                      st.sampled_from(["knight", "dragon", "bold", "fire", "knight=bold", "knight=bold,dragon=x",
                                       "=", ",", "knight=", "x" * 3000, np.int64(1), (1, 2), {1, 2}, object()]))
NAMES = st.one_of(st.sampled_from(["knight", "dragon", "elf"]), st.text(max_size=5), st.integers())
POLICY = st.one_of(SOMETHING, st.dictionaries(NAMES, st.one_of(SOMETHING, st.sampled_from(
    ["bold", "wary", "fire", "sleep", "sleep:depth=1", "wary:nope=1"])), max_size=3))
PARAMS = st.one_of(SOMETHING, st.dictionaries(NAMES, st.one_of(SOMETHING, st.dictionaries(
    st.one_of(st.sampled_from(["nerve", "guard", "heat", "depth"]), st.text(max_size=4)), SOMETHING, max_size=2)),
    max_size=2))


@pytest.fixture
def duel(monkeypatch):
    return register_duel(monkeypatch)


@SETTINGS
@given(policy=POLICY, params=PARAMS)
def test_simulate_and_replay_take_any_policy_and_params_or_name_the_sides(duel, tmp_path, policy, params):
    words = ["side", "polic", "param"]
    _check(lambda: cursedsim.simulate("duel", 20, policy=policy, params=params, progress=False), words, tmp_path)
    _check(lambda: cursedsim.replay("duel", 1, 2, policy=policy, params=params), words, tmp_path)


@SETTINGS
@given(side=st.one_of(SOMETHING, NAMES), others=POLICY)
def test_compare_and_sweep_take_any_side_and_others_or_name_the_sides(duel, coin, tmp_path, side, others):
    words = ["side", "polic", "param"]
    _check(lambda: compare("duel", ["bold", "wary"], 20, side=side, others=others, progress=False), words, tmp_path)
    _check(lambda: sweep("duel", policies=["fire"], side=side, others=others, n_games=20, progress=False), words,
           tmp_path)
    _check(lambda: compare("coin", ["plain", "greedy"], 20, side=side, others=others, progress=False), words,
           tmp_path)


TEXT = st.one_of(st.text(max_size=12), st.sampled_from([
    "knight=bold", "knight=", "=bold", "knight=bold:", "knight=bold:nerve=x", "knight=bold:nerve=nan",
    "dragon=sleep:depth=1,heat=2", "knight=bold=wary", "elf=bold", "knight.nerve=1", "dragon.depth=0-3", "x" * 2000]))


@settings(SETTINGS, max_examples=40)
@pytest.mark.parametrize("command", ["simulate", "compare", "sweep", "replay"])
@given(data=st.data())
def test_policy_param_and_side_flags_work_or_are_one_line(duel, capsys, command, data):
    args = [command, "duel"] + (["--seed", "1", "--index", "2"] if command == "replay" else
                                ["--games", "30", "--no-progress"])
    for flag in data.draw(st.lists(st.sampled_from(["--policy", "--param", "--side"] if command != "compare"
                                                   else ["--policy", "--side"]), min_size=1, max_size=3),
                          label="flags"):
        if flag == "--side" and command == "replay":
            continue
        args += [flag, data.draw(TEXT, label=flag)]
    status, out, err = run(capsys, *args)
    event(f"status {status}")
    assert status == 0 or assert_one_line_error(status, out, err, stdout_empty=False) is None, (args, err)
