"""The runner: cut a run into chunks of game indices, play them (in-process, joblib/loky or Dask), and
assemble one pandas frame with one row per game (or, with ``summary_only``, fold every chunk into a
``streaming.RunSummary`` as it arrives); optionally checkpoint every chunk under ``out`` and resume from
there.

Game ``i`` of a run draws only from the random streams keyed by ``(seed, i)`` (see ``rng.py``), and
chunks are assembled in index order, so the frame does not depend on ``n_jobs``, ``chunk_size``,
``backend``, resumes or retries.

Faults: a loky worker that dies loses only the chunks it held; they are played again (at most
``WORKER_RETRIES`` times per run) with a one-line warning. Loky workers exit when their parent process
dies. Dask reschedules the tasks of a lost worker itself; a task that kills workers repeatedly
(``KilledWorker``) is submitted again like a loky chunk. Run directories are locked, and every file in
them is verified before it is read (``rundir.py``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from cursedsim import events, rundir
from cursedsim.errors import CursedsimError, RunError, shorten, warn
from cursedsim.games import Game
from cursedsim.resolve import (check_finite, is_int, make_options, option_kinds, policy_label,  # noqa: F401
                               policy_specs, resolve_game, resolve_players, resolve_policy, resolve_sides,
                               win_columns)
from cursedsim.sides import frame_columns
from cursedsim.streaming import RunSummary
from cursedsim.version import __version__

BACKENDS = ("loky", "dask", "sequential")
#: Upper bound of the default chunk: ~0.2 s of kernel time at ~500k games/s.
MAX_DEFAULT_CHUNK = 100_000
#: Lower bound of the default chunk (unless the run is smaller): below it, dispatch costs dominate.
MIN_DEFAULT_CHUNK = 1_000
#: The largest chunk accepted: ~20 s of kernel work and a few hundred MB of outcome arrays.
MAX_CHUNK_SIZE = 10_000_000
#: Game indices are int64 in the frame: a run has at most this many games.
MAX_GAMES = 2 ** 63 - 1
#: Worker processes at most (n_jobs).
MAX_JOBS = 1024
#: Runs at least this long get a progress bar by default (when stderr is a terminal).
PROGRESS_MIN_GAMES = 200_000
#: How often a run plays the chunks of a dead worker again before it gives up.
WORKER_RETRIES = 3
#: Seconds to reach a Dask scheduler, and to wait for its first worker.
DASK_TIMEOUT = 20
RUN_FILE = "run.json"
FRAME_FILE = "games.parquet"
SUMMARY_FILE = "summary.json"
_CHUNK_RE = re.compile(r"^chunk-(\d+)-(\d+)\.parquet$")
#: Keys of run.json that do not change the games played, so a resume may differ in them.
_FREE_KEYS = ("chunk_size",)
_ADDRESS_RE = re.compile(r"^(?:[a-z][a-z0-9+]*://)?[^\s/]+(?:/\S*)?$")


# ---------------------------------------------------------------- validation

def check_n_games(n_games: Any) -> int:
    """``n_games`` as an int, or a RunError unless it is a positive integer (at most 2**63-1)."""
    if not is_int(n_games) or not 1 <= n_games <= MAX_GAMES:
        raise RunError(f"the number of games must be a positive integer (at most 2**63-1), got {shorten(n_games)}")
    return int(n_games)


def check_seed(seed: Any) -> int:
    """``seed`` as an int, or a RunError unless it is an integer in 0..2**64-1."""
    if not is_int(seed) or not 0 <= seed < 2 ** 64:
        raise RunError(f"seed must be an integer in 0..2**64-1, got {shorten(seed)}")
    return int(seed)


def check_n_jobs(n_jobs: Any) -> int:
    """The number of workers ``n_jobs`` stands for (-1: every core), or a RunError."""
    if not is_int(n_jobs) or not (1 <= n_jobs <= MAX_JOBS or n_jobs == -1):
        raise RunError(f"n_jobs must be a positive integer up to {MAX_JOBS} or -1 (all cores), got {shorten(n_jobs)}")
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def check_first_game(first_game: Any, n_games: int) -> int:
    """``first_game`` as a non-negative int whose run ends below MAX_GAMES, or a RunError."""
    if not is_int(first_game) or not 0 <= first_game <= MAX_GAMES - n_games:
        raise RunError(f"first_game must be an integer from 0 to {MAX_GAMES - n_games:,} (games first_game.."
                       f"first_game+n_games-1 must exist), got {shorten(first_game)}")
    return int(first_game)


def check_chunk_size(chunk_size: Any) -> int | None:
    """``chunk_size`` (None: choose one), or a RunError unless it is a positive integer (at most
    MAX_CHUNK_SIZE)."""
    if chunk_size is None:
        return None
    if not is_int(chunk_size) or not 1 <= chunk_size <= MAX_CHUNK_SIZE:
        raise RunError(f"chunk_size must be a positive integer up to {MAX_CHUNK_SIZE:,} or None (automatic), "
                       f"got {shorten(chunk_size)}")
    return int(chunk_size)


def check_backend(backend: Any) -> str:
    """``backend``, or a RunError naming the valid backends."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise RunError(f"unknown backend {shorten(backend)}; valid backends: {', '.join(BACKENDS)}")
    return str(backend)


def check_flag(value: Any, name: str) -> bool:
    """``value`` as a bool, or a RunError unless it is True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise RunError(f"{name} must be True or False, got {shorten(value)}")
    return bool(value)


def check_progress(progress: Any) -> bool | None:
    """``progress`` (None: automatic), or a RunError unless it is None, True or False."""
    if progress is None:
        return None
    if not isinstance(progress, (bool, np.bool_)):
        raise RunError(f"progress must be True, False or None (automatic), got {shorten(progress)}")
    return bool(progress)


def check_dask_address(address: Any, backend: str) -> Any:
    """``address``: None, a scheduler address (``tcp://HOST:PORT``) or a ``distributed.Client``; only
    with ``backend="dask"``."""
    if address is None:
        return None
    if backend != "dask":
        raise RunError(f"dask_address (the Dask scheduler) works with backend 'dask' only, got backend {backend!r}")
    if isinstance(address, str):
        if len(address) > 300 or not _ADDRESS_RE.match(address) or ":" not in address:
            raise RunError(f"dask_address must be a scheduler address like tcp://HOST:PORT, got {shorten(address)}")
        return address
    try:
        from distributed import Client
    except ImportError:   # pragma: no cover
        Client = ()
    if isinstance(address, Client):
        return address
    raise RunError(f"dask_address must be a scheduler address like tcp://HOST:PORT or a distributed.Client, "
                   f"got {type(address).__name__}")


def default_chunk_size(n_games: int, workers: int) -> int:
    """~0.2 s of kernel work per chunk, but at least 4 chunks per worker, never below 1,000 games."""
    size = min(MAX_DEFAULT_CHUNK, math.ceil(n_games / (4 * workers)))
    return min(max(size, MIN_DEFAULT_CHUNK), n_games)


def iter_chunks(n_games: int, chunk_size: int, done: Iterable[tuple[int, int]] = ()) -> Iterator[tuple[int, int]]:
    """The (start, stop) ranges still to play, lazily: the gaps of [0, n_games) between ``done``
    ranges, each cut into pieces of at most ``chunk_size`` games."""
    position = 0
    for start, stop in sorted(done) + [(n_games, n_games)]:
        while position < start:
            end = min(position + chunk_size, start)
            yield position, end
            position = end
        position = max(position, stop)


def plan_chunks(n_games: int, chunk_size: int, done: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """``iter_chunks`` as a list."""
    return list(iter_chunks(n_games, chunk_size, done))


# ---------------------------------------------------------------- memory

def available_memory() -> int:
    """Bytes of memory available to a new allocation (psutil; ``/proc/meminfo`` without it)."""
    try:
        import psutil
        return int(psutil.virtual_memory().available)
    except Exception:   # pragma: no cover
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def frame_bytes(game: Game, n_games: int, outcome_bytes: int | None = None, extra_columns: int = 8) -> int:
    """Memory a frame of ``n_games`` games needs while it is built and written: the outcome arrays
    (``outcome_bytes`` per game; None: 8 bytes per outcome column, an upper bound), the constant columns
    (game, seed, game_index, players, policy and ``extra_columns`` options and parameters of up to 8
    bytes) and one copy of it all while it is written to Parquet or read back."""
    outcome = 8 * len(game.outcome_columns) if outcome_bytes is None else outcome_bytes
    row = outcome + 19 + 8 * extra_columns
    return n_games * (outcome + 2 * row)


def check_memory(game: Game, n_games: int, *, copies: int = 1, probe: Callable[[], Mapping[str, Any]] | None = None,
                 what: str = "the frame") -> None:
    """A RunError unless ``copies`` frames of ``n_games`` games fit in the memory available now (before
    anything is allocated). The first estimate takes 8 bytes per outcome column; when that does not fit,
    ``probe()`` (one game's outcome arrays) gives the real sizes."""
    available = available_memory()
    if copies * frame_bytes(game, n_games) <= available:
        return
    if probe is None:
        names, vectors, _ = resolve_policy(game, None, None)
        players = game.default_players if game.default_players is not None else game.min_players
        def probe():
            return game.run_chunk(0, 0, 1, players, game.make_options(None), policy_specs(game, names), vectors)
    sizes = sum(np.asarray(values).dtype.itemsize for values in probe().values())
    need = copies * frame_bytes(game, n_games, sizes)
    if need > available:
        raise RunError(f"{what} of {n_games:,} games needs about {_size(need)} of memory and "
                       f"{_size(available)} is available; use summary_only=True (--summary-only), which "
                       "keeps only the summary, or fewer games")


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n} B"   # pragma: no cover


# ---------------------------------------------------------------- frames

def _int_dtype(value: int) -> np.dtype:
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        if info.min <= value <= info.max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)


def _constant_column(value: Any, n: int):
    """A column of ``n`` copies of ``value``: bool, smallest int, float64 or categorical."""
    if isinstance(value, (bool, np.bool_)):
        return np.full(n, bool(value), dtype=bool)
    if is_int(value):
        return np.full(n, value, dtype=_int_dtype(int(value)))
    if isinstance(value, (float, np.floating)):
        return np.full(n, value, dtype=np.float64)
    if value is None:
        return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), categories=[])
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[str(value)])


def build_frame(game: Game, outcomes: Mapping[str, np.ndarray], *, seed: int, players: int, policy: Any,
                option_columns: Mapping[str, Any], params: Mapping[str, Any] | None = None,
                first_game: int = 0) -> pd.DataFrame:
    """The outcome frame of a run from its concatenated outcome arrays (games first_game.., in order).
    A game of sides gets ``policy`` and ``params`` by side (``resolve_sides``): the ``policy`` label,
    ``policy_<side>`` and ``param_<side>_<name>`` columns (``sides.frame_columns``)."""
    n = len(outcomes[game.outcome_columns[0]])
    columns: dict[str, Any] = {
        "game": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[game.name]),
        "seed": np.full(n, seed, dtype=np.uint64),
        "game_index": np.arange(first_game, first_game + n, dtype=np.int64),
        "players": np.full(n, players, dtype=np.int8),
    }
    if game.sides:
        sided = frame_columns(game, policy, params or {}, n)
        parameters = {name: sided.pop(name) for name in list(sided) if name.startswith("param_")}
        columns.update(sided)
    else:
        columns["policy"] = pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[policy])
        parameters = {f"param_{name}": np.full(n, value, dtype=np.float64) for name, value in (params or {}).items()}
    for name, value in option_columns.items():
        columns[name] = _constant_column(value, n)
    columns.update(parameters)
    for name in game.outcome_columns:
        values = outcomes[name]
        if name in game.outcome_categories:
            # codes 0..n-1 name the categories; -1 is a missing value (NaN), anything else an error
            categories = list(game.outcome_categories[name])
            codes = np.asarray(values)
            if codes.size and (codes.min() < -1 or codes.max() >= len(categories)):
                raise RunError(f"{game.name} returned codes outside 0-{len(categories) - 1} "
                               f"in outcome column {name!r} (-1 marks a missing value)")
            values = pd.Categorical.from_codes(codes, categories=categories)
        columns[name] = values
    return pd.DataFrame(columns, copy=False)


def concat_frames(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Frames of several runs as one, keeping categorical columns categorical (union of categories);
    columns missing from some runs (e.g. overridden parameters) are NaN there."""
    if len(frames) == 1:
        return frames[0]
    frames = list(frames)
    names = {name for frame in frames for name in frame.columns
             if isinstance(frame[name].dtype, pd.CategoricalDtype)}
    for name in names:
        categories: list = []
        for frame in frames:
            if name in frame.columns:
                categories.extend(c for c in frame[name].cat.categories if c not in categories)
        for i, frame in enumerate(frames):
            if name in frame.columns:
                frames[i] = frame.assign(**{name: frame[name].cat.set_categories(categories)})
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------- chunk execution

def _play_chunk(game: Game, seed: int, start: int, stop: int, players: int, options: Any,
                policy: Any, param_vector: Any) -> tuple[int, int, dict[str, np.ndarray]]:
    """One kernel call for games start..stop-1 (runs in a worker); returns (start, stop, arrays).
    The game gets the PolicySpec (a game of sides: side -> PolicySpec), not the name: a user policy
    registered in the parent process travels to the worker inside the pickled game."""
    arrays = game.run_chunk(seed, start, stop - start, players, options, policy_specs(game, policy), param_vector)
    return start, stop, arrays


def _check_chunk(game: Game, start: int, stop: int, arrays: Mapping[str, Any]) -> dict[str, np.ndarray]:
    result = {}
    for name in game.outcome_columns:
        if name not in arrays:
            raise RunError(f"{game.name} returned no outcome column {name!r} for games {start}-{stop - 1}")
        values = np.asarray(arrays[name])
        if values.shape != (stop - start,):
            raise RunError(f"{game.name} returned {values.shape} values in column {name!r} "
                           f"for {stop - start} games")
        result[name] = values
    return result


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


# ---------------------------------------------------------------- checkpoints

def _json_value(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if is_int(value):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    return value if value is None or isinstance(value, str) else str(value)


def _options_dict(game: Game, options: Any, players: int) -> dict[str, Any]:
    if dataclasses.is_dataclass(options):
        return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    return dict(game.option_columns(options, players))


_first_difference = rundir.first_difference


def _adopt_run_dir(directory: str, entries: list[str]) -> bool:
    """Whether a directory without run.json holds only a run's own files (chunk files, games.parquet,
    summary.json), each Parquet file written by cursedsim: its run.json was removed (e.g. after it was
    damaged); the files are verified one by one before any is used."""
    import pyarrow.parquet as pq
    for name in entries:
        if not (_CHUNK_RE.match(name) or name in (FRAME_FILE, SUMMARY_FILE)):
            return False
        if name.endswith(".parquet"):
            try:
                if rundir.META_KEY not in (pq.read_schema(os.path.join(directory, name)).metadata or {}):
                    return False
            except Exception:
                return False
    return True
_dump_json = rundir.dump_json


def _chunk_path(out: str, start: int, stop: int) -> str:
    return os.path.join(out, f"chunk-{start}-{stop}.parquet")


def _chunk_identity(key: str, start: int, stop: int) -> dict[str, Any]:
    return {"run_key": key, "start": start, "stop": stop, "rows": stop - start}


def _verified_chunks(out: str, game: Game, n_games: int, key: str) -> Iterator[tuple[int, int, dict[str, np.ndarray]]]:
    """The chunk files under ``out`` that pass verification and fit this run, as non-overlapping ranges
    (greedy by start), one at a time; files that fail are removed and reported in one line."""
    ranges = []
    for name in os.listdir(out):
        match = _CHUNK_RE.match(name)
        if match:
            start, stop = int(match[1]), int(match[2])
            if 0 <= start < stop <= n_games:
                ranges.append((start, stop))
    failed = []
    position = 0
    for start, stop in sorted(ranges):
        if start < position:
            continue
        path = _chunk_path(out, start, stop)
        try:
            arrays = rundir.read_chunk(path, _chunk_identity(key, start, stop), tuple(game.outcome_columns))
            arrays = _check_chunk(game, start, stop, arrays)
        except (rundir.InvalidFile, CursedsimError) as error:
            failed.append(f"{os.path.basename(path)}: {error}")
            with contextlib.suppress(OSError):
                os.remove(path)
            continue
        position = stop
        yield start, stop, arrays
    if failed:
        more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
        warn(f"{len(failed)} chunk file(s) in {out} failed verification and are played again "
             f"({'; '.join(failed[:3])}{more})")


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


# ---------------------------------------------------------------- public API

@dataclasses.dataclass
class _Run:
    """One run's settings, resolved and checked (``policy``, ``param_vector`` and ``overrides`` by side
    for a game of sides)."""

    game: Game
    n_games: int
    seed: int
    players: int
    policy: Any
    param_vector: Any
    overrides: dict[str, Any]
    options: Any
    option_columns: dict[str, Any]
    workers: int
    backend: str
    chunk_size: int
    progress: bool | None
    dask_address: Any
    summary_only: bool
    first_game: int = 0

    def config(self) -> dict[str, Any]:
        from cursedsim.numba_cache import source_digest
        offset = {"first_game": self.first_game} if self.first_game else {}   # run keys of 0.. runs unchanged
        if self.game.run_identity is not None:   # e.g. the deck file's digest (games without one: keys unchanged)
            offset["identity"] = self.game.run_identity(self.options, self.players)
        return _json_value({**offset,
            "game": self.game.name, "n_games": self.n_games, "players": self.players, "policy": self.policy,
            "params": self.overrides, "options": _options_dict(self.game, self.options, self.players),
            "seed": self.seed, "chunk_size": self.chunk_size, "cursedsim_version": __version__,
            # finished chunks are only reused by the code that played them (this game's sources; a run of
            # kernel policies only: the sources its kernels compile, numba_cache.NOT_COMPILED left out)
            "code": source_digest(self.game.name, compiled_only=_kernel_only(self.game, self.policy))})

    def task(self, start: int, stop: int) -> tuple:
        """The chunk of this run's games start..stop-1 (positions in the run; game indices first_game +)."""
        first = self.first_game
        return (self.game, self.seed, first + start, first + stop, self.players, self.options, self.policy,
                self.param_vector)


def _kernel_only(game: Game, policy: Any) -> bool:
    """Whether every policy of a run is played by the game's kernel (none by the reference engine or the
    step API, whose sources a kernel run does not depend on)."""
    specs = policy_specs(game, policy)
    return all(spec.engine == "kernel" for spec in (specs.values() if game.sides else [specs]))


class _Frame:
    """Collects a run's outcome arrays into arrays of the whole run, allocated at the first chunk."""

    def __init__(self, run: _Run) -> None:
        self.run = run
        self.columns: dict[str, np.ndarray] = {}

    def add(self, start: int, stop: int, arrays: Mapping[str, np.ndarray]) -> None:
        for name in self.run.game.outcome_columns:
            values = arrays[name]
            if name not in self.columns:
                self.columns[name] = np.empty(self.run.n_games, dtype=values.dtype)
            target = self.columns[name]
            if values.dtype != target.dtype:
                raise RunError(f"{self.run.game.name} returned {values.dtype} values in column {name!r} for games "
                               f"{start}-{stop - 1}, {target.dtype} before")
            target[start:stop] = values

    def result(self) -> pd.DataFrame:
        run = self.run
        frame = build_frame(run.game, self.columns, seed=run.seed, players=run.players, policy=run.policy,
                            option_columns=run.option_columns, params=run.overrides, first_game=run.first_game)
        self.columns = {}
        return frame


def _new_summary(run: _Run):
    return RunSummary(game=run.game.name, seed=run.seed, players=run.players, policy=policy_label(run.policy),
                      option_columns=dict(run.option_columns), params=dict(run.overrides),
                      win_columns=win_columns(run.game),
                      outcome_columns=tuple(run.game.outcome_columns),
                      categories={k: tuple(v) for k, v in run.game.outcome_categories.items()},
                      measures=tuple(run.game.measures))


class _Summary:
    """Folds a run's chunks into a RunSummary as they arrive."""

    def __init__(self, run: _Run) -> None:
        self.summary = _new_summary(run)

    def add(self, start: int, stop: int, arrays: Mapping[str, np.ndarray]) -> None:
        self.summary.add(arrays)

    def result(self):
        return self.summary


def _execute(run: _Run, out: str | None) -> Any:
    """Play (or read back) every game of ``run``: the frame, or the RunSummary with ``summary_only``."""
    game = run.game
    sink = _Summary(run) if run.summary_only else _Frame(run)
    done: list[tuple[int, int]] = []
    key = None
    if out is not None:
        key = rundir.run_key(run.config(), _FREE_KEYS)
        final = os.path.join(out, SUMMARY_FILE if run.summary_only else FRAME_FILE)
        if os.path.isfile(final):
            identity = {"run_key": key, "rows": run.n_games}
            try:
                if run.summary_only:
                    return _new_summary(run).load(rundir.read_json_verified(final, identity))
                return rundir.read_frame(final, identity)
            except (rundir.InvalidFile, KeyError, TypeError, ValueError) as error:
                warn(f"{final} failed verification ({error}); rebuilt from the chunk files")
                with contextlib.suppress(OSError):
                    os.remove(final)
        for start, stop, arrays in _verified_chunks(out, game, run.n_games, key):
            sink.add(start, stop, arrays)
            done.append((start, stop))

    tasks = (run.task(start, stop) for start, stop in iter_chunks(run.n_games, run.chunk_size, done))
    finished = sum(stop - start for start, stop in done)
    verbose = _want_progress(run.progress, run.n_games)
    if finished < run.n_games and (run.progress is not False or (run.backend != "sequential" and run.workers > 1)):
        # compile (or load) the kernel here first: workers then load it from the cache instead of all
        # compiling it at once, and a long compile is reported (unless progress=False) rather than
        # hidden in the first chunk
        _warm_up(game, run.seed, run.players, run.options, run.policy, run.param_vector,
                 verbose=run.progress is not False)
    results = _run_tasks(tasks, run.backend, run.workers, run.dask_address)

    bar = None
    if verbose:
        bar, task_id = _progress_bar(run.n_games, f"{game.name} p={run.players} {policy_label(run.policy)}")
        bar.start()
        bar.advance(task_id, finished)
    try:
        for start, stop, arrays in results:
            start, stop = start - run.first_game, stop - run.first_game   # back to positions in the run
            arrays = _check_chunk(game, start, stop, arrays)
            if out is not None:
                rundir.write_chunk(_chunk_path(out, start, stop), arrays, _chunk_identity(key, start, stop))
            sink.add(start, stop, arrays)
            if bar is not None:
                bar.advance(task_id, stop - start)
    finally:
        if hasattr(results, "close"):
            results.close()
        if bar is not None:
            bar.stop()

    result = sink.result()
    if out is not None:
        identity = {"run_key": key, "rows": run.n_games}
        if run.summary_only:
            rundir.write_json_verified(os.path.join(out, SUMMARY_FILE), result.to_dict(), identity)
        else:
            rundir.write_frame(os.path.join(out, FRAME_FILE), result, identity)
    return result


def simulate(game: str | Game, n_games: int, *, players: int | None = None, policy: Any = None,
             options: Mapping[str, Any] | Any = None, params: Mapping[str, Any] | None = None,
             seed: int = 0, n_jobs: int = 1, backend: str = "loky", chunk_size: int | None = None,
             out: str | os.PathLike | None = None, progress: bool | None = None,
             dask_address: Any = None, summary_only: bool = False, first_game: int = 0) -> Any:
    """Play games ``first_game..first_game+n_games-1`` (default ``0..n_games-1``) of a seeded run; one
    row per game (see docs/architecture.md).

    players: player count (default: the game's ``default_players``). policy: a policy name (default:
    the game's default policy); params: overrides of its numeric parameters. A game of sides takes a
    policy per side, ``{"hunter": "tracker", "town": "coven"}`` or ``"hunter=tracker,town=coven"`` (a side
    left out plays its default), and ``params`` per side, ``{"town": {"risk": 0.3}}`` (``sides.py``;
    the frame then has ``policy_<side>`` and ``param_<side>_<name>`` columns). options: rule options as a
    dict (or the game's RuleOptions). n_jobs: worker processes (-1: all cores); 1 plays in-process.
    backend: "loky" (joblib's, default), "dask" (a LocalCluster of ``n_jobs`` worker processes, or the
    scheduler at ``dask_address``, which may also be a ``distributed.Client``) or "sequential".
    chunk_size: games per kernel call (default: ~0.2 s of work, at least 4 chunks per worker).
    out: a run directory, locked while the run writes there; finished chunks are checkpointed there
    (verified when read back) and a rerun resumes from them. progress: a progress bar on stderr (None:
    for runs of 200,000+ games on a terminal). summary_only: fold every chunk into a
    ``streaming.RunSummary`` as it arrives and return that instead of the frame; memory stays bounded
    (10^8 games in a few hundred MB), and ``RunSummary.summarize()`` equals ``stats.summarize`` of the
    frame. Without it a run whose frame would not fit in the memory available is refused up front.

    first_game: the index of the first game; runs of consecutive index ranges concatenate to the frame
    of one run over their union (how ``--precision`` adds games: the same indices for the same answer).

    The frame is identical for any n_jobs, chunk_size, backend, resume or retry.
    """
    game = resolve_game(game)
    n_games = check_n_games(n_games)
    seed = check_seed(seed)
    workers = check_n_jobs(n_jobs)
    backend = check_backend(backend)
    chunk_size = check_chunk_size(chunk_size)
    players = resolve_players(game, players)
    policy, param_vector, overrides = resolve_policy(game, policy, params)
    options = make_options(game, options)
    option_columns = game.option_columns(options, players)
    progress = check_progress(progress)
    summary_only = check_flag(summary_only, "summary_only")
    dask_address = check_dask_address(dask_address, backend)
    first_game = check_first_game(first_game, n_games)
    if out is not None:
        out = rundir.check_out(out)
    if chunk_size is None:
        chunk_size = default_chunk_size(n_games, 1 if backend == "sequential" else workers)
    if not summary_only:   # the probe plays game 0: on a cold cache, that compiles (and says so)
        def probe() -> Mapping[str, Any]:
            from cursedsim.compile_notice import compiling
            with compiling(game.name, policy_label(policy), enabled=progress is not False):
                return _play_chunk(game, seed, 0, 1, players, options, policy, param_vector)[2]
        check_memory(game, n_games, what=f"the frame of {game.name}", probe=probe)
    run = _Run(game, n_games, seed, players, policy, param_vector, overrides, options, dict(option_columns), workers,
               backend, chunk_size, progress, dask_address, summary_only, first_game)
    if out is None:
        return _execute(run, None)
    with rundir.owned_directory(out, marker=RUN_FILE, config=run.config(), kind="run", free=_FREE_KEYS,
                                adopt=_adopt_run_dir):
        return _execute(run, out)


def replay(game: str | Game, seed: int, index: int, *, players: int | None = None, policy: Any = None,
           options: Mapping[str, Any] | Any = None, params: Mapping[str, Any] | None = None,
           format: str = "text"):
    """Game ``index`` of a run with ``seed``: the game ``simulate`` played as the row with that
    ``game_index`` (same players, policy, params and options; a game of sides: a policy and params per
    side, as ``simulate`` takes them). ``format`` (``events.FORMATS``): "text"
    the readable turn log, "json" its events as JSON lines, "events" a list of dicts, "frame" a
    DataFrame with one row per event (docs/architecture.md#replay-events)."""
    format = events.check_format(format)
    game = resolve_game(game)
    seed = check_seed(seed)
    if not is_int(index) or not 0 <= index <= MAX_GAMES:
        raise RunError(f"the game index must be a non-negative integer below 2**63, got {shorten(index)}")
    players = resolve_players(game, players)
    policy, param_vector, _ = resolve_policy(game, policy, params)
    if game.sides:   # the game gets side -> PolicySpec, as run_chunk does
        policy = policy_specs(game, policy)
    options = make_options(game, options)
    if format == "text":
        return game.replay(seed, int(index), players, options, policy, param_vector)
    if game.replay_events is None:
        raise RunError(f"{game.name} replays as text only: format {format!r} needs its events")
    return events.convert(game.replay_events(seed, int(index), players, options, policy, param_vector), format)


__all__ = ["BACKENDS", "build_frame", "policy_specs", "resolve_policy", "resolve_sides", "check_memory", "concat_frames", "dask_client", "default_chunk_size",
           "iter_chunks", "make_options", "option_kinds", "plan_chunks", "replay", "simulate"]
