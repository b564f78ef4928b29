"""Policies for the reference engine of Verflucht!: the decision types, the readable ``baseline``, and
an adapter that plays any numba policy of ``policies.py`` on the reference engine.

A policy is any object with the two methods of :class:`Policy`; the engine (``reference.Table``)
validates every decision and raises ``reference.IllegalDecision`` on one the rules do not allow. A
policy gets the live table: it must not change it, and should read only what its player may know
(its own hand, the display, the discard pile, the Seals, how many cards are face down) plus what players
may say aloud -- in a group attack, which Creatures each of them can banish. A user-written policy:

    from cursedsim.games.verflucht.reference import play
    from cursedsim.games.verflucht.reference_policies import AttackChoice, Banish, forced_plan
    from cursedsim.games.verflucht.rules import RuleOptions

    class Reckless:
        "Seals every attack it may; banishes the highest Creature that the best item in hand beats."
        def attack(self, table, attackers, is_group, seal_allowed, rng):
            if seal_allowed:
                return AttackChoice(seal=True)
            # no Seal left (or option voluntary_seal off) while items can banish: banish
            return AttackChoice(seal=False, plan=forced_plan(table, attackers, is_group))
        def banish(self, table, player, last_turn, rng):
            best = max(table.hands[player], default=0)
            beaten = [c for c in table.display if c <= best]
            return Banish(max(beaten), (best,)) if beaten else None

    outcome = play(seed=1, index=0, players=3, options=RuleOptions(), policy=Reckless())

Policies that draw random numbers use the ``rng`` they are given: the policy stream of the game,
separate from the cards.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from cursedsim.games.verflucht.reference import find_assignment
from cursedsim.games.verflucht.rules import LOST_SCORE, MAX_PLAYERS
from cursedsim.games.verflucht.state import mask_of, values_of
from cursedsim.rng import Stream

if TYPE_CHECKING:
    from cursedsim.games.verflucht.reference import Table


@dataclass(frozen=True)
class AttackChoice:
    """The answer to an attack.

    ``seal=True`` answers with a Seal. ``plan`` maps a player to (creatures they take, items they
    spend); without a Seal it must cover every attacker, with a Seal it must be empty unless option
    ``partial_items_before_seal`` is on (then it covers part of a group and the Seal takes the rest).
    """

    seal: bool
    plan: Mapping[int, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Banish:
    """One voluntary banishment: a display Creature and the Items (values) spent on it."""

    creature: int
    items: tuple[int, ...]


class Policy(Protocol):
    """What the reference engine asks a policy. Any object with these two methods is a policy."""

    def attack(self, table: Table, attackers: tuple[int, ...], is_group: bool, seal_allowed: bool,
               rng: Stream) -> AttackChoice:
        """Answer an attack on ``table.active``'s turn.

        ``attackers`` are the attacking Creature values, highest first; ``is_group`` tells a group
        attack (anyone may banish) from a sixth-creature attack (the active player alone).
        ``seal_allowed`` is False while items could banish every attacker and either no green Seal
        is left ("you have no choice but to immediately banish") or option ``voluntary_seal`` is off;
        the policy must then banish them all (:func:`forced_plan` is one legal way). A Seal answered
        with none left (so when no plan exists) loses the game.
        """
        ...

    def banish(self, table: Table, player: int, last_turn: bool, rng: Stream) -> Banish | None:
        """One voluntary banishment by ``player`` (the active player), or None to end their turn.

        Asked after the draw and any attack, again after each banishment; ``last_turn`` is True in
        the last turns after the face-down cards ran out.
        """
        ...


# ---------------------------------------------------------------- forced plan

def forced_plan(table: Table, attackers: tuple[int, ...], is_group: bool
                ) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """A banishing of all attackers for when a Seal is not allowed (so one exists): the first
    assignment by depth-first search (creatures highest first, players active first then in turn
    order) whose whole-hand totals suffice; each player spends items highest first until their sum
    reaches the total of their creatures. Deterministic; the numba twin is ``policies.forced_plan``."""
    order = table.eligible(is_group)
    creatures = sorted(attackers, reverse=True)
    assignment = find_assignment(creatures, {p: sum(table.hands[p]) for p in order}, order)
    if assignment is None:
        raise ValueError("forced_plan: no banishing plan exists for attackers "
                         + ", ".join(map(str, creatures)))
    plan = {}
    for player in order:
        mine = tuple(c for c in creatures if assignment[c] == player)
        if not mine:
            continue
        need, spent = sum(mine), []
        for item in sorted(table.hands[player], reverse=True):
            if sum(spent) >= need:
                break
            spent.append(item)
        plan[player] = (mine, tuple(spent))
    return plan


# ---------------------------------------------------------------- baseline

def smallest_cover(items: list[int], value: int) -> tuple[int, ...] | None:
    """The baseline's way to beat one Creature of ``value`` from sorted ``items``: the smallest single
    item >= value; else the pair a < b with the smallest sum >= value (ties: the smaller a); else None.
    """
    i = bisect_left(items, value)
    if i < len(items):
        return (items[i],)
    best = None
    for k, a in enumerate(items):
        j = bisect_left(items, value - a, k + 1)
        if j < len(items) and (best is None or a + items[j] < best[0] + best[1]):
            best = (a, items[j])
    return best


class BaselinePolicy:
    """The readable ``baseline``: cover attackers cheaply, else seal; banish voluntarily only when a
    single item fits a Creature within a margin of 3.

    Attack: attackers highest first; each goes to the first player (the active one, then -- in group
    attacks only -- the others in turn order) who covers it with :func:`smallest_cover`; those items
    are then spent. If some attacker cannot be covered, no item is spent and a Seal answers the
    attack; with no Seal left (or option ``voluntary_seal`` off) it banishes with :func:`forced_plan`;
    only when no plan exists is the game lost.
    Voluntary banishing: the highest display Creature for which the smallest single item >= its value
    exceeds it by at most ``VOLUNTARY_MARGIN``; one at a time, the engine asks again.
    """

    VOLUNTARY_MARGIN = 3

    def attack(self, table: Table, attackers: tuple[int, ...], is_group: bool, seal_allowed: bool,
               rng: Stream) -> AttackChoice:
        """Each attacker, highest first, to the first player who covers it; else a Seal."""
        order = table.eligible(is_group)
        available: dict[int, list[int]] = {}  # each asked player's unspent items, sorted
        plan: dict[int, tuple[list[int], list[int]]] = {}
        for creature in attackers:
            for player in order:
                if player not in available:
                    available[player] = sorted(table.hands[player])
                items = smallest_cover(available[player], creature)
                if items is not None:
                    for item in items:
                        available[player].remove(item)
                    creatures, spent = plan.setdefault(player, ([], []))
                    creatures.append(creature)
                    spent.extend(items)
                    break
            else:
                if seal_allowed:
                    return AttackChoice(seal=True)
                return AttackChoice(seal=False, plan=self.forced_plan(table, attackers, is_group))
        return AttackChoice(seal=False, plan={p: (tuple(c), tuple(i)) for p, (c, i) in plan.items()})

    def forced_plan(self, table: Table, attackers: tuple[int, ...], is_group: bool
                    ) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
        """:func:`forced_plan`, the banishing the baseline plays when a Seal is not allowed."""
        return forced_plan(table, attackers, is_group)

    def banish(self, table: Table, player: int, last_turn: bool, rng: Stream) -> Banish | None:
        """The highest Creature a single item beats by at most VOLUNTARY_MARGIN, or None."""
        hand = table.hands[player]
        if not hand or not table.display:
            return None
        margin = self.VOLUNTARY_MARGIN
        for creature in sorted(table.display, reverse=True):
            # the smallest item >= creature, if it is at most creature + margin
            for item in range(creature, creature + margin + 1):
                if item in hand:
                    return Banish(creature, (item,))
        return None


# ---------------------------------------------------------------- numba policies on the reference

class KernelPolicy:
    """Plays numba policy ``policy_id`` of ``policies.py`` (with parameter vector ``params``), or a
    user's numba ``decide_attack``/``decide_banish``, on the reference engine, so kernel and reference
    can be compared under every policy.

    The numba policies take everything by value: hands as a ``MAX_PLAYERS``-tuple of bitmasks, the
    parameters as a fixed-length float tuple and the policy stream as a state tuple, which they return
    advanced; it is written back into ``rng`` so the stream moves exactly as in the kernel.
    """

    def __init__(self, policy_id: int, params, decide_attack=None, decide_banish=None):
        from cursedsim.games.verflucht import policies
        self.policy_id = int(policy_id)
        self.params = policies.params_tuple(params)
        self.decide_attack = decide_attack or policies.decide_attack
        self.decide_banish = decide_banish or policies.decide_banish

    @staticmethod
    def _hands(table: Table) -> tuple:
        masks = [mask_of(hand) for hand in table.hands]
        return tuple(masks + [np.uint64(0)] * (MAX_PLAYERS - len(masks)))

    def attack(self, table: Table, attackers: tuple[int, ...], is_group: bool, seal_allowed: bool,
               rng: Stream) -> AttackChoice:
        """``decide_attack``; its take/use masks become the plan (players with either set)."""
        players = table.players
        seal, take, use, state = self.decide_attack(
            self.policy_id, self.params, tuple(np.uint64(w) for w in rng.s), self._hands(table),
            players, table.active, mask_of(table.display), mask_of(attackers), bool(is_group),
            bool(seal_allowed), table.seals_left, len(table.face_down),
            mask_of(table.discard_creatures), mask_of(table.discard_items))
        rng.s = [int(w) for w in state]
        plan = {p: (tuple(sorted(values_of(take[p]), reverse=True)), values_of(use[p]))
                for p in range(MAX_PLAYERS) if take[p] or use[p]}
        return AttackChoice(seal=bool(seal), plan=plan)

    def banish(self, table: Table, player: int, last_turn: bool, rng: Stream) -> Banish | None:
        """``decide_banish``; creature 0 means stop."""
        creature, items, state = self.decide_banish(
            self.policy_id, self.params, tuple(np.uint64(w) for w in rng.s),
            mask_of(table.hands[player]), table.players, player, mask_of(table.display),
            table.seals_left, len(table.face_down), mask_of(table.discard_creatures),
            mask_of(table.discard_items), bool(last_turn))
        rng.s = [int(w) for w in state]
        if int(creature) == 0:
            return None
        return Banish(int(creature), values_of(items))


class RolloutPolicy:
    """The ``rollout`` search on the reference engine: each decision is ``rollout.decide`` on the kernel
    state arrays laid out from the table, every playout of every candidate played (the kernel stops
    hopeless candidates early), so reference and kernel play the same games. The search's
    streams are keyed by the game (``table.origin``) and the decision's number within it."""

    def __init__(self, params):
        from cursedsim.games.verflucht import rollout
        self.rollout = rollout
        self.n, self.base, self.base_params, self.cap, self.waste, self.margin = rollout.settings(params)
        self.work = rollout.new_workspace()
        self.decisions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _decide(self, table: Table, rng: Stream, phase: int, attackers=(), is_group=False, player=0):
        from cursedsim.games.verflucht import kernel, state
        seed, index = table.origin
        if seed is None:
            raise ValueError("rollout plays dealt games only (Table.deal): its streams are keyed by (seed, game)")
        deck, hands, masks, counts = state.new_arrays()
        for p, hand in enumerate(table.hands):
            hands[p] = mask_of(hand)
        masks[state.DISPLAY] = mask_of(table.display)
        masks[state.GONE_CREATURES] = mask_of(table.discard_creatures)
        masks[state.GONE_ITEMS] = mask_of(table.discard_items)
        masks[state.ATTACKERS] = mask_of(attackers)
        masks[state.RNG_POLICY:state.RNG_POLICY + 4] = rng.s
        counts[state.N_DECK] = len(table.face_down)
        counts[state.SEALS_LEFT] = table.seals_left
        counts[state.ACTIVE] = table.active
        counts[state.PHASE] = phase
        counts[state.IS_GROUP] = is_group
        counts[state.PLAYER] = player
        counts[state.LAST_LEFT] = table.last_turns_left
        counts[state.SCORE] = LOST_SCORE
        opts = tuple(np.int64(v) for v in state.option_vector(table.options, table.players))
        decision = self.decisions.get(table, 0)
        self.decisions[table] = decision + 1
        action = self.rollout.decide(
            deck, hands, masks, counts, np.int64(table.players), opts, np.int64(self.base), self.base_params,
            np.int64(self.n), np.int64(self.cap), np.int64(self.waste), np.float64(self.margin),
            table.options.information == "private",
            np.uint64(seed), np.int64(index), np.int64(decision), False, False, self.work)
        rng.s = [int(w) for w in masks[state.RNG_POLICY:state.RNG_POLICY + 4]]
        return action

    def attack(self, table: Table, attackers: tuple[int, ...], is_group: bool, seal_allowed: bool,
               rng: Stream) -> AttackChoice:
        from cursedsim.games.verflucht import kernel
        _, seal, take, use, _, _ = self._decide(table, rng, kernel.PH_ATTACK, attackers, is_group, table.active)
        plan = {p: (tuple(sorted(values_of(take[p]), reverse=True)), values_of(use[p]))
                for p in range(MAX_PLAYERS) if take[p] or use[p]}
        return AttackChoice(seal=bool(seal), plan=plan)

    def banish(self, table: Table, player: int, last_turn: bool, rng: Stream) -> Banish | None:
        from cursedsim.games.verflucht import kernel
        phase = kernel.PH_LAST if last_turn else kernel.PH_BANISH
        _, _, _, _, creature, items = self._decide(table, rng, phase, player=player)
        return None if int(creature) == 0 else Banish(int(creature), values_of(items))
