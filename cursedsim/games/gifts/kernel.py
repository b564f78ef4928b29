"""The numba kernel of Cursed Gifts: the reference engine's rules (``reference.py``, docs/rules/gifts.md)
over flat numpy state, one compiled call per chunk of games, game by game identical to the reference.

State (``state.py``, allocated once per chunk, reset per game; cards are the deck's copies 0..n-1): the
tuple ``G = (cd, st, bits, params)`` every step function takes.

- ``cd`` (int64, N_CD x n): the deck's ``type``, ``value``, ``flags``, ``effect``, ``kind`` per copy
  (``Deck.arrays()``);
- ``st`` (int64): every integer of the game at the ``ST_*`` offsets: the scalars (cards played this
  turn, gift given, pile and discard sizes, counters, the card being answered), the rule options, each
  seat's policy id, hand size, gauge total and whether it is in; the draw pile (the last is the top) and
  the Septic Discard (in order of arrival); gauge entries named by their first card ``key`` (seat, value
  with its Tricks, cards: the gift or the bonus's two Useless Gifts, then the Tricks in landing order);
  the legal list of the decision asked and scratch lists;
- ``bits`` (uint64, N_BROWS x W): each hand and each gauge's entry keys as card bit sets (read in
  ascending card order, as the reference keeps its hands sorted), the card sets by role (``MK_*``), the
  main decision's playable set, and the xoshiro256** states of the deck stream and of each seat's policy
  stream (``cursedsim.rng``);
- ``params`` (float64, seats x N_PARAMS): each seat's policy parameters.

The deck enters as the int64 arrays of ``Deck.arrays()``; the rule options as the int64 array of
``option_array`` (slot i = the i-th RuleOptions rule field after ``deck``). Every policy decision is
checked against the legal set: an illegal one is recorded (the first, as an error code) and replaced by
the first legal action; ``run_chunk`` raises a RunError.

Speed: the main decision's legal cards are a bit set built from the masks in a few word operations
(antidotes checked one by one, only when the hand holds some and the gauge is not empty), so the
policies choose a card without a legal list; four arrays instead of twenty-five make each remaining call
(``decide``, ``respond``, ``eliminate``, draws and shuffles) cheap; a shuffle keeps the stream's state in
registers.

Compile time (a cold first run, issue 24): numba copies an inlined function's IR once per block with its
whole variable table, so inlining a big function costs far more than compiling it once. The turn is
written out in ``advance`` (the phase machine that ``play_game`` and every search playout run); inlined
there is only what every main decision or every gift runs (``main_playable``, ``pol.decide_main``,
``check_main``, ``draw_card``, ``give_cursed_gift``: ~17 gifts a game) and the small bit and list helpers.
Every other card step (antidote, raise, bonus gift, Mugging, Day of mourning, Remove gift),
``mugging_ends``, ``inevitable_answer``, ``decide``, ``answer_window`` and ``eliminate`` are calls
compiled once (a call costs ~10 ns: the four arrays pass as ~34 words); ``ask`` is inlined only in
``answer_window`` and ``antidote`` and ``choose_target`` only in ``give_cursed_gift``, the rarer steps
calling ``ask_call`` and ``choose_target_call``.
The codes passed to a call are np.int64, never int literals: numba compiles a callee once per literal.

Resumable (issue 29): a game under way is its arrays plus the phase record in ``st`` (``ST_PHASE``,
``ST_SEAT``, and for an answer awaited in the middle of a card step ``ST_STEP``, ``ST_SCARD``,
``ST_SKEY``). ``advance`` halts at the main decisions and first answers of the seats in its stop mask
and resumes with a decision given from outside, so copying a game is copying ``st`` and ``bits``. The
step API (``step.py``) sets ``ST_HOOK``: every decision inside a card step then takes the next action of
a script in ``st`` or, the script spent, raises ``Question`` with the arrays standing at that decision,
and the hidden cards' moves are logged (``EV_*``); runs and playouts leave it 0 (a test per draw). The
phase machine costs ~5-10% of the straight turn loop it replaced (4 players, built-in policies, measured
side by side); every golden fingerprint is unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from cursedsim.bits import ONE, ZERO, count, lowest, nth
from cursedsim.rng import below_t, seed_tuple

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


EFFECTIVE = 0
CANCELLED = 1
RETURNED = 2
HALTED = 3       # the answer is awaited from outside (``advance`` halts; ``resume_answer`` goes on)
NO_ERROR = 0

#: Where a game stands (``st[ST_PHASE]``): a turn begins (the turn limit is checked), the seat whose turn
#: it is (``ST_SEAT``) makes its main decision, an answer is awaited in the middle of a card step
#: (``ST_STEP``, ``ST_SCARD``, ``ST_SKEY``, ``ST_TARGET``), the game is over.
PH_TURN = 0
PH_MAIN = 1
PH_RESPOND = 2
PH_END = 3
#: The card step that waits for an answer: a gift (its answer window), an INEVITABLE gift under
#: cacarma_vs_inevitable (Cacarma or pass), a raise Trick, Mugging.
STEP_GIFT = 0
STEP_GIFT_INEVITABLE = 1
STEP_RAISE = 2
STEP_MUGGING = 3
#: The decision a resumed game carries out first (``advance``'s ``act_kind``): a main decision
#: (``act_a``, and ``act_target`` the seat of its D_TARGET, -1 for the policy's) or the first answer of
#: the window awaited (``act_a``).
ACT_NONE = 0
ACT_MAIN = 1
ACT_ANSWER = 2
NO_ACTION = -1
W = S.W
OPT = S.ST_OPTS
#: The hidden cards' moves logged under ST_HOOK (state.py), each (code, a, b): a draw (seat, card), a
#: reshuffle (the cards of the new pile follow as EV_CARD), an elimination (seat; the cards put into the
#: pile follow as EV_CARD), a Mugging take (seat + MAX_PLAYERS * victim, card), a refunded cost (seat, card).
EV_DRAW = 1
EV_RESHUFFLE = 2
EV_ELIM = 3
EV_CARD = 4
EV_TAKE = 5
EV_REFUND = 6


class Question(Exception):
    """Raised under ST_HOOK when a decision inside a card step finds its script spent: the arrays hold
    the game at that decision (state.py ``ST_QKIND``, ``ST_QSEAT``, the legal list ``ST_LEGAL[:ST_QN]``)."""


# ---------------------------------------------------------------- plumbing


@njit(cache=True, inline="always")
def log_event(st, code, a, b):
    """Append an event to the step API's log (only under ST_HOOK; state.py)."""
    n = st[S.ST_NEV]
    if n < S.MAX_EVENTS:
        st[S.ST_EVENTS + 3 * n] = code
        st[S.ST_EVENTS + 3 * n + 1] = a
        st[S.ST_EVENTS + 3 * n + 2] = b
        st[S.ST_NEV] = n + 1


@njit(cache=True, _nrt=False)
def scripted(st, kind, seat, nl):
    """The step API's answer to a decision inside a card step: the script's next action, or (spent) the
    question noted and ``Question`` raised (state.py ST_HOOK)."""
    i = st[S.ST_ISCRIPT]
    if i < st[S.ST_NSCRIPT]:
        st[S.ST_ISCRIPT] = i + 1
        return st[S.ST_SCRIPT + i]
    st[S.ST_QKIND] = kind
    st[S.ST_QSEAT] = seat
    st[S.ST_QN] = nl
    raise Question()


@njit(cache=True, inline="always")
def below(G, n):
    """A uniform integer in [0, n) from the deck stream."""
    return pol.below(G[2], S.STREAM_DECK, n)


@njit(cache=True, inline="always")
def add_bit(bits, row, c):
    bits[row, c >> 6] |= ONE << uint64(c & 63)


@njit(cache=True, inline="always")
def clear_bit(bits, row, c):
    bits[row, c >> 6] &= ~(ONE << uint64(c & 63))


@njit(cache=True, _nrt=False)
def shuffle_pile(G):
    """Fisher-Yates over the draw pile: i from n-1 down to 1, j = below(i+1), swap."""
    st, bits = G[1], G[2]
    row = S.B_STREAM + S.STREAM_DECK
    r = (bits[row, 0], bits[row, 1], bits[row, 2], bits[row, 3])
    for i in range(st[S.ST_NPILE] - 1, 0, -1):
        j, r = below_t(r, i + 1)
        a, b = S.ST_PILE + i, S.ST_PILE + j
        st[a], st[b] = st[b], st[a]
    bits[row, 0] = r[0]
    bits[row, 1] = r[1]
    bits[row, 2] = r[2]
    bits[row, 3] = r[3]


@njit(cache=True, inline="always")
def to_discard(st, c):
    st[S.ST_DISC + st[S.ST_NDISC]] = c
    st[S.ST_NDISC] += 1


@njit(cache=True, inline="always")
def take_from_hand(G, seat, c):
    clear_bit(G[2], S.B_HAND + seat, c)
    G[1][S.ST_HANDN + seat] -= 1


@njit(cache=True, inline="always")
def put_in_hand(G, seat, c):
    add_bit(G[2], S.B_HAND + seat, c)
    G[1][S.ST_HANDN + seat] += 1


@njit(cache=True, _nrt=False)
def refill_pile(G):
    """The Septic Discard becomes the draw pile, shuffled."""
    st = G[1]
    for i in range(st[S.ST_NDISC]):
        st[S.ST_PILE + i] = st[S.ST_DISC + i]
    st[S.ST_NPILE] = st[S.ST_NDISC]
    st[S.ST_NDISC] = 0
    shuffle_pile(G)
    if st[S.ST_HOOK]:
        log_event(st, np.int64(EV_RESHUFFLE), np.int64(0), np.int64(0))
        for i in range(st[S.ST_NPILE]):
            log_event(st, np.int64(EV_CARD), st[S.ST_PILE + i], np.int64(0))


@njit(cache=True, inline="always")
def draw_card(G, seat):
    """The top card of the pile into ``seat``'s hand; an empty pile first takes the Septic Discard,
    shuffled. -1 when both are empty."""
    st = G[1]
    if st[S.ST_NPILE] == 0 and st[S.ST_NDISC] > 0:
        refill_pile(G)
    if st[S.ST_NPILE] == 0:
        return -1
    st[S.ST_NPILE] -= 1
    c = st[S.ST_PILE + st[S.ST_NPILE]]
    put_in_hand(G, seat, c)
    if st[S.ST_HOOK]:
        log_event(st, np.int64(EV_DRAW), seat, c)
    return c


@njit(cache=True, inline="always")
def useless_count(G, seat):
    return pol.count_in(G[2], S.B_HAND + seat, S.MK_USELESS)


@njit(cache=True, _nrt=False)
def record_error(st, kind, a):
    """Record the first illegal decision (``kind``, action ``a``) in ST_ERR. A call, reached only on an
    illegal decision: inlined, its body was typed again inside each of the ~10 checks."""
    if st[S.ST_ERR] == NO_ERROR:
        st[S.ST_ERR] = 1 + kind * S.N_ACTIONS + (a % S.N_ACTIONS if a >= 0 else 0)


@njit(cache=True, inline="always")
def checked(st, kind, a, nl):
    """``a`` when it is in the legal list ``st[ST_LEGAL:][:nl]``; else the error is recorded and the
    first legal action replaces it."""
    for i in range(nl):
        if st[S.ST_LEGAL + i] == a:
            return a
    record_error(st, np.int64(kind), np.int64(a))
    return st[S.ST_LEGAL]


@njit(cache=True, inline="always")
def ask(G, kind, seat, nl):
    """The seat's policy decides among the legal list ``st[ST_LEGAL:][:nl]`` (under ST_HOOK: the step
    API's script); an illegal choice is recorded and replaced."""
    st = G[1]
    if st[S.ST_HOOK]:
        return checked(st, kind, scripted(st, np.int64(kind), np.int64(seat), np.int64(nl)), nl)
    return checked(st, kind, pol.decide(np.int64(kind), seat, np.int64(nl), G), nl)


@njit(cache=True, _nrt=False)
def ask_call(G, kind, seat, nl):
    """``ask`` compiled once, called from the rarer steps (inlined only in ``answer_window`` and
    ``antidote``)."""
    return ask(G, kind, seat, nl)


@njit(cache=True, inline="always")
def list_set(G, row, offset):
    """The members of the set ``bits[row]`` as the legal list of actions ``offset + card``; its length."""
    st, bits = G[1], G[2]
    nl = 0
    for w in range(W):
        m = bits[row, w]
        while m != ZERO:
            st[S.ST_LEGAL + nl] = offset + w * 64 + lowest(m)
            nl += 1
            m &= m - ONE
    return nl


@njit(cache=True, inline="always")
def gauge_reach(G, seat, skip, healed):
    """Subset sums of ``seat``'s entry values as a bit set, leaving out entry ``skip`` and, when
    ``healed``, the entries in the scratch set."""
    st, bits = G[1], G[2]
    reach = np.int64(1)
    for w in range(W):
        m = bits[S.B_GAUGE + seat, w]
        if healed:
            m &= ~bits[S.B_SCRATCH, w]
        while m != ZERO:
            k = w * 64 + lowest(m)
            m &= m - ONE
            if k != skip:
                reach |= reach << st[S.ST_EVALUE + k]
    return reach


@njit(cache=True, inline="always")
def heal_feasible(st, reach, base, nextra, budget):
    """Whether a heal of total ``base`` plus at most ``budget`` of the antidote values
    ``st[ST_EXTRA:][:nextra]`` hits a subset sum of the gauge exactly."""
    if (reach >> base) & 1:
        return True
    X = S.ST_EXTRA
    if budget >= 1:
        for i in range(nextra):
            if (reach >> (base + st[X + i])) & 1:
                return True
    if budget >= 2:
        for i in range(nextra):
            for j in range(i + 1, nextra):
                if (reach >> (base + st[X + i] + st[X + j])) & 1:
                    return True
    return False


@njit(cache=True, inline="always")
def hand_antidotes(G, seat, without):
    """Antidote values (positive) of ``seat``'s hand in card order into ``st[ST_EXTRA:]``, card
    ``without`` left out; their number."""
    cd, st, bits = G[0], G[1], G[2]
    n = 0
    for w in range(W):
        m = bits[S.B_HAND + seat, w] & bits[S.B_MASK + S.MK_ANTIDOTE, w]
        while m != ZERO:
            c = w * 64 + lowest(m)
            m &= m - ONE
            if c != without:
                st[S.ST_EXTRA + n] = -cd[S.CD_VALUE, c]
                n += 1
    return n


# ---------------------------------------------------------------- elimination and gauges


@njit(cache=True, inline="always")
def finish(st, winner, unfinished):
    st[S.ST_WINNER] = winner
    st[S.ST_UNFINISHED] = unfinished
    st[S.ST_OVER] = 1


@njit(cache=True, _nrt=False)
def eliminate(G, seat):
    """The player's gauge and hand go into the draw pile (options), the pile shuffled; last one wins."""
    st, bits = G[1], G[2]
    st[S.ST_ALIVE + seat] = 0
    st[S.ST_ELIM] += (seat + 1) * R.ELIM_BASE ** st[S.ST_NELIM]
    st[S.ST_NELIM] += 1
    sc = S.B_SCRATCH
    for w in range(W):
        bits[sc, w] = ZERO
    for w in range(W):
        m = bits[S.B_GAUGE + seat, w]
        while m != ZERO:
            k = w * 64 + lowest(m)
            m &= m - ONE
            base = S.ST_ECARDS + k * S.MAX_ENTRY_CARDS
            for i in range(st[S.ST_ELEN + k]):
                c = st[base + i]
                bits[sc, c >> 6] |= ONE << uint64(c & 63)
            st[S.ST_ESEAT + k] = -1
        bits[S.B_GAUGE + seat, w] = ZERO
    gifts_only = st[OPT + OPT_ELIMINATED_HAND] != HAND_ALL
    for w in range(W):
        m = bits[S.B_HAND + seat, w]
        if gifts_only:
            gifts = bits[S.B_MASK + S.MK_GIFT, w]
            rest = m & ~gifts
            m &= gifts
            while rest != ZERO:
                to_discard(st, w * 64 + lowest(rest))
                rest &= rest - ONE
        bits[sc, w] |= m
        bits[S.B_HAND + seat, w] = ZERO
    st[S.ST_HANDN + seat] = 0
    st[S.ST_GTOTAL + seat] = 0
    shuffle = st[OPT + OPT_ELIMINATED_CARDS] == SHUFFLE_PILE
    for w in range(W):
        m = bits[sc, w]
        while m != ZERO:
            c = w * 64 + lowest(m)
            m &= m - ONE
            n = st[S.ST_NPILE]
            if shuffle:
                st[S.ST_PILE + n] = c
            else:
                p = below(G, n + 1)
                for i in range(n, p, -1):
                    st[S.ST_PILE + i] = st[S.ST_PILE + i - 1]
                st[S.ST_PILE + p] = c
            st[S.ST_NPILE] = n + 1
    if shuffle:
        shuffle_pile(G)
    if st[S.ST_HOOK]:
        log_event(st, np.int64(EV_ELIM), np.int64(seat), np.int64(0))
        for w in range(W):
            m = bits[sc, w]
            while m != ZERO:
                log_event(st, np.int64(EV_CARD), np.int64(w * 64 + lowest(m)), np.int64(0))
                m &= m - ONE
    left = 0
    last = -1
    for s in range(st[S.ST_PLAYERS]):
        if st[S.ST_ALIVE + s]:
            left += 1
            last = s
    if left == 1:
        finish(st, last, 0)


@njit(cache=True, inline="always")
def check_elimination(G, seat):
    st = G[1]
    if st[S.ST_ALIVE + seat] and st[S.ST_GTOTAL + seat] >= R.GAUGE_LIMIT:
        eliminate(G, np.int64(seat))


@njit(cache=True, inline="always")
def land_gift(G, seat, key, second, base):
    """A new gauge entry (``second``: the bonus's other Useless Gift, -1), then the elimination check."""
    st = G[1]
    st[S.ST_ESEAT + key] = seat
    add_bit(G[2], S.B_GAUGE + seat, key)
    st[S.ST_EVALUE + key] = base
    cards = S.ST_ECARDS + key * S.MAX_ENTRY_CARDS
    st[cards] = key
    st[S.ST_ELEN + key] = 1
    if second >= 0:
        st[cards + 1] = second
        st[S.ST_ELEN + key] = 2
    st[S.ST_GTOTAL + seat] += base
    check_elimination(G, seat)


@njit(cache=True, inline="always")
def drop_entry(G, key):
    """Remove an entry from its gauge; its cards to the Septic Discard (gift(s), then Tricks)."""
    st = G[1]
    seat = st[S.ST_ESEAT + key]
    st[S.ST_GTOTAL + seat] -= st[S.ST_EVALUE + key]
    clear_bit(G[2], S.B_GAUGE + seat, key)
    st[S.ST_ESEAT + key] = -1
    cards = S.ST_ECARDS + key * S.MAX_ENTRY_CARDS
    for i in range(st[S.ST_ELEN + key]):
        to_discard(st, st[cards + i])


# ---------------------------------------------------------------- answering: ripostes and Cacarma


@njit(cache=True, _nrt=False)
def play_cacarma(G, seat, card):
    """The three lowest Useless Gifts discarded as an answer."""
    cd, st, bits = G[0], G[1], G[2]
    used = 0
    for w in range(W):
        m = bits[S.B_HAND + seat, w] & bits[S.B_MASK + S.MK_USELESS, w]
        while m != ZERO and used < R.CACARMA_USELESS:
            c = w * 64 + lowest(m)
            m &= m - ONE
            take_from_hand(G, seat, c)
            to_discard(st, c)
            used += 1
    st[S.ST_CACARMAS] += 1
    st[S.ST_COUNTS + E.USELESS] += R.CACARMA_USELESS
    if st[OPT + OPT_CACARMA] == CACARMA_RETURN and card >= 0 and cd[S.CD_TYPE, card] == E.GIFT:
        return RETURNED
    return CANCELLED


@njit(cache=True, inline="always")
def respond(G, card, by, target, kind, adds, inevitable):
    """The target's window to answer (ripostes, Cacarma; chains with the option): EFFECTIVE at once when
    the card is INEVITABLE or the target holds no answer (no call), else ``answer_window``."""
    if inevitable:
        return EFFECTIVE
    bits = G[2]
    mk = S.MK_ANSWERS_DEFENSE if kind == E.DEFENSE else S.MK_ANSWERS_ATTACK
    held = ZERO
    for w in range(W):
        held |= bits[S.B_HAND + target, w] & bits[S.B_MASK + mk, w]
    if held == ZERO and not ((kind == E.GIFT or kind == E.TRICK)
                             and useless_count(G, target) >= R.CACARMA_USELESS):
        return EFFECTIVE
    st = G[1]
    if (st[S.ST_STOPMASK] >> target) & 1:   # a searched decision: the game halts here
        st[S.ST_PCARD] = card
        st[S.ST_PADDS] = adds
        return HALTED
    return answer_window(G, card, by, target, np.int64(kind), np.int64(adds), np.int64(NO_ACTION))


@njit(cache=True, _nrt=False)
def answer_window(G, card, by, target, kind, adds, first):
    """The window of ``respond`` when the target holds an answer; its first answer is ``first`` when
    given (a decision from outside, checked like the policy's), else the policy's."""
    st, bits = G[1], G[2]
    nchain = 0
    responder, other = target, by
    mk = S.MK_ANSWERS_DEFENSE if kind == E.DEFENSE else S.MK_ANSWERS_ATTACK
    st[S.ST_PCARD] = card
    st[S.ST_PADDS] = adds
    while True:
        nl = 0
        for w in range(W):
            m = bits[S.B_HAND + responder, w] & bits[S.B_MASK + mk, w]
            while m != ZERO:
                st[S.ST_LEGAL + nl] = S.A_PLAY + w * 64 + lowest(m)
                nl += 1
                m &= m - ONE
        if nchain == 0 and (kind == E.GIFT or kind == E.TRICK) and useless_count(G, responder) >= R.CACARMA_USELESS:
            st[S.ST_LEGAL + nl] = S.A_CACARMA
            nl += 1
        if nl == 0:
            break
        st[S.ST_LEGAL + nl] = S.A_PASS
        nl += 1
        if nchain == 0 and first != NO_ACTION:
            a = checked(st, S.D_RESPOND, first, nl)
        else:
            a = ask(G, S.D_RESPOND, responder, nl)
        if a == S.A_PASS:
            break
        if a == S.A_CACARMA:
            return play_cacarma(G, responder, card)
        riposte = a - S.A_PLAY
        take_from_hand(G, responder, riposte)
        st[S.ST_COUNTS + E.DEFENSE] += 1
        st[S.ST_RIPOSTES] += 1
        st[S.ST_CHAIN + nchain] = riposte
        nchain += 1
        if st[OPT + OPT_RIPOSTE_CHAINS] == 0:
            break
        mk = S.MK_ANSWERS_DEFENSE
        responder, other = other, responder
        st[S.ST_PCARD] = riposte
        st[S.ST_PADDS] = 0
    for i in range(nchain):
        to_discard(st, st[S.ST_CHAIN + i])
    return EFFECTIVE if nchain % 2 == 0 else CANCELLED


# ---------------------------------------------------------------- cards played on your turn


@njit(cache=True, inline="always")
def choose_target(G, seat, need):
    """D_TARGET among the other living seats (``need``: 0 any, 1 with a gift in the gauge, 2 with a
    card in hand)."""
    st = G[1]
    forced = st[S.ST_FTARGET]
    pid = st[S.ST_PID + seat]
    # a heuristic's choice in the same pass as the list (pol.decide_target's rule: the lowest
    # target_score, ties to the first seat), legal by construction: no second pass, no check
    direct = forced < 0 and st[S.ST_HOOK] == 0 and pid != P.RANDOM
    best = -1
    best_k = 0
    nl = 0
    for s in range(st[S.ST_PLAYERS]):
        if s != seat and st[S.ST_ALIVE + s] and (need == 0 or (need == 1 and st[S.ST_GTOTAL + s] > 0)
                                                 or (need == 2 and st[S.ST_HANDN + s] > 0)):
            st[S.ST_LEGAL + nl] = S.A_SEAT + s
            nl += 1
            if direct:
                k = pol.target_score(pid, seat, s, st)
                if best < 0 or k < best_k:
                    best, best_k = s, k
    if best >= 0:
        st[S.ST_TARGET] = best
        return best
    if forced >= 0:   # given from outside with the main decision
        st[S.ST_FTARGET] = -1
        a = S.A_SEAT + forced
    elif st[S.ST_HOOK]:
        a = scripted(st, np.int64(S.D_TARGET), np.int64(seat), np.int64(nl))
    elif pid == P.RANDOM:   # pol.decide_target's draw
        a = st[S.ST_LEGAL + pol.below(G[2], S.STREAM_POLICY + seat, nl)]
    else:   # a heuristic without a legal seat (never: the card was playable): recorded below
        a = st[S.ST_LEGAL]
    for i in range(nl):
        if st[S.ST_LEGAL + i] == a:
            break
    else:
        record_error(st, np.int64(S.D_TARGET), np.int64(a))
        a = st[S.ST_LEGAL]
    target = a - S.A_SEAT
    st[S.ST_TARGET] = target
    return target


@njit(cache=True, _nrt=False)
def choose_target_call(G, seat, need):
    """``choose_target`` compiled once, called from the rarer steps (inlined only in
    ``give_cursed_gift``)."""
    return choose_target(G, seat, need)


@njit(cache=True, inline="always")
def halt_step(st, step, card, key):
    """Record the card step that waits for an answer (``advance`` halts; ``resume_answer`` goes on)."""
    st[S.ST_STEP] = step
    st[S.ST_SCARD] = card
    st[S.ST_SKEY] = key
    return True


@njit(cache=True, inline="always")
def gift_lands(G, seat, target, card, value, result):
    """The end of a gift's step once answered (or not): it lands, returns to the giver or is discarded."""
    if result == EFFECTIVE or result == RETURNED:   # one inlined land_gift, not two
        land_gift(G, target if result == EFFECTIVE else seat, card, -1, value)
    else:
        to_discard(G[1], card)


@njit(cache=True, _nrt=False)
def inevitable_answer(G, target, card, value):
    """Under cacarma_vs_inevitable, the target of an INEVITABLE gift may answer with Cacarma (or pass):
    EFFECTIVE, RETURNED, CANCELLED, or HALTED when the game halts for that answer."""
    st = G[1]
    if useless_count(G, target) >= R.CACARMA_USELESS:
        st[S.ST_PCARD] = card
        st[S.ST_PADDS] = value
        if (st[S.ST_STOPMASK] >> target) & 1:
            return HALTED
        st[S.ST_LEGAL] = S.A_CACARMA
        st[S.ST_LEGAL + 1] = S.A_PASS
        if ask_call(G, np.int64(S.D_RESPOND), target, np.int64(2)) == S.A_CACARMA:
            return play_cacarma(G, target, card)
    return EFFECTIVE


@njit(cache=True, _nrt=False, inline="always")
def give_cursed_gift(G, seat, card):
    """A Cursed Gift to the chosen target; True when the game halts for the target's answer."""
    cd, st = G[0], G[1]
    st[S.ST_GIFT_GIVEN] = 1
    target = choose_target(G, seat, 0)
    value = cd[S.CD_VALUE, card]
    inevitable = (cd[S.CD_FLAGS, card] & E.INEVITABLE) != 0
    if inevitable and st[OPT + OPT_CACARMA_VS_INEVITABLE]:
        result = inevitable_answer(G, target, card, value)
        step = STEP_GIFT_INEVITABLE
    else:
        result = respond(G, card, seat, target, E.GIFT, value, inevitable)
        step = STEP_GIFT
    if result == HALTED:
        return halt_step(st, step, card, -1)
    gift_lands(G, seat, target, card, value, result)
    return False


@njit(cache=True, _nrt=False)
def give_bonus_gift(G, seat):
    st, bits = G[1], G[2]
    first = -1
    second = -1
    for w in range(W):
        m = bits[S.B_HAND + seat, w] & bits[S.B_MASK + S.MK_USELESS, w]
        while m != ZERO and second < 0:
            c = w * 64 + lowest(m)
            m &= m - ONE
            if first < 0:
                first = c
            else:
                second = c
    take_from_hand(G, seat, first)
    take_from_hand(G, seat, second)
    st[S.ST_PLAYED] += R.BONUS_GIFT_USELESS
    st[S.ST_COUNTS + E.USELESS] += R.BONUS_GIFT_USELESS
    st[S.ST_BONUS] += 1
    if st[OPT + OPT_BONUS_IS_THE_GIFT]:
        st[S.ST_GIFT_GIVEN] = 1
    target = choose_target_call(G, seat, np.int64(0))
    land_gift(G, target, first, second, R.BONUS_GIFT_VALUE)


@njit(cache=True, inline="always")
def raise_lands(G, target, card, key, result):
    """The end of a raise Trick's step: it joins entry ``key`` when effective, else is discarded."""
    cd, st = G[0], G[1]
    if result == EFFECTIVE:
        value = cd[S.CD_VALUE, card]
        st[S.ST_ECARDS + key * S.MAX_ENTRY_CARDS + st[S.ST_ELEN + key]] = card
        st[S.ST_ELEN + key] += 1
        st[S.ST_EVALUE + key] += value
        st[S.ST_GTOTAL + target] += value
        check_elimination(G, target)
    else:
        to_discard(st, card)


@njit(cache=True, _nrt=False)
def raise_gift(G, seat, card):
    """A raise Trick on a gift of the chosen target; True when the game halts for the target's answer."""
    cd, st = G[0], G[1]
    target = choose_target_call(G, seat, np.int64(1))
    nl = list_set(G, S.B_GAUGE + target, S.A_PICK)
    key = ask_call(G, np.int64(S.D_GIFT), seat, np.int64(nl)) - S.A_PICK
    result = respond(G, card, seat, target, E.TRICK, cd[S.CD_VALUE, card], False)
    if result == HALTED:
        return halt_step(st, STEP_RAISE, card, key)
    raise_lands(G, target, card, key, result)
    return False


@njit(cache=True, _nrt=False)
def mugging_ends(G, seat, card, target, cost, result):
    """The end of Mugging's step once answered (or not): the card taken, the cost settled."""
    st, bits = G[1], G[2]
    pay_now = st[OPT + OPT_MUGGING_COST] == COST_ALWAYS
    taken = -1
    if result == EFFECTIVE and st[S.ST_HANDN + target] > 0:
        if st[OPT + OPT_MUGGING_TAKE] == TAKE_BLIND:
            k = below(G, st[S.ST_HANDN + target])
            for w in range(W):
                m = bits[S.B_HAND + target, w]
                c = count(m)
                if k < c:
                    taken = w * 64 + nth(m, k)
                    break
                k -= c
        else:
            nl = list_set(G, S.B_HAND + target, S.A_PICK)
            taken = ask_call(G, np.int64(S.D_TAKE), seat, np.int64(nl)) - S.A_PICK
        take_from_hand(G, target, taken)
    if not pay_now:
        if taken >= 0:
            to_discard(st, cost)
        else:
            put_in_hand(G, seat, cost)
            if st[S.ST_HOOK]:
                log_event(st, np.int64(EV_REFUND), np.int64(seat), np.int64(cost))
    if taken >= 0:
        put_in_hand(G, seat, taken)
        if st[S.ST_HOOK]:
            log_event(st, np.int64(EV_TAKE), np.int64(seat + R.MAX_PLAYERS * target), np.int64(taken))
    to_discard(st, card)


@njit(cache=True, _nrt=False)
def mugging(G, seat, card):
    """Mugging on the chosen target; True when the game halts for the target's answer."""
    st = G[1]
    target = choose_target_call(G, seat, np.int64(2))
    nl = list_set(G, S.B_HAND + seat, S.A_PICK)
    cost = ask_call(G, np.int64(S.D_DISCARD), seat, np.int64(nl)) - S.A_PICK
    take_from_hand(G, seat, cost)
    if st[OPT + OPT_MUGGING_COST] == COST_ALWAYS:
        to_discard(st, cost)
    result = respond(G, card, seat, target, E.TRICK, 0, False)
    if result == HALTED:
        return halt_step(st, STEP_MUGGING, card, cost)
    mugging_ends(G, seat, card, target, cost, result)
    return False


@njit(cache=True, _nrt=False)
def day_of_mourning(G, seat, card):
    st, bits = G[1], G[2]
    used = 0
    for w in range(W):
        m = bits[S.B_HAND + seat, w] & bits[S.B_MASK + S.MK_USELESS, w]
        while m != ZERO:
            c = w * 64 + lowest(m)
            m &= m - ONE
            take_from_hand(G, seat, c)
            to_discard(st, c)
            used += 1
    for _ in range(used):
        draw_card(G, seat)
    to_discard(st, card)


@njit(cache=True, _nrt=False)
def remove_gift(G, seat, card):
    nl = list_set(G, S.B_GAUGE + seat, S.A_PICK)
    key = ask_call(G, np.int64(S.D_REMOVE), seat, np.int64(nl)) - S.A_PICK
    drop_entry(G, key)
    to_discard(G[1], card)


@njit(cache=True, _nrt=False)
def antidote(G, seat, card):
    """Antidotes (up to 3, each one card of the turn) heal gauge entries of exactly their total."""
    cd, st, bits = G[0], G[1], G[2]
    sc = S.B_SCRATCH
    for w in range(W):
        bits[sc, w] = ZERO
    st[S.ST_CHAIN] = card
    nheal = 1
    total = -cd[S.CD_VALUE, card]
    reach = gauge_reach(G, seat, -1, False)
    while True:
        exact = (reach >> total) & 1
        left = R.CARDS_PER_TURN - st[S.ST_PLAYED]
        nl = 0
        if left >= 1 and nheal < R.MAX_ANTIDOTES:
            budget = min(left - 1, R.MAX_ANTIDOTES - nheal - 1)
            for w in range(W):
                m = bits[S.B_HAND + seat, w] & bits[S.B_MASK + S.MK_ANTIDOTE, w]
                while m != ZERO:
                    c = w * 64 + lowest(m)
                    m &= m - ONE
                    nextra = hand_antidotes(G, seat, c)
                    if heal_feasible(st, reach, total - cd[S.CD_VALUE, c], nextra, budget):
                        st[S.ST_LEGAL + nl] = S.A_PLAY + c
                        nl += 1
        if nl == 0:
            break
        if exact:
            st[S.ST_LEGAL + nl] = S.A_PASS
            nl += 1
        a = ask(G, S.D_ANTIDOTE, seat, nl)
        if a == S.A_PASS:
            break
        c = a - S.A_PLAY
        take_from_hand(G, seat, c)
        st[S.ST_CHAIN + nheal] = c
        nheal += 1
        total -= cd[S.CD_VALUE, c]
        st[S.ST_PLAYED] += 1
        st[S.ST_COUNTS + E.ANTIDOTE] += 1
    left_to_heal = total
    nhealed = 0
    while left_to_heal > 0:
        nl = 0
        for w in range(W):
            m = bits[S.B_GAUGE + seat, w] & ~bits[sc, w]
            while m != ZERO:
                k = w * 64 + lowest(m)
                m &= m - ONE
                v = st[S.ST_EVALUE + k]
                if v <= left_to_heal and (gauge_reach(G, seat, k, True) >> (left_to_heal - v)) & 1:
                    st[S.ST_LEGAL + nl] = S.A_PICK + k
                    nl += 1
        key = ask(G, S.D_HEAL, seat, nl) - S.A_PICK
        bits[sc, key >> 6] |= ONE << uint64(key & 63)
        st[S.ST_HEALED + nhealed] = key
        nhealed += 1
        left_to_heal -= st[S.ST_EVALUE + key]
    for i in range(nhealed):
        drop_entry(G, st[S.ST_HEALED + i])
    for i in range(nheal):
        to_discard(st, st[S.ST_CHAIN + i])


# ---------------------------------------------------------------- turns


@njit(cache=True, inline="always")
def main_playable(G, seat, antidotes_too):
    """The cards ``seat`` may play now as the set ``bits[B_PLAYABLE]`` and whether the bonus is legal
    (``ST_BONUS_OK``); A_END is always legal. Without ``antidotes_too`` the antidotes are left out of the
    set (their heal check is most of this function's time): ``advance`` asks so when the seat's policy
    will not read them (``pol.reads_antidotes``) and nothing from outside is checked against the set."""
    cd, st, bits = G[0], G[1], G[2]
    left = R.CARDS_PER_TURN - st[S.ST_PLAYED]
    useless = useless_count(G, seat)
    hand = S.B_HAND + seat
    if left >= 1:
        others = False
        gauged = False
        holding = False
        for s in range(st[S.ST_PLAYERS]):   # no branches: & and | of the seats' tests
            on = (s != seat) & (st[S.ST_ALIVE + s] != 0)
            others |= on
            gauged |= on & (st[S.ST_GTOTAL + s] > 0)
            holding |= on & (st[S.ST_HANDN + s] > 0)
        remove = st[S.ST_GTOTAL + seat] > 0
        # each role's mask word is taken or not by an all-ones or all-zeros word, not a branch per word
        k_give = ~ZERO if others and st[S.ST_GIFT_GIVEN] == 0 else ZERO
        k_raise = ~ZERO if gauged else ZERO
        k_mug = ~ZERO if holding and st[S.ST_HANDN + seat] >= 2 else ZERO
        k_mourn = ~ZERO if useless > 0 else ZERO
        k_remove = ~ZERO if remove else ZERO
        antidotes = ZERO
        for w in range(W):
            h = bits[hand, w]
            bits[S.B_PLAYABLE, w] = h & ((bits[S.B_MASK + S.MK_GIFT, w] & k_give)
                                         | (bits[S.B_MASK + S.MK_RAISE, w] & k_raise)
                                         | (bits[S.B_MASK + S.MK_MUGGING, w] & k_mug)
                                         | (bits[S.B_MASK + S.MK_MOURNING, w] & k_mourn)
                                         | (bits[S.B_MASK + S.MK_REMOVE, w] & k_remove))
            antidotes |= h & bits[S.B_MASK + S.MK_ANTIDOTE, w]
        if antidotes != ZERO and remove and antidotes_too:     # an empty gauge has nothing to heal
            reach = gauge_reach(G, seat, -1, False)
            budget = min(left - 1, R.MAX_ANTIDOTES - 1)
            for w in range(W):
                m = bits[hand, w] & bits[S.B_MASK + S.MK_ANTIDOTE, w]
                while m != ZERO:
                    c = w * 64 + lowest(m)
                    m &= m - ONE
                    nextra = hand_antidotes(G, seat, c)
                    if heal_feasible(st, reach, -cd[S.CD_VALUE, c], nextra, budget):
                        bits[S.B_PLAYABLE, w] |= ONE << uint64(c & 63)
    else:
        for w in range(W):
            bits[S.B_PLAYABLE, w] = ZERO
    st[S.ST_BONUS_OK] = left >= R.BONUS_GIFT_USELESS and useless >= R.BONUS_GIFT_USELESS and not (
        st[OPT + OPT_BONUS_IS_THE_GIFT] and st[S.ST_GIFT_GIVEN])


@njit(cache=True, inline="always")
def check_main(G, a):
    """The main decision ``a`` of the seat's policy (``pol.decide_main``), checked against the playable
    set (an illegal one is recorded and replaced by the first legal action)."""
    st, bits = G[1], G[2]
    if a == S.A_END:
        return a
    if a == S.A_BONUS:
        if st[S.ST_BONUS_OK]:
            return a
    elif S.A_PLAY <= a < S.A_SEAT and (bits[S.B_PLAYABLE, a >> 6] >> uint64(a & 63)) & ONE != ZERO:
        return a
    record_error(st, np.int64(S.D_MAIN), np.int64(a))
    for w in range(W):
        if bits[S.B_PLAYABLE, w] != ZERO:
            return S.A_PLAY + w * 64 + lowest(bits[S.B_PLAYABLE, w])
    return S.A_BONUS if st[S.ST_BONUS_OK] else S.A_END


@njit(cache=True, _nrt=False)
def deal(G, seed, index, players, fs, n):
    """Reset the state ``G`` for game ``index`` of run ``seed`` (``n`` cards), seed its streams, shuffle
    the pile and deal the hands (``fs``: the focus seat, whose dealt kinds go to ST_DEALT)."""
    cd, st, bits = G[0], G[1], G[2]
    for i in range(S.N_SCALARS):
        st[i] = 0
    st[S.ST_WINNER] = -1
    st[S.ST_TARGET] = -1
    st[S.ST_PCARD] = -1
    st[S.ST_FTARGET] = -1
    st[S.ST_PLAYERS] = players
    for row in range(1 + players):
        s = seed_tuple(seed, index, row)
        for w in range(4):
            bits[S.B_STREAM + row, w] = s[w]
    for c in range(n):
        st[S.ST_ESEAT + c] = -1
        st[S.ST_PILE + c] = c
    for s in range(players):
        st[S.ST_HANDN + s] = 0
        st[S.ST_GTOTAL + s] = 0
        st[S.ST_ALIVE + s] = 1
        for w in range(W):
            bits[S.B_HAND + s, w] = ZERO
            bits[S.B_GAUGE + s, w] = ZERO
    st[S.ST_NPILE] = n
    shuffle_pile(G)
    for _ in range(R.HAND_AT_SETUP):
        for s in range(players):
            st[S.ST_NPILE] -= 1
            put_in_hand(G, s, st[S.ST_PILE + st[S.ST_NPILE]])
    dealt = np.int64(0)
    for w in range(W):
        m = bits[S.B_HAND + fs, w]
        while m != ZERO:
            dealt |= np.int64(1) << cd[S.CD_KIND, w * 64 + lowest(m)]
            m &= m - ONE
    st[S.ST_DEALT] = dealt


@njit(cache=True, _nrt=False)
def resume_answer(G, seat, act):
    """Go on with the card step that halted for an answer (``ST_STEP``): the window's first answer is
    ``act`` (NO_ACTION: the responder's policy), then the step ends as it would have."""
    cd, st = G[0], G[1]
    step = st[S.ST_STEP]
    card = st[S.ST_SCARD]
    key = st[S.ST_SKEY]
    target = st[S.ST_TARGET]
    if step == STEP_GIFT_INEVITABLE:
        st[S.ST_LEGAL] = S.A_CACARMA
        st[S.ST_LEGAL + 1] = S.A_PASS
        if act == NO_ACTION:
            a = ask_call(G, np.int64(S.D_RESPOND), target, np.int64(2))
        else:
            a = checked(st, S.D_RESPOND, act, 2)
        result = play_cacarma(G, target, card) if a == S.A_CACARMA else EFFECTIVE
    else:
        kind = E.GIFT if step == STEP_GIFT else E.TRICK
        result = answer_window(G, card, seat, target, np.int64(kind), st[S.ST_PADDS], act)
    if step == STEP_RAISE:
        raise_lands(G, target, card, key, result)
    elif step == STEP_MUGGING:
        mugging_ends(G, seat, card, target, key, result)
    else:
        gift_lands(G, seat, target, card, cd[S.CD_VALUE, card], result)


@njit(cache=True, _nrt=False)
def advance(G, stop_mask, act_kind, act_a, act_target):
    """Play the game held in ``G`` on from where it stands (``ST_PHASE``, ``ST_SEAT``): the turns of
    docs/rules/gifts.md as a phase machine, so the real game and every playout of a search run the same
    compiled rules from any decision point. The decision ``act_kind`` (if any) is carried out first
    instead of asking the policy (checked like a policy's); after it, every seat's policy decides,
    except that the game halts at the next main decision of a seat in ``stop_mask`` (bit per seat), or
    at the first answer such a seat gives to a card played on it. Returns the phase it halted at
    (PH_END: over).

    A turn: up to 3 cards, each a main decision (``main_playable``, ``pol.decide_main``, ``check_main``)
    and its card's step, then A_END and a draw; a player eliminated in it (or the game's end) ends it
    without the draw. The turn is written out here: inlined as a function it was most of the kernel's
    compile time (module docstring)."""
    cd, st = G[0], G[1]
    players = st[S.ST_PLAYERS]
    max_turns = st[OPT + OPT_MAX_TURNS]
    st[S.ST_STOPMASK] = stop_mask
    seat = st[S.ST_SEAT]
    phase = st[S.ST_PHASE]
    halted = False
    while phase != PH_END:
        if phase == PH_TURN:
            if st[S.ST_TURN] >= max_turns:
                finish(st, -1, 1)
                phase = PH_END
                break
            st[S.ST_TURN] += 1
            st[S.ST_PLAYED] = 0
            st[S.ST_GIFT_GIVEN] = 0
            phase = PH_MAIN
        while True:
            halted = False
            if phase == PH_RESPOND:
                responder = st[S.ST_TARGET]
                if act_kind == ACT_ANSWER:
                    resume_answer(G, seat, act_a)
                    act_kind = ACT_NONE
                elif act_kind != ACT_NONE:
                    raise ValueError("a main decision given where the game awaits an answer")
                elif (stop_mask >> responder) & 1:
                    halted = True
                    break
                else:
                    resume_answer(G, seat, np.int64(NO_ACTION))
                phase = PH_MAIN
            else:
                main_playable(G, seat, act_kind != ACT_NONE or (stop_mask >> seat) & 1 != 0
                              or pol.reads_antidotes(seat, G))
                if act_kind == ACT_MAIN:
                    a = check_main(G, act_a)
                    st[S.ST_FTARGET] = act_target
                    act_kind = ACT_NONE
                elif act_kind != ACT_NONE:
                    raise ValueError("an answer given where the game awaits a main decision")
                elif (stop_mask >> seat) & 1:
                    halted = True
                    break
                else:
                    a = check_main(G, pol.decide_main(seat, G))
                if a == S.A_END:
                    draw_card(G, seat)
                    break
                if a == S.A_BONUS:
                    give_bonus_gift(G, seat)
                else:
                    card = a - S.A_PLAY
                    take_from_hand(G, seat, card)
                    st[S.ST_PLAYED] += 1
                    st[S.ST_COUNTS + cd[S.CD_TYPE, card]] += 1
                    e = cd[S.CD_EFFECT, card]
                    if e == E.E_GIFT or e == E.E_GOLDEN_GIFT:
                        halted = give_cursed_gift(G, seat, card)
                    elif e == E.E_ANTIDOTE:
                        antidote(G, seat, card)
                    elif e == E.E_RAISE_GIFT:
                        halted = raise_gift(G, seat, card)
                    elif e == E.E_MUGGING:
                        halted = mugging(G, seat, card)
                    elif e == E.E_DAY_OF_MOURNING:
                        day_of_mourning(G, seat, card)
                    elif e == E.E_REMOVE_GIFT:
                        remove_gift(G, seat, card)
                if halted:
                    phase = PH_RESPOND
                    break
            st[S.ST_PCARD] = -1
            st[S.ST_PADDS] = 0
            st[S.ST_TARGET] = -1
            st[S.ST_FTARGET] = -1
            if st[S.ST_OVER] or not st[S.ST_ALIVE + seat]:
                break
        if halted:
            break
        if st[S.ST_OVER]:
            phase = PH_END
            break
        s = (seat + 1) % players
        while not st[S.ST_ALIVE + s]:
            s = (s + 1) % players
        seat = s
        phase = PH_TURN
    if act_kind != ACT_NONE:
        raise ValueError("a decision given to a game that is over")
    st[S.ST_SEAT] = seat
    st[S.ST_PHASE] = phase
    return phase


@njit(cache=True, _nrt=False, inline="always")
def play_game(G, seed, index, players, fs, n):
    """Deal game ``index`` of run ``seed`` (``n`` cards) and play it to its end in the state ``G``
    (``fs``: the focus seat, whose dealt kinds go to ST_DEALT), every decision its seat's policy's.
    Inlined in ``play_chunk``: as a call of its own, its compile optimized ``advance``'s linked code once
    more (~3 s cold)."""
    deal(G, seed, index, players, fs, n)
    advance(G, np.int64(0), np.int64(ACT_NONE), np.int64(NO_ACTION), np.int64(-1))


#: The outcome row of a game (``play_chunk``'s ``out``): these columns, in order.
OUT_NAMES = (("winner_seat", "turns", "elimination_order", "unfinished") + tuple(f"played_{k}" for k in R.KIND_NAMES)
             + ("ripostes", "cacarmas", "bonus_gifts", "focus_seat", "focus_dealt"))
N_OUT = len(OUT_NAMES)


@njit(cache=True, inline="always")
def write_outcome(st, out, g, fs):
    """Row ``g`` of ``out``: the finished game's outcome (``OUT_NAMES``); ``fs`` its focus seat."""
    out[g, 0] = st[S.ST_WINNER]
    out[g, 1] = st[S.ST_TURN]
    out[g, 2] = st[S.ST_ELIM]
    out[g, 3] = st[S.ST_UNFINISHED]
    for k in range(5):
        out[g, 4 + k] = st[S.ST_COUNTS + k]
    out[g, 9] = st[S.ST_RIPOSTES]
    out[g, 10] = st[S.ST_CACARMAS]
    out[g, 11] = st[S.ST_BONUS]
    out[g, 12] = fs
    out[g, 13] = st[S.ST_DEALT]


@njit(cache=True)
def play_chunk(seed, start, count, players, opts, cd, masks, focus_id, focus_params, field_id, field_params,
               focus_seat, out):
    """Play games start .. start+count-1; fill ``out`` (count x 15: winner, turns, elimination order,
    unfinished, played by type (5), ripostes, cacarmas, bonus gifts, focus seat, the kinds dealt to the
    focus seat). Returns (game offset, error code) of the first illegal decision, else (0, 0)."""
    n = cd.shape[1]
    st = np.zeros(S.N_ST, np.int64)
    bits = np.zeros((S.N_BROWS, W), np.uint64)
    params = np.zeros((R.MAX_PLAYERS, pol.N_PARAMS), np.float64)
    for i in range(opts.shape[0]):
        st[OPT + i] = opts[i]
    for r in range(S.N_MASKS):
        for w in range(W):
            bits[S.B_MASK + r, w] = masks[r, w]
    G = (cd, st, bits, params)
    for g in range(count):
        index = start + g
        fs = index % players if focus_seat < 0 else focus_seat
        for s in range(players):
            if s == fs:
                st[S.ST_PID + s] = focus_id
                for k in range(pol.N_PARAMS):  # element by element: a slice copy compiles numba's shape-error text
                    params[s, k] = focus_params[k]
            else:
                st[S.ST_PID + s] = field_id
                for k in range(pol.N_PARAMS):  # element by element: a slice copy compiles numba's shape-error text
                    params[s, k] = field_params[k]
        play_game(G, seed, index, players, fs, n)
        if st[S.ST_ERR] != NO_ERROR:
            return g, st[S.ST_ERR]
        write_outcome(st, out, g, fs)
    return 0, NO_ERROR


def card_masks(arr: dict[str, np.ndarray]) -> np.ndarray:
    """The (N_MASKS, W) uint64 card sets by role (state.MK_*) of a deck's arrays."""
    masks = np.zeros((S.N_MASKS, W), np.uint64)
    riposte = (arr["flags"] & E.RIPOSTE) != 0
    effect = arr["effect"]
    members = {S.MK_USELESS: arr["type"] == E.USELESS, S.MK_ANTIDOTE: effect == E.E_ANTIDOTE,
               S.MK_RIPOSTE: riposte, S.MK_ANSWERS_ATTACK: riposte & (effect == E.E_RIPOSTE_CANCEL),
               S.MK_ANSWERS_DEFENSE: riposte & (effect == E.E_CANCEL_DEFENSE), S.MK_GIFT: arr["type"] == E.GIFT,
               S.MK_RAISE: effect == E.E_RAISE_GIFT, S.MK_MUGGING: effect == E.E_MUGGING,
               S.MK_MOURNING: effect == E.E_DAY_OF_MOURNING, S.MK_REMOVE: effect == E.E_REMOVE_GIFT}
    for row, member in members.items():
        for c in np.flatnonzero(member):
            masks[row, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    return masks


def card_data(arr: dict[str, np.ndarray]) -> np.ndarray:
    """The (N_CD, copies) int64 card facts of a deck's arrays (state.CD_* rows)."""
    cd = np.zeros((S.N_CD, arr["type"].shape[0]), np.int64)
    for row, key in ((S.CD_TYPE, "type"), (S.CD_VALUE, "value"), (S.CD_FLAGS, "flags"), (S.CD_EFFECT, "effect"),
                     (S.CD_KIND, "kind")):
        cd[row] = arr[key]
    return cd


# ---------------------------------------------------------------- Python entry


def policy_id(policy) -> int:
    """A policy name or kernel id -> its kernel id."""
    if isinstance(policy, str):
        if policy not in P.ALL_POLICIES:
            raise UnknownPolicyError(f"unknown gifts policy {policy!r}; valid policies: {', '.join(P.ALL_POLICIES)}")
        return P.ALL_POLICIES[policy].policy_id
    return int(policy)


def prepare_run(players, options, focus_seat, deck):
    """Check a run's table and resolve its options: (players, the option array, the deck)."""
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
    return players, opts, deck


def raise_error(seed, start, game, err) -> None:
    """A RunError naming the game, decision and action of ``play_chunk``'s error code (none: nothing)."""
    if err != NO_ERROR:
        kind, action = divmod(int(err) - 1, S.N_ACTIONS)
        raise RunError(f"game {start + int(game)} of seed {seed}: a policy chose {S.action_name(action)!r} "
                       f"(action {action}), which is not legal at decision {S.DECISION_NAMES[kind]!r}")


def columns(out: np.ndarray) -> dict[str, np.ndarray]:
    """The outcome arrays by column (``rules.OUTCOME_DTYPES``) plus ``focus_seat`` (int8) of ``out``."""
    cols = {name: out[:, k] for k, name in enumerate(OUT_NAMES)}
    result = {column: cols[column].astype(dtype) for column, dtype in R.OUTCOME_DTYPES.items()}
    result["focus_seat"] = cols["focus_seat"].astype(np.int8)
    return result


def run_chunk(seed: int, start: int, count: int, players: int, options, focus_id, focus_params, field_id,
              field_params, focus_seat: int = -1, *, deck: Deck | None = None) -> dict[str, np.ndarray]:
    """Play games ``start .. start+count-1`` of run ``seed``: the focus seat plays ``focus_id``, every
    other seat ``field_id`` (ids of ``policy_specs`` or names; parameters as float64 vectors in the
    spec's order, None for the defaults). ``focus_seat`` -1 rotates (game i: seat i % players).
    ``options``: a RuleOptions (its ``deck`` loaded) or the int array of ``option_array`` (then ``deck``,
    default the default deck). Returns the outcome arrays by column (``rules.OUTCOME_DTYPES``) plus
    ``focus_seat`` (int8). An illegal decision raises a RunError naming the game, decision and action.
    The search ``rollout`` plays in ``rollout.run_chunk``."""
    players, opts, deck = prepare_run(players, options, focus_seat, deck)
    ids = [policy_id(focus_id), policy_id(field_id)]
    if P.ROLLOUT in ids:
        raise UnknownPolicyError("gifts policy 'rollout' is a search: its games are played by rollout.run_chunk")
    vectors = []
    for pid, params in zip(ids, (focus_params, field_params)):
        spec = next(s for s in P.POLICIES.values() if s.policy_id == pid)
        vectors.append(pol.params_array(spec.param_vector() if params is None else params))
    arr = deck.arrays()
    out = np.zeros((count, N_OUT), np.int64)
    game, err = play_chunk(np.uint64(seed), np.int64(start), np.int64(count), np.int64(players), opts,
                           card_data(arr), card_masks(arr), np.int64(ids[0]), vectors[0], np.int64(ids[1]),
                           vectors[1], np.int64(focus_seat), out)
    raise_error(seed, start, game, err)
    return columns(out)
