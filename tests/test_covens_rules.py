"""Curses & Covens rules on the reference engine: one test per numbered rule of docs/rules/covens.md
(named after it: ``test_r4_2_...``) on hand-built tables, every option value, every spell side, the
options' validation, and whole games of every policy pairing (termination, outcome dtypes)."""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import numpy as np
import pytest

from cursedsim import rng
from cursedsim.errors import OptionError
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens import tables as TB
from cursedsim.games.covens.reference import IllegalDecision, Table, bits, play_chunk

# The package's __init__ may bind names over submodules: import the module itself.
RP = importlib.import_module("cursedsim.games.covens.reference_policies")

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules" / "covens.md"

L0, L1, L2 = 0, 1, 2
N0, N1, N2 = 3, 4, 5
C0, C1, C2 = 6, 7, 8
WILD, FAKE = R.WILD, R.FAKE
F = list(range(R.FIRST_FOLK, R.FIRST_FOLK + R.N_FOLK))   # townsfolk
RIT = [24, 25, 26]


def position(players: int = 4, **kwargs) -> Table:
    """A hand-built table (3 towns by default)."""
    return Table.from_position(players=players, **kwargs)


def opts(**kwargs) -> R.RuleOptions:
    return R.RuleOptions(**kwargs)


def kind(t: Table) -> int:
    return t.to_move()[2]


def run_until(t: Table, stop_kind: int, choose=lambda legal: legal[0], limit: int = 500) -> Table:
    """Apply ``choose(legal)`` until the pending decision is ``stop_kind`` (or the game ends)."""
    for _ in range(limit):
        if t.is_over() or kind(t) == stop_kind:
            return t
        t.apply(choose(t.legal_actions()))
    raise AssertionError(f"no {S.DECISION_NAMES[stop_kind]} decision within {limit} steps")


def first_of(*preferred):
    """A chooser playing the first of ``preferred`` that is legal, else A_NO if legal, else legal[0]."""
    def choose(legal):
        for action in preferred:
            if action in legal:
                return action
        return S.A_NO if S.A_NO in legal else legal[0]
    return choose


def set_of(*cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# ---------------------------------------------------------------- R1 set-up


def shuffled_deck(seed: int, index: int, size: int) -> list[int]:
    stream = rng.Stream(seed, index, S.STREAM_DECK)
    deck = list(range(size))
    for i in range(size - 1, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_r1_1_the_deck_holds_the_27_cards():
    t = Table.deal(3, 7, 5)
    cards = t.deck + [t.woods] + [c for h in t.hands for c in bits(h)]
    assert sorted(cards) == list(range(27))
    kinds = [int(TB.CARD_KIND[c]) for c in range(27)]
    assert [kinds.count(k) for k in range(5)] == [9, 1, 1, 13, 3]
    assert [int(TB.CARD_SUIT[c]) for c in (L0, L2, N0, N2, C0, C2)] == [0, 0, 1, 1, 2, 2]


def test_r1_2_without_rituals_the_deck_has_24_cards():
    t = Table.deal(3, 7, 5, opts(rituals=False))
    cards = t.deck + [t.woods] + [c for h in t.hands for c in bits(h)]
    assert sorted(cards) == list(range(24))
    assert t.observe("hunter").cards_in_game == (1 << 24) - 1


def test_r1_3_tiles_start_charm_side_up():
    t = Table.deal(1, 0, 4)
    view = t.observe("hunter")
    assert view.faces == (0, 0, 0)
    assert view.up_spells == (R.GROWTH, R.PASSAGE, R.NATURE_SPELL)


def test_r1_4_the_top_card_is_hidden_in_the_woods_and_the_hunter_knows_it():
    deck = shuffled_deck(5, 2, 27)
    t = Table.deal(5, 2, 6)
    assert t.woods == deck[0]
    assert t.observe("hunter").woods_known == deck[0]
    assert all(t.observe("town", town).woods_known == -1 for town in range(5))


def test_r1_5_each_town_gets_2_cards_round_robin():
    for players in (4, 5, 6):
        towns = players - 1
        deck = shuffled_deck(9, 4, 27)
        t = Table.deal(9, 4, players)
        assert t.hands == [set_of(deck[1 + u], deck[1 + towns + u]) for u in range(towns)]
        assert t.deck == deck[1 + 2 * towns:]


def test_r1_6_towns_are_served_clockwise_from_the_hunters_left():
    t = position(5, hands=[[F[0]], [F[1]], [F[2]], [F[3]]], deck=[L0, N0, C0, WILD, F[5]], woods=F[9],
                 phase=S.PH_ARRIVAL, options=opts(shuffle_timing="never"))
    assert t.hands == [set_of(F[0], L0), set_of(F[1], N0), set_of(F[2], C0), set_of(F[3], WILD)]


# ---------------------------------------------------------------- R2 census


def test_r2_1_a_town_without_cards_draws_the_top_card():
    t = position(hands=[[F[0]], [], []], deck=[F[1], F[2], F[3]], woods=F[9])
    assert t.hands == [set_of(F[0]), set_of(F[1]), set_of(F[2])]
    assert t.deck == [F[3]]
    # nothing when the deck is empty
    t = position(hands=[[F[0]], [], []], deck=[], woods=F[9])
    assert t.hands == [set_of(F[0]), 0, 0]


@pytest.mark.parametrize("hand, wins", [
    ([L0, L1, L2], True), ([L0, L1, WILD], True), ([C0, WILD, C2, F[0]], True), ([N0, N1, FAKE], False),
    ([L0, N0, C0], False), ([L0, L1, F[0], F[1]], False)])
def test_r2_2_three_witches_of_a_suit_revealed_win_a_coven(hand, wins):
    t = position(hands=[[F[5]], hand, [F[6]]], deck=[F[7], F[8]], woods=F[9])
    assert t.is_over() == wins
    if wins:
        assert (t.winner, t.win_type) == (R.WINNER_TOWN, R.WIN_COVEN)
        assert t.outcome().rounds == 1
    else:
        assert t.census == t.hands


# (spell_icons, darkness_backs, tile, face, spell, hand that casts it, hand that does not)
SIDES = [
    ("charms_mixed", "passage", 0, 0, R.GROWTH, [L0, N0], [L0, L1]),
    ("charms_mixed", "passage", 1, 0, R.PASSAGE, [N0, C0], [N0, N1]),
    ("charms_mixed", "passage", 2, 0, R.NATURE_SPELL, [C0, L0], [C0, C1]),
    ("charms_mixed", "passage", 0, 1, R.DOOM, [L0, L1], [L0, N0]),
    ("charms_mixed", "passage", 1, 1, R.DARKNESS, [N0, N1], [N0, C0]),
    ("charms_mixed", "passage", 2, 1, R.DESPAIR, [C0, C1], [C0, L0]),
    ("charms_mixed", "nature", 1, 1, R.DESPAIR, [C0, C1], [N0, N1]),
    ("charms_mixed", "nature", 2, 1, R.DARKNESS, [N0, N1], [C0, C1]),
    ("curses_mixed", "passage", 0, 0, R.GROWTH, [L0, L1], [L0, N0]),
    ("curses_mixed", "passage", 1, 0, R.PASSAGE, [N0, N1], [N0, C0]),
    ("curses_mixed", "passage", 2, 0, R.NATURE_SPELL, [C0, C1], [C0, L0]),
    ("curses_mixed", "passage", 0, 1, R.DOOM, [L0, N0], [L0, L1]),
    ("curses_mixed", "passage", 1, 1, R.DARKNESS, [N0, C0], [N0, N1]),
    ("curses_mixed", "passage", 2, 1, R.DESPAIR, [C0, L0], [C0, C1]),
    ("all_mixed", "passage", 0, 1, R.DOOM, [L0, N0], [L0, L1]),
    ("all_mixed", "passage", 1, 1, R.DARKNESS, [N0, C0], [N0, N1]),
    ("all_mixed", "passage", 2, 1, R.DESPAIR, [C0, L0], [C0, C1]),
    ("all_mixed", "nature", 1, 1, R.DESPAIR, [N0, C0], [C0, L0]),
    ("all_mixed", "nature", 2, 1, R.DARKNESS, [C0, L0], [N0, C0]),
]


@pytest.mark.parametrize("icons, backs, tile, face, spell, casts, fails", SIDES)
def test_r2_3_a_revealed_pair_matching_a_face_up_side_casts_it(icons, backs, tile, face, spell, casts, fails):
    faces = [0, 0, 0]
    faces[tile] = face
    options = opts(spell_icons=icons, darkness_backs=backs)
    t = position(hands=[[F[0], F[1]], casts, [F[2]]], deck=[F[3], F[4]], woods=F[9], faces=tuple(faces),
                 options=options)
    assert kind(t) == S.D_SPELL
    assert S.A_SPELL + tile in t.legal_actions() and t.legal_actions()[-1] == S.A_NO
    assert t.spell_of(tile) == spell
    t.apply(S.A_SPELL + tile)
    assert t.active == spell and t.spells[spell] == 1
    assert t.hands[1] == set_of(*casts)                      # the casting witches stay in hand
    assert kind(t) == S.D_ANNOUNCE                           # one spell per round: no second offer
    other = position(hands=[[F[0], F[1]], fails, [F[2]]], deck=[F[3], F[4]], woods=F[9], faces=tuple(faces),
                     options=options)
    assert S.A_SPELL + tile not in other.legal_actions()


def test_r2_3_no_decision_without_a_castable_side_and_one_witch_fills_one_icon():
    t = position(hands=[[L0, F[0]], [N0, F[1]], [C0]], deck=[F[3]], woods=F[9], faces=(1, 1, 1))
    assert kind(t) == S.D_ANNOUNCE                            # doom needs 2 love: one card cannot fill both
    t = position(hands=[[L0], [WILD, F[1]], [C0]], deck=[F[3]], woods=F[9], faces=(1, 0, 0))
    assert kind(t) == S.D_ANNOUNCE                            # wild_icons="one": the wild alone is one icon
    t = position(hands=[[L0], [WILD, F[1]], [C0]], deck=[F[3]], woods=F[9], faces=(1, 0, 0),
                 options=opts(wild_icons="both"))
    assert t.legal_actions() == [S.A_SPELL + 0, S.A_SPELL + 1, S.A_SPELL + 2, S.A_NO]
    t = position(hands=[[L0, WILD], [F[0]], [C0]], deck=[F[3]], woods=F[9], faces=(1, 0, 0))
    assert S.A_SPELL + 0 in t.legal_actions()                 # wild + love: doom (love+love)


@pytest.mark.parametrize("fake_casts", [False, True])
def test_r2_3_the_fake_fills_an_icon_only_with_fake_casts(fake_casts):
    t = position(hands=[[L0, FAKE], [F[0]], [F[1]]], deck=[F[3]], woods=F[9],
                 options=opts(fake_casts=fake_casts))
    assert (kind(t) == S.D_SPELL) == fake_casts
    if fake_casts:   # love + fake: growth (love+nature) and nature (crystal+love), not passage
        assert t.legal_actions() == [S.A_SPELL + 0, S.A_SPELL + 2, S.A_NO]


@pytest.mark.parametrize("disabled", R.SPELL_NAMES)
def test_r2_3_a_disabled_spell_is_never_offered_and_the_others_are(disabled):
    """Study option disabled_spell: the named side leaves D_SPELL, every other castable side stays."""
    faces = (1, 1, 1) if disabled in ("doom", "darkness", "despair") else (0, 0, 0)
    # every suit twice in one hand: each face-up side (mixed charms, paired curses) is castable
    hands = [[L0, L1, N0, N1, C0, C1], [F[0]], [F[1]]]
    full = position(hands=hands, deck=[F[3]], woods=F[9], faces=faces)
    t = position(hands=hands, deck=[F[3]], woods=F[9], faces=faces, options=opts(disabled_spell=disabled))
    assert full.legal_actions() == [S.A_SPELL + 0, S.A_SPELL + 1, S.A_SPELL + 2, S.A_NO]
    tile = [tile for tile in range(R.N_TILES) if R.SPELL_NAMES[t.spell_of(tile)] == disabled]
    assert len(tile) == 1
    assert t.legal_actions() == [a for a in full.legal_actions() if a != S.A_SPELL + tile[0]]


def test_r2_4_the_announcement_is_heard_unless_despair():
    t = position(hands=[[F[0]], [F[1]], [F[2]]], deck=[F[3], F[4], F[5]], woods=F[9])
    t.apply(S.A_TOWN + 2)
    assert t.observe("hunter").announced == 2 and t.observe("town", 0).announced == 2
    despair = position(hands=[[C0, C1], [F[1]], [F[2]]], deck=[F[3], F[4], F[5]], woods=F[9], faces=(0, 0, 1))
    despair.apply(S.A_SPELL + 2)
    assert despair.active == R.DESPAIR
    assert despair.legal_actions() == [S.A_TOWN + 0, S.A_TOWN + 1, S.A_TOWN + 2, S.A_NO]
    despair.apply(S.A_TOWN + 1)
    assert despair.observe("hunter").announced == -1
    assert despair.observe("town", 2).announced == 1 and despair.observe("town", -1).announced == 1


def test_r2_5_the_hat_holder_travels_first():
    t = position(hands=[[F[0]], [F[1]], [F[2]]], deck=[F[3], F[4], F[5]], woods=F[9],
                 options=opts(shuffle_timing="never"))
    t.apply(S.A_NO)
    assert kind(t) == S.D_HAT and t.legal_actions() == [S.A_TOWN + u for u in range(3)]
    t.apply(S.A_TOWN + 1)
    assert t.to_move() == (S.SIDE_TOWN, 1, S.D_TRAVEL)


# ---------------------------------------------------------------- R3 arrival


def test_r3_1_one_card_to_each_town_and_the_hunter_sees_it():
    t = position(hands=[[F[0]], [F[1]], [F[2]]], deck=[L0, N0, C0, F[4]], woods=F[9], phase=S.PH_ARRIVAL,
                 options=opts(shuffle_timing="never"), hat=0)
    assert t.hands == [set_of(F[0], L0), set_of(F[1], N0), set_of(F[2], C0)]
    assert t.deck == [F[4]]
    view = t.observe("hunter")
    assert view.dealt == (set_of(L0), set_of(N0), set_of(C0))
    assert t.observe("town", 1).arrived == set_of(N0) and t.observe("town", 1).hand == set_of(F[1], N0)


def test_r3_2_with_a_ritual_the_hunter_draws_one_per_town_and_chooses():
    t = position(hands=[[F[0]], [F[1]], [F[2]]], deck=[L0, N0, C0, F[4]], woods=F[9], rituals=[RIT[0]],
                 phase=S.PH_ARRIVAL, options=opts(shuffle_timing="never"), hat=0)
    assert t.to_move() == (S.SIDE_HUNTER, -1, S.D_DEAL)
    assert t.legal_actions() == [S.A_CARD + L0, S.A_CARD + N0, S.A_CARD + C0]   # no A_NO: 3 cards, 3 towns
    view = t.observe("hunter")
    assert view.drawn == set_of(L0, N0, C0) and view.about == 0
    t.apply(S.A_CARD + C0)
    assert t.legal_actions() == [S.A_CARD + L0, S.A_CARD + N0]
    t.apply(S.A_CARD + L0)
    assert t.legal_actions() == [S.A_CARD + N0]
    t.apply(S.A_CARD + N0)
    assert t.hands == [set_of(F[0], C0), set_of(F[1], L0), set_of(F[2], N0)]
    assert t.deck == [F[4]]


@pytest.mark.parametrize("rule", ["deal_what_there_is", "deal_none"])
def test_r3_3_an_arrival_with_fewer_cards_than_towns(rule):
    plain = position(hands=[[F[0]], [F[1]], [F[2]]], deck=[L0, N0], woods=F[9], phase=S.PH_ARRIVAL, hat=0,
                     options=opts(shuffle_timing="never", short_deck_arrival=rule))
    if rule == "deal_what_there_is":
        assert plain.hands == [set_of(F[0], L0), set_of(F[1], N0), set_of(F[2])]
    else:
        assert plain.hands == [set_of(F[0]), set_of(F[1]), set_of(F[2])] and plain.deck == [L0, N0]
    ritual = position(hands=[[F[0]], [F[1]], [F[2]]], deck=[L0, N0], woods=F[9], phase=S.PH_ARRIVAL, hat=0,
                      rituals=[RIT[0]], options=opts(shuffle_timing="never", short_deck_arrival=rule))
    if rule == "deal_none":
        assert kind(ritual) == S.D_TRAVEL and ritual.deck == [L0, N0]
        return
    assert kind(ritual) == S.D_DEAL
    assert ritual.legal_actions() == [S.A_CARD + L0, S.A_CARD + N0, S.A_NO]   # 2 cards, 3 towns to serve
    ritual.apply(S.A_NO)
    assert ritual.legal_actions() == [S.A_CARD + L0, S.A_CARD + N0]            # 2 cards, 2 towns: no A_NO
    ritual.apply(S.A_CARD + N0)
    ritual.apply(S.A_CARD + L0)
    assert ritual.hands == [set_of(F[0]), set_of(F[1], N0), set_of(F[2], L0)]
    assert ritual.deck == []


def test_r3_4_growth_plays_the_arrival_twice():
    t = position(hands=[[L0, N0], [F[1]], [F[2]]], deck=[F[3], F[4], F[5], F[6], F[7], F[8], F[10]],
                 woods=F[9], options=opts(shuffle_timing="arrival"))
    t.apply(S.A_SPELL + 0)
    assert t.active == R.GROWTH
    t.apply(S.A_NO)            # announce
    t.apply(S.A_TOWN + 0)      # hat
    assert kind(t) == S.D_SHUFFLE
    t.apply(S.A_NO)
    assert kind(t) == S.D_SHUFFLE   # the second Arrival has its own offer
    t.apply(S.A_NO)
    assert [len(bits(h)) for h in t.hands] == [4, 3, 3]
    assert t.deck == [F[10]]


@pytest.mark.parametrize("timing", ["arrival", "never", "census_and_arrival"])
def test_r3_5_the_hunter_may_shuffle(timing):
    deck = [L0, N0, C0, F[3], F[4], F[5]]
    t = position(hands=[[F[0]], [F[1]], [F[2]]], deck=deck, woods=F[9], seed=4, index=9,
                 options=opts(shuffle_timing=timing))
    if timing == "census_and_arrival":
        assert t.to_move() == (S.SIDE_HUNTER, -1, S.D_SHUFFLE)
        t.apply(S.A_NO)
    t.apply(S.A_NO)
    t.apply(S.A_TOWN + 0)
    if timing == "never":
        assert kind(t) == S.D_TRAVEL
        return
    assert t.to_move() == (S.SIDE_HUNTER, -1, S.D_SHUFFLE) and t.legal_actions() == [S.A_YES, S.A_NO]
    t.apply(S.A_YES)
    expected = list(deck)
    stream = rng.Stream(4, 9, S.STREAM_DECK)
    for i in range(len(expected) - 1, 0, -1):
        j = stream.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert t.hands == [set_of(F[0], expected[0]), set_of(F[1], expected[1]), set_of(F[2], expected[2])]
    assert t.deck == expected[3:]
    # no offer with fewer than 2 cards in the deck
    short = position(hands=[[F[0]], [F[1]], [F[2]]], deck=[L0], woods=F[9], phase=S.PH_ARRIVAL, hat=0,
                     options=opts(shuffle_timing=timing))
    assert kind(short) == S.D_TRAVEL


# ---------------------------------------------------------------- R4 travel


def travel(hands, players=4, **kwargs) -> Table:
    return position(players, hands=hands, deck=kwargs.pop("deck", [F[10], F[11], F[12]]),
                    woods=kwargs.pop("woods", F[9]), phase=S.PH_TRAVEL, hat=kwargs.pop("hat", 0), **kwargs)


def test_r4_1_each_town_acts_once_from_the_hat_holder_clockwise():
    t = travel([[F[0]], [F[1]], [F[2]]], hat=2)
    actors = []
    while kind(t) == S.D_TRAVEL:
        actors.append(t.to_move()[1])
        t.apply(S.A_SWAP + bits(t.hands[t.to_move()[1]])[0])
    assert actors == [2, 0, 1]
    assert t.phase == S.PH_HUNT


def test_r4_2_give_a_card_but_never_the_last_one():
    t = travel([[F[0]], [F[1], L0], [F[2]]], hat=0)
    assert all(not S.A_GIVE <= a < S.A_ASK for a in t.legal_actions())       # one card: no give
    t.apply(S.A_ASK + 2)                                                    # town 2 holds 1: nothing moves
    legal = t.legal_actions()
    assert [a for a in legal if a < S.A_ASK] == [S.give(L0, 0), S.give(L0, 2), S.give(F[1], 0), S.give(F[1], 2)]
    t.apply(S.give(L0, 2))
    assert t.hands == [set_of(F[0]), set_of(F[1]), set_of(F[2], L0)]
    assert t.observe("hunter").travel_log == ((0, S.LOG_ASK, 2, 0), (1, S.LOG_GIVE, 2, 1))
    assert t.observe("town", 1).gave == set_of(L0) and t.observe("town", 2).received == set_of(L0)
    with pytest.raises(IllegalDecision):
        t.apply(S.give(F[0], 0))                                            # not town 2's card


@pytest.mark.parametrize("ask_empty", [True, False])
def test_r4_3_the_asked_town_chooses_the_card_unless_it_holds_one(ask_empty):
    t = travel([[F[0]], [], [L0, N0, F[2]]], hat=0, options=opts(ask_empty=ask_empty))
    asks = [a - S.A_ASK for a in t.legal_actions() if S.A_ASK <= a < S.A_SWAP]
    assert asks == ([1, 2] if ask_empty else [2])
    t.apply(S.A_ASK + 2)
    assert t.to_move() == (S.SIDE_TOWN, 2, S.D_ANSWER)
    assert t.legal_actions() == [S.A_CARD + L0, S.A_CARD + N0, S.A_CARD + F[2]]
    assert t.observe("town", 2).about == 0
    t.apply(S.A_CARD + N0)
    assert t.hands[0] == set_of(F[0], N0) and t.hands[2] == set_of(L0, F[2])
    assert t.travel_log[-1] == (0, S.LOG_ASK, 2, 1)


def test_r4_4_swap_a_card_with_the_woods():
    t = travel([[F[0], L0], [F[1]], [F[2]]], woods=N0, hat=0)
    assert [a - S.A_SWAP for a in t.legal_actions() if S.A_SWAP <= a < S.A_CARD] == [L0, F[0]]
    t.apply(S.A_SWAP + L0)
    assert t.hands[0] == set_of(F[0], N0) and t.woods == L0
    assert t.observe("town", 0).woods_known == L0
    assert t.observe("hunter").woods_known == -1 and t.observe("town", 1).woods_known == -1
    assert t.observe("hunter").travel_log == ((0, S.LOG_SWAP, -1, 1),)
    t.apply(S.A_SWAP + F[1])                                                 # another swap: town 0 forgets
    assert t.observe("town", 0).woods_known == -1 and t.observe("town", 1).woods_known == F[1]


def test_r4_5_a_town_with_nothing_to_do_passes():
    t = travel([[], [], [L0]], hat=0, options=opts(ask_empty=False))
    assert t.legal_actions() == [S.A_ASK + 2]
    t = travel([[], [], []], hat=0, options=opts(ask_empty=False))
    assert t.legal_actions() == [S.A_NO]
    t.apply(S.A_NO)
    assert t.travel_log == [(0, S.LOG_PASS, -1, 0)]
    t = travel([[F[0]], [], []], hat=0)
    assert S.A_NO not in t.legal_actions()


@pytest.mark.parametrize("targets", ["one_town", "any_town"])
def test_r4_6_passage_gives_more_than_one_card(targets):
    t = travel([[F[0], L0, N0], [F[1]], [F[2]]], hat=0, cast_tile=1, options=opts(passage_targets=targets))
    assert t.active == R.PASSAGE
    t.apply(S.give(L0, 1))
    assert t.to_move() == (S.SIDE_TOWN, 0, S.D_MORE)
    towns = [1] if targets == "one_town" else [1, 2]
    assert t.legal_actions() == [S.give(c, u) for c in (N0, F[0]) for u in towns] + [S.A_NO]
    t.apply(S.give(N0, towns[-1]))
    assert kind(t) == S.D_TRAVEL and t.to_move()[1] == 1   # one card left: never the last, no more offer
    assert t.hands[0] == set_of(F[0])
    assert t.travel_log == [(0, S.LOG_GIVE, 1, 1), (0, S.LOG_GIVE, towns[-1], 1)]
    stop = travel([[F[0], L0, N0], [F[1]], [F[2]]], hat=0, cast_tile=1)
    stop.apply(S.give(L0, 1))
    stop.apply(S.A_NO)
    assert stop.to_move() == (S.SIDE_TOWN, 1, S.D_TRAVEL) and stop.hands[0] == set_of(F[0], N0)
    plain = travel([[F[0], L0, N0], [F[1]], [F[2]]], hat=0)
    plain.apply(S.give(L0, 1))
    assert plain.to_move() == (S.SIDE_TOWN, 1, S.D_TRAVEL)


@pytest.mark.parametrize("restart", [True, False])
def test_r4_7_nature_plays_the_travel_twice(restart):
    t = travel([[F[0]], [F[1]], [F[2]]], hat=1, cast_tile=2, options=opts(nature_restart=restart))
    assert t.active == R.NATURE_SPELL
    actors = []
    while kind(t) == S.D_TRAVEL:
        actors.append(t.to_move()[1])
        t.apply(S.A_SWAP + bits(t.hands[t.to_move()[1]])[0])
    assert actors == [1, 2, 0] + ([1, 2, 0] if restart else [2, 0, 1])


def test_r4_8_darkness_hides_the_travel_from_the_hunter():
    t = position(hands=[[N0, N1, F[0]], [F[1]], [F[2]]], deck=[F[3], F[4], F[5]], woods=L0, faces=(0, 1, 0),
                 options=opts(shuffle_timing="never"))
    t.hunter_woods = L0            # as if he still knew the woods card from the set-up
    assert t.legal_actions() == [S.A_SPELL + 1, S.A_NO]
    t.apply(S.A_SPELL + 1)
    assert t.active == R.DARKNESS
    t.apply(S.A_NO)
    t.apply(S.A_TOWN + 0)
    t.apply(S.give(N0, 1))
    t.apply(S.A_ASK + 0)
    t.apply(S.A_CARD + N1)         # town 0 answers
    hunter, town = t.observe("hunter"), t.observe("town", 2)
    assert hunter.travel_log == () and hunter.woods_known == -1
    assert town.travel_log == ((0, S.LOG_GIVE, 1, 1), (1, S.LOG_ASK, 0, 1))


def test_r4_8_without_darkness_the_hunter_keeps_the_woods_card_until_a_swap():
    t = Table.deal(2, 3, 4, opts(shuffle_timing="never"))
    woods = t.woods
    t = run_until(t, S.D_TRAVEL, first_of(S.A_NO, S.A_TOWN + 0))
    assert not t.is_over() and t.observe("hunter").woods_known == woods
    t.apply(S.A_SWAP + bits(t.hands[t.to_move()[1]])[0])
    assert t.observe("hunter").woods_known == -1


# ---------------------------------------------------------------- R5 hunt


def hunt(hands, players=4, **kwargs) -> Table:
    return position(players, hands=hands, deck=kwargs.pop("deck", [F[10], F[11], F[12], F[7], F[8]]),
                    woods=kwargs.pop("woods", F[9]), phase=S.PH_HUNT, hat=0, **kwargs)


def test_r5_1_a_pick_takes_a_random_card_from_a_named_town():
    t = hunt([[], [L0, N0, F[0]], [F[1]]], seed=8, index=3)
    assert t.to_move() == (S.SIDE_HUNTER, -1, S.D_PICK)
    assert t.legal_actions() == [S.A_TOWN + 1, S.A_TOWN + 2]                # town 0 holds nothing
    k = rng.Stream(8, 3, S.STREAM_DECK).below(3)
    t.apply(S.A_TOWN + 1)
    card = [L0, N0, F[0]][k]
    assert t.hunt_log[0][:2] == (1, card) and t.picks == 1
    nobody = hunt([[], [], []])
    assert nobody.picks == 0 and nobody.round == 2                         # no pick: the next round


@pytest.mark.parametrize("rule", ["other_town", "any_town"])
def test_r5_2_a_townsfolk_goes_to_a_different_town(rule):
    t = hunt([[F[0]], [F[1]], [F[2]]], options=opts(townsfolk_to=rule))
    t.apply(S.A_TOWN + 1)
    assert t.to_move() == (S.SIDE_HUNTER, -1, S.D_TOWNSFOLK)
    assert t.legal_actions() == ([S.A_TOWN + 0, S.A_TOWN + 2] if rule == "other_town"
                                 else [S.A_TOWN + 0, S.A_TOWN + 1, S.A_TOWN + 2])
    t.apply(S.A_TOWN + 2)
    assert t.hands == [set_of(F[0]), 0, set_of(F[1], F[2])]
    assert t.hunt_log == [(1, F[1], 2)]


def test_r5_3_a_witch_is_captured_and_the_hand_flees_to_the_bottom():
    t = hunt([[F[0]], [L0, N0], [F[2], F[3]]], deck=[F[10]])
    t.apply(S.A_TOWN + 1)
    caught = bits(t.captured)
    assert len(caught) == 1 and caught[0] in (L0, N0) and t.hands[1] == 0
    assert t.deck == [F[10], ({L0, N0} - set(caught)).pop()]
    assert t.observe("hunter").deck_known == (-1, -1)        # the hand went down face-down
    assert not t.is_over() and kind(t) == S.D_PICK


def test_r5_3_the_fifth_witch_wins_at_once():
    winner = hunt([[F[0]], [L0], [F[2]]], captured=[N0, N1, C0, C1])
    winner.apply(S.A_TOWN + 1)
    assert winner.is_over() and (winner.winner, winner.win_type) == (R.WINNER_HUNTER, R.WIN_CAPTURE)
    assert winner.picks == 1 and winner.outcome().witches_captured == 5
    with_fake = hunt([[F[0]], [L0], [F[2]]], captured=[N0, N1, C0], fake_held=True)
    with_fake.apply(S.A_TOWN + 1)
    assert with_fake.is_over() and with_fake.outcome().witches_captured == 5
    assert with_fake.outcome().fake_witch_caught
    four = hunt([[F[0]], [L0], [F[2]]], captured=[N0, N1, C0])
    four.apply(S.A_TOWN + 1)
    assert not four.is_over() and four.witches_in_front() == 4


def test_r5_4_the_second_ritual_wins_for_the_town():
    t = hunt([[F[0]], [RIT[1]], [F[2]]], rituals=[RIT[0]])
    t.apply(S.A_TOWN + 1)
    assert t.is_over() and (t.winner, t.win_type) == (R.WINNER_TOWN, R.WIN_RITUAL)
    assert t.outcome().rituals_taken == 2 and t.picks == 1
    first = hunt([[F[0]], [RIT[1]], [F[2]]])
    first.apply(S.A_TOWN + 1)
    assert not first.is_over() and first.rituals == set_of(RIT[1]) and first.hands[1] == 0


def test_r5_5_the_fake_witch_frees_the_captured_witches():
    t = hunt([[F[0]], [FAKE], [F[2]]], deck=[F[10]], captured=[N0, N1, C0, C1],
             options=opts(discard_order="ascending"))
    t.apply(S.A_TOWN + 1)
    assert t.fake_held and t.captured == 0
    assert t.deck == [F[10], N0, N1, C0, C1]
    assert t.witches_in_front() == 1 and not t.is_over()
    assert t.observe("hunter").deck_known == (-1, N0, N1, C0, C1)


def test_r5_5_a_fleeing_hand_goes_down_before_the_escaping_witches():
    index = next(i for i in range(50) if rng.Stream(0, i, S.STREAM_DECK).below(2) == 0)   # picks the fake
    t = position(hands=[[F[0]], [FAKE, F[3]], [F[2]]], deck=[], woods=F[9], captured=[N0, C0], phase=S.PH_HUNT,
                 index=index, options=opts(discard_order="ascending"))
    t.apply(S.A_TOWN + 1)
    assert t.fake_held and t.deck == [F[3], N0, C0]
    assert t.observe("hunter").deck_known == (-1, N0, C0)


@pytest.mark.parametrize("doom_empty", [False, True])
@pytest.mark.parametrize("second", ["skip", "any_town"])
def test_r5_6_doom_takes_both_picks_from_one_town(doom_empty, second):
    options = opts(doom_empty=doom_empty, doom_second_pick=second)
    t = hunt([[], [F[0], F[1]], [F[2]]], faces=(1, 0, 0), cast_tile=0, options=options)
    assert t.active == R.DOOM
    assert t.to_move() == (S.SIDE_HUNTER, -1, S.D_DOOM)
    assert t.legal_actions() == ([S.A_TOWN + 0, S.A_TOWN + 1, S.A_TOWN + 2] if doom_empty
                                 else [S.A_TOWN + 1, S.A_TOWN + 2])
    t.apply(S.A_TOWN + 1)
    t.apply(S.A_TOWN + 0)          # townsfolk
    assert kind(t) == S.D_TOWNSFOLK and t.picks == 2        # the second pick came from town 1, no D_PICK
    # the named town runs out: its witch takes the whole hand
    out = hunt([[F[3]], [L0], [F[2]]], faces=(1, 0, 0), cast_tile=0, options=options)
    out.apply(S.A_TOWN + 1)
    if second == "skip":
        assert out.picks == 1 and out.round == 2
    else:
        assert out.to_move() == (S.SIDE_HUNTER, -1, S.D_PICK) and out.legal_actions() == [S.A_TOWN + 0, S.A_TOWN + 2]
    if doom_empty:
        empty = hunt([[], [L0], [F[2]]], faces=(1, 0, 0), cast_tile=0, options=options)
        empty.apply(S.A_TOWN + 0)
        assert empty.picks == 0 and empty.round == 2


@pytest.mark.parametrize("order", ["random", "ascending"])
def test_r5_7_the_order_of_cards_put_at_the_bottom(order):
    hand = [WILD, N2, C1, L0, N0]          # only witches: whichever is picked, the rest flees
    t = position(hands=[[F[0]], hand, [F[2]]], deck=[F[10]], woods=F[9], phase=S.PH_HUNT, seed=6, index=1,
                 options=opts(discard_order=order))
    stream = rng.Stream(6, 1, S.STREAM_DECK)
    ordered = sorted(hand)
    k = stream.below(len(ordered))
    t.apply(S.A_TOWN + 1)
    rest = [c for c in ordered if c != ordered[k]]
    if order == "random":
        for i in range(len(rest) - 1, 0, -1):
            j = stream.below(i + 1)
            rest[i], rest[j] = rest[j], rest[i]
    assert t.captured == set_of(ordered[k])
    assert t.deck == [F[10]] + rest


def test_r5_8_the_cast_tile_turns_over_after_the_hunt():
    t = hunt([[], [], []], faces=(0, 0, 0), cast_tile=2, deck=[F[10]])
    assert t.round == 2 and t.faces == [0, 0, 1] and t.spell_of(2) == R.DESPAIR
    back = hunt([[], [], []], faces=(1, 1, 0), cast_tile=0, deck=[F[10]])
    assert back.faces == [0, 1, 0] and back.spell_of(0) == R.GROWTH and back.active == -1


# ---------------------------------------------------------------- R6 the game


def test_r6_1_rounds_run_census_arrival_travel_hunt():
    t = Table.deal(4, 4, 4)
    phases = []
    while t.round == 1 and not t.is_over():
        phases.append(t.phase)
        t.apply(first_of(S.A_NO, S.A_TOWN + 0)(t.legal_actions()))
    assert not t.is_over() and t.round == 2
    assert phases == sorted(phases)
    assert set(phases) == {S.PH_CENSUS, S.PH_ARRIVAL, S.PH_TRAVEL, S.PH_HUNT}
    assert t.phase == S.PH_CENSUS


def test_r6_2_an_empty_deck_skips_every_draw():
    t = position(hands=[[], [F[1]], [F[2]]], deck=[], woods=F[9])
    assert t.hands[0] == 0                                   # census: no draw
    t.apply(S.A_NO)
    t.apply(S.A_TOWN + 1)
    assert kind(t) == S.D_TRAVEL and t.to_move()[1] == 1    # no shuffle offer, no arrival
    assert t.hands == [0, set_of(F[1]), set_of(F[2])]
    ritual = position(hands=[[L0], [F[1]], [F[2]]], deck=[], woods=F[9], rituals=[RIT[0]], phase=S.PH_ARRIVAL)
    assert kind(ritual) == S.D_TRAVEL                        # nothing drawn, nothing dealt


def test_r6_3_max_rounds_ends_the_game_unfinished():
    t = hunt([[F[0]], [F[1]], [F[2]]], options=opts(max_rounds=1), cast_tile=1)
    t.apply(S.A_TOWN + 0)
    t.apply(S.A_TOWN + 1)
    t.apply(S.A_TOWN + 2)
    t.apply(S.A_TOWN + 0)
    assert t.is_over() and (t.winner, t.win_type) == (R.WINNER_NONE, R.WIN_UNFINISHED)
    out = t.outcome().columns()
    assert out["rounds"] == 1 and not out["hunter_won"] and not out["town_won"] and out["picks"] == 2
    assert t.faces == [0, 1, 0]                              # the last hunt still turned its tile
    games = play_chunk(1, 0, 20, 4, opts(max_rounds=2), RP.make("hunter", "random"), RP.make("town", "random"))
    assert games["rounds"].max() <= 2


def test_r6_4_wins_are_checked_only_when_the_rulebook_says():
    # a coven formed in the Hunt waits for the next census
    t = hunt([[L0, L1, L2], [F[0], F[1]], [F[2]]], deck=[F[10]])
    assert not t.is_over()
    t.apply(S.A_TOWN + 1)
    t.apply(S.A_TOWN + 2)
    assert not t.is_over()
    t.apply(S.A_TOWN + 1)
    t.apply(S.A_TOWN + 2)
    assert t.is_over() and t.win_type == R.WIN_COVEN and t.round == 2
    # a win at the first pick leaves no second pick, and the cast tile stays
    w = hunt([[RIT[1]], [F[1]], [F[2]]], rituals=[RIT[0]], cast_tile=1)
    w.apply(S.A_TOWN + 0)
    assert w.is_over() and w.picks == 1 and w.faces == [0, 0, 0]


# ---------------------------------------------------------------- options, decisions


def test_options_validate_and_name_the_valid_values():
    for name, choices in R.CHOICES.items():
        with pytest.raises(OptionError, match=", ".join(choices)):
            R.RuleOptions(**{name: "nonsense"})
    with pytest.raises(OptionError, match="1-10000"):
        R.RuleOptions(max_rounds=0)
    with pytest.raises(OptionError, match="true or false"):
        R.RuleOptions(rituals="yes")
    assert len(S.option_tuple(R.RuleOptions())) == len(dataclasses.fields(R.RuleOptions)) == S.N_OPTIONS
    assert S.option_tuple(R.RuleOptions(townsfolk_to="any_town"))[S.OPT_TOWNSFOLK_TO] == S.FOLK_ANY_TOWN


def test_an_illegal_action_raises_and_legal_lists_ascend():
    t = Table.deal(0, 0, 5)
    legal = t.legal_actions()
    assert legal == sorted(legal)
    with pytest.raises(IllegalDecision, match="legal"):
        t.apply(S.A_YES if S.A_YES not in legal else S.A_GIVE)


def test_clone_plays_on_identically():
    t = Table.deal(12, 5, 6)
    hunter, town = RP.make("hunter", "random"), RP.make("town", "random")
    streams = (rng.Stream(12, 5, S.STREAM_HUNTER), rng.Stream(12, 5, S.STREAM_TOWN))
    for _ in range(15):
        side, seat, _ = t.to_move()
        t.apply((hunter, town)[side].act(t.observe(side, seat), t.legal_actions(), streams[side]))
    copy = t.clone()
    assert copy.observe("hunter") == t.observe("hunter") and copy.deck == t.deck and copy.hands == t.hands
    assert copy.deck_rng.s == t.deck_rng.s


@pytest.mark.parametrize("threat, picked", [(1.0, 0), (0.0, 1)])
def test_tracker_hunts_a_town_one_card_from_a_coven_first(threat, picked):
    """Town 0 revealed 2 love witches and a ritual (score (2 - 1) / 4 without the threat term), town 1 two
    witches of different suits ((2 - 0) / 4): the threat bonus outweighs the ritual risk."""
    from cursedsim.games.covens import policy_specs as PS
    from cursedsim.games.covens.reference_policies import make
    t = hunt([[L0, L1, RIT[0], F[0]], [N0, C0, F[1], F[2]], [F[3]]])
    tracker = make("hunter", "tracker", PS.HUNTER_POLICIES["tracker"].param_vector({"threat": threat}))
    action = tracker.act(t.observe("hunter"), t.legal_actions(), rng.Stream(0, 0, S.STREAM_HUNTER))
    assert action == S.A_TOWN + picked


# ---------------------------------------------------------------- whole games


PAIRS = [(h, w) for h in ("random", "largest_hand", "tracker") for w in ("random", "coven", "bluff")]


@pytest.mark.parametrize("hunter, town", PAIRS)
def test_games_of_every_pairing_end_with_a_winner_or_unfinished(hunter, town):
    for players in (4, 5, 6):
        out = play_chunk(2026, 0, 300, players, R.RuleOptions(), RP.make("hunter", hunter), RP.make("town", town))
        assert {k: str(v.dtype) for k, v in out.items()} == R.OUTCOME_DTYPES
        assert set(out["winner"].tolist()) <= {0, 1, 2} and len(out["winner"]) == 300
        unfinished = out["win_type"] == R.WIN_UNFINISHED
        assert np.array_equal(out["winner"] == R.WINNER_NONE, unfinished)
        assert np.array_equal(out["hunter_won"], out["winner"] == R.WINNER_HUNTER)
        assert np.all(out["witches_captured"][out["win_type"] == R.WIN_CAPTURE] >= 5)
        assert np.all(out["rituals_taken"][out["win_type"] == R.WIN_RITUAL] == 2)
        assert np.all(out["rounds"] >= 1)


def test_every_option_value_plays_whole_games():
    hunter, town = RP.make("hunter", "tracker"), RP.make("town", "coven")
    for field in dataclasses.fields(R.RuleOptions):
        values = R.CHOICES.get(field.name, (True, False) if field.type in (bool, "bool") else (3,))
        for value in values:
            out = play_chunk(5, 0, 20, 5, R.RuleOptions(**{field.name: value}), hunter, town)
            assert len(out["winner"]) == 20


# ---------------------------------------------------------------- coverage of the numbered rules


def test_every_numbered_rule_has_a_test():
    numbers = set(re.findall(r"\*\*R(\d+)\.(\d+)\*\*", DOC.read_text()))
    assert len(numbers) >= 30
    tested = {(m[1], m[2]) for m in re.finditer(r"^def test_r(\d+)_(\d+)_", Path(__file__).read_text(), re.M)}
    missing = sorted(numbers - tested, key=lambda n: (int(n[0]), int(n[1])))
    assert not missing, "rules without a test: " + ", ".join(f"R{a}.{b}" for a, b in missing)


# ---------------------------------------------------------------- the turn log


def test_replay_events_carry_their_fields_and_render_a_log():
    from cursedsim.games.covens import turnlog
    from cursedsim.games.covens.reference import replay_events

    seen = set()
    for index in range(12):
        options = R.RuleOptions(shuffle_timing="census_and_arrival") if index % 2 else R.RuleOptions()
        events = replay_events(7, index, 4 + index % 3, options, RP.make("hunter", "tracker"),
                               RP.make("town", "random" if index % 3 else "coven"))
        assert [e["seq"] for e in events] == list(range(len(events)))
        for event in events:
            kind_ = turnlog.EVENTS[event["action"]]
            assert all(name in event for name in kind_.fields), event["action"]
            seen.add(event["action"])
        assert events[0]["action"] == "setup" and events[-1]["action"] == "end"
        text = turnlog.text(events)
        assert text.startswith("Curses & Covens · seed 7 · game %d" % index)
        assert text.splitlines()[-1].startswith("end:")
    assert {"setup", "round", "reveal", "arrive", "give", "pick", "end"} <= seen
