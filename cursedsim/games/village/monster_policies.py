"""Reference controllers of the Monster player (monster_player.py): ``MonsterRandom`` (uniform over the legal
codes) and ``Glutton`` (issue 13: "plans movement to eat pairs and triples of one type, manages Panic with
Quiet Nights, buys Powers by value": here it plays Power cards by value). A controller is
``act(table, side, decision, legal, stream) -> code``; only ``MonsterRandom`` draws from the stream.

Glutton is integer arithmetic over the table (its parameters are read as integers, truncated), every tie
to the lowest code, so a compiled kernel can mirror it exactly. Its scores (``house_score``): a house of villager type v at route distance d scores
``match * stomach[v] + energy(v) - dist * d`` (route distance: movements along roads, an occupied house
only as the last step, V7.3).
"""

from __future__ import annotations

from collections.abc import Mapping

from cursedsim.games.village import components as C
from cursedsim.games.village import monster_player as P

UNREACHABLE = 1000

#: (name, default, low, high, doc) per policy. Glutton's defaults: tuned (issue 26) with ``cursedsim tune
#: village --policy wizard=planner --policy monster=glutton --side monster --candidates 96 --games 2000
#: --final-games 20000 --seed 262`` on the default decks (before: night_panic 7, match 6, dist 1, panic_spend
#: 6, max_buy 2): the Monster's duel wins against the planner 26.1% -> 34.7% on the held-out games.
PARAMS = {
    "random": (),
    "glutton": (
        ("night_panic", 5.0, 1.0, 11.0, "take a Quiet Night when Panic is at least this (and the stomach empty)"),
        ("match", 12.0, 0.0, 20.0, "score per villager of the same type already in the stomach"),
        ("dist", 4.0, 0.0, 5.0, "score lost per movement to the house"),
        ("panic_spend", 1.0, 1.0, 11.0, "spend 6 Energy for Panic -1 when Panic is at least this"),
        ("max_buy", 4.0, 0.0, 4.0, "movements bought with Energy at most in one action"),
        ("play_zero", 1.0, 0.0, 1.0, "1: play a card of value 0 (a placeholder, a blank) that costs no Panic or "
                                     "Energy when no card of positive value is playable, so the hand turns "
                                     "over (0: never, Glutton before issue 26)"),
    ),
}
#: Power effects by value to Glutton (played when positive, the highest first; a tie to the lowest code;
#: with ``play_zero`` a card of value 0 without a Panic or Energy cost is played when nothing better is).
CARD_VALUE = {"gain_curse": 10, "eat_rolled_houses": 8, "extra_feeding_action": 6, "leap": 5, "gain_energy": 4,
              "movement_energy_cost": 3, "wizard_crossing_cost": 3, "ignore_town_guards": 2, "add_sheep": 1}


class MonsterRandom:
    """Uniform over the legal codes: ``legal[stream.below(len(legal))]``."""

    name = "random"

    def __init__(self, params=None):
        self.params = ()

    def act(self, t, side, decision, legal, stream):
        return legal[stream.below(len(legal))]


def route_distances(t, start: int) -> list[int]:
    """Movements from ``start`` to every location along roads, passing through no occupied house (V7.3) and
    counting Hydrophobia's bridges (relaxation passes: no recursion, no heap)."""
    arr = t.arrays
    n = len(t.board.locations)
    dist = [UNREACHABLE] * n
    dist[start] = 0
    changed = True
    while changed:
        changed = False
        for i in range(n):
            if dist[i] >= UNREACHABLE:
                continue
            number = int(arr["house_number"][i])
            if i != start and number > 0 and t.houses[number] != P.EMPTY:
                continue
            for k in range(int(arr["adj_start"][i]), int(arr["adj_start"][i + 1])):
                j = int(arr["adj"][k])
                d = dist[i] + P.road_cost(t, int(arr["adj_road"][k]))
                if d < dist[j]:
                    dist[j] = d
                    changed = True
    return dist


class Glutton:
    """Eats pairs and triples of one type: each action heads for the best-scoring house it can reach this
    action (buying movements up to ``max_buy``), eats there (else a sheep), plays Power cards by value and
    takes a Quiet Night when Panic is high and the stomach empty."""

    name = "glutton"

    def __init__(self, params=None):
        names = [p[0] for p in PARAMS["glutton"]]
        values = [p[1] for p in PARAMS["glutton"]]
        for k, v in (params or {}).items():
            values[names.index(k)] = float(v)
        self.night_panic, self.match, self.dist, self.panic_spend, self.max_buy, self.play_zero = (
            int(v) for v in values)

    # ---------------------------------------------------------------- scores
    def stomach_counts(self, t) -> list[int]:
        counts = [0] * len(C.VILLAGERS)
        for slot in t.stomach:
            for kind in slot:
                if kind != P.SHEEP:
                    counts[C.VILLAGER_NAMES.index(kind)] += 1
        return counts

    def target(self, t, reach: int):
        """(location, score) of the best occupied house within ``reach`` movements; (-1, 0) if none. Ties:
        the lowest house number."""
        dist = route_distances(t, t.at)
        counts = self.stomach_counts(t)
        best, best_score = -1, 0
        for number in range(1, C.HOUSES + 1):
            v = t.houses[number]
            if v == P.EMPTY:
                continue
            loc = t.board.house(number)
            if dist[loc] > reach:
                continue
            score = self.match * counts[v] + C.VILLAGER_ENERGY[v] - self.dist * dist[loc] + 100
            if best < 0 or score > best_score:
                best, best_score = loc, score
        return best, best_score

    def reach(self, t) -> int:
        cost = P.movement_cost(t)
        bought = min(self.max_buy, t.energy // cost) if cost > 0 else self.max_buy
        return t.m_moves + bought

    # ---------------------------------------------------------------- decisions
    def act(self, t, side, decision, legal, stream):
        if decision == P.DECIDE_TURN:
            empty = not t.stomach
            return P.QUIET_NIGHT if (t.panic >= self.night_panic and empty) else P.FEEDING
        if decision == P.DECIDE_NIGHT_POWER:
            return max(0, self.best_card(t, legal, 1))
        if decision == P.DECIDE_NIGHT_SINGLE:
            return 0
        if decision == P.DECIDE_BETWEEN:
            return self.between(t, legal)
        if decision == P.DECIDE_MOVE:
            return self.move(t, legal)
        if decision == P.DECIDE_EAT:
            return self.eat(t, legal)
        if decision == P.DECIDE_AFTER_MEAL:
            return max(P.END_ACTION, self.spend(t, legal))
        if decision == P.DECIDE_LEAP:
            return self.leap(t, legal)
        if decision == P.DECIDE_ARRIVAL:
            dist = [int(x) for x in t.arrays["distance"][t.at]]
            return min(legal, key=lambda n: (dist[t.board.house(n)], n))
        return legal[0]

    def best_card(self, t, legal, offset: int) -> int:
        """The legal play code (>= offset) of the highest-valued card; -1 when none has a positive value
        (with play_zero: none has value 0 and no Panic or Energy cost either)."""
        best, value = -1, -1 if self.play_zero else 0
        for code in legal:
            if code < offset:
                continue
            card = t.power_hand[code - offset]
            v = CARD_VALUE.get(card.effect, 0)
            if v == 0 and (card.requirements.panic or card.requirements.energy):
                v = -1                                       # a cost for nothing
            if card.kind == "single_use" and P.single_use_card(t) is not None:
                v = -1                                       # V8.4 would waste the waiting one
            if v > value:
                best, value = code, v
        return best

    def between(self, t, legal):
        play = self.best_card(t, legal, P.PLAY)
        if play >= 0:
            return play
        single = P.single_use_card(t)
        if P.USE_SINGLE_BETWEEN in legal and single is not None:
            if single.effect == "extra_feeding_action" and t.m_actions == 0:
                return P.USE_SINGLE_BETWEEN
            if single.effect == "leap" and t.m_actions > 0 and self.target(t, C.MOVES_PER_ACTION)[0] < 0:
                return P.USE_SINGLE_BETWEEN
        if P.NEXT_ACTION in legal:
            return P.NEXT_ACTION
        return P.END_TURN

    def spend(self, t, legal):
        if P.PANIC_DOWN in legal and t.panic >= self.panic_spend:
            return P.PANIC_DOWN
        if P.DISCARD_SPELL in legal and t.energy >= C.ENERGY_DISCARD_SPELL + P.movement_cost(t) * self.max_buy:
            return P.DISCARD_SPELL
        return -1

    def move(self, t, legal):
        code = self.spend(t, legal)
        if code >= 0:
            return code
        here = int(t.arrays["house_number"][t.at])
        if here > 0 and t.houses[here] != P.EMPTY:
            return P.END_MOVING
        goal, _ = self.target(t, self.reach(t))
        if goal < 0:
            return P.END_MOVING
        if P.BUY_MOVEMENT in legal and not any(code >= P.MOVE for code in legal):
            return P.BUY_MOVEMENT                            # no road can be taken: buy one (M3)
        # the neighbour on a shortest route to the goal (lowest location index among ties)
        best, best_d = -1, UNREACHABLE
        for code in legal:
            if code < P.MOVE:
                continue
            n = code - P.MOVE
            number = int(t.arrays["house_number"][n])
            if n == goal:
                return code
            if number > 0 and t.houses[number] != P.EMPTY:
                continue
            d = route_distances(t, n)[goal]
            if d < best_d:
                best, best_d = code, d
        return best if best >= 0 else P.END_MOVING

    def eat(self, t, legal):
        code = self.spend(t, legal)
        if code >= 0:
            return code
        if P.EAT_VILLAGER in legal:
            return P.EAT_VILLAGER
        best, most = P.EAT_NOTHING, 0
        for code in legal:
            if code >= P.EAT_SHEEP and t.sheep[code - P.EAT_SHEEP] > most:
                best, most = code, t.sheep[code - P.EAT_SHEEP]
        return best

    def leap(self, t, legal):
        counts = self.stomach_counts(t)
        best, best_score = legal[0], -1
        for n in legal:
            number = int(t.arrays["house_number"][n])
            if number <= 0 or t.houses[number] == P.EMPTY:
                continue
            v = t.houses[number]
            score = self.match * counts[v] + C.VILLAGER_ENERGY[v]
            if score > best_score:
                best, best_score = n, score
        return best


POLICIES = {"random": MonsterRandom, "glutton": Glutton}


def make(name: str, params=None):
    """A Monster controller by name (``random``, ``glutton``) with optional parameters: ``{param: value}``
    or the vector in ``PARAMS`` order (what the runner passes)."""
    if name not in POLICIES:
        raise ValueError(f"unknown Monster policy {name!r}; policies: {', '.join(POLICIES)}")
    if params is not None and not isinstance(params, Mapping):
        names = [row[0] for row in PARAMS[name]]
        values = [float(v) for v in params]
        if len(values) != len(names):
            raise ValueError(f"Monster policy {name!r} takes {len(names)} parameters ({', '.join(names) or 'none'}), "
                             f"got {len(values)}")
        params = dict(zip(names, values))
    return POLICIES[name](params)
