"""The runner: cut a run into chunks of game indices, play them (in-process, joblib/loky or Dask), and
assemble one pandas frame with one row per game; optionally checkpoint every chunk under ``out`` and
resume from there.

Game ``i`` of a run draws only from the random streams keyed by ``(seed, i)`` (see ``rng.py``), and
chunks are assembled in index order, so the frame does not depend on ``n_jobs``, ``chunk_size`` or
``backend``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.errors import CursedsimError, RunError, UnknownGameError, UnknownPolicyError
from cursedsim.files import write_via
from cursedsim.games import Game, get_game, list_games

BACKENDS = ("loky", "dask", "sequential")
#: Upper bound of the default chunk: ~0.2 s of kernel time at ~500k games/s.
MAX_DEFAULT_CHUNK = 100_000
#: Lower bound of the default chunk (unless the run is smaller): below it, dispatch costs dominate.
MIN_DEFAULT_CHUNK = 1_000
#: Runs at least this long get a progress bar by default (when stderr is a terminal).
PROGRESS_MIN_GAMES = 200_000
RUN_FILE = "run.json"
FRAME_FILE = "games.parquet"
_CHUNK_RE = re.compile(r"^chunk-(\d+)-(\d+)\.parquet$")
#: Keys of run.json that do not change the games played, so a resume may differ in them.
_FREE_KEYS = ("chunk_size",)


# ---------------------------------------------------------------- validation

def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def resolve_game(game: str | Game) -> Game:
    """A Game from a registered name (or a Game passed through)."""
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        return get_game(game)
    raise UnknownGameError(f"game must be a game name; valid games: {', '.join(list_games())}")


def check_n_games(n_games: Any) -> int:
    """``n_games`` as an int, or a RunError unless it is a positive integer."""
    if not _is_int(n_games) or n_games < 1:
        raise RunError(f"the number of games must be a positive integer, got {n_games!r}")
    return int(n_games)


def check_seed(seed: Any) -> int:
    """``seed`` as an int, or a RunError unless it is an integer in 0..2**64-1."""
    if not _is_int(seed) or not 0 <= seed < 2 ** 64:
        raise RunError(f"seed must be an integer in 0..2**64-1, got {seed!r}")
    return int(seed)


def check_n_jobs(n_jobs: Any) -> int:
    """The number of workers ``n_jobs`` stands for (-1: every core), or a RunError."""
    if not _is_int(n_jobs) or not (n_jobs >= 1 or n_jobs == -1):
        raise RunError(f"n_jobs must be a positive integer or -1 (all cores), got {n_jobs!r}")
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def check_chunk_size(chunk_size: Any) -> int | None:
    """``chunk_size`` (None: choose one), or a RunError unless it is a positive integer."""
    if chunk_size is None:
        return None
    if not _is_int(chunk_size) or chunk_size < 1:
        raise RunError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    return int(chunk_size)


def check_backend(backend: Any) -> str:
    """``backend``, or a RunError naming the valid backends."""
    if backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r}; valid backends: {', '.join(BACKENDS)}")
    return backend


def resolve_players(game: Game, players: Any) -> int:
    """The player count of a run: ``players``, or the game's default when None."""
    if players is None:
        players = game.default_players if game.default_players is not None else game.min_players
    return game.check_players(players)


def resolve_policy(game: Game, policy: Any, params: Mapping[str, Any] | None):
    """(policy name, parameter vector, overridden parameters as floats) of a run."""
    name = game.default_policy if policy is None else policy
    if not isinstance(name, str):
        raise UnknownPolicyError(
            f"policy must be a policy name, got {policy!r}; valid policies: {', '.join(game.policies)}")
    spec = game.policy(name)
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise UnknownPolicyError(f"params must be a mapping of parameter names to numbers, got {params!r}")
    overrides = {}
    for key, value in params.items():
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise UnknownPolicyError(f"parameter {key!r} of policy {name!r} must be a number, got {value!r}")
        overrides[key] = float(value)
    vector = spec.param_vector(overrides)   # raises on unknown names, listing the valid ones
    return name, vector, overrides


def default_chunk_size(n_games: int, workers: int) -> int:
    """~0.2 s of kernel work per chunk, but at least 4 chunks per worker, never below 1,000 games."""
    size = min(MAX_DEFAULT_CHUNK, math.ceil(n_games / (4 * workers)))
    return min(max(size, MIN_DEFAULT_CHUNK), n_games)


def plan_chunks(n_games: int, chunk_size: int, done: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The (start, stop) ranges still to play: the gaps of [0, n_games) between ``done`` ranges,
    each cut into pieces of at most ``chunk_size`` games."""
    todo = []
    position = 0
    for start, stop in sorted(done) + [(n_games, n_games)]:
        while position < start:
            end = min(position + chunk_size, start)
            todo.append((position, end))
            position = end
        position = max(position, stop)
    return todo


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
    if _is_int(value):
        return np.full(n, value, dtype=_int_dtype(int(value)))
    if isinstance(value, (float, np.floating)):
        return np.full(n, value, dtype=np.float64)
    if value is None:
        return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), categories=[])
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[str(value)])


def build_frame(game: Game, outcomes: Mapping[str, np.ndarray], *, seed: int, players: int, policy: str,
                option_columns: Mapping[str, Any], params: Mapping[str, float] | None = None) -> pd.DataFrame:
    """The outcome frame of a run from its concatenated outcome arrays (games 0..n-1, in order)."""
    n = len(outcomes[game.outcome_columns[0]])
    columns: dict[str, Any] = {
        "game": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[game.name]),
        "seed": np.full(n, seed, dtype=np.uint64),
        "game_index": np.arange(n, dtype=np.int64),
        "players": np.full(n, players, dtype=np.int8),
        "policy": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[policy]),
    }
    for name, value in option_columns.items():
        columns[name] = _constant_column(value, n)
    for name, value in (params or {}).items():
        columns[f"param_{name}"] = np.full(n, value, dtype=np.float64)
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
                policy: str, param_vector: np.ndarray) -> tuple[int, int, dict[str, np.ndarray]]:
    """One kernel call for games start..stop-1 (runs in a worker); returns (start, stop, arrays).
    The game gets the PolicySpec, not the name: a user policy registered in the parent process
    travels to the worker inside the pickled game."""
    arrays = game.run_chunk(seed, start, stop - start, players, options, game.policy(policy), param_vector)
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


def _sequential(tasks: list[tuple]) -> Iterator[tuple]:
    for task in tasks:
        yield _play_chunk(*task)


def _loky(tasks: list[tuple], workers: int) -> Iterator[tuple]:
    from joblib import Parallel, delayed   # joblib's reusable loky executor keeps workers warm
    parallel = Parallel(n_jobs=workers, backend="loky", return_as="generator_unordered")
    yield from parallel(delayed(_play_chunk)(*task) for task in tasks)


def _dask(tasks: list[tuple], workers: int, address: Any) -> Iterator[tuple]:
    import logging

    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if isinstance(address, Client):
        client, own_client = address, False
    elif address:
        client, own_client = Client(address), True
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client, own_client = Client(cluster), True
    try:
        futures = [client.submit(_play_chunk, *task, pure=False) for task in tasks]
        for future in as_completed(futures):
            result = future.result()
            future.release()
            yield result
    finally:
        if own_client:
            client.close()
        if cluster is not None:
            cluster.close()


# ---------------------------------------------------------------- checkpoints

def _json_value(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if _is_int(value):
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


def _first_difference(old: Any, new: Any, prefix: str = "") -> str | None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            found = _first_difference(old.get(key), new.get(key), f"{prefix}{key}.")
            if found:
                return found
        return None
    if old != new:
        return f"{prefix[:-1]} is {old!r} there but {new!r} now"
    return None


def _open_run_dir(out: str, config: dict) -> None:
    """Create ``out`` with run.json, or check that the run.json there describes the same run."""
    path = os.path.join(out, RUN_FILE)
    if os.path.isfile(path):
        with open(path) as f:
            old = json.load(f)
        new = {k: v for k, v in config.items() if k not in _FREE_KEYS}
        diff = _first_difference({k: v for k, v in old.items() if k not in _FREE_KEYS}, new)
        if diff:
            raise RunError(f"{out} holds a different run ({diff}); use another output directory")
        return
    if os.path.isdir(out) and os.listdir(out):
        raise RunError(f"{out} is not empty and holds no {RUN_FILE}: not a cursedsim run directory")
    os.makedirs(out, exist_ok=True)
    write_via(path, lambda tmp: _dump_json(config, tmp))


def _dump_json(data: dict, path: str) -> None:
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def _chunk_path(out: str, start: int, stop: int) -> str:
    return os.path.join(out, f"chunk-{start}-{stop}.parquet")


def _write_chunk(out: str, start: int, stop: int, arrays: Mapping[str, np.ndarray]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pa.table({name: values for name, values in arrays.items()})
    write_via(_chunk_path(out, start, stop), lambda tmp: pq.write_table(table, tmp))


def _finished_chunks(out: str, game: Game, n_games: int) -> dict[tuple[int, int], dict[str, np.ndarray]]:
    """Readable chunk files under ``out`` that fit this run, as non-overlapping ranges (greedy by start)."""
    import pyarrow.parquet as pq
    ranges = []
    for name in os.listdir(out):
        match = _CHUNK_RE.match(name)
        if match:
            start, stop = int(match[1]), int(match[2])
            if 0 <= start < stop <= n_games:
                ranges.append((start, stop))
    found = {}
    position = 0
    for start, stop in sorted(ranges):
        if start < position:
            continue
        try:
            table = pq.read_table(_chunk_path(out, start, stop))
            arrays = _check_chunk(game, start, stop, {name: table.column(name).to_numpy()
                                                      for name in table.column_names})
        except (OSError, CursedsimError, ValueError):
            continue   # unreadable or from another version of the game: play it again
        found[(start, stop)] = arrays
        position = stop
    return found


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


def _warm_up(game: Game, seed: int, players: int, options: Any, policy: str, param_vector: np.ndarray,
             verbose: bool) -> float:
    """Play one game in this process so the compiled kernel is in numba's cache; returns seconds
    (a first run compiles: tens of seconds; later ones load the cache: well under one)."""
    t0 = time.perf_counter()
    _play_chunk(game, seed, 0, 1, players, options, policy, param_vector)
    seconds = time.perf_counter() - t0
    if verbose and seconds > 1.0:
        print(f"cursedsim: compiled the {game.name} kernel for policy {policy} in {seconds:.1f} s",
              file=sys.stderr)
    return seconds


# ---------------------------------------------------------------- public API

def simulate(game: str | Game, n_games: int, *, players: int | None = None, policy: str | None = None,
             options: Mapping[str, Any] | Any = None, params: Mapping[str, float] | None = None,
             seed: int = 0, n_jobs: int = 1, backend: str = "loky", chunk_size: int | None = None,
             out: str | os.PathLike | None = None, progress: bool | None = None,
             dask_address: Any = None) -> pd.DataFrame:
    """Play games ``0..n_games-1`` of a seeded run; one row per game (see docs/architecture.md).

    players: player count (default: the game's ``default_players``). policy: a policy name (default:
    the game's default policy); params: overrides of its numeric parameters. options: rule options as a
    dict (or the game's RuleOptions). n_jobs: worker processes (-1: all cores); 1 plays in-process.
    backend: "loky" (joblib, default), "dask" (a LocalCluster of ``n_jobs`` worker processes, or the
    scheduler at ``dask_address``, which may also be a ``distributed.Client``) or "sequential".
    chunk_size: games per kernel call (default: ~0.2 s of work, at least 4 chunks per worker).
    out: a run directory; finished chunks are checkpointed there and a rerun resumes from them.
    progress: a progress bar on stderr (None: for runs of 200,000+ games on a terminal).

    The frame is identical for any n_jobs, chunk_size and backend.
    """
    game = resolve_game(game)
    n_games = check_n_games(n_games)
    seed = check_seed(seed)
    workers = check_n_jobs(n_jobs)
    backend = check_backend(backend)
    chunk_size = check_chunk_size(chunk_size)
    players = resolve_players(game, players)
    policy, param_vector, overrides = resolve_policy(game, policy, params)
    options = game.make_options(options)
    option_columns = game.option_columns(options, players)
    if chunk_size is None:
        chunk_size = default_chunk_size(n_games, 1 if backend == "sequential" else workers)

    done: dict[tuple[int, int], dict[str, np.ndarray]] = {}
    if out is not None:
        out = os.fspath(out)
        from cursedsim import __version__
        from cursedsim.numba_cache import source_digest
        config = _json_value({
            "game": game.name, "n_games": n_games, "players": players, "policy": policy,
            "params": overrides, "options": _options_dict(game, options, players), "seed": seed,
            "chunk_size": chunk_size, "cursedsim_version": __version__,
            # finished chunks are only reused by the code that played them (this game's sources)
            "code": source_digest(game.name)})
        _open_run_dir(out, config)
        frame_path = os.path.join(out, FRAME_FILE)
        if os.path.isfile(frame_path):
            frame = pd.read_parquet(frame_path)
            if len(frame) == n_games:
                return frame
        done = _finished_chunks(out, game, n_games)

    todo = plan_chunks(n_games, chunk_size, done)
    tasks = [(game, seed, start, stop, players, options, policy, param_vector) for start, stop in todo]
    verbose = _want_progress(progress, n_games)
    if tasks and (progress is not False or (backend != "sequential" and workers > 1)):
        # compile (or load) the kernel here first: workers then load it from the cache instead of all
        # compiling it at once, and a long compile is reported (unless progress=False) rather than
        # hidden in the first chunk
        _warm_up(game, seed, players, options, policy, param_vector, verbose=progress is not False)
    if not tasks:
        results: Iterator[tuple] = iter(())
    elif backend == "sequential" or (backend == "loky" and (workers == 1 or len(tasks) == 1)):
        results = _sequential(tasks)
    elif backend == "loky":
        results = _loky(tasks, workers)
    else:
        results = _dask(tasks, workers, dask_address)

    bar = None
    if verbose:
        bar, task_id = _progress_bar(n_games, f"{game.name} p={players} {policy}")
        bar.start()
        bar.advance(task_id, sum(stop - start for start, stop in done))
    try:
        for start, stop, arrays in results:
            arrays = _check_chunk(game, start, stop, arrays)
            if out is not None:
                _write_chunk(out, start, stop, arrays)
            done[(start, stop)] = arrays
            if bar is not None:
                bar.advance(task_id, stop - start)
    finally:
        if hasattr(results, "close"):
            results.close()
        if bar is not None:
            bar.stop()

    order = sorted(done)
    if len(order) == 1:
        outcomes = done[order[0]]
    else:
        outcomes = {name: np.concatenate([done[key][name] for key in order]) for name in game.outcome_columns}
    frame = build_frame(game, outcomes, seed=seed, players=players, policy=policy,
                        option_columns=option_columns, params=overrides)
    if out is not None:
        write_via(os.path.join(out, FRAME_FILE), lambda tmp: frame.to_parquet(tmp, index=False))
    return frame


def replay(game: str | Game, seed: int, index: int, *, players: int | None = None, policy: str | None = None,
           options: Mapping[str, Any] | Any = None, params: Mapping[str, float] | None = None) -> str:
    """The readable turn log of game ``index`` of a run with ``seed``: the game ``simulate`` played as
    the row with that ``game_index`` (same players, policy, params and options)."""
    game = resolve_game(game)
    seed = check_seed(seed)
    if not _is_int(index) or index < 0:
        raise RunError(f"the game index must be a non-negative integer, got {index!r}")
    players = resolve_players(game, players)
    policy, param_vector, _ = resolve_policy(game, policy, params)
    options = game.make_options(options)
    return game.replay(seed, int(index), players, options, policy, param_vector)


__all__ = ["BACKENDS", "build_frame", "concat_frames", "default_chunk_size", "plan_chunks", "replay",
           "simulate"]
