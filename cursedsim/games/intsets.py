"""Sets of small integers (cards, values) held in one Python int, bit ``v`` set when ``v`` is a member:
the helpers the reference engines and solvers share (``cursedsim.bits`` is the kernels' uint64 twin)."""

from __future__ import annotations

from collections.abc import Iterable


def bits(mask: int) -> list[int]:
    """The members of a set, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def count(mask: int) -> int:
    """How many members a set has."""
    return bin(mask).count("1")


def mask_of(members: Iterable[int]) -> int:
    """The set of ``members``."""
    m = 0
    for c in members:
        m |= 1 << c
    return m
