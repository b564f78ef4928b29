"""``cursedsim compare``: policies on the same games (common random numbers), one comparison per
players x options cell: paired differences with 95% intervals next to the unpaired ones."""

from __future__ import annotations

import os

import click

from cursedsim.cli.app import command
from cursedsim.cli.grid import (CliError, GridArgs, RunArgs, cell_dir, check_run, grid_client, grid_dir,
                                grid_options, parse_grid, run_options)
from cursedsim.cli.tables import diff_cell, p_value_cell, pp, print_table, rates_table
from cursedsim.files import write_via


@command("compare")
@click.argument("game")
@grid_options(policy="A policy to compare, e.g. baseline or smart:slack=3,multi_items=1. Repeat (two or more).",
              policy_metavar="POLICY", param=None,
              option="A rule option; ranges and lists give one comparison per value. Repeatable.")
@run_options(games="Games per policy.", out="Directory: pairs.csv + policies.csv, resumable runs under cells/.",
             extra=(click.option("--detect", type=float, default=1.0, show_default=True, metavar="PP",
                                 help="Difference in percentage points for the 'games to detect' column "
                                      "(80% power, 5% level)."),))
def compare_command(game, detect, grid: GridArgs, run: RunArgs):
    """Compare policies of GAME on the same games (common random numbers): paired differences of win rate
    with 95% intervals, next to the unpaired intervals the same games would give."""
    import pandas as pd

    from cursedsim import runner
    from cursedsim.compare import compare, contenders

    game_obj = runner.resolve_game(game)
    if run.n_games < 2:
        runner.check_n_games(run.n_games)
        raise CliError(f"compare needs at least 2 games (paired intervals), got {run.n_games}")
    run = check_run(run)
    policies = list(grid.policies)
    if len(policies) < 2:
        raise CliError(f"compare needs two or more --policy options; valid policies: {', '.join(game_obj.policies)}")
    contenders(game_obj, policies)   # names, parameters and distinct labels, before any game
    if not 0 < detect < 100:
        raise CliError(f"--detect takes a difference in percentage points between 0 and 100, got {detect:g}")
    cells_grid = parse_grid(game_obj, grid)
    cells = [(p, options) for _, p, options in cells_grid.cells()]
    for p, options in cells:
        runner.make_options(game_obj, options)
    runner.check_memory(game_obj, run.n_games, copies=len(policies),
                        what=f"the frames of {len(policies)} policies")

    keys = (["players"] if len(cells_grid.players) > 1 else []) + cells_grid.varying
    pair_frames, policy_frames = [], []
    config = {"kind": "compare grid", "game": game_obj.name, "n_games": run.n_games, "seed": run.seed}
    with grid_dir(run.out, "compare.json", config, "compare") as directory, \
            grid_client(run, len(cells) * len(policies)) as address:
        for p, options in cells:
            cell_out = None if directory is None else cell_dir(directory, "compare", p, options, {})
            result = compare(game_obj, policies, run.n_games, players=p, options=options, seed=run.seed,
                             n_jobs=run.n_jobs, backend=run.backend, out=cell_out, progress=run.progress,
                             detect=detect / 100, dask_address=address)
            columns = {"players": p, **game_obj.option_columns(runner.make_options(game_obj, options), p)}
            pair_frames.append(result.pairs.assign(**columns))
            policy_frames.append(result.policies.assign(**columns))
            del result
        pairs = pd.concat(pair_frames, ignore_index=True)
        summary = pd.concat(policy_frames, ignore_index=True)
        print_table(pairs_table(game_obj, pairs, keys, run.n_games, run.seed, detect))
        print_table(rates_table(game_obj, summary.to_dict("records"), keys + ["policy"]))
        if directory is not None:
            write_via(os.path.join(directory, "pairs.csv"), lambda tmp: pairs.to_csv(tmp, index=False))
            write_via(os.path.join(directory, "policies.csv"), lambda tmp: summary.to_csv(tmp, index=False))
            click.echo(f"wrote {os.path.join(directory, 'pairs.csv')} and policies.csv", err=True)


def pairs_table(game_obj, pairs, keys: list[str], n_games: int, seed: int, detect: float):
    """One row per pair: A - B in points [95% CI], its half-width, the unpaired interval, the p-value and
    the games needed to detect ``detect`` points (paired / unpaired)."""
    from rich.table import Table

    table = Table(*keys, "A", "B", "A − B, pp [95% CI]", "±", "unpaired 95% CI", "p-value",
                  f"games to detect {detect:g} pp (paired / unpaired)",
                  title=f"{game_obj.name}: paired differences on {n_games:,} common games (seed {seed})")
    for column in table.columns[len(keys) + 2:]:
        column.justify = "right"
    for row in pairs.to_dict("records"):
        half = (row["ci_high"] - row["ci_low"]) / 2
        table.add_row(*[str(row[k]) for k in keys], row["a"], row["b"], diff_cell(row, 3), pp(half, 3),
                      f"[{pp(row['unpaired_ci_low'], 3, True)}, {pp(row['unpaired_ci_high'], 3, True)}]",
                      p_value_cell(row["p_value"]),
                      f"{row['games_to_detect']:,} / {row['games_to_detect_unpaired']:,}")
    return table
