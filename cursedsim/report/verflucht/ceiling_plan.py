"""The skill-ceiling section of the Verflucht! report: each player count of the rulebook (the team
searched seat by seat), the built-in policies, ISMCTS and the clairvoyant bound
(``games/verflucht/clairvoyant.py``)."""

from __future__ import annotations

from cursedsim.report.ceiling import CeilingPlan, CeilingSetting


WHY_FEWER = ("Each ISMCTS playout is a whole game on the reference engine (Python), so the report plays it "
             "at 5 and 20 iterations on at most 50 games per contender: wide intervals, a first "
             "look; `cursedsim simulate` with more games and iterations narrows them.")


def plan() -> CeilingPlan:
    settings = tuple(CeilingSetting(f"{p} player{'s' if p > 1 else ''}", players=p, heuristics=("baseline", "smart"))
                     for p in (1, 2, 3, 4, 5))
    return CeilingPlan(settings=settings,
                       clairvoyant="cursedsim.games.verflucht.clairvoyant:solve_chunk",
                       budgets=(5, 20), max_games=50, why_fewer=WHY_FEWER)
