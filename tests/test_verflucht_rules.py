"""Verflucht! rules on the reference engine (and, for the loss rule, on the kernel's attack step too):
the rulebook's examples, one test per rule and option, the baseline policy's spec, and whole games
(termination, card conservation, determinism)."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from cursedsim import rng
from cursedsim.errors import OptionError, PlayersError
from cursedsim.games.verflucht import GAME, kernel, policies as pol, reference_policies, reference_policy, state
from cursedsim.games.verflucht.reference import (
    IllegalDecision,
    Outcome,
    Table,
    creature_code,
    find_assignment,
    play,
    replay_log,
)
from cursedsim.games.verflucht.reference_policies import (
    AttackChoice,
    Banish,
    BaselinePolicy,
    smallest_cover,
)
from cursedsim.games.verflucht.rules import (
    END_GROUP,
    END_SIXTH,
    END_WIN,
    FIRST_ITEM_CODE,
    LOST_SCORE,
    MAX_PLAYERS,
    N_CARDS,
    RuleOptions,
)
from cursedsim.games.verflucht.state import mask_of, option_vector, values_of

SAM, DEAN, CHARLIE = 0, 1, 2  # the rulebook's players, as P1, P2, P3


def item_code(value: int) -> int:
    return FIRST_ITEM_CODE + value - 1


def make_table(players=3, *, hands=None, display=(), face_down=(), active=0, seals=None,
               options=None, seed=0, log=False) -> Table:
    """A hand-built position: hands {player: item values}, display values, face-down card codes."""
    table = Table(players, options or RuleOptions(), deck_rng=rng.Stream(seed, 0, rng.STREAM_DECK), log=log)
    for player, items in (hands or {}).items():
        table.hands[player] = set(items)
    table.display = set(display)
    table.face_down = list(face_down)
    table.active = active
    if seals is not None:
        table.seals_left = seals
    return table


def snapshot(table: Table):
    return (list(table.face_down), [set(h) for h in table.hands], set(table.display), table.seals_left,
            table.seals_used, set(table.discard_creatures), set(table.discard_items), table.attacks,
            table.end)


class Scripted:
    """Answers attacks from a list; banishes from per-player lists; records who was asked to banish."""

    def __init__(self, attacks=(), banishes=None):
        self.attacks = list(attacks)
        self.banishes = {p: list(b) for p, b in (banishes or {}).items()}
        self.asked: list[tuple[int, int, bool]] = []
        self.seal_allowed: list[bool] = []

    def attack(self, table, attackers, is_group, seal_allowed, rng_):
        self.seal_allowed.append(seal_allowed)
        return self.attacks.pop(0)

    def banish(self, table, player, last_turn, rng_):
        self.asked.append((player, table.active, last_turn))
        queue = self.banishes.get(player, [])
        return queue.pop(0) if queue else None


# ---------------------------------------------------------------- rulebook examples

def test_sam_banishes_26_with_12_and_14_and_16_with_22():
    """"Sam plays a 12 and a 14 to banish the 26 Creature, and also uses his 22 to banish the 16. All
    five cards are put on the discard pile.\""""
    table = make_table(hands={SAM: {12, 14, 22, 3}}, display={16, 26, 33}, active=SAM)
    table.banish(SAM, Banish(26, (12, 14)))
    table.banish(SAM, Banish(16, (22,)))
    assert table.discard_creatures == {16, 26}
    assert table.discard_items == {12, 14, 22}
    assert table.hands[SAM] == {3}
    assert table.display == {33}


def test_dean_banishes_the_sixth_creatures_highest_37_with_38():
    """Dean adds 19 to 4, 21, 29, 33, 37: the 37 attacks and his 38 banishes it."""
    table = make_table(hands={DEAN: {38, 2}}, display={4, 21, 29, 33, 37},
                       face_down=[creature_code(40), creature_code(19)], active=DEAN)
    code = table.draw()
    assert code == creature_code(19) and table.turns == 1
    attack = table.check_attack(19)
    assert attack == ((37,), False)
    # the baseline answers exactly like Dean
    choice = BaselinePolicy().attack(table, *attack, seal_allowed=True, rng=None)
    assert choice == AttackChoice(seal=False, plan={DEAN: ((37,), (38,))})
    assert table.resolve_attack(*attack, choice)
    assert table.display == {4, 19, 21, 29, 33}
    assert table.hands[DEAN] == {2}
    assert table.discard_creatures == {37} and table.discard_items == {38}
    assert table.attacks == 1 and table.seals_used == 0 and table.face_down == [creature_code(40)]


def test_charlies_20_makes_group_19_20_21_which_sam_and_dean_banish():
    """Charlie's 20 joins 4, 19, 21, 29: the 19-20-21 group attacks; Sam's 23 takes the 21, Dean's 9 and
    30 take the 19 and the 20 together (39 >= 39); the 4 and the 29 stay."""
    table = make_table(hands={SAM: {23}, DEAN: {9, 30}, CHARLIE: {1}}, display={4, 19, 21, 29},
                       face_down=[creature_code(20)], active=CHARLIE, log=True)
    table.draw()
    attack = table.check_attack(20)
    assert attack == ((21, 20, 19), True)
    plan = {SAM: ((21,), (23,)), DEAN: ((19, 20), (9, 30))}
    assert table.resolve_attack(*attack, AttackChoice(seal=False, plan=plan))
    assert table.display == {4, 29}
    assert table.discard_creatures == {19, 20, 21}
    assert table.discard_items == {9, 23, 30}
    assert table.hands == [set(), set(), {1}]
    assert table.log[-1] == ("group attack 19-20-21: P1 banishes 21 with 23; P2 banishes 19+20 with 9+30"
                             " → display [4, 29]")


def test_dean_needs_39_for_19_and_20_together():
    """"The total value of his/her Items must be at least equal to the total value of the Creatures."""
    table = make_table(hands={SAM: {23}, DEAN: {9, 29}}, display={4, 19, 20, 21, 29}, active=CHARLIE)
    before = snapshot(table)
    plan = {SAM: ((21,), (23,)), DEAN: ((19, 20), (9, 29))}
    with pytest.raises(IllegalDecision, match="38 are less than"):
        table.resolve_attack((21, 20, 19), True, AttackChoice(seal=False, plan=plan))
    assert snapshot(table) == before  # nothing moved


def test_final_scoring_charlie_banishes_32_two_seals_remove_7_and_23_score_66():
    """Display 7, 23, 28, 32, 38; Charlie's 5 and 28 banish the 32 in her last turn; two green Seals
    remove the 7 and the 23; the score is 28 + 38 = 66."""
    policy = Scripted(banishes={CHARLIE: [Banish(32, (5, 28))]})
    table = make_table(hands={CHARLIE: {5, 28}}, display={7, 23, 28, 32, 38}, seals=2, active=DEAN, log=True)
    assert table.play_game(policy, None) == END_WIN
    assert table.discard_creatures == {7, 23, 32}
    assert table.display == {28, 38}
    assert table.final_score == table.score() == 66
    assert "seals remove 7, 23 → display [28, 38]" in table.log
    assert table.log[-1] == "WIN, score 66"
    outcome = table.outcome()
    assert (outcome.win, outcome.score, outcome.end, outcome.seals_used) == (True, 66, END_WIN, 0)


# ---------------------------------------------------------------- seals and losses

def test_a_seal_shuffles_the_whole_group_back_among_the_face_down_cards():
    face_down = [item_code(v) for v in (1, 2, 3, 4, 5, 6, 7)]
    table = make_table(hands={SAM: {40}}, display={4, 19, 20, 21, 29}, face_down=face_down, seals=4, seed=11)
    assert table.resolve_attack((21, 20, 19), True, AttackChoice(seal=True))
    assert table.display == {4, 29}
    assert (table.seals_left, table.seals_used) == (3, 1)
    assert table.hands[SAM] == {40} and not table.discard_creatures  # no item spent
    # docs/rules/verflucht.md: appended in ascending value; draws pick at random, so that is a shuffle
    assert table.face_down == face_down + [creature_code(19), creature_code(20), creature_code(21)]


def test_no_seal_left_and_an_unbanished_sixth_creature_loses():
    table = make_table(hands={SAM: {10}}, display={4, 10, 21, 29, 33, 37}, seals=0, log=True)
    assert not table.resolve_attack((37,), False, AttackChoice(seal=True))
    assert table.end == END_SIXTH
    assert table.display == {4, 10, 21, 29, 33, 37}
    assert table.log[-3:] == ["hands: P1 [10] · P2 [] · P3 []",
                              "sixth-creature attack by 37: no seal left",
                              "LOSS: sixth-creature attack by 37: P1's items (total 10) cannot banish 37"
                              " and no green seal is left"]
    outcome = table.outcome()
    assert (outcome.win, outcome.score, outcome.end, outcome.attacks) == (False, LOST_SCORE, END_SIXTH, 1)


def test_no_seal_left_and_an_unbanished_group_loses():
    table = make_table(display={4, 19, 20, 21, 29}, seals=0)
    assert not table.resolve_attack((21, 20, 19), True, AttackChoice(seal=True))
    assert table.end == END_GROUP and table.outcome().score == LOST_SCORE


def test_a_lost_game_stops_at_once():
    policy = Scripted(attacks=[AttackChoice(seal=True)])
    table = make_table(display={4, 21}, face_down=[creature_code(1), creature_code(22)], seals=0)
    assert table.play_game(policy, None) == END_GROUP
    assert table.turns == 1 and table.face_down == [creature_code(1)] and policy.asked == []


def test_sixth_creature_that_forms_a_group_only_the_group_attacks():
    """"If adding the sixth card to the display also creates a group of Creatures, only the group
    attacks. The Creature with the highest value does not attack - unless it is part of the group.\""""
    table = make_table(display={4, 10, 21, 29, 37}, face_down=[creature_code(20)])
    table.draw()
    assert table.check_attack(20) == ((21, 20), True)
    assert table.resolve_attack((21, 20), True, AttackChoice(seal=True))
    assert table.display == {4, 10, 29, 37}  # the 37 stays
    table = make_table(display={4, 10, 21, 29, 39}, face_down=[creature_code(40)])
    table.draw()
    assert table.check_attack(40) == ((40, 39), True)


def test_groups_and_the_sixth_creature_attack_check():
    table = make_table(display={5, 7})
    table.display.add(6)
    assert table.check_attack(6) == ((7, 6, 5), True)  # a creature that closes a gap joins both
    table = make_table(display={5, 9, 12, 30})
    table.display.add(40)
    assert table.check_attack(40) is None  # five creatures, no group: nothing attacks
    table.display.add(1)
    assert table.check_attack(1) == ((40,), False)


@pytest.mark.parametrize("players, seals", [(1, 3), (2, 4), (3, 4), (4, 5), (5, 5)])
def test_seals_by_player_count(players, seals):
    """"1 player: 3 Seals / 2 or 3 players: 4 Seals / 4 or 5 players: 5 Seals\""""
    assert Table.deal(0, 0, players).seals_left == seals
    assert Table.deal(0, 0, players, RuleOptions(seals=7)).seals_left == 7


def test_option_seals_zero_loses_at_the_first_attack():
    outcome = play(3, 0, 3, RuleOptions(seals=0), Scripted(attacks=[AttackChoice(seal=True)]))
    assert not outcome.win and outcome.attacks == 1 and outcome.seals_used == 0
    with pytest.raises(OptionError):
        RuleOptions(seals=11)


# ---------------------------------------------------------------- illegal decisions

GROUP = (21, 20, 19)


def group_table(**kw):
    kw.setdefault("hands", {SAM: {10, 23, 40}, DEAN: {13, 30}, CHARLIE: {9}})
    return make_table(display={4, 19, 20, 21, 29}, **kw)


@pytest.mark.parametrize("plan, message", [
    ({SAM: ((21,), (23,)), DEAN: ((21, 20, 19), (13, 30))}, "taken by P1 and P2"),  # two players on one
    ({SAM: ((21, 20), (40, 10))}, r"19 neither banished nor sealed"),
    ({SAM: ((21, 20, 19), (10, 23, 40)), DEAN: ((), (13,))}, "spends items on no Creature"),
    ({SAM: ((21, 20, 19), (23, 40, 41))}, "Item 41 not in P1's hand"),
    ({SAM: ((21, 20, 19), (23, 30, 40))}, "Item 30 not in P1's hand"),  # Dean's 30 in Sam's plan
    ({SAM: ((21, 20, 19, 4), (10, 23, 40))}, "4 is not an attacking Creature"),
    ({SAM: ((21, 20, 19), (10, 10, 40))}, "plays an Item twice"),
    ({3: ((19,), (20,)), SAM: ((21, 20), (40,))}, "no player 3"),
    ({SAM: ((21, 20, 19),)}, "must be \\(creatures, items\\)"),
    ({SAM: ((21, 20, 19), (23, 10))},
     "P1's items 23\\+10 = 33 are less than the Creatures 21\\+20\\+19 = 60"),
])
def test_illegal_group_plans_are_rejected_and_change_nothing(plan, message):
    table = group_table()
    before = snapshot(table)
    with pytest.raises(IllegalDecision, match=message):
        table.resolve_attack(GROUP, True, AttackChoice(seal=False, plan=plan))
    assert snapshot(table) == before


def test_only_the_active_player_may_banish_a_sixth_creature():
    table = make_table(hands={SAM: {1}, DEAN: {38}}, display={4, 19, 21, 29, 33, 37}, active=SAM)
    with pytest.raises(IllegalDecision, match="only the active player P1"):
        table.resolve_attack((37,), False, AttackChoice(seal=False, plan={DEAN: ((37,), (38,))}))
    with pytest.raises(IllegalDecision, match="less than"):
        table.resolve_attack((37,), False, AttackChoice(seal=False, plan={SAM: ((37,), (1,))}))


@pytest.mark.parametrize("player, decision, message", [
    (DEAN, Banish(26, (30,)), "only P1, whose turn it is"),
    (SAM, Banish(25, (30,)), "no Creature 25"),
    (SAM, Banish(26, (12, 13)), "25 are less than 26"),
    (SAM, Banish(26, (31,)), "Item 31 not in P1's hand"),
    (SAM, Banish(26, ()), "no Item"),
])
def test_illegal_voluntary_banishments_are_rejected(player, decision, message):
    table = make_table(hands={SAM: {12, 13, 30}, DEAN: {30}}, display={16, 26}, active=SAM)
    before = snapshot(table)
    with pytest.raises(IllegalDecision, match=message):
        table.banish(player, decision)
    assert snapshot(table) == before


def test_only_the_active_player_banishes_voluntarily_during_a_game():
    """Only the player whose turn it is is asked (and in the last turns, each player in turn)."""

    class Spy(BaselinePolicy):
        def __init__(self):
            self.asked = []

        def banish(self, table, player, last_turn, rng_):
            self.asked.append((player, table.active, last_turn, table.turns))
            return super().banish(table, player, last_turn, rng_)

    spy = Spy()
    table = Table.deal(5, 0, 3)
    table.play_game(spy, rng.Stream(5, 0, rng.STREAM_POLICY))
    assert spy.asked and all(player == active for player, active, _, _ in spy.asked)
    draw_turns = [(player, turn) for player, _, last, turn in spy.asked if not last]
    assert all(player == (turn - 1) % 3 for player, turn in draw_turns)


def test_a_policy_that_never_stops_banishing_is_stopped():
    class Endless:
        def attack(self, *args):
            return AttackChoice(seal=True)

        def banish(self, table, player, last_turn, rng_):
            return Banish(99, (1,))

    table = make_table(hands={SAM: {1}}, display={1}, face_down=[item_code(2)])
    with pytest.raises(IllegalDecision, match="no Creature 99"):
        table.play_turn(Endless(), None)


# ---------------------------------------------------------------- options

def test_drawer_last_turn_order():
    """After the last card: the players after the drawer in turn order, then the drawer (option).
    (Everyone holds an Item and a Creature is on display, so every player has a choice to make.)"""
    for option, expected in ((True, [CHARLIE, SAM, DEAN]), (False, [CHARLIE, SAM])):
        policy = Scripted()
        table = make_table(hands={SAM: {1}, CHARLIE: {2}, DEAN: {3}}, display={30},
                           face_down=[item_code(5)], active=DEAN,
                           options=RuleOptions(drawer_last_turn=option))
        assert table.play_game(policy, None) == END_WIN
        assert policy.asked[0] == (DEAN, DEAN, False)  # the drawer's ordinary turn
        assert [p for p, active, last in policy.asked if last] == expected
        assert table.turns == 1
    for option, expected in ((True, [0]), (False, [])):
        policy = Scripted()
        table = make_table(1, display={30}, face_down=[item_code(5)],
                           options=RuleOptions(drawer_last_turn=option))
        table.play_game(policy, None)
        assert [p for p, _, last in policy.asked if last] == expected


def test_drawer_last_turn_changes_the_score():
    """Dean draws the last card; only his own last turn would banish the 30."""

    class LastTurnOnly(Scripted):
        def banish(self, table, player, last_turn, rng_):
            return Banish(30, (30,)) if last_turn and player == DEAN and 30 in table.display else None

    for option, score in ((True, 0), (False, 30)):
        table = make_table(hands={DEAN: {30}}, display={30}, face_down=[item_code(5)], active=DEAN, seals=0,
                           options=RuleOptions(drawer_last_turn=option))
        assert table.play_game(LastTurnOnly(), None) == END_WIN
        assert table.final_score == score


def test_partial_items_before_seal():
    """Option on: items banish part of a group and a Seal takes the rest; off: refused."""
    choice = AttackChoice(seal=True, plan={SAM: ((21,), (23,))})
    table = group_table(face_down=[item_code(1)])
    with pytest.raises(IllegalDecision, match="partial_items_before_seal"):
        table.resolve_attack(GROUP, True, choice)
    options = RuleOptions(partial_items_before_seal=True)
    table = group_table(face_down=[item_code(1)], options=options, seals=1)
    assert table.resolve_attack(GROUP, True, choice)
    assert table.discard_creatures == {21} and table.discard_items == {23}
    assert table.display == {4, 29}
    assert sorted(table.face_down) == sorted([item_code(1), creature_code(19), creature_code(20)])
    assert (table.seals_left, table.seals_used) == (0, 1)


def test_partial_items_then_no_seal_left_loses_and_a_seal_needs_something_to_seal():
    """Totals 23, 13 and 9 cannot banish 21+20+19, so the Seal is offered with none left: Sam's 23
    banishes the 21 and the game is lost on the 20 and the 19, which is what the log says."""
    options = RuleOptions(partial_items_before_seal=True)
    table = group_table(options=options, seals=0, hands={SAM: {23}, DEAN: {13}, CHARLIE: {9}}, log=True)
    assert table.seal_allowed(GROUP, True)
    assert not table.resolve_attack(GROUP, True, AttackChoice(seal=True, plan={SAM: ((21,), (23,))}))
    assert table.end == END_GROUP and table.discard_creatures == {21}
    assert table.log == ["hands: P1 [23] · P2 [13] · P3 [9]",
                         "group attack 19-20-21: P1 banishes 21 with 23; no seal left for the rest",
                         "LOSS: group attack 19-20-21: the items (totals P1 0, P2 13, P3 9) cannot banish"
                         " 20+19 and no green seal is left"]
    table = group_table(options=options)
    with pytest.raises(IllegalDecision, match="nothing left for the Seal"):
        table.resolve_attack(GROUP, True, AttackChoice(seal=True, plan={SAM: ((21, 20, 19), (10, 23, 40))}))


# ---------------------------------------------------------------- no seal left: no choice but to banish
# "All players jointly lose the game if, when one or more Creatures attack, you are not able to banish
# all the attackers and you have already used up all the green Seals"; "When an attack occurs, you have
# no choice but to immediately banish". Both engines, on the same laid-out table: Charlie's 21 joins
# 19 and 20, and no single Item or pair covers the 20, but whole hands do (21 <- Sam's 23 of 1+5+6+12,
# 20 <- Dean's 24, 19 <- Charlie's 21).

LAID_OUT = {"hands": {SAM: {1, 5, 6, 12}, DEAN: {7, 8, 9}, CHARLIE: {10, 11}},
            "display": {4, 19, 20, 21, 29}, "active": CHARLIE}


def kernel_answer(seals_left, *, policy="baseline", decide_attack=None, hands=None, seed=0):
    """The kernel's attack step on the LAID_OUT group attack: the policy's answer (``decide_attack``: a numba
    policy in its place), then phase PH_ATTACK of ``kernel.advance`` checking and paying it, with no card left
    face down and the game halted at the next decision: (hands after, attackers banished)."""
    hands = hands if hands is not None else LAID_OUT["hands"]
    spec = GAME.policy(policy)
    deck, hand_masks, masks, counts = state.new_arrays()
    for p in range(3):
        hand_masks[p] = mask_of(hands.get(p, ()))
    masks[state.DISPLAY] = mask_of(LAID_OUT["display"])
    masks[state.ATTACKERS] = mask_of(GROUP)
    counts[state.SEALS_LEFT] = seals_left
    counts[state.ACTIVE] = LAID_OUT["active"]
    counts[state.PHASE] = kernel.PH_ATTACK
    counts[state.IS_GROUP] = True
    counts[state.SCORE] = LOST_SCORE
    opts = tuple(np.int64(v) for v in option_vector(RuleOptions(), 3))
    handt = tuple(hand_masks)
    allowed = kernel.seal_allowed_for(handt, np.int64(3), np.int64(LAID_OUT["active"]), mask_of(GROUP), True, opts,
                                      np.int64(seals_left))
    seal, take, use, _ = (decide_attack or pol.decide_attack)(
        spec.policy_id, pol.params_tuple(spec.param_vector()),
        tuple(np.uint64(w) for w in rng.Stream(seed, 0, rng.STREAM_POLICY).s), handt, 3, LAID_OUT["active"],
        mask_of(LAID_OUT["display"]), mask_of(GROUP), True, allowed, seals_left, 40, mask_of(()), mask_of(()))
    kernel.advance(deck, hand_masks, masks, counts, np.int64(3), opts, np.int64(spec.policy_id),
                   pol.params_tuple(spec.param_vector()), np.bool_(True), np.int64(kernel.ACT_PLAN), np.bool_(seal),
                   tuple(np.uint64(x) for x in take), tuple(np.uint64(x) for x in use), np.int64(0), np.uint64(0))
    return [set(values_of(hand_masks[p])) for p in range(3)], set(values_of(masks[state.GONE_CREATURES]))


def test_the_kernels_plan_check_agrees_with_assign_by_totals():
    """``kernel.plan_exists`` (nested loops, no arrays: the engine's check before every attack with no
    Seal left) answers exactly what ``pol.assign_by_totals`` finds, on random hands and attacks of one
    to three attackers (sixth-creature and group), at every player count."""
    r = np.random.default_rng(7)
    for _ in range(4000):
        players = int(r.integers(1, MAX_PLAYERS + 1))
        items = r.permutation(np.arange(1, 41))[:int(r.integers(0, 16))]
        owner = r.integers(0, players, items.size)
        hands = tuple(mask_of(items[owner == p]) for p in range(players)) + (mask_of(()),) * (MAX_PLAYERS - players)
        low = int(r.integers(1, 39))
        is_group = bool(r.integers(0, 2))
        attackers = mask_of(range(low, low + int(r.integers(2, 4)))) if is_group else mask_of([low])
        active = int(r.integers(0, players))
        found, _ = pol.assign_by_totals(hands, players, active, attackers, is_group)
        assert kernel.plan_exists(hands, players, active, attackers, is_group) == found


@pytest.mark.parametrize("policy", ["baseline", "smart", "random"])
def test_with_no_seal_left_the_players_banish_whenever_items_can_in_both_engines(policy):
    """The engine refuses the Seal (whatever voluntary_seal says), so every built-in policy banishes
    all three attackers; with a Seal left, baseline and smart still seal rather than spend."""
    oracle = reference_policy(policy, GAME.policy(policy).param_vector())
    table = make_table(seals=0, **LAID_OUT)
    assert not table.seal_allowed(GROUP, True)
    assert table.attack(GROUP, True, oracle, rng.Stream(0, 0, rng.STREAM_POLICY))
    assert table.end is None and table.display == {4, 29} and table.seals_used == 0
    hands, covered = kernel_answer(0, policy=policy)
    assert covered == set(GROUP) and hands == table.hands
    if policy == "baseline":  # the forced plan: items highest first until each total is reached
        assert hands == [{1}, set(), set()]
    if policy != "random":
        table = make_table(seals=1, **LAID_OUT)
        assert table.attack(GROUP, True, oracle, rng.Stream(0, 0, rng.STREAM_POLICY))
        assert table.seals_used == 1 and table.hands == [{1, 5, 6, 12}, {7, 8, 9}, {10, 11}]
        assert kernel_answer(1, policy=policy) == (table.hands, set())


@njit
def _always_seal(policy_id, params, rng_, hands, n_players, active, display, attackers, is_group,
                 seal_allowed, seals_left, deck_left, gone_creatures, gone_items):
    empty = (pol.ZERO, pol.ZERO, pol.ZERO, pol.ZERO, pol.ZERO)
    return True, empty, empty, rng_


def test_with_no_seal_left_a_seal_is_refused_while_items_can_banish_in_both_engines():
    """The players may not choose to lose: a Seal with none left is an illegal answer while a plan
    exists, and the loss it would have been only comes when none exists."""
    table = make_table(seals=0, **LAID_OUT)
    before = snapshot(table)
    with pytest.raises(IllegalDecision, match="no green Seal is left"):
        table.resolve_attack(GROUP, True, AttackChoice(seal=True))
    assert snapshot(table) == before
    with pytest.raises(ValueError, match="a Seal is not allowed"):
        kernel_answer(0, decide_attack=_always_seal)
    # a Seal left: the same answer is legal (voluntary_seal=True)
    assert kernel_answer(1, decide_attack=_always_seal) == ([{1, 5, 6, 12}, {7, 8, 9}, {10, 11}], set())
    # Dean's 9 gone: his 7+8 = 15 cannot take the 20 and no other assignment works, so the game is lost
    poorer = {SAM: {1, 5, 6, 12}, DEAN: {7, 8}, CHARLIE: {10, 11}}
    table = make_table(seals=0, **dict(LAID_OUT, hands=poorer))
    assert table.seal_allowed(GROUP, True)
    assert not table.resolve_attack(GROUP, True, AttackChoice(seal=True))
    assert table.end == END_GROUP
    assert kernel_answer(0, decide_attack=_always_seal, hands=poorer) == ([{1, 5, 6, 12}, {7, 8}, {10, 11}],
                                                                          set())


def test_voluntary_seal_false_refuses_a_seal_while_items_can_banish():
    options = RuleOptions(voluntary_seal=False)
    table = make_table(hands={SAM: {5, 6, 10}}, display={4, 19, 21, 29, 33, 37}, options=options)
    # 19 is beatable only with all three items (21 >= 19), still a plan: no Seal
    assert not table.seal_allowed((19,), False)
    assert table.seal_allowed((37,), False)
    with pytest.raises(IllegalDecision, match="voluntary_seal=False"):
        table.resolve_attack((19,), False, AttackChoice(seal=True))
    # the default allows the Seal
    assert make_table(hands={SAM: {5, 6, 10}}, options=RuleOptions()).seal_allowed((19,), False)
    # in play, the policy is told before it answers
    policy = Scripted(attacks=[AttackChoice(seal=False, plan={SAM: ((19,), (5, 6, 10))})])
    table = make_table(hands={SAM: {5, 6, 10}}, display={2, 4, 8, 11, 15}, face_down=[creature_code(19)],
                       options=options)
    assert table.play_turn(policy, None)
    assert policy.seal_allowed == [False] and table.display == {2, 4, 8, 11, 15}


def test_voluntary_seal_false_counts_the_other_players_in_a_group_only():
    options = RuleOptions(voluntary_seal=False)
    table = make_table(hands={SAM: {1}, DEAN: {40, 2}}, options=options)
    assert not table.seal_allowed((21, 20), True)  # Dean's 40+2 = 42 >= 41
    assert table.seal_allowed((21,), False)  # a sixth Creature: Sam alone


def test_baseline_forced_plan_when_a_seal_is_refused():
    options = RuleOptions(voluntary_seal=False)
    table = make_table(hands={SAM: {5, 6, 10}}, display={4, 19, 21, 29, 33, 37}, options=options)
    choice = BaselinePolicy().attack(table, (19,), False, seal_allowed=False, rng=None)
    assert choice == AttackChoice(seal=False, plan={SAM: ((19,), (10, 6, 5))})
    assert table.resolve_attack((19,), False, choice)
    assert table.display == {4, 21, 29, 33, 37} and table.hands[SAM] == set()


def test_forced_plan_search_order():
    """Depth first: creatures highest first, players active first then in turn order."""
    table = make_table(hands={SAM: {3, 4}, DEAN: {10, 12}, CHARLIE: {30, 15, 5}}, active=DEAN)
    plan = BaselinePolicy().forced_plan(table, (21, 20, 19), True)
    # 21 -> Dean (22); 20 -> Charlie (50 -> 30); 19 -> Charlie (30 -> 11)
    assert plan == {DEAN: ((21,), (12, 10)), CHARLIE: ((20, 19), (30, 15))}
    # items highest first, stopping as soon as the sum reaches the total (39 = 30 + 9)
    table = make_table(hands={SAM: {30, 9, 2}, DEAN: {40, 1}}, active=SAM)
    assert BaselinePolicy().forced_plan(table, (20, 19), True) == {SAM: ((20, 19), (30, 9))}
    assert find_assignment([21, 20, 19], {0: 7, 1: 22, 2: 50}, [1, 2, 0]) == {21: 1, 20: 2, 19: 2}
    assert find_assignment([21, 20], {0: 20, 1: 20}, [0, 1]) is None


# ---------------------------------------------------------------- baseline policy

def test_smallest_cover():
    assert smallest_cover([5, 9, 12, 30], 20) == (30,)
    assert smallest_cover([5, 9, 12, 30], 40) == (12, 30)
    assert smallest_cover([10, 15, 20, 25], 35) == (10, 25)  # tie 10+25 = 15+20: the smaller a
    assert smallest_cover([10, 15, 20, 24], 35) == (15, 20)
    assert smallest_cover([1, 2, 3], 7) is None
    assert smallest_cover([], 1) is None


def test_baseline_group_attack_asks_the_active_player_then_in_turn_order():
    table = make_table(hands={SAM: {22}, DEAN: set(), CHARLIE: {25}}, active=DEAN)
    choice = BaselinePolicy().attack(table, (21, 20), True, seal_allowed=True, rng=None)
    assert choice == AttackChoice(seal=False, plan={CHARLIE: ((21,), (25,)), SAM: ((20,), (22,))})


def test_baseline_seals_without_spending_when_one_attacker_is_uncovered():
    table = make_table(hands={SAM: {23}, DEAN: {9, 30}, CHARLIE: {1}}, active=CHARLIE)
    choice = BaselinePolicy().attack(table, GROUP, True, seal_allowed=True, rng=None)
    assert choice == AttackChoice(seal=True)  # 21 <- Sam's 23, 20 <- Dean's 30, 19 uncovered


def test_baseline_voluntary_banishing_margin_of_three():
    def choose(hand, display, last_turn=False):
        return BaselinePolicy().banish(make_table(hands={SAM: hand}, display=display), SAM, last_turn, None)

    assert choose({14, 23}, {10, 20}) == Banish(20, (23,))  # 23 - 20 = 3
    assert choose({14, 24}, {10, 20}) is None  # 24 - 20 = 4, 14 - 10 = 4
    assert choose({13, 24}, {10, 20}, last_turn=True) == Banish(10, (13,))
    assert choose({21, 22}, {20}) == Banish(20, (21,))  # the smallest fitting item


def test_the_user_policy_example_in_the_docstring_runs():
    doc = reference_policies.__doc__
    start = doc.index("    from cursedsim")
    end = doc.index("\n", doc.index("    outcome = play("))
    namespace: dict = {}
    exec(textwrap.dedent(doc[start:end]), namespace)
    assert isinstance(namespace["outcome"], Outcome)


# ---------------------------------------------------------------- whole games

def all_cards(table: Table) -> list[int]:
    codes = list(table.face_down)
    codes += [creature_code(v) for v in table.display | table.discard_creatures]
    codes += [item_code(v) for hand in table.hands for v in hand]
    codes += [item_code(v) for v in table.discard_items]
    return sorted(codes)


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_whole_games_end_and_keep_every_card(players):
    options = RuleOptions()
    ends = set()
    for seed in range(200):
        table = Table.deal(seed, 0, players, options)
        assert sorted(table.face_down) == list(range(N_CARDS))
        end = table.play_game(BaselinePolicy(), rng.Stream(seed, 0, rng.STREAM_POLICY))
        ends.add(end)
        assert all_cards(table) == list(range(N_CARDS))
        assert table.seals_used + table.seals_left == options.seals_for(players)
        if end == END_WIN:
            assert not table.face_down and len(table.display) <= 5
            # every card drawn once, plus the Creatures seals sent back (groups are at most 3 long)
            assert N_CARDS <= table.turns <= N_CARDS + 3 * table.seals_used
            assert table.final_score == sum(table.display)
            outcome = table.outcome()
            assert outcome.score == sum(table.display) and outcome.win
        else:
            assert table.seals_left == 0 and end in (END_SIXTH, END_GROUP)
            assert table.outcome().score == LOST_SCORE
    assert END_WIN in ends and (END_SIXTH in ends or END_GROUP in ends)


class RandomLegal(BaselinePolicy):
    """Random legal answers from the policy stream: a Seal, the baseline's plan, a forced plan, or (with
    the option) items for part of a group; now and then a voluntary banishment of a random Creature."""

    def __init__(self):
        self.used = set()

    def attack(self, table, attackers, is_group, seal_allowed, rng_):
        roll = rng_.below(4)
        if roll == 0 and seal_allowed:
            self.used.add("seal")
            return AttackChoice(seal=True)
        if roll == 1 and table.plan_exists(attackers, is_group):
            self.used.add("forced")
            return AttackChoice(seal=False, plan=self.forced_plan(table, attackers, is_group))
        if roll == 2 and is_group and seal_allowed and table.options.partial_items_before_seal:
            hand = table.hands[table.active]
            if sum(hand) >= attackers[-1]:
                self.used.add("partial")
                return AttackChoice(seal=True, plan={table.active: ((attackers[-1],), tuple(hand))})
        return super().attack(table, attackers, is_group, seal_allowed, rng_)

    def banish(self, table, player, last_turn, rng_):
        # a random voluntary banishment now and then, else the baseline's
        if table.display and rng_.below(8) == 0:
            creature = sorted(table.display)[rng_.below(len(table.display))]
            items = smallest_cover(sorted(table.hands[player]), creature)
            if items:
                return Banish(creature, items)
        return super().banish(table, player, last_turn, rng_)


@pytest.mark.parametrize("partial", [False, True])
@pytest.mark.parametrize("voluntary", [False, True])
@pytest.mark.parametrize("drawer", [False, True])
def test_random_legal_play_under_every_option_keeps_the_invariants(partial, voluntary, drawer):
    options = RuleOptions(seals=10, partial_items_before_seal=partial, voluntary_seal=voluntary,
                          drawer_last_turn=drawer)
    policy, ends = RandomLegal(), set()
    for index in range(40):
        players = 1 + index % 5
        table = Table.deal(8, index, players, options)
        end = table.play_game(policy, rng.Stream(8, index, rng.STREAM_POLICY))
        ends.add(end)
        assert all_cards(table) == list(range(N_CARDS))
        if end == END_WIN:
            assert not table.face_down and len(table.display) <= 5 and table.final_score == sum(table.display)
        else:
            assert end in (END_SIXTH, END_GROUP) and table.seals_left == 0
    assert policy.used == ({"seal", "forced", "partial"} if partial else {"seal", "forced"})
    assert END_WIN in ends and len(ends) >= 2


def test_a_draw_takes_the_face_down_card_the_deck_stream_picks():
    table = Table.deal(123, 45, 3)
    assert table.face_down == list(range(N_CARDS))
    stream, cards = rng.Stream(123, 45, rng.STREAM_DECK), list(range(N_CARDS))
    for _ in range(10):
        j = stream.below(len(cards))
        cards[j], cards[-1] = cards[-1], cards[j]
        assert table.draw() == cards.pop()
    assert table.face_down == cards


def test_draws_are_uniform_over_the_face_down_cards():
    """The first card of 8,000 games: a chi-square over the 80 codes has mean 79 and SD 12.6 if the
    draw is uniform; 79 + 6 SD bounds it, while always drawing one position would give ~632,000."""
    counts = [0] * N_CARDS
    for index in range(8000):
        counts[Table.deal(5, index, 1).draw()] += 1
    chi2 = sum((c - 100) ** 2 / 100 for c in counts)
    assert chi2 < 79 + 6 * 12.6


def test_same_seed_and_index_give_the_same_game_and_log():
    first = play(9, 17, 4, RuleOptions(), BaselinePolicy(), log=True)
    again = play(9, 17, 4, RuleOptions(), BaselinePolicy(), log=True)
    assert first == again and len(first.log) > 40
    assert replay_log(9, 17, 4, RuleOptions(), BaselinePolicy()).splitlines()[1:] == list(first.log)


def test_different_indices_and_seeds_give_different_deals():
    def first_draws(seed, index):
        table = Table.deal(seed, index, 3)
        return tuple(table.draw() for _ in range(10))

    deals = {first_draws(seed, index) for seed in range(3) for index in range(20)}
    assert len(deals) == 60
    outcomes = {play(0, index, 3, RuleOptions(), BaselinePolicy()) for index in range(20)}
    assert len({(o.turns, o.attacks, o.score) for o in outcomes}) > 5


def test_replay_log_reads_like_the_rulebook():
    text = replay_log(1, 0, 3, RuleOptions(), BaselinePolicy())
    lines = text.splitlines()
    assert lines[0].startswith("Verflucht! · seed 1 · game 0 · 3 players")
    assert lines[1] == "set-up · 3 players · 4 green seals · 80 face-down cards · P1 begins"
    assert lines[2].startswith("turn 1 · P1 draws ")
    assert lines[-1].startswith("WIN, score ") or lines[-1].startswith("LOSS: ")


def test_the_losing_line_says_what_happened():
    """Game 17 of seed 0 at 3 players: P2 holds nothing against the 28 and the Seals are gone; the log
    said "answered with a seal" there before the loss line was made to tell the truth."""
    log = GAME.replay(0, 17, 3, RuleOptions(), "baseline", GAME.policy("baseline").param_vector())
    assert log.splitlines()[-4:] == [
        "turn 29 · P2 draws Creature 28 (57 left) → display [1, 3, 5, 14, 17, 28]",
        "hands: P1 [11] · P2 [] · P3 []",
        "sixth-creature attack by 28: no seal left",
        "LOSS: sixth-creature attack by 28: P2's items (total 0) cannot banish 28 and no green seal is left"]


def _parse_values(text: str) -> set[int]:
    inside = text[text.index("[") + 1:text.index("]")]
    return {int(v) for v in inside.split(", ")} if inside else set()


def _can_banish(attackers, hands) -> bool:
    """Brute force, independent of the engines: some way to give each attacker to one of ``hands``
    (lists of item values) so that each hand's total covers its Creatures."""
    for owners in itertools.product(range(len(hands)), repeat=len(attackers)):
        need = [0] * len(hands)
        for creature, owner in zip(attackers, owners):
            need[owner] += creature
        if all(need[k] <= sum(hands[k]) for k in range(len(hands))):
            return True
    return False


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_every_attack_shows_every_hand_and_a_loss_only_when_no_item_could_banish(players):
    """Read from the log alone: each attack follows a line with every player's hand, and a lost game's
    last attack could not have been banished with the hands shown (the active player's alone against a
    sixth Creature); a game lost with the items to banish in hand would be a log, or a rule, that lies."""
    losses = 0
    for index in range(80):
        lines = replay_log(6, index, players, RuleOptions(), BaselinePolicy()).splitlines()
        drawer = None
        for k, line in enumerate(lines):
            if line.startswith("turn "):
                drawer = int(line.split(" · ")[1][1]) - 1
            if line.startswith(("group attack", "sixth-creature attack")):
                shown = lines[k - 1].removeprefix("hands: ").split(" · ")
                assert [h.split(" ")[0] for h in shown] == [f"P{p + 1}" for p in range(players)], lines[k - 1]
                hands = [_parse_values(h) for h in shown]
                kind = line.split(":")[0]
                attackers = [int(v) for v in kind.split(" ")[-1].split("-")]
                eligible = hands if kind.startswith("group") else [hands[drawer]]
                if lines[-1].startswith("LOSS") and k == len(lines) - 2:
                    losses += 1
                    assert not _can_banish(attackers, eligible), lines[k - 1:]
                    assert lines[-1].startswith(f"LOSS: {kind}: ") and "cannot banish" in lines[-1]
                    assert lines[-1].endswith("and no green seal is left")
    assert losses > 40  # baseline loses most games: the check above ran on each of them


def test_the_log_excerpt_in_the_rules_doc_is_a_real_game():
    """docs/rules/verflucht.md shows excerpts of a replay: each line must be in that replay, in order."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "rules" / "verflucht.md").read_text()
    excerpt = doc[doc.index("Excerpts of game 0 of seed 0"):]
    excerpt = excerpt[excerpt.index("```\n") + 4:]
    shown = [line for line in excerpt[:excerpt.index("```")].splitlines() if line != "..."]
    log = iter(replay_log(0, 0, 3, RuleOptions(), BaselinePolicy()).splitlines())
    assert len(shown) > 20 and all(any(line == real for real in log) for line in shown)


def test_outcome_fields_agree_with_the_log():
    for index in range(30):
        outcome = play(4, index, 3, RuleOptions(), BaselinePolicy(), log=True)
        turns = [line for line in outcome.log if line.startswith("turn ")]
        assert len(turns) == outcome.turns
        assert sum(line.startswith(("group attack", "sixth-creature attack")) for line in outcome.log) \
            == outcome.attacks
        assert sum(line.startswith("seal used") for line in outcome.log) == outcome.seals_used
        assert (outcome.log[-1] == f"WIN, score {outcome.score}") == outcome.win


def test_bad_player_counts_are_refused():
    with pytest.raises(PlayersError, match="1-5 players"):
        play(0, 0, 6, RuleOptions(), BaselinePolicy())
