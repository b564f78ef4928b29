"""So, You've Been Cursed. cards: every card the rulebook lists is in the cards file with its exact words,
the effect and parameters stored agree with a reading of those words, each mode gets the decks its setup
describes, padding follows the unlisted_cards option, and every kind of fault names field, line and the
valid choices."""

from __future__ import annotations

import json
import re

import pytest

from cursedsim.errors import CursedsimError
from cursedsim.games.village import cards as C
from cursedsim.games.village.cards import CardsError, load_cards, parse_cards

# ---------------------------------------------------------------- the rulebook's lists, copied by hand

#: "Spell Card Index": name -> (text, the [icon] text for the automaton or "").
SPELLS = {
    "A Village Feast": ("Remove one sheep from each pasture with sheep.", ""),
    "Box of Holding": ("You may store a fourth ingredient on this card. If this card is discarded you may move "
                       "an ingredient on it to an empty storage slot on the board. If there is no empty slot, "
                       "return the ingredient to the supply.", ""),
    "Butcher's Broth": ("Gain a Wolf Claw and a Wishbone.",
                        "If the next step on the Cure track requires a Wolf Claw or a Wishbone, Cure is increased "
                        "by 1. If the Wizard holds that ingredient, it is returned to the supply."),
    "Diplosis": ("Gain an amount of coins equal to the amount of coins you already have. NOTE: Coins are "
                 "limited to a value of 25.", ""),
    "Distract": ("Discard a permanent Power card from in front of the Monster.",
                 "Discard the leftmost permanent Power card from in front of the Monster."),
    "Forager's Feast": ("Gain a Mandrake Root and an Ash Twig.",
                        "If the next step on the Cure track requires a Mandrake Root or a Ash Twig, Cure is "
                        "increased by 1. If the Wizard holds that ingredient, it is returned to the supply."),
    "Gift of the Gab": ("The cost of buying ingredients from the Market is reduced by 1 coin (to a minimum cost "
                        "of 0 coins).", ""),
    "Hydrophobia": ("Place in front of the Monster. The Monster must spend an extra movement to cross a bridge. "
                    "This card is discarded if the Monster eats at least 2 villagers of different colors during "
                    "their turn.", ""),
    "Hypnotize": ("Choose a specific villager from the bag. Roll the 20-sided die and place it in the "
                  "corresponding house.",
                  "Draw a random villager from the bag. Roll the 20-sided die and place it in the corresponding "
                  "house."),
}
#: "Power Card Index".
POWERS = {
    "A Taste of Rural Life": ("Roll the 20-sided die twice. Eat any villager in the corresponding houses. If at "
                              "least 1 villager was eaten, Curse is increased by 1.", ""),
    "An Extra Serving": ("Add one sheep to each pasture. If there are not enough sheep in the supply, you may "
                         "choose which pastures to add the available sheep.",
                         "If there are not enough sheep in the supply, add them to the pasture(s) closest to the "
                         "Laboratory first."),
    "Courier Horse": ("Gain 3 Energy.", ""),
    "Digestive Mutton Chop": ("", "This turn, if the Rabid Monster eats at least one Sheep, Curse is increased "
                                  "by 1."),
    "Fast Food": ("Gaining an additional movement costs 1 Energy (instead of 2).", ""),
    "Greedy Coachman": ("Place in front of the Wizard. When moving between districts, the Wizard must spend 2 "
                        "coins (instead of 1). This card is discarded if the Wizard takes a Cast Spell action.", ""),
    "Midnight Snack": ("You have an additional Feeding action.", ""),
    "Monstrous Leap": ("Move to any location.",
                       "Roll the 20-sided die and move the Rabid Monster to the corresponding house."),
    "New Moon": ("This turn, you may cross districts without causing any Guard tiles to be revealed.", ""),
    "Noble Blood": ("Curse is increased by 1.", ""),
    "On the Scent": ("", "Draw an additional Rabid Monster card and add it to the ones that will determine the "
                         "Monster's actions for this turn."),
}
#: "Possessed Wizard Cards": id -> (Wizard Action, Villager Eaten & Feeding Effect).
POSSESSED = {
    "PW01": ("Cast Spell", "Farmer (Green): The Wizard gains 1 Coin"),
    "PW02": ("Steal from adjacent district", "Hunter (Black): The Monster gains 1 less Energy"),
    "PW03": ("Steal from current district", "Woodcutter (Brown): The Monster gains 1 less Energy"),
    "PW04": ("Buy Ingredient", "Farmer (Green): The Wizard gains 2 Coins"),
    "PW05": ("Buy Ingredient from adjacent district", "Hunter (Black): The Wizard gains 2 Coins"),
    "PW06": ("Steal from current district", "Butcher (White): The Monster gains 1 less Energy"),
    "PW07": ("Buy Ingredient from current district", "Farmer (Green): The Monster gains 1 less Energy"),
}
#: "Rabid Monster Cards": id -> (Wizard Action, Villager to Eat).
RABID = {
    "RM01": ("Cast Spell", "Farmer (Green)"),
    "RM02": ("Cast Spell / Steal", "Hunter (Black)"),
    "RM03": ("Cast Spell / Mix Cure", "Woodcutter (Brown)"),
    "RM04": ("Buy Ingredient", "Farmer (Green)"),
    "RM05": ("Buy Ingredient", "Hunter (Black)"),
    "RM06": ("Buy Ingredient / Mix Cure", "Butcher (White)"),
    "RM07": ("Buy Ingredient / Steal", "Farmer (Green)"),
    "RM08": ("Cast Spell / Mix Cure", "Hunter (Black)"),
}

# ---------------------------------------------------------------- a reader of the printed words

_ING = "(Mandrake Root|Wolf Claw|Ash Twig|Wishbone|Gold Dust|Silk Thread)"
_WORD = {"one": 1, "a": 1, "an": 1, "additional": 1, "extra": 1, "fourth": 1, "twice": 2}


def _n(s: str) -> int:
    return int(s) if s.isdigit() else _WORD[s]


#: (pattern, effect, params from the match); read in order, the first match wins.
READINGS = [
    (r"^$", "none", lambda m: {}),
    (r"^Remove (one) sheep from each pasture", "remove_sheep", lambda m: {"per_pasture": _n(m[1])}),
    (r"store a (fourth) ingredient on this card", "extra_ingredient_slot", lambda m: {"slots": _n(m[1])}),
    (rf"^Gain an? {_ING} and an? {_ING}\.$", "gain_ingredients", lambda m: {"first": m[1], "second": m[2]}),
    (rf"requires an? {_ING} or an? {_ING}, Cure is increased by (\d)", "cure_if_next",
     lambda m: {"first": m[1], "second": m[2], "steps": int(m[3])}),
    (r"equal to the amount of coins you already have\. NOTE: Coins are limited to a value of (\d+)\.",
     "double_coins", lambda m: {"cap": int(m[1])}),
    (r"^Discard (a|the leftmost) permanent Power card", "discard_power",
     lambda m: {"pick": "choice" if m[1] == "a" else "leftmost"}),
    (r"from the Market is reduced by (\d) coin \(to a minimum cost of (\d) coins\)", "market_discount",
     lambda m: {"coins": int(m[1]), "floor": int(m[2])}),
    (r"must spend an (extra) movement to cross a bridge\. .* at least (\d) villagers of different colors",
     "bridge_extra_movement", lambda m: {"movements": _n(m[1]), "colours": int(m[2])}),
    (r"^(Choose a specific|Draw a random) villager from the bag\. Roll the 20-sided die", "place_villager",
     lambda m: {"pick": "choice" if m[1].startswith("Choose") else "random"}),
    (r"^Roll the 20-sided die (twice)\. Eat any villager .* Curse is increased by (\d)", "eat_rolled_houses",
     lambda m: {"rolls": _n(m[1]), "curse": int(m[2])}),
    (r"^Add (one) sheep to each pasture\. .* you may choose", "add_sheep",
     lambda m: {"per_pasture": _n(m[1]), "shortfall": "choice"}),
    (r"^If there are not enough sheep .* closest to the Laboratory first", "add_sheep",
     lambda m: {"shortfall": "closest_to_laboratory"}),
    (r"^Gain (\d) Energy\.$", "gain_energy", lambda m: {"energy": int(m[1])}),
    (r"if the Rabid Monster eats at least (one) Sheep, Curse is increased by (\d)", "curse_if_eats_sheep",
     lambda m: {"sheep": _n(m[1]), "curse": int(m[2])}),
    (r"additional movement costs (\d) Energy \(instead of 2\)", "movement_energy_cost",
     lambda m: {"energy": int(m[1])}),
    (r"the Wizard must spend (\d) coins \(instead of 1\)\. This card is discarded if the Wizard takes a "
     r"(Cast Spell) action", "wizard_crossing_cost", lambda m: {"coins": int(m[1]), "discard_on": "cast_spell"}),
    (r"^You have an (additional) Feeding action\.$", "extra_feeding_action", lambda m: {"actions": _n(m[1])}),
    (r"^Move to any location\.$", "leap", lambda m: {"target": "choice"}),
    (r"^Roll the 20-sided die and move the Rabid Monster to the corresponding house", "leap",
     lambda m: {"target": "d20_house"}),
    (r"without causing any Guard tiles to be revealed", "ignore_town_guards", lambda m: {}),
    (r"^Curse is increased by (\d)\.$", "gain_curse", lambda m: {"curse": int(m[1])}),
    (r"^Draw an (additional) Rabid Monster card", "extra_rabid_card", lambda m: {"cards": _n(m[1])}),
    (r"The Wizard gains (\d) Coins?$", "wizard_gains_coins", lambda m: {"coins": int(m[1])}),
    (r"The Monster gains (\d) less Energy$", "monster_energy_less", lambda m: {"energy": int(m[1])}),
]


def read(text: str) -> tuple[str, dict]:
    for pattern, effect, params in READINGS:
        m = re.search(pattern, text)
        if m:
            return effect, params(m)
    raise AssertionError(f"no reading of {text!r}")


def decoded(card: C.Card, automaton: bool = False) -> tuple[str, dict]:
    """The card's stored effect with its parameters named (ints decoded to their names)."""
    if automaton and card.automaton_effect != C.SAME:
        effect, pairs = card.automaton_effect, card.automaton_params
    else:
        effect, pairs = card.effect, card.params
    kinds = {p.name: p.kind for p in C.EFFECTS[effect].params}
    out = {}
    for name, value in pairs:
        kind = kinds[name]
        out[name] = value if kind == "int" else (C.INGREDIENTS if kind == "ingredient" else C.PICKS[kind])[value]
    return effect, out


@pytest.fixture(scope="module")
def cards() -> C.Cards:
    return load_cards()


# ---------------------------------------------------------------- every listed card, exactly


def test_every_listed_card_is_present_and_nothing_else(cards):
    assert {c.name: c.deck for c in cards.cards if c.deck == "spell"}.keys() == SPELLS.keys()
    assert {c.name for c in cards.listed("power")} == set(POWERS)
    assert {c.id for c in cards.listed("possessed_wizard")} == set(POSSESSED)
    assert {c.id for c in cards.listed("rabid_monster")} == set(RABID)
    assert len(cards.cards) == 9 + 11 + 7 + 8


@pytest.mark.parametrize("name", list(SPELLS) + list(POWERS))
def test_spell_and_power_texts_are_quoted_exactly(cards, name):
    card = next(c for c in cards.cards if c.name == name)
    text, automaton_text = SPELLS.get(name) or POWERS[name]
    assert (card.text, card.automaton_text) == (text, automaton_text)
    assert card.deck == ("spell" if name in SPELLS else "power")


@pytest.mark.parametrize("card_id", list(POSSESSED) + list(RABID))
def test_automaton_card_texts_are_quoted_exactly(cards, card_id):
    card = cards.by_id(card_id)
    assert (card.action_text, card.text) == (POSSESSED.get(card_id) or RABID[card_id])


@pytest.mark.parametrize("name", list(SPELLS) + list(POWERS))
def test_stored_effect_is_what_the_quoted_text_says(cards, name):
    card = next(c for c in cards.cards if c.name == name)
    assert decoded(card) == read(card.text)
    if card.automaton_text:
        effect, params = read(card.automaton_text)
        base_effect, base = read(card.text)
        if effect == base_effect:     # the [icon] text only changes part of the card's own text
            params = {**base, **params}
        assert decoded(card, automaton=True) == (effect, params)
    else:
        assert card.automaton_effect == C.SAME


@pytest.mark.parametrize("card_id", list(POSSESSED))
def test_possessed_wizard_cards_read_from_their_row(cards, card_id):
    card = cards.by_id(card_id)
    action, feeding = POSSESSED[card_id]
    assert card.villager == feeding.split(" (")[0]
    assert decoded(card) == read(feeding)
    expected = {"Cast Spell": "cast_spell", "Steal from adjacent district": "steal_adjacent_district",
                "Steal from current district": "steal_current_district", "Buy Ingredient": "buy_any_district",
                "Buy Ingredient from adjacent district": "buy_adjacent_district",
                "Buy Ingredient from current district": "buy_current_district"}[action]
    assert card.actions == (expected,)


@pytest.mark.parametrize("card_id", list(RABID))
def test_rabid_monster_cards_read_from_their_row(cards, card_id):
    card = cards.by_id(card_id)
    action, villager = RABID[card_id]
    names = {"Cast Spell": "cast_spell", "Steal": "steal", "Mix Cure": "mix_cure", "Buy Ingredient": "buy_ingredients"}
    assert card.actions == tuple(names[a] for a in action.split(" / "))
    assert card.villager == villager.split(" (")[0]
    assert card.effect == "none"


def test_the_vocabulary_is_no_bigger_than_the_listed_cards_need(cards):
    used = {c.effect for c in cards.cards} | {c.automaton_effect for c in cards.cards}
    assert set(C.EFFECT_NAMES) <= used


def test_reconstructed_fields_are_labelled(cards):
    assert cards.reconstructed
    for card in cards.listed("spell"):
        assert {"modes", "red_icon", "kind", "coins", "requirements"} <= set(card.reconstructed), card.name
    for card in cards.listed("power"):
        assert {"modes", "red_icon", "kind", "requirements"} <= set(card.reconstructed), card.name
    for card in cards.listed("possessed_wizard") + cards.listed("rabid_monster"):
        assert card.reconstructed == (), card.id


def test_defaults_documented_for_the_listed_cards(cards):
    """The choices docs/rules/village_cards.md defends: 1 coin, no Spell requirement, one Power requirement of
    each kind the rulebook names (C5), these kinds and places."""
    assert {c.coins for c in cards.listed("spell")} == {1}
    assert all(c.requirements == C.Requirements() for c in cards.cards if c.deck != "power")
    needs = {c.name: c.requirements for c in cards.listed("power") if c.requirements != C.Requirements()}
    assert needs == {"Courier Horse": C.Requirements(location="market"),
                     "Midnight Snack": C.Requirements(panic=1), "Monstrous Leap": C.Requirements(energy=2),
                     "Noble Blood": C.Requirements(stomach=("Noble",))}
    kinds = {c.name: (c.kind, c.placement) for c in cards.cards if c.kind != "immediate"}
    assert kinds == {"Box of Holding": ("ongoing", "wizard"), "Gift of the Gab": ("ongoing", "wizard"),
                     "Hydrophobia": ("ongoing", "monster"), "Fast Food": ("ongoing", "monster"),
                     "Greedy Coachman": ("ongoing", "wizard"), "Midnight Snack": ("single_use", "monster"),
                     "Monstrous Leap": ("single_use", "monster")}
    # "Place in front of the Monster." / "Place in front of the Wizard." as printed.
    for card in cards.cards:
        m = re.match(r"Place in front of the (Monster|Wizard)\.", card.text)
        if m:
            assert card.placement == m[1].lower()


def test_names_agree_with_the_components_and_rules_modules():
    from cursedsim.games.village import components, rules
    assert C.INGREDIENTS == components.INGREDIENTS
    assert C.VILLAGERS == components.VILLAGER_NAMES
    assert tuple(C.MODES) == rules.MODE_NAMES
    for code, mode in C.MODES.items():
        assert (mode.wizard == "possessed_wizard", mode.monster == "rabid_monster") == \
            (rules.MODES[code].wizard_automaton, rules.MODES[code].monster_automaton)


def test_effect_table_gives_codes_and_int_parameters(cards):
    broth = cards.by_id("S03")
    assert C.effect_table(broth) == (C.EFFECTS["gain_ingredients"].code, C.INGREDIENTS.index("Wolf Claw"),
                                     C.INGREDIENTS.index("Wishbone"))
    assert C.effect_table(broth, automaton=True)[0] == C.EFFECTS["cure_if_next"].code
    assert C.effect_table(cards.by_id("S01"), automaton=True) == C.effect_table(cards.by_id("S01"))


# ---------------------------------------------------------------- decks by mode

SPELL_ALL = tuple(f"S0{i}" for i in range(1, 10))
POWER_MONSTER = ("P01", "P02", "P03", "P05", "P06", "P07", "P08", "P09", "P10")
POWER_RABID = ("P01", "P02", "P04", "P06", "P08", "P10", "P11")
SPELL_POSSESSED = ("S01", "S03", "S04", "S05", "S06", "S08", "S09")
PW = tuple(POSSESSED)
RM = tuple(RABID)
DECKS = {
    "duel": {"spell": SPELL_ALL, "power": POWER_MONSTER},
    "rabid_monster": {"spell": tuple(s for s in SPELL_ALL if s != "S08"), "power": POWER_RABID,
                      "rabid_monster": RM},
    "possessed_wizard": {"spell": SPELL_POSSESSED, "power": POWER_MONSTER, "possessed_wizard": PW},
    "automata": {"spell": tuple(s for s in SPELL_POSSESSED if s != "S08"), "power": POWER_RABID,
                 "possessed_wizard": PW, "rabid_monster": RM},
}


@pytest.mark.parametrize("mode", list(DECKS))
def test_each_mode_gets_its_decks(cards, mode):
    decks = cards.deck_for(mode, unlisted="omit")
    assert {deck: tuple(c.id for c in chosen) for deck, chosen in decks.items()} == DECKS[mode]


def test_module_deck_for_reads_the_default_file():
    assert [c.id for c in C.deck_for("duel", unlisted="omit")["spell"]] == list(SPELL_ALL)
    assert [c.id for c in C.deck_for("duel")["spell"][:9]] == list(SPELL_ALL)   # then the placeholders


SYNTH = """\
schema = 1
name = "synthetic"

[[card]]
id = "S01"
name = "Both red"
deck = "spell"
modes = ["wizard", "possessed_wizard"]
red_icon = true
kind = "immediate"
effect = "remove_sheep"
params = { per_pasture = 1 }
text = "x"

[[card]]
id = "S02"
name = "Wizard only"
deck = "spell"
modes = ["wizard"]
kind = "immediate"
effect = "remove_sheep"
params = { per_pasture = 2 }
text = "y"

[[card]]
id = "P01"
name = "Red power"
deck = "power"
modes = ["monster", "rabid_monster"]
red_icon = true
kind = "immediate"
effect = "gain_curse"
params = { curse = 1 }
text = "z"
"""


def test_red_icon_leaves_exactly_the_decks_facing_an_automaton():
    cards = parse_cards(SYNTH)
    ids = {m: {d: [c.id for c in cs] for d, cs in cards.deck_for(m, unlisted="omit").items()} for m in C.MODES}
    assert ids["duel"] == {"spell": ["S01", "S02"], "power": ["P01"]}
    assert ids["rabid_monster"]["spell"] == ["S02"] and ids["rabid_monster"]["power"] == ["P01"]
    assert ids["possessed_wizard"]["spell"] == ["S01"] and ids["possessed_wizard"]["power"] == []
    assert ids["automata"]["spell"] == [] and ids["automata"]["power"] == []


def test_blank_padding_reaches_the_printed_share(cards):
    decks = cards.deck_for("duel", unlisted="blank")
    assert len(decks["spell"]) == 24                 # 9 of 9 listed spells: the whole printed 24
    assert len(decks["power"]) == round(24 * 9 / 11)  # 9 of 11 listed powers
    assert [c.id for c in decks["spell"][:9]] == list(SPELL_ALL)
    assert all(c.blank and c.effect == "none" and c.coins == 0 for c in decks["spell"][9:])
    auto = cards.deck_for("automata", unlisted="blank")
    assert len(auto["possessed_wizard"]) == 12 and len(auto["rabid_monster"]) == 12


def test_copies_padding_repeats_the_listed_cards_in_order(cards):
    spells = cards.deck_for("rabid_monster", unlisted="copies")["spell"]
    listed = DECKS["rabid_monster"]["spell"]
    assert len(spells) == round(24 * 8 / 9)
    assert [c.id for c in spells] == [listed[k % len(listed)] for k in range(len(spells))]


def test_sizes_override_and_their_errors(cards):
    assert len(cards.deck_for("duel", unlisted="blank", sizes={"spell": 30})["spell"]) == 30
    assert len(cards.deck_for("duel", unlisted="omit", sizes={"spell": 30})["spell"]) == 9
    with pytest.raises(CardsError, match="below its 9 listed cards"):
        cards.deck_for("duel", unlisted="blank", sizes={"spell": 5})
    with pytest.raises(CardsError, match="valid decks: spell, power, possessed_wizard, rabid_monster"):
        cards.deck_for("duel", unlisted="blank", sizes={"spells": 30})
    with pytest.raises(CardsError, match=r"0\.\.60"):
        cards.deck_for("duel", unlisted="blank", sizes={"spell": 61})


def test_unknown_mode_and_unlisted_name_the_valid_ones(cards):
    with pytest.raises(CardsError, match="valid modes: duel, rabid_monster, possessed_wizard, automata"):
        cards.deck_for("solo")
    with pytest.raises(CardsError, match="valid values: placeholder, omit, blank, copies"):
        cards.deck_for("duel", unlisted="pad")
    with pytest.raises(CardsError, match="valid values: printed_counts, none"):
        cards.deck_for("duel", pw_actions="all")
    with pytest.raises(CardsError, match="valid values: as_file, none"):
        cards.deck_for("duel", power_requirements="some")


def test_card_options_name_every_deck_size():
    assert set(C.SIZE_OPTION.values()) <= set(C.CARD_OPTIONS)
    assert C.CARD_OPTIONS["unlisted_cards"] in C.UNLISTED and C.CARD_OPTIONS["unlisted_cards"] == "placeholder"
    from cursedsim.games.village import rules as R
    defaults = R.RuleOptions()
    assert all(getattr(defaults, name) == value for name, value in C.CARD_OPTIONS.items())


# ---------------------------------------------------------------- placeholders (O28 placeholder, O33, O34)

def test_placeholders_fill_each_deck_of_the_file_to_its_printed_size(cards):
    for deck, size in C.PRINTED_SIZE.items():
        pads = cards.placeholders(deck)
        assert len(cards.listed(deck)) + len(pads) == size
        assert all(p.blank and p.name == f"Placeholder {p.id}" and p.effect == "none" and
                   p.requirements == C.Requirements() and set(p.reconstructed) == set(C.RECONSTRUCTABLE)
                   for p in pads)
        assert not {p.id for p in pads} & {c.id for c in cards.listed(deck)}
    assert [p.id for p in cards.placeholders("spell")] == [f"S{k}" for k in range(10, 25)]
    assert {p.coins for p in cards.placeholders("spell")} == {1}          # C4: every Spell gives coins
    assert {p.actions for p in cards.placeholders("rabid_monster")} == {C.RM_ACTIONS}
    assert all(not p.villager for deck in C.DECKS for p in cards.placeholders(deck))


def test_the_mode_decks_with_placeholders(cards):
    """The printed deck less the listed cards without the mode's icon (placeholders carry every icon)."""
    sizes = {m: {d: len(cs) for d, cs in cards.deck_for(m, unlisted="placeholder").items()} for m in C.MODES}
    assert sizes == {"duel": {"spell": 24, "power": 22},
                     "rabid_monster": {"spell": 23, "power": 20, "rabid_monster": 12},
                     "possessed_wizard": {"spell": 22, "power": 22, "possessed_wizard": 12},
                     "automata": {"spell": 21, "power": 20, "possessed_wizard": 12, "rabid_monster": 12}}
    duel = cards.deck_for("duel", unlisted="placeholder")
    assert [c.id for c in duel["spell"][:9]] == list(SPELL_ALL)
    assert len(cards.deck_for("duel", unlisted="placeholder", sizes={"power": 12})["power"]) == 12
    assert len(cards.deck_for("duel", unlisted="placeholder", sizes={"power": 40})["power"]) == 40


def test_possessed_placeholders_complete_the_printed_action_counts(cards):
    """ "Mix Cure (x1)" and the second "Buy Ingredient from current district (x2)" are missing from PW01-PW07."""
    pw = cards.deck_for("possessed_wizard", unlisted="placeholder")["possessed_wizard"]
    assert [(c.id, c.actions) for c in pw[7:]] == [("PW08", ("mix_cure",)), ("PW09", ("buy_current_district",)),
                                                   ("PW10", ()), ("PW11", ()), ("PW12", ())]
    counted = [C.COUNTS_AS.get(c.actions[0], c.actions[0]) for c in pw if c.actions]
    assert {a: counted.count(a) for a in set(counted)} == dict(C.PRINTED_PW_ACTIONS)
    bare = cards.deck_for("possessed_wizard", unlisted="placeholder", pw_actions="none")["possessed_wizard"]
    assert [c.actions for c in bare[7:]] == [()] * 5


def test_power_requirements_none_drops_them(cards):
    plain = cards.deck_for("duel", power_requirements="none")["power"]
    assert all(c.requirements == C.Requirements() for c in plain)
    assert [c.id for c in plain] == [c.id for c in cards.deck_for("duel")["power"]]
    assert any(c.requirements != C.Requirements() for c in cards.deck_for("duel")["power"])


# ---------------------------------------------------------------- digest


def test_digest_is_stable_and_content_sensitive(cards):
    again = load_cards()
    assert again.digest == cards.digest and len(cards.digest) == 12
    assert cards.label == f"rulebook-listed-v1@{cards.digest}"
    text = C.DEFAULT_CARDS.read_text()
    assert parse_cards(text + "\n# a comment\n").digest == cards.digest
    assert parse_cards(text.replace("Gain 3 Energy.", "Gain 4 Energy.", 1)).digest != cards.digest


def test_round_trip_through_json_keeps_the_digest(cards, tmp_path):
    path = tmp_path / "again.json"
    path.write_text(json.dumps(cards.as_data(), indent=1))
    again = load_cards(path)
    assert again.digest == cards.digest and again.cards == cards.cards


# ---------------------------------------------------------------- validator errors


def _line_of(text: str, needle: str) -> int:
    """The line where ``needle`` (which may span lines) starts."""
    return text[:text.index(needle)].count("\n") + 1


@pytest.mark.parametrize("old, new, needle, pattern", [
    ('name = "Wizard only"', 'name = "Wizard only"\ncolour = "red"', 'colour = "red"',
     r"card 2 \('S02'\) field 'colour': unknown field; valid fields: id, name, deck"),
    ('deck = "power"', 'deck = "powers"', 'deck = "powers"',
     r"field 'deck': unknown value 'powers'; valid values: 'spell', 'power', 'possessed_wizard', 'rabid_monster'"),
    ('effect = "gain_curse"', 'effect = "remove_sheep"', 'effect = "remove_sheep"\nparams = { curse',
     r"card 3 \('P01'\) field 'effect': unknown effect 'remove_sheep' for a power card; valid effects: none, "
     r"eat_rolled_houses"),
    ("params = { per_pasture = 2 }", "params = { per_pasture = 20 }", "per_pasture = 20",
     r"parameter 'per_pasture' of effect 'remove_sheep' must be an integer in 1\.\.15, got 20"),
    ("params = { curse = 1 }", "params = { curses = 1 }", "curses = 1",
     r"unknown parameter 'curses' of effect 'gain_curse'; its parameters: curse"),
    ('modes = ["wizard"]', 'modes = ["monster"]', 'modes = ["monster"]',
     r"field 'modes': a spell card carries icons from: wizard, possessed_wizard; got 'monster'"),
    ('modes = ["wizard"]', 'modes = ["wizzard"]', 'modes = ["wizzard"]',
     r"unknown value 'wizzard'; valid values: wizard, monster, possessed_wizard, rabid_monster"),
    ('name = "Wizard only"\ndeck = "spell"\nmodes = ["wizard"]\nkind = "immediate"',
     'name = "Wizard only"\ndeck = "spell"\nmodes = ["wizard"]\nkind = "single_use"', 'kind = "single_use"',
     r"field 'kind': unknown value 'single_use'; valid values: 'immediate', 'ongoing'"),
    ('name = "Wizard only"\ndeck = "spell"\nmodes = ["wizard"]\nkind = "immediate"',
     'name = "Wizard only"\ndeck = "spell"\nmodes = ["wizard"]\nkind = "ongoing"', '[[card]]\nid = "S02"',
     r"field 'placement': a card of kind 'ongoing' lies in front of a player; valid values: 'wizard', 'monster'"),
    ('id = "P01"', 'id = "S03"', 'id = "S03"', r"field 'id': a power card id looks like P99, got 'S03'"),
    ('id = "S02"', 'id = "S01"', 'id = "S01"\nname = "Wizard only"',
     r"card 2 field 'id': duplicate id 'S01' \(also card 1\)"),
    ('text = "y"', 'text = "y"\nneed_ingredients = ["Wolf Claws"]', 'need_ingredients',
     r"field 'need_ingredients': unknown value 'Wolf Claws'; valid values: Mandrake Root, Wolf Claw"),
    ('text = "z"', 'text = "z"\nneed_stomach = ["Knight"]', 'need_stomach',
     r"unknown value 'Knight'; valid values: Farmer, Hunter, Woodcutter, Butcher, Merchant, Noble, Sheep"),
    ('text = "z"', 'text = "z"\nneed_energy = 12', 'need_energy', r"field 'need_energy': must be in 0\.\.9, got 12"),
    ('text = "y"', 'text = "y"\ncoins = 30', 'coins = 30', r"field 'coins': must be in 0\.\.25, got 30"),
    ('text = "y"', 'text = "y"\nautomaton_effect = "place_villager"\nautomaton_params = { pick = "any" }',
     'automaton_params', r"parameter 'pick' of effect 'place_villager': unknown value 'any'; valid values: "
                         r"choice, random"),
    ('text = "y"', 'text = "y"\nautomaton_effect = "gain_curse"', 'automaton_effect',
     r"unknown effect 'gain_curse' for a spell card; valid effects: same, none, remove_sheep"),
    ('text = "y"', 'text = "y"\nreconstructed = ["colour"]', 'reconstructed = ["colour"]',
     r"field 'reconstructed': unknown value 'colour'; valid values: modes, red_icon"),
])
def test_faults_name_field_line_and_choices(old, new, needle, pattern):
    assert old in SYNTH
    text = SYNTH.replace(old, new, 1)
    with pytest.raises(CardsError, match=pattern) as info:
        parse_cards(text, source="bad.toml")
    assert f"bad.toml, line {_line_of(text, needle)}:" in str(info.value)
    assert isinstance(info.value, CursedsimError)


def test_missing_top_level_and_card_fields():
    with pytest.raises(CardsError, match=r"line 1: field 'card': missing"):
        parse_cards('schema = 1\nname = "x"\n')
    with pytest.raises(CardsError, match=r"line 2: field 'schema': must be 1, got 2"):
        parse_cards('name = "x"\nschema = 2\n[[card]]\nid = "S01"\n')
    text = SYNTH.replace('text = "x"\n', "", 1)
    with pytest.raises(CardsError, match=r"line 4: card 1 \('S01'\) field 'text': missing"):
        parse_cards(text)
    with pytest.raises(CardsError, match=r"field 'wizards': unknown field; valid fields: schema, name"):
        parse_cards('schema = 1\nname = "x"\nwizards = 3\n')


def test_automaton_cards_need_actions_and_a_villager():
    card = ('\n[[card]]\nid = "RM01"\nname = "R"\ndeck = "rabid_monster"\nmodes = ["rabid_monster"]\n'
            'kind = "immediate"\neffect = "none"\ntext = "Farmer (Green)"\naction_text = "Cast Spell"\n'
            'actions = ["cast_spell"]\nvillager = "Farmer"\n')
    assert parse_cards(SYNTH + card).by_id("RM01").actions == ("cast_spell",)
    bad = SYNTH + card.replace('["cast_spell"]', '["buy_any_district"]')
    with pytest.raises(CardsError, match=r"field 'actions': unknown value 'buy_any_district'; valid values: "
                                         r"cast_spell, steal, buy_ingredients, mix_cure"):
        parse_cards(bad)
    with pytest.raises(CardsError, match=r"field 'villager': missing \(a rabid_monster card needs it\)"):
        parse_cards(SYNTH + card.replace('villager = "Farmer"\n', ""))
    with pytest.raises(CardsError, match=r"field 'villager': only Possessed Wizard and Rabid Monster cards"):
        parse_cards(SYNTH.replace('text = "x"', 'text = "x"\nvillager = "Farmer"', 1))


def test_too_many_cards_for_a_deck():
    blocks = "".join(f'\n[[card]]\nid = "RM{k:02d}"\nname = "R{k}"\ndeck = "rabid_monster"\n'
                     f'modes = ["rabid_monster"]\nkind = "immediate"\neffect = "none"\ntext = "t"\n'
                     f'action_text = "Cast Spell"\nactions = ["cast_spell"]\nvillager = "Farmer"\n'
                     for k in range(1, 14))
    with pytest.raises(CardsError, match="deck 'rabid_monster': 13 cards; the game has 12"):
        parse_cards(SYNTH + blocks)


def test_json_files_name_their_lines_too(tmp_path):
    data = {"schema": 1, "name": "j", "card": [
        {"id": "S01", "name": "A", "deck": "spell", "modes": ["wizard"], "kind": "immediate",
         "effect": "remove_sheep", "params": {"per_pasture": 1}, "text": "t"},
        {"id": "S02", "name": "B", "deck": "spell", "modes": ["wizard"], "kind": "immediate",
         "effect": "remove_sheep", "params": {"per_pasture": 99}, "text": "t"}]}
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(CardsError) as info:
        load_cards(path)
    line = _line_of(path.read_text(), "99")
    assert f"line {line - 1}:" in str(info.value) or f"line {line}:" in str(info.value)
    assert "must be an integer in 1..15, got 99" in str(info.value)
    data["card"][1]["params"]["per_pasture"] = 2
    path.write_text(json.dumps(data))
    assert len(load_cards(path).cards) == 2


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(CardsError, match="cannot read cards file"):
        load_cards(tmp_path / "nope.toml")
    with pytest.raises(CardsError, match="not valid TOML"):
        parse_cards("schema = = 1")
