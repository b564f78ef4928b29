"""Cursed Gifts stepped one decision at a time (``cursedsim.step``): ``ArrayState`` over the kernel's state
arrays (``kernel.py``, ``state.py``), whose copies copy the arrays (O(state), whatever the point of the
game); with ``log=True`` the reference engine's ``GiftsState`` (``reference.py``; copies replay the
history), which records the events of the turn log. The two play the same games, decision for decision.

**The array state.** ``kernel.advance`` halts at every seat's main decision and first answer to a card
(its stop mask holds every seat) and resumes with the decision given. The smaller decisions inside a card
step (target, gift, discard, antidote, heal, remove, a riposte chain's later answers, take) are asked
through the kernel's step hook (``ST_HOOK``): the state keeps the arrays at the last halt and the actions
taken since (at most one card step), the kernel replays them from a copy and raises ``kernel.Question`` at
the next decision with the arrays standing there. The kernel logs the hidden cards' moves (draws,
reshuffles, takes, refunds, eliminations) for the agents' knowledge. The built-in policies are the
reference policies, reading a ``View`` laid out from the arrays with the seats' policy streams, so
``apply_policy`` draws exactly as the reference state does.

**Agents** are the seats (agent ``s`` = seat ``s``, named ``"seat s"``). The runner's sides are the focus
seat (game i: ``focus_seat_of(i, ...)``) and the field (every other seat); ``side_of(agent)`` names a
seat's side in this game (``agent_sides`` gives "focus" to the option's fixed focus seat, "field" to
every seat under "rotate"; both sides play the same policies). ``fixed`` (side -> policy) plays that
side's seats inside the state: they never become the actor.

**Actions** are the engine's own ids (``state.py``, ``N_ACTIONS`` = 510): ``play c`` (0+c), ``seat s``
(250+s), ``pick c`` (256+c), ``bonus``, ``cacarma``, ``pass``, ``end``; every decision kind of the engine
(main, target, gift, discard, antidote, heal, remove, respond, take) is one decision.

**Hidden**: the order of the draw pile, which hidden card is in which other hand or in the pile, and the
future draws of the deck stream (reshuffles, blind Mugging takes). Every agent keeps, per hidden card, the
zones it may be in (pile, another seat's hand), narrowed by what it saw: its own draws, a reshuffle (the
pile is then exactly the old Septic Discard), a card Mugging took from or gave to it, a hand it looked
into (``mugging_take="chosen"``), a refunded Mugging cost; widened by others' draws and takes and an
elimination (the eliminated hand goes to the pile). ``determinise`` deals the hidden cards anew inside
those zones (a random matching with each zone's exact size), shuffles the pile, and re-seeds the deck
stream and the other seats' policy streams; both states draw the same deal. One approximation: in the
middle of a card step (a decision after the card's main decision, other than the first answer to it) the
hand of the seat playing the card is kept, and at a riposte chain's answer or Mugging's take also its
target's: what the rest of the step depends on, since the array state replays the step from its last
halt (the reference state keeps the same hands, so both deal alike; it kept only an antidote healer's
hand before issue 27).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from cursedsim import rng
from cursedsim.errors import RunError
from cursedsim.games.gifts import GAME, kernel as K, reference_policies, side_columns
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S
from cursedsim.games.gifts.reference import Decision, Table, View, card_table, deck_for, focus_seat_of
from cursedsim.games.gifts.policy_specs import POLICIES
from cursedsim.games.gifts.policies import N_PARAMS as POLICY_PARAMS
from cursedsim.step.api import TERMINAL, StepSpec, StepState, check_action
from cursedsim.step.determinise import match_zones, shuffle
from cursedsim.step.history import FixedSidesState

#: Stream ids of a determinisation's futures: the deck and each seat's policy, keyed by (seed, index).
RESEED_DECK = 100
PILE = 1   # zone bit of the draw pile; hand of seat s: bit 2 << s


def _hand_bit(seat: int) -> int:
    return 2 << seat


def kept_seats(agent: int, mid_step: bool, kind: int, current: int, target: int) -> set[int]:
    """The seats whose hands a determinisation for ``agent`` keeps: the agent's, and in the middle of a
    card step (a decision after the card's main decision that is not the first answer to it) the hands
    of the seat playing the card and, at an answer or Mugging's take, of its target: what the rest of
    the step may depend on (the array state replays the step from the kernel's last halt)."""
    keep = {agent}
    if mid_step:
        keep.add(current)
        if kind in (S.D_RESPOND, S.D_TAKE) and target >= 0:
            keep.add(target)
    return keep


class TrackedTable(Table):
    """The reference Table, unchanged in its rules, telling ``watch`` (if set) where hidden cards move:
    draws, reshuffles, takes, refunds, eliminations (from the table's own ``record`` and ``draw_card``)."""

    watch: Any = None

    def draw_card(self, seat: int) -> int:
        card = super().draw_card(seat)
        if card >= 0 and self.watch is not None:
            self.watch.drew(self, seat, card)
        return card

    def record(self, actor: str, action: str, cards=(), **fields) -> None:
        if self.watch is not None:
            self.watch.event(self, actor, action, list(cards), fields)
        super().record(actor, action, cards, **fields)


class Knowledge:
    """Per agent: hidden card -> bit set of the zones it may be in (PILE, ``_hand_bit(seat)``)."""

    def __init__(self, players: int, hands: list[list[int]], size: int):
        self.players = players
        every = PILE | sum(_hand_bit(s) for s in range(players))
        self.zones = [{c: (_hand_bit(a) if c in hands[a] else every & ~_hand_bit(a)) for c in range(size)}
                      for a in range(players)]

    def _widen(self, agent: int, source: int, dest: int) -> None:
        """A card left zone ``source`` for zone ``dest`` unseen by ``agent``."""
        zones = self.zones[agent]
        for c, bits in zones.items():
            if bits & source:
                zones[c] = bits | dest

    def drew(self, table: Table, seat: int, card: int) -> None:
        for a in range(self.players):
            if a == seat:
                self.zones[a][card] = _hand_bit(a)
            else:
                self._widen(a, PILE, _hand_bit(seat))

    def event(self, table: Table, actor: str, action: str, cards: list[int], fields: dict) -> None:
        seat = int(actor.split()[1]) if actor.startswith("seat ") else -1
        if action == "reshuffle":   # the pile is now exactly the old (public) discard
            pile = set(table.pile)
            for zones in self.zones:
                for c in zones:
                    zones[c] = PILE if c in pile else zones[c] & ~PILE
        elif action == "take":
            card, victim = cards[0], fields["target"]
            for a in range(self.players):
                if a in (seat, victim):
                    self.zones[a][card] = _hand_bit(seat)
                else:
                    self._widen(a, _hand_bit(victim), _hand_bit(seat))
        elif action == "refund":
            for zones in self.zones:
                zones[cards[0]] = _hand_bit(seat)
        elif action == "eliminated":
            gone, into = _hand_bit(fields["seat"]), set(cards)
            for zones in self.zones:
                for c in zones:
                    if zones[c] & gone:
                        zones[c] = (zones[c] & ~gone) | PILE
                    elif c in into:
                        zones[c] = PILE

    def saw_hand(self, agent: int, seat: int, hand: list[int]) -> None:
        """``agent`` looked into ``seat``'s hand (Mugging's D_TAKE)."""
        zones, bit, held = self.zones[agent], _hand_bit(seat), set(hand)
        for c in zones:
            zones[c] = bit if c in held else zones[c] & ~bit


class GiftsState(FixedSidesState):
    """A game of Cursed Gifts on the reference Table; agents are seats (module docstring)."""

    def __init__(self, seed: int, index: int, players: int, options: R.RuleOptions,
                 fixed: Mapping[str, Any] | None = None, log: bool = False, _build: bool = True):
        self.spec = STEP
        self.focus_seat = focus_seat_of(index, players, R.focus_seat_number(options, players))
        super().__init__(GAME, seed, index, players, options, fixed, log, _build)

    def _deal(self) -> None:
        self.streams = [rng.Stream(self.seed, self.index, S.STREAM_POLICY + s) for s in range(self.players)]
        self.table = TrackedTable.deal(self.seed, self.index, self.players, self.options, log=self.log)
        self.knowledge = Knowledge(self.players, self.table.hands, self.table.deck.size)
        self.table.watch = self.knowledge
        self.seen = [[] for _ in range(self.players)]

    # ------------------------------------------------------------ sides and fixed seats

    def side_of(self, agent: int) -> str:
        """The runner side of seat ``agent`` in this game."""
        return "focus" if agent == self.focus_seat else "field"

    # ------------------------------------------------------------ stepping

    def actor(self) -> int:
        seat, _ = self.table.to_move()
        return TERMINAL if seat < 0 else seat

    def legal_actions(self) -> list[int]:
        return self.table.legal_actions()

    def is_terminal(self) -> bool:
        return self.table.is_over()

    def _step(self, action: int) -> None:
        seat, kind = self.table.to_move()
        if kind == S.D_TAKE:
            self.knowledge.saw_hand(seat, self.table.target, self.table.hands[self.table.target])
        victim = self.table.target
        self.table.apply(action)
        for a in range(self.players):
            shown = action if kind != S.D_TAKE or a in (seat, victim) else -1
            self.seen[a].append(f"{seat}:{kind}:{shown}:{self.table.hands[a]}")

    def _policy(self, name: str, params: Mapping[str, float] | None):
        key = (name, None if params is None else tuple(sorted(params.items())))
        if key not in self._policies:
            spec = POLICIES.get(name) or GAME.policy(name, "field")
            self._policies[key] = reference_policies.make(spec, spec.param_vector(params))
        return self._policies[key]

    def _policy_action(self, name: str, params: Mapping[str, float] | None) -> int:
        seat = self.actor()
        return int(self._policy(name, params).act(self.table.observe(seat), self.table.legal_actions(),
                                                  self.streams[seat]))

    def action_name(self, action: int) -> str:
        return S.action_name(action)

    # ------------------------------------------------------------ determinisation (copies: FixedSidesState)

    def _resample(self, agent: int, seed: int) -> None:
        """Deal the cards ``agent`` cannot see anew inside the zones it allows; re-seed the futures."""
        t, stream = self.table, rng.Stream(seed, self.index, RESEED_DECK)
        seat, kind = t.to_move()
        card = t.pending[0]
        halt = kind == S.D_MAIN or (kind == S.D_RESPOND and not (card >= 0 and t.ct.flags[card] & E.RIPOSTE))
        keep = kept_seats(agent, seat >= 0 and not halt, kind, t.current, t.target)
        capacity = {PILE: len(t.pile)}
        capacity.update({_hand_bit(s): len(t.hands[s]) for s in range(self.players) if s not in keep})
        hidden = list(t.pile) + [c for s in range(self.players) if s not in keep for c in t.hands[s]]
        zones = self.knowledge.zones[agent]
        deal = match_zones(hidden, zones, capacity, stream, "gifts")
        pile = [c for c in hidden if deal[c] == PILE]
        shuffle(pile, stream)
        t.pile[:] = pile
        for s in range(self.players):
            if s not in keep:
                t.hands[s][:] = sorted(c for c in hidden if deal[c] == _hand_bit(s))
        t.deck_rng = rng.Stream(seed, self.index, RESEED_DECK + 1)
        for s in range(self.players):
            if s != agent:
                self.streams[s] = rng.Stream(seed, self.index, RESEED_DECK + 2 + s)
        for other in range(self.players):   # the others' knowledge, made true of the new deal
            if other != agent:
                self.knowledge.zones[other] = {
                    c: _hand_bit(other) if c in t.hands[other] else _hand_bit(agent) if c in t.hands[agent]
                    else zones[c] for c in zones}
        if seat >= 0 and seat not in keep:
            t._pending = Decision(seat, kind, tuple(self._legal_again(seat, kind)))

    def _legal_again(self, seat: int, kind: int) -> list[int]:
        """The legal list of the pending decision recomputed on the new hands (the engine's own rules)."""
        t = self.table
        if kind == S.D_MAIN:
            return t.main_legal(seat)
        if kind == S.D_DISCARD:
            return [S.A_PICK + c for c in t.hands[seat]]
        if kind == S.D_TAKE:
            return [S.A_PICK + c for c in t.hands[t.target]]
        if kind == S.D_RESPOND:   # as Table.respond / respond_cacarma_only ask it
            card = t.pending[0]
            answered = t.ct.type[card]
            only_cacarma = answered != E.DEFENSE and t.ct.flags[card] & E.INEVITABLE
            legal = [] if only_cacarma else [S.A_PLAY + c for c in t.hands[seat] if t.ct.flags[c] & E.RIPOSTE
                                             and answered in E.ANSWERS[t.effect(c)]]
            if answered != E.DEFENSE and t.cacarma_allowed(seat, answered):
                legal.append(S.A_CACARMA)
            return sorted(legal + [S.A_PASS])
        return list(t._pending.legal)   # target, gift, heal, remove: public

    # ------------------------------------------------------------ what an agent knows

    def information(self, agent: int) -> str:
        view = self.table.observe(agent)
        public = (view.decision, view.turn, view.current, view.alive, view.hand, view.hand_sizes, view.gauges,
                  view.pile_size, view.discard, view.played, view.gift_given, view.pending, view.target,
                  view.heal, view.heal_left, view.eliminated)
        legal = tuple(self.legal_actions()) if self.actor() == agent else ()
        return f"{agent}|{public}|{legal}|" + ";".join(self.seen[agent])

    def observation(self, agent: int) -> np.ndarray:
        return _observe(self.table.observe(agent), self.players, self.options)

    # ------------------------------------------------------------ results

    def returns(self) -> list[float]:
        won = self.table.winner if self.is_terminal() and not self.table.unfinished else -1
        return [1.0 if s == won else 0.0 for s in range(self.players)]

    def outcome(self) -> dict[str, Any]:
        out = self.table.outcome(R.focus_seat_number(self.options, self.players)).columns()
        out["focus_seat"] = self.focus_seat
        sides = side_columns(np.array([out["winner_seat"]]), np.array([self.focus_seat]), np.array([out["unfinished"]]))
        out.update({k: bool(v[0]) for k, v in sides.items()})
        return out


# ---------------------------------------------------------------- the state over the kernel's arrays

#: Every seat's decisions halt ``kernel.advance`` (its stop mask): the step API asks them all.
_NO_TARGET = np.int64(-1)
_STATIC: dict = {}


def _static(options: R.RuleOptions) -> tuple:
    """(card data, card masks, option array, CardTable) of the options' deck, made once per options."""
    if options not in _STATIC:
        deck = deck_for(options)
        arr = deck.arrays()
        _STATIC[options] = (K.card_data(arr), K.card_masks(arr), K.option_array(options), card_table(deck))
    return _STATIC[options]


def _members(row) -> list[int]:
    """The cards of one bit-set row of ``bits`` (four uint64 words), ascending."""
    out = []
    for w in range(S.W):
        m = int(row[w])
        while m:
            low = m & -m
            out.append(w * 64 + low.bit_length() - 1)
            m ^= low
    return out


def _copy_stream(stream: rng.Stream) -> rng.Stream:
    copy = rng.Stream.__new__(rng.Stream)
    copy.s = list(stream.s)
    return copy


class Step:
    """The card step under way, as the View shows it: the card played (-1: the bonus), the antidotes of
    a heal being built and the gauge entries it has healed so far."""

    __slots__ = ("card", "heal", "healed")

    def __init__(self, card: int = -1, heal: tuple = (), healed: tuple = ()):
        self.card, self.heal, self.healed = card, heal, healed


class ArrayState(StepState):
    """A game of Cursed Gifts on the kernel's arrays (module docstring). ``_base``: the arrays ``(st,
    bits)`` at the kernel's last halt (a main decision, the first answer to a card, the end); ``_script``:
    the actions taken since (at most one card step); ``_cur``: the arrays at the open question (the base
    itself when the script is empty); ``_question``: (seat, kind, legal). Copies copy these arrays, the
    agents' knowledge (an array) and the policy streams; the log of what each seat saw is a chain the
    copies share."""

    def __init__(self, seed: int, index: int, players: int, options: R.RuleOptions,
                 fixed: Mapping[str, Any] | None = None, _build: bool = True):
        self.seed, self.index, self.players, self.options, self.log = seed, index, players, options, False
        self.focus_seat = focus_seat_of(index, players, R.focus_seat_number(options, players))
        self.fixed = {side: (p, None) if isinstance(p, str) else (p[0], p[1]) for side, p in (fixed or {}).items()}
        for side, (name, _) in self.fixed.items():
            GAME.policy(name, side)   # an unknown policy raises here
        self._policies: dict = {}
        self._cd, _, _, self._ct = _static(options)
        self._params = np.zeros((R.MAX_PLAYERS, POLICY_PARAMS), np.float64)
        if _build:
            self._deal()
            self._run_fixed()

    def _deal(self) -> None:
        """Game ``index`` of run ``seed`` dealt by the kernel, run to its first decision."""
        cd, masks, opts, _ = _static(self.options)
        st, bits = np.zeros(S.N_ST, np.int64), np.zeros((S.N_BROWS, S.W), np.uint64)
        st[K.OPT:K.OPT + opts.size] = opts
        bits[S.B_MASK:S.B_MASK + S.N_MASKS] = masks
        K.deal((cd, st, bits, self._params), np.uint64(self.seed), np.int64(self.index), np.int64(self.players),
               np.int64(self.focus_seat), np.int64(cd.shape[1]))
        st[S.ST_HOOK] = 1
        self.streams = [rng.Stream(self.seed, self.index, S.STREAM_POLICY + s) for s in range(self.players)]
        hands = [_members(bits[S.B_HAND + s]) for s in range(self.players)]
        self.zones = self._initial_zones(hands, cd.shape[1])
        self._seen = None
        self._order = tuple(() for _ in range(self.players))
        self._step = Step()
        self._base = self._cur = (st, bits)
        self._script, self._events = (), 0
        phase = K.advance(self._g(), np.int64((1 << self.players) - 1), np.int64(K.ACT_NONE),
                          np.int64(K.NO_ACTION), _NO_TARGET)
        self._question = self._halted_at(int(phase))
        self._view = None

    def _initial_zones(self, hands: list[list[int]], size: int) -> np.ndarray:
        """``Knowledge`` as an array: per agent and card the bit set of the zones it may be in."""
        every = PILE | sum(_hand_bit(s) for s in range(self.players))
        zones = np.empty((self.players, size), np.int64)
        for a in range(self.players):
            zones[a] = every & ~_hand_bit(a)
            zones[a, hands[a]] = _hand_bit(a)
        return zones

    def _g(self) -> tuple:
        return self._cd, self._cur[0], self._cur[1], self._params

    # ------------------------------------------------------------ sides and fixed seats

    def side_of(self, agent: int) -> str:
        """The runner side of seat ``agent`` in this game."""
        return "focus" if agent == self.focus_seat else "field"

    def _run_fixed(self) -> None:
        while not self.is_terminal() and self.side_of(self.actor()) in self.fixed:
            self._take(self._policy_action(*self.fixed[self.side_of(self.actor())]))

    # ------------------------------------------------------------ the question open

    def _halted_at(self, phase: int) -> tuple[int, int, tuple[int, ...]]:
        """(seat, kind, legal) of the kernel's halt ``phase``: a main decision, a first answer, the end."""
        st, bits = self._cur
        if phase == K.PH_END:
            return TERMINAL, S.D_NONE, ()
        if phase == K.PH_MAIN:
            seat = int(st[S.ST_SEAT])
            K.main_playable(self._g(), np.int64(seat), True)
            legal = [S.A_PLAY + c for c in _members(bits[S.B_PLAYABLE])]
            return seat, S.D_MAIN, tuple(legal + ([S.A_BONUS] if st[S.ST_BONUS_OK] else []) + [S.A_END])
        seat = int(st[S.ST_TARGET])
        hand = _members(bits[S.B_HAND + seat])
        answers = set(_members(bits[S.B_MASK + S.MK_ANSWERS_ATTACK]))
        legal = [] if st[S.ST_STEP] == K.STEP_GIFT_INEVITABLE else [S.A_PLAY + c for c in hand if c in answers]
        if sum(1 for c in hand if self._ct.type[c] == E.USELESS) >= R.CACARMA_USELESS:
            legal.append(S.A_CACARMA)
        return seat, S.D_RESPOND, tuple(legal + [S.A_PASS])

    def _asked(self) -> tuple[int, int, tuple[int, ...]]:
        """(seat, kind, legal) of the question a card step raised (``kernel.Question``)."""
        st = self._cur[0]
        n = int(st[S.ST_QN])
        return int(st[S.ST_QSEAT]), int(st[S.ST_QKIND]), tuple(int(a) for a in st[S.ST_LEGAL:S.ST_LEGAL + n])

    # ------------------------------------------------------------ stepping

    def actor(self) -> int:
        return self._question[0]

    def legal_actions(self) -> list[int]:
        return list(self._question[2])

    def is_terminal(self) -> bool:
        return self._question[0] == TERMINAL

    def action_name(self, action: int) -> str:
        return S.action_name(action)

    def apply(self, action: int) -> None:
        self._take(check_action(self, action))
        self._run_fixed()

    def apply_policy(self, policy: str, params: Mapping[str, float] | None = None) -> int:
        if self.is_terminal():
            check_action(self, None)   # the game is over: the error says so
        action = self._policy_action(policy, params)
        self._take(action)
        self._run_fixed()
        return action

    _policy = GiftsState._policy

    def _policy_action(self, name: str, params: Mapping[str, float] | None) -> int:
        seat = self.actor()
        return int(self._policy(name, params).act(self.view(seat), self.legal_actions(), self.streams[seat]))

    def _take(self, action: int) -> None:
        """Take the legal ``action`` for the actor: the kernel replays the step from its last halt with
        the script grown by ``action`` and runs to the next question; the agents' knowledge and logs follow."""
        seat, kind, _ = self._question
        st, bits = self._cur
        victim = int(st[S.ST_TARGET])
        if kind == S.D_TAKE:
            self._saw_hand(seat, victim, _members(bits[S.B_HAND + victim]))
        self._note_step(kind, action)
        self._run(self._script + (action,))
        self._seen = (self._seen, tuple(
            f"{seat}:{kind}:{action if kind != S.D_TAKE or a in (seat, victim) else -1}:{self._hand(a)}"
            for a in range(self.players)))

    def _note_step(self, kind: int, action: int) -> None:
        """What the View shows of the card step under way (the card, a heal's antidotes and entries)."""
        if kind == S.D_MAIN:
            card = action - S.A_PLAY if action < S.A_SEAT else -1
            self._step = Step(card, (card,) if card >= 0 and self._ct.effect[card] == E.E_ANTIDOTE else ())
        elif kind == S.D_ANTIDOTE and action != S.A_PASS:
            self._step = Step(self._step.card, self._step.heal + (action - S.A_PLAY,), self._step.healed)
        elif kind == S.D_HEAL:
            self._step = Step(self._step.card, self._step.heal, self._step.healed + (action - S.A_PICK,))

    def _run(self, script: tuple[int, ...]) -> None:
        """The base's copy played on with ``script`` (its first action the halt's decision) to the next
        question: a new halt becomes the base, a question inside the step keeps the base and the script."""
        if len(script) > S.MAX_SCRIPT + 1:
            raise RunError(f"gifts: a card step of more than {S.MAX_SCRIPT + 1} decisions (the kernel's script)")
        st, bits = self._base[0].copy(), self._base[1].copy()
        st[S.ST_SCRIPT:S.ST_SCRIPT + len(script) - 1] = script[1:]
        st[S.ST_NSCRIPT], st[S.ST_ISCRIPT], st[S.ST_NEV] = len(script) - 1, 0, 0
        act = K.ACT_MAIN if st[S.ST_PHASE] == K.PH_MAIN else K.ACT_ANSWER
        self._cur, self._view = (st, bits), None
        try:
            phase = K.advance(self._g(), np.int64((1 << self.players) - 1), np.int64(act), np.int64(script[0]),
                              _NO_TARGET)
        except K.Question:
            self._script, self._question = script, self._asked()
        else:
            self._base, self._script, self._question = self._cur, (), self._halted_at(int(phase))
        n = int(st[S.ST_NEV])
        if n >= S.MAX_EVENTS:
            raise RunError(f"gifts: more than {S.MAX_EVENTS - 1} hidden moves in one decision (the kernel's log)")
        self._learn(st[S.ST_EVENTS + 3 * self._events:S.ST_EVENTS + 3 * n].reshape(-1, 3).tolist())
        self._events = n if self._script else 0
        self._follow_gauges()

    def _follow_gauges(self) -> None:
        """The gauges' entries in landing order (the View's order; the arrays keep sets)."""
        bits = self._cur[1]
        order = []
        for s in range(self.players):
            now = _members(bits[S.B_GAUGE + s])
            kept = tuple(k for k in self._order[s] if k in now)
            order.append(kept + tuple(k for k in now if k not in kept))
        self._order = tuple(order)

    # ------------------------------------------------------------ what the agents know of the hidden cards

    def _learn(self, events: list[list[int]]) -> None:
        """``Knowledge`` updated by the kernel's log of hidden moves (kernel.EV_*), in order."""
        i = 0
        while i < len(events):
            code, a, b = events[i]
            i += 1
            if code in (K.EV_RESHUFFLE, K.EV_ELIM):
                cards = []
                while i < len(events) and events[i][0] == K.EV_CARD:
                    cards.append(events[i][1])
                    i += 1
                (self._reshuffled if code == K.EV_RESHUFFLE else self._eliminated)(a, cards)
            elif code == K.EV_DRAW:
                self._drew(a, b)
            elif code == K.EV_TAKE:
                self._took(a % R.MAX_PLAYERS, a // R.MAX_PLAYERS, b)
            elif code == K.EV_REFUND:
                self.zones[:, b] = _hand_bit(a)

    def _widen(self, agent: int, source: int, dest: int) -> None:
        row = self.zones[agent]
        row[(row & source) != 0] |= dest

    def _drew(self, seat: int, card: int) -> None:
        for a in range(self.players):
            if a == seat:
                self.zones[a, card] = _hand_bit(a)
            else:
                self._widen(a, PILE, _hand_bit(seat))

    def _reshuffled(self, _: int, pile: list[int]) -> None:
        into = np.zeros(self.zones.shape[1], bool)
        into[pile] = True
        self.zones[:] = np.where(into, PILE, self.zones & ~PILE)

    def _eliminated(self, seat: int, cards: list[int]) -> None:
        gone = _hand_bit(seat)
        into = np.zeros(self.zones.shape[1], bool)
        into[cards] = True
        had = (self.zones & gone) != 0
        self.zones[:] = np.where(had, (self.zones & ~gone) | PILE, np.where(into, PILE, self.zones))

    def _took(self, seat: int, victim: int, card: int) -> None:
        for a in range(self.players):
            if a in (seat, victim):
                self.zones[a, card] = _hand_bit(seat)
            else:
                self._widen(a, _hand_bit(victim), _hand_bit(seat))

    def _saw_hand(self, agent: int, seat: int, hand: list[int]) -> None:
        bit, row = _hand_bit(seat), self.zones[agent]
        held = np.zeros(row.size, bool)
        held[hand] = True
        row[:] = np.where(held, bit, row & ~bit)

    # ------------------------------------------------------------ copies

    def clone(self) -> ArrayState:
        copy = ArrayState.__new__(ArrayState)
        copy.__dict__.update(self.__dict__)
        base_is_cur = self._base is self._cur
        copy._cur = (self._cur[0].copy(), self._cur[1].copy())
        copy._base = copy._cur if base_is_cur else (self._base[0].copy(), self._base[1].copy())
        copy.zones = self.zones.copy()
        copy.streams = [_copy_stream(s) for s in self.streams]
        copy.fixed = dict(self.fixed)
        return copy

    # ------------------------------------------------------------ what an agent sees

    def _hand(self, seat: int) -> list[int]:
        return _members(self._cur[1][S.B_HAND + seat])

    def _public(self) -> dict:
        """The View's public fields, laid out once per position."""
        if self._view is None:
            st, bits = self._cur
            players, ct = self.players, self._ct
            seat, kind, _ = self._question
            gauges = []
            for s in range(players):
                entries = []
                for key in self._order[s]:
                    cards = [int(c) for c in st[S.ST_ECARDS + key * S.MAX_ENTRY_CARDS:][:st[S.ST_ELEN + key]]]
                    n = R.BONUS_GIFT_USELESS if ct.type[key] == E.USELESS else 1
                    entries.append((key, int(st[S.ST_EVALUE + key]), tuple(cards[:n]), tuple(cards[n:])))
                gauges.append(tuple(entries))
            step = self._step
            heal = step.heal if kind in (S.D_ANTIDOTE, S.D_HEAL) else ()
            heal_left = 0
            if kind == S.D_HEAL:
                heal_left = -sum(ct.value[c] for c in heal) - sum(int(st[S.ST_EVALUE + k]) for k in step.healed)
            self._view = dict(
                decision=kind, turn=int(st[S.ST_TURN]), current=int(st[S.ST_SEAT]),
                alive=tuple(bool(st[S.ST_ALIVE + s]) for s in range(players)),
                hand_sizes=tuple(int(st[S.ST_HANDN + s]) for s in range(players)), gauges=tuple(gauges),
                gauge_totals=tuple(int(st[S.ST_GTOTAL + s]) for s in range(players)),
                pile_size=int(st[S.ST_NPILE]), discard=tuple(int(c) for c in st[S.ST_DISC:S.ST_DISC + st[S.ST_NDISC]]),
                played=int(st[S.ST_PLAYED]), gift_given=bool(st[S.ST_GIFT_GIVEN]), pending=self._pending(seat, kind),
                target=int(st[S.ST_TARGET]), heal=heal, heal_left=heal_left,
                eliminated=tuple(R.decode_elimination_order(int(st[S.ST_ELIM]))), cards=ct)
        return self._view

    def _pending(self, seat: int, kind: int) -> tuple[int, int, int, int]:
        """The View's ``pending`` (the card being answered, by, target, the value it adds)."""
        st = self._cur[0]
        card, current, target = int(st[S.ST_PCARD]), int(st[S.ST_SEAT]), int(st[S.ST_TARGET])
        if kind == S.D_RESPOND:
            return card, current if seat == target else target, seat, int(st[S.ST_PADDS])
        if kind == S.D_TAKE:
            return (card if card >= 0 else self._step.card), current, target, int(st[S.ST_PADDS])
        return -1, -1, -1, 0

    def view(self, seat: int) -> View:
        """The reference engine's View of ``seat`` (what its policies read), laid out from the arrays."""
        return View(seat=seat, hand=tuple(self._hand(seat)), **self._public())

    def information(self, agent: int) -> str:
        v = self.view(agent)
        public = (v.decision, v.turn, v.current, v.alive, v.hand, v.hand_sizes, v.gauges, v.pile_size, v.discard,
                  v.played, v.gift_given, v.pending, v.target, v.heal, v.heal_left, v.eliminated)
        legal = tuple(self.legal_actions()) if self.actor() == agent else ()
        seen, node = [], self._seen
        while node is not None:
            node, entries = node
            seen.append(entries[agent])
        return f"{agent}|{public}|{legal}|" + ";".join(reversed(seen))

    def observation(self, agent: int) -> np.ndarray:
        return _observe(self.view(agent), self.players, self.options)

    @property
    def table(self) -> TableView:
        """The cards as the reference Table names them (hands, pile bottom first, target, to_move)."""
        st, bits = self._cur
        seat, kind, _ = self._question
        return TableView([self._hand(s) for s in range(self.players)],
                         [int(c) for c in st[S.ST_PILE:S.ST_PILE + st[S.ST_NPILE]]], int(st[S.ST_TARGET]),
                         (seat, kind))

    # ------------------------------------------------------------ results

    def returns(self) -> list[float]:
        st = self._cur[0]
        won = int(st[S.ST_WINNER]) if self.is_terminal() and not st[S.ST_UNFINISHED] else -1
        return [1.0 if s == won else 0.0 for s in range(self.players)]

    def outcome(self) -> dict[str, Any]:
        if not self.is_terminal():
            raise RunError("the game is not over yet")
        st = self._cur[0]
        out = {"winner_seat": int(st[S.ST_WINNER]), "turns": int(st[S.ST_TURN]),
               "elimination_order": int(st[S.ST_ELIM]), "unfinished": bool(st[S.ST_UNFINISHED])}
        out.update({f"played_{k}": int(st[S.ST_COUNTS + i]) for i, k in enumerate(R.KIND_NAMES)})
        out.update({"ripostes": int(st[S.ST_RIPOSTES]), "cacarmas": int(st[S.ST_CACARMAS]),
                    "bonus_gifts": int(st[S.ST_BONUS]), "focus_dealt": int(st[S.ST_DEALT])})
        out["focus_seat"] = self.focus_seat
        sides = side_columns(np.array([out["winner_seat"]]), np.array([self.focus_seat]), np.array([out["unfinished"]]))
        out.update({k: bool(v[0]) for k, v in sides.items()})
        return out

    # ------------------------------------------------------------ determinisation

    def determinise(self, agent: int, seed: int) -> ArrayState:
        copy = self.clone()
        copy._resample(int(agent), int(seed))
        return copy

    def _resample(self, agent: int, seed: int) -> None:
        """``GiftsState._resample`` on the arrays (the same draws, so the same deal): the hidden cards dealt
        anew inside ``agent``'s zones, the pile shuffled, the deck and the other seats' streams re-seeded.
        In the middle of a card step the base is dealt alike (the step so far moved no hidden card)."""
        st, bits = self._cur
        seat, kind, _ = self._question
        stream = rng.Stream(seed, self.index, RESEED_DECK)
        keep = kept_seats(agent, bool(self._script), kind, int(st[S.ST_SEAT]), int(st[S.ST_TARGET]))
        hands = [self._hand(s) for s in range(self.players)]
        pile = [int(c) for c in st[S.ST_PILE:S.ST_PILE + st[S.ST_NPILE]]]
        capacity = {PILE: len(pile)}
        capacity.update({_hand_bit(s): len(hands[s]) for s in range(self.players) if s not in keep})
        hidden = pile + [c for s in range(self.players) if s not in keep for c in hands[s]]
        zones = self.zones[agent].tolist()
        deal = match_zones(hidden, zones, capacity, stream, "gifts")
        pile = [c for c in hidden if deal[c] == PILE]
        shuffle(pile, stream)
        for s in range(self.players):
            if s not in keep:
                hands[s] = sorted(c for c in hidden if deal[c] == _hand_bit(s))
        deck = np.array(rng.Stream(seed, self.index, RESEED_DECK + 1).s, np.uint64)
        for arrays in {id(a): a for a in (self._base, self._cur)}.values():
            a_st, a_bits = arrays
            a_st[S.ST_PILE:S.ST_PILE + len(pile)] = pile
            for s in range(self.players):
                if s not in keep:
                    a_bits[S.B_HAND + s] = 0
                    for c in hands[s]:
                        a_bits[S.B_HAND + s, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
            a_bits[S.B_STREAM + S.STREAM_DECK] = deck
        for s in range(self.players):
            if s != agent:
                self.streams[s] = rng.Stream(seed, self.index, RESEED_DECK + 2 + s)
        mine = self.zones[agent].copy()
        in_agent = np.zeros(mine.size, bool)
        in_agent[hands[agent]] = True
        for other in range(self.players):   # the others' knowledge, made true of the new deal
            if other != agent:
                in_other = np.zeros(mine.size, bool)
                in_other[hands[other]] = True
                self.zones[other] = np.where(in_other, _hand_bit(other), np.where(in_agent, _hand_bit(agent), mine))
        self._view = None
        if seat >= 0 and seat not in keep:   # a halt's legal list, on the new hands
            self._question = self._halted_at(int(st[S.ST_PHASE]))


class TableView(NamedTuple):
    """The cards of an ArrayState named as the reference Table names them (for tests and tools)."""

    hands: list[list[int]]
    pile: list[int]
    target: int
    move: tuple[int, int]

    def to_move(self) -> tuple[int, int]:
        return self.move


# ---------------------------------------------------------------- observation vector

#: Per card: own hand, Septic Discard, in the heal or pending, in seat k's gauge (relative seat order).
CARD_FEATURES = 3
#: Per seat (relative order from the agent): alive, hand size, gauge total, current, target, pending by.
SEAT_FEATURES = 6
N_DECISIONS = len(S.DECISION_NAMES)
N_SCALARS = 5   # played, gift given, pile size, turn, heal left


def _deck_size(options) -> int:
    return deck_for(GAME.make_options(options)).size


def observation_size(players: int, options: Any = None) -> int:
    return _deck_size(options) * (CARD_FEATURES + players) + players * SEAT_FEATURES + N_DECISIONS + N_SCALARS


def _observe(v: View, players: int, options: R.RuleOptions) -> np.ndarray:
    """The observation vector of the View ``v`` (of seat ``v.seat``)."""
    size, agent = len(v.cards.type), v.seat
    out = np.zeros(observation_size(players, options), np.float32)
    per = CARD_FEATURES + players
    cards = out[:size * per].reshape(size, per)
    rel = [(s - agent) % players for s in range(players)]
    for c in v.hand:
        cards[c, 0] = 1
    for c in v.discard:
        cards[c, 1] = 1
    for c in list(v.heal) + ([v.pending[0]] if v.pending[0] >= 0 else []):
        cards[c, 2] = 1
    for s in range(players):
        for _, _, entry_cards, tricks in v.gauges[s]:
            for c in entry_cards + tricks:
                cards[c, CARD_FEATURES + rel[s]] = 1
    seats = out[size * per:size * per + players * SEAT_FEATURES].reshape(players, SEAT_FEATURES)
    for s in range(players):
        seats[rel[s]] = (v.alive[s], min(v.hand_sizes[s] / size, 1.0),
                         min(v.gauge_totals[s] / (2 * R.GAUGE_LIMIT), 1.0), s == v.current, s == v.target,
                         s == v.pending[1])
    base = size * per + players * SEAT_FEATURES
    out[base + v.decision] = 1
    base += N_DECISIONS
    out[base:base + N_SCALARS] = (v.played / R.CARDS_PER_TURN, v.gift_given, v.pile_size / size,
                                  min(v.turn / options.max_turns, 1.0), min(v.heal_left / (2 * R.GAUGE_LIMIT), 1.0))
    return out


# ---------------------------------------------------------------- the spec


def agents(players: int, options: Any = None) -> tuple[str, ...]:
    return tuple(f"seat {s}" for s in range(GAME.check_players(players)))


def agent_sides(players: int, options: Any = None) -> tuple[str, ...]:
    focus = R.focus_seat_number(GAME.make_options(options), players)
    return tuple("focus" if s == focus else "field" for s in range(players))


def new_state(seed: int, index: int, players: int, options: Any = None, fixed: Mapping[str, Any] | None = None,
              log: bool = False) -> GiftsState | ArrayState:
    """Game ``index`` of the run ``seed`` (the runner's deal), the seats of ``fixed`` sides played inside:
    on the kernel's arrays, or (``log=True``, keeping the events of the turn log) the reference engine."""
    args = (int(seed), int(index), GAME.check_players(players), GAME.make_options(options), fixed)
    return GiftsState(*args, log=True) if log else ArrayState(*args)


STEP = StepSpec(name="gifts", agents=agents, num_actions=S.N_ACTIONS, observation_size=observation_size,
                agent_sides=agent_sides, new_state=new_state, doc=__doc__)
ArrayState.spec = STEP

