"""docs/rules/village.md against cursedsim.games.village.rules: every numbered rule quotes the rulebook,
numbers are unique, every rule option is an open point with its default and choices, bad options name
the valid ones, and the modes and outcome columns are those of the rulebook and issue 13.

These tests read the doc and the rules module only (no simulation); the engines have their own tests.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from cursedsim.errors import OptionError
from cursedsim.games.village import components as C
from cursedsim.games.village import rules as R

DOC_PATH = Path(__file__).resolve().parents[1] / "docs" / "rules" / "village.md"
DOC = DOC_PATH.read_text(encoding="utf-8")
RULE_RE = re.compile(r"^- \*\*V(\d+)\.(\d+)\*\*", re.M)
OPEN_RE = re.compile(r"^- \*\*O(\d+)\*\* `(\w+)` = `([^`]+)` \(([^)]*)\)", re.M)


def section(title: str) -> str:
    """The text of the ``## title`` section, up to the next ``## `` heading."""
    start = DOC.index(f"\n## {title}")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:end if end >= 0 else len(DOC)]


def items(text: str, pattern: re.Pattern) -> list[tuple[re.Match, str]]:
    """Each list item matching ``pattern`` with its body (up to the next item or heading)."""
    found = []
    for match in pattern.finditer(text):
        rest = text[match.end():]
        stop = re.search(r"^(- \*\*|#)", rest, re.M)
        found.append((match, rest[:stop.start()] if stop else rest))
    return found


def quotes(body: str) -> list[str]:
    """The quoted sentences of the ``>`` lines of an item (a quote block spans lines)."""
    block = " ".join(line.strip()[1:].strip() for line in body.splitlines() if line.strip().startswith(">"))
    return [piece.strip().strip('"') for piece in block.split(" · ") if piece.strip().strip('"').strip()]


def shown(value) -> str:
    """An option default as the doc writes it: "text", True/False or an integer."""
    return f'"{value}"' if isinstance(value, str) else str(value)


# ---------------------------------------------------------------- numbered rules

RULES = items(section("The rules (numbered)"), RULE_RE)


def test_the_doc_numbers_enough_rules_in_every_group():
    groups = {int(m.group(1)) for m, _ in RULES}
    assert groups == set(range(1, 16))
    assert len(RULES) >= 100


@pytest.mark.parametrize("match,body", RULES, ids=[f"V{m.group(1)}.{m.group(2)}" for m, _ in RULES])
def test_every_numbered_rule_quotes_the_rulebook(match, body):
    pieces = quotes(body)
    assert pieces, f"V{match.group(1)}.{match.group(2)} has no quote block"
    assert all(len(piece.split()) >= 3 for piece in pieces), pieces
    assert re.search(r"\S", body.split(">")[0]), "the rule itself is stated before its quote"


def test_rule_numbers_are_unique_and_consecutive_within_each_group():
    numbers = [(int(m.group(1)), int(m.group(2))) for m, _ in RULES]
    assert len(numbers) == len(set(numbers))
    for group in {g for g, _ in numbers}:
        minors = [n for g, n in numbers if g == group]
        assert minors == list(range(1, len(minors) + 1)), (group, minors)


def test_every_group_heading_is_numbered_in_order():
    headings = [int(n) for n in re.findall(r"^### V(\d+) ", DOC, re.M)]
    assert headings == list(range(1, 16))


def test_rule_references_point_to_numbered_rules():
    numbered = {f"V{m.group(1)}.{m.group(2)}" for m, _ in RULES}
    referenced = set(re.findall(r"\bV\d+\.\d+\b", DOC))
    assert referenced - numbered == set()


@pytest.mark.parametrize("sentence", [
    # every tie-break and limit of the automata, exactly as printed
    "If there are multiple options, the location with the highest number is chosen.",
    "if there is a tie for closest house, it is placed in the one among them with the higher number",
    "If tied for cost, they will choose the closest location among the tied ones. If still tied, the "
    "location with the highest number is chosen.",
    "Both the sheep and the eaten villager are placed on the same leftmost empty Stomach slot",
    "the Possessed Wizard may not spend an additional action to create a destruction [sic - distraction]",
    "until the Monster has eaten at least 3 villagers and / or sheep",
    "The Rabid Monster does not gain or use Energy.",
    # the 2-player rules the brief names
    "IMPORTANT: Entering a house with a villager ends the moving phase for that action.",
    "Each time that a gate or bridge is crossed, the Wizard must pay 1 coin.",
    "The Wizard player may then spend an additional action to create a distraction",
    "The Monster may not have more than 9 Energy at a time.",
    "If the Curse tile reaches the last (top) space of the Curse track, the Monster instantly wins the game!",
    "If the Cure tile reaches the last (top) space of the Cure track, the Wizard instantly wins the game!",
])
def test_the_rules_the_engine_must_follow_are_quoted(sentence):
    flat = " ".join(" ".join(quotes(body)) for _, body in RULES)
    assert " ".join(sentence.split()) in " ".join(flat.split())


def test_the_adjustment_tables_are_the_printed_ones():
    # 2-player: "0-1 ... Panic is decreased by 1", "2 ... of the same type: +1/+1", "3 ...: +2/+2"
    assert R.FEEDING_ADJUSTMENT == ((-1, 0), (-1, 0), (1, 1), (2, 2))
    # Rabid Monster: 0 -> Panic -1; 1, 2, 3 villager tokens -> Panic and Curse +1, +2, +3
    assert R.RABID_ADJUSTMENT == ((-1, 0), (1, 1), (2, 2), (3, 3))
    # "Then 4 cards are drawn." / "select up to 3" / "Draw 3 cards" / "1 Possessed Wizard card is drawn"
    assert (R.RABID_CARDS_DRAWN, R.RABID_CARDS_USED, R.POSSESSED_ACTION_CARDS, R.POSSESSED_FEEDING_CARDS) == (4, 3, 3, 1)


# ---------------------------------------------------------------- worked examples

EXAMPLES = items(section("Worked examples"), re.compile(r"^- \*\*E(\d+) ([^*]+)\*\*", re.M))


def test_every_worked_example_of_the_rulebook_is_listed_with_its_quote_and_rules():
    names = {m.group(2).strip().lower() for m, _ in EXAMPLES}
    for printed in ("mix cure", "wizard movement", "steal coins", "monster movement", "rabid monster movement"):
        assert printed in names, printed
    assert [int(m.group(1)) for m, _ in EXAMPLES] == list(range(1, len(EXAMPLES) + 1))
    for match, body in EXAMPLES:
        assert quotes(body), match.group(0)
        assert re.search(r"\(V\d+\.\d+", body), f"{match.group(0)} names no rule it shows"


# ---------------------------------------------------------------- open points and options

OPEN = items(section("Open points"), OPEN_RE)
FIELDS = {f.name: f for f in dataclasses.fields(R.RuleOptions)}


def test_open_points_are_numbered_uniquely_in_order():
    assert [int(m.group(1)) for m, _ in OPEN] == list(range(1, len(OPEN) + 1))


def test_every_option_is_an_open_point_with_its_default_and_choices():
    named = {m.group(2): m for m, _ in OPEN}
    assert set(named) == set(FIELDS), (set(FIELDS) ^ set(named))
    for name, field in FIELDS.items():
        match = named[name]
        assert match.group(3) == shown(field.default), (name, match.group(3))
        if name in R.CHOICES:
            assert re.findall(r"`(\w+)`", match.group(4)) == list(R.CHOICES[name]), name
        elif name in R.INT_RANGES:
            low, high = R.INT_RANGES[name]
            first = R.TRACK_LENGTHS.get(name, (low + 1, high))[0]
            assert f"{low}-{high}" in match.group(4) or f"{low} = " in match.group(4) and f"{first}-{high}" \
                in match.group(4), name
        elif name in R.FILE_OPTIONS:
            assert "path" in match.group(4), name
        else:
            assert match.group(4) == "bool", name


@pytest.mark.parametrize("match,body", OPEN, ids=[m.group(2) for m, _ in OPEN])
def test_every_open_point_says_why(match, body):
    assert len(body.split()) >= 20, f"O{match.group(1)} gives no reason"
    if match.group(2) in R.CHOICES:
        for choice in R.CHOICES[match.group(2)]:
            if choice != match.group(3).strip('"'):
                assert f"`{choice}`" in body, (match.group(2), choice)


def test_rule_text_and_docstring_cite_the_open_point_of_their_option():
    numbers = {m.group(2): m.group(1) for m, _ in OPEN}
    cited = re.findall(r"`(\w+)`, O(\d+)\)", section("The rules (numbered)"))
    assert cited
    for name, number in cited:
        assert numbers[name] == number, (name, number)
    doc = " ".join(R.RuleOptions.__doc__.split())
    for name, number in numbers.items():
        described = re.search(rf"\b{name}: (.*?)\(O(\d+)[;)]", doc)
        assert described and described.group(2) == number, name


def test_the_defaults_are_valid_and_frozen():
    options = R.RuleOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_turns = 5
    for name, choices in R.CHOICES.items():
        assert getattr(options, name) in choices
        for choice in choices:
            assert getattr(R.RuleOptions(**{name: choice}), name) == choice


@pytest.mark.parametrize("name", sorted(R.CHOICES))
def test_a_bad_choice_names_the_option_and_every_valid_value(name):
    with pytest.raises(OptionError) as error:
        R.RuleOptions(**{name: "nonsense"})
    message = str(error.value)
    assert name in message and "nonsense" in message
    for choice in R.CHOICES[name]:
        assert choice in message


@pytest.mark.parametrize("name", R.BOOL_OPTIONS)
def test_a_bad_flag_names_the_option_and_true_or_false(name):
    assert name in ("wizard_move_alone", "plethora_at_market", "quiet_night_adjusts", "start_location_visited")
    with pytest.raises(OptionError, match=rf"{name}.*true or false"):
        R.RuleOptions(**{name: "yes"})


@pytest.mark.parametrize("value", [0, 100_001, "200", True, 2.5])
def test_a_bad_turn_cap_names_the_range(value):
    with pytest.raises(OptionError, match=r"max_turns.*1-100000"):
        R.RuleOptions(max_turns=value)


@pytest.mark.parametrize("name", R.FILE_OPTIONS)
@pytest.mark.parametrize("value", ["", 3, None])
def test_a_bad_file_option_says_default_or_a_path(name, value):
    with pytest.raises(OptionError, match=rf"{name}.*'default' or a file path"):
        R.RuleOptions(**{name: value})


@pytest.mark.parametrize("name", ["spell_deck_size", "power_deck_size", "possessed_deck_size", "rabid_deck_size"])
def test_a_deck_size_outside_its_range_names_it(name):
    with pytest.raises(OptionError, match=rf"{name}.*0-60"):
        R.RuleOptions(**{name: 61})
    assert R.RuleOptions(**{name: 20}).deck_sizes()[name.replace("_deck_size", "").replace(
        "possessed", "possessed_wizard").replace("rabid", "rabid_monster")] == 20


@pytest.mark.parametrize("name", sorted(R.TRACK_LENGTHS))
@pytest.mark.parametrize("value", [31, -1, "12", True])
def test_a_track_length_outside_its_range_names_it(name, value):
    with pytest.raises(OptionError, match=rf"{name}.*0-30"):
        R.RuleOptions(**{name: value})
    assert R.RuleOptions(**{name: 1}) and R.RuleOptions(**{name: 30})


def test_an_unknown_option_names_the_valid_ones():
    with pytest.raises(OptionError) as error:
        R.options_from(quiet_nights=True)
    assert "quiet_nights" in str(error.value)
    for name in FIELDS:
        assert name in str(error.value)
    assert R.options_from(rabid_path="stop_at_villagers").rabid_path == "stop_at_villagers"


# ---------------------------------------------------------------- modes, sides, outcomes

def test_the_four_modes_are_the_rulebooks():
    # "A game for 2 players ... 1 player, with the Wizard player against a Rabid Monster ... 1 player, with
    # the Monster player against a Possessed Wizard ... 0 players"
    # (title, players, wizard automaton, monster automaton, Village board side: "the side with the Wizard
    # icon" / "the side with the Possessed Wizard icon")
    expected = {
        "duel": ("So, You've Been Cursed.", 2, False, False, "wizard"),
        "rabid_monster": ("So, You've Been Cursed to Be a Rabid Monster", 1, False, True, "wizard"),
        "possessed_wizard": ("So, You've Been Cursed By a Possessed Wizard", 1, True, False, "possessed"),
        "automata": ("So, a Possessed Wizard Was Cursed to Be a Rabid Monster", 0, True, True, "possessed"),
    }
    got = {code: (m.title, m.players, m.wizard_automaton, m.monster_automaton, m.sides[0])
           for code, m in R.MODES.items()}
    assert got == expected
    assert tuple(R.MODES) == C.MODES   # the board file keys its sides by the same names
    for code, mode in R.MODES.items():
        assert mode.code == code
        assert f"| `{code}` | {mode.title} | {mode.players} |" in DOC
        # "Town Guard tiles and Energy tiles are not used in this game" in both Rabid Monster games
        assert mode.town_guard == (not mode.monster_automaton)
        # the Wizard board turns the Possessed Wizard side up exactly where the Wizard is the automaton
        assert (mode.sides[1] == "possessed") == mode.wizard_automaton
    assert R.DEFAULT_MODE == "automata" and R.SIDES == ("wizard", "monster")


@pytest.mark.parametrize("wizard,monster,mode", [
    (False, False, "duel"), (False, True, "rabid_monster"), (True, False, "possessed_wizard"),
    (True, True, "automata")])
def test_the_mode_follows_from_the_pairing(wizard, monster, mode):
    assert R.mode_of(wizard, monster) == mode


def test_the_outcome_columns_of_issue_13():
    dtypes = R.OUTCOME_DTYPES
    for column in ("winner", "mode", "turns", "cure", "curse", "panic", "coins_stolen", "unfinished"):
        assert column in dtypes, column
    for kind in ("farmer", "hunter", "woodcutter", "butcher", "merchant", "noble", "sheep"):
        assert f"eaten_{kind}" in dtypes
    for effect in R.PANIC_EFFECTS:
        assert f"fired_{effect}" in dtypes and f"first_{effect}" in dtypes
    for column, dtype in dtypes.items():
        kind = np.dtype(dtype).kind
        assert kind in "ib", (column, dtype)
    assert np.dtype(dtypes["unfinished"]) == np.bool_
    for column, names in R.OUTCOME_CATEGORIES.items():
        assert np.iinfo(dtypes[column]).max >= len(names) - 1
        assert np.iinfo(dtypes[column]).min <= R.NO_WINNER
    assert R.OUTCOME_CATEGORIES == {"winner": ("wizard", "monster"), "mode": R.MODE_NAMES}
    assert R.OUTCOME_COLUMNS == tuple(dtypes)


def test_the_doc_links_the_board_and_cards_files():
    assert "(village_board.md)" in DOC and "(village_cards.md)" in DOC
    assert "shared/" not in DOC and "rulebooks/" not in DOC   # the repository stands alone
