"""The command line: list, simulate grids and their tables and files, replay, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import cursedsim
import cursedsim.games
from cursedsim import stats
from cursedsim.cli import main, parse_int_values, parse_option_values
from cursedsim.cli.tables import mean_se_cell

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


def assert_one_line_error(status, out, err, *fragments, stdout_empty=True):
    assert status == 2
    assert out == "" or not stdout_empty
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
    assert "plain (default), greedy" in out and "p_percent, lucky, seals, work" in out and "plaincoin" in out
    assert "cursedsim list GAME" in out and "…" not in out
    status, out, _ = run(capsys, "list", "coin")
    assert status == 0
    assert "plain (default)" in out and "Flips the coin. Second line." in " ".join(out.split())
    assert "bonus=5" in out and "spare=1" in out and "bonus=0: added to a score" in out
    assert "p_percent: int, default 30; valid: 0-100" in out
    assert "seals: int | None, default none; valid: 0-10, none" in out
    assert "work: int, default 0; valid: any integer" in out and "lucky: bool, default false; valid: false, true" in out
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
                mean_se_cell(row["mean_score"], row["score_se"]), f"{row['mean_turns']:.2f}")
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
    assert cells[-3:] == [mean_se_cell(row["mean_souls"], row["souls_se"]), f"{row['mean_rounds']:.2f}",
                          f"{row['mean_damage_taken']:.2f}"]
    assert row["mean_souls"] > 0 and row["mean_rounds"] > 0 and "-" not in cells

    status, out, err = run(capsys, "simulate", "verflucht", "--players", "3", "--games", "2000", "--seed", "2",
                           "--no-progress")
    assert status == 0, err
    assert "mean score (won) ± SE" in out and "mean turns" in out and "souls" not in out
    row = stats.summarize(cursedsim.simulate("verflucht", 2000, players=3, seed=2, progress=False)).iloc[0]
    assert row["wins"] > 100
    assert _table_row(out, "2,000")[-2:] == [mean_se_cell(row["mean_score"], row["score_se"]),
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
    (["frobnicate"], ["No such command", "list, replay, report, simulate, sweep, target, tune"]),
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
    from cursedsim.describe import first_sentence as _first_line
    assert _first_line("a Mimic! taken as an item is fought. Then more.") == "a Mimic! taken as an item is fought."
    assert _first_line("Stop here! Not this.") == "Stop here!"


# ---------------------------------------------------------------- output directories the commands own

def test_the_grid_files_equal_the_api_frames_and_their_summary(coin, capsys, tmp_path):
    """simulate's games.parquet (written cell by cell) is concat_frames of the cells' frames and
    summary.csv is stats.summarize of it, though no two cells' frames are in memory at once."""
    out_dir = tmp_path / "out"
    status, out, err = run(capsys, "simulate", "coin", "--players", "2,1", "--seals", "3,0", "--policy", "greedy",
                           "--policy", "plain", "--param", "spare=2", "--games", "1200", "--seed", "4",
                           "--no-progress", "--out", str(out_dir))
    assert status == 0, err
    frames = [cursedsim.simulate("coin", 1200, players=p, policy=policy, params={"spare": 2} if policy == "greedy"
                                 else None, options={"seals": seals}, seed=4, progress=False)
              for policy in ("greedy", "plain") for p in (2, 1) for seals in (3, 0)]
    combined = cursedsim.runner.concat_frames(frames)
    pd.testing.assert_frame_equal(pd.read_parquet(out_dir / "games.parquet"), combined)
    keys = ["policy", "players", "seals", "param_spare"]
    expected = stats.summarize(combined, keys, measures=cursedsim.games.get_game("coin").measures)
    summary = pd.read_csv(out_dir / "summary.csv")
    pd.testing.assert_frame_equal(summary, expected.astype({"policy": str}), check_dtype=False)
    assert summary["n"].dtype == np.int64 and summary["wins"].dtype == np.int64
    assert out.count(" 1,200 ") == 8 and "1,200.0" not in out
    assert sorted(os.listdir(out_dir)) == ["cells", "games.parquet", "simulate.json", "summary.csv"]


@pytest.mark.parametrize("command", [
    ["simulate", "coin", "--games", "100"],
    ["compare", "coin", "--policy", "plain", "--policy", "greedy", "--games", "100"],
    ["sweep", "coin", "--games", "100"],
])
def test_commands_refuse_to_write_into_a_foreign_directory(coin, capsys, tmp_path, command):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "games.parquet").write_text("the user's own file")
    (foreign / "summary.csv").write_text("keep me")
    assert_one_line_error(*run(capsys, *command, "--no-progress", "--out", str(foreign)), "not a cursedsim")
    assert sorted(os.listdir(foreign)) == ["games.parquet", "summary.csv"]
    assert (foreign / "games.parquet").read_text() == "the user's own file"


def test_a_grid_directory_refuses_another_grid_before_playing(coin, capsys, tmp_path):
    out_dir = tmp_path / "grid"
    assert run(capsys, "simulate", "coin", "--games", "100", "--no-progress", "--out", str(out_dir))[0] == 0
    before = sorted(os.listdir(out_dir / "cells"))
    assert_one_line_error(*run(capsys, "simulate", "coin", "--games", "200", "--no-progress", "--out", str(out_dir)),
                          "n_games is 100 there but 200 now")
    assert sorted(os.listdir(out_dir / "cells")) == before
    # a compare directory is not a simulate directory
    assert_one_line_error(*run(capsys, "compare", "coin", "--policy", "plain", "--policy", "greedy", "--games", "100",
                               "--no-progress", "--out", str(out_dir)), "not a cursedsim compare directory")


UNWRITABLE = ["", "/proc/cursedsim-no-such-dir/out", "{file}/sub"]


@pytest.mark.parametrize("out", UNWRITABLE)
@pytest.mark.parametrize("command", [
    ["simulate", "coin", "--games", "100"],
    ["compare", "coin", "--policy", "plain", "--policy", "greedy", "--games", "100"],
    ["sweep", "coin", "--games", "100"],
    ["tune", "coin", "--space", "bonus=0:3", "--candidates", "2", "--games", "100", "--final-games", "100",
     "--reference", "greedy"],
])
def test_an_unwritable_out_is_one_line_before_any_game(coin, capsys, tmp_path, monkeypatch, command, out):
    """``--out ''`` (the current directory), a path below /proc (not creatable, even for root) and a
    path through a file: refused in one line before anything is played or written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("x")
    calls = []
    monkeypatch.setattr(cursedsim.runner, "_play_chunk", lambda *a: calls.append(a))
    out = out.format(file=tmp_path / "file")
    status, stdout, err = run(capsys, *command, "--no-progress", "--out", out)
    assert_one_line_error(status, stdout, err, out or "--out")
    assert calls == [] and sorted(os.listdir(tmp_path)) == ["file"]


def test_report_checks_its_out_before_anything(verflucht, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("x")
    for out in ["", "/proc/cursedsim-no-such-dir/report", str(tmp_path / "file"), str(tmp_path / "file" / "r")]:
        assert_one_line_error(*run(capsys, "report", "verflucht", "--games", "10", "--no-progress", "--out", out))
    assert_one_line_error(*run(capsys, "report", "verflucht", "--games", str(10 ** 15), "--out", "r"), "memory")
    assert sorted(os.listdir(tmp_path)) == ["file"]


def test_tune_writes_its_result_where_it_can_when_out_fails_at_the_end(coin, capsys, tmp_path, monkeypatch):
    from cursedsim.cli import tune as tune_module
    target = tmp_path / "tuned.json"

    def full_disk(path, write):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(tune_module, "write_via", full_disk)
    status, out, err = run(capsys, "tune", "coin", "--space", "bonus=0:3", "--candidates", "2", "--games", "200",
                           "--final-games", "200", "--reference", "greedy", "--no-progress", "--out", str(target))
    assert_one_line_error(status, out, err, "No space left on device", "the result is in", stdout_empty=False)
    rescue = err.split("the result is in ")[1].strip()
    try:
        assert json.loads(open(rescue).read())["game"] == "coin"
    finally:
        os.remove(rescue)


def test_the_report_never_imports_the_cli():
    """Layers point one way: reports and CLI both read cursedsim.describe and cursedsim.console, the
    report package never the CLI (which registers the report command)."""
    import ast
    from pathlib import Path
    folder = Path(cursedsim.__file__).parent / "report"
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not [n for n in names if n == "cursedsim.cli" or n.startswith("cursedsim.cli.")], path
            if isinstance(node, ast.ImportFrom) and node.module == "cursedsim":
                assert "cli" not in [alias.name for alias in node.names], path


def test_list_shows_an_integer_range_beyond_the_first_probe(capsys):
    """Cursed Gifts' max_turns takes 1-100000: ``list`` says so, not "at least 1" (its end lies far beyond
    the values tried one by one)."""
    status, out, _ = run(capsys, "list", "gifts")
    assert status == 0
    assert "max_turns: int, default 400; valid: 1-100000" in " ".join(out.split())


def test_int_range_finds_far_ends_exactly_and_none_where_there_is_none():
    from dataclasses import dataclass

    from cursedsim.describe import PROBE, int_range
    from cursedsim.errors import OptionError

    @dataclass(frozen=True)
    class Far:
        bounded: int = 7
        low_only: int = 0

        def __post_init__(self):
            if not -PROBE * 5 - 3 <= self.bounded <= 123_457:
                raise OptionError("bounded out of range")
            if self.low_only < -2:
                raise OptionError("low_only below -2")

    assert int_range(Far, "bounded") == (-PROBE * 5 - 3, 123_457)
    assert int_range(Far, "low_only") == (-2, None)


def test_compile_plays_every_kernel_policy_of_a_game_and_reports_its_seconds(coin, capsys, monkeypatch):
    played = []
    real = cursedsim.runner.simulate
    monkeypatch.setattr(cursedsim.runner, "simulate", lambda game, n, **kw: played.append((game, kw["policy"]))
                        or real(game, n, **kw))
    status, out, err = run(capsys, "compile", "coin")
    assert status == 0, err
    assert sorted(played) == [("coin", "greedy"), ("coin", "plain")]
    assert out.splitlines()[0].startswith("coin") and out.splitlines()[0].endswith(" s")
    assert out.splitlines()[-1].startswith("total")


def test_compile_of_an_unknown_game_names_the_valid_ones(coin, capsys):
    assert_one_line_error(*run(capsys, "compile", "nope"), "unknown game 'nope'", "valid games:", "coin")


def test_tune_takes_the_run_flags_of_every_research_command(coin, capsys, tmp_path):
    """tune is on the shared run flags (--backend, --scheduler, --jobs, --seed, --games): a backend plays
    the same search, and a scheduler without Dask's backend is refused by name."""
    args = ("tune", "coin", "--space", "bonus=0:3", "--candidates", "2", "--games", "200", "--final-games", "200",
            "--reference", "greedy", "--no-progress")
    found = []
    for backend in ("sequential", "loky"):
        target = tmp_path / f"{backend}.json"
        status, out, err = run(capsys, *args, "--backend", backend, "--out", str(target))
        assert status == 0, err
        found.append({k: v for k, v in json.loads(target.read_text()).items() if k != "elapsed_s"})
    assert found[0] == found[1]
    status, out, err = run(capsys, *args, "--backend", "loky", "--scheduler", "tcp://127.0.0.1:1")
    assert_one_line_error(status, out, err, "--scheduler plays on a Dask cluster")


def test_compile_starts_the_games_with_the_longest_whole_compile_first(monkeypatch):
    """Every built-in game states how long compiling all its kernels takes, and ``warm`` starts the
    longest first: ordered by the first simulate's compile, Cursed!? (one policy's kernel of six) started
    third and ran alone at the end of ``cursedsim compile --jobs 2``."""
    from cursedsim import warm as warm_module
    from cursedsim.games import get_game, list_games

    whole = {name: get_game(name).warm_estimate for name in list_games()}
    assert all(isinstance(seconds, float) and seconds > 0 for seconds in whole.values()), whole
    started = []
    monkeypatch.setattr(warm_module, "warm_game", lambda name: started.append(name) or 0.0)
    warm_module.warm(sorted(whole), n_jobs=1)
    assert started == sorted(whole, key=whole.get, reverse=True)
    assert started[0] == max(whole, key=whole.get)
