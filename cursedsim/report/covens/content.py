"""The words and tables of the Curses & Covens report: the summary (the hunter's win rate for every
pairing of policies at every player count), the settings, the intro and the notes on the CSV tables."""

from __future__ import annotations

from typing import Any

import pandas as pd

from cursedsim.report import content
from cursedsim.report.content import percent_ci, value_text
from cursedsim.report.covens.data import CovensData

TABLE_NOTES = {
    "hunter_win_matrix": "figure 1 and the summary: per player count and pairing, the hunter's and the town's win "
                         "rates (Wilson 95%), unfinished share, mean rounds",
    "skill_effects": "figure 2: paired gains of a clever hunter (hunter win rate) and of a coordinated town (town "
                     "win rate), with p-value, Holm-adjusted p-value and whether it survives",
    "win_types": "figure 3: per player count and pairing, how games end, share with Wilson 95% interval",
    "game_length": "figure 4: the main pairing's games per number of rounds, per player count",
    "game_length_summary": "figure 4: per player count and pairing, mean (se), median, 90th percentile and longest "
                           "game in rounds",
    "rituals": "figure 5: per player count, the hunter's win rate without − with rituals (paired), Holm, and how "
               "games end both ways",
    "spells_cast": "figure 6: per player count and spell, casts per game and share of games casting it",
    "spell_values": "figure 6: per player count, the town's win rate with the default − with the spell(s) off "
                    "(paired), Holm",
    "rule_sensitivity": "figure 7: per reading and player count, the hunter's win rate reading − default (paired), "
                        "games changed, Holm over every reading and player count",
}


def summary_table(data: CovensData) -> pd.DataFrame:
    """One row per pairing and player count: the hunter's and the town's win rates with 95% intervals."""
    columns = ["players", "towns", "hunter", "town", "hunter_win_rate", "ci_low", "ci_high", "town_win_rate",
               "town_ci_low", "town_ci_high"]
    return data.matrix[columns].reset_index(drop=True)


def summary_text(data: CovensData, *, compact: bool = False) -> dict[str, Any]:
    """The summary as text: one row per pairing, the hunter's win rate (with its interval unless
    ``compact``) at every player count."""
    from cursedsim.report.covens.figures import pairing
    plan = data.plan
    digits = 1 if compact else 2
    matrix = data.matrix.set_index(["players", "hunter", "town"])
    columns = ["hunter vs town"] + [f"{p} players ({p - 1} towns)" for p in plan.players]
    rows = []
    for hunter in plan.hunters:
        for town in plan.towns:
            cells = [matrix.loc[(p, hunter, town)] for p in plan.players]
            rows.append([pairing(hunter, town)] + [
                f"{100 * c['hunter_win_rate']:.{digits}f}" if compact else
                percent_ci(c["hunter_win_rate"], c["ci_low"], c["ci_high"], digits) for c in cells])
    note = (f"The hunter's win rate (%) with its Wilson 95% interval; {data.n_games:,} games per cell, the same "
            f"deals for every pairing at a player count (seed {data.seed}); the town wins the other games but for "
            "the unfinished ones (figure 3).")
    return {"heading": "Summary: the hunter's win rate by pairing and player count",
            "title": f"{data.title}: hunter win % by pairing and player count", "columns": columns, "rows": rows,
            "labels": 1, "note": note}


def build_context(data: CovensData, *, out: str, command: str) -> dict[str, Any]:
    """Template variables of the report (everything but the figures)."""
    from cursedsim.report.covens.figures import pairing
    plan = data.plan
    main = pairing(*plan.main)
    spells = ", ".join(label for label, _, _ in plan.spells)
    settings = content.provenance(data, plan.game) + [
        ("player counts", ", ".join(f"{p} ({p - 1} towns)" for p in plan.players)),
        ("hunter policies", ", ".join(plan.hunters) + (f" (described in {plan.rules_doc})" if plan.rules_doc else "")),
        ("town policies", ", ".join(plan.towns) + " (one policy for every town, each deciding from its own view)"),
        ("pairings", f"every hunter policy against every town policy (figures 1-4); {main} for figures 5-7"),
        ("rituals", f"rituals=false against the default with {main} (figure 5)"),
        ("spells", f"{spells} against the default with {main} (figure 6)"),
        ("rule options", f"every other reading of every open rule with {main} (figure 7): "
                         + ", ".join(f"{name}={value_text(value)}" for name, value in plan.readings)),
        ("intervals", "95%: Wilson for win rates, paired t for differences on the same games; Holm over each "
                      "figure's comparisons"),
    ]
    tested: dict[str, list[str]] = {}
    for name, value in plan.readings:
        tested.setdefault(name, []).append(value_text(value))
    tested_text = {name: ", ".join(values) + " (figure 7)" for name, values in tested.items()}
    tested_text["rituals"] = "false (figure 5)"
    spell_values: dict[str, list[str]] = {}
    for _, options, _ in plan.spells:
        for name, value in options.items():
            spell_values.setdefault(name, []).append(value_text(value))
    tested_text |= {name: ", ".join(values) + " (figure 6)" for name, values in spell_values.items()}
    options = content.option_rows(data, tested_text, ambiguous=list(tested))
    intro = (f"Is {data.title} balanced at 4, 5 and 6 players, how much do a clever Witch Hunter and a coordinated "
             "town change the odds, how do games end and how long do they last, what are the rituals and the "
             "spells worth, and does the answer depend on how the rules' open points are read? "
             f"{data.games_played:,} simulated games, "
             f"summarised in {content.figures_phrase(data, 7)}; each comes with its reading.")
    return content.context(data, out=out, command=command, intro=intro, settings=settings,
                           summary=summary_text(data), options=options, rules_doc=plan.rules_doc,
                           rules_note="figure 7 measures how much each of them matters")


__all__ = ["TABLE_NOTES", "build_context", "summary_table", "summary_text"]
