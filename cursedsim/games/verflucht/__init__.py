"""Verflucht! (Amigo Spiele, 2018): co-operative, 1-5 players, banish Creatures with Items, Seals as
the last line of defence. This module registers the game: rules, kernel, policies and reference."""

from __future__ import annotations

import dataclasses

import numpy as np

from cursedsim.games.base import Game
from cursedsim.games.verflucht import kernel, rules
from cursedsim.games.verflucht.policies import POLICIES
from cursedsim.games.verflucht.state import option_vector


def reference_policy(policy: str, params: np.ndarray):
    """The policy object the reference engine plays for a built-in policy name: the readable
    ``BaselinePolicy`` for ``baseline``, the numba policy through ``KernelPolicy`` otherwise."""
    from cursedsim.games.verflucht.reference_policies import BaselinePolicy, KernelPolicy
    if policy == "baseline":
        return BaselinePolicy()
    return KernelPolicy(POLICIES[policy].policy_id, params)


def run_chunk(seed: int, start: int, count: int, players: int, options: rules.RuleOptions,
              policy: str, params: np.ndarray) -> dict[str, np.ndarray]:
    """Kernel games ``start .. start+count-1`` of the run ``seed``: outcome arrays by column."""
    return kernel.run_chunk(seed, start, count, players, option_vector(options, players),
                            POLICIES[policy].policy_id, params)


def replay(seed: int, index: int, players: int, options: rules.RuleOptions, policy: str,
           params: np.ndarray) -> str:
    """The turn log of game ``index`` of the run ``seed``, played by the reference engine."""
    from cursedsim.games.verflucht.reference import replay_log
    log = replay_log(seed, index, players, options, reference_policy(policy, params))
    return log.replace(f"policy {type(reference_policy(policy, params)).__name__}", f"policy {policy}", 1)


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
    run_chunk=run_chunk,
    replay=replay,
    option_columns=option_columns,
    outcome_columns=kernel.OUTCOME_COLUMNS,
    outcome_categories={"end": rules.END_NAMES},
    description="co-op: banish Creatures with Items before they attack; Seals shuffle attackers back",
)
