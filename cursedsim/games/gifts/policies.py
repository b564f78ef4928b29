"""The numba twins of the Cursed Gifts reference policies (``reference_policies.py``): ``random``,
``leader``, ``weakest_link``, ``spread``, ``defensive``, with the same float64 parameter vectors (in the
PolicySpec's order: heal_at, riposte_min, heal_first, keep) and the same decision at every decision
point. The decision rule is the ``Targeting`` docstring of ``reference_policies``; only ``random`` draws,
``legal[below(len(legal))]`` from its seat's stream.

A policy reads the seat's view from the kernel's state ``G = (cd, st, bits, params)`` (layout in
``state.py``): its own hand (bit set row ``B_HAND + seat``), every gauge's entry values and totals, hand
sizes, the card being answered (``ST_PCARD``, ``ST_PADDS``) and the target chosen; never another hand's
cards nor the pile's order (a D_TAKE's legal list names the victim's cards: the mugger looks). The legal
actions of a decision are the list ``st[ST_LEGAL:ST_LEGAL + nl]``, ascending; the main decision's are the
card set row ``B_PLAYABLE`` plus ``ST_BONUS_OK`` and A_END (``decide_main``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from cursedsim import rng
from cursedsim.bits import ONE, ZERO, count, lowest
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import policy_specs as P
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S

W = S.W

#: Length of every parameter vector in the kernel (``random`` takes none: padded with zeros).
N_PARAMS = 4
P_HEAL_AT, P_RIPOSTE_MIN, P_HEAL_FIRST, P_KEEP = range(N_PARAMS)
NONE = -1


def params_array(params) -> np.ndarray:
    """A parameter vector padded to ``N_PARAMS`` float64 values."""
    out = np.zeros(N_PARAMS, np.float64)
    values = np.asarray(params if params is not None else (), np.float64).ravel()
    out[:len(values)] = values
    return out


@njit(cache=True, inline="always")
def below(bits, stream, n):
    """A uniform integer in [0, n) from random stream ``stream`` (row B_STREAM + stream of ``bits``)."""
    row = S.B_STREAM + stream
    s = (bits[row, 0], bits[row, 1], bits[row, 2], bits[row, 3])
    v, s = rng.below_t(s, n)
    bits[row, 0] = s[0]
    bits[row, 1] = s[1]
    bits[row, 2] = s[2]
    bits[row, 3] = s[3]
    return v


@njit(cache=True, inline="always")
def count_in(bits, row, mk):
    """How many cards of mask ``mk`` the set ``row`` holds."""
    n = 0
    for w in range(W):
        n += count(bits[row, w] & bits[S.B_MASK + mk, w])
    return n


@njit(cache=True, inline="always")
def biggest_in(bits, row, mk, cd):
    """The card of set ``row`` in mask ``mk`` of largest |value|, ties lowest id (-1)."""
    best = NONE
    best_v = -1
    for w in range(W):
        m = bits[row, w] & bits[S.B_MASK + mk, w]
        while m != ZERO:
            c = w * 64 + lowest(m)
            m &= m - ONE
            v = abs(cd[S.CD_VALUE, c])
            if v > best_v:
                best, best_v = c, v
    return best


@njit(cache=True, inline="always")
def lowest_in(bits, row, mk):
    """The lowest card of set ``row`` in mask ``mk`` (-1)."""
    for w in range(W):
        m = bits[row, w] & bits[S.B_MASK + mk, w]
        if m != ZERO:
            return w * 64 + lowest(m)
    return NONE


@njit(cache=True, inline="always")
def reads_antidotes(seat, G):
    """Whether ``decide_main`` may read the antidotes of the playable set: ``random`` lists the whole set,
    the others look at antidotes only in ``heal_step``, from a gauge of ``heal_at`` (the same test). When
    it says no, the kernel leaves the antidotes' heal check out of the set (``kernel.main_playable``)."""
    st, params = G[1], G[3]
    return st[S.ST_PID + seat] == P.RANDOM or not st[S.ST_GTOTAL + seat] < params[seat, P_HEAL_AT]


@njit(cache=True, inline="always")
def heal_step(seat, G):
    cd, st, bits, params = G
    if st[S.ST_GTOTAL + seat] < params[seat, P_HEAL_AT]:   # reads_antidotes: the same test
        return NONE
    c = biggest_in(bits, S.B_PLAYABLE, S.MK_ANTIDOTE, cd)
    if c >= 0:
        return S.A_PLAY + c
    c = lowest_in(bits, S.B_PLAYABLE, S.MK_REMOVE)
    return S.A_PLAY + c if c >= 0 else NONE


@njit(cache=True, inline="always")
def attack_step(seat, G):
    cd, st, bits, params = G
    c = biggest_in(bits, S.B_PLAYABLE, S.MK_GIFT, cd)
    if c >= 0:
        return S.A_PLAY + c
    if st[S.ST_BONUS_OK]:
        return S.A_BONUS
    c = biggest_in(bits, S.B_PLAYABLE, S.MK_RAISE, cd)
    if c >= 0:
        return S.A_PLAY + c
    c = lowest_in(bits, S.B_PLAYABLE, S.MK_MUGGING)
    if c >= 0 and count_in(bits, S.B_HAND + seat, S.MK_USELESS) > 0:
        return S.A_PLAY + c
    c = lowest_in(bits, S.B_PLAYABLE, S.MK_MOURNING)
    return S.A_PLAY + c if c >= 0 else NONE


@njit(cache=True, _nrt=False, inline="always")
def decide_main(seat, G):
    """The main decision (D_MAIN) of the seat's policy: A_PLAY + a card of the playable set, A_BONUS when
    ``ST_BONUS_OK``, or A_END. ``random`` lists them ascending (into ``ST_LEGAL``) and draws one."""
    cd, st, bits, params = G
    pid = st[S.ST_PID + seat]
    if pid == P.RANDOM:
        nl = 0
        for w in range(W):
            m = bits[S.B_PLAYABLE, w]
            while m != ZERO:
                st[S.ST_LEGAL + nl] = S.A_PLAY + w * 64 + lowest(m)
                nl += 1
                m &= m - ONE
        if st[S.ST_BONUS_OK]:
            st[S.ST_LEGAL + nl] = S.A_BONUS
            nl += 1
        st[S.ST_LEGAL + nl] = S.A_END
        nl += 1
        return st[S.ST_LEGAL + below(bits, S.STREAM_POLICY + seat, nl)]
    heal_first = params[seat, P_HEAL_FIRST] >= 0.5
    for phase in range(2):   # heal then attack, or the reverse: each step inlined once, not twice
        a = heal_step(seat, G) if (phase == 0) == heal_first else attack_step(seat, G)
        if a != NONE:
            return a
    return S.A_END


@njit(cache=True, inline="always")
def target_score(pid, seat, s, st):
    """The target score of seat ``s`` (lower is better) with the clockwise rank as the last key."""
    rank = (s - seat - 1) % st[S.ST_PLAYERS]
    total = st[S.ST_GTOTAL + s]
    if pid == P.WEAKEST_LINK:
        return st[S.ST_HANDN + s] * 1_000_000 - total * 1000 + rank
    if pid == P.SPREAD:
        return total * 1000 + rank
    return -total * 1000 + rank


@njit(cache=True, inline="always")
def decide_target(seat, nl, G):
    """D_TARGET (also inlined where the kernel asks it): the best legal seat by ``target_score``."""
    cd, st, bits, params = G
    pid = st[S.ST_PID + seat]
    L = S.ST_LEGAL
    if pid == P.RANDOM:
        return st[L + below(bits, S.STREAM_POLICY + seat, nl)]
    best = st[L]
    best_k = target_score(pid, seat, best - S.A_SEAT, st)
    for i in range(1, nl):
        k = target_score(pid, seat, st[L + i] - S.A_SEAT, st)
        if k < best_k:
            best, best_k = st[L + i], k
    return best


@njit(cache=True, inline="always")
def take_key(c, cd):
    """``reference_policies.take_rank`` as one integer (lower first): class, then -|value|, then id."""
    if (cd[S.CD_FLAGS, c] & E.RIPOSTE) != 0:
        rank = 0
    elif cd[S.CD_TYPE, c] == E.ANTIDOTE:
        rank = 1
    elif cd[S.CD_TYPE, c] == E.GIFT:
        rank = 2
    elif cd[S.CD_TYPE, c] == E.USELESS:
        rank = 4
    else:
        rank = 3
    return (rank * 1024 + (999 - abs(cd[S.CD_VALUE, c]))) * 1024 + c


@njit(cache=True, _nrt=False)
def decide(kind, seat, nl, G):
    """The action of the seat's policy at a decision of ``kind`` among ``st[ST_LEGAL:ST_LEGAL + nl]``."""
    cd, st, bits, params = G
    pid = st[S.ST_PID + seat]
    L = S.ST_LEGAL
    if kind == S.D_TARGET:
        return decide_target(seat, nl, G)
    if pid == P.RANDOM:
        return st[L + below(bits, S.STREAM_POLICY + seat, nl)]
    if kind == S.D_GIFT or kind == S.D_HEAL or kind == S.D_REMOVE:
        best = st[L]
        best_v = st[S.ST_EVALUE + best - S.A_PICK]
        for i in range(1, nl):
            v = st[S.ST_EVALUE + st[L + i] - S.A_PICK]
            if v > best_v:
                best, best_v = st[L + i], v
        return best
    if kind == S.D_DISCARD:
        for i in range(nl):
            if cd[S.CD_TYPE, st[L + i] - S.A_PICK] == E.USELESS:
                return st[L + i]
        for i in range(nl):
            c = st[L + i] - S.A_PICK
            if cd[S.CD_TYPE, c] != E.ANTIDOTE and (cd[S.CD_FLAGS, c] & E.RIPOSTE) == 0:
                return st[L + i]
        return st[L]
    if kind == S.D_ANTIDOTE:
        if st[L + nl - 1] == S.A_PASS:
            return S.A_PASS
        best = NONE
        best_v = -1
        for i in range(nl):
            c = st[L + i] - S.A_PLAY
            v = abs(cd[S.CD_VALUE, c])
            if v > best_v:
                best, best_v = c, v
        return S.A_PLAY + best
    if kind == S.D_RESPOND:
        first_riposte = NONE
        has_cacarma = False
        for i in range(nl):
            a = st[L + i]
            if a < S.A_SEAT and first_riposte == NONE:
                first_riposte = a
            if a == S.A_CACARMA:
                has_cacarma = True
        pcard = st[S.ST_PCARD]
        if pcard >= 0 and cd[S.CD_TYPE, pcard] == E.DEFENSE:
            return first_riposte if first_riposte != NONE else S.A_PASS
        padds = st[S.ST_PADDS]
        lethal = st[S.ST_GTOTAL + seat] + padds >= R.GAUGE_LIMIT
        if not lethal and padds < params[seat, P_RIPOSTE_MIN]:
            return S.A_PASS
        if has_cacarma:
            return S.A_CACARMA
        held = count_in(bits, S.B_HAND + seat, S.MK_RIPOSTE)
        if first_riposte != NONE and (lethal or held > params[seat, P_KEEP]):
            return first_riposte
        return S.A_PASS
    if kind == S.D_TAKE:
        best = st[L]
        best_k = take_key(best - S.A_PICK, cd)
        for i in range(1, nl):
            k = take_key(st[L + i] - S.A_PICK, cd)
            if k < best_k:
                best, best_k = st[L + i], k
        return best
    return st[L]
