"""``cursedsim report GAME --out DIR``: the balance report (Markdown and self-contained HTML), with its
recommendations, summary and readings printed on the terminal.

Bad input raises a ``CursedsimError``; ``main`` prints it as one line ``cursedsim: error: ...`` and exits
with status 2, as for every other command.
"""

from __future__ import annotations

import os

import click

from cursedsim.cli.app import command
from cursedsim.errors import CursedsimError
from cursedsim.report import DEFAULT_GAMES, DEFAULT_JOBS, DEFAULT_SEED, TUNED_DEFAULT


@command("report")
@click.argument("game")
@click.option("--out", required=True, type=click.Path(), metavar="DIR",
              help="Folder of the report: report.md, report.html, figures/, tables/ (and runs/ unless --runs-dir).")
@click.option("--games", "n_games", type=int, default=DEFAULT_GAMES, show_default=True,
              help="Games per cell (one policy with one setting: seals, a parameter or a rule option).")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="The seed of every run.")
@click.option("--jobs", "n_jobs", type=int, default=DEFAULT_JOBS, show_default=True,
              help="Worker processes (-1: all cores).")
@click.option("--runs-dir", type=click.Path(), metavar="DIR", default=None,
              help="Folder of the resumable per-game runs (hundreds of MB at the default games) [default: OUT/runs].")
@click.option("--no-keep-runs", is_flag=True,
              help="Remove the runs once the report is written (a rerun then plays them again).")
@click.option("--policy", "policies", multiple=True, metavar="NAME",
              help="Also play this policy next to the built-in ones (repeatable; NAME or NAME:param=value,...).")
@click.option("--tuned", default=TUNED_DEFAULT, metavar="FILE",
              help="Tuned parameters (`cursedsim tune --out`) played next to the built-in policies; 'none' for "
                   "none [default: results/GAME/tuned.json of the repository, when there is one].")
@click.option("--deck", metavar="FILE", default=None,
              help="A deck file (TOML or JSON) every run plays instead of the default deck; only the gifts report "
                   "takes one.")
@click.option("--board", metavar="FILE", default=None,
              help="A board file (TOML or JSON) every run plays instead of the reconstructed default board; only "
                   "the village report takes one.")
@click.option("--search-games", type=int, default=None, metavar="N",
              help="Games per contender of the skill-ceiling section (ISMCTS is slow; 0: no section) "
                   "[default: one per 1,000 --games, at most 100].")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def report_command(game, out, n_games, seed, n_jobs, runs_dir, no_keep_runs, policies, tuned, deck, board,
                   search_games, no_progress):
    """Simulate GAME's balance report and write it (Markdown and self-contained HTML) into --out."""
    from cursedsim.console import make_console
    from cursedsim.report import report

    tuned = None if tuned.strip().lower() == "none" else tuned
    _check_input(game, out, n_games, seed, n_jobs, runs_dir, deck, board)
    console = make_console()

    def log(message: str) -> None:
        if not no_progress:
            click.echo(f"report: {message}", err=True)

    result = report(game, out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=False if no_progress else None,
                    log=log, runs_dir=runs_dir, keep_runs=not no_keep_runs, policies=policies, tuned=tuned,
                    deck=deck, board=board, search_games=search_games)
    recommendations = recommendations_table(result)
    if recommendations is not None:
        console.print(recommendations)
    console.print(summary_table(result))
    for figure in result.figures:
        console.print(f"[bold]{figure.title}[/bold]: {figure.reading}", highlight=False)
    runs = f"runs in {result.runs_dir}" if result.runs_dir else "runs removed"
    click.echo(f"wrote {result.html} and {result.markdown} ({len(result.figures)} figures, "
               f"{result.data.games_played:,} games; {runs}) in {result.seconds:.0f} s", err=True)


def _check_input(game: str, out: str, n_games: int, seed: int, n_jobs: int, runs_dir: str | None,
                 deck: str | None = None, board: str | None = None) -> None:
    """Everything the report needs, checked before it writes anything: the game has a report, the deck
    or board file (if any) is one its game takes (the validator's one-line error naming field and line), the
    settings are valid, its runs fit in memory (a paired comparison holds up to four frames) and a
    report can be written into ``out`` (a folder, not a file; created and writable), with its runs in
    ``runs_dir`` (a folder apart from the report's files)."""
    from cursedsim import runner
    from cursedsim.report.data import ReportError, check_settings, report_board, report_deck, runs_folder
    from cursedsim.report.registry import report_for
    from cursedsim.rundir import check_out, check_output_file

    report_for(game)
    report_deck(runner.resolve_game(game), deck)
    report_board(runner.resolve_game(game), board)
    check_settings(n_games, seed, n_jobs)
    runner.check_memory(runner.resolve_game(game), n_games, copies=4, what="the report's runs")
    try:
        out = check_out(out, "--out")
        if runs_dir is not None:
            runs_folder(out, check_out(runs_dir, "--runs-dir"))
    except CursedsimError as error:
        raise ReportError(str(error)) from None
    check_output_file(os.path.join(out, "report.md"), "--out")


def _rich_table(text: dict):
    """A game's text table (``summary_text`` / ``recommendations``) as a rich table."""
    from rich.table import Table
    table = Table(*text["columns"], title=text["title"], caption=text["note"], caption_justify="left")
    for column in table.columns[text["labels"]:]:
        column.justify = "right"
    for row in text["rows"]:
        table.add_row(*row)
    return table


def summary_table(result):
    """The summary of a report as a rich table (its game's compact ``summary_text``)."""
    from cursedsim.report.registry import report_for
    return _rich_table(report_for(result.game).summary_text(result.data, compact=True))


def recommendations_table(result):
    """The recommendations of a report as a rich table, or None when its game has none."""
    from cursedsim.report.registry import report_for
    make = report_for(result.game).recommendations
    text = make(result.data) if make else None
    return _rich_table(text) if text else None


__all__ = ["recommendations_table", "report_command", "summary_table"]
