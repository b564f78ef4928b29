"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012, "SO-ISMCTS"): each
iteration samples one determinisation of the searcher's information set, walks a tree of action
sequences with UCB1 weighted by how often each action was available, expands one node and finishes the
game with a rollout policy; the decision is the most visited root action.

Every agent's decisions below the root are in the tree, each chosen for that agent's own return (in a
co-operative game they share it). What the searcher does not know is redrawn at every iteration, so the
search never uses hidden information; sides that are not agents (``fixed``) play their own built-in
policy inside the engine, which is the searcher's model of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from cursedsim import rng
from cursedsim.step.api import StepState

#: Rollout policies: agent -> (built-in policy name, params or None).
Rollouts = Mapping[int, tuple[str, Mapping[str, float] | None]]


@dataclass
class Node:
    """A node of the tree: its visits, the summed return of the agent whose action led here, and its
    children by action, each with the number of iterations in which that action was available."""

    visits: int = 0
    value: float = 0.0
    children: dict[int, Node] = field(default_factory=dict)
    available: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Budget:
    """How much one decision may search: ``iterations`` determinised playouts, UCB1 ``exploration``."""

    iterations: int = 100
    exploration: float = 0.7

    def __post_init__(self):
        if self.iterations < 1:
            raise ValueError(f"ISMCTS needs at least one iteration, got {self.iterations}")
        if not math.isfinite(self.exploration) or self.exploration < 0:
            raise ValueError(f"the exploration constant must be a finite number >= 0, got {self.exploration}")


def _ucb(child: Node, available: int, exploration: float) -> float:
    return child.value / child.visits + exploration * math.sqrt(math.log(max(available, 1)) / child.visits)


def choose(state: StepState, budget: Budget, rollouts: Rollouts, stream: rng.Stream,
           on_iteration: Callable[[], None] | None = None) -> int:
    """The action ISMCTS takes for the actor of ``state`` (not changed), searching ``budget.iterations``
    determinisations drawn from ``stream`` (the caller's seeded stream: the same state and stream give
    the same action); ``rollouts`` play every agent's decisions below the tree."""
    legal = state.legal_actions()
    if not legal:
        raise ValueError("ISMCTS was asked to decide in a finished game (no legal actions)")
    if len(legal) == 1:
        return legal[0]
    searcher = state.actor()
    root = Node()
    for _ in range(budget.iterations):
        world = state.determinise(searcher, stream.next())
        node, path = root, [root]
        expanded = False
        while not world.is_terminal() and not expanded:
            actor = world.actor()
            actions = world.legal_actions()
            for a in actions:
                node.available[a] = node.available.get(a, 0) + 1
            untried = [a for a in actions if a not in node.children]
            if untried:
                action = untried[stream.below(len(untried))]
                node.children[action] = Node()
                expanded = True
            else:
                action = max(actions, key=lambda a: _ucb(node.children[a], node.available[a], budget.exploration))
            node = node.children[action]
            path.append((actor, node))
            world.apply(action)
        if not world.is_terminal():
            world.play_out(rollouts)
        returns = world.returns()
        root.visits += 1
        for actor, visited in path[1:]:
            visited.visits += 1
            visited.value += returns[actor]
        if on_iteration is not None:
            on_iteration()
    return max(legal, key=lambda a: (root.children[a].visits if a in root.children else -1, -a))
