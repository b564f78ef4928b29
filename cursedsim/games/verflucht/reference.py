"""Verflucht! as a readable pure-Python engine: the oracle the numba kernel is compared with, and the
source of replay logs.

It implements exactly the procedure of ``docs/rules/verflucht.md`` and consumes the deck stream
``rng.Stream(seed, index, rng.STREAM_DECK)`` in exactly the order written there, so a game played here
and the same (seed, index) played by the kernel must agree card for card. The policies get their own
stream ``rng.Stream(seed, index, rng.STREAM_POLICY)``.

The :class:`Table` holds the state of one game and has one method per rulebook step (``draw``,
``check_attack``, ``resolve_attack``, ``use_seal``, ``banish``, ``last_turns``, ``final_seals``,
``score``). Policies decide (``reference_policies.py``); the table enforces the rules and raises
:class:`IllegalDecision` on any decision the rulebook does not allow. Facts (card codes, seals by player
count, end codes) come from ``rules.py``. A table that logs records one event per step (``events``,
vocabulary in ``turnlog.py``); the turn log is rendered from them.

    >>> from cursedsim.games.verflucht.reference import play, replay_log
    >>> from cursedsim.games.verflucht.reference_policies import BaselinePolicy
    >>> from cursedsim.games.verflucht.rules import RuleOptions
    >>> outcome = play(seed=7, index=0, players=3, options=RuleOptions(), policy=BaselinePolicy())
    >>> print(replay_log(7, 0, 3, RuleOptions(), BaselinePolicy()))   # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING

from cursedsim import rng
from cursedsim.errors import PlayersError
from cursedsim.events import make_event, policy_label
from cursedsim.games.verflucht import turnlog
from cursedsim.games.verflucht.turnlog import player_name, plus, values_text
from cursedsim.games.verflucht.rules import (
    DISPLAY_LIMIT,
    END_GROUP,
    END_NAMES,
    END_SIXTH,
    END_WIN,
    FIRST_ITEM_CODE,
    LOST_SCORE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    N_CARDS,
    N_CREATURES,
    RuleOptions,
    card_name,
)

if TYPE_CHECKING:
    from cursedsim.games.verflucht.reference_policies import AttackChoice, Banish, Policy

#: A safety net: a policy that keeps answering banishments is stopped after this many in one turn
#: (each legal banishment removes a display Creature, so a legal policy never gets near it).
MAX_BANISHES_PER_TURN = N_CREATURES + 1


class IllegalDecision(RuntimeError):
    """A policy decision the rules do not allow; the message names the rule it breaks."""


@dataclass(frozen=True)
class Outcome:
    """How one game ended: the row the kernel must reproduce, plus the readable log when asked for."""

    win: bool
    #: Total value left in the display of a won game (lower is better); ``rules.LOST_SCORE`` when lost.
    score: int
    #: Draw turns played, including the turn of a loss (last turns are not counted).
    turns: int
    #: Seals broken answering attacks (the green Seals that clear the display at the end not counted).
    seals_used: int
    #: ``rules.END_WIN``, ``rules.END_SIXTH`` or ``rules.END_GROUP``.
    end: int
    #: Attacks faced, including the one that lost the game.
    attacks: int
    #: The turn log (rendered from ``events``) and the events, when the game was played with a log.
    log: tuple[str, ...] = ()
    events: tuple[dict, ...] = ()


# ---------------------------------------------------------------- small readable helpers

def creature_code(value: int) -> int:
    """The card code of the Creature of ``value`` (codes 0-39 are Creatures 1-40)."""
    return value - 1


def _creature_names(values: Iterable[int]) -> list[str]:
    return [card_name(creature_code(v)) for v in values]


def _item_names(values: Iterable[int]) -> list[str]:
    return [card_name(FIRST_ITEM_CODE + v - 1) for v in values]


def group_of(display: set[int], creature: int) -> list[int]:
    """The maximal run of consecutive values in ``display`` that contains ``creature``, ascending.

    "Two or more Creatures in the display form a group if their values are adjacent to each other."
    """
    low = creature
    while low - 1 in display:
        low -= 1
    high = creature
    while high + 1 in display:
        high += 1
    return list(range(low, high + 1))


def find_assignment(attackers: Sequence[int], totals: Mapping[int, int],
                    eligible: Sequence[int]) -> dict[int, int] | None:
    """The first assignment creature -> player under which every player's whole-hand total covers the
    creatures given to them, or None when there is none.

    Depth-first, creatures in the order given, players in the order given; a partial assignment is
    dropped as soon as a player's remaining total is too small (totals only shrink, so this never
    drops a completable one). Items may be spent in excess, so the whole hand total decides whether a
    player can banish a set of creatures: a plan of banishments exists iff this finds an assignment.
    """
    room = {p: totals[p] for p in eligible}
    chosen: dict[int, int] = {}

    def place(k: int) -> bool:
        if k == len(attackers):
            return True
        creature = attackers[k]
        for p in eligible:
            if room[p] >= creature:
                room[p] -= creature
                chosen[creature] = p
                if place(k + 1):
                    return True
                room[p] += creature
                del chosen[creature]
        return False

    return chosen if place(0) else None


# ---------------------------------------------------------------- the table

class Table:
    """The state of one game of Verflucht! and the rule steps that change it.

    ``face_down`` holds card codes; a draw takes the LAST one. ``hands[p]`` holds the values of the
    Items of player p, ``display`` the values of the face-up Creatures. The discard pile keeps
    Creature and Item values apart. ``end`` is None while the game runs.

    A table made by the constructor is empty (no cards dealt) so tests can lay out any position;
    :meth:`deal` makes the set-up of game ``index`` of a run with ``seed``.
    """

    def __init__(self, players: int, options: RuleOptions | None = None, *,
                 deck_rng: rng.Stream | None = None, log: bool = False):
        if isinstance(players, bool) or not isinstance(players, Integral) or not (
                MIN_PLAYERS <= players <= MAX_PLAYERS):
            raise PlayersError(f"verflucht is played by {MIN_PLAYERS}-{MAX_PLAYERS} players, got {players!r}")
        self.players = players = int(players)
        self.options = options if options is not None else RuleOptions()
        self.deck_rng = deck_rng
        self.face_down: list[int] = []
        self.hands: list[set[int]] = [set() for _ in range(players)]
        self.display: set[int] = set()
        # "Depending on the number of players, lay out the following number of Seals" (option `seals`).
        self.seals_left = self.options.seals_for(players)
        self.seals_used = 0
        self.discard_creatures: set[int] = set()
        self.discard_items: set[int] = set()
        # "The bravest player begins": player 0.
        self.active = 0
        self.turns = 0
        self.attacks = 0
        self.end: int | None = None
        self.last_turns_left = 0
        self.final_score: int | None = None
        self.logging = log
        #: (seed, game index) of a dealt game, stamped on its events; None for a table laid out by hand
        self.origin: tuple[int | None, int | None] = (None, None)
        self.events: list[dict] = []

    @classmethod
    def deal(cls, seed: int, index: int, players: int, options: RuleOptions | None = None, *,
             log: bool = False, label: str | None = None) -> Table:
        """Set-up: "Mix and shuffle all the Creatures and Items together and put them on the table all
        jumbled together"; lay out the Seals. ``label`` names the policy in the set-up event.

        The face-down cards are the codes [0, 1, ..., 79]; their order on the list means nothing,
        because every draw picks one of them at random with the deck stream of (seed, index).
        """
        deck_rng = rng.Stream(seed, index, rng.STREAM_DECK)
        table = cls(players, options, deck_rng=deck_rng, log=log)
        table.origin = (seed, index)
        table.face_down = list(range(N_CARDS))
        if log:
            table.record("rule", "setup", players=players, seals=table.seals_left, policy=label,
                         options=dataclasses.asdict(table.options))
        return table

    # ------------------------------------------------------------ events and the log

    def record(self, actor: str, action: str, cards: Iterable[str] = (), **fields) -> None:
        """Add an event (``turnlog.EVENTS``) with the state after it, when the table keeps a log."""
        if self.logging:
            self.events.append(make_event(self.origin, len(self.events), self.turns, actor, action, cards,
                                          fields, self.summary()))

    def summary(self) -> dict:
        """The state an event carries: cards left to draw, Seals left, the display and every hand
        (players may say which Creatures they can banish, so a co-operative log shows every hand)."""
        return {"face_down": len(self.face_down), "seals_left": self.seals_left,
                "display": sorted(self.display), "hands": [sorted(hand) for hand in self.hands]}

    @property
    def log(self) -> list[str]:
        """The turn log so far, one line per event that has one (rendered from ``events``)."""
        return turnlog.log_lines(self.events)

    # ------------------------------------------------------------ step 1: draw

    def draw(self) -> int:
        """"Draw 1 card, face-down, from the table": a Creature goes face up into the display, an Item
        into the active hand.

        The card is one of the face-down cards picked uniformly at random: j = below(len) on the deck
        stream, the card at j swapped with the last and taken (the kernel does exactly this). Starts a
        new draw turn (``turns`` counts them from 1); returns the card code drawn.
        """
        face_down = self.face_down
        if not face_down:
            raise IllegalDecision("no face-down card left to draw")
        j = self.deck_rng.below(len(face_down))
        face_down[j], face_down[-1] = face_down[-1], face_down[j]
        code = face_down.pop()
        self.turns += 1
        if code < FIRST_ITEM_CODE:
            value = code + 1
            self.display.add(value)
        else:
            value = code - FIRST_ITEM_CODE + 1
            self.hands[self.active].add(value)
        if self.logging:
            self.record(player_name(self.active), "draw", [card_name(code)],
                        kind="creature" if code < FIRST_ITEM_CODE else "item", value=value)
        return code

    # ------------------------------------------------------------ step 2: attack check

    def check_attack(self, creature: int) -> tuple[tuple[int, ...], bool] | None:
        """Which Creatures attack after ``creature`` joined the display: (attackers highest first,
        is_group), or None.

        A group (two or more adjacent values) attacks as a whole; otherwise a sixth Creature makes the
        highest one attack. "If adding the sixth card to the display also creates a group of
        Creatures, only the group attacks."
        """
        display = self.display
        if creature - 1 in display or creature + 1 in display:
            return tuple(reversed(group_of(display, creature))), True
        if len(display) > DISPLAY_LIMIT:
            return (max(display),), False
        return None

    def eligible(self, is_group: bool) -> list[int]:
        """Who may banish attackers, in the order they are asked: the active player alone against a
        sixth Creature ("You must banish that Creature immediately using your Item cards"); everyone
        against a group ("All players can take part"), the active player first, then in turn order.
        """
        if not is_group:
            return [self.active]
        return [(self.active + k) % self.players for k in range(self.players)]

    def plan_exists(self, attackers: Sequence[int], is_group: bool) -> bool:
        """Whether items could banish all ``attackers`` (whole-hand totals decide; see find_assignment)."""
        eligible = self.eligible(is_group)
        totals = {p: sum(self.hands[p]) for p in eligible}
        return find_assignment(sorted(attackers, reverse=True), totals, eligible) is not None

    def seal_allowed(self, attackers: Sequence[int], is_group: bool) -> bool:
        """A Seal may answer the attack unless items could banish every attacker and either no green
        Seal is left ("you have no choice but to immediately banish": the players may not choose to
        lose) or option ``voluntary_seal`` is off. A Seal answered with none left loses the game, so
        the game is lost only when no plan exists.
        """
        if self.options.voluntary_seal and self.seals_left > 0:
            return True
        return not self.plan_exists(attackers, is_group)

    # ------------------------------------------------------------ step 3: attack resolution

    def resolve_attack(self, attackers: Sequence[int], is_group: bool, choice: AttackChoice) -> bool:
        """Answer an attack with the policy's ``choice``: banishments, a Seal, or (option
        ``partial_items_before_seal``) banishments for part of a group and a Seal for the rest.

        The whole choice is checked before any card moves. Returns False when the game is lost.
        """
        attackers = tuple(attackers)
        kind = turnlog.attack_kind(attackers, is_group)
        plan = self._check_attack_choice(attackers, is_group, choice, kind)
        self.attacks += 1
        if self.logging:
            self.record("creatures", "attack", _creature_names(attackers), attackers=list(attackers),
                        group=is_group, seal_allowed=self.seal_allowed(attackers, is_group),
                        can_banish_all=self.plan_exists(attackers, is_group))
        for player, creatures, items in plan:
            self._discard(player, creatures, items)
        if self.logging:
            self.record(player_name(self.active), "answer",
                        [name for _, creatures, items in plan
                         for name in (*_creature_names(sorted(creatures)), *_item_names(sorted(items)))],
                        attackers=list(attackers), group=is_group, seal=bool(choice.seal),
                        plan=[{"player": player_name(player), "creatures": sorted(creatures), "items": sorted(items)}
                              for player, creatures, items in plan])
        if choice.seal:
            return self.use_seal([c for c in attackers if c in self.display], is_group, attackers)
        return True

    def _check_attack_choice(self, attackers: tuple[int, ...], is_group: bool, choice: AttackChoice,
                             kind: str) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
        """The plan of ``choice`` as (player, creatures, items) triples, or IllegalDecision."""
        eligible = self.eligible(is_group)
        seal = bool(choice.seal)
        raw_plan = choice.plan or {}
        if seal and not self.seal_allowed(attackers, is_group):
            why = ("no green Seal is left (\"you have no choice but to immediately banish\")"
                   if self.seals_left == 0 else "option voluntary_seal=False")
            raise IllegalDecision(f"{kind}: a Seal is not allowed while items can banish every attacker:"
                                  f" {why}")
        if seal and raw_plan and not self.options.partial_items_before_seal:
            raise IllegalDecision(
                f"{kind}: a Seal answers the whole attack, no items may be spent with it (\"When you use"
                f" a Seal on a group attack, remove all of the attacking Creatures\"); option"
                f" partial_items_before_seal=True allows it")
        plan = []
        taken: dict[int, int] = {}
        for player, entry in raw_plan.items():
            if isinstance(player, bool) or not isinstance(player, Integral) or not 0 <= player < self.players:
                raise IllegalDecision(f"{kind}: no player {player!r} at this table of {self.players}")
            if player not in eligible:
                raise IllegalDecision(
                    f"{kind}: only the active player {player_name(self.active)} may banish a sixth"
                    f" Creature, not {player_name(player)}")
            try:
                creatures, items = (tuple(part) for part in entry)
            except (TypeError, ValueError):
                raise IllegalDecision(f"{kind}: the plan of {player_name(player)} must be (creatures, items),"
                                      f" got {entry!r}") from None
            self._check_items(player, items, kind)
            if not creatures:
                raise IllegalDecision(f"{kind}: {player_name(player)} spends items on no Creature")
            for creature in creatures:
                if creature not in attackers:
                    raise IllegalDecision(f"{kind}: {creature} is not an attacking Creature"
                                          f" (attackers {values_text(sorted(attackers))})")
                if creature in taken:
                    raise IllegalDecision(
                        f"{kind}: Creature {creature} is taken by {player_name(taken[creature])} and"
                        f" {player_name(player)}; \"each Creature must be banished by a single player\"")
                taken[creature] = player
            if sum(items) < sum(creatures):
                raise IllegalDecision(
                    f"{kind}: {player_name(player)}'s items {plus(items)} = {sum(items)} are less than"
                    f" the Creatures {plus(creatures)} = {sum(creatures)}")
            plan.append((player, creatures, items))
        if not seal and len(taken) != len(attackers):
            missing = [c for c in attackers if c not in taken]
            raise IllegalDecision(f"{kind}: Creature(s) {values_text(missing)} neither banished nor sealed")
        if seal and taken and len(taken) == len(attackers):
            raise IllegalDecision(f"{kind}: every attacker is banished, there is nothing left for the Seal")
        return plan

    def _check_items(self, player: int, items: tuple[int, ...], what: str) -> None:
        """Items must be one or more distinct cards from ``player``'s own hand."""
        if not items:
            raise IllegalDecision(f"{what}: {player_name(player)} banishes with no Item")
        if len(set(items)) != len(items):
            raise IllegalDecision(f"{what}: {player_name(player)} plays an Item twice ({plus(items)})")
        missing = [v for v in items if v not in self.hands[player]]
        if missing:
            raise IllegalDecision(
                f"{what}: Item {values_text(missing)} not in {player_name(player)}'s hand"
                f" [{values_text(sorted(self.hands[player]))}]")

    def _discard(self, player: int, creatures: Iterable[int], items: Iterable[int]) -> None:
        """"Put that Creature and all Items used to banish it aside, in a face-up discard pile.\""""
        for creature in creatures:
            self.display.remove(creature)
            self.discard_creatures.add(creature)
        hand = self.hands[player]
        for item in items:
            hand.remove(item)
            self.discard_items.add(item)

    def use_seal(self, creatures: Sequence[int], is_group: bool, attackers: Sequence[int]) -> bool:
        """Break a green Seal and shuffle the attacking ``creatures`` back into the face-down cards;
        with no green Seal left the game is lost. Returns False on a loss; ``attackers`` (the whole
        attack) are for the events.

        A Seal is offered with none left only when the items cannot banish every attacker
        (:meth:`seal_allowed`), so a loss always means "not able to banish all the attackers".
        The codes are appended in ascending value: draws pick face-down cards at random, so putting
        them back among the others is all that "shuffle back" needs (no random number is drawn).
        """
        creatures = sorted(creatures)
        if self.seals_left == 0:
            self.end = END_GROUP if is_group else END_SIXTH
            if self.logging:
                self.record("rule", "loss", _creature_names(creatures), end=END_NAMES[self.end],
                            attackers=list(attackers), group=is_group, creatures=creatures,
                            eligible=[player_name(p) for p in self.eligible(is_group)])
            return False
        self.seals_left -= 1
        self.seals_used += 1
        face_down = self.face_down
        for creature in creatures:
            self.display.remove(creature)
            face_down.append(creature_code(creature))
        if self.logging:
            self.record("rule", "seal", _creature_names(creatures), creatures=creatures)
        return True

    # ------------------------------------------------------------ step 4: voluntary banishing

    def banish(self, player: int, decision: Banish, last_turn: bool = False) -> None:
        """"Only you can banish Creatures during your turn": ``player`` (who must be the active
        player) banishes one display Creature with one or more of their Items of total >= its value.
        "You have to banish each Creature separately." (``last_turn`` is for the event.)
        """
        creature = decision.creature
        items = tuple(decision.items)
        what = f"banishing {creature}"
        if player != self.active:
            raise IllegalDecision(
                f"{what}: only {player_name(self.active)}, whose turn it is, may banish; not"
                f" {player_name(player)}")
        if creature not in self.display:
            raise IllegalDecision(f"{what}: no Creature {creature} in the display [{values_text(sorted(self.display))}]")
        self._check_items(player, items, what)
        if sum(items) < creature:
            raise IllegalDecision(f"{what}: items {plus(items)} = {sum(items)} are less than {creature}")
        could_banish = self.could_banish(player) if self.logging else None
        self._discard(player, (creature,), items)
        if self.logging:
            self.record(player_name(player), "banish", [*_creature_names((creature,)), *_item_names(sorted(items))],
                        creature=creature, items=sorted(items), could_banish=could_banish, last_turn=last_turn)

    def could_banish(self, player: int) -> list[int]:
        """The display Creatures ``player``'s whole hand could banish now, ascending (what a voluntary
        banishment could choose from)."""
        total = sum(self.hands[player])
        return [creature for creature in sorted(self.display) if creature <= total]

    def voluntary_banishing(self, policy: Policy, policy_rng: rng.Stream, last_turn: bool) -> None:
        """"Play as many Items as you like in order to banish Creatures": ask the active player's
        policy for one banishment at a time until it answers None. The question is only asked while
        the player holds Items and the display holds Creatures: otherwise there is nothing to decide.
        """
        player = self.active
        for _ in range(MAX_BANISHES_PER_TURN):
            if not self.display or not self.hands[player]:
                return
            decision = policy.banish(self, player, last_turn, policy_rng)
            if decision is None:
                if self.logging:
                    self.record(player_name(player), "pass", could_banish=self.could_banish(player),
                                last_turn=last_turn)
                return
            self.banish(player, decision, last_turn)
        raise IllegalDecision(f"{player_name(player)}'s policy keeps banishing after"
                              f" {MAX_BANISHES_PER_TURN} banishments in one turn")

    # ------------------------------------------------------------ one draw turn

    def attack(self, attackers: tuple[int, ...], is_group: bool, policy: Policy,
               policy_rng: rng.Stream) -> bool:
        """Ask the policy how to answer an attack and resolve it; False when the game is lost."""
        allowed = self.seal_allowed(attackers, is_group)
        choice = policy.attack(self, attackers, is_group, allowed, policy_rng)
        return self.resolve_attack(attackers, is_group, choice)

    def play_turn(self, policy: Policy, policy_rng: rng.Stream) -> bool:
        """The active player's turn: draw, attack check and resolution, voluntary banishing.
        Returns False when the game was lost during it."""
        code = self.draw()
        if code < FIRST_ITEM_CODE:
            attack = self.check_attack(code + 1)
            if attack is not None and not self.attack(attack[0], attack[1], policy, policy_rng):
                return False
        self.voluntary_banishing(policy, policy_rng, last_turn=False)
        return True

    # ------------------------------------------------------------ the end

    def last_turns(self, policy: Policy, policy_rng: rng.Stream) -> None:
        """"Each player then takes one last turn and can banish Creatures with their remaining Item
        cards": from the player after the one who drew the last card, in turn order; the drawer
        last, or not at all with option ``drawer_last_turn=False``.
        """
        drawer = self.active
        order = [(drawer + k) % self.players for k in range(1, self.players)]
        if self.options.drawer_last_turn:
            order.append(drawer)
        self.record("rule", "last_turns")
        for i, player in enumerate(order):
            self.active = player
            self.last_turns_left = len(order) - i  # this one included (what a search needs to know)
            self.record(player_name(player), "last_turn")
            self.voluntary_banishing(policy, policy_rng, last_turn=True)

    def final_seals(self) -> list[int]:
        """"For each green Seal you have left, put one Creature from the display on the discard pile,
        beginning with the Creature that has the lowest value." Returns the Creatures removed."""
        removed = sorted(self.display)[:self.seals_left]
        for creature in removed:
            self.display.remove(creature)
            self.discard_creatures.add(creature)
        if self.logging:
            self.record("rule", "final_seals", _creature_names(removed), creatures=removed)
        return removed

    def score(self) -> int:
        """"The total value of the Creatures remaining in the display area after that is your score.\""""
        return sum(self.display)

    def play_game(self, policy: Policy, policy_rng: rng.Stream) -> int:
        """Play from the current position to the end; returns the end code (``rules.END_*``)."""
        while self.face_down:
            if not self.play_turn(policy, policy_rng):
                return self.end
            if self.face_down:
                # "Then it's the next player's turn."
                self.active = (self.active + 1) % self.players
        # "All players jointly win the game if you have drawn all the face-down cards and
        # successfully resolved all attacks."
        self.last_turns(policy, policy_rng)
        self.final_seals()
        self.end = END_WIN
        self.final_score = self.score()
        self.record("rule", "win", end=END_NAMES[self.end], score=self.final_score)
        return self.end

    def outcome(self) -> Outcome:
        """The finished game as an :class:`Outcome`."""
        if self.end is None:
            raise RuntimeError("the game is not over")
        won = self.end == END_WIN
        return Outcome(win=won, score=self.final_score if won else LOST_SCORE, turns=self.turns,
                       seals_used=self.seals_used, end=self.end, attacks=self.attacks,
                       log=tuple(self.log), events=tuple(self.events))


# ---------------------------------------------------------------- public entry points

def play(seed: int, index: int, players: int, options: RuleOptions, policy: Policy, *,
         log: bool = False, label: str | None = None) -> Outcome:
    """Play game ``index`` of a run with ``seed`` to the end; with ``log=True`` the outcome carries the
    events and the turn log (``label`` names the policy there, by default ``events.policy_label``)."""
    table = Table.deal(seed, index, players, options, log=log, label=label or policy_label(policy))
    table.play_game(policy, rng.Stream(seed, index, rng.STREAM_POLICY))
    return table.outcome()


def replay_events(seed: int, index: int, players: int, options: RuleOptions, policy: Policy,
                  label: str | None = None) -> list[dict]:
    """The events of game ``index`` of a run with ``seed`` (``turnlog.EVENTS``), in order."""
    return list(play(seed, index, players, options, policy, log=True, label=label).events)


def replay_log(seed: int, index: int, players: int, options: RuleOptions, policy: Policy,
               label: str | None = None) -> str:
    """The readable turn log of game ``index`` of a run with ``seed``: a header, then one line per event
    (rendered from the events)."""
    return turnlog.text(replay_events(seed, index, players, options, policy, label))


def play_chunk(seed: int, start: int, count: int, players: int, options: RuleOptions, policy: Policy):
    """Games ``start .. start+count-1`` of the run ``seed`` on the reference engine, as outcome arrays
    by column (the kernel's format): how a user's Python policy runs through ``simulate``."""
    import numpy as np

    from cursedsim.games.verflucht.kernel import OUTCOME_DTYPES
    outcomes = [play(seed, start + i, players, options, policy) for i in range(count)]
    return {column: np.array([getattr(o, column) for o in outcomes], dtype=dtype)
            for column, dtype in OUTCOME_DTYPES.items()}
