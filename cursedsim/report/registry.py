"""Which games have a balance report, and what a game's report provides (:class:`GameReport`).

A game's report is a package ``cursedsim/report/<game>/`` (``data.py``: its plan and ``collect``;
``figures.py``: its figures; ``content.py``: summary, settings and table notes) whose ``__init__``
defines ``REPORT``. The game's ``Game`` record names that package (``report_module``); it is imported only
when its report is made. ``REPORTS`` (game -> package, in the registry's order) is read from the records.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cursedsim.errors import UnknownGameError
from cursedsim.games import get_game, list_games
from cursedsim.report.data import ReportData, ReportError
from cursedsim.report.figures import ReportFigure

class UnknownReportGameError(ReportError, UnknownGameError):
    """A report asked for a game that does not exist: a ReportError and an UnknownGameError."""


@dataclass(frozen=True)
class GameReport:
    """One game's report.

    collect: ``(out, *, n_games, seed, n_jobs, progress, log, choices) -> ReportData``: checks the
        settings, plays every run through ``data.Runs`` (resumable run folder, one progress bar;
        ``choices``: a ``data.ReportChoices`` with the run folder, added policies, tuned file) and
        reduces them to the data's tables;
    figures: the figure functions, in order (data -> ReportFigure, each with its reading);
    context: ``(data, *, out, command) -> dict``: the template variables besides the figures;
    summary_table: ``data -> DataFrame``: the summary as numbers (``Report.summary``);
    summary_text: ``(data, *, compact) -> dict``: the summary as text (heading, title, columns, rows,
        labels, note), for the documents and (compact) the terminal;
    table_notes: what each CSV table of ``data.tables`` holds;
    ceiling: ``() -> CeilingPlan`` of the skill-ceiling section (``report/ceiling.py``) or None;
    recommendations: ``data -> dict | None``: the answers a designer acts on, shown first in the report
        and on the terminal, as text like ``summary_text`` (heading, title, columns, rows, labels, note);
        None: the report has no such section.
    """

    game: str
    collect: Callable[..., ReportData]
    figures: Sequence[Callable[[Any], ReportFigure]]
    context: Callable[..., dict[str, Any]]
    summary_table: Callable[[Any], Any]
    summary_text: Callable[..., dict[str, Any]]
    table_notes: Mapping[str, str]
    recommendations: Callable[[Any], dict[str, Any] | None] | None = None
    #: ``() -> ceiling.CeilingPlan``: the settings of the skill-ceiling section (None: the report has none).
    ceiling: Callable[[], Any] | None = None


def _reports() -> dict[str, str]:
    """Game name -> the package defining its ``REPORT``, for every registered game whose record names one."""
    return {name: module for name in list_games() if (module := get_game(name).report_module) is not None}


def __getattr__(name: str) -> Any:
    if name == "REPORTS":   # read from the records on each use, so a game registered later is in
        return _reports()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def report_games() -> tuple[str, ...]:
    """The games that have a balance report."""
    return tuple(_reports())


def report_for(game: Any) -> GameReport:
    """The report of ``game`` (a name, alias or Game); a ReportError naming the games that have one
    for an unknown game or a game without a report."""
    from cursedsim.runner import resolve_game
    try:
        record = resolve_game(game)
    except UnknownGameError as error:
        raise UnknownReportGameError(f"{error}; reports exist for: {', '.join(_reports())}") from None
    if record.report_module is None:
        raise ReportError(f"there is no balance report for {record.name!r} yet; reports exist for: "
                          f"{', '.join(_reports())}")
    return importlib.import_module(record.report_module).REPORT


__all__ = ["REPORTS", "GameReport", "UnknownReportGameError", "report_for", "report_games"]
