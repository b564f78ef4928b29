"""Verflucht! stepped one decision at a time (``cursedsim.step.api``): ``ArrayState`` over the kernel's
state arrays (``kernel.advance`` halts at each engine question), whose copies copy the arrays (O(state));
with ``log=True`` the reference engine's ``VerfluchtState`` (on a greenlet, copies replay the history),
which records the events of the turn log. The two play the same games, sub-decision for sub-decision.

Agents are the seats ``seat0 .. seat{n-1}``; the game is co-operative, so every seat gets the shared
result. The engine asks two questions, each split into small sub-decisions so that one integer is
one choice a player makes with what they know:

- voluntary banishing (``policy.banish``, the active seat): pick a display Creature its whole hand
  can afford, or ``done``; then its Items, highest first, ``done`` once they cover the Creature.
- an attack (``policy.attack``, a team decision): the active seat first chooses ``seal`` or ``fight``
  (only when a Seal is allowed: it is the active player's turn and the rulebook has them answer);
  then each eligible seat in the engine's order (the active one, then in turn order; the active one
  alone against a sixth Creature) takes attacking Creatures (highest first, ``done``) and pays for
  them with its own Items (highest first, ``done``), so a seat only ever chooses its own cards.
  ``fight`` that leaves an attacker unpaid falls back to a Seal when one is allowed (with option
  ``partial_items_before_seal`` the paid part stays banished), else to ``forced_plan``.

Actions: 0 ``done``, 1 ``seal``, 2 ``fight``, 2+v Creature v, 42+v Item v (v = 1..40). A sub-decision
with one legal action is taken without asking, except the first of each engine question (a built-in
policy may draw from its stream there). A built-in policy answers the whole question at its first
sub-decision and its answer is replayed at the following ones; first asked at a later sub-decision
(after an agent's choices) it answers the whole question then, drawing from its stream, and follows
that answer where it still fits, else takes ``done`` or the highest legal action. ``fixed`` is
unused (no side is outside the agents); ``outcome()`` gives ``end`` by name, as the frame does.

Hidden from a seat: the values of the other seats' Items (their counts are public), which Items are
still face down, and the future draws. What is said or played aloud is public: drawn Creatures,
every sub-decision taken (Creatures taken, Items spent), and whether a Seal may answer the current
attack (the players know whether they can banish every attacker). ``determinise`` deals the unseen
Items anew to the other hands and the face-down cards (sizes kept, Items already named in the
current question kept, the current attack's Seal permission and the actor's pending payment kept,
by rejection) and re-seeds the deck stream. Seal permissions of past attacks and what seats passed
on are not re-checked (their hands have changed since): an approximation of the information set.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.errors import CursedsimError, UnknownPolicyError
from cursedsim.games.verflucht import GAME, kernel, reference_policy
from cursedsim.games.verflucht import state as S
from cursedsim.games.verflucht.policies import ROLLOUT, params_tuple
from cursedsim.games.verflucht.reference import Table
from cursedsim.games.verflucht.reference_policies import AttackChoice, Banish, forced_plan
from cursedsim.games.verflucht.rules import (
    END_NAMES, END_WIN, FIRST_ITEM_CODE, MAX_PLAYERS, MAX_SEALS, MAX_VALUE, N_CARDS,
)
from cursedsim.games.verflucht.state import mask_of, new_arrays, option_vector, values_of
from cursedsim.step.api import TERMINAL, LaidOutTable, StepSpec, StepState, check_action
from cursedsim.step.driven import DrivenState, Request

DONE, SEAL, FIGHT = 0, 1, 2
CREATURE0 = 2          # action CREATURE0 + v: Creature v
ITEM0 = 2 + MAX_VALUE  # action ITEM0 + v: Item v
NUM_ACTIONS = ITEM0 + MAX_VALUE + 1

#: Stream id of the deck stream a determinisation re-seeds (apart from the runner's streams).
STREAM_DETERMINISE = 7
#: Deals tried by ``determinise`` before it keeps the hidden cards as they are.
RESAMPLE_TRIES = 200

#: Sub-decision stages (in the observation as a one-hot).
STAGES = ("pick", "pay", "answer", "take", "settle")


def creature_action(value: int) -> int:
    return CREATURE0 + value


def item_action(value: int) -> int:
    return ITEM0 + value


def action_name(action: int) -> str:
    """``done``, ``seal``, ``fight``, ``C<v>`` (a Creature) or ``I<v>`` (an Item)."""
    if action == DONE:
        return "done"
    if action == SEAL:
        return "seal"
    if action == FIGHT:
        return "fight"
    if CREATURE0 < action <= CREATURE0 + MAX_VALUE:
        return f"C{action - CREATURE0}"
    if ITEM0 < action < NUM_ACTIONS:
        return f"I{action - ITEM0}"
    return f"?{action}"


def pay_legal(hand, chosen: list[int], target: int) -> list[int]:
    """Items to add, highest first (each below the last chosen) without a dead end, and ``done`` once
    the chosen ones cover ``target``."""
    paid = sum(chosen)
    below = min(chosen) if chosen else MAX_VALUE + 1
    pool = sorted(v for v in hand if v < below)
    legal = [DONE] if chosen and paid >= target else []
    running = 0
    for v in pool:                       # running: the sum of the items below v
        if paid + v + running >= target:
            legal.append(item_action(v))
        running += v
    return legal


@dataclass
class Pending:
    """One engine question being answered: its context and the sub-decisions taken so far."""

    kind: str                                    # "banish" or "attack"
    active: int
    attackers: tuple[int, ...] = ()
    is_group: bool = False
    seal_allowed: bool = False
    last_turn: bool = False
    stage: str = "pick"
    actor: int = 0
    answer: int | None = None                    # SEAL / FIGHT (attack)
    creature: int = 0                            # the Creature picked (banish)
    taken: dict[int, list[int]] = field(default_factory=dict)
    paid: dict[int, list[int]] = field(default_factory=dict)
    answers: dict = field(default_factory=dict)  # (policy, params) -> the policy's whole answer
    asked: bool = False
    legal_fn: Callable[[], list[int]] | None = None
    # ArrayState's place in an attack: the seats who may take attackers, which one now, the answer's kind
    eligible: tuple[int, ...] = ()
    at: int = 0
    partial: bool = False
    keep_one: bool = False

    def copy(self) -> Pending:
        """An independent copy (the policies' answers are not changed once made, so they are shared)."""
        return dataclasses.replace(self, taken={q: list(c) for q, c in self.taken.items()},
                                   paid={q: list(i) for q, i in self.paid.items()}, answers=dict(self.answers))

    def all_taken(self) -> list[int]:
        return [c for cs in self.taken.values() for c in cs]

    def public(self) -> tuple:
        return (self.kind, self.active, self.attackers, self.is_group, self.seal_allowed, self.last_turn,
                self.stage, self.actor, self.answer, self.creature,
                tuple(sorted((p, tuple(c)) for p, c in self.taken.items())),
                tuple(sorted((p, tuple(i)) for p, i in self.paid.items())))


def _params_key(params: Mapping[str, float] | None) -> tuple:
    return () if not params else tuple(sorted((k, float(v)) for k, v in params.items()))


class VerfluchtState(DrivenState):
    """A game of Verflucht! on ``reference.Table``, stepped through the engine's policy callbacks."""

    spec: StepSpec

    def __init__(self, recipe: Mapping[str, Any]):
        self._policies: dict = {}
        self._pending: Pending | None = None
        self._log: list[tuple] = []      # per sub-decision: (public snapshot, hands, action)
        self._direct: tuple | None = None  # (policy, params) playing every decision (play_out)
        super().__init__(recipe)

    # ------------------------------------------------------------------ a fast play-out

    def play_out(self, policies: Mapping[int, tuple[str, Mapping[str, float] | None]]) -> None:
        """When one policy plays every seat (as in the runner), the engine calls it directly to the
        end (no switch per decision; the sub-decision log stops, so ``information`` after it lacks
        those steps); otherwise the step-by-step loop. The history records it, so clones replay it."""
        chosen = {(name, _params_key(params)) for name, params in policies.values()}
        if self.is_terminal() or len(chosen) != 1 or set(policies) != set(range(self.table.players)):
            return super().play_out(policies)
        name, params = next(iter(policies.values()))
        self._policy(name, params)   # an unknown policy raises before anything moves
        self.history.append(("playout", name, None if params is None else dict(params)))
        self._direct = (name, params)
        self._resume(self._request.by_policy(name, params))

    def _redo(self, entry: tuple) -> None:
        """A copy's replay of the history (``clone``), the fast play-outs it holds included."""
        if entry[0] == "playout":
            self.play_out({q: (entry[1], entry[2]) for q in range(self.table.players)})
        else:
            super()._redo(entry)

    # ------------------------------------------------------------------ the engine, driven

    def _play(self, ask: Callable[[Request], int]) -> None:
        r = self.recipe
        self.table = Table.deal(r["seed"], r["index"], r["players"], r["options"], log=r["log"])
        self.table.play_game(_Proxy(self, ask), rng.Stream(r["seed"], r["index"], rng.STREAM_POLICY))

    def _policy(self, name: str, params: Mapping[str, float] | None):
        key = (name, _params_key(params))
        if key not in self._policies:
            spec = GAME.policy(name)   # an UnknownPolicyError naming the valid ones
            self._policies[key] = reference_policy(spec, spec.param_vector(params))
        return self._policies[key]

    def _snapshot(self) -> tuple:
        return snapshot(self.table, self._pending)

    # ------------------------------------------------------------------ results

    def returns(self) -> list[float]:
        won = self.is_terminal() and self.table.end == END_WIN
        return [1.0 if won else 0.0] * self.table.players

    def outcome(self) -> dict[str, Any]:
        """The frame's outcome columns, ``end`` by its name as ``simulate`` shows it."""
        if not self.is_terminal():
            raise CursedsimError("verflucht: the game is not over, it has no outcome yet")
        o = self.table.outcome()
        return {"win": bool(o.win), "score": int(o.score), "turns": int(o.turns),
                "seals_used": int(o.seals_used), "end": END_NAMES[o.end], "attacks": int(o.attacks)}

    def action_name(self, action: int) -> str:
        return action_name(action)

    # ------------------------------------------------------------------ information

    def information(self, agent: int) -> str:
        """Every public snapshot and sub-decision so far with ``agent``'s own hand at each, then now."""
        return information(self.table, self._pending, self._log, agent, self.is_terminal(), self.actor())

    def observation(self, agent: int) -> np.ndarray:
        return observation(self.table, None if self.is_terminal() else self._pending, agent, self.is_terminal())

    # ------------------------------------------------------------------ determinisation

    def _resample(self, agent: int, seed: int) -> None:
        """Deal the Items ``agent`` has not seen anew (other hands, face-down cards), keep what the
        current question named, and re-seed the deck stream; rejection keeps the current legal
        actions' premises (the Seal permission, the actor's payment)."""
        t = self.table
        p = self._pending if not self.is_terminal() else None
        fixed = {q: set(p.paid.get(q, ())) for q in range(t.players)} if p else {q: set() for q in range(t.players)}
        others = [q for q in range(t.players) if q != agent]
        pool = [v for q in others for v in sorted(t.hands[q]) if v not in fixed[q]]
        pool += [c - FIRST_ITEM_CODE + 1 for c in t.face_down if c >= FIRST_ITEM_CODE]
        creatures_down = [c for c in t.face_down if c < FIRST_ITEM_CODE]
        sizes = {q: len(t.hands[q]) - len(fixed[q]) for q in others}
        old = ([set(h) for h in t.hands], list(t.face_down))
        draw = random.Random(seed)
        for _ in range(RESAMPLE_TRIES):
            draw.shuffle(pool)
            k = 0
            for q in others:
                t.hands[q] = fixed[q] | set(pool[k:k + sizes[q]])
                k += sizes[q]
            t.face_down = creatures_down + sorted(FIRST_ITEM_CODE + v - 1 for v in pool[k:])
            if self._consistent(p):
                break
        else:
            t.hands, t.face_down = old
        t.deck_rng = rng.Stream(seed, 0, STREAM_DETERMINISE)
        if p is not None and p.legal_fn is not None and self._request is not None:
            self._request.legal[:] = p.legal_fn()

    def _consistent(self, p: Pending | None) -> bool:
        return consistent(self.table, p, None if p is None else p.legal_fn)



def consistent(t: Table, p: Pending | None, legal: Callable[[], list[int]] | None) -> bool:
    """Whether a redealt table keeps the premises of the open question ``p``: the Seal permission of the
    attack, the actor's room for what it took, and a legal action (``legal``, when it is asked now)."""
    if p is None:
        return True
    if p.kind == "attack" and t.seal_allowed(p.attackers, p.is_group) != p.seal_allowed:
        return False
    if p.stage == "take" and sum(t.hands[p.actor]) < sum(p.taken.get(p.actor, ())):
        return False
    return legal is None or bool(legal())


def snapshot(t: Table, pending: Pending | None) -> tuple:
    """What every seat sees of the table now (counts, display, discards, hand sizes, the question)."""
    return (t.turns, t.active, t.seals_left, len(t.face_down), tuple(sorted(t.display)),
            tuple(sorted(t.discard_creatures)), tuple(sorted(t.discard_items)),
            tuple(len(h) for h in t.hands), None if pending is None else pending.public())


def information(t: Table, pending: Pending | None, log, agent: int, terminal: bool, actor: int) -> str:
    """The information key of ``agent``: every logged sub-decision (public snapshot, its own hand, the
    action; ``log`` in order) and the table now."""
    parts = [f"seat{agent}"]
    for public, hands, action in log:
        parts.append(f"{public}{hands[agent]}>{action}")
    hand = tuple(sorted(t.hands[agent]))
    parts.append(f"end{snapshot(t, pending)}{hand}" if terminal else f"{snapshot(t, pending)}{hand}?{actor}")
    return "|".join(parts)


def observation(t: Table, p: Pending | None, agent: int, terminal: bool) -> np.ndarray:
    """Own hand, display, discards, pending attack/choices (40 bits each), hand sizes, Seals, pile,
    seats and the stage, all scaled into [0, 1]."""
    obs = np.zeros(observation_size(t.players, None), dtype=np.float32)

    def bits(offset: int, values) -> int:
        for v in values:
            obs[offset + v - 1] = 1.0
        return offset + MAX_VALUE

    k = bits(0, t.hands[agent])
    k = bits(k, t.display)
    k = bits(k, t.discard_creatures)
    k = bits(k, t.discard_items)
    k = bits(k, p.attackers if p else ())
    k = bits(k, [c for cs in p.taken.values() for c in cs] if p else ())
    k = bits(k, [i for its in p.paid.values() for i in its] if p else ())
    for s in range(MAX_PLAYERS):
        if s < t.players:
            obs[k + s] = len(t.hands[s]) / MAX_VALUE
    k += MAX_PLAYERS
    obs[k] = t.seals_left / MAX_SEALS
    obs[k + 1] = len(t.face_down) / N_CARDS
    obs[k + 2] = min(t.turns, 2 * N_CARDS) / (2 * N_CARDS)
    obs[k + 3] = float(terminal)
    k += 4
    obs[k + agent] = 1.0
    obs[k + MAX_PLAYERS + t.active] = 1.0
    k += 2 * MAX_PLAYERS
    if p is not None:
        obs[k + p.actor] = 1.0
        obs[k + MAX_PLAYERS + STAGES.index(p.stage)] = 1.0
        obs[k + MAX_PLAYERS + len(STAGES)] = float(p.is_group)
        obs[k + MAX_PLAYERS + len(STAGES) + 1] = float(p.seal_allowed)
        obs[k + MAX_PLAYERS + len(STAGES) + 2] = float(p.last_turn)
        obs[k + MAX_PLAYERS + len(STAGES) + 3] = p.creature / MAX_VALUE
    return obs


def observation_size(players: int, options: Any) -> int:
    """7 bit-sets of 40, hand sizes, four scalars, seat one-hots, the pending question's features."""
    return 7 * MAX_VALUE + MAX_PLAYERS + 4 + 2 * MAX_PLAYERS + MAX_PLAYERS + len(STAGES) + 4


class _Proxy:
    """The policy the engine sees: each question becomes sub-decisions asked through ``ask``."""

    def __init__(self, state: VerfluchtState, ask: Callable[[Request], int]):
        self.state = state
        self.ask = ask

    # --------------------------------------------------------------- one sub-decision

    def _decide(self, p: Pending, actor: int, stage: str, legal_fn: Callable[[], list[int]],
                call: Callable[[Any, Any], Any], desired: Callable[[Any], int | None]) -> int:
        """Ask ``actor`` one sub-decision (or take its only legal action after the first)."""
        state = self.state
        p.actor, p.stage, p.legal_fn = actor, stage, legal_fn
        legal = legal_fn()
        snapshot = state._snapshot()
        if len(legal) == 1 and p.asked:
            action = legal[0]
        else:
            request = Request(actor, legal, None, p)

            def by_policy(name: str, params: Mapping[str, float] | None) -> int:
                key = (name, _params_key(params))
                if key not in p.answers:
                    p.answers[key] = call(state._policy(name, params), self.rng)
                want = desired(p.answers[key])
                if want in request.legal:
                    return want
                return DONE if DONE in request.legal else max(request.legal)

            request.by_policy = by_policy
            p.asked = True
            action = by_policy(*state._direct) if state._direct else self.ask(request)
            p.legal_fn = None
        state._log.append((snapshot, tuple(tuple(sorted(h)) for h in state.table.hands), action))
        return action

    # --------------------------------------------------------------- voluntary banishing

    def banish(self, table: Table, player: int, last_turn: bool, stream) -> Banish | None:
        self.rng = stream
        if self.state._direct:
            self.state._pending = None
            return self.state._policy(*self.state._direct).banish(table, player, last_turn, stream)
        p = Pending("banish", table.active, last_turn=last_turn)
        self.state._pending = p
        call = lambda pol, s: pol.banish(table, player, last_turn, s)  # noqa: E731

        def pick_legal() -> list[int]:
            total = sum(table.hands[player])
            return [DONE] + [creature_action(c) for c in sorted(table.display) if c <= total]

        def pick_desired(answer: Banish | None) -> int:
            return DONE if answer is None else creature_action(answer.creature)

        a = self._decide(p, player, "pick", pick_legal, call, pick_desired)
        if a == DONE:
            self.state._pending = None
            return None
        p.creature = a - CREATURE0
        chosen = p.paid.setdefault(player, [])

        def pay_desired(answer: Banish | None) -> int | None:
            if answer is None or answer.creature != p.creature:
                return None
            return _next_of(sorted(answer.items, reverse=True), chosen, ITEM0)

        while True:
            a = self._decide(p, player, "pay", lambda: pay_legal(table.hands[player], chosen, p.creature),
                             call, pay_desired)
            if a == DONE:
                break
            chosen.append(a - ITEM0)
        self.state._pending = None
        return Banish(p.creature, tuple(chosen))

    # --------------------------------------------------------------- attacks

    def attack(self, table: Table, attackers: tuple[int, ...], is_group: bool, seal_allowed: bool,
               stream) -> AttackChoice:
        self.rng = stream
        if self.state._direct:
            self.state._pending = None
            return self.state._policy(*self.state._direct).attack(table, attackers, is_group, seal_allowed, stream)
        p = Pending("attack", table.active, attackers=tuple(attackers), is_group=bool(is_group),
                    seal_allowed=bool(seal_allowed))
        self.state._pending = p
        call = lambda pol, s: pol.attack(table, attackers, is_group, seal_allowed, s)  # noqa: E731
        if seal_allowed:
            a = self._decide(p, table.active, "answer", lambda: [SEAL, FIGHT], call,
                             lambda answer: SEAL if answer.seal else FIGHT)
            p.answer = a
        else:
            p.answer = FIGHT
        partial = table.options.partial_items_before_seal and is_group
        if p.answer == SEAL and not partial:
            self.state._pending = None
            return AttackChoice(seal=True)
        for player in table.eligible(is_group):
            if len(p.all_taken()) == len(attackers):
                break
            self._settle(p, table, player, call, partial and p.answer == SEAL)
        self.state._pending = None
        plan = {q: (tuple(p.taken[q]), tuple(p.paid[q])) for q in p.taken if p.taken[q]}
        if len(p.all_taken()) == len(attackers) and p.answer == FIGHT:
            return AttackChoice(seal=False, plan=plan)
        if seal_allowed:   # a Seal for the rest (the paid part stays only with partial_items_before_seal)
            return AttackChoice(seal=True, plan=plan if partial else {})
        return AttackChoice(seal=False, plan=forced_plan(table, attackers, is_group))

    def _settle(self, p: Pending, table: Table, player: int, call, keep_one: bool) -> None:
        """``player`` takes attackers (highest first) and pays for them with its own Items."""
        taken = p.taken.setdefault(player, [])
        chosen = p.paid.setdefault(player, [])

        def take_legal() -> list[int]:
            room = sum(table.hands[player]) - sum(taken)
            free = [c for c in p.attackers if c not in p.all_taken()]
            if keep_one and len(free) <= 1:   # a partial answer leaves at least one for the Seal
                return [DONE]
            below = min(taken) if taken else MAX_VALUE + 1
            return [DONE] + sorted(creature_action(c) for c in free if c < below and c <= room)

        def take_desired(answer: AttackChoice) -> int | None:
            mine = answer.plan.get(player, ((), ()))[0]
            return _next_of(sorted(mine, reverse=True), taken, CREATURE0)

        while True:
            a = self._decide(p, player, "take", take_legal, call, take_desired)
            if a == DONE:
                break
            taken.append(a - CREATURE0)
        if not taken:
            return

        def pay_desired(answer: AttackChoice) -> int | None:
            mine = answer.plan.get(player, ((), ()))
            if sorted(mine[0]) != sorted(taken):
                return None
            return _next_of(sorted(mine[1], reverse=True), chosen, ITEM0)

        while True:
            a = self._decide(p, player, "settle", lambda: pay_legal(table.hands[player], chosen, sum(taken)),
                             call, pay_desired)
            if a == DONE:
                break
            chosen.append(a - ITEM0)


def _next_of(sequence: list[int], done: list[int], offset: int) -> int | None:
    """The next action of a policy's answer ``sequence`` (values in order; ``offset`` makes them
    actions) after the prefix ``done`` taken so far, ``done`` at its end; None when off the answer."""
    if sequence[:len(done)] != done:
        return None
    return offset + sequence[len(done)] if len(done) < len(sequence) else DONE


# ---------------------------------------------------------------------- the state over the kernel's arrays

def _code(card: int) -> int:
    """The rules' card code (0-79) of a kernel face-down card."""
    return card - 1 if card < kernel.ITEM_FLAG else FIRST_ITEM_CODE + (card & (kernel.ITEM_FLAG - 1)) - 1


def _card(code: int) -> int:
    """The kernel's face-down card of a card code (0-79)."""
    return code + 1 if code < FIRST_ITEM_CODE else (code - FIRST_ITEM_CODE + 1) | kernel.ITEM_FLAG


def _plan_masks(plan) -> tuple[tuple, tuple]:
    """An AttackChoice's plan as the kernel's (take, use) bitmask tuples, one entry per seat."""
    take, use = [np.uint64(0)] * MAX_PLAYERS, [np.uint64(0)] * MAX_PLAYERS
    for q, (creatures, items) in plan.items():
        take[q], use[q] = mask_of(creatures), mask_of(items)
    return tuple(take), tuple(use)


class ArrayState(LaidOutTable, StepState):
    """A game of Verflucht! in the kernel's four state arrays (``state.py``), stepped by
    ``kernel.advance``: it halts at each engine question, whose sub-decisions (the module's doc) are
    taken here, then resumes with the whole answer. A copy copies the arrays and the open question
    (the sub-decision log is shared, never changed): O(state), whatever the game's length. The
    readable ``table`` is a view laid out from the arrays for the built-in policies and the rule
    checks; it keeps no events (a state made with ``log=True`` is a ``VerfluchtState``)."""

    spec: StepSpec

    def __init__(self, recipe: Mapping[str, Any]):
        self.recipe = recipe
        players = recipe["players"]
        self._opts = tuple(np.int64(v) for v in option_vector(recipe["options"], players))
        self._arrays = new_arrays()
        self._policies: dict = {}
        self._decisions: dict = {}   # a policy's questions answered so far (the rollout keys its streams on it)
        self._pending: Pending | None = None
        self._log: tuple | None = None   # (earlier, (public snapshot, hands, action)): shared by copies
        self._laid_out: Table | None = None
        kernel.start_game(*self._arrays, np.uint64(recipe["seed"]), np.int64(recipe["index"]), self._opts)
        self._advance(kernel.ACT_NONE)
        self._prompt()

    # ------------------------------------------------------------------ the kernel

    def _advance(self, kind: int, seal: bool = False, plan=None, creature: int = 0, items: int = 0,
                 policy: tuple[int, tuple] | None = None) -> None:
        """Resume the kernel with one decision; to the next question (or, with ``policy`` = (id, params),
        to the end by that built-in policy), then open the question it halted at."""
        take, use = _plan_masks(plan or {})
        policy_id, params = policy if policy else (0, _NO_PARAMS)
        phase = kernel.advance(*self._arrays, np.int64(self.recipe["players"]), self._opts, np.int64(policy_id),
                               params, np.bool_(policy is None), np.int64(kind), np.bool_(seal), take, use,
                               np.int64(creature), np.uint64(items))
        self._laid_out = None
        self._pending = None
        if phase != kernel.PH_END:
            self._open(int(phase))

    def _open(self, phase: int) -> None:
        counts = self._arrays[3]
        if phase == kernel.PH_ATTACK:
            active = int(counts[S.ACTIVE])
            attackers = tuple(reversed(values_of(self._arrays[2][S.ATTACKERS])))
            is_group = bool(counts[S.IS_GROUP])
            p = Pending("attack", active, attackers=attackers, is_group=is_group,
                        seal_allowed=self.table.seal_allowed(attackers, is_group))
            self._pending = p
            if p.seal_allowed:
                p.actor, p.stage = active, "answer"
            else:
                p.answer = FIGHT
                self._after_answer()
        else:
            last = phase == kernel.PH_LAST
            player = int(counts[S.PLAYER] if last else counts[S.ACTIVE])
            self._pending = Pending("banish", player, last_turn=last, actor=player)

    # ------------------------------------------------------------------ a question's sub-decisions

    def _legal(self) -> list[int]:
        p = self._pending
        hand = values_of(self._arrays[1][p.actor])
        if p.stage == "pick":
            return [DONE] + [creature_action(c) for c in values_of(self._arrays[2][S.DISPLAY]) if c <= sum(hand)]
        if p.stage == "pay":
            return pay_legal(hand, p.paid[p.actor], p.creature)
        if p.stage == "answer":
            return [SEAL, FIGHT]
        if p.stage == "settle":
            return pay_legal(hand, p.paid[p.actor], sum(p.taken[p.actor]))
        taken = p.taken[p.actor]
        free = [c for c in p.attackers if c not in p.all_taken()]
        if p.keep_one and len(free) <= 1:   # a partial answer leaves at least one for the Seal
            return [DONE]
        below = min(taken) if taken else MAX_VALUE + 1
        room = sum(hand) - sum(taken)
        return [DONE] + sorted(creature_action(c) for c in free if c < below and c <= room)

    def _prompt(self) -> None:
        """Wait at the next sub-decision: one with a single legal action is taken without asking, except
        the first of each question (a built-in policy may draw from its stream there)."""
        while self._pending is not None:
            legal = self._legal()
            if len(legal) != 1 or not self._pending.asked:
                self._pending.asked = True
                return
            self._take(legal[0])

    def _take(self, action: int) -> None:
        """Log the sub-decision ``action`` and move the question on (to the kernel when it is answered)."""
        p = self._pending
        hands = tuple(values_of(h) for h in self._arrays[1][:self.recipe["players"]])
        self._log = (self._log, (self._snapshot(), hands, action))
        if p.stage == "pick":
            if action == DONE:
                return self._advance(kernel.ACT_BANISH)
            p.creature, p.stage = action - CREATURE0, "pay"
            p.paid.setdefault(p.actor, [])
        elif p.stage == "pay":
            if action == DONE:
                return self._advance(kernel.ACT_BANISH, creature=p.creature, items=mask_of(p.paid[p.actor]))
            p.paid[p.actor].append(action - ITEM0)
        elif p.stage == "answer":
            p.answer = action
            self._after_answer()
        elif p.stage == "take":
            if action != DONE:
                p.taken[p.actor].append(action - CREATURE0)
            elif p.taken[p.actor]:
                p.stage = "settle"
            else:
                self._next_settler(p.at + 1)
        elif action == DONE:   # settle
            self._next_settler(p.at + 1)
        else:
            p.paid[p.actor].append(action - ITEM0)

    def _after_answer(self) -> None:
        p = self._pending
        p.partial = bool(self.recipe["options"].partial_items_before_seal and p.is_group)
        if p.answer == SEAL and not p.partial:
            return self._advance(kernel.ACT_PLAN, seal=True)
        p.keep_one = p.partial and p.answer == SEAL
        p.eligible = tuple(self.table.eligible(p.is_group))
        self._next_settler(0)

    def _next_settler(self, at: int) -> None:
        """The seat ``at`` of the eligible ones takes attackers next, or the answer goes to the kernel."""
        p = self._pending
        if at < len(p.eligible) and len(p.all_taken()) < len(p.attackers):
            p.at = at
            p.actor, p.stage = p.eligible[at], "take"
            p.taken.setdefault(p.actor, [])
            p.paid.setdefault(p.actor, [])
            return
        plan = {q: (tuple(p.taken[q]), tuple(p.paid[q])) for q in p.taken if p.taken[q]}
        if len(p.all_taken()) == len(p.attackers) and p.answer == FIGHT:
            return self._advance(kernel.ACT_PLAN, plan=plan)
        if p.seal_allowed:   # a Seal for the rest (the paid part stays only with partial_items_before_seal)
            return self._advance(kernel.ACT_PLAN, seal=True, plan=plan if p.partial else {})
        self._advance(kernel.ACT_PLAN, plan=forced_plan(self.table, p.attackers, p.is_group))

    # ------------------------------------------------------------------ the step API

    def actor(self) -> int:
        return TERMINAL if self._pending is None else self._pending.actor

    def legal_actions(self) -> list[int]:
        return [] if self._pending is None else self._legal()

    def is_terminal(self) -> bool:
        return self._pending is None

    def apply(self, action: int) -> None:
        self._take(check_action(self, action))
        self._prompt()

    def apply_policy(self, policy: str, params: Mapping[str, float] | None = None) -> int:
        if self._pending is None:
            check_action(self, None)   # the game is over: the error says so
        p = self._pending
        key = (policy, _params_key(params))
        if key not in p.answers:
            p.answers[key] = self._answer(policy, params)
        want = _desired(p, p.answers[key])
        legal = self._legal()
        action = want if want in legal else DONE if DONE in legal else max(legal)
        self._take(action)
        self._prompt()
        return action

    def _answer(self, name: str, params: Mapping[str, float] | None):
        """The whole answer of the built-in policy ``name`` to the open question, drawn from the game's
        policy stream (advanced in the arrays)."""
        policy = self._policy(name, params)
        p, t, masks = self._pending, self.table, self._arrays[2]
        stream = rng.Stream(0, 0)
        stream.s = [int(w) for w in masks[S.RNG_POLICY:S.RNG_POLICY + 4]]
        key = (name, _params_key(params))
        counter = getattr(policy, "decisions", None)   # RolloutPolicy: its questions on this game so far
        if counter is not None:
            counter[t] = self._decisions.get(key, 0)
        if p.kind == "banish":
            answer = policy.banish(t, p.active, p.last_turn, stream)
        else:
            answer = policy.attack(t, p.attackers, p.is_group, p.seal_allowed, stream)
        if counter is not None:
            self._decisions[key] = counter[t]
        masks[S.RNG_POLICY:S.RNG_POLICY + 4] = np.array(stream.s, dtype=np.uint64)
        return answer

    _policy = VerfluchtState._policy

    def play_out(self, policies: Mapping[int, tuple[str, Mapping[str, float] | None]]) -> None:
        """When one policy plays every seat (as in the runner), it finishes the open question sub-decision
        by sub-decision, then answers whole questions: a built-in numba policy in the kernel to the end
        (no log, as the old fast play-out), others question by question; otherwise the step-by-step loop."""
        chosen = {(name, _params_key(params)) for name, params in policies.values()}
        if self.is_terminal() or len(chosen) != 1 or set(policies) != set(range(self.recipe["players"])):
            return super().play_out(policies)
        name, params = next(iter(policies.values()))
        self._policy(name, params)   # an unknown policy raises before anything moves
        question = self._pending
        while self._pending is question:
            self.apply_policy(name, params)
        spec = GAME.policy(name)
        if self._pending is not None and spec.engine != "python" and spec.impl is None and spec.policy_id != ROLLOUT:
            self._advance(kernel.ACT_NONE, policy=(spec.policy_id, params_tuple(spec.param_vector(params))))
        while self._pending is not None:
            answer = self._answer(name, params)
            if self._pending.kind == "attack":
                self._advance(kernel.ACT_PLAN, seal=answer.seal, plan=answer.plan)
            elif answer is None:
                self._advance(kernel.ACT_BANISH)
            else:
                self._advance(kernel.ACT_BANISH, creature=answer.creature, items=mask_of(answer.items))

    def clone(self) -> ArrayState:
        copy = object.__new__(type(self))
        copy.recipe, copy._opts, copy._policies, copy._log = self.recipe, self._opts, self._policies, self._log
        copy._arrays = tuple(a.copy() for a in self._arrays)
        copy._decisions = dict(self._decisions)
        copy._pending = None if self._pending is None else self._pending.copy()
        copy._laid_out = None
        return copy

    # ------------------------------------------------------------------ what the seats see


    def _lay_out(self) -> Table:
        deck, hands, masks, counts = self._arrays
        r, phase = self.recipe, int(counts[S.PHASE])
        players, seals_left, n_deck = r["players"], int(counts[S.SEALS_LEFT]), int(counts[S.N_DECK])
        t = Table(players, r["options"])
        t.origin = (r["seed"], r["index"])
        t.face_down = [_code(int(c)) for c in deck[:n_deck]]
        t.hands = [set(values_of(h)) for h in hands[:players]]
        display = list(values_of(masks[S.DISPLAY]))
        won = phase == kernel.PH_END and counts[S.END] == END_WIN
        removed = display[:seals_left] if won else []   # the final green Seals (the kernel only scores them)
        t.display = set(display[len(removed):])
        t.discard_creatures = set(values_of(masks[S.GONE_CREATURES])) | set(removed)
        t.discard_items = set(values_of(masks[S.GONE_ITEMS]))
        t.seals_left, t.seals_used = seals_left, int(self._opts[S.OPT_SEALS]) - seals_left
        t.turns = N_CARDS + int(counts[S.RETURNED]) - n_deck
        t.attacks = int(counts[S.ATTACKS]) - (phase == kernel.PH_ATTACK)   # the engine counts it once answered
        # the reference's active seat: the last turns' player; after a win the last of them
        if phase == kernel.PH_LAST:
            t.active = int(counts[S.PLAYER])
        elif won:
            t.active = (int(counts[S.PLAYER]) - 1) % players
        else:
            t.active = int(counts[S.ACTIVE])
        t.last_turns_left = int(counts[S.LAST_LEFT]) if phase == kernel.PH_LAST else 0
        if phase == kernel.PH_END:
            t.end = int(counts[S.END])
            t.final_score = int(counts[S.SCORE]) if won else None
        t.deck_rng = rng.Stream(0, 0)
        t.deck_rng.s = [int(w) for w in masks[S.RNG_DECK:S.RNG_DECK + 4]]
        return t

    def _snapshot(self) -> tuple:
        return snapshot(self.table, self._pending)

    def _entries(self) -> list[tuple]:
        entries, node = [], self._log
        while node is not None:
            node, entry = node
            entries.append(entry)
        return entries[::-1]

    def information(self, agent: int) -> str:
        """Every public snapshot and sub-decision so far with ``agent``'s own hand at each, then now."""
        return information(self.table, self._pending, self._entries(), agent, self.is_terminal(), self.actor())

    def observation(self, agent: int) -> np.ndarray:
        return observation(self.table, self._pending, agent, self.is_terminal())

    returns = VerfluchtState.returns
    outcome = VerfluchtState.outcome
    action_name = VerfluchtState.action_name

    def events(self) -> list[dict[str, Any]]:
        raise NotImplementedError("verflucht: only a state made with log=True keeps events")

    # ------------------------------------------------------------------ determinisation

    def determinise(self, agent: int, seed: int) -> ArrayState:
        copy = self.clone()
        copy._resample(int(agent), int(seed))
        return copy

    def _resample(self, agent: int, seed: int) -> None:
        """``VerfluchtState._resample`` on the arrays (the same draws): the Items ``agent`` has not seen
        dealt anew, what the current question named kept, the deck stream re-seeded."""
        deck, hands, masks, counts = self._arrays
        players, p = self.recipe["players"], self._pending
        fixed = {q: set(p.paid.get(q, ())) if p else set() for q in range(players)}
        others = [q for q in range(players) if q != agent]
        held = [values_of(h) for h in hands[:players]]
        n_deck = int(counts[S.N_DECK])
        face_down = [_code(int(c)) for c in deck[:n_deck]]
        pool = [v for q in others for v in held[q] if v not in fixed[q]]
        pool += [c - FIRST_ITEM_CODE + 1 for c in face_down if c >= FIRST_ITEM_CODE]
        creatures_down = [c for c in face_down if c < FIRST_ITEM_CODE]
        sizes = {q: len(held[q]) - len(fixed[q]) for q in others}
        old = (hands.copy(), deck.copy())
        draw = random.Random(seed)
        for _ in range(RESAMPLE_TRIES):
            draw.shuffle(pool)
            k = 0
            for q in others:
                hands[q] = mask_of(fixed[q] | set(pool[k:k + sizes[q]]))
                k += sizes[q]
            codes = creatures_down + sorted(FIRST_ITEM_CODE + v - 1 for v in pool[k:])
            deck[:n_deck] = [_card(c) for c in codes]
            self._laid_out = None
            if self._consistent(p):
                break
        else:
            hands[:], deck[:] = old
        masks[S.RNG_DECK:S.RNG_DECK + 4] = np.array(rng.Stream(seed, 0, STREAM_DETERMINISE).s, dtype=np.uint64)
        self._laid_out = None

    def _consistent(self, p: Pending | None) -> bool:
        return consistent(self.table, p, self._legal)


_NO_PARAMS = params_tuple(())


def _desired(p: Pending, answer) -> int | None:
    """The sub-decision a policy's whole ``answer`` to the question makes at ``p``'s stage (None: off it)."""
    if p.stage == "pick":
        return DONE if answer is None else creature_action(answer.creature)
    if p.stage == "pay":
        if answer is None or answer.creature != p.creature:
            return None
        return _next_of(sorted(answer.items, reverse=True), p.paid[p.actor], ITEM0)
    if p.stage == "answer":
        return SEAL if answer.seal else FIGHT
    mine = answer.plan.get(p.actor, ((), ()))
    if p.stage == "take":
        return _next_of(sorted(mine[0], reverse=True), p.taken[p.actor], CREATURE0)
    if sorted(mine[0]) != sorted(p.taken[p.actor]):
        return None
    return _next_of(sorted(mine[1], reverse=True), p.paid[p.actor], ITEM0)


# ---------------------------------------------------------------------- the spec

def agents(players: int, options: Any = None) -> tuple[str, ...]:
    """One agent per seat: ``seat0`` (the bravest player, who begins) .. ``seat{n-1}``."""
    return tuple(f"seat{s}" for s in range(GAME.check_players(players)))


def agent_sides(players: int, options: Any = None) -> tuple[None, ...]:
    """Every seat plays the game's one policy set (no sides)."""
    return (None,) * len(agents(players, options))


def new_state(seed: int, index: int, players: int, options: Any = None, fixed: Mapping | None = None,
              log: bool = False) -> VerfluchtState:
    """Game ``index`` of the run ``seed`` as the runner deals it (deck and policy streams of (seed,
    index)); every seat is an agent, so ``fixed`` must name no side."""
    if fixed:
        raise UnknownPolicyError("verflucht has no sides: every seat is an agent, nothing can be fixed"
                                 f" (got {dict(fixed)!r})")
    recipe = {"seed": int(seed), "index": int(index), "players": GAME.check_players(players),
              "options": GAME.make_options(options), "log": bool(log)}
    return VerfluchtState(recipe) if log else ArrayState(recipe)


STEP = StepSpec(name="verflucht", agents=agents, num_actions=NUM_ACTIONS, observation_size=observation_size,
                agent_sides=agent_sides, new_state=new_state, doc=__doc__.split("\n\n")[0])
VerfluchtState.spec = ArrayState.spec = STEP
