"""The step API every game offers on its reference engine: a game in progress as a ``StepState`` (who
acts, the legal actions, apply one, clone, what each agent knows, a determinisation, returns) and the
game's ``StepSpec`` that deals game ``index`` of the run ``seed`` exactly as the runner deals that row.

Search agents (``cursedsim.search``) and the adapters to Gymnasium, PettingZoo and OpenSpiel
(``cursedsim.adapters``) are written against these two classes only; a game implements them in its
``step.py`` (docs/step.md).

Conventions: agents are numbered ``0 .. len(agents)-1`` (``StepSpec.agents`` names them); actions are
integers in ``0 .. num_actions-1``; ``legal_actions`` is sorted and never empty before the end;
chance is inside the state (the engine's own seeded streams), so a state is deterministic given its
deal and its actions, and ``determinise`` is how a searcher samples what it cannot see.
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cursedsim.errors import CursedsimError
from cursedsim.games import get_game

#: ``actor()`` once the game is over.
TERMINAL = -1


class IllegalActionError(CursedsimError, ValueError):
    """An action that is not legal in the state it was applied to (the message names the legal ones)."""


class StepState(abc.ABC):
    """One game in progress on the reference engine, stepped one decision at a time."""

    #: The game's StepSpec (names of agents, action and observation sizes).
    spec: StepSpec

    @abc.abstractmethod
    def actor(self) -> int:
        """The agent to act now, or ``TERMINAL`` once the game is over."""

    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """The actions the actor may take, sorted ascending (empty once the game is over)."""

    @abc.abstractmethod
    def apply(self, action: int) -> None:
        """Take ``action`` for the actor; an IllegalActionError naming the legal ones otherwise."""

    @abc.abstractmethod
    def apply_policy(self, policy: str, params: Mapping[str, float] | None = None) -> int:
        """Let the built-in policy ``policy`` (of the actor's side) take the actor's decision, drawing from
        the actor's own policy stream exactly as the runner's game would; returns the action it took.
        A game played to the end this way is the runner's row of that game (tests check it)."""

    @abc.abstractmethod
    def clone(self) -> StepState:
        """An independent copy at the same point."""

    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over (won, lost, or stopped by a turn cap)."""

    @abc.abstractmethod
    def returns(self) -> list[float]:
        """Per agent: 1.0 for a win, 0.0 otherwise (co-operative games: every agent shares the result).
        Meaningful once terminal; 0.0 for every agent before."""

    @abc.abstractmethod
    def information(self, agent: int) -> str:
        """A key of what ``agent`` knows now: equal for two states of one game exactly when the agent
        cannot tell them apart (its information set)."""

    @abc.abstractmethod
    def observation(self, agent: int) -> np.ndarray:
        """What ``agent`` sees, as a float32 vector of ``spec.observation_size`` entries in [0, 1] (no
        hidden information: a function of ``information(agent)``)."""

    @abc.abstractmethod
    def determinise(self, agent: int, seed: int) -> StepState:
        """A full state sampled (from ``seed``) among those ``agent`` cannot tell from this one: what it
        cannot see (card orders, hidden hands, future rolls) drawn anew; the same ``information(agent)``
        and legal actions."""

    @abc.abstractmethod
    def outcome(self) -> dict[str, Any]:
        """Once terminal: the runner's outcome columns of this game (``Game.outcome_columns``)."""

    def events(self) -> list[dict[str, Any]]:
        """The events of the game so far (``cursedsim.events``) of a state made with ``log=True``: what the
        game's turn log renders."""
        table = getattr(self, "table", None)
        if table is None or not hasattr(table, "events"):
            raise NotImplementedError(f"{type(self).__name__} keeps no events")
        return list(table.events)

    def action_name(self, action: int) -> str:
        """A readable name of ``action`` (for logs and adapters)."""
        return str(action)

    def play_out(self, policies: Mapping[int, tuple[str, Mapping[str, float] | None]]) -> None:
        """Play to the end, each agent's decisions by its built-in policy ``policies[agent] = (name,
        params)``. Engines may override with a faster loop; the result must be the same."""
        while not self.is_terminal():
            name, params = policies[self.actor()]
            self.apply_policy(name, params)


class LaidOutTable:
    """For a state kept in a kernel's arrays: its reference ``table`` laid out from them only when read
    (``_lay_out``), then kept until the state moves (the state sets ``_laid_out = None``)."""

    _laid_out = None

    @property
    def table(self):
        """The table laid out from the arrays as the reference engine holds it at this point (read only)."""
        if self._laid_out is None:
            self._laid_out = self._lay_out()
        return self._laid_out

    def _lay_out(self):
        raise NotImplementedError


@dataclass(frozen=True)
class StepSpec:
    """A game's step API: its ``name`` (the registry's), ``agents(players, options)`` -> the agents'
    names (a side, a seat, "player"), ``num_actions`` (action ids are below it), ``observation_size
    (players, options)``, ``agent_sides(players, options)`` -> per agent the runner's side name (None:
    a single-side game) whose policies it may play, and ``new_state``: the game ``index`` of the run
    ``seed`` with ``players`` and ``options`` (a RuleOptions or mapping) dealt exactly as the runner
    deals that row; ``fixed`` maps runner side names to the built-in policy (``name`` or ``(name,
    params)``) that plays them inside the engine, where a game has sides that are not agents (an
    automaton, or a side a Gymnasium environment does not control)."""

    name: str
    agents: Callable[[int, Any], tuple[str, ...]]
    num_actions: int
    observation_size: Callable[[int, Any], int]
    agent_sides: Callable[[int, Any], tuple[str | None, ...]]
    new_state: Callable[..., StepState]
    doc: str = ""
    #: Side -> the built-in policy a search finishes its playouts with by default, where the side's own
    #: default cannot take an agent's decisions (an automaton); other sides: their default policy.
    default_rollout: Mapping[str | None, str] = field(default_factory=dict)


def step_spec(game: str) -> StepSpec:
    """The StepSpec of a registered game (the ``STEP`` of its record's ``step_module``); an
    UnknownGameError naming the valid games, or a CursedsimError for a game without a step API."""
    record = get_game(game)
    if record.step_module is None:
        raise CursedsimError(f"{record.name} has no step API (its Game record names no step_module)")
    return importlib.import_module(record.step_module).STEP


def check_action(state: StepState, action: Any) -> int:
    """``action`` as an int if legal in ``state``, else an IllegalActionError naming the legal actions."""
    legal = state.legal_actions()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or int(action) not in legal:
        names = ", ".join(f"{a} ({state.action_name(a)})" for a in legal[:12])
        more = f", … ({len(legal)} in all)" if len(legal) > 12 else ""
        raise IllegalActionError(f"{state.spec.name}: action {action!r} is not legal here; legal actions: "
                                 f"{names or 'none (the game is over)'}{more}")
    return int(action)
