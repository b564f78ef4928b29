"""Balance reports: simulate what a game's report needs, draw its figures, write Markdown and a
self-contained HTML file.

    from cursedsim.report import report
    result = report("verflucht", "results/verflucht/report", n_games=200_000, seed=2026, n_jobs=2)
    result.html, result.markdown, result.figures[0].reading

Shared modules, one job each: ``registry`` (which games have a report, and what a game's report
provides), ``data`` (the resumable run folder ``<out>/runs`` and the runs through ``cursedsim.simulate``
and ``cursedsim.compare.compare``, all with one seed), ``figures`` (``ReportFigure`` and the drawing
helpers), ``content`` (number formats, settings, method and rule options as text), ``writer`` (jinja2
templates in ``templates/``, atomic writes), ``command`` (the ``cursedsim report`` click command).
Each game's report is a package beside them (``verflucht/``, ``cursed/``: its plan and tables, its
figures with their readings, its summary and settings), found through ``registry.REPORTS``.
Importing this package stays light: the heavy modules load when a report is made.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # pragma: no cover
    import pandas as pd

    from cursedsim.report.data import ReportData
    from cursedsim.report.figures import ReportFigure

#: Games per cell of the default reports: a few minutes on 2 cores (Verflucht!: 135 runs, 27 million
#: games; Cursed!?: 85 runs, 17 million games).
DEFAULT_GAMES = 200_000
#: The default seed (the seal experiment's, so figure 1 matches results/verflucht/seals.csv).
DEFAULT_SEED = 2026
#: Worker processes by default: every core.
DEFAULT_JOBS = -1


@dataclass
class Report:
    """A written report of ``game``: its folder and files, the figures with their readings, the summary
    table (numbers), the data behind the figures and the seconds it took."""

    game: str
    out: str
    markdown: str
    html: str
    figures: list[ReportFigure]
    summary: pd.DataFrame
    data: ReportData
    seconds: float

    @property
    def readings(self) -> dict[str, str]:
        return {figure.name: figure.reading for figure in self.figures}


def report(game: str, out: str | os.PathLike, *, n_games: int = DEFAULT_GAMES, seed: int = DEFAULT_SEED,
           n_jobs: int = DEFAULT_JOBS, progress: bool | None = None,
           log: Callable[[str], Any] | None = None, command: str | None = None) -> Report:
    """Simulate, draw and write the balance report of ``game`` into the folder ``out``.

    ``n_games`` games per cell (every policy x setting the game's report varies), all with
    ``seed``; ``n_jobs`` worker processes (-1: every core); ``progress``: progress bars as in
    ``simulate`` (None: for long runs on a terminal); ``log``: called with a line per stage. Runs are
    checkpointed under ``out/runs`` (rerunning resumes; runs of other settings or sources are
    replaced). Writes ``report.md``, ``report.html``, ``figures/*.png`` and ``tables/*.csv``.
    """
    from cursedsim.report import data, figures, writer
    from cursedsim.report.registry import report_for
    from cursedsim.errors import RunError
    from cursedsim.rundir import check_out

    started = time.perf_counter()
    game_report = report_for(game)
    data.check_settings(n_games, seed, n_jobs)
    try:
        out = check_out(out, "out")   # a path that is not a file
    except RunError as error:
        raise data.ReportError(str(error)) from None
    os.makedirs(out, exist_ok=True)
    report_data = game_report.collect(out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=progress, log=log)
    (log or (lambda message: None))("figures and documents")
    drawn = figures.make_figures(report_data, game_report.figures)
    command = command or f"cursedsim report {game_report.game} --out {out} --games {n_games} --seed {seed}"
    context = game_report.context(report_data, out=out, command=command)
    written = writer.write_report(out, context, drawn, report_data.tables, game_report.table_notes)
    return Report(game=game_report.game, out=out, markdown=written.markdown, html=written.html, figures=drawn,
                  summary=game_report.summary_table(report_data), data=report_data,
                  seconds=time.perf_counter() - started)


__all__ = ["DEFAULT_GAMES", "DEFAULT_JOBS", "DEFAULT_SEED", "Report", "report"]
