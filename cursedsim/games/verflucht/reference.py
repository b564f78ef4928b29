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
count, end codes) come from ``rules.py``.

    >>> from cursedsim.games.verflucht.reference import play, replay_log
    >>> from cursedsim.games.verflucht.reference_policies import BaselinePolicy
    >>> from cursedsim.games.verflucht.rules import RuleOptions
    >>> outcome = play(seed=7, index=0, players=3, options=RuleOptions(), policy=BaselinePolicy())
    >>> print(replay_log(7, 0, 3, RuleOptions(), BaselinePolicy()))   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING

from cursedsim import rng
from cursedsim.errors import PlayersError
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
    log: tuple[str, ...] = ()


# ---------------------------------------------------------------- small readable helpers

def player_name(player: int) -> str:
    """Players are 0..P-1 inside, P1..P5 in the log."""
    return f"P{player + 1}"


def creature_code(value: int) -> int:
    """The card code of the Creature of ``value`` (codes 0-39 are Creatures 1-40)."""
    return value - 1


def _values(values: Iterable[int], sep: str = ", ") -> str:
    return sep.join(str(v) for v in values)


def _plus(values: Iterable[int]) -> str:
    return "+".join(str(v) for v in values)


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
        self.final_score: int | None = None
        self.logging = log
        self.log: list[str] = []

    @classmethod
    def deal(cls, seed: int, index: int, players: int, options: RuleOptions | None = None, *,
             log: bool = False) -> Table:
        """Set-up: "Mix and shuffle all the Creatures and Items together and put them on the table all
        jumbled together"; lay out the Seals.

        The face-down cards are the codes [0, 1, ..., 79]; their order on the list means nothing,
        because every draw picks one of them at random with the deck stream of (seed, index).
        """
        deck_rng = rng.Stream(seed, index, rng.STREAM_DECK)
        table = cls(players, options, deck_rng=deck_rng, log=log)
        table.face_down = list(range(N_CARDS))
        table.say(f"set-up · {players} player{'s' if players > 1 else ''} · {table.seals_left} green seals"
                  f" · {len(table.face_down)} face-down cards · P1 begins")
        return table

    # ------------------------------------------------------------ log

    def say(self, line: str) -> None:
        """Add a line to the turn log (when the table keeps one)."""
        if self.logging:
            self.log.append(line)

    def _display_text(self) -> str:
        return f"display [{_values(sorted(self.display))}]"

    def _hands_text(self) -> str:
        """Every player's hand: players may say which Creatures they can banish, so a co-operative
        log shows what each of them holds when an attack is answered."""
        return "hands: " + " · ".join(f"{player_name(p)} [{_values(sorted(hand))}]"
                                      for p, hand in enumerate(self.hands))

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
            if self.logging:
                self.say(f"turn {self.turns} · {player_name(self.active)} draws Creature {value}"
                         f" ({len(self.face_down)} left) → {self._display_text()}")
        else:
            value = code - FIRST_ITEM_CODE + 1
            hand = self.hands[self.active]
            hand.add(value)
            if self.logging:
                self.say(f"turn {self.turns} · {player_name(self.active)} draws Item {value}"
                         f" ({len(self.face_down)} left) → hand [{_values(sorted(hand))}]")
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
        kind = (f"group attack {'-'.join(str(v) for v in sorted(attackers))}" if is_group
                else f"sixth-creature attack by {attackers[0]}")
        plan = self._check_attack_choice(attackers, is_group, choice, kind)
        self.attacks += 1
        self.say(self._hands_text())
        parts = []
        for player, creatures, items in plan:
            self._discard(player, creatures, items)
            if self.logging:
                parts.append(f"{player_name(player)} banishes {_plus(sorted(creatures))}"
                             f" with {_plus(sorted(items))}")
        if choice.seal:
            rest = [c for c in attackers if c in self.display]
            if self.seals_left == 0:
                parts.append("no seal left for the rest" if plan else "no seal left")
            else:
                parts.append("a seal for the rest" if plan else "answered with a seal")
            self.say(f"{kind}: {'; '.join(parts)}")
            return self.use_seal(rest, is_group, kind)
        self.say(f"{kind}: {'; '.join(parts)} → {self._display_text()}")
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
                                          f" (attackers {_values(sorted(attackers))})")
                if creature in taken:
                    raise IllegalDecision(
                        f"{kind}: Creature {creature} is taken by {player_name(taken[creature])} and"
                        f" {player_name(player)}; \"each Creature must be banished by a single player\"")
                taken[creature] = player
            if sum(items) < sum(creatures):
                raise IllegalDecision(
                    f"{kind}: {player_name(player)}'s items {_plus(items)} = {sum(items)} are less than"
                    f" the Creatures {_plus(creatures)} = {sum(creatures)}")
            plan.append((player, creatures, items))
        if not seal and len(taken) != len(attackers):
            missing = [c for c in attackers if c not in taken]
            raise IllegalDecision(f"{kind}: Creature(s) {_values(missing)} neither banished nor sealed")
        if seal and taken and len(taken) == len(attackers):
            raise IllegalDecision(f"{kind}: every attacker is banished, there is nothing left for the Seal")
        return plan

    def _check_items(self, player: int, items: tuple[int, ...], what: str) -> None:
        """Items must be one or more distinct cards from ``player``'s own hand."""
        if not items:
            raise IllegalDecision(f"{what}: {player_name(player)} banishes with no Item")
        if len(set(items)) != len(items):
            raise IllegalDecision(f"{what}: {player_name(player)} plays an Item twice ({_plus(items)})")
        missing = [v for v in items if v not in self.hands[player]]
        if missing:
            raise IllegalDecision(
                f"{what}: Item {_values(missing)} not in {player_name(player)}'s hand"
                f" [{_values(sorted(self.hands[player]))}]")

    def _discard(self, player: int, creatures: Iterable[int], items: Iterable[int]) -> None:
        """"Put that Creature and all Items used to banish it aside, in a face-up discard pile.\""""
        for creature in creatures:
            self.display.remove(creature)
            self.discard_creatures.add(creature)
        hand = self.hands[player]
        for item in items:
            hand.remove(item)
            self.discard_items.add(item)

    def use_seal(self, creatures: Sequence[int], is_group: bool, kind: str) -> bool:
        """Break a green Seal and shuffle the attacking ``creatures`` back into the face-down cards;
        with no green Seal left the game is lost. Returns False on a loss; ``kind`` names the attack
        in the log.

        A Seal is offered with none left only when the items cannot banish every attacker
        (:meth:`seal_allowed`), so a loss always means "not able to banish all the attackers".
        The codes are appended in ascending value: draws pick face-down cards at random, so putting
        them back among the others is all that "shuffle back" needs (no random number is drawn).
        """
        creatures = sorted(creatures)
        if self.seals_left == 0:
            self.end = END_GROUP if is_group else END_SIXTH
            if self.logging:
                self.say(f"LOSS: {kind}: {self._cannot_banish(creatures, is_group)}"
                         f" and no green seal is left")
            return False
        self.seals_left -= 1
        self.seals_used += 1
        face_down = self.face_down
        for creature in creatures:
            self.display.remove(creature)
            face_down.append(creature_code(creature))
        if self.logging:
            self.say(f"seal used ({self.seals_left} left): {_values(creatures)} shuffled back"
                     f" ({len(face_down)} face-down) → {self._display_text()}")
        return True

    def _cannot_banish(self, creatures: Sequence[int], is_group: bool) -> str:
        """Why ``creatures`` stay: whose items cannot banish them, with the hand totals."""
        eligible = self.eligible(is_group)
        if len(eligible) == 1:
            who = eligible[0]
            return (f"{player_name(who)}'s items (total {sum(self.hands[who])}) cannot banish"
                    f" {_plus(sorted(creatures, reverse=True))}")
        totals = ", ".join(f"{player_name(p)} {sum(self.hands[p])}" for p in eligible)
        return f"the items (totals {totals}) cannot banish {_plus(sorted(creatures, reverse=True))}"

    # ------------------------------------------------------------ step 4: voluntary banishing

    def banish(self, player: int, decision: Banish) -> None:
        """"Only you can banish Creatures during your turn": ``player`` (who must be the active
        player) banishes one display Creature with one or more of their Items of total >= its value.
        "You have to banish each Creature separately."
        """
        creature = decision.creature
        items = tuple(decision.items)
        what = f"banishing {creature}"
        if player != self.active:
            raise IllegalDecision(
                f"{what}: only {player_name(self.active)}, whose turn it is, may banish; not"
                f" {player_name(player)}")
        if creature not in self.display:
            raise IllegalDecision(f"{what}: no Creature {creature} in the {self._display_text()}")
        self._check_items(player, items, what)
        if sum(items) < creature:
            raise IllegalDecision(f"{what}: items {_plus(items)} = {sum(items)} are less than {creature}")
        self._discard(player, (creature,), items)
        if self.logging:
            self.say(f"{player_name(player)} banishes {creature} with {_plus(sorted(items))}"
                     f" → {self._display_text()}")

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
                return
            self.banish(player, decision)
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
        self.say("last turns")
        for player in order:
            self.active = player
            if self.logging:
                self.say(f"last turn · {player_name(player)} holds [{_values(sorted(self.hands[player]))}]")
            self.voluntary_banishing(policy, policy_rng, last_turn=True)

    def final_seals(self) -> list[int]:
        """"For each green Seal you have left, put one Creature from the display on the discard pile,
        beginning with the Creature that has the lowest value." Returns the Creatures removed."""
        removed = sorted(self.display)[:self.seals_left]
        for creature in removed:
            self.display.remove(creature)
            self.discard_creatures.add(creature)
        if self.logging:
            if removed:
                self.say(f"seals remove {_values(removed)} → {self._display_text()}")
            else:
                self.say("seals remove nothing" + (" (no green seal left)" if not self.seals_left
                                                   else " (display empty)"))
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
        self.say(f"WIN, score {self.final_score}")
        return self.end

    def outcome(self) -> Outcome:
        """The finished game as an :class:`Outcome`."""
        if self.end is None:
            raise RuntimeError("the game is not over")
        won = self.end == END_WIN
        return Outcome(win=won, score=self.final_score if won else LOST_SCORE, turns=self.turns,
                       seals_used=self.seals_used, end=self.end, attacks=self.attacks,
                       log=tuple(self.log))


# ---------------------------------------------------------------- public entry points

def play(seed: int, index: int, players: int, options: RuleOptions, policy: Policy, *,
         log: bool = False) -> Outcome:
    """Play game ``index`` of a run with ``seed`` to the end; with ``log=True`` the outcome carries the
    turn log."""
    table = Table.deal(seed, index, players, options, log=log)
    table.play_game(policy, rng.Stream(seed, index, rng.STREAM_POLICY))
    return table.outcome()


def replay_log(seed: int, index: int, players: int, options: RuleOptions, policy: Policy) -> str:
    """The readable turn log of game ``index`` of a run with ``seed``, one event a line."""
    outcome = play(seed, index, players, options, policy, log=True)
    header = (f"Verflucht! · seed {seed} · game {index} · {players} player{'s' if players > 1 else ''}"
              f" · policy {type(policy).__name__} · end: {END_NAMES[outcome.end]}")
    return "\n".join((header, *outcome.log))


def play_chunk(seed: int, start: int, count: int, players: int, options: RuleOptions, policy: Policy):
    """Games ``start .. start+count-1`` of the run ``seed`` on the reference engine, as outcome arrays
    by column (the kernel's format): how a user's Python policy runs through ``simulate``."""
    import numpy as np

    from cursedsim.games.verflucht.kernel import OUTCOME_DTYPES
    outcomes = [play(seed, start + i, players, options, policy) for i in range(count)]
    return {column: np.array([getattr(o, column) for o in outcomes], dtype=dtype)
            for column, dtype in OUTCOME_DTYPES.items()}
