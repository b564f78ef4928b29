"""What every game's report shares to simulate: the run folder ``<report>/runs`` (resumable, replaced
when the settings or sources change), a :class:`Runs` helper that plays every run of a report through
:func:`cursedsim.simulate` or :func:`cursedsim.compare.compare` with the report's one seed (common
random numbers) and counts them, the fields every report's data has (:class:`ReportData`) and the
paired reductions of one run against another on the same games.

The game-specific plans and tables live in the game's own report package (``report/<game>/data.py``);
only summaries leave them, the per-game frames stay in the run directories.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.errors import CursedsimError, RunError
from cursedsim.files import write_atomic

#: Folder of a report's run directories (per-game Parquet chunks; not committed).
RUNS_DIR = "runs"
#: Marker file in ``runs/``: the settings and sources the runs there were played with.
RUNS_MARKER = "report-runs.json"


class ReportError(CursedsimError):
    """A report that cannot be made: a game without a report, or an unusable output folder."""


@dataclass(kw_only=True)
class ReportData:
    """What every report's data states: the game's ``title``, the settings (``n_games`` per cell,
    ``seed``), the cursedsim ``version`` and the ``code`` digest of the game's sources, the rule
    options' docs and defaults, how many ``runs`` and games were played in how many ``seconds``, and
    ``tables``: the numbers behind every figure by name (written as ``tables/<name>.csv``). A game's
    report extends it with its own tables."""

    title: str
    n_games: int
    seed: int
    version: str
    code: str
    option_docs: dict[str, str]
    option_defaults: dict[str, Any]
    runs: int = 0
    games_played: int = 0
    seconds: float = 0.0
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)


# ---------------------------------------------------------------- run directories

def prepare_runs(out: str, marker: dict[str, Any]) -> str:
    """``out/runs``, emptied when its runs were played with other settings or other sources (they
    could not be resumed), created when missing; refuses a ``runs`` folder it did not make."""
    runs = os.path.join(out, RUNS_DIR)
    path = os.path.join(runs, RUNS_MARKER)
    if os.path.isdir(runs) and os.listdir(runs):
        if not os.path.isfile(path):
            raise ReportError(f"{runs} exists and was not made by a report; choose another --out")
        try:
            with open(path) as f:
                old = json.load(f)
        except (OSError, ValueError):
            old = None
        if old != marker:
            shutil.rmtree(runs)
    os.makedirs(runs, exist_ok=True)
    if not os.path.isfile(path):
        write_atomic(path, json.dumps(marker, indent=1))
    return runs


def check_settings(n_games: int, seed: int, n_jobs: int) -> tuple[int, int]:
    """``(n_games, seed)`` checked as the runner checks them; a report needs 2+ games per cell."""
    from cursedsim.runner import check_n_games, check_n_jobs, check_seed
    n_games = check_n_games(n_games)
    if n_games < 2:
        raise RunError(f"a report needs at least 2 games per cell (paired intervals), got {n_games}")
    seed = check_seed(seed)
    check_n_jobs(n_jobs)
    return n_games, seed


class Runs:
    """The runs of one report: every one plays games ``0 .. n_games-1`` with ``seed`` into a run
    directory under ``out/runs`` (so an interrupted report resumes), and is counted.

    Creating it prepares ``out/runs`` (see :func:`prepare_runs`); check the plan before.
    """

    def __init__(self, game: Any, out: str, *, n_games: int, seed: int, n_jobs: int,
                 progress: bool | None = None, log: Callable[[str], Any] | None = None) -> None:
        from cursedsim import __version__
        from cursedsim.numba_cache import source_digest
        self.game = game
        self.n_games = n_games
        self.seed = seed
        self.n_jobs = n_jobs
        self.progress = progress
        self.log = log or (lambda message: None)
        self.version = __version__
        self.code = source_digest(game.name)
        self.started = time.perf_counter()
        self.count = 0
        self.folder = prepare_runs(out, {"game": game.name, "n_games": n_games, "seed": seed,
                                         "version": __version__, "code": self.code})

    def simulate(self, path: str, **kwargs: Any) -> pd.DataFrame:
        """One run (``simulate``'s keyword arguments: players, policy, params, options) in
        ``runs/<path>``."""
        from cursedsim.runner import simulate
        self.count += 1
        return simulate(self.game, self.n_games, seed=self.seed, n_jobs=self.n_jobs, progress=self.progress,
                        out=os.path.join(self.folder, path), **kwargs)

    def compare(self, path: str, policies: Sequence[Any], **kwargs: Any):
        """``compare.compare`` of ``policies`` on the same games (one run each) in ``runs/<path>``."""
        from cursedsim.compare import compare
        self.count += len(policies)
        return compare(self.game, list(policies), self.n_games, seed=self.seed, n_jobs=self.n_jobs,
                       out=os.path.join(self.folder, path), progress=self.progress, **kwargs)

    def provenance(self) -> dict[str, Any]:
        """The :class:`ReportData` fields of these runs (title, settings, version, sources, option docs
        and defaults, runs, games, seconds so far)."""
        from cursedsim.describe import option_docs
        options = self.game.make_options(None)
        docs = option_docs(self.game.options_type)
        return {"title": self.game.title, "n_games": self.n_games, "seed": self.seed, "version": self.version,
                "code": self.code, "option_docs": docs,
                "option_defaults": {name: getattr(options, name) for name in docs},
                "runs": self.count, "games_played": self.count * self.n_games,
                "seconds": time.perf_counter() - self.started}


# ---------------------------------------------------------------- reductions

def concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The non-empty frames one below the other (an empty frame if none)."""
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def games_changed(alt: pd.DataFrame, default: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Per game: whether any of ``columns`` differs between two runs of the same games (missing
    values of a categorical column count as equal)."""
    changed = np.zeros(len(alt), dtype=bool)
    for column in columns:
        a, d = alt[column], default[column]
        if isinstance(a.dtype, pd.CategoricalDtype) and a.hasnans | d.hasnans:
            a, d = a.astype(object).fillna(""), d.astype(object).fillna("")
        changed |= a.to_numpy() != d.to_numpy()
    return changed


def paired_win_change(alt: pd.DataFrame, default: pd.DataFrame, outcome_columns: Sequence[str]) -> dict[str, Any]:
    """The paired difference alt - default of the win rate on the same games (``paired_difference``'s
    n, diff, se, ci_low, ci_high, p_value), the two rates (``value_default``, ``value_option``) and
    ``games_changed``: the share of games whose outcome columns differ at all."""
    from cursedsim.stats import paired_difference
    win_a = alt["win"].to_numpy()
    win_d = default["win"].to_numpy()
    row = paired_difference(win_a.astype(np.float64), win_d.astype(np.float64))
    row.pop("sd", None)
    return {"measure": "win_rate", "value_default": win_d.mean(), "value_option": win_a.mean(), **row,
            "games_changed": float(games_changed(alt, default, outcome_columns).mean())}


__all__ = ["RUNS_DIR", "RUNS_MARKER", "ReportData", "ReportError", "Runs", "check_settings", "concat",
           "games_changed", "paired_win_change", "prepare_runs"]
