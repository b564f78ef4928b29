"""The readable reference engine of Cursed Gifts: a steppable ``Table`` (one method per rulebook step,
named after it), the per-seat ``View``, and the entry points ``play``, ``play_chunk`` and ``replay_events``.

    t = Table.deal(seed, index, players, options)
    while not t.is_over():
        seat, kind = t.to_move()
        t.apply(policy_of(seat).act(t.observe(seat), t.legal_actions(), stream_of(seat)))

``apply`` runs the game to its next decision. Internally the game is a generator: each rule step
``yield``s a ``Decision`` and receives the action chosen. The deck stream (stream 0 of (seed, index)) is
drawn in this order, and only here (docs/rules/gifts.md, "Order of random draws"):

1. set-up: the copies 0..size-1 in a list, shuffled by Fisher-Yates (i from n-1 down to 1,
   j = below(i+1), swap); the top of the draw pile is the list's *last* element; 7 rounds of one card
   to each seat from seat 0;
2. during play, as events happen: a draw (or Day of mourning) finding the pile empty turns the Septic
   Discard (in its order of arrival) into the pile and shuffles it (Fisher-Yates); Mugging takes the
   card ``sorted(hand)[below(len(hand))]`` (``mugging_take="blind"``); an elimination puts the player's cards (ascending) on the
   pile and shuffles the whole pile, or (``random_positions``) inserts each at ``below(len(pile)+1)``.

``clone()`` rebuilds the table from its recipe and replays the recorded actions, so the copy's streams
match too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from cursedsim import rng
from cursedsim.errors import OptionError, PlayersError, RunError
from cursedsim.events import make_event, policy_label
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S
from cursedsim.games.gifts.deck import Deck, deck_of
from cursedsim.games.stepping import ReplayableTable


class IllegalDecision(RunError):
    """A policy returned an action that is not in the legal list."""


class Decision(NamedTuple):
    """A point where a seat must act: who, what kind (S.D_*), the legal actions (ascending)."""

    seat: int
    kind: int
    legal: tuple[int, ...]


class CardTable(NamedTuple):
    """The deck's public facts per copy (every player knows the deck list): type, value, flags, effect,
    line (kind) index, and the card names per line."""

    type: tuple[int, ...]
    value: tuple[int, ...]
    flags: tuple[int, ...]
    effect: tuple[int, ...]
    kind: tuple[int, ...]
    names: tuple[str, ...]

    def name(self, card: int) -> str:
        return self.names[self.kind[card]]


def deck_for(options: R.RuleOptions | None) -> Deck:
    """The Deck the rule options play with (``deck`` and ``without_card``), loaded once per process."""
    options = R.RuleOptions() if options is None else options
    return deck_of(options.deck, options.without_card)


def card_table(deck: Deck) -> CardTable:
    arr = deck.arrays()
    return CardTable(*(tuple(int(v) for v in arr[k]) for k in ("type", "value", "flags", "effect", "kind")),
                     names=tuple(c.name for c in deck.cards))


def shuffle_in_place(cards: list[int], stream: rng.Stream) -> None:
    """Fisher-Yates: for i from n-1 down to 1, j = below(i+1), swap."""
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def dealt_kinds(kind, cards) -> int:
    """The ``focus_dealt`` bit mask of a hand: bit k set when a card of the deck's kind k
    (``Deck.cards[k]``; ``kind`` per copy: ``Deck.arrays()["kind"]``, ``CardTable.kind``) is among ``cards``."""
    mask = 0
    for c in cards:
        mask |= 1 << int(kind[c])
    return mask


def subset_sums(values) -> int:
    """The sums reachable by subsets of ``values`` as a bit set (bit s = sum s reachable; bit 0 always)."""
    reach = 1
    for v in values:
        reach |= reach << v
    return reach


# ---------------------------------------------------------------- gauge entries


@dataclass
class Entry:
    """One Cursed Gift in a gauge: its card(s) (one gift, or the bonus's two Useless Gifts), its printed
    value, and the raise Tricks sitting on it. ``key`` names it in actions (its first card)."""

    cards: list[int]
    base: int
    tricks: list[int] = field(default_factory=list)

    @property
    def key(self) -> int:
        return self.cards[0]

    def value(self, ct: CardTable) -> int:
        """Printed value plus every Trick's raise ("The value of the Cursed Gift increases")."""
        return self.base + sum(ct.value[t] for t in self.tricks)

    def all_cards(self) -> list[int]:
        return self.cards + self.tricks


# ---------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class View:
    """What ``seat`` may know: the public table and its own hand, nothing of other hands or the pile order.

    ``decision`` (S.D_*), ``turn``, ``current`` (whose turn), ``alive`` per seat, ``hand`` (own cards,
    ascending), ``hand_sizes``, ``gauges`` (per seat: (key, value with tricks, cards, tricks) per entry),
    ``gauge_totals``, ``pile_size``, ``discard`` (the face-up Septic Discard, in order), ``played``
    (cards counted this turn), ``gift_given`` (this turn), ``pending`` (the card being answered:
    (card or -1 for the bonus, by seat, target seat, value it adds to the target's gauge)),
    ``target`` (the seat chosen for the card being played, -1), ``heal`` (antidotes in the heal being
    built), ``heal_left`` (value still to heal), ``eliminated`` (seats, in order), ``cards`` (the deck's
    public CardTable)."""

    seat: int
    decision: int
    turn: int
    current: int
    alive: tuple[bool, ...]
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    gauges: tuple[tuple[tuple[int, int, tuple[int, ...], tuple[int, ...]], ...], ...]
    gauge_totals: tuple[int, ...]
    pile_size: int
    discard: tuple[int, ...]
    played: int
    gift_given: bool
    pending: tuple[int, int, int, int]
    target: int
    heal: tuple[int, ...]
    heal_left: int
    eliminated: tuple[int, ...]
    cards: CardTable


# ---------------------------------------------------------------- outcome


@dataclass
class Outcome:
    """One game's outcome: the columns of ``rules.OUTCOME_DTYPES``."""

    winner_seat: int
    turns: int
    elimination_order: int
    unfinished: bool
    played: tuple[int, ...]
    ripostes: int
    cacarmas: int
    bonus_gifts: int
    focus_dealt: int = 0

    def columns(self) -> dict[str, Any]:
        cols = {"winner_seat": self.winner_seat, "turns": self.turns,
                "elimination_order": self.elimination_order, "unfinished": self.unfinished}
        cols.update({f"played_{k}": n for k, n in zip(R.KIND_NAMES, self.played)})
        cols.update({"ripostes": self.ripostes, "cacarmas": self.cacarmas, "bonus_gifts": self.bonus_gifts,
                     "focus_dealt": self.focus_dealt})
        return cols


# ---------------------------------------------------------------- the table


@dataclass
class Table(ReplayableTable):
    """One game of Cursed Gifts, steppable. Build it with ``deal`` (a run's game) or ``from_position``
    (a hand-built position, for tests); then ``to_move``/``legal_actions``/``observe``/``apply``."""

    options: R.RuleOptions
    players: int
    deck: Deck
    ct: CardTable
    deck_rng: rng.Stream
    pile: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    gauges: list[list[Entry]] = field(default_factory=list)
    alive: list[bool] = field(default_factory=list)
    current: int = 0
    turn: int = 0
    played: int = 0
    gift_given: bool = False
    pending: tuple[int, int, int, int] = (-1, -1, -1, 0)
    target: int = -1
    heal: list[int] = field(default_factory=list)
    heal_left: int = 0
    eliminated: list[int] = field(default_factory=list)
    winner: int = -1
    unfinished: bool = False
    over: bool = False
    counts: list[int] = field(default_factory=lambda: [0] * len(R.KIND_NAMES))
    ripostes: int = 0
    cacarmas: int = 0
    bonus_gifts: int = 0
    dealt: list[int] = field(default_factory=list)
    origin: tuple[int | None, int | None] = (None, None)
    logging: bool = False
    events: list[dict] = field(default_factory=list)
    _pending: Decision | None = None
    _game: Any = None
    _recipe: tuple = ()
    _history: list[int] = field(default_factory=list)

    # ------------------------------------------------------------ building

    @classmethod
    def _empty(cls, seed: int, index: int, players: int, options: R.RuleOptions | None, log: bool) -> Table:
        options = R.RuleOptions() if options is None else options
        if not isinstance(options, R.RuleOptions):
            raise OptionError(f"options must be a gifts RuleOptions, got {type(options).__name__}")
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not (
                R.MIN_PLAYERS <= players <= R.MAX_PLAYERS):
            raise PlayersError(f"gifts is played by {R.MIN_PLAYERS}-{R.MAX_PLAYERS} players, got {players!r}")
        deck = deck_for(options)
        table = cls(options=options, players=int(players), deck=deck, ct=card_table(deck),
                    deck_rng=rng.Stream(seed, index, S.STREAM_DECK), origin=(seed, index), logging=log)
        table.hands = [[] for _ in range(players)]
        table.gauges = [[] for _ in range(players)]
        table.alive = [True] * players
        return table

    @classmethod
    def deal(cls, seed: int, index: int, players: int = R.DEFAULT_PLAYERS, options: R.RuleOptions | None = None,
             *, log: bool = False, labels: tuple[str, ...] = ()) -> Table:
        """Game ``index`` of run ``seed``: set up, stopped at the first decision."""
        table = cls._empty(seed, index, players, options, log)
        if table.deck.size < R.HAND_AT_SETUP * table.players:
            raise PlayersError(f"deck {table.deck.name!r} holds {table.deck.size} cards, too few to deal "
                               f"{R.HAND_AT_SETUP} to {table.players} players")
        table._recipe = ("deal", seed, index, players, options, tuple(labels))
        table.set_up(tuple(labels))
        table._start()
        return table

    @classmethod
    def from_position(cls, *, players: int = 3, options: R.RuleOptions | None = None, hands=(), gauges=(),
                      pile=(), discard=(), alive=None, current: int = 0, turn: int = 0, played: int = 0,
                      gift_given: bool = False, seed: int = 0, index: int = 0, log: bool = False) -> Table:
        """A hand-built position (for tests), at the start of ``current``'s turn step (``played`` cards
        already counted, ``gift_given``): ``hands`` per seat (copy lists), ``gauges`` per seat (a list of
        entries, each a gift copy or a (cards, tricks) pair of lists), ``pile`` (bottom first: the last is
        drawn first), the ``discard``, ``alive`` flags. Cards not placed are out of the game."""
        table = cls._empty(seed, index, players, options, log)
        table._recipe = ("position", dict(players=players, options=options, hands=hands, gauges=gauges, pile=pile,
                                          discard=discard, alive=alive, current=current, turn=turn, played=played,
                                          gift_given=gift_given, seed=seed, index=index, log=log))
        table.hands = [sorted(h) for h in hands] + [[] for _ in range(players - len(hands))]
        for seat, entries in enumerate(gauges):
            for e in entries:
                cards, tricks = ([e], []) if isinstance(e, int) else (list(e[0]), list(e[1]))
                base = R.BONUS_GIFT_VALUE if table.ct.type[cards[0]] == E.USELESS else table.ct.value[cards[0]]
                table.gauges[seat].append(Entry(cards, base, tricks))
        table.dealt = [dealt_kinds(table.ct.kind, h) for h in table.hands]
        table.pile, table.discard = list(pile), list(discard)
        table.alive = list(alive) if alive is not None else [True] * players
        every = [c for h in table.hands for c in h] + [c for g in table.gauges for e in g for c in e.all_cards()]
        every += table.pile + table.discard
        if len(set(every)) != len(every) or any(not 0 <= c < table.deck.size for c in every):
            raise RunError(f"a position holds each card of the deck at most once, got {sorted(every)}")
        table.current, table.turn, table.played, table.gift_given = current, turn, played, gift_given
        table._start(resume=True)
        return table

    def _start(self, resume: bool = False) -> None:
        self._game = self.play(resume)
        self._advance(None)

    # ------------------------------------------------------------ stepping

    def to_move(self) -> tuple[int, int]:
        """(seat, decision kind S.D_*); (-1, D_NONE) once over."""
        return (-1, S.D_NONE) if self._pending is None else (self._pending.seat, self._pending.kind)

    def legal_actions(self) -> list[int]:
        """The legal action ids of the pending decision, ascending (empty once over)."""
        return [] if self._pending is None else list(self._pending.legal)

    def apply(self, action: int) -> None:
        """Play ``action`` for the pending decision and run on to the next one."""
        if self._pending is None:
            raise IllegalDecision("the game is over: no decision is pending")
        action = int(action)
        if action not in self._pending.legal:
            names = ", ".join(S.action_name(a) for a in self._pending.legal)
            raise IllegalDecision(f"illegal action {action} ({S.action_name(action)}) at a "
                                  f"{S.DECISION_NAMES[self._pending.kind]} decision; legal: {names}")
        self._history.append(action)
        self._advance(action)

    def is_over(self) -> bool:
        return self.over

    def outcome(self, focus_seat: int | None = None) -> Outcome:
        """The game's outcome columns; ``focus_dealt`` is the kinds dealt to the focus seat
        (``focus_seat_of`` the game index and ``focus_seat``: -1 rotates; None: the options' focus_seat)."""
        if not self.over:
            raise RunError("the game is not over yet")
        if focus_seat is None:
            focus_seat = R.focus_seat_number(self.options, self.players)
        focus = focus_seat_of(self.origin[1] or 0, self.players, focus_seat)
        return Outcome(winner_seat=self.winner, turns=self.turn,
                       elimination_order=R.encode_elimination_order(self.eliminated), unfinished=self.unfinished,
                       played=tuple(self.counts), ripostes=self.ripostes, cacarmas=self.cacarmas,
                       bonus_gifts=self.bonus_gifts, focus_dealt=self.dealt[focus])

    def observe(self, seat: int) -> View:
        """The View of ``seat``: its own hand and everything public."""
        return View(
            seat=seat, decision=self._pending.kind if self._pending else S.D_NONE, turn=self.turn,
            current=self.current, alive=tuple(self.alive), hand=tuple(self.hands[seat]),
            hand_sizes=tuple(len(h) for h in self.hands),
            gauges=tuple(tuple((e.key, e.value(self.ct), tuple(e.cards), tuple(e.tricks)) for e in g)
                         for g in self.gauges),
            gauge_totals=tuple(self.gauge_total(s) for s in range(self.players)), pile_size=len(self.pile),
            discard=tuple(self.discard), played=self.played, gift_given=self.gift_given, pending=self.pending,
            target=self.target, heal=tuple(self.heal), heal_left=self.heal_left,
            eliminated=tuple(self.eliminated), cards=self.ct)

    # ------------------------------------------------------------ facts of the position

    def gauge_total(self, seat: int) -> int:
        return sum(e.value(self.ct) for e in self.gauges[seat])

    def others_alive(self, seat: int) -> list[int]:
        """Every other seat still in the game ("It is forbidden to give yourself any")."""
        return [s for s in range(self.players) if s != seat and self.alive[s]]

    def effect(self, card: int) -> int:
        return self.ct.effect[card]

    def useless_in(self, seat: int) -> list[int]:
        return [c for c in self.hands[seat] if self.ct.type[c] == E.USELESS]

    def entry(self, seat: int, key: int) -> Entry:
        return next(e for e in self.gauges[seat] if e.key == key)

    def left(self) -> int:
        """Cards the current player may still play this turn."""
        return R.CARDS_PER_TURN - self.played

    # ------------------------------------------------------------ events

    def record(self, actor: str, action: str, cards=(), **fields) -> None:
        """Add an event (``turnlog.EVENTS``) with the state after it, when the table keeps a log."""
        if self.logging:
            self.events.append(make_event(self.origin, len(self.events), self.turn, actor, action, cards, fields,
                                          self.summary()))

    def summary(self) -> dict:
        """The state every event carries (omniscient: the log is for the researcher)."""
        return {"hands": [list(h) for h in self.hands],
                "gauges": [self.gauge_total(s) for s in range(self.players)], "pile": len(self.pile),
                "discard": len(self.discard), "alive": list(self.alive)}

    # ------------------------------------------------------------ the draw pile and the discard

    def to_discard(self, cards) -> None:
        """"place it in the Septic Discard, face up"."""
        self.discard.extend(cards)

    def draw_card(self, seat: int) -> int:
        """The top card of the draw pile into ``seat``'s hand; an empty pile first takes the Septic
        Discard, shuffled ("take the Septic Discard, shuffle it, flip it over"). -1 if both are empty."""
        if not self.pile and self.discard:
            self.pile, self.discard = self.discard, []
            shuffle_in_place(self.pile, self.deck_rng)
            self.record("rule", "reshuffle", [], size=len(self.pile))
        if not self.pile:
            return -1
        card = self.pile.pop()
        self.hands[seat].append(card)
        self.hands[seat].sort()
        return card

    # ------------------------------------------------------------ set-up and turns

    def set_up(self, labels: tuple[str, ...]) -> None:
        """"shuffle all the cards. Deal 7 to each player" (one at a time from seat 0); seat 0, "The
        youngest player", starts."""
        self.pile = list(range(self.deck.size))
        shuffle_in_place(self.pile, self.deck_rng)
        for _ in range(R.HAND_AT_SETUP):
            for seat in range(self.players):
                self.hands[seat].append(self.pile.pop())
        for hand in self.hands:
            hand.sort()
        self.dealt = [dealt_kinds(self.ct.kind, h) for h in self.hands]
        self.record("rule", "setup", [], players=self.players, deck=self.deck.label, policies=list(labels),
                    options={f.name: getattr(self.options, f.name) for f in dataclasses.fields(self.options)})

    def play(self, resume: bool):
        """The game: turns clockwise until one player is left or ``max_turns`` turns were played."""
        if not resume:
            self.current = 0
        while True:
            if not resume:
                if self.turn >= self.options.max_turns:
                    self.finish(-1, unfinished=True)
                    return
                self.turn += 1
                self.played, self.gift_given = 0, False
                self.record(f"seat {self.current}", "turn", [])
            resume = False
            seat = self.current
            ended = yield from self.take_turn(seat)
            if self.over:
                return
            if ended and self.alive[seat]:
                self.end_turn_by_drawing(seat)
            self.current = self.next_seat(seat)

    def next_seat(self, seat: int) -> int:
        """"The game proceeds clockwise": the next seat still in the game."""
        s = (seat + 1) % self.players
        while not self.alive[s]:
            s = (s + 1) % self.players
        return s

    def end_turn_by_drawing(self, seat: int) -> None:
        """"You decide to end your turn by drawing a card"."""
        card = self.draw_card(seat)
        self.record(f"seat {seat}", "draw", [card] if card >= 0 else [])

    def take_turn(self, seat: int):
        """Up to 3 cards, one at a time, then A_END. Returns True when the turn ended by A_END (False
        when the player was eliminated during it)."""
        while True:
            action = yield Decision(seat, S.D_MAIN, tuple(self.main_legal(seat)))
            if action == S.A_END:
                return True
            if action == S.A_BONUS:
                yield from self.give_bonus_gift(seat)
            else:
                card = action - S.A_PLAY
                self.hands[seat].remove(card)
                self.played += 1
                self.counts[self.ct.type[card]] += 1
                yield from self.PLAY[self.effect(card)](self, seat, card)
            self.pending, self.target = (-1, -1, -1, 0), -1
            if self.over or not self.alive[seat]:
                return False

    def main_legal(self, seat: int) -> list[int]:
        """The cards ``seat`` may play now, the bonus, and A_END (ascending)."""
        legal = []
        if self.left() >= 1:
            others = self.others_alive(seat)
            for card in self.hands[seat]:
                if self.card_playable(seat, card, others):
                    legal.append(S.A_PLAY + card)
        if (self.left() >= R.BONUS_GIFT_USELESS and len(self.useless_in(seat)) >= R.BONUS_GIFT_USELESS
                and not (self.options.bonus_is_the_gift and self.gift_given)):
            legal.append(S.A_BONUS)
        legal.append(S.A_END)
        return legal

    def card_playable(self, seat: int, card: int, others: list[int]) -> bool:
        """Whether ``card`` may be played on ``seat``'s turn now (one card of the 3 is left)."""
        eff = self.effect(card)
        if eff in (E.E_GIFT, E.E_GOLDEN_GIFT):
            return not self.gift_given and bool(others)
        if eff == E.E_ANTIDOTE:
            return self.heal_feasible(seat, [card], [c for c in self.hands[seat] if c != card], self.left() - 1)
        if eff == E.E_RAISE_GIFT:
            return any(self.gauges[s] for s in others)
        if eff == E.E_MUGGING:
            return any(self.hands[s] for s in others) and len(self.hands[seat]) >= 2
        if eff == E.E_DAY_OF_MOURNING:
            return bool(self.useless_in(seat))
        if eff == E.E_REMOVE_GIFT:
            return bool(self.gauges[seat])
        return False   # ripostes only answer; Useless Gifts "cannot be given"

    def finish(self, winner: int, unfinished: bool = False) -> None:
        self.winner, self.unfinished, self.over = winner, unfinished, True
        self.record("rule", "end", [], winner=winner if winner >= 0 else None, unfinished=unfinished,
                    eliminated=list(self.eliminated))

    # ------------------------------------------------------------ answering a card: ripostes and Cacarma

    def respond(self, card: int, by: int, target: int, kind: int, adds: int, inevitable: bool):
        """The window after a card of type ``kind`` is played by ``by`` on ``target``: the target may
        answer with a RIPOSTE that answers ``kind`` or (a gift or Trick) with Cacarma; with
        ``riposte_chains`` each riposte may be answered in turn ("You can only riposte to the last card
        played"). Returns "effective", "cancelled" or "returned" for the original card."""
        if inevitable:
            return "effective"   # "will not be able to defend themselves", "RIPOSTES are useless"
        chain: list[int] = []
        answered_kind, responder, other = kind, target, by
        self.pending = (card, by, target, adds)
        while True:
            legal = [S.A_PLAY + c for c in self.hands[responder]
                     if self.ct.flags[c] & E.RIPOSTE and answered_kind in E.ANSWERS[self.effect(c)]]
            if not chain and self.cacarma_allowed(responder, kind):
                legal.append(S.A_CACARMA)
            if not legal:
                break
            action = yield Decision(responder, S.D_RESPOND, tuple(sorted(legal + [S.A_PASS])))
            if action == S.A_PASS:
                break
            if action == S.A_CACARMA:
                return self.play_cacarma(responder, card, by)
            riposte = action - S.A_PLAY
            self.hands[responder].remove(riposte)
            self.counts[E.DEFENSE] += 1
            self.ripostes += 1
            chain.append(riposte)
            self.record(f"seat {responder}", "riposte", [riposte], answers=card if len(chain) == 1 else chain[-2])
            if not self.options.riposte_chains:
                break
            answered_kind, responder, other = E.DEFENSE, other, responder
            self.pending = (riposte, other, responder, 0)
        self.to_discard(chain)   # every riposte is discarded once its power is applied
        effective = len(chain) % 2 == 0   # each riposte cancels the card below it unless itself cancelled
        if not effective:
            self.record("rule", "cancelled", [card])
        return "effective" if effective else "cancelled"

    def cacarma_allowed(self, seat: int, kind: int) -> bool:
        """"If a player plays a Trick on you or gives you a Cursed Gift and you have at least 3 useless
        gifts in hand"."""
        return kind in (E.GIFT, E.TRICK) and len(self.useless_in(seat)) >= R.CACARMA_USELESS

    def play_cacarma(self, seat: int, card: int, by: int) -> str:
        """"discard 3 of them and use them as a 'Cacarma'" (the three lowest Useless Gifts)."""
        used = self.useless_in(seat)[:R.CACARMA_USELESS]
        for c in used:
            self.hands[seat].remove(c)
        self.to_discard(used)
        self.cacarmas += 1
        self.counts[E.USELESS] += len(used)
        returned = self.options.cacarma == "return" and card >= 0 and self.ct.type[card] == E.GIFT
        self.record(f"seat {seat}", "cacarma", used, answers=card, returned=returned)
        return "returned" if returned else "cancelled"

    # ------------------------------------------------------------ cards played on your turn

    def choose_target(self, seat: int, seats: list[int]):
        """D_TARGET: the seat a card is played on."""
        action = yield Decision(seat, S.D_TARGET, tuple(S.A_SEAT + s for s in seats))
        self.target = action - S.A_SEAT
        return self.target

    def give_cursed_gift(self, seat: int, card: int):
        """"Place the Cursed Gift you want to give in another player's Gauge of your choice"; INEVITABLE
        gifts cannot be answered."""
        self.gift_given = True
        target = yield from self.choose_target(seat, self.others_alive(seat))
        self.record(f"seat {seat}", "give", [card], target=target)
        inevitable = bool(self.ct.flags[card] & E.INEVITABLE)
        if inevitable and self.options.cacarma_vs_inevitable:
            result = yield from self.respond_cacarma_only(card, seat, target)   # ripostes stay useless
        else:
            result = yield from self.respond(card, seat, target, E.GIFT, self.ct.value[card], inevitable)
        if result == "effective":
            self.land_gift(target, Entry([card], self.ct.value[card]))
        elif result == "returned":
            self.record("rule", "returned", [card], target=seat)
            self.land_gift(seat, Entry([card], self.ct.value[card]))
        else:
            self.to_discard([card])

    def respond_cacarma_only(self, card: int, by: int, target: int):
        """An INEVITABLE gift under ``cacarma_vs_inevitable``: only Cacarma may answer it."""
        if not self.cacarma_allowed(target, E.GIFT):
            return "effective"
        self.pending = (card, by, target, self.ct.value[card])
        action = yield Decision(target, S.D_RESPOND, (S.A_CACARMA, S.A_PASS))
        return self.play_cacarma(target, card, by) if action == S.A_CACARMA else "effective"

    def land_gift(self, seat: int, entry: Entry) -> None:
        """The gift enters the gauge; at 10 or more the player is eliminated "immediately"."""
        self.gauges[seat].append(entry)
        self.check_elimination(seat)

    def give_bonus_gift(self, seat: int):
        """"If you have 2 in your hand (identical or not), you can play them (which counts as 2 cards) and
        they become a 1 point Inevitable Cursed Gift to give"."""
        used = self.useless_in(seat)[:R.BONUS_GIFT_USELESS]
        for c in used:
            self.hands[seat].remove(c)
        self.played += R.BONUS_GIFT_USELESS
        self.counts[E.USELESS] += len(used)
        self.bonus_gifts += 1
        if self.options.bonus_is_the_gift:
            self.gift_given = True
        target = yield from self.choose_target(seat, self.others_alive(seat))
        self.record(f"seat {seat}", "bonus_gift", used, target=target)
        self.land_gift(target, Entry(used, R.BONUS_GIFT_VALUE))

    def raise_gift(self, seat: int, card: int):
        """A Trick that sits on a gift in another player's gauge and raises its value."""
        target = yield from self.choose_target(seat, [s for s in self.others_alive(seat) if self.gauges[s]])
        action = yield Decision(seat, S.D_GIFT, tuple(sorted(S.A_PICK + e.key for e in self.gauges[target])))
        key = action - S.A_PICK
        self.record(f"seat {seat}", "trick", [card], target=target, gift=key)
        result = yield from self.respond(card, seat, target, E.TRICK, self.ct.value[card], False)
        if result == "effective":
            self.entry(target, key).tricks.append(card)
            self.check_elimination(target)
        else:
            self.to_discard([card])

    def mugging(self, seat: int, card: int):
        """"discard one card from your hand to take a card from another player's hand". The cost is chosen
        when Mugging is played; ``mugging_cost="always"``: discarded at once (paid even if Mugging is
        cancelled); ``"if_taken"``: set aside, discarded once a card is taken, else back to the hand. The
        card taken: ``mugging_take="blind"`` drawn from the deck stream, ``"chosen"`` the mugger's D_TAKE."""
        target = yield from self.choose_target(seat, [s for s in self.others_alive(seat) if self.hands[s]])
        action = yield Decision(seat, S.D_DISCARD, tuple(S.A_PICK + c for c in self.hands[seat]))
        cost = action - S.A_PICK
        self.hands[seat].remove(cost)
        pay_now = self.options.mugging_cost == "always"
        if pay_now:
            self.to_discard([cost])
        self.record(f"seat {seat}", "mugging", [card], target=target, discarded=cost)
        result = yield from self.respond(card, seat, target, E.TRICK, 0, False)
        taken = -1
        if result == "effective" and self.hands[target]:
            if self.options.mugging_take == "blind":
                taken = self.hands[target][self.deck_rng.below(len(self.hands[target]))]
            else:
                self.target = target
                action = yield Decision(seat, S.D_TAKE, tuple(S.A_PICK + c for c in self.hands[target]))
                taken = action - S.A_PICK
            self.hands[target].remove(taken)
        if not pay_now:
            if taken >= 0:
                self.to_discard([cost])
            else:
                self.hands[seat].append(cost)
                self.hands[seat].sort()
                self.record(f"seat {seat}", "refund", [cost])
        if taken >= 0:
            self.hands[seat].append(taken)
            self.hands[seat].sort()
            self.record(f"seat {seat}", "take", [taken], target=target)
        self.to_discard([card])

    def day_of_mourning(self, seat: int, card: int):
        """Reconstructed text: discard every Useless Gift in your hand and draw as many cards."""
        used = self.useless_in(seat)
        for c in used:
            self.hands[seat].remove(c)
        self.to_discard(used)
        drawn = [c for c in (self.draw_card(seat) for _ in used) if c >= 0]
        self.to_discard([card])
        self.record(f"seat {seat}", "mourning", [card], discarded=used, drawn=drawn)
        yield from ()   # a card step is a generator; this one asks no decision

    def remove_gift(self, seat: int, card: int):
        """Emergency Ifren: "get rid of" one gift in your own gauge (with its Tricks)."""
        action = yield Decision(seat, S.D_REMOVE, tuple(sorted(S.A_PICK + e.key for e in self.gauges[seat])))
        entry = self.entry(seat, action - S.A_PICK)
        self.gauges[seat].remove(entry)
        self.to_discard(entry.all_cards() + [card])
        self.record(f"seat {seat}", "remove", [card], gift=entry.all_cards())

    # ------------------------------------------------------------ antidotes

    def heal_feasible(self, seat: int, chosen: list[int], hand: list[int], budget: int) -> bool:
        """Whether antidotes ``chosen`` plus at most ``budget`` more antidotes from ``hand`` can heal some
        gifts of ``seat``'s gauge of exactly their total."""
        reach = subset_sums(e.value(self.ct) for e in self.gauges[seat])
        extra = [-self.ct.value[c] for c in hand if self.effect(c) == E.E_ANTIDOTE]
        base = -sum(self.ct.value[c] for c in chosen)
        budget = min(budget, R.MAX_ANTIDOTES - len(chosen))
        sums = {0}   # sums of at most `budget` extra antidotes, by growing the set one antidote at a time
        frontier = [(0, ())]
        for _ in range(max(budget, 0)):
            nxt = []
            for total, used in frontier:
                for i, v in enumerate(extra):
                    if not used or i > used[-1]:
                        nxt.append((total + v, used + (i,)))
                        sums.add(total + v)
            frontier = nxt
        return any(reach >> (base + s) & 1 for s in sums)

    def antidote(self, seat: int, card: int):
        """"To heal a Cursed Gift (even if it is INEVITABLE), you must use the exact value of Antidotes
        needed"; "You can play 2 Antidotes at the same time or even 3, each Antidote counts as one card"."""
        self.heal = [card]
        while True:
            hand = self.hands[seat]
            exact = subset_sums(e.value(self.ct) for e in self.gauges[seat]) >> self.heal_total() & 1
            more = [c for c in hand if self.effect(c) == E.E_ANTIDOTE and self.left() >= 1
                    and len(self.heal) < R.MAX_ANTIDOTES
                    and self.heal_feasible(seat, self.heal + [c], [x for x in hand if x != c], self.left() - 1)]
            if not more:
                break
            legal = [S.A_PLAY + c for c in more] + ([S.A_PASS] if exact else [])
            action = yield Decision(seat, S.D_ANTIDOTE, tuple(legal))
            if action == S.A_PASS:
                break
            extra = action - S.A_PLAY
            self.hands[seat].remove(extra)
            self.heal.append(extra)
            self.played += 1
            self.counts[E.ANTIDOTE] += 1
        self.heal_left = self.heal_total()
        healed: list[Entry] = []
        while self.heal_left > 0:
            rest = [e for e in self.gauges[seat] if e not in healed]
            legal = [S.A_PICK + e.key for e in rest if e.value(self.ct) <= self.heal_left and subset_sums(
                x.value(self.ct) for x in rest if x is not e) >> (self.heal_left - e.value(self.ct)) & 1]
            action = yield Decision(seat, S.D_HEAL, tuple(sorted(legal)))
            entry = self.entry(seat, action - S.A_PICK)
            healed.append(entry)
            self.heal_left -= entry.value(self.ct)
        for entry in healed:
            self.gauges[seat].remove(entry)
        cards = [c for e in healed for c in e.all_cards()]
        self.to_discard(cards + self.heal)
        self.record(f"seat {seat}", "heal", list(self.heal), healed=cards)
        self.heal = []

    def heal_total(self) -> int:
        return -sum(self.ct.value[c] for c in self.heal)

    # ------------------------------------------------------------ elimination

    def check_elimination(self, seat: int) -> None:
        """"When their Gauge reaches 10 points or more and they cannot defend themselves, this player is
        eliminated immediately" (the defence window has passed when a card lands)."""
        if self.alive[seat] and self.gauge_total(seat) >= R.GAUGE_LIMIT:
            self.eliminate(seat)

    def eliminate(self, seat: int) -> None:
        """"they take all the Cursed Gifts that are in their cursed Gauge and those they still have in
        hand, and shuffle them into the draw pile"."""
        self.alive[seat] = False
        self.eliminated.append(seat)
        cards = [c for e in self.gauges[seat] for c in e.all_cards()]
        hand = self.hands[seat]
        if self.options.eliminated_hand == "gifts_only":
            self.to_discard([c for c in hand if self.ct.type[c] != E.GIFT])
            hand = [c for c in hand if self.ct.type[c] == E.GIFT]
        cards = sorted(cards + hand)
        self.gauges[seat], self.hands[seat] = [], []
        if self.options.eliminated_cards == "shuffle_pile":
            self.pile.extend(cards)
            shuffle_in_place(self.pile, self.deck_rng)
        else:
            for c in cards:
                self.pile.insert(self.deck_rng.below(len(self.pile) + 1), c)
        self.record("rule", "eliminated", cards, seat=seat)
        alive = [s for s in range(self.players) if self.alive[s]]
        if len(alive) == 1:
            self.finish(alive[0])

    PLAY = {E.E_GIFT: give_cursed_gift, E.E_GOLDEN_GIFT: give_cursed_gift, E.E_ANTIDOTE: antidote,
            E.E_RAISE_GIFT: raise_gift, E.E_MUGGING: mugging, E.E_DAY_OF_MOURNING: day_of_mourning,
            E.E_REMOVE_GIFT: remove_gift}


# ---------------------------------------------------------------- entry points


def play_game(table: Table, policies, seed: int, index: int) -> Table:
    """Play ``table`` to the end: each decision to its seat's policy with the seat's View, the legal list
    and the seat's stream (stream 1 + seat of (seed, index))."""
    streams = [rng.Stream(seed, index, S.STREAM_POLICY + s) for s in range(table.players)]
    while not table.is_over():
        seat, _ = table.to_move()
        policy = policies[seat]
        if hasattr(policy, "act_table"):   # a search (rollout): it lays out the whole table, then redraws
            table.apply(policy.act_table(table, seat, policies, streams))   # what the seat cannot see
        else:
            table.apply(policy.act(table.observe(seat), table.legal_actions(), streams[seat]))
    return table


def seat_policies(policy, players: int) -> list:
    """One policy per seat: ``policy`` is one policy for every seat or a sequence of one per seat."""
    if isinstance(policy, (list, tuple)):
        if len(policy) != players:
            raise RunError(f"{players} players need {players} policies, got {len(policy)}")
        return list(policy)
    return [policy] * players


def play(seed: int, index: int, players: int, options: R.RuleOptions | None, policy, *, log: bool = False) -> Table:
    """Game ``index`` of run ``seed`` played to the end (``policy``: one for all seats or one per seat)."""
    policies = seat_policies(policy, players)
    table = Table.deal(seed, index, players, options, log=log, labels=tuple(policy_label(p) for p in policies))
    return play_game(table, policies, seed, index)


def play_chunk(seed: int, start: int, count: int, players: int, options: R.RuleOptions | None, policy):
    """Games ``start .. start+count-1`` of run ``seed`` as outcome arrays by column (``OUTCOME_DTYPES``);
    ``focus_dealt`` is for the rotating focus seat (game i: seat i % players)."""
    rows = [play(seed, start + i, players, options, policy).outcome(-1).columns() for i in range(count)]
    return {column: np.array([row[column] for row in rows], dtype=dtype)
            for column, dtype in R.OUTCOME_DTYPES.items()}


def replay_events(seed: int, index: int, players: int, options: R.RuleOptions | None, policy) -> list[dict]:
    """The events of game ``index`` of run ``seed`` (``turnlog.EVENTS``), in order."""
    return list(play(seed, index, players, options, policy, log=True).events)


def focus_seat_of(index: int, players: int, focus_seat: int = -1) -> int:
    """The focus seat of game ``index``: ``focus_seat``, or (-1, "rotate") ``index % players``."""
    return index % players if focus_seat < 0 else focus_seat


def play_chunk_sides(seed: int, start: int, count: int, players: int, options: R.RuleOptions | None, focus,
                     field, focus_seat: int = -1):
    """As ``play_chunk`` with seats as sides: the focus seat (``focus_seat_of``) plays policy ``focus``,
    every other seat ``field``; the columns of ``OUTCOME_DTYPES`` plus ``focus_seat`` (int8)."""
    rows, seats = [], []
    for i in range(count):
        fs = focus_seat_of(start + i, players, focus_seat)
        policies = [focus if s == fs else field for s in range(players)]
        rows.append(play(seed, start + i, players, options, policies).outcome(focus_seat).columns())
        seats.append(fs)
    out = {column: np.array([row[column] for row in rows], dtype=dtype) for column, dtype in R.OUTCOME_DTYPES.items()}
    out["focus_seat"] = np.array(seats, np.int8)
    return out
