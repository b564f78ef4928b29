"""The Cursed!? report's simulations, reduced to small tidy tables: the policies on the same games
(win rates, paired differences, souls, items used, how games end), the stopping rules swept over their
parameter, the value of each starting item and every ambiguous rule against its default. Every run
goes through :class:`cursedsim.report.data.Runs` (one seed, resumable run directories under
``<report>/runs``), so every comparison is paired on the same deals.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.report.data import (
    ALPHA,
    ReportChoices,
    ReportData,
    ReportPolicy,
    Runs,
    check_settings,
    concat,
    difference_of_differences,
    games_changed,
    paired_win_change,
    report_policies,
    with_holm,
)

#: The ``start`` label of the runs with the rulebook's random starting item and with none.
RANDOM_START = "random"
NO_START = "none"
#: Cursed!? is a solo game: every run has one player.
PLAYERS = 1


@dataclass(frozen=True)
class Plan:
    """What the Cursed!? report simulates (1 player).

    policies: compared on the same games; the first is the reference the others are compared with.
    souls_policies: those in the souls distribution. stop_policies: swept over ``k`` (their stopping
    parameter) through ``k_values``; counting is swept over its ``margins``. item_policies: played
    with every forced starting item (``items``: the ``starting_item`` values) and with none
    (``starting_items=0``). sensitivity_policies: played with every ambiguous rule's other readings
    (``options``: (option, value) pairs; an option may appear with several values).
    """

    game: str
    policies: tuple[str, ...]
    souls_policies: tuple[str, ...]
    stop_policies: tuple[str, ...]
    k_values: tuple[int, ...]
    margins: tuple[float, ...]
    item_policies: tuple[str, ...]
    items: tuple[str, ...]
    sensitivity_policies: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    rules_doc: str = ""

    @property
    def reference(self) -> str:
        return self.policies[0]

    @property
    def run_count(self) -> int:
        """The runs the plan plays."""
        return (len(self.policies) + len(self.stop_policies) * len(self.k_values) + len(self.margins)
                + len(self.item_policies) * (len(self.items) + 1)
                + len(self.sensitivity_policies) * len(self.options))


def _plan() -> Plan:
    from cursedsim.games.cursed.rules import ITEM_SLUGS
    return Plan(
        game="cursed",
        policies=("threshold", "counting", "no_items", "random"),
        souls_policies=("threshold", "counting", "no_items", "random"),
        stop_policies=("threshold", "no_items"),
        k_values=tuple(range(9)),
        margins=(-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5),
        item_policies=("threshold", "counting"),
        items=ITEM_SLUGS,
        sensitivity_policies=("threshold", "counting"),
        options=(("dagger_value", "choose"), ("dagger_value", "split"), ("dagger_value", "low"),
                 ("dagger_value", "high"), ("spear_kind", "choose"), ("overshoot", "zero_total"),
                 ("overshoot", "bust"), ("bust", "soul_lost"), ("chest_loot", "draw_pile"),
                 ("starting_mimic", "redraw"), ("mimic_soul", False), ("turkey_cards", 4),
                 ("item_timing", "before_draw"), ("items_between_fights", False),
                 ("empty_pile_before_chest", False), ("whetstone_in_play", True),
                 ("ignoring_attack_spends_trait", True), ("parity_includes_whetstone", True),
                 ("smoke_bomb_returns_items", True), ("final_monster_captures", True), ("damage_from", "bottom")),
        rules_doc="docs/rules/cursed.md",
    )


PLAN = _plan()


@dataclass(kw_only=True)
class CursedData(ReportData):
    """The numbers behind every figure of the Cursed!? report (small frames; see ``collect``)."""

    plan: Plan
    #: the policies of figure 1 and the summary, by label: the plan's, then the tuned and added ones
    labels: tuple[str, ...]
    #: each policy's parameters as played (name -> value), by label
    policy_params: dict[str, dict[str, float]]
    #: where each policy came from (built-in, --policy, the tuned file), by label
    policy_sources: dict[str, str]
    #: per policy: n, wins, win_rate, ci_low, ci_high (Wilson) and mean outcomes
    policies: pd.DataFrame
    #: paired differences policy - reference (compare's pair rows, a = the policy, b = the reference)
    policy_diffs: pd.DataFrame
    #: per (policy, item): mean uses per game and share of games using it at least once
    items_used: pd.DataFrame
    #: per (policy, end): games, share with its Wilson interval
    ends: pd.DataFrame
    #: per (policy, souls 0..win): games and share
    souls: pd.DataFrame
    #: per (policy, param, value): win rate with its Wilson interval and the paired difference from the
    #: policy's best value (``diff``, ``diff_ci_low``, ``diff_ci_high``; 0 at the best), ``p_value`` and
    #: ``p_holm`` (Holm over every non-best value of the figure)
    stop_sweep: pd.DataFrame
    #: per (policy, start): win rate with its Wilson interval and the paired difference from the
    #: random start (``diff``, ``diff_ci_low``, ``diff_ci_high``, ``games_changed``), ``p_value`` and
    #: ``p_holm`` (Holm over every start x policy)
    start_items: pd.DataFrame
    #: paired differences option value - default per (option, value, policy), with ``p_holm`` and
    #: ``survives`` (Holm over every reading x policy)
    sensitivity: pd.DataFrame
    #: per (option, value, policy): the option's effect with the policy minus its effect with the first
    #: sensitivity policy (``reference``), paired on the same games, with ``p_holm`` and ``survives``
    #: (Holm over the readings)
    dependence: pd.DataFrame

    def __post_init__(self) -> None:
        self.tables = {"policies": self.policies, "policy_differences": self.policy_diffs,
                       "items_used": self.items_used, "ends": self.ends, "souls": self.souls,
                       "stop_sweep": self.stop_sweep, "starting_items": self.start_items,
                       "rule_sensitivity": self.sensitivity, "rule_policy_dependence": self.dependence}


# ---------------------------------------------------------------- reductions

#: Outcome means per policy in the policies table.
MEANS = ("souls", "rounds", "damage_taken", "weapons_drawn", "busts")


def rate_row(wins: np.ndarray) -> dict[str, float]:
    """n, wins, win_rate and its Wilson 95% interval of a boolean array."""
    from cursedsim.stats import wilson_interval
    n, k = len(wins), int(np.count_nonzero(wins))
    low, high = wilson_interval(k, n)
    return {"n": n, "wins": k, "win_rate": k / n, "ci_low": low, "ci_high": high}


def _paired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """The paired difference a - b of two boolean arrays: diff, diff_ci_low, diff_ci_high, p_value."""
    from cursedsim.stats import paired_difference
    d = paired_difference(a.astype(np.float64), b.astype(np.float64))
    return {"diff": d["diff"], "diff_ci_low": d["ci_low"], "diff_ci_high": d["ci_high"], "p_value": d["p_value"]}


def _policy_tables(policy: str, frame: pd.DataFrame, items: tuple[str, ...], ends: tuple[str, ...],
                   win_souls: int) -> dict[str, pd.DataFrame]:
    from cursedsim.stats import wilson_interval
    n = len(frame)
    summary = pd.DataFrame([{"policy": policy, **rate_row(frame["win"].to_numpy()),
                             **{f"mean_{m}": float(frame[m].mean()) for m in MEANS}}])
    used = pd.DataFrame({"policy": policy, "item": list(items),
                         "per_game": [float(frame[f"used_{slug}"].mean()) for slug in items],
                         "games_using": [float((frame[f"used_{slug}"] > 0).mean()) for slug in items]})
    counts = frame["end"].value_counts().reindex(list(ends), fill_value=0).to_numpy()
    low, high = wilson_interval(counts, np.full(len(ends), n))
    end_table = pd.DataFrame({"policy": policy, "end": list(ends), "games": counts, "share": counts / n,
                              "ci_low": low, "ci_high": high})
    souls = frame["souls"].clip(upper=win_souls).value_counts().reindex(range(win_souls + 1), fill_value=0)
    souls_table = pd.DataFrame({"policy": policy, "souls": np.arange(win_souls + 1), "games": souls.to_numpy(),
                                "share": souls.to_numpy() / n})
    return {"policies": summary, "items_used": used, "ends": end_table, "souls": souls_table}


def compared_policies(game: Any, choices: ReportChoices | None = None, plan: Plan = PLAN) -> list[ReportPolicy]:
    """The policies of figure 1 (and of ``experiments/cursed_policies.py``): the plan's, then the tuned
    ones of ``choices.tuned_file`` and the added ones, each right after the built-in policy it runs."""
    played = report_policies(game, plan.policies, choices)
    builtin = [p for p in played if p.source == "built-in"]
    ordered = []
    for policy in builtin:
        ordered += [policy] + [p for p in played if p.source != "built-in" and p.policy == policy.policy]
    return ordered + [p for p in played if p not in ordered]


def _compare_folder(played: list[ReportPolicy], plan: Plan) -> str:
    """The run folder of figure 1's comparison: ``policies`` for the plan's own policies, with a digest
    of every contender when others join (other tuned parameters never reuse these runs)."""
    if [p.label for p in played] == list(plan.policies):
        return "policies"
    key = json.dumps([[p.label, p.policy, sorted(p.params_at(PLAYERS).items())] for p in played])
    return f"policies-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def _sweep_rows(policy: str, param: str, wins: dict[float, np.ndarray]) -> list[dict[str, Any]]:
    """Win rate per parameter value, and each value's paired difference from the best one (with its
    p-value; none for the best itself)."""
    rates = {value: w.mean() for value, w in wins.items()}
    best = max(rates, key=lambda value: (rates[value], -abs(value)))
    rows = [{"policy": policy, "param": param, "value": value, **rate_row(w), "best": value == best,
             **_paired(w, wins[best])} for value, w in wins.items()]
    for row in rows:   # the best value against itself is no comparison
        row["p_value"] = np.nan if row["best"] else row["p_value"]
    return rows


# ---------------------------------------------------------------- collect

def collect(out: str, *, n_games: int, seed: int, n_jobs: int, progress: bool | None = None,
            log: Callable[[str], Any] | None = None, plan: Plan = PLAN,
            choices: ReportChoices | None = None) -> CursedData:
    """Play every run of the plan (``n_games`` games each, one ``seed``) with run directories under
    ``out/runs`` and reduce them to the tables of :class:`CursedData`."""
    from cursedsim.runner import resolve_game

    game_obj = resolve_game(plan.game)
    n_games, seed = check_settings(n_games, seed, n_jobs)
    for policy in set(plan.policies + plan.souls_policies + plan.stop_policies + plan.item_policies
                      + plan.sensitivity_policies + ("counting",)):
        game_obj.policy(policy)
    for policy in plan.stop_policies:
        for k in plan.k_values:
            game_obj.policy(policy).param_vector({"k": k})
    for margin in plan.margins:
        game_obj.policy("counting").param_vector({"margin": margin})
    for item in plan.items:
        game_obj.make_options({"starting_item": item})
    for name, value in plan.options:
        game_obj.make_options({name: value})
    defaults = game_obj.make_options(None)
    log = log or (lambda message: None)
    played = compared_policies(game_obj, choices, plan)
    labels = tuple(p.label for p in played)
    runs = Runs(game_obj, out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=progress, log=log,
                choices=choices, total=plan.run_count + len(played) - len(plan.policies))
    outcomes = [c for c in game_obj.outcome_columns if c != "game_index"]
    ends = tuple(game_obj.outcome_categories["end"])

    # 1-2. the policies on the same games (tuned and added ones next to the plan's)
    log(f"policies on common games: {len(played)} runs of {n_games:,} games")
    comparison = runs.compare(_compare_folder(played, plan), [p.contender(PLAYERS) for p in played],
                              reference=plan.reference)
    tables: dict[str, list[pd.DataFrame]] = {"policies": [], "items_used": [], "ends": [], "souls": []}
    for label in labels:
        for key, table in _policy_tables(label, comparison.frames[label], plan.items, ends,
                                         defaults.win_souls).items():
            tables[key].append(table)
    souls = concat(tables["souls"])
    souls = souls[souls["policy"].isin(plan.souls_policies)].reset_index(drop=True)
    diffs = comparison.pairs[comparison.pairs["b"] == plan.reference].reset_index(drop=True)
    default_frames = {policy: comparison.frames[policy][outcomes]
                      for policy in set(plan.item_policies + plan.sensitivity_policies)}
    del comparison

    # 3. when to stop drawing: the stopping parameters swept
    log(f"when to stop: {len(plan.stop_policies) * len(plan.k_values) + len(plan.margins)} runs of "
        f"{n_games:,} games")
    sweep_rows = []
    for policy in plan.stop_policies:
        wins = {k: runs.simulate(os.path.join("stop", f"{policy}-k{k}"), policy=policy,
                                 params={"k": k})["win"].to_numpy() for k in plan.k_values}
        sweep_rows += _sweep_rows(policy, "k", wins)
    wins = {m: runs.simulate(os.path.join("stop", f"counting-margin{m:+g}"), policy="counting",
                             params={"margin": m})["win"].to_numpy() for m in plan.margins}
    sweep_rows += _sweep_rows("counting", "margin", wins)
    stop_sweep = with_holm(pd.DataFrame(sweep_rows))

    # 4. the value of each starting item, against the random start on the same games
    starts = [(item, {"starting_item": item}) for item in plan.items] + [(NO_START, {"starting_items": 0})]
    log(f"starting items: {len(plan.item_policies) * len(starts)} runs of {n_games:,} games")
    start_rows = []
    for policy in plan.item_policies:
        default = default_frames[policy]
        start_rows.append({"policy": policy, "start": RANDOM_START, **rate_row(default["win"].to_numpy()),
                           "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0, "p_value": np.nan,
                           "games_changed": 0.0})
        for start, options in starts:
            frame = runs.simulate(os.path.join("start", f"{start}-{policy}"), policy=policy, options=options)
            start_rows.append({"policy": policy, "start": start, **rate_row(frame["win"].to_numpy()),
                               **_paired(frame["win"].to_numpy(), default["win"].to_numpy()),
                               "games_changed": float(games_changed(frame, default, outcomes).mean())})
            del frame
    start_items = with_holm(pd.DataFrame(start_rows))

    # 5. every ambiguous rule against its default, on the same games
    log(f"rule options: {len(plan.options) * len(plan.sensitivity_policies)} runs of {n_games:,} games")
    sens_rows, dependence_rows = [], []
    for name, value in plan.options:
        changes = {}
        for policy in plan.sensitivity_policies:
            frame = runs.simulate(os.path.join("options", f"{name}-{value}".lower(), policy), policy=policy,
                                  options={name: value})
            default = default_frames[policy]
            sens_rows.append({"option": name, "value": value, "policy": policy,
                              **paired_win_change(frame, default, outcomes)})
            changes[policy] = frame["win"].to_numpy(np.float64) - default["win"].to_numpy(np.float64)
            del frame
        dependence_rows += [{"option": name, "value": value, **row} for row in difference_of_differences(changes)]
    sensitivity = with_holm(pd.DataFrame(sens_rows))
    dependence = with_holm(pd.DataFrame(dependence_rows))

    policy_params = {p.label: {key: float(v) for key, v in
                               {**game_obj.policy(p.policy).params, **p.params_at(PLAYERS)}.items()}
                     for p in played}
    return CursedData(
        **runs.provenance(), plan=plan, labels=labels, policy_params=policy_params,
        policy_sources={p.label: p.source for p in played}, policies=concat(tables["policies"]),
        policy_diffs=diffs, items_used=concat(tables["items_used"]), ends=concat(tables["ends"]), souls=souls,
        stop_sweep=stop_sweep, start_items=start_items, sensitivity=sensitivity, dependence=dependence)


__all__ = ["NO_START", "PLAN", "PLAYERS", "RANDOM_START", "CursedData", "Plan", "collect",
           "compared_policies"]
