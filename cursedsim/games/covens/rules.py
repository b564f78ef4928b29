"""Curses & Covens facts as data: card codes, spells, sides, rule options and outcome columns.

The rulebook (``rulebooks/003_b26f39caee5326a4.txt``) and the component facts (FACTS.md) fix the
27 cards, the four phases and the wins; what they leave open is a named option of ``RuleOptions``
with a documented default (docs/rules/covens.md quotes the sentence each one rests on).

Card codes (shared by the kernel and the reference engine, fixed):
0-2 love witches, 3-5 nature witches, 6-8 crystal witches (suit = code // 3), 9 the wild witch,
10 the fake witch, 11-23 the 13 townsfolk, 24-26 the 3 rituals.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cursedsim.games.options import check_fields

# ---------------------------------------------------------------- players and sides

#: "4-6 players: one Witch Hunter and 3-5 Town Players" (FACTS.md).
MIN_PLAYERS = 4
MAX_PLAYERS = 6
DEFAULT_PLAYERS = 5
MAX_TOWNS = MAX_PLAYERS - 1

SIDES = ("hunter", "town")

# ---------------------------------------------------------------- cards

N_CARDS = 27
#: Suits, as the icons of the spell tiles ("love, crystal, or nature").
LOVE = 0
NATURE = 1
CRYSTAL = 2
N_SUITS = 3
SUIT_NAMES = ("love", "nature", "crystal")
WITCHES_PER_SUIT = 3

WILD = 9          # "The wild witch card counts as any one suit"
FAKE = 10         # "The fake witch has no suit"
FIRST_FOLK = 11   # 13 townsfolk: 11..23
N_FOLK = 13
FIRST_RITUAL = 24  # 3 rituals: 24..26
N_RITUALS = 3
#: True witches (suited and wild): codes 0..WILD.
N_TRUE_WITCHES = WILD + 1

#: Card kinds (tables.CARD_KIND).
KIND_WITCH = 0
KIND_WILD = 1
KIND_FAKE = 2
KIND_FOLK = 3
KIND_RITUAL = 4
KIND_NAMES = ("witch", "wild witch", "fake witch", "townsfolk", "ritual")

#: "If any one Town Player reveals 3 witches of the same suit ... they form a Coven".
COVEN_SIZE = 3
#: "The Witch Hunter wins by capturing 5 witches".
CAPTURES_TO_WIN = 5
#: "If this is their second ritual card, the Town Players immediately win".
RITUALS_TO_WIN = 2
#: "Deal each other player 2 cards".
HAND_AT_SETUP = 2
#: "pick 2 cards from the Town Players, one at a time".
PICKS_PER_HUNT = 2


def card_name(card: int) -> str:
    """E.g. ``love witch 1``, ``wild witch``, ``fake witch``, ``townsfolk 4``, ``ritual 2``."""
    if card < WILD:
        return f"{SUIT_NAMES[card // WITCHES_PER_SUIT]} witch {card % WITCHES_PER_SUIT + 1}"
    if card == WILD:
        return "wild witch"
    if card == FAKE:
        return "fake witch"
    if card < FIRST_RITUAL:
        return f"townsfolk {card - FIRST_FOLK + 1}"
    return f"ritual {card - FIRST_RITUAL + 1}"


# ---------------------------------------------------------------- spells

#: Three tiles, each a charm side (face 0, up at set-up) and a curse side (face 1).
N_TILES = 3
CHARM = 0
CURSE = 1
#: Spell ids (outcome columns ``spells_<name>``, logs). Tile 0 is Growth/Doom (rulebook); tiles 1 and 2
#: are Passage/? and Nature/?, the curses behind them set by ``darkness_backs``.
GROWTH = 0
PASSAGE = 1
NATURE_SPELL = 2
DOOM = 3
DARKNESS = 4
DESPAIR = 5
N_SPELLS = 6
SPELL_NAMES = ("growth", "passage", "nature", "doom", "darkness", "despair")
SPELL_TITLES = ("Charm of Growth", "Charm of Passage", "Charm of Nature", "Curse of Doom",
                "Curse of Darkness", "Curse of Despair")

# ---------------------------------------------------------------- outcomes

WINNER_HUNTER = 0
WINNER_TOWN = 1
WINNER_NONE = 2
WINNER_NAMES = ("hunter", "town", "none")

WIN_COVEN = 0
WIN_RITUAL = 1
WIN_CAPTURE = 2
WIN_UNFINISHED = 3
WIN_TYPE_NAMES = ("coven", "ritual", "capture", "unfinished")

#: Outcome columns in frame order, with the dtype of each (both engines return these arrays).
OUTCOME_DTYPES = {
    "winner": "int8",
    "win_type": "int8",
    "hunter_won": "bool",
    "town_won": "bool",
    "rounds": "int16",
    "witches_captured": "int8",
    "fake_witch_caught": "bool",
    "rituals_taken": "int8",
    **{f"spells_{name}": "int8" for name in SPELL_NAMES},
    "cards_left": "int8",
    "picks": "int16",
}
OUTCOME_COLUMNS = tuple(OUTCOME_DTYPES)
#: Integer-coded outcome columns and their category names.
OUTCOME_CATEGORIES = {"winner": WINNER_NAMES, "win_type": WIN_TYPE_NAMES}

# ---------------------------------------------------------------- rule options

DARKNESS_BACKS = ("passage", "nature")
SPELL_ICONS = ("charms_mixed", "curses_mixed", "all_mixed")
WILD_ICONS = ("one", "both")
SHUFFLE_TIMING = ("arrival", "never", "census_and_arrival")
SHORT_DECK_ARRIVAL = ("deal_what_there_is", "deal_none")
PASSAGE_TARGETS = ("one_town", "any_town")
DOOM_SECOND_PICK = ("skip", "any_town")
TOWNSFOLK_TO = ("other_town", "any_town")
DISCARD_ORDER = ("random", "ascending")
#: A study option, not a rule: "none", or the spell the town may never cast (its value in the report).
DISABLED_SPELL = ("none",) + SPELL_NAMES

#: The choices of each string option, in code order (``state.option_tuple`` stores the index).
CHOICES = {
    "darkness_backs": DARKNESS_BACKS,
    "spell_icons": SPELL_ICONS,
    "wild_icons": WILD_ICONS,
    "shuffle_timing": SHUFFLE_TIMING,
    "short_deck_arrival": SHORT_DECK_ARRIVAL,
    "passage_targets": PASSAGE_TARGETS,
    "doom_second_pick": DOOM_SECOND_PICK,
    "townsfolk_to": TOWNSFOLK_TO,
    "discard_order": DISCARD_ORDER,
    "disabled_spell": DISABLED_SPELL,
}
#: Integer options and their inclusive ranges.
INT_RANGES = {"max_rounds": (1, 10_000)}


@dataclass(frozen=True)
class RuleOptions:
    """Rule variants of Curses & Covens; each default is the rulebook's text or, where it is silent,
    the reading docs/rules/covens.md argues for (the sentence each option rests on is quoted there).

    rituals: the deck holds the 3 rituals ("3 ritual cards", rulebook); False plays the publisher's
        component list, which omits them (24 cards).
    darkness_backs: the charm behind the Curse of Darkness, "passage" or "nature" (Despair backs the
        other); "the book does not show which charm each of those two curses backs".
    spell_icons: which 2 witch icons each side needs ("Each side shows the 2 witch icons needed to
        cast it", not transcribed): "charms_mixed" (charms need two suits, curses a pair of one),
        "curses_mixed" (the reverse), "all_mixed" (both sides of a tile need the same two suits).
    wild_icons: the wild witch fills "one" icon ("counts as any one suit") or "both" icons alone.
    fake_casts: the fake witch fills any one icon (default False: "The fake witch has no suit").
    shuffle_timing: when the hunter is asked "shuffle?" ("The Witch Hunter may shuffle the deck at any
        time"): at the start of each "arrival", "never", or "census_and_arrival".
    short_deck_arrival: an Arrival with fewer cards in the deck than towns: "deal_what_there_is" (towns
        in order while cards last; with a ritual he draws all that is left) or "deal_none".
    ask_empty: a town holding no card may be asked (nothing moves); "They must do so, unless they only
        have 1 card in hand" says nothing of an empty hand.
    passage_targets: "Town Players may give more than 1 card": the further cards go to the "one_town"
        of the first give, or to "any_town".
    nature_restart: the second Travel of Nature starts at the hat holder again (False: at the town on
        the hat holder's left, as if the hat passed on).
    doom_empty: Doom may name a town holding no card (both picks are then lost); default False.
    doom_second_pick: when Doom's town has no card left for the second pick: "skip" it or pick from
        "any_town" ("must pick twice from them").
    townsfolk_to: a picked townsfolk goes to a town other than its source ("other_town": the Hunt's "a
        different Town Player") or to "any_town" (the reference card's "a different player").
    discard_order: cards going "face-down to the bottom of the deck" in one event are ordered "random"
        (shuffled) or "ascending" by code.
    max_rounds: a game still on after this many rounds ends "unfinished" (1-10000), so every game ends.
    disabled_spell: not a rule but a study option: "none" (the game as printed) or the spell the town
        may never cast (its tile then never turns while that side is up), to measure what each spell is
        worth on the same games.
    """

    rituals: bool = True
    darkness_backs: str = "passage"
    spell_icons: str = "charms_mixed"
    wild_icons: str = "one"
    fake_casts: bool = False
    shuffle_timing: str = "arrival"
    short_deck_arrival: str = "deal_what_there_is"
    ask_empty: bool = True
    passage_targets: str = "one_town"
    nature_restart: bool = True
    doom_empty: bool = False
    doom_second_pick: str = "skip"
    townsfolk_to: str = "other_town"
    discard_order: str = "random"
    max_rounds: int = 200
    disabled_spell: str = "none"

    def __post_init__(self) -> None:
        check_fields(self, CHOICES, INT_RANGES)

    @property
    def deck_size(self) -> int:
        """27 cards, 24 without the rituals."""
        return N_CARDS if self.rituals else N_CARDS - N_RITUALS


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(RuleOptions))
