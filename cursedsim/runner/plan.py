"""The runner's plan: the settings of a run checked one by one (each error names the valid choices), the
chunks its games are cut into, and whether its frame fits in memory before anything is played."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from cursedsim.errors import RunError, shorten
from cursedsim.games import Game
from cursedsim.resolve import is_int, policy_specs, resolve_policy

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


# ---------------------------------------------------------------- chunks

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


__all__ = ["BACKENDS", "MAX_CHUNK_SIZE", "MAX_DEFAULT_CHUNK", "MAX_GAMES", "MAX_JOBS", "MIN_DEFAULT_CHUNK",
           "PROGRESS_MIN_GAMES", "available_memory", "check_backend", "check_chunk_size", "check_dask_address",
           "check_first_game", "check_flag", "check_memory", "check_n_games", "check_n_jobs", "check_progress",
           "check_seed", "default_chunk_size", "frame_bytes", "iter_chunks", "plan_chunks"]
