"""The automata facing a player (docs/rules/village.md V13.2, V14.1, V3.7): the Rabid Monster hunts the
Rabid Monster cards the Wizard player used, in their order; a blank card hunts nobody; a spell the
Possessed Wizard casts goes where its text says (Hydrophobia in front of the Monster) and Distract
discards the leftmost permanent Power card in front of a Monster player."""

from __future__ import annotations

import dataclasses

from cursedsim.games.village import automata as A
from cursedsim.games.village import cards as K
from cursedsim.games.village import components as C
from cursedsim.games.village import monster_policies as MP
from cursedsim.games.village import reference as V
from cursedsim.games.village import rules as R
from cursedsim.games.village import wizard_policies as WP

CARDS = {card.id: card for card in K.load_cards().cards}


def emptied(t: V.Table) -> V.Table:
    """Every villager back in the bag (a table to place villagers on by hand)."""
    for n in range(1, C.HOUSES + 1):
        if t.houses[n] != V.EMPTY:
            t.bag[t.houses[n]] += 1
            t.houses[n] = V.EMPTY
    return t


def rabid_table() -> V.Table:
    t = V.Table.deal(5, 0, mode=R.RABID_MONSTER, controllers={R.WIZARD: WP.make("random")}, log=True)
    emptied(t)
    t.power_deck = [CARDS["P10"]]          # Noble Blood: Curse +1, nothing that moves or eats
    t.power_discard = []
    return t


def test_the_rabid_monster_hunts_the_cards_the_wizard_used_in_their_order():
    t = rabid_table()
    here = t.at
    reachable = [n for n in range(1, C.HOUSES + 1) if t.distance(here, t.board.house(n)) <= 2]
    farmer_house, hunter_house = reachable[:2]
    t.houses[farmer_house] = C.VILLAGER_NAMES.index("Farmer")
    t.houses[hunter_house] = C.VILLAGER_NAMES.index("Hunter")
    t.rm_used = [CARDS["RM02"], CARDS["RM01"]]       # Hunter first, then Farmer
    t.rm_deck = []
    A.rabid_monster_turn(t)
    eats = [e["kind"] for e in t.events if e["action"] == "eat"]
    assert eats == ["Hunter", "Farmer"]


def test_without_used_cards_the_rabid_monster_eats_nothing_against_a_wizard_player():
    t = rabid_table()
    t.houses[1] = C.VILLAGER_NAMES.index("Farmer")
    t.rm_used, t.rm_deck = [], [CARDS["RM01"], CARDS["RM04"]]
    panic = t.panic
    A.rabid_monster_turn(t)
    assert not [e for e in t.events if e["action"] == "eat"]
    assert t.panic == max(t.panic_min, panic - 1)       # V13.9: 0 villagers, Panic -1


def test_a_blank_rabid_monster_card_hunts_nobody():
    t = rabid_table()
    blank = dataclasses.replace(CARDS["RM01"], villager="")
    t.rm_used, t.rm_deck = [blank], []
    A.rabid_monster_turn(t)
    assert any(e["action"] == "skip" and "no villager" in e["reason"] for e in t.events)


def possessed_table() -> V.Table:
    return V.Table.deal(5, 0, mode=R.POSSESSED_WIZARD, controllers={R.MONSTER: MP.make("random")}, log=True)


def test_hydrophobia_cast_by_the_possessed_wizard_lies_in_front_of_the_monster():
    t = possessed_table()
    t.spell_deck, t.spell_discard = [CARDS["S08"]], []
    A.cast_spell(t)
    assert CARDS["S08"] in t.in_front_of_monster and CARDS["S08"] not in t.spell_discard


def test_distract_discards_the_leftmost_ongoing_power_in_front_of_a_monster_player():
    t = possessed_table()
    t.in_front_of_monster = [CARDS["P07"], CARDS["P05"]]    # a single-use card, then Fast Food
    t.spell_deck, t.spell_discard = [CARDS["S05"]], []
    A.cast_spell(t)
    assert t.in_front_of_monster == [CARDS["P07"]]
    assert CARDS["P05"] in t.power_discard and CARDS["S05"] in t.spell_discard
