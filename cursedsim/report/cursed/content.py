"""The words and tables of the Cursed!? report: the summary (win rate per policy and paired difference
from the reference), the settings, the intro and the notes on the CSV tables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from cursedsim.report import content
from cursedsim.report.content import percent_ci, points_ci, value_text
from cursedsim.report.cursed.data import CursedData
from cursedsim.report.cursed.sensitivity import p_text

TABLE_NOTES = {
    "policies": "figure 1: per policy, win rate (Wilson 95%) and mean souls, rounds, damage, weapons drawn, busts",
    "policy_differences": "figure 1: paired differences policy − reference with p-value and Holm-adjusted p-value "
                          "(and the unpaired interval)",
    "items_used": "figure 1: per policy and item, mean uses per game and share of games using it",
    "ends": "figure 1: per policy, how games end, share with Wilson 95% interval",
    "souls": "figure 2: per policy, games ending with 0..8 souls",
    "stop_sweep": "figure 3: win rate per stopping parameter (k, counting's margin) and the paired "
                  "difference from the policy's best value, with Holm-adjusted p-values",
    "starting_items": "figure 4 and the recommendations: win rate per starting item and the paired difference "
                      "from a random start, with Holm-adjusted p-values",
    "rule_sensitivity": "figure 5: paired differences option − default of the win rate, share of games changed, "
                        "Holm-adjusted p-value over every reading and policy and whether it survives",
    "rule_policy_dependence": "figure 5: per reading, its effect with one policy minus its effect with the other, "
                              "paired game by game, with Holm-adjusted p-value over the readings",
}


def _and(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def summary_table(data: CursedData) -> pd.DataFrame:
    """One row per policy: its win rate with the 95% interval and its paired difference from the
    reference with the 95% interval and its Holm-adjusted p-value (over the policies compared; 0 and NaN
    for the reference itself), as numbers."""
    plan = data.plan
    rates = data.policies.set_index("policy")
    diffs = data.policy_diffs.set_index("a")
    rows = []
    for policy in data.labels:
        row: dict[str, Any] = {"policy": policy,
                               **{c: float(rates.loc[policy, c]) for c in ("win_rate", "ci_low", "ci_high")}}
        if policy == plan.reference:
            row.update(diff=0.0, diff_ci_low=0.0, diff_ci_high=0.0, p_holm=float("nan"))
        else:
            row.update(diff=float(diffs.loc[policy, "diff"]), diff_ci_low=float(diffs.loc[policy, "ci_low"]),
                       diff_ci_high=float(diffs.loc[policy, "ci_high"]), p_holm=float(diffs.loc[policy, "p_holm"]))
        rows.append(row)
    return pd.DataFrame(rows)


def summary_text(data: CursedData, *, compact: bool = False) -> dict[str, Any]:
    """The summary table as text: ``heading``, ``title`` (for a terminal), ``columns``, ``rows``,
    ``labels`` (leading label columns) and a ``note``; ``compact``: short headers and one decimal."""
    from cursedsim.report.cursed.figures import policy_label
    plan = data.plan
    digits = 1 if compact else 2
    columns = (["policy", "win %", f"− {plan.reference}", "Holm p"] if compact else
               ["policy", "win % [95% CI]", f"− {plan.reference} (points) [95% CI]", "Holm p"])
    rows = []
    for row in summary_table(data).to_dict("records"):
        diff = "reference" if row["policy"] == plan.reference else \
            points_ci(row["diff"], row["diff_ci_low"], row["diff_ci_high"], digits)
        rows.append([policy_label(data, row["policy"]),
                     percent_ci(row["win_rate"], row["ci_low"], row["ci_high"], digits), diff, p_text(row["p_holm"])])
    note = (f"{data.n_games:,} games per policy, 1 player, the rulebook's rules, the same deals for every "
            f"policy (seed {data.seed}); win rates with Wilson 95% intervals, differences from "
            f"{plan.reference} paired on the same games with t 95% intervals; Holm p: the p-value of a "
            f"difference adjusted for the {len(data.labels) - 1} comparisons of this table (Holm).")
    return {"heading": "Summary: win rate by policy",
            "title": f"{data.title}, 1 player: win rate % and paired difference (points) [95% CI]",
            "columns": columns, "rows": rows, "labels": 1, "note": note}


def _added_policies(data: CursedData) -> list[tuple[str, str]]:
    """Settings rows for the policies not built in (tuned, added): their parameters and where they came
    from (a tuned file as a path relative to the repository when it lies in it)."""
    rows = []
    for label in data.labels:
        source = data.policy_sources.get(label, "built-in")
        if source == "built-in":
            continue
        if os.path.isabs(source) and Path(source).is_relative_to(content.REPO_ROOT):
            source = Path(source).relative_to(content.REPO_ROOT).as_posix()
        params = ", ".join(f"{key}={value:.3g}" for key, value in data.policy_params[label].items())
        rows.append((label, f"{params} (from {source}; figure 1 and the summary)"))
    return rows


def build_context(data: CursedData, *, out: str, command: str) -> dict[str, Any]:
    """Template variables of the report (everything but the figures)."""
    from cursedsim.report.cursed.figures import policy_label
    plan = data.plan
    k_text = f"{min(plan.k_values)}-{max(plan.k_values)}"
    margins = ", ".join(f"{m:g}" for m in plan.margins)
    settings = content.provenance(data, plan.game) + [
        ("policies", ", ".join(policy_label(data, p) for p in data.labels)
         + (f" (described in {plan.rules_doc})" if plan.rules_doc else "")),
        ("reference policy", f"{plan.reference}: the others are compared with it on the same games"),
        *_added_policies(data),
        ("player count", "1 (a solo game)"),
        ("stopping parameters", f"k = {k_text} for {_and(plan.stop_policies)}; margin = {margins} for counting "
                                "(figure 3)"),
        ("starting items", f"each of the {len(plan.items)} items forced, and none, for "
                           f"{_and(plan.item_policies)} (figure 4)"),
        ("rule options", "the rulebook's reading by default; tested for "
                         f"{_and(plan.sensitivity_policies)} (figure 5): "
                         + ", ".join(f"{name}={value_text(value)}" for name, value in plan.options)),
        ("intervals", "95%: Wilson for win rates, paired t for differences on the same games"),
    ]
    tested: dict[str, list[str]] = {}
    for name, value in plan.options:
        tested.setdefault(name, []).append(value_text(value))
    tested_text = {name: ", ".join(values) + " (figure 5)" for name, values in tested.items()}
    tested_text["starting_item"] = "every item (figure 4)"
    tested_text["starting_items"] = "0 (figure 4)"
    options = content.option_rows(data, tested_text, ambiguous=list(tested))
    intro = (f"How often can {data.title} be won, which way of playing wins most, when should you stop "
             "drawing weapons, what is each starting item worth, and does the answer depend on how the "
             f"rulebook's unclear sentences are read? {data.games_played:,} simulated solo games, summarised "
             f"in {content.figures_phrase(data, 5)}; each comes with its reading in one line.")
    return content.context(data, out=out, command=command, intro=intro, settings=settings,
                           summary=summary_text(data), options=options, rules_doc=plan.rules_doc,
                           rules_note="figure 5 measures how much each of them matters")


__all__ = ["TABLE_NOTES", "build_context", "summary_table", "summary_text"]
