"""Verflucht! facts as data: the 80 cards, seals by player count, and the rule options.

Card codes (shared by kernel and reference): code ``c`` in 0..39 is the Creature of value ``c + 1``;
code ``c`` in 40..79 is the Item of value ``c - 39``. Hands and the display are sets of values, held
as 64-bit masks in the kernel (bit ``v`` set = value ``v`` present).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cursedsim.errors import OptionError

MIN_PLAYERS = 1
MAX_PLAYERS = 5
MIN_VALUE = 1
MAX_VALUE = 40
N_CREATURES = 40
N_ITEMS = 40
N_CARDS = N_CREATURES + N_ITEMS
FIRST_ITEM_CODE = N_CREATURES
MAX_SEALS = 10
#: A sixth creature in the display makes the highest one attack.
DISPLAY_LIMIT = 5

#: "1 player: 3 Seals / 2 or 3 players: 4 Seals / 4 or 5 players: 5 Seals"
SEALS_BY_PLAYERS = {1: 3, 2: 4, 3: 4, 4: 5, 5: 5}

#: Why a game ended: codes stored by the kernel, names shown in frames.
END_WIN = 0
END_SIXTH = 1
END_GROUP = 2
END_NAMES = ("win", "sixth_creature", "group")

#: What a deciding player knows of the others' Items (option ``information``).
INFORMATION_MODELS = ("private", "team")

#: The score column of a lost game (a lost game has no score).
LOST_SCORE = -1


def is_creature(code: int) -> bool:
    """True for the codes of the 40 Creatures."""
    return code < FIRST_ITEM_CODE


def card_value(code: int) -> int:
    """The printed value (1-40) of a card code."""
    return code + 1 if code < FIRST_ITEM_CODE else code - FIRST_ITEM_CODE + 1


def card_name(code: int) -> str:
    """A short readable label, e.g. ``C26`` for the 26 Creature, ``I12`` for the 12 Item."""
    return f"{'C' if is_creature(code) else 'I'}{card_value(code)}"


@dataclass(frozen=True)
class RuleOptions:
    """Rule variants of Verflucht!; every default is the rulebook's reading (docs/rules/verflucht.md).

    seals: Seals at the start, 0-10; ``None`` takes the rulebook's count for the player count.
    partial_items_before_seal: in a group attack, items may banish part of the group and a Seal the
        rest. Default False: "When you use a Seal on a group attack, remove all of the attacking
        Creatures", so a Seal answers the whole attack and no items are spent.
    voluntary_seal: a Seal may answer an attack even when items could banish the attackers ("During an
        attack, you can use a Seal"). False makes a Seal legal only when no banishing exists. With no
        Seal left that holds either way ("you have no choice but to immediately banish"): the players
        may not choose to lose.
    drawer_last_turn: after the last card is drawn, the player who drew it also takes a last turn (as
        the last of the round), since "Each player then takes one last turn".
    information: what a deciding player knows of the others' Items, for policies that read it (the
        ``rollout`` search; the built-in heuristics read only what may be said aloud either way).
        ``"private"`` (default): "The only thing you're not allowed to tell the other players is the
        VALUES of the Items in your hand!": a decision rests on the decider's own hand and public facts;
        the others' Items are unknown beyond what they say aloud ("You can tell the other players which
        Creature/s you can banish yourself"). ``"team"``: every hand known, as if values were told (beyond
        the rules: an upper reference). The paired difference is what that talk would be worth.
    """

    seals: int | None = None
    partial_items_before_seal: bool = False
    voluntary_seal: bool = True
    drawer_last_turn: bool = True
    information: str = "private"

    def __post_init__(self) -> None:
        if self.seals is not None:
            if isinstance(self.seals, bool) or not isinstance(self.seals, int):
                raise OptionError(f"option 'seals' must be an integer 0-{MAX_SEALS} or None, got {self.seals!r}")
            if not 0 <= self.seals <= MAX_SEALS:
                raise OptionError(f"option 'seals' must be in 0-{MAX_SEALS}, got {self.seals}")
        if self.information not in INFORMATION_MODELS:
            raise OptionError(f"option 'information' must be one of {', '.join(map(repr, INFORMATION_MODELS))}, "
                              f"got {self.information!r}")
        for field in dataclasses.fields(self):
            if field.type == "bool" and not isinstance(getattr(self, field.name), bool):
                raise OptionError(f"option {field.name!r} must be true or false, got {getattr(self, field.name)!r}")

    def seals_for(self, players: int) -> int:
        """The number of Seals a game with ``players`` players starts with."""
        return SEALS_BY_PLAYERS[players] if self.seals is None else self.seals
