"""Each game as an OpenSpiel Python game ``python_cursedsim_<game>`` (``pyspiel.register_game``) over its
step API, so OpenSpiel's algorithms (MCTSBot, random simulation, ISMCTS via resample_from_infostate)
run on the reference engine.

Parameters: ``seed`` and ``index`` (game ``index`` of the run ``seed``, as the runner deals that row),
``deals`` (1: that game only; n > 1: a root chance node picks game ``index + k``, k uniform in 0..n-1),
``players`` (people at the table; OpenSpiel's ``num_players()`` is the number of agents), ``options``
(rule options as ``"name=value;name=value"``, values read as JSON where they parse) and ``fixed``
(``"side=policy;..."``, sides that are not agents). The engine's own draws are part of the state (a
state is fixed by its deal and its actions): a searcher that clones the state sees the future; see
docs/adapters.md.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from cursedsim.adapters._common import Setup, resolve
from cursedsim.errors import CursedsimError
from cursedsim.step.api import TERMINAL, StepSpec, StepState

#: An upper bound on the decisions of one game (OpenSpiel's max_game_length; no game comes near it).
MAX_GAME_LENGTH = 100_000


def game_name(game: str) -> str:
    """The OpenSpiel short name of ``game``."""
    return f"python_cursedsim_{game}"


def parse_pairs(text: str) -> dict[str, Any]:
    """``"a=1;b=x"`` -> ``{"a": 1, "b": "x"}`` (values as JSON where they parse, else strings)."""
    out: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in str(text).split(";"))):
        if "=" not in item:
            raise CursedsimError(f"expected name=value, got {item!r} in {text!r}")
        key, value = (s.strip() for s in item.split("=", 1))
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


class _Core:
    """What a state holds: the shared setup, its deal and its StepState. OpenSpiel's Clone deep-copies
    a Python state's attributes; this copy is ``StepState.clone`` (a greenlet cannot be copied)."""

    def __init__(self, setup: Setup, seed: int, index: int, deals: int, step: StepState | None = None,
                 offset: int | None = None):
        self.setup, self.seed, self.index, self.deals = setup, seed, index, deals
        self.offset = offset if offset is not None else (0 if deals == 1 else None)
        self._step = step

    @property
    def chance(self) -> bool:
        return self.offset is None

    @property
    def step(self) -> StepState:
        if self._step is None:   # dealt on first use: OpenSpiel's Clone makes a fresh state first
            self._step = self.setup.new_state(self.seed, self.index + self.offset)
        return self._step

    def __deepcopy__(self, memo):
        return _Core(self.setup, self.seed, self.index, self.deals,
                     None if self._step is None else self._step.clone(), self.offset)


class CursedsimState(pyspiel.State):
    """One game in progress (see the module docstring)."""

    def __init__(self, game: CursedsimGame):
        super().__init__(game)
        self._core = _Core(game.setup, game.deal_seed, game.deal_index, game.deals)

    @property
    def step_state(self) -> StepState:
        """The StepState (None at the root chance node)."""
        return None if self._core.chance else self._core.step

    def current_player(self):
        if self._core.chance:
            return pyspiel.PlayerId.CHANCE
        actor = self._core.step.actor()
        return pyspiel.PlayerId.TERMINAL if actor == TERMINAL else actor

    def _legal_actions(self, player):
        return self._core.step.legal_actions()

    def chance_outcomes(self):
        return [(k, 1.0 / self._core.deals) for k in range(self._core.deals)]

    def _apply_action(self, action):
        if self._core.chance:
            if not 0 <= action < self._core.deals:
                raise CursedsimError(f"deal {action} out of 0..{self._core.deals - 1}")
            self._core.offset = int(action)
        else:
            self._core.step.apply(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal game {self._core.index + action}"
        return self._core.step.action_name(int(action))

    def is_terminal(self):
        return not self._core.chance and self._core.step.is_terminal()

    def returns(self):
        if self._core.chance:
            return [0.0] * len(self._core.setup.agents)
        return [float(r) for r in self._core.step.returns()]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one: ``determinise`` seeded from the sampler."""
        copy = self.clone()
        if not self._core.chance:
            seed = int(probability_sampler() * 2**31)
            copy._core._step = self._core.step.determinise(int(player_id), seed)
        return copy

    def __str__(self):
        core = self._core
        deal = "deal pending" if core.chance else f"game {core.index + core.offset}"
        actions = [a for a in self.history()[0 if core.deals == 1 else 1:]]
        return f"{core.setup.spec.name} seed {core.seed} {deal}, actions {actions}"


class _Observer:
    """OpenSpiel's PyObserver: the tensor is ``observation(player)``, the string ``information(player)``
    (for the information state and the observation alike: the step API has one view per agent)."""

    def __init__(self, size: int, params):
        if params:
            raise ValueError(f"observation parameters not supported; got {params}")
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CursedsimState, player: int):
        if state._core.chance:
            self.tensor.fill(0)
        else:
            self.tensor[:] = state._core.step.observation(player)

    def string_from(self, state: CursedsimState, player: int):
        return "deal pending" if state._core.chance else state._core.step.information(player)


class CursedsimGame(pyspiel.Game):
    """Base of the registered game classes (``register`` makes one per game)."""

    _game: Any = ""
    _type: Any = None
    _defaults: dict[str, Any] = {}

    def __init__(self, params=None):
        values = dict(self._defaults, **(params or {}))
        self.deal_seed, self.deal_index = int(values["seed"]), int(values["index"])
        self.deals = int(values["deals"])
        if self.deals < 1:
            raise CursedsimError(f"deals must be >= 1, got {self.deals}")
        self.setup = resolve(self._game, int(values["players"]) or None, parse_pairs(values["options"]) or None,
                             parse_pairs(values["fixed"]) or None)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.setup.spec.num_actions,
            max_chance_outcomes=self.deals if self.deals > 1 else 0,
            num_players=len(self.setup.agents), min_utility=0.0, max_utility=1.0, utility_sum=None,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(self._type, info, params or {})

    def new_initial_state(self):
        return CursedsimState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer(self.setup.observation_size, params)


def register(game: str | StepSpec) -> str:
    """Register ``game`` (a registered name, or a StepSpec) with OpenSpiel as
    ``python_cursedsim_<name>`` (idempotent); returns the OpenSpiel name."""
    key = game.name if isinstance(game, StepSpec) else game
    name = game_name(key)
    if name in pyspiel.registered_names():
        return name
    setup = resolve(game)
    if setup.game is not None:
        title = setup.game.title
        counts = [len(resolve(game, p).agents) for p in range(setup.game.min_players, setup.game.max_players + 1)]
    else:
        title, counts = key, [len(setup.agents)]
    defaults = {"seed": 0, "index": 0, "deals": 1, "players": int(setup.players or 0), "options": "", "fixed": ""}
    game_type = pyspiel.GameType(
        short_name=name, long_name=f"cursedsim {title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(counts), min_num_players=min(counts),
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=defaults)
    cls = type(f"Cursedsim_{key}_Game", (CursedsimGame,),
               {"_game": game, "_type": game_type, "_defaults": defaults})
    pyspiel.register_game(game_type, cls)
    return name


def register_all() -> list[str]:
    """Register every game whose step API imports; returns the OpenSpiel names."""
    from cursedsim.games import list_games
    names = []
    for game in list_games():
        try:
            names.append(register(game))
        except ImportError:
            continue
    return names
