"""The Wizard player's turn in the reference engine (a side played by a person or a policy, not by its
automaton): the set-up of its hand (V1.10) and its turn (V2, V3, V4, V5, V10, and V13 against the Rabid
Monster), every choice asked of its controller through ``Table.choose``. Rule numbers are those of
docs/rules/village.md; the readings this module makes are its section "The Wizard player's turn
(readings)".

The turn, in order (each draw from its stream in this order):

1. Box of Holding gone: ingredients above the limit are returned, the Wizard choosing (``DISCARD``).
2. Arrival (V2.2-V2.5): skipped under Stay inside! (V10.2, ``fire("stay_inside")``); else a villager from
   the bag (stream 0), the d20 (stream 1); an occupied house: ``ARRIVAL_HOUSE``.
3. Get busy! (V10.1) and A plethora of potions! (V10.3) read once (``fire`` each turn they are in force).
4. Against the Rabid Monster (V13.1): the 12 Rabid Monster cards gathered and shuffled (stream 6), 4 drawn.
5. ``ACTION`` until ``A_END`` (or a win, V12): each action is a sub-decision chain below.
6. V5.1: the hand refilled to 4 (stream 3 on a reshuffle); the unused Rabid Monster cards discarded.

Decisions (``legal`` always ascending):

=================  ==========================================================================
decision           codes
=================  ==========================================================================
``ACTION``         0 end the turn, 1 Buy at a house, 2 Buy at the Market, 3 Mix Cure, 4 Cast
                   Spell, 5 Steal, 6 move alone (O3 ``wizard_move_alone``), 7 discard an
                   ingredient (free, V3.4)
``BUY_HOUSE``      a house number 1-20 (occupied, ingredient affordable, room, supply)
``BUY_COUNT``      how many ingredients, 1..n (V3.2)
``MARKET_PICK``    an ingredient 0-5 (components.INGREDIENTS) to buy at the Market (V3.3)
``SPELL``          a position in ``t.spell_hand`` of a card whose requirements are met (V3.6)
``STEAL_HOUSE``    a house number 1-20 (V3.10, V3.11)
``STEAL_AMOUNT``   the coins declared, 1..min(house coins, supply) (V3.11, V3.13)
``DISTRACT``       0 take nothing, 1 spend an action on a distraction and take the coins (V3.12)
``PAY``            0 pay the crossings in coins, 1 spend an action instead (V4.2, V4.3)
``MOVE_TO``        a location index (board file order) to move to alone (O3)
``DISCARD``        an ingredient 0-5 held, returned to the supply (V3.4)
``ARRIVAL_HOUSE``  an empty house number for a villager whose house is occupied (V2.3, Hypnotize)
``HYPNOTIZE``      a villager type 0-5 still in the bag (Hypnotize, pick = choice)
``DISCARD_POWER``  a position in ``t.in_front_of_monster`` of an ongoing Power card (Distract)
``RM_CARD``        a position in ``t.rm_drawn`` of the Rabid Monster card the action uses (V13.2)
=================  ==========================================================================

``t.wizard_actions_left`` holds the actions left, ``t.wizard_pending`` the action a sub-decision belongs
to: ``(ACTION code, location, coins the action needs)`` for ``PAY``; ``(A_BUY_HOUSE, house)`` for
``BUY_COUNT``; ``(A_BUY_MARKET,)`` for ``MARKET_PICK``; ``(A_STEAL, house)`` for ``STEAL_AMOUNT`` and
``DISTRACT``; ``(ARRIVAL, villager)`` for ``ARRIVAL_HOUSE``; ``(RM_CARD, action kind or "")`` for ``RM_CARD``
("" for an action spent on a move or a distraction).
"""

from __future__ import annotations

from cursedsim.games.village import components as C
from cursedsim.games.village import rules as R

W = R.WIZARD
EMPTY = -1
#: The Panic effects of the Wizard side of the Village board (components.PANIC_EFFECTS["wizard"] order).
GET_BUSY, STAY_INSIDE, PLETHORA = 0, 1, 2

ACTION = "action"
BUY_HOUSE = "buy_house"
BUY_COUNT = "buy_count"
MARKET_PICK = "market_pick"
SPELL = "spell"
STEAL_HOUSE = "steal_house"
STEAL_AMOUNT = "steal_amount"
DISTRACT = "distract"
PAY = "pay"
MOVE_TO = "move_to"
DISCARD = "discard"
ARRIVAL_HOUSE = "arrival_house"
HYPNOTIZE = "hypnotize"
DISCARD_POWER = "discard_power"
RM_CARD = "rm_card"
DECISIONS = (ACTION, BUY_HOUSE, BUY_COUNT, MARKET_PICK, SPELL, STEAL_HOUSE, STEAL_AMOUNT, DISTRACT, PAY, MOVE_TO,
             DISCARD, ARRIVAL_HOUSE, HYPNOTIZE, DISCARD_POWER, RM_CARD)

A_END, A_BUY_HOUSE, A_BUY_MARKET, A_MIX, A_SPELL, A_STEAL, A_MOVE, A_DISCARD = range(8)
ACTION_NAMES = ("end", "buy_house", "buy_market", "mix_cure", "cast_spell", "steal", "move", "discard")
PAY_COINS, PAY_ACTION = 0, 1
ARRIVAL = "arrival"
#: The Rabid Monster card action (cards.RM_ACTIONS) each Wizard action needs (V13.1); "" for none.
RM_KIND = {A_BUY_HOUSE: "buy_ingredients", A_BUY_MARKET: "buy_ingredients", A_MIX: "mix_cure",
           A_SPELL: "cast_spell", A_STEAL: "steal"}


# ================================================================ set-up (V1.10)

def deal(t) -> None:
    """V1.10: the Wizard player draws 4 Spell cards (from the deck ``Table.deal`` shuffled)."""
    t.spell_hand = []
    refill(t)


def refill(t) -> None:
    """V5.1: draw up to 4 cards in hand; an empty deck is rebuilt from the discard pile (stream 3)."""
    from cursedsim.games.village.reference import STREAM_SPELL
    while len(t.spell_hand) < C.HAND_SIZE:
        card = t.draw_from(t.spell_deck, t.spell_discard, STREAM_SPELL, "Spell")
        if card is None:                                   # V11.1
            return
        t.spell_hand.append(card)


# ================================================================ small facts of the state

def rabid(t) -> bool:
    """The Wizard player plays against the Rabid Monster (V13.1: its actions come from the cards)."""
    return t.mode == R.RABID_MONSTER


def capacity(t) -> int:
    """V3.4: 3 ingredients, more with Box of Holding (its ``slots``) in front of the Wizard."""
    return C.WIZARD_INGREDIENT_LIMIT + sum(card.param("slots") for card in t.in_front_of_wizard
                                           if card.effect == "extra_ingredient_slot")


def supply_of(t, ingredient: int) -> int:
    """V11.1: tiles of an ingredient in the supply (the Wizard holds the only ones out of it)."""
    return C.INGREDIENT_TILES_EACH - t.held.count(ingredient)


def house_price(t, loc: int) -> int:
    """V3.2 with V10.3: the house's price, 1 less under A plethora of potions! (never below 0)."""
    price = int(t.arrays["price"][loc])
    if t.panic_effect(PLETHORA):
        price -= 1
    return max(0, price)


def market_price(t) -> int:
    """V3.3: 5 coins; Gift of the Gab (not below its floor, C10) then A plethora of potions! (O5)."""
    price = C.MARKET_PRICE
    for card in t.in_front_of_wizard:
        if card.effect == "market_discount":
            price = max(card.param("floor"), price - card.param("coins"))
    if t.panic_effect(PLETHORA) and t.options.plethora_at_market:
        price -= 1
    return max(0, price)


def fare(t, loc: int) -> int:
    """V4.1, V4.2: the coins to reach ``loc`` from the token (free within a district)."""
    return t.crossings(t.at, loc) * t.crossing_fee()


def unused_cards(t) -> list[int]:
    return [p for p, card in enumerate(t.rm_drawn) if card is not None]


def offering(t, kind: str) -> list[int]:
    """Positions of the unused drawn Rabid Monster cards that offer ``kind`` (V13.1, C19)."""
    return [p for p, card in enumerate(t.rm_drawn) if card is not None and kind in card.actions]


def spends_card(t) -> bool:
    """O16 ``rabid_spent_actions``: an action spent on moving or a distraction uses up a drawn card (laid
    out with ``use_a_card``, discarded with ``discard_card``)."""
    return rabid(t) and t.options.rabid_spent_actions != "free"


def can_act(t, action: int) -> bool:
    """One action left, and against the Rabid Monster a drawn card offering it (V13.1)."""
    return t.wizard_actions_left >= 1 and (not rabid(t) or bool(offering(t, RM_KIND[action])))


def can_spend_extra(t, action: int) -> bool:
    """Room for one more action spent on moving before ``action`` (V4.3): two actions left and, when a
    spent action uses a card (O16), a second unused card besides one offering ``action``."""
    if t.wizard_actions_left < 2:
        return False
    return not spends_card(t) or len(unused_cards(t)) >= 2


def pay_options(t, action: int, loc: int, need: int) -> list[int]:
    """The ways to reach ``loc`` and then take ``action`` needing ``need`` coins there: [] when none,
    [PAY_COINS] when the move is free or only coins work, PAY_ACTION when an action may pay (V4.3)."""
    if not can_act(t, action) or t.coins < need:
        return []
    cost = fare(t, loc)
    if cost == 0:
        return [PAY_COINS]
    out = []
    if t.coins >= cost + need:
        out.append(PAY_COINS)
    if can_spend_extra(t, action):
        out.append(PAY_ACTION)
    return out


# ================================================================ the legal options of each decision

def buy_houses(t) -> list[int]:
    """Occupied houses where a Buy can buy at least one ingredient (V3.2, V3.4, V11.1)."""
    if len(t.held) >= capacity(t):
        return []
    out = []
    for number in range(1, C.HOUSES + 1):
        v = t.houses[number]
        if v == EMPTY or supply_of(t, v) < 1:
            continue
        loc = t.board.house(number)
        if pay_options(t, A_BUY_HOUSE, loc, house_price(t, loc)):
            out.append(number)
    return out


def market_ingredients(t) -> list[int]:
    if len(t.held) >= capacity(t):
        return []
    return [i for i in range(len(C.INGREDIENTS)) if supply_of(t, i) >= 1]


def market_ok(t) -> bool:
    return bool(market_ingredients(t)) and bool(pay_options(t, A_BUY_MARKET, t.board.market, market_price(t)))


def mix_ok(t) -> bool:
    """V3.5: Mix Cure is offered when it advances the Cure (the next step's ingredient is held)."""
    return (t.cure < len(t.cure_seq) and t.cure_seq[t.cure] in t.held
            and bool(pay_options(t, A_MIX, t.board.laboratory, 0)))


def spell_location(t, card) -> int:
    """The location a Spell requires (V3.6), or -1."""
    name = card.requirements.location
    return t.board.index[name] if name else -1


def castable(t, card) -> bool:
    """V3.6: the ingredients required are held and the location required can be reached."""
    need = [C.INGREDIENTS.index(name) for name in card.requirements.ingredients]
    for i in set(need):
        if t.held.count(i) < need.count(i):
            return False
    loc = spell_location(t, card)
    return bool(pay_options(t, A_SPELL, t.at if loc < 0 else loc, 0))


def spells(t) -> list[int]:
    return [p for p, card in enumerate(t.spell_hand) if castable(t, card)]


def steal_houses(t) -> list[int]:
    """V3.10-V3.13: any house, while the supply has a coin."""
    if t.coins >= C.COIN_TOTAL:
        return []
    return [n for n in range(1, C.HOUSES + 1) if pay_options(t, A_STEAL, t.board.house(n), 0)]


def move_targets(t) -> list[int]:
    """O3: the locations the Wizard may move to alone (coins, or an action, V4.3)."""
    if not t.options.wizard_move_alone:
        return []
    out = []
    for loc in range(len(t.board.locations)):
        if loc == t.at:
            continue
        cost = fare(t, loc)
        spare = t.wizard_actions_left >= 1 and (not spends_card(t) or bool(unused_cards(t)))
        if cost == 0 or t.coins >= cost or spare:
            out.append(loc)
    return out


def legal_actions(t) -> list[int]:
    """The ``ACTION`` codes open now (ascending)."""
    out = [A_END]
    if buy_houses(t):
        out.append(A_BUY_HOUSE)
    if market_ok(t):
        out.append(A_BUY_MARKET)
    if mix_ok(t):
        out.append(A_MIX)
    if spells(t):
        out.append(A_SPELL)
    if steal_houses(t):
        out.append(A_STEAL)
    if move_targets(t):
        out.append(A_MOVE)
    if t.held:
        out.append(A_DISCARD)
    return out


# ================================================================ spending actions and cards

def use_card(t, positions: list[int], kind: str) -> None:
    """Lay the chosen drawn card next to the Monster board, after those used before (V13.2); a card used
    up by a spent action under O16 ``discard_card`` is discarded instead (its villager is not hunted)."""
    t.wizard_pending = (RM_CARD, kind)
    p = t.choose(W, RM_CARD, positions)
    card = t.rm_drawn[p]
    t.rm_drawn[p] = None
    if not kind and t.options.rabid_spent_actions == "discard_card":
        t.record(W, "action", n=0, card=card.id,
                 what=f"Rabid Monster card ({card.villager}) discarded for a spent action, not hunted (O16)")
        return
    t.rm_used.append(card)
    t.record(W, "action", n=len(t.rm_used), card=card.id,
             what=f"Rabid Monster card ({card.villager}) used for {kind or 'a spent action'} (V13.2)")


def take(t, action: int) -> None:
    """One action of the turn (V3.1); against the Rabid Monster, the card it uses (V13.2)."""
    t.wizard_actions_left -= 1
    if rabid(t):
        use_card(t, offering(t, RM_KIND[action]), RM_KIND[action])


def spend_extra(t, before: int = -1) -> None:
    """An action spent on moving (V4.3) or on a distraction (V3.12); O16: it uses a card, keeping one
    that offers the ``before`` action still to come."""
    t.wizard_actions_left -= 1
    if spends_card(t):
        unused = unused_cards(t)
        if before >= 0:
            kind = RM_KIND[before]
            unused = [p for p in unused if any(q != p for q in offering(t, kind))]
        use_card(t, unused, "")


def go(t, action: int, loc: int, need: int) -> None:
    """Move the token to ``loc`` for ``action`` (V4.1-V4.3): free within a district, else coins or an
    action, as the Wizard chooses (``PAY``)."""
    if loc == t.at:
        return
    cost = fare(t, loc)
    how = PAY_COINS
    if cost > 0:
        t.wizard_pending = (action, loc, need)
        how = t.choose(W, PAY, pay_options(t, action, loc, need))
        if how == PAY_COINS:
            t.coins -= cost
        else:
            spend_extra(t, before=action)
    t.at = loc
    t.record(W, "move", to=t.location_name(loc), paid=cost if how == PAY_COINS else "an action")


# ================================================================ the actions (V3)

def buy_house(t) -> None:
    """V3.2: at an occupied house, any number of its ingredient in one action."""
    number = t.choose(W, BUY_HOUSE, buy_houses(t))
    loc = t.board.house(number)
    go(t, A_BUY_HOUSE, loc, house_price(t, loc))
    take(t, A_BUY_HOUSE)
    v = t.houses[number]
    price = house_price(t, loc)
    most = min(capacity(t) - len(t.held), supply_of(t, v))
    if price > 0:
        most = min(most, t.coins // price)
    t.wizard_pending = (A_BUY_HOUSE, number)
    n = t.choose(W, BUY_COUNT, list(range(1, most + 1)))
    t.coins -= n * price
    t.held.extend([v] * n)
    t.record(W, "buy", ingredient=f"{n} x {C.INGREDIENTS[v]}", at=t.location_name(loc), price=price)


def buy_market(t) -> None:
    """V3.3: exactly one ingredient of any type at the Market."""
    loc = t.board.market
    go(t, A_BUY_MARKET, loc, market_price(t))
    take(t, A_BUY_MARKET)
    t.wizard_pending = (A_BUY_MARKET,)
    i = t.choose(W, MARKET_PICK, market_ingredients(t))
    price = market_price(t)
    t.coins -= price
    t.held.append(i)
    t.record(W, "buy", ingredient=C.INGREDIENTS[i], at=t.location_name(loc), price=price)


def mix(t) -> None:
    """V3.5, E1: at the Laboratory, each held ingredient matching the next space moves the Cure tile;
    one action spends every match in turn (V12.1 at once)."""
    go(t, A_MIX, t.board.laboratory, 0)
    take(t, A_MIX)
    spent = []
    while not t.over and t.cure < len(t.cure_seq) and t.cure_seq[t.cure] in t.held:
        need = t.cure_seq[t.cure]
        t.held.remove(need)
        spent.append(C.INGREDIENTS[need])
        t.record(W, "mix", spent=spent[-1], steps=1)
        t.move_cure(1, "cure_from_mix")


def steal(t) -> None:
    """V3.10-V3.13: at an empty house 1 coin; at an occupied one a declared amount against the d6, a
    distraction (one more action) saving a noticed attempt."""
    number = t.choose(W, STEAL_HOUSE, steal_houses(t))
    loc = t.board.house(number)
    go(t, A_STEAL, loc, 0)
    take(t, A_STEAL)
    supply = C.COIN_TOTAL - t.coins
    if t.houses[number] == EMPTY:                          # V3.10
        taken = t.gain_coins(1)
        t.coins_stolen += taken
        t.record(W, "steal", at=t.location_name(loc), declared=1, roll=0, taken=taken)
        return
    t.wizard_pending = (A_STEAL, number)
    top = min(int(t.arrays["coins"][loc]), supply)         # V3.11, V3.13
    declared = t.choose(W, STEAL_AMOUNT, list(range(1, top + 1)))
    roll = t.d6()
    taken = 0
    if roll > declared:
        taken = t.gain_coins(declared)
    else:                                                  # V3.12: noticed
        can = t.wizard_actions_left >= 1 and (not spends_card(t) or bool(unused_cards(t)))
        if can and t.choose(W, DISTRACT, [0, 1]) == 1:
            spend_extra(t)
            taken = t.gain_coins(declared)
    t.coins_stolen += taken
    t.record(W, "steal", at=t.location_name(loc), declared=declared, roll=roll, taken=taken)


def cast(t) -> None:
    """V3.6-V3.9: a Spell from the hand, its location and ingredients, its effect, then its coins; an
    immediate card to the discard pile, an ongoing one in front of the Wizard or of the Monster."""
    p = t.choose(W, SPELL, spells(t))
    card = t.spell_hand[p]
    loc = spell_location(t, card)
    if loc >= 0:
        go(t, A_SPELL, loc, 0)
    take(t, A_SPELL)
    del t.spell_hand[p]
    for card_w in list(t.in_front_of_wizard):              # Greedy Coachman: "discarded if the Wizard
        if card_w.effect == "wizard_crossing_cost" and card_w.param("discard_on") == 1:  # takes a Cast Spell"
            t.in_front_of_wizard.remove(card_w)
            t.power_discard.append(card_w)
            t.record(W, "action", n=0, card=card_w.id, what=f"{card_w.name} discarded (Cast Spell)")
    for name in card.requirements.ingredients:             # spent, back to the supply
        t.held.remove(C.INGREDIENTS.index(name))
    result = apply_spell(t, card)
    coins = t.gain_coins(card.coins) if not t.over else 0  # V3.8
    if card.kind == "ongoing":                             # V3.7
        (t.in_front_of_monster if card.placement == "monster" else t.in_front_of_wizard).append(card)
    else:
        t.spell_discard.append(card)                       # V3.9
    t.record(W, "spell", card=f"{card.id} {card.name}", effect=card.effect, result=f"{result}; +{coins} coins")


def apply_spell(t, card) -> str:
    """The Wizard player's effect of a Spell card (village_cards.md, the effect vocabulary)."""
    effect, p = card.effect, card.param
    if effect == "remove_sheep":
        for k in range(len(t.sheep)):
            t.sheep[k] = max(0, t.sheep[k] - p("per_pasture"))
        return f"sheep {t.sheep}"
    if effect == "gain_ingredients":
        got = []
        for i in (p("first"), p("second")):
            if len(t.held) < capacity(t) and supply_of(t, i) >= 1:
                t.held.append(i)
                got.append(C.INGREDIENTS[i])
        return f"gains {got}"
    if effect == "cure_if_next":
        if t.cure < len(t.cure_seq) and t.cure_seq[t.cure] in (p("first"), p("second")):
            if t.cure_seq[t.cure] in t.held:
                t.held.remove(t.cure_seq[t.cure])
            t.move_cure(p("steps"), "cure_from_spells")
            return f"Cure +{p('steps')}"
        return "the next step needs neither"
    if effect == "double_coins":
        return f"+{t.gain_coins(min(t.coins, p('cap') - t.coins))} coins"
    if effect == "discard_power":
        targets = [q for q, c in enumerate(t.in_front_of_monster) if c.deck == "power" and c.kind == "ongoing"]
        if not targets:
            return "no ongoing Power card in front of the Monster"
        q = targets[0] if p("pick") == 1 else t.choose(W, DISCARD_POWER, targets)
        gone = t.in_front_of_monster.pop(q)
        t.power_discard.append(gone)
        return f"discards {gone.id} {gone.name}"
    if effect == "place_villager":
        return hypnotize(t, p("pick"))
    return "placed" if card.kind == "ongoing" else "no effect"


def hypnotize(t, pick: int) -> str:
    """Hypnotize (C12): a villager from the bag (chosen, or random: stream 0) to the d20 house; an occupied
    house as an arrival's (V2.3); no effect with every house occupied or the bag empty."""
    if all(t.houses[n] != EMPTY for n in range(1, C.HOUSES + 1)):
        return "every house occupied"
    if pick == 0:
        types = [v for v in range(len(C.VILLAGER_NAMES)) if t.bag[v] > 0]
        if not types:
            return "the bag is empty"
        v = t.choose(W, HYPNOTIZE, types)
        t.bag[v] -= 1
    else:
        v = t.draw_villager()
        if v == EMPTY:
            return "the bag is empty"
    house = place(t, v, t.d20())
    return f"{C.VILLAGER_NAMES[v]} to house {house}"


def place(t, v: int, roll: int) -> int:
    """V2.2, V2.3, V2.6: villager ``v`` to house ``roll``, or to an empty house the Wizard chooses."""
    house = roll
    if t.houses[roll] != EMPTY:
        t.wizard_pending = (ARRIVAL, v)
        house = t.choose(W, ARRIVAL_HOUSE, [n for n in range(1, C.HOUSES + 1) if t.houses[n] == EMPTY])
    t.houses[house] = v
    return house


def arrive(t, actor: str = W) -> None:
    """V2.2-V2.5 for a Wizard player: as ``Table.arrive`` (bag then d20), the Wizard choosing the house when
    the d20 one is occupied. Also for a Quiet Night's arrivals when the Wizard places them (O2)."""
    if all(t.houses[n] != EMPTY for n in range(1, C.HOUSES + 1)):
        t.record(actor, "no_arrival", reason="all houses occupied")
        return
    v = t.draw_villager()
    if v == EMPTY:
        t.record(actor, "no_arrival", reason="the bag is empty")
        return
    roll = t.d20()
    house = place(t, v, roll)
    t.record(actor, "arrive", villager=C.VILLAGER_NAMES[v], roll=roll, house=house)


def discard(t) -> None:
    """V3.4: an ingredient returned to the supply, free (no action)."""
    i = t.choose(W, DISCARD, sorted(set(t.held)))
    t.held.remove(i)
    t.record(W, "action", n=0, card="-", what=f"discards {C.INGREDIENTS[i]} (V3.4)")


def trim_to_capacity(t) -> None:
    """Box of Holding discarded: "If there is no empty slot, return the ingredient to the supply" -- the
    Wizard returns ingredients (its choice) until it holds no more than it may (V3.4)."""
    while len(t.held) > capacity(t):
        discard(t)


def move_alone(t) -> None:
    """O3 ``wizard_move_alone``: a move with no action at its end (coins, or an action: V4.3)."""
    loc = t.choose(W, MOVE_TO, move_targets(t))
    cost = fare(t, loc)
    how = PAY_COINS
    if cost > 0:
        options = [PAY_COINS] if t.coins >= cost else []
        if t.wizard_actions_left >= 1 and (not spends_card(t) or unused_cards(t)):
            options.append(PAY_ACTION)
        t.wizard_pending = (A_MOVE, loc, 0)
        how = t.choose(W, PAY, options)
        if how == PAY_COINS:
            t.coins -= cost
        else:
            spend_extra(t)
    t.at = loc
    t.record(W, "move", to=t.location_name(loc), paid=cost if how == PAY_COINS else "an action")


DO = {A_BUY_HOUSE: buy_house, A_BUY_MARKET: buy_market, A_MIX: mix, A_SPELL: cast, A_STEAL: steal,
      A_MOVE: move_alone, A_DISCARD: discard}


# ================================================================ the turn

def turn(t) -> None:
    """One Wizard player's turn (V2.1): arrival, actions, end of turn (V5)."""
    trim_to_capacity(t)
    if t.panic_effect(STAY_INSIDE):                        # V10.2
        t.fire("stay_inside")
        t.record(W, "no_arrival", reason="Stay inside!")
    else:
        arrive(t)
    actions = C.WIZARD_ACTIONS
    if t.panic_effect(GET_BUSY) and not (rabid(t) and t.options.rabid_get_busy == "ignored"):   # V10.1, O17
        t.fire("extra_action")
        actions += 1
    if t.panic_effect(PLETHORA):                           # V10.3 (read at each purchase)
        t.fire("cheaper_ingredients")
    if rabid(t):                                           # V13.1
        from cursedsim.games.village.reference import STREAM_RABID, shuffle_in_place
        t.rm_deck = list(t.rm_cards)
        shuffle_in_place(t.rm_deck, t.streams[STREAM_RABID])
        t.rm_drawn = [t.rm_deck.pop() for _ in range(min(R.RABID_CARDS_DRAWN, len(t.rm_deck)))]
        t.rm_used = []
        t.record(W, "action", n=0, card=" ".join(c.id for c in t.rm_drawn),
                 what="Rabid Monster cards drawn: " + ", ".join(c.villager for c in t.rm_drawn) + " (V13.1)")
    t.wizard_actions_left = actions
    while not t.over:
        t.wizard_pending = ()
        action = t.choose(W, ACTION, legal_actions(t))
        if action == A_END:
            break
        DO[action](t)
    t.wizard_pending = ()
    t.wizard_actions_left = 0
    if t.over:
        return
    refill(t)                                              # V5.1
    if rabid(t):                                           # V13.2: the unused cards are discarded
        t.rm_drawn = []
