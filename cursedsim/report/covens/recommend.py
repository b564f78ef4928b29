"""The Curses & Covens report's recommendations, shown first: is the game balanced at each player count
(the main pairing's hunter win rate against a band around 50%), whose skill matters more (the paired
gain of a clever hunter against that of a coordinated town), and which rule matters most (the rituals,
the spells, the open reading with the largest surviving effect). Numbers first, then one text table.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from cursedsim.report.content import percent_ci, points_ci
from cursedsim.report.covens.data import DISABLED_SPELL, CovensData
from cursedsim.report.cursed.sensitivity import p_text
from cursedsim.report.data import ALPHA

#: A player count is called balanced when the hunter's win rate is within this of 50%.
BALANCE_BAND = 0.05


def verdict(rate: float) -> str:
    """``balanced``, ``favours the town`` or ``favours the hunter`` for the hunter's win rate."""
    if abs(rate - 0.5) <= BALANCE_BAND:
        return "balanced"
    return "favours the hunter" if rate > 0.5 else "favours the town"


def balance(data: CovensData) -> pd.DataFrame:
    """Per town count, the main pairing's hunter win rate with its interval and the verdict."""
    hunter, town = data.plan.main
    rows = data.matrix[(data.matrix["hunter"] == hunter) & (data.matrix["town"] == town)].sort_values("towns")
    return rows[["players", "towns", "hunter_win_rate", "ci_low", "ci_high"]].assign(
        verdict=[verdict(r) for r in rows["hunter_win_rate"]]).reset_index(drop=True)


def skill_contest(data: CovensData) -> pd.DataFrame:
    """Per town count: the hunter's gain from the main hunter policy over the first (random) against the
    main town policy, and the town's gain from the main town policy over the first against the main
    hunter policy (paired, Holm p), and whose gain is the larger."""
    plan = data.plan
    skill = data.skill
    hunter = skill[(skill["kind"] == "hunter") & (skill["better"] == plan.main[0])
                   & (skill["baseline"] == plan.hunters[0]) & (skill["against"] == plan.main[1])].set_index("towns")
    town = skill[(skill["kind"] == "town") & (skill["better"] == plan.main[1])
                 & (skill["baseline"] == plan.towns[0]) & (skill["against"] == plan.main[0])].set_index("towns")
    rows = []
    for towns in sorted(hunter.index):
        h, t = hunter.loc[towns], town.loc[towns]
        winner, row = ("hunter", h) if abs(h["diff"]) >= abs(t["diff"]) else ("town", t)
        rows.append({"towns": towns, "hunter_gain": h["diff"], "town_gain": t["diff"], "larger": winner,
                     "diff": row["diff"], "ci_low": row["ci_low"], "ci_high": row["ci_high"], "p_holm": row["p_holm"]})
    return pd.DataFrame(rows)


def _largest(table: pd.DataFrame, survivors_only: bool) -> pd.Series | None:
    rows = table[table["survives"].astype(bool)] if survivors_only else table
    return None if rows.empty else rows.loc[rows["diff"].abs().idxmax()]


def recommendations(data: CovensData) -> dict[str, Any]:
    """The recommendations as text (heading, title, columns, rows, labels, note)."""
    from cursedsim.report.covens.figures import pairing, reading_label
    plan = data.plan
    main = pairing(*plan.main)
    rows = []
    for r in balance(data).itertuples():
        rows.append([f"balanced at {r.players} players ({r.towns} towns)?", r.verdict, f"hunter win %, {main}",
                     percent_ci(r.hunter_win_rate, r.ci_low, r.ci_high), "-"])
    for r in skill_contest(data).itertuples():
        answer = (f"the hunter's ({plan.main[0]} − {plan.hunters[0]} {100 * r.hunter_gain:+.1f} vs "
                  f"{plan.main[1]} − {plan.towns[0]} {100 * r.town_gain:+.1f} points)" if r.larger == "hunter" else
                  f"the town's ({plan.main[1]} − {plan.towns[0]} {100 * r.town_gain:+.1f} vs "
                  f"{plan.main[0]} − {plan.hunters[0]} {100 * r.hunter_gain:+.1f} points)")
        rows.append([f"whose skill matters more at {r.towns} towns?", answer,
                     f"{r.larger} win rate gain (points)", points_ci(r.diff, r.ci_low, r.ci_high), p_text(r.p_holm)])
    ritual = _largest(data.rituals, False)
    rows.append(["do the rituals matter?", f"{'yes' if ritual['survives'] else 'not measurably'} (largest at "
                 f"{ritual['towns']} towns)", "hunter win % without − with (points)",
                 points_ci(ritual["diff"], ritual["ci_low"], ritual["ci_high"]), p_text(ritual["p_holm"])])
    spell = data.spell_values.loc[data.spell_values["diff"].idxmax()]
    if spell["variant"].startswith(DISABLED_SPELL):
        question, answer = "which spell matters most?", f"{spell['variant']} at {spell['towns']} towns"
    else:   # one variant: casting against never casting (no option takes a single spell out yet)
        question = "are the spells worth casting?"
        answer = (f"{'yes' if spell['survives'] else 'not measurably'} (largest at {spell['towns']} towns; "
                  f"per spell needs the {DISABLED_SPELL} option)")
    rows.append([question, answer, "town win % default − spell(s) off (points)",
                 points_ci(spell["diff"], spell["ci_low"], spell["ci_high"]), p_text(spell["p_holm"])])
    option = _largest(data.sensitivity, True)
    if option is None:
        rows.append(["which open rule matters most?", "none survives Holm's adjustment", "hunter win % change",
                     "-", "-"])
    else:
        rows.append(["which open rule matters most?",
                     f"{reading_label(option['option'], option['value'])} at {option['towns']} towns",
                     "hunter win % reading − default (points)",
                     points_ci(option["diff"], option["ci_low"], option["ci_high"]), p_text(option["p_holm"])])
    note = (f"Balanced: the hunter's win rate with {main} within {100 * BALANCE_BAND:g} points of 50% (shown with "
            f"its Wilson 95% interval). Skill: the paired gain, on the same {data.n_games:,} games, of "
            f"{plan.main[0]} over a {plan.hunters[0]} hunter against {plan.main[1]}, and of {plan.main[1]} over a "
            f"{plan.towns[0]} town against {plan.main[0]} (figure 2); the larger one is shown with its interval. "
            f"Rituals, spells and open rules: figures 5-7 with {main}; the open rule is the surviving reading with "
            "the largest change. "
            f"Holm p: adjusted over the comparisons of the figure it comes from; below {ALPHA:g} it survives.")
    return {"heading": "Recommendations", "title": f"{data.title}: recommendations",
            "columns": ["question", "answer", "measured as", "value [95% CI]", "Holm p"], "rows": rows,
            "labels": 3, "note": note}


__all__ = ["BALANCE_BAND", "balance", "recommendations", "skill_contest", "verdict"]
