"""Board files of So, You've Been Cursed.: load a TOML (or JSON) village board, validate it against every
constraint the rulebook and the component facts fix, and freeze it as a ``Board`` with a name, a
``reconstructed`` flag, a digest and flat int64 arrays for the engines.

Nothing of the real board is public (the road graph, the districts, house values and prices, pastures,
the Cure track's ingredients and the track lengths), so the board is a data file; the default one
(``data/default_board.toml``) is a reconstruction. Every constraint is named (``CONSTRAINTS``) and
documented with the sentence it rests on in docs/rules/village_board.md. Every error names the file, the
bad field and its line and, where there is a choice, the valid choices. The file is read by
``cursedsim.datafile``'s pipeline (``BOARD_FILE``).
"""

from __future__ import annotations

import tomllib
from collections import deque
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from cursedsim.datafile import DataFormat, Digested, Fields, Lines, error, int64_arrays, is_int
from cursedsim.errors import OptionError
from cursedsim.games.village import components as C

SCHEMA = 1
DEFAULT_BOARD = Path(__file__).with_name("data") / "default_board.toml"
TOP_KEYS = ("schema", "name", "reconstructed", "description", "district", "location", "road", "pasture",
            "panic", "cure", "curse")
REQUIRED_TOP = ("schema", "name", "district", "location", "road", "pasture", "panic", "cure", "curse")
DISTRICT_KEYS = ("id", "name", "note")
LOCATION_KEYS = ("id", "kind", "district", "number", "coins", "price", "note")
LOCATION_KINDS = ("house", "laboratory", "market", "junction")
ROAD_KEYS = ("a", "b", "kind", "note")
#: a road inside a district is a street; a road between districts crosses a wall (gate) or a river (bridge)
ROAD_KINDS = ("street", "gate", "bridge")
PASTURE_KEYS = ("id", "sheep", "next_to", "note")
PANIC_KEYS = ("length", "start")
CURE_KEYS = ("sequence",)
CURSE_KEYS = ("length", "start")
#: house coin values: at least 1 (an occupied house lets the Wizard declare "at least 1 coin"), at most the
#: 6 of the d6 (a declared number is beaten only by a higher roll).
COINS_MIN, COINS_MAX = 1, C.D6
#: track bounds: long enough for the rulebook's rules, short enough for a game to end.
CURE_MIN, CURE_MAX = 3, 30
CURSE_MIN, CURSE_MAX = 3, 30
PANIC_MIN = 9          # "After level 9, all effects apply": level 9 exists
PANIC_MAX = 20
#: the Rabid Monster looks 2 and 3 roads away; a board on which 3 roads reach everything has no far houses.
MIN_DIAMETER = 4
#: "A Market worth reaching": at most this many district crossings from the Laboratory.
MARKET_MAX_CROSSINGS = 1

#: The named constraints every board meets (docs/rules/village_board.md gives each its source).
CONSTRAINTS: tuple[str, ...] = (
    "twenty_numbered_houses", "one_laboratory", "one_market", "house_coins_in_range", "house_price_1_to_4",
    "roads_join_known_locations", "border_roads_are_gates_or_bridges", "twelve_border_roads",
    "board_connected", "districts_connected_inside", "at_least_two_districts", "pastures_hold_sheep",
    "sheep_within_supply", "distances_2_and_3_matter", "market_worth_reaching", "panic_track",
    "cure_track", "curse_track",
)


class BoardError(OptionError):
    """A board file that cannot be read or breaks a constraint; the message names the field and line."""


@dataclass(frozen=True)
class District:
    id: str
    name: str


@dataclass(frozen=True)
class Location:
    """A space the token can stand on: a house (numbered 1-20, with coin value and ingredient price), the
    Laboratory, the Market, or a road junction (no house)."""

    id: str
    kind: str
    district: str
    number: int = 0
    coins: int = 0
    price: int = 0


@dataclass(frozen=True)
class Road:
    a: str
    b: str
    kind: str

    @property
    def border(self) -> bool:
        return self.kind != "street"


@dataclass(frozen=True)
class Pasture:
    id: str
    sheep: int
    next_to: tuple[str, ...]


@dataclass(frozen=True)
class PanicTrack:
    """One Village board side's Panic track: levels ``start``..``length`` and the level each effect starts
    at (``effects`` in the order of ``components.PANIC_EFFECTS[side]``)."""

    length: int
    start: int
    effects: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Sides:
    """The tracks of one mode: the Village board side's Panic track, the Wizard board side's Cure track
    (the ingredient of each space above the start, bottom to top) and the Monster board side's Curse track."""

    mode: str
    panic: PanicTrack
    cure: tuple[str, ...]
    curse_length: int
    curse_start: int


@dataclass(frozen=True)
class Board(Digested):
    """A validated village board. ``digest``: 12 hex of the sha256 of the canonical content; ``label``:
    ``name@digest``, the frames' ``board`` column."""

    SCHEMA = SCHEMA
    name: str
    reconstructed: bool
    districts: tuple[District, ...]
    locations: tuple[Location, ...]
    roads: tuple[Road, ...]
    pastures: tuple[Pasture, ...]
    panic: tuple[tuple[str, PanicTrack], ...]           # (village side, track)
    cure: tuple[tuple[str, tuple[str, ...]], ...]       # (wizard side, ingredient sequence)
    curse: tuple[tuple[str, int, int], ...]             # (monster side, length, start)
    source: str = ""

    def content(self) -> dict:
        """What the digest covers besides schema, name and reconstructed (descriptions and notes excluded;
        order of districts, locations, roads and pastures kept: it numbers the arrays)."""
        return {
            "district": [[d.id, d.name] for d in self.districts],
            "location": [[l.id, l.kind, l.district, l.number, l.coins, l.price] for l in self.locations],
            "road": [[r.a, r.b, r.kind] for r in self.roads],
            "pasture": [[p.id, p.sheep, list(p.next_to)] for p in self.pastures],
            "panic": [[s, t.length, t.start, [list(e) for e in t.effects]] for s, t in self.panic],
            "cure": [[s, list(q)] for s, q in self.cure],
            "curse": [list(c) for c in self.curse]}

    # ------------------------------------------------------------ lookups

    @cached_property
    def index(self) -> dict[str, int]:
        """Location id -> location index (file order)."""
        return {loc.id: i for i, loc in enumerate(self.locations)}

    def house(self, number: int) -> int:
        """The location index of house ``number`` (1-20)."""
        return int(self.arrays()["house_location"][number])

    @cached_property
    def laboratory(self) -> int:
        return next(i for i, l in enumerate(self.locations) if l.kind == "laboratory")

    @cached_property
    def market(self) -> int:
        return next(i for i, l in enumerate(self.locations) if l.kind == "market")

    def sides(self, mode: str) -> Sides:
        """The tracks ``mode`` plays with (components.MODE_SIDES); a BoardError names the modes."""
        if mode not in C.MODE_SIDES:
            raise BoardError(f"unknown mode {mode!r}; valid modes: {', '.join(C.MODES)}")
        village, wizard, monster = C.MODE_SIDES[mode]
        curse = next(c for c in self.curse if c[0] == monster)
        return Sides(mode, dict(self.panic)[village], dict(self.cure)[wizard], curse[1], curse[2])

    # ------------------------------------------------------------ arrays

    def arrays(self, mode: str | None = None) -> dict[str, np.ndarray]:
        """Flat int64 arrays (read-only) for a compiled kernel; locations, roads and pastures numbered in
        file order. With ``mode``, also that mode's tracks (``sides``). Keys:

        - ``kind[n]`` (LOCATION_KINDS index), ``district[n]`` (district index), ``house_number[n]`` (0 off
          houses), ``coins[n]``, ``price[n]`` (0 off houses), ``house_location[21]`` (house number ->
          location; [0] = -1), ``laboratory[1]``, ``market[1]``;
        - roads: ``road_a[r]``, ``road_b[r]``, ``road_kind[r]`` (ROAD_KINDS index), ``road_border[r]`` (0/1),
          ``guard_slot[r]`` (0-11 on the border roads in file order, -1 off them);
        - adjacency as CSR: neighbours of location i are ``adj[adj_start[i]:adj_start[i+1]]`` (sorted),
          over road ``adj_road[...]``;
        - ``distance[n, n]`` in roads (breadth-first), ``district_crossings[d, d]`` (fewest gates and
          bridges between two districts: the Wizard's carriage fare), ``district_adjacent[d, d]`` (0/1);
        - pastures: ``pasture_sheep[p]``, CSR ``pasture_next[pasture_next_start[p]:...]`` (locations next
          to pasture p) and ``location_pastures[location_pastures_start[i]:...]`` (pastures next to i);
        - with mode: ``cure_sequence[k]`` (components.INGREDIENTS index), ``curse_length``, ``curse_start``,
          ``panic_length``, ``panic_start``, ``panic_effect_from[3]`` (in components.PANIC_EFFECTS order).
        """
        out = dict(self._map_arrays)
        if mode is not None:
            s = self.sides(mode)
            out.update(int64_arrays({
                "cure_sequence": [C.INGREDIENTS.index(i) for i in s.cure],
                "curse_length": [s.curse_length], "curse_start": [s.curse_start],
                "panic_length": [s.panic.length], "panic_start": [s.panic.start],
                "panic_effect_from": [lvl for _, lvl in s.panic.effects]}))
        return out

    @cached_property
    def _map_arrays(self) -> dict[str, np.ndarray]:
        n = len(self.locations)
        idx = self.index
        dist_of = {d.id: k for k, d in enumerate(self.districts)}
        a = {"kind": [LOCATION_KINDS.index(l.kind) for l in self.locations],
             "district": [dist_of[l.district] for l in self.locations],
             "house_number": [l.number for l in self.locations],
             "coins": [l.coins for l in self.locations],
             "price": [l.price for l in self.locations]}
        house_location = [-1] * (C.HOUSES + 1)
        for i, l in enumerate(self.locations):
            if l.kind == "house":
                house_location[l.number] = i
        a["house_location"] = house_location
        a["laboratory"] = [self.laboratory]
        a["market"] = [self.market]
        a["road_a"] = [idx[r.a] for r in self.roads]
        a["road_b"] = [idx[r.b] for r in self.roads]
        a["road_kind"] = [ROAD_KINDS.index(r.kind) for r in self.roads]
        a["road_border"] = [int(r.border) for r in self.roads]
        slots, k = [], 0
        for r in self.roads:
            slots.append(k if r.border else -1)
            k += r.border
        a["guard_slot"] = slots
        nbrs = _neighbours(n, [(idx[r.a], idx[r.b], j) for j, r in enumerate(self.roads)])
        start, adj, adj_road = [0], [], []
        for i in range(n):
            for m, j in nbrs[i]:
                adj.append(m)
                adj_road.append(j)
            start.append(len(adj))
        a["adj_start"], a["adj"], a["adj_road"] = start, adj, adj_road
        a["distance"] = _all_distances(n, [[m for m, _ in nb] for nb in nbrs])
        nd = len(self.districts)
        dadj = [[0] * nd for _ in range(nd)]
        for r in self.roads:
            if r.border:
                x, y = dist_of[self.locations[idx[r.a]].district], dist_of[self.locations[idx[r.b]].district]
                dadj[x][y] = dadj[y][x] = 1
        a["district_adjacent"] = dadj
        a["district_crossings"] = _all_distances(nd, [[y for y in range(nd) if dadj[x][y]] for x in range(nd)])
        a["pasture_sheep"] = [p.sheep for p in self.pastures]
        ps, pn = [0], []
        for p in self.pastures:
            pn.extend(sorted(idx[x] for x in p.next_to))
            ps.append(len(pn))
        a["pasture_next_start"], a["pasture_next"] = ps, pn
        ls, lp = [0], []
        for i in range(n):
            lp.extend(k for k, p in enumerate(self.pastures) if self.locations[i].id in p.next_to)
            ls.append(len(lp))
        a["location_pastures_start"], a["location_pastures"] = ls, lp
        return int64_arrays(a)


def _neighbours(n: int, edges: list[tuple[int, int, int]]) -> list[list[tuple[int, int]]]:
    nbrs: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for x, y, j in edges:
        nbrs[x].append((y, j))
        nbrs[y].append((x, j))
    return [sorted(nb) for nb in nbrs]


def _all_distances(n: int, nbrs: list[list[int]]) -> list[list[int]]:
    """Breadth-first distances; -1 where unreachable."""
    out = []
    for s in range(n):
        d = [-1] * n
        d[s] = 0
        q = deque([s])
        while q:
            x = q.popleft()
            for y in nbrs[x]:
                if d[y] < 0:
                    d[y] = d[x] + 1
                    q.append(y)
        out.append(d)
    return out


#: The arrays of entries and the tables of sides in a board file (``datafile.Lines`` finds their lines).
ARRAYS = ("district", "location", "road", "pasture")
SUBTABLES = ("panic", "cure", "curse")


# ---------------------------------------------------------------- loading


def load_board(path: str | Path | None = None) -> Board:
    """The board in ``path`` (``.toml`` or ``.json``), validated; the default board when None."""
    return BOARD_FILE.load(path)


def board_of(board: str = "default") -> Board:
    """The Board of a ``board`` option ("default" or a path). Loaded once per process and file version
    (``DataFormat.of``)."""
    return BOARD_FILE.of(board)


def parse_board(text: str, *, json_format: bool = False, source: str = "<board>") -> Board:
    """A board from the text of a TOML (or JSON) file; raises BoardError naming field and line."""
    return BOARD_FILE.parse(text, json_format=json_format, source=source)


#: The calibrated track lengths of the reconstructed default board (data/track_calibration.toml, issue 26).
TRACK_CALIBRATION = Path(__file__).resolve().parent / "data" / "track_calibration.toml"


@lru_cache(maxsize=1)
def _calibration() -> tuple[str, dict[str, int], dict[str, int]]:
    with open(TRACK_CALIBRATION, "rb") as handle:
        raw = tomllib.load(handle)
    return raw["board"], dict(raw["cure"]), dict(raw["curse"])


def calibrated_lengths(board: Board) -> tuple[dict[str, int], dict[str, int]]:
    """(Cure lengths by Wizard board side, Curse lengths by Monster board side) calibrated for ``board``:
    the calibration file's when ``board`` is the board it names (by label, so an edited copy is not), else
    none (every other board keeps its own lengths)."""
    label, cure, curse = _calibration()
    return (dict(cure), dict(curse)) if board.label == label else ({}, {})


#: The shortest track the length options make (a board file's tracks: CURE_MIN, CURSE_MIN spaces at least;
#: an experiment may go shorter, e.g. to make random play end).
TRACK_MIN = 1


def with_track_lengths(board: Board, cure: dict[str, int] | None = None,
                       curse: dict[str, int] | None = None) -> Board:
    """``board`` with other track lengths (rule options ``wizard_cure_length`` etc.): ``cure`` maps a Wizard
    board side (components.WIZARD_SIDES) to its Cure track's spaces, the file's ingredient sequence cut to
    that length or repeated from its start; ``curse`` maps a Monster board side to its Curse track's
    length (the start space kept). The same board when both are empty; a BoardError names a bad side or
    length and the valid ones."""
    if not cure and not curse:
        return board
    return _resized(board, tuple(sorted((cure or {}).items())), tuple(sorted((curse or {}).items())))


@lru_cache(maxsize=64)
def _resized(board: Board, cure: tuple[tuple[str, int], ...], curse: tuple[tuple[str, int], ...]) -> Board:
    new_cure = dict(board.cure)
    for side, n in cure:
        if side not in new_cure:
            raise BoardError(f"unknown Wizard board side {side!r}; valid sides: {', '.join(new_cure)}")
        if not TRACK_MIN <= n <= CURE_MAX:
            raise BoardError(f"Cure track length of side {side!r} must be in {TRACK_MIN}..{CURE_MAX}, got {n}")
        seq = new_cure[side]
        new_cure[side] = tuple(seq[k % len(seq)] for k in range(n))
    new_curse = {c[0]: (c[1], c[2]) for c in board.curse}
    for side, n in curse:
        if side not in new_curse:
            raise BoardError(f"unknown Monster board side {side!r}; valid sides: {', '.join(new_curse)}")
        start = new_curse[side][1]
        low = max(TRACK_MIN, start + 1)
        if not low <= n <= CURSE_MAX:
            raise BoardError(f"Curse track length of side {side!r} must be in {low}..{CURSE_MAX} (above its "
                             f"start {start}), got {n}")
        new_curse[side] = (n, start)
    return replace(board, cure=tuple(new_cure.items()),
                   curse=tuple((side, n, start) for side, (n, start) in new_curse.items()))


# ---------------------------------------------------------------- validation


def _fail(source: str, line: int, where: str, message: str) -> BoardError:
    return error(BoardError, source, line, where, message)


def validate(data: object, lines: Lines, source: str) -> Board:
    """The Board ``data`` describes, or a BoardError on its first fault: fields and types first (top level,
    districts, locations, roads, pastures, tracks), then the named constraints (``CONSTRAINTS``)."""
    return BOARD_FILE.validate(data, lines, source)


def _build(data: dict, lines: Lines, source: str, name: str, reconstructed: bool) -> Board:
    def entry(array: str, i: int, raw: object, keys: tuple[str, ...], required: tuple[str, ...]) -> Fields:
        return BOARD_FILE.entry(lines, source, array, i, raw, keys, required)

    def unique_id(array: str, i: int, f: Fields, seen: dict[str, int]) -> str:
        v = f.raw["id"]
        if not isinstance(v, str) or not v.strip():
            raise f.bad("id", f"must be a non-empty string, got {v!r}")
        if v in seen:
            raise f.bad("id", f"duplicate id {v!r} (also {array} {seen[v] + 1})")
        seen[v] = i
        return v

    # districts
    districts, dseen = [], {}
    for i, raw in enumerate(data["district"]):
        f = entry("district", i, raw, DISTRICT_KEYS, ("id",))
        did = unique_id("district", i, f, dseen)
        dname = raw.get("name", did)
        if not isinstance(dname, str):
            raise f.bad("name", f"must be a string, got {dname!r}")
        districts.append(District(did, dname))
    if len(districts) < 2:
        raise _fail(source, lines.top("district"), "constraint at_least_two_districts",
                    f"a board has at least 2 districts (Town Guard tiles sit on paths between districts), "
                    f"got {len(districts)}")

    # locations
    locations, lseen = [], {}
    for i, raw in enumerate(data["location"]):
        f = entry("location", i, raw, LOCATION_KEYS, ("id", "kind", "district"))
        bad = f.bad
        lid = unique_id("location", i, f, lseen)
        kind = raw["kind"]
        if kind not in LOCATION_KINDS:
            raise bad("kind", f"unknown kind {kind!r}; valid kinds: {', '.join(LOCATION_KINDS)}")
        if not isinstance(raw["district"], str) or raw["district"] not in dseen:   # a table or list is no id
            raise bad("district", f"unknown district {raw['district']!r}; districts: {', '.join(dseen)}")
        if kind == "house":
            for key in ("number", "coins", "price"):
                if key not in raw:
                    raise f.missing(key, "missing (a house has number, coins and price)")
                if not is_int(raw[key]):
                    raise bad(key, f"must be an integer, got {raw[key]!r}")
            if not 1 <= raw["number"] <= C.HOUSES:
                raise bad("number", f"constraint twenty_numbered_houses: house numbers are 1-{C.HOUSES} (the d20), "
                                    f"got {raw['number']}")
            if not COINS_MIN <= raw["coins"] <= COINS_MAX:
                raise bad("coins", f"constraint house_coins_in_range: must be in {COINS_MIN}..{COINS_MAX}, "
                                   f"got {raw['coins']}")
            if not C.PRICE_MIN <= raw["price"] <= C.PRICE_MAX:
                raise bad("price", f"constraint house_price_1_to_4: must be in {C.PRICE_MIN}..{C.PRICE_MAX}, "
                                   f"got {raw['price']}")
            locations.append(Location(lid, kind, raw["district"], raw["number"], raw["coins"], raw["price"]))
        else:
            for key in ("number", "coins", "price"):
                if key in raw:
                    raise bad(key, f"only a house has {key!r}; this location is a {kind}")
            locations.append(Location(lid, kind, raw["district"]))
    numbers: dict[int, int] = {}
    for i, loc in enumerate(locations):
        if loc.kind == "house":
            if loc.number in numbers:
                raise _fail(source, lines.entry("location", i, "number"),
                            f"location {i + 1} ({loc.id!r}) field 'number'",
                            f"constraint twenty_numbered_houses: house {loc.number} again "
                            f"(also location {numbers[loc.number] + 1})")
            numbers[loc.number] = i
    missing = [k for k in range(1, C.HOUSES + 1) if k not in numbers]
    if missing:
        raise _fail(source, lines.top("location"), "constraint twenty_numbered_houses",
                    f"houses 1-{C.HOUSES} each once; missing: {', '.join(map(str, missing))}")
    for kind, constraint in (("laboratory", "one_laboratory"), ("market", "one_market")):
        at = [i for i, l in enumerate(locations) if l.kind == kind]
        if len(at) != 1:
            line = lines.entry("location", at[1], "kind") if len(at) > 1 else lines.top("location")
            raise _fail(source, line, f"constraint {constraint}", f"a board has exactly one {kind}, this one {len(at)}")
    district_of = {l.id: l.district for l in locations}

    # roads
    roads, rseen = [], {}
    for i, raw in enumerate(data["road"]):
        bad = entry("road", i, raw, ROAD_KEYS, ("a", "b")).bad
        for key in ("a", "b"):
            if not isinstance(raw[key], str) or raw[key] not in lseen:   # a table or list is no id
                raise bad(key, f"constraint roads_join_known_locations: unknown location {raw[key]!r}; "
                               f"locations: {', '.join(lseen)}")
        a, b = raw["a"], raw["b"]
        if a == b:
            raise bad("b", f"constraint roads_join_known_locations: a road joins two locations, not {a!r} to itself")
        pair = frozenset((a, b))
        if pair in rseen:
            raise bad("b", f"constraint roads_join_known_locations: road {a!r} - {b!r} again "
                           f"(also road {rseen[pair] + 1})")
        rseen[pair] = i
        crosses = district_of[a] != district_of[b]
        kind = raw.get("kind", "gate" if crosses else "street")
        if kind not in ROAD_KINDS:
            raise bad("kind", f"unknown kind {kind!r}; valid kinds: {', '.join(ROAD_KINDS)}")
        if crosses and kind == "street":
            raise bad("kind", f"constraint border_roads_are_gates_or_bridges: road {a!r} - {b!r} joins districts "
                              f"{district_of[a]!r} and {district_of[b]!r}; valid kinds: gate, bridge")
        if not crosses and kind != "street":
            raise bad("kind", f"constraint border_roads_are_gates_or_bridges: road {a!r} - {b!r} stays in district "
                              f"{district_of[a]!r}, so it is a street, not a {kind}")
        roads.append(Road(a, b, kind))
    border = [i for i, r in enumerate(roads) if r.border]
    if len(border) != C.BORDER_ROADS:
        raise _fail(source, lines.top("road"), "constraint twelve_border_roads",
                    f"{len(border)} roads cross between districts; the board has exactly {C.BORDER_ROADS} "
                    f"(one per Town Guard tile)")

    # pastures
    pastures, pseen = [], {}
    for i, raw in enumerate(data["pasture"]):
        f = entry("pasture", i, raw, PASTURE_KEYS, ("id", "sheep", "next_to"))
        bad = f.bad
        pid = unique_id("pasture", i, f, pseen)
        if not is_int(raw["sheep"]) or raw["sheep"] < 1:
            raise bad("sheep", f"constraint pastures_hold_sheep: must be an integer >= 1 (sheep icons), "
                               f"got {raw['sheep']!r}")
        nxt = raw["next_to"]
        if not isinstance(nxt, list) or not nxt or not all(isinstance(x, str) for x in nxt):
            raise bad("next_to", f"must be a non-empty list of location ids, got {nxt!r}")
        for x in nxt:
            if x not in lseen:
                raise bad("next_to", f"unknown location {x!r}; locations: {', '.join(lseen)}")
        if len(set(nxt)) != len(nxt):
            raise bad("next_to", f"lists a location twice: {nxt!r}")
        pastures.append(Pasture(pid, raw["sheep"], tuple(nxt)))
    total = sum(p.sheep for p in pastures)
    if total > C.SHEEP_TOKENS:
        raise _fail(source, lines.top("pasture"), "constraint sheep_within_supply",
                    f"the pastures show {total} sheep icons; the game has {C.SHEEP_TOKENS} sheep tokens")

    panic = _panic(data["panic"], lines, source)
    cure = _cure(data["cure"], lines, source)
    curse = _curse(data["curse"], lines, source)
    board = Board(name=name, reconstructed=reconstructed, districts=tuple(districts),
                  locations=tuple(locations), roads=tuple(roads), pastures=tuple(pastures),
                  panic=panic, cure=cure, curse=curse, source=source)
    _check_graph(board, lines, source)
    return board


def _sides(table: str, raw: object, valid: tuple[str, ...], lines: Lines, source: str) -> dict:
    if not isinstance(raw, dict):
        raise _fail(source, lines.top(table), f"field {table!r}", f"must be a table of sides: {', '.join(valid)}")
    for side in raw:
        if side not in valid:
            raise _fail(source, lines.side(table, side), f"{table} side {side!r}",
                        f"unknown side; valid sides: {', '.join(valid)}")
    for side in valid:
        if side not in raw:
            raise _fail(source, lines.top(table), f"{table} side {side!r}", f"missing (every side: {', '.join(valid)})")
        if not isinstance(raw[side], dict):
            raise _fail(source, lines.side(table, side), f"{table} side {side!r}", "must be a table of keys")
    return raw


def _side_fields(table: str, side: str, raw: dict, keys: tuple[str, ...], lines: Lines, source: str) -> Fields:
    """The keys of one side of the tracks table ``table``, every one required; labelled ``<table>.<side>``."""
    return Fields(BOARD_FILE, lines, source, (table, side), f"{table}.{side}", raw, keys, keys)


def _panic(raw: object, lines: Lines, source: str) -> tuple[tuple[str, PanicTrack], ...]:
    raw = _sides("panic", raw, C.VILLAGE_SIDES, lines, source)
    out = []
    for side in C.VILLAGE_SIDES:
        t = raw[side]
        effects = C.PANIC_EFFECTS[side]
        allowed = PANIC_KEYS + effects
        bad = _side_fields("panic", side, t, allowed, lines, source).bad
        for key in allowed:
            if not is_int(t[key]):
                raise bad(key, f"must be an integer, got {t[key]!r}")
        if t["start"] != C.PANIC_START:
            raise bad("start", f"constraint panic_track: the Panic tile starts on space \"1\", got {t['start']}")
        if not PANIC_MIN <= t["length"] <= PANIC_MAX:
            raise bad("length", f"constraint panic_track: must be in {PANIC_MIN}..{PANIC_MAX} (level 9 exists), "
                                f"got {t['length']}")
        first, second, third = (t[e] for e in effects)
        for key in effects[:2]:
            if not C.PANIC_START < t[key] <= C.PANIC_TWO_EFFECTS_BY:
                raise bad(key, f"constraint panic_track: must be in {C.PANIC_START + 1}..{C.PANIC_TWO_EFFECTS_BY} "
                               f"(both first effects apply once Panic reaches 7), got {t[key]}")
        if not C.PANIC_TWO_EFFECTS_BY < third <= min(C.PANIC_ALL_EFFECTS_BY, t["length"]):
            raise bad(effects[2], f"constraint panic_track: must be in {C.PANIC_TWO_EFFECTS_BY + 1}.."
                                  f"{min(C.PANIC_ALL_EFFECTS_BY, t['length'])} (not yet at 7, all effects after 9, "
                                  f"on the track), got {third}")
        out.append((side, PanicTrack(t["length"], t["start"], tuple((e, t[e]) for e in effects))))
    return tuple(out)


def _cure(raw: object, lines: Lines, source: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    raw = _sides("cure", raw, C.WIZARD_SIDES, lines, source)
    out = []
    for side in C.WIZARD_SIDES:
        t = raw[side]
        bad = _side_fields("cure", side, t, CURE_KEYS, lines, source).bad
        seq = t["sequence"]
        if not isinstance(seq, list):
            raise bad("sequence", f"must be a list of ingredients, got {seq!r}")
        if not CURE_MIN <= len(seq) <= CURE_MAX:
            raise bad("sequence", f"constraint cure_track: {CURE_MIN}-{CURE_MAX} spaces above the start, "
                                  f"got {len(seq)}")
        for k, item in enumerate(seq):
            if item not in C.INGREDIENTS:
                raise _fail(source, lines.line("cure", side, "sequence", k),
                            f"cure.{side} field 'sequence' space {k + 1}",
                            f"constraint cure_track: unknown ingredient {item!r}; "
                            f"ingredients: {', '.join(C.INGREDIENTS)}")
        out.append((side, tuple(seq)))
    return tuple(out)


def _curse(raw: object, lines: Lines, source: str) -> tuple[tuple[str, int, int], ...]:
    raw = _sides("curse", raw, C.MONSTER_SIDES, lines, source)
    out = []
    for side in C.MONSTER_SIDES:
        t = raw[side]
        bad = _side_fields("curse", side, t, CURSE_KEYS, lines, source).bad
        for key in CURSE_KEYS:
            if not is_int(t[key]):
                raise bad(key, f"must be an integer, got {t[key]!r}")
        if not CURSE_MIN <= t["length"] <= CURSE_MAX:
            raise bad("length", f"constraint curse_track: must be in {CURSE_MIN}..{CURSE_MAX}, got {t['length']}")
        if not 0 <= t["start"] < t["length"]:
            raise bad("start", f"constraint curse_track: must be in 0..{t['length'] - 1} (below the top), "
                               f"got {t['start']}")
        out.append((side, t["length"], t["start"]))
    return tuple(out)


def _check_graph(board: Board, lines: Lines, source: str) -> None:
    """The constraints on the road graph, on the whole board."""
    arr = board.arrays()
    dist = arr["distance"]
    n = len(board.locations)
    if (dist < 0).any():
        i, j = map(int, np.argwhere(dist < 0)[0])
        raise _fail(source, lines.top("road"), "constraint board_connected",
                    f"no road path from {board.locations[i].id!r} to {board.locations[j].id!r}")
    idx = board.index
    for d in board.districts:
        inside = [i for i, l in enumerate(board.locations) if l.district == d.id]
        if not inside:
            k = [x.id for x in board.districts].index(d.id)
            raise _fail(source, lines.entry("district", k), f"district {k + 1} ({d.id!r})",
                        "constraint districts_connected_inside: has no location")
        nb = {i: [] for i in inside}
        for r in board.roads:
            if not r.border and idx[r.a] in nb:
                nb[idx[r.a]].append(idx[r.b])
                nb[idx[r.b]].append(idx[r.a])
        seen, stack = {inside[0]}, [inside[0]]
        while stack:
            for y in nb[stack.pop()]:
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        if len(seen) != len(inside):
            cut = next(i for i in inside if i not in seen)
            k = [x.id for x in board.districts].index(d.id)
            raise _fail(source, lines.entry("district", k), f"district {k + 1} ({d.id!r})",
                        f"constraint districts_connected_inside: {board.locations[cut].id!r} cannot be reached from "
                        f"{board.locations[inside[0]].id!r} by the district's own streets (a district is one area "
                        f"enclosed by walls and rivers)")
    houses = arr["kind"] == LOCATION_KINDS.index("house")
    if dist.max() < MIN_DIAMETER:
        raise _fail(source, lines.top("road"), "constraint distances_2_and_3_matter",
                    f"every location is within {dist.max()} roads of every other; the Rabid Monster's 2- and "
                    f"3-road rule needs some locations at least {MIN_DIAMETER} roads apart")
    for i in range(n):
        for want in (2, 3):
            if not (houses & (dist[i] == want)).any():
                raise _fail(source, lines.entry("location", i), f"location {i + 1} ({board.locations[i].id!r})",
                            f"constraint distances_2_and_3_matter: no house exactly {want} roads away (the Rabid "
                            f"Monster looks at most 2 roads away, then 3)")
    lab_d, mk_d = arr["district"][board.laboratory], arr["district"][board.market]
    crossings = int(arr["district_crossings"][lab_d, mk_d])
    if crossings > MARKET_MAX_CROSSINGS:
        raise _fail(source, lines.entry("location", board.market, "district"), "constraint market_worth_reaching",
                    f"the Market is {crossings} district crossings from the Laboratory; at most {MARKET_MAX_CROSSINGS}")


BOARD_FILE: DataFormat[Board] = DataFormat(
    noun="board", error=BoardError, default=DEFAULT_BOARD, schema=SCHEMA, top_keys=TOP_KEYS,
    required_top=REQUIRED_TOP, arrays={key: f"{key} entries" for key in ARRAYS}, build=_build)
board_of.cache_clear = BOARD_FILE.cache_clear   # type: ignore[attr-defined]


# ---------------------------------------------------------------- the rulebook's worked examples


def example_faults(board: Board) -> list[str]:
    """The rulebook's worked examples this board cannot show, as sentences (empty: it shows all of them).
    Not a validity rule (the examples may be drawn on a board region, or generated boards may differ);
    the default board shows every one (tests/test_village_board.py)."""
    arr = board.arrays()
    dist = arr["distance"]
    h = board.house
    out = []
    for side, seq in board.cure:
        if not any(seq[k] == "Silk Thread" and seq[k + 1] == "Wolf Claw" for k in range(len(seq) - 1)):
            out.append(f"mix_cure: the {side} Cure track has no Silk Thread followed by a Wolf Claw")
    lab_d = arr["district"][board.laboratory]
    if arr["district_crossings"][lab_d, arr["district"][h(15)]] != 1:
        out.append("wizard_movement: house 15 is not in a district next to the Laboratory's")
    if not any(l.kind == "house" and l.coins == 4 for l in board.locations):
        out.append("steal_coins: no 4-coin house")
    s18 = arr["location_pastures_start"]
    ends18 = any(r.border and h(18) in (board.index[r.a], board.index[r.b]) for r in board.roads)
    if not ends18 or s18[h(18) + 1] > s18[h(18)]:
        out.append("monster_movement: house 18 is not at the end of a border road, or has a pasture next to it")
    seven, eleven = h(7), h(11)
    if not (dist[seven, h(1)] <= 2 and dist[seven, h(3)] == 3 and dist[seven, eleven] == 3
            and s18[seven + 1] > s18[seven] and s18[eleven + 1] == s18[eleven]):
        out.append("rabid_monster_movement: house 1 within 2 roads of house 7, houses 3 and 11 exactly 3 roads "
                   "away, a pasture next to house 7 and none next to house 11 -- not all hold")
    return out


# ---------------------------------------------------------------- generated boards


def generate(seed: int, *, name: str | None = None, max_tries: int = 500) -> Board:
    """A random valid board (for sensitivity studies), checked by the same validator as a file: 4-6
    districts, the Laboratory's district holding it and 2-4 houses, the Market in the Laboratory's or a
    neighbouring district, streets a random tree plus a few loops per district, 12 border roads (a
    spanning tree of districts first), 3-6 pastures of 1-3 sheep, house coins 1-5 and prices 1-4, Cure
    tracks of 8-16 ingredients, Curse tracks of 8-16 spaces, Panic thresholds in their ranges. Equal seeds
    give equal boards; a layout that breaks a constraint is drawn again (up to ``max_tries``)."""
    rs = np.random.default_rng(seed)
    last = None
    for _ in range(max_tries):
        data = _draw(rs, name or f"generated-{seed}", seed)
        try:
            return validate(data, Lines("", False), f"<generated board {seed}>")
        except BoardError as exc:
            last = exc
    raise BoardError(f"generate({seed}): no valid board in {max_tries} tries; last fault: {last}")


def _draw(rs: np.random.Generator, name: str, seed: int) -> dict:
    nd = int(rs.integers(4, 7))
    dids = [f"district {k + 1}" for k in range(nd)]
    # 20 houses over the districts, each at least 2
    counts = np.full(nd, 2) + rs.multinomial(C.HOUSES - 2 * nd, np.ones(nd) / nd)
    numbers = rs.permutation(np.arange(1, C.HOUSES + 1))
    locs, members, k = [], [[] for _ in range(nd)], 0
    locs.append({"id": "laboratory", "kind": "laboratory", "district": dids[0]})
    members[0].append("laboratory")
    for d in range(nd):
        for _ in range(int(counts[d])):
            num = int(numbers[k])
            k += 1
            locs.append({"id": f"house {num}", "kind": "house", "district": dids[d], "number": num,
                         "coins": int(rs.integers(1, 6)), "price": int(rs.integers(1, 5))})
            members[d].append(f"house {num}")
    # district tree first (each new district joined to an earlier one), then extra links
    links = [(int(rs.integers(0, d)), d) for d in range(1, nd)]
    while len(links) < C.BORDER_ROADS:
        x, y = sorted(int(v) for v in rs.choice(nd, 2, replace=False))
        links.append((x, y))
    market_d = int(rs.choice([0] + [y for x, y in links[:nd - 1] if x == 0]))
    locs.append({"id": "market", "kind": "market", "district": dids[market_d]})
    members[market_d].append("market")
    roads, pairs = [], set()
    for d in range(nd):
        mem = list(rs.permutation(members[d]))
        for j in range(1, len(mem)):
            other = mem[int(rs.integers(max(0, j - 2), j))]
            roads.append({"a": mem[j], "b": other})
            pairs.add(frozenset((mem[j], other)))
        for _ in range(int(rs.integers(0, 2))):
            if len(mem) >= 4:
                a, b = rs.choice(mem, 2, replace=False)
                if frozenset((a, b)) not in pairs:
                    roads.append({"a": str(a), "b": str(b)})
                    pairs.add(frozenset((a, b)))
    kinds = {}
    for x, y in links:
        kind = kinds.setdefault((x, y), "gate" if rs.random() < 0.5 else "bridge")
        for _ in range(20):
            a, b = str(rs.choice(members[x])), str(rs.choice(members[y]))
            if frozenset((a, b)) not in pairs:
                break
        pairs.add(frozenset((a, b)))
        roads.append({"a": a, "b": b, "kind": kind})
    houses = [l["id"] for l in locs if l["kind"] == "house"]
    pastures, left = [], C.SHEEP_TOKENS - 3
    for p in range(int(rs.integers(3, 7))):
        sheep = int(min(left, rs.integers(1, 4)))
        if sheep < 1:
            break
        left -= sheep
        pastures.append({"id": f"pasture {p + 1}", "sheep": sheep,
                         "next_to": [str(x) for x in rs.choice(houses, int(rs.integers(1, 3)), replace=False)]})

    def panic(side: str) -> dict:
        e = C.PANIC_EFFECTS[side]
        lo = sorted(int(v) for v in rs.integers(2, 8, 2))
        return {"length": 10, "start": 1, e[0]: lo[0], e[1]: lo[1], e[2]: int(rs.integers(8, 11))}

    cure = [str(x) for x in rs.choice(C.INGREDIENTS, int(rs.integers(8, 17)))]
    curse = int(rs.integers(8, 17))
    return {"schema": SCHEMA, "name": name, "reconstructed": True,
            "description": f"generated by cursedsim.games.village.board.generate({seed})",
            "district": [{"id": d} for d in dids], "location": locs, "road": roads, "pasture": pastures,
            "panic": {s: panic(s) for s in C.VILLAGE_SIDES},
            "cure": {s: {"sequence": cure} for s in C.WIZARD_SIDES},
            "curse": {s: {"length": curse, "start": 0} for s in C.MONSTER_SIDES}}
