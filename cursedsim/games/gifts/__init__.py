"""Cursed Gifts (Maudits Cadeaux): a 2-6 player elimination game of gifts nobody may refuse, on a deck a
user can replace. Facts and options: ``rules.py``; the deck files and their validator: ``deck.py`` with
the effect vocabulary ``effects.py``; action ids and decisions: ``state.py``; the readable engine:
``reference.py`` with ``reference_policies.py``; the numba engine: ``kernel.py`` with ``policies.py``;
the policies: ``policy_specs.py``; everything implemented and assumed: docs/rules/gifts.md.

This module is the game's record for the runner (``GAME``): seats as sides, ``focus`` (one seat, the
``focus_seat`` option: rotating by default) and ``field`` (every other seat). A single policy name plays
every seat (``policy="leader"``); ``policy={"focus": "leader", "field": "random"}`` measures one
strategy against a field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from cursedsim.games.base import Game, Measure, PolicySpec, Side
from cursedsim.games.gifts import kernel, rollout, rules
from cursedsim.games.gifts.deck import deck_of
from cursedsim.games.gifts.policy_specs import ALL_POLICIES, ROLLOUT

#: The sides, in order: the focus seat and the other seats.
SIDES = ("focus", "field")


def _specs(policy: Mapping[str, PolicySpec | str]) -> dict[str, PolicySpec]:
    """Side -> PolicySpec from what the runner passes (specs; names are accepted for direct calls)."""
    return {side: spec if isinstance(spec, PolicySpec) else ALL_POLICIES[spec] for side, spec in policy.items()}


def _vectors(specs: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray] | None) -> dict[str, np.ndarray]:
    params = params or {}
    return {side: np.asarray(params[side], dtype=np.float64) if side in params else spec.param_vector()
            for side, spec in specs.items()}


def side_columns(winner_seat: np.ndarray, focus_seat: np.ndarray, unfinished: np.ndarray) -> dict[str, np.ndarray]:
    """``focus_won`` (the focus seat won) and ``field_won`` (another seat won); both False when the game
    is unfinished."""
    finished = ~np.asarray(unfinished, bool)
    focus_won = finished & (winner_seat == focus_seat)
    return {"focus_won": focus_won, "field_won": finished & (winner_seat >= 0) & ~focus_won}


def run_chunk(seed: int, start: int, count: int, players: int, options: rules.RuleOptions,
              policy: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of the run ``seed``, played by the kernel: outcome arrays by
    column (``rules.FRAME_OUTCOME_COLUMNS``). ``policy``/``params``: side -> PolicySpec / float64 vector."""
    specs = _specs(policy)
    vectors = _vectors(specs, params)
    search = any(spec.policy_id == ROLLOUT for spec in specs.values())
    play = rollout.run_chunk if search else kernel.run_chunk
    out = play(seed, start, count, players, options, specs["focus"].policy_id, vectors["focus"],
               specs["field"].policy_id, vectors["field"], rules.focus_seat_number(options, players))
    out.update(side_columns(out["winner_seat"], out["focus_seat"], out["unfinished"]))
    return out


def seat_twins(policy: Mapping[str, PolicySpec | str], params: Mapping[str, np.ndarray] | None, index: int,
               players: int, options: rules.RuleOptions) -> list:
    """The readable twins of game ``index``'s seats: the focus seat's policy there, the field's elsewhere."""
    from cursedsim.games.gifts import reference, reference_policies
    specs = _specs(policy)
    vectors = _vectors(specs, params)
    focus = reference.focus_seat_of(index, players, rules.focus_seat_number(options, players))
    return [reference_policies.make(specs[side], vectors[side])
            for side in ("focus" if seat == focus else "field" for seat in range(players))]


def replay_events(seed: int, index: int, players: int, options: rules.RuleOptions,
                  policy: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray]) -> list[dict]:
    """The events of game ``index`` of the run ``seed``, played by the reference engine: the game the
    kernel played as that row."""
    from cursedsim.games.gifts import reference
    return reference.replay_events(seed, index, players, options, seat_twins(policy, params, index, players, options))


def replay(seed: int, index: int, players: int, options: rules.RuleOptions, policy: Mapping[str, PolicySpec],
           params: Mapping[str, np.ndarray]) -> str:
    """The turn log of game ``index`` of the run ``seed``, rendered from its events."""
    from cursedsim.games.gifts import turnlog
    return turnlog.text(replay_events(seed, index, players, options, policy, params))


def option_columns(options: rules.RuleOptions, players: int) -> dict:
    """The frame's option columns: every rule option as set, the deck as ``name@digest`` (the deck
    actually played, ``without_card`` applied: a changed file never passes for the old one). Checks the
    options that depend on the table: the focus seat and the card kind left out."""
    rules.focus_seat_number(options, players)
    columns = {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}
    columns["deck"] = deck_of(options.deck, options.without_card).label
    return columns


def run_identity(options: rules.RuleOptions, players: int) -> dict:
    """The deck a run plays, ``name@digest``: a run directory never resumes with a deck file rewritten at the
    same path."""
    return {"deck": deck_of(options.deck, options.without_card).label}


FOCUS = Side("focus", ALL_POLICIES, "leader", "focus_won",
             "One seat (option focus_seat: rotating by default, game i at seat i % players): the strategy "
             "measured against the field.")
FIELD = Side("field", ALL_POLICIES, "leader", "field_won",
             "Every other seat, one policy for all (each deciding from its own cards).")

GAME = Game(
    name="gifts",
    title="Cursed Gifts",
    min_players=rules.MIN_PLAYERS,
    max_players=rules.MAX_PLAYERS,
    options_type=rules.RuleOptions,
    policies={},
    default_policy="",
    default_players=rules.DEFAULT_PLAYERS,
    run_chunk=run_chunk,
    replay=replay,
    replay_events=replay_events,
    option_columns=option_columns,
    outcome_columns=rules.FRAME_OUTCOME_COLUMNS,
    description="elimination game of cursed gifts on a replaceable deck: last player standing wins",
    measures=(Measure("turns", "mean turns"), Measure("unfinished", "share unfinished")),
    sides=(FOCUS, FIELD),
    seat_column="winner_seat",
    code_columns=("winner_seat", "elimination_order", "focus_dealt", "focus_seat"),
    one_policy_all_sides=True,
    run_identity=run_identity,
    step_module="cursedsim.games.gifts.step",
    report_module="cursedsim.report.gifts",
    # compile_estimate: its cold first simulate on one core, results/benchmarks/compile.json
    compile_estimate=31.0,
    # warm_estimate: `cursedsim compile gifts` from an empty cache, one core (two games at once, load ~2,
    # 2026-12-05): the order of `cursedsim compile`'s games
    warm_estimate=56.0,
    cache_identity="games/gifts",
)
