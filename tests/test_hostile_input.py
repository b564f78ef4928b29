"""Hostile input: every bad value of every public function's arguments and of every command-line option
raises a ``CursedsimError`` naming what is wrong (the CLI: one line ``cursedsim: error: ...``, exit 2),
quickly, before any file is written; never a traceback, a MemoryError or a partial file.

The findings of the issue that asked for this are tests of their own; then property-based tests
(hypothesis, derandomized so every run tries the same values) throw values of every kind at one argument
(or a few options) at a time, the others valid.
"""

from __future__ import annotations

import os
import shutil
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import cursedsim
from cursedsim import runner
from cursedsim.compare import compare
from cursedsim.errors import MAX_MESSAGE, CursedsimError, OptionError, RunError, UnknownPolicyError
from cursedsim.sweep import sweep
from cursedsim.tune import tune

from test_cli import assert_one_line_error, run

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.data_too_large, HealthCheck.filter_too_much])


# ---------------------------------------------------------------- the findings, one by one

def test_huge_player_ranges_and_game_counts_fail_fast_without_memory_errors(coin, verflucht, capsys, tmp_path,
                                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    started = time.perf_counter()
    assert_one_line_error(*run(capsys, "simulate", "verflucht", "--players", "1-100000000"), "1-5 players")
    assert_one_line_error(*run(capsys, "simulate", "coin", "--seals", "0-100000000"), "at most 1,000")
    assert_one_line_error(*run(capsys, "simulate", "verflucht", "--games", str(10 ** 15)), "memory", "--summary-only")
    assert_one_line_error(*run(capsys, "compare", "verflucht", "--policy", "baseline", "--policy", "smart",
                               "--games", str(10 ** 15)), "memory")
    assert_one_line_error(*run(capsys, "sweep", "verflucht", "--games", str(10 ** 15)), "memory")
    with pytest.raises(RunError, match="memory"):
        cursedsim.simulate("verflucht", 10 ** 15)
    with pytest.raises(RunError, match="2\\*\\*63"):
        cursedsim.simulate("coin", 2 ** 63, summary_only=True)
    assert time.perf_counter() - started < 30
    assert os.listdir(tmp_path) == []


def test_nan_and_infinite_numbers_are_refused(coin, capsys):
    for value in (float("nan"), float("inf"), -float("inf"), np.float64("nan")):
        with pytest.raises(UnknownPolicyError, match="parameter 'bonus' of policy 'plain' must be a number"):
            cursedsim.simulate("coin", 10, params={"bonus": value}, progress=False)
    with pytest.raises(UnknownPolicyError, match="must be a number"):
        compare("coin", ["plain", {"policy": "greedy", "params": {"spare": float("nan")}}], 10, progress=False)
    with pytest.raises(UnknownPolicyError, match="must be a number"):
        sweep("coin", policies=["greedy"], params={"greedy": {"spare": [1, float("inf")]}}, n_games=10)
    for text in ("nan", "inf", "-inf", "1e400"):
        assert_one_line_error(*run(capsys, "simulate", "coin", "--param", f"bonus={text}"), "finite")
        assert_one_line_error(*run(capsys, "sweep", "coin", "--param", f"bonus=0,{text}"), "finite")
        assert_one_line_error(*run(capsys, "tune", "coin", "--space", f"bonus=0:{text}"), "finite")
        assert_one_line_error(*run(capsys, "compare", "coin", "--policy", "plain", "--policy", f"greedy:bonus={text}"),
                              "bonus", "number")


def test_replay_indices_beyond_int64_are_refused(coin, capsys):
    assert "coin game" in cursedsim.replay("coin", 1, 2 ** 63 - 1)
    for index in (2 ** 63, 2 ** 64, -1, 1.0, "3", True):
        with pytest.raises(RunError, match="game index"):
            cursedsim.replay("coin", 1, index)
    assert_one_line_error(*run(capsys, "replay", "coin", "--seed", "1", "--index", str(2 ** 63)), "game index")


def test_api_errors_are_cursedsim_errors(coin, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("x")
    for out, fragment in [(123, "directory path"), (b"bytes", "directory path"), ("", "empty"),
                          ("file", "is a file"), ("file/sub", "is a file"), ("/proc/cursedsim-x/run", "cannot create")]:
        for call in (lambda o: cursedsim.simulate("coin", 10, out=o, progress=False),
                     lambda o: compare("coin", ["plain", "greedy"], 10, out=o, progress=False),
                     lambda o: sweep("coin", n_games=10, out=o, progress=False)):
            with pytest.raises(RunError, match=fragment):
                call(out)
    for out, fragment in [(123, "directory path"), (b"bytes", "directory path"), ("", "empty"),
                          ("file", "is a file")]:
        with pytest.raises(CursedsimError, match=fragment):   # a ReportError
            cursedsim.report("verflucht", out, n_games=10)
    assert os.listdir(tmp_path) == ["file"]
    with pytest.raises(UnknownPolicyError, match="takes the keys policy, params and label"):
        compare("coin", ["plain", {"params": {"bonus": 1}}], 10, progress=False)
    with pytest.raises(UnknownPolicyError, match="must be a list of two or more policies.*'plain'"):
        compare("coin", "plain", 10, progress=False)


def test_numpy_scalars_are_accepted_wherever_python_numbers_are(coin, verflucht):
    frame = cursedsim.simulate("verflucht", 200, players=np.int64(3), options={"seals": np.int64(4),
                               "voluntary_seal": np.bool_(False)}, params=None, seed=np.uint64(5), progress=False)
    expected = cursedsim.simulate("verflucht", 200, players=3, options={"seals": 4, "voluntary_seal": False}, seed=5,
                                  progress=False)
    pd.testing.assert_frame_equal(frame, expected)
    with pytest.raises(OptionError, match="option 'seals' of verflucht takes an integer or None, got 4.0"):
        cursedsim.simulate("verflucht", 10, options={"seals": 4.0})
    sweep("coin", options={"seals": [np.int8(1), 2]}, n_games=10, progress=False)


def test_compare_policy_strings(coin, capsys):
    with pytest.raises(UnknownPolicyError, match="policies must be a list"):
        compare("coin", "plain", 100)
    assert_one_line_error(*run(capsys, "compare", "coin", "--policy", "plain", "--policy", "greedy:bonus=abc"),
                          "parameter 'bonus'", "takes a number", "'abc'")
    assert_one_line_error(*run(capsys, "compare", "coin", "--policy", "plain", "--policy", "greedy:"),
                          "no parameters", "NAME:param=value")


def test_long_names_are_clipped_in_messages(coin, capsys):
    name = "x" * 100_000
    for call, error in [(lambda: cursedsim.simulate(name, 10), CursedsimError),
                        (lambda: cursedsim.simulate("coin", 10, policy=name), UnknownPolicyError),
                        (lambda: cursedsim.simulate("coin", 10, options={name: 1}), OptionError),
                        (lambda: cursedsim.simulate("coin", 10, params={name: 1}), UnknownPolicyError)]:
        with pytest.raises(error) as caught:
            call()
        assert len(str(caught.value)) < 400 and "xxx…" in str(caught.value)
    for args in (["simulate", name], ["simulate", "coin", "--policy", name], ["simulate", "coin", "--games", name],
                 ["compare", "coin", "--policy", "plain", "--policy", name], ["replay", name, "--seed", "1",
                                                                              "--index", "1"]):
        status, out, err = run(capsys, *args)
        assert_one_line_error(status, out, err)
        assert len(err) < 400


# ---------------------------------------------------------------- property tests: the API

ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=-2 ** 70, max_value=2 ** 70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20), st.binary(max_size=8),
    st.lists(st.integers(-3, 5), max_size=3), st.dictionaries(st.text(max_size=6), st.integers(-3, 3), max_size=2),
    st.sampled_from([np.int64(2), np.int8(-1), np.uint64(2 ** 64 - 1), np.float64("nan"), np.float32(0.5),
                     np.bool_(True), "coin", "plain", "greedy", "x" * 5000, (1, 2), {1, 2}, 1j, object()]))
#: Game counts that run fast, or are refused: not a run of millions.
GAMES = st.one_of(st.integers(max_value=300), st.integers(min_value=10 ** 12), st.floats(), st.text(max_size=5),
                  st.sampled_from([np.int64(50), 2 ** 63, 2 ** 64, True, None]))
#: Output paths: relative names below the test's folder, and the hostile ones.
OUTS = st.one_of(st.text(alphabet="abc._-", min_size=1, max_size=8).filter(lambda s: ".." not in s and s != "."),
                 st.sampled_from(["", "  ", "file", "file/sub", "/proc/cursedsim-x/out", "a\x00b", 123, b"b", 1.5,
                                  "x" * 300]))
OPTIONS = st.dictionaries(st.one_of(st.sampled_from(["p_percent", "lucky", "seals", "nope"]), st.text(max_size=8),
                                    st.integers()), ANYTHING, max_size=3)
PARAMS = st.one_of(st.dictionaries(st.one_of(st.sampled_from(["bonus", "spare", "nope"]), st.text(max_size=5),
                                             st.integers()), ANYTHING, max_size=2), ANYTHING)

SIMULATE = {   # argument: (strategy, words one of which an error about it names)
    "game": (st.one_of(ANYTHING, st.sampled_from(["coin", "plaincoin", "Coin", ""])), ["game"]),
    "n_games": (GAMES, ["number of games", "memory"]),
    "players": (ANYTHING, ["player"]),
    "policy": (ANYTHING, ["polic"]),
    "options": (st.one_of(OPTIONS, ANYTHING), ["option"]),
    "params": (PARAMS, ["param"]),
    "seed": (ANYTHING, ["seed"]),
    "n_jobs": (st.one_of(ANYTHING, st.integers(-3, 3), st.sampled_from([runner.MAX_JOBS, runner.MAX_JOBS + 1])),
               ["n_jobs"]),
    "backend": (st.one_of(ANYTHING, st.sampled_from(["loky", "sequential", "ray", "LOKY"])), ["backend"]),
    "chunk_size": (st.one_of(ANYTHING, st.integers(-2, 300), st.just(runner.MAX_CHUNK_SIZE + 1)), ["chunk_size"]),
    "out": (OUTS, ["out", "director", "cannot"]),
    "progress": (ANYTHING, ["progress"]),
    "summary_only": (ANYTHING, ["summary_only"]),
    "dask_address": (st.one_of(ANYTHING, st.sampled_from(["tcp://127.0.0.1:1", "localhost:8786"])),
                     ["dask_address", "dask"]),
}
VALID_SIMULATE = {"game": "coin", "n_games": 200}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """An empty current folder (with a file to write through) for the examples; emptied after each."""
    monkeypatch.chdir(tmp_path)

    def reset():
        for name in os.listdir(tmp_path):
            path = tmp_path / name
            shutil.rmtree(path) if path.is_dir() else os.remove(path)
        (tmp_path / "file").write_text("not a directory")
    reset()
    return tmp_path, reset


def _check(call, fragments: list[str], folder) -> None:
    """``call()`` works, or raises a CursedsimError of one line naming one of ``fragments`` and leaving
    ``folder`` as it was."""
    before = sorted(os.listdir(folder))
    try:
        call()
        event("works")
    except CursedsimError as error:
        event(f"refused: {type(error).__name__}")
        message = str(error)
        assert len(message) <= MAX_MESSAGE
        assert any(word.lower() in message.lower() for word in fragments), (fragments, message)
        assert sorted(os.listdir(folder)) == before, message


@settings(SETTINGS, max_examples=200)
@given(data=st.data())
def test_simulate_takes_any_argument_or_names_what_is_wrong(coin, workdir, data):
    folder, reset = workdir
    name = data.draw(st.sampled_from(sorted(SIMULATE)), label="argument")
    strategy, fragments = SIMULATE[name]
    kwargs = {**VALID_SIMULATE, "progress": False, name: data.draw(strategy, label=name)}
    try:
        _check(lambda: cursedsim.simulate(**kwargs), fragments, folder)
    finally:
        reset()


REPLAY = {"seed": (ANYTHING, ["seed"]), "index": (ANYTHING, ["index"]), "players": (ANYTHING, ["player"]),
          "policy": (ANYTHING, ["polic"]), "options": (st.one_of(OPTIONS, ANYTHING), ["option"]),
          "params": (PARAMS, ["param"]), "game": (ANYTHING, ["game"])}


@settings(SETTINGS, max_examples=100)
@given(data=st.data())
def test_replay_takes_any_argument_or_names_what_is_wrong(coin, workdir, data):
    folder, reset = workdir
    name = data.draw(st.sampled_from(sorted(REPLAY)), label="argument")
    strategy, fragments = REPLAY[name]
    kwargs = {"game": "coin", "seed": 1, "index": 5, name: data.draw(strategy, label=name)}
    _check(lambda: cursedsim.replay(**kwargs), fragments, folder)


POLICY_ITEMS = st.one_of(ANYTHING, st.sampled_from(["plain", "greedy", "greedy:bonus=2", "greedy:", "plain:bonus=x",
                                                    "greedy:nope=1", ":", "greedy:bonus=nan"]),
                         st.dictionaries(st.sampled_from(["policy", "params", "label", "extra"]), ANYTHING, max_size=3))
COMPARE = {
    "policies": (st.one_of(ANYTHING, st.lists(POLICY_ITEMS, max_size=3)), ["polic"]),
    "n_games": (GAMES, ["number of games", "memory", "at least 2", "give either n_games"]),
    "players": (ANYTHING, ["player"]), "options": (st.one_of(OPTIONS, ANYTHING), ["option"]),
    "seed": (ANYTHING, ["seed"]), "n_jobs": (st.one_of(ANYTHING, st.integers(-3, 3)), ["n_jobs"]),
    "backend": (ANYTHING, ["backend"]), "chunk_size": (st.one_of(ANYTHING, st.integers(-2, 300)), ["chunk_size"]),
    "out": (OUTS, ["out", "director", "cannot"]), "progress": (ANYTHING, ["progress"]),
    "detect": (ANYTHING, ["detect"]), "alpha": (ANYTHING, ["alpha"]), "power": (ANYTHING, ["power"]),
    "dask_address": (ANYTHING, ["dask"]),
    "vary": (st.one_of(st.dictionaries(st.sampled_from(["p_percent", "lucky", "seals", "nope"]),
                                       st.one_of(ANYTHING, st.lists(ANYTHING, max_size=3)), max_size=2), ANYTHING),
             ["option", "vary", "contenders"]),
    "reference": (ANYTHING, ["reference"]), "pairs": (ANYTHING, ["pairs"]),
}


@settings(SETTINGS, max_examples=150)
@given(data=st.data())
def test_compare_takes_any_argument_or_names_what_is_wrong(coin, workdir, data):
    folder, reset = workdir
    name = data.draw(st.sampled_from(sorted(COMPARE)), label="argument")
    strategy, fragments = COMPARE[name]
    kwargs = {"game": "coin", "policies": ["plain", "greedy"], "n_games": 100, "progress": False,
              name: data.draw(strategy, label=name)}
    try:
        _check(lambda: compare(**kwargs), fragments, folder)
    finally:
        reset()


SWEEP = {
    "players": (st.one_of(ANYTHING, st.lists(ANYTHING, max_size=3)), ["player", "values", "list"]),
    "policies": (st.one_of(ANYTHING, st.lists(ANYTHING, max_size=3)), ["polic", "values", "list"]),
    "options": (st.one_of(st.dictionaries(st.sampled_from(["p_percent", "lucky", "seals", "x"]),
                                          st.one_of(ANYTHING, st.lists(ANYTHING, max_size=3)), max_size=2), ANYTHING),
                ["option", "values", "list"]),
    "params": (st.one_of(st.dictionaries(st.sampled_from(["plain", "greedy", "x"]), PARAMS, max_size=2), ANYTHING),
               ["param", "polic", "values", "list"]),
    "n_games": (GAMES, ["number of games", "memory", "give either n_games"]), "seed": (ANYTHING, ["seed"]),
    "n_jobs": (st.one_of(ANYTHING, st.integers(-3, 3)), ["n_jobs"]), "backend": (ANYTHING, ["backend"]),
    "chunk_size": (st.one_of(ANYTHING, st.integers(-2, 300)), ["chunk_size"]),
    "out": (OUTS, ["out", "director", "cannot"]), "progress": (ANYTHING, ["progress"]),
    "summary_only": (ANYTHING, ["summary_only"]), "dask_address": (ANYTHING, ["dask"]),
}


@settings(SETTINGS, max_examples=150)
@given(data=st.data())
def test_sweep_takes_any_argument_or_names_what_is_wrong(coin, workdir, data):
    folder, reset = workdir
    name = data.draw(st.sampled_from(sorted(SWEEP)), label="argument")
    strategy, fragments = SWEEP[name]
    kwargs = {"game": "coin", "n_games": 100, "progress": False, name: data.draw(strategy, label=name)}
    try:
        _check(lambda: sweep(**kwargs), fragments, folder)
    finally:
        reset()


SMALL = st.one_of(st.integers(max_value=3), st.integers(min_value=10 ** 5), ANYTHING)
TUNE = {
    "policy": (ANYTHING, ["polic"]), "players": (ANYTHING, ["player"]),
    "options": (st.one_of(OPTIONS, ANYTHING), ["option"]),
    "space": (st.one_of(st.dictionaries(st.sampled_from(["bonus", "spare", "nope"]),
                                        st.one_of(ANYTHING, st.tuples(ANYTHING, ANYTHING)), max_size=2), ANYTHING),
              ["space", "parameter", "range", "choices"]),
    "candidates": (st.one_of(st.integers(max_value=3), st.integers(min_value=10_001), ANYTHING), ["candidates"]),
    "start_games": (st.one_of(st.integers(max_value=100), st.integers(min_value=2 ** 62), GAMES),
                    ["number of games", "start_games", "2**63"]),
    "final_games": (st.one_of(st.integers(max_value=100), GAMES), ["number of games", "final_games", "memory"]),
    "reference": (POLICY_ITEMS, ["polic"]), "seed": (ANYTHING, ["seed"]), "holdout_seed": (ANYTHING, ["seed"]),
    "n_jobs": (st.one_of(ANYTHING, st.integers(-3, 3)), ["n_jobs"]), "backend": (ANYTHING, ["backend"]),
    "include_default": (ANYTHING, ["include_default"]), "local": (ANYTHING, ["local"]),
    "progress": (ANYTHING, ["progress"]),
}


@settings(SETTINGS, max_examples=80)
@given(data=st.data())
def test_tune_takes_any_argument_or_names_what_is_wrong(coin, workdir, data):
    folder, reset = workdir
    name = data.draw(st.sampled_from(sorted(TUNE)), label="argument")
    strategy, fragments = TUNE[name]
    kwargs = {"game": "coin", "policy": "greedy", "players": 2, "space": {"bonus": (0, 3)}, "candidates": 2,
              "start_games": 50, "final_games": 50, "reference": "plain", "progress": False,
              name: data.draw(strategy, label=name)}
    _check(lambda: tune(**kwargs), fragments, folder)


@SETTINGS
@given(name=st.one_of(st.text(max_size=30), st.sampled_from(["coin", "verflucht", "x" * 10_000]),
                      st.lists(st.text(max_size=3), max_size=2), st.integers(), st.none()))
def test_get_game_names_the_valid_games(coin, name):
    try:
        cursedsim.get_game(name)
    except CursedsimError as error:
        assert "valid games: " in str(error) and len(str(error)) <= MAX_MESSAGE


# ---------------------------------------------------------------- property tests: the command line

NUMBER_TEXT = st.one_of(st.integers(-5, 300).map(str), st.integers(min_value=10 ** 11).map(str),
                        st.sampled_from(["nan", "inf", "-inf", "1e400", "1.5", "0x10", "", " ", "1_000", "２",
                                         str(2 ** 64), str(-2 ** 63), "1e3", "--"]))
TEXT = st.one_of(st.text(max_size=12), NUMBER_TEXT,
                 st.builds(lambda a, b: f"{a}-{b}", st.integers(-3, 10 ** 9), st.integers(-3, 10 ** 9)),
                 st.builds(lambda a, b: f"{a},{b}", NUMBER_TEXT, NUMBER_TEXT),
                 st.builds(lambda n, v: f"{n}={v}", st.sampled_from(["p_percent", "lucky", "seals", "bonus",
                                                                     "spare", "greedy.bonus", "nope", ""]),
                           st.one_of(NUMBER_TEXT, st.text(max_size=6), st.sampled_from(["true", "none", "0-3"]))),
                 st.sampled_from(["plain", "greedy", "greedy:bonus=1", "greedy:", "greedy:bonus=x", "plain,greedy",
                                  "loky", "sequential", "ray", "x" * 3000]))
OUT_TEXT = st.one_of(st.text(alphabet="abc_-", min_size=1, max_size=6),
                     st.sampled_from(["", " ", "file", "file/sub", "/proc/cursedsim-x/out", "x" * 300]))
#: Options of each command and what they take (jobs: a few workers at most; no Dask, no real scheduler; not the
#: coin's ``work`` option, whose any integer is valid and makes a game as slow as it says).
COMMANDS = {
    "simulate": (["coin", "--games", "150"], {
        "--players": TEXT, "--seals": TEXT, "--option": TEXT, "--policy": TEXT, "--param": TEXT,
        "--games": NUMBER_TEXT, "--seed": NUMBER_TEXT, "--jobs": st.sampled_from(["1", "2", "-1", "0", "x", "5000"]),
        "--chunk-size": NUMBER_TEXT, "--backend": st.sampled_from(["loky", "sequential", "ray", ""]),
        "--scheduler": st.sampled_from(["", "abc", "tcp://", "no port", "x" * 400]), "--summary-only": None,
        "--out": OUT_TEXT}),
    "compare": (["coin", "--games", "150", "--policy", "plain", "--policy", "greedy:bonus=1"], {
        "--policy": TEXT, "--players": TEXT, "--seals": TEXT, "--option": TEXT, "--games": NUMBER_TEXT,
        "--seed": NUMBER_TEXT, "--jobs": st.sampled_from(["1", "2", "0", "x"]), "--detect": NUMBER_TEXT,
        "--backend": st.sampled_from(["loky", "sequential", "ray"]), "--out": OUT_TEXT,
        "--scheduler": st.sampled_from(["", "abc"])}),
    "sweep": (["coin", "--games", "150"], {
        "--players": TEXT, "--policy": TEXT, "--seals": TEXT, "--option": TEXT, "--param": TEXT,
        "--games": NUMBER_TEXT, "--seed": NUMBER_TEXT, "--jobs": st.sampled_from(["1", "2", "0", "x"]),
        "--backend": st.sampled_from(["loky", "sequential", "ray"]), "--summary-only": None, "--out": OUT_TEXT,
        "--scheduler": st.sampled_from(["", "abc"])}),
    "tune": (["coin", "--space", "bonus=0:2", "--candidates", "2", "--games", "60", "--final-games", "60",
              "--reference", "plain"], {
        "--policy": TEXT, "--players": TEXT, "--seals": TEXT, "--option": TEXT, "--space": TEXT,
        "--candidates": st.sampled_from(["0", "-1", "x", "1", "2", "20000", "nan"]),
        "--games": st.sampled_from(["0", "x", "10", str(2 ** 63), "1e3"]),
        "--final-games": st.sampled_from(["0", "1", "x", "10", str(10 ** 15)]), "--reference": TEXT,
        "--seed": NUMBER_TEXT, "--holdout-seed": NUMBER_TEXT, "--jobs": st.sampled_from(["1", "0", "x"]),
        "--out": OUT_TEXT}),
    "replay": (["coin", "--seed", "1", "--index", "3"], {
        "--seed": NUMBER_TEXT, "--index": NUMBER_TEXT, "--players": NUMBER_TEXT, "--seals": TEXT, "--option": TEXT,
        "--policy": TEXT, "--param": TEXT}),
}


@settings(SETTINGS, max_examples=50)
@pytest.mark.parametrize("command", sorted(COMMANDS))
@given(data=st.data())
def test_every_option_works_or_is_one_line_and_status_2(coin, workdir, capsys, command, data):
    """A few options of a command at a time, each with text of any kind: the command works (status 0)
    or says what is wrong in one line with status 2, writing nothing."""
    folder, reset = workdir
    base, options = COMMANDS[command]
    chosen = data.draw(st.lists(st.sampled_from(sorted(options)), min_size=1, max_size=3, unique=True),
                       label="options")
    args = [command, *base, "--no-progress"] if command != "replay" else [command, *base]
    for option in chosen:
        strategy = options[option]
        args += [option] if strategy is None else [option, data.draw(strategy, label=option)]
    try:
        status, out, err = run(capsys, *args)
        event(f"status {status}")
        assert status in (0, 2), (args, err)
        assert "Traceback" not in err
        if status == 2:
            lines = err.splitlines()
            assert len(lines) == 1 and lines[0].startswith("cursedsim: error: "), (args, err)
            assert len(lines[0]) <= MAX_MESSAGE + 40
            assert sorted(os.listdir(folder)) == ["file"], (args, err)
        elif "--out" not in chosen:
            assert sorted(os.listdir(folder)) == ["file"], args
    finally:
        reset()
