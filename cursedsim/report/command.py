"""``cursedsim report GAME --out DIR``: the balance report as a click command (registered in cursedsim/cli/).

Bad input raises a ``CursedsimError``; the CLI's ``main`` prints it as one line
``cursedsim: error: ...`` and exits with status 2, as for every other command.
"""

from __future__ import annotations

import click

from cursedsim.errors import CursedsimError
from cursedsim.report import DEFAULT_GAMES, DEFAULT_JOBS, DEFAULT_SEED


@click.command("report")
@click.argument("game")
@click.option("--out", required=True, type=click.Path(), metavar="DIR",
              help="Folder of the report: report.md, report.html, figures/, tables/, resumable runs/.")
@click.option("--games", "n_games", type=int, default=DEFAULT_GAMES, show_default=True,
              help="Games per cell (one policy with one setting: seals, a parameter or a rule option).")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="The seed of every run.")
@click.option("--jobs", "n_jobs", type=int, default=DEFAULT_JOBS, show_default=True,
              help="Worker processes (-1: all cores).")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
def report_command(game, out, n_games, seed, n_jobs, no_progress):
    """Simulate GAME's balance report and write it (Markdown and self-contained HTML) into --out."""
    from cursedsim.console import make_console
    from cursedsim.report import report

    _check_input(game, out, n_games, seed, n_jobs)
    console = make_console()

    def log(message: str) -> None:
        if not no_progress:
            click.echo(f"report: {message}", err=True)

    result = report(game, out, n_games=n_games, seed=seed, n_jobs=n_jobs,
                    progress=False if no_progress else None, log=log)
    console.print(summary_table(result))
    for figure in result.figures:
        console.print(f"[bold]{figure.title}[/bold]: {figure.reading}", highlight=False)
    click.echo(f"wrote {result.html} and {result.markdown} ({len(result.figures)} figures, "
               f"{result.data.games_played:,} games) in {result.seconds:.0f} s", err=True)


def _check_input(game: str, out: str, n_games: int, seed: int, n_jobs: int) -> None:
    """Everything the report needs, checked before it writes anything: the game has a report, the
    settings are valid, its runs fit in memory (a paired comparison holds up to four frames) and a
    report can be written into ``out`` (a folder, not a file; created and writable)."""
    import os

    from cursedsim import runner
    from cursedsim.report.data import ReportError, check_settings
    from cursedsim.report.registry import report_for
    from cursedsim.rundir import check_out, check_output_file

    report_for(game)
    check_settings(n_games, seed, n_jobs)
    runner.check_memory(runner.resolve_game(game), n_games, copies=4, what="the report's runs")
    try:
        out = check_out(out, "--out")
    except CursedsimError as error:
        raise ReportError(str(error)) from None
    check_output_file(os.path.join(out, "report.md"), "--out")


def summary_table(result):
    """The summary of a report as a rich table (its game's compact ``summary_text``)."""
    from rich.table import Table

    from cursedsim.report.registry import report_for

    text = report_for(result.game).summary_text(result.data, compact=True)
    table = Table(*text["columns"], title=text["title"], caption=text["note"], caption_justify="left")
    for column in table.columns[text["labels"]:]:
        column.justify = "right"
    for row in text["rows"]:
        table.add_row(*row)
    return table


__all__ = ["report_command", "summary_table"]
