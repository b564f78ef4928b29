"""The runner: validation, frame layout, independence from chunking/jobs/backend, checkpoints, resume."""

from __future__ import annotations

import dataclasses
import json
import os
import sys

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim.numba_cache import source_digest
from cursedsim import runner
from cursedsim.errors import OptionError, PlayersError, RunError, UnknownGameError, UnknownPolicyError

from conftest import COIN


def counting(game, calls):
    """``game`` with a run_chunk that records the (start, count) of every call (in-process only)."""
    def run_chunk(seed, start, count, *rest):
        calls.append((start, count))
        return game.run_chunk(seed, start, count, *rest)
    return dataclasses.replace(game, run_chunk=run_chunk)


# ---------------------------------------------------------------- validation

@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"n_games": 0}, RunError, "positive integer"),
    ({"n_games": 2.5}, RunError, "positive integer"),
    ({"n_games": True}, RunError, "positive integer"),
    ({"n_jobs": 0}, RunError, "-1"),
    ({"n_jobs": -2}, RunError, "-1"),
    ({"chunk_size": 0}, RunError, "positive integer"),
    ({"backend": "ray"}, RunError, "loky, dask, sequential"),
    ({"seed": -1}, RunError, "0..2**64-1"),
    ({"players": 5}, PlayersError, "1-4"),
    ({"policy": "nope"}, UnknownPolicyError, "plain, greedy"),
    ({"params": {"nope": 1}}, UnknownPolicyError, "bonus"),
    ({"params": {"bonus": "x"}}, UnknownPolicyError, "number"),
    ({"options": {"nope": 1}}, OptionError, "p_percent, lucky, seals, work"),
    ({"options": {"p_percent": 101}}, OptionError, "0-100"),
])
def test_bad_settings_raise_errors_naming_the_valid_choices(coin, kwargs, error, fragment):
    settings = {"n_games": 10, **kwargs}
    with pytest.raises(error, match=fragment.replace("*", r"\*").replace(".", r"\.")):
        cursedsim.simulate("coin", progress=False, **settings)


def test_unknown_game_names_the_registered_games(coin):
    with pytest.raises(UnknownGameError, match="valid games: .*coin"):
        cursedsim.simulate("nope", 10)


# ---------------------------------------------------------------- the frame

def test_frame_columns_dtypes_and_order(coin):
    frame = cursedsim.simulate("coin", 3000, seed=7, params={"bonus": 2}, options={"p_percent": 40},
                               progress=False)
    assert list(frame.columns) == ["game", "seed", "game_index", "players", "policy", "p_percent", "lucky",
                                   "seals", "work", "param_bonus", "win", "score", "turns", "end"]
    dtypes = frame.dtypes.astype(str).to_dict()
    assert dtypes == {"game": "category", "seed": "uint64", "game_index": "int64", "players": "int8",
                      "policy": "category", "p_percent": "int8", "lucky": "bool", "seals": "int8", "work": "int8",
                      "param_bonus": "float64", "win": "bool", "score": "int16", "turns": "int16",
                      "end": "category"}
    assert list(frame["end"].cat.categories) == ["win", "timeout", "bust"]
    assert (frame["game_index"].to_numpy() == np.arange(3000)).all()
    assert (frame["seed"] == 7).all() and (frame["players"] == 2).all()   # coin's default_players
    assert (frame["policy"] == "plain").all() and (frame["p_percent"] == 40).all()
    assert (frame["seals"] == 2).all()   # resolved by the game's option_columns
    assert (frame["param_bonus"] == 2.0).all()
    assert ((frame["end"] == "win") == frame["win"]).all()
    assert 0.35 < frame["win"].mean() < 0.45


def test_no_param_columns_without_overrides_and_default_policy(coin):
    frame = cursedsim.simulate(COIN, 100, players=3, progress=False)
    assert not [c for c in frame.columns if c.startswith("param_")]
    assert (frame["players"] == 3).all() and (frame["policy"] == COIN.default_policy).all()


def test_rows_are_the_games_of_the_kernel(coin):
    frame = cursedsim.simulate("coin", 500, seed=3, chunk_size=120, progress=False)
    params = COIN.policy("plain").param_vector()
    options = COIN.make_options(None)
    for index in (0, 119, 120, 499):
        alone = COIN.run_chunk(3, index, 1, 2, options, "plain", params)
        assert frame["score"].iloc[index] == alone["score"][0]
        assert frame["turns"].iloc[index] == alone["turns"][0]


def test_a_longer_run_extends_a_shorter_one(coin):
    short = cursedsim.simulate("coin", 1000, seed=5, progress=False)
    long = cursedsim.simulate("coin", 2500, seed=5, chunk_size=700, progress=False)
    pd.testing.assert_frame_equal(long.iloc[:1000], short)
    other_seed = cursedsim.simulate("coin", 1000, seed=6, progress=False)
    assert not other_seed["score"].equals(short["score"])


def test_bad_game_output_is_reported(coin):
    def bad_codes(seed, start, count, *rest):
        result = COIN.run_chunk(seed, start, count, *rest)
        return {**result, "end": np.full(count, 7, dtype=np.int8)}

    def short_arrays(seed, start, count, *rest):
        return {name: values[:-1] for name, values in COIN.run_chunk(seed, start, count, *rest).items()}

    with pytest.raises(RunError, match="outside 0-2 in outcome column 'end'"):
        cursedsim.simulate(dataclasses.replace(COIN, run_chunk=bad_codes), 10, progress=False)
    with pytest.raises(RunError, match="column 'win'"):
        cursedsim.simulate(dataclasses.replace(COIN, run_chunk=short_arrays), 10, progress=False)


def test_category_code_minus_one_is_a_missing_value(coin, tmp_path):
    """-1 in a categorical outcome column is NaN in the frame (and in its Parquet file); -2 is refused."""
    def some_missing(seed, start, count, *rest):
        result = COIN.run_chunk(seed, start, count, *rest)
        end = np.array(result["end"], dtype=np.int8)
        end[(start + np.arange(count)) % 3 == 0] = -1
        return {**result, "end": end}

    def below_missing(seed, start, count, *rest):
        return {**COIN.run_chunk(seed, start, count, *rest), "end": np.full(count, -2, dtype=np.int8)}

    game = dataclasses.replace(COIN, run_chunk=some_missing)
    frame = cursedsim.simulate(game, 30, seed=4, chunk_size=7, progress=False, out=str(tmp_path / "run"))
    plain = cursedsim.simulate("coin", 30, seed=4, progress=False)
    missing = frame["game_index"] % 3 == 0
    assert frame["end"].isna().tolist() == missing.tolist()
    assert list(frame["end"].cat.categories) == ["win", "timeout", "bust"]
    assert (frame["end"][~missing] == plain["end"][~missing]).all()
    stored = pd.read_parquet(tmp_path / "run" / runner.FRAME_FILE)
    assert stored["end"].isna().tolist() == missing.tolist()
    with pytest.raises(RunError, match="outside 0-2 in outcome column 'end'"):
        cursedsim.simulate(dataclasses.replace(COIN, run_chunk=below_missing), 10, progress=False)


# ---------------------------------------------------------------- chunking and backends

def test_default_chunk_size():
    assert runner.default_chunk_size(10_000_000, 1) == 100_000
    assert runner.default_chunk_size(400_000, 2) == 50_000       # at least 4 chunks per worker
    assert runner.default_chunk_size(20_000, 8) == 1_000         # never below 1,000 ...
    assert runner.default_chunk_size(300, 8) == 300              # ... unless the run is smaller


def test_plan_chunks_covers_the_gaps_exactly():
    assert runner.plan_chunks(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert runner.plan_chunks(10, 4, [(2, 5), (8, 10)]) == [(0, 2), (5, 8)]
    assert runner.plan_chunks(10, 3, [(0, 10)]) == []


def test_frame_is_identical_for_any_jobs_and_chunk_size(coin):
    reference = cursedsim.simulate("coin", 12_000, seed=11, backend="sequential", chunk_size=12_000, progress=False)
    calls = []
    chunked = cursedsim.simulate(counting(COIN, calls), 12_000, seed=11, chunk_size=5_000, progress=False)
    assert calls == [(0, 5000), (5000, 5000), (10_000, 2000)]
    pooled = cursedsim.simulate("coin", 12_000, seed=11, n_jobs=2, chunk_size=1_000, progress=False)
    pd.testing.assert_frame_equal(chunked, reference)
    pd.testing.assert_frame_equal(pooled, reference)


def test_chunks_finishing_out_of_order_are_assembled_in_index_order(coin, monkeypatch):
    reference = cursedsim.simulate("coin", 5000, seed=3, chunk_size=5000, progress=False)
    in_order = runner.execute._sequential
    monkeypatch.setattr(runner.execute, "_sequential", lambda tasks: reversed(list(in_order(tasks))))
    shuffled = cursedsim.simulate("coin", 5000, seed=3, chunk_size=1000, progress=False)
    pd.testing.assert_frame_equal(shuffled, reference)


def test_dask_backend_gives_the_identical_frame(coin):
    pytest.importorskip("distributed")
    reference = cursedsim.simulate("coin", 6_000, seed=2, players=3, progress=False)
    on_dask = cursedsim.simulate("coin", 6_000, seed=2, players=3, n_jobs=2, chunk_size=700, backend="dask",
                                 progress=False)
    pd.testing.assert_frame_equal(on_dask, reference)


def test_concat_frames_keeps_categoricals(coin):
    a = cursedsim.simulate("coin", 50, policy="plain", progress=False)
    b = cursedsim.simulate("coin", 50, policy="greedy", params={"spare": 3}, progress=False)
    both = runner.concat_frames([a, b])
    assert isinstance(both["policy"].dtype, pd.CategoricalDtype)
    assert list(both["policy"].cat.categories) == ["plain", "greedy"]
    assert both["param_spare"].isna().sum() == 50 and (both["param_spare"].iloc[50:] == 3).all()


# ---------------------------------------------------------------- checkpoints and resume

def test_out_writes_config_chunks_and_frame(coin, tmp_path):
    out = tmp_path / "run"
    frame = cursedsim.simulate("coin", 2500, seed=4, chunk_size=1000, out=out, options={"lucky": True},
                               progress=False)
    config = json.loads((out / "run.json").read_text())
    assert config == {"game": "coin", "n_games": 2500, "players": 2, "policy": "plain", "params": {},
                      "options": {"p_percent": 30, "lucky": True, "seals": None, "work": 0}, "seed": 4,
                      "chunk_size": 1000, "cursedsim_version": cursedsim.__version__,
                      "code": source_digest("coin", compiled_only=True)}
    names = sorted(os.listdir(out))
    assert names == ["chunk-0-1000.parquet", "chunk-1000-2000.parquet", "chunk-2000-2500.parquet",
                     "games.parquet", "run.json"]
    pd.testing.assert_frame_equal(pd.read_parquet(out / "games.parquet"), frame)


def test_resume_plays_only_missing_chunks_and_gives_the_same_frame(coin, tmp_path):
    out = tmp_path / "run"
    full = cursedsim.simulate("coin", 5000, seed=9, chunk_size=1000, out=out, progress=False)
    os.remove(out / "games.parquet")
    os.remove(out / "chunk-1000-2000.parquet")
    os.remove(out / "chunk-4000-5000.parquet")
    calls = []
    resumed = cursedsim.simulate(counting(COIN, calls), 5000, seed=9, chunk_size=1000, out=out, progress=False)
    assert calls == [(1000, 1000), (4000, 1000)]
    pd.testing.assert_frame_equal(resumed, full)
    calls.clear()   # with games.parquet written, nothing is played again
    again = cursedsim.simulate(counting(COIN, calls), 5000, seed=9, out=out, progress=False)
    assert calls == []
    pd.testing.assert_frame_equal(again, full)


def test_resume_after_an_interruption_with_another_chunk_size(coin, tmp_path):
    out = tmp_path / "run"

    def dies_at_3000(seed, start, count, *rest):
        if start >= 3000:
            raise KeyboardInterrupt
        return COIN.run_chunk(seed, start, count, *rest)

    with pytest.raises(KeyboardInterrupt):
        cursedsim.simulate(dataclasses.replace(COIN, run_chunk=dies_at_3000), 6000, seed=1, chunk_size=1000,
                           out=out, progress=False)
    assert sorted(f for f in os.listdir(out) if f.startswith("chunk")) == [
        "chunk-0-1000.parquet", "chunk-1000-2000.parquet", "chunk-2000-3000.parquet"]
    calls = []
    resumed = cursedsim.simulate(counting(COIN, calls), 6000, seed=1, chunk_size=2500, out=out, progress=False)
    assert calls == [(3000, 2500), (5500, 500)]
    pd.testing.assert_frame_equal(resumed, cursedsim.simulate("coin", 6000, seed=1, progress=False))


def test_a_different_configuration_in_the_same_out_is_refused(coin, tmp_path):
    out = tmp_path / "run"
    cursedsim.simulate("coin", 1000, seed=1, out=out, progress=False)
    with pytest.raises(RunError, match=r"seed is 1 there but 2 now"):
        cursedsim.simulate("coin", 1000, seed=2, out=out, progress=False)
    with pytest.raises(RunError, match=r"options\.lucky is False there but True now"):
        cursedsim.simulate("coin", 1000, seed=1, options={"lucky": True}, out=out, progress=False)
    with pytest.raises(RunError, match=r"n_games is 1000 there but 999 now"):
        cursedsim.simulate("coin", 999, seed=1, out=out, progress=False)


def test_chunks_played_by_other_code_are_not_reused(coin, tmp_path, monkeypatch):
    """After an edit of the package sources a finished run is not silently resumed with old results."""
    out = tmp_path / "run"
    cursedsim.simulate("coin", 1000, seed=1, out=out, progress=False)
    monkeypatch.setattr("cursedsim.numba_cache.source_digest",
                        lambda game=None, compiled_only=False: "0123456789abcdef")
    with pytest.raises(RunError, match=r"code is '?[0-9a-f]{16}'? there but '?0123456789abcdef'? now"):
        cursedsim.simulate("coin", 1000, seed=1, out=out, progress=False)


def test_out_refuses_a_foreign_nonempty_directory(coin, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not a cursedsim run directory"):
        cursedsim.simulate("coin", 10, out=tmp_path, progress=False)


def test_corrupt_chunk_is_played_again(coin, tmp_path):
    out = tmp_path / "run"
    full = cursedsim.simulate("coin", 2000, chunk_size=1000, out=out, progress=False)
    os.remove(out / "games.parquet")
    (out / "chunk-0-1000.parquet").write_bytes(b"not parquet")
    calls = []
    resumed = cursedsim.simulate(counting(COIN, calls), 2000, chunk_size=1000, out=out, progress=False)
    assert calls == [(0, 1000)]
    pd.testing.assert_frame_equal(resumed, full)


# ---------------------------------------------------------------- progress and replay

def test_progress_bar_reports_games(coin, capsys):
    cursedsim.simulate("coin", 3000, chunk_size=1000, progress=True)
    err = capsys.readouterr().err
    assert "3000/3000" in err and "games/s" in err


def test_progress_by_default_only_for_long_runs_on_a_terminal(coin, capsys, monkeypatch):
    cursedsim.simulate("coin", 200_000)
    assert capsys.readouterr().err == ""          # stderr is not a terminal here
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    cursedsim.simulate("coin", 199_999)
    assert capsys.readouterr().err == ""          # too short to need a bar
    cursedsim.simulate("coin", 200_000)
    assert "200000/200000" in capsys.readouterr().err


def test_replay_is_the_simulated_row(coin):
    frame = cursedsim.simulate("coin", 40, seed=8, players=3, options={"p_percent": 50}, progress=False)
    for index in range(40):
        log = cursedsim.replay("coin", 8, index, players=3, options={"p_percent": 50})
        assert f"coin game {index} of seed 8, 3 players" in log
        assert ("won" in log) == bool(frame["win"].iloc[index])


def test_replay_validates_its_input(coin):
    with pytest.raises(RunError, match="non-negative"):
        cursedsim.replay("coin", 1, -1)
    with pytest.raises(PlayersError, match="1-4"):
        cursedsim.replay("coin", 1, 0, players=9)
    with pytest.raises(UnknownPolicyError, match="plain, greedy"):
        cursedsim.replay("coin", 1, 0, policy="nope")


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_runs_of_consecutive_index_ranges_concatenate_to_one_run(n_jobs, tmp_path):
    """first_game: games 1000..3999 played on their own (in chunks, by workers, resumed from a run
    directory) are rows 1000..3999 of the run over 0..3999, game_index included."""
    whole = cursedsim.simulate("verflucht", 4000, players=3, seed=5, chunk_size=700)
    head = cursedsim.simulate("verflucht", 1000, players=3, seed=5, n_jobs=n_jobs)
    tail = cursedsim.simulate("verflucht", 3000, players=3, seed=5, first_game=1000, n_jobs=n_jobs,
                              chunk_size=900, out=str(tmp_path / "tail"))
    again = cursedsim.simulate("verflucht", 3000, players=3, seed=5, first_game=1000, out=str(tmp_path / "tail"))
    pd.testing.assert_frame_equal(tail, again)
    assert tail["game_index"].tolist() == list(range(1000, 4000))
    joined = cursedsim.runner.concat_frames([head, tail])
    pd.testing.assert_frame_equal(joined.reset_index(drop=True), whole)


@pytest.mark.parametrize("first_game", [-1, 1.5, "3", 2 ** 63 - 10])
def test_first_game_out_of_range_is_refused(first_game):
    with pytest.raises(cursedsim.errors.RunError, match="first_game"):
        cursedsim.simulate("verflucht", 100, players=3, first_game=first_game)
