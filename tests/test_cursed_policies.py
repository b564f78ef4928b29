"""Cursed!? policy ``counting`` on hand-built positions, in both engines: where it must draw and where it
must stop, with the expected damages worked out by hand below; the decision never depends on the order
of the draw pile (only on its composition, which the player knows because every other zone is public).

Each position is a reference ``Table`` with all 30 cards placed (the cards a test does not need are
captured souls), asked through ``CountingPolicy``; the same position as the kernel's view tuple is asked
through ``policies.counting_draws`` / ``item_rules_fight`` / ``decide_attack``.

Cost bookkeeping (``CountingPolicy`` docstring): a stop now costs ``stop`` = the damage due; drawing card
c and stopping costs ``1 + damage_c`` (the card drawn is a card of life). With n cards in the pile the
policy draws when ``n * stop - sum_c (1 + damage_c) > margin * n``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cursedsim.games.cursed import kernel, reference, rules, state
from cursedsim.games.cursed import policies as pol
from cursedsim.games.cursed.reference import DRAW, PLAY, STOP, AttackOptions, Table
from cursedsim.games.cursed.reference_policies import (
    CountingPolicy,
    ThresholdPolicy,
    one_attack,
    pile_composition,
)
from cursedsim.games.cursed.rules import MELEE, N_CARDS, NO_TRAIT, RANGED, RuleOptions
from cursedsim.rng import STREAM_POLICY, seed_tuple


def card(unique: int, copy: int = 0) -> int:
    return unique * rules.COPIES + copy


# Weapons by unique card u (the card table of docs/rules/cursed.md): value, kinds.
GREATSWORD = [card(0, i) for i in range(3)]    # 5 melee
FIREBALL = [card(1, i) for i in range(3)]      # 5 ranged
SWORD = [card(2, i) for i in range(3)]         # 4 melee
STAFF = [card(3, i) for i in range(3)]         # 4 ranged
SPEAR = [card(4, i) for i in range(3)]         # 3 melee+ranged
MACE = [card(5, i) for i in range(3)]          # 3 melee
AXE = [card(6, i) for i in range(3)]           # 2 melee
BOW = [card(7, i) for i in range(3)]           # 2 ranged
DAGGER = [card(9, i) for i in range(3)]        # 1/6 melee


def position(monster: int, pile: list[int], *, total: int = 0, attacks: int = 0, trait_spent: bool = False,
             blocked: int = 0, weapons: list[int] = (), used: list[int] = (),
             options: RuleOptions | None = None, is_mimic: bool = False) -> Table:
    """A fight in progress against ``monster``: ``pile`` (top last), the weapons that attacked and the
    items used this fight, every other card among the captured souls (public, and no items held, so only
    the draw rule decides)."""
    table = Table(options)
    table.open_fight(monster, is_mimic)
    table.pile = list(pile)
    table.weapons = list(weapons)
    table.used = list(used)
    table.total = total
    table.attacks = attacks
    table.trait_spent = trait_spent
    table.blocked = blocked
    placed = {monster, *pile, *weapons, *used}
    assert len(placed) == 1 + len(pile) + len(weapons) + len(used), "a card placed twice"
    table.souls = [c for c in range(N_CARDS) if c not in placed]
    assert table.all_cards() == list(range(N_CARDS))
    assert pile_composition(table) == sorted(pile)
    return table


def mask(cards) -> np.uint64:
    return np.uint64(sum(1 << c for c in cards))


def view_of(table: Table) -> tuple:
    """The kernel's policy view (``state.V_*``) of a reference position."""
    opts = state.option_tuple(table.options)
    items = mask(table.items)
    discard = mask(table.discard)
    armed = (state.ARMED_WHETSTONE if table.whetstone_armed else 0) | (
        state.ARMED_FRENZY if table.frenzy_armed else 0)
    usable = kernel.usable_items(items, discard, table.can_attack(), table.attacks, armed, opts)
    return (table.power, table.trait, table.total, table.attacks, table.blocked, len(table.pile),
            len(table.discard), len(table.souls), int(table.is_mimic), int(table.can_attack()),
            int(table.trait_spent), armed, items, mask(table.stored), discard, usable, mask(table.pile),
            int(table.between), mask(table.whet_targets()))


def params(margin: float = 0) -> tuple:
    return pol.params_tuple(pol.POLICIES["counting"].param_vector({"margin": margin}))


def reference_draws(table: Table, margin: float = 0) -> bool:
    return CountingPolicy(margin).draws(table)


def kernel_draws(table: Table, margin: float = 0) -> bool:
    return bool(pol.counting_draws(view_of(table), state.option_tuple(table.options), params(margin)))


def decisions(table: Table, margin: float = 0) -> tuple[bool, bool]:
    """(reference, kernel) draw decisions; also checks the fight action both engines take matches."""
    ref = reference_draws(table, margin)
    ker = kernel_draws(table, margin)
    action = CountingPolicy(margin).fight(table, table.legal_actions(), None)
    kind, _, _ = pol.item_rules_fight(view_of(table), state.option_tuple(table.options), params(margin), True,
                                      True)
    assert kind == action.kind
    assert action.kind == (DRAW if ref else STOP)
    return ref, ker


def assert_order_free(table: Table, margin: float = 0, shuffles: int = 12) -> None:
    """The decision is the same whatever the order of the pile."""
    expected = decisions(table, margin)
    rng = random.Random(len(table.pile) * 7919 + table.total)
    for _ in range(shuffles):
        rng.shuffle(table.pile)
        assert decisions(table, margin) == expected


# ---------------------------------------------------------------- positions

def test_draws_when_most_cards_capture():
    """Monster 9 (no trait), total 5 (a Greatsword landed), gap 4, no Shield: a stop costs 4.
    Pile: 3 Staffs (4: exactly the gap, captured, cost 1 each) and a Fireball (5 > 4 on the second
    attack: a bust, the gap stays 4, cost 1 + 4 = 5). Mean (3 + 5) / 4 = 2 < 4: draw.
    As sums: 4 * 4 - 8 = 8 > 0."""
    table = position(card(4), [*STAFF, FIREBALL[0]], total=5, attacks=1, weapons=[GREATSWORD[0]])
    assert table.gap == 4 and table.damage_due == 4
    assert [one_attack(table, 4, RANGED), one_attack(table, 5, RANGED)] == [0, 4]
    assert decisions(table) == (True, True)
    assert_order_free(table)
    assert decisions(table, margin=1.99) == (True, True)    # 8 > 1.99 * 4
    assert decisions(table, margin=2) == (False, False)     # 8 > 8 is false


def test_stops_when_every_card_busts_though_threshold_would_draw():
    """The same fight (gap 4) with a pile of 3 Greatswords and a Fireball: every card is a 5, every draw
    busts: cost 1 + 4 = 5 each, mean 5 > 4: stop (sums: 16 - 20 = -4). ThresholdPolicy(2) draws (gap
    4 > 2): it does not count."""
    table = position(card(4), [*GREATSWORD, FIREBALL[0]], total=5, attacks=1, weapons=[FIREBALL[1]])
    assert decisions(table) == (False, False)
    assert_order_free(table)
    assert ThresholdPolicy(2).fight(table, table.legal_actions(), None).kind == DRAW
    assert decisions(table, margin=-1.01) == (True, True)   # -4 > -4.04


def test_a_tie_is_a_stop_and_margin_moves_it():
    """Gap 2 (monster 9, total 7): a stop costs 2. Pile: an Axe (2: captured, cost 1) and a Greatsword
    (bust, cost 1 + 2 = 3). Mean 2 = 2: no strict gain, stop; with margin -0.5 (draw unless 0.5 worse)
    it draws: 2 * 2 - 4 = 0 > -1."""
    table = position(card(4), [AXE[0], GREATSWORD[0]], total=7, attacks=2, weapons=[SWORD[0], MACE[0]])
    assert decisions(table) == (False, False)
    assert decisions(table, margin=-0.5) == (True, True)
    assert_order_free(table, margin=-0.5)


def test_traits_count_in_the_expectation():
    """Monster 7 Flying (first melee attack deals 0), total 0, 7 cards in the pile: a stop costs 7 (not
    more than the pile, so not the final monster). Pile: 3 Swords, 3 Maces (melee: cancelled, the gap
    stays 7: cost 8 each), a Staff (4 ranged, lands, gap 3: cost 4). Sum 48 + 4 = 52 > 7 * 7 = 49: stop.
    Once the trait is spent (a first melee attack was cancelled), Swords leave 3 (cost 4), Maces 4
    (cost 5), the Staff 3 (cost 4): 12 + 15 + 4 = 31 < 49: draw."""
    pile = [*SWORD, *MACE, STAFF[0]]
    fresh = position(card(1), pile)
    assert fresh.trait == rules.FLYING and fresh.damage_due == 7
    assert decisions(fresh) == (False, False)
    assert_order_free(fresh)
    spent = position(card(1), pile, attacks=1, trait_spent=True, weapons=[AXE[0]])
    assert decisions(spent) == (True, True)
    assert_order_free(spent)


def test_shields_count_in_the_expectation():
    """Monster 10 (no trait, the chest one), total 5, a Shield used (blocks 3): the gap is 5, a stop
    costs 2. Pile: 3 Greatswords (5: captured, cost 1), a Sword (4: gap 1, all blocked, cost 1), a Spear
    (3: gap 2, blocked, cost 1). Sum 5 < 5 * 2 = 10: draw. With 2 Shields (blocks 6) a stop costs 0 and
    no draw can cost less than its card: stop."""
    pile = [*GREATSWORD, SWORD[0], SPEAR[0]]
    one = position(card(7), pile, total=5, attacks=1, blocked=3, weapons=[FIREBALL[0]], used=[MACE[2]])
    assert one.damage_due == 2
    assert decisions(one) == (True, True)
    assert_order_free(one)
    two = position(card(7), pile, total=5, attacks=1, blocked=6, weapons=[FIREBALL[0]], used=MACE[1:])
    assert decisions(two) == (False, False)
    # a gap of 4 with one Shield: a stop costs 1, every draw at least 1: stop
    three = position(card(7), pile, total=6, attacks=2, blocked=3, weapons=[AXE[0], SWORD[1]], used=[MACE[2]])
    assert three.damage_due == 1 and decisions(three) == (False, False)


def test_the_overshoot_rule_counts_in_the_expectation():
    """A Mimic! (power 4, no trait) before the first attack: a stop costs 4. With 3 Greatswords in the
    pile that is more than the 3 cards left (a stop would end the game): draw. With an Axe as well (4
    cards; the Axe's 2 lands, gap 2, cost 3): with overshoot="first_attack" (default) a 5 captures (cost
    1): 3 + 3 = 6 < 4 * 4 = 16: draw; with overshoot="bust" a 5 busts (cost 1 + 4 = 5): 15 + 3 = 18 >
    16: stop."""
    mimic = card(9, 2)
    fatal = position(mimic, list(GREATSWORD), is_mimic=True)
    assert (fatal.power, fatal.trait, fatal.damage_due, len(fatal.pile)) == (4, NO_TRAIT, 4, 3)
    assert decisions(fatal) == (True, True)
    pile = [*GREATSWORD, AXE[0]]
    first = position(mimic, pile, is_mimic=True)
    assert one_attack(first, 5, MELEE) == 0
    assert decisions(first) == (True, True)
    assert_order_free(first)
    bust = position(mimic, pile, is_mimic=True, options=RuleOptions(overshoot="bust"))
    assert one_attack(bust, 5, MELEE) == 4
    assert decisions(bust) == (False, False)
    assert_order_free(bust)


def test_a_fatal_stop_always_draws():
    """Monster 11 (no trait), total 0 after one attack that busted, 4 cards left: a
    stop deals 11 > 4 (the final monster ends the game): draw, though no single card saves the fight
    (Daggers worth 1 with dagger_value="low", a Bow, an Axe: each leaves a gap of 9 or more, so the
    one-weapon mean alone would be 1 + 9.5 against 11)."""
    table = position(card(8), [*DAGGER[:2], BOW[0], AXE[0]], attacks=1, options=RuleOptions(dagger_value="low"))
    assert table.damage_due == 11
    assert decisions(table) == (True, True)
    assert_order_free(table)


def test_the_one_six_value_is_chosen_by_its_damage():
    """Monster 9 Evasive (first even attack deals 0), total 3 (a Mace, odd, landed), gap 6. A Dagger as 6
    (ThresholdPolicy's choice: 6 fits the gap) is even: cancelled, damage 6; as 1 (odd) it lands: gap 5,
    damage 5. counting takes 1, ThresholdPolicy 6.
    Pile (6 cards, a stop costs 6, 6 * 6 = 36): 3 Daggers (1 + 5 each = 18), an Axe (2, even: cancelled,
    1 + 6 = 7), a Spear and a Mace (3, odd: gap 3, 1 + 3 = 4 each): 33, so 36 - 33 = 3 > 0: draw. Had
    the Daggers been valued as 6 (1 + 6 each) the sum would be 36: no gain, a stop. Margin 0.5: 3 > 3 is
    false: stop."""
    table = position(card(5), [*DAGGER, AXE[0], SPEAR[1], MACE[2]], total=3, attacks=1, weapons=[MACE[1]])
    assert table.trait == rules.EVASIVE and table.damage_due == 6
    assert (one_attack(table, 6, MELEE), one_attack(table, 1, MELEE)) == (6, 5)
    assert (one_attack(table, 2, MELEE), one_attack(table, 3, MELEE | RANGED)) == (6, 3)
    assert decisions(table) == (True, True)
    assert_order_free(table)
    assert decisions(table, margin=0.5) == (False, False)
    table.pile.remove(DAGGER[0])   # drawn
    open_ = AttackOptions(value=True)
    assert CountingPolicy().attack(table, DAGGER[0], open_, None).value == 1
    assert ThresholdPolicy(2).attack(table, DAGGER[0], open_, None).value == 6
    opts = state.option_tuple(table.options)
    assert pol.counting_choice(view_of(table), opts, DAGGER[0]) == (1, 0, 5)
    stream = tuple(np.uint64(x) for x in seed_tuple(0, 0, STREAM_POLICY))
    for policy_id, value in ((pol.COUNTING, 1), (pol.THRESHOLD, 6)):
        choice = pol.decide_attack(policy_id, params(), stream, view_of(table), opts, DAGGER[0], state.OPEN_VALUE)
        assert choice[:5] == (value, 0, False, False, False)


def test_a_fitting_backpack_weapon_is_played_without_counting():
    """A Backpack weapon costs no card of the pile: counting plays one that fits even when it would not
    draw (the all-bust pile of ``test_stops_when_every_card_busts...`` with a Spear in the Backpack)."""
    table = position(card(4), [*GREATSWORD, FIREBALL[0]], total=5, attacks=1, weapons=[FIREBALL[1]])
    table.souls.remove(SPEAR[1])
    table.stored = [SPEAR[1]]
    assert pile_composition(table) == sorted(table.pile)
    action = CountingPolicy().fight(table, table.legal_actions(), None)
    assert action.kind == PLAY and action.card == SPEAR[1]
    kind, chosen, _ = pol.item_rules_fight(view_of(table), state.option_tuple(table.options), params(), True, True)
    assert (kind, chosen) == (PLAY, SPEAR[1])


# ---------------------------------------------------------------- whole games: order never matters

class OrderProbe(CountingPolicy):
    """CountingPolicy that, at every fight decision, checks the composition it computes from the public
    zones is the pile's, and that shuffling the pile (then restoring it) does not change its decision."""

    def __init__(self, seed: int):
        super().__init__()
        self.rng = random.Random(seed)
        self.checked = 0

    def fight(self, table, legal, rng):
        assert pile_composition(table) == sorted(table.pile)
        decision = super().fight(table, legal, rng)
        saved = list(table.pile)
        for _ in range(2):
            self.rng.shuffle(table.pile)
            assert super().fight(table, legal, rng) == decision
        table.pile[:] = saved
        self.checked += 1
        return decision


@pytest.mark.parametrize("variant", [{}, {"bust": "soul_lost", "overshoot": "zero_total", "spear_kind": "choose"},
                                     {"chest_loot": "draw_pile", "damage_from": "bottom", "starting_items": 3}],
                         ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) or "defaults")
def test_counting_never_reads_the_pile_order_in_real_games(variant):
    probe = OrderProbe(11)
    plain = CountingPolicy()
    for i in range(60):
        probed = reference.play(4, i, RuleOptions(**variant), probe)
        assert probed == reference.play(4, i, RuleOptions(**variant), plain)
    assert probe.checked > 500


def test_the_policies_trait_check_is_the_engines():
    """``policies.trait_cancels`` (used by the kernel and the policies) agrees with the reference's."""
    for trait in range(len(rules.TRAIT_NAMES)):
        table = Table()
        table.trait = trait
        for kinds in (MELEE, RANGED, MELEE | RANGED):
            for value in range(13):
                expected = table.trait_cancels(kinds, value)
                assert pol.trait_cancels(trait, kinds, value) == expected
