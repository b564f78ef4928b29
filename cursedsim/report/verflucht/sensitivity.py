"""Figure 7 of the Verflucht! report: how much each reading of an ambiguous rule matters, which effects
survive a Holm adjustment over every reading scanned, and which depend on the policy rather than on
the rule.

An effect *depends on the policy* at a player count when the option's paired effect on the win rate
with a policy minus its effect with the reference policy, computed game by game on the same games (a
difference of differences), has a Holm-adjusted p-value below 0.05 (family: every such comparison of
the report). It is marked *opposite* when, in addition, both effects survive their own Holm adjustment
with opposite signs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from cursedsim.report.data import ALPHA
from cursedsim.report.figures import ReportFigure, TextTable, new_figure, option_label, panels, points
from cursedsim.report.verflucht.data import VerfluchtData
from cursedsim.report.verflucht.labels import color, players_label, players_range


def _where(row: pd.Series, policies: Sequence[str]) -> str:
    where = players_label(int(row["players"]))
    return where + (f", {row['policy']}" if len(policies) > 1 else "")


def dependent(data: VerfluchtData) -> pd.DataFrame:
    """The rows of ``data.dependence`` whose effect depends on the policy (Holm-adjusted difference of
    differences below ALPHA), with ``kind``: ``opposite`` (both effects survive with opposite signs)
    or ``size``."""
    dep = data.dependence
    if not len(dep):
        return dep.assign(kind=pd.Series(dtype=str))
    dep = dep[dep["survives"]]
    sens = data.sensitivity[data.sensitivity["measure"] == "win_rate"].set_index(["option", "players", "policy"])
    kinds = []
    for _, row in dep.iterrows():
        own = sens.loc[(row["option"], row["players"], row["policy"])]
        ref = sens.loc[(row["option"], row["players"], row["reference"])]
        opposite = own["survives"] and ref["survives"] and np.sign(own["diff"]) == -np.sign(ref["diff"])
        kinds.append("opposite" if opposite else "size")
    return dep.assign(kind=kinds)


def _panel(ax, data: VerfluchtData, name: str, value, measure: str, shaded: Sequence[int]) -> None:
    """One option: the paired change per player count and policy; filled markers survive Holm; the
    player counts where the effect depends on the policy shaded."""
    plan, table = data.plan, data.sensitivity
    scale = 100 if measure == "win_rate" else 1
    for p in shaded:
        ax.axvspan(p - 0.45, p + 0.45, color="0.88", lw=0, zorder=0)
    labels = data.labels
    for i, policy in enumerate(labels):
        rows = table[(table["option"] == name) & (table["policy"] == policy)
                     & (table["measure"] == measure)].sort_values("players")
        if not len(rows):
            continue
        offset = (i - (len(labels) - 1) / 2) * 0.16
        err = scale * np.vstack([rows["diff"] - rows["ci_low"], rows["ci_high"] - rows["diff"]])
        ax.errorbar(rows["players"] + offset, scale * rows["diff"], yerr=np.nan_to_num(err), fmt="none",
                    capsize=3, ecolor=color(policy))
        for survives, face in ((True, color(policy)), (False, "white")):
            cut = rows[rows["survives"] == survives]
            ax.plot(cut["players"] + offset, scale * cut["diff"], ls="none", marker="o", ms=4.5, mec=color(policy),
                    mfc=face)
        ax.plot([], [], ls="none", marker="o", ms=4.5, color=color(policy), label=policy)   # legend entry
    ax.axhline(0, color="0.3", lw=1)
    ax.set_title(option_label(name, value) + ("" if measure == "win_rate" else "\n(score of won games)"), fontsize=9)
    ax.set_xticks(list(plan.players))
    ax.set_xlabel("players")
    ax.set_ylabel("win rate change (points)" if measure == "win_rate" else "score change (lower is better)")


def rule_sensitivity(data: VerfluchtData) -> ReportFigure:
    """Paired change of the win rate (and of the score, for options that only move scores) when one
    ambiguous rule takes its other reading, per player count and policy; Holm survivors filled,
    policy-dependent effects shaded, both listed in tables."""
    plan = data.plan
    marked = dependent(data)
    shown = [(name, value, "win_rate") for name, value in plan.options]
    shown += [(name, value, "score") for name, value in plan.options if name in plan.score_options]
    figure = new_figure(3.1 * len(shown) + 0.6, 3.8)
    axes = panels(figure, len(shown), sharey=False)
    for ax, (name, value, measure) in zip(axes, shown):
        shaded = sorted(set(marked.loc[marked["option"] == name, "players"])) if measure == "win_rate" else []
        _panel(ax, data, name, value, measure, shaded)
    handles, _ = axes[0].get_legend_handles_labels()
    handles += [Line2D([], [], ls="none", marker="o", color="0.3", label="survives Holm"),
                Line2D([], [], ls="none", marker="o", mec="0.3", mfc="white", label="does not"),
                Patch(color="0.88", label="depends on the policy")]
    axes[0].legend(handles=handles, fontsize=7)
    reading = _reading(data, marked)
    about = ("Each ambiguous rule (a named option, see the rules document) was played in its other reading on "
             "the same games as the default at the rulebook's seals; points are the paired difference option − "
             f"default, bars its 95% interval. The figure scans {len(data.sensitivity)} effects (readings × policies "
             "× player counts × measures), so their p-values are Holm-adjusted over all of them: filled markers "
             f"survive (adjusted p < {ALPHA:g}), hollow ones do not. An effect depends on the policy rather than "
             "on the rule when the option's effect with a policy minus its effect with "
             f"{plan.reference}, paired game by game on the same games (a difference of differences), has a "
             f"Holm-adjusted p-value below {ALPHA:g} over all {len(data.dependence)} such comparisons: those player "
             "counts are shaded; \"opposite\" when both effects survive with opposite signs.")
    return ReportFigure("rule_sensitivity", "Sensitivity to the rulebook's ambiguities", about, figure, reading,
                        tables=[_effects_table(data), _dependence_table(data, marked)])


def _ci(row: pd.Series, scale: float = 100) -> str:
    digits = 2 if scale == 100 else 1
    return (f"{scale * row['diff']:+.{digits}f} [{scale * row['ci_low']:+.{digits}f}, "
            f"{scale * row['ci_high']:+.{digits}f}]")


def _effects_table(data: VerfluchtData) -> TextTable:
    """Every effect on the win rate: option, players, then per policy the change [95% CI] (* survives)."""
    table = data.sensitivity[data.sensitivity["measure"] == "win_rate"]
    labels = [label for label in data.labels if label in set(table["policy"])]
    rows = []
    for (name, value, players), group in table.groupby(["option", "value", "players"], sort=False):
        cells = group.set_index("policy")
        rows.append([option_label(name, value), str(players)]
                    + [(_ci(cells.loc[label]) + (" *" if cells.loc[label, "survives"] else ""))
                       if label in cells.index else "–" for label in labels])
    survivors = int(data.sensitivity["survives"].sum())
    return TextTable("Effects on the win rate (points, option − default) [95% CI]",
                     ["option", "players"] + labels, rows,
                     f"*: survives the Holm adjustment over all {len(data.sensitivity)} effects scanned "
                     f"({survivors} do). tables/rule_sensitivity.csv has every p-value, raw (p_value) and adjusted "
                     "(p_holm).")


def _dependence_table(data: VerfluchtData, marked: pd.DataFrame) -> TextTable:
    """The effects that depend on the policy: option, players, policy, both effects, their difference."""
    rows = [[option_label(r["option"], r["value"]), str(r["players"]), f"{r['policy']} − {r['reference']}",
             points(r["effect"]), points(r["effect_reference"]), _ci(r), f"{r['p_holm']:.2g}", r["kind"]]
            for _, r in marked.iterrows()]
    note = (f"{len(marked)} of {len(data.dependence)} differences of differences survive the Holm adjustment"
            + ("" if len(marked) else ": no effect depends on the policy") + ". tables/rule_policy_dependence.csv "
            "has them all.")
    return TextTable("Effects that depend on the policy (points)",
                     ["option", "players", "policies", "effect with the policy", "effect with the reference",
                      "difference [95% CI]", "Holm p", "kind"], rows, note)


def _option_clause(data: VerfluchtData, name: str, value) -> str | None:
    """One option's effect: unchanged games, or the range of the win-rate change (and of the score
    change for options that only move scores), with where it is largest."""
    plan, table = data.plan, data.sensitivity
    label = option_label(name, value).replace(" = ", "=")
    rows = table[(table["option"] == name) & (table["measure"] == "win_rate")]
    if not len(rows):
        return None
    if (rows["games_changed"] == 0).all():
        return f"{label} leaves every game unchanged with these policies"
    low, high = 100 * rows["diff"].min(), 100 * rows["diff"].max()
    top = rows.loc[rows["diff"].abs().idxmax()]
    if (rows["diff"] == 0).all():
        clause = f"{label} never changes who wins"
    elif low >= 0 or high <= 0:
        verb = "raises" if low >= 0 else "lowers"
        span = f"{min(abs(low), abs(high)):.1f} to {max(abs(low), abs(high)):.1f}"
        clause = f"{label} {verb} the win rate by {span} points (most at {_where(top, data.labels)})"
    else:
        clause = f"{label} moves the win rate by {low:+.1f} to {high:+.1f} points"
    survivors = rows[rows["survives"]]
    clause += (f", {len(survivors)} of its {len(rows)} effects surviving Holm"
               + (f" (at {players_range(set(survivors['players']))} players)" if len(survivors) else ""))
    score = table[(table["option"] == name) & (table["measure"] == "score")]
    if name in plan.score_options and len(score):
        low, high = score["diff"].min(), score["diff"].max()
        top = score.loc[score["diff"].abs().idxmax()]
        if low >= 0 or high <= 0:
            verb, effect = ("raises", "worse") if low >= 0 else ("lowers", "better")
            clause += (f"; it {verb} the mean score of won games by up to {max(abs(low), abs(high)):.1f} "
                       f"({effect}; most at {_where(top, data.labels)})")
        else:
            clause += f"; it moves the mean score of won games by {low:+.1f} to {high:+.1f}"
        clause += f", {int(score['survives'].sum())} of these {len(score)} effects surviving Holm"
    return clause


def _reading(data: VerfluchtData, marked: pd.DataFrame) -> str:
    """One clause per option, then how many effects survive Holm and which depend on the policy."""
    parts = [clause for name, value in data.plan.options if (clause := _option_clause(data, name, value))]
    text = "; ".join(parts) + "."
    n, survivors = len(data.sensitivity), int(data.sensitivity["survives"].sum())
    text += f" {survivors} of the {n} effects scanned survive the Holm adjustment."
    if len(marked):
        groups = []
        for (name, value, policy), group in marked.groupby(["option", "value", "policy"], sort=False):
            opposite = " (opposite directions)" if (group["kind"] == "opposite").any() else ""
            groups.append(f"{option_label(name, value).replace(' = ', '=')} between {policy} and "
                          f"{group['reference'].iloc[0]} at {players_range(group['players'])} players{opposite}")
        text += " The effect depends on the policy for " + "; ".join(groups) + "."
    elif len(data.dependence):
        text += " No effect depends on the policy (no difference of differences survives Holm)."
    return text


__all__ = ["dependent", "rule_sensitivity"]
