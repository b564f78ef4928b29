"""Faults are survived: a loky worker killed mid-run, a Dask worker killed mid-run and the parent process
killed mid-run all end in the identical frame, with one-line warnings, and leave no process behind.

The runs that get killed play in child processes carrying a tag in their environment (inherited by
every process they start: loky workers, resource trackers, Dask nannies), so the test can find any
process left behind, however it was reparented.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
import uuid

import pandas as pd
import psutil
import pytest

import cursedsim
from cursedsim import rundir

from conftest import COIN, ROOT
import rundir_workers

WORKERS_SCRIPT = os.path.join(ROOT, "tests", "rundir_workers.py")


def tagged(tag: str) -> list[psutil.Process]:
    """The live processes whose environment holds CURSEDSIM_TEST_TAG=tag."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get("CURSEDSIM_TEST_TAG") == tag and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


def wait_until_gone(tag: str, seconds: float) -> list[psutil.Process]:
    """Wait (at most ``seconds``) until no tagged process is left; returns those still there."""
    deadline = time.monotonic() + seconds
    while (left := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def start(args: list[str], **env: str) -> tuple[subprocess.Popen, str]:
    tag = uuid.uuid4().hex
    environment = {**os.environ, "CURSEDSIM_TEST_TAG": tag, **env}
    if "CURSEDSIM_TEST_SLOW" not in env:
        environment.pop("CURSEDSIM_TEST_SLOW", None)
    process = subprocess.Popen([sys.executable, WORKERS_SCRIPT, *args], env=environment, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT)
    return process, tag


def finish(process: subprocess.Popen, tag: str, timeout: float = 240) -> tuple[str, str]:
    """Wait for ``process``; kill its whole tagged tree if it overstays. Returns (stdout, stderr)."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        for leftover in tagged(tag):
            leftover.kill()
        out, err = process.communicate()
        pytest.fail(f"the run did not finish in {timeout} s: {err[-2000:]}")
    return out, err


def test_a_killed_loky_worker_loses_nothing(tmp_path):
    """Two chunks kill their worker (SIGKILL) the first time they are played: the run plays the lost
    chunks again, warns in one line per loss and returns the frame of an undisturbed run."""
    process, tag = start(["dying", str(tmp_path), "20000", "1000", "2", "3000,7000"])
    out, err = finish(process, tag)
    assert process.returncode == 0, err
    assert sorted(os.listdir(tmp_path)) == ["died-3000", "died-7000"]   # both chunks did kill a worker
    reference = cursedsim.simulate(COIN, 20_000, seed=6, progress=False)
    assert out.strip() == rundir.frame_checksum(reference)
    lines = [line for line in err.splitlines() if "leaked semlock" not in line and "warnings.warn" not in line]
    assert 1 <= len(lines) <= 2 and all(line.startswith("cursedsim: warning: a worker process died (TerminatedWorkerError")
                                        and "again (retry" in line for line in lines), err
    assert "Traceback" not in err
    assert wait_until_gone(tag, 15) == []


def test_a_worker_killed_at_every_try_ends_in_one_line_after_bounded_retries(tmp_path):
    process, tag = start(["dying", "always", "4000", "1000", "2", "2000"])
    out, err = finish(process, tag)
    assert process.returncode == 2 and out == ""
    lines = [line for line in err.splitlines() if line.startswith("cursedsim: ")]
    assert [line.split(":")[1].strip() for line in lines] == ["warning"] * 3 + ["error"], err
    assert "worker processes died 4 times" in lines[-1] and "Traceback" not in err
    assert wait_until_gone(tag, 15) == []


def test_a_killed_parent_leaves_no_process_and_resumes_to_the_identical_frame(coin, tmp_path):
    """The parent of a 2-worker loky run is killed (SIGKILL) mid-run: its workers and loky's resource
    trackers exit within seconds, and the rerun (in this process) finishes the identical frame from the
    chunks it left."""
    out = tmp_path / "run"
    process, tag = start(["slow", str(out), "40000", "1000", "2"], CURSEDSIM_TEST_SLOW="1")
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if out.is_dir() and len([n for n in os.listdir(out) if n.startswith("chunk-")]) >= 4:
                break
            time.sleep(0.05)
        assert process.poll() is None, process.communicate()[1]
        assert len(tagged(tag)) >= 3   # the parent, its workers and loky's trackers
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
        left = wait_until_gone(tag, 10)
        assert left == [], [p.cmdline() for p in left]
    finally:
        for leftover in tagged(tag):
            leftover.kill()
    finished = [n for n in os.listdir(out) if n.startswith("chunk-")]
    assert 4 <= len(finished) < 40 and "games.parquet" not in os.listdir(out)
    calls = []

    def counting(seed, start, count, *rest):
        calls.append(start)
        return COIN.run_chunk(seed, start, count, *rest)
    resumed = cursedsim.simulate(dataclasses.replace(COIN, run_chunk=counting), 40_000, seed=4, chunk_size=1000,
                                 out=out, progress=False)
    assert len(calls) == 40 - len(finished)
    pd.testing.assert_frame_equal(resumed, cursedsim.simulate("coin", 40_000, seed=4, progress=False))


def test_a_killed_dask_worker_loses_nothing(coin, tmp_path):
    """A worker of a real LocalCluster is killed (SIGKILL) by the chunk it plays: Dask plays that chunk
    again on a worker that lives, and the frame is the one of an undisturbed run. The cluster's
    processes are gone afterwards."""
    pytest.importorskip("distributed")
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    game = rundir_workers.dying_coin(str(tmp_path), (3000,))
    frame = cursedsim.simulate(game, 8000, seed=6, chunk_size=1000, n_jobs=2, backend="dask", progress=False)
    assert os.listdir(tmp_path) == ["died-3000"]
    pd.testing.assert_frame_equal(frame, cursedsim.simulate("coin", 8000, seed=6, progress=False))
    # multiprocessing's resource tracker, started on first use, stays for the life of this process
    from multiprocessing import resource_tracker
    before.add(getattr(resource_tracker._resource_tracker, "_pid", None))
    deadline = time.monotonic() + 20
    while (new := {p.pid for p in me.children(recursive=True)} - before) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not new, [psutil.Process(pid).cmdline()[:4] for pid in new if psutil.pid_exists(pid)]
