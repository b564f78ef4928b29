"""The Monster player in the numba kernel (``monster_player.py`` and ``monster_policies.py`` mirrored game by
game): its set-up (``monster_player_deal``: Town Guard tiles from stream 9, 4 Power cards, Energy 0), its
turn (``monster_player_turn``: Quiet Night or Feeding, movements, Town Guard tiles, eating, Energy, Power
cards, the end of the turn) and its policies (``POLICY_RANDOM`` 1, ``POLICY_GLUTTON`` 2) over the legal list
``st[ST_LEGAL:ST_LEGAL+nl]``. Decision and option codes are monster_player.py's (its docstring table).

Helpers come from kernel.py as a module (``K.below`` ...): kernel.py may import this module while it is
itself being imported, so call this module's functions as ``kernel_monster.<name>`` from there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cursedsim.games.village import cards as KC
from cursedsim.games.village import components as C
from cursedsim.games.village import kernel as K
from cursedsim.games.village import monster_player as P
from cursedsim.games.village import monster_policies as MP
from cursedsim.games.village import rules as R
from cursedsim.games.village import state as S
from cursedsim.games.village.board import ROAD_KINDS

OPT = S.ST_OPTS
#: The side and decision codes are np.int64: numba types a plain int constant passed as an argument as a
#: literal and compiles the callee (``decide``) once per value; an np.int64 is one compile.
M = np.int64(S.MONSTER)
NO_OPTIONS = np.int64(0)    # the length of an empty legal list (``add_legal``'s first)
EMPTY = S.EMPTY
HOUSES = C.HOUSES
UNREACHABLE = MP.UNREACHABLE

#: Decisions (monster_player.DECISIONS order): the ``decision`` a policy is asked.
(D_TURN, D_NIGHT_POWER, D_NIGHT_SINGLE, D_ARRIVAL, D_BETWEEN, D_MOVE, D_EAT, D_AFTER_MEAL, D_DISCARD_SPELL,
 D_LEAP, D_SHEEP) = (np.int64(d) for d in range(len(P.DECISIONS)))
assert P.DECISIONS[D_SHEEP] == P.DECIDE_SHEEP and P.DECISIONS[D_MOVE] == P.DECIDE_MOVE

POLICY_RANDOM = 1
POLICY_GLUTTON = 2

KIND_ONGOING = KC.KINDS.index("ongoing")
KIND_SINGLE = KC.KINDS.index("single_use")
PLACE_WIZARD = KC.PLACEMENTS.index("wizard")
BRIDGE = ROAD_KINDS.index("bridge")
N_GUARDS = np.int64(C.TOWN_GUARD_TOTAL)
GUARD_CODES = np.array([code for code, (_, count) in enumerate(C.TOWN_GUARD_TILES) for _ in range(count)], np.int64)
VILLAGER_ENERGY = np.array(C.VILLAGER_ENERGY, np.int64)
ADJ_PANIC = np.array([p for p, _ in R.FEEDING_ADJUSTMENT], np.int64)
ADJ_CURSE = np.array([c for _, c in R.FEEDING_ADJUSTMENT], np.int64)
#: Glutton's value of a Power card by its printed effect code (monster_policies.CARD_VALUE).
CARD_VALUE = np.zeros(max(S.E.values()) + 1, np.int64)
for _name, _value in MP.CARD_VALUE.items():
    CARD_VALUE[S.E[_name]] = _value

OPT_CHOOSER = OPT + S.OPT["night_arrival_chooser"]
OPT_UNMATCHED = OPT + S.OPT["unmatched_meal"]
OPT_NIGHT_ADJUSTS = OPT + S.OPT["quiet_night_adjusts"]
OPT_START_VISITED = OPT + S.OPT["start_location_visited"]
OPT_GUARD_LOSS = OPT + S.OPT["guard_movement_loss"]
CHOOSER_MONSTER = R.NIGHT_ARRIVAL_CHOOSER.index("monster")
UNMATCHED_NO_CHANGE = R.UNMATCHED_MEAL.index("no_change")
LOSS_CARRY_OVER = R.GUARD_MOVEMENT_LOSS.index("carry_over")
KEEP_EATING = R.FULL_STOMACH.index("keep_eating")


# ================================================================ small helpers

@njit(cache=True, inline="always")
def bd_at(bd, name_off, i):
    return bd[bd[name_off] + i]


@njit(cache=True, inline="always")
def occupied_loc(st, bd, loc):
    """The location is a house with a villager in it."""
    number = bd[bd[S.O_HOUSE_NUMBER] + loc]
    return number > 0 and st[S.ST_HOUSES + number] != EMPTY


@njit(cache=True, inline="always")
def visit(st, loc):
    st[S.ST_VISITED + (loc >> 6)] |= np.int64(1) << np.int64(loc & 63)


@njit(**K.INNER)
def remove_at(st, lst, nlst, i):
    """Remove and return element i of the list at ``st[lst]`` (the rest shift left)."""
    c = st[lst + i]
    for j in range(i + 1, st[nlst]):
        st[lst + j - 1] = st[lst + j]
    st[nlst] -= 1
    return c


@njit(**K.INNER)
def add_legal(st, nl, code):
    st[S.ST_LEGAL + nl] = code
    return nl + 1


@njit(**K.INNER)
def sort_legal(st, nl):
    """Sort the legal list ascending and drop repeats (as ``sorted(set(legal))``); its new length."""
    L = S.ST_LEGAL
    for i in range(1, nl):
        x = st[L + i]
        j = i - 1
        while j >= 0 and st[L + j] > x:
            st[L + j + 1] = st[L + j]
            j -= 1
        st[L + j + 1] = x
    out = 0
    for i in range(nl):
        if out == 0 or st[L + i] != st[L + out - 1]:
            st[L + out] = st[L + i]
            out += 1
    return out


@njit(**K.INNER)
def in_legal(st, nl, code):
    for i in range(nl):
        if st[S.ST_LEGAL + i] == code:
            return True
    return False


@njit(**K.INNER)
def any_move_legal(st, nl):
    """A road can be taken (a MOVE code is legal)."""
    for i in range(nl):
        if st[S.ST_LEGAL + i] >= P.MOVE:
            return True
    return False


# ================================================================ set-up

@njit(**K.INNER)
def refill(G):
    """V9.5: draw to 4 Power cards (the discard pile reshuffled into a new deck when needed)."""
    st, rs = G[0], G[1]
    while st[S.ST_NMONSTER_HAND] < C.HAND_SIZE:
        c = K.draw_from(st, rs, S.ST_POWER_DECK, S.ST_NPOWER_DECK, S.ST_POWER_DISC, S.ST_NPOWER_DISC,
                        S.STREAM_POWER)
        if c < 0:
            return
        K.push(st, S.ST_MONSTER_HAND, S.ST_NMONSTER_HAND, c)


@njit(**K.INNER)
def monster_player_deal(G):
    """V1.7: the 12 Town Guard tiles shuffled (stream 9) onto the border roads' slots (the Monster player's
    modes all use them); V1.11: 4 Power cards; Energy 0."""
    st, rs, bd = G[0], G[1], G[2]
    st[S.ST_ENERGY] = 0
    for i in range(N_GUARDS):
        st[S.ST_GUARD + i] = GUARD_CODES[i]
        st[S.ST_GUARD_UP + i] = 0
    K.shuffle(st, rs, S.STREAM_GUARDS, S.ST_GUARD, N_GUARDS)
    slots = 0
    for r in range(bd[S.BD_NR]):
        slots += bd_at(bd, S.O_ROAD_BORDER, r)
    for i in range(slots, N_GUARDS):
        st[S.ST_GUARD + i] = EMPTY                         # a tile with no border road left over
    st[S.ST_NMONSTER_HAND] = 0
    refill(G)


# ================================================================ the decision point

@njit(cache=True, inline="always")
def monster_choose(G, decision, nl):
    """The Monster player's choice among ``st[ST_LEGAL:ST_LEGAL+nl]`` (``kernel.choice_without_policy``: a
    single option without a draw, ``random`` from stream 8; else ``monster_policy``). The count goes on as an
    np.int64: a counter started at 0 is typed as the literal 0 at first, one more compile of ``decide``."""
    return decide(G, decision, np.int64(nl))


@njit(**K.INNER)
def decide(G, decision, nl):
    """``monster_choose``'s compiled body."""
    c = K.choice_without_policy(G, M, decision, nl)
    if c == K.POLICY_DECIDES:
        c = monster_policy(G, decision, nl)
    if G[6][K.C_ON] != 0 and nl > 1:                     # a search steers (kernel.steer)
        c = K.steer(G, M, c)
    return c


@njit(cache=True, inline="always")  # one caller: decide
def monster_policy(G, decision, nl):
    """The Monster policies other than ``random`` (``decide`` asks when there are 2+ options)."""
    st = G[0]
    if st[S.ST_POLICY + M] == POLICY_GLUTTON:
        return glutton(G, decision, nl)
    st[S.ST_ERR] = 1                                       # an unknown Monster policy id
    return st[S.ST_LEGAL]


# ================================================================ the turn (V6)

@njit(**K.INNER)
def monster_player_turn(G):
    """V6.1: a Quiet Night or a Feeding turn, chosen by the policy."""
    st = G[0]
    st[S.ST_VISITED] = 0
    st[S.ST_VISITED + 1] = 0
    if st[OPT_START_VISITED]:                              # O10
        visit(st, st[S.ST_AT])
    st[S.ST_NEW_MOON] = 0
    st[S.ST_MOVE_LOSS] = 0
    st[S.ST_ACTIONS_LEFT] = 0
    st[S.ST_MOVES_LEFT] = 0
    st[S.ST_M_MOVING] = 0
    nl = add_legal(st, NO_OPTIONS, P.QUIET_NIGHT)
    nl = add_legal(st, nl, P.FEEDING)
    if monster_choose(G, D_TURN, nl) == P.QUIET_NIGHT:
        quiet_night(G)
    else:
        feeding(G)


@njit(cache=True, inline="always")  # one caller: monster_player_turn
def quiet_night(G):
    """V6.2-V6.5: Panic -2, Curse -1, one free Power card (and its replacement), two arrivals (O2); then
    digesting (M10), the whole end of the turn only with O8 quiet_night_adjusts."""
    st, rs, bd, cd = G[0], G[1], G[2], G[3]
    st[S.ST_QUIET_NIGHTS] += 1
    K.move_panic(st, bd, C.QUIET_NIGHT_PANIC)
    K.move_curse(st, bd, C.QUIET_NIGHT_CURSE, S.CURSE_TABLE)
    nl = add_legal(st, NO_OPTIONS, np.int64(0))
    for i in range(st[S.ST_NMONSTER_HAND]):
        nl = add_legal(st, nl, 1 + i)
    pick = monster_choose(G, D_NIGHT_POWER, nl)
    single = False
    if pick:
        c = remove_at(st, S.ST_MONSTER_HAND, S.ST_NMONSTER_HAND, pick - 1)
        play_card(G, c)
        if st[S.ST_OVER]:
            return
        single = cd[S.CD_KIND, c] == KIND_SINGLE
        drawn = K.draw_from(st, rs, S.ST_POWER_DECK, S.ST_NPOWER_DECK, S.ST_POWER_DISC, S.ST_NPOWER_DISC,
                            S.STREAM_POWER)
        if drawn >= 0:
            K.push(st, S.ST_MONSTER_HAND, S.ST_NMONSTER_HAND, drawn)
    if single and single_use_index(G) >= 0:                # M10: only the card played this night
        nl = add_legal(st, NO_OPTIONS, np.int64(0))
        nl = add_legal(st, nl, np.int64(1))
        if monster_choose(G, D_NIGHT_SINGLE, nl):
            use_single(G)
            if st[S.ST_OVER]:
                return
    for _ in range(C.QUIET_NIGHT_ARRIVALS):                # V6.4: Stay inside! does not apply
        night_arrival(G)
    if st[OPT_NIGHT_ADJUSTS]:                              # O8
        end_of_turn(G)
    else:
        digest(st)                                         # M10: the night's meal leaves the stomach


@njit(cache=True, inline="always")  # one caller: quiet_night
def night_arrival(G):
    """V6.4 with O2: a villager from the bag to the d20 house; an occupied house: the chooser's empty house
    (the Possessed Wizard's closest house, V2.4, when it chooses)."""
    st, rs = G[0], G[1]
    if st[OPT_CHOOSER] != CHOOSER_MONSTER and st[S.ST_POLICY + S.WIZARD] != 0:
        K.KW.wizard_arrive(G)                              # the Wizard player's V2.3 choice (kernel_wizard)
        return
    if K.all_occupied(st):
        return
    v = K.draw_villager(st, rs)
    if v == EMPTY:
        return
    roll = K.d20(rs)
    house = roll
    if st[S.ST_HOUSES + roll] != EMPTY:
        if st[OPT_CHOOSER] == CHOOSER_MONSTER:
            nl = NO_OPTIONS
            for n in range(1, HOUSES + 1):
                if st[S.ST_HOUSES + n] == EMPTY:
                    nl = add_legal(st, nl, n)
            house = monster_choose(G, D_ARRIVAL, nl)
        else:
            house = K.closest_empty_house(st, roll)
    st[S.ST_HOUSES + house] = v


@njit(**K.INNER)
def feeding(G):
    """V7.1, V8.1: up to 3 actions (more with Midnight Snack), Power cards before or after each; then the
    end of the turn (V9)."""
    st = G[0]
    st[S.ST_ACTIONS_LEFT] = C.MONSTER_ACTIONS
    while not st[S.ST_OVER]:
        nl = between_legal(G)
        choice = monster_choose(G, D_BETWEEN, nl)
        if choice == P.END_TURN:
            break
        if choice == P.NEXT_ACTION:
            st[S.ST_ACTIONS_LEFT] -= 1
            action(G)
        elif choice == P.USE_SINGLE_BETWEEN:
            use_single(G)
        else:
            play_from_hand(G, choice - P.PLAY)
    if not st[S.ST_OVER]:
        end_of_turn(G)


@njit(**K.INNER)
def between_legal(G):
    st = G[0]
    nl = add_legal(st, NO_OPTIONS, P.END_TURN)
    if st[S.ST_ACTIONS_LEFT] > 0:
        nl = add_legal(st, nl, P.NEXT_ACTION)
    if single_use_index(G) >= 0:
        nl = add_legal(st, nl, P.USE_SINGLE_BETWEEN)
    for i in range(st[S.ST_NMONSTER_HAND]):
        if playable(G, st[S.ST_MONSTER_HAND + i]):
            nl = add_legal(st, nl, P.PLAY + i)
    return nl


@njit(cache=True, inline="always")  # one caller: feeding
def action(G):
    """V7.1-V7.11: one action, a moving phase (up to 2 movements, O11 debt first) then an eating phase, then
    the meal's Energy spent (M1)."""
    st, bd = G[0], G[2]
    st[S.ST_M_MOVING] = 1
    st[S.ST_MOVES_LEFT] = max(0, C.MOVES_PER_ACTION - st[S.ST_MOVE_LOSS])
    st[S.ST_MOVE_LOSS] = 0
    while st[S.ST_M_MOVING] and not st[S.ST_OVER]:
        nl = move_legal(G)
        choice = monster_choose(G, D_MOVE, nl)
        if choice == P.END_MOVING:
            break
        if choice >= P.MOVE:
            move_along(G, choice - P.MOVE)
        else:
            spend(G, choice)
    st[S.ST_M_MOVING] = 0
    st[S.ST_MOVES_LEFT] = 0
    while not st[S.ST_OVER]:
        nl = eat_legal(G)
        choice = monster_choose(G, D_EAT, nl)
        if choice == P.EAT_NOTHING:
            return
        if choice == P.EAT_VILLAGER:
            number = bd_at(bd, S.O_HOUSE_NUMBER, st[S.ST_AT])
            v = st[S.ST_HOUSES + number]
            st[S.ST_HOUSES + number] = EMPTY
            monster_eat(G, v)
            break
        if choice >= P.EAT_SHEEP:
            st[S.ST_SHEEP + choice - P.EAT_SHEEP] -= 1
            monster_eat(G, S.SHEEP_KIND)
            break
        spend(G, choice)
    while not st[S.ST_OVER]:                               # M1
        nl = add_legal(st, NO_OPTIONS, P.END_ACTION)
        nl = energy_legal(G, nl)
        choice = monster_choose(G, D_AFTER_MEAL, nl)
        if choice == P.END_ACTION:
            return
        spend(G, choice)


# ---------------------------------------------------------------- Energy (V7.11)

@njit(**K.INNER)
def movement_cost(G):
    """2 Energy a movement (V7.11); Fast Food in front of the Monster: its cost."""
    st, cd = G[0], G[3]
    cost = C.ENERGY_EXTRA_MOVE
    for i in range(st[S.ST_NFRONT_MONSTER]):
        c = st[S.ST_FRONT_MONSTER + i]
        if cd[S.CD_PRINTED, c] == S.E_MOVEMENT_ENERGY_COST:
            cost = min(cost, cd[S.CD_P0, c])
    return cost


@njit(**K.INNER)
def ongoing_spells(G, nl):
    """Append the codes of the ongoing Spells in front of either player (j, 100 + j) to the legal list."""
    st, cd = G[0], G[3]
    for j in range(st[S.ST_NFRONT_WIZARD]):
        if cd[S.CD_DECK, st[S.ST_FRONT_WIZARD + j]] == S.DK_SPELL:
            nl = add_legal(st, nl, j)
    for j in range(st[S.ST_NFRONT_MONSTER]):
        if cd[S.CD_DECK, st[S.ST_FRONT_MONSTER + j]] == S.DK_SPELL:
            nl = add_legal(st, nl, P.MONSTER_CARD + j)
    return nl


@njit(**K.INNER)
def any_ongoing_spell(G):
    st, cd = G[0], G[3]
    for j in range(st[S.ST_NFRONT_WIZARD]):
        if cd[S.CD_DECK, st[S.ST_FRONT_WIZARD + j]] == S.DK_SPELL:
            return True
    for j in range(st[S.ST_NFRONT_MONSTER]):
        if cd[S.CD_DECK, st[S.ST_FRONT_MONSTER + j]] == S.DK_SPELL:
            return True
    return False


@njit(**K.INNER)
def energy_legal(G, nl):
    """Append the Energy uses open at any time in an action (V7.11) and the single-use card (V8.3)."""
    st, bd = G[0], G[2]
    if st[S.ST_ENERGY] >= C.ENERGY_DISCARD_SPELL and any_ongoing_spell(G):
        nl = add_legal(st, nl, P.DISCARD_SPELL)
    if st[S.ST_ENERGY] >= C.ENERGY_PANIC_DOWN and st[S.ST_PANIC] > bd[S.BD_PANIC_START]:
        nl = add_legal(st, nl, P.PANIC_DOWN)
    if single_use_index(G) >= 0:
        nl = add_legal(st, nl, P.USE_SINGLE)
    return nl


@njit(**K.INNER)
def spend(G, choice):
    st, bd = G[0], G[2]
    if choice == P.BUY_MOVEMENT:
        st[S.ST_ENERGY] -= movement_cost(G)
        st[S.ST_MOVES_LEFT] += 1
    elif choice == P.DISCARD_SPELL:
        nl = ongoing_spells(G, NO_OPTIONS)
        code = monster_choose(G, D_DISCARD_SPELL, nl)
        st[S.ST_ENERGY] -= C.ENERGY_DISCARD_SPELL
        if code >= P.MONSTER_CARD:
            c = remove_at(st, S.ST_FRONT_MONSTER, S.ST_NFRONT_MONSTER, code - P.MONSTER_CARD)
        else:
            c = remove_at(st, S.ST_FRONT_WIZARD, S.ST_NFRONT_WIZARD, code)
        K.push(st, S.ST_SPELL_DISC, S.ST_NSPELL_DISC, c)     # V3.9
        if G[3][S.CD_PRINTED, c] == S.E_EXTRA_INGREDIENT_SLOT and st[S.ST_POLICY + S.WIZARD] != 0:
            K.KW.trim_to_capacity(G)                       # Box of Holding's trim: the Wizard player's (M9)
    elif choice == P.PANIC_DOWN:
        st[S.ST_ENERGY] -= C.ENERGY_PANIC_DOWN
        K.move_panic(st, bd, -1)
    elif choice == P.USE_SINGLE:
        use_single(G)
    else:
        st[S.ST_ERR] = 1


# ---------------------------------------------------------------- moving (V7.2-V7.6)

@njit(**K.INNER)
def road_between(bd, a, b):
    for e in range(bd_at(bd, S.O_ADJ_START, a), bd_at(bd, S.O_ADJ_START, a + 1)):
        if bd_at(bd, S.O_ADJ, e) == b:
            return bd_at(bd, S.O_ADJ_ROAD, e)
    return -1


@njit(**K.INNER)
def road_cost(G, road):
    """Movements a road takes: 1; a bridge with Hydrophobia in front of the Monster: 1 + its movements."""
    st, bd, cd = G[0], G[2], G[3]
    cost = 1
    if bd_at(bd, S.O_ROAD_KIND, road) == BRIDGE:
        for i in range(st[S.ST_NFRONT_MONSTER]):
            c = st[S.ST_FRONT_MONSTER + i]
            if cd[S.CD_PRINTED, c] == S.E_BRIDGE_EXTRA_MOVEMENT:
                cost += cd[S.CD_P0, c]
    return cost


@njit(**K.INNER)
def move_legal(G):
    st, bd = G[0], G[2]
    nl = add_legal(st, NO_OPTIONS, P.END_MOVING)
    nl = energy_legal(G, nl)
    at = st[S.ST_AT]
    short = False
    for e in range(bd_at(bd, S.O_ADJ_START, at), bd_at(bd, S.O_ADJ_START, at + 1)):
        if road_cost(G, bd_at(bd, S.O_ADJ_ROAD, e)) <= st[S.ST_MOVES_LEFT]:
            nl = add_legal(st, nl, P.MOVE + bd_at(bd, S.O_ADJ, e))
        else:
            short = True
    if short and st[S.ST_ENERGY] >= movement_cost(G):      # M3: some road takes more than is left
        nl = add_legal(st, nl, P.BUY_MOVEMENT)
    return sort_legal(st, nl)


@njit(**K.INNER)
def move_along(G, n):
    """One movement (V7.2); a border road's Town Guard tile revealed (V7.4-V7.6, O11) unless New Moon;
    entering an occupied house ends the moving phase (V7.3)."""
    st, bd = G[0], G[2]
    road = road_between(bd, st[S.ST_AT], n)
    st[S.ST_MOVES_LEFT] -= road_cost(G, road)
    st[S.ST_AT] = n
    visit(st, n)
    slot = bd_at(bd, S.O_GUARD_SLOT, road)
    if 0 <= slot < N_GUARDS and st[S.ST_GUARD + slot] != EMPTY and not st[S.ST_NEW_MOON]:
        reveal(G, slot)
    if occupied_loc(st, bd, n):
        st[S.ST_M_MOVING] = 0


@njit(**K.INNER)
def reveal(G, slot):
    """V7.4, V7.5: the tile is resolved and leaves the game."""
    st, bd = G[0], G[2]
    tile = st[S.ST_GUARD + slot]
    st[S.ST_GUARD + slot] = EMPTY
    st[S.ST_GUARD_UP + slot] = 1
    if tile == P.ENERGY_MINUS_1:
        st[S.ST_ENERGY] = max(0, st[S.ST_ENERGY] - 1)
    elif tile == P.ENERGY_MINUS_2:
        st[S.ST_ENERGY] = max(0, st[S.ST_ENERGY] - 2)
    elif tile == P.MOVEMENT_MINUS_1:                       # V7.6, O11
        if st[S.ST_MOVES_LEFT] > 0:
            st[S.ST_MOVES_LEFT] -= 1
        elif st[OPT_GUARD_LOSS] == LOSS_CARRY_OVER:
            st[S.ST_MOVE_LOSS] += 1
    elif tile == P.PANIC_PLUS_1:
        K.move_panic(st, bd, 1)


# ---------------------------------------------------------------- eating (V7.7-V7.9)

@njit(cache=True, inline="always")
def room(st):
    return st[S.ST_NSLOTS] < C.STOMACH_SLOTS or st[OPT + S.OPT_FULL_STOMACH] == KEEP_EATING   # O9


@njit(**K.INNER)
def eat_legal(G):
    st, bd = G[0], G[2]
    nl = add_legal(st, NO_OPTIONS, P.EAT_NOTHING)
    at = st[S.ST_AT]
    has_room = room(st)
    if has_room and occupied_loc(st, bd, at):
        nl = add_legal(st, nl, P.EAT_VILLAGER)
    nl = energy_legal(G, nl)
    if has_room:
        for e in range(bd_at(bd, S.O_LPAST_START, at), bd_at(bd, S.O_LPAST_START, at + 1)):
            p = bd_at(bd, S.O_LPAST, e)
            if st[S.ST_SHEEP + p] > 0:
                nl = add_legal(st, nl, P.EAT_SHEEP + p)
    return sort_legal(st, nl)


@njit(**K.INNER)
def monster_eat(G, kind):
    """V7.9: the token into the next stomach slot, its Energy at once (at most 9) less the feeding cards'
    (V14.13, M7; their coins: K.eat); Hydrophobia discarded at the second colour (C11)."""
    st, bd, cd = G[0], G[2], G[3]
    if K.eat(st, bd, cd, kind, K.NEXT_SLOT) < 0:
        return False
    if kind == S.SHEEP_KIND:
        gain = C.SHEEP_ENERGY
    else:
        gain = VILLAGER_ENERGY[kind]
        for i in range(st[S.ST_NPW_FEEDING]):
            c = st[S.ST_PW_FEEDING + i]
            if cd[S.CD_VILLAGER, c] == kind and cd[S.CD_PRINTED, c] == S.E_MONSTER_ENERGY_LESS:
                gain -= cd[S.CD_FEED_ENERGY, c]
    st[S.ST_ENERGY] = min(C.ENERGY_MAX, st[S.ST_ENERGY] + max(0, gain))
    if kind != S.SHEEP_KIND:
        types = 0
        for v in range(S.N_TYPES):
            if st[S.ST_STOMACH_KIND + v] > 0:
                types += 1
        i = np.int64(0)
        while i < st[S.ST_NFRONT_MONSTER]:
            c = st[S.ST_FRONT_MONSTER + i]
            if cd[S.CD_PRINTED, c] == S.E_BRIDGE_EXTRA_MOVEMENT and types >= cd[S.CD_P1, c]:
                remove_at(st, S.ST_FRONT_MONSTER, S.ST_NFRONT_MONSTER, i)
                K.push(st, S.ST_SPELL_DISC, S.ST_NSPELL_DISC, c)
            else:
                i += 1
    return True


# ---------------------------------------------------------------- Power cards (V8)

@njit(**K.INNER)
def single_use_index(G):
    """Index in front of the Monster of its single-use card, -1 when none."""
    st, cd = G[0], G[3]
    for i in range(st[S.ST_NFRONT_MONSTER]):
        if cd[S.CD_KIND, st[S.ST_FRONT_MONSTER + i]] == KIND_SINGLE:
            return i
    return -1


@njit(**K.INNER)
def playable(G, c):
    """V8.2: a location visited this turn (O10), the stomach tokens shown, Panic +n below its top, Energy."""
    st, bd, cd = G[0], G[2], G[3]
    if cd[S.CD_NEED_LOCATION, c] != 0:
        kind = cd[S.CD_NEED_LOCATION, c] - 1               # a location kind (state.pack_cards)
        seen = False
        for loc in range(bd[S.BD_N]):
            if bd_at(bd, S.O_KIND, loc) == kind and (st[S.ST_VISITED + (loc >> 6)] >> (loc & 63)) & 1:
                seen = True
        if not seen:
            return False
    need = cd[S.CD_NEED_STOMACH, c]
    for k in range(S.N_KINDS):
        if st[S.ST_STOMACH_KIND + k] < ((need >> (4 * k)) & 15):
            return False
    if cd[S.CD_NEED_PANIC, c] and st[S.ST_PANIC] + cd[S.CD_NEED_PANIC, c] > bd[S.BD_PANIC_LEN]:
        return False
    return st[S.ST_ENERGY] >= cd[S.CD_NEED_ENERGY, c]


@njit(cache=True, inline="always")  # one caller: feeding
def play_from_hand(G, i):
    """V8.2: pay the Panic and Energy costs, then the card (V8.3)."""
    st, bd, cd = G[0], G[2], G[3]
    c = remove_at(st, S.ST_MONSTER_HAND, S.ST_NMONSTER_HAND, i)
    if cd[S.CD_NEED_PANIC, c]:
        K.move_panic(st, bd, cd[S.CD_NEED_PANIC, c])
    st[S.ST_ENERGY] -= cd[S.CD_NEED_ENERGY, c]
    play_card(G, c)


@njit(cache=True, inline="always")  # two callers: quiet_night, play_from_hand
def play_card(G, c):
    """V8.3, V8.4: immediate (applied, discarded), ongoing (in front of the Monster or, placement wizard, the
    Wizard), single-use (in front of the Monster; a previous one discarded without effect)."""
    st, cd = G[0], G[3]
    kind = cd[S.CD_KIND, c]
    if kind == KIND_ONGOING:
        if cd[S.CD_PLACEMENT, c] == PLACE_WIZARD:
            K.push(st, S.ST_FRONT_WIZARD, S.ST_NFRONT_WIZARD, c)
        else:
            K.push(st, S.ST_FRONT_MONSTER, S.ST_NFRONT_MONSTER, c)
        return
    if kind == KIND_SINGLE:
        old = single_use_index(G)
        if old >= 0:                                       # V8.4
            K.push(st, S.ST_POWER_DISC, S.ST_NPOWER_DISC, remove_at(st, S.ST_FRONT_MONSTER, S.ST_NFRONT_MONSTER, old))
        K.push(st, S.ST_FRONT_MONSTER, S.ST_NFRONT_MONSTER, c)
        return
    apply_effect(G, c)
    K.push(st, S.ST_POWER_DISC, S.ST_NPOWER_DISC, c)


@njit(**K.INNER)
def use_single(G):
    """V8.3: activate the single-use card in front of the Monster, then discard it."""
    st = G[0]
    c = remove_at(st, S.ST_FRONT_MONSTER, S.ST_NFRONT_MONSTER, single_use_index(G))
    K.push(st, S.ST_POWER_DISC, S.ST_NPOWER_DISC, c)
    apply_effect(G, c)


@njit(**K.INNER)
def apply_effect(G, c):
    """Every Power effect of the Monster's text (its printed effect and parameters)."""
    st, rs, bd, cd = G[0], G[1], G[2], G[3]
    effect = cd[S.CD_PRINTED, c]
    if effect == S.E_EAT_ROLLED_HOUSES:                    # C13
        eaten = 0
        for _ in range(cd[S.CD_P0, c]):
            roll = K.d20(rs)
            v = st[S.ST_HOUSES + roll]
            if v != EMPTY and room(st):
                st[S.ST_HOUSES + roll] = EMPTY
                monster_eat(G, v)
                eaten += 1
        if eaten:
            K.move_curse(st, bd, cd[S.CD_P1, c], S.CURSE_CARDS)
    elif effect == S.E_ADD_SHEEP:                          # C14
        add_sheep(G, cd[S.CD_P0, c])
    elif effect == S.E_GAIN_ENERGY:
        st[S.ST_ENERGY] = min(C.ENERGY_MAX, st[S.ST_ENERGY] + cd[S.CD_P0, c])
    elif effect == S.E_EXTRA_FEEDING_ACTION:
        st[S.ST_ACTIONS_LEFT] += cd[S.CD_P0, c]
    elif effect == S.E_LEAP:                               # C17: not a movement
        at = st[S.ST_AT]
        nl = NO_OPTIONS
        for n in range(bd[S.BD_N]):
            if n != at:
                nl = add_legal(st, nl, n)
        n = monster_choose(G, D_LEAP, nl)
        st[S.ST_AT] = n
        visit(st, n)
        if occupied_loc(st, bd, n):                        # M5: V7.3 for any entry
            st[S.ST_M_MOVING] = 0
    elif effect == S.E_IGNORE_TOWN_GUARDS:
        st[S.ST_NEW_MOON] = 1
    elif effect == S.E_GAIN_CURSE:
        K.move_curse(st, bd, cd[S.CD_P0, c], S.CURSE_CARDS)


@njit(cache=True, inline="always")  # one caller: apply_effect
def add_sheep(G, per_pasture):
    """An Extra Serving: per_pasture sheep to each pasture from the supply (sheep in the stomach are not in
    it); short, the Monster chooses where each goes (M8)."""
    st, bd = G[0], G[2]
    n = bd[S.BD_NP]
    supply = C.SHEEP_TOKENS - st[S.ST_STOMACH_KIND + S.SHEEP_KIND]
    for k in range(n):
        supply -= st[S.ST_SHEEP + k]
    if supply >= per_pasture * n:
        for k in range(n):
            st[S.ST_SHEEP + k] += per_pasture
        return
    for k in range(n):
        st[S.ST_M_GIVEN + k] = 0
    while supply > 0:
        nl = NO_OPTIONS
        for k in range(n):
            if st[S.ST_M_GIVEN + k] < per_pasture:
                nl = add_legal(st, nl, k)
        k = monster_choose(G, D_SHEEP, nl)
        st[S.ST_M_GIVEN + k] += 1
        st[S.ST_SHEEP + k] += 1
        supply -= 1


# ================================================================ the end of the turn (V9)

@njit(**K.INNER)
def end_of_turn(G):
    """V9: the adjustment by the most numerous villager type (O7; sheep do not count), the Curse checked at
    once (V12.2), digesting (V9.4), the refill (V9.5)."""
    st, bd = G[0], G[2]
    most, total = 0, 0
    for v in range(S.N_TYPES):
        most = max(most, st[S.ST_STOMACH_KIND + v])
        total += st[S.ST_STOMACH_KIND + v]
    panic, curse = ADJ_PANIC[min(most, 3)], ADJ_CURSE[min(most, 3)]
    if most <= 1 and total >= 2 and st[OPT_UNMATCHED] == UNMATCHED_NO_CHANGE:
        panic, curse = 0, 0
    K.move_panic(st, bd, panic)
    K.move_curse(st, bd, curse, S.CURSE_TABLE)
    if st[S.ST_OVER]:
        return
    digest(st)
    refill(G)


@njit(**K.INNER)
def digest(st):
    """V9.4: eaten villagers back into the bag, the stomach emptied (eaten sheep are back in the supply)."""
    for v in range(S.N_TYPES):
        st[S.ST_BAG + v] += st[S.ST_STOMACH_KIND + v]
    K.clear_stomach(st)


# ================================================================ Glutton (monster_policies.Glutton)

@njit(**K.INNER)
def route_distances(G, start):
    """Movements from ``start`` into ``st[ST_DIST:]`` along roads, through no occupied house (V7.3), with
    Hydrophobia's bridges; UNREACHABLE elsewhere (the reference's relaxation passes; the same distances by a
    breadth-first search when every road costs 1, that is without Hydrophobia: issue 30, it was a third of
    the Monster player's time)."""
    st, bd, cd = G[0], G[2], G[3]
    n = bd[S.BD_N]
    D = S.ST_DIST
    for i in range(n):
        st[D + i] = UNREACHABLE
    st[D + start] = 0
    extra = 0                                              # road_cost's extra on a bridge (Hydrophobia)
    for i in range(st[S.ST_NFRONT_MONSTER]):
        c = st[S.ST_FRONT_MONSTER + i]
        if cd[S.CD_PRINTED, c] == S.E_BRIDGE_EXTRA_MOVEMENT:
            extra += cd[S.CD_P0, c]
    if extra == 0:
        # every road costs 1: a breadth-first search (each location queued once, at its final distance)
        # reaches the relaxation's fixed point, the same distances, in one pass over the roads
        Q = S.ST_QUEUE
        adj_start, adj, hn = bd[S.O_ADJ_START], bd[S.O_ADJ], bd[S.O_HOUSE_NUMBER]
        st[Q] = start
        head, tail = 0, 1
        while head < tail:
            i = st[Q + head]
            head += 1
            if i != start:
                number = bd[hn + i]
                if number > 0 and st[S.ST_HOUSES + number] != EMPTY:
                    continue                               # occupied_loc: the move ends there
            di = st[D + i] + 1
            for e in range(bd[adj_start + i], bd[adj_start + i + 1]):
                j = bd[adj + e]
                if st[D + j] > di:
                    st[D + j] = di
                    st[Q + tail] = j
                    tail += 1
        return
    changed = True
    while changed:
        changed = False
        for i in range(n):
            if st[D + i] >= UNREACHABLE:
                continue
            if i != start and occupied_loc(st, bd, i):
                continue
            for e in range(bd_at(bd, S.O_ADJ_START, i), bd_at(bd, S.O_ADJ_START, i + 1)):
                j = bd_at(bd, S.O_ADJ, e)
                d = st[D + i] + road_cost(G, bd_at(bd, S.O_ADJ_ROAD, e))
                if d < st[D + j]:
                    st[D + j] = d
                    changed = True


@njit(cache=True, inline="always")
def gparam(G, k):
    return np.int64(G[5][M, k])


@njit(**K.INNER)
def glutton_target(G, reach):
    """The location of the best occupied house within ``reach`` movements, -1 if none; ties: the lowest
    house number."""
    st, bd = G[0], G[2]
    route_distances(G, st[S.ST_AT])
    match, dist = gparam(G, 1), gparam(G, 2)
    best, best_score = -1, 0
    for number in range(1, HOUSES + 1):
        v = st[S.ST_HOUSES + number]
        if v == EMPTY:
            continue
        loc = K.house_loc(bd, number)
        d = st[S.ST_DIST + loc]
        if d > reach:
            continue
        score = match * st[S.ST_STOMACH_KIND + v] + VILLAGER_ENERGY[v] - dist * d + 100
        if best < 0 or score > best_score:
            best, best_score = loc, score
    return best


@njit(**K.INNER)
def glutton_best_card(G, nl, offset):
    """The legal play code (>= offset) of the highest-valued card; -1 when none has a positive value
    (with play_zero: none has value 0 and no Panic or Energy cost either)."""
    st, cd = G[0], G[3]
    best, value = -1, np.int64(-1 if gparam(G, 5) else 0)
    has_single = single_use_index(G) >= 0
    for i in range(nl):
        code = st[S.ST_LEGAL + i]
        if code < offset:
            continue
        c = st[S.ST_MONSTER_HAND + code - offset]
        v = CARD_VALUE[cd[S.CD_PRINTED, c]]
        if v == 0 and (cd[S.CD_NEED_PANIC, c] or cd[S.CD_NEED_ENERGY, c]):
            v = -1                                         # a cost for nothing
        if cd[S.CD_KIND, c] == KIND_SINGLE and has_single:
            v = -1                                         # V8.4 would waste the waiting one
        if v > value:
            best, value = code, v
    return best


@njit(**K.INNER)
def glutton_spend(G, nl):
    st = G[0]
    if in_legal(st, nl, P.PANIC_DOWN) and st[S.ST_PANIC] >= gparam(G, 3):
        return P.PANIC_DOWN
    if in_legal(st, nl, P.DISCARD_SPELL) and \
            st[S.ST_ENERGY] >= C.ENERGY_DISCARD_SPELL + movement_cost(G) * gparam(G, 4):
        return P.DISCARD_SPELL
    return -1


@njit(**K.INNER)
def glutton(G, decision, nl):
    """Glutton's choice (monster_policies.Glutton.act), integer scores, ties to the lowest code."""
    st, bd, cd = G[0], G[2], G[3]
    L = S.ST_LEGAL
    if decision == D_TURN:
        if st[S.ST_PANIC] >= gparam(G, 0) and st[S.ST_NSLOTS] == 0:
            return P.QUIET_NIGHT
        return P.FEEDING
    if decision == D_NIGHT_POWER:
        return max(0, glutton_best_card(G, nl, np.int64(1)))
    if decision == D_NIGHT_SINGLE:
        return 0
    if decision == D_BETWEEN:
        play = glutton_best_card(G, nl, P.PLAY)
        if play >= 0:
            return play
        single = single_use_index(G)
        if in_legal(st, nl, P.USE_SINGLE_BETWEEN) and single >= 0:
            effect = cd[S.CD_PRINTED, st[S.ST_FRONT_MONSTER + single]]
            if effect == S.E_EXTRA_FEEDING_ACTION and st[S.ST_ACTIONS_LEFT] == 0:
                return P.USE_SINGLE_BETWEEN
            if effect == S.E_LEAP and st[S.ST_ACTIONS_LEFT] > 0 and glutton_target(G, C.MOVES_PER_ACTION) < 0:
                return P.USE_SINGLE_BETWEEN
        if in_legal(st, nl, P.NEXT_ACTION):
            return P.NEXT_ACTION
        return P.END_TURN
    if decision == D_MOVE:
        code = glutton_spend(G, nl)
        if code >= 0:
            return code
        if occupied_loc(st, bd, st[S.ST_AT]):
            return P.END_MOVING
        cost = movement_cost(G)
        max_buy = gparam(G, 4)
        bought = min(max_buy, st[S.ST_ENERGY] // cost) if cost > 0 else max_buy
        goal = glutton_target(G, st[S.ST_MOVES_LEFT] + bought)
        if goal < 0:
            return P.END_MOVING
        if in_legal(st, nl, P.BUY_MOVEMENT) and not any_move_legal(st, nl):
            return P.BUY_MOVEMENT                          # no road can be taken: buy one (M3)
        best, best_d = -1, UNREACHABLE
        back = False
        for i in range(nl):
            code = st[L + i]
            if code < P.MOVE:
                continue
            n = code - P.MOVE
            if n == goal:
                return code
            if occupied_loc(st, bd, n):
                continue
            if not back:
                # the reference searches from each road's end n to the goal; the roads are two-way and a
                # road's cost is its own (road_cost), so one search back from the goal gives every n's
                # distance: the same paths reversed (their inner locations empty, n itself is empty here)
                route_distances(G, goal)
                back = True
            d = st[S.ST_DIST + n]
            if d < best_d:
                best, best_d = code, d
        return best if best >= 0 else P.END_MOVING
    if decision == D_EAT:
        code = glutton_spend(G, nl)
        if code >= 0:
            return code
        if in_legal(st, nl, P.EAT_VILLAGER):
            return P.EAT_VILLAGER
        best, most = P.EAT_NOTHING, 0
        for i in range(nl):
            code = st[L + i]
            if code >= P.EAT_SHEEP and st[S.ST_SHEEP + code - P.EAT_SHEEP] > most:
                best, most = code, st[S.ST_SHEEP + code - P.EAT_SHEEP]
        return best
    if decision == D_AFTER_MEAL:
        return max(P.END_ACTION, glutton_spend(G, nl))
    if decision == D_LEAP:
        match = gparam(G, 1)
        best, best_score = st[L], -1
        for i in range(nl):
            n = st[L + i]
            if not occupied_loc(st, bd, n):
                continue
            v = st[S.ST_HOUSES + bd_at(bd, S.O_HOUSE_NUMBER, n)]
            score = match * st[S.ST_STOMACH_KIND + v] + VILLAGER_ENERGY[v]
            if score > best_score:
                best, best_score = n, score
        return best
    if decision == D_ARRIVAL:
        at = st[S.ST_AT]
        n_loc = bd[S.BD_N]
        best, best_d = st[L], UNREACHABLE * 1000
        for i in range(nl):
            number = st[L + i]
            d = bd[bd[S.O_DIST] + at * n_loc + K.house_loc(bd, number)]
            if d < best_d:
                best, best_d = number, d
        return best
    return st[L]
