"""``cursedsim simulate``: a grid of player counts, rule options and policies, one summary row per cell
(and, for a game with a winning seat, the win rate of every seat); ``--out`` keeps resumable cells, the
combined games.parquet, summary.csv and seats.csv."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import click

from cursedsim.cli.app import command
from cursedsim.cli.grid import (GridArgs, RunArgs, cell_dir, check_run, grid_client, grid_dir, grid_options,
                                parse_grid, parse_params, parse_policies, run_options)
from cursedsim.cli.precision import PRECISION_OPTIONS, checked_precision
from cursedsim.cli.tables import print_table, rates_table, seat_table
from cursedsim.files import write_via
from cursedsim.sides import summary_args


@command("simulate")
@click.argument("game")
@grid_options(seals="Shorthand for --option seals=S (e.g. 0-6).",
              policy="A policy; repeat for one run per policy. A game of sides: SIDE=POLICY[:param=value,...] "
                     "per side (a side left out plays its default).", policy_metavar="[SIDE=]NAME",
              param="A policy parameter, for every chosen policy that has it (a game of sides: SIDE.NAME=VALUE). "
                    "Repeatable.")
@run_options(out="Directory: games.parquet + summary.csv, resumable runs under cells/ (rerun to resume).",
             extra=(click.option("--chunk-size", type=int, default=None,
                                 help="Games per kernel call (default: automatic)."),
                    click.option("--summary-only", is_flag=True,
                                 help="Keep only the summary of each cell (bounded memory, for huge runs); "
                                      "no games.parquet."),
                    *PRECISION_OPTIONS))
def simulate_command(game, chunk_size, summary_only, precision, max_games, grid: GridArgs, run: RunArgs):
    """Simulate GAME over a grid of player counts, rule options and policies; print a summary table."""
    from cursedsim import runner, stats
    from cursedsim.precision import cell_label, simulate_to_precision

    game_obj = runner.resolve_game(game)
    precision, max_games = checked_precision(precision, max_games)
    run = check_run(run)
    runner.check_chunk_size(chunk_size)
    cells_grid = parse_grid(game_obj, grid)
    plays = policy_runs(game_obj, grid)
    cells = cells_grid.cells(list(range(len(plays))))
    columns = []   # every cell's options built (so valid) before any game is played
    for _, p, options in cells:
        columns.append(game_obj.option_columns(runner.make_options(game_obj, options), p))
    if not summary_only and precision is None:   # one cell's frame in memory at a time (--precision: per batch)
        runner.check_memory(game_obj, run.n_games, what=f"a cell's frame of {game_obj.name}")

    option_names = list(columns[0])
    varying = [name for name in option_names
               if name in cells_grid.options or len({repr(c[name]) for c in columns}) > 1]
    param_columns = list(dict.fromkeys(f"param_{name}" for play in plays for name in play.param_columns))
    keys = list(plays[0].keys) + ["players"] + varying + param_columns
    rows, heads, runs, seat_rows = [], [], [], []
    config = {"kind": "simulate", "game": game_obj.name, "n_games": run.n_games, "seed": run.seed}
    if precision is not None:   # a directory of a fixed --games run refuses it, and the other way round
        config.update(n_games=None, precision=precision)
    with grid_dir(run.out, "simulate.json", config, "simulate") as directory, \
            grid_client(run, len(cells)) as address:
        for (k, p, options), option_columns in zip(cells, columns):
            play = plays[k]
            settings = dict(players=p, policy=play.policy, options=options, params=play.params, seed=run.seed,
                            n_jobs=run.n_jobs, backend=run.backend, chunk_size=chunk_size, dask_address=address,
                            out=None if directory is None else cell_dir(directory, play.folder, p, options,
                                                                        play.param_columns))
            if precision is None:
                result = runner.simulate(game_obj, run.n_games, progress=run.progress, summary_only=summary_only,
                                         **settings)
                batches = [(0, run.n_games)]
            else:
                label = cell_label(game_obj.name, p, play.label, {**options, **play.param_columns})
                to_precision = simulate_to_precision(game_obj, precision, max_games=max_games, label=label,
                                                     progress=run.progress, summary_only=summary_only, **settings)
                result, batches = to_precision.result, [(b.start, b.stop) for b in to_precision.batches]
            args = summary_args(game_obj)
            if summary_only:
                row = result.summarize(game_obj.measures, **args).to_dict("records")[0]
            else:
                row = stats.summarize(result, measures=game_obj.measures, **args).to_dict("records")[0]
                heads.append(result.head(1))
                runs.append((settings, batches))
            values = {**play.keys, "players": p, **option_columns,
                      **{name: play.param_columns.get(name[len("param_"):], math.nan) for name in param_columns}}
            if game_obj.seat_column is not None:
                for seat_row in cell_seat_rates(game_obj, result, p, summary_only).to_dict("records"):
                    seat_rows.append({**{key: values[key] for key in keys}, **seat_row})
            del result
            rows.append({**{key: values[key] for key in keys}, **row})
        summary = grid_summary(rows, keys)
        title = None if precision is None else f"{game_obj.name}: each cell to ±{100 * precision:g} points (95%)"
        print_table(rates_table(game_obj, summary.to_dict("records"), keys, title=title))
        if seat_rows:
            seats = grid_summary(seat_rows, keys + ["seat"])
            print_table(seat_table(seats.to_dict("records"), keys))
            if directory is not None:
                write_via(os.path.join(directory, "seats.csv"), lambda tmp: seats.to_csv(tmp, index=False))
        if directory is not None:
            if not summary_only:   # read back batch by batch (a cell played to precision is one run per batch)
                frames = (runner.simulate(game_obj, stop - start, progress=False, first_game=start,
                                          **{**settings, "out": batch_out(settings["out"], precision, start, stop)})
                          for settings, batches in runs for start, stop in batches)
                written = write_grid_frame(os.path.join(directory, "games.parquet"), heads, frames)
            write_via(os.path.join(directory, "summary.csv"), lambda tmp: summary.to_csv(tmp, index=False))
            if summary_only:
                click.echo(f"wrote {os.path.join(directory, 'summary.csv')}", err=True)
            else:
                click.echo(f"wrote {written:,} games to {os.path.join(directory, 'games.parquet')}", err=True)


def cell_seat_rates(game, result, players: int, summary_only: bool):
    """The win rate of every seat of one cell (``stats.seat_rates``), from its frame or its summary."""
    from cursedsim import stats
    if summary_only:
        counts, n = result.histogram(game.seat_column), result.n
    else:
        counts, n = result[game.seat_column].value_counts(), len(result)
    return stats.seat_rates({int(seat): int(games) for seat, games in counts.items()}, n, players)


@dataclass(frozen=True)
class PolicyRun:
    """One policy setting of the grid: ``policy`` and ``params`` as ``simulate`` takes them, the table's
    key cells (``policy``, or one column per side), the parameter columns (a single-side game's
    ``--param``), its ``label`` in messages and the ``folder`` name part of its cell directory."""

    policy: Any
    params: Any
    keys: dict[str, str]
    param_columns: dict[str, float]
    label: str
    folder: str


def policy_runs(game, grid: GridArgs) -> list[PolicyRun]:
    """Every policy setting of ``--policy``/``--param``: one per policy, or (a game of sides) one per
    combination of the sides' policies, each side a key column."""
    if not game.sides:
        policies = parse_policies(game, grid.policies)
        params = parse_params(game, policies, grid.param_texts)
        return [PolicyRun(policy, params[policy] or None, {"policy": policy}, params[policy], policy, policy)
                for policy in policies]
    from cursedsim.cli.sides import parse_sides
    from cursedsim.sides import policy_label
    parsed = parse_sides(game, grid.policies, grid.param_texts, vary=False)
    return [PolicyRun(policy, params or None, labels, {}, policy_label(labels),
                      "+".join(f"{side}-{label}" for side, label in labels.items()))
            for policy, params, labels in parsed.runs()]


def batch_out(out: str, precision: float | None, start: int, stop: int) -> str:
    """The run directory of games start..stop-1 of a cell: the cell's own, or its batch's with --precision."""
    from cursedsim.precision import batch_dir
    return out if precision is None else batch_dir(out, start, stop)


def grid_summary(rows: list[dict[str, Any]], keys: list[str]):
    """The per-cell summary rows as ``stats.summarize(frame, keys)`` of the concatenated frames orders
    them: categorical keys (policies, string options) in order of first appearance, numbers ascending,
    missing values last."""
    import pandas as pd
    summary = pd.DataFrame(rows)
    order = {}
    for key in keys:
        values = summary[key].tolist()
        if all(v is None or isinstance(v, (bool, int, float)) for v in values) and key != "policy":
            order[key] = summary[key].astype(float)
        else:
            first = list(dict.fromkeys(v for v in values if v is not None))
            order[key] = summary[key].map(lambda v: first.index(v) if v is not None else math.nan)
    ranks = pd.DataFrame(order)
    index = ranks.sort_values(keys, kind="stable", na_position="last").index
    return summary.loc[index].reset_index(drop=True)


def write_grid_frame(path: str, heads: list, frames) -> int:
    """The frames of every cell (an iterable: one in memory at a time) as one Parquet file, equal to
    ``runner.concat_frames`` of them all: the columns and dtypes come from the cells' first rows
    (``heads``), every frame is conformed to them. Returns the games written."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cursedsim.runner import concat_frames
    template = concat_frames([head.reset_index(drop=True) for head in heads]).iloc[:0]
    schema = pa.Schema.from_pandas(template, preserve_index=False)
    written = 0

    def write(tmp: str) -> None:
        nonlocal written
        with pq.ParquetWriter(tmp, schema) as writer:
            for frame in frames:
                n = len(frame)
                columns = {}
                for name in template.columns:
                    dtype = template[name].dtype
                    if name in frame.columns:
                        columns[name] = frame[name] if frame[name].dtype == dtype else frame[name].astype(dtype)
                    elif isinstance(dtype, pd.CategoricalDtype):
                        columns[name] = pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), dtype=dtype)
                    elif dtype.kind == "f":
                        columns[name] = np.full(n, np.nan, dtype=dtype)
                    else:
                        columns[name] = pd.Series([None] * n, dtype=dtype)
                table = pa.Table.from_pandas(pd.DataFrame(columns), schema=schema, preserve_index=False)
                writer.write_table(table)
                written += n
                del columns, table, frame

    write_via(path, write)
    return written
