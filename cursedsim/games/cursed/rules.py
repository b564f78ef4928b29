"""Cursed!? facts as data: the 10 unique cards (x 3 copies), codes, outcome columns and rule options.

Every card has three sides: a monster (power, trait, chest), a weapon (name, power, kinds) and an item.
The table below is the card table of docs/rules/cursed.md ("Component facts": read from scans of the
printed cards).

Card ids (shared by the kernel and the reference engine): card ``c`` in 0..29 is copy ``c % COPIES`` of
unique card ``u = c // COPIES`` (``CARD_UNIQUE[c]``), the row ``u`` of that table. An item code *is* the
unique index of the card that carries it (``ITEM_OF_CARD[c] == c // 3``), so the ten item codes below
are in the table's order.
"""

from __future__ import annotations

from dataclasses import dataclass

from cursedsim.errors import OptionError

N_UNIQUE = 10
COPIES = 3
N_CARDS = N_UNIQUE * COPIES

# ---------------------------------------------------------------- codes

#: Monster traits ("A monster with no trait text has no special ability").
NO_TRAIT = 0
EXPLODES = 1      # "You are only able to land a single attack."
FLYING = 2        # "First melee attack deals no damage."
ETHEREAL = 3      # "First odd value weapon attack deals no damage."
EVASIVE = 4       # "First even value weapon attack deals no damage."
TOUGH_SKIN = 5    # "First ranged attack deals no damage."
TRAIT_NAMES = ("none", "Explodes", "Flying", "Ethereal", "Evasive", "Tough Skin")

#: Weapon kinds, as bits of a mask (the Spear has both).
MELEE = 1
RANGED = 2
KIND_NAMES = {MELEE: "melee", RANGED: "ranged", MELEE | RANGED: "melee+ranged"}

#: Item codes = unique card index (the row of the card table).
SOUL_CRYSTAL = 0
BIG_TURKEY_DINNER = 1
SMOKE_BOMB = 2
BEWITCHING_RELIC = 3
SCROLL_OF_PURGE_LIFE = 4
SHIELD = 5
WHETSTONE = 6
FRENZY_POTION = 7
LARGE_BACKPACK = 8
MIMIC = 9
ITEM_NAMES = ("Soul Crystal", "Big Turkey Dinner", "Smoke Bomb", "Bewitching Relic", "Scroll of Purge Life",
              "Shield", "Whetstone", "Frenzy Potion", "Large Backpack", "Mimic!")
#: Outcome column suffixes, by item code (``used_<slug>``).
ITEM_SLUGS = ("soul_crystal", "big_turkey_dinner", "smoke_bomb", "bewitching_relic", "scroll_of_purge_life",
              "shield", "whetstone", "frenzy_potion", "large_backpack", "mimic")

# ---------------------------------------------------------------- the card table (docs/rules/cursed.md)
# One entry per unique card u = 0..9.

MONSTER_POWER = (5, 7, 8, 8, 9, 9, 10, 10, 11, 11)
MONSTER_TRAIT = (EXPLODES, FLYING, ETHEREAL, NO_TRAIT, NO_TRAIT, EVASIVE, TOUGH_SKIN, NO_TRAIT, NO_TRAIT,
                 NO_TRAIT)
MONSTER_CHEST = (False, False, False, False, False, False, False, True, True, True)
WEAPON_NAMES = ("Greatsword", "Fireball Spell", "Sword", "Staff", "Spear", "Mace", "Axe", "Short Bow",
                "Throwing Daggers", "Dagger")
#: Printed weapon power; for the two "1/6" weapons this is the low value (see WEAPON_HIGH).
WEAPON_POWER = (5, 5, 4, 4, 3, 3, 2, 2, 1, 1)
#: The second printed value of a "1/6" weapon, 0 for single-valued weapons.
WEAPON_HIGH = (0, 0, 0, 0, 0, 0, 0, 0, 6, 6)
WEAPON_KINDS = (MELEE, RANGED, MELEE, RANGED, MELEE | RANGED, MELEE, MELEE, RANGED, RANGED, MELEE)
UNIQUE_ITEM = tuple(range(N_UNIQUE))   # the item of unique card u is item code u

#: A looted (or starting) Mimic! is fought as "a monster with a power of 4" (option ``mimic_power``).
MIMIC_POWER = 4
#: "Shield: Blocks up to 3 damage."
SHIELD_BLOCK = 3
#: "Whetstone: +3 damage to a single weapon."
WHETSTONE_BONUS = 3
#: "Frenzy Potion: Your initial weapon strike hits for double damage".
FRENZY_FACTOR = 2

# Per card id 0..29 (what a kernel indexes).
CARD_UNIQUE = tuple(c // COPIES for c in range(N_CARDS))
CARD_POWER = tuple(MONSTER_POWER[u] for u in CARD_UNIQUE)
CARD_TRAIT = tuple(MONSTER_TRAIT[u] for u in CARD_UNIQUE)
CARD_CHEST = tuple(MONSTER_CHEST[u] for u in CARD_UNIQUE)
CARD_WEAPON_POWER = tuple(WEAPON_POWER[u] for u in CARD_UNIQUE)
CARD_WEAPON_HIGH = tuple(WEAPON_HIGH[u] for u in CARD_UNIQUE)
CARD_WEAPON_KINDS = tuple(WEAPON_KINDS[u] for u in CARD_UNIQUE)
ITEM_OF_CARD = tuple(UNIQUE_ITEM[u] for u in CARD_UNIQUE)


def is_split(card: int) -> bool:
    """True for the "1/6" weapons (Throwing Daggers, Dagger)."""
    return CARD_WEAPON_HIGH[card] != 0


def cards_of_item(item: int) -> tuple[int, ...]:
    """The three card ids carrying item code ``item``."""
    return tuple(range(item * COPIES, item * COPIES + COPIES))


def weapon_text(card: int) -> str:
    """E.g. ``Sword 4 melee`` or ``Dagger 1/6 melee``."""
    u = CARD_UNIQUE[card]
    power = f"{WEAPON_POWER[u]}/{WEAPON_HIGH[u]}" if WEAPON_HIGH[u] else str(WEAPON_POWER[u])
    return f"{WEAPON_NAMES[u]} {power} {KIND_NAMES[WEAPON_KINDS[u]]}"


def monster_text(card: int) -> str:
    """Monsters have no printed names on the cards: e.g. ``monster 10 Tough Skin`` or ``monster 11 chest``."""
    u = CARD_UNIQUE[card]
    parts = [f"monster {MONSTER_POWER[u]}"]
    if MONSTER_TRAIT[u] != NO_TRAIT:
        parts.append(TRAIT_NAMES[MONSTER_TRAIT[u]])
    if MONSTER_CHEST[u]:
        parts.append("chest")
    return " ".join(parts)


def item_text(card: int) -> str:
    return ITEM_NAMES[ITEM_OF_CARD[card]]


# ---------------------------------------------------------------- game ends and outcome columns

#: Why a game ended: codes stored by the kernel, names shown in frames.
END_EIGHT_SOULS = 0   # the win_souls-th soul was captured (and play stops there)
END_PILE_EMPTY = 1    # a round should start but the draw pile is empty
END_FINAL_MONSTER = 2  # the damage of a fight exceeded the cards left: the soul is not captured
END_NAMES = ("eight_souls", "pile_empty", "final_monster")

#: ``start_item`` when no starting item was taken (starting_items=0, or an empty pile): missing.
NO_START_ITEM = -1

#: Outcome columns in frame order, with the dtype of each (the kernel returns these arrays).
OUTCOME_DTYPES = {
    "win": "bool",
    "souls": "int8",
    "rounds": "int16",
    "damage_taken": "int16",
    "cards_left": "int8",
    "end": "int8",
    "start_item": "int8",
    "weapons_drawn": "int16",
    "busts": "int16",
    **{f"used_{slug}": "int8" for slug in ITEM_SLUGS},
}
OUTCOME_COLUMNS = tuple(OUTCOME_DTYPES)

# ---------------------------------------------------------------- rule options

#: ``dagger_value``: "choose_kind" (1 as a ranged weapon or 6 as a melee one), "choose" (1 or 6, the printed
#: kind), "low" (1), "high" (6), "split" (1 for the ranged card, 6 for the melee one).
DAGGER_VALUES = ("choose_kind", "choose", "low", "high", "split")
SPEAR_KINDS = ("both", "choose")
OVERSHOOT_RULES = ("first_attack", "zero_total", "bust")
BUST_RULES = ("discard_weapon", "soul_lost")
CHEST_LOOT = ("discard", "draw_pile")
STARTING_MIMIC = ("fight", "redraw")
#: ``starting_item``: "random" (the rulebook's deal), or the slug of the item forced as the first one
#: (code 1 + item code: the kernel's ``CHOICES["starting_item"].index(value)``).
STARTING_ITEM_CHOICES = ("random",) + ITEM_SLUGS
ITEM_TIMINGS = ("after_reveal", "before_draw")
DAMAGE_FROM = ("top", "bottom")

MAX_WIN_SOULS = N_CARDS
MAX_STARTING_ITEMS = 5
MAX_TURKEY_CARDS = 10
MAX_MIMIC_POWER = 20


@dataclass(frozen=True)
class RuleOptions:
    """Rule variants of Cursed!?; every default is the rulebook as completed by the component facts (the
    rule cards and the printed cards; the basis of each default is quoted in docs/rules/cursed.md).

    win_souls: captured souls that win, 1-30 ("you win when you hold 8 captured souls").
    play_on_after_win: keep playing after the win for a high score ("play may go on for a high score");
        the game then ends only when the pile is empty or at a final monster, ``win`` = souls >= win_souls.
    starting_items: cards taken item side up at set-up, 0-5 ("Take one card and place it item side up").
    starting_mimic: a Mimic! taken as a starting item is "fight" (fought at once, like any Mimic "drawn
        as an item") or "redraw" (put under the draw pile, the next card is taken instead).
    starting_item: a study setting, not a rule (the rulebook's "Take one card" is a random card):
        "random" (default) plays the rulebook's deal; an item slug (``ITEM_SLUGS``: "shield", "mimic",
        ...) makes the first starting item that item: right after the set-up shuffle copy 0 of its card
        (card ``3 * item code``) moves to the top of the pile, the other 29 cards keep their order, and
        set-up goes on as usual (a forced Mimic! is fought, or redrawn with starting_mimic="redraw").
        No extra random draws: game i is game i's deal with that card taken first, and the games are
        distributed as the rulebook's games that start with that item. Needs starting_items >= 1.
    dagger_value: the two "1/6" weapons attack as "choose_kind" (the policy picks, each attack, 1 as a
        ranged weapon or 6 as a melee one: value and kind go together; each card prints both numbers,
        "for a ranged/melee split value"), "choose" (1 or 6, the card keeps its printed kind), "low"
        (always 1), "high" (always 6) or "split" (1 for the ranged Throwing Daggers, 6 for the melee
        Dagger).
    spear_kind: the Spear ("melee and ranged") counts as "both" kinds at once (so it meets both Flying
        and Tough Skin) or the policy picks one kind each attack ("choose").
    overshoot: which attack may go over the monster's power and still capture the soul with no damage:
        "first_attack" (only the first attack of the fight, the rule cards' FAQ), "zero_total" (any
        attack made while the total is still 0, e.g. after a first attack a trait cancelled), or "bust"
        (none: every attack over is discarded, the plain blackjack rule).
    bust: what an attack going over (a bust) does: "discard_weapon" (that weapon is discarded and you may
        keep drawing, the rule cards' FAQ) or "soul_lost" (the rulebook's "you cannot deal more damage
        than the monster has, or the soul is lost": the weapon is discarded, the fight ends, the damage
        of the gap is taken and the monster goes to the discard pile, not to the souls).
    chest_loot: a chest gives the top card of the shuffled discard pile ("discard") or the top card of
        the draw pile ("draw_pile"), as an item.
    mimic_power: the power of a Mimic! drawn as an item, 1-20 ("a monster with a power of 4").
    mimic_soul: a captured Mimic! goes to the captured souls and counts as a soul (else to the discard).
    turkey_cards: cards Big Turkey Dinner moves from the shuffled discard pile under the draw pile, 1-10
        (3 as printed; the rulebook transcription says 4).
    item_timing: Whetstone and Frenzy Potion are chosen for an attack "after_reveal" (seeing the weapon
        drawn) or must be played "before_draw" (then they apply to the next attack).
    items_between_fights: "Use any items at any point during the round": items may be used between
        fights, before each round's monster is drawn and before a chest is opened (Big Turkey Dinner,
        Large Backpack: the items that act without a monster), so a Big Turkey Dinner can refill an
        empty pile before the loss. False: items only at a fight's decision points.
    empty_pile_before_chest: a capture that leaves the draw pile empty ends the game before the chest
        is opened ("Run out and its game over"; after the items between fights). False: the chest is
        opened and the loss comes when the next monster must be drawn.
    whetstone_in_play: the Whetstone ("+3 damage to a single weapon") may also be played at a fight's
        decision point on a weapon already in play that dealt damage and carries no Whetstone, when the
        total stays within the monster's power (default False: only on an attacking weapon).
    ignoring_attack_spends_trait: an attack that ignores monster traits (Bewitching Relic, Frenzy Potion)
        still counts as "the first melee/ranged/odd/even attack" and as Explodes' single attack. Default
        False: the trait does not see it and waits for the next attack.
    parity_includes_whetstone: Ethereal/Evasive judge odd/even on the value with Whetstone's +3 (default
        False: on the weapon's printed, or chosen 1/6, value).
    smoke_bomb_returns_items: Smoke Bomb also puts the items used in the fight (itself included) into
        the draw deck (default False: monster and weapons only; items used go to the discard pile).
    final_monster_captures: when damage exceeds the cards left, discard them all and capture the soul
        anyway (then the game ends, won if that was the winning soul). Default False: the rule cards'
        "its soul is not captured and the game ends".
    damage_from: damage discards cards from the "top" or the "bottom" of the draw pile.
    """

    win_souls: int = 8
    play_on_after_win: bool = False
    starting_items: int = 1
    starting_mimic: str = "fight"
    starting_item: str = "random"
    dagger_value: str = "choose_kind"
    spear_kind: str = "both"
    overshoot: str = "first_attack"
    bust: str = "discard_weapon"
    chest_loot: str = "discard"
    mimic_power: int = MIMIC_POWER
    mimic_soul: bool = True
    turkey_cards: int = 3
    item_timing: str = "after_reveal"
    items_between_fights: bool = True
    empty_pile_before_chest: bool = True
    whetstone_in_play: bool = False
    ignoring_attack_spends_trait: bool = False
    parity_includes_whetstone: bool = False
    smoke_bomb_returns_items: bool = False
    final_monster_captures: bool = False
    damage_from: str = "top"

    def __post_init__(self) -> None:
        for name, low, high in (("win_souls", 1, MAX_WIN_SOULS), ("starting_items", 0, MAX_STARTING_ITEMS),
                                ("mimic_power", 1, MAX_MIMIC_POWER), ("turkey_cards", 1, MAX_TURKEY_CARDS)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"option {name!r} must be an integer {low}-{high}, got {value!r}")
            if not low <= value <= high:
                raise OptionError(f"option {name!r} must be in {low}-{high}, got {value}")
        for name in ("play_on_after_win", "mimic_soul", "items_between_fights", "empty_pile_before_chest",
                     "whetstone_in_play", "ignoring_attack_spends_trait", "parity_includes_whetstone",
                     "smoke_bomb_returns_items", "final_monster_captures"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise OptionError(f"option {name!r} must be true or false, got {value!r}")
        for name, choices in (("starting_mimic", STARTING_MIMIC), ("starting_item", STARTING_ITEM_CHOICES),
                              ("dagger_value", DAGGER_VALUES),
                              ("spear_kind", SPEAR_KINDS), ("overshoot", OVERSHOOT_RULES), ("bust", BUST_RULES),
                              ("chest_loot", CHEST_LOOT), ("item_timing", ITEM_TIMINGS),
                              ("damage_from", DAMAGE_FROM)):
            value = getattr(self, name)
            if value not in choices:
                raise OptionError(f"option {name!r} must be one of {', '.join(choices)}; got {value!r}")
        if self.starting_item != "random" and self.starting_items == 0:
            raise OptionError(f"option 'starting_item'={self.starting_item!r} forces the first starting item, "
                              f"but starting_items=0 takes none: set starting_items >= 1 or "
                              f"starting_item='random'")


#: The choices of each string option, in code order (a kernel takes ``CHOICES[name].index(value)``).
CHOICES = {
    "starting_mimic": STARTING_MIMIC,
    "starting_item": STARTING_ITEM_CHOICES,
    "dagger_value": DAGGER_VALUES,
    "spear_kind": SPEAR_KINDS,
    "overshoot": OVERSHOOT_RULES,
    "bust": BUST_RULES,
    "chest_loot": CHEST_LOOT,
    "item_timing": ITEM_TIMINGS,
    "damage_from": DAMAGE_FROM,
}
