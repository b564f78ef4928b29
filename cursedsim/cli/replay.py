"""``cursedsim replay``: the turn log of one simulated game, or its events as JSON lines (``--format json``)."""

from __future__ import annotations

import click

from cursedsim.cli.app import command
from cursedsim.cli.grid import CliError, GridArgs, grid_options, parse_options, parse_params, single_options

#: What ``--format`` offers: the readable log, or one JSON event a line (``runner.replay``'s formats).
FORMATS = ("text", "json")


@command("replay")
@click.argument("game")
@click.option("--seed", type=int, required=True)
@click.option("--index", type=int, required=True, help="The game_index of the game in its run.")
@click.option("--players", type=int, default=None, help="Player count (default: the game's).")
@grid_options(players=None, option="A rule option. Repeatable.", option_metavar="NAME=VALUE",
              param="A policy parameter (a game of sides: SIDE.NAME=VALUE). Repeatable.",
              policy="The policy (default: the game's). A game of sides: SIDE=POLICY[:param=value,...] per side "
                     "(a side left out plays its default).", policy_metavar="[SIDE=]NAME")
@click.option("--format", "format_", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: the turn log; json: one event a line (JSON lines: turn, actor, action, cards, "
                   "the action's fields, state), see docs/rules/<game>.md#replay-events.")
def replay_command(game, seed, index, players, format_, grid: GridArgs):
    """Print the turn log of game INDEX of a run with SEED (the row simulate played), or its events."""
    from cursedsim import runner

    game_obj = runner.resolve_game(game)
    options = single_options(parse_options(game_obj, grid.option_texts, grid.seals_text, grid.deck_text,
                                           grid.board_text), "replay")
    if game_obj.sides:
        from cursedsim.cli.sides import parse_sides
        runs = parse_sides(game_obj, grid.policies, grid.param_texts, vary=False).runs()
        if len(runs) > 1:
            raise CliError(f"replay plays one --policy per side, got {', '.join(grid.policies)}")
        ((policy, params, _),) = runs
    else:
        if len(grid.policies) > 1:
            raise CliError(f"replay plays one --policy, got {', '.join(grid.policies)}")
        policy = grid.policies[0] if grid.policies else game_obj.default_policy
        game_obj.policy(policy)
        params = parse_params(game_obj, [policy], grid.param_texts)[policy]
    log = runner.replay(game_obj, seed, index, players=players, policy=policy, options=options,
                        params=params or None, format=format_)
    click.echo(log, nl=not log.endswith("\n"))
