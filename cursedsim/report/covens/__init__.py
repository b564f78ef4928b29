"""The Curses & Covens balance report (a game of sides: the Witch Hunter against the towns): the hunter's
win rate for every pairing of policies at 4-6 players, how much each side's skill matters, how games
end and how long they last, the value of the rituals and of the spells, and the rules' open points
(``data``: plan and simulations, ``reduce``: frames to rows, ``figures``: the seven figures with their
readings, ``content``: summary, settings and table notes, ``recommend``: the recommendations shown
first)."""

from __future__ import annotations

from cursedsim.report.covens import content, data, figures, recommend
from cursedsim.report.registry import GameReport
from cursedsim.report.covens import ceiling_plan

REPORT = GameReport(game="covens", collect=data.collect, figures=figures.FIGURES, context=content.build_context,
                    summary_table=content.summary_table, summary_text=content.summary_text,
                    table_notes=content.TABLE_NOTES, recommendations=recommend.recommendations,
                    ceiling=ceiling_plan.plan)

__all__ = ["REPORT"]
