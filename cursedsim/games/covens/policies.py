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

from llvmlite import ir
from numba import int64, njit, types, uint64
from numba.extending import intrinsic

from cursedsim.bits import ONE, ZERO, bit, count, has, lowest, nth, select_get, select_set
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

#: What the hunter sees at a decision (``reference.HunterView``, field for field where a policy reads
#: it). Card sets are masks (bit c = card c); per-town fields are ``MAX_TOWNS``-tuples (entries past
#: ``towns`` are 0, ``after_travel`` -1 before this round's Travel ended). ``about``: the town a deal is
#: for, the source of a picked townsfolk, else -1. ``deck_witches``: deck positions from the top (bit i)
#: he knows to hold a true witch. ``log``: this round's travel log, ``n_log`` entries read with
#: ``log_at(view.log, i)`` (``log_entry`` values; none under Darkness); ``reveals[:n_reveals]``: this
#: Hunt's picks (``reveal_entry`` values).
HunterView = namedtuple("HunterView", (
    "round", "kind", "about", "towns", "up", "active", "captured", "fake", "rituals", "ritual_cards",
    "cards_in_game", "sizes", "deck", "reveals", "n_reveals", "after_travel", "census", "announced", "log",
    "n_log", "woods_known", "dealt", "deal_left", "drawn", "deck_witches"))
#: What one town (``me``; -1 for a census decision of the whole side) sees: the public fields, its own
#: ``hand``, the cards it ``gave`` and ``received`` this round, the woods card it knows (-1 if none);
#: ``about``: the asker (D_ANSWER), the first give's target (D_MORE), else -1.
TownView = namedtuple("TownView", (
    "round", "kind", "about", "towns", "up", "active", "captured", "fake", "rituals", "sizes", "deck",
    "reveals", "n_reveals", "census", "announced", "log", "n_log", "woods_known", "me", "hand", "gave",
    "received"))

# ---------------------------------------------------------------- travel log and hunt reveals (packed)
# A view carries the travel log as the address of the kernel's log array (read-only through
# ``log_at``): an array in a view would cost two atomic reference-count operations per decision, about
# a tenth of the kernel's time with the tracker.


@intrinsic
def _load_int64(typingctx, address, index):
    """The int64 at ``address`` + 8 * ``index`` (no bounds check: ``index`` < the entries written)."""
    if not isinstance(address, types.Integer) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load(builder.gep(pointer, [args[1]]))

    return types.int64(address, index), codegen


@njit(cache=True, inline="always")
def log_at(log, i):
    """Entry i of a view's travel log (``view.log``, i < ``view.n_log``)."""
    return _load_int64(log, i)



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


@intrinsic
def or_word(typingctx, legal, word, m):
    """``legal`` with ``m`` or-ed into word ``word``: ``legal[k] | (m if word == k else 0)`` for each k, four
    selects. An intrinsic is one call to type; the four ``if``s were typed again at each of the ~25 places
    ``legal_add`` is inlined (~1,800 of ``kernel.advance``'s 15,800 typed statements)."""
    if not (isinstance(legal, types.UniTuple) and isinstance(word, types.Integer)
            and isinstance(m, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        value, index, mask = args
        mask = context.cast(builder, mask, signature.args[2], legal.dtype)
        result = context.get_constant_undef(signature.return_type)
        for k in range(legal.count):
            pick = builder.select(builder.icmp_signed("==", index, index.type(k)), mask, mask.type(0))
            result = builder.insert_value(result, builder.or_(builder.extract_value(value, k), pick), k)
        return result

    return legal(legal, word, m), codegen


@njit(cache=True, inline="always")
def legal_add(legal, action):
    """The set with ``action`` added (four selects: the set stays in registers)."""
    return or_word(legal, action >> 6, ONE << uint64(action & 63))


@njit(cache=True, inline="always")
def legal_has(legal, action):
    """Whether ``action`` (any int) is in the set."""
    if action < 0 or action >= S.N_ACTIONS:
        return False
    return (select_get(legal, action >> 6) >> uint64(action & 63)) & ONE != ZERO


@njit(cache=True, inline="always")
def legal_count(legal):
    """Number of legal actions."""
    return count(legal[0]) + count(legal[1]) + count(legal[2]) + count(legal[3])


@njit(cache=True)
def legal_nth(legal, j):
    """The j-th legal action (from 0) in ascending id order."""
    for w in range(4):
        word = select_get(legal, w)
        k = count(word)
        if j < k:
            return 64 * w + nth(word, j)
        j -= k
    return -1


@njit(cache=True, inline="always")
def legal_first(legal):
    """The lowest legal action: ``legal_nth(legal, 0)`` with the 0 an int64 (a literal argument would
    compile ``legal_nth`` once more)."""
    return legal_nth(legal, int64(0))


@njit(cache=True, inline="always")
def legal_in(legal, first, n):
    """The legal actions among ``first .. first+n-1`` as a mask (bit i = action first+i; n <= 64)."""
    w0 = first >> 6
    s = uint64(first & 63)
    lo = select_get(legal, w0) >> s
    if s != 0 and w0 < 3:
        lo |= select_get(legal, w0 + 1) << uint64(64 - (first & 63))
    return lo & ((ONE << uint64(n)) - ONE) if n < 64 else lo


@njit(cache=True, inline="always")
def random_action(legal, rng):
    """The ``random`` policy of either side: j = below(number of legal actions), the j-th of them.
    Inlined: as a call (a tuple returned through memory, a status checked) it cost about an eighth of
    the kernel's time with random against random (docs/performance.md, "Where the time goes")."""
    j, rng = below_t(rng, legal_count(legal))
    return legal_nth(legal, j), rng


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
        size = select_get(view.sizes, u)
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
P_THREAT = 4

TRUE_WITCHES = uint64(TB.TRUE_WITCH_MASK)
FAKE_BIT = uint64(TB.FAKE_BIT)
RITUALS = uint64(TB.RITUAL_MASK)
FOLK = uint64(TB.FOLK_MASK)
#: The cards of each ``tables.CARD_VALUE``, highest value first (the tracker deals in this order).
VALUE_ORDER = tuple(uint64(sum(1 << c for c in range(R.N_CARDS) if TB.CARD_VALUE[c] == v))
                    for v in sorted(set(TB.CARD_VALUE.tolist()), reverse=True))
NO_COUNTS = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@njit(cache=True)
def move_share(counts, src, dst, n):
    """One class's counts after one unknown card moved from ``src`` to ``dst`` (``src`` held n)."""
    m = select_get(counts, src) / n
    counts = select_set(counts, src, select_get(counts, src) - m)
    return select_set(counts, dst, select_get(counts, dst) + m)


@njit(cache=True)
def swap_share(counts, a, woods, n):
    """One class's counts after town a (holding n) swapped an unknown card with the woods."""
    m = select_get(counts, a) / n
    counts = select_set(counts, a, select_get(counts, a) - m + select_get(counts, woods))
    return select_set(counts, woods, m)


@njit(cache=True)
def spread_share(counts, towns, after, spread):
    """One class's counts under Darkness once Travel ended: the total spread by hand size (the woods
    as one card)."""
    total = 0.0
    for loc in range(towns + 1):
        total = total + select_get(counts, loc)
    for t in range(towns):
        counts = select_set(counts, t, total * select_get(after, t) / spread)
    return select_set(counts, towns, total / spread)


@njit(cache=True, inline="always")
def tracker_belief(view):
    """``reference_policies.belief``: expected (witches, fakes, rituals) per location (towns 0..T-1, the
    woods at T) as three 6-tuples. Exact census hands and deals; the pool (every card not seen in a
    hand, dealt, held by him) per card in the woods; Darkness spreads the totals by the sizes after
    Travel, else the travel log moves 1/N of the mover's counts per card; the Hunt's reveals. (The
    townsfolk counts the reference also keeps enter no score, so they are not computed here.) Inlined
    into its one caller (``tracker_scores``): as a call the whole view is copied into its arguments
    (docs/performance.md, "The general kernel")."""
    towns = view.towns
    w = NO_COUNTS
    f = NO_COUNTS
    r = NO_COUNTS
    sizes = (0, 0, 0, 0, 0)
    pool = view.cards_in_game
    for t in range(towns):
        hand = select_get(view.census, t) | select_get(view.dealt, t)
        w = select_set(w, t, float(count(hand & TRUE_WITCHES)))
        f = select_set(f, t, float(count(hand & FAKE_BIT)))
        r = select_set(r, t, float(count(hand & RITUALS)))
        sizes = select_set(sizes, t, count(hand))
        pool &= ~hand
    pool &= ~(view.deal_left | view.captured | view.ritual_cards | (FAKE_BIT if view.fake else ZERO))
    n_pool = count(pool)
    if n_pool > 0:
        w = select_set(w, towns, float(count(pool & TRUE_WITCHES)) / n_pool)
        f = select_set(f, towns, float(count(pool & FAKE_BIT)) / n_pool)
        r = select_set(r, towns, float(count(pool & RITUALS)) / n_pool)
    woods = towns
    if view.active == R.DARKNESS and view.after_travel[0] >= 0:
        spread = int64(1)   # an int64 from the start: one compile of spread_share (a literal 1 is one more)
        for t in range(towns):
            spread += select_get(view.after_travel, t)
        w = spread_share(w, towns, view.after_travel, spread)
        f = spread_share(f, towns, view.after_travel, spread)
        r = spread_share(r, towns, view.after_travel, spread)
    else:
        for i in range(view.n_log):
            actor, kind, target, moved = log_fields(log_at(view.log, i))
            if kind == S.LOG_GIVE or (kind == S.LOG_ASK and moved != 0):
                src = actor if kind == S.LOG_GIVE else target
                dst = target if kind == S.LOG_GIVE else actor
                n = select_get(sizes, src)
                w = move_share(w, src, dst, n)
                f = move_share(f, src, dst, n)
                r = move_share(r, src, dst, n)
                sizes = select_set(select_set(sizes, src, n - 1), dst, select_get(sizes, dst) + 1)
            elif kind == S.LOG_SWAP:
                n = select_get(sizes, actor)
                w = swap_share(w, actor, woods, n)
                f = swap_share(f, actor, woods, n)
                r = swap_share(r, actor, woods, n)
    for i in range(view.n_reveals):
        src, card, _ = reveal_fields(view.reveals[0] if i == 0 else view.reveals[1])
        c = bit(card)
        if c & (TRUE_WITCHES | FAKE_BIT) != ZERO:
            # the class count is floored at 0 first, then the whole hand is gone
            w = select_set(w, src, 0.0)
            f = select_set(f, src, 0.0)
            r = select_set(r, src, 0.0)
        elif c & RITUALS != ZERO:
            r = select_set(r, src, max(0.0, select_get(r, src) - 1.0))
    return w, f, r


@njit(cache=True, inline="always")
def coven_threat(hand):
    """1.0 when a census hand holds 2 cards of one suit's coven (its witches and the wild), else 0.0."""
    for suit in range(R.N_SUITS):
        if count(hand & (uint64(TB.SUIT_MASK[suit]) | uint64(TB.WILD_BIT))) >= 2:
            return 1.0
    return 0.0


@njit(cache=True, inline="always")
def tracker_scores(view, params):
    """Score of each town: ((W - fake_fear*C*F) - ritual_fear*(1+K)*R) / N (0.0 for an empty town) +
    trust for the announced town + threat for a census hand one card from a coven
    (``reference_policies.Tracker``, the same operations in order). Inlined into its one caller
    (``tracker``), as ``tracker_belief``."""
    w, f, r = tracker_belief(view)
    captured = float(count(view.captured))
    held = float(view.rituals)
    scores = (0.0, 0.0, 0.0, 0.0, 0.0)
    for u in range(view.towns):
        n = select_get(view.sizes, u)
        base = 0.0
        if n != 0:
            base = ((select_get(w, u) - params[P_FAKE_FEAR] * captured * select_get(f, u))
                    - params[P_RITUAL_FEAR] * (1.0 + held) * select_get(r, u)) / n
        scores = select_set(scores, u, base + params[P_TRUST] * (1.0 if u == view.announced else 0.0)
                      + params[P_THREAT] * coven_threat(select_get(view.census, u)))
    return scores


@njit(cache=True)
def tracker(view, params, legal):
    """The ``tracker`` hunter (``reference_policies.Tracker``): picks and Doom on the highest score, a
    townsfolk to the lowest, ritual deals by rank, a shuffle when a known witch is in the top T."""
    kind = view.kind
    if kind == S.D_SHUFFLE:
        window = (ONE << uint64(min(view.towns, view.deck))) - ONE
        if params[P_SHUFFLE] >= 0.5 and view.deck_witches & window != ZERO:
            return S.A_YES
        return S.A_NO
    scores = tracker_scores(view, params)
    if kind == S.D_DEAL:
        t = view.about
        rank = int64(0)   # int64 from the start: one compile of ``nth`` (a literal 0 is one more)
        for v in range(t + 1, view.towns):
            if select_get(scores, v) > select_get(scores, t):
                rank += 1
        for group in VALUE_ORDER:
            cards = view.deal_left & group
            if rank < count(cards):
                return S.A_CARD + nth(cards, rank)
            rank -= count(cards)
        return S.A_NO
    towns = legal_in(legal, S.A_TOWN, S.MAX_TOWNS)
    best = -1
    for u in range(view.towns):
        if not has(towns, u):
            continue
        if best < 0:
            best = u
        elif kind == S.D_TOWNSFOLK:
            if select_get(scores, u) < select_get(scores, best):
                best = u
        elif select_get(scores, u) > select_get(scores, best):
            best = u
    if best < 0:
        return legal_first(legal)
    return S.A_TOWN + best


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def suit_cards(suit):
    """The cards of a coven of ``suit`` (an "s-card"): its three witches and the wild."""
    return uint64(TB.SUIT_MASK[suit]) | uint64(TB.WILD_BIT)


@njit(cache=True, inline="always")
def coven_plan(view):
    """(gatherer g, suit s): the census hand with the most s-cards; scan towns, then suits, ascending,
    keeping the first maximum. Inlined into its one caller (``coven``), as ``tracker_belief``."""
    g = 0
    s = 0
    best = -1
    for t in range(view.towns):
        hand = select_get(view.census, t)
        for suit in range(R.N_SUITS):
            k = count(hand & suit_cards(suit))
            if k > best:
                best = k
                g = t
                s = suit
    return g, s


@njit(cache=True, inline="always")
def best_feeder(view, g, wanted):
    """The town != g with the most s-cards at the census (ties lowest); -1 if none holds one."""
    town = -1
    most = 0
    for t in range(view.towns):
        k = count(select_get(view.census, t) & wanted)
        if t != g and k > most:
            town = t
            most = k
    return town


@njit(cache=True, inline="always")
def coven_travel(view, params, legal, g, wanted):
    """Coven's Travel action for town ``view.me`` (``reference_policies.Coven``, steps 1-6)."""
    towns = view.towns
    hand = view.hand
    me = view.me
    n = count(hand)
    mine = hand & wanted
    if me != g and mine != ZERO and n >= 2:
        return S.A_GIVE + lowest(mine) * S.MAX_TOWNS + g
    if me == g:
        u = best_feeder(view, g, wanted)
        if u >= 0 and select_get(view.sizes, u) >= 2:
            return S.A_ASK + u
    off = hand & TRUE_WITCHES & ~wanted
    woods_witch = view.woods_known >= 0 and view.woods_known < R.N_TRUE_WITCHES
    if n >= 1 and off != ZERO and count(hand & TRUE_WITCHES) / n >= params[P_RISK] and not woods_witch:
        return S.A_SWAP + lowest(off)
    rituals = hand & RITUALS
    if params[P_FEED] >= 0.5 and me != g and rituals != ZERO and n >= 2:
        return S.A_GIVE + lowest(rituals) * S.MAX_TOWNS + g
    if n >= 2:
        spare = hand & FOLK
        if spare == ZERO:
            spare = hand & ~TRUE_WITCHES
        if spare == ZERO:
            spare = hand
        target = -1
        fewest = 0
        for v in range(towns):
            if v != me and (target < 0 or select_get(view.sizes, v) < fewest):
                target = v
                fewest = select_get(view.sizes, v)
        return S.A_GIVE + lowest(spare) * S.MAX_TOWNS + target
    ask = g if me != g else (me + 1) % towns
    if legal_has(legal, S.A_ASK + ask):
        return S.A_ASK + ask
    return legal_first(legal)


@njit(cache=True)
def coven(view, params, legal, bluff):
    """The ``coven`` town (``bluff``: announcing a decoy), ``reference_policies.Coven`` / ``Bluff``:
    gather the s-cards at the gatherer g of the census plan."""
    kind = view.kind
    towns = view.towns
    g, s = coven_plan(view)
    wanted = suit_cards(s)
    if kind == S.D_SPELL:
        if params[P_CAST] >= 0.5:
            tiles = legal_in(legal, S.A_SPELL, R.N_TILES)
            for spell in SPELL_PREFERENCE:
                for tile in range(R.N_TILES):
                    up = view.up[0] if tile == 0 else (view.up[1] if tile == 1 else view.up[2])
                    if has(tiles, tile) and up == spell:
                        return S.A_SPELL + tile
        return S.A_NO
    if kind == S.D_ANNOUNCE:
        if not bluff:
            return S.A_TOWN + g
        decoy = -1
        fewest = 0
        for t in range(towns):
            k = count(select_get(view.census, t) & TRUE_WITCHES)
            if t != g and (decoy < 0 or k < fewest):
                decoy = t
                fewest = k
        return S.A_TOWN + decoy
    if kind == S.D_HAT:
        u = best_feeder(view, g, wanted)
        return S.A_TOWN + (u if u >= 0 else (g + 1) % towns)
    if kind == S.D_TRAVEL:
        return coven_travel(view, params, legal, g, wanted)
    hand = view.hand
    mine = hand & wanted
    if kind == S.D_ANSWER:
        if view.about == g and mine != ZERO:
            return S.A_CARD + lowest(mine)
        for group in (FOLK, RITUALS, FAKE_BIT, TRUE_WITCHES & ~wanted, mine):
            if hand & group != ZERO:
                return S.A_CARD + lowest(hand & group)
        return S.A_CARD + lowest(hand)
    if kind == S.D_MORE:
        if mine != ZERO:
            action = S.A_GIVE + lowest(mine) * S.MAX_TOWNS + g
            if legal_has(legal, action):
                return action
        return S.A_NO
    return legal_first(legal)


@njit(cache=True, inline="always")
def town_decide(policy_id, params, rng, view, legal):
    """The town policy ``policy_id``'s action at this decision: (action, rng)."""
    if policy_id == PS.TOWN_COVEN or policy_id == PS.TOWN_BLUFF:
        # bluff as a run-time flag: one compile of ``coven`` for both policies
        return coven(view, params, legal, policy_id == PS.TOWN_BLUFF), rng
    return random_action(legal, rng)


def params_tuple(vector) -> tuple:
    """A policy's parameter vector as the fixed-length float tuple the kernel takes."""
    values = [float(v) for v in vector]
    if len(values) > MAX_PARAMS:
        raise ValueError(f"at most {MAX_PARAMS} policy parameters, got {len(values)}")
    return tuple(values + [0.0] * (MAX_PARAMS - len(values)))
