"""The Curses & Covens report's seven figures: one function per figure, each returning a
:class:`~cursedsim.report.figures.ReportFigure` with its reading computed from the numbers it shows.
Player counts are shown as town counts (3-5 towns at 4-6 players), the game's own terms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from cursedsim.report.covens.data import CAST_PARAM, CovensData
from cursedsim.report.data import ALPHA
from cursedsim.report.figures import (ReportFigure, TextTable, error_bars, join_words, new_figure,
                                      option_label, panels, pct, points)

#: One colour per town count in every figure of the report.
TOWN_COLORS = {3: "#1b9e77", 4: "#d95f02", 5: "#7570b3"}
#: One colour per way a game ends.
WIN_TYPE_COLORS = {"coven": "#2c7fb8", "ritual": "#7fcdbb", "capture": "#d7301f", "unfinished": "#bdbdbd"}
#: How each way a game ends reads in a sentence.
WIN_TYPE_TEXT = {"coven": "a coven (town)", "ritual": "a second ritual (town)", "capture": "five captures (hunter)",
                 "unfinished": "unfinished"}
#: The way a game ends when it reaches ``max_rounds``.
UNFINISHED = "unfinished"
#: Below this many points a reading's change of the hunter's win rate is called small.
SMALL_EFFECT = 0.005


def town_color(towns: int) -> str:
    return TOWN_COLORS.get(towns, f"C{towns}")


def _offset(k: int, count: int, step: float) -> float:
    """Where the k-th of ``count`` town counts sits in a row of a dot plot: the first on top."""
    return -(k - (count - 1) / 2) * step


def _ci(low: float, high: float) -> str:
    return f"95% CI {points(low)} to {points(high)}"


def _town_counts(data: CovensData) -> list[int]:
    return [p - 1 for p in data.plan.players]


def pairing(hunter: str, town: str) -> str:
    """``tracker vs coven``."""
    return f"{hunter} vs {town}"


def reading_label(name: str, value) -> str:
    """``spell_icons=all_mixed``."""
    return option_label(name, value).replace(" = ", "=")


# ---------------------------------------------------------------- 1. the hunter's win rate matrix

def hunter_win_matrix(data: CovensData) -> ReportFigure:
    """A heat-map per town count: the hunter's win rate for every hunter policy (rows) against every town
    policy (columns), with its 95% interval."""
    plan = data.plan
    matrix = data.matrix.set_index(["towns", "hunter", "town"])
    counts = _town_counts(data)
    figure = new_figure(4.0 * len(counts) + 0.8, 3.6)
    axes = figure.subplots(1, len(counts), squeeze=False)[0]
    image = None
    for ax, towns in zip(axes, counts):
        values = np.array([[matrix.loc[(towns, h, t), "hunter_win_rate"] for t in plan.towns] for h in plan.hunters])
        image = ax.imshow(100 * values, cmap="coolwarm", vmin=0, vmax=100, aspect="auto")
        for i, h in enumerate(plan.hunters):
            for j, t in enumerate(plan.towns):
                cell = matrix.loc[(towns, h, t)]
                ax.text(j, i, f"{100 * cell['hunter_win_rate']:.1f}%\n[{100 * cell['ci_low']:.1f}, "
                              f"{100 * cell['ci_high']:.1f}]", ha="center", va="center", fontsize=8)
        ax.set_xticks(range(len(plan.towns)), plan.towns)
        ax.set_yticks(range(len(plan.hunters)), plan.hunters if ax is axes[0] else [""] * len(plan.hunters))
        ax.set_xlabel("town policy")
        ax.set_title(f"{towns} towns ({towns + 1} players)")
    axes[0].set_ylabel("hunter policy")
    figure.colorbar(image, ax=list(axes), label="hunter win rate (%)", shrink=0.9)

    main = data.matrix[(data.matrix["hunter"] == plan.main[0]) & (data.matrix["town"] == plan.main[1])]
    main_text = join_words([f"{pct(r.hunter_win_rate)} with {r.towns} towns ({100 * r.ci_low:.1f}-{100 * r.ci_high:.1f}%)"
                       for r in main.sort_values("towns").itertuples()])
    low = data.matrix.loc[data.matrix["hunter_win_rate"].idxmin()]
    high = data.matrix.loc[data.matrix["hunter_win_rate"].idxmax()]
    near = data.matrix[(data.matrix["ci_low"] <= 0.5) & (data.matrix["ci_high"] >= 0.5)]
    reading = (f"With {pairing(*plan.main)} the hunter wins {main_text}; over all "
               f"{len(data.matrix)} cells his win rate ranges from {pct(low['hunter_win_rate'])} "
               f"({pairing(low['hunter'], low['town'])}, {low['towns']} towns) to {pct(high['hunter_win_rate'])} "
               f"({pairing(high['hunter'], high['town'])}, {high['towns']} towns), and "
               + (f"{len(near)} cell includes 50% in its interval" if len(near) == 1 else
                  f"{len(near)} cells include 50% in their interval") + _same_columns(data) + ".")
    about = (f"Every hunter policy played every town policy on the same {data.n_games:,} deals per town count. "
             "Each cell: the share of games the Witch Hunter won, with its 95% Wilson interval (red: the "
             "hunter wins more than half, blue: the town does). The town wins the rest, but for the few "
             "games still on after max_rounds rounds (tables/hunter_win_matrix.csv has both sides' rates).")
    return ReportFigure("hunter_win_matrix", "The hunter's win rate for every pairing of policies", about, figure,
                        reading)


def _same_columns(data: CovensData) -> str:
    """A clause naming town policies whose hunter wins are equal in every cell (e.g. a bluff no hunter
    listens to), or ''."""
    wins = data.matrix.pivot_table(index=["players", "hunter"], columns="town", values="hunter_wins")
    towns = list(data.plan.towns)
    same = [(a, b) for i, a in enumerate(towns) for b in towns[i + 1:] if (wins[a] == wins[b]).all()]
    return "".join(f"; {b} and {a} give the hunter the same number of wins in every cell" for a, b in same)


# ---------------------------------------------------------------- 2. which side's skill matters

def _skill_label(row) -> str:
    return f"{row['better']} − {row['baseline']}, vs {row['against']}"


def skill_effects(data: CovensData) -> ReportFigure:
    """The paired gain of a clever hunter (his win rate) and of a coordinated town (its win rate), with
    the other side's policy fixed, per town count, Holm-adjusted over all of them."""
    skill = data.skill
    figure = new_figure(11.5, 0.32 * max(len(skill) // (2 * len(data.plan.players)), 4) + 2.2)
    axes = panels(figure, 2, sharey=False)
    for ax, kind in zip(axes, ("hunter", "town")):
        rows = skill[skill["kind"] == kind]
        labels = list(dict.fromkeys(_skill_label(r) for _, r in rows.iterrows()))
        y_of = {label: len(labels) - 1 - i for i, label in enumerate(labels)}
        counts = sorted(rows["towns"].unique())
        for k, towns in enumerate(counts):
            cell = rows[rows["towns"] == towns]
            ys = np.array([y_of[_skill_label(r)] for _, r in cell.iterrows()]) + _offset(k, len(counts), 0.22)
            d = 100 * cell["diff"].to_numpy()
            kept = cell["survives"].to_numpy(bool)
            c = town_color(towns)
            ax.errorbar(d, ys, xerr=error_bars(d, 100 * cell["ci_low"], 100 * cell["ci_high"]), fmt="none", ecolor=c,
                        capsize=2, label=f"{towns} towns")
            ax.plot(d[kept], ys[kept], "o", ms=5, color=c)
            ax.plot(d[~kept], ys[~kept], "o", ms=5, mfc="white", color=c)
        ax.axvline(0, color="0.3", lw=1)
        ax.set_yticks(range(len(labels)), labels[::-1], fontsize=8)
        ax.set_xlabel(f"{'hunter' if kind == 'hunter' else 'town'} win rate change (points), paired 95% interval")
        ax.set_title("a clever hunter" if kind == "hunter" else "a coordinated town")
    axes[0].legend(fontsize=8, loc="best")

    plan = data.plan
    clever, coordinated = plan.main

    def gains(kind: str, better: str, baseline: str, against: str) -> str:
        rows = skill[(skill["kind"] == kind) & (skill["better"] == better) & (skill["baseline"] == baseline)
                     & (skill["against"] == against)].sort_values("towns")
        return join_words([f"{points(r.diff)} points at {r.towns} towns" for r in rows.itertuples()])

    hunter_parts = [f"{clever} − {baseline} is {gains('hunter', clever, baseline, coordinated)}"
                    for baseline in plan.hunters if baseline != clever]
    surviving = int(skill["survives"].sum())
    reading = (f"Against {coordinated}, the hunter's win rate with {'; '.join(hunter_parts)}; against {clever}, "
               f"the town's win rate with {coordinated} − {plan.towns[0]} is "
               f"{gains('town', coordinated, plan.towns[0], clever)}; {surviving} of the {len(skill)} effects survive "
               f"Holm's adjustment at {ALPHA:g}.")
    about = ("Each policy pair played the same deals, so a policy's gain is measured game by game. Left: the "
             "hunter's win rate with a cleverer hunter minus with a simpler one, the town's policy fixed "
             "(named after 'vs'); right: the town's win rate with a coordinated town minus with a random one, "
             "the hunter's policy fixed. Dots: the paired difference with its 95% interval, one colour per town "
             "count; filled when it survives Holm's adjustment over every effect of the figure, open when not.")
    return ReportFigure("skill_effects", "How much each side's skill matters", about, figure, reading)


# ---------------------------------------------------------------- 3. win types

def win_types(data: CovensData) -> ReportFigure:
    """How games end (coven, ritual, capture, unfinished) by town count, for the main hunter against every
    town policy."""
    plan = data.plan
    hunter = plan.main[0]
    table = data.win_types[data.win_types["hunter"] == hunter]
    kinds = list(dict.fromkeys(table["win_type"]))
    counts = _town_counts(data)
    figure = new_figure(4.0 * len(plan.towns), 3.4)
    axes = panels(figure, len(plan.towns))
    for ax, town in zip(axes, plan.towns):
        bottom = np.zeros(len(counts))
        for kind in kinds:
            share = np.array([table[(table["town"] == town) & (table["towns"] == t) & (table["win_type"] == kind)]
                              ["share"].iloc[0] for t in counts])
            ax.bar([str(t) for t in counts], 100 * share, bottom=100 * bottom, color=WIN_TYPE_COLORS.get(kind),
                   label=kind, width=0.6)
            bottom += share
        ax.set_title(pairing(hunter, town))
        ax.set_xlabel("towns")
    axes[0].set_ylabel("share of games (%)")
    axes[-1].legend(fontsize=8, loc="lower right")

    main = table[table["town"] == plan.main[1]]
    parts = []
    for towns in counts:
        cell = main[main["towns"] == towns].set_index("win_type")
        shown = [f"{pct(cell.loc[k, 'share'])} {k}" for k in kinds if k != UNFINISHED and cell.loc[k, "share"] > 0]
        parts.append(f"{towns} towns: {', '.join(shown)}")
    top = main.groupby("win_type")["share"].mean().idxmax()
    unfinished = int(main.loc[main["win_type"] == UNFINISHED, "games"].sum())
    reading = (f"With {pairing(*plan.main)} games end most often by {WIN_TYPE_TEXT.get(top, top)} "
               f"({'; '.join(parts)}); {unfinished:,} of its {int(main['games'].sum()):,} games were unfinished.")
    about = (f"How the games of {hunter} against each town policy end: the town wins with a coven (3 witches of "
             "one suit revealed at a census) or when the hunter takes a second ritual; the hunter wins with 5 "
             "captured witches; a game still on after max_rounds rounds is unfinished. Shares of each cell's "
             "games (tables/win_types.csv has every pairing with Wilson intervals).")
    return ReportFigure("win_types", "How games end", about, figure, reading)


# ---------------------------------------------------------------- 4. game length

def game_length(data: CovensData) -> ReportFigure:
    """The distribution of game length (rounds) of the main pairing by town count, and the mean length of
    every pairing as a table."""
    plan = data.plan
    lengths = data.lengths
    summary = data.length_summary
    figure = new_figure(9.5, 3.6)
    (ax,) = panels(figure, 1)
    top = 1
    for towns in _town_counts(data):
        cell = lengths[lengths["towns"] == towns].sort_values("rounds")
        cumulative = cell["share"].cumsum().to_numpy()
        shown = cell[np.concatenate([[True], cumulative[:-1] < 0.99])]
        top = max(top, int(shown["rounds"].max()))
        ax.plot(shown["rounds"], 100 * shown["share"], marker="o", ms=3, color=town_color(towns),
                label=f"{towns} towns")
    ax.set_xlim(0.5, top + 0.5)
    ax.set_xlabel("rounds played (up to the 99th percentile)")
    ax.set_ylabel("share of games (%)")
    ax.set_title(pairing(*plan.main))
    ax.legend(fontsize=8)

    main = summary[(summary["hunter"] == plan.main[0]) & (summary["town"] == plan.main[1])].sort_values("towns")
    longest = summary.loc[summary["mean"].idxmax()]
    reading = (f"{pairing(*plan.main)} games last "
               + join_words([f"{r.mean:.2f} rounds on average at {r.towns} towns (median {r.median:g}, 90% within "
                        f"{r.p90:g})" for r in main.itertuples()])
               + f"; the longest games on average are {pairing(longest['hunter'], longest['town'])} at "
               f"{longest['towns']} towns ({longest['mean']:.2f} rounds), and the longest single game of the report "
               f"lasted {int(summary['max'].max())} rounds"
               + (" (the max_rounds limit)" if summary["max"].max() >= data.option_defaults.get("max_rounds", 0)
                  else "") + ".")
    counts = _town_counts(data)
    rows = []
    for h in plan.hunters:
        for t in plan.towns:
            cells = summary[(summary["hunter"] == h) & (summary["town"] == t)].set_index("towns")
            rows.append([pairing(h, t)] + [f"{cells.loc[n, 'mean']:.2f}" for n in counts])
    table = TextTable("Mean game length (rounds) by pairing", ["pairing"] + [f"{n} towns" for n in counts], rows,
                      "tables/game_length_summary.csv has the standard error, median, 90th percentile and "
                      "longest game of every cell.")
    about = (f"The share of {pairing(*plan.main)} games lasting each number of rounds (a round is Census, "
             "Arrival, Travel and Hunt), one line per town count; the table gives the mean length of every "
             "pairing.")
    return ReportFigure("game_length", "Game length", about, figure, reading, tables=[table])


# ---------------------------------------------------------------- 5. rituals

def rituals_value(data: CovensData) -> ReportFigure:
    """The hunter's win rate with and without the three ritual cards, and the paired difference, by town
    count."""
    plan = data.plan
    table = data.rituals.sort_values("towns")
    figure = new_figure(10.5, 3.4)
    left, right = panels(figure, 2, sharey=False)
    x = np.arange(len(table))
    left.bar(x - 0.18, 100 * table["value_default"], 0.36, color="#636363", label="with rituals (default)")
    left.bar(x + 0.18, 100 * table["value_option"], 0.36, color="#fdae6b", label="rituals=false")
    left.set_xticks(x, [f"{t} towns" for t in table["towns"]])
    left.set_ylabel("hunter win rate (%)")
    left.legend(fontsize=8)
    d = 100 * table["diff"].to_numpy()
    right.errorbar(x, d, yerr=error_bars(d, 100 * table["ci_low"], 100 * table["ci_high"]), fmt="o", capsize=4,
                   color="#e6550d")
    right.axhline(0, color="0.3", lw=1)
    right.set_xticks(x, [f"{t} towns" for t in table["towns"]])
    right.set_ylabel("without − with (points), paired 95%")

    parts = [f"{points(r.diff)} points at {r.towns} towns ({pct(r.value_default)} → {pct(r.value_option)})"
             for r in table.itertuples()]
    ritual_wins = join_words([f"{pct(r.ritual_default)} of games at {r.towns} towns" for r in table.itertuples()])
    surviving = int(table["survives"].sum())
    reading = (f"Without the rituals the hunter ({plan.main[0]}, against {plan.main[1]}) wins {join_words(parts)}; "
               f"with them the town wins by a second ritual in {ritual_wins}; {surviving} of "
               f"{len(table)} differences survive Holm's adjustment.")
    about = ("The same games played with the 27-card deck of the rulebook and with the 24-card deck of the "
             "publisher's component list (no rituals: option rituals=false). Left: the hunter's win rate "
             "both ways; right: the paired difference without − with, with its 95% interval (Holm over the "
             "town counts in tables/rituals.csv, which also has how games end both ways).")
    return ReportFigure("rituals_value", "The value of the rituals", about, figure, reading)


# ---------------------------------------------------------------- 6. spells

def spells_value(data: CovensData) -> ReportFigure:
    """Spells cast per game by spell and town count (main pairing), and the town's paired gain from its
    spells: per spell with ``disabled_spell``, or casting against never casting."""
    plan = data.plan
    cast = data.spells_cast
    values = data.spell_values
    spells = list(dict.fromkeys(cast["spell"]))
    counts = _town_counts(data)
    figure = new_figure(11.5, 3.6)
    left, right = panels(figure, 2, sharey=False)
    width = 0.8 / len(counts)
    for k, towns in enumerate(counts):
        cell = cast[cast["towns"] == towns].set_index("spell")
        x = np.arange(len(spells)) + (k - (len(counts) - 1) / 2) * width
        left.bar(x, [cell.loc[s, "per_game"] for s in spells], width * 0.95, color=town_color(towns),
                 label=f"{towns} towns")
    left.set_xticks(range(len(spells)), spells, fontsize=8)
    left.set_ylabel("casts per game")
    left.set_title(f"spells cast ({pairing(*plan.main)})")
    left.legend(fontsize=8)
    variants = list(dict.fromkeys(values["variant"]))
    for k, towns in enumerate(counts):
        cell = values[values["towns"] == towns].set_index("variant").loc[variants]
        ys = np.arange(len(variants))[::-1] + _offset(k, len(counts), 0.22)
        d = 100 * cell["diff"].to_numpy()
        kept = cell["survives"].to_numpy(bool)
        c = town_color(towns)
        right.errorbar(d, ys, xerr=error_bars(d, 100 * cell["ci_low"], 100 * cell["ci_high"]), fmt="none", ecolor=c,
                       capsize=2)
        right.plot(d[kept], ys[kept], "o", color=c)
        right.plot(d[~kept], ys[~kept], "o", mfc="white", color=c)
    right.axvline(0, color="0.3", lw=1)
    right.set_yticks(range(len(variants)), variants[::-1], fontsize=8)
    right.set_xlabel("town win rate: default − spell(s) off (points), paired 95%")
    right.set_title("what the spells are worth to the town")

    totals = cast.groupby("towns")["per_game"].sum()
    favourite = cast.groupby("spell")["per_game"].mean().idxmax()
    per_spell = not (len(variants) == 1 and variants[0].startswith(CAST_PARAM))
    cast_text = join_words([f"{totals[t]:.2f} spells per game at {t} towns" for t in counts])
    if per_spell:
        best = values.loc[values["diff"].idxmax()]
        value_text = (f"the spell worth most to the town is {best['variant']} at {best['towns']} towns "
                      f"({points(best['diff'])} points, {_ci(best['ci_low'], best['ci_high'])})")
    else:
        rows = values.sort_values("towns")
        value_text = ("casting at all is worth "
                      + join_words([f"{points(r.diff)} points at {r.towns} towns" for r in rows.itertuples()])
                      + f" to the town ({plan.main[1]} with {CAST_PARAM}=1 − {CAST_PARAM}=0, paired)")
    reading = (f"The town ({plan.main[1]}) casts {cast_text}, {favourite} most often; "
               f"{value_text}; {int(values['survives'].sum())} of {len(values)} values survive Holm's adjustment.")
    if per_spell:
        about_value = ("Right: the town's win rate with every spell minus with one spell taken out of the game "
                       "(option disabled_spell), paired on the same games.")
    else:
        about_value = (f"Right: the town's win rate when it casts ({CAST_PARAM}=1, the default) minus when it never "
                       f"casts ({CAST_PARAM}=0), paired on the same games. The value of each spell on its own needs "
                       "a rule option that takes one spell out of the game (disabled_spell), which the rules do "
                       "not have yet; the report measures each spell as soon as they do.")
    about = ("Left: how often the town casts each spell per game (the spells_<name> outcome columns). "
             + about_value + " Filled dots survive Holm's adjustment over the figure's values, open ones do not.")
    return ReportFigure("spells_value", "The spells: how often, and what they are worth", about, figure, reading)


# ---------------------------------------------------------------- 7. sensitivity to the open readings

def _readings(data: CovensData) -> list[tuple[str, object]]:
    return list(data.plan.readings)


def _rows_of(table: pd.DataFrame, name: str, value) -> pd.DataFrame:
    rows = table[table["option"] == name]
    return rows[[str(v) == str(value) for v in rows["value"]]]


def rule_sensitivity(data: CovensData) -> ReportFigure:
    """The paired change of the hunter's win rate, and the share of games changed, when an open rule takes
    another reading, per town count; Holm over every reading and town count."""
    table = data.sensitivity
    readings = _readings(data)
    n = len(readings)
    counts = _town_counts(data)
    figure = new_figure(11.5, 0.32 * n + 1.6)
    left, right = panels(figure, 2)
    for k, towns in enumerate(counts):
        c = town_color(towns)
        offset = _offset(k, len(counts), 0.25)
        ys, d, lo, hi, changed, kept = [], [], [], [], [], []
        for j, (name, value) in enumerate(readings):
            row = _rows_of(table, name, value)
            row = row[row["towns"] == towns].iloc[0]
            ys.append(n - 1 - j + offset)
            d.append(100 * row["diff"])
            lo.append(100 * row["ci_low"])
            hi.append(100 * row["ci_high"])
            changed.append(100 * row["games_changed"])
            kept.append(bool(row["survives"]))
        d, ys, kept = np.array(d), np.array(ys), np.array(kept)
        left.errorbar(d, ys, xerr=error_bars(d, lo, hi), fmt="none", capsize=2, ecolor=c, label=f"{towns} towns")
        left.plot(d[kept], ys[kept], "o", ms=4, color=c)
        left.plot(d[~kept], ys[~kept], "o", ms=4, mfc="white", color=c)
        right.barh(ys, changed, height=0.24, color=c)
    left.axvline(0, color="0.3", lw=1)
    left.set_yticks(range(n), [reading_label(name, value) for name, value in readings][::-1], fontsize=8)
    left.set_xlabel("hunter win rate change (points), paired 95% interval")
    left.legend(fontsize=8, loc="lower right")
    right.set_xlabel("games whose outcome changes (%)")
    right.set_xlim(0, 100)
    right.tick_params(labelleft=False)

    largest = sorted(readings, key=lambda r: -_rows_of(table, *r)["diff"].abs().max())[:3]
    parts = []
    for name, value in largest:
        rows = _rows_of(table, name, value).sort_values("towns")
        parts.append(f"{reading_label(name, value)} ("
                     + ", ".join(f"{points(r.diff)}" for r in rows.itertuples()) + f" points at "
                     + "/".join(str(t) for t in rows["towns"]) + " towns)")
    small = [reading_label(*r) for r in readings if (_rows_of(table, *r)["diff"].abs() < SMALL_EFFECT).all()]
    none = [reading_label(*r) for r in readings if (_rows_of(table, *r)["games_changed"] == 0).all()]
    surviving = int(table["survives"].sum())
    reading = (f"The readings that move the hunter's win rate most are {join_words(parts)}; {len(small)} of the "
               f"{n} readings move it by less than {100 * SMALL_EFFECT:.1f} points at every town count"
               + (f", and {join_words(none)} change{'s' if len(none) == 1 else ''} no game at all" if none else "")
               + f"; after Holm's adjustment over all {len(table)} effects, {surviving} survive at {ALPHA:g}.")
    about = (f"Every open point of the rules (a named option, see the rules document) was played in each other "
             f"reading on the same games as the default, with {pairing(*data.plan.main)}. Left: the paired "
             "change of the hunter's win rate, reading − default, with its 95% interval, one colour per town "
             "count, filled when it survives Holm's adjustment over every reading and town count (open: it "
             "does not); right: the share of games whose outcome (winner, how, length, captures, spells, ...) "
             "changes at all. The table under the figure lists the effects that survive.")
    return ReportFigure("rule_sensitivity", "Sensitivity to the rules' open points", about, figure, reading,
                        tables=[_surviving_table(data)])


def _surviving_table(data: CovensData) -> TextTable:
    from cursedsim.report.content import points_ci
    from cursedsim.report.cursed.sensitivity import p_text
    table = data.sensitivity
    kept = table[table["survives"].astype(bool)].sort_values("diff", key=abs, ascending=False)
    rows = [[reading_label(r.option, r.value), str(r.towns), points_ci(r.diff, r.ci_low, r.ci_high),
             p_text(r.p_holm), f"{100 * r.games_changed:.1f}"] for r in kept.itertuples()]
    if not rows:
        rows = [["(none)", "-", "-", "-", "-"]]
    return TextTable("Readings whose effect survives Holm's adjustment",
                     ["reading", "towns", "hunter win change (points) [95% CI]", "Holm p", "games changed (%)"],
                     rows, f"Holm over all {len(table)} effects (every reading at every town count); "
                           "tables/rule_sensitivity.csv has every effect.")


#: The report's figures, in order.
FIGURES: tuple[Callable[[CovensData], ReportFigure], ...] = (
    hunter_win_matrix, skill_effects, win_types, game_length, rituals_value, spells_value, rule_sensitivity)


__all__ = ["FIGURES", "TOWN_COLORS", "game_length", "hunter_win_matrix", "pairing", "reading_label",
           "rituals_value", "rule_sensitivity", "skill_effects", "spells_value", "town_color", "win_types"]
