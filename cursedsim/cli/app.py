"""The ``cursedsim`` click group, the ``command`` decorator every command module registers with, and
``main``: every user error becomes one line ``cursedsim: error: <message>`` on stderr and exit status 2."""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable

import click

from cursedsim.version import __version__
from cursedsim.cli.plugin_option import plugin_option
from cursedsim.errors import CursedsimError, clip

PROG = "cursedsim"

#: Options every command takes, as factories of ``click.Option`` (e.g. an eager ``--plugin`` with
#: ``expose_value=False`` and a callback): ``command`` and ``add_command`` add them to each command.
COMMON_OPTIONS: list[Callable[[], click.Parameter]] = [plugin_option]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG, message="%(prog)s %(version)s")
def cli():
    """Monte-Carlo simulation of tabletop games: seeded, parallel, resumable."""


def add_command(command: click.Command, name: str | None = None) -> click.Command:
    """Register ``command`` on the ``cursedsim`` group, with the COMMON_OPTIONS."""
    command.params.extend(option() for option in COMMON_OPTIONS)
    cli.add_command(command, name)
    return command


def command(name: str) -> Callable[[Callable], click.Command]:
    """``@command("simulate")``: the function as a ``cursedsim`` subcommand (with the COMMON_OPTIONS)."""
    def register(function: Callable) -> click.Command:
        return add_command(click.command(name)(function))
    return register


def fail(message: str) -> typing.NoReturn:
    """``message`` as one line ``cursedsim: error: ...`` on stderr; exit status 2."""
    click.echo(f"{PROG}: error: {' '.join(clip(str(message)).split())}", err=True)
    sys.exit(2)


def main(args: list[str] | None = None, prog_name: str = PROG) -> None:
    """Entry point: run the CLI; every user error becomes one line on stderr and exit status 2."""
    try:
        cli.main(args=args, prog_name=prog_name, standalone_mode=False)
    except CursedsimError as error:
        fail(str(error))
    except click.exceptions.NoArgsIsHelpError as error:   # bare ``cursedsim``: the help
        click.echo(error.format_message())
    except click.exceptions.NoSuchOption as error:
        fail(f"{error.format_message()} (see {prog_name} {_command_name(error)}--help)")
    except click.UsageError as error:
        message = error.format_message()
        if isinstance(error, click.MissingParameter) and error.param is not None and error.param.name == "game":
            from cursedsim.games import list_games
            message += f" Valid games: {', '.join(list_games())}."
        elif "No such command" in message:
            message += f" Valid commands: {', '.join(sorted(cli.commands))}."
        fail(message)
    except click.exceptions.Abort:
        click.echo(f"{PROG}: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as error:
        fail(error.format_message())
    except OSError as error:   # e.g. a disk that filled up mid-run: no traceback either
        where = f": {error.filename}" if error.filename else ""
        fail(f"{error.strerror or error}{where}")
    except MemoryError:
        fail("out of memory; use fewer games per cell or --summary-only")
    except KeyboardInterrupt:
        click.echo(f"{PROG}: interrupted", err=True)
        sys.exit(130)


def _command_name(error: click.UsageError) -> str:
    """``"simulate "`` for an error inside a subcommand, ``""`` for one of the group itself."""
    ctx = error.ctx
    return f"{ctx.info_name} " if ctx is not None and ctx.parent is not None else ""


#: ``main.add_command(command)`` registers a click command on the ``cursedsim`` group (for commands
#: defined in other modules, e.g. the report command).
main.add_command = add_command   # type: ignore[attr-defined]


__all__ = ["COMMON_OPTIONS", "PROG", "add_command", "cli", "command", "fail", "main"]
