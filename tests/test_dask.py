"""Dask for real: runs against a scheduler started beforehand (``dask scheduler`` and two ``dask worker``
processes on 127.0.0.1, as on a cluster) through the API (``dask_address``) and the command line
(``--scheduler``), giving the identical frame; a local-cluster run prints nothing on stderr; an unreachable
scheduler is one line. No network beyond the loopback interface.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pandas as pd
import psutil
import pytest

import cursedsim
from cursedsim import runner
from cursedsim.errors import RunError

from conftest import ROOT
from test_cli import assert_one_line_error, run
from test_faults import tagged, wait_until_gone
import rundir_workers

pytest.importorskip("distributed")
DASK = os.path.join(os.path.dirname(sys.executable), "dask")


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """The address of a scheduler with two single-threaded workers, each its own process (the workers
    import the test games from tests/); stopped, and checked gone, afterwards."""
    folder = tmp_path_factory.mktemp("dask")
    info = folder / "scheduler.json"
    tag = uuid.uuid4().hex
    env = {**os.environ, "CURSEDSIM_TEST_TAG": tag,
           "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "tests"), ROOT, os.environ.get("PYTHONPATH", "")])}
    common = ["--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--host", "127.0.0.1"]
    processes = [subprocess.Popen([DASK, "scheduler", "--port", "0", "--scheduler-file", str(info), *common],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder)]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        for _ in range(2):
            processes.append(subprocess.Popen(
                [DASK, "worker", address, "--nthreads", "1", "--nworkers", "1", *common],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder))
        from distributed import Client
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        listening = {conn.laddr.ip for process in tagged(tag) for conn in process.net_connections(kind="inet")
                     if conn.status == psutil.CONN_LISTEN}
        assert listening == {"127.0.0.1"}, listening   # the loopback interface only
        yield address
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        left = wait_until_gone(tag, 20)
        for leftover in left:
            leftover.kill()
        assert left == []


def test_the_api_plays_on_the_workers_of_an_existing_scheduler(coin, scheduler, tmp_path):
    played = tmp_path / "pids"
    played.mkdir()
    frame = cursedsim.simulate(rundir_workers.recording_coin(str(played)), 20_000, seed=7, chunk_size=1_000,
                               backend="dask", dask_address=scheduler, progress=False)
    pd.testing.assert_frame_equal(frame, cursedsim.simulate("coin", 20_000, seed=7, progress=False))
    pids = {int(name.split("-")[1]) for name in os.listdir(played)}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2   # the workers played, not this process
    assert all(psutil.pid_exists(pid) for pid in pids)        # and they are still up: not a cluster of our own


def test_the_command_line_plays_on_an_existing_scheduler(coin, scheduler, capsys, tmp_path):
    out = tmp_path / "grid"
    status, _, err = run(capsys, "simulate", "coin", "--players", "1-2", "--games", "6000", "--chunk-size", "1000",
                         "--seed", "3", "--scheduler", scheduler, "--no-progress", "--out", str(out))
    assert status == 0, err
    expected = runner.concat_frames([cursedsim.simulate("coin", 6000, players=p, seed=3, progress=False)
                                     for p in (1, 2)])
    pd.testing.assert_frame_equal(pd.read_parquet(out / "games.parquet"), expected)
    status, table, err = run(capsys, "sweep", "coin", "--players", "1-2", "--games", "4000", "--scheduler", scheduler,
                             "--summary-only", "--no-progress")
    assert status == 0 and "4,000" in table, err
    status, table, err = run(capsys, "compare", "coin", "--policy", "plain", "--policy", "greedy", "--games", "4000",
                             "--scheduler", scheduler, "--no-progress")
    assert status == 0 and "+0.00 [+0.00, +0.00]" in table, err
    assert_one_line_error(*run(capsys, "simulate", "coin", "--backend", "loky", "--scheduler", scheduler),
                          "--scheduler plays on a Dask cluster")


def test_an_unreachable_scheduler_is_one_line(coin, capsys, monkeypatch):
    monkeypatch.setattr(runner.execute, "DASK_TIMEOUT", 2)
    started = time.monotonic()
    with pytest.raises(RunError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        cursedsim.simulate("coin", 2000, chunk_size=500, backend="dask", dask_address="tcp://127.0.0.1:9",
                           progress=False)
    assert_one_line_error(*run(capsys, "simulate", "coin", "--games", "2000", "--chunk-size", "500",
                               "--scheduler", "tcp://127.0.0.1:9", "--no-progress"), "cannot reach")
    assert_one_line_error(*run(capsys, "simulate", "coin", "--scheduler", "no port"), "tcp://HOST:PORT")
    assert time.monotonic() - started < 30


def test_a_local_cluster_run_prints_nothing_on_stderr(tmp_path):
    """The command line on a LocalCluster of its own (started and closed by the run): no log lines, no
    heartbeat tracebacks while the cluster shuts down, only the table on stdout."""
    tag = uuid.uuid4().hex
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "rundir_workers.py"), "cli", "simulate",
                           "coin", "--players", "1-2", "--backend", "dask", "--jobs", "2", "--games", "20000",
                           "--chunk-size", "1000", "--no-progress"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=240,
                          env={**os.environ, "CURSEDSIM_TEST_TAG": tag})
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and "20,000" in done.stdout
    assert wait_until_gone(tag, 15) == []


def test_a_sweep_starts_one_local_cluster_for_all_its_cells(coin, monkeypatch):
    """backend="dask" without a scheduler: the sweep plays every cell on one LocalCluster of its own
    (``research.cluster``), started once and closed at the end, and gives the in-process table."""
    started = []
    real = runner.dask_client

    def counting(workers, address=None):
        started.append(workers)
        return real(workers, address)

    monkeypatch.setattr(runner, "dask_client", counting)
    expected = cursedsim.sweep("coin", players=[1, 2], n_games=3000, seed=4, progress=False)
    table = cursedsim.sweep("coin", players=[1, 2], n_games=3000, seed=4, backend="dask", n_jobs=2,
                            chunk_size=1000, progress=False)
    pd.testing.assert_frame_equal(table, expected)
    assert started == [2]
