"""Verflucht! stepped one decision at a time (``cursedsim.step.api``) on its reference engine.

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

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.errors import CursedsimError, UnknownPolicyError
from cursedsim.games.verflucht import GAME, reference_policy
from cursedsim.games.verflucht.reference import Table
from cursedsim.games.verflucht.reference_policies import AttackChoice, Banish, forced_plan
from cursedsim.games.verflucht.rules import (
    END_NAMES, END_WIN, FIRST_ITEM_CODE, MAX_PLAYERS, MAX_SEALS, MAX_VALUE, N_CARDS,
)
from cursedsim.step.api import StepSpec
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
        t = self.table
        return (t.turns, t.active, t.seals_left, len(t.face_down), tuple(sorted(t.display)),
                tuple(sorted(t.discard_creatures)), tuple(sorted(t.discard_items)),
                tuple(len(h) for h in t.hands), None if self._pending is None else self._pending.public())

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
        parts = [f"seat{agent}"]
        for public, hands, action in self._log:
            parts.append(f"{public}{hands[agent]}>{action}")
        if not self.is_terminal():
            parts.append(f"{self._snapshot()}{tuple(sorted(self.table.hands[agent]))}?{self.actor()}")
        else:
            parts.append(f"end{self._snapshot()}{tuple(sorted(self.table.hands[agent]))}")
        return "|".join(parts)

    def observation(self, agent: int) -> np.ndarray:
        """Own hand, display, discards, pending attack/choices (40 bits each), hand sizes, Seals, pile,
        seats and the stage, all scaled into [0, 1]."""
        t = self.table
        obs = np.zeros(observation_size(t.players, None), dtype=np.float32)

        def bits(offset: int, values) -> int:
            for v in values:
                obs[offset + v - 1] = 1.0
            return offset + MAX_VALUE

        k = bits(0, t.hands[agent])
        k = bits(k, t.display)
        k = bits(k, t.discard_creatures)
        k = bits(k, t.discard_items)
        p = self._pending if not self.is_terminal() else None
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
        obs[k + 3] = float(self.is_terminal())
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

    # ------------------------------------------------------------------ determinisation

    def _resample(self, agent: int, seed: int) -> None:
        """Deal the Items ``agent`` has not seen anew (other hands, face-down cards), keep what the
        current question named, and re-seed the deck stream; rejection keeps the current legal
        actions' premises (the Seal permission, the actor's payment)."""
        t = self.table
        p = self._pending if not self.is_terminal() else None
        fixed = {q: set(p.paid.get(q, ())) for q in range(t.players)} if p else {q: set() for q in range(t.players)}
        others = [q for q in range(t.players) if q != agent]
        pool = [v for q in others for v in t.hands[q] if v not in fixed[q]]
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
        if p is None:
            return True
        t = self.table
        if p.kind == "attack" and t.seal_allowed(p.attackers, p.is_group) != p.seal_allowed:
            return False
        if p.stage == "take" and sum(t.hands[p.actor]) < sum(p.taken.get(p.actor, ())):
            return False
        return p.legal_fn is None or bool(p.legal_fn())


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
    return VerfluchtState(recipe)


STEP = StepSpec(name="verflucht", agents=agents, num_actions=NUM_ACTIONS, observation_size=observation_size,
                agent_sides=agent_sides, new_state=new_state, doc=__doc__.split("\n\n")[0])
VerfluchtState.spec = STEP
