"""The Cursed Gifts report's reductions: per-game frames in, small tidy rows out (win rates per seat with
Wilson intervals, the first player's advantage paired on the same games, game lengths, the policy
matrix, what a card kind is worth). Pure functions of numpy arrays and frames, so the report, the
experiment script and the tests share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

#: The outcome columns a report run keeps (the rest of the frame is dropped as soon as it is read);
#: ``focus_dealt`` joins when the engines produce it (see ``kept``).
KEPT = ("game_index", "deck", "winner_seat", "turns", "unfinished", "focus_seat", "focus_won")
#: The bit set of the deck's card kinds dealt to the focus seat at set-up (bit k: ``Deck.cards[k]``).
DEALT = "focus_dealt"
#: ``winner_seat`` of a game nobody won (unfinished).
NO_WINNER = -1


def kept(frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` a report keeps: ``KEPT`` and ``focus_dealt`` when it is there."""
    return list(KEPT) + ([DEALT] if DEALT in frame else [])


def rate(wins: np.ndarray) -> dict[str, float]:
    """n, wins, rate and its Wilson 95% interval (``ci_low``, ``ci_high``) of a boolean array."""
    from cursedsim.stats import wilson_interval
    n, k = len(wins), int(np.count_nonzero(wins))
    low, high = wilson_interval(k, n)
    return {"n": n, "wins": k, "rate": k / n, "ci_low": float(low), "ci_high": float(high)}


def paired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """The paired difference a - b (same games) of two arrays: diff, se, ci_low, ci_high, p_value."""
    from cursedsim.stats import paired_difference
    d = paired_difference(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return {key: d[key] for key in ("diff", "se", "ci_low", "ci_high", "p_value")}


def unpaired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """The difference of the means of two independent groups a - b: diff, se, Welch 95% interval and the
    two-sided p-value of the normal approximation (NaN when a group has fewer than 2 games)."""
    from scipy.stats import norm

    from cursedsim.stats import unpaired_difference
    if len(a) < 2 or len(b) < 2:
        return {"diff": np.nan, "se": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan}
    d = unpaired_difference(np.asarray(a, np.float64), np.asarray(b, np.float64))
    p = float(2 * norm.sf(abs(d["diff"]) / d["se"])) if d["se"] > 0 else (1.0 if d["diff"] == 0 else 0.0)
    return {**d, "p_value": p}


def same_games(a: pd.DataFrame, b: pd.DataFrame, what: str) -> None:
    """Two runs paired game by game: the same game indices in the same order (a ReportError otherwise)."""
    from cursedsim.report.data import ReportError
    if len(a) != len(b) or not np.array_equal(a["game_index"].to_numpy(), b["game_index"].to_numpy()):
        raise ReportError(f"{what}: the runs are not the same games (game indices differ); a paired "
                          "comparison needs the same seed and games")


# ---------------------------------------------------------------- 1. seats

def seat_rows(frame: pd.DataFrame, players: int) -> list[dict[str, Any]]:
    """Per seat 0..players-1, then ``seat = -1`` (no winner: unfinished games): games won, the share with
    its Wilson interval and the fair share 1/players. The wins of every row add up to the games."""
    winner = frame["winner_seat"].to_numpy()
    rows = []
    for seat in list(range(players)) + [NO_WINNER]:
        r = rate(winner == seat)
        rows.append({"players": players, "seat": seat, **r, "fair_share": 1 / players if seat >= 0 else 0.0})
    return rows


def first_player_rows(frame: pd.DataFrame, players: int) -> list[dict[str, Any]]:
    """Seat 0's advantage at ``players`` players: against the fair share 1/players (its win rate minus
    1/players, the Wilson interval shifted by the same, exact binomial p-value) and against every other
    seat s on the same games (per game 1[winner = 0] - 1[winner = s], paired t interval)."""
    from scipy.stats import binomtest
    winner = frame["winner_seat"].to_numpy()
    first = rate(winner == 0)
    fair = 1 / players
    rows = [{"players": players, "against": "fair share", "other_seat": NO_WINNER, "n": first["n"],
             "seat0_rate": first["rate"], "other_rate": fair, "diff": first["rate"] - fair,
             "se": float(np.sqrt(first["rate"] * (1 - first["rate"]) / first["n"])),
             "ci_low": first["ci_low"] - fair, "ci_high": first["ci_high"] - fair,
             "p_value": float(binomtest(first["wins"], first["n"], fair).pvalue),
             "interval": "Wilson 95% of seat 0's rate minus 1/players"}]
    for seat in range(1, players):
        other = winner == seat
        rows.append({"players": players, "against": f"seat {seat}", "other_seat": seat, "n": first["n"],
                     "seat0_rate": first["rate"], "other_rate": float(other.mean()),
                     **paired(winner == 0, other), "interval": "paired t 95% on the same games"})
    return rows


def focus_seat_rows(frames: dict[int, pd.DataFrame], players: int, focus: str, field: str) -> list[dict[str, Any]]:
    """The rotation-paired measure: ``frames[s]`` is the run with the focus fixed at seat s (same seed and
    games); per seat the focus win rate (Wilson) and its paired change against seat 0, game by game."""
    base = frames[0]
    rows = []
    for seat in range(players):
        frame = frames[seat]
        same_games(frame, base, f"focus at seat {seat} against seat 0 at {players} players")
        won = frame["focus_won"].to_numpy()
        row = {"players": players, "focus": focus, "field": field, "seat": seat, **rate(won),
               "fair_share": 1 / players}
        if seat == 0:
            row |= {"diff": 0.0, "se": 0.0, "ci_low_diff": 0.0, "ci_high_diff": 0.0, "p_value": np.nan}
        else:
            d = paired(won, base["focus_won"].to_numpy())
            row |= {"diff": d["diff"], "se": d["se"], "ci_low_diff": d["ci_low"], "ci_high_diff": d["ci_high"],
                    "p_value": d["p_value"]}
        rows.append(row)
    return rows


# ---------------------------------------------------------------- 2. game length

def length_rows(frame: pd.DataFrame, players: int) -> list[dict[str, Any]]:
    """The distribution of game length: games and share per number of turns."""
    counts = frame["turns"].value_counts().sort_index()
    n = len(frame)
    return [{"players": players, "turns": int(t), "games": int(c), "share": c / n} for t, c in counts.items()]


def length_summary(frame: pd.DataFrame, players: int) -> dict[str, Any]:
    """Mean turns (with its standard error), quantiles (the smallest number of turns reaching the share:
    10th, 50th (median), 90th, 99th), the longest game and the unfinished share (Wilson)."""
    turns = frame["turns"].to_numpy(np.float64)
    unfinished = rate(frame["unfinished"].to_numpy())
    p10, median, p90, p99 = (int(q) for q in np.quantile(turns, [0.1, 0.5, 0.9, 0.99], method="inverted_cdf"))
    return {"players": players, "n": len(turns), "mean": float(turns.mean()),
            "se": float(turns.std(ddof=1) / np.sqrt(len(turns))), "p10": p10, "median": median, "p90": p90,
            "p99": p99, "max": int(turns.max()), "unfinished": unfinished["rate"],
            "unfinished_ci_low": unfinished["ci_low"], "unfinished_ci_high": unfinished["ci_high"]}


# ---------------------------------------------------------------- 3. policy matrix

def matrix_row(frame: pd.DataFrame, players: int, focus: str, field: str) -> dict[str, Any]:
    """One cell of the policy matrix: the focus seat's win rate (rotating seat) with its Wilson interval,
    its excess over the fair share 1/players (the interval shifted by the same), mean turns, unfinished."""
    r = rate(frame["focus_won"].to_numpy())
    fair = 1 / players
    return {"players": players, "focus": focus, "field": field, **r, "fair_share": fair,
            "excess": r["rate"] - fair, "excess_ci_low": r["ci_low"] - fair, "excess_ci_high": r["ci_high"] - fair,
            "mean_turns": float(frame["turns"].mean()), "unfinished": float(frame["unfinished"].mean())}


# ---------------------------------------------------------------- 4. card kinds

def dealt_rows(frame: pd.DataFrame, cards: Sequence[Any]) -> list[dict[str, Any]]:
    """Per card kind k of the deck (``cards[k]``): the focus seat's win rate when it was dealt at least one
    card of the kind (bit k of ``focus_dealt``) and when not, each with its Wilson interval, and the
    difference dealt - not dealt (two groups of different games: Welch interval)."""
    dealt = frame[DEALT].to_numpy(np.int64)
    won = frame["focus_won"].to_numpy()
    rows = []
    for k, card in enumerate(cards):
        has = (dealt >> k) & 1 == 1
        yes, no = won[has], won[~has]
        r_yes = rate(yes) if len(yes) else {"n": 0, "wins": 0, "rate": np.nan, "ci_low": np.nan, "ci_high": np.nan}
        r_no = rate(no) if len(no) else {"n": 0, "wins": 0, "rate": np.nan, "ci_low": np.nan, "ci_high": np.nan}
        rows.append({"kind": k, "card": card.name, "type": card.type, "count": card.count,
                     "n_dealt": r_yes["n"], "rate_dealt": r_yes["rate"], "ci_low_dealt": r_yes["ci_low"],
                     "ci_high_dealt": r_yes["ci_high"], "n_not": r_no["n"], "rate_not": r_no["rate"],
                     "ci_low_not": r_no["ci_low"], "ci_high_not": r_no["ci_high"], **unpaired(yes, no)})
    return rows


def removal_rows(without: pd.DataFrame, default: pd.DataFrame, card: Any) -> list[dict[str, Any]]:
    """The deck without one card kind against the full deck on the same games: the paired change of the
    mean turns and of seat 0's win rate (without - full)."""
    same_games(without, default, f"the deck without {card.name!r} against the full deck")
    label = str(without["deck"].iloc[0])
    rows = []
    for measure, a, b in (("turns", without["turns"].to_numpy(), default["turns"].to_numpy()),
                          ("seat0_win", without["winner_seat"].to_numpy() == 0,
                           default["winner_seat"].to_numpy() == 0)):
        rows.append({"card": card.name, "type": card.type, "count": card.count, "measure": measure,
                     "deck_without": label, "n": len(a), "value_default": float(np.mean(b)),
                     "value_without": float(np.mean(a)), **paired(a, b),
                     "unfinished_default": float(default["unfinished"].mean()),
                     "unfinished_without": float(without["unfinished"].mean())})
    return rows


# ---------------------------------------------------------------- 5. deck sensitivity

def deck_row(frame: pd.DataFrame, deck: Any, file: str, scaled: bool) -> dict[str, Any]:
    """One deck of the sensitivity study: seat 0's win rate (Wilson), mean turns (se) and the unfinished
    share (Wilson)."""
    seat0 = rate(frame["winner_seat"].to_numpy() == 0)
    unfinished = rate(frame["unfinished"].to_numpy())
    turns = frame["turns"].to_numpy(np.float64)
    return {"deck": deck.label, "deck_reconstructed": deck.reconstructed, "scaled": scaled, "file": file,
            "size": deck.size, "n": seat0["n"], "seat0_rate": seat0["rate"], "seat0_ci_low": seat0["ci_low"],
            "seat0_ci_high": seat0["ci_high"], "mean_turns": float(turns.mean()),
            "turns_se": float(turns.std(ddof=1) / np.sqrt(len(turns))), "unfinished": unfinished["rate"],
            "unfinished_ci_low": unfinished["ci_low"], "unfinished_ci_high": unfinished["ci_high"]}


__all__ = ["DEALT", "KEPT", "NO_WINNER", "deck_row", "dealt_rows", "first_player_rows", "focus_seat_rows",
           "kept", "length_rows", "length_summary", "matrix_row", "paired", "rate", "removal_rows", "same_games",
           "seat_rows", "unpaired"]
