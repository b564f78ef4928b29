"""The steps every research tool (``compare``, ``sweep``, ``target``, ``precision``, ``tune``) takes the
same way around its own cells: check how its runs are played (``check_execution``), check ``out``
(``check_out``), hold its directory (``directory``: locked, marked, refused when another search owns
it), with Dask one cluster for all its runs (``cluster``), and one progress bar over all of them
(``progress``: the first compile reported before it). What differs between the tools (their cells, how
they play them, their table) stays in their modules.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from cursedsim import rundir, runner


@dataclass(frozen=True)
class Execution:
    """How a research tool's runs are played, checked once: ``simulate``'s seed, n_jobs (``workers`` the
    processes it stands for), backend, chunk_size, progress and dask_address."""

    seed: int
    n_jobs: int
    workers: int
    backend: str
    chunk_size: int | None
    progress: bool | None
    dask_address: Any


def check_execution(seed: Any, n_jobs: Any, backend: Any, chunk_size: Any, progress: Any,
                    dask_address: Any) -> Execution:
    """The Execution of a research tool, or the runner's error naming the setting and its valid values."""
    seed = runner.check_seed(seed)
    workers = runner.check_n_jobs(n_jobs)
    backend = runner.check_backend(backend)
    chunk_size = runner.check_chunk_size(chunk_size)
    progress = runner.check_progress(progress)
    dask_address = runner.check_dask_address(dask_address, backend)
    return Execution(seed, n_jobs, workers, backend, chunk_size, progress, dask_address)


def check_out(out: str | os.PathLike | None) -> str | None:
    """``out`` as a checked directory path (``rundir.check_out``), or None."""
    return None if out is None else rundir.check_out(out)


def directory(out: str | None, *, marker: str, config: dict[str, Any], kind: str,
              same: Sequence[str] | None = None, adopt: Callable[[str, list[str]], bool] | None = None
              ) -> contextlib.AbstractContextManager:
    """The tool's directory held while it plays (``rundir.owned_directory``: locked, ``marker`` written
    with ``config``, refused when its keys ``same`` differ); nothing without ``out``."""
    if out is None:
        return contextlib.nullcontext()
    return rundir.owned_directory(out, marker=marker, config=config, kind=kind, same=same, adopt=adopt)


@contextlib.contextmanager
def cluster(execution: Execution, shared: bool = True) -> Iterator[Any]:
    """The ``dask_address`` every run of the tool gets: with backend "dask" and no scheduler given, one
    local cluster for all its runs when ``shared`` (started here, closed on exit); otherwise the
    Execution's own."""
    if shared and execution.backend == "dask" and execution.dask_address is None:
        with runner.dask_client(execution.workers) as client:
            yield client
    else:
        yield execution.dask_address


class Progress:
    """A tool's progress over all its runs: ``describe`` names the run now, ``advance`` counts its games;
    silent (both do nothing) when no bar is shown."""

    def __init__(self, total: int | None, description: str, show: bool) -> None:
        self.shown = show
        self._bar, self._task = runner._progress_bar(total, description) if show else (None, None)

    def describe(self, text: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=text)

    def advance(self, games: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, games)


@contextlib.contextmanager
def progress(setting: bool | None, total: int, description: str, *, counted: bool = True,
             warm_up: Callable[[], Any] | None = None) -> Iterator[Progress]:
    """One bar over a tool's ``total`` games when ``setting`` asks for it (None: on a terminal, for long
    runs), after ``warm_up`` (playing one game of the first run, so that a long first compile is reported
    on its own line, not hidden behind the bar); ``counted=False``: a bar without an end (the total is
    unknown, as a search to a precision)."""
    show = runner._want_progress(setting, total)
    if show and warm_up is not None:
        warm_up()
    bar = Progress(total if counted else None, description, show)
    if bar._bar is not None:
        bar._bar.start()
    try:
        yield bar
    finally:
        if bar._bar is not None:
            bar._bar.stop()


__all__ = ["Execution", "Progress", "check_execution", "check_out", "cluster", "directory", "progress"]
