"""Deck files of Cursed Gifts: load a TOML (or JSON) deck, validate it against the effect vocabulary and
freeze it as a ``Deck`` with a name, a digest and flat per-copy arrays for the engines.

The file is read by ``cursedsim.datafile``'s pipeline (``DECK_FILE``); this module gives what is the deck's
own: its records, the checks of a card line against the effect vocabulary, and the per-copy arrays. Every
error names the bad field and its line in the file and, where there is a choice, the valid choices.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cursedsim.datafile import DataFormat, Digested, Lines, int64_arrays, is_int
from cursedsim.errors import OptionError
from cursedsim.games.gifts import effects as E

SCHEMA = 1
DEFAULT_DECK = Path(__file__).with_name("data") / "default_deck.toml"
#: A deck holds at least 2 x 7 + 1 cards (two hands and a draw) and at most MAX_COPIES card copies.
MIN_COPIES = 15
MAX_COPIES = 250
MAX_COUNT = 60
#: At most this many card kinds (``[[card]]`` lines): the ``focus_dealt`` outcome is an int64 bit mask of
#: kinds.
MAX_KINDS = 63
TOP_KEYS = ("schema", "name", "reconstructed", "description", "card")
REQUIRED_TOP = ("schema", "name", "card")
CARD_KEYS = ("name", "type", "value", "count", "flags", "effect", "note")
REQUIRED_CARD = ("name", "type", "value", "count", "effect")


class DeckError(OptionError):
    """A deck file that cannot be read or breaks the schema; the message names the field and line."""


@dataclass(frozen=True)
class Card:
    """One line of a deck: a card kind and how many copies the deck holds."""

    name: str
    type: str
    value: int
    count: int
    flags: tuple[str, ...]
    effect: str


@dataclass(frozen=True)
class Deck(Digested):
    """A validated deck: ``name``, whether it is ``reconstructed``, its card kinds in file order, and its
    ``digest`` (12 hex of the sha256 of the canonical content; ``label``, ``name@digest``, is the frames'
    ``deck`` column)."""

    SCHEMA = SCHEMA
    name: str
    reconstructed: bool
    cards: tuple[Card, ...]
    source: str = ""

    @property
    def size(self) -> int:
        return sum(c.count for c in self.cards)

    def content(self) -> dict:
        return {"cards": [[c.name, c.type, c.value, c.count, sorted(c.flags), c.effect] for c in self.cards]}

    def without(self, name: str) -> Deck:
        """This deck with the card kind ``name`` removed (a study of what one kind is worth); the name
        gets ``-without-<name>``. A DeckError names the kinds when ``name`` is not one, or when too few
        cards would be left."""
        names = [card.name for card in self.cards]
        if name not in names:
            raise DeckError(f"deck {self.name!r} has no card kind {name!r}; its kinds: {', '.join(names)}")
        cards = tuple(card for card in self.cards if card.name != name)
        rest = sum(card.count for card in cards)
        if rest < MIN_COPIES:
            raise DeckError(f"deck {self.name!r} without {name!r} holds {rest} cards; a deck holds at least "
                            f"{MIN_COPIES}")
        return Deck(f"{self.name}-without-{name}", self.reconstructed, cards, self.source)

    def arrays(self) -> dict[str, np.ndarray]:
        """Flat int64 arrays per card copy (copies numbered in file order): ``kind`` (line index),
        ``type`` (effects.TYPE_NAMES index), ``value``, ``flags`` (effects.FLAG_BITS), ``effect`` (code)."""
        kind, ctype, value, flags, effect = [], [], [], [], []
        for k, card in enumerate(self.cards):
            bits = sum(E.FLAG_BITS[f] for f in card.flags)
            for _ in range(card.count):
                kind.append(k)
                ctype.append(E.TYPE_NAMES.index(card.type))
                value.append(card.value)
                flags.append(bits)
                effect.append(E.EFFECTS[card.effect].code)
        return int64_arrays({"kind": kind, "type": ctype, "value": value, "flags": flags, "effect": effect},
                            read_only=False)


# ---------------------------------------------------------------- loading and validation


def load_deck(path: str | Path | None = None) -> Deck:
    """The deck in ``path`` (``.toml`` or ``.json``), validated; the default deck when None."""
    return DECK_FILE.load(path)


def deck_of(deck: str = "default", without_card: str = "none") -> Deck:
    """The Deck of the rule options ``deck`` ("default" or a path) and ``without_card`` ("none" or a card
    kind removed). Loaded once per process and file version (``DataFormat.of``)."""
    return DECK_FILE.of(deck, without_card)


def parse_deck(text: str, *, json_format: bool = False, source: str = "<deck>") -> Deck:
    """A deck from the text of a TOML (or JSON) file; raises DeckError naming field and line."""
    return DECK_FILE.parse(text, json_format=json_format, source=source)


def validate(data: dict, lines: Lines, source: str) -> Deck:
    """The Deck ``data`` describes, or a DeckError on its first fault (top level first, then each card)."""
    return DECK_FILE.validate(data, lines, source)


def _build(data: dict, lines: Lines, source: str, name: str, reconstructed: bool) -> Deck:
    cards = data["card"]
    if len(cards) > MAX_KINDS:
        raise DECK_FILE.fail(source, lines.entry("card", MAX_KINDS), f"card {MAX_KINDS + 1}",
                             f"a deck holds at most {MAX_KINDS} card kinds ([[card]] lines), this one {len(cards)}")
    parsed = tuple(_card(raw, i, lines, source) for i, raw in enumerate(cards))
    seen: dict[str, int] = {}
    for i, card in enumerate(parsed):
        if card.name in seen:
            raise DECK_FILE.fail(source, lines.entry("card", i, "name"), f"card {i + 1} field 'name'",
                                 f"duplicate name {card.name!r} (also card {seen[card.name] + 1})")
        seen[card.name] = i
    size = sum(c.count for c in parsed)
    if not MIN_COPIES <= size <= MAX_COPIES:
        raise DECK_FILE.fail(source, lines.entry("card", 0), "deck size",
                             f"the counts add up to {size} cards; a deck holds {MIN_COPIES}-{MAX_COPIES}")
    return Deck(name=name, reconstructed=reconstructed, cards=parsed, source=source)


def _without(deck: Deck, without_card: str) -> Deck:
    return deck if without_card == "none" else deck.without(without_card)


def _card(raw: object, i: int, lines: Lines, source: str) -> Card:
    """One validated card line (the i-th, 0-based)."""
    fields = DECK_FILE.entry(lines, source, "card", i, raw, CARD_KEYS, REQUIRED_CARD, id_key="name")
    bad = fields.bad
    if not isinstance(raw["name"], str) or not raw["name"].strip():
        raise bad("name", f"must be a non-empty string, got {raw['name']!r}")
    ctype = raw["type"]
    if ctype not in E.TYPE_NAMES:
        raise bad("type", f"unknown type {ctype!r}; valid types: {', '.join(E.TYPE_NAMES)}")
    effect = raw["effect"]
    if not isinstance(effect, str) or effect not in E.EFFECTS:   # a table or list is no key of EFFECTS
        raise bad("effect", f"unknown effect {effect!r}; known effects: {', '.join(E.CARD_EFFECTS)}")
    spec = E.EFFECTS[effect]
    if not spec.on_card:
        raise bad("effect", f"{effect!r} is a bonus combination of Useless Gifts, not a card effect; "
                            f"card effects: {', '.join(E.CARD_EFFECTS)}")
    if E.TYPE_NAMES[spec.card_type] != ctype:
        raise bad("type", f"effect {effect!r} belongs to a {E.TYPE_NAMES[spec.card_type]} card, not a {ctype}")
    for key, low, high in (("value",) + spec.values, ("count", 1, MAX_COUNT)):
        v = raw[key]
        if not is_int(v):
            raise bad(key, f"must be an integer, got {v!r}")
        if not low <= v <= high:
            detail = f" for effect {effect!r}" if key == "value" else ""
            raise bad(key, f"must be in {low}..{high}{detail}, got {v}")
    flags = raw.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise bad("flags", f"must be a list of flag names ({', '.join(E.FLAG_BITS)}), got {flags!r}")
    bits = 0
    for f in flags:
        if f not in E.FLAG_BITS:
            raise bad("flags", f"unknown flag {f!r}; valid flags: {', '.join(E.FLAG_BITS)}")
        bits |= E.FLAG_BITS[f]
    allowed = [n for n, b in E.FLAG_BITS.items() if spec.allowed_flags & b] or ["none"]
    if bits & ~spec.allowed_flags:
        raise bad("flags", f"effect {effect!r} allows flags: {', '.join(allowed)}; got {', '.join(flags)}")
    if spec.required_flags & ~bits:
        need = [n for n, b in E.FLAG_BITS.items() if spec.required_flags & b]
        raise bad("flags", f"effect {effect!r} needs the flag(s) {', '.join(need)}")
    if "note" in raw and not isinstance(raw["note"], str):
        raise bad("note", f"must be a string, got {raw['note']!r}")
    return Card(name=raw["name"].strip(), type=ctype, value=raw["value"], count=raw["count"],
                flags=tuple(sorted(set(flags), key=list(E.FLAG_BITS).index)), effect=effect)


DECK_FILE: DataFormat[Deck] = DataFormat(
    noun="deck", error=DeckError, default=DEFAULT_DECK, schema=SCHEMA, top_keys=TOP_KEYS,
    required_top=REQUIRED_TOP, arrays={"card": "cards"}, build=_build, derive=_without, cache_size=32)
deck_of.cache_clear = DECK_FILE.cache_clear   # type: ignore[attr-defined]


# ---------------------------------------------------------------- generated decks


def generate(seed: int, *, size: tuple[int, int] = (50, 110), name: str | None = None) -> Deck:
    """A random valid deck built from the effect vocabulary (for tests and studies), validated by the same
    validator as a file: every card effect appears (plain gifts on several lines, some INEVITABLE),
    values drawn in each effect's range, counts chosen so the deck holds ``size[0]``-``size[1]`` copies
    (enough for 6 players). Equal seeds give equal decks."""
    rs = np.random.default_rng(seed)
    lo, hi = size
    if not (MIN_COPIES <= lo <= hi <= MAX_COPIES):
        raise DeckError(f"generate: size must satisfy {MIN_COPIES} <= low <= high <= {MAX_COPIES}, got {size}")
    target = int(rs.integers(lo, hi + 1))
    lines = []
    for effect in E.CARD_EFFECTS:
        spec = E.EFFECTS[effect]
        n_lines = int(rs.integers(3, 7)) if effect == "gift" else int(rs.integers(1, 3))
        values = set()
        for k in range(n_lines):
            low, high = spec.values
            value = int(rs.integers(low, min(high, low + 998) + 1))
            flags = [n for n, b in E.FLAG_BITS.items() if spec.required_flags & b]
            if spec.allowed_flags & E.INEVITABLE and rs.random() < 0.3:
                flags.append("INEVITABLE")
            key = (value, tuple(flags))
            if key in values:
                continue
            values.add(key)
            lines.append({"name": f"{effect} {value}{' ' + ' '.join(flags) if flags else ''} #{k}",
                          "type": E.TYPE_NAMES[spec.card_type], "value": value, "count": 1,
                          "flags": flags, "effect": effect})
    weights = rs.random(len(lines)) + [2.0 if c["effect"] in ("gift", "antidote", "useless") else 0.3
                                        for c in lines]
    extra = rs.multinomial(max(target - len(lines), 0), weights / weights.sum())
    for card, more in zip(lines, extra):
        card["count"] = int(min(MAX_COUNT, 1 + more))
    data = {"schema": SCHEMA, "name": name or f"generated-{seed}", "reconstructed": True,
            "description": f"generated by cursedsim.games.gifts.deck.generate({seed})", "card": lines}
    return validate(data, Lines("", False), f"<generated deck {seed}>")
