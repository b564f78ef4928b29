"""The decision procedures of the two automata, as plain functions over a ``reference.Table``: the
Possessed Wizard (V14, V15.2) and the Rabid Monster (V13, V15.3). Rule and open-point numbers are those
of docs/rules/village.md. Every tie-break the text gives is here, named where it is applied:

- arrival in an occupied house: the closest empty house, a tie to the higher number (V2.4: Table);
- Buy: the cheapest (price + crossings x fee), then the closest (O24 ``pw_distance``), then the highest
  house number (V14.6, V14.7);
- Steal: the occupied house with the most coins, then the highest number (V14.8, V14.9);
- Rabid Monster: among villagers of the type within 2 roads (or exactly 3 with a sheep), the highest
  house number (V13.5, V13.6); the pasture: the highest pasture number (O15 ``rabid_pasture``) or the
  fullest.
"""

from __future__ import annotations

from collections import Counter

from cursedsim.games.village import components as C
from cursedsim.games.village import rules as R

SHEEP = "Sheep"
#: Indices into components.PANIC_EFFECTS["possessed"] and the outcome names they count under.
MAXIMUM_POSSESSION, STAY_INSIDE, POSSESSION_INTENSIFIES = 0, 1, 2


# ================================================================ the Possessed Wizard (V14)

def possessed_wizard_turn(t) -> None:
    """V14.1: a villager arrives, one spell is cast, then one action per card laid out (O26 at_draw),
    then the cards for the next turn (V14.5)."""
    W = R.WIZARD
    # V10.2 Stay inside! (read at the start of the Wizard's turn)
    if t.panic_effect(STAY_INSIDE):
        t.fire("stay_inside")
        t.record(W, "no_arrival", reason="Stay inside!")
    else:
        t.arrive(W)                                        # V2.2, V2.4, V2.5
    t.pw_used = []
    cast_spell(t)                                          # V14.1
    if t.over:
        return
    actions = len(t.pw_row)
    if t.options.pw_card_count == "at_turn":               # O26
        actions = R.POSSESSED_ACTION_CARDS + t.panic_effect(MAXIMUM_POSSESSION)
    for n in range(1, actions + 1):
        card = t.pw_row.pop(0) if t.pw_row else None       # the leftmost card
        if card is not None:
            t.pw_used.append(card)
        if mix_condition(t):                               # V14.2
            t.record(W, "action", n=n, card=card.id if card else "-", what="Mix Cure (V14.2)")
            mix_cure(t)                                    # V14.3: the leftmost card discarded unused
        elif card is None:
            t.record(W, "skip", reason="no card left (O26 at_turn)")
        elif not card.actions:                             # a blank card (unlisted_cards = blank)
            t.record(W, "skip", reason=f"{card.id} shows no action")
        else:                                              # V14.4 (and O20 card_action)
            action = card.actions[0]
            t.record(W, "action", n=n, card=card.id, what=action)
            CARD_ACTIONS[action](t)
        if t.over:
            return
    # V14.5: all cards gathered and shuffled; 3 (+1 Maximum Possession!) below the Wizard's board and
    # 1 (+1 Possession intensifies!) next to the Monster board.
    t.pw_deck.extend(t.pw_row)
    t.pw_deck.extend(t.pw_used)
    t.pw_deck.extend(t.pw_feeding)
    # pw_used stays until the Wizard's next turn: the Rabid Monster reads it (O12 possessed_cards)
    t.pw_row, t.pw_feeding = [], []
    from cursedsim.games.village.reference import STREAM_POSSESSED, shuffle_in_place
    shuffle_in_place(t.pw_deck, t.streams[STREAM_POSSESSED])
    rows = R.POSSESSED_ACTION_CARDS
    if t.panic_effect(MAXIMUM_POSSESSION):
        t.fire("extra_action")
        rows += 1
    feeding = R.POSSESSED_FEEDING_CARDS
    if t.panic_effect(POSSESSION_INTENSIFIES):
        t.fire("extra_feeding_card")
        feeding += 1
    t.pw_row = [t.pw_deck.pop() for _ in range(min(rows, len(t.pw_deck)))]
    t.pw_feeding = [t.pw_deck.pop() for _ in range(min(feeding, len(t.pw_deck)))]
    t.record("rule", "cards", row=" ".join(c.id for c in t.pw_row),
             feeding=" ".join(f"{c.id}({c.villager})" for c in t.pw_feeding))


def remaining_steps(t) -> list[int]:
    return list(t.cure_seq[t.cure:])


def mix_condition(t) -> bool:
    """V14.2: 3 ingredients held matching the next 3 steps (as a multiset), or 1-2 steps left and the
    ingredients held contain them; O20 ``mix_cure``: 3 held always mixes."""
    rest = remaining_steps(t)
    held = Counter(t.held)
    if len(t.held) >= 3 and Counter(rest[:3]) == Counter(t.held[:3]) and len(rest) >= 3:
        return True
    if 1 <= len(rest) <= 2 and t.held and not (Counter(rest) - held):
        return True
    return len(t.held) >= 3 and t.options.pw_full_unmatched == "mix_cure"


def pay_crossings(t, target: int, *, anyway: bool) -> int | None:
    """Crossing fare from the token to ``target`` (V4.2); short of coins: None, or with ``anyway`` all the
    coins are spent and the move made (V14.3, V14.10). Returns the coins paid."""
    cost = t.crossings(t.at, target) * t.crossing_fee()
    if cost > t.coins and not anyway:
        return None
    paid = min(cost, t.coins)
    t.coins -= paid
    if target != t.at:
        t.at = target
        t.record(R.WIZARD, "move", to=t.location_name(target), paid=paid)
    return paid


def mix_cure(t) -> None:
    """V14.3, V14.10: back to the Laboratory (all coins if short), every ingredient held returned, the
    Cure advances one step per ingredient (O19 ``all_held``) or per ingredient matching the next steps in
    turn (``matching``)."""
    pay_crossings(t, t.board.laboratory, anyway=True)
    spent = list(t.held)
    t.held.clear()                                         # returned to the supply
    if t.options.pw_mix_counts == "all_held":
        steps = len(spent)
    else:
        pool, steps = Counter(spent), 0
        for need in remaining_steps(t):
            if not pool[need]:
                break
            pool[need] -= 1
            steps += 1
    t.record(R.WIZARD, "mix", spent=", ".join(C.INGREDIENTS[i] for i in spent) or "nothing", steps=steps)
    t.move_cure(steps, "cure_from_mix")                    # V12.1 checked in move_cure


def sought_ingredient(t) -> int | None:
    """V14.6 (O18): the next step's ingredient if not held (``next_only``), or the first step from the
    next on not covered by the ingredients held (``first_missing``); None: nothing to seek."""
    rest = remaining_steps(t)
    if not rest:
        return None
    if t.options.pw_next_ingredient == "next_only":
        return None if rest[0] in t.held else rest[0]
    pool = Counter(t.held)
    for need in rest:
        if pool[need]:
            pool[need] -= 1
        else:
            return need
    return None


def buy(t, where: str) -> None:
    """V14.6 (any district), V14.7 (current), O23 (adjacent): one ingredient, the one sought, from a
    villager of its type; cheapest (crossings included), then closest (O24), then highest number."""
    W = R.WIZARD
    if where == "adjacent" and t.options.pw_buy_adjacent == "any_district":
        where = "any"
    if len(t.held) >= C.WIZARD_INGREDIENT_LIMIT:           # V3.4 (O20: a Buy with no room is skipped)
        t.record(W, "skip", reason="no room for an ingredient")
        return
    need = sought_ingredient(t)
    if need is None:
        t.record(W, "skip", reason="no ingredient needed")
        return
    if t.held.count(need) >= C.INGREDIENT_TILES_EACH:      # V11.1
        t.record(W, "skip", reason="none left in the supply")
        return
    district = t.arrays["district"]
    here = district[t.at]
    fee = t.crossing_fee()
    options = []
    for number in range(1, C.HOUSES + 1):
        if t.houses[number] != need:                       # ingredient i is bought from villager type i
            continue
        loc = t.board.house(number)
        crossings = t.crossings(t.at, loc)
        if where == "current" and district[loc] != here:
            continue
        if where == "adjacent" and not t.arrays["district_adjacent"][here, district[loc]]:
            continue
        cost = int(t.arrays["price"][loc]) + crossings * fee
        close = t.distance(t.at, loc) if t.options.pw_distance == "roads" else crossings
        options.append((cost, close, -number, loc, crossings))
    if not options:
        t.record(W, "skip", reason=f"no {C.VILLAGER_NAMES[need]} to buy {C.INGREDIENTS[need]} from")
        return
    cost, _, neg_number, loc, crossings = min(options)
    if cost > t.coins:
        t.record(W, "skip", reason=f"{cost} coins needed, {t.coins} held")
        return
    price = cost - crossings * fee
    pay_crossings(t, loc, anyway=False)
    t.coins -= price
    t.held.append(need)
    t.record(W, "buy", ingredient=C.INGREDIENTS[need], at=t.location_name(loc), price=price)


def steal(t, where: str) -> None:
    """V14.8, V14.9: the occupied house with the most coins (highest number among ties) in the current
    or an adjacent district; declared amount O21; a failed roll ends the action (no distraction)."""
    W = R.WIZARD
    district = t.arrays["district"]
    here = district[t.at]
    houses = []
    for number in range(1, C.HOUSES + 1):
        if t.houses[number] == -1:
            continue
        loc = t.board.house(number)
        if where == "current" and district[loc] != here:
            continue
        if where == "adjacent" and not t.arrays["district_adjacent"][here, district[loc]]:
            continue
        houses.append((int(t.arrays["coins"][loc]), number, loc))
    if where == "adjacent" and t.options.pw_adjacent_steal_skip == "as_printed":   # O22
        if not any(t.houses[n] != -1 and district[t.board.house(n)] == here for n in range(1, C.HOUSES + 1)):
            t.record(W, "skip", reason="no occupied house in the current district (as printed)")
            return
    if not houses:
        t.record(W, "skip", reason=f"no occupied house in the {where} district")
        return
    value, number, loc = max(houses)
    if pay_crossings(t, loc, anyway=t.options.pw_unpaid_crossing == "move_anyway") is None:   # O25
        t.record(W, "skip", reason="cannot pay the crossing")
        return
    supply = C.COIN_TOTAL - t.coins
    declared = value if t.options.pw_steal_amount == "house_value" else min(value, 3)
    declared = min(declared, supply)                       # V3.13
    if declared < 1:
        t.record(W, "skip", reason="no coins left in the supply")
        return
    roll = t.d6()                                          # V3.11
    taken = t.gain_coins(declared) if roll > declared else 0
    t.coins_stolen += taken
    t.record(W, "steal", at=t.location_name(loc), declared=declared, roll=roll, taken=taken)


def cast_spell(t, *, action: bool = False) -> None:
    """V14.1, V14.11: draw and play one Spell card ignoring costs and requirements, then its coins (V3.8).
    As the Cast Spell action, it discards a Greedy Coachman in front of the Wizard (P06 discard_on)."""
    from cursedsim.games.village.reference import STREAM_SPELL
    W = R.WIZARD
    if action:
        for card in list(t.in_front_of_wizard):
            if card.effect == "wizard_crossing_cost" and card.param("discard_on", automaton=True) == 1:
                t.in_front_of_wizard.remove(card)
                t.power_discard.append(card)
    card = t.draw_from(t.spell_deck, t.spell_discard, STREAM_SPELL, "Spell")
    if card is None:
        t.record(W, "skip", reason="no Spell card left")
        return
    effect = card.effect if card.automaton_effect == "same" else card.automaton_effect
    result = apply_spell(t, card, effect)
    coins = t.gain_coins(card.coins) if not t.over else 0
    if card.kind == "ongoing":                             # V3.7: Hydrophobia (possessed_wizard mode) stays
        (t.in_front_of_monster if card.placement == "monster" else t.in_front_of_wizard).append(card)
        result += f"; placed in front of the {'Monster' if card.placement == 'monster' else 'Wizard'}"
    else:
        t.spell_discard.append(card)                       # V3.9
    t.record(W, "spell", card=f"{card.id} {card.name}", effect=effect, result=f"{result}; +{coins} coins")


def apply_spell(t, card, effect: str) -> str:
    p = lambda name: card.param(name, automaton=True)      # noqa: E731
    if effect == "remove_sheep":
        for k in range(len(t.sheep)):
            t.sheep[k] = max(0, t.sheep[k] - p("per_pasture"))
        return f"sheep {t.sheep}"
    if effect == "cure_if_next":
        rest = remaining_steps(t)
        if rest and rest[0] in (p("first"), p("second")):
            if rest[0] in t.held:
                t.held.remove(rest[0])
            t.move_cure(p("steps"), "cure_from_spells")
            return f"Cure +{p('steps')}"
        return "the next step needs neither"
    if effect == "gain_ingredients":
        got = []
        for i in (p("first"), p("second")):
            if len(t.held) < C.WIZARD_INGREDIENT_LIMIT and t.held.count(i) < C.INGREDIENT_TILES_EACH:
                t.held.append(i)
                got.append(C.INGREDIENTS[i])
        return f"gains {got}"
    if effect == "double_coins":
        gained = t.gain_coins(min(t.coins, p("cap") - t.coins))
        return f"+{gained} coins"
    if effect == "discard_power":
        # "Discard the leftmost permanent Power card from in front of the Monster": an ongoing Power card a
        # Monster player placed there (Fast Food); none in the 0-player game (Greedy Coachman lies before the
        # Wizard). Leftmost = the first placed.
        for card_there in t.in_front_of_monster:
            if card_there.deck == "power" and card_there.kind == "ongoing":
                t.in_front_of_monster.remove(card_there)
                t.power_discard.append(card_there)
                return f"discards {card_there.id} {card_there.name}"
        return "no ongoing Power card in front of the Monster"
    if effect == "place_villager":
        if all(t.houses[n] != -1 for n in range(1, C.HOUSES + 1)):     # V2.5, V2.6: no house to place it in
            return "no villager placed (every house occupied)"
        v = t.draw_villager()
        if v == -1:
            return "no villager placed (the bag is empty)"
        roll = t.d20()
        house = roll if t.houses[roll] == -1 else t.closest_empty_house(roll)
        t.houses[house] = v
        return f"{C.VILLAGER_NAMES[v]} to house {house} (d20 {roll})"
    return "no effect"


CARD_ACTIONS = {
    "cast_spell": lambda t: cast_spell(t, action=True),
    "mix_cure": mix_cure,
    "steal_current_district": lambda t: steal(t, "current"),
    "steal_adjacent_district": lambda t: steal(t, "adjacent"),
    "buy_any_district": lambda t: buy(t, "any"),
    "buy_current_district": lambda t: buy(t, "current"),
    "buy_adjacent_district": lambda t: buy(t, "adjacent"),
}


def feeding_effects(t, kind: str) -> None:
    """V14.13, V15.3: each feeding card next to the Monster board whose villager was just eaten applies,
    if possible (an Energy effect has nothing to act on: V13.4)."""
    for card in t.pw_feeding:
        if card.villager != kind:
            continue
        if card.effect == "wizard_gains_coins":
            got = t.gain_coins(card.param("coins", automaton=True))
            t.record("rule", "feeding_effect", card=card.id, effect=f"the Wizard gains {got} coins")
        else:
            t.record("rule", "feeding_effect", card=card.id, effect=f"{card.effect}: no Energy (V13.4)")


# ================================================================ the Rabid Monster (V13)

def rabid_monster_turn(t) -> None:
    """V13: the hunted villagers (O12), one Power card (V13.3), the actions (V13.5-V13.8), then the
    Panic/Curse adjustment and digesting (V13.9). Never a Quiet Night (V13.10)."""
    from cursedsim.games.village.reference import STREAM_RABID, shuffle_in_place
    M = R.MONSTER
    t.stomach = []
    t.sheep_curse_pending = 0
    if t.controllers.get(R.WIZARD) is not None:
        # V13.2: against a Wizard player, the cards it used, in order; On the Scent draws from the cards not
        # drawn this turn (wizard_player keeps both)
        deck, hunted = t.rm_deck, list(t.rm_used)
    elif t.options.automata_targets == "rabid_cards":
        deck = list(t.rm_cards)
        shuffle_in_place(deck, t.streams[STREAM_RABID])
        hunted = [deck.pop() for _ in range(min(R.RABID_CARDS_USED, len(deck)))]
    else:
        deck, hunted = [], list(t.pw_used)
    t.record(M, "targets", hunted=" ".join(c.id for c in hunted),
             villagers=", ".join(c.villager or "nobody" for c in hunted))
    develop_power(t, deck, hunted)
    if t.over:
        return
    for card in hunted:                                    # V13.8
        count = t.stomach_tokens() if t.options.rabid_stop_count == "tokens" else len(t.stomach)
        if count >= 3:
            break
        if not card.villager:                              # a blank card (unlisted_cards = blank) hunts nobody
            t.record(M, "skip", reason=f"{card.id} shows no villager")
            continue
        hunt(t, C.VILLAGER_NAMES.index(card.villager))
        if t.over:
            return
    # V13.9: villager tokens of any type, 0-3 (more counts as 3)
    villagers = t.stomach_villagers()
    panic, curse = R.RABID_ADJUSTMENT[min(villagers, 3)]
    t.move_panic(panic)
    for slot in t.stomach:                                 # V9.4 digesting
        for kind in slot:
            if kind != SHEEP:
                t.bag[C.VILLAGER_NAMES.index(kind)] += 1
    t.stomach = []
    t.move_curse(curse, "curse_from_table")                # V12.2 at once
    t.record("rule", "adjust", villagers=villagers, panic_change=panic, curse_change=curse)


def develop_power(t, rm_deck: list, hunted: list) -> None:
    """V13.3: draw and play one Power card ignoring costs and requirements."""
    from cursedsim.games.village.reference import STREAM_POWER
    M = R.MONSTER
    card = t.draw_from(t.power_deck, t.power_discard, STREAM_POWER, "Power")
    if card is None:
        return
    effect = card.effect if card.automaton_effect == "same" else card.automaton_effect
    p = lambda name: card.param(name, automaton=True)      # noqa: E731
    result = "no effect"
    if effect == "eat_rolled_houses":
        eaten = []
        for _ in range(p("rolls")):
            roll = t.d20()
            v = t.houses[roll]
            if v != -1:
                if t.eat(C.VILLAGER_NAMES[v], where=t.board.house(roll)) >= 0:
                    t.houses[roll] = -1
                    eaten.append(roll)
        result = f"eats in houses {eaten}"
        if eaten:
            t.move_curse(p("curse"), "curse_from_cards")
    elif effect == "add_sheep":
        supply = C.SHEEP_TOKENS - sum(t.sheep)
        lab = t.board.laboratory
        # shortfall closest_to_laboratory: pastures by their nearest location's distance, then file order
        order = sorted(range(len(t.sheep)), key=lambda k: (
            min(t.distance(lab, t.board.index[x]) for x in t.board.pastures[k].next_to), k))
        for _ in range(p("per_pasture")):
            for k in order:
                if supply > 0:
                    t.sheep[k] += 1
                    supply -= 1
        result = f"sheep {t.sheep}"
    elif effect == "curse_if_eats_sheep":
        t.sheep_curse_pending = p("curse")
        result = "Curse +1 at the first sheep this turn"
    elif effect == "wizard_crossing_cost":
        t.in_front_of_wizard.append(card)
        result = "placed in front of the Wizard"
    elif effect == "leap":
        roll = t.d20()
        t.at = t.board.house(roll)
        result = f"leaps to house {roll} (d20)"
    elif effect == "gain_curse":
        t.move_curse(p("curse"), "curse_from_cards")
        result = f"Curse +{p('curse')}"
    elif effect == "extra_rabid_card":
        extra = [rm_deck.pop() for _ in range(min(p("cards"), len(rm_deck)))]
        hunted.extend(extra)
        result = "hunts " + ", ".join(c.villager or "nobody" for c in extra) if extra else "no card left"
    if card not in t.in_front_of_wizard:
        t.power_discard.append(card)
    t.record(M, "power", card=f"{card.id} {card.name}", effect=effect, result=result)


def road_distances(t, start: int) -> list[int]:
    """Roads from ``start`` (O13): plain distance, or (``stop_at_villagers``) paths that do not pass
    through an occupied house (V7.3) before their end."""
    if t.options.rabid_path == "roads":
        return [int(x) for x in t.arrays["distance"][start]]
    a = t.arrays
    n = len(t.board.locations)
    dist = [10 ** 6] * n
    dist[start] = 0
    frontier = [start]
    while frontier:
        nxt = []
        for i in frontier:
            if i != start and occupied(t, i):
                continue                                   # entering an occupied house ends the move
            for j in a["adj"][a["adj_start"][i]:a["adj_start"][i + 1]]:
                j = int(j)
                if dist[j] > dist[i] + 1:
                    dist[j] = dist[i] + 1
                    nxt.append(j)
        frontier = nxt
    return dist


def occupied(t, loc: int) -> bool:
    number = int(t.arrays["house_number"][loc])
    return number > 0 and t.houses[number] != -1


def hunt(t, villager: int) -> None:
    """V13.5-V13.7: one action for a card showing ``villager``."""
    M = R.MONSTER
    dist = road_distances(t, t.at)
    near = [n for n in range(1, C.HOUSES + 1) if t.houses[n] == villager and dist[t.board.house(n)] <= 2]
    if near:                                               # V13.5: highest number
        number = max(near)
        t.at = t.board.house(number)
        eat_house(t, number)
        return
    far = [n for n in range(1, C.HOUSES + 1) if t.houses[n] == villager and dist[t.board.house(n)] == 3]
    a = t.arrays
    pastures = [int(k) for k in a["location_pastures"][a["location_pastures_start"][t.at]:
                                                         a["location_pastures_start"][t.at + 1]] if t.sheep[int(k)] > 0]
    if far and pastures:                                   # V13.6
        if t.options.rabid_pasture == "highest_number":   # O15
            k = max(pastures)
        else:
            k = max(pastures, key=lambda q: (t.sheep[q], q))
        slot = t.eat(SHEEP)
        if slot < 0:
            t.record(M, "skip", reason="stomach full (O9 stop)")
            return
        if t.over:                                         # V12: Digestive Mutton Chop's Curse won at the sheep
            t.sheep[k] -= 1
            return
        t.sheep[k] -= 1
        number = max(far)
        t.at = t.board.house(number)
        eat_house(t, number, slot)
        return
    t.record(M, "skip", reason=f"no {C.VILLAGER_NAMES[villager]} within reach")   # V13.7


def eat_house(t, number: int, slot: int | None = None) -> None:
    v = t.houses[number]
    if t.eat(C.VILLAGER_NAMES[v], slot) >= 0:
        t.houses[number] = -1
