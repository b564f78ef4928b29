"""Kernel vs reference, game by game: the numba engine must reproduce the readable oracle exactly.

Both engines draw from the same (seed, index) streams, so every outcome field must agree for every
game; one differing game is a bug in one of them (or in a policy's two implementations: the baseline
and the test probe exist twice, as readable Python and as numba).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numba import njit
from numba.cpython.unsafe.tuple import tuple_setitem

from cursedsim.games.base import PolicySpec
from cursedsim.games.verflucht import GAME, policies as pol, reference, reference_policy
from cursedsim.games.verflucht.reference_policies import AttackChoice, Banish, BaselinePolicy, forced_plan
from cursedsim.games.verflucht.rules import END_NAMES, RuleOptions
from cursedsim.games.verflucht.user_policies import USER_POLICY_ID, NumbaPolicy
from cursedsim.rng import below_t

FIELDS = ("win", "score", "turns", "seals_used", "end", "attacks")


def mismatches(seed, players, options, policy, n_games, start=0, *, params=None, oracle=None):
    """Games (index, kernel outcome, reference outcome) that differ between the two engines; the
    reference plays ``oracle`` if given, else the policy's own reference twin."""
    if params is None:
        params = GAME.policy(policy).param_vector()
    kernel = GAME.run_chunk(seed, start, n_games, players, options, policy, params)
    oracle = oracle or reference_policy(policy, params)
    differing = []
    for i in range(n_games):
        ref = reference.play(seed, start + i, players, options, oracle)
        ker = tuple(int(kernel[f][i]) for f in FIELDS)
        exp = tuple(int(getattr(ref, f)) for f in FIELDS)
        if ker != exp:
            differing.append((start + i, ker, exp))
    return differing


# 5 player counts x 4 seal counts x 500 games = 10,000 baseline games through both engines.
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("seals", [0, 2, None, 6])
def test_baseline_kernel_equals_reference(players, seals):
    assert mismatches(11, players, RuleOptions(seals=seals), "baseline", 500) == []


# ---------------------------------------------------------------- every option x every policy
# The probe: a test policy (numba for the kernel, its Python twin for the reference engine) that mostly
# plays like baseline, so that it wins now and then and reaches the last turns, but also answers
# attacks with Seals while items could banish, with items for part of a group and a Seal for the rest
# (when the option allows it, also with no Seal left), with random full plans and with the forced plan,
# and banishes voluntarily at random. Every choice also depends on the public counts the engines hand
# over (Seals, face-down cards, display, discards), so an engine that passes a wrong one plays another
# game.

@njit
def probe_attack(policy_id, params, rng, hands, n_players, active, display, attackers, is_group,
                 seal_allowed, seals_left, deck_left, gone_creatures, gone_items):
    """Mode 0: a Seal; 1: random covers, a Seal for the rest (params[0]: partial allowed); 2: random
    covers, else a Seal or the forced plan; 3 (and a refused Seal): the forced plan, else a Seal;
    4-15: baseline's answer."""
    empty = (pol.ZERO, pol.ZERO, pol.ZERO, pol.ZERO, pol.ZERO)
    r, rng = below_t(rng, 16)
    mode = (r + seals_left + deck_left + pol.count(display) + pol.count(gone_creatures)
            + pol.count(gone_items)) % 16
    if mode >= 4:
        return pol.baseline_attack(hands, n_players, active, attackers, is_group, seal_allowed, rng)
    if mode == 0 and seal_allowed:
        return True, empty, empty, rng
    if mode == 1 or mode == 2:
        partial = mode == 1 and seal_allowed and params[0] >= 0.5
        n_elig = n_players if is_group else 1
        take = empty
        use = empty
        covered = pol.ZERO
        rest = attackers
        while rest != pol.ZERO:
            c = pol.highest(rest)
            rest &= ~pol.bit(c)
            j, rng = below_t(rng, n_elig)
            p = (active + j) % n_players
            pay, rng = pol.random_cover(hands[p] & ~use[p], c, rng)
            if pay != pol.ZERO:
                take = tuple_setitem(take, p, take[p] | pol.bit(c))
                use = tuple_setitem(use, p, use[p] | pay)
                covered |= pol.bit(c)
            elif not partial:
                return pol.give_up(hands, n_players, active, attackers, is_group, seal_allowed, rng)
        if covered == attackers:
            return False, take, use, rng
        return True, take, use, rng
    found, take, use = pol.forced_plan(hands, n_players, active, attackers, is_group)
    if found:
        return False, take, use, rng
    return True, empty, empty, rng


@njit
def probe_banish(policy_id, params, rng, hand, n_players, player, display, seals_left, deck_left,
                 gone_creatures, gone_items, last_turn):
    """In a last turn the highest payable Creature, paid lowest Items first; otherwise a random
    payable Creature paid with random Items, stop, or baseline's choice."""
    budget = min(pol.total(hand), 40)
    payable = display & ((pol.ONE << np.uint64(budget + 1)) - pol.ONE)
    n = pol.count(payable)
    if n == 0:
        return 0, pol.ZERO, rng
    if last_turn:
        c = pol.highest(payable)
        items = pol.ZERO
        rest = hand
        while pol.total(items) < c:
            items |= pol.bit(pol.lowest(rest))
            rest &= rest - pol.ONE
        return c, items, rng
    r, rng = below_t(rng, 16)
    k = (r + player + n_players + seals_left + deck_left + pol.count(gone_items)) % 16
    if k == 0:
        j, rng = below_t(rng, n)
        c = pol.nth(payable, j)
        items, rng = pol.random_cover(hand, c, rng)
        return c, items, rng
    if k == 1:
        return 0, pol.ZERO, rng
    c, items = pol.baseline_banish(hand, display)
    return c, items, rng


class ProbePolicy:
    """The probe's Python twin: the same decisions from the same policy stream, as plan dicts.
    ``used`` collects the kinds of answers given, so a test can check the probe reached every path."""

    def __init__(self, params):
        self.partial = params[0] >= 0.5
        self.baseline = BaselinePolicy()
        self.used: set[str] = set()

    @staticmethod
    def _cover(items, value, rng_):
        """Random items one at a time until their sum reaches value (numba: ``random_cover``)."""
        if sum(items) < value:
            return None
        rest, chosen = sorted(items), []
        while sum(chosen) < value:
            chosen.append(rest.pop(rng_.below(len(rest))))
        return chosen

    def attack(self, table, attackers, is_group, seal_allowed, rng_):
        """``probe_attack``, read from the table."""
        mode = (rng_.below(16) + table.seals_left + len(table.face_down) + len(table.display)
                + len(table.discard_creatures) + len(table.discard_items)) % 16
        if mode >= 4:
            return self.baseline.attack(table, attackers, is_group, seal_allowed, rng_)
        if mode == 0 and seal_allowed:
            self.used.add("seal")
            return AttackChoice(seal=True)
        if mode in (1, 2):
            partial = mode == 1 and seal_allowed and self.partial
            eligible = len(table.eligible(is_group))
            left = {p: set(hand) for p, hand in enumerate(table.hands)}
            plan: dict[int, tuple[list[int], list[int]]] = {}
            for creature in attackers:
                p = (table.active + rng_.below(eligible)) % table.players
                pay = self._cover(left[p], creature, rng_)
                if pay is not None:
                    left[p] -= set(pay)
                    creatures, items = plan.setdefault(p, ([], []))
                    creatures.append(creature)
                    items.extend(pay)
                elif not partial:
                    if seal_allowed:
                        self.used.add("seal")
                        return AttackChoice(seal=True)
                    self.used.add("forced")
                    return AttackChoice(seal=False, plan=forced_plan(table, attackers, is_group))
            plan = {p: (tuple(c), tuple(i)) for p, (c, i) in plan.items()}
            if sum(len(c) for c, _ in plan.values()) == len(attackers):
                self.used.add("random plan")
                return AttackChoice(seal=False, plan=plan)
            self.used.add("items and a seal" if plan else "seal")
            if plan and table.seals_left == 0:
                self.used.add("items and no seal left")
            return AttackChoice(seal=True, plan=plan)
        if table.plan_exists(attackers, is_group):
            self.used.add("forced")
            return AttackChoice(seal=False, plan=forced_plan(table, attackers, is_group))
        self.used.add("seal")
        return AttackChoice(seal=True)

    def banish(self, table, player, last_turn, rng_):
        """``probe_banish``, read from the table."""
        hand = table.hands[player]
        payable = sorted(c for c in table.display if c <= min(sum(hand), 40))
        if not payable:
            return None
        if last_turn:
            self.used.add("last turn")
            items = []
            for item in sorted(hand):
                if sum(items) >= payable[-1]:
                    break
                items.append(item)
            return Banish(payable[-1], tuple(items))
        k = (rng_.below(16) + player + table.players + table.seals_left + len(table.face_down)
             + len(table.discard_items)) % 16
        if k == 0:
            creature = payable[rng_.below(len(payable))]
            return Banish(creature, tuple(self._cover(hand, creature, rng_)))
        if k == 1:
            return None
        return self.baseline.banish(table, player, last_turn, rng_)


PROBE = PolicySpec("probe", USER_POLICY_ID, "test policy: Seals, partial plans, forced plans",
                   params={"partial": 0.0}, impl=NumbaPolicy(probe_attack, probe_banish))

OPTIONS = [RuleOptions(partial_items_before_seal=partial, voluntary_seal=voluntary, drawer_last_turn=drawer)
           for partial in (False, True) for voluntary in (True, False) for drawer in (True, False)]
#: Seals by player count in the option matrix: the rulebook's, none (the Seal is refused whenever a
#: plan exists from the first attack on), few, and many (long games, many last turns).
SEALS = {1: None, 2: 0, 3: None, 4: 2, 5: 8}


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(
    f"{name}={getattr(o, name)}"
    for name in ("partial_items_before_seal", "voluntary_seal", "drawer_last_turn")))
@pytest.mark.parametrize("policy", ["baseline", "smart", "random", "probe"])
def test_kernel_equals_reference_for_every_option_and_policy(policy, options):
    """2,000 games (400 at each player count, with the seal counts of SEALS) per option combination
    and policy, the probe's numba decisions in the kernel against its Python twin on the reference."""
    oracle = None
    for players in range(1, 6):
        cell = dataclasses.replace(options, seals=SEALS[players])
        if policy == "probe":
            params = PROBE.param_vector({"partial": float(options.partial_items_before_seal)})
            oracle = oracle or ProbePolicy(params)
            assert mismatches(29, players, cell, PROBE, 400, params=params, oracle=oracle) == []
        else:
            assert mismatches(29, players, cell, policy, 400) == []
    if policy == "probe":  # the probe reached every kind of answer the options allow
        expected = {"seal", "forced", "random plan", "last turn"}
        if options.partial_items_before_seal:
            expected |= {"items and a seal", "items and no seal left"}
        assert oracle.used == expected


def test_a_chunk_is_the_same_games_wherever_it_starts():
    """Game i depends only on (seed, i): playing 100..199 alone gives rows 100..199 of 0..199."""
    params = GAME.policy("baseline").param_vector()
    whole = GAME.run_chunk(3, 0, 200, 3, RuleOptions(), "baseline", params)
    part = GAME.run_chunk(3, 100, 100, 3, RuleOptions(), "baseline", params)
    for f in FIELDS:
        assert (whole[f][100:] == part[f]).all(), f


def test_replay_tells_the_game_the_kernel_played():
    """The replay log of a row ends the way the row says: win with its score, or the losing attack."""
    params = GAME.policy("baseline").param_vector()
    rows = GAME.run_chunk(2, 0, 40, 4, RuleOptions(), "baseline", params)
    for i in range(40):
        log = GAME.replay(2, i, 4, RuleOptions(), "baseline", params)
        assert f"end: {END_NAMES[rows['end'][i]]}" in log.splitlines()[0]
        if rows["win"][i]:
            assert log.rstrip().endswith(f"score {rows['score'][i]}")
        else:
            assert "LOSS" in log.splitlines()[-1]
