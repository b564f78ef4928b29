"""Bit tricks on uint64 sets for numba kernels: sets of small integers (card values) held in one word.

Bit ``v`` set means value ``v`` is in the set. Counting and scanning use LLVM's count-zeros intrinsics,
so a kernel never loops over 64 bits to find the lowest or highest member.
"""

from __future__ import annotations

from numba import int64, njit, types, uint64
from numba.core.cgutils import alloca_once
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

ONE = uint64(1)
ZERO = uint64(0)


@njit(cache=True, inline="always")
def bit(v):
    """The set {v}."""
    return ONE << uint64(v)


@njit(cache=True, inline="always")
def has(mask, v):
    """Whether v is in the set."""
    return (mask >> uint64(v)) & ONE != ZERO


@njit(cache=True, inline="always")
def lowest(mask):
    """Smallest member of a non-empty set."""
    return int64(trailing_zeros(mask)) if mask != ZERO else -1


@njit(cache=True, inline="always")
def highest(mask):
    """Largest member of a non-empty set (-1 for the empty set)."""
    return 63 - int64(leading_zeros(mask)) if mask != ZERO else -1


@njit(cache=True, inline="always")
def at_least(v):
    """The set of all values >= v (v in 0..63)."""
    return ~((ONE << uint64(v)) - ONE)


@njit(cache=True, inline="always")
def below_mask(v):
    """The set of all values < v (v in 0..63)."""
    return (ONE << uint64(v)) - ONE


@njit(cache=True, inline="always")
def span(lo, hi):
    """The set {lo, ..., hi} (1 <= lo <= hi <= 62)."""
    return ((ONE << uint64(hi + 1)) - ONE) & ~((ONE << uint64(lo)) - ONE)


@intrinsic
def _popcount(typingctx, x):
    """LLVM's ctpop on a uint64 (one instruction where the CPU has POPCNT)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def count(mask):
    """Number of members."""
    return int64(_popcount(uint64(mask)))


@njit(cache=True)
def total(mask):
    """Sum of the members."""
    s = 0
    while mask != ZERO:
        s += int64(trailing_zeros(mask))
        mask &= mask - ONE
    return s


@njit(cache=True)
def nth(mask, k):
    """The k-th smallest member (k from 0) of a set with more than k members."""
    for _ in range(k):
        mask &= mask - ONE
    return int64(trailing_zeros(mask))


@intrinsic
def tuple_get(typingctx, tup, idx):
    """``tup[idx]`` of a homogeneous tuple without a branch: the tuple is stored to the stack and the
    entry loaded by address. numba's own ``tup[idx]`` with a run-time index is a ``switch`` (an
    indirect jump per access, mispredicted when the index varies). No bounds check: ``idx`` must be
    in ``0 .. len(tup) - 1``."""
    if not isinstance(tup, types.UniTuple) or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value, index = args
        stack = alloca_once(builder, value.type)
        builder.store(value, stack)
        return builder.load(builder.gep(stack, [index.type(0), index], inbounds=True))

    return tup.dtype(tup, idx), codegen


@intrinsic
def select_get(typingctx, tup, idx):
    """``tup[idx]`` of a homogeneous tuple as a chain of selects: entry 0, replaced by entry k where
    ``idx == k`` (k = 1 .. n-1). No branch and no memory: a tuple a loop updates stays in registers. As
    an intrinsic it is one call to type and a few instructions to emit, where the same chain of ``if``s
    as an ``inline="always"`` function is numba IR typed and lowered again at every call."""
    if not isinstance(tup, types.UniTuple) or not isinstance(idx, types.Integer):
        return None
    dtype = types.unliteral(tup.dtype)   # (0, 0) is typed as a tuple of literal zeros

    def codegen(context, builder, signature, args):
        value, index = args
        result = builder.extract_value(value, 0)
        for k in range(1, tup.count):
            result = builder.select(builder.icmp_unsigned("==", index, index.type(k)),
                                    builder.extract_value(value, k), result)
        return context.cast(builder, result, tup.dtype, dtype)

    return dtype(tup, idx), codegen


@intrinsic
def select_set(typingctx, tup, idx, value):
    """The homogeneous tuple ``tup`` with entry ``idx`` set to ``value``, entry by entry a select (as
    ``(value if idx == 0 else tup[0], ...)``; an intrinsic for the reason of ``select_get``). ``value``
    must unify with the entry type to that type (the tuple's type does not change, but for literal
    entries: ``(0, 0)`` comes back as a tuple of int64)."""
    if not isinstance(tup, types.UniTuple) or not isinstance(idx, types.Integer):
        return None
    dtype = types.unliteral(tup.dtype)
    if typingctx.unify_pairs(dtype, types.unliteral(value)) != dtype:
        return None
    result_type = types.UniTuple(dtype, tup.count)

    def codegen(context, builder, signature, args):
        old, index, new = args
        new = context.cast(builder, new, signature.args[2], dtype)
        result = context.get_constant_undef(result_type)
        for k in range(tup.count):
            entry = context.cast(builder, builder.extract_value(old, k), tup.dtype, dtype)
            entry = builder.select(builder.icmp_unsigned("==", index, index.type(k)), new, entry)
            result = builder.insert_value(result, entry, k)
        return result

    return result_type(tup, idx, value), codegen
