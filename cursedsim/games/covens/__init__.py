"""Curses & Covens (Good Games Publishing): one Witch Hunter against 3-5 Town Players, a team game of
hidden cards. Rules and facts: ``rules.py`` (options), ``tables.py`` (card and spell arrays),
``state.py`` (option slots, action ids, decisions); the readable engine: ``reference.py`` with
``reference_policies.py``; the numba engine: ``kernel.py`` with ``policies.py`` (random against random:
``random_play.py``); the policies of both sides: ``policy_specs.py``; everything implemented and assumed:
docs/rules/covens.md.

This module is the game's record for the runner (``GAME``): the first game of sides, ``hunter`` and
``town``; a run names a policy per side (``policy={"hunter": "tracker", "town": "coven"}``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from cursedsim.games.base import Game, Measure, PolicySpec, Side
from cursedsim.games.covens import kernel, rollout, rules
from cursedsim.games.covens.policy_specs import HUNTER_POLICIES, ROLLOUT, TOWN_POLICIES


def _specs(policy: Mapping[str, PolicySpec | str]) -> dict[str, PolicySpec]:
    """Side -> PolicySpec from what the runner passes (specs; names are accepted for direct calls)."""
    catalogue = {"hunter": HUNTER_POLICIES, "town": TOWN_POLICIES}
    return {side: spec if isinstance(spec, PolicySpec) else catalogue[side][spec] for side, spec in policy.items()}


def _vectors(specs: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray] | None) -> dict[str, np.ndarray]:
    params = params or {}
    return {side: np.asarray(params[side], dtype=np.float64) if side in params else spec.param_vector()
            for side, spec in specs.items()}


def reference_twins(policy: Mapping[str, PolicySpec | str], params: Mapping[str, np.ndarray] | None = None):
    """(hunter, town): the readable twins of the run's policies for the reference engine."""
    from cursedsim.games.covens import reference_policies as twins
    specs = _specs(policy)
    vectors = _vectors(specs, params)
    made = tuple(twins.make(side, specs[side], vectors[side]) for side in rules.SIDES)
    for side, twin in zip(rules.SIDES, made):
        if isinstance(twin, twins.RolloutPolicy):   # the other side's policy of the run plays its playouts
            other = "town" if side == "hunter" else "hunter"
            if specs[other].policy_id == ROLLOUT:
                made_other = made[rules.SIDES.index(other)]
                twin.other = (made_other.base, made_other.base_params)
            else:
                twin.other = (specs[other].policy_id, vectors[other])
    return made


def run_chunk(seed: int, start: int, count: int, players: int, options: rules.RuleOptions,
              policy: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of the run ``seed``, played by the kernel: outcome arrays by
    column. ``policy``/``params``: side -> PolicySpec / float64 vector (``games.base.ChunkRunner``)."""
    specs = _specs(policy)
    vectors = _vectors(specs, params)
    if ROLLOUT in (specs["hunter"].policy_id, specs["town"].policy_id):
        return rollout.run_chunk(seed, start, count, players, options, specs["hunter"].policy_id, vectors["hunter"],
                                 specs["town"].policy_id, vectors["town"])
    return kernel.run_chunk(seed, start, count, players, options, specs["hunter"].policy_id, vectors["hunter"],
                            specs["town"].policy_id, vectors["town"])


def replay_events(seed: int, index: int, players: int, options: rules.RuleOptions,
                  policy: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray]) -> list[dict]:
    """The events of game ``index`` of the run ``seed``, played by the reference engine: the game the
    kernel played as that row."""
    from cursedsim.games.covens import reference
    specs = _specs(policy)
    hunter, town = reference_twins(specs, params)
    labels = {side: spec.name for side, spec in specs.items()}
    return reference.replay_events(seed, index, players, options, hunter, town, labels)


def replay(seed: int, index: int, players: int, options: rules.RuleOptions, policy: Mapping[str, PolicySpec],
           params: Mapping[str, np.ndarray]) -> str:
    """The turn log of game ``index`` of the run ``seed``, rendered from its events."""
    from cursedsim.games.covens import turnlog
    return turnlog.text(replay_events(seed, index, players, options, policy, params))


def option_columns(options: rules.RuleOptions, players: int) -> dict:
    """The frame's option columns: every rule option as set."""
    return {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}


HUNTER = Side("hunter", HUNTER_POLICIES, "tracker", "hunter_won",
              "The Witch Hunter: picks cards from the towns' hands; wins with 5 witches captured.")
TOWN = Side("town", TOWN_POLICIES, "coven", "town_won",
            "The Town Players, one policy for every town (each deciding from its own cards): win with a "
            "coven of 3 witches of one suit at a census, or when the hunter takes a second ritual.")

GAME = Game(
    name="covens",
    title="Curses & Covens",
    min_players=4,
    max_players=6,
    options_type=rules.RuleOptions,
    policies={},
    default_policy="",
    default_players=5,
    run_chunk=run_chunk,
    replay=replay,
    replay_events=replay_events,
    option_columns=option_columns,
    outcome_columns=rules.OUTCOME_COLUMNS,
    outcome_categories=rules.OUTCOME_CATEGORIES,
    description="team game of hidden cards: one Witch Hunter against 3-5 towns hiding witches",
    measures=(Measure("rounds", "mean rounds"), Measure("witches_captured", "mean witches captured")),
    sides=(HUNTER, TOWN),
    step_module="cursedsim.games.covens.step",
    report_module="cursedsim.report.covens",
    # compile_estimate: its cold first simulate on one core, results/benchmarks/compile.json
    compile_estimate=24.0,
    # warm_estimate: `cursedsim compile covens` from an empty cache, one core (two games at once, load ~2,
    # 2026-12-05): the order of `cursedsim compile`'s games
    warm_estimate=62.0,
    cache_identity="games/covens",
)
