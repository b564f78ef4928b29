"""The words and tables of the Verflucht! report: the summary at the rulebook's seals (numbers and
text), the settings, the intro and the notes on the CSV tables."""

from __future__ import annotations

from typing import Any

import pandas as pd

from cursedsim.report import content
from cursedsim.report.content import percent_ci, points_ci, value_text
from cursedsim.report.verflucht.data import VerfluchtData

TABLE_NOTES = {
    "win_rate_by_seals": "figures 1-2: win rate (Wilson 95%), mean score of won games, per policy, players and seals",
    "policies": "per player count and policy at the rulebook's seals",
    "policy_differences": "figure 3: paired differences challenger − reference (and the unpaired interval)",
    "scores_of_won_games": "figure 4: won games per score",
    "turns": "figure 5: games per draw-turn count, won and lost",
    "losses_by_cause": "figure 6: lost games per ending attack, share with Wilson 95% interval",
    "turn_of_loss": "figure 6: quartiles of the draw turn of the loss",
    "rule_sensitivity": "figure 7: paired differences option − default of win rate and score, with Holm-adjusted "
                        "p-values over every row (p_holm) and whether the effect survives them (survives)",
    "rule_policy_dependence": "figure 7: per option and player count, the option's effect on the win rate with a "
                              "policy minus its effect with the reference, paired on the same games (p_holm, survives)",
    "recommendations": "recommendations: per player count, policy and target win rate, the closest seal count",
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
        strong = _strongest(data, p)
        if strong is not None:
            row.update(strong_play=strong["contender"], strong_play_games=int(strong["games"]),
                       strong_play_win_rate=float(strong["rate"]), strong_play_ci_low=float(strong["ci_low"]),
                       strong_play_ci_high=float(strong["ci_high"]))
        rows.append(row)
    return pd.DataFrame(rows)


def _strongest(data: VerfluchtData, players: int):
    """The skill ceiling's strongest search row at ``players`` (None without one)."""
    from cursedsim.report.ceiling import strongest
    table = data.tables.get("skill_ceiling")
    if table is None or table.empty:
        return None
    return strongest(table, f"{players} player{'s' if players > 1 else ''}")


def summary_text(data: VerfluchtData, *, compact: bool = False) -> dict[str, Any]:
    """The summary table as text: ``heading``, ``title`` (for a terminal), ``columns``, ``rows``,
    ``labels`` (leading label columns) and a ``note``; ``compact``: short headers and one decimal (for
    a terminal)."""
    plan = data.plan
    table = summary_table(data)
    policies = _contenders(data)
    challengers = [c for c in policies if c != plan.reference]
    digits = 1 if compact else 2
    if compact:
        columns = ["players", "seals"] + [f"{policy} %" for policy in policies] + \
            [f"{c} − {plan.reference}" for c in challengers]
    else:
        columns = ["players", "seals"] + [f"{policy} win % [95% CI]" for policy in policies] + \
            [f"{c} − {plan.reference} (points) [95% CI]" for c in challengers]
    strong = "strong_play_win_rate" in table.columns
    if strong:
        columns.append("strong play %" if compact else "strong play (lower bound) win % [95% CI]")
    rows = []
    for row in table.to_dict("records"):
        cells = [str(row["players"]), str(row["seals"])]
        cells += [percent_ci(*(row[f"{q}_{k}"] for k in ("win_rate", "ci_low", "ci_high")), digits)
                  if f"{q}_win_rate" in row and pd.notna(row[f"{q}_win_rate"]) else "–" for q in policies]
        cells += [points_ci(*(row[f"{c}-{plan.reference}_{k}"] for k in ("diff", "ci_low", "ci_high")), digits)
                  if pd.notna(row.get(f"{c}-{plan.reference}_diff")) else "–" for c in challengers]
        if strong:
            cells.append(f"{percent_ci(row['strong_play_win_rate'], row['strong_play_ci_low'], row['strong_play_ci_high'], digits)}"
                         f" {row['strong_play'].replace('rollout (', '(rollout ')}"
                         if pd.notna(row.get("strong_play_win_rate")) else "–")
        rows.append(cells)
    note = (f"{data.n_games:,} games per policy and player count, the same deals for every policy (seed "
            f"{data.seed}); win rates with Wilson 95% intervals, differences paired on the same games with "
            "t 95% intervals.")
    if strong:
        games = int(table["strong_play_games"].dropna().iloc[0])
        note += (f" Strong play: the strongest search of the skill ceiling (the last section) on {games:,} of the "
                 "same deals: what skilled players win at least (a lower bound; the heuristics are rules of thumb).")
    return {"heading": "Summary at the rulebook's seals",
            "title": f"{data.title} at the rulebook's seals: win rate % and paired difference (points) [95% CI]",
            "columns": columns, "rows": rows, "labels": 2, "note": note}


def _contenders(data: VerfluchtData) -> list[str]:
    """Every policy compared at the rulebook's seals: the played ones (reference first), then the
    plan's other challengers (random)."""
    return list(dict.fromkeys(data.labels + list(data.plan.challengers)))


def _added(data: VerfluchtData) -> str:
    """The tuned and added policies and where they come from (empty if none)."""
    parts = []
    for policy in data.played:
        if policy.source == "built-in":
            continue
        if policy.by_players is not None:
            where = ", ".join(str(p) for p in sorted(policy.by_players))
            parts.append(f"{policy.label}: {policy.policy} with the parameters tuned per player count ({where}) in "
                         f"{_shown_path(policy.source)}, at every seal count")
        else:
            parts.append(f"{policy.label}: added with --policy")
    return "; ".join(parts)


def _shown_path(path: str) -> str:
    """A file path relative to the repository when it is inside it."""
    import os

    from cursedsim.report.content import REPO_ROOT
    absolute = os.path.abspath(path)
    root = str(REPO_ROOT) + os.sep
    return absolute[len(root):] if absolute.startswith(root) else path


def _headline(data: VerfluchtData) -> str:
    """The strongest play measured, per player count, against the best heuristic (empty without a ceiling)."""
    table = summary_table(data)
    if "strong_play_win_rate" not in table.columns:
        return ""
    parts = []
    for row in table.dropna(subset=["strong_play_win_rate"]).to_dict("records"):
        best = max(_contenders(data), key=lambda q: row.get(f"{q}_win_rate", -1.0))
        parts.append(f"{row['players']} players {100 * row['strong_play_win_rate']:.0f}% "
                     f"[{100 * row['strong_play_ci_low']:.0f}, {100 * row['strong_play_ci_high']:.0f}] against "
                     f"{best}'s {100 * row[f'{best}_win_rate']:.1f}%")
    search = table["strong_play"].dropna().iloc[0]
    return (f" **Skilled play wins far more often than the heuristics:** at the rulebook's seals the strongest "
            f"search measured ({search}, a lower bound on skilled play) wins " + "; ".join(parts) +
            " (the skill ceiling at the end; the heuristic rows are rules of thumb).")


def build_context(data: VerfluchtData, *, out: str, command: str) -> dict[str, Any]:
    """Template variables of the report (everything but the figures)."""
    plan = data.plan
    policies = _contenders(data)
    seals_text = " / ".join(str(data.rulebook_seals[p]) for p in plan.players)
    players_text = f"{min(plan.players)}-{max(plan.players)}" if len(plan.players) > 1 else str(plan.players[0])
    settings = content.provenance(data, plan.game) + [
        ("policies", ", ".join(policies) + (f" (described in {plan.rules_doc})" if plan.rules_doc else "")),
        ("reference policy", f"{plan.reference}: the others are compared with it on the same games"),
    ] + ([("tuned and added policies", _added(data))] if _added(data) else []) + [
        ("colours", "one colour per policy in every figure of every report (cursedsim.palette; tuned: darker)"),
        ("player counts", players_text),
        ("seals", (f"{min(plan.seals)}-{max(plan.seals)} in figures 1-2; elsewhere the rulebook's "
                   f"{seals_text} for {players_text} players")),
        ("rule options", "the rulebook's reading by default; tested: "
                         + ", ".join(f"{name}={value_text(value)}" for name, value in plan.options)),
        ("intervals", "95%: Wilson for win rates, paired t for differences on the same games; figure 7 scans "
                      "many readings at once, so its p-values are also Holm-adjusted over all of them"),
    ]
    tested = {name: f"{value_text(value)} (figure 7)" for name, value in plan.options}
    defaults = {}
    if data.option_defaults.get("seals", 0) is None:
        defaults["seals"] = f"None (the rulebook's {seals_text})"
        tested["seals"] = f"{min(plan.seals)}-{max(plan.seals)} (figures 1-2)"
    options = content.option_rows(data, tested, ambiguous=[name for name, _ in plan.options], defaults=defaults)
    intro = (f"How often can {data.title} be won, how much do the seals and the players' decisions matter, "
             "and does the answer depend on how the rulebook's unclear sentences are read? "
             f"{data.games_played:,} simulated games, "
             f"summarised in {content.figures_phrase(data, 7)}; each comes with its reading "
             "in one line." + _headline(data))
    return content.context(data, out=out, command=command, intro=intro, settings=settings,
                           summary=summary_text(data), options=options, rules_doc=plan.rules_doc,
                           rules_note="figure 7 measures how much each of them matters", headline=False)


__all__ = ["TABLE_NOTES", "build_context", "summary_table", "summary_text"]
