"""cursedsim.datafile: the line of every key, entry and side table of a TOML or JSON data file, and the one
form of a validation error the deck, cards and board files share. Every expected line is counted by hand
in the text beside it."""

from __future__ import annotations

import json
import tomllib

import pytest

from cursedsim.datafile import Lines, error, error_text
from cursedsim.errors import OptionError
from cursedsim.games.gifts.deck import DeckError, parse_deck

TOML = '''\
schema = 1
name = "demo"   # a comment with [brackets] and key = "value"
notes = """
road = "not a key: inside a string"
[[road]]
"""
district = [
  { id = "a", name = "A" },

  { id = "b", name = "B" },
]

[[road]]
a = "a"
b = "b"

[[road]]
a = "b"   # road 2
kind = "gate"

[road.extra]
x.y = 3

[cure.wizard]
sequence = [
  "Ash Twig",
  "Wolf Claw", "Wishbone",
]
'''

JSON = '''\
{
  "schema": 1,
  "note": "a \\"quoted\\" key: \\"road\\": [",
  "road": [
    {"a": "a", "b": "b"},
    {
      "a": "b",
      "kind": "gate"
    }
  ],
  "cure": {"wizard": {
    "sequence": ["Ash Twig",
                 "Wolf Claw"]}}
}
'''


def test_the_texts_are_valid():
    """The scanner only ever sees text tomllib or json accepted: so are the examples."""
    assert tomllib.loads(TOML)["road"][1]["extra"]["x"]["y"] == 3
    assert json.loads(JSON)["cure"]["wizard"]["sequence"] == ["Ash Twig", "Wolf Claw"]


def test_toml_top_level_keys_and_tables():
    lines = Lines(TOML, False)
    assert lines.top("schema") == 1
    assert lines.top("name") == 2
    assert lines.top("notes") == 3
    assert lines.top("district") == 7
    assert lines.top("road") == 13          # the first [[road]], not the words inside the string
    assert lines.top("cure") == 24          # a table created by [cure.wizard]


def test_toml_entries_of_inline_and_header_arrays():
    lines = Lines(TOML, False)
    assert lines.entry("district", 0) == 8
    assert lines.entry("district", 1, "name") == 10
    assert lines.entry("road", 0) == 13
    assert lines.entry("road", 1) == 17
    assert lines.entry("road", 1, "kind") == 19
    assert lines.line("road", 1, "extra") == 21         # [road.extra] belongs to the last [[road]]
    assert lines.line("road", 1, "extra", "x", "y") == 22


def test_toml_side_tables_and_array_items():
    lines = Lines(TOML, False)
    assert lines.side("cure", "wizard") == 24
    assert lines.side("cure", "wizard", "sequence") == 25
    assert [lines.line("cure", "wizard", "sequence", k) for k in range(3)] == [26, 27, 27]


def test_json_keys_entries_and_sides():
    lines = Lines(JSON, True)
    assert lines.top("schema") == 2
    assert lines.top("road") == 4            # the escaped quotes in "note" hide no key
    assert lines.entry("road", 0) == 5
    assert lines.entry("road", 0, "b") == 5
    assert lines.entry("road", 1) == 6
    assert lines.entry("road", 1, "kind") == 8
    assert lines.side("cure", "wizard") == 11
    assert lines.side("cure", "wizard", "sequence") == 12
    assert lines.line("cure", "wizard", "sequence", 1) == 13


def test_a_missing_part_falls_back_to_what_holds_it():
    lines = Lines(TOML, False)
    assert lines.entry("road", 0, "kind") == 13          # no kind in road 1: its [[road]] line
    assert lines.entry("road", 5) == 13                  # no road 6: the array
    assert lines.side("cure", "possessed", "sequence") == 24
    assert lines.top("missing") == 1
    assert Lines("", False).entry("road", 0, "a") == 1   # generated data has no text
    assert Lines("", True).top("schema") == 1


def test_a_nested_key_of_the_same_name_is_not_the_entry_s_own():
    """``name`` of an entry is its own key, not the first line in the entry where the word appears."""
    text = '[[card]]\nmeta = { name = "x" }\nname = "y"\n'
    assert tomllib.loads(text)["card"][0]["name"] == "y"
    assert Lines(text, False).entry("card", 0, "name") == 3
    assert Lines(text, False).line("card", 0, "meta", "name") == 2


def test_one_line_json_is_all_line_one():
    text = json.dumps({"schema": 1, "road": [{"a": "x"}, {"a": "y"}]})
    lines = Lines(text, True)
    assert (lines.top("schema"), lines.entry("road", 1, "a")) == (1, 1)


def test_error_text_and_error():
    assert error_text("deck.toml", 7, "card 2 field 'value'", "must be an integer, got 'x'") == (
        "deck.toml, line 7: card 2 field 'value': must be an integer, got 'x'")
    exc = error(OptionError, "b.json", 3, "field 'name'", "missing")
    assert isinstance(exc, OptionError) and str(exc) == "b.json, line 3: field 'name': missing"


def test_a_deck_of_inline_cards_names_the_card_s_line():
    """A TOML deck may write its cards as inline tables; the error names the bad card's line (the line
    finder each file had before found [[card]] blocks only, and said line 1)."""
    text = ('schema = 1\nname = "inline"\ncard = [\n'
            '  { name = "A", type = "gift", effect = "gift", value = 1, count = 20 },\n'
            '  { name = "B", type = "gift", effect = "gift", value = "two", count = 1 },\n]\n')
    with pytest.raises(DeckError, match=r"^<deck>, line 5: card 2 \('B'\) field 'value': must be an integer"):
        parse_deck(text)
