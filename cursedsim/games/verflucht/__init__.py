"""Verflucht! (Amigo Spiele, 2018): co-operative, 1-5 players, banish Creatures with Items, Seals as
the last line of defence. This module registers the game: rules, kernel, policies and reference."""

from __future__ import annotations

import dataclasses

import numpy as np

from cursedsim.games.base import Game, Measure, PolicySpec
from cursedsim.games.verflucht import kernel, reference, rollout, rules, turnlog
from cursedsim.games.verflucht.policies import POLICIES, ROLLOUT
from cursedsim.games.verflucht.state import option_vector


def policy_spec(policy: str | PolicySpec) -> PolicySpec:
    """The PolicySpec of a policy given by name or already resolved (as the runner passes it)."""
    return policy if isinstance(policy, PolicySpec) else POLICIES[policy]


def reference_policy(policy: str | PolicySpec, params: np.ndarray):
    """The policy object the reference engine plays: the readable ``BaselinePolicy`` for
    ``baseline``, a user's Python policy as registered, any numba policy through ``KernelPolicy``."""
    from cursedsim.games.verflucht.reference_policies import BaselinePolicy, KernelPolicy
    spec = policy_spec(policy)
    if spec.engine == "python":
        return spec.impl(params)
    if spec.impl is not None:
        return KernelPolicy(spec.policy_id, params, spec.impl.decide_attack, spec.impl.decide_banish)
    if spec.name == "baseline":
        return BaselinePolicy()
    if spec.policy_id == ROLLOUT:
        from cursedsim.games.verflucht.reference_policies import RolloutPolicy
        return RolloutPolicy(params)
    return KernelPolicy(spec.policy_id, params)


def run_chunk(seed: int, start: int, count: int, players: int, options: rules.RuleOptions,
              policy: str | PolicySpec, params: np.ndarray) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of the run ``seed``: outcome arrays by column. The kernel
    plays them, or the reference engine for a user's Python policy."""
    spec = policy_spec(policy)
    if spec.engine == "python":
        return reference.play_chunk(seed, start, count, players, options, spec.impl(params))
    if spec.policy_id == ROLLOUT and spec.impl is None:
        return rollout.run_chunk(seed, start, count, players, option_vector(options, players), params,
                                 options.information == "private")
    play = spec.impl.play_chunk() if spec.impl is not None else None
    return kernel.run_chunk(seed, start, count, players, option_vector(options, players),
                            spec.policy_id, params, play=play)


def replay_events(seed: int, index: int, players: int, options: rules.RuleOptions, policy: str | PolicySpec,
                  params: np.ndarray) -> list[dict]:
    """The events of game ``index`` of the run ``seed`` (``turnlog.EVENTS``), played by the reference
    engine: the game the kernel played as that row."""
    spec = policy_spec(policy)
    return reference.replay_events(seed, index, players, options, reference_policy(spec, params), spec.name)


def replay(seed: int, index: int, players: int, options: rules.RuleOptions, policy: str | PolicySpec,
           params: np.ndarray) -> str:
    """The turn log of game ``index`` of the run ``seed``, rendered from its events."""
    return turnlog.text(replay_events(seed, index, players, options, policy, params))


def option_columns(options: rules.RuleOptions, players: int) -> dict:
    """The frame's option columns: every rule option, with ``seals`` resolved for ``players``."""
    columns = {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}
    columns["seals"] = options.seals_for(players)
    return columns


GAME = Game(
    name="verflucht",
    title="Verflucht!",
    min_players=rules.MIN_PLAYERS,
    max_players=rules.MAX_PLAYERS,
    options_type=rules.RuleOptions,
    policies=POLICIES,
    default_policy="baseline",
    default_players=3,
    run_chunk=run_chunk,
    replay=replay,
    replay_events=replay_events,
    option_columns=option_columns,
    outcome_columns=kernel.OUTCOME_COLUMNS,
    outcome_categories={"end": rules.END_NAMES},
    measures=(Measure("score", "mean score (won) ± SE", won_only=True, se=True),   # lower is better
              Measure("turns", "mean turns")),
    description="co-op: banish Creatures with Items before they attack; Seals shuffle attackers back",
    step_module="cursedsim.games.verflucht.step",
    report_module="cursedsim.report.verflucht",
    # compile_estimate: its cold first simulate on one core, results/benchmarks/compile.json
    compile_estimate=7.0,
    # warm_estimate: `cursedsim compile verflucht` from an empty cache, one core (two games at once, load ~2,
    # 2026-12-05): the order of `cursedsim compile`'s games
    warm_estimate=24.0,
    cache_identity="games/verflucht",
)
