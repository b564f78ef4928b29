"""The Verflucht! report's recommendations: per player count, the seal count whose win rate is closest
to each target (10 / 15 / 20%), with the best policy and with the reference policy, read off the seal
sweep of figure 1 (numbers: :func:`recommendations`; text: :func:`recommendations_text`).

The best policy at a player count is the one with the highest win rate at the rulebook's seal count.
The closest seal count is the one whose measured win rate is nearest the target; when no seal count of
the sweep reaches the target, or even the fewest seals exceed it, the row says so and shows the
nearest end of the range.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

#: ``status`` of a recommendation: a seal count in range is closest / none reaches the target / even
#: the fewest seals win more often than the target.
CLOSEST, NOT_REACHED, EXCEEDED = "closest", "not reached", "exceeded"


def best_policy(seals: pd.DataFrame, labels: Sequence[str], players: int, rulebook_seals: int) -> str:
    """The policy of ``labels`` with the highest win rate at ``rulebook_seals`` seals with ``players``
    players (ties: the first listed)."""
    cells = seals[(seals["players"] == players) & (seals["seals"] == rulebook_seals)].set_index("policy")
    rates = [(float(cells.loc[label, "win_rate"]), -i, label) for i, label in enumerate(labels) if label in cells.index]
    return max(rates)[2]


def closest_seals(cell: pd.DataFrame, target: float) -> dict[str, Any]:
    """Of one policy's sweep at one player count (rows per seal count): the seal count whose win rate
    is closest to ``target`` (ties: fewer seals) and its rate, interval and ``status``."""
    cell = cell.sort_values("seals")
    rates = cell["win_rate"].to_numpy()
    if target > rates.max():
        row, status = cell.iloc[int(rates.argmax())], NOT_REACHED
    elif target < rates.min():
        row, status = cell.iloc[int(rates.argmin())], EXCEEDED
    else:
        row, status = cell.iloc[int(abs(rates - target).argmin())], CLOSEST
    return {"seals": int(row["seals"]), "win_rate": float(row["win_rate"]), "ci_low": float(row["ci_low"]),
            "ci_high": float(row["ci_high"]), "status": status}


def recommendations(seals: pd.DataFrame, labels: Sequence[str], reference: str, rulebook_seals: dict[int, int],
                    targets: Sequence[float]) -> pd.DataFrame:
    """One row per (players, role, target): role ``best`` (the best policy), ``reference`` or ``best
    and reference`` (when they are the same), the policy, the rulebook's seals and the rate there,
    and :func:`closest_seals`."""
    rows = []
    for players in sorted(seals["players"].unique()):
        players = int(players)
        book = rulebook_seals[players]
        best = best_policy(seals, labels, players, book)
        roles = [("best and reference", reference)] if best == reference else [("best", best), ("reference", reference)]
        for role, policy in roles:
            cell = seals[(seals["players"] == players) & (seals["policy"] == policy)]
            at_book = cell[cell["seals"] == book]
            for target in targets:
                rows.append({"players": players, "role": role, "policy": policy, "target": target,
                             "rulebook_seals": book, "rulebook_win_rate": float(at_book["win_rate"].iloc[0]),
                             **closest_seals(cell, target)})
    return pd.DataFrame(rows)


def _cell(row: dict[str, Any]) -> str:
    """One recommendation as text: ``4 seals: 15.2 [14.9, 15.5]``, ``not reached (8 seals: 9.1 [...])``
    or ``exceeded at 0 seals (12.0 [...])``."""
    seals = f"{row['seals']} seal{'s' if row['seals'] != 1 else ''}"
    rate = f"{100 * row['win_rate']:.1f} [{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]"
    if row["status"] == NOT_REACHED:
        return f"not reached ({seals}: {rate})"
    if row["status"] == EXCEEDED:
        return f"exceeded at {seals} ({rate})"
    return f"{seals}: {rate}"


def recommendations_text(data) -> dict[str, Any]:
    """The recommendations of ``data`` (a VerfluchtData) as a text table: per player count and policy
    (the best, the reference), the rulebook's seals with their win rate and, per target, the closest
    seal count with its win rate % [95% CI]."""
    table = data.recommendations.sort_values("players", kind="stable")
    targets = list(dict.fromkeys(table["target"]))
    columns = ["players", "policy", "rulebook seals (win %)"] + [f"{100 * t:g}% win rate" for t in targets]
    rows = []
    for (players, role, policy), group in table.groupby(["players", "role", "policy"], sort=False):
        first = group.iloc[0]
        label = f"{role}: {policy}" + (" (lower bound)" if role == "strong play" else "")
        by_target = {row["target"]: row for row in group.to_dict("records")}
        rows.append([str(players), label, f"{first['rulebook_seals']} ({100 * first['rulebook_win_rate']:.1f})"]
                    + [_cell(by_target[t]) for t in targets])
    seals = data.plan.seals
    note = (f"Read off figure 1 ({data.n_games:,} games per cell, seals {min(seals)}-{max(seals)}): per player "
            "count, the seal count whose measured win rate is closest to each target, with that rate in % and "
            "its Wilson 95% interval. The best policy is the one with the highest win rate at the rulebook's "
            f"seals; the reference policy is {data.plan.reference}. \"not reached\": no seal count in the range "
            "wins that often (the highest rate is shown); \"exceeded\": even the fewest seals win more often.")
    strong = getattr(data, "strong_seals", None)
    if strong is not None and len(strong):
        note += (f" Strong play: the {strong['policy'].iloc[0]} search (docs/search.md) on the first "
                 f"{int(strong['n'].iloc[0]):,} games of each cell: what skilled players win, a lower bound "
                 "(a larger budget wins more, see the skill ceiling at the end), so it needs fewer seals.")
    return {"heading": "Recommendations: seals for a target win rate",
            "title": f"{data.title}: seals for a target win rate (closest seal count, win %)",
            "columns": columns, "rows": rows, "labels": 2, "note": note}


__all__ = ["CLOSEST", "EXCEEDED", "NOT_REACHED", "best_policy", "closest_seals", "recommendations",
           "recommendations_text"]
