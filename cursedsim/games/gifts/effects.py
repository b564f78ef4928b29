"""The effect vocabulary of Cursed Gifts as data: one entry per mechanism the rulebook describes and per
named card, so a deck file names an effect and the validator, the engine and the docs read this table.

Each entry says which card type may carry it, the value range a card with it must have, which flags it
allows or needs, what it can answer when played as a RIPOSTE, and whether a card may carry it at all
(``on_card=False``: a bonus combination of Useless Gifts, listed so the docs and logs name it too).
"""

from __future__ import annotations

from typing import NamedTuple

# ---------------------------------------------------------------- card types and flags

GIFT = 0
ANTIDOTE = 1
TRICK = 2
DEFENSE = 3
USELESS = 4
TYPE_NAMES = ("gift", "antidote", "trick", "defense", "useless")

#: Flag bits of a card (``Deck.arrays()["flags"]``).
INEVITABLE = 1
RIPOSTE = 2
FLAG_BITS = {"INEVITABLE": INEVITABLE, "RIPOSTE": RIPOSTE}


class Effect(NamedTuple):
    """One mechanism: its code, the card type carrying it, inclusive value range, allowed and required
    flags (bit sets), the card types it answers as a riposte, whether a card may carry it, and what it
    does (the rulebook sentence or the reconstruction, docs/rules/gifts.md)."""

    code: int
    card_type: int
    values: tuple[int, int]
    allowed_flags: int
    required_flags: int
    answers: tuple[int, ...]
    on_card: bool
    doc: str


_ANY_GIFT_VALUE = (1, 9)
EFFECTS: dict[str, Effect] = {
    "gift": Effect(0, GIFT, _ANY_GIFT_VALUE, INEVITABLE, 0, (), True,
                   "a plain Cursed Gift: given to one other player, its value fills their gauge"),
    "golden_gift": Effect(1, GIFT, (10, 999), INEVITABLE, 0, (), True,
                          "the golden gift of 666 points: a normal Cursed Gift that eliminates at once"),
    "antidote": Effect(2, ANTIDOTE, (-9, -1), 0, 0, (), True,
                       "heals gifts in your gauge whose total is exactly the sum of the antidotes played"),
    "raise_gift": Effect(3, TRICK, (1, 9), 0, 0, (), True,
                         "a Trick that sits on a gift in another player's gauge and raises its value by the "
                         "card's value (First aid, Gracula, Mummy Touthanpéku); healed or discarded with it"),
    "mugging": Effect(4, TRICK, (0, 0), 0, 0, (), True,
                      "Mugging / Vol à l'arraché: discard one card from your hand to take a card from "
                      "another player's hand (official FAQ); the card taken is drawn blind"),
    "day_of_mourning": Effect(5, TRICK, (0, 0), 0, 0, (), True,
                              "Day of mourning (reconstructed text): discard every Useless Gift in your hand "
                              "and draw as many cards"),
    "remove_gift": Effect(6, DEFENSE, (0, 0), 0, 0, (), True,
                          "Emergency Ifren: discard one gift (INEVITABLE or not) from your gauge, with the "
                          "Tricks on it"),
    "riposte_cancel": Effect(7, DEFENSE, (0, 0), RIPOSTE, RIPOSTE, (GIFT, TRICK), True,
                             "Protection de la Raie (reconstructed text): answers a Trick or a Cursed Gift "
                             "played on you; that card is cancelled and discarded"),
    "cancel_defense": Effect(8, DEFENSE, (0, 0), RIPOSTE, RIPOSTE, (DEFENSE,), True,
                             "an expansion riposte that answers a Defense (Darkva sleeps, Phoque you): that "
                             "Defense is cancelled; only with riposte_chains"),
    "useless": Effect(9, USELESS, (0, 0), 0, 0, (), True,
                      "a Useless Gift: cannot be given; fuels the bonus combinations, Mugging and Day of "
                      "mourning"),
    "cacarma": Effect(10, USELESS, (0, 0), 0, 0, (GIFT, TRICK), False,
                      "bonus 3 = Cacarma: 3 Useless Gifts discarded against a Trick or a gift played on you "
                      "(rule option cacarma)"),
    "bonus_gift": Effect(11, USELESS, (1, 1), 0, 0, (), False,
                         "bonus 2: any 2 Useless Gifts played as a 1-point INEVITABLE Cursed Gift (2 cards)"),
}
EFFECT_NAMES = tuple(EFFECTS)
CARD_EFFECTS = tuple(name for name, e in EFFECTS.items() if e.on_card)

# Codes, for the engine (``E_<NAME>``), in the table's order.
E_GIFT, E_GOLDEN_GIFT, E_ANTIDOTE, E_RAISE_GIFT, E_MUGGING, E_DAY_OF_MOURNING, E_REMOVE_GIFT, \
    E_RIPOSTE_CANCEL, E_CANCEL_DEFENSE, E_USELESS, E_CACARMA, E_BONUS_GIFT = range(len(EFFECTS))
assert all(e.code == i for i, e in enumerate(EFFECTS.values()))

#: What each effect code answers as a riposte (by code).
ANSWERS = tuple(e.answers for e in EFFECTS.values())
