"""``attach``: a game with the search policy ``ismcts`` (``search.policy``) among the policies of every
side, and its chunks and replays of runs that use it played through the step API (``search.play``,
``search.replay``). The composition root (``cursedsim.compose``) has the game registry apply it to every
game as it is first loaded."""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Mapping, MutableMapping
from typing import Any

from cursedsim.games import get_game
from cursedsim.games.base import Game, PolicySpec
from cursedsim.search import replay
from cursedsim.search.play import play_chunk
from cursedsim.search.policy import ISMCTS, NAME


def _has_step(game: Game) -> bool:
    return game.step_module is not None and importlib.util.find_spec(game.step_module) is not None


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
        policy = rest[-2]
        searching = get_game(self.game)
        if isinstance(policy, str):   # a single-side game's replay may get the policy's name
            policy = searching.policy(policy)
        if not _uses_search(searching, policy):
            return self.inner(seed, start, count_or_players, *rest)
        rest = (*rest[:-2], policy, rest[-1])
        if self.kind == "run_chunk":
            return play_chunk(searching, seed, start, count_or_players, *rest)
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


__all__ = ["attach"]
