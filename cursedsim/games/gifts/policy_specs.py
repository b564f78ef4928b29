"""The PolicySpecs of Cursed Gifts (names, future kernel ids, descriptions, parameters), shared by the
reference policies and the kernel to come; the exact decision rules are the docstrings of
``reference_policies``. Parameters are float64 vectors in the order listed."""

from __future__ import annotations

from cursedsim.games.base import PolicySpec

RANDOM = 0
LEADER = 1
WEAKEST_LINK = 2
SPREAD = 3
DEFENSIVE = 4
#: The search (rollout.py): never a policy id of the kernel's policies; a searching seat plays its base
#: policy's id there, and rollout.play_chunk halts the game at its decisions.
ROLLOUT = 5

PARAM_DOCS = {
    "heal_at": "gauge total from which the player heals (antidotes, Emergency Ifren) when it can",
    "riposte_min": "smallest value a card adds to its gauge for the player to spend a riposte or Cacarma on "
                   "it (a card that would eliminate it is always answered; Mugging adds 0)",
    "heal_first": "1: heal before attacking in a turn; 0: attack first, then heal",
    "keep": "ripostes held back for a card that would eliminate it: one is spent on a smaller card only while "
            "the hand holds more than keep ripostes (Cacarma is not limited)",
}


def _params(heal_at: float, riposte_min: float, heal_first: float, keep: float) -> dict[str, float]:
    return {"heal_at": heal_at, "riposte_min": riposte_min, "heal_first": heal_first, "keep": keep}


#: ``tune``'s default space of the four heuristics (any side): the parameters' whole meaningful ranges, not a
#: scan: a gauge eliminates at 10, so healing starts at a total of 1-9; the reconstructed deck's plain gifts
#: are 1-5 points; a hand rarely holds more than 2 ripostes.
TUNE_SPACE = {"heal_at": (1, 9), "riposte_min": (1, 5), "heal_first": [0, 1], "keep": (0, 2)}


POLICIES = {
    "random": PolicySpec("random", RANDOM, "Uniform legal action at every decision (its seat's own stream)."),
    "leader": PolicySpec(
        "leader", LEADER,
        "The rulebook's advice: every attack goes to the opponent with the fullest gauge; gives its biggest "
        "gift, raises that player's biggest gift; heals from heal_at; answers what would eliminate it or "
        "adds riposte_min or more.",
        params=_params(7.0, 1.0, 0.0, 0.0), param_docs=dict(PARAM_DOCS), tune_space=TUNE_SPACE),
    "weakest_link": PolicySpec(
        "weakest_link", WEAKEST_LINK,
        "As leader, but attacks the opponent with the fewest cards in hand (least able to answer), ties to "
        "the fullest gauge.",
        params=_params(7.0, 1.0, 0.0, 0.0), param_docs=dict(PARAM_DOCS), tune_space=TUNE_SPACE),
    "spread": PolicySpec(
        "spread", SPREAD,
        "As leader, but attacks the opponent with the emptiest gauge (spreads the gifts, against the "
        "rulebook's advice).",
        params=_params(7.0, 1.0, 0.0, 0.0), param_docs=dict(PARAM_DOCS), tune_space=TUNE_SPACE),
    "defensive": PolicySpec(
        "defensive", DEFENSIVE,
        "Heals first from a low gauge (heal_at 4), answers only gifts of 3 or more (or one that would "
        "eliminate it) and keeps its last riposte for a card that would eliminate it; otherwise attacks as "
        "leader.",
        params=_params(4.0, 3.0, 1.0, 1.0), param_docs=dict(PARAM_DOCS), tune_space=TUNE_SPACE),
}

#: The search, beside the heuristics: a policy of both sides of the runner (``ALL_POLICIES``), played by
#: ``rollout.run_chunk`` (its reference twin: ``reference_policies.RolloutPolicy``); the policy matrix and
#: the heuristics' differential tests are of ``POLICIES``.
SEARCH_POLICIES = {
    "rollout": PolicySpec(
        "rollout", ROLLOUT,
        "Flat Monte-Carlo search (compiled): at each of its main decisions (play a card to a seat, the bonus "
        "gift to a seat, or end the turn: the base policy's choice first, then ending the turn, then every "
        "playable card, one copy of identical ones, to every seat it may go to) and first answers (the base "
        "policy's, pass, Cacarma, each kind of riposte held), n playouts of each candidate to the end of the "
        "game, every seat played by its own policy (a searching seat by its base), the other seats' hands and "
        "the draw pile dealt anew from the cards the seat cannot see in every playout (hand sizes kept), the "
        "same random numbers for every candidate; the most playouts won decides, ties to the base policy. "
        "docs/rules/gifts.md, 'rollout: gifts'.",
        params={"n": 16.0, "base": float(SPREAD), "cap": 24.0},
        param_docs={
            "n": "playouts per candidate at each decision (0: the base policy alone)",
            "base": "policy id of the built-in policy that gives the first candidate, takes the decisions the "
                    "search does not and plays the seat in every playout (0 random, 1 leader, 2 weakest_link, "
                    "3 spread, 4 defensive, with their default parameters)",
            "cap": "candidates per decision, at most (1: the base policy's choice alone), up to 32",
        }),
}
ALL_POLICIES = {**POLICIES, **SEARCH_POLICIES}
