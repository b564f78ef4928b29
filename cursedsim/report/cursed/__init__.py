"""The Cursed!? balance report (solo): the policies on the same games, the souls games end with, when
to stop drawing weapons, the value of each starting item, and the rulebook's ambiguities (``data``:
plan and simulations, ``figures``: the five figures, ``content``: summary, settings and table notes,
``recommend``: the recommendations shown first)."""

from __future__ import annotations

from cursedsim.report.cursed import content, data, figures, recommend
from cursedsim.report.registry import GameReport
from cursedsim.report.cursed import ceiling_plan

REPORT = GameReport(game="cursed", collect=data.collect, figures=figures.FIGURES, context=content.build_context,
                    summary_table=content.summary_table, summary_text=content.summary_text,
                    table_notes=content.TABLE_NOTES, recommendations=recommend.recommendations,
                    ceiling=ceiling_plan.plan)

__all__ = ["REPORT"]
