"""The numba kernel of So, You've Been Cursed.: the reference engine's rules (``reference.py``,
``automata.py``, docs/rules/village.md) over flat int arrays, one compiled call per chunk of games, game by
game identical to the reference.

Plays every mode (``KERNEL_MODES``). The state and its numbering are in ``state.py``: every step function
takes ``G = (st, rs, bd, cd, dk, pp, ctl)``. ``play_game`` picks a side's turn by its policy id: 0 the automaton
(``possessed_wizard_turn``, ``rabid_monster_turn``, here), else the player's turn of its module
(``kernel_wizard.wizard_player_turn``, ``kernel_monster.monster_player_turn``; their set-up from ``deal``).
A player's decision is ``wizard_choose(G, decision, nl)`` / ``monster_choose`` of its side's module over
the legal list ``st[ST_LEGAL:ST_LEGAL+nl]``: a single option taken without a draw, ``random`` from the
side's stream (``choice_without_policy``, here), another policy by its module.

Randomness: the streams of ``state.STREAM_*`` (as ``reference.STREAM_*``), each drawn in the reference's
order: the bag (set-up houses, arrivals, Hypnotize), the d20, the d6, the Spell, Power, Possessed Wizard
and Rabid Monster shuffles, the Wizard's and the Monster's policy (7, 8), the Town Guard tiles' set-up
shuffle (9); Fisher-Yates from the top index down (``shuffle``).

Compile time (issue 24): numba compiles a called function once per argument type, and it types an int
constant passed as an argument, or a variable set to one before a loop updates it, as a literal: one
compile per value. So the codes and "none" values passed to compiled functions are np.int64 constants
(``NEXT_SLOT``, ``kernel_wizard.D_*``, ...) and such variables start as np.int64: every function of the
kernel compiles once. A side's decision goes to its own module's ``decide``, which links only that side's
policies. Numba links every callee into a compiled function and optimises and emits it again there, so each
function whose calls reach a policy re-compiles that policy: the steps of a player's turn that have one
caller (``kernel_wizard.buy_house`` ..., ``kernel_monster.action`` ...) are inlined into it, and
``play_game`` into ``play_chunk`` (the automata's turns stay calls: inlined, they cost 7% of the 0-player
game's speed). Issue 30 cut the first compile further (docs/performance.md, "Compile time: So, You've Been
Cursed."): the steps with one or two callers that reach a policy are inlined too (``kernel_wizard.steal``,
``apply_spell``, ``place``, ``discard``, ``trim_to_capacity``, ``wizard_arrive``, ``use_card``;
``kernel_monster.quiet_night``, ``play_card``), ``go`` and ``take`` are one call (``go_take``), and no
compiled function but the entry has a Python or C wrapper (``INNER``). ``kernel_monster.feeding`` stays a
call: inlined, it cost the Monster player's modes 20-30 % of their speed. The 0-player game (both sides
automata, the default pairing) has an entry of its own, ``play_chunk_automata``: it makes no decision, so
it links neither player's turn nor policy (a cold first ``simulate`` ~0.22 of the one entry's).

Resuming (issue 29). The players' turns are nested calls (an action, the house, the payment, the Rabid
Monster card: four decisions deep), so the state that resumes a game is the start of the turn under way
plus the searched decisions already taken in it, not a phase code per nested step. ``G`` carries a
seventh array, ``ctl`` (``C_*``; all zero for a plain chunk, where the only cost is one test per decision
with 2+ options and one per turn). ``advance(G, st0, rs0)`` plays on from a turn start and, with
``C_SAVE``, copies each new turn's start into ``st0``/``rs0``. Every decision with 2+ options of a side in
``C_MASK`` goes through ``steer`` once its policy has chosen (so a random policy's stream advances as
always): while the script (``C_SCRIPT``) has entries, the next one is played (checked legal); past it,
with ``C_HALT``, the decision is recorded (side, code, the policy's choice, the legal list), the game
halts (the rest of the turn runs on first options and is thrown away) and the search decides; the game
resumes by copying ``st0``/``rs0`` back and replaying the turn with the decision appended to the script.
A playout is the same replay with the candidate as the last entry: there (``C_BRANCH``) the game becomes
the one the search laid out before (``branch``: the real game as the halt kept it in ``ctl``, every stream
reseeded, what the decider cannot see laid out anew by ``redraw_hidden``; the same game, as the replay
reaches the halt's state), then it runs to its end. ``steer`` only copies: the redraw is linked into the
search alone, not into every function that reaches a decision (issue 30's compile time). Copying a game
is copying ``st`` and ``rs``; replaying a turn's prefix costs a few steps.

Reference counts (issue 30). Numba increfs every array a function binds (its arguments, ``G``'s seven
arrays, an inlined helper's arguments) and decrefs it where the name dies; its pruning pass removes the
pairs only in straight-line code, so a helper with a branch paid two atomic operations per array at each
call: half of a player's game. Every function of the three kernel modules is compiled with
``_nrt=False`` (no reference counting) except the one that allocates (``play_chunk``): none of them
keeps an array beyond the call that received it, and ``play_chunk`` (or the search's entry) holds them all
for the whole chunk.

Numba's cache (``cache=True``) keys a function on its own file only, so an edit of ``state.py``,
``kernel_wizard.py`` or ``kernel_monster.py`` alone would leave this module's cached entry points running
the old code; ``cursedsim.numba_cache`` prevents it by keying the game's cache directory on every source its
compiled modules import (set ``NUMBA_CACHE_DIR`` by hand and that protection is yours to keep).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cursedsim.rng import below_t, next_t, rollout_stream, seed_tuple

from cursedsim.games.village import cards as CARDS
from cursedsim.games.village import components as C
from cursedsim.games.village import rules as R
from cursedsim.games.village import state as S

HOUSES = C.HOUSES
COIN_TOTAL = C.COIN_TOTAL
SHEEP_TOKENS = C.SHEEP_TOKENS
INGREDIENT_LIMIT = C.WIZARD_INGREDIENT_LIMIT
INGREDIENT_TILES = C.INGREDIENT_TILES_EACH
STOMACH_SLOTS = C.STOMACH_SLOTS
UNREACHED = 10 ** 6
RABID_PANIC = S.RABID_PANIC
RABID_CURSE = S.RABID_CURSE
OPT = S.ST_OPTS
N_COLUMNS = len(R.OUTCOME_COLUMNS)
KIND_ONGOING = CARDS.KINDS.index("ongoing")          # cd[CD_KIND] (cards.KINDS)
PLACE_MONSTER = CARDS.PLACEMENTS.index("monster")    # cd[CD_PLACEMENT] (cards.PLACEMENTS)
#: Arguments that mean "none" as np.int64 (as are the constants and first values of the counters handed to
#: compiled functions: numba compiles a callee once per int literal it is passed, see module docstring).
NEXT_SLOT = np.int64(-1)     # ``eat``: the next free stomach slot
NO_LOCATION = np.int64(-1)
NO_HOUSE = np.int64(-1)
#: The options of the kernel's compiled functions but its entry ``play_chunk``: no reference counting
#: (module docstring, "Reference counts") and no Python or C wrapper: only compiled code calls them, and
#: numba would build, optimise and emit both wrappers at each compile and in each caller it is linked into.
INNER = dict(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)


# ---------------------------------------------------------------- random streams

@njit(**INNER)
def below(rs, k, n):
    """A uniform integer in [0, n) from stream k."""
    s = (rs[k, 0], rs[k, 1], rs[k, 2], rs[k, 3])
    x, s = below_t(s, n)
    rs[k, 0] = s[0]
    rs[k, 1] = s[1]
    rs[k, 2] = s[2]
    rs[k, 3] = s[3]
    return x


@njit(**INNER)
def shuffle(st, rs, k, off, n):
    """Fisher-Yates over ``st[off:off+n]`` from stream k: i from n-1 down to 1, j = below(i+1), swap."""
    s = (rs[k, 0], rs[k, 1], rs[k, 2], rs[k, 3])
    for i in range(n - 1, 0, -1):
        j, s = below_t(s, i + 1)
        a, b = off + i, off + j
        st[a], st[b] = st[b], st[a]
    rs[k, 0] = s[0]
    rs[k, 1] = s[1]
    rs[k, 2] = s[2]
    rs[k, 3] = s[3]


@njit(cache=True, inline="always")
def d20(rs):
    return below(rs, S.STREAM_D20, C.D20) + 1


# ---------------------------------------------------------------- tracks (V12: wins checked at once)

@njit(cache=True, inline="always")
def finish(st, winner):
    st[S.ST_OVER] = 1
    st[S.ST_WINNER] = winner


@njit(**INNER)
def move_cure(st, bd, steps, source):
    """``steps`` up the Cure track from ``source`` (S.CURE_MIX, S.CURE_SPELLS: the steps that moved count)."""
    if st[S.ST_OVER] or steps <= 0:
        return
    top = bd[S.BD_CURE_LEN]
    before = st[S.ST_CURE]
    st[S.ST_CURE] = min(st[S.ST_CURE] + steps, top)
    st[S.ST_CURE_FROM + source] += st[S.ST_CURE] - before
    if st[S.ST_CURE] >= top:                               # V12.1
        finish(st, S.WIZARD)


@njit(**INNER)
def move_curse(st, bd, steps, source):
    """``steps`` along the Curse track from ``source`` (S.CURSE_TABLE, S.CURSE_CARDS: the net steps that
    moved count, within the track's ends)."""
    if st[S.ST_OVER] or steps == 0:
        return
    top = bd[S.BD_CURSE_LEN]
    before = st[S.ST_CURSE]
    st[S.ST_CURSE] = max(bd[S.BD_CURSE_START], min(st[S.ST_CURSE] + steps, top))
    st[S.ST_CURSE_FROM + source] += st[S.ST_CURSE] - before
    if st[S.ST_CURSE] >= top:                              # V12.2
        finish(st, S.MONSTER)


@njit(cache=True, inline="always")
def move_panic(st, bd, steps):
    st[S.ST_PANIC] = max(bd[S.BD_PANIC_START], min(st[S.ST_PANIC] + steps, bd[S.BD_PANIC_LEN]))


@njit(cache=True, inline="always")
def panic_effect(st, bd, k):
    """Panic effect k (components.PANIC_EFFECTS order) applies now (V10.4, O6)."""
    level = bd[S.BD_PANIC_FROM + k]
    if st[OPT + S.OPT_PANIC_THRESHOLD] == S.AT_LEVEL:
        return st[S.ST_PANIC] >= level
    return st[S.ST_PANIC] > level


@njit(cache=True, inline="always")
def fire(st, f):
    """Count a Wizard turn in which a Panic effect applied (outcome fired_*, first_*)."""
    st[S.ST_FIRED + f] += 1
    if st[S.ST_FIRST + f] == 0:
        st[S.ST_FIRST + f] = st[S.ST_TURN]


# ---------------------------------------------------------------- villagers, houses, coins

@njit(**INNER)
def draw_villager(st, rs):
    """A uniform token from the bag, EMPTY when the bag is empty (V11.1)."""
    total = np.int64(0)
    for v in range(S.N_TYPES):
        total += st[S.ST_BAG + v]
    if total == 0:
        return S.EMPTY
    x = below(rs, S.STREAM_BAG, total)
    for v in range(S.N_TYPES):
        n = st[S.ST_BAG + v]
        if x < n:
            st[S.ST_BAG + v] -= 1
            return v
        x -= n
    return S.EMPTY


@njit(cache=True, inline="always")
def all_occupied(st):
    for n in range(1, HOUSES + 1):
        if st[S.ST_HOUSES + n] == S.EMPTY:
            return False
    return True


@njit(**INNER)
def closest_empty_house(st, roll):
    """V2.4: the empty house closest in number to the roll; a tie goes to the higher number."""
    best, best_d = -1, UNREACHED
    for n in range(1, HOUSES + 1):
        if st[S.ST_HOUSES + n] == S.EMPTY:
            d = abs(n - roll)
            if d <= best_d:
                best, best_d = n, d
    return best


@njit(**INNER)
def place_rolled(st, rs, v):
    """The d20 house of villager v, or the closest empty one (V2.2, V2.4)."""
    roll = d20(rs)
    house = roll if st[S.ST_HOUSES + roll] == S.EMPTY else closest_empty_house(st, roll)
    st[S.ST_HOUSES + house] = v


@njit(**INNER)
def arrive(st, rs):
    """V2.2, V2.4, V2.5: a villager from the bag to the d20 house or the closest empty one."""
    if all_occupied(st):
        return
    v = draw_villager(st, rs)
    if v == S.EMPTY:
        return
    place_rolled(st, rs, v)


@njit(cache=True, inline="always")
def gain_coins(st, n):
    """V3.8, V11.2: as many as the supply (25 in value) holds; the rest counts in ``coins_lost_to_cap``."""
    want = max(0, n)
    n = max(0, min(want, COIN_TOTAL - st[S.ST_COINS]))
    st[S.ST_COINS] += n
    st[S.ST_COINS_LOST] += want - n
    return n


@njit(**INNER)
def crossing_fee(st, cd):
    """V4.2: 1 coin a crossing; Greedy Coachman in front of the Wizard: its coins."""
    fee = 1
    for i in range(st[S.ST_NFRONT_WIZARD]):
        c = st[S.ST_FRONT_WIZARD + i]
        if cd[S.CD_PRINTED, c] == S.E_WIZARD_CROSSING_COST:
            fee = max(fee, cd[S.CD_FEE, c])
    return fee


@njit(cache=True, inline="always")
def crossings(bd, a, b):
    nd = bd[S.BD_ND]
    return bd[bd[S.O_XING] + bd[bd[S.O_DISTRICT] + a] * nd + bd[bd[S.O_DISTRICT] + b]]


@njit(cache=True, inline="always")
def house_loc(bd, number):
    return bd[bd[S.O_HOUSE_LOC] + number]


# ---------------------------------------------------------------- decks

@njit(**INNER)
def draw_from(st, rs, deck, ndeck, disc, ndisc, stream):
    """The top card of the deck at ``st[deck]`` (length ``st[ndeck]``); an empty deck is first rebuilt
    from its discard pile, shuffled (V5.1, V9.5); -1 when both are empty (V11.1)."""
    if st[ndeck] == 0:
        if st[ndisc] == 0:
            return -1
        n = st[ndisc]
        for i in range(n):
            st[deck + i] = st[disc + i]
        st[ndeck] = n
        st[ndisc] = 0
        shuffle(st, rs, stream, deck, n)
    st[ndeck] -= 1
    return st[deck + st[ndeck]]


@njit(cache=True, inline="always")
def push(st, lst, nlst, c):
    st[lst + st[nlst]] = c
    st[nlst] += 1


# ---------------------------------------------------------------- the stomach

@njit(**INNER)
def feeding_effects(st, cd, kind):
    """V14.13, V15.3: each feeding card next to the Monster board whose villager was just eaten applies
    (an Energy effect has nothing to act on: V13.4)."""
    for i in range(st[S.ST_NPW_FEEDING]):
        c = st[S.ST_PW_FEEDING + i]
        if cd[S.CD_VILLAGER, c] == kind and cd[S.CD_PRINTED, c] == S.E_WIZARD_GAINS_COINS:
            gain_coins(st, cd[S.CD_FEED_COINS, c])


@njit(**INNER)
def eat(st, bd, cd, kind, slot):
    """V7.9, V13.5: a villager or sheep into the next stomach slot (or into ``slot`` >= 0, V13.6); the
    slot, -1 when it cannot be eaten (O9 full_stomach = stop)."""
    if slot < 0:
        if st[S.ST_NSLOTS] >= STOMACH_SLOTS and st[OPT + S.OPT_FULL_STOMACH] == S.FULL_STOP:
            return -1
        slot = st[S.ST_NSLOTS]
        st[S.ST_NSLOTS] += 1
        if slot < S.MAX_SLOTS:
            st[S.ST_SLOT_N + slot] = 0
    if slot < S.MAX_SLOTS and st[S.ST_SLOT_N + slot] < S.SLOT_CAP:
        st[S.ST_SLOT + slot * S.SLOT_CAP + st[S.ST_SLOT_N + slot]] = kind
        st[S.ST_SLOT_N + slot] += 1
    st[S.ST_NTOKENS] += 1
    st[S.ST_STOMACH_KIND + kind] += 1
    st[S.ST_EATEN + kind] += 1
    if kind == S.SHEEP_KIND:
        if st[S.ST_SHEEP_CURSE]:
            bonus = st[S.ST_SHEEP_CURSE]
            st[S.ST_SHEEP_CURSE] = 0
            move_curse(st, bd, bonus, S.CURSE_CARDS)               # Digestive Mutton Chop
    else:
        st[S.ST_NVILLAGERS] += 1
        feeding_effects(st, cd, kind)
    return slot


@njit(cache=True, inline="always")
def clear_stomach(st):
    st[S.ST_NSLOTS] = 0
    st[S.ST_NTOKENS] = 0
    st[S.ST_NVILLAGERS] = 0
    for k in range(S.N_KINDS):
        st[S.ST_STOMACH_KIND + k] = 0


# ================================================================ the Possessed Wizard (V14)

@njit(**INNER)
def pay_crossings(st, bd, cd, target, anyway):
    """Crossing fare from the token to ``target`` (V4.2); short of coins: -1, or with ``anyway`` all the
    coins are spent and the move made (V14.3, V14.10). Returns the coins paid."""
    cost = crossings(bd, st[S.ST_AT], target) * crossing_fee(st, cd)
    if cost > st[S.ST_COINS] and not anyway:
        return -1
    paid = min(cost, st[S.ST_COINS])
    st[S.ST_COINS] -= paid
    st[S.ST_AT] = target
    return paid


@njit(**INNER)
def mix_condition(st, bd):
    """V14.2: 3 ingredients held matching the next 3 steps (as a multiset), or 1-2 steps left and the
    ingredients held contain them; O20 mix_cure: 3 held always mixes."""
    rest = bd[S.BD_CURE_LEN] - st[S.ST_CURE]
    seq = bd[S.O_CURE_SEQ] + st[S.ST_CURE]
    nheld = st[S.ST_NHELD]
    if nheld >= 3 and rest >= 3:
        pool = S.ST_POOL
        for v in range(S.N_TYPES):
            st[pool + v] = st[S.ST_HELD + v]
        for i in range(3):
            st[pool + bd[seq + i]] -= 1
        same = True
        for v in range(S.N_TYPES):
            if st[pool + v] != 0:
                same = False
        if same:
            return True
    if 1 <= rest <= 2 and nheld > 0:
        a = bd[seq]
        ok = st[S.ST_HELD + a] >= 1
        if rest == 2:
            b = bd[seq + 1]
            ok = ok and st[S.ST_HELD + b] >= (2 if b == a else 1)
        if ok:
            return True
    return nheld >= 3 and st[OPT + S.OPT_PW_FULL_UNMATCHED] == S.FULL_MIX_CURE


@njit(**INNER)
def mix_cure(st, bd, cd):
    """V14.3, V14.10: back to the Laboratory (all coins if short), every ingredient held returned, the
    Cure advances one step per ingredient (O19 all_held) or per ingredient matching the next steps."""
    pay_crossings(st, bd, cd, bd[S.BD_LAB], np.bool_(True))
    pool = S.ST_POOL
    for v in range(S.N_TYPES):
        st[pool + v] = st[S.ST_HELD + v]
        st[S.ST_HELD + v] = 0                              # returned to the supply
    nheld = st[S.ST_NHELD]
    st[S.ST_NHELD] = 0
    if st[OPT + S.OPT_PW_MIX_COUNTS] == S.MIX_ALL_HELD:
        steps = nheld
    else:
        steps = 0
        for i in range(st[S.ST_CURE], bd[S.BD_CURE_LEN]):
            need = bd[bd[S.O_CURE_SEQ] + i]
            if st[pool + need] == 0:
                break
            st[pool + need] -= 1
            steps += 1
    move_cure(st, bd, steps, S.CURE_MIX)


@njit(**INNER)
def sought_ingredient(st, bd):
    """V14.6 (O18): the next step's ingredient if not held (next_only), or the first step from the next
    on not covered by the ingredients held (first_missing); -1: nothing to seek."""
    cure, top = st[S.ST_CURE], bd[S.BD_CURE_LEN]
    if cure >= top:
        return -1
    seq = bd[S.O_CURE_SEQ]
    if st[OPT + S.OPT_PW_NEXT_INGREDIENT] == S.NEXT_ONLY:
        first = bd[seq + cure]
        return -1 if st[S.ST_HELD + first] > 0 else first
    pool = S.ST_POOL
    for v in range(S.N_TYPES):
        st[pool + v] = st[S.ST_HELD + v]
    for i in range(cure, top):
        need = bd[seq + i]
        if st[pool + need] > 0:
            st[pool + need] -= 1
        else:
            return need
    return -1


@njit(**INNER)
def in_reach(bd, where, here, loc):
    """A house's district against the token's: any, the current one, or an adjacent one."""
    if where == S.WHERE_ANY:
        return True
    d = bd[bd[S.O_DISTRICT] + loc]
    if where == S.WHERE_CURRENT:
        return d == here
    return bd[bd[S.O_DADJ] + here * bd[S.BD_ND] + d] != 0


@njit(**INNER)
def buy(st, bd, cd, where):
    """V14.6, V14.7, O23: one ingredient, the one sought, from a villager of its type; cheapest
    (crossings included), then closest (O24), then highest number."""
    if where == S.WHERE_ADJACENT and st[OPT + S.OPT_PW_BUY_ADJACENT] == S.BUY_ADJ_ANY:
        where = S.WHERE_ANY
    if st[S.ST_NHELD] >= INGREDIENT_LIMIT:                 # V3.4
        return
    need = sought_ingredient(st, bd)
    if need < 0:
        return
    if st[S.ST_HELD + need] >= INGREDIENT_TILES:           # V11.1
        return
    at = st[S.ST_AT]
    here = bd[bd[S.O_DISTRICT] + at]
    fee = crossing_fee(st, cd)
    by_roads = st[OPT + S.OPT_PW_DISTANCE] == S.DISTANCE_ROADS
    n = bd[S.BD_N]
    best, best_cost, best_close, best_loc, best_x = -1, 0, 0, NO_LOCATION, 0
    for number in range(1, HOUSES + 1):
        if st[S.ST_HOUSES + number] != need:               # ingredient i from villager type i
            continue
        loc = house_loc(bd, number)
        if not in_reach(bd, where, here, loc):
            continue
        x = crossings(bd, at, loc)
        cost = bd[bd[S.O_PRICE] + loc] + x * fee
        close = bd[bd[S.O_DIST] + at * n + loc] if by_roads else x
        if best < 0 or cost < best_cost or (cost == best_cost and close <= best_close):
            best, best_cost, best_close, best_loc, best_x = number, cost, close, loc, x
    if best < 0:
        return
    if best_cost > st[S.ST_COINS]:
        return
    price = best_cost - best_x * fee
    pay_crossings(st, bd, cd, best_loc, np.bool_(False))
    st[S.ST_COINS] -= price
    st[S.ST_HELD + need] += 1
    st[S.ST_NHELD] += 1


@njit(**INNER)
def steal(st, rs, bd, cd, where):
    """V14.8, V14.9: the occupied house with the most coins (highest number among ties) in the current or
    an adjacent district; declared amount O21; a failed roll ends the action."""
    at = st[S.ST_AT]
    here = bd[bd[S.O_DISTRICT] + at]
    best, best_value, best_loc = -1, 0, NO_LOCATION
    occupied_here = False
    for number in range(1, HOUSES + 1):
        if st[S.ST_HOUSES + number] == S.EMPTY:
            continue
        loc = house_loc(bd, number)
        if bd[bd[S.O_DISTRICT] + loc] == here:
            occupied_here = True
        if not in_reach(bd, where, here, loc):
            continue
        value = bd[bd[S.O_COINS] + loc]
        if best < 0 or value >= best_value:
            best, best_value, best_loc = number, value, loc
    if where == S.WHERE_ADJACENT and st[OPT + S.OPT_PW_ADJACENT_STEAL_SKIP] == S.ADJ_STEAL_AS_PRINTED:
        if not occupied_here:                              # O22
            return
    if best < 0:
        return
    anyway = st[OPT + S.OPT_PW_UNPAID_CROSSING] == S.UNPAID_MOVE_ANYWAY
    if pay_crossings(st, bd, cd, best_loc, anyway) < 0:    # O25
        return
    supply = COIN_TOTAL - st[S.ST_COINS]
    declared = best_value if st[OPT + S.OPT_PW_STEAL_AMOUNT] == S.STEAL_HOUSE_VALUE else min(best_value, 3)
    declared = min(declared, supply)                       # V3.13
    if declared < 1:
        return
    roll = below(rs, S.STREAM_D6, C.D6) + 1                # V3.11
    if roll > declared:
        st[S.ST_COINS_STOLEN] += gain_coins(st, declared)


@njit(**INNER)
def apply_spell(st, rs, bd, cd, c):
    """A Spell card's automaton effect (the reference's apply_spell)."""
    effect = cd[S.CD_EFFECT, c]
    if effect == S.E_REMOVE_SHEEP:
        for k in range(bd[S.BD_NP]):
            st[S.ST_SHEEP + k] = max(0, st[S.ST_SHEEP + k] - cd[S.CD_A0, c])
    elif effect == S.E_CURE_IF_NEXT:
        if st[S.ST_CURE] < bd[S.BD_CURE_LEN]:
            first = bd[bd[S.O_CURE_SEQ] + st[S.ST_CURE]]
            if first == cd[S.CD_A0, c] or first == cd[S.CD_A1, c]:
                if st[S.ST_HELD + first] > 0:
                    st[S.ST_HELD + first] -= 1
                    st[S.ST_NHELD] -= 1
                move_cure(st, bd, cd[S.CD_A2, c], S.CURE_SPELLS)
    elif effect == S.E_GAIN_INGREDIENTS:
        for i in range(2):
            v = cd[S.CD_A0 + i, c]
            if st[S.ST_NHELD] < INGREDIENT_LIMIT and st[S.ST_HELD + v] < INGREDIENT_TILES:
                st[S.ST_HELD + v] += 1
                st[S.ST_NHELD] += 1
    elif effect == S.E_DOUBLE_COINS:
        gain_coins(st, min(st[S.ST_COINS], cd[S.CD_A0, c] - st[S.ST_COINS]))
    elif effect == S.E_DISCARD_POWER:
        # Distract: the leftmost ongoing Power card in front of the Monster (a Monster player's Fast Food)
        for i in range(st[S.ST_NFRONT_MONSTER]):
            x = st[S.ST_FRONT_MONSTER + i]
            if cd[S.CD_DECK, x] == S.DK_POWER and cd[S.CD_KIND, x] == KIND_ONGOING:
                for j in range(i + 1, st[S.ST_NFRONT_MONSTER]):
                    st[S.ST_FRONT_MONSTER + j - 1] = st[S.ST_FRONT_MONSTER + j]
                st[S.ST_NFRONT_MONSTER] -= 1
                push(st, S.ST_POWER_DISC, S.ST_NPOWER_DISC, x)
                return
    elif effect == S.E_PLACE_VILLAGER:
        if all_occupied(st):                               # V2.5, V2.6: no house to place it in (no draw)
            return
        v = draw_villager(st, rs)
        if v == S.EMPTY:
            return
        place_rolled(st, rs, v)


@njit(**INNER)
def cast_spell(st, rs, bd, cd, action):
    """V14.1, V14.11: draw and play one Spell card ignoring costs and requirements, then its coins (V3.8).
    As the Cast Spell action, it discards a Greedy Coachman in front of the Wizard (P06 discard_on)."""
    if action:
        kept = 0
        for i in range(st[S.ST_NFRONT_WIZARD]):
            c = st[S.ST_FRONT_WIZARD + i]
            if cd[S.CD_PRINTED, c] == S.E_WIZARD_CROSSING_COST and cd[S.CD_DISCARD_ON_CAST, c] == 1:
                push(st, S.ST_POWER_DISC, S.ST_NPOWER_DISC, c)
            else:
                st[S.ST_FRONT_WIZARD + kept] = c
                kept += 1
        st[S.ST_NFRONT_WIZARD] = kept
    c = draw_from(st, rs, S.ST_SPELL_DECK, S.ST_NSPELL_DECK, S.ST_SPELL_DISC, S.ST_NSPELL_DISC, S.STREAM_SPELL)
    if c < 0:
        return
    apply_spell(st, rs, bd, cd, c)
    if not st[S.ST_OVER]:
        gain_coins(st, cd[S.CD_COINS, c])
    if cd[S.CD_KIND, c] == KIND_ONGOING:                  # V3.7: Hydrophobia stays, in front of the Monster
        if cd[S.CD_PLACEMENT, c] == PLACE_MONSTER:
            push(st, S.ST_FRONT_MONSTER, S.ST_NFRONT_MONSTER, c)
        else:
            push(st, S.ST_FRONT_WIZARD, S.ST_NFRONT_WIZARD, c)
    else:
        push(st, S.ST_SPELL_DISC, S.ST_NSPELL_DISC, c)   # V3.9


@njit(**INNER)
def card_action(st, rs, bd, cd, action):
    """A Possessed Wizard card's action (V14.4, V14.6-V14.11)."""
    if action == S.A_CAST_SPELL:
        cast_spell(st, rs, bd, cd, np.bool_(True))
    elif action == S.A_MIX_CURE:
        mix_cure(st, bd, cd)
    elif action == S.A_STEAL_CURRENT:
        steal(st, rs, bd, cd, S.WHERE_CURRENT)
    elif action == S.A_STEAL_ADJACENT:
        steal(st, rs, bd, cd, S.WHERE_ADJACENT)
    elif action == S.A_BUY_ANY:
        buy(st, bd, cd, S.WHERE_ANY)
    elif action == S.A_BUY_CURRENT:
        buy(st, bd, cd, S.WHERE_CURRENT)
    elif action == S.A_BUY_ADJACENT:
        buy(st, bd, cd, S.WHERE_ADJACENT)


@njit(**INNER)
def possessed_wizard_turn(G):
    """V14.1: a villager arrives, one spell is cast, then one action per card laid out (O26), then the
    cards for the next turn (V14.5)."""
    st, rs, bd, cd = G[0], G[1], G[2], G[3]
    if panic_effect(st, bd, S.PANIC_STAY_INSIDE):          # V10.2 Stay inside!
        fire(st, S.F_STAY_INSIDE)
    else:
        arrive(st, rs)
    st[S.ST_NPW_USED] = 0
    cast_spell(st, rs, bd, cd, np.bool_(False))                    # V14.1
    if st[S.ST_OVER]:
        return
    actions = st[S.ST_NPW_ROW]
    if st[OPT + S.OPT_PW_CARD_COUNT] == S.COUNT_AT_TURN:   # O26
        actions = R.POSSESSED_ACTION_CARDS + (1 if panic_effect(st, bd, S.PANIC_FIRST) else 0)
    for _ in range(actions):
        c = -1
        if st[S.ST_NPW_ROW] > 0:                           # the leftmost card
            c = st[S.ST_PW_ROW]
            for i in range(1, st[S.ST_NPW_ROW]):
                st[S.ST_PW_ROW + i - 1] = st[S.ST_PW_ROW + i]
            st[S.ST_NPW_ROW] -= 1
            push(st, S.ST_PW_USED, S.ST_NPW_USED, c)
        if mix_condition(st, bd):                          # V14.2
            mix_cure(st, bd, cd)
        elif c >= 0:                                       # V14.4
            card_action(st, rs, bd, cd, cd[S.CD_ACTION, c])
        if st[S.ST_OVER]:
            return
    # V14.5: all cards gathered and shuffled; 3 (+1) below the Wizard's board, 1 (+1) by the Monster board
    # (pw_used is copied, not emptied: the Rabid Monster hunts it until the Wizard's next turn, O12)
    for lst, nlst in ((S.ST_PW_ROW, S.ST_NPW_ROW), (S.ST_PW_USED, S.ST_NPW_USED),
                      (S.ST_PW_FEEDING, S.ST_NPW_FEEDING)):
        for i in range(st[nlst]):
            push(st, S.ST_PW_DECK, S.ST_NPW_DECK, st[lst + i])
    st[S.ST_NPW_ROW] = 0
    st[S.ST_NPW_FEEDING] = 0
    shuffle(st, rs, S.STREAM_POSSESSED, S.ST_PW_DECK, st[S.ST_NPW_DECK])
    rows = R.POSSESSED_ACTION_CARDS
    if panic_effect(st, bd, S.PANIC_FIRST):
        fire(st, S.F_EXTRA_ACTION)
        rows += 1
    feeding = R.POSSESSED_FEEDING_CARDS
    if panic_effect(st, bd, S.PANIC_THIRD):
        fire(st, S.F_EXTRA_FEEDING_CARD)
        feeding += 1
    deal_row(st, S.ST_PW_ROW, S.ST_NPW_ROW, rows)
    deal_row(st, S.ST_PW_FEEDING, S.ST_NPW_FEEDING, feeding)


@njit(**INNER)
def deal_row(st, lst, nlst, count):
    """Up to ``count`` cards from the top of the Possessed Wizard deck, in the order drawn."""
    st[nlst] = 0
    for _ in range(min(count, st[S.ST_NPW_DECK])):
        st[S.ST_NPW_DECK] -= 1
        push(st, lst, nlst, st[S.ST_PW_DECK + st[S.ST_NPW_DECK]])


# ================================================================ the Rabid Monster (V13)

@njit(**INNER)
def develop_power(st, rs, bd, cd):
    """V13.3: draw and play one Power card ignoring costs and requirements."""
    c = draw_from(st, rs, S.ST_POWER_DECK, S.ST_NPOWER_DECK, S.ST_POWER_DISC, S.ST_NPOWER_DISC, S.STREAM_POWER)
    if c < 0:
        return
    effect = cd[S.CD_EFFECT, c]
    if effect == S.E_EAT_ROLLED_HOUSES:
        eaten = False
        for _ in range(cd[S.CD_A0, c]):
            roll = d20(rs)
            v = st[S.ST_HOUSES + roll]
            if v != S.EMPTY:
                if eat(st, bd, cd, v, NEXT_SLOT) >= 0:
                    st[S.ST_HOUSES + roll] = S.EMPTY
                    eaten = True
        if eaten:
            move_curse(st, bd, cd[S.CD_A1, c], S.CURSE_CARDS)
    elif effect == S.E_ADD_SHEEP:
        supply = SHEEP_TOKENS
        for k in range(bd[S.BD_NP]):
            supply -= st[S.ST_SHEEP + k]
        order = bd[S.O_PASTURE_ORDER]
        for _ in range(cd[S.CD_A0, c]):
            for i in range(bd[S.BD_NP]):
                if supply > 0:
                    st[S.ST_SHEEP + bd[order + i]] += 1
                    supply -= 1
    elif effect == S.E_CURSE_IF_EATS_SHEEP:
        st[S.ST_SHEEP_CURSE] = cd[S.CD_A1, c]
    elif effect == S.E_WIZARD_CROSSING_COST:
        push(st, S.ST_FRONT_WIZARD, S.ST_NFRONT_WIZARD, c)
    elif effect == S.E_LEAP:
        st[S.ST_AT] = house_loc(bd, d20(rs))
    elif effect == S.E_GAIN_CURSE:
        move_curse(st, bd, cd[S.CD_A0, c], S.CURSE_CARDS)
    elif effect == S.E_EXTRA_RABID_CARD:
        for _ in range(min(cd[S.CD_A0, c], st[S.ST_NRM_DECK])):
            st[S.ST_NRM_DECK] -= 1
            push(st, S.ST_HUNTED, S.ST_NHUNTED, st[S.ST_RM_DECK + st[S.ST_NRM_DECK]])
    if effect != S.E_WIZARD_CROSSING_COST:
        push(st, S.ST_POWER_DISC, S.ST_NPOWER_DISC, c)


@njit(**INNER)
def road_distances(st, bd):
    """Roads from the token (O13) into ``st[ST_DIST:]``: paths that do not pass through an occupied house
    (V7.3) before their end; UNREACHED elsewhere."""
    n = bd[S.BD_N]
    start = st[S.ST_AT]
    for i in range(n):
        st[S.ST_DIST + i] = UNREACHED
    st[S.ST_DIST + start] = 0
    st[S.ST_QUEUE] = start
    head, tail = 0, 1
    adj_start, adj, hn = bd[S.O_ADJ_START], bd[S.O_ADJ], bd[S.O_HOUSE_NUMBER]
    while head < tail:
        i = st[S.ST_QUEUE + head]
        head += 1
        if i != start:
            number = bd[hn + i]
            if number > 0 and st[S.ST_HOUSES + number] != S.EMPTY:
                continue                                   # entering an occupied house ends the move
        di = st[S.ST_DIST + i] + 1
        for e in range(bd[adj_start + i], bd[adj_start + i + 1]):
            j = bd[adj + e]
            if st[S.ST_DIST + j] > di:
                st[S.ST_DIST + j] = di
                st[S.ST_QUEUE + tail] = j
                tail += 1


@njit(**INNER)
def eat_house(st, bd, cd, number, slot):
    v = st[S.ST_HOUSES + number]
    if eat(st, bd, cd, v, slot) >= 0:
        st[S.ST_HOUSES + number] = S.EMPTY


@njit(**INNER)
def hunt(st, bd, cd, villager):
    """V13.5-V13.7: one action for a card showing ``villager`` (a blank card, -1, hunts nothing)."""
    if villager < 0:
        return
    at = st[S.ST_AT]
    by_roads = st[OPT + S.OPT_RABID_PATH] == S.PATH_ROADS
    if by_roads:
        dist, stride = bd[S.O_DIST] + at * bd[S.BD_N], 0
    else:
        road_distances(st, bd)
        dist, stride = S.ST_DIST, 1
    near, far = NO_HOUSE, NO_HOUSE
    for number in range(1, HOUSES + 1):
        if st[S.ST_HOUSES + number] != villager:
            continue
        loc = house_loc(bd, number)
        d = bd[dist + loc] if stride == 0 else st[dist + loc]
        if d <= 2:
            near = number                                  # V13.5: highest number
        elif d == 3:
            far = number
    if near > 0:
        st[S.ST_AT] = house_loc(bd, near)
        eat_house(st, bd, cd, near, NEXT_SLOT)
        return
    if far < 0:
        return                                             # V13.7
    k = -1
    most_sheep = st[OPT + S.OPT_RABID_PASTURE] != S.PASTURE_HIGHEST
    ls = bd[S.O_LPAST_START]
    for e in range(bd[ls + at], bd[ls + at + 1]):
        q = bd[bd[S.O_LPAST] + e]
        if st[S.ST_SHEEP + q] <= 0:
            continue
        if k < 0:
            k = q
        elif most_sheep:
            if st[S.ST_SHEEP + q] > st[S.ST_SHEEP + k] or (st[S.ST_SHEEP + q] == st[S.ST_SHEEP + k] and q > k):
                k = q
        elif q > k:
            k = q
    if k < 0:
        return                                             # V13.7
    slot = eat(st, bd, cd, S.SHEEP_KIND, NEXT_SLOT)              # V13.6
    if slot < 0:
        return
    st[S.ST_SHEEP + k] -= 1
    if st[S.ST_OVER]:                                      # V12: Digestive Mutton Chop's Curse won at the sheep
        return
    st[S.ST_AT] = house_loc(bd, far)
    eat_house(st, bd, cd, far, slot)


@njit(**INNER)
def rabid_monster_turn(G):
    """V13: the hunted villagers (O12), one Power card (V13.3), the actions (V13.5-V13.8), then the
    Panic/Curse adjustment and digesting (V13.9). Never a Quiet Night (V13.10)."""
    st, rs, bd, cd, dk = G[0], G[1], G[2], G[3], G[4]
    clear_stomach(st)
    st[S.ST_SHEEP_CURSE] = 0
    st[S.ST_NHUNTED] = 0
    if st[S.ST_POLICY + S.WIZARD] != S.POLICY_AUTOMATON:
        # V13.2: against a Wizard player, the cards it used, in order; On the Scent draws from the cards it
        # did not draw (RM_DECK as its turn left it)
        for i in range(st[S.ST_NRM_USED]):
            push(st, S.ST_HUNTED, S.ST_NHUNTED, st[S.ST_RM_USED + i])
    elif st[OPT + S.OPT_AUTOMATA_TARGETS] == S.TARGETS_RABID_CARDS:
        n = dk[S.DK_RABID + 1] - dk[S.DK_RABID]
        for i in range(n):
            st[S.ST_RM_DECK + i] = dk[S.DK_RABID] + i
        st[S.ST_NRM_DECK] = n
        shuffle(st, rs, S.STREAM_RABID, S.ST_RM_DECK, n)
        for _ in range(min(R.RABID_CARDS_USED, n)):
            st[S.ST_NRM_DECK] -= 1
            push(st, S.ST_HUNTED, S.ST_NHUNTED, st[S.ST_RM_DECK + st[S.ST_NRM_DECK]])
    else:
        st[S.ST_NRM_DECK] = 0
        for i in range(st[S.ST_NPW_USED]):
            push(st, S.ST_HUNTED, S.ST_NHUNTED, st[S.ST_PW_USED + i])
    develop_power(st, rs, bd, cd)
    if st[S.ST_OVER]:
        return
    tokens = st[OPT + S.OPT_RABID_STOP_COUNT] == S.STOP_TOKENS
    for i in range(st[S.ST_NHUNTED]):                      # V13.8
        count = st[S.ST_NTOKENS] if tokens else st[S.ST_NSLOTS]
        if count >= 3:
            break
        hunt(st, bd, cd, cd[S.CD_VILLAGER, st[S.ST_HUNTED + i]])
        if st[S.ST_OVER]:
            return
    villagers = min(st[S.ST_NVILLAGERS], 3)                # V13.9
    move_panic(st, bd, RABID_PANIC[villagers])
    for v in range(S.N_TYPES):                             # V9.4 digesting
        st[S.ST_BAG + v] += st[S.ST_STOMACH_KIND + v]
    clear_stomach(st)
    move_curse(st, bd, RABID_CURSE[villagers], S.CURSE_TABLE)


# ================================================================ a player's decision

#: ``choice_without_policy``'s answer when the side's policy has to decide (no legal code is this low).
POLICY_DECIDES = np.int64(-(1 << 62))


@njit(**INNER)
def choice_without_policy(G, side, decision, nl):
    """The start of a player's choice among ``st[ST_LEGAL:ST_LEGAL+nl]`` (as ``reference.Table.choose``): no
    option: ``ST_ERR`` set (the reference raises) and -1; a single option, taken without a draw; ``random``
    (policy 1): ``legal[below(nl)]`` from the side's stream (7, 8). Else ``POLICY_DECIDES``: the side's
    module asks its policy (``kernel_wizard.wizard_choose``, ``kernel_monster.monster_choose``), so a
    function of one side links only that side's policies (a smaller compile)."""
    st, rs = G[0], G[1]
    if nl <= 0:
        st[S.ST_ERR] = 1
        return -1
    st[S.ST_DECISION] = decision
    st[S.ST_DECIDER] = side
    st[S.ST_NLEGAL] = nl
    if nl == 1:
        return st[S.ST_LEGAL]
    policy = st[S.ST_POLICY + side]
    if policy == S.POLICY_RANDOM:
        stream = S.STREAM_WIZARD_POLICY if side == S.WIZARD else S.STREAM_MONSTER_POLICY
        return st[S.ST_LEGAL + below(rs, stream, nl)]
    return POLICY_DECIDES


# ================================================================ resuming: the script, halts, playouts

#: ``ctl`` (int64, ``N_CTL``, the 7th array of ``G``): what a search asks of the kernel, all zero for a
#: plain chunk (module docstring, "Resuming"). C_ON: a search steers (``steer`` is asked at every
#: decision with 2+ options); C_MASK: bit per side whose decisions follow the script and halt; C_HALT: halt
#: at the first such decision past the script (the real game); C_HALTED: a halt happened (the rest of that
#: turn was played out by first options and is thrown away); C_N, C_POS: the script's length and the next
#: entry; C_BRANCH: a playout: at the script's last entry (the candidate) the game becomes the one at
#: ``C_STATE`` (``branch`` laid it out: streams reseeded, what the decider cannot see anew); C_SAVE:
#: ``advance`` copies each turn's start; C_H_*: the halted decision (side, decision code, the base policy's
#: choice, the legal list); C_STATE: a game (``st``, then ``rs``'s words): the real game at its halt, a
#: playout's game at its branch.
(C_ON, C_MASK, C_HALT, C_HALTED, C_N, C_POS, C_BRANCH, C_SAVE, C_H_SIDE, C_H_DECISION, C_H_BASE,
 C_H_NL) = range(12)
C_H_LEGAL = 12
MAX_SCRIPT = 512                      # searched decisions in one turn (a turn holds a few dozen)
C_SCRIPT = C_H_LEGAL + S.MAX_LEGAL
C_STATE = C_SCRIPT + MAX_SCRIPT
C_RS = C_STATE + S.N_ST
N_CTL = C_RS + 4 * S.N_STREAMS
#: Sub-streams of a playout (``rng.rollout_stream``): the game's streams (each seeded from four words of
#: it), the redraw of the hidden part, the test's scramble.
SUB_STREAMS = np.int64(0)
SUB_REDRAW = np.int64(1)
SUB_SCRAMBLE = np.int64(2)


@njit(**INNER)
def save(st, rs, st0, rs0):
    """Copy the game (``st``, ``rs``) into ``st0``, ``rs0``."""
    for i in range(st.shape[0]):
        st0[i] = st[i]
    for k in range(rs.shape[0]):
        for j in range(4):
            rs0[k, j] = rs[k, j]


@njit(**INNER)
def keep(st, rs, ctl):
    """Copy the game into ``ctl[C_STATE:]`` (``rs``'s words as int64, bit for bit)."""
    for i in range(st.shape[0]):
        ctl[C_STATE + i] = st[i]
    for k in range(rs.shape[0]):
        for j in range(4):
            ctl[C_RS + 4 * k + j] = np.int64(rs[k, j])


@njit(**INNER)
def restore(ctl, st, rs):
    """The game kept in ``ctl[C_STATE:]`` back into ``st``, ``rs``."""
    for i in range(st.shape[0]):
        st[i] = ctl[C_STATE + i]
    for k in range(rs.shape[0]):
        for j in range(4):
            rs[k, j] = np.uint64(ctl[C_RS + 4 * k + j])


@njit(**INNER)
def steer(G, side, c):
    """A decision of ``side`` with 2+ options under a search (``ctl[C_ON]``), the policy's choice ``c``
    made (its stream advanced as without a search): the script's next entry while one is left (checked
    legal; at the last one a playout becomes the game ``branch`` laid out), else a halt (C_HALT: the
    decision and the game recorded, ``c`` played on), else ``c``. Only copies: the redraw is the search's
    (``branch``), so a function that reaches a decision does not link it."""
    st, rs, ctl = G[0], G[1], G[6]
    if ctl[C_HALTED] != 0 or (ctl[C_MASK] >> side) & 1 == 0:
        return c
    pos = ctl[C_POS]
    if pos < ctl[C_N]:
        x = ctl[C_SCRIPT + pos]
        ctl[C_POS] = pos + 1
        ok = False
        for k in range(st[S.ST_NLEGAL]):
            if st[S.ST_LEGAL + k] == x:
                ok = True
        if not ok:
            st[S.ST_ERR] = 1
            return c
        if pos + 1 == ctl[C_N] and ctl[C_BRANCH] != 0:
            restore(ctl, st, rs)       # this very game, laid out anew by ``branch``
        return x
    if ctl[C_HALT] != 0:
        ctl[C_HALTED] = 1
        ctl[C_H_SIDE] = side
        ctl[C_H_DECISION] = st[S.ST_DECISION]
        ctl[C_H_BASE] = c
        nl = st[S.ST_NLEGAL]
        ctl[C_H_NL] = nl
        for k in range(nl):
            ctl[C_H_LEGAL + k] = st[S.ST_LEGAL + k]
        keep(st, rs, ctl)
    return c


@njit(**INNER)
def sort_shuffle(st, off, n, rng):
    """``st[off:off+n]`` sorted (so nothing of its order before survives), then shuffled from ``rng``;
    the stream advanced."""
    for i in range(1, n):
        x = st[off + i]
        j = i - 1
        while j >= 0 and st[off + j] > x:
            st[off + j + 1] = st[off + j]
            j -= 1
        st[off + j + 1] = x
    for i in range(n - 1, 0, -1):
        j, rng = below_t(rng, i + 1)
        a, b = off + i, off + j
        st[a], st[b] = st[b], st[a]
    return rng


@njit(**INNER)
def pool_redeal(st, deck, ndeck, hand, nhand, with_hand, rng):
    """A deck's order drawn anew; with ``with_hand`` the hand is pooled with it first and dealt again
    (its size kept): what the other side holds, consistent with what it shows."""
    n = st[ndeck]
    nh = st[nhand] if with_hand else 0
    for i in range(nh):
        st[deck + n + i] = st[hand + i]
    rng = sort_shuffle(st, deck, n + nh, rng)
    for i in range(nh):
        st[hand + i] = st[deck + n + i]
    return rng


@njit(**INNER)
def nth_slot(mask, k):
    """The index of the ``k``-th set bit of ``mask`` (from bit 0)."""
    i = 0
    while True:
        if (mask >> i) & 1:
            if k == 0:
                return i
            k -= 1
        i += 1


@njit(**INNER)
def guard_tiles(st, rng, sort):
    """The Town Guard tiles still face down on the border roads permuted among their slots (sorted
    first with ``sort``), in place: no array allocated, no library sort linked into every decision."""
    g = S.ST_GUARD
    mask = np.int64(0)
    n = 0
    for i in range(C.TOWN_GUARD_TOTAL):
        if st[g + i] != S.EMPTY and st[S.ST_GUARD_UP + i] == 0:
            mask |= np.int64(1) << i
            n += 1
    if sort:
        for i in range(1, n):
            x = st[g + nth_slot(mask, i)]
            j = i - 1
            while j >= 0 and st[g + nth_slot(mask, j)] > x:
                st[g + nth_slot(mask, j + 1)] = st[g + nth_slot(mask, j)]
                j -= 1
            st[g + nth_slot(mask, j + 1)] = x
    for i in range(n - 1, 0, -1):
        j, rng = below_t(rng, i + 1)
        a, b = g + nth_slot(mask, i), g + nth_slot(mask, j)
        st[a], st[b] = st[b], st[a]
    return rng


@njit(**INNER)
def redraw_hidden(st, side, rng):
    """What ``side`` cannot see laid out anew from ``rng`` (docs/rules/village.md, "rollout"): the order of
    every deck (Spell, Power, Possessed Wizard, this turn's Rabid Monster cards not drawn), the other
    player's hand pooled with its deck and dealt again (sizes kept), the Town Guard tiles still face down
    permuted among their slots. Each part is sorted before it is shuffled: the result depends on what is
    public only."""
    rng = pool_redeal(st, S.ST_SPELL_DECK, S.ST_NSPELL_DECK, S.ST_WIZARD_HAND, S.ST_NWIZARD_HAND,
                      side != S.WIZARD, rng)
    rng = pool_redeal(st, S.ST_POWER_DECK, S.ST_NPOWER_DECK, S.ST_MONSTER_HAND, S.ST_NMONSTER_HAND,
                      side != S.MONSTER, rng)
    rng = sort_shuffle(st, S.ST_PW_DECK, st[S.ST_NPW_DECK], rng)
    rng = sort_shuffle(st, S.ST_RM_DECK, st[S.ST_NRM_DECK], rng)
    rng = guard_tiles(st, rng, np.bool_(True))
    return rng


@njit(**INNER)
def swap_in(st, deck, ndeck, hand, nhand, rng):
    """The test's scramble of a hidden hand: each card swapped with a uniform card of hand + deck."""
    n, nh = st[ndeck], st[nhand]
    for i in range(nh):
        j, rng = below_t(rng, n + nh)
        a = hand + i
        b = hand + (j - n) if j >= n else deck + j
        st[a], st[b] = st[b], st[a]
    for i in range(n - 1, 0, -1):
        j, rng = below_t(rng, i + 1)
        st[deck + i], st[deck + j] = st[deck + j], st[deck + i]
    return rng


@njit(**INNER)
def shuffle_part(st, off, n, rng):
    for i in range(n - 1, 0, -1):
        j, rng = below_t(rng, i + 1)
        st[off + i], st[off + j] = st[off + j], st[off + i]
    return rng


@njit(**INNER)
def scramble_hidden(st, rs, side, rng):
    """The hidden-information test's change of what ``side`` cannot see, written apart from
    ``redraw_hidden``: the other player's hand swapped with its deck, every deck's order, the face-down
    Town Guard tiles, and every random stream (the future dice, bag draws and shuffles)."""
    if side != S.WIZARD:
        rng = swap_in(st, S.ST_SPELL_DECK, S.ST_NSPELL_DECK, S.ST_WIZARD_HAND, S.ST_NWIZARD_HAND, rng)
    else:
        rng = shuffle_part(st, S.ST_SPELL_DECK, st[S.ST_NSPELL_DECK], rng)
    if side != S.MONSTER:
        rng = swap_in(st, S.ST_POWER_DECK, S.ST_NPOWER_DECK, S.ST_MONSTER_HAND, S.ST_NMONSTER_HAND, rng)
    else:
        rng = shuffle_part(st, S.ST_POWER_DECK, st[S.ST_NPOWER_DECK], rng)
    rng = shuffle_part(st, S.ST_PW_DECK, st[S.ST_NPW_DECK], rng)
    rng = shuffle_part(st, S.ST_RM_DECK, st[S.ST_NRM_DECK], rng)
    rng = guard_tiles(st, rng, np.bool_(False))
    for k in range(rs.shape[0]):
        for j in range(4):
            x, rng = next_t(rng)
            rs[k, j] = x
    return rng


@njit(**INNER)
def branch(ctl, pst, prs, pctl, side, seed, index, decision, playout, peek, scramble):
    """The game playout ``playout`` of a decision continues from, into ``pctl[C_STATE:]`` (``steer`` takes it
    at the candidate): the real game at its halt (``ctl[C_STATE:]``; ``side`` decides), (``scramble``: the
    test's change first) unless ``peek``, what ``side`` cannot see laid out anew and every stream reseeded,
    keyed by (seed, game, decision, playout): the same for every candidate. ``pst``, ``prs``: scratch."""
    restore(ctl, pst, prs)
    if scramble != 0:
        scramble_hidden(pst, prs, side, seed_tuple(seed, index, rollout_stream(decision, scramble, SUB_SCRAMBLE)))
    if peek != 1:
        if peek != 2:                # 2, 3: diagnostics (streams only, the hidden cards only)
            redraw_hidden(pst, side, seed_tuple(seed, index, rollout_stream(decision, playout, SUB_REDRAW)))
        if peek != 3:
            r = seed_tuple(seed, index, rollout_stream(decision, playout, SUB_STREAMS))
            for k in range(prs.shape[0]):
                for j in range(4):
                    x, r = next_t(r)
                    prs[k, j] = x
    keep(pst, prs, pctl)


# ================================================================ the game

@njit(**INNER)
def deal(G, seed, index):
    """V1 set-up of game ``index``: the streams, the tracks, the villagers, the decks (0-player mode)."""
    st, rs, bd, dk = G[0], G[1], G[2], G[4]
    for k in range(S.N_STREAMS):
        s = seed_tuple(seed, index, k)
        rs[k, 0] = s[0]
        rs[k, 1] = s[1]
        rs[k, 2] = s[2]
        rs[k, 3] = s[3]
    for i in range(S.N_SCALARS):
        st[i] = 0
    st[S.ST_WINNER] = S.NO_WINNER
    st[S.ST_SIDE] = S.WIZARD
    st[S.ST_CURSE] = bd[S.BD_CURSE_START]                  # V1.14
    st[S.ST_PANIC] = max(C.PANIC_START, bd[S.BD_PANIC_START])   # V1.5
    st[S.ST_AT] = bd[S.BD_LAB]                             # V1.4
    st[S.ST_COINS] = C.WIZARD_START_COINS
    for k in range(bd[S.BD_NP]):                           # V1.6
        st[S.ST_SHEEP + k] = bd[bd[S.O_PASTURE_SHEEP] + k]
    for v in range(S.N_TYPES):                             # V1.8
        st[S.ST_BAG + v] = C.VILLAGER_COUNTS[v]
        st[S.ST_HELD + v] = 0
    for k in range(S.N_KINDS):
        st[S.ST_STOMACH_KIND + k] = 0
        st[S.ST_EATEN + k] = 0
    for f in range(S.N_FIRED):
        st[S.ST_FIRED + f] = 0
        st[S.ST_FIRST + f] = 0
    st[S.ST_HOUSES] = S.EMPTY
    for number in range(1, HOUSES + 1):
        st[S.ST_HOUSES + number] = draw_villager(st, rs)
    for lst in (S.ST_NSPELL_DISC, S.ST_NPOWER_DISC, S.ST_NPW_ROW, S.ST_NPW_USED, S.ST_NPW_FEEDING,
                S.ST_NRM_DECK, S.ST_NHUNTED, S.ST_NFRONT_WIZARD, S.ST_NFRONT_MONSTER):
        st[lst] = 0
    # V1.10, V1.11: the decks of the mode, each shuffled from its own stream
    for deck, ndeck, d, stream in ((S.ST_SPELL_DECK, S.ST_NSPELL_DECK, S.DK_SPELL, S.STREAM_SPELL),
                                   (S.ST_POWER_DECK, S.ST_NPOWER_DECK, S.DK_POWER, S.STREAM_POWER),
                                   (S.ST_PW_DECK, S.ST_NPW_DECK, S.DK_POSSESSED, S.STREAM_POSSESSED)):
        n = dk[d + 1] - dk[d]
        for i in range(n):
            st[deck + i] = dk[d] + i
        st[ndeck] = n
        shuffle(st, rs, stream, deck, n)
    deal_row(st, S.ST_PW_ROW, S.ST_NPW_ROW, R.POSSESSED_ACTION_CARDS)   # V1.13 (no card: a Wizard player)
    st[S.ST_NRM_DRAWN] = 0
    st[S.ST_NRM_USED] = 0
    # the players' set-up (hands V1.10/V1.11, Town Guard tiles V1.7), the Wizard's first
    if st[S.ST_POLICY + S.WIZARD] != S.POLICY_AUTOMATON:
        KW.wizard_player_deal(G)
    if st[S.ST_POLICY + S.MONSTER] != S.POLICY_AUTOMATON:
        KM.monster_player_deal(G)


@njit(cache=True, inline="always")
def advance(G, st0, rs0):
    """Play the game on from the start of the turn its arrays stand at (``deal``'s state, or a turn start
    ``save``d and restored) to a win, the turn cap (O1), or a halt (``steer``): sides' turns alternate, the
    Wizard first (V1.2). With ``ctl[C_SAVE]`` each turn's start is copied into ``st0``/``rs0`` and the
    decision script emptied: the phase record a halted game resumes from (module docstring, "Resuming").
    Inlined into ``play_chunk`` (and into the search's one caller): as a call it would link and optimise
    the whole kernel once more."""
    st, rs, ctl = G[0], G[1], G[6]
    max_turns = st[OPT + S.OPT_MAX_TURNS]
    while True:
        st[S.ST_TURN] += 1
        if st[S.ST_SIDE] == S.WIZARD:
            if st[S.ST_POLICY + S.WIZARD] == S.POLICY_AUTOMATON:
                possessed_wizard_turn(G)
            else:
                KW.wizard_player_turn(G)
            st[S.ST_SIDE] = S.MONSTER
        else:
            if st[S.ST_POLICY + S.MONSTER] == S.POLICY_AUTOMATON:
                rabid_monster_turn(G)
            else:
                KM.monster_player_turn(G)
            st[S.ST_SIDE] = S.WIZARD
        if not st[S.ST_OVER] and st[S.ST_TURN] >= max_turns:
            st[S.ST_UNFINISHED] = 1
            finish(st, S.NO_WINNER)
        if ctl[C_HALTED] != 0 or st[S.ST_OVER]:
            return
        if ctl[C_SAVE] != 0:
            save(st, rs, st0, rs0)
            ctl[C_N] = 0
            ctl[C_POS] = 0


@njit(cache=True, inline="always")
def advance_automata(G):
    """``advance`` when both sides are automata (the 0-player game: no decision, no search), for
    ``play_chunk_automata``: the same turns, without linking the players' turns and policies."""
    st = G[0]
    max_turns = st[OPT + S.OPT_MAX_TURNS]
    while True:
        st[S.ST_TURN] += 1
        if st[S.ST_SIDE] == S.WIZARD:
            possessed_wizard_turn(G)
            st[S.ST_SIDE] = S.MONSTER
        else:
            rabid_monster_turn(G)
            st[S.ST_SIDE] = S.WIZARD
        if not st[S.ST_OVER] and st[S.ST_TURN] >= max_turns:
            st[S.ST_UNFINISHED] = 1
            finish(st, S.NO_WINNER)
        if st[S.ST_OVER]:
            return


@njit(cache=True, inline="always")
def play_game(G, seed, index, st0, rs0):
    """One game: ``deal`` then ``advance`` (no search: ``ctl`` all zero). Inlined into ``play_chunk``, its
    one caller."""
    deal(G, seed, index)
    advance(G, st0, rs0)


@njit(cache=True, inline="always")
def write_outcome(st, out, g, mode):
    """Row ``g`` of ``out`` (``COLUMNS``) from the finished game in ``st``."""
    out[g, 0] = st[S.ST_WINNER]
    out[g, 1] = mode
    out[g, 2] = st[S.ST_TURN]
    out[g, 3] = st[S.ST_UNFINISHED]
    out[g, 4] = st[S.ST_CURE]
    out[g, 5] = st[S.ST_CURSE]
    out[g, 6] = st[S.ST_PANIC]
    out[g, 7] = st[S.ST_COINS_STOLEN]
    for k in range(S.N_KINDS):
        out[g, 8 + k] = st[S.ST_EATEN + k]
    for f in range(S.N_FIRED):
        out[g, 8 + S.N_KINDS + f] = st[S.ST_FIRED + f]
        out[g, 8 + S.N_KINDS + S.N_FIRED + f] = st[S.ST_FIRST + f]
    k = 8 + S.N_KINDS + 2 * S.N_FIRED
    out[g, k] = st[S.ST_QUIET_NIGHTS]
    out[g, k + 1] = st[S.ST_CURSE_FROM + S.CURSE_TABLE]
    out[g, k + 2] = st[S.ST_CURSE_FROM + S.CURSE_CARDS]
    out[g, k + 3] = st[S.ST_CURE_FROM + S.CURE_MIX]
    out[g, k + 4] = st[S.ST_CURE_FROM + S.CURE_SPELLS]
    out[g, k + 5] = st[S.ST_COINS_LOST]


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def chunk_state(opts, bd, cd, dk, policies, pp):
    """The state tuple ``G`` a chunk plays its games in: the options and both sides' policies set, streams
    and control zeroed (each game's ``deal`` lays out the rest)."""
    st = np.zeros(S.N_ST, np.int64)
    for i in range(opts.shape[0]):
        st[OPT + i] = opts[i]
    st[S.ST_POLICY] = policies[0]
    st[S.ST_POLICY + 1] = policies[1]
    return (st, np.zeros((S.N_STREAMS, 4), np.uint64), bd, cd, dk, pp, np.zeros(N_CTL, np.int64))


@njit(cache=True)
def play_chunk(seed, start, count, mode, opts, bd, cd, dk, policies, pp, out):
    """Play games start .. start+count-1 and fill ``out`` (count x the columns of rules.OUTCOME_DTYPES).
    Returns the first game whose play set ``ST_ERR`` (a decision with no legal option, an unknown policy:
    the reference raises there), else -1."""
    G = chunk_state(opts, bd, cd, dk, policies, pp)
    st = G[0]
    st0 = np.zeros(1, np.int64)            # no search: ``advance`` never saves a turn start
    rs0 = np.zeros((1, 4), np.uint64)
    failed = -1
    for g in range(count):
        play_game(G, seed, start + g, st0, rs0)
        if st[S.ST_ERR] and failed < 0:
            failed = start + g
        write_outcome(st, out, g, mode)
    return failed


@njit(cache=True)
def play_chunk_automata(seed, start, count, mode, opts, bd, cd, dk, policies, pp, out):
    """``play_chunk`` when both sides are automata (the default pairing): the same games, a compile of the
    automata's turns only (a first ``simulate`` of the 0-player game does not compile the players')."""
    G = chunk_state(opts, bd, cd, dk, policies, pp)
    st = G[0]
    failed = -1
    for g in range(count):
        deal(G, seed, start + g)
        advance_automata(G)
        if st[S.ST_ERR] and failed < 0:
            failed = start + g
        write_outcome(st, out, g, mode)
    return failed


# ---------------------------------------------------------------- Python entry

#: The column order of ``play_chunk``'s ``out`` (must be rules.OUTCOME_COLUMNS).
COLUMNS = (("winner", "mode", "turns", "unfinished", "cure", "curse", "panic", "coins_stolen")
           + tuple(f"eaten_{k}" for k in R.EATEN_KINDS) + tuple(f"fired_{e}" for e in R.PANIC_EFFECTS)
           + tuple(f"first_{e}" for e in R.PANIC_EFFECTS) + ("quiet_nights",)
           + R.CURSE_SOURCES + R.CURE_SOURCES + ("coins_lost_to_cap",))
assert COLUMNS == R.OUTCOME_COLUMNS


#: The modes the kernel plays (the Monster player's modes join with kernel_monster), and the policy ids of
#: each side's player (random 1 and planner 2 / glutton 2).
KERNEL_MODES = (R.AUTOMATA, R.RABID_MONSTER, R.POSSESSED_WIZARD, R.DUEL)
PLAYER_POLICIES = ((S.POLICY_RANDOM, S.POLICY_PLANNER), (S.POLICY_RANDOM, S.POLICY_PLANNER))


def default_params(side: int, policy: int) -> list[float] | None:
    """The parameter defaults of ``side``'s player policy with kernel id ``policy`` (policy_specs), None
    for an automaton or a policy without parameters."""
    from cursedsim.games.village import policy_specs
    specs = (policy_specs.WIZARD_POLICIES, policy_specs.MONSTER_POLICIES)[side]
    for spec in specs.values():
        if int(policy) != S.POLICY_AUTOMATON and spec.policy_id == int(policy) and spec.params:
            return list(spec.params.values())
    return None


def pack_run(options, board, mode: str, wizard_policy: int, wizard_params, monster_policy: int, monster_params,
             cards=None):
    """The arrays of a chunk (``run_chunk``'s arguments checked): (opts, bd, cd, dk, policies, pp, mode code)."""
    from cursedsim.games.village import board as B
    if mode not in R.MODE_NAMES:
        raise ValueError(f"unknown village mode {mode!r}; modes: {', '.join(R.MODE_NAMES)}")
    options = R.RuleOptions() if options is None else options
    the_mode = R.MODES[mode]
    fits = all((int(policy) == S.POLICY_AUTOMATON) if automaton else int(policy) in PLAYER_POLICIES[side]
               for side, policy, automaton in ((0, wizard_policy, the_mode.wizard_automaton),
                                               (1, monster_policy, the_mode.monster_automaton)))
    if mode not in KERNEL_MODES or not fits:
        raise NotImplementedError(f"village kernel: mode {mode!r} with wizard policy {wizard_policy} and monster "
                                  f"policy {monster_policy} does not play yet; modes: {', '.join(KERNEL_MODES)} "
                                  f"(an automaton side policy 0, a player side one of its policy ids)")
    if board is None or isinstance(board, str):
        board = B.board_of(options.board if board is None else board)
    bd = S.pack_board(B.with_track_lengths(board, *options.track_lengths(board)), mode)   # O35-O39
    cd, dk = S.pack_cards(cards, mode, options)
    pp = np.zeros((2, S.N_PARAMS), np.float64)
    for side, params in enumerate((wizard_params, monster_params)):
        if params is None:
            params = default_params(side, (wizard_policy, monster_policy)[side])
        if params is not None:
            vec = np.asarray(params, np.float64).ravel()
            if vec.size > S.N_PARAMS:
                raise ValueError(f"{R.SIDES[side]} policy: {vec.size} parameters, the kernel takes at most "
                                 f"{S.N_PARAMS}")
            pp[side, :vec.size] = vec
    return (S.option_array(options), bd, cd, dk, np.array([wizard_policy, monster_policy], np.int64), pp,
            np.int64(R.MODE_NAMES.index(mode)))


def columns_of(out: np.ndarray) -> dict[str, np.ndarray]:
    """``play_chunk``'s ``out`` as outcome arrays by column (rules.OUTCOME_DTYPES)."""
    return {column: out[:, k].astype(R.OUTCOME_DTYPES[column]) for k, column in enumerate(COLUMNS)}


def run_chunk(seed: int, start: int, count: int, options, board, mode: str, wizard_policy: int,
              wizard_params, monster_policy: int, monster_params, cards=None) -> dict[str, np.ndarray]:
    """Play games ``start .. start+count-1`` of run ``seed`` in ``mode`` on ``board`` (a board.Board; None
    = the options' board) with ``cards`` (None = the options' cards file); policies by id per side (0 =
    the side's automaton), parameters as float vectors (None: the policy's defaults, policy_specs). Returns the outcome arrays by
    column (rules.OUTCOME_DTYPES). Plays the modes of ``KERNEL_MODES``."""
    opts, bd, cd, dk, policies, pp, mode_code = pack_run(options, board, mode, wizard_policy, wizard_params,
                                                         monster_policy, monster_params, cards)
    out = np.zeros((count, len(COLUMNS)), np.int64)
    automata = int(wizard_policy) == S.POLICY_AUTOMATON and int(monster_policy) == S.POLICY_AUTOMATON
    play = play_chunk_automata if automata else play_chunk
    failed = play(np.uint64(seed), np.int64(start), np.int64(count), mode_code, opts, bd, cd, dk, policies, pp, out)
    if failed >= 0:
        raise RuntimeError(f"village kernel: game {failed} of run {seed} in mode {mode!r} reached a state the "
                           f"reference rejects (a decision with no legal option or an unknown policy)")
    return columns_of(out)


# The players' modules import this one's helpers; imported last so that either may be imported first.
from cursedsim.games.village import kernel_monster as KM  # noqa: E402
from cursedsim.games.village import kernel_wizard as KW  # noqa: E402
