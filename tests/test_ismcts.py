"""ISMCTS (cursedsim.search.ismcts) on two toy games written against the step API: it finds the winning
move when search can see it, and it never uses what the searcher cannot see."""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim import rng
from cursedsim.search.ismcts import Budget, choose
from cursedsim.step.api import TERMINAL, StepSpec, StepState, check_action


class Toy(StepState):
    """One agent. ``hidden`` is a card in 0..2 the agent cannot see. Two moves: first ``peek`` (0: look
    at nothing, 1: pay nothing and skip), then a guess 0..2; the game is won by guessing ``hidden`` when
    ``mode == "guess"``, or by guessing 2 when ``mode == "fixed"`` (search can find that move)."""

    spec = StepSpec("toy", lambda p, o: ("player",), 3, lambda p, o: 1, lambda p, o: (None,), None)

    def __init__(self, hidden: int, mode: str):
        self.hidden, self.mode, self.moves = hidden, mode, []

    def actor(self):
        return TERMINAL if len(self.moves) == 2 else 0

    def legal_actions(self):
        return [] if len(self.moves) == 2 else ([0, 1] if not self.moves else [0, 1, 2])

    def apply(self, action):
        self.moves.append(check_action(self, action))

    def apply_policy(self, policy, params=None):
        action = self.legal_actions()[0]   # the "first" policy
        self.apply(action)
        return action

    def clone(self):
        copy = Toy(self.hidden, self.mode)
        copy.moves = list(self.moves)
        return copy

    def is_terminal(self):
        return len(self.moves) == 2

    def returns(self):
        if not self.is_terminal():
            return [0.0]
        target = self.hidden if self.mode == "guess" else 2
        return [float(self.moves[1] == target)]

    def information(self, agent):
        return f"{self.mode}:{self.moves}"

    def observation(self, agent):
        return np.zeros(1, np.float32)

    def determinise(self, agent, seed):
        copy = self.clone()
        copy.hidden = rng.Stream(seed, 0, 0).below(3)
        return copy

    def outcome(self):
        return {"win": bool(self.returns()[0])}


ROLLOUT = {0: ("first", None)}


def test_search_finds_the_winning_move():
    """With the goal visible to search (always guess 2), 40 iterations choose 2 at the second decision."""
    for seed in range(20):
        state = Toy(hidden=0, mode="fixed")
        state.apply(1)
        assert choose(state, Budget(40), ROLLOUT, rng.Stream(seed, 0, 1000)) == 2


@pytest.mark.parametrize("seed", range(30))
def test_search_does_not_see_the_hidden_card(seed):
    """Two states differing only in the hidden card get the same action from the same stream: the
    search samples what it cannot see (a clairvoyant search would guess each card right)."""
    chosen = []
    for hidden in range(3):
        state = Toy(hidden=hidden, mode="guess")
        state.apply(0)
        chosen.append(choose(state, Budget(30), ROLLOUT, rng.Stream(seed, 0, 1000)))
    assert len(set(chosen)) == 1


def test_guessing_wins_at_the_rate_of_chance():
    """Playing the guess game with ISMCTS wins about 1/3 (binomial 4.5 SE tolerance on 300 games)."""
    n, wins = 300, 0
    for i in range(n):
        state = Toy(hidden=rng.Stream(7, i, 0).below(3), mode="guess")
        while not state.is_terminal():
            state.apply(choose(state, Budget(12), ROLLOUT, rng.Stream(7, i, 1000)))
        wins += state.returns()[0]
    assert abs(wins / n - 1 / 3) <= 4.5 * (1 / 3 * 2 / 3 / n) ** 0.5


def test_budget_rejects_nonsense():
    with pytest.raises(ValueError, match="at least one iteration"):
        Budget(0)
    with pytest.raises(ValueError, match="exploration"):
        Budget(10, float("nan"))
