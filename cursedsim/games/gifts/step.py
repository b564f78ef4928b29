"""Cursed Gifts stepped one decision at a time (``cursedsim.step``) on the reference engine (``reference.py``).

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
stream and the other seats' policy streams. One approximation: when another seat is to act in the middle
of an antidote heal (D_ANTIDOTE), that seat's hand is kept (its legal list depends on it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.games.gifts import GAME, reference_policies, side_columns
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S
from cursedsim.games.gifts.reference import Decision, Table, deck_for, focus_seat_of
from cursedsim.games.gifts.policy_specs import POLICIES
from cursedsim.step.api import TERMINAL, StepSpec
from cursedsim.step.determinise import match_zones, shuffle
from cursedsim.step.history import FixedSidesState

#: Stream ids of a determinisation's futures: the deck and each seat's policy, keyed by (seed, index).
RESEED_DECK = 100
PILE = 1   # zone bit of the draw pile; hand of seat s: bit 2 << s


def _hand_bit(seat: int) -> int:
    return 2 << seat


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
        keep = {agent} | ({seat} if kind == S.D_ANTIDOTE else set())
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
        if seat >= 0 and seat != agent and kind != S.D_ANTIDOTE:
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
        return _observe(self.table, agent, self.players)

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


def _observe(t: Table, agent: int, players: int) -> np.ndarray:
    size = t.deck.size
    out = np.zeros(observation_size(players, t.options), np.float32)
    per = CARD_FEATURES + players
    cards = out[:size * per].reshape(size, per)
    rel = [(s - agent) % players for s in range(players)]
    for c in t.hands[agent]:
        cards[c, 0] = 1
    for c in t.discard:
        cards[c, 1] = 1
    for c in list(t.heal) + ([t.pending[0]] if t.pending[0] >= 0 else []):
        cards[c, 2] = 1
    for s in range(players):
        for e in t.gauges[s]:
            for c in e.all_cards():
                cards[c, CARD_FEATURES + rel[s]] = 1
    seats = out[size * per:size * per + players * SEAT_FEATURES].reshape(players, SEAT_FEATURES)
    for s in range(players):
        r = rel[s]
        seats[r] = (t.alive[s], min(len(t.hands[s]) / size, 1.0), min(t.gauge_total(s) / (2 * R.GAUGE_LIMIT), 1.0),
                    s == t.current, s == t.target, s == t.pending[1])
    base = size * per + players * SEAT_FEATURES
    seat, kind = t.to_move()
    out[base + (kind if seat >= 0 else S.D_NONE)] = 1
    base += N_DECISIONS
    out[base:base + N_SCALARS] = (t.played / R.CARDS_PER_TURN, t.gift_given, len(t.pile) / size,
                                  min(t.turn / t.options.max_turns, 1.0), min(t.heal_left / (2 * R.GAUGE_LIMIT), 1.0))
    return out


# ---------------------------------------------------------------- the spec


def agents(players: int, options: Any = None) -> tuple[str, ...]:
    return tuple(f"seat {s}" for s in range(GAME.check_players(players)))


def agent_sides(players: int, options: Any = None) -> tuple[str, ...]:
    focus = R.focus_seat_number(GAME.make_options(options), players)
    return tuple("focus" if s == focus else "field" for s in range(players))


def new_state(seed: int, index: int, players: int, options: Any = None, fixed: Mapping[str, Any] | None = None,
              log: bool = False) -> GiftsState:
    """Game ``index`` of the run ``seed`` (the runner's deal), the seats of ``fixed`` sides played inside."""
    return GiftsState(int(seed), int(index), GAME.check_players(players), GAME.make_options(options), fixed, log)


STEP = StepSpec(name="gifts", agents=agents, num_actions=S.N_ACTIONS, observation_size=observation_size,
                agent_sides=agent_sides, new_state=new_state, doc=__doc__)

