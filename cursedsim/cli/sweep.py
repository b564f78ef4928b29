"""``cursedsim sweep``: player counts x policies x rule options x policy parameters on one seed, one
row per cell (``--out DIR/sweep.csv``; a rerun resumes)."""

from __future__ import annotations

import os

import click

from cursedsim.cli.app import command
from cursedsim.cli.grid import (CliError, GridArgs, RunArgs, check_run, grid_options, parse_grid, parse_policies,
                                parse_sweep_params, run_options)
from cursedsim.cli.precision import PRECISION_OPTIONS, checked_precision
from cursedsim.cli.sides import parse_sides, side_option, sweep_params
from cursedsim.cli.tables import print_table, rates_table


@command("sweep")
@click.argument("game")
@grid_options(seals="Shorthand for --option seals=S (e.g. 0-8).", param_metavar="[POLICY.|SIDE.]NAME=VALUES",
              param="Policy parameter values, e.g. smart.slack=1,2,3 or slack=0-4 (every chosen policy having it). "
                    "A game of sides: the varied side's (SIDE.NAME or POLICY.NAME); another side's takes one value.",
              policy="A policy; repeat for several. A game of sides: SIDE=POLICY[:param=value,...]; the side given "
                     "several (or --side) varies, the others stay fixed.", policy_metavar="[SIDE=]NAME")
@side_option()
@run_options(seed="The same seed for every cell.", out="Directory: sweep.csv, resumable runs under cells/ "
                                                       "(rerun to resume).",
             extra=(click.option("--summary-only", is_flag=True,
                                 help="Stream every cell (bounded memory, for huge cells); the cells keep no "
                                      "games.parquet."), *PRECISION_OPTIONS))
def sweep_command(game, side, summary_only, precision, max_games, grid: GridArgs, run: RunArgs):
    """Sweep GAME over player counts, policies, rule options and policy parameters on common random
    numbers; one table row (and one sweep.csv row) per cell."""
    from cursedsim import runner
    from cursedsim.sweep import sweep

    game_obj = runner.resolve_game(game)
    precision, max_games = checked_precision(precision, max_games)
    run = check_run(run)
    cells_grid = parse_grid(game_obj, grid, default_players=False)
    sided = {}
    if game_obj.sides:
        parsed = parse_sides(game_obj, grid.policies, (), side or _param_side(game_obj, grid.param_texts))
        if parsed.varied is None:   # only options vary: the first side's win rate
            parsed = parse_sides(game_obj, grid.policies, (), game_obj.sides[0].name)
        params = sweep_params(game_obj, parsed, grid.param_texts)
        policies = list(dict.fromkeys(c.policy for c in parsed.chosen[parsed.varied]))
        sided = dict(side=parsed.varied, others=parsed.others())
    else:
        if side is not None:
            raise CliError(f"{game_obj.name} has no sides: leave out --side")
        policies = parse_policies(game_obj, grid.policies)
        params = parse_sweep_params(game_obj, policies, grid.param_texts)
    table_frame = sweep(game_obj, players=cells_grid.players or None, policies=policies, options=cells_grid.options,
                        params=params, n_games=run.n_games if precision is None else None, seed=run.seed,
                        n_jobs=run.n_jobs, backend=run.backend, out=run.out, progress=run.progress,
                        dask_address=run.scheduler, summary_only=summary_only, precision=precision, max_games=max_games,
                        **sided)

    option_names = list(game_obj.option_columns(game_obj.make_options(None), game_obj.min_players))
    varying = [name for name in option_names
               if name in cells_grid.options or table_frame[name].nunique(dropna=False) > 1]
    param_columns = [c for c in table_frame.columns if c.startswith("param_") and
                     not any(c.startswith(f"param_{other}_") for other in sided.get("others", {}))]
    keys = ["policy", "players"] + varying + param_columns
    rows = table_frame.to_dict("records")
    if sided:   # the policy column names the varied side
        keys[0] = f"{sided['side']} policy"
        rows = [{**row, keys[0]: row["policy"]} for row in rows]
    fixed = "" if not sided else f"; {sided['side']} varies, fixed: {parsed.fixed_text()}"
    print_table(rates_table(game_obj, rows, keys,
                            title=f"{game_obj.name} sweep: {len(table_frame)} cells, seed {run.seed}{fixed}"
                                  + ("" if precision is None else f", each to ±{100 * precision:g} points (95%)")))
    if run.out is not None:
        click.echo(f"wrote {os.path.join(run.out, 'sweep.csv')}", err=True)


def _param_side(game, texts: tuple[str, ...]) -> str | None:
    """The side a sweep varies when no side has several policies and no --side is given: the one side
    whose parameter is given several values (``--param town.risk=0.1,0.3``), if exactly one."""
    from cursedsim.cli.grid import parse_number_values, split_pair
    sides = []
    for text in texts:
        key, value = split_pair(text, "--param")
        owner = key.rpartition(".")[0]
        several = len(parse_number_values(value, f"parameter {key!r}")) > 1
        if owner in game.side_names and several and owner not in sides:
            sides.append(owner)
    return sides[0] if len(sides) == 1 else None
