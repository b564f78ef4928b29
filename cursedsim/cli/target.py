"""``cursedsim target``: per player count, the value of an integer rule option or a policy parameter whose
win rate is closest to a target (``--win-rate 15 --vary seals``), found by adaptive rounds on common
random numbers; one table per player count with every candidate, its interval and P(closest)."""

from __future__ import annotations

import os
from typing import Any

import click

from cursedsim.cli.app import command
from cursedsim.cli.grid import (CliError, GridArgs, RunArgs, check_run, finite, grid_options, parse_grid,
                                parse_int_values, parse_number_values, parse_params, parse_policies, run_options,
                                single_options, split_pair)
from cursedsim.cli.sides import side_option
from cursedsim.cli.tables import pp, print_table
from cursedsim.console import make_console
from cursedsim.target import MAX_GAMES, START_GAMES, TOLERANCE

VALUES_HELP = ("Candidate values: 0-12, 2,4,6 (a parameter also 0.5,1.5). Default: an integer option's valid "
               "range from its own validation when that is closed and at most 101 values (Verflucht!'s seals: "
               "0-10), else the integers from 0 to twice the default (smart.slack: 0-4).")
MODE_HELP = ("A game with modes (village: automata, rabid_monster, possessed_wizard, duel): one search per mode, "
             "in that mode's standard pairing of the sides' policies. Comma-separated, repeatable: --mode "
             "rabid_monster,duel or --mode rabid_monster --mode duel. The targeted side is --side (default: the "
             "side of a POLICY.PARAM --vary, else the game's first side: village's wizard). --policy may only "
             "give sides no chosen mode names (village: none); --param [SIDE.]NAME=VALUE sets the targeted "
             "side's parameters in every mode.")
STOP_TEXT = {"one left": "one value left", "within tolerance": "the rest tied", "max games": "at --max-games"}
STATUS_TEXT = {"chosen": "◀ chosen", "tied": "tied", "open": "open", "dropped": "dropped"}


@command("target")
@click.argument("game")
@click.option("--win-rate", "win_rate", type=float, required=True, metavar="PERCENT",
              help="The target win rate in percent (0-100).")
@click.option("--vary", required=True, metavar="NAME",
              help="An integer rule option (seals), POLICY.PARAM (smart.slack) or a parameter of --policy.")
@click.option("--values", "values_text", metavar="VALUES", help=VALUES_HELP)
@click.option("--tolerance", type=float, default=100 * TOLERANCE, show_default=True, metavar="PP",
              help="Points: values whose distances from the target differ by less are as good (tied).")
@click.option("--start-games", type=int, default=START_GAMES, show_default=True,
              help="Games per value in the first round; each round doubles the games of the values left.")
@click.option("--confidence", type=float, default=0.95, show_default=True,
              help="A value is dropped when it is farther than the best at this confidence, for the whole "
                   "search (Bonferroni over values, sides and rounds).")
@grid_options(players="Player counts: 3, 1-5 or 2,4 (default: the game's); one search each.",
              seals="Fix the seals (shorthand for --option seals=S) when varying something else.",
              option="Fix another rule option: NAME=VALUE. Repeatable.",
              policy="The policy played (default: the game's). A game of sides: SIDE=POLICY[:param=value,...] per "
                     "side; the side whose win rate is targeted is --side, else the side of the --vary parameter, "
                     "else the first given.", policy_metavar="[SIDE=]NAME",
              param="Fix another parameter of the policy: NAME=VALUE (a game of sides: SIDE.NAME=VALUE). Repeatable.")
@side_option()
@click.option("--mode", "mode_texts", multiple=True, metavar="MODE[,MODE...]", help=MODE_HELP)
@run_options(games="Games per value at most: the last round (the search stops there).", games_flag="--max-games",
             games_default=MAX_GAMES, seed="The seed of every value's games (common random numbers).",
             out="Directory: every round's games as resumable runs under cells/, candidates.csv, chosen.csv.")
def target_command(game, win_rate, vary, values_text, tolerance, start_games, confidence, side, mode_texts,
                   grid: GridArgs, run: RunArgs):
    """Find, per player count (and per --mode), the value of an integer rule option or a policy parameter
    whose win rate in GAME is closest to --win-rate: every value plays the same games, games are added in
    rounds to the values still undecided, a value is dropped once it is clearly farther than the best, and
    the search stops when one is left, when those left are within --tolerance of each other, or at
    --max-games."""
    from cursedsim import runner
    from cursedsim.target import resolve_varied, target

    game_obj = runner.resolve_game(game)
    if not 0 <= win_rate <= 100:
        raise CliError(f"--win-rate takes a percentage in 0-100, got {win_rate:g}")
    if not 0 <= tolerance < 100:
        raise CliError(f"--tolerance takes percentage points in 0-100, got {tolerance:g}")
    run = check_run(run)
    sided: dict[str, Any] = {}
    if mode_texts:
        from cursedsim.target import mode_list
        modes = mode_list(game_obj, ",".join(mode_texts))
        side, policy, params, others = mode_side_args(game_obj, grid, side, vary, modes)
        varied = resolve_mode_varied(game_obj, vary, side, modes[0], policy)
        sided = {"side": side, "others": others or None, "modes": modes}
    elif game_obj.sides:
        side, policy, params, others = target_side(game_obj, grid, side, vary)
        varied = resolve_varied(game_obj, vary, policy, side)
        sided = {"side": side, "others": others}
    else:
        if side is not None:
            raise CliError(f"{game_obj.name} has no sides: leave out --side")
        policies = parse_policies(game_obj, grid.policies)
        if len(policies) > 1:
            raise CliError(f"target plays one --policy, got {', '.join(policies)}")
        varied = resolve_varied(game_obj, vary, grid.policies[0] if grid.policies else None)
        params = parse_params(game_obj, [varied.policy], grid.param_texts)[varied.policy]
    cells_grid = parse_grid(game_obj, grid)
    options = single_options(cells_grid.options, "target")
    values = None
    if values_text is not None:
        values = (parse_int_values(values_text, "--values") if varied.kind == "option"
                  else parse_number_values(values_text, "--values"))

    def announce(players: int, round_index: int, rounds: int, left: list, mode: str | None = None) -> None:
        if run.progress is not False:
            click.echo(f"target {game_obj.name}{'' if mode is None else ' ' + mode} p={players}: round "
                       f"{round_index + 1}/{rounds}, {len(left)} value(s) left: {values_text_of(left)}", err=True)

    result = target(game_obj, win_rate / 100, vary=vary if mode_texts else varied.label, players=cells_grid.players,
                    values=values, policy=policy if mode_texts else varied.policy, options=options, params=params,
                    tolerance=tolerance / 100,
                    start_games=start_games, max_games=run.n_games, confidence=confidence, seed=run.seed,
                    n_jobs=run.n_jobs, backend=run.backend, out=run.out, progress=run.progress,
                    dask_address=run.scheduler, on_round=announce, **sided)
    click.echo(header(result))
    for table in [*target_tables(result), summary_table(result)]:
        print_table(table)
    from rich.text import Text
    make_console().print(Text(caption(result)))
    if run.out is not None:
        click.echo(f"wrote {os.path.join(run.out, 'candidates.csv')} and chosen.csv", err=True)


def target_side(game, grid: GridArgs, side: str | None, vary: str) -> tuple[str, str, dict[str, float], Any]:
    """A game of sides: (the side whose win rate is targeted, its policy, that policy's fixed parameters, the
    other sides' policies) from ``--policy SIDE=POLICY``, ``--param SIDE.NAME=VALUE`` and ``--side``; the side
    defaults to the one whose chosen policy has the ``--vary`` parameter, else the first ``--policy``'s."""
    from cursedsim.cli.sides import parse_sides
    parsed = parse_sides(game, grid.policies, grid.param_texts, side, vary=False)
    several = [name for name, chosen in parsed.chosen.items() if len(chosen) > 1]
    if several:
        raise CliError(f"target plays one --policy per side, got several for {', '.join(several)}")
    if side is None:
        owner, dot, name = vary.strip().rpartition(".")
        having = [s for s, chosen in parsed.chosen.items()
                  if (not dot or chosen[0].policy == owner) and name in game.policy(chosen[0].policy, s).params]
        first = grid.policies[0].partition("=")[0].strip() if grid.policies else game.sides[0].name
        side = having[0] if len(having) == 1 else game.side(first).name
    entry = parsed.chosen[side][0]
    others = {name: {"policy": chosen[0].policy, "params": dict(chosen[0].params)}
              for name, chosen in parsed.chosen.items() if name != side}
    return side, entry.policy, dict(entry.params), others


def mode_side_args(game, grid: GridArgs, side: str | None, vary: str,
                   modes: list[str]) -> tuple[str, str | None, dict[str, float], dict[str, Any]]:
    """With --mode: (the targeted side, its --policy where no mode names it, its --param values, the
    --policy of the other sides no mode names). A --policy for a side a chosen mode names is an error (the
    mode's pairing gives that side's policy), and so is a --param of another side than the targeted one."""
    from cursedsim.contenders import parse_policies as parse_contenders
    from cursedsim.target import mode_side
    side = mode_side(game, vary, side)
    policy, params, others = None, {}, {}
    for text in grid.policies:
        name, sep, rest = text.partition("=")
        if not sep or not name.strip() or not rest.strip():
            raise CliError(f"{game.name} has sides ({', '.join(game.side_names)}): --policy takes "
                           f"SIDE=POLICY[:param=value,...]; got {text!r}")
        owner = game.side(name.strip()).name
        naming = [mode for mode in modes if owner in game.modes[mode]]
        if naming:
            pairing = ", ".join(f"{s}={p}" for s, p in game.modes[naming[0]].items())
            raise CliError(f"--mode {naming[0]} plays {pairing}: leave out --policy {text.strip()} (the mode's "
                           "pairing gives that side's policy), or leave out --mode")
        if owner == side and policy is not None or owner in others:
            raise CliError(f"target plays one --policy per side, got several for {owner}")
        (entry,) = parse_contenders(game, [rest.strip()], owner)
        if owner == side:
            policy, params = entry.policy, dict(entry.params)
        else:
            others[owner] = {"policy": entry.policy, "params": dict(entry.params)}
    for text in grid.param_texts:
        key, value = split_pair(text, "--param")
        owner, dot, name = key.rpartition(".")
        if dot and owner != side:
            raise CliError(f"with --mode, --param sets the targeted side's ({side}) parameters, got --param {key}; "
                           "a side no chosen mode names takes them in its --policy SIDE=POLICY:NAME=VALUE")
        params[name] = finite(value, f"parameter {name!r}")
    return side, policy, params, others


def resolve_mode_varied(game, vary: str, side: str, mode: str, policy: str | None):
    """What --vary names, as played in ``mode`` (its kind decides how --values is read)."""
    from cursedsim.target import in_mode, resolve_varied
    with in_mode(mode):
        return resolve_varied(game, vary, game.modes[mode].get(side, policy), side)


def values_text_of(values: list) -> str:
    """Candidate values compactly, three or more consecutive integers as a range: ``0-10``, ``2, 4, 6``,
    ``0.5, 1``."""
    values = list(values)
    parts: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and float(values[j]).is_integer() and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{float(values[i]):g}-{float(values[j]):g}")
        else:
            parts += [f"{float(v):g}" for v in values[i:j + 1]]
        i = j + 1
    return ", ".join(parts)


def header(result) -> str:
    """What was searched: the target, the varied setting and its values, the policy, every fixed option
    and parameter, the seed."""
    s = result.settings
    fixed = [f"{name}={value}" for name, value in {**s["options"], **s["params"]}.items()]
    rate = "win rate" if "side" not in s else f"{s['side']} win rate"
    policy = f"policy {s['policy']}" if "side" not in s else f"{s['side']} plays {s['policy']}"
    if "modes" in s:
        policy = "modes " + ", ".join(f"{mode} ({', '.join(f'{k}={v}' for k, v in pairing.items())})"
                                      for mode, pairing in s["modes"].items())
    others = "" if "side" not in s or not s["fixed"] else "; fixed: " + ", ".join(
        f"{name}={policy_name}" + "".join(f":{k}={v:g}" for k, v in s["fixed_params"].get(name, {}).items())
        for name, policy_name in s["fixed"].items())
    return (f"{s['game']}: {s['vary']} for a {100 * s['win_rate']:g}% {rate}; values {values_text_of(s['values'])}; "
            f"{policy}" + (f"; {', '.join(fixed)}" if fixed else "") + others
            + f"; seed {s['seed']}; tolerance {100 * s['tolerance']:g} points")


def p_cell(p: float) -> str:
    """A probability to two decimals; ``> 0.99`` and ``< 0.01`` where it would round to 1 or 0 but is not."""
    if 0.995 <= p < 1:
        return "> 0.99"
    return "< 0.01" if 0 < p < 0.005 else f"{p:.2f}"


def _players_text(players: int) -> str:
    return f"{players} player" + ("" if players == 1 else "s")


def target_tables(result) -> list[Any]:
    """One rich table per player count: value, games, win rate [95% CI], P(closest), status; the title
    names the chosen value and why the search stopped."""
    from rich.table import Table
    label = result.settings["vary"]
    tables = []
    for chosen in result.chosen.to_dict("records"):
        rows = result.candidates[result.candidates["players"] == chosen["players"]]
        mode = ""
        if "mode" in chosen:
            rows = rows[rows["mode"] == chosen["mode"]]
            mode = f"{chosen['mode']}, "
        title = (f"{mode}{_players_text(chosen['players'])}: {label} {values_text_of([chosen['value']])} "
                 f"({chosen['total_games']:,} games; {STOP_TEXT[chosen['stop']]})")
        side = result.settings.get("side")
        others = _other_sides(result.settings)
        rate = "win % [95% CI]" if side is None else f"{side} wins % [95% CI]"
        table = Table(label.rpartition(".")[2], "games", rate, "P(closest)", "status",
                      *[f"{name} wins % [95% CI]" for name in others], title=title)
        for column in [*table.columns[:4], *table.columns[5:]]:
            column.justify = "right"
        for row in rows.to_dict("records"):
            table.add_row(values_text_of([row["value"]]), f"{row['games']:,}",
                          f"{pp(row['win_rate'])} [{pp(row['ci_low'])}, {pp(row['ci_high'])}]",
                          p_cell(row["p_closest"]), STATUS_TEXT[row["status"]],
                          *[f"{pp(row[f'{name}_win_rate'])} [{pp(row[f'{name}_ci_low'])}, "
                            f"{pp(row[f'{name}_ci_high'])}]" for name in others],
                          style="bold" if row["status"] == "chosen" else None)
        tables.append(table)
    return tables


def _other_sides(settings: dict) -> list[str]:
    """The sides other than the targeted one (a game of sides), whose win rates the tables add."""
    if "modes" in settings:
        return [name for name in next(iter(settings["modes"].values())) if name != settings["side"]]
    return list(settings.get("fixed", {}))


def stop_cell(chosen: dict) -> str:
    """Why a search stopped: ``one left``, ``tied with 4, 5``, ``open: 4, 5`` (at the last round)."""
    tied = f"tied with {chosen['tied']}" if chosen["tied"] else ""
    if chosen["stop"] == "max games":
        return "; ".join(part for part in (f"open: {chosen['open']}", tied) if part)
    return tied or chosen["stop"]


def summary_table(result) -> Any:
    """The answer in one table: per player count the chosen value, its win rate, P(closest), why the
    search stopped."""
    from rich.table import Table
    label = result.settings["vary"]
    side = result.settings.get("side")
    modes = "mode" in result.chosen
    table = Table(*(["mode"] if modes else []), "players", label.rpartition(".")[2],
                  "win % [95% CI]" if side is None else f"{side} wins % [95% CI]",
                  "P(closest)", "search", title=f"{label} closest to {100 * result.settings['win_rate']:g}%"
                                                + ("" if side is None else f" ({side} win rate)"))
    for column in table.columns[int(modes):4 + int(modes)]:
        column.justify = "right"
    for chosen in result.chosen.to_dict("records"):
        table.add_row(*([chosen["mode"]] if modes else []), str(chosen["players"]), values_text_of([chosen["value"]]),
                      f"{pp(chosen['win_rate'])} [{pp(chosen['ci_low'])}, {pp(chosen['ci_high'])}]",
                      p_cell(chosen["p_closest"]), stop_cell(chosen))
    return table


def caption(result) -> str:
    """How to read the tables: the intervals, P(closest) and the statuses."""
    s = result.settings
    return (f"Intervals: Wilson 95% per value. P(closest): the share of {s['draws']:,} draws from the normal "
            f"approximation of the values' win rates (paired covariances of the same games; seed {s['seed']}) in "
            f"which the value is the closest to {100 * s['win_rate']:g}%. dropped: farther than the best at "
            f"{100 * s['confidence']:g}% confidence over the whole search; tied: within {100 * s['tolerance']:g} "
            f"points of the chosen; open: undecided at {s['schedule'][-1]:,} games.")


__all__ = ["caption", "header", "mode_side_args", "p_cell", "resolve_mode_varied", "stop_cell", "summary_table", "target_command", "target_tables",
           "values_text_of"]
