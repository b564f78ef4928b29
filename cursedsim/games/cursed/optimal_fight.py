"""Cursed!? ``optimal_fight``: each fight played by exact dynamic programming over what the player knows.

The player knows the draw pile's *composition* (every card not in a public zone; ``pile_composition``)
but not its order, which is uniformly random. Within a fight the next card is therefore a uniform draw
from that multiset, and the best play is an expectimax over states

    (pile multiset by unique card, total, first attack?, trait spent?, Shields' block, held items,
     Large Backpack weapons, cards an escape would return)

memoised per fight context (power, trait, souls, whether the soul counts). At a decision point the DP
chooses among DRAW, PLAY of a Backpack weapon, USE of a Shield, Scroll of Purge Life or Smoke Bomb, and
STOP; at an attack among the open 1/6 value, Spear kind, Bewitching Relic, Whetstone and Frenzy Potion;
on an overshoot whether to spend a Soul Crystal. Each fight ends in a value of the game after it (an
:class:`Objective`: a win-probability model by default, or expected cards); the DP maximises its
expectation. Everything else (Big Turkey Dinner, taking a Large Backpack weapon, every decision between
fights) is ``CountingPolicy``'s, with its defaults. docs/rules/cursed.md ("optimal_fight") states the
objective and every simplification.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from cursedsim.games.base import PolicySpec
from cursedsim.games.cursed.policies import OPTIMAL_FIGHT
from cursedsim.games.cursed.reference import (DRAW, PLAY, STOP, USE, Action, AttackChoice, AttackOptions, spent_items,
                                              trait_after)
from cursedsim.games.cursed.reference_policies import CountingPolicy, best_value, pile_composition
from cursedsim.games.cursed.rules import (
    BEWITCHING_RELIC,
    BIG_TURKEY_DINNER,
    CARD_POWER,
    CARD_WEAPON_HIGH,
    CARD_WEAPON_KINDS,
    CARD_WEAPON_POWER,
    COPIES,
    END_EIGHT_SOULS,
    EXPLODES,
    FLYING,
    FRENZY_FACTOR,
    FRENZY_POTION,
    LARGE_BACKPACK,
    MELEE,
    N_UNIQUE,
    NO_TRAIT,
    RANGED,
    SCROLL_OF_PURGE_LIFE,
    SHIELD,
    SHIELD_BLOCK,
    SMOKE_BOMB,
    SOUL_CRYSTAL,
    TOUGH_SKIN,
    WHETSTONE,
    WHETSTONE_BONUS,
    RuleOptions,
    is_split,
)

if TYPE_CHECKING:
    from cursedsim.games.cursed.reference import Table

# ---------------------------------------------------------------- parameters (data)

#: The items the DP decides on, with the parameter giving each one's worth (in cards) while held.
DP_ITEMS = {SOUL_CRYSTAL: "worth_soul_crystal", SMOKE_BOMB: "worth_smoke_bomb",
            BEWITCHING_RELIC: "worth_bewitching_relic", SCROLL_OF_PURGE_LIFE: "worth_scroll_of_purge_life",
            SHIELD: "worth_shield", WHETSTONE: "worth_whetstone", FRENZY_POTION: "worth_frenzy_potion"}

#: Parameters and defaults (PolicySpec order). round_cost and round_sd: the mean and standard deviation
#: of the cards a round consumed (monster + weapons drawn + damage) in 25,818 reference games of
#: threshold(k=2) (seed 99): 4.04 and 1.82. The item worths are rough priors, not fitted.
PARAMS: dict[str, float] = {
    "objective": 0.0, "round_cost": 4.0, "round_sd": 1.8,
    "worth_soul_crystal": 1.0, "worth_smoke_bomb": 1.5, "worth_bewitching_relic": 2.5,
    "worth_scroll_of_purge_life": 4.0, "worth_shield": 2.0, "worth_whetstone": 2.0,
    "worth_frenzy_potion": 2.0, "worth_stored_weapon": 1.0,
}
PARAM_DOCS = {
    "objective": "0: maximise the modelled probability of winning the game after the fight; 1: maximise the "
                 "expected cards left over after the remaining rounds (risk-neutral)",
    "round_cost": "mean cards one future round consumes (its monster, weapons drawn, damage)",
    "round_sd": "standard deviation of the cards one future round consumes",
    "worth_soul_crystal": "a held Soul Crystal counts as this many cards of pile",
    "worth_smoke_bomb": "a held Smoke Bomb counts as this many cards of pile",
    "worth_bewitching_relic": "a held Bewitching Relic counts as this many cards of pile",
    "worth_scroll_of_purge_life": "a held Scroll of Purge Life counts as this many cards of pile",
    "worth_shield": "a held Shield counts as this many cards of pile",
    "worth_whetstone": "a held Whetstone counts as this many cards of pile",
    "worth_frenzy_potion": "a held Frenzy Potion counts as this many cards of pile",
    "worth_stored_weapon": "a Large Backpack weapon kept after the fight counts as this many cards of pile",
}

#: States kept in the policy's memos (all contexts) before they are dropped: a few hundred MB at most.
MEMO_LIMIT = 1_000_000

# ---------------------------------------------------------------- the objective


class Objective:
    """The value of the game right after a fight, from the souls, the pile size and what is held.

    ``alive(souls, cards, items, stored)``: the game goes on (or was just won) with ``cards`` in the pile,
    ``items`` held (counts by item code) and ``stored`` Backpack weapons; ``over(souls)``: the game ended
    at the fight (final monster). With ``r = max(0, win_souls - souls)`` rounds still to win and
    ``x = cards + worth(items) + worth_stored_weapon * stored``:

    - objective 0 (win): 1 when ``r == 0``; 0 when ``cards == 0`` and no Big Turkey Dinner is held (the
      next pile check ends the game); else ``Phi((x + 0.5 - r * round_cost) / (round_sd * sqrt(r)))``,
      the chance that r rounds of independent, normally distributed cost fit in x cards. ``over``: 1 if
      ``r == 0`` else 0.
    - objective 1 (cards): ``x - r * round_cost``; ``over(souls) = -r * round_cost`` (no cards left).

    Numbers pass through unchanged, so Fraction parameters give exact values (objective 1)."""

    def __init__(self, params: Mapping[str, Any], win_souls: int):
        self.kind = int(params["objective"])
        if self.kind not in (0, 1):
            raise ValueError(f"optimal_fight: objective must be 0 (win) or 1 (cards), got {params['objective']!r}")
        self.round_cost = params["round_cost"]
        self.round_sd = params["round_sd"]
        self.worth = {item: params[name] for item, name in DP_ITEMS.items()}
        self.worth_stored = params["worth_stored_weapon"]
        self.win_souls = win_souls
        self._alive: dict[tuple, Any] = {}

    def held_worth(self, items: tuple[int, ...], stored: int) -> Any:
        return sum(self.worth[item] * items[item] for item in DP_ITEMS) + self.worth_stored * stored

    def alive(self, souls: int, cards: int, items: tuple[int, ...], stored: int) -> Any:
        key = (souls, cards, items, stored)
        found = self._alive.get(key)
        if found is None:
            found = self._alive[key] = self._alive_value(souls, cards, items, stored)
        return found

    def _alive_value(self, souls: int, cards: int, items: tuple[int, ...], stored: int) -> Any:
        rounds = max(0, self.win_souls - souls)
        x = cards + self.held_worth(items, stored)
        if self.kind == 1:
            return x - rounds * self.round_cost
        if rounds == 0:
            return 1.0
        if cards == 0 and not items[BIG_TURKEY_DINNER]:
            return 0.0
        z = (x + 0.5 - rounds * self.round_cost) / (self.round_sd * math.sqrt(rounds))
        return 0.5 * math.erfc(-z / math.sqrt(2.0))

    def over(self, souls: int) -> Any:
        rounds = max(0, self.win_souls - souls)
        if self.kind == 1:
            return -rounds * self.round_cost
        return 1.0 if rounds == 0 else 0.0


# ---------------------------------------------------------------- the DP

#: A DP state: (pile counts by unique card, pile size, total, first attack?, trait spent?, blocked,
#: held items by code, Backpack weapons by unique card, cards an escape returns to the pile).
State = tuple


def _minus(counts: tuple[int, ...], index: int, k: int = 1) -> tuple[int, ...]:
    return counts[:index] + (counts[index] - k,) + counts[index + 1:]


def _plus(counts: tuple[int, ...], index: int, k: int = 1) -> tuple[int, ...]:
    return counts[:index] + (counts[index] + k,) + counts[index + 1:]


class Fight:
    """One fight context (power, trait, souls before it, whether its soul counts) and its memo: the
    exact expectimax value of every state, the best decision-point action and the best attack choice.

    ``exact=True`` takes probabilities as Fractions (with an objective whose parameters are Fractions
    the values are exact rationals: the tests compare them with brute force)."""

    def __init__(self, options: RuleOptions, objective: Objective, power: int, trait: int, souls: int,
                 soul_gain: int, exact: bool = False):
        self.options = options
        self.objective = objective
        self.power = power
        self.trait = trait
        self.souls = souls
        self.gain = soul_gain
        self.exact = exact
        self.returns_items = options.smoke_bomb_returns_items
        self.after_reveal = options.item_timing == "after_reveal"
        self.memo: dict[State, tuple[Any, tuple]] = {}
        self._reps: dict[tuple, tuple[int, ...]] = {}
        self._choices: dict[tuple, list] = {}
        self._move_cache: dict[tuple, tuple] = {}

    # ------------------------------------------------------------ closings (terminal values)

    def captured(self, n: int, items: tuple[int, ...], stored: tuple[int, ...]) -> Any:
        return self.objective.alive(self.souls + self.gain, n, items, sum(stored))

    def stopped(self, n: int, total: int, blocked: int, items, stored) -> Any:
        """STOP: the damage step, then the capture; the final monster when the damage exceeds the pile."""
        damage = max(0, self.power - total - blocked)
        if damage > n:
            return self.objective.over(self.souls + (self.gain if self.options.final_monster_captures else 0))
        return self.objective.alive(self.souls + self.gain, n - damage, items, sum(stored))

    def soul_lost(self, n: int, total: int, blocked: int, items, stored) -> Any:
        """bust="soul_lost": the damage step without a soul (the final monster captures nothing)."""
        damage = max(0, self.power - total - blocked)
        if damage > n:
            return self.objective.over(self.souls)
        return self.objective.alive(self.souls, n - damage, items, sum(stored))

    def escaped(self, n: int, ret: int, items, stored) -> Any:
        """Smoke Bomb: the monster and the weapons in play (and the used items with
        smoke_bomb_returns_items) go into the pile; no soul."""
        return self.objective.alive(self.souls, n + ret, items, sum(stored))

    # ------------------------------------------------------------ decision points

    def can_attack(self, spent: bool) -> bool:
        return not (self.trait == EXPLODES and spent)

    def reps(self, total: int, first: bool, spent: bool, relic: bool) -> tuple[int, ...]:
        """For each unique card, the lowest unique card that behaves the same for the rest of the fight
        (``Fight.best`` merges their counts: an exact reduction, since cards that behave alike now do
        so until the fight ends). Two cards behave alike when they have the same 1/6 values, the same
        kinds while an unspent Flying or Tough Skin can read them, the same monster power while a Relic
        is held; and every *dead* card (each of its values, the Relic's too, above the gap) is alike once
        no overshoot can capture and no trait can cancel it: it busts (or offers the Soul Crystal)
        whenever drawn, as the gap never grows."""
        key = (total, first, spent, relic)
        found = self._reps.get(key)
        if found is not None:
            return found
        options, gap = self.options, self.power - total
        rule = options.overshoot
        overshoot = first if rule == "first_attack" else (total == 0 if rule == "zero_total" else False)
        quiet = spent or self.trait in (NO_TRAIT, EXPLODES)
        kind_trait = not spent and self.trait in (FLYING, TOUGH_SKIN)
        seen: dict[tuple, int] = {}
        out = []
        for u in range(N_UNIQUE):
            card = u * COPIES
            low = CARD_WEAPON_POWER[card]
            lowest = min(low, CARD_POWER[card]) if relic else low
            if not overshoot and quiet and lowest > gap:
                signature: tuple = ("dead",)
            else:
                follows = is_split(card) and options.dagger_value == "choose_kind"
                signature = (low, CARD_WEAPON_HIGH[card], is_split(card),
                             CARD_WEAPON_KINDS[card] if kind_trait and not follows else 0,
                             CARD_POWER[card] if relic else 0)
            out.append(seen.setdefault(signature, u))
        found = self._reps[key] = tuple(out)
        return found

    def canonical(self, state: State) -> State:
        """The state with the counts of cards that behave alike merged on the lowest of them (``reps``)."""
        counts, n, total, first, spent, blocked, items, stored, ret = state
        moves = self._moves(total, first, spent, bool(items[BEWITCHING_RELIC]))
        if not any(counts[u] or stored[u] for u, _ in moves):
            return state
        merged_counts, merged_stored = list(counts), list(stored)
        for u, rep in moves:
            merged_counts[rep] += merged_counts[u]
            merged_counts[u] = 0
            merged_stored[rep] += merged_stored[u]
            merged_stored[u] = 0
        return (tuple(merged_counts), n, total, first, spent, blocked, items, tuple(merged_stored), ret)

    def _moves(self, total: int, first: bool, spent: bool, relic: bool) -> tuple[tuple[int, int], ...]:
        """The (card, its representative) pairs of ``reps`` that differ."""
        key = (total, first, spent, relic)
        found = self._move_cache.get(key)
        if found is None:
            reps = self.reps(total, first, spent, relic)
            found = self._move_cache[key] = tuple((u, rep) for u, rep in enumerate(reps) if rep != u)
        return found

    def value(self, state: State) -> Any:
        return self.best(state)[0]

    def best(self, state: State) -> tuple[Any, tuple]:
        """(value, action) at a decision point; action ``("stop",)``, ``("use", item)``, ``("play", u)``
        or ``("draw",)`` (``u``: a card of the canonical state). Ties keep the first in that order
        (STOP, Shield, Scroll, Smoke Bomb, PLAY, DRAW). A PLAY or DRAW is not evaluated when even its
        best case (a capture with no item spent, after one card drawn for a DRAW) is no better than the
        best found: the objective grows with souls, cards and items held, so nothing later beats it."""
        found = self.memo.get(state)
        if found is not None:
            return found
        raw, state = state, self.canonical(state)
        found = self.memo.get(state)
        if found is not None:
            self.memo[raw] = found
            return found
        counts, n, total, first, spent, blocked, items, stored, ret = state
        best = (self.stopped(n, total, blocked, items, stored), ("stop",))
        used = 1 if self.returns_items else 0
        if items[SHIELD]:
            value = self.value((counts, n, total, first, spent, blocked + SHIELD_BLOCK, _minus(items, SHIELD),
                                stored, ret + used))
            if value > best[0]:
                best = (value, ("use", SHIELD))
        if items[SCROLL_OF_PURGE_LIFE]:
            value = self.captured(n, _minus(items, SCROLL_OF_PURGE_LIFE), stored)
            if value > best[0]:
                best = (value, ("use", SCROLL_OF_PURGE_LIFE))
        if items[SMOKE_BOMB]:
            value = self.escaped(n, ret + used, _minus(items, SMOKE_BOMB), stored)
            if value > best[0]:
                best = (value, ("use", SMOKE_BOMB))
        if self.can_attack(spent):
            for u in range(N_UNIQUE):
                if stored[u] and self.captured(n, items, _minus(stored, u)) > best[0]:
                    after = (counts, n, total, first, spent, blocked, items, _minus(stored, u), ret)
                    value = self.attack(after, u)[0]
                    if value > best[0]:
                        best = (value, ("play", u))
            if n and self.captured(n - 1, items, stored) > best[0]:
                value = 0
                for u in range(N_UNIQUE):
                    if counts[u]:
                        after = (_minus(counts, u), n - 1, total, first, spent, blocked, items, stored, ret)
                        p = Fraction(counts[u], n) if self.exact else counts[u] / n
                        value += p * self.attack(after, u)[0]
                if value > best[0]:
                    best = (value, ("draw",))
        self.memo[state] = self.memo[raw] = best
        return best

    # ------------------------------------------------------------ attacks

    def choices(self, u: int, first: bool, items: tuple[int, ...]) -> list[tuple[AttackChoice, int, int]]:
        """Every answer open when a card of unique ``u`` attacks: (AttackChoice, own value, kinds), in
        the order value, kind, then no item before an item (the Relic, Whetstone, Frenzy Potion)."""
        key = (u, first, items[BEWITCHING_RELIC] > 0, items[WHETSTONE] > 0, items[FRENZY_POTION] > 0)
        found = self._choices.get(key)
        if found is None:
            found = self._choices[key] = self._enumerate(u, first, items)
        return found

    def _enumerate(self, u: int, first: bool, items: tuple[int, ...]) -> list[tuple[AttackChoice, int, int]]:
        card = u * COPIES
        options = self.options
        printed = CARD_WEAPON_KINDS[card]
        low, high = CARD_WEAPON_POWER[card], CARD_WEAPON_HIGH[card]
        value_open = is_split(card) and options.dagger_value in ("choose_kind", "choose")
        if value_open:
            values = [low, high]
        elif not is_split(card):
            values = [low]
        else:
            mode = options.dagger_value
            values = [low if mode == "low" or (mode == "split" and printed == RANGED) else high]
        kind_open = options.spear_kind == "choose" and printed == MELEE | RANGED
        relics = (False, True) if items[BEWITCHING_RELIC] else (False,)
        whets = (False, True) if self.after_reveal and items[WHETSTONE] else (False,)
        frenzies = (False, True) if self.after_reveal and first and items[FRENZY_POTION] else (False,)
        out = []
        for value in values:
            if is_split(card) and options.dagger_value == "choose_kind":
                kinds_of_value = RANGED if value == low else MELEE
            else:
                kinds_of_value = printed
            for kinds in ((MELEE, RANGED) if kind_open else (kinds_of_value,)):
                for relic in relics:
                    for whet in whets:
                        for frenzy in frenzies:
                            choice = AttackChoice(value if value_open else 0, kinds if kind_open else 0,
                                                  relic, whet, frenzy)
                            out.append((choice, value, kinds))
        return out

    def attack(self, state: State, u: int) -> tuple[Any, AttackChoice, bool]:
        """(value, best choice, spend a Soul Crystal if offered) when a card of unique ``u`` attacks from
        ``state`` (the card already out of the pile or the Backpack)."""
        best = None
        for choice, own, kinds in self.choices(u, state[3], state[6]):
            value, crystal = self.outcome(state, u, choice, own, kinds)
            if best is None or value > best[0]:
                best = (value, choice, crystal)
        return best

    def outcome(self, state: State, u: int, choice: AttackChoice, own: int, kinds: int) -> tuple[Any, bool]:
        """``Table.attack`` step by step for one answer: (value, spend the Soul Crystal)."""
        counts, n, total, first, spent, blocked, items, stored, ret = state
        options, power = self.options, self.power
        for item in spent_items(choice):
            items = _minus(items, item)
            ret += 1 if self.returns_items else 0
        rule = options.overshoot
        first_capture = first if rule == "first_attack" else (total == 0 if rule == "zero_total" else False)
        base = CARD_POWER[u * COPIES] if choice.relic else own
        value = base + (WHETSTONE_BONUS if choice.whetstone else 0)
        if choice.frenzy:
            value *= FRENZY_FACTOR
        ignores = choice.relic or choice.frenzy
        spent, cancelled = trait_after(options, self.trait, spent, base, kinds, choice.whetstone, ignores)
        new_total = total + (0 if cancelled else value)
        if new_total > power and first_capture:
            return self.captured(n, items, stored), False
        if new_total > power:   # a bust: the weapon is discarded
            if options.bust == "soul_lost":
                rest = self.soul_lost(n, total, blocked, items, stored)
            else:
                rest = self.value((counts, n, total, False, spent, blocked, items, stored, ret))
        else:
            if self.trait == EXPLODES and (not ignores or options.ignoring_attack_spends_trait):
                spent = True
            if new_total == power:
                rest = self.captured(n, items, stored)
            else:
                rest = self.value((counts, n, new_total, False, spent, blocked, items, stored, ret + 1))
        if total + value > power and items[SOUL_CRYSTAL]:
            spend = self.captured(n, _minus(items, SOUL_CRYSTAL), stored)
            if spend > rest:
                return spend, True
        return rest, False


# ---------------------------------------------------------------- reading a table

def item_counts(table: Table) -> tuple[int, ...]:
    """Held items as counts by item code."""
    counts = [0] * N_UNIQUE
    for card in table.items:
        counts[card // COPIES] += 1
    return tuple(counts)


def pile_counts(table: Table, in_hand: int = -1) -> tuple[int, ...]:
    """The draw pile's composition by unique card, from what the player may know (``pile_composition``:
    every card not in a public zone), less ``in_hand`` (a card drawn and attacking, in no zone yet)."""
    counts = [0] * N_UNIQUE
    for card in pile_composition(table):
        if card != in_hand:
            counts[card // COPIES] += 1
    return tuple(counts)


def table_state(table: Table, in_hand: int = -1) -> State:
    """The DP state of a table at a fight decision point (``in_hand``: see ``pile_counts``)."""
    counts = pile_counts(table, in_hand)
    stored = [0] * N_UNIQUE
    for card in table.stored:
        stored[card // COPIES] += 1
    ret = 1 + len(table.weapons) + (len(table.used) if table.options.smoke_bomb_returns_items else 0)
    return (counts, sum(counts), table.total, table.attacks == 0, table.trait_spent, table.blocked,
            item_counts(table), tuple(stored), ret)


def fight_value(objective: Objective, table: Table) -> Any:
    """The realised value of a table right after a fight closed (what the DP's value is the expectation
    of): ``objective.over`` if the game ended other than by the winning soul, else ``objective.alive``."""
    if table.end is not None and table.end != END_EIGHT_SOULS:
        return objective.over(len(table.souls))
    return objective.alive(len(table.souls), len(table.pile), item_counts(table), len(table.stored))


# ---------------------------------------------------------------- the policy

class OptimalFightPolicy:
    """Reference-engine policy: the fight decisions of the DP (``Fight``), the rest ``CountingPolicy()``'s.

    At a fight decision point, first CountingPolicy's two item rules the DP does not model: the Large
    Backpack takes the best discard weapon, the Big Turkey Dinner when the pile is low. Then the DP's
    best action. At an attack and a Soul Crystal offer, the DP's best answer for the card drawn. Between
    fights: CountingPolicy. One memo per fight context (rule options, power, trait, souls, soul counted),
    kept across fights and games (the same canonical states recur) up to ``MEMO_LIMIT`` states."""

    def __init__(self, params: Mapping[str, float] | None = None, *, exact: bool = False):
        self.params = {**PARAMS, **(params or {})}
        self.exact = exact
        self.counting = CountingPolicy()
        for name, value in self.params.items():
            if name not in PARAMS:
                raise ValueError(f"optimal_fight has no parameter {name!r}; valid: {', '.join(PARAMS)}")
            if name.startswith("worth_") and value < 0:
                raise ValueError(f"optimal_fight: {name} must be >= 0 (the DP's pruning needs it), got {value!r}")
        shown = [f"{k}={float(v):g}" for k, v in self.params.items() if v != PARAMS[k]]
        self.label = f"OptimalFightPolicy({', '.join(shown)})"
        self._fights: dict[tuple, Fight] = {}
        self._objectives: dict[int, Objective] = {}
        self._pending: tuple[State, tuple] | None = None
        self._crystal: tuple[int, bool] | None = None

    def solver(self, table: Table) -> Fight:
        """The Fight of the table's current context (power, trait, souls, soul counted), memo reused."""
        gain = 0 if table.is_mimic and not table.options.mimic_soul else 1
        key = (table.options, table.power, table.trait, len(table.souls), gain)
        fight = self._fights.get(key)
        if fight is None:
            if sum(len(f.memo) for f in self._fights.values()) > MEMO_LIMIT:
                self._fights.clear()
            objective = self._objectives.setdefault(table.options.win_souls,
                                                    Objective(self.params, table.options.win_souls))
            fight = self._fights[key] = Fight(table.options, objective, table.power, table.trait,
                                              len(table.souls), gain, self.exact)
        return fight

    def fight(self, table: Table, legal: list[Action], rng) -> Action:
        self._crystal = None
        if table.between:
            return self.counting.fight(table, legal, rng)
        backpack = table.held(LARGE_BACKPACK)
        if backpack >= 0 and table.discard:
            return Action(USE, backpack, min(table.discard, key=lambda c: (-best_value(c), c)))
        if self.counting._turkey_due(table):
            return Action(USE, table.held(BIG_TURKEY_DINNER))
        solver = self.solver(table)
        state = solver.canonical(table_state(table))
        reps = solver.reps(state[2], state[3], state[4], bool(state[6][BEWITCHING_RELIC]))
        _, action = solver.best(state)
        if action[0] == "stop":
            chosen = Action(STOP)
        elif action[0] == "draw":
            chosen = Action(DRAW)
        elif action[0] == "play":
            chosen = Action(PLAY, min(c for c in table.stored if reps[c // COPIES] == action[1]))
        else:
            chosen = Action(USE, table.held(action[1]))
        if chosen.kind in (DRAW, PLAY):
            self._pending = (state, action)
        if chosen not in legal:
            raise RuntimeError(f"optimal_fight chose {chosen}, not open: {', '.join(map(str, legal))}")
        return chosen

    def _answer(self, table: Table, card: int) -> tuple[AttackChoice, bool]:
        """The DP's best answer for ``card`` attacking from the decision point that chose it."""
        if self._pending is None:
            raise RuntimeError("optimal_fight: an attack without a DRAW or PLAY decision before it")
        state, action = self._pending
        self._pending = None
        counts, n, total, first, spent, blocked, items, stored, ret = state
        solver = self.solver(table)
        u = card // COPIES
        rep = solver.reps(total, first, spent, bool(items[BEWITCHING_RELIC]))[u]
        if action[0] == "draw":
            after = (_minus(counts, rep), n - 1, total, first, spent, blocked, items, stored, ret)
        else:
            after = (counts, n, total, first, spent, blocked, items, _minus(stored, rep), ret)
        _, choice, crystal = solver.attack(after, u)
        self._crystal = (card, crystal)
        return choice, crystal

    def attack(self, table: Table, card: int, open_: AttackOptions, rng) -> AttackChoice:
        return self._answer(table, card)[0]

    def crystal(self, table: Table, card: int, total: int, rng) -> bool:
        if self._crystal is not None and self._crystal[0] == card:
            spend = self._crystal[1]
        else:   # nothing was open at the attack: the one answer's
            spend = self._answer(table, card)[1]
        self._crystal = None
        return spend


def make_policy(params) -> OptimalFightPolicy:
    """The reference twin of the kernel policy: the parameter vector (PARAMS order) -> the policy."""
    return OptimalFightPolicy({name: float(v) for name, v in zip(PARAMS, params)})


def check_params(params) -> None:
    """The checks of ``OptimalFightPolicy`` on a parameter vector (PARAMS order), for the kernel policy:
    objective 0 or 1, every worth >= 0 (ValueError)."""
    OptimalFightPolicy({name: float(v) for name, v in zip(PARAMS, params)})
    objective = float(params[0])
    if int(objective) not in (0, 1):
        raise ValueError(f"optimal_fight: objective must be 0 (win) or 1 (cards), got {objective!r}")


#: The policy as registered: the kernel's DP (``optimal_kernel``, policy id ``policies.OPTIMAL_FIGHT``);
#: this module's ``OptimalFightPolicy`` is its reference twin (replay, the differential tests).
SPEC = PolicySpec(
    "optimal_fight", OPTIMAL_FIGHT,
    "Each fight played by exact dynamic programming over the draw pile's known composition (order "
    "uniformly random), the total, the trait and the held items: draw, play a Backpack weapon, Shield, "
    "Scroll, Smoke Bomb or stop; the 1/6 value, Spear kind, Relic, Whetstone, Frenzy Potion at an attack; "
    "the Soul Crystal. It maximises the expected value of the game after the fight (objective 0: a normal "
    "model of the chance the remaining rounds fit in the pile, items counted as cards; 1: expected cards "
    "left over). Big Turkey Dinner, the Backpack's pick and everything between fights: counting's rules. "
    "In the kernel, memoised in a bounded table (optimal_kernel.py; the readable twin: optimal_fight.py).",
    params=PARAMS, param_docs=PARAM_DOCS)

__all__ = ["DP_ITEMS", "PARAMS", "PARAM_DOCS", "SPEC", "Fight", "Objective", "OptimalFightPolicy", "check_params",
           "fight_value", "item_counts", "make_policy", "pile_counts", "table_state"]
