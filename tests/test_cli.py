"""The command line: list, simulate grids and their tables and files, replay, one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

import cursedsim
import cursedsim.games
from cursedsim import stats
from cursedsim.cli import main, parse_int_values, parse_option_values

from conftest import ROOT


def run(capsys, *args):
    """(exit status, stdout, stderr) of ``cursedsim ARGS`` run in-process."""
    try:
        main(list(args))
        status = 0
    except SystemExit as exit:
        status = exit.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status, out, err, *fragments):
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cursedsim: error: "), err
    for fragment in fragments:
        assert fragment in lines[0]


def test_option_values_expand_ranges_lists_bools_and_none():
    assert parse_int_values("1-5", "--players") == [1, 2, 3, 4, 5]
    assert parse_int_values("0,2,4-6,2", "--seals") == [0, 2, 4, 5, 6]
    assert parse_option_values("seals", "none,0-1", (int, True)) == [None, 0, 1]
    assert parse_option_values("lucky", "true,no", (bool, False)) == [True, False]
    assert parse_option_values("rate", "0.5,1", (float, False)) == [0.5, 1.0]


def test_list_shows_games_policies_and_options(coin, capsys):
    status, out, _ = run(capsys, "list")
    assert status == 0
    assert "coin — Coin (test game), 1-4 players (default 2)" in out
    assert "plain (default)" in out and "Flips the coin." in out and "Second line." not in out
    assert "bonus=5, spare=1" in out
    assert "p_percent" in out and "int | None" in out and "plaincoin" in out
    assert "chance of a win, in percent." in out   # option docs from the RuleOptions docstring


def test_simulate_grid_prints_a_table_and_writes_the_frame(coin, capsys, tmp_path):
    out_dir = tmp_path / "out"
    args = ["simulate", "coin", "--players", "1-2", "--seals", "0,3", "--policy", "plain", "--policy", "greedy",
            "--param", "spare=2", "--games", "2000", "--seed", "5", "--chunk-size", "800", "--no-progress",
            "--out", str(out_dir)]
    status, out, err = run(capsys, *args)
    assert status == 0, err
    frame = pd.read_parquet(out_dir / "games.parquet")
    assert len(frame) == 8 * 2000
    assert len(os.listdir(out_dir / "cells")) == 8
    assert frame.groupby(["policy", "players", "seals"], observed=True).size().tolist() == [2000] * 8
    assert frame.loc[frame["policy"] == "greedy", "param_spare"].eq(2).all()
    assert frame.loc[frame["policy"] == "plain", "param_spare"].isna().all()
    # one cell equals the API run of the same configuration, and its table row shows its statistics
    cell = frame[(frame["policy"] == "greedy") & (frame["players"] == 2) & (frame["seals"] == 3)]
    api = cursedsim.simulate("coin", 2000, players=2, policy="greedy", params={"spare": 2}, options={"seals": 3},
                             seed=5, progress=False)
    assert cell["score"].tolist() == api["score"].tolist()
    row = stats.summarize(api).iloc[0]
    expected = (f"{100 * row['win_rate']:.2f} [{100 * row['ci_low']:.2f}, {100 * row['ci_high']:.2f}]",
                f"{row['mean_score']:.2f} ± {row['score_se']:.2f}", f"{row['mean_turns']:.2f}")
    line = next(line for line in out.splitlines() if "greedy" in line and expected[0] in line)
    assert expected[1] in line and expected[2] in line and "2,000" in line
    summary = pd.read_csv(out_dir / "summary.csv")
    assert len(summary) == 8 and set(summary.columns) >= {"policy", "players", "seals", "param_spare", "win_rate"}
    # a rerun resumes from the cell directories and gives the same frame
    status, out_again, _ = run(capsys, *args)
    assert status == 0 and out_again == out
    pd.testing.assert_frame_equal(pd.read_parquet(out_dir / "games.parquet"), frame)


def _table_row(out: str, marker: str) -> list[str]:
    """The cells of the last table line of ``out`` holding ``marker``."""
    line = [line for line in out.splitlines() if marker in line and "│" in line][-1]
    return [cell.strip() for cell in line.strip("│ ").split("│")]


def test_simulate_shows_the_measures_each_game_declares(verflucht, capsys):
    cursed = cursedsim.games.get_game("cursed")
    status, out, err = run(capsys, "simulate", "cursed", "--games", "3000", "--seed", "2", "--no-progress")
    assert status == 0, err
    assert "mean souls ± SE" in out and "mean rounds" in out and "mean damage taken" in out
    assert "score" not in out and "turns" not in out
    row = stats.summarize(cursedsim.simulate("cursed", 3000, seed=2, progress=False), measures=cursed.measures).iloc[0]
    cells = _table_row(out, "3,000")
    assert cells[-3:] == [f"{row['mean_souls']:.2f} ± {row['souls_se']:.2f}", f"{row['mean_rounds']:.2f}",
                          f"{row['mean_damage_taken']:.2f}"]
    assert row["mean_souls"] > 0 and row["mean_rounds"] > 0 and "-" not in cells

    status, out, err = run(capsys, "simulate", "verflucht", "--players", "3", "--games", "2000", "--seed", "2",
                           "--no-progress")
    assert status == 0, err
    assert "mean score (won) ± SE" in out and "mean turns" in out and "souls" not in out
    row = stats.summarize(cursedsim.simulate("verflucht", 2000, players=3, seed=2, progress=False)).iloc[0]
    assert row["wins"] > 100
    assert _table_row(out, "2,000")[-2:] == [f"{row['mean_score']:.2f} ± {row['score_se']:.2f}",
                                             f"{row['mean_turns']:.2f}"]


def test_simulate_bool_options_and_defaults(coin, capsys):
    status, out, err = run(capsys, "simulate", "coin", "--option", "lucky=true,false", "--games", "1500",
                           "--no-progress")
    assert status == 0, err
    rows = [line for line in out.splitlines() if "1,500" in line]
    assert len(rows) == 2 and "lucky" in out and "True" in rows[0] + rows[1]


@pytest.mark.parametrize("args, fragments", [
    (["simulate", "nope"], ["unknown game 'nope'", "coin"]),
    (["simulate"], ["Missing argument 'GAME'", "coin"]),
    (["simulate", "coin", "--players", "0-9"], ["1-4 players"]),
    (["simulate", "coin", "--players", "3-1"], ["malformed range '3-1'"]),
    (["simulate", "coin", "--players", "two"], ["malformed value 'two'", "a-b"]),
    (["simulate", "coin", "--games", "0"], ["positive integer"]),
    (["simulate", "coin", "--games", "many"], ["'--games'"]),
    (["simulate", "coin", "--policy", "nope"], ["unknown policy 'nope'", "plain, greedy"]),
    (["simulate", "coin", "--option", "nope=1"], ["unknown option 'nope'", "p_percent, lucky, seals, work"]),
    (["simulate", "coin", "--option", "lucky=maybe"], ["true or false"]),
    (["simulate", "coin", "--option", "p_percent=50-200"], ["0-100"]),
    (["simulate", "coin", "--option", "seals"], ["NAME=VALUE"]),
    (["simulate", "coin", "--seals", "2-x"], ["malformed value '2-x'"]),
    (["simulate", "plaincoin", "--seals", "3"], ["no 'seals' option", "p_percent"]),
    (["simulate", "coin", "--param", "nope=1"], ["parameter 'nope'", "bonus"]),
    (["simulate", "coin", "--backend", "ray"], ["loky", "dask"]),
    (["simulate", "coin", "--jobs", "0"], ["-1"]),
    (["simulate", "coin", "--frobnicate"], ["--frobnicate"]),
    (["frobnicate"], ["No such command", "list, replay, report, simulate, sweep, tune"]),
    (["replay", "coin", "--seed", "1"], ["--index"]),
    (["replay", "coin", "--seed", "1", "--index", "0", "--players", "7"], ["1-4 players"]),
    (["replay", "coin", "--seed", "1", "--index", "0", "--seals", "1-2"], ["single value"]),
])
def test_bad_input_is_one_line_and_status_2(coin, capsys, args, fragments):
    assert_one_line_error(*run(capsys, *args), *fragments)


def test_replay_prints_the_log_of_the_api(coin, capsys):
    status, out, _ = run(capsys, "replay", "coin", "--seed", "3", "--index", "17", "--players", "3",
                         "--option", "p_percent=60", "--policy", "greedy")
    assert status == 0
    assert out == cursedsim.replay("coin", 3, 17, players=3, policy="greedy", options={"p_percent": 60})


def test_python_dash_m_runs_the_cli():
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-m", "cursedsim", "--version"], capture_output=True, text=True,
                          cwd=ROOT, env=env)
    assert done.returncode == 0 and done.stdout.strip() == f"cursedsim {cursedsim.__version__}"
    done = subprocess.run([sys.executable, "-m", "cursedsim", "simulate", "nope"], capture_output=True, text=True,
                          cwd=ROOT, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["cursedsim: error: unknown game 'nope'; valid games: "
                                        + ", ".join(cursedsim.list_games())]


# ---------------------------------------------------------------- the real game

def test_verflucht_list_simulate_and_replay(verflucht, capsys):
    status, out, err = run(capsys, "list")
    assert status == 0, err
    assert "verflucht" in out and "1-5 players" in out and "seals" in out
    status, out, err = run(capsys, "simulate", "verflucht", "--players", "1-2", "--games", "3000", "--no-progress")
    assert status == 0, err
    rows = [line for line in out.splitlines() if "3,000" in line]
    assert len(rows) == 2   # seals are resolved per player count: 3 for one player, 4 for two
    status, out, err = run(capsys, "replay", "verflucht", "--seed", "1", "--index", "2", "--players", "3")
    assert status == 0 and out.strip(), err
    assert out.rstrip("\n") == cursedsim.replay("verflucht", 1, 2, players=3).rstrip("\n")
    row = cursedsim.simulate("verflucht", 3, seed=1, players=3, progress=False).iloc[2]
    assert f"end: {row['end']}" in out.splitlines()[0]   # the replayed game is the simulated row


def test_verflucht_bad_input(verflucht, capsys):
    assert_one_line_error(*run(capsys, "simulate", "verflucht", "--players", "6"), "1-5")
    assert_one_line_error(*run(capsys, "simulate", "verflucht", "--seals", "11"), "seals")


def test_the_first_sentence_of_a_description_survives_an_exclamation_mark_in_a_name():
    from cursedsim.cli import _first_line
    assert _first_line("a Mimic! taken as an item is fought. Then more.") == "a Mimic! taken as an item is fought."
    assert _first_line("Stop here! Not this.") == "Stop here!"
