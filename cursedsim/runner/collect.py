"""The runner's collection: every chunk's outcome arrays checked and gathered into the run's frame (one row
per game, smallest dtypes, categoricals) or folded into a ``streaming.RunSummary`` as they arrive; the
frames of several runs joined into one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.errors import RunError
from cursedsim.games import Game
from cursedsim.resolve import is_int, policy_label, win_columns
from cursedsim.sides import frame_columns
from cursedsim.streaming import RunSummary

# ---------------------------------------------------------------- frames

def _int_dtype(value: int) -> np.dtype:
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        if info.min <= value <= info.max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)


def _constant_column(value: Any, n: int):
    """A column of ``n`` copies of ``value``: bool, smallest int, float64 or categorical."""
    if isinstance(value, (bool, np.bool_)):
        return np.full(n, bool(value), dtype=bool)
    if is_int(value):
        return np.full(n, value, dtype=_int_dtype(int(value)))
    if isinstance(value, (float, np.floating)):
        return np.full(n, value, dtype=np.float64)
    if value is None:
        return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), categories=[])
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[str(value)])


def build_frame(game: Game, outcomes: Mapping[str, np.ndarray], *, seed: int, players: int, policy: Any,
                option_columns: Mapping[str, Any], params: Mapping[str, Any] | None = None,
                first_game: int = 0) -> pd.DataFrame:
    """The outcome frame of a run from its concatenated outcome arrays (games first_game.., in order).
    A game of sides gets ``policy`` and ``params`` by side (``resolve_sides``): the ``policy`` label,
    ``policy_<side>`` and ``param_<side>_<name>`` columns (``sides.frame_columns``)."""
    n = len(outcomes[game.outcome_columns[0]])
    columns: dict[str, Any] = {
        "game": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[game.name]),
        "seed": np.full(n, seed, dtype=np.uint64),
        "game_index": np.arange(first_game, first_game + n, dtype=np.int64),
        "players": np.full(n, players, dtype=np.int8),
    }
    if game.sides:
        sided = frame_columns(game, policy, params or {}, n)
        parameters = {name: sided.pop(name) for name in list(sided) if name.startswith("param_")}
        columns.update(sided)
    else:
        columns["policy"] = pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[policy])
        parameters = {f"param_{name}": np.full(n, value, dtype=np.float64) for name, value in (params or {}).items()}
    for name, value in option_columns.items():
        columns[name] = _constant_column(value, n)
    columns.update(parameters)
    for name in game.outcome_columns:
        values = outcomes[name]
        if name in game.outcome_categories:
            # codes 0..n-1 name the categories; -1 is a missing value (NaN), anything else an error
            categories = list(game.outcome_categories[name])
            codes = np.asarray(values)
            if codes.size and (codes.min() < -1 or codes.max() >= len(categories)):
                raise RunError(f"{game.name} returned codes outside 0-{len(categories) - 1} "
                               f"in outcome column {name!r} (-1 marks a missing value)")
            values = pd.Categorical.from_codes(codes, categories=categories)
        columns[name] = values
    return pd.DataFrame(columns, copy=False)


def concat_frames(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Frames of several runs as one, keeping categorical columns categorical (union of categories);
    columns missing from some runs (e.g. overridden parameters) are NaN there."""
    if len(frames) == 1:
        return frames[0]
    frames = list(frames)
    names = {name for frame in frames for name in frame.columns
             if isinstance(frame[name].dtype, pd.CategoricalDtype)}
    for name in names:
        categories: list = []
        for frame in frames:
            if name in frame.columns:
                categories.extend(c for c in frame[name].cat.categories if c not in categories)
        for i, frame in enumerate(frames):
            if name in frame.columns:
                frames[i] = frame.assign(**{name: frame[name].cat.set_categories(categories)})
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------- chunks of a run

def _check_chunk(game: Game, start: int, stop: int, arrays: Mapping[str, Any]) -> dict[str, np.ndarray]:
    result = {}
    for name in game.outcome_columns:
        if name not in arrays:
            raise RunError(f"{game.name} returned no outcome column {name!r} for games {start}-{stop - 1}")
        values = np.asarray(arrays[name])
        if values.shape != (stop - start,):
            raise RunError(f"{game.name} returned {values.shape} values in column {name!r} "
                           f"for {stop - start} games")
        result[name] = values
    return result


class _Frame:
    """Collects a run's outcome arrays into arrays of the whole run, allocated at the first chunk."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.columns: dict[str, np.ndarray] = {}

    def add(self, start: int, stop: int, arrays: Mapping[str, np.ndarray]) -> None:
        for name in self.run.game.outcome_columns:
            values = arrays[name]
            if name not in self.columns:
                self.columns[name] = np.empty(self.run.n_games, dtype=values.dtype)
            target = self.columns[name]
            if values.dtype != target.dtype:
                raise RunError(f"{self.run.game.name} returned {values.dtype} values in column {name!r} for games "
                               f"{start}-{stop - 1}, {target.dtype} before")
            target[start:stop] = values

    def result(self) -> pd.DataFrame:
        run = self.run
        frame = build_frame(run.game, self.columns, seed=run.seed, players=run.players, policy=run.policy,
                            option_columns=run.option_columns, params=run.overrides, first_game=run.first_game)
        self.columns = {}
        return frame


def _new_summary(run: Any):
    return RunSummary(game=run.game.name, seed=run.seed, players=run.players, policy=policy_label(run.policy),
                      option_columns=dict(run.option_columns), params=dict(run.overrides),
                      win_columns=win_columns(run.game),
                      outcome_columns=tuple(run.game.outcome_columns),
                      categories={k: tuple(v) for k, v in run.game.outcome_categories.items()},
                      measures=tuple(run.game.measures))


class _Summary:
    """Folds a run's chunks into a RunSummary as they arrive."""

    def __init__(self, run: Any) -> None:
        self.summary = _new_summary(run)

    def add(self, start: int, stop: int, arrays: Mapping[str, np.ndarray]) -> None:
        self.summary.add(arrays)

    def result(self):
        return self.summary


__all__ = ["build_frame", "concat_frames"]
