"""Flat state of one Cursed!? game in the kernel: the zone layout, card sets as bitmasks, the option
tuple, the policy's view tuple and the canonical list of fight actions.

**Ordered zones** (draw pile, discard pile, weapons and items used this fight) live in one int64
scratch array ``zones`` of ``N_ZONES`` entries, one block of ``ZONE_SIZE`` per zone at the offsets
below; a zone's cards are ``zones[OFFSET : OFFSET + count]``, the *top is the last* (as the reference's
lists). The counts are local variables of ``kernel.play_game``; the used-item counters sit after the
four zones (``USED_COUNT + item``). One array per chunk: at most one reference-count pair per game.

**Unordered sets** are uint64 bitmasks over card ids (bit c = card c): the held items, the Large
Backpack weapons, and a copy of the discard pile's contents (for the Backpack's targets, which the
canonical action list names in ascending id). Item code i is carried by cards 3i..3i+2, so the items
of one kind are ``items & kind_cards(i)`` and the held kinds are read three bits at a time:
``held_kinds(items)`` has bit ``3i`` set when some card of item i is held (a "kind mask").
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm_ir
from numba import int64, njit, types, uint64
from numba.extending import intrinsic

from cursedsim.bits import ONE, ZERO, count, nth
from cursedsim.games.cursed.rules import (
    CARD_CHEST,
    CARD_POWER,
    CARD_TRAIT,
    CARD_WEAPON_HIGH,
    CARD_WEAPON_KINDS,
    CARD_WEAPON_POWER,
    CHOICES,
    COPIES,
    ITEM_SLUGS,
    LARGE_BACKPACK,
    MELEE,
    N_CARDS,
    N_UNIQUE,
    RANGED,
    WHETSTONE,
    RuleOptions,
)

# ---------------------------------------------------------------- zones (int64 scratch array)

#: Entries per ordered zone: every card fits in any one zone.
ZONE_SIZE = 32
PILE = 0                    # draw pile (HP), top = last
DISCARD = ZONE_SIZE         # discard pile, top = last
WEAPONS = 2 * ZONE_SIZE     # weapons that attacked this fight (landed), in attack order
USED = 3 * ZONE_SIZE        # items used this fight, in use order
USED_COUNT = 4 * ZONE_SIZE  # used_count[item] for item codes 0..9
N_ZONES = USED_COUNT + N_UNIQUE


# ---------------------------------------------------------------- card data as constant arrays

#: Per card id: the monster side (power, trait code, chest).
MONSTER_POWER_OF_CARD = np.array(CARD_POWER, np.int64)
MONSTER_TRAIT_OF_CARD = np.array(CARD_TRAIT, np.int64)
MONSTER_CHEST_OF_CARD = np.array(CARD_CHEST, np.bool_)
#: Per card id: the printed weapon power (the low value of a 1/6 weapon) and the high value (0 if
#: single-valued); numba freezes global arrays into the compiled code.
WEAPON_POWER_OF_CARD = np.array(CARD_WEAPON_POWER, np.int64)
WEAPON_HIGH_OF_CARD = np.array(CARD_WEAPON_HIGH, np.int64)
#: Per card id: the weapon kinds (rules.MELEE | rules.RANGED bits).
WEAPON_KINDS_OF_CARD = np.array(CARD_WEAPON_KINDS, np.int64)
BOTH_KINDS = MELEE | RANGED
#: A weapon's best own value (the high value of a 1/6 weapon): ``reference_policies.best_value``.
BEST_VALUE_OF_CARD = np.array([h if h else p for p, h in zip(CARD_WEAPON_POWER, CARD_WEAPON_HIGH)], np.int64)
MAX_BEST_VALUE = int(BEST_VALUE_OF_CARD.max())
#: Cards by best value: ``CARDS_OF_BEST_VALUE[v]`` is the mask of the cards whose best value is v.
CARDS_OF_BEST_VALUE = np.array(
    [sum(1 << c for c in range(N_CARDS) if BEST_VALUE_OF_CARD[c] == v) for v in range(MAX_BEST_VALUE + 1)],
    np.uint64)

#: Bits 3i (i = item code) of a kind mask.
KIND_LOW_BITS = uint64(sum(1 << (COPIES * i) for i in range(N_UNIQUE)))
KIND_CARDS = uint64((1 << COPIES) - 1)


def kind_mask(*item_codes: int) -> np.uint64:
    """The kind mask of some item codes (Python, for constants)."""
    return np.uint64(sum(1 << (COPIES * i) for i in item_codes))


# The card-set helpers below are numba intrinsics: a few LLVM instructions at each call, where the same
# one-line ``inline="always"`` functions were numba IR inlined, typed, turned into SSA form and lowered
# anew at each of their ~140 call sites in the kernel's compile (docs/performance.md, "Compile time:
# Cursed!?"). Callable from numba code only.

def _word(context, builder, value, ty):
    """An integer argument as a uint64 LLVM value (the bits of an int64, as ``uint64(x)``)."""
    return context.cast(builder, value, ty, types.uint64)


def _lowest_of_word(builder, mask):
    """``bits.lowest`` of a uint64 LLVM value: its lowest set bit as an int64, -1 if none."""
    zeros = builder.cttz(mask, llvm_ir.Constant(llvm_ir.IntType(1), 0))
    empty = builder.icmp_unsigned("==", mask, mask.type(0))
    return builder.select(empty, mask.type(-1), zeros)


def _on_word(result, arg, body):
    """The typing of a one-argument card-set intrinsic: None (no match) unless ``arg`` is an integer, else
    its signature and a codegen returning ``body(builder, word)``, ``word`` the argument as a uint64."""
    if not isinstance(arg, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return body(builder, _word(context, builder, args[0], signature.args[0]))

    return result(types.unliteral(arg)), codegen


def _kind_cards_word(builder, item):
    """``KIND_CARDS << (COPIES * item)`` of a uint64 LLVM value: the card ids of item code ``item``."""
    return builder.shl(item.type(int(KIND_CARDS)), builder.mul(item, item.type(COPIES)))


@intrinsic
def bit(typingctx, v):
    """The set {v} (``bits.bit``): ``1 << uint64(v)``."""
    return _on_word(types.uint64, v, lambda builder, word: builder.shl(word.type(1), word))


@intrinsic
def lowest(typingctx, mask):
    """Smallest member of a set, -1 for the empty set (``bits.lowest``)."""
    return _on_word(types.int64, mask, _lowest_of_word)


@intrinsic
def kind_bit(typingctx, item):
    """The bit of item code ``item`` in a kind mask."""
    return _on_word(types.uint64, item,
                    lambda builder, word: builder.shl(word.type(1), builder.mul(word, word.type(COPIES))))


@intrinsic
def kind_cards(typingctx, item):
    """The card ids carrying item code ``item``, as a mask."""
    return _on_word(types.uint64, item, _kind_cards_word)


def _held_kinds_word(builder, word):
    """Bit 3i of the result set when one of bits 3i, 3i+1, 3i+2 of ``word`` is."""
    spread = builder.or_(word, builder.or_(builder.lshr(word, word.type(1)), builder.lshr(word, word.type(2))))
    return builder.and_(spread, word.type(int(KIND_LOW_BITS)))


@intrinsic
def held_kinds(typingctx, items):
    """The kind mask of a card mask: bit 3i set when some card of item code i is in it."""
    return _on_word(types.uint64, items, _held_kinds_word)


@intrinsic
def lowest_of(typingctx, items, item):
    """The lowest card id of item code ``item`` in ``items``, or -1 (reference ``Table.held``)."""
    if not isinstance(items, types.Integer) or not isinstance(item, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        word = _word(context, builder, args[0], signature.args[0])
        cards = _kind_cards_word(builder, _word(context, builder, args[1], signature.args[1]))
        return _lowest_of_word(builder, builder.and_(word, cards))

    return types.int64(types.unliteral(items), types.unliteral(item)), codegen


@njit(cache=True, inline="always")
def best_weapon(cards, at_most):
    """The card in the mask ``cards`` with the highest best value <= ``at_most``, the lowest id among
    equals; -1 if none (ThresholdPolicy's choice of a discard or Backpack weapon). An empty mask returns
    at once: the Backpack is empty at most decision points, and the loop over the values cost threshold's
    kernel ~3% of its time (docs/performance.md, "Where the time goes: Cursed!?")."""
    if cards == ZERO:
        return -1
    for v in range(min(at_most, MAX_BEST_VALUE), 0, -1):
        m = cards & CARDS_OF_BEST_VALUE[v]
        if m != ZERO:
            return lowest(m)
    return -1


# ---------------------------------------------------------------- rule options (int64 tuple)

OPT_WIN_SOULS = 0
OPT_PLAY_ON = 1
OPT_STARTING_ITEMS = 2
OPT_STARTING_MIMIC = 3       # STARTING_MIMIC_* code
OPT_DAGGER_VALUE = 4         # DAGGER_* code
OPT_SPEAR_KIND = 5           # SPEAR_* code
OPT_OVERSHOOT = 6            # OVERSHOOT_* code
OPT_BUST = 7                 # BUST_* code
OPT_CHEST_LOOT = 8           # CHEST_* code
OPT_MIMIC_POWER = 9
OPT_MIMIC_SOUL = 10
OPT_TURKEY_CARDS = 11
OPT_ITEM_TIMING = 12         # TIMING_* code
OPT_IGNORING_SPENDS_TRAIT = 13
OPT_PARITY_WHETSTONE = 14
OPT_SMOKE_RETURNS_ITEMS = 15
OPT_FINAL_CAPTURES = 16
OPT_DAMAGE_FROM = 17         # DAMAGE_FROM_* code
OPT_STARTING_ITEM = 18       # STARTING_ITEM_RANDOM, or 1 + the item code forced as the first starting item
OPT_ITEMS_BETWEEN = 19       # items_between_fights
OPT_EMPTY_BEFORE_CHEST = 20  # empty_pile_before_chest
OPT_WHETSTONE_IN_PLAY = 21   # whetstone_in_play
N_OPTS = 22

#: The option vector's slot of each RuleOptions field (in field order, but the fields added later:
#: ``starting_item``, then ``items_between_fights``, ``empty_pile_before_chest``, ``whetstone_in_play``).
OPTION_SLOTS = {
    "win_souls": OPT_WIN_SOULS, "play_on_after_win": OPT_PLAY_ON, "starting_items": OPT_STARTING_ITEMS,
    "starting_mimic": OPT_STARTING_MIMIC, "dagger_value": OPT_DAGGER_VALUE, "spear_kind": OPT_SPEAR_KIND,
    "overshoot": OPT_OVERSHOOT, "bust": OPT_BUST, "chest_loot": OPT_CHEST_LOOT,
    "mimic_power": OPT_MIMIC_POWER, "mimic_soul": OPT_MIMIC_SOUL, "turkey_cards": OPT_TURKEY_CARDS,
    "item_timing": OPT_ITEM_TIMING, "ignoring_attack_spends_trait": OPT_IGNORING_SPENDS_TRAIT,
    "parity_includes_whetstone": OPT_PARITY_WHETSTONE, "smoke_bomb_returns_items": OPT_SMOKE_RETURNS_ITEMS,
    "final_monster_captures": OPT_FINAL_CAPTURES, "damage_from": OPT_DAMAGE_FROM,
    "starting_item": OPT_STARTING_ITEM, "items_between_fights": OPT_ITEMS_BETWEEN,
    "empty_pile_before_chest": OPT_EMPTY_BEFORE_CHEST, "whetstone_in_play": OPT_WHETSTONE_IN_PLAY,
}

# Codes of the string options: their index in rules.CHOICES (the order the kernel uses).
STARTING_MIMIC_FIGHT = CHOICES["starting_mimic"].index("fight")
STARTING_MIMIC_REDRAW = CHOICES["starting_mimic"].index("redraw")
STARTING_ITEM_RANDOM = CHOICES["starting_item"].index("random")
#: ``opts[OPT_STARTING_ITEM] - FORCED_ITEM_CODE`` is the forced item's code (``starting_item`` slugs
#: follow "random" in ITEM_SLUGS order).
FORCED_ITEM_CODE = CHOICES["starting_item"].index(ITEM_SLUGS[0])
DAGGER_CHOOSE_KIND = CHOICES["dagger_value"].index("choose_kind")
DAGGER_CHOOSE = CHOICES["dagger_value"].index("choose")
DAGGER_LOW = CHOICES["dagger_value"].index("low")
DAGGER_HIGH = CHOICES["dagger_value"].index("high")
DAGGER_SPLIT = CHOICES["dagger_value"].index("split")
SPEAR_BOTH = CHOICES["spear_kind"].index("both")
SPEAR_CHOOSE = CHOICES["spear_kind"].index("choose")
OVERSHOOT_FIRST_ATTACK = CHOICES["overshoot"].index("first_attack")
OVERSHOOT_ZERO_TOTAL = CHOICES["overshoot"].index("zero_total")
OVERSHOOT_BUST = CHOICES["overshoot"].index("bust")
BUST_DISCARD_WEAPON = CHOICES["bust"].index("discard_weapon")
BUST_SOUL_LOST = CHOICES["bust"].index("soul_lost")
CHEST_DISCARD = CHOICES["chest_loot"].index("discard")
CHEST_DRAW_PILE = CHOICES["chest_loot"].index("draw_pile")
TIMING_AFTER_REVEAL = CHOICES["item_timing"].index("after_reveal")
TIMING_BEFORE_DRAW = CHOICES["item_timing"].index("before_draw")
DAMAGE_FROM_TOP = CHOICES["damage_from"].index("top")
DAMAGE_FROM_BOTTOM = CHOICES["damage_from"].index("bottom")


def option_vector(options: RuleOptions) -> np.ndarray:
    """The kernel's int64 option vector for ``options``: ints and bools as numbers, strings as their
    index in ``rules.CHOICES``."""
    opts = np.zeros(N_OPTS, np.int64)
    for name, slot in OPTION_SLOTS.items():
        value = getattr(options, name)
        opts[slot] = CHOICES[name].index(value) if name in CHOICES else int(value)
    return opts


def option_tuple(options: RuleOptions) -> tuple[int, ...]:
    """The option vector as the fixed-length tuple the kernel passes by value."""
    return tuple(int(v) for v in option_vector(options))


@njit(cache=True, inline="always")
def overshoot_captures(attacks, total, opts):
    """Whether the next attack, going over the power, captures with no damage (``overshoot``)."""
    rule = opts[OPT_OVERSHOOT]
    if rule == OVERSHOOT_FIRST_ATTACK:
        return attacks == 0
    if rule == OVERSHOOT_ZERO_TOTAL:
        return total == 0
    return False


@njit(cache=True, inline="always")
def value_chosen(card, opts):
    """Whether the policy chooses this weapon's value: a 1/6 weapon with dagger_value "choose_kind" or
    "choose" (the OPEN_VALUE bit; reference ``AttackOptions.value``)."""
    mode = opts[OPT_DAGGER_VALUE]
    return WEAPON_HIGH_OF_CARD[card] != 0 and (mode == DAGGER_CHOOSE_KIND or mode == DAGGER_CHOOSE)


@njit(cache=True, inline="always")
def weapon_value(card, chosen_value, opts):
    """A weapon's own value before items: the printed power, or for a 1/6 weapon the value
    ``dagger_value`` gives (``chosen_value`` with "choose_kind" and "choose"); reference
    ``Table.weapon_value``."""
    high = WEAPON_HIGH_OF_CARD[card]
    low = WEAPON_POWER_OF_CARD[card]
    if high == 0:
        return low
    mode = opts[OPT_DAGGER_VALUE]
    if mode == DAGGER_CHOOSE_KIND or mode == DAGGER_CHOOSE:
        return chosen_value
    if mode == DAGGER_LOW:
        return low
    if mode == DAGGER_HIGH:
        return high
    # "split": the first number for the ranged Throwing Daggers, the second for the melee Dagger
    return low if WEAPON_KINDS_OF_CARD[card] == RANGED else high


@njit(cache=True, inline="always")
def weapon_kinds(card, chosen_value, opts):
    """A weapon's kinds (MELEE | RANGED bits) before the Spear's choice: the printed ones, but with
    dagger_value="choose_kind" a 1/6 weapon used for its low value (1) is ranged and for its high value
    (6) melee; reference ``Table.weapon_kinds``."""
    if opts[OPT_DAGGER_VALUE] == DAGGER_CHOOSE_KIND and WEAPON_HIGH_OF_CARD[card] != 0:
        return RANGED if chosen_value == WEAPON_POWER_OF_CARD[card] else MELEE
    return WEAPON_KINDS_OF_CARD[card]


# ---------------------------------------------------------------- the policy's view (a tuple)
# What a policy sees at a decision: everything public about the fight and the zones, by value.

V_POWER = 0          # the monster's power (mimic_power for a Mimic!)
V_TRAIT = 1          # rules trait code (NO_TRAIT for a Mimic!)
V_TOTAL = 2          # weapon total so far
V_ATTACKS = 3        # attacks made this fight (landed, cancelled or busted), before the current one
V_BLOCKED = 4        # damage the Shields used this fight block
V_PILE = 5           # cards in the draw pile
V_DISCARD = 6        # cards in the discard pile
V_SOULS = 7          # captured souls
V_IS_MIMIC = 8       # 1 in a Mimic! fight
V_ATTACK_OK = 9      # 0 after Explodes' single attack
V_TRAIT_SPENT = 10   # the trait met its "first ..." attack
V_ARMED = 11         # before_draw timing: ARMED_WHETSTONE | ARMED_FRENZY
V_ITEMS = 12         # held items (card mask)
V_STORED = 13        # Large Backpack weapons (card mask)
V_DISCARD_CARDS = 14  # the discard pile's cards (card mask)
V_USABLE = 15        # kind mask of the items usable at this decision point (fight decisions only); the
                     # Whetstone's bit: armed with item_timing="before_draw" (its in-play use: V_WHET_TARGETS)
V_PILE_CARDS = 16    # the draw pile's cards (card mask: its contents, never its order), for the policies
                     # that read it (policies.sees_pile); 0 for the others
V_BETWEEN = 17       # 1 at a decision point between fights (items_between_fights: no monster in play)
V_WHET_TARGETS = 18  # whetstone_in_play: the weapons in play a held Whetstone may be put on now (card mask)
N_VIEW = 19

ARMED_WHETSTONE = 1
ARMED_FRENZY = 2


@njit(cache=True, inline="always")
def make_view(power, trait, total, attacks, blocked, n_pile, n_discard, souls, is_mimic, attack_ok, trait_spent,
              armed, items, stored, discard_cards, usable, pile_cards, between, whet_targets):
    """The view tuple (``V_*`` order) with every count an int64 and every card mask a uint64: one tuple
    type at every decision point (a constant field would be typed as a literal and compile the policy
    once more for each such variant)."""
    return (int64(power), int64(trait), int64(total), int64(attacks), int64(blocked), int64(n_pile),
            int64(n_discard), int64(souls), int64(is_mimic), int64(attack_ok), int64(trait_spent), int64(armed),
            uint64(items), uint64(stored), uint64(discard_cards), uint64(usable), uint64(pile_cards),
            int64(between), uint64(whet_targets))


# ---------------------------------------------------------------- the canonical fight actions

#: Action kinds (``reference.DRAW``, ...): the same codes.
DRAW = 0
PLAY = 1
USE = 2
STOP = 3
#: The "no card" of an action.
NO_CARD = -1


@njit(cache=True, inline="always")
def play_mask(view):
    """The Backpack weapons that may attack now."""
    return view[V_STORED] if view[V_ATTACK_OK] else ZERO


@njit(cache=True, inline="always")
def draw_ok(view):
    return view[V_ATTACK_OK] != 0 and view[V_PILE] > 0


@njit(cache=True)
def n_legal(view):
    """The length of the reference's ``legal_actions()`` list: DRAW, PLAY each Backpack weapon, USE each
    usable kind (Large Backpack once per discard card; Whetstone also once per weapon in
    ``V_WHET_TARGETS``), STOP."""
    n = 1 + int64(draw_ok(view)) + count(play_mask(view))
    usable = view[V_USABLE]
    n += count(usable & ~kind_bit(LARGE_BACKPACK))
    if usable & kind_bit(LARGE_BACKPACK) != ZERO:
        n += count(view[V_DISCARD_CARDS])
    return n + count(view[V_WHET_TARGETS])


@njit(cache=True)
def nth_legal(view, r):
    """Entry ``r`` of the canonical action list as (kind, card, target)."""
    if draw_ok(view):
        if r == 0:
            return DRAW, NO_CARD, NO_CARD
        r -= 1
    plays = play_mask(view)
    n_play = count(plays)
    if r < n_play:
        return PLAY, nth(plays, r), NO_CARD
    r -= n_play
    items = view[V_ITEMS]
    usable = view[V_USABLE]
    whet_targets = view[V_WHET_TARGETS]
    rest = usable | (kind_bit(WHETSTONE) if whet_targets != ZERO else ZERO)
    while rest != ZERO:
        item = lowest(rest) // COPIES
        rest &= rest - ONE
        card = lowest_of(items, item)
        if item == LARGE_BACKPACK:
            targets = view[V_DISCARD_CARDS]
            n_targets = count(targets)
            if r < n_targets:
                return USE, card, nth(targets, r)
            r -= n_targets
            continue
        if usable & kind_bit(item) != ZERO:
            if r == 0:
                return USE, card, NO_CARD
            r -= 1
        if item == WHETSTONE:
            n_targets = count(whet_targets)
            if r < n_targets:
                return USE, card, nth(whet_targets, r)
            r -= n_targets
    return STOP, NO_CARD, NO_CARD


# ---------------------------------------------------------------- attack choices

#: Bits of ``open_``: what a policy chooses at an attack (reference ``AttackOptions``).
OPEN_VALUE = 1       # the 1/6 value (dagger_value "choose_kind" or "choose")
OPEN_KIND = 2        # the Spear's kind (spear_kind="choose")
OPEN_RELIC = 4       # a Bewitching Relic is held
OPEN_WHETSTONE = 8   # a Whetstone is held (after_reveal)
OPEN_FRENZY = 16     # a Frenzy Potion is held and this is the fight's first attack (after_reveal)

