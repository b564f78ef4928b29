"""How a game of So, You've Been Cursed. unfolds, round by round: the Curse, Cure and Panic tracks after
each round of each mode's pairing, from the turn logs of the report's first games (replayed by the
reference engine, which also checks that each replay ends as the kernel's row did)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

#: Games replayed per mode (a duel game takes ~30 ms in the reference engine).
GAMES = 500
#: The tracks followed (keys of a turn-log event's ``state``).
MEASURES = ("curse", "cure", "panic")


def game_rounds(events: list[Mapping[str, Any]]) -> tuple[list[dict[str, int]], int, str | None]:
    """The tracks after each round of one game (round 0: the set-up), the turns it lasted and its winner
    (None when unfinished). A round is a Wizard's turn and the Monster's turn after it; a game over in a
    round keeps its final state."""
    starts = {e["turn"]: e["state"] for e in events if e["action"] == "turn"}
    end = next(e for e in reversed(events) if e["action"] == "end")
    turns = int(end["turn"])
    rounds = []
    for r in range((turns + 1) // 2 + 1):
        state = starts.get(2 * r + 1, end["state"])   # no turn r+1 began: the game was over
        rounds.append({m: int(state[m]) for m in MEASURES})
    return rounds, turns, None if end["unfinished"] else end["winner"]


def mode_rows(mode: str, games: list[list[dict[str, int]]]) -> list[dict[str, Any]]:
    """Per round: games still on (a game over keeps its last state in the means) and each track's mean."""
    longest = max(len(g) for g in games)
    rows = []
    for r in range(longest):
        at = [g[min(r, len(g) - 1)] for g in games]
        rows.append({"mode": mode, "round": r, "games": len(games),
                     "running": sum(len(g) - 1 > r for g in games),
                     **{f"{m}_mean": float(np.mean([s[m] for s in at])) for m in MEASURES}})
    return rows


def collect(replay: Callable[[int], list[dict]], frame: pd.DataFrame, mode: str, games: int) -> list[dict[str, Any]]:
    """The rows of ``mode`` from its first ``games`` games: ``replay(index)`` gives a game's events, and
    each replay must end as ``frame``'s row of that game (same turns and winner), else a ReportError."""
    from cursedsim.report.data import ReportError
    rows = frame.set_index("game_index")
    played = []
    for index in rows.index[:games]:
        rounds, turns, winner = game_rounds(replay(int(index)))
        row = rows.loc[index]
        expected = None if row["unfinished"] else str(row["winner"])
        if turns != int(row["turns"]) or winner != expected:
            raise ReportError(f"{mode}: the replay of game {index} ended at turn {turns} ({winner}), the run's row "
                              f"at turn {int(row['turns'])} ({expected}): reference and kernel disagree")
        played.append(rounds)
    return mode_rows(mode, played) if played else []


__all__ = ["GAMES", "MEASURES", "collect", "game_rounds", "mode_rows"]
