"""The streaming summary of a run (``simulate(..., summary_only=True)``): every chunk's outcome arrays are
folded into counts, sums and sums of squares (over all games and over won games) and histograms as they
arrive, then dropped, so memory does not grow with the run: 10^8 games fit in a few hundred MB.

Bools and integers of up to 16 bits (every outcome of the built-in games) are summed exactly in Python
integers, and ``stats.summarize`` averages the same dtypes from exact sums with the same formulas
(``stats.mean_from_sums``, ``stats.se_from_sums``), so ``RunSummary.summarize()`` equals
``stats.summarize(frame)`` of the full frame number for number. Wider integers and floats are summed in
floating point (equal up to rounding). Histograms (value -> games, over all games and over won games) are
kept for bools, categorical codes and integer columns with at most ``MAX_HISTOGRAM`` distinct values.

A game of sides has no ``win`` column: every side's win column is an outcome column (so its wins are
kept exactly, like any bool), and "won games" (of the won-only moments) are those of ``win_column``, the
first side's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.errors import CursedsimError
from cursedsim.stats import is_exact, mean_from_sums, se_from_sums, wilson_interval

#: A histogram is dropped once a column shows more distinct values than this.
MAX_HISTOGRAM = 10_000
#: Integer columns spanning at most this many values are counted with ``np.bincount``.
_BINCOUNT_SPAN = 1 << 16


@dataclass
class _Moments:
    """Count, sum and sum of squares of one column over a set of games (Python ints when exact)."""

    count: int = 0
    total: Any = 0
    squares: Any = 0

    def add(self, values: np.ndarray, exact: bool) -> None:
        self.count += int(values.size)
        if not values.size:
            return
        if exact:
            wide = values.astype(np.int64)
            self.total += int(wide.sum())
            self.squares += int((wide * wide).sum())
        else:
            wide = values.astype(np.float64)
            self.total += float(wide.sum())
            self.squares += float((wide * wide).sum())

    def mean(self) -> float:
        return mean_from_sums(self.count, self.total) if isinstance(self.total, int) else \
            (self.total / self.count if self.count else math.nan)

    def se(self) -> float:
        if isinstance(self.total, int) and isinstance(self.squares, int):
            return se_from_sums(self.count, self.total, self.squares)
        if self.count < 2:
            return math.nan
        variance = max(self.squares - self.total * self.total / self.count, 0.0) / (self.count - 1)
        return math.sqrt(variance / self.count)


def _histogram(values: np.ndarray) -> dict[int, int]:
    if not values.size:
        return {}
    values = values.astype(np.int64, copy=False)
    low, high = int(values.min()), int(values.max())
    if high - low < _BINCOUNT_SPAN:
        counts = np.bincount(values - low)
        present = np.flatnonzero(counts)
        return {int(v) + low: int(c) for v, c in zip(present, counts[present])}
    unique, counts = np.unique(values, return_counts=True)
    return {int(v): int(c) for v, c in zip(unique, counts)}


@dataclass
class ColumnSummary:
    """What is kept of one outcome column: ``kind`` ("bool", "int", "float" or "category"), moments over
    all games and over won games, and histograms (None once dropped)."""

    kind: str
    exact: bool
    all: _Moments = field(default_factory=_Moments)
    won: _Moments = field(default_factory=_Moments)
    histogram: dict[int, int] | None = field(default_factory=dict)
    won_histogram: dict[int, int] | None = field(default_factory=dict)

    def add(self, values: np.ndarray, win: np.ndarray) -> None:
        won_values = values[win]
        if self.kind != "category":
            self.all.add(values, self.exact)
            self.won.add(won_values, self.exact)
        if self.histogram is not None:
            for target, part in (("histogram", values), ("won_histogram", won_values)):
                merged = getattr(self, target)
                for value, count in _histogram(part).items():
                    merged[value] = merged.get(value, 0) + count
            if len(self.histogram) > MAX_HISTOGRAM:
                self.histogram = self.won_histogram = None


def _kind(dtype: np.dtype, categorical: bool) -> str:
    if categorical:
        return "category"
    if dtype.kind == "b":
        return "bool"
    return "int" if dtype.kind in "iu" else "float"


@dataclass
class RunSummary:
    """The summary of a run played with ``summary_only=True``: its settings, the number of games ``n``
    and, per outcome column, the moments and histograms of ``ColumnSummary``.

    ``summarize()`` is ``stats.summarize`` of the run's frame (one row); ``histogram(column)`` the games
    per value; ``mean(column)`` the mean over all games (or won games). ``win_columns``: side -> win
    column for a game of sides (empty otherwise); ``wins_of(side)`` counts a side's wins.
    """

    game: str
    seed: int
    players: int
    policy: str
    option_columns: dict[str, Any]
    params: dict[str, float]
    outcome_columns: tuple[str, ...]
    categories: dict[str, tuple[str, ...]]
    measures: tuple[Any, ...] = ()
    n: int = 0
    columns: dict[str, ColumnSummary] = field(default_factory=dict)
    win_columns: dict[str, str] = field(default_factory=dict)

    @property
    def win_column(self) -> str:
        """The column whose won games the won-only moments are over: ``win``, or the first side's."""
        return next(iter(self.win_columns.values()), "win")

    # ---------------------------------------------------------------- folding chunks in

    def add(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Fold one chunk's outcome arrays (a mapping column -> array, ``win_column`` among them) in."""
        win = np.asarray(arrays[self.win_column]).astype(bool, copy=False)
        for name in self.outcome_columns:
            values = np.asarray(arrays[name])
            column = self.columns.get(name)
            if column is None:
                kind = _kind(values.dtype, name in self.categories)
                column = self.columns[name] = ColumnSummary(kind, is_exact(values.dtype))
                if kind == "float":
                    column.histogram = column.won_histogram = None
            column.add(values, win)
        self.n += int(win.size)

    def merge(self, other: RunSummary) -> RunSummary:
        """Fold the summary of another run of the same settings in (e.g. the next games of the run, played
        with ``first_game``): counts, sums and histograms add, as if its chunks had been added here."""
        if (other.game, other.seed, other.players, other.policy) != (self.game, self.seed, self.players, self.policy):
            raise CursedsimError(f"cannot merge {other!r} into {self!r}: the runs' settings differ")
        for name, theirs in other.columns.items():
            mine = self.columns.get(name)
            if mine is None:
                mine = self.columns[name] = ColumnSummary(theirs.kind, theirs.exact)
            for part in ("all", "won"):
                a, b = getattr(mine, part), getattr(theirs, part)
                setattr(mine, part, _Moments(a.count + b.count, a.total + b.total, a.squares + b.squares))
            if mine.histogram is None or theirs.histogram is None:
                mine.histogram = mine.won_histogram = None
                continue
            for target in ("histogram", "won_histogram"):
                merged = getattr(mine, target)
                for value, count in getattr(theirs, target).items():
                    merged[value] = merged.get(value, 0) + count
            if len(mine.histogram) > MAX_HISTOGRAM:
                mine.histogram = mine.won_histogram = None
        self.n += other.n
        return self

    # ---------------------------------------------------------------- reading it

    @property
    def wins(self) -> int:
        """The games won (a game of sides: by the first side)."""
        return self.wins_in(self.win_column)

    def wins_in(self, column: str) -> int:
        """The games whose boolean outcome ``column`` is true (0 before any game)."""
        return self.columns[column].all.total if column in self.columns else 0

    def wins_of(self, side: str) -> int:
        """The games ``side`` won (a game of sides); a CursedsimError naming the sides otherwise."""
        if side not in self.win_columns:
            raise CursedsimError(f"no side {side!r} in the summary; sides: {', '.join(self.win_columns) or 'none'}")
        return self.wins_in(self.win_columns[side])

    def _column(self, name: str) -> ColumnSummary:
        if name not in self.columns:
            raise CursedsimError(f"no column {name!r} in the summary; columns: {', '.join(self.columns)}")
        return self.columns[name]

    def mean(self, column: str, won_only: bool = False) -> float:
        """The mean of an outcome column over all games (or the won ones); NaN without games."""
        summary = self._column(column)
        if summary.kind == "category":
            raise CursedsimError(f"column {column!r} is categorical: use histogram({column!r})")
        return (summary.won if won_only else summary.all).mean()

    def histogram(self, column: str, won_only: bool = False) -> pd.Series:
        """Games per value of an outcome column (category names for categorical columns, NaN for a
        missing code), in value order."""
        summary = self._column(column)
        counts = summary.won_histogram if won_only else summary.histogram
        if counts is None:
            raise CursedsimError(f"column {column!r} has too many distinct values for a histogram "
                                 f"(more than {MAX_HISTOGRAM:,})")
        keys = sorted(counts)
        if summary.kind == "category":
            names = self.categories[column]
            index = [names[k] if 0 <= k < len(names) else np.nan for k in keys]
        elif summary.kind == "bool":
            index = [bool(k) for k in keys]
        else:
            index = keys
        return pd.Series([counts[k] for k in keys], index=pd.Index(index, name=column), name="games",
                         dtype=np.int64)

    def summarize(self, measures: Sequence[Any] | None = None, *, score: str | None = "score",
                  turns: str | None = "turns", alpha: float = 0.05, win: str | None = None,
                  sides: Mapping[str, str] | None = None) -> pd.DataFrame:
        """``stats.summarize(frame, measures=..., win=..., sides=...)`` of the run's frame, without the
        frame: one row with n, wins, win_rate, ci_low, ci_high (of ``win``, default ``win_column``), per
        side in ``sides`` its ``<side>_wins``, ``<side>_win_rate``, ``<side>_ci_low``, ``<side>_ci_high``,
        and the measures (default: the game's). Won-only measures are over ``win_column``'s won games."""
        from cursedsim.games.base import Measure
        from cursedsim.stats import side_rates
        win = self.win_column if win is None else win
        measures = list(self.measures if measures is None else measures)
        covered = {measure.column for measure in measures}
        if score is not None and score in self.columns and score not in covered:
            measures.append(Measure(score, "", won_only=True, se=True))
        if turns is not None and turns in self.columns and turns not in covered:
            measures.append(Measure(turns, ""))
        for column in [win, *(sides or {}).values()]:
            if column not in self.outcome_columns:
                raise CursedsimError(f"no column {column!r} in the summary; columns: {', '.join(self.outcome_columns)}")
        wins = self.wins_in(win)
        low, high = wilson_interval(wins, self.n, alpha)
        row: dict[str, Any] = {"n": self.n, "wins": wins, "win_rate": wins / self.n if self.n else math.nan,
                               "ci_low": low, "ci_high": high}
        for side, column in (sides or {}).items():
            row.update(side_rates(side, self.wins_in(column), self.n, alpha))
        for measure in measures:
            if measure.won_only and win != self.win_column:
                raise CursedsimError(f"won-only measure {measure.column!r} is kept over the games "
                                     f"{self.win_column!r} won, not {win!r}")
            summary = self._column(measure.column)
            moments = summary.won if measure.won_only else summary.all
            row[f"mean_{measure.column}"] = moments.mean()
            if measure.se:
                row[f"{measure.column}_se"] = moments.se()
        frame = pd.DataFrame([row])
        return frame.astype({"n": np.int64, "wins": np.int64, **{f"{side}_wins": np.int64 for side in sides or {}}})

    # ---------------------------------------------------------------- storing it

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (``from_dict`` reads it back)."""
        def moments(m: _Moments) -> list:
            return [m.count, m.total, m.squares]

        def hist(h: dict[int, int] | None) -> list | None:
            return None if h is None else [[k, v] for k, v in sorted(h.items())]

        return {"n": self.n, "columns": {
            name: {"kind": c.kind, "exact": c.exact, "all": moments(c.all), "won": moments(c.won),
                   "histogram": hist(c.histogram), "won_histogram": hist(c.won_histogram)}
            for name, c in self.columns.items()}}

    def load(self, data: Mapping[str, Any]) -> RunSummary:
        """Fill this summary from ``to_dict``'s output (its settings come from the run)."""
        self.n = int(data["n"])
        self.columns = {}
        for name, c in data["columns"].items():
            column = ColumnSummary(c["kind"], bool(c["exact"]), _Moments(*c["all"]), _Moments(*c["won"]),
                                   None if c["histogram"] is None else {int(k): int(v) for k, v in c["histogram"]},
                                   None if c["won_histogram"] is None else
                                   {int(k): int(v) for k, v in c["won_histogram"]})
            self.columns[name] = column
        return self

    def __repr__(self) -> str:
        rate = self.wins / self.n if self.n else math.nan
        sides = "".join(f", {side} win rate {self.wins_of(side) / self.n if self.n else math.nan:.4f}"
                        for side in self.win_columns)
        won = sides or f", win rate {rate:.4f}"
        return f"RunSummary({self.game}, {self.players} players, {self.policy}, seed {self.seed}: {self.n:,} games{won})"


__all__ = ["ColumnSummary", "MAX_HISTOGRAM", "RunSummary"]
