"""The decks of the report's sensitivity study: K variants of the deck the report plays (the reconstructed
default deck, or the file given with ``--deck``) whose counts are each scaled by a random factor, written
as TOML deck files a user can load again (``--deck FILE``, ``options={"deck": path}``).

How a variant is made (seeded, so the same seed gives the same files): variant k (1..K) draws one
factor per card kind, uniform in [SCALE_LOW, SCALE_HIGH], from ``numpy.random.default_rng((seed,
SCALE_STREAM, k))``; each count becomes ``floor(count * factor + 0.5)``, at least 1 and at most the deck
limit per line (``deck.MAX_COUNT``); values, flags and effects stay. A variant whose total falls outside
the deck limits (``deck.MIN_COPIES``-``deck.MAX_COPIES``) is drawn again from the same stream. The
variant is named ``<base name>-scaled-<k>``, marked ``reconstructed`` (chosen counts, whatever the
base), and checked by loading its file back with ``deck.load_deck`` (same digest). Variant files the
report wrote earlier for another deck are removed from the folder.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np

from cursedsim.files import write_atomic
from cursedsim.games.gifts import deck as gifts_deck
from cursedsim.games.gifts.deck import Deck

#: The range of the factor every count is scaled by.
SCALE_LOW = 0.5
SCALE_HIGH = 1.5
#: Keys the variants' random streams apart from anything else seeded with the report's seed.
SCALE_STREAM = 5
#: Draws of one variant before giving up (a total outside the limits is drawn again).
MAX_DRAWS = 100
#: The folder of the deck files, inside the report folder.
DECKS_DIR = "decks"


def scaled_counts(counts: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """``counts`` scaled by ``factors``, rounded half up, kept within 1..deck.MAX_COUNT."""
    scaled = np.floor(np.asarray(counts, np.float64) * np.asarray(factors, np.float64) + 0.5).astype(np.int64)
    return np.clip(scaled, 1, gifts_deck.MAX_COUNT)


def scaled_deck(base: Deck, index: int, seed: int) -> tuple[Deck, np.ndarray]:
    """Variant ``index`` (1..K) of ``base`` and the factors it drew (see the module docstring)."""
    rng = np.random.default_rng((seed, SCALE_STREAM, index))
    counts = np.array([card.count for card in base.cards])
    for _ in range(MAX_DRAWS):
        factors = rng.uniform(SCALE_LOW, SCALE_HIGH, len(counts))
        new = scaled_counts(counts, factors)
        if gifts_deck.MIN_COPIES <= new.sum() <= gifts_deck.MAX_COPIES:
            break
    else:   # pragma: no cover - a valid deck scaled by 0.5-1.5 stays within the limits
        raise gifts_deck.DeckError(f"no variant {index} of {base.name!r} within the deck limits in {MAX_DRAWS} draws")
    cards = tuple(dataclasses.replace(card, count=int(n)) for card, n in zip(base.cards, new))
    return Deck(f"{base.name}-scaled-{index}", True, cards), factors


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


#: The second line of every variant file (how the report knows the files it wrote).
WRITTEN_BY = "# Written by the Cursed Gifts balance report (cursedsim.report.gifts.decks); load it with"


def deck_toml(deck: Deck, description: str, notes: dict[str, str] | None = None,
              base_reconstructed: bool = True) -> str:
    """The TOML deck file of ``deck`` (schema 1: one ``[[card]]`` block per kind), with a header comment
    and ``description``; ``notes``: card name -> a note written on its line; ``base_reconstructed``:
    whether the deck it varies is itself a reconstruction."""
    kind = "a RECONSTRUCTED deck" if base_reconstructed else "a deck file with its counts scaled: RECONSTRUCTED"
    lines = [f"# {deck.name}: a variant of {kind}, not the publisher's card list.", WRITTEN_BY,
             "# --deck FILE or options={'deck': FILE}.", "",
             f"schema = {gifts_deck.SCHEMA}", f"name = {_toml_string(deck.name)}",
             f"reconstructed = {'true' if deck.reconstructed else 'false'}",
             f"description = {_toml_string(description)}"]
    for card in deck.cards:
        lines += ["", "[[card]]", f"name = {_toml_string(card.name)}", f"type = {_toml_string(card.type)}",
                  f"value = {card.value}", f"count = {card.count}"]
        if card.flags:
            lines.append("flags = [" + ", ".join(_toml_string(f) for f in card.flags) + "]")
        lines.append(f"effect = {_toml_string(card.effect)}")
        if notes and card.name in notes:
            lines.append(f"note = {_toml_string(notes[card.name])}")
    return "\n".join(lines) + "\n"


@dataclasses.dataclass(frozen=True)
class DeckVariant:
    """A written variant: its index, the Deck, the factors drawn, the file's absolute path and its path
    relative to the report folder."""

    index: int
    deck: Deck
    factors: np.ndarray
    path: str
    file: str


def write_variants(out: str | os.PathLike, base: Deck, count: int, seed: int) -> list[DeckVariant]:
    """Write ``count`` scaled variants of ``base`` as ``<out>/decks/<name>.toml`` and return them, each
    checked by loading its file back (same label); variant files written before for another deck (or
    more variants) go."""
    folder = Path(out) / DECKS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    variants = []
    state = "reconstructed" if base.reconstructed else "not marked reconstructed"
    for index in range(1, count + 1):
        deck, factors = scaled_deck(base, index, seed)
        description = (f"{base.label} ({state}) with every count multiplied by a factor drawn uniformly in "
                       f"[{SCALE_LOW:g}, {SCALE_HIGH:g}] (numpy default_rng(({seed}, {SCALE_STREAM}, {index}))), "
                       f"rounded half up, at least 1: variant {index} of the report's sensitivity study, "
                       f"{deck.size} cards")
        notes = {card.name: f"count {old.count} x {f:.3f} -> {card.count}"
                 for card, old, f in zip(deck.cards, base.cards, factors)}
        path = folder / f"{deck.name}.toml"
        write_atomic(path, deck_toml(deck, description, notes, base.reconstructed))
        loaded = gifts_deck.load_deck(path)
        if loaded.label != deck.label:   # pragma: no cover - the writer and the loader disagree
            raise gifts_deck.DeckError(f"{path}: reads back as {loaded.label}, written as {deck.label}")
        variants.append(DeckVariant(index, loaded, factors, str(path.resolve()), f"{DECKS_DIR}/{path.name}"))
    _remove_stale(folder, {Path(v.path) for v in variants} | {Path(base.source).resolve()})
    return variants


def _remove_stale(folder: Path, keep: set[Path]) -> None:
    """Remove the variant files in ``folder`` this report wrote before (their second line is
    WRITTEN_BY) other than ``keep`` (the new ones and the deck played); any other file stays."""
    for path in folder.glob("*.toml"):
        if path.resolve() in keep:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                head = [f.readline().rstrip("\n") for _ in range(2)]
        except (OSError, UnicodeDecodeError):
            continue
        if head[1] == WRITTEN_BY and head[0].startswith("# ") and "-scaled-" in head[0]:
            path.unlink(missing_ok=True)


def factor_text() -> str:
    """How the variants' counts are drawn, in words."""
    return (f"each count x a factor uniform in [{SCALE_LOW:g}, {SCALE_HIGH:g}], rounded half up, at least 1 "
            f"(total within {gifts_deck.MIN_COPIES}-{gifts_deck.MAX_COPIES} cards)")


__all__ = ["DECKS_DIR", "SCALE_HIGH", "SCALE_LOW", "SCALE_STREAM", "WRITTEN_BY", "DeckVariant", "deck_toml",
           "factor_text", "scaled_counts", "scaled_deck", "write_variants"]

