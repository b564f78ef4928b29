"""Cursed Gifts deck files: the default deck loads and is labelled reconstructed, its digest is stable,
it compiles to per-copy arrays, and every kind of fault names its field and line (and the valid choices)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from cursedsim.errors import CursedsimError
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts.deck import DEFAULT_DECK, DeckError, load_deck, parse_deck

GOOD = """\
schema = 1
name = "tiny"
reconstructed = false

[[card]]
name = "Gift 2"
type = "gift"
value = 2
count = 10
effect = "gift"

[[card]]
name = "Raie"
type = "defense"
value = 0
count = 5
flags = ["RIPOSTE"]
effect = "riposte_cancel"

[[card]]
name = "Antidote -2"
type = "antidote"
value = -2
count = 5
effect = "antidote"
"""


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th line containing ``needle``."""
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    return hits[occurrence - 1]


def error(text: str, **kw) -> str:
    with pytest.raises(DeckError) as info:
        parse_deck(text, **kw)
    return str(info.value)


def test_default_deck_loads_and_is_labelled_reconstructed():
    deck = load_deck()
    assert deck.reconstructed and "reconstructed" in deck.name
    raw = DEFAULT_DECK.read_text(encoding="utf-8")
    assert "RECONSTRUCTED" in raw.splitlines()[0]
    # every count line carries a comment saying why
    counts = [line for line in raw.splitlines() if line.strip().startswith("count")]
    assert counts and all("#" in line for line in counts)
    assert deck.size == sum(c.count for c in deck.cards) >= 7 * 6 + 1
    names = {c.name for c in deck.cards}
    for named in ("First aid", "Gracula", "Mummy Touthanpéku", "Protection de la Raie", "Emergency Ifren",
                  "Mugging", "Day of mourning", "Golden Cursed Gift 666", "Useless Gift"):
        assert named in names


def test_every_card_effect_is_used_by_the_default_deck_or_is_an_expansion():
    used = {c.effect for c in load_deck().cards}
    assert set(E.CARD_EFFECTS) - used == {"cancel_defense"}   # expansion riposte, only with riposte_chains


def test_digest_is_stable_and_follows_content_not_comments():
    a = parse_deck(GOOD)
    b = parse_deck("# a comment\n" + GOOD.replace("count = 5\nflags", "count = 5   # why\nflags"))
    c = parse_deck(GOOD.replace("count = 10", "count = 11"))
    assert re.fullmatch(r"[0-9a-f]{12}", a.digest)
    assert a.digest == b.digest != c.digest
    assert a.label == f"tiny@{a.digest}"
    assert load_deck().digest == load_deck().digest


def test_json_deck_equals_the_toml_deck():
    toml_deck = parse_deck(GOOD)
    data = {"schema": 1, "name": "tiny", "reconstructed": False,
            "card": [{"name": c.name, "type": c.type, "value": c.value, "count": c.count, "flags": list(c.flags),
                      "effect": c.effect} for c in toml_deck.cards]}
    assert parse_deck(json.dumps(data, indent=2), json_format=True).digest == toml_deck.digest


def test_arrays_have_one_entry_per_copy():
    deck = parse_deck(GOOD)
    arr = deck.arrays()
    assert set(arr) == {"kind", "type", "value", "flags", "effect"}
    assert all(a.dtype == np.int64 and len(a) == 20 for a in arr.values())
    assert list(arr["kind"][:10]) == [0] * 10 and list(arr["kind"][10:15]) == [1] * 5
    assert arr["value"][0] == 2 and arr["value"][-1] == -2
    assert arr["flags"][10] == E.RIPOSTE and arr["flags"][0] == 0
    assert arr["effect"][10] == E.E_RIPOSTE_CANCEL and arr["type"][15] == E.ANTIDOTE


def test_unknown_effect_names_field_line_and_known_effects():
    text = GOOD.replace('effect = "antidote"', 'effect = "healing"')
    msg = error(text)
    assert f"line {line_of(text, 'healing')}" in msg and "'effect'" in msg
    for name in E.CARD_EFFECTS:
        assert name in msg


def test_bonus_combination_is_not_a_card_effect():
    msg = error(GOOD.replace('type = "gift"\nvalue = 2\ncount = 10\neffect = "gift"',
                             'type = "useless"\nvalue = 0\ncount = 10\neffect = "cacarma"'))
    assert "bonus combination" in msg and "line 10" in msg


def test_unknown_type_names_the_valid_types():
    text = GOOD.replace('type = "defense"', 'type = "shield"')
    msg = error(text)
    assert f"line {line_of(text, 'shield')}" in msg and "'type'" in msg and "useless" in msg


def test_type_effect_mismatch():
    text = GOOD.replace('type = "antidote"', 'type = "trick"')
    msg = error(text)
    assert f"line {line_of(text, 'type = ', 3)}" in msg and "antidote card" in msg


def test_value_out_of_range_for_effect():
    text = GOOD.replace("value = -2", "value = 3")
    msg = error(text)
    assert f"line {line_of(text, 'value = 3')}" in msg and "'value'" in msg and "-9..-1" in msg


def test_count_must_be_a_positive_integer():
    text = GOOD.replace("count = 10", 'count = "ten"')
    msg = error(text)
    assert f"line {line_of(text, 'ten')}" in msg and "'count'" in msg
    text = GOOD.replace("count = 10", "count = 0")
    assert f"line {line_of(text, 'count = 0')}" in error(text)


def test_flags_unknown_not_allowed_and_required():
    text = GOOD.replace('flags = ["RIPOSTE"]', 'flags = ["SNEAKY"]')
    msg = error(text)
    assert f"line {line_of(text, 'SNEAKY')}" in msg and "INEVITABLE, RIPOSTE" in msg
    text = GOOD.replace('count = 10\neffect', 'count = 10\nflags = ["RIPOSTE"]\neffect')
    msg = error(text)
    assert f"line {line_of(text, 'RIPOSTE')}" in msg and "allows flags: INEVITABLE" in msg
    text = GOOD.replace('flags = ["RIPOSTE"]\n', '')
    msg = error(text)
    assert "needs the flag(s) RIPOSTE" in msg and f"line {line_of(text, '[[card]]', 2)}" in msg


def test_missing_and_unknown_fields():
    text = GOOD.replace('value = 0\n', '')
    msg = error(text)
    assert "'value'" in msg and "missing" in msg and f"line {line_of(text, '[[card]]', 2)}" in msg
    text = GOOD.replace('value = 0\n', 'value = 0\ncolour = "red"\n')
    msg = error(text)
    assert f"line {line_of(text, 'colour')}" in msg and "valid fields" in msg
    text = GOOD.replace('name = "tiny"', 'nom = "tiny"')
    msg = error(text)
    assert "line 2" in msg and "'nom'" in msg


def test_top_level_faults():
    assert "line 1" in error(GOOD.replace("schema = 1", "schema = 2")) and "'schema'" in error(
        GOOD.replace("schema = 1", "schema = 2"))
    msg = error(GOOD.replace("reconstructed = false", 'reconstructed = "yes"'))
    assert "line 3" in msg and "'reconstructed'" in msg
    assert "not valid TOML" in error("schema = = 1")
    assert "not valid JSON" in error("{", json_format=True)


def test_duplicate_names_and_deck_size():
    text = GOOD.replace('name = "Raie"', 'name = "Gift 2"')
    msg = error(text)
    assert "duplicate" in msg and f"line {line_of(text, 'Gift 2', 2)}" in msg
    msg = error(GOOD.replace("count = 10", "count = 1"))
    assert "deck size" in msg and "11 cards" in msg


def test_json_errors_name_the_line():
    data = {"schema": 1, "name": "j", "card": [
        {"name": "A", "type": "gift", "value": 2, "count": 10, "effect": "gift"},
        {"name": "B", "type": "gift", "value": 2, "count": 10, "effect": "present"}]}
    text = json.dumps(data, indent=2)
    msg = error(text, json_format=True)
    assert f"line {line_of(text, 'present')}" in msg and "known effects" in msg


def test_unreadable_file_is_a_cursedsim_error(tmp_path):
    with pytest.raises(CursedsimError):
        load_deck(tmp_path / "nope.toml")


def test_a_deck_option_loads_the_file_and_checks_its_size(tmp_path):
    from cursedsim.errors import PlayersError
    from cursedsim.games.gifts import reference as G
    from cursedsim.games.gifts.rules import RuleOptions
    path = tmp_path / "tiny.toml"
    path.write_text(GOOD, encoding="utf-8")
    table = G.Table.deal(1, 0, 2, RuleOptions(deck=str(path)))
    assert table.deck.name == "tiny" and len(table.pile) == 20 - 14
    with pytest.raises(PlayersError, match="too few"):
        G.Table.deal(1, 0, 3, RuleOptions(deck=str(path)))      # 20 cards cannot deal 7 to 3 players
    with pytest.raises(DeckError, match="cannot read"):
        G.Table.deal(1, 0, 2, RuleOptions(deck=str(tmp_path / "missing.toml")))


def kinds_deck(n: int) -> str:
    """A valid TOML deck of ``n`` card kinds, 2 copies each."""
    head = 'schema = 1\nname = "many"\n'
    return head + "".join(f'\n[[card]]\nname = "Gift {k}"\ntype = "gift"\nvalue = 1\ncount = 2\neffect = "gift"\n'
                          for k in range(n))


def test_at_most_63_card_kinds_the_focus_dealt_bit_mask():
    from cursedsim.games.gifts.deck import MAX_KINDS
    assert MAX_KINDS == 63 and len(parse_deck(kinds_deck(63)).cards) == 63
    text = kinds_deck(64)
    msg = error(text)
    assert "card 64" in msg and "at most 63 card kinds" in msg and "64" in msg
    assert f"line {line_of(text, '[[card]]', 64)}" in msg
