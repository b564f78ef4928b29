"""The Cursed!? report's recommendations, shown first: which way of playing wins most (its win rate and
its paired margin over the reference policy) and the starting items ranked by what they are worth (the
paired difference of the win rate from the rulebook's random starting item, with 95% intervals and
Holm-adjusted p-values). Numbers first (``best_policy``, ``item_ranking``), then one text table.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from cursedsim.report.content import percent_ci, points_ci
from cursedsim.report.cursed.data import RANDOM_START, CursedData
from cursedsim.report.cursed.sensitivity import p_text
from cursedsim.report.data import ALPHA


def best_policy(data: CursedData) -> dict[str, Any]:
    """The policy of figure 1 with the highest win rate on the report's games: its ``policy`` label,
    ``win_rate`` with ``ci_low``/``ci_high`` (Wilson), and its paired difference from the ``reference``
    (``diff``, ``diff_ci_low``, ``diff_ci_high``, ``p_holm``; 0 and NaN when it is the reference)."""
    reference = data.plan.reference
    rates = data.policies.set_index("policy")
    best = str(rates["win_rate"].idxmax())
    row = {"policy": best, "reference": reference,
           **{column: float(rates.loc[best, column]) for column in ("win_rate", "ci_low", "ci_high")}}
    if best == reference:
        return {**row, "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0, "p_holm": math.nan}
    pair = data.policy_diffs.set_index("a").loc[best]
    return {**row, "diff": float(pair["diff"]), "diff_ci_low": float(pair["ci_low"]),
            "diff_ci_high": float(pair["ci_high"]), "p_holm": float(pair["p_holm"])}


def item_ranking(data: CursedData, policy: str | None = None) -> pd.DataFrame:
    """Every start of figure 4 (each item forced, and none) with ``policy`` (default: the first item
    policy), ranked by its paired difference from the random start (``rank`` 1: worth most): start,
    win_rate, ci_low, ci_high, diff, diff_ci_low, diff_ci_high, p_holm (Holm over every start x
    policy of figure 4), survives."""
    policy = policy or data.plan.item_policies[0]
    table = data.start_items
    rows = table[(table["policy"] == policy) & (table["start"] != RANDOM_START)]
    ranked = rows.sort_values("diff", ascending=False, kind="stable").reset_index(drop=True)
    columns = ["start", "win_rate", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high", "p_holm", "survives"]
    return ranked[columns].assign(rank=range(1, len(ranked) + 1))[["rank"] + columns]


def _margin_verdict(best: dict[str, Any]) -> str:
    """Whether the best policy's margin over the reference is more than chance after Holm's adjustment."""
    if best["policy"] == best["reference"]:
        return " (it is the reference: no policy beats it)"
    if best["p_holm"] < ALPHA:
        return " (more than chance: it survives Holm's adjustment)"
    return (" (within chance on these games: it does not survive Holm's adjustment, so the reference is as "
            "good a choice)")


def recommendations(data: CursedData) -> dict[str, Any]:
    """The recommendations as text (heading, title, columns, rows, labels, note): the best policy with
    its win rate and margin over the reference, then every starting item ranked by value."""
    from cursedsim.report.cursed.figures import item_names, policy_label
    plan = data.plan
    names = item_names()
    best = best_policy(data)
    item_policy = plan.item_policies[0]
    rows = [["best way to play", policy_label(data, best["policy"]), policy_label(data, best["reference"]),
             percent_ci(best["win_rate"], best["ci_low"], best["ci_high"]),
             "reference" if best["policy"] == best["reference"]
             else points_ci(best["diff"], best["diff_ci_low"], best["diff_ci_high"]), p_text(best["p_holm"])]]
    for row in item_ranking(data).to_dict("records"):
        rows.append([f"starting item, rank {row['rank']}", names[row["start"]],
                     f"a random start ({item_policy})",
                     percent_ci(row["win_rate"], row["ci_low"], row["ci_high"]),
                     points_ci(row["diff"], row["diff_ci_low"], row["diff_ci_high"]), p_text(row["p_holm"])])
    family = int(data.start_items["p_holm"].notna().sum())
    note = (f"Best way to play: the highest win rate of the {len(data.labels)} policies of figure 1 on the same "
            f"{data.n_games:,} games, and its paired margin over {best['reference']}{_margin_verdict(best)}. "
            "Starting items: what each "
            f"is worth with {item_policy}, the win rate when every game starts with it minus the win rate with "
            f"the rulebook's random starting item, paired on the same games (figure 4; with "
            f"{', '.join(plan.item_policies[1:]) or 'other policies'} there). Differences with paired t 95% "
            f"intervals; Holm p: the p-value adjusted for every comparison of its table (policies: figure 1; "
            f"items: the {family} of figure 4); below {ALPHA:g} the difference survives the adjustment.")
    return {"heading": "Recommendations", "title": f"{data.title}: recommendations",
            "columns": ["question", "answer", "compared with", "win % [95% CI]", "difference (points) [95% CI]",
                        "Holm p"],
            "rows": rows, "labels": 3, "note": note}


__all__ = ["best_policy", "item_ranking", "recommendations"]
