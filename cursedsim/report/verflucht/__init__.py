"""The Verflucht! balance report: the win rate by seal count, the policies on the same games, scores,
game lengths, what kills a game, and the rulebook's ambiguities (``data``: plan and simulations,
``figures``: the six figures, ``content``: summary, settings and table notes)."""

from __future__ import annotations

from cursedsim.report.registry import GameReport
from cursedsim.report.verflucht import content, data, figures

REPORT = GameReport(game="verflucht", collect=data.collect, figures=figures.FIGURES, context=content.build_context,
                    summary_table=content.summary_table, summary_text=content.summary_text,
                    table_notes=content.TABLE_NOTES)

__all__ = ["REPORT"]
