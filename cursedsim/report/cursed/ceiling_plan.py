"""The skill-ceiling section of the Cursed!? report: the default game, its built-in policies, ISMCTS and
the clairvoyant bound (``games/cursed/clairvoyant.py``)."""

from __future__ import annotations

from cursedsim.report.ceiling import CeilingPlan, CeilingSetting


def clairvoyant_chunk(seed, start, count, players, options):
    """The clairvoyant's chunk in the ceiling's signature (a solo game: ``players`` is 1)."""
    from cursedsim.games.cursed.clairvoyant import solve_chunk
    return solve_chunk(seed, start, count, options)


def plan() -> CeilingPlan:
    from cursedsim.games import get_game
    heuristics = tuple(name for name in ("threshold", "no_items", "counting", "optimal_fight")
                       if name in get_game("cursed").policies)
    return CeilingPlan(settings=(CeilingSetting("the rulebook game", players=1, heuristics=heuristics),),
                       clairvoyant="cursedsim.report.cursed.ceiling_plan:clairvoyant_chunk")
