"""Targets, the inverse question: which value of an integer rule option (or of a policy parameter) gives
the win rate closest to a target, per player count ("how many seals for 15% at 3 players?").

Every candidate value plays the same games (common random numbers). Games are added in rounds of a fixed
schedule, only to the candidates still undecided (``simulate(first_game=...)``: earlier games are never
replayed); a candidate is dropped once it is clearly farther from the target than the current best, and
the search stops when one candidate is left, when those left are as good as each other within a
tolerance, or at the last round. The method is written down in docs/architecture.md ("target").
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim import research, resolve, runner
from cursedsim.errors import CursedsimError, OptionError, RunError, UnknownPolicyError, shorten
from cursedsim.files import write_via
from cursedsim.games import Game
from cursedsim.contenders import check_policy
from cursedsim.sides import resolve_varying, win_columns
from cursedsim.stats import side_rates, wilson_interval
from cursedsim.sweep import Cell, cell_dir_name

#: Games every candidate plays in the first round; each later round doubles the games played so far.
START_GAMES = 10_000
#: Games per candidate after which the search stops whatever is left.
MAX_GAMES = 1_000_000
#: Candidates whose distances from the target differ by less than this are "as good" (0.25 points).
TOLERANCE = 0.0025
#: Draws of the normal approximation that give each candidate's probability of being the closest.
DRAWS = 10_000
#: The default values of an integer option are its valid range when that has at most this many values.
MAX_DEFAULT_VALUES = 101
#: Status of a candidate at the end of a search.
STATUSES = ("chosen", "tied", "open", "dropped")
#: Why a search stopped.
STOPS = ("one left", "within tolerance", "max games")
TARGET_FILE = "target.json"
CANDIDATES_FILE = "candidates.csv"
CHOSEN_FILE = "chosen.csv"
CELLS_DIR = "cells"
#: Tag of the random stream of the draws (a SeedSequence entropy word next to the seed).
TAG_DRAWS = 0x7A26E7


# ---------------------------------------------------------------- what is varied, and over which values

@dataclass(frozen=True)
class Varied:
    """What a target search varies: an integer rule option (``kind="option"``) or a numeric parameter of
    the policy played (``kind="param"``)."""

    kind: str
    name: str
    policy: str

    @property
    def label(self) -> str:
        """``seals`` for an option, ``smart.slack`` for a parameter."""
        return self.name if self.kind == "option" else f"{self.policy}.{self.name}"


def int_options(game: Game) -> list[str]:
    """The game's rule options that take integers (the ones a target can vary)."""
    return [name for name, (base, _) in runner.option_kinds(game.options_type).items() if base is int]


def resolve_varied(game: Game, vary: Any, policy: Any = None, side: str | None = None) -> Varied:
    """``vary`` as a Varied: an integer option of ``game``, ``POLICY.PARAM`` or a parameter of ``policy``
    (default: the game's policy; in a game of sides, policies of ``side``). Errors name the integer
    options and the parameters there are."""
    def resolve(name: Any) -> str:
        if name is None:
            name = game.default_policy_of(side)
        check_policy(game, name, None, side)
        return name

    policy_name = resolve(policy)
    kinds = runner.option_kinds(game.options_type)
    params = game.policy(policy_name, side).params
    valid = (f"integer options of {game.name}: {', '.join(int_options(game)) or 'none'}; parameters of "
             f"{policy_name}: {', '.join(params) or 'none'}")
    if not isinstance(vary, str) or not vary.strip():
        raise OptionError(f"vary must name an integer rule option or a policy parameter, got {shorten(vary)}; {valid}")
    vary = vary.strip()
    owner, dot, name = vary.rpartition(".")
    if dot:
        if policy is not None and owner != policy_name:
            raise UnknownPolicyError(f"vary {vary!r} names a parameter of policy {owner!r}, but the policy played is "
                                     f"{policy_name!r}; write {policy_name}.PARAM or leave out the policy")
        policy_name = resolve(owner)
        params = game.policy(policy_name, side).params
        if name not in params:
            raise UnknownPolicyError(f"policy {policy_name!r} has no parameter {name!r}; valid parameters: "
                                     f"{', '.join(params) or 'none'}")
        return Varied("param", name, policy_name)
    if vary in kinds:
        if kinds[vary][0] is not int:
            raise OptionError(f"option {vary!r} of {game.name} does not take integers; a target varies {valid}")
        return Varied("option", vary, policy_name)
    if vary in params:
        return Varied("param", vary, policy_name)
    raise OptionError(f"{game.name} has no integer option and {policy_name} no parameter {vary!r}; {valid}")


def _setting(varied: Varied, value: Any, options: Mapping[str, Any], params: Mapping[str, float]):
    """(options, params) of the candidate ``value``."""
    if varied.kind == "option":
        return {**options, varied.name: value}, dict(params)
    return dict(options), {**params, varied.name: value}


def default_values(game: Game, varied: Varied, options: Mapping[str, Any] | None = None,
                   params: Mapping[str, float] | None = None, side: str | None = None) -> list:
    """The candidates when none are given. An integer option: its valid values as the option's own
    validation bounds them (``describe.int_range``, with the fixed ``options``) when both ends are found
    and they are at most MAX_DEFAULT_VALUES (Verflucht!'s seals: 0-10); otherwise, like a policy
    parameter, the integers from 0 to twice the default (slack 2: 0-4), within the bounds found. A
    CursedsimError asks for values where neither gives a range (a default of 0 and no bounds)."""
    low = high = None
    if varied.kind == "option":
        from cursedsim.describe import int_range
        low, high = int_range(game.options_type, varied.name, options) or (None, None)
        if low is not None and high is not None and high - low + 1 <= MAX_DEFAULT_VALUES:
            return list(range(low, high + 1))
        default = next(f.default for f in dataclasses.fields(game.options_type) if f.name == varied.name)
    else:
        default = game.policy(varied.policy, side).params[varied.name]
    if not resolve.is_number(default) or round(default) == 0:
        raise CursedsimError(f"{varied.label} has no range to try by default (default {default!r}, no bounds); give "
                             f"the values, e.g. 0-10")
    ends = sorted((0, int(round(2 * default))))
    return [v for v in range(ends[0], ends[1] + 1) if (low is None or v >= low) and (high is None or v <= high)]


def check_values(game: Game, varied: Varied, values: Any, options: Mapping[str, Any],
                 params: Mapping[str, float]) -> list:
    """``values`` as a list of two or more distinct candidates, each a valid setting (ints for an option,
    finite numbers for a parameter)."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise RunError(f"values must be a list of candidate values of {varied.label}, got {shorten(values)}")
    values = list(values)
    checked: list = []
    for value in values:
        if varied.kind == "option":
            if not resolve.is_int(value):
                raise OptionError(f"option {varied.name!r} is an integer option; candidate {shorten(value)} is not an "
                                  "integer")
            runner.make_options(game, {**options, varied.name: int(value)})   # its own error names the range
            value = int(value)
        else:
            value = runner.check_finite(value, f"candidate value of {varied.label}", UnknownPolicyError)
        if value not in checked:
            checked.append(value)
    if len(checked) < 2:
        raise RunError(f"a target needs two or more distinct values of {varied.label} to choose from, got "
                       f"{shorten(values)}")
    return checked


def schedule(start_games: int, max_games: int) -> list[int]:
    """Games per candidate after each round: start_games, doubling, the last round max_games."""
    counts = [start_games]
    while counts[-1] < max_games:
        counts.append(min(2 * counts[-1], max_games))
    return counts


# ---------------------------------------------------------------- the decision statistics

@dataclass(frozen=True)
class PairSums:
    """Sufficient statistics of two candidates' wins on the same ``n`` games: each one's wins and the
    games both won."""

    n: int
    wins_a: int
    wins_b: int
    both: int

    @classmethod
    def of(cls, a: np.ndarray, b: np.ndarray) -> PairSums:
        return cls(int(a.size), int(a.sum()), int(b.sum()), int(np.count_nonzero(a & b)))

    def moments(self) -> tuple[float, float, float, float, float]:
        """Mean win rates of a and b, their per-game variances and covariance (n - 1 in the denominator)."""
        n = self.n
        ma, mb = self.wins_a / n, self.wins_b / n
        var_a = (self.wins_a - self.wins_a * ma) / (n - 1)
        var_b = (self.wins_b - self.wins_b * mb) / (n - 1)
        cov = (self.both - self.wins_a * mb) / (n - 1)
        return ma, mb, var_a, var_b, cov


def distance_bounds(pair: PairSums, target: float, z: float) -> tuple[float, float]:
    """(lower, upper) confidence bounds on ``|p_a - target| - |p_b - target|``, each one-sided at the
    normal quantile ``z``, from the per-game values of a paired linear combination.

    For any signs s, s': ``|p_a - t| >= s (p_a - t)`` and ``|p_b - t| = max over s' of s' (p_b - t)``, so
    the difference is at least ``min over s' of [s (p_a - t) - s' (p_b - t)]`` (s: the side of the target
    a's estimate is on) and at most ``max over s of [s (p_a - t) - s_b (p_b - t)]`` (s_b: b's side).
    Each bracket is the mean of the per-game values ``s win_a - s' win_b`` less a constant, with
    standard error from the paired variances: the bounds hold whichever side of the target the true
    rates lie on. The upper bound is also at most the bound on ``|p_a - p_b|`` (the paired difference),
    so candidates that win nearly the same games are found equally close."""
    ma, mb, var_a, var_b, cov = pair.moments()

    def bound(s: int, s_b: int, direction: int) -> float:
        mean = s * (ma - target) - s_b * (mb - target)
        se = math.sqrt(max(var_a + var_b - 2 * s * s_b * cov, 0.0) / pair.n)
        return mean + direction * z * se

    side_a = 1 if ma >= target else -1
    side_b = 1 if mb >= target else -1
    low = min(bound(side_a, s_b, -1) for s_b in (1, -1))
    # and at most |p_a - p_b| (the reverse triangle inequality): tight for near-identical candidates
    high = min(max(bound(s, side_b, 1) for s in (1, -1)), max(bound(1, 1, 1), bound(-1, -1, 1)))
    return low, high


def critical_z(confidence: float, candidates: int, rounds: int) -> float:
    """The one-sided normal quantile of each bound: Bonferroni over 2 x (candidates - 1) x rounds tests
    (each candidate against the best, either side of the target, at every round), so the closest
    candidate is dropped with probability at most 1 - confidence over the whole search."""
    from scipy.stats import norm
    tests = 2 * max(candidates - 1, 1) * rounds
    return float(norm.isf((1 - confidence) / tests))


def closest_probabilities(blocks: Sequence[tuple[Sequence[int], np.ndarray]], candidates: int, target: float,
                          rng: np.random.Generator, draws: int = DRAWS) -> np.ndarray:
    """Each candidate's probability of being the closest to ``target`` under the normal approximation of
    the win-rate estimates: ``blocks`` are the rounds' games, each (candidate indices, wins matrix games x
    those candidates); a round's means are drawn from a multivariate normal with the round's paired
    covariance (independent across rounds: other games), a candidate's rate is its rounds' means weighted
    by games. A draw in which several candidates are equally close counts 1/k for each."""
    totals = np.zeros((draws, candidates))
    games = np.zeros(candidates)
    for indices, wins in blocks:
        values = wins.astype(np.float64)
        n = values.shape[0]
        cov = np.atleast_2d(np.cov(values, rowvar=False, ddof=1)) / n
        eigenvalues, vectors = np.linalg.eigh(cov)
        # roundoff below the largest eigenvalue's 1e-12 is no variance: identical candidates draw alike
        scale = np.sqrt(np.where(eigenvalues > 1e-12 * max(eigenvalues.max(), 0.0), eigenvalues, 0.0))
        sample = values.mean(axis=0) + rng.standard_normal((draws, len(indices))) @ (vectors * scale).T
        totals[:, indices] += n * sample
        games[indices] += n
    distance = np.abs(totals / games - target)
    closest = distance <= distance.min(axis=1, keepdims=True) + 1e-12
    return (closest / closest.sum(axis=1, keepdims=True)).mean(axis=0)


# ---------------------------------------------------------------- the search for one player count

@dataclass
class _Search:
    """The wins of the candidates of one player count, round by round (a games x candidates matrix per
    round), and the decisions so far."""

    values: list
    blocks: list[tuple[list[int], np.ndarray]] = field(default_factory=list)
    dropped: set[int] = field(default_factory=set)
    tied: set[int] = field(default_factory=set)
    best: int = 0
    stop: str = ""

    @property
    def active(self) -> list[int]:
        return [i for i in range(len(self.values)) if i not in self.dropped]

    def add(self, indices: list[int], block: list[np.ndarray]) -> None:
        """A round's games: the wins of the candidates ``indices``, in that order."""
        self.blocks.append((indices, np.column_stack(block)))

    def wins(self, i: int) -> np.ndarray:
        """Candidate ``i``'s wins on every game it played, in game order (rounds are consecutive)."""
        return np.concatenate([block[:, indices.index(i)] for indices, block in self.blocks if i in indices])

    def decide(self, target: float, tolerance: float, z: float, last: bool) -> bool:
        """Drop the candidates clearly farther than the best; whether the search is over."""
        active = self.active
        wins = {i: self.wins(i) for i in active}
        distance = {i: abs(wins[i].mean() - target) for i in active}
        self.best = min(active, key=lambda i: (distance[i], i))
        self.tied = set()
        for i in active:
            if i == self.best:
                continue
            low, high = distance_bounds(PairSums.of(wins[i], wins[self.best]), target, z)
            if low > 0:
                self.dropped.add(i)
            elif high <= tolerance:
                self.tied.add(i)
        left = len(self.active)
        if left == 1:
            self.stop = STOPS[0]
        elif len(self.tied) == left - 1:
            self.stop = STOPS[1]
        elif last:
            self.stop = STOPS[2]
        return bool(self.stop)

    def status(self, i: int) -> str:
        if i == self.best:
            return "chosen"
        return "dropped" if i in self.dropped else "tied" if i in self.tied else "open"


# ---------------------------------------------------------------- the result

@dataclass
class TargetResult:
    """The result of ``target``: ``candidates`` (one row per player count and value: games, wins,
    win_rate, ci_low, ci_high, distance, p_closest, status), ``chosen`` (one row per player count: the
    chosen value, its numbers, the values tied with it and still open, why the search stopped, the games
    it played) and ``settings`` (what was searched, and how)."""

    candidates: pd.DataFrame
    chosen: pd.DataFrame
    settings: dict[str, Any]

    @property
    def values(self) -> dict[Any, Any]:
        """Player count -> the chosen value; a search over modes: (mode, player count) -> the chosen value."""
        if "mode" in self.chosen:
            return dict(zip(zip(self.chosen["mode"], self.chosen["players"]), self.chosen["value"]))
        return dict(zip(self.chosen["players"], self.chosen["value"]))

    def __repr__(self) -> str:
        return (f"TargetResult: {self.settings['vary']} for a win rate of {100 * self.settings['win_rate']:g}%\n"
                f"{self.chosen.to_string(index=False)}")


def _value_text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _rows(search: _Search, players: int, target: float, p_closest: np.ndarray,
          side_wins: list[dict[str, int]], mode: str | None = None) -> tuple[list[dict], dict]:
    rows = []
    key = {"players": players} if mode is None else {"mode": mode, "players": players}
    for i, value in enumerate(search.values):
        won = search.wins(i)
        n, wins = won.size, int(won.sum())
        low, high = wilson_interval(wins, n)
        rows.append({**key, "value": value, "games": n, "wins": wins, "win_rate": wins / n,
                     "ci_low": low, "ci_high": high, "distance": abs(wins / n - target),
                     "p_closest": float(p_closest[i]), "status": search.status(i)})
        for side, count in side_wins[i].items():   # a game of sides: every side's wins on the same games
            rows[-1].update(side_rates(side, count, n))
    chosen = dict(rows[search.best])
    del chosen["status"]
    chosen["tied"] = ", ".join(_value_text(search.values[i]) for i in sorted(search.tied))
    chosen["open"] = ", ".join(_value_text(v) for i, v in enumerate(search.values) if search.status(i) == "open")
    chosen["stop"] = search.stop
    chosen["total_games"] = sum(row["games"] for row in rows)
    return rows, chosen


# ---------------------------------------------------------------- the API

def target(game: str | Game, win_rate: float, *, vary: str, players: Any = None, values: Any = None,
           policy: str | None = None, options: Mapping[str, Any] | None = None,
           params: Mapping[str, float] | None = None, tolerance: float = TOLERANCE, start_games: int = START_GAMES,
           max_games: int = MAX_GAMES, confidence: float = 0.95, seed: int = 0, n_jobs: int = 1,
           backend: str = "loky", chunk_size: int | None = None, out: str | os.PathLike | None = None,
           progress: bool | None = None, dask_address: Any = None,
           on_round: Callable[..., None] | None = None, side: str | None = None,
           others: Any = None, modes: Any = None) -> TargetResult:
    """Per player count, the value of ``vary`` whose win rate is closest to ``win_rate`` (a fraction:
    0.15 for 15%).

    vary: an integer rule option (``"seals"``), ``"POLICY.PARAM"`` or a parameter of ``policy``.
    values: the candidates (default: ``default_values``: an option's validated range, else 0..2x the
    default). policy, options, params: the policy played (default: the game's) and the fixed other
    options and parameters. players: a player count or a list (default: the game's).

    Every candidate plays games 0.. of ``seed``; round r brings the candidates still in play to
    ``schedule(start_games, max_games)[r]`` games (adding games, never replaying). After each round a
    candidate is dropped when its distance from the target is larger than the current best's with
    confidence (``distance_bounds`` at ``critical_z``: Bonferroni over candidates, sides and rounds);
    the search stops when one is left, when every other one left is within ``tolerance`` (a fraction:
    0.0025 is 0.25 points) of the best with confidence, or after the last round. ``p_closest``: the
    probability of being the closest under the normal approximation (``closest_probabilities``,
    DRAWS draws, seeded by ``seed``).

    out: a directory (marked by target.json, locked while in use) keeping every round's games of every
    candidate as a resumable run, plus candidates.csv and chosen.csv; a rerun with the same game,
    seed, policy, varied setting and fixed options and parameters reuses every round it shares (also
    with another target, tolerance or max_games). on_round(players, round, rounds, values in play) is
    called before each round. The rest is passed to ``simulate``; results are identical for any n_jobs,
    chunk_size or backend.

    A game of sides: ``win_rate`` is ``side``'s (None: the one side ``others`` leaves out), ``policy`` and
    ``params`` are that side's, and the other sides play ``others`` (as ``compare`` takes them); the
    candidates also carry every side's ``<side>_win_rate``, ``<side>_ci_low``, ``<side>_ci_high``, and
    ``settings`` which side varied and what the others played.

    modes: a game with modes (``Game.modes``, So, You've Been Cursed.'s ``rabid_monster``, ``duel``, ...):
    one mode, a list or ``"rabid_monster,duel"``; one search per mode and player count, exactly as the
    search of that mode's standard pairing given by hand (``policy`` and ``others`` from the pairing:
    the same rows, games and P(closest)). Every mode's pairing names the policies of the sides it names,
    so ``policy`` (when the mode names ``side``) and ``others`` for such a side are errors; ``others`` may
    give the sides no mode names. ``side``: the targeted side (None: the side of the policy a
    ``POLICY.PARAM`` vary names, else the game's first side: village's wizard); ``params`` are that
    side's fixed parameters in every mode. The rows and chosen values gain a first column ``mode``,
    ``values`` is keyed by (mode, players), ``on_round`` gets ``mode=`` as a keyword, each mode's rounds
    are kept under ``out/cells/<mode>/``, and ``settings["modes"]`` holds the pairing each mode played.
    """
    game = runner.resolve_game(game)
    if not resolve.is_number(win_rate) or not 0 <= win_rate <= 1:
        raise RunError(f"win_rate is a fraction in 0-1 (15% is 0.15), got {shorten(win_rate)}")
    win_rate = float(win_rate)
    options = {} if options is None else dict(_mapping(options, "options", OptionError))
    params = {} if params is None else dict(_mapping(params, "params", UnknownPolicyError))
    if modes is None:
        varying = resolve_varying(game, side, others)
        tracks = [_Track(None, varying, resolve_varied(game, vary, policy, varying.side))]
    else:
        tracks = _mode_tracks(game, mode_list(game, modes), vary, policy, side, others)
    varied, varying = tracks[0].varied, tracks[0].varying
    if varied.name in (options if varied.kind == "option" else params):
        raise RunError(f"{varied.label} is the varied setting: leave it out of the fixed "
                       f"{'options' if varied.kind == 'option' else 'params'}")
    runner.make_options(game, options)
    for track in tracks:
        with track.named():
            check_policy(game, track.varied.policy, params, track.varying.side)
    values = (default_values(game, varied, options, params, varying.side) if values is None
              else check_values(game, varied, values, options, params))
    player_list = _players(game, players)
    for name, value, low, high in (("tolerance", tolerance, 0, 1), ("confidence", confidence, 0, 1)):
        if not resolve.is_number(value) or not low <= value < high or (name == "confidence" and value == 0):
            raise RunError(f"{name} must be a number in {'[0, 1)' if name == 'tolerance' else '(0, 1)'}, got "
                           f"{shorten(value)}")
    start_games = runner.check_n_games(start_games)
    max_games = runner.check_n_games(max_games)
    if start_games < 100 or max_games < start_games:
        raise RunError(f"start_games must be at least 100 and at most max_games, got {start_games:,} and "
                       f"{max_games:,}")
    execution = research.check_execution(seed, n_jobs, backend, chunk_size, progress, dask_address)
    seed, backend, progress = execution.seed, execution.backend, execution.progress
    out = research.check_out(out)

    counts = schedule(start_games, max_games)
    z = critical_z(confidence, len(values), len(counts))
    settings = {"game": game.name, "win_rate": win_rate, "vary": varied.label, "kind": varied.kind,
                "policy": varied.policy, "options": options, "params": params, "values": values,
                "players": player_list, "seed": seed, "tolerance": tolerance, "confidence": confidence,
                "schedule": counts, "z": z, "draws": DRAWS, **varying.settings()}
    from cursedsim.version import __version__
    identity = {"game": game.name, "seed": seed, "policy": varied.policy, "vary": varied.label,
                "options": runner._json_value(options), "params": runner._json_value(params),
                **runner._json_value(varying.settings())}
    if modes is not None:
        # each mode's games are kept apart (cells/<mode>/), each run's own run.json holds its pairing
        unnamed = {s: p for s, p in varying.fixed.items() if not any(s in game.modes[t.mode] for t in tracks)}
        pairings = {t.mode: {s.name: t.varied.policy if s.name == t.varying.side else t.varying.fixed[s.name]
                             for s in game.sides} for t in tracks}
        settings.update(policy=None, fixed=unnamed, modes=pairings)
        identity.update(policy=None, by_mode=True, fixed=unnamed)
    directory = research.directory(out, marker=TARGET_FILE, config={**identity, "cursedsim_version": __version__},
                                   kind="target", same=tuple(identity))
    cluster = research.cluster(execution)
    rows: list[dict] = []
    chosen: list[dict] = []
    with directory, cluster as client:
        for track in tracks:
            varied, varying = track.varied, track.varying
            cells = None if out is None else os.path.join(out, CELLS_DIR, *([track.mode] if track.mode else []))
            for players in player_list:
                search = _Search(list(values))
                side_wins: list[dict[str, int]] = [dict.fromkeys(win_columns(game), 0) for _ in values]
                for r, stop in enumerate(counts):
                    first = counts[r - 1] if r else 0
                    active = search.active
                    if on_round is not None:
                        on_round(players, r, len(counts), [values[i] for i in active],
                                 **({} if track.mode is None else {"mode": track.mode}))
                    block = []
                    for i in active:
                        cell_options, cell_params = _setting(varied, values[i], options, params)
                        run_dir = None if cells is None else os.path.join(
                            cells, cell_dir_name(Cell(varied.policy, players, cell_options, cell_params)),
                            f"games-{first}-{stop}")
                        frame = runner.simulate(game, stop - first, players=players,
                                                policy=varying.policy(varied.policy), options=cell_options,
                                                params=varying.params(cell_params), seed=seed, n_jobs=n_jobs,
                                                backend=backend, chunk_size=chunk_size, out=run_dir,
                                                progress=progress, dask_address=client, first_game=first)
                        block.append(frame[varying.win].to_numpy(dtype=bool))
                        for name, column in win_columns(game).items():
                            side_wins[i][name] += int(frame[column].sum())
                        del frame
                    search.add(active, block)
                    if search.decide(win_rate, tolerance, z, last=r == len(counts) - 1):
                        break
                rng = np.random.default_rng(np.random.SeedSequence([seed, players, TAG_DRAWS]))
                p_closest = closest_probabilities(search.blocks, len(values), win_rate, rng)
                cell_rows, cell_chosen = _rows(search, players, win_rate, p_closest, side_wins, track.mode)
                rows += cell_rows
                chosen.append(cell_chosen)
        result = TargetResult(pd.DataFrame(rows), pd.DataFrame(chosen), settings)
        if out is not None:
            write_via(os.path.join(out, CANDIDATES_FILE), lambda tmp: result.candidates.to_csv(tmp, index=False))
            write_via(os.path.join(out, CHOSEN_FILE), lambda tmp: result.chosen.to_csv(tmp, index=False))
    return result


# ---------------------------------------------------------------- modes

@dataclass(frozen=True)
class _Track:
    """One search setting: the mode (None without modes), what the sides play, what varies."""

    mode: str | None
    varying: Any
    varied: Varied

    def named(self):
        return in_mode(self.mode)


@contextlib.contextmanager
def in_mode(mode: str | None):
    """A CursedsimError raised inside names ``mode`` (``mode duel: ...``); None: as it is."""
    try:
        yield
    except CursedsimError as error:
        if mode is None:
            raise
        raise type(error)(f"mode {mode}: {error}") from None


def mode_list(game: Game, modes: Any) -> list[str]:
    """``modes`` (a mode name, ``"rabid_monster,duel"`` or a list of names) as the game's mode names in the
    order given, duplicates dropped; a RunError naming the valid modes, or saying the game has none."""
    if not game.modes:
        raise RunError(f"{game.name} has no modes (only a game whose pairing of the sides' policies decides the "
                       f"mode has them, e.g. village): leave out modes (--mode)")
    valid = ", ".join(game.modes)
    if isinstance(modes, str):
        modes = modes.split(",")
    if isinstance(modes, (bytes, Mapping)) or not isinstance(modes, Iterable):
        raise RunError(f"modes must name modes of {game.name} ({valid}), got {shorten(modes)}")
    names = [name.strip() if isinstance(name, str) else name for name in modes]
    if not names:
        raise RunError(f"modes must name at least one mode of {game.name}: {valid}")
    for name in names:
        if not isinstance(name, str) or name not in game.modes:
            raise RunError(f"unknown mode {shorten(name)} of {game.name}; valid modes: {valid}")
    return list(dict.fromkeys(names))


def mode_side(game: Game, vary: Any, side: str | None) -> str:
    """The side a search over modes targets: ``side``; else the one side having the policy a
    ``POLICY.PARAM`` vary names; else the game's first side (village: the wizard)."""
    if side is not None:
        return game.side(side).name
    owner, dot, _ = str(vary).strip().rpartition(".")
    owners = [s.name for s in game.sides if dot and owner in s.policies]
    return owners[0] if len(owners) == 1 else game.sides[0].name


def _mode_tracks(game: Game, modes: list[str], vary: Any, policy: Any, side: str | None,
                 others: Any) -> list[_Track]:
    """One _Track per mode: the targeted side plays the mode's policy for it, the other sides theirs;
    ``others`` only for sides no mode names, ``policy`` only where the mode does not name the side."""
    from cursedsim.sides import side_mapping
    side = mode_side(game, vary, side)
    given = side_mapping(game, others, "others gives the other sides' policies by side")
    tracks = []
    for mode in modes:
        pairing = game.modes[mode]
        text = ", ".join(f"{s}={p}" for s, p in pairing.items())
        clash = [s for s in given if s in pairing]
        if clash:
            raise UnknownPolicyError(f"mode {mode} plays {text}: leave side {clash[0]!r} out of the other sides' "
                                     "policies (the mode's pairing gives it), or leave out modes")
        if policy is not None and side in pairing:
            raise UnknownPolicyError(f"mode {mode} plays {text}: the targeted side {side!r} plays "
                                     f"{pairing[side]!r} there; leave out its policy, or leave out modes")
        fixed = {**{s: p for s, p in pairing.items() if s != side}, **given}
        with in_mode(mode):
            varying = resolve_varying(game, side, fixed)
            varied = resolve_varied(game, vary, pairing.get(side, policy), side)
        tracks.append(_Track(mode, varying, varied))
    labels = {track.varied.label for track in tracks}
    if len(labels) > 1:
        raise UnknownPolicyError(f"vary {str(vary).strip()!r} is {' in one mode and '.join(sorted(labels))} in "
                                 "another: a search over modes varies one setting; give POLICY.PARAM or fewer modes")
    return tracks


def _mapping(value: Any, name: str, error: type[CursedsimError]) -> Mapping:
    if not isinstance(value, Mapping):
        raise error(f"{name} must map names to values, got {shorten(value)}")
    return value


def _players(game: Game, players: Any) -> list[int]:
    if players is None:
        return [runner.resolve_players(game, None)]
    if isinstance(players, (str, bytes, Mapping)) or not isinstance(players, Iterable):
        players = [players]
    checked = [game.check_players(p) for p in players]
    if not checked:
        raise RunError(f"players must name at least one player count ({game.min_players}-{game.max_players})")
    return list(dict.fromkeys(checked))


__all__ = ["MAX_GAMES", "START_GAMES", "STATUSES", "STOPS", "TOLERANCE", "PairSums", "TargetResult", "Varied",
           "check_values", "closest_probabilities", "critical_z", "default_values", "distance_bounds",
           "in_mode", "int_options", "mode_list", "mode_side", "resolve_varied", "schedule", "target"]
