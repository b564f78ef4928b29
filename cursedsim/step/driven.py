"""Stepping an engine written as callbacks (the rules call a policy at each decision) without changing it:
the engine runs in a greenlet that switches back at each decision, so ``apply`` resumes it where it
stopped. A copy is the same deal with the same history replayed (a suspended greenlet cannot be
copied); the history holds the actions taken, the built-in policies asked and the determinisations
drawn, so a replay repeats every stream draw in the same order."""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from greenlet import greenlet

from cursedsim.step.api import TERMINAL, check_action
from cursedsim.step.history import HistoryState


@dataclass
class Request:
    """One decision the engine waits on: the ``agent`` to act, its ``legal`` actions (sorted ints) and
    ``by_policy(name, params) -> action``, the choice the built-in policy ``name`` makes here, drawing
    from the stream the engine gave the decision (the runner's game draws the same)."""

    agent: int
    legal: list[int]
    by_policy: Callable[[str, Mapping[str, float] | None], int]
    context: Any = None


class DrivenState(HistoryState):
    """A StepState over a callback engine. A game subclasses it and writes ``_play(ask)``: deal from
    ``self.recipe``, keep the table in ``self.table``, play the game calling ``ask(Request)`` at every
    decision (it returns the action to take); and ``_resample(agent, seed)``: redraw in ``self.table``
    what ``agent`` cannot see (used by ``determinise``)."""

    def __init__(self, recipe: Mapping[str, Any]):
        self.recipe = dict(recipe)
        self.table: Any = None
        self.history: list[tuple] = []
        self._request: Request | None = None
        self._runner = greenlet(self._main)
        self._request = self._runner.switch()

    # ------------------------------------------------------------------ what a game writes

    @abc.abstractmethod
    def _play(self, ask: Callable[[Request], int]) -> None:
        """Deal from ``self.recipe`` into ``self.table`` and play the game to its end through ``ask``."""

    @abc.abstractmethod
    def _resample(self, agent: int, seed: int) -> None:
        """Redraw, in ``self.table``, what ``agent`` cannot see, from ``seed`` (in place)."""

    # ------------------------------------------------------------------ the driver

    def _main(self) -> None:
        self._play(self._ask)
        return None

    def _ask(self, request: Request) -> int:
        return self._runner.parent.switch(request)

    def _resume(self, action: int) -> None:
        self._request = self._runner.switch(action)

    def actor(self) -> int:
        return TERMINAL if self._request is None else self._request.agent

    def legal_actions(self) -> list[int]:
        return [] if self._request is None else list(self._request.legal)

    def is_terminal(self) -> bool:
        return self._request is None

    def apply(self, action: int) -> None:
        action = check_action(self, action)
        self.history.append(("action", action))
        self._resume(action)

    def apply_policy(self, policy: str, params: Mapping[str, float] | None = None) -> int:
        if self._request is None:
            check_action(self, None)   # the game is over: the error says so
        action = self._request.by_policy(policy, params)
        if action not in self._request.legal:
            raise AssertionError(f"policy {policy!r} chose {action!r}; legal: {self._request.legal}")
        self.history.append(("policy", policy, None if params is None else dict(params)))
        self._resume(action)
        return action

    def determinise(self, agent: int, seed: int) -> DrivenState:
        copy = self.clone()
        copy.history.append(("resample", agent, int(seed)))
        copy._resample(agent, int(seed))
        return copy

    def _fresh(self) -> DrivenState:
        return type(self)(self.recipe)

    def _redo_action(self, action: int) -> None:
        self.apply(action)

    def _redo_policy(self, name: str, params: Mapping[str, float] | None) -> int:
        return self.apply_policy(name, params)
