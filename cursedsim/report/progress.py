"""One progress bar for a whole report: "run k of N", the games per second of the runs played so far
and the time left for the rest, instead of one bar per run.

A run found complete in the run folder (resumed) finishes at once: it counts towards k but not towards
the speed, so a resumed report does not promise a finish that the runs still to play cannot keep.
Messages (the report's stages) are printed above the bar while it is shown.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

#: A report of fewer games than this gets no bar by default (it finishes in a second or two).
PROGRESS_MIN_GAMES = 200_000


def want_bar(progress: bool | None, total_games: int) -> bool:
    """Whether to show the bar: ``progress`` when given, else on a terminal for big reports."""
    if progress is None:
        return total_games >= PROGRESS_MIN_GAMES and sys.stderr.isatty()
    return bool(progress)


def clock(seconds: float | None) -> str:
    """``1:02:03`` / ``2:03`` / ``?`` for unknown."""
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ReportProgress:
    """Counts a report's runs and shows them as one bar on stderr (or only passes its messages to
    ``log`` when ``enabled`` is false).

    ``begin(total, n_games)`` once the plan is known; ``run(label, runs, resumed)`` before each run
    (or group of ``runs`` runs played together) and ``done()`` after it; ``message(text)`` for a
    stage line; ``close()`` at the end (also on errors).
    """

    def __init__(self, *, enabled: bool, log: Callable[[str], Any] | None = None) -> None:
        self.enabled = enabled
        self.log = log or (lambda message: None)
        self.total = 0
        self.n_games = 0
        self.finished = 0           # runs done, resumed ones included
        self.played_games = 0       # games of runs actually played
        self.played_seconds = 0.0
        self.resumed_runs = 0
        self._current: tuple[str, int, bool, float] | None = None
        self._bar = None
        self._task = None

    # ---------------------------------------------------------------- counting

    def begin(self, total: int, n_games: int) -> None:
        """The plan: ``total`` runs of ``n_games`` games each."""
        self.total, self.n_games = int(total), int(n_games)
        if self.enabled and self._bar is None:
            self._start_bar()
        self._refresh()

    def run(self, label: str, runs: int = 1, resumed: bool = False) -> None:
        """A run (or ``runs`` runs played together) named ``label`` starts; ``resumed``: all its
        games are already in the run folder."""
        self._current = (label, runs, resumed, time.perf_counter())
        self._refresh()

    def done(self) -> None:
        """The current run finished."""
        if self._current is None:
            return
        label, runs, resumed, started = self._current
        self._current = None
        self.finished += runs
        if resumed:
            self.resumed_runs += runs
        else:
            self.played_games += runs * self.n_games
            self.played_seconds += time.perf_counter() - started
        self._refresh()

    @property
    def rate(self) -> float | None:
        """Games per second of the runs played so far (None before the first)."""
        return self.played_games / self.played_seconds if self.played_seconds > 0 and self.played_games else None

    @property
    def remaining_seconds(self) -> float | None:
        """The time the runs not yet finished take at :attr:`rate` (None while unknown)."""
        rate = self.rate
        if rate is None:
            return None if self.finished < self.total else 0.0
        return max(self.total - self.finished, 0) * self.n_games / rate

    def status(self) -> str:
        """``run k of N: label · 1,234,567 games/s · ETA 2:03``."""
        k = min(self.finished + (1 if self._current else 0), self.total) if self.total else self.finished
        label = f": {self._current[0]}" if self._current else ""
        rate = self.rate
        speed = "? games/s" if rate is None else f"{rate:,.0f} games/s"
        of = f" of {self.total}" if self.total else ""
        return f"run {k}{of}{label} · {speed} · ETA {clock(self.remaining_seconds)}"

    # ---------------------------------------------------------------- output

    def message(self, text: str) -> None:
        """A stage line: above the bar while it is shown, else to ``log``."""
        if self._bar is not None:
            self._bar.console.print(f"report: {text}", highlight=False, markup=False)
        else:
            self.log(text)

    def close(self) -> None:
        """Remove the bar (the last state stays on screen)."""
        if self._bar is not None:
            self._refresh()
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> ReportProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _start_bar(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        self._bar = Progress(TextColumn("report"), BarColumn(), TextColumn("{task.fields[status]}"),
                             TimeElapsedColumn(), console=Console(stderr=True), transient=False)
        self._task = self._bar.add_task("report", total=max(self.total, 1), status="")
        self._bar.start()

    def _refresh(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.finished, total=max(self.total, 1), status=self.status())


__all__ = ["PROGRESS_MIN_GAMES", "ReportProgress", "clock", "want_bar"]
