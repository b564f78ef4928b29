"""Cursed!? stepped one decision at a time (``cursedsim.step``): ``ArrayState`` on the kernel's arrays, whose
copies copy the arrays (O(state)); with ``log=True`` the reference engine's ``CursedState`` (``reference.py``
on a greenlet, copies replay the history), whose table records the events of the turn log. The two play
the same games, decision for decision.

``ArrayState`` holds the kernel's ``zones`` and its control array (``resume.py``): the start of the current
round as the kernel saved it, the answers given in the round so far as a script, and, at a halt, the
question and the position. Every question of the engine (``resume.C_STEP``) halts the kernel; an answer is
appended to the script and the kernel replays the round from its start with it (O(round), never the
game) to the next question. A determinisation is kept in the control too, at the question where it was
drawn, so the replay takes it there. The built-in policies answer on the reference table laid out from
the arrays (``table``), from the game's policy stream, so they draw exactly as in the reference state.

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
the public discard pile) lies at the bottom, a Mimic! put under the pile at set-up too. The reference
state keeps the pile as ``_Pile``, a list that also tracks ``segments``: runs of cards whose set the
player knows and whose order it does not; ``ArrayState`` labels each pile card with its run (cards new to
the pile after an answer are a run, a Smoke Bomb's shuffle makes one run) and lays out the same
``_Pile``. ``determinise`` shuffles each segment and re-seeds the deck stream, with the same draws in both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.errors import CursedsimError
from cursedsim.games.cursed import GAME, kernel, reference_policy
from cursedsim.games.cursed import optimal_kernel as ofk
from cursedsim.games.cursed import policies as pol
from cursedsim.games.cursed import resume as rs
from cursedsim.games.cursed.reference import (
    DRAW,
    PLAY,
    STOP,
    USE,
    Action,
    AttackChoice,
    AttackOptions,
    Table,
)
from cursedsim.games.cursed.rules import (
    CARD_CHEST,
    CARD_WEAPON_HIGH,
    CARD_WEAPON_POWER,
    END_NAMES,
    ITEM_NAMES,
    ITEM_OF_CARD,
    ITEM_SLUGS,
    LARGE_BACKPACK,
    MAX_MIMIC_POWER,
    MELEE,
    N_CARDS,
    N_UNIQUE,
    NO_TRAIT,
    RANGED,
    SMOKE_BOMB,
    TRAIT_NAMES,
    WHETSTONE,
    weapon_text,
)
from cursedsim.games.cursed.state import (
    ARMED_FRENZY, ARMED_WHETSTONE, DISCARD, OPT_STARTING_ITEMS, USED, USED_COUNT, WEAPONS, option_tuple,
)
from cursedsim.step.api import TERMINAL, LaidOutTable, StepSpec, StepState, check_action
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
        return public(self.table)

    def _context(self) -> tuple | None:
        """The question asked (the request's context), None at the end."""
        return None if self._request is None else self._request.context

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
        list.__setitem__(pile, slice(0, len(pile)), shuffle_runs(pile, pile.segments, stream))
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


def public(t: Table) -> tuple:
    """Everything the player sees now (every zone but the pile's order; the pile's known runs)."""
    runs = tuple(tuple(sorted(run)) for run in t.pile.runs())
    return (tuple(t.souls), tuple(sorted(t.items)), tuple(sorted(t.stored)), tuple(sorted(t.discard)),
            t.monster, t.is_mimic, t.power, t.trait, t.chest, tuple(t.weapons), tuple(t.used), t.total,
            t.attacks, t.trait_spent, t.blocked, t.whetstone_armed, t.frenzy_armed, tuple(sorted(t.whettable)),
            t.between, t.rounds, t.damage_taken, t.weapons_drawn, t.busts, tuple(t.used_count), t.start_item,
            t.end, runs)


def shuffle_runs(pile: list[int], segments: list[int], stream: rng.Stream) -> list[int]:
    """The pile with each known run (``segments``, bottom to top) shuffled by Fisher-Yates on ``stream``."""
    pile, start = list(pile), 0
    for size in segments:
        run = pile[start:start + size]
        for i in range(len(run) - 1, 0, -1):
            j = stream.below(i + 1)
            run[i], run[j] = run[j], run[i]
        pile[start:start + size] = run
        start += size
    return pile


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


# ---------------------------------------------------------------- the state on the kernel's arrays

#: The kernel policy that plays under the step state's control: it is asked, its answers are not taken
#: (the script's are), and it draws nothing that is kept.
_KERNEL_POLICY = pol.THRESHOLD
#: The attributes a built-in policy object changes while it plays a game (optimal_fight's planned attack
#: and crystal answer): kept per state, put back before it is asked.
_POLICY_STATE = ("_pending", "_crystal")


def _cards(mask: int) -> list[int]:
    """The card ids of a card mask, ascending."""
    return [c for c in range(N_CARDS) if mask >> c & 1]


def _chain(node) -> list[int]:
    """The actions of a shared chain ``(previous, action)``, oldest first."""
    actions = []
    while node is not None:
        node, action = node
        actions.append(action)
    return actions[::-1]


class ArrayState(LaidOutTable, StepState):
    """One game of Cursed!? on the kernel's arrays: ``zones`` (the ordered piles) and ``ctl`` (resume.py:
    the round's saved start, the round's answers so far as a script, the halted question and position).
    Each answer resumes the kernel, which replays the round from its start with the script and halts at
    the next question; a copy copies the two arrays and a small record: the policy stream, the pile's run
    labels, the built-in policies' own record of the game (optimal_fight's planned attack, rollout's
    searched decisions left) and the actions taken, a chain the copies share (module docstring)."""

    spec: StepSpec

    def __init__(self, recipe: Mapping[str, Any]):
        self.recipe = dict(recipe)
        options = self.recipe["options"]
        self._opts = option_tuple(options)
        self._policies: dict[tuple, Any] = {}
        self._policy_state: dict[tuple, tuple] = {}
        self._zones = np.zeros(kernel.N_ZONES, np.int64)
        self._ctl = np.zeros(rs.N_CTL, np.int64)
        self._policy_rng = rng.Stream(self.recipe["seed"], self.recipe["index"], rng.STREAM_POLICY).s
        self._taken = None
        self._over: int | None = None
        self._laid_out: Table | None = None
        deal = Table.deal(self.recipe["seed"], self.recipe["index"], options)
        if options.starting_item != "random" and options.starting_items > 0:
            deal.force_starting_item(ITEM_SLUGS.index(options.starting_item))
        self._zones[:N_CARDS] = deal.pile
        self._labels = np.zeros(N_CARDS, np.int64)   # the known run of each card in the pile
        self._fresh = 1
        c = self._ctl
        c[rs.C_ON] = c[rs.C_STEP] = c[rs.C_SAVE] = 1
        self._run(tuple(np.uint64(w) for w in deal.deck_rng.s), resume=False)
        self._track_setup(deal.pile)

    # ------------------------------------------------------------ the kernel

    def _run(self, rng_deck=(np.uint64(0),) * 4, resume: bool = True) -> None:
        """Play from the round's saved start (or the deal) with the script to the next question or the end."""
        c = self._ctl
        c[rs.C_HALTED] = c[rs.C_POS] = 0
        c[rs.C_RESUME] = int(resume)
        c[rs.C_QUESTION] = rs.Q_NONE
        zero = np.uint64(0)
        params, memo = _kernel_args()
        result = kernel.play_dealt(self._zones, np.int64(N_CARDS), np.int64(0), zero, zero, zero, np.int64(0),
                                   np.int64(self._opts[OPT_STARTING_ITEMS]), self._opts, np.int64(_KERNEL_POLICY),
                                   params, rng_deck, (zero,) * 4, memo, c)
        self._laid_out = None
        if c[rs.C_HALTED]:
            return
        souls, rounds, damage, n_pile, end, start_item, drawn, busts, n_discard, items, stored = result
        now = {rs.D_PILE: n_pile, rs.D_DISCARD: n_discard, rs.D_ITEMS: items, rs.D_STORED: stored, rs.D_SOULS: souls,
               rs.D_ROUNDS: rounds, rs.D_DAMAGE: damage, rs.D_DRAWN: drawn, rs.D_BUSTS: busts,
               rs.D_START_ITEM: start_item}
        if c[rs.C_QUESTION] != rs.Q_END_FIGHT:   # the fight was closed (cleared, as the reference's table)
            now.update({rs.D_MONSTER: -1, rs.D_IS_MIMIC: 0, rs.D_POWER: 0, rs.D_TRAIT: NO_TRAIT, rs.D_CHEST: 0,
                        rs.D_TOTAL: 0, rs.D_ATTACKS: 0, rs.D_TRAIT_SPENT: 0, rs.D_BLOCKED: 0, rs.D_ARMED: 0,
                        rs.D_WHETTABLE: 0, rs.D_WEAPONS: 0, rs.D_USED: 0, rs.D_BETWEEN: 0})
        for slot, value in now.items():
            c[rs.C_NOW + slot] = int(value)
        self._over = int(end)

    def _answer(self, entry: tuple[int, int, int], action: int) -> None:
        """Take the answer ``entry`` (the script's three values) to the question; resume the kernel."""
        c = self._ctl
        n = int(c[rs.C_N])
        if n >= rs.MAX_SCRIPT:
            raise CursedsimError("cursed: more questions in one round than the kernel's script holds")
        c[rs.C_SCRIPT + 3 * n:rs.C_SCRIPT + 3 * n + 3] = entry
        c[rs.C_N] = n + 1
        question = int(c[rs.C_QUESTION])
        before = self._zones[:int(c[rs.C_NOW + rs.D_PILE])].tolist()
        smoke = question in (rs.Q_FIGHT, rs.Q_BETWEEN) and entry[0] == USE and ITEM_OF_CARD[entry[1]] == SMOKE_BOMB
        self._taken = (self._taken, action)
        self._run()
        self._track(before, smoke)

    # ------------------------------------------------------------ the pile's known runs

    def _pile(self) -> list[int]:
        """The draw pile now, bottom to top."""
        return self._zones[:int(self._ctl[rs.C_NOW + rs.D_PILE])].tolist()

    def _track(self, before: list[int], smoke: bool) -> None:
        """The runs after an answer: cards new to the pile (a Big Turkey Dinner's packet) are a run of
        their own, a Smoke Bomb's shuffle makes the pile one run (as ``_Pile``)."""
        known = set(before)
        new = [card for card in self._pile() if smoke or card not in known]
        if new:
            self._labels = self._labels.copy()
            self._labels[new] = self._fresh
            self._fresh += 1

    def _track_setup(self, dealt: list[int]) -> None:
        """The runs at the first question: each Mimic! put under the pile at set-up (``starting_mimic=
        "redraw"``) is a run of its own, under the rest of the deal."""
        pile = self._pile()
        under = pile.index(dealt[0]) if dealt and dealt[0] in pile else 0
        for card in pile[:under]:
            self._labels[card] = self._fresh
            self._fresh += 1

    def _segments(self, pile: list[int]) -> list[int]:
        """The sizes of the pile's known runs, bottom to top (``_Pile.segments``)."""
        segments, last = [], None
        for card in pile:
            label = int(self._labels[card])
            if label == last:
                segments[-1] += 1
            else:
                segments.append(1)
                last = label
        return segments

    # ------------------------------------------------------------ what the player sees


    def _lay_out(self) -> Table:
        z, c, r = self._zones, self._ctl, self.recipe
        now = c[rs.C_NOW:rs.C_NOW + rs.D_BETWEEN + 1].tolist()
        t = Table(r["options"])
        t.origin = (r["seed"], r["index"])
        pile = self._pile()
        t.pile = _Pile(pile, self._segments(pile))
        t.discard = z[DISCARD:DISCARD + now[rs.D_DISCARD]].tolist()
        t.souls = c[rs.C_SOULS:rs.C_SOULS + now[rs.D_SOULS]].tolist()
        t.items, t.stored = _cards(now[rs.D_ITEMS]), _cards(now[rs.D_STORED])
        t.rounds, t.damage_taken = now[rs.D_ROUNDS], now[rs.D_DAMAGE]
        t.weapons_drawn, t.busts, t.start_item = now[rs.D_DRAWN], now[rs.D_BUSTS], now[rs.D_START_ITEM]
        t.used_count = z[USED_COUNT:USED_COUNT + N_UNIQUE].tolist()
        t.end, t.between = self._over, bool(now[rs.D_BETWEEN])
        monster, t.is_mimic = now[rs.D_MONSTER], bool(now[rs.D_IS_MIMIC])
        if monster >= 0:
            t.monster, t.power, t.trait = monster, now[rs.D_POWER], now[rs.D_TRAIT]
            t.chest = False if t.is_mimic else CARD_CHEST[monster]
        t.weapons = z[WEAPONS:WEAPONS + now[rs.D_WEAPONS]].tolist()
        t.used = z[USED:USED + now[rs.D_USED]].tolist()
        t.total, t.attacks, t.blocked = now[rs.D_TOTAL], now[rs.D_ATTACKS], now[rs.D_BLOCKED]
        t.trait_spent = bool(now[rs.D_TRAIT_SPENT])
        t.whetstone_armed = bool(now[rs.D_ARMED] & ARMED_WHETSTONE)
        t.frenzy_armed = bool(now[rs.D_ARMED] & ARMED_FRENZY)
        t.whettable = [card for card in t.weapons if now[rs.D_WHETTABLE] >> card & 1]
        return t

    def _context(self) -> tuple | None:
        """The question asked, as the reference state's request context (None at the end)."""
        if self._over is not None:
            return None
        c = self._ctl
        question, card, arg = int(c[rs.C_QUESTION]), int(c[rs.C_QCARD]), int(c[rs.C_QARG])
        if question == rs.Q_ATTACK:
            return ("attack", card, open_mask(_open_of(arg)))
        if question == rs.Q_CRYSTAL:
            return ("crystal", card, arg)
        return ("between",) if question == rs.Q_BETWEEN else ("fight",)

    def information(self, agent: int) -> str:
        """As ``CursedState.information``: the question, the public zones and runs, the actions so far."""
        return f"{self._context()}|{public(self.table)}|{_chain(self._taken)}"

    def observation(self, agent: int) -> np.ndarray:
        return observe(self.table, self._context())

    # ------------------------------------------------------------ the step API

    def actor(self) -> int:
        return TERMINAL if self._over is not None else 0

    def is_terminal(self) -> bool:
        return self._over is not None

    def legal_actions(self) -> list[int]:
        context = self._context()
        if context is None:
            return []
        if context[0] == "attack":
            return [ATTACK_BASE + m for m in range(32) if m & context[2] == m]
        if context[0] == "crystal":
            return [CRYSTAL_KEEP, CRYSTAL_SPEND]
        return sorted({encode_action(a) for a in self.table.legal_actions()})

    def apply(self, action: int) -> None:
        action = check_action(self, action)
        context = self._context()
        if context[0] == "attack":
            choice = decode_attack(context[1], _open_of(int(self._ctl[rs.C_QARG])), action)
            return self._answer(_attack_entry(choice), action)
        if context[0] == "crystal":
            return self._answer((int(action == CRYSTAL_SPEND), 0, 0), action)
        by_id = {encode_action(a): a for a in self.table.legal_actions()}
        self._answer(tuple(by_id[action]), action)

    def apply_policy(self, policy: str, params: Mapping[str, float] | None = None) -> int:
        if self._over is not None:
            check_action(self, None)   # the game is over: the error says so
        action, entry = self._ask(policy, params)
        if action not in self.legal_actions():
            raise AssertionError(f"policy {policy!r} chose {action!r}; legal: {self.legal_actions()}")
        self._answer(entry, action)
        return action

    def _ask(self, name: str, params: Mapping[str, float] | None) -> tuple[int, tuple[int, int, int]]:
        """The built-in policy's answer to the question (action id, script entry), drawn from the game's
        policy stream; the policy object's own record of the game is this state's."""
        key = (name, tuple(sorted((params or {}).items())))
        policy = self._reference(name, params)
        t, context = self.table, self._context()
        stream = object.__new__(rng.Stream)   # the game's policy stream where this state left it
        stream.s = list(self._policy_rng)
        self._restore(key, policy, t)
        if context[0] == "attack":
            open_ = _open_of(int(self._ctl[rs.C_QARG]))
            choice = policy.attack(t, context[1], open_, stream)
            answer = encode_attack(context[1], open_, choice), _attack_entry(choice)
        elif context[0] == "crystal":
            spend = bool(policy.crystal(t, context[1], context[2], stream))
            answer = CRYSTAL_SPEND if spend else CRYSTAL_KEEP, (int(spend), 0, 0)
        else:
            reply = policy.fight(t, t.legal_actions(), stream)
            answer = encode_action(reply), tuple(reply)
        self._keep(key, policy, t)
        self._policy_rng = stream.s
        return answer

    _reference = CursedState._reference

    def _restore(self, key: tuple, policy: Any, t: Table) -> None:
        """Put this state's record of the policy's game back on the (shared) policy object."""
        attrs, remaining = self._policy_state.get(key, ({}, None))
        for owner, name in _owned(policy):
            setattr(owner, name, attrs.get(name))
        if remaining is not None:
            policy.decisions[t] = list(remaining)

    def _keep(self, key: tuple, policy: Any, t: Table) -> None:
        """Record what asking the policy changed on its object (for this state and its copies)."""
        attrs = {name: getattr(owner, name) for owner, name in _owned(policy)}
        decisions = getattr(policy, "decisions", None)
        remaining = tuple(decisions.pop(t)) if decisions is not None and t in decisions else None
        if remaining is None:
            remaining = self._policy_state.get(key, ({}, None))[1]
        self._policy_state[key] = (attrs, remaining)

    def clone(self) -> ArrayState:
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy._zones, copy._ctl = self._zones.copy(), self._ctl.copy()
        copy._policy_state = dict(self._policy_state)
        return copy

    def determinise(self, agent: int, seed: int) -> ArrayState:
        copy = self.clone()
        copy._resample(int(agent), int(seed))
        return copy

    def _resample(self, agent: int, seed: int) -> None:
        """``CursedState._resample`` on the arrays (the same draws): each known run of the pile shuffled,
        the deck stream's future from ``seed``; kept in ``ctl`` as a determinisation at this question, so
        that the round's replay takes it there."""
        stream = rng.Stream(seed, self.recipe["index"], STREAM_DETERMINISE)
        before = self._pile()
        pile = shuffle_runs(before, self._segments(before), stream)
        self._zones[:len(pile)] = pile
        self._laid_out = None
        if self._over is not None:   # the game is over: nothing is replayed any more
            return
        c, pos = self._ctl, int(self._ctl[rs.C_N])
        sets = int(c[rs.C_SETS])
        slot = next((s for s in range(sets) if c[rs.C_SETS + 1 + s * rs.SET_SIZE] == pos), sets)
        if slot >= rs.MAX_SETS:
            raise CursedsimError("cursed: more determinisations in one round than the kernel holds")
        at = rs.C_SETS + 1 + slot * rs.SET_SIZE
        c[at], c[at + 1] = pos, len(pile)
        c[at + 2:at + 2 + len(pile)] = pile
        c[at + 2 + N_CARDS:at + 6 + N_CARDS] = np.array(stream.s, np.uint64).view(np.int64)
        c[rs.C_SETS] = max(sets, slot + 1)

    # ------------------------------------------------------------ results

    def returns(self) -> list[float]:
        return [1.0 if self._over is not None and self.table.won else 0.0]

    def outcome(self) -> dict[str, Any]:
        if self._over is None:
            raise CursedsimError("cursed: the game is not over, it has no outcome yet")
        return self.table.outcome().columns()

    def action_name(self, action: int) -> str:
        return action_name(action)


def _owned(policy: Any) -> list[tuple[Any, str]]:
    """The (object, attribute) pairs of ``_POLICY_STATE`` a policy object (or its base policy) has."""
    owners = (policy, getattr(policy, "base", None))
    return [(owner, name) for owner in owners if owner is not None for name in _POLICY_STATE
            if hasattr(owner, name)]


def _open_of(mask: int) -> AttackOptions:
    """The kernel's open-choice bits (``state.OPEN_*``) as the reference's AttackOptions."""
    return AttackOptions(*(bool(mask >> i & 1) for i in range(5)))


def _attack_entry(choice: AttackChoice) -> tuple[int, int, int]:
    """An attack answer as the script's entry: (value, kind, relic | whetstone << 1 | frenzy << 2)."""
    return (int(choice.value), int(choice.kind),
            int(bool(choice.relic)) | int(bool(choice.whetstone)) << 1 | int(bool(choice.frenzy)) << 2)


_KERNEL_ARGS: list = []


def _kernel_args() -> tuple:
    """The kernel policy's parameter tuple (its defaults) and the DP's placeholder table, made once."""
    if not _KERNEL_ARGS:
        spec = next(s for s in pol.POLICIES.values() if s.policy_id == _KERNEL_POLICY and s.impl is None)
        _KERNEL_ARGS.extend((pol.params_tuple(spec.param_vector()), ofk.empty_memo()))
    return tuple(_KERNEL_ARGS)


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
    recipe = {"seed": int(seed), "index": int(index), "options": GAME.make_options(options), "log": bool(log)}
    return CursedState(recipe) if log else ArrayState(recipe)


STEP = StepSpec(
    name="cursed",
    agents=lambda players, options=None: AGENTS,
    num_actions=N_ACTIONS,
    observation_size=lambda players, options=None: OBSERVATION_SIZE,
    agent_sides=lambda players, options=None: (None,),
    new_state=new_state,
    doc=__doc__ or "",
)
CursedState.spec = ArrayState.spec = STEP

__all__ = ["N_ACTIONS", "OBSERVATION_SIZE", "STEP", "ArrayState", "CursedState", "action_name", "decode_attack",
           "encode_action", "encode_attack", "new_state", "observe"]
