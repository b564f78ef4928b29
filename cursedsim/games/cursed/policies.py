"""Cursed!? policies as numba functions: what to do at a fight decision point, how to attack with a
weapon, whether to spend a Soul Crystal. The same three questions as ``reference_policies.Policy``,
asked in the same places, so a policy here and its readable twin there play identical games.

Everything is passed by value. ``view`` is the tuple of ``state.V_*`` fields (the monster, the total,
counts, held items and Backpack weapons and the discard pile as card masks, the usable item kinds),
``opts`` the rule option tuple (``state.OPT_*``), ``params`` a ``MAX_PARAMS``-tuple of floats, ``rng``
the policy stream's state tuple, returned advanced.

- ``decide_fight(policy_id, params, rng, view, opts) -> (kind, card, target, rng)``: one action of the
  canonical list (``state.DRAW``, ``PLAY card``, ``USE card [target]``, ``STOP``); asked only when
  something besides STOP is open. The engine refuses anything else.
- ``decide_attack(policy_id, params, rng, view, opts, card, open_) -> (value, kind, relic, whetstone,
  frenzy, rng)``: asked only when ``open_`` (``state.OPEN_*`` bits) is not 0; ``value`` (1 or 6) when
  OPEN_VALUE, ``kind`` (MELEE or RANGED) when OPEN_KIND, items only when open.
- ``decide_crystal(policy_id, params, rng, view, opts, card, total) -> (spend, rng)``: the attack takes
  the total (ignoring traits) to ``total`` > power and a Soul Crystal is held.

``threshold`` and ``counting`` share the item rules and their parameters (``ITEM_PARAMS``, the same
``params`` slots 1-7); they differ only in when to attack (rule 4 of ``item_rules_fight``) and in how an
attack takes its 1/6 value and the Spear's kind. ``counting`` reads the draw pile's *contents*
(``view[V_PILE_CARDS]``, a card mask the kernel fills for the policies ``sees_pile`` names), never its
order.
"""

from __future__ import annotations

from numba import int64, njit

from cursedsim.bits import ZERO, count
from cursedsim.games.base import PolicySpec
from cursedsim.games.cursed.rules import (
    BIG_TURKEY_DINNER,
    COPIES,
    ETHEREAL,
    EVASIVE,
    FLYING,
    FRENZY_FACTOR,
    FRENZY_POTION,
    LARGE_BACKPACK,
    MELEE,
    N_UNIQUE,
    RANGED,
    SCROLL_OF_PURGE_LIFE,
    SHIELD,
    SMOKE_BOMB,
    TOUGH_SKIN,
    WHETSTONE,
    WHETSTONE_BONUS,
)
from cursedsim.games.cursed.state import (
    BOTH_KINDS,
    DRAW,
    MAX_BEST_VALUE,
    MONSTER_POWER_OF_CARD,
    NO_CARD,
    OPEN_FRENZY,
    OPEN_KIND,
    OPEN_RELIC,
    OPEN_VALUE,
    OPEN_WHETSTONE,
    OPT_ITEM_TIMING,
    OPT_SPEAR_KIND,
    PLAY,
    SPEAR_CHOOSE,
    STOP,
    TIMING_BEFORE_DRAW,
    USE,
    V_ATTACK_OK,
    V_ATTACKS,
    V_BETWEEN,
    V_BLOCKED,
    V_DISCARD_CARDS,
    V_ITEMS,
    V_PILE,
    V_PILE_CARDS,
    V_POWER,
    V_STORED,
    V_TOTAL,
    V_TRAIT,
    V_TRAIT_SPENT,
    V_USABLE,
    V_WHET_TARGETS,
    WEAPON_HIGH_OF_CARD,
    WEAPON_KINDS_OF_CARD,
    WEAPON_POWER_OF_CARD,
    best_weapon,
    kind_bit,
    kind_cards,
    lowest,
    lowest_of,
    n_legal,
    nth_legal,
    overshoot_captures,
    value_chosen,
    weapon_kinds,
    weapon_value,
)
from cursedsim.rng import below_t

#: Length of the parameter tuple every policy receives (its own parameters first, zeros after).
MAX_PARAMS = 12

RANDOM = 0
THRESHOLD = 1
NO_ITEMS = 2
COUNTING = 3
#: The exact fight DP (``optimal_kernel``): its decisions in a fight are asked by the kernel itself (they
#: need the DP's table); here only between fights, where it plays counting's rules with their defaults.
OPTIMAL_FIGHT = 4
#: The search (rollout.py): never a ``policy_id`` of ``decide_*``, its games run in ``rollout.play_chunk``,
#: which asks its base policy.
ROLLOUT = 5

# ---- parameters (indices into ``params``). Slot 0 is the policy's own drawing parameter (threshold's
# k, counting's margin; no_items has only that one); slots 1-7 are the item rules both share.
P_K = 0
P_MARGIN = 0
P_TURKEY_PILE = 1
P_SCROLL_POWER = 2
P_SHIELD_DUE = 3
P_SMOKE_DUE = 4
P_SCROLL_DUE = 5
P_FRENZY_POWER = 6
P_WHETSTONE_GAP = 7

#: The item rules' parameters and defaults (``reference_policies.ITEM_DEFAULTS``), params slots 1-7 of
#: both threshold and counting.
ITEM_PARAMS = {"turkey_pile": 5.0, "scroll_power": 10.0, "shield_due": 2.0, "smoke_due": 4.0, "scroll_due": 3.0,
               "frenzy_power": 8.0, "whetstone_gap": 7.0}
ITEM_PARAM_DOCS = {
    "turkey_pile": "Big Turkey Dinner when the draw pile holds at most this many cards",
    "scroll_power": "Scroll of Purge Life before the first attack on a monster of at least this power",
    "shield_due": "Shield at the stop when at least this much damage is due",
    "smoke_due": "Smoke Bomb at the stop when at least this much damage is due (or the stop is fatal)",
    "scroll_due": "Scroll of Purge Life at the stop when at least this much damage is due",
    "frenzy_power": "item_timing=before_draw: arm a Frenzy Potion against a monster of at least this power",
    "whetstone_gap": "item_timing=before_draw: arm a Whetstone when the gap is at least this",
}
#: ThresholdPolicy's parameters and their defaults (the reference's values), in ``params`` order.
THRESHOLD_PARAMS = {"k": 2.0, **ITEM_PARAMS}
THRESHOLD_PARAM_DOCS = {"k": "stop drawing when the gap (power - total) is at most k", **ITEM_PARAM_DOCS}
#: CountingPolicy's parameters and their defaults, in ``params`` order.
COUNTING_PARAMS = {"margin": 0.0, **ITEM_PARAMS}
COUNTING_PARAM_DOCS = {
    "margin": "draw when the expected damage after one more weapon (the card drawn counted as 1) is lower "
              "than the damage of a stop now by more than this",
    **ITEM_PARAM_DOCS,
}

#: counting's parameter tuple at its defaults (optimal_fight plays counting's item rules with them).
COUNTING_DEFAULT_PARAMS = tuple(list(COUNTING_PARAMS.values()) + [0.0] * (MAX_PARAMS - len(COUNTING_PARAMS)))

#: ``tune``'s default ranges of the item parameters threshold and counting share, from a one-at-a-time scan
#: (sweep, 100,000 games, seed 7) around the defaults. threshold's k peaks sharply at 2 (k=1: 18.5%, 2: 25.4%,
#: 3: 20.1%), counting's margin at -0.25 (-0.5: 23.2%, 0: 23.5%); the item parameters move the win rate by
#: tenths of a point inside these ranges and lose beyond them. frenzy_power and whetstone_gap act only with
#: item_timing="before_draw" and keep their defaults.
ITEM_TUNE_SPACE = {"turkey_pile": (0, 10), "scroll_power": (6, 11), "shield_due": (0, 3), "smoke_due": (1, 5),
                   "scroll_due": (2, 6)}

POLICIES = {
    "random": PolicySpec(
        "random", RANDOM,
        "The floor: uniform random legal choices from the policy stream (one of the canonical fight "
        "actions; each open attack choice a coin flip in the order value, kind, relic, whetstone, frenzy; "
        "the Soul Crystal a coin flip). About 0% wins."),
    "threshold": PolicySpec(
        "threshold", THRESHOLD,
        "Draw while the gap (power - total) is above k; items by fixed rules: Large Backpack takes the "
        "best discard weapon, Big Turkey Dinner when the pile is low (between fights too), Scroll of "
        "Purge Life on a big monster before the first attack or when a stop would be fatal, a Whetstone "
        "on a weapon in play when it captures or saves 3 damage (whetstone_in_play), a fitting Backpack "
        "weapon before a draw; at the stop Shield, Smoke Bomb or Scroll by the damage due; at an attack "
        "the 1/6 as 6 if it fits, one item only when it makes the attack capture; always the Soul "
        "Crystal (reference_policies.ThresholdPolicy).",
        params=THRESHOLD_PARAMS, param_docs=THRESHOLD_PARAM_DOCS,
        tune_space={"k": (1, 3), **ITEM_TUNE_SPACE}),
    "no_items": PolicySpec(
        "no_items", NO_ITEMS,
        "threshold's drawing without any item: draw while the gap is above k, the 1/6 as 6 if it fits, "
        "never an item or a Soul Crystal (a Mimic! met as an item is still fought). "
        "(reference_policies.NoItemsPolicy)",
        params={"k": THRESHOLD_PARAMS["k"]}, param_docs={"k": THRESHOLD_PARAM_DOCS["k"]}),
    "counting": PolicySpec(
        "counting", COUNTING,
        "Decides each draw from the exact composition of the remaining draw pile (known, since every "
        "other zone is public; its order is not used): the damage of a stop now against the expected "
        "damage after exactly one more weapon and a stop, averaged over the pile's cards, the card drawn "
        "counted as one damage (it leaves the pile = life), traits, Shields, the overshoot and bust rules "
        "and the best 1/6 value and Spear kind included; draws when that is lower by more than margin, "
        "and always when a stop now would deal more damage than the cards left. Items by threshold's "
        "rules (the same parameters); a fitting Backpack weapon is always played "
        "(reference_policies.CountingPolicy).",
        params=COUNTING_PARAMS, param_docs=COUNTING_PARAM_DOCS,
        tune_space={"margin": (-0.6, 0.1), **ITEM_TUNE_SPACE}),
}


@njit(cache=True, inline="always")
def sees_pile(policy_id):
    """Whether the policy reads the draw pile's contents (the kernel fills ``view[V_PILE_CARDS]`` only
    for these; 0 for the others)."""
    return policy_id == COUNTING or policy_id == OPTIMAL_FIGHT


# ------------------------------------------------------------------ random

@njit(cache=True)
def random_fight(view, rng):
    """``legal[below(len(legal))]`` over the canonical list."""
    r, rng = below_t(rng, n_legal(view))
    kind, card, target = nth_legal(view, r)
    return kind, card, target, rng


@njit(cache=True)
def random_attack(card, open_, rng):
    """One coin flip per open choice, in the order value, kind, relic, whetstone, frenzy."""
    value = 0
    kind = 0
    relic = False
    whetstone = False
    frenzy = False
    if open_ & OPEN_VALUE:
        flip, rng = below_t(rng, 2)
        value = WEAPON_HIGH_OF_CARD[card] if flip else WEAPON_POWER_OF_CARD[card]
    if open_ & OPEN_KIND:
        flip, rng = below_t(rng, 2)
        kind = RANGED if flip else MELEE
    if open_ & OPEN_RELIC:
        flip, rng = below_t(rng, 2)
        relic = flip != 0
    if open_ & OPEN_WHETSTONE:
        flip, rng = below_t(rng, 2)
        whetstone = flip != 0
    if open_ & OPEN_FRENZY:
        flip, rng = below_t(rng, 2)
        frenzy = flip != 0
    return value, kind, relic, whetstone, frenzy, rng


# ------------------------------------------------------------------ threshold and counting: the item rules

@njit(cache=True, inline="always")
def due_now(view):
    """The damage a stop would deal now: the gap less what Shields block, at least 0."""
    return max(0, view[V_POWER] - view[V_TOTAL] - view[V_BLOCKED])


@njit(cache=True, inline="always")
def fitting_backpack(view, opts):
    """The Backpack weapon rule 4 plays: the highest ``best_value`` <= gap (any, the highest, when an
    overshoot would capture now), the lowest id among equals; -1 if none."""
    over_ok = overshoot_captures(view[V_ATTACKS], view[V_TOTAL], opts)
    return best_weapon(view[V_STORED], MAX_BEST_VALUE if over_ok else view[V_POWER] - view[V_TOTAL])


@njit(cache=True, inline="always")
def wants_attack(view, opts, params, counting):
    """When to attack (rule 4; attacks are allowed): (attack at all, draw when no Backpack weapon fits).
    threshold: while the gap is above k, drawing if nothing fits. counting: when ``counting_draws``
    says so, or when a Backpack weapon fits (it costs no card of the pile)."""
    if not counting:
        return view[V_POWER] - view[V_TOTAL] > params[P_K], True
    if counting_draws(view, opts, params):
        return True, True
    return fitting_backpack(view, opts) >= 0, False


@njit(cache=True, inline="always")
def attack_or_stop(view, opts, params, uses_items, counting):
    """Rule 4: attack when ``wants_attack`` says so (before_draw: first arm a Frenzy Potion or a
    Whetstone); a fitting Backpack weapon before a draw. (kind, card)."""
    if not view[V_ATTACK_OK]:
        return STOP, NO_CARD
    attack, draw = wants_attack(view, opts, params, counting)
    if not attack:
        return STOP, NO_CARD
    gap = view[V_POWER] - view[V_TOTAL]
    items = view[V_ITEMS]
    if uses_items and opts[OPT_ITEM_TIMING] == TIMING_BEFORE_DRAW:
        usable = view[V_USABLE]
        if view[V_POWER] >= params[P_FRENZY_POWER] and usable & kind_bit(FRENZY_POTION) != ZERO:
            return USE, lowest_of(items, FRENZY_POTION)
        if gap >= params[P_WHETSTONE_GAP] and usable & kind_bit(WHETSTONE) != ZERO:
            return USE, lowest_of(items, WHETSTONE)
    card = fitting_backpack(view, opts)
    if card >= 0:
        return PLAY, card
    if draw and view[V_PILE] > 0:
        return DRAW, NO_CARD
    return STOP, NO_CARD


@njit(cache=True, inline="always")
def turkey_due(view, params):
    """Rule 2: the Big Turkey Dinner to eat now (pile <= turkey_pile and the discard pile not empty), or
    -1."""
    turkey = lowest_of(view[V_ITEMS], BIG_TURKEY_DINNER)
    if turkey >= 0 and view[V_PILE] <= params[P_TURKEY_PILE] and view[V_DISCARD_CARDS] != ZERO:
        return turkey
    return -1


@njit(cache=True, inline="always")
def item_rules_fight(view, opts, params, uses_items, counting):
    """ThresholdPolicy.fight (and CountingPolicy's, whose rule 4 differs): the first of the rules that
    applies (see ThresholdPolicy's docstring); between fights rule 2 only. Inlined (once per
    ``decide_fight``): as a call it took the view, the options and the parameters (53 values) through the
    stack at each of the ~24 decision points of a game, a fifth of the kernel's time with ``threshold``
    (docs/performance.md, "Where the time goes: Cursed!?")."""
    all_rules = uses_items and not view[V_BETWEEN]   # else rule 2 (with items) and rule 4 only
    if not all_rules:
        turkey = turkey_due(view, params) if uses_items else -1
        if turkey >= 0:
            return USE, turkey, NO_CARD
    else:
        items = view[V_ITEMS]
        pile = view[V_PILE]
        discard = view[V_DISCARD_CARDS]
        backpack = lowest_of(items, LARGE_BACKPACK)
        if backpack >= 0 and discard != ZERO:
            return USE, backpack, best_weapon(discard, MAX_BEST_VALUE)
        turkey = turkey_due(view, params)
        if turkey >= 0:
            return USE, turkey, NO_CARD
        scroll = lowest_of(items, SCROLL_OF_PURGE_LIFE)
        due = due_now(view)
        if scroll >= 0 and ((view[V_ATTACKS] == 0 and view[V_POWER] >= params[P_SCROLL_POWER]) or due > pile):
            return USE, scroll, NO_CARD
        targets = view[V_WHET_TARGETS]
        whetstone = lowest_of(items, WHETSTONE)
        if targets != ZERO and view[V_POWER] - view[V_TOTAL] == WHETSTONE_BONUS:
            return USE, whetstone, lowest(targets)
    # one attack_or_stop for both ways in: inlined twice, it was half of this function's compile
    kind, card = attack_or_stop(view, opts, params, all_rules, counting)
    if kind != STOP or not all_rules:
        return kind, card, NO_CARD
    if targets != ZERO and due >= WHETSTONE_BONUS:
        return USE, whetstone, lowest(targets)
    shield = lowest_of(items, SHIELD)
    if due >= params[P_SHIELD_DUE] and shield >= 0:
        return USE, shield, NO_CARD
    smoke = lowest_of(items, SMOKE_BOMB)
    if (due >= params[P_SMOKE_DUE] or due > pile) and smoke >= 0:
        return USE, smoke, NO_CARD
    if due >= params[P_SCROLL_DUE] and scroll >= 0:
        return USE, scroll, NO_CARD
    return STOP, NO_CARD, NO_CARD


@njit(cache=True, inline="always")
def captures(v, gap, over_ok):
    """Whether an attack of value v captures: exactly the gap, or over it when an overshoot captures."""
    return v == gap or (v > gap and over_ok)


@njit(cache=True, inline="always")
def threshold_value_kind(view, opts, card, open_):
    """ThresholdPolicy's attack choices: the 1/6 as 6 if it fits (or an overshoot captures), else 1;
    the Spear as ranged against Flying, else melee; 0 where nothing is open."""
    value = 0
    kind = 0
    if open_ & OPEN_VALUE:
        high = WEAPON_HIGH_OF_CARD[card]
        over_ok = overshoot_captures(view[V_ATTACKS], view[V_TOTAL], opts)
        value = high if (high <= view[V_POWER] - view[V_TOTAL] or over_ok) else WEAPON_POWER_OF_CARD[card]
    if open_ & OPEN_KIND:
        kind = RANGED if view[V_TRAIT] == FLYING else MELEE
    return value, kind


@njit(cache=True)
def item_rules_attack(view, opts, card, open_, value, kind):
    """ThresholdPolicy.attack's item rule, after the 1/6 ``value`` and Spear ``kind`` are chosen
    (``threshold_value_kind``, counting: ``counting_choice``): at most one item (Relic, Whetstone,
    Frenzy Potion, the first that makes the attack capture when the weapon alone would not). The item
    rule does not consider traits. (value, kind, relic, whetstone, frenzy)."""
    gap = view[V_POWER] - view[V_TOTAL]
    over_ok = overshoot_captures(view[V_ATTACKS], view[V_TOTAL], opts)
    base = weapon_value(card, value, opts)
    if captures(base, gap, over_ok):
        return value, kind, False, False, False
    if open_ & OPEN_RELIC and captures(MONSTER_POWER_OF_CARD[card], gap, over_ok):
        return value, kind, True, False, False
    if open_ & OPEN_WHETSTONE and captures(base + WHETSTONE_BONUS, gap, over_ok):
        return value, kind, False, True, False
    if open_ & OPEN_FRENZY and captures(base * FRENZY_FACTOR, gap, over_ok):
        return value, kind, False, False, True
    return value, kind, False, False, False


# ------------------------------------------------------------------ counting: the one-draw expectation

@njit(cache=True, inline="always")
def trait_cancels(trait, kinds, parity_value):
    """The trait's "first ..." condition (Flying: melee, Tough Skin: ranged, Ethereal: odd, Evasive:
    even), for the kernel's rules and the policies' look-ahead alike; the reference's twin is
    ``reference.Table.trait_cancels`` (tests/test_cursed_policies.py checks they agree)."""
    if trait == FLYING:
        return kinds & MELEE != 0
    if trait == TOUGH_SKIN:
        return kinds & RANGED != 0
    if trait == ETHEREAL:
        return parity_value % 2 == 1
    if trait == EVASIVE:
        return parity_value % 2 == 0
    return False


@njit(cache=True)
def one_attack(view, opts, base, kinds):
    """counting: the damage of a stop after one more attack of own value ``base`` with ``kinds`` (no
    item), as the rules compute it: the gap less what Shields block, at least 0. An unspent trait that
    fits cancels the attack (the total stays); going over captures when the overshoot rule covers it
    (0), else busts (the total stays; with bust="soul_lost" the fight ends with that damage, the soul
    lost, which is not priced); landing on the power captures (0)."""
    power = view[V_POWER]
    total = view[V_TOTAL]
    cancelled = view[V_TRAIT_SPENT] == 0 and trait_cancels(view[V_TRAIT], kinds, base)
    new_total = total if cancelled else total + base
    if new_total == power or (new_total > power and overshoot_captures(view[V_ATTACKS], total, opts)):
        return 0
    if new_total > power:
        new_total = total
    return max(0, power - new_total - view[V_BLOCKED])


@njit(cache=True)
def counting_choice(view, opts, card):
    """counting's attack with ``card``: (value, kind, damage). The 1/6 value (dagger_value "choose_kind",
    with the kind that goes with it, or "choose") or the Spear's kind (spear_kind="choose") whose
    ``one_attack`` damage is least -- threshold's choice unless the other's is strictly less; 0 where
    nothing is chosen."""
    high = WEAPON_HIGH_OF_CARD[card]
    kinds = WEAPON_KINDS_OF_CARD[card]
    if value_chosen(card, opts):
        low = WEAPON_POWER_OF_CARD[card]
        over_ok = overshoot_captures(view[V_ATTACKS], view[V_TOTAL], opts)
        value = high if (high <= view[V_POWER] - view[V_TOTAL] or over_ok) else low
        other = low if value == high else high
        damage = one_attack(view, opts, value, weapon_kinds(card, value, opts))
        damage2 = one_attack(view, opts, other, weapon_kinds(card, other, opts))
        if damage2 < damage:
            return other, 0, damage2
        return value, 0, damage
    base = weapon_value(card, 0, opts)
    if kinds == BOTH_KINDS and opts[OPT_SPEAR_KIND] == SPEAR_CHOOSE:
        kind = RANGED if view[V_TRAIT] == FLYING else MELEE
        other = MELEE if kind == RANGED else RANGED
        damage = one_attack(view, opts, base, kind)
        damage2 = one_attack(view, opts, base, other)
        if damage2 < damage:
            return 0, other, damage2
        return 0, kind, damage
    return 0, 0, one_attack(view, opts, base, kinds)


@njit(cache=True)
def counting_draws(view, opts, params):
    """counting's draw rule (``reference_policies.CountingPolicy.draws``). With ``n`` cards in the pile
    a stop now deals ``stop`` (``due_now``); if that is more than ``n`` (the final monster: the stop
    ends the game), draw. Otherwise drawing card c and stopping costs ``1 + damage_c`` (the card drawn
    leaves the pile; ``counting_choice``). Draw when ``n * stop - sum_c (1 + damage_c) > margin * n``:
    the means compared as sums over the pile's cards (its composition ``view[V_PILE_CARDS]``, one
    evaluation per unique card), integers but for ``margin * n``, the same float product as the
    reference's."""
    n = view[V_PILE]
    if n == 0:
        return False
    stop = due_now(view)
    if stop > n:
        return True
    pile_cards = view[V_PILE_CARDS]
    cost_sum = 0
    for u in range(N_UNIQUE):
        copies = count(pile_cards & kind_cards(u))   # the cards of unique card u (= item code u)
        if copies != 0:
            cost_sum += copies * (1 + counting_choice(view, opts, u * COPIES)[2])
    return stop * n - cost_sum > params[P_MARGIN] * n


# ------------------------------------------------------------------ dispatch by policy id

@njit(cache=True, inline="always")
def decide_fight(policy_id, params, rng, view, opts):
    """A fight decision point: (kind, card, target, rng)."""
    if policy_id == RANDOM:
        return random_fight(view, rng)
    # one call of the inlined item rules for all the others (optimal_fight between fights: counting's
    # rules at their defaults)
    optimal = policy_id == OPTIMAL_FIGHT
    kind, card, target = item_rules_fight(view, opts, COUNTING_DEFAULT_PARAMS if optimal else params,
                                          policy_id != NO_ITEMS, policy_id == COUNTING or optimal)
    return kind, card, target, rng


@njit(cache=True, inline="always")
def decide_attack(policy_id, params, rng, view, opts, card, open_):
    """An attack with ``card`` while ``open_`` is not 0: (value, kind, relic, whetstone, frenzy, rng)."""
    if policy_id == RANDOM:
        return random_attack(card, open_, rng)
    if policy_id == COUNTING:
        value, kind, _ = counting_choice(view, opts, card)
    else:
        value, kind = threshold_value_kind(view, opts, card, open_)
    if policy_id == NO_ITEMS:
        return value, kind, False, False, False, rng
    value, kind, relic, whetstone, frenzy = item_rules_attack(view, opts, card, open_, value, kind)
    return value, kind, relic, whetstone, frenzy, rng


@njit(cache=True, inline="always")
def decide_crystal(policy_id, params, rng, view, opts, card, total):
    """Spend a held Soul Crystal to capture now that the total (ignoring traits) is ``total``?"""
    if policy_id == RANDOM:
        flip, rng = below_t(rng, 2)
        return flip == 1, rng
    return policy_id != NO_ITEMS, rng


# ------------------------------------------------------------------ between fights

@njit(cache=True, inline="always")
def item_rules_between(view, params, uses_items):
    """``item_rules_fight`` at a decision point between fights (``view[V_BETWEEN]`` = 1, no attack open):
    rule 2 (the Big Turkey Dinner) only, since rule 4 stops when no attack is open. (kind, card, target).
    The kernel's rare path between fights takes this instead of the whole fight decision, a fifth of a
    cold first run's compile (docs/performance.md, "Compile time: Cursed!?")."""
    turkey = turkey_due(view, params) if uses_items else -1
    if turkey >= 0:
        return USE, turkey, int64(NO_CARD)   # int64: a literal target compiles the Backpack's step once more
    return STOP, NO_CARD, int64(NO_CARD)


@njit(cache=True, inline="always")
def decide_between(policy_id, params, rng, view, opts):
    """``decide_fight`` at a decision point between fights (items_between_fights): the same decisions,
    threshold's, counting's and optimal_fight's by ``item_rules_between``. (kind, card, target, rng)."""
    if policy_id == RANDOM:
        return random_fight(view, rng)
    kind, card, target = item_rules_between(view, COUNTING_DEFAULT_PARAMS if policy_id == OPTIMAL_FIGHT else params,
                                            policy_id != NO_ITEMS)
    return kind, card, target, rng


# ------------------------------------------------------------------ threshold alone

@njit(cache=True, inline="always")
def threshold_attack(params, rng, view, opts, card, open_):
    """threshold's attack: ``decide_attack`` of THRESHOLD (the 1/6 and Spear, then the item rule)."""
    value, kind = threshold_value_kind(view, opts, card, open_)
    value, kind, relic, whetstone, frenzy = item_rules_attack(view, opts, card, open_, value, kind)
    return value, kind, relic, whetstone, frenzy, rng


def params_tuple(vector) -> tuple:
    """A policy's parameter vector as the fixed-length float tuple the kernel takes."""
    values = [float(v) for v in vector]
    if len(values) > MAX_PARAMS:
        raise ValueError(f"at most {MAX_PARAMS} policy parameters, got {len(values)}")
    return tuple(values + [0.0] * (MAX_PARAMS - len(values)))
