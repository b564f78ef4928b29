"""The Monster player's turn in the reference engine (a side played by a person or a policy, not by its
automaton): set-up of its components (V1.7, V1.11) and its turn (V6-V9), every choice asked of its
controller through ``Table.choose``. Rule numbers are those of docs/rules/village.md; the readings this
module makes are in its section "The Monster player's turn (readings)" (M1, M2, ...).

Decisions (``decision`` name: legal codes, ascending; a single legal code is taken without asking):

==========================  ==================================================================================
``monster_turn``            0 Quiet Night (V6), 1 Feeding (V7)
``monster_night_power``     0 play no card, 1 + i play Power card ``power_hand[i]`` free (V6.3)
``monster_night_single``    0 keep the single-use card in front, 1 activate it now (V8.3)
``night_arrival_house``     house number 1-20 (an empty house) for a Quiet Night arrival whose d20 house is
                            occupied (O2 ``monster``; with ``wizard`` a Wizard player is asked its own
                            ``wizard_player.ARRIVAL_HOUSE`` through ``wizard_player.arrive``)
``monster_between``         before / after a Feeding action (V8.1): 0 end the turn, 1 take the next action,
                            2 activate the single-use card in front, 10 + i play ``power_hand[i]``
``monster_move``            moving phase: 0 end it (go to eating), 1 buy a movement with Energy, 2 spend 4
                            Energy to discard an ongoing Spell, 3 spend 6 Energy for Panic -1, 4 activate the
                            single-use card, 100 + n move along a road to adjacent location n
``monster_eat``             eating phase: 0 eat nothing (the action ends), 1 eat the villager here, 2 / 3 / 4 as
                            in ``monster_move``, 10 + k eat a sheep from adjacent pasture k
``monster_after_meal``      after the meal, still in the action (M1): 0 end the action, 2 / 3 / 4 as in
                            ``monster_move``
``monster_discard_spell``   j: ``in_front_of_wizard[j]``, 100 + j: ``in_front_of_monster[j]`` (ongoing Spells)
``monster_leap``            location index n (Monstrous Leap: any location but the Monster's own)
``monster_sheep_pasture``   pasture k (An Extra Serving, short supply: where the next sheep goes)
==========================  ==================================================================================

Draws, in game order: the hand (STREAM_POWER, V1.11) after the Town Guard shuffle (STREAM_GUARDS,
Fisher-Yates over the tiles in ``GUARD_TILES`` order expanded by count; tile i of the shuffled list lies on
guard slot i); a d20 per A Taste of Rural Life roll; per Quiet Night arrival a bag draw then a d20 (as
``Table.arrive``); the replacement and refill draws from STREAM_POWER. Policies draw from stream 8 only.
"""

from __future__ import annotations

from cursedsim.games.village import components as C
from cursedsim.games.village import rules as R

M = R.MONSTER
SHEEP = "Sheep"
EMPTY = -1

DECIDE_TURN = "monster_turn"
DECIDE_NIGHT_POWER = "monster_night_power"
DECIDE_NIGHT_SINGLE = "monster_night_single"
DECIDE_ARRIVAL = "night_arrival_house"
DECIDE_BETWEEN = "monster_between"
DECIDE_MOVE = "monster_move"
DECIDE_EAT = "monster_eat"
DECIDE_AFTER_MEAL = "monster_after_meal"
DECIDE_DISCARD_SPELL = "monster_discard_spell"
DECIDE_LEAP = "monster_leap"
DECIDE_SHEEP = "monster_sheep_pasture"
DECISIONS = (DECIDE_TURN, DECIDE_NIGHT_POWER, DECIDE_NIGHT_SINGLE, DECIDE_ARRIVAL, DECIDE_BETWEEN, DECIDE_MOVE,
             DECIDE_EAT, DECIDE_AFTER_MEAL, DECIDE_DISCARD_SPELL, DECIDE_LEAP, DECIDE_SHEEP)

QUIET_NIGHT, FEEDING = 0, 1
END_TURN, NEXT_ACTION, USE_SINGLE_BETWEEN, PLAY = 0, 1, 2, 10
END_MOVING, BUY_MOVEMENT, DISCARD_SPELL, PANIC_DOWN, USE_SINGLE, MOVE = 0, 1, 2, 3, 4, 100
END_ACTION = 0
EAT_NOTHING, EAT_VILLAGER, EAT_SHEEP = 0, 1, 10
MONSTER_CARD = 100

#: Town Guard tile codes (V7.5), in components.TOWN_GUARD_TILES order.
GUARD_TILES = tuple(name for name, _ in C.TOWN_GUARD_TILES)
NO_EFFECT, ENERGY_MINUS_1, ENERGY_MINUS_2, MOVEMENT_MINUS_1, PANIC_PLUS_1 = range(5)




# ================================================================ set-up

def deal(t) -> None:
    """V1.11: 4 Power cards; V1.7: the 12 Town Guard tiles shuffled (stream 9) onto the border roads in the
    modes that use them; Energy 0."""
    from cursedsim.games.village.reference import STREAM_GUARDS
    t.energy = 0
    t.guards = []
    t.guards_revealed = []
    if R.MODES[t.mode].town_guard:
        tiles = [code for code, (_, count) in enumerate(C.TOWN_GUARD_TILES) for _ in range(count)]
        stream = t.streams[STREAM_GUARDS]
        for i in range(len(tiles) - 1, 0, -1):
            j = stream.below(i + 1)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        slots = int(sum(t.arrays["road_border"]))
        t.guards = [tiles[s] if s < len(tiles) else EMPTY for s in range(slots)]
    t.power_hand = []
    refill(t)


def refill(t) -> None:
    """V9.5: draw to 4 Power cards, the discard pile reshuffled into a new deck when needed."""
    from cursedsim.games.village.reference import STREAM_POWER
    while len(t.power_hand) < C.HAND_SIZE:
        card = t.draw_from(t.power_deck, t.power_discard, STREAM_POWER, "Power")
        if card is None:
            return
        t.power_hand.append(card)


# ================================================================ the turn

def turn(t) -> None:
    """V6.1: a Quiet Night or a Feeding turn, chosen by the controller."""
    t.m_visited = [t.at] if t.options.start_location_visited else []     # O10
    t.m_new_moon = False
    t.m_guard_debt = 0
    t.m_actions = 0
    t.m_moves = 0
    t.m_moving = False
    if t.choose(M, DECIDE_TURN, [QUIET_NIGHT, FEEDING]) == QUIET_NIGHT:
        quiet_night(t)
    else:
        feeding(t)


def quiet_night(t) -> None:
    """V6.2-V6.5: Panic -2, Curse -1, one free Power card (and its replacement), two arrivals (O2); then
    digesting (M10), the whole end of the turn only with O8 ``quiet_night_adjusts``."""
    from cursedsim.games.village.reference import STREAM_POWER
    t.quiet_nights += 1
    t.record(M, "quiet_night")
    t.move_panic(C.QUIET_NIGHT_PANIC)
    t.move_curse(C.QUIET_NIGHT_CURSE, "curse_from_table")
    legal = [0] + [1 + i for i in range(len(t.power_hand))]
    pick = t.choose(M, DECIDE_NIGHT_POWER, legal)
    single = False
    if pick:
        card = t.power_hand.pop(pick - 1)
        play_card(t, card, free=True)
        if t.over:
            return
        single = card.kind == "single_use"
        drawn = t.draw_from(t.power_deck, t.power_discard, STREAM_POWER, "Power")
        if drawn is not None:
            t.power_hand.append(drawn)
    # M10: only the single-use card played this night (the one card of V6.3), not one waiting from before
    if single and single_use_card(t) is not None and t.choose(M, DECIDE_NIGHT_SINGLE, [0, 1]):
        use_single(t)
        if t.over:
            return
    for _ in range(C.QUIET_NIGHT_ARRIVALS):                  # V6.4: Stay inside! does not apply
        night_arrival(t)
    if t.options.quiet_night_adjusts:                        # O8
        end_of_turn(t)
    else:
        digest(t)                                            # M10: the night's meal leaves the stomach


def night_arrival(t) -> None:
    """V6.4 with O2: a villager from the bag to the d20 house; an occupied house: the chooser's empty house
    (the Possessed Wizard's closest house, V2.4, when it chooses)."""
    houses = range(1, C.HOUSES + 1)
    if t.options.night_arrival_chooser == "wizard" and t.controllers.get(R.WIZARD) is not None:
        from cursedsim.games.village import wizard_player
        wizard_player.arrive(t, M)                           # the Wizard player's V2.3 choice
        return
    if all(t.houses[n] != EMPTY for n in houses):
        t.record(M, "no_arrival", reason="all houses occupied")
        return
    v = t.draw_villager()
    if v == EMPTY:
        t.record(M, "no_arrival", reason="the bag is empty")
        return
    roll = t.d20()
    house = roll
    if t.houses[roll] != EMPTY:
        empty = [n for n in houses if t.houses[n] == EMPTY]
        if t.options.night_arrival_chooser == "monster":
            house = t.choose(M, DECIDE_ARRIVAL, empty)
        else:
            house = t.closest_empty_house(roll)
    t.houses[house] = v
    t.record(M, "arrive", villager=C.VILLAGER_NAMES[v], roll=roll, house=house)


def feeding(t) -> None:
    """V7.1, V8.1: up to 3 actions (more with Midnight Snack), Power cards before or after each; then the
    end of the turn (V9)."""
    t.m_actions = C.MONSTER_ACTIONS
    taken = 0
    while not t.over:
        choice = t.choose(M, DECIDE_BETWEEN, between_legal(t))
        if choice == END_TURN:
            break
        if choice == NEXT_ACTION:
            t.m_actions -= 1
            taken += 1
            action(t, taken)
        elif choice == USE_SINGLE_BETWEEN:
            use_single(t)
        else:
            play_from_hand(t, choice - PLAY)
    if not t.over:
        end_of_turn(t)


def between_legal(t) -> list[int]:
    legal = [END_TURN]
    if t.m_actions > 0:
        legal.append(NEXT_ACTION)
    if single_use_card(t) is not None:
        legal.append(USE_SINGLE_BETWEEN)
    legal += [PLAY + i for i, card in enumerate(t.power_hand) if playable(t, card)]
    return legal


def action(t, n: int = 1) -> None:
    """V7.1-V7.11: the turn's n-th action, a moving phase (up to 2 movements, O11 debt first) then an eating
    phase."""
    t.m_moving = True
    t.m_moves = max(0, C.MOVES_PER_ACTION - t.m_guard_debt)
    t.m_guard_debt = 0
    t.record(M, "action", n=n, card="-", what=f"Feeding, {t.m_moves} movements ({t.m_actions} actions left)")
    while t.m_moving and not t.over:
        choice = t.choose(M, DECIDE_MOVE, move_legal(t))
        if choice == END_MOVING:
            break
        if choice >= MOVE:
            move_along(t, choice - MOVE)
        else:
            spend(t, choice)
    t.m_moving = False
    t.m_moves = 0
    while not t.over:
        choice = t.choose(M, DECIDE_EAT, eat_legal(t))
        if choice == EAT_NOTHING:
            t.record(M, "skip", reason="eats nothing")
            return
        if choice == EAT_VILLAGER:
            number = int(t.arrays["house_number"][t.at])
            kind = C.VILLAGER_NAMES[t.houses[number]]
            t.houses[number] = EMPTY
            monster_eat(t, kind)
            break
        if choice >= EAT_SHEEP:
            t.sheep[choice - EAT_SHEEP] -= 1
            monster_eat(t, SHEEP)
            break
        spend(t, choice)
    # M1: the meal's Energy may still be spent in this action
    while not t.over:
        choice = t.choose(M, DECIDE_AFTER_MEAL, [END_ACTION] + energy_legal(t))
        if choice == END_ACTION:
            return
        spend(t, choice)


# ---------------------------------------------------------------- Energy (V7.11)

def movement_cost(t) -> int:
    """2 Energy a movement (V7.11); Fast Food in front of the Monster: its cost."""
    cost = C.ENERGY_EXTRA_MOVE
    for card in t.in_front_of_monster:
        if card.effect == "movement_energy_cost":
            cost = min(cost, card.param("energy"))
    return cost


def ongoing_spells(t) -> list[int]:
    """Codes of the ongoing Spell cards in front of either player (the 4-Energy discard)."""
    codes = [j for j, c in enumerate(t.in_front_of_wizard) if c.deck == "spell"]
    codes += [MONSTER_CARD + j for j, c in enumerate(t.in_front_of_monster) if c.deck == "spell"]
    return codes


def energy_legal(t) -> list[int]:
    """Energy uses open at any time in an action (V7.11) and the single-use card (V8.3)."""
    legal = []
    if t.energy >= C.ENERGY_DISCARD_SPELL and ongoing_spells(t):
        legal.append(DISCARD_SPELL)
    if t.energy >= C.ENERGY_PANIC_DOWN and t.panic > t.panic_min:
        legal.append(PANIC_DOWN)
    if single_use_card(t) is not None:
        legal.append(USE_SINGLE)
    return legal


def spend(t, choice: int) -> None:
    if choice == BUY_MOVEMENT:
        cost = movement_cost(t)
        t.energy -= cost
        t.m_moves += 1
        t.record(M, "energy", use="movement", spent=cost)
    elif choice == DISCARD_SPELL:
        code = t.choose(M, DECIDE_DISCARD_SPELL, ongoing_spells(t))
        t.energy -= C.ENERGY_DISCARD_SPELL
        if code >= MONSTER_CARD:
            card = t.in_front_of_monster.pop(code - MONSTER_CARD)
        else:
            card = t.in_front_of_wizard.pop(code)
        discard_spell(t, card)
        t.record(M, "energy", use="discard", card=f"{card.id} {card.name}", spent=C.ENERGY_DISCARD_SPELL)
    elif choice == PANIC_DOWN:
        t.energy -= C.ENERGY_PANIC_DOWN
        t.move_panic(-1)
        t.record(M, "energy", use="panic", spent=C.ENERGY_PANIC_DOWN)
    elif choice == USE_SINGLE:
        use_single(t)
    else:
        raise AssertionError(f"not an Energy use: {choice}")


def discard_spell(t, card) -> None:
    """V3.9: to the Spell discard pile; Box of Holding (M9): the Wizard player returns ingredients it can no
    longer hold (its choice: wizard_player.trim_to_capacity)."""
    t.spell_discard.append(card)
    if card.effect == "extra_ingredient_slot" and t.controllers.get(R.WIZARD) is not None:
        from cursedsim.games.village import wizard_player
        wizard_player.trim_to_capacity(t)


# ---------------------------------------------------------------- moving (V7.2-V7.6)

def road_between(t, a: int, b: int) -> int:
    arr = t.arrays
    for k in range(int(arr["adj_start"][a]), int(arr["adj_start"][a + 1])):
        if int(arr["adj"][k]) == b:
            return int(arr["adj_road"][k])
    return -1


def road_cost(t, road: int) -> int:
    """Movements a road takes: 1; a bridge with Hydrophobia in front of the Monster: 1 + its movements."""
    cost = 1
    if t.board.roads[road].kind == "bridge":
        for card in t.in_front_of_monster:
            if card.effect == "bridge_extra_movement":
                cost += card.param("movements")
    return cost


def move_legal(t) -> list[int]:
    legal = [END_MOVING]
    legal += energy_legal(t)
    arr = t.arrays
    short = False
    for k in range(int(arr["adj_start"][t.at]), int(arr["adj_start"][t.at + 1])):
        n, road = int(arr["adj"][k]), int(arr["adj_road"][k])
        if road_cost(t, road) <= t.m_moves:
            legal.append(MOVE + n)
        else:
            short = True
    # M3: a movement is on sale when some road from here takes more movements than are left
    if short and t.energy >= movement_cost(t):
        legal.append(BUY_MOVEMENT)
    return sorted(set(legal))


def move_along(t, n: int) -> None:
    """One movement (V7.2); a border road's Town Guard tile revealed and resolved (V7.4-V7.6, O11) unless New
    Moon; entering an occupied house ends the moving phase (V7.3)."""
    road = road_between(t, t.at, n)
    t.m_moves -= road_cost(t, road)
    t.at = n
    t.m_visited.append(n)
    t.record(M, "move", to=t.location_name(n), paid=0)
    slot = int(t.arrays["guard_slot"][road])
    if slot >= 0 and slot < len(t.guards) and t.guards[slot] != EMPTY and not t.m_new_moon:
        reveal(t, slot)
    number = int(t.arrays["house_number"][n])
    if number > 0 and t.houses[number] != EMPTY:
        t.m_moving = False


def reveal(t, slot: int) -> None:
    """V7.4, V7.5: the tile is resolved and leaves the game."""
    tile = t.guards[slot]
    t.guards[slot] = EMPTY
    t.guards_revealed.append(slot)
    if tile == ENERGY_MINUS_1:
        t.energy = max(0, t.energy - 1)
    elif tile == ENERGY_MINUS_2:
        t.energy = max(0, t.energy - 2)
    elif tile == MOVEMENT_MINUS_1:                           # V7.6, O11
        if t.m_moves > 0:
            t.m_moves -= 1
        elif t.options.guard_movement_loss == "carry_over":
            t.m_guard_debt += 1
    elif tile == PANIC_PLUS_1:
        t.move_panic(1)
    t.record(M, "town_guard", tile=GUARD_TILES[tile], slot=slot)


# ---------------------------------------------------------------- eating (V7.7-V7.9)

def eat_legal(t) -> list[int]:
    legal = [EAT_NOTHING]
    room = len(t.stomach) < C.STOMACH_SLOTS or t.options.full_stomach == "keep_eating"   # O9
    number = int(t.arrays["house_number"][t.at])
    if room and number > 0 and t.houses[number] != EMPTY:
        legal.append(EAT_VILLAGER)
    legal += energy_legal(t)
    if room:
        arr = t.arrays
        for k in range(int(arr["location_pastures_start"][t.at]), int(arr["location_pastures_start"][t.at + 1])):
            p = int(arr["location_pastures"][k])
            if t.sheep[p] > 0:
                legal.append(EAT_SHEEP + p)
    return sorted(set(legal))


def monster_eat(t, kind: str, where: int = -1) -> bool:
    """V7.9: the token into the leftmost empty slot, its Energy at once (at most 9); V14.13 the feeding cards
    next to the Monster board (M7); Hydrophobia discarded at the second colour (C11). False: no room (O9).
    ``where``: the location of the meal when it is not the Monster's (A Taste of Rural Life)."""
    if len(t.stomach) >= C.STOMACH_SLOTS and t.options.full_stomach == "stop":
        return False
    t.stomach.append([kind])
    t.eaten[kind.lower()] += 1
    gain = C.SHEEP_ENERGY if kind == SHEEP else C.VILLAGER_ENERGY[C.VILLAGER_NAMES.index(kind)]
    if kind != SHEEP:
        for card in t.pw_feeding:
            if card.villager != kind:
                continue
            if card.effect == "monster_energy_less":
                gain -= card.param("energy")
                t.record("rule", "feeding_effect", card=card.id, effect=f"{card.param('energy')} Energy less")
            elif card.effect == "wizard_gains_coins":
                got = t.gain_coins(card.param("coins"))
                t.record("rule", "feeding_effect", card=card.id, effect=f"the Wizard gains {got} coins")
    t.energy = min(C.ENERGY_MAX, t.energy + max(0, gain))
    t.record(M, "eat", kind=kind, at=t.location_name(t.at if where < 0 else where), energy=t.energy)
    if kind != SHEEP:
        types = {k for slot in t.stomach for k in slot if k != SHEEP}
        for card in list(t.in_front_of_monster):
            if card.effect == "bridge_extra_movement" and len(types) >= card.param("colours"):
                t.in_front_of_monster.remove(card)
                t.spell_discard.append(card)
                t.record("rule", "discard", card=f"{card.id} {card.name}", reason="two colours eaten")
    return True


# ---------------------------------------------------------------- Power cards (V8)

def single_use_card(t):
    for card in t.in_front_of_monster:
        if card.kind == "single_use":
            return card
    return None


def playable(t, card) -> bool:
    """V8.2: a location visited this turn (O10), the stomach tokens shown, Panic +n below its top, Energy."""
    req = card.requirements
    if req.location and t.board.index[req.location] not in t.m_visited:
        return False
    if req.stomach:
        have = [k for slot in t.stomach for k in slot]
        for kind in set(req.stomach):
            if have.count(kind) < req.stomach.count(kind):
                return False
    if req.panic and t.panic + req.panic > t.panic_top:
        return False
    return t.energy >= req.energy


def play_from_hand(t, i: int) -> None:
    """V8.2: pay the Panic and Energy costs, then the card (V8.3)."""
    card = t.power_hand.pop(i)
    req = card.requirements
    if req.panic:
        t.move_panic(req.panic)
    t.energy -= req.energy
    play_card(t, card, free=False)


def play_card(t, card, *, free: bool) -> None:
    """V8.3, V8.4: immediate (applied, discarded), ongoing (in front of the Monster or, placement wizard, the
    Wizard), single-use (in front of the Monster; a previous one discarded without effect)."""
    t.record(M, "power", card=f"{card.id} {card.name}", effect=card.effect,
             result=f"{card.kind}{' (free)' if free else ''}")
    if card.kind == "ongoing":
        (t.in_front_of_wizard if card.placement == "wizard" else t.in_front_of_monster).append(card)
        return
    if card.kind == "single_use":
        old = single_use_card(t)
        if old is not None:                                  # V8.4
            t.in_front_of_monster.remove(old)
            t.power_discard.append(old)
            t.record(M, "discard", card=f"{old.id} {old.name}", reason="a second single-use card")
        t.in_front_of_monster.append(card)
        return
    apply_effect(t, card)
    t.power_discard.append(card)


def use_single(t) -> None:
    """V8.3: activate the single-use card in front of the Monster, then discard it."""
    card = single_use_card(t)
    t.in_front_of_monster.remove(card)
    t.power_discard.append(card)
    t.record(M, "use", card=f"{card.id} {card.name}")
    apply_effect(t, card)


def apply_effect(t, card) -> None:
    """Every Power effect of the Monster's text (village_cards.md)."""
    effect = card.effect
    if effect == "eat_rolled_houses":                        # C13
        eaten = 0
        for _ in range(card.param("rolls")):
            roll = t.d20()
            v = t.houses[roll]
            t.record(M, "roll", d20=roll)
            if v != EMPTY and (len(t.stomach) < C.STOMACH_SLOTS or t.options.full_stomach == "keep_eating"):
                t.houses[roll] = EMPTY
                monster_eat(t, C.VILLAGER_NAMES[v], t.board.house(roll))
                eaten += 1
        if eaten:
            t.move_curse(card.param("curse"), "curse_from_cards")
    elif effect == "add_sheep":                              # C14
        add_sheep(t, card.param("per_pasture"))
    elif effect == "gain_energy":
        t.energy = min(C.ENERGY_MAX, t.energy + card.param("energy"))
    elif effect == "extra_feeding_action":
        t.m_actions += card.param("actions")
    elif effect == "leap":                                   # C17: not a movement
        legal = [n for n in range(len(t.board.locations)) if n != t.at]
        n = t.choose(M, DECIDE_LEAP, legal)
        t.at = n
        t.m_visited.append(n)
        t.record(M, "leap", to=t.location_name(n))
        number = int(t.arrays["house_number"][n])
        if number > 0 and t.houses[number] != EMPTY:         # M5: V7.3 for any entry
            t.m_moving = False
    elif effect == "ignore_town_guards":
        t.m_new_moon = True
    elif effect == "gain_curse":
        t.move_curse(card.param("curse"), "curse_from_cards")
    # none, extra_rabid_card, curse_if_eats_sheep: no Monster text (C1, C15)


def add_sheep(t, per_pasture: int) -> None:
    """An Extra Serving: per_pasture sheep to each pasture from the supply (sheep in the stomach are not in
    it); short, the Monster chooses where each goes (M8)."""
    supply = C.SHEEP_TOKENS - sum(t.sheep) - sum(1 for slot in t.stomach for k in slot if k == SHEEP)
    n = len(t.sheep)
    if supply >= per_pasture * n:
        for k in range(n):
            t.sheep[k] += per_pasture
        return
    given = [0] * n
    while supply > 0:
        k = t.choose(M, DECIDE_SHEEP, [k for k in range(n) if given[k] < per_pasture])
        given[k] += 1
        t.sheep[k] += 1
        supply -= 1


# ================================================================ the end of the turn (V9)

def adjustment(t) -> tuple[int, int]:
    """V9.1-V9.3 with O7: (panic, curse) by the most numerous villager type; sheep do not count."""
    counts = [0] * len(C.VILLAGERS)
    for slot in t.stomach:
        for kind in slot:
            if kind != SHEEP:
                counts[C.VILLAGER_NAMES.index(kind)] += 1
    most, total = max(counts), sum(counts)
    if most <= 1 and total >= 2 and t.options.unmatched_meal == "no_change":
        return 0, 0
    return R.FEEDING_ADJUSTMENT[min(most, 3)]


def end_of_turn(t) -> None:
    """V9: the adjustment (the Curse checked at once, V12.2), digesting (V9.4), the refill (V9.5)."""
    panic, curse = adjustment(t)
    t.move_panic(panic)
    t.move_curse(curse, "curse_from_table")
    t.record("rule", "adjust", villagers=sum(1 for s in t.stomach for k in s if k != SHEEP), panic_change=panic,
             curse_change=curse)
    if t.over:
        return
    digest(t)
    refill(t)


def digest(t) -> None:
    """V9.4: eaten villagers back into the bag; eaten sheep back to the supply (the sheep not on the board)."""
    for slot in t.stomach:
        for kind in slot:
            if kind != SHEEP:
                t.bag[C.VILLAGER_NAMES.index(kind)] += 1
    t.stomach = []
