"""cursedsim.datafile: the line of every key, entry and side table of a TOML or JSON data file, and the one
form of a validation error the deck, cards and board files share. Every expected line is counted by hand
in the text beside it."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from cursedsim.datafile import DataFormat, Digested, Lines, error, error_text, is_int
from cursedsim.errors import OptionError
from cursedsim.games.gifts import deck as deck_module
from cursedsim.games.gifts.deck import DEFAULT_DECK, DeckError, parse_deck
from cursedsim.games.village import board as board_module
from cursedsim.games.village import cards as cards_module
from cursedsim.games.village.board import DEFAULT_BOARD, BoardError, parse_board
from cursedsim.games.village.cards import DEFAULT_CARDS, CardsError, parse_cards

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


# ---------------------------------------------------------------- the pipeline: a data file type is a spec


class ToyError(OptionError):
    pass


@dataclass(frozen=True)
class Toy(Digested):
    SCHEMA = 1
    name: str
    reconstructed: bool
    sizes: tuple[int, ...]

    def content(self) -> dict:
        return {"sizes": list(self.sizes)}


def _toy(data: dict, lines: Lines, source: str, name: str, reconstructed: bool) -> Toy:
    sizes = []
    for i, raw in enumerate(data["item"]):
        item = TOY.entry(lines, source, "item", i, raw, ("id", "size"), ("id", "size"))
        if not is_int(raw["size"]):
            raise item.bad("size", f"must be an integer, got {raw['size']!r}")
        sizes.append(raw["size"])
    return Toy(name, reconstructed, tuple(sizes))


TOY = DataFormat(noun="toy", error=ToyError, default=Path("toy.toml"), schema=1,
                 top_keys=("schema", "name", "reconstructed", "item"), required_top=("schema", "name", "item"),
                 arrays={"item": "items"}, build=_toy)
TOY_TEXT = 'schema = 1\nname = " toy "\n\n[[item]]\nid = "a"\nsize = 2\n\n[[item]]\nid = "b"\nsize = 3\n'


def test_a_new_data_file_type_is_a_spec(tmp_path):
    toy = TOY.parse(TOY_TEXT, source="t.toml")
    assert (toy.name, toy.reconstructed, toy.sizes) == ("toy", False, (2, 3))
    assert toy.canonical() == '{"name":"toy","reconstructed":false,"schema":1,"sizes":[2,3]}'
    assert toy.label == "toy@" + hashlib.sha256(toy.canonical().encode()).hexdigest()[:12]
    for text, message in (
            (TOY_TEXT.replace("size = 3", 'size = "3"'), r"t.toml, line 10: item 2 \('b'\) field 'size': must be an"),
            (TOY_TEXT.replace('id = "b"\n', ""), r"t.toml, line 8: item 2 field 'id': missing$"),
            (TOY_TEXT.replace("size = 2", "colour = 2"), r"t.toml, line 6: item 1 \('a'\) field 'colour': unknown"),
            (TOY_TEXT.replace("schema = 1", "schema = 1.0"), r"t.toml, line 1: field 'schema': must be 1, got 1.0$"),
            (TOY_TEXT.replace("name = ", "nom = "), r"t.toml, line 2: field 'nom': unknown field; valid fields"),
            ("schema = 1\nname = 'x'\nitem = []\n",
             r"t.toml, line 3: field 'item': must be a non-empty list of items$"),
            ("[1]", r"t.json, line 1: toy: must be a table of keys$")):
        with pytest.raises(ToyError, match="^" + message):
            TOY.parse(text, json_format=text.startswith("["), source="t.json" if text.startswith("[") else "t.toml")
    path = tmp_path / "mine.toml"
    path.write_text(TOY_TEXT, encoding="utf-8")
    assert TOY.of(str(path)) is TOY.of(str(path)) and TOY.load(path) == toy
    path.write_text(TOY_TEXT.replace("size = 3", "size = 4"), encoding="utf-8")
    assert TOY.of(str(path)).sizes == (2, 4)
    with pytest.raises(ToyError, match="cannot read toy file"):
        TOY.load(tmp_path / "nope.toml")


@pytest.mark.parametrize("parse", [parse_deck, parse_cards, parse_board])
def test_every_format_checks_the_top_level_alike(parse):
    """One validation of what every data file has (deck, cards, board): the same messages."""
    text = {parse_deck: DEFAULT_DECK, parse_cards: DEFAULT_CARDS, parse_board: DEFAULT_BOARD}[parse].read_text()
    data = tomllib.loads(text)
    for change, message in (({"schema": 1.0}, "field 'schema': must be 1, got 1.0"),
                            ({"name": " "}, "field 'name': must be a non-empty string, got ' '"),
                            ({"reconstructed": "yes"}, "field 'reconstructed': must be true or false, got 'yes'"),
                            ({"extra": 1}, "field 'extra': unknown field; valid fields: schema, name")):
        with pytest.raises(OptionError, match=re.escape(message)):
            parse(json.dumps({**data, **change}), json_format=True)


# ---------------------------------------------------------------- mutations of the default files

#: What a mutation puts in place of a field: a table and lists (a string or number field given as one once
#: reached a set or dict lookup: ``TypeError: unhashable type``).
SHAPES = {"table": {"a": 1}, "empty_table": {}, "empty_list": [], "list": ["x"], "list_of_tables": [{"a": 1}]}
_FORMATS = {"deck": (deck_module, DeckError, DEFAULT_DECK), "cards": (cards_module, CardsError, DEFAULT_CARDS),
            "board": (board_module, BoardError, DEFAULT_BOARD)}


def _fields(value: object, path: tuple = ()):
    """The path of every field (key of a table) in ``value``, at any depth, outermost first."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield (*path, key)
            yield from _fields(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _fields(sub, (*path, i))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", _FORMATS)
def test_every_field_of_the_default_files_as_a_table_or_list_gives_the_format_s_error(fmt, shape):
    """Each field of each default file (deck, cards, board) replaced by a table or a list: the file loads
    (an empty list or table some fields allow) or the format's error names a line, and a string or number
    field names its own line (a parameter: its table's) and key; never another exception. Found: a deck
    card's ``effect``, a board location's ``district`` and a road's ``a`` / ``b`` as a table or list raised
    ``TypeError: unhashable``.
    The module's ``validate`` (what ``parse_*`` and ``load_*`` run after reading the text), with the lines of
    the default file's text, keeps a few thousand mutations fast."""
    module, kind, default = _FORMATS[fmt]
    text = default.read_text(encoding="utf-8")
    data, lines = tomllib.loads(text), Lines(text, False)
    faults = []
    for path in _fields(data):
        holder = data
        for part in path[:-1]:
            holder = holder[part]
        key, original = path[-1], holder[path[-1]]
        holder[key] = json.loads(json.dumps(SHAPES[shape]))
        try:
            module.validate(data, lines, "f")
        except kind as exc:
            message = str(exc)
            if not re.match(r"f, line \d+: \S.*: \S", message):
                faults.append((path, f"no line: {message}"))
            elif not isinstance(original, (dict, list)) and not (   # a parameter: the line of its table
                    any(message.startswith(f"f, line {lines.line(*path[:end])}:") for end in (-1, None))
                    and repr(key) in message):
                faults.append((path, f"not the field's line and key: {message}"))
        except Exception as exc:   # noqa: BLE001 - any other exception is the fault under test
            faults.append((path, f"{type(exc).__name__}: {exc}"))
        else:
            if shape == "table" and not isinstance(original, dict):
                faults.append((path, "accepted a table"))
        finally:
            holder[key] = original
    assert not faults, f"{len(faults)} faults, the first: {faults[:5]}"


@pytest.mark.parametrize("fmt, pattern, replacement, message", [
    ("deck", r'effect = "[^"]*"', "effect = {a = 1}",
     "line 24: card 1 ('Cursed Gift 1') field 'effect': unknown effect {'a': 1}; known effects: gift, "),
    ("board", r'district = "[^"]*"', "district = {a = 1}",
     "line 40: location 1 ('laboratory') field 'district': unknown district {'a': 1}; districts: old_town, "),
    ("board", r'\{ a = "[^"]*"', "{ a = {a = 1}",
     "line 73: road 1 field 'a': constraint roads_join_known_locations: unknown location {'a': 1}; "
     "locations: laboratory, "),
    ("board", r'b = "[^"]*" \}', 'b = ["x"] }',
     "line 73: road 1 field 'b': constraint roads_join_known_locations: unknown location ['x']; "
     "locations: laboratory, "),
])
def test_an_id_or_name_given_as_a_table_or_list_names_the_field_its_line_and_the_valid_ones(
        fmt, pattern, replacement, message):
    """The inputs that raised ``TypeError: unhashable type``, through the public parser of the TOML text."""
    module, kind, default = _FORMATS[fmt]
    text = re.sub(pattern, replacement, default.read_text(encoding="utf-8"), count=1)
    with pytest.raises(kind, match=re.escape(message)):
        {"deck": parse_deck, "board": parse_board}[fmt](text)
