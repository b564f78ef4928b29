"""Flat numpy state of one Verflucht! game in the kernel: field offsets into two small arrays.

``counts`` (int64) holds the counters, ``masks`` (uint64) the card sets as bitmasks (bit v = value v):
the display, the discarded Creatures and Items (public knowledge), and one hand per player. The
face-down cards are a separate ``deck`` array of card codes whose first ``counts[N_DECK]`` entries are
still face down; drawing takes the last of them.
"""

from __future__ import annotations

import numpy as np

from cursedsim.games.verflucht.rules import MAX_PLAYERS, N_CARDS

# ---- counts (int64)
N_DECK = 0          # face-down cards left
SEALS_LEFT = 1      # green Seals
SEALS_USED = 2
TURNS = 3           # draw turns played
ATTACKS = 4         # attacks faced
ACTIVE = 5          # player whose turn it is
N_DISPLAY = 6       # Creatures in the display
END = 7             # rules.END_* once the game is over
PLAYERS = 8
N_COUNTS = 9

# ---- masks (uint64)
DISPLAY = 0
GONE_CREATURES = 1  # discard pile: banished Creatures
GONE_ITEMS = 2      # discard pile: spent Items
HAND0 = 3           # hands of players 0..P-1 at HAND0 + p
N_MASKS = HAND0 + MAX_PLAYERS

# ---- option vector (int64) handed to the kernel
OPT_SEALS = 0
OPT_PARTIAL = 1
OPT_VOLUNTARY_SEAL = 2
OPT_DRAWER_LAST = 3
N_OPTS = 4


def new_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fresh (counts, masks, deck) arrays for one game."""
    return (np.zeros(N_COUNTS, np.int64), np.zeros(N_MASKS, np.uint64), np.zeros(N_CARDS, np.int64))


def option_vector(options, players: int) -> np.ndarray:
    """The kernel's int64 option vector for ``options`` (a RuleOptions) at ``players`` players."""
    opts = np.zeros(N_OPTS, np.int64)
    opts[OPT_SEALS] = options.seals_for(players)
    opts[OPT_PARTIAL] = options.partial_items_before_seal
    opts[OPT_VOLUNTARY_SEAL] = options.voluntary_seal
    opts[OPT_DRAWER_LAST] = options.drawer_last_turn
    return opts


def mask_of(values) -> np.uint64:
    """The bitmask of a collection of card values."""
    m = 0
    for v in values:
        m |= 1 << int(v)
    return np.uint64(m)


def values_of(mask) -> tuple[int, ...]:
    """The card values in a bitmask, ascending."""
    m = int(mask)
    return tuple(v for v in range(64) if m >> v & 1)
