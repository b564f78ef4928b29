"""So, You've Been Cursed. board files: the default board meets every named constraint (one test each,
checked here independently of the validator), shows the rulebook's worked examples, and is labelled
reconstructed; broken files name the field and its line (and the valid choices); generated boards are
valid and differ; the digest is stable and follows the content."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections import deque

import numpy as np
import pytest

from cursedsim.datafile import Lines
from cursedsim.errors import CursedsimError
from cursedsim.games.village import components as C
from cursedsim.games.village.board import (CONSTRAINTS, DEFAULT_BOARD, BoardError, board_of, example_faults,
                                           generate, load_board, parse_board, validate)

TEXT = DEFAULT_BOARD.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def board():
    return load_board()


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    return hits[occurrence - 1]


def error(text: str, **kw) -> str:
    with pytest.raises(BoardError) as info:
        parse_board(text, **kw)
    return str(info.value)


def replace_once(old: str, new: str, text: str = TEXT) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def bfs(board, start: str, streets_only: bool = False) -> dict[str, int]:
    """Road distances from ``start``, computed here from the road list (not the board's arrays)."""
    nb: dict[str, list[str]] = {l.id: [] for l in board.locations}
    for r in board.roads:
        if streets_only and r.kind != "street":
            continue
        nb[r.a].append(r.b)
        nb[r.b].append(r.a)
    d, q = {start: 0}, deque([start])
    while q:
        x = q.popleft()
        for y in nb[x]:
            if y not in d:
                d[y] = d[x] + 1
                q.append(y)
    return d


def district(board, lid: str) -> str:
    return next(l.district for l in board.locations if l.id == lid)


# ---------------------------------------------------------------- the component facts


def test_component_facts_add_up():
    assert sum(C.VILLAGER_COUNTS) == C.VILLAGER_TOKENS == 27
    assert C.VILLAGER_COUNTS == (7, 6, 5, 4, 3, 2) and C.VILLAGER_ENERGY == (1, 1, 2, 2, 3, 3)
    assert C.INGREDIENTS == ("Mandrake Root", "Wolf Claw", "Ash Twig", "Wishbone", "Gold Dust", "Silk Thread")
    assert C.COLOURS == ("green", "black", "brown", "white", "yellow", "purple")
    assert C.INGREDIENT_TILES_EACH * len(C.INGREDIENTS) == C.INGREDIENT_TILES == 18
    assert sum(v * n for v, n in C.COIN_TILES) == C.COIN_TOTAL == 25
    assert sum(n for _, n in C.TOWN_GUARD_TILES) == C.TOWN_GUARD_TOTAL == 12
    assert dict(C.TOWN_GUARD_TILES) == {"no_effect": 2, "energy_minus_1": 3, "energy_minus_2": 3,
                                        "movement_minus_1": 2, "panic_plus_1": 2}
    assert (C.ENERGY_MAX, C.SHEEP_TOKENS, C.SHEEP_ENERGY, C.STOMACH_SLOTS) == (9, 15, 1, 3)
    assert (C.WIZARD_INGREDIENT_LIMIT, C.BOX_OF_HOLDING_LIMIT, C.D6, C.D20, C.PANIC_START) == (3, 4, 6, 20, 1)
    assert set(C.MODE_SIDES) == set(C.MODES) and C.MODE_SIDES["automata"] == ("possessed", "possessed", "rabid")


def test_every_fact_cites_its_source():
    src = (DEFAULT_BOARD.parent.parent / "components.py").read_text(encoding="utf-8")
    paragraphs = src.split("\n\n")
    names = [n for n in vars(C) if n.isupper()]
    assert len(names) > 40
    for name in names:
        para = next(p for p in paragraphs if re.search(rf"^(\w+, )*{name}\b", p, re.M))
        assert "rulebook" in para, name


# ---------------------------------------------------------------- the default board: one test per constraint


def test_default_board_is_labelled_reconstructed(board):
    assert board.reconstructed and "reconstructed" in board.name
    assert "RECONSTRUCTED" in TEXT.splitlines()[0]
    assert "coins + price = 5" in TEXT          # the stated choice for houses holds on every house
    assert all(l.coins + l.price == 5 for l in board.locations if l.kind == "house")
    for line in TEXT.splitlines():      # every track value says why (or quotes the rulebook)
        if re.match(r"\s*(length|start|get_busy|stay_inside|plethora_of_potions|maximum_possession|"
                    r"possession_intensifies)\s*=", line):
            assert "# reconstructed" in line or "# rulebook" in line, line


def test_default_twenty_numbered_houses(board):
    numbers = sorted(l.number for l in board.locations if l.kind == "house")
    assert numbers == list(range(1, 21))
    assert [board.house(k) for k in (1, 20)] == [board.index["house 1"], board.index["house 20"]]


def test_default_one_laboratory(board):
    assert [l.id for l in board.locations if l.kind == "laboratory"] == ["laboratory"]


def test_default_one_market(board):
    assert [l.id for l in board.locations if l.kind == "market"] == ["market"]


def test_default_house_coins_in_range(board):
    coins = [l.coins for l in board.locations if l.kind == "house"]
    assert min(coins) >= 1 and max(coins) <= C.D6 and 4 in coins


def test_default_house_price_1_to_4(board):
    prices = [l.price for l in board.locations if l.kind == "house"]
    assert sorted(set(prices)) == [1, 2, 3, 4]
    assert all(prices.count(p) == 5 for p in (1, 2, 3, 4))     # the reconstructed choice: five of each


def test_default_roads_join_known_locations(board):
    ids = {l.id for l in board.locations}
    pairs = [frozenset((r.a, r.b)) for r in board.roads]
    assert all(r.a in ids and r.b in ids and r.a != r.b for r in board.roads)
    assert len(set(pairs)) == len(pairs)


def test_default_border_roads_are_gates_or_bridges(board):
    for r in board.roads:
        crosses = district(board, r.a) != district(board, r.b)
        assert (r.kind in ("gate", "bridge")) == crosses and (r.kind == "street") == (not crosses)
    kinds = {r.kind for r in board.roads}
    assert {"gate", "bridge"} <= kinds       # Hydrophobia needs bridges


def test_default_twelve_border_roads(board):
    crossing = [r for r in board.roads if district(board, r.a) != district(board, r.b)]
    assert len(crossing) == 12 == C.TOWN_GUARD_TOTAL
    slots = board.arrays()["guard_slot"]
    assert sorted(s for s in slots if s >= 0) == list(range(12))


def test_default_board_connected(board):
    assert len(bfs(board, "laboratory")) == len(board.locations)


def test_default_districts_connected_inside(board):
    for d in board.districts:
        inside = [l.id for l in board.locations if l.district == d.id]
        reach = bfs(board, inside[0], streets_only=True)
        assert set(inside) <= set(reach), d.id


def test_default_at_least_two_districts(board):
    assert len(board.districts) == 5
    assert all(any(l.district == d.id for l in board.locations if l.kind == "house") for d in board.districts)


def test_default_pastures_hold_sheep(board):
    assert board.pastures and all(p.sheep >= 1 and p.next_to for p in board.pastures)


def test_default_sheep_within_supply(board):
    total = sum(p.sheep for p in board.pastures)
    assert total <= C.SHEEP_TOKENS and C.SHEEP_TOKENS - total >= len(board.pastures)   # An Extra Serving once


def test_default_distances_2_and_3_matter(board):
    houses = [l.id for l in board.locations if l.kind == "house"]
    diameter = 0
    for l in board.locations:
        d = bfs(board, l.id)
        diameter = max(diameter, max(d.values()))
        assert any(d[h] == 2 for h in houses) and any(d[h] == 3 for h in houses), l.id
    assert diameter >= 4
    dist = board.arrays()["distance"]
    assert dist.max() == diameter and (dist == dist.T).all()


def test_default_market_worth_reaching(board):
    gate = [r for r in board.roads if {r.a, r.b} == {"laboratory", "market"}]
    assert gate and gate[0].kind == "gate"       # one 1-coin fare from the Laboratory
    arr = board.arrays()
    assert arr["district_crossings"][arr["district"][board.laboratory], arr["district"][board.market]] == 1


def test_default_panic_track(board):
    for side, track in board.panic:
        levels = dict(track.effects)
        assert track.start == 1 and track.length >= 9
        first, second, third = (levels[e] for e in C.PANIC_EFFECTS[side])
        assert 1 < first <= 7 and 1 < second <= 7 and 7 < third <= 10
    assert board.sides("duel").panic.effects[0][0] == "get_busy"
    assert board.sides("automata").panic.effects[0][0] == "maximum_possession"


def test_default_cure_track(board):
    for side, seq in board.cure:
        assert len(seq) == 12 and all(seq.count(i) == 2 for i in C.INGREDIENTS)
        assert all(a != b for a, b in zip(seq, seq[1:]))
    assert list(board.arrays("duel")["cure_sequence"][:3]) == [0, 2, 1]   # Mandrake Root, Ash Twig, Wolf Claw


def test_default_curse_track(board):
    assert {side: (length, start) for side, length, start in board.curse} == {"monster": (12, 0), "rabid": (12, 0)}


def test_every_constraint_has_a_default_test():
    names = {n for n in dir(sys.modules[__name__]) if n.startswith("test_default_")}
    assert {f"test_default_{c}" for c in CONSTRAINTS} <= names


def test_default_board_shows_every_rulebook_example(board):
    assert example_faults(board) == []
    dist = board.arrays()["distance"]
    h = board.house
    assert dist[h(7), h(1)] <= 2 and dist[h(7), h(3)] == dist[h(7), h(11)] == 3


def test_example_faults_name_what_is_missing():
    text = replace_once('{ a = "house 1", b = "house 7", kind = "gate" }',
                        '{ a = "house 1", b = "house 4", kind = "gate" }')
    faults = example_faults(parse_board(text))
    assert len(faults) == 1 and faults[0].startswith("rabid_monster_movement")


# ---------------------------------------------------------------- arrays


def test_arrays_are_flat_int64_read_only_and_consistent(board):
    arr = board.arrays("automata")
    assert all(a.dtype == np.int64 for a in arr.values())
    with pytest.raises(ValueError):
        arr["coins"][0] = 9
    n = len(board.locations)
    assert len(arr["adj_start"]) == n + 1 and arr["adj_start"][-1] == len(arr["adj"]) == 2 * len(board.roads)
    lab = board.laboratory
    nbrs = {board.locations[j].id for j in arr["adj"][arr["adj_start"][lab]:arr["adj_start"][lab + 1]]}
    assert nbrs == {"house 1", "house 3", "market"}
    seven = board.house(7)
    pastures = arr["location_pastures"][arr["location_pastures_start"][seven]:arr["location_pastures_start"][seven + 1]]
    assert [board.pastures[p].id for p in pastures] == ["Market Green"]
    assert arr["house_location"][0] == -1 and arr["house_number"][arr["house_location"][15]] == 15
    assert list(arr["panic_effect_from"]) == [4, 7, 9] and arr["curse_length"][0] == 12
    assert arr["road_border"].sum() == 12 and "cure_sequence" not in board.arrays()


def test_unknown_mode_names_the_modes(board):
    with pytest.raises(BoardError, match="duel, rabid_monster, possessed_wizard, automata"):
        board.sides("solo")


# ---------------------------------------------------------------- broken files name field and line


def test_unknown_top_field_and_bad_schema():
    text = replace_once('name = "reconstructed-village-v1"', 'nom = "x"')
    msg = error(text)
    assert f"line {line_of(text, 'nom = ')}" in msg and "'nom'" in msg and "valid fields" in msg
    text = replace_once("schema = 1", "schema = 2")
    assert f"line {line_of(text, 'schema = 2')}" in error(text)
    assert "not valid TOML" in error("schema = = 1")


def test_price_out_of_range_names_field_line_and_range():
    text = replace_once("number = 9, coins = 3, price = 2", "number = 9, coins = 3, price = 5")
    msg = error(text)
    assert f"line {line_of(text, 'number = 9,')}" in msg and "'price'" in msg and "1..4" in msg
    assert "house_price_1_to_4" in msg and "'house 9'" in msg


def test_unknown_district_names_the_districts():
    text = replace_once('number = 12, coins = 2, price = 3', 'number = 12, coins = 2, price = 3, colour = 1')
    msg = error(text)
    assert f"line {line_of(text, 'colour')}" in msg and "valid fields" in msg
    text = replace_once('{ id = "house 16", kind = "house", district = "riverside"',
                        '{ id = "house 16", kind = "house", district = "swamp"')
    msg = error(text)
    assert f"line {line_of(text, 'swamp')}" in msg and "old_town, market_row" in msg


def test_duplicate_and_missing_house_numbers():
    text = replace_once("number = 20,", "number = 19,")
    msg = error(text)
    assert f"line {line_of(text, 'number = 19', 2)}" in msg and "house 19 again" in msg
    text = "\n".join(line for line in TEXT.splitlines() if '"house 20"' not in line)   # the house and its roads
    assert text.count("kind = \"gate\"") == TEXT.count("kind = \"gate\"") - 1
    msg = error(text)
    assert "twenty_numbered_houses" in msg and "missing: 20" in msg


def test_road_to_an_unknown_location():
    text = replace_once('{ a = "house 9", b = "house 10" }', '{ a = "house 9", b = "house 21" }')
    msg = error(text)
    assert f"line {line_of(text, 'house 21')}" in msg and "'b'" in msg and "unknown location 'house 21'" in msg


def test_street_across_districts_and_gate_inside_one():
    text = replace_once('b = "house 17", kind = "gate" }', 'b = "house 17", kind = "street" }')
    msg = error(text)
    assert "line " + str(line_of(text, 'kind = \"street\"')) in msg and "valid kinds: gate, bridge" in msg
    text = replace_once('{ a = "house 9", b = "house 10" }', '{ a = "house 9", b = "house 10", kind = "bridge" }')
    msg = error(text)
    assert "line " + str(line_of(text, 'b = \"house 10\", kind')) in msg and "street, not a bridge" in msg
    text = replace_once('{ a = "house 9", b = "house 10" }', '{ a = "house 9", b = "house 10", kind = "ford" }')
    assert "valid kinds: street, gate, bridge" in error(text)


def test_eleven_border_roads_is_one_too_few():
    text = replace_once('  { a = "house 2", b = "house 19", kind = "gate" },', "")
    msg = error(text)
    assert "twelve_border_roads" in msg and "11 roads" in msg and f"line {line_of(text, 'road = [')}" in msg


def test_too_many_sheep():
    text = replace_once('sheep = 3, next_to = ["house 8", "house 12"]', 'sheep = 11, next_to = ["house 8", "house 12"]')
    msg = error(text)
    assert "sheep_within_supply" in msg and "16 sheep icons" in msg and "15" in msg
    text = replace_once('next_to = ["house 16"]', 'next_to = ["house 61"]')
    msg = error(text)
    assert f"line {line_of(text, 'house 61')}" in msg and "'next_to'" in msg


def test_panic_thresholds_name_their_line_and_range():
    text = replace_once("stay_inside = 7             # reconstructed: the latest", "stay_inside = 8  # the latest")
    msg = error(text)
    assert f"line {line_of(text, 'stay_inside = 8')}" in msg and "panic.wizard field 'stay_inside'" in msg
    assert "2..7" in msg
    text = replace_once("possession_intensifies = 9", "possession_intensifies = 7")
    msg = error(text)
    assert f"line {line_of(text, 'possession_intensifies = 7')}" in msg and "8..10" in msg
    text = replace_once("[panic.possessed]\nlength = 10", "[panic.possessed]\nlength = 10\nget_busy = 3")
    msg = error(text)
    assert f"line {line_of(text, 'get_busy = 3')}" in msg and "maximum_possession" in msg


def test_unknown_ingredient_and_missing_side():
    head = TEXT.index("[cure.possessed]")
    text = TEXT[:head] + TEXT[head:].replace('"Mandrake Root"', '"Eye of Newt"', 1)
    msg = error(text)
    assert f"line {line_of(text, 'Eye of Newt')}" in msg and "Silk Thread" in msg and "space 1" in msg
    text = TEXT[:TEXT.index("[curse.rabid]")]
    msg = error(text)
    assert "curse side 'rabid'" in msg and "missing" in msg and "monster, rabid" in msg
    text = replace_once("[curse.rabid]", "[curse.feral]")
    msg = error(text)
    assert f"line {line_of(text, '[curse.feral]')}" in msg and "valid sides: monster, rabid" in msg


def test_a_far_market_is_not_worth_reaching(board):
    data = _as_file(board)
    for road in data["road"]:          # the Farmlands' only gate to the Old Town now leads to Riverside
        if {road["a"], road["b"]} == {"house 2", "house 11"}:
            road.update(a="house 16", b="house 11", kind="bridge")
    for loc in data["location"]:       # the Market and house 10 (Farmlands) change places
        if loc["id"] == "market":
            loc.update(kind="house", number=10, coins=1, price=4)
        elif loc["id"] == "house 10":
            loc["kind"] = "market"
            del loc["number"], loc["coins"], loc["price"]
    text = json.dumps(data, indent=2)
    msg = error(text, json_format=True)
    assert "market_worth_reaching" in msg and "2 district crossings" in msg
    assert "line " + str(line_of(text, '"kind": "market"') + 1) in msg     # the Market's "district" line


def test_disconnected_district_names_the_cut_location():
    text = replace_once('{ a = "house 19", b = "house 17" },', '')
    msg = error(text)
    assert "districts_connected_inside" in msg and "'house 17'" in msg
    assert "line " + str(line_of(text, 'id = "woodland"')) in msg
    text = replace_once('b = "house 17", kind = "gate" },',
                        'b = "house 17", kind = "gate" }, { a = "house 12", b = "house 13", kind = "bridge" },')
    assert "13 roads" in error(text)


def test_distances_must_matter():
    streets = "".join(f'  {{ a = "laboratory", b = "house {k}" }},\n' for k in (1, 2, 3))
    text = "\n".join(['schema = 1', 'name = "star"',
                      'district = [ { id = "a" }, { id = "b" } ]',
                      'location = [', '  { id = "laboratory", kind = "laboratory", district = "a" },',
                      '  { id = "market", kind = "market", district = "b" },'] +
                     [f'  {{ id = "house {k}", kind = "house", district = "{"a" if k <= 3 else "b"}", number = {k}, '
                      f'coins = 1, price = 1 }},' for k in range(1, 21)] + [']', 'road = [', streets] +
                     [f'  {{ a = "market", b = "house {k}" }},' for k in range(4, 21)] +
                     [f'  {{ a = "house {k}", b = "house {k + 3}", kind = "gate" }},' for k in (1, 2, 3)] +
                     [f'  {{ a = "laboratory", b = "house {k}", kind = "gate" }},' for k in range(7, 16)] + [']',
                      'pasture = [ { id = "p", sheep = 1, next_to = ["house 1"] } ]'] +
                     TEXT[TEXT.index("[panic.wizard]"):].splitlines())
    msg = error(text)
    assert "distances_2_and_3_matter" in msg


def test_json_board_equals_the_toml_board_and_names_lines(board):
    text = json.dumps(_as_file(board), indent=2)
    assert parse_board(text, json_format=True).digest == board.digest
    bad = text.replace('"price": 4', '"price": 0', 1)
    msg = error(bad, json_format=True)
    assert "line " + str(line_of(bad, '\"price\": 0')) in msg and "1..4" in msg
    bad = text.replace('"stay_inside": 7', '"stay_inside": 1', 1)
    msg = error(bad, json_format=True)
    assert "line " + str(line_of(bad, '\"stay_inside\": 1')) in msg
    assert "not valid JSON" in error("{", json_format=True)


def test_board_option_loads_once_per_file_version(tmp_path):
    assert board_of() is board_of("default") and board_of().digest == load_board().digest
    path = tmp_path / "mine.toml"
    path.write_text(TEXT, encoding="utf-8")
    first = board_of(str(path))
    assert first.digest == load_board().digest and board_of(str(path)) is first
    path.write_text(TEXT.replace("sheep = 1,", "sheep = 2,  "), encoding="utf-8")
    assert board_of(str(path)).digest != first.digest
    with pytest.raises(BoardError, match="cannot read"):
        board_of(str(tmp_path / "missing.toml"))


def test_unreadable_file_is_a_cursedsim_error(tmp_path):
    with pytest.raises(CursedsimError, match="cannot read board file"):
        load_board(tmp_path / "nope.toml")
    path = tmp_path / "mine.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(BoardError, match="mine.json, line 1: field 'schema': missing"):
        load_board(path)


# ---------------------------------------------------------------- digest


def test_digest_is_stable_and_follows_content_not_comments(board):
    assert re.fullmatch(r"[0-9a-f]{12}", board.digest) and board.label == f"{board.name}@{board.digest}"
    assert load_board().digest == board.digest == "ff7d9278616c"    # changes only when the board does
    commented = "# one more comment\n" + TEXT.replace("# Five districts", "# 5 districts")
    assert parse_board(commented).digest == board.digest
    for old, new in (("coins = 4, price = 1 },  # one bridge", "coins = 3, price = 1 },  # one bridge"),
                     ('{ a = "house 9", b = "house 10" }', '{ a = "house 10", b = "house 9" }'),
                     ("plethora_of_potions = 9", "plethora_of_potions = 10"),
                     ("sheep = 1,", "sheep = 2,")):
        assert parse_board(replace_once(old, new)).digest != board.digest, old


# ---------------------------------------------------------------- generated boards


def test_generated_boards_are_valid_and_differ():
    boards = [generate(seed) for seed in range(8)]
    assert len({b.digest for b in boards}) == 8
    for b in boards:
        assert b.reconstructed and b.name.startswith("generated-")
        arr = b.arrays("automata")
        assert sorted(arr["house_number"][arr["house_number"] > 0]) == list(range(1, 21))
        assert arr["road_border"].sum() == 12 and arr["distance"].max() >= 4
        # the generated board survives a round trip through the validator's text path too
        assert parse_board(json.dumps(_as_file(b)), json_format=True).digest == b.digest
    assert generate(3).digest == generate(3).digest


def _as_file(b) -> dict:
    data = json.loads(b.canonical())
    return {"schema": 1, "name": b.name, "reconstructed": True,
            "district": [{"id": d, "name": n} for d, n in data["district"]],
            "location": [{"id": i, "kind": k, "district": d,
                          **({"number": n, "coins": c, "price": p} if k == "house" else {})}
                         for i, k, d, n, c, p in data["location"]],
            "road": [{"a": a, "b": b, "kind": k} for a, b, k in data["road"]],
            "pasture": [{"id": i, "sheep": s, "next_to": n} for i, s, n in data["pasture"]],
            "panic": {s: {"length": ln, "start": st, **dict(e)} for s, ln, st, e in data["panic"]},
            "cure": {s: {"sequence": q} for s, q in data["cure"]},
            "curse": {s: {"length": ln, "start": st} for s, ln, st in data["curse"]}}


# ---------------------------------------------------------------- track lengths (rule options O35-O38)

def test_track_length_options_resize_one_board_side(board):
    from cursedsim.games.village import reference as REF
    from cursedsim.games.village import rules as R
    from cursedsim.games.village import state as S
    from cursedsim.games.village.board import with_track_lengths
    assert with_track_lengths(board) is board
    longer = with_track_lengths(board, {"wizard": 15}, {"rabid": 9})
    wizard_cure = dict(board.cure)["wizard"]
    assert dict(longer.cure)["wizard"] == wizard_cure + wizard_cure[:3]      # repeated from its start
    assert dict(longer.cure)["possessed"] == dict(board.cure)["possessed"]
    assert longer.sides("rabid_monster").curse_length == 9 and longer.sides("duel").curse_length == 12
    assert dict(with_track_lengths(board, {"possessed": 5}).cure)["possessed"] == dict(board.cure)["possessed"][:5]
    options = R.RuleOptions(wizard_cure_length=7, monster_curse_length=20)
    t = REF.Table.deal(1, 0, options, mode=R.DUEL, controllers={R.WIZARD: object(), R.MONSTER: object()})
    assert len(t.cure_seq) == 7 and t.curse_top == 20
    bd = S.pack_board(with_track_lengths(board, *options.track_lengths(board)), R.DUEL)
    assert bd[S.BD_CURE_LEN] == 7 and bd[S.BD_CURSE_LEN] == 20
    with pytest.raises(BoardError, match=r"valid sides: wizard, possessed"):
        with_track_lengths(board, {"monster": 5})
    with pytest.raises(BoardError, match=r"1\.\.30"):
        with_track_lengths(board, curse={"rabid": 0})
    with pytest.raises(BoardError, match=r"1\.\.30"):
        with_track_lengths(board, {"wizard": 31})


def test_the_default_board_plays_its_calibrated_track_lengths():
    """O39: with ``track_calibration="calibrated"`` (the default) the reconstructed default board plays the
    lengths of data/track_calibration.toml, a length option overrides one of them, ``"board"`` plays the
    file's; any other board (a generated one) keeps its own; a bad value names the valid ones."""
    import tomllib

    from cursedsim.errors import OptionError
    from cursedsim.games.village import rules as R
    from cursedsim.games.village.board import TRACK_CALIBRATION, board_of, generate, with_track_lengths
    with open(TRACK_CALIBRATION, "rb") as handle:
        calibration = tomllib.load(handle)
    board = board_of("default")
    assert calibration["board"] == board.label       # the file names the board it was calibrated on
    cure, curse = R.RuleOptions().track_lengths(board)
    assert cure == calibration["cure"] and curse == calibration["curse"]
    played = with_track_lengths(board, cure, curse)
    assert len(played.sides(R.DUEL).cure) == calibration["cure"]["wizard"]
    assert played.sides("rabid_monster").curse_length == calibration["curse"]["rabid"]
    cure, curse = R.RuleOptions(rabid_curse_length=9).track_lengths(board)
    assert curse["rabid"] == 9 and cure == calibration["cure"]
    assert R.RuleOptions(track_calibration="board").track_lengths(board) == ({}, {})
    assert R.RuleOptions().track_lengths(generate(3)) == ({}, {})
    with pytest.raises(OptionError, match="calibrated.*board"):
        R.RuleOptions(track_calibration="tuned")


def test_an_entry_that_is_not_a_table_or_lacks_a_field_names_it():
    """Before the shared data-file pipeline (cursedsim.datafile) these raised a TypeError."""
    data = tomllib.loads(TEXT)
    data["district"][1] = 3
    with pytest.raises(BoardError, match=r"^b.json, line 1: district 2: must be a table of keys$"):
        validate(data, Lines("", True), "b.json")
    data = tomllib.loads(TEXT)
    del data["road"][2]["a"]
    text = json.dumps(data, indent=1)
    line = Lines(text, True).entry("road", 2)
    with pytest.raises(BoardError, match=rf"^b.json, line {line}: road 3 field 'a': missing$"):
        parse_board(text, json_format=True, source="b.json")
    assert line > 1
