"""A Gymnasium environment over a game's step API: one agent is controlled, every other agent plays
a built-in policy; episode i of a run seeded ``s`` is game i of ``simulate(game, seed=s)``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cursedsim.adapters._common import IndexCursor, action_mask, resolve
from cursedsim.errors import CursedsimError
from cursedsim.step.api import StepSpec, StepState

#: Reward of an illegal action (the episode ends there).
ILLEGAL_REWARD = -1.0


class CursedsimEnv(gymnasium.Env):
    """One ``agent`` (number or name) of ``game`` against built-in policies: ``others`` maps agent
    names (or numbers) to a policy name or ``(name, params)``; an agent left out plays its side's
    default policy. ``fixed`` passes sides that are not agents to the engine (``StepSpec``); the sides of
    other agents that the controlled agent does not share are passed there too, with their agents'
    policy (so a side whose policy is an automaton plays as in the runner's mode); other agents of the
    controlled agent's side (or of a single-side game) act through ``apply_policy``.

    Observation: ``{"observation": float32 vector in [0, 1], "action_mask": int8 0/1 of the legal
    actions}``; action: ``Discrete(spec.num_actions)``. Reward: the agent's return (1 win, 0 otherwise)
    on the last step, 0 before. An illegal action ends the episode with reward -1 and
    ``info["illegal_action"] = True``. ``info`` always has ``seed`` and ``index`` (the game played), and
    at the end ``returns`` and ``outcome`` (the runner's outcome columns of that game).

    Seeding: ``reset(seed=s)`` plays game 0 of run ``s`` (``options={"index": i}``: game i), each later
    ``reset()`` the next game; the first ``reset()`` without a seed uses ``seed``. ``step_policy(name)``
    lets a built-in policy take the agent's decision (drawing from the agent's policy stream as the
    runner does), so an episode played that way is exactly the runner's row.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str | StepSpec, agent: int | str = 0, players: int | None = None,
                 options: Any = None, others: Mapping[Any, Any] | None = None, seed: int = 0,
                 fixed: Mapping[str, Any] | None = None, render_mode: str | None = None):
        setup = resolve(game, players, options, fixed)
        self.agent = setup.agent_index(agent)
        chosen = {setup.agent_index(key): value for key, value in (others or {}).items()}
        if setup.game is None:   # a bare StepSpec has no registry default for the controlled agent
            chosen.setdefault(self.agent, "")
        self._policies = setup.policies(chosen)
        self.setup = replace(setup, fixed=self._engine_sides(setup, fixed))
        n = self.setup.observation_size
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (n,), dtype=np.float32),
            "action_mask": spaces.MultiBinary(self.setup.spec.num_actions),
        })
        self.action_space = spaces.Discrete(self.setup.spec.num_actions)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise CursedsimError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                                 f"got {render_mode!r}")
        self.render_mode = render_mode
        self._cursor = IndexCursor(seed)
        self._state: StepState | None = None
        self._done = True
        self._seed_index = (int(seed), 0)

    def _engine_sides(self, setup, fixed):
        """``fixed``, plus the sides of the other agents that the controlled agent does not share: the
        engine plays them (as the runner does, e.g. an automaton side), with their agents' policy."""
        out = dict(fixed or {})
        mine = setup.sides[self.agent]
        for i, side in enumerate(setup.sides):
            if i == self.agent or side is None or side == mine or side in (fixed or {}):
                continue
            policy = self._policies[i]
            value = policy[0] if policy[1] is None else policy
            if out.get(side, value) != value:
                raise CursedsimError(f"{setup.spec.name}: agents of side {side!r} are given different policies "
                                     f"({out[side]!r}, {value!r})")
            out[side] = value
        return out or None

    # ------------------------------------------------------------------ public helpers

    @property
    def state(self) -> StepState:
        """The game in progress (a StepState; read it, clone it, don't step it behind the env's back)."""
        if self._state is None:
            raise CursedsimError("call reset() first")
        return self._state

    def default_policy(self) -> tuple[str, Mapping[str, float] | None]:
        """The controlled agent's built-in policy as the runner plays it (``others`` or its side's
        default)."""
        return self._policies[self.agent]

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None):
        super().reset(seed=seed)
        seed_, index = self._cursor.advance(seed, options)
        self._seed_index = (seed_, index)
        self._state = self.setup.new_state(seed_, index)
        self._done = False
        self._others_act()
        return self._obs(), self._info()

    def step(self, action):
        self._check_running()
        legal = self._state.legal_actions()
        if self._state.is_terminal() or int(action) not in legal:
            if self._state.is_terminal():   # the game ended before the agent's first decision
                return self._finish({})
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._obs(), ILLEGAL_REWARD, True, False, info
        self._state.apply(int(action))
        return self._after({})

    def step_policy(self, policy: str | None = None, params: Mapping[str, float] | None = None):
        """Like ``step``, the action chosen by the built-in policy ``policy`` of the agent's side (None:
        ``default_policy()``), drawing from the agent's policy stream; ``info["action"]`` is the action."""
        self._check_running()
        if policy is None:
            policy, params = self._policies[self.agent]
        if self._state.is_terminal():
            return self._finish({})
        action = self._state.apply_policy(policy, params)
        return self._after({"action": int(action)})

    def render(self):
        if self.render_mode == "ansi":
            return self.state.information(self.agent)
        return None

    # ------------------------------------------------------------------ internals

    def _check_running(self) -> None:
        if self._state is None or self._done:
            raise CursedsimError("the episode is over (or not started): call reset()")

    def _others_act(self) -> None:
        state = self._state
        while not state.is_terminal() and state.actor() != self.agent:
            name, params = self._policies[state.actor()]
            state.apply_policy(name, params)

    def _after(self, extra: dict):
        self._others_act()
        if self._state.is_terminal():
            return self._finish(extra)
        info = self._info()
        info.update(extra)
        return self._obs(), 0.0, False, False, info

    def _finish(self, extra: dict):
        self._done = True
        info = self._info()
        info.update(extra)
        returns = [float(r) for r in self._state.returns()]
        info["returns"] = returns
        info["outcome"] = dict(self._state.outcome())
        return self._obs(), returns[self.agent], True, False, info

    def _obs(self) -> dict[str, np.ndarray]:
        state = self._state
        mask = (action_mask(state, self.setup.spec.num_actions) if state.actor() == self.agent
                else np.zeros(self.setup.spec.num_actions, dtype=np.int8))
        observation = np.array(state.observation(self.agent), dtype=np.float32, copy=True)
        return {"observation": observation, "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        return {"seed": self._seed_index[0], "index": self._seed_index[1]}


def register_envs() -> list[str]:
    """Register ``cursedsim/<game>-v0`` for every game (idempotent); returns the ids."""
    from cursedsim.games import list_games
    ids = []
    for name in list_games():
        env_id = f"cursedsim/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="cursedsim.adapters.gymnasium_env:CursedsimEnv",
                               kwargs={"game": name})
        ids.append(env_id)
    return ids


register_envs()
