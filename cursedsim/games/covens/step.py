"""Curses & Covens stepped one decision at a time (``cursedsim.step``): ``ArrayState`` over the kernel's five
state arrays (``kernel.advance`` halts at every decision of either side), whose copies copy the arrays
(O(state)); with ``log=True`` the reference engine's ``CovensState`` (``reference.py``; copies replay the
history), whose table records the events of the turn log. The two play the same games, draw for draw.

**Two states.** ``ArrayState`` asks the built-in policies in the kernel (``state.ASK_FIRST``: the
policy's action, drawn from its side's stream in the arrays, as the reference twins draw it) and the
``rollout`` search with ``rollout.decide`` on its own arrays; the Table the views, tests and
observations read is laid out from the arrays (``table``). What every agent saw of each decision (its
information key) is a chain of records the copies share. ``determinise`` is the reference state's (below):
the reference state of the point is rebuilt from that chain once (O(history), kept by the state and its
copies until they move), each determinisation redraws on a copy of its records and writes the redrawn
cards, records and streams into a copy of the arrays (O(state)), so a search determinising its root
again and again replays the game once. A ``rollout`` decision on a determinised state decides on that
world (the reference lays out the true game for it): the one place the two may differ.

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
woods may end anywhere among them). Since every hand is public at the census reveal, ``determinise``
replays the current round from the reveal with what the agent did not see drawn anew (the woods and
deck then, inside its zones; each Arrival, Travel and swapped card it did not see; for the hunter in
Darkness, each Travel action nobody answered: a give, a swap, an unanswered ask), keeping only replays
in which its own moves, the public picks, the hand sizes and its zones come out as they are (rejection,
``ROUND_TRIES`` draws). Every record (hands, the hunter's deals and draws, the towns' gifts, woods notes,
travel log) is the replay's, so each agent's View is one the engine could reach; the other agents' zones
are replayed too. Deck positions the hunter's ``deck_known`` holds stay put, the others are shuffled;
the deck stream and the other side's policy stream are re-seeded. Before this round's reveal (a
shuffle offer at the census) the hidden cards are dealt inside the agent's zones instead (no record of
the round names a card yet). Approximations (redraw less): the escaped witches' order is treated as
public, a fled hand's order as unknown to its town; a replay draws its hidden cards uniformly (not
weighted by how likely the other side's policy was to move them); if no replay fits in ``ROUND_TRIES``
draws (about 1 in 300 in tests) the round is kept and only the deck order is redrawn; the other agents'
``seen`` logs (their information keys) are not rewritten (a single-observer search reads only its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import copy as shallow_copy
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.games.covens import GAME, kernel, rollout
from cursedsim.games.covens import policies as pol
from cursedsim.games.covens import policy_specs as PS
from cursedsim.games.covens import reference_policies as twins
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens.reference import Decision, Table, bits, count, mask_of
from cursedsim.step.api import TERMINAL, LaidOutTable, StepSpec, StepState, check_action
from cursedsim.step.determinise import match_zones, shuffle
from cursedsim.step.history import FixedSidesState

HUNTER, GROUP, FIRST_TOWN = 0, 1, 2
RESEED = 100
ROUND_TRIES = 200   # random replays of a round tried before keeping it (``_resample_round``)
UNSEEN_IN_DARKNESS = ("give", "ask", "swap", "pass")   # Travel records the hunter does not see in Darkness
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
        self.at_reveal: dict | None = None   # the table and every agent's zones at this round's reveal
        self.round_log: list[tuple] = []     # (action, cards, fields, active spell) since the reveal
        if table.census is not None and not table.is_over():   # the deal ran the first census already
            self.event(table, "reveal", [], {})

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
        self._zones_event(table.active, table, action, cards, f)
        if action == "reveal":
            self.at_reveal = dict(census=list(table.census), deck=list(table.deck), woods=table.woods,
                                  deck_known=list(table.deck_known), hunter_woods=table.hunter_woods,
                                  town_woods=list(table.town_woods), zones=[dict(z) for z in self.zones])
            self.round_log = []
        elif action == "round":
            self.at_reveal = None
        elif self.at_reveal is not None:
            self.round_log.append((action, tuple(cards), dict(f), table.active))

    def _zones_event(self, active: int, table: Any, action: str, cards: list[int], f: dict) -> None:
        if action == "travel" and active == R.DARKNESS:   # the hunter will not see who moves what
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


class World:
    """One replayed round (``CovensState._replay_round``): where the cards end and every record."""

    def __init__(self, towns: int):
        self.hands = [0] * towns
        self.arrived, self.gave, self.received = [0] * towns, [0] * towns, [0] * towns
        self.drawn = self.deal_left = 0
        self.woods = self.start_woods = self.hunter_woods = self.start_hunter_woods = -1
        self.town_woods: list[int] = []
        self.start_town_woods: list[int] = []
        self.deck: set[int] = set()
        self.start_deck: set[int] = set()
        self.log: list[tuple] = []
        self.travel_log: list[tuple[int, int, int, int]] = []
        self.sizes_after_travel: list[int] | None = None


class CovensState(FixedSidesState):
    """A game of Curses & Covens on the reference Table (agents: module docstring)."""

    def __init__(self, seed: int, index: int, players: int, options: R.RuleOptions,
                 fixed: Mapping[str, Any] | None = None, log: bool = False, _build: bool = True):
        self.spec = STEP
        super().__init__(GAME, seed, index, players, options, fixed, log, _build)

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

    def _policy(self, side: str, name: str, params: Mapping[str, float] | None):
        key = (side, name, None if params is None else tuple(sorted(params.items())))
        if key not in self._policies:
            spec = GAME.policy(name, side)
            self._policies[key] = twins.make(side, spec, spec.param_vector(params))
        return self._policies[key]

    def _policy_action(self, name: str, params: Mapping[str, float] | None) -> int:
        side, town, _ = self.table.to_move()
        policy = self._policy(R.SIDES[side], name, params)
        on_table = getattr(policy, "act_on_table", None)   # a search lays out the whole game
        if on_table is not None:
            return int(on_table(self.table, self.table.legal_actions(), self.streams[side]))
        return int(policy.act(self.table.observe(side, town), self.table.legal_actions(), self.streams[side]))

    def action_name(self, action: int) -> str:
        return S.action_name(action)

    # ------------------------------------------------------------ determinisation (copies: FixedSidesState)

    def _resample(self, agent: int, seed: int) -> None:
        """Redraw what ``agent`` cannot see: after this round's census reveal, the round replayed with new
        hidden cards (``_resample_round``); before it (nothing of the round recorded yet), a deal of the
        hidden cards inside the zones the agent allows (``_resample_zones``). Then the futures re-seeded."""
        stream = rng.Stream(seed, self.index, RESEED)
        if self.knowledge.at_reveal is not None:
            self._resample_round(agent, stream)
        else:
            self._resample_zones(agent, stream)
        t = self.table
        t.deck_rng = rng.Stream(seed, self.index, RESEED + 1)
        mine = S.SIDE_HUNTER if agent == HUNTER else S.SIDE_TOWN
        self.streams[1 - mine] = rng.Stream(seed, self.index, RESEED + 2)
        side, town, kind = t.to_move()
        if side >= 0 and agent_of(side, town) != agent:
            t._pending = Decision(side, town, kind, self._legal_again(t, town, kind), t._pending.about)

    def _resample_zones(self, agent: int, stream: rng.Stream) -> None:
        """Deal what ``agent`` cannot see anew inside the zones it allows; rename the moved cards in the
        others' private records (before a reveal only the woods notes hold cards)."""
        t = self.table
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
        deal = match_zones(sorted(where), self.knowledge.zones[agent], capacity, stream, "covens")
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
        for other in range(self.n_agents):   # the others' knowledge, renamed onto the new deal
            if other != agent:
                zones = self.knowledge.zones[other]
                renamed = {rename.get(c, c): z for c, z in zones.items()}
                self.knowledge.zones[other] = {c: renamed[c] for c in zones}

    def _resample_round(self, agent: int, stream: rng.Stream) -> None:
        """Replay this round from its census reveal (every hand public then) with the hidden cards drawn
        anew: the woods and deck at the reveal inside the agent's zones, each Arrival card, Travel card
        and swapped card the agent did not see chosen at random from where it could come from; the
        agent's own moves, the public picks and what it knows now must come out true (else draw again).
        Every record (hands, deals, gifts, woods notes, deck) is then the replay's, so each agent's view
        is one the engine could reach. After ``ROUND_TRIES`` failed draws the round is kept as it was
        and only the deck order and the futures are redrawn (redraw less)."""
        t, k = self.table, self.knowledge
        for _ in range(ROUND_TRIES):
            world = self._replay_round(agent, stream)
            if world is not None:
                break
        else:
            world = None
        if world is None:   # keep the round: only the unknown deck positions shuffled
            free = [c for c, known in zip(t.deck, t.deck_known) if known < 0]
            shuffle(free, stream)
            t.deck[:] = [known if known >= 0 else free.pop() for known in t.deck_known]
            return
        t.hands[:] = world.hands
        t.woods = world.woods
        t.dealt[:] = world.arrived
        t.arrived[:] = world.arrived
        t.gave[:], t.received[:] = world.gave, world.received
        t.drawn, t.deal_left = world.drawn, world.deal_left
        t.town_woods[:] = world.town_woods
        t.hunter_woods = world.hunter_woods
        t.travel_log[:] = world.travel_log
        free = [c for c in world.deck if c not in t.deck_known]
        shuffle(free, stream)
        t.deck[:] = [known if known >= 0 else free.pop() for known in t.deck_known]
        snap = k.at_reveal
        w0, true_w0 = world.start_woods, snap["woods"]
        zones = [dict(z) for z in snap["zones"]]
        for other, z in enumerate(zones):   # who knew the woods at the reveal knows the new one
            if other != agent and w0 != true_w0:
                if z[true_w0] == WOODS:
                    z[true_w0], z[w0] = DECK, WOODS
                else:
                    z[w0] |= WOODS
        k.at_reveal = dict(snap, deck=sorted(world.start_deck), woods=w0, zones=[dict(z) for z in zones],
                           hunter_woods=world.start_hunter_woods, town_woods=list(world.start_town_woods))
        k.round_log = list(world.log)
        replay = Knowledge.__new__(Knowledge)
        replay.towns, replay.zones = k.towns, zones
        for action, cards, f, active in world.log:
            replay._zones_event(active, t, action, list(cards), f)
        k.zones = [k.zones[a] if a == agent else replay.zones[a] for a in range(len(k.zones))]

    def _replay_round(self, agent: int, stream: rng.Stream) -> World | None:
        """One random replay of this round for ``agent`` (``_resample_round``), None if it contradicts
        what the agent saw."""
        t, snap = self.table, self.knowledge.at_reveal
        own = agent - FIRST_TOWN if agent >= FIRST_TOWN else -1
        sees_all_arrivals = agent == HUNTER
        zones = snap["zones"][agent]
        public = {c for c in snap["deck_known"] if c >= 0}   # deck cards at positions everyone knows
        hidden = [c for c in snap["deck"] + [snap["woods"]] if c >= 0]
        pinned = [c for c in hidden if zones[c] == WOODS]
        choices = pinned or [c for c in hidden if zones[c] & WOODS and c not in public]
        w = World(t.towns)
        w.hands = list(snap["census"])
        w.woods = w.start_woods = choices[stream.below(len(choices))] if choices else snap["woods"]
        pool = set(hidden) - {w.woods}
        w.start_deck = set(pool)
        w.hunter_woods = w.start_hunter_woods = w.woods if snap["hunter_woods"] >= 0 else -1
        w.town_woods = [w.woods if m >= 0 else -1 for m in snap["town_woods"]]
        w.start_town_woods = list(w.town_woods)
        seen_draws = {ev[1][0] for ev in self.knowledge.round_log
                      if ev[0] == "arrive" and (sees_all_arrivals or ev[2]["town"] == own)}
        drawn_left: set[int] | None = None

        def pick(options) -> int:
            options = sorted(options)
            return options[stream.below(len(options))] if options else -1

        for action, cards, f, active in self.knowledge.round_log:
            cards = list(cards)
            if agent == HUNTER and active == R.DARKNESS and action in UNSEEN_IN_DARKNESS and not f.get("moved"):
                action, cards, f = self._dark_move(w, f["town"], stream)
            if action == "shuffle" and f.get("shuffled"):
                public = set()
            elif action == "ritual_draw":
                n = len(cards)
                forced = [c for c in cards if sees_all_arrivals or c in public or c in seen_draws]
                rest = sorted(pool - public - seen_draws - set(forced))
                shuffle(rest, stream)
                cards = forced + rest[:n - len(forced)]
                if len(cards) != n or not set(forced) <= pool:
                    return None
                pool -= set(cards)
                drawn_left = set(cards)
                w.drawn |= mask_of(cards)
            elif action == "arrive":
                u, card = f["town"], cards[0]
                source = drawn_left if drawn_left is not None else pool
                if not (sees_all_arrivals or u == own or card in public):
                    card = pick(source - public - seen_draws)
                if card < 0 or card not in source:
                    return None
                source.discard(card)
                w.hands[u] |= 1 << card
                w.arrived[u] |= 1 << card
                cards = [card]
            elif action in ("give", "ask") and cards:
                a, u = f["town"], f["to"]
                src, dst = (a, u) if action == "give" else (u, a)
                card = cards[0] if own in (a, u) else pick(bits(w.hands[src]))
                if card < 0 or not w.hands[src] >> card & 1:
                    return None
                w.hands[src] &= ~(1 << card)
                w.hands[dst] |= 1 << card
                w.gave[src] |= 1 << card
                w.received[dst] |= 1 << card
                cards = [card]
                w.travel_log.append((a, S.LOG_GIVE if action == "give" else S.LOG_ASK, u, 1))
            elif action == "swap":
                a = f["town"]
                put = cards[0] if own == a else pick(bits(w.hands[a]))
                if put < 0 or (own == a and cards[1] != w.woods) or not w.hands[a] >> put & 1:
                    return None
                cards = [put, w.woods]
                w.hands[a] = (w.hands[a] & ~(1 << put)) | (1 << w.woods)
                w.woods = put
                w.town_woods = [put if u == a else -1 for u in range(t.towns)]
                w.hunter_woods = -1
                w.travel_log.append((a, S.LOG_SWAP, -1, 1))
            elif action == "travel" and active == R.DARKNESS:
                w.hunter_woods = -1
            elif action == "pass":
                w.travel_log.append((f["town"], S.LOG_PASS, -1, 0))
            elif action == "ask":
                w.travel_log.append((f["town"], S.LOG_ASK, f["to"], 0))
            elif action == "pick":
                u, card = f["town"], cards[0]
                if not w.hands[u] >> card & 1:
                    return None
                w.hands[u] &= ~(1 << card)
            elif action == "townsfolk":
                w.hands[f["to"]] |= 1 << cards[0]
            elif action == "flee":
                cards = bits(w.hands[f["town"]])
                pool |= set(cards)
                w.hands[f["town"]] = 0
            elif action == "escape":
                pool |= set(cards)
            w.log.append((action, tuple(cards), f, active))
            if action in UNSEEN_IN_DARKNESS:
                w.sizes_after_travel = [count(h) for h in w.hands]
        w.deck = pool
        w.deal_left = mask_of(drawn_left or ())
        if not self._agrees(agent, w):
            return None
        return w

    def _dark_move(self, w: World, a: int, stream: rng.Stream) -> tuple[str, list[int], dict]:
        """A Travel action of town ``a`` the hunter cannot tell from the one taken in Darkness (he sees
        only that ``a`` acted and whether someone answered): a give to any town, a swap, an ask nobody
        answers, or a pass when none is open; its card drawn by the replay."""
        t, hand = self.table, w.hands[a]
        options = [("give", u) for u in t.others(a) if count(hand) >= 2] + ([("swap", -1)] if hand else [])
        options += [("ask", u) for u in t.others(a) if (t.options.ask_empty or w.hands[u]) and count(w.hands[u]) < 2]
        if not options:
            return "pass", [], {"town": a}
        kind, u = options[stream.below(len(options))]
        if kind == "swap":
            return "swap", [-1, -1], {"town": a}
        if kind == "ask":
            return "ask", [], {"town": a, "to": u, "moved": 0}
        return "give", [-1], {"town": a, "to": u}

    def _agrees(self, agent: int, w: World) -> bool:
        """Whether a replayed round leaves ``agent`` what it sees now (own records, woods note, zones)."""
        t = self.table
        if [count(h) for h in w.hands] != [count(h) for h in t.hands] or (
                t.sizes_after_travel is not None and w.sizes_after_travel != t.sizes_after_travel):
            return False
        if agent >= FIRST_TOWN:
            me = agent - FIRST_TOWN
            mine = (t.hands[me], t.arrived[me], t.gave[me], t.received[me], t.town_woods[me])
            if mine != (w.hands[me], w.arrived[me], w.gave[me], w.received[me], w.town_woods[me]):
                return False
        if agent == HUNTER and (w.arrived, w.drawn, w.deal_left, w.hunter_woods) != (
                t.dealt, t.drawn, t.deal_left, t.hunter_woods):
            return False
        if len(w.deck) != len(t.deck) or any(c >= 0 and c not in w.deck for c in t.deck_known):
            return False
        where = {c: _hand(u) for u in range(t.towns) for c in bits(w.hands[u])}
        where.update({c: DECK for c in w.deck})
        where[w.woods] = WOODS
        zones = self.knowledge.zones[agent]
        return all(zones[c] & z for c, z in where.items())

    @staticmethod
    def _legal_again(t: Table, town: int, kind: int) -> tuple[int, ...]:
        """The pending decision's legal list on the new hands (the engine's own rules)."""
        if kind == S.D_DEAL:
            keep_no = (S.A_NO,) if S.A_NO in t._pending.legal else ()
            return tuple(S.A_CARD + c for c in bits(t.deal_left)) + keep_no
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


# ---------------------------------------------------------------- the kernel's arrays, stepped

_BOTH = np.int64(S.STOP_HUNTER | S.STOP_TOWN)
_NO_PARAMS = pol.params_tuple(())
_TOWN_DECIDES = (S.D_TRAVEL, S.D_MORE, S.D_ANSWER)
_BEST = {"hunter": "tracker", "town": "coven"}   # a rollout's other side by default (RolloutPolicy)


def _phase(pos: int) -> int:
    """The reference's phase (S.PH_*) at a kernel position (``kernel.POS_*``)."""
    if pos == kernel.POS_OVER:
        return S.PH_OVER
    if pos >= kernel.POS_HUNT:
        return S.PH_HUNT
    if pos >= kernel.POS_TRAVEL:
        return S.PH_TRAVEL
    return S.PH_ARRIVAL if pos >= kernel.POS_ARRIVAL else S.PH_CENSUS


def _stream(words) -> rng.Stream:
    """A Stream standing where the four state words ``words`` say."""
    stream = rng.Stream(0, 0)
    stream.s = [int(w) for w in words]
    return stream


class _Step:
    """What every agent saw of one decision taken (``CovensState._step``'s ``seen`` entry), and the action."""

    __slots__ = ("actor", "kind", "action", "about", "dark", "despair", "hands")

    def __init__(self, actor, kind, action, about, dark, despair, hands):
        self.actor, self.kind, self.action, self.about = actor, kind, action, about
        self.dark, self.despair, self.hands = dark, despair, hands

    def seen(self, agent: int) -> str:
        """The entry of ``agent``'s information key for this decision (``CovensState._step``'s format)."""
        shown = CovensState._shown(agent, self.actor, self.kind, self.action, self.about, self.dark, self.despair)
        return f"{self.actor}:{self.kind}:{shown}:{self.hands[agent - FIRST_TOWN] if agent >= FIRST_TOWN else ''}"


class ArrayState(LaidOutTable, StepState):
    """A game of Curses & Covens on the kernel's five state arrays (``kernel.advance`` halting at every
    decision of either side); a copy copies the arrays and shares the chain of what was done (module
    docstring). It plays the same games as ``CovensState``, draw for draw."""

    spec: StepSpec

    def __init__(self, seed: int, index: int, players: int, options: R.RuleOptions,
                 fixed: Mapping[str, Any] | None = None):
        self.seed, self.index, self.players, self.options, self.log = seed, index, players, options, False
        self.fixed = {side: (p, None) if isinstance(p, str) else (p[0], p[1]) for side, p in (fixed or {}).items()}
        for side, (name, _) in self.fixed.items():
            GAME.policy(name, side)   # an unknown policy raises here
        self.towns = players - 1
        self._opts = tuple(np.int64(v) for v in S.option_tuple(options))
        self._policies: dict = {}
        self._chain: tuple | None = None   # (earlier chain, history entry, _Step or None), shared by copies
        self._laid_out: Table | None = None
        self._ref: CovensState | None = None   # the reference state of this point, once determinise needs it
        self._arrays = S.new_arrays()
        kernel.start_game(*self._arrays, np.uint64(seed), np.int64(index), np.int64(self.towns), self._opts)
        self._advance(-1)
        self._run_fixed()

    # ------------------------------------------------------------ the kernel

    def _advance(self, act: int, policy: tuple[int, tuple] = (0, _NO_PARAMS)) -> None:
        """``kernel.advance`` to the next decision of either side, ``act`` carried out first (-1: none;
        ``S.ASK_FIRST``: the ``policy`` (id, params) of the side asked, its action in C_ACTION)."""
        pid, params = np.int64(policy[0]), policy[1]
        kernel.advance(*self._arrays, np.int64(self.towns), self._opts, pid, params, pid, params, _BOTH, np.int64(act))
        self._laid_out = self._ref = None

    def _kind(self) -> int:
        return int(self._arrays[3][S.C_KIND])

    @property
    def n_agents(self) -> int:
        return FIRST_TOWN + self.towns

    def side_of(self, agent: int) -> str:
        """The runner side an agent plays."""
        return "hunter" if agent == HUNTER else "town"

    # ------------------------------------------------------------ stepping

    def actor(self) -> int:
        kind = self._kind()
        if kind == S.D_NONE:
            return TERMINAL
        return agent_of(int(S.DECISION_SIDE[kind]), int(self._arrays[3][S.C_ME]) if kind in _TOWN_DECIDES else -1)

    def legal_actions(self) -> list[int]:
        if self._kind() == S.D_NONE:
            return []
        words = self._arrays[4][S.M_LEGAL:S.M_LEGAL + 4]
        return [64 * w + b for w in range(4) for b in range(64) if int(words[w]) >> b & 1]

    def is_terminal(self) -> bool:
        return self._kind() == S.D_NONE

    def _step(self, entry: tuple, action: int) -> None:
        """Take ``action`` for the actor and chain ``entry`` with what each agent saw of it."""
        counts = self._arrays[3]
        actor, kind, about, active = self.actor(), self._kind(), self._about(), int(counts[S.C_ACTIVE])
        self._advance(action)
        hands = tuple(int(h) for h in self._arrays[1][S.ROW_HANDS, :self.towns])
        self._chain = (self._chain, entry, _Step(actor, kind, action, about, active == R.DARKNESS,
                                                  active == R.DESPAIR, hands))

    def apply(self, action: int) -> None:
        action = check_action(self, action)
        self._step(("action", action), action)
        self._run_fixed()

    def apply_policy(self, policy: str, params: Mapping[str, float] | None = None) -> int:
        if self.is_terminal():
            check_action(self, None)   # the game is over: the error says so
        action = self._policy_step(policy, params)
        self._run_fixed()
        return action

    def _policy_step(self, name: str, params: Mapping[str, float] | None) -> int:
        action = self._policy_action(name, params)
        self._step(("policy", name, None if params is None else dict(params)), action)
        return action

    def _run_fixed(self) -> None:
        while not self.is_terminal() and self.side_of(self.actor()) in self.fixed:
            self._policy_step(*self.fixed[self.side_of(self.actor())])

    def _policy(self, side: str, name: str, params: Mapping[str, float] | None) -> tuple:
        """("kernel", id, params) of a built-in heuristic, ("rollout", settings..., other) of the search."""
        key = (side, name, None if params is None else tuple(sorted(params.items())))
        if key not in self._policies:
            spec = GAME.policy(name, side)
            vector = spec.param_vector(params)
            if spec.policy_id == PS.ROLLOUT:
                n, base, base_params, cap, infer = rollout.settings(side, vector)
                other_side = "town" if side == "hunter" else "hunter"
                other = PS.POLICIES[other_side][_BEST[other_side]]
                self._policies[key] = ("rollout", n, base, base_params, cap, infer, other.policy_id,
                                       pol.params_tuple(other.param_vector()), rollout.new_workspace())
            else:
                self._policies[key] = ("kernel", spec.policy_id, pol.params_tuple(vector))
        return self._policies[key]

    def _policy_action(self, name: str, params: Mapping[str, float] | None) -> int:
        """The action of the actor's built-in policy, drawn from its side's stream in the arrays (the
        reference twins draw the same: the kernel's own tests)."""
        side = int(S.DECISION_SIDE[self._kind()])
        policy = self._policy(R.SIDES[side], name, params)
        if policy[0] == "kernel":
            self._advance(S.ASK_FIRST, policy[1:])
            return int(self._arrays[3][S.C_ACTION])
        _, n, base, base_params, cap, infer, other_id, other_params, work = policy
        action = rollout.decide(*self._arrays, np.int64(self.towns), self._opts, np.int64(side), np.int64(base),
                                base_params, np.int64(other_id), other_params, np.int64(n), np.int64(cap),
                                np.bool_(infer), np.uint64(self.seed), np.int64(self.index), np.bool_(False), work)
        self._laid_out = self._ref = None
        return int(action)

    def action_name(self, action: int) -> str:
        return S.action_name(action)

    def clone(self) -> ArrayState:
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy._arrays = tuple(a.copy() for a in self._arrays)
        copy._laid_out = None
        return copy

    # ------------------------------------------------------------ the table, laid out from the arrays


    def _lay_out(self) -> Table:
        deck, cards, log, counts, masks = self._arrays
        towns, pos, kind = self.towns, int(counts[S.C_POS]), self._kind()
        over = kind == S.D_NONE
        t = Table(options=self.options, towns=towns, deck_rng=_stream(masks[S.M_RNG_DECK:S.M_RNG_DECK + 4]),
                  origin=(self.seed, self.index))
        top, known = int(counts[S.C_TOP]), int(masks[S.M_KNOWN_SLOTS])
        slots = [(top + i) % R.N_CARDS for i in range(int(counts[S.C_N_DECK]))]
        t.deck = [int(deck[q]) for q in slots]
        t.deck_known = [int(deck[q]) if known >> q & 1 else -1 for q in slots]
        t.woods = int(counts[S.C_WOODS])
        row = lambda r: [int(m) for m in cards[r, :towns]]   # noqa: E731
        t.hands = row(S.ROW_HANDS)
        t.gave, t.received = self._passed(towns)
        t.dealt, t.arrived = row(S.ROW_DEALT), row(S.ROW_DEALT)
        t.census = None if pos == kernel.POS_CENSUS_SHUFFLE else row(S.ROW_CENSUS)
        t.captured, t.rituals = int(masks[S.M_CAPTURED]), int(masks[S.M_RITUALS])
        t.fake_held = bool(counts[S.C_FAKE])
        t.faces = [int(counts[S.C_FACES]) >> tile & 1 for tile in range(R.N_TILES)]
        t.round, t.phase = int(counts[S.C_ROUND]), _phase(pos)
        unfinished = over and int(counts[S.C_WIN_TYPE]) == R.WIN_UNFINISHED   # the last Hunt concluded
        t.active = -1 if unfinished else int(counts[S.C_ACTIVE])
        t.cast_tile = -1 if unfinished else int(counts[S.C_CAST_TILE])
        t.hat, t.announced = int(counts[S.C_HAT]), int(counts[S.C_ANNOUNCED])
        t.drawn, t.deal_left = int(masks[S.M_DRAWN]), int(masks[S.M_REMAINING])
        t.travel_log = [tuple(int(x) for x in pol.log_fields(int(log[0, i]))) for i in range(int(counts[S.C_N_LOG]))]
        t.hunt_log = [tuple(int(x) for x in pol.reveal_fields(int(counts[S.C_REVEALS + i])))
                      for i in range(int(counts[S.C_N_REVEALS]))]
        after = [int(n) for n in counts[S.C_AFTER:S.C_AFTER + towns]]
        t.sizes_after_travel = None if after[0] < 0 else after
        t.town_woods = [int(w) for w in counts[S.C_WOODS_KNOWN:S.C_WOODS_KNOWN + towns]]
        t.hunter_woods = int(counts[S.C_HUNTER_WOODS])
        t.spells = [int(n) for n in counts[S.C_SPELLS:S.C_SPELLS + R.N_SPELLS]]
        t.picks = int(counts[S.C_PICKS])
        if over:
            t.winner, t.win_type = int(counts[S.C_WINNER]), int(counts[S.C_WIN_TYPE])
        else:
            side, me = int(S.DECISION_SIDE[kind]), int(counts[S.C_ME]) if kind in _TOWN_DECIDES else -1
            t._pending = Decision(side, me, kind, tuple(self.legal_actions()), self._about())
        return t

    def _about(self) -> int:
        """The pending decision's ``about``; for Passage's more the first give's target, as the reference
        poses it (the kernel keeps the last one, the same town under passage_targets "one_town")."""
        log, counts = self._arrays[2], self._arrays[3]
        if self._kind() != S.D_MORE:
            return int(counts[S.C_ABOUT])
        me, about = int(counts[S.C_ME]), int(counts[S.C_ABOUT])
        for i in range(int(counts[S.C_N_LOG]) - 1, -1, -1):
            actor, what, target, _ = pol.log_fields(int(log[0, i]))
            if actor != me or what != S.LOG_GIVE:
                break
            about = target
        return int(about)

    def _passed(self, towns: int) -> tuple[list[int], list[int]]:
        """The reference's ``gave``/``received`` per town from this round's travel log (gives and answered
        asks; the kernel's rows count a swap's cards too)."""
        log, n_log = self._arrays[2], int(self._arrays[3][S.C_N_LOG])
        gave, received = [0] * towns, [0] * towns
        for i in range(n_log):
            actor, what, target, moved = pol.log_fields(int(log[0, i]))
            if what == S.LOG_GIVE or (what == S.LOG_ASK and moved):
                src, dst = (actor, target) if what == S.LOG_GIVE else (target, actor)
                gave[src] |= 1 << int(log[1, i])
                received[dst] |= 1 << int(log[1, i])
        return gave, received

    # ------------------------------------------------------------ what an agent knows

    def _entries(self) -> list[tuple]:
        """The chain, oldest first: (history entry, _Step or None)."""
        out, node = [], self._chain
        while node is not None:
            node, entry, step = node
            out.append((entry, step))
        return out[::-1]

    def _view(self, agent: int):
        return CovensState._view(self, agent)

    def information(self, agent: int) -> str:
        view = self._view(agent)
        legal = tuple(self.legal_actions()) if self.actor() == agent else ()
        return f"{agent}|{view}|{legal}|" + ";".join(step.seen(agent) for _, step in self._entries() if step)

    def observation(self, agent: int) -> np.ndarray:
        return _observe(self._view(agent), self.options, self.players)

    # ------------------------------------------------------------ results

    def returns(self) -> list[float]:
        return CovensState.returns(self)

    def outcome(self) -> dict[str, Any]:
        return self.table.outcome().columns()

    # ------------------------------------------------------------ determinisation

    def determinise(self, agent: int, seed: int) -> ArrayState:
        """The reference state's determinisation (``CovensState._resample``: the same draws) written into a
        copy of the arrays. The reference state of this point is rebuilt from the chain once (O(history))
        and kept (copies share it until they move); each determinisation redraws on a copy of its records
        (O(state)), so a search determinising its root again and again replays the game once."""
        agent, seed = int(agent), int(seed)
        if self._ref is None:
            self._ref = self._reference()
        ref = _records_copy(self._ref)
        ref._resample(agent, seed)
        copy = self.clone()
        copy._chain = (self._chain, ("resample", agent, seed), None)
        copy._load(ref, agent)
        copy._ref = ref
        return copy

    def _reference(self) -> CovensState:
        """The reference state of the same game with the chain taken again (each policy entry drawing from
        its stream, then taking the action the arrays took)."""
        ref = CovensState(self.seed, self.index, self.players, self.options, None, False, _build=False)
        ref.fixed = dict(self.fixed)
        ref._deal()
        for entry, step in self._entries():
            if entry[0] == "policy":
                ref._policy_action(entry[1], entry[2])
                ref.history.append(entry)
                ref._step(step.action)
            else:
                ref._redo(entry)
        return ref

    def _load(self, ref: CovensState, agent: int) -> None:
        """Write what a determinisation of the reference state redrew into the arrays (deck, hands, records,
        woods notes, the travel log's cards, the re-seeded streams), then pose the decision again."""
        deck, cards, log, counts, masks = self._arrays
        t, towns = ref.table, self.towns
        top = int(counts[S.C_TOP])
        for i, c in enumerate(t.deck):
            deck[(top + i) % R.N_CARDS] = c
        cards[S.ROW_HANDS, :towns] = t.hands
        cards[S.ROW_DEALT, :towns] = t.dealt if agent == HUNTER else t.arrived
        gave, received = list(t.gave), list(t.received)
        for action, moved_cards, f, _ in ref.knowledge.round_log:   # the kernel's rows count a swap's cards
            if action == "swap" and t.travel_log:
                gave[f["town"]] |= 1 << moved_cards[0]
                received[f["town"]] |= 1 << moved_cards[1]
        cards[S.ROW_GAVE, :towns], cards[S.ROW_RECEIVED, :towns] = gave, received
        counts[S.C_WOODS], counts[S.C_HUNTER_WOODS] = t.woods, t.hunter_woods
        counts[S.C_WOODS_KNOWN:S.C_WOODS_KNOWN + towns] = t.town_woods
        snap = ref.knowledge.at_reveal
        if snap is not None and counts[S.C_HUNTER_WOODS_TRAVEL] >= 0:   # no swap since the reveal then
            counts[S.C_HUNTER_WOODS_TRAVEL] = snap["woods"]
        moved = [ev[1] for ev in ref.knowledge.round_log if ev[0] in UNSEEN_IN_DARKNESS]
        for i, entry in enumerate(t.travel_log):
            log[0, i] = pol.log_entry(*entry)
            if i < len(moved):
                log[1, i] = moved[i][0] if moved[i] else -1
        masks[S.M_DRAWN], masks[S.M_REMAINING] = t.drawn, t.deal_left
        streams = ((S.M_RNG_DECK, t.deck_rng), (S.M_RNG_HUNTER, ref.streams[0]), (S.M_RNG_TOWN, ref.streams[1]))
        for at, stream in streams:
            masks[at:at + 4] = np.array(stream.s, dtype=np.uint64)
        if not self.is_terminal():
            self._advance(-1)   # the decision posed again: its legal set from the new hands
        self._laid_out = None


def _records_copy(ref: CovensState) -> CovensState:
    """A copy of a reference state's records that ``_resample`` changes (table lists, zones, streams), for
    a redraw that leaves ``ref`` as it was; the engine's generator is shared, so the copy must not move."""
    out = object.__new__(CovensState)
    out.__dict__.update(ref.__dict__)
    out.streams = list(ref.streams)
    out.table = t = shallow_copy(ref.table)
    for name in ("deck", "deck_known", "hands", "dealt", "arrived", "gave", "received", "town_woods", "travel_log"):
        setattr(t, name, list(getattr(t, name)))
    out.knowledge = k = object.__new__(Knowledge)
    k.__dict__.update(ref.knowledge.__dict__)
    k.zones = [dict(z) for z in ref.knowledge.zones]
    return out


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
              log: bool = False) -> ArrayState | CovensState:
    """Game ``index`` of the run ``seed`` (the runner's deal), the ``fixed`` sides played inside: on the
    kernel's arrays (``ArrayState``), or with ``log=True`` on the reference engine (``CovensState``, whose
    table records the events of the turn log)."""
    players, options = GAME.check_players(players), GAME.make_options(options)
    if log:
        return CovensState(int(seed), int(index), players, options, fixed, True)
    return ArrayState(int(seed), int(index), players, options, fixed)


STEP = StepSpec(name="covens", agents=agents, num_actions=S.N_ACTIONS, observation_size=observation_size,
                agent_sides=agent_sides, new_state=new_state, doc=__doc__)
ArrayState.spec = STEP
