"""The readable reference engine of Curses & Covens: a steppable ``Table`` (one method per rulebook
step, named after it), the Views each side may read, and the entry points ``play_chunk`` and
``replay_events``.

    t = Table.deal(seed, index, players, options)
    while not t.is_over():
        side, town, kind = t.to_move()
        t.apply(policy_of(side).act(t.observe(side, town), t.legal_actions(), stream_of(side)))

``apply`` resumes the game until the next decision; every draw of the deck stream (set-up shuffle,
hunter shuffles, discard orders, hunt picks) happens in the order docs/rules/covens.md ("Order of random
draws") lists, so the kernel can play the same game. Internally the game is a generator: each rule
step ``yield``s a ``Decision`` and receives the action chosen. ``clone()`` replays the recorded actions
on a fresh table built from the same recipe (deal or position), so the copy's streams match too.

Card sets are int bitmasks (bit c = card c); the deck is a list, top first (discards append at the end).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from cursedsim import rng
from cursedsim.errors import OptionError, PlayersError, RunError
from cursedsim.events import make_event, policy_label
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens import tables as TB
from cursedsim.games.intsets import bits, count, mask_of
from cursedsim.games.stepping import ReplayableTable


class IllegalDecision(RunError):
    """A policy returned an action that is not in the legal list."""


class Decision(NamedTuple):
    """A point where a side must act: who, about which town, what kind, the legal actions (ascending).
    ``town`` is the town deciding (-1 for the hunter and the town side's census decisions); ``about`` is
    the town the decision concerns: the town dealt to (D_DEAL), the asker (D_ANSWER), the first give's
    target (D_MORE), the picked town (D_TOWNSFOLK); -1 otherwise."""

    side: int
    town: int
    kind: int
    legal: tuple[int, ...]
    about: int = -1


# ---------------------------------------------------------------- helpers (card sets: cursedsim.games.intsets)


def shuffle_in_place(cards: list[int], stream: rng.Stream) -> None:
    """Fisher-Yates as everywhere in this game: for i from n-1 down to 1, j = below(i+1), swap."""
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def coven_suit(hand: int) -> int:
    """The suit a hand forms a coven of (3 witches of one suit, the wild counting as any), lowest suit
    first; -1 without one. The fake never counts ("The fake witch has no suit")."""
    wild = 1 if hand & TB.WILD_BIT else 0
    for s in range(R.N_SUITS):
        if count(hand & int(TB.SUIT_MASK[s])) + wild >= R.COVEN_SIZE:
            return s
    return -1


def icon_mask(suit: int, fake_casts: bool) -> int:
    """The cards that may fill one icon of ``suit``: its witches, the wild, and the fake if it casts."""
    return int(TB.SUIT_MASK[suit]) | TB.WILD_BIT | (TB.FAKE_BIT if fake_casts else 0)


def can_cast(hand: int, icons, wild_both: bool, fake_casts: bool) -> bool:
    """Whether ``hand`` holds 2 distinct cards matching the 2 icons (one card per icon); with
    ``wild_icons="both"`` the wild alone fills both icons."""
    if wild_both and hand & TB.WILD_BIT:
        return True
    first = hand & icon_mask(int(icons[0]), fake_casts)
    second = hand & icon_mask(int(icons[1]), fake_casts)
    if not first or not second:
        return False
    return not (first == second and count(first) == 1)


# ---------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class View:
    """What every seat may read (the town side's census decisions get exactly this).

    Public: ``round``, ``phase`` (S.PH_*), ``decision`` (S.D_* being asked), ``about`` (Decision.about),
    ``towns``, ``faces`` (face up per tile), ``up_spells`` (spell id of each tile's face-up side),
    ``active_spell`` (-1 none), ``captured`` (true witches in front of the hunter), ``fake_held``,
    ``rituals_held`` (count) and ``ritual_cards`` (their set), ``cards_in_game`` (the deck's 27 or 24
    cards as a set), ``hand_sizes``, ``deck_size``, ``hat`` (-1 before this round's choice),
    ``hunt`` (this Hunt's revealed cards: (source town, card, townsfolk target or -1)),
    ``sizes_after_travel`` (hand sizes when this round's Travel ended; -1s before).
    Census: ``census`` (each town's revealed hand this round; -1s before the reveal).
    Talk: ``announced`` (the gathering town named at the census, -1 none, or hidden from the hunter by
    Despair). ``travel_log``: this round's (actor, kind S.LOG_*, target or -1, cards moved), empty for the
    hunter under Darkness. ``woods_known``: the woods card this seat knows, -1 if none.
    """

    side: int
    decision: int
    about: int
    round: int
    phase: int
    towns: int
    faces: tuple[int, ...]
    up_spells: tuple[int, ...]
    active_spell: int
    captured: int
    fake_held: bool
    rituals_held: int
    ritual_cards: int
    cards_in_game: int
    hand_sizes: tuple[int, ...]
    deck_size: int
    hat: int
    hunt: tuple[tuple[int, int, int], ...]
    sizes_after_travel: tuple[int, ...]
    census: tuple[int, ...]
    announced: int
    travel_log: tuple[tuple[int, int, int, int], ...]
    woods_known: int


@dataclass(frozen=True, slots=True)
class HunterView(View):
    """The hunter's information set: ``dealt`` (cards he gave each town this round), ``deal_left``
    (cards drawn under a ritual not yet given), ``drawn`` (all cards drawn under a ritual this round),
    ``deck_known`` (per deck position, top first: the card he knows is there, else -1)."""

    dealt: tuple[int, ...] = ()
    deal_left: int = 0
    drawn: int = 0
    deck_known: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TownView(View):
    """One town's information set: ``me``, its ``hand``, and this round's ``arrived`` (dealt to it),
    ``gave`` and ``received`` (by give or ask) cards."""

    me: int = -1
    hand: int = 0
    arrived: int = 0
    gave: int = 0
    received: int = 0


# ---------------------------------------------------------------- outcome


@dataclass
class Outcome:
    """One game's outcome, the columns of ``rules.OUTCOME_DTYPES``."""

    winner: int
    win_type: int
    rounds: int
    witches_captured: int
    fake_witch_caught: bool
    rituals_taken: int
    spells: tuple[int, ...]
    cards_left: int
    picks: int

    def columns(self) -> dict[str, Any]:
        cols = {"winner": self.winner, "win_type": self.win_type, "hunter_won": self.winner == R.WINNER_HUNTER,
                "town_won": self.winner == R.WINNER_TOWN, "rounds": self.rounds,
                "witches_captured": self.witches_captured, "fake_witch_caught": self.fake_witch_caught,
                "rituals_taken": self.rituals_taken}
        cols.update({f"spells_{name}": n for name, n in zip(R.SPELL_NAMES, self.spells)})
        cols.update({"cards_left": self.cards_left, "picks": self.picks})
        return cols


# ---------------------------------------------------------------- the table


@dataclass
class Table(ReplayableTable):
    """One game of Curses & Covens, steppable. Build it with ``deal`` (a run's game) or ``from_position``
    (a hand-built position, for tests); then ``to_move``/``legal_actions``/``observe``/``apply``."""

    options: R.RuleOptions
    towns: int
    deck_rng: rng.Stream
    deck: list[int] = field(default_factory=list)
    #: Per deck position (parallel to ``deck``): the card if the hunter knows it is there, else -1.
    deck_known: list[int] = field(default_factory=list)
    woods: int = -1
    hands: list[int] = field(default_factory=list)
    captured: int = 0
    fake_held: bool = False
    rituals: int = 0
    faces: list[int] = field(default_factory=lambda: [R.CHARM] * R.N_TILES)
    round: int = 1
    phase: int = S.PH_CENSUS
    active: int = -1
    cast_tile: int = -1
    hat: int = -1
    announced: int = -1
    census: list[int] | None = None
    dealt: list[int] = field(default_factory=list)
    drawn: int = 0
    deal_left: int = 0
    travel_log: list[tuple[int, int, int, int]] = field(default_factory=list)
    hunt_log: list[tuple[int, int, int]] = field(default_factory=list)
    sizes_after_travel: list[int] | None = None
    arrived: list[int] = field(default_factory=list)
    gave: list[int] = field(default_factory=list)
    received: list[int] = field(default_factory=list)
    town_woods: list[int] = field(default_factory=list)
    hunter_woods: int = -1
    spells: list[int] = field(default_factory=lambda: [0] * R.N_SPELLS)
    picks: int = 0
    winner: int = -1
    win_type: int = -1
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
            raise OptionError(f"options must be a covens RuleOptions, got {type(options).__name__}")
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not (
                R.MIN_PLAYERS <= players <= R.MAX_PLAYERS):
            raise PlayersError(f"covens is played by {R.MIN_PLAYERS}-{R.MAX_PLAYERS} players, got {players!r}")
        towns = int(players) - 1
        table = cls(options=options, towns=towns, deck_rng=rng.Stream(seed, index, S.STREAM_DECK),
                    origin=(seed, index), logging=log)
        table.hands = [0] * towns
        table.town_woods = [-1] * towns
        table.new_round_records()
        return table

    @classmethod
    def deal(cls, seed: int, index: int, players: int = R.DEFAULT_PLAYERS, options: R.RuleOptions | None = None,
             *, log: bool = False, labels: tuple[str, str] = ("", "")) -> Table:
        """Game ``index`` of run ``seed``: the set-up done, stopped at the first decision."""
        table = cls._empty(seed, index, players, options, log)
        table._recipe = ("deal", seed, index, players, options, labels)
        table.set_up(labels)
        table._start(S.PH_CENSUS)
        return table

    @classmethod
    def from_position(cls, *, players: int = R.DEFAULT_PLAYERS, options: R.RuleOptions | None = None,
                      hands=(), deck=(), woods: int = -1, captured=(), fake_held: bool = False, rituals=(),
                      faces=(0, 0, 0), round: int = 1, phase: int = S.PH_CENSUS, cast_tile: int = -1,
                      hat: int = 0, announced: int = -1, seed: int = 0, index: int = 0,
                      log: bool = False) -> Table:
        """A hand-built position (for tests): ``hands`` per town (card lists), ``deck`` top first, the
        ``woods`` card, the hunter's ``captured`` true witches, ``fake_held``, ``rituals`` in front of
        him, tile ``faces``, the ``round``, the ``phase`` it starts at (S.PH_*), the tile cast this round
        (``cast_tile``: its face-up side is active), the ``hat`` holder and the ``announced`` town. The
        census hands of a position starting after the census are the hands given. The deck stream is
        that of (seed, index)."""
        table = cls._empty(seed, index, players, options, log)
        table._recipe = ("position", dict(players=players, options=options, hands=hands, deck=deck, woods=woods,
                                          captured=captured, fake_held=fake_held, rituals=rituals, faces=faces,
                                          round=round, phase=phase, cast_tile=cast_tile, hat=hat,
                                          announced=announced, seed=seed, index=index, log=log))
        if len(hands) != table.towns:
            raise RunError(f"a position at {players} players needs {table.towns} hands, got {len(hands)}")
        every = [c for hand in hands for c in hand] + list(deck) + list(captured) + list(rituals)
        every += ([woods] if woods >= 0 else []) + ([R.FAKE] if fake_held else [])
        if len(set(every)) != len(every) or any(not 0 <= c < table.options.deck_size for c in every):
            raise RunError(f"a position holds each card of the deck at most once, got {sorted(every)}")
        table.hands = [mask_of(h) for h in hands]
        table.deck = list(deck)
        table.deck_known = [-1] * len(deck)
        table.woods = woods
        table.captured = mask_of(captured)
        table.fake_held = fake_held
        table.rituals = mask_of(rituals)
        table.faces = list(faces)
        table.round = round
        table.cast_tile = cast_tile
        table.active = table.spell_of(cast_tile) if cast_tile >= 0 else -1
        if phase > S.PH_CENSUS:
            table.census = list(table.hands)
            table.hat = hat
            table.announced = announced
        table._start(phase)
        return table

    def _start(self, phase: int) -> None:
        self._game = self.play(phase)
        self._advance(None)

    # ------------------------------------------------------------ stepping

    def to_move(self) -> tuple[int, int, int]:
        """(side S.SIDE_*, deciding town or -1, decision kind S.D_*); (-1, -1, D_NONE) once over."""
        if self._pending is None:
            return (-1, -1, S.D_NONE)
        return (self._pending.side, self._pending.town, self._pending.kind)

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
        return self.winner >= 0

    def outcome(self) -> Outcome:
        if not self.is_over():
            raise RunError("the game is not over yet")
        return Outcome(winner=self.winner, win_type=self.win_type, rounds=self.round,
                       witches_captured=self.witches_in_front(), fake_witch_caught=self.fake_held,
                       rituals_taken=count(self.rituals), spells=tuple(self.spells), cards_left=len(self.deck),
                       picks=self.picks)

    # ------------------------------------------------------------ views

    def observe(self, side, town: int = -1) -> View:
        """The View of ``side`` ("hunter"/"town" or S.SIDE_*): the hunter's, one town's (``town`` >= 0),
        or the town side's census view (``town`` = -1)."""
        side = R.SIDES.index(side) if isinstance(side, str) else int(side)
        pending = self._pending
        census = tuple(self.census) if self.census is not None else (-1,) * self.towns
        hunter = side == S.SIDE_HUNTER
        darkness = self.active == R.DARKNESS
        common = dict(
            side=side, decision=pending.kind if pending else S.D_NONE, about=pending.about if pending else -1,
            round=self.round, phase=self.phase, towns=self.towns, faces=tuple(self.faces),
            up_spells=tuple(self.spell_of(t) for t in range(R.N_TILES)), active_spell=self.active,
            captured=self.captured, fake_held=self.fake_held, rituals_held=count(self.rituals),
            ritual_cards=self.rituals, cards_in_game=(1 << self.options.deck_size) - 1,
            hand_sizes=tuple(count(h) for h in self.hands), deck_size=len(self.deck), hat=self.hat,
            hunt=tuple(self.hunt_log),
            sizes_after_travel=tuple(self.sizes_after_travel or (-1,) * self.towns), census=census,
            announced=-1 if hunter and self.active == R.DESPAIR else self.announced,
            travel_log=() if hunter and darkness else tuple(self.travel_log))
        if hunter:
            return HunterView(**common, woods_known=self.hunter_woods, dealt=tuple(self.dealt),
                              deal_left=self.deal_left, drawn=self.drawn, deck_known=tuple(self.deck_known))
        if town < 0:
            return View(**common, woods_known=-1)
        return TownView(**common, woods_known=self.town_woods[town], me=town, hand=self.hands[town],
                        arrived=self.arrived[town], gave=self.gave[town], received=self.received[town])

    # ------------------------------------------------------------ facts of the position

    def spell_of(self, tile: int) -> int:
        """The spell id of ``tile``'s face-up side."""
        backs = S.option_tuple(self.options)[S.OPT_DARKNESS_BACKS]
        return int(TB.TILE_SPELL[backs, tile, self.faces[tile]])

    def icons_of(self, spell: int):
        opts = S.option_tuple(self.options)
        return TB.SPELL_ICONS[opts[S.OPT_SPELL_ICONS], opts[S.OPT_DARKNESS_BACKS], spell]

    def castable_tiles(self) -> list[int]:
        """Tiles whose face-up side some town's revealed hand can cast (never the disabled_spell)."""
        wild_both = self.options.wild_icons == "both"
        allowed = [tile for tile in range(R.N_TILES)
                   if R.SPELL_NAMES[self.spell_of(tile)] != self.options.disabled_spell]
        return [tile for tile in allowed
                if any(can_cast(hand, self.icons_of(self.spell_of(tile)), wild_both, self.options.fake_casts)
                       for hand in self.hands)]

    def witches_in_front(self) -> int:
        """Witches in front of the hunter: the true witches he holds, plus the fake if he holds it."""
        return count(self.captured) + (1 if self.fake_held else 0)

    def others(self, town: int) -> list[int]:
        return [u for u in range(self.towns) if u != town]

    # ------------------------------------------------------------ events

    def record(self, actor: str, action: str, cards=(), **fields) -> None:
        """Add an event (``turnlog.EVENTS``) with the state after it, when the table keeps a log."""
        if self.logging:
            self.events.append(make_event(self.origin, len(self.events), self.round, actor, action, cards,
                                          fields, self.summary()))

    def summary(self) -> dict:
        """The state every event carries (omniscient: the log is for the researcher)."""
        return {"hands": [bits(h) for h in self.hands], "woods": self.woods, "deck": len(self.deck),
                "captured": bits(self.captured) + ([R.FAKE] if self.fake_held else []),
                "rituals": bits(self.rituals), "faces": list(self.faces),
                "active": R.SPELL_NAMES[self.active] if self.active >= 0 else None, "hat": self.hat}

    # ------------------------------------------------------------ deck

    def draw(self) -> int:
        """The top card of the deck (-1 if empty: "ignore drawing cards")."""
        if not self.deck:
            return -1
        self.deck_known.pop(0)
        return self.deck.pop(0)

    def to_bottom(self, cards: int, hunter_sees: bool) -> list[int]:
        """Put a card set face-down at the bottom: ascending, then (discard_order "random") Fisher-Yates on
        the deck stream; the first ends up nearest the top. Returns the order."""
        order = bits(cards)
        if self.options.discard_order == "random":
            shuffle_in_place(order, self.deck_rng)
        self.deck.extend(order)
        self.deck_known.extend(order if hunter_sees else [-1] * len(order))
        return order

    # ------------------------------------------------------------ set-up

    def set_up(self, labels: tuple[str, str]) -> None:
        """Set Up 2-3: shuffle all cards, hide the top one in the woods (the hunter looks at it), deal 2
        to each town round-robin from town 0."""
        self.deck = list(range(self.options.deck_size))
        shuffle_in_place(self.deck, self.deck_rng)
        self.deck_known = [-1] * len(self.deck)
        self.woods = self.draw()
        self.hunter_woods = self.woods
        for _ in range(R.HAND_AT_SETUP):
            for t in range(self.towns):
                self.hands[t] |= 1 << self.draw()
        self.record("rule", "setup", [self.woods], towns=self.towns, hunter=labels[0], town=labels[1],
                    options={f.name: getattr(self.options, f.name) for f in dataclasses.fields(self.options)})

    # ------------------------------------------------------------ the game

    def play(self, start: int):
        """The game from ``start`` (a phase of the current round) to its end: Census, Arrival, Travel,
        Hunt, repeated (a generator of Decisions)."""
        phase = start
        while True:
            if phase <= S.PH_CENSUS:
                yield from self.census_phase()
                if self.is_over():
                    return
            if phase <= S.PH_ARRIVAL:
                yield from self.arrival_phase()
            if phase <= S.PH_TRAVEL:
                yield from self.travel_phase()
            yield from self.hunt_phase()
            if self.is_over():
                return
            self.conclude_hunt()
            if self.is_over():
                return
            phase = S.PH_CENSUS

    def finish(self, winner: int, win_type: int, town: int = -1, suit: int = -1) -> None:
        """The game ends (a coven names its town and suit)."""
        self.winner, self.win_type = winner, win_type
        self.phase = S.PH_OVER
        self.record("rule", "end", winner=R.WINNER_NAMES[winner], win_type=R.WIN_TYPE_NAMES[win_type],
                    town=town if town >= 0 else None, suit=R.SUIT_NAMES[suit] if suit >= 0 else None)

    def new_round_records(self) -> None:
        """What a round's views hold, cleared: census, talk, hat, deals, travel log, hunt, private notes."""
        self.census = None
        self.announced = -1
        self.hat = -1
        self.dealt = [0] * self.towns
        self.drawn = 0
        self.deal_left = 0
        self.travel_log = []
        self.hunt_log = []
        self.sizes_after_travel = None
        self.arrived = [0] * self.towns
        self.gave = [0] * self.towns
        self.received = [0] * self.towns

    # ------------------------------------------------------------ 1. Census

    def census_phase(self):
        """1. Census: (shuffle offer with census_and_arrival), draw if empty, reveal and check the coven,
        cast a spell, communicate, choose the first Town Player."""
        self.phase = S.PH_CENSUS
        self.record("rule", "round", round=self.round)
        if self.options.shuffle_timing == "census_and_arrival":
            yield from self.offer_shuffle()
        self.draw_if_empty()
        if self.check_town_win():
            return
        yield from self.cast_a_spell()
        yield from self.communicate()
        yield from self.choose_first_player()

    def offer_shuffle(self):
        """"The Witch Hunter may shuffle the deck at any time": D_SHUFFLE when the deck holds >= 2 cards;
        a shuffle is Fisher-Yates over the deck, top to bottom, on the deck stream."""
        if len(self.deck) < 2:
            return
        action = yield Decision(S.SIDE_HUNTER, -1, S.D_SHUFFLE, (S.A_YES, S.A_NO))
        if action == S.A_YES:
            shuffle_in_place(self.deck, self.deck_rng)
            self.deck_known = [-1] * len(self.deck)
        self.record("hunter", "shuffle", shuffled=action == S.A_YES)

    def draw_if_empty(self) -> None:
        """"At the start of the Census phase, if a Town Player has no cards, they draw 1 from the top of
        the deck" (towns 0..T-1; nothing when the deck is empty)."""
        for t in range(self.towns):
            if self.hands[t] == 0 and self.deck:
                card = self.draw()
                self.hands[t] |= 1 << card
                self.record(f"town {t}", "census_draw", [card], town=t)

    def check_town_win(self) -> bool:
        """"Each Town Player must reveal their hand ... If any one Town Player reveals 3 witches of the
        same suit, they form a Coven and the Town Players win" (first town in order, lowest suit)."""
        self.census = list(self.hands)
        self.record("rule", "reveal", [c for h in self.hands for c in bits(h)])
        for t in range(self.towns):
            suit = coven_suit(self.hands[t])
            if suit >= 0:
                self.finish(R.WINNER_TOWN, R.WIN_COVEN, town=t, suit=suit)
                return True
        return False

    def cast_a_spell(self):
        """"If a Town Player has revealed 2 witch cards that match the 2 icons on one of the face-up spell
        tiles, they may cast that spell" -- "Only 1 spell ... chosen by the Town Players as a group":
        D_SPELL (A_SPELL + tile, A_NO) only when some side is castable."""
        tiles = self.castable_tiles()
        if not tiles:
            return
        action = yield Decision(S.SIDE_TOWN, -1, S.D_SPELL, tuple(S.A_SPELL + t for t in tiles) + (S.A_NO,))
        if action == S.A_NO:
            self.record("town", "no_spell")
            return
        self.cast_tile = action - S.A_SPELL
        self.active = self.spell_of(self.cast_tile)
        self.spells[self.active] += 1
        self.record("town", "cast", tile=self.cast_tile, spell=R.SPELL_NAMES[self.active])

    def communicate(self):
        """"The Town Players can discuss the strategies ... They may lie": the plan announced, as a town
        ("we gather at u") or none (A_NO). The hunter does not hear it under Despair."""
        action = yield Decision(S.SIDE_TOWN, -1, S.D_ANNOUNCE,
                                tuple(S.A_TOWN + u for u in range(self.towns)) + (S.A_NO,))
        self.announced = action - S.A_TOWN if action != S.A_NO else -1
        self.record("town", "announce", gather=self.announced, heard=self.active != R.DESPAIR)

    def choose_first_player(self):
        """"The Town Players give the witch's hat to the Town player they want to go first"."""
        action = yield Decision(S.SIDE_TOWN, -1, S.D_HAT, tuple(S.A_TOWN + u for u in range(self.towns)))
        self.hat = action - S.A_TOWN
        self.record("town", "hat", town=self.hat)

    # ------------------------------------------------------------ 2. Arrival

    def arrival_phase(self):
        """2. Arrival, twice under the Charm of Growth ("Perform the Arrival phase twice"); each starts
        with the shuffle offer (shuffle_timing "arrival" or "census_and_arrival")."""
        self.phase = S.PH_ARRIVAL
        for _ in range(2 if self.active == R.GROWTH else 1):
            if self.options.shuffle_timing != "never":
                yield from self.offer_shuffle()
            if self.rituals:
                yield from self.ritual_arrival()
            else:
                self.arrival()

    def arrival(self) -> None:
        """"Draws a card from the top of the deck ... gives it face-down to the Town Player on their left
        ... clockwise": towns 0..T-1 while cards last (short_deck_arrival "deal_none": nobody gets one when
        the deck holds fewer cards than towns)."""
        if self.options.short_deck_arrival == "deal_none" and len(self.deck) < self.towns:
            self.record("rule", "arrival_none", deck=len(self.deck))
            return
        for t in range(self.towns):
            card = self.draw()
            if card < 0:
                break
            self.give_arrival(t, card)

    def give_arrival(self, town: int, card: int) -> None:
        self.hands[town] |= 1 << card
        self.dealt[town] |= 1 << card
        self.arrived[town] |= 1 << card
        self.record("hunter", "arrive", [card], town=town)

    def ritual_arrival(self):
        """"If there is a ritual card in front of the Witch Hunter, they instead draw cards equal to the
        number of Town Players ... then give 1 card of their choosing to each": he draws min(T, deck)
        (none when short under "deal_none"), then D_DEAL for towns 0..T-1 while cards remain; A_NO only
        when fewer cards remain than towns still to serve."""
        n = min(self.towns, len(self.deck))
        if self.options.short_deck_arrival == "deal_none" and len(self.deck) < self.towns:
            n = 0
        drawn = [self.draw() for _ in range(n)]
        self.drawn |= mask_of(drawn)
        self.deal_left = mask_of(drawn)
        self.record("hunter", "ritual_draw", drawn)
        for t in range(self.towns):
            if not self.deal_left:
                break
            legal = tuple(S.A_CARD + c for c in bits(self.deal_left))
            if count(self.deal_left) < self.towns - t:
                legal += (S.A_NO,)
            action = yield Decision(S.SIDE_HUNTER, -1, S.D_DEAL, legal, about=t)
            if action == S.A_NO:
                self.record("hunter", "deal_none", town=t)
                continue
            card = action - S.A_CARD
            self.deal_left &= ~(1 << card)
            self.give_arrival(t, card)

    # ------------------------------------------------------------ 3. Travel

    def travel_phase(self):
        """3. Travel, twice under the Charm of Nature; "Starting with the player with the witch's hat, and
        going clockwise ... each Town player must take 1 of the following actions". The second Travel of
        Nature starts at the hat again (nature_restart) or at the town on its left."""
        self.phase = S.PH_TRAVEL
        if self.active == R.DARKNESS:
            self.hunter_woods = -1   # he cannot see whether the woods card moves
        for n in range(2 if self.active == R.NATURE_SPELL else 1):
            start = self.hat if n == 0 or self.options.nature_restart else (self.hat + 1) % self.towns
            self.record("rule", "travel", first=start)
            for i in range(self.towns):
                yield from self.town_action((start + i) % self.towns)
        self.sizes_after_travel = [count(h) for h in self.hands]

    def travel_legal(self, a: int) -> tuple[int, ...]:
        """Give (only with >= 2 cards: "NEVER allowed to give away your last card"), ask (any other town;
        one holding no card only with ask_empty), swap (any own card); pass only when nothing else is."""
        hand = self.hands[a]
        legal = []
        if count(hand) >= 2:
            legal += [S.give(c, u) for c in bits(hand) for u in self.others(a)]
        legal += [S.A_ASK + u for u in self.others(a) if self.options.ask_empty or self.hands[u]]
        legal += [S.A_SWAP + c for c in bits(hand)]
        return tuple(legal) if legal else (S.A_NO,)

    def town_action(self, a: int):
        """One town's Travel action: give, ask, swap (or pass when none is open)."""
        action = yield Decision(S.SIDE_TOWN, a, S.D_TRAVEL, self.travel_legal(a))
        if action < S.A_ASK:
            card, u = divmod(action - S.A_GIVE, S.MAX_TOWNS)
            self.give(a, card, u)
            if self.active == R.PASSAGE:
                yield from self.give_more(a, u)
        elif action < S.A_SWAP:
            yield from self.ask(a, action - S.A_ASK)
        elif action < S.A_CARD:
            self.swap(a, action - S.A_SWAP)
        else:
            self.travel_log.append((a, S.LOG_PASS, -1, 0))
            self.record(f"town {a}", "pass", town=a)

    def move(self, source: int, card: int, target: int) -> None:
        self.hands[source] &= ~(1 << card)
        self.hands[target] |= 1 << card
        self.gave[source] |= 1 << card
        self.received[target] |= 1 << card

    def give(self, a: int, card: int, u: int) -> None:
        """"Choose 1 card in your hand and give it face-down to another Town Player"."""
        self.move(a, card, u)
        self.travel_log.append((a, S.LOG_GIVE, u, 1))
        self.record(f"town {a}", "give", [card], town=a, to=u)

    def give_more(self, a: int, u: int):
        """Charm of Passage: "Town Players may give more than 1 card": D_MORE while ``a`` holds >= 2
        cards, to ``u`` again (passage_targets "one_town") or to any other town; A_NO stops."""
        while count(self.hands[a]) >= 2:
            targets = [u] if self.options.passage_targets == "one_town" else self.others(a)
            legal = tuple(S.give(c, v) for c in bits(self.hands[a]) for v in targets) + (S.A_NO,)
            action = yield Decision(S.SIDE_TOWN, a, S.D_MORE, legal, about=u)
            if action == S.A_NO:
                return
            card, v = divmod(action - S.A_GIVE, S.MAX_TOWNS)
            self.give(a, card, v)

    def ask(self, a: int, u: int):
        """"Ask another Town Player to choose and give you 1 card ... They must do so, unless they only
        have 1 card in hand": D_ANSWER for ``u`` when it holds >= 2 cards."""
        if count(self.hands[u]) < 2:
            self.travel_log.append((a, S.LOG_ASK, u, 0))
            self.record(f"town {a}", "ask", town=a, to=u, moved=0)
            return
        action = yield Decision(S.SIDE_TOWN, u, S.D_ANSWER, tuple(S.A_CARD + c for c in bits(self.hands[u])),
                                about=a)
        card = action - S.A_CARD
        self.move(u, card, a)
        self.travel_log.append((a, S.LOG_ASK, u, 1))
        self.record(f"town {a}", "ask", [card], town=a, to=u, moved=1)

    def swap(self, a: int, card: int) -> None:
        """"Choose 1 card from your hand, then swap it face-down with the card hidden in the woods"."""
        took = self.woods
        self.hands[a] = (self.hands[a] & ~(1 << card)) | (1 << took)
        self.woods = card
        self.town_woods = [card if t == a else -1 for t in range(self.towns)]
        self.hunter_woods = -1
        self.travel_log.append((a, S.LOG_SWAP, -1, 1))
        self.record(f"town {a}", "swap", [card, took], town=a)

    # ------------------------------------------------------------ 4. Hunt

    def hunt_phase(self):
        """4. Hunt: two picks ("Repeat this process for your second pick"); under the Curse of Doom both
        from the town he names (D_DOOM)."""
        self.phase = S.PH_HUNT
        if self.active == R.DOOM:
            yield from self.doom_hunt()
            return
        for _ in range(R.PICKS_PER_HUNT):
            yield from self.pick()
            if self.is_over():
                return

    def doom_hunt(self):
        """Curse of Doom: "the Witch Hunter chooses 1 Town Player and must pick twice from them". A town
        named empty (doom_empty) loses both picks; a town emptied by the first pick: doom_second_pick."""
        candidates = [u for u in range(self.towns) if self.options.doom_empty or self.hands[u]]
        if not candidates:
            return
        action = yield Decision(S.SIDE_HUNTER, -1, S.D_DOOM, tuple(S.A_TOWN + u for u in candidates))
        u = action - S.A_TOWN
        self.record("hunter", "doom", town=u)
        if not self.hands[u]:
            return
        for n in range(R.PICKS_PER_HUNT):
            if self.hands[u]:
                yield from self.pick_from(u)
            elif n > 0 and self.options.doom_second_pick == "any_town":
                yield from self.pick()
            if self.is_over():
                return

    def pick(self):
        """"To pick a card, choose a Town Player": D_PICK among towns holding a card (none: no pick)."""
        towns = [u for u in range(self.towns) if self.hands[u]]
        if not towns:
            return
        action = yield Decision(S.SIDE_HUNTER, -1, S.D_PICK, tuple(S.A_TOWN + u for u in towns))
        yield from self.pick_from(action - S.A_TOWN)

    def pick_from(self, u: int):
        """"Picks one card at random, reveals it to everyone, and resolves" it: k = below(n) on the deck
        stream, the k-th card of the hand in ascending code."""
        cards = bits(self.hands[u])
        card = cards[self.deck_rng.below(len(cards))]
        self.hands[u] &= ~(1 << card)
        self.picks += 1
        kind = int(TB.CARD_KIND[card])
        if kind == R.KIND_FOLK:
            yield from self.resolve_townsfolk(u, card)
            return
        self.hunt_log.append((u, card, -1))
        self.record("hunter", "pick", [card], town=u, kind=R.KIND_NAMES[kind])
        if kind == R.KIND_RITUAL:
            self.keep_ritual(card)
        elif kind == R.KIND_FAKE:
            self.catch_fake(u)
        else:
            self.capture_witch(u, card)

    def resolve_townsfolk(self, u: int, card: int):
        """"Townsfolk: The Witch Hunter gives this card to a different Town Player" (townsfolk_to
        "other_town"; "any_town" reads the reference card's "a different player")."""
        targets = self.others(u) if self.options.townsfolk_to == "other_town" else list(range(self.towns))
        self.hunt_log.append((u, card, -1))
        self.record("hunter", "pick", [card], town=u, kind=R.KIND_NAMES[R.KIND_FOLK])
        action = yield Decision(S.SIDE_HUNTER, -1, S.D_TOWNSFOLK, tuple(S.A_TOWN + v for v in targets), about=u)
        v = action - S.A_TOWN
        self.hands[v] |= 1 << card
        self.hunt_log[-1] = (u, card, v)
        self.record("hunter", "townsfolk", [card], town=u, to=v)

    def flee(self, u: int) -> None:
        """"The Town Player from whom this card was taken must discard all their remaining cards
        face-down to the bottom of the deck"."""
        hand, self.hands[u] = self.hands[u], 0
        if hand:
            order = self.to_bottom(hand, hunter_sees=False)
            self.record(f"town {u}", "flee", order, town=u)

    def capture_witch(self, u: int, card: int) -> None:
        """"The Witch Hunter captures the witch ... If this is the fifth witch card ... they immediately
        win" (the fake in front of him counts toward the 5)."""
        self.captured |= 1 << card
        self.flee(u)
        if self.witches_in_front() >= R.CAPTURES_TO_WIN:
            self.finish(R.WINNER_HUNTER, R.WIN_CAPTURE)

    def keep_ritual(self, card: int) -> None:
        """"The Witch Hunter places this card face-up in front of themself. If this is their second ritual
        card, the Town Players immediately win"."""
        self.rituals |= 1 << card
        if count(self.rituals) >= R.RITUALS_TO_WIN:
            self.finish(R.WINNER_TOWN, R.WIN_RITUAL)

    def catch_fake(self, u: int) -> None:
        """Fake witch: captured, the town's hand flees, then "all other captured witches then immediately
        escape ... discarded face-down to the bottom of the deck" (he sees which: positions he knows)."""
        self.fake_held = True
        self.flee(u)
        escaped, self.captured = self.captured, 0
        if escaped:
            order = self.to_bottom(escaped, hunter_sees=True)
            self.record("rule", "escape", order)

    def conclude_hunt(self) -> None:
        """"At the end of the Hunt phase, turn over any spell tile that was cast this round"; then the next
        round (or the end: max_rounds rounds played, "unfinished")."""
        if self.cast_tile >= 0:
            self.faces[self.cast_tile] ^= 1
            self.record("rule", "flip", tile=self.cast_tile, spell=R.SPELL_NAMES[self.spell_of(self.cast_tile)])
        self.cast_tile = -1
        self.active = -1
        if self.round >= self.options.max_rounds:
            self.finish(R.WINNER_NONE, R.WIN_UNFINISHED)
            return
        self.round += 1
        self.new_round_records()


# ---------------------------------------------------------------- entry points


def play_game(table: Table, hunter, town, seed: int, index: int) -> Table:
    """Play ``table`` to the end: each decision to the side's policy with its View, legal list and
    stream (hunter: stream 1, town: stream 2 of (seed, index))."""
    streams = (rng.Stream(seed, index, S.STREAM_HUNTER), rng.Stream(seed, index, S.STREAM_TOWN))
    policies = (hunter, town)
    while not table.is_over():
        side, seat, _ = table.to_move()
        on_table = getattr(policies[side], "act_on_table", None)   # a search lays out the whole game
        if on_table is not None:
            table.apply(on_table(table, table.legal_actions(), streams[side]))
        else:
            table.apply(policies[side].act(table.observe(side, seat), table.legal_actions(), streams[side]))
    return table


def play(seed: int, index: int, players: int, options: R.RuleOptions, hunter, town, *, log: bool = False,
         labels=None) -> Table:
    """Game ``index`` of run ``seed`` played to the end by the two policies; ``labels``: the policies' names
    for the log, a (hunter, town) pair or a side -> name mapping (default: their ``label``)."""
    if isinstance(labels, Mapping):
        labels = (labels.get("hunter", ""), labels.get("town", ""))
    labels = tuple(labels) if labels else (policy_label(hunter), policy_label(town))
    table = Table.deal(seed, index, players, options, log=log, labels=labels)
    return play_game(table, hunter, town, seed, index)


def play_chunk(seed: int, start: int, count: int, players: int, options: R.RuleOptions, hunter, town):
    """Games ``start .. start+count-1`` of run ``seed``, as outcome arrays by column (``OUTCOME_DTYPES``)."""
    rows = [play(seed, start + i, players, options, hunter, town).outcome().columns() for i in range(count)]
    return {column: np.array([row[column] for row in rows], dtype=dtype)
            for column, dtype in R.OUTCOME_DTYPES.items()}


def replay_events(seed: int, index: int, players: int, options: R.RuleOptions, hunter, town,
                  labels=None) -> list[dict]:
    """The events of game ``index`` of run ``seed`` (``turnlog.EVENTS``), in order."""
    return list(play(seed, index, players, options, hunter, town, log=True, labels=labels).events)
