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

POLICIES = {"hunter": HUNTER_POLICIES, "town": TOWN_POLICIES}
