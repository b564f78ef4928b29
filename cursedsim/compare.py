"""Compare policies on common random numbers: every policy plays the same (seed, game index) deals,
so the difference between two policies is measured game by game (paired), with a much narrower
interval than independent runs of the same size would give.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.errors import UnknownPolicyError
from cursedsim.games import Game
from cursedsim.runner import resolve_game, simulate
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
    result = []
    for item in policies:
        if isinstance(item, Contender):
            entry = item
        elif isinstance(item, Mapping):
            params = dict(item.get("params") or {})
            name = item["policy"]
            label = item.get("label") or (name + _param_text(params))
            entry = Contender(label, name, params)
        elif isinstance(item, str):
            name, _, rest = item.partition(":")
            params = {}
            for part in filter(None, rest.split(",")):
                key, sep, value = part.partition("=")
                if not sep:
                    raise UnknownPolicyError(f"policy parameter {part!r} in {item!r} is not NAME=VALUE")
                params[key.strip()] = float(value)
            entry = Contender(item, name.strip(), params)
        else:
            raise UnknownPolicyError(f"a policy to compare must be a name or a dict, got {item!r}")
        game.policy(entry.policy).param_vector(entry.params)  # validates name and parameters
        result.append(entry)
    labels = [c.label for c in result]
    if len(result) < 2 or len(set(labels)) != len(labels):
        raise UnknownPolicyError(f"compare needs two or more distinct policies, got {labels}; valid policies: "
                                 f"{', '.join(game.policies)}")
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
            detect: float = 0.01, alpha: float = 0.05, power: float = 0.8) -> Comparison:
    """Play every policy on the same games (seed, indices 0..n_games-1) and compare them in pairs.

    ``pairs`` has, per pair (a, b): win rates, the paired difference a - b with its standard error,
    (1 - alpha) interval and p-value, the unpaired interval the same games would give, the games a
    paired (and an unpaired) comparison needs to detect a difference of ``detect`` with ``power``,
    and, for games with a measure averaged over won games (the first of ``game.measures``: Verflucht!'s
    score), its paired difference over the games both won (``both_won``, ``<column>_diff``,
    ``<column>_ci_low``, ``<column>_ci_high``: ``score_diff`` etc. for Verflucht!). ``policies`` has ``stats.summarize`` of every policy's games with
    the game's measures. ``out``: a directory holding one resumable run per policy.
    """
    game = resolve_game(game)
    sides = contenders(game, policies)
    frames = {}
    for side in sides:
        frames[side.label] = simulate(
            game, n_games, players=players, policy=side.policy, params=side.params or None,
            options=options, seed=seed, n_jobs=n_jobs, backend=backend, chunk_size=chunk_size,
            out=None if out is None else f"{out}/{_dir_name(side.label)}", progress=progress)
    score = next((measure.column for measure in game.measures if measure.won_only), None)
    rows = [pair_row(a.label, b.label, frames[a.label], frames[b.label], has_score=score is not None,
                     score=score or "score", detect=detect, alpha=alpha, power=power)
            for a, b in itertools.combinations(sides, 2)]
    summary = pd.concat([summarize(frame, measures=game.measures).assign(policy=label)
                         for label, frame in frames.items()], ignore_index=True)
    summary = summary[["policy"] + [c for c in summary.columns if c != "policy"]]
    return Comparison(pd.DataFrame(rows), summary, frames)


def _dir_name(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_=." else "_" for ch in label)
