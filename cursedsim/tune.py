"""Tune a parameterised policy family: successive halving over random candidates on common random
numbers, then an honest evaluation on held-out games.

The search
    ``candidates`` parameter sets: the policy's defaults (candidate 0) and random draws from ``space``,
    a share ``local`` of them near the defaults (each parameter redrawn with probability 2/d, so ~2 of
    d change: a good default is refined, not only compared with far-off points), the rest anywhere.
    Round 0 plays every candidate on games ``0..start_games-1`` of the search seed; the better half (by
    win rate; ties: the lower candidate number) survives, and each further round plays the survivors on
    twice as many games (``0..start_games*2**r-1``, the earlier games included) until one is left. Every
    candidate of a round plays the same games (common random numbers), so the ranking compares
    policies, not deals.

Seeds (all derived from ``seed``, so a tuning run is reproducible from one integer)
    - search games: the runs with seed ``seed`` itself (``simulate(..., seed=seed)`` replays any of them);
    - candidate draws: ``numpy.random.default_rng(SeedSequence([seed, TAG_CANDIDATES]))``;
    - held-out games: seed ``holdout_seed``, by default ``derive_seed(seed, TAG_HOLDOUT)``, the first
      64-bit word of ``numpy.random.SeedSequence([seed, TAG_HOLDOUT])``. A held-out game never shares a
      random stream with a search game: stream keys are ``f(f(f(seed) ^ index) ^ stream)`` with ``f``
      the splitmix64 bijection (``rng.py``), so (s, i) and (s', j) share a key only if
      ``i ^ j ^ (stream ^ stream') == f(s) ^ f(s')``; ``check_disjoint_seeds`` verifies that
      ``f(s) ^ f(s')`` has a bit set above every index used, which rules that out (a RunError otherwise).

The evaluation
    The winner, the ``reference`` policy (default ``baseline``) and the policy's own defaults (when the
    reference is another policy) play games ``0..final_games-1`` of the held-out seed: win rates with
    Wilson 95% intervals and the paired difference of each against the reference with its t interval.
    Selecting the best of many candidates on the search games overstates its win rate there (the
    winner's curse); the held-out numbers do not, because those games played no part in the choice.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim import research, resolve, runner
from cursedsim.compare import Contender, compare, contenders
from cursedsim.contenders import check_policy
from cursedsim.sides import resolve_varying, summary_args
from cursedsim.errors import CursedsimError, RunError, UnknownPolicyError
from cursedsim.games import Game

#: SeedSequence tags: the candidate draws and the held-out seed are derived from ``seed`` with these.
TAG_CANDIDATES = 0x63616E64   # "cand"
TAG_HOLDOUT = 0x686F6C64      # "hold"

# ---------------------------------------------------------------- seeds

def derive_seed(seed: int, tag: int) -> int:
    """A 64-bit seed derived from ``seed`` and ``tag`` (numpy's SeedSequence; reproducible)."""
    return int(np.random.SeedSequence([int(seed), int(tag)]).generate_state(1, dtype=np.uint64)[0])


def check_disjoint_seeds(seed_a: int, seed_b: int, n_games: int) -> None:
    """RunError unless games ``0..n_games-1`` of ``seed_a`` and of ``seed_b`` share no random stream
    (see the module docstring for why the test below is a proof, not a probability)."""
    from cursedsim.rng import _splitmix64_py
    if seed_a == seed_b:
        raise RunError(f"the held-out seed must differ from the search seed, both are {seed_a}")
    bits = max(int(n_games) - 1, 1).bit_length()
    if (_splitmix64_py(seed_a)[1] ^ _splitmix64_py(seed_b)[1]) >> bits == 0:
        raise RunError(f"seeds {seed_a} and {seed_b} may share random streams within {n_games:,} games; "
                       "choose another held-out seed")


# ---------------------------------------------------------------- search space

@dataclass(frozen=True)
class Dimension:
    """How one parameter is drawn: ``kind`` is "int" (low..high), "float" (uniform in [low, high]),
    "choice" (one of ``values``) or "fixed" (always ``values[0]``)."""

    name: str
    kind: str
    low: float = 0.0
    high: float = 0.0
    values: tuple[float, ...] = ()

    def describe(self) -> Any:
        """The dimension as written in a space: [low, high] for a range, a list of choices, or the value."""
        if self.kind == "int":
            return [int(self.low), int(self.high)]
        if self.kind == "float":
            return [self.low, self.high]
        if self.kind == "choice":
            return {"choices": list(self.values)}
        return self.values[0]

    def draw(self, rng: np.random.Generator) -> float:
        if self.kind == "int":
            return float(rng.integers(int(self.low), int(self.high) + 1))
        if self.kind == "float":
            return float(rng.uniform(self.low, self.high))
        if self.kind == "choice":
            return float(self.values[int(rng.integers(len(self.values)))])
        return float(self.values[0])


def _is_number(value: Any) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))


def default_space(game: Game, policy: str, side: str | None = None) -> dict[str, Any] | None:
    """The default search space of ``policy`` (of ``side`` in a game of sides): its ``PolicySpec``'s
    ``tune_space``, None without one."""
    space = game.policy(policy, side).tune_space
    return None if space is None else dict(space)


def parse_space(game: Game, policy: str, space: Mapping[str, Any] | None, side: str | None = None) -> list[Dimension]:
    """The dimensions of a search space: ``{param: (low, high) | [values] | value}``; None takes the
    game's default space for the policy (``default_space``). ``side``: the policy's side in a game of
    sides."""
    spec = game.policy(policy, side)
    if not spec.params:
        owner = game.name if side is None else f"side {side!r} of {game.name}"
        raise UnknownPolicyError(f"policy {policy!r} of {owner} has no parameters to tune; policies with "
                                 f"parameters: {', '.join(n for n, p in game.policies_of(side).items() if p.params) or 'none'}")
    if space is None:
        space = default_space(game, policy, side)
        if space is None:
            raise CursedsimError(f"no default search space for policy {policy!r} of {game.name}; pass space="
                                 f"{{parameter: (low, high) or [values]}}; parameters: {', '.join(spec.params)}")
    if not isinstance(space, Mapping) or not space:
        raise CursedsimError(f"space must be a non-empty mapping of parameter names to (low, high) ranges or "
                             f"[values], got {space!r}")
    dims = []
    for name, value in space.items():
        if name not in spec.params:
            raise UnknownPolicyError(f"policy {policy!r} has no parameter {name!r}; valid parameters: "
                                     f"{', '.join(spec.params)}")
        if isinstance(value, tuple):
            if len(value) != 2 or not all(_is_number(v) for v in value) or value[0] > value[1]:
                raise CursedsimError(f"the range of parameter {name!r} must be (low, high) with low <= high, "
                                     f"got {value!r}")
            is_int = all(isinstance(v, (int, np.integer)) for v in value)
            dims.append(Dimension(name, "int" if is_int else "float", float(value[0]), float(value[1])))
        elif _is_number(value):
            dims.append(Dimension(name, "fixed", values=(float(value),)))
        elif isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
            values = list(value)
            if not values or not all(_is_number(v) for v in values):
                raise CursedsimError(f"the choices of parameter {name!r} must be a non-empty list of numbers, "
                                     f"got {value!r}")
            dims.append(Dimension(name, "choice", values=tuple(float(v) for v in dict.fromkeys(values))))
        else:
            raise CursedsimError(f"parameter {name!r}: use (low, high), [values] or a number, got {value!r}")
    return dims


def draw_candidates(spec_params: Mapping[str, float], dims: list[Dimension], n: int, rng: np.random.Generator,
                    include_default: bool = True, local: float = 0.0) -> list[dict[str, float]]:
    """``n`` distinct parameter sets (complete: parameters outside the space keep their defaults): the
    defaults first (with ``include_default``); then a share ``local`` of the rest drawn near the
    defaults (each parameter of the space redrawn with probability 2/d, d the number of parameters, at
    least one), the others drawn from the whole space. A space with fewer than ``n`` distinct points
    gives all it has."""
    if not 0 <= local <= 1:
        raise CursedsimError(f"local must be a share between 0 and 1, got {local!r}")
    defaults = {name: float(value) for name, value in spec_params.items()}
    found: dict[tuple, dict[str, float]] = {}
    if include_default:
        found[tuple(defaults.values())] = defaults
    n_local = round(local * max(n - len(found), 0))
    p_redraw = min(1.0, 2 / len(dims)) if dims else 0.0
    for phase, target in (("local", len(found) + n_local), ("global", n)):
        tries = 0
        while len(found) < target and tries < 100 * n:
            tries += 1
            params = dict(defaults)
            if phase == "local":
                chosen = rng.random(len(dims)) < p_redraw
                if not chosen.any():
                    chosen[rng.integers(len(dims))] = True
                for dim, redraw in zip(dims, chosen):
                    if redraw:
                        params[dim.name] = dim.draw(rng)
            else:
                for dim in dims:
                    params[dim.name] = dim.draw(rng)
            found.setdefault(tuple(params.values()), params)
    return list(found.values())[:n]


# ---------------------------------------------------------------- result

@dataclass
class TuneResult:
    """The outcome of ``tune``.

    params: the winner's full parameter set. history: one row per (round, candidate) of the search.
    holdout: one row per policy evaluated on the held-out games (role tuned, reference, default) with its
    win rate, Wilson interval and paired difference against the reference (diff, diff_ci_low,
    diff_ci_high, p_value). difference: the paired difference tuned - reference on the held-out games
    (a ``compare`` pair row: diff, se, ci_low, ci_high, p_value, n, the unpaired interval, ...).
    versus_default: the same for tuned - the policy's defaults (None when the reference is the defaults).
    """

    game: str
    policy: str
    players: int
    options: dict[str, Any]
    reference: str
    seed: int
    holdout_seed: int
    params: dict[str, float]
    candidate: int
    history: pd.DataFrame
    holdout: pd.DataFrame
    difference: dict[str, Any]
    versus_default: dict[str, Any] | None = None
    search_games: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    #: A game of sides: the side tuned, and the other sides' policies and parameters (``Varying.settings``).
    sides: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (no history)."""
        from cursedsim.runner import _json_value
        return _json_value({
            "game": self.game, "policy": self.policy, "players": self.players, "options": self.options,
            **self.sides, "params": self.params, "candidate": self.candidate, "reference": self.reference,
            "seed": self.seed, "holdout_seed": self.holdout_seed, "search_games": self.search_games,
            "settings": self.settings,
            "holdout": {row["label"]: {k: _plain(v) for k, v in row.items() if k != "label"}
                        for row in self.holdout.to_dict("records")},
            "difference": {k: _plain(v) for k, v in self.difference.items()},
            "versus_default": (None if self.versus_default is None
                               else {k: _plain(v) for k, v in self.versus_default.items()}),
        })

    def __repr__(self) -> str:
        d = self.difference
        return (f"TuneResult({self.game} {self.policy}, players={self.players}: params={self.params}; held out: "
                f"{d['a']} - {d['b']} = {100 * d['diff']:+.2f} pp [{100 * d['ci_low']:+.2f}, "
                f"{100 * d['ci_high']:+.2f}])")


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (np.floating,)):
        return None if np.isnan(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


# ---------------------------------------------------------------- tune

def _positive(value: Any, what: str) -> int:
    if not resolve.is_int(value) or value < 1:
        raise RunError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


#: Candidates at most.
MAX_CANDIDATES = 10_000


def check_settings(game: Game, policy: str, *, candidates: Any, start_games: Any, final_games: Any, reference: Any,
                   seed: Any, holdout_seed: Any, n_jobs: Any, backend: Any = "loky", local: Any = 0.5,
                   side: str | None = None):
    """The settings of ``tune`` checked before any game (RunError or UnknownPolicyError naming the
    setting): ``(candidates, start_games, final_games, seed, holdout_seed, reference Contender)``.
    The held-out comparison's frames must fit in memory (the search streams). ``side``: the side of
    ``policy`` and ``reference`` in a game of sides."""
    candidates = _positive(candidates, "candidates")
    if candidates > MAX_CANDIDATES:
        raise RunError(f"candidates must be at most {MAX_CANDIDATES:,}, got {candidates:,}")
    if isinstance(local, (bool, np.bool_)) or not isinstance(local, (int, float, np.integer, np.floating)) \
            or not 0 <= local <= 1:
        raise CursedsimError(f"local must be a share between 0 and 1, got {local!r}")
    start_games = runner.check_n_games(start_games)
    final_games = runner.check_n_games(final_games)
    if final_games < 2:
        raise RunError(f"final_games must be at least 2 (paired intervals), got {final_games}")
    seed = research.check_execution(seed, n_jobs, backend, None, None, None).seed
    holdout_seed = derive_seed(seed, TAG_HOLDOUT) if holdout_seed is None else runner.check_seed(holdout_seed)
    rounds = halving_rounds(candidates, start_games)
    search_max = rounds[-1][1] if rounds else 0
    if search_max > runner.MAX_GAMES:
        raise RunError(f"start_games {start_games:,} doubled over {len(rounds)} rounds exceeds 2**63-1 games")
    # the reference, validated and labelled as compare does (compare wants two: the tuned one is the other)
    ref = contenders(game, [reference, {"policy": policy, "label": f"{policy} (tuned)"}], side)[0]
    check_disjoint_seeds(seed, holdout_seed, max(search_max, final_games))
    runner.check_memory(game, final_games, copies=3, what="the held-out frames of 3 policies")
    return candidates, start_games, final_games, seed, holdout_seed, ref


def halving_rounds(candidates: int, start_games: int) -> list[tuple[int, int]]:
    """(candidates playing, games each) per round of successive halving, until one is left."""
    rounds = []
    alive, n = candidates, start_games
    while alive > 1:
        rounds.append((alive, n))
        alive, n = math.ceil(alive / 2), 2 * n
    return rounds


def tune(game: str | Game, policy: str = "smart", *, players: int | None, options: Mapping[str, Any] | None = None,
         space: Mapping[str, Any] | None = None, candidates: int = 32, start_games: int = 20_000,
         final_games: int = 200_000, reference: Any = "baseline", seed: int = 0, holdout_seed: int | None = None,
         n_jobs: int = 1, backend: str = "loky", include_default: bool = True, local: float = 0.5,
         progress: bool | None = None, side: str | None = None, others: Any = None, chunk_size: int | None = None,
         dask_address: Any = None) -> TuneResult:
    """Search ``policy``'s parameters for the highest win rate at ``players`` by successive halving,
    then evaluate the winner against ``reference`` on held-out games (see the module docstring for the
    method and how every seed is derived).

    space: ``{parameter: (low, high) | [values] | value}`` (None: the policy's ``tune_space``). candidates: how
    many parameter sets enter (the defaults among them with ``include_default``). start_games: games per
    candidate in the first round, doubled every round. local: the share of random candidates drawn near
    the defaults (a few parameters redrawn) rather than anywhere in the space. final_games: held-out
    games per policy. n_jobs, backend, chunk_size, dask_address: how every run is played, as ``simulate``
    takes them (with backend "dask" and no address, one local cluster for the whole search).
    reference: the policy to beat (a name, ``"name:param=value,..."`` or a dict as ``compare`` takes).

    A game of sides: ``policy`` and ``reference`` are policies of ``side`` (None: the one side ``others``
    leaves out), tuned for ``side``'s win rate while the other sides play ``others`` (as ``compare``
    takes them); the result's ``sides`` (and ``to_dict``) say which side and what the others played.
    """
    game = runner.resolve_game(game)
    players = runner.resolve_players(game, players)
    options_obj = runner.make_options(game, options)
    option_columns = game.option_columns(options_obj, players)
    varying = resolve_varying(game, side, others)
    check_policy(game, policy, None, varying.side)   # an error naming the valid policies
    spec = game.policy(policy, varying.side)
    dims = parse_space(game, spec.name, space, varying.side)
    candidates, start_games, final_games, seed, holdout_seed, ref = check_settings(
        game, spec.name, candidates=candidates, start_games=start_games, final_games=final_games, reference=reference,
        seed=seed, holdout_seed=holdout_seed, n_jobs=n_jobs, backend=backend, local=local, side=varying.side)
    include_default = runner.check_flag(include_default, "include_default")
    execution = research.check_execution(seed, n_jobs, backend, chunk_size, progress, dask_address)

    pool = draw_candidates(spec.params, dims, candidates,
                           np.random.default_rng(np.random.SeedSequence([seed, TAG_CANDIDATES])), include_default,
                           local)
    rounds = halving_rounds(len(pool), start_games)
    # the policy's defaults are evaluated too, unless the reference is exactly them
    with_default = not (ref.policy == spec.name and
                        spec.param_vector(ref.params).tolist() == spec.param_vector().tolist())
    n_final = 3 if with_default else 2
    total = sum(alive * n for alive, n in rounds) + n_final * final_games

    def warm_up() -> None:
        names, vectors, _ = runner.resolve_policy(game, varying.policy(spec.name), varying.params(pool[0]))
        runner._warm_up(game, seed, players, options_obj, names, vectors, verbose=True)

    runs = dict(n_jobs=n_jobs, backend=execution.backend, chunk_size=execution.chunk_size, progress=False)
    title = f"tune {game.name} {spec.name} p={players}"
    history_rows = []
    alive = list(range(len(pool)))
    with research.cluster(execution) as client, \
            research.progress(execution.progress, total, title, warm_up=warm_up) as bar:
        runs["dask_address"] = client
        for r, (count, n) in enumerate(rounds):
            scores = []
            for k, cand in enumerate(alive):
                bar.describe(f"{title}: round {r + 1}/{len(rounds)}, candidate {k + 1}/{count}")
                played = runner.simulate(game, n, players=players, policy=varying.policy(spec.name),
                                         options=options_obj, params=varying.params(pool[cand]), seed=seed,
                                         summary_only=True, **runs)   # streamed: bounded memory, summarize's numbers
                row = played.summarize((), **summary_args(game, varying.side)).iloc[0].to_dict()
                row["n"], row["wins"] = int(row["n"]), int(row["wins"])
                del played
                history_rows.append({"round": r, "candidate": cand, "n_games": n,
                                     **{f"param_{name}": value for name, value in pool[cand].items()}, **row})
                scores.append((-int(row["wins"]), cand))
                bar.advance(n)
            ranked = [cand for _, cand in sorted(scores)]
            keep = set(ranked[:math.ceil(len(ranked) / 2)])
            for row in history_rows[-len(alive):]:
                row["rank"] = ranked.index(row["candidate"]) + 1
                row["kept"] = row["candidate"] in keep
            alive = [cand for cand in ranked if cand in keep]
        winner = alive[0]
        params = dict(pool[winner])

        bar.describe(f"{title}: held-out games")
        final = [Contender(f"{spec.name} (tuned)", spec.name, params), ref]
        if with_default:
            final.append(Contender(f"{spec.name} (default)", spec.name, {}))
        result = compare(game, final, final_games, players=players, options=options_obj, seed=holdout_seed,
                         pairs="all", side=varying.side,
                         others=varying.others() if varying.side is not None else None, **runs)
        bar.advance(n_final * final_games)

    holdout = _holdout_frame(result, final, ref)
    pairs = result.pairs
    pair = pairs[(pairs["a"] == final[0].label) & (pairs["b"] == ref.label)].iloc[0].to_dict()
    versus_default = None
    if with_default:
        versus_default = pairs[(pairs["a"] == final[0].label) & (pairs["b"] == final[2].label)].iloc[0].to_dict()
    history = pd.DataFrame(history_rows)
    return TuneResult(
        game=game.name, policy=spec.name, players=players, options=dict(option_columns), reference=ref.label,
        seed=seed, holdout_seed=holdout_seed, params=params, candidate=winner, history=history, holdout=holdout,
        difference=pair, versus_default=versus_default, search_games=int(sum(alive_n * n for alive_n, n in rounds)),
        settings={"candidates": len(pool), "start_games": start_games, "final_games": final_games,
                  "rounds": len(rounds), "include_default": include_default, "local": local,
                  "space": {d.name: d.describe() for d in dims}}, sides=varying.settings())


def _holdout_frame(result, final: list[Contender], ref: Contender) -> pd.DataFrame:
    """Per policy on the held-out games: win rate with its interval and the paired difference against
    the reference."""
    roles = {final[0].label: "tuned", ref.label: "reference"}
    if len(final) > 2:
        roles[final[2].label] = "default"
    rows = []
    for row in result.policies.to_dict("records"):
        label = row.pop("policy")
        side = next(c for c in final if c.label == label)
        entry = {"role": roles[label], "label": label, "policy": side.policy,
                 "params": ",".join(f"{k}={v:g}" for k, v in side.params.items()), **row}
        if label == ref.label:
            entry.update(diff=0.0, diff_ci_low=math.nan, diff_ci_high=math.nan, p_value=math.nan)
        else:
            pairs = result.pairs
            match = pairs[(pairs["a"] == label) & (pairs["b"] == ref.label)]
            sign = 1.0
            if match.empty:
                match = pairs[(pairs["a"] == ref.label) & (pairs["b"] == label)]
                sign = -1.0
            pair = match.iloc[0]
            low, high = sorted((sign * pair["ci_low"], sign * pair["ci_high"]))
            entry.update(diff=sign * pair["diff"], diff_ci_low=low, diff_ci_high=high, p_value=pair["p_value"])
        rows.append(entry)
    return pd.DataFrame(rows)


def tune_summary(results: list[TuneResult]) -> dict[str, Any]:
    """The JSON document of one or more tuning runs (e.g. one per player count): the common settings once,
    then ``players: {count: TuneResult.to_dict()}``."""
    if not results:
        raise CursedsimError("no tuning results to summarise")
    first = results[0]
    return {"game": first.game, **first.sides, "policy": first.policy, "reference": first.reference,
            "seed": first.seed,
            "holdout_seed": first.holdout_seed, "settings": first.to_dict()["settings"],
            "players": {str(result.players): result.to_dict() for result in results}}


__all__ = ["Dimension", "TuneResult", "check_disjoint_seeds", "default_space", "derive_seed",
           "draw_candidates",
           "halving_rounds", "parse_space", "tune", "tune_summary"]
