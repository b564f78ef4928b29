"""Cursed Gifts ``rollout``: flat Monte-Carlo search at every decision of a seat, compiled, over the
resumable kernel (``kernel.advance``).

A seat playing ``rollout`` is searched at two kinds of decision (docs/rules/gifts.md, "rollout: gifts"):

- its **main decisions** (which card to play next, with the seat it goes to, or end the turn): the
  candidates are the base policy's own choice (card and target) first, then ending the turn, then every
  playable card in deck order (one of each set of identical copies), with each seat it may go to when it
  needs one (a gift or the bonus gift: any other living seat; a raise: one with a gift in the gauge;
  Mugging: one with cards in hand), and the bonus gift to each seat;
- its **first answer** to a card played on it (riposte, Cacarma or pass): the base policy's answer first,
  then pass, Cacarma (when legal) and one riposte card of each kind it holds.

The smaller decisions inside a card's step (which gift a raise sits on, which antidotes and entries a
heal takes, Mugging's cost and the card taken, a riposte chain's later answers) are its base policy's.
For each candidate ``n`` playouts run from the decision to the end of the game, every seat played by its
own policy (a searching seat by its base policy: the decider's model of the others is how they play,
never what they hold); the candidate with the most playouts won by the decider is played (ties: the
earlier candidate, so the base policy's choice).

What a playout may know: the decider's own hand and what is public (every gauge, hand sizes, the Septic
Discard, the pile's size). Each playout deals the other living seats new hands of their sizes from the
cards the decider cannot see (their hands and the draw pile, as one set), lays the rest out as the draw
pile, shuffles it, and draws every later random number from streams of its own keyed by (seed, game,
decision, playout): the same for every candidate of a decision (common random numbers), unrelated to the
game's own streams. What the decider could remember beyond that (the card Mugging took from it, the hand
it saw when it chose what to take) is not used: a forgetful reading, never a clairvoyant one.

The real game's searching seats have their base policy's id in the kernel, so every decision the search
does not take is the base policy's, drawn from the game's streams exactly as the base policy would: with
``cap=1`` or ``n=0`` a rollout game is the base policy's game.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from cursedsim.bits import ONE, ZERO, count, lowest, nth
from cursedsim.errors import UnknownPolicyError
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import kernel as K
from cursedsim.games.gifts import policies as pol
from cursedsim.games.gifts import policy_specs as P
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S
from cursedsim.rng import below_t, next_t, rollout_stream, seed_tuple

W = S.W
#: Candidates per decision, at most (the ``cap`` parameter may lower it).
MAX_CANDIDATES = 32
#: Playouts per candidate, at most.
MAX_N = (1 << 22) - 1

# ---- parameters (PolicySpec order in policy_specs.py)
P_N = 0
P_BASE = 1
P_CAP = 2

#: Sub-streams of a playout (``rng.rollout_stream``): the deck (pile shuffles, blind takes), the seats'
#: policies (each seat's stream seeded from it), the new hands.
SUB_DECK = 0
SUB_POLICY = 1
SUB_DEAL = 2

#: Targets of a card (``kernel.choose_target``'s ``need``): none, any other living seat, one with a gift
#: in the gauge, one with cards in hand.
NO_TARGET = -1


@njit(cache=True)
def new_workspace():
    """The arrays one chunk of rollout games reuses: a playout's template and play copies of ``st`` and
    ``bits``, the candidates (action, target) and their wins."""
    tmpl = (np.zeros(S.N_ST, np.int64), np.zeros((S.N_BROWS, W), np.uint64))
    play = (np.zeros(S.N_ST, np.int64), np.zeros((S.N_BROWS, W), np.uint64))
    cand_a = np.zeros(MAX_CANDIDATES, np.int64)
    cand_t = np.zeros(MAX_CANDIDATES, np.int64)
    wins = np.zeros(MAX_CANDIDATES, np.int64)
    return tmpl, play, cand_a, cand_t, wins


# ------------------------------------------------------------------ copying a game

@njit(cache=True, _nrt=False)
def copy_state(st, bits, to_st, to_bits, n):
    """Copy the game of ``st``/``bits`` (``n`` cards) into ``to_st``/``to_bits``: what the rules read
    (scalars, options, seats, pile, Septic Discard, gauge entries), not the scratch lists."""
    for i in range(S.ST_PILE):
        to_st[i] = st[i]
    for i in range(st[S.ST_NPILE]):
        to_st[S.ST_PILE + i] = st[S.ST_PILE + i]
    for i in range(st[S.ST_NDISC]):
        to_st[S.ST_DISC + i] = st[S.ST_DISC + i]
    for c in range(n):
        to_st[S.ST_ESEAT + c] = st[S.ST_ESEAT + c]
        to_st[S.ST_EVALUE + c] = st[S.ST_EVALUE + c]
        to_st[S.ST_ELEN + c] = st[S.ST_ELEN + c]
        if st[S.ST_ESEAT + c] >= 0:
            base = S.ST_ECARDS + c * S.MAX_ENTRY_CARDS
            for i in range(st[S.ST_ELEN + c]):
                to_st[base + i] = st[base + i]
    for r in range(S.N_BROWS):
        for w in range(W):
            to_bits[r, w] = bits[r, w]


@njit(cache=True, inline="always")
def set_stream(bits, row, s):
    bits[S.B_STREAM + row, 0] = s[0]
    bits[S.B_STREAM + row, 1] = s[1]
    bits[S.B_STREAM + row, 2] = s[2]
    bits[S.B_STREAM + row, 3] = s[3]


@njit(cache=True, _nrt=False)
def redraw_hidden(G, decider, rng):
    """What the decider cannot see, drawn anew: the other seats' hands (sizes kept) from the set of their
    cards and the draw pile, the rest laid out as the pile in card order (shuffled after by the caller).
    Returns the stream advanced."""
    st, bits = G[1], G[2]
    pool = (ZERO, ZERO, ZERO, ZERO)
    for s in range(st[S.ST_PLAYERS]):
        if s != decider:
            pool = (pool[0] | bits[S.B_HAND + s, 0], pool[1] | bits[S.B_HAND + s, 1],
                    pool[2] | bits[S.B_HAND + s, 2], pool[3] | bits[S.B_HAND + s, 3])
    p0, p1, p2, p3 = pool
    for i in range(st[S.ST_NPILE]):
        c = st[S.ST_PILE + i]
        b = ONE << uint64(c & 63)
        w = c >> 6
        if w == 0:
            p0 |= b
        elif w == 1:
            p1 |= b
        elif w == 2:
            p2 |= b
        else:
            p3 |= b
    for s in range(st[S.ST_PLAYERS]):
        if s == decider:
            continue
        h0 = h1 = h2 = h3 = ZERO
        for _ in range(st[S.ST_HANDN + s]):
            n0, n1, n2 = count(p0), count(p1), count(p2)
            k, rng = below_t(rng, n0 + n1 + n2 + count(p3))
            if k < n0:
                b = ONE << uint64(nth(p0, k))
                p0 &= ~b
                h0 |= b
            elif k < n0 + n1:
                b = ONE << uint64(nth(p1, k - n0))
                p1 &= ~b
                h1 |= b
            elif k < n0 + n1 + n2:
                b = ONE << uint64(nth(p2, k - n0 - n1))
                p2 &= ~b
                h2 |= b
            else:
                b = ONE << uint64(nth(p3, k - n0 - n1 - n2))
                p3 &= ~b
                h3 |= b
        bits[S.B_HAND + s, 0] = h0
        bits[S.B_HAND + s, 1] = h1
        bits[S.B_HAND + s, 2] = h2
        bits[S.B_HAND + s, 3] = h3
    n = 0
    for w in range(W):
        m = p0 if w == 0 else (p1 if w == 1 else (p2 if w == 2 else p3))
        while m != ZERO:
            st[S.ST_PILE + n] = w * 64 + lowest(m)
            n += 1
            m &= m - ONE
    if n != st[S.ST_NPILE]:
        raise ValueError("rollout: the cards redrawn do not fill the hands and the pile")
    return rng


@njit(cache=True, _nrt=False)
def prepare_playout(G, tmpl, decider, seed, index, decision, playout, peek):
    """Copy the game into ``tmpl`` as playout ``playout`` sees it: the others' hands and the pile drawn
    anew (``redraw_hidden``, then the pile shuffled), the playout's own deck and policy streams. Only
    with ``peek`` (the clairvoyant variant the hidden-information test must catch) the real hands, pile
    order and streams are kept."""
    cd, st, bits = G[0], G[1], G[2]
    t_st, t_bits = tmpl
    copy_state(st, bits, t_st, t_bits, cd.shape[1])
    if peek:
        return
    set_stream(t_bits, S.STREAM_DECK, seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_DECK))))
    r = seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_POLICY)))
    for s in range(st[S.ST_PLAYERS]):   # each seat's stream seeded from four words of the playout's
        x0, r = next_t(r)
        x1, r = next_t(r)
        x2, r = next_t(r)
        x3, r = next_t(r)
        set_stream(t_bits, S.STREAM_POLICY + s, (x0, x1, x2, x3))
    deal_rng = seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_DEAL)))
    Gt = (cd, t_st, t_bits, G[3])
    redraw_hidden(Gt, decider, deal_rng)
    K.shuffle_pile(Gt)


# ------------------------------------------------------------------ candidates

@njit(cache=True, inline="always")
def add(n_cand, cap, cand_a, cand_t, a, t):
    """Append the decision (action, target) unless listed or the list is full; the new count."""
    if n_cand >= cap:
        return n_cand
    for i in range(n_cand):
        if cand_a[i] == a and cand_t[i] == t:
            return n_cand
    cand_a[n_cand] = a
    cand_t[n_cand] = t
    return n_cand + 1


@njit(cache=True, inline="always")
def target_need(cd, a):
    """Which seats action ``a`` may go to (``kernel.choose_target``'s need), NO_TARGET for none."""
    if a == S.A_BONUS:
        return np.int64(0)
    if a < S.A_PLAY or a >= S.A_SEAT:
        return np.int64(NO_TARGET)
    e = cd[S.CD_EFFECT, a - S.A_PLAY]
    if e == E.E_GIFT or e == E.E_GOLDEN_GIFT:
        return np.int64(0)
    if e == E.E_RAISE_GIFT:
        return np.int64(1)
    if e == E.E_MUGGING:
        return np.int64(2)
    return np.int64(NO_TARGET)


@njit(cache=True, inline="always")
def list_targets(st, seat, need):
    """The legal D_TARGET list of ``need`` into ``st[ST_LEGAL:]`` as ``kernel.choose_target`` builds it;
    its length."""
    nl = 0
    for s in range(st[S.ST_PLAYERS]):
        if s != seat and st[S.ST_ALIVE + s] and (need == 0 or (need == 1 and st[S.ST_GTOTAL + s] > 0)
                                                 or (need == 2 and st[S.ST_HANDN + s] > 0)):
            st[S.ST_LEGAL + nl] = S.A_SEAT + s
            nl += 1
    return nl


@njit(cache=True, inline="always")
def add_with_targets(n_cand, cap, cand_a, cand_t, st, seat, a, need):
    """Append action ``a`` once per seat it may go to (once without a seat when it needs none)."""
    if need == NO_TARGET:
        return add(n_cand, cap, cand_a, cand_t, a, np.int64(NO_TARGET))
    for s in range(st[S.ST_PLAYERS]):
        if s != seat and st[S.ST_ALIVE + s] and (need == 0 or (need == 1 and st[S.ST_GTOTAL + s] > 0)
                                                 or (need == 2 and st[S.ST_HANDN + s] > 0)):
            n_cand = add(n_cand, cap, cand_a, cand_t, a, np.int64(s))
    return n_cand


@njit(cache=True, inline="always")
def same_card(cd, a, b):
    """Whether copies ``a`` and ``b`` are the same card (type, value, flags, effect)."""
    return (cd[S.CD_TYPE, a] == cd[S.CD_TYPE, b] and cd[S.CD_VALUE, a] == cd[S.CD_VALUE, b]
            and cd[S.CD_FLAGS, a] == cd[S.CD_FLAGS, b] and cd[S.CD_EFFECT, a] == cd[S.CD_EFFECT, b])


@njit(cache=True, _nrt=False)
def main_candidates(G, seat, cap, cand_a, cand_t, n_cand):
    """Append the main decisions worth trying (``kernel.main_playable`` computed): ending the turn, the
    bonus gift to each seat, each playable card (one copy of identical ones, deck order) to each seat
    it may go to."""
    cd, st, bits = G[0], G[1], G[2]
    n_cand = add(n_cand, cap, cand_a, cand_t, np.int64(S.A_END), np.int64(NO_TARGET))
    if st[S.ST_BONUS_OK]:
        n_cand = add_with_targets(n_cand, cap, cand_a, cand_t, st, seat, np.int64(S.A_BONUS), np.int64(0))
    for w in range(W):
        m = bits[S.B_PLAYABLE, w]
        while m != ZERO:
            c = w * 64 + lowest(m)
            m &= m - ONE
            seen = False
            for w2 in range(w + 1):   # an identical copy earlier in the playable set
                m2 = bits[S.B_PLAYABLE, w2]
                while m2 != ZERO and not seen:
                    c2 = w2 * 64 + lowest(m2)
                    m2 &= m2 - ONE
                    if c2 >= c:
                        break
                    seen = same_card(cd, c, c2)
            if not seen:
                a = S.A_PLAY + c
                n_cand = add_with_targets(n_cand, cap, cand_a, cand_t, st, seat, a, target_need(cd, a))
    return n_cand


@njit(cache=True, _nrt=False)
def list_answers(G, responder):
    """The legal list of the first answer awaited (as ``kernel.answer_window`` or, for an INEVITABLE gift
    under cacarma_vs_inevitable, ``give_cursed_gift`` builds it) into ``st[ST_LEGAL:]``; its length."""
    st, bits = G[1], G[2]
    step = st[S.ST_STEP]
    if step == K.STEP_GIFT_INEVITABLE:
        st[S.ST_LEGAL] = S.A_CACARMA
        st[S.ST_LEGAL + 1] = S.A_PASS
        return 2
    nl = 0
    for w in range(W):
        m = bits[S.B_HAND + responder, w] & bits[S.B_MASK + S.MK_ANSWERS_ATTACK, w]
        while m != ZERO:
            st[S.ST_LEGAL + nl] = S.A_PLAY + w * 64 + lowest(m)
            nl += 1
            m &= m - ONE
    if pol.count_in(bits, S.B_HAND + responder, S.MK_USELESS) >= R.CACARMA_USELESS:
        st[S.ST_LEGAL + nl] = S.A_CACARMA
        nl += 1
    st[S.ST_LEGAL + nl] = S.A_PASS
    return nl + 1


@njit(cache=True, _nrt=False)
def answer_candidates(G, nl, cap, cand_a, cand_t, n_cand):
    """Append the answers worth trying (the legal list ``st[ST_LEGAL:][:nl]``): pass, Cacarma, one
    riposte card of each kind."""
    cd, st = G[0], G[1]
    n_cand = add(n_cand, cap, cand_a, cand_t, np.int64(S.A_PASS), np.int64(NO_TARGET))
    for i in range(nl):
        a = st[S.ST_LEGAL + i]
        if a == S.A_CACARMA:
            n_cand = add(n_cand, cap, cand_a, cand_t, a, np.int64(NO_TARGET))
    for i in range(nl):
        a = st[S.ST_LEGAL + i]
        if a >= S.A_SEAT:
            continue
        seen = False
        for j in range(i):
            b = st[S.ST_LEGAL + j]
            if b < S.A_SEAT and same_card(cd, a - S.A_PLAY, b - S.A_PLAY):
                seen = True
        if not seen:
            n_cand = add(n_cand, cap, cand_a, cand_t, a, np.int64(NO_TARGET))
    return n_cand


# ------------------------------------------------------------------ one decision

@njit(cache=True, _nrt=False)
def decide(G, n, cap, seed, index, decision, peek, work):
    """The rollout's decision at the game's current halt (phase PH_MAIN: the turn's seat; PH_RESPOND: the
    seat answering): (act_kind, action, target) for ``kernel.advance``. The base policy's own choice is
    asked of the seat's policy in ``G`` (its stream advanced as the base policy would advance it)."""
    cd, st, bits, params = G
    tmpl, play, cand_a, cand_t, wins = work
    phase = st[S.ST_PHASE]
    if phase == K.PH_MAIN:
        kind = np.int64(K.ACT_MAIN)
        decider = st[S.ST_SEAT]
        K.main_playable(G, decider, True)
        a0 = pol.decide_main(decider, G)
        need = target_need(cd, a0)
        t0 = np.int64(NO_TARGET)
        if need != NO_TARGET:
            nl = list_targets(st, decider, need)
            t0 = pol.decide_target(decider, nl, G) - S.A_SEAT
        n_cand = add(0, cap, cand_a, cand_t, a0, t0)
        n_cand = main_candidates(G, decider, cap, cand_a, cand_t, n_cand)
    elif phase == K.PH_RESPOND:
        kind = np.int64(K.ACT_ANSWER)
        decider = st[S.ST_TARGET]
        nl = list_answers(G, decider)
        a0 = pol.decide(np.int64(S.D_RESPOND), decider, np.int64(nl), G)
        n_cand = add(0, cap, cand_a, cand_t, a0, np.int64(NO_TARGET))
        n_cand = answer_candidates(G, nl, cap, cand_a, cand_t, n_cand)
    else:
        raise ValueError("rollout: the game does not await a decision")
    best = 0
    if n_cand > 1 and n > 0:
        t_st, t_bits = tmpl
        p_st, p_bits = play
        Gp = (cd, p_st, p_bits, params)
        ncards = cd.shape[1]
        for i in range(n_cand):
            wins[i] = 0
        for j in range(n):
            prepare_playout(G, tmpl, decider, seed, index, decision, np.int64(j), peek)
            for i in range(n_cand):
                copy_state(t_st, t_bits, p_st, p_bits, ncards)
                K.advance(Gp, np.int64(0), kind, cand_a[i], cand_t[i])
                if p_st[S.ST_WINNER] == decider:
                    wins[i] += 1
        for i in range(1, n_cand):
            if wins[i] > wins[best]:
                best = i
    return kind, cand_a[best], cand_t[best]


# ------------------------------------------------------------------ whole games

@njit(cache=True, _nrt=False)
def play_game(G, seed, index, players, fs, n_cards, stop_mask, focus_n, focus_cap, field_n, field_cap, work):
    """Deal game ``index`` of run ``seed`` and play it to its end, the seats of ``stop_mask`` searching
    (the focus seat ``fs`` with its side's n and cap, the others with the field's)."""
    st = G[1]
    K.deal(G, seed, index, players, fs, n_cards)
    phase = K.advance(G, stop_mask, np.int64(K.ACT_NONE), np.int64(K.NO_ACTION), np.int64(NO_TARGET))
    decision = np.int64(0)
    while phase != K.PH_END:
        decider = st[S.ST_SEAT] if phase == K.PH_MAIN else st[S.ST_TARGET]
        n, cap = (focus_n, focus_cap) if decider == fs else (field_n, field_cap)
        kind, a, t = decide(G, n, cap, seed, index, decision, np.bool_(False), work)
        phase = K.advance(G, stop_mask, kind, a, t)
        decision += 1


@njit(cache=True)
def play_chunk(seed, start, count, players, opts, cd, masks, focus_id, focus_params, field_id, field_params,
               focus_seat, focus_search, focus_n, focus_cap, field_search, field_n, field_cap, out):
    """``kernel.play_chunk`` with searching seats: a side with ``*_search`` plays ``rollout`` over the
    base policy ``*_id`` (its parameters ``*_params``) with ``*_n`` playouts and ``*_cap`` candidates."""
    n_cards = cd.shape[1]
    st = np.zeros(S.N_ST, np.int64)
    bits = np.zeros((S.N_BROWS, W), np.uint64)
    params = np.zeros((R.MAX_PLAYERS, pol.N_PARAMS), np.float64)
    for i in range(opts.shape[0]):
        st[K.OPT + i] = opts[i]
    for r in range(S.N_MASKS):
        for w in range(W):
            bits[S.B_MASK + r, w] = masks[r, w]
    G = (cd, st, bits, params)
    work = new_workspace()
    for g in range(count):
        index = start + g
        fs = index % players if focus_seat < 0 else focus_seat
        stop_mask = np.int64(0)
        for s in range(players):
            if s == fs:
                st[S.ST_PID + s] = focus_id
                for k in range(pol.N_PARAMS):  # element by element: a slice copy compiles numba's shape-error text
                    params[s, k] = focus_params[k]
                if focus_search:
                    stop_mask |= np.int64(1) << s
            else:
                st[S.ST_PID + s] = field_id
                for k in range(pol.N_PARAMS):  # element by element: a slice copy compiles numba's shape-error text
                    params[s, k] = field_params[k]
                if field_search:
                    stop_mask |= np.int64(1) << s
        play_game(G, seed, index, players, fs, n_cards, stop_mask, focus_n, focus_cap, field_n, field_cap, work)
        if st[S.ST_ERR] != K.NO_ERROR:
            return g, st[S.ST_ERR]
        K.write_outcome(st, out, g, fs)
    return 0, K.NO_ERROR


# ------------------------------------------------------------------ Python entry

def settings(params) -> tuple[int, int, np.ndarray, int]:
    """The rollout's parameter vector (PolicySpec order: n, base, cap) checked and resolved:
    (n, base policy id, base parameter vector (its defaults), cap)."""
    n, base, cap = [float(v) for v in np.asarray(params, np.float64).ravel()][:3]
    bases = {spec.policy_id: spec for spec in P.POLICIES.values()   # built-in heuristics only (a user's shares id 0)
             if spec.policy_id != P.ROLLOUT and spec.impl is None and spec.engine == "kernel"}
    if base not in bases:
        raise UnknownPolicyError(f"rollout parameter base={base:g} is not a built-in policy of gifts; valid: "
                                 + ", ".join(f"{i} ({spec.name})" for i, spec in sorted(bases.items())))
    if n < 0 or n != int(n) or n > MAX_N:
        raise UnknownPolicyError(f"rollout parameter n must be a whole number 0 .. {MAX_N}, got {n:g}")
    if not 1 <= cap <= MAX_CANDIDATES or cap != int(cap):
        raise UnknownPolicyError(f"rollout parameter cap must be a whole number 1 .. {MAX_CANDIDATES}, got {cap:g}")
    spec = bases[int(base)]
    return int(n), int(base), pol.params_array(spec.param_vector()), int(cap)


def side_settings(policy_id: int, params) -> tuple[bool, int, np.ndarray, int, int]:
    """(searching, kernel policy id, its parameter vector, n, cap) of one side: a rollout side plays its
    base policy's id and parameters in the kernel."""
    if policy_id == P.ROLLOUT:
        n, base, base_params, cap = settings(params)
        return True, base, base_params, n, cap
    spec = next(s for s in P.POLICIES.values() if s.policy_id == policy_id)
    return False, policy_id, pol.params_array(spec.param_vector() if params is None else params), 0, 1


def run_chunk(seed: int, start: int, count: int, players: int, options, focus_id, focus_params, field_id,
              field_params, focus_seat: int = -1, *, deck=None) -> dict[str, np.ndarray]:
    """``kernel.run_chunk`` where either side may be ``rollout`` (its parameters n, base, cap)."""
    players, opts, deck = K.prepare_run(players, options, focus_seat, deck)
    sides = [side_settings(K.policy_id(pid), params) for pid, params in ((focus_id, focus_params),
                                                                          (field_id, field_params))]
    (f_search, f_id, f_params, f_n, f_cap), (d_search, d_id, d_params, d_n, d_cap) = sides
    arr = deck.arrays()
    out = np.zeros((count, K.N_OUT), np.int64)
    game, err = play_chunk(np.uint64(seed), np.int64(start), np.int64(count), np.int64(players), opts,
                           K.card_data(arr), K.card_masks(arr), np.int64(f_id), f_params, np.int64(d_id), d_params,
                           np.int64(focus_seat), np.bool_(f_search), np.int64(f_n), np.int64(f_cap),
                           np.bool_(d_search), np.int64(d_n), np.int64(d_cap), out)
    K.raise_error(seed, start, game, err)
    return K.columns(out)
