"""The words and tables of the So, You've Been Cursed. report: the summary (both sides' win rates in the
pairing standing for each mode), the settings, the intro and the notes on the CSV tables. The default
board is a RECONSTRUCTION: the intro, the settings, the summary and every table say so and give its
label ``name@digest``; a board given with ``--board`` is named with its file and its own flag."""

from __future__ import annotations

from typing import Any

import pandas as pd

from cursedsim.report import content
from cursedsim.report.content import percent_ci
from cursedsim.report.village.data import VillageData

_BOARD = "every table has the board's label (board, name@digest) and board_reconstructed"
TABLE_NOTES = {
    "pairings": f"figure 1 and the summary: per Wizard and Monster policy, the mode, both sides' wins and win rates "
                f"(Wilson 95%), the unfinished share, mean turns; {_BOARD}",
    "game_length": "figure 2: per pairing, games and share per number of turns, and the wins of each side among them",
    "game_length_summary": "figure 2: per pairing, mean turns (se), 10th/50th/90th percentiles, longest, unfinished "
                           "share (Wilson 95%)",
    "panic_effects": "figure 3: per pairing and Panic effect of its Village board side, the level it starts at, the "
                     "games in which it applied (Wilson 95%), turns applied per game, first turn (mean, median)",
    "player_vs_automaton": "figure 4: per side, player policy and opponent, that side's win rate with the policy and "
                           "with the automaton on the same games, the paired difference, p-value, Holm",
    "generated_boards": "figure 5: per board (the base board, then the generated boards with their files under "
                        "boards/) and study pairing, both sides' win rates and the unfinished share (Wilson 95%)",
    "track_lengths": "figure 6: per track (curse, cure), length and study pairing, the board played (the base board "
                     "at its own length, the variants with their files under boards/) and the win rates",
    "balance_points": "figure 6: per track and study pairing, the length where the Wizard wins half the games "
                      "(linear interpolation; NaN: not within the lengths played)",
    "sensitivity": "figure 7: per variation (group: track length, cards, board, reading) and mode it reaches, the "
                   "Wizard's win rate with it (Wilson 95%) and with the default on the same games, the paired "
                   "difference (diff, se, t interval, p-value), the share of games whose winner changed",
    "trajectories": "figure 8: per mode's pairing and round (0: the set-up), the games replayed, those still on, and "
                    "the mean Curse, Cure and Panic after the round (a game over keeps its final state)",
    "plausibility": "figure 8: per mode's pairing, mean and 90th-percentile rounds, the Curse's share from cards, "
                    "the Cure's share from Spells, coins lost to the coin limit per game and the share of games "
                    "losing any, the unfinished share",
}


def summary_table(data: VillageData) -> pd.DataFrame:
    """One row per mode (its pairing): both sides' win rates with their 95% intervals and the unfinished share."""
    columns = ["mode", "wizard", "monster", "n", "wizard_rate", "wizard_ci_low", "wizard_ci_high", "monster_rate",
               "monster_ci_low", "monster_ci_high", "unfinished", "mean_turns"]
    rows = []
    for mode, wizard, monster in data.plan.pairings:
        row = data.pairings[(data.pairings["wizard"] == wizard) & (data.pairings["monster"] == monster)]
        rows.append(row[columns])
    table = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=columns)
    return table.assign(board=data.board_label, board_reconstructed=data.board_reconstructed)


def summary_text(data: VillageData, *, compact: bool = False) -> dict[str, Any]:
    """The summary as text: one row per mode, both sides' win rates (with intervals unless ``compact``),
    the unfinished share and mean turns."""
    digits = 1 if compact else 2
    rows = []
    for r in summary_table(data).itertuples():
        wizard = f"{100 * r.wizard_rate:.{digits}f}" if compact else \
            percent_ci(r.wizard_rate, r.wizard_ci_low, r.wizard_ci_high, digits)
        monster = f"{100 * r.monster_rate:.{digits}f}" if compact else \
            percent_ci(r.monster_rate, r.monster_ci_low, r.monster_ci_high, digits)
        rows.append([r.mode, f"{r.wizard} vs {r.monster}", wizard, monster, f"{100 * r.unfinished:.{digits}f}",
                     f"{r.mean_turns:.1f}"])
    note = (f"Win rate (%) of each side in the pairing standing for each mode, with its Wilson 95% interval; "
            f"{data.n_games:,} games per pairing (seed {data.seed}), played on {data.board_text}.")
    return {"heading": "Summary: win rates per mode", "title": f"{data.title}: win % per mode ({data.board_tag})",
            "columns": ["mode", "pairing", "Wizard win %", "Monster win %", "unfinished %", "mean turns"],
            "rows": rows, "labels": 2, "note": note}


def build_context(data: VillageData, *, out: str, command: str) -> dict[str, Any]:
    """Template variables of the report (everything but the figures)."""
    from cursedsim.games.village.cards import cards_of
    from cursedsim.report.village.boards import BOARDS_DIR
    plan = data.plan
    cards = cards_of(data.option_defaults.get("cards", "default"))
    modes = "; ".join(f"{mode}: {w} vs {m}" for mode, w, m in plan.pairings)
    settings = content.provenance(data, plan.game) + [
        ("board", f"{data.board_text}; every run of figures 1-4 plays it, every table names it (columns board, "
                  "board_reconstructed)"),
        ("cards", f"{cards.label} in every run" + (" (marked reconstructed: the fields the rulebook does not print "
                                                   "are documented choices, docs/rules/village_cards.md)"
                                                   if cards.reconstructed else "")),
        ("pairings", f"every Wizard policy ({', '.join(plan.wizards)}) against every Monster policy "
                     f"({', '.join(plan.monsters)}); the pairing decides the mode"),
        ("mode pairings", f"{modes} (figures 2-3, 5-6, the summary)"),
        ("generated boards", f"{plan.generated_boards} boards of board.generate(seed), seeds {plan.board_seed} on, "
                             f"written to {BOARDS_DIR}/, played in {', '.join(plan.study_modes)} (figure 5)"),
        ("track lengths", f"Curse {', '.join(map(str, plan.curse_lengths))} and Cure "
                          f"{', '.join(map(str, plan.cure_lengths))} (base board: Curse "
                          f"{data.track_lengths['curse']}, Cure {data.track_lengths['cure']}), written to "
                          f"{BOARDS_DIR}/, played in {', '.join(plan.study_modes)} (figure 6)"),
        ("sensitivity", f"{data.sensitivity['variation'].nunique() if len(data.sensitivity) else 0} variations "
                        "of the calibrated default, each in the modes it reaches, on the same games (figure 7)"),
        ("trajectories", f"the first {min(plan.trajectory_games, data.n_games):,} games of each mode's pairing "
                         "replayed by the reference engine (figure 8)"),
        ("intervals", "95%: Wilson for win rates, paired t for a player policy against its automaton and for a "
                      "variation against the default on the same games; Holm over figure 4's comparisons"),
    ]
    tested = {"board": f"{data.board_file} (every run of figures 1-4)" if data.board_file != "default" else
              f"{plan.generated_boards} generated boards and {len(plan.curse_lengths) + len(plan.cure_lengths)} "
              "track variants of the base board (figures 5-6)"}
    options = content.option_rows(data, tested, defaults={"board": "default (reconstructed)"})
    if data.board_file == "default":
        played = (f"Every game of figures 1-4 is played on the RECONSTRUCTED board {data.board_label}: the real "
                  "board is not public, so its road graph, houses, pastures and track lengths are documented "
                  "choices (docs/rules/village_board.md), and figures 5-6 measure how much they matter.")
    else:
        played = (f"Every game of figures 1-4 is played on {data.board_text}, given with --board; figures 5-6 "
                  "measure how much a board's choices matter.")
    intro = (f"Who wins {data.title} in each of its modes (the 0-player game, the two solo games, the duel), how "
             "long do games last, which Panic effects fire, how much better do the player policies do than the "
             "printed automata, how much do the answers depend on the board and on each assumption behind the "
             "calibrated game, and how does a game unfold? "
             f"{played} {data.games_played:,} simulated games, "
             f"summarised in {content.figures_phrase(data, 8)}; each comes with its reading.")
    return content.context(data, out=out, command=command, intro=intro, settings=settings,
                           summary=summary_text(data), options=options, rules_doc=plan.rules_doc,
                           rules_note="figures 5-6 measure how much the reconstructed board matters")


__all__ = ["TABLE_NOTES", "build_context", "summary_table", "summary_text"]
