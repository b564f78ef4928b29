"""ISMCTS as a policy of every side of every game that has a step API: its PolicySpec (``engine="step"``:
played through ``cursedsim.step.play``, not the kernel), how one decision is taken, and ``attach``, which
the game registry applies to each game so ``simulate``, ``compare``, ``replay`` and reports take
``ismcts`` like any other policy."""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Mapping, MutableMapping
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.errors import UnknownPolicyError
from cursedsim.games.base import Game, PolicySpec
from cursedsim.search.ismcts import Budget, choose
from cursedsim.step.api import StepSpec, StepState

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
    from cursedsim.step.play import agent_side
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


def _has_step(game: Game) -> bool:
    from cursedsim.step.api import _MODULES
    return game.name in _MODULES and importlib.util.find_spec(_MODULES[game.name]) is not None


def _uses_search(game: Game, policy: Any) -> bool:
    specs = policy.values() if game.sides else [policy]
    return any(isinstance(spec, PolicySpec) and spec.engine == "step" for spec in specs)


class _WithSearch(MutableMapping):
    """A side's policies followed by ``ismcts``: a live view that writes through to the game's own mapping,
    so a policy registered later (a user's, a plugin's, into either) is seen in both."""

    def __init__(self, base: Mapping[str, PolicySpec]):
        self.base = base
        ids = ", ".join(f"{spec.policy_id} {name}" for name, spec in base.items() if spec.engine == "kernel")
        docs = {**ISMCTS.param_docs, "rollout": f"{ISMCTS.param_docs['rollout']} (here: {ids})"}
        self.spec = dataclasses.replace(ISMCTS, param_docs=docs)

    def __getitem__(self, name):
        if name == NAME and NAME not in self.base:
            return self.spec
        return self.base[name]

    def __setitem__(self, name, spec):
        if name == NAME and getattr(spec, "engine", None) == "step" and NAME not in self.base:
            return   # ismcts itself (e.g. a registry restored from a copy): it stays the view's own
        self.base[name] = spec

    def __delitem__(self, name):
        del self.base[name]

    def clear(self):
        self.base.clear()

    def __iter__(self):
        yield from self.base
        if NAME not in self.base:
            yield NAME

    def __len__(self):
        return len(self.base) + (NAME not in self.base)

    def __repr__(self):
        return f"{dict(self)!r}"


@dataclasses.dataclass(frozen=True)
class _Searching:
    """A game's ``run_chunk``/``replay``/``replay_events`` (``inner``) that hands runs using a search
    policy to the step API; a plain module-level object, so workers unpickle it by reference."""

    game: str
    kind: str
    inner: Any

    def __call__(self, seed, start, count_or_players, *rest):
        from cursedsim.games import get_game
        policy = rest[-2]
        searching = get_game(self.game)
        if isinstance(policy, str):   # a single-side game's replay may get the policy's name
            policy = searching.policy(policy)
        if not _uses_search(searching, policy):
            return self.inner(seed, start, count_or_players, *rest)
        rest = (*rest[:-2], policy, rest[-1])
        if self.kind == "run_chunk":
            from cursedsim.step.play import play_chunk
            return play_chunk(searching, seed, start, count_or_players, *rest)
        from cursedsim.step import replay
        return getattr(replay, self.kind)(searching, seed, start, count_or_players, *rest)


def attach(game: Game) -> Game:
    """``game`` with ``ismcts`` among the policies of every side, its chunks and replays of runs that use
    it played through the step API (unchanged when the game has no step API)."""
    if not _has_step(game):
        return game
    changes: dict[str, Any] = {"run_chunk": _Searching(game.name, "run_chunk", game.run_chunk),
                               "replay": _Searching(game.name, "replay_text", game.replay)}
    if game.replay_events is not None:
        changes["replay_events"] = _Searching(game.name, "replay_events", game.replay_events)
    if game.sides:
        changes["sides"] = tuple(dataclasses.replace(side, policies=_WithSearch(side.policies))
                                 for side in game.sides)
    else:
        changes["policies"] = _WithSearch(game.policies)
    return dataclasses.replace(game, **changes)


__all__ = ["ISMCTS", "NAME", "attach", "decide", "rollout_policy"]
