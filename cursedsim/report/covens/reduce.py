"""The Curses & Covens report's reductions: per-game frames in, small tidy rows out (win rates with
Wilson intervals, paired differences on the same games, win types, game lengths, spells cast). Pure
functions of numpy arrays and frames, so the report, the experiment script and the tests share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

#: The outcome columns a report run keeps (the rest of the frame is dropped as soon as it is read).
KEPT = ("hunter_won", "town_won", "win_type", "rounds", "witches_captured", "fake_witch_caught",
        "rituals_taken", "cards_left", "picks")


def towns(players: int) -> int:
    """Town Players at ``players`` players (one seat is the Witch Hunter)."""
    return players - 1


def rate(wins: np.ndarray) -> dict[str, float]:
    """n, wins, rate and its Wilson 95% interval (``ci_low``, ``ci_high``) of a boolean array."""
    from cursedsim.stats import wilson_interval
    n, k = len(wins), int(np.count_nonzero(wins))
    low, high = wilson_interval(k, n)
    return {"n": n, "wins": k, "rate": k / n, "ci_low": low, "ci_high": high}


def paired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """The paired difference a - b (same games) of two arrays: diff, se, ci_low, ci_high, p_value."""
    from cursedsim.stats import paired_difference
    d = paired_difference(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return {key: d[key] for key in ("diff", "se", "ci_low", "ci_high", "p_value")}


def changed(a: pd.DataFrame, b: pd.DataFrame, columns: Sequence[str] = KEPT) -> float:
    """The share of games whose outcome (any of ``columns``) differs between two runs of the same games."""
    from cursedsim.report.data import games_changed
    return float(games_changed(a, b, [c for c in columns if c in a and c in b]).mean())


def cell_row(frame: pd.DataFrame, players: int, hunter: str, town: str) -> dict[str, Any]:
    """One cell of the policy matrix: the hunter's and the town's win rates with Wilson intervals, the
    share of unfinished games and the mean length."""
    hunter_rate = rate(frame["hunter_won"].to_numpy())
    town_rate = rate(frame["town_won"].to_numpy())
    return {"players": players, "towns": towns(players), "hunter": hunter, "town": town, "n": hunter_rate["n"],
            "hunter_wins": hunter_rate["wins"], "hunter_win_rate": hunter_rate["rate"],
            "ci_low": hunter_rate["ci_low"], "ci_high": hunter_rate["ci_high"],
            "town_win_rate": town_rate["rate"], "town_ci_low": town_rate["ci_low"],
            "town_ci_high": town_rate["ci_high"],
            "unfinished": float((frame["win_type"].astype(str) == "unfinished").mean()),
            "mean_rounds": float(frame["rounds"].mean())}


def win_type_rows(frame: pd.DataFrame, players: int, hunter: str, town: str,
                  kinds: Sequence[str]) -> list[dict[str, Any]]:
    """How the games of one cell end: per win type, games and share with its Wilson interval."""
    from cursedsim.stats import wilson_interval
    n = len(frame)
    counts = frame["win_type"].astype(str).value_counts().reindex(list(kinds), fill_value=0).to_numpy()
    low, high = wilson_interval(counts, np.full(len(kinds), n))
    return [{"players": players, "towns": towns(players), "hunter": hunter, "town": town, "win_type": kind,
             "games": int(count), "share": count / n, "ci_low": float(lo), "ci_high": float(hi)}
            for kind, count, lo, hi in zip(kinds, counts, low, high)]


def length_rows(frame: pd.DataFrame, players: int, hunter: str, town: str) -> list[dict[str, Any]]:
    """The distribution of game length (rounds) of one cell: games and share per number of rounds."""
    counts = frame["rounds"].value_counts().sort_index()
    n = len(frame)
    return [{"players": players, "towns": towns(players), "hunter": hunter, "town": town, "rounds": int(r),
             "games": int(c), "share": c / n} for r, c in counts.items()]


def length_summary(frame: pd.DataFrame, players: int, hunter: str, town: str) -> dict[str, Any]:
    """Mean (with its standard error), median, 90th percentile and longest game of one cell, in rounds."""
    rounds = frame["rounds"].to_numpy(np.float64)
    return {"players": players, "towns": towns(players), "hunter": hunter, "town": town, "n": len(rounds),
            "mean": float(rounds.mean()), "se": float(rounds.std(ddof=1) / np.sqrt(len(rounds))),
            "median": float(np.median(rounds)), "p90": float(np.quantile(rounds, 0.9)),
            "max": int(rounds.max())}


def spells_cast_rows(frame: pd.DataFrame, players: int, spells: Sequence[str]) -> list[dict[str, Any]]:
    """Per spell: mean casts per game and the share of games casting it at least once."""
    return [{"players": players, "towns": towns(players), "spell": spell,
             "per_game": float(frame[f"spells_{spell}"].mean()),
             "games_casting": float((frame[f"spells_{spell}"] > 0).mean())} for spell in spells]


def effect_row(alt: pd.DataFrame, default: pd.DataFrame, column: str) -> dict[str, Any]:
    """The paired change alt - default of the win rate in ``column`` (``hunter_won`` or ``town_won``)
    on the same games: both rates, the difference with its interval and p-value, games changed."""
    a, d = alt[column].to_numpy(), default[column].to_numpy()
    return {"measure": column, "value_default": float(d.mean()), "value_option": float(a.mean()),
            **paired(a, d), "games_changed": changed(alt, default)}


__all__ = ["KEPT", "cell_row", "changed", "effect_row", "length_rows", "length_summary", "paired", "rate",
           "spells_cast_rows", "towns", "win_type_rows"]
