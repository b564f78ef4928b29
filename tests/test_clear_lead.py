"""The clear-lead rule every compiled ``rollout`` decides by (``games/clear_lead.py``): the base choice
stays without a clear lead, and stopping hopeless candidates early never changes a decision."""

from __future__ import annotations

import numpy as np

from cursedsim.games import clear_lead


def counts(values, size=8):
    out = np.zeros(size, np.int64)
    out[:len(values)] = values
    return out


def test_a_candidate_needs_a_clear_lead_to_replace_the_base_choice():
    """The base choice (0) stays unless another candidate's lead exceeds margin x sqrt(its discordant
    playouts); with margin 0 the most wins (ties to the earlier)."""
    def choose(wins, discordant, margin):
        return clear_lead.choose(counts(wins), counts(discordant), len(wins), margin)
    assert choose([3, 4], [0, 1], 1.0) == 0        # one discordant playout: noise
    assert choose([3, 5], [0, 2], 1.0) == 1        # 2 of 2 discordant
    assert choose([3, 5], [0, 4], 1.0) == 0        # +2 on 4 discordant: 4 > 4 fails
    assert choose([3, 5, 6], [0, 2, 9], 1.0) == 1  # 6 wins but +3 on 9 discordant
    assert choose([3, 4, 4], [0, 1, 1], 0.0) == 1  # margin 0: most wins, earlier first


def decided(outcomes, margin, stop_early):
    """A search's playout loop over given outcomes (playout x candidate: won?), with or without
    ``still_open``'s early stop; the candidate ``choose`` takes."""
    n, n_cand = outcomes.shape
    wins, discordant = counts([]), counts([])
    for j in range(n):
        open_ = clear_lead.still_open(wins, discordant, n_cand, n - j, margin)
        if stop_early and open_ == 0:
            break
        for i in range(n_cand):
            if stop_early and i > 0 and not (open_ >> i) & 1:
                continue
            clear_lead.tally(wins, discordant, i, outcomes[j, i], outcomes[j, 0])
    return clear_lead.choose(wins, discordant, n_cand, margin)


def test_stopping_hopeless_candidates_early_never_changes_a_decision():
    """A candidate that can no longer pass ``choose``'s test is not played further (``still_open``): on
    5,000 random outcome tables (2-6 candidates, 2-32 playouts, margins 0-2) the decision is the one of
    the full loop. (The search loops' order matters too: kernel == reference in each game's rollout
    tests, the reference playing every playout, caught a check made after a playout's base result.)"""
    rng = np.random.default_rng(5)
    for _ in range(5000):
        n_cand, n = rng.integers(2, 7), rng.choice([2, 4, 8, 16, 32])
        margin = float(rng.choice([0.0, 0.3, 0.5, 1.0, 2.0]))
        outcomes = rng.random((n, n_cand)) < rng.random(n_cand)
        assert decided(outcomes, margin, True) == decided(outcomes, margin, False)


def test_the_best_case_check_is_exact():
    """``can_qualify`` agrees with trying every future (a wins, b losses among the remaining playouts)."""
    for margin in (0.0, 0.5, 1.0, 2.0):
        for lead in range(-6, 7):
            for disc in range(abs(lead), 14, 2):
                for remaining in range(1, 8):
                    truth = any(lead + a - b > 0 and (lead + a - b) ** 2 > margin ** 2 * (disc + a + b)
                                for a in range(remaining + 1) for b in range(remaining + 1 - a))
                    assert clear_lead.can_qualify(lead, disc, remaining, margin) == truth
