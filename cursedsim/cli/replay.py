"""``cursedsim replay``: the turn log of one simulated game, or its events as JSON lines (``--format json``)."""

from __future__ import annotations

import click

from cursedsim.cli.app import command
from cursedsim.cli.grid import GridArgs, grid_options, parse_options, parse_params, single_options

#: What ``--format`` offers: the readable log, or one JSON event a line (``runner.replay``'s formats).
FORMATS = ("text", "json")


@command("replay")
@click.argument("game")
@click.option("--seed", type=int, required=True)
@click.option("--index", type=int, required=True, help="The game_index of the game in its run.")
@click.option("--players", type=int, default=None, help="Player count (default: the game's).")
@grid_options(players=None, policy=None, option="A rule option. Repeatable.", option_metavar="NAME=VALUE",
              param="A policy parameter. Repeatable.")
@click.option("--policy", default=None, help="The policy (default: the game's).")
@click.option("--format", "format_", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: the turn log; json: one event a line (JSON lines: turn, actor, action, cards, "
                   "the action's fields, state), see docs/rules/<game>.md#replay-events.")
def replay_command(game, seed, index, players, policy, format_, grid: GridArgs):
    """Print the turn log of game INDEX of a run with SEED (the row simulate played), or its events."""
    from cursedsim import runner

    game_obj = runner.resolve_game(game)
    options = single_options(parse_options(game_obj, grid.option_texts, grid.seals_text), "replay")
    policy = policy or game_obj.default_policy
    game_obj.policy(policy)
    params = parse_params(game_obj, [policy], grid.param_texts)[policy]
    log = runner.replay(game_obj, seed, index, players=players, policy=policy, options=options,
                        params=params or None, format=format_)
    click.echo(log, nl=not log.endswith("\n"))
