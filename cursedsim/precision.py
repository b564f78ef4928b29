"""Play until an interval is narrow enough (``--precision``) instead of a fixed number of games.

A run to precision plays batches of consecutive games ``0..n1-1``, ``n1..n2-1``, ... of one seeded run
(``simulate(..., first_game=)``), and after each batch asks whether the 95% half-width of the estimate
(a win rate's Wilson interval; for ``compare`` every paired difference's t interval) is at most the
target. The batch totals ``n1 < n2 < ...`` lie on a fixed grid (the R10 preferred numbers 1, 1.25, 1.6,
2, 2.5, 3.15, 4, 5, 6.3, 8 times a power of ten) and are chosen from the results alone, never from
timing, so the same precision plays the same game indices whatever the jobs, chunk size or backend:

- first batch: ``PILOT_GAMES`` (10,000), or fewer when even a win rate of 50% (the widest Wilson
  interval) needs fewer: then the first batch is also the last;
- next total: the games the estimate so far says are needed (``wilson_games`` at the observed rate),
  rounded up to the grid, and at least the next grid value; never more than ``max_games``.

Stopping when the interval is narrow enough is a data-dependent stopping rule, so the reported interval
covers slightly less than 95%: see docs/architecture.md ("Precision instead of game counts") for the
coverage, computed exactly, and tests/test_precision.py.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cursedsim import research, resolve, rundir, runner
from cursedsim.errors import RunError, shorten, warn
from cursedsim.sides import policy_label
from cursedsim.stats import wilson_interval

#: The normal quantile of a two-sided 95% interval (what ``stats.wilson_interval`` uses).
Z95 = 1.959963984540054
#: The first batch (unless even a 50% win rate needs fewer games).
PILOT_GAMES = 10_000
#: The default limit of games per cell.
MAX_GAMES = 10 ** 8
#: No batch plan starts below this many games.
MIN_GAMES = 100
#: The R10 preferred numbers (ISO 3), in hundredths: batch totals are these times a power of ten.
R10 = (100, 125, 160, 200, 250, 315, 400, 500, 630, 800)
#: Every batch total a run may stop at, ascending (integers; 1, 2, 2, 3, ... below 100).
GRID = np.array(sorted({-(-r * 10 ** k // 100) for k in range(19) for r in R10}), dtype=np.int64)
#: The marker of a precision directory (one run to precision: a run directory per batch).
PRECISION_FILE = "precision.json"


# ---------------------------------------------------------------- settings

def check_precision(precision: Any) -> float:
    """``precision`` (a 95% half-width as a fraction: 0.001 is 0.1 percentage points) as a float, or a
    RunError unless it is a number in (0, 0.5]."""
    if not resolve.is_number(precision) or not 0 < float(precision) <= 0.5:
        raise RunError(f"precision must be a number above 0 and at most 0.5 (the 95% half-width as a fraction: "
                       f"0.001 is 0.1 percentage points), got {shorten(precision)}")
    return float(precision)


def check_max_games(max_games: Any, what: str = "max_games") -> int:
    """``max_games`` as an int, or a RunError unless it is a positive integer."""
    if not resolve.is_int(max_games) or not 1 <= max_games <= runner.MAX_GAMES:
        raise RunError(f"{what} must be a positive integer (the most games a cell may play), got {shorten(max_games)}")
    return int(max_games)


def check_games_or_precision(n_games: Any, precision: Any, max_games: Any, games_of: str,
                             precision_of: str) -> tuple[int | None, float | None, int]:
    """(n_games, precision, max_games) checked, or a RunError unless exactly one of ``n_games`` (the
    games ``games_of``) and ``precision`` (the half-width ``precision_of``) is given."""
    if (n_games is None) == (precision is None):
        raise RunError(f"give either n_games (games {games_of}) or precision (the 95% half-width {precision_of}), "
                       f"not {'both' if precision is not None else 'neither'}")
    if precision is None:
        return runner.check_n_games(n_games), None, max_games
    return None, check_precision(precision), check_max_games(max_games)


# ---------------------------------------------------------------- the schedule

def grid_games(games: Any) -> Any:
    """The smallest grid total at or above ``games`` (vectorised)."""
    index = np.searchsorted(GRID, np.ceil(np.asarray(games, dtype=np.float64)), side="left")
    result = GRID[np.minimum(index, len(GRID) - 1)]
    return int(result) if result.ndim == 0 else result


def wilson_half_width(wins: Any, games: Any) -> Any:
    """Half the width of the Wilson 95% interval of ``wins`` out of ``games`` (vectorised)."""
    low, high = wilson_interval(wins, games)
    return (np.asarray(high) - np.asarray(low)) / 2 if np.ndim(low) else (high - low) / 2


def wilson_games(rate: Any, half_width: float) -> Any:
    """The games at which the Wilson 95% interval of a win rate ``rate`` has half-width ``half_width``
    (vectorised; the larger root of ``h^2 (n + z^2)^2 = z^2 (n p (1-p) + z^2 / 4)``). At ``rate`` 0.5 it
    is the most any rate needs: ``z^2 / (4 h^2) - z^2``."""
    z2, h2 = Z95 * Z95, half_width * half_width
    pq = np.asarray(rate, dtype=np.float64) * (1 - np.asarray(rate, dtype=np.float64))
    b = 2 * h2 * z2 - z2 * pq
    c = h2 * z2 * z2 - z2 * z2 / 4
    return np.maximum((-b + np.sqrt(b * b - 4 * h2 * c)) / (2 * h2), 0.0)


def paired_games(sd: Any, half_width: float) -> Any:
    """The pairs at which a paired difference whose per-game differences have standard deviation ``sd``
    has a 95% half-width ``half_width`` (normal approximation; at most ``(z / h)^2``: sd is at most 1
    for differences of wins)."""
    return (Z95 * np.asarray(sd, dtype=np.float64) / half_width) ** 2


def first_total(precision: float, max_games: int, worst_games: float, pilot: int | None = None) -> int:
    """The games of the first batch: ``pilot`` (default PILOT_GAMES), or the grid total that suffices
    even in the worst case (``worst_games``) when that is smaller; at most ``max_games``."""
    pilot = PILOT_GAMES if pilot is None else pilot
    return int(min(max_games, pilot, grid_games(max(worst_games, MIN_GAMES))))


def next_total(games: Any, needed: Any, max_games: int) -> Any:
    """The games after the next batch, when ``games`` were played and the estimate says ``needed`` are
    enough: ``needed`` rounded up to the grid, at least the next grid total, at most ``max_games``
    (vectorised)."""
    after = GRID[np.searchsorted(GRID, np.asarray(games), side="right")]
    total = np.minimum(np.maximum(after, grid_games(needed)), max_games)
    return int(total) if total.ndim == 0 else total


def decide(half_width: Any, needed: Any, games: int, precision: float, max_games: int) -> Any:
    """The stopping rule: 0 (stop) when the half-width is at most ``precision`` or ``max_games`` games
    are played, else the games after the next batch (``next_total``). Vectorised over ``half_width``
    and ``needed``."""
    needed = np.asarray(needed, dtype=np.float64)
    total = next_total(np.full(needed.shape, games), needed, max_games)
    total = np.where((np.asarray(half_width) <= precision) | (games >= max_games), 0, total)
    return int(total) if total.ndim == 0 else total


def win_rate_step(wins: Any, games: int, precision: float, max_games: int) -> tuple[Any, Any]:
    """(half-width, ``decide``) of a win rate after ``wins`` out of ``games``, vectorised over ``wins``:
    the whole stopping rule of ``simulate_to_precision``."""
    half = wilson_half_width(wins, games)
    return half, decide(half, wilson_games(np.asarray(wins) / games, precision), games, precision, max_games)


# ---------------------------------------------------------------- playing batches

@dataclass(frozen=True)
class Batch:
    """Games ``start..stop-1`` of a run to precision and the 95% half-width reached after them."""

    start: int
    stop: int
    half_width: float


def play_batches(play: Callable[[int, int], tuple[float, float]], precision: float, max_games: int, first: int,
                 label: str, on_batch: Callable[[Batch, int], None] | None = None) -> list[Batch]:
    """Play batches until the half-width is at most ``precision`` or ``max_games`` are played (a warning
    then names ``label``). ``play(start, stop)`` plays games start..stop-1 and returns (half-width, games
    needed) of everything played so far; ``on_batch(batch, next_stop)`` is told of every batch before
    the next one is played."""
    batches: list[Batch] = []
    start, stop = 0, first
    while True:
        half, needed = play(start, stop)
        batches.append(Batch(start, stop, float(half)))
        following = decide(half, needed, stop, precision, max_games)
        if not following:
            break
        start, stop = stop, following
        if on_batch is not None:
            on_batch(batches[-1], stop)
    if half > precision:
        warn(f"{label} stopped at the limit of {max_games:,} games with a 95% half-width of {100 * half:.3g} "
             f"points, above the precision of {100 * precision:.3g} points; raise max_games (--max-games)")
    return batches


@dataclass
class PrecisionRun:
    """A run to precision: ``result`` (the frame of games 0..n_games-1, or their ``RunSummary`` with
    ``summary_only``), the ``precision`` asked for and the ``batches`` played."""

    result: Any
    precision: float
    max_games: int
    batches: list[Batch]

    @property
    def n_games(self) -> int:
        """The games it took."""
        return self.batches[-1].stop

    @property
    def half_width(self) -> float:
        """The 95% half-width reached."""
        return self.batches[-1].half_width

    @property
    def reached(self) -> bool:
        """Whether the half-width is at most the precision (False: stopped at max_games)."""
        return self.half_width <= self.precision


def status_printer(label: str, precision: float, progress: bool | None) -> Callable[[Batch, int], None]:
    """An ``on_batch`` that prints one line before every batch that gets a progress bar: the half-width
    so far against the target and the games the batch adds."""
    def on_batch(batch: Batch, stop: int) -> None:
        if runner._want_progress(progress, stop - batch.stop):
            print(f"cursedsim: {label}: ±{100 * batch.half_width:.3g} points after {batch.stop:,} games "
                  f"(target ±{100 * precision:.3g}): playing {stop - batch.stop:,} more", file=sys.stderr, flush=True)
    return on_batch


def cell_label(game: str, players: int, policy: str, values: dict[str, Any] | None = None) -> str:
    """A run in one line of a message, as the runner's progress bar names it, then its settings:
    ``verflucht p=3 smart seals=4 slack=2``."""
    from cursedsim.describe import value_text
    return " ".join([game, f"p={players}", policy, *(f"{k}={value_text(v)}" for k, v in (values or {}).items())])


def batch_dir(out: str | None, start: int, stop: int) -> str | None:
    """The run directory of one batch under a precision directory."""
    return None if out is None else os.path.join(out, f"batch-{start}-{stop}")


def precision_directory(out: Any, config: dict[str, Any]):
    """The locked precision directory ``out`` (marked by precision.json; the batches' run.json files
    guard the run's identity), or a null context without one."""
    if out is None:
        return contextlib.nullcontext(None)
    from cursedsim.version import __version__
    return rundir.owned_directory(out, marker=PRECISION_FILE, config={**config, "cursedsim_version": __version__},
                                  kind="precision", same=("game", "seed"))


def simulate_to_precision(game: Any, precision: float, *, players: int | None = None, policy: str | None = None,
                          options: Any = None, params: Any = None, seed: int = 0, n_jobs: int = 1,
                          backend: str = "loky", chunk_size: int | None = None, out: Any = None,
                          progress: bool | None = None, dask_address: Any = None, summary_only: bool = False,
                          max_games: int = MAX_GAMES, pilot: int | None = None, label: str | None = None,
                          on_batch: Callable[[Batch, int], None] | None = None, side: str | None = None
                          ) -> PrecisionRun:
    """``simulate`` until the win rate's 95% Wilson half-width is at most ``precision`` (a fraction:
    0.001 is ±0.1 percentage points) or ``max_games`` games are played (then with a warning).

    Plays games 0..n-1 of the seeded run in batches (see the module docstring for the schedule); the
    result's frame (or RunSummary) is exactly ``simulate(game, n, ...)``'s, and the same precision
    takes the same games whatever ``n_jobs``, ``chunk_size`` or ``backend``. ``out``: a directory
    holding one resumable run directory per batch (``batch-<start>-<stop>``), so a rerun reuses finished
    batches. ``pilot``: the first batch (default 10,000 games). ``label`` names the run in messages;
    ``on_batch(batch, next_stop)`` is called before each batch after the first (default: a status line
    on stderr when the batch gets a progress bar). The other arguments are ``simulate``'s. A game of
    sides: the interval is that of ``side``'s win rate (default: the first side's).
    """
    game = runner.resolve_game(game)
    precision = check_precision(precision)
    max_games = check_max_games(max_games)
    if pilot is not None:
        pilot = check_max_games(pilot, "pilot")
    execution = research.check_execution(seed, n_jobs, backend, chunk_size, progress, dask_address)
    seed, backend, progress, dask_address = (execution.seed, execution.backend, execution.progress,
                                             execution.dask_address)
    summary_only = runner.check_flag(summary_only, "summary_only")
    players = runner.resolve_players(game, players)
    policy, _, overrides = runner.resolve_policy(game, policy, params)
    win = game.win_column(side if side is not None or not game.sides else game.sides[0].name)
    options = runner.make_options(game, options)
    label = label or cell_label(game.name, players, policy_label(policy))
    on_batch = status_printer(label, precision, progress) if on_batch is None else on_batch
    first = first_total(precision, max_games, wilson_games(0.5, precision), pilot)

    parts: list[Any] = []
    totals = {"wins": 0, "games": 0}

    def play(start: int, stop: int) -> tuple[float, float]:
        if not summary_only:
            runner.check_memory(game, stop, what=f"the frame of {label} after {stop:,} games (use summary_only)")
        result = runner.simulate(game, stop - start, players=players, policy=policy, options=options,
                                 params=overrides or None, seed=seed, n_jobs=n_jobs, backend=backend,
                                 chunk_size=chunk_size, out=batch_dir(directory, start, stop), progress=progress,
                                 dask_address=dask_address, summary_only=summary_only, first_game=start)
        totals["wins"] += result.wins_in(win) if summary_only else int(result[win].sum())
        totals["games"] = stop
        parts.append(result)
        return wilson_half_width(totals["wins"], stop), wilson_games(totals["wins"] / stop, precision)

    config = {"game": game.name, "seed": seed, "players": players, "policy": policy,
              "precision": precision, "max_games": max_games}
    with precision_directory(out, config) as directory:
        batches = play_batches(play, precision, max_games, first, label, on_batch)
    return PrecisionRun(join_results(parts), precision, max_games, batches)


def join_results(parts: list[Any]) -> Any:
    """The frames (or RunSummaries) of consecutive batches as one."""
    if not isinstance(parts[0], pd.DataFrame):
        summary = parts[0]
        for part in parts[1:]:
            summary.merge(part)
        return summary
    return runner.concat_frames(parts)


__all__ = ["Batch", "GRID", "MAX_GAMES", "PILOT_GAMES", "PrecisionRun", "cell_label", "check_games_or_precision",
           "check_max_games", "check_precision", "decide", "first_total", "grid_games", "next_total", "paired_games",
           "play_batches", "simulate_to_precision", "wilson_games", "wilson_half_width", "win_rate_step"]
