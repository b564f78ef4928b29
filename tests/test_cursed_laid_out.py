"""Cursed!? readings and windows on laid-out positions, played to the end by both engines: the reference
``Table`` and the kernel's ``play_dealt`` start from the same piles, items and souls with the same
random streams and a built-in policy, must agree on every outcome and on the final piles, and show
the rule (the pairing of the 1/6 value and kind, the items between fights, the empty pile before a
chest, the Whetstone on a weapon in play). Piles are listed bottom to top, the top card last.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_cursed_rules import (
    AXE,
    CHEST_10,
    DAGGER,
    FLYING_7,
    GREATSWORD,
    MACE,
    PLAIN_8,
    PLAIN_9,
    STAFF,
    SWORD,
    THROWING,
    TOUGH_10,
    TURKEY,
    WHETSTONE,
    Action,
    Scripted,
    card,
    make_table,
)

from cursedsim import rng
from cursedsim.games.cursed import GAME, kernel, optimal_kernel, reference_policy, rules, state
from cursedsim.games.cursed import policies as pol
from cursedsim.games.cursed.reference import (
    CLOSE_CAPTURE,
    DRAW,
    STOP,
    USE,
    AttackChoice,
    AttackOptions,
    IllegalDecision,
)
from cursedsim.games.cursed.rules import END_EIGHT_SOULS, END_FINAL_MONSTER, END_PILE_EMPTY, RuleOptions

#: Seven souls already captured (cards no test lays out elsewhere): the next capture wins.
SEVEN = [0, 6, 11, 13, 14, 22, 23]
#: Six souls: the next capture does not win.
SIX = SEVEN[:6]
GREATSWORD_2 = card(0, 2)      # a second Greatsword 5 (item: Soul Crystal)
CHEST_11 = card(8, 0)          # monster 11 chest
LOW_WHETSTONE = card(6, 0)     # the lowest Whetstone copy (WHETSTONE is card 20)
NO_CHOICE = AttackChoice()


def mask(cards) -> np.uint64:
    return np.uint64(sum(1 << c for c in cards))


def stream(seed: int, which: int) -> tuple:
    return tuple(np.uint64(w) for w in rng.Stream(seed, 0, which).s)


def memo_of(spec, options, vector):
    """optimal_fight's table for the run (the others' placeholder)."""
    if spec.policy_id == pol.OPTIMAL_FIGHT:
        return optimal_kernel.memo_for(state.option_tuple(options), pol.params_tuple(vector))
    return optimal_kernel.empty_memo()


def both_engines(pile, *, discard=(), items=(), souls=(), options=None, policy="threshold", params=None, seed=0):
    """Play the position to the end in both engines; check they agree (every outcome, the final pile
    and discard pile in order, the items held) and return (reference table, kernel outcome dict)."""
    options = options or RuleOptions()
    placed = [*pile, *discard, *items, *souls]
    assert len(set(placed)) == len(placed), "a card laid out twice"
    spec = GAME.policy(policy)
    vector = spec.param_vector(params)
    table = make_table(pile=pile, discard=discard, items=items, souls=souls, options=options, seed=seed, log=True)
    table.play_game(reference_policy(spec, vector), rng.Stream(seed, 0, rng.STREAM_POLICY))
    zones = np.zeros(state.N_ZONES, np.int64)
    zones[state.PILE:state.PILE + len(pile)] = pile
    zones[state.DISCARD:state.DISCARD + len(discard)] = discard
    result = kernel.play_dealt(zones, len(pile), len(discard), mask(discard), mask(items), np.uint64(0), len(souls), 0,
                               state.option_tuple(options), spec.policy_id, pol.params_tuple(vector),
                               stream(seed, rng.STREAM_DECK), stream(seed, rng.STREAM_POLICY), memo_of(spec, options, vector),
                               None)
    names = ("souls", "rounds", "damage_taken", "cards_left", "end", "start_item", "weapons_drawn", "busts",
             "n_discard", "items", "stored")
    got = dict(zip(names, (int(v) for v in result)))
    outcome = table.outcome()
    expected = {**{name: getattr(outcome, name) for name in names[:8]}, "n_discard": len(table.discard),
                "items": int(mask(table.items)), "stored": int(mask(table.stored))}
    assert got == expected
    assert list(zones[state.PILE:state.PILE + got["cards_left"]]) == table.pile
    assert list(zones[state.DISCARD:state.DISCARD + got["n_discard"]]) == table.discard
    assert list(zones[state.USED_COUNT:state.USED_COUNT + rules.N_UNIQUE]) == table.used_count
    return table, got


# ---------------------------------------------------------------- the 1/6 weapons: value and kind together

@pytest.mark.parametrize("reading, drawn, damage, left, line", [
    ("choose_kind", 3, 0, 1, "  draw #25 Throwing Daggers 1/6 ranged (as 6 melee, Flying: deals 0) → 0/7 · pile 3"),
    ("choose", 1, 1, 2, "  draw #25 Throwing Daggers 1/6 ranged (as 6) → 6/7 · pile 3"),
])
def test_a_1_6_weapon_used_for_6_is_a_melee_weapon(reading, drawn, damage, left, line):
    """Flying 7; threshold takes the Throwing Daggers as 6 (it fits). choose_kind: 6 goes with melee, the
    first melee attack deals 0, then Staff 4 + Mace 3 capture; choose: a ranged 6, stop at 6/7 (1
    damage). Seven souls: the capture wins."""
    table, got = both_engines([AXE, MACE, STAFF, THROWING, FLYING_7], souls=SEVEN,
                              options=RuleOptions(dagger_value=reading))
    assert line in table.log and got["end"] == END_EIGHT_SOULS
    assert (got["weapons_drawn"], got["damage_taken"], got["cards_left"]) == (drawn, damage, left)


@pytest.mark.parametrize("reading, damage, left, line", [
    ("choose_kind", 1, 1, "  draw #27 Dagger 1/6 melee (as 1 ranged, Tough Skin: deals 0) → 5/10 · pile 3"),
    ("choose", 0, 2, "  draw #27 Dagger 1/6 melee (as 1) → 6/10 · pile 3"),
])
def test_a_1_6_weapon_used_for_1_is_a_ranged_weapon(reading, damage, left, line):
    """Tough Skin 10: Greatsword 5, then the Dagger as 1 (6 would go over). choose_kind: 1 goes with
    ranged, the first ranged attack deals 0, Sword 4 makes 9/10, a stop takes 1 damage; choose: a melee
    1 counts, Sword 4 makes 10/10."""
    table, got = both_engines([AXE, MACE, SWORD, DAGGER, GREATSWORD, TOUGH_10], souls=SEVEN,
                              options=RuleOptions(dagger_value=reading))
    assert line in table.log
    assert (got["weapons_drawn"], got["damage_taken"], got["cards_left"]) == (3, damage, left)


def test_choose_kind_asks_for_the_value_only_and_derives_the_kind():
    """The policy answers the value (OPEN_VALUE); the kind follows it in both engines' attack step."""
    table = make_table(pile=[AXE, THROWING, FLYING_7])
    table.draw_monster()
    table.open_fight(FLYING_7, False)
    policy = Scripted(attacks=[AttackChoice(value=1)])
    assert table.attack_options(THROWING) == AttackOptions(value=True)
    table.apply(Action(DRAW), policy, None)
    assert table.total == 1 and not table.trait_spent   # 1 is ranged: Flying waits
    opts = state.option_tuple(RuleOptions())
    assert kernel.attack_options(THROWING, np.uint64(0), 0, opts) == state.OPEN_VALUE
    for chosen, kinds in ((1, rules.RANGED), (6, rules.MELEE)):
        for weapon in (THROWING, DAGGER):
            assert kernel.attack_value(weapon, state.OPEN_VALUE, chosen, 0, False, False, False, opts) == (
                chosen, kinds, chosen)
            assert table.weapon_kinds(weapon, AttackChoice(value=chosen)) == kinds
    split = state.option_tuple(RuleOptions(dagger_value="split"))
    assert kernel.attack_value(DAGGER, 0, 0, 0, False, False, False, split) == (6, rules.MELEE, 6)
    choose = state.option_tuple(RuleOptions(dagger_value="choose"))
    assert kernel.attack_value(THROWING, state.OPEN_VALUE, 6, 0, False, False, False, choose) == (6, rules.RANGED, 6)


# ---------------------------------------------------------------- items between fights

@pytest.mark.parametrize("window", [True, False])
def test_a_big_turkey_dinner_refills_an_empty_pile_between_fights(window):
    """Monster 8, Staff 4 + Sword 4 capture it and empty the pile. The Turkey was held but the discard
    pile was empty during the fight; between fights threshold eats it (pile 0 <= 5): the two weapons go
    under the pile and a second round is played (one card as the monster 8, the other as a weapon 4: 4
    damage with no card left, the final monster). Without the window the game is lost at once."""
    table, got = both_engines([SWORD, STAFF, PLAIN_8], items=[TURKEY], souls=SIX,
                              options=RuleOptions(items_between_fights=window))
    if window:
        assert (got["rounds"], got["end"], got["souls"]) == (2, END_FINAL_MONSTER, 7)
        assert table.used_count[rules.BIG_TURKEY_DINNER] == 1 and table.items == []
        assert any(line.startswith("between fights: use #5 Big Turkey Dinner: discard shuffled,") for line in table.log)
    else:
        assert (got["rounds"], got["end"], got["souls"]) == (1, END_PILE_EMPTY, 7)
        assert table.items == [TURKEY]


def test_between_fights_only_the_turkey_and_the_backpack_are_open_and_nothing_attacks():
    table = make_table(pile=[AXE], discard=[STAFF], items=[TURKEY, card(8, 2), card(5, 2), card(2, 2)])
    table.between = True
    assert table.legal_actions() == [Action(USE, TURKEY), Action(USE, card(8, 2), STAFF), Action(STOP)]
    assert not table.can_attack()
    with pytest.raises(IllegalDecision):
        table.check_action(Action(DRAW), table.legal_actions())


def test_items_used_between_fights_reach_the_discard_pile_when_the_window_closes():
    """The Backpack takes the Staff; the Backpack card then follows the cards already discarded."""
    policy = Scripted(actions=[Action(USE, card(8, 2), STAFF), Action(STOP)])
    table = make_table(pile=[AXE], discard=[STAFF, MACE], items=[card(8, 2)])
    assert table.pile_check(policy, None)
    assert table.stored == [STAFF] and table.discard == [MACE, card(8, 2)] and table.used == []
    assert [q[0] for q in policy.asked] == ["fight"]   # after the Backpack nothing is open: not asked again


def test_the_random_policy_is_asked_between_fights_only_when_an_item_is_usable():
    """A random policy's stream moves exactly when something besides STOP is open: not for a Backpack
    with nothing to take, once per question for a Turkey."""
    stream_ = rng.Stream(3, 0, rng.STREAM_POLICY)
    table = make_table(pile=[AXE], discard=[], items=[card(8, 2)])
    table.between_fights(reference_policy("random"), stream_)
    assert stream_.s == rng.Stream(3, 0, rng.STREAM_POLICY).s
    table = make_table(pile=[AXE], discard=[], items=[TURKEY])
    table.between_fights(reference_policy("random"), stream_)
    expected = rng.Stream(3, 0, rng.STREAM_POLICY)
    if expected.below(2) == 0:     # USE the Turkey (nothing left to use after it), else STOP
        assert table.used_count[rules.BIG_TURKEY_DINNER] == 1 and table.discard == [TURKEY]
    else:
        assert table.items == [TURKEY]
    assert stream_.s == expected.s


# ---------------------------------------------------------------- the empty pile before a chest

@pytest.mark.parametrize("before_chest", [True, False])
def test_a_capture_that_empties_the_pile_ends_the_game_before_the_chest(before_chest):
    """Chest monster 10: two Greatswords (5 + 5) capture it and empty the pile. By default the game ends
    (pile_empty) before the chest: the discard pile is not shuffled, nothing is looted. With the option
    off the chest is opened (a Soul Crystal looted, either card) and the loss comes at the next monster."""
    table, got = both_engines([GREATSWORD_2, GREATSWORD, CHEST_10], souls=SIX,
                              options=RuleOptions(empty_pile_before_chest=before_chest))
    assert (got["end"], got["rounds"], got["souls"], got["cards_left"]) == (END_PILE_EMPTY, 1, 7, 0)
    if before_chest:
        assert table.discard == [GREATSWORD, GREATSWORD_2] and table.items == []
        assert not any(line.startswith("  chest") for line in table.log)
    else:
        assert len(table.discard) == 1 and len(table.items) == 1


# ---------------------------------------------------------------- the Whetstone on a weapon in play

BEFORE_DRAW = {"item_timing": "before_draw"}


@pytest.mark.parametrize("in_play", [True, False])
def test_a_whetstone_on_a_weapon_in_play_closes_a_gap_of_three(in_play):
    """Monster 9 (item_timing="before_draw", threshold never arms the Whetstone: whetstone_gap 99):
    Sword 4, Axe 2, gap 3. whetstone_in_play: the Whetstone goes on the Sword (the lowest id it may go
    on): 9/9, captured (the winning soul). Otherwise threshold draws on: the Staff busts (10 > 9), the
    Mace makes 9/9."""
    table, got = both_engines([MACE, STAFF, AXE, SWORD, PLAIN_9], items=[WHETSTONE], souls=SEVEN,
                              options=RuleOptions(whetstone_in_play=in_play, **BEFORE_DRAW),
                              params={"whetstone_gap": 99})
    assert (got["end"], got["damage_taken"]) == (END_EIGHT_SOULS, 0)
    if in_play:
        assert "  use #20 Whetstone on #7 Sword 4 melee: +3 → 9/9" in table.log
        assert (got["weapons_drawn"], got["busts"], got["cards_left"]) == (2, 0, 2)
    else:
        assert table.used_count[rules.WHETSTONE] == 0 and table.items == [WHETSTONE]
        assert (got["weapons_drawn"], got["busts"], got["cards_left"]) == (4, 1, 0)


def test_a_whetstone_on_a_weapon_in_play_at_the_stop_saves_three_damage():
    """threshold k=4: Greatsword 5 against monster 9, gap 4 = a stop; with 4 damage due the Whetstone
    goes on the Greatsword first (8/9), then the stop takes 1."""
    table, got = both_engines([MACE, AXE, GREATSWORD, PLAIN_9], items=[WHETSTONE], souls=SEVEN,
                              options=RuleOptions(whetstone_in_play=True, **BEFORE_DRAW),
                              params={"k": 4, "whetstone_gap": 99})
    assert "  use #20 Whetstone on #1 Greatsword 5 melee: +3 → 8/9" in table.log
    assert (got["damage_taken"], got["end"]) == (1, END_EIGHT_SOULS)


def test_whetstone_targets_are_weapons_in_play_that_dealt_damage_once_within_the_power():
    """A cancelled weapon dealt no damage; a whetted weapon takes no second Whetstone; the +3 may not
    take the total over the power; any held copy may be named. The kernel's ``whet_targets`` agrees."""
    options = RuleOptions(whetstone_in_play=True)
    table = make_table(pile=[AXE, STAFF, MACE, SWORD, FLYING_7], items=[WHETSTONE, LOW_WHETSTONE], options=options)
    table.draw_monster()
    table.open_fight(FLYING_7, False)
    policy = Scripted(attacks=[NO_CHOICE] * 3)
    table.apply(Action(DRAW), policy, None)                 # Sword: the first melee attack, cancelled
    assert table.total == 0 and table.whet_targets() == []
    table.apply(Action(DRAW), policy, None)                 # Mace 3 lands
    assert table.whet_targets() == [MACE]
    assert Action(USE, LOW_WHETSTONE, MACE) in table.legal_actions()
    table.check_action(Action(USE, WHETSTONE, MACE), table.legal_actions())    # the other copy
    with pytest.raises(IllegalDecision):
        table.check_action(Action(USE, WHETSTONE, SWORD), table.legal_actions())
    table.apply(Action(DRAW), policy, None)                 # Staff 4: 7/7, captured
    opts = state.option_tuple(options)
    items = mask(table.items)
    assert kernel.whet_targets(mask([MACE]), items, 7, 3, opts) == mask([MACE])
    assert kernel.whet_targets(mask([MACE]), items, 7, 5, opts) == 0             # 5 + 3 > 7
    assert kernel.whet_targets(mask([MACE]), np.uint64(0), 7, 3, opts) == 0      # no Whetstone held
    assert kernel.whet_targets(mask([MACE]), items, 7, 3, state.option_tuple(RuleOptions())) == 0
    # one Whetstone per weapon: monster 11, Sword 4 whetted (7/11), the second Whetstone has no target
    table = make_table(pile=[AXE, SWORD, CHEST_11], items=[WHETSTONE, LOW_WHETSTONE], options=options)
    table.draw_monster()
    table.open_fight(CHEST_11, False)
    table.apply(Action(DRAW), policy, None)
    assert table.whet_targets() == [SWORD]
    assert table.use_item(WHETSTONE, SWORD) is None and table.total == 7 and table.items == [LOW_WHETSTONE]
    assert table.whet_targets() == []


def test_a_whetstone_on_a_weapon_in_play_that_reaches_the_power_captures():
    """Sword 4 + Axe 2 against monster 9: +3 on the Axe makes 9/9, a capture; Sword 4 + Staff 4 = 8
    leaves no room for +3."""
    options = RuleOptions(whetstone_in_play=True)
    for weapons, targets, close in (([AXE, SWORD], [SWORD, AXE], CLOSE_CAPTURE), ([STAFF, SWORD], [], None)):
        table = make_table(pile=[MACE, *weapons, PLAIN_9], items=[WHETSTONE], options=options)
        table.draw_monster()
        table.open_fight(PLAIN_9, False)
        policy = Scripted(attacks=[NO_CHOICE] * 2)
        table.apply(Action(DRAW), policy, None)
        table.apply(Action(DRAW), policy, None)
        assert table.whet_targets() == targets
        if targets:
            assert table.use_item(WHETSTONE, AXE) == close and table.total == 9


def test_every_view_has_the_documented_length():
    """The kernel's view tuples and KernelPolicy's have ``state.N_VIEW`` fields."""
    from cursedsim.games.cursed.user_policies import KernelPolicy
    table = make_table(pile=[AXE, PLAIN_9])
    table.open_fight(PLAIN_9, False)
    twin = KernelPolicy(pol.THRESHOLD, GAME.policy("threshold").param_vector())
    assert len(twin.view(table, True)) == state.N_VIEW == state.V_WHET_TARGETS + 1
