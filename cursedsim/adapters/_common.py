"""What the three adapters share: a game name (or a StepSpec) resolved to its spec, registry entry,
player count and options; the built-in policy each agent plays; one episode's seeding (run seed, next
game index)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cursedsim.errors import CursedsimError
from cursedsim.step.api import StepSpec, StepState, step_spec


@dataclass(frozen=True)
class Setup:
    """A game ready to deal: its ``spec``, registry ``game`` (None for a bare StepSpec), ``players``,
    ``options`` and the ``agents`` and their runner ``sides``."""

    spec: StepSpec
    game: Any
    players: int | None
    options: Any
    agents: tuple[str, ...]
    sides: tuple[str | None, ...]
    fixed: Mapping[str, Any] | None = None

    def new_state(self, seed: int, index: int) -> StepState:
        """Game ``index`` of the run ``seed``, dealt as the runner deals that row."""
        return self.spec.new_state(int(seed), int(index), self.players, self.options, fixed=self.fixed)

    @property
    def observation_size(self) -> int:
        return int(self.spec.observation_size(self.players, self.options))

    def agent_index(self, agent: int | str) -> int:
        """An agent given by number or name, as its number (an error naming the agents otherwise)."""
        if isinstance(agent, (int, np.integer)) and not isinstance(agent, bool) and 0 <= agent < len(self.agents):
            return int(agent)
        if isinstance(agent, str) and agent in self.agents:
            return self.agents.index(agent)
        raise CursedsimError(f"{self.spec.name}: unknown agent {agent!r}; agents: "
                             + ", ".join(f"{i} ({name})" for i, name in enumerate(self.agents)))

    def policies(self, chosen: Mapping[Any, Any] | None = None) -> dict[int, tuple[str, Mapping[str, float] | None]]:
        """Per agent number: (policy name, params), from ``chosen`` (agent name or number -> policy name
        or (name, params)), else the default policy of the agent's side in the registry."""
        chosen = {self.agent_index(key): value for key, value in (chosen or {}).items()}
        out = {}
        for i, side in enumerate(self.sides):
            value = chosen.get(i)
            if value is None:
                if self.game is None:
                    raise CursedsimError(f"{self.spec.name}: no registry default for agent {self.agents[i]!r}; "
                                         "name its policy")
                value = self.game.default_policy_of(side)
            out[i] = (value, None) if isinstance(value, str) else (value[0], None if value[1] is None else dict(value[1]))
        return out


def resolve(game: str | StepSpec, players: int | None = None, options: Any = None,
            fixed: Mapping[str, Any] | None = None) -> Setup:
    """``game`` (a registered name, or a StepSpec) with ``players`` (None: the game's default count)
    and ``options`` (None: the rulebook's)."""
    if isinstance(game, StepSpec):
        spec, registered = game, None
    else:
        from cursedsim.games import get_game
        registered = get_game(game)
        spec = step_spec(game)
    if registered is not None:
        if players is None:
            players = registered.default_players or registered.min_players
        players = registered.check_players(int(players))
        options = registered.make_options(options)
    agents = tuple(spec.agents(players, options))
    sides = tuple(spec.agent_sides(players, options))
    return Setup(spec, registered, players, options, agents, sides, None if fixed is None else dict(fixed))


class IndexCursor:
    """Which game an episode plays: ``reset(seed=s)`` starts run ``s`` at index 0 (``options={"index":
    i}`` at ``i``), each later reset takes the next index."""

    def __init__(self, seed: int):
        self.seed = int(seed)
        self.next_index = 0

    def advance(self, seed: int | None, options: Mapping[str, Any] | None) -> tuple[int, int]:
        if seed is not None:
            self.seed, self.next_index = int(seed), 0
        if options and options.get("index") is not None:
            index = int(options["index"])
            if index < 0:
                raise CursedsimError(f"game index must be >= 0, got {index}")
            self.next_index = index
        index = self.next_index
        self.next_index += 1
        return self.seed, index


def action_mask(state: StepState, num_actions: int) -> np.ndarray:
    """The legal actions of ``state`` as an int8 mask of ``num_actions`` entries."""
    mask = np.zeros(num_actions, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return mask
