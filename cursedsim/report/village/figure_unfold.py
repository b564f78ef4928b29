"""Figure 8 of the So, You've Been Cursed. report: how a game unfolds (the Curse, Cure and Panic tracks
round by round in each mode's pairing) and the plausibility checks a designer reads beside it (rounds
played, where the Curse and the Cure come from, coins lost to the coin limit)."""

from __future__ import annotations

import numpy as np

from cursedsim.report.figures import ReportFigure, TextTable, new_figure, panels
from cursedsim.report.village.data import VillageData
from cursedsim.report.village.figures import MODE_COLORS, MODE_WORDS, board_note

#: Rounds are drawn while at least this share of a mode's games is still on.
SHOWN_WHILE = 0.02
TITLES = {"curse": "Curse track (spaces)", "cure": "Cure track (spaces)", "panic": "Panic level",
          "running": "games still on (%)"}


def unfold(data: VillageData) -> ReportFigure:
    """Four panels: mean Curse, Cure and Panic after each round (a game over keeps its final state) and the
    share of games still on, one line per mode."""
    table = data.trajectories
    figure = new_figure(12.0, 3.4)
    axes = panels(figure, 4, sharey=False)
    parts = []
    for mode, wizard, monster in data.plan.pairings:
        part = table[table["mode"] == mode].sort_values("round") if len(table) else table
        if not len(part):
            continue
        share = part["running"] / part["games"]
        shown = part[(share >= SHOWN_WHILE) | (part["round"] == 0)]
        for ax, measure in zip(axes, ("curse", "cure", "panic")):
            ax.plot(shown["round"], shown[f"{measure}_mean"], color=MODE_COLORS[mode], label=mode)
        axes[3].plot(shown["round"], 100 * share[shown.index], color=MODE_COLORS[mode], label=mode)
        half = part[share <= 0.5]
        if len(half):
            parts.append(f"half the games of the {MODE_WORDS[mode]} are over after {int(half['round'].iloc[0])} "
                         "rounds")
    for ax, key in zip(axes, ("curse", "cure", "panic", "running")):
        ax.set_title(TITLES[key], fontsize=9)
        ax.set_xlabel("round (a Wizard's and a Monster's turn)", fontsize=7)
    axes[0].legend(fontsize=7)
    games = int(table["games"].max()) if len(table) else 0
    reading = (f"{'; '.join(parts) or 'no game replayed'}; the first {games:,} games of each mode's pairing, "
               f"{board_note(data)}.")
    about = (f"The first {games:,} games of each mode's pairing replayed by the reference engine (each replay ends "
             "as the kernel's row of that game, else the report stops): the mean of each track after every round, "
             "a game already over keeping its final state, and the share of games still on; rounds are drawn "
             f"while at least {100 * SHOWN_WHILE:g}% of the games are on (tables/trajectories.csv has them all). "
             f"Track lengths: {', '.join(f'{k} {v}' for k, v in data.played_lengths.items())}.")
    return ReportFigure("unfold", "How a game unfolds, round by round", about, figure, reading,
                        tables=[plausibility_table(data)])


def plausibility_table(data: VillageData) -> TextTable:
    """Per mode's pairing, from all its games: rounds played, the share of the Curse from cards, of the Cure
    from Spells, coins lost to the coin limit, unfinished games (data.plausibility)."""
    rows = []
    for r in data.plausibility.itertuples():
        rows.append([f"{r.mode} ({r.wizard} vs {r.monster})", f"{r.mean_rounds:.1f}", f"{r.p90_rounds:.0f}",
                     _share(r.curse_from_cards_share), _share(r.cure_from_spells_share),
                     f"{r.coins_lost_per_game:.2f}", f"{100 * r.coins_lost_games:.1f}", f"{100 * r.unfinished:.2f}"])
    return TextTable("Plausibility checks per mode",
                     ["mode (pairing)", "mean rounds", "p90 rounds", "Curse from cards %", "Cure from Spells %",
                      "coins lost to the limit per game", "games losing coins %", "unfinished %"], rows,
                     f"All {data.n_games:,} games of each mode's pairing; Curse from cards: the share of the Curse "
                     "steps gained from Power cards rather than the end-of-turn tables (a Quiet Night's -1 counts with "
                     "the table); Cure "
                     "from Spells: Cure steps from Spell cards rather than Mix Cure; coins lost: coins a gain could not "
                     "take because the game's coins were all in the Wizard's pouch (docs/rules/village.md, outcome "
                     f"columns); {board_note(data)}.")


def _share(value: float) -> str:
    return "" if np.isnan(value) else f"{100 * value:.1f}"


__all__ = ["SHOWN_WHILE", "plausibility_table", "unfold"]
