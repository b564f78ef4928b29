"""So, You've Been Cursed. (``village``): a Wizard racing up the Cure track against a Monster racing up
the Curse track on a village board, for 2, 1 or 0 players.

Facts and options: ``rules.py`` (modes, sides, RuleOptions O1-O32, outcome columns) and
``components.py``; the board file: ``board.py`` (reconstructed default ``data/default_board.toml``,
validator, generator); the cards: ``cards.py`` (``data/cards.toml``); the readable engine:
``reference.py`` with ``automata.py`` (the Possessed Wizard and the Rabid Monster), ``wizard_player.py``
and ``monster_player.py`` (the players' turns) and their policies ``wizard_policies.py`` /
``monster_policies.py``; the numba engine: ``state.py`` and ``kernel.py``; the policies of both sides:
``policy_specs.py``; every rule, quoted: docs/rules/village.md.

This module is the game's record for the runner (``GAME``): sides ``wizard`` and ``monster``; the
automata are policies of their sides (``possessed``, ``rabid``) and the pairing decides the mode:
``{"wizard": "possessed", "monster": "rabid"}`` (the default) is the 0-player game, a player's policy
against an automaton that solo game, two players' policies the duel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from cursedsim.games.base import Game, Measure, PolicySpec, Side
from cursedsim.games.village import rules
from cursedsim.games.village.board import board_of
from cursedsim.games.village.cards import cards_of
from cursedsim.games.village.policy_specs import ALL_MONSTER_POLICIES, ALL_WIZARD_POLICIES, MODE_PAIRINGS, ROLLOUT

#: The table always seats the two sides; how many of them are people follows from the pairing.
SEATS = 2
CATALOGUE = {rules.WIZARD: ALL_WIZARD_POLICIES, rules.MONSTER: ALL_MONSTER_POLICIES}


def _specs(policy: Mapping[str, PolicySpec | str]) -> dict[str, PolicySpec]:
    """Side -> PolicySpec from what the runner passes (specs; names are accepted for direct calls)."""
    return {side: spec if isinstance(spec, PolicySpec) else CATALOGUE[side][spec] for side, spec in policy.items()}


def _vectors(specs: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray] | None) -> dict[str, np.ndarray]:
    params = params or {}
    return {side: np.asarray(params[side], dtype=np.float64) if side in params else spec.param_vector()
            for side, spec in specs.items()}


def mode_of_pairing(specs: Mapping[str, PolicySpec]) -> str:
    """The mode a pairing plays: a side given its automaton is played by it (rules.mode_of)."""
    return rules.mode_of(specs[rules.WIZARD].name == rules.AUTOMATON_POLICIES[rules.WIZARD],
                         specs[rules.MONSTER].name == rules.AUTOMATON_POLICIES[rules.MONSTER])


def side_columns(winner: np.ndarray) -> dict[str, np.ndarray]:
    """``wizard_won`` / ``monster_won`` from the ``winner`` code (-1: unfinished, neither won)."""
    winner = np.asarray(winner)
    return {f"{side}_won": winner == k for k, side in enumerate(rules.SIDES)}


def run_chunk(seed: int, start: int, count: int, players: int, options: rules.RuleOptions,
              policy: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of the run ``seed``, played by the kernel in the mode of the
    pairing: outcome arrays by column (``rules.FRAME_OUTCOME_COLUMNS``)."""
    specs = _specs(policy)
    vectors = _vectors(specs, params)
    search = any(spec.policy_id == ROLLOUT and spec.name == "rollout" for spec in specs.values())
    if search:
        from cursedsim.games.village import rollout as play
    else:
        from cursedsim.games.village import kernel as play
    out = play.run_chunk(seed, start, count, options, board_of(options.board), mode_of_pairing(specs),
                           specs[rules.WIZARD].policy_id, vectors[rules.WIZARD],
                           specs[rules.MONSTER].policy_id, vectors[rules.MONSTER], cards=cards_of(options.cards))
    out.pop("_decisions", None)
    out.update(side_columns(out["winner"]))
    return out


def controllers(specs: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray] | None) -> dict:
    """Side -> the reference engine's controller of each player side (None for an automaton)."""
    import importlib
    vectors = _vectors(specs, params)
    found = {}
    for side, spec in specs.items():
        if spec.name == rules.AUTOMATON_POLICIES[side]:
            found[side] = None
        elif spec.policy_id == ROLLOUT:
            raise NotImplementedError("village rollout plays in the kernel only: no reference twin yet, so no "
                                      "replay of a rollout game (issue 29)")
        else:
            module = importlib.import_module(f"cursedsim.games.village.{side}_policies")
            found[side] = module.make(spec.name, vectors[side])
    return found


def replay_events(seed: int, index: int, players: int, options: rules.RuleOptions,
                  policy: Mapping[str, PolicySpec], params: Mapping[str, np.ndarray]) -> list[dict]:
    """The events of game ``index`` of the run ``seed``, played by the reference engine: the game the
    kernel played as that row."""
    from cursedsim.games.village import reference
    specs = _specs(policy)
    table = reference.play(seed, index, options, mode=mode_of_pairing(specs), controllers=controllers(specs, params),
                           log=True)
    return list(table.events)


def replay(seed: int, index: int, players: int, options: rules.RuleOptions, policy: Mapping[str, PolicySpec],
           params: Mapping[str, np.ndarray]) -> str:
    """The turn log of game ``index`` of the run ``seed``, rendered from its events."""
    from cursedsim.games.village import turnlog
    return turnlog.text(replay_events(seed, index, players, options, policy, params))


def option_columns(options: rules.RuleOptions, players: int) -> dict:
    """The frame's option columns: every rule option as set, and the board and cards actually played as
    ``name@digest`` (the default board is labelled reconstructed; a changed file never passes for the old)."""
    columns = {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}
    columns.update(run_identity(options, players))
    return columns


def run_identity(options: rules.RuleOptions, players: int) -> dict:
    """The board and cards a run plays (``name@digest``): a run directory never resumes with a board or
    cards file rewritten at the same path."""
    return {"board": board_of(options.board).label, "cards": cards_of(options.cards).label}


WIZARD = Side(rules.WIZARD, ALL_WIZARD_POLICIES, "possessed", "wizard_won",
              "The Wizard: mixes a Cure from ingredients bought, stolen for and cast for; wins at the top of "
              "the Cure track. possessed = the Possessed Wizard automaton.")
MONSTER = Side(rules.MONSTER, ALL_MONSTER_POLICIES, "rabid", "monster_won",
               "The Monster: eats villagers to climb the Curse track; wins at its top. rabid = the Rabid "
               "Monster automaton.")

GAME = Game(
    name="village",
    title="So, You've Been Cursed.",
    min_players=SEATS,
    max_players=SEATS,
    options_type=rules.RuleOptions,
    policies={},
    default_policy="",
    default_players=SEATS,
    run_chunk=run_chunk,
    replay=replay,
    replay_events=replay_events,
    option_columns=option_columns,
    outcome_columns=rules.FRAME_OUTCOME_COLUMNS,
    outcome_categories=rules.OUTCOME_CATEGORIES,
    description="Wizard against Monster on a village board (replaceable, reconstructed by default); the "
                "pairing decides the mode: possessed vs rabid is the 0-player game",
    measures=(Measure("turns", "mean turns"), Measure("unfinished", "share unfinished")),
    sides=(WIZARD, MONSTER),
    run_identity=run_identity,
    # the turn an effect first fired, 0 = never: a mean over games would mix "never" with "at turn 0"
    code_columns=tuple(f"first_{effect}" for effect in rules.PANIC_EFFECTS),
    players_doc="the two sides, wizard and monster; how many are people follows from the pairing: "
                "--policy wizard=planner plays the solo game against the Rabid Monster, both automata "
                "(the default) the 0-player game",
    modes=MODE_PAIRINGS,
    step_module="cursedsim.games.village.step",
    report_module="cursedsim.report.village",
    # compile_estimate: its cold first simulate on one core (the default pairing: the 0-player game's own
    # entry, play_chunk_automata), 0.22 of the 58.1 s of results/benchmarks/compile.json in alternation
    # (docs/performance.md, "Compile time: So, You've Been Cursed."); a player's pairing first compiles ~50 s
    compile_estimate=13.0,
    # warm_estimate: `cursedsim compile village` from an empty cache, one core (two games at once, load ~2,
    # 2026-12-05): the order of `cursedsim compile`'s games
    warm_estimate=77.0,
    cache_identity="games/village",
)
