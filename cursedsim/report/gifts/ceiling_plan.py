"""The skill-ceiling section of the Cursed Gifts report: the focus seat searched against a field of the
default policy, at three and four players. No clairvoyant bound: see ``NO_BOUND``."""

from __future__ import annotations

from cursedsim.report.ceiling import CeilingPlan, CeilingSetting

NO_BOUND = ("every other seat plays too, so 'the best line' of one seat depends on how the others answer; "
            "a bound would need a search of every seat's choices over the whole deal (many hands of hidden "
            "cards and responses), far beyond an exhaustive search here.")

WHY_FEWER = ("The compiled rollout search plays the focus seat at n = 4, 16 and 64 playouts per candidate "
             "(~30 games/s per core at n=64 with four players) on 2,000 games per budget in a default report; "
             "`cursedsim ceiling gifts --side focus` plays the full skill curve.")


def plan() -> CeilingPlan:
    settings = tuple(CeilingSetting(f"{p} players, focus seat", players=p, side="focus",
                                    heuristics=("leader", "weakest_link", "spread", "defensive"),
                                    others={"field": "leader"}) for p in (3, 4))
    return CeilingPlan(settings=settings, no_bound=NO_BOUND,
                       budgets=(5, 20), max_games=40, why_fewer=WHY_FEWER, rollout_budgets=(4, 16, 64))
