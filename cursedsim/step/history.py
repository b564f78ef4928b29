"""What the step states of the games share: a state keeps the ``history`` of what was done to it and a
copy is the same deal with that history replayed (a copy then shares nothing with the original and
repeats every stream draw in the same order), written once here instead of in every game."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any

from cursedsim.step.api import StepState, check_action


class HistoryState(StepState):
    """A StepState whose ``history`` holds ``("action", a)``, ``("policy", name, params)`` and
    ``("resample", agent, seed)`` entries and whose copies replay it. A game writes ``_fresh()`` (the same
    deal, nothing done), ``_redo_action`` and ``_redo_policy`` (an entry taken again, recorded again) and
    ``_resample(agent, seed)``; a game with more kinds of entry overrides ``_redo`` and calls super."""

    history: list[tuple]

    @abc.abstractmethod
    def _fresh(self) -> HistoryState:
        """A new state of the same deal, before anything was done to it."""

    @abc.abstractmethod
    def _redo_action(self, action: int) -> None:
        """Take again an ``("action", action)`` entry of the history, recording it."""

    @abc.abstractmethod
    def _redo_policy(self, name: str, params: Mapping[str, float] | None) -> Any:
        """Take again a ``("policy", name, params)`` entry of the history, recording it."""

    @abc.abstractmethod
    def _resample(self, agent: int, seed: int) -> None:
        """Redraw what ``agent`` cannot see, from ``seed`` (in place)."""

    def _redo(self, entry: tuple) -> None:
        """Take one entry of another state's history again."""
        if entry[0] == "action":
            self._redo_action(entry[1])
        elif entry[0] == "policy":
            self._redo_policy(entry[1], entry[2])
        else:
            self.history.append(entry)
            self._resample(entry[1], entry[2])

    def clone(self) -> HistoryState:
        copy = self._fresh()
        for entry in self.history:
            copy._redo(entry)
        return copy


class FixedSidesState(HistoryState):
    """A HistoryState on a steppable reference table that calls the built-in policies itself, the sides in
    ``fixed`` (side -> ``name`` or ``(name, params)``) played inside it (never the actor). A game's state
    takes ``(seed, index, players, options, fixed, log, _build)`` and writes ``_deal()`` (the streams and
    table of the deal), ``_step(action)`` (taken on the table, not recorded), ``_policy_action(name,
    params)`` (what the actor's built-in policy chooses), ``side_of(agent)`` and ``_resample``."""

    fixed: dict[str, tuple[str, Mapping[str, float] | None]]

    def __init__(self, game: Any, seed: int, index: int, players: int, options: Any,
                 fixed: Mapping[str, Any] | None, log: bool, build: bool):
        self.seed, self.index, self.players, self.options, self.log = seed, index, players, options, log
        self.fixed = {side: (p, None) if isinstance(p, str) else (p[0], p[1]) for side, p in (fixed or {}).items()}
        for side, (name, _) in self.fixed.items():
            game.policy(name, side)   # an unknown policy raises here
        self._policies: dict = {}
        self.history: list[tuple] = []
        if build:
            self._deal()
            self._run_fixed()

    @abc.abstractmethod
    def _deal(self) -> None:
        """Deal game ``index`` of the run ``seed``: the streams and the table (nothing played)."""

    @abc.abstractmethod
    def side_of(self, agent: int) -> str:
        """The runner side an agent plays."""

    @abc.abstractmethod
    def _step(self, action: int) -> None:
        """Take ``action`` for the actor on the table (nothing recorded in the history)."""

    @abc.abstractmethod
    def _policy_action(self, name: str, params: Mapping[str, float] | None) -> int:
        """The action the actor's built-in policy ``name`` chooses now (drawing from its stream)."""

    def _policy_step(self, name: str, params: Mapping[str, float] | None) -> int:
        """The built-in policy ``name`` takes the actor's decision: recorded, taken, returned."""
        action = self._policy_action(name, params)
        self.history.append(("policy", name, None if params is None else dict(params)))
        self._step(action)
        return action

    def _run_fixed(self) -> None:
        while not self.is_terminal() and self.side_of(self.actor()) in self.fixed:
            self._policy_step(*self.fixed[self.side_of(self.actor())])

    def apply(self, action: int) -> None:
        action = check_action(self, action)
        self.history.append(("action", action))
        self._step(action)
        self._run_fixed()

    def apply_policy(self, policy: str, params: Mapping[str, float] | None = None) -> int:
        if self.is_terminal():
            check_action(self, None)   # the game is over: the error says so
        action = self._policy_step(policy, params)
        self._run_fixed()
        return action

    def _fresh(self) -> FixedSidesState:
        copy = type(self)(self.seed, self.index, self.players, self.options, None, self.log, _build=False)
        copy.fixed = dict(self.fixed)
        copy._deal()
        return copy

    def _redo_action(self, action: int) -> None:
        """The fixed sides' moves after it are history entries of their own: not run again here."""
        self.history.append(("action", action))
        self._step(action)

    def _redo_policy(self, name: str, params: Mapping[str, float] | None) -> int:
        return self._policy_step(name, params)

    def determinise(self, agent: int, seed: int) -> FixedSidesState:
        copy = self.clone()
        copy.history.append(("resample", int(agent), int(seed)))
        copy._resample(int(agent), int(seed))
        return copy
