"""The Verflucht! balance report: recommendations (seals for a target win rate), the win rate by seal
count, the policies on the same games, scores, game lengths, what kills a game, and the rulebook's
ambiguities (``data``: plan and simulations, ``recommend``: the recommendations, ``figures``: the
seven figures, ``content``: summary, settings and table notes)."""

from __future__ import annotations

from cursedsim.report.registry import GameReport
from cursedsim.report.verflucht import ceiling_plan
from cursedsim.report.verflucht import content, data, figures, recommend

REPORT = GameReport(game="verflucht", collect=data.collect, figures=figures.FIGURES, context=content.build_context,
                    summary_table=content.summary_table, summary_text=content.summary_text,
                    table_notes=content.TABLE_NOTES, recommendations=recommend.recommendations_text,
                    ceiling=ceiling_plan.plan)

__all__ = ["REPORT"]
