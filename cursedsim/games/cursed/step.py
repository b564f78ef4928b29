"""Cursed!? stepped one decision at a time (``cursedsim.step``) on the reference engine (``reference.py``).

The one agent is ``"player"`` (agent 0; a single-side game, so ``agent_sides`` is ``(None,)``): it plays
every policy of ``GAME.policies``, and ``fixed`` must be empty. Every question the engine asks a policy
is one decision, with the action ids (``N_ACTIONS`` in all):

====================  =========================================================================
ids                   decision
====================  =========================================================================
0                     fight decision point: DRAW the top card as a weapon
1 + c                 PLAY Large Backpack weapon card ``c`` (0-29)
31 + i                USE the lowest held copy of item code ``i`` (0-9; no target)
41 + t                USE a Large Backpack: take discard card ``t`` into the Backpack
71 + t                USE a Whetstone on weapon ``t`` in play (``whetstone_in_play``)
101                   STOP (between fights: done with items)
102 + m               an attack's open choices, bits of ``m``: 1 the 6 of a "1/6" weapon (else 1),
                      2 the Spear as ranged (else melee), 4 Bewitching Relic, 8 Whetstone, 16 Frenzy
134, 135              Soul Crystal: keep it, spend it to capture
====================  =========================================================================

A fight decision point (and one between fights) offers the engine's legal list; an attack offers every
combination of the open choices (``reference.AttackOptions``); the crystal offers both. Starting items,
chests and Mimic! fights are not choices in the rules, so they are not decisions.

What is hidden: the order of the draw pile, and the deck stream's future shuffles (Smoke Bomb, a chest's
or a Big Turkey Dinner's shuffle of the discard pile). Every other zone is public, so the pile's
*contents* are known, and so are parts of its order: a Big Turkey Dinner's packet (the cards that left
the public discard pile) lies at the bottom, a Mimic! put under the pile at set-up too. The pile is
kept as ``_Pile``, a list that also tracks ``segments``: runs of cards whose set the player knows and
whose order it does not. ``determinise`` shuffles each segment and re-seeds the deck stream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.errors import CursedsimError
from cursedsim.games.cursed import GAME, reference_policy
from cursedsim.games.cursed.reference import (
    DRAW,
    PLAY,
    STOP,
    Action,
    AttackChoice,
    AttackOptions,
    Table,
)
from cursedsim.games.cursed.rules import (
    CARD_WEAPON_HIGH,
    CARD_WEAPON_POWER,
    END_NAMES,
    ITEM_NAMES,
    ITEM_OF_CARD,
    LARGE_BACKPACK,
    MAX_MIMIC_POWER,
    MELEE,
    N_CARDS,
    N_UNIQUE,
    RANGED,
    TRAIT_NAMES,
    WHETSTONE,
    weapon_text,
)
from cursedsim.step.api import StepSpec
from cursedsim.step.driven import DrivenState, Request

# ---------------------------------------------------------------- action ids

DRAW_ACTION = 0
PLAY_BASE = 1
USE_BASE = PLAY_BASE + N_CARDS
BACKPACK_BASE = USE_BASE + N_UNIQUE
WHET_BASE = BACKPACK_BASE + N_CARDS
STOP_ACTION = WHET_BASE + N_CARDS
ATTACK_BASE = STOP_ACTION + 1
#: Bits of an attack's choice ``m`` (action ``ATTACK_BASE + m``), in AttackOptions order.
HIGH_VALUE, AS_RANGED, WITH_RELIC, WITH_WHETSTONE, WITH_FRENZY = 1, 2, 4, 8, 16
ATTACK_BITS = ("6", "ranged", "Bewitching Relic", "Whetstone", "Frenzy Potion")
CRYSTAL_KEEP = ATTACK_BASE + 32
CRYSTAL_SPEND = CRYSTAL_KEEP + 1
N_ACTIONS = CRYSTAL_SPEND + 1

AGENTS = ("player",)
#: The engine stream a determinisation draws from (with its seed): the segment shuffles, then the future.
STREAM_DETERMINISE = 0xC5


def encode_action(action: Action) -> int:
    """The id of a fight (or between-fights) action; a USE names its item, not the copy."""
    if action.kind == DRAW:
        return DRAW_ACTION
    if action.kind == PLAY:
        return PLAY_BASE + action.card
    if action.kind == STOP:
        return STOP_ACTION
    item = ITEM_OF_CARD[action.card]
    if item == LARGE_BACKPACK:
        return BACKPACK_BASE + action.target
    if item == WHETSTONE and action.target >= 0:
        return WHET_BASE + action.target
    return USE_BASE + item


def open_mask(open_: AttackOptions) -> int:
    """The bits of the choices open at an attack."""
    return sum(bit for bit, flag in zip((HIGH_VALUE, AS_RANGED, WITH_RELIC, WITH_WHETSTONE, WITH_FRENZY), open_)
               if flag)


def encode_attack(card: int, open_: AttackOptions, choice: AttackChoice) -> int:
    """The id of an attack choice (what is not open is ignored, as the engine ignores it)."""
    m = 0
    if open_.value and choice.value == CARD_WEAPON_HIGH[card]:
        m |= HIGH_VALUE
    if open_.kind and choice.kind == RANGED:
        m |= AS_RANGED
    for bit, flag in ((WITH_RELIC, choice.relic), (WITH_WHETSTONE, choice.whetstone), (WITH_FRENZY, choice.frenzy)):
        if flag:
            m |= bit
    return ATTACK_BASE + m


def decode_attack(card: int, open_: AttackOptions, action: int) -> AttackChoice:
    m = action - ATTACK_BASE
    value = (CARD_WEAPON_HIGH[card] if m & HIGH_VALUE else CARD_WEAPON_POWER[card]) if open_.value else 0
    kind = (RANGED if m & AS_RANGED else MELEE) if open_.kind else 0
    return AttackChoice(value, kind, bool(m & WITH_RELIC), bool(m & WITH_WHETSTONE), bool(m & WITH_FRENZY))


def action_name(action: int) -> str:
    """A readable name of an action id."""
    if action == DRAW_ACTION:
        return "draw"
    if PLAY_BASE <= action < USE_BASE:
        card = action - PLAY_BASE
        return f"play #{card} {weapon_text(card)}"
    if USE_BASE <= action < USE_BASE + N_UNIQUE:
        return f"use {ITEM_NAMES[action - USE_BASE]}"
    if BACKPACK_BASE <= action < WHET_BASE:
        card = action - BACKPACK_BASE
        return f"use Large Backpack -> #{card} {weapon_text(card)}"
    if WHET_BASE <= action < STOP_ACTION:
        card = action - WHET_BASE
        return f"use Whetstone on #{card} {weapon_text(card)}"
    if action == STOP_ACTION:
        return "stop"
    if ATTACK_BASE <= action < CRYSTAL_KEEP:
        m = action - ATTACK_BASE
        chosen = [name for i, name in enumerate(ATTACK_BITS) if m >> i & 1]
        return "attack" + (f" with {', '.join(chosen)}" if chosen else " plain (where open: 1, melee, no item)")
    if action == CRYSTAL_KEEP:
        return "keep the Soul Crystal"
    if action == CRYSTAL_SPEND:
        return "spend a Soul Crystal"
    return f"unknown action {action}"


# ---------------------------------------------------------------- the pile and what is known of its order

class _Pile(list):
    """The draw pile (top = last) plus ``segments``: sizes, bottom to top, of the runs of cards whose set
    the player knows but not their order. The deal is one segment; a card put under the pile (a Mimic!
    redrawn) or a Big Turkey Dinner's packet starts a segment at the bottom, a card moved or put on top
    one at the top; a shuffle of the pile (Smoke Bomb) makes it one segment again. Only the list
    operations the engine uses on the pile are allowed (others raise, so a new one is not missed)."""

    def __init__(self, cards=(), segments=None):
        super().__init__(cards)
        self.segments = list(segments) if segments is not None else ([len(self)] if len(self) else [])

    def _shrink(self, position: int) -> None:
        start = 0
        for i, size in enumerate(self.segments):
            if position < start + size:
                self.segments[i] -= 1
                if not self.segments[i]:
                    del self.segments[i]
                return
            start += size
        raise AssertionError("pile segments do not cover the pile")

    def pop(self, index: int = -1) -> int:
        position = index % len(self) if self else index
        card = super().pop(index)
        self._shrink(position)
        return card

    def remove(self, card: int) -> None:
        position = self.index(card)
        super().pop(position)
        self._shrink(position)

    def append(self, card: int) -> None:
        super().append(card)
        self.segments.append(1)

    def extend(self, cards) -> None:
        cards = list(cards)
        super().extend(cards)
        if cards:
            self.segments.append(len(cards))

    def insert(self, index: int, card: int) -> None:
        if index != 0:
            raise NotImplementedError("the step API tracks insertions at the bottom of the pile only")
        super().insert(0, card)
        self.segments.insert(0, 1)

    def __setitem__(self, key, value) -> None:
        if isinstance(key, slice):
            if key.indices(len(self)) != (0, 0, 1):
                raise NotImplementedError("the step API tracks slices put under the pile only")
            cards = list(value)
            super().__setitem__(key, cards)
            if cards:
                self.segments.insert(0, len(cards))
            return
        super().__setitem__(key, value)   # a swap of a shuffle: the whole pile is mixed
        self.segments = [len(self)]

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError("the step API does not track this operation on the draw pile")

    __delitem__ = __iadd__ = sort = reverse = clear = _refuse

    def runs(self) -> list[list[int]]:
        """The segments' cards, bottom to top (each in pile order)."""
        runs, start = [], 0
        for size in self.segments:
            runs.append(list(self[start:start + size]))
            start += size
        return runs


# ---------------------------------------------------------------- the state

class CursedState(DrivenState):
    """One game of Cursed!? on the reference engine: ``table`` is the live ``reference.Table``, the
    engine runs in a greenlet and stops at each policy question (module docstring)."""

    spec: StepSpec

    def __init__(self, recipe: Mapping[str, Any]):
        self._policies: dict[tuple, Any] = {}
        self._taken: list[int] = []
        self._pending: tuple[int, Any] | None = None
        super().__init__(recipe)

    # ------------------------------------------------------------ the engine, through the proxy policy

    def _play(self, ask: Callable[[Request], int]) -> None:
        recipe = self.recipe
        seed, index = recipe["seed"], recipe["index"]
        table = Table.deal(seed, index, recipe["options"], log=recipe["log"], label="step")
        table.pile = _Pile(table.pile)
        self.table = table
        policy_rng = rng.Stream(seed, index, rng.STREAM_POLICY)
        proxy = _Proxy(self, ask)
        table.take_starting_items(proxy, policy_rng)
        table.play_game(proxy, policy_rng)

    def _reference(self, name: str, params: Mapping[str, float] | None):
        """The reference policy object ``name`` with ``params`` (cached per state)."""
        key = (name, tuple(sorted((params or {}).items())))
        if key not in self._policies:
            spec = GAME.policy(name)
            self._policies[key] = reference_policy(spec, spec.param_vector(params))
        return self._policies[key]

    def _decide(self, ask, legal: list[int], context: tuple, answer: Callable[[Any], Any],
                encode: Callable[[Any], int]) -> int:
        """Ask for one decision; ``answer(policy)`` is the built-in policy's own answer, ``encode`` its id.
        Returns the action id and remembers the policy's answer when that was taken (so the engine
        gets exactly what the policy said, a copy of an item included)."""
        def by_policy(name: str, params: Mapping[str, float] | None) -> int:
            reply = answer(self._reference(name, params))
            action = encode(reply)
            self._pending = (action, reply)
            return action

        self._pending = None
        action = ask(Request(0, legal, by_policy, context))
        self._taken.append(action)
        return action

    def _policy_answer(self, action: int):
        pending, self._pending = self._pending, None
        return pending[1] if pending is not None and pending[0] == action else None

    # ------------------------------------------------------------ what the player knows

    def _public(self) -> tuple:
        """Everything the player sees now (every zone but the pile's order; the pile's known runs)."""
        t = self.table
        runs = tuple(tuple(sorted(run)) for run in t.pile.runs())
        return (tuple(t.souls), tuple(sorted(t.items)), tuple(sorted(t.stored)), tuple(sorted(t.discard)),
                t.monster, t.is_mimic, t.power, t.trait, t.chest, tuple(t.weapons), tuple(t.used), t.total,
                t.attacks, t.trait_spent, t.blocked, t.whetstone_armed, t.frenzy_armed, tuple(sorted(t.whettable)),
                t.between, t.rounds, t.damage_taken, t.weapons_drawn, t.busts, tuple(t.used_count), t.start_item,
                t.end, runs)

    def information(self, agent: int) -> str:
        """The decision asked (its kind, the attacking card and open choices, the crystal's total), every
        public zone and counter, the pile's known runs as sets (bottom to top), and the player's own
        actions so far; never the pile's order nor the deck stream."""
        context = None if self._request is None else self._request.context
        return f"{context}|{self._public()}|{self._taken}"

    def observation(self, agent: int) -> np.ndarray:
        return observe(self.table, None if self._request is None else self._request.context)

    def _resample(self, agent: int, seed: int) -> None:
        """Shuffle each known run of the pile; the deck stream's future from ``seed``."""
        stream = rng.Stream(seed, self.recipe["index"], STREAM_DETERMINISE)
        pile = self.table.pile
        start = 0
        for size in pile.segments:
            run = list(pile[start:start + size])
            for i in range(len(run) - 1, 0, -1):
                j = stream.below(i + 1)
                run[i], run[j] = run[j], run[i]
            list.__setitem__(pile, slice(start, start + size), run)
            start += size
        self.table.deck_rng = stream

    # ------------------------------------------------------------ results

    def returns(self) -> list[float]:
        return [1.0 if self.is_terminal() and self.table.won else 0.0]

    def outcome(self) -> dict[str, Any]:
        if not self.is_terminal():
            raise CursedsimError("cursed: the game is not over, it has no outcome yet")
        return self.table.outcome().columns()

    def action_name(self, action: int) -> str:
        return action_name(action)


class _Proxy:
    """The policy the engine talks to: each question becomes a decision of the state."""

    def __init__(self, state: CursedState, ask: Callable[[Request], int]):
        self.state, self.ask = state, ask

    def fight(self, table: Table, legal: list[Action], policy_rng: rng.Stream) -> Action:
        by_id = {encode_action(action): action for action in legal}
        context = ("between" if table.between else "fight",)
        action = self.state._decide(self.ask, sorted(by_id), context,
                                    lambda p: p.fight(table, legal, policy_rng), encode_action)
        answer = self.state._policy_answer(action)
        return answer if answer is not None else by_id[action]

    def attack(self, table: Table, card: int, open_: AttackOptions, policy_rng: rng.Stream) -> AttackChoice:
        mask = open_mask(open_)
        legal = [ATTACK_BASE + m for m in range(32) if m & mask == m]
        action = self.state._decide(self.ask, legal, ("attack", card, mask),
                                    lambda p: p.attack(table, card, open_, policy_rng),
                                    lambda choice: encode_attack(card, open_, choice))
        answer = self.state._policy_answer(action)
        return answer if answer is not None else decode_attack(card, open_, action)

    def crystal(self, table: Table, card: int, total: int, policy_rng: rng.Stream) -> bool:
        action = self.state._decide(self.ask, [CRYSTAL_KEEP, CRYSTAL_SPEND], ("crystal", card, total),
                                    lambda p: p.crystal(table, card, total, policy_rng),
                                    lambda spend: CRYSTAL_SPEND if spend else CRYSTAL_KEEP)
        self.state._policy_answer(action)
        return action == CRYSTAL_SPEND


# ---------------------------------------------------------------- the observation vector

#: Per card (30 each): the zones; a pile card's entry is 1 in the top run, else how deep its run lies.
CARD_ZONES = ("pile_top", "pile_below", "discard", "souls", "items", "stored", "monster", "weapons", "used",
              "whettable", "decision_card")
#: Scalars and their scale (value / scale, clipped to [0, 1]).
SCALARS = (("power", MAX_MIMIC_POWER), ("total", 2 * MAX_MIMIC_POWER), ("attacks", 10), ("blocked", 30),
           ("souls", N_CARDS), ("pile", N_CARDS), ("discard", N_CARDS), ("rounds", N_CARDS),
           ("damage_taken", N_CARDS), ("weapons_drawn", 2 * N_CARDS), ("busts", N_CARDS),
           ("crystal_total", 2 * MAX_MIMIC_POWER))
FLAGS = ("in_fight", "is_mimic", "chest", "trait_spent", "whetstone_armed", "frenzy_armed", "between", "over",
         "won")
PHASES = ("fight", "between", "attack", "crystal", "terminal")
OBSERVATION_SIZE = (len(CARD_ZONES) * N_CARDS + len(SCALARS) + len(FLAGS) + len(TRAIT_NAMES) + N_UNIQUE
                    + (N_UNIQUE + 1) + len(PHASES) + len(ATTACK_BITS) + len(END_NAMES))


def observe(table: Table, context: tuple | None) -> np.ndarray:
    """The player's view as ``OBSERVATION_SIZE`` floats in [0, 1] (a function of what it knows)."""
    cards = np.zeros((len(CARD_ZONES), N_CARDS), dtype=np.float32)
    zone = {name: i for i, name in enumerate(CARD_ZONES)}
    runs = table.pile.runs()
    above = len(table.pile)
    for depth, run in enumerate(runs):
        above -= len(run)
        top = depth == len(runs) - 1
        for card in run:
            if top:
                cards[zone["pile_top"], card] = 1.0
            else:
                cards[zone["pile_below"], card] = (1 + above) / N_CARDS
    for name, zone_cards in (("discard", table.discard), ("souls", table.souls), ("items", table.items),
                             ("stored", table.stored), ("weapons", table.weapons), ("used", table.used),
                             ("whettable", table.whettable)):
        cards[zone[name], list(zone_cards)] = 1.0
    if table.monster >= 0:
        cards[zone["monster"], table.monster] = 1.0
    phase = "terminal" if context is None else context[0]
    if phase in ("attack", "crystal"):
        cards[zone["decision_card"], context[1]] = 1.0
    values = {"power": table.power, "total": table.total, "attacks": table.attacks, "blocked": table.blocked,
              "souls": len(table.souls), "pile": len(table.pile), "discard": len(table.discard),
              "rounds": table.rounds, "damage_taken": table.damage_taken, "weapons_drawn": table.weapons_drawn,
              "busts": table.busts, "crystal_total": context[2] if phase == "crystal" else 0}
    scalars = [min(1.0, max(0.0, values[name] / scale)) for name, scale in SCALARS]
    flags = [table.monster >= 0, table.is_mimic, table.chest, table.trait_spent, table.whetstone_armed,
             table.frenzy_armed, table.between, table.end is not None, table.end is not None and table.won]
    trait = np.eye(len(TRAIT_NAMES), dtype=np.float32)[table.trait]
    used = [min(1.0, count / 10) for count in table.used_count]
    start = np.eye(N_UNIQUE + 1, dtype=np.float32)[table.start_item + 1]
    phases = [phase == name for name in PHASES]
    mask = context[2] if phase == "attack" else 0
    bits = [bool(mask >> i & 1) for i in range(len(ATTACK_BITS))]
    end = [table.end == code for code in range(len(END_NAMES))]
    vector = np.concatenate([cards.ravel(), np.array(scalars + flags, dtype=np.float32), trait,
                             np.array(used, dtype=np.float32), start, np.array(phases + bits + end, dtype=np.float32)])
    assert vector.shape == (OBSERVATION_SIZE,)
    return vector


# ---------------------------------------------------------------- the spec

def new_state(seed: int, index: int, players: int = 1, options: Any = None, fixed: Mapping | None = None,
              log: bool = False) -> CursedState:
    """Game ``index`` of the run ``seed`` as the runner deals it; the player is the one agent (``fixed``
    must be empty: no side plays inside the engine). ``log``: the table keeps its events
    (``state.table.events``, ``state.table.log``)."""
    GAME.check_players(players)
    if fixed:
        raise CursedsimError(f"cursed has one side, the player, and it is the agent; nothing can be fixed "
                             f"(got fixed={dict(fixed)!r})")
    return CursedState({"seed": int(seed), "index": int(index), "options": GAME.make_options(options),
                        "log": bool(log)})


STEP = StepSpec(
    name="cursed",
    agents=lambda players, options=None: AGENTS,
    num_actions=N_ACTIONS,
    observation_size=lambda players, options=None: OBSERVATION_SIZE,
    agent_sides=lambda players, options=None: (None,),
    new_state=new_state,
    doc=__doc__ or "",
)
CursedState.spec = STEP

__all__ = ["N_ACTIONS", "OBSERVATION_SIZE", "STEP", "CursedState", "action_name", "decode_attack",
           "encode_action", "encode_attack", "new_state", "observe"]
