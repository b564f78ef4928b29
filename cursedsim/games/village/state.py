"""So, You've Been Cursed. numbering for the numba kernel: the flat state (``st`` offsets ``ST_*``), the
random streams, and the packing of the rule options, the board and the cards into int64 arrays (data
read by the kernel, never code per card or per board).

A game lives in the tuple ``G = (st, rs, bd, cd, dk, pp, ctl)`` (``ctl``: what a search asks of the
kernel, ``kernel.C_*``, all zero in a plain chunk):

- ``st`` (int64, ``N_ST``): every integer of the game at the ``ST_*`` offsets below: scalars, the rule
  options (``ST_OPTS``: ``option_array``), both sides' policy ids, the houses, the bag, the pastures, the
  Wizard's ingredients, the stomach, every deck / discard pile / row as (list, length), the outcome
  counters, and zones reserved for the players (hands, Town Guard tiles, Energy, the card slot, the
  locations visited, the legal list of a decision);
- ``rs`` (uint64, ``N_STREAMS`` x 4): the xoshiro256** state of each random stream (``cursedsim.rng``);
- ``bd`` (int64): the board of the mode (``pack_board``): a header of sizes, scalars and offsets
  (``BD_*``), then the arrays of ``Board.arrays(mode)`` flattened;
- ``cd`` (int64, ``N_CD`` x cards): the mode's cards, deck after deck (``pack_cards``), facts per card
  (``CD_*``); ``dk`` (int64, 5): deck k's cards are ``dk[k] .. dk[k+1]-1``;
- ``pp`` (float64, 2 x ``N_PARAMS``): each side's policy parameters.

A deck, pile or row is a list of card numbers (columns of ``cd``) at ``ST_<NAME>`` with its length at
``ST_N<NAME>``; the top of a deck is its last element (as the reference engine's lists).
"""

from __future__ import annotations

import numpy as np

from cursedsim.games.village import cards as K
from cursedsim.games.village import components as C
from cursedsim.games.village import rules as R

# ---------------------------------------------------------------- random streams (as reference.STREAM_*)

STREAM_BAG = 0
STREAM_D20 = 1
STREAM_D6 = 2
STREAM_SPELL = 3
STREAM_POWER = 4
STREAM_POSSESSED = 5
STREAM_RABID = 6
STREAM_WIZARD_POLICY = 7
STREAM_MONSTER_POLICY = 8
STREAM_GUARDS = 9
N_STREAMS = 10

# ---------------------------------------------------------------- sides, policies

WIZARD = R.SIDES.index(R.WIZARD)      # 0
MONSTER = R.SIDES.index(R.MONSTER)    # 1
NO_WINNER = R.NO_WINNER
#: Policy ids per side: 0 the side's automaton (Possessed Wizard / Rabid Monster), then the players'.
POLICY_AUTOMATON = 0
POLICY_RANDOM = 1
POLICY_PLANNER = 2
N_PARAMS = 16                         # a policy's parameters (planner 10, glutton 6)

# ---------------------------------------------------------------- rule options

#: ``st[ST_OPTS + OPT_<NAME>]``: slot i is the i-th field of rules.RuleOptions: a choice as its index in
#: rules.CHOICES[name], a bool as 0/1, an int as is; a file option (board, cards) 0: the kernel takes the
#: board and the cards as arrays (``pack_board``, ``pack_cards``).
OPT = {name: i for i, name in enumerate(R.OPTION_NAMES)}
N_OPTIONS = len(R.OPTION_NAMES)
OPT_MAX_TURNS = OPT["max_turns"]
OPT_PANIC_THRESHOLD = OPT["panic_threshold"]
OPT_FULL_STOMACH = OPT["full_stomach"]
OPT_AUTOMATA_TARGETS = OPT["automata_targets"]
OPT_RABID_PATH = OPT["rabid_path"]
OPT_RABID_STOP_COUNT = OPT["rabid_stop_count"]
OPT_RABID_PASTURE = OPT["rabid_pasture"]
OPT_PW_NEXT_INGREDIENT = OPT["pw_next_ingredient"]
OPT_PW_MIX_COUNTS = OPT["pw_mix_counts"]
OPT_PW_FULL_UNMATCHED = OPT["pw_full_unmatched"]
OPT_PW_STEAL_AMOUNT = OPT["pw_steal_amount"]
OPT_PW_ADJACENT_STEAL_SKIP = OPT["pw_adjacent_steal_skip"]
OPT_PW_BUY_ADJACENT = OPT["pw_buy_adjacent"]
OPT_PW_DISTANCE = OPT["pw_distance"]
OPT_PW_UNPAID_CROSSING = OPT["pw_unpaid_crossing"]
OPT_PW_CARD_COUNT = OPT["pw_card_count"]
#: The choice values the 0-player kernel tests (index in rules.CHOICES[...]).
AT_LEVEL = R.PANIC_THRESHOLD.index("at_level")
FULL_STOP = R.FULL_STOMACH.index("stop")
TARGETS_RABID_CARDS = R.AUTOMATA_TARGETS.index("rabid_cards")
PATH_ROADS = R.RABID_PATH.index("roads")
STOP_TOKENS = R.RABID_STOP_COUNT.index("tokens")
PASTURE_HIGHEST = R.RABID_PASTURE.index("highest_number")
NEXT_ONLY = R.PW_NEXT_INGREDIENT.index("next_only")
MIX_ALL_HELD = R.PW_MIX_COUNTS.index("all_held")
FULL_MIX_CURE = R.PW_FULL_UNMATCHED.index("mix_cure")
STEAL_HOUSE_VALUE = R.PW_STEAL_AMOUNT.index("house_value")
ADJ_STEAL_AS_PRINTED = R.PW_ADJACENT_STEAL_SKIP.index("as_printed")
BUY_ADJ_ANY = R.PW_BUY_ADJACENT.index("any_district")
DISTANCE_ROADS = R.PW_DISTANCE.index("roads")
UNPAID_MOVE_ANYWAY = R.PW_UNPAID_CROSSING.index("move_anyway")
COUNT_AT_TURN = R.PW_CARD_COUNT.index("at_turn")


def option_array(options: R.RuleOptions | None) -> np.ndarray:
    """The rule options as the kernel's int64 array (slot ``OPT[name]``)."""
    o = R.RuleOptions() if options is None else options
    out = np.zeros(N_OPTIONS, np.int64)
    for name, i in OPT.items():
        value = getattr(o, name)
        if name in R.CHOICES:
            out[i] = R.CHOICES[name].index(value)
        elif name not in R.FILE_OPTIONS:
            out[i] = int(value)
    return out


# ---------------------------------------------------------------- component facts

N_TYPES = len(C.VILLAGERS)            # villager types = ingredient types (6)
SHEEP_KIND = N_TYPES                  # stomach kind 6 (eaten_sheep): rules.EATEN_KINDS order
N_KINDS = N_TYPES + 1
EMPTY = -1
#: Panic effects on the Village board side (components.PANIC_EFFECTS order) ...
PANIC_FIRST, PANIC_STAY_INSIDE, PANIC_THIRD = 0, 1, 2
#: ... and the outcome counters (rules.PANIC_EFFECTS order).
F_EXTRA_ACTION = R.PANIC_EFFECTS.index("extra_action")
F_STAY_INSIDE = R.PANIC_EFFECTS.index("stay_inside")
F_CHEAPER_INGREDIENTS = R.PANIC_EFFECTS.index("cheaper_ingredients")
F_EXTRA_FEEDING_CARD = R.PANIC_EFFECTS.index("extra_feeding_card")
N_FIRED = len(R.PANIC_EFFECTS)
RABID_PANIC = np.array([p for p, _ in R.RABID_ADJUSTMENT], np.int64)
RABID_CURSE = np.array([c for _, c in R.RABID_ADJUSTMENT], np.int64)

# ---------------------------------------------------------------- the board (bd)

#: Limits of a board the kernel takes (checked by ``pack_board``).
MAX_LOCATIONS = 128
MAX_PASTURES = 32
MAX_DISTRICTS = 16

#: Header of ``bd``: sizes and scalars ...
BD_N, BD_ND, BD_NP, BD_NR = 0, 1, 2, 3
BD_LAB, BD_MARKET = 4, 5
BD_CURE_LEN, BD_CURSE_LEN, BD_CURSE_START, BD_PANIC_LEN, BD_PANIC_START = 6, 7, 8, 9, 10
BD_PANIC_FROM = 11                    # 3 slots: the level each Panic effect starts at
#: ... then the offset of each array in ``bd`` (name in Board.arrays, or our own).
BD_ARRAYS = ("kind", "district", "house_number", "coins", "price", "house_location", "distance",
             "district_crossings", "district_adjacent", "adj_start", "adj", "adj_road", "road_a", "road_b",
             "road_kind", "road_border", "guard_slot", "pasture_sheep", "pasture_order", "pasture_next_start",
             "pasture_next", "location_pastures_start", "location_pastures", "cure_sequence")
BD_OFF = {name: 16 + k for k, name in enumerate(BD_ARRAYS)}
O_KIND = BD_OFF["kind"]
O_DISTRICT = BD_OFF["district"]
O_HOUSE_NUMBER = BD_OFF["house_number"]
O_COINS = BD_OFF["coins"]
O_PRICE = BD_OFF["price"]
O_HOUSE_LOC = BD_OFF["house_location"]
O_DIST = BD_OFF["distance"]               # n x n, row-major
O_XING = BD_OFF["district_crossings"]     # nd x nd
O_DADJ = BD_OFF["district_adjacent"]      # nd x nd
O_ADJ_START = BD_OFF["adj_start"]
O_ADJ = BD_OFF["adj"]
O_ADJ_ROAD = BD_OFF["adj_road"]
O_ROAD_A = BD_OFF["road_a"]
O_ROAD_B = BD_OFF["road_b"]
O_ROAD_KIND = BD_OFF["road_kind"]
O_ROAD_BORDER = BD_OFF["road_border"]
O_GUARD_SLOT = BD_OFF["guard_slot"]
O_PASTURE_SHEEP = BD_OFF["pasture_sheep"]
O_PASTURE_ORDER = BD_OFF["pasture_order"]   # An Extra Serving's shortfall order: closest to the Laboratory
O_PNEXT_START = BD_OFF["pasture_next_start"]
O_PNEXT = BD_OFF["pasture_next"]
O_LPAST_START = BD_OFF["location_pastures_start"]
O_LPAST = BD_OFF["location_pastures"]
O_CURE_SEQ = BD_OFF["cure_sequence"]
BD_HEADER = 16 + len(BD_ARRAYS)


def pack_board(board, mode: str) -> np.ndarray:
    """The board of ``mode`` as the kernel's flat int64 array (header ``BD_*``, then the arrays)."""
    a = board.arrays(mode)
    n, nd, npast = len(board.locations), len(board.districts), len(board.pastures)
    if n > MAX_LOCATIONS or npast > MAX_PASTURES or nd > MAX_DISTRICTS:
        raise ValueError(f"board {board.label}: {n} locations, {nd} districts, {npast} pastures; the kernel "
                         f"takes at most {MAX_LOCATIONS}, {MAX_DISTRICTS}, {MAX_PASTURES}")
    lab = board.laboratory
    # An Extra Serving (automaton): pastures by their nearest location's road distance from the Laboratory,
    # then file order (as automata.develop_power sorts them)
    order = sorted(range(npast), key=lambda k: (
        min(int(a["distance"][lab, board.index[x]]) for x in board.pastures[k].next_to), k))
    arrays = dict(a)
    arrays["pasture_order"] = np.array(order, np.int64)
    head = np.zeros(BD_HEADER, np.int64)
    head[BD_N], head[BD_ND], head[BD_NP], head[BD_NR] = n, nd, npast, len(board.roads)
    head[BD_LAB], head[BD_MARKET] = lab, board.market
    head[BD_CURE_LEN] = len(a["cure_sequence"])
    head[BD_CURSE_LEN], head[BD_CURSE_START] = a["curse_length"][0], a["curse_start"][0]
    head[BD_PANIC_LEN], head[BD_PANIC_START] = a["panic_length"][0], a["panic_start"][0]
    head[BD_PANIC_FROM:BD_PANIC_FROM + 3] = a["panic_effect_from"]
    parts, at = [head], BD_HEADER
    for name in BD_ARRAYS:
        flat = np.asarray(arrays[name], np.int64).ravel()
        head[BD_OFF[name]] = at
        parts.append(flat)
        at += flat.size
    return np.concatenate(parts)


# ---------------------------------------------------------------- the cards (cd, dk)

#: Decks in ``dk`` order (cards.DECKS).
DK_SPELL, DK_POWER, DK_POSSESSED, DK_RABID = 0, 1, 2, 3
#: Effect codes: cards.EFFECTS[name].code.
E = {name: e.code for name, e in K.EFFECTS.items()}
E_NONE = E["none"]
E_REMOVE_SHEEP = E["remove_sheep"]
E_EXTRA_INGREDIENT_SLOT = E["extra_ingredient_slot"]
E_GAIN_INGREDIENTS = E["gain_ingredients"]
E_CURE_IF_NEXT = E["cure_if_next"]
E_DOUBLE_COINS = E["double_coins"]
E_DISCARD_POWER = E["discard_power"]
E_MARKET_DISCOUNT = E["market_discount"]
E_BRIDGE_EXTRA_MOVEMENT = E["bridge_extra_movement"]
E_PLACE_VILLAGER = E["place_villager"]
E_EAT_ROLLED_HOUSES = E["eat_rolled_houses"]
E_ADD_SHEEP = E["add_sheep"]
E_GAIN_ENERGY = E["gain_energy"]
E_CURSE_IF_EATS_SHEEP = E["curse_if_eats_sheep"]
E_MOVEMENT_ENERGY_COST = E["movement_energy_cost"]
E_WIZARD_CROSSING_COST = E["wizard_crossing_cost"]
E_EXTRA_FEEDING_ACTION = E["extra_feeding_action"]
E_LEAP = E["leap"]
E_IGNORE_TOWN_GUARDS = E["ignore_town_guards"]
E_GAIN_CURSE = E["gain_curse"]
E_EXTRA_RABID_CARD = E["extra_rabid_card"]
E_WIZARD_GAINS_COINS = E["wizard_gains_coins"]
E_MONSTER_ENERGY_LESS = E["monster_energy_less"]
#: Possessed Wizard card actions (cards.PW_ACTIONS order) ...
PW_ACTIONS = K.PW_ACTIONS
A_CAST_SPELL = PW_ACTIONS.index("cast_spell")
A_MIX_CURE = PW_ACTIONS.index("mix_cure")
A_STEAL_CURRENT = PW_ACTIONS.index("steal_current_district")
A_STEAL_ADJACENT = PW_ACTIONS.index("steal_adjacent_district")
A_BUY_ANY = PW_ACTIONS.index("buy_any_district")
A_BUY_CURRENT = PW_ACTIONS.index("buy_current_district")
A_BUY_ADJACENT = PW_ACTIONS.index("buy_adjacent_district")
#: ... and the where of a Buy or a Steal.
WHERE_ANY, WHERE_CURRENT, WHERE_ADJACENT = 0, 1, 2
MAX_EFFECT_PARAMS = 3

#: Rows of ``cd``. EFFECT/A0..A2: the effect an automaton applies (``automaton_effect``, or the card's own
#: when "same") and its parameters in cards.EFFECTS order; PRINTED/P0..P2: the card's own effect (the
#: players'); FEE: Greedy Coachman's coins per crossing (printed wizard_crossing_cost, else 0);
#: DISCARD_ON_CAST: discarded by a Cast Spell action; FEED_COINS / FEED_ENERGY: a Possessed Wizard card's
#: feeding effect; ACTION: a Possessed Wizard card's first action (PW_ACTIONS), ACTIONS: bit set of its
#: actions (PW_ACTIONS or, Rabid Monster cards, cards.RM_ACTIONS); VILLAGER: the card's villager type or
#: -1; NEED_*: requirements (LOCATION: a location kind index of board.LOCATION_KINDS + 1, 0 = none;
#: INGREDIENTS / STOMACH: 4 bits per type); KIND: cards.KINDS index; PLACEMENT: cards.PLACEMENTS index.
(CD_DECK, CD_EFFECT, CD_A0, CD_A1, CD_A2, CD_PRINTED, CD_P0, CD_P1, CD_P2, CD_COINS, CD_FEE, CD_DISCARD_ON_CAST,
 CD_FEED_COINS, CD_FEED_ENERGY, CD_ACTION, CD_ACTIONS, CD_VILLAGER, CD_NEED_LOCATION, CD_NEED_INGREDIENTS,
 CD_NEED_STOMACH, CD_NEED_PANIC, CD_NEED_ENERGY, CD_KIND, CD_PLACEMENT, CD_RED_ICON, CD_BLANK) = range(26)
N_CD = 26


def _param_values(effect: str, pairs) -> list[int]:
    values = dict(pairs)
    return [int(values[p.name]) for p in K.EFFECTS[effect].params]


#: The location requirements the kernel plays: ids that name the one location of their kind (the reference
#: reads a requirement as a location id, the kernel's card facts keep the kind).
PACKED_LOCATIONS = ("laboratory", "market")


def pack_cards(cards: K.Cards | None, mode: str, options: R.RuleOptions | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """(cd, dk): the decks ``mode`` plays (``Cards.deck_for`` with the options' cards file, unlisted_cards
    and deck sizes, as the reference deals them), deck after deck in cards.DECKS order, as the kernel's
    (N_CD, cards) int64 facts and deck starts."""
    from cursedsim.games.village.board import LOCATION_KINDS
    o = R.RuleOptions() if options is None else options
    decks = (cards or K.cards_of(o.cards)).deck_for(mode, **o.deck_options())
    listed = [c for deck in K.DECKS for c in decks.get(deck, ())]
    dk = np.zeros(len(K.DECKS) + 1, np.int64)
    k = 0
    for i, deck in enumerate(K.DECKS):
        dk[i] = k
        k += len(decks.get(deck, ()))
        if len(decks.get(deck, ())) > K.MAX_DECK:
            raise ValueError(f"deck {deck!r} holds more than {K.MAX_DECK} cards")
    dk[-1] = k
    cd = np.zeros((N_CD, max(1, len(listed))), np.int64)
    for j, c in enumerate(listed):
        col = cd[:, j]
        col[CD_DECK] = K.DECKS.index(c.deck)
        resolved = c.effect if c.automaton_effect == K.SAME else c.automaton_effect
        col[CD_EFFECT] = K.EFFECTS[resolved].code
        for i, v in enumerate(_param_values(resolved, c.automaton_params if c.automaton_effect != K.SAME
                                            else c.params)):
            col[CD_A0 + i] = v
        col[CD_PRINTED] = K.EFFECTS[c.effect].code
        for i, v in enumerate(_param_values(c.effect, c.params)):
            col[CD_P0 + i] = v
        col[CD_COINS] = c.coins
        if c.effect == "wizard_crossing_cost":
            col[CD_FEE] = c.param("coins", automaton=True)
            col[CD_DISCARD_ON_CAST] = int(c.param("discard_on", automaton=True) == 1)
        if c.effect == "wizard_gains_coins":
            col[CD_FEED_COINS] = c.param("coins", automaton=True)
        if c.effect == "monster_energy_less":
            col[CD_FEED_ENERGY] = c.param("energy", automaton=True)
        names = K.ACTIONS.get(c.deck, ())
        col[CD_ACTION] = names.index(c.actions[0]) if c.actions else -1
        col[CD_ACTIONS] = sum(1 << names.index(a) for a in c.actions)
        col[CD_VILLAGER] = K.VILLAGERS.index(c.villager) if c.villager else -1
        req = c.requirements
        if req.location and req.location not in PACKED_LOCATIONS:
            raise ValueError(f"card {c.id} ({c.name}): location requirement {req.location!r} is not played by the "
                             f"kernel (it packs a location kind); supported: "
                             f"{', '.join(repr(x) for x in PACKED_LOCATIONS)} or none")
        col[CD_NEED_LOCATION] = LOCATION_KINDS.index(req.location) + 1 if req.location else 0
        col[CD_NEED_INGREDIENTS] = sum(1 << (4 * K.INGREDIENTS.index(i)) for i in req.ingredients)
        col[CD_NEED_STOMACH] = sum(1 << (4 * K.STOMACH.index(s)) for s in req.stomach)
        col[CD_NEED_PANIC], col[CD_NEED_ENERGY] = req.panic, req.energy
        col[CD_KIND], col[CD_PLACEMENT] = K.KINDS.index(c.kind), K.PLACEMENTS.index(c.placement)
        col[CD_RED_ICON], col[CD_BLANK] = int(c.red_icon), int(c.blank)
    return cd, dk


# ---------------------------------------------------------------- the state (st)

MAX_DECK = K.MAX_DECK
MAX_SLOTS = 16                        # stomach slots (full_stomach = keep_eating opens more than 3)
SLOT_CAP = 4                          # tokens in one slot (a villager and the sheep eaten on the way)
MAX_ROW = 8                           # Possessed Wizard cards in a row / the feeding cards
MAX_HAND = 8                          # a player's hand (4, more while a card is drawn)
MAX_LEGAL = 256                       # a decision's legal list
MAX_OPTIONS = 48
assert N_OPTIONS <= MAX_OPTIONS

_fields: list[tuple[str, int]] = [
    # scalars
    ("TURN", 1), ("SIDE", 1), ("OVER", 1), ("WINNER", 1), ("UNFINISHED", 1), ("ERR", 1),
    ("AT", 1), ("PANIC", 1), ("CURE", 1), ("CURSE", 1), ("COINS", 1), ("COINS_STOLEN", 1), ("QUIET_NIGHTS", 1),
    ("CURSE_FROM", 2),                # Curse steps moved by source (rules.CURSE_SOURCES: table, cards)
    ("CURE_FROM", 2),                 # Cure steps moved by source (rules.CURE_SOURCES: Mix Cure, Spells)
    ("COINS_LOST", 1),                # coins a gain could not take: the supply was short (V11.2)
    ("SHEEP_CURSE", 1),               # Digestive Mutton Chop: Curse + this at the first sheep this turn
    ("NHELD", 1),                     # ingredients held (their types: HELD)
    ("NSLOTS", 1), ("NTOKENS", 1), ("NVILLAGERS", 1),   # the stomach this turn
    # reserved for the players (phase 2)
    ("ENERGY", 1), ("ACTIONS_LEFT", 1), ("MOVES_LEFT", 1), ("MOVE_LOSS", 1), ("EXTRA_ACTIONS", 1),
    ("QUIET_NIGHT", 1), ("SINGLE_USE", 1), ("NEW_MOON", 1), ("BOX_SLOTS", 1), ("MARKET_DISCOUNT", 1),
    ("VISITED", 2),                   # bit set of the locations the Monster visited this turn (128 bits)
    ("M_MOVING", 1),                  # the Monster player's moving phase is open (V7.3; kernel_monster)
    ("W_ACTIONS", 1), ("W_PENDING", 3),   # the Wizard player's actions left and pending action (kernel_wizard)
    ("DECISION", 1), ("DECIDER", 1), ("NLEGAL", 1),
    ("SCALARS_END", 1),
    ("OPTS", MAX_OPTIONS),            # option_array
    ("POLICY", 2),                    # policy id per side (POLICY_*)
    ("HOUSES", C.HOUSES + 1),         # villager type in house n (1-20) or EMPTY; [0] unused
    ("BAG", N_TYPES),                 # villager tokens in the bag per type
    ("SHEEP", MAX_PASTURES),          # per pasture
    ("HELD", N_TYPES),                # the Wizard's ingredients, count per type
    ("STOMACH_KIND", N_KINDS),        # the stomach this turn, tokens per kind
    ("SLOT_N", MAX_SLOTS), ("SLOT", MAX_SLOTS * SLOT_CAP),   # the stomach slots' tokens (kinds)
    ("EATEN", N_KINDS), ("FIRED", N_FIRED), ("FIRST", N_FIRED),
    # decks: list + length (top = last)
    ("SPELL_DECK", MAX_DECK), ("NSPELL_DECK", 1), ("SPELL_DISC", MAX_DECK), ("NSPELL_DISC", 1),
    ("POWER_DECK", MAX_DECK), ("NPOWER_DECK", 1), ("POWER_DISC", MAX_DECK), ("NPOWER_DISC", 1),
    ("PW_DECK", MAX_DECK), ("NPW_DECK", 1),
    ("PW_ROW", MAX_ROW), ("NPW_ROW", 1), ("PW_USED", MAX_ROW), ("NPW_USED", 1),
    ("PW_FEEDING", MAX_ROW), ("NPW_FEEDING", 1),
    ("RM_DECK", MAX_DECK), ("NRM_DECK", 1),           # this turn's Rabid Monster cards (shuffled)
    ("HUNTED", MAX_ROW + MAX_DECK), ("NHUNTED", 1),   # the cards whose villagers are hunted this turn
    ("FRONT_WIZARD", MAX_DECK), ("NFRONT_WIZARD", 1),    # ongoing cards in front of the Wizard
    ("FRONT_MONSTER", MAX_DECK), ("NFRONT_MONSTER", 1),  # ongoing cards in front of the Monster
    # the players (phase 2)
    ("WIZARD_HAND", MAX_HAND), ("NWIZARD_HAND", 1), ("MONSTER_HAND", MAX_HAND), ("NMONSTER_HAND", 1),
    ("GUARD", C.TOWN_GUARD_TOTAL),    # Town Guard tile on border road slot k (TOWN_GUARD_TILES index)
    ("GUARD_UP", C.TOWN_GUARD_TOTAL),  # revealed
    ("LEGAL", MAX_LEGAL),
    ("RM_DRAWN", MAX_ROW), ("NRM_DRAWN", 1),   # kernel_wizard: the Rabid Monster cards drawn (-1 once used)
    ("RM_USED", MAX_ROW), ("NRM_USED", 1),     # kernel_wizard: those used, in order (V13.2)
    ("W_NEED", MAX_DECK), ("NW_NEED", 1),      # kernel_wizard: the planner's missing ingredients (scratch)
    # scratch
    ("DIST", MAX_LOCATIONS), ("QUEUE", MAX_LOCATIONS), ("POOL", N_KINDS),
    ("M_GIVEN", MAX_PASTURES),        # kernel_monster: An Extra Serving's sheep given per pasture (M8)
]
_at = 0
OFFSETS: dict[str, int] = {}
for _name, _size in _fields:
    OFFSETS[_name] = _at
    _at += _size
N_ST = _at
N_SCALARS = OFFSETS["SCALARS_END"]

ST_TURN = OFFSETS["TURN"]
ST_SIDE = OFFSETS["SIDE"]
ST_OVER = OFFSETS["OVER"]
ST_WINNER = OFFSETS["WINNER"]
ST_UNFINISHED = OFFSETS["UNFINISHED"]
ST_ERR = OFFSETS["ERR"]
ST_AT = OFFSETS["AT"]
ST_PANIC = OFFSETS["PANIC"]
ST_CURE = OFFSETS["CURE"]
ST_CURSE = OFFSETS["CURSE"]
ST_COINS = OFFSETS["COINS"]
ST_COINS_STOLEN = OFFSETS["COINS_STOLEN"]
ST_QUIET_NIGHTS = OFFSETS["QUIET_NIGHTS"]
ST_CURSE_FROM = OFFSETS["CURSE_FROM"]
ST_CURE_FROM = OFFSETS["CURE_FROM"]
ST_COINS_LOST = OFFSETS["COINS_LOST"]
#: The sources of a track's steps (``move_curse`` / ``move_cure``): offsets into CURSE_FROM / CURE_FROM.
CURSE_TABLE, CURSE_CARDS = 0, 1
CURE_MIX, CURE_SPELLS = 0, 1
assert R.CURSE_SOURCES == ("curse_from_table", "curse_from_cards") and R.CURE_SOURCES == ("cure_from_mix",
                                                                                            "cure_from_spells")
ST_SHEEP_CURSE = OFFSETS["SHEEP_CURSE"]
ST_NHELD = OFFSETS["NHELD"]
ST_NSLOTS = OFFSETS["NSLOTS"]
ST_NTOKENS = OFFSETS["NTOKENS"]
ST_NVILLAGERS = OFFSETS["NVILLAGERS"]
ST_ENERGY = OFFSETS["ENERGY"]
ST_ACTIONS_LEFT = OFFSETS["ACTIONS_LEFT"]
ST_MOVES_LEFT = OFFSETS["MOVES_LEFT"]
ST_MOVE_LOSS = OFFSETS["MOVE_LOSS"]
ST_EXTRA_ACTIONS = OFFSETS["EXTRA_ACTIONS"]
ST_QUIET_NIGHT = OFFSETS["QUIET_NIGHT"]
ST_SINGLE_USE = OFFSETS["SINGLE_USE"]
ST_NEW_MOON = OFFSETS["NEW_MOON"]
ST_M_MOVING = OFFSETS["M_MOVING"]
ST_BOX_SLOTS = OFFSETS["BOX_SLOTS"]
ST_MARKET_DISCOUNT = OFFSETS["MARKET_DISCOUNT"]
ST_VISITED = OFFSETS["VISITED"]
ST_DECISION = OFFSETS["DECISION"]
ST_DECIDER = OFFSETS["DECIDER"]
ST_NLEGAL = OFFSETS["NLEGAL"]
ST_OPTS = OFFSETS["OPTS"]
ST_POLICY = OFFSETS["POLICY"]
ST_HOUSES = OFFSETS["HOUSES"]
ST_BAG = OFFSETS["BAG"]
ST_SHEEP = OFFSETS["SHEEP"]
ST_HELD = OFFSETS["HELD"]
ST_STOMACH_KIND = OFFSETS["STOMACH_KIND"]
ST_SLOT_N = OFFSETS["SLOT_N"]
ST_SLOT = OFFSETS["SLOT"]
ST_EATEN = OFFSETS["EATEN"]
ST_FIRED = OFFSETS["FIRED"]
ST_FIRST = OFFSETS["FIRST"]
ST_SPELL_DECK = OFFSETS["SPELL_DECK"]
ST_NSPELL_DECK = OFFSETS["NSPELL_DECK"]
ST_SPELL_DISC = OFFSETS["SPELL_DISC"]
ST_NSPELL_DISC = OFFSETS["NSPELL_DISC"]
ST_POWER_DECK = OFFSETS["POWER_DECK"]
ST_NPOWER_DECK = OFFSETS["NPOWER_DECK"]
ST_POWER_DISC = OFFSETS["POWER_DISC"]
ST_NPOWER_DISC = OFFSETS["NPOWER_DISC"]
ST_PW_DECK = OFFSETS["PW_DECK"]
ST_NPW_DECK = OFFSETS["NPW_DECK"]
ST_PW_ROW = OFFSETS["PW_ROW"]
ST_NPW_ROW = OFFSETS["NPW_ROW"]
ST_PW_USED = OFFSETS["PW_USED"]
ST_NPW_USED = OFFSETS["NPW_USED"]
ST_PW_FEEDING = OFFSETS["PW_FEEDING"]
ST_NPW_FEEDING = OFFSETS["NPW_FEEDING"]
ST_RM_DECK = OFFSETS["RM_DECK"]
ST_NRM_DECK = OFFSETS["NRM_DECK"]
ST_HUNTED = OFFSETS["HUNTED"]
ST_NHUNTED = OFFSETS["NHUNTED"]
ST_FRONT_WIZARD = OFFSETS["FRONT_WIZARD"]
ST_NFRONT_WIZARD = OFFSETS["NFRONT_WIZARD"]
ST_FRONT_MONSTER = OFFSETS["FRONT_MONSTER"]
ST_NFRONT_MONSTER = OFFSETS["NFRONT_MONSTER"]
ST_WIZARD_HAND = OFFSETS["WIZARD_HAND"]
ST_NWIZARD_HAND = OFFSETS["NWIZARD_HAND"]
ST_MONSTER_HAND = OFFSETS["MONSTER_HAND"]
ST_NMONSTER_HAND = OFFSETS["NMONSTER_HAND"]
ST_GUARD = OFFSETS["GUARD"]
ST_GUARD_UP = OFFSETS["GUARD_UP"]
ST_LEGAL = OFFSETS["LEGAL"]
ST_W_ACTIONS = OFFSETS["W_ACTIONS"]
ST_W_PENDING = OFFSETS["W_PENDING"]
ST_RM_DRAWN = OFFSETS["RM_DRAWN"]
ST_NRM_DRAWN = OFFSETS["NRM_DRAWN"]
ST_RM_USED = OFFSETS["RM_USED"]
ST_NRM_USED = OFFSETS["NRM_USED"]
ST_W_NEED = OFFSETS["W_NEED"]
ST_NW_NEED = OFFSETS["NW_NEED"]
ST_DIST = OFFSETS["DIST"]
ST_QUEUE = OFFSETS["QUEUE"]
ST_POOL = OFFSETS["POOL"]
ST_M_GIVEN = OFFSETS["M_GIVEN"]
