"""The words and tables of the Cursed Gifts report: the summary (every seat's win rate at every player
count), the settings, the intro and the notes on the CSV tables. The default deck is a reconstruction:
the intro, the settings and the summary say so and give its label ``name@digest``; a deck given with
``--deck`` is named with its file and its own ``reconstructed`` flag."""

from __future__ import annotations

from typing import Any

import pandas as pd

from cursedsim.report import content
from cursedsim.report.content import percent_ci
from cursedsim.report.gifts.data import GiftsData

_DECK = "every table has the deck's label (deck, name@digest) and deck_reconstructed"
TABLE_NOTES = {
    "seat_win_rates": f"figure 1 and the summary: per player count and seat, wins and win rate (Wilson 95%) with "
                      f"leader everywhere; seat -1: games without a winner (unfinished); {_DECK}",
    "first_player_advantage": "figure 1: seat 0 against the fair share 1/players (Wilson interval shifted) and "
                              "against each other seat (paired on the same games), p-value, Holm",
    "focus_by_seat": "figure 2: the focus policy with the focus fixed at each seat, win rate (Wilson 95%) and the "
                     "paired change against seat 0 (diff, ci_low_diff, ci_high_diff), Holm",
    "game_length": "figure 3: per player count, games and share per number of turns",
    "game_length_summary": "figure 3: per player count, mean turns (se), 10th/50th/90th/99th percentiles, longest, "
                           "unfinished share (Wilson 95%)",
    "policy_matrix": "figure 4: per focus and field policy, the focus win rate (Wilson 95%), its excess over the "
                     "fair share with interval, mean turns, unfinished share",
    "card_dealt": "figure 5 (left): per card kind, the focus seat's win rate dealt at least one / none (Wilson "
                  "95%), the difference (Welch 95%), p-value, Holm",
    "card_removal": "figure 5 (middle, right): per card kind and measure (turns, seat0_win), the deck without it − "
                    "the full deck on the same games (paired), the removed deck's label, Holm per measure",
    "deck_sensitivity": "figure 6: per deck (default, then the scaled variants, with their files under decks/), "
                        "seat 0's win rate, mean turns and unfinished share with intervals",
    "deck_counts": "figure 6: per scaled deck and card kind, the default count, the factor drawn and the count",
}


def summary_table(data: GiftsData) -> pd.DataFrame:
    """One row per player count and seat (leader everywhere): wins and win rate with its 95% interval."""
    columns = ["players", "seat", "n", "wins", "rate", "ci_low", "ci_high", "fair_share"]
    return data.seats[data.seats["seat"] >= 0][columns].reset_index(drop=True)


def summary_text(data: GiftsData, *, compact: bool = False) -> dict[str, Any]:
    """The summary as text: one row per player count, every seat's win rate (with its interval unless
    ``compact``) and the unfinished share."""
    plan = data.plan
    digits = 1 if compact else 2
    seats = data.seats.set_index(["players", "seat"])
    top = max(plan.players)
    columns = ["players"] + [f"seat {s}" for s in range(top)] + ["unfinished"]
    rows = []
    for players in plan.players:
        cells = []
        for seat in range(top):
            if seat >= players:
                cells.append("-")
                continue
            c = seats.loc[(players, seat)]
            cells.append(f"{100 * c['rate']:.{digits}f}" if compact else
                         percent_ci(c["rate"], c["ci_low"], c["ci_high"], digits))
        none = seats.loc[(players, -1)]
        rows.append([str(players)] + cells + [f"{100 * none['rate']:.{digits}f}"])
    note = (f"Win rate (%) of each seat (seat 0 starts) with {plan.seat_policy} at every seat, with its Wilson 95% "
            f"interval; {data.n_games:,} games per player count (seed {data.seed}), played on {data.deck_text}.")
    return {"heading": "Summary: win rate by seat and player count",
            "title": f"{data.title}: win % by seat ({data.deck_tag})", "columns": columns,
            "rows": rows, "labels": 1, "note": note}


def build_context(data: GiftsData, *, out: str, command: str) -> dict[str, Any]:
    """Template variables of the report (everything but the figures)."""
    from cursedsim.report.gifts.decks import DECKS_DIR, factor_text
    plan = data.plan
    focus, field = plan.focus_pair
    settings = content.provenance(data, plan.game) + [
        ("deck", f"{data.deck_text}; every run plays it, every table names it (columns deck, deck_reconstructed)"),
        ("player counts", ", ".join(map(str, plan.players)) + f" (figures 1-3); {plan.matrix_players} for figures 4-6"),
        ("seats", f"{plan.seat_policy} at every seat (figures 1, 3, 5, 6); {focus} focus in a {field} field with the "
                  "focus fixed at each seat in turn (figure 2)"),
        ("policy matrix", f"every focus policy ({', '.join(plan.policies)}) against every field policy "
                          f"({', '.join(plan.fields)}) at {plan.matrix_players} players, focus seat rotating"),
        ("card kinds", f"without_card = each of the {len(plan.cards)} kinds of the deck played, paired against the "
                       "full deck (figure 5)"),
        ("deck sensitivity", f"{plan.deck_variants} decks with {factor_text()}, written to {DECKS_DIR}/ (figure 6)"),
        ("intervals", "95%: Wilson for win rates, paired t for differences on the same games, Welch for the dealt/not "
                      "dealt groups; Holm over each figure's comparisons"),
    ]
    tested = {"focus_seat": "rotate, 0-5 (figures 2-4)", "without_card": "each card kind (figure 5)",
              "deck": f"{plan.deck_variants} scaled decks (figure 6)" if data.deck_file == "default" else
                      f"{data.deck_file} (every run) and {plan.deck_variants} decks scaled from it (figure 6)"}
    options = content.option_rows(data, tested)
    if data.deck_file == "default":
        played = (f"Every game is played on the reconstructed deck {data.deck_label}: the real card list is not "
                  "public, so counts and values are documented choices (docs/rules/gifts.md), and figure 6 measures "
                  "how much they matter.")
    else:
        played = (f"Every game is played on {data.deck_text}, given with --deck; figure 6 measures how much its "
                  "counts matter.")
    intro = (f"Does the first player of {data.title} win too often, how long do games last, which strategy wins "
             "against which, what is each card worth, and how much do the answers depend on the deck's make-up? "
             f"{played} {data.games_played:,} simulated games, "
             f"summarised in {content.figures_phrase(data, 6)}; each comes with its "
             "reading.")
    counts = "reconstructed counts" if data.deck_reconstructed else "deck's counts"
    return content.context(data, out=out, command=command, intro=intro, settings=settings,
                           summary=summary_text(data), options=options, rules_doc=plan.rules_doc,
                           rules_note=f"figure 6 measures how much the {counts} matter")


__all__ = ["TABLE_NOTES", "build_context", "summary_table", "summary_text"]
