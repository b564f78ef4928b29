"""Curses & Covens policies as numba functions, one dispatcher per side: the twins of
``reference_policies`` (same decisions, same draws), played by the kernel.

A policy reads a view and the legal actions, never the table. ``HunterView`` and ``TownView`` hold the
fields the spec lets that side see (docs/rules/covens.md, "Views"), built by the kernel's ``observe_*``;
``legal`` is the set of legal action ids (``state.A_*``) as four uint64 words (bit a of the set = action a
is legal), so "the j-th legal action" is the j-th set bit in ascending id order, as the reference lists
them. ``params`` is a ``MAX_PARAMS``-tuple of floats (a policy's own parameters first), ``rng`` the side's
stream as a state tuple, returned advanced:

- ``hunter_decide(policy_id, params, rng, view, legal) -> (action, rng)``
- ``town_decide(policy_id, params, rng, view, legal) -> (action, rng)``

The engine checks the action against ``legal``; an illegal one ends the run with a RunError.
"""

from __future__ import annotations

from collections import namedtuple

from numba import int64, njit, uint64
from numba.cpython.unsafe.tuple import tuple_setitem

from cursedsim.bits import ONE, ZERO, bit, count, has, lowest, nth, tuple_get
from cursedsim.games.covens import policy_specs as PS
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens import tables as TB
from cursedsim.rng import below_t

#: Length of the parameter tuple every policy receives (its own parameters first, zeros after).
MAX_PARAMS = 8
#: Travel-log entries a round can hold: one per action and one per further Passage card; a Travel has
#: ``towns`` actions, each moving fewer than 27 cards, and Passage (one spell a round) excludes Nature.
LOG_SIZE = R.MAX_TOWNS * R.N_CARDS

HUNTER_POLICIES = PS.HUNTER_POLICIES
TOWN_POLICIES = PS.TOWN_POLICIES

#: What the hunter sees at a decision (docs/rules/covens.md, "Views"). Card sets are masks (bit c =
#: card c); per-town fields are ``MAX_TOWNS``-tuples (entries past ``towns`` are 0). ``town``: the town
#: a deal is for, the source of a picked townsfolk, else -1. ``deck_witches``: deck positions from the
#: top (bit i) he knows to hold a witch. ``log[:n_log]``: this round's travel log (an int64 array of
#: ``log_entry`` values; ``n_log`` is 0 under Darkness).
HunterView = namedtuple("HunterView", (
    "round", "kind", "towns", "up", "active", "captured", "fake", "rituals", "sizes", "deck", "hat",
    "reveals", "n_reveals", "census", "announced", "dealt", "drawn", "log", "n_log", "woods_known",
    "deck_witches", "town"))
#: What one town (``me``; -1 for a census decision of the whole side) sees: its own ``hand``, the
#: cards it ``gave`` and ``received`` this round, the woods card it knows (-1 if none), and ``other``:
#: the asker (D_ANSWER) or the first give's target (D_MORE), else -1.
TownView = namedtuple("TownView", (
    "round", "kind", "towns", "up", "active", "captured", "fake", "rituals", "sizes", "deck", "hat",
    "reveals", "n_reveals", "census", "announced", "log", "n_log", "me", "hand", "gave", "received",
    "woods_known", "other"))

# ---------------------------------------------------------------- travel log and hunt reveals (packed)


@njit(cache=True, inline="always")
def log_entry(actor, kind, target, moved):
    """One travel-log entry packed in an int64: actor, ``state.LOG_*`` kind, target town (-1: none or
    the woods), cards moved."""
    return actor | (kind << 3) | ((target + 1) << 5) | (moved << 8)


@njit(cache=True, inline="always")
def log_fields(entry):
    """(actor, kind, target, moved) of a packed log entry."""
    return entry & 7, (entry >> 3) & 3, ((entry >> 5) & 7) - 1, entry >> 8


@njit(cache=True, inline="always")
def reveal_entry(town, card, to):
    """One Hunt reveal packed: source town, card, where a townsfolk went (-1: nowhere)."""
    return town | (card << 3) | ((to + 1) << 8)


@njit(cache=True, inline="always")
def reveal_fields(entry):
    """(town, card, to) of a packed reveal."""
    return entry & 7, (entry >> 3) & 31, ((entry >> 8) & 7) - 1


# ---------------------------------------------------------------- legal action sets (4 uint64 words)

NO_LEGAL = (ZERO, ZERO, ZERO, ZERO)


@njit(cache=True, inline="always")
def legal_add(legal, action):
    """The set with ``action`` added."""
    word = action >> 6
    return tuple_setitem(legal, word, tuple_get(legal, word) | (ONE << uint64(action & 63)))


@njit(cache=True, inline="always")
def legal_has(legal, action):
    """Whether ``action`` (any int) is in the set."""
    if action < 0 or action >= S.N_ACTIONS:
        return False
    return (tuple_get(legal, action >> 6) >> uint64(action & 63)) & ONE != ZERO


@njit(cache=True, inline="always")
def legal_count(legal):
    """Number of legal actions."""
    return count(legal[0]) + count(legal[1]) + count(legal[2]) + count(legal[3])


@njit(cache=True)
def legal_nth(legal, j):
    """The j-th legal action (from 0) in ascending id order."""
    for w in range(4):
        word = tuple_get(legal, w)
        k = count(word)
        if j < k:
            return 64 * w + nth(word, j)
        j -= k
    return -1


@njit(cache=True, inline="always")
def legal_in(legal, first, n):
    """The legal actions among ``first .. first+n-1`` as a mask (bit i = action first+i; n <= 64)."""
    w0 = first >> 6
    s = uint64(first & 63)
    lo = tuple_get(legal, w0) >> s
    if s != 0 and w0 < 3:
        lo |= tuple_get(legal, w0 + 1) << uint64(64 - (first & 63))
    return lo & ((ONE << uint64(n)) - ONE) if n < 64 else lo


@njit(cache=True)
def random_action(legal, rng):
    """The ``random`` policy of either side: j = below(number of legal actions), the j-th of them."""
    j, rng = below_t(rng, legal_count(legal))
    return legal_nth(legal, j), rng


# ---------------------------------------------------------------- card classes


@njit(cache=True, inline="always")
def suit_witches(hand, suit):
    """Witches of ``suit`` in a hand, the wild counting (a coven's count)."""
    return count(hand & uint64(TB.SUIT_MASK[suit])) + count(hand & uint64(TB.WILD_BIT))


# ---------------------------------------------------------------- hunter: largest_hand


@njit(cache=True)
def largest_hand(view, legal):
    """Pick / Doom: the town with the most cards; townsfolk: the allowed town with the fewest; a deal
    under a ritual: the lowest-code card left; never shuffles (ties: lowest town)."""
    kind = view.kind
    if kind == S.D_SHUFFLE:
        return S.A_NO
    if kind == S.D_DEAL:
        cards = legal_in(legal, S.A_CARD, R.N_CARDS)
        return S.A_CARD + lowest(cards) if cards != ZERO else S.A_NO
    towns = legal_in(legal, S.A_TOWN, S.MAX_TOWNS)
    best = -1
    best_size = -1
    for u in range(view.towns):
        if not has(towns, u):
            continue
        size = tuple_get(view.sizes, u)
        if kind == S.D_TOWNSFOLK:
            size = -size
        if best < 0 or size > best_size:
            best = u
            best_size = size
    return S.A_TOWN + best


# ---------------------------------------------------------------- hunter: tracker

P_RITUAL_FEAR = 0
P_FAKE_FEAR = 1
P_TRUST = 2
P_SHUFFLE = 3


@njit(cache=True)
def tracker_belief(view):
    """Expected (witches, fakes, rituals, townsfolk) per location (towns 0..T-1, the woods at T) as four
    6-tuples: exact census hands and dealt cards, the pool spread over woods and deck by size, the
    travel log replayed, this Hunt's reveals applied."""
    towns = view.towns
    w = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    f = w
    r = w
    s = w
    n = w
    known = view.captured | uint64(TB.FAKE_BIT if view.fake else 0) | view.drawn
    for t in range(towns):
        hand = tuple_get(view.census, t) | tuple_get(view.dealt, t)
        known |= hand
        w = tuple_setitem(w, t, float(count(hand & uint64(TB.TRUE_WITCH_MASK))))
        f = tuple_setitem(f, t, float(count(hand & uint64(TB.FAKE_BIT))))
        r = tuple_setitem(r, t, float(count(hand & uint64(TB.RITUAL_MASK))))
        s = tuple_setitem(s, t, float(count(hand & uint64(TB.FOLK_MASK))))
        n = tuple_setitem(n, t, float(count(hand)))
    ritual_cards = view.rituals
    pool = uint64(TB.ALL_CARDS_MASK) & ~known
    pool_n = float(count(pool) - ritual_cards)
    share = 1.0 / (1.0 + view.deck) if pool_n > 0 else 0.0
    w = tuple_setitem(w, towns, count(pool & uint64(TB.TRUE_WITCH_MASK)) * share)
    f = tuple_setitem(f, towns, count(pool & uint64(TB.FAKE_BIT)) * share)
    r = tuple_setitem(r, towns, max(count(pool & uint64(TB.RITUAL_MASK)) - ritual_cards, 0) * share)
    s = tuple_setitem(s, towns, count(pool & uint64(TB.FOLK_MASK)) * share)
    n = tuple_setitem(n, towns, 1.0)
    for i in range(view.n_log):
        actor, kind, target, moved = log_fields(view.log[i])
        if kind == S.LOG_PASS or moved == 0:
            continue
        src = actor if kind != S.LOG_ASK else target
        dst = target if kind != S.LOG_ASK else actor
        if kind == S.LOG_SWAP:
            dst = towns
        na = tuple_get(n, src)
        if na <= 0:
            continue
        q = 1.0 / na
        dw = tuple_get(w, src) * q
        df = tuple_get(f, src) * q
        dr = tuple_get(r, src) * q
        ds = tuple_get(s, src) * q
        if kind == S.LOG_SWAP:
            ew, ef, er, es = tuple_get(w, towns), tuple_get(f, towns), tuple_get(r, towns), tuple_get(s, towns)
            w = tuple_setitem(tuple_setitem(w, src, tuple_get(w, src) - dw + ew), towns, dw)
            f = tuple_setitem(tuple_setitem(f, src, tuple_get(f, src) - df + ef), towns, df)
            r = tuple_setitem(tuple_setitem(r, src, tuple_get(r, src) - dr + er), towns, dr)
            s = tuple_setitem(tuple_setitem(s, src, tuple_get(s, src) - ds + es), towns, ds)
            continue
        w = tuple_setitem(tuple_setitem(w, src, tuple_get(w, src) - dw), dst, tuple_get(w, dst) + dw)
        f = tuple_setitem(tuple_setitem(f, src, tuple_get(f, src) - df), dst, tuple_get(f, dst) + df)
        r = tuple_setitem(tuple_setitem(r, src, tuple_get(r, src) - dr), dst, tuple_get(r, dst) + dr)
        s = tuple_setitem(tuple_setitem(s, src, tuple_get(s, src) - ds), dst, tuple_get(s, dst) + ds)
        n = tuple_setitem(tuple_setitem(n, src, na - 1.0), dst, tuple_get(n, dst) + 1.0)
    return w, f, r, s


@njit(cache=True)
def tracker_scores(view, params):
    """Score of each town (W - fake_fear*C*F - ritual_fear*(1+K)*R)/N + trust*[announced]; -inf for an
    empty town."""
    w, f, r, s = tracker_belief(view)
    c = float(count(view.captured))
    k = float(view.rituals)
    scores = (-1e300, -1e300, -1e300, -1e300, -1e300)
    for u in range(view.towns):
        size = tuple_get(view.sizes, u)
        if size < 1:
            continue
        score = (tuple_get(w, u) - params[P_FAKE_FEAR] * c * tuple_get(f, u)
                 - params[P_RITUAL_FEAR] * (1.0 + k) * tuple_get(r, u)) / size
        if u == view.announced:
            score += params[P_TRUST]
        scores = tuple_setitem(scores, u, score)
    return scores


@njit(cache=True)
def tracker(view, params, legal):
    """The ``tracker`` hunter: picks and Doom on the highest score, a townsfolk to the lowest-scoring
    allowed town, ritual deals by rank, a shuffle when a known witch is in the top T of the deck."""
    kind = view.kind
    if kind == S.D_SHUFFLE:
        window = (ONE << uint64(min(view.towns, view.deck))) - ONE
        if params[P_SHUFFLE] >= 0.5 and view.deck_witches & window != ZERO:
            return S.A_YES
        return S.A_NO
    scores = tracker_scores(view, params)
    if kind == S.D_DEAL:
        cards = legal_in(legal, S.A_CARD, R.N_CARDS)
        if cards == ZERO:
            return S.A_NO
        # rank of this town among the towns still to serve and the cards left, by score
        me = view.town
        rank = 0
        for u in range(view.towns):
            if u == me or u < me:
                continue
            if tuple_get(scores, u) > tuple_get(scores, me):
                rank += 1
        rank = min(rank, count(cards) - 1)
        best = -1
        for _ in range(rank + 1):
            best = -1
            best_value = -1
            rest = cards
            while rest != ZERO:
                c = lowest(rest)
                rest &= rest - ONE
                if TB.CARD_VALUE[c] > best_value:
                    best = c
                    best_value = TB.CARD_VALUE[c]
            cards &= ~bit(best)
        return S.A_CARD + best
    towns = legal_in(legal, S.A_TOWN, S.MAX_TOWNS)
    best = -1
    best_score = 0.0
    for u in range(view.towns):
        if not has(towns, u):
            continue
        score = tuple_get(scores, u)
        if kind == S.D_TOWNSFOLK:
            score = -score
        if best < 0 or score > best_score:
            best = u
            best_score = score
    return S.A_TOWN + best


@njit(cache=True)
def hunter_decide(policy_id, params, rng, view, legal):
    """The hunter policy ``policy_id``'s action at this decision: (action, rng)."""
    if policy_id == PS.HUNTER_LARGEST_HAND:
        return largest_hand(view, legal), rng
    if policy_id == PS.HUNTER_TRACKER:
        return tracker(view, params, legal), rng
    return random_action(legal, rng)


# ---------------------------------------------------------------- town: coven and bluff

P_RISK = 0
P_FEED = 1
P_CAST = 2

#: The order ``coven`` prefers castable sides in.
SPELL_PREFERENCE = (R.DARKNESS, R.NATURE_SPELL, R.PASSAGE, R.DOOM, R.DESPAIR, R.GROWTH)


@njit(cache=True)
def coven_plan(view):
    """(gatherer g, suit s): the census hand with the most witches of one suit (wild counting); ties
    lowest town, then suit."""
    g = 0
    s = 0
    best = -1
    for t in range(view.towns):
        hand = tuple_get(view.census, t)
        for suit in range(R.N_SUITS):
            k = suit_witches(hand, suit)
            if k > best:
                best = k
                g = t
                s = suit
    return g, s


@njit(cache=True)
def coven(view, params, legal, bluff):
    """The ``coven`` town (``bluff``: announcing a decoy): gather the witches of one suit at one town."""
    kind = view.kind
    towns = view.towns
    g, s = coven_plan(view)
    wanted = uint64(TB.SUIT_MASK[s]) | uint64(TB.WILD_BIT)
    if kind == S.D_SPELL:
        if params[P_CAST] >= 0.5:
            tiles = legal_in(legal, S.A_SPELL, R.N_TILES)
            for spell in SPELL_PREFERENCE:
                for tile in range(R.N_TILES):
                    if has(tiles, tile) and tuple_get(view.up, tile) == spell:
                        return S.A_SPELL + tile
        return S.A_NO
    if kind == S.D_ANNOUNCE:
        if not bluff:
            return S.A_TOWN + g
        decoy = -1
        fewest = 99
        for t in range(towns):
            k = count(tuple_get(view.census, t) & uint64(TB.TRUE_WITCH_MASK))
            if t != g and k < fewest:
                decoy = t
                fewest = k
        return S.A_TOWN + decoy
    if kind == S.D_HAT:
        holder = -1
        most = 0
        for t in range(towns):
            k = count(tuple_get(view.census, t) & wanted)
            if t != g and k > most:
                holder = t
                most = k
        return S.A_TOWN + (holder if holder >= 0 else (g + 1) % towns)
    hand = view.hand
    me = view.me
    if kind == S.D_ANSWER:
        if view.other == g and hand & wanted != ZERO:
            return S.A_CARD + lowest(hand & wanted)
        for group in (uint64(TB.FOLK_MASK), uint64(TB.RITUAL_MASK), uint64(TB.FAKE_BIT),
                      uint64(TB.TRUE_WITCH_MASK) & ~wanted, wanted):
            if hand & group != ZERO:
                return S.A_CARD + lowest(hand & group)
        return S.A_CARD + lowest(hand)
    if kind == S.D_MORE:
        if hand & wanted != ZERO:
            action = S.A_GIVE + lowest(hand & wanted) * S.MAX_TOWNS + g
            if legal_has(legal, action):
                return action
        return S.A_NO
    # D_TRAVEL
    n = count(hand)
    if me != g and n >= 2 and hand & wanted != ZERO:
        return S.A_GIVE + lowest(hand & wanted) * S.MAX_TOWNS + g
    if me == g:
        source = -1
        most = 0
        for t in range(towns):
            k = count(tuple_get(view.census, t) & wanted)
            if t != g and k > most and tuple_get(view.sizes, t) >= 2:
                source = t
                most = k
        if source >= 0 and legal_has(legal, S.A_ASK + source):
            return S.A_ASK + source
    witches = hand & uint64(TB.TRUE_WITCH_MASK)
    if n > 0 and count(witches) >= params[P_RISK] * n and witches & ~wanted != ZERO:
        known = view.woods_known
        if not (known >= 0 and known < R.N_TRUE_WITCHES):
            return S.A_SWAP + lowest(witches & ~wanted)
    if params[P_FEED] >= 0.5 and n >= 2 and hand & uint64(TB.RITUAL_MASK) != ZERO and me != g:
        return S.A_GIVE + lowest(hand & uint64(TB.RITUAL_MASK)) * S.MAX_TOWNS + g
    if n >= 2:
        spare = hand & uint64(TB.FOLK_MASK)
        if spare == ZERO:
            spare = hand & ~uint64(TB.TRUE_WITCH_MASK)
        if spare == ZERO:
            spare = hand
        target = -1
        fewest = 99
        for t in range(towns):
            if t != me and tuple_get(view.sizes, t) < fewest:
                target = t
                fewest = tuple_get(view.sizes, t)
        return S.A_GIVE + lowest(spare) * S.MAX_TOWNS + target
    ask = g if me != g else (me + 1) % towns
    if legal_has(legal, S.A_ASK + ask):
        return S.A_ASK + ask
    return legal_nth(legal, 0)


@njit(cache=True)
def town_decide(policy_id, params, rng, view, legal):
    """The town policy ``policy_id``'s action at this decision: (action, rng)."""
    if policy_id == PS.TOWN_COVEN:
        return coven(view, params, legal, False), rng
    if policy_id == PS.TOWN_BLUFF:
        return coven(view, params, legal, True), rng
    return random_action(legal, rng)


def params_tuple(vector) -> tuple:
    """A policy's parameter vector as the fixed-length float tuple the kernel takes."""
    values = [float(v) for v in vector]
    if len(values) > MAX_PARAMS:
        raise ValueError(f"at most {MAX_PARAMS} policy parameters, got {len(values)}")
    return tuple(values + [0.0] * (MAX_PARAMS - len(values)))
