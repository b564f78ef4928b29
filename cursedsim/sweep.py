"""Sweep a grid of player counts, policies, rule options and policy parameters: one ``simulate`` per
cell, all on the same seed (common random numbers across cells: cell A's game ``i`` and cell B's game
``i`` start from the same random streams), summarised as one tidy row per cell.

With ``out``, every cell is a resumable ``simulate`` run directory under ``out/cells/`` and the table is
written atomically to ``out/sweep.csv``; running the same sweep again resumes it (finished cells are
read back, unfinished ones continue from their last chunk). With ``precision`` instead of ``n_games``
every cell plays batches until its win rate's 95% half-width is that narrow (``precision.py``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cursedsim import precision as precise
from cursedsim import research, runner
from cursedsim.errors import CursedsimError, OptionError, UnknownPolicyError, shorten
from cursedsim.files import write_via
from cursedsim.contenders import check_policy
from cursedsim.games import Game
from cursedsim.sides import Varying, resolve_varying, summary_args
from cursedsim.stats import summarize

#: A sweep has at most this many cells.
MAX_CELLS = 10_000
SWEEP_FILE = "sweep.json"
TABLE_FILE = "sweep.csv"
CELLS_DIR = "cells"


@dataclass(frozen=True)
class Cell:
    """One point of the grid: a policy with its parameter overrides, a player count and rule options."""

    policy: str
    players: int
    options: Mapping[str, Any]
    params: Mapping[str, float]


# ---------------------------------------------------------------- grid expansion

def as_values(value: Any) -> list:
    """``value`` as a list of values: lists, tuples and ranges (and other non-string iterables) give
    their items, anything else (a scalar, a string, None) is one value. Duplicates are dropped."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        values = [value]
    else:
        values = list(itertools.islice(value, MAX_CELLS + 1))
        if len(values) > MAX_CELLS:
            raise CursedsimError(f"a list of more than {MAX_CELLS:,} values is too long to sweep")
    if not values:
        raise CursedsimError("an empty list of values leaves nothing to sweep")
    unique: list = []
    for v in values:   # dict.fromkeys would merge True with 1
        if not any(v is u or (type(v) is type(u) and v == u) for u in unique):
            unique.append(v)
    return unique


def _number(value: Any, what: str) -> float:
    return runner.check_finite(value, what, UnknownPolicyError)


def expand_grid(game: Game, *, players: Any = None, policies: Any = None, options: Mapping[str, Any] | None = None,
                params: Mapping[str, Mapping[str, Any]] | None = None, side: str | None = None) -> list[Cell]:
    """The cells of a sweep, in order policy, players, options (in the given order), parameters;
    everything validated (every cell's options built) before anything is played. In a game of sides the
    policies and parameters are those of ``side``."""
    player_list = ([runner.resolve_players(game, None)] if players is None
                   else [game.check_players(p) for p in as_values(players)])
    policy_list = [game.default_policy_of(side)] if policies is None else as_values(policies)
    for policy in policy_list:
        check_policy(game, policy, None, side)
    options = {} if options is None else options
    if not isinstance(options, Mapping):
        raise OptionError(f"options must map option names to values or lists of values, got {shorten(options)}")
    option_grid = {name: as_values(values) for name, values in options.items()}
    runner.make_options(game, {name: values[0] for name, values in option_grid.items()})   # names checked
    params = {} if params is None else params
    if not isinstance(params, Mapping):
        raise UnknownPolicyError(f"params must map policy names to {{parameter: values}}, got {shorten(params)}")
    param_grid: dict[str, dict[str, list[float]]] = {}
    for policy, grid in params.items():
        if policy not in policy_list:
            raise UnknownPolicyError(f"params are given for policy {shorten(policy)}, which is not swept; swept "
                                     f"policies: {', '.join(policy_list)}")
        if not isinstance(grid, Mapping):
            raise UnknownPolicyError(f"params of policy {policy!r} must map parameter names to values, got "
                                     f"{shorten(grid)}")
        param_grid[policy] = {}
        for name, values in grid.items():
            param_grid[policy][name] = list(dict.fromkeys(
                _number(v, f"parameter {shorten(name)} of policy {policy!r}") for v in as_values(values)))
        check_policy(game, policy, {name: values[0] for name, values in param_grid[policy].items()}, side)

    size = sum(len(player_list) * math.prod(len(v) for v in option_grid.values())
               * math.prod(len(v) for v in param_grid.get(policy, {}).values()) for policy in policy_list)
    if size > MAX_CELLS:
        raise CursedsimError(f"the grid has {size:,} cells; at most {MAX_CELLS:,} are allowed")

    cells = []
    names = list(option_grid)
    for policy in policy_list:
        grid = param_grid.get(policy, {})
        param_names = list(grid)
        for p in player_list:
            for option_values in itertools.product(*(option_grid[name] for name in names)):
                cell_options = dict(zip(names, option_values))
                runner.make_options(game, cell_options)   # every cell's options are valid before any game is played
                for param_values in itertools.product(*(grid[name] for name in param_names)):
                    cells.append(Cell(policy, p, cell_options, dict(zip(param_names, param_values))))
    return cells


# ---------------------------------------------------------------- one row per cell

def _number_text(value: Any) -> str:
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return str(value)


def cell_dir_name(cell: Cell) -> str:
    """A readable directory name for a cell (``smart_p3_seals-4_slack-2``); a short digest of the cell
    is appended when a value holds characters other than letters, digits and ``.+-`` (so two cells never
    share a directory)."""
    def clean(text: str, extra: str = "") -> str:
        return re.sub(rf"[^A-Za-z0-9.+{extra}-]", "", text)

    pairs = [(str(name), _number_text(value)) for name, value in [*cell.options.items(), *cell.params.items()]]
    parts = [clean(cell.policy, "_"), f"p{cell.players}"] + [f"{clean(k, '_')}-{clean(v)}" for k, v in pairs]
    name = "_".join(parts)
    if clean(cell.policy, "_") != cell.policy or any(clean(k, "_") != k or clean(v) != v for k, v in pairs):
        digest = hashlib.sha256(json.dumps([cell.policy, cell.players, list(cell.options.items()),
                                            list(cell.params.items())], default=str).encode()).hexdigest()
        name = f"{name}_{digest[:8]}"
    return name


def summarize_cell(game: Game, frame: Any, side: str | None = None) -> dict[str, Any]:
    """n, wins, win_rate, ci_low, ci_high and the game's measures (``stats.summarize`` with
    ``game.measures``: ``mean_<column>``, over won games where the measure says so, and ``<column>_se``
    where it shows one; mean_score and score_se over won games, mean_turns, for a game with such columns),
    then ``mean_<column>`` (over all games) for every other numeric outcome column but codes
    (``game.code_columns`` and ``game.seat_column``: a mean seat or bit mask means nothing) and
    ``<column>_<category>`` (the share of games) for every category of every categorical outcome column.
    ``frame`` is a run's frame or its ``streaming.RunSummary`` (the same numbers). A game of sides: wins
    and win_rate are ``side``'s (default the first side's), and every side has ``<side>_wins``,
    ``<side>_win_rate``, ``<side>_ci_low`` and ``<side>_ci_high`` (its win column gets no mean)."""
    from cursedsim.streaming import RunSummary
    streamed = isinstance(frame, RunSummary)
    args = summary_args(game, side)
    row = (frame.summarize(game.measures, **args) if streamed
           else summarize(frame, measures=game.measures, **args)).iloc[0].to_dict()
    row["n"] = int(row["n"])
    row["wins"] = int(row["wins"])
    for name in args.get("sides", {}):
        row[f"{name}_wins"] = int(row[f"{name}_wins"])
    n = row["n"]
    skipped = {"win", *args.get("sides", {}).values(), *game.code_columns, game.seat_column}
    for name in game.outcome_columns:
        if name in skipped or f"mean_{name}" in row:
            continue
        if name in game.outcome_categories:
            counts = frame.histogram(name) if streamed else frame[name].value_counts(sort=False)
            for category in game.outcome_categories[name]:
                row[f"{name}_{category}"] = float(counts.get(category, 0)) / n
        elif streamed:
            if frame.columns[name].kind != "category":
                row[f"mean_{name}"] = float(frame.mean(name))
        elif pd.api.types.is_numeric_dtype(frame[name]) or pd.api.types.is_bool_dtype(frame[name]):
            row[f"mean_{name}"] = float(frame[name].to_numpy(dtype=np.float64).mean())
    return row


def _cell_row(game: Game, cell: Cell, frame: pd.DataFrame, seed: int, param_names: list[str],
              varying: Varying) -> dict[str, Any]:
    row: dict[str, Any] = {"game": game.name, "seed": seed, "policy": cell.policy, "players": cell.players}
    if varying.side is not None:   # which side varies, and what every side played
        row["side"] = varying.side
        row.update({f"policy_{name}": policy for name, policy in varying.policy(cell.policy).items()})
        row.update({f"param_{name}_{key}": value for name, values in varying.fixed_params.items()
                    for key, value in values.items()})
    row.update(game.option_columns(runner.make_options(game, dict(cell.options)), cell.players))
    spec = game.policy(cell.policy, varying.side)
    for name in param_names:   # the value the cell played: swept, else the policy's default; NaN if it has none
        row[f"param_{name}"] = cell.params.get(name, spec.params.get(name, math.nan))
    row.update(summarize_cell(game, frame, varying.side))
    return row


# ---------------------------------------------------------------- the sweep

def sweep(game: str | Game, *, players: Any = None, policies: Any = None, options: Mapping[str, Any] | None = None,
          params: Mapping[str, Mapping[str, Any]] | None = None, n_games: int | None = None, seed: int = 0,
          n_jobs: int = 1, backend: str = "loky", chunk_size: int | None = None,
          out: str | os.PathLike | None = None, progress: bool | None = None, dask_address: Any = None,
          summary_only: bool = False, precision: float | None = None,
          max_games: int = precise.MAX_GAMES, side: str | None = None, others: Any = None) -> pd.DataFrame:
    """Simulate every cell of a grid and return one row per cell.

    players: a player count or a list of them (default: the game's). policies: a policy name or a list
    (default: the game's default policy). options: ``{option: value or [values]}``. params:
    ``{policy: {parameter: value or [values]}}`` (the policy must be among ``policies``). Scalars are
    allowed wherever lists are. Every cell plays games 0..n_games-1 of ``seed``: the same random streams
    in every cell (common random numbers), so differences between cells are differences of the cells,
    not of luck.

    The frame has, per cell: game, seed, policy, players, every option column of the game (resolved,
    e.g. ``seals`` for ``None``), ``param_<name>`` for every swept parameter (the value the cell played;
    the policy's default where another policy's parameter is swept; NaN where the policy has no such
    parameter), n, wins, win_rate, ci_low, ci_high (Wilson 95%), the game's measures (``mean_<column>``
    and ``<column>_se`` as ``game.measures`` declare them: mean_score and score_se over won games and
    mean_turns for Verflucht!, mean_souls, souls_se, mean_rounds and mean_damage_taken for Cursed!?),
    ``mean_<column>`` for the other numeric outcomes and ``<column>_<category>`` shares for categorical
    ones (e.g. ``end_win``, ``end_group``).

    out: a directory (marked by sweep.json, locked while in use): one resumable ``simulate`` run per cell
    under ``out/cells/``, the table in ``out/sweep.csv`` (written atomically at the end); rerunning
    resumes. n_jobs, backend, chunk_size and dask_address are passed to every ``simulate``;
    ``backend="dask"`` starts one local cluster for the whole sweep. summary_only: every cell streams
    (``simulate(summary_only=True)``: bounded memory, no games.parquet per cell; the same table).
    progress: one bar over all cells (None: for sweeps of 200,000+ games on a terminal).

    precision: instead of ``n_games``, play every cell until its win rate's 95% Wilson half-width is at
    most this (a fraction: 0.001 is ±0.1 points), in batches on a fixed schedule
    (``precision.simulate_to_precision``), or until ``max_games`` (then with a warning); ``n`` is the
    games the cell took and the column ``precision_reached`` says whether it got there. The cells still
    share their random streams game by game; with ``out`` a rerun reuses finished batches.

    A game of sides: ``policies`` and ``params`` are those of ``side`` (None: the one side ``others`` leaves
    out), and ``others`` the other sides' policies, the same in every cell (as ``compare`` takes them).
    Each row then also has ``side``, ``policy_<side>`` for every side, ``param_<side>_<name>`` for the
    other sides' parameters, and every side's ``<side>_wins``, ``<side>_win_rate``, ``<side>_ci_low``,
    ``<side>_ci_high``; ``wins`` and ``win_rate`` are the varied side's.
    """
    game = runner.resolve_game(game)
    n_games, precision, max_games = precise.check_games_or_precision(n_games, precision, max_games, "per cell",
                                                                     "each cell plays to")
    execution = research.check_execution(seed, n_jobs, backend, chunk_size, progress, dask_address)
    seed, progress = execution.seed, execution.progress
    summary_only = runner.check_flag(summary_only, "summary_only")
    varying = resolve_varying(game, side, others)
    cells = expand_grid(game, players=players, policies=policies, options=options, params=params, side=varying.side)
    param_names = list(dict.fromkeys(name for cell in cells for name in cell.params))
    out = research.check_out(out)
    if not summary_only and precision is None:   # one cell's frame at a time (checked per batch with precision)
        runner.check_memory(game, n_games, what=f"a cell's frame of {game.name}")

    # with precision the total is unknown: the bar counts games without an end
    worst = None if precision is None else precise.grid_games(precise.wilson_games(0.5, precision))
    cell_games = n_games if precision is None else min(max_games, worst)
    total = cell_games * len(cells)
    first = cells[0]

    def warm_up() -> None:
        policy, vector, _ = runner.resolve_policy(game, varying.policy(first.policy), varying.params(first.params))
        runner._warm_up(game, seed, first.players, runner.make_options(game, dict(first.options)), policy, vector,
                        verbose=True)

    from cursedsim.version import __version__
    to_precision = {} if precision is None else {"precision": precision, "max_games": max_games}
    directory = research.directory(
        out, marker=SWEEP_FILE, config={"game": game.name, "n_games": n_games, "seed": seed, **to_precision,
                                        **runner._json_value(varying.settings()), "cursedsim_version": __version__},
        kind="sweep", same=("game", "n_games", "seed", "precision", "side", "fixed", "fixed_params"))
    cluster = research.cluster(execution, shared=len(cells) > 1)   # one cluster for the whole sweep
    rows = []
    with directory, cluster as client, research.progress(progress, total, f"sweep {game.name}: {len(cells)} cells",
                                                         counted=precision is None, warm_up=warm_up) as bar:
        for k, cell in enumerate(cells):
            name = f"sweep {game.name} {k + 1}/{len(cells)}: {cell.policy} p={cell.players}"
            bar.describe(name)
            settings = dict(players=cell.players, policy=varying.policy(cell.policy), options=dict(cell.options),
                            params=varying.params(cell.params), seed=seed, n_jobs=n_jobs,
                            backend=execution.backend,
                            chunk_size=chunk_size, progress=False, dask_address=client, summary_only=summary_only,
                            out=None if out is None else os.path.join(out, CELLS_DIR, cell_dir_name(cell)))
            if precision is None:
                result = runner.simulate(game, n_games, **settings)
                played = n_games
            else:
                run = precise.simulate_to_precision(
                    game, precision, max_games=max_games, side=varying.side,
                    label=precise.cell_label(game.name, cell.players, cell.policy, {**cell.options, **cell.params}),
                    on_batch=_bar_status(bar, name, precision) if bar.shown else None, **settings)
                result, played = run.result, run.batches[-1].stop - run.batches[-1].start
            rows.append(_cell_row(game, cell, result, seed, param_names, varying))
            if precision is not None:
                rows[-1]["precision_reached"] = run.reached
            del result
            bar.advance(played)
        table = pd.DataFrame(rows)
        if out is not None:
            write_via(os.path.join(out, TABLE_FILE), lambda tmp: table.to_csv(tmp, index=False))
    return table


def _bar_status(bar: research.Progress, name: str, precision: float):
    """An ``on_batch`` for a cell: the bar counts the batch's games and names the half-width so far
    against the target."""
    def on_batch(batch: precise.Batch, stop: int) -> None:
        bar.advance(batch.stop - batch.start)
        bar.describe(f"{name}: ±{100 * batch.half_width:.3g} pts (target {100 * precision:.3g}) "
                     f"after {batch.stop:,} games")
    return on_batch


__all__ = ["Cell", "cell_dir_name", "expand_grid", "summarize_cell", "sweep"]
