"""The Verflucht! report's simulations, reduced to small tidy tables: the win rate by seal count, the
policies on the same games at the rulebook's seals (scores, lengths, losses) and every ambiguous rule
against its default. Every run goes through :class:`cursedsim.report.data.Runs` (one seed, resumable
run directories under ``<report>/runs``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.report.data import ReportChoices, ReportData, Runs, check_settings, concat, paired_win_change


@dataclass(frozen=True)
class Plan:
    """What the Verflucht! report simulates.

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

    @property
    def run_count(self) -> int:
        """The runs the plan plays."""
        contenders = len(dict.fromkeys(self.challengers + self.policies))
        return len(self.players) * (len(self.policies) * (len(self.seals) + len(self.options)) + contenders)


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

    def __post_init__(self) -> None:
        self.tables = {"win_rate_by_seals": self.seals, "policies": self.policies,
                       "policy_differences": self.policy_diffs, "scores_of_won_games": self.scores,
                       "turns": self.turns, "losses_by_cause": self.losses, "turn_of_loss": self.loss_turns,
                       "rule_sensitivity": self.sensitivity}


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
    """Play every run of the plan (``n_games`` games each, one ``seed``) with run directories under
    ``out/runs`` and reduce them to the tables of :class:`VerfluchtData`."""
    from cursedsim.runner import resolve_game
    from cursedsim.stats import summarize

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
    log = log or (lambda message: None)
    runs = Runs(game_obj, out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=progress, log=log,
                choices=choices, total=plan.run_count)

    # 1. win rate by seals, per player count and policy
    log(f"win rate by seals: {len(plan.policies) * len(plan.players) * len(plan.seals)} runs of {n_games:,} games")
    seal_rows = []
    for policy in plan.policies:
        for p in plan.players:
            for seals in plan.seals:
                frame = runs.simulate(os.path.join("seals", f"{policy}-p{p}-s{seals}"), players=p, policy=policy,
                                      options={"seals": seals})
                seal_rows.append(summarize(frame, ["policy", "players", "seals"]))
                del frame
    seals_table = concat(seal_rows)
    seals_table["policy"] = seals_table["policy"].astype(str)

    # 2. policies compared on the same games at the rulebook's seals; their distributions
    contenders = list(dict.fromkeys(plan.challengers + plan.policies[1:] + (plan.reference,)))
    log(f"policies on common games: {len(plan.players) * len(contenders)} runs of {n_games:,} games")
    default_frames: dict[tuple[str, int], pd.DataFrame] = {}
    outcomes = [c for c in game_obj.outcome_columns if c != "game_index"]
    policy_rows, diff_rows, dist = [], [], {"scores": [], "turns": [], "losses": [], "loss_turns": []}
    for p in plan.players:
        comparison = runs.compare(os.path.join("policies", f"p{p}"), contenders, players=p, reference=plan.reference)
        policy_rows.append(comparison.policies.assign(players=p, seals=_rulebook_seals(game_obj, p)))
        pairs = comparison.pairs[comparison.pairs["b"] == plan.reference]
        diff_rows.append(pairs.assign(players=p))
        for policy in plan.policies:
            frame = comparison.frames[policy]
            default_frames[(policy, p)] = frame[outcomes]
            for key, table in _distribution_tables(p, policy, frame).items():
                dist[key].append(table)
        del comparison
    policies_table = concat(policy_rows)
    policies_table = policies_table[["players", "seals"] + [c for c in policies_table.columns
                                                            if c not in ("players", "seals")]]
    diffs = concat(diff_rows)
    diffs = diffs[["players"] + [c for c in diffs.columns if c != "players"]]

    # 3. every ambiguous rule against its default, on the same games
    log(f"rule options: {len(plan.options) * len(plan.policies) * len(plan.players)} runs of {n_games:,} games")
    sens_rows = []
    for name, value in plan.options:
        for policy in plan.policies:
            for p in plan.players:
                frame = runs.simulate(os.path.join("options", f"{name}-{value}".lower(), f"{policy}-p{p}"),
                                      players=p, policy=policy, options={name: value})
                for row in _paired_rows(frame, default_frames[(policy, p)], with_score=name in plan.score_options,
                                        outcome_columns=outcomes):
                    sens_rows.append({"option": name, "value": value, "policy": policy, "players": p, **row})
                del frame
    sensitivity = pd.DataFrame(sens_rows)

    return VerfluchtData(
        **runs.provenance(), plan=plan,
        rulebook_seals={p: _rulebook_seals(game_obj, p) for p in plan.players},
        default_players=game_obj.default_players or plan.players[0],
        seals=seals_table, policies=policies_table, policy_diffs=diffs,
        scores=concat(dist["scores"]), turns=concat(dist["turns"]), losses=concat(dist["losses"]),
        loss_turns=concat(dist["loss_turns"]), sensitivity=sensitivity)


__all__ = ["PLAN", "Plan", "VerfluchtData", "collect"]
