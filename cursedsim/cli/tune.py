"""``cursedsim tune``: successive halving over a policy family's parameters per player count, the winner
checked against a reference policy on held-out games; ``--out`` writes the result as JSON."""

from __future__ import annotations

import math
import os
import re
from typing import Any

import click

from cursedsim.cli.app import command
from cursedsim.cli.grid import (CliError, GridArgs, RunArgs, check_run, grid_client, grid_options, parse_grid,
                                run_options, single_options, split_pair)
from cursedsim.cli.sides import side_option
from cursedsim.cli.tables import diff_cell, p_value_cell, print_table, rate_cell
from cursedsim.files import write_via


def parse_space_texts(texts: tuple[str, ...]) -> dict[str, Any]:
    """``--space NAME=LOW:HIGH`` (a range; integers when both ends are) or ``--space NAME=A,B,C`` (choices)."""
    space: dict[str, Any] = {}
    for text in texts:
        name, value = split_pair(text, "--space")
        low, colon, high = value.partition(":")
        try:
            if colon:
                ends = []
                for end in (low, high):
                    number = float(end)
                    if not math.isfinite(number):
                        raise ValueError(end)
                    ends.append(int(end) if re.fullmatch(r"\s*-?\d+\s*", end) else number)
                space[name] = tuple(ends)
            else:
                space[name] = [float(v) for v in value.split(",")]
                if not all(math.isfinite(v) for v in space[name]):
                    raise ValueError(value)
        except ValueError:
            raise CliError(f"--space takes NAME=LOW:HIGH or NAME=A,B,C with finite numbers, got {text!r}") from None
    return space


@command("tune")
@click.argument("game")
@click.option("--policy", "policy_texts", metavar="[SIDE=]NAME", multiple=True,
              help="The policy family to tune (default: the first one with parameters). A game of sides: "
                   "SIDE=POLICY[:param=value,...] per side; the --side one (default: the first given) is tuned, "
                   "the others stay fixed.")
@side_option()
@grid_options(players="Player counts, each tuned on its own: 3, 1-5 or 2,4.", policy=None, param=None,
              seals="Shorthand for --option seals=S (one value).", option="A rule option. Repeatable.",
              option_metavar="NAME=VALUE")
@click.option("--space", "space_texts", metavar="NAME=LOW:HIGH|A,B", multiple=True,
              help="Search range (or choices) of a parameter, replacing its default range. Repeatable.")
@click.option("--candidates", type=int, default=32, show_default=True, help="Parameter sets entering the search.")
@click.option("--final-games", type=int, default=200_000, show_default=True, help="Held-out games per policy.")
@click.option("--reference", default=None, help="The policy the tuned one must beat (default: baseline; a game of sides: "
                                                "the tuned side's default policy).")
@click.option("--holdout-seed", type=int, default=None, help="Seed of the held-out games (default: derived).")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="JSON file: tuned parameters and results.")   # run_options' RunArgs carries it
@run_options(games="Games per candidate in the first round (doubled every round).", games_default=20_000,
             seed="Seed of the search (held-out seed derived).")
def tune_command(game, policy_texts, side, space_texts, candidates, final_games, reference, holdout_seed,
                 grid: GridArgs, run: RunArgs):
    """Tune a policy family of GAME by successive halving on common random numbers, then check the winner
    against --reference on held-out games; one search per player count."""
    from rich.table import Table

    from cursedsim import runner
    from cursedsim.rundir import check_output_file
    from cursedsim.tune import check_settings, default_space, parse_space, tune, tune_summary

    game_obj = runner.resolve_game(game)
    policy, side, others = tuned_policy(game_obj, policy_texts, side)
    if policy is None:
        policy = next((name for name, spec in game_obj.policies_of(side).items() if spec.params), None)
        if policy is None:
            raise CliError(f"{game_obj.name} has no policy with parameters to tune")
    spec = game_obj.policy(policy, side)
    if reference is None:
        reference = "baseline" if side is None else game_obj.default_policy_of(side)
    sided = {} if side is None else {"side": side, "others": others}
    cells_grid = parse_grid(game_obj, grid)
    options = single_options(cells_grid.options, "tune")
    runner.make_options(game_obj, options)
    space = None
    if space_texts:
        space = dict(default_space(game_obj, spec.name, side) or {})
        space.update(parse_space_texts(space_texts))
    parse_space(game_obj, spec.name, space, side)   # every setting checked before the first search
    run = check_run(run, check_out=False)   # --out is a file here, checked below
    out = run.out
    check_settings(game_obj, spec.name, candidates=candidates, start_games=run.n_games, final_games=final_games,
                   reference=reference, seed=run.seed, holdout_seed=holdout_seed, n_jobs=run.n_jobs,
                   backend=run.backend, side=side)
    if out is not None:   # before the search, so that its result is never lost
        out = check_output_file(out, "--out")
    results = []
    with grid_client(run, len(cells_grid.players)) as client:   # one Dask cluster for every player count
        for p in cells_grid.players:
            results.append(tune(game_obj, spec.name, players=p, options=options, space=space, candidates=candidates,
                                start_games=run.n_games, final_games=final_games, reference=reference, seed=run.seed,
                                holdout_seed=holdout_seed, n_jobs=run.n_jobs, backend=run.backend,
                                dask_address=client, progress=run.progress, **sided))

    first = results[0]
    p_ref, p_default = holm_columns(results)
    family = sum(p == p for p in p_ref + p_default)
    p_header = "p (Holm)" if family > 1 else "p"
    note = "p: paired t test of a zero difference"
    if family > 1:
        note += (f"; Holm: adjusted for the {family} comparisons of this table (tuned − {first.reference} and "
                 "tuned − default at every player count)")
    won = "" if side is None else f"{side} wins "
    other_sides = [] if side is None else [name for name in game_obj.side_names if name != side]
    fixed = "" if side is None else f" ({side}; fixed: {_fixed_text(others)})"
    table = Table("players", "tuned parameters (changed)", f"tuned: {won}% [95% CI]",
                  f"{first.reference}: {won}% [95% CI]", f"tuned − {first.reference}, pp [95% CI]", p_header,
                  "tuned − default, pp [95% CI]", p_header,
                  *[f"tuned: {name} wins % [95% CI]" for name in other_sides],
                  title=f"{game_obj.name}: {spec.name}{fixed} tuned per player count, on held-out games "
                        f"({final_games:,} per policy)", caption=note + ".", caption_justify="left")
    for column in table.columns[2:]:
        column.justify = "right"
    for result, holm_ref, holm_default in zip(results, p_ref, p_default):
        holdout = {row["role"]: row for row in result.holdout.to_dict("records")}
        changed = {k: v for k, v in result.params.items() if v != spec.params.get(k)}
        gap = result.versus_default
        table.add_row(str(result.players),
                      ", ".join(f"{k}={v:g}" for k, v in changed.items()) or "(the defaults)",
                      rate_cell(holdout["tuned"]), rate_cell(holdout["reference"]),
                      diff_cell(result.difference), p_cells(result.difference["p_value"], holm_ref, family),
                      "-" if gap is None else diff_cell(gap),
                      "-" if gap is None else p_cells(gap["p_value"], holm_default, family),
                      *[side_rate_cell(holdout["tuned"], name) for name in other_sides])
    print_table(table)
    if out is not None:
        write_result(out, tune_summary(results))
        click.echo(f"wrote {out}", err=True)


def tuned_policy(game, policies: tuple[str, ...], side: str | None) -> tuple[str | None, str | None, Any]:
    """(the policy family to tune or None, its side, the other sides' fixed policies) of ``--policy`` and
    ``--side``: one policy name for a single-side game; for a game of sides ``SIDE=POLICY`` per side, the
    tuned one the --side one (default: the first given)."""
    if not game.sides:
        if side is not None:
            raise CliError(f"{game.name} has no sides: leave out --side")
        if len(policies) > 1:
            raise CliError(f"tune tunes one --policy, got {', '.join(policies)}")
        return (policies[0] if policies else None), None, None
    from cursedsim.cli.sides import parse_sides
    parsed = parse_sides(game, policies, (), side, vary=False)
    several = [name for name, chosen in parsed.chosen.items() if len(chosen) > 1]
    if several:
        raise CliError(f"tune takes one --policy per side, got several for {', '.join(several)}")
    if side is None:
        side = game.side(policies[0].partition("=")[0].strip()).name if policies else game.sides[0].name
    named = any(text.partition("=")[0].strip() == side for text in policies)
    others = {name: {"policy": chosen[0].policy, "params": dict(chosen[0].params)}
              for name, chosen in parsed.chosen.items() if name != side}
    return (parsed.chosen[side][0].policy if named else None), side, others


def _fixed_text(others: dict[str, Any]) -> str:
    return ", ".join(f"{name}={entry['policy']}" + "".join(f":{k}={v:g}" for k, v in entry["params"].items())
                     for name, entry in others.items())


def side_rate_cell(row: dict[str, Any], side: str) -> str:
    """A side's win rate with its interval in a held-out row (``<side>_win_rate``, ...)."""
    return rate_cell({"win_rate": row[f"{side}_win_rate"], "ci_low": row[f"{side}_ci_low"],
                      "ci_high": row[f"{side}_ci_high"]})


def holm_columns(results) -> tuple[list[float], list[float]]:
    """Holm-adjusted p-values of the table's comparisons, one family: tuned − reference and tuned −
    default at every player count (NaN where a result has no comparison with the defaults)."""
    from cursedsim.stats import holm
    raw = [r.difference["p_value"] for r in results]
    raw += [math.nan if r.versus_default is None else r.versus_default["p_value"] for r in results]
    adjusted = holm(raw).tolist()
    return adjusted[:len(results)], adjusted[len(results):]


def p_cells(p: float, adjusted: float, family: int) -> str:
    """A p-value, with its Holm-adjusted value in brackets when the table holds several comparisons."""
    return p_value_cell(p) + (f" ({p_value_cell(adjusted)})" if family > 1 else "")


def write_result(path: str, document: dict[str, Any]) -> None:
    """``document`` as JSON in ``path``; if that fails after all (a disk that filled up), in a file of
    the temporary folder, named in the error, so that a long search is never lost."""
    import json
    import tempfile

    from cursedsim.rundir import dump_json
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        write_via(os.path.abspath(path), lambda tmp: dump_json(document, tmp))
    except OSError as error:
        fd, rescue = tempfile.mkstemp(prefix="cursedsim-tune-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(document, f, indent=2)
        raise CliError(f"cannot write {path} ({error.strerror or error}); the result is in {rescue}") from None
