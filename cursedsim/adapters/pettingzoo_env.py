"""A PettingZoo AEC environment over a game's step API: every agent of ``spec.agents`` acts in turn;
episode i of a run seeded ``s`` is game i of ``simulate(game, seed=s)``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cursedsim.adapters._common import IndexCursor, action_mask, resolve
from cursedsim.errors import CursedsimError
from cursedsim.step.api import StepSpec, StepState

#: Reward of the agent that takes an illegal action (the game ends there; the others get 0).
ILLEGAL_REWARD = -1.0


class CursedsimAEC(AECEnv):
    """Every agent of ``game`` (``spec.agents``, named as there) acts when the game asks it.

    ``observe(agent)``: ``{"observation": float32 vector in [0, 1], "action_mask": int8 0/1}`` (mask all
    zero for an agent that is not to act), as PettingZoo's classic environments. Rewards come at the end:
    each agent's return (1 win, 0 otherwise). An illegal action ends the game: that agent gets -1, the
    others 0, and its info ``illegal_action = True`` (PettingZoo's TerminateIllegalWrapper's rule).
    ``reset(seed=s)`` plays game 0 of run ``s`` (``options={"index": i}``: game i; other keys ignored),
    each later ``reset()`` the next game. ``step_policy(name)`` lets a built-in policy take the current
    agent's decision as the runner does; ``state`` is the StepState.
    """

    metadata = {"render_modes": ["ansi"], "name": "cursedsim_v0", "is_parallelizable": False}

    def __init__(self, game: str | StepSpec, players: int | None = None, options: Any = None, seed: int = 0,
                 fixed: Mapping[str, Any] | None = None, render_mode: str | None = None):
        super().__init__()
        self.setup = resolve(game, players, options, fixed)
        self.metadata = dict(self.metadata, name=f"cursedsim_{self.setup.spec.name}_v0")
        self.possible_agents = list(self.setup.agents)
        n, k = self.setup.observation_size, self.setup.spec.num_actions
        self._observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (n,), dtype=np.float32),
            "action_mask": spaces.MultiBinary(k)}) for agent in self.possible_agents}
        self._action_spaces = {agent: spaces.Discrete(k) for agent in self.possible_agents}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise CursedsimError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.render_mode = render_mode
        self._cursor = IndexCursor(seed)
        self._state: StepState | None = None

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    @property
    def state(self) -> StepState:
        """The game in progress (read or clone it; step it through the env)."""
        if self._state is None:
            raise CursedsimError("call reset() first")
        return self._state

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None):
        seed_, index = self._cursor.advance(seed, options)
        self.game_seed, self.game_index = seed_, index
        self._state = self.setup.new_state(seed_, index)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {"seed": seed_, "index": index} for agent in self.agents}
        self._select()

    def observe(self, agent):
        i = self.possible_agents.index(agent)
        k = self.setup.spec.num_actions
        mask = action_mask(self._state, k) if self._state.actor() == i else np.zeros(k, dtype=np.int8)
        return {"observation": np.array(self._state.observation(i), dtype=np.float32, copy=True),
                "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if action is None or int(action) not in self._state.legal_actions():
            self._end(illegal=agent)
        else:
            self._state.apply(int(action))
            self._settle()
        self._accumulate_rewards()

    def step_policy(self, policy: str | None = None, params: Mapping[str, float] | None = None) -> int:
        """The current agent's decision by its side's built-in ``policy`` (None: the side's default),
        drawing from its policy stream as the runner does; returns the action taken."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            raise CursedsimError(f"{agent} is done: step(None) to remove it")
        if policy is None:
            policy, params = self.setup.policies()[self.possible_agents.index(agent)]
        self._cumulative_rewards[agent] = 0.0
        action = self._state.apply_policy(policy, params)
        self._settle()
        self._accumulate_rewards()
        return int(action)

    def render(self):
        if self.render_mode == "ansi" and self._state is not None:
            actor = self._state.actor()
            return "over" if actor < 0 else self._state.information(actor)
        return None

    def close(self):
        self._state = None

    # ------------------------------------------------------------------ internals

    def _settle(self) -> None:
        """After a move: the end (rewards, terminations) or the next agent to act."""
        if self._state.is_terminal():
            self._end()
        else:
            for agent in self.agents:
                self.rewards[agent] = 0.0
            self._select()

    def _select(self) -> None:
        if not self._state.is_terminal():
            self.agent_selection = self.possible_agents[self._state.actor()]
        else:   # a game over before anyone acted
            self._end()

    def _end(self, illegal: str | None = None) -> None:
        returns = self._state.returns()
        outcome = None if illegal else dict(self._state.outcome())
        for i, agent in enumerate(self.possible_agents):
            if agent not in self.agents:
                continue
            if illegal is None:
                self.rewards[agent] = float(returns[i])
            else:
                self.rewards[agent] = ILLEGAL_REWARD if agent == illegal else 0.0
            self.terminations[agent] = True
            info = {"seed": self.game_seed, "index": self.game_index}
            if illegal == agent:
                info["illegal_action"] = True
            if outcome is not None:
                info["outcome"] = dict(outcome)
            self.infos[agent] = info
        if illegal is None and not hasattr(self, "agent_selection"):
            self.agent_selection = self.agents[0]
        elif illegal is None:
            self.agent_selection = self.agent_selection if self.agent_selection in self.agents else self.agents[0]


def cursedsim_aec_env(game: str | StepSpec, players: int | None = None, options: Any = None, seed: int = 0,
                      fixed: Mapping[str, Any] | None = None, render_mode: str | None = None) -> CursedsimAEC:
    """The AEC environment of ``game`` (see CursedsimAEC)."""
    return CursedsimAEC(game, players=players, options=options, seed=seed, fixed=fixed, render_mode=render_mode)
