"""The skill-ceiling section of the So, You've Been Cursed. report: the two solo modes (the Wizard
player against the Rabid Monster, the Monster player against the Possessed Wizard). No clairvoyant
bound: ``NO_BOUND``."""

from __future__ import annotations

from cursedsim.report.ceiling import CeilingPlan, CeilingSetting

NO_BOUND = ("a game runs for dozens of turns with several actions each over a board, dice, three decks and "
            "the automaton's draws; a search of every line of a known deal is far beyond reach (no "
            "memoisation collapses it).")

WHY_FEWER = ("ISMCTS is slow here: a game has about a hundred decisions, each playout a whole game on the "
             "reference engine (about 200 s per game at 10 iterations), so the report plays it at 2 and 5 "
             "iterations on at most 6 games per contender: wide intervals, a first look only.")
#: The compiled rollout's budgets here: a game holds about a hundred searched decisions, so n=16 plays ~1-2
#: games per second per core and n=256 would take an hour of a report's 200 games (experiments/
#: village_rollout.py measures n=64 apart).
ROLLOUT_BUDGETS = (4, 16)


def plan() -> CeilingPlan:
    return CeilingPlan(settings=(CeilingSetting("Wizard player vs Rabid Monster", players=2, side="wizard",
                                                heuristics=("planner",),
                                                others={"monster": "rabid"}),
                                 CeilingSetting("Monster player vs Possessed Wizard", players=2, side="monster",
                                                heuristics=("glutton",),
                                                others={"wizard": "possessed"})), no_bound=NO_BOUND,
                       budgets=(2, 5), max_games=6, why_fewer=WHY_FEWER, rollout_budgets=ROLLOUT_BUDGETS)
