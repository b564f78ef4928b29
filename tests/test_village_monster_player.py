"""The Monster player in the village reference engine (docs/rules/village.md V6-V9, V14.13, the Monster's
readings M1-M12): each rule on a table set up by hand (the default board: house 1 -gate, guard slot 0-
house 7 -street- market; house 3 -bridge, slot 2- house 15; the pasture Market Green next to house 7),
the Town Guard tiles, every Power card's requirement and effect, the worked examples E4, E6, E7, legality
over many random games, determinism, and Glutton against MonsterRandom."""

from __future__ import annotations

import dataclasses
import math

import pytest

from cursedsim.games.village import cards as K
from cursedsim.games.village import components as C
from cursedsim.games.village import monster_player as P
from cursedsim.games.village import monster_policies as MP
from cursedsim.games.village import reference as V
from cursedsim.games.village import rules as R
from cursedsim.games.village import wizard_player as W
from cursedsim.games.village import wizard_policies as WP

CARDS = K.load_cards()
PW = R.POSSESSED_WIZARD
FARMER, HUNTER, WOODCUTTER, BUTCHER, MERCHANT, NOBLE = range(6)


class Script:
    """A controller answering from a list of (decision, code); it checks the decision and legality."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked = []

    def act(self, t, side, decision, legal, stream):
        self.asked.append((decision, list(legal)))
        assert self.answers, f"unexpected decision {decision} {legal}"
        want, code = self.answers.pop(0)
        assert want == decision, (want, decision, legal)
        assert code in legal, (decision, code, legal)
        return code


class Rolls:
    """A stand-in stream: ``below`` returns the scripted values (a d20 roll r is below(20) = r - 1)."""

    def __init__(self, *values):
        self.values = list(values)

    def below(self, n):
        return self.values.pop(0)


def table(*answers, mode=PW, **options) -> V.Table:
    """A dealt Monster-player table, every house emptied, stomach empty, Energy 0; the Monster's answers."""
    script = Script()
    controllers = {R.MONSTER: script}
    if mode == R.DUEL:
        controllers[R.WIZARD] = Script()
    t = V.Table.deal(3, 0, R.RuleOptions(**options), mode=mode, controllers=controllers, log=True)
    for n in range(1, C.HOUSES + 1):
        if t.houses[n] != V.EMPTY:
            t.bag[t.houses[n]] += 1
            t.houses[n] = V.EMPTY
    t.pw_feeding = []
    script.answers = list(answers)
    start(t)
    return t


def start(t, at=None):
    """The per-turn state of a Monster turn (as turn() sets it) without its first choice."""
    if at is not None:
        t.at = at
    t.m_visited = [t.at] if t.options.start_location_visited else []
    t.m_new_moon, t.m_guard_debt, t.m_actions, t.m_moves, t.m_moving = False, 0, 3, 0, False


def place(t, **houses):
    for key, v in houses.items():
        t.bag[v] -= 1
        t.houses[int(key[1:])] = v


def H(t, n):
    return t.board.house(n)


def card(card_id, **req):
    """The card with exactly the requirements ``req`` (none by default: the rule tests give each card what
    they test; the file's reconstructed requirements, village_cards.md C5, are tested with the cards)."""
    c = CARDS.by_id(card_id)
    return dataclasses.replace(c, requirements=K.Requirements(**req))


def answer(t, *answers):
    t.controllers[R.MONSTER].answers = list(answers)


MOVE, EAT = P.DECIDE_MOVE, P.DECIDE_EAT


# ---------------------------------------------------------------- set-up (V1.7, V1.11)

def test_deal_hand_energy_and_town_guards():
    t = V.Table.deal(5, 2, mode=PW, controllers={R.MONSTER: MP.MonsterRandom()})
    assert len(t.power_hand) == C.HAND_SIZE and t.energy == 0
    assert len(t.power_deck) == len(CARDS.deck_for(PW)["power"]) - 4
    assert len(t.guards) == 12 == int(sum(t.arrays["road_border"]))
    for code, (_, count) in enumerate(C.TOWN_GUARD_TILES):
        assert t.guards.count(code) == count
    again = V.Table.deal(5, 2, mode=PW, controllers={R.MONSTER: MP.MonsterRandom()})
    assert again.guards == t.guards
    assert any(V.Table.deal(5, i, mode=PW, controllers={R.MONSTER: MP.MonsterRandom()}).guards != t.guards
               for i in range(3, 8))


def test_town_guards_only_where_the_mode_uses_them():
    t = V.Table.deal(5, 2, mode=R.AUTOMATA)
    assert t.guards == [] and t.power_hand == []


# ---------------------------------------------------------------- Quiet Night (V6)

def test_quiet_night_tracks_free_card_replacement_and_two_arrivals():
    t = table()
    t.panic, t.curse = 5, 3
    t.power_hand = [card("P10", energy=5, location="house 20"), card("P03")]   # requirements ignored (V6.3)
    deck = len(t.power_deck)
    answer(t, (P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 1))
    P.turn(t)
    # Panic -2, Curse -1, then Noble Blood's Curse +1, no Energy spent
    assert (t.panic, t.curse, t.energy) == (3, 3, 0) and t.quiet_nights == 1
    assert len(t.power_hand) == 2 and len(t.power_deck) == deck - 1
    assert sum(1 for n in range(1, 21) if t.houses[n] != V.EMPTY) == 2
    assert [e["action"] for e in t.events].count("arrive") == 2
    assert not t.controllers[R.MONSTER].answers


def test_quiet_night_floors_and_no_card():
    t = table((P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 0))
    t.panic, t.curse = 2, t.curse_min
    hand = list(t.power_hand)
    P.turn(t)
    assert t.panic == t.panic_min and t.curse == t.curse_min and t.power_hand == hand


def test_quiet_night_arrivals_ignore_stay_inside():
    t = table((P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 0))
    t.panic = 10
    P.turn(t)
    assert t.panic == 8 and t.panic_effect(1)           # Stay inside! still applies at 8 ...
    assert sum(1 for n in range(1, 21) if t.houses[n] != V.EMPTY) == 2   # ... and both arrived


@pytest.mark.parametrize("chooser", ["wizard", "monster"])
def test_quiet_night_occupied_house_chooser(chooser):
    """O2: the Possessed Wizard's closest empty house (V2.4), or the Monster's choice."""
    t = table(night_arrival_chooser=chooser)
    for n in range(1, 21):
        if n not in (2, 17):
            place(t, **{f"h{n}": FARMER if t.bag[FARMER] else HUNTER if t.bag[HUNTER] else
                        WOODCUTTER if t.bag[WOODCUTTER] else BUTCHER if t.bag[BUTCHER] else MERCHANT})
    t.streams[V.STREAM_D20] = Rolls(5 - 1, 9 - 1)       # both occupied
    answers = [(P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 0)]
    if chooser == "monster":
        answers += [(P.DECIDE_ARRIVAL, 17)]              # then 2 is the only empty house: not asked
    answer(t, *answers)
    P.turn(t)
    assert t.houses[2] != V.EMPTY and t.houses[17] != V.EMPTY
    arrivals = [e for e in t.events if e["action"] == "arrive"]
    expected = [2, 17] if chooser == "wizard" else [17, 2]   # 5 is closer to 2 than to 17
    assert [e["house"] for e in arrivals] == expected


def test_quiet_night_adjusts_option():
    """O8: with quiet_night_adjusts the end of the turn follows: an empty stomach is Panic -1 more."""
    for adjusts, panic in ((False, 4), (True, 3)):
        t = table((P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 0), quiet_night_adjusts=adjusts)
        t.panic = 6
        P.turn(t)
        assert t.panic == panic


def test_quiet_night_leap_is_the_only_move():
    t = table()
    t.power_hand = [card("P08")]
    t.at = H(t, 20)
    answer(t, (P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 1), (P.DECIDE_NIGHT_SINGLE, 1),
           (P.DECIDE_LEAP, H(t, 9)))
    P.turn(t)
    assert t.at == H(t, 9) and P.single_use_card(t) is None and t.power_discard[-1].id == "P08"


# ---------------------------------------------------------------- Feeding: moving and eating (V7)

def test_two_movements_and_an_occupied_house_ends_the_moving_phase():
    t = table()
    place(t, h1=BUTCHER)
    start(t, t.board.laboratory)
    t.m_actions = 2
    # Laboratory -> house 1 (occupied: the phase ends although a movement is left), eat the Butcher
    answer(t, (MOVE, P.MOVE + H(t, 1)), (EAT, P.EAT_VILLAGER))
    P.action(t)
    assert t.at == H(t, 1) and t.stomach == [["Butcher"]] and t.energy == 2 and t.houses[1] == V.EMPTY
    # two movements along empty houses: lab -> house 3 -> house 2, then no third one (no Energy to buy it)
    t.at, t.energy = t.board.laboratory, 0
    answer(t, (MOVE, P.MOVE + H(t, 3)), (MOVE, P.MOVE + H(t, 2)))
    P.action(t)
    assert t.at == H(t, 2)
    assert [d for d, legal in t.controllers[R.MONSTER].asked][-2:] == [MOVE, MOVE]


def test_eat_without_moving_and_energy_by_type_capped_at_9():
    t = table()
    for n, v in ((1, FARMER), (2, HUNTER), (3, WOODCUTTER), (4, BUTCHER), (5, MERCHANT), (6, NOBLE)):
        place(t, **{f"h{n}": v})
        t.at = H(t, n)
        answer(t, (MOVE, P.END_MOVING), (EAT, P.EAT_VILLAGER))
        before = t.energy
        P.action(t)
        assert t.energy == min(9, before + C.VILLAGER_ENERGY[v])
    assert t.energy == 9 and len(t.stomach) == 6     # O9 keep_eating lets a fourth and later meals in


def test_sheep_from_an_adjacent_pasture_leftmost_slot():
    t = table()
    start(t, H(t, 7))
    sheep = t.sheep[0]
    answer(t, (MOVE, P.END_MOVING), (EAT, P.EAT_SHEEP + 0))
    P.action(t)
    assert t.sheep[0] == sheep - 1 and t.stomach == [["Sheep"]] and t.energy == 1 and t.eaten["sheep"] == 1


def test_full_stomach_stop():
    t = table(full_stomach="stop")
    t.stomach = [["Sheep"], ["Sheep"], ["Sheep"]]
    place(t, h7=NOBLE)
    start(t, H(t, 7))
    assert P.eat_legal(t) == [P.EAT_NOTHING]
    t2 = table()
    t2.stomach = [["Sheep"], ["Sheep"], ["Sheep"]]
    place(t2, h7=NOBLE)
    start(t2, H(t2, 7))
    assert P.EAT_VILLAGER in P.eat_legal(t2) and P.EAT_SHEEP in P.eat_legal(t2)


def test_e4_minus_one_movement_loses_the_second_movement():
    """E4: the first movement reveals -1 Movement; with no Energy bought the Monster stops in the house,
    with no villager and no sheep next to it, and eats nothing."""
    t = table()
    t.guards[0] = P.MOVEMENT_MINUS_1
    t.sheep[0] = 0
    start(t, H(t, 1))
    answer(t, (MOVE, P.MOVE + H(t, 7)))                  # then only "end" is legal: not asked
    P.action(t)
    assert t.at == H(t, 7) and t.stomach == [] and t.guards[0] == V.EMPTY and t.guards_revealed == [0]
    assert t.events[-1]["action"] == "skip" and t.events[-1]["reason"] == "eats nothing"


def test_e6_four_energy_two_more_movements():
    t = table()
    t.energy = 4
    start(t, H(t, 2))
    # house 2 -> house 3 -> laboratory, buy, -> market (gate: tile No Effect), buy, -> house 7
    t.guards[1] = P.NO_EFFECT
    answer(t, (MOVE, P.MOVE + H(t, 3)), (MOVE, P.MOVE + t.board.laboratory), (MOVE, P.BUY_MOVEMENT),
           (MOVE, P.MOVE + t.board.market), (MOVE, P.BUY_MOVEMENT), (MOVE, P.MOVE + H(t, 7)),
           (EAT, P.EAT_NOTHING))
    P.action(t)
    assert t.at == H(t, 7) and t.energy == 0


@pytest.mark.parametrize("tile,energy,panic,moves", [
    (P.NO_EFFECT, 3, 1, 1), (P.ENERGY_MINUS_1, 2, 1, 1), (P.ENERGY_MINUS_2, 1, 1, 1),
    (P.MOVEMENT_MINUS_1, 3, 1, 0), (P.PANIC_PLUS_1, 3, 2, 1)])
def test_each_town_guard_tile(tile, energy, panic, moves):
    t = table()
    t.energy, t.panic = 3, 1
    t.guards[0] = tile
    start(t, H(t, 1))
    t.m_moving, t.m_moves = True, 2
    P.move_along(t, H(t, 7))
    assert (t.energy, t.panic, t.m_moves) == (energy, panic, moves)
    assert t.guards[0] == V.EMPTY and t.guards_revealed == [0]
    t.at = H(t, 1)
    t.m_moves = 2
    P.move_along(t, H(t, 7))                            # the tile left the game: nothing more
    assert (t.energy, t.panic, t.m_moves) == (energy, panic, 1) and t.guards_revealed == [0]


def test_minus_two_energy_never_below_zero():
    t = table()
    t.energy, t.guards[0] = 1, P.ENERGY_MINUS_2
    start(t, H(t, 1))
    t.m_moves = 2
    P.move_along(t, H(t, 7))
    assert t.energy == 0


@pytest.mark.parametrize("rule,debt", [("this_action", 0), ("carry_over", 1)])
def test_minus_one_movement_on_the_last_movement(rule, debt):
    """O11: on the action's last movement nothing is lost (default) or the next action loses one."""
    t = table(guard_movement_loss=rule)
    t.guards[0] = P.MOVEMENT_MINUS_1
    start(t, H(t, 2))
    t.sheep[0] = 0                                       # nothing to eat at house 7: the eating is not asked
    answer(t, (MOVE, P.MOVE + H(t, 1)), (MOVE, P.MOVE + H(t, 7)))
    P.action(t)
    assert t.m_guard_debt == debt
    # the next action: one movement (to the market, then nothing) or two (asked whether to go on)
    answer(t, (MOVE, P.MOVE + t.board.market), *([] if debt else [(MOVE, P.END_MOVING)]))
    P.action(t)
    assert t.at == t.board.market and t.m_guard_debt == 0


def test_new_moon_reveals_nothing():
    t = table()
    t.guards[0] = P.PANIC_PLUS_1
    start(t, H(t, 1))
    t.power_hand = [card("P09")]
    P.play_from_hand(t, 0)
    t.m_moves = 2
    P.move_along(t, H(t, 7))
    assert t.guards[0] == P.PANIC_PLUS_1 and t.panic == 1 and t.guards_revealed == []


# ---------------------------------------------------------------- Energy uses (V7.11)

def test_energy_panic_down_and_discard_an_ongoing_spell():
    t = table()
    t.energy, t.panic = 9, 5
    gab = CARDS.by_id("S07")
    t.in_front_of_wizard = [gab]
    start(t, H(t, 20))
    answer(t, (MOVE, P.PANIC_DOWN), (MOVE, P.END_MOVING), (EAT, P.EAT_NOTHING))
    P.action(t)
    assert t.energy == 3 and t.panic == 4
    t.energy = 4
    answer(t, (MOVE, P.DISCARD_SPELL), (MOVE, P.END_MOVING), (EAT, P.EAT_NOTHING))   # one card: not asked
    P.action(t)
    assert t.energy == 0 and t.in_front_of_wizard == [] and t.spell_discard[-1] is gab


def test_panic_down_not_offered_at_the_bottom_nor_short_of_energy():
    t = table()
    t.energy, t.panic = 9, t.panic_min
    assert P.PANIC_DOWN not in P.energy_legal(t)
    t.energy, t.panic = 5, 5
    assert P.PANIC_DOWN not in P.energy_legal(t)


def test_discarding_box_of_holding_the_wizard_returns_an_ingredient():
    """M9: with 4 held and the Box gone, the Wizard player chooses the ingredient that returns."""
    t = table(mode=R.DUEL)
    t.in_front_of_wizard = [CARDS.by_id("S02")]
    t.held = [0, 1, 2, 3]
    t.energy = 4
    t.m_moving = True
    t.controllers[R.WIZARD].answers = [(W.DISCARD, 1)]
    P.spend(t, P.DISCARD_SPELL)
    assert sorted(t.held) == [0, 2, 3] and t.energy == 0 and t.spell_discard[-1].id == "S02"


def test_duel_quiet_night_arrival_in_an_occupied_house_is_the_wizard_players_choice():
    """O2 ``wizard`` in the 2-player game: the Wizard player places it (V2.3)."""
    t = table(mode=R.DUEL)
    for n in range(1, 21):
        if n not in (2, 17):
            v = next(v for v in range(6) if t.bag[v])
            place(t, **{f"h{n}": v})
    t.streams[V.STREAM_D20] = Rolls(5 - 1, 9 - 1)
    t.controllers[R.WIZARD].answers = [(W.ARRIVAL_HOUSE, 17)]
    answer(t, (P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 0))
    P.turn(t)
    assert [e["house"] for e in t.events if e["action"] == "arrive"] == [17, 2]


def test_buy_movement_only_with_none_left():
    t = table()
    t.energy = 2
    start(t, H(t, 1))
    t.m_moving, t.m_moves = True, 1
    assert P.BUY_MOVEMENT not in P.move_legal(t)
    t.m_moves = 0
    assert P.BUY_MOVEMENT in P.move_legal(t)
    t.energy = 1
    assert P.BUY_MOVEMENT not in P.move_legal(t)
    t.in_front_of_monster = [CARDS.by_id("P05")]           # Fast Food: 1 Energy
    assert P.BUY_MOVEMENT in P.move_legal(t)
    P.spend(t, P.BUY_MOVEMENT)
    assert t.energy == 0 and t.m_moves == 1


def test_hydrophobia_a_movement_bought_for_the_bridge_with_a_street_open():
    """M3: one movement left before a street and a Hydrophobia bridge: 2 Energy buy the second movement the
    bridge needs ("The Monster may spend Energy on multiple enhancements")."""
    t = table()
    t.in_front_of_monster = [CARDS.by_id("S08")]
    start(t, H(t, 15))
    t.m_moving, t.m_moves, t.energy = True, 1, 2
    legal = P.move_legal(t)
    assert P.MOVE + H(t, 13) in legal and P.MOVE + H(t, 3) not in legal and P.BUY_MOVEMENT in legal
    P.spend(t, P.BUY_MOVEMENT)
    assert t.energy == 0 and t.m_moves == 2 and P.MOVE + H(t, 3) in P.move_legal(t)
    P.move_along(t, H(t, 3))
    assert t.at == H(t, 3) and t.m_moves == 0
    t.in_front_of_monster, t.m_moves, t.energy, t.at = [], 1, 2, H(t, 15)
    assert P.BUY_MOVEMENT not in P.move_legal(t)          # every road takes one: nothing to buy yet


# ---------------------------------------------------------------- Power cards (V8)

def test_requirements_location_o10():
    for visited, playable in ((True, True), (False, False)):
        t = table(start_location_visited=visited)
        start(t, H(t, 1))
        assert P.playable(t, card("P10", location="house 1")) is playable
        t.m_visited.append(H(t, 7))
        assert P.playable(t, card("P10", location="house 7"))


def test_requirements_stomach_panic_energy():
    t = table()
    c = card("P10", stomach=("Farmer", "Sheep"))
    assert not P.playable(t, c)
    t.stomach = [["Farmer"]]
    assert not P.playable(t, c)
    t.stomach = [["Farmer"], ["Sheep"]]
    assert P.playable(t, c)
    c = card("P10", panic=1)
    t.panic = t.panic_top
    assert not P.playable(t, c)
    t.panic = 3
    t.power_hand = [c]
    P.play_from_hand(t, 0)
    assert t.panic == 4
    c = card("P03", energy=2)
    t.energy = 1
    assert not P.playable(t, c)
    t.energy = 2
    t.power_hand = [c]
    P.play_from_hand(t, 0)
    assert t.energy == 3                                # 2 spent, 3 gained


def test_powers_only_before_or_after_an_action():
    t = table()
    t.power_hand = [card("P10")]
    t.m_actions = 3
    assert P.between_legal(t) == [P.END_TURN, P.NEXT_ACTION, P.PLAY]
    start(t, H(t, 20))
    t.m_moving, t.m_moves = True, 2
    assert all(c < P.PLAY or c >= P.MOVE for c in P.move_legal(t))


def test_taste_of_rural_life():
    t = table()
    place(t, h4=FARMER, h9=FARMER)
    t.streams[V.STREAM_D20] = Rolls(4 - 1, 9 - 1)
    curse = t.curse
    P.apply_effect(t, card("P01"))
    assert t.stomach == [["Farmer"], ["Farmer"]] and t.houses[4] == t.houses[9] == V.EMPTY
    assert t.curse == curse + 1 and t.energy == 2
    assert [e["at"] for e in t.events if e["action"] == "eat"] == ["house 4", "house 9"]
    t.streams[V.STREAM_D20] = Rolls(5 - 1, 5 - 1)
    P.apply_effect(t, card("P01"))
    assert t.curse == curse + 1                          # nobody eaten: no Curse


def test_extra_serving_and_short_supply_choice():
    t = table()
    before = list(t.sheep)
    P.apply_effect(t, card("P02"))
    assert t.sheep == [s + 1 for s in before]
    t.sheep = [5, 5, 2, 1]                               # 13 on the board, 1 in the stomach: 1 in the supply
    t.stomach = [["Sheep"]]
    answer(t, (P.DECIDE_SHEEP, 2))
    P.apply_effect(t, card("P02"))
    assert t.sheep == [5, 5, 3, 1]


def test_courier_horse_fast_food_greedy_coachman_noble_blood():
    t = table()
    t.energy = 8
    P.play_card(t, card("P03"), free=False)
    assert t.energy == 9 and t.power_discard[-1].id == "P03"
    P.play_card(t, card("P05"), free=False)
    assert [c.id for c in t.in_front_of_monster] == ["P05"] and P.movement_cost(t) == 1
    P.play_card(t, card("P06"), free=False)
    assert [c.id for c in t.in_front_of_wizard] == ["P06"] and t.crossing_fee() == 2
    curse = t.curse
    P.play_card(t, card("P10"), free=False)
    assert t.curse == curse + 1


def test_noble_blood_wins_at_once():
    t = table()
    t.curse = t.curse_top - 1
    t.power_hand = [card("P10"), card("P03")]
    answer(t, (P.DECIDE_TURN, P.FEEDING), (P.DECIDE_BETWEEN, P.PLAY))
    P.turn(t)
    assert t.over and t.winner == R.SIDES.index(R.MONSTER) and len(t.power_hand) == 1   # no refill


def test_single_use_cards_and_one_slot_rule():
    t = table()
    P.play_card(t, card("P07"), free=False)
    assert P.single_use_card(t).id == "P07"
    P.play_card(t, card("P08"), free=False)              # V8.4: the snack is discarded without effect
    assert P.single_use_card(t).id == "P08" and t.power_discard[-1].id == "P07"
    assert [c.id for c in t.in_front_of_monster] == ["P08"]
    t.m_actions = 0
    t.in_front_of_monster = [card("P07")]
    P.use_single(t)
    assert t.m_actions == 1 and t.in_front_of_monster == []


def test_midnight_snack_gives_a_fourth_action():
    t = table()
    place(t, h1=FARMER)
    t.power_hand = [card("P07")]
    start(t, H(t, 20))
    answers = [(P.DECIDE_TURN, P.FEEDING), (P.DECIDE_BETWEEN, P.PLAY)]
    for _ in range(3):        # the snack waits in front: activating it is offered while eating too (V8.3)
        answers += [(P.DECIDE_BETWEEN, P.NEXT_ACTION), (MOVE, P.END_MOVING), (EAT, P.EAT_NOTHING)]
    answers += [(P.DECIDE_BETWEEN, P.USE_SINGLE_BETWEEN), (P.DECIDE_BETWEEN, P.NEXT_ACTION), (MOVE, P.END_MOVING),
                (P.DECIDE_BETWEEN, P.END_TURN)]
    answer(t, *answers)
    P.turn(t)
    assert [e["action"] for e in t.events].count("action") == 4


def test_monstrous_leap_is_not_a_movement_and_counts_as_visited():
    t = table()
    t.guards = [P.PANIC_PLUS_1] * 12
    start(t, H(t, 20))
    place(t, h9=NOBLE)
    answer(t, (P.DECIDE_LEAP, H(t, 9)))
    P.apply_effect(t, card("P08"))
    assert t.at == H(t, 9) and H(t, 9) in t.m_visited and t.guards_revealed == [] and t.panic == 1


def test_hydrophobia_bridge_costs_a_movement_and_goes_at_two_colours():
    t = table()
    t.in_front_of_monster = [CARDS.by_id("S08")]
    start(t, H(t, 3))
    t.m_moving, t.m_moves = True, 1
    assert P.MOVE + H(t, 15) not in P.move_legal(t)       # a bridge: 2 movements
    t.m_moves = 2
    assert P.MOVE + H(t, 15) in P.move_legal(t)
    t.m_moves, t.energy, t.at = 1, 0, H(t, 15)          # one left: the street to house 13, not the bridge
    assert P.move_legal(t) == [P.END_MOVING, P.MOVE + H(t, 13)]
    t.m_moves, t.at = 2, H(t, 3)
    P.move_along(t, H(t, 15))
    assert t.m_moves == 0
    P.monster_eat(t, "Farmer")
    P.monster_eat(t, "Farmer")
    assert t.in_front_of_monster
    P.monster_eat(t, "Hunter")
    assert t.in_front_of_monster == [] and t.spell_discard[-1].id == "S08"


# ---------------------------------------------------------------- the Possessed Wizard's feeding cards (V14.13)

def test_feeding_cards_energy_less_and_wizard_coins():
    t = table()
    t.pw_feeding = [CARDS.by_id("PW07"), CARDS.by_id("PW04")]   # Farmer: 1 Energy less; Farmer: Wizard +2
    coins = t.coins
    P.monster_eat(t, "Farmer")
    assert t.energy == 0 and t.coins == coins + 2
    P.monster_eat(t, "Hunter")
    assert t.energy == 1 and t.coins == coins + 2


# ---------------------------------------------------------------- the end of the turn (V9)

@pytest.mark.parametrize("stomach,rule,change", [
    ([], "panic_down", (-1, 0)),
    (["Farmer"], "panic_down", (-1, 0)),
    (["Farmer", "Farmer"], "panic_down", (1, 1)),
    (["Noble", "Sheep", "Noble"], "panic_down", (1, 1)),
    (["Farmer", "Farmer", "Farmer"], "panic_down", (2, 2)),
    (["Farmer"] * 4, "panic_down", (2, 2)),
    (["Woodcutter", "Woodcutter", "Butcher", "Butcher"], "panic_down", (1, 1)),    # E7
    (["Farmer", "Hunter"], "panic_down", (-1, 0)),
    (["Farmer", "Hunter"], "no_change", (0, 0)),
    (["Farmer", "Hunter", "Noble"], "no_change", (0, 0)),
    (["Sheep", "Sheep", "Sheep"], "no_change", (-1, 0)),
])
def test_adjustment(stomach, rule, change):
    t = table(unmatched_meal=rule)
    t.stomach = [[k] for k in stomach]
    assert P.adjustment(t) == change


def test_end_of_turn_digests_and_refills_with_a_reshuffle():
    t = table()
    t.panic, t.curse = 5, 2
    bag = list(t.bag)
    t.stomach = [["Woodcutter"], ["Sheep"], ["Woodcutter"]]
    t.bag[WOODCUTTER] -= 2
    t.power_discard = list(t.power_deck) + t.power_hand[2:]
    t.power_deck, t.power_hand = [], t.power_hand[:2]
    P.end_of_turn(t)
    assert (t.panic, t.curse) == (6, 3) and t.stomach == [] and t.bag == bag
    assert len(t.power_hand) == 4 and t.power_discard == []


def test_curse_top_at_the_adjustment_wins_at_once():
    t = table()
    t.curse = t.curse_top - 1
    t.stomach = [["Farmer"], ["Farmer"]]
    t.power_hand = []
    P.end_of_turn(t)
    assert t.over and t.winner == R.SIDES.index(R.MONSTER) and t.power_hand == []


# ---------------------------------------------------------------- whole games

def check_invariants(t, stop):
    assert 0 <= t.energy <= C.ENERGY_MAX
    assert len(t.power_hand) <= C.HAND_SIZE
    if stop:
        assert len(t.stomach) <= C.STOMACH_SLOTS
    assert len(t.guards_revealed) == len(set(t.guards_revealed))
    assert t.panic_min <= t.panic <= t.panic_top and t.curse_min <= t.curse <= t.curse_top
    assert sum(1 for c in t.in_front_of_monster if c.kind == "single_use") <= 1
    assert sum(t.sheep) + sum(1 for s in t.stomach for k in s if k == "Sheep") <= C.SHEEP_TOKENS
    on_board = sum(1 for n in range(1, 21) if t.houses[n] != V.EMPTY)
    in_stomach = sum(1 for s in t.stomach for k in s if k != "Sheep")
    assert on_board + in_stomach + sum(t.bag) == C.VILLAGER_TOKENS


@pytest.mark.parametrize("options", [{}, {"full_stomach": "stop", "guard_movement_loss": "carry_over",
                                          "night_arrival_chooser": "monster", "quiet_night_adjusts": True,
                                          "start_location_visited": False, "unmatched_meal": "no_change"}])
def test_random_games_keep_the_invariants(options):
    stop = options.get("full_stomach") == "stop"
    for i in range(60):
        t = V.Table.deal(11, i, R.RuleOptions(**options), mode=PW, controllers={R.MONSTER: MP.MonsterRandom()})
        while not t.over:
            t.step()
            check_invariants(t, stop)


def test_duel_random_against_random_keeps_the_invariants():
    """Short tracks (O35, O37) so that random play ends within the turn cap."""
    ends = set()
    short = R.RuleOptions(wizard_cure_length=4, monster_curse_length=4)
    for i in range(40):
        t = V.Table.deal(12, i, short, mode=R.DUEL, controllers={R.MONSTER: MP.MonsterRandom(),
                                                                 R.WIZARD: WP.make("random")})
        while not t.over:
            t.step()
            check_invariants(t, False)
        ends.add(t.winner)
    assert ends - {R.NO_WINNER}


def test_determinism():
    a = V.play(4, 7, mode=PW, controllers={R.MONSTER: MP.make("random")}, log=True)
    b = V.play(4, 7, mode=PW, controllers={R.MONSTER: MP.make("random")}, log=True)
    assert a.events == b.events and a.text() == b.text() and "monster" in a.text()
    a = V.play(4, 7, mode=PW, controllers={R.MONSTER: MP.make("glutton")}).outcome()
    b = V.play(4, 7, mode=PW, controllers={R.MONSTER: MP.make("glutton")}).outcome()
    assert a == b


def test_glutton_beats_random_against_the_possessed_wizard():
    """200 games each; a win rate's standard error is at most sqrt(0.25/200) = 0.035, so a gap of 0.3 is
    more than 6 standard errors of the difference (0.05)."""
    n = 200
    rates = {}
    for name in ("random", "glutton"):
        wins = sum(V.play(21, i, mode=PW, controllers={R.MONSTER: MP.make(name)}).winner == 1 for i in range(n))
        rates[name] = wins / n
    assert rates["glutton"] - rates["random"] > 6 * math.sqrt(2 * 0.25 / n)


def test_make_and_params():
    assert isinstance(MP.make("random"), MP.MonsterRandom)
    g = MP.make("glutton", {"night_panic": 3})
    assert g.night_panic == 3 and g.match == 12
    with pytest.raises(ValueError, match="glutton"):
        MP.make("nope")
    for name, default, low, high, doc in MP.PARAMS["glutton"]:
        assert low <= default <= high and doc


def test_a_quiet_night_digests_its_meal():
    """M10: villagers eaten in a Quiet Night (A Taste of Rural Life) go back into the bag at its end ("Any
    Villager tokens eaten are placed back into the bag."), with no Panic/Curse adjustment (O8 default); the
    next Feeding turn ends with an empty stomach (Panic -1, no Curse)."""
    t = table()
    place(t, h4=FARMER, h9=FARMER)
    t.power_hand = [card("P01")]
    t.streams[V.STREAM_D20] = Rolls(4 - 1, 9 - 1, 0, 0, 0, 0)
    t.panic, t.curse = 5, 3
    answer(t, (P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 1))
    P.turn(t)
    curse = 3                                            # -1 for the night, +1 for the meal
    assert t.stomach == [] and t.panic == 3 and t.curse == curse
    on_board = [t.houses[n] for n in range(1, C.HOUSES + 1) if t.houses[n] != V.EMPTY]
    assert len(on_board) + sum(t.bag) == C.VILLAGER_TOKENS and on_board.count(FARMER) + t.bag[FARMER] == 7
    start(t, H(t, 20))
    answer(t, (P.DECIDE_TURN, P.FEEDING), (P.DECIDE_BETWEEN, P.END_TURN))
    P.turn(t)
    assert t.stomach == [] and t.panic == 2 and t.curse == curse


def test_a_quiet_night_meal_adjusts_with_o8():
    """O8 quiet_night_adjusts: the whole end of the turn follows the night: two Farmers are Panic +1 and
    Curse +1, then digesting."""
    t = table(quiet_night_adjusts=True)
    place(t, h4=FARMER, h9=FARMER)
    t.power_hand = [card("P01")]
    t.streams[V.STREAM_D20] = Rolls(4 - 1, 9 - 1, 0, 0, 0, 0)
    t.panic, t.curse = 5, 3
    answer(t, (P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, 1))
    P.turn(t)
    assert t.stomach == [] and t.panic == 4 and t.curse == 4   # 5 -2 +1; 3 -1 +1 (meal) +1 (pair)


@pytest.mark.parametrize("night_card", [0, 1])
def test_a_quiet_night_cannot_use_a_waiting_single_use_card(night_card):
    """M10: "This is the only way the Monster token may move during a Quiet Night" (the one card played):
    a Monstrous Leap waiting from an earlier turn is not offered, with or without a free card (Fast Food)."""
    t = table()
    t.in_front_of_monster = [card("P08")]
    t.power_hand = [card("P05")]
    t.at = H(t, 20)
    answer(t, (P.DECIDE_TURN, P.QUIET_NIGHT), (P.DECIDE_NIGHT_POWER, night_card))   # no DECIDE_NIGHT_SINGLE
    P.turn(t)
    assert t.at == H(t, 20) and P.single_use_card(t).id == "P08"
    asked = [d for d, _ in t.controllers[R.MONSTER].asked]
    assert P.DECIDE_NIGHT_SINGLE not in asked


def test_glutton_goes_for_the_second_of_a_type():
    """Glutton: with a Farmer eaten, a Farmer 1 movement away beats a Noble 1 movement away (6 x 1 + 1 >
    3) although the Noble gives more Energy."""
    t = table()
    t.controllers[R.MONSTER] = MP.make("glutton")
    t.stomach = [["Farmer"]]
    place(t, h1=FARMER, h3=NOBLE)
    start(t, t.board.laboratory)
    t.m_moving, t.m_moves = True, 2
    g = t.controllers[R.MONSTER]
    assert g.act(t, R.MONSTER, P.DECIDE_MOVE, P.move_legal(t), None) == P.MOVE + H(t, 1)
    t.stomach = []
    assert g.act(t, R.MONSTER, P.DECIDE_MOVE, P.move_legal(t), None) == P.MOVE + H(t, 3)


def test_the_meals_energy_spent_in_the_same_action():
    """M1: Energy is awarded at the meal and may pay for Panic -1 before the action ends."""
    t = table()
    t.energy, t.panic = 4, 5
    place(t, h9=NOBLE)
    start(t, H(t, 9))
    answer(t, (MOVE, P.END_MOVING), (EAT, P.EAT_VILLAGER), (P.DECIDE_AFTER_MEAL, P.PANIC_DOWN))
    P.action(t)
    assert t.energy == 1 and t.panic == 4 and t.stomach == [["Noble"]]


def test_rabid_only_powers_do_nothing_for_the_player():
    """Digestive Mutton Chop and On the Scent print no Monster text (village_cards.md C1, C15)."""
    t = table()
    before = (t.energy, t.curse, t.panic, list(t.sheep), t.at, t.sheep_curse_pending)
    for cid in ("P04", "P11"):
        P.play_card(t, card(cid), free=False)
    assert (t.energy, t.curse, t.panic, list(t.sheep), t.at, t.sheep_curse_pending) == before
    assert [c.id for c in t.power_discard[-2:]] == ["P04", "P11"]


# ---------------------------------------------------------------- Glutton's value-0 cards (issue 26)

@pytest.mark.parametrize("play_zero", [1.0, 0.0])
def test_glutton_turns_over_a_hand_of_value_0_cards(play_zero):
    """A hand of placeholders (value 0, no cost): Glutton plays one between actions when nothing better is
    playable (play_zero 1), so the hand turns over; never with 0 (before issue 26). A positive card still
    comes first, and a value-0 card with an Energy cost is never played."""
    cards = K.load_cards()
    pads = cards.placeholders("power")[:2]
    t = table()
    params = [row[1] for row in MP.PARAMS["glutton"]]
    params[-1] = play_zero
    g = MP.make("glutton", params)
    start(t, t.board.laboratory)
    t.power_hand = list(pads)
    legal = P.between_legal(t)
    chosen = g.act(t, R.MONSTER, P.DECIDE_BETWEEN, legal, None)
    assert chosen == (P.PLAY if play_zero else P.NEXT_ACTION)
    t.power_hand = [pads[0], card("P10", stomach=())]     # Noble Blood, its requirement lifted: value 10
    assert g.act(t, R.MONSTER, P.DECIDE_BETWEEN, P.between_legal(t), None) == P.PLAY + 1
    t.power_hand = [dataclasses.replace(pads[0], requirements=K.Requirements(energy=1))]
    t.energy = 5
    assert g.act(t, R.MONSTER, P.DECIDE_BETWEEN, P.between_legal(t), None) == P.NEXT_ACTION
