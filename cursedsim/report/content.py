"""The words and tables of a report, from its data: the settings it states, the summary table and the
rule options; the writer's templates turn them into Markdown and HTML."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from cursedsim.report.data import ReportData

#: Where the documentation lives, relative to the repository root.
REPORTS_DOC = "docs/reports.md"
REPO_ROOT = Path(__file__).resolve().parents[2]

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


def percent_ci(rate: float, low: float, high: float, digits: int = 2) -> str:
    return f"{100 * rate:.{digits}f} [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def points_ci(diff: float, low: float, high: float, digits: int = 2) -> str:
    return f"{100 * diff:+.{digits}f} [{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]"


def summary_table(data: ReportData) -> pd.DataFrame:
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


def summary_text(data: ReportData, *, compact: bool = False) -> dict[str, Any]:
    """The summary table as text: ``columns``, ``rows`` and a ``note``; ``compact``: short headers and
    one decimal (for a terminal)."""
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
    return {"columns": columns, "rows": rows, "note": note}


def _value_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def build_context(data: ReportData, *, out: str, command: str) -> dict[str, Any]:
    """Template variables of the report (everything but the figures)."""
    plan = data.plan
    policies = list(dict.fromkeys(plan.policies + plan.challengers))
    seals_text = " / ".join(str(data.rulebook_seals[p]) for p in plan.players)
    players_text = f"{min(plan.players)}-{max(plan.players)}" if len(plan.players) > 1 else str(plan.players[0])
    tested = {name: value for name, value in plan.options}
    settings = [
        ("game", f"{data.title} ({plan.game})"),
        ("cursedsim", f"version {data.version}, sources {data.code}"),
        ("seed", f"{data.seed} (game i of every run starts from the same deal)"),
        ("games per cell", f"{data.n_games:,}"),
        ("runs and games", f"{data.runs} runs, {data.games_played:,} games"),
        ("policies", ", ".join(policies) + (f" (described in {plan.rules_doc})" if plan.rules_doc else "")),
        ("reference policy", f"{plan.reference}: the others are compared with it on the same games"),
        ("player counts", players_text),
        ("seals", (f"{min(plan.seals)}-{max(plan.seals)} in figure 1; elsewhere the rulebook's "
                   f"{seals_text} for {players_text} players")),
        ("rule options", "the rulebook's reading by default; tested: "
                         + ", ".join(f"{name}={_value_text(value)}" for name, value in plan.options)),
        ("intervals", "95%: Wilson for win rates, paired t for differences on the same games"),
    ]
    method = (f"Every run plays games 0 to {data.n_games - 1:,} with seed {data.seed}; game i draws its cards "
              "from a random stream keyed by (seed, i), so game i of every run starts from the same deal. "
              "Policies and rule options are therefore compared game by game (common random numbers), which "
              "makes their differences more precise than independent samples of the same size. The "
              "per-game results are kept as Parquet files under runs/ (not committed), so an interrupted "
              "report resumes where it stopped.")
    options = []
    for name, doc in data.option_docs.items():
        default = data.option_defaults.get(name)
        if name == "seals" and default is None:
            default_text = f"None (the rulebook's {seals_text})"
            tested_text = f"{min(plan.seals)}-{max(plan.seals)} (figure 1)"
        else:
            default_text = _value_text(default)
            tested_text = f"{_value_text(tested[name])} (figure 6)" if name in tested else "-"
        note = " One reading of an ambiguous rule." if name in tested else ""
        options.append({"name": name, "default": default_text, "tested": tested_text,
                        "doc": " ".join(doc.replace("``", "").split()) + note})
    rules_path = REPO_ROOT / plan.rules_doc if plan.rules_doc else None
    rules_link = None
    if rules_path is not None and rules_path.is_file():
        rules_link = Path(os.path.relpath(rules_path, os.path.abspath(out))).as_posix()
    intro = (f"How often can {data.title} be won, how much do the seals and the players' decisions matter, "
             "and does the answer depend on how the rulebook's unclear sentences are read? "
             f"{data.games_played:,} simulated games, summarised in six figures; each comes with its reading "
             "in one line.")
    return {
        "title": f"{data.title} balance report", "intro": intro, "settings": settings, "method": method,
        "summary": summary_text(data), "options": options, "rules_doc": plan.rules_doc, "rules_link": rules_link,
        "command": command, "reports_doc": REPORTS_DOC, "version": data.version,
    }


__all__ = ["TABLE_NOTES", "build_context", "summary_table", "summary_text"]
