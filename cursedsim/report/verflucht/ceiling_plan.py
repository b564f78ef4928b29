"""The skill-ceiling section of the Verflucht! report: 2-5 players (the team searched seat by seat; the
solo game is left out, ``WHY_FEWER`` says why), the built-in policies, ISMCTS and the clairvoyant bound
(``games/verflucht/clairvoyant.py``)."""

from __future__ import annotations

from cursedsim.report.ceiling import CeilingPlan, CeilingSetting

#: Nodes the clairvoyant may search per game here (its default is 5,000): the bound stays sound (an
#: unsettled game counts as won) and a report's 250 games take a minute or two, not most of an hour.
CLAIRVOYANT_BUDGET = 500


def clairvoyant_chunk(seed, start, count, players, options):
    """The clairvoyant's chunk at ``CLAIRVOYANT_BUDGET`` nodes per game."""
    from cursedsim.games.verflucht.clairvoyant import solve_chunk
    return solve_chunk(seed, start, count, players, options, budget=CLAIRVOYANT_BUDGET)


WHY_FEWER = ("The rollout search plays 2,000 games per budget in a default report (one per 100 games of its cells); "
             "`cursedsim ceiling verflucht` plays the full skill curve. The clairvoyant searches "
             "at most 500 nodes per game; a game it does not settle counts as won, so its bound is loose. The solo "
             "game (1 player) is left out: there the clairvoyant's node budget does not bound its time (one hand "
             "collects every Item and the banishing sets to try explode).")


def plan() -> CeilingPlan:
    settings = tuple(CeilingSetting(f"{p} player{'s' if p > 1 else ''}", players=p, heuristics=("baseline", "smart"))
                     for p in (2, 3, 4, 5))
    return CeilingPlan(settings=settings,
                       clairvoyant="cursedsim.report.verflucht.ceiling_plan:clairvoyant_chunk",
                       budgets=(5, 20), max_games=50, why_fewer=WHY_FEWER)
