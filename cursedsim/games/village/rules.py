"""So, You've Been Cursed. facts as data: the four modes, the sides, the rule options and the planned
outcome columns.

The rulebook is quoted rule by rule in docs/rules/village.md (V1.1, V1.2, ...); the board is a data file
(docs/rules/village_board.md) and so are the cards (docs/rules/village_cards.md). Every point the text
leaves open or where data is missing is a named option of ``RuleOptions`` with a documented default: the
section "Open points" of docs/rules/village.md gives each its sentence and its reason.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from cursedsim.errors import OptionError
from cursedsim.games.options import check_fields
from cursedsim.games.village import components as C
from cursedsim.games.village.board import CURE_MAX, CURSE_MAX, TRACK_MIN
from cursedsim.games.village.cards import MAX_DECK, POWER_REQUIREMENTS, PW_UNLISTED_ACTIONS, UNLISTED

# ---------------------------------------------------------------- sides and modes

#: The two sides (issue 13: "Sides `wizard` and `monster`"), in turn order: "the Wizard player taking
#: the first turn".
WIZARD = "wizard"
MONSTER = "monster"
SIDES = (WIZARD, MONSTER)

#: The automata are policies of their sides (issue 13): the Possessed Wizard and the Rabid Monster.
AUTOMATON_POLICIES = {WIZARD: "possessed", MONSTER: "rabid"}


@dataclass(frozen=True)
class Mode:
    """One way to play ("So, You've Been Cursed. can be played as: ...").

    code: our short name (frame column ``mode``; the same names key ``components.MODE_SIDES``, the board
    file's sides, and the cards' ``deck_for``); title: the rulebook's name of the game; players: the human
    players; wizard_automaton / monster_automaton: which side is played by its automaton.
    """

    code: str
    title: str
    players: int
    wizard_automaton: bool
    monster_automaton: bool

    @property
    def sides(self) -> tuple[str, str, str]:
        """(Village board side, Wizard board side, Monster board side) facing up (V1.3)."""
        return C.MODE_SIDES[self.code]

    @property
    def town_guard(self) -> bool:
        """Town Guard and Energy tiles are used ("not used in this game" in both Rabid Monster games)."""
        return self.code in C.MODES_WITH_TOWN_GUARDS


DUEL = "duel"
RABID_MONSTER = "rabid_monster"
POSSESSED_WIZARD = "possessed_wizard"
AUTOMATA = "automata"

MODES = {
    DUEL: Mode(DUEL, "So, You've Been Cursed.", 2, False, False),
    RABID_MONSTER: Mode(RABID_MONSTER, "So, You've Been Cursed to Be a Rabid Monster", 1, False, True),
    POSSESSED_WIZARD: Mode(POSSESSED_WIZARD, "So, You've Been Cursed By a Possessed Wizard", 1, True, False),
    AUTOMATA: Mode(AUTOMATA, "So, a Possessed Wizard Was Cursed to Be a Rabid Monster", 0, True, True),
}
MODE_NAMES = tuple(MODES)
#: Issue 13: the 0-player mode is the default pairing ({"wizard": "possessed", "monster": "rabid"}).
DEFAULT_MODE = AUTOMATA


def mode_of(wizard_automaton: bool, monster_automaton: bool) -> str:
    """The mode a pairing plays: which side (if any) is its automaton."""
    for code, mode in MODES.items():
        if (mode.wizard_automaton, mode.monster_automaton) == (bool(wizard_automaton), bool(monster_automaton)):
            return code
    raise AssertionError("unreachable: the four modes cover every pairing")


# ---------------------------------------------------------------- the automata's card counts

# The component facts (villagers, coins, Energy, actions, hand size, prices, Quiet Night, Panic start)
# are in ``components.py``; here only the counts of the automata's turns.

#: Rabid Monster games: "Then 4 cards are drawn." / "The Wizard may then select up to 3 of those actions".
RABID_CARDS_DRAWN = 4
RABID_CARDS_USED = 3
#: "Draw 3 cards and place them facing up in a row below the Wizard's board." and "1 Possessed Wizard card
#: is drawn and placed next to the Monster board, to be used only for its Feeding effect."
POSSESSED_ACTION_CARDS = 3
POSSESSED_FEEDING_CARDS = 1

#: Panic and Curse adjustment at the end of a Feeding turn (2-player table), indexed by the number of
#: villagers of the most numerous type in the stomach (0-3; more counts as 3): (panic, curse).
FEEDING_ADJUSTMENT = ((-1, 0), (-1, 0), (1, 1), (2, 2))
#: The Rabid Monster's table, indexed by the number of villager tokens eaten, any types (0-3; the table
#: stops at 3, so a Power card's extra meal counts as 3).
RABID_ADJUSTMENT = ((-1, 0), (1, 1), (2, 2), (3, 3))

# ---------------------------------------------------------------- rule options

NIGHT_ARRIVAL_CHOOSER = ("wizard", "monster")
PANIC_THRESHOLD = ("at_level", "above_level")
UNMATCHED_MEAL = ("panic_down", "no_change")
FULL_STOMACH = ("keep_eating", "stop")
GUARD_MOVEMENT_LOSS = ("this_action", "carry_over")
AUTOMATA_TARGETS = ("possessed_cards", "rabid_cards")
RABID_PATH = ("roads", "stop_at_villagers")
RABID_STOP_COUNT = ("tokens", "slots")
RABID_PASTURE = ("highest_number", "most_sheep")
RABID_SPENT_ACTIONS = ("use_a_card", "free", "discard_card")
RABID_GET_BUSY = ("fourth_card", "ignored")
PW_NEXT_INGREDIENT = ("first_missing", "next_only")
PW_MIX_COUNTS = ("all_held", "matching")
PW_FULL_UNMATCHED = ("card_action", "mix_cure")
PW_STEAL_AMOUNT = ("house_value", "best_expectation")
PW_ADJACENT_STEAL_SKIP = ("no_adjacent_house", "as_printed")
PW_BUY_ADJACENT = ("adjacent", "any_district")
PW_DISTANCE = ("roads", "crossings")
PW_UNPAID_CROSSING = ("skip", "move_anyway")
PW_CARD_COUNT = ("at_draw", "at_turn")
UNLISTED_CARDS = UNLISTED
TRACK_CALIBRATION = ("calibrated", "board")

CHOICES = {
    "night_arrival_chooser": NIGHT_ARRIVAL_CHOOSER,
    "panic_threshold": PANIC_THRESHOLD,
    "unmatched_meal": UNMATCHED_MEAL,
    "full_stomach": FULL_STOMACH,
    "guard_movement_loss": GUARD_MOVEMENT_LOSS,
    "automata_targets": AUTOMATA_TARGETS,
    "rabid_path": RABID_PATH,
    "rabid_stop_count": RABID_STOP_COUNT,
    "rabid_pasture": RABID_PASTURE,
    "rabid_spent_actions": RABID_SPENT_ACTIONS,
    "rabid_get_busy": RABID_GET_BUSY,
    "pw_next_ingredient": PW_NEXT_INGREDIENT,
    "pw_mix_counts": PW_MIX_COUNTS,
    "pw_full_unmatched": PW_FULL_UNMATCHED,
    "pw_steal_amount": PW_STEAL_AMOUNT,
    "pw_adjacent_steal_skip": PW_ADJACENT_STEAL_SKIP,
    "pw_buy_adjacent": PW_BUY_ADJACENT,
    "pw_distance": PW_DISTANCE,
    "pw_unpaid_crossing": PW_UNPAID_CROSSING,
    "pw_card_count": PW_CARD_COUNT,
    "unlisted_cards": UNLISTED_CARDS,
    "pw_unlisted_actions": PW_UNLISTED_ACTIONS,
    "power_requirements": POWER_REQUIREMENTS,
    "track_calibration": TRACK_CALIBRATION,
}
INT_RANGES = {"max_turns": (1, 100_000), **{name: (0, MAX_DECK) for name in (
    "spell_deck_size", "power_deck_size", "possessed_deck_size", "rabid_deck_size")},
    **{name: (0, CURE_MAX) for name in ("wizard_cure_length", "possessed_cure_length")},
    **{name: (0, CURSE_MAX) for name in ("monster_curse_length", "rabid_curse_length")}}
#: The track-length options: 0 (the board file's length) or a length in (low, high).
TRACK_LENGTHS = {"wizard_cure_length": (TRACK_MIN, CURE_MAX), "possessed_cure_length": (TRACK_MIN, CURE_MAX),
                 "monster_curse_length": (TRACK_MIN, CURSE_MAX), "rabid_curse_length": (TRACK_MIN, CURSE_MAX)}
#: Options naming a data file: "default" or a path (checked when the file is loaded: board.board_of,
#: cards.cards_of name the bad field and its line).
FILE_OPTIONS = ("board", "cards")


@dataclass(frozen=True)
class RuleOptions:
    """Rule variants of So, You've Been Cursed.; each default is the rulebook's text or, where it is
    silent or damaged, the reading docs/rules/village.md ("Open points", O1-O26) argues for.

    max_turns: a game still on after this many turns (each side's turn counts one) is ``unfinished``,
        with no winner (O1; not a rule).
    night_arrival_chooser: who places a Quiet Night villager whose d20 house is occupied: "wizard" (the
        arrival rule of the mode's Wizard: the player's choice, or the Possessed Wizard's closest house)
        or "monster" (the player whose turn it is) (O2).
    wizard_move_alone: the Wizard may move (paying coins, or an action) without taking an action at the
        destination; default False: moves are made "to take an action" (O3).
    board: the board file, "default" (the RECONSTRUCTED board, data/default_board.toml) or the path of a
        TOML/JSON board file (O4; docs/rules/village_board.md).
    plethora_at_market: "A plethora of potions! Ingredients cost 1 coin less." also lowers the Market's
        price (default True) (O5).
    panic_threshold: a Panic effect applies from its level on ("at_level") or only above it
        ("above_level") (O6).
    unmatched_meal: 2-3 villagers in the stomach with no two of one type: Panic -1 ("panic_down", the
        "0-1" row read on the largest type) or no adjustment ("no_change") (O7).
    quiet_night_adjusts: "The End of the Monster's Turn" (Panic/Curse adjustment, digesting, refill) also
        follows a Quiet Night; default False (O8).
    full_stomach: a fourth meal (extra Feeding action) is allowed with 3 slots full ("keep_eating") or
        not ("stop") (O9).
    start_location_visited: the Monster's starting location counts as "visited ... this turn" for Power
        card requirements (default True) (O10).
    guard_movement_loss: a -1 Movement Town Guard revealed on an action's last movement: nothing lost
        ("this_action") or the next action has one movement fewer ("carry_over") (O11).
    automata_targets: what the Rabid Monster hunts in the 0-player game: the villagers on the Possessed
        Wizard cards used for the Wizard's actions that turn ("possessed_cards": the 0-player set-up
        prepares no Rabid Monster cards) or on 3 Rabid Monster cards drawn at the start of its turn
        ("rabid_cards") (O12).
    rabid_path: the Rabid Monster's "distance of at most 2 roads" is the plain road distance ("roads")
        or counts only paths not entering an occupied house before the target ("stop_at_villagers") (O13).
    rabid_stop_count: "until the Monster has eaten at least 3 villagers and / or sheep" counts tokens
        ("tokens") or stomach slots filled ("slots") (O14).
    rabid_pasture: the pasture the Rabid Monster's sheep comes from when several adjacent ones hold
        sheep: "highest_number" (the board's pasture numbering) or "most_sheep" (O15).
    rabid_spent_actions: against the Rabid Monster, an action spent on a distraction or on moving uses
        one of the drawn Rabid Monster cards, laid out and hunted ("use_a_card"), no card ("free"), or one
        card that is discarded, not hunted ("discard_card": only cards whose action was taken) (O16).
    rabid_get_busy: against the Rabid Monster, "Get busy!" lets the Wizard use the fourth drawn card
        ("fourth_card") or has no effect ("ignored") (O17).
    pw_next_ingredient: the ingredient a Possessed Wizard Buy seeks: the first Cure step from the next
        on whose ingredient it does not hold ("first_missing") or only the next step's ("next_only") (O18).
    pw_mix_counts: a Possessed Wizard Mix Cure advances the Cure by every ingredient held ("all_held",
        as printed) or only by those matching the next steps in order ("matching") (O19).
    pw_full_unmatched: with 3 ingredients that do not match the next steps the Possessed Wizard takes
        the card action ("card_action") or a Mix Cure ("mix_cure") (O20).
    pw_steal_amount: the coins a Possessed Wizard Steal declares: the house's number ("house_value") or
        min(house, 3), the best expected take ("best_expectation") (O21).
    pw_adjacent_steal_skip: "Steal from adjacent district" is skipped when no adjacent district has an
        occupied house ("no_adjacent_house") or, as printed, when the current district has none
        ("as_printed") (O22).
    pw_buy_adjacent: the card "Buy Ingredient from adjacent district" looks in adjacent districts
        ("adjacent") or is played as "from any district" ("any_district") (O23).
    pw_distance: "the closest location" of a Possessed Wizard Buy is counted in roads ("roads") or in
        district crossings ("crossings") (O24).
    pw_unpaid_crossing: a Possessed Wizard Steal that cannot pay its crossing is skipped ("skip") or
        moves anyway spending all coins ("move_anyway") (O25).
    pw_card_count: the Possessed Wizard's action count follows the cards laid out at the end of its
        previous turn ("at_draw") or the Panic level at the start of its turn ("at_turn") (O26).
    cards: the cards file, "default" (the listed cards, data/cards.toml) or a path (O27;
        docs/rules/village_cards.md).
    unlisted_cards: the cards the rulebook does not list: "placeholder" (each deck filled to its printed
        size, 24 / 24 / 12 / 12, with labelled neutral placeholder cards before the mode selects its
        cards), "omit" (decks of the listed cards only), "blank" (padded with cards that do nothing) or
        "copies" (padded with copies of the listed ones) (O28).
    spell_deck_size: the Spell deck's size when unlisted_cards pads: 0 = its default (placeholder: the
        printed deck less the cards without the mode's icon; blank, copies: the printed share), or 1-60 (O29).
    power_deck_size: the same for the Power deck (O30).
    possessed_deck_size: the same for the Possessed Wizard deck (O31).
    rabid_deck_size: the same for the Rabid Monster deck (O32).
    pw_unlisted_actions: what the placeholder Possessed Wizard cards show: "printed_counts" (first the
        actions the printed counts miss, Mix Cure x1 and Buy Ingredient from current district x1 with the
        default file, then no action) or "none" (no action) (O33).
    power_requirements: "as_file" (the Power requirements of the cards file; the default file
        reconstructs one of each kind the rulebook names) or "none" (no Power card has a requirement) (O34).
    wizard_cure_length: the Cure track's length on the Wizard board side: 0 = the board file's, or 1-30
        spaces (the file's ingredient sequence cut, or repeated from its start) (O35).
    possessed_cure_length: the same on the Possessed Wizard side (O36).
    monster_curse_length: the Curse track's length on the Monster board side: 0 = the board file's, or
        1-30 (above the file's start space) (O37).
    rabid_curse_length: the same on the Rabid Monster side (O38).
    track_calibration: "calibrated" (the reconstructed default board plays its calibrated track lengths,
        data/track_calibration.toml; any other board its own) or "board" (the board file's lengths) (O39).
    """

    max_turns: int = 200
    night_arrival_chooser: str = "wizard"
    wizard_move_alone: bool = False
    board: str = "default"
    plethora_at_market: bool = True
    panic_threshold: str = "at_level"
    unmatched_meal: str = "panic_down"
    quiet_night_adjusts: bool = False
    full_stomach: str = "keep_eating"
    start_location_visited: bool = True
    guard_movement_loss: str = "this_action"
    automata_targets: str = "possessed_cards"
    rabid_path: str = "roads"
    rabid_stop_count: str = "tokens"
    rabid_pasture: str = "highest_number"
    rabid_spent_actions: str = "use_a_card"
    rabid_get_busy: str = "fourth_card"
    pw_next_ingredient: str = "first_missing"
    pw_mix_counts: str = "all_held"
    pw_full_unmatched: str = "card_action"
    pw_steal_amount: str = "house_value"
    pw_adjacent_steal_skip: str = "no_adjacent_house"
    pw_buy_adjacent: str = "adjacent"
    pw_distance: str = "roads"
    pw_unpaid_crossing: str = "skip"
    pw_card_count: str = "at_draw"
    cards: str = "default"
    unlisted_cards: str = "placeholder"
    spell_deck_size: int = 0
    power_deck_size: int = 0
    possessed_deck_size: int = 0
    rabid_deck_size: int = 0
    pw_unlisted_actions: str = "printed_counts"
    power_requirements: str = "as_file"
    wizard_cure_length: int = 0
    possessed_cure_length: int = 0
    monster_curse_length: int = 0
    rabid_curse_length: int = 0
    track_calibration: str = "calibrated"
    #: the options naming a data file (``cursedsim list`` shows "default, or the path of a ... file")
    FILE_OPTIONS: ClassVar[tuple[str, ...]] = FILE_OPTIONS

    def __post_init__(self) -> None:
        check_fields(self, CHOICES, INT_RANGES, skip=FILE_OPTIONS)
        for name in FILE_OPTIONS:
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise OptionError(f"option {name!r} must be 'default' or a file path, got {value!r}")

    def deck_sizes(self) -> dict[str, int]:
        """Deck name -> its size option (``cards.Cards.deck_for``'s ``sizes``)."""
        return {"spell": self.spell_deck_size, "power": self.power_deck_size,
                "possessed_wizard": self.possessed_deck_size, "rabid_monster": self.rabid_deck_size}

    def deck_options(self) -> dict:
        """The keyword arguments of ``cards.Cards.deck_for`` these options give (O28-O34)."""
        return {"unlisted": self.unlisted_cards, "sizes": self.deck_sizes(), "pw_actions": self.pw_unlisted_actions,
                "power_requirements": self.power_requirements}

    def track_lengths(self, board) -> tuple[dict[str, int], dict[str, int]]:
        """(Cure lengths by Wizard board side, Curse lengths by Monster board side) ``board`` plays with
        these options: ``board.with_track_lengths``'s arguments. The calibrated lengths of the default board
        (O39), then each length option that is set (O35-O38, 0 left out) over them."""
        from cursedsim.games.village.board import calibrated_lengths
        cure, curse = calibrated_lengths(board) if self.track_calibration == "calibrated" else ({}, {})
        chosen = ({"wizard": self.wizard_cure_length, "possessed": self.possessed_cure_length},
                  {"monster": self.monster_curse_length, "rabid": self.rabid_curse_length})
        for lengths, options in zip((cure, curse), chosen):
            lengths.update({k: v for k, v in options.items() if v})
        return cure, curse


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(RuleOptions))
BOOL_OPTIONS = tuple(name for name in OPTION_NAMES
                     if name not in CHOICES and name not in INT_RANGES and name not in FILE_OPTIONS)


def options_from(**values) -> RuleOptions:
    """RuleOptions from keyword values; an unknown name is an OptionError naming the valid ones."""
    unknown = sorted(set(values) - set(OPTION_NAMES))
    if unknown:
        raise OptionError(f"unknown village option {unknown[0]!r}; valid options: {', '.join(OPTION_NAMES)}")
    return RuleOptions(**values)


# ---------------------------------------------------------------- outcomes (issue 13, item 6)

#: Villager types in component order (Farmer 7, Hunter 6, Woodcutter 5, Butcher 4, Merchant 3, Noble 2)
#: and the sheep: the ``eaten_<kind>`` columns.
EATEN_KINDS = ("farmer", "hunter", "woodcutter", "butcher", "merchant", "noble", "sheep")
#: Panic effects by what they do (the two board sides name them differently): ``extra_action`` = "Get
#: busy!" / "Maximum Possession!", ``stay_inside`` = "Stay inside!" (both sides), ``cheaper_ingredients``
#: = "A plethora of potions!" (Wizard side), ``extra_feeding_card`` = "Possession intensifies!"
#: (Possessed Wizard side). ``fired_<effect>``: Wizard turns in which it applied; ``first_<effect>``:
#: the first such turn (0 = never).
PANIC_EFFECTS = ("extra_action", "stay_inside", "cheaper_ingredients", "extra_feeding_card")

#: Where the Curse and the Cure moved from (docs/rules/village.md, "Outcome columns"): ``curse_from_table``,
#: the steps the rules make (the end-of-turn adjustment V9.1-V9.3 / V13.9, a Quiet Night's -1 V6.2),
#: ``curse_from_cards``, those a card makes (Power cards, Digestive Mutton Chop); ``cure_from_mix``, the
#: steps of Mix Cure (V3.5, V14.2), ``cure_from_spells``, those of a Spell card's effect. Each counts the
#: steps the track actually moved (net, clamped at its ends), so a source pair sums to the game's movement.
CURSE_SOURCES = ("curse_from_table", "curse_from_cards")
CURE_SOURCES = ("cure_from_mix", "cure_from_spells")

#: ``winner``: index into SIDES, -1 when unfinished; ``mode``: index into MODE_NAMES.
NO_WINNER = -1
OUTCOME_DTYPES = {
    "winner": "int8",
    "mode": "int8",
    "turns": "int32",
    "unfinished": "bool",
    "cure": "int8",
    "curse": "int8",
    "panic": "int8",
    "coins_stolen": "int16",
    **{f"eaten_{kind}": "int16" for kind in EATEN_KINDS},
    **{f"fired_{effect}": "int16" for effect in PANIC_EFFECTS},
    **{f"first_{effect}": "int32" for effect in PANIC_EFFECTS},
    "quiet_nights": "int16",
    # a source's Curse steps or lost coins can add up over every turn (up to max_turns): int32; the Cure
    # never moves back, so each of its sources stays within the track (CURE_MAX)
    **{name: "int32" for name in CURSE_SOURCES},
    **{name: "int8" for name in CURE_SOURCES},
    "coins_lost_to_cap": "int32",
}
OUTCOME_COLUMNS = tuple(OUTCOME_DTYPES)
#: The columns the runner's frame adds for the sides (``cursedsim.games.village.run_chunk``).
SIDE_DTYPES = {"wizard_won": "bool", "monster_won": "bool"}
FRAME_OUTCOME_COLUMNS = OUTCOME_COLUMNS + tuple(SIDE_DTYPES)
#: Integer-coded outcome columns and their category names (the frame shows them as categoricals).
OUTCOME_CATEGORIES = {"winner": SIDES, "mode": MODE_NAMES}
