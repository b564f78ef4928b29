"""Cursed Gifts rules, one test per numbered rule of docs/rules/gifts.md (``test_g<major>_<minor>_...``),
on hand-built positions of the default deck; the rulebook's antidote examples; whole games of every
policy at 2-6 players; clone, replay, the per-seat View and the turn log."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from cursedsim import rng
from cursedsim.errors import OptionError, PlayersError
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import policy_specs as P
from cursedsim.games.gifts import reference as G
from cursedsim.games.gifts import reference_policies as RP
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S
from cursedsim.games.gifts import turnlog
from cursedsim.games.gifts.deck import DEFAULT_DECK, load_deck

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules" / "gifts.md"
DECK = load_deck()
KIND = DECK.arrays()["kind"]
DECK_CT = G.card_table(DECK)
NAMES = [c.name for c in DECK.cards]


def ids(name: str) -> list[int]:
    """The copy ids of the default deck's line ``name``."""
    k = NAMES.index(name)
    return [int(i) for i in np.flatnonzero(KIND == k)]


G1, G2, G3, G4, G5 = ids("Cursed Gift 1"), ids("Cursed Gift 2"), ids("Cursed Gift 3"), ids("Cursed Gift 4"), \
    ids("Cursed Gift 5")
INEV2, INEV3, GOLDEN = ids("Inevitable Cursed Gift 2"), ids("Inevitable Cursed Gift 3"), ids("Golden Cursed Gift 666")
AM1, AM2, AM5 = ids("Antidote -1"), ids("Antidote -2"), ids("Antidote -5")
FIRST_AID, GRACULA, MUMMY = ids("First aid"), ids("Gracula"), ids("Mummy Touthanpéku")
MUGGING, MOURNING, RAIE, IFREN, USELESS = ids("Mugging"), ids("Day of mourning"), ids("Protection de la Raie"), \
    ids("Emergency Ifren"), ids("Useless Gift")


def play(card: int) -> int:
    return S.A_PLAY + card


def seat(s: int) -> int:
    return S.A_SEAT + s


def pick(card: int) -> int:
    return S.A_PICK + card


def position(**kw) -> G.Table:
    kw.setdefault("players", 3)
    return G.Table.from_position(**kw)


def chain_deck(tmp_path) -> str:
    """The default deck plus 4 expansion ripostes that answer Defenses (copies 76-79)."""
    text = DEFAULT_DECK.read_text(encoding="utf-8") + (
        '\n[[card]]\nname = "Phoque you"\ntype = "defense"\nvalue = 0\ncount = 4\nflags = ["RIPOSTE"]\n'
        'effect = "cancel_defense"\n')
    path = tmp_path / "chains.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------- G1 set-up and turn order


@pytest.mark.parametrize("players", range(2, 7))
def test_g1_1_seven_cards_each_the_rest_is_the_draw_pile(players):
    t = G.Table.deal(7, 3, players)
    assert all(len(h) == R.HAND_AT_SETUP for h in t.hands)
    assert len(t.pile) == DECK.size - 7 * players
    every = [c for h in t.hands for c in h] + t.pile
    assert sorted(every) == list(range(DECK.size))
    assert G.Table.deal(7, 3, players).pile == t.pile and G.Table.deal(7, 4, players).pile != t.pile


def test_g1_2_seat_0_starts_and_play_goes_clockwise():
    t = G.Table.deal(1, 0, 4)
    order = []
    for _ in range(6):
        s, kind = t.to_move()
        assert kind == S.D_MAIN
        order.append(s)
        t.apply(S.A_END)
    assert order == [0, 1, 2, 3, 0, 1]


def test_g1_3_two_to_six_players_and_checked_options():
    for bad in (1, 7):
        with pytest.raises(PlayersError):
            G.Table.deal(1, 0, bad)
    with pytest.raises(OptionError, match="cacarma"):
        R.RuleOptions(cacarma="explode")
    with pytest.raises(OptionError, match="max_turns"):
        R.RuleOptions(max_turns=0)
    with pytest.raises(OptionError, match="mugging_cost.*always, if_taken"):
        R.RuleOptions(mugging_cost="never")
    with pytest.raises(OptionError, match="mugging_take.*blind, chosen"):
        R.RuleOptions(mugging_take=True)


# ---------------------------------------------------------------- G2 a turn


def test_g2_1_at_most_three_cards_a_turn():
    tricks = FIRST_AID + GRACULA + MUMMY
    t = position(hands=[tricks, [], []], gauges=[[], [G1[0]], []], pile=G2[:3])
    for card in tricks[:3]:
        t.apply(play(card))
        t.apply(seat(1))
        t.apply(pick(G1[0]))
    assert t.played == 3 and t.legal_actions() == [S.A_END]
    assert t.gauge_total(1) == 1 + 1 + 1 + 2


def test_g2_2_one_cursed_gift_a_turn():
    hand = [G2[0], G3[0]] + USELESS[:2]
    t = position(hands=[hand, [], []], pile=G2[1:4])
    assert play(G2[0]) in t.legal_actions() and S.A_BONUS in t.legal_actions()
    t.apply(play(G3[0]))
    t.apply(seat(1))
    legal = t.legal_actions()
    assert play(G2[0]) not in legal and S.A_BONUS not in legal       # the bonus gift is the one gift
    t = position(hands=[hand, [], []], pile=G2[1:4], options=R.RuleOptions(bonus_is_the_gift=False))
    t.apply(play(G3[0]))
    t.apply(seat(1))
    assert S.A_BONUS in t.legal_actions() and play(G2[0]) not in t.legal_actions()


def test_g2_3_never_to_yourself_nor_to_an_eliminated_player():
    t = position(players=4, hands=[[G2[0]], [], [], []], alive=[True, True, False, True], pile=G1[:2])
    t.apply(play(G2[0]))
    assert t.to_move() == (0, S.D_TARGET)
    assert t.legal_actions() == [seat(1), seat(3)]


def test_g2_4_zero_cards_then_the_turn_ends_by_drawing():
    t = position(hands=[[G2[0]], [], []], pile=[G1[0], G1[1]])
    t.apply(S.A_END)
    assert t.hands[0] == sorted([G2[0], G1[1]]) and t.pile == [G1[0]]
    assert t.to_move() == (1, S.D_MAIN)


def test_g2_5_empty_pile_takes_the_septic_discard_shuffled():
    t = position(hands=[[], [], []], pile=[], discard=G1[:3])
    t.apply(S.A_END)
    assert len(t.hands[0]) == 1 and len(t.pile) == 2 and t.discard == []
    assert sorted(t.hands[0] + t.pile) == G1[:3]
    # the order: Fisher-Yates of the discard on the deck stream, the last card drawn
    order = list(G1[:3])
    G.shuffle_in_place(order, rng.Stream(0, 0, S.STREAM_DECK))
    assert t.hands[0] == [order[-1]]
    t = position(hands=[[], [], []], pile=[], discard=[])
    t.apply(S.A_END)
    assert t.hands[0] == [] and t.to_move() == (1, S.D_MAIN)


def test_g2_6_played_cards_go_to_the_septic_discard():
    t = position(hands=[[MOURNING[0], USELESS[0]], [], []], pile=G1[:3])
    t.apply(play(MOURNING[0]))
    assert MOURNING[0] in t.discard and USELESS[0] in t.discard


# ---------------------------------------------------------------- G3 gauges, elimination, victory


def test_g3_1_a_gift_fills_the_gauge_of_its_target():
    t = position(hands=[[G3[0]], [], []], pile=G1[:2])
    t.apply(play(G3[0]))
    t.apply(seat(2))
    assert [t.gauge_total(s) for s in range(3)] == [0, 0, 3]
    assert t.observe(1).gauges[2] == ((G3[0], 3, (G3[0],), ()),)


def test_g3_2_eliminated_at_ten_unless_they_defend():
    t = position(hands=[[G3[0]], [], []], gauges=[[], [G4[0], G3[1]], []], pile=G1[:2])
    t.apply(play(G3[0]))
    t.apply(seat(1))
    assert not t.alive[1] and t.eliminated == [1] and not t.is_over()
    t = position(hands=[[G3[0]], [RAIE[0]], []], gauges=[[], [G4[0], G3[1]], []], pile=G1[:2])
    t.apply(play(G3[0]))
    t.apply(seat(1))
    assert t.to_move() == (1, S.D_RESPOND) and t.legal_actions() == [play(RAIE[0]), S.A_PASS]
    t.apply(play(RAIE[0]))
    assert t.alive[1] and t.gauge_total(1) == 7 and {G3[0], RAIE[0]} <= set(t.discard)


@pytest.mark.parametrize("how", R.ELIMINATED_CARDS)
def test_g3_3_an_eliminated_players_gauge_and_hand_go_into_the_draw_pile(how):
    old_pile = G1[:4]
    t = position(hands=[[G5[0]], [AM1[0], USELESS[0]], []], gauges=[[], [(G4[:1], MUMMY[:1])], []],
                 pile=old_pile, options=R.RuleOptions(eliminated_cards=how))
    t.apply(play(G5[0]))
    t.apply(seat(1))
    assert not t.alive[1] and t.hands[1] == [] and t.gauges[1] == []
    assert sorted(t.pile) == sorted(old_pile + [G5[0], G4[0], MUMMY[0], AM1[0], USELESS[0]])
    assert t.discard == []
    if how == "random_positions":
        assert [c for c in t.pile if c in old_pile] == old_pile
    t = position(hands=[[G5[0]], [AM1[0], G2[0]], []], gauges=[[], [G4[0], G1[5]], []], pile=old_pile,
                 options=R.RuleOptions(eliminated_hand="gifts_only", eliminated_cards=how))
    t.apply(play(G5[0]))
    t.apply(seat(1))
    assert AM1[0] in t.discard and G2[0] in t.pile


def test_g3_4_an_eliminated_player_no_longer_plays():
    t = position(hands=[[G5[0]], [G1[0]], [G1[1]]], gauges=[[], [G4[0], G1[2]], []], pile=G2[:4])
    t.apply(play(G5[0]))
    t.apply(seat(1))
    t.apply(S.A_END)
    assert t.to_move() == (2, S.D_MAIN)
    t.apply(play(G1[1]))
    assert t.legal_actions() == [seat(0)]


def test_g3_5_the_last_player_standing_wins():
    t = position(players=2, hands=[[G3[0]], []], gauges=[[], [G4[0], G3[1]]], pile=G1[:2])
    t.apply(play(G3[0]))
    t.apply(seat(1))
    assert t.is_over() and t.legal_actions() == []
    out = t.outcome()
    assert out.winner_seat == 0 and not out.unfinished
    assert R.decode_elimination_order(out.elimination_order) == [1]


def test_g3_6_the_golden_666_eliminates_at_once():
    t = position(hands=[[GOLDEN[0]], [], []], pile=G1[:2])
    t.apply(play(GOLDEN[0]))
    t.apply(seat(2))
    assert not t.alive[2]


# ---------------------------------------------------------------- G4 INEVITABLE gifts


def test_g4_1_an_inevitable_gift_cannot_be_answered():
    defender = [RAIE[0]] + USELESS[:3]
    t = position(hands=[[INEV3[0]], defender, []], pile=G1[:2])
    t.apply(play(INEV3[0]))
    t.apply(seat(1))
    assert t.to_move() == (0, S.D_MAIN) and t.gauge_total(1) == 3 and t.hands[1] == sorted(defender)
    t = position(hands=[[INEV3[0]], defender, []], pile=G1[:2], options=R.RuleOptions(cacarma_vs_inevitable=True))
    t.apply(play(INEV3[0]))
    t.apply(seat(1))
    assert t.to_move() == (1, S.D_RESPOND) and t.legal_actions() == [S.A_CACARMA, S.A_PASS]


def test_g4_2_an_inevitable_gift_is_healed_or_removed_later():
    t = position(hands=[[AM2[0]], [], []], gauges=[[INEV2[0]], [], []], pile=G1[:2])
    t.apply(play(AM2[0]))
    t.apply(pick(INEV2[0]))
    assert t.gauges[0] == []
    t = position(hands=[[IFREN[0]], [], []], gauges=[[INEV3[0]], [], []], pile=G1[:2])
    t.apply(play(IFREN[0]))
    t.apply(pick(INEV3[0]))
    assert t.gauges[0] == [] and {IFREN[0], INEV3[0]} <= set(t.discard)


# ---------------------------------------------------------------- G5 antidotes


def playable(gauge, hand, played: int = 0) -> list[int]:
    """The cards seat 0 may play at the start of its turn with this gauge and hand (3 players)."""
    t = position(hands=[hand, [], []], gauges=[gauge, [], []], pile=GOLDEN, played=played)
    return [a - S.A_PLAY for a in t.legal_actions() if a < S.A_SEAT]


@pytest.mark.parametrize("gauge", [[G5[0]], [G4[0], G1[0]], [G3[0], G2[0]], [G1[0], G2[0], G2[1]]])
def test_g5_1_a_minus_five_heals_gifts_of_exactly_five(gauge):
    t = position(hands=[[AM5[0]], [], []], gauges=[gauge, [], []], pile=G1[6:8])
    t.apply(play(AM5[0]))
    while t.to_move()[1] == S.D_HEAL:
        t.apply(t.legal_actions()[-1])
    assert t.gauges[0] == [] and t.to_move() == (0, S.D_MAIN)
    assert set(gauge + [AM5[0]]) <= set(t.discard)


def test_g5_1_a_minus_five_cannot_heal_a_four_alone():
    assert playable([G4[0]], [AM5[0]]) == []
    assert playable([G4[0], G3[0]], [AM5[0]]) == []


def test_g5_2_a_two_is_healed_by_a_minus_two_or_two_minus_ones():
    assert playable([G2[0]], [AM2[0]]) == [AM2[0]]
    t = position(hands=[AM1[:2], [], []], gauges=[[G2[0]], [], []], pile=G1[:2])
    t.apply(play(AM1[0]))
    assert t.to_move() == (0, S.D_ANTIDOTE) and t.legal_actions() == [play(AM1[1])]   # -1 alone heals nothing
    t.apply(play(AM1[1]))
    t.apply(pick(G2[0]))
    assert t.gauges[0] == [] and t.played == 2 and set(AM1[:2] + [G2[0]]) <= set(t.discard)


def test_g5_3_antidotes_combine_and_each_counts_as_one_card():
    t = position(hands=[AM2[:2], [], []], gauges=[[G4[0]], [], []], pile=G1[:2])
    t.apply(play(AM2[0]))
    t.apply(play(AM2[1]))
    t.apply(pick(G4[0]))
    assert t.gauges[0] == [] and t.played == 2 and t.counts[E.ANTIDOTE] == 2
    assert playable([G4[0]], AM2[:2], played=2) == []          # one card left: a 4 needs two -2
    # three antidotes at most, one heal may take several gifts
    t = position(hands=[AM1[:3], [], []], gauges=[[G1[0], G2[0]], [], []], pile=G1[5:7])
    t.apply(play(AM1[0]))
    t.apply(play(AM1[1]))
    assert S.A_PASS in t.legal_actions()          # -2 heals the 2 ...
    t.apply(play(AM1[2]))                         # ... or a third -1 heals 1 + 2
    assert t.to_move()[1] == S.D_HEAL
    t.apply(pick(G1[0]))
    t.apply(pick(G2[0]))
    assert t.gauges[0] == [] and t.played == 3


def test_g5_4_healed_gifts_and_the_antidotes_go_to_the_septic_discard():
    t = position(hands=[[AM5[0]], [], []], gauges=[[G3[0], G2[0]], [], []], pile=G1[:2])
    t.apply(play(AM5[0]))
    t.apply(pick(G3[0]))
    t.apply(pick(G2[0]))
    assert sorted(t.discard) == sorted([G3[0], G2[0], AM5[0]])


def test_g5_5_a_trick_raised_gift_needs_both_values():
    gauge = [(G3[:1], GRACULA[:1])]        # 3 + 2
    assert playable(gauge, [AM2[0]]) == [] and playable(gauge, [AM5[0]]) == [AM5[0]]
    t = position(hands=[[AM5[0]], [], []], gauges=[gauge, [], []], pile=G1[:2])
    t.apply(play(AM5[0]))
    t.apply(pick(G3[0]))
    assert t.gauges[0] == [] and sorted(t.discard) == sorted([G3[0], GRACULA[0], AM5[0]])


# ---------------------------------------------------------------- G6 tricks


def test_g6_1_tricks_only_on_your_turn():
    t = position(hands=[[G2[0]], [GRACULA[0], RAIE[0]], []], gauges=[[G1[0]], [], []], pile=G1[2:4])
    t.apply(play(G2[0]))
    t.apply(seat(1))
    assert t.to_move() == (1, S.D_RESPOND) and play(GRACULA[0]) not in t.legal_actions()
    t.apply(S.A_PASS)
    t.apply(S.A_END)
    assert t.to_move() == (1, S.D_MAIN) and play(GRACULA[0]) in t.legal_actions()
    # a raise Trick needs a gift in another player's gauge
    assert playable([G1[0]], [GRACULA[0]]) == []


def test_g6_2_a_raise_trick_sits_on_a_gift_and_raises_it():
    t = position(hands=[[MUMMY[0]], [], []], gauges=[[], [G4[0], G2[0]], [G1[0]]], pile=G1[2:4])
    t.apply(play(MUMMY[0]))
    assert t.legal_actions() == [seat(1), seat(2)]
    t.apply(seat(1))
    assert t.legal_actions() == sorted([pick(G4[0]), pick(G2[0])])
    t.apply(pick(G2[0]))
    assert t.entry(1, G2[0]).tricks == [MUMMY[0]] and t.gauge_total(1) == 9
    t = position(hands=[[MUMMY[0]], [], []], gauges=[[], [G4[0], G3[0]], []], pile=G1[2:4])
    t.apply(play(MUMMY[0]))
    t.apply(seat(1))
    t.apply(pick(G3[0]))
    assert not t.alive[1]                          # 4 + 3 + 3 = 10


def test_g6_3_tricks_leave_with_their_gift():
    t = position(hands=[[IFREN[0]], [], []], gauges=[[(G2[:1], FIRST_AID[:1] + GRACULA[:1]), G1[0]], [], []],
                 pile=G1[2:4])
    t.apply(play(IFREN[0]))
    t.apply(pick(G2[0]))
    assert [e.key for e in t.gauges[0]] == [G1[0]]
    assert sorted(t.discard) == sorted([G2[0], FIRST_AID[0], GRACULA[0], IFREN[0]])


def test_g6_4_mugging_discards_one_card_to_take_one_blind():
    victim = [G2[0], AM1[0], G4[0]]
    t = position(hands=[[MUGGING[0], USELESS[0], G1[0]], victim, [G1[1]]], pile=G1[2:4], seed=5, index=9)
    t.apply(play(MUGGING[0]))
    assert t.legal_actions() == [seat(1), seat(2)]
    t.apply(seat(1))
    assert t.to_move() == (0, S.D_DISCARD) and t.legal_actions() == [pick(G1[0]), pick(USELESS[0])]
    t.apply(pick(USELESS[0]))
    taken = sorted(victim)[rng.Stream(5, 9, S.STREAM_DECK).below(3)]
    assert taken in t.hands[0] and taken not in t.hands[1] and len(t.hands[1]) == 2
    assert {MUGGING[0], USELESS[0]} <= set(t.discard)
    # it needs another card to pay with, and a victim holding a card
    assert playable([], [MUGGING[0]]) == []


@pytest.mark.parametrize("cost", R.MUGGING_COST)
def test_g6_4_mugging_cost_always_or_only_if_a_card_is_taken(cost):
    """Option mugging_cost: "always" pays even when Mugging is cancelled; "if_taken" sets the card aside
    and gives it back when a riposte (or Cacarma) cancels the Mugging."""
    opts = R.RuleOptions(mugging_cost=cost)
    t = position(hands=[[MUGGING[0], USELESS[0], G1[0]], [RAIE[0], G2[0]], [G1[1]]], pile=G1[2:4], options=opts)
    t.apply(play(MUGGING[0]))
    t.apply(seat(1))
    t.apply(pick(USELESS[0]))
    assert USELESS[0] not in t.hands[0] and (USELESS[0] in t.discard) == (cost == "always")
    assert t.to_move() == (1, S.D_RESPOND)
    t.apply(play(RAIE[0]))                         # cancelled: nothing is taken
    assert t.hands[1] == [G2[0]] and MUGGING[0] in t.discard
    if cost == "always":
        assert t.hands[0] == [G1[0]] and USELESS[0] in t.discard
    else:
        assert t.hands[0] == sorted([G1[0], USELESS[0]]) and USELESS[0] not in t.discard
    # effective: the cost is paid either way, before the card is taken
    t = position(hands=[[MUGGING[0], USELESS[0], G1[0]], [G2[0]], [G1[1]]], pile=G1[2:4], options=opts,
                 log=True)
    t.apply(play(MUGGING[0]))
    t.apply(seat(1))
    t.apply(pick(USELESS[0]))
    assert t.hands[0] == sorted([G1[0], G2[0]]) and t.hands[1] == [] and t.discard == [USELESS[0], MUGGING[0]]
    assert "refund" not in [e["action"] for e in t.events]


@pytest.mark.parametrize("take", R.MUGGING_TAKE)
def test_g6_4_mugging_takes_blind_or_the_card_the_mugger_chooses(take):
    """Option mugging_take: "blind" draws from the deck stream; "chosen" asks the mugger (D_TAKE) among
    the victim's cards, and the non-random policies take by ``take_rank``."""
    victim = [G5[0], AM1[0], USELESS[1], RAIE[0], MOURNING[0]]
    opts = R.RuleOptions(mugging_take=take)
    t = position(hands=[[MUGGING[0], USELESS[0], G1[0]], victim, [G1[1]]], pile=G1[2:4], options=opts,
                 seed=5, index=9)
    t.apply(play(MUGGING[0]))
    t.apply(seat(1))
    t.apply(pick(USELESS[0]))
    t.apply(S.A_PASS)                              # seat 1 holds a riposte and lets the Mugging act
    if take == "blind":
        taken = sorted(victim)[rng.Stream(5, 9, S.STREAM_DECK).below(5)]
        assert taken in t.hands[0] and t.to_move() == (0, S.D_MAIN)
        return
    assert t.to_move() == (0, S.D_TAKE) and t.legal_actions() == sorted(pick(c) for c in victim)
    view = t.observe(0)
    ranked = [RP.make(name).act(view, t.legal_actions(), rng.Stream(0, 0, 1)) for name in
              ("leader", "weakest_link", "spread", "defensive")]
    assert ranked == [pick(RAIE[0])] * 4            # a riposte first
    order = sorted(victim, key=lambda c: RP.take_rank(DECK_CT, c))
    assert order == [RAIE[0], AM1[0], G5[0], MOURNING[0], USELESS[1]]
    t.apply(pick(AM1[0]))
    assert AM1[0] in t.hands[0] and AM1[0] not in t.hands[1] and t.to_move() == (0, S.D_MAIN)


def test_g6_5_day_of_mourning_trades_useless_gifts_for_cards():
    t = position(hands=[[MOURNING[0]] + USELESS[:2] + [G1[0]], [], []], pile=[G2[0], G2[1], G3[0]])
    t.apply(play(MOURNING[0]))
    assert t.hands[0] == sorted([G1[0], G3[0], G2[1]]) and t.pile == [G2[0]]
    assert set(USELESS[:2] + [MOURNING[0]]) <= set(t.discard)
    assert MOURNING[0] not in playable([], [MOURNING[0], G1[0]])      # nothing to mourn without a Useless Gift


# ---------------------------------------------------------------- G7 defenses and ripostes


def test_g7_1_a_defense_is_played_on_your_turn():
    t = position(hands=[[G2[0]], [IFREN[0]], []], gauges=[[], [G1[0]], []], pile=G1[2:4])
    t.apply(play(G2[0]))
    t.apply(seat(1))
    assert t.to_move() == (0, S.D_MAIN)              # Ifren is no riposte: no window
    t.apply(S.A_END)
    assert play(IFREN[0]) in t.legal_actions()
    t.apply(play(IFREN[0]))
    assert t.legal_actions() == sorted([pick(G1[0]), pick(G2[0])])
    assert playable([], [IFREN[0]]) == []          # nothing to get rid of


def test_g7_2_a_riposte_answers_the_card_played_on_you():
    t = position(hands=[[GRACULA[0]], [RAIE[0]], []], gauges=[[], [G1[0]], []], pile=G1[2:4])
    t.apply(play(GRACULA[0]))
    t.apply(seat(1))
    t.apply(pick(G1[0]))
    assert t.to_move() == (1, S.D_RESPOND)
    view = t.observe(1)
    assert view.pending == (GRACULA[0], 0, 1, 2)
    t.apply(play(RAIE[0]))
    assert t.entry(1, G1[0]).tricks == [] and {GRACULA[0], RAIE[0]} <= set(t.discard)
    assert t.ripostes == 1 and t.played == 1
    # passing lets the card act; a riposte is never played on your own turn's main step
    t = position(hands=[[GRACULA[0], RAIE[1]], [RAIE[0]], []], gauges=[[], [G1[0]], []], pile=G1[2:4])
    assert play(RAIE[1]) not in t.legal_actions()
    t.apply(play(GRACULA[0]))
    t.apply(seat(1))
    t.apply(pick(G1[0]))
    t.apply(S.A_PASS)
    assert t.gauge_total(1) == 3


def test_g7_3_a_riposte_on_your_own_turn_does_not_count(tmp_path):
    phoque = ids("Useless Gift")[-1] + 1          # the first added copy
    opts = R.RuleOptions(deck=chain_deck(tmp_path), riposte_chains=True)
    t = position(hands=[[G3[0], phoque], [RAIE[0]], []], pile=G1[:2], options=opts)
    t.apply(play(G3[0]))
    t.apply(seat(1))
    t.apply(play(RAIE[0]))
    assert t.to_move() == (0, S.D_RESPOND) and t.legal_actions() == [play(phoque), S.A_PASS]
    t.apply(play(phoque))
    assert t.gauge_total(1) == 3 and t.played == 1 and t.ripostes == 2
    assert t.to_move() == (0, S.D_MAIN)


def test_g7_4_ripostes_are_useless_against_inevitable_gifts():
    t = position(hands=[[INEV2[0]], [RAIE[0]], []], pile=G1[:2])
    t.apply(play(INEV2[0]))
    t.apply(seat(1))
    assert t.to_move() == (0, S.D_MAIN) and RAIE[0] in t.hands[1] and t.gauge_total(1) == 2


def test_g7_5_riposte_chains_only_with_the_option(tmp_path):
    path = chain_deck(tmp_path)
    phoques = [ids("Useless Gift")[-1] + 1 + i for i in range(4)]
    hands = [[G3[0], phoques[0]], [RAIE[0], phoques[1]], []]
    t = position(hands=hands, pile=G1[:2], options=R.RuleOptions(deck=path))
    t.apply(play(G3[0]))
    t.apply(seat(1))
    t.apply(play(RAIE[0]))
    assert t.to_move() == (0, S.D_MAIN) and t.gauge_total(1) == 0     # no chain: the riposte stands
    t = position(hands=hands, pile=G1[:2], options=R.RuleOptions(deck=path, riposte_chains=True))
    t.apply(play(G3[0]))
    t.apply(seat(1))
    t.apply(play(RAIE[0]))
    t.apply(play(phoques[0]))
    assert t.to_move() == (1, S.D_RESPOND)          # "You can only riposte to the last card played"
    assert t.legal_actions() == [play(phoques[1]), S.A_PASS]
    t.apply(play(phoques[1]))                      # three answers: the gift is cancelled
    assert t.gauge_total(1) == 0 and G3[0] in t.discard and t.ripostes == 3


# ---------------------------------------------------------------- G8 useless gifts and the bonus rules


def test_g8_1_useless_gifts_cannot_be_given():
    t = position(hands=[USELESS[:1] + [G1[0]], [], []], pile=G1[2:4])
    assert play(USELESS[0]) not in t.legal_actions() and S.A_BONUS not in t.legal_actions()


@pytest.mark.parametrize("reading", R.CACARMA)
def test_g8_2_three_useless_gifts_make_a_cacarma(reading):
    t = position(hands=[[G4[0]], USELESS[:4], []], gauges=[[G4[1], G2[0]], [], []], pile=G1[:2],
                 options=R.RuleOptions(cacarma=reading))
    t.apply(play(G4[0]))
    t.apply(seat(1))
    assert t.to_move() == (1, S.D_RESPOND) and t.legal_actions() == [S.A_CACARMA, S.A_PASS]
    t.apply(S.A_CACARMA)
    assert t.hands[1] == [USELESS[3]] and set(USELESS[:3]) <= set(t.discard) and t.gauge_total(1) == 0
    assert t.cacarmas == 1
    if reading == "cancel":
        assert G4[0] in t.discard and t.alive[0]
    else:                                          # back to its giver: 6 + 4 = 10 eliminates the giver
        assert not t.alive[0] and t.to_move() == (1, S.D_MAIN)
    t = position(hands=[[GRACULA[0]], USELESS[:3], []], gauges=[[], [G1[0]], []], pile=G1[2:4])
    t.apply(play(GRACULA[0]))
    t.apply(seat(1))
    t.apply(pick(G1[0]))
    assert S.A_CACARMA in t.legal_actions()        # against a Trick too


def test_g8_3_two_useless_gifts_make_a_one_point_inevitable_gift():
    t = position(hands=[USELESS[:2] + [G1[0]], [RAIE[0]], []], pile=G1[2:4])
    t.apply(S.A_BONUS)
    t.apply(seat(1))
    assert t.to_move() == (0, S.D_MAIN) and t.played == 2 and t.bonus_gifts == 1
    assert t.gauge_total(1) == 1 and t.gauges[1][0].cards == USELESS[:2]
    t = position(hands=[USELESS[:2], [], []], pile=G1[2:4], played=2)
    assert S.A_BONUS not in t.legal_actions()        # it counts as 2 cards


# ---------------------------------------------------------------- G9 game length


def test_g9_1_a_game_at_the_turn_cap_is_unfinished():
    t = G.Table.deal(1, 0, 3, R.RuleOptions(max_turns=2))
    t.apply(S.A_END)
    t.apply(S.A_END)
    assert t.is_over()
    out = t.outcome()
    assert out.unfinished and out.winner_seat == -1 and out.turns == 2


# ---------------------------------------------------------------- coverage, whole games, determinism


@pytest.mark.parametrize("focus_seat", ["rotate", "2"])
def test_focus_dealt_is_the_kinds_dealt_to_the_focus_seat(focus_seat):
    """``focus_dealt``: bit k set when the focus seat was dealt a card of deck kind k at set-up; plain
    ``play_chunk`` rotates the focus, ``play_chunk_sides`` and ``outcome`` follow the focus seat given."""
    policy = RP.make("leader")
    opts = R.RuleOptions(focus_seat=focus_seat)
    for index in range(5):
        fs = G.focus_seat_of(index, 4, R.focus_seat_number(opts, 4))
        t = G.Table.deal(3, index, 4, opts)
        expect = sum(1 << int(k) for k in set(KIND[t.hands[fs]]))
        assert t.dealt[fs] == expect and bin(expect).count("1") <= R.HAND_AT_SETUP
        G.play_game(t, [policy] * 4, 3, index)
        assert t.outcome().focus_dealt == expect
        assert t.outcome(-1).focus_dealt == G.Table.deal(3, index, 4).dealt[index % 4]
    plain = G.play_chunk(3, 0, 5, 4, opts, policy)
    sides = G.play_chunk_sides(3, 0, 5, 4, opts, policy, policy, -1)
    assert plain["focus_dealt"].dtype == np.int64 and (plain["focus_dealt"] == sides["focus_dealt"]).all()


def test_the_readings_the_engine_fixes_quote_their_sentence():
    doc = " ".join(re.sub(r"\n\s*>", " ", DOC.read_text(encoding="utf-8")).split())   # quotes span lines
    for sentence in ("A Defense card serves to protect you", "Playing a Riposte to defend yourself",
                     "eliminated immediately", "a gift cannot be refused",
                     "You can play 2 Antidotes at the same time or even 3",
                     "A Trick card is meant to destabilize other players",
                     "discard one card from your hand to take a card from another player's hand"):
        assert sentence in doc, sentence
    for option in ("mugging_cost", "mugging_take"):
        assert f"`{option}`" in doc


def test_every_numbered_rule_has_a_test():
    numbered = set(re.findall(r"^- \*\*G(\d+)\.(\d+)\*\*", DOC.read_text(encoding="utf-8"), re.M))
    assert len(numbered) >= 30
    tested = {tuple(m.groups()) for name in globals() if (m := re.match(r"test_g(\d+)_(\d+)_", name))}
    assert numbered - tested == set()
    assert tested - numbered == set()


@pytest.mark.parametrize("name", list(P.POLICIES))
def test_whole_games_of_every_policy_end(name):
    policy = RP.make(name)
    for players in range(2, 7):
        cols = G.play_chunk(11, 0, 6, players, None, policy)
        assert set(cols) == set(R.OUTCOME_COLUMNS)
        for column, dtype in R.OUTCOME_DTYPES.items():
            assert cols[column].dtype == np.dtype(dtype)
        for i in range(6):
            order = R.decode_elimination_order(cols["elimination_order"][i])
            if cols["unfinished"][i]:
                assert cols["winner_seat"][i] == -1
            else:
                assert 0 <= cols["winner_seat"][i] < players and len(order) == players - 1
                assert sorted(order + [cols["winner_seat"][i]]) == list(range(players))


def test_mixed_policies_and_every_option_reading_end():
    policies = [RP.make(n) for n in ("leader", "random", "defensive", "spread", "weakest_link")]
    options = R.RuleOptions(eliminated_cards="random_positions", eliminated_hand="gifts_only", cacarma="return",
                            cacarma_vs_inevitable=True, bonus_is_the_gift=False)
    for i in range(8):
        out = G.play(2, i, 5, options, policies).outcome()
        assert out.unfinished or out.winner_seat >= 0


def test_clone_continues_the_same_game():
    t = G.Table.deal(4, 2, 4)
    policy = RP.make("random")
    streams = [rng.Stream(4, 2, S.STREAM_POLICY + s) for s in range(4)]
    for _ in range(40):
        s, _ = t.to_move()
        t.apply(policy.act(t.observe(s), t.legal_actions(), streams[s]))
    copy = t.clone()
    assert copy.observe(1) == t.observe(1) and copy.pile == t.pile
    leader = RP.make("leader")
    G.play_game(t, [leader] * 4, 9, 9)
    G.play_game(copy, [leader] * 4, 9, 9)
    assert t.outcome() == copy.outcome()


def test_replay_is_deterministic_and_renders():
    policy = RP.make("defensive")
    a = G.replay_events(8, 3, 4, None, policy)
    assert a == G.replay_events(8, 3, 4, None, policy)
    assert G.play(8, 3, 4, None, policy).outcome() == G.play(8, 3, 4, None, policy, log=True).outcome()
    log = turnlog.text(a)
    assert log.startswith("Cursed Gifts · seed 8 · game 3") and "turn   1 · seat 0" in log
    assert set(e["action"] for e in a) <= set(turnlog.EVENTS)


def test_a_view_holds_only_what_its_seat_may_know():
    a = position(hands=[[G1[0]], [G2[0], AM1[0]], [G3[0]]], pile=[G4[0], G5[0]])
    b = position(hands=[[G1[0]], [G3[1], IFREN[0]], [G2[1]]], pile=[G5[0], G4[0]])
    assert a.observe(0) == b.observe(0) and a.observe(1) != b.observe(1)


def test_illegal_actions_are_refused():
    t = position(hands=[[USELESS[0]], [], []], pile=G1[:2])
    with pytest.raises(G.IllegalDecision, match="legal: end"):
        t.apply(play(USELESS[0]))


def test_every_card_is_somewhere_once_and_living_gauges_stay_under_ten(tmp_path):
    options = R.RuleOptions(deck=chain_deck(tmp_path), riposte_chains=True, cacarma="return",
                            cacarma_vs_inevitable=True, eliminated_cards="random_positions")
    for players, i in ((2, 0), (4, 1), (6, 2)):
        for opts in (None, options):
            t = G.Table.deal(6, i, players, opts)
            policies = [RP.make("random"), RP.make("leader")] * 3
            streams = [rng.Stream(6, i, S.STREAM_POLICY + s) for s in range(players)]
            while not t.is_over():
                s, kind = t.to_move()
                t.apply(policies[s].act(t.observe(s), t.legal_actions(), streams[s]))
                where = [c for h in t.hands for c in h] + [c for g in t.gauges for e in g for c in e.all_cards()]
                where += t.pile + t.discard
                assert len(set(where)) == len(where)
                if t.is_over() or t.to_move()[1] == S.D_MAIN:   # no card is half-way through being played
                    assert sorted(where) == list(range(t.deck.size))
                assert all(t.gauge_total(q) < R.GAUGE_LIMIT for q in range(players) if t.alive[q])


# ---------------------------------------------------------------- the policies' decision rules


def first_choices(name: str, t: G.Table, steps: int) -> list[int]:
    """The first ``steps`` actions policy ``name`` takes at every seat from position ``t``."""
    policy, chosen = RP.make(name), []
    for _ in range(steps):
        s, _ = t.to_move()
        chosen.append(policy.act(t.observe(s), t.legal_actions(), rng.Stream(0, 0, 1)))
        t.apply(chosen[-1])
    return chosen


def target_table(hand1=(G1[1],), own=(G1[0],), hand0=(G2[0], G4[0], AM1[0])) -> G.Table:
    """Seat 0 holds a 2, a 4 and a -1 with a 1 in its gauge; seat 1: gauge 5, 1 card; seat 2: gauge 3, 3
    cards; seat 3: gauge 0, 2 cards."""
    return position(players=4, hands=[list(hand0), list(hand1), G1[2:5], G1[5:7]],
                    gauges=[list(own), [G5[0]], [G3[0]], []], pile=G2[3:6])


@pytest.mark.parametrize("name, target", [("leader", 1), ("weakest_link", 3), ("spread", 3), ("defensive", 1)])
def test_policies_give_their_biggest_gift_to_their_target(name, target):
    # seat 1 holds 3 cards here, so seat 3 (2 cards) is the weakest link; seat 1 has the fullest gauge
    t = target_table(hand1=(G1[7], G2[6], G2[7]))
    assert first_choices(name, t, 2) == [play(G4[0]), seat(target)]


def test_defensive_heals_first_and_leader_attacks_first():
    hand0 = (G2[0], G4[0], AM1[0], AM1[1])
    t = target_table(own=(G1[0], G3[1]), hand0=hand0)           # own gauge 4: defensive's heal_at
    assert first_choices("defensive", t, 1) == [play(AM1[0])]
    t = target_table(own=(G1[0], G3[1]), hand0=hand0)
    assert first_choices("leader", t, 1) == [play(G4[0])]


def test_policies_answer_by_the_value_a_card_adds():
    def respond(name: str, gift: int) -> int:
        t = position(hands=[[gift], [RAIE[0]], []], pile=G5[:2])
        t.apply(play(gift))
        t.apply(seat(1))
        return RP.make(name).act(t.observe(1), t.legal_actions(), rng.Stream(0, 0, 1))
    assert respond("leader", G1[0]) == play(RAIE[0])
    assert respond("defensive", G2[0]) == S.A_PASS
    assert respond("defensive", G3[0]) == S.A_PASS             # its one riposte is kept (keep = 1) ...
    assert respond("defensive", GOLDEN[0]) == play(RAIE[0])    # ... for a card that would eliminate it
    params = P.POLICIES["defensive"].param_vector({"keep": 0})
    t = position(hands=[[G3[0]], [RAIE[0]], []], pile=G5[:2])
    t.apply(play(G3[0]))
    t.apply(seat(1))
    assert RP.make("defensive", params).act(t.observe(1), t.legal_actions(), rng.Stream(0, 0, 1)) == play(RAIE[0])
