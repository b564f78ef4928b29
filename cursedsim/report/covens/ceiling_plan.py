"""The skill-ceiling section of the Curses & Covens report: the witch hunter searched against the
default town, and the town against the default hunter, at five players. No clairvoyant bound:
``NO_BOUND``."""

from __future__ import annotations

from cursedsim.report.ceiling import CeilingPlan, CeilingSetting

NO_BOUND = ("the hunter and the town play against each other, so a side's best line depends on the other "
            "side's answers (a two-player game with hidden hands, not a puzzle over a known deal); an exact "
            "value would need a game-tree solve of every round's bluffs, not tractable here.")

WHY_FEWER = ("Each ISMCTS playout is a whole game on the reference engine (Python), so the report plays it "
             "at 5 and 20 iterations on at most 20 games per contender: wide intervals, a first "
             "look; `cursedsim simulate` with more games and iterations narrows them.")


def plan() -> CeilingPlan:
    return CeilingPlan(settings=(CeilingSetting("hunter vs coven (5 players)", players=5, side="hunter",
                                                heuristics=("largest_hand", "tracker"),
                                                others={"town": "coven"}),
                                 CeilingSetting("town vs tracker (5 players)", players=5, side="town",
                                                heuristics=("coven", "bluff"),
                                                others={"hunter": "tracker"})), no_bound=NO_BOUND,
                       budgets=(5, 20), max_games=20, why_fewer=WHY_FEWER)
