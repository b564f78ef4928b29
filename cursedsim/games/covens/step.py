"""Curses & Covens stepped one decision at a time (``cursedsim.step``) on the reference engine (``reference.py``).

**Agents** follow the engine's Decision (side, town): agent 0 ``"hunter"``; agent 1 ``"town"``, the town
side deciding as a group at the census (spell, announce, hat: ``Decision.town == -1``, from the public
View only); agents 2+t ``"town t"``, each town deciding from its own cards (travel, answer, more). The
towns and the group play the runner's ``town`` side (one policy and one stream for all, as the runner's
game draws them) and share its result. ``fixed`` (side -> policy) plays that side inside the state.

**Actions** are the engine's ids (``state.py``, ``N_ACTIONS`` = 204): give (card, town), ask town, swap
card, card, town, spell tile, yes, no.

**Hidden**: the deck order, the woods card, the towns' hands between censuses (moves in Travel are face
down), the future draws of the deck stream. Each agent keeps, per card, the zones it may be in (deck,
woods, a town's hand), narrowed by what it saw (its own cards and moves, the census reveal, the hunter's
deals, picks) and widened by moves it did not see (the hunter in Darkness: any card in a hand or the
woods may end anywhere among them). ``determinise`` deals the hidden cards anew inside
those zones (a random matching with each zone's exact size) and renames them in the other agents'
private records (deals, gifts, woods notes) so those stay true; deck positions the hunter's
``deck_known`` holds (escaped witches, face up when they went) stay put, the others are shuffled; the
deck stream and the other side's policy stream are re-seeded. Approximations: the escaped witches'
order is treated as public, a fled hand's order as unknown to its town; cards the hunter drew under a ritual and has not dealt are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.games.covens import GAME
from cursedsim.games.covens import reference_policies as twins
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens.reference import Decision, Table, bits
from cursedsim.games.gifts.step import match_zones, shuffle
from cursedsim.step.api import TERMINAL, StepSpec, StepState, check_action

HUNTER, GROUP, FIRST_TOWN = 0, 1, 2
RESEED = 100
DECK, WOODS = 1, 2   # zone bits; a town's hand: _hand(t)


def _hand(town: int) -> int:
    return 4 << town


def agent_of(side: int, town: int) -> int:
    """The agent of an engine Decision (side, town)."""
    return HUNTER if side == S.SIDE_HUNTER else GROUP if town < 0 else FIRST_TOWN + town


class TrackedTable(Table):
    """The reference Table, unchanged in its rules, telling ``watch`` every event it records."""

    watch: Any = None

    def record(self, actor: str, action: str, cards=(), **fields) -> None:
        if self.watch is not None:
            self.watch.event(self, action, list(cards), fields)
        super().record(actor, action, cards, **fields)


class Knowledge:
    """Per agent: card -> bit set of the zones it may be in (DECK, WOODS, ``_hand(t)``)."""

    def __init__(self, table: Table):
        self.towns = table.towns
        every = DECK | WOODS | sum(_hand(t) for t in range(self.towns))
        size = table.options.deck_size
        hunter = {c: every for c in range(size)}
        hunter[table.woods] = WOODS
        self.zones = [hunter, {c: every for c in range(size)}]
        for t in range(self.towns):
            mine = set(bits(table.hands[t]))
            self.zones.append({c: _hand(t) if c in mine else every & ~_hand(t) for c in range(size)})

    def _widen(self, agent: int, source: int, dest: int) -> None:
        zones = self.zones[agent]
        for c, b in zones.items():
            if b & source:
                zones[c] = b | dest

    def _move(self, card: int, zone: int, seers: set[int], source: int, dest: int) -> None:
        """``card`` went from zone ``source`` to ``dest``: the ``seers`` know it, the others widen."""
        for a, zones in enumerate(self.zones):
            if a in seers:
                zones[card] = zone
            else:
                self._widen(a, source, dest)

    def event(self, table: Table, action: str, cards: list[int], f: dict) -> None:
        if action == "travel" and table.active == R.DARKNESS:   # the hunter will not see who moves what
            anywhere = WOODS | sum(_hand(t) for t in range(self.towns))
            hunter = self.zones[HUNTER]
            for c, b in hunter.items():
                if b & anywhere:
                    hunter[c] = b | anywhere
        elif action == "census_draw":
            self._move(cards[0], _hand(f["town"]), {FIRST_TOWN + f["town"]}, DECK, _hand(f["town"]))
        elif action == "reveal":
            where = {c: _hand(t) for t in range(self.towns) for c in bits(table.hands[t])}
            for zones in self.zones:
                for c in zones:
                    zones[c] = where.get(c, zones[c] & (DECK | WOODS))
        elif action == "arrive":
            self._move(cards[0], _hand(f["town"]), {HUNTER, FIRST_TOWN + f["town"]}, DECK, _hand(f["town"]))
        elif action == "give":
            a, u = f["town"], f["to"]
            self._move(cards[0], _hand(u), {FIRST_TOWN + a, FIRST_TOWN + u}, _hand(a), _hand(u))
        elif action == "ask" and cards:
            a, u = f["town"], f["to"]
            self._move(cards[0], _hand(a), {FIRST_TOWN + a, FIRST_TOWN + u}, _hand(u), _hand(a))
        elif action == "swap":
            a = f["town"]
            put, took = cards
            for agent, zones in enumerate(self.zones):
                if agent == FIRST_TOWN + a:
                    zones[put], zones[took] = WOODS, _hand(a)
                else:
                    for c, b in zones.items():
                        zones[c] = b | (WOODS if b & _hand(a) else 0) | (_hand(a) if b & WOODS else 0)
        elif action == "townsfolk":
            for zones in self.zones:
                zones[cards[0]] = _hand(f["to"])
        elif action == "flee":
            gone = _hand(f["town"])
            for zones in self.zones:
                for c, b in zones.items():
                    if b & gone:
                        zones[c] = (b & ~gone) | DECK
        elif action == "escape":
            for zones in self.zones:
                for c in cards:
                    zones[c] = DECK


class CovensState(StepState):
    """A game of Curses & Covens on the reference Table (agents: module docstring)."""

    def __init__(self, seed: int, index: int, players: int, options: R.RuleOptions,
                 fixed: Mapping[str, Any] | None = None, log: bool = False, _build: bool = True):
        self.spec = STEP
        self.seed, self.index, self.players, self.options, self.log = seed, index, players, options, log
        self.fixed = {side: (p, None) if isinstance(p, str) else (p[0], p[1]) for side, p in (fixed or {}).items()}
        for side, (name, _) in self.fixed.items():
            GAME.policy(name, side)
        self._policies: dict = {}
        self.history: list[tuple] = []
        if _build:
            self._deal()
            self._run_fixed()

    def _deal(self) -> None:
        self.streams = [rng.Stream(self.seed, self.index, s) for s in S.SIDE_STREAM]
        self.table = TrackedTable.deal(self.seed, self.index, self.players, self.options, log=self.log)
        self.knowledge = Knowledge(self.table)
        self.table.watch = self.knowledge
        self.seen: list[list[str]] = [[] for _ in range(self.players + 1)]

    @property
    def n_agents(self) -> int:
        return FIRST_TOWN + self.table.towns

    def side_of(self, agent: int) -> str:
        """The runner side an agent plays."""
        return "hunter" if agent == HUNTER else "town"

    def _run_fixed(self) -> None:
        while not self.is_terminal() and self.side_of(self.actor()) in self.fixed:
            self._policy_step(*self.fixed[self.side_of(self.actor())])

    # ------------------------------------------------------------ stepping

    def actor(self) -> int:
        side, town, _ = self.table.to_move()
        return TERMINAL if side < 0 else agent_of(side, town)

    def legal_actions(self) -> list[int]:
        return self.table.legal_actions()

    def is_terminal(self) -> bool:
        return self.table.is_over()

    def _step(self, action: int) -> None:
        t = self.table
        side, town, kind = t.to_move()
        actor, about = agent_of(side, town), t._pending.about
        dark = t.active == R.DARKNESS
        despair = t.active == R.DESPAIR
        t.apply(action)
        for a in range(self.n_agents):
            self.seen[a].append(f"{actor}:{kind}:{self._shown(a, actor, kind, action, about, dark, despair)}:"
                                f"{t.hands[a - FIRST_TOWN] if a >= FIRST_TOWN else ''}")

    @staticmethod
    def _shown(a: int, actor: int, kind: int, action: int, about: int, dark: bool, despair: bool):
        """What agent ``a`` sees of ``action``: all of it when it acts or the card moves to or from it;
        the kind and target of a face-down move otherwise; nothing of Travel for the hunter in Darkness,
        nor of the announce under Despair."""
        if a == actor:
            return action
        if kind in (S.D_TRAVEL, S.D_MORE, S.D_ANSWER):
            if a == HUNTER and dark:
                return "?"
            if kind == S.D_ANSWER:
                return action if a == FIRST_TOWN + about else "card"
            if action < S.A_ASK:
                to = (action - S.A_GIVE) % S.MAX_TOWNS
                return action if a == FIRST_TOWN + to else f"give>{to}"
            if S.A_SWAP <= action < S.A_CARD:
                return "swap"
            return action
        if kind == S.D_DEAL:
            return action if a == FIRST_TOWN + about or action == S.A_NO else f"deal>{about}"
        if kind == S.D_ANNOUNCE and a == HUNTER and despair:
            return "?"
        return action

    def apply(self, action: int) -> None:
        action = check_action(self, action)
        self.history.append(("action", action))
        self._step(action)
        self._run_fixed()

    def _policy(self, side: str, name: str, params: Mapping[str, float] | None):
        key = (side, name, None if params is None else tuple(sorted(params.items())))
        if key not in self._policies:
            spec = GAME.policy(name, side)
            self._policies[key] = twins.make(side, spec, spec.param_vector(params))
        return self._policies[key]

    def _policy_step(self, name: str, params: Mapping[str, float] | None) -> int:
        side, town, _ = self.table.to_move()
        policy = self._policy(R.SIDES[side], name, params)
        action = int(policy.act(self.table.observe(side, town), self.table.legal_actions(), self.streams[side]))
        self.history.append(("policy", name, None if params is None else dict(params)))
        self._step(action)
        return action

    def apply_policy(self, policy: str, params: Mapping[str, float] | None = None) -> int:
        if self.is_terminal():
            check_action(self, None)
        action = self._policy_step(policy, params)
        self._run_fixed()
        return action

    def action_name(self, action: int) -> str:
        return S.action_name(action)

    # ------------------------------------------------------------ copies

    def clone(self) -> CovensState:
        copy = CovensState(self.seed, self.index, self.players, self.options, None, self.log, _build=False)
        copy.fixed = dict(self.fixed)
        copy._deal()
        for entry in self.history:
            if entry[0] == "action":
                copy.history.append(entry)
                copy._step(entry[1])
            elif entry[0] == "policy":
                copy._policy_step(entry[1], entry[2])
            else:
                copy.history.append(entry)
                copy._resample(entry[1], entry[2])
        return copy

    def determinise(self, agent: int, seed: int) -> CovensState:
        copy = self.clone()
        copy.history.append(("resample", int(agent), int(seed)))
        copy._resample(int(agent), int(seed))
        return copy

    def _resample(self, agent: int, seed: int) -> None:
        """Deal what ``agent`` cannot see anew inside the zones it allows; rename the moved cards in the
        others' private records; re-seed the futures."""
        t, stream = self.table, rng.Stream(seed, self.index, RESEED)
        own = agent - FIRST_TOWN
        known_pos = {i: c for i, c in enumerate(t.deck_known) if c >= 0}
        where = {c: DECK for i, c in enumerate(t.deck) if i not in known_pos}
        if t.woods >= 0:
            where[t.woods] = WOODS
        for u in range(t.towns):
            if u != own:
                where.update({c: _hand(u) for c in bits(t.hands[u])})
        capacity: dict[int, int] = {}
        for z in where.values():
            capacity[z] = capacity.get(z, 0) + 1
        deal = match_zones(sorted(where), self.knowledge.zones[agent], capacity, stream)
        rename = {}
        for zone in capacity:
            out = sorted(c for c, z in where.items() if z == zone and deal[c] != zone)
            into = sorted(c for c, z in deal.items() if z == zone and where[c] != zone)
            rename.update(zip(out, into))

        def mask(m: int) -> int:
            return sum(1 << rename.get(c, c) for c in bits(m))

        free = [c for c, z in deal.items() if z == DECK]
        shuffle(free, stream)
        t.deck[:] = [known_pos[i] if i in known_pos else free.pop() for i in range(len(t.deck))]
        if t.woods in where:
            t.woods = next(c for c, z in deal.items() if z == WOODS)
        for u in range(t.towns):
            if u != own:
                t.hands[u] = sum(1 << c for c, z in deal.items() if z == _hand(u))
                for records in (t.arrived, t.gave, t.received):
                    records[u] = mask(records[u])
                if t.town_woods[u] >= 0:
                    t.town_woods[u] = rename.get(t.town_woods[u], t.town_woods[u])
        if agent != HUNTER:
            t.dealt[:] = [mask(m) for m in t.dealt]
            t.drawn = mask(t.drawn)
            if t.hunter_woods >= 0:
                t.hunter_woods = rename.get(t.hunter_woods, t.hunter_woods)
        t.deck_rng = rng.Stream(seed, self.index, RESEED + 1)
        mine = S.SIDE_HUNTER if agent == HUNTER else S.SIDE_TOWN
        self.streams[1 - mine] = rng.Stream(seed, self.index, RESEED + 2)
        for other in range(self.n_agents):   # the others' knowledge, renamed onto the new deal
            if other != agent:
                zones = self.knowledge.zones[other]
                renamed = {rename.get(c, c): z for c, z in zones.items()}
                self.knowledge.zones[other] = {c: renamed[c] for c in zones}
        side, town, kind = t.to_move()
        if side >= 0 and agent_of(side, town) != agent:
            t._pending = Decision(side, town, kind, self._legal_again(t, town, kind), t._pending.about)

    @staticmethod
    def _legal_again(t: Table, town: int, kind: int) -> tuple[int, ...]:
        """The pending decision's legal list on the new hands (the engine's own rules)."""
        if kind == S.D_TRAVEL:
            return t.travel_legal(town)
        if kind == S.D_ANSWER:
            return tuple(S.A_CARD + c for c in bits(t.hands[town]))
        if kind == S.D_MORE:
            about = t._pending.about
            targets = [about] if t.options.passage_targets == "one_town" else t.others(town)
            return tuple(S.give(c, v) for c in bits(t.hands[town]) for v in targets) + (S.A_NO,)
        return t._pending.legal

    # ------------------------------------------------------------ what an agent knows

    def _view(self, agent: int):
        if agent == HUNTER:
            return self.table.observe(S.SIDE_HUNTER)
        return self.table.observe(S.SIDE_TOWN, agent - FIRST_TOWN if agent >= FIRST_TOWN else -1)

    def information(self, agent: int) -> str:
        view = self._view(agent)
        legal = tuple(self.legal_actions()) if self.actor() == agent else ()
        return f"{agent}|{view}|{legal}|" + ";".join(self.seen[agent])

    def observation(self, agent: int) -> np.ndarray:
        return _observe(self._view(agent), self.table.options, self.players)

    # ------------------------------------------------------------ results

    def returns(self) -> list[float]:
        winner = self.table.winner if self.is_terminal() else -1
        return [float(winner == (R.WINNER_HUNTER if a == HUNTER else R.WINNER_TOWN)) for a in range(self.n_agents)]

    def outcome(self) -> dict[str, Any]:
        return self.table.outcome().columns()


# ---------------------------------------------------------------- observation vector

#: Per card: own hand, captured, ritual held, revealed in this Hunt, known woods card, known in the deck,
#: dealt or drawn by the hunter this round, arrived/gave/received (a town), in town u's census hand.
CARD_FEATURES = 10
SEAT_FEATURES = 4   # per town: hand size, size after travel, hat, announced
N_DECISIONS = len(S.DECISION_NAMES) + 1
N_SCALARS = 3 + R.N_TILES + R.N_SPELLS + len(S.PHASE_NAMES) + 2


def observation_size(players: int, options: Any = None) -> int:
    towns = GAME.check_players(players) - 1
    return R.N_CARDS * (CARD_FEATURES + towns) + towns * SEAT_FEATURES + N_DECISIONS + N_SCALARS


def _observe(view, options: R.RuleOptions, players: int) -> np.ndarray:
    towns = players - 1
    out = np.zeros(observation_size(players), np.float32)
    per = CARD_FEATURES + towns
    cards = out[:R.N_CARDS * per].reshape(R.N_CARDS, per)
    hunter = view.side == S.SIDE_HUNTER
    for col, m in enumerate((getattr(view, "hand", 0), view.captured, view.ritual_cards,
                             sum(1 << c for _, c, _ in view.hunt), 1 << view.woods_known if view.woods_known >= 0 else 0,
                             sum(1 << c for c in getattr(view, "deck_known", ()) if c >= 0),
                             sum(view.dealt) | view.drawn if hunter else 0,
                             getattr(view, "arrived", 0), getattr(view, "gave", 0), getattr(view, "received", 0))):
        for c in bits(m):
            cards[c, col] = 1
    for u, m in enumerate(view.census):
        for c in bits(max(m, 0)):
            cards[c, CARD_FEATURES + u] = 1
    base = R.N_CARDS * per
    seats = out[base:base + towns * SEAT_FEATURES].reshape(towns, SEAT_FEATURES)
    for u in range(towns):
        seats[u] = (min(view.hand_sizes[u] / 8, 1.0), min(max(view.sizes_after_travel[u], 0) / 8, 1.0),
                    view.hat == u, view.announced == u)
    base += towns * SEAT_FEATURES
    out[base + view.decision + 1] = 1
    base += N_DECISIONS
    scalars = [min(view.round / options.max_rounds, 1.0), view.deck_size / R.N_CARDS, view.fake_held]
    scalars += list(view.faces) + [view.active_spell == s for s in range(R.N_SPELLS)]
    scalars += [view.phase == p for p in range(len(S.PHASE_NAMES))] + [view.about >= 0, view.side]
    out[base:base + N_SCALARS] = scalars
    return out


# ---------------------------------------------------------------- the spec


def agents(players: int, options: Any = None) -> tuple[str, ...]:
    return ("hunter", "town") + tuple(f"town {t}" for t in range(GAME.check_players(players) - 1))


def agent_sides(players: int, options: Any = None) -> tuple[str, ...]:
    return ("hunter",) + ("town",) * GAME.check_players(players)


def new_state(seed: int, index: int, players: int, options: Any = None, fixed: Mapping[str, Any] | None = None,
              log: bool = False) -> CovensState:
    """Game ``index`` of the run ``seed`` (the runner's deal), the ``fixed`` sides played inside."""
    return CovensState(int(seed), int(index), GAME.check_players(players), GAME.make_options(options), fixed, log)


STEP = StepSpec(name="covens", agents=agents, num_actions=S.N_ACTIONS, observation_size=observation_size,
                agent_sides=agent_sides, new_state=new_state, doc=__doc__)
