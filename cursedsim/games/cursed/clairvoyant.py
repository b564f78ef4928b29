"""The clairvoyant upper bound of Cursed!?: a player who knows the shuffled deck and every later draw of
the deck stream. Given the decisions the game is then deterministic, so it is won iff some sequence of
legal decisions wins; its win rate bounds every real policy's from above, game by game.

The solver steps copies of the reference :class:`~reference.Table` between decisions. The rule steps
(``apply``, ``attack``, ``use_item``, ``stop``, ``capture``, ``escape``, ...) are the Table's own; only
the control flow that calls a policy (``take_starting_items``, ``play_round``, ``pile_check``,
``between_fights``, ``fight``, ``open_chest``, ``gain_item``) is written again here as a state machine
(``_advance``), so a decision point can be copied and each of its choices tried. A winning line is the
list of answers the engine asks for, in order; :class:`ScriptedPolicy` plays it back through
``reference.play`` (the tests replay every win that way: the engine stays the oracle).

Search: depth first over the positions where a fight begins. At each, every distinct way the fight
(with the between-fights windows and the chest after it) can end is enumerated by trying every decision
the engine asks (fight and between-fights actions; at an attack the 1/6 value, the Spear's kind and each
subset of the open Relic, Whetstone and Frenzy Potion; the Soul Crystal); those ends are tried best
first (by a static score of souls, cards left and items, some orders with seeded random tie-breaks; or
by a greedy rollout that draws when the top card fits, else as ``counting``), stopping at the first win.
Positions proven lost are remembered by a canonical key (card copies mapped to their unique card,
counters that no rule reads left out, the deck stream's state in). Restarts cycle through the orders of
``ORDERS`` with doubling node limits; the positions proven lost, the ends of every fight expanded and
the rollout scores are kept across restarts, so a restart re-walks the part of the tree already
expanded without spending nodes on it and the orders share one growing tree (the finding of wins is
heavy-tailed in the order: one order may need ten times the nodes of another on the same game, so a
portfolio of orders settles more games than any one). Nothing is pruned but positions proven lost:
an order only decides which choice is tried first.
A game whose search exceeds ``budget`` decision nodes is counted as won with ``exact=False``, so a
column of results stays an upper bound (docs/bounds.md).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import numpy as np

from cursedsim import rng
from cursedsim.games.cursed.reference import (
    CLOSE_CAPTURE,
    CLOSE_LOST,
    CLOSE_SMOKE,
    NO_CHOICE,
    DRAW,
    PLAY,
    STOP,
    Action,
    AttackChoice,
    AttackOptions,
    IllegalDecision,
    Table,
)
from cursedsim.games.cursed.reference_policies import CountingPolicy
from cursedsim.games.cursed.rules import (
    CARD_CHEST,
    CARD_UNIQUE,
    CARD_WEAPON_HIGH,
    CARD_WEAPON_POWER,
    END_PILE_EMPTY,
    ITEM_OF_CARD,
    ITEM_SLUGS,
    MELEE,
    MIMIC,
    NO_START_ITEM,
    RANGED,
    RuleOptions,
)

#: Default node budget per game (decision points expanded); see docs/bounds.md for what was measured.
DEFAULT_BUDGET = 20_000

# Where the game stands between two decisions (the program counter of ``_advance``).
SETUP = 0          # take starting item number ``ctx``
ROUND = 1          # a round begins: the between-fights window, then the pile check and the monster
WINDOW = 2         # a between-fights window is open; ``ctx`` says what follows (MONSTER or CHEST)
FIGHT = 3          # a fight decision point; ``ctx`` says what follows the fight
MONSTER = 4        # pile check, then draw the round's monster
CHEST = 5          # pile check (empty_pile_before_chest), then open the chest
OPEN_CHEST = 6     # open the chest (no pile check)
OVER = 7           # the game has ended

# What follows a fight (``ctx`` of FIGHT): a round's monster (its card), or a Mimic! fought as an item.
AFTER_MIMIC_CHEST = -1
AFTER_SETUP_BASE = -100   # AFTER_SETUP_BASE - k: a starting Mimic!, then starting item k


@dataclass(frozen=True)
class Solution:
    """The answer for one game: ``won``; ``line``, the decisions of a winning line in the order the
    engine asks them (``Action`` at a decision point, ``AttackChoice`` at an attack, ``bool`` for a Soul
    Crystal), empty unless a win was found; ``nodes``, decision points searched; ``exact``, False when
    the budget ran out first (then ``won`` is True as an upper bound and ``line`` is empty)."""

    won: bool
    line: tuple = ()
    nodes: int = 0
    exact: bool = True


class ScriptedPolicy:
    """Plays a fixed line of decisions through the reference engine (a reference ``Policy``). Once the
    line is used up (only after the win, with ``play_on_after_win``) it answers STOP / no choice / no.
    ``exhausted`` tells whether every decision of the line was asked for."""

    label = "scripted"

    def __init__(self, line):
        self.line = list(line)
        self.at = 0

    @property
    def exhausted(self) -> bool:
        return self.at == len(self.line)

    def _next(self, kind):
        if self.at == len(self.line):
            return None
        answer = self.line[self.at]
        if not isinstance(answer, kind):
            raise IllegalDecision(f"scripted line: decision {self.at} is {answer!r}, the engine asks for a "
                                  f"{kind.__name__}")
        self.at += 1
        return answer

    def fight(self, table, legal, rng_):
        answer = self._next(Action)
        return Action(STOP) if answer is None else answer

    def attack(self, table, card, open_, rng_):
        answer = self._next(AttackChoice)
        if answer is None:
            return AttackChoice(CARD_WEAPON_POWER[card] if open_.value else 0, MELEE if open_.kind else 0)
        return answer

    def crystal(self, table, card, total, rng_):
        answer = self._next(bool)
        return bool(answer)


class _Oracle:
    """The policy handed to ``Table.apply`` inside the search: answers the attack with a preset choice
    and the Soul Crystal with a preset answer, noting whether the crystal was asked."""

    __slots__ = ("choice", "answer", "asked")

    def __init__(self, choice: AttackChoice, answer: bool):
        self.choice, self.answer, self.asked = choice, answer, False

    def fight(self, table, legal, rng_):   # pragma: no cover - the solver never lets the table ask
        raise AssertionError("the solver drives the decision points itself")

    def attack(self, table, card, open_, rng_):
        return self.choice

    def crystal(self, table, card, total, rng_):
        self.asked = True
        return self.answer


# ---------------------------------------------------------------- copying and keys

def _copy_stream(stream: rng.Stream) -> rng.Stream:
    copy = rng.Stream.__new__(rng.Stream)
    copy.s = list(stream.s)
    return copy


#: The Table's list attributes a rule step may change (``events`` stays shared: the solver never logs).
_LISTS = ("pile", "discard", "souls", "items", "stored", "used_count", "weapons", "used", "whettable")
#: bytes.translate table: card id -> unique card.
_UNIQUE_BYTES = bytes(CARD_UNIQUE) + bytes(256 - len(CARD_UNIQUE))


def copy_table(table: Table) -> Table:
    """An independent copy of a table (its lists copied, the deck stream at the same point)."""
    copy = Table.__new__(Table)
    state = table.__dict__.copy()
    for name in _LISTS:
        state[name] = state[name][:]
    state["deck_rng"] = _copy_stream(table.deck_rng)
    copy.__dict__ = state
    return copy


def _uniques(cards) -> bytes:
    return bytes(cards).translate(_UNIQUE_BYTES)


def state_key(table: Table, pc: int, ctx: int) -> tuple:
    """A canonical key of a position: two positions with the same key have the same future. Copies of a
    card are interchangeable (every rule reads the unique card; which copy an item use names is a
    label), so zones hold unique cards; ordered zones keep their order (shuffles are positional);
    counters no rule reads (rounds, damage, used counts) are left out."""
    t = table
    if pc == FIGHT and ctx >= 0:
        ctx = -2 if CARD_CHEST[ctx] else -3    # the round's monster: only whether it guards a chest
    return (pc, ctx, _uniques(t.pile), _uniques(t.discard), len(t.souls), _uniques(sorted(t.items)),
            _uniques(sorted(t.stored)), tuple(t.deck_rng.s),
            CARD_UNIQUE[t.monster] if t.monster >= 0 else -1, t.is_mimic, t.power, t.trait, t.total, t.attacks,
            t.trait_spent, t.blocked, t.whetstone_armed, t.frenzy_armed, _uniques(t.weapons), _uniques(t.used),
            _uniques(sorted(t.whettable)), t.between)


# ---------------------------------------------------------------- the game as a state machine

def _gain(table: Table, card: int, after: int) -> tuple[int, int] | None:
    """``Table.gain_item`` without the nested fight: an item joins the items (None: go on); a Mimic! opens
    a fight, returned as (FIGHT, after)."""
    if ITEM_OF_CARD[card] != MIMIC:
        table.items.append(card)
        return None
    table.used_count[MIMIC] += 1
    table.open_fight(card, True)
    return FIGHT, after


def _close_fight(table: Table, close: int, after: int) -> tuple[int, int]:
    """The end of ``Table.fight`` from the close code on, then what follows the fight."""
    t = table
    captured = False
    if close == CLOSE_SMOKE:
        t.escape()
    else:
        damage = 0 if close == CLOSE_CAPTURE else t.stop()
        if damage > len(t.pile):
            t.final_monster(damage, close == CLOSE_LOST)
        else:
            t.take_damage(damage)
            if close == CLOSE_LOST:
                t.lose_soul()
            else:
                t.capture()
                captured = True
    if after <= AFTER_SETUP_BASE:
        return SETUP, AFTER_SETUP_BASE - after
    if after == AFTER_MIMIC_CHEST:
        return ROUND, 0
    if captured and t.end is None and CARD_CHEST[after]:
        return (CHEST, 0) if t.options.empty_pile_before_chest else (OPEN_CHEST, 0)
    return ROUND, 0


def _open_window(table: Table, then: int) -> tuple[int, int]:
    if table.options.items_between_fights:
        table.between = True
        return WINDOW, then
    return then, 1    # ctx 1: the window is done


def _close_window(table: Table) -> None:
    table.between = False
    table.discard.extend(table.used)
    table.used = []


def _advance(table: Table, pc: int, ctx: int) -> tuple[int, int]:
    """Run the rules from (pc, ctx) until a decision with a choice (a fight decision point or a window
    with more than STOP open) or the end; returns the new (pc, ctx)."""
    t = table
    options = t.options
    while True:
        if t.end is not None:
            return OVER, 0
        if pc == SETUP:
            if ctx >= options.starting_items or not t.pile:
                pc, ctx = ROUND, 0
                continue
            card = t.pile.pop()
            if options.starting_mimic == "redraw":
                for _ in range(len(t.pile)):
                    if ITEM_OF_CARD[card] != MIMIC:
                        break
                    t.pile.insert(0, card)
                    card = t.pile.pop()
            if t.start_item == NO_START_ITEM:
                t.start_item = ITEM_OF_CARD[card]
            fight = _gain(t, card, AFTER_SETUP_BASE - (ctx + 1))
            if fight is not None:
                pc, ctx = fight
            else:
                ctx += 1
        elif pc == ROUND:
            pc, ctx = _open_window(t, MONSTER)
        elif pc == WINDOW:
            if len(t.legal_actions()) > 1:
                return pc, ctx
            _close_window(t)
            pc, ctx = ctx, 1
        elif pc in (MONSTER, CHEST) and ctx == 0:
            pc, ctx = _open_window(t, pc)
        elif pc in (MONSTER, CHEST):
            if not t.pile:
                t.finish(END_PILE_EMPTY)
                return OVER, 0
            if pc == MONSTER:
                monster = t.draw_monster()
                t.open_fight(monster, False)
                pc, ctx = FIGHT, monster
            else:
                pc, ctx = OPEN_CHEST, 0
        elif pc == OPEN_CHEST:
            cards = t.discard if options.chest_loot == "discard" else t.pile
            if not cards:
                pc, ctx = ROUND, 0
                continue
            if options.chest_loot == "discard":
                t.shuffle(cards)
            fight = _gain(t, cards.pop(), AFTER_MIMIC_CHEST)
            pc, ctx = fight if fight is not None else (ROUND, 0)
        elif pc == FIGHT:
            legal = t.legal_actions()
            if len(legal) > 1:
                return pc, ctx
            close = t.apply(legal[0], None, None)
            pc, ctx = _close_fight(t, close, ctx)
        else:
            raise AssertionError(f"bad program counter {pc}")


# ---------------------------------------------------------------- the choices at a decision point

def attack_choices(table: Table, card: int, open_: AttackOptions) -> list[AttackChoice]:
    """Every answer the rules allow when ``card`` attacks with ``open_``: the 1/6 value, the Spear's
    kind, and each subset of the open items (Relic, Whetstone, Frenzy Potion)."""
    if not open_.any():
        return [NO_CHOICE]
    values = (CARD_WEAPON_POWER[card], CARD_WEAPON_HIGH[card]) if open_.value else (0,)
    kinds = (MELEE, RANGED) if open_.kind else (0,)
    flags = [(False, True) if getattr(open_, name) else (False,) for name in ("relic", "whetstone", "frenzy")]
    return [AttackChoice(v, k, r, w, f) for v, k, (r, w, f) in
            itertools.product(values, kinds, itertools.product(*flags))]


def promise(table: Table, pc: int, weights: tuple[float, float]) -> float:
    """How promising a position between fights looks (orders the search, never prunes): the cards of
    life left, plus souls and held items at ``weights`` = (cards per soul, cards per item); Backpack
    weapons count one card each."""
    if table.won:
        return 1e9
    if pc == OVER:
        return -1e9
    soul, item = weights
    return soul * len(table.souls) + len(table.pile) + item * len(table.items) + len(table.stored)


#: The search orders tried in turn (restarts): ``promise`` weights, the same with a seed (near-ties broken
#: at random, seeded so a solve is reproducible), or None for the order the choices come in (counting's
#: line first). Search order only: every order explores every choice. ("rollout", ordering by a greedy
#: playout of each end, is available; it costs more nodes than it saves: docs/bounds.md.)
ORDERS = ((6.0, 2.0), None, (4.0, 1.5), (6.0, 2.0, 1), (4.0, 1.5, 2))
#: The first restart's node limit per order; each round of restarts doubles it.
FIRST_LIMIT = 2000


class _Search:
    """One game's depth-first search (see the module docstring)."""

    def __init__(self, budget: int):
        self.budget = budget
        self.order = ORDERS[0]
        self.limit = budget
        self.nodes = 0
        self.lost: set = set()
        self.counting = CountingPolicy()
        self.out_of_budget = False
        #: fight-start key -> its distinct ends (``outcomes``), kept across restarts: a restart re-walks
        #: the top of the tree without expanding it again
        self.ends: dict = {}
        #: child key -> its rollout score (``rollout``), kept likewise
        self.scores: dict = {}

    def children(self, table: Table, pc: int, ctx: int):
        """Yield (decisions, child table, pc, ctx) for every choice at this decision point, the greedy
        choice (``greedy``) first; children with equal keys are yielded once."""
        legal = table.legal_actions()
        preferred = self.greedy(table, pc, legal)
        order = [preferred] + [a for a in legal if a != preferred]
        seen = set()
        for action in order:
            if pc == WINDOW:
                child = copy_table(table)
                if action.kind == STOP:
                    _close_window(child)
                    cpc, cctx = _advance(child, ctx, 1)
                else:
                    child.use_item(action.card, action.target)
                    cpc, cctx = _advance(child, WINDOW, ctx)
                yield from self._unique(seen, (action,), child, cpc, cctx)
                continue
            if action.kind not in (DRAW, PLAY):      # USE, STOP: no attack
                child = copy_table(table)
                close = child.apply(action, None, None)
                cpc, cctx = (FIGHT, ctx) if close is None else _close_fight(child, close, ctx)
                cpc, cctx = _advance(child, cpc, cctx)
                yield from self._unique(seen, (action,), child, cpc, cctx)
                continue
            card = table.pile[-1] if action.kind == DRAW else action.card   # the clairvoyant sees the top card
            open_ = table.attack_options(card)
            choices = attack_choices(table, card, open_)
            if open_.any():
                liked = self.counting.attack(table, card, open_, None)
                choices.sort(key=lambda c: c != liked)
            for choice in choices:
                asked = open_.any()
                for answer in (True, False):
                    child = copy_table(table)
                    oracle = _Oracle(choice, answer)
                    close = child.apply(action, oracle, None)
                    cpc, cctx = (FIGHT, ctx) if close is None else _close_fight(child, close, ctx)
                    cpc, cctx = _advance(child, cpc, cctx)
                    decisions = (action,) + ((choice,) if asked else ()) + ((answer,) if oracle.asked else ())
                    yield from self._unique(seen, decisions, child, cpc, cctx)
                    if not oracle.asked:
                        break

    def greedy(self, table: Table, pc: int, legal: list[Action]) -> Action:
        """The choice tried first: draw when the top card (the clairvoyant sees it) fits the gap or an
        overshoot would capture, else counting's choice."""
        if pc == FIGHT and legal[0].kind == DRAW:
            top = table.pile[-1]
            low, high = CARD_WEAPON_POWER[top], CARD_WEAPON_HIGH[top]
            if low <= table.gap or (high and high <= table.gap) or table.overshoot_captures():
                return legal[0]
        preferred = self.counting.fight(table, legal, None)
        return preferred if preferred in legal else legal[0]

    def rollout(self, table: Table, pc: int, ctx: int) -> tuple:
        """Play the greedy choices to the end: (won, souls, cards left), to order the search."""
        while pc != OVER and not table.won and self.nodes <= self.limit:
            self.nodes += 1
            _, table, pc, ctx = next(self.children(table, pc, ctx))
        return table.won, len(table.souls), len(table.pile)

    def score(self, kid) -> tuple:
        """The rollout score of a fight end (``rollout``), remembered by the end's key."""
        _, table, pc, ctx = kid
        key = (OVER, table.won) if pc == OVER or table.won else state_key(table, pc, ctx)
        score = self.scores.get(key)
        if score is None:
            score = self.rollout(table, pc, ctx)
            if self.nodes <= self.limit:
                self.scores[key] = score
        return score

    def _unique(self, seen, decisions, child, pc, ctx):
        key = state_key(child, pc, ctx) if pc != OVER else (OVER, child.won)
        if key not in seen:
            seen.add(key)
            yield decisions, child, pc, ctx

    def outcomes(self, table: Table, pc: int, ctx: int) -> list:
        """Every distinct position where this fight (with the windows and the chest after it) is over:
        the next fight's first decision point, or the end; as (decisions, table, pc, ctx), counting's
        line first. Each decision point expanded counts as a node."""
        fight = (table.rounds, table.used_count[MIMIC])
        found, seen = [], set()

        def expand(t, p, c, prefix):
            self.nodes += 1
            if self.nodes > self.limit:
                self.out_of_budget = True
                return
            for decisions, child, cpc, cctx in self.children(t, p, c):
                key = (OVER, child.won) if cpc == OVER or child.won else state_key(child, cpc, cctx)
                if key in seen:
                    continue
                seen.add(key)
                line = prefix + decisions
                if child.won or cpc == OVER or (child.rounds, child.used_count[MIMIC]) != fight:
                    found.append((line, child, cpc, cctx))
                    if child.won:
                        return
                else:
                    expand(child, cpc, cctx, line)
                if self.out_of_budget or (found and found[-1][1].won):
                    return

        expand(table, pc, ctx, ())
        return found

    def won(self, table: Table, pc: int, ctx: int, line: list) -> bool:
        """Whether the position (a decision point starting a fight, or the end) can be won; on a win
        ``line`` holds the decisions from here."""
        if table.won:
            return True
        if pc == OVER:
            return False
        key = state_key(table, pc, ctx)
        if key in self.lost:
            return False
        kids = self.ends.get(key)
        if kids is None:
            kids = self.outcomes(table, pc, ctx)
            if self.out_of_budget:
                return False
            self.ends[key] = kids
        if self.order == "rollout":
            scores = [self.score(kid) for kid in kids]
            if self.nodes > self.limit:
                self.out_of_budget = True
                return False
            kids = [kid for _, kid in sorted(zip(scores, kids), key=lambda pair: pair[0], reverse=True)]
        elif self.order is not None:
            if len(self.order) == 3:     # weights and a seed: ties and near-ties broken at random
                jitter = random.Random(self.order[2])
                keyed = [(-promise(kid[1], kid[2], self.order[:2]) + jitter.random(), n)
                         for n, kid in enumerate(kids)]
                kids = [kids[n] for _, n in sorted(keyed)]
            else:
                kids = sorted(kids, key=lambda kid: -promise(kid[1], kid[2], self.order))
        for decisions, child, cpc, cctx in kids:
            if self.won(child, cpc, cctx, line):
                line[0:0] = decisions
                return True
            if self.out_of_budget:
                return False
        self.lost.add(key)
        return False


def solve(seed: int, index: int, options: RuleOptions | None = None, *, budget: int = DEFAULT_BUDGET) -> Solution:
    """Whether game ``index`` of the run ``seed`` (the runner's deal) can be won by some sequence of
    legal decisions, searching at most ``budget`` decision points."""
    table = Table.deal(seed, index, options if options is not None else RuleOptions())
    if table.options.starting_item != "random" and table.options.starting_items > 0:
        table.force_starting_item(ITEM_SLUGS.index(table.options.starting_item))
    return solve_position(table, budget=budget)


def solve_position(table: Table, *, budget: int = DEFAULT_BUDGET) -> Solution:
    """Solve from a table at set-up (starting items not yet taken; a dealt table, or one laid out by
    hand with a ``deck_rng``). The table is not changed. Restarts cycle through ``ORDERS`` with
    doubling node limits; positions proven lost, the ends of each fight expanded and the rollout
    scores stay known across restarts."""
    table = copy_table(table)
    pc, ctx = _advance(table, SETUP, 0)
    search = _Search(budget)
    limit = FIRST_LIMIT
    while True:
        for order in ORDERS:
            search.order, search.out_of_budget = order, False
            search.limit = min(budget, search.nodes + limit)
            line: list = []
            won = search.won(table, pc, ctx, line)
            if not search.out_of_budget:
                return Solution(won, tuple(line) if won else (), search.nodes, True)
            if search.nodes >= budget:
                return Solution(True, (), search.nodes, False)
        limit *= 2


def solve_chunk(seed: int, start: int, count: int, options: RuleOptions | None = None, *,
                budget: int = DEFAULT_BUDGET) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of the run ``seed``: ``clairvoyant_won`` (an upper bound: a
    game out of budget counts as won), ``clairvoyant_exact``, ``clairvoyant_nodes`` and
    ``clairvoyant_line_length`` (decisions of the winning line, 0 when none)."""
    solutions = [solve(seed, start + i, options, budget=budget) for i in range(count)]
    return {"clairvoyant_won": np.array([s.won for s in solutions], dtype=bool),
            "clairvoyant_exact": np.array([s.exact for s in solutions], dtype=bool),
            "clairvoyant_nodes": np.array([s.nodes for s in solutions], dtype=np.int64),
            "clairvoyant_line_length": np.array([len(s.line) for s in solutions], dtype=np.int32)}


def replay_line(seed: int, index: int, options: RuleOptions | None, line) -> tuple[bool, bool]:
    """Play ``line`` through the reference engine: (won, every decision of the line was asked for)."""
    from cursedsim.games.cursed.reference import play
    policy = ScriptedPolicy(line)
    outcome = play(seed, index, options if options is not None else RuleOptions(), policy)
    return outcome.win, policy.exhausted


__all__ = ["DEFAULT_BUDGET", "ScriptedPolicy", "Solution", "attack_choices", "copy_table", "replay_line", "solve",
           "solve_chunk", "solve_position", "state_key"]
