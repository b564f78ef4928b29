"""Compare policies on common random numbers: every policy plays the same (seed, game index) deals,
so the difference between two policies is measured game by game (paired), with a much narrower
interval than independent runs of the same size would give.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cursedsim import rundir, runner
from cursedsim.errors import RunError, UnknownPolicyError, shorten
from cursedsim.games import Game
from cursedsim.runner import resolve_game, resolve_policy, simulate
from cursedsim.stats import paired_difference, paired_sample_size, summarize, unpaired_difference


@dataclass(frozen=True)
class Contender:
    """One side of a comparison: a label, a policy name and parameter overrides."""

    label: str
    policy: str
    params: Mapping[str, float]


def contenders(game: Game, policies: Sequence[Any]) -> list[Contender]:
    """Policies given as names, ``"name:param=value,..."`` strings or dicts with ``policy``, optional
    ``params`` and ``label``; labels must be distinct."""
    valid = f"valid policies: {', '.join(game.policies)}"
    if isinstance(policies, (str, bytes, Mapping)) or not isinstance(policies, Sequence):
        raise UnknownPolicyError(f"policies must be a list of two or more policies (names, 'name:param=value' or "
                                 f"dicts), got {shorten(policies)}; {valid}")
    result = []
    for item in policies:
        if isinstance(item, Contender):
            entry = item
        elif isinstance(item, Mapping):
            unknown = [key for key in item if key not in ("policy", "params", "label")]
            if "policy" not in item or unknown:
                raise UnknownPolicyError(f"a policy given as a dict takes the keys policy, params and label, got "
                                         f"{shorten(item)}; {valid}")
            params = item.get("params") or {}
            if not isinstance(params, Mapping):
                raise UnknownPolicyError(f"params of policy {shorten(item['policy'])} must map parameter names to "
                                         f"numbers, got {shorten(params)}")
            name = item["policy"]
            if not isinstance(name, str):
                raise UnknownPolicyError(f"unknown policy {shorten(name)}; {valid}")
            label = item.get("label") or (name + _param_text(params))
            if not isinstance(label, str):
                raise UnknownPolicyError(f"the label of policy {name!r} must be a string, got {shorten(label)}")
            entry = Contender(label, name, dict(params))
        elif isinstance(item, str):
            name, colon, rest = item.partition(":")
            params = {}
            if colon and not rest.strip():
                raise UnknownPolicyError(f"policy {item!r} has a ':' but no parameters; use NAME or "
                                         "NAME:param=value,...")
            for part in rest.split(",") if colon else ():
                key, sep, value = part.partition("=")
                if not sep or not key.strip():
                    raise UnknownPolicyError(f"policy parameter {part!r} in {item!r} is not NAME=VALUE")
                try:
                    params[key.strip()] = float(value)
                except ValueError:
                    raise UnknownPolicyError(f"parameter {key.strip()!r} in {item!r} takes a number, "
                                             f"got {value.strip()!r}") from None
            entry = Contender(item, name.strip(), params)
        else:
            raise UnknownPolicyError(f"a policy to compare must be a name or a dict, got {shorten(item)}; {valid}")
        resolve_policy(game, entry.policy, entry.params)   # the name, parameter names and finite values
        result.append(entry)
    labels = [c.label for c in result]
    if len(result) < 2 or len(set(labels)) != len(labels):
        raise UnknownPolicyError(f"compare needs two or more distinct policies, got {labels}; {valid}")
    return result


def _param_text(params: Mapping[str, float]) -> str:
    return (":" + ",".join(f"{k}={v:g}" for k, v in params.items())) if params else ""


@dataclass
class Comparison:
    """The result of ``compare``: ``pairs`` (one row per pair of policies), ``policies`` (per-policy
    summary) and the per-game ``frames`` by label."""

    pairs: pd.DataFrame
    policies: pd.DataFrame
    frames: dict[str, pd.DataFrame]

    def __repr__(self) -> str:
        return f"Comparison of {', '.join(self.frames)}\n{self.pairs.to_string(index=False)}"


def pair_row(label_a: str, label_b: str, a: pd.DataFrame, b: pd.DataFrame, *, has_score: bool,
             detect: float, alpha: float, power: float, score: str = "score") -> dict[str, Any]:
    """Paired and unpaired differences of win rate (a - b), and (``has_score``) the paired difference
    of the column ``score`` over the games both policies won: ``both_won``, ``<score>_diff``,
    ``<score>_ci_low``, ``<score>_ci_high``."""
    win_a = a["win"].to_numpy(dtype=np.float64)
    win_b = b["win"].to_numpy(dtype=np.float64)
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
        both = (a["win"].to_numpy() & b["win"].to_numpy())
        row["both_won"] = int(both.sum())
        if both.sum() >= 2:
            diff = paired_difference(a[score].to_numpy()[both], b[score].to_numpy()[both], alpha)
            row.update({f"{score}_diff": diff["diff"], f"{score}_ci_low": diff["ci_low"],
                        f"{score}_ci_high": diff["ci_high"]})
        else:
            row.update({f"{score}_diff": np.nan, f"{score}_ci_low": np.nan, f"{score}_ci_high": np.nan})
    return row


def compare(game: str | Game, policies: Sequence[Any], n_games: int, *, players: int | None = None,
            options: Any = None, seed: int = 0, n_jobs: int = 1, backend: str = "loky",
            chunk_size: int | None = None, out: str | None = None, progress: bool | None = None,
            detect: float = 0.01, alpha: float = 0.05, power: float = 0.8, dask_address: Any = None) -> Comparison:
    """Play every policy on the same games (seed, indices 0..n_games-1) and compare them in pairs.

    ``pairs`` has, per pair (a, b): win rates, the paired difference a - b with its standard error,
    (1 - alpha) interval and p-value, the unpaired interval the same games would give, the games a
    paired (and an unpaired) comparison needs to detect a difference of ``detect`` with ``power``,
    and, for games with a measure averaged over won games (the first of ``game.measures``: Verflucht!'s
    score), its paired difference over the games both won (``both_won``, ``<column>_diff``,
    ``<column>_ci_low``, ``<column>_ci_high``: ``score_diff`` etc. for Verflucht!). ``policies`` has ``stats.summarize`` of every policy's games with
    the game's measures. ``out``: a directory (marked by compare.json, locked while in use) holding one
    resumable run per policy. ``dask_address``: as ``simulate``'s (with ``backend="dask"``).
    """
    game = resolve_game(game)
    sides = contenders(game, policies)
    n_games = runner.check_n_games(n_games)
    seed = runner.check_seed(seed)
    runner.check_n_jobs(n_jobs)
    backend = runner.check_backend(backend)
    runner.check_chunk_size(chunk_size)
    dask_address = runner.check_dask_address(dask_address, backend)
    players = runner.resolve_players(game, players)
    options = runner.make_options(game, options)
    progress = runner.check_progress(progress)
    for name, value, low, high in (("detect", detect, 0, 1), ("alpha", alpha, 1e-12, 0.5), ("power", power, 0.01, 1)):
        if not runner._is_number(value) or not low <= value < high or value == 0:
            raise RunError(f"{name} must be a number in [{low:g}, {high:g}) above 0, got {shorten(value)}")
    if n_games < 2:
        raise RunError(f"compare needs at least 2 games (paired intervals), got {n_games}")
    if out is not None:
        out = rundir.check_out(out)
    runner.check_memory(game, n_games, copies=len(sides), what=f"the frames of {len(sides)} policies")
    config = {"kind": "compare", "game": game.name, "n_games": n_games, "seed": seed, "players": players,
              "options": runner._json_value(runner._options_dict(game, options, players))}
    directory = contextlib.nullcontext() if out is None else rundir.owned_directory(
        out, marker=COMPARE_FILE, config=config, kind="compare", same=tuple(config), adopt=_adopt_compare_dir)
    frames = {}
    with directory:
        for side in sides:
            frames[side.label] = simulate(
                game, n_games, players=players, policy=side.policy, params=side.params or None,
                options=options, seed=seed, n_jobs=n_jobs, backend=backend, chunk_size=chunk_size,
                out=None if out is None else os.path.join(out, _dir_name(side.label)), progress=progress,
                dask_address=dask_address)
    score = next((measure.column for measure in game.measures if measure.won_only), None)
    rows = [pair_row(a.label, b.label, frames[a.label], frames[b.label], has_score=score is not None,
                     score=score or "score", detect=detect, alpha=alpha, power=power)
            for a, b in itertools.combinations(sides, 2)]
    summary = pd.concat([summarize(frame, measures=game.measures).assign(policy=label)
                         for label, frame in frames.items()], ignore_index=True)
    summary = summary[["policy"] + [c for c in summary.columns if c != "policy"]]
    return Comparison(pd.DataFrame(rows), summary, frames)


#: The marker file of a compare directory.
COMPARE_FILE = "compare.json"


def _adopt_compare_dir(directory: str, entries: list[str]) -> bool:
    """Whether a directory without compare.json holds only run directories (a compare directory of an
    older cursedsim)."""
    return all(os.path.isfile(os.path.join(directory, name, runner.RUN_FILE)) for name in entries)


def _dir_name(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_=." else "_" for ch in label)
