"""Cursed!? ``optimal_fight`` in the kernel: the exact fight DP of ``optimal_fight.py`` (the readable
reference, kept as the oracle) in numba, memoised in a bounded open-addressing hash table.

**The same DP.** ``node`` is ``optimal_fight.Fight.best`` (a decision point) with ``Fight.attack``
(``attack``, inlined at one call site) in one self-recursive function, over the same states,
merged the same way (``canonical``: ``Fight.reps``), with the same transitions, the same pruning, the
same floating-point operations in the same order (the objective's ``erfc`` too: numba's and CPython's
agree bit for bit, checked on 3,000,000 arguments) and the same tie order (STOP, Shield, Scroll, Smoke
Bomb, PLAY by unique card, DRAW; at an attack the first answer of the enumeration order, a Soul Crystal
only when strictly better). A memo is a cache of a pure function, so the values, hence the decisions,
do not depend on what it holds: results do not depend on chunking or on a table cleared midway.

**A state** packs into three words (the key of the table, with the fight context OR-ed in):

- ``a``: pile counts by unique card (5 bits each, merged counts reach 30), the total (6 bits), first
  attack?, trait spent?, the Shields' block (6 bits);
- ``b``: Large Backpack weapons by unique card (5 bits each), the cards an escape returns (6 bits; in
  the key 0 when no Smoke Bomb is held: nothing reads it then); in the key also whether the soul counts
  and the trait;
- ``c``: held items by item code (2 bits each: three copies; in the key without the Large Backpack and
  the Mimic!, which no value reads); in the key also the power, the souls before the fight and a marker
  bit (a key is never 0: an empty slot has ``c == 0``).

The pile size ``n`` (the sum of the counts) travels beside them. The key reductions are exact: two
states with one key have the same value, computed by the same operations.

**The table** (``new_memo``): ``table`` (uint64, ``slots`` x 4: a, b, c with the action, the value's
bits: 32 bytes, one cache line a lookup) and ``meta`` (uint64 scratch: fill count, clears, the run's
options and parameters, the caches of ``Fight.reps`` and of the objective, and the policy's pending
decision between a DRAW or PLAY and its attack, as ``OptimalFightPolicy._pending`` / ``_crystal``).
Linear probing; when the fill reaches ``MAX_FILL`` of the slots every key is dropped (the table is
cleared) and filling starts again. ``SLOTS`` = 2**23: a 256 MiB table per worker process at most (pages
are touched as they fill; the worker's peak RSS: ``results/benchmarks/optimal_fight.json``; 2**24 slots
took ~25% fewer states to solve a game but a compare worker to ~940 MiB, too near the 1 GiB bound). One table
per process, kept across games, chunks and runs with the same rule options and parameters
(``memo_for``), cleared when they change: the key holds the fight context but not the options or the
objective's parameters. The recursion gets the arrays as borrowed views (``borrowed``): no atomic
reference counting at each node.

**Decisions** (``decide_fight``, ``decide_attack``, ``decide_crystal``) are ``OptimalFightPolicy``'s:
at a fight decision point first counting's two item rules the DP does not model (the Large Backpack
takes the best discard weapon, the Big Turkey Dinner when the pile holds at most ``turkey_pile`` = 5
cards), then the DP's action; between fights counting's rules (``policies.decide_fight``).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import int64, njit, types, uint64
from numba.core import cgutils
from numba.extending import intrinsic

from cursedsim.bits import ONE, ZERO, count, lowest
from cursedsim.games.cursed.policies import COUNTING_DEFAULT_PARAMS, trait_cancels, turkey_due
from cursedsim.games.cursed.rules import (
    BEWITCHING_RELIC,
    BIG_TURKEY_DINNER,
    COPIES,
    EXPLODES,
    FLYING,
    FRENZY_FACTOR,
    FRENZY_POTION,
    LARGE_BACKPACK,
    MELEE,
    MIMIC,
    N_UNIQUE,
    NO_TRAIT,
    RANGED,
    SCROLL_OF_PURGE_LIFE,
    SHIELD,
    SHIELD_BLOCK,
    SMOKE_BOMB,
    SOUL_CRYSTAL,
    TOUGH_SKIN,
    WHETSTONE,
    WHETSTONE_BONUS,
)
from cursedsim.games.cursed.state import (
    BOTH_KINDS,
    BUST_SOUL_LOST,
    DAGGER_CHOOSE,
    DAGGER_CHOOSE_KIND,
    DAGGER_LOW,
    DAGGER_SPLIT,
    DRAW,
    MAX_BEST_VALUE,
    MONSTER_POWER_OF_CARD,
    NO_CARD,
    OPT_BUST,
    OPT_DAGGER_VALUE,
    OPT_FINAL_CAPTURES,
    OPT_IGNORING_SPENDS_TRAIT,
    OPT_ITEM_TIMING,
    OPT_MIMIC_SOUL,
    OPT_OVERSHOOT,
    OPT_PARITY_WHETSTONE,
    OPT_SMOKE_RETURNS_ITEMS,
    OPT_SPEAR_KIND,
    OPT_WIN_SOULS,
    OVERSHOOT_FIRST_ATTACK,
    OVERSHOOT_ZERO_TOTAL,
    PLAY,
    SPEAR_CHOOSE,
    STOP,
    TIMING_AFTER_REVEAL,
    USE,
    V_ATTACKS,
    V_BLOCKED,
    V_DISCARD_CARDS,
    V_IS_MIMIC,
    V_ITEMS,
    V_PILE,
    V_PILE_CARDS,
    V_POWER,
    V_SOULS,
    V_STORED,
    V_TOTAL,
    V_TRAIT,
    V_TRAIT_SPENT,
    WEAPON_HIGH_OF_CARD,
    WEAPON_KINDS_OF_CARD,
    WEAPON_POWER_OF_CARD,
    best_weapon,
    kind_cards,
    lowest_of,
)

# ---------------------------------------------------------------- the packed state

FIELD = 5                    # bits of a count by unique card (pile, Backpack)
FIELD_MASK = uint64((1 << FIELD) - 1)
ITEM_FIELD = 2               # bits of an item count (at most three copies)
ITEM_MASK = uint64((1 << ITEM_FIELD) - 1)
# word a
TOTAL_SHIFT = uint64(50)
FIRST_SHIFT = uint64(56)
SPENT_SHIFT = uint64(57)
BLOCKED_SHIFT = uint64(58)
SIX_BITS = uint64(63)
COUNTS_MASK = uint64((1 << 50) - 1)
# word b
RET_SHIFT = uint64(50)
GAIN_SHIFT = uint64(56)
TRAIT_SHIFT = uint64(57)
# word c
POWER_SHIFT = uint64(20)
SOULS_SHIFT = uint64(26)
MARK = uint64(1 << 63)
#: The items a key keeps: not the Large Backpack nor the Mimic!, which no value reads (exact).
KEY_ITEMS = uint64(((1 << (ITEM_FIELD * N_UNIQUE)) - 1) & ~(3 << (ITEM_FIELD * LARGE_BACKPACK))
                   & ~(3 << (ITEM_FIELD * MIMIC)))

#: The items whose worth the objective counts, with their parameter slot (``optimal_fight.DP_ITEMS``
#: order: the order of the sum).
WORTH_ITEMS = (SOUL_CRYSTAL, SMOKE_BOMB, BEWITCHING_RELIC, SCROLL_OF_PURGE_LIFE, SHIELD, WHETSTONE, FRENZY_POTION)
#: Parameter slots (``optimal_fight.PARAMS`` order).
P_OBJECTIVE = 0
P_ROUND_COST = 1
P_ROUND_SD = 2
P_WORTH_FIRST = 3            # worth of WORTH_ITEMS[i] is param(meta, P_WORTH_FIRST + i)
P_WORTH_STORED = 10

# ---------------------------------------------------------------- decision codes

ACT_STOP = 0
ACT_SHIELD = 1
ACT_SCROLL = 2
ACT_SMOKE = 3
ACT_PLAY = 4                 # ACT_PLAY + u: play a Backpack weapon of (canonical) unique card u
ACT_DRAW = ACT_PLAY + N_UNIQUE
#: An attack answer packs (value, kinds, relic, whetstone, frenzy, crystal) as bits.
ANS_KIND_SHIFT = 4
ANS_RELIC = 1 << 6
ANS_WHETSTONE = 1 << 7
ANS_FRENZY = 1 << 8
ANS_CRYSTAL = 1 << 9


# ---------------------------------------------------------------- the table

#: Slots of a process's table (a power of two) and the fill at which it is cleared.
SLOTS = 1 << 23
MAX_FILL = 0.5
#: A slot is one row of four uint64: the words a, b, c (c with the action in ACTION_SHIFT..) and the
#: value's bits: 32 bytes, one cache line read per lookup.
SLOT_BYTES = 4 * 8
ACTION_SHIFT = uint64(32)
ACTION_MASK = uint64(0xFF) << ACTION_SHIFT

M_FILL = 0                   # states stored
M_LIMIT = 1                  # the fill that clears the table
M_CLEARS = 2                 # times the table was cleared
M_PENDING = 3                # 0 none, 1 a DRAW, 2 a PLAY: the decision an attack answers
M_PA = 4                     # the pending state's words a, b, c and n
M_PB = 5
M_PC = 6
M_PN = 7
M_CRYSTAL_CARD = 8           # 1 + the card whose Soul Crystal answer is known, 0 none
M_CRYSTAL_SPEND = 9
M_LOOKUPS = 10               # decision nodes asked (a statistic)
M_SOLVED = 11                # decision nodes computed
M_REPS_CONTEXT = 12          # the (power, trait) the representatives below were computed for, 0 none
M_OPTS = 16                  # the rule option tuple (state.OPT_*), copied at each decision
M_PARAMS = M_OPTS + 32       # the parameters' float bits
M_REPS = M_PARAMS + 16       # 64 totals x first x spent x relic: Fight.reps packed 4 bits a card, 0 unknown
N_REPS = 64 * 8
M_ALIVE = M_REPS + N_REPS    # the objective's cache: ALIVE_SLOTS (key, value bits) pairs, direct-mapped
ALIVE_BITS = 14
ALIVE_SLOTS = 1 << ALIVE_BITS
N_META = M_ALIVE + 2 * ALIVE_SLOTS
PENDING_NONE = uint64(0)
PENDING_DRAW = uint64(1)
PENDING_PLAY = uint64(2)
VALID = uint64(1 << 63)


def new_memo(slots: int = SLOTS) -> tuple[np.ndarray, np.ndarray]:
    """An empty table of ``slots`` (a power of two) slots: (table, meta). ``np.zeros`` leaves the pages
    untouched until a slot is written, so the memory grows with the states stored."""
    if slots < 2 or slots & (slots - 1):
        raise ValueError(f"memo slots must be a power of two >= 2, got {slots}")
    table = np.zeros((slots, 4), np.uint64)
    meta = np.zeros(N_META, np.uint64)
    meta[M_LIMIT] = max(1, int(slots * MAX_FILL))
    return table, meta


def clear_memo(memo) -> None:
    """Drop every state, the caches (representatives, objective) and the pending decision."""
    table, meta = memo
    table[:, 2] = 0
    limit = meta[M_LIMIT]
    meta[:] = 0
    meta[M_LIMIT] = limit


#: This process's table and the (options, parameters) its states were computed for.
_MEMO: dict[str, object] = {}
#: A table of two slots for the other policies (the kernel's argument; never read by them).
_EMPTY = new_memo(2)


def memo_for(opts: tuple, params: tuple, slots: int = SLOTS):
    """The process's table for a run with rule options ``opts`` and parameters ``params`` (tuples): the
    same as the last call's when they are equal (its states stay valid), else cleared."""
    memo = _MEMO.get("memo")
    if memo is None or _MEMO.get("slots") != slots:
        memo = _MEMO["memo"] = new_memo(slots)
        _MEMO["slots"] = slots
        _MEMO["key"] = None
    key = (tuple(opts), tuple(params))
    if _MEMO["key"] != key:
        clear_memo(memo)
        _MEMO["key"] = key
    return memo


def empty_memo():
    """The placeholder table handed to the kernel with any other policy."""
    return _EMPTY


def memo_bytes(slots: int = SLOTS) -> int:
    """The table's size in bytes when every slot is touched (and its scratch)."""
    return slots * SLOT_BYTES + N_META * 8


# ---------------------------------------------------------------- intrinsics

@intrinsic
def borrowed(typingctx, arr):
    """The array without its reference-counted owner (a borrowed view, valid while the caller holds the
    array): passing it to a call costs no atomic reference counting, which the recursion would pay at
    every node."""
    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, value=args[0])
        dst = context.make_array(signature.return_type)(context, builder)
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        dst.nitems = src.nitems
        dst.itemsize = src.itemsize
        dst.data = src.data
        dst.shape = src.shape
        dst.strides = src.strides
        return dst._getvalue()
    return arr(arr), codegen


@intrinsic
def float_bits(typingctx, x):
    """A float64's bits as a uint64."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.uint64(types.float64), codegen


@intrinsic
def bits_float(typingctx, x):
    """The float64 of a uint64's bits."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.uint64), codegen


# ---------------------------------------------------------------- reading the packed words

@njit(cache=True, inline="always")
def opt(meta, slot):
    """Rule option ``slot`` (``state.OPT_*``) of the run, from ``meta`` (the recursion passes no tuples)."""
    return int64(meta[M_OPTS + slot])


@njit(cache=True, inline="always")
def param(meta, slot):
    """Parameter ``slot`` (``optimal_fight.PARAMS`` order) of the run, from ``meta``."""
    return bits_float(meta[M_PARAMS + slot])


@njit(cache=True, inline="always")
def load_run(meta, opts, params):
    """Copy the rule options and the parameters into ``meta`` for the recursion."""
    for i in range(len(opts)):
        meta[M_OPTS + i] = uint64(opts[i])
    for i in range(len(params)):
        meta[M_PARAMS + i] = float_bits(params[i])

@njit(cache=True, inline="always")
def field(word, u):
    return int64((word >> uint64(FIELD * u)) & FIELD_MASK)


@njit(cache=True, inline="always")
def item_count(c, item):
    return int64((c >> uint64(ITEM_FIELD * item)) & ITEM_MASK)


@njit(cache=True, inline="always")
def unit(u):
    """One card of unique ``u`` in a count word."""
    return ONE << uint64(FIELD * u)


@njit(cache=True, inline="always")
def item_unit(item):
    return ONE << uint64(ITEM_FIELD * item)


@njit(cache=True, inline="always")
def fields_sum(word):
    total = 0
    for u in range(N_UNIQUE):
        total += field(word, u)
    return total


# ---------------------------------------------------------------- the objective (optimal_fight.Objective)

@njit(cache=True)
def alive_value(meta, souls, cards, c, stored, win_souls):
    """``Objective.alive``: the game goes on with ``cards`` in the pile, items ``c``, ``stored`` Backpack
    weapons. The same operations in the same order as the reference (its sum starts at 0)."""
    rounds = max(0, win_souls - souls)
    worth = 0.0
    for i in range(len(WORTH_ITEMS)):
        worth += param(meta, P_WORTH_FIRST + i) * item_count(c, WORTH_ITEMS[i])
    worth += param(meta, P_WORTH_STORED) * stored
    x = cards + worth
    if int64(param(meta, P_OBJECTIVE)) == 1:
        return x - rounds * param(meta, P_ROUND_COST)
    if rounds == 0:
        return 1.0
    if cards == 0 and item_count(c, BIG_TURKEY_DINNER) == 0:
        return 0.0
    z = (x + 0.5 - rounds * param(meta, P_ROUND_COST)) / (param(meta, P_ROUND_SD) * math.sqrt(rounds))
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@njit(cache=True, inline="always")
def alive(meta, souls, cards, c, stored, win_souls):
    """``alive_value`` through a direct-mapped cache in ``meta`` (the erfc is most of its cost)."""
    key = uint64(souls) | (uint64(cards) << uint64(5)) | (uint64(stored) << uint64(12)) | (c << uint64(17)) | VALID
    i = M_ALIVE + 2 * int64((key * uint64(0x9E3779B97F4A7C15)) >> uint64(64 - ALIVE_BITS))
    if meta[i] == key:
        return bits_float(meta[i + 1])
    value = alive_value(meta, souls, cards, c, stored, win_souls)
    meta[i] = key
    meta[i + 1] = float_bits(value)
    return value


@njit(cache=True, inline="always")
def over(meta, souls, win_souls):
    """``Objective.over``: the game ended at the fight (the final monster)."""
    rounds = max(0, win_souls - souls)
    if int64(param(meta, P_OBJECTIVE)) == 1:
        return -rounds * param(meta, P_ROUND_COST)
    return 1.0 if rounds == 0 else 0.0


# ---------------------------------------------------------------- merging cards that behave alike

@njit(cache=True, inline="always")
def overshoot_now(first, total, rule):
    if rule == OVERSHOOT_FIRST_ATTACK:
        return first
    if rule == OVERSHOOT_ZERO_TOTAL:
        return total == 0
    return False


@njit(cache=True, inline="always")
def signature(u, gap, overshoot, quiet, kind_trait, relic, dagger):
    """``Fight.reps``' signature of unique card ``u`` as a number: 0 for a dead card, else the values,
    split, kinds (while a kind trait can read them) and monster power (while a Relic is held)."""
    card = u * COPIES
    low = WEAPON_POWER_OF_CARD[card]
    high = WEAPON_HIGH_OF_CARD[card]
    lowest_value = min(low, MONSTER_POWER_OF_CARD[card]) if relic else low
    if not overshoot and quiet and lowest_value > gap:
        return 0
    follows = high != 0 and dagger == DAGGER_CHOOSE_KIND
    kinds = WEAPON_KINDS_OF_CARD[card] if kind_trait and not follows else 0
    power = MONSTER_POWER_OF_CARD[card] if relic else 0
    return 1 + low + 8 * high + 64 * int64(high != 0) + 128 * kinds + 512 * power


@njit(cache=True)
def reps_word(power, trait, total, first, spent, relic, overshoot_rule, dagger):
    """``Fight.reps(total, first, spent, relic)``: for each unique card the lowest one with its signature,
    4 bits a card, with VALID set."""
    gap = power - total
    overshoot = overshoot_now(first, total, overshoot_rule)
    quiet = spent or trait == NO_TRAIT or trait == EXPLODES
    kind_trait = (not spent) and (trait == FLYING or trait == TOUGH_SKIN)
    word = VALID
    for u in range(1, N_UNIQUE):
        mine = signature(u, gap, overshoot, quiet, kind_trait, relic, dagger)
        rep = u
        for j in range(u):
            if signature(j, gap, overshoot, quiet, kind_trait, relic, dagger) == mine:
                rep = j
                break
        word |= uint64(rep) << uint64(4 * u)
    return word


@njit(cache=True, inline="always")
def reps_of(meta, power, trait, a, relic):
    """``reps_word`` of the state ``a`` through its cache in ``meta`` (for the fight context (power,
    trait): computed once per total, first, spent and relic)."""
    context = uint64(power) | (uint64(trait) << uint64(8)) | VALID
    if meta[M_REPS_CONTEXT] != context:
        for i in range(N_REPS):
            meta[M_REPS + i] = ZERO
        meta[M_REPS_CONTEXT] = context
    total = int64((a >> TOTAL_SHIFT) & SIX_BITS)
    first = (a >> FIRST_SHIFT) & ONE
    spent = (a >> SPENT_SHIFT) & ONE
    i = M_REPS + 8 * total + 4 * int64(first) + 2 * int64(spent) + int64(relic)
    word = meta[i]
    if word == ZERO:
        word = reps_word(power, trait, total, first != ZERO, spent != ZERO, relic, opt(meta, OPT_OVERSHOOT),
                         opt(meta, OPT_DAGGER_VALUE))
        meta[i] = word
    return word


@njit(cache=True, inline="always")
def rep_in(word, u):
    return int64((word >> uint64(4 * u)) & uint64(15))


@njit(cache=True, inline="always")
def canonical(meta, a, b, power, trait, relic):
    """``Fight.canonical``: the counts (pile and Backpack) of cards that behave alike merged on the lowest
    of them. Returns (a, b)."""
    word = reps_of(meta, power, trait, a, relic)
    for u in range(1, N_UNIQUE):
        j = rep_in(word, u)
        if j != u:
            k = (a >> uint64(FIELD * u)) & FIELD_MASK
            s = (b >> uint64(FIELD * u)) & FIELD_MASK
            a = a - k * unit(u) + k * unit(j)
            b = b - s * unit(u) + s * unit(j)
    return a, b


# ---------------------------------------------------------------- the hash table

@njit(cache=True, inline="always")
def slot_of(a, b, c, mask):
    h = a * uint64(0x9E3779B97F4A7C15) ^ b * uint64(0xC2B2AE3D27D4EB4F) ^ c * uint64(0x165667B19E3779F9)
    h ^= h >> uint64(31)
    h *= uint64(0xBF58476D1CE4E5B9)
    h ^= h >> uint64(29)
    return int64(h & mask)


@njit(cache=True)
def store(table, meta, a, b, c, value, action):
    """Put a state's value and action into the table (cleared first when full)."""
    if meta[M_FILL] >= meta[M_LIMIT]:
        for i in range(table.shape[0]):
            table[i, 2] = ZERO
        meta[M_FILL] = ZERO
        meta[M_CLEARS] += ONE
    mask = uint64(table.shape[0] - 1)
    i = slot_of(a, b, c, mask)
    while table[i, 2] != ZERO:
        if table[i, 0] == a and table[i, 1] == b and table[i, 2] & ~ACTION_MASK == c:
            break
        i = int64((uint64(i) + ONE) & mask)
    if table[i, 2] == ZERO:
        meta[M_FILL] += ONE
    table[i, 0] = a
    table[i, 1] = b
    table[i, 2] = c | (uint64(action) << ACTION_SHIFT)
    table[i, 3] = float_bits(value)


# ---------------------------------------------------------------- the DP

@njit(cache=True, inline="always")
def unpack(meta, a, b):
    """What ``node`` and ``attack`` read of a state and the run: (win_souls, cards an item spent adds to an
    escape (smoke_bomb_returns_items), total, first attack?, trait spent?, blocked, cards an escape
    returns, Backpack weapons)."""
    return (opt(meta, OPT_WIN_SOULS), int64(opt(meta, OPT_SMOKE_RETURNS_ITEMS) != 0),
            int64((a >> TOTAL_SHIFT) & SIX_BITS), (a >> FIRST_SHIFT) & ONE != ZERO,
            (a >> SPENT_SHIFT) & ONE != ZERO, int64((a >> BLOCKED_SHIFT) & SIX_BITS),
            int64((b >> RET_SHIFT) & SIX_BITS), fields_sum(b))


@njit(cache=True, inline="always")
def attack(table, meta, power, trait, souls, gain, a, b, c, n, u):
    """``Fight.attack``: card ``u`` attacks from the state (the card already out of the pile or the
    Backpack), each answer of ``Fight.choices`` valued by ``Fight.outcome``: (value, the best answer as
    ``ANS_*`` bits over the value). Inlined into ``node`` (one recursive function: numba's cache cannot
load two mutually recursive ones), at one call site, and into ``answer``."""
    win_souls, returns, total, first, spent, blocked, ret, stored = unpack(meta, a, b)
    gained = souls + gain
    card = u * COPIES
    printed = WEAPON_KINDS_OF_CARD[card]
    low = WEAPON_POWER_OF_CARD[card]
    high = WEAPON_HIGH_OF_CARD[card]
    split = high != 0
    mode = opt(meta, OPT_DAGGER_VALUE)
    value_open = split and (mode == DAGGER_CHOOSE_KIND or mode == DAGGER_CHOOSE)
    fixed = low
    if split and not value_open:
        fixed = low if mode == DAGGER_LOW or (mode == DAGGER_SPLIT and printed == RANGED) else high
    kind_open = opt(meta, OPT_SPEAR_KIND) == SPEAR_CHOOSE and printed == BOTH_KINDS
    after_reveal = opt(meta, OPT_ITEM_TIMING) == TIMING_AFTER_REVEAL
    n_relic = 2 if item_count(c, BEWITCHING_RELIC) > 0 else 1
    n_whet = 2 if after_reveal and item_count(c, WHETSTONE) > 0 else 1
    n_frenzy = 2 if after_reveal and first and item_count(c, FRENZY_POTION) > 0 else 1
    first_capture = overshoot_now(first, total, opt(meta, OPT_OVERSHOOT))
    counts = a & COUNTS_MASK
    best = 0.0
    answer = 0
    found = False
    for vi in range(2 if value_open else 1):
        own = (low if vi == 0 else high) if value_open else fixed
        kinds_of_value = printed
        if split and mode == DAGGER_CHOOSE_KIND:
            kinds_of_value = RANGED if own == low else MELEE
        for ki in range(2 if kind_open else 1):
            kinds = (MELEE if ki == 0 else RANGED) if kind_open else kinds_of_value
            for relic in range(n_relic):
                for whet in range(n_whet):
                    for frenzy in range(n_frenzy):
                        # Fight.outcome: the items spent, the value, the trait, then over / bust / lands
                        items = c
                        ret_after = ret
                        if relic:
                            items -= item_unit(BEWITCHING_RELIC)
                            ret_after += returns
                        if whet:
                            items -= item_unit(WHETSTONE)
                            ret_after += returns
                        if frenzy:
                            items -= item_unit(FRENZY_POTION)
                            ret_after += returns
                        base = MONSTER_POWER_OF_CARD[card] if relic else own
                        value = base + (WHETSTONE_BONUS if whet else 0)
                        if frenzy:
                            value *= FRENZY_FACTOR
                        ignores = relic != 0 or frenzy != 0
                        # reference.trait_after
                        spent_after = spent
                        cancelled = False
                        if not (spent or (ignores and not opt(meta, OPT_IGNORING_SPENDS_TRAIT))):
                            parity = base + (WHETSTONE_BONUS if whet and opt(meta, OPT_PARITY_WHETSTONE) else 0)
                            if trait_cancels(trait, kinds, parity):
                                spent_after = True
                                cancelled = not ignores
                        new_total = total + (0 if cancelled else value)
                        crystal = False
                        if new_total > power and first_capture:
                            rest = alive(meta, gained, n, items, stored, win_souls)
                        else:
                            if new_total > power:   # a bust: the weapon is discarded
                                if opt(meta, OPT_BUST) == BUST_SOUL_LOST:
                                    damage = max(0, power - total - blocked)
                                    if damage > n:
                                        rest = over(meta, souls, win_souls)
                                    else:
                                        rest = alive(meta, souls, n - damage, items, stored, win_souls)
                                else:
                                    nxt = counts | (uint64(total) << TOTAL_SHIFT) | (
                                        uint64(spent_after) << SPENT_SHIFT) | (uint64(blocked) << BLOCKED_SHIFT)
                                    rest, _ = node(table, meta, power, trait, souls, gain, nxt,
                                                   (b & COUNTS_MASK) | (uint64(ret_after) << RET_SHIFT), items, n)
                            else:
                                if trait == EXPLODES and (not ignores or opt(meta, OPT_IGNORING_SPENDS_TRAIT)):
                                    spent_after = True
                                if new_total == power:
                                    rest = alive(meta, gained, n, items, stored, win_souls)
                                else:
                                    nxt = counts | (uint64(new_total) << TOTAL_SHIFT) | (
                                        uint64(spent_after) << SPENT_SHIFT) | (uint64(blocked) << BLOCKED_SHIFT)
                                    rest, _ = node(table, meta, power, trait, souls, gain, nxt,
                                                   (b & COUNTS_MASK) | (uint64(ret_after + 1) << RET_SHIFT), items, n)
                            if total + value > power and item_count(items, SOUL_CRYSTAL) > 0:
                                spend = alive(meta, gained, n, items - item_unit(SOUL_CRYSTAL), stored, win_souls)
                                if spend > rest:
                                    rest = spend
                                    crystal = True
                        if not found or rest > best:
                            found = True
                            best = rest
                            answer = ((own if value_open else 0) | ((kinds if kind_open else 0) << ANS_KIND_SHIFT)
                                      | (ANS_RELIC if relic else 0) | (ANS_WHETSTONE if whet else 0)
                                      | (ANS_FRENZY if frenzy else 0) | (ANS_CRYSTAL if crystal else 0))
    return best, int64(answer)




@njit(cache=True)
def node(table, meta, power, trait, souls, gain, a, b, c, n):
    """``Fight.best``: the DP at a decision point, memoised in ``table``: (value, decision code
    ``ACT_*``). The fight context: ``power``, ``trait``, ``souls`` before the fight, ``gain`` (1 when its
    soul counts)."""
    win_souls, returns, total, first, spent, blocked, ret, stored = unpack(meta, a, b)
    gained = souls + gain
    a, b = canonical(meta, a, b, power, trait, item_count(c, BEWITCHING_RELIC) > 0)
    if item_count(c, SMOKE_BOMB) == 0:   # the cards an escape returns matter no more (exact)
        b &= ~(SIX_BITS << RET_SHIFT)
    kb = b | (uint64(gain) << GAIN_SHIFT) | (uint64(trait) << TRAIT_SHIFT)
    kc = (c & KEY_ITEMS) | (uint64(power) << POWER_SHIFT) | (uint64(souls) << SOULS_SHIFT) | MARK
    mask = uint64(table.shape[0] - 1)
    meta[M_LOOKUPS] += ONE
    i = slot_of(a, kb, kc, mask)
    while table[i, 2] != ZERO:
        if table[i, 0] == a and table[i, 1] == kb and table[i, 2] & ~ACTION_MASK == kc:
            return bits_float(table[i, 3]), int64((table[i, 2] & ACTION_MASK) >> ACTION_SHIFT)
        i = int64((uint64(i) + ONE) & mask)
    meta[M_SOLVED] += ONE
    # STOP: the damage step, then the capture; the final monster when the damage exceeds the pile
    damage = max(0, power - total - blocked)
    if damage > n:
        best = over(meta, souls + (gain if opt(meta, OPT_FINAL_CAPTURES) else 0), win_souls)
    else:
        best = alive(meta, gained, n - damage, c, stored, win_souls)
    action = ACT_STOP
    if item_count(c, SHIELD) > 0:
        after = (a & ~(SIX_BITS << BLOCKED_SHIFT)) | (uint64(blocked + SHIELD_BLOCK) << BLOCKED_SHIFT)
        value, _ = node(table, meta, power, trait, souls, gain, after,
                        b + uint64(returns) * (ONE << RET_SHIFT), c - item_unit(SHIELD), n)
        if value > best:
            best = value
            action = ACT_SHIELD
    if item_count(c, SCROLL_OF_PURGE_LIFE) > 0:
        value = alive(meta, gained, n, c - item_unit(SCROLL_OF_PURGE_LIFE), stored, win_souls)
        if value > best:
            best = value
            action = ACT_SCROLL
    if item_count(c, SMOKE_BOMB) > 0:
        value = alive(meta, souls, n + ret + returns, c - item_unit(SMOKE_BOMB), stored, win_souls)
        if value > best:
            best = value
            action = ACT_SMOKE
    if not (trait == EXPLODES and spent):
        # PLAY of each Backpack class (j < N_UNIQUE), then DRAW (j >= N_UNIQUE: the mean over the pile's
        # classes): one loop, so that ``attack``, inlined, is typed and optimised once in ``node``, not
        # twice (half of the DP's compile time); the same calls in the same order as two loops
        drawing = False
        draw_value = 0.0
        for j in range(2 * N_UNIQUE):
            w = j if j < N_UNIQUE else j - N_UNIQUE
            k = 0
            if j < N_UNIQUE:
                if not (field(b, w) > 0 and alive(meta, gained, n, c, stored - 1, win_souls) > best):
                    continue
                a_w, b_w, n_w = a, b - unit(w), n
            else:
                if j == N_UNIQUE:
                    drawing = n > 0 and alive(meta, gained, n - 1, c, stored, win_souls) > best
                if not drawing:
                    break
                k = field(a, w)
                if k == 0:
                    continue
                a_w, b_w, n_w = a - unit(w), b, n - 1
            value, _ = attack(table, meta, power, trait, souls, gain, a_w, b_w, c, n_w, w)
            if j < N_UNIQUE:
                if value > best:
                    best = value
                    action = ACT_PLAY + w
            else:
                draw_value += k / n * value
        if drawing and draw_value > best:
            best = draw_value
            action = ACT_DRAW
    store(table, meta, a, kb, kc, best, action)
    return best, int64(action)


# ---------------------------------------------------------------- the policy's decisions

@njit(cache=True, inline="always")
def counts_of(cards, width):
    """A card mask as counts by unique card (= by item code), ``width`` bits each: a count word (the
    pile, the Backpack) with FIELD, word c (held items) with ITEM_FIELD."""
    word = ZERO
    for u in range(N_UNIQUE):
        word |= uint64(count(cards & kind_cards(u))) << uint64(width * u)
    return word


@njit(cache=True, inline="always")
def soul_gain(view, opts):
    """Whether the fight's soul counts: a Mimic! with mimic_soul=False gives none."""
    return 0 if view[V_IS_MIMIC] and not opts[OPT_MIMIC_SOUL] else 1


@njit(cache=True, inline="always")
def fight_words(meta, view, opts, n_weapons, n_used):
    """The decision point's state words (a, b, c), canonical, and whether a Relic is held."""
    first = view[V_ATTACKS] == 0
    spent = view[V_TRAIT_SPENT] != 0
    ret = 1 + n_weapons + (n_used if opts[OPT_SMOKE_RETURNS_ITEMS] else 0)
    a = (counts_of(view[V_PILE_CARDS], FIELD) | (uint64(view[V_TOTAL]) << TOTAL_SHIFT) | (uint64(first) << FIRST_SHIFT)
         | (uint64(spent) << SPENT_SHIFT) | (uint64(view[V_BLOCKED]) << BLOCKED_SHIFT))
    b = counts_of(view[V_STORED], FIELD) | (uint64(ret) << RET_SHIFT)
    c = counts_of(view[V_ITEMS], ITEM_FIELD)
    relic = item_count(c, BEWITCHING_RELIC) > 0
    a, b = canonical(meta, a, b, view[V_POWER], view[V_TRAIT], relic)
    return a, b, c, relic


@njit(cache=True, _nrt=True)
def decide_fight(memo, view, opts, params, n_weapons, n_used):
    """``OptimalFightPolicy.fight`` at a fight decision point: (kind, card, target). ``n_weapons``,
    ``n_used``: the weapons in play and the items used this fight (the cards an escape returns)."""
    table = borrowed(memo[0])
    meta = borrowed(memo[1])
    load_run(meta, opts, params)
    meta[M_CRYSTAL_CARD] = ZERO
    items = view[V_ITEMS]
    discard = view[V_DISCARD_CARDS]
    backpack = lowest_of(items, LARGE_BACKPACK)
    if backpack >= 0 and discard != ZERO:
        return USE, backpack, best_weapon(discard, MAX_BEST_VALUE)
    turkey = turkey_due(view, COUNTING_DEFAULT_PARAMS)
    if turkey >= 0:
        return USE, turkey, NO_CARD
    power = view[V_POWER]
    trait = view[V_TRAIT]
    a, b, c, relic = fight_words(meta, view, opts, n_weapons, n_used)
    n = view[V_PILE]
    _, action = node(table, meta, power, trait, view[V_SOULS], soul_gain(view, opts), a, b, c, n)
    if action == ACT_DRAW or action >= ACT_PLAY:
        meta[M_PENDING] = PENDING_DRAW if action == ACT_DRAW else PENDING_PLAY
        meta[M_PA] = a
        meta[M_PB] = b
        meta[M_PC] = c
        meta[M_PN] = uint64(n)
    if action == ACT_DRAW:
        return DRAW, NO_CARD, NO_CARD
    if action >= ACT_PLAY:
        rep = action - ACT_PLAY
        stored = view[V_STORED]
        while stored != ZERO:   # the lowest Backpack card of that class
            card = lowest(stored)
            stored &= stored - ONE
            if rep_in(reps_of(meta, power, trait, a, relic), card // COPIES) == rep:
                return PLAY, card, NO_CARD
        raise ValueError("optimal_fight: no Backpack weapon of the class the DP plays")
    if action == ACT_SHIELD:
        return USE, lowest_of(items, SHIELD), NO_CARD
    if action == ACT_SCROLL:
        return USE, lowest_of(items, SCROLL_OF_PURGE_LIFE), NO_CARD
    if action == ACT_SMOKE:
        return USE, lowest_of(items, SMOKE_BOMB), NO_CARD
    return STOP, NO_CARD, NO_CARD


@njit(cache=True, _nrt=True)
def take_action(memo, view, opts, params, n_weapons, n_used, kind):
    """A fight action taken in place of ``decide_fight``'s (the ``rollout`` search's, ``resume.steer``):
    the attack that follows a DRAW or PLAY is answered from this decision point, as after the DP's own
    DRAW or PLAY; another action leaves no attack pending."""
    meta = borrowed(memo[1])
    load_run(meta, opts, params)
    meta[M_CRYSTAL_CARD] = ZERO
    if kind != DRAW and kind != PLAY:
        meta[M_PENDING] = PENDING_NONE
        return
    a, b, c, _ = fight_words(meta, view, opts, n_weapons, n_used)
    meta[M_PENDING] = PENDING_DRAW if kind == DRAW else PENDING_PLAY
    meta[M_PA] = a
    meta[M_PB] = b
    meta[M_PC] = c
    meta[M_PN] = uint64(view[V_PILE])


@njit(cache=True, _nrt=True)
def answer(memo, view, opts, params, card):
    """``OptimalFightPolicy._answer``: the DP's best answer (packed ``ANS_*``) for ``card`` attacking
    from the pending DRAW or PLAY decision, which it consumes; the Soul Crystal's part is kept for the
    offer that may follow."""
    table = borrowed(memo[0])
    meta = borrowed(memo[1])
    load_run(meta, opts, params)
    pending = meta[M_PENDING]
    if pending == PENDING_NONE:
        raise ValueError("optimal_fight: an attack without a DRAW or PLAY decision before it")
    meta[M_PENDING] = PENDING_NONE
    a = meta[M_PA]
    b = meta[M_PB]
    c = meta[M_PC]
    n = int64(meta[M_PN])
    power = view[V_POWER]
    trait = view[V_TRAIT]
    u = card // COPIES
    rep = rep_in(reps_of(meta, power, trait, a, item_count(c, BEWITCHING_RELIC) > 0), u)
    if pending == PENDING_DRAW:
        a -= unit(rep)
        n -= 1
    else:
        b -= unit(rep)
    _, code = attack(table, meta, power, trait, view[V_SOULS], soul_gain(view, opts), a, b, c, n, u)
    meta[M_CRYSTAL_CARD] = uint64(card + 1)
    meta[M_CRYSTAL_SPEND] = uint64((code & ANS_CRYSTAL) != 0)
    return code


@njit(cache=True, _nrt=True)
def decide_attack(memo, view, opts, params, card, open_):
    """``OptimalFightPolicy.attack``: (value, kind, relic, whetstone, frenzy)."""
    code = answer(memo, view, opts, params, card)
    return (code & 15, (code >> ANS_KIND_SHIFT) & 3, code & ANS_RELIC != 0, code & ANS_WHETSTONE != 0,
            code & ANS_FRENZY != 0)


@njit(cache=True, _nrt=True)
def decide_crystal(memo, view, opts, params, card):
    """``OptimalFightPolicy.crystal``: the answer found at the attack, or (nothing was open there) the
    DP's answer now."""
    meta = memo[1]
    if meta[M_CRYSTAL_CARD] == uint64(card + 1):
        spend = meta[M_CRYSTAL_SPEND] != ZERO
    else:
        spend = answer(memo, view, opts, params, card) & ANS_CRYSTAL != 0
    meta[M_CRYSTAL_CARD] = ZERO
    return spend
