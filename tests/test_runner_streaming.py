"""The streaming mode (``summary_only``): the summary equals ``stats.summarize`` of the full frame number for
number, histograms equal the frame's value counts, it resumes from verified chunks, and memory does not grow
with the run (nor with the cells of a grid)."""

from __future__ import annotations

import dataclasses
import json
import os
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim import stats
from cursedsim.streaming import RunSummary
from cursedsim.sweep import sweep

from conftest import COIN
from test_cli import run


def _histograms_match(game, frame: pd.DataFrame, summary: RunSummary) -> None:
    for column in game.outcome_columns:
        for won_only in (False, True):
            part = frame[frame["win"]] if won_only else frame
            counts = part[column].value_counts(dropna=False)
            histogram = summary.histogram(column, won_only=won_only)
            assert int(histogram.sum()) == len(part), column
            for value, games in histogram.items():
                expected = part[column].isna().sum() if value != value else counts[value]
                assert games == expected, (column, value, won_only)


@pytest.mark.parametrize("chunk_size, n_jobs", [(None, 1), (333, 1), (2_500, 2)])
def test_the_streaming_summary_equals_the_summary_of_the_frame(coin, chunk_size, n_jobs):
    frame = cursedsim.simulate("coin", 10_000, seed=3, options={"p_percent": 45}, params={"bonus": 4},
                               progress=False)
    summary = cursedsim.simulate("coin", 10_000, seed=3, options={"p_percent": 45}, params={"bonus": 4},
                                 chunk_size=chunk_size, n_jobs=n_jobs, summary_only=True, progress=False)
    assert isinstance(summary, RunSummary) and summary.n == 10_000
    pd.testing.assert_frame_equal(summary.summarize(), stats.summarize(frame, measures=COIN.measures),
                                  check_exact=True)
    pd.testing.assert_frame_equal(summary.summarize(()), stats.summarize(frame), check_exact=True)
    _histograms_match(COIN, frame, summary)
    assert summary.mean("turns") == frame["turns"].to_numpy(np.float64).mean()
    assert summary.mean("score", won_only=True) == frame.loc[frame["win"], "score"].to_numpy(np.float64).mean()


def test_the_real_games_stream_the_same_numbers(verflucht):
    for name, kwargs in [("verflucht", {"players": 4, "policy": "smart"}), ("cursed", {"policy": "counting"})]:
        game = cursedsim.get_game(name)
        frame = cursedsim.simulate(name, 20_000, seed=8, progress=False, **kwargs)
        summary = cursedsim.simulate(name, 20_000, seed=8, chunk_size=3_000, summary_only=True, progress=False,
                                     **kwargs)
        pd.testing.assert_frame_equal(summary.summarize(), stats.summarize(frame, measures=game.measures),
                                      check_exact=True)
        _histograms_match(game, frame, summary)


def test_a_streamed_sweep_is_the_same_table(coin):
    args = dict(players=[1, 3], policies=["plain", "greedy"], options={"p_percent": [20, 60]},
                params={"greedy": {"bonus": [0, 7]}}, n_games=3_000, seed=9, progress=False)
    pd.testing.assert_frame_equal(sweep("coin", summary_only=True, **args), sweep("coin", **args), check_exact=True)


def test_summary_only_runs_checkpoint_verify_and_resume(coin, tmp_path, capsys):
    out = tmp_path / "run"
    calls = []

    def counting(seed, start, count, *rest):
        calls.append(start)
        return COIN.run_chunk(seed, start, count, *rest)
    game = dataclasses.replace(COIN, run_chunk=counting)
    first = cursedsim.simulate(game, 5_000, seed=2, chunk_size=1_000, out=out, summary_only=True, progress=False)
    assert sorted(os.listdir(out)) == [f"chunk-{k}-{k + 1000}.parquet" for k in range(0, 5000, 1000)] + [
        "run.json", "summary.json"]
    expected = first.summarize()
    calls.clear()
    again = cursedsim.simulate(game, 5_000, seed=2, out=out, summary_only=True, progress=False)
    assert calls == [] and capsys.readouterr().err == ""
    pd.testing.assert_frame_equal(again.summarize(), expected, check_exact=True)
    _histograms_match(COIN, cursedsim.simulate("coin", 5_000, seed=2, progress=False), again)
    # a damaged summary.json is rebuilt from the chunks; a lost chunk is played again
    document = json.loads((out / "summary.json").read_text())
    document["data"]["n"] += 1
    (out / "summary.json").write_text(json.dumps(document))
    os.remove(out / "chunk-3000-4000.parquet")
    rebuilt = cursedsim.simulate(game, 5_000, seed=2, out=out, summary_only=True, progress=False)
    assert calls == [3000]
    assert "summary.json failed verification (checksum mismatch)" in capsys.readouterr().err
    pd.testing.assert_frame_equal(rebuilt.summarize(), expected, check_exact=True)
    # the same directory gives the frame too: the run is the same, only what is kept differs
    calls.clear()
    frame = cursedsim.simulate(game, 5_000, seed=2, out=out, progress=False)
    assert calls == []
    pd.testing.assert_frame_equal(frame, cursedsim.simulate("coin", 5_000, seed=2, progress=False))


def _peak(call) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_streaming_memory_does_not_grow_with_the_run(coin):
    """Python-tracked peak memory (numpy arrays included): a streamed run of 400,000 games needs no more
    than one of 50,000, while the frame of 400,000 needs several times more."""
    _peak(lambda: cursedsim.simulate("coin", 50_000, chunk_size=10_000, summary_only=True, progress=False))   # warm
    small = _peak(lambda: cursedsim.simulate("coin", 50_000, chunk_size=10_000, summary_only=True, progress=False))
    large = _peak(lambda: cursedsim.simulate("coin", 400_000, chunk_size=10_000, summary_only=True, progress=False))
    frame = _peak(lambda: cursedsim.simulate("coin", 400_000, chunk_size=10_000, progress=False))
    assert large < 1.5 * small + 200_000, (small, large)
    assert frame > 4 * large, (large, frame)


def test_a_simulate_grid_holds_one_cell_at_a_time(coin, capsys, tmp_path):
    """The peak memory of a 6-cell grid (with --out: games.parquet written cell by cell) stays near that
    of one cell, not six."""
    def grid(cells: str, out: str) -> int:
        return _peak(lambda: run(capsys, "simulate", "coin", "--seals", cells, "--games", "150000", "--no-progress",
                                 "--out", str(tmp_path / out)))
    grid("1", "warm")   # imports and caches of a first run are not the grid's
    one = grid("1", "one")
    six = grid("1-6", "six")
    assert six < 2 * one, (one, six)
    assert len(pd.read_parquet(tmp_path / "six" / "games.parquet")) == 6 * 150_000


def test_the_cli_summary_only_table_is_the_frame_table(coin, capsys, tmp_path):
    args = ["simulate", "coin", "--players", "1-2", "--policy", "plain", "--policy", "greedy", "--param", "spare=3",
            "--games", "3000", "--seed", "5", "--no-progress"]
    status, table, err = run(capsys, *args, "--out", str(tmp_path / "frames"))
    assert status == 0, err
    status, streamed, err = run(capsys, *args, "--summary-only", "--out", str(tmp_path / "streamed"))
    assert status == 0, err
    assert streamed == table
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "streamed" / "summary.csv"),
                                  pd.read_csv(tmp_path / "frames" / "summary.csv"))
    assert "games.parquet" not in os.listdir(tmp_path / "streamed")
    status, swept, err = run(capsys, "sweep", "coin", "--players", "1-2", "--games", "2000", "--summary-only",
                             "--no-progress")
    assert status == 0 and "2,000" in swept, err
