"""The simulations a balance report needs, reduced to small tidy tables.

Every run goes through :func:`cursedsim.simulate` (or :func:`cursedsim.compare.compare`) with an
``out=`` run directory under ``<report>/runs/``, so an interrupted report resumes where it stopped.
All runs share one seed: every table compares policies and rule options on the same deals (common
random numbers). Only summaries leave this module; the per-game frames stay in the run directories.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.errors import CursedsimError, RunError

#: Folder of a report's run directories (per-game Parquet chunks; not committed).
RUNS_DIR = "runs"
#: Marker file in ``runs/``: the settings and sources the runs there were played with.
RUNS_MARKER = "report-runs.json"


class ReportError(CursedsimError):
    """A report that cannot be made: a game without a report plan, or an unusable output folder."""


@dataclass(frozen=True)
class Plan:
    """What a game's report simulates.

    players: player counts; seals: seal counts of the win-rate sweep; policies: the policies of the
    sweep and the distributions (the first is the reference the others are compared with);
    challengers: policies compared with the reference (paired); options: rule options that are
    ambiguities or reconstructions, each with the non-default value tested against the default;
    score_options: those of them that can only move scores (they get a score panel).
    """

    game: str
    players: tuple[int, ...]
    seals: tuple[int, ...]
    policies: tuple[str, ...]
    challengers: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    score_options: tuple[str, ...] = ()
    rules_doc: str = ""

    @property
    def reference(self) -> str:
        return self.policies[0]


PLANS: dict[str, Plan] = {
    "verflucht": Plan(
        game="verflucht",
        players=(1, 2, 3, 4, 5),
        seals=tuple(range(9)),
        policies=("baseline", "smart"),
        challengers=("smart", "random"),
        options=(("partial_items_before_seal", True), ("voluntary_seal", False), ("drawer_last_turn", False)),
        score_options=("drawer_last_turn",),
        rules_doc="docs/rules/verflucht.md",
    ),
}


def plan_for(game: str) -> Plan:
    """The report plan of ``game`` (a ReportError naming the games that have one)."""
    from cursedsim.runner import resolve_game
    name = resolve_game(game).name   # an unknown game: UnknownGameError with the valid games
    if name not in PLANS:
        raise ReportError(f"there is no balance report for {name!r} yet; reports exist for: {', '.join(PLANS)}")
    return PLANS[name]


@dataclass
class ReportData:
    """The numbers behind every figure of a report (small frames; see ``collect``)."""

    plan: Plan
    title: str
    n_games: int
    seed: int
    version: str
    code: str
    rulebook_seals: dict[int, int]
    default_players: int
    option_docs: dict[str, str]
    option_defaults: dict[str, Any]
    #: summarize rows per (policy, players, seals) of the seal sweep
    seals: pd.DataFrame
    #: per players and policy at the rulebook's seals (every policy of the plan and its challengers)
    policies: pd.DataFrame
    #: paired differences challenger - reference, per players
    policy_diffs: pd.DataFrame
    #: won games per (players, policy, score)
    scores: pd.DataFrame
    #: games per (players, policy, won, turns)
    turns: pd.DataFrame
    #: lost games per (players, policy, end) with the share of losses and its Wilson interval
    losses: pd.DataFrame
    #: turn of the loss per (players, policy, end): n, quartiles, mean
    loss_turns: pd.DataFrame
    #: paired differences option value - default per (option, policy, players, measure)
    sensitivity: pd.DataFrame
    runs: int = 0
    games_played: int = 0
    seconds: float = 0.0
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tables = {"win_rate_by_seals": self.seals, "policies": self.policies,
                       "policy_differences": self.policy_diffs, "scores_of_won_games": self.scores,
                       "turns": self.turns, "losses_by_cause": self.losses, "turn_of_loss": self.loss_turns,
                       "rule_sensitivity": self.sensitivity}


# ---------------------------------------------------------------- run directories

def prepare_runs(out: str, marker: dict[str, Any]) -> str:
    """``out/runs``, emptied when its runs were played with other settings or other sources (they
    could not be resumed), created when missing; refuses a ``runs`` folder it did not make."""
    runs = os.path.join(out, RUNS_DIR)
    path = os.path.join(runs, RUNS_MARKER)
    if os.path.isdir(runs) and os.listdir(runs):
        if not os.path.isfile(path):
            raise ReportError(f"{runs} exists and was not made by a report; choose another --out")
        try:
            with open(path) as f:
                old = json.load(f)
        except (OSError, ValueError):
            old = None
        if old != marker:
            shutil.rmtree(runs)
    os.makedirs(runs, exist_ok=True)
    if not os.path.isfile(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(marker, f, indent=1)
        os.replace(tmp, path)
    return runs


# ---------------------------------------------------------------- reductions

def _counts(frame: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    counts = frame.groupby(keys + [column], observed=True).size().rename("games").reset_index()
    return counts[counts["games"] > 0]


def _distribution_tables(players: int, policy: str, frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    from cursedsim.stats import wilson_interval
    base = frame[["win", "score", "turns", "end"]].assign(players=players, policy=policy)
    won = base[base["win"]]
    lost = base[~base["win"]]
    scores = _counts(won, ["players", "policy"], "score")
    turns = _counts(base.rename(columns={"win": "won"}), ["players", "policy", "won"], "turns")
    causes = [c for c in frame["end"].cat.categories if c != "win"]
    n_lost = len(lost)
    by_cause = lost["end"].value_counts().reindex(causes, fill_value=0)
    low, high = wilson_interval(by_cause.to_numpy(), np.full(len(causes), n_lost))
    losses = pd.DataFrame({"players": players, "policy": policy, "end": causes, "games": by_cause.to_numpy(),
                           "lost": n_lost, "share": by_cause.to_numpy() / n_lost if n_lost else np.nan,
                           "ci_low": low, "ci_high": high})
    rows = []
    for cause in causes + ["any"]:
        t = lost["turns"] if cause == "any" else lost.loc[lost["end"] == cause, "turns"]
        q = t.quantile([0.25, 0.5, 0.75]).to_numpy() if len(t) else [np.nan] * 3
        rows.append({"players": players, "policy": policy, "end": cause, "games": len(t), "q25": q[0],
                     "median": q[1], "q75": q[2], "mean": t.mean() if len(t) else np.nan})
    return {"scores": scores, "turns": turns, "losses": losses, "loss_turns": pd.DataFrame(rows)}


def _paired_rows(alt: pd.DataFrame, default: pd.DataFrame, *, with_score: bool,
                 outcome_columns: Sequence[str]) -> list[dict[str, Any]]:
    """Paired differences alt - default of win rate and, when asked, of the score of games both won;
    ``games_changed``: the share of games whose outcome columns differ at all."""
    from cursedsim.stats import paired_difference
    win_a = alt["win"].to_numpy()
    win_d = default["win"].to_numpy()
    row = paired_difference(win_a.astype(np.float64), win_d.astype(np.float64))
    changed = np.zeros(len(alt), dtype=bool)
    for column in outcome_columns:
        changed |= alt[column].to_numpy() != default[column].to_numpy()
    rows = [{"measure": "win_rate", "value_default": win_d.mean(), "value_option": win_a.mean(), **row,
             "games_changed": float(changed.mean())}]
    if with_score:
        both = win_a & win_d
        if both.sum() >= 2:
            s_a = alt["score"].to_numpy()[both]
            s_d = default["score"].to_numpy()[both]
            row = paired_difference(s_a.astype(np.float64), s_d.astype(np.float64))
            rows.append({"measure": "score", "value_default": s_d.mean(), "value_option": s_a.mean(), **row,
                         "games_changed": float(changed.mean())})
    for r in rows:
        r.pop("sd", None)
    return rows


def _rulebook_seals(game, players: int) -> int:
    return int(game.option_columns(game.make_options(None), players)["seals"])


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# ---------------------------------------------------------------- collect

def collect(game: str, out: str, *, n_games: int, seed: int, n_jobs: int, progress: bool | None = None,
            log: Callable[[str], None] | None = None, plan: Plan | None = None) -> ReportData:
    """Play every run of ``game``'s report plan (``n_games`` games each, one ``seed``) with run
    directories under ``out/runs`` and reduce them to the tables of :class:`ReportData`."""
    from cursedsim import __version__
    from cursedsim.compare import compare
    from cursedsim.numba_cache import source_digest
    from cursedsim.runner import check_n_games, check_n_jobs, check_seed, resolve_game, simulate
    from cursedsim.stats import summarize

    plan = plan or plan_for(game)
    game_obj = resolve_game(plan.game)
    n_games = check_n_games(n_games)
    if n_games < 2:
        raise RunError(f"a report needs at least 2 games per cell (paired intervals), got {n_games}")
    seed = check_seed(seed)
    check_n_jobs(n_jobs)
    for p in plan.players:
        game_obj.check_players(p)
    for policy in plan.policies + plan.challengers:
        game_obj.policy(policy)
    for name, value in plan.options:
        game_obj.make_options({name: value})
    for seals in plan.seals:
        game_obj.make_options({"seals": seals})
    log = log or (lambda message: None)
    started = time.perf_counter()
    code = source_digest(plan.game)
    runs = prepare_runs(out, {"game": plan.game, "n_games": n_games, "seed": seed, "version": __version__,
                              "code": code})
    counter = {"runs": 0}

    def run(path: str, **kwargs) -> pd.DataFrame:
        counter["runs"] += 1
        return simulate(game_obj, n_games, seed=seed, n_jobs=n_jobs, progress=progress,
                        out=os.path.join(runs, path), **kwargs)

    # 1. win rate by seals, per player count and policy
    log(f"win rate by seals: {len(plan.policies) * len(plan.players) * len(plan.seals)} runs of {n_games:,} games")
    seal_rows = []
    for policy in plan.policies:
        for p in plan.players:
            for seals in plan.seals:
                frame = run(os.path.join("seals", f"{policy}-p{p}-s{seals}"), players=p, policy=policy,
                            options={"seals": seals})
                seal_rows.append(summarize(frame, ["policy", "players", "seals"]))
                del frame
    seals_table = _concat(seal_rows)
    seals_table["policy"] = seals_table["policy"].astype(str)

    # 2. policies compared on the same games at the rulebook's seals; their distributions
    contenders = list(dict.fromkeys(plan.challengers + plan.policies[1:] + (plan.reference,)))
    log(f"policies on common games: {len(plan.players) * len(contenders)} runs of {n_games:,} games")
    default_frames: dict[tuple[str, int], pd.DataFrame] = {}
    outcomes = [c for c in game_obj.outcome_columns if c != "game_index"]
    policy_rows, diff_rows, dist = [], [], {"scores": [], "turns": [], "losses": [], "loss_turns": []}
    for p in plan.players:
        comparison = compare(game_obj, contenders, n_games, players=p, seed=seed, n_jobs=n_jobs,
                             out=os.path.join(runs, "policies", f"p{p}"), progress=progress)
        counter["runs"] += len(contenders)
        policy_rows.append(comparison.policies.assign(players=p, seals=_rulebook_seals(game_obj, p)))
        pairs = comparison.pairs[comparison.pairs["b"] == plan.reference]
        diff_rows.append(pairs.assign(players=p))
        for policy in plan.policies:
            frame = comparison.frames[policy]
            default_frames[(policy, p)] = frame[outcomes]
            for key, table in _distribution_tables(p, policy, frame).items():
                dist[key].append(table)
        del comparison
    policies_table = _concat(policy_rows)
    policies_table = policies_table[["players", "seals"] + [c for c in policies_table.columns
                                                            if c not in ("players", "seals")]]
    diffs = _concat(diff_rows)
    diffs = diffs[["players"] + [c for c in diffs.columns if c != "players"]]

    # 3. every ambiguous rule against its default, on the same games
    log(f"rule options: {len(plan.options) * len(plan.policies) * len(plan.players)} runs of {n_games:,} games")
    sens_rows = []
    for name, value in plan.options:
        for policy in plan.policies:
            for p in plan.players:
                frame = run(os.path.join("options", f"{name}-{value}".lower(), f"{policy}-p{p}"), players=p,
                            policy=policy, options={name: value})
                for row in _paired_rows(frame, default_frames[(policy, p)], with_score=name in plan.score_options,
                                        outcome_columns=outcomes):
                    sens_rows.append({"option": name, "value": value, "policy": policy, "players": p, **row})
                del frame
    sensitivity = pd.DataFrame(sens_rows)

    from cursedsim.cli import _option_docs
    options = game_obj.make_options(None)
    option_docs = _option_docs(game_obj.options_type)
    return ReportData(
        plan=plan, title=game_obj.title, n_games=n_games, seed=seed, version=__version__, code=code,
        rulebook_seals={p: _rulebook_seals(game_obj, p) for p in plan.players},
        default_players=game_obj.default_players or plan.players[0],
        option_docs=option_docs,
        option_defaults={name: getattr(options, name) for name in option_docs},
        seals=seals_table, policies=policies_table, policy_diffs=diffs,
        scores=_concat(dist["scores"]), turns=_concat(dist["turns"]), losses=_concat(dist["losses"]),
        loss_turns=_concat(dist["loss_turns"]), sensitivity=sensitivity,
        runs=counter["runs"], games_played=counter["runs"] * n_games, seconds=time.perf_counter() - started)


__all__ = ["PLANS", "Plan", "ReportData", "ReportError", "collect", "plan_for", "prepare_runs"]
