"""The numba twins of the Cursed Gifts reference policies (``reference_policies.py``): ``random``,
``leader``, ``weakest_link``, ``spread``, ``defensive``, with the same float64 parameter vectors (in the
PolicySpec's order: heal_at, riposte_min, heal_first, keep) and the same decision at every decision
point. The decision rule is the ``Targeting`` docstring of ``reference_policies``; only ``random`` draws,
``legal[below(len(legal))]`` from its seat's stream (row 1 + seat of the kernel's stream array).

``decide`` reads the seat's view as the kernel's arrays: its own hand (bit set ``hands[seat]``), every
gauge's entry values and totals, hand sizes, the card being answered (``pcard``, ``padds``) and the
target chosen; never another hand's cards nor the pile's order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cursedsim import rng
from cursedsim.bits import count
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import policy_specs as P
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S

#: Words of a card bit set (MAX_COPIES = 250 cards) and the rows of the kernel's mask array.
W = 4
MK_USELESS = 0
MK_ANTIDOTE = 1
MK_RIPOSTE = 2      # any card with the RIPOSTE flag
MK_ANSWERS_ATTACK = 3   # RIPOSTE cards that answer a gift or a Trick (riposte_cancel)
MK_ANSWERS_DEFENSE = 4  # RIPOSTE cards that answer a Defense (cancel_defense)
MK_GIFT = 5
N_MASKS = 6

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
def below(streams, row, n):
    """A uniform integer in [0, n) from stream ``row`` of the (rows, 4) uint64 state array."""
    s = (streams[row, 0], streams[row, 1], streams[row, 2], streams[row, 3])
    v, s = rng.below_t(s, n)
    streams[row, 0] = s[0]
    streams[row, 1] = s[1]
    streams[row, 2] = s[2]
    streams[row, 3] = s[3]
    return v


@njit(cache=True, inline="always")
def count_in(hands, seat, masks, mk):
    """How many cards of mask ``mk`` the seat holds."""
    n = 0
    for w in range(W):
        n += count(hands[seat, w] & masks[mk, w])
    return n


@njit(cache=True, inline="always")
def is_play(a):
    return S.A_PLAY <= a < S.A_SEAT


@njit(cache=True, _nrt=False)
def first_play(legal, nl, ce, effect):
    """The lowest legal A_PLAY card of ``effect`` (-1)."""
    for i in range(nl):
        a = legal[i]
        if is_play(a) and ce[a - S.A_PLAY] == effect:
            return a - S.A_PLAY
    return NONE


@njit(cache=True, _nrt=False)
def biggest_play(legal, nl, ce, cv, effect, effect2):
    """The legal A_PLAY card of ``effect`` (or ``effect2``) of largest |value|, ties lowest id (-1)."""
    best = NONE
    best_v = -1
    for i in range(nl):
        a = legal[i]
        if is_play(a):
            c = a - S.A_PLAY
            if ce[c] == effect or ce[c] == effect2:
                v = abs(cv[c])
                if v > best_v:
                    best, best_v = c, v
    return best


@njit(cache=True, _nrt=False)
def heal_step(seat, params, legal, nl, ce, cv, gtotal):
    if gtotal[seat] < params[P_HEAL_AT]:
        return NONE
    c = biggest_play(legal, nl, ce, cv, E.E_ANTIDOTE, E.E_ANTIDOTE)
    if c >= 0:
        return S.A_PLAY + c
    c = first_play(legal, nl, ce, E.E_REMOVE_GIFT)
    return S.A_PLAY + c if c >= 0 else NONE


@njit(cache=True, _nrt=False)
def attack_step(seat, legal, nl, ct, ce, cv, hands, masks):
    c = biggest_play(legal, nl, ce, cv, E.E_GIFT, E.E_GOLDEN_GIFT)
    if c >= 0:
        return S.A_PLAY + c
    for i in range(nl):
        if legal[i] == S.A_BONUS:
            return S.A_BONUS
    c = biggest_play(legal, nl, ce, cv, E.E_RAISE_GIFT, E.E_RAISE_GIFT)
    if c >= 0:
        return S.A_PLAY + c
    c = first_play(legal, nl, ce, E.E_MUGGING)
    if c >= 0 and count_in(hands, seat, masks, MK_USELESS) > 0:
        return S.A_PLAY + c
    c = first_play(legal, nl, ce, E.E_DAY_OF_MOURNING)
    return S.A_PLAY + c if c >= 0 else NONE


@njit(cache=True, _nrt=False)
def target_score(pid, seat, s, players, handn, gtotal):
    """The target score of seat ``s`` (lower is better) with the clockwise rank as the last key."""
    rank = (s - seat - 1) % players
    total = gtotal[s]
    if pid == P.WEAKEST_LINK:
        return handn[s] * 1_000_000 - total * 1000 + rank
    if pid == P.SPREAD:
        return total * 1000 + rank
    return -total * 1000 + rank


@njit(cache=True, inline="always")
def take_key(c, ct, cv, cf):
    """``reference_policies.take_rank`` as one integer (lower first): class, then -|value|, then id."""
    if (cf[c] & E.RIPOSTE) != 0:
        rank = 0
    elif ct[c] == E.ANTIDOTE:
        rank = 1
    elif ct[c] == E.GIFT:
        rank = 2
    elif ct[c] == E.USELESS:
        rank = 4
    else:
        rank = 3
    return (rank * 1024 + (999 - abs(cv[c]))) * 1024 + c


@njit(cache=True, _nrt=False)
def decide(pid, params, kind, seat, players, legal, nl, streams, ct, cv, cf, ce, hands, masks, handn, gtotal, evalue,
           target, pcard, padds):
    """The action of policy ``pid`` (policy_specs ids) for ``seat`` at a decision of ``kind``."""
    if pid == P.RANDOM:
        return legal[below(streams, S.STREAM_POLICY + seat, nl)]
    if kind == S.D_MAIN:
        heal_first = params[P_HEAL_FIRST] >= 0.5
        a = heal_step(seat, params, legal, nl, ce, cv, gtotal) if heal_first else \
            attack_step(seat, legal, nl, ct, ce, cv, hands, masks)
        if a != NONE:
            return a
        a = attack_step(seat, legal, nl, ct, ce, cv, hands, masks) if heal_first else \
            heal_step(seat, params, legal, nl, ce, cv, gtotal)
        return a if a != NONE else S.A_END
    if kind == S.D_TARGET:
        best = legal[0]
        best_k = target_score(pid, seat, legal[0] - S.A_SEAT, players, handn, gtotal)
        for i in range(1, nl):
            k = target_score(pid, seat, legal[i] - S.A_SEAT, players, handn, gtotal)
            if k < best_k:
                best, best_k = legal[i], k
        return best
    if kind == S.D_GIFT or kind == S.D_HEAL or kind == S.D_REMOVE:
        best = legal[0]
        best_v = evalue[legal[0] - S.A_PICK]
        for i in range(1, nl):
            v = evalue[legal[i] - S.A_PICK]
            if v > best_v:
                best, best_v = legal[i], v
        return best
    if kind == S.D_DISCARD:
        for i in range(nl):
            if ct[legal[i] - S.A_PICK] == E.USELESS:
                return legal[i]
        for i in range(nl):
            c = legal[i] - S.A_PICK
            if ct[c] != E.ANTIDOTE and (cf[c] & E.RIPOSTE) == 0:
                return legal[i]
        return legal[0]
    if kind == S.D_ANTIDOTE:
        if legal[nl - 1] == S.A_PASS:
            return S.A_PASS
        return S.A_PLAY + biggest_play(legal, nl, ce, cv, E.E_ANTIDOTE, E.E_ANTIDOTE)
    if kind == S.D_RESPOND:
        first_riposte = NONE
        has_cacarma = False
        for i in range(nl):
            if legal[i] < S.A_SEAT and first_riposte == NONE:
                first_riposte = legal[i]
            if legal[i] == S.A_CACARMA:
                has_cacarma = True
        if pcard >= 0 and ct[pcard] == E.DEFENSE:
            return first_riposte if first_riposte != NONE else S.A_PASS
        lethal = gtotal[seat] + padds >= R.GAUGE_LIMIT
        if not lethal and padds < params[P_RIPOSTE_MIN]:
            return S.A_PASS
        if has_cacarma:
            return S.A_CACARMA
        held = count_in(hands, seat, masks, MK_RIPOSTE)
        if first_riposte != NONE and (lethal or held > params[P_KEEP]):
            return first_riposte
        return S.A_PASS
    if kind == S.D_TAKE:
        best = legal[0]
        best_k = take_key(legal[0] - S.A_PICK, ct, cv, cf)
        for i in range(1, nl):
            k = take_key(legal[i] - S.A_PICK, ct, cv, cf)
            if k < best_k:
                best, best_k = legal[i], k
        return best
    return legal[0]
