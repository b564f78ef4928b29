"""The Verflucht! report's simulations, reduced to small tidy tables: the win rate by seal count, the
policies on the same games at the rulebook's seals (scores, lengths, losses) and every ambiguous rule
against its default (with Holm-adjusted p-values over every reading scanned, and whether the effect
depends on the policy), plus the recommendations drawn from the sweep. Every run goes through
:class:`cursedsim.report.data.Runs` (one seed, resumable run directories, one progress bar). Policies a
user adds (``--policy``) and tuned ones (``--tuned``) are played wherever the built-in ones are.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.report.data import (
    ReportChoices,
    ReportData,
    ReportPolicy,
    Runs,
    check_settings,
    concat,
    difference_of_differences,
    paired_win_change,
    report_policies,
    run_name,
    with_holm,
)


@dataclass(frozen=True)
class Plan:
    """What the Verflucht! report simulates.

    players: player counts; seals: seal counts of the win-rate sweep; policies: the built-in policies
    of the sweep, the distributions and the rule options (the first is the reference the others are
    compared with; added and tuned policies join them); challengers: policies compared with the
    reference (paired); options: rule options that are ambiguities or reconstructions, each with the
    non-default value tested against the default; score_options: those of them that can only move
    scores (they get a score panel); targets: the win rates the recommendations look for.
    """

    game: str
    players: tuple[int, ...]
    seals: tuple[int, ...]
    policies: tuple[str, ...]
    challengers: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    score_options: tuple[str, ...] = ()
    rules_doc: str = ""
    targets: tuple[float, ...] = (0.10, 0.15, 0.20)
    #: The strong-play row of the recommendations: a seal sweep of ``rollout`` at this budget on at most
    #: ``strong_games`` games per cell (one per 100 of the report's), the largest budget a default report's
    #: time allows (~4 minutes on 2 cores); None for none.
    strong_n: int | None = 16
    strong_games: int = 2_000

    def strong_games_for(self, n_games: int) -> int:
        """Games per cell of the strong-play sweep in a report of ``n_games`` games per cell: one per 100, at
        most ``strong_games``; 0 (no sweep) below 20, where its intervals would say nothing."""
        games = 0 if self.strong_n is None else min(self.strong_games, n_games // 100)
        return games if games >= 20 else 0

    @property
    def reference(self) -> str:
        return self.policies[0]

    def run_count(self, played: Sequence[ReportPolicy]) -> int:
        """The runs the plan plays with the policies ``played`` (see ``collect``)."""
        runs = 0
        for p in self.players:
            at_p = [policy for policy in played if policy.plays(p)]
            runs += len(at_p) * (len(self.seals) + len(self.options))
            runs += len(dict.fromkeys(list(self.challengers) + [policy.label for policy in at_p]))
        return runs


PLAN = Plan(
    game="verflucht",
    players=(1, 2, 3, 4, 5),
    seals=tuple(range(9)),
    policies=("baseline", "smart"),
    challengers=("smart", "random"),
    options=(("partial_items_before_seal", True), ("voluntary_seal", False), ("drawer_last_turn", False)),
    score_options=("drawer_last_turn",),
    rules_doc="docs/rules/verflucht.md",
)


@dataclass(kw_only=True)
class VerfluchtData(ReportData):
    """The numbers behind every figure of the Verflucht! report (small frames; see ``collect``)."""

    plan: Plan
    rulebook_seals: dict[int, int]
    default_players: int
    #: the policies of the sweep, distributions and rule options: the plan's, then tuned and added ones
    played: list[ReportPolicy]
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
    #: paired differences option value - default per (option, policy, players, measure), with
    #: ``p_holm`` and ``survives`` (Holm over every row: every reading scanned)
    sensitivity: pd.DataFrame
    #: per (option, players, policy): the option's effect with the policy minus its effect with the
    #: reference, paired on the same games, with ``p_holm`` and ``survives`` (Holm over every row)
    dependence: pd.DataFrame
    #: per (players, role, target): the seal count of the sweep closest to the target win rate
    recommendations: pd.DataFrame
    #: summarize rows per (players, seals) of the strong-play sweep (rollout; empty without one)
    strong_seals: pd.DataFrame = None

    @property
    def labels(self) -> list[str]:
        """The labels of the policies played (the reference first)."""
        return [policy.label for policy in self.played]

    def __post_init__(self) -> None:
        self.tables = {"recommendations": self.recommendations, "win_rate_by_seals": self.seals,
                       "policies": self.policies, "policy_differences": self.policy_diffs,
                       "scores_of_won_games": self.scores, "turns": self.turns, "losses_by_cause": self.losses,
                       "turn_of_loss": self.loss_turns, "rule_sensitivity": self.sensitivity,
                       "rule_policy_dependence": self.dependence}
        if self.strong_seals is not None and len(self.strong_seals):
            self.tables["strong_play_by_seals"] = self.strong_seals


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
    rows = [paired_win_change(alt, default, outcome_columns)]
    if with_score:
        both = alt["win"].to_numpy() & default["win"].to_numpy()
        if both.sum() >= 2:
            s_a = alt["score"].to_numpy()[both]
            s_d = default["score"].to_numpy()[both]
            row = paired_difference(s_a.astype(np.float64), s_d.astype(np.float64))
            row.pop("sd", None)
            rows.append({"measure": "score", "value_default": s_d.mean(), "value_option": s_a.mean(), **row,
                         "games_changed": rows[0]["games_changed"]})
    return rows


def _rulebook_seals(game, players: int) -> int:
    return int(game.option_columns(game.make_options(None), players)["seals"])


# ---------------------------------------------------------------- collect

def collect(out: str, *, n_games: int, seed: int, n_jobs: int, progress: bool | None = None,
            log: Callable[[str], Any] | None = None, plan: Plan = PLAN,
            choices: ReportChoices | None = None) -> VerfluchtData:
    """Play every run of the plan (``n_games`` games each, one ``seed``) with the plan's policies and
    those of ``choices`` (tuned, added), in the run folder, and reduce them to the tables of
    :class:`VerfluchtData`."""
    from cursedsim.report.verflucht.recommend import recommendations
    from cursedsim.runner import resolve_game

    game_obj = resolve_game(plan.game)
    n_games, seed = check_settings(n_games, seed, n_jobs)
    for p in plan.players:
        game_obj.check_players(p)
    for policy in plan.policies + plan.challengers:
        game_obj.policy(policy)
    for name, value in plan.options:
        game_obj.make_options({name: value})
    for seals in plan.seals:
        game_obj.make_options({"seals": seals})
    played = report_policies(game_obj, plan.policies, choices)
    challengers = [ReportPolicy(name, name) for name in plan.challengers]
    strong_runs = len(plan.players) * len(plan.seals) if plan.strong_games_for(n_games) else 0
    runs = Runs(game_obj, out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=progress, log=log,
                choices=choices, total=plan.run_count(played) + strong_runs)
    log = runs.log

    seals_table = _seal_sweep(runs, plan, played)
    strong_table = _strong_sweep(runs, plan)
    log(f"policies on common games at the rulebook's seals ({len(plan.players)} comparisons)")
    outcomes = [c for c in game_obj.outcome_columns if c != "game_index"]
    default_frames: dict[tuple[str, int], pd.DataFrame] = {}
    policy_rows, diff_rows, dist = [], [], {"scores": [], "turns": [], "losses": [], "loss_turns": []}
    for p in plan.players:
        at_p = [policy for policy in played if policy.plays(p)]
        contenders = list({c.label: c for c in challengers + at_p[1:] + at_p[:1]}.values())
        params = {c.label: c.params_at(p) for c in contenders if c.params_at(p)}
        folder = run_name(f"p{p}", {f"{label}.{k}": v for label, ps in params.items() for k, v in ps.items()})
        comparison = runs.compare(os.path.join("policies", folder), [c.contender(p) for c in contenders],
                                  players=p, reference=plan.reference)
        policy_rows.append(comparison.policies.assign(players=p, seals=_rulebook_seals(game_obj, p)))
        pairs = comparison.pairs[comparison.pairs["b"] == plan.reference]
        diff_rows.append(pairs.assign(players=p))
        for policy in at_p:
            frame = comparison.frames[policy.label]
            default_frames[(policy.label, p)] = frame[outcomes]
            for key, table in _distribution_tables(p, policy.label, frame).items():
                dist[key].append(table)
        del comparison
    policies_table = concat(policy_rows)
    policies_table = policies_table[["players", "seals"] + [c for c in policies_table.columns
                                                            if c not in ("players", "seals")]]
    diffs = concat(diff_rows)
    diffs = diffs[["players"] + [c for c in diffs.columns if c != "players"]]
    sensitivity, dependence = _rule_sensitivity(runs, plan, played, default_frames, outcomes)
    rulebook_seals = {p: _rulebook_seals(game_obj, p) for p in plan.players}

    return VerfluchtData(
        **runs.provenance(), plan=plan, rulebook_seals=rulebook_seals,
        default_players=game_obj.default_players or plan.players[0], played=played,
        seals=seals_table, policies=policies_table, policy_diffs=diffs,
        scores=concat(dist["scores"]), turns=concat(dist["turns"]), losses=concat(dist["losses"]),
        loss_turns=concat(dist["loss_turns"]), sensitivity=sensitivity, dependence=dependence,
        recommendations=pd.concat([recommendations(seals_table, [p.label for p in played], plan.reference,
                                                   rulebook_seals, plan.targets),
                                   strong_recommendations(strong_table, rulebook_seals, plan.targets)],
                                  ignore_index=True),
        strong_seals=strong_table)


def _seal_sweep(runs: Runs, plan: Plan, played: Sequence[ReportPolicy]) -> pd.DataFrame:
    """Figure 1: ``summarize`` rows per (policy label, players, seals)."""
    from cursedsim.stats import summarize
    runs.log(f"win rate by seals: {len(played)} policies x {len(plan.players)} player counts x "
             f"{len(plan.seals)} seal counts, {runs.n_games:,} games each")
    rows = []
    for policy in played:
        for p in filter(policy.plays, plan.players):
            for seals in plan.seals:
                frame = runs.simulate(os.path.join("seals", f"{policy.run_name(p)}-p{p}-s{seals}"), players=p,
                                      policy=policy.policy, params=policy.params_at(p) or None,
                                      options={"seals": seals})
                rows.append(summarize(frame, ["players", "seals"]).assign(policy=policy.label))
                del frame
    table = concat(rows)
    return table[["policy"] + [c for c in table.columns if c != "policy"]]


def strong_label(plan: Plan) -> str:
    """The strong-play sweep's policy label, e.g. ``rollout:n=16``."""
    return f"rollout:n={plan.strong_n}"


def _strong_sweep(runs: Runs, plan: Plan) -> pd.DataFrame:
    """The strong-play row's sweep: ``rollout`` at ``plan.strong_n`` per (players, seals) on the first
    ``plan.strong_games_for`` games of the report's seed (the same deals as figure 1's first games)."""
    from cursedsim.stats import summarize
    games = plan.strong_games_for(runs.n_games)
    if not games:
        return pd.DataFrame()
    runs.log(f"strong play: rollout n={plan.strong_n} x {len(plan.players)} player counts x {len(plan.seals)} seal "
             f"counts, {games:,} games each")
    rows = []
    for p in plan.players:
        for seals in plan.seals:
            frame = runs.simulate_n(os.path.join("strong", f"rollout-n{plan.strong_n}-p{p}-s{seals}-{games}"), games,
                                    players=p, policy="rollout", params={"n": plan.strong_n},
                                    options={"seals": seals}, chunk_size=max(1, games // 16))
            rows.append(summarize(frame, ["players", "seals"]).assign(policy=strong_label(plan)))
            del frame
    table = concat(rows)
    return table[["policy"] + [c for c in table.columns if c != "policy"]]


def strong_recommendations(strong: pd.DataFrame, rulebook_seals: dict[int, int],
                           targets: Sequence[float]) -> pd.DataFrame:
    """The recommendations' strong-play rows (role ``strong play``) from the strong sweep (none if empty)."""
    from cursedsim.report.verflucht.recommend import closest_seals
    if strong is None or strong.empty:
        return pd.DataFrame()
    rows = []
    for players in sorted(strong["players"].unique()):
        cell = strong[strong["players"] == players]
        book = rulebook_seals[int(players)]
        at_book = cell[cell["seals"] == book]
        for target in targets:
            rows.append({"players": int(players), "role": "strong play", "policy": str(cell["policy"].iloc[0]),
                         "target": target, "rulebook_seals": book,
                         "rulebook_win_rate": float(at_book["win_rate"].iloc[0]), **closest_seals(cell, target)})
    return pd.DataFrame(rows)


def _rule_sensitivity(runs: Runs, plan: Plan, played: Sequence[ReportPolicy],
                      default_frames: dict[tuple[str, int], pd.DataFrame],
                      outcomes: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figure 6: every ambiguous rule against its default on the same games, per policy and player
    count (with Holm over every row), and per (option, players) whether the effect on the win rate
    depends on the policy (difference of differences against the reference, Holm over every row)."""
    runs.log(f"rule options: {len(plan.options)} readings x {len(played)} policies x {len(plan.players)} "
             f"player counts, {runs.n_games:,} games each")
    rows, dependence = [], []
    for name, value in plan.options:
        for p in plan.players:
            changes = {}
            for policy in filter(lambda policy: policy.plays(p), played):
                frame = runs.simulate(os.path.join("options", f"{name}-{value}".lower(), f"{policy.run_name(p)}-p{p}"),
                                      players=p, policy=policy.policy, params=policy.params_at(p) or None,
                                      options={name: value})
                default = default_frames[(policy.label, p)]
                for row in _paired_rows(frame, default, with_score=name in plan.score_options,
                                        outcome_columns=outcomes):
                    rows.append({"option": name, "value": value, "policy": policy.label, "players": p, **row})
                changes[policy.label] = frame["win"].to_numpy(np.float64) - default["win"].to_numpy(np.float64)
                del frame
            if plan.reference in changes:
                dependence += [{"option": name, "value": value, "players": p, **row}
                               for row in difference_of_differences(changes, plan.reference)]
    return with_holm(pd.DataFrame(rows)), with_holm(pd.DataFrame(dependence))


__all__ = ["PLAN", "Plan", "VerfluchtData", "collect"]
