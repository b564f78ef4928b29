"""Policies for the reference engine of Cursed!?: the policy protocol and the readable ``RandomPolicy``,
``ThresholdPolicy(k)`` and ``NoItemsPolicy(k)``.

The engine (``reference.Table``) asks three questions, each only when there is something to choose:

- :meth:`Policy.fight` at each *fight decision point* (a monster or a Mimic! is in play, the fight is
  open, and some action other than STOP is open): one :class:`~reference.Action` out of ``legal`` --
  draw a weapon, attack with a Large Backpack weapon, use an item (Big Turkey Dinner, Smoke Bomb, Scroll
  of Purge Life, Shield, Large Backpack with the discard card to take; Whetstone and Frenzy Potion too
  with ``item_timing="before_draw"``), or stop and take the damage. Asked again after every action
  until the fight closes (a stop, a capture, a Smoke Bomb).
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

from typing import TYPE_CHECKING, Protocol

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
    CARD_WEAPON_POWER,
    FLYING,
    FRENZY_FACTOR,
    FRENZY_POTION,
    LARGE_BACKPACK,
    MELEE,
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


class ThresholdPolicy:
    """Stop drawing when the remaining gap is at most ``k``; items by fixed, simple rules.

    At a fight decision point, the first rule that applies (``gap`` = power - total, ``due`` = the
    damage a stop would deal after Shields, ``pile`` = cards in the draw pile):

    1. Large Backpack, while the discard pile holds a card: take the discard card with the highest
       ``best_value`` (a 1/6 weapon counts 6; ties: lowest card id).
    2. Big Turkey Dinner when ``pile <= TURKEY_PILE`` (5) and the discard pile is not empty.
    3. Scroll of Purge Life before the first attack on a monster of power >= ``SCROLL_POWER`` (10), or
       when ``due > pile`` (a stop would end the game).
    4. Attack while attacks are allowed and ``gap > k``: (before_draw timing only: first arm a Frenzy
       Potion against power >= 8, a Whetstone when ``gap >= 7``); then a backpack weapon whose
       ``best_value <= gap`` (the highest; any one, the highest, if an overshoot would capture now);
       else draw if the pile is not empty.
    5. Shield when ``due >= 2``.
    6. Smoke Bomb when ``due >= 4`` or ``due > pile``.
    7. Scroll of Purge Life when ``due >= 3``.
    8. Stop.

    Attack: a 1/6 weapon as 6 if 6 <= gap or an overshoot would capture, else 1; the Spear as ranged
    against Flying, else melee. Then at most one item, the first in the order Bewitching Relic (the
    card's monster power), Whetstone (+3), Frenzy Potion (x2) that makes the attack capture (value ==
    gap, or value > gap when an overshoot captures) when the weapon alone would not. Traits are not
    considered. Crystal: always.
    """

    TURKEY_PILE = 5
    SCROLL_POWER = 10
    uses_items = True

    def __init__(self, k: int = 2):
        self.k = int(k)
        self.label = f"{type(self).__name__}(k={self.k})"

    def fight(self, table: Table, legal: list[Action], rng: Stream) -> Action:
        if not self.uses_items:
            return self._attack_or_stop(table, legal)
        pile = len(table.pile)
        for item in (LARGE_BACKPACK, BIG_TURKEY_DINNER, SCROLL_OF_PURGE_LIFE):
            card = table.held(item)
            if card < 0:
                continue
            if item == LARGE_BACKPACK and table.discard:
                target = min(table.discard, key=lambda c: (-best_value(c), c))
                return Action(USE, card, target)
            if item == BIG_TURKEY_DINNER and pile <= self.TURKEY_PILE and table.discard:
                return Action(USE, card)
            if item == SCROLL_OF_PURGE_LIFE and (
                    (table.attacks == 0 and table.power >= self.SCROLL_POWER) or table.damage_due > pile):
                return Action(USE, card)
        action = self._attack_or_stop(table, legal)
        if action.kind != STOP:
            return action
        due = table.damage_due
        for item, wanted in ((SHIELD, due >= 2), (SMOKE_BOMB, due >= 4 or due > pile),
                             (SCROLL_OF_PURGE_LIFE, due >= 3)):
            card = table.held(item)
            if wanted and card >= 0:
                return Action(USE, card)
        return action

    def _attack_or_stop(self, table: Table, legal: list[Action]) -> Action:
        gap = table.gap
        if not table.can_attack() or gap <= self.k:
            return Action(STOP)
        if self.uses_items and table.options.item_timing == "before_draw":
            for item, wanted in ((FRENZY_POTION, table.power >= 8), (WHETSTONE, gap >= 7)):
                action = Action(USE, table.held(item))
                if wanted and action in legal:
                    return action
        over_ok = table.overshoot_captures()
        fitting = [c for c in table.stored if best_value(c) <= gap or over_ok]
        if fitting:
            return Action(PLAY, max(fitting, key=lambda c: (best_value(c), -c)))
        if Action(DRAW) in legal:
            return Action(DRAW)
        return Action(STOP)

    def attack(self, table: Table, card: int, open_: AttackOptions, rng: Stream) -> AttackChoice:
        gap = table.gap
        over_ok = table.overshoot_captures()
        value = kind = 0
        if open_.value:
            high = CARD_WEAPON_HIGH[card]
            value = high if (high <= gap or over_ok) else CARD_WEAPON_POWER[card]
        if open_.kind:
            kind = RANGED if table.trait == FLYING else MELEE
        if not self.uses_items:
            return AttackChoice(value, kind)
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


__all__ = ["NoItemsPolicy", "Policy", "RandomPolicy", "ThresholdPolicy", "best_value"]
