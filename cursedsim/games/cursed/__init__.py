"""Cursed!? (Goblin Hour Games, 2023): solo; fight monsters with blackjack-style weapon draws from a deck
that is also your life. Rules and facts: ``rules.py``; the readable engine: ``reference.py``; its
policies: ``reference_policies.py``; the numba engine: ``kernel.py`` with ``policies.py`` over the
layout of ``state.py``; everything implemented and assumed: docs/rules/cursed.md.

This module is the game's record for the runner (``GAME``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cursedsim.errors import UnknownPolicyError
from cursedsim.games.base import Game, Measure, PolicySpec
from cursedsim.games.cursed import kernel, reference, rules, turnlog
from cursedsim.games.cursed.policies import POLICIES
from cursedsim.games.cursed.state import option_tuple

# optimal_fight (issues 14, 29): the exact DP of each fight, in the kernel (optimal_kernel.py); its
# reference twin is optimal_fight.OptimalFightPolicy
from cursedsim.games.cursed import optimal_fight  # noqa: E402

POLICIES[optimal_fight.SPEC.name] = optimal_fight.SPEC

# rollout (issue 29): flat Monte-Carlo search over optimal_fight at every fight decision point (rollout.py)
from cursedsim.games.cursed import rollout  # noqa: E402

POLICIES[rollout.SPEC.name] = rollout.SPEC


def policy_spec(policy: str | PolicySpec) -> PolicySpec:
    """The PolicySpec of a policy given by name or already resolved (as the runner passes it)."""
    return policy if isinstance(policy, PolicySpec) else POLICIES[policy]


def reference_policy(policy: str | PolicySpec, params: np.ndarray | None = None):
    """The readable twin of a policy, for the reference engine: ``RandomPolicy``, ``ThresholdPolicy``,
    ``NoItemsPolicy``, ``CountingPolicy``, ``optimal_fight.OptimalFightPolicy`` or (rollout, which replays
    the kernel search's decisions) ``RolloutPolicy`` with the parameters of
    ``params`` (the spec's defaults when None); a user's Python policy as registered; a user's numba
    functions through ``user_policies.KernelPolicy``."""
    from cursedsim.games.cursed.reference_policies import (
        CountingPolicy,
        NoItemsPolicy,
        RandomPolicy,
        ThresholdPolicy,
    )
    spec = policy_spec(policy)
    if params is None:
        params = spec.param_vector()
    if spec.engine == "python":
        return spec.impl(params)
    if spec.impl is not None:
        from cursedsim.games.cursed.user_policies import kernel_policy
        return kernel_policy(spec, params)
    if spec.policy_id == rollout.pol.ROLLOUT:   # the kernel search's decisions, replayed on the base's twin
        from cursedsim.games.cursed.reference_policies import RolloutPolicy
        return RolloutPolicy(params)
    values = {name: float(v) for name, v in zip(spec.params, params)}
    if spec.name == "random":
        return RandomPolicy()
    if spec.name == "threshold":
        return ThresholdPolicy(**values)
    if spec.name == "no_items":
        return NoItemsPolicy(**values)
    if spec.name == "counting":
        return CountingPolicy(**values)
    if spec.name == "optimal_fight":
        return optimal_fight.make_policy(params)
    raise UnknownPolicyError(f"policy {spec.name!r} has no reference-engine twin")


def run_chunk(seed: int, start: int, count: int, players: int, options: rules.RuleOptions,
              policy: str | PolicySpec, params: np.ndarray) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of the run ``seed``: outcome arrays by column. The kernel plays
    them (a user's numba policy: the kernel built around its functions, ``user_policies``), or the
    reference engine for a user's Python policy."""
    spec = policy_spec(policy)
    if spec.engine == "python":
        return reference.play_chunk(seed, start, count, options, spec.impl(params))
    if spec.policy_id == rollout.pol.ROLLOUT and spec.impl is None:
        out = rollout.run_chunk(seed, start, count, option_tuple(options), params)
        out.pop("_decisions")
        return out
    play = spec.impl.play_chunk() if spec.impl is not None else None
    if spec.policy_id == optimal_fight.OPTIMAL_FIGHT and play is None:
        optimal_fight.check_params(params)
    return kernel.run_chunk(seed, start, count, option_tuple(options), spec.policy_id, params, play=play)


def replay_events(seed: int, index: int, players: int, options: rules.RuleOptions, policy: str | PolicySpec,
                  params: np.ndarray) -> list[dict]:
    """The events of game ``index`` of the run ``seed`` (``turnlog.EVENTS``), played by the reference
    engine: the game the kernel played as that row."""
    spec = policy_spec(policy)
    return reference.replay_events(seed, index, options, reference_policy(spec, params), spec.name)


def replay(seed: int, index: int, players: int, options: rules.RuleOptions, policy: str | PolicySpec,
           params: np.ndarray) -> str:
    """The turn log of game ``index`` of the run ``seed``, rendered from its events."""
    return turnlog.text(replay_events(seed, index, players, options, policy, params))


def option_columns(options: rules.RuleOptions, players: int) -> dict:
    """The frame's option columns: every rule option as set."""
    return {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}


GAME = Game(
    name="cursed",
    title="Cursed!?",
    min_players=1,
    max_players=1,
    options_type=rules.RuleOptions,
    policies=POLICIES,
    default_policy="threshold",
    default_players=1,
    run_chunk=run_chunk,
    replay=replay,
    replay_events=replay_events,
    option_columns=option_columns,
    outcome_columns=rules.OUTCOME_COLUMNS,
    outcome_categories={"end": rules.END_NAMES, "start_item": rules.ITEM_SLUGS},
    description="solo: fight monsters blackjack-style with weapons drawn from the deck that is your life",
    measures=(Measure("souls", "mean souls ± SE", se=True), Measure("rounds", "mean rounds"),
              Measure("damage_taken", "mean damage taken")),
    step_module="cursedsim.games.cursed.step",
    report_module="cursedsim.report.cursed",
    # compile_estimate: its cold first simulate on one core (threshold's own kernel), results/benchmarks/compile.json
    compile_estimate=14.0,
    # warm_estimate: `cursedsim compile cursed` from an empty cache, one core (two games at once, load ~2,
    # 2026-12-05: 155 s), 0.81 of it after the compile cut of 2026-12-06 (docs/performance.md, "Compile time:
    # Cursed!?"): the order of `cursedsim compile`'s games
    warm_estimate=126.0,
    cache_identity="games/cursed",
)
