"""Verflucht! policies as numba functions: who banishes what with which items, and when to use a Seal.

A policy decides; the engine checks the decision and carries it out. Two decisions exist:

- ``decide_attack``: answer an attack: ``(seal, take, use, rng)`` where ``seal`` asks for a Seal and
  otherwise ``take[p]`` are the attacking Creatures player p banishes and ``use[p]`` the Items p spends.
- ``decide_banish``: the player ``player``, holding ``hand``, may banish one display Creature; returns
  ``(creature, items, rng)``, creature 0 meaning "stop". The engine asks again until the player stops.

Everything is passed by value: hands, ``take`` and ``use`` are ``MAX_PLAYERS``-tuples of uint64
bitmasks (bit v = value v), ``params`` a ``MAX_PARAMS``-tuple of floats, ``rng`` the policy stream's
state tuple, returned advanced. Tuples keep the kernel free of array reference counting.

What a policy may know: its own hand, the display, the discard pile and the number of face-down cards
(all public), the hand sizes of all players (visible), and what players may say aloud ("You can tell the
other players which Creature/s you can banish yourself"): in a group attack, whether a player *can*
banish a Creature. The built-in policies never read another player's item values.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64
from numba.cpython.unsafe.tuple import tuple_setitem

from cursedsim.bits import ONE, ZERO, at_least, bit, count, has, highest, lowest, nth, total, tuple_get
from cursedsim.games.base import PolicySpec
from cursedsim.games.verflucht.rules import MAX_VALUE
from cursedsim.rng import below_t

#: Length of the parameter tuple every policy receives (a policy's own parameters first, zeros after).
MAX_PARAMS = 8

RANDOM = 0
BASELINE = 1
SMART = 2
#: The search (rollout.py): never a ``policy_id`` of ``decide_attack``/``decide_banish``, its games run in
#: ``rollout.play_chunk``, which asks its base policy.
ROLLOUT = 3

# ---- parameters of the smart family (indices into ``params``)
P_SLACK = 0
P_CROWD_BONUS = 1
P_THREAT_BONUS = 2
P_LATE_CARDS = 3
P_LATE_BONUS = 4
P_MULTI_ITEMS = 5
P_BIG_HAND_FIRST = 6
P_BANISH_MULTI = 7

POLICIES = {
    "random": PolicySpec(
        "random", RANDOM,
        "The floor: random legal choices. In an attack each Creature (highest first) goes to a random "
        "eligible player who can afford it, who pays with random Items until the sum suffices; if one "
        "cannot be paid, a Seal, or the forced plan when the Seal is refused (none left, or "
        "voluntary_seal off, while a plan exists). On its turn a player repeatedly picks uniformly "
        "among stopping and banishing one affordable Creature, paid with random Items."),
    "baseline": PolicySpec(
        "baseline", BASELINE,
        "The reference heuristic: attackers highest first, each covered by the first player (active, "
        "then others in turn order in a group attack) holding a single Item >= it (smallest such) or "
        "else a pair a < b with the smallest sum >= it (ties: smaller a); if some attacker cannot be "
        "covered, no Item is spent and a Seal is used; with no Seal left (or voluntary_seal off) it "
        "banishes with the forced plan; only when no plan exists is the game lost. Voluntarily (own "
        "turn and last turn) it banishes Creatures highest first with the smallest single Item >= the "
        "Creature when that Item exceeds it by at most 3."),
    "smart": PolicySpec(
        "smart", SMART,
        "A parameterised family built on baseline: it banishes voluntarily with one Item whose excess "
        "over the Creature is at most a slack that grows when the display holds five Creatures (the "
        "next Creature would make the highest attack), when a Creature's neighbour values are still "
        "face down (a group could form) and when few cards are left; in last turns it banishes "
        "whatever it can, highest first. Attackers are paid like baseline (single Item or pair) or, "
        "with multi_items, by the least-waste set of any size; group Creatures may go first to the "
        "players holding more cards; an attacker nobody pays means a Seal, or the forced plan when "
        "the Seal is refused. Defaults from a coordinate search at 3 players (seed 99), checked on "
        "other seeds at every player count.",
        params={"slack": 2.0, "crowd_bonus": 5.0, "threat_bonus": 1.0, "late_cards": 4.0,
                "late_bonus": 4.0, "multi_items": 0.0, "big_hand_first": 0.0, "banish_multi": 0.0},
        param_docs={
            "slack": "voluntary banishing allowed when the Item exceeds the Creature by at most this",
            "crowd_bonus": "extra slack when the display holds five Creatures",
            "threat_bonus": "extra slack per neighbour value (v-1, v+1) of the Creature still face down",
            "late_cards": "the pile counts as 'late' with at most this many face-down cards",
            "late_bonus": "extra slack when the pile is late",
            "multi_items": ">= 0.5: pay attackers with the least-waste set of any size; else one Item or "
                           "a pair, as baseline",
            "big_hand_first": ">= 0.5: group Creatures go to players with more cards first",
            "banish_multi": ">= 0.5: voluntary banishing may pay with several Items; else one Item",
        },
        # every threshold is compared with integer sums, so integers cover the family. The ranges come from
        # a one-at-a-time scan around the defaults (sweep, 100,000 games, 1 and 5 players, seed 7): slack
        # above 4 and threat_bonus above 3 only lose (at 5 players slack 8 wins 6.3% against 13.3%); the
        # other ranges are wide because their best values move with the player count.
        tune_space={"slack": (0, 4), "crowd_bonus": (0, 12), "threat_bonus": (0, 3), "late_cards": (0, 12),
                    "late_bonus": (0, 12), "multi_items": [0, 1], "big_hand_first": [0, 1],
                    "banish_multi": [0, 1]}),
    "rollout": PolicySpec(
        "rollout", ROLLOUT,
        "Flat Monte-Carlo search (compiled): at every decision a few legal candidates (the base policy's own "
        "choice first; in an attack a Seal, the least-waste plan over every assignment of attackers to players "
        "who may pay, the least-waste plan in which each player pays the highest attacker, the plan whose "
        "highest Item is lowest, the forced plan; in a banishing: stop, each Creature with the smallest single "
        "Item within `waste` of it, the smallest pair and the least-waste set for the highest Creature the hand "
        "pays), n playouts of each to the end of the game by the base policy, the face-down cards redrawn from "
        "their known set in every playout (never their order; with information=private the others' Items too), "
        "the same random numbers for every candidate; a candidate replaces the base policy's choice only when it won "
        "more playouts by over `margin` times the square root of the playouts where the two ended differently. "
        "docs/search.md, 'rollout'.",
        params={"n": 16.0, "base": float(BASELINE), "cap": 8.0, "waste": 6.0, "margin": 1.0},
        param_docs={
            "n": "playouts per candidate at each decision (0: the base policy alone)",
            "base": "policy id of the built-in policy that plays every playout and gives the first candidate "
                    "(0 random, 1 baseline, 2 smart, with their default parameters)",
            "cap": "candidates per decision, at most (1: the base policy's choice alone), up to 16",
            "waste": "a single Item is a banishing candidate when it exceeds the Creature by at most this",
            "margin": "a candidate replaces the base choice when its lead in wins exceeds margin x sqrt(playouts the "
                      "two ended differently) (0: the most wins)",
        }),
}


# ------------------------------------------------------------------ covers: which Items pay a value

@njit(cache=True, inline="always")
def smallest_single(hand, value):
    """The smallest Item >= value in the hand, or 0."""
    m = hand & at_least(value)
    return lowest(m) if m != ZERO else 0


@njit(cache=True)
def smallest_pair(hand, value):
    """Items a < b with the smallest sum >= value (ties: smaller a) as a mask, or 0."""
    best = 10 * MAX_VALUE
    chosen = ZERO
    rest = hand
    while rest != ZERO:
        a = lowest(rest)
        rest &= rest - ONE
        if 2 * a + 1 >= best:
            break
        need = max(a + 1, value - a)
        m = rest & at_least(need)
        if m != ZERO:
            b = lowest(m)
            if a + b < best:
                best = a + b
                chosen = bit(a) | bit(b)
    return chosen


@njit(cache=True, inline="always")
def baseline_cover(hand, value):
    """Baseline's payment for one Creature: smallest single Item, else smallest pair; 0 if neither."""
    s = smallest_single(hand, value)
    if s != 0:
        return bit(s)
    return smallest_pair(hand, value)


@njit(cache=True, inline="always")
def _shift128(lo, hi, a):
    """The 128-bit set (lo, hi) shifted up by a (1 <= a <= 63)."""
    return lo << uint64(a), (hi << uint64(a)) | (lo >> uint64(64 - a))


@njit(cache=True, inline="always")
def _has128(lo, hi, s):
    return has(lo, s) if s < 64 else has(hi, s - 64)


@njit(cache=True)
def reach_set(items):
    """The sums the subsets of ``items`` can make, as a 128-bit set (lo, hi): bit s = sum s."""
    lo = ONE
    hi = ZERO
    rest = items
    while rest != ZERO:
        a = lowest(rest)
        rest &= rest - ONE
        slo, shi = _shift128(lo, hi, a)
        lo |= slo
        hi |= shi
    return lo, hi


@njit(cache=True)
def least_cover(hand, target):
    """The Items with the smallest sum >= target, or 0 if the hand cannot pay it.

    Subset sums as 128-bit reach sets (a minimal cover sums to less than target + 40 <= 80, so sums
    past 127 never matter). The cover is read back from the largest Item down, keeping an Item only
    when the smaller ones cannot make the remaining sum without it (hands are small, so the reach set
    of the smaller Items is simply rebuilt at each step).
    """
    if target <= 0 or total(hand) < target:
        return ZERO
    lo, hi = reach_set(hand)
    m = lo & at_least(target) if target < 64 else ZERO
    if m != ZERO:
        s = lowest(m)
    else:
        m = hi & at_least(target - 64) if target >= 64 else hi
        s = 64 + lowest(m)
    chosen = ZERO
    left = hand
    while s > 0:
        a = highest(left)
        left &= ~bit(a)
        rlo, rhi = reach_set(left)
        if not _has128(rlo, rhi, s):
            chosen |= bit(a)
            s -= a
    return chosen


@njit(cache=True)
def random_cover(hand, value, rng):
    """Random Items from the hand, one at a time, until their sum reaches value: (items, rng);
    items 0 if the hand cannot pay it."""
    if total(hand) < value:
        return ZERO, rng
    chosen = ZERO
    paid = 0
    rest = hand
    while paid < value:
        k, rng = below_t(rng, count(rest))
        item = nth(rest, k)
        rest &= ~bit(item)
        chosen |= bit(item)
        paid += item
    return chosen, rng


# ------------------------------------------------------------------ forced plans (no Seal allowed)

#: ``assign_by_totals``' per-attacker tuples: an attack has at most six attackers (a display of five and
#: the Creature drawn), eight entries leave room.
MAX_ATTACKERS = 8
NO_OWNERS = (np.int64(-1),) * MAX_ATTACKERS
NO_CAPS = (np.int64(0),) * 5


@njit(cache=True)
def assign_by_totals(hands, n_players, active, attackers, is_group):
    """Who takes which attacker, judged by whole-hand totals: depth-first, highest attacker first,
    players from the active one on in turn order. Returns (found, owners) with owners[i] the player
    of the i-th highest attacker. Whole-hand totals decide feasibility because Items may exceed the
    Creatures they banish. Tuples, not arrays: every caller linked numba's allocation code with them."""
    k = count(attackers)
    creatures = NO_OWNERS
    rest = attackers
    for i in range(k):
        c = highest(rest)
        creatures = tuple_setitem(creatures, i, c)
        rest &= ~bit(c)
    n_elig = n_players if is_group else 1
    cap = NO_CAPS
    for j in range(n_elig):
        cap = tuple_setitem(cap, j, total(hands[(active + j) % n_players]))
    choice = NO_OWNERS
    i = 0
    while 0 <= i < k:
        c = tuple_get(creatures, i)
        pick = tuple_get(choice, i)
        if pick >= 0:
            cap = tuple_setitem(cap, pick, tuple_get(cap, pick) + c)
        pick += 1
        while pick < n_elig and tuple_get(cap, pick) < c:
            pick += 1
        if pick == n_elig:
            choice = tuple_setitem(choice, i, np.int64(-1))
            i -= 1
            continue
        cap = tuple_setitem(cap, pick, tuple_get(cap, pick) - c)
        choice = tuple_setitem(choice, i, pick)
        i += 1
    owners = NO_OWNERS
    for j in range(k):
        owners = tuple_setitem(owners, j, (active + tuple_get(choice, j)) % n_players)
    return i == k, owners


@njit(cache=True)
def forced_plan(hands, n_players, active, attackers, is_group):
    """A legal plan when a Seal is not allowed (no Seal left, or option voluntary_seal off, while
    items can banish every attacker): ``assign_by_totals``, then each player spends Items highest
    first until they reach the total of their Creatures. Returns (found, take, use)."""
    take = (ZERO, ZERO, ZERO, ZERO, ZERO)
    use = take
    found, owners = assign_by_totals(hands, n_players, active, attackers, is_group)
    if not found:
        return False, take, use
    rest = attackers
    j = 0
    while rest != ZERO:
        c = highest(rest)
        rest &= ~bit(c)
        owner = tuple_get(owners, j)
        take = tuple_setitem(take, owner, tuple_get(take, owner) | bit(c))
        j += 1
    for p in range(n_players):
        need = total(take[p])
        paid = 0
        hand = hands[p]
        spent = ZERO
        while paid < need:
            item = highest(hand)
            hand &= ~bit(item)
            spent |= bit(item)
            paid += item
        use = tuple_setitem(use, p, spent)
    return True, take, use


# ------------------------------------------------------------------ attack decisions

@njit(cache=True, inline="always")
def give_up(hands, n_players, active, attackers, is_group, seal_allowed, rng):
    """No payment found: a Seal if allowed, else the forced plan (the engine refuses the Seal only
    when a plan exists: with no Seal left, or with option voluntary_seal off). Inlined: a call of its
    own would be one more compile that optimises the linked ``forced_plan`` again."""
    if seal_allowed:
        empty = (ZERO, ZERO, ZERO, ZERO, ZERO)
        return True, empty, empty, rng
    _, take, use = forced_plan(hands, n_players, active, attackers, is_group)
    return False, take, use, rng


@njit(cache=True, inline="always")
def baseline_attack(hands, n_players, active, attackers, is_group, seal_allowed, rng):
    """Baseline attack answer (see POLICIES['baseline']): ``baseline_payment``, else ``give_up``."""
    paid, take, use = baseline_payment(hands, n_players, active, attackers, is_group)
    if not paid:
        return give_up(hands, n_players, active, attackers, is_group, seal_allowed, rng)
    return False, take, use, rng


@njit(cache=True, inline="always")
def baseline_payment(hands, n_players, active, attackers, is_group):
    """``baseline_attack``'s payment: (every attacker paid, take, use). A player's Items still free are
    their hand less ``spent``, the Items promised so far (hands are disjoint, so no per-player
    bookkeeping). Apart from ``give_up``, so that ``decide_attack`` inlines one ``give_up`` for all."""
    take = (ZERO, ZERO, ZERO, ZERO, ZERO)
    use = take
    spent = ZERO
    rest = attackers
    n_elig = n_players if is_group else 1
    while rest != ZERO:
        c = highest(rest)
        rest &= ~bit(c)
        covered = False
        p = active
        for _ in range(n_elig):
            pay = baseline_cover(tuple_get(hands, p) & ~spent, c)
            if pay != ZERO:
                spent |= pay
                use = tuple_setitem(use, p, tuple_get(use, p) | pay)
                take = tuple_setitem(take, p, tuple_get(take, p) | bit(c))
                covered = True
                break
            p = p + 1 if p + 1 < n_players else 0
        if not covered:
            return False, take, use
    return True, take, use


@njit(cache=True)
def random_attack(hands, n_players, active, attackers, is_group, seal_allowed, rng):
    """Random attack answer (see POLICIES['random'])."""
    paid, take, use, rng = random_payment(hands, n_players, active, attackers, is_group, rng)
    if not paid:
        return give_up(hands, n_players, active, attackers, is_group, seal_allowed, rng)
    return False, take, use, rng


@njit(cache=True)
def random_payment(hands, n_players, active, attackers, is_group, rng):
    """``random_attack``'s payment: (every attacker paid, take, use, rng). Apart from ``give_up``, so
    that its compile does not link and optimise the forced plan once more (``decide_attack`` gives up)."""
    take = (ZERO, ZERO, ZERO, ZERO, ZERO)
    use = take
    rest = attackers
    n_elig = n_players if is_group else 1
    while rest != ZERO:
        c = highest(rest)
        rest &= ~bit(c)
        start, rng = below_t(rng, n_elig)
        covered = False
        for j in range(n_elig):
            p = (active + (start + j) % n_elig) % n_players
            pay, rng = random_cover(hands[p] & ~use[p], c, rng)
            if pay != ZERO:
                use = tuple_setitem(use, p, use[p] | pay)
                take = tuple_setitem(take, p, take[p] | bit(c))
                covered = True
                break
        if not covered:
            return False, take, use, rng
    return True, take, use, rng


@njit(cache=True)
def smart_cover(hand, value, params):
    """The smart family's payment for a value: least-waste subset, or baseline's single/pair."""
    if params[P_MULTI_ITEMS] >= 0.5:
        return least_cover(hand, value)
    return baseline_cover(hand, value)


@njit(cache=True)
def player_order(hands, n_players, active, is_group, big_hand_first):
    """Players to ask, in order, packed 4 bits each: active first, then turn order; optionally by
    hand size (more cards first, ties in turn order). Returns (order, number eligible)."""
    n_elig = n_players if is_group else 1
    order = (0, 0, 0, 0, 0)
    for j in range(n_elig):
        order = tuple_setitem(order, j, (active + j) % n_players)
    if big_hand_first:
        for a in range(1, n_elig):  # insertion sort, stable
            p = order[a]
            size = count(hands[p])
            b = a - 1
            while b >= 0 and count(hands[order[b]]) < size:
                order = tuple_setitem(order, b + 1, order[b])
                b -= 1
            order = tuple_setitem(order, b + 1, p)
    return order, n_elig


@njit(cache=True)
def smart_attack(hands, n_players, active, attackers, is_group, seal_allowed, params, rng):
    """Smart attack answer: attackers highest first, each paid with least waste by the first player in
    ``player_order`` who can; a Seal only when some attacker cannot be paid."""
    paid, take, use, rng = smart_payment(hands, n_players, active, attackers, is_group, params, rng)
    if not paid:
        return give_up(hands, n_players, active, attackers, is_group, seal_allowed, rng)
    return False, take, use, rng


@njit(cache=True)
def smart_payment(hands, n_players, active, attackers, is_group, params, rng):
    """``smart_attack``'s payment: (every attacker paid, take, use, rng); apart from ``give_up`` as
    ``random_payment``."""
    order, n_elig = player_order(hands, n_players, active, is_group, params[P_BIG_HAND_FIRST] >= 0.5)
    take = (ZERO, ZERO, ZERO, ZERO, ZERO)
    use = take
    rest = attackers
    while rest != ZERO:
        c = highest(rest)
        rest &= ~bit(c)
        covered = False
        for j in range(n_elig):
            p = order[j]
            pay = smart_cover(hands[p] & ~use[p], c, params)
            if pay != ZERO:
                use = tuple_setitem(use, p, use[p] | pay)
                take = tuple_setitem(take, p, take[p] | bit(c))
                covered = True
                break
        if not covered:
            return False, take, use, rng
    return True, take, use, rng


@njit(cache=True, inline="always")
def decide_attack(policy_id, params, rng, hands, n_players, active, display, attackers, is_group,
                  seal_allowed, seals_left, deck_left, gone_creatures, gone_items):
    """Answer an attack: (seal, take, use, rng), as ``*_attack`` are: the policy's payment (baseline's
    inlined, smart's and random's a call), then one ``give_up`` for all three (one link of the forced plan)."""
    if policy_id == BASELINE:
        paid, take, use = baseline_payment(hands, n_players, active, attackers, is_group)
    elif policy_id == SMART:
        paid, take, use, rng = smart_payment(hands, n_players, active, attackers, is_group, params, rng)
    else:
        paid, take, use, rng = random_payment(hands, n_players, active, attackers, is_group, rng)
    if not paid:
        return give_up(hands, n_players, active, attackers, is_group, seal_allowed, rng)
    return False, take, use, rng


# ------------------------------------------------------------------ voluntary banishing

@njit(cache=True, inline="always")
def baseline_banish(hand, display):
    """Baseline: highest Creature first that the smallest single Item >= it beats by at most 3.

    The smallest Item >= c exceeds c by at most 3 exactly when some Item lies in c..c+3, so the
    Creatures it may banish are ``display & (hand | hand>>1 | hand>>2 | hand>>3)``: one word-wide test.
    """
    within = display & (hand | (hand >> uint64(1)) | (hand >> uint64(2)) | (hand >> uint64(3)))
    if within == ZERO:
        return 0, ZERO
    c = highest(within)
    return c, bit(lowest(hand & at_least(c)))


@njit(cache=True)
def random_banish(hand, display, rng):
    """Random: stop, or banish one affordable Creature with random Items, uniformly among these."""
    budget = min(total(hand), MAX_VALUE)
    affordable = display & ((ONE << uint64(budget + 1)) - ONE)
    r, rng = below_t(rng, count(affordable) + 1)
    if r == 0:
        return 0, ZERO, rng
    c = nth(affordable, r - 1)
    items, rng = random_cover(hand, c, rng)
    return c, items, rng


@njit(cache=True)
def smart_banish(hand, display, deck_left, gone_creatures, last_turn, params):
    """Smart: highest Creature first whose least-waste payment wastes at most the current slack; in a
    last turn, anything payable (Items are worth nothing once the game ends)."""
    base = params[P_SLACK]
    if count(display) >= 5:
        base += params[P_CROWD_BONUS]
    if deck_left <= params[P_LATE_CARDS]:
        base += params[P_LATE_BONUS]
    seen = display | gone_creatures
    rest = display
    while rest != ZERO:
        c = highest(rest)
        rest &= ~bit(c)
        if last_turn:
            pay = least_cover(hand, c)
        elif params[P_BANISH_MULTI] >= 0.5:
            pay = smart_cover(hand, c, params)
        else:
            single = smallest_single(hand, c)
            pay = bit(single) if single != 0 else ZERO
        if pay == ZERO:
            continue
        if last_turn:
            return c, pay
        slack = base
        if c > 1 and not has(seen, c - 1):
            slack += params[P_THREAT_BONUS]
        if c < MAX_VALUE and not has(seen, c + 1):
            slack += params[P_THREAT_BONUS]
        if total(pay) - c <= slack:
            return c, pay
    return 0, ZERO


@njit(cache=True, inline="always")
def decide_banish(policy_id, params, rng, hand, n_players, player, display, seals_left, deck_left,
                  gone_creatures, gone_items, last_turn):
    """One voluntary banishing by ``player``, who holds ``hand``: (creature, items, rng), creature 0
    = stop. Only the player's own hand is given: nobody else may act or tell values."""
    if policy_id == BASELINE:
        c, items = baseline_banish(hand, display)
        return c, items, rng
    if policy_id == SMART:
        c, items = smart_banish(hand, display, deck_left, gone_creatures, last_turn, params)
        return c, items, rng
    return random_banish(hand, display, rng)


def params_tuple(vector) -> tuple:
    """A policy's parameter vector as the fixed-length float tuple the kernel takes."""
    values = [float(v) for v in vector]
    if len(values) > MAX_PARAMS:
        raise ValueError(f"at most {MAX_PARAMS} policy parameters, got {len(values)}")
    return tuple(values + [0.0] * (MAX_PARAMS - len(values)))
