"""The So, You've Been Cursed. balance report (sides ``wizard`` and ``monster``; the pairing decides the
mode), on the RECONSTRUCTED default board or a board file (``--board FILE``, ``ReportChoices.board``),
named in every table: the win rates of every pairing with intervals, game length and the Panic effects
per mode, the player policies against the printed automata (paired on the same games), and the
sensitivity to the reconstructed board: generated boards and the Curse and Cure track lengths, with the
balance point (``data``: plan and simulations, ``reduce``: frames to rows, ``boards``: the board files
written, ``figures``: the six figures with their readings, ``figure_sensitivity``: how much the
calibrated game rests on each assumption (``sensitivity``: its variations), ``figure_unfold``: how games
unfold round by round (``trajectories``) with the plausibility checks, ``content``: summary, settings and
table notes, ``recommend``: the recommendations shown first)."""

from __future__ import annotations

from cursedsim.report.registry import GameReport
from cursedsim.report.village import ceiling_plan
from cursedsim.report.village import content, data, figure_sensitivity, figure_unfold, figures, recommend

#: The report's figures in order: figures.py's six, the calibrated game's sensitivity, how games unfold.
FIGURES = figures.FIGURES + (figure_sensitivity.sensitivity, figure_unfold.unfold)

REPORT = GameReport(game="village", collect=data.collect, figures=FIGURES, context=content.build_context,
                    summary_table=content.summary_table, summary_text=content.summary_text,
                    table_notes=content.TABLE_NOTES, recommendations=recommend.recommendations,
                    ceiling=ceiling_plan.plan)

__all__ = ["FIGURES", "REPORT"]
