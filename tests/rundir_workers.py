"""Code that runs in processes the run-directory and fault tests start (spawned, so it must be importable):
writers racing for one run directory, a lock holder to kill, and games that die or dawdle on purpose.

The games here are the coin of ``conftest`` with another ``run_chunk``; module-level functions (wrapped in
``functools.partial`` where they take settings), so they pickle by reference into loky and Dask workers.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def register_coin() -> None:
    """Register the coin game of conftest in this process (the ``coin`` fixture does it in the tests)."""
    import conftest
    from cursedsim import games
    games.GAME_MODULES["coin"] = "conftest"
    games._loaded["coin"] = conftest.COIN


# ---------------------------------------------------------------- racing writers

def race(barrier, outs: list[str], seed: int, n_games: int, chunk_size: int, results) -> None:
    """For every directory in ``outs``: wait for the other writer, then simulate the coin into it with
    ``seed``; put (out, seed, outcome) on ``results``: "ok", "locked" (refused: in use) or "refused"
    (another run's directory), with the message."""
    register_coin()
    import cursedsim
    from cursedsim.errors import RunError
    for out in outs:
        barrier.wait(timeout=60)
        try:
            cursedsim.simulate("coin", n_games, seed=seed, chunk_size=chunk_size, out=out, progress=False)
            results.put((out, seed, "ok", ""))
        except RunError as error:
            kind = "locked" if "in use by another cursedsim run" in str(error) else "refused"
            results.put((out, seed, kind, str(error)))
        except BaseException as error:   # reported, so that the test fails with it
            results.put((out, seed, "crashed", f"{type(error).__name__}: {error}"))


def hold_lock(directory: str, ready) -> None:
    """Take the lock of ``directory``, say so, and wait to be killed."""
    from cursedsim.rundir import DirectoryLock
    DirectoryLock(directory).acquire()
    ready.set()
    time.sleep(600)


# ---------------------------------------------------------------- games that fail on purpose

def dying_run_chunk(marker_dir: str, doomed: tuple[int, ...], seed, start, count, *rest):
    """The coin's chunk, except that the first attempt at a chunk starting at one of ``doomed`` kills its
    own process with SIGKILL (a marker file in ``marker_dir`` records the attempt; every attempt does
    with ``marker_dir="always"``)."""
    import conftest
    if start in doomed and marker_dir == "always":
        os.kill(os.getpid(), signal.SIGKILL)
    if start in doomed:
        marker = os.path.join(marker_dir, f"died-{start}")
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)
    return conftest.coin_run_chunk(seed, start, count, *rest)


def dying_coin(marker_dir: str, doomed: tuple[int, ...]):
    """The coin game whose chunks starting at ``doomed`` kill their worker once."""
    import conftest
    return dataclasses.replace(conftest.COIN, run_chunk=functools.partial(dying_run_chunk, marker_dir, tuple(doomed)))


def recording_run_chunk(marker_dir: str, seed, start, count, *rest):
    """The coin's chunk, leaving a file ``pid-<pid>`` in ``marker_dir``: which processes played."""
    import conftest
    open(os.path.join(marker_dir, f"pid-{os.getpid()}"), "a").close()
    return conftest.coin_run_chunk(seed, start, count, *rest)


def recording_coin(marker_dir: str):
    import conftest
    return dataclasses.replace(conftest.COIN, run_chunk=functools.partial(recording_run_chunk, marker_dir))


def slow_run_chunk(seconds: float, seed, start, count, *rest):
    """The coin's chunk after ``seconds`` of sleep (when CURSEDSIM_TEST_SLOW is set: only in the process
    tree a test kills, so the resume in the test process is fast and plays the same games)."""
    import conftest
    if os.environ.get("CURSEDSIM_TEST_SLOW"):
        time.sleep(seconds)
    return conftest.coin_run_chunk(seed, start, count, *rest)


def slow_coin(seconds: float):
    import conftest
    return dataclasses.replace(conftest.COIN, run_chunk=functools.partial(slow_run_chunk, seconds))


def main(argv: list[str]) -> None:
    """``python rundir_workers.py MODE ...`` for the fault tests:

    slow OUT N CHUNK JOBS  simulate the slow coin (n_jobs=JOBS, loky) into OUT; the test kills it.
    dying MARKERS N CHUNK JOBS DOOMED,..  simulate the dying coin on loky; print the frame's checksum.
    cli ARGS...  run the command line with the coin games registered.
    """
    register_coin()
    import cursedsim
    from cursedsim import rundir
    mode = argv[0]
    if mode == "slow":
        out, n, chunk, jobs = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
        cursedsim.simulate(slow_coin(0.3), n, seed=4, chunk_size=chunk, n_jobs=jobs, out=out, progress=False)
    elif mode == "dying":
        markers, n, chunk, jobs = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
        doomed = tuple(int(x) for x in argv[5].split(","))
        try:
            frame = cursedsim.simulate(dying_coin(markers, doomed), n, seed=6, chunk_size=chunk, n_jobs=jobs,
                                       progress=False)
        except cursedsim.errors.CursedsimError as error:
            print(f"cursedsim: error: {error}", file=sys.stderr)
            raise SystemExit(2) from None
        print(rundir.frame_checksum(frame), flush=True)
    elif mode == "cli":
        from cursedsim import games
        import conftest
        games.GAME_MODULES["plaincoin"] = "conftest"
        games._loaded["plaincoin"] = conftest.PLAIN
        from cursedsim.cli import main as cli_main
        cli_main(argv[1:])
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
