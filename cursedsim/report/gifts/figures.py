"""The Cursed Gifts report's six figures: one function per figure, each returning a
:class:`~cursedsim.report.figures.ReportFigure` with its reading computed from the numbers it shows.
Seats are numbered from 0, the first player ("The youngest player starts"); every figure names the
deck it was played with (the reconstructed default deck, or the file given with ``--deck``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from cursedsim.report.content import percent_ci, points_ci
from cursedsim.report.data import ALPHA
from cursedsim.report.figures import (ReportFigure, TextTable, error_bars, join_words, new_figure,
                                      panels, pct, points)
from cursedsim.report.gifts.data import GiftsData

#: One colour per player count in every figure of the report.
PLAYER_COLORS = {2: "#1b9e77", 3: "#d95f02", 4: "#7570b3", 5: "#e7298a", 6: "#66a61e"}
#: The default deck and the scaled variants in the sensitivity figure.
DEFAULT_COLOR = "#7a1f2b"
VARIANT_COLOR = "#6b6b6b"


def player_color(players: int) -> str:
    return PLAYER_COLORS.get(players, f"C{players}")


def deck_note(data: GiftsData) -> str:
    """``on the reconstructed deck name@digest``."""
    kind = "reconstructed deck" if data.deck_reconstructed else "deck"
    return f"on the {kind} {data.deck_label}"


def _sentence(text: str) -> str:
    """``text`` with its first letter upper case (the rest untouched: labels keep their case)."""
    return text[:1].upper() + text[1:]


def pairing(focus: str, field: str) -> str:
    """``defensive in a leader field``."""
    return f"{focus} in a {field} field"


# ---------------------------------------------------------------- 1. win rate by seat

def seat_win_rates(data: GiftsData) -> ReportFigure:
    """Per player count, every seat's win rate with its Wilson interval against the fair share; the
    first player's advantage as a table."""
    plan = data.plan
    seats = data.seats[data.seats["seat"] >= 0]
    figure = new_figure(2.3 * len(plan.players) + 1.0, 3.4)
    axes = panels(figure, len(plan.players))
    for ax, players in zip(axes, plan.players):
        cell = seats[seats["players"] == players].sort_values("seat")
        r = 100 * cell["rate"].to_numpy()
        ax.bar(cell["seat"], r, color=player_color(players), width=0.7)
        ax.errorbar(cell["seat"], r, yerr=error_bars(r, 100 * cell["ci_low"], 100 * cell["ci_high"]), fmt="none",
                    ecolor="0.2", capsize=3)
        ax.axhline(100 / players, color="0.3", ls="--", lw=1)
        ax.set_xticks(range(players))
        ax.set_xlabel("seat (0 starts)")
        ax.set_title(f"{players} players")
    axes[0].set_ylabel("win rate (%), Wilson 95%")

    fp = data.first_player
    fair = fp[fp["against"] == "fair share"].set_index("players")
    parts = [f"{pct(fair.loc[p, 'seat0_rate'])} at {p} players ({points(fair.loc[p, 'diff'])} points against the "
             f"fair share {pct(1 / p)})" for p in plan.players]
    above = [p for p in plan.players if fair.loc[p, "ci_low"] > 0]
    below = [p for p in plan.players if fair.loc[p, "ci_high"] < 0]
    reading = (f"With {plan.seat_policy} at every seat the first player (seat 0) wins {join_words(parts)}; its interval "
               f"lies above the fair share at {join_words([str(p) for p in above]) if above else 'no player count'} and "
               f"below it at {join_words([str(p) for p in below]) if below else 'no player count'}.")
    rows = []
    for players in plan.players:
        f = fair.loc[players]
        pairs = fp[(fp["players"] == players) & (fp["other_seat"] >= 0)]
        lo = pairs.loc[pairs["diff"].idxmin()]
        hi = pairs.loc[pairs["diff"].idxmax()]
        rows.append([str(players), percent_ci(f["seat0_rate"], f["ci_low"] + 1 / players, f["ci_high"] + 1 / players),
                     points_ci(f["diff"], f["ci_low"], f["ci_high"]),
                     f"{points_ci(lo['diff'], lo['ci_low'], lo['ci_high'])} ({lo['against']})",
                     f"{points_ci(hi['diff'], hi['ci_low'], hi['ci_high'])} ({hi['against']})"])
    table = TextTable("The first player's advantage",
                      ["players", "seat 0 win % [95% CI]", "seat 0 − fair share (points)",
                       "seat 0 − seat s, smallest (points)", "seat 0 − seat s, largest (points)"], rows,
                      "Seat 0 against the fair share 1/players: its Wilson interval shifted by 1/players; against "
                      "each other seat s: per game 1[seat 0 won] − 1[seat s won] on the same games, paired t "
                      f"interval (every seat in tables/first_player_advantage.csv, with Holm over all of them); "
                      f"{deck_note(data)}.")
    about = (f"{data.n_games:,} games per player count with {plan.seat_policy} at every seat, {deck_note(data)}. "
             "Bars: the share of games each seat won, with its 95% Wilson interval; dashed: the fair share "
             "1/players. Unfinished games (no winner) are in tables/seat_win_rates.csv as seat -1, so every "
             "player count's rows add up to its games.")
    return ReportFigure("seat_win_rates", "Win rate by seat and player count", about, figure, reading, tables=[table])


# ---------------------------------------------------------------- 2. one strategy at each seat

def focus_by_seat(data: GiftsData) -> ReportFigure:
    """The focus policy at each fixed seat in a field of another policy: its win rate per seat (left) and
    the paired change against seat 0 (right), per player count."""
    plan = data.plan
    focus, field = plan.focus_pair
    table = data.focus_seats
    figure = new_figure(11.0, 3.6)
    left, right = panels(figure, 2, sharey=False)
    for k, players in enumerate(plan.players):
        cell = table[table["players"] == players].sort_values("seat")
        c = player_color(players)
        r = 100 * cell["rate"].to_numpy()
        left.errorbar(cell["seat"] + 0.06 * (k - 2), r, yerr=error_bars(r, 100 * cell["ci_low"], 100 * cell["ci_high"]),
                      fmt="-o", ms=3, color=c, capsize=2, label=f"{players} players")
        left.hlines(100 / players, -0.3, players - 0.7, colors=c, linestyles="dotted", lw=1)
        rest = cell[cell["seat"] > 0]
        d = 100 * rest["diff"].to_numpy()
        kept = rest["survives"].to_numpy(bool)
        x = rest["seat"].to_numpy() + 0.06 * (k - 2)
        right.errorbar(x, d, yerr=error_bars(d, 100 * rest["ci_low_diff"], 100 * rest["ci_high_diff"]), fmt="none",
                       ecolor=c, capsize=2)
        right.plot(x[kept], d[kept], "o", ms=5, color=c)
        right.plot(x[~kept], d[~kept], "o", ms=5, mfc="white", color=c)
    left.set_xlabel("focus seat (0 starts)")
    left.set_ylabel(f"{focus} win rate (%), Wilson 95%")
    left.set_title(pairing(focus, field))
    left.legend(fontsize=8)
    right.axhline(0, color="0.3", lw=1)
    right.set_xlabel("focus seat s")
    right.set_ylabel("win at seat s − at seat 0 (points), paired")
    right.set_title("paired by game index (same deals)")

    parts = []
    for players in plan.players:
        cell = table[(table["players"] == players)].set_index("seat")
        best = cell["rate"].idxmax()
        parts.append(f"{pct(cell.loc[0, 'rate'])} at seat 0 at {players} players"
                     + (" (its best seat)" if best == 0 else
                        f" ({pct(cell.loc[best, 'rate'])} at its best seat {best})"))
    tested = table[table["seat"] > 0]
    surviving = int(tested["survives"].sum())
    worst = tested.loc[tested["diff"].idxmin()]
    reading = (f"The {focus} focus in a {field} field wins {join_words(parts)}; the largest paired loss against seat 0 is "
               f"{points(worst['diff'])} points (seat {worst['seat']} at {worst['players']} players), and "
               f"{surviving} of the {len(tested)} seat changes survive Holm's adjustment at {ALPHA:g}.")
    about = (f"One run per fixed focus seat s (option focus_seat = s) on the same seed and game indices, so game "
             f"i deals the same cards in every run and only where the {focus} player sits changes; the other "
             f"seats play {field}. Left: the focus's win rate per seat with its 95% Wilson interval (dotted: the "
             "fair share 1/players); right: per game 1[focus won at seat s] − 1[focus won at seat 0], paired t 95% "
             f"interval, filled when it survives Holm's adjustment over every seat and player count. "
             f"{data.n_games:,} games per run, {deck_note(data)}.")
    return ReportFigure("focus_by_seat", "One strategy at each seat (paired across seats)", about, figure, reading)


# ---------------------------------------------------------------- 3. game length

def game_length(data: GiftsData) -> ReportFigure:
    """The distribution of game length (turns) by player count, with mean, quantiles and the unfinished
    share as a table."""
    plan = data.plan
    figure = new_figure(9.5, 3.6)
    (ax,) = panels(figure, 1)
    top = 1
    for players in plan.players:
        cell = data.lengths[data.lengths["players"] == players].sort_values("turns")
        cumulative = cell["share"].cumsum().to_numpy()
        shown = cell[np.concatenate([[True], cumulative[:-1] < 0.99])]
        top = max(top, int(shown["turns"].max()))
        ax.plot(shown["turns"], 100 * shown["share"], lw=1.4, color=player_color(players), label=f"{players} players")
    ax.set_xlim(0.5, top + 0.5)
    ax.set_xlabel("turns played (one player's turn each; up to the 99th percentile)")
    ax.set_ylabel("share of games (%)")
    ax.set_title(f"{plan.seat_policy} at every seat")
    ax.legend(fontsize=8)

    summary = data.length_summary.sort_values("players")
    reading = ("Games last " + join_words([f"{r.mean:.1f} turns on average at {r.players} players (median {r.median:g}, "
                                      f"80% between {r.p10:g} and {r.p90:g})" for r in summary.itertuples()])
               + f"; {pct(summary['unfinished'].max())} of games at most are unfinished (cap "
               f"{data.option_defaults.get('max_turns')} turns), and the longest game lasted "
               f"{int(summary['max'].max())} turns.")
    rows = [[str(r.players), f"{r.mean:.2f} ± {r.se:.2f}", f"{r.median:g}", f"{r.p10:g}-{r.p90:g}", f"{r.p99:g}",
             str(r.max),
             f"{100 * r.unfinished:.3f} [{100 * r.unfinished_ci_low:.3f}, {100 * r.unfinished_ci_high:.3f}]"]
            for r in summary.itertuples()]
    table = TextTable("Game length (turns)", ["players", "mean ± se", "median", "10th-90th percentile", "99th",
                                              "longest", "unfinished % [95% CI]"], rows,
                      f"{plan.seat_policy} at every seat, {data.n_games:,} games per player count, {deck_note(data)}; "
                      "a game still on after max_turns turns is unfinished (counted, never dropped).")
    about = ("The share of games lasting each number of turns (one player's turn each), one line per player "
             "count; the table gives the mean with its standard error, quantiles, the longest game and the "
             "unfinished share with its Wilson interval.")
    return ReportFigure("game_length", "Game length", about, figure, reading, tables=[table])


# ---------------------------------------------------------------- 4. policy matrix

def policy_matrix(data: GiftsData) -> ReportFigure:
    """A heat-map: the focus seat's excess win rate over the fair share for every focus policy (rows)
    against every field policy (columns)."""
    plan = data.plan
    matrix = data.matrix.set_index(["focus", "field"])
    players = plan.matrix_players
    figure = new_figure(1.5 * len(plan.fields) + 2.6, 0.75 * len(plan.policies) + 1.6)
    ax = figure.subplots()
    values = np.array([[matrix.loc[(f, g), "excess"] for g in plan.fields] for f in plan.policies])
    bound = max(float(np.abs(values).max()), 0.05) * 100
    image = ax.imshow(100 * values, cmap="coolwarm", vmin=-bound, vmax=bound, aspect="auto")
    for i, f in enumerate(plan.policies):
        for j, g in enumerate(plan.fields):
            cell = matrix.loc[(f, g)]
            ax.text(j, i, f"{100 * cell['rate']:.1f}%\n[{100 * cell['ci_low']:.1f}, {100 * cell['ci_high']:.1f}]",
                    ha="center", va="center", fontsize=7.5)
    ax.set_xticks(range(len(plan.fields)), plan.fields, fontsize=8)
    ax.set_yticks(range(len(plan.policies)), plan.policies, fontsize=8)
    ax.set_xlabel("field policy (every other seat)")
    ax.set_ylabel("focus policy (one seat, rotating)")
    figure.colorbar(image, ax=ax, label=f"focus win rate − {pct(1 / players)} (points)", shrink=0.9)

    table = data.matrix
    best = table.loc[table["excess"].idxmax()]
    worst = table.loc[table["excess"].idxmin()]
    field_rows = table[table["field"] == plan.seat_policy]
    best_vs = field_rows.loc[field_rows["excess"].idxmax()] if len(field_rows) else best
    diagonal = table[table["focus"] == table["field"]]
    reading = (f"At {players} players the best focus is {best['focus']} against a {best['field']} field "
               f"({pct(best['rate'])}, {points(best['excess'])} points over the fair share {pct(1 / players)}) and "
               f"the worst {worst['focus']} against {worst['field']} ({pct(worst['rate'])}, {points(worst['excess'])} "
               f"points); against a {plan.seat_policy} field the best focus is {best_vs['focus']} "
               f"({pct(best_vs['rate'])}); with the same policy everywhere (the focus is then one seat of the "
               f"rotation) the focus wins {pct(diagonal['rate'].min())}-{pct(diagonal['rate'].max())}.")
    about = (f"Every focus policy against every field policy at {players} players on the same {data.n_games:,} "
             "games (the focus seat rotates: game i puts it at seat i mod players, so every seat is measured "
             "equally). Each cell: the focus seat's win rate with its 95% Wilson interval; the colour is its "
             f"excess over the fair share {pct(1 / players)} (red: better than a fair share). "
             f"{_sentence(deck_note(data))}; "
             "tables/policy_matrix.csv has the excess with its interval, mean turns and unfinished share.")
    return ReportFigure("policy_matrix", "The policy matrix: one strategy against a field", about, figure, reading)


# ---------------------------------------------------------------- 5. card values

def _card_panel(ax, table: pd.DataFrame, cards: list[str], center: str, low: str, high: str, scale: float,
                xlabel: str, color: str) -> None:
    y = np.arange(len(cards))[::-1]
    t = table.set_index("card").reindex(cards)
    d = scale * t[center].to_numpy(np.float64)
    ax.errorbar(d, y, xerr=error_bars(d, scale * t[low].to_numpy(np.float64), scale * t[high].to_numpy(np.float64)),
                fmt="none", ecolor=color, capsize=2)
    kept = t["survives"].fillna(False).to_numpy(bool) if "survives" in t else np.ones(len(cards), bool)
    ax.plot(d[kept], y[kept], "o", ms=4.5, color=color)
    ax.plot(d[~kept], y[~kept], "o", ms=4.5, mfc="white", color=color)
    ax.axvline(0, color="0.3", lw=1)
    ax.set_yticks(y, cards, fontsize=7.5)
    ax.set_xlabel(xlabel, fontsize=8.5)


def card_values(data: GiftsData) -> ReportFigure:
    """What each card kind is worth: the focus seat's win rate dealt the kind against not (left), and the
    paired change of seat 0's win rate (middle) and of the mean turns (right) when the kind is removed."""
    plan = data.plan
    cards = list(plan.cards)
    removal = data.removal
    seat0 = removal[removal["measure"] == "seat0_win"]
    turns = removal[removal["measure"] == "turns"]
    has_dealt = len(data.dealt) > 0
    figure = new_figure(13.0, 0.28 * len(cards) + 1.6)
    axes = figure.subplots(1, 3, sharey=True)
    for ax in axes:
        ax.grid(alpha=0.3)
    if has_dealt:
        _card_panel(axes[0], data.dealt, cards, "diff", "ci_low", "ci_high", 100,
                    "focus win rate dealt − not dealt (points)", "#2c7fb8")
    else:
        axes[0].text(0.5, 0.5, "focus_dealt not produced\nby this engine", ha="center", va="center",
                     transform=axes[0].transAxes)
        axes[0].set_yticks(np.arange(len(cards))[::-1], cards, fontsize=7.5)
    axes[0].set_title("dealt at set-up vs not", fontsize=9)
    _card_panel(axes[1], seat0, cards, "diff", "ci_low", "ci_high", 100, "seat 0 win rate without − full (points)",
                "#d95f02")
    axes[1].set_title("removed: seat 0's win rate", fontsize=9)
    _card_panel(axes[2], turns, cards, "diff", "ci_low", "ci_high", 1, "mean turns without − full", "#7570b3")
    axes[2].set_title("removed: game length", fontsize=9)

    p = plan.card_players
    parts = []
    if has_dealt:
        dealt = data.dealt.dropna(subset=["diff"])
        top = dealt.loc[dealt["diff"].idxmax()]
        low = dealt.loc[dealt["diff"].idxmin()]
        parts.append(f"a focus seat dealt {top['card']} wins {points(top['diff'])} points more often than one "
                     f"not dealt it ({pct(top['rate_dealt'])} vs {pct(top['rate_not'])}), one dealt {low['card']} "
                     f"{points(low['diff'])} points ({pct(low['rate_dealt'])} vs {pct(low['rate_not'])})")
    longer = turns.loc[turns["diff"].idxmax()]
    shorter = turns.loc[turns["diff"].idxmin()]
    moved = seat0.loc[seat0["diff"].abs().idxmax()]
    parts.append(f"removing {longer['card']} changes the mean game by {longer['diff']:+.2f} turns and removing "
                 f"{shorter['card']} by {shorter['diff']:+.2f} turns")
    parts.append(f"the largest change of seat 0's win rate comes from removing {moved['card']} "
                 f"({points(moved['diff'])} points; {int(seat0['survives'].sum())} of {len(seat0)} survive Holm)")
    reading = f"At {p} players with {plan.seat_policy} everywhere, " + "; ".join(parts) + "."
    about = (f"Left: from the {p}-player {plan.seat_policy} games of figure 1 (focus seat rotating), the focus "
             "seat's win rate when its 7 cards at set-up held at least one card of the kind minus when they held "
             "none (two groups of different games: Welch 95% interval; observational: a hand with one kind has "
             "fewer of the others). Middle and right: the deck without the kind (option without_card) played on "
             "the same seed and game indices as the full deck, per game without − full, paired t 95% interval: "
             "seat 0's win rate and the game length. Removing a kind changes the shuffle, so the pairing shares "
             "each game's random stream, not its deal. Filled: survives Holm's adjustment within its panel. "
             f"{_sentence(deck_note(data))}; each removed deck's label is in tables/card_removal.csv.")
    return ReportFigure("card_values", "What each card kind is worth", about, figure, reading)


# ---------------------------------------------------------------- 6. deck sensitivity

def deck_sensitivity(data: GiftsData) -> ReportFigure:
    """Seat 0's win rate, mean turns and the unfinished share for the default deck and each scaled deck."""
    from cursedsim.report.gifts.decks import factor_text
    plan = data.plan
    table = data.deck_sensitivity.reset_index(drop=True)
    word = data.deck_word
    labels = [word] + [f"scaled {i}" for i in range(1, len(table))]
    figure = new_figure(12.0, 0.3 * len(table) + 1.8)
    axes = figure.subplots(1, 3, sharey=True)
    y = np.arange(len(table))[::-1]
    colors = [DEFAULT_COLOR] + [VARIANT_COLOR] * (len(table) - 1)
    measures = (("seat0_rate", "seat0_ci_low", "seat0_ci_high", 100, "seat 0 win rate (%), Wilson 95%"),
                ("mean_turns", None, None, 1, "mean turns ± 1.96 se"),
                ("unfinished", "unfinished_ci_low", "unfinished_ci_high", 100, "unfinished (%), Wilson 95%"))
    for ax, (center, low, high, scale, label) in zip(axes, measures):
        ax.grid(alpha=0.3)
        c = scale * table[center].to_numpy(np.float64)
        if low is None:
            half = 1.96 * table["turns_se"].to_numpy(np.float64)
            lo, hi = c - half, c + half
        else:
            lo, hi = scale * table[low].to_numpy(np.float64), scale * table[high].to_numpy(np.float64)
        for yi, ci, l, h, color in zip(y, c, lo, hi, colors):
            ax.errorbar([ci], [yi], xerr=error_bars(ci, l, h), fmt="o", ms=4.5, color=color, capsize=2)
        ax.axvline(c[0], color=DEFAULT_COLOR, lw=1, ls="--")
        ax.set_xlabel(label, fontsize=8.5)
    axes[0].set_yticks(y, labels, fontsize=8)
    axes[0].axvline(100 / plan.card_players, color="0.3", lw=1, ls="dotted")

    default = table.iloc[0]
    scaled = table.iloc[1:]
    if len(scaled):
        reading = (f"Over {len(scaled)} decks with {factor_text()}, seat 0 wins {pct(scaled['seat0_rate'].min())}-"
                   f"{pct(scaled['seat0_rate'].max())} ({word} {pct(default['seat0_rate'])}), games last "
                   f"{scaled['mean_turns'].min():.1f}-{scaled['mean_turns'].max():.1f} turns on average ({word} "
                   f"{default['mean_turns']:.1f}) and {pct(scaled['unfinished'].min())}-"
                   f"{pct(scaled['unfinished'].max())} "
                   f"are unfinished ({word} {pct(default['unfinished'])}), at {plan.card_players} players with "
                   f"{plan.seat_policy} everywhere.")
    else:
        reading = f"No scaled decks were played; the {word} deck's seat 0 wins {pct(default['seat0_rate'])}."
    if data.deck_file == "default":
        base = f"The default deck is a reconstruction ({data.deck_label}); its counts are our choices."
    else:
        base = f"The base deck is {data.deck_text}."
    about = (f"{base} Each scaled "
             f"deck has {factor_text()} from a seeded stream; the decks are written as TOML files into the report's "
             "decks/ folder (load one with --deck FILE) and tables/deck_counts.csv lists every count. Each deck "
             f"plays {data.n_games:,} games at {plan.card_players} players with {plan.seat_policy} everywhere; dashed: "
             f"the {word} deck's value, dotted: the fair share.")
    title = "Sensitivity to the reconstructed counts" if data.deck_reconstructed else "Sensitivity to the deck's counts"
    return ReportFigure("deck_sensitivity", title, about, figure, reading)


#: The report's figures, in order.
FIGURES: tuple[Callable[[GiftsData], ReportFigure], ...] = (
    seat_win_rates, focus_by_seat, game_length, policy_matrix, card_values, deck_sensitivity)


__all__ = ["FIGURES", "PLAYER_COLORS", "card_values", "deck_note", "deck_sensitivity", "focus_by_seat",
           "game_length", "pairing", "player_color", "policy_matrix", "seat_win_rates"]
