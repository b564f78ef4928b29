"""Figure 7 of the So, You've Been Cursed. report: how far each assumption behind the calibrated game moves
the Wizard's win rate in each mode (the table of ``sensitivity``'s runs, paired with the default)."""

from __future__ import annotations

import pandas as pd

from cursedsim.report.content import points_ci
from cursedsim.report.figures import ReportFigure, TextTable, error_bars, new_figure, panels, points
from cursedsim.report.village.data import VillageData
from cursedsim.report.village.figures import MODE_COLORS, MODE_WORDS, board_note
from cursedsim.report.village.sensitivity import GROUPS

#: A change at least this large (points of the Wizard's win rate) is named in the reading.
LARGE = 5.0


def _order(table: pd.DataFrame) -> list[str]:
    """The variations in the table's order: by group (GROUPS), then as played."""
    groups = {group: k for k, group in enumerate(GROUPS)}
    firsts = table.drop_duplicates("variation")
    return list(firsts.sort_values("group", key=lambda c: c.map(groups), kind="stable")["variation"])


def sensitivity(data: VillageData) -> ReportFigure:
    """One panel per mode: the paired change of the Wizard's win rate for every variation reaching it."""
    table = data.sensitivity
    modes = [mode for mode, _, _ in data.plan.pairings if len(table) and mode in set(table["mode"])]
    names = _order(table) if len(table) else []
    figure = new_figure(3.0 + 2.4 * max(len(modes), 1), 1.4 + 0.19 * max(len(names), 1))
    axes = panels(figure, max(len(modes), 1))
    for ax, mode in zip(axes, modes):
        part = table[table["mode"] == mode]
        at = {name: k for k, name in enumerate(names)}
        y = part["variation"].map(at)
        d = 100 * part["diff"]
        ax.errorbar(d, y, xerr=error_bars(d, 100 * part["ci_low"], 100 * part["ci_high"]), fmt="o", ms=3,
                    color=MODE_COLORS.get(mode, "0.3"), capsize=2)
        ax.axvline(0, color="0.3", lw=1)
        ax.set_title(MODE_WORDS.get(mode, mode), fontsize=8)
        ax.set_xlabel("Wizard win %: variation − default (points)", fontsize=7)
    axes[0].set_yticks(range(len(names)), names, fontsize=6)
    axes[0].set_ylim(len(names) - 0.5, -0.5)

    rows = []
    for name in names:
        cells = [name]
        for mode in modes:
            hit = table[(table["variation"] == name) & (table["mode"] == mode)]
            if not len(hit):
                cells.append("")
            elif hit["games_changed"].iloc[0] == 0:
                cells.append("no game changed")
            else:
                cells.append(points_ci(*hit[["diff", "ci_low", "ci_high"]].iloc[0], digits=1))
        rows.append(cells)
    base = {mode: table[table["mode"] == mode]["base_rate"].iloc[0] for mode in modes}
    columns = ["variation"] + [f"{mode} (default {100 * base[mode]:.1f}%)" for mode in modes]
    text = TextTable("Sensitivity of the calibrated game: Wizard win % change (points) [95% CI]", columns, rows,
                     f"Each variation changes one assumption of the default (calibrated) game and is played in the "
                     f"modes it reaches, on the same {data.n_games:,} games as the default (seed {data.seed}), "
                     "paired game by game (t interval); \"no game changed\": the reading never arises in those games "
                     "(the board, the cards or the policies never meet it); blank: the option does not reach that "
                     "mode (checked by "
                     "tests/test_village_sensitivity.py). Track lengths move one calibrated length (played "
                     f"{_lengths(data)}); generated boards play the calibrated lengths; readings: every other value "
                     f"of each debatable rule option (docs/rules/village.md); {board_note(data)}.")
    reading = f"{_reading(table)[:-1]}; {board_note(data)}."
    about = ("The calibrated default (figure 1's mode pairings) against each changed assumption: a calibrated track "
             "length two spaces shorter or longer, the card presets, generated boards at the calibrated lengths, "
             "every other value of each debatable reading; the paired change of the Wizard's win rate with its 95% "
             "interval, per mode it reaches (tables/sensitivity.csv).")
    return ReportFigure("sensitivity", "How much the calibrated game rests on each assumption", about, figure,
                        reading, tables=[text])


def _lengths(data: VillageData) -> str:
    return ", ".join(f"{name} {length}" for name, length in data.played_lengths.items())


def _reading(table: pd.DataFrame) -> str:
    """The largest changes, the share of variations moving a mode by LARGE points, the track lengths' range."""
    if not len(table):
        return "No variation was played."
    large = table[(100 * table["diff"].abs()) >= LARGE]
    idle = table.groupby("variation")["games_changed"].max()
    idle = sorted(idle[idle == 0].index)
    top = table.reindex(table["diff"].abs().sort_values(ascending=False).index).head(3)
    named = "; ".join(f"{r.variation} in the {MODE_WORDS.get(r.mode, r.mode)}: {points(r.diff)}"
                      for r in top.itertuples())
    lengths = table[table["group"] == "track length"]
    spread = (f"; a calibrated track length two spaces off moves its modes by {points(lengths['diff'].abs().min(), False)}"
              f" to {points(lengths['diff'].abs().max(), False)} points" if len(lengths) else "")
    never = f"; {len(idle)} change no game where they reach ({', '.join(idle)})" if idle else ""
    return (f"{table['variation'].nunique()} variations in {len(table)} runs; {large['variation'].nunique()} move some "
            f"mode's Wizard win rate by {LARGE:g} points or more. The largest: {named}{spread}{never}.")


__all__ = ["LARGE", "sensitivity"]
