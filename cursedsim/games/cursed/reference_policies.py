"""Policies for the reference engine of Cursed!?: the policy protocol and the readable ``RandomPolicy``,
``ThresholdPolicy(k)``, ``NoItemsPolicy(k)`` and ``CountingPolicy(margin)`` (which shares
ThresholdPolicy's item rules and decides each draw from the draw pile's composition).

The engine (``reference.Table``) asks three questions, each only when there is something to choose:

- :meth:`Policy.fight` at each *fight decision point* (a monster or a Mimic! is in play, the fight is
  open, and some action other than STOP is open): one :class:`~reference.Action` out of ``legal`` --
  draw a weapon, attack with a Large Backpack weapon, use an item (Big Turkey Dinner, Smoke Bomb, Scroll
  of Purge Life, Shield, Large Backpack with the discard card to take; Whetstone and Frenzy Potion too
  with ``item_timing="before_draw"``; a Whetstone on a weapon in play with ``whetstone_in_play``), or stop
  and take the damage. Asked again after every action until the fight closes (a stop, a capture, a Smoke
  Bomb). Also *between fights* (``table.between``; ``items_between_fights``), where ``legal`` holds only
  the Big Turkey Dinner, the Large Backpack and STOP (done).
- :meth:`Policy.attack` when a weapon attacks and something is open (:class:`~reference.AttackOptions`):
  the "1/6" value, the Spear's kind, and whether to add the Bewitching Relic, the Whetstone or (on the
  fight's first attack) the Frenzy Potion to this attack.
- :meth:`Policy.crystal` when an attack's value, ignoring traits, takes the total over the monster's
  power, the overshoot rule does not already capture, and a Soul Crystal is held: spend it to capture?

A policy gets the live table: it must not change it, and should read only what the player may know (the
monster, the weapons and total, items, backpack, souls, the discard pile, the number of cards in the
pile -- not their order). A user-written policy:

    from cursedsim.games.cursed.reference import DRAW, STOP, Action, AttackChoice, play
    from cursedsim.games.cursed.rules import RuleOptions

    class Bold:
        "Draws until the gap is 0 (or nothing can be drawn); 1/6 weapons as 6; never uses items."
        def fight(self, table, legal, rng):
            return Action(DRAW) if Action(DRAW) in legal else Action(STOP)
        def attack(self, table, card, open_, rng):
            return AttackChoice(value=6 if open_.value else 0, kind=1 if open_.kind else 0)
        def crystal(self, table, card, total, rng):
            return False

    outcome = play(seed=1, index=0, options=RuleOptions(), policy=Bold())

Policies that draw random numbers use the ``rng`` they are given: the policy stream of the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from cursedsim.games.cursed.reference import (
    DRAW,
    PLAY,
    STOP,
    USE,
    Action,
    AttackChoice,
    AttackOptions,
)
from cursedsim.games.cursed.rules import (
    BIG_TURKEY_DINNER,
    CARD_POWER,
    CARD_WEAPON_HIGH,
    CARD_WEAPON_KINDS,
    CARD_WEAPON_POWER,
    COPIES,
    FLYING,
    FRENZY_FACTOR,
    FRENZY_POTION,
    LARGE_BACKPACK,
    MELEE,
    N_CARDS,
    N_UNIQUE,
    RANGED,
    SCROLL_OF_PURGE_LIFE,
    SHIELD,
    SMOKE_BOMB,
    WHETSTONE,
    WHETSTONE_BONUS,
    is_split,
)
from cursedsim.rng import Stream

if TYPE_CHECKING:
    from cursedsim.games.cursed.reference import Table


class Policy(Protocol):
    """What the reference engine asks a policy. Any object with these three methods is a policy."""

    def fight(self, table: Table, legal: list[Action], rng: Stream) -> Action:
        """One of ``legal`` (canonical order: DRAW, PLAY..., USE..., STOP). Any held copy of an item
        may be named in a USE."""
        ...

    def attack(self, table: Table, card: int, open_: AttackOptions, rng: Stream) -> AttackChoice:
        """The choices for ``card``'s attack; ``value`` (1 or 6) must be set when ``open_.value``,
        ``kind`` (MELEE or RANGED) when ``open_.kind``; items only when open. ``table.attacks`` still
        counts the attacks made before this one."""
        ...

    def crystal(self, table: Table, card: int, total: int, rng: Stream) -> bool:
        """Spend a Soul Crystal to capture the soul now that ``card`` takes the total (ignoring traits)
        to ``total`` > ``table.power``?"""
        ...


# ---------------------------------------------------------------- random

class RandomPolicy:
    """The floor: uniform random legal choices from the policy stream.

    Fight: ``legal[below(len(legal))]``. Attack: for each open choice, in the order value, kind, relic,
    whetstone, frenzy, one ``below(2)`` (value: 0 -> the low value 1, 1 -> the high value 6; kind:
    0 -> MELEE, 1 -> RANGED; items: 1 -> use). Crystal: ``below(2) == 1``.
    """

    label = "random"

    def fight(self, table: Table, legal: list[Action], rng: Stream) -> Action:
        return legal[rng.below(len(legal))]

    def attack(self, table: Table, card: int, open_: AttackOptions, rng: Stream) -> AttackChoice:
        value = kind = 0
        if open_.value:
            value = CARD_WEAPON_HIGH[card] if rng.below(2) else CARD_WEAPON_POWER[card]
        if open_.kind:
            kind = RANGED if rng.below(2) else MELEE
        relic = bool(open_.relic and rng.below(2))
        whetstone = bool(open_.whetstone and rng.below(2))
        frenzy = bool(open_.frenzy and rng.below(2))
        return AttackChoice(value, kind, relic, whetstone, frenzy)

    def crystal(self, table: Table, card: int, total: int, rng: Stream) -> bool:
        return rng.below(2) == 1


# ---------------------------------------------------------------- threshold

def best_value(card: int) -> int:
    """A weapon's highest possible own value (6 for a "1/6" weapon)."""
    return CARD_WEAPON_HIGH[card] if is_split(card) else CARD_WEAPON_POWER[card]


#: The item rules' thresholds and their defaults, shared by ThresholdPolicy and CountingPolicy (the
#: kernel's ``policies.ITEM_PARAMS``, the same order).
ITEM_DEFAULTS: dict[str, int] = {"turkey_pile": 5, "scroll_power": 10, "shield_due": 2, "smoke_due": 4,
                                 "scroll_due": 3, "frenzy_power": 8, "whetstone_gap": 7}


class ThresholdPolicy:
    """Stop drawing when the remaining gap is at most ``k``; items by fixed, simple rules.

    At a fight decision point, the first rule that applies (``gap`` = power - total, ``due`` = the
    damage a stop would deal after Shields, ``pile`` = cards in the draw pile):

    1. Large Backpack, while the discard pile holds a card: take the discard card with the highest
       ``best_value`` (a 1/6 weapon counts 6; ties: lowest card id).
    2. Big Turkey Dinner when ``pile <= turkey_pile`` (5) and the discard pile is not empty.
    3. Scroll of Purge Life before the first attack on a monster of power >= ``scroll_power`` (10), or
       when ``due > pile`` (a stop would end the game).
    3b. whetstone_in_play: a Whetstone on a weapon in play (the lowest card id it may go on) when
       ``gap == 3`` (it captures).
    4. Attack while attacks are allowed and ``gap > k``: (before_draw timing only: first arm a Frenzy
       Potion against power >= ``frenzy_power`` (8), a Whetstone when ``gap >= whetstone_gap`` (7));
       then a backpack weapon whose ``best_value <= gap`` (the highest; any one, the highest, if an
       overshoot would capture now); else draw if the pile is not empty.
    4b. whetstone_in_play: a Whetstone on a weapon in play when ``due >= 3`` (it saves 3 damage).
    5. Shield when ``due >= shield_due`` (2).
    6. Smoke Bomb when ``due >= smoke_due`` (4) or ``due > pile``.
    7. Scroll of Purge Life when ``due >= scroll_due`` (3).
    8. Stop.

    Between fights (items_between_fights; no monster in play) only rule 2 applies, else STOP (done): the
    Large Backpack waits for the next fight, where rule 1 takes the same card (nothing changes the
    discard pile before that fight's first decision point, bar a chest).

    Attack: a 1/6 weapon as 6 if 6 <= gap or an overshoot would capture, else 1 (with
    dagger_value="choose_kind" the kind goes with the value, 6 melee and 1 ranged); the Spear as ranged
    against Flying, else melee. Then at most one item, the first in the order Bewitching Relic (the
    card's monster power), Whetstone (+3), Frenzy Potion (x2) that makes the attack capture (value ==
    gap, or value > gap when an overshoot captures) when the weapon alone would not. Traits are not
    considered. Crystal: always.

    The thresholds are parameters (defaults in ``DEFAULTS``), the same names and order as the kernel
    policy ``threshold`` (``policies.THRESHOLD_PARAMS``). They are compared as given (a non-integer
    threshold is a valid cut between integers). Rules 1-3 and 5-8, the before_draw arming and the
    attack's items are the *item rules* (parameters ``ITEM_DEFAULTS``), which CountingPolicy shares;
    a subclass changes when to attack (``_wants_attack``) and the 1/6 value and Spear kind
    (``_value_and_kind``).
    """

    DEFAULTS: ClassVar[dict[str, float]] = {"k": 2, **ITEM_DEFAULTS}
    uses_items = True

    def __init__(self, k: float = 2, *, turkey_pile: float = 5, scroll_power: float = 10, shield_due: float = 2,
                 smoke_due: float = 4, scroll_due: float = 3, frenzy_power: float = 8, whetstone_gap: float = 7):
        self._set_params({"k": k, "turkey_pile": turkey_pile, "scroll_power": scroll_power,
                          "shield_due": shield_due, "smoke_due": smoke_due, "scroll_due": scroll_due,
                          "frenzy_power": frenzy_power, "whetstone_gap": whetstone_gap})

    def _set_params(self, given: dict[str, float]) -> None:
        """Check and store the parameters (ints when integral); the label shows the first (the drawing
        parameter) and every other that differs from its default."""
        for name, value in given.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{type(self).__name__}: {name} must be a number, got {value!r}")
            value = float(value)
            setattr(self, name, int(value) if value.is_integer() else value)
        first, *rest = self.DEFAULTS
        shown = [f"{first}={getattr(self, first)}"] + [f"{name}={getattr(self, name)}" for name in rest
                                                       if getattr(self, name) != self.DEFAULTS[name]]
        self.label = f"{type(self).__name__}({', '.join(shown)})"

    def _turkey_due(self, table: Table) -> bool:
        """Rule 2: a Big Turkey Dinner is held, the pile holds at most ``turkey_pile`` cards and the
        discard pile is not empty."""
        return table.held(BIG_TURKEY_DINNER) >= 0 and len(table.pile) <= self.turkey_pile and bool(table.discard)

    def fight(self, table: Table, legal: list[Action], rng: Stream) -> Action:
        if not self.uses_items or table.between:
            if self.uses_items and self._turkey_due(table):
                return Action(USE, table.held(BIG_TURKEY_DINNER))
            return self._attack_or_stop(table, legal)
        pile = len(table.pile)
        for item in (LARGE_BACKPACK, BIG_TURKEY_DINNER, SCROLL_OF_PURGE_LIFE):
            card = table.held(item)
            if card < 0:
                continue
            if item == LARGE_BACKPACK and table.discard:
                target = min(table.discard, key=lambda c: (-best_value(c), c))
                return Action(USE, card, target)
            if item == BIG_TURKEY_DINNER and self._turkey_due(table):
                return Action(USE, card)
            if item == SCROLL_OF_PURGE_LIFE and (
                    (table.attacks == 0 and table.power >= self.scroll_power) or table.damage_due > pile):
                return Action(USE, card)
        targets = table.whet_targets()
        whet = Action(USE, table.held(WHETSTONE), targets[0]) if targets else None
        if whet and table.gap == WHETSTONE_BONUS:
            return whet
        action = self._attack_or_stop(table, legal)
        if action.kind != STOP:
            return action
        due = table.damage_due
        if whet and due >= WHETSTONE_BONUS:
            return whet
        for item, wanted in ((SHIELD, due >= self.shield_due),
                             (SMOKE_BOMB, due >= self.smoke_due or due > pile),
                             (SCROLL_OF_PURGE_LIFE, due >= self.scroll_due)):
            card = table.held(item)
            if wanted and card >= 0:
                return Action(USE, card)
        return action

    def _wants_attack(self, table: Table) -> tuple[bool, bool]:
        """(attack at all, draw when no Backpack weapon fits), attacks being allowed: while the gap is
        above k, drawing when nothing fits."""
        return table.gap > self.k, True

    @staticmethod
    def _fitting(table: Table) -> list[int]:
        """The Backpack weapons rule 4 may play: ``best_value <= gap``, or any when an overshoot
        would capture now."""
        over_ok = table.overshoot_captures()
        return [c for c in table.stored if best_value(c) <= table.gap or over_ok]

    def _attack_or_stop(self, table: Table, legal: list[Action]) -> Action:
        if not table.can_attack():
            return Action(STOP)
        attack, draw = self._wants_attack(table)
        if not attack:
            return Action(STOP)
        gap = table.gap
        if self.uses_items and table.options.item_timing == "before_draw":
            for item, wanted in ((FRENZY_POTION, table.power >= self.frenzy_power),
                                 (WHETSTONE, gap >= self.whetstone_gap)):
                action = Action(USE, table.held(item))
                if wanted and action in legal:
                    return action
        fitting = self._fitting(table)
        if fitting:
            return Action(PLAY, max(fitting, key=lambda c: (best_value(c), -c)))
        if draw and Action(DRAW) in legal:
            return Action(DRAW)
        return Action(STOP)

    def _value_and_kind(self, table: Table, card: int, open_: AttackOptions) -> tuple[int, int]:
        """The 1/6 value (when open): 6 if it fits or an overshoot would capture, else 1; the Spear's
        kind (when open): ranged against Flying, else melee. 0 where nothing is open."""
        gap = table.gap
        over_ok = table.overshoot_captures()
        value = kind = 0
        if open_.value:
            high = CARD_WEAPON_HIGH[card]
            value = high if (high <= gap or over_ok) else CARD_WEAPON_POWER[card]
        if open_.kind:
            kind = RANGED if table.trait == FLYING else MELEE
        return value, kind

    def attack(self, table: Table, card: int, open_: AttackOptions, rng: Stream) -> AttackChoice:
        value, kind = self._value_and_kind(table, card, open_)
        if not self.uses_items:
            return AttackChoice(value, kind)
        gap = table.gap
        over_ok = table.overshoot_captures()
        base = table.weapon_value(card, AttackChoice(value, kind))

        def captures(v: int) -> bool:
            return v == gap or (v > gap and over_ok)

        if captures(base):
            return AttackChoice(value, kind)
        if open_.relic and captures(CARD_POWER[card]):
            return AttackChoice(value, kind, relic=True)
        if open_.whetstone and captures(base + WHETSTONE_BONUS):
            return AttackChoice(value, kind, whetstone=True)
        if open_.frenzy and captures(base * FRENZY_FACTOR):
            return AttackChoice(value, kind, frenzy=True)
        return AttackChoice(value, kind)

    def crystal(self, table: Table, card: int, total: int, rng: Stream) -> bool:
        return self.uses_items


class NoItemsPolicy(ThresholdPolicy):
    """``ThresholdPolicy(k)`` without items: draw while attacks are allowed, the pile is not empty and
    the gap is above ``k``; the 1/6 value and the Spear's kind as ThresholdPolicy; never an item, never
    a Soul Crystal. (A Mimic! met as an item is still fought: that is not a choice.)"""

    uses_items = False

    def __init__(self, k: float = 2):
        super().__init__(k)


# ---------------------------------------------------------------- counting

def pile_composition(table: Table) -> list[int]:
    """The draw pile's cards, sorted, as the player knows them: every card not in a public zone (the
    discard pile, the captured souls, the held items, the Backpack, the monster, the weapons and items
    of this fight). Its order is not known, and not used."""
    seen = {*table.discard, *table.souls, *table.items, *table.stored, *table.weapons, *table.used}
    if table.monster >= 0:
        seen.add(table.monster)
    return [card for card in range(N_CARDS) if card not in seen]


def one_attack(table: Table, base: int, kinds: int) -> int:
    """The damage of a stop after one more attack of own value ``base`` with ``kinds`` (no item), as
    the rules compute it: the gap less what Shields block, at least 0. An unspent trait that fits
    cancels the attack (the total stays); going over captures when the overshoot rule covers it (0),
    else busts (the total stays; with bust="soul_lost" the fight ends with that damage, the soul lost,
    which is not priced); landing on the power captures (0)."""
    cancelled = not table.trait_spent and table.trait_cancels(kinds, base)
    new_total = table.total if cancelled else table.total + base
    if new_total == table.power or (new_total > table.power and table.overshoot_captures()):
        return 0
    if new_total > table.power:
        new_total = table.total
    return max(0, table.power - new_total - table.blocked)


class CountingPolicy(ThresholdPolicy):
    """Decides each draw from the exact composition of the remaining draw pile.

    The player knows which cards are *not* in the draw pile (the discard pile is public, and so are the
    souls, the items, the Backpack and the cards in play), so the pile's composition is known
    (``pile_composition``); its order is not, and the policy never reads it.

    Draw rule (``draws``), with ``n`` cards in the pile: a stop now deals ``stop`` = the damage due
    (the gap less what Shields block). If ``stop > n`` the stop would end the game (the final
    monster): draw. Otherwise drawing card ``c`` and stopping after it costs ``1 + damage_c``: the card
    drawn leaves the pile (a card of life) and ``damage_c`` is the damage a stop then deals, as the
    rules compute it (``one_attack``: traits, Shields used, the overshoot and bust rules, the 1/6 value
    and the Spear's kind chosen as ``_choice``). Items not yet spent (Whetstone, Relic, Frenzy Potion,
    Soul Crystal, an armed before_draw item), a soul lost to a bust (bust="soul_lost") and what a
    further draw could do (the look-ahead is one weapon) are left out. Draw when the mean cost is lower
    than ``stop`` by more than ``margin``, compared as sums over the pile's cards so that the arithmetic
    is exact: ``n * stop - sum_c (1 + damage_c) > margin * n``.

    Everything else is ThresholdPolicy's item rules, with the same parameters: rule 4 attacks when the
    draw rule says so or when a Backpack weapon fits (it costs no card; the highest that fits, as
    ThresholdPolicy), and at an attack the 1/6 value and the Spear's kind are the ones ``one_attack``
    prices lowest (ThresholdPolicy's choice unless the other's damage is strictly less), then at most
    one item by ThresholdPolicy's rule. The kernel twin is ``policies.counting_draws`` /
    ``counting_choice``: the same integer sums and the same comparison.
    """

    DEFAULTS: ClassVar[dict[str, float]] = {"margin": 0, **ITEM_DEFAULTS}

    def __init__(self, margin: float = 0, *, turkey_pile: float = 5, scroll_power: float = 10,
                 shield_due: float = 2, smoke_due: float = 4, scroll_due: float = 3, frenzy_power: float = 8,
                 whetstone_gap: float = 7):
        self._set_params({"margin": margin, "turkey_pile": turkey_pile, "scroll_power": scroll_power,
                          "shield_due": shield_due, "smoke_due": smoke_due, "scroll_due": scroll_due,
                          "frenzy_power": frenzy_power, "whetstone_gap": whetstone_gap})

    def _choice(self, table: Table, card: int) -> tuple[int, int, int]:
        """(value, kind, damage) of an attack with ``card`` then a stop: the 1/6 value (dagger_value
        "choose_kind", with the kind that goes with it, or "choose") or the Spear's kind
        (spear_kind="choose") whose ``one_attack`` damage is least, ThresholdPolicy's unless the other's
        is strictly less; 0 where nothing is chosen."""
        kinds = CARD_WEAPON_KINDS[card]
        if table.value_chosen(card):
            low, high = CARD_WEAPON_POWER[card], CARD_WEAPON_HIGH[card]
            value = high if (high <= table.gap or table.overshoot_captures()) else low
            other = low if value == high else high
            damage = one_attack(table, value, table.weapon_kinds(card, AttackChoice(value)))
            damage2 = one_attack(table, other, table.weapon_kinds(card, AttackChoice(other)))
            return (other, 0, damage2) if damage2 < damage else (value, 0, damage)
        base = table.weapon_value(card)
        if kinds == MELEE | RANGED and table.options.spear_kind == "choose":
            kind = RANGED if table.trait == FLYING else MELEE
            other = MELEE if kind == RANGED else RANGED
            damage, damage2 = one_attack(table, base, kind), one_attack(table, base, other)
            return (0, other, damage2) if damage2 < damage else (0, kind, damage)
        return 0, 0, one_attack(table, base, kinds)

    def draws(self, table: Table) -> bool:
        """The draw rule: the mean cost of one more weapon against a stop now (see the class docstring),
        from the pile's composition only (one evaluation per unique card)."""
        cards = pile_composition(table)
        n = len(cards)
        if n == 0:
            return False
        stop = table.damage_due
        if stop > n:
            return True    # the stop would end the game (the final monster)
        cost_sum = 0
        for u in range(N_UNIQUE):
            copies = sum(1 for c in cards if c // COPIES == u)
            if copies:
                cost_sum += copies * (1 + self._choice(table, u * COPIES)[2])
        return stop * n - cost_sum > self.margin * n

    def _wants_attack(self, table: Table) -> tuple[bool, bool]:
        if self.draws(table):
            return True, True
        return bool(self._fitting(table)), False

    def _value_and_kind(self, table: Table, card: int, open_: AttackOptions) -> tuple[int, int]:
        value, kind, _ = self._choice(table, card)
        return value, kind


# ---------------------------------------------------------------- rollout (the kernel's search, replayed)

class RolloutPolicy:
    """``rollout`` on the reference engine (``replay``; tests/test_cursed_rollout.py): the base policy's
    readable twin, asked at every decision as in its own game, whose fight decisions (not those between
    fights) are replaced, in order, by those the kernel's search took in the same game (``table.origin``:
    ``rollout.run_chunk`` with a record, once per game). It does not search: it checks that the kernel's
    game, halted and replayed from each round's top at every decision, is the rules' game for the
    decisions the search took. Over optimal_fight a replaced DRAW or PLAY sets the DP's pending attack, as
    ``optimal_kernel.take_action`` in the kernel."""

    label = "rollout"

    def __init__(self, params):
        import weakref

        from cursedsim.games.cursed import policies, reference_policy, rollout
        self.params = list(params)
        _, base, _, _, _, _, _ = rollout.settings(self.params)
        spec = next(s for s in policies.POLICIES.values() if s.policy_id == base and s.impl is None)
        self.base = reference_policy(spec, spec.param_vector())
        self.decisions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _searched(self, table: Table) -> list[Action]:
        """The fight decisions the kernel's search took in this game, in order (computed once)."""
        if table not in self.decisions:
            import numpy as np

            from cursedsim.games.cursed import rollout
            from cursedsim.games.cursed.state import option_tuple
            seed, index = table.origin
            if seed is None:
                raise ValueError("rollout plays dealt games only (Table.deal): its streams are keyed by (seed, game)")
            record = np.full((2, rollout.MAX_RECORD), -1, np.int64)
            out = rollout.run_chunk(seed, index, 1, option_tuple(table.options), self.params, record=record)
            n = int(out["_decisions"])
            if n > rollout.MAX_RECORD:
                raise ValueError(f"rollout: game {index} took {n} decisions, more than the record holds")
            self.decisions[table] = [Action(int(code) // 4096, int(code) // 64 % 64 - 1, int(code) % 64 - 1)
                                     for code in record[0, :n]]
        return self.decisions[table]

    def fight(self, table: Table, legal: list[Action], rng: Stream) -> Action:
        action = self.base.fight(table, legal, rng)
        if table.between:
            return action
        chosen = self._searched(table).pop(0)
        if chosen != action and hasattr(self.base, "solver"):   # optimal_fight: the attack it answers
            from cursedsim.games.cursed.optimal_fight import table_state
            from cursedsim.games.cursed.rules import BEWITCHING_RELIC
            solver = self.base.solver(table)
            state = solver.canonical(table_state(table))
            if chosen.kind == DRAW:
                self.base._pending = (state, ("draw",))
            elif chosen.kind == PLAY:
                reps = solver.reps(state[2], state[3], state[4], bool(state[6][BEWITCHING_RELIC]))
                self.base._pending = (state, ("play", reps[chosen.card // COPIES]))
            else:
                self.base._pending = None
        return chosen

    def attack(self, table: Table, card: int, open_: AttackOptions, rng: Stream) -> AttackChoice:
        return self.base.attack(table, card, open_, rng)

    def crystal(self, table: Table, card: int, total: int, rng: Stream) -> bool:
        return self.base.crystal(table, card, total, rng)


__all__ = ["ITEM_DEFAULTS", "CountingPolicy", "NoItemsPolicy", "Policy", "RandomPolicy", "RolloutPolicy",
           "ThresholdPolicy", "best_value", "one_attack", "pile_composition"]
