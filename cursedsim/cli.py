"""The command line: ``cursedsim list``, ``simulate``, ``replay``, and the research tools ``compare``,
``sweep`` and ``tune``.

Bad input of any kind ends in one line ``cursedsim: error: <message>`` on stderr and exit status 2.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import os
import re
import sys
import typing
from collections.abc import Callable
from typing import Any

import click

from cursedsim import __version__
from cursedsim.errors import CursedsimError, OptionError, clip
from cursedsim.files import write_via

PROG = "cursedsim"
_RANGE_RE = re.compile(r"^\s*(-?\d+)\s*-\s*(-?\d+)\s*$")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "default")


class CliError(CursedsimError):
    """Malformed command-line input (ranges, NAME=VALUE pairs, values of the wrong type)."""


# ---------------------------------------------------------------- parsing helpers

#: A range or list on the command line expands to at most this many values ...
MAX_VALUES = 1_000
#: ... and a grid to at most this many cells.
MAX_CELLS = 10_000


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


def _option_kinds(options_type: type) -> dict[str, tuple[type, bool]]:
    """Option name -> (base type, whether None is allowed), from the RuleOptions annotations."""
    from cursedsim.runner import option_kinds
    return option_kinds(options_type)


def _finite(text: str, what: str) -> float:
    """``text`` as a finite number, or a CliError naming ``what``."""
    try:
        number = float(text)
    except ValueError:
        raise CliError(f"{what} takes a number, got {text!r}") from None
    if not math.isfinite(number):
        raise CliError(f"{what} takes a finite number, got {text!r}")
    return number


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
        values += [_finite(part, f"option {name!r}") for part in parts]
    else:
        values += parts
    return list(dict.fromkeys(values))


def _split_pair(text: str, flag: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise CliError(f"{flag} takes NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def parse_options(game, option_texts: tuple[str, ...], seals: str | None) -> dict[str, list[Any]]:
    """Option name -> list of values to run, from ``--option`` and ``--seals``, in the given order."""
    kinds = _option_kinds(game.options_type)
    pairs = [_split_pair(text, "--option") for text in option_texts]
    if seals is not None:
        if "seals" not in kinds:
            raise OptionError(f"{game.name} has no 'seals' option; valid options: {', '.join(kinds) or 'none'}")
        pairs.append(("seals", seals))
    grid: dict[str, list[Any]] = {}
    for name, value in pairs:
        if name not in kinds:
            raise OptionError(f"unknown option {name!r} for {game.name}; valid options: {', '.join(kinds)}")
        if name in grid:
            raise CliError(f"option {name!r} is given twice")
        grid[name] = parse_option_values(name, value, kinds[name])
    return grid


def parse_params(game, policies: list[str], texts: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Policy name -> its parameter overrides; a ``--param`` applies to every chosen policy having it."""
    per_policy: dict[str, dict[str, float]] = {policy: {} for policy in policies}
    for text in texts:
        name, value = _split_pair(text, "--param")
        number = _finite(value, f"parameter {name!r}")
        takers = [policy for policy in policies if name in game.policy(policy).params]
        if not takers:
            valid = sorted({p for policy in policies for p in game.policy(policy).params})
            raise CliError(f"no chosen policy of {game.name} has a parameter {name!r}; "
                           f"valid parameters: {', '.join(valid) or 'none'}")
        for policy in takers:
            per_policy[policy][name] = number
    return per_policy


def _fail(message: str) -> typing.NoReturn:
    click.echo(f"{PROG}: error: {' '.join(clip(str(message)).split())}", err=True)
    sys.exit(2)


def _console():
    from rich.console import Console
    return Console(width=None if sys.stdout.isatty() else 120)


def _first_line(text: str, limit: int = 90) -> str:
    """The first sentence of ``text`` (at most ``limit`` characters)."""
    line = text.strip().split("\n")[0] if text.strip() else ""
    sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z\"(])", line, maxsplit=1)[0]   # "Mimic! taken" goes on
    return sentence if len(sentence) <= limit else sentence[:limit - 1].rstrip() + "…"


def _option_docs(options_type: type) -> dict[str, str]:
    """Option name -> its description (``describe.option_docs``)."""
    from cursedsim.describe import option_docs
    return option_docs(options_type)


# ---------------------------------------------------------------- commands

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG, message="%(prog)s %(version)s")
def cli():
    """Monte-Carlo simulation of tabletop games: seeded, parallel, resumable."""


def main(args: list[str] | None = None, prog_name: str = PROG) -> None:
    """Entry point: run the CLI; every user error becomes one line on stderr and exit status 2."""
    try:
        cli.main(args=args, prog_name=prog_name, standalone_mode=False)
    except CursedsimError as error:
        _fail(str(error))
    except click.exceptions.NoArgsIsHelpError as error:   # bare ``cursedsim``: the help
        click.echo(error.format_message())
    except click.exceptions.NoSuchOption as error:
        _fail(f"{error.format_message()} (see {prog_name} {_command(error)}--help)")
    except click.UsageError as error:
        message = error.format_message()
        if isinstance(error, click.MissingParameter) and error.param is not None and error.param.name == "game":
            from cursedsim.games import list_games
            message += f" Valid games: {', '.join(list_games())}."
        elif "No such command" in message:
            message += f" Valid commands: {', '.join(sorted(cli.commands))}."
        _fail(message)
    except click.exceptions.Abort:
        click.echo(f"{PROG}: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as error:
        _fail(error.format_message())
    except OSError as error:   # e.g. a disk that filled up mid-run: no traceback either
        where = f": {error.filename}" if error.filename else ""
        _fail(f"{error.strerror or error}{where}")
    except MemoryError:
        _fail("out of memory; use fewer games per cell or --summary-only")
    except KeyboardInterrupt:
        click.echo(f"{PROG}: interrupted", err=True)
        sys.exit(130)


def _command(error: click.UsageError) -> str:
    ctx = error.ctx
    return f"{ctx.info_name} " if ctx is not None and ctx.parent is not None else ""


#: ``main.add_command(command)`` registers a click command on the ``cursedsim`` group (for commands
#: defined in other modules, e.g. the report command below).
main.add_command = lambda command, name=None: cli.add_command(command, name)   # type: ignore[attr-defined]


@cli.command("list")
def list_command():
    """Games, their player counts, policies (with parameters) and rule options (with defaults)."""
    from rich.table import Table

    from cursedsim.games import get_game, list_games

    console = _console()
    for name in list_games():
        game = get_game(name)
        console.print(f"[bold]{game.name}[/bold] — {game.title}, {game.min_players}-{game.max_players} players"
                      + (f" (default {game.default_players})" if game.default_players else ""))
        if game.description:
            console.print(f"  {_first_line(game.description)}")
        policies = Table("policy", "description", "parameters (default)", title=None, show_edge=False)
        for policy in game.policies.values():
            label = policy.name + (" (default)" if policy.name == game.default_policy else "")
            params = ", ".join(f"{key}={value:g}" for key, value in policy.params.items()) or "-"
            policies.add_row(label, _first_line(policy.doc), params)
        console.print(policies)
        options = Table("option", "type", "default", "description", show_edge=False)
        hints = typing.get_type_hints(game.options_type)
        docs = _option_docs(game.options_type)
        for field in dataclasses.fields(game.options_type):
            hint = hints.get(field.name)
            type_name = getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
            options.add_row(field.name, type_name, repr(field.default), _first_line(docs.get(field.name, "")))
        console.print(options)
        console.print()


def _grid_cells(game, players: list[int], option_grid: dict[str, list[Any]], policies: list[str]):
    names = list(option_grid)
    for policy in policies:
        for p in players:
            for values in itertools.product(*(option_grid[name] for name in names)):
                yield policy, p, dict(zip(names, values))


def _cell_dir(out: str, policy: str, players: int, options: dict[str, Any], params: dict[str, float]) -> str:
    parts = [policy, f"p{players}"]
    parts += [f"{key}-{value}" for key, value in options.items()]
    parts += [f"{key}-{value:g}" for key, value in params.items()]
    name = "_".join(re.sub(r"[^A-Za-z0-9.+-]", "", str(part)) for part in parts)
    return os.path.join(out, "cells", name)


def _percent(value: float) -> str:
    return "-" if value != value else f"{100 * value:.2f}"


def _measure_headers(game) -> list[str]:
    """The table headers of the game's measures (``game.measures``), in order."""
    return [measure.header for measure in game.measures]


def _measure_cells(game, row) -> list[str]:
    """The cells of the game's measures in a summary row (``mean_<column>``, ``± <column>_se`` where the
    measure shows its standard error); ``-`` where the row has no number (e.g. no game won)."""
    cells = []
    for measure in game.measures:
        mean = row.get(f"mean_{measure.column}", float("nan"))
        se = row.get(f"{measure.column}_se", float("nan")) if measure.se else float("nan")
        cells.append("-" if mean != mean else f"{mean:.2f} ± {se:.2f}" if se == se else f"{mean:.2f}")
    return cells


def _summary_table(game, frame, keys: list[str]):
    from rich.table import Table

    from cursedsim.stats import summarize

    summary = summarize(frame, keys, measures=game.measures)
    table = Table(*keys, "games", "win rate % [95% CI]", *_measure_headers(game))
    for column in table.columns[len(keys):]:
        column.justify = "right"
    for row in summary.to_dict("records"):
        cells = [str(row[key]) if key in row else "" for key in keys]
        rate = f"{_percent(row['win_rate'])} [{_percent(row['ci_low'])}, {_percent(row['ci_high'])}]"
        table.add_row(*cells, f"{row['n']:,}", rate, *_measure_cells(game, row))
    return summary, table


def _players(game, text: str | None) -> list[int]:
    """The player counts of ``--players`` (each checked before a range is expanded), or the game's default."""
    from cursedsim import runner
    if text is None:
        return [runner.resolve_players(game, None)]
    return parse_int_values(text, "--players", check=game.check_players)


def _backend(backend: str | None, scheduler: str | None) -> str:
    """The backend of ``--backend`` and ``--scheduler`` (which means Dask)."""
    if scheduler is not None:
        if backend not in (None, "dask"):
            raise CliError(f"--scheduler plays on a Dask cluster: leave out --backend {backend} (or use --backend dask)")
        from cursedsim.runner import check_dask_address
        check_dask_address(scheduler, "dask")
        return "dask"
    return backend or "loky"


def _check_cells(cells: list) -> None:
    if len(cells) > MAX_CELLS:
        raise CliError(f"the grid has {len(cells):,} cells; at most {MAX_CELLS:,} are allowed")


@contextlib.contextmanager
def _grid_client(backend: str, workers: int, scheduler: str | None, cells: int):
    """One Dask client for a whole grid (a LocalCluster, or the scheduler's), else None."""
    if backend != "dask" or (cells == 1 and scheduler is None):
        yield scheduler
        return
    from cursedsim.runner import dask_client
    with dask_client(workers, scheduler) as client:
        yield client


@contextlib.contextmanager
def _grid_dir(out: str | None, marker: str, config: dict[str, Any], kind: str):
    """The locked output directory of a grid command (``--out``), or nothing without one."""
    if out is None:
        yield None
        return
    from cursedsim import __version__
    from cursedsim.rundir import owned_directory
    with owned_directory(out, marker=marker, config={**config, "cursedsim_version": __version__}, kind=kind,
                         same=tuple(config)) as directory:
        yield directory


_BACKEND_HELP = "Where the chunks play (default: loky; dask with --scheduler)."
_SCHEDULER_HELP = "A running Dask scheduler, e.g. tcp://10.0.0.5:8786: play on its workers (implies --backend dask)."


def _grid_summary(rows: list[dict[str, Any]], keys: list[str]):
    """The per-cell summary rows as ``stats.summarize(frame, keys)`` of the concatenated frames orders
    them: categorical keys (policies, string options) in order of first appearance, numbers ascending,
    missing values last."""
    import pandas as pd
    summary = pd.DataFrame(rows)
    order = {}
    for key in keys:
        values = summary[key].tolist()
        if all(v is None or isinstance(v, (bool, int, float)) for v in values) and key != "policy":
            order[key] = summary[key].astype(float)
        else:
            first = list(dict.fromkeys(v for v in values if v is not None))
            order[key] = summary[key].map(lambda v: first.index(v) if v is not None else math.nan)
    ranks = pd.DataFrame(order)
    index = ranks.sort_values(keys, kind="stable", na_position="last").index
    return summary.loc[index].reset_index(drop=True)


def _write_grid_frame(path: str, heads: list, frames) -> int:
    """The frames of every cell (an iterable: one in memory at a time) as one Parquet file, equal to
    ``runner.concat_frames`` of them all: the columns and dtypes come from the cells' first rows
    (``heads``), every frame is conformed to them. Returns the games written."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cursedsim.runner import concat_frames
    template = concat_frames([head.reset_index(drop=True) for head in heads]).iloc[:0]
    schema = pa.Schema.from_pandas(template, preserve_index=False)
    written = 0

    def write(tmp: str) -> None:
        nonlocal written
        with pq.ParquetWriter(tmp, schema) as writer:
            for frame in frames:
                n = len(frame)
                columns = {}
                for name in template.columns:
                    dtype = template[name].dtype
                    if name in frame.columns:
                        columns[name] = frame[name] if frame[name].dtype == dtype else frame[name].astype(dtype)
                    elif isinstance(dtype, pd.CategoricalDtype):
                        columns[name] = pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), dtype=dtype)
                    elif dtype.kind == "f":
                        columns[name] = np.full(n, np.nan, dtype=dtype)
                    else:
                        columns[name] = pd.Series([None] * n, dtype=dtype)
                table = pa.Table.from_pandas(pd.DataFrame(columns), schema=schema, preserve_index=False)
                writer.write_table(table)
                written += n
                del columns, table, frame

    write_via(path, write)
    return written


@cli.command("simulate")
@click.argument("game")
@click.option("--players", "players_text", metavar="P", help="Player counts: 3, 1-5 or 2,4 (default: the game's).")
@click.option("--seals", "seals_text", metavar="S", help="Shorthand for --option seals=S (e.g. 0-6).")
@click.option("--option", "option_texts", metavar="NAME=VALUE", multiple=True,
              help="A rule option; ints take ranges a-b or lists a,b; bools true/false. Repeatable.")
@click.option("--policy", "policies", metavar="NAME", multiple=True, help="A policy; repeat for one run per policy.")
@click.option("--param", "param_texts", metavar="NAME=VALUE", multiple=True,
              help="A policy parameter, for every chosen policy that has it. Repeatable.")
@click.option("--games", "n_games", type=int, default=100_000, show_default=True, help="Games per cell.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", "n_jobs", type=int, default=1, show_default=True, help="Worker processes (-1: all cores).")
@click.option("--chunk-size", type=int, default=None, help="Games per kernel call (default: automatic).")
@click.option("--backend", type=click.Choice(["loky", "dask", "sequential"]), default=None, help=_BACKEND_HELP)
@click.option("--scheduler", "--dask-address", "scheduler", metavar="ADDRESS", default=None, help=_SCHEDULER_HELP)
@click.option("--summary-only", is_flag=True,
              help="Keep only the summary of each cell (bounded memory, for huge runs); no games.parquet.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory: games.parquet + summary.csv, resumable runs under cells/ (rerun to resume).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def simulate_command(game, players_text, seals_text, option_texts, policies, param_texts, n_games, seed, n_jobs,
                     chunk_size, backend, scheduler, summary_only, out, no_progress):
    """Simulate GAME over a grid of player counts, rule options and policies; print a summary table."""
    from cursedsim import runner, stats
    from cursedsim.rundir import check_out

    game_obj = runner.resolve_game(game)
    n_games = runner.check_n_games(n_games)
    runner.check_seed(seed)
    workers = runner.check_n_jobs(n_jobs)
    runner.check_chunk_size(chunk_size)
    backend = _backend(backend, scheduler)
    players = _players(game_obj, players_text)
    policies = list(dict.fromkeys(policies)) or [game_obj.default_policy]
    for policy in policies:
        game_obj.policy(policy)
    option_grid = parse_options(game_obj, option_texts, seals_text)
    params = parse_params(game_obj, policies, param_texts)
    cells = list(_grid_cells(game_obj, players, option_grid, policies))
    _check_cells(cells)
    columns = []   # every cell's options built (so valid) before any game is played
    for _, p, options in cells:
        columns.append(game_obj.option_columns(runner.make_options(game_obj, options), p))
    if out is not None:
        out = check_out(out, "--out")
    if not summary_only:   # one cell's frame is in memory at a time
        runner.check_memory(game_obj, n_games, what=f"a cell's frame of {game_obj.name}")

    option_names = list(columns[0])
    varying = [name for name in option_names if name in option_grid or len({repr(c[name]) for c in columns}) > 1]
    param_columns = list(dict.fromkeys(f"param_{name}" for policy in policies for name in params[policy]))
    keys = ["policy", "players"] + varying + param_columns
    rows, heads, runs = [], [], []
    config = {"kind": "simulate", "game": game_obj.name, "n_games": n_games, "seed": seed}
    with _grid_dir(out, "simulate.json", config, "simulate") as directory, \
            _grid_client(backend, workers, scheduler, len(cells)) as address:
        for (policy, p, options), option_columns in zip(cells, columns):
            run = dict(players=p, policy=policy, options=options, params=params[policy] or None, seed=seed,
                       n_jobs=n_jobs, backend=backend, chunk_size=chunk_size, dask_address=address,
                       out=None if directory is None else _cell_dir(directory, policy, p, options, params[policy]))
            result = runner.simulate(game_obj, n_games, progress=False if no_progress else None,
                                     summary_only=summary_only, **run)
            if summary_only:
                row = result.summarize(game_obj.measures).to_dict("records")[0]
            else:
                row = stats.summarize(result, measures=game_obj.measures).to_dict("records")[0]
                heads.append(result.head(1))
                runs.append(run)
            del result
            values = {"policy": policy, "players": p, **option_columns,
                      **{name: params[policy].get(name[len("param_"):], math.nan) for name in param_columns}}
            rows.append({**{key: values[key] for key in keys}, **row})
        summary = _grid_summary(rows, keys)
        _print_table(_grid_table(game_obj, summary, keys))
        if directory is not None:
            if not summary_only:
                frames = (runner.simulate(game_obj, n_games, progress=False, **run) for run in runs)
                written = _write_grid_frame(os.path.join(directory, "games.parquet"), heads, frames)
            write_via(os.path.join(directory, "summary.csv"), lambda tmp: summary.to_csv(tmp, index=False))
            if summary_only:
                click.echo(f"wrote {os.path.join(directory, 'summary.csv')}", err=True)
            else:
                click.echo(f"wrote {written:,} games to {os.path.join(directory, 'games.parquet')}", err=True)


def _grid_table(game, summary, keys: list[str]):
    from rich.table import Table
    table = Table(*keys, "games", "win rate % [95% CI]", *_measure_headers(game))
    for column in table.columns[len(keys):]:
        column.justify = "right"
    for row in summary.to_dict("records"):
        cells = [_key_text(row[key]) for key in keys]
        rate = f"{_percent(row['win_rate'])} [{_percent(row['ci_low'])}, {_percent(row['ci_high'])}]"
        table.add_row(*cells, f"{row['n']:,}", rate, *_measure_cells(game, row))
    return table


def _key_text(value: Any) -> str:
    return str(value)


@cli.command("replay")
@click.argument("game")
@click.option("--seed", type=int, required=True)
@click.option("--index", type=int, required=True, help="The game_index of the game in its run.")
@click.option("--players", type=int, default=None, help="Player count (default: the game's).")
@click.option("--seals", "seals_text", metavar="S", help="Shorthand for --option seals=S.")
@click.option("--option", "option_texts", metavar="NAME=VALUE", multiple=True, help="A rule option. Repeatable.")
@click.option("--policy", default=None, help="The policy (default: the game's).")
@click.option("--param", "param_texts", metavar="NAME=VALUE", multiple=True, help="A policy parameter. Repeatable.")
def replay_command(game, seed, index, players, seals_text, option_texts, policy, param_texts):
    """Print the turn log of game INDEX of a run with SEED (the row simulate played)."""
    from cursedsim import runner

    game_obj = runner.resolve_game(game)
    grid = parse_options(game_obj, option_texts, seals_text)
    for name, values in grid.items():
        if len(values) != 1:
            raise CliError(f"replay plays one game: option {name!r} takes a single value, got {values}")
    policy = policy or game_obj.default_policy
    game_obj.policy(policy)
    params = parse_params(game_obj, [policy], param_texts)[policy]
    log = runner.replay(game_obj, seed, index, players=players, policy=policy,
                        options={name: values[0] for name, values in grid.items()}, params=params or None)
    click.echo(log, nl=not log.endswith("\n"))


# ---------------------------------------------------------------- research tools: compare, sweep, tune

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


def parse_sweep_params(game, policies: list[str], texts: tuple[str, ...]) -> dict[str, dict[str, list[float]]]:
    """``--param POLICY.NAME=VALUES`` (one policy) or ``--param NAME=VALUES`` (every chosen policy that has
    the parameter) as ``{policy: {name: [values]}}``."""
    grid: dict[str, dict[str, list[float]]] = {}
    for text in texts:
        key, value = _split_pair(text, "--param")
        policy, dot, name = key.rpartition(".")
        if dot:
            if policy not in policies:
                raise CliError(f"--param {key}: policy {policy!r} is not swept; swept policies: {', '.join(policies)}")
            takers = [policy]
            if name not in game.policy(policy).params:
                raise CliError(f"policy {policy!r} has no parameter {name!r}; valid parameters: "
                               f"{', '.join(game.policy(policy).params) or 'none'}")
        else:
            takers = [p for p in policies if name in game.policy(p).params]
            if not takers:
                valid = sorted({n for p in policies for n in game.policy(p).params})
                raise CliError(f"no chosen policy of {game.name} has a parameter {name!r}; "
                               f"valid parameters: {', '.join(valid) or 'none'}")
        values = parse_number_values(value, f"parameter {name!r}")
        for taker in takers:
            if name in grid.get(taker, {}):
                raise CliError(f"parameter {name!r} of policy {taker!r} is given twice")
            grid.setdefault(taker, {})[name] = values
    return grid


def _single_options(grid: dict[str, list[Any]], command: str) -> dict[str, Any]:
    for name, values in grid.items():
        if len(values) != 1:
            raise CliError(f"{command} takes one value per option: option {name!r} got {values}")
    return {name: values[0] for name, values in grid.items()}


def _pp(value: float, digits: int = 2, sign: bool = False) -> str:
    """A fraction as percentage points (``-` for NaN)."""
    if value != value:
        return "-"
    return f"{100 * value:+.{digits}f}" if sign else f"{100 * value:.{digits}f}"


def _rate_cell(row) -> str:
    return f"{_pp(row['win_rate'])} [{_pp(row['ci_low'])}, {_pp(row['ci_high'])}]"


def _p_value(p: float) -> str:
    if p != p:
        return "-"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def _print_table(table) -> None:
    """Print a rich table; off a terminal as wide as the table needs (no wrapped cells in files and pipes)."""
    console = _console()
    if not sys.stdout.isatty():
        from rich.console import Console
        needed = Console(width=1000).measure(table).maximum
        console = Console(width=max(120, min(needed, 400)))
    console.print(table)


def _progress_flag(no_progress: bool):
    return False if no_progress else None


def _varying(option_grid: dict[str, list[Any]]) -> list[str]:
    return [name for name, values in option_grid.items() if len(values) > 1]


@cli.command("compare")
@click.argument("game")
@click.option("--policy", "policies", metavar="POLICY", multiple=True,
              help="A policy to compare, e.g. baseline or smart:slack=3,multi_items=1. Repeat (two or more).")
@click.option("--players", "players_text", metavar="P", help="Player counts: 3, 1-5 or 2,4 (default: the game's).")
@click.option("--seals", "seals_text", metavar="S", help="Shorthand for --option seals=S.")
@click.option("--option", "option_texts", metavar="NAME=VALUE", multiple=True,
              help="A rule option; ranges and lists give one comparison per value. Repeatable.")
@click.option("--games", "n_games", type=int, default=100_000, show_default=True, help="Games per policy.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", "n_jobs", type=int, default=1, show_default=True, help="Worker processes (-1: all cores).")
@click.option("--detect", type=float, default=1.0, show_default=True, metavar="PP",
              help="Difference in percentage points for the 'games to detect' column (80% power, 5% level).")
@click.option("--backend", type=click.Choice(["loky", "dask", "sequential"]), default=None, help=_BACKEND_HELP)
@click.option("--scheduler", "scheduler", metavar="ADDRESS", default=None, help=_SCHEDULER_HELP)
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory: pairs.csv + policies.csv, resumable runs under cells/.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def compare_command(game, policies, players_text, seals_text, option_texts, n_games, seed, n_jobs, detect, backend,
                    scheduler, out, no_progress):
    """Compare policies of GAME on the same games (common random numbers): paired differences of win rate
    with 95% intervals, next to the unpaired intervals the same games would give."""
    import pandas as pd

    from cursedsim import runner
    from cursedsim.compare import compare, contenders

    from cursedsim.rundir import check_out

    game_obj = runner.resolve_game(game)
    n_games = runner.check_n_games(n_games)
    if n_games < 2:
        raise CliError(f"compare needs at least 2 games (paired intervals), got {n_games}")
    runner.check_seed(seed)
    workers = runner.check_n_jobs(n_jobs)
    backend = _backend(backend, scheduler)
    if len(policies) < 2:
        raise CliError(f"compare needs two or more --policy options; valid policies: {', '.join(game_obj.policies)}")
    contenders(game_obj, list(policies))   # names, parameters and distinct labels, before any game
    if not 0 < detect < 100:
        raise CliError(f"--detect takes a difference in percentage points between 0 and 100, got {detect:g}")
    players = _players(game_obj, players_text)
    option_grid = parse_options(game_obj, option_texts, seals_text)
    cells = [(p, options) for _, p, options in _grid_cells(game_obj, players, option_grid, ["-"])]
    _check_cells(cells)
    for p, options in cells:
        runner.make_options(game_obj, options)
    if out is not None:
        out = check_out(out, "--out")
    runner.check_memory(game_obj, n_games, copies=len(policies), what=f"the frames of {len(policies)} policies")

    varying = _varying(option_grid)
    keys = (["players"] if len(players) > 1 else []) + varying
    pair_frames, policy_frames = [], []
    config = {"kind": "compare grid", "game": game_obj.name, "n_games": n_games, "seed": seed}
    with _grid_dir(out, "compare.json", config, "compare") as directory, \
            _grid_client(backend, workers, scheduler, len(cells) * len(policies)) as address:
        for p, options in cells:
            cell_out = None if directory is None else _cell_dir(directory, "compare", p, options, {})
            result = compare(game_obj, list(policies), n_games, players=p, options=options, seed=seed, n_jobs=n_jobs,
                             backend=backend, out=cell_out, progress=_progress_flag(no_progress), detect=detect / 100,
                             dask_address=address)
            columns = {"players": p, **game_obj.option_columns(runner.make_options(game_obj, options), p)}
            pair_frames.append(result.pairs.assign(**columns))
            policy_frames.append(result.policies.assign(**columns))
            del result
        pairs = pd.concat(pair_frames, ignore_index=True)
        summary = pd.concat(policy_frames, ignore_index=True)
        _compare_tables(game_obj, pairs, summary, keys, n_games, seed, detect)
        if directory is not None:
            write_via(os.path.join(directory, "pairs.csv"), lambda tmp: pairs.to_csv(tmp, index=False))
            write_via(os.path.join(directory, "policies.csv"), lambda tmp: summary.to_csv(tmp, index=False))
            click.echo(f"wrote {os.path.join(directory, 'pairs.csv')} and policies.csv", err=True)


def _compare_tables(game_obj, pairs, summary, keys: list[str], n_games: int, seed: int, detect: float) -> None:
    from rich.table import Table

    table = Table(*keys, "A", "B", "A − B, pp [95% CI]", "±", "unpaired 95% CI", "p-value",
                  f"games to detect {detect:g} pp (paired / unpaired)",
                  title=f"{game_obj.name}: paired differences on {n_games:,} common games (seed {seed})")
    for column in table.columns[len(keys) + 2:]:
        column.justify = "right"
    for row in pairs.to_dict("records"):
        half = (row["ci_high"] - row["ci_low"]) / 2
        table.add_row(*[str(row[k]) for k in keys], row["a"], row["b"],
                      f"{_pp(row['diff'], 3, True)} [{_pp(row['ci_low'], 3, True)}, {_pp(row['ci_high'], 3, True)}]",
                      _pp(half, 3),
                      f"[{_pp(row['unpaired_ci_low'], 3, True)}, {_pp(row['unpaired_ci_high'], 3, True)}]",
                      _p_value(row["p_value"]),
                      f"{row['games_to_detect']:,} / {row['games_to_detect_unpaired']:,}")
    _print_table(table)
    rates = Table(*keys, "policy", "games", "win rate % [95% CI]", *_measure_headers(game_obj))
    for column in rates.columns[len(keys) + 1:]:
        column.justify = "right"
    for row in summary.to_dict("records"):
        rates.add_row(*[str(row[k]) for k in keys], row["policy"], f"{row['n']:,}", _rate_cell(row),
                      *_measure_cells(game_obj, row))
    _print_table(rates)


@cli.command("sweep")
@click.argument("game")
@click.option("--players", "players_text", metavar="P", help="Player counts: 3, 1-5 or 2,4 (default: the game's).")
@click.option("--policy", "policies", metavar="NAME", multiple=True, help="A policy; repeat for several.")
@click.option("--seals", "seals_text", metavar="S", help="Shorthand for --option seals=S (e.g. 0-8).")
@click.option("--option", "option_texts", metavar="NAME=VALUES", multiple=True,
              help="A rule option; ints take ranges a-b or lists a,b; bools true,false. Repeatable.")
@click.option("--param", "param_texts", metavar="[POLICY.]NAME=VALUES", multiple=True,
              help="Policy parameter values, e.g. smart.slack=1,2,3 or slack=0-4 (every chosen policy having it).")
@click.option("--games", "n_games", type=int, default=100_000, show_default=True, help="Games per cell.")
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed for every cell.")
@click.option("--jobs", "n_jobs", type=int, default=1, show_default=True, help="Worker processes (-1: all cores).")
@click.option("--backend", type=click.Choice(["loky", "dask", "sequential"]), default=None, help=_BACKEND_HELP)
@click.option("--scheduler", "scheduler", metavar="ADDRESS", default=None, help=_SCHEDULER_HELP)
@click.option("--summary-only", is_flag=True,
              help="Stream every cell (bounded memory, for huge cells); the cells keep no games.parquet.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory: sweep.csv, resumable runs under cells/ (rerun to resume).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def sweep_command(game, players_text, policies, seals_text, option_texts, param_texts, n_games, seed, n_jobs, backend,
                  scheduler, summary_only, out, no_progress):
    """Sweep GAME over player counts, policies, rule options and policy parameters on common random
    numbers; one table row (and one sweep.csv row) per cell."""
    from rich.table import Table

    from cursedsim import runner
    from cursedsim.sweep import sweep

    game_obj = runner.resolve_game(game)
    runner.check_n_games(n_games)
    backend = _backend(backend, scheduler)
    players = None if players_text is None else _players(game_obj, players_text)
    policies = list(dict.fromkeys(policies)) or [game_obj.default_policy]
    for policy in policies:
        game_obj.policy(policy)
    option_grid = parse_options(game_obj, option_texts, seals_text)
    params = parse_sweep_params(game_obj, policies, param_texts)
    if out is not None:
        from cursedsim.rundir import check_out
        out = check_out(out, "--out")
    table_frame = sweep(game_obj, players=players, policies=policies, options=option_grid, params=params,
                        n_games=n_games, seed=seed, n_jobs=n_jobs, backend=backend, out=out,
                        progress=_progress_flag(no_progress), dask_address=scheduler, summary_only=summary_only)

    option_names = list(game_obj.option_columns(game_obj.make_options(None), game_obj.min_players))
    varying = [name for name in option_names if name in option_grid or table_frame[name].nunique(dropna=False) > 1]
    param_columns = [c for c in table_frame.columns if c.startswith("param_")]
    keys = ["policy", "players"] + varying + param_columns
    table = Table(*keys, "games", "win rate % [95% CI]", *_measure_headers(game_obj),
                  title=f"{game_obj.name} sweep: {len(table_frame)} cells, seed {seed}")
    for column in table.columns[len(keys):]:
        column.justify = "right"
    for row in table_frame.to_dict("records"):
        cells = [("-" if row[k] != row[k] else f"{row[k]:g}") if k.startswith("param_") else str(row[k]) for k in keys]
        table.add_row(*cells, f"{row['n']:,}", _rate_cell(row), *_measure_cells(game_obj, row))
    _print_table(table)
    if out is not None:
        click.echo(f"wrote {os.path.join(out, 'sweep.csv')}", err=True)


def parse_space_texts(texts: tuple[str, ...]) -> dict[str, Any]:
    """``--space NAME=LOW:HIGH`` (a range; integers when both ends are) or ``--space NAME=A,B,C`` (choices)."""
    space: dict[str, Any] = {}
    for text in texts:
        name, value = _split_pair(text, "--space")
        low, colon, high = value.partition(":")
        try:
            if colon:
                ends = []
                for end in (low, high):
                    number = float(end)
                    if not math.isfinite(number):
                        raise ValueError(end)
                    ends.append(int(end) if re.fullmatch(r"\s*-?\d+\s*", end) else number)
                space[name] = tuple(ends)
            else:
                space[name] = [float(v) for v in value.split(",")]
                if not all(math.isfinite(v) for v in space[name]):
                    raise ValueError(value)
        except ValueError:
            raise CliError(f"--space takes NAME=LOW:HIGH or NAME=A,B,C with finite numbers, got {text!r}") from None
    return space


@cli.command("tune")
@click.argument("game")
@click.option("--policy", default=None, help="The policy family to tune (default: the first one with parameters).")
@click.option("--players", "players_text", metavar="P", help="Player counts, each tuned on its own: 3, 1-5 or 2,4.")
@click.option("--seals", "seals_text", metavar="S", help="Shorthand for --option seals=S (one value).")
@click.option("--option", "option_texts", metavar="NAME=VALUE", multiple=True, help="A rule option. Repeatable.")
@click.option("--space", "space_texts", metavar="NAME=LOW:HIGH|A,B", multiple=True,
              help="Search range (or choices) of a parameter, replacing its default range. Repeatable.")
@click.option("--candidates", type=int, default=32, show_default=True, help="Parameter sets entering the search.")
@click.option("--games", "start_games", type=int, default=20_000, show_default=True,
              help="Games per candidate in the first round (doubled every round).")
@click.option("--final-games", type=int, default=200_000, show_default=True, help="Held-out games per policy.")
@click.option("--reference", default="baseline", show_default=True, help="The policy the tuned one must beat.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search (held-out seed derived).")
@click.option("--holdout-seed", type=int, default=None, help="Seed of the held-out games (default: derived).")
@click.option("--jobs", "n_jobs", type=int, default=1, show_default=True, help="Worker processes (-1: all cores).")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="JSON file: tuned parameters and results.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def tune_command(game, policy, players_text, seals_text, option_texts, space_texts, candidates, start_games,
                 final_games, reference, seed, holdout_seed, n_jobs, out, no_progress):
    """Tune a policy family of GAME by successive halving on common random numbers, then check the winner
    against --reference on held-out games; one search per player count."""
    from rich.table import Table

    from cursedsim import runner
    from cursedsim.rundir import check_output_file
    from cursedsim.tune import DEFAULT_SPACES, check_settings, parse_space, tune, tune_summary

    game_obj = runner.resolve_game(game)
    if policy is None:
        policy = next((name for name, spec in game_obj.policies.items() if spec.params), None)
        if policy is None:
            raise CliError(f"{game_obj.name} has no policy with parameters to tune")
    spec = game_obj.policy(policy)
    players = _players(game_obj, players_text)
    options = _single_options(parse_options(game_obj, option_texts, seals_text), "tune")
    runner.make_options(game_obj, options)
    space = None
    if space_texts:
        space = dict(DEFAULT_SPACES.get((game_obj.name, spec.name), {}))
        space.update(parse_space_texts(space_texts))
    parse_space(game_obj, spec.name, space)   # every setting checked before the first search
    check_settings(game_obj, spec.name, candidates=candidates, start_games=start_games, final_games=final_games,
                   reference=reference, seed=seed, holdout_seed=holdout_seed, n_jobs=n_jobs)
    if out is not None:   # before the search, so that its result is never lost
        out = check_output_file(out, "--out")
    results = []
    for p in players:
        results.append(tune(game_obj, spec.name, players=p, options=options, space=space, candidates=candidates,
                            start_games=start_games, final_games=final_games, reference=reference, seed=seed,
                            holdout_seed=holdout_seed, n_jobs=n_jobs, progress=_progress_flag(no_progress)))

    first = results[0]
    table = Table("players", "tuned parameters (changed)", "tuned % [95% CI]", f"{first.reference} % [95% CI]",
                  f"tuned − {first.reference}, pp [95% CI]", "tuned − default, pp [95% CI]",
                  title=f"{game_obj.name}: {spec.name} tuned per player count, on held-out games "
                        f"({final_games:,} per policy)")
    for column in table.columns[2:]:
        column.justify = "right"
    for result in results:
        holdout = {row["role"]: row for row in result.holdout.to_dict("records")}
        changed = {k: v for k, v in result.params.items() if v != spec.params.get(k)}
        d, gap = result.difference, result.versus_default
        table.add_row(str(result.players),
                      ", ".join(f"{k}={v:g}" for k, v in changed.items()) or "(the defaults)",
                      _rate_cell(holdout["tuned"]), _rate_cell(holdout["reference"]),
                      f"{_pp(d['diff'], 2, True)} [{_pp(d['ci_low'], 2, True)}, {_pp(d['ci_high'], 2, True)}]",
                      "-" if gap is None else
                      f"{_pp(gap['diff'], 2, True)} [{_pp(gap['ci_low'], 2, True)}, {_pp(gap['ci_high'], 2, True)}]")
    _print_table(table)
    if out is not None:
        _write_result(out, tune_summary(results))
        click.echo(f"wrote {out}", err=True)


def _write_result(path: str, document: dict[str, Any]) -> None:
    """``document`` as JSON in ``path``; if that fails after all (a disk that filled up), in a file of
    the temporary folder, named in the error, so that a long search is never lost."""
    import json
    import tempfile

    from cursedsim.rundir import dump_json
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        write_via(os.path.abspath(path), lambda tmp: dump_json(document, tmp))
    except OSError as error:
        fd, rescue = tempfile.mkstemp(prefix="cursedsim-tune-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(document, f, indent=2)
        raise CliError(f"cannot write {path} ({error.strerror or error}); the result is in {rescue}") from None


# report command registered below
from cursedsim.report.command import report_command; main.add_command(report_command)  # noqa: E402,E702


if __name__ == "__main__":
    main()
