"""The Cursed!? report's five figures: one function per figure, each returning a
:class:`~cursedsim.report.figures.ReportFigure` with its one-line reading computed from the numbers it
shows (the first also carries the items-used and game-end tables).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from cursedsim.report.cursed.data import NO_START, RANDOM_START, CursedData
from cursedsim.report.cursed.sensitivity import adjusted_reading, holm_table, verdicts
from cursedsim.report.data import TUNED_SUFFIX
from cursedsim.palette import policy_color
from cursedsim.report.figures import (ReportFigure, TextTable, error_bars, join_words, new_figure,
                                      option_label, panels, pct, points)

#: How each way a game ends reads in a sentence ("the game ends ...") and as a column header.
END_TEXT = {"eight_souls": "with the winning soul", "pile_empty": "when the draw pile runs out",
            "final_monster": "at a final monster"}
END_HEADERS = {"eight_souls": "won (eight_souls)", "pile_empty": "pile empty (pile_empty)",
               "final_monster": "final monster (final_monster)"}
#: Below this many points a rule's change of the win rate is called small.
SMALL_EFFECT = 0.005


def policy_label(data: CursedData, policy: str) -> str:
    """``threshold (k=2)``: a policy with its stopping parameter as played (not the item rules');
    ``counting (tuned: margin=-0.237, scroll_power=7)``: a tuned one with the parameters tuning changed
    (against the built-in policy's, when the report plays it); a label giving parameters stays as it is."""
    params = data.policy_params.get(policy, {})
    if ":" in policy:
        return policy
    if policy.endswith(TUNED_SUFFIX):
        name = policy[:-len(TUNED_SUFFIX)]
        base = data.policy_params.get(name)
        changed = {key: value for key, value in params.items() if base is None or base.get(key) != value}
        shown = ", ".join(f"{key}={value:.3g}" for key, value in changed.items())
        return f"{name} (tuned: {shown or 'the defaults'})"
    for key in ("k", "margin"):
        if key in params:
            return f"{policy} ({key}={params[key]:.3g})"
    return policy


def item_names() -> dict[str, str]:
    from cursedsim.games.cursed.rules import ITEM_NAMES, ITEM_SLUGS
    return {**dict(zip(ITEM_SLUGS, ITEM_NAMES)), NO_START: "no starting item", RANDOM_START: "a random item"}


def _more_fewer(diff: float) -> str:
    return f"{points(diff, False)} points {'more' if diff > 0 else 'fewer'}"


def _ci_points(low: float, high: float) -> str:
    return f"{points(low)} to {points(high)}"


# ---------------------------------------------------------------- 1. win rate by policy

def win_rate_by_policy(data: CursedData) -> ReportFigure:
    """Every policy's win rate (Wilson 95%) and its paired difference from the reference policy, with the
    items each used and how its games ended as tables."""
    plan = data.plan
    rates = data.policies.set_index("policy")
    diffs = data.policy_diffs.set_index("a")
    others = [p for p in data.labels if p != plan.reference]
    figure = new_figure(11.5, 0.55 * len(data.labels) + 1.4)
    left, right = panels(figure, 2, sharey=False)
    y = np.arange(len(data.labels))[::-1]
    for yi, policy in zip(y, data.labels):
        row = rates.loc[policy]
        rate, low, high = 100 * row["win_rate"], 100 * row["ci_low"], 100 * row["ci_high"]
        left.barh(yi, rate, height=0.6, color=policy_color(policy))
        left.errorbar(rate, yi, xerr=error_bars(rate, low, high), fmt="none", ecolor="0.2", capsize=3)
        left.annotate(f"{rate:.1f}%", (high, yi), xytext=(5, 0), textcoords="offset points", va="center", fontsize=9)
    left.set_yticks(y, [policy_label(data, p) for p in data.labels])
    left.set_xlim(0, 100 * rates["ci_high"].max() * 1.2 + 1)
    left.set_xlabel("win rate (%), 95% Wilson interval")
    left.set_title("games won")
    y_other = np.arange(len(others))[::-1]
    for yi, policy in zip(y_other, others):
        row = diffs.loc[policy]
        d, low, high = 100 * row["diff"], 100 * row["ci_low"], 100 * row["ci_high"]
        right.errorbar(d, yi, xerr=error_bars(d, low, high), fmt="o", capsize=4,
                       color=policy_color(policy))
        right.annotate(f"{d:+.1f}", (d, yi), xytext=(0, 7), textcoords="offset points", ha="center", fontsize=9)
    right.axvline(0, color="0.3", lw=1)
    right.set_yticks(y_other, others)
    right.set_ylim(-0.6, len(others) - 0.3)
    right.set_xlabel(f"win rate − {plan.reference} (points), paired 95% interval")
    right.set_title(f"the same games as {plan.reference}")

    ref = rates.loc[plan.reference]
    parts = [f"{policy} wins {_more_fewer(diffs.loc[policy, 'diff'])}"
             + (f" (paired 95% CI {_ci_points(diffs.loc[policy, 'ci_low'], diffs.loc[policy, 'ci_high'])})"
                if j == 0 else "")
             for j, policy in enumerate(others)]
    ends = data.ends[data.ends["policy"] == plan.reference].set_index("end")
    lost = [f"{END_TEXT.get(end, end)} ({pct(ends.loc[end, 'share'])})" for end in ends.index if end != "eight_souls"]
    reading = (f"{plan.reference} wins {pct(ref['win_rate'])} of games (95% CI {100 * ref['ci_low']:.1f}-"
               f"{100 * ref['ci_high']:.1f}%); on the same games {join_words(parts)}; {plan.reference}'s other games "
               f"end {' or '.join(lost)}.")
    about = (f"Each policy played the same {data.n_games:,} deals (1 player, the rulebook's rules). Left: the "
             f"share of games won with its 95% Wilson interval; right: each policy's paired difference from "
             f"{plan.reference}, game by game, with its 95% interval. Under the figure: the items each policy "
             "used and how its games ended.")
    return ReportFigure("win_rate_by_policy", "Win rate by policy", about, figure, reading,
                        tables=[_items_table(data), _ends_table(data)])


def _items_table(data: CursedData) -> TextTable:
    plan = data.plan
    names = item_names()
    used = data.items_used.set_index(["policy", "item"])
    rows = [[names[item]] + [f"{used.loc[(policy, item), 'per_game']:.3f}" for policy in data.labels]
            for item in plan.items]
    total = [f"{data.items_used.loc[data.items_used['policy'] == policy, 'per_game'].sum():.3f}"
             for policy in data.labels]
    rows.append(["all items"] + total)
    return TextTable("Items used per game", ["item"] + list(data.labels), rows,
                     "Mean uses per game (tables/items_used.csv, with the share of games using each item); "
                     "Mimic!: met as an item and fought, whatever the policy.")


def _ends_table(data: CursedData) -> TextTable:
    plan = data.plan
    ends = data.ends.set_index(["policy", "end"])
    kinds = list(dict.fromkeys(data.ends["end"]))
    rows = [[policy] + [f"{100 * ends.loc[(policy, end), 'share']:.1f}" for end in kinds] for policy in data.labels]
    return TextTable("How games end (% of games)", ["policy"] + [END_HEADERS.get(end, end) for end in kinds], rows,
                     "eight_souls: the winning soul was captured; pile_empty: a round found no monster to draw; "
                     "final_monster: a fight's damage exceeded the cards left (tables/ends.csv, with intervals).")


# ---------------------------------------------------------------- 2. souls

def souls_distribution(data: CursedData) -> ReportFigure:
    """The share of games ending with 0..8 souls, per policy."""
    plan = data.plan
    souls = data.souls
    policies = [p for p in plan.souls_policies if p in set(souls["policy"])]
    top = int(souls["souls"].max())
    figure = new_figure(10.5, 3.6)
    (ax,) = panels(figure, 1)
    width = 0.8 / len(policies)
    for i, policy in enumerate(policies):
        cell = souls[souls["policy"] == policy].sort_values("souls")
        x = cell["souls"].to_numpy() + (i - (len(policies) - 1) / 2) * width
        ax.bar(x, 100 * cell["share"], width * 0.95, color=policy_color(policy),
               label=policy_label(data, policy))
    ax.set_xticks(range(top + 1), [str(s) if s < top else f"{s} (won)" for s in range(top + 1)])
    ax.set_xlabel("souls captured at the end of the game")
    ax.set_ylabel("share of games (%)")
    ax.legend(fontsize=8, loc="upper left")

    def share(policy: str, s: int) -> float:
        cell = souls[(souls["policy"] == policy) & (souls["souls"] == s)]
        return float(cell["share"].iloc[0]) if len(cell) else 0.0

    modes = []
    for policy in policies:
        cell = souls[souls["policy"] == policy]
        row = cell.loc[cell["share"].idxmax()]
        modes.append((policy, int(row["souls"]), float(row["share"])))
    ref = plan.reference
    grouped: dict[int, list[str]] = {}
    for policy, mode, value in modes:
        grouped.setdefault(mode, []).append(f"{policy} ({pct(value)})")
    most = join_words([f"{mode} souls with {' and '.join(names)}" for mode, names in grouped.items()])
    short, won = share(ref, top - 1), share(ref, top)
    compared = "more often" if short > won else "less often" if short < won else "as often"
    reading = (f"The most common end is {most}; {ref} falls one soul short of the win ({top - 1} souls) "
               f"{compared} ({pct(short)} of games) {'as' if short == won else 'than'} it wins ({pct(won)}).")
    about = (f"Souls captured when the game ended (a game is won at {top}; a lost game ends earlier, with an "
             "empty draw pile or at a final monster), as a share of each policy's games.")
    return ReportFigure("souls_distribution", "Souls at the end of the game", about, figure, reading)


# ---------------------------------------------------------------- 3. when to stop drawing

def when_to_stop(data: CursedData) -> ReportFigure:
    """Win rate as the stopping threshold k of threshold (and no_items) goes 0..8, and as counting's
    margin varies."""
    plan = data.plan
    sweep = data.stop_sweep
    figure = new_figure(11.5, 3.8)
    left, right = panels(figure, 2)
    for i, policy in enumerate(plan.stop_policies):
        cell = sweep[(sweep["policy"] == policy) & (sweep["param"] == "k")].sort_values("value")
        c = policy_color(policy)
        left.plot(cell["value"], 100 * cell["win_rate"], marker="o", ms=4, color=c, label=policy)
        left.fill_between(cell["value"], 100 * cell["ci_low"], 100 * cell["ci_high"], color=c, alpha=0.25, lw=0)
        best = cell[cell["best"]].iloc[0]
        left.annotate(f"k={best['value']:g}: {100 * best['win_rate']:.1f}%", (best["value"], 100 * best["win_rate"]),
                      xytext=(8, 4), textcoords="offset points", fontsize=8, color=c)
    left.set_xticks(list(plan.k_values))
    left.set_ylim(top=100 * sweep["ci_high"].max() * 1.12 + 0.5)
    left.set_xlabel("k: stop drawing when the damage due (power − total)\nis k or less")
    left.set_ylabel("win rate (%)")
    left.set_title("fixed stopping threshold")
    left.legend(fontsize=8, loc="upper right")
    counting = sweep[(sweep["policy"] == "counting") & (sweep["param"] == "margin")].sort_values("value")
    c = policy_color("counting")
    right.plot(counting["value"], 100 * counting["win_rate"], marker="o", ms=4, color=c, label="counting")
    right.fill_between(counting["value"], 100 * counting["ci_low"], 100 * counting["ci_high"], color=c, alpha=0.25,
                       lw=0)
    ref = sweep[(sweep["policy"] == plan.reference) & sweep["best"]]
    if len(ref):
        right.axhline(100 * ref["win_rate"].iloc[0], color=policy_color(plan.reference), ls="--", lw=1,
                      label=f"{plan.reference}, best k={ref['value'].iloc[0]:g}")
    right.set_xlabel("margin (counting draws while one more weapon lowers the\n"
                     "expected damage by more than this: lower draws more)")
    right.set_title("counting the draw pile")
    right.legend(fontsize=8, loc="lower left")
    right.tick_params(labelleft=True)

    parts = []
    for policy in plan.stop_policies:
        cell = sweep[(sweep["policy"] == policy) & (sweep["param"] == "k")].set_index("value")
        best_k = float(cell.index[cell["best"]][0])
        text = f"{policy} wins most with k={best_k:g}, {pct(cell.loc[best_k, 'win_rate'])} of games"
        nearby = [k for k in (best_k - 1, best_k + 1) if k in cell.index]
        if policy == plan.reference and nearby:
            text += ", " + " and ".join(f"{points(-cell.loc[k, 'diff'], False)} points more than with k={k:g}"
                                        for k in nearby) + " on the same games"
        parts.append(text)
    cell = counting.set_index("value")
    best_m = float(cell.index[cell["best"]][0])
    parts.append(f"counting wins most with margin={best_m:g}, {pct(cell.loc[best_m, 'win_rate'])} of games")
    reading = "; ".join(parts) + "."
    about = ("The game's question: when to stop drawing weapons. Left: threshold (and no_items, the same "
             "drawing without items) stops when the damage a stop would deal is k or less, for k from "
             f"{min(plan.k_values)} to {max(plan.k_values)}; right: counting decides every draw from the cards "
             "left in the pile, drawing more as its margin goes down. Bands: 95% Wilson intervals; every point "
             "is played on the same games.")
    return ReportFigure("when_to_stop", "When to stop drawing", about, figure, reading)


# ---------------------------------------------------------------- 4. value of each starting item

def item_value(data: CursedData) -> ReportFigure:
    """Win rate when the game starts with each item (or none), and its paired difference from the
    rulebook's random starting item, sorted by value."""
    plan = data.plan
    table = data.start_items
    names = item_names()
    policies = list(plan.item_policies)
    first = policies[0]
    ordered = (table[(table["policy"] == first) & (table["start"] != RANDOM_START)]
               .sort_values("diff")["start"].tolist())
    y = {start: i for i, start in enumerate(ordered)}
    figure = new_figure(11.5, 0.32 * len(ordered) + 1.6)
    left, right = panels(figure, 2)
    for i, policy in enumerate(policies):
        c = policy_color(policy)
        rows = table[(table["policy"] == policy) & (table["start"] != RANDOM_START)]
        offset = (i - (len(policies) - 1) / 2) * 0.25
        ys = np.array([y[s] for s in rows["start"]]) + offset
        rate = 100 * rows["win_rate"].to_numpy()
        left.errorbar(rate, ys, xerr=error_bars(rate, 100 * rows["ci_low"], 100 * rows["ci_high"]), fmt="o", ms=4,
                      capsize=2, color=c, label=policy)
        base = table[(table["policy"] == policy) & (table["start"] == RANDOM_START)]["win_rate"].iloc[0]
        left.axvline(100 * base, color=c, ls="--", lw=1)
        d = 100 * rows["diff"].to_numpy()
        right.errorbar(d, ys, xerr=error_bars(d, 100 * rows["diff_ci_low"], 100 * rows["diff_ci_high"]), fmt="o", ms=4,
                       capsize=2, color=c, label=policy)
    right.axvline(0, color="0.3", lw=1)
    left.set_yticks(range(len(ordered)), [names[s] for s in ordered])
    left.set_xlabel("win rate (%) starting with the item (dashed: a random starting item)")
    left.legend(fontsize=8, loc="lower right")
    right.set_xlabel("win rate − random starting item (points), paired on the same games")
    right.tick_params(labelleft=False)

    rows = table[table["policy"] == first].set_index("start")
    others = [p for p in policies if p != first]
    best = ordered[-1]
    by_item = [s for s in ordered if s != NO_START]
    low_item = by_item[0]

    def value(start: str) -> str:
        text = f"{points(rows.loc[start, 'diff'])} points with {first}"
        for policy in others:
            other = table[(table["policy"] == policy) & (table["start"] == start)]
            text += f", {points(other['diff'].iloc[0])} with {policy}"
        return text

    base = rows.loc[RANDOM_START, "win_rate"]
    reading = (f"Against a random starting item ({pct(base)} won with {first}), starting with "
               f"{names[best]} is worth the most ({value(best)}; {pct(rows.loc[best, 'win_rate'])} won) and "
               f"{names[low_item]} the least ({value(low_item)})")
    if NO_START in rows.index:
        reading += f"; starting with no item: {value(NO_START)}"
    reading += "."
    about = ("Each game was replayed with its first starting item forced to one item (the same deal otherwise; "
             "option starting_item) and with no starting item (starting_items=0). A starting item's card is not "
             "in the deck as a monster or a weapon, so an item's value includes the card it takes out (and no "
             "item leaves one more card of life). Left: win rate with its 95% "
             "Wilson interval, the dashed lines the rulebook's random start; right: the paired difference from "
             f"the random start with its 95% interval. Sorted by {first}'s difference, most valuable on top.")
    return ReportFigure("item_value", "Value of each starting item", about, figure, reading)


# ---------------------------------------------------------------- 5. rule sensitivity

def rule_sensitivity(data: CursedData) -> ReportFigure:
    """Paired change of the win rate, and share of games changed, when an ambiguous rule takes another
    reading, per policy."""
    plan = data.plan
    table = data.sensitivity
    policies = list(plan.sensitivity_policies)
    labels = [option_label(name, value) for name, value in plan.options]
    n = len(labels)
    figure = new_figure(11.5, 0.3 * n + 1.5)
    left, right = panels(figure, 2)
    for i, policy in enumerate(policies):
        c = policy_color(policy)
        offset = (i - (len(policies) - 1) / 2) * 0.3
        ys, d, lo, hi, changed, kept = [], [], [], [], [], []
        for j, (name, value) in enumerate(plan.options):
            row = _sens_row(table, name, value, policy)
            ys.append(n - 1 - j + offset)
            d.append(100 * row["diff"])
            lo.append(100 * row["ci_low"])
            hi.append(100 * row["ci_high"])
            changed.append(100 * row["games_changed"])
            kept.append(bool(row["survives"]))
        d, lo, hi, ys, kept = np.array(d), np.array(lo), np.array(hi), np.array(ys), np.array(kept)
        left.errorbar(d, ys, xerr=error_bars(d, lo, hi), fmt="none", capsize=2, ecolor=c)
        left.plot(d[kept], ys[kept], "o", ms=4, color=c, label=f"{policy} (survives Holm)")
        left.plot(d[~kept], ys[~kept], "o", ms=4, mfc="white", color=c, label=f"{policy} (does not)")
        right.barh(ys, changed, height=0.28, color=c, label=policy)
    left.axvline(0, color="0.3", lw=1)
    dependent = set(verdicts(data).query("policy_dependent")["reading"])
    ticks = [label + (" †" if label.replace(" = ", "=") in dependent else "") for label in labels]
    left.set_yticks(range(n), ticks[::-1], fontsize=8)
    left.set_xlabel("win rate change (points), paired 95% interval")
    left.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    right.set_xlabel("games whose outcome changes (%)")
    right.set_xlim(0, 100)
    right.tick_params(labelleft=False)
    reading = _sensitivity_reading(plan, table)[:-1] + "; " + adjusted_reading(data) + "."
    about = ("Each ambiguous rule (a named option, see the rules document) was played in another reading on "
             "the same games as the default. Left: the paired change of the win rate, option − default, with "
             "its 95% interval, a filled dot when it survives Holm's adjustment over every reading and policy "
             "(open: it does not), † when the reading's effect depends on the policy; right: the share of "
             "games whose outcome (win, souls, rounds, damage, items used, ...) changes at all. The table "
             "under the figure gives every effect, its adjusted p-value and the difference between the "
             "policies.")
    return ReportFigure("rule_sensitivity", "Sensitivity to the rulebook's ambiguities", about, figure, reading,
                        tables=[holm_table(data)])


def _sens_row(table: pd.DataFrame, name: str, value, policy: str) -> pd.Series:
    rows = table[(table["option"] == name) & (table["policy"] == policy)]
    return rows[[str(v) == str(value) for v in rows["value"]]].iloc[0]


def _sensitivity_reading(plan, table: pd.DataFrame) -> str:
    """The three readings that move the win rate most, how many move it by less than half a point for
    every policy, and those that change no game."""
    effects = []
    for name, value in plan.options:
        rows = [_sens_row(table, name, value, policy) for policy in plan.sensitivity_policies]
        effects.append((name, value, rows))
    top = sorted(effects, key=lambda e: -max(abs(r["diff"]) for r in e[2]))[:3]
    parts = []
    for name, value, rows in top:
        per_policy = ", ".join(f"{points(r['diff'])}{' points' if k == 0 else ''} with {policy}"
                               for k, (r, policy) in enumerate(zip(rows, plan.sensitivity_policies)))
        parts.append(f"{option_label(name, value).replace(' = ', '=')} ({per_policy})")
    def label(name, value) -> str:
        return option_label(name, value).replace(" = ", "=")

    small = [label(name, value) for name, value, rows in effects if all(abs(r["diff"]) < SMALL_EFFECT for r in rows)]
    none = [label(name, value) for name, value, rows in effects if all(r["games_changed"] == 0 for r in rows)]
    text = (f"The readings that move the win rate most are {join_words(parts)}; {len(small)} of the "
            f"{len(effects)} readings move{'s' if len(small) == 1 else ''} it by less than "
            f"{100 * SMALL_EFFECT:.1f} points with every policy" + (f" ({', '.join(small)})" if small else ""))
    if none:
        text += f", and {join_words(none)} change{'s' if len(none) == 1 else ''} no game at all"
    return text + "."


#: The report's figures, in order.
FIGURES: tuple[Callable[[CursedData], ReportFigure], ...] = (
    win_rate_by_policy, souls_distribution, when_to_stop, item_value, rule_sensitivity)


__all__ = ["FIGURES", "item_value", "policy_label", "rule_sensitivity", "souls_distribution", "when_to_stop",
           "win_rate_by_policy"]
