"""The kernel's shortcuts of issue 30 point 2 (Curses & Covens): for the towns' ``random`` policy at
Travel (``kernel.random_travel``), the same draw and the same action as ``policies.random_action`` over
the full legal set ``kernel.travel_set``, on random hands of every size, every acting town, 3-5 towns,
both ask_empty; and ``kernel.town_set``, built by a shift, the set of ``legal_add`` one town at a time."""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim.games.covens import kernel as K
from cursedsim.games.covens import policies as pol
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S


@pytest.mark.parametrize("towns", [3, 4, 5])
@pytest.mark.parametrize("ask_empty", [True, False])
def test_random_travel_draws_the_action_of_random_action_over_travel_set(towns, ask_empty):
    gen = np.random.default_rng(towns * 2 + ask_empty)
    seen_sizes = set()
    for _ in range(3000):
        hands = np.zeros(R.MAX_TOWNS, np.uint64)
        cards = gen.permutation(R.N_CARDS)
        used = 0
        for t in range(towns):
            n = int(gen.choice([0, 0, 1, 2, 3, 4, 6]))
            for c in cards[used:used + n]:
                hands[t] |= np.uint64(1) << np.uint64(c)
            used += n
        a = np.int64(gen.integers(towns))
        state = tuple(np.uint64(v) for v in gen.integers(0, 2**63 - 1, size=4, dtype=np.int64))
        legal = tuple(np.uint64(w) for w in K.travel_set(hands, a, np.int64(towns), ask_empty))
        seen_sizes.add(pol.legal_count(legal))
        expected = pol.random_action(legal, state)
        got = K.random_travel(hands, a, np.int64(towns), ask_empty, state)
        assert got == expected, (hands, a, legal)
    assert len(seen_sizes) >= 6   # empty-handed, single-card and larger hands were all met


def test_town_set_is_the_towns_added_one_at_a_time():
    for towns in range(1, R.MAX_TOWNS + 1):
        for allowed in range(1 << (R.MAX_TOWNS + 1)):
            expected = pol.NO_LEGAL
            for u in range(towns):
                if allowed >> u & 1:
                    expected = pol.legal_add(expected, np.int64(S.A_TOWN + u))
            got = K.town_set(np.int64(towns), np.uint64(allowed))
            assert tuple(int(w) for w in got) == tuple(int(w) for w in expected), (towns, allowed)
