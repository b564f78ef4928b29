"""The PolicySpecs of Curses & Covens, per side (names, kernel ids, descriptions, parameters).

A tiny module so that the numba ``policies.py`` and the reference ``reference_policies.py`` share one
record; the exact decision rules are in the docstrings of ``reference_policies`` (the kernel copies
them). Parameters are float64 vectors in the order listed; flags are 0/1 (on when >= 0.5).
"""

from __future__ import annotations

from cursedsim.games.base import PolicySpec

HUNTER_RANDOM = 0
HUNTER_LARGEST_HAND = 1
HUNTER_TRACKER = 2
TOWN_RANDOM = 0
TOWN_COVEN = 1
TOWN_BLUFF = 2
#: The search of either side (rollout.py): never a ``policy_id`` of ``hunter_decide``/``town_decide``; its
#: games run in ``rollout.play_chunk``, which asks its base policy.
ROLLOUT = 3

_COVEN_PARAMS = {"risk": 0.5, "feed": 1.0, "cast": 1.0}
_COVEN_DOCS = {
    "risk": "witch share of its hand (witches / cards) from which a town hides an off-suit witch in the woods",
    "feed": "1: a town holding a ritual gives it to the gatherer (the hunter's likely target); 0: never",
    "cast": "1: cast a spell when one can (darkness, nature, passage, doom, despair, growth first); 0: never",
}

HUNTER_POLICIES = {
    "random": PolicySpec(
        "random", HUNTER_RANDOM,
        "Uniform legal action at every hunter decision (its own random stream)."),
    "largest_hand": PolicySpec(
        "largest_hand", HUNTER_LARGEST_HAND,
        "Picks (and names for Doom) the town holding the most cards; passes townsfolk to the allowed town "
        "with the fewest; under a ritual deals the lowest-code card left to each town in turn; never "
        "shuffles."),
    "tracker": PolicySpec(
        "tracker", HUNTER_TRACKER,
        "Keeps expected witch/fake/ritual/townsfolk counts per town from the census, his deals, the travel "
        "he saw and the hunt; picks the town with the best witch share less ritual and fake risk; passes "
        "townsfolk to the worst town; deals witches to likely targets; shuffles a known witch off the top; "
        "hunts first a town one card from a coven.",
        params={"ritual_fear": 1.0, "fake_fear": 0.5, "trust": 0.0, "shuffle": 1.0, "threat": 1.0},
        param_docs={
            "ritual_fear": "weight of a town's expected rituals, times (1 + rituals he holds)",
            "fake_fear": "weight of a town's expected fake witch, times the true witches he holds",
            "trust": "bonus added to the score of the town the census talk named as the gathering",
            "shuffle": "1: shuffle when a witch he knows sits in the top (towns) cards; 0: never shuffle",
            "threat": "bonus for a town whose census hand was one card from a coven (2 of one suit)",
        }),
}

TOWN_POLICIES = {
    "random": PolicySpec(
        "random", TOWN_RANDOM,
        "Uniform legal action at every town decision (its own random stream)."),
    "coven": PolicySpec(
        "coven", TOWN_COVEN,
        "Plans from the census: the town with the most witches of one suit gathers that suit; others give "
        "it their witches of that suit, the gatherer asks for them, towns hide off-suit witches in the "
        "woods and feed rituals to the gatherer; announces the true gatherer; casts a spell when it can.",
        params=dict(_COVEN_PARAMS), param_docs=dict(_COVEN_DOCS)),
    "bluff": PolicySpec(
        "bluff", TOWN_BLUFF,
        "Plays as coven but announces a decoy gathering: the town with the fewest witches at the census.",
        params=dict(_COVEN_PARAMS), param_docs=dict(_COVEN_DOCS)),
}


def _rollout(side: str, base: int, base_name: str, bases: str) -> PolicySpec:
    params = {"n": 16.0, "base": float(base), "cap": 16.0}
    docs = {
        "n": "playouts per candidate at each decision (0: the base policy alone)",
        "base": f"policy id of the built-in {side} policy that plays this side in every playout and gives the "
                f"first candidate ({bases}, with their default parameters; default {base_name})",
        "cap": "candidates per decision, at most (1: the base policy's choice alone), up to 32",
    }
    if side == "hunter":
        params["infer"] = 1.0
        docs["infer"] = ("1: the redraw after Travel replays the travel log by the towns' policy of the run where it "
                         "agrees with the log (an opponent model); 0: each moved card drawn uniformly")
    return PolicySpec(
        "rollout", ROLLOUT,
        f"Flat Monte-Carlo search (compiled) for the {side}: at each of its decisions a few legal candidates (the "
        "base policy's own choice first; every legal action, but for a Travel turn: each ask, each card given to "
        "the town whose census hand holds most of its coven, each swap), n playouts of each to the end of the game "
        "(this side by the base policy, the other by its policy of the run), each from a redraw of what this side "
        "cannot see (the cards it cannot place dealt anew, hand sizes kept), the same random numbers for every "
        "candidate; the most wins decides, ties to the base policy. docs/rules/covens.md, 'rollout: covens'.",
        params=params, param_docs=docs)


HUNTER_POLICIES["rollout"] = _rollout("hunter", HUNTER_TRACKER, "tracker", "0 random, 1 largest_hand, 2 tracker")
TOWN_POLICIES["rollout"] = _rollout("town", TOWN_COVEN, "coven", "0 random, 1 coven, 2 bluff")

POLICIES = {"hunter": HUNTER_POLICIES, "town": TOWN_POLICIES}
