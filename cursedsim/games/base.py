"""What every game offers the runner: the ``Game`` record and the ``PolicySpec`` of its policies."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cursedsim.errors import CursedsimError, OptionError, PlayersError, UnknownPolicyError


@dataclass(frozen=True)
class PolicySpec:
    """A policy: its kernel id, one-paragraph description and named numeric parameters.

    Built-in policies have only these. A user policy carries its implementation in ``impl``: for
    ``engine="kernel"`` a game-specific object holding the compiled kernel that calls the user's numba
    functions, for ``engine="python"`` a factory ``params -> policy object`` played by the reference
    engine (slow, any Python logic).
    """

    name: str
    policy_id: int
    doc: str
    params: Mapping[str, float] = field(default_factory=dict)
    param_docs: Mapping[str, str] = field(default_factory=dict)
    engine: str = "kernel"
    impl: Any = None

    def param_vector(self, overrides: Mapping[str, float] | None = None) -> np.ndarray:
        """The float64 parameter vector the kernel takes, defaults overridden by ``overrides``."""
        values = dict(self.params)
        for key, value in (overrides or {}).items():
            if key not in values:
                valid = ", ".join(values) or "none"
                raise UnknownPolicyError(
                    f"policy {self.name!r} has no parameter {key!r}; valid parameters: {valid}")
            values[key] = float(value)
        return np.array(list(values.values()), dtype=np.float64)


@dataclass(frozen=True)
class Measure:
    """A per-game outcome a result table reports as a mean: ``stats.summarize`` gives ``mean_<column>``
    (and ``<column>_se``, the standard error of that mean, when ``se``); the CLI tables show it under
    ``header``. ``won_only``: averaged over the games that were won (NaN without wins), e.g. a score
    that lost games do not have."""

    column: str
    header: str
    won_only: bool = False
    se: bool = False


def conventional_measures(outcome_columns: tuple[str, ...]) -> tuple[Measure, ...]:
    """The measures of a game that declares none: ``score`` over won games with its standard error and
    ``turns``, those of the two it has."""
    known = (Measure("score", "mean score (won) ± SE", won_only=True, se=True), Measure("turns", "mean turns"))
    return tuple(measure for measure in known if measure.column in outcome_columns)


#: Signature of a game's chunk runner: (seed, start, count, players, options, PolicySpec,
#: parameter vector) -> outcome arrays, one entry per game, keyed by column name.
ChunkRunner = Callable[[int, int, int, int, Any, str, np.ndarray], dict[str, np.ndarray]]
#: Signature of a game's replay: (seed, index, players, options, policy name or PolicySpec, parameter
#: vector) -> log. ``replay_events`` takes the same and returns the events (``cursedsim.events``).
Replayer = Callable[[int, int, int, Any, str, np.ndarray], str]
EventReplayer = Callable[[int, int, int, Any, str, np.ndarray], list[dict[str, Any]]]


@dataclass(frozen=True)
class Game:
    """A registered game: its facts, rule options, policies, kernel and reference entry points.

    ``option_columns(options, players)`` gives the per-run constant columns of the frame (every rule
    option, resolved: e.g. the seal count a ``None`` stands for). ``outcome_categories`` maps outcome
    columns holding integer codes to their category names. ``default_players`` is the player count a
    run uses when none is given (``None``: ``min_players``). ``measures`` are the outcome means the
    result tables show, in order (``None``: ``conventional_measures``, score over won games and turns).
    """

    name: str
    title: str
    min_players: int
    max_players: int
    options_type: type
    policies: Mapping[str, PolicySpec]
    default_policy: str
    run_chunk: ChunkRunner
    replay: Replayer
    option_columns: Callable[[Any, int], dict[str, Any]]
    outcome_columns: tuple[str, ...]
    outcome_categories: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    description: str = ""
    default_players: int | None = None
    measures: tuple[Measure, ...] | None = None
    #: The events of one game (``replay(..., format="events")``); None: the game replays as text only.
    replay_events: EventReplayer | None = None

    def __post_init__(self):
        measures = conventional_measures(self.outcome_columns) if self.measures is None else tuple(self.measures)
        for measure in measures:
            if not isinstance(measure, Measure) or measure.column not in self.outcome_columns:
                raise CursedsimError(f"game {self.name!r}: measure {measure!r} is not a Measure of an outcome "
                                     f"column; outcome columns: {', '.join(self.outcome_columns)}")
        object.__setattr__(self, "measures", measures)

    def check_players(self, players: int) -> int:
        """``players`` as an int, or a PlayersError naming the valid range."""
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not (
                self.min_players <= players <= self.max_players):
            raise PlayersError(
                f"{self.name} is played by {self.min_players}-{self.max_players} players, got {players!r}")
        return int(players)

    def policy(self, name: str) -> PolicySpec:
        """The named policy, or an UnknownPolicyError listing the valid ones."""
        try:
            return self.policies[name]
        except (KeyError, TypeError):
            raise UnknownPolicyError(
                f"unknown policy {name!r} for {self.name}; valid policies: {', '.join(self.policies)}"
            ) from None

    def make_options(self, options: Any = None):
        """A RuleOptions from a dict (or pass one through); unknown keys raise an OptionError."""
        if options is None:
            return self.options_type()
        if isinstance(options, self.options_type):
            return options
        if not isinstance(options, Mapping):
            raise OptionError(f"options must be a mapping of option names to values, got {type(options).__name__}")
        names = [f.name for f in dataclasses.fields(self.options_type)]
        unknown = [key for key in options if key not in names]
        if unknown:
            raise OptionError(
                f"unknown option {unknown[0]!r} for {self.name}; valid options: {', '.join(names)}")
        return self.options_type(**options)
