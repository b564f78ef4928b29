"""The readable reference engine of So, You've Been Cursed. (the oracle a compiled kernel will be compared
with): a steppable ``Table`` and ``play(seed, index, options) -> Table``. Rule numbers (V1.1, ...) and
open points (O1, ...) are those of docs/rules/village.md.

Plays now: the 0-player mode (``automata``, V15): the Possessed Wizard (V14, decision procedure in
``automata.py``) against the Rabid Monster (V13, ``automata.py``), to a win (V12.1 Cure top, V12.2 Curse
top, checked the instant a track moves) or to the turn cap (O1 ``max_turns``: ``unfinished``).

Plays now, the Monster player (``monster_player.py``; V6-V9, V14.13 and the readings M1-M17 of
docs/rules/village.md): its set-up (4 Powers, Town Guard tiles from stream 9, Energy 0) and its whole turn,
Quiet Night or Feeding (movements, Town Guard tiles, eating, Energy and its uses, Power cards with their
requirements, single-use cards, the end of the turn), every choice asked of its controller
(``monster_policies``: ``MonsterRandom``, ``Glutton``), in ``possessed_wizard`` (and its side of ``duel``);
options O2, O7-O11.

Plays now, the Wizard player (``wizard_player.py``; V1.10, V2.3, V3, V4, V5, V10, V13.1-V13.2 and the
readings W1-W12 of docs/rules/village.md): its hand of 4 Spells and its whole turn (arrival with its house
choice, Buy at a house or the Market, Mix Cure, Cast Spell with requirements and every Spell effect, Steal
with the declared amount, the d6 and the distraction, moves paid in coins or with an action, discards, Box
of Holding, the end-of-turn refill), every choice asked of its controller (``wizard_policies``:
``WizardRandom``, ``Planner``), in ``rabid_monster`` (drawing and laying the Rabid Monster cards) and its
side of ``duel``; options O3, O5, O6, O16, O17.

    t = Table.deal(seed, index, options, board=board)
    while not t.is_over():
        t.step()                     # one side's turn (V1.2: Wizard first, then alternate)
    t.outcome()                      # the columns of rules.OUTCOME_DTYPES

Randomness: one ``cursedsim.rng.Stream(seed, index, stream_id)`` per purpose (ids ``STREAM_*`` below),
so e.g. a different d6 roll never changes which villager arrives. Draws per stream, in game order:

- ``STREAM_BAG`` (0): a villager from the bag, ``below(tokens in the bag)`` mapped onto the types in
  component order (Farmer..Noble) by their counts: set-up houses 1..20 in order (V1.8), each arrival
  (V2.2), Hypnotize (S09, random pick);
- ``STREAM_D20`` (1): each d20 roll ``below(20) + 1``: arrivals (V2.2, right after the villager's bag
  draw), Hypnotize, Monstrous Leap (d20_house), A Taste of Rural Life (two rolls);
- ``STREAM_D6`` (2): each Steal roll at an occupied house ``below(6) + 1`` (V3.11);
- ``STREAM_SPELL`` (3): the Spell deck's set-up shuffle and each reshuffle of its discard pile;
- ``STREAM_POWER`` (4): the same for the Power deck;
- ``STREAM_POSSESSED`` (5): the Possessed Wizard deck's shuffle at set-up (V1.13) and at the end of each
  Wizard turn (V14.5);
- ``STREAM_RABID`` (6): the Rabid Monster cards' shuffle at the start of each Monster turn (O12); against
  a Wizard player, the shuffle of all 12 after its arrival, before its actions (V13.1).

A shuffle is Fisher-Yates (i from n-1 down to 1, j = below(i+1), swap); the top of a deck is the list's
last element.

Readings of this engine (beyond the options of rules.RuleOptions), each a doubt worth a designer's word:

- Cure: 0 = the Cure tile beside the Wizard board (V1.12), k = k-th space of the Cure sequence; the
  Wizard wins at ``len(cure sequence)``. Curse: from the board's ``curse_start``; the Monster wins at
  ``curse_length`` (the top space). Panic stays in [panic start, panic length].
- The Greedy Coachman (P06, discard_on cast_spell) is discarded by the Cast Spell *card action* only
  (V14.11), not by the spell the Possessed Wizard casts at the start of its turn (V14.1: not an action).
- Monstrous Leap (single-use) is used at once by the Rabid Monster (d20 house) when developed.
- Digestive Mutton Chop adds its Curse the instant the first sheep of the turn is eaten.
- Hypnotize onto an occupied house: the Possessed Wizard's closest-empty-house rule (V2.4, V2.6).
- The Mix Cure condition (V14.2) "holding 1 or 2 ingredients that match the last 1 or 2 steps" is read
  as: 1 or 2 steps remain and the held ingredients contain both/it.
- Outcome ``fired_extra_action`` / ``fired_extra_feeding_card`` count the Wizard turns at whose end the
  extra Possessed Wizard card was drawn (O26 at_draw: that is when the effect acts); ``fired_stay_inside``
  the Wizard turns whose arrival it skipped; ``first_*`` the turn number (1 = the Wizard's first turn).
- O12 ``possessed_cards``: the hunted villagers are those of every Possessed Wizard card taken from the
  row this turn, a card discarded unused by a Mix Cure (V14.3) included.
- The 0-player game has no Wizard hand and no Monster hand (no refill: V5.1 and V9.5 are players' rules).

Every mode plays: the automata make their sides' choices; a player side's choices go through
``Table.choose`` to its controller (wizard_policies.py, monster_policies.py). The table steps by whole
turns (``step``); a step API with ``apply``/``legal_actions``/``observe`` per decision is issue 14.
``clone()`` is a deep copy (the streams are copied with the state). The compiled twin is ``kernel.py``
(tests/test_village_differential*.py compare them game by game).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.events import make_event
from cursedsim.games.village import automata as A
from cursedsim.games.village import board as B
from cursedsim.games.village import cards as K
from cursedsim.games.village import components as C
from cursedsim.games.village import rules as R

STREAM_BAG = 0
STREAM_D20 = 1
STREAM_D6 = 2
STREAM_SPELL = 3
STREAM_POWER = 4
STREAM_POSSESSED = 5
STREAM_RABID = 6
STREAM_WIZARD_POLICY = 7
STREAM_MONSTER_POLICY = 8
STREAM_GUARDS = 9
STREAMS = ("bag", "d20", "d6", "spell", "power", "possessed", "rabid", "wizard_policy", "monster_policy",
           "guards")
#: The stream a side's policy draws from (a random policy's choices never move the game's dice).
POLICY_STREAM = {R.WIZARD: STREAM_WIZARD_POLICY, R.MONSTER: STREAM_MONSTER_POLICY}

SHEEP = "Sheep"
EMPTY = -1


def shuffle_in_place(cards: list, stream: rng.Stream) -> None:
    """Fisher-Yates: i from n-1 down to 1, j = below(i+1), swap."""
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@dataclass
class Table:
    """One game, steppable by sides' turns. Build it with ``deal``; ``step()`` plays one turn."""

    board: B.Board
    options: R.RuleOptions
    mode: str
    origin: tuple
    logging: bool
    streams: list
    #: side -> the player's controller (``act(table, side, decision, legal, stream) -> action``); None for
    #: a side played by its automaton (automata.py)
    controllers: dict = field(default_factory=dict)
    # the map
    arrays: dict = field(repr=False, default_factory=dict)
    cure_seq: tuple = ()
    curse_top: int = 0
    curse_min: int = 0
    panic_min: int = 1
    panic_top: int = 10
    panic_from: tuple = ()                  # level each Panic effect starts at, components.PANIC_EFFECTS order
    # the state
    houses: list = field(default_factory=list)       # [21]: villager type index or EMPTY, [0] unused
    bag: list = field(default_factory=list)          # villager tokens in the bag, per type
    sheep: list = field(default_factory=list)        # per pasture
    at: int = 0                                      # the shared token's location (V1.4)
    panic: int = 1
    cure: int = 0
    curse: int = 0
    coins: int = C.WIZARD_START_COINS
    held: list = field(default_factory=list)         # the Wizard's ingredients (INGREDIENTS indices)
    stomach: list = field(default_factory=list)      # slots, each a list of kinds (villager name or Sheep)
    spell_deck: list = field(default_factory=list)
    spell_discard: list = field(default_factory=list)
    power_deck: list = field(default_factory=list)
    power_discard: list = field(default_factory=list)
    in_front_of_wizard: list = field(default_factory=list)   # ongoing Power cards placed there (Greedy Coachman)
    pw_deck: list = field(default_factory=list)
    pw_row: list = field(default_factory=list)       # below the Wizard's board: next turn's actions (V14.5)
    pw_feeding: list = field(default_factory=list)   # next to the Monster board: feeding effects (V14.13)
    pw_used: list = field(default_factory=list)      # cards used for the Wizard's actions this turn (O12)
    rm_cards: list = field(default_factory=list)
    # ---- the Wizard player's fields (wizard_player.py)
    spell_hand: list = field(default_factory=list)   # the Wizard player's Spell cards (V1.10, V5.1), in draw order
    in_front_of_monster: list = field(default_factory=list)  # ongoing cards in front of the Monster (V3.7, V8.3)
    rm_deck: list = field(default_factory=list)      # Rabid Monster cards left after this turn's draw (V13.1)
    rm_drawn: list = field(default_factory=list)     # the 4 drawn for the Wizard player's turn, None once used
    rm_used: list = field(default_factory=list)      # those used, in the order of their actions (V13.2)
    wizard_actions_left: int = 0                     # actions left in the Wizard player's turn (V3.1, V10.1)
    wizard_pending: tuple = ()                       # the action a sub-decision belongs to (wizard_player.py)
    # ---- end of the Wizard player's fields
    # ---- the Monster player's fields (monster_player.py)
    energy: int = 0                                  # the Monster player's Energy 0..9 (V7.9, V7.10)
    power_hand: list = field(default_factory=list)   # the Monster player's Power cards (V1.11, V9.5), in draw order
    guards: list = field(default_factory=list)       # per guard slot (board guard_slot): tile code, -1 when none
    guards_revealed: list = field(default_factory=list)  # guard slots revealed, in order (V7.4)
    m_visited: list = field(default_factory=list)    # locations visited this Monster turn (V8.2, O10)
    m_new_moon: bool = False                         # New Moon played this turn: no tile revealed
    m_actions: int = 0                               # Feeding actions left this turn (V7.1, Midnight Snack)
    m_moves: int = 0                                 # movements left in this action's moving phase (V7.2)
    m_moving: bool = False                           # the moving phase of the current action is open (V7.3)
    m_guard_debt: int = 0                            # O11 carry_over: movements the next action loses
    # ---- end of the Monster player's fields
    turn: int = 0
    side: str = R.WIZARD                             # whose turn is next
    winner: int = R.NO_WINNER
    win_reason: str = ""
    unfinished: bool = False
    over: bool = False
    # per-turn flags
    sheep_curse_pending: int = 0                     # Digestive Mutton Chop: Curse + this at the first sheep
    # outcome counters
    coins_stolen: int = 0
    moved: dict = field(default_factory=dict)        # track steps by source (rules.CURSE_SOURCES, CURE_SOURCES)
    coins_lost_to_cap: int = 0
    eaten: dict = field(default_factory=dict)
    fired: dict = field(default_factory=dict)
    first: dict = field(default_factory=dict)
    quiet_nights: int = 0
    events: list = field(default_factory=list)

    # ------------------------------------------------------------ set-up (V1)

    @classmethod
    def deal(cls, seed: int, index: int, options: R.RuleOptions | None = None, *, board: B.Board | str | None = None,
             cards: K.Cards | None = None, mode: str = R.AUTOMATA, controllers: dict | None = None,
             log: bool = False) -> Table:
        """Game ``index`` of run ``seed`` set up for ``mode`` (V1). ``controllers``: side -> the controller
        of each side played by a player (the mode's automaton sides need none)."""
        if mode not in R.MODES:
            raise ValueError(f"unknown village mode {mode!r}; modes: {', '.join(R.MODE_NAMES)}")
        the_mode = R.MODES[mode]
        controllers = dict(controllers or {})
        for side, automaton in ((R.WIZARD, the_mode.wizard_automaton), (R.MONSTER, the_mode.monster_automaton)):
            if automaton:
                controllers[side] = None
            elif controllers.get(side) is None:
                raise ValueError(f"mode {mode!r}: the {side} is a player; give controllers[{side!r}]")
        options = options or R.RuleOptions()
        # the board and cards of the options (O4, O27-O32) unless given
        board = B.board_of(options.board if board is None else board) if not isinstance(board, B.Board) else board
        board = B.with_track_lengths(board, *options.track_lengths(board))   # O35-O39
        decks = (cards or K.cards_of(options.cards)).deck_for(mode, **options.deck_options())
        sides = board.sides(mode)
        t = cls(board=board, options=options, mode=mode, origin=(seed, index), logging=log,
                streams=[rng.Stream(seed, index, s) for s in range(len(STREAMS))], controllers=controllers)
        t.arrays = board.arrays(mode)
        t.cure_seq = tuple(C.INGREDIENTS.index(i) for i in sides.cure)
        t.curse_top = sides.curse_length
        t.curse = t.curse_min = sides.curse_start      # V1.14
        t.panic_min = sides.panic.start
        t.panic = max(C.PANIC_START, sides.panic.start)  # V1.5
        t.panic_top = sides.panic.length
        t.panic_from = tuple(level for _, level in sides.panic.effects)
        t.at = board.laboratory                        # V1.4
        t.sheep = [p.sheep for p in board.pastures]    # V1.6
        t.bag = list(C.VILLAGER_COUNTS)                # V1.8
        t.houses = [EMPTY] * (C.HOUSES + 1)
        for number in range(1, C.HOUSES + 1):
            t.houses[number] = t.draw_villager()
        t.eaten = {k: 0 for k in R.EATEN_KINDS}
        t.moved = {name: 0 for name in R.CURSE_SOURCES + R.CURE_SOURCES}
        t.fired = {e: 0 for e in R.PANIC_EFFECTS}
        t.first = {e: 0 for e in R.PANIC_EFFECTS}
        # V1.10, V1.11: the decks of the mode, each shuffled from its own stream
        t.spell_deck = list(decks["spell"])
        shuffle_in_place(t.spell_deck, t.streams[STREAM_SPELL])
        t.power_deck = list(decks["power"])
        shuffle_in_place(t.power_deck, t.streams[STREAM_POWER])
        if the_mode.monster_automaton:
            t.rm_cards = list(decks["rabid_monster"])
        if the_mode.wizard_automaton:
            # V1.13: the Possessed Wizard cards shuffled, 3 face up below the Wizard's board
            t.pw_deck = list(decks["possessed_wizard"])
            shuffle_in_place(t.pw_deck, t.streams[STREAM_POSSESSED])
            t.pw_row = [t.pw_deck.pop() for _ in range(min(R.POSSESSED_ACTION_CARDS, len(t.pw_deck)))]
        # the players' set-up (hands V1.10/V1.11, Town Guard tiles V1.7): their modules
        if not the_mode.wizard_automaton:
            from cursedsim.games.village import wizard_player
            wizard_player.deal(t)
        if not the_mode.monster_automaton:
            from cursedsim.games.village import monster_player
            monster_player.deal(t)
        t.record("rule", "setup", board=board.label, spells=len(t.spell_deck), mode=mode,
                 houses=" ".join(t.villager_short(h) for h in t.houses[1:]))
        return t

    def choose(self, side: str, decision: str, legal: list[int]) -> int:
        """A player's choice among ``legal`` (integer-coded options of ``decision``) by its controller,
        which draws from the side's own stream; a single option is taken without asking (and without a
        draw), so engines and policies agree on when a policy's stream moves."""
        if not legal:
            raise AssertionError(f"{side}: decision {decision!r} asked with no legal option")
        if len(legal) == 1:
            return legal[0]
        action = self.controllers[side].act(self, side, decision, list(legal),
                                            self.streams[POLICY_STREAM[side]])
        if action not in legal:
            raise ValueError(f"{side}'s policy chose {action!r} for {decision!r}; legal: {legal}")
        return action

    # ------------------------------------------------------------ events

    def summary(self) -> dict:
        return {"panic": self.panic, "cure": self.cure, "curse": self.curse, "coins": self.coins,
                "at": self.board.locations[self.at].id, "held": [C.INGREDIENTS[i] for i in self.held],
                "stomach": [list(s) for s in self.stomach],
                "houses": {n: C.VILLAGER_NAMES[v] for n, v in enumerate(self.houses) if n and v >= 0}}

    def record(self, actor: str, action: str, cards=(), **fields) -> None:
        if self.logging:
            self.events.append(make_event(self.origin, len(self.events), self.turn, actor, action, cards, fields,
                                          self.summary()))

    def text(self) -> str:
        from cursedsim.games.village import turnlog
        return turnlog.text(self.events)

    @staticmethod
    def villager_short(v: int) -> str:
        return C.VILLAGER_NAMES[v][:2] if v >= 0 else "--"

    # ------------------------------------------------------------ the steps

    def is_over(self) -> bool:
        return self.over

    def clone(self) -> Table:
        """An independent copy at the same point (streams included)."""
        return copy.deepcopy(self)

    def step(self) -> None:
        """One side's turn (V1.2), then the turn cap (O1)."""
        if self.over:
            return
        self.turn += 1
        self.record(self.side, "turn", panic=self.panic)
        if self.side == R.WIZARD:
            if self.controllers.get(R.WIZARD) is None:
                A.possessed_wizard_turn(self)
            else:
                from cursedsim.games.village import wizard_player
                wizard_player.turn(self)
            self.side = R.MONSTER
        else:
            if self.controllers.get(R.MONSTER) is None:
                A.rabid_monster_turn(self)
            else:
                from cursedsim.games.village import monster_player
                monster_player.turn(self)
            self.side = R.WIZARD
        if not self.over and self.turn >= self.options.max_turns:
            self.unfinished = True
            self.finish(R.NO_WINNER, "turn cap")
        if self.over:
            # the end event comes last, after the event of the step that won (V12: the rest of the turn
            # is not played: the turn functions return as soon as ``over`` is set)
            self.record("rule", "end", winner=R.SIDES[self.winner] if self.winner >= 0 else None,
                        reason=self.win_reason, unfinished=self.unfinished)

    def play_out(self) -> Table:
        while not self.over:
            self.step()
        return self

    def finish(self, winner: int, reason: str) -> None:
        self.over = True
        self.winner = winner
        self.win_reason = reason

    # ------------------------------------------------------------ tracks (V12: wins checked at once)

    def move_cure(self, steps: int, source: str) -> None:
        """``steps`` up the Cure track from ``source`` (rules.CURE_SOURCES: the steps that moved count)."""
        if self.over or steps <= 0:
            return
        before = self.cure
        self.cure = min(self.cure + steps, len(self.cure_seq))
        self.moved[source] += self.cure - before
        if self.cure >= len(self.cure_seq):               # V12.1
            self.finish(R.SIDES.index(R.WIZARD), "Cure track top")

    def move_curse(self, steps: int, source: str) -> None:
        """``steps`` along the Curse track from ``source`` (rules.CURSE_SOURCES: the net steps that moved
        count, within the track's ends)."""
        if self.over or steps == 0:
            return
        before = self.curse
        self.curse = max(self.curse_min, min(self.curse + steps, self.curse_top))
        self.moved[source] += self.curse - before
        if self.curse >= self.curse_top:                  # V12.2
            self.finish(R.SIDES.index(R.MONSTER), "Curse track top")

    def move_panic(self, steps: int) -> None:
        self.panic = max(self.panic_min, min(self.panic + steps, self.panic_top))

    def panic_effect(self, k: int) -> bool:
        """Panic effect k (components.PANIC_EFFECTS order) applies now (V10.4, O6 ``panic_threshold``)."""
        level = self.panic_from[k]
        return self.panic >= level if self.options.panic_threshold == "at_level" else self.panic > level

    def fire(self, effect: str) -> None:
        """Count a Wizard turn in which a Panic effect applied (outcome ``fired_*``, ``first_*``)."""
        self.fired[effect] += 1
        if not self.first[effect]:
            self.first[effect] = self.turn

    # ------------------------------------------------------------ villagers, houses, coins

    def draw_villager(self) -> int:
        """A uniform token from the bag (STREAM_BAG), EMPTY when the bag is empty (V11.1)."""
        total = sum(self.bag)
        if total == 0:
            return EMPTY
        x = self.streams[STREAM_BAG].below(total)
        for v, n in enumerate(self.bag):
            if x < n:
                self.bag[v] -= 1
                return v
            x -= n
        raise AssertionError("unreachable")

    def d20(self) -> int:
        return self.streams[STREAM_D20].below(C.D20) + 1

    def d6(self) -> int:
        return self.streams[STREAM_D6].below(C.D6) + 1

    def closest_empty_house(self, roll: int) -> int:
        """V2.4: the empty house closest in number to the roll; a tie goes to the higher number."""
        empty = [n for n in range(1, C.HOUSES + 1) if self.houses[n] == EMPTY]
        return min(empty, key=lambda n: (abs(n - roll), -n))

    def arrive(self, actor: str = "rule") -> None:
        """V2.2, V2.4, V2.5: a villager from the bag to the d20 house or the closest empty one."""
        if all(self.houses[n] != EMPTY for n in range(1, C.HOUSES + 1)):
            self.record(actor, "no_arrival", reason="all houses occupied")
            return
        v = self.draw_villager()
        if v == EMPTY:
            self.record(actor, "no_arrival", reason="the bag is empty")
            return
        roll = self.d20()
        house = roll if self.houses[roll] == EMPTY else self.closest_empty_house(roll)
        self.houses[house] = v
        self.record(actor, "arrive", villager=C.VILLAGER_NAMES[v], roll=roll, house=house)

    def gain_coins(self, n: int) -> int:
        """V3.8, V11.2: as many as the supply (25 in value) holds; the rest counts in ``coins_lost_to_cap``."""
        want = max(0, n)
        n = max(0, min(want, C.COIN_TOTAL - self.coins))
        self.coins += n
        self.coins_lost_to_cap += want - n
        return n

    def crossing_fee(self) -> int:
        """V4.2: 1 coin a crossing; Greedy Coachman (P06) in front of the Wizard: its coins."""
        fee = 1
        for card in self.in_front_of_wizard:
            if card.effect == "wizard_crossing_cost":
                fee = max(fee, card.param("coins", automaton=True))
        return fee

    def crossings(self, a: int, b: int) -> int:
        d = self.arrays["district"]
        return int(self.arrays["district_crossings"][d[a], d[b]])

    def distance(self, a: int, b: int) -> int:
        return int(self.arrays["distance"][a, b])

    def location_name(self, i: int) -> str:
        return self.board.locations[i].id

    # ------------------------------------------------------------ decks

    def draw_from(self, deck: list, discard: list, stream_id: int, name: str):
        """The top card; an empty deck is first rebuilt from its discard pile, shuffled (V5.1, V9.5);
        None when both are empty (V11.1)."""
        if not deck:
            if not discard:
                return None
            deck.extend(discard)
            discard.clear()
            shuffle_in_place(deck, self.streams[stream_id])
            self.record("rule", "reshuffle", deck=name, size=len(deck))
        return deck.pop()

    # ------------------------------------------------------------ the stomach

    def eat(self, kind: str, slot: int | None = None, where: int | None = None) -> int:
        """V7.9, V13.5: a villager or sheep into the leftmost empty stomach slot (or into ``slot``, V13.6);
        returns the slot, -1 when it cannot be eaten (O9 ``full_stomach = stop``)."""
        if slot is None:
            if len(self.stomach) >= C.STOMACH_SLOTS and self.options.full_stomach == "stop":
                return -1
            self.stomach.append([])
            slot = len(self.stomach) - 1
        self.stomach[slot].append(kind)
        self.eaten[kind.lower()] += 1
        self.record(R.MONSTER, "eat", kind=kind, at=self.location_name(self.at if where is None else where))
        if kind == SHEEP and self.sheep_curse_pending:
            bonus, self.sheep_curse_pending = self.sheep_curse_pending, 0
            self.move_curse(bonus, "curse_from_cards")           # Digestive Mutton Chop
        elif kind != SHEEP:
            A.feeding_effects(self, kind)
        return slot

    def stomach_villagers(self) -> int:
        return sum(1 for s in self.stomach for k in s if k != SHEEP)

    def stomach_tokens(self) -> int:
        return sum(len(s) for s in self.stomach)

    # ------------------------------------------------------------ outcome

    def outcome(self) -> dict[str, Any]:
        """The columns of rules.OUTCOME_DTYPES."""
        cols = {"winner": self.winner, "mode": R.MODE_NAMES.index(self.mode), "turns": self.turn,
                "unfinished": self.unfinished, "cure": self.cure, "curse": self.curse, "panic": self.panic,
                "coins_stolen": self.coins_stolen}
        cols.update({f"eaten_{k}": self.eaten[k] for k in R.EATEN_KINDS})
        cols.update({f"fired_{e}": self.fired[e] for e in R.PANIC_EFFECTS})
        cols.update({f"first_{e}": self.first[e] for e in R.PANIC_EFFECTS})
        cols["quiet_nights"] = self.quiet_nights
        cols.update(self.moved)
        cols["coins_lost_to_cap"] = self.coins_lost_to_cap
        assert tuple(cols) == R.OUTCOME_COLUMNS
        return cols


def play(seed: int, index: int, options: R.RuleOptions | None = None, *, board: B.Board | str | None = None,
         mode: str = R.AUTOMATA, controllers: dict | None = None, log: bool = False) -> Table:
    """Game ``index`` of run ``seed`` in ``mode`` (default the 0-player game), played to its end (a win or
    the turn cap); ``controllers``: side -> controller of each player side."""
    return Table.deal(seed, index, options, board=board, mode=mode, controllers=controllers, log=log).play_out()


def play_chunk(seed: int, start: int, count: int, options: R.RuleOptions | None = None, *,
               board: B.Board | str | None = None, mode: str = R.AUTOMATA,
               controllers: dict | None = None) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of run ``seed`` as outcome arrays by column (``OUTCOME_DTYPES``)."""
    board = B.board_of((options or R.RuleOptions()).board if board is None else board) \
        if not isinstance(board, B.Board) else board
    rows = [play(seed, start + i, options, board=board, mode=mode, controllers=controllers).outcome()
            for i in range(count)]
    return {column: np.array([row[column] for row in rows], dtype=dtype)
            for column, dtype in R.OUTCOME_DTYPES.items()}
