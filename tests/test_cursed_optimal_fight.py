"""optimal_fight: the fight DP against brute force through the reference engine (exact fractions), the
policy's value over every order of a small pile, legal full games, and on common random numbers a
fight-level objective at least the heuristics' (tolerance from the sample size)."""

from __future__ import annotations

import copy
import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

import cursedsim
from cursedsim import rng
from cursedsim.games.cursed import reference as R
from cursedsim.games.cursed.optimal_fight import (
    PARAMS,
    Fight,
    Objective,
    OptimalFightPolicy,
    fight_value,
    table_state,
)
from cursedsim.games.cursed.reference import DRAW, PLAY, USE, Action, AttackChoice, Table
from cursedsim.games.cursed.reference_policies import CountingPolicy, ThresholdPolicy
from cursedsim.games.cursed.rules import (
    BIG_TURKEY_DINNER,
    CARD_WEAPON_HIGH,
    CARD_WEAPON_POWER,
    ITEM_OF_CARD,
    LARGE_BACKPACK,
    MELEE,
    RANGED,
    SCROLL_OF_PURGE_LIFE,
    SHIELD,
    SMOKE_BOMB,
    RuleOptions,
)

#: An exact objective: expected cards left over (objective 1), every parameter a Fraction.
EXACT = {name: Fraction(value).limit_denominator(10) for name, value in {**PARAMS, "objective": 1}.items()}
DP_USES = (SHIELD, SCROLL_OF_PURGE_LIFE, SMOKE_BOMB)


class Scripted:
    """Answers one attack as told (the brute force enumerates every answer)."""

    def __init__(self, choice: AttackChoice, crystal: bool):
        self.choice, self.spend = choice, crystal

    def fight(self, table, legal, rng_):   # never asked: the brute force applies actions itself
        raise AssertionError("not asked")

    def attack(self, table, card, open_, rng_):
        return self.choice

    def crystal(self, table, card, total, rng_):
        return self.spend


def answers(table: Table, card: int) -> list[AttackChoice]:
    """Every legal answer when ``card`` attacks (``Table.attack_options``)."""
    open_ = table.attack_options(card)
    values = [CARD_WEAPON_POWER[card], CARD_WEAPON_HIGH[card]] if open_.value else [0]
    kinds = [MELEE, RANGED] if open_.kind else [0]
    flags = [(False, True) if getattr(open_, name) else (False,) for name in ("relic", "whetstone", "frenzy")]
    return [AttackChoice(v, k, *f) for v in values for k in kinds for f in itertools.product(*flags)]


def close(table: Table, how: int) -> None:
    """``Table.fight``'s closing steps for a fight that closed ``how``."""
    if how == R.CLOSE_SMOKE:
        table.escape()
        return
    damage = 0 if how == R.CLOSE_CAPTURE else table.stop()
    if damage > len(table.pile):
        table.final_monster(damage, how == R.CLOSE_LOST)
        return
    table.take_damage(damage)
    if how == R.CLOSE_LOST:
        table.lose_soul()
    else:
        table.capture()


def key(table: Table) -> tuple:
    """Everything of a laid-out fight that its future reads, card by card (no merging)."""
    return (tuple(sorted(table.pile)), table.total, table.attacks, table.trait_spent, table.blocked,
            tuple(sorted(table.items)), tuple(sorted(table.stored)), len(table.weapons), len(table.used),
            len(table.souls))


def brute_force(table: Table, objective: Objective, exact: bool, memo: dict | None = None):
    """Expectimax by the reference engine itself: at a decision point the best of the DP's actions
    (DRAW, PLAY, USE of Shield/Scroll/Smoke Bomb, STOP); a draw averages over every card of the pile
    equally likely on top (each order of the pile equally likely); at an attack the best answer and
    Crystal choice. Returns the expected ``fight_value``."""
    memo = {} if memo is None else memo
    if key(table) in memo:
        return memo[key(table)]
    best = None
    for action in table.legal_actions():
        if action.kind == USE and ITEM_OF_CARD[action.card] not in DP_USES:
            continue
        if action.kind == DRAW:
            cards = list(table.pile)
            value = 0
            for card in cards:
                value += (Fraction(1, len(cards)) if exact else 1 / len(cards)) * attack_value(
                    table, action, card, objective, exact, memo)
        elif action.kind == PLAY:
            value = attack_value(table, action, action.card, objective, exact, memo)
        else:
            after = copy.deepcopy(table)
            how = after.apply(action, None, None)
            value = leaf(after, how, objective, exact, memo)
        best = value if best is None else max(best, value)
    memo[key(table)] = best
    return best


def attack_value(table: Table, action: Action, card: int, objective: Objective, exact: bool, memo: dict):
    best = None
    for choice in answers(table, card):
        for crystal in ((False, True) if table.held(0) >= 0 else (False,)):
            after = copy.deepcopy(table)
            if action.kind == DRAW:
                after.pile.remove(card)
                after.pile.append(card)
            how = after.apply(action, Scripted(choice, crystal), None)
            value = leaf(after, how, objective, exact, memo)
            best = value if best is None else max(best, value)
    return best


def leaf(table: Table, how, objective: Objective, exact: bool, memo: dict):
    if how is None:
        return brute_force(table, objective, exact, memo)
    close(table, how)
    return fight_value(objective, table)


def laid_out(options: RuleOptions, monster: int, pile, items=(), stored=(), souls=0) -> Table:
    """A table at the first decision point of a fight against ``monster``; the other cards are the
    captured souls and the discard pile (every card is somewhere: the player knows the pile's
    composition from the public zones)."""
    placed = [monster, *pile, *items, *stored]
    assert len(set(placed)) == len(placed), "a card in two places"
    rest = [card for card in range(30) if card not in placed]
    table = Table(options, deck_rng=rng.Stream(5, 5, rng.STREAM_DECK))
    table.pile = list(pile)
    table.items = list(items)
    table.stored = list(stored)
    table.souls = rest[:souls]
    table.discard = rest[souls:]
    table.open_fight(monster, False)
    return table


#: (name, options, monster card, pile, items, stored, souls): hand-built fights over every rule the DP
#: reads. Cards: 0-2 Greatsword 5 / Explodes 5, 3-5 Fireball 5 / Flying 7, 6-8 Sword 4 / Ethereal 8,
#: 9-11 Staff 4 / 8, 12-14 Spear 3 / 9, 15-17 Mace 3 / Evasive 9, 18-20 Axe 2 / Tough Skin 10,
#: 21-23 Short Bow 2 / 10, 24-26 Throwing Daggers 1/6 / 11, 27-29 Dagger 1/6 / 11. Items: 0-2 Crystal,
#: 6-8 Smoke Bomb, 9-11 Relic, 12-14 Scroll, 15-17 Shield, 18-20 Whetstone, 21-23 Frenzy.
SCENARIOS = [
    ("plain", RuleOptions(), 9, [18, 12, 6, 24, 21, 3], (), (), 0),
    ("flying-crystal-spear", RuleOptions(), 3, [12, 27, 19, 0, 22], (2,), (), 2),
    ("ethereal-relic-whetstone", RuleOptions(), 6, [13, 9, 25, 20, 15], (10, 18), (), 3),
    ("evasive-frenzy-shield-scroll", RuleOptions(), 16, [14, 4, 23, 26, 7], (21, 15, 13), (), 4),
    ("toughskin-smoke-backpack", RuleOptions(), 19, [11, 28, 22, 5, 13], (6,), (16, 25), 1),
    ("explodes", RuleOptions(), 1, [24, 18, 13, 9, 2], (17,), (), 0),
    ("last-soul", RuleOptions(), 27, [5, 12, 15, 24], (16,), (), 7),
    ("variants", RuleOptions(overshoot="bust", bust="soul_lost", dagger_value="choose", spear_kind="choose",
                             smoke_bomb_returns_items=True), 4, [13, 25, 19, 8, 28], (7, 17), (), 2),
    ("zero-total", RuleOptions(overshoot="zero_total", ignoring_attack_spends_trait=True,
                               parity_includes_whetstone=True, final_monster_captures=True),
     17, [14, 26, 3, 20], (11, 19, 1), (), 7),
]


@pytest.mark.parametrize("name, options, monster, pile, items, stored, souls", SCENARIOS,
                         ids=[s[0] for s in SCENARIOS])
def test_dp_equals_brute_force_expectimax_by_the_engine_exactly(name, options, monster, pile, items, stored, souls):
    table = laid_out(options, monster, pile, items, stored, souls)
    objective = Objective(EXACT, options.win_souls)
    fight = Fight(options, objective, table.power, table.trait, souls, 1, exact=True)
    value = fight.value(table_state(table))
    assert isinstance(value, Fraction)
    assert value == brute_force(table, objective, exact=True)


@pytest.mark.parametrize("name, options, monster, pile, items, stored, souls",
                         [s for s in SCENARIOS if s[0] in ("plain", "last-soul", "evasive-frenzy-shield-scroll")],
                         ids=["plain", "last-soul", "evasive"])
def test_dp_equals_brute_force_with_the_win_objective(name, options, monster, pile, items, stored, souls):
    table = laid_out(options, monster, pile, items, stored, souls)
    objective = Objective(PARAMS, options.win_souls)
    fight = Fight(options, objective, table.power, table.trait, souls, 1)
    assert fight.value(table_state(table)) == pytest.approx(brute_force(table, objective, exact=False), abs=1e-12)


def play_fight(table: Table, policy) -> Table:
    """The fight of ``table`` (laid out at its first decision point) played to its end by ``policy``."""
    table.fight(table.monster, table.is_mimic, policy, rng.Stream(1, 1, rng.STREAM_POLICY))
    return table


@pytest.mark.parametrize("name, options, monster, pile, items, stored, souls",
                         [s for s in SCENARIOS if len(s[3]) <= 5], ids=[s[0] for s in SCENARIOS if len(s[3]) <= 5])
def test_the_policy_over_every_order_of_the_pile_earns_the_dp_value(name, options, monster, pile, items, stored,
                                                                   souls):
    """Every permutation of the pile played through ``Table.fight``: the mean realised value (exact) is
    the DP's value, so the policy plays what the DP computed and the engine agrees with its model."""
    base = laid_out(options, monster, pile, items, stored, souls)
    policy = OptimalFightPolicy(EXACT, exact=True)
    objective = Objective(EXACT, options.win_souls)
    expected = Fight(options, objective, base.power, base.trait, souls, 1, exact=True).value(table_state(base))
    orders = list(itertools.permutations(pile))
    total = sum(fight_value(objective, play_fight(laid_out(options, monster, order, items, stored, souls), policy))
                for order in orders)
    assert Fraction(total, len(orders)) == expected


def test_a_stop_that_kills_is_never_taken_while_a_draw_can_save_the_game():
    """Seven souls, 2 of 8 dealt by an Axe, two cards left: stopping ends the game (damage 6 > 2, the
    final monster). Drawing wins when the Throwing Daggers come first (as 6: exactly 8); the Short Bow
    first leaves a gap of 4 that the Daggers (1 or a busting 6) cannot close. So: draw, worth 1/2."""
    options = RuleOptions()
    table = laid_out(options, 9, [24, 21], stored=(18,), souls=7)   # Staff / monster power 8, no trait
    table.stored = []
    table.total, table.attacks, table.weapons = 2, 1, [18]
    fight = Fight(options, Objective(PARAMS, 8), table.power, table.trait, 7, 1)
    value, action = fight.best(table_state(table))
    assert action == ("draw",)
    assert value == pytest.approx(0.5)


# ---------------------------------------------------------------- full games

@pytest.mark.parametrize("options", [
    RuleOptions(), pytest.param(RuleOptions(starting_items=4), marks=pytest.mark.slow),
    RuleOptions(item_timing="before_draw", whetstone_in_play=True),
    RuleOptions(bust="soul_lost", overshoot="zero_total", dagger_value="choose", spear_kind="choose"),
], ids=["default", "four-items", "before-draw", "variants"])
def test_the_policy_plays_full_games_legally(options):
    policy = OptimalFightPolicy()
    for index in range(3):
        outcome = R.play(2026, index, options, policy)   # IllegalDecision if any answer breaks a rule
        assert outcome.end in (0, 1, 2) and 0 <= outcome.souls <= 30


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")   # 3 games: a zero variance
def test_registered_and_compared_on_common_random_numbers():
    """The paired comparison runs: optimal_fight, counting and threshold on the same 3 deals."""
    result = cursedsim.compare("cursed", ["optimal_fight", "counting", "threshold"], 3, seed=2026, pairs="all",
                               progress=False)
    assert set(result.frames) == {"optimal_fight", "counting", "threshold"}
    assert len(result.pairs) == 3 and result.pairs["n"].eq(3).all()
    a = result.frames["optimal_fight"]
    assert list(a["game_index"]) == list(result.frames["counting"]["game_index"]) == [0, 1, 2]


# ---------------------------------------------------------------- the fight-level objective, paired

class Snapshots:
    """CountingPolicy that keeps a copy of the table at the first decision point of every fight."""

    def __init__(self):
        self.inner, self.tables = CountingPolicy(), []

    def fight(self, table, legal, rng_):
        if not table.between and table.attacks == 0 and not table.used and not table.blocked:
            if not self.tables or self.tables[-1][1] != (table.rounds, table.monster, len(table.souls)):
                self.tables.append((copy.deepcopy(table), (table.rounds, table.monster, len(table.souls))))
        return self.inner.fight(table, legal, rng_)

    def attack(self, table, card, open_, rng_):
        return self.inner.attack(table, card, open_, rng_)

    def crystal(self, table, card, total, rng_):
        return self.inner.crystal(table, card, total, rng_)


def test_dp_objective_is_at_least_the_heuristics_on_the_same_fights():
    """Fight starts of counting's games (seed 2026, games 0-3) without a Big Turkey Dinner or Large
    Backpack (items the DP leaves to counting's rules), each replayed on the same 30 shuffles of its pile
    by each policy: the mean realised objective of optimal_fight is at least counting's and threshold's,
    less 4 standard errors of the paired differences (by construction the DP's expectation is the
    maximum over every policy of these decisions, for each start)."""
    snap = Snapshots()
    for index in range(4):
        R.play(2026, index, RuleOptions(), snap)
    starts = [t for t, _ in snap.tables
              if all(ITEM_OF_CARD[c] not in (BIG_TURKEY_DINNER, LARGE_BACKPACK) for c in t.items)]
    assert len(starts) >= 10
    objective = Objective(PARAMS, 8)
    policies = {"optimal_fight": OptimalFightPolicy(), "counting": CountingPolicy(), "threshold": ThresholdPolicy(2)}
    values = {name: [] for name in policies}
    shuffler = random.Random(14)
    for start in starts:
        for _ in range(30):
            order = list(start.pile)
            shuffler.shuffle(order)
            for name, policy in policies.items():
                table = copy.deepcopy(start)
                table.pile = list(order)
                values[name].append(fight_value(objective, play_fight(table, policy)))
    dp = np.array(values["optimal_fight"])
    for name in ("counting", "threshold"):
        diff = dp - np.array(values[name])
        se = diff.std(ddof=1) / np.sqrt(len(diff))
        assert diff.mean() >= -4 * se, (name, diff.mean(), se)
