"""Compare contenders on common random numbers: policies, rule option values or both, every one playing
the same (seed, game index) deals, so the difference between two is measured game by game (paired),
with a much narrower interval than independent runs of the same size would give. Differences are
"X - reference" (or every pair), with Holm-adjusted p-values over the comparisons of one result.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim import precision as precise
from cursedsim import research, resolve, runner
from cursedsim.contenders import Contender, contenders, find_reference, lineup
from cursedsim.errors import CompareError, RunError, shorten
from cursedsim.games import Game
from cursedsim.runner import resolve_game, simulate
from cursedsim.sides import resolve_varying, summary_args
from cursedsim.stats import holm, paired_difference, paired_sample_size, summarize, unpaired_difference

#: What ``pairs=`` may ask for: every contender against the reference, or every pair.
PAIR_MODES = ("reference", "all")


@dataclass
class Comparison:
    """The result of ``compare``: ``pairs`` (one row per comparison a - b: each contender minus the
    reference, or every pair), ``policies`` (per-contender summary; its ``policy`` column holds the
    contender's label), the per-game ``frames`` by label, the ``contenders``, the ``reference``'s label
    (None for every pair) and the ``settings`` every run used."""

    pairs: pd.DataFrame
    policies: pd.DataFrame
    frames: dict[str, pd.DataFrame]
    contenders: list[Contender] = field(default_factory=list)
    reference: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Comparison of {', '.join(self.frames)}\n{self.pairs.to_string(index=False)}"


def pair_row(label_a: str, label_b: str, a: pd.DataFrame, b: pd.DataFrame, *, has_score: bool,
             detect: float, alpha: float, power: float, score: str = "score", win: str = "win") -> dict[str, Any]:
    """Paired and unpaired differences of win rate (a - b; the boolean column ``win``: a game of sides
    gives the varied side's), and (``has_score``) the paired difference of the column ``score`` over the
    games both policies won: ``both_won``, ``<score>_diff``, ``<score>_ci_low``, ``<score>_ci_high``."""
    win_a = a[win].to_numpy(dtype=np.float64)
    win_b = b[win].to_numpy(dtype=np.float64)
    paired = paired_difference(win_a, win_b, alpha)
    unpaired = unpaired_difference(win_a, win_b, alpha)
    row = {
        "a": label_a, "b": label_b, "n": paired["n"],
        "win_rate_a": win_a.mean(), "win_rate_b": win_b.mean(),
        "diff": paired["diff"], "se": paired["se"], "ci_low": paired["ci_low"], "ci_high": paired["ci_high"],
        "p_value": paired["p_value"],
        "unpaired_se": unpaired["se"], "unpaired_ci_low": unpaired["ci_low"],
        "unpaired_ci_high": unpaired["ci_high"],
        "detect": detect,
        "games_to_detect": paired_sample_size(paired["sd"], detect, alpha, power),
        "games_to_detect_unpaired": paired_sample_size(
            float(np.sqrt(win_a.var(ddof=1) + win_b.var(ddof=1))), detect, alpha, power),
    }
    if has_score:
        both = (a[win].to_numpy() & b[win].to_numpy())
        row["both_won"] = int(both.sum())
        if both.sum() >= 2:
            diff = paired_difference(a[score].to_numpy()[both], b[score].to_numpy()[both], alpha)
            row.update({f"{score}_diff": diff["diff"], f"{score}_ci_low": diff["ci_low"],
                        f"{score}_ci_high": diff["ci_high"]})
        else:
            row.update({f"{score}_diff": np.nan, f"{score}_ci_low": np.nan, f"{score}_ci_high": np.nan})
    return row


def compare(game: str | Game, policies: Sequence[Any] | None, n_games: int | None = None, *,
            players: int | None = None, options: Any = None, vary: Mapping[str, Any] | None = None,
            reference: Any = None, pairs: str = "reference", seed: int = 0, n_jobs: int = 1, backend: str = "loky",
            chunk_size: int | None = None, out: str | None = None, progress: bool | None = None,
            detect: float = 0.01, alpha: float = 0.05, power: float = 0.8, dask_address: Any = None,
            precision: float | None = None, max_games: int = precise.MAX_GAMES, side: str | None = None,
            others: Any = None) -> Comparison:
    """Play every contender on the same games (seed, indices 0..n_games-1) and compare each with the
    reference (or, ``pairs="all"``, every pair).

    Contenders are every policy (None: the game's default) crossed with every combination of the
    values in ``vary`` (``{"starting_item": ["random", "scroll"]}``), on top of the fixed ``options``;
    labels say what differs (``smart / seals=5``). ``reference``: a label, or a policy or option value
    that names exactly one contender (``"scroll"``, ``"starting_item=scroll"``, ``"baseline / 5"``);
    None is the first contender. Every row of ``pairs`` is a - b with a the contender and b the
    reference: win rates, the paired difference with its standard error, (1 - alpha) interval and
    p-value, ``p_holm`` (Holm-adjusted over every row of this result), the unpaired interval the same
    games would give, the games a paired (and an unpaired) comparison needs to detect a difference of
    ``detect`` with ``power``, and, for games with a measure averaged over won games (the first of
    ``game.measures``: Verflucht!'s score), its paired difference over the games both won
    (``both_won``, ``<column>_diff``, ``<column>_ci_low``, ``<column>_ci_high``). ``policies`` has
    ``stats.summarize`` of every contender's games with the game's measures (and the varied options'
    values). ``out``: a directory (marked by compare.json, locked while in use) holding one resumable
    run per contender. ``dask_address``: as ``simulate``'s (with ``backend="dask"``).

    precision: instead of ``n_games``, play batches of games (every contender the same ones) until
    every paired difference's interval has at most this half-width (a fraction: 0.001 is ±0.1 points),
    or until ``max_games`` (then with a warning); the schedule is ``precision.py``'s (the next total is
    the games so far times (half-width / precision)^2, on the same grid). ``settings`` then holds the
    games it took (``n_games``), ``precision``, ``max_games`` and ``reached``; with ``out`` every
    contender's directory holds one resumable run per batch.

    A game of sides: the contenders are policies of ``side`` (None: the one side ``others`` leaves out),
    and ``others`` gives the other sides' policies, fixed for every contender (``{"town": "coven"}``,
    ``"coven:risk=0.3"`` or ``{"policy": ..., "params": ...}`` per side; a side left out plays its
    default; ``sides.resolve_varying``). Differences are of ``side``'s win rate; ``policies`` has every
    side's (``<side>_win_rate``, ``<side>_ci_low``, ``<side>_ci_high``); ``settings`` says which side
    varied and what the others played (``side``, ``fixed``, ``fixed_params``).
    """
    game = resolve_game(game)
    players = runner.resolve_players(game, players)
    base = runner.make_options(game, options)
    fixed = options if isinstance(options, Mapping) else {}
    varying = resolve_varying(game, side, others)
    named, grid, sides = lineup(game, policies, vary, fixed, varying.side)
    if pairs not in PAIR_MODES:
        raise CompareError(f"pairs must be one of {', '.join(PAIR_MODES)}, got {shorten(pairs)}")
    if pairs == "all" and reference is not None:
        raise CompareError("pairs='all' compares every pair and takes no reference; use pairs='reference'")
    ref = find_reference(sides, reference) if pairs == "reference" else None
    base_fields = runner._options_dict(game, base, players)   # the dataclass's fields (seals None stays None)
    played = {side.label: runner.make_options(game, {**base_fields, **side.options}) for side in sides}
    n_games, precision, max_games = precise.check_games_or_precision(
        n_games, precision, max_games, "per contender", "of every paired difference")
    execution = research.check_execution(seed, n_jobs, backend, chunk_size, progress, dask_address)
    seed = execution.seed
    for name, value, low, high in (("detect", detect, 0, 1), ("alpha", alpha, 1e-12, 0.5), ("power", power, 0.01, 1)):
        if not resolve.is_number(value) or not low <= value < high or value == 0:
            raise RunError(f"{name} must be a number in [{low:g}, {high:g}) above 0, got {shorten(value)}")
    if (n_games if precision is None else max_games) < 2:
        raise RunError(f"compare needs at least 2 games (paired intervals), got "
                       f"{n_games if precision is None else f'max_games {max_games}'}")
    out = research.check_out(out)
    if out is not None:
        _check_dir_names(sides)
    if precision is None:   # with precision: before every batch
        runner.check_memory(game, n_games, copies=len(sides), what=f"the frames of {len(sides)} contenders")
    config = {"kind": "compare", "game": game.name, "n_games": n_games, "seed": seed, "players": players,
              "options": runner._json_value(base_fields), **runner._json_value(varying.settings())}
    same = tuple(config) + (() if precision is None else ("precision",))
    if precision is not None:
        config.update(precision=precision, max_games=max_games)
    directory = research.directory(out, marker=COMPARE_FILE, config=config, kind="compare", same=same,
                                   adopt=_adopt_compare_dir)
    score = next((measure.column for measure in game.measures if measure.won_only), None)
    compared = list(itertools.combinations(sides, 2) if ref is None else
                    [(side, ref) for side in sides if side is not ref])
    frames: dict[str, pd.DataFrame] = {}
    result: dict[str, pd.DataFrame] = {}

    def play(start: int, stop: int) -> tuple[float, float]:
        """Every contender plays games start..stop-1; (widest paired half-width, games it needs)."""
        if precision is not None:
            runner.check_memory(game, stop, copies=len(sides), what=f"the frames of {len(sides)} contenders "
                                                                   f"after {stop:,} games")
        for side in sides:
            side_out = None if out is None else os.path.join(out, _dir_name(side.label))
            part = simulate(
                game, stop - start, players=players, policy=varying.policy(side.policy),
                params=varying.params(side.params),
                options=played[side.label], seed=seed, n_jobs=n_jobs, backend=execution.backend,
                chunk_size=chunk_size,
                out=side_out if precision is None else precise.batch_dir(side_out, start, stop),
                progress=execution.progress, dask_address=execution.dask_address, first_game=start)
            frames[side.label] = part if start == 0 else runner.concat_frames([frames[side.label], part])
        table = pd.DataFrame([pair_row(a.label, b.label, frames[a.label], frames[b.label], has_score=score is not None,
                                       score=score or "score", detect=detect, alpha=alpha, power=power,
                                       win=varying.win)
                              for a, b in compared])
        result["table"] = table
        half = float(((table["ci_high"] - table["ci_low"]) / 2).max())
        return half, stop * (half / precision) ** 2 if precision else 0.0

    reached = None
    with directory:
        if precision is None:
            play(0, n_games)
        else:
            label = f"compare {game.name} p={players}"
            first = precise.first_total(precision, max_games, precise.paired_games(1.0, precision))
            batches = precise.play_batches(play, precision, max_games, first, label,
                                           precise.status_printer(label, precision, execution.progress))
            n_games, reached = batches[-1].stop, batches[-1].half_width <= precision
    table = result["table"]
    table.insert(table.columns.get_loc("p_value") + 1, "p_holm", holm(table["p_value"]))
    summary = pd.concat([summarize(frames[side.label], measures=game.measures, **summary_args(game, varying.side))
                         .assign(policy=side.label, **side.options) for side in sides], ignore_index=True)
    first = ["policy", *grid]
    summary = summary[first + [c for c in summary.columns if c not in first]]
    settings = {"game": game.name, "players": players, "n_games": n_games, "seed": seed,
                "options": {name: value for name, value in game.option_columns(base, players).items()
                            if name not in grid}, "vary": grid,
                "policies": [policy.label for policy in named], "pairs": pairs,
                "reference": None if ref is None else ref.label, "detect": detect, "alpha": alpha, "power": power,
                **varying.settings()}
    if precision is not None:
        settings.update(precision=precision, max_games=max_games, reached=reached)
    return Comparison(table, summary, frames, sides, settings["reference"], settings)


def changed_options(game: Game, options: Any, players: int) -> dict[str, Any]:
    """The options whose value (as the frame's option columns give it at ``players``) differs from the
    rulebook's defaults."""
    played = game.option_columns(runner.make_options(game, options), players)
    default = game.option_columns(game.make_options(None), players)
    return {name: value for name, value in played.items() if default.get(name) != value}


#: The marker file of a compare directory.
COMPARE_FILE = "compare.json"


def _adopt_compare_dir(directory: str, entries: list[str]) -> bool:
    """Whether a directory without compare.json holds only run directories (a compare directory of an
    older cursedsim)."""
    return all(os.path.isfile(os.path.join(directory, name, runner.RUN_FILE)) for name in entries)


def _dir_name(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_=." else "_" for ch in label)


def _check_dir_names(sides: list[Contender]) -> None:
    """Every contender gets its own run directory (labels that differ only in characters a folder name
    cannot hold would share one)."""
    names = [_dir_name(side.label) for side in sides]
    for i, name in enumerate(names):
        if name in names[:i]:
            other = sides[names.index(name)].label
            raise CompareError(f"contenders {other!r} and {sides[i].label!r} would share the run directory "
                               f"{name!r} under out; give them labels that differ in letters or digits")
