"""The PolicySpecs of So, You've Been Cursed. per side (names, kernel ids, descriptions, parameters): the
automata printed in the rulebook are policies of their sides (``possessed``, ``rabid``), and the pairing
of a run decides the mode (``rules.mode_of``). The exact decision rules are the docstrings of
``wizard_policies`` and ``monster_policies`` (reference) mirrored by the kernel."""

from __future__ import annotations

from cursedsim.games.base import PolicySpec
from cursedsim.games.village import monster_policies, wizard_policies

#: Kernel ids, per side: 0 is the side's automaton.
AUTOMATON = 0
RANDOM = 1
PLANNER = 2
GLUTTON = 2


def _params(table) -> tuple[dict[str, float], dict[str, str]]:
    """(defaults, docs) of a policies module's ``PARAMS`` rows ``(name, default, low, high, doc)``."""
    return ({name: float(default) for name, default, *_ in table},
            {name: f"{doc} ({low:g}-{high:g})" for name, _, low, high, doc in table})


def _spec(name: str, policy_id: int, doc: str, table=()) -> PolicySpec:
    """A policy with its ``PARAMS`` rows; ``tune`` searches each parameter over its documented range
    (integers: both player policies score in integer arithmetic)."""
    defaults, docs = _params(table)
    space = {name: (int(low), int(high)) for name, _, low, high, _ in table} or None
    return PolicySpec(name, policy_id, doc, params=defaults, param_docs=docs, tune_space=space)


WIZARD_POLICIES = {
    "possessed": _spec("possessed", AUTOMATON,
                       "The Possessed Wizard automaton exactly as printed (V14: its cards decide its actions): "
                       "against rabid the 0-player game, against a Monster policy that player's solo game."),
    "random": _spec("random", RANDOM, "A Wizard player choosing uniformly among the legal options at every "
                                      "decision (its own random stream)."),
    "planner": _spec("planner", PLANNER, "Plans the cheapest route to the next Cure ingredients, steals when short "
                                         "of coins, casts spells by value (wizard_policies.Planner).",
                     wizard_policies.PARAMS["planner"]),
}
MONSTER_POLICIES = {
    "rabid": _spec("rabid", AUTOMATON,
                   "The Rabid Monster automaton exactly as printed (V13: its cards decide what it hunts): "
                   "against possessed the 0-player game, against a Wizard policy that player's solo game."),
    "random": _spec("random", RANDOM, "A Monster player choosing uniformly among the legal options at every "
                                      "decision (its own random stream)."),
    "glutton": _spec("glutton", GLUTTON, "Plans movement to eat pairs and triples of one type, manages Panic with "
                                         "Quiet Nights, plays Powers by value (monster_policies.Glutton).",
                     monster_policies.PARAMS["glutton"]),
}

#: The search (rollout.py), beside the heuristics: never a policy id of the kernel's policies; a searching
#: side plays its base policy's id there, and rollout.play_chunk halts the game at its decisions.
ROLLOUT = 3


def _rollout(side: str, base: int, base_names: str) -> PolicySpec:
    return PolicySpec(
        "rollout", ROLLOUT,
        f"Flat Monte-Carlo search (compiled) for the {side}: at each of its decisions with 2+ options, the base "
        "policy's choice first, then every other legal option (ascending codes) up to cap; n playouts of each "
        "to the end of the game, the side played by its base policy, the other side by its own policy of the "
        "run; what the side cannot see (deck orders, the other player's hand, face-down Town Guard tiles, "
        "every later die and draw) laid out anew in every playout, the same for every candidate; the most "
        "playouts won decides when it leads the base choice clearly (margin), ties to the base policy. "
        "docs/rules/village.md, 'rollout'.",
        params={"n": 16.0, "base": float(base), "cap": 8.0, "margin": 1.0},
        param_docs={
            "n": "playouts per candidate at each decision (0: the base policy alone)",
            "base": f"policy id of the built-in player policy that gives the first candidate, takes the decisions "
                    f"with one option and plays the side in every playout ({base_names}, default parameters)",
            "cap": "candidates per decision, at most (1: the base policy's choice alone), up to 64",
            "margin": "the lead over the base choice a candidate needs, in square roots of the playouts the two "
                      "ended differently (0: the most wins)",
        })


WIZARD_SEARCH = {"rollout": _rollout("Wizard", PLANNER, "1 random, 2 planner")}
MONSTER_SEARCH = {"rollout": _rollout("Monster", GLUTTON, "1 random, 2 glutton")}
#: Per side (rules.SIDES order).
SEARCH_POLICIES = (WIZARD_SEARCH, MONSTER_SEARCH)
#: Every policy of a side the runner accepts (the report's pairings and the differential tests are of the
#: heuristics, ``WIZARD_POLICIES`` / ``MONSTER_POLICIES``).
ALL_WIZARD_POLICIES = {**WIZARD_POLICIES, **WIZARD_SEARCH}
ALL_MONSTER_POLICIES = {**MONSTER_POLICIES, **MONSTER_SEARCH}

#: Each mode's standard pairing (``Game.modes``, one table for the game and its report): mode -> side ->
#: policy, the automaton where the mode has one and the best heuristic for a player (``planner``,
#: ``glutton``). The 0-player game comes first, as in the report. The keys are ``rules.MODE_NAMES``
#: (written out: ``rules`` is not imported here); ``tests/test_target_modes.py`` checks that every
#: pairing plays its mode (``mode_of_pairing``).
MODE_PAIRINGS = {
    "automata": {"wizard": "possessed", "monster": "rabid"},
    "rabid_monster": {"wizard": "planner", "monster": "rabid"},
    "possessed_wizard": {"wizard": "possessed", "monster": "glutton"},
    "duel": {"wizard": "planner", "monster": "glutton"},
}
