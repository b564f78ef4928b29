"""The clairvoyant upper bound of Verflucht!: the team knows the deck stream, so every later draw is
known given the decisions; it wins iff some sequence of legal decisions wins (issue 14, point 3).

Depth-first search over the decisions, on a solver-side copy of the game state (the reference engine
stays the oracle: tests replay every winning line through it with :class:`ScriptedPolicy`). The draws
are those of ``reference.Table.draw``: draw k takes position ``below_k(n)`` of the face-down list
(swapped with the last), sealed Creatures are appended in ascending value. Winning is decided when the
last face-down card is drawn and its attack answered; last turns and final Seals only change the score.

Exact reductions (docs/rules/verflucht.md, "clairvoyant"):

- *Postponing.* If, with the display left as it is, none of the next ``players`` draws makes an attack,
  passing dominates every voluntary banishing: the same banishing on the player's next turn reaches
  the same state, and nobody else's options shrink (fewer Creatures never make an attack).
- *Least spending* (``voluntary_seal=True``): a larger hand is never worse (every line of the smaller
  hand stays legal), so Items are spent only in inclusion-minimal sets and dominated outcomes (every
  hand a subset of another outcome's) are dropped. With ``voluntary_seal=False`` a larger hand can
  forbid a Seal, so every sufficing set is a branch there.
- States proven lost are memoised (key: draw count, the Seal history that fixes the face-down list,
  display, hands, Seals left).

A node budget bounds the work: a game whose search runs out is counted as won with ``exact=False``,
so the column ``clairvoyant_won`` is an upper bound on every real policy's win, game by game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

import numpy as np

from cursedsim import rng
from cursedsim.games.intsets import bits as _values   # the members of a set, ascending
from cursedsim.games.verflucht.reference_policies import AttackChoice, Banish
from cursedsim.games.verflucht.policies import SMART as SMART_ID
from cursedsim.games.verflucht.rules import (DISPLAY_LIMIT, FIRST_ITEM_CODE, MAX_PLAYERS, MAX_SEALS, N_CARDS,
                                            RuleOptions)

#: Nodes (decision states expanded) a game may use before its answer becomes an upper bound.
DEFAULT_BUDGET = 5_000
#: Draws a game can take: every card once, plus up to three Creatures back per Seal.
MAX_DRAWS = N_CARDS + 3 * MAX_SEALS
#: Nodes of the pooled relaxation tried at each state of the search before giving up on it there.
POOLED_NODES = 50
#: ... and only with at most this many Seals left (with more, the pooled game is practically never lost).
POOLED_SEALS = 1
#: Limited-discrepancy passes before the full search: at most this many non-preferred moves per line.
LDS_STEPS = (0, 1, 2, 3)


class BudgetExceeded(Exception):
    """The node budget of one game ran out."""


@dataclass(frozen=True)
class Solution:
    """The clairvoyant verdict on one game.

    ``won``: some legal line wins (or, with ``exact=False``, the budget ran out and the game counts as
    won: an upper bound). ``line``: per draw turn (1-based, as ``Table.turns``) the attack answer (or
    None) and the voluntary banishings, for a won exact game. ``nodes``: states expanded.
    """

    won: bool
    exact: bool
    nodes: int
    line: dict[int, tuple[AttackChoice | None, tuple[Banish, ...]]] = field(default_factory=dict)


# ------------------------------------------------------------------ bit helpers (bit v = value v)

def _total(mask: int) -> int:
    return sum(_values(mask))


def _spends(hand: int, need: int, every: bool) -> list[int]:
    """Item sets (masks) of ``hand`` summing to at least ``need``: the inclusion-minimal ones (added
    highest first, stopping at the first that reaches ``need``), or with ``every`` all of them."""
    items = sorted(_values(hand), reverse=True)
    out: list[int] = []

    def grow(start: int, mask: int, total: int) -> None:
        for i in range(start, len(items)):
            m, t = mask | 1 << items[i], total + items[i]
            if t >= need:
                out.append(m)
                if every:
                    grow(i + 1, m, t)
            else:
                grow(i + 1, m, t)

    if need <= 0:
        return [0]
    if sum(items) >= need:
        grow(0, 0, 0)
    return out


def _pareto(options: list[tuple]) -> list[tuple]:
    """Drop every option whose hands are all subsets of another option's (same key otherwise);
    ``options`` are (hands, payload...) with hands a tuple of masks."""
    keep: list[tuple] = []
    for i, opt in enumerate(options):
        hands = opt[0]
        dominated = False
        for j, other in enumerate(options):
            if i == j:
                continue
            oh = other[0]
            if all(a & b == a for a, b in zip(hands, oh)) and (hands != oh or j < i):
                dominated = True
                break
        if not dominated:
            keep.append(opt)
    return keep


def _group(display: int, creature: int) -> list[int]:
    """The run of consecutive values of ``display`` containing ``creature``, ascending."""
    low = creature
    while display >> (low - 1) & 1:
        low -= 1
    high = creature
    while display >> (high + 1) & 1:
        high += 1
    return list(range(low, high + 1))


def _attack(display: int, creature: int) -> tuple[tuple[int, ...], bool] | None:
    """Attackers (highest first) and is_group after ``creature`` joined ``display`` (it is in it)."""
    if display >> (creature - 1) & 1 or display >> (creature + 1) & 1:
        return tuple(reversed(_group(display, creature))), True
    if bin(display).count("1") > DISPLAY_LIMIT:
        return (display.bit_length() - 1,), False
    return None


def _assignments(creatures: list[int], eligible: list[int], totals: dict[int, int]) -> bool:
    """Whether the creatures can be split among ``eligible`` within their whole-hand totals."""
    room = dict(totals)

    def place(k: int) -> bool:
        if k == len(creatures):
            return True
        for p in eligible:
            if room[p] >= creatures[k]:
                room[p] -= creatures[k]
                if place(k + 1):
                    return True
                room[p] += creatures[k]
        return False

    return place(0)


# ------------------------------------------------------------------ the solver

class _Solver:
    """One game's search: the deck stream's draws, the options, the memo of lost states."""

    def __init__(self, seed: int, index: int, players: int, options: RuleOptions, budget: int):
        stream = rng.Stream(seed, index, rng.STREAM_DECK)
        self.raw = [stream.next() >> 32 for _ in range(MAX_DRAWS + 1)]
        self.players = players
        self.options = options
        self.every_spend = not options.voluntary_seal
        self.budget = budget
        self.nodes = 0
        self.lost: dict = {}
        self.final = False
        self.guide = _Guide(players)
        self.line: dict[int, tuple] = {}
        self.pooled = _Pooled(self)

    # ---- the memo of lost states

    def is_lost(self, k, hist, display, hands, seals) -> bool:
        """Proven lost: recorded, or (hands monotone) every hand a subset of a lost state's."""
        entries = self.lost.get((k, hist, display, seals))
        if not entries:
            return False
        if self.every_spend:
            return hands in entries
        return any(all(a & b == a for a, b in zip(hands, other)) for other in entries)

    def add_lost(self, k, hist, display, hands, seals) -> None:
        self.lost.setdefault((k, hist, display, seals), []).append(hands)

    # ---- draws

    def _take(self, k: int, fd: tuple) -> tuple[int, tuple]:
        """Draw k (0-based) from the face-down tuple: (card code, face-down after)."""
        n = len(fd)
        j = (self.raw[k] * n) >> 32
        card = fd[j]
        if j == n - 1:
            return card, fd[:-1]
        return card, fd[:j] + (fd[-1],) + fd[j + 1:-1]

    def _quiet_draws(self, k: int, fd: tuple, display: int, limit: int) -> bool:
        """True when the next ``limit`` draws from draw k make no attack with ``display`` untouched
        (or the cards run out first without one)."""
        fd = list(fd)
        for d in range(k, k + limit):
            if not fd:
                return True
            n = len(fd)
            j = (self.raw[d] * n) >> 32
            fd[j], fd[-1] = fd[-1], fd[j]
            card = fd.pop()
            if card < FIRST_ITEM_CODE:
                v = card + 1
                display |= 1 << v
                if _attack(display, v) is not None:
                    return False
        return True

    # ---- the search

    def turn(self, k: int, fd: tuple, display: int, hands: tuple, seals: int, hist: tuple, disc: int):
        """Can draw turn k + 1 and everything after it be won from this state? True (the line is
        recorded), False (proven lost) or None (not settled within ``disc`` deviations from the
        preferred move)."""
        if not fd:
            return True
        if self.is_lost(k, hist, display, hands, seals):
            return False
        self.nodes += 1
        if self.nodes > self.budget:
            raise BudgetExceeded
        if self._quiet_draws(k, fd, display, len(fd) + 1):
            return True  # nothing attacks any more: pass to the end
        if seals <= POOLED_SEALS and self.pooled.lost_within(k, fd, display, sum(_total(h) for h in hands),
                                                            seals, hist):
            self.add_lost(k, hist, display, hands, seals)
            return False
        p = k % self.players
        card, fd = self._take(k, fd)
        if card >= FIRST_ITEM_CODE:
            hands = hands[:p] + (hands[p] | 1 << (card - FIRST_ITEM_CODE + 1),) + hands[p + 1:]
            result = self.banishing(k, fd, display, hands, seals, hist, p, None, disc)
        else:
            v = card + 1
            display |= 1 << v
            attack = _attack(display, v)
            if attack is None:
                result = self.banishing(k, fd, display, hands, seals, hist, p, None, disc)
            else:
                result = False
                for i, (choice, d2, h2, s2, fd2, hist2) in enumerate(
                        self.answers(k, fd, display, hands, seals, hist, p, attack)):
                    if i and disc == 0:
                        result = None
                        break
                    r = self.banishing(k, fd2, d2, h2, s2, hist2, p, choice, disc - (i > 0))
                    if r:
                        return True
                    if r is None:
                        result = None
        if result is False:
            self.add_lost(k, hist, display, hands, seals)
        return result

    def answers(self, k, fd, display, hands, seals, hist, p, attack):
        """Every legal answer to the attack (dominated plans dropped), as (choice, display, hands,
        seals, face-down, history) after it; good ones first."""
        attackers, is_group = attack
        eligible = [(p + i) % self.players for i in range(self.players)] if is_group else [p]
        totals = {q: _total(hands[q]) for q in eligible}
        plan_exists = _assignments(sorted(attackers, reverse=True), eligible, totals)
        seal_allowed = (self.options.voluntary_seal and seals > 0) or not plan_exists
        plans = []
        if plan_exists:
            plans = self._plans(list(attackers), eligible, hands)
        sealed = []
        if seal_allowed and seals > 0:
            partial_sets = [()]
            if self.options.partial_items_before_seal and len(attackers) > 1:
                partial_sets += [s for r in range(1, len(attackers))
                                 for s in _subsets(attackers, r)]
            for paid in partial_sets:
                rest = [c for c in attackers if c not in paid]
                sub = self._plans(list(paid), eligible, hands) if paid else [(hands, {})]
                for h2, plan in sub:
                    d2 = display
                    for c in attackers:
                        d2 &= ~(1 << c)
                    fd2 = fd + tuple(c - 1 for c in sorted(rest))
                    sealed.append((AttackChoice(seal=True, plan=plan), d2, h2, seals - 1, fd2,
                                   hist + ((k, tuple(sorted(rest))),)))
        out = []
        for h2, plan in plans:
            d2 = display
            for c in attackers:
                d2 &= ~(1 << c)
            out.append((AttackChoice(seal=False, plan=plan), d2, h2, seals, fd, hist))
        spent = lambda o: sum(_total(a) - _total(b) for a, b in zip(hands, o[2]))
        out.sort(key=spent)
        if sealed:
            cheap = [o for o in out if spent(o) <= sum(attackers) + 2]
            rest = [o for o in out if spent(o) > sum(attackers) + 2]
            out = cheap + sealed + rest
        preferred = self.guide.attack(fd, display, hands, seals, p, attackers, is_group, seal_allowed, k, hist)
        if preferred is not None:
            same = [o for o in out if o[1:4] == preferred[1:4]]
            out = [same[0] if same else preferred] + [o for o in out if o[1:4] != preferred[1:4]]
        return out

    def _plans(self, creatures: list[int], eligible: list[int], hands: tuple) -> list[tuple]:
        """Every way (after dominance) to banish ``creatures`` with the eligible players' Items:
        (hands after, plan {player: (creatures, items)})."""
        found = []
        for owners in product(eligible, repeat=len(creatures)):
            per: dict[int, list[int]] = {}
            for c, q in zip(creatures, owners):
                per.setdefault(q, []).append(c)
            choices = []
            ok = True
            for q, cs in per.items():
                spends = _spends(hands[q], sum(cs), self.every_spend)
                if not spends:
                    ok = False
                    break
                choices.append([(q, tuple(sorted(cs, reverse=True)), s) for s in spends])
            if not ok:
                continue
            for combo in product(*choices):
                h = list(hands)
                plan = {}
                for q, cs, s in combo:
                    h[q] &= ~s
                    plan[q] = (cs, tuple(_values(s)))
                found.append((tuple(h), plan))
        unique = {}
        for h, plan in found:
            unique.setdefault(h, plan)
        found = list(unique.items())
        return found if self.every_spend else _pareto(found)

    def banishing(self, k, fd, display, hands, seals, hist, p, choice, disc):
        """Voluntary banishing of player p after draw k, then the next turn (as :meth:`turn`)."""
        if not fd:
            self.line[k + 1] = (choice, ())
            return True
        options = [((), display, hands)]
        if not (display and hands[p]):
            pass
        elif not self._quiet_draws(k + 1, fd, display, self.players):
            options += self._banishments(display, hands, p)
            # banishings that quiet the next draws first, cheapest first; then the rest
            spent = lambda o: _total(hands[p]) - _total(o[2][p])
            quiet = lambda o: self._quiet_draws(k + 1, fd, o[1], self.players)
            options.sort(key=lambda o: (not quiet(o), spent(o)))
            preferred = self.guide.banish(fd, display, hands, seals, p)
            same = [o for o in options if o[1:] == preferred[1:]]
            options = [same[0] if same else preferred] + [o for o in options if o[1:] != preferred[1:]]
        elif not self.final:
            # passing dominates here; the guide's banishing is only tried in the limited passes
            preferred = self.guide.banish(fd, display, hands, seals, p)
            if preferred[0]:
                options.insert(0, preferred)
        result = False
        for i, (banished, d2, h2) in enumerate(options):
            if i and disc == 0:
                return None
            r = self.turn(k + 1, fd, d2, h2, seals, hist, disc - (i > 0))
            if r:
                self.line[k + 1] = (choice, banished)
                return True
            if r is None:
                result = None
        return result

    def _banishments(self, display: int, hands: tuple, p: int) -> list[tuple]:
        """Every nonempty set of display Creatures player p can banish, each with the undominated
        ways to pay: (banishes, display after, hands after)."""
        hand = hands[p]
        total = _total(hand)
        creatures = [c for c in _values(display) if c <= total]
        out = []
        for r in range(1, len(creatures) + 1):
            for chosen in _subsets(creatures, r):
                if sum(chosen) > total:
                    continue
                results: list[tuple] = []

                def pay(i, left, done):
                    if i == len(chosen):
                        results.append(((left,), tuple(done)))
                        return
                    for s in _spends(left, chosen[i], self.every_spend):
                        pay(i + 1, left & ~s, done + [Banish(chosen[i], tuple(_values(s)))])

                pay(0, hand, [])
                unique = {}
                for h, done in results:
                    unique.setdefault(h, done)
                results = list(unique.items())
                if not self.every_spend:
                    results = _pareto(results)
                d2 = display
                for c in chosen:
                    d2 &= ~(1 << c)
                for (left,), done in results:
                    out.append((done, d2, hands[:p] + (left,) + hands[p + 1:]))
        return out


class _Guide:
    """The move the ``smart`` policy (numba, default parameters) would make, tried first: the search
    starts from its line and deviates one move at a time (limited discrepancy)."""

    def __init__(self, players: int):
        from cursedsim.games.verflucht import policies
        self.pol = policies
        self.players = players
        self.params = policies.params_tuple(policies.POLICIES["smart"].param_vector())
        self.rng = (np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4))

    def _public(self, fd, display, hands):
        in_fd_c = in_fd_i = 0
        for c in fd:
            if c < FIRST_ITEM_CODE:
                in_fd_c |= 1 << (c + 1)
            else:
                in_fd_i |= 1 << (c - FIRST_ITEM_CODE + 1)
        held = 0
        for h in hands:
            held |= h
        every = ((1 << 41) - 2)
        return np.uint64(every & ~in_fd_c & ~display), np.uint64(every & ~in_fd_i & ~held)

    def _hands(self, hands):
        return tuple(np.uint64(h) for h in hands) + (np.uint64(0),) * (MAX_PLAYERS - len(hands))

    def attack(self, fd, display, hands, seals, p, attackers, is_group, seal_allowed, k, hist):
        """(choice, display, hands, seals, face-down, history) of smart's answer, or None (a Seal with
        none left)."""
        gone_c, gone_i = self._public(fd, display, hands)
        mask = 0
        for c in attackers:
            mask |= 1 << c
        seal, take, use, _ = self.pol.decide_attack(
            SMART_ID, self.params, self.rng, self._hands(hands), self.players, p, np.uint64(display),
            np.uint64(mask), bool(is_group), bool(seal_allowed), seals, len(fd), gone_c, gone_i)
        plan = {q: (tuple(sorted(_values(int(take[q])), reverse=True)), tuple(_values(int(use[q]))))
                for q in range(self.players) if take[q] or use[q]}
        h2 = tuple(h & ~int(use[q]) for q, h in enumerate(hands))
        d2 = display
        for c in attackers:
            d2 &= ~(1 << c)
        if not seal:
            return AttackChoice(seal=False, plan=plan), d2, h2, seals, fd, hist
        if seals == 0:
            return None
        paid = set(c for cs, _ in plan.values() for c in cs)
        rest = tuple(sorted(c for c in attackers if c not in paid))
        return (AttackChoice(seal=True, plan=plan), d2, h2, seals - 1, fd + tuple(c - 1 for c in rest),
                hist + ((k, rest),))

    def banish(self, fd, display, hands, seals, p):
        """(banishes, display, hands) of smart's voluntary banishing on p's turn."""
        gone_c, gone_i = self._public(fd, display, hands)
        hand, done = hands[p], []
        while hand and display:
            c, items, _ = self.pol.decide_banish(SMART_ID, self.params, self.rng, np.uint64(hand), self.players,
                                                 p, np.uint64(display), seals, len(fd), gone_c, gone_i, False)
            if int(c) == 0:
                break
            done.append(Banish(int(c), tuple(_values(int(items)))))
            hand &= ~int(items)
            display &= ~(1 << int(c))
            gone_c = np.uint64(int(gone_c) | 1 << int(c))
            gone_i = np.uint64(int(gone_i) | int(items))
        return tuple(done), display, hands[:p] + (hand,) + hands[p + 1:]


class _Pooled:
    """The pooled relaxation: every Item goes to one purse that anyone may spend at any time, paying a
    Creature costs exactly its value, and any partly paid group may be sealed. Every real line maps to
    a pooled line with at least as much money (overpaying only loses value), so a pooled loss proves a
    real loss. Banishing only just before a draw that would make an attack is enough there (money
    keeps, and a Creature costs the same later), and only the inclusion-minimal sets that stop it.
    Lost states are memoised with the most money proven not to suffice."""

    def __init__(self, solver: _Solver):
        self.s = solver
        self.lost: dict = {}
        self.nodes = 0
        self.limit = 0

    def lost_within(self, k, fd, display, money, seals, hist, nodes: int = POOLED_NODES) -> bool:
        """True when the pooled game is proven lost from this state within ``nodes`` more nodes."""
        self.limit = self.nodes + nodes
        try:
            return not self.won(k, fd, display, money, seals, hist)
        except BudgetExceeded:
            return False

    def won(self, k: int, fd: tuple, display: int, money: int, seals: int, hist: tuple) -> bool:
        """Whether the pooled game can be won from this state (before draw k)."""
        s = self.s
        while True:
            if not fd:
                return True
            key = (k, hist, display, seals)
            if self.lost.get(key, -1) >= money:
                return False
            card, fd2 = s._take(k, fd)
            if card >= FIRST_ITEM_CODE:
                k, fd, money = k + 1, fd2, money + card - FIRST_ITEM_CODE + 1
                continue
            v = card + 1
            if _attack(display | 1 << v, v) is None:
                k, fd, display = k + 1, fd2, display | 1 << v
                continue
            break
        self.nodes += 1
        if self.nodes > self.limit:
            raise BudgetExceeded
        if self._options(k, fd, fd2, display, v, money, seals, hist):
            return True
        self.lost[key] = max(self.lost.get(key, -1), money)
        return False

    def _options(self, k, fd, fd2, display, v, money, seals, hist) -> bool:
        """Before the draw of Creature v that would make an attack: banish any set first (only the
        inclusion-minimal ones among those that stop the attack), then answer what attacks: pay it
        all, or pay part (a partial plan only with option ``partial_items_before_seal``) and seal the
        rest."""
        partial = self.s.options.partial_items_before_seal
        creatures = _values(display)
        subsets = [x for r in range(len(creatures) + 1) for x in _subsets(creatures, r) if sum(x) <= money]
        stoppers, attacked = [], []
        for chosen in subsets:
            d1 = display
            for c in chosen:
                d1 &= ~(1 << c)
            attack = _attack(d1 | 1 << v, v)
            if attack is None:
                stoppers.append((chosen, d1))
            else:
                attacked.append((chosen, d1, attack[0]))
        stoppers.sort(key=lambda x: len(x[0]))
        minimal = []
        for chosen, d1 in stoppers:
            if not any(set(m) <= set(chosen) for m, _ in minimal):
                minimal.append((chosen, d1))
        for chosen, d1 in minimal:
            if self.won(k + 1, fd2, d1 | 1 << v, money - sum(chosen), seals, hist):
                return True
        for chosen, d1, attackers in attacked:
            left = money - sum(chosen)
            d2 = d1 | 1 << v
            for c in attackers:
                d2 &= ~(1 << c)
            if left >= sum(attackers) and self.won(k + 1, fd2, d2, left - sum(attackers), seals, hist):
                return True
            if seals == 0:
                continue
            paid_sets = [()]
            if partial:
                paid_sets += [x for r in range(1, len(attackers)) for x in _subsets(attackers, r)]
            for paid in paid_sets:
                if sum(paid) > left:
                    continue
                rest = tuple(sorted(c for c in attackers if c not in paid))
                if self.won(k + 1, fd2 + tuple(c - 1 for c in rest), d2, left - sum(paid), seals - 1,
                            hist + ((k, rest),)):
                    return True
        return False


def _subsets(values, r):
    from itertools import combinations
    return list(combinations(values, r))


# ------------------------------------------------------------------ public entry points

def solve(seed: int, index: int, players: int, options: RuleOptions | None = None, *,
          budget: int = DEFAULT_BUDGET) -> Solution:
    """The clairvoyant verdict on game ``index`` of a run with ``seed`` (the runner's deal)."""
    options = options or RuleOptions()
    solver = _Solver(seed, index, players, options, budget)
    fd = tuple(range(N_CARDS))
    hands = (0,) * players
    try:
        for disc in (*LDS_STEPS, MAX_DRAWS * 1000):
            solver.final = disc not in LDS_STEPS
            won = solver.turn(0, fd, 0, hands, options.seals_for(players), (), disc)
            if won is not None:
                break
    except BudgetExceeded:
        return Solution(won=True, exact=False, nodes=solver.nodes)
    return Solution(won=won, exact=True, nodes=solver.nodes, line=dict(solver.line) if won else {})


def solve_chunk(seed: int, start: int, count: int, players: int, options: RuleOptions | None = None, *,
                budget: int = DEFAULT_BUDGET) -> dict[str, np.ndarray]:
    """Games ``start .. start+count-1`` of the run ``seed``: ``clairvoyant_won`` (an upper bound on
    every policy's ``win``), ``clairvoyant_exact`` and ``clairvoyant_nodes``, one entry per game."""
    sols = [solve(seed, start + i, players, options, budget=budget) for i in range(count)]
    return {"clairvoyant_won": np.array([s.won for s in sols], np.bool_),
            "clairvoyant_exact": np.array([s.exact for s in sols], np.bool_),
            "clairvoyant_nodes": np.array([s.nodes for s in sols], np.int64)}


class ScriptedPolicy:
    """Plays a solved line on the reference engine: the recorded answer on each attack and the
    recorded banishings on each draw turn, then passes (last turns included)."""

    def __init__(self, line: dict[int, tuple[AttackChoice | None, tuple[Banish, ...]]]):
        self.line = line
        self._queue: dict[int, list[Banish]] = {t: list(b) for t, (_, b) in line.items()}

    def attack(self, table, attackers, is_group, seal_allowed, rng_):
        choice = self.line.get(table.turns, (None, ()))[0]
        if choice is None:
            raise RuntimeError(f"the line has no answer for the attack on turn {table.turns}")
        return choice

    def banish(self, table, player, last_turn, rng_):
        if last_turn:
            return None
        queue = self._queue.get(table.turns)
        return queue.pop(0) if queue else None
