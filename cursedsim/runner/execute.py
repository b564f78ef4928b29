"""The runner's execution: one kernel call per chunk, played in this process, on loky worker processes
(joblib's) or on a Dask cluster, with the chunks of a dead worker played again; the warm-up that compiles
(or loads) the kernel before workers start, and the progress bar.

Faults: a loky worker that dies loses only the chunks it held; they are played again (at most
``WORKER_RETRIES`` times per run) with a one-line warning. Loky workers exit when their parent process
dies. Dask reschedules the tasks of a lost worker itself; a task that kills workers repeatedly
(``KilledWorker``) is submitted again like a loky chunk.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from cursedsim.errors import RunError, warn
from cursedsim.games import Game
from cursedsim.resolve import policy_label, policy_specs
from cursedsim.runner.plan import PROGRESS_MIN_GAMES

#: How often a run plays the chunks of a dead worker again before it gives up.
WORKER_RETRIES = 3
#: Seconds to reach a Dask scheduler, and to wait for its first worker.
DASK_TIMEOUT = 20


# ---------------------------------------------------------------- chunks

def _play_chunk(game: Game, seed: int, start: int, stop: int, players: int, options: Any,
                policy: Any, param_vector: Any) -> tuple[int, int, dict[str, np.ndarray]]:
    """One kernel call for games start..stop-1 (runs in a worker); returns (start, stop, arrays).
    The game gets the PolicySpec (a game of sides: side -> PolicySpec), not the name: a user policy
    registered in the parent process travels to the worker inside the pickled game."""
    arrays = game.run_chunk(seed, start, stop - start, players, options, policy_specs(game, policy), param_vector)
    return start, stop, arrays


def _sequential(tasks: Iterable[tuple]) -> Iterator[tuple]:
    for task in tasks:
        yield _play_chunk(*task)


def _watch_parent(parent: int) -> None:
    """Run in every loky worker: exit as soon as the parent process is gone. Without it a worker
    orphaned by a killed parent waits for its idle timeout (minutes), and keeps loky's resource tracker
    alive with it."""
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(0)

    threading.Thread(target=watch, name="cursedsim-watch-parent", daemon=True).start()


def _loky_executor(workers: int):
    """The reusable loky executor (warm workers between runs of a process) with the parent watch."""
    from joblib.externals.loky import get_reusable_executor
    return get_reusable_executor(max_workers=workers, timeout=300, initializer=_watch_parent,
                                 initargs=(os.getpid(),))


def _death_note(error: BaseException) -> str:
    codes = re.search(r"exit codes of the workers are \{([^}]*)\}", str(error))
    return f"{type(error).__name__}, exit code {codes[1]}" if codes else type(error).__name__


def _loky(tasks: Iterable[tuple], workers: int) -> Iterator[tuple]:
    """Chunks on loky worker processes, at most 4 per worker in flight; the chunks of a worker that
    died are played again (at most WORKER_RETRIES times per run, with a warning)."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from joblib.externals.loky.process_executor import BrokenProcessPool

    window = 4 * workers
    tasks = iter(tasks)
    pending: dict[Any, tuple] = {}
    again: list[tuple] = []
    deaths = 0
    executor = _loky_executor(workers)
    try:
        while True:
            while len(pending) < window:
                task = again.pop() if again else next(tasks, None)
                if task is None:
                    break
                pending[executor.submit(_play_chunk, *task)] = task
            if not pending:
                return
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            lost, cause, results = [], None, []
            for future in done:
                task = pending.pop(future)
                try:
                    results.append(future.result())
                except BrokenProcessPool as error:
                    lost.append(task)
                    cause = error
            if lost:   # the pool is broken: every other chunk in flight fails or finishes now
                wait(list(pending))
                for future, task in pending.items():
                    try:
                        results.append(future.result())
                    except BrokenProcessPool:
                        lost.append(task)
                pending.clear()
                deaths += 1
                if deaths > WORKER_RETRIES:
                    raise RunError(f"worker processes died {deaths} times ({_death_note(cause)}); giving up "
                                   "(finished chunks are kept in out, if given: rerun to resume)")
                warn(f"a worker process died ({_death_note(cause)}); playing its {len(lost)} unfinished "
                     f"chunk(s) again (retry {deaths} of {WORKER_RETRIES})")
                again.extend(sorted(lost, key=lambda t: -t[2]))
                executor = _loky_executor(workers)
            yield from results
    finally:
        for future in pending:
            future.cancel()


@contextlib.contextmanager
def dask_client(workers: int, address: Any = None) -> Iterator[Any]:
    """A ``distributed.Client``: ``address`` itself if it is one, connected to the scheduler at
    ``address`` (a RunError when it cannot be reached in DASK_TIMEOUT seconds or has no worker), or on
    a LocalCluster of ``workers`` processes listening on 127.0.0.1 only, started here; closed on exit
    (unless passed in). Worker log noise below CRITICAL (e.g. heartbeats failing while a cluster shuts down) is not
    shown."""
    import logging

    from distributed import Client, LocalCluster

    if isinstance(address, Client):
        yield address
        return
    cluster = None
    if address:
        try:
            client = Client(address, timeout=f"{DASK_TIMEOUT}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise RunError(f"cannot reach the Dask scheduler at {address}: "
                           f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None
        try:
            client.wait_for_workers(1, timeout=DASK_TIMEOUT)
        except (OSError, TimeoutError) as error:
            client.close()
            raise RunError(f"the Dask scheduler at {address} has no worker after {DASK_TIMEOUT} s "
                           f"({type(error).__name__}); start workers with: dask worker {address}") from None
    else:
        # everything on the loopback interface; the HTTP server on a free port (8787 may be taken)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL)
        client = Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _dask(tasks: Iterable[tuple], workers: int, address: Any) -> Iterator[tuple]:
    """Chunks as tasks on a Dask cluster, at most 4 per worker thread in flight. Dask plays the tasks of
    a lost worker again itself; a task given up as ``KilledWorker`` is submitted again (at most
    WORKER_RETRIES times per run, with a warning)."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    with dask_client(workers, address) as client:
        threads = sum(client.nthreads().values()) or workers
        window = max(4 * threads, 8)
        tasks = iter(tasks)
        in_flight: dict[str, tuple[Any, tuple]] = {}
        queue = None
        deaths = 0

        def submit(task: tuple) -> Any:
            future = client.submit(_play_chunk, *task, pure=False)
            in_flight[future.key] = (future, task)
            if queue is not None:
                queue.add(future)
            return future

        first = [submit(task) for task in itertools.islice(tasks, window)]
        queue = as_completed(first, loop=client.loop)
        try:
            for future in queue:
                _, task = in_flight.pop(future.key)
                try:
                    result = future.result()
                except KilledWorker as error:
                    deaths += 1
                    if deaths > WORKER_RETRIES:
                        raise RunError(f"Dask workers died {deaths} times playing chunks ({error}); giving up") from None
                    warn(f"Dask workers died playing games {task[2]}-{task[3] - 1}; playing them again "
                         f"(retry {deaths} of {WORKER_RETRIES})")
                    submit(task)
                    continue
                except Exception as error:
                    if type(error).__name__ in ("CancelledError", "FutureCancelledError", "CommClosedError"):
                        raise RunError(f"lost the Dask cluster while playing ({type(error).__name__}); finished "
                                       "chunks are kept in out, if given: rerun to resume") from None
                    raise
                future.release()
                yield result
                task = next(tasks, None)
                if task is not None:
                    submit(task)
        finally:
            if in_flight:
                with contextlib.suppress(Exception):
                    client.cancel([future for future, _ in in_flight.values()])


def _run_tasks(tasks: Iterator[tuple], backend: str, workers: int, address: Any) -> Iterator[tuple]:
    """(start, stop, arrays) of every task, in any order, on the chosen backend."""
    head = list(itertools.islice(tasks, 2))
    if not head:
        return iter(())
    single = len(head) == 1
    tasks = itertools.chain(head, tasks)
    if backend == "sequential" or (backend == "loky" and (workers == 1 or single)):
        return _sequential(tasks)
    if backend == "loky":
        return _loky(tasks, workers)
    return _dask(tasks, workers, address)


# ---------------------------------------------------------------- progress

def _progress_bar(total: int, description: str):
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task):
            speed = task.finished_speed or task.speed
            return Text("? games/s" if speed is None else f"{speed:,.0f} games/s", style="progress.data.speed")

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                        console=Console(stderr=True))
    return progress, progress.add_task(description, total=total)


def _want_progress(progress: Any, n_games: int) -> bool:
    if progress is None:
        return n_games >= PROGRESS_MIN_GAMES and sys.stderr.isatty()
    return bool(progress)


def _warm_up(game: Game, seed: int, players: int, options: Any, policy: Any, param_vector: Any,
             verbose: bool) -> float:
    """Play one game in this process so the compiled kernel is in numba's cache; returns seconds
    (a first run compiles: tens of seconds; later ones load the cache: well under one)."""
    from cursedsim.compile_notice import compiling
    t0 = time.perf_counter()
    with compiling(game.name, policy_label(policy), enabled=verbose):
        _play_chunk(game, seed, 0, 1, players, options, policy, param_vector)
    return time.perf_counter() - t0


__all__ = ["DASK_TIMEOUT", "WORKER_RETRIES", "dask_client"]
