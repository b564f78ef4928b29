"""A game of a run as a StepState for the run's policies: sides whose policy is built in are handed to the
engine (``fixed``) where the game allows it, the others are its agents; and which runner side each agent
plays for. The play loop that lets search agents decide (``engine="step"``) is above, in
``cursedsim.search.play``: the step API knows no search."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cursedsim.games.base import Game, PolicySpec
from cursedsim.step.api import StepSpec, StepState


def side_specs(game: Game, policy: Any, params: Any) -> dict[str | None, tuple[PolicySpec, np.ndarray]]:
    """Side name (None for a single-side game) -> (PolicySpec, parameter vector)."""
    if game.sides:
        return {side: (policy[side], np.asarray(params[side], dtype=np.float64)) for side in game.side_names}
    return {None: (policy, np.asarray(params, dtype=np.float64))}


def named_policy(spec: PolicySpec, vector: np.ndarray) -> tuple[str, dict[str, float]]:
    """(name, parameters by name) of ``spec`` with the parameter vector ``vector``."""
    return spec.name, dict(zip(spec.params, (float(v) for v in vector)))


def new_game_state(game: Game, step: StepSpec, seed: int, index: int, players: int, options: Any,
                   sides: Mapping[str | None, tuple[PolicySpec, np.ndarray]], log: bool = False) -> StepState:
    """Game ``index`` as a StepState; sides whose policy is built in are ``fixed`` inside the engine (a game
    of sides), the others are its agents."""
    fixed = {side: named_policy(spec, vector) for side, (spec, vector) in sides.items()
             if side is not None and spec.engine != "step"}
    return step.new_state(seed, index, players, options, fixed=fixed or None, log=log)


def agent_side(state: StepState, step: StepSpec, players: int, options: Any, agent: int) -> str | None:
    """The runner side an agent plays for (None: a single-side game)."""
    side_of = getattr(state, "side_of", None)
    return side_of(agent) if side_of is not None else step.agent_sides(players, options)[agent]
