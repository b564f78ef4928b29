"""Counter-keyed random streams: one xoshiro256** stream per (seed, game index, stream id).

Every game draws from its own streams, so a game's outcome does not depend on chunking, job count or
backend, any game can be replayed alone, and two policies on the same (seed, index) see the same deal.
The same generator exists twice, bit for bit: as numba functions over a state tuple of four uint64
(``seed_tuple``, ``next_t``, ``below_t``: kernels keep it in registers) and as the pure-Python class
:class:`Stream` (for reference engines).

Bounded integers use the multiply-shift map ``((x >> 32) * n) >> 32``; for the n <= 2**16 used here
its bias is below 2**-16 per draw relative, far under any simulation's resolution, and it needs no loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

#: Stream ids: the cards (which card is drawn, shuffles) and the policies' own choices never share a
#: stream, so a policy that draws random numbers does not change the cards.
STREAM_DECK = 0
STREAM_POLICY = 1
#: A search's playouts have streams of their own, keyed by the decision and the playout (with a few
#: sub-streams each): bit 62 set, so they never meet the game's own streams (``rollout_stream``).
STREAM_ROLLOUT = 1 << 62


def rollout_stream_py(decision: int, playout: int, sub: int) -> int:
    """The stream id of sub-stream ``sub`` (0-3) of playout ``playout`` at decision ``decision`` of a game."""
    return STREAM_ROLLOUT | (decision << 24) | (playout << 2) | sub


# ---------------------------------------------------------------- pure Python (reference engines)

def _splitmix64_py(x: int) -> tuple[int, int]:
    """One splitmix64 step: (next state, output)."""
    x = (x + GOLDEN) & MASK64
    z = x
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return x, z ^ (z >> 31)


def stream_key(seed: int, index: int, stream: int) -> int:
    """The 64-bit key of stream ``stream`` of game ``index`` in a run with ``seed``."""
    _, h = _splitmix64_py(seed & MASK64)
    _, h = _splitmix64_py(h ^ (index & MASK64))
    _, h = _splitmix64_py(h ^ (stream & MASK64))
    return h


def initial_state(seed: int, index: int, stream: int) -> list[int]:
    """The four xoshiro256** state words of a stream, expanded from its key by splitmix64."""
    x = stream_key(seed, index, stream)
    words = []
    for _ in range(4):
        x, out = _splitmix64_py(x)
        words.append(out)
    return words


class Stream:
    """Pure-Python xoshiro256** stream; draws exactly what the numba functions draw."""

    __slots__ = ("s",)

    def __init__(self, seed: int, index: int, stream: int = STREAM_DECK):
        self.s = initial_state(seed, index, stream)

    def next(self) -> int:
        """The next raw 64-bit output."""
        s0, s1, s2, s3 = self.s
        x = (s1 * 5) & MASK64
        result = ((((x << 7) | (x >> 57)) & MASK64) * 9) & MASK64
        t = (s1 << 17) & MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & MASK64
        self.s = [s0, s1, s2, s3]
        return result

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) by multiply-shift (n < 2**32)."""
        return ((self.next() >> 32) * n) >> 32


# ---------------------------------------------------------------- numba (kernels)

@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(cache=True, inline="always")
def _splitmix64_out(x):
    x = x + uint64(GOLDEN)
    z = x
    z = (z ^ (z >> uint64(30))) * uint64(MIX1)
    z = (z ^ (z >> uint64(27))) * uint64(MIX2)
    return x, z ^ (z >> uint64(31))


# ---------------------------------------------------------------- numba
# Kernels pass the generator state as a 4-tuple of uint64 and get it back from every draw: no array,
# so no reference counting in the hot path, and the state stays in registers.

@njit(cache=True)
def seed_tuple(seed, index, stream):
    """The stream keyed by (seed, index, stream) as a state tuple."""
    _, h = _splitmix64_out(uint64(seed))
    _, h = _splitmix64_out(h ^ uint64(index))
    _, h = _splitmix64_out(h ^ uint64(stream))
    x, s0 = _splitmix64_out(h)
    x, s1 = _splitmix64_out(x)
    x, s2 = _splitmix64_out(x)
    x, s3 = _splitmix64_out(x)
    return (s0, s1, s2, s3)


@njit(cache=True, inline="always")
def rollout_stream(decision, playout, sub):
    """``rollout_stream_py`` in numba: playouts < 2**22 per decision, decisions < 2**38 per game."""
    return np.int64(STREAM_ROLLOUT) | (np.int64(decision) << np.int64(24)) | (np.int64(playout) << np.int64(2)) | \
        np.int64(sub)


@njit(cache=True, inline="always")
def next_t(s):
    """(next raw 64-bit output, advanced state tuple)."""
    s0, s1, s2, s3 = s
    result = _rotl(s1 * uint64(5), 7) * uint64(9)
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, (s0, s1, s2, s3)


@njit(cache=True, inline="always")
def below_t(s, n):
    """(uniform integer in [0, n) by multiply-shift, advanced state tuple)."""
    x, s = next_t(s)
    return np.int64(((x >> uint64(32)) * uint64(n)) >> uint64(32)), s
