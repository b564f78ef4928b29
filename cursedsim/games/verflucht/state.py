"""Flat numpy state of one Verflucht! game in the kernel: the arrays a game under way lives in.

A game is four small arrays, so copying a game is copying them (a rollout copies one per playout):

- ``deck`` (int64[N_CARDS]): the face-down cards, whose first ``counts[N_DECK]`` entries are still face
  down, each a kernel card (``kernel.ITEM_FLAG`` set for an Item); their order means nothing, since a
  draw picks one of them at random;
- ``hands`` (uint64[MAX_PLAYERS]): each player's Items as a bitmask (bit v = value v);
- ``masks`` (uint64[N_MASKS]): the display, the discard pile (public), the attack under way and the two
  random streams of the game (four words each);
- ``counts`` (int64[N_COUNTS]): the counters and where the game stands (``PHASE``, see kernel.py).
"""

from __future__ import annotations

import numpy as np

from cursedsim.games.verflucht.rules import MAX_PLAYERS, N_CARDS

# ---- counts (int64)
N_DECK = 0          # face-down cards left
SEALS_LEFT = 1      # green Seals
RETURNED = 2        # Creatures a Seal put back face down (turns = N_CARDS + RETURNED - N_DECK)
ATTACKS = 3         # attacks faced
ACTIVE = 4          # player whose turn it is
PHASE = 5           # kernel.PH_*: what happens next
END = 6             # rules.END_* once the game is lost (END_WIN while it goes on)
IS_GROUP = 7        # the attack under way is a group attack (else the sixth Creature's)
LAST_LEFT = 8       # last turns still to play, this one included (phase PH_LAST)
PLAYER = 9          # the player of the current last turn (phase PH_LAST)
BANISHINGS = 10     # voluntary banishings in the current turn so far
SCORE = 11          # the final score once the game is over (rules.LOST_SCORE when lost)
N_COUNTS = 12

# ---- masks (uint64)
DISPLAY = 0
GONE_CREATURES = 1  # discard pile: banished Creatures
GONE_ITEMS = 2      # discard pile: spent Items
ATTACKERS = 3       # the Creatures attacking (phase PH_ATTACK)
RNG_DECK = 4        # the deck's stream: 4 words from here
RNG_POLICY = 8      # the policies' stream: 4 words from here
N_MASKS = 12

# ---- option vector (int64) handed to the kernel
OPT_SEALS = 0
OPT_PARTIAL = 1
OPT_VOLUNTARY_SEAL = 2
OPT_DRAWER_LAST = 3
N_OPTS = 4


def new_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh (deck, hands, masks, counts) arrays for one game."""
    return (np.zeros(N_CARDS, np.int64), np.zeros(MAX_PLAYERS, np.uint64), np.zeros(N_MASKS, np.uint64),
            np.zeros(N_COUNTS, np.int64))


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
