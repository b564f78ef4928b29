"""The Cursed Gifts balance report (seats as sides: one ``focus`` seat against the ``field``), on the
reconstructed default deck or a deck file (``--deck FILE``, ``ReportChoices.deck``), named in every
table: win rate by seat at 2-6 players with the first player's advantage (and one strategy moved from
seat to seat, paired on the same deals), game length, the policy matrix focus x field, what each card
kind is worth (dealt or not, and removed from the deck), and the sensitivity to the deck's counts
(``data``: plan and simulations, ``reduce``: frames to rows, ``decks``: the scaled deck files,
``figures``: the six figures with their readings, ``content``: summary, settings and table notes,
``recommend``: the recommendations shown first)."""

from __future__ import annotations

from cursedsim.report.gifts import content, data, figures, recommend
from cursedsim.report.registry import GameReport
from cursedsim.report.gifts import ceiling_plan

REPORT = GameReport(game="gifts", collect=data.collect, figures=figures.FIGURES, context=content.build_context,
                    summary_table=content.summary_table, summary_text=content.summary_text,
                    table_notes=content.TABLE_NOTES, recommendations=recommend.recommendations,
                    ceiling=ceiling_plan.plan)

__all__ = ["REPORT"]
