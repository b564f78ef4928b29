"""Curses & Covens lookup tables as int64 numpy arrays (numba freezes module-level arrays).

Per card code (``rules`` module docstring): its kind, suit and the value the ``tracker`` hunter ranks
it by; bitmasks of card groups (bit c = card c); per spell side: the spell id of each (tile, face) and
the two icons each spell needs, for every ``darkness_backs`` and ``spell_icons`` choice (indexed by
``rules.CHOICES[name].index(value)``).
"""

from __future__ import annotations

import numpy as np

from cursedsim.games.covens import rules as R

# ---------------------------------------------------------------- per card code


def _kind(card: int) -> int:
    if card < R.WILD:
        return R.KIND_WITCH
    if card == R.WILD:
        return R.KIND_WILD
    if card == R.FAKE:
        return R.KIND_FAKE
    return R.KIND_FOLK if card < R.FIRST_RITUAL else R.KIND_RITUAL


#: Kind of each card code (rules.KIND_*).
CARD_KIND = np.array([_kind(c) for c in range(R.N_CARDS)], np.int64)
#: Suit of each suited witch (code // 3), -1 for every other card (the wild's "any suit" is handled by
#: the masks below, never by this column).
CARD_SUIT = np.array([c // R.WITCHES_PER_SUIT if c < R.WILD else -1 for c in range(R.N_CARDS)], np.int64)
#: The tracker hunter's ranking of cards he deals under a ritual: witch (wild included) 3, townsfolk 2,
#: fake 1, ritual 0 (higher first; ties by code).
KIND_VALUE = np.array([3, 3, 1, 2, 0], np.int64)
CARD_VALUE = np.array([KIND_VALUE[k] for k in CARD_KIND], np.int64)

# ---------------------------------------------------------------- card groups as bitmasks


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


#: The three witches of each suit (the wild not included).
SUIT_MASK = np.array([_mask(range(s * R.WITCHES_PER_SUIT, (s + 1) * R.WITCHES_PER_SUIT))
                      for s in range(R.N_SUITS)], np.int64)
WILD_BIT = 1 << R.WILD
FAKE_BIT = 1 << R.FAKE
#: True witches: the nine suited ones and the wild (what a capture counts; the fake is apart).
TRUE_WITCH_MASK = _mask(range(R.N_TRUE_WITCHES))
FOLK_MASK = _mask(range(R.FIRST_FOLK, R.FIRST_FOLK + R.N_FOLK))
RITUAL_MASK = _mask(range(R.FIRST_RITUAL, R.FIRST_RITUAL + R.N_RITUALS))
ALL_CARDS_MASK = _mask(range(R.N_CARDS))

# ---------------------------------------------------------------- spell sides

#: TILE_SPELL[darkness_backs index, tile, face] -> spell id. Tile 0 Growth/Doom; tile 1 Passage/(Darkness
#: with "passage", Despair with "nature"); tile 2 Nature/(the other curse).
TILE_SPELL = np.array([
    [[R.GROWTH, R.DOOM], [R.PASSAGE, R.DARKNESS], [R.NATURE_SPELL, R.DESPAIR]],
    [[R.GROWTH, R.DOOM], [R.PASSAGE, R.DESPAIR], [R.NATURE_SPELL, R.DARKNESS]],
], np.int64)

_L, _N, _C = R.LOVE, R.NATURE, R.CRYSTAL
_CHARMS_MIXED = [(_L, _N), (_N, _C), (_C, _L), (_L, _L), (_N, _N), (_C, _C)]
_CURSES_MIXED = [(_L, _L), (_N, _N), (_C, _C), (_L, _N), (_N, _C), (_C, _L)]
#: "all_mixed": each tile's two sides need the tile's pair, so Darkness/Despair follow their tile.
_ALL_MIXED_PASSAGE = [(_L, _N), (_N, _C), (_C, _L), (_L, _N), (_N, _C), (_C, _L)]
_ALL_MIXED_NATURE = [(_L, _N), (_N, _C), (_C, _L), (_L, _N), (_C, _L), (_N, _C)]

#: SPELL_ICONS[spell_icons index, darkness_backs index, spell] -> the two icon suits it needs.
SPELL_ICONS = np.array([
    [_CHARMS_MIXED, _CHARMS_MIXED],
    [_CURSES_MIXED, _CURSES_MIXED],
    [_ALL_MIXED_PASSAGE, _ALL_MIXED_NATURE],
], np.int64)
