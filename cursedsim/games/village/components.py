"""So, You've Been Cursed.: the component facts as data.

Every number here is printed in the rulebook (quoted as "rulebook", section named) or listed in the
project's component facts (quoted as "FACTS"); nothing here is reconstructed. The board, its tracks and
their lengths are not printed anywhere public: they live in a board file (``board.py``,
``data/default_board.toml``), not here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Villager:
    """One villager type: its token count, colour, the ingredient the Wizard buys from it, and the Energy
    the Monster gains by eating it."""

    name: str
    count: int
    colour: str
    ingredient: str
    energy: int


# rulebook, Components: "27 Villager tokens: 7 Farmers (Green), 6 Hunters (Black), 5 Woodcutters (Brown),
# 4 Butchers (White), 3 Merchants (Yellow), 2 Nobles (Purple)".
# rulebook, Components: "18 Ingredient tiles: 3 Mandrake Root (Green), 3 Wolf Claw (Black), 3 Ash Twig
# (Brown), 3 Wishbone (White), 3 Gold Dust (Yellow), 3 Silk Thread (Purple)" -- an ingredient matches the
# villager of its colour ("ingredients that match the color and type of the villager", Buy Ingredients).
# rulebook, Energy: "Sheep / Farmer / Hunter: 1 Energy · Woodcutter / Butcher: 2 Energy · Merchant /
# Noble: 3 Energy".
VILLAGERS: tuple[Villager, ...] = (
    Villager("Farmer", 7, "green", "Mandrake Root", 1),
    Villager("Hunter", 6, "black", "Wolf Claw", 1),
    Villager("Woodcutter", 5, "brown", "Ash Twig", 2),
    Villager("Butcher", 4, "white", "Wishbone", 2),
    Villager("Merchant", 3, "yellow", "Gold Dust", 3),
    Villager("Noble", 2, "purple", "Silk Thread", 3),
)
VILLAGER_NAMES: tuple[str, ...] = tuple(v.name for v in VILLAGERS)
#: Ingredient i is bought from villager type i (same colour).
INGREDIENTS: tuple[str, ...] = tuple(v.ingredient for v in VILLAGERS)
COLOURS: tuple[str, ...] = tuple(v.colour for v in VILLAGERS)
VILLAGER_COUNTS: tuple[int, ...] = tuple(v.count for v in VILLAGERS)
VILLAGER_ENERGY: tuple[int, ...] = tuple(v.energy for v in VILLAGERS)
#: rulebook, Components: "27 Villager tokens" (and "27 Villager cards" for the Villager Cards Variant).
VILLAGER_TOKENS = 27
#: rulebook, Components: "3 Mandrake Root (Green), 3 Wolf Claw (Black), ..." -- 3 tiles of each of 6.
INGREDIENT_TILES_EACH = 3
INGREDIENT_TILES = 18

#: rulebook, Components: "15 Sheep tokens".
SHEEP_TOKENS = 15
#: rulebook, Energy: "Sheep / Farmer / Hunter: 1 Energy".
SHEEP_ENERGY = 1

#: rulebook, Components: "5 Coins of value 1" and "4 Coins of value 5" -- (value, count).
COIN_TILES: tuple[tuple[int, int], ...] = ((1, 5), (5, 4))
#: 5 x 1 + 4 x 5; rulebook, Diplosis: "NOTE: Coins are limited to a value of 25."
COIN_TOTAL = 25
#: rulebook, Setup 12.C: "Place 3 Coin tiles on the wallet area of the Wizard board." (solo setups: the same)
WIZARD_START_COINS = 3

#: rulebook, Components: "9 Energy tiles"; Energy: "The Monster may not have more than 9 Energy at a time."
ENERGY_MAX = 9
#: rulebook, Energy: "2 Energy: The Monster gains an additional movement for this action."
ENERGY_EXTRA_MOVE = 2
#: rulebook, Energy: "4 Energy: The Monster may discard an ongoing effect Spell card ..."
ENERGY_DISCARD_SPELL = 4
#: rulebook, Energy: "6 Energy: Reduce Panic by 1."
ENERGY_PANIC_DOWN = 6

#: rulebook, Buy Ingredients: "The Wizard can only hold up to 3 ingredients at a time".
WIZARD_INGREDIENT_LIMIT = 3
#: rulebook, Spell Card Index, Box of Holding: "You may store a fourth ingredient on this card."
BOX_OF_HOLDING_LIMIT = 4
#: rulebook, Power Cards: "present on one of the 3 stomach spaces on the Monster board".
STOMACH_SLOTS = 3

#: rulebook, Components: "12 Town Guard tiles"; Moving Phase: "No Effect (x2) · -1 Energy (x3) · -2 Energy
#: (x3) · -1 Movement (x2) · +1 Panic (x2)" -- (code, count).
TOWN_GUARD_TILES: tuple[tuple[str, int], ...] = (
    ("no_effect", 2), ("energy_minus_1", 3), ("energy_minus_2", 3), ("movement_minus_1", 2), ("panic_plus_1", 2))
TOWN_GUARD_TOTAL = 12
#: rulebook, Setup 8: "place one face-down tile on each path between districts" -- so the board has exactly
#: as many paths between districts as there are tiles.
BORDER_ROADS = TOWN_GUARD_TOTAL

#: rulebook, Components: "1 6-sided die" (Steal Coins) and "1 20-sided die" (villager arrival).
D6 = 6
D20 = 20
#: rulebook, Setup 9: "placing them on the Village board house spaces, starting from the space marked "1"
#: and proceeding to the one marked "20"" -- and the d20 picks the house.
HOUSES = 20

#: rulebook, Setup 4: "Place the Panic tile on the first space ("1") of the Panic Track."
PANIC_START = 1
#: The Panic effects of each Village board side, in the order the rulebook lists them.
#: rulebook, Panic Track Effects: "Get busy! ... Stay inside! ... A plethora of potions!"; (Possessed
#: Wizard): "Maximum Possession! ... Stay inside! ... Possession intensifies!".
PANIC_EFFECTS: dict[str, tuple[str, ...]] = {
    "wizard": ("get_busy", "stay_inside", "plethora_of_potions"),
    "possessed": ("maximum_possession", "stay_inside", "possession_intensifies"),
}
#: rulebook, Panic Track Effects: "once Panic reaches level 7, both the Stay Inside! and Get busy! effects
#: apply." -- the first two effects of a side start at or below this level ...
PANIC_TWO_EFFECTS_BY = 7
#: ... "After level 9, all effects apply to gameplay." -- and the third above level 7, at most at 10 (the
#: level after 9: "after level 9" is read as "from level 9 or 10"; docs/rules/village_board.md).
PANIC_ALL_EFFECTS_BY = 10
#: rulebook, Quiet Night: "The Panic level is reduced by 2." / "The Curse level is reduced by 1." /
#: "Two new random villagers arrive".
QUIET_NIGHT_PANIC = -2
QUIET_NIGHT_CURSE = -1
QUIET_NIGHT_ARRIVALS = 2

#: rulebook, The Wizard Takes Actions: "The Wizard may take up to 3 actions each turn."
WIZARD_ACTIONS = 3
#: rulebook, Monster Turn Option 2: "To feed, the Monster may take up to 3 actions."
MONSTER_ACTIONS = 3
#: rulebook, Moving Phase: "Each moving phase can include up to two movements into adjacent locations."
MOVES_PER_ACTION = 2
#: rulebook, Buy Ingredients: "The cost of each ingredient is noted in coins next to the house, and may be
#: 1-4 coins."
PRICE_MIN, PRICE_MAX = 1, 4
#: rulebook, Buy Ingredients: "they pay 5 coins to buy exactly one ingredient of any type" (the Market).
MARKET_PRICE = 5
#: rulebook, Locations: "Each time that a gate or bridge is crossed, the Wizard must pay 1 coin."
CROSSING_COST = 1
#: rulebook, The End of the Wizard's Turn / Digesting: "refill their hand to 4 cards".
HAND_SIZE = 4

#: rulebook, Components: "24 Spell cards", "24 Power cards", "12 Possessed Wizard cards", "12 Rabid Monster
#: cards", "27 Villager cards".
SPELL_CARDS = 24
POWER_CARDS = 24
POSSESSED_WIZARD_CARDS = 12
RABID_MONSTER_CARDS = 12
VILLAGER_CARDS = 27

#: The four games of the rulebook ("Gameplay") and the side of each board their setup turns face up:
#: Village board (its Panic track) and Wizard board (its Cure track): rulebook, Setup 2 and 12.A ("the side
#: with the Wizard icon"), Setup (Possessed Wizard) 1 and 11.A and Setup (0 players) 1 and 11.A ("the side
#: with the Possessed Wizard icon"); Monster board (its Curse track): Setup (Rabid Monster) 12.A ("the side
#: with the Rabid Monster icon"); the 0-player setup names no Monster board side, its Monster is the Rabid
#: Monster, so the Rabid side is taken (docs/rules/village_board.md, open points).
#: Mode codes as in rules.py and cards.py (the frame column ``mode``).
MODES: tuple[str, ...] = ("duel", "rabid_monster", "possessed_wizard", "automata")
VILLAGE_SIDES: tuple[str, ...] = ("wizard", "possessed")
WIZARD_SIDES: tuple[str, ...] = ("wizard", "possessed")
MONSTER_SIDES: tuple[str, ...] = ("monster", "rabid")
#: mode -> (village board side, wizard board side, monster board side)
MODE_SIDES: dict[str, tuple[str, str, str]] = {
    "duel": ("wizard", "wizard", "monster"),
    "rabid_monster": ("wizard", "wizard", "rabid"),
    "possessed_wizard": ("possessed", "possessed", "monster"),
    "automata": ("possessed", "possessed", "rabid"),
}
#: rulebook, Setup (Rabid Monster) 7 and Setup (0 players) 7: "Town Guard tiles and Energy tiles are not
#: used in this game".
MODES_WITH_TOWN_GUARDS: tuple[str, ...] = ("duel", "possessed_wizard")
