"""``cursedsim list``: the games, their player counts, policies (with parameters) and rule options."""

from __future__ import annotations

from cursedsim.cli.app import command
from cursedsim.console import make_console


@command("list")
def list_command():
    """Games, their player counts, policies (with parameters) and rule options (with defaults)."""
    from rich.table import Table

    from cursedsim.describe import first_sentence, options_info
    from cursedsim.games import get_game, list_games

    console = make_console()
    for name in list_games():
        game = get_game(name)
        console.print(f"[bold]{game.name}[/bold] — {game.title}, {game.min_players}-{game.max_players} players"
                      + (f" (default {game.default_players})" if game.default_players else ""))
        if game.description:
            console.print(f"  {first_sentence(game.description, 90)}")
        policies = Table("policy", "description", "parameters (default)", title=None, show_edge=False)
        for policy in game.policies.values():
            label = policy.name + (" (default)" if policy.name == game.default_policy else "")
            params = ", ".join(f"{key}={value:g}" for key, value in policy.params.items()) or "-"
            policies.add_row(label, first_sentence(policy.doc, 90), params)
        console.print(policies)
        options = Table("option", "type", "default", "description", show_edge=False)
        for info in options_info(game.options_type):
            options.add_row(info.name, info.type_name, repr(info.default), first_sentence(info.doc, 90))
        console.print(options)
        console.print()
