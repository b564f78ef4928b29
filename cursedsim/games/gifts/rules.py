"""Cursed Gifts facts as data: players, hand and gauge sizes, the rule options and the outcome columns.

The rulebook (the publisher's English rules of Maudits Cadeaux, quoted rule by rule in
docs/rules/gifts.md) fixes the mechanisms; the cards are a deck file (``deck.py``). Every point the text
leaves open is a named option of ``RuleOptions`` with a documented default.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from cursedsim.errors import OptionError
from cursedsim.games.options import check_fields
from cursedsim.games.gifts import effects as E

# ---------------------------------------------------------------- players and sizes

#: Issue 12: "a 2-6 player take-that game".
MIN_PLAYERS = 2
MAX_PLAYERS = 6
DEFAULT_PLAYERS = 4
#: "Deal 7 to each player".
HAND_AT_SETUP = 7
#: "When the sum of Cursed Gifts in their gauge reaches 10, a player is eliminated immediately."
GAUGE_LIMIT = 10
#: "Each player can play up to 3 cards maximum during their turn".
CARDS_PER_TURN = 3
#: "of which only one Cursed Gift to a single player".
GIFTS_PER_TURN = 1
#: Bonus rules: "3 = Cacarma", "2 = Cursed Gift 1 pt Inevitable" ("which counts as 2 cards").
CACARMA_USELESS = 3
BONUS_GIFT_USELESS = 2
BONUS_GIFT_VALUE = 1
#: An antidote heal plays at most this many antidotes ("You can play 2 Antidotes at the same time or even 3").
MAX_ANTIDOTES = 3

# ---------------------------------------------------------------- outcomes

#: Card kinds counted by the ``played_<kind>`` columns (effects.TYPE_NAMES order).
KIND_NAMES = E.TYPE_NAMES
#: Elimination order is encoded base ELIM_BASE: sum over rank k of (seat + 1) * ELIM_BASE**k (0 = nobody).
ELIM_BASE = 8

OUTCOME_DTYPES = {
    "winner_seat": "int8",
    "turns": "int32",
    "elimination_order": "int32",
    "unfinished": "bool",
    **{f"played_{kind}": "int16" for kind in KIND_NAMES},
    "ripostes": "int16",
    "cacarmas": "int16",
    "bonus_gifts": "int16",
    "focus_dealt": "int64",
}
OUTCOME_COLUMNS = tuple(OUTCOME_DTYPES)
#: The columns the runner's frame adds for the sides (``cursedsim.games.gifts.run_chunk``): the focus
#: seat of each game, whether it won, whether another seat won (both False when unfinished). The frame's
#: ``focus_seat`` column is this per-game seat (where the option placed the focus: game i at i % players
#: under "rotate"); the option's own value is in the run's configuration.
SIDE_DTYPES = {"focus_seat": "int8", "focus_won": "bool", "field_won": "bool"}
FRAME_OUTCOME_COLUMNS = OUTCOME_COLUMNS + tuple(SIDE_DTYPES)


def encode_elimination_order(seats) -> int:
    """The ``elimination_order`` column of a list of seats, first eliminated first."""
    return sum((s + 1) * ELIM_BASE ** k for k, s in enumerate(seats))


def decode_elimination_order(code: int) -> list[int]:
    """The seats of an ``elimination_order`` code, first eliminated first."""
    seats = []
    while code:
        code, digit = divmod(int(code), ELIM_BASE)
        seats.append(digit - 1)
    return seats


# ---------------------------------------------------------------- rule options

ELIMINATED_CARDS = ("shuffle_pile", "random_positions")
ELIMINATED_HAND = ("all", "gifts_only")
CACARMA = ("cancel", "return")
MUGGING_COST = ("always", "if_taken")
MUGGING_TAKE = ("blind", "chosen")
#: ``focus_seat``: "rotate" (game i puts the focus at seat i % players) or a seat number.
FOCUS_SEATS = ("rotate",) + tuple(str(seat) for seat in range(MAX_PLAYERS))

CHOICES = {
    "eliminated_cards": ELIMINATED_CARDS,
    "eliminated_hand": ELIMINATED_HAND,
    "cacarma": CACARMA,
    "mugging_cost": MUGGING_COST,
    "mugging_take": MUGGING_TAKE,
    "focus_seat": FOCUS_SEATS,
}
INT_RANGES = {"max_turns": (1, 100_000)}
STR_FIELDS = ("deck",)


@dataclass(frozen=True)
class RuleOptions:
    """Rule variants of Cursed Gifts; each default is the rulebook's text or, where it is silent, the
    reading docs/rules/gifts.md argues for.

    deck: the deck file, "default" (the reconstructed base deck) or a path to a TOML/JSON deck.
    riposte_chains: ripostes may answer ripostes ("You can chain multiple RIPOSTES in a row"); default
        False: that rule "Requires cards that are not included in the base game".
    max_turns: a game still on after this many turns (one player's turn each) is ``unfinished``.
    eliminated_cards: how an eliminated player's cards go "into the draw pile": "shuffle_pile" (added,
        then the whole draw pile shuffled: "shuffle them into the draw pile") or "random_positions" (each
        inserted at a uniform position, the pile's order otherwise kept).
    eliminated_hand: which hand cards go with the gauge: "all" ("those they still have in hand") or
        "gifts_only" (the Cursed Gifts; the other hand cards go to the Septic Discard).
    cacarma: what "use them as a 'Cacarma'" does to the Trick or gift answered: "cancel" (the card is
        discarded without effect) or "return" (a gift goes to its giver's gauge; a Trick is cancelled).
    cacarma_vs_inevitable: Cacarma may answer an INEVITABLE gift; default False ("will not be able to
        defend themselves at the moment you give it").
    bonus_is_the_gift: the 2-useless 1-point INEVITABLE gift is the turn's one Cursed Gift (default True:
        "only one Cursed Gift per turn"; it "become[s] a 1 point Inevitable Cursed Gift").
    mugging_cost: when Mugging's cost ("discard one card from your hand to take a card from another
        player's hand", official FAQ) is paid: "always" (when Mugging is played: the price of playing it,
        paid also when a riposte or a Cacarma cancels it) or "if_taken" (the card is set aside and goes
        to the Septic Discard only when a card is taken; otherwise it returns to the hand).
    mugging_take: how Mugging's card is taken: "blind" (drawn uniformly from the victim's hand, the deck
        stream) or "chosen" (the mugger looks at the hand and its policy picks: a D_TAKE decision).
    focus_seat: where the ``focus`` side sits: "rotate" (game i: seat i % players, so every seat is
        measured equally) or a seat "0"-"5" (a string, as the command line gives it; seat 0 starts: "The
        youngest player starts"). Not a rule: how one strategy is measured against the field.
    without_card: study option: "none", or the name of a card kind of the deck left out of it (what one
        kind is worth, paired with the full deck).
    """

    deck: str = "default"
    riposte_chains: bool = False
    max_turns: int = 400
    eliminated_cards: str = "shuffle_pile"
    eliminated_hand: str = "all"
    cacarma: str = "cancel"
    cacarma_vs_inevitable: bool = False
    bonus_is_the_gift: bool = True
    mugging_cost: str = "always"
    mugging_take: str = "blind"
    focus_seat: str = "rotate"
    without_card: str = "none"
    #: the options naming a data file (``cursedsim list`` shows "default, or the path of a ... file")
    FILE_OPTIONS: ClassVar[tuple[str, ...]] = STR_FIELDS

    def __post_init__(self) -> None:
        check_fields(self, CHOICES, INT_RANGES, skip=STR_FIELDS + ("without_card",))
        if not isinstance(self.without_card, str) or not self.without_card:
            raise OptionError(f"option 'without_card' must be 'none' or a card kind of the deck, "
                              f"got {self.without_card!r}")
        for name in STR_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise OptionError(f"option {name!r} must be 'default' or a deck file path, got {value!r}")



def focus_seat_number(options: RuleOptions, players: int) -> int:
    """The kernel's focus seat: -1 for "rotate", else the seat; an OptionError when the table is smaller."""
    if options.focus_seat == "rotate":
        return -1
    seat = int(options.focus_seat)
    if seat >= players:
        raise OptionError(f"option 'focus_seat' must be rotate or a seat 0-{players - 1} at {players} players, "
                          f"got {seat}")
    return seat


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(RuleOptions))
