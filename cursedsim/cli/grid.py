"""The one parser of the grid flags every command shares: ``--players``, ``--seals``, ``--deck``, ``--option``,
``--policy``, ``--param`` and the run flags ``--games``, ``--seed``, ``--jobs``, ``--backend``,
``--scheduler``, ``--out``, ``--no-progress``.

A command takes them with ``@grid_options(...)`` and ``@run_options(...)``, which hand it one
``GridArgs`` and one ``RunArgs`` (the raw texts); ``parse_grid`` turns a ``GridArgs`` into a ``Grid``
(player counts, option values, the cells), ``check_run`` checks a ``RunArgs``. Every error is a
``CliError`` (or another ``CursedsimError``) naming the valid choices.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import math
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import click

from cursedsim.errors import CursedsimError, OptionError

_RANGE_RE = re.compile(r"^\s*(-?\d+)\s*-\s*(-?\d+)\s*$")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "default")

#: A range or list on the command line expands to at most this many values ...
MAX_VALUES = 1_000
#: ... and a grid to at most this many cells.
MAX_CELLS = 10_000


class CliError(CursedsimError):
    """Malformed command-line input (ranges, NAME=VALUE pairs, values of the wrong type)."""


# ---------------------------------------------------------------- values

def parse_int_values(text: str, what: str, check: Callable[[int], Any] | None = None) -> list[int]:
    """Integers, inclusive ranges and lists of both: ``3``, ``1-5``, ``0,2,4-6``. ``check`` is called
    on both ends of every range (and every single value) before anything is expanded; a range of more
    than MAX_VALUES values is refused."""
    values: list[int] = []
    for part in text.split(","):
        match = _RANGE_RE.match(part)
        if match:
            low, high = int(match[1]), int(match[2])
            if low > high:
                raise CliError(f"malformed range {part.strip()!r} for {what}: the first number must not exceed "
                               "the second")
            if check is not None:
                check(low)
                check(high)
            if high - low + 1 + len(values) > MAX_VALUES:
                raise CliError(f"{what} {text.strip()!r} has {high - low + 1 + len(values):,} values; at most "
                               f"{MAX_VALUES:,} are allowed")
            values.extend(range(low, high + 1))
            continue
        try:
            value = int(part)
        except ValueError:
            raise CliError(f"malformed value {text.strip()!r} for {what}: use an integer, a range a-b "
                           "or a list a,b,c") from None
        if check is not None:
            check(value)
        values.append(value)
        if len(values) > MAX_VALUES:
            raise CliError(f"{what} has more than {MAX_VALUES:,} values")
    return list(dict.fromkeys(values))


def finite(text: str, what: str) -> float:
    """``text`` as a finite number, or a CliError naming ``what``."""
    try:
        number = float(text)
    except ValueError:
        raise CliError(f"{what} takes a number, got {text!r}") from None
    if not math.isfinite(number):
        raise CliError(f"{what} takes a finite number, got {text!r}")
    return number


def parse_number_values(text: str, what: str) -> list[float]:
    """Numbers, inclusive integer ranges and lists of both: ``2``, ``0.5,1.5``, ``1-3``, ``0,2-4``."""
    values: list[float] = []
    for part in text.split(","):
        if _RANGE_RE.match(part):
            values += [float(v) for v in parse_int_values(part, what)]
            continue
        try:
            number = float(part)
        except ValueError:
            raise CliError(f"malformed value {text.strip()!r} for {what}: use numbers, integer ranges a-b "
                           "or a list a,b,c") from None
        if not math.isfinite(number):
            raise CliError(f"{what} takes finite numbers, got {part.strip()!r}")
        values.append(number)
    return list(dict.fromkeys(values))


def parse_option_values(name: str, text: str, kind: tuple[type, bool]) -> list[Any]:
    """The values of one ``--option NAME=VALUE``: integers, ranges and lists for int options, true/false
    for bools, ``none`` for options that may be None (the game's default, e.g. seals by player count)."""
    base, optional = kind
    parts = [part.strip() for part in text.split(",")]
    is_none = [optional and part.lower() in _NONE for part in parts]
    values: list[Any] = [None] if any(is_none) else []
    parts = [part for part, none in zip(parts, is_none) if not none]
    if not parts:
        return values
    if base is bool:
        for part in parts:
            if part.lower() not in _TRUE + _FALSE:
                raise CliError(f"option {name!r} takes true or false, got {part!r}")
            values.append(part.lower() in _TRUE)
    elif base is int:
        values += parse_int_values(",".join(parts), f"option {name!r}")
    elif base is float:
        values += [finite(part, f"option {name!r}") for part in parts]
    else:
        values += parts
    return list(dict.fromkeys(values))


def split_pair(text: str, flag: str) -> tuple[str, str]:
    """``NAME=VALUE`` as (name, value), both stripped; a CliError naming ``flag`` otherwise."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise CliError(f"{flag} takes NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


# ---------------------------------------------------------------- options, policies, parameters

def parse_options(game, option_texts: tuple[str, ...], seals: str | None, deck: str | None = None,
                  board: str | None = None) -> dict[str, list[Any]]:
    """Option name -> list of values to run, from ``--option`` and the shorthands ``--seals``, ``--deck``
    and ``--board``, in the given order."""
    from cursedsim.runner import option_kinds
    kinds = option_kinds(game.options_type)
    pairs = [split_pair(text, "--option") for text in option_texts]
    for name, value in (("seals", seals), ("deck", deck), ("board", board)):
        if value is not None:
            if name not in kinds:
                raise OptionError(f"{game.name} has no {name!r} option (--{name}); valid options: "
                                  f"{', '.join(kinds) or 'none'}")
            pairs.append((name, value))
    grid: dict[str, list[Any]] = {}
    for name, value in pairs:
        if name not in kinds:
            raise OptionError(f"unknown option {name!r} for {game.name}; valid options: {', '.join(kinds)}")
        if name in grid:
            raise CliError(f"option {name!r} is given twice")
        grid[name] = parse_option_values(name, value, kinds[name])
    return grid


def single_options(grid: dict[str, list[Any]], command: str) -> dict[str, Any]:
    """The options of a command that plays one setting: every option with exactly one value."""
    for name, values in grid.items():
        if len(values) != 1:
            raise CliError(f"{command} takes one value per option: give option {name!r} a single value, got {values}")
    return {name: values[0] for name, values in grid.items()}


def parse_policies(game, texts: tuple[str, ...]) -> list[str]:
    """The ``--policy`` names in order, duplicates dropped (the game's default when none), each checked."""
    policies = list(dict.fromkeys(texts)) or [game.default_policy]
    for policy in policies:
        game.policy(policy)
    return policies


def _param_takers(game, policies: list[str], name: str) -> list[str]:
    """The chosen policies having parameter ``name``; a CliError naming the valid parameters if none has."""
    takers = [policy for policy in policies if name in game.policy(policy).params]
    if not takers:
        valid = sorted({p for policy in policies for p in game.policy(policy).params})
        raise CliError(f"no chosen policy of {game.name} has a parameter {name!r}; "
                       f"valid parameters: {', '.join(valid) or 'none'}")
    return takers


def parse_params(game, policies: list[str], texts: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Policy name -> its parameter overrides; a ``--param`` applies to every chosen policy having it."""
    per_policy: dict[str, dict[str, float]] = {policy: {} for policy in policies}
    for text in texts:
        name, value = split_pair(text, "--param")
        number = finite(value, f"parameter {name!r}")
        for policy in _param_takers(game, policies, name):
            per_policy[policy][name] = number
    return per_policy


def parse_sweep_params(game, policies: list[str], texts: tuple[str, ...]) -> dict[str, dict[str, list[float]]]:
    """``--param POLICY.NAME=VALUES`` (one policy) or ``--param NAME=VALUES`` (every chosen policy that has
    the parameter) as ``{policy: {name: [values]}}``."""
    grid: dict[str, dict[str, list[float]]] = {}
    for text in texts:
        key, value = split_pair(text, "--param")
        policy, dot, name = key.rpartition(".")
        if dot:
            if policy not in policies:
                raise CliError(f"--param {key}: policy {policy!r} is not swept; swept policies: {', '.join(policies)}")
            takers = [policy]
            if name not in game.policy(policy).params:
                raise CliError(f"policy {policy!r} has no parameter {name!r}; valid parameters: "
                               f"{', '.join(game.policy(policy).params) or 'none'}")
        else:
            takers = _param_takers(game, policies, name)
        values = parse_number_values(value, f"parameter {name!r}")
        for taker in takers:
            if name in grid.get(taker, {}):
                raise CliError(f"parameter {name!r} of policy {taker!r} is given twice")
            grid.setdefault(taker, {})[name] = values
    return grid


def parse_players(game, text: str | None) -> list[int]:
    """The player counts of ``--players`` (each checked before a range is expanded), or the game's default."""
    from cursedsim import runner
    if text is None:
        return [runner.resolve_players(game, None)]
    return parse_int_values(text, "--players", check=game.check_players)


# ---------------------------------------------------------------- the grid

@dataclass(frozen=True)
class GridArgs:
    """The grid flags as typed: ``--players``, ``--seals``, ``--option`` (repeated), ``--policy``
    (repeated) and ``--param`` (repeated). A command without one of them gets its empty value."""

    players_text: str | None = None
    seals_text: str | None = None
    deck_text: str | None = None
    board_text: str | None = None
    option_texts: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    param_texts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Grid:
    """Player counts and the values of every rule option given: a command plays their product."""

    game: Any
    players: list[int]
    options: dict[str, list[Any]]

    @property
    def varying(self) -> list[str]:
        """The options given with more than one value (the table's key columns)."""
        return [name for name, values in self.options.items() if len(values) > 1]

    def cells(self, policies: list[str] = ("-",)) -> list[tuple[str, int, dict[str, Any]]]:
        """Every (policy, players, options) cell, policies outermost; at most MAX_CELLS of them."""
        names = list(self.options)
        size = len(policies) * len(self.players) * math.prod(len(v) for v in self.options.values())
        if size > MAX_CELLS:
            raise CliError(f"the grid has {size:,} cells; at most {MAX_CELLS:,} are allowed")
        return [(policy, p, dict(zip(names, values)))
                for policy in policies for p in self.players
                for values in itertools.product(*(self.options[name] for name in names))]


def parse_grid(game, args: GridArgs, *, default_players: bool = True) -> Grid:
    """The grid of ``args`` for ``game``; without ``--players`` the game's default player count (or no
    player counts at all when ``default_players`` is false: the API chooses)."""
    players = parse_players(game, args.players_text) if args.players_text is not None or default_players else []
    return Grid(game, players, parse_options(game, args.option_texts, args.seals_text, args.deck_text,
                                                   args.board_text))


def cell_dir(out: str, policy: str, players: int, options: dict[str, Any], params: dict[str, float]) -> str:
    """The folder of one cell's resumable run under ``out/cells/``, named after its settings."""
    parts = [policy, f"p{players}"]
    parts += [f"{key}-{value}" for key, value in options.items()]
    parts += [f"{key}-{value:g}" for key, value in params.items()]
    name = "_".join(re.sub(r"[^A-Za-z0-9.+-]", "", str(part)) for part in parts)
    return os.path.join(out, "cells", name)


# ---------------------------------------------------------------- runs

@dataclass(frozen=True)
class RunArgs:
    """The run flags as typed: ``--games``, ``--seed``, ``--jobs``, ``--backend``, ``--scheduler``,
    ``--out``, ``--no-progress``."""

    n_games: int
    seed: int
    n_jobs: int
    backend: str | None = None
    scheduler: str | None = None
    out: str | None = None
    no_progress: bool = False

    @property
    def progress(self) -> bool | None:
        """The ``progress`` argument of the API: off with ``--no-progress``, else automatic."""
        return False if self.no_progress else None


@dataclass(frozen=True)
class Run:
    """Checked run settings: ``workers`` is the number of processes ``n_jobs`` means, ``backend`` is
    resolved (``--scheduler`` means Dask) and ``out`` is an absolute, writable folder (or None)."""

    n_games: int
    seed: int
    n_jobs: int
    workers: int
    backend: str
    scheduler: str | None
    out: str | None
    progress: bool | None


def resolve_backend(backend: str | None, scheduler: str | None) -> str:
    """The backend of ``--backend`` and ``--scheduler`` (which means Dask)."""
    if scheduler is not None:
        if backend not in (None, "dask"):
            raise CliError(f"--scheduler plays on a Dask cluster: leave out --backend {backend} "
                           "(or use --backend dask)")
        from cursedsim.runner import check_dask_address
        check_dask_address(scheduler, "dask")
        return "dask"
    return backend or "loky"


def check_run(args: RunArgs, *, check_out: bool = True) -> Run:
    """``args`` checked (game count, seed, jobs, backend; ``--out`` unless ``check_out`` is false)."""
    from cursedsim import runner
    n_games = runner.check_n_games(args.n_games)
    runner.check_seed(args.seed)
    workers = runner.check_n_jobs(args.n_jobs)
    backend = resolve_backend(args.backend, args.scheduler)
    out = args.out
    if out is not None and check_out:
        from cursedsim.rundir import check_out as checked_out
        out = checked_out(out, "--out")
    return Run(n_games, args.seed, args.n_jobs, workers, backend, args.scheduler, out, args.progress)


@contextlib.contextmanager
def grid_client(run: Run, cells: int) -> Iterator[Any]:
    """One Dask client for a whole grid (a LocalCluster, or the scheduler's), else the scheduler address
    (None without one)."""
    if run.backend != "dask" or (cells == 1 and run.scheduler is None):
        yield run.scheduler
        return
    from cursedsim.runner import dask_client
    with dask_client(run.workers, run.scheduler) as client:
        yield client


@contextlib.contextmanager
def grid_dir(out: str | None, marker: str, config: dict[str, Any], kind: str) -> Iterator[str | None]:
    """The locked output directory of a grid command (``--out``), or nothing without one."""
    if out is None:
        yield None
        return
    from cursedsim.version import __version__
    from cursedsim.rundir import owned_directory
    with owned_directory(out, marker=marker, config={**config, "cursedsim_version": __version__}, kind=kind,
                         same=tuple(config)) as directory:
        yield directory


# ---------------------------------------------------------------- the shared click options

BACKEND_HELP = "Where the chunks play (default: loky; dask with --scheduler)."
SCHEDULER_HELP = "A running Dask scheduler, e.g. tcp://10.0.0.5:8786: play on its workers (implies --backend dask)."
PLAYERS_HELP = "Player counts: 3, 1-5 or 2,4 (default: the game's)."
OPTION_HELP = "A rule option; ints take ranges a-b or lists a,b; bools true,false. Repeatable."


def _bundled(cls: type, name: str, decorators: list[Callable]) -> Callable:
    """A decorator adding the click ``decorators`` to a command and handing it their values as one ``cls``
    instance in the keyword argument ``name`` (fields of ``cls`` that no decorator sets keep their default)."""
    fields = [field.name for field in dataclasses.fields(cls)]

    def decorate(function: Callable) -> Callable:
        @functools.wraps(function)
        def command(**kwargs: Any) -> Any:
            values = {key: kwargs.pop(key) for key in fields if key in kwargs}
            return function(**kwargs, **{name: cls(**values)})
        for decorator in reversed(decorators):
            command = decorator(command)
        return command
    return decorate


def grid_options(*, players: str | None = PLAYERS_HELP, seals: str | None = "Shorthand for --option seals=S.",
                 option: str | None = OPTION_HELP, policy: str | None = "A policy; repeat for several.",
                 param: str | None = "A policy parameter, for every chosen policy that has it. Repeatable.",
                 policy_metavar: str = "NAME", param_metavar: str = "NAME=VALUE",
                 option_metavar: str = "NAME=VALUES",
                 deck: str | None = "A game played with a deck file (gifts): a TOML or JSON deck to play instead of "
                                    "the default one; shorthand for --option deck=FILE.",
                 board: str | None = "A game played on a board file (village): a TOML or JSON board to play instead "
                                     "of the reconstructed default; shorthand for --option board=FILE.") -> Callable:
    """The grid flags (their help texts; None leaves a flag out), handed to the command as ``grid: GridArgs``."""
    decorators = []
    if players is not None:
        decorators.append(click.option("--players", "players_text", metavar="P", help=players))
    if policy is not None:
        decorators.append(click.option("--policy", "policies", metavar=policy_metavar, multiple=True, help=policy))
    if seals is not None:
        decorators.append(click.option("--seals", "seals_text", metavar="S", help=seals))
    if deck is not None:
        decorators.append(click.option("--deck", "deck_text", metavar="FILE", help=deck))
    if board is not None:
        decorators.append(click.option("--board", "board_text", metavar="FILE", help=board))
    if option is not None:
        decorators.append(click.option("--option", "option_texts", metavar=option_metavar, multiple=True,
                                       help=option))
    if param is not None:
        decorators.append(click.option("--param", "param_texts", metavar=param_metavar, multiple=True, help=param))
    return _bundled(GridArgs, "grid", decorators)


def run_options(*, games: str = "Games per cell.", out: str | None = None, seed: str | None = None,
                dask: bool = True, extra: tuple[Callable, ...] = (), games_flag: str = "--games",
                games_default: int = 100_000) -> Callable:
    """The run flags, handed to the command as ``run: RunArgs``: ``--games`` (help ``games``; another name
    and default with ``games_flag``, ``games_default``: target's ``--max-games``), ``--seed``,
    ``--jobs``, ``extra`` options of the command (its own keyword arguments, listed after --jobs),
    ``--backend``/``--scheduler`` (when ``dask``), ``--out DIR`` (help ``out``; none when None) and
    ``--no-progress``."""
    decorators = [
        click.option(games_flag, "n_games", type=int, default=games_default, show_default=True, help=games),
        click.option("--seed", type=int, default=0, show_default=True, help=seed),
        click.option("--jobs", "n_jobs", type=int, default=1, show_default=True,
                     help="Worker processes (-1: all cores)."),
        *extra,
    ]
    if dask:
        decorators += [
            click.option("--backend", type=click.Choice(["loky", "dask", "sequential"]), default=None,
                         help=BACKEND_HELP),
            click.option("--scheduler", "--dask-address", "scheduler", metavar="ADDRESS", default=None,
                         help=SCHEDULER_HELP),
        ]
    if out is not None:
        decorators.append(click.option("--out", type=click.Path(file_okay=False), default=None, help=out))
    decorators.append(click.option("--no-progress", is_flag=True, help="No progress bar."))
    return _bundled(RunArgs, "run", decorators)


__all__ = ["CliError", "Grid", "GridArgs", "MAX_CELLS", "MAX_VALUES", "Run", "RunArgs", "cell_dir", "check_run",
           "finite", "grid_client", "grid_dir", "grid_options", "parse_grid", "parse_int_values",
           "parse_number_values", "parse_option_values", "parse_options", "parse_params", "parse_players",
           "parse_policies", "parse_sweep_params", "resolve_backend", "run_options", "single_options", "split_pair"]
