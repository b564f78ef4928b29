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
    defaults, docs = _params(table)
    return PolicySpec(name, policy_id, doc, params=defaults, param_docs=docs)


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
