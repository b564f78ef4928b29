"""``--precision`` and ``--max-games`` for simulate, sweep and compare: play every cell until its 95%
half-width is at most P percentage points instead of a fixed ``--games`` (``cursedsim/precision.py``)."""

from __future__ import annotations

import click
from click.core import ParameterSource

from cursedsim.cli.grid import CliError, finite

#: The flags, for ``run_options(extra=...)``; the command receives ``precision`` and ``max_games``.
PRECISION_OPTIONS = (
    click.option("--precision", "precision", metavar="PP", default=None,
                 help="Instead of --games: play each cell in batches until its 95% interval is at most ±PP "
                      "percentage points wide (e.g. 0.1); the table shows the games each took. A game of sides: "
                      "the varied side's win rate (simulate: the first side's)."),
    click.option("--max-games", "max_games", type=int, default=None, metavar="N",
                 help="With --precision: the most games a cell may play (default 100,000,000)."),
)


def checked_precision(precision: str | None, max_games: int | None) -> tuple[float | None, int]:
    """(precision as a fraction or None, max games) from the flags; a CliError for a precision that is
    not a number in (0, 50] points, for --precision together with an explicit --games and for
    --max-games without --precision."""
    from cursedsim import precision as precise
    games_given = click.get_current_context().get_parameter_source("n_games") is ParameterSource.COMMANDLINE
    if precision is None:
        if max_games is not None:
            raise CliError("--max-games limits a run to --precision; without --precision use --games")
        return None, precise.MAX_GAMES
    points = finite(precision, "--precision")
    if not 0 < points <= 50:
        raise CliError(f"--precision takes the 95% half-width in percentage points, above 0 and at most 50 "
                       f"(e.g. 0.1), got {precision}")
    if games_given:
        raise CliError("--precision and --games exclude each other: --precision plays each cell until its 95% "
                       "half-width is PP points, --games a fixed number of games")
    limit = precise.MAX_GAMES if max_games is None else precise.check_max_games(max_games, "--max-games")
    return points / 100, limit


__all__ = ["PRECISION_OPTIONS", "checked_precision"]
