"""Cursed!? rules on the reference engine: the card facts, one test per rule, trait, item and option on
hand-built tables, the built-in policies' specs, and whole games (termination, every card accounted
for, souls, determinism)."""

from __future__ import annotations

import dataclasses
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from cursedsim import rng
from cursedsim.errors import OptionError
from cursedsim.games.cursed import reference_policies, rules
from cursedsim.games.cursed.reference import (
    CLOSE_CAPTURE,
    DRAW,
    PLAY,
    STOP,
    USE,
    Action,
    AttackChoice,
    AttackOptions,
    IllegalDecision,
    Outcome,
    Table,
    play,
    play_chunk,
    replay_log,
)
from cursedsim.games.cursed.reference_policies import NoItemsPolicy, RandomPolicy, ThresholdPolicy
from cursedsim.games.cursed.rules import (
    END_EIGHT_SOULS,
    END_FINAL_MONSTER,
    END_PILE_EMPTY,
    MELEE,
    MIMIC,
    N_CARDS,
    RANGED,
    RuleOptions,
)


def card(unique: int, copy: int = 0) -> int:
    """The card id of copy ``copy`` of unique card ``unique`` (row u of the card table, docs/rules/cursed.md)."""
    return unique * rules.COPIES + copy


# Card ids by what a test uses them for (card table rows: monster / weapon / item).
EXPLODES_5 = card(0)          # monster 5 Explodes / Greatsword 5 melee / Soul Crystal
GREATSWORD = card(0, 1)
SOUL_CRYSTAL = card(0, 2)
FLYING_7 = card(1)            # monster 7 Flying / Fireball Spell 5 ranged / Big Turkey Dinner
FIREBALL = card(1, 1)
TURKEY = card(1, 2)
ETHEREAL_8 = card(2)          # monster 8 Ethereal / Sword 4 melee / Smoke Bomb
SWORD = card(2, 1)
SMOKE_BOMB = card(2, 2)
PLAIN_8 = card(3)             # monster 8 / Staff 4 ranged / Bewitching Relic
STAFF = card(3, 1)
RELIC = card(3, 2)
PLAIN_9 = card(4)             # monster 9 / Spear 3 melee+ranged / Scroll of Purge Life
SPEAR = card(4, 1)
SCROLL = card(4, 2)
EVASIVE_9 = card(5)           # monster 9 Evasive / Mace 3 melee / Shield
MACE = card(5, 1)
SHIELD = card(5, 2)
TOUGH_10 = card(6)            # monster 10 Tough Skin / Axe 2 melee / Whetstone
AXE = card(6, 1)
WHETSTONE = card(6, 2)
CHEST_10 = card(7)            # monster 10 chest / Short Bow 2 ranged / Frenzy Potion
BOW = card(7, 1)
FRENZY = card(7, 2)
CHEST_11 = card(8)            # monster 11 chest / Throwing Daggers 1/6 ranged / Large Backpack
THROWING = card(8, 1)
BACKPACK = card(8, 2)
DAGGER = card(9)              # monster 11 chest / Dagger 1/6 melee / Mimic!
MIMIC_CARD = card(9, 1)
MIMIC_CARD_2 = card(9, 2)


def make_table(*, pile=(), discard=(), items=(), stored=(), souls=(), options=None, seed=0, log=False) -> Table:
    """A hand-built position; ``pile`` and ``discard`` are listed bottom to top (the top card last)."""
    table = Table(options or RuleOptions(), deck_rng=rng.Stream(seed, 0, rng.STREAM_DECK), log=log)
    table.pile = list(pile)
    table.discard = list(discard)
    table.items = list(items)
    table.stored = list(stored)
    table.souls = list(souls)
    return table


def fisher_yates(cards, seed=0):
    """The engine's shuffle, written out again: i from n-1 down to 1, j = below(i + 1)."""
    cards, stream = list(cards), rng.Stream(seed, 0, rng.STREAM_DECK)
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


class Scripted:
    """Answers from queues (fight: STOP when empty; attack: no choice; crystal: False) and records
    every question."""

    def __init__(self, actions=(), attacks=(), crystals=()):
        self.actions = list(actions)
        self.attacks = list(attacks)
        self.crystals = list(crystals)
        self.asked = []

    def fight(self, table, legal, rng_):
        self.asked.append(("fight", tuple(legal)))
        return self.actions.pop(0) if self.actions else Action(STOP)

    def attack(self, table, card_, open_, rng_):
        self.asked.append(("attack", card_, open_))
        return self.attacks.pop(0) if self.attacks else AttackChoice()

    def crystal(self, table, card_, total, rng_):
        self.asked.append(("crystal", card_, total))
        return self.crystals.pop(0) if self.crystals else False


def fights_asked(policy):
    return [q for q in policy.asked if q[0] == "fight"]


# ---------------------------------------------------------------- facts

def test_card_table_is_the_facts_table():
    assert rules.N_CARDS == 30 and Counter(rules.CARD_UNIQUE) == {u: 3 for u in range(10)}
    assert rules.MONSTER_POWER == (5, 7, 8, 8, 9, 9, 10, 10, 11, 11)
    assert [rules.TRAIT_NAMES[t] for t in rules.MONSTER_TRAIT] == [
        "Explodes", "Flying", "Ethereal", "none", "none", "Evasive", "Tough Skin", "none", "none", "none"]
    assert [u for u in range(10) if rules.MONSTER_CHEST[u]] == [7, 8, 9]
    assert [rules.weapon_text(card(u)) for u in range(10)] == [
        "Greatsword 5 melee", "Fireball Spell 5 ranged", "Sword 4 melee", "Staff 4 ranged",
        "Spear 3 melee+ranged", "Mace 3 melee", "Axe 2 melee", "Short Bow 2 ranged",
        "Throwing Daggers 1/6 ranged", "Dagger 1/6 melee"]
    assert [rules.item_text(card(u)) for u in range(10)] == [
        "Soul Crystal", "Big Turkey Dinner", "Smoke Bomb", "Bewitching Relic", "Scroll of Purge Life",
        "Shield", "Whetstone", "Frenzy Potion", "Large Backpack", "Mimic!"]
    assert rules.cards_of_item(MIMIC) == (DAGGER, MIMIC_CARD, MIMIC_CARD_2)
    assert rules.OUTCOME_COLUMNS[:6] == ("win", "souls", "rounds", "damage_taken", "cards_left", "end")
    assert rules.END_NAMES == ("eight_souls", "pile_empty", "final_monster")


def test_default_options_are_the_rulebook_and_facts():
    options = RuleOptions()
    assert (options.win_souls, options.starting_items, options.turkey_cards, options.mimic_power) == (8, 1, 3, 4)
    assert (options.dagger_value, options.overshoot, options.chest_loot) == ("choose_kind", "first_attack", "discard")
    assert options.items_between_fights and options.empty_pile_before_chest and not options.whetstone_in_play
    assert options.starting_item == "random" and rules.CHOICES["starting_item"] == ("random", *rules.ITEM_SLUGS)
    assert RuleOptions(starting_items=0).starting_item == "random"   # a random start needs no starting item
    assert not options.play_on_after_win and not options.final_monster_captures


@pytest.mark.parametrize("options, message", [
    ({"win_souls": 0}, "'win_souls' must be in 1-30"),
    ({"win_souls": True}, "'win_souls' must be an integer"),
    ({"turkey_cards": 11}, "'turkey_cards' must be in 1-10"),
    ({"starting_items": -1}, "'starting_items' must be in 0-5"),
    ({"mimic_power": "4"}, "'mimic_power' must be an integer"),
    ({"play_on_after_win": 1}, "'play_on_after_win' must be true or false"),
    ({"dagger_value": "six"}, "'dagger_value' must be one of choose_kind, choose, low, high, split"),
    ({"items_between_fights": "yes"}, "'items_between_fights' must be true or false"),
    ({"empty_pile_before_chest": 0}, "'empty_pile_before_chest' must be true or false"),
    ({"whetstone_in_play": None}, "'whetstone_in_play' must be true or false"),
    ({"overshoot": "never"}, "'overshoot' must be one of first_attack, zero_total, bust"),
    ({"bust": "lose"}, "'bust' must be one of discard_weapon, soul_lost"),
    ({"chest_loot": "pile"}, "'chest_loot' must be one of discard, draw_pile"),
    ({"item_timing": "any"}, "'item_timing' must be one of after_reveal, before_draw"),
    ({"spear_kind": "melee"}, "'spear_kind' must be one of both, choose"),
    ({"starting_mimic": "keep"}, "'starting_mimic' must be one of fight, redraw"),
    ({"damage_from": "middle"}, "'damage_from' must be one of top, bottom"),
    ({"starting_item": "sword"}, "'starting_item' must be one of random, soul_crystal, big_turkey_dinner, .*, mimic;"),
    ({"starting_item": 5}, "'starting_item' must be one of random, soul_crystal"),
    ({"starting_item": "shield", "starting_items": 0},
     "'starting_item'='shield' forces the first starting item, but starting_items=0 takes none"),
])
def test_bad_options_are_refused_naming_the_valid_values(options, message):
    with pytest.raises(OptionError, match=message):
        RuleOptions(**options)


# ---------------------------------------------------------------- set-up

def test_deal_shuffles_thirty_cards_by_fisher_yates_on_the_deck_stream():
    table = Table.deal(123, 45)
    stream, expected = rng.Stream(123, 45, rng.STREAM_DECK), list(range(N_CARDS))
    for i in range(N_CARDS - 1, 0, -1):
        j = stream.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert table.pile == expected
    assert table.deck_rng.s == stream.s  # exactly 29 draws


def test_the_starting_item_is_the_top_card_item_side_up():
    """"Take one card and place it item side up in the items area." """
    table = make_table(pile=[AXE, SWORD, SHIELD])
    table.take_starting_items(Scripted(), None)
    assert table.items == [SHIELD] and table.pile == [AXE, SWORD]
    table = make_table(pile=[AXE, SWORD, SHIELD], options=RuleOptions(starting_items=2))
    table.take_starting_items(Scripted(), None)
    assert table.items == [SHIELD, SWORD] and table.pile == [AXE]
    table = make_table(pile=[AXE, SWORD, SHIELD], options=RuleOptions(starting_items=0))
    table.take_starting_items(Scripted(), None)
    assert table.items == [] and len(table.pile) == 3


def test_a_starting_mimic_is_fought_at_once_or_redrawn():
    # fight (default): the Mimic! is a power-4 monster; the Staff (4) captures it: a soul at set-up
    policy = Scripted(actions=[Action(DRAW)])
    table = make_table(pile=[AXE, SWORD, STAFF, MIMIC_CARD])
    table.take_starting_items(policy, None)
    assert table.souls == [MIMIC_CARD] and table.items == [] and table.discard == [STAFF]
    assert table.used_count[MIMIC] == 1 and table.rounds == 0 and table.pile == [AXE, SWORD]
    # redraw: the Mimic! goes under the pile, the next card is the starting item
    table = make_table(pile=[AXE, SWORD, STAFF, MIMIC_CARD], options=RuleOptions(starting_mimic="redraw"))
    table.take_starting_items(Scripted(), None)
    assert table.items == [STAFF] and table.pile == [MIMIC_CARD, AXE, SWORD] and table.used_count[MIMIC] == 0


# ---------------------------------------------------------------- the study setting starting_item

def test_the_starting_item_column_is_the_item_of_the_first_card_taken():
    """``start_item``: the top card's item; after a redraw the card actually taken; -1 for none."""
    for index in range(30):
        top = Table.deal(3, index).pile[-1]
        assert play(3, index, RuleOptions(), NoItemsPolicy(2)).start_item == rules.ITEM_OF_CARD[top]
        assert play(3, index, RuleOptions(starting_items=0), NoItemsPolicy(2)).start_item == -1
    table = make_table(pile=[AXE, SWORD, STAFF, MIMIC_CARD], options=RuleOptions(starting_mimic="redraw"))
    table.take_starting_items(Scripted(), None)
    assert table.start_item == rules.BEWITCHING_RELIC                  # the Staff's item, not the Mimic!
    table = make_table(pile=[AXE, SWORD, STAFF, MIMIC_CARD], options=RuleOptions(starting_items=2))
    table.take_starting_items(Scripted(actions=[Action(DRAW)]), None)  # the Mimic! is fought, then the Sword
    assert table.start_item == MIMIC and table.items == [SWORD]
    table = make_table(pile=[], options=RuleOptions(starting_item="shield"))
    table.take_starting_items(Scripted(), None)
    assert table.start_item == -1 and table.items == []                # an empty pile: none taken


@pytest.mark.parametrize("item", range(rules.N_UNIQUE), ids=lambda i: rules.ITEM_SLUGS[i])
def test_a_forced_starting_item_is_the_deal_with_that_card_taken_first(item):
    """``starting_item=<slug>``: copy 0 of the item moves to the top of the dealt pile, the other 29 cards
    keep the order of the unforced deal, and no random number is drawn for it."""
    forced_card = rules.cards_of_item(item)[0]
    options = RuleOptions(starting_item=rules.ITEM_SLUGS[item])
    for index in range(40):
        dealt = Table.deal(8, index)
        table = Table.deal(8, index, options, log=True)
        assert table.pile == dealt.pile                                # the deal itself is unchanged
        table.force_starting_item(item)
        rest = [c for c in dealt.pile if c != forced_card]
        assert table.pile == rest + [forced_card]
        assert table.deck_rng.s == dealt.deck_rng.s                    # no extra draws
        assert table.log[-1] == (f"study setting starting_item={rules.ITEM_SLUGS[item]}: #{forced_card} "
                                 f"{rules.ITEM_NAMES[item]} moved to the top of the pile")
        # through the set-up: held, or for a Mimic! fought at once (STOP at 0/4: 4 damage, then captured)
        table = Table.deal(8, index, options)
        table.take_starting_items(Scripted(), None)
        assert table.start_item == item
        if item != MIMIC:
            assert table.items == [forced_card] and table.pile == rest and table.souls == []
        else:
            assert table.items == [] and table.souls == [forced_card] and table.used_count[MIMIC] == 1
            assert table.discard == rest[::-1][:4] and table.pile == rest[:-4]


def test_the_forced_copy_is_copy_0_even_below_another_copy():
    """A fixed copy, not the topmost one: the others then lie where the shuffle put them (a topmost copy
    would leave them deeper than chance). The second starting item is the next card, as usual."""
    shield_0, shield_2 = card(5, 0), card(5, 2)
    options = RuleOptions(starting_item="shield", starting_items=2)
    table = make_table(pile=[AXE, shield_0, SWORD, shield_2], options=options)
    table.take_starting_items(Scripted(), None)
    assert table.items == [shield_0, shield_2] and table.pile == [AXE, SWORD] and table.start_item == rules.SHIELD
    # a forced Mimic! with starting_mimic="redraw" goes under the pile like any starting Mimic!
    options = RuleOptions(starting_item="mimic", starting_mimic="redraw")
    table = make_table(pile=[DAGGER, AXE, SWORD, STAFF], options=options)
    table.take_starting_items(Scripted(), None)
    assert table.items == [STAFF] and table.pile == [DAGGER, AXE, SWORD] and table.start_item == rules.BEWITCHING_RELIC


def test_random_starting_item_leaves_the_deal_and_the_log_alone():
    for index in range(20):
        assert play(6, index, RuleOptions(starting_item="random"), ThresholdPolicy(2), log=True) == play(
            6, index, RuleOptions(), ThresholdPolicy(2), log=True)
    log = play(6, 0, RuleOptions(), ThresholdPolicy(2), log=True).log
    assert not any("study setting" in line for line in log)


# ---------------------------------------------------------------- a round: weapons, damage, capture

def test_a_round_draws_the_monster_then_weapons_and_the_gap_is_the_damage():
    """Monster 9; Sword 4 + Mace 3 = 7; stop: 2 damage = the top 2 cards of the pile to the discard
    pile; the monster to the souls; the weapons to the discard pile."""
    policy = Scripted(actions=[Action(DRAW), Action(DRAW), Action(STOP)])
    table = make_table(pile=[GREATSWORD, FIREBALL, STAFF, MACE, SWORD, PLAIN_9], log=True)
    table.play_round(policy, None)
    assert table.rounds == 1 and table.souls == [PLAIN_9]
    assert table.discard == [STAFF, FIREBALL, SWORD, MACE]  # damage (top first), then weapons in order
    assert table.pile == [GREATSWORD]
    assert (table.damage_taken, table.weapons_drawn, table.busts, table.end) == (2, 2, 0, None)
    assert [len(q[1]) for q in fights_asked(policy)] == [2, 2, 2]  # DRAW or STOP, asked three times
    assert "  draw #7 Sword 4 melee → 4/9 · pile 4" in table.log
    assert "  damage 2: #10, #4 discarded → pile 1" in table.log


def test_a_weapon_that_goes_over_from_the_second_on_is_discarded_and_drawing_goes_on():
    """"Drawing a weapon that takes you over the monster's power is discarded" (a bust)."""
    policy = Scripted(actions=[Action(DRAW), Action(DRAW), Action(DRAW), Action(STOP)])
    table = make_table(pile=[STAFF, SWORD, AXE, GREATSWORD, FIREBALL, PLAIN_9], discard=[BOW])
    table.play_round(policy, None)
    # Fireball 5 -> 5/9; Greatsword 5 -> 10 > 9: bust, discarded at once; Axe 2 -> 7/9; stop: 2 damage
    assert table.busts == 1 and table.weapons_drawn == 3 and table.damage_taken == 2
    assert table.discard == [BOW, GREATSWORD, SWORD, STAFF, FIREBALL, AXE]


def test_a_single_weapon_going_over_captures_the_soul_with_no_damage():
    """The rule cards: "going over a monster's power with a single weapon attack (even with an item) still
    captures the soul with no extra damage"."""
    policy = Scripted(actions=[Action(DRAW)], attacks=[AttackChoice(value=6)])
    table = make_table(pile=[AXE, STAFF, DAGGER, EXPLODES_5])
    table.play_round(policy, None)
    assert table.souls == [EXPLODES_5] and table.damage_taken == 0 and table.busts == 0
    assert table.discard == [DAGGER] and table.pile == [AXE, STAFF]


def test_overshoot_option_bust_discards_even_the_first_weapon():
    policy = Scripted(actions=[Action(DRAW), Action(DRAW)], attacks=[AttackChoice(value=6)])
    table = make_table(pile=[SWORD, STAFF, FIREBALL, AXE, DAGGER, EXPLODES_5], options=RuleOptions(overshoot="bust"))
    table.play_round(policy, None)
    # Dagger 6 > 5 busts (it did not land, so Explodes still allows one); Axe 2 lands -> no more attacks
    assert table.busts == 1 and table.damage_taken == 3
    assert table.discard == [DAGGER, FIREBALL, STAFF, SWORD, AXE] and table.pile == []
    assert len(fights_asked(policy)) == 2  # after the Axe only STOP is open: not asked


def test_bust_option_soul_lost_ends_the_fight_without_the_soul():
    """Rulebook: "you cannot deal more damage than the monster has, or the soul is lost"."""
    policy = Scripted(actions=[Action(DRAW), Action(DRAW), Action(DRAW)])
    table = make_table(pile=[AXE, SWORD, STAFF, MACE, BOW, GREATSWORD, FIREBALL, PLAIN_9],
                       options=RuleOptions(bust="soul_lost"))
    table.play_round(policy, None)
    # Fireball 5; Greatsword 5 -> 10 > 9: discarded, the fight ends; the gap 4 is taken as damage
    assert len(fights_asked(policy)) == 2 and table.busts == 1 and table.souls == [] and table.end is None
    assert table.discard == [GREATSWORD, BOW, MACE, STAFF, SWORD, PLAIN_9, FIREBALL] and table.pile == [AXE]
    # with too few cards left for the damage: the final monster (no capture even with the option)
    table = make_table(pile=[AXE, GREATSWORD, FIREBALL, PLAIN_9],
                       options=RuleOptions(bust="soul_lost", final_monster_captures=True))
    assert table.play_game(Scripted(actions=[Action(DRAW), Action(DRAW)]), None) == END_FINAL_MONSTER
    assert table.souls == [] and table.pile == [AXE]


@pytest.mark.parametrize("overshoot, captured", [("first_attack", False), ("zero_total", True)])
def test_overshoot_zero_total_covers_an_attack_after_a_cancelled_first_one(overshoot, captured):
    """Flying 7: the Sword (first melee) deals 0; then Greatsword 5 + Whetstone 3 = 8 > 7."""
    policy = Scripted(actions=[Action(DRAW), Action(DRAW)], attacks=[AttackChoice(), AttackChoice(whetstone=True)])
    table = make_table(pile=[AXE, STAFF, GREATSWORD, SWORD, FLYING_7], items=[WHETSTONE],
                       options=RuleOptions(overshoot=overshoot))
    table.play_round(policy, None)
    if captured:
        assert table.souls == [FLYING_7] and table.busts == 0 and table.damage_taken == 0
    else:  # bust, then a stop at 0/7 with 2 cards left: the final monster
        assert table.busts == 1 and table.end == END_FINAL_MONSTER and table.souls == []


def test_reaching_the_power_exactly_captures_without_asking_again():
    policy = Scripted(actions=[Action(DRAW), Action(DRAW)])
    table = make_table(pile=[AXE, SWORD, GREATSWORD, PLAIN_9])
    table.play_round(policy, None)
    assert table.souls == [PLAIN_9] and table.damage_taken == 0 and len(fights_asked(policy)) == 2


def test_stopping_at_once_takes_the_full_power_as_damage():
    table = make_table(pile=list(range(20, 30)) + [EXPLODES_5])
    table.play_round(Scripted(), None)
    assert table.damage_taken == 5 and table.discard == [29, 28, 27, 26, 25] and table.souls == [EXPLODES_5]


# ---------------------------------------------------------------- the end

def test_the_eighth_soul_wins_and_ends_the_game():
    """The rule cards: "you win when you hold 8 captured souls"."""
    seven = list(range(20, 27))
    table = make_table(pile=[AXE, STAFF, SWORD, GREATSWORD, PLAIN_9], souls=seven, log=True)
    assert table.play_game(Scripted(actions=[Action(DRAW), Action(DRAW)]), None) == END_EIGHT_SOULS
    outcome = table.outcome()
    assert outcome.win and outcome.souls == 8 and outcome.cards_left == 2 and outcome.end == END_EIGHT_SOULS
    assert table.log[-1] == "WIN: 8 souls · round 1 · pile 2"


def test_play_on_after_win_keeps_playing_for_a_high_score():
    """The rule cards: "(play may go on for a high score)"."""
    seven = list(range(20, 27))
    table = make_table(pile=[SWORD, GREATSWORD, PLAIN_9], souls=seven, options=RuleOptions(play_on_after_win=True))
    end = table.play_game(Scripted(actions=[Action(DRAW), Action(DRAW)]), None)
    assert end == END_PILE_EMPTY and table.outcome().win and table.outcome().souls == 8 and table.rounds == 1


def test_an_empty_draw_pile_at_the_start_of_a_round_loses():
    """"running out of cards to draw is the same as running out of life" """
    table = make_table(pile=[], souls=[0, 1, 2])
    assert table.play_game(Scripted(), None) == END_PILE_EMPTY
    outcome = table.outcome()
    assert not outcome.win and outcome.rounds == 0 and outcome.souls == 3 and outcome.cards_left == 0


def test_final_monster_damage_above_the_cards_left_loses_the_soul_and_the_game():
    """The rule cards: "On the final monster, if the damage is more than the cards left in the draw pile, its soul
    is not captured and the game ends"."""
    table = make_table(pile=[AXE, SWORD, PLAIN_9], log=True)
    assert table.play_game(Scripted(), None) == END_FINAL_MONSTER
    assert table.souls == [] and table.pile == [AXE, SWORD] and table.discard == [] and table.monster == PLAIN_9
    assert table.outcome().damage_taken == 0 and not table.outcome().win
    assert "  final monster: damage 9 > 2 cards left" in table.log


def test_damage_equal_to_the_cards_left_captures_then_the_empty_pile_loses():
    policy = Scripted(actions=[Action(DRAW)])
    table = make_table(pile=[SWORD, STAFF, FIREBALL, AXE, EXPLODES_5])
    assert table.play_game(policy, None) == END_PILE_EMPTY
    # Axe 2 lands on Explodes: no further attack; 3 damage = the 3 cards left; the soul is captured
    assert table.souls == [EXPLODES_5] and table.damage_taken == 3 and table.pile == []


def test_final_monster_captures_option_discards_the_pile_and_captures():
    table = make_table(pile=[AXE, SWORD, PLAIN_9], options=RuleOptions(final_monster_captures=True))
    assert table.play_game(Scripted(), None) == END_FINAL_MONSTER
    assert table.souls == [PLAIN_9] and table.pile == [] and table.damage_taken == 2
    # ... and it can be the winning soul
    table = make_table(pile=[AXE, SWORD, PLAIN_9], souls=list(range(20, 27)),
                       options=RuleOptions(final_monster_captures=True))
    assert table.play_game(Scripted(), None) == END_EIGHT_SOULS and table.outcome().win


def test_damage_from_the_bottom_option():
    """Default: "Discard from the draw pile for each damage taken" takes the top cards."""
    for damage_from, discarded in (("top", [GREATSWORD, FIREBALL, STAFF, SWORD]),
                                   ("bottom", [AXE, SWORD, STAFF, FIREBALL])):
        table = make_table(pile=[AXE, SWORD, STAFF, FIREBALL, GREATSWORD], options=RuleOptions(damage_from=damage_from))
        table.gain_item(MIMIC_CARD, Scripted(), None)  # a Mimic! (power 4), stopped at once: 4 damage
        assert table.discard == discarded and table.souls == [MIMIC_CARD]


# ---------------------------------------------------------------- traits

def play_attacks(monster, weapons, *, items=(), options=None, attacks=(), crystals=(), extra=3):
    """Draw ``weapons`` (in order) against ``monster`` (``extra`` spare cards under them) until the fight
    closes; returns (table, policy, how it closed: None while open). The fight is left as it is (no
    damage, no capture), so totals and weapons can be read."""
    spare = [c for c in range(N_CARDS) if c not in (monster, *weapons, *items)][:extra]
    policy = Scripted(attacks=attacks, crystals=crystals)
    table = make_table(pile=[*spare, *reversed(weapons), monster], items=items, options=options, log=True)
    table.draw_monster()
    table.open_fight(monster, False)
    close = None
    for _ in weapons:
        close = table.apply(Action(DRAW), policy, None)
        if close is not None:
            break
    return table, policy, close


def test_explodes_allows_a_single_attack():
    """"Explodes: You are only able to land a single attack." """
    table, _, close = play_attacks(EXPLODES_5, [AXE])
    assert close is None and table.total == 2 and not table.can_attack()
    assert table.legal_actions() == [Action(STOP)]
    table.items = [SHIELD]
    assert table.legal_actions() == [Action(USE, SHIELD), Action(STOP)]  # items stay open


def test_flying_first_melee_attack_deals_no_damage_and_the_spear_is_melee():
    """"Flying: First melee attack deals no damage." """
    table, _, close = play_attacks(FLYING_7, [SPEAR, STAFF, MACE])
    # Spear cancelled, Staff 4 ranged counts, Mace 3 (the second melee) counts: 7/7 captured
    assert table.weapons == [SPEAR, STAFF, MACE] and close == CLOSE_CAPTURE
    assert "  draw #13 Spear 3 melee+ranged (Flying: deals 0) → 0/7 · pile 5" in table.log


def test_ethereal_first_odd_value_attack_deals_no_damage():
    """"Ethereal: First odd value weapon attack deals no damage." """
    table, _, _ = play_attacks(ETHEREAL_8, [MACE, GREATSWORD, AXE])
    assert table.total == 7  # Mace 3 (odd) cancelled; Greatsword 5 (odd, second) and Axe 2 count


def test_evasive_first_even_value_attack_deals_no_damage():
    """"Evasive: First even value weapon attack deals no damage." """
    table, _, _ = play_attacks(EVASIVE_9, [AXE, STAFF, SPEAR])
    assert table.total == 7  # Axe 2 (even) cancelled; Staff 4 and Spear 3 count


def test_tough_skin_first_ranged_attack_deals_no_damage_and_the_spear_is_ranged():
    """"Tough Skin: First ranged attack deals no damage." """
    table, _, _ = play_attacks(TOUGH_10, [SPEAR, BOW, GREATSWORD])
    assert table.total == 7  # Spear (ranged too) cancelled; Bow 2 (second ranged) and Greatsword 5 count


def test_the_1_6_value_is_chosen_and_its_parity_meets_ethereal():
    table, policy, _ = play_attacks(ETHEREAL_8, [DAGGER, THROWING],
                                    attacks=[AttackChoice(value=1), AttackChoice(value=6)])
    assert table.total == 6  # the chosen 1 is odd: cancelled; the 6 counts
    assert policy.asked[0] == ("attack", DAGGER, AttackOptions(value=True))


@pytest.mark.parametrize("mode, total, busts", [("low", 2, 0), ("high", 6, 1), ("split", 7, 0)])
def test_dagger_value_options(mode, total, busts):
    """Throwing Daggers (ranged) then Dagger (melee) against monster 11, overshoot off."""
    table, policy, _ = play_attacks(CHEST_11, [THROWING, DAGGER],
                                    options=RuleOptions(dagger_value=mode, overshoot="bust"))
    assert (table.total, table.busts) == (total, busts)
    assert policy.asked == []  # nothing to choose, nobody asked


def test_a_choose_mode_dagger_refuses_other_values():
    with pytest.raises(IllegalDecision, match="attacks for 1 or 6, not 3"):
        play_attacks(PLAIN_9, [DAGGER], attacks=[AttackChoice(value=3)])


def test_spear_kind_choose_lets_the_spear_attack_as_melee_against_tough_skin():
    options = RuleOptions(spear_kind="choose")
    table, _, _ = play_attacks(TOUGH_10, [SPEAR, BOW], options=options, attacks=[AttackChoice(kind=MELEE)])
    assert table.total == 3  # the Spear as melee counts; the Bow is the first ranged: 0
    table, _, _ = play_attacks(TOUGH_10, [SPEAR, BOW], options=options, attacks=[AttackChoice(kind=RANGED)])
    assert table.total == 2
    with pytest.raises(IllegalDecision, match="melee .1. or ranged .2."):
        play_attacks(TOUGH_10, [SPEAR], options=options, attacks=[AttackChoice(kind=3)])


@pytest.mark.parametrize("with_whetstone, total", [(False, 5), (True, 0)])
def test_parity_includes_whetstone_option(with_whetstone, total):
    """Ethereal: Axe 2 + Whetstone 3 = 5 is even by the printed value, odd with the option."""
    table, _, _ = play_attacks(ETHEREAL_8, [AXE], items=[WHETSTONE], attacks=[AttackChoice(whetstone=True)],
                               options=RuleOptions(parity_includes_whetstone=with_whetstone))
    assert table.total == total


@pytest.mark.parametrize("spends", [False, True])
def test_an_attack_that_ignores_traits_does_not_spend_the_trait_unless_the_option_says_so(spends):
    """Flying 7: Axe 2 x 2 (Frenzy, ignores traits) = 4; then the Mace 3 (melee)."""
    table, _, close = play_attacks(FLYING_7, [AXE, MACE], items=[FRENZY], attacks=[AttackChoice(frenzy=True)],
                                   options=RuleOptions(ignoring_attack_spends_trait=spends))
    if spends:   # the Frenzy attack was the first melee: the Mace counts, 7/7
        assert close == CLOSE_CAPTURE
    else:        # the trait waited for the Mace
        assert close is None and table.total == 4 and table.trait_spent


# ---------------------------------------------------------------- items

def test_soul_crystal_turns_a_bust_into_a_capture():
    """"Soul Crystal: Take no additional damage if you attack over a monster's power." """
    table, policy, close = play_attacks(PLAIN_9, [FIREBALL, GREATSWORD], items=[SOUL_CRYSTAL], crystals=[True])
    assert ("crystal", GREATSWORD, 10) in policy.asked and close == CLOSE_CAPTURE
    assert table.busts == 0 and table.used == [SOUL_CRYSTAL] and table.weapons == [FIREBALL, GREATSWORD]
    assert table.used_count[rules.SOUL_CRYSTAL] == 1
    # declined: an ordinary bust
    table, _, close = play_attacks(PLAIN_9, [FIREBALL, GREATSWORD], items=[SOUL_CRYSTAL], crystals=[False])
    assert close is None and table.busts == 1 and table.items == [SOUL_CRYSTAL] and table.total == 5


def test_soul_crystal_ignores_traits_and_is_not_asked_when_the_overshoot_rule_captures():
    # Flying 7: Staff 4; the Sword (first melee) would deal 0, but 4 + 4 = 8 > 7 ignoring the trait
    _, policy, close = play_attacks(FLYING_7, [STAFF, SWORD], items=[SOUL_CRYSTAL], crystals=[True])
    assert ("crystal", SWORD, 8) in policy.asked and close == CLOSE_CAPTURE
    _, policy, close = play_attacks(EXPLODES_5, [DAGGER], items=[SOUL_CRYSTAL], attacks=[AttackChoice(value=6)])
    assert close == CLOSE_CAPTURE and not [q for q in policy.asked if q[0] == "crystal"]


def test_big_turkey_dinner_puts_three_shuffled_discard_cards_under_the_pile():
    """Printed card: "Shuffle discard pile, take 3 cards, place them at the bottom of your draw pile"."""
    discard = [AXE, SWORD, STAFF, MACE, BOW]
    for cards, options in ((3, RuleOptions()), (4, RuleOptions(turkey_cards=4))):
        table = make_table(pile=[GREATSWORD, FIREBALL, PLAIN_9], discard=discard, items=[TURKEY], seed=5,
                           options=options)
        table.draw_monster()
        table.open_fight(PLAIN_9, False)
        assert table.apply(Action(USE, TURKEY), Scripted(), None) is None
        shuffled = fisher_yates(discard, seed=5)
        assert table.pile == shuffled[-cards:] + [GREATSWORD, FIREBALL]
        assert table.discard == shuffled[:-cards]
        assert table.used == [TURKEY] and table.items == []


def test_smoke_bomb_shuffles_the_encounter_into_the_pile_without_soul_or_damage():
    """"Smoke Bomb: Place all cards in the current encounter into the draw deck and shuffle." """
    for returns_items in (False, True):
        policy = Scripted(actions=[Action(DRAW), Action(USE, SMOKE_BOMB)])
        table = make_table(pile=[AXE, STAFF, SWORD, PLAIN_9], items=[SMOKE_BOMB, SHIELD], seed=3,
                           options=RuleOptions(smoke_bomb_returns_items=returns_items))
        table.play_round(policy, None)
        returned = [AXE, STAFF, PLAIN_9, SWORD] + ([SMOKE_BOMB] if returns_items else [])
        assert table.pile == fisher_yates(returned, seed=3)
        assert table.discard == ([] if returns_items else [SMOKE_BOMB])
        assert table.souls == [] and table.damage_taken == 0 and table.end is None and table.monster == -1
        assert table.items == [SHIELD] and table.rounds == 1


def test_shield_blocks_up_to_three_damage():
    for shields, damage in (([SHIELD], 1), ([SHIELD, card(5, 0)], 0)):
        actions = [Action(DRAW)] + [Action(USE, s) for s in shields] + [Action(STOP)]
        table = make_table(pile=[AXE, SWORD, STAFF, FIREBALL, GREATSWORD, PLAIN_9], items=shields)
        table.play_round(Scripted(actions=actions), None)
        assert table.damage_taken == damage and table.souls == [PLAIN_9]  # gap 4
        assert table.used_count[rules.SHIELD] == len(shields)
        # damage first, then the used items, then the weapons go to the discard pile
        assert table.discard == [FIREBALL] * damage + shields + [GREATSWORD]


def test_whetstone_adds_three_to_a_single_weapon_after_its_reveal():
    """"Whetstone: +3 damage to a single weapon": Fireball 5 + 3 = 8; the Axe 2 then busts (10 > 9)."""
    table, policy, _ = play_attacks(PLAIN_9, [FIREBALL, AXE], items=[WHETSTONE],
                                    attacks=[AttackChoice(whetstone=True)])
    assert policy.asked == [("attack", FIREBALL, AttackOptions(whetstone=True))]
    assert table.total == 8 and table.busts == 1 and table.used == [WHETSTONE]


def test_before_draw_timing_arms_whetstone_and_frenzy_at_a_decision_point():
    options = RuleOptions(item_timing="before_draw")
    table = make_table(pile=[AXE, SWORD, STAFF, FIREBALL, TOUGH_10], items=[WHETSTONE, FRENZY], options=options)
    table.draw_monster()
    table.open_fight(TOUGH_10, False)
    assert table.legal_actions() == [Action(DRAW), Action(USE, WHETSTONE), Action(USE, FRENZY), Action(STOP)]
    policy = Scripted()
    table.apply(Action(USE, WHETSTONE), policy, None)
    table.apply(Action(USE, FRENZY), policy, None)
    assert table.legal_actions() == [Action(DRAW), Action(STOP)]
    # (Fireball 5 + 3) x 2 = 16 > 10 on the first attack, Tough Skin ignored: captured
    assert table.apply(Action(DRAW), policy, None) == CLOSE_CAPTURE
    assert policy.asked == []  # no open choice at the attack
    assert table.weapons == [FIREBALL] and table.used == [WHETSTONE, FRENZY]


def test_bewitching_relic_attacks_with_the_monster_side_and_ignores_traits():
    """The rule cards: "use the monster side of a drawn weapon card to attack; ignores monster traits"."""
    # Tough Skin 10: the Short Bow is ranged (would deal 0) but attacks as its monster side, 10
    table, _, close = play_attacks(TOUGH_10, [BOW], items=[RELIC], attacks=[AttackChoice(relic=True)])
    assert close == CLOSE_CAPTURE and table.total == 10 and table.used == [RELIC]
    # a second attack: Axe 2, then the Sword as its monster side 8: 10/11
    table, _, close = play_attacks(CHEST_11, [AXE, SWORD], items=[RELIC],
                                   attacks=[AttackChoice(), AttackChoice(relic=True)])
    assert close is None and table.total == 10 and table.used == [RELIC]


def test_a_looted_mimic_is_fought_at_power_4_and_its_soul_counts():
    """"Mimic!: When drawn as an item, immediately treat the Mimic as a monster with a power of 4." """
    # the Scroll captures the chest monster; the discard pile [Mimic!, Scroll] is shuffled (seed 1 puts
    # the Mimic! on top) and its top card looted: the Mimic! is fought and the Staff 4 captures it
    assert fisher_yates([MIMIC_CARD, SCROLL], seed=1)[-1] == MIMIC_CARD
    for mimic_soul in (True, False):
        policy = Scripted(actions=[Action(USE, SCROLL), Action(DRAW)])
        table = make_table(pile=[AXE, GREATSWORD, STAFF, CHEST_10], discard=[MIMIC_CARD], items=[SCROLL], seed=1,
                           options=RuleOptions(mimic_soul=mimic_soul))
        table.play_round(policy, None)
        assert table.used_count[MIMIC] == 1 and table.rounds == 1 and table.items == []
        if mimic_soul:
            assert table.souls == [CHEST_10, MIMIC_CARD] and table.discard == [SCROLL, STAFF]
        else:
            assert table.souls == [CHEST_10] and table.discard == [SCROLL, MIMIC_CARD, STAFF]


def test_mimic_power_option():
    table = make_table(pile=[AXE, GREATSWORD, STAFF], options=RuleOptions(mimic_power=6))
    table.gain_item(MIMIC_CARD, Scripted(actions=[Action(DRAW)]), None)
    assert table.souls == [MIMIC_CARD] and table.damage_taken == 2  # 6 - 4 = 2


def test_large_backpack_keeps_a_discard_weapon_to_attack_with_later():
    """"Large Backpack: Take a weapon card from the discard pile and keep it with your items"."""
    table = make_table(pile=[AXE, SWORD, PLAIN_9], discard=[MACE, GREATSWORD, STAFF], items=[BACKPACK])
    table.draw_monster()
    table.open_fight(PLAIN_9, False)
    assert table.legal_actions() == [Action(DRAW), Action(USE, BACKPACK, GREATSWORD), Action(USE, BACKPACK, STAFF),
                                     Action(USE, BACKPACK, MACE), Action(STOP)]
    policy = Scripted()
    table.apply(Action(USE, BACKPACK, GREATSWORD), policy, None)
    assert table.stored == [GREATSWORD] and table.discard == [MACE, STAFF]  # the others keep their order
    assert Action(PLAY, GREATSWORD) in table.legal_actions()
    assert table.apply(Action(PLAY, GREATSWORD), policy, None) is None
    assert table.total == 5 and table.weapons_drawn == 0 and table.pile == [AXE, SWORD] and table.stored == []


def test_frenzy_potion_doubles_the_initial_strike_and_ignores_traits():
    """"Frenzy Potion: Your initial weapon strike hits for double damage and ignores monster traits." """
    table, _, close = play_attacks(TOUGH_10, [FIREBALL], items=[FRENZY], attacks=[AttackChoice(frenzy=True)])
    assert close == CLOSE_CAPTURE and table.total == 10  # ranged 5 x 2 = 10, not cancelled by Tough Skin
    _, policy, _ = play_attacks(PLAIN_9, [AXE, SWORD], items=[FRENZY, RELIC])
    opens = [q[2] for q in policy.asked if q[0] == "attack"]
    assert opens == [AttackOptions(relic=True, frenzy=True), AttackOptions(relic=True)]  # first attack only
    with pytest.raises(IllegalDecision, match="frenzy is not open"):
        play_attacks(PLAIN_9, [AXE, SWORD], items=[FRENZY, RELIC], attacks=[AttackChoice(), AttackChoice(frenzy=True)])


def test_scroll_of_purge_life_captures_at_once_ignoring_traits():
    """"Instantly kill a monster when used, ignoring any monster traits" (the printed card: captures the soul)."""
    table = make_table(pile=[AXE, SWORD, TOUGH_10], items=[SCROLL])
    table.play_round(Scripted(actions=[Action(USE, SCROLL)]), None)
    assert table.souls == [TOUGH_10] and table.discard == [SCROLL] and table.damage_taken == 0
    assert table.pile == [AXE, SWORD] and table.used_count[rules.SCROLL_OF_PURGE_LIFE] == 1


# ---------------------------------------------------------------- chests

def test_a_chest_gives_the_top_card_of_the_shuffled_discard_pile():
    """The chest reading of docs/rules/cursed.md: "shuffle the discard pile, take its top card as an item"; used items and weapons are in the
    discard pile by then ("put any items and weapons used into the discard pile")."""
    table = make_table(pile=[MACE, SPEAR, AXE, GREATSWORD, STAFF, CHEST_10], discard=[SWORD, FIREBALL], seed=9)
    table.play_round(Scripted(actions=[Action(DRAW), Action(DRAW)]), None)
    # Staff 4 + Greatsword 5 = 9/10, stop: 1 damage (the Axe); then the capture moves the weapons
    shuffled = fisher_yates([SWORD, FIREBALL, AXE, STAFF, GREATSWORD], seed=9)
    assert table.items == [shuffled[-1]] and table.discard == shuffled[:-1] and table.pile == [MACE, SPEAR]


def test_chest_loot_from_the_draw_pile_option_and_an_empty_discard_pile():
    table = make_table(pile=[MACE, SPEAR, CHEST_10], items=[SCROLL], options=RuleOptions(chest_loot="draw_pile"))
    table.play_round(Scripted(actions=[Action(USE, SCROLL)]), None)
    assert table.items == [SPEAR] and table.pile == [MACE] and table.discard == [SCROLL]
    table = make_table(pile=[MACE])
    table.open_chest(Scripted(), None)
    assert table.items == [] and table.deck_rng.s == rng.Stream(0, 0, rng.STREAM_DECK).s  # nothing drawn


# ---------------------------------------------------------------- decisions

def test_legal_actions_come_in_the_canonical_order():
    table = make_table(pile=[AXE, PLAIN_9], discard=[BOW, STAFF], stored=[MACE, GREATSWORD],
                       items=[BACKPACK, SHIELD, SOUL_CRYSTAL, RELIC, SCROLL, SMOKE_BOMB, TURKEY, card(5, 0)])
    table.draw_monster()
    table.open_fight(PLAIN_9, False)
    assert table.legal_actions() == [
        Action(DRAW), Action(PLAY, GREATSWORD), Action(PLAY, MACE), Action(USE, TURKEY), Action(USE, SMOKE_BOMB),
        Action(USE, SCROLL), Action(USE, card(5, 0)), Action(USE, BACKPACK, STAFF), Action(USE, BACKPACK, BOW),
        Action(STOP)]


def test_illegal_actions_are_refused_and_any_held_copy_may_be_named():
    table = make_table(pile=[AXE, PLAIN_9], items=[SHIELD, card(5, 0), SOUL_CRYSTAL])
    table.draw_monster()
    table.open_fight(PLAIN_9, False)
    legal = table.legal_actions()
    table.check_action(Action(USE, SHIELD), legal)  # the higher copy of the Shield
    for action, message in ((Action(USE, SOUL_CRYSTAL), "use #2 is not open"),
                            (Action(PLAY, GREATSWORD), "play #1 is not open"),
                            (Action(USE, BACKPACK, MACE), "is not open"), (None, "must be an Action, got None")):
        with pytest.raises(IllegalDecision, match=message):
            table.check_action(action, legal)


def test_a_policy_is_asked_only_when_something_is_open():
    policy = Scripted()
    table = make_table(pile=[], items=[])
    table.fight(PLAIN_9, False, policy, None)  # empty pile, no items: only STOP
    assert policy.asked == [] and table.end == END_FINAL_MONSTER


# ---------------------------------------------------------------- built-in policies

def threshold_view(policy, *, total=0, monster=PLAIN_9, pile=10, items=(), discard=(), stored=(), attacks=0):
    table = make_table(pile=[c for c in range(N_CARDS) if c not in (monster, *items, *discard, *stored)][:pile],
                       items=items, discard=discard, stored=stored)
    table.open_fight(monster, False)
    table.total, table.attacks = total, attacks
    return table, policy.fight(table, table.legal_actions(), None)


def test_threshold_policy_stops_when_the_gap_is_at_most_k():
    for k in (0, 2, 4):
        policy = ThresholdPolicy(k)
        for gap in range(0 if k else 1, 9):
            action = threshold_view(policy, total=9 - gap, attacks=1)[1]
            assert action == (Action(STOP) if gap <= k else Action(DRAW)), (k, gap)


def test_threshold_policy_item_rules():
    policy = ThresholdPolicy(2)
    # backpack first: the best discard weapon (a 1/6 counts 6)
    assert threshold_view(policy, items=[BACKPACK], discard=[GREATSWORD, THROWING, AXE])[1] == \
        Action(USE, BACKPACK, THROWING)
    # a fitting stored weapon before a draw
    assert threshold_view(policy, stored=[GREATSWORD, STAFF], total=4, attacks=1)[1] == Action(PLAY, GREATSWORD)
    assert threshold_view(policy, stored=[GREATSWORD], total=6, attacks=1)[1] == Action(DRAW)
    # turkey when the pile is low
    assert threshold_view(policy, items=[TURKEY], discard=[AXE], pile=5)[1] == Action(USE, TURKEY)
    assert threshold_view(policy, items=[TURKEY], discard=[AXE], pile=6)[1] == Action(DRAW)
    # scroll on a big monster before any attack
    assert threshold_view(policy, items=[SCROLL], monster=TOUGH_10)[1] == Action(USE, SCROLL)
    assert threshold_view(policy, items=[SCROLL], monster=PLAIN_9)[1] == Action(DRAW)
    # shield at the stop when 2+ damage is due, not for 1
    assert threshold_view(policy, items=[SHIELD], total=7, attacks=2)[1] == Action(USE, SHIELD)
    assert threshold_view(policy, items=[SHIELD], total=8, attacks=2)[1] == Action(STOP)
    # smoke bomb when the stop would be the final monster
    assert threshold_view(policy, items=[SMOKE_BOMB], total=7, attacks=2, pile=1)[1] == Action(USE, SMOKE_BOMB)


def test_threshold_policy_attack_choices():
    policy = ThresholdPolicy(2)
    table = make_table(items=[RELIC, WHETSTONE])
    table.open_fight(PLAIN_9, False)
    table.total, table.attacks = 3, 1
    # gap 6: the dagger as 6 captures exactly; no item
    assert policy.attack(table, DAGGER, table.attack_options(DAGGER), None) == AttackChoice(value=6)
    # Axe 2 does not capture, Relic (monster side 10 > 6) neither after the first attack, Whetstone 5 neither
    assert policy.attack(table, AXE, table.attack_options(AXE), None) == AttackChoice()
    # Spear 3: its monster side 9 does not capture (not a first attack); Whetstone 3 + 3 = 6 does
    assert policy.attack(table, SPEAR, table.attack_options(SPEAR), None) == AttackChoice(whetstone=True)
    table.total, table.attacks = 0, 0  # first attack: anything over captures, so the Relic is worth it
    assert policy.attack(table, AXE, table.attack_options(AXE), None) == AttackChoice(relic=True)
    assert policy.crystal(table, AXE, 12, None) is True
    # the 1/6 as 6 when it fits or when an overshoot would capture, else as 1
    for monster, total, attacks, value in ((EXPLODES_5, 0, 0, 6), (PLAIN_9, 5, 1, 1), (PLAIN_9, 2, 1, 6)):
        table = make_table()
        table.open_fight(monster, False)
        table.total, table.attacks = total, attacks
        assert policy.attack(table, THROWING, table.attack_options(THROWING), None) == AttackChoice(value=value)
    # the Spear's kind (spear_kind="choose"): ranged against Flying, else melee
    for monster, kind in ((FLYING_7, RANGED), (TOUGH_10, MELEE)):
        table = make_table(options=RuleOptions(spear_kind="choose"))
        table.open_fight(monster, False)
        table.attacks = 1
        assert policy.attack(table, SPEAR, table.attack_options(SPEAR), None) == AttackChoice(kind=kind)


def test_no_items_policy_never_uses_an_item():
    for index in range(100):
        outcome = play(3, index, RuleOptions(), NoItemsPolicy(2))
        assert all(getattr(outcome, f"used_{slug}") == 0 for slug in rules.ITEM_SLUGS if slug != "mimic")


def test_random_policy_draws_from_the_policy_stream_in_the_documented_order():
    stream = rng.Stream(1, 2, rng.STREAM_POLICY)
    table = make_table(items=[RELIC, WHETSTONE])
    table.open_fight(PLAIN_9, False)
    open_ = table.attack_options(DAGGER)
    expected = rng.Stream(1, 2, rng.STREAM_POLICY)
    value = 6 if expected.below(2) else 1
    relic, whetstone = bool(expected.below(2)), bool(expected.below(2))
    assert RandomPolicy().attack(table, DAGGER, open_, stream) == AttackChoice(value, 0, relic, whetstone, False)
    legal = table.legal_actions()
    assert RandomPolicy().fight(table, legal, stream) == legal[expected.below(len(legal))]
    assert stream.s == expected.s


def test_the_user_policy_example_in_the_docstring_runs():
    doc = reference_policies.__doc__
    start = doc.index("    from cursedsim")
    end = doc.index("\n", doc.index("    outcome = play("))
    namespace: dict = {}
    exec(textwrap.dedent(doc[start:end]), namespace)
    assert isinstance(namespace["outcome"], Outcome)


# ---------------------------------------------------------------- whole games

POLICIES = [RandomPolicy(), ThresholdPolicy(2), NoItemsPolicy(2), ThresholdPolicy(0)]


def check_finished(table: Table) -> None:
    """Invariants of every finished game."""
    outcome = table.outcome()
    assert table.all_cards() == list(range(N_CARDS))  # every card in exactly one zone
    assert outcome.souls == len(table.souls) and outcome.cards_left == len(table.pile)
    assert outcome.win == (outcome.souls >= table.options.win_souls)
    if outcome.end == END_EIGHT_SOULS:
        assert outcome.souls == table.options.win_souls and table.monster == -1
    elif outcome.end == END_PILE_EMPTY:
        assert outcome.cards_left == 0 and table.monster == -1
    else:
        assert outcome.end == END_FINAL_MONSTER
        assert table.monster >= 0 or table.options.final_monster_captures
    if not table.options.play_on_after_win:
        assert outcome.souls <= table.options.win_souls
    # every soul came from a round or a Mimic! fight; every card drawn left the pile
    assert outcome.souls <= outcome.rounds + outcome.used_mimic
    assert outcome.busts <= outcome.weapons_drawn + outcome.used_large_backpack


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.label)
def test_whole_games_end_and_keep_every_card(policy):
    ends, souls = Counter(), Counter()
    for index in range(300):
        table = Table.deal(11, index)
        assert sorted(table.pile) == list(range(N_CARDS))
        policy_rng = rng.Stream(11, index, rng.STREAM_POLICY)
        table.take_starting_items(policy, policy_rng)
        end = table.play_game(policy, policy_rng)
        check_finished(table)
        ends[end] += 1
        souls[table.outcome().souls] += 1
        assert table.outcome() == play(11, index, RuleOptions(), policy)  # play() is this procedure
    assert ends[END_FINAL_MONSTER] > 0 and ends[END_PILE_EMPTY] > 0
    if policy.label.startswith("ThresholdPolicy(k=2"):
        assert ends[END_EIGHT_SOULS] > 30


OPTION_VARIANTS = [
    {},
    {"overshoot": "zero_total", "dagger_value": "split", "spear_kind": "choose"},
    {"overshoot": "bust", "dagger_value": "low", "chest_loot": "draw_pile", "starting_items": 3, "bust": "soul_lost"},
    {"item_timing": "before_draw", "ignoring_attack_spends_trait": True, "parity_includes_whetstone": True},
    {"play_on_after_win": True, "smoke_bomb_returns_items": True, "final_monster_captures": True, "turkey_cards": 4},
    {"mimic_soul": False, "mimic_power": 7, "damage_from": "bottom", "starting_mimic": "redraw", "win_souls": 5,
         "dagger_value": "high"},
]


@pytest.mark.parametrize("variant", OPTION_VARIANTS, ids=lambda v: ",".join(v) or "defaults")
def test_random_play_under_option_variants_keeps_the_invariants(variant):
    options = RuleOptions(**variant)
    used = Counter()
    for index in range(200):
        table = Table.deal(5, index, options)
        policy, policy_rng = RandomPolicy(), rng.Stream(5, index, rng.STREAM_POLICY)
        table.take_starting_items(policy, policy_rng)
        table.play_game(policy, policy_rng)
        check_finished(table)
        for item, count in enumerate(table.used_count):
            used[item] += count
    # every item was used (a Mimic! met) somewhere in these games
    assert all(used[item] > 0 for item in range(rules.N_UNIQUE)), used


def test_same_seed_and_index_give_the_same_game_and_log():
    first = play(9, 17, RuleOptions(), ThresholdPolicy(2), log=True)
    again = play(9, 17, RuleOptions(), ThresholdPolicy(2), log=True)
    assert first == again and len(first.log) > 10
    assert replay_log(9, 17, RuleOptions(), ThresholdPolicy(2)).splitlines()[1:] == list(first.log)
    random_first = play(9, 17, RuleOptions(), RandomPolicy(), log=True)
    assert random_first == play(9, 17, RuleOptions(), RandomPolicy(), log=True)


def test_policies_share_the_deal_of_a_seed_and_index():
    """Common random numbers: the set-up does not depend on the policy."""
    for index in range(20):
        deals = {tuple(line for line in play(2, index, RuleOptions(), policy, log=True).log
                       if line.startswith(("set-up", "starting item"))) for policy in POLICIES}
        assert len(deals) == 1
    openings = {play(2, index, RuleOptions(), ThresholdPolicy(2), log=True).log[1] for index in range(40)}
    assert len(openings) > 8  # different indices, different deals


def test_replay_log_agrees_with_the_outcome():
    for index in range(40):
        outcome = play(4, index, RuleOptions(), ThresholdPolicy(2), log=True)
        log = outcome.log
        assert sum(line.startswith("round ") for line in log) == outcome.rounds
        assert sum(line.startswith("  soul captured") for line in log) == outcome.souls
        assert sum(int(line.split()[1].rstrip(":")) for line in log if line.startswith("  damage ")
                   and "blocked" not in line) == outcome.damage_taken
        assert sum(": bust," in line for line in log) == outcome.busts
        assert log[-1].startswith("WIN: " if outcome.win else "LOSS: ")
    text = replay_log(4, 0, RuleOptions(), ThresholdPolicy(2))
    assert text.splitlines()[0].startswith("Cursed!? · seed 4 · game 0 · policy ThresholdPolicy(k=2) · end: ")
    assert text.splitlines()[1] == "set-up · 30 cards shuffled · win at 8 souls"


def test_the_log_shown_in_the_rules_doc_is_a_real_replay():
    doc = (Path(__file__).resolve().parents[1] / "docs" / "rules" / "cursed.md").read_text(encoding="utf-8")
    start = doc.index("```\nCursed!? · seed 1 · game 136") + 4
    shown = doc[start:doc.index("```", start)].rstrip("\n").split("\n")
    cut = shown.index("  ...")
    log = replay_log(1, 136, RuleOptions(), ThresholdPolicy(2)).split("\n")
    assert log[:cut] == shown[:cut] and log[len(log) - len(shown) + cut + 1:] == shown[cut + 1:]


def test_play_chunk_returns_the_outcome_columns_with_their_dtypes():
    columns = play_chunk(6, 10, 5, RuleOptions(), ThresholdPolicy(2))
    assert tuple(columns) == rules.OUTCOME_COLUMNS
    assert all(str(columns[c].dtype) == d for c, d in rules.OUTCOME_DTYPES.items())
    assert list(columns["souls"]) == [play(6, 10 + i, RuleOptions(), ThresholdPolicy(2)).souls for i in range(5)]
    assert [field.name for field in dataclasses.fields(Outcome)][-2:] == ["log", "events"]


def test_items_and_a_threshold_beat_drawing_blind_on_the_same_games():
    """Paired on 1,000 games: ThresholdPolicy(2) wins more than NoItemsPolicy(2), which beats random."""
    wins = {p.label: sum(play(0, i, RuleOptions(), p).win for i in range(1000)) for p in POLICIES[:3]}
    assert wins["ThresholdPolicy(k=2)"] > wins["NoItemsPolicy(k=2)"] + 100
    assert wins["NoItemsPolicy(k=2)"] >= wins["random"]
