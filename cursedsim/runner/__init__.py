"""The runner: cut a run into chunks of game indices, play them (in-process, joblib/loky or Dask), and
assemble one pandas frame with one row per game (or, with ``summary_only``, fold every chunk into a
``streaming.RunSummary`` as it arrives); optionally checkpoint every chunk under ``out`` and resume from
there.

Game ``i`` of a run draws only from the random streams keyed by ``(seed, i)`` (see ``rng.py``), and
chunks are assembled in index order, so the frame does not depend on ``n_jobs``, ``chunk_size``,
``backend``, resumes or retries.

One module per job, this one ties them together (``simulate``, ``replay``):

- ``plan``: the settings checked, the chunks of a run, the memory its frame needs;
- ``execute``: the chunks played in-process, on loky workers or on Dask, with retries when a worker dies
  (see its docstring), the warm-up compile and the progress bar;
- ``collect``: the chunks' outcome arrays checked and gathered into the frame or the streaming summary;
- ``write``: the run directory (``run.json``, chunk checkpoints, the finished frame), locked, and every
  file in it verified before it is read (``rundir.py``).

What a run is given (game, players, policies, parameters, options) is resolved in ``cursedsim.resolve``,
below the runner; its names stay importable from here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from cursedsim import events, rundir
from cursedsim.errors import RunError, shorten, warn
from cursedsim.games import Game
from cursedsim.resolve import (check_finite, is_int, make_options, option_kinds, policy_label,  # noqa: F401
                               policy_specs, resolve_game, resolve_players, resolve_policy, resolve_sides)
from cursedsim.runner.collect import (_check_chunk, _Frame, _new_summary, _Summary, build_frame,  # noqa: F401
                                      concat_frames)
from cursedsim.runner.execute import (DASK_TIMEOUT, WORKER_RETRIES, _play_chunk, _progress_bar,  # noqa: F401
                                      _run_tasks, _sequential, _want_progress, _warm_up, dask_client)
from cursedsim.runner.plan import (BACKENDS, MAX_CHUNK_SIZE, MAX_DEFAULT_CHUNK, MAX_GAMES, MAX_JOBS,  # noqa: F401
                                   MIN_DEFAULT_CHUNK, PROGRESS_MIN_GAMES, available_memory, check_backend,
                                   check_chunk_size, check_dask_address, check_first_game, check_flag,
                                   check_memory, check_n_games, check_n_jobs, check_progress, check_seed,
                                   default_chunk_size, frame_bytes, iter_chunks, plan_chunks)
from cursedsim.runner.write import (_CHUNK_RE, _FREE_KEYS, FRAME_FILE, RUN_FILE, SUMMARY_FILE,  # noqa: F401
                                    _adopt_run_dir, _chunk_identity, _chunk_path, _json_value, _options_dict,
                                    _verified_chunks)
from cursedsim.version import __version__


# ---------------------------------------------------------------- a run

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
