"""The clear-lead rule of every compiled ``rollout`` (docs/search.md): a candidate replaces the base
policy's choice only when it won more of the common-random-number playouts by more than ``margin``
square roots of the playouts where the two ended differently (a sign test), and candidates that can no
longer pass that test are not played further (the same decision, found sooner).

Layout: ``wins[i]`` candidate i's wins, ``discordant[i]`` its playouts that ended unlike the base
choice's (candidate 0) on the same streams. A game's search plays playout ``j`` of every open candidate
before playout ``j + 1`` (``still_open`` is asked before each ``j``) and counts with ``tally``.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def choose(wins, discordant, n_cand, margin):
    """The candidate to play: the base choice (0) unless another leads it by more than ``margin`` times
    the square root of its discordant playouts (a lead of one discordant playout is noise); among those,
    the most wins, ties to the earlier."""
    best = 0
    for i in range(1, n_cand):
        lead = wins[i] - wins[0]
        if lead > 0 and lead * lead > margin * margin * discordant[i] and (best == 0 or wins[i] > wins[best]):
            best = i
    return best


@njit(cache=True)
def can_qualify(lead, discordant, remaining, margin):
    """Whether a candidate ``lead`` wins ahead of the base choice over ``discordant`` discordant playouts
    can still pass ``choose``'s test after ``remaining`` more playouts. Its best case: every new
    discordant playout is its win, a lead + a over discordant + a; (lead + a)^2 - margin^2 (discordant + a)
    is convex in a, so checking the ends of the range where the lead is positive is exact."""
    m2 = margin * margin
    first = max(0, 1 - lead)
    if first > remaining:
        return False
    for a in (first, remaining):
        top = lead + a
        if top * top > m2 * (discordant + a):
            return True
    return False


@njit(cache=True)
def still_open(wins, discordant, n_cand, remaining, margin):
    """The candidates (a bit each; the base choice never) that can still pass ``choose``'s test with
    ``remaining`` playouts to go, asked before a playout's base result counts. 0: the base choice is the
    decision and the remaining playouts need not be played."""
    open_ = 0
    for i in range(1, n_cand):
        if can_qualify(wins[i] - wins[0], discordant[i], remaining, margin):
            open_ |= 1 << i
    return open_


@njit(cache=True, inline="always")
def tally(wins, discordant, i, won, base_won):
    """Count candidate ``i``'s playout: a win, and (i > 0) whether it ended unlike the base choice's."""
    if won:
        wins[i] += 1
    if i > 0 and won != base_won:
        discordant[i] += 1


__all__ = ["can_qualify", "choose", "still_open", "tally"]
