"""The skill-ceiling section of the Verflucht! report: each player count of the rulebook (the team
searched seat by seat), the built-in policies, ISMCTS and the clairvoyant bound
(``games/verflucht/clairvoyant.py``)."""

from __future__ import annotations

from cursedsim.report.ceiling import CeilingPlan, CeilingSetting


def plan() -> CeilingPlan:
    return CeilingPlan(settings=tuple(CeilingSetting(f"{p} player{'s' if p > 1 else ''}", players=p, heuristics=("baseline", "smart"))
                                     for p in (1, 2, 3, 4, 5)),
                       clairvoyant="cursedsim.games.verflucht.clairvoyant:solve_chunk")
