"""Run directories: one writer at a time (the lock), every file verified before it is read (checksums and
the run's identity), leftovers of killed writes removed, no writing into directories a run does not own."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import shutil
import signal
import socket
import time

import pandas as pd
import pyarrow.parquet as pq
import pytest

import cursedsim
from cursedsim import rundir, runner
from cursedsim.errors import RunError

from conftest import COIN
import rundir_workers


def counting(game, calls):
    """``game`` with a run_chunk that records the (start, count) of every call (in-process only)."""
    def run_chunk(seed, start, count, *rest):
        calls.append((start, count))
        return game.run_chunk(seed, start, count, *rest)
    return dataclasses.replace(game, run_chunk=run_chunk)


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    process = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(0,))
    process.start()
    process.join()
    return process.pid


# ---------------------------------------------------------------- 1. one writer per run directory

def test_a_second_writer_is_refused_with_one_line_naming_the_holder(coin, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    with rundir.DirectoryLock(str(out)):
        holder = json.loads((out / rundir.LOCK_FILE).read_text())
        assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
        with pytest.raises(RunError, match=rf"in use by another cursedsim run \(pid {os.getpid()} on host "
                                           rf"{socket.gethostname()}, started 20") as error:
            cursedsim.simulate("coin", 100, out=out, progress=False)
        assert "\n" not in str(error.value)
        assert os.listdir(out) == [rundir.LOCK_FILE]   # nothing written, not even run.json
    assert os.listdir(out) == []                         # the lock file goes with its holder
    cursedsim.simulate("coin", 100, out=out, progress=False)
    assert sorted(os.listdir(out)) == ["chunk-0-100.parquet", "games.parquet", "run.json"]


def test_run_json_is_written_before_any_chunk_and_the_lock_held_while_playing(coin, tmp_path):
    out = tmp_path / "run"
    seen = []

    def watching(seed, start, count, *rest):
        seen.append((os.path.isfile(out / "run.json"), os.path.isfile(out / rundir.LOCK_FILE)))
        return COIN.run_chunk(seed, start, count, *rest)
    cursedsim.simulate(dataclasses.replace(COIN, run_chunk=watching), 3000, chunk_size=1000, out=out, progress=False)
    assert seen and all(run_json and locked for run_json, locked in seen)


def test_concurrent_writers_started_together_never_mix_their_runs(coin, tmp_path):
    """Two processes start simulate at the same instant (a barrier) into the same directory with
    different seeds, 24 times: exactly one writes, the other is refused, and run.json, the chunk
    files and games.parquet are all the winner's."""
    trials, n_games, chunk = 24, 20_000, 2_000
    outs = [str(tmp_path / f"trial{k}") for k in range(trials)]
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    writers = [context.Process(target=rundir_workers.race, args=(barrier, outs, seed, n_games, chunk, results))
               for seed in (1, 2)]
    for writer in writers:
        writer.start()
    try:
        outcomes: dict[str, list] = {out: [] for out in outs}
        for _ in range(2 * trials):
            out, seed, kind, message = results.get(timeout=180)
            outcomes[out].append((seed, kind, message))
    finally:
        for writer in writers:
            writer.join(timeout=30)
            if writer.is_alive():
                writer.kill()
                writer.join()
    reference = {seed: cursedsim.simulate("coin", n_games, seed=seed, progress=False) for seed in (1, 2)}
    locked = 0
    for out, got in outcomes.items():
        kinds = sorted(kind for _, kind, _ in got)
        assert kinds in (["locked", "ok"], ["ok", "refused"]), got
        locked += kinds == ["locked", "ok"]
        (winner,) = [seed for seed, kind, _ in got if kind == "ok"]
        assert json.loads(open(os.path.join(out, "run.json")).read())["seed"] == winner
        pd.testing.assert_frame_equal(pd.read_parquet(os.path.join(out, "games.parquet")), reference[winner])
        config = json.loads(open(os.path.join(out, "run.json")).read())
        key = rundir.run_key(config, runner._FREE_KEYS)
        for start in range(0, n_games, chunk):
            rundir.read_chunk(os.path.join(out, f"chunk-{start}-{start + chunk}.parquet"),
                              {"run_key": key, "start": start, "stop": start + chunk, "rows": chunk},
                              COIN.outcome_columns)
        assert rundir.LOCK_FILE not in os.listdir(out)
    assert locked >= 1, "the writers never overlapped: the lock was not exercised"


def test_the_lock_of_a_killed_holder_is_taken_over(coin, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    holder = context.Process(target=rundir_workers.hold_lock, args=(str(out), ready))
    holder.start()
    try:
        assert ready.wait(60)
        with pytest.raises(RunError, match=f"pid {holder.pid} on host"):
            cursedsim.simulate("coin", 100, out=out, progress=False)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.join(30)
    assert json.loads((out / rundir.LOCK_FILE).read_text())["pid"] == holder.pid   # stale lock file left behind
    frame = cursedsim.simulate("coin", 100, out=out, progress=False)
    pd.testing.assert_frame_equal(frame, cursedsim.simulate("coin", 100, progress=False))


def test_without_flock_a_stale_lock_file_is_taken_over_and_a_live_one_refused(coin, tmp_path, monkeypatch):
    """On a filesystem without flock the lock is an O_EXCL file: stale when its holder (on this host)
    is gone or its pid belongs to a younger process."""
    import errno
    import fcntl

    def no_flock(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(fcntl, "flock", no_flock)
    out = tmp_path / "run"
    out.mkdir()
    lock = out / rundir.LOCK_FILE
    host = socket.gethostname()
    lock.write_text(json.dumps({"pid": _dead_pid(), "host": host, "started": time.time(), "started_text": "then"}))
    cursedsim.simulate("coin", 100, out=out, progress=False)
    assert not lock.exists()
    # a live holder (this process, recorded as started now) is refused, also from another host
    for holder_host in (host, "elsewhere"):
        lock.write_text(json.dumps({"pid": os.getpid(), "host": holder_host, "started": time.time(),
                                    "started_text": "now"}))
        with pytest.raises(RunError, match=f"pid {os.getpid()} on host {holder_host}.*remove .*cursedsim.lock"):
            cursedsim.simulate("coin", 100, out=out, progress=False)
    # a pid that now belongs to a process younger than the lock: stale
    lock.write_text(json.dumps({"pid": os.getpid(), "host": host, "started": 1.0, "started_text": "long ago"}))
    cursedsim.simulate("coin", 100, out=out, progress=False)
    assert not lock.exists()


# ---------------------------------------------------------------- 2. every file is verified before it is read

def _warning_lines(err: str) -> list[str]:
    lines = err.splitlines()
    assert all(line.startswith("cursedsim: warning: ") for line in lines), err
    return lines


def _run(out, n=5000, seed=9, game="coin", **kwargs):
    return cursedsim.simulate(game, n, seed=seed, chunk_size=1000, out=out, progress=False, **kwargs)


@pytest.mark.parametrize("damage", ["flipped byte", "another range", "another seed", "truncated", "no checksum"])
def test_a_damaged_or_foreign_chunk_is_recomputed_with_one_line(coin, tmp_path, capsys, damage):
    out = tmp_path / "run"
    full = _run(out)
    os.remove(out / "games.parquet")
    target = out / "chunk-2000-3000.parquet"
    if damage == "flipped byte":
        data = bytearray(target.read_bytes())
        data[len(data) // 3] ^= 0x10
        target.write_bytes(bytes(data))
    elif damage == "another range":
        shutil.copy(out / "chunk-3000-4000.parquet", target)
    elif damage == "another seed":
        _run(tmp_path / "other", seed=10)
        shutil.copy(tmp_path / "other" / "chunk-2000-3000.parquet", target)
    elif damage == "truncated":
        target.write_bytes(target.read_bytes()[:-100])
    else:   # the same arrays without cursedsim's metadata (another program's, or an older cursedsim's)
        table = pq.read_table(target)
        pq.write_table(table.replace_schema_metadata({}), target)
    capsys.readouterr()
    calls = []
    resumed = _run(out, game=counting(COIN, calls))
    assert calls == [(2000, 1000)]
    pd.testing.assert_frame_equal(resumed, full)
    (line,) = _warning_lines(capsys.readouterr().err)
    assert "1 chunk file(s)" in line and "chunk-2000-3000.parquet" in line and "played again" in line


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "another seed", "another program"])
def test_a_damaged_or_foreign_games_parquet_is_rebuilt_from_the_chunks(coin, tmp_path, capsys, damage):
    out = tmp_path / "run"
    full = _run(out)
    target = out / "games.parquet"
    if damage == "truncated":
        target.write_bytes(target.read_bytes()[: target.stat().st_size // 2])
    elif damage == "flipped byte":
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0x01
        target.write_bytes(bytes(data))
    elif damage == "another seed":
        _run(tmp_path / "other", seed=10)
        shutil.copy(tmp_path / "other" / "games.parquet", target)
    else:
        full.assign(score=full["score"] + 1).to_parquet(target, index=False)
    capsys.readouterr()
    calls = []
    resumed = _run(out, game=counting(COIN, calls))
    assert calls == []                               # every chunk was fine: nothing played again
    pd.testing.assert_frame_equal(resumed, full)
    (line,) = _warning_lines(capsys.readouterr().err)
    assert "games.parquet failed verification" in line and "rebuilt from the chunk files" in line
    pd.testing.assert_frame_equal(pd.read_parquet(target), full)   # and written again, verified
    _run(out, game=counting(COIN, calls))
    assert calls == [] and capsys.readouterr().err == ""


def test_any_flipped_byte_of_a_chunk_file_is_detected_or_harmless(coin, tmp_path):
    """Every byte of a small chunk file flipped in turn: reading it back either fails verification or
    gives exactly the original arrays; never other data."""
    out = tmp_path / "run"
    cursedsim.simulate("coin", 300, seed=2, out=out, progress=False)
    path = out / "chunk-0-300.parquet"
    original = path.read_bytes()
    key = rundir.run_key(json.loads((out / "run.json").read_text()), runner._FREE_KEYS)
    identity = {"run_key": key, "start": 0, "stop": 300, "rows": 300}
    good = rundir.read_chunk(str(path), identity, COIN.outcome_columns)
    detected = harmless = 0
    for position in range(len(original)):
        damaged = bytearray(original)
        damaged[position] ^= 0x04
        path.write_bytes(bytes(damaged))
        try:
            arrays = rundir.read_chunk(str(path), identity, COIN.outcome_columns)
        except rundir.InvalidFile:
            detected += 1
            continue
        harmless += 1
        for name in COIN.outcome_columns:
            assert arrays[name].dtype == good[name].dtype and (arrays[name] == good[name]).all(), (position, name)
    assert detected > 0.5 * len(original), (detected, harmless)   # the rest: statistics, padding, names


def test_any_flipped_byte_of_games_parquet_is_detected_or_harmless(coin, tmp_path):
    out = tmp_path / "run"
    frame = cursedsim.simulate("coin", 60, seed=2, options={"lucky": True}, params={"bonus": 2}, out=out,
                               progress=False)
    path = out / "games.parquet"
    original = path.read_bytes()
    identity = {"run_key": rundir.run_key(json.loads((out / "run.json").read_text()), runner._FREE_KEYS),
                "rows": 60}
    pd.testing.assert_frame_equal(rundir.read_frame(str(path), identity), frame)
    detected = 0
    for position in range(0, len(original), 5):
        damaged = bytearray(original)
        damaged[position] ^= 0x40
        path.write_bytes(bytes(damaged))
        try:
            back = rundir.read_frame(str(path), identity)
        except rundir.InvalidFile:
            detected += 1
            continue
        pd.testing.assert_frame_equal(back, frame)
    assert detected > 0.5 * len(range(0, len(original), 5))


def test_leftover_temporary_files_of_a_killed_write_are_removed(coin, tmp_path):
    out = tmp_path / "run"
    full = _run(out, n=3000)
    os.remove(out / "games.parquet")
    leftovers = [".chunk-1000-2000.parquet.4242.0badc0de.tmp", ".games.parquet.77.12345678.tmp"]
    for name in leftovers:
        (out / name).write_bytes(b"half a file")
    (out / "notes.txt").write_text("the user's")             # not ours: kept
    pd.testing.assert_frame_equal(_run(out, n=3000), full)
    assert sorted(os.listdir(out)) == ["chunk-0-1000.parquet", "chunk-1000-2000.parquet", "chunk-2000-3000.parquet",
                                       "games.parquet", "notes.txt", "run.json"]


def test_a_damaged_run_json_is_refused_in_one_line(coin, tmp_path):
    out = tmp_path / "run"
    _run(out, n=1000)
    (out / "run.json").write_text('{"game": "coin", "n_ga')
    with pytest.raises(RunError, match=r"run\.json is damaged .*remove it") as error:
        _run(out, n=1000)
    assert "\n" not in str(error.value)
    os.remove(out / "run.json")                               # as the message says: the chunks are reused
    calls = []
    pd.testing.assert_frame_equal(_run(out, n=1000, game=counting(COIN, calls)), _run(None, n=1000))
    assert calls == []
    # but a directory holding only a games.parquet cursedsim did not write is somebody else's
    other = tmp_path / "other"
    other.mkdir()
    _run(None, n=1000).to_parquet(other / "games.parquet")
    with pytest.raises(RunError, match="not a cursedsim run directory"):
        _run(other, n=1000)


def test_real_games_round_trip_their_checkpoints(verflucht, tmp_path, capsys):
    """The outcome dtypes of both real games survive the checksummed files: a resume plays nothing."""
    for name in ("verflucht", "cursed"):
        out = tmp_path / name
        full = cursedsim.simulate(name, 1500, seed=3, chunk_size=500, out=out, progress=False)
        os.remove(out / "games.parquet")
        game = cursedsim.get_game(name)
        calls = []
        pd.testing.assert_frame_equal(cursedsim.simulate(counting(game, calls), 1500, seed=3, out=out, progress=False),
                                      full)
        assert calls == [] and capsys.readouterr().err == ""


def test_a_refused_writer_leaves_the_holders_directory_alone(coin, tmp_path, monkeypatch):
    """A run refused by the lock never removes anything, even a folder it created a moment before the
    holder took it (found by the concurrency test under load: the refused run removed the holder's lock
    file and folder)."""
    import contextlib
    out = tmp_path / "run"
    out.mkdir()

    @contextlib.contextmanager
    def created_just_now(path):
        yield [str(out)]   # as if this run had created the folder an instant before the holder locked it
    monkeypatch.setattr(rundir, "_created_dirs", created_just_now)
    with rundir.DirectoryLock(str(out)):
        with pytest.raises(RunError, match="in use"):
            cursedsim.simulate("coin", 100, out=out, progress=False)
        assert os.listdir(out) == [rundir.LOCK_FILE]
