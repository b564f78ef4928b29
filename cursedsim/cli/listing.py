"""``cursedsim list``: every game in a few lines; ``cursedsim list GAME``: that game in full, every rule
option (type, default, valid values, description) and every policy (description, parameters)."""

from __future__ import annotations

import dataclasses
import re
import textwrap

import click

from cursedsim.cli.app import command
from cursedsim.console import make_console

#: Indent of a description under its heading.
INDENT = 4


def plain(text: str) -> str:
    """A docstring's text for the terminal: ``literal`` markup dropped, lines joined."""
    return " ".join(re.sub(r"``([^`]*)``", r"\1", text).split())


def valid_values(info, options_type: type) -> str:
    """What an option accepts, as the command line writes it: its choices, an integer range or the type."""
    from cursedsim.describe import int_range, value_text
    from cursedsim.runner import option_kinds

    base, optional = option_kinds(options_type)[info.name]
    if info.choices is not None:
        text = ", ".join(value_text(choice) for choice in info.choices)
    elif base is int:
        low, high = int_range(options_type, info.name) or (None, None)
        text = (f"{low}-{high}" if low is not None and high is not None else f"at least {low}" if low is not None
                else f"at most {high}" if high is not None else "any integer")
    elif info.name in getattr(options_type, "FILE_OPTIONS", ()):
        text = "default, or the path of a TOML or JSON file"
    else:
        text = "any number" if base is float else "any text"
    return text + (", none" if optional else "")


def _title(game) -> str:
    """``Verflucht!, 1-5 players (default 3)``: the title and player counts of ``game``."""
    if game.min_players == game.max_players:
        players = f"{game.min_players} player" + ("s" if game.min_players != 1 else "")
    else:
        players = f"{game.min_players}-{game.max_players} players" + (
            f" (default {game.default_players})" if game.default_players else "")
    return f"{game.title}, {players}"


def _lines(console, text: str, indent: int, hanging: int | None = None, bold: str = "") -> None:
    """``text`` wrapped to the console's width at ``indent`` (later lines at ``hanging``), with its first
    occurrence of ``bold`` in bold; printed as is (no padding, no trailing spaces)."""
    from rich.markup import escape
    hanging = indent if hanging is None else hanging
    lines = textwrap.wrap(text, width=max(console.width, 40), initial_indent=" " * indent,
                          subsequent_indent=" " * hanging, break_on_hyphens=False) or [""]
    marked = [escape(line) for line in lines]
    if bold:
        marked[0] = marked[0].replace(escape(bold), f"[bold]{escape(bold)}[/bold]", 1)
    for line in marked:
        console.print(line, soft_wrap=True, highlight=False)


def _entry(console, name: str, rest: str, body: str, indent: int = 2) -> None:
    """A heading (``name`` in bold, then ``rest``) and its description below it, indented and wrapped."""
    _lines(console, name + rest, indent, indent + INDENT, bold=name)
    if body:
        _lines(console, body, indent + INDENT)


def describe_game(console, game) -> None:
    """The full description of ``game``: its facts, every rule option and every policy with its parameters."""
    from cursedsim.describe import options_info, value_text

    _entry(console, game.name, f" — {_title(game)}", plain(game.description), indent=0)
    console.print()
    console.print("[bold]Rule options[/bold] (--option NAME=VALUE; defaults are the rulebook's)", highlight=False)
    for info in options_info(game.options_type):
        _entry(console, info.name, f": {info.type_name}, default {value_text(info.default)}; valid: "
                                   f"{valid_values(info, game.options_type)}", plain(info.doc))
    console.print()
    if game.sides:
        describe_sides(console, game)
        return
    console.print("[bold]Policies[/bold] (--policy NAME; parameters NAME=DEFAULT, changed with --param NAME=VALUE)",
                  highlight=False)
    _policies(console, game.policies, game.default_policy, 2)


def _policies(console, policies, default_policy: str | None, indent: int) -> None:
    """Every policy: name (default marked), description, parameters with defaults and descriptions."""
    for policy in policies.values():
        default = " (default)" if policy.name == default_policy else ""
        _entry(console, policy.name, default, plain(policy.doc), indent)
        _lines(console, "parameters:" if policy.params else "no parameters", indent + INDENT)
        for name, value in policy.params.items():
            doc = plain(policy.param_docs.get(name, ""))
            _lines(console, f"{name}={value:g}" + (f": {doc}" if doc else ""), indent + 2 + INDENT,
                   indent + 2 + 2 * INDENT, bold=name)


def describe_sides(console, game) -> None:
    """The sides of a game of sides: each side (its description, win column, default) and its policies."""
    bare = "; a bare --policy NAME plays every side" if game.one_policy_all_sides else ""
    console.print("[bold]Sides[/bold] (--policy SIDE=POLICY per side, a side left out plays its default" + bare +
                  "; parameters NAME=DEFAULT, changed with --param SIDE.NAME=VALUE or SIDE=POLICY:NAME=VALUE)",
                  highlight=False)
    if game.one_policy_all_sides:   # the policies are the same for every side: listed once
        for side in game.sides:
            _entry(console, side.name, f": default {side.default_policy}; wins: {side.win_column}", plain(side.doc))
        console.print("[bold]Policies[/bold] (of every side)", highlight=False)
        _policies(console, game.sides[0].policies, None, INDENT)
        return
    for side in game.sides:
        _entry(console, side.name, f": default {side.default_policy}; wins: {side.win_column}", plain(side.doc))
        _policies(console, side.policies, side.default_policy, 2 + INDENT)


def overview(console) -> None:
    """Every game in a few lines: facts, description, policy and option names."""
    from cursedsim.games import get_game, list_games

    for name in list_games():
        game = get_game(name)
        _entry(console, game.name, f" — {_title(game)}", plain(game.description), indent=0)
        if game.sides:
            for side in game.sides:
                policies = [p + (" (default)" if p == side.default_policy else "") for p in side.policies]
                _lines(console, f"side {side.name}: {', '.join(policies)}", INDENT, 2 * INDENT)
        else:
            policies = [p + (" (default)" if p == game.default_policy else "") for p in game.policies]
            _lines(console, f"policies: {', '.join(policies)}", INDENT, 2 * INDENT)
        options = [f.name for f in dataclasses.fields(game.options_type)]
        _lines(console, f"rule options: {', '.join(options)}", INDENT, 2 * INDENT)
    console.print()
    _lines(console, f"Every option and policy of a game in full: cursedsim list GAME ({', '.join(list_games())})", 0)


@command("list")
@click.argument("game", required=False)
def list_command(game):
    """The games (policies, rule options); with GAME, that game's every rule option and policy in full."""
    console = make_console()
    if game is None:
        overview(console)
        return
    from cursedsim.runner import resolve_game
    describe_game(console, resolve_game(game))
