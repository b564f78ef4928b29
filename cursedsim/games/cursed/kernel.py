"""The numba engine of Cursed!?: the procedure of docs/rules/cursed.md over flat state.

One function per rule step (set-up shuffle, starting item, the items between fights, the monster, the
fight's decision point and its checks, the attack and its value and trait, the items, the damage,
capture, escape, lost soul, the final monster, the chest); ``play_game`` deals one game and plays it
with ``play_dealt`` (which also plays a laid-out position), ``play_chunk`` games
``start .. start+count-1`` of a run. Random draws happen exactly where the reference engine makes them
(Fisher-Yates shuffles on the deck stream; the random policy on the policy stream), so the two engines
play the same games. The engine checks every policy decision and raises on an illegal one. A user's
numba policy plays on the same rule code, recompiled around its functions (``build_play_chunk``).

Speed (docs/architecture.md, "Kernels"): the game's scalars live in local variables of ``play_dealt``:
counters, the fight's state, card sets as uint64 bitmasks (held items, Backpack weapons, the discard
pile's contents) and the random streams as state tuples. The ordered zones (draw pile, discard pile,
weapons and items of the fight) are blocks of one int64 scratch array (``state.PILE`` ...), touched only
in ``play_dealt`` and the ``inline="always"`` step functions merged into it; the array crosses a call
once per game (``play_game``, inlined into ``play_chunk``, to ``play_dealt``), in ``between_fights`` only
when an item is usable there, in ``pile_mask`` only for ``counting``, and in the steps of three rare items
(``eat_turkey``, ``take_from_discard``, ``escape``); policies get a ``view`` tuple of scalars.

Compile time (a cold first run, issue 24; docs/performance.md, "Compile time: Cursed!?"): numba types
an ``inline="always"`` body anew at each call site, in each of ``play_dealt``'s three compiles (memo and
``ctl`` None or arrays). So those three rare steps are calls, not inlined into ``play_dealt``: inlined
(the Big Turkey Dinner's twice, with ``between_fights``'), they doubled its own compile (14 s against
7 s on one core), for no measurable speed; the final monster's damage and capture share the one call
site of ``take_damage`` and ``capture``; the checks of a policy's decision stay inline but their errors
are a call (``refuse``); and the game's counters are int64 from the start, so ``between_fights`` is not
compiled once more for literal arguments. The hot steps, the policy's decisions and the steps that
take the scratch array stay inlined.

Speed (issue 30, docs/performance.md): ``threshold``, the default policy, plays at the default rule
options in a kernel compiled for it and them alone (``play_chunk_threshold``: ``play_dealt`` with the
literal ``fixed``, which prunes the other policies' code before it is inlined, and the option tuple a
constant, whose tests LLVM folds); at other options, and the other built-in policies always, in the
kernel that chooses by ``policy_id`` (one compile for all: a second threshold kernel would cost
``cursedsim compile`` or the tests a whole compile). The functions that take the scratch array but do
not allocate are compiled without reference counting (``_nrt=False``; ``play_chunk`` allocates and holds
the array for the chunk); the resumable control's and the DP's entry points set ``_nrt=True`` (a callee
inherits its caller's setting unless it sets its own).
"""

from __future__ import annotations


import types

import numpy as np
from numba import int64, njit

from cursedsim.bits import ZERO
from cursedsim.games.cursed import optimal_kernel as ofk
from cursedsim.games.cursed import policies as pol
from cursedsim.games.cursed import resume as rs
from cursedsim.games.cursed.policies import OPTIMAL_FIGHT, THRESHOLD
from cursedsim.games.cursed.rules import (
    BEWITCHING_RELIC,
    BIG_TURKEY_DINNER,
    COPIES,
    END_EIGHT_SOULS,
    END_FINAL_MONSTER,
    END_PILE_EMPTY,
    EXPLODES,
    FRENZY_FACTOR,
    FRENZY_POTION,
    ITEM_SLUGS,
    LARGE_BACKPACK,
    MELEE,
    MIMIC,
    N_CARDS,
    N_UNIQUE,
    NO_START_ITEM,
    NO_TRAIT,
    OUTCOME_DTYPES,
    RANGED,
    SCROLL_OF_PURGE_LIFE,
    SHIELD,
    SHIELD_BLOCK,
    SMOKE_BOMB,
    SOUL_CRYSTAL,
    WHETSTONE,
    WHETSTONE_BONUS,
    RuleOptions,
)
from cursedsim.games.cursed.state import (
    ARMED_FRENZY,
    ARMED_WHETSTONE,
    BOTH_KINDS,
    BUST_SOUL_LOST,
    CHEST_DISCARD,
    DAMAGE_FROM_TOP,
    DISCARD,
    DRAW,
    FORCED_ITEM_CODE,
    MONSTER_CHEST_OF_CARD,
    MONSTER_POWER_OF_CARD,
    MONSTER_TRAIT_OF_CARD,
    N_ZONES,
    NO_CARD,
    OPEN_FRENZY,
    OPEN_KIND,
    OPEN_RELIC,
    OPEN_VALUE,
    OPEN_WHETSTONE,
    OPT_BUST,
    OPT_CHEST_LOOT,
    OPT_DAMAGE_FROM,
    OPT_EMPTY_BEFORE_CHEST,
    OPT_FINAL_CAPTURES,
    OPT_IGNORING_SPENDS_TRAIT,
    OPT_ITEM_TIMING,
    OPT_ITEMS_BETWEEN,
    OPT_MIMIC_POWER,
    OPT_MIMIC_SOUL,
    OPT_PARITY_WHETSTONE,
    OPT_PLAY_ON,
    OPT_SMOKE_RETURNS_ITEMS,
    OPT_SPEAR_KIND,
    OPT_STARTING_ITEM,
    OPT_STARTING_ITEMS,
    OPT_STARTING_MIMIC,
    OPT_TURKEY_CARDS,
    OPT_WHETSTONE_IN_PLAY,
    OPT_WIN_SOULS,
    PILE,
    PLAY,
    SPEAR_CHOOSE,
    STARTING_ITEM_RANDOM,
    STARTING_MIMIC_REDRAW,
    STOP,
    TIMING_AFTER_REVEAL,
    TIMING_BEFORE_DRAW,
    USE,
    USED,
    USED_COUNT,
    WEAPON_HIGH_OF_CARD,
    WEAPON_KINDS_OF_CARD,
    WEAPON_POWER_OF_CARD,
    WEAPONS,
    bit,
    held_kinds,
    kind_bit,
    kind_cards,
    kind_mask,
    lowest_of,
    make_view,
    option_tuple,
    overshoot_captures,
    value_chosen,
    weapon_kinds,
    weapon_value,
)
from cursedsim.kernel_rebuild import rebuild
from cursedsim.rng import STREAM_DECK, STREAM_POLICY, below_t, seed_tuple

#: ``end`` while the game runs, and when it halted (``resume``: the rollout search; the outcome is not read).
NOT_OVER = -1
HALTED = -2

#: How a fight closes (``reference.CLOSE_*``), or OPEN while it goes on; CLOSE_HALT: the game halts at a
#: decision point (``resume``: the rollout search).
OPEN = -1
CLOSE_CAPTURE = 0
CLOSE_STOP = 1
CLOSE_SMOKE = 2
CLOSE_LOST = 3
CLOSE_HALT = 4

#: Items a policy may use at any fight decision point (Large Backpack too, while the discard pile holds
#: a card; Whetstone and Frenzy Potion with item_timing="before_draw"; the Whetstone on a weapon in play
#: with whetstone_in_play, ``whet_targets``).
ALWAYS_USABLE = kind_mask(BIG_TURKEY_DINNER, SMOKE_BOMB, SCROLL_OF_PURGE_LIFE, SHIELD)
#: Items usable between fights (items_between_fights; Large Backpack while the discard pile holds a card):
#: those that act without a monster (``reference.BETWEEN_FIGHTS_ITEMS``).
BETWEEN_USABLE = kind_mask(BIG_TURKEY_DINNER)

#: Outcome columns of a game, in order, with the dtype the kernel fills (``rules.OUTCOME_DTYPES``).
OUTCOME_COLUMNS = tuple(OUTCOME_DTYPES)


# ---------------------------------------------------------------- zones: the ordered piles
# All inline: they touch the scratch array, which crosses a real call only on rare paths (the items
# ``eat_turkey``, ``take_from_discard``, ``escape``).

@njit(cache=True, inline="always")
def shuffle(zones, offset, n, rng):
    """Fisher-Yates in place on ``zones[offset : offset + n]``: for i = n-1 down to 1, j = below(i + 1),
    swap (``reference.Table.shuffle``; n - 1 draws)."""
    for i in range(n - 1, 0, -1):
        j, rng = below_t(rng, i + 1)
        a = zones[offset + i]
        zones[offset + i] = zones[offset + j]
        zones[offset + j] = a
    return rng


@njit(cache=True, inline="always")
def put_under_pile(zones, n_pile, source, k):
    """Cards ``zones[source : source + k]``, as a packet in their order, go under the pile (pile =
    packet + pile). Returns the new pile size."""
    for i in range(n_pile - 1, -1, -1):
        zones[PILE + i + k] = zones[PILE + i]
    for i in range(k):
        zones[PILE + i] = zones[source + i]
    return n_pile + k


@njit(cache=True, inline="always")
def to_discard(zones, n_discard, discard_cards, card):
    """``card`` on top of the discard pile: (size, contents mask)."""
    zones[DISCARD + n_discard] = card
    return n_discard + 1, discard_cards | bit(card)


@njit(cache=True, inline="always")
def fight_to_discard(zones, n_discard, discard_cards, n_used, n_weapons):
    """The fight's used items in use order, then its weapons in attack order, onto the discard pile."""
    for i in range(n_used):
        n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, zones[USED + i])
    for i in range(n_weapons):
        n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, zones[WEAPONS + i])
    return n_discard, discard_cards


@njit(cache=True, _nrt=False)
def pile_mask(zones, n_pile):
    """The draw pile's contents as a card mask (bit c = card c is in the pile)."""
    cards = ZERO
    for i in range(n_pile):
        cards |= bit(zones[PILE + i])
    return cards


@njit(cache=True, inline="always")
def pile_cards(zones, n_pile, policy_id):
    """The draw pile's contents as a card mask (the policy view's ``V_PILE_CARDS``) for the policies
    that read it (``policies.sees_pile``), 0 for the others. ``pile_mask`` is a real call, the one place
    the scratch array crosses a call, and only for those policies: inlined, its loop cost the others
    ~10% (measured with ``threshold``)."""
    return pile_mask(zones, n_pile) if pol.sees_pile(policy_id) else ZERO


# ---------------------------------------------------------------- set-up

@njit(cache=True, inline="always")
def shuffle_deck(zones, rng_deck):
    """"Shuffle the deck of cards": the pile is 0..29 shuffled by Fisher-Yates (29 draws)."""
    for c in range(N_CARDS):
        zones[PILE + c] = c
    for item in range(N_UNIQUE):
        zones[USED_COUNT + item] = 0
    return shuffle(zones, PILE, N_CARDS, rng_deck)


@njit(cache=True, inline="always")
def insert_under_pile(zones, n_pile, card):
    """``card`` goes under the pile (``pile.insert(0, card)``). Returns the new pile size."""
    for i in range(n_pile - 1, -1, -1):
        zones[PILE + i + 1] = zones[PILE + i]
    zones[PILE] = card
    return n_pile + 1


@njit(cache=True, inline="always")
def force_starting_item(zones, n_pile, item):
    """The study setting ``starting_item``: card ``item * COPIES`` (copy 0 of item code ``item``) moves
    to the top of the pile, the other cards keep their order (nothing moves if it is not in the pile);
    ``reference.Table.force_starting_item``."""
    card = item * COPIES
    for i in range(n_pile - 1, -1, -1):
        if zones[PILE + i] == card:
            for j in range(i, n_pile - 1):
                zones[PILE + j] = zones[PILE + j + 1]
            zones[PILE + n_pile - 1] = card
            return


@njit(cache=True, inline="always")
def take_starting_item(zones, n_pile, opts):
    """"Take one card and place it item side up": the top card of the pile. With
    starting_mimic="redraw" a Mimic! goes under the pile and the next card is taken (at most as many
    times as cards are left). Returns (card, pile size)."""
    n_pile -= 1
    card = zones[PILE + n_pile]
    if opts[OPT_STARTING_MIMIC] == STARTING_MIMIC_REDRAW:
        for _ in range(n_pile):
            if card // COPIES != MIMIC:
                break
            n_pile = insert_under_pile(zones, n_pile, card) - 1
            card = zones[PILE + n_pile]
    return card, n_pile


# ---------------------------------------------------------------- a fight

@njit(cache=True, inline="always")
def open_fight(card, is_mimic, opts):
    """The card in the Monster area: (power, trait, chest). A Mimic! has ``mimic_power``, no trait, no
    chest."""
    if is_mimic:
        return opts[OPT_MIMIC_POWER], NO_TRAIT, False
    return MONSTER_POWER_OF_CARD[card], MONSTER_TRAIT_OF_CARD[card], MONSTER_CHEST_OF_CARD[card]


@njit(cache=True, inline="always")
def can_attack(trait, trait_spent):
    """Explodes: "You are only able to land a single attack"; otherwise attacks are unlimited."""
    return not (trait == EXPLODES and trait_spent)


@njit(cache=True, inline="always")
def usable_items(items, discard_cards, attack_ok, attacks, armed, opts):
    """Kind mask of the held items usable at this decision point (``reference.Table.item_usable``)."""
    held = held_kinds(items)
    usable = held & ALWAYS_USABLE
    if discard_cards != ZERO:
        usable |= held & kind_bit(LARGE_BACKPACK)
    if opts[OPT_ITEM_TIMING] == TIMING_BEFORE_DRAW and attack_ok:
        if not armed & ARMED_WHETSTONE:
            usable |= held & kind_bit(WHETSTONE)
        if attacks == 0 and not armed & ARMED_FRENZY:
            usable |= held & kind_bit(FRENZY_POTION)
    return usable


@njit(cache=True, inline="always")
def whet_targets(whettable, items, power, total, opts):
    """whetstone_in_play: the weapons in play a held Whetstone may be put on now (card mask): those that
    dealt damage and carry no Whetstone (``whettable``), while the +3 keeps the total within the power
    (``reference.Table.whet_targets``)."""
    if (not opts[OPT_WHETSTONE_IN_PLAY] or items & kind_cards(WHETSTONE) == ZERO
            or total + WHETSTONE_BONUS > power):
        return ZERO
    return whettable


@njit(cache=True)
def refuse(code):
    """Raise the error of a refused policy decision (``check_action``, ``check_attack_choice``; code >= 1).
    A real call, made only on an illegal decision: the raise statements inlined with the checks were ~1/8
    of the IR that numba types and optimises in each of ``play_dealt``'s and ``between_fights``' compiles."""
    if code == 1:
        raise ValueError("policy draws a weapon when no draw is open")
    if code == 2:
        raise ValueError("policy plays a card that is not a Backpack weapon that may attack now")
    if code == 3:
        raise ValueError("policy uses an item it does not hold")
    if code == 4:
        raise ValueError("policy's Whetstone targets a card that is not a weapon it may be put on now")
    if code == 5:
        raise ValueError("policy uses an item that is not usable now")
    if code == 6:
        raise ValueError("policy's Large Backpack targets a card not in the discard pile")
    if code == 7:
        raise ValueError("policy names a target for an item other than the Large Backpack")
    if code == 8:
        raise ValueError("policy returned an unknown action kind")
    if code == 9:
        raise ValueError("policy gives a 1/6 weapon a value other than 1 or 6")
    if code == 10:
        raise ValueError("policy gives the Spear a kind other than melee or ranged")
    raise ValueError("policy spends an item that is not open at this attack")


@njit(cache=True, inline="always")
def check_action(kind, card, target, attack_ok, n_pile, stored, items, usable, discard_cards, targets):
    """Refuse an action that is not open now (any held copy of an item may be named); ``targets``: the
    weapons in play a Whetstone may be put on. The checks inline, the error a call (``refuse``)."""
    code = 0
    if kind == DRAW:
        if not (attack_ok and n_pile > 0):
            code = 1
    elif kind == PLAY:
        if not attack_ok or card < 0 or card >= N_CARDS or stored & bit(card) == ZERO:
            code = 2
    elif kind == USE:
        if card < 0 or card >= N_CARDS or items & bit(card) == ZERO:
            code = 3
        elif card // COPIES == WHETSTONE and target != NO_CARD:
            if target < 0 or target >= N_CARDS or targets & bit(target) == ZERO:
                code = 4
        elif usable & kind_bit(card // COPIES) == ZERO:
            code = 5
        elif card // COPIES == LARGE_BACKPACK:
            if target < 0 or target >= N_CARDS or discard_cards & bit(target) == ZERO:
                code = 6
        elif target != NO_CARD:
            code = 7
    elif kind != STOP:
        code = 8
    if code != 0:
        refuse(int64(code))


@njit(cache=True, inline="always")
def attack_options(card, items, attacks, opts):
    """What is open when ``card`` attacks (``state.OPEN_*`` bits; reference ``attack_options``)."""
    open_ = 0
    if value_chosen(card, opts):
        open_ |= OPEN_VALUE
    if opts[OPT_SPEAR_KIND] == SPEAR_CHOOSE and WEAPON_KINDS_OF_CARD[card] == BOTH_KINDS:
        open_ |= OPEN_KIND
    if items & kind_cards(BEWITCHING_RELIC) != ZERO:
        open_ |= OPEN_RELIC
    if opts[OPT_ITEM_TIMING] == TIMING_AFTER_REVEAL:
        if items & kind_cards(WHETSTONE) != ZERO:
            open_ |= OPEN_WHETSTONE
        if attacks == 0 and items & kind_cards(FRENZY_POTION) != ZERO:
            open_ |= OPEN_FRENZY
    return open_


@njit(cache=True, inline="always")
def check_attack_choice(card, open_, value, kind, relic, whetstone, frenzy):
    """Refuse attack choices the rules do not allow (the error: ``refuse``)."""
    if open_ & OPEN_VALUE and value != WEAPON_POWER_OF_CARD[card] and value != WEAPON_HIGH_OF_CARD[card]:
        refuse(int64(9))
    elif open_ & OPEN_KIND and kind != MELEE and kind != RANGED:
        refuse(int64(10))
    elif (relic and not open_ & OPEN_RELIC) or (whetstone and not open_ & OPEN_WHETSTONE) or (
            frenzy and not open_ & OPEN_FRENZY):
        refuse(int64(11))


@njit(cache=True, inline="always")
def attack_value(card, open_, value_choice, kind_choice, relic, whetstone, frenzy, opts):
    """Step 2 of an attack: (base, kinds, value). ``base`` is the card's monster power with the Relic,
    else its weapon value; value = base (+3 Whetstone), x2 with Frenzy; kinds the card's (the Spear's
    chosen one with spear_kind="choose", the chosen value's with dagger_value="choose_kind")."""
    base = MONSTER_POWER_OF_CARD[card] if relic else weapon_value(card, value_choice, opts)
    kinds = kind_choice if open_ & OPEN_KIND else weapon_kinds(card, value_choice, opts)
    value = base + (WHETSTONE_BONUS if whetstone else 0)
    if frenzy:
        value *= FRENZY_FACTOR
    return base, kinds, value


@njit(cache=True, inline="always")
def trait_check(trait, trait_spent, ignores, kinds, base, whetstone, opts):
    """Step 3 of an attack: (trait_spent, cancelled). Unless the attack ignores traits (or
    ignoring_attack_spends_trait), an unspent trait whose condition fits is spent and, if the attack
    does not ignore traits, it deals 0."""
    if trait_spent or (ignores and not opts[OPT_IGNORING_SPENDS_TRAIT]):
        return trait_spent, False
    parity = base + (WHETSTONE_BONUS if whetstone and opts[OPT_PARITY_WHETSTONE] else 0)
    if pol.trait_cancels(trait, kinds, parity):
        return True, not ignores
    return False, False


@njit(cache=True, inline="always")
def spend(zones, items, n_used, card):
    """Held item ``card`` moves to the fight's used items (counted). Returns (items, n_used)."""
    zones[USED + n_used] = card
    zones[USED_COUNT + card // COPIES] += 1
    return items & ~bit(card), n_used + 1


@njit(cache=True, _nrt=False)
def eat_turkey(zones, n_pile, n_discard, discard_cards, opts, rng_deck):
    """Big Turkey Dinner: "Shuffle discard pile, take 3 cards, place them at the bottom of your draw
    pile": the top k = min(turkey_cards, discard) cards, as a packet in their order, go under the pile.
    Returns (pile size, discard size, discard contents, deck stream). A real call (a rare item, two
    call sites): compiled once instead of inlined twice."""
    rng_deck = shuffle(zones, DISCARD, n_discard, rng_deck)
    k = min(opts[OPT_TURKEY_CARDS], n_discard)
    n_discard -= k
    for i in range(k):
        discard_cards &= ~bit(zones[DISCARD + n_discard + i])
    n_pile = put_under_pile(zones, n_pile, DISCARD + n_discard, k)
    return n_pile, n_discard, discard_cards, rng_deck


@njit(cache=True, _nrt=False)
def take_from_discard(zones, n_discard, target):
    """Large Backpack: ``target`` leaves the discard pile, the other cards keep their order. Returns
    the new size. A real call (a rare item, two call sites)."""
    i = 0
    while zones[DISCARD + i] != target:
        i += 1
    for j in range(i, n_discard - 1):
        zones[DISCARD + j] = zones[DISCARD + j + 1]
    return n_discard - 1


# ---------------------------------------------------------------- closing a fight

@njit(cache=True, inline="always")
def damage_due(power, total, blocked):
    """"The difference in total power when you decide to stop pulling weapons is how much damage you
    take", less what Shields block, at least 0."""
    return max(0, power - total - blocked)


@njit(cache=True, inline="always")
def take_damage(zones, n_pile, n_discard, discard_cards, damage, opts):
    """"Discard from the draw pile for each damage taken": ``damage`` cards, one at a time from the top
    (or the bottom, option damage_from), to the discard pile. Returns (pile, discard, contents)."""
    if opts[OPT_DAMAGE_FROM] == DAMAGE_FROM_TOP:
        for _ in range(damage):
            n_pile -= 1
            n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, zones[PILE + n_pile])
    elif damage > 0:
        for i in range(damage):
            n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, zones[PILE + i])
        n_pile -= damage
        for i in range(n_pile):
            zones[PILE + i] = zones[PILE + i + damage]
    return n_pile, n_discard, discard_cards


@njit(cache=True, inline="always")
def capture(zones, monster, is_mimic, souls, n_discard, discard_cards, n_used, n_weapons, opts):
    """"Capture the monster's soul by putting the captured monster into the captured souls pile and put
    any items and weapons used into the discard pile" (a Mimic! to the discard pile with
    mimic_soul=False). Returns (souls, discard, contents)."""
    if is_mimic and not opts[OPT_MIMIC_SOUL]:
        n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, monster)
    else:
        souls += 1
    n_discard, discard_cards = fight_to_discard(zones, n_discard, discard_cards, n_used, n_weapons)
    return souls, n_discard, discard_cards


@njit(cache=True, inline="always")
def lose_soul(zones, monster, n_discard, discard_cards, n_used, n_weapons):
    """bust="soul_lost": the monster, then the used items, then the weapons, to the discard pile."""
    n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, monster)
    return fight_to_discard(zones, n_discard, discard_cards, n_used, n_weapons)


@njit(cache=True, _nrt=False)
def escape(zones, monster, n_pile, n_discard, discard_cards, n_used, n_weapons, opts, rng_deck):
    """Smoke Bomb: "Place all cards in the current encounter into the draw deck and shuffle": the
    monster, then the weapons (then, with smoke_bomb_returns_items, the used items) onto the pile, which
    is shuffled; otherwise the used items go to the discard pile. Returns (pile, discard, contents,
    deck stream). A real call: a rare item, kept out of ``play_dealt``'s compile."""
    zones[PILE + n_pile] = monster
    n_pile += 1
    for i in range(n_weapons):
        zones[PILE + n_pile] = zones[WEAPONS + i]
        n_pile += 1
    if opts[OPT_SMOKE_RETURNS_ITEMS]:
        for i in range(n_used):
            zones[PILE + n_pile] = zones[USED + i]
            n_pile += 1
    else:
        for i in range(n_used):
            n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, zones[USED + i])
    rng_deck = shuffle(zones, PILE, n_pile, rng_deck)
    return n_pile, n_discard, discard_cards, rng_deck


@njit(cache=True, inline="always")
def won(souls, opts):
    """The winning soul ends the game (unless play_on_after_win)."""
    return souls >= opts[OPT_WIN_SOULS] and not opts[OPT_PLAY_ON]


# ---------------------------------------------------------------- the chest

@njit(cache=True, inline="always")
def open_chest(zones, n_pile, n_discard, discard_cards, opts, rng_deck):
    """"If the monster guarded an item chest you gain an item": the discard pile is shuffled and its top
    card taken (chest_loot="discard"), or the top card of the draw pile (``"draw_pile"``); NO_CARD when
    that pile is empty. Returns (card, pile, discard, contents, deck stream)."""
    card = NO_CARD
    if opts[OPT_CHEST_LOOT] == CHEST_DISCARD:
        if n_discard > 0:
            rng_deck = shuffle(zones, DISCARD, n_discard, rng_deck)
            n_discard -= 1
            card = zones[DISCARD + n_discard]
            discard_cards &= ~bit(card)
    elif n_pile > 0:
        n_pile -= 1
        card = zones[PILE + n_pile]
    return card, n_pile, n_discard, discard_cards, rng_deck


# ---------------------------------------------------------------- between fights

@njit(cache=True, inline="always")
def between_usable(items, discard_cards):
    """Kind mask of the held items usable between fights: a Big Turkey Dinner, a Large Backpack while
    the discard pile holds a card."""
    held = held_kinds(items)
    usable = held & BETWEEN_USABLE
    if discard_cards != ZERO:
        usable |= held & kind_bit(LARGE_BACKPACK)
    return usable


@njit(cache=True, _nrt=False)
def between_fights(zones, n_pile, n_discard, discard_cards, items, stored, souls, opts, policy_id, params,
                   rng_pol, rng_deck, ctl, rounds, damage_taken, weapons_drawn, busts, start_item, fixed=None):
    """"Use any items at any point during the round", with no monster in play (items_between_fights):
    decision points whose legal actions are USE of a held Big Turkey Dinner or Large Backpack and STOP
    (done), asked until STOP and only while an item is usable; the items used go to the discard pile, in
    use order, when the window closes (``reference.Table.between_fights``). Returns (pile, discard,
    contents, items, stored, policy stream, deck stream, halted: the items used so far when the step state
    halted at a question here, else -1; the halt's position is then dumped into ``ctl`` with the game's
    counters ``rounds`` .. ``start_item``). A real call, made only when an item is usable (``between_usable``):
    inlined twice, it doubled the kernel's compile time. ``ctl`` and ``fixed``: as ``play_dealt``'s. The policy
    decides by ``decide_between``, not its whole fight decision (no attack is open here)."""
    n_used = 0
    while True:
        usable = between_usable(items, discard_cards)
        if usable == ZERO:
            break
        if fixed is not None:   # pruned: threshold reads no pile contents
            seen = ZERO
        else:
            seen = pile_cards(zones, n_pile, policy_id)
        view = make_view(0, NO_TRAIT, 0, 0, 0, n_pile, n_discard, souls, 0, 0, 0, 0, items, stored, discard_cards,
                         usable, seen, 1, ZERO)
        if fixed is not None:   # pruned: threshold alone, or every policy by number
            kind, card, target = pol.item_rules_between(view, params, True)
        else:
            kind, card, target, rng_pol = pol.decide_between(policy_id, params, rng_pol, view, opts)
        if ctl is not None:
            if ctl[rs.C_STEP]:
                halt, kind, card, target, rng_deck = rs.take(zones, ctl, n_pile, rng_deck)
                if halt:
                    rs.dump(ctl, rs.Q_BETWEEN, NO_CARD, 0, n_pile, n_discard, discard_cards, items, stored, souls,
                            rounds, damage_taken, weapons_drawn, busts, start_item, NO_CARD, False, 0, NO_TRAIT,
                            False, 0, 0, False, 0, 0, ZERO, 0, int64(n_used), True)
                    return n_pile, n_discard, discard_cards, items, stored, rng_pol, rng_deck, int64(n_used)
        check_action(kind, card, target, False, n_pile, stored, items, usable, discard_cards, ZERO)
        if kind == STOP:
            break
        items, n_used = spend(zones, items, n_used, card)
        if card // COPIES == BIG_TURKEY_DINNER:
            n_pile, n_discard, discard_cards, rng_deck = eat_turkey(
                zones, n_pile, n_discard, discard_cards, opts, rng_deck)
        else:
            n_discard = take_from_discard(zones, n_discard, target)
            discard_cards &= ~bit(target)
            stored |= bit(target)
    for i in range(n_used):
        n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, zones[USED + i])
    return n_pile, n_discard, discard_cards, items, stored, rng_pol, rng_deck, int64(-1)


# ---------------------------------------------------------------- the game

@njit(cache=True, inline="always")
def play_game(zones, seed, index, opts, policy_id, params, memo, ctl, fixed=None):
    """Play game ``index`` of the run ``seed`` to its end. Returns (souls, rounds, damage_taken,
    cards_left, end, start_item, weapons_drawn, busts); the used-item counts are left in
    ``zones[USED_COUNT : USED_COUNT + 10]``. Inlined into ``play_chunk``: as a call of its own it linked
    and optimised ``play_dealt``'s code once more (about a second of a cold compile); the streams are
    np.int64, not literals, so ``seed_tuple`` compiles once."""
    rng_deck = seed_tuple(seed, index, np.int64(STREAM_DECK))
    rng_pol = seed_tuple(seed, index, np.int64(STREAM_POLICY))
    rng_deck = shuffle_deck(zones, rng_deck)
    if opts[OPT_STARTING_ITEM] != STARTING_ITEM_RANDOM:
        force_starting_item(zones, N_CARDS, opts[OPT_STARTING_ITEM] - FORCED_ITEM_CODE)
    none = int64(0)
    souls, rounds, damage_taken, n_pile, end, start_item, weapons_drawn, busts, _, _, _ = play_dealt(
        zones, int64(N_CARDS), none, ZERO, ZERO, ZERO, none, opts[OPT_STARTING_ITEMS], opts, policy_id, params,
        rng_deck, rng_pol, memo, ctl, fixed)
    return souls, rounds, damage_taken, n_pile, end, start_item, weapons_drawn, busts


@njit(cache=True, _nrt=False)
def play_dealt(zones, n_pile, n_discard, discard_cards, items, stored, souls, starting_left, opts, policy_id,
               params, rng_deck, rng_pol, memo, ctl, fixed=None):
    """Play from a dealt position to the end: the pile ``zones[PILE : PILE + n_pile]`` and the discard
    pile ``zones[DISCARD : DISCARD + n_discard]`` (contents ``discard_cards``), held ``items`` and Backpack
    weapons ``stored`` (card masks), ``souls`` captured, ``starting_left`` starting items still to take,
    and the two random streams (``play_game`` after its set-up shuffle; the rule tests lay out a position,
    as ``reference.Table``'s). Returns (souls, rounds, damage_taken, cards_left, end, start_item,
    weapons_drawn, busts, discard size, items, stored); the zones keep the final piles. A real call from
    ``play_game``: the scratch array crosses it once per game. ``ctl``: the rollout search's control
    (``resume``; None in every other run, which compiles without it): resume from a saved round, replay a
    fight's decisions from a script, halt at a decision point or at a round's top; with ``C_STEP`` (the
    step state, ``step.ArrayState``) every question, attacks, Soul Crystals and those between fights too.
    ``fixed``: None, the policy chosen by ``policy_id`` at each decision; the literal THRESHOLD
    (``play_chunk_threshold``), threshold's decisions alone. Numba prunes the other branch of each ``fixed
    is not None`` before it inlines the policy (it can for None and for a literal, not for a plain int),
    so that kernel (a compile of its own, cached) holds threshold's code only: no switch over the
    policies, no view field threshold never reads (docs/performance.md)."""
    # int64, not literals: the counters are arguments of ``between_fights``, which numba's first typing
    # pass would otherwise compile once more for the literal values (Literal[int](0) ..., a whole
    # compile of it, ~6 s, for nothing)
    rounds = int64(0)
    damage_taken = int64(0)
    weapons_drawn = int64(0)
    busts = int64(0)
    end = NOT_OVER
    start_item = int64(NO_START_ITEM)   # the item code of the first starting item taken
    pending_mimic = NO_CARD   # a Mimic! looted from a chest, fought next
    # ``ctl is not None`` branches are pruned when numba compiles with ``ctl=None`` (every run but the
    # rollout's): that code is its own, with the speed it had before the control (present, even untaken,
    # the control cost threshold ~12% of its games per second)
    if ctl is not None:
        if ctl[rs.C_ON] and ctl[rs.C_RESUME]:
            (n_pile, n_discard, discard_cards, items, stored, souls, starting_left, pending_mimic, rounds,
             damage_taken, weapons_drawn, busts, start_item, rng_deck, rng_pol) = rs.load(zones, ctl)
    while end == NOT_OVER:
        if ctl is not None:
            if ctl[rs.C_ON] and ctl[rs.C_POS] >= ctl[rs.C_N]:
                if ctl[rs.C_SAVE]:
                    rs.save(zones, ctl, n_pile, n_discard, discard_cards, items, stored, souls, starting_left,
                            pending_mimic, rounds, damage_taken, weapons_drawn, busts, start_item, rng_deck, rng_pol)
                if ctl[rs.C_CUT]:
                    ctl[rs.C_HALTED] = 1
                    end = HALTED
                    continue
        # ---- what is fought next: a looted Mimic!, a starting item, or the round's monster
        if pending_mimic != NO_CARD:
            monster = pending_mimic
            is_mimic = True
            pending_mimic = NO_CARD
        elif starting_left > 0:
            starting_left -= 1
            if n_pile == 0:
                starting_left = 0
                continue
            card, n_pile = take_starting_item(zones, n_pile, opts)
            if start_item == NO_START_ITEM:
                start_item = card // COPIES
            if card // COPIES != MIMIC:
                items |= bit(card)
                continue
            zones[USED_COUNT + MIMIC] += 1
            monster = card
            is_mimic = True
        else:
            # "Draw a card, this will be the monster you face this round": first the items between
            # fights, then the loss if the pile is empty
            if opts[OPT_ITEMS_BETWEEN] and between_usable(items, discard_cards) != ZERO:
                n_pile, n_discard, discard_cards, items, stored, rng_pol, rng_deck, halted = between_fights(
                    zones, n_pile, n_discard, discard_cards, items, stored, souls, opts, policy_id, params,
                    rng_pol, rng_deck, ctl, rounds, damage_taken, weapons_drawn, busts, start_item, fixed)
                if ctl is not None:
                    if halted >= 0:   # dumped where it halted
                        end = HALTED
                        break
            if n_pile == 0:
                end = END_PILE_EMPTY
                break
            rounds += 1
            n_pile -= 1
            monster = zones[PILE + n_pile]
            is_mimic = False

        # ---- the fight: decision points until it closes
        power, trait, chest = open_fight(monster, is_mimic, opts)
        total = 0
        attacks = 0
        trait_spent = False
        blocked = 0
        armed = 0
        whettable = ZERO   # weapons in play that dealt damage and carry no Whetstone
        n_weapons = 0
        n_used = 0
        close = OPEN
        while close == OPEN:
            attack_ok = can_attack(trait, trait_spent)
            usable = usable_items(items, discard_cards, attack_ok, attacks, armed, opts)
            targets = whet_targets(whettable, items, power, total, opts)
            if (attack_ok and (n_pile > 0 or stored != ZERO)) or usable != ZERO or targets != ZERO:
                if fixed is not None:   # pruned: threshold reads no pile contents
                    seen = ZERO
                else:
                    seen = pile_cards(zones, n_pile, policy_id)
                view = make_view(power, trait, total, attacks, blocked, n_pile, n_discard, souls, is_mimic,
                                 attack_ok, trait_spent, armed, items, stored, discard_cards, usable,
                                 seen, 0, targets)
                dp = False
                if memo is not None:   # pruned when None: a run without the DP compiles without it
                    dp = policy_id == OPTIMAL_FIGHT
                    if dp:   # the DP, with its table
                        kind, card, target = ofk.decide_fight(memo, view, opts, params, int64(n_weapons),
                                                              int64(n_used))
                if not dp:
                    if fixed is not None:   # pruned: threshold alone, or every policy by number
                        kind, card, target = pol.item_rules_fight(view, opts, params, True, False)
                    else:
                        kind, card, target, rng_pol = pol.decide_fight(policy_id, params, rng_pol, view, opts)
                if ctl is not None:
                    if ctl[rs.C_STEP]:
                        halt, kind, card, target, rng_deck = rs.take(zones, ctl, n_pile, rng_deck)
                        if halt:
                            rs.dump(ctl, rs.Q_FIGHT, NO_CARD, 0, n_pile, n_discard, discard_cards, items, stored, souls,
                                    rounds, damage_taken, weapons_drawn, busts, start_item, monster, is_mimic, power,
                                    trait, chest, total, attacks, trait_spent, blocked, armed, whettable, n_weapons,
                                    n_used, False)
                            close = CLOSE_HALT
                            continue
                    elif ctl[rs.C_ON]:
                        halt, kind, card, target, rng_deck, rng_pol = rs.steer(
                            zones, ctl, n_pile, kind, card, target, view, rng_deck, rng_pol, memo, opts, params,
                            policy_id, int64(n_weapons), int64(n_used))
                        if halt:
                            close = CLOSE_HALT
                            continue
                check_action(kind, card, target, attack_ok, n_pile, stored, items, usable, discard_cards,
                             targets)
            else:
                kind = STOP   # only STOP is open: the policy is not asked
                card = NO_CARD
                target = NO_CARD

            if kind == DRAW or kind == PLAY:
                if kind == DRAW:
                    n_pile -= 1
                    card = zones[PILE + n_pile]
                    weapons_drawn += 1
                else:
                    stored &= ~bit(card)
                # -- an attack: 1. choices
                open_ = attack_options(card, items, attacks, opts)
                value_choice = 0
                kind_choice = 0
                relic = False
                whetstone = False
                frenzy = False
                if open_ != 0:
                    if fixed is not None:   # pruned: threshold reads no pile contents
                        seen = ZERO
                    else:
                        seen = pile_cards(zones, n_pile, policy_id)
                    view = make_view(power, trait, total, attacks, blocked, n_pile, n_discard, souls, is_mimic,
                                     attack_ok, trait_spent, armed, items, stored, discard_cards, ZERO,
                                     seen, 0, ZERO)
                    dp = False
                    if memo is not None:   # pruned when None
                        dp = policy_id == OPTIMAL_FIGHT
                        if dp:
                            value_choice, kind_choice, relic, whetstone, frenzy = ofk.decide_attack(
                                memo, view, opts, params, card, open_)
                    if not dp:
                        if fixed is not None:   # pruned, as the fight decision's
                            value_choice, kind_choice, relic, whetstone, frenzy, rng_pol = pol.threshold_attack(
                                params, rng_pol, view, opts, card, open_)
                        else:
                            value_choice, kind_choice, relic, whetstone, frenzy, rng_pol = pol.decide_attack(
                                policy_id, params, rng_pol, view, opts, card, open_)
                    if ctl is not None:
                        if ctl[rs.C_STEP]:
                            halt, value_choice, kind_choice, spent, rng_deck = rs.take(zones, ctl, n_pile, rng_deck)
                            if halt:
                                rs.dump(ctl, rs.Q_ATTACK, card, open_, n_pile, n_discard, discard_cards, items, stored,
                                        souls, rounds, damage_taken, weapons_drawn, busts, start_item, monster,
                                        is_mimic, power, trait, chest, total, attacks, trait_spent, blocked, armed,
                                        whettable, n_weapons, n_used, False)
                                close = CLOSE_HALT
                                continue
                            relic = spent & 1 != 0
                            whetstone = spent & 2 != 0
                            frenzy = spent & 4 != 0
                    check_attack_choice(card, open_, value_choice, kind_choice, relic, whetstone, frenzy)
                first_capture = overshoot_captures(attacks, total, opts)
                attacks += 1
                if relic:
                    items, n_used = spend(zones, items, n_used, lowest_of(items, BEWITCHING_RELIC))
                if whetstone:
                    items, n_used = spend(zones, items, n_used, lowest_of(items, WHETSTONE))
                if frenzy:
                    items, n_used = spend(zones, items, n_used, lowest_of(items, FRENZY_POTION))
                whetstone = whetstone or armed & ARMED_WHETSTONE != 0
                frenzy = frenzy or armed & ARMED_FRENZY != 0
                armed = 0
                # 2. value, 3. trait
                base, kinds, value = attack_value(card, open_, value_choice, kind_choice, relic, whetstone,
                                                  frenzy, opts)
                ignores = relic or frenzy
                trait_spent, cancelled = trait_check(trait, trait_spent, ignores, kinds, base, whetstone, opts)
                new_total = total + (0 if cancelled else value)
                # 4. over the power?
                if new_total > power and first_capture:
                    zones[WEAPONS + n_weapons] = card
                    n_weapons += 1
                    close = CLOSE_CAPTURE
                    continue
                raw_total = total + value   # ignoring traits
                crystal = False
                if raw_total > power and items & kind_cards(SOUL_CRYSTAL) != ZERO:
                    if fixed is not None:   # pruned: threshold reads no pile contents
                        seen = ZERO
                    else:
                        seen = pile_cards(zones, n_pile, policy_id)
                    view = make_view(power, trait, total, attacks, blocked, n_pile, n_discard, souls, is_mimic,
                                     attack_ok, trait_spent, armed, items, stored, discard_cards, ZERO,
                                     seen, 0, ZERO)
                    dp = False
                    if memo is not None:   # pruned when None
                        dp = policy_id == OPTIMAL_FIGHT
                        if dp:
                            crystal = ofk.decide_crystal(memo, view, opts, params, card)
                    if not dp:
                        if fixed is not None:   # pruned: threshold spends every Soul Crystal that captures
                            crystal = True
                        else:
                            crystal, rng_pol = pol.decide_crystal(policy_id, params, rng_pol, view, opts, card,
                                                                  raw_total)
                    if ctl is not None:
                        if ctl[rs.C_STEP]:
                            halt, spend_it, _, _, rng_deck = rs.take(zones, ctl, n_pile, rng_deck)
                            if halt:
                                rs.dump(ctl, rs.Q_CRYSTAL, card, raw_total, n_pile, n_discard, discard_cards, items,
                                        stored, souls, rounds, damage_taken, weapons_drawn, busts, start_item, monster,
                                        is_mimic, power, trait, chest, total, attacks, trait_spent, blocked, armed,
                                        whettable, n_weapons, n_used, False)
                                close = CLOSE_HALT
                                continue
                            crystal = spend_it != 0
                if crystal:
                    items, n_used = spend(zones, items, n_used, lowest_of(items, SOUL_CRYSTAL))
                    zones[WEAPONS + n_weapons] = card
                    n_weapons += 1
                    close = CLOSE_CAPTURE
                elif new_total > power:
                    # "Drawing a weapon that takes you over the monster's power is discarded."
                    n_discard, discard_cards = to_discard(zones, n_discard, discard_cards, card)
                    busts += 1
                    if opts[OPT_BUST] == BUST_SOUL_LOST:
                        close = CLOSE_LOST
                else:
                    zones[WEAPONS + n_weapons] = card
                    n_weapons += 1
                    total = new_total
                    if not cancelled and not whetstone:
                        whettable |= bit(card)
                    if trait == EXPLODES and (not ignores or opts[OPT_IGNORING_SPENDS_TRAIT]):
                        trait_spent = True
                    if total == power:
                        close = CLOSE_CAPTURE
            elif kind == USE:
                item = card // COPIES
                items, n_used = spend(zones, items, n_used, card)
                if item == SCROLL_OF_PURGE_LIFE:
                    close = CLOSE_CAPTURE   # "Instantly kill a monster" (the printed card: captures the soul)
                elif item == SMOKE_BOMB:
                    close = CLOSE_SMOKE
                elif item == SHIELD:
                    blocked += SHIELD_BLOCK
                elif item == BIG_TURKEY_DINNER:
                    n_pile, n_discard, discard_cards, rng_deck = eat_turkey(
                        zones, n_pile, n_discard, discard_cards, opts, rng_deck)
                elif item == LARGE_BACKPACK:
                    n_discard = take_from_discard(zones, n_discard, target)
                    discard_cards &= ~bit(target)
                    stored |= bit(target)
                elif item == WHETSTONE and target != NO_CARD:
                    # whetstone_in_play: "+3 damage to a single weapon" already in play
                    whettable &= ~bit(target)
                    total += WHETSTONE_BONUS
                    if total == power:
                        close = CLOSE_CAPTURE
                elif item == WHETSTONE:
                    armed |= ARMED_WHETSTONE
                elif item == FRENZY_POTION:
                    armed |= ARMED_FRENZY
            else:
                close = CLOSE_STOP

        # ---- closing the fight: an escape, the final monster, a lost soul or a capture
        if ctl is not None:
            if close == CLOSE_HALT:
                end = HALTED
                continue
        if close == CLOSE_SMOKE:
            n_pile, n_discard, discard_cards, rng_deck = escape(
                zones, monster, n_pile, n_discard, discard_cards, n_used, n_weapons, opts, rng_deck)
            continue
        damage = 0 if close == CLOSE_CAPTURE else damage_due(power, total, blocked)
        # "On the final monster, if the damage is more than the cards left in the draw pile, its soul is
        # not captured and the game ends." (final_monster_captures: the pile, then the soul, below)
        final = damage > n_pile
        if final and not (opts[OPT_FINAL_CAPTURES] and close != CLOSE_LOST):
            if ctl is not None:
                if ctl[rs.C_STEP]:   # the final monster stays in play: the step state's table shows its fight
                    rs.dump(ctl, rs.Q_END_FIGHT, NO_CARD, 0, n_pile, n_discard, discard_cards, items, stored, souls,
                            rounds, damage_taken, weapons_drawn, busts, start_item, monster, is_mimic, power, trait,
                            chest, total, attacks, trait_spent, blocked, armed, whettable, n_weapons, n_used, False)
            end = END_EIGHT_SOULS if won(souls, opts) else END_FINAL_MONSTER
            break
        if final:
            damage = n_pile
        # one call site each of take_damage and capture (inlined) for the final monster and the others:
        # each inlined copy is typed and optimised anew in each of play_dealt's compiles
        damage_taken += damage
        n_pile, n_discard, discard_cards = take_damage(zones, n_pile, n_discard, discard_cards, damage, opts)
        if close == CLOSE_LOST:
            n_discard, discard_cards = lose_soul(zones, monster, n_discard, discard_cards, n_used, n_weapons)
            continue
        souls, n_discard, discard_cards = capture(zones, monster, is_mimic, souls, n_discard, discard_cards,
                                                  n_used, n_weapons, opts)
        if ctl is not None:
            if ctl[rs.C_STEP] and not (is_mimic and not opts[OPT_MIMIC_SOUL]):
                rs.note_soul(ctl, souls, monster)
        if final:
            end = END_EIGHT_SOULS if won(souls, opts) else END_FINAL_MONSTER
            break
        if won(souls, opts):
            end = END_EIGHT_SOULS
            break
        # ---- the chest of a round's monster (a Mimic! has none): first the items between fights and the
        # loss if the pile is empty (empty_pile_before_chest)
        if chest and opts[OPT_EMPTY_BEFORE_CHEST]:
            if opts[OPT_ITEMS_BETWEEN] and between_usable(items, discard_cards) != ZERO:
                n_pile, n_discard, discard_cards, items, stored, rng_pol, rng_deck, halted = between_fights(
                    zones, n_pile, n_discard, discard_cards, items, stored, souls, opts, policy_id, params,
                    rng_pol, rng_deck, ctl, rounds, damage_taken, weapons_drawn, busts, start_item, fixed)
                if ctl is not None:
                    if halted >= 0:   # dumped where it halted
                        end = HALTED
                        break
            if n_pile == 0:
                end = END_PILE_EMPTY
                break
        if chest:
            card, n_pile, n_discard, discard_cards, rng_deck = open_chest(
                zones, n_pile, n_discard, discard_cards, opts, rng_deck)
            if card != NO_CARD:
                if card // COPIES == MIMIC:
                    # "When drawn as an item, immediately treat the Mimic as a monster"
                    zones[USED_COUNT + MIMIC] += 1
                    pending_mimic = card
                else:
                    items |= bit(card)
    return souls, rounds, damage_taken, n_pile, end, start_item, weapons_drawn, busts, n_discard, items, stored


@njit(cache=True, inline="always")
def play_games(seed, start, n_games, opts, policy_id, params, memo, win, souls, rounds, damage_taken, cards_left,
               end, start_item, weapons_drawn, busts, used, fixed):
    """``play_chunk``'s body, inlined into it and into ``play_chunk_threshold``: the threshold kernel is one
    compile over ``play_dealt``'s, not two (a call of ``play_chunk`` linked and optimised its code again)."""
    zones = np.zeros(N_ZONES, np.int64)
    for g in range(n_games):
        n_souls, n_rounds, damage, left, how, first_item, drawn, n_busts = play_game(
            zones, seed, start + g, opts, policy_id, params, memo, None, fixed)
        win[g] = n_souls >= opts[OPT_WIN_SOULS]
        souls[g] = n_souls
        rounds[g] = n_rounds
        damage_taken[g] = damage
        cards_left[g] = left
        end[g] = how
        start_item[g] = first_item
        weapons_drawn[g] = drawn
        busts[g] = n_busts
        for item in range(N_UNIQUE):
            used[g, item] = zones[USED_COUNT + item]


@njit(cache=True)
def play_chunk(seed, start, n_games, opts, policy_id, params, memo, win, souls, rounds, damage_taken, cards_left,
               end, start_item, weapons_drawn, busts, used, fixed=None):
    """Play games start .. start+n_games-1 of the run ``seed``; fill the outcome arrays (``used``:
    n_games x 10 item counts). ``memo``: optimal_fight's table (``optimal_kernel``), kept by the caller
    across chunks; None for the other policies (the DP's branches are then pruned, not compiled).
    ``fixed``: as ``play_dealt``'s (``play_chunk_threshold``)."""
    play_games(seed, start, n_games, opts, policy_id, params, memo, win, souls, rounds, damage_taken, cards_left,
               end, start_item, weapons_drawn, busts, used, fixed)


#: The default rule options' tuple (``state.option_tuple(RuleOptions())``): a constant of threshold's kernel.
DEFAULT_OPTS = option_tuple(RuleOptions())


@njit(cache=True)
def play_chunk_threshold(seed, start, n_games, params, win, souls, rounds, damage_taken, cards_left, end,
                         start_item, weapons_drawn, busts, used):
    """``play_chunk`` with ``threshold`` at the default rule options, compiled for them alone. ``fixed`` is a
    constant here, so numba types it as a literal and ``play_dealt`` prunes every other policy's code before
    inlining; the options are the global ``DEFAULT_OPTS``, compiled in as constants, so LLVM folds every
    option's test and drops the other settings' code, as the C reference's constants (+20 % games per
    second; docs/performance.md, "Where the time goes: Cursed!?"). Other options play in ``play_chunk``."""
    play_games(seed, start, n_games, DEFAULT_OPTS, int64(THRESHOLD), params, None, win, souls, rounds,
               damage_taken, cards_left, end, start_item, weapons_drawn, busts, used, THRESHOLD)


@njit(cache=True)
def play_chunk_at_defaults(seed, start, n_games, policy_id, params, win, souls, rounds, damage_taken, cards_left,
                           end, start_item, weapons_drawn, busts, used):
    """``play_chunk`` at the default rule options, compiled in as constants (``DEFAULT_OPTS``): the entry of a
    user's kernel at those options (``build_play_chunk``; its other options play in its ``play_chunk``)."""
    play_games(seed, start, n_games, DEFAULT_OPTS, policy_id, params, None, win, souls, rounds, damage_taken,
               cards_left, end, start_item, weapons_drawn, busts, used, None)


#: The per-game scalar columns ``play_chunk`` fills, in its argument order (then the item counts).
SCALAR_COLUMNS = ("win", "souls", "rounds", "damage_taken", "cards_left", "end", "start_item", "weapons_drawn",
                  "busts")
#: ``used_<item>`` columns by item code (column ``ITEM_COLUMNS[i]`` is ``used[:, i]``).
ITEM_COLUMNS = tuple(f"used_{slug}" for slug in ITEM_SLUGS)


def run_chunk(seed: int, start: int, n_games: int, opts, policy_id: int, params,
              play=None) -> dict[str, np.ndarray]:
    """Python entry: play ``n_games`` games and return their outcome arrays by column name
    (``rules.OUTCOME_DTYPES``). ``opts`` is the option tuple (``state.option_tuple``); ``play`` the
    compiled chunk player: the built-in ``play_chunk`` unless a user policy's (``build_play_chunk``)."""
    scalars = {column: np.empty(n_games, np.dtype(OUTCOME_DTYPES[column])) for column in SCALAR_COLUMNS}
    used = np.empty((n_games, N_UNIQUE), np.int8)
    opts = tuple(int(v) for v in opts)
    params = pol.params_tuple(params)
    # None for every policy but the DP: numba prunes its branches, so those runs never compile it
    memo = ofk.memo_for(opts, params) if policy_id == OPTIMAL_FIGHT else None
    at_defaults = _AT_DEFAULTS.get(play) if opts == DEFAULT_OPTS else None   # a user's kernel at the defaults
    if play is None and policy_id == THRESHOLD and opts == DEFAULT_OPTS:   # compiled for them alone
        play_chunk_threshold(np.uint64(seed), np.int64(start), np.int64(n_games), params, *scalars.values(), used)
    elif at_defaults is not None:
        at_defaults(np.uint64(seed), np.int64(start), np.int64(n_games), np.int64(policy_id), params,
                    *scalars.values(), used)
    else:
        (play or play_chunk)(np.uint64(seed), np.int64(start), np.int64(n_games), opts, np.int64(policy_id), params,
                             memo, *scalars.values(), used)
    items = {column: np.ascontiguousarray(used[:, i]) for i, column in enumerate(ITEM_COLUMNS)}
    return {column: scalars[column] if column in scalars else items[column] for column in OUTCOME_COLUMNS}


# ---------------------------------------------------------------- a kernel for a user's policy

#: The kernel functions that call the policy (``pol.decide_*``, ``pol.sees_pile``), directly or through
#: one another: what a kernel for a user's policy must compile anew (every other step function,
#: ``trait_check``'s ``pol.trait_cancels`` included, is shared with the built-in kernel).
POLICY_CALLERS = ("pile_cards", "between_fights", "play_dealt", "play_game", "play_games", "play_chunk",
                  "play_chunk_threshold", "play_chunk_at_defaults")

#: A user's kernel (``build_play_chunk``'s ``play_chunk``) -> its entry at the default rule options, which
#: ``run_chunk`` takes for them: each compiled on its first use.
_AT_DEFAULTS: dict = {}


@njit(inline="always")
def _sees_pile(policy_id):
    """A user policy's ``sees_pile`` with ``sees_pile=True``: the view carries the pile's contents."""
    return True


@njit(inline="always")
def _sees_no_pile(policy_id):
    """A user policy's ``sees_pile`` with ``sees_pile=False``: ``view[V_PILE_CARDS]`` is 0."""
    return False


@njit(inline="always")
def _no_dp_fight(memo, view, opts, params, n_weapons, n_used):
    return STOP, NO_CARD, NO_CARD


@njit(inline="always")
def _no_dp_attack(memo, view, opts, params, card, open_):
    return 0, 0, False, False, False


@njit(inline="always")
def _no_dp_crystal(memo, view, opts, params, card):
    return False


#: What a user policy's kernel calls in place of ``optimal_kernel`` (never reached: its policy id is not
#: OPTIMAL_FIGHT), so the DP is not compiled into it.
_NO_DP = types.ModuleType("cursedsim.games.cursed.kernel_no_dp")
_NO_DP.decide_fight = _no_dp_fight
_NO_DP.decide_attack = _no_dp_attack
_NO_DP.decide_crystal = _no_dp_crystal


def build_play_chunk(decide_fight, decide_attack, decide_crystal, sees_pile=False):
    """A ``play_chunk`` whose policy decisions come from the user's numba functions ``decide_fight``,
    ``decide_attack`` and ``decide_crystal`` (the signatures of ``policies.decide_*``), with the same
    rule code as the built-in kernel: the policy-calling functions (``POLICY_CALLERS``) are recompiled
    over a namespace where ``pol`` names the user's functions; ``sees_pile`` says whether the view's
    ``V_PILE_CARDS`` is filled. Compiled on first call in each process (not cached: numba cannot cache
    it); at the default rule options ``run_chunk`` plays its ``play_chunk_at_defaults`` instead, the options
    compiled in as constants (``_AT_DEFAULTS``; a process that plays both compiles both)."""
    functions = {"decide_fight": decide_fight, "decide_between": decide_fight, "decide_attack": decide_attack,
                 "decide_crystal": decide_crystal,
                 "sees_pile": _sees_pile if sees_pile else _sees_no_pile}
    built = rebuild({**globals(), "ofk": _NO_DP}, POLICY_CALLERS, functions)
    _AT_DEFAULTS[built["play_chunk"]] = built["play_chunk_at_defaults"]
    return built["play_chunk"]
