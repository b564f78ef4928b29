"""Running a chunk of games through the step API: how the runner plays a run in which a side's policy
is a search agent (``engine="step"``). Sides with built-in policies are handed to the engine (``fixed``)
where the game allows it, or take their decisions through ``apply_policy``; so a chunk with no search
policy at all would give exactly the kernel's rows (tests check it game by game)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.games.base import Game
from cursedsim.search.policy import decide
from cursedsim.step.api import StepState, step_spec
from cursedsim.step.play import agent_side, named_policy, new_game_state, side_specs

#: Stream id of a search agent's own draws (determinisations, tie-breaks): stream SEARCH_STREAM + agent
#: of (seed, index), far from every game's own stream ids, so searching never moves the cards or a
#: built-in policy's stream.
SEARCH_STREAM = 1000


def play_game(game: Game, seed: int, index: int, players: int, options: Any, policy: Any, params: Any,
              log: bool = False) -> StepState:
    """Game ``index`` of the run ``seed`` played to its end through the step API; the final state."""
    step = step_spec(game.name)
    sides = side_specs(game, policy, params)
    state = new_game_state(game, step, seed, index, players, options, sides, log=log)
    streams: dict[int, rng.Stream] = {}
    while not state.is_terminal():
        agent = state.actor()
        spec, vector = sides[agent_side(state, step, players, options, agent)]
        if spec.engine == "step":
            stream = streams.setdefault(agent, rng.Stream(seed, index, SEARCH_STREAM + agent))
            state.apply(decide(game, state, step, players, options, agent, spec, vector, sides, stream))
        else:
            state.apply_policy(*named_policy(spec, vector))
    return state


def play_chunk(game: Game, seed: int, start: int, count: int, players: int, options: Any, policy: Any,
               params: Any) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` played through the step API: outcome arrays by column, as the
    game's ``run_chunk`` returns them (same columns and dtypes as the kernel gives)."""
    rows = [play_game(game, seed, i, players, options, policy, params).outcome() for i in range(start, start + count)]
    reference = game.run_chunk(seed, start, 1, players, options, *_builtin_twin(game, policy, params))
    out = {}
    for column in game.outcome_columns:
        values = [row[column] for row in rows]
        categories = game.outcome_categories.get(column)
        if categories is not None:   # a step state may name a category where the kernel gives its code
            values = [categories.index(v) if isinstance(v, str) else v for v in values]
        out[column] = np.asarray(values, dtype=np.asarray(reference[column]).dtype)
    return out


def _builtin_twin(game: Game, policy: Any, params: Any) -> tuple[Any, Any]:
    """The run's policies with every search policy replaced by its side's default (only to learn the
    kernel's column dtypes from one game)."""
    if game.sides:
        specs, vectors = dict(policy), dict(params)
        for side in game.sides:
            if specs[side.name].engine == "step":
                specs[side.name] = side.policy(side.default_policy)
                vectors[side.name] = specs[side.name].param_vector()
        return specs, vectors
    if policy.engine == "step":
        spec = game.policy(game.default_policy)
        return spec, spec.param_vector()
    return policy, params
