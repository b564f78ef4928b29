"""The Wizard player in the numba kernel: its set-up (V1.10), its turn (``wizard_player.py``: arrival, the
actions and their sub-decisions, the end of the turn, the Rabid Monster cards of V13.1-V13.2) and its
policies ``random`` (id 1, in ``kernel.choice_without_policy``) and ``planner`` (id 2,
``wizard_policies.Planner``), game by game identical to the reference.

Decisions are the indices of ``wizard_player.DECISIONS`` (``D_*``) with the codes of its docstring; the
legal list of a decision is written ascending at ``st[ST_LEGAL:]`` right before ``wizard_choose``. The
pending action of a sub-decision (``t.wizard_pending``) is ``st[ST_W_PENDING:+3]``: ``(action, location,
coins)`` for PAY, ``(action, house)`` for BUY_COUNT, STEAL_AMOUNT and DISTRACT, ``(P_ARRIVAL, villager)``
for ARRIVAL_HOUSE, ``(P_RM_CARD, Rabid Monster action kind or -1)`` for RM_CARD.

Exposed to the Monster player's module (a Quiet Night arrival the Wizard places, O2; Box of Holding gone):
``wizard_arrive(G)`` and ``trim_to_capacity(G)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cursedsim.games.village import cards as K
from cursedsim.games.village import components as C
from cursedsim.games.village import rules as R
from cursedsim.games.village import state as S
from cursedsim.games.village import wizard_player as WP
from cursedsim.games.village.kernel import (INNER, C_ON as CTL_ON, POLICY_DECIDES, below, choice_without_policy,
                                            crossing_fee, crossings, d20, draw_from, draw_villager, fire,
                                            gain_coins, house_loc, move_cure, panic_effect, push, shuffle, steer)

#: The side, decision, action, payment and Rabid Monster kind codes passed to other functions are np.int64:
#: numba types a plain int constant passed as an argument as a literal and compiles the callee once per
#: value (the decision point was compiled 39 times); an np.int64 is a run-time integer, one compile.
W = np.int64(S.WIZARD)
OPT = S.ST_OPTS
HOUSES = C.HOUSES
EMPTY = S.EMPTY
N_TYPES = S.N_TYPES

(D_ACTION, D_BUY_HOUSE, D_BUY_COUNT, D_MARKET_PICK, D_SPELL, D_STEAL_HOUSE, D_STEAL_AMOUNT, D_DISTRACT, D_PAY,
 D_MOVE_TO, D_DISCARD, D_ARRIVAL_HOUSE, D_HYPNOTIZE, D_DISCARD_POWER, D_RM_CARD) = (
    np.int64(WP.DECISIONS.index(d)) for d in (
        WP.ACTION, WP.BUY_HOUSE, WP.BUY_COUNT, WP.MARKET_PICK, WP.SPELL, WP.STEAL_HOUSE, WP.STEAL_AMOUNT,
        WP.DISTRACT, WP.PAY, WP.MOVE_TO, WP.DISCARD, WP.ARRIVAL_HOUSE, WP.HYPNOTIZE, WP.DISCARD_POWER, WP.RM_CARD))

A_END, A_BUY_HOUSE, A_BUY_MARKET, A_MIX, A_SPELL, A_STEAL, A_MOVE, A_DISCARD = (np.int64(a) for a in (
    WP.A_END, WP.A_BUY_HOUSE, WP.A_BUY_MARKET, WP.A_MIX, WP.A_SPELL, WP.A_STEAL, WP.A_MOVE, WP.A_DISCARD))
PAY_COINS, PAY_ACTION = np.int64(WP.PAY_COINS), np.int64(WP.PAY_ACTION)
P_ARRIVAL, P_RM_CARD = 100, 101                         # pending codes beyond the actions
#: Rabid Monster card actions (cards.ACTIONS["rabid_monster"] bits of CD_ACTIONS) each action needs.
_RM = K.ACTIONS["rabid_monster"]
N_RM = len(_RM)
RK_NONE = np.int64(-1)
NO_ACTION = np.int64(-1)    # ``spend_extra``: no action still to come
NO_COINS = np.int64(0)      # ``go``, ``pay_options``: nothing to pay besides the fare
RK_BUY, RK_MIX, RK_SPELL, RK_STEAL = (np.int64(_RM.index(WP.RM_KIND[a])) for a in (
    WP.A_BUY_HOUSE, WP.A_MIX, WP.A_SPELL, WP.A_STEAL))
GET_BUSY, STAY_INSIDE, PLETHORA = WP.GET_BUSY, WP.STAY_INSIDE, WP.PLETHORA
OPT_MOVE_ALONE = S.OPT["wizard_move_alone"]
OPT_PLETHORA_AT_MARKET = S.OPT["plethora_at_market"]
OPT_SPENT = S.OPT["rabid_spent_actions"]
OPT_GET_BUSY = S.OPT["rabid_get_busy"]
SPENT_FREE = R.RABID_SPENT_ACTIONS.index("free")
SPENT_DISCARD_CARD = R.RABID_SPENT_ACTIONS.index("discard_card")
GET_BUSY_IGNORED = R.RABID_GET_BUSY.index("ignored")
KIND_ONGOING = K.KINDS.index("ongoing")
PLACED_MONSTER = K.PLACEMENTS.index("monster")
LOC_LABORATORY = 1 + ("house", "laboratory", "market", "junction").index("laboratory")
LOC_MARKET = 1 + ("house", "laboratory", "market", "junction").index("market")
TILES = C.INGREDIENT_TILES_EACH
POLICY_PLANNER = S.POLICY_PLANNER


# ================================================================ small facts (wizard_player's)

@njit(cache=True, inline="always")
def rabid(st):
    """The Wizard player faces the Rabid Monster (V13.1)."""
    return st[S.ST_POLICY + S.MONSTER] == S.POLICY_AUTOMATON


@njit(**INNER)
def capacity(st, cd):
    """V3.4: 3, more with Box of Holding in front of the Wizard."""
    cap = C.WIZARD_INGREDIENT_LIMIT
    for i in range(st[S.ST_NFRONT_WIZARD]):
        c = st[S.ST_FRONT_WIZARD + i]
        if cd[S.CD_PRINTED, c] == S.E_EXTRA_INGREDIENT_SLOT:
            cap += cd[S.CD_P0, c]
    return cap


@njit(**INNER)
def house_price(st, bd, loc):
    price = bd[bd[S.O_PRICE] + loc]
    if panic_effect(st, bd, PLETHORA):
        price -= 1
    return max(0, price)


@njit(**INNER)
def market_price(st, bd, cd):
    price = C.MARKET_PRICE
    for i in range(st[S.ST_NFRONT_WIZARD]):
        c = st[S.ST_FRONT_WIZARD + i]
        if cd[S.CD_PRINTED, c] == S.E_MARKET_DISCOUNT:
            price = max(cd[S.CD_P1, c], price - cd[S.CD_P0, c])
    if panic_effect(st, bd, PLETHORA) and st[OPT + OPT_PLETHORA_AT_MARKET]:
        price -= 1
    return max(0, price)


@njit(**INNER)
def fare(st, bd, cd, loc):
    """V4.1, V4.2: the coins to reach ``loc`` from the token."""
    return crossings(bd, st[S.ST_AT], loc) * crossing_fee(st, cd)


@njit(**INNER)
def n_unused(st):
    k = 0
    for p in range(st[S.ST_NRM_DRAWN]):
        if st[S.ST_RM_DRAWN + p] >= 0:
            k += 1
    return k


@njit(cache=True, inline="always")
def offers(st, cd, p, kind):
    c = st[S.ST_RM_DRAWN + p]
    return c >= 0 and (cd[S.CD_ACTIONS, c] >> kind) & 1 == 1


@njit(**INNER)
def n_offering(st, cd, kind):
    k = 0
    for p in range(st[S.ST_NRM_DRAWN]):                    # offers(), written out: no array rebound a card
        c = st[S.ST_RM_DRAWN + p]
        if c >= 0 and (cd[S.CD_ACTIONS, c] >> kind) & 1 == 1:
            k += 1
    return k


@njit(cache=True, inline="always")
def rm_kind(action):
    if action == A_BUY_HOUSE or action == A_BUY_MARKET:
        return RK_BUY
    if action == A_MIX:
        return RK_MIX
    if action == A_SPELL:
        return RK_SPELL
    if action == A_STEAL:
        return RK_STEAL
    return RK_NONE


@njit(cache=True, inline="always")
def spends_card(st):
    """O16: an action spent on moving or a distraction uses up a drawn card (laid out, or discarded)."""
    return rabid(st) and st[OPT + OPT_SPENT] != SPENT_FREE


@njit(**INNER)
def can_act(st, cd, action):
    return st[S.ST_W_ACTIONS] >= 1 and (not rabid(st) or n_offering(st, cd, rm_kind(action)) > 0)


@njit(**INNER)
def can_spend_extra(st):
    if st[S.ST_W_ACTIONS] < 2:
        return False
    return not spends_card(st) or n_unused(st) >= 2


@njit(**INNER)
def act_ways(st, cd, action):
    """What ``pay_options`` asks that does not depend on the location: bit 0 ``can_act``, bit 1
    ``can_spend_extra``, and the crossing fee (``crossing_fee``) above them (``fee << 2``). Computed once for
    a loop over houses (issue 30: per house, they were a third of the Wizard player's time)."""
    ways = 0
    if can_act(st, cd, action):
        ways |= 1
    if can_spend_extra(st):
        ways |= 2
    return ways | (crossing_fee(st, cd) << 2)


@njit(**INNER)
def pay_ways(st, bd, ways, loc, need):
    """``pay_options`` from ``act_ways``' answer for its action."""
    if not (ways & 1) or st[S.ST_COINS] < need:
        return 0
    cost = crossings(bd, st[S.ST_AT], loc) * (ways >> 2)   # fare()
    if cost == 0:
        return 1 << PAY_COINS
    out = 0
    if st[S.ST_COINS] >= cost + need:
        out |= 1 << PAY_COINS
    if ways & 2:
        out |= 1 << PAY_ACTION
    return out


@njit(**INNER)
def pay_options(st, bd, cd, action, loc, need):
    """wizard_player.pay_options as a bit set: bit PAY_COINS, bit PAY_ACTION; 0 = no way."""
    return pay_ways(st, bd, act_ways(st, cd, action), loc, need)


@njit(**INNER)
def spare_action(st):
    """An action left to spend on a move or a distraction (and a card for it, O16)."""
    return st[S.ST_W_ACTIONS] >= 1 and (not spends_card(st) or n_unused(st) >= 1)


# ================================================================ the legal options

@njit(**INNER)
def buy_house_ok(st, bd, ways, number):
    """House ``number``'s ingredients can be bought (``ways``: ``act_ways`` of A_BUY_HOUSE)."""
    v = st[S.ST_HOUSES + number]
    if v == EMPTY or st[S.ST_HELD + v] >= TILES:
        return False
    loc = house_loc(bd, number)
    return pay_ways(st, bd, ways, loc, house_price(st, bd, loc)) != 0


@njit(**INNER)
def any_buy_house(st, bd, cd):
    if st[S.ST_NHELD] >= capacity(st, cd):
        return False
    ways = act_ways(st, cd, A_BUY_HOUSE)
    for number in range(1, HOUSES + 1):
        if buy_house_ok(st, bd, ways, number):
            return True
    return False


@njit(**INNER)
def market_ok(st, bd, cd):
    if st[S.ST_NHELD] >= capacity(st, cd):
        return False
    some = False
    for i in range(N_TYPES):
        if st[S.ST_HELD + i] < TILES:
            some = True
    return some and pay_options(st, bd, cd, A_BUY_MARKET, bd[S.BD_MARKET], market_price(st, bd, cd)) != 0


@njit(**INNER)
def mix_ok(st, bd, cd):
    cure = st[S.ST_CURE]
    if cure >= bd[S.BD_CURE_LEN] or st[S.ST_HELD + bd[bd[S.O_CURE_SEQ] + cure]] == 0:
        return False
    return pay_options(st, bd, cd, A_MIX, bd[S.BD_LAB], NO_COINS) != 0


@njit(**INNER)
def spell_location(bd, cd, c):
    need = cd[S.CD_NEED_LOCATION, c]
    if need == LOC_LABORATORY:
        return bd[S.BD_LAB]
    if need == LOC_MARKET:
        return bd[S.BD_MARKET]
    return -1


@njit(**INNER)
def castable(st, bd, cd, c):
    """V3.6: the ingredients required held, the location required reachable."""
    need = cd[S.CD_NEED_INGREDIENTS, c]
    for i in range(N_TYPES):
        if st[S.ST_HELD + i] < (need >> (4 * i)) & 15:
            return False
    loc = spell_location(bd, cd, c)
    return pay_options(st, bd, cd, A_SPELL, st[S.ST_AT] if loc < 0 else loc, NO_COINS) != 0


@njit(**INNER)
def any_spell(st, bd, cd):
    for p in range(st[S.ST_NWIZARD_HAND]):
        if castable(st, bd, cd, st[S.ST_WIZARD_HAND + p]):
            return True
    return False


@njit(**INNER)
def steal_ok(st, bd, ways, number):
    """House ``number`` can be stolen from (``ways``: ``act_ways`` of A_STEAL)."""
    return pay_ways(st, bd, ways, house_loc(bd, number), NO_COINS) != 0


@njit(**INNER)
def any_steal(st, bd, cd):
    if st[S.ST_COINS] >= C.COIN_TOTAL:
        return False
    ways = act_ways(st, cd, A_STEAL)
    for number in range(1, HOUSES + 1):
        if steal_ok(st, bd, ways, number):
            return True
    return False


@njit(**INNER)
def move_ok(st, bd, cd, loc):
    if loc == st[S.ST_AT]:
        return False
    cost = fare(st, bd, cd, loc)
    return cost == 0 or st[S.ST_COINS] >= cost or spare_action(st)


@njit(**INNER)
def any_move(st, bd, cd):
    if not st[OPT + OPT_MOVE_ALONE]:
        return False
    for loc in range(bd[S.BD_N]):
        if move_ok(st, bd, cd, loc):
            return True
    return False


@njit(**INNER)
def legal_actions(st, bd, cd):
    """The ACTION codes open now, ascending, into LEGAL; their number."""
    L = S.ST_LEGAL
    st[L] = A_END
    n = 1
    if any_buy_house(st, bd, cd):
        st[L + n] = A_BUY_HOUSE
        n += 1
    if market_ok(st, bd, cd):
        st[L + n] = A_BUY_MARKET
        n += 1
    if mix_ok(st, bd, cd):
        st[L + n] = A_MIX
        n += 1
    if any_spell(st, bd, cd):
        st[L + n] = A_SPELL
        n += 1
    if any_steal(st, bd, cd):
        st[L + n] = A_STEAL
        n += 1
    if any_move(st, bd, cd):
        st[L + n] = A_MOVE
        n += 1
    if st[S.ST_NHELD] > 0:
        st[L + n] = A_DISCARD
        n += 1
    return n


@njit(cache=True, inline="always")
def pend(st, a, b, c):
    st[S.ST_W_PENDING] = a
    st[S.ST_W_PENDING + 1] = b
    st[S.ST_W_PENDING + 2] = c


@njit(**INNER)
def range_legal(st, lo, hi):
    """LEGAL = lo..hi; its length."""
    n = 0
    for x in range(lo, hi + 1):
        st[S.ST_LEGAL + n] = x
        n += 1
    return n


# ================================================================ the decision point

@njit(cache=True, inline="always")
def wizard_choose(G, decision, nl):
    """The Wizard player's choice among ``st[ST_LEGAL:ST_LEGAL+nl]`` (``kernel.choice_without_policy``: a
    single option without a draw, ``random`` from stream 7; else ``wizard_policy``). The count goes on as an
    np.int64: a counter started at 0 is typed as the literal 0 at first, one more compile of ``decide``."""
    return decide(G, decision, np.int64(nl))


@njit(**INNER)
def decide(G, decision, nl):
    """``wizard_choose``'s compiled body."""
    c = choice_without_policy(G, W, decision, nl)
    if c == POLICY_DECIDES:
        c = wizard_policy(G, decision, nl)
    if G[6][CTL_ON] != 0 and nl > 1:                     # a search steers (kernel.steer)
        c = steer(G, W, c)
    return c


# ================================================================ spending actions and cards

@njit(cache=True, inline="always")  # two callers: take, spend_extra
def use_card(G, nl, kind):
    """V13.2: the chosen drawn card (positions in LEGAL) laid after those used before; one used up by a
    spent action (``kind`` RK_NONE) under O16 ``discard_card`` is discarded, not hunted."""
    st = G[0]
    pend(st, P_RM_CARD, kind, 0)
    p = wizard_choose(G, D_RM_CARD, nl)
    if p < 0:
        return
    c = st[S.ST_RM_DRAWN + p]
    st[S.ST_RM_DRAWN + p] = -1
    if kind == RK_NONE and st[OPT + OPT_SPENT] == SPENT_DISCARD_CARD:
        return
    push(st, S.ST_RM_USED, S.ST_NRM_USED, c)


@njit(cache=True, inline="always")  # one caller: go_take
def take(G, action):
    """One action (V3.1); against the Rabid Monster, the card it uses (V13.2)."""
    st, cd = G[0], G[3]
    st[S.ST_W_ACTIONS] -= 1
    if rabid(st):
        kind = rm_kind(action)
        n = np.int64(0)
        for p in range(st[S.ST_NRM_DRAWN]):
            if offers(st, cd, p, kind):
                st[S.ST_LEGAL + n] = p
                n += 1
        use_card(G, n, kind)


@njit(**INNER)
def spend_extra(G, before):
    """An action spent on moving (V4.3) or a distraction (V3.12); O16: it uses a card, keeping one that
    offers the ``before`` action still to come."""
    st, cd = G[0], G[3]
    st[S.ST_W_ACTIONS] -= 1
    if spends_card(st):
        kind = rm_kind(before) if before >= 0 else RK_NONE
        offering = n_offering(st, cd, kind) if before >= 0 else 0
        n = np.int64(0)
        for p in range(st[S.ST_NRM_DRAWN]):
            if st[S.ST_RM_DRAWN + p] < 0:
                continue
            if before >= 0 and offering - (1 if offers(st, cd, p, kind) else 0) < 1:
                continue
            st[S.ST_LEGAL + n] = p
            n += 1
        use_card(G, n, RK_NONE)


@njit(cache=True, inline="always")  # one caller: go_take
def go(G, action, loc, need):
    """V4.1-V4.3: the token to ``loc`` for ``action``, the fare in coins or an action (PAY)."""
    st, bd, cd = G[0], G[2], G[3]
    if loc == st[S.ST_AT]:
        return
    cost = fare(st, bd, cd, loc)
    if cost > 0:
        pend(st, action, loc, need)
        ways = pay_options(st, bd, cd, action, loc, need)
        n = 0
        for how in (PAY_COINS, PAY_ACTION):
            if (ways >> how) & 1:
                st[S.ST_LEGAL + n] = how
                n += 1
        how = wizard_choose(G, D_PAY, n)
        if how == PAY_COINS:
            st[S.ST_COINS] -= cost
        else:
            spend_extra(G, action)
    st[S.ST_AT] = loc



@njit(**INNER)
def go_take(G, action, loc, need):
    """``go`` then ``take``: the start of the five actions, one compiled call (each compiled function
    that reaches ``decide`` links, optimises and emits the planner once more)."""
    go(G, action, loc, need)
    take(G, action)


# ================================================================ the actions (V3)

@njit(cache=True, inline="always")  # one caller: wizard_player_turn
def buy_house(G):
    """V3.2: at an occupied house, any number of its ingredient in one action."""
    st, bd, cd = G[0], G[2], G[3]
    n = 0
    ways = act_ways(st, cd, A_BUY_HOUSE)
    for number in range(1, HOUSES + 1):
        if buy_house_ok(st, bd, ways, number):
            st[S.ST_LEGAL + n] = number
            n += 1
    number = wizard_choose(G, D_BUY_HOUSE, n)
    loc = house_loc(bd, number)
    go_take(G, A_BUY_HOUSE, loc, house_price(st, bd, loc))
    v = st[S.ST_HOUSES + number]
    price = house_price(st, bd, loc)
    most = min(capacity(st, cd) - st[S.ST_NHELD], TILES - st[S.ST_HELD + v])
    if price > 0:
        most = min(most, st[S.ST_COINS] // price)
    pend(st, A_BUY_HOUSE, number, 0)
    k = wizard_choose(G, D_BUY_COUNT, range_legal(st, np.int64(1), most))
    if k < 0:
        return
    st[S.ST_COINS] -= k * price
    st[S.ST_HELD + v] += k
    st[S.ST_NHELD] += k


@njit(**INNER)
def market_legal(st, cd):
    n = 0
    if st[S.ST_NHELD] < capacity(st, cd):
        for i in range(N_TYPES):
            if st[S.ST_HELD + i] < TILES:
                st[S.ST_LEGAL + n] = i
                n += 1
    return n


@njit(cache=True, inline="always")  # one caller: wizard_player_turn
def buy_market(G):
    """V3.3: one ingredient of any type at the Market."""
    st, bd, cd = G[0], G[2], G[3]
    go_take(G, A_BUY_MARKET, bd[S.BD_MARKET], market_price(st, bd, cd))
    pend(st, A_BUY_MARKET, 0, 0)
    i = wizard_choose(G, D_MARKET_PICK, market_legal(st, cd))
    if i < 0:
        return
    st[S.ST_COINS] -= market_price(st, bd, cd)
    st[S.ST_HELD + i] += 1
    st[S.ST_NHELD] += 1


@njit(cache=True, inline="always")  # one caller: wizard_player_turn
def mix(G):
    """V3.5, E1: each held ingredient matching the next space moves the Cure tile."""
    st, bd = G[0], G[2]
    go_take(G, A_MIX, bd[S.BD_LAB], NO_COINS)
    seq = bd[S.O_CURE_SEQ]
    while not st[S.ST_OVER] and st[S.ST_CURE] < bd[S.BD_CURE_LEN] and st[S.ST_HELD + bd[seq + st[S.ST_CURE]]] > 0:
        need = bd[seq + st[S.ST_CURE]]
        st[S.ST_HELD + need] -= 1
        st[S.ST_NHELD] -= 1
        move_cure(st, bd, np.int64(1), S.CURE_MIX)


@njit(cache=True, inline="always")  # one caller: wizard_player_turn
def steal(G):
    """V3.10-V3.13: 1 coin at an empty house; a declared amount against the d6 at an occupied one, a
    distraction saving a noticed attempt."""
    st, rs, bd, cd = G[0], G[1], G[2], G[3]
    n = 0
    if st[S.ST_COINS] < C.COIN_TOTAL:
        ways = act_ways(st, cd, A_STEAL)
        for number in range(1, HOUSES + 1):
            if steal_ok(st, bd, ways, number):
                st[S.ST_LEGAL + n] = number
                n += 1
    number = wizard_choose(G, D_STEAL_HOUSE, n)
    loc = house_loc(bd, number)
    go_take(G, A_STEAL, loc, NO_COINS)
    supply = C.COIN_TOTAL - st[S.ST_COINS]
    if st[S.ST_HOUSES + number] == EMPTY:                 # V3.10
        st[S.ST_COINS_STOLEN] += gain_coins(st, 1)
        return
    pend(st, A_STEAL, number, 0)
    top = min(bd[bd[S.O_COINS] + loc], supply)
    declared = wizard_choose(G, D_STEAL_AMOUNT, range_legal(st, np.int64(1), top))
    if declared < 0:
        return
    roll = below(rs, S.STREAM_D6, C.D6) + 1
    taken = 0
    if roll > declared:
        taken = gain_coins(st, declared)
    elif spare_action(st):                                 # V3.12: noticed
        if wizard_choose(G, D_DISTRACT, range_legal(st, np.int64(0), np.int64(1))) == 1:
            spend_extra(G, NO_ACTION)
            taken = gain_coins(st, declared)
    st[S.ST_COINS_STOLEN] += taken


@njit(cache=True, inline="always")  # one caller: wizard_player_turn
def cast(G):
    """V3.6-V3.9: a Spell from the hand, its location and ingredients, its effect, then its coins."""
    st, bd, cd = G[0], G[2], G[3]
    n = 0
    for p in range(st[S.ST_NWIZARD_HAND]):
        if castable(st, bd, cd, st[S.ST_WIZARD_HAND + p]):
            st[S.ST_LEGAL + n] = p
            n += 1
    p = wizard_choose(G, D_SPELL, n)
    c = st[S.ST_WIZARD_HAND + p]
    loc = spell_location(bd, cd, c)
    if loc < 0:                                            # cast where it stands: no move
        loc = st[S.ST_AT]
    go_take(G, A_SPELL, loc, NO_COINS)
    for i in range(p + 1, st[S.ST_NWIZARD_HAND]):
        st[S.ST_WIZARD_HAND + i - 1] = st[S.ST_WIZARD_HAND + i]
    st[S.ST_NWIZARD_HAND] -= 1
    kept = 0                                               # Greedy Coachman: discarded by a Cast Spell
    for i in range(st[S.ST_NFRONT_WIZARD]):
        w = st[S.ST_FRONT_WIZARD + i]
        if cd[S.CD_PRINTED, w] == S.E_WIZARD_CROSSING_COST and cd[S.CD_P1, w] == 1:
            push(st, S.ST_POWER_DISC, S.ST_NPOWER_DISC, w)
        else:
            st[S.ST_FRONT_WIZARD + kept] = w
            kept += 1
    st[S.ST_NFRONT_WIZARD] = kept
    need = cd[S.CD_NEED_INGREDIENTS, c]                    # spent, back to the supply
    for i in range(N_TYPES):
        k = (need >> (4 * i)) & 15
        st[S.ST_HELD + i] -= k
        st[S.ST_NHELD] -= k
    apply_spell(G, c)
    if not st[S.ST_OVER]:
        gain_coins(st, cd[S.CD_COINS, c])                  # V3.8
    if cd[S.CD_KIND, c] == KIND_ONGOING:                   # V3.7
        if cd[S.CD_PLACEMENT, c] == PLACED_MONSTER:
            push(st, S.ST_FRONT_MONSTER, S.ST_NFRONT_MONSTER, c)
        else:
            push(st, S.ST_FRONT_WIZARD, S.ST_NFRONT_WIZARD, c)
    else:
        push(st, S.ST_SPELL_DISC, S.ST_NSPELL_DISC, c)     # V3.9


@njit(cache=True, inline="always")  # one caller: cast
def apply_spell(G, c):
    """The Wizard player's effect of a Spell card (its printed effect)."""
    st, bd, cd = G[0], G[2], G[3]
    effect = cd[S.CD_PRINTED, c]
    if effect == S.E_REMOVE_SHEEP:
        for k in range(bd[S.BD_NP]):
            st[S.ST_SHEEP + k] = max(0, st[S.ST_SHEEP + k] - cd[S.CD_P0, c])
    elif effect == S.E_GAIN_INGREDIENTS:
        for j in range(2):
            i = cd[S.CD_P0 + j, c]
            if st[S.ST_NHELD] < capacity(st, cd) and st[S.ST_HELD + i] < TILES:
                st[S.ST_HELD + i] += 1
                st[S.ST_NHELD] += 1
    elif effect == S.E_CURE_IF_NEXT:
        if st[S.ST_CURE] < bd[S.BD_CURE_LEN]:
            first = bd[bd[S.O_CURE_SEQ] + st[S.ST_CURE]]
            if first == cd[S.CD_P0, c] or first == cd[S.CD_P1, c]:
                if st[S.ST_HELD + first] > 0:
                    st[S.ST_HELD + first] -= 1
                    st[S.ST_NHELD] -= 1
                move_cure(st, bd, cd[S.CD_P2, c], S.CURE_SPELLS)
    elif effect == S.E_DOUBLE_COINS:
        gain_coins(st, min(st[S.ST_COINS], cd[S.CD_P0, c] - st[S.ST_COINS]))
    elif effect == S.E_DISCARD_POWER:
        n = 0
        for q in range(st[S.ST_NFRONT_MONSTER]):
            m = st[S.ST_FRONT_MONSTER + q]
            if cd[S.CD_DECK, m] == S.DK_POWER and cd[S.CD_KIND, m] == KIND_ONGOING:
                st[S.ST_LEGAL + n] = q
                n += 1
        if n == 0:
            return
        q = st[S.ST_LEGAL] if cd[S.CD_P0, c] == 1 else wizard_choose(G, D_DISCARD_POWER, n)
        gone = st[S.ST_FRONT_MONSTER + q]
        for i in range(q + 1, st[S.ST_NFRONT_MONSTER]):
            st[S.ST_FRONT_MONSTER + i - 1] = st[S.ST_FRONT_MONSTER + i]
        st[S.ST_NFRONT_MONSTER] -= 1
        push(st, S.ST_POWER_DISC, S.ST_NPOWER_DISC, gone)
    elif effect == S.E_PLACE_VILLAGER:
        hypnotize(G, cd[S.CD_P0, c])


@njit(**INNER)
def all_occupied(st):
    for n in range(1, HOUSES + 1):
        if st[S.ST_HOUSES + n] == EMPTY:
            return False
    return True


@njit(cache=True, inline="always")  # one caller: apply_spell
def hypnotize(G, pick):
    """Hypnotize (C12): a villager from the bag (chosen, or random: stream 0) to the d20 house."""
    st, rs = G[0], G[1]
    if all_occupied(st):
        return
    if pick == 0:
        n = 0
        for v in range(N_TYPES):
            if st[S.ST_BAG + v] > 0:
                st[S.ST_LEGAL + n] = v
                n += 1
        if n == 0:
            return
        v = wizard_choose(G, D_HYPNOTIZE, n)
        st[S.ST_BAG + v] -= 1
    else:
        v = draw_villager(st, rs)
        if v == EMPTY:
            return
    place(G, v, d20(rs))


@njit(cache=True, inline="always")  # two callers: hypnotize, wizard_arrive
def place(G, v, roll):
    """V2.2, V2.3, V2.6: villager ``v`` to house ``roll``, or to an empty house the Wizard chooses."""
    st = G[0]
    house = roll
    if st[S.ST_HOUSES + roll] != EMPTY:
        pend(st, P_ARRIVAL, v, 0)
        n = 0
        for number in range(1, HOUSES + 1):
            if st[S.ST_HOUSES + number] == EMPTY:
                st[S.ST_LEGAL + n] = number
                n += 1
        house = wizard_choose(G, D_ARRIVAL_HOUSE, n)
    st[S.ST_HOUSES + house] = v


@njit(cache=True, inline="always")  # two callers: kernel_monster.night_arrival, wizard_player_turn
def wizard_arrive(G):
    """V2.2-V2.5 for a Wizard player (also a Quiet Night's arrival the Wizard places, O2)."""
    st, rs = G[0], G[1]
    if all_occupied(st):
        return
    v = draw_villager(st, rs)
    if v == EMPTY:
        return
    place(G, v, d20(rs))


@njit(cache=True, inline="always")  # two callers: trim_to_capacity, wizard_player_turn
def discard(G):
    """V3.4: an ingredient returned to the supply, free."""
    st = G[0]
    n = 0
    for i in range(N_TYPES):
        if st[S.ST_HELD + i] > 0:
            st[S.ST_LEGAL + n] = i
            n += 1
    i = wizard_choose(G, D_DISCARD, n)
    st[S.ST_HELD + i] -= 1
    st[S.ST_NHELD] -= 1


@njit(cache=True, inline="always")  # two callers: kernel_monster.spend, wizard_player_turn
def trim_to_capacity(G):
    """Box of Holding gone: the Wizard returns ingredients (its choice) down to its capacity (V3.4)."""
    st, cd = G[0], G[3]
    while st[S.ST_NHELD] > capacity(st, cd):
        discard(G)


@njit(cache=True, inline="always")  # one caller: wizard_player_turn
def move_alone(G):
    """O3 wizard_move_alone: a move with no action at its end (coins, or an action: V4.3)."""
    st, bd, cd = G[0], G[2], G[3]
    n = 0
    for loc in range(bd[S.BD_N]):
        if move_ok(st, bd, cd, loc):
            st[S.ST_LEGAL + n] = loc
            n += 1
    loc = wizard_choose(G, D_MOVE_TO, n)
    cost = fare(st, bd, cd, loc)
    if cost > 0:
        n = 0
        if st[S.ST_COINS] >= cost:
            st[S.ST_LEGAL + n] = PAY_COINS
            n += 1
        if spare_action(st):
            st[S.ST_LEGAL + n] = PAY_ACTION
            n += 1
        pend(st, A_MOVE, loc, 0)
        how = wizard_choose(G, D_PAY, n)
        if how == PAY_COINS:
            st[S.ST_COINS] -= cost
        else:
            spend_extra(G, NO_ACTION)
    st[S.ST_AT] = loc


# ================================================================ set-up and the turn

@njit(**INNER)
def refill(G):
    """V5.1: up to 4 Spell cards in hand (stream 3 on a reshuffle)."""
    st, rs = G[0], G[1]
    while st[S.ST_NWIZARD_HAND] < C.HAND_SIZE:
        c = draw_from(st, rs, S.ST_SPELL_DECK, S.ST_NSPELL_DECK, S.ST_SPELL_DISC, S.ST_NSPELL_DISC, S.STREAM_SPELL)
        if c < 0:
            return
        push(st, S.ST_WIZARD_HAND, S.ST_NWIZARD_HAND, c)


@njit(**INNER)
def wizard_player_deal(G):
    """V1.10: the Wizard player draws 4 Spell cards."""
    st = G[0]
    st[S.ST_NWIZARD_HAND] = 0
    st[S.ST_NRM_DRAWN] = 0
    st[S.ST_NRM_USED] = 0
    refill(G)


@njit(**INNER)
def wizard_player_turn(G):
    """One Wizard player's turn (V2.1): arrival, actions until it ends them (or a win), the refill (V5)."""
    st, rs, bd, dk = G[0], G[1], G[2], G[4]
    trim_to_capacity(G)
    if panic_effect(st, bd, STAY_INSIDE):                  # V10.2
        fire(st, S.F_STAY_INSIDE)
    else:
        wizard_arrive(G)
    actions = C.WIZARD_ACTIONS
    if panic_effect(st, bd, GET_BUSY) and not (rabid(st) and st[OPT + OPT_GET_BUSY] == GET_BUSY_IGNORED):
        fire(st, S.F_EXTRA_ACTION)                         # V10.1, O17
        actions += 1
    if panic_effect(st, bd, PLETHORA):                     # V10.3
        fire(st, S.F_CHEAPER_INGREDIENTS)
    if rabid(st):                                          # V13.1
        n = dk[S.DK_RABID + 1] - dk[S.DK_RABID]
        for i in range(n):
            st[S.ST_RM_DECK + i] = dk[S.DK_RABID] + i
        st[S.ST_NRM_DECK] = n
        shuffle(st, rs, S.STREAM_RABID, S.ST_RM_DECK, n)
        st[S.ST_NRM_DRAWN] = 0
        for _ in range(min(R.RABID_CARDS_DRAWN, n)):
            st[S.ST_NRM_DECK] -= 1
            push(st, S.ST_RM_DRAWN, S.ST_NRM_DRAWN, st[S.ST_RM_DECK + st[S.ST_NRM_DECK]])
        st[S.ST_NRM_USED] = 0
    st[S.ST_W_ACTIONS] = actions
    while not st[S.ST_OVER] and not st[S.ST_ERR]:
        pend(st, -1, 0, 0)
        action = wizard_choose(G, D_ACTION, legal_actions(st, bd, G[3]))
        if action == A_END or action < 0:
            break
        if action == A_BUY_HOUSE:
            buy_house(G)
        elif action == A_BUY_MARKET:
            buy_market(G)
        elif action == A_MIX:
            mix(G)
        elif action == A_SPELL:
            cast(G)
        elif action == A_STEAL:
            steal(G)
        elif action == A_MOVE:
            move_alone(G)
        elif action == A_DISCARD:
            discard(G)
    pend(st, -1, 0, 0)
    st[S.ST_W_ACTIONS] = 0
    if st[S.ST_OVER]:
        return
    refill(G)                                              # V5.1
    if rabid(st):                                          # V13.2: the unused cards are discarded
        st[S.ST_NRM_DRAWN] = 0


# ================================================================ the planner (wizard_policies.Planner)

@njit(cache=True, inline="always")
def param(G, k):
    return int(G[5][W, k])


@njit(**INNER)
def missing(st, bd, cd):
    """The next ``capacity`` Cure steps less the ingredients held (a multiset), in track order, into
    W_NEED; their number."""
    for i in range(N_TYPES):
        st[S.ST_POOL + i] = st[S.ST_HELD + i]
    n = 0
    cure = st[S.ST_CURE]
    top = min(bd[S.BD_CURE_LEN], cure + capacity(st, cd))
    for k in range(cure, top):
        need = bd[bd[S.O_CURE_SEQ] + k]
        if st[S.ST_POOL + need] > 0:
            st[S.ST_POOL + need] -= 1
        else:
            st[S.ST_W_NEED + n] = need
            n += 1
    st[S.ST_NW_NEED] = n
    return n


@njit(**INNER)
def in_need(st, v):
    for k in range(st[S.ST_NW_NEED]):
        if st[S.ST_W_NEED + k] == v:
            return True
    return False


@njit(**INNER)
def need_count(st, v):
    n = 0
    for k in range(st[S.ST_NW_NEED]):
        if st[S.ST_W_NEED + k] == v:
            n += 1
    return n


@njit(**INNER)
def need_rank(st, v):
    for k in range(st[S.ST_NW_NEED]):
        if st[S.ST_W_NEED + k] == v:
            return k
    return N_TYPES * 3


@njit(**INNER)
def spell_value(G, c):
    """Coins gained plus the worth of the effect now (W_NEED must hold ``missing``)."""
    st, bd, cd = G[0], G[2], G[3]
    iv = param(G, 1)
    value = cd[S.CD_COINS, c]
    effect = cd[S.CD_PRINTED, c]
    if effect == S.E_GAIN_INGREDIENTS:
        room = capacity(st, cd) - st[S.ST_NHELD]
        a, b = cd[S.CD_P0, c], cd[S.CD_P1, c]
        ca, used = need_count(st, a), 0
        if room > 0 and ca > 0:
            value += iv
            used = 1
            room -= 1
        cb = need_count(st, b) - (used if b == a else 0)
        if room > 0 and cb > 0:
            value += iv
    elif effect == S.E_CURE_IF_NEXT:
        if st[S.ST_CURE] < bd[S.BD_CURE_LEN]:
            first = bd[bd[S.O_CURE_SEQ] + st[S.ST_CURE]]
            if first == cd[S.CD_P0, c] or first == cd[S.CD_P1, c]:
                value += 2 * iv
    elif effect == S.E_DOUBLE_COINS:
        value += min(st[S.ST_COINS], cd[S.CD_P0, c] - st[S.ST_COINS])
    elif effect == S.E_EXTRA_INGREDIENT_SLOT:
        if capacity(st, cd) == C.WIZARD_INGREDIENT_LIMIT:
            value += 1
    elif effect == S.E_PLACE_VILLAGER:
        for k in range(st[S.ST_NW_NEED]):
            if st[S.ST_BAG + st[S.ST_W_NEED + k]] > 0:
                value += 1
                break
    elif effect == S.E_REMOVE_SHEEP or effect == S.E_MARKET_DISCOUNT or effect == S.E_BRIDGE_EXTRA_MOVEMENT:
        value += 1
    elif effect == S.E_DISCARD_POWER:
        for q in range(st[S.ST_NFRONT_MONSTER]):
            m = st[S.ST_FRONT_MONSTER + q]
            if cd[S.CD_DECK, m] == S.DK_POWER and cd[S.CD_KIND, m] == KIND_ONGOING:
                value += 2
                break
    return value


@njit(**INNER)
def house_cost(st, bd, cd, number):
    loc = house_loc(bd, number)
    return fare(st, bd, cd, loc) + house_price(st, bd, loc)


@njit(**INNER)
def cheapest_need(st, bd, cd):
    best = -1
    for number in range(1, HOUSES + 1):
        v = st[S.ST_HOUSES + number]
        if v != EMPTY and in_need(st, v):
            cost = house_cost(st, bd, cd, number)
            if best < 0 or cost < best:
                best = cost
    if best >= 0:
        return best
    return fare(st, bd, cd, bd[S.BD_MARKET]) + market_price(st, bd, cd)


@njit(**INNER)
def unneeded(st, bd):
    """The lowest held ingredient beyond what the Cure steps left need, or -1."""
    for i in range(N_TYPES):
        st[S.ST_POOL + i] = 0
    for k in range(st[S.ST_CURE], bd[S.BD_CURE_LEN]):
        st[S.ST_POOL + bd[bd[S.O_CURE_SEQ] + k]] += 1
    for i in range(N_TYPES):
        if st[S.ST_HELD + i] > st[S.ST_POOL + i]:
            return i
    return -1


@njit(**INNER)
def in_legal(st, nl, x):
    for k in range(nl):
        if st[S.ST_LEGAL + k] == x:
            return True
    return False


@njit(**INNER)
def plan_action(G, nl):
    st, bd, cd = G[0], G[2], G[3]
    nneed = missing(st, bd, cd)
    buyable = False
    if st[S.ST_NHELD] < capacity(st, cd):
        ways = act_ways(st, cd, A_BUY_HOUSE)
        for number in range(1, HOUSES + 1):
            v = st[S.ST_HOUSES + number]
            if v != EMPTY and in_need(st, v) and buy_house_ok(st, bd, ways, number):
                buyable = True
                break
    if in_legal(st, nl, A_MIX):
        reserve = 1 if fare(st, bd, cd, bd[S.BD_LAB]) > st[S.ST_COINS] - param(G, 2) else 0
        if nneed == 0 or not buyable or st[S.ST_W_ACTIONS] <= 1 + reserve:
            return A_MIX
    if in_legal(st, nl, A_SPELL):
        best = -(1 << 40)
        for p in range(st[S.ST_NWIZARD_HAND]):
            c = st[S.ST_WIZARD_HAND + p]
            if castable(st, bd, cd, c):
                best = max(best, spell_value(G, c))
        if best >= param(G, 0):
            return A_SPELL
    if in_legal(st, nl, A_BUY_HOUSE) and buyable:
        return A_BUY_HOUSE
    if in_legal(st, nl, A_STEAL) and nneed > 0 and st[S.ST_COINS] < max(param(G, 7), cheapest_need(st, bd, cd)):
        return A_STEAL
    if in_legal(st, nl, A_BUY_MARKET) and nneed > 0:
        on_board = False
        for number in range(1, HOUSES + 1):
            v = st[S.ST_HOUSES + number]
            if v != EMPTY and in_need(st, v):
                on_board = True
        if not on_board and st[S.ST_NHELD] < capacity(st, cd):
            for i in range(N_TYPES):
                if st[S.ST_HELD + i] < TILES and in_need(st, i):
                    return A_BUY_MARKET
    if in_legal(st, nl, A_DISCARD) and nneed > 0 and st[S.ST_NHELD] >= capacity(st, cd):
        if unneeded(st, bd) >= 0:
            return A_DISCARD
        cure = st[S.ST_CURE]
        if param(G, 8) and cure < bd[S.BD_CURE_LEN] and st[S.ST_HELD + bd[bd[S.O_CURE_SEQ] + cure]] == 0:
            return A_DISCARD
    if param(G, 9) and in_legal(st, nl, A_SPELL):
        return A_SPELL
    return A_END


@njit(**INNER)
def furthest(st, bd):
    """The held ingredient needed furthest ahead (wizard_policies.Planner.furthest), or -1."""
    for i in range(N_TYPES):
        st[S.ST_POOL + i] = st[S.ST_HELD + i]
    last = -1
    for k in range(st[S.ST_CURE], bd[S.BD_CURE_LEN]):
        need = bd[bd[S.O_CURE_SEQ] + k]
        if st[S.ST_POOL + need] > 0:
            st[S.ST_POOL + need] -= 1
            last = need
    return last


@njit(**INNER)
def first_needed_in_legal(st, nl):
    for k in range(st[S.ST_NW_NEED]):
        if in_legal(st, nl, st[S.ST_W_NEED + k]):
            return st[S.ST_W_NEED + k]
    return st[S.ST_LEGAL]


@njit(**INNER)
def planner(G, decision, nl):
    """wizard_policies.Planner's choice (integer scores, ties to the lowest code)."""
    st, bd, cd = G[0], G[2], G[3]
    L = S.ST_LEGAL
    if decision == D_ACTION:
        return plan_action(G, nl)
    if decision == D_BUY_HOUSE:
        missing(st, bd, cd)
        useful = False
        for k in range(nl):
            if in_need(st, st[S.ST_HOUSES + st[L + k]]):
                useful = True
        best, bc, br = -1, 0, 0
        for k in range(nl):
            n = st[L + k]
            v = st[S.ST_HOUSES + n]
            if useful and not in_need(st, v):
                continue
            cost, rank = house_cost(st, bd, cd, n), need_rank(st, v)
            if best < 0 or cost < bc or (cost == bc and rank < br):
                best, bc, br = n, cost, rank
        return best
    if decision == D_BUY_COUNT:
        missing(st, bd, cd)
        want = need_count(st, st[S.ST_HOUSES + st[S.ST_W_PENDING + 1]])
        return max(st[L], min(st[L + nl - 1], want))
    if decision == D_MARKET_PICK or decision == D_HYPNOTIZE:
        missing(st, bd, cd)
        return first_needed_in_legal(st, nl)
    if decision == D_SPELL:
        missing(st, bd, cd)
        best, bv = -1, 0
        for k in range(nl):
            p = st[L + k]
            v = spell_value(G, st[S.ST_WIZARD_HAND + p])
            if best < 0 or v > bv:
                best, bv = p, v
        return best
    if decision == D_STEAL_HOUSE:
        supply = C.COIN_TOTAL - st[S.ST_COINS]
        cap = param(G, 3)
        best, bs = -1, 0
        for k in range(nl):
            n = st[L + k]
            loc = house_loc(bd, n)
            if st[S.ST_HOUSES + n] == EMPTY:
                s = 6
            else:
                d = min(bd[bd[S.O_COINS] + loc], cap, supply)
                s = d * (6 - d)
            s -= 6 * fare(st, bd, cd, loc)
            if best < 0 or s > bs:
                best, bs = n, s
        return best
    if decision == D_STEAL_AMOUNT:
        return min(st[L + nl - 1], param(G, 3))
    if decision == D_DISTRACT:
        loc = house_loc(bd, st[S.ST_W_PENDING + 1])
        d = min(bd[bd[S.O_COINS] + loc], param(G, 3), C.COIN_TOTAL - st[S.ST_COINS])
        return 1 if d >= param(G, 4) else 0
    if decision == D_PAY:
        loc, need = st[S.ST_W_PENDING + 1], st[S.ST_W_PENDING + 2]
        if in_legal(st, nl, PAY_COINS) and st[S.ST_COINS] - fare(st, bd, cd, loc) - need >= param(G, 2):
            return PAY_COINS
        return PAY_ACTION if in_legal(st, nl, PAY_ACTION) else st[L]
    if decision == D_DISCARD:
        extra = unneeded(st, bd)
        if extra < 0 and param(G, 8):
            extra = furthest(st, bd)
        return extra if in_legal(st, nl, extra) else st[L]
    if decision == D_ARRIVAL_HOUSE:
        missing(st, bd, cd)
        if not in_need(st, st[S.ST_W_PENDING + 1]):
            return st[L]
        at, n_loc = st[S.ST_AT], bd[S.BD_N]
        best, bf, bdist = -1, 0, 0
        for k in range(nl):
            n = st[L + k]
            loc = house_loc(bd, n)
            f, dist = fare(st, bd, cd, loc), bd[bd[S.O_DIST] + at * n_loc + loc]
            if best < 0 or f < bf or (f == bf and dist < bdist):
                best, bf, bdist = n, f, dist
        return best
    if decision == D_RM_CARD:
        missing(st, bd, cd)
        kind = st[S.ST_W_PENDING + 1]
        best, bs = -1, 0
        for k in range(nl):
            p = st[L + k]
            c = st[S.ST_RM_DRAWN + p]
            v = cd[S.CD_VILLAGER, c]
            if v < 0:
                s = -1
            else:
                s = 0
                for n in range(1, HOUSES + 1):
                    if st[S.ST_HOUSES + n] == v:
                        s += 1
                if in_need(st, v):
                    s += param(G, 5)
                spare = 0
                for a in range(N_RM):
                    if a != kind and (cd[S.CD_ACTIONS, c] >> a) & 1:
                        spare += 1
                s += param(G, 6) * spare
            if best < 0 or s < bs:
                best, bs = p, s
        return best
    return st[L]                                           # MOVE_TO, DISCARD_POWER, others: the lowest code


@njit(cache=True, inline="always")  # one caller: decide
def wizard_policy(G, decision, nl):
    """The Wizard's non-random policy (``kernel.choice_without_policy`` draws for ``random``): the planner."""
    return planner(G, decision, nl)
