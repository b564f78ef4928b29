"""Curses & Covens information sets (docs/rules/covens.md, "What each side may know"): a View holds only
what its side may know, so positions that differ only in cards hidden from a side look the same to it,
and a policy cannot read another hand or the deck."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens.reference import Table, play_chunk

RP = importlib.import_module("cursedsim.games.covens.reference_policies")

L0, L1, N0, N1, C0 = 0, 1, 3, 4, 6
WILD, FAKE = R.WILD, R.FAKE
F = list(range(R.FIRST_FOLK, R.FIRST_FOLK + R.N_FOLK))
NO_SHUFFLE = R.RuleOptions(shuffle_timing="never")


def arrival(deck, woods) -> Table:
    """Census done (hands revealed), Arrival about to deal ``deck``'s top cards to towns 0, 1, 2."""
    return Table.from_position(players=4, hands=[[F[0]], [F[1]], [F[2]]], deck=deck, woods=woods,
                               phase=S.PH_ARRIVAL, hat=0, options=NO_SHUFFLE)


def test_a_town_sees_the_same_whatever_the_others_received_and_the_woods_hold():
    a = arrival([L0, N0, C0, F[5], F[6]], woods=F[7])
    b = arrival([L0, WILD, FAKE, F[6], F[5]], woods=F[8])
    assert a.hands[1] != b.hands[1] and a.woods != b.woods and a.deck != b.deck
    assert a.observe("town", 0) == b.observe("town", 0)
    assert a.observe("town", 1) != b.observe("town", 1)        # its own card differs
    assert a.observe("hunter") != b.observe("hunter")          # he dealt them


def test_the_hunter_sees_the_same_whichever_card_moved_in_travel():
    def given(card) -> Table:
        t = Table.from_position(players=4, hands=[[L0, F[0]], [F[1]], [F[2]]], deck=[F[3], F[4]], woods=F[9],
                                phase=S.PH_TRAVEL, hat=0)
        t.apply(S.give(card, 1))
        return t

    a, b = given(L0), given(F[0])
    assert a.hands != b.hands
    assert a.observe("hunter") == b.observe("hunter")
    assert a.observe("town", 2) == b.observe("town", 2)        # a third town sees only that a card moved
    assert a.observe("town", 1) != b.observe("town", 1)        # the receiver knows


def test_the_hunter_sees_the_same_whatever_order_the_unseen_deck_has():
    a = Table.from_position(players=5, hands=[[F[0]], [F[1]], [F[2]], [F[3]]], deck=[L0, N0, C0, F[4]],
                            woods=F[9], phase=S.PH_HUNT, hat=0)
    b = Table.from_position(players=5, hands=[[F[0]], [F[1]], [F[2]], [F[3]]], deck=[F[4], C0, L0, N0],
                            woods=F[9], phase=S.PH_HUNT, hat=0)
    assert a.observe("hunter") == b.observe("hunter")
    assert all(a.observe("town", t) == b.observe("town", t) for t in range(4))


def test_views_hold_no_other_hand_nor_the_deck():
    t = Table.deal(1, 2, 5)
    for view in (t.observe("hunter"), t.observe("town", 0), t.observe("town", -1)):
        for name in ("hands", "deck", "woods", "deck_rng"):
            with pytest.raises(AttributeError):
                getattr(view, name)
        with pytest.raises(dataclasses.FrozenInstanceError):
            view.round = 9
    with pytest.raises(AttributeError):
        t.observe("hunter").hand                               # the hunter has no hand
    with pytest.raises(AttributeError):
        t.observe("town", -1).hand                             # the census view is the group's


class Peeker:
    """A town policy that tries to read another town's hand."""

    label = "peeker"

    def act(self, view, legal, rng):
        return legal[0] if view.hands[0] else legal[-1]


class DeckReader:
    """A hunter policy that tries to read the deck order."""

    label = "deck_reader"

    def act(self, view, legal, rng):
        return S.A_YES if view.deck[0] < R.WILD else legal[-1]


def test_a_policy_reading_what_its_side_may_not_know_fails():
    with pytest.raises(AttributeError, match="hands"):
        play_chunk(0, 0, 1, 4, R.RuleOptions(), RP.make("hunter", "random"), Peeker())
    with pytest.raises(AttributeError, match="deck"):
        play_chunk(0, 0, 1, 4, R.RuleOptions(), DeckReader(), RP.make("town", "random"))


def test_darkness_leaves_the_hunter_no_travel_log():
    t = Table.from_position(players=4, hands=[[N0, N1, F[0]], [F[1]], [F[2]]], deck=[F[3], F[4], F[5]],
                            woods=F[9], faces=(0, 1, 0), options=NO_SHUFFLE)
    t.apply(S.A_SPELL + 1)
    assert t.active == R.DARKNESS
    t.apply(S.A_NO)
    t.apply(S.A_TOWN + 0)
    t.apply(S.A_SWAP + F[0])
    t.apply(S.A_SWAP + F[1])
    assert t.travel_log and t.observe("town", 2).travel_log == tuple(t.travel_log)
    assert t.observe("hunter").travel_log == () and t.observe("hunter").woods_known == -1


def test_despair_leaves_the_hunter_no_announcement():
    t = Table.from_position(players=4, hands=[[C0, 7, F[0]], [F[1]], [F[2]]], deck=[F[3], F[4], F[5]],
                            woods=F[9], faces=(0, 0, 1), options=NO_SHUFFLE)
    t.apply(S.A_SPELL + 2)
    assert t.active == R.DESPAIR
    t.apply(S.A_TOWN + 1)
    assert t.observe("hunter").announced == -1
    assert t.observe("town", 0).announced == 1 and t.observe("town", -1).announced == 1
    quiet = Table.from_position(players=4, hands=[[C0, 7, F[0]], [F[1]], [F[2]]], deck=[F[3], F[4], F[5]],
                                woods=F[9], faces=(0, 0, 1), options=NO_SHUFFLE)
    quiet.apply(S.A_NO)
    quiet.apply(S.A_TOWN + 1)
    assert quiet.observe("hunter").announced == 1


def test_the_reference_policies_play_from_their_views_alone():
    """Every built-in policy plays whole games through Views (a read of a missing field would raise)."""
    for hunter in ("random", "largest_hand", "tracker"):
        for town in ("random", "coven", "bluff"):
            out = play_chunk(3, 0, 10, 5, R.RuleOptions(), RP.make("hunter", hunter), RP.make("town", town))
            assert len(out["winner"]) == 10
