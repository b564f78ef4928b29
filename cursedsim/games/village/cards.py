"""The cards of So, You've Been Cursed. as data: load a TOML (or JSON) cards file, validate it against the
effect vocabulary below and freeze it as ``Cards`` (frozen ``Card`` records, a digest, per-mode decks).

The rulebook lists 9 of the 24 Spells, 11 of the 24 Powers, PW01-PW07 of the 12 Possessed Wizard cards
and RM01-RM08 of the 12 Rabid Monster cards; it prints their words but not their mode icons,
requirements, coins or card types. ``data/cards.toml`` holds the listed cards with those fields
reconstructed (each card names them in ``reconstructed``); docs/rules/village_cards.md gives every
reading and every choice with the rulebook sentence it rests on.

The file is read by ``cursedsim.datafile``'s pipeline (``CARDS_FILE``); every error names the bad field,
its line in the file and, where there is a choice, the valid choices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from cursedsim.datafile import DataFormat, Digested, Lines, is_int
from cursedsim.errors import OptionError

SCHEMA = 1
DEFAULT_CARDS = Path(__file__).with_name("data") / "cards.toml"

# ---------------------------------------------------------------- names (as in components.py)

INGREDIENTS = ("Mandrake Root", "Wolf Claw", "Ash Twig", "Wishbone", "Gold Dust", "Silk Thread")
VILLAGERS = ("Farmer", "Hunter", "Woodcutter", "Butcher", "Merchant", "Noble")
SHEEP = "Sheep"
#: What a stomach requirement may name: a villager type or a sheep (rulebook, Power Cards).
STOMACH = VILLAGERS + (SHEEP,)

# ---------------------------------------------------------------- decks, icons, modes

#: The four card decks and their printed sizes (rulebook, Components: "24 Spell cards, 24 Power cards,
#: 12 Possessed Wizard cards, 12 Rabid Monster cards").
DECKS = ("spell", "power", "possessed_wizard", "rabid_monster")
PRINTED_SIZE = {"spell": 24, "power": 24, "possessed_wizard": 12, "rabid_monster": 12}
#: The four mode icons ("Wizard, Monster, Possessed Wizard, Rabid Monster", Setup).
ICONS = ("wizard", "monster", "possessed_wizard", "rabid_monster")
KINDS = ("immediate", "ongoing", "single_use")
PLACEMENTS = ("", "wizard", "monster")


class Mode(NamedTuple):
    """A way to play: the icon of the Wizard side and of the Monster side, and the players."""

    wizard: str
    monster: str
    players: int


#: The modes of the Gameplay section: the 2-player duel, the two solo games, the 0-player game.
MODES: dict[str, Mode] = {
    "duel": Mode("wizard", "monster", 2),
    "rabid_monster": Mode("wizard", "rabid_monster", 1),        # "...Cursed to Be a Rabid Monster"
    "possessed_wizard": Mode("possessed_wizard", "monster", 1),  # "...Cursed By a Possessed Wizard"
    "automata": Mode("possessed_wizard", "rabid_monster", 0),    # "So, a Possessed Wizard Was Cursed..."
}

#: Ways to fill the decks (rule option ``unlisted_cards``): ``placeholder`` (default: each deck of the file
#: is filled up to its printed size with labelled placeholder cards, ``placeholder_card``, before the
#: mode's cards are selected), ``omit`` (the decks hold only the listed cards), ``blank`` (each mode deck
#: padded to its printed share with cards that do nothing), ``copies`` (padded with copies of the listed
#: cards, in id order).
UNLISTED = ("placeholder", "omit", "blank", "copies")
#: What the unlisted Possessed Wizard cards show (rule option ``pw_unlisted_actions``): ``printed_counts``
#: (default: first the actions the printed counts still miss, PRINTED_PW_ACTIONS less the file's cards,
#: then cards with no action) or ``none`` (no action on any placeholder).
PW_UNLISTED_ACTIONS = ("printed_counts", "none")
#: The printed counts of "Possessed Wizard Card Actions": "Buy Ingredient from any district (x2)", "Steal
#: from current district (x2)", "Steal from adjacent district (x1)", "Mix Cure (x1)", "Cast Spell (x1)",
#: "Buy Ingredient from current district (x2)" (9 of the 12 cards), in the rulebook's order.
PRINTED_PW_ACTIONS = (("buy_any_district", 2), ("steal_current_district", 2), ("steal_adjacent_district", 1),
                      ("mix_cure", 1), ("cast_spell", 1), ("buy_current_district", 2))
#: A printed action a file's card counts towards (PW05's "Buy Ingredient from adjacent district", an
#: action the rulebook does not define, is one of the two Buys "from any district": docs C18).
COUNTS_AS = {"buy_adjacent_district": "buy_any_district"}
#: The Power requirements a mode plays (rule option ``power_requirements``): ``as_file`` (default: every
#: requirement the cards file gives; the default file reconstructs one of each kind the rulebook names)
#: or ``none`` (every Power card playable without a requirement, the file's requirements ignored).
POWER_REQUIREMENTS = ("as_file", "none")
#: The rule options these cards propose (names, valid values, defaults), for ``rules.RuleOptions``:
#: ``cards`` "default" or a path to a cards file; ``unlisted_cards`` one of UNLISTED; ``<deck>_deck_size``
#: 0 (the default size, see ``Cards.deck_for``) or a size in 1..MAX_DECK; ``pw_unlisted_actions`` one
#: of PW_UNLISTED_ACTIONS; ``power_requirements`` one of POWER_REQUIREMENTS.
CARD_OPTIONS = {"cards": "default", "unlisted_cards": "placeholder", "spell_deck_size": 0, "power_deck_size": 0,
                "possessed_deck_size": 0, "rabid_deck_size": 0, "pw_unlisted_actions": "printed_counts",
                "power_requirements": "as_file"}
#: Deck -> its size option.
SIZE_OPTION = {"spell": "spell_deck_size", "power": "power_deck_size",
               "possessed_wizard": "possessed_deck_size", "rabid_monster": "rabid_deck_size"}

# ---------------------------------------------------------------- the effect vocabulary

#: Enumerated parameter values (stored as their index).
PICKS = {
    "discard_pick": ("choice", "leftmost"),
    "villager_pick": ("choice", "random"),
    "shortfall": ("choice", "closest_to_laboratory"),
    "target": ("choice", "d20_house"),
    "discard_on": ("never", "cast_spell"),
}


class Param(NamedTuple):
    """One parameter of an effect: its name, kind (``int``, ``ingredient``, or a key of PICKS) and, for
    ``int``, its inclusive range."""

    name: str
    kind: str
    low: int = 0
    high: int = 0


class Effect(NamedTuple):
    """One effect: its code, the decks that may carry it, its parameters, and what it does."""

    code: int
    decks: tuple[str, ...]
    params: tuple[Param, ...]
    doc: str


def _i(name: str, low: int, high: int) -> Param:
    return Param(name, "int", low, high)


_SPELL, _POWER, _PW = ("spell",), ("power",), ("possessed_wizard",)
EFFECTS: dict[str, Effect] = {
    "none": Effect(0, DECKS, (), "no effect (a Rabid Monster card; a blank card; no Monster text)"),
    "remove_sheep": Effect(1, _SPELL, (_i("per_pasture", 1, 15),),
                           "remove per_pasture sheep from each pasture with sheep (A Village Feast)"),
    "extra_ingredient_slot": Effect(2, _SPELL, (_i("slots", 1, 3),),
                                    "the Wizard may hold slots more ingredients on the card (Box of Holding)"),
    "gain_ingredients": Effect(3, _SPELL, (Param("first", "ingredient"), Param("second", "ingredient")),
                               "gain one first and one second ingredient (Butcher's Broth, Forager's Feast)"),
    "cure_if_next": Effect(4, _SPELL, (Param("first", "ingredient"), Param("second", "ingredient"),
                                       _i("steps", 1, 3)),
                           "if the next Cure step needs first or second, Cure + steps; a held ingredient of "
                           "that type returns to the supply (automaton Broth, Feast)"),
    "double_coins": Effect(5, _SPELL, (_i("cap", 1, 25),),
                           "gain as many coins as held, up to cap held in all (Diplosis)"),
    "discard_power": Effect(6, _SPELL, (Param("pick", "discard_pick"),),
                            "discard an ongoing Power card in front of the Monster, chosen by pick (Distract)"),
    "market_discount": Effect(7, _SPELL, (_i("coins", 1, 5), _i("floor", 0, 5)),
                              "Market price - coins, not below floor (Gift of the Gab)"),
    "bridge_extra_movement": Effect(8, _SPELL, (_i("movements", 1, 3), _i("colours", 2, 6)),
                                    "crossing a bridge costs the Monster movements more; discarded when it "
                                    "eats villagers of colours different colours in a turn (Hydrophobia)"),
    "place_villager": Effect(9, _SPELL, (Param("pick", "villager_pick"),),
                             "a villager from the bag (chosen by pick) to the house the d20 names (Hypnotize)"),
    "eat_rolled_houses": Effect(10, _POWER, (_i("rolls", 1, 5), _i("curse", 0, 3)),
                                "roll the d20 rolls times, eat the villager in each house rolled; Curse + "
                                "curse if one was eaten (A Taste of Rural Life)"),
    "add_sheep": Effect(11, _POWER, (_i("per_pasture", 1, 5), Param("shortfall", "shortfall")),
                        "add per_pasture sheep to each pasture; short supply placed by shortfall "
                        "(An Extra Serving)"),
    "gain_energy": Effect(12, _POWER, (_i("energy", 1, 9),), "gain energy Energy (Courier Horse)"),
    "curse_if_eats_sheep": Effect(13, _POWER, (_i("sheep", 1, 3), _i("curse", 1, 3)),
                                  "this turn, Curse + curse if at least sheep sheep are eaten "
                                  "(Digestive Mutton Chop)"),
    "movement_energy_cost": Effect(14, _POWER, (_i("energy", 0, 2),),
                                   "an additional movement costs energy Energy, not 2 (Fast Food)"),
    "wizard_crossing_cost": Effect(15, _POWER, (_i("coins", 1, 5), Param("discard_on", "discard_on")),
                                   "the Wizard pays coins per district crossing; discarded by discard_on "
                                   "(Greedy Coachman)"),
    "extra_feeding_action": Effect(16, _POWER, (_i("actions", 1, 3),),
                                   "actions more Feeding actions this turn (Midnight Snack)"),
    "leap": Effect(17, _POWER, (Param("target", "target"),),
                   "move to a location chosen by target, not along roads (Monstrous Leap)"),
    "ignore_town_guards": Effect(18, _POWER, (), "this turn no Town Guard tile is revealed (New Moon)"),
    "gain_curse": Effect(19, _POWER, (_i("curse", 1, 3),), "Curse + curse (Noble Blood)"),
    "extra_rabid_card": Effect(20, _POWER, (_i("cards", 1, 3),),
                               "draw cards more Rabid Monster cards for this turn's actions (On the Scent)"),
    "wizard_gains_coins": Effect(21, _PW, (_i("coins", 1, 5),),
                                 "feeding effect: the Wizard gains coins coins (PW01, PW04, PW05)"),
    "monster_energy_less": Effect(22, _PW, (_i("energy", 1, 3),),
                                  "feeding effect: the Monster gains energy less Energy (PW02, PW03, PW06, PW07)"),
}
EFFECT_NAMES = tuple(EFFECTS)
assert all(e.code == i for i, e in enumerate(EFFECTS.values()))
#: ``automaton_effect = "same"``: the automaton applies the card's own text.
SAME = "same"

#: Wizard actions on automaton cards. Rabid Monster cards name the four actions of the Wizard's turn;
#: Possessed Wizard cards name the card actions of "Possessed Wizard Card Actions" (and
#: ``buy_adjacent_district``, printed on PW05 though no such action is defined: docs).
RM_ACTIONS = ("cast_spell", "steal", "buy_ingredients", "mix_cure")
PW_ACTIONS = ("cast_spell", "mix_cure", "steal_current_district", "steal_adjacent_district",
              "buy_any_district", "buy_current_district", "buy_adjacent_district")
ACTIONS = {"rabid_monster": RM_ACTIONS, "possessed_wizard": PW_ACTIONS}

#: Fields a card may list in ``reconstructed``.
RECONSTRUCTABLE = ("modes", "red_icon", "kind", "placement", "coins", "requirements", "effect", "text",
                   "actions", "villager")

# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class Requirements:
    """What playing the card needs (rulebook, Cast Spell and Power Cards)."""

    location: str = ""
    ingredients: tuple[str, ...] = ()
    stomach: tuple[str, ...] = ()
    panic: int = 0
    energy: int = 0


@dataclass(frozen=True)
class Card:
    """One card. ``params`` and ``automaton_params`` are (name, value) pairs in the effect's order, the
    values as ints (ingredients as INGREDIENTS indices, picks as PICKS indices)."""

    id: str
    name: str
    deck: str
    modes: tuple[str, ...]
    red_icon: bool
    kind: str
    placement: str
    coins: int
    requirements: Requirements
    effect: str
    params: tuple[tuple[str, int], ...]
    automaton_effect: str
    automaton_params: tuple[tuple[str, int], ...]
    text: str
    automaton_text: str = ""
    action_text: str = ""
    actions: tuple[str, ...] = ()
    villager: str = ""
    reconstructed: tuple[str, ...] = ()
    blank: bool = False

    def param(self, name: str, automaton: bool = False) -> int:
        """The value of parameter ``name`` of the card's effect (or of the automaton's)."""
        pairs = self.automaton_params if automaton and self.automaton_effect != SAME else self.params
        return dict(pairs)[name]


@dataclass(frozen=True)
class Cards(Digested):
    """A validated cards file: ``name``, ``reconstructed`` flag, the cards in file order; ``digest`` and
    ``label`` (``name@digest``, the frames' ``cards`` column) cover every field of every card."""

    SCHEMA = SCHEMA
    name: str
    reconstructed: bool
    cards: tuple[Card, ...]
    source: str = ""

    def content(self) -> dict:
        rows = []
        for c in self.cards:
            row = {k: v for k, v in c.__dict__.items() if k != "requirements"}
            row["requirements"] = c.requirements.__dict__
            rows.append(row)
        return {"cards": rows}

    def as_data(self) -> dict:
        """The cards as the file's keys (ints back to names): ``parse_cards(json.dumps(c.as_data()),
        json_format=True)`` gives Cards with the same digest."""
        rows = []
        for c in self.cards:
            if c.blank:
                continue
            row = {"id": c.id, "name": c.name, "deck": c.deck, "modes": list(c.modes), "red_icon": c.red_icon,
                   "kind": c.kind, "placement": c.placement, "coins": c.coins,
                   "need_location": c.requirements.location, "need_ingredients": list(c.requirements.ingredients),
                   "need_stomach": list(c.requirements.stomach), "need_panic": c.requirements.panic,
                   "need_energy": c.requirements.energy, "effect": c.effect,
                   "params": _named(c.effect, c.params), "text": c.text, "reconstructed": list(c.reconstructed)}
            if c.deck in ("spell", "power"):
                row.update(automaton_effect=c.automaton_effect, automaton_params=_named(c.automaton_effect,
                                                                                        c.automaton_params),
                           automaton_text=c.automaton_text)
            else:
                row.update(action_text=c.action_text, actions=list(c.actions), villager=c.villager)
            rows.append(row)
        return {"schema": SCHEMA, "name": self.name, "reconstructed": self.reconstructed, "card": rows}

    def by_id(self, card_id: str) -> Card:
        for c in self.cards:
            if c.id == card_id:
                return c
        raise CardsError(f"no card {card_id!r}; ids: {', '.join(c.id for c in self.cards)}")

    def listed(self, deck: str) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if c.deck == deck)

    def deck_for(self, mode: str, *, unlisted: str = "placeholder", sizes: dict[str, int] | None = None,
                 pw_actions: str = "printed_counts", power_requirements: str = "as_file"
                 ) -> dict[str, tuple[Card, ...]]:
        """The decks a mode uses, by deck name, each card once in file order.

        Spell deck: the cards with the icon of the mode's Wizard side; Power deck: the icon of its Monster
        side (Setup 10-11, solo setups 9-10). A card with the red icon leaves the Spell deck when the
        Monster is a Rabid Monster and the Power deck when the Wizard is a Possessed Wizard (the solo
        setups return "all cards with the [red icon]" exactly in those decks). The Possessed Wizard deck
        is used when the Wizard is one, the Rabid Monster deck when the Monster is one.

        ``unlisted`` (rule option ``unlisted_cards``): "placeholder" first fills each deck of the file up to
        its printed size (24, 24, 12, 12) with ``placeholder_card``s (``pw_actions``: what the Possessed
        Wizard ones show), then selects the mode's cards as above; "omit" gives the listed cards only;
        "blank" and "copies" pad each mode deck to its target size with blank cards or with copies of its
        listed cards (blank cards when the mode uses none of the deck's listed cards).
        The target of "blank" and "copies" is the printed size times the share of the listed cards of that
        deck the mode uses (rounded); of "placeholder" the printed size less the cards without the mode's
        icon; ``sizes[deck]`` when given (rule options ``spell_deck_size`` etc., 0 = that default) replaces
        it ("placeholder" pads or cuts placeholders only); a target is at least the listed count and at
        most 60. ``power_requirements`` "none" removes every requirement from the Power cards.
        """
        if mode not in MODES:
            raise CardsError(f"unknown mode {mode!r}; valid modes: {', '.join(MODES)}")
        if unlisted not in UNLISTED:
            raise CardsError(f"unknown unlisted_cards {unlisted!r}; valid values: {', '.join(UNLISTED)}")
        if pw_actions not in PW_UNLISTED_ACTIONS:
            raise CardsError(f"unknown pw_unlisted_actions {pw_actions!r}; valid values: "
                             f"{', '.join(PW_UNLISTED_ACTIONS)}")
        if power_requirements not in POWER_REQUIREMENTS:
            raise CardsError(f"unknown power_requirements {power_requirements!r}; valid values: "
                             f"{', '.join(POWER_REQUIREMENTS)}")
        sizes = dict(sizes or {})
        for deck, size in sizes.items():
            if deck not in DECKS:
                raise CardsError(f"unknown deck {deck!r} in sizes; valid decks: {', '.join(DECKS)}")
            if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_DECK:
                raise CardsError(f"deck size for {deck!r} must be an integer in 0..{MAX_DECK} "
                                 f"(0 = the default size), got {size!r}")
        m = MODES[mode]
        wanted = {"spell": (m.wizard, m.monster == "rabid_monster"),
                  "power": (m.monster, m.wizard == "possessed_wizard")}
        if m.wizard == "possessed_wizard":
            wanted["possessed_wizard"] = ("possessed_wizard", False)
        if m.monster == "rabid_monster":
            wanted["rabid_monster"] = ("rabid_monster", False)
        decks = {}
        for deck, (icon, drop_red) in wanted.items():
            listed = self.listed(deck)
            if power_requirements == "none" and deck == "power":
                listed = tuple(replace(c, requirements=Requirements()) for c in listed)
            used = tuple(c for c in listed if icon in c.modes and not (drop_red and c.red_icon))
            if unlisted == "omit":
                decks[deck] = used
                continue
            if unlisted == "placeholder":
                pads = tuple(c for c in self.placeholders(deck, pw_actions) if icon in c.modes)
                target = sizes.get(deck, 0) or len(used) + len(pads)
            else:
                target = sizes.get(deck, 0) or (round(PRINTED_SIZE[deck] * len(used) / len(listed)) if listed else 0)
            if target < len(used):
                raise CardsError(f"deck size {target} for {deck!r} in mode {mode!r} is below its "
                                 f"{len(used)} listed cards")
            extra = target - len(used)
            if unlisted == "placeholder":
                more = self.placeholders(deck, pw_actions, at_least=extra)
                pad = tuple(c for c in more if icon in c.modes)[:extra]
            elif unlisted == "blank" or not used:
                pad = tuple(_blank(deck, icon, k) for k in range(extra))
            else:
                pad = tuple(used[k % len(used)] for k in range(extra))
            decks[deck] = used + pad
        return decks

    def placeholders(self, deck: str, pw_actions: str = "printed_counts", at_least: int = 0
                     ) -> tuple[Card, ...]:
        """The placeholder cards that fill ``deck`` of this file up to its printed size (at least
        ``at_least`` of them), numbered after the file's ids (``placeholder_card``)."""
        listed = self.listed(deck)
        count = max(PRINTED_SIZE[deck] - len(listed), at_least)
        used_ids = {c.id for c in listed}
        prefix = ID_PATTERN[deck][:-4]
        ids = [i for i in (f"{prefix}{k:02d}" for k in range(1, 100)) if i not in used_ids][:count]
        actions: list[str] = []
        if deck == "possessed_wizard" and pw_actions == "printed_counts":
            held = [COUNTS_AS.get(c.actions[0], c.actions[0]) for c in listed if c.actions]
            for action, printed in PRINTED_PW_ACTIONS:
                actions += [action] * max(0, printed - held.count(action))
        return tuple(placeholder_card(deck, card_id, actions[k] if k < len(actions) else "")
                     for k, card_id in enumerate(ids))


MAX_DECK = 60


def _named(effect: str, pairs: tuple[tuple[str, int], ...]) -> dict:
    """Parameter ints back to the names a file uses."""
    if effect == SAME:
        return {}
    kinds = {p.name: p.kind for p in EFFECTS[effect].params}
    return {name: value if kinds[name] == "int" else
            (INGREDIENTS if kinds[name] == "ingredient" else PICKS[kinds[name]])[value] for name, value in pairs}


def _blank(deck: str, icon: str, k: int) -> Card:
    """The k-th blank card of a padded deck: no requirement, no effect, no coins."""
    return Card(id=f"{deck[:2].upper()}-blank-{k + 1:02d}", name="blank", deck=deck, modes=(icon,),
                red_icon=False, kind="immediate", placement="", coins=0, requirements=Requirements(),
                effect="none", params=(), automaton_effect=SAME, automaton_params=(), text="",
                reconstructed=("text", "effect"), blank=True)


#: A placeholder's icons: every icon of its deck (the unlisted cards' icons are not printed in our text).
PLACEHOLDER_ICONS = {"spell": ("wizard", "possessed_wizard"), "power": ("monster", "rabid_monster"),
                     "possessed_wizard": ("possessed_wizard",), "rabid_monster": ("rabid_monster",)}
#: Coins a placeholder Spell gives: the reconstructed coins of every listed Spell (C4).
PLACEHOLDER_COINS = 1


@lru_cache(maxsize=1024)
def placeholder_card(deck: str, card_id: str, action: str = "") -> Card:
    """A labelled, playable, neutral stand-in for an unlisted card (docs/rules/village_cards.md, C21):
    a Spell with no requirement and no effect that gives PLACEHOLDER_COINS coins; a Power with no
    requirement and no effect; a Possessed Wizard card with ``action`` (or none: the action is skipped) and
    no villager (no feeding effect); a Rabid Monster card offering any of the four Wizard actions and no
    villager to hunt. One object per (deck, id, action), as a file's cards are one object each."""
    actions: tuple[str, ...] = ()
    action_text = ""
    if deck == "possessed_wizard":
        actions = (action,) if action else ()
        action_text = action.replace("_", " ").capitalize() if action else "(no action)"
    elif deck == "rabid_monster":
        actions = RM_ACTIONS
        action_text = "any action"
    return Card(id=card_id, name=f"Placeholder {card_id}", deck=deck, modes=PLACEHOLDER_ICONS[deck],
                red_icon=False, kind="immediate", placement="", coins=PLACEHOLDER_COINS if deck == "spell" else 0,
                requirements=Requirements(), effect="none", params=(), automaton_effect=SAME, automaton_params=(),
                text="(placeholder: an unlisted card)", action_text=action_text, actions=actions,
                reconstructed=RECONSTRUCTABLE, blank=True)


class CardsError(OptionError):
    """A cards file that cannot be read or breaks the schema; the message names field and line."""


# ---------------------------------------------------------------- loading and validation

TOP_KEYS = ("schema", "name", "reconstructed", "description", "card")
REQUIRED_TOP = ("schema", "name", "card")
CARD_KEYS = ("id", "name", "deck", "modes", "red_icon", "kind", "placement", "coins", "need_location",
             "need_ingredients", "need_stomach", "need_panic", "need_energy", "effect", "params",
             "automaton_effect", "automaton_params", "text", "automaton_text", "action_text", "actions",
             "villager", "reconstructed", "note")
REQUIRED_CARD = ("id", "name", "deck", "modes", "kind", "effect", "text")
#: Deck -> the id pattern its cards follow.
ID_PATTERN = {"spell": r"S\d\d", "power": r"P\d\d", "possessed_wizard": r"PW\d\d", "rabid_monster": r"RM\d\d"}
MAX_PANIC = 3
MAX_ENERGY = 9
MAX_COINS = 25


def load_cards(path: str | Path | None = None) -> Cards:
    """The cards in ``path`` (``.toml`` or ``.json``), validated; the default file when None."""
    return CARDS_FILE.load(path)


def parse_cards(text: str, *, json_format: bool = False, source: str = "<cards>") -> Cards:
    """Cards from the text of a TOML (or JSON) file; raises CardsError naming field and line."""
    return CARDS_FILE.parse(text, json_format=json_format, source=source)


def cards_of(cards: str = "default") -> Cards:
    """The Cards of a ``cards`` option ("default" or a path). Loaded once per process and file version
    (``DataFormat.of``)."""
    return CARDS_FILE.of(cards)


def deck_for(mode: str, *, unlisted: str = "placeholder", sizes: dict[str, int] | None = None,
             path: str | Path | None = None, **kwargs) -> dict[str, tuple[Card, ...]]:
    """The decks ``mode`` uses, from the cards file ``path`` (the default file when None): see
    ``Cards.deck_for`` (its defaults are the rule options' defaults)."""
    return load_cards(path).deck_for(mode, unlisted=unlisted, sizes=sizes, **kwargs)


def validate(data: object, lines: Lines, source: str) -> Cards:
    """The Cards ``data`` describes, or a CardsError on its first fault (top level first, then each card)."""
    return CARDS_FILE.validate(data, lines, source)


def _build(data: dict, lines: Lines, source: str, name: str, reconstructed: bool) -> Cards:
    cards = tuple(_card(raw, i, lines, source) for i, raw in enumerate(data["card"]))
    seen: dict[tuple[str, str], int] = {}
    for i, card in enumerate(cards):
        for key in ("id", "name"):
            value = getattr(card, key)
            if (key, value) in seen:
                raise CARDS_FILE.fail(source, lines.entry("card", i, key), f"card {i + 1} field {key!r}",
                                      f"duplicate {key} {value!r} (also card {seen[key, value] + 1})")
            seen[key, value] = i
    for deck in DECKS:
        n = sum(c.deck == deck for c in cards)
        if n > PRINTED_SIZE[deck]:
            last = max(i for i, c in enumerate(cards) if c.deck == deck)
            raise CARDS_FILE.fail(source, lines.entry("card", last, "deck"), f"deck {deck!r}",
                                  f"{n} cards; the game has {PRINTED_SIZE[deck]}")
    return Cards(name=name, reconstructed=reconstructed, cards=cards, source=source)


def _card(raw: object, i: int, lines: Lines, source: str) -> Card:
    """One validated card (the i-th, 0-based)."""
    fields = CARDS_FILE.entry(lines, source, "card", i, raw, CARD_KEYS, REQUIRED_CARD)
    bad = fields.bad

    def string(key: str, default: str | None = None, choices: tuple[str, ...] | None = None) -> str:
        v = raw.get(key, default)
        if not isinstance(v, str):
            raise bad(key, f"must be a string, got {v!r}")
        if choices is not None and v not in choices:
            raise bad(key, f"unknown value {v!r}; valid values: {', '.join(repr(c) for c in choices)}")
        return v

    def names(key: str, choices: tuple[str, ...], unique: bool = True) -> tuple[str, ...]:
        v = raw.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise bad(key, f"must be a list of names from: {', '.join(choices)}; got {v!r}")
        for x in v:
            if x not in choices:
                raise bad(key, f"unknown value {x!r}; valid values: {', '.join(choices)}")
        if unique and len(set(v)) != len(v):
            raise bad(key, f"lists a value twice: {v!r}")
        return tuple(v)

    def integer(key: str, low: int, high: int) -> int:
        v = raw.get(key, 0)
        if not is_int(v):
            raise bad(key, f"must be an integer, got {v!r}")
        if not low <= v <= high:
            raise bad(key, f"must be in {low}..{high}, got {v}")
        return v

    deck = string("deck", choices=DECKS)
    card_id = string("id")
    if not re.fullmatch(ID_PATTERN[deck], card_id):
        raise bad("id", f"a {deck} card id looks like {ID_PATTERN[deck].replace(chr(92) + 'd', '9')}, "
                        f"got {card_id!r}")
    name = string("name").strip()
    if not name:
        raise bad("name", "must be a non-empty string")
    modes = names("modes", ICONS)
    if not modes:
        raise bad("modes", f"must list at least one icon from: {', '.join(ICONS)}")
    own = {"spell": ("wizard", "possessed_wizard"), "power": ("monster", "rabid_monster"),
           "possessed_wizard": ("possessed_wizard",), "rabid_monster": ("rabid_monster",)}[deck]
    for icon in modes:
        if icon not in own:
            raise bad("modes", f"a {deck} card carries icons from: {', '.join(own)}; got {icon!r}")
    red = raw.get("red_icon", False)
    if not isinstance(red, bool):
        raise bad("red_icon", f"must be true or false, got {red!r}")
    kinds = KINDS if deck == "power" else KINDS[:2]
    kind = string("kind", choices=kinds)
    placement = string("placement", "", PLACEMENTS)
    if kind == "immediate" and placement:
        raise bad("placement", f"an immediate card lies nowhere: placement must be \"\", got {placement!r}")
    if kind != "immediate" and not placement:
        raise bad("placement", f"a card of kind {kind!r} lies in front of a player; valid values: 'wizard', "
                              f"'monster'")
    coins = integer("coins", 0, MAX_COINS if deck == "spell" else 0)
    req = Requirements(location=string("need_location", ""),
                       ingredients=names("need_ingredients", INGREDIENTS, unique=False),
                       stomach=names("need_stomach", STOMACH, unique=False),
                       panic=integer("need_panic", 0, MAX_PANIC), energy=integer("need_energy", 0, MAX_ENERGY))
    if deck != "spell" and req.ingredients:
        raise bad("need_ingredients", "only Spell cards spend ingredients")
    if deck != "power" and (req.stomach or req.panic or req.energy):
        key = "need_stomach" if req.stomach else "need_panic" if req.panic else "need_energy"
        raise bad(key, "only Power cards need stomach contents, Panic or Energy")
    if deck not in ("spell", "power") and req.location:
        raise bad("need_location", "only Spell and Power cards need a location")
    effect, params = _effect(raw, "effect", "params", deck, bad, allow_same=False)
    if deck in ("spell", "power"):
        aeffect, aparams = _effect(raw, "automaton_effect", "automaton_params", deck, bad, allow_same=True)
    else:
        for key in ("automaton_effect", "automaton_params", "automaton_text"):
            if key in raw:
                raise bad(key, "only Spell and Power cards have an automaton text")
        aeffect, aparams = SAME, ()
    text = string("text")
    atext = string("automaton_text", "")
    if aeffect != SAME and not atext:
        raise bad("automaton_text", f"automaton_effect {aeffect!r} needs the automaton's text quoted")
    action_text, actions, villager = "", (), ""
    if deck in ACTIONS:
        for key in ("action_text", "actions", "villager"):
            if key not in raw:
                raise fields.missing(key, f"missing (a {deck} card needs it)")
        action_text = string("action_text")
        actions = names("actions", ACTIONS[deck])
        if not actions:
            raise bad("actions", f"must name at least one action from: {', '.join(ACTIONS[deck])}")
        villager = string("villager", choices=VILLAGERS)
    else:
        for key in ("action_text", "actions", "villager"):
            if key in raw:
                raise bad(key, "only Possessed Wizard and Rabid Monster cards name actions and a villager")
    rec = names("reconstructed", RECONSTRUCTABLE)
    if "note" in raw and not isinstance(raw["note"], str):
        raise bad("note", f"must be a string, got {raw['note']!r}")
    return Card(id=card_id, name=name, deck=deck, modes=modes, red_icon=red, kind=kind, placement=placement,
                coins=coins, requirements=req, effect=effect, params=params, automaton_effect=aeffect,
                automaton_params=aparams, text=text, automaton_text=atext, action_text=action_text,
                actions=actions, villager=villager, reconstructed=rec)


def _effect(raw: dict, key: str, pkey: str, deck: str, bad, *, allow_same: bool):
    """(effect name, params) of ``raw[key]`` and ``raw[pkey]``, checked against EFFECTS."""
    effect = raw.get(key, SAME if allow_same else None)
    valid = [n for n, e in EFFECTS.items() if deck in e.decks]
    if allow_same:
        valid = [SAME] + valid
    if effect not in valid:
        raise bad(key, f"unknown effect {effect!r} for a {deck} card; valid effects: {', '.join(valid)}")
    given = raw.get(pkey, {})
    if not isinstance(given, dict):
        raise bad(pkey, f"must be a table of parameters, got {given!r}")
    if effect == SAME:
        if given:
            raise bad(pkey, f"{key} \"same\" takes no parameters")
        return SAME, ()
    spec = EFFECTS[effect]
    names = [p.name for p in spec.params]
    for name in given:
        if name not in names:
            raise bad(pkey, f"unknown parameter {name!r} of effect {effect!r}; its parameters: "
                            f"{', '.join(names) or 'none'}")
    out = []
    for p in spec.params:
        if p.name not in given:
            raise bad(pkey, f"effect {effect!r} needs parameter {p.name!r} (its parameters: {', '.join(names)})")
        v = given[p.name]
        if p.kind == "int":
            if isinstance(v, bool) or not isinstance(v, int) or not p.low <= v <= p.high:
                raise bad(pkey, f"parameter {p.name!r} of effect {effect!r} must be an integer in "
                                f"{p.low}..{p.high}, got {v!r}")
            out.append((p.name, v))
        else:
            choices = INGREDIENTS if p.kind == "ingredient" else PICKS[p.kind]
            if v not in choices:
                raise bad(pkey, f"parameter {p.name!r} of effect {effect!r}: unknown value {v!r}; valid "
                                f"values: {', '.join(choices)}")
            out.append((p.name, choices.index(v)))
    return effect, tuple(out)


CARDS_FILE: DataFormat[Cards] = DataFormat(
    noun="cards", top_label="cards file", error=CardsError, default=DEFAULT_CARDS, schema=SCHEMA,
    top_keys=TOP_KEYS, required_top=REQUIRED_TOP, arrays={"card": "cards"}, build=_build)
cards_of.cache_clear = CARDS_FILE.cache_clear   # type: ignore[attr-defined]


def effect_table(card: Card, automaton: bool = False) -> tuple[int, ...]:
    """The card's effect as ints for an engine: (code, parameter values...)."""
    name = card.automaton_effect if automaton and card.automaton_effect != SAME else card.effect
    pairs = card.automaton_params if automaton and card.automaton_effect != SAME else card.params
    return (EFFECTS[name].code,) + tuple(v for _, v in pairs)


__all__ = ["Card", "Cards", "CardsError", "DECKS", "EFFECTS", "ICONS", "MODES", "PRINTED_SIZE", "UNLISTED",
           "CARD_OPTIONS", "cards_of", "deck_for", "effect_table", "load_cards", "parse_cards"]
