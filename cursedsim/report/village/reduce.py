"""The village report's reductions: per-game frames in, small tidy rows out (win rates of both sides with
Wilson intervals, game lengths, the Panic effects, a player policy against its side's automaton paired
on the same games, one board's row of the sensitivity study, the balance point of a track). Pure
functions of frames, so the report, the experiment script and the tests share them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.games.village import rules
from cursedsim.report.gifts.reduce import paired, rate, same_games

#: The outcome columns a report run keeps (the rest of the frame is dropped as soon as it is read).
KEPT = ("game_index", "board", "mode", "winner", "wizard_won", "monster_won", "turns", "unfinished", "cure", "curse",
        "panic", "coins_stolen", "quiet_nights", *(f"fired_{e}" for e in rules.PANIC_EFFECTS),
        *(f"first_{e}" for e in rules.PANIC_EFFECTS), "curse_from_table", "curse_from_cards", "cure_from_mix",
        "cure_from_spells", "coins_lost_to_cap")
#: The Panic effects by what they do (``rules.PANIC_EFFECTS``) -> their printed name on each Village board
#: side (``components.PANIC_EFFECTS``); an effect missing from a side never fires in its modes.
EFFECT_NAMES = {
    "wizard": {"extra_action": "get_busy", "stay_inside": "stay_inside", "cheaper_ingredients": "plethora_of_potions"},
    "possessed": {"extra_action": "maximum_possession", "stay_inside": "stay_inside",
                  "extra_feeding_card": "possession_intensifies"},
}
#: The rulebook's words for them (figures and tables).
EFFECT_TITLES = {"get_busy": "Get busy!", "stay_inside": "Stay inside!",
                 "plethora_of_potions": "A plethora of potions!",
                 "maximum_possession": "Maximum Possession!", "possession_intensifies": "Possession intensifies!"}


def kept(frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` a report keeps."""
    return [c for c in KEPT if c in frame]


def mode_of(frame: pd.DataFrame) -> str:
    """The one mode a run played (its ``mode`` column)."""
    modes = frame["mode"].astype(str).unique()
    if len(modes) != 1:
        raise ValueError(f"a run plays one mode, this one played {sorted(modes)}")
    return str(modes[0])


def _turns(frame: pd.DataFrame) -> dict[str, float]:
    turns = frame["turns"].to_numpy(np.float64)
    se = float(turns.std(ddof=1) / np.sqrt(len(turns))) if len(turns) > 1 else float("nan")
    return {"mean_turns": float(turns.mean()), "turns_se": se}


# ---------------------------------------------------------------- 1. every pairing

def pairing_row(frame: pd.DataFrame, wizard: str, monster: str) -> dict[str, Any]:
    """One pairing: its mode, the Wizard's and the Monster's win rates and the unfinished share (each with
    its Wilson interval; the three add up to the games), mean turns (se)."""
    w = rate(frame["wizard_won"].to_numpy())
    m = rate(frame["monster_won"].to_numpy())
    u = rate(frame["unfinished"].to_numpy())
    return {"wizard": wizard, "monster": monster, "mode": mode_of(frame), "n": w["n"],
            "wizard_wins": w["wins"], "wizard_rate": w["rate"], "wizard_ci_low": w["ci_low"],
            "wizard_ci_high": w["ci_high"], "monster_wins": m["wins"], "monster_rate": m["rate"],
            "monster_ci_low": m["ci_low"], "monster_ci_high": m["ci_high"], "unfinished": u["rate"],
            "unfinished_ci_low": u["ci_low"], "unfinished_ci_high": u["ci_high"], **_turns(frame)}


# ---------------------------------------------------------------- 2. game length

def length_rows(frame: pd.DataFrame, wizard: str, monster: str) -> list[dict[str, Any]]:
    """The distribution of game length of one pairing: games and share per number of turns, and how many
    of them each side won."""
    n = len(frame)
    mode = mode_of(frame)
    rows = []
    for t, part in frame.groupby("turns", sort=True, observed=True):
        rows.append({"wizard": wizard, "monster": monster, "mode": mode, "turns": int(t), "games": len(part),
                     "share": len(part) / n, "wizard_won": int(part["wizard_won"].sum()),
                     "monster_won": int(part["monster_won"].sum())})
    return rows


def length_summary(frame: pd.DataFrame, wizard: str, monster: str) -> dict[str, Any]:
    """Mean turns (se), the 10th/50th/90th percentiles (smallest turn count reaching the share), the
    longest game and the unfinished share (Wilson)."""
    turns = frame["turns"].to_numpy(np.float64)
    p10, median, p90 = (int(q) for q in np.quantile(turns, [0.1, 0.5, 0.9], method="inverted_cdf"))
    u = rate(frame["unfinished"].to_numpy())
    return {"wizard": wizard, "monster": monster, "mode": mode_of(frame), "n": len(turns), **_turns(frame),
            "p10": p10, "median": median, "p90": p90, "max": int(turns.max()), "unfinished": u["rate"],
            "unfinished_ci_low": u["ci_low"], "unfinished_ci_high": u["ci_high"]}


# ---------------------------------------------------------------- 3. Panic effects

def panic_rows(frame: pd.DataFrame, wizard: str, monster: str, board: Any) -> list[dict[str, Any]]:
    """Per Panic effect of the mode's Village board side (``board``: the Board played): the level it
    starts at, the share of games in which it applied at least once (Wilson), the mean number of Wizard
    turns it applied per game, and the first turn it applied (mean and median over those games)."""
    from cursedsim.games.village import components as C
    mode = mode_of(frame)
    side = C.MODE_SIDES[mode][0]
    levels = dict(dict(board.panic)[side].effects)
    rows = []
    for effect, printed in EFFECT_NAMES[side].items():
        fired = frame[f"fired_{effect}"].to_numpy(np.int64)
        first = frame[f"first_{effect}"].to_numpy(np.int64)
        r = rate(fired > 0)
        on = first[fired > 0]
        rows.append({"wizard": wizard, "monster": monster, "mode": mode, "village_side": side, "effect": effect,
                     "printed": printed, "title": EFFECT_TITLES[printed], "from_level": levels[printed],
                     "n": r["n"], "games_fired": r["wins"], "share": r["rate"], "ci_low": r["ci_low"],
                     "ci_high": r["ci_high"], "mean_turns_applied": float(fired.mean()),
                     "first_turn_mean": float(on.mean()) if len(on) else float("nan"),
                     "first_turn_median": float(np.median(on)) if len(on) else float("nan")})
    return rows


# ---------------------------------------------------------------- 4. a player against its automaton

def advantage_row(player: pd.DataFrame, automaton: pd.DataFrame, side: str, policy: str, automaton_policy: str,
                  opponent: str) -> dict[str, Any]:
    """``policy`` in the place of its side's automaton against the same ``opponent`` on the same games:
    the paired difference of that side's win (player - automaton, per game), both win rates (Wilson)."""
    same_games(player, automaton, f"{side} {policy} against {automaton_policy} (opponent {opponent})")
    won = f"{side}_won"
    a, b = player[won].to_numpy(), automaton[won].to_numpy()
    ra, rb = rate(a), rate(b)
    return {"side": side, "policy": policy, "automaton": automaton_policy, "opponent": opponent,
            "mode_policy": mode_of(player), "mode_automaton": mode_of(automaton), "n": ra["n"],
            "rate_policy": ra["rate"], "ci_low_policy": ra["ci_low"], "ci_high_policy": ra["ci_high"],
            "rate_automaton": rb["rate"], "ci_low_automaton": rb["ci_low"], "ci_high_automaton": rb["ci_high"],
            **paired(a, b), "games_changed": float(np.mean(a != b))}


# ---------------------------------------------------------------- 8. plausibility

def _share_of(frame: pd.DataFrame, part: str, other: str) -> float:
    """``part``'s share of the steps ``part`` and ``other`` moved over all games (NaN when none moved)."""
    a, b = float(frame[part].sum()), float(frame[other].sum())
    return a / (a + b) if a + b else float("nan")


def plausibility_row(frame: pd.DataFrame, mode: str, wizard: str, monster: str) -> dict[str, Any]:
    """What a designer checks a mode's games by: rounds played (a round is a Wizard's and a Monster's turn),
    the share of the Curse gained from cards, of the Cure from Spells, coins lost to the coin limit."""
    rounds = np.ceil(frame["turns"].to_numpy(np.float64) / 2)
    lost = frame["coins_lost_to_cap"].to_numpy(np.float64)
    return {"mode": mode, "wizard": wizard, "monster": monster, "n": len(frame), "mean_rounds": float(rounds.mean()),
            "p90_rounds": float(np.percentile(rounds, 90)),
            "curse_from_cards_share": _share_of(frame, "curse_from_cards", "curse_from_table"),
            "cure_from_spells_share": _share_of(frame, "cure_from_spells", "cure_from_mix"),
            "coins_lost_per_game": float(lost.mean()), "coins_lost_games": float(np.mean(lost > 0)),
            "unfinished": float(frame["unfinished"].mean())}


# ---------------------------------------------------------------- 5-6. boards and tracks

def board_row(frame: pd.DataFrame, board: Any, file: str, kind: str, value: int, wizard: str,
              monster: str) -> dict[str, Any]:
    """One board of the sensitivity study in one pairing: the board (label, file, kind: ``base``,
    ``generated``, ``curse``, ``cure``; value: generator seed or track length) and the pairing's row."""
    return {"board": board.label, "board_reconstructed": board.reconstructed, "file": file, "kind": kind,
            "value": value, **pairing_row(frame, wizard, monster)}


def balance_point(lengths: Sequence[float], rates: Sequence[float], target: float = 0.5) -> float:
    """The track length at which the Wizard's win rate crosses ``target``, by linear interpolation between
    the two lengths around the first crossing (NaN when the rates never reach ``target`` in the range)."""
    order = np.argsort(np.asarray(lengths, np.float64))
    x = np.asarray(lengths, np.float64)[order]
    y = np.asarray(rates, np.float64)[order] - target
    for k in range(len(x)):
        if y[k] == 0:
            return float(x[k])
        if k and y[k - 1] * y[k] < 0:
            return float(x[k - 1] + (x[k] - x[k - 1]) * (0 - y[k - 1]) / (y[k] - y[k - 1]))
    return float("nan")


def balance_rows(tracks: pd.DataFrame, base_lengths: dict[str, int]) -> list[dict[str, Any]]:
    """Per track and mode: the length where the Wizard wins half the games (``balance_point``), the base
    board's length, and the Wizard's win rate at the shortest and longest length played."""
    rows = []
    for (track, mode), part in tracks.groupby(["kind", "mode"], sort=False, observed=True):
        part = part.sort_values("value")
        point = balance_point(part["value"], part["wizard_rate"])
        rows.append({"track": track, "mode": mode, "wizard": part["wizard"].iloc[0],
                     "monster": part["monster"].iloc[0], "base_length": base_lengths[track],
                     "shortest": int(part["value"].iloc[0]), "wizard_rate_shortest": float(part["wizard_rate"].iloc[0]),
                     "longest": int(part["value"].iloc[-1]), "wizard_rate_longest": float(part["wizard_rate"].iloc[-1]),
                     "balance_length": point, "balanced_in_range": bool(np.isfinite(point))})
    return rows


__all__ = ["EFFECT_NAMES", "EFFECT_TITLES", "KEPT", "advantage_row", "balance_point", "balance_rows", "board_row",
           "kept", "length_rows", "length_summary", "mode_of", "pairing_row", "panic_rows"]
