"""The Cursed Gifts report's recommendations, shown first: does the first player win too often at each
player count (seat 0 against the fair share, within a band), how long games last, which strategy wins
against the rulebook's ``leader`` field and which cell of the matrix is best and worst, which card kind
matters most, and whether the deck's counts (reconstructed, by default) change the answers. Numbers
first, then one text table."""

from __future__ import annotations

from typing import Any

import pandas as pd

from cursedsim.report.content import percent_ci, points_ci
from cursedsim.report.cursed.sensitivity import p_text
from cursedsim.report.data import ALPHA
from cursedsim.report.gifts.data import GiftsData

#: Seat 0 is called fair when its win rate is within this of the fair share 1/players.
FIRST_PLAYER_BAND = 0.02


def verdict(diff: float) -> str:
    """``fair``, ``favours the first player`` or ``against the first player`` for seat 0's win rate minus
    the fair share."""
    if abs(diff) <= FIRST_PLAYER_BAND:
        return "fair"
    return "favours the first player" if diff > 0 else "against the first player"


def first_player(data: GiftsData) -> pd.DataFrame:
    """Per player count: seat 0's win rate minus the fair share with its interval, Holm p, the verdict."""
    rows = data.first_player[data.first_player["against"] == "fair share"].sort_values("players")
    return rows[["players", "seat0_rate", "diff", "ci_low", "ci_high", "p_holm"]].assign(
        verdict=[verdict(d) for d in rows["diff"]]).reset_index(drop=True)


def recommendations(data: GiftsData) -> dict[str, Any]:
    """The recommendations as text (heading, title, columns, rows, labels, note)."""
    plan = data.plan
    rows = []
    for r in first_player(data).itertuples():
        rows.append([f"does the first player win too often at {r.players} players?", r.verdict,
                     f"seat 0 win % − fair share {100 / r.players:.1f}% (points)",
                     points_ci(r.diff, r.ci_low, r.ci_high),
                     p_text(r.p_holm)])
    lengths = data.length_summary.sort_values("players")
    rows.append(["how long do games last?",
                 f"median {lengths['median'].iloc[0]:g} turns at {lengths['players'].iloc[0]} players to "
                 f"{lengths['median'].iloc[-1]:g} at {lengths['players'].iloc[-1]}; at most "
                 f"{100 * lengths['unfinished'].max():.2f}% unfinished", "mean turns",
                 ", ".join(f"{r.mean:.1f} ({r.players}p)" for r in lengths.itertuples()), "-"])
    matrix = data.matrix
    vs = matrix[matrix["field"] == plan.seat_policy]
    if len(vs):
        best = vs.loc[vs["excess"].idxmax()]
        rows.append([f"best strategy against a {plan.seat_policy} field ({plan.matrix_players} players)?",
                     best["focus"], "focus win % − fair share (points)",
                     points_ci(best["excess"], best["excess_ci_low"], best["excess_ci_high"]), "-"])
    extremes = (("best", matrix.loc[matrix["excess"].idxmax()]), ("worst", matrix.loc[matrix["excess"].idxmin()]))
    for word, cell in extremes:
        rows.append([f"{word} focus against a field?", f"{cell['focus']} in a {cell['field']} field",
                     "focus win % [95% CI]", percent_ci(cell["rate"], cell["ci_low"], cell["ci_high"]), "-"])
    removal = data.removal
    for measure, question, unit, scale in (("seat0_win", "which card kind matters most to the first player?",
                                            "seat 0 win % without − full (points)", points_ci),
                                           ("turns", "which card kind changes the game length most?",
                                            "mean turns without − full", None)):
        part = removal[removal["measure"] == measure]
        top = part.loc[part["diff"].abs().idxmax()]
        value = scale(top["diff"], top["ci_low"], top["ci_high"]) if scale else \
            f"{top['diff']:+.2f} [{top['ci_low']:+.2f}, {top['ci_high']:+.2f}]"
        answer = f"{top['card']} ({'survives' if top['survives'] else 'does not survive'} Holm)"
        rows.append([question, answer, unit, value, p_text(top["p_holm"])])
    sens = data.deck_sensitivity
    default, scaled = sens.iloc[0], sens.iloc[1:]
    if len(scaled):
        outside = int(((scaled["seat0_rate"] < default["seat0_ci_low"]) |
                       (scaled["seat0_rate"] > default["seat0_ci_high"])).sum())
        word = data.deck_word
        counts = "reconstructed counts" if data.deck_reconstructed else "deck's counts"
        rows.append([f"do the {counts} matter?",
                     f"{outside} of {len(scaled)} scaled decks put seat 0 outside the {word} deck's interval",
                     f"seat 0 win %, scaled decks ({word})",
                     f"{100 * scaled['seat0_rate'].min():.1f}-{100 * scaled['seat0_rate'].max():.1f} "
                     f"({100 * default['seat0_rate']:.1f})", "-"])
    note = (f"First player: seat 0's win rate with {plan.seat_policy} at every seat minus the fair share 1/players "
            f"(Wilson interval shifted), 'fair' within {100 * FIRST_PLAYER_BAND:g} points (figure 1). Strategies: "
            f"the policy matrix at {plan.matrix_players} players, focus seat rotating (figure 4). Card kinds: the deck "
            "without the kind against the full deck on the same games (figure 5). Counts: figure 6. Holm p: "
            f"adjusted over the comparisons of the figure it comes from; below {ALPHA:g} it survives. Every number "
            f"is on {data.deck_text}.")
    return {"heading": "Recommendations", "title": f"{data.title}: recommendations ({data.deck_tag})",
            "columns": ["question", "answer", "measured as", "value [95% CI]", "Holm p"], "rows": rows,
            "labels": 3, "note": note}


__all__ = ["FIRST_PLAYER_BAND", "first_player", "recommendations", "verdict"]
