"""The words and tables of the Verflucht! report: the summary at the rulebook's seals (numbers and
text), the settings, the intro and the notes on the CSV tables."""

from __future__ import annotations

from typing import Any

import pandas as pd

from cursedsim.report import content
from cursedsim.report.content import percent_ci, points_ci, value_text
from cursedsim.report.verflucht.data import VerfluchtData

TABLE_NOTES = {
    "win_rate_by_seals": "figure 1: win rate (Wilson 95%), mean score of won games, per policy, players and seals",
    "policies": "per player count and policy at the rulebook's seals",
    "policy_differences": "figure 2: paired differences challenger − reference (and the unpaired interval)",
    "scores_of_won_games": "figure 3: won games per score",
    "turns": "figure 4: games per draw-turn count, won and lost",
    "losses_by_cause": "figure 5: lost games per ending attack, share with Wilson 95% interval",
    "turn_of_loss": "figure 5: quartiles of the draw turn of the loss",
    "rule_sensitivity": "figure 6: paired differences option − default of win rate and score",
}


def summary_table(data: VerfluchtData) -> pd.DataFrame:
    """One row per player count at the rulebook's seals: every policy's win rate with its 95% interval
    and every challenger's paired difference from the reference (numbers, not text)."""
    plan = data.plan
    rows = []
    for p in plan.players:
        row: dict[str, Any] = {"players": p, "seals": data.rulebook_seals[p]}
        cells = data.policies[data.policies["players"] == p].set_index("policy")
        for policy in cells.index:
            for column in ("win_rate", "ci_low", "ci_high"):
                row[f"{policy}_{column}"] = float(cells.loc[policy, column])
        diffs = data.policy_diffs[data.policy_diffs["players"] == p]
        for _, d in diffs.iterrows():
            for column in ("diff", "ci_low", "ci_high"):
                row[f"{d['a']}-{d['b']}_{column}"] = float(d[column])
        rows.append(row)
    return pd.DataFrame(rows)


def summary_text(data: VerfluchtData, *, compact: bool = False) -> dict[str, Any]:
    """The summary table as text: ``heading``, ``title`` (for a terminal), ``columns``, ``rows``,
    ``labels`` (leading label columns) and a ``note``; ``compact``: short headers and one decimal (for
    a terminal)."""
    plan = data.plan
    table = summary_table(data)
    policies = list(dict.fromkeys(plan.policies + plan.challengers))
    challengers = [c for c in plan.challengers if c != plan.reference]
    digits = 1 if compact else 2
    if compact:
        columns = ["players", "seals"] + [f"{policy} %" for policy in policies] + \
            [f"{c} − {plan.reference}" for c in challengers]
    else:
        columns = ["players", "seals"] + [f"{policy} win % [95% CI]" for policy in policies] + \
            [f"{c} − {plan.reference} (points) [95% CI]" for c in challengers]
    rows = []
    for row in table.to_dict("records"):
        cells = [str(row["players"]), str(row["seals"])]
        cells += [percent_ci(row[f"{q}_win_rate"], row[f"{q}_ci_low"], row[f"{q}_ci_high"], digits)
                  for q in policies]
        cells += [points_ci(*(row[f"{c}-{plan.reference}_{k}"] for k in ("diff", "ci_low", "ci_high")), digits)
                  for c in challengers]
        rows.append(cells)
    note = (f"{data.n_games:,} games per policy and player count, the same deals for every policy (seed "
            f"{data.seed}); win rates with Wilson 95% intervals, differences paired on the same games with "
            "t 95% intervals.")
    return {"heading": "Summary at the rulebook's seals",
            "title": f"{data.title} at the rulebook's seals: win rate % and paired difference (points) [95% CI]",
            "columns": columns, "rows": rows, "labels": 2, "note": note}


def build_context(data: VerfluchtData, *, out: str, command: str) -> dict[str, Any]:
    """Template variables of the report (everything but the figures)."""
    plan = data.plan
    policies = list(dict.fromkeys(plan.policies + plan.challengers))
    seals_text = " / ".join(str(data.rulebook_seals[p]) for p in plan.players)
    players_text = f"{min(plan.players)}-{max(plan.players)}" if len(plan.players) > 1 else str(plan.players[0])
    settings = content.provenance(data, plan.game) + [
        ("policies", ", ".join(policies) + (f" (described in {plan.rules_doc})" if plan.rules_doc else "")),
        ("reference policy", f"{plan.reference}: the others are compared with it on the same games"),
        ("player counts", players_text),
        ("seals", (f"{min(plan.seals)}-{max(plan.seals)} in figure 1; elsewhere the rulebook's "
                   f"{seals_text} for {players_text} players")),
        ("rule options", "the rulebook's reading by default; tested: "
                         + ", ".join(f"{name}={value_text(value)}" for name, value in plan.options)),
        ("intervals", "95%: Wilson for win rates, paired t for differences on the same games"),
    ]
    tested = {name: f"{value_text(value)} (figure 6)" for name, value in plan.options}
    defaults = {}
    if data.option_defaults.get("seals", 0) is None:
        defaults["seals"] = f"None (the rulebook's {seals_text})"
        tested["seals"] = f"{min(plan.seals)}-{max(plan.seals)} (figure 1)"
    options = content.option_rows(data, tested, ambiguous=[name for name, _ in plan.options], defaults=defaults)
    intro = (f"How often can {data.title} be won, how much do the seals and the players' decisions matter, "
             "and does the answer depend on how the rulebook's unclear sentences are read? "
             f"{data.games_played:,} simulated games, summarised in six figures; each comes with its reading "
             "in one line.")
    return content.context(data, out=out, command=command, intro=intro, settings=settings,
                           summary=summary_text(data), options=options, rules_doc=plan.rules_doc,
                           rules_note="the last figure measures how much each of them matters")


__all__ = ["TABLE_NOTES", "build_context", "summary_table", "summary_text"]
