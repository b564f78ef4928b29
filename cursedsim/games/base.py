"""What every game offers the runner: the ``Game`` record, the ``PolicySpec`` of its policies and, for a
game of sides (hunter against town), the ``Side`` records that hold each side's policies."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cursedsim.errors import CursedsimError, OptionError, PlayersError, UnknownPolicyError


@dataclass(frozen=True)
class PolicySpec:
    """A policy: its kernel id, one-paragraph description, named numeric parameters and the space
    ``tune`` searches them in.

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
    #: The default search space ``tune`` draws candidates from: ``{parameter: (low, high) | [values]}``
    #: ((low, high) of two ints: integers; with a float: a uniform real); parameters left out keep their
    #: defaults. None: no default space (``tune`` then needs one given).
    tune_space: Mapping[str, Any] | None = None

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


@dataclass(frozen=True)
class Side:
    """One side of a game of sides (the hunter, the town): its ``name`` (an identifier: the frame's
    ``policy_<name>`` column, the CLI's ``--policy NAME=POLICY``), its ``policies`` (name -> PolicySpec,
    ``policy_id`` numbered within the side), the ``default_policy`` a run gives it when none is named,
    ``win_column``, the boolean outcome column saying whether this side won a game, and a one-line
    ``doc``."""

    name: str
    policies: Mapping[str, PolicySpec]
    default_policy: str
    win_column: str
    doc: str = ""

    def policy(self, name: str) -> PolicySpec:
        """The side's policy ``name``, or an UnknownPolicyError naming the side and its valid policies."""
        try:
            return self.policies[name]
        except (KeyError, TypeError):
            raise UnknownPolicyError(f"unknown policy {_text(name)} for side {self.name!r}; valid policies of "
                                     f"{self.name}: {', '.join(self.policies)}") from None


def _text(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


#: Signature of a game's chunk runner: (seed, start, count, players, options, policy, params) -> outcome
#: arrays, one entry per game, keyed by column name. A single-side game gets the PolicySpec and its
#: float64 parameter vector; a game of sides gets ``policy`` as a dict side name -> PolicySpec and
#: ``params`` as a dict side name -> float64 parameter vector, both with every side, in ``Game.sides``
#: order (a side the run left out holds its default policy with its default parameters).
ChunkRunner = Callable[[int, int, int, int, Any, Any, Any], dict[str, np.ndarray]]
#: Signature of a game's replay: (seed, index, players, options, policy, params) -> log, ``policy`` and
#: ``params`` as ``ChunkRunner`` gets them (a single-side game may also get the policy's name).
#: ``replay_events`` takes the same and returns the events (``cursedsim.events``).
Replayer = Callable[[int, int, int, Any, Any, Any], str]
EventReplayer = Callable[[int, int, int, Any, Any, Any], list[dict[str, Any]]]


@dataclass(frozen=True)
class Game:
    """A registered game: its facts, rule options, policies, kernel and reference entry points.

    ``option_columns(options, players)`` gives the per-run constant columns of the frame (every rule
    option, resolved: e.g. the seal count a ``None`` stands for). ``outcome_categories`` maps outcome
    columns holding integer codes to their category names. ``default_players`` is the player count a
    run uses when none is given (``None``: ``min_players``). ``measures`` are the outcome means the
    result tables show, in order (``None``: ``conventional_measures``, score over won games and turns).

    ``sides``: empty for a single-side game (one policy plays every seat; its outcome column ``win``).
    A game of sides declares them here, its policies per side (``Side.policies``), and passes
    ``policies={}`` and ``default_policy=""``: a run then names a policy per side
    (``policy={"hunter": "tracker", "town": "coven"}``) and every side's ``win_column`` is an outcome
    column (docs/architecture.md, "Sides").
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
    #: The sides of a game of sides (empty: a single-side game).
    sides: tuple[Side, ...] = ()
    #: A game of sides whose sides are seats of one game (``focus`` against ``field``): every side has the
    #: same policies, and a single policy name plays every side (``policy="leader"``).
    one_policy_all_sides: bool = False
    #: An outcome column holding the winning seat (-1: none), for the win rate of each seat.
    seat_column: str | None = None
    #: Integer outcome columns holding codes, not amounts (seats, an encoded order, a bit mask): summaries
    #: such as ``sweep``'s show no mean of them (``seat_column`` is one without being listed).
    code_columns: tuple[str, ...] = ()
    #: ``(options, players) -> dict``: what the options stand for beyond their values, added to a run's
    #: identity (``run.json``) so a run never resumes from games of something else: e.g. the digest of the
    #: deck file an option names (a file rewritten at the same path). None: the option values suffice.
    run_identity: Callable[[Any, int], dict[str, Any]] | None = None
    #: What the player count means where it is not the people at the table (e.g. a fixed count of sides),
    #: added to the error of a bad count.
    players_doc: str = ""
    #: A game of sides whose pairing of the sides' policies decides the mode (So, You've Been Cursed.: an
    #: automaton against a player's policy is that player's solo game): mode name -> side -> the policy
    #: that stands for that side in the mode's standard pairing, in the order tools list the modes
    #: (``target(..., modes=...)``, the report). Empty: the game has no modes.
    modes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # What the layers above the game find here, by name only (the registry imports none of it):
    #: The dotted module of the game's step API, whose ``STEP`` is its ``StepSpec`` (``step.api.step_spec``);
    #: None: the game has no step API (no search policy, no adapters).
    step_module: str | None = None
    #: The dotted package of the game's balance report, whose ``REPORT`` is its ``GameReport``
    #: (``report.registry.report_for``); None: the game has no report.
    report_module: str | None = None
    #: Seconds the first compile of the game's kernels is expected to take on a machine that has not
    #: compiled it yet (``compile_notice.estimate``); None: ``compile_notice.DEFAULT_ESTIMATE``.
    compile_estimate: float | None = None
    #: Seconds ``cursedsim compile`` of all of the game's kernels (every built-in policy, the rollouts) takes
    #: on one core from an empty cache: ``warm`` starts the longest first, so two workers finish together;
    #: None: ``compile_estimate``'s figure.
    warm_estimate: float | None = None
    #: The directory, relative to the ``cursedsim`` package, whose sources (with the shared ones) key the
    #: game's numba cache and its run identity (``numba_cache.kernel_sources``, ``source_digest``); empty:
    #: ``games/<name>``, which is also the name numba's cache groups carry.
    cache_identity: str = ""

    def __post_init__(self):
        if not self.cache_identity:
            object.__setattr__(self, "cache_identity", f"games/{self.name}")
        object.__setattr__(self, "sides", tuple(self.sides))
        self._check_sides()
        self._check_modes()
        if self.seat_column is not None and self.seat_column not in self.outcome_columns:
            raise CursedsimError(f"game {self.name!r}: seat column {self.seat_column!r} is not an outcome column")
        object.__setattr__(self, "code_columns", tuple(self.code_columns))
        for column in self.code_columns:
            if column not in self.outcome_columns:
                raise CursedsimError(f"game {self.name!r}: code column {column!r} is not an outcome column")
        measures = conventional_measures(self.outcome_columns) if self.measures is None else tuple(self.measures)
        for measure in measures:
            if not isinstance(measure, Measure) or measure.column not in self.outcome_columns:
                raise CursedsimError(f"game {self.name!r}: measure {measure!r} is not a Measure of an outcome "
                                     f"column; outcome columns: {', '.join(self.outcome_columns)}")
        object.__setattr__(self, "measures", measures)

    def _check_sides(self) -> None:
        """A game of sides: sides with distinct identifier names, each with policies, a default among
        them and a win column among the outcome columns; no game-wide policies."""
        if not self.sides:
            return
        names = [side.name for side in self.sides]
        for side in self.sides:
            problem = (
                "is not a Side" if not isinstance(side, Side) else
                "is not an identifier" if not side.name.isidentifier() else
                "is named twice" if names.count(side.name) > 1 else
                "has no policies" if not side.policies else
                f"has no default policy {side.default_policy!r} among its policies" if
                side.default_policy not in side.policies else
                f"has win column {side.win_column!r}, not an outcome column" if
                side.win_column not in self.outcome_columns else "")
            if problem:
                raise CursedsimError(f"game {self.name!r}: side {_text(getattr(side, 'name', side))} {problem}")
        if self.one_policy_all_sides and any(set(side.policies) != set(self.sides[0].policies)
                                             for side in self.sides):
            raise CursedsimError(f"game {self.name!r}: one policy plays every side, so every side needs the same "
                                 "policies")
        if self.policies or self.default_policy:
            raise CursedsimError(f"game {self.name!r} has sides ({', '.join(names)}): its policies are the sides' "
                                 "own; give policies={} and default_policy=''")

    def _check_modes(self) -> None:
        """Modes: a game of sides only; each mode an identifier naming a policy of every side it names."""
        modes = {}
        for mode, pairing in dict(self.modes).items():
            problem = (
                "is not an identifier" if not isinstance(mode, str) or not mode.isidentifier() else
                "needs a game of sides" if not self.sides else
                "does not map sides to policies" if not isinstance(pairing, Mapping) or not pairing else "")
            if not problem:
                for side, policy in pairing.items():
                    if side not in self.side_names:
                        problem = f"names {_text(side)}, not a side ({', '.join(self.side_names)})"
                    elif policy not in self.side(side).policies:
                        problem = f"gives side {side!r} {_text(policy)}, not one of its policies"
                    if problem:
                        break
            if problem:
                raise CursedsimError(f"game {self.name!r}: mode {_text(mode)} {problem}")
            modes[mode] = dict(pairing)
        object.__setattr__(self, "modes", modes)

    @property
    def side_names(self) -> tuple[str, ...]:
        """The names of the sides, in order (empty for a single-side game)."""
        return tuple(side.name for side in self.sides)

    def side(self, name: str) -> Side:
        """The side ``name``, or an UnknownPolicyError naming the valid sides (or saying there are none)."""
        for side in self.sides:
            if side.name == name:
                return side
        if not self.sides:
            raise UnknownPolicyError(f"{self.name} has no sides (one policy plays every seat), got side {_text(name)}")
        raise UnknownPolicyError(f"unknown side {_text(name)} of {self.name}; valid sides: "
                                 f"{', '.join(self.side_names)}")

    def policies_of(self, side: str | None = None) -> Mapping[str, PolicySpec]:
        """The policies a run may give ``side`` (a single-side game: its policies, ``side`` None)."""
        return self.policies if side is None and not self.sides else self.side(side).policies

    def default_policy_of(self, side: str | None = None) -> str:
        """The policy ``side`` plays when a run names none (a single-side game: ``default_policy``)."""
        return self.default_policy if side is None and not self.sides else self.side(side).default_policy

    def win_column(self, side: str | None = None) -> str:
        """The boolean outcome column of a win: ``win`` for a single-side game, the side's own otherwise."""
        return "win" if side is None and not self.sides else self.side(side).win_column

    def check_players(self, players: int) -> int:
        """``players`` as an int, or a PlayersError naming the valid range."""
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not (
                self.min_players <= players <= self.max_players):
            counts = (f"{self.min_players}" if self.min_players == self.max_players else
                      f"{self.min_players}-{self.max_players}")
            raise PlayersError(f"{self.name} is played by {counts} players, got {players!r}"
                               + (f" ({self.players_doc})" if self.players_doc else ""))
        return int(players)

    def policy(self, name: str, side: str | None = None) -> PolicySpec:
        """The named policy (of ``side`` in a game of sides), or an UnknownPolicyError listing the valid
        ones (the valid sides when a game of sides is asked without one)."""
        if side is not None or self.sides:
            if side is None:
                raise UnknownPolicyError(f"{self.name} has sides ({', '.join(self.side_names)}): name the side of "
                                         f"policy {_text(name)}")
            return self.side(side).policy(name)
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
