"""Reference policies of the Wizard player (``wizard_player.py`` asks them every decision): ``random`` and
``planner``. A policy is ``act(table, side, decision, legal, stream) -> action``; ``legal`` is ascending
and its codes are the table of wizard_player's docstring. The kernel copies these rules, so every score
is an integer and every tie goes to the lowest code; only ``random`` draws from its stream (7).
"""

from __future__ import annotations

from cursedsim.errors import UnknownPolicyError
from cursedsim.games.village import components as C
from cursedsim.games.village import wizard_player as WP

#: Per policy: rows ``(name, default, low, high, doc)`` of its parameter vector. The planner's defaults: tuned
#: (issue 26) with ``cursedsim tune village --policy wizard=planner --policy monster=rabid --candidates 128
#: --games 2000 --final-games 20000 --seed 261`` on the default decks: only coin_reserve moved (1 -> 0: 10.7%
#: -> 14.4% against the Rabid Monster, 20,000 games; the duel against Glutton unchanged within 1 point); the
#: search's other pick, discard_ahead 0, loses 0.6 points there and 2.3 in the duel, so it stays 1.
PARAMS = {
    "random": (),
    "planner": (
        ("spell_min", 4.0, 0.0, 20.0, "cast a Spell when its value (below) is at least this"),
        ("ingredient_value", 4.0, 0.0, 20.0, "value of a needed ingredient a Spell gives"),
        ("coin_reserve", 0.0, 0.0, 10.0, "coins kept after paying a crossing in coins (else an action pays)"),
        ("declare_cap", 3.0, 1.0, 4.0, "most coins declared at a Steal"),
        ("distract_min", 2.0, 1.0, 5.0, "least declared coins worth an action spent on a distraction"),
        ("need_penalty", 10.0, 0.0, 50.0, "Rabid Monster card score added when its villager sells a needed "
                                          "ingredient"),
        ("card_keep", 20.0, 0.0, 50.0, "Rabid Monster card score added per other action the card offers"),
        ("coin_target", 0.0, 0.0, 25.0, "steal while the coins are below this (and below the cheapest purchase "
                                        "of a missing ingredient)"),
        ("discard_ahead", 1.0, 0.0, 1.0, "1: with every pouch full and the next Cure step's ingredient not held, "
                                         "discard the ingredient needed furthest ahead (0: never discard a "
                                         "needed one, the planner before issue 26)"),
        ("cast_spare", 0.0, 0.0, 1.0, "1: an action that would otherwise end the turn casts the best castable "
                                      "Spell, however low its value (a placeholder's coin, a blank), so the "
                                      "hand turns over (0: never, as before issue 26; 1 measured +1.6 points "
                                      "in the duel, -2.6 against the Rabid Monster, whose cards it spends)"),
    ),
}


class WizardRandom:
    """``random``: ``legal[stream.below(len(legal))]`` at every decision."""

    label = "random"

    def act(self, table, side, decision, legal, stream) -> int:
        return legal[stream.below(len(legal))]


def missing(t) -> list[int]:
    """The ingredients of the next Cure steps the Wizard can hold at once (as many steps as its
    capacity), in track order, less those held (as a multiset): what to buy next."""
    pool = list(t.held)
    out = []
    for need in t.cure_seq[t.cure:t.cure + WP.capacity(t)]:
        if need in pool:
            pool.remove(need)
        else:
            out.append(need)
    return out


class Planner:
    """``planner``: plans the cheapest route to the next Cure ingredients, steals when short of coins,
    casts spells by value.

    "Missing" is ``missing(t)``: the next ``capacity`` Cure steps less the ingredients held. ACTION, the
    first that applies: Mix Cure when offered and (nothing is missing, or no offered house sells a missing
    ingredient, or at most 1 action is left beyond the one the fare to the Laboratory would take when the
    coins less coin_reserve do not cover it); a Spell when the best offered one has value >= spell_min; a
    Buy when an offered house sells a missing ingredient; a Steal when something is missing and the coins
    are below max(coin_target, the cheapest fare + price of a missing ingredient's house, or fare + price
    of the Market when no house sells one); the Market when no house on the board sells a missing
    ingredient and the Market offers one; a discard when full and something is missing and an ingredient
    is unneeded (beyond the remaining steps) or (discard_ahead) the next step's ingredient is not held;
    (cast_spare) a Spell, the best castable, whatever its value; else end the turn.

    Spell value: its coins, + ingredient_value per missing ingredient it gives (while a pouch is free), +
    2 ingredient_value for a Cure step it makes, + the coins Diplosis adds, + 1 for a first Box of
    Holding, Hypnotize with a missing type in the bag, A Village Feast, Gift of the Gab, Hydrophobia, + 2
    for Distract with a target. Sub-decisions (ties: the lowest code): BUY_HOUSE the missing sellers (all
    offered when none) by fare + price, then the earliest missing step, then the number; BUY_COUNT the
    missing count of that type within the offered range; MARKET_PICK and HYPNOTIZE the first missing
    offered; SPELL the highest value; STEAL_HOUSE the highest 6 x expectation less 6 x fare (empty 6,
    occupied d(6-d), d = min(house coins, declare_cap, supply)); STEAL_AMOUNT min(declare_cap, the most
    offered); DISTRACT when that d >= distract_min; PAY coins while coin_reserve coins remain after fare
    and price, else an action; DISCARD the lowest unneeded, else (discard_ahead) the held ingredient
    needed furthest ahead on the Cure track (``furthest``), else the lowest code; ARRIVAL_HOUSE for a missing type the lowest
    (fare, roads from the token, number), else the lowest number; RM_CARD the lowest (copies of its
    villager on the board + need_penalty if it sells a missing ingredient + card_keep x the other actions
    the card offers; a blank card -1); MOVE_TO, DISCARD_POWER and decisions of other modules: the lowest code.
    """

    label = "planner"

    def __init__(self, spell_min=4.0, ingredient_value=4.0, coin_reserve=0.0, declare_cap=3.0, distract_min=2.0,
                 need_penalty=10.0, card_keep=20.0, coin_target=0.0, discard_ahead=1.0, cast_spare=0.0):
        self.spell_min = int(spell_min)
        self.ingredient_value = int(ingredient_value)
        self.coin_reserve = int(coin_reserve)
        self.declare_cap = int(declare_cap)
        self.distract_min = int(distract_min)
        self.need_penalty = int(need_penalty)
        self.card_keep = int(card_keep)
        self.coin_target = int(coin_target)
        self.discard_ahead = int(discard_ahead)
        self.cast_spare = int(cast_spare)

    # ------------------------------------------------------------ values

    def spell_value(self, t, card) -> int:
        """Coins gained plus the worth of the effect now (integers)."""
        value = card.coins
        effect = card.effect
        need = missing(t)
        if effect == "gain_ingredients":
            room = WP.capacity(t) - len(t.held)
            for i in (card.param("first"), card.param("second")):
                if room > 0 and i in need:
                    value += self.ingredient_value
                    need.remove(i)
                    room -= 1
        elif effect == "cure_if_next":
            if t.cure < len(t.cure_seq) and t.cure_seq[t.cure] in (card.param("first"), card.param("second")):
                value += 2 * self.ingredient_value
        elif effect == "double_coins":
            value += min(t.coins, card.param("cap") - t.coins)
        elif effect == "extra_ingredient_slot":
            value += 1 if WP.capacity(t) == C.WIZARD_INGREDIENT_LIMIT else 0
        elif effect == "place_villager":
            value += 1 if any(t.bag[i] > 0 for i in need) else 0
        elif effect in ("remove_sheep", "market_discount", "bridge_extra_movement"):
            value += 1
        elif effect == "discard_power":
            value += 2 if any(c.deck == "power" and c.kind == "ongoing" for c in t.in_front_of_monster) else 0
        return value

    def house_cost(self, t, number: int) -> int:
        loc = t.board.house(number)
        return WP.fare(t, loc) + WP.house_price(t, loc)

    def cheapest_need(self, t) -> int:
        """Coins of the cheapest purchase of a missing ingredient (fare + price); the Market's when none."""
        need = missing(t)
        costs = [self.house_cost(t, n) for n in range(1, C.HOUSES + 1) if t.houses[n] in need]
        return min(costs) if costs else WP.fare(t, t.board.market) + WP.market_price(t)

    # ------------------------------------------------------------ decisions

    def act(self, t, side, decision, legal, stream) -> int:
        """The method named as the decision; a decision another module asks of the Wizard (a Quiet Night
        arrival's house, O2): the lowest code."""
        method = getattr(self, decision, None) if decision in WP.DECISIONS else None
        return method(t, legal) if method is not None else legal[0]

    def action(self, t, legal) -> int:
        need = missing(t)
        buyable = [n for n in WP.buy_houses(t) if t.houses[n] in need]
        if WP.A_MIX in legal and (not need or not buyable or t.wizard_actions_left <= 1 + self.mix_reserve(t)):
            return WP.A_MIX
        if WP.A_SPELL in legal and max(self.spell_value(t, t.spell_hand[p]) for p in WP.spells(t)) >= self.spell_min:
            return WP.A_SPELL
        if WP.A_BUY_HOUSE in legal and buyable:
            return WP.A_BUY_HOUSE
        if WP.A_STEAL in legal and need and t.coins < max(self.coin_target, self.cheapest_need(t)):
            return WP.A_STEAL
        if WP.A_BUY_MARKET in legal and need and not any(t.houses[n] in need for n in range(1, C.HOUSES + 1)) \
                and any(i in need for i in WP.market_ingredients(t)):
            return WP.A_BUY_MARKET
        if WP.A_DISCARD in legal and need and len(t.held) >= WP.capacity(t) and (self.unneeded(t) >= 0 or (
                self.discard_ahead and t.cure < len(t.cure_seq) and t.cure_seq[t.cure] not in t.held)):
            return WP.A_DISCARD
        if self.cast_spare and WP.A_SPELL in legal:
            return WP.A_SPELL
        return WP.A_END

    def mix_reserve(self, t) -> int:
        """1 when reaching the Laboratory from here would take an action (no coins for the fare), else 0."""
        cost = WP.fare(t, t.board.laboratory)
        return 1 if cost > t.coins - self.coin_reserve else 0

    def unneeded(self, t) -> int:
        """The lowest held ingredient beyond what the Cure steps left need, or -1."""
        rest = list(t.cure_seq[t.cure:])
        extra = []
        for i in t.held:
            if i in rest:
                rest.remove(i)
            else:
                extra.append(i)
        return min(extra) if extra else -1

    @staticmethod
    def furthest(t) -> int:
        """The held ingredient needed furthest ahead: each held one matched to the earliest Cure step left
        needing it, the last matched; -1 when none is needed."""
        pool = list(t.held)
        last = -1
        for need in t.cure_seq[t.cure:]:
            if need in pool:
                pool.remove(need)
                last = need
        return last

    def buy_house(self, t, legal) -> int:
        need = missing(t)
        rank = {i: need.index(i) for i in reversed(need)}

        def key(n):
            return (self.house_cost(t, n), rank.get(t.houses[n], len(C.INGREDIENTS) * 3), n)
        useful = [n for n in legal if t.houses[n] in need]
        return min(useful or legal, key=key)

    def buy_count(self, t, legal) -> int:
        number = t.wizard_pending[1]
        want = missing(t).count(t.houses[number])
        return max(legal[0], min(legal[-1], want))

    def market_pick(self, t, legal) -> int:
        need = missing(t)
        for i in need:
            if i in legal:
                return i
        return legal[0]

    def spell(self, t, legal) -> int:
        return min(legal, key=lambda p: (-self.spell_value(t, t.spell_hand[p]), p))

    def steal_house(self, t, legal) -> int:
        supply = C.COIN_TOTAL - t.coins

        def score(n):
            loc = t.board.house(n)
            if t.houses[n] == WP.EMPTY:
                s = 6
            else:
                d = min(int(t.arrays["coins"][loc]), self.declare_cap, supply)
                s = d * (6 - d)
            return s - 6 * WP.fare(t, loc)
        return min(legal, key=lambda n: (-score(n), n))

    def steal_amount(self, t, legal) -> int:
        return min(legal[-1], self.declare_cap)

    def distract(self, t, legal) -> int:
        number = t.wizard_pending[1]
        loc = t.board.house(number)
        d = min(int(t.arrays["coins"][loc]), self.declare_cap, C.COIN_TOTAL - t.coins)
        return 1 if d >= self.distract_min else 0

    def pay(self, t, legal) -> int:
        _, loc, need = t.wizard_pending
        if WP.PAY_COINS in legal and t.coins - WP.fare(t, loc) - need >= self.coin_reserve:
            return WP.PAY_COINS
        return WP.PAY_ACTION if WP.PAY_ACTION in legal else legal[0]

    def move_to(self, t, legal) -> int:
        return legal[0]

    def discard(self, t, legal) -> int:
        extra = self.unneeded(t)
        if extra < 0 and self.discard_ahead:
            extra = self.furthest(t)
        return extra if extra in legal else legal[0]

    def arrival_house(self, t, legal) -> int:
        """A villager selling a missing ingredient: the house cheapest to reach, then the closest, then the
        lowest number; any other: the lowest number."""
        v = t.wizard_pending[1]
        if v not in missing(t):
            return legal[0]
        return min(legal, key=lambda n: (WP.fare(t, t.board.house(n)), t.distance(t.at, t.board.house(n)), n))

    def hypnotize(self, t, legal) -> int:
        for i in missing(t):
            if i in legal:
                return i
        return legal[0]

    def discard_power(self, t, legal) -> int:
        return legal[0]

    def rm_card(self, t, legal) -> int:
        need = missing(t)

        def score(p):
            if not t.rm_drawn[p].villager:                 # a blank card (unlisted_cards = blank) hunts nobody
                return -1
            v = C.VILLAGER_NAMES.index(t.rm_drawn[p].villager)
            on_board = sum(1 for n in range(1, C.HOUSES + 1) if t.houses[n] == v)
            kind = t.wizard_pending[1]
            spare = sum(1 for k in t.rm_drawn[p].actions if k != kind)   # actions the card could still serve
            return on_board + (self.need_penalty if v in need else 0) + self.card_keep * spare
        return min(legal, key=lambda p: (score(p), p))


POLICIES = {"random": WizardRandom, "planner": Planner}


def make(name: str, params=None):
    """The Wizard policy ``name`` with the parameter vector ``params`` (its ``PARAMS`` defaults when None)."""
    if name not in POLICIES:
        raise UnknownPolicyError(f"unknown village wizard policy {name!r}; valid policies: {', '.join(POLICIES)}")
    rows = PARAMS[name]
    values = [row[1] for row in rows] if params is None else [float(v) for v in params]
    if len(values) != len(rows):
        raise UnknownPolicyError(f"village wizard policy {name!r} takes {len(rows)} parameters "
                                 f"({', '.join(r[0] for r in rows) or 'none'}), got {len(values)}")
    return POLICIES[name](*values)
