"""Many comparisons, read honestly: the rule-sensitivity figure of the Cursed!? report tests every
reading of every ambiguous rule with every policy, so its p-values are Holm-adjusted over that whole
family, and each reading's effect is checked for depending on the policy (the option's effect with one
policy minus its effect with another, game by game on the same deals). This module turns those tables
(``CursedData.sensitivity``, ``CursedData.dependence``) into the figure's table and sentence.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from cursedsim.report.content import points_ci
from cursedsim.report.cursed.data import CursedData
from cursedsim.report.data import ALPHA
from cursedsim.report.figures import TextTable, option_label, points


def _matches(table: pd.DataFrame, name: str, value: Any) -> pd.DataFrame:
    """The rows of ``table`` for the reading ``name=value`` (values compared as text: CSV-safe)."""
    rows = table[table["option"] == name]
    return rows[[str(v) == str(value) for v in rows["value"]]]


def reading_label(name: str, value: Any) -> str:
    """``dagger_value=low``."""
    return option_label(name, value).replace(" = ", "=")


def verdicts(data: CursedData) -> pd.DataFrame:
    """Per reading: ``survives_with`` (the policies whose effect survives Holm's adjustment),
    ``policy_dependent`` (the difference-of-differences survives its own Holm adjustment) and
    ``dependence`` (that difference as a share: the effect with another policy minus the effect with the
    first; the largest in size when there are several)."""
    rows = []
    for name, value in data.plan.options:
        effects = _matches(data.sensitivity, name, value)
        dependence = _matches(data.dependence, name, value)
        rows.append({"option": name, "value": value, "reading": reading_label(name, value),
                     "survives_with": tuple(effects.loc[effects["survives"].astype(bool), "policy"]),
                     "policy_dependent": bool(dependence["survives"].astype(bool).any()),
                     "dependence": float(dependence["diff"].loc[dependence["diff"].abs().idxmax()])
                     if len(dependence) else 0.0})
    return pd.DataFrame(rows)


def verdict_cells(row: dict[str, Any]) -> list[str]:
    """A reading's verdict as two cells: the policies whose effect survives Holm's adjustment (``-``:
    none) and whether its effect is policy-dependent (``yes``/``no``)."""
    return [", ".join(row["survives_with"]) or "-", "yes" if row["policy_dependent"] else "no"]


def p_text(p: float) -> str:
    """A p-value in a table cell: ``<0.001``, ``0.0123``, ``1``; ``-`` for none."""
    if p != p:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3g}"


def holm_table(data: CursedData) -> TextTable:
    """Per reading: its effect with every policy (points and Holm-adjusted p; the intervals are in the
    figure), the difference of the effects between the policies (points, 95% interval, Holm-adjusted
    p), and the verdict: with which policies it moves the win rate, whether that depends on the policy."""
    policies = list(data.plan.sensitivity_policies)
    first, others = policies[0], policies[1:]
    columns = ["reading"]
    for policy in policies:
        columns += [f"{policy} (points)", "Holm p"]
    for other in others:
        columns += [f"{other} − {first} (points) [95% CI]", "Holm p"]
    columns += ["moves it with (Holm)", "policy-dependent"]
    verdict = verdicts(data).set_index("reading")
    rows = []
    for name, value in data.plan.options:
        effects = _matches(data.sensitivity, name, value).set_index("policy")
        dependence = _matches(data.dependence, name, value).set_index("policy")
        cells = [reading_label(name, value)]
        for policy in policies:
            row = effects.loc[policy]
            cells += [f"{100 * row['diff']:+.2f}", p_text(row["p_holm"])]
        for other in others:
            row = dependence.loc[other]
            cells += [points_ci(row["diff"], row["ci_low"], row["ci_high"]), p_text(row["p_holm"])]
        cells += verdict_cells(verdict.loc[reading_label(name, value)].to_dict())
        rows.append(cells)
    n_effects = int(data.sensitivity["p_value"].notna().sum())
    note = (f"Holm p: each effect's p-value adjusted over all {n_effects} effects of the figure (every reading "
            f"with every policy), so that the chance of calling any zero effect real stays below {ALPHA:g}; a "
            f"reading 'moves' the win rate with a policy when that adjusted p is below {ALPHA:g} (the effects' "
            f"intervals are in the figure). {' and '.join(others)} − "
            f"{first}: the option's effect with the other policy minus its effect with {first}, computed game "
            "by game on the same deals ((option − default with one policy) − (option − default with the "
            "other), a paired difference of differences with its t 95% interval), its p-value "
            f"Holm-adjusted over the {len(data.plan.options)} readings; a reading is 'policy-dependent' when "
            f"that adjusted p is below {ALPHA:g}: how much it matters is then a property of how one "
            "plays, not of the rule alone (tables/rule_sensitivity.csv, tables/rule_policy_dependence.csv).")
    return TextTable("Which effects survive the adjustment for many comparisons, and which depend on the policy",
                     columns, rows, note)


def adjusted_reading(data: CursedData) -> str:
    """The clause the figure's reading ends with: how many effects survive Holm's adjustment and which
    readings' effects depend on the policy (the largest differences first)."""
    table = verdicts(data)
    n_effects = int(data.sensitivity["p_value"].notna().sum())
    surviving = int(data.sensitivity["survives"].astype(bool).sum())
    dependent = table[table["policy_dependent"]].sort_values("dependence", key=abs, ascending=False)
    policies = data.plan.sensitivity_policies
    text = (f"after Holm's adjustment over all {n_effects} effects, {surviving} survive at {ALPHA:g}, and "
            f"{len(dependent)} reading{'s' if len(dependent) != 1 else ''} "
            f"{'depend' if len(dependent) != 1 else 'depends'} on the policy")
    if len(dependent):
        shown = [f"{row.reading} ({points(row.dependence)} points {' and '.join(policies[1:])} − {policies[0]})"
                 for row in dependent.head(3).itertuples()]
        text += ", most " + ", ".join(shown)
    return text


__all__ = ["adjusted_reading", "holm_table", "p_text", "reading_label", "verdict_cells", "verdicts"]
