"""The numba kernel of Cursed Gifts: the reference engine's rules (``reference.py``, docs/rules/gifts.md)
over flat numpy state, one compiled call per chunk of games, game by game identical to the reference.

State (allocated once per chunk, reset per game; cards are the deck's copies 0..n-1):

- ``hands[seat]``: the hand as a bit set of cards (W uint64 words), read in ascending card order as the
  reference keeps its hands sorted; ``handn[seat]`` hand sizes;
- ``pile[:npile]`` (the last is the top) and ``disc[:ndisc]`` (the Septic Discard in order of arrival);
- gauge entries named by their first card ``key``: ``eseat[key]`` (-1: no entry), ``evalue[key]`` (value
  with its Tricks), ``ecards[key, :elen[key]]`` (the gift or the bonus's two Useless Gifts, then the Tricks
  in the order they landed); ``gkeys[seat]`` each gauge's keys as a bit set; ``gtotal[seat]``;
- ``sc``: the game's scalars (SC_* slots); ``streams``: row 0 the deck stream, row 1 + seat the seats'
  policy streams (xoshiro256** states of ``cursedsim.rng``).

The deck enters as the int64 arrays of ``Deck.arrays()`` (``type``, ``value``, ``flags``, ``effect``),
the rule options as the int64 array of ``option_array`` (slot i = the i-th RuleOptions field after
``deck``). Every policy decision is checked against the legal set: an illegal one is recorded (the
first, as an error code) and replaced by the first legal action; ``run_chunk`` raises a RunError.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from cursedsim.bits import ONE, ZERO, count, lowest, nth
from cursedsim.rng import seed_tuple

from cursedsim.errors import OptionError, PlayersError, RunError, UnknownPolicyError
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import policies as pol
from cursedsim.games.gifts import policy_specs as P
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S
from cursedsim.games.gifts.deck import Deck, load_deck

# ---------------------------------------------------------------- rule options

OPT_RIPOSTE_CHAINS = 0
OPT_MAX_TURNS = 1
OPT_ELIMINATED_CARDS = 2   # index in rules.ELIMINATED_CARDS
OPT_ELIMINATED_HAND = 3    # index in rules.ELIMINATED_HAND
OPT_CACARMA = 4            # index in rules.CACARMA
OPT_CACARMA_VS_INEVITABLE = 5
OPT_BONUS_IS_THE_GIFT = 6
OPT_MUGGING_COST = 7       # index in rules.MUGGING_COST
OPT_MUGGING_TAKE = 8       # index in rules.MUGGING_TAKE
N_OPTIONS = 9
SHUFFLE_PILE = R.ELIMINATED_CARDS.index("shuffle_pile")
HAND_ALL = R.ELIMINATED_HAND.index("all")
CACARMA_RETURN = R.CACARMA.index("return")
COST_ALWAYS = R.MUGGING_COST.index("always")
TAKE_BLIND = R.MUGGING_TAKE.index("blind")


def option_array(options: R.RuleOptions | None) -> np.ndarray:
    """The rule options as the kernel's int64 array (``deck`` is passed as arrays, not here)."""
    o = R.RuleOptions() if options is None else options
    return np.array([int(o.riposte_chains), o.max_turns, R.ELIMINATED_CARDS.index(o.eliminated_cards),
                     R.ELIMINATED_HAND.index(o.eliminated_hand), R.CACARMA.index(o.cacarma),
                     int(o.cacarma_vs_inevitable), int(o.bonus_is_the_gift), R.MUGGING_COST.index(o.mugging_cost),
                     R.MUGGING_TAKE.index(o.mugging_take)], np.int64)


# ---------------------------------------------------------------- scalars of a game

SC_PLAYED = 0
SC_GIFT_GIVEN = 1
SC_NPILE = 2
SC_NDISC = 3
SC_OVER = 4
SC_WINNER = 5
SC_ERR = 6
SC_RIPOSTES = 7
SC_CACARMAS = 8
SC_BONUS = 9
SC_COUNTS = 10            # 5 slots: played cards by type (effects.TYPE_NAMES)
SC_NELIM = 15
SC_ELIM = 16
SC_TURN = 17
SC_UNFINISHED = 18
SC_TARGET = 19
SC_PCARD = 20
SC_PADDS = 21
SC_PLAYERS = 22
SC_DEALT = 23             # the kinds dealt to the focus seat (bit mask)
N_SC = 24

EFFECTIVE = 0
CANCELLED = 1
RETURNED = 2
NO_ERROR = 0
MAX_ENTRY_CARDS = 16


# ---------------------------------------------------------------- the state tuple

#: Slots of the state tuple ``G`` every step function takes (arrays allocated once per chunk).
G_TYPE, G_VALUE, G_FLAGS, G_EFFECT = 0, 1, 2, 3          # the deck: Deck.arrays() per copy
G_HANDS = 4        # (MAX_PLAYERS, W) uint64: each hand as a card bit set
G_HANDN = 5        # hand sizes
G_PILE, G_DISC = 6, 7
G_ESEAT, G_EVALUE, G_ECARDS, G_ELEN = 8, 9, 10, 11       # gauge entries by key card
G_GTOTAL, G_ALIVE, G_SC, G_STREAMS = 12, 13, 14, 15
G_GKEYS = 16       # (MAX_PLAYERS, W) uint64: each gauge's entry keys as a bit set
G_LEGAL, G_PIDS, G_PARAMS = 17, 18, 19
G_CHAIN, G_EXTRA, G_HEALED = 20, 21, 22                  # scratch lists
G_MASKS = 23       # (N_MASKS, W) uint64: card sets by role (policies.MK_*)
G_BITS = 24        # scratch bit set (W words)

W = pol.W


# ---------------------------------------------------------------- plumbing


@njit(cache=True, inline="always")
def below(G, n):
    """A uniform integer in [0, n) from the deck stream."""
    return pol.below(G[G_STREAMS], S.STREAM_DECK, n)


@njit(cache=True, inline="always")
def add_bit(sets, row, c):
    sets[row, c >> 6] |= ONE << uint64(c & 63)


@njit(cache=True, inline="always")
def clear_bit(sets, row, c):
    sets[row, c >> 6] &= ~(ONE << uint64(c & 63))


@njit(cache=True, _nrt=False)
def shuffle_pile(G):
    """Fisher-Yates over the draw pile: i from n-1 down to 1, j = below(i+1), swap."""
    pile, sc = G[G_PILE], G[G_SC]
    for i in range(sc[SC_NPILE] - 1, 0, -1):
        j = below(G, i + 1)
        pile[i], pile[j] = pile[j], pile[i]


@njit(cache=True, inline="always")
def to_discard(G, c):
    disc, sc = G[G_DISC], G[G_SC]
    disc[sc[SC_NDISC]] = c
    sc[SC_NDISC] += 1


@njit(cache=True, inline="always")
def take_from_hand(G, seat, c):
    clear_bit(G[G_HANDS], seat, c)
    G[G_HANDN][seat] -= 1


@njit(cache=True, inline="always")
def put_in_hand(G, seat, c):
    add_bit(G[G_HANDS], seat, c)
    G[G_HANDN][seat] += 1


@njit(cache=True, _nrt=False, inline="always")
def draw_card(G, seat):
    """The top card of the pile into ``seat``'s hand; an empty pile first takes the Septic Discard,
    shuffled. -1 when both are empty."""
    pile, disc, sc = G[G_PILE], G[G_DISC], G[G_SC]
    if sc[SC_NPILE] == 0 and sc[SC_NDISC] > 0:
        for i in range(sc[SC_NDISC]):
            pile[i] = disc[i]
        sc[SC_NPILE] = sc[SC_NDISC]
        sc[SC_NDISC] = 0
        shuffle_pile(G)
    if sc[SC_NPILE] == 0:
        return -1
    sc[SC_NPILE] -= 1
    c = pile[sc[SC_NPILE]]
    put_in_hand(G, seat, c)
    return c


@njit(cache=True, inline="always")
def useless_count(G, seat):
    return pol.count_in(G[G_HANDS], seat, G[G_MASKS], pol.MK_USELESS)


@njit(cache=True, _nrt=False, inline="always")
def ask(G, kind, seat, nl):
    """The seat's policy decides among ``legal[:nl]``; an illegal choice is recorded and replaced."""
    sc, legal = G[G_SC], G[G_LEGAL]
    a = pol.decide(G[G_PIDS][seat], G[G_PARAMS][seat], kind, seat, sc[SC_PLAYERS], legal, nl, G[G_STREAMS],
                   G[G_TYPE], G[G_VALUE], G[G_FLAGS], G[G_EFFECT], G[G_HANDS], G[G_MASKS], G[G_HANDN],
                   G[G_GTOTAL], G[G_EVALUE], sc[SC_TARGET], sc[SC_PCARD], sc[SC_PADDS])
    for i in range(nl):
        if legal[i] == a:
            return a
    if sc[SC_ERR] == NO_ERROR:
        sc[SC_ERR] = 1 + kind * S.N_ACTIONS + (a % S.N_ACTIONS if a >= 0 else 0)
    return legal[0]


@njit(cache=True, _nrt=False, inline="always")
def gauge_reach(G, seat, skip, healed):
    """Subset sums of ``seat``'s entry values as a bit set, leaving out entry ``skip`` and the entries
    in the bit set ``healed`` (W words)."""
    gkeys, evalue = G[G_GKEYS], G[G_EVALUE]
    reach = np.int64(1)
    for w in range(W):
        m = gkeys[seat, w] & ~healed[w]
        while m != ZERO:
            k = w * 64 + lowest(m)
            m &= m - ONE
            if k != skip:
                reach |= reach << evalue[k]
    return reach


@njit(cache=True, _nrt=False, inline="always")
def heal_feasible(reach, base, extra, nextra, budget):
    """Whether a heal of total ``base`` plus at most ``budget`` of the antidote values ``extra[:nextra]``
    hits a subset sum of the gauge exactly."""
    if (reach >> base) & 1:
        return True
    if budget >= 1:
        for i in range(nextra):
            if (reach >> (base + extra[i])) & 1:
                return True
    if budget >= 2:
        for i in range(nextra):
            for j in range(i + 1, nextra):
                if (reach >> (base + extra[i] + extra[j])) & 1:
                    return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def hand_antidotes(G, seat, without, extra):
    """Antidote values (positive) of ``seat``'s hand in card order, card ``without`` left out."""
    cv, hands, masks = G[G_VALUE], G[G_HANDS], G[G_MASKS]
    n = 0
    for w in range(W):
        m = hands[seat, w] & masks[pol.MK_ANTIDOTE, w]
        while m != ZERO:
            c = w * 64 + lowest(m)
            m &= m - ONE
            if c != without:
                extra[n] = -cv[c]
                n += 1
    return n


# ---------------------------------------------------------------- elimination and gauges


@njit(cache=True, _nrt=False, inline="always")
def finish(G, winner, unfinished):
    sc = G[G_SC]
    sc[SC_WINNER] = winner
    sc[SC_UNFINISHED] = unfinished
    sc[SC_OVER] = 1


@njit(cache=True, _nrt=False)
def eliminate(G, seat, opts):
    """The player's gauge and hand go into the draw pile (options), the pile shuffled; last one wins."""
    hands, handn, pile, eseat, ecards, elen, gtotal, alive, sc, gkeys, masks, bits = \
        G[G_HANDS], G[G_HANDN], G[G_PILE], G[G_ESEAT], G[G_ECARDS], G[G_ELEN], G[G_GTOTAL], G[G_ALIVE], \
        G[G_SC], G[G_GKEYS], G[G_MASKS], G[G_BITS]
    alive[seat] = 0
    sc[SC_ELIM] += (seat + 1) * R.ELIM_BASE ** sc[SC_NELIM]
    sc[SC_NELIM] += 1
    for w in range(W):
        bits[w] = ZERO
    for w in range(W):
        m = gkeys[seat, w]
        while m != ZERO:
            k = w * 64 + lowest(m)
            m &= m - ONE
            for i in range(elen[k]):
                c = ecards[k, i]
                bits[c >> 6] |= ONE << uint64(c & 63)
            eseat[k] = -1
        gkeys[seat, w] = ZERO
    gifts_only = opts[OPT_ELIMINATED_HAND] != HAND_ALL
    for w in range(W):
        m = hands[seat, w]
        if gifts_only:
            rest = m & ~masks[pol.MK_GIFT, w]
            m &= masks[pol.MK_GIFT, w]
            while rest != ZERO:
                to_discard(G, w * 64 + lowest(rest))
                rest &= rest - ONE
        bits[w] |= m
        hands[seat, w] = ZERO
    handn[seat] = 0
    gtotal[seat] = 0
    shuffle = opts[OPT_ELIMINATED_CARDS] == SHUFFLE_PILE
    for w in range(W):
        m = bits[w]
        while m != ZERO:
            c = w * 64 + lowest(m)
            m &= m - ONE
            if shuffle:
                pile[sc[SC_NPILE]] = c
            else:
                p = below(G, sc[SC_NPILE] + 1)
                for i in range(sc[SC_NPILE], p, -1):
                    pile[i] = pile[i - 1]
                pile[p] = c
            sc[SC_NPILE] += 1
    if shuffle:
        shuffle_pile(G)
    left = 0
    last = -1
    for s in range(sc[SC_PLAYERS]):
        if alive[s]:
            left += 1
            last = s
    if left == 1:
        finish(G, last, 0)


@njit(cache=True, inline="always")
def check_elimination(G, seat, opts):
    if G[G_ALIVE][seat] and G[G_GTOTAL][seat] >= R.GAUGE_LIMIT:
        eliminate(G, seat, opts)


@njit(cache=True, _nrt=False, inline="always")
def land_gift(G, seat, key, second, base, opts):
    """A new gauge entry (``second``: the bonus's other Useless Gift, -1), then the elimination check."""
    eseat, evalue, ecards, elen, gtotal = G[G_ESEAT], G[G_EVALUE], G[G_ECARDS], G[G_ELEN], G[G_GTOTAL]
    eseat[key] = seat
    add_bit(G[G_GKEYS], seat, key)
    evalue[key] = base
    ecards[key, 0] = key
    elen[key] = 1
    if second >= 0:
        ecards[key, 1] = second
        elen[key] = 2
    gtotal[seat] += base
    check_elimination(G, seat, opts)


@njit(cache=True, _nrt=False, inline="always")
def drop_entry(G, key):
    """Remove an entry from its gauge; its cards to the Septic Discard (gift(s), then Tricks)."""
    eseat, evalue, ecards, elen, gtotal = G[G_ESEAT], G[G_EVALUE], G[G_ECARDS], G[G_ELEN], G[G_GTOTAL]
    seat = eseat[key]
    gtotal[seat] -= evalue[key]
    clear_bit(G[G_GKEYS], seat, key)
    eseat[key] = -1
    for i in range(elen[key]):
        to_discard(G, ecards[key, i])


# ---------------------------------------------------------------- answering: ripostes and Cacarma


@njit(cache=True, _nrt=False)
def play_cacarma(G, seat, card, opts):
    """The three lowest Useless Gifts discarded as an answer."""
    ct, hands, masks, sc = G[G_TYPE], G[G_HANDS], G[G_MASKS], G[G_SC]
    used = 0
    for w in range(W):
        m = hands[seat, w] & masks[pol.MK_USELESS, w]
        while m != ZERO and used < R.CACARMA_USELESS:
            c = w * 64 + lowest(m)
            m &= m - ONE
            take_from_hand(G, seat, c)
            to_discard(G, c)
            used += 1
    sc[SC_CACARMAS] += 1
    sc[SC_COUNTS + E.USELESS] += R.CACARMA_USELESS
    if opts[OPT_CACARMA] == CACARMA_RETURN and card >= 0 and ct[card] == E.GIFT:
        return RETURNED
    return CANCELLED


@njit(cache=True, inline="always")
def set_pending(G, card, adds):
    G[G_SC][SC_PCARD] = card
    G[G_SC][SC_PADDS] = adds


@njit(cache=True, _nrt=False)
def respond(G, card, by, target, kind, adds, inevitable, opts):
    """The target's window to answer (ripostes, Cacarma; chains with the option)."""
    if inevitable:
        return EFFECTIVE
    hands, masks, sc, legal, chain = G[G_HANDS], G[G_MASKS], G[G_SC], G[G_LEGAL], G[G_CHAIN]
    nchain = 0
    responder, other = target, by
    mk = pol.MK_ANSWERS_DEFENSE if kind == E.DEFENSE else pol.MK_ANSWERS_ATTACK
    set_pending(G, card, adds)
    while True:
        nl = 0
        for w in range(W):
            m = hands[responder, w] & masks[mk, w]
            while m != ZERO:
                legal[nl] = S.A_PLAY + w * 64 + lowest(m)
                nl += 1
                m &= m - ONE
        if nchain == 0 and (kind == E.GIFT or kind == E.TRICK) and useless_count(G, responder) >= R.CACARMA_USELESS:
            legal[nl] = S.A_CACARMA
            nl += 1
        if nl == 0:
            break
        legal[nl] = S.A_PASS
        nl += 1
        a = ask(G, S.D_RESPOND, responder, nl)
        if a == S.A_PASS:
            break
        if a == S.A_CACARMA:
            return play_cacarma(G, responder, card, opts)
        riposte = a - S.A_PLAY
        take_from_hand(G, responder, riposte)
        sc[SC_COUNTS + E.DEFENSE] += 1
        sc[SC_RIPOSTES] += 1
        chain[nchain] = riposte
        nchain += 1
        if opts[OPT_RIPOSTE_CHAINS] == 0:
            break
        mk = pol.MK_ANSWERS_DEFENSE
        responder, other = other, responder
        set_pending(G, riposte, 0)
    for i in range(nchain):
        to_discard(G, chain[i])
    return EFFECTIVE if nchain % 2 == 0 else CANCELLED


# ---------------------------------------------------------------- cards played on your turn


@njit(cache=True, _nrt=False, inline="always")
def choose_target(G, seat, need):
    """D_TARGET among the other living seats (``need``: 0 any, 1 with a gift in the gauge, 2 with a
    card in hand)."""
    alive, handn, gtotal, sc, legal = G[G_ALIVE], G[G_HANDN], G[G_GTOTAL], G[G_SC], G[G_LEGAL]
    nl = 0
    for s in range(sc[SC_PLAYERS]):
        if s != seat and alive[s] and (need == 0 or (need == 1 and gtotal[s] > 0) or (need == 2 and handn[s] > 0)):
            legal[nl] = S.A_SEAT + s
            nl += 1
    target = ask(G, S.D_TARGET, seat, nl) - S.A_SEAT
    sc[SC_TARGET] = target
    return target


@njit(cache=True, _nrt=False)
def give_cursed_gift(G, seat, card, opts):
    cv, cf, sc, legal = G[G_VALUE], G[G_FLAGS], G[G_SC], G[G_LEGAL]
    sc[SC_GIFT_GIVEN] = 1
    target = choose_target(G, seat, 0)
    inevitable = (cf[card] & E.INEVITABLE) != 0
    if inevitable and opts[OPT_CACARMA_VS_INEVITABLE]:
        result = EFFECTIVE
        if useless_count(G, target) >= R.CACARMA_USELESS:
            set_pending(G, card, cv[card])
            legal[0] = S.A_CACARMA
            legal[1] = S.A_PASS
            if ask(G, S.D_RESPOND, target, 2) == S.A_CACARMA:
                result = play_cacarma(G, target, card, opts)
    else:
        result = respond(G, card, seat, target, E.GIFT, cv[card], inevitable, opts)
    if result == EFFECTIVE:
        land_gift(G, target, card, -1, cv[card], opts)
    elif result == RETURNED:
        land_gift(G, seat, card, -1, cv[card], opts)
    else:
        to_discard(G, card)


@njit(cache=True, _nrt=False)
def give_bonus_gift(G, seat, opts):
    hands, masks, sc = G[G_HANDS], G[G_MASKS], G[G_SC]
    first = -1
    second = -1
    for w in range(W):
        m = hands[seat, w] & masks[pol.MK_USELESS, w]
        while m != ZERO and second < 0:
            c = w * 64 + lowest(m)
            m &= m - ONE
            if first < 0:
                first = c
            else:
                second = c
    take_from_hand(G, seat, first)
    take_from_hand(G, seat, second)
    sc[SC_PLAYED] += R.BONUS_GIFT_USELESS
    sc[SC_COUNTS + E.USELESS] += R.BONUS_GIFT_USELESS
    sc[SC_BONUS] += 1
    if opts[OPT_BONUS_IS_THE_GIFT]:
        sc[SC_GIFT_GIVEN] = 1
    target = choose_target(G, seat, 0)
    land_gift(G, target, first, second, R.BONUS_GIFT_VALUE, opts)


@njit(cache=True, _nrt=False)
def raise_gift(G, seat, card, opts):
    cv, evalue, ecards, elen, gtotal, legal, gkeys = \
        G[G_VALUE], G[G_EVALUE], G[G_ECARDS], G[G_ELEN], G[G_GTOTAL], G[G_LEGAL], G[G_GKEYS]
    target = choose_target(G, seat, 1)
    nl = 0
    for w in range(W):
        m = gkeys[target, w]
        while m != ZERO:
            legal[nl] = S.A_PICK + w * 64 + lowest(m)
            nl += 1
            m &= m - ONE
    key = ask(G, S.D_GIFT, seat, nl) - S.A_PICK
    if respond(G, card, seat, target, E.TRICK, cv[card], False, opts) == EFFECTIVE:
        ecards[key, elen[key]] = card
        elen[key] += 1
        evalue[key] += cv[card]
        gtotal[target] += cv[card]
        check_elimination(G, target, opts)
    else:
        to_discard(G, card)


@njit(cache=True, _nrt=False)
def mugging(G, seat, card, opts):
    hands, handn, legal = G[G_HANDS], G[G_HANDN], G[G_LEGAL]
    target = choose_target(G, seat, 2)
    nl = 0
    for w in range(W):
        m = hands[seat, w]
        while m != ZERO:
            legal[nl] = S.A_PICK + w * 64 + lowest(m)
            nl += 1
            m &= m - ONE
    cost = ask(G, S.D_DISCARD, seat, nl) - S.A_PICK
    take_from_hand(G, seat, cost)
    pay_now = opts[OPT_MUGGING_COST] == COST_ALWAYS
    if pay_now:
        to_discard(G, cost)
    taken = -1
    if respond(G, card, seat, target, E.TRICK, 0, False, opts) == EFFECTIVE and handn[target] > 0:
        if opts[OPT_MUGGING_TAKE] == TAKE_BLIND:
            k = below(G, handn[target])
            for w in range(W):
                m = hands[target, w]
                c = count(m)
                if k < c:
                    taken = w * 64 + nth(m, k)
                    break
                k -= c
        else:
            nl = 0
            for w in range(W):
                m = hands[target, w]
                while m != ZERO:
                    legal[nl] = S.A_PICK + w * 64 + lowest(m)
                    nl += 1
                    m &= m - ONE
            taken = ask(G, S.D_TAKE, seat, nl) - S.A_PICK
        take_from_hand(G, target, taken)
    if not pay_now:
        if taken >= 0:
            to_discard(G, cost)
        else:
            put_in_hand(G, seat, cost)
    if taken >= 0:
        put_in_hand(G, seat, taken)
    to_discard(G, card)


@njit(cache=True, _nrt=False)
def day_of_mourning(G, seat, card):
    hands, masks = G[G_HANDS], G[G_MASKS]
    used = 0
    for w in range(W):
        m = hands[seat, w] & masks[pol.MK_USELESS, w]
        while m != ZERO:
            c = w * 64 + lowest(m)
            m &= m - ONE
            take_from_hand(G, seat, c)
            to_discard(G, c)
            used += 1
    for _ in range(used):
        draw_card(G, seat)
    to_discard(G, card)


@njit(cache=True, _nrt=False)
def remove_gift(G, seat, card):
    gkeys, legal = G[G_GKEYS], G[G_LEGAL]
    nl = 0
    for w in range(W):
        m = gkeys[seat, w]
        while m != ZERO:
            legal[nl] = S.A_PICK + w * 64 + lowest(m)
            nl += 1
            m &= m - ONE
    key = ask(G, S.D_REMOVE, seat, nl) - S.A_PICK
    drop_entry(G, key)
    to_discard(G, card)


@njit(cache=True, _nrt=False)
def antidote(G, seat, card):
    """Antidotes (up to 3, each one card of the turn) heal gauge entries of exactly their total."""
    cv, hands, masks, gkeys, evalue, sc, legal, heal, bits, extra, healed = \
        G[G_VALUE], G[G_HANDS], G[G_MASKS], G[G_GKEYS], G[G_EVALUE], G[G_SC], G[G_LEGAL], G[G_CHAIN], \
        G[G_BITS], G[G_EXTRA], G[G_HEALED]
    for w in range(W):
        bits[w] = ZERO
    heal[0] = card
    nheal = 1
    total = -cv[card]
    while True:
        reach = gauge_reach(G, seat, -1, bits)
        exact = (reach >> total) & 1
        left = R.CARDS_PER_TURN - sc[SC_PLAYED]
        nl = 0
        if left >= 1 and nheal < R.MAX_ANTIDOTES:
            budget = min(left - 1, R.MAX_ANTIDOTES - nheal - 1)
            for w in range(W):
                m = hands[seat, w] & masks[pol.MK_ANTIDOTE, w]
                while m != ZERO:
                    c = w * 64 + lowest(m)
                    m &= m - ONE
                    nextra = hand_antidotes(G, seat, c, extra)
                    if heal_feasible(reach, total - cv[c], extra, nextra, budget):
                        legal[nl] = S.A_PLAY + c
                        nl += 1
        if nl == 0:
            break
        if exact:
            legal[nl] = S.A_PASS
            nl += 1
        a = ask(G, S.D_ANTIDOTE, seat, nl)
        if a == S.A_PASS:
            break
        c = a - S.A_PLAY
        take_from_hand(G, seat, c)
        heal[nheal] = c
        nheal += 1
        total -= cv[c]
        sc[SC_PLAYED] += 1
        sc[SC_COUNTS + E.ANTIDOTE] += 1
    left_to_heal = total
    nhealed = 0
    while left_to_heal > 0:
        nl = 0
        for w in range(W):
            m = gkeys[seat, w] & ~bits[w]
            while m != ZERO:
                k = w * 64 + lowest(m)
                m &= m - ONE
                if evalue[k] <= left_to_heal and (gauge_reach(G, seat, k, bits) >> (left_to_heal - evalue[k])) & 1:
                    legal[nl] = S.A_PICK + k
                    nl += 1
        key = ask(G, S.D_HEAL, seat, nl) - S.A_PICK
        bits[key >> 6] |= ONE << uint64(key & 63)
        healed[nhealed] = key
        nhealed += 1
        left_to_heal -= evalue[key]
    for i in range(nhealed):
        drop_entry(G, healed[i])
    for i in range(nheal):
        to_discard(G, heal[i])


# ---------------------------------------------------------------- turns


@njit(cache=True, _nrt=False, inline="always")
def main_legal(G, seat, opts):
    """The cards ``seat`` may play now, the bonus, and A_END (ascending)."""
    ce, cv, hands, handn, gtotal, alive, sc, legal, extra, bits = \
        G[G_EFFECT], G[G_VALUE], G[G_HANDS], G[G_HANDN], G[G_GTOTAL], G[G_ALIVE], G[G_SC], G[G_LEGAL], \
        G[G_EXTRA], G[G_BITS]
    nl = 0
    left = R.CARDS_PER_TURN - sc[SC_PLAYED]
    useless = useless_count(G, seat)
    if left >= 1:
        others = False
        gauged = False
        holding = False
        for s in range(sc[SC_PLAYERS]):
            if s != seat and alive[s]:
                others = True
                gauged = gauged or gtotal[s] > 0
                holding = holding or handn[s] > 0
        reach = np.int64(-1)
        for w in range(W):
            m = hands[seat, w]
            while m != ZERO:
                c = w * 64 + lowest(m)
                m &= m - ONE
                e = ce[c]
                ok = False
                if e == E.E_GIFT or e == E.E_GOLDEN_GIFT:
                    ok = sc[SC_GIFT_GIVEN] == 0 and others
                elif e == E.E_ANTIDOTE:
                    if reach < 0:
                        for x in range(W):
                            bits[x] = ZERO
                        reach = gauge_reach(G, seat, -1, bits)
                    nextra = hand_antidotes(G, seat, c, extra)
                    ok = heal_feasible(reach, -cv[c], extra, nextra, min(left - 1, R.MAX_ANTIDOTES - 1))
                elif e == E.E_RAISE_GIFT:
                    ok = gauged
                elif e == E.E_MUGGING:
                    ok = holding and handn[seat] >= 2
                elif e == E.E_DAY_OF_MOURNING:
                    ok = useless > 0
                elif e == E.E_REMOVE_GIFT:
                    ok = gtotal[seat] > 0
                if ok:
                    legal[nl] = S.A_PLAY + c
                    nl += 1
    if left >= R.BONUS_GIFT_USELESS and useless >= R.BONUS_GIFT_USELESS and not (
            opts[OPT_BONUS_IS_THE_GIFT] and sc[SC_GIFT_GIVEN]):
        legal[nl] = S.A_BONUS
        nl += 1
    legal[nl] = S.A_END
    nl += 1
    return nl


@njit(cache=True, _nrt=False)
def take_turn(G, seat, opts):
    """Up to 3 cards, then A_END; False when the player was eliminated (or the game ended) in it."""
    ct, ce, alive, sc = G[G_TYPE], G[G_EFFECT], G[G_ALIVE], G[G_SC]
    while True:
        nl = main_legal(G, seat, opts)
        a = ask(G, S.D_MAIN, seat, nl)
        if a == S.A_END:
            return True
        if a == S.A_BONUS:
            give_bonus_gift(G, seat, opts)
        else:
            card = a - S.A_PLAY
            take_from_hand(G, seat, card)
            sc[SC_PLAYED] += 1
            sc[SC_COUNTS + ct[card]] += 1
            e = ce[card]
            if e == E.E_GIFT or e == E.E_GOLDEN_GIFT:
                give_cursed_gift(G, seat, card, opts)
            elif e == E.E_ANTIDOTE:
                antidote(G, seat, card)
            elif e == E.E_RAISE_GIFT:
                raise_gift(G, seat, card, opts)
            elif e == E.E_MUGGING:
                mugging(G, seat, card, opts)
            elif e == E.E_DAY_OF_MOURNING:
                day_of_mourning(G, seat, card)
            elif e == E.E_REMOVE_GIFT:
                remove_gift(G, seat, card)
        sc[SC_PCARD] = -1
        sc[SC_PADDS] = 0
        sc[SC_TARGET] = -1
        if sc[SC_OVER] or not alive[seat]:
            return False


@njit(cache=True, _nrt=False)
def play_game(G, seed, index, players, opts, fs, ck):
    """Deal game ``index`` of run ``seed`` and play it to its end in the state ``G`` (``fs``: the focus
    seat, whose dealt kinds ``ck`` go to SC_DEALT)."""
    hands, handn, pile, eseat, gtotal, alive, sc, streams, gkeys = \
        G[G_HANDS], G[G_HANDN], G[G_PILE], G[G_ESEAT], G[G_GTOTAL], G[G_ALIVE], G[G_SC], G[G_STREAMS], G[G_GKEYS]
    n = pile.shape[0]
    for i in range(N_SC):
        sc[i] = 0
    sc[SC_WINNER] = -1
    sc[SC_TARGET] = -1
    sc[SC_PCARD] = -1
    sc[SC_PLAYERS] = players
    for row in range(1 + players):
        s = seed_tuple(seed, index, row)
        for w in range(4):
            streams[row, w] = s[w]
    for c in range(n):
        eseat[c] = -1
        pile[c] = c
    for s in range(players):
        handn[s] = 0
        gtotal[s] = 0
        alive[s] = 1
        for w in range(W):
            hands[s, w] = ZERO
            gkeys[s, w] = ZERO
    sc[SC_NPILE] = n
    shuffle_pile(G)
    for _ in range(R.HAND_AT_SETUP):
        for s in range(players):
            sc[SC_NPILE] -= 1
            put_in_hand(G, s, pile[sc[SC_NPILE]])
    dealt = np.int64(0)
    for w in range(W):
        m = hands[fs, w]
        while m != ZERO:
            dealt |= np.int64(1) << ck[w * 64 + lowest(m)]
            m &= m - ONE
    sc[SC_DEALT] = dealt
    current = 0
    while True:
        if sc[SC_TURN] >= opts[OPT_MAX_TURNS]:
            finish(G, -1, 1)
            return
        sc[SC_TURN] += 1
        sc[SC_PLAYED] = 0
        sc[SC_GIFT_GIVEN] = 0
        seat = current
        ended = take_turn(G, seat, opts)
        if sc[SC_OVER]:
            return
        if ended and alive[seat]:
            draw_card(G, seat)
        s = (seat + 1) % players
        while not alive[s]:
            s = (s + 1) % players
        current = s


@njit(cache=True)
def play_chunk(seed, start, count, players, opts, ct, cv, cf, ce, ck, masks, focus_id, focus_params, field_id,
               field_params, focus_seat, out_i32, out_i16, out_focus, out_dealt):
    """Play games start .. start+count-1; fill ``out_i32`` (count x 4: winner, turns, elimination order,
    unfinished), ``out_i16`` (count x 8: played by type, ripostes, cacarmas, bonus gifts), ``out_focus``
    and ``out_dealt`` (the kinds ``ck`` dealt to the focus seat, a bit mask). Returns (game offset, error
    code) of the first illegal decision, else (0, 0)."""
    n = ct.shape[0]
    hands = np.zeros((R.MAX_PLAYERS, W), np.uint64)
    handn = np.zeros(R.MAX_PLAYERS, np.int64)
    pile = np.empty(n, np.int64)
    disc = np.empty(n, np.int64)
    eseat = np.empty(n, np.int64)
    evalue = np.zeros(n, np.int64)
    ecards = np.zeros((n, MAX_ENTRY_CARDS), np.int64)
    elen = np.zeros(n, np.int64)
    gtotal = np.zeros(R.MAX_PLAYERS, np.int64)
    alive = np.zeros(R.MAX_PLAYERS, np.int64)
    sc = np.zeros(N_SC, np.int64)
    streams = np.zeros((1 + R.MAX_PLAYERS, 4), np.uint64)
    gkeys = np.zeros((R.MAX_PLAYERS, W), np.uint64)
    legal = np.zeros(S.N_ACTIONS, np.int64)
    pids = np.zeros(R.MAX_PLAYERS, np.int64)
    params = np.zeros((R.MAX_PLAYERS, pol.N_PARAMS), np.float64)
    chain = np.zeros(n, np.int64)
    extra = np.zeros(n, np.int64)
    healed = np.zeros(n, np.int64)
    bits = np.zeros(W, np.uint64)
    G = (ct, cv, cf, ce, hands, handn, pile, disc, eseat, evalue, ecards, elen, gtotal, alive, sc, streams, gkeys,
         legal, pids, params, chain, extra, healed, masks, bits)
    for g in range(count):
        index = start + g
        fs = index % players if focus_seat < 0 else focus_seat
        for s in range(players):
            if s == fs:
                pids[s] = focus_id
                params[s, :] = focus_params
            else:
                pids[s] = field_id
                params[s, :] = field_params
        play_game(G, seed, index, players, opts, fs, ck)
        if sc[SC_ERR] != NO_ERROR:
            return g, sc[SC_ERR]
        out_i32[g, 0] = sc[SC_WINNER]
        out_i32[g, 1] = sc[SC_TURN]
        out_i32[g, 2] = sc[SC_ELIM]
        out_i32[g, 3] = sc[SC_UNFINISHED]
        for k in range(5):
            out_i16[g, k] = sc[SC_COUNTS + k]
        out_i16[g, 5] = sc[SC_RIPOSTES]
        out_i16[g, 6] = sc[SC_CACARMAS]
        out_i16[g, 7] = sc[SC_BONUS]
        out_focus[g] = fs
        out_dealt[g] = sc[SC_DEALT]
    return 0, NO_ERROR


def card_masks(arr: dict[str, np.ndarray]) -> np.ndarray:
    """The (N_MASKS, W) uint64 card sets by role (policies.MK_*) of a deck's arrays."""
    masks = np.zeros((pol.N_MASKS, W), np.uint64)
    riposte = (arr["flags"] & E.RIPOSTE) != 0
    members = {pol.MK_USELESS: arr["type"] == E.USELESS, pol.MK_ANTIDOTE: arr["effect"] == E.E_ANTIDOTE,
               pol.MK_RIPOSTE: riposte, pol.MK_ANSWERS_ATTACK: riposte & (arr["effect"] == E.E_RIPOSTE_CANCEL),
               pol.MK_ANSWERS_DEFENSE: riposte & (arr["effect"] == E.E_CANCEL_DEFENSE), pol.MK_GIFT: arr["type"] == E.GIFT}
    for row, member in members.items():
        for c in np.flatnonzero(member):
            masks[row, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    return masks


# ---------------------------------------------------------------- Python entry


def policy_id(policy) -> int:
    """A policy name or kernel id -> its kernel id."""
    if isinstance(policy, str):
        if policy not in P.POLICIES:
            raise UnknownPolicyError(f"unknown gifts policy {policy!r}; valid policies: {', '.join(P.POLICIES)}")
        return P.POLICIES[policy].policy_id
    return int(policy)


def run_chunk(seed: int, start: int, count: int, players: int, options, focus_id, focus_params, field_id,
              field_params, focus_seat: int = -1, *, deck: Deck | None = None) -> dict[str, np.ndarray]:
    """Play games ``start .. start+count-1`` of run ``seed``: the focus seat plays ``focus_id``, every
    other seat ``field_id`` (ids of ``policy_specs`` or names; parameters as float64 vectors in the
    spec's order, None for the defaults). ``focus_seat`` -1 rotates (game i: seat i % players).
    ``options``: a RuleOptions (its ``deck`` loaded) or the int array of ``option_array`` (then ``deck``,
    default the default deck). Returns the outcome arrays by column (``rules.OUTCOME_DTYPES``) plus
    ``focus_seat`` (int8). An illegal decision raises a RunError naming the game, decision and action."""
    if isinstance(players, bool) or not R.MIN_PLAYERS <= int(players) <= R.MAX_PLAYERS:
        raise PlayersError(f"gifts is played by {R.MIN_PLAYERS}-{R.MAX_PLAYERS} players, got {players!r}")
    players = int(players)
    if options is None or isinstance(options, R.RuleOptions):
        if deck is None:
            from cursedsim.games.gifts.reference import deck_for
            deck = deck_for(options)
        opts = option_array(options)
    else:
        opts = np.asarray(options, np.int64)
        deck = load_deck() if deck is None else deck
    if deck.size < R.HAND_AT_SETUP * players:
        raise PlayersError(f"deck {deck.name!r} holds {deck.size} cards, too few to deal "
                           f"{R.HAND_AT_SETUP} to {players} players")
    if not -1 <= int(focus_seat) < players:
        raise OptionError(f"focus_seat must be -1 (rotate) or a seat 0-{players - 1}, got {focus_seat!r}")
    ids = [policy_id(focus_id), policy_id(field_id)]
    vectors = []
    for pid, params in zip(ids, (focus_params, field_params)):
        spec = next(s for s in P.POLICIES.values() if s.policy_id == pid)
        vectors.append(pol.params_array(spec.param_vector() if params is None else params))
    arr = deck.arrays()
    out_i32 = np.zeros((count, 4), np.int64)
    out_i16 = np.zeros((count, 8), np.int64)
    out_focus = np.zeros(count, np.int64)
    out_dealt = np.zeros(count, np.int64)
    game, err = play_chunk(np.uint64(seed), np.int64(start), np.int64(count), np.int64(players), opts,
                           arr["type"], arr["value"], arr["flags"], arr["effect"], arr["kind"], card_masks(arr),
                           np.int64(ids[0]), vectors[0], np.int64(ids[1]), vectors[1], np.int64(focus_seat),
                           out_i32, out_i16, out_focus, out_dealt)
    if err != NO_ERROR:
        kind, action = divmod(int(err) - 1, S.N_ACTIONS)
        raise RunError(f"game {start + int(game)} of seed {seed}: a policy chose {S.action_name(action)!r} "
                       f"(action {action}), which is not legal at decision {S.DECISION_NAMES[kind]!r}")
    cols = {"winner_seat": out_i32[:, 0], "turns": out_i32[:, 1], "elimination_order": out_i32[:, 2],
            "unfinished": out_i32[:, 3]}
    names = [f"played_{k}" for k in R.KIND_NAMES] + ["ripostes", "cacarmas", "bonus_gifts"]
    cols.update({name: out_i16[:, k] for k, name in enumerate(names)})
    cols["focus_dealt"] = out_dealt
    out = {column: cols[column].astype(dtype) for column, dtype in R.OUTCOME_DTYPES.items()}
    out["focus_seat"] = out_focus.astype(np.int8)
    return out
