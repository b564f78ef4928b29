"""ISMCTS as a policy of every side of every game that has a step API: its PolicySpec (``engine="step"``:
played through ``cursedsim.search.play``, not the kernel) and how one decision is taken. ``search.attach``
adds it to every game, which the composition root (``cursedsim.compose``) has the registry apply, so
``simulate``, ``compare``, ``replay`` and reports take ``ismcts`` like any other policy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.errors import UnknownPolicyError
from cursedsim.games.base import Game, PolicySpec
from cursedsim.search.ismcts import Budget, choose
from cursedsim.step.api import StepSpec, StepState, step_spec
from cursedsim.step.play import agent_side

#: The policy's name in every game; its id is outside every kernel's range (it never reaches a kernel).
NAME = "ismcts"
POLICY_ID = 100

ISMCTS = PolicySpec(
    name=NAME, policy_id=POLICY_ID, engine="step",
    doc="Information-set MCTS (SO-ISMCTS): per decision, `iterations` determinisations of what this side "
        "cannot see, UCB1 over the tree of actions, rollouts by a built-in policy; plays the most visited "
        "action. Slow: a Python search on the reference engine (docs/search.md).",
    params={"iterations": 100.0, "exploration": 0.7, "rollout": -1.0},
    param_docs={"iterations": "determinised playouts per decision (>= 1)",
                "exploration": "UCB1 exploration constant (>= 0; returns are 0-1)",
                "rollout": "policy id of the built-in policy (of the side) that finishes each playout; "
                           "-1: the side's default policy"})


def rollout_policy(game: Game, side: str | None, policy_id: int) -> str:
    """The name of the built-in policy ``policy_id`` of ``side`` (-1: the step API's default rollout of
    the side, else its default policy), or an error naming the valid ids."""
    from cursedsim.step.api import step_spec
    policies = game.policies_of(side)
    if policy_id == -1:
        return step_spec(game.name).default_rollout.get(side) or game.default_policy_of(side)
    for name, spec in policies.items():
        if spec.policy_id == policy_id and spec.engine != "step":
            return name
    valid = ", ".join(f"{spec.policy_id} ({name})" for name, spec in policies.items() if spec.engine != "step")
    raise UnknownPolicyError(f"ismcts parameter rollout={policy_id} is not a built-in policy of "
                             f"{game.name}{'' if side is None else ' side ' + side}; valid: -1 (default), {valid}")


def decide(game: Game, state: StepState, step: StepSpec, players: int, options: Any, agent: int,
           spec: PolicySpec, vector: np.ndarray, sides: Mapping[str | None, tuple[PolicySpec, np.ndarray]],
           stream: rng.Stream) -> int:
    """The action of ``agent`` (the actor of ``state``) by the search policy ``spec`` with parameters
    ``vector``; every agent's rollout policy is its side's built-in policy, or for a searching side the
    one its ``rollout`` parameter names."""
    values = dict(zip(spec.params, (float(v) for v in vector)))
    budget = Budget(int(values["iterations"]), values["exploration"])
    rollouts = {}
    for other in range(len(state.returns())):
        side = agent_side(state, step, players, options, other)
        other_spec, other_vector = sides[side]
        if other_spec.engine == "step":
            rollout_id = int(dict(zip(other_spec.params, other_vector)).get("rollout", -1))
            rollouts[other] = (rollout_policy(game, side, rollout_id), None)
        else:
            rollouts[other] = (other_spec.name, dict(zip(other_spec.params, (float(v) for v in other_vector))))
    return choose(state, budget, rollouts, stream)


__all__ = ["ISMCTS", "NAME", "decide", "rollout_policy"]
