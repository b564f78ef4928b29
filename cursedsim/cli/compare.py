"""``cursedsim compare``: policies and rule option values on the same games (common random numbers),
each contender's paired difference from the reference per player count, with p-values Holm-adjusted
over every comparison of the table."""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from typing import Any

import click

from cursedsim.cli.app import command
from cursedsim.cli.grid import (CliError, GridArgs, RunArgs, cell_dir, check_run, grid_client, grid_dir,
                                grid_options, parse_grid, run_options)
from cursedsim.cli.precision import PRECISION_OPTIONS, checked_precision
from cursedsim.cli.sides import side_option
from cursedsim.cli.tables import diff_cell, key_cell, p_value_cell, print_table, rates_table
from cursedsim.files import write_via

MINUS = "−"
#: The header's lines are wrapped to this width (an 80-column terminal).
HEADER_WIDTH = 80


@command("compare")
@click.argument("game")
@grid_options(policy="A policy to compare, e.g. baseline or smart:slack=3,multi_items=1. Repeat for several. A game "
                     "of sides: SIDE=POLICY[:param=value,...]; the side given several varies, the others stay fixed.",
              policy_metavar="[SIDE=]POLICY", param=None,
              players="Player counts: 3, 1-5 or 2,4; one comparison per count (default: the game's).",
              seals="Shorthand for --option seals=S; several values are compared on the same games.",
              option="A rule option; several values (a,b or a-b) are compared on the same games. Repeatable.")
@side_option()
@click.option("--reference", metavar="WHICH", default=None,
              help="The contender the others are compared with: a policy, an option value or a label "
                   "(default: the first).")
@run_options(games="Games per contender.",
             out="Directory: pairs.csv + policies.csv, resumable runs under cells/.",
             extra=(click.option("--detect", type=float, default=1.0, show_default=True, metavar="PP",
                                 help="Difference in percentage points for the 'games to detect' column "
                                      "(80% power, 5% level)."), *PRECISION_OPTIONS))
def compare_command(game, side, reference, detect, precision, max_games, grid: GridArgs, run: RunArgs):
    """Compare policies and rule option values of GAME on the same games (common random numbers): each
    one's paired difference from the reference in win rate, with its 95% interval, p-value (and Holm's,
    over every comparison of the table) and the games a difference of --detect points needs."""
    import pandas as pd

    from cursedsim import runner
    from cursedsim.compare import compare
    from cursedsim.contenders import find_reference, lineup
    from cursedsim.stats import holm

    game_obj = runner.resolve_game(game)
    precision, max_games = checked_precision(precision, max_games)   # --precision: every difference to ±P points
    if run.n_games < 2 and precision is None:
        runner.check_n_games(run.n_games)
        raise CliError(f"compare needs at least 2 games (paired intervals), got {run.n_games}")
    run = check_run(run)
    cells_grid = parse_grid(game_obj, grid)
    fixed = {name: values[0] for name, values in cells_grid.options.items() if len(values) == 1}
    vary = {name: values for name, values in cells_grid.options.items() if len(values) > 1}
    policies, fixed_sides = _contenders(game_obj, grid, side, vary)
    if len(policies) < 2 and not vary:
        raise CliError(f"compare needs two or more contenders: two or more --policy, or an --option (or --seals) "
                       f"with several values; valid policies: {', '.join(game_obj.policies_of(fixed_sides.side))}")
    if not 0 < detect < 100:
        raise CliError(f"--detect takes a difference in percentage points between 0 and 100, got {detect:g}")
    runner.make_options(game_obj, fixed)   # every setting checked before the first game
    _, _, sides = lineup(game_obj, policies, vary, fixed, fixed_sides.side)
    ref = find_reference(sides, reference)
    if precision is None:
        runner.check_memory(game_obj, run.n_games, copies=len(sides), what=f"the frames of {len(sides)} contenders")

    pair_frames, policy_frames, settings = [], [], []
    config = {"kind": "compare grid", "game": game_obj.name, "n_games": run.n_games, "seed": run.seed}
    if precision is not None:
        config.update(n_games=None, precision=precision)
    with grid_dir(run.out, "compare.json", config, "compare") as directory, \
            grid_client(run, len(cells_grid.players) * len(sides)) as address:
        for p in cells_grid.players:
            cell_out = None if directory is None else cell_dir(directory, "compare", p, fixed, {})
            result = compare(game_obj, policies, run.n_games if precision is None else None, players=p, options=fixed,
                             vary=vary or None, reference=ref.label, seed=run.seed, n_jobs=run.n_jobs,
                             backend=run.backend, out=cell_out, progress=run.progress, detect=detect / 100,
                             dask_address=address, precision=precision, max_games=max_games,
                             side=fixed_sides.side, others=fixed_sides.others() if fixed_sides.side else None)
            columns = {"players": p, **result.settings["options"]}   # every fixed option, as played
            pair_frames.append(result.pairs.assign(**columns))
            policy_frames.append(result.policies.assign(**columns))
            settings.append(result.settings)
            del result   # its frames: one player count's games at a time
        pairs = pd.concat(pair_frames, ignore_index=True)
        pairs["p_holm"] = holm(pairs["p_value"])   # one family: every comparison of the table
        summary = pd.concat(policy_frames, ignore_index=True)
        for line in header_lines(game_obj, settings, fixed, ref.label):
            click.echo(line)
        keys = ["players"] if len(cells_grid.players) > 1 else []
        column, cells = contender_column(sides, vary, [getattr(p, "label", p) for p in policies])
        if fixed_sides.side is not None and column == "policy":
            column = f"{fixed_sides.side} policy"
        print_table(differences_table(pairs, keys, column, cells, detect,
                                      caption(len(pairs), len(cells_grid.players)), side=fixed_sides.side))
        shown = summary.assign(**{column: summary["policy"].map(cells)})
        print_table(rates_table(game_obj, shown.to_dict("records"), keys + [column]))
        if directory is not None:
            write_via(os.path.join(directory, "pairs.csv"), lambda tmp: pairs.to_csv(tmp, index=False))
            write_via(os.path.join(directory, "policies.csv"), lambda tmp: summary.to_csv(tmp, index=False))
            click.echo(f"wrote {os.path.join(directory, 'pairs.csv')} and policies.csv", err=True)


@dataclass(frozen=True)
class FixedSides:
    """A game of sides: the varied ``side`` and what the other sides play (``parsed``, a SidePolicies);
    all None for a single-side game."""

    side: str | None = None
    parsed: Any = None

    def others(self) -> dict[str, Any]:
        return self.parsed.others()


def _contenders(game, grid: GridArgs, side: str | None, vary: dict[str, list[Any]]) -> tuple[list[Any], FixedSides]:
    """The contenders' policies of ``--policy`` (the game's default when none) and, for a game of sides,
    the varied side (the one given several policies, ``--side``, or with only options varying the first
    side) with the other sides' fixed policies."""
    if not game.sides:
        if side is not None:
            raise CliError(f"{game.name} has no sides: leave out --side")
        return list(grid.policies) or [game.default_policy], FixedSides()
    from cursedsim.cli.sides import parse_sides, varied_side
    parsed = parse_sides(game, grid.policies, (), side)
    if parsed.varied is None and vary:   # only options vary: the first side's win rate, unless --side
        parsed = parse_sides(game, grid.policies, (), game.sides[0].name)
    chosen = varied_side(game, parsed, "compare varies")
    return list(parsed.chosen[chosen]), FixedSides(chosen, parsed)


def contender_column(sides, vary: dict[str, list[Any]], policies: list[str]) -> tuple[str, dict[str, str]]:
    """The header of the column naming each contender and its cell per label: the option's value when
    only one option varies, the policy when only policies do, else the label."""
    from cursedsim.describe import value_text
    if len(vary) == 1 and len(policies) == 1:
        (name,) = vary
        return name, {side.label: value_text(side.options[name]) for side in sides}
    header = "policy" if not vary else "contender"
    return header, {side.label: side.label for side in sides}


def header_lines(game, settings: list[dict[str, Any]], fixed: dict[str, Any], reference: str) -> list[str]:
    """What the run used and the sign convention: game, games, seed, players, policies, the compared option
    values, the fixed options (each one changed from the rulebook, and those the rulebook sets per
    player count, at every player count)."""
    from cursedsim.describe import value_text
    first = settings[0]
    players = [s["players"] for s in settings]
    games = f"{first['n_games']:,} games per contender (seed {first['seed']})"
    if "precision" in first:   # played to a precision: the games each player count took
        games = (" / ".join(f"{s['n_games']:,}" for s in settings) + f" games per contender (seed {first['seed']}, "
                 f"played until every difference is within ±{100 * first['precision']:g} points)")
    lines = [f"{game.name}: {games}, "
             f"{', '.join(map(str, players))} player{'' if players == [1] else 's'}",
             f"  {'policies:' if len(first['policies']) > 1 else 'policy:  '} {', '.join(first['policies'])}"]
    lines += [f"  compared: {name} = {', '.join(value_text(v) for v in values)}"
              for name, values in first["vary"].items()]
    if "side" in first:   # a game of sides: which side varies, what the others play
        fixed_sides = ", ".join(f"{side}={name}" + "".join(f":{k}={v:g}" for k, v in
                                                           first["fixed_params"].get(side, {}).items())
                                for side, name in first["fixed"].items())
        lines.append(f"  sides:    {first['side']} varies; fixed: {fixed_sides}")
    lines.append(f"  options:  {options_text(game, settings, fixed)}")
    rate = f"{first['side']}'s win rate, " if "side" in first else ""
    lines.append(f"  sign:     X {MINUS} reference ({reference}), {rate}in percentage points, paired on the same games")
    return [wrapped for line in lines for wrapped in textwrap.wrap(line, HEADER_WIDTH, subsequent_indent=" " * 12,
                                                                   break_on_hyphens=False)]


def options_text(game, settings: list[dict[str, Any]], fixed: dict[str, Any]) -> str:
    """The fixed options that differ from the rulebook's or that the rulebook sets per player count
    (``seals=3/4/4/5/5`` over five player counts), then ``others as the rulebook``."""
    import dataclasses

    from cursedsim.compare import changed_options
    from cursedsim.describe import value_text
    per_players = {f.name for f in dataclasses.fields(game.options_type) if f.default is None}
    names = set(per_players)
    for s in settings:
        names |= set(changed_options(game, fixed, s["players"]))
    shown = [name for name in settings[0]["options"] if name in names]
    parts = []
    for name in shown:
        values = list(dict.fromkeys(value_text(s["options"][name]) for s in settings))
        parts.append(f"{name}=" + ("/".join(value_text(s["options"][name]) for s in settings)
                                   if len(values) > 1 else values[0]))
    return ", ".join(parts + ["others as the rulebook" if parts else "as the rulebook"])


def differences_table(pairs, keys: list[str], column: str, cells: dict[str, str], detect: float,
                      caption: str | None = None, side: str | None = None):
    """One row per comparison: X − reference in points [95% CI] (a game of sides: of ``side``'s win rate,
    ``hunter wins X − ref``), its p-value, Holm's (when there are several) and the games a paired
    comparison needs to detect ``detect`` points. Light rules and one space between columns: the table
    of starting items fits 80 columns."""
    from rich import box
    from rich.table import Table
    several = len(pairs) > 1
    difference = f"X {MINUS} ref, pp [95% CI]" if side is None else f"{side} wins X {MINUS} ref, pp [95% CI]"
    table = Table(*keys, column, difference, "p", *(["p Holm"] if several else []),
                  f"games for\n{detect:g} pp", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True,
                  caption=caption, caption_justify="left")
    for col in table.columns[len(keys) + 1:]:
        col.justify = "right"
        col.no_wrap = True
    table.columns[len(keys)].overflow = "fold"
    for row in pairs.to_dict("records"):
        table.add_row(*[key_cell(row[k]) for k in keys], cells[row["a"]], diff_cell(row),
                      p_value_cell(row["p_value"]), *([p_value_cell(row["p_holm"])] if several else []),
                      f"{row['games_to_detect']:,}")
    return table


def caption(comparisons: int, player_counts: int) -> str:
    """How to read the p-values of the table."""
    text = "p: paired t test of a zero difference"
    if comparisons > 1:
        per = f", over {player_counts} player counts" if player_counts > 1 else ""
        text += (f"; p Holm: adjusted for the {comparisons} comparisons of this table{per} (a difference "
                 "with p Holm below 0.05 holds at 5% family-wise)")
    return text + "."
