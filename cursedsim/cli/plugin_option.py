"""``--plugin SOURCE``, an option of every command: loads plugins (``cursedsim.plugins.load_plugin``)
before anything else is parsed, so that ``--policy`` names their policies."""

from __future__ import annotations

import click


def _load(ctx: click.Context, param: click.Parameter, sources: tuple[str, ...]) -> None:
    from cursedsim.plugins import load_plugin

    for source in sources:
        load_plugin(source)


def plugin_option() -> click.Option:
    """A new ``--plugin`` option (each command needs its own): eager and repeatable, its value not passed
    on to the command."""
    return click.Option(["--plugin"], multiple=True, metavar="MODULE", is_eager=True, expose_value=False,
                        callback=_load,
                        help="Load a plugin that registers policies: a module name or a path to a .py file "
                             "(docs/extending.md). Repeatable.")


__all__ = ["plugin_option"]
