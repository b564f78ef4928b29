"""Statistical honesty: the paired difference interval that ``compare`` and ``tune`` report covers a
known difference about 95% of the time. (The Wilson interval's coverage is checked in test_stats.py.)

The process: two correlated Bernoulli "policies" playing the same games, as on common random numbers.
Policy A wins with probability 0.30; policy B wins with probability 0.9 where A won and 0.05 where A
lost (so B wins 30.5%). Per game the difference A - B is +1 with probability 0.03, -1 with 0.035 and 0
otherwise: the true difference is -0.005, and the two policies' wins are strongly correlated.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cursedsim import stats

scipy_stats = pytest.importorskip("scipy.stats")
scipy_special = pytest.importorskip("scipy.special")

P_A, B_IF_A, B_IF_NOT_A = 0.30, 0.9, 0.05
P_PLUS = P_A * (1 - B_IF_A)            # A won, B lost
P_MINUS = (1 - P_A) * B_IF_NOT_A       # B won, A lost
TRUE_DIFF = P_PLUS - P_MINUS           # -0.005
PAIRS, REPS = 1_000, 2_000


def correlated_pair(generator: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n games of the two policies: wins of A and of B, correlated as described above."""
    a = generator.random(n) < P_A
    b = generator.random(n) < np.where(a, B_IF_A, B_IF_NOT_A)
    return a.astype(np.float64), b.astype(np.float64)


def exact_paired_coverage(n: int, alpha: float = 0.05) -> float:
    """The exact probability that the paired t interval of n games holds TRUE_DIFF: the interval depends
    only on the counts (k+, k-) of games with difference +1 and -1, which are trinomial."""
    k = np.arange(n + 1)
    kp, km = k[:, None], k[None, :]
    k0 = n - kp - km
    valid = k0 >= 0
    k0 = np.where(valid, k0, 0)
    log_p = (scipy_special.gammaln(n + 1) - scipy_special.gammaln(kp + 1) - scipy_special.gammaln(km + 1)
             - scipy_special.gammaln(k0 + 1) + kp * math.log(P_PLUS) + km * math.log(P_MINUS)
             + k0 * math.log(1 - P_PLUS - P_MINUS))
    p = np.where(valid, np.exp(log_p), 0.0)
    assert p.sum() == pytest.approx(1.0, abs=1e-9)
    mean = (kp - km) / n
    var = np.maximum(kp + km - n * mean ** 2, 0) / (n - 1)
    half = scipy_stats.t.ppf(1 - alpha / 2, n - 1) * np.sqrt(var / n)
    return float(p[np.abs(mean - TRUE_DIFF) <= half].sum())


def test_paired_difference_interval_covers_a_known_difference_about_95_percent_of_the_time():
    # 2,000 seeded repetitions of 1,000 paired games each. The exact coverage of the paired t interval for
    # this process at n=1,000 is 95.06% (computed below from the trinomial distribution of the
    # differences). A coverage estimated from R=2,000 repetitions has a standard error of
    # sqrt(0.95 * 0.05 / 2000) = 0.49 points, so the band 93%-97% lies at least 3.9 standard errors from
    # 95.06% on either side: a correct interval fails it with probability below 1e-4, and because the
    # draws are seeded the test is deterministic. An interval that ignores the pairing, or uses the wrong
    # spread, lands far outside (the unpaired one below covers ~100%).
    generator = np.random.default_rng(20250117)
    covered = 0
    paired_widths, unpaired_widths, unpaired_covered = [], [], 0
    for _ in range(REPS):
        a, b = correlated_pair(generator, PAIRS)
        paired = stats.paired_difference(a, b)
        covered += paired["ci_low"] <= TRUE_DIFF <= paired["ci_high"]
        paired_widths.append(paired["ci_high"] - paired["ci_low"])
        unpaired = stats.unpaired_difference(a, b)
        unpaired_covered += unpaired["ci_low"] <= TRUE_DIFF <= unpaired["ci_high"]
        unpaired_widths.append(unpaired["ci_high"] - unpaired["ci_low"])
    coverage = covered / REPS
    assert 0.93 <= coverage <= 0.97, coverage
    assert 0.945 <= exact_paired_coverage(PAIRS) <= 0.956
    # the unpaired interval on the same games is honest but wasteful: ~2.5 times as wide, covering ~always
    # (its 95% is spent on spread the pairing removes; the expected ratio is 0.0205 / 0.0081 = 2.5)
    assert unpaired_covered / REPS > 0.995
    assert 2.2 < np.mean(unpaired_widths) / np.mean(paired_widths) < 2.8


def test_paired_difference_standard_error_matches_the_process():
    # one large sample: the standard error reported equals the process's sd(A - B) / sqrt(n) within 2%
    # (the sd of an estimated sd from 200,000 pairs is ~0.3%, so 2% is more than 6 of them)
    a, b = correlated_pair(np.random.default_rng(7), 200_000)
    paired = stats.paired_difference(a, b)
    true_sd = math.sqrt(P_PLUS + P_MINUS - TRUE_DIFF ** 2)
    assert paired["se"] == pytest.approx(true_sd / math.sqrt(200_000), rel=0.02)
    assert abs(paired["diff"] - TRUE_DIFF) < 4 * paired["se"]
