"""Statistics: Wilson intervals against a second implementation, their coverage, summaries, sample sizes."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from cursedsim import stats
from cursedsim.errors import CursedsimError
from cursedsim.games import get_game
from cursedsim.games.base import Measure, conventional_measures

from conftest import COIN

scipy_stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize("k, n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 1000), (487, 1000), (300, 500),
                                  (12_345, 100_000)])
def test_wilson_interval_matches_scipy(k, n):
    expected = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = stats.wilson_interval(k, n)
    assert low == pytest.approx(expected.low, abs=1e-12)
    assert high == pytest.approx(expected.high, abs=1e-12)


def test_wilson_interval_is_vectorised_and_nan_without_games():
    low, high = stats.wilson_interval(np.array([0, 5, 0]), np.array([10, 10, 0]))
    assert low.shape == (3,) and low[1] < 0.5 < high[1]
    assert low[0] == 0.0 and math.isnan(low[2]) and math.isnan(high[2])
    wide, _ = stats.wilson_interval(5, 10, alpha=0.01)
    assert wide < low[1]


def test_wilson_interval_is_exactly_0_or_1_at_the_ends():
    """No wins: the lower bound is 0 exactly, not float noise (it is printed); all wins: the upper is 1."""
    low, high = stats.wilson_interval(np.array([0, 10, 3]), np.array([1_000_000, 10, 10]))
    assert low[0] == 0.0 and high[1] == 1.0
    assert 0 < high[0] < 1e-5 and 0.5 < low[1] < 1 and 0 < low[2] < high[2] < 1


def test_wilson_interval_covers_a_known_probability_about_95_percent_of_the_time():
    # 2,000 seeded repetitions of n=500 Bernoulli(0.3) draws. The exact coverage of Wilson's interval at
    # n=500, p=0.3 is 95.47% (sum of binomial probabilities of the k whose interval holds p; checked
    # below). A coverage estimated from R=2,000 repetitions has a standard error of
    # sqrt(0.95 * 0.05 / 2000) = 0.49 points, so 93%-97% leaves at least 3 standard errors on each side
    # of 95.47%; the draws are seeded, so the test is deterministic and fails only if the interval is wrong.
    reps, n, p = 2000, 500, 0.3
    successes = np.random.default_rng(20240601).binomial(n, p, size=reps)
    low, high = stats.wilson_interval(successes, np.full(reps, n))
    coverage = np.mean((low <= p) & (p <= high))
    assert 0.93 <= coverage <= 0.97
    k = np.arange(n + 1)
    low, high = stats.wilson_interval(k, np.full(n + 1, n))
    exact = scipy_stats.binom.pmf(k, n, p)[(low <= p) & (p <= high)].sum()
    assert 0.945 <= exact <= 0.96


def test_mean_se():
    mean, se = stats.mean_se([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert se == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2)
    assert math.isnan(stats.mean_se([3.0])[1])
    assert all(math.isnan(v) for v in stats.mean_se([]))


def _frame():
    return pd.DataFrame({
        "players": np.array([2, 2, 2, 2, 3, 3, 3], dtype=np.int8),
        "policy": pd.Categorical(["a", "a", "a", "a", "a", "a", "a"]),
        "win": [True, False, True, False, False, False, False],
        "score": np.array([10, -1, 20, -1, -1, -1, -1], dtype=np.int16),
        "turns": np.array([5, 6, 7, 8, 1, 2, 3], dtype=np.int16),
    })


def test_summarize_averages_scores_of_won_games_only():
    summary = stats.summarize(_frame(), ["policy", "players"])
    assert list(summary.columns) == ["policy", "players", "n", "wins", "win_rate", "ci_low", "ci_high",
                                     "mean_score", "score_se", "mean_turns"]
    two, three = summary.iloc[0], summary.iloc[1]
    assert (two["players"], two["n"], two["wins"], two["win_rate"]) == (2, 4, 2, 0.5)
    assert two["mean_score"] == 15.0                     # (10 + 20) / 2, the -1 of lost games left out
    assert two["score_se"] == pytest.approx(5.0)         # sd 7.07 / sqrt(2)
    assert two["mean_turns"] == 6.5                      # turns of every game
    assert (two["ci_low"], two["ci_high"]) == pytest.approx(stats.wilson_interval(2, 4))
    assert three["wins"] == 0 and three["win_rate"] == 0.0
    assert math.isnan(three["mean_score"]) and math.isnan(three["score_se"])


def test_summarize_whole_frame_and_missing_columns():
    summary = stats.summarize(_frame())
    assert len(summary) == 1 and summary["n"].iloc[0] == 7 and summary["mean_score"].iloc[0] == 15.0
    no_score = stats.summarize(_frame().drop(columns=["score", "turns"]), "players")
    assert "mean_score" not in no_score.columns and "mean_turns" not in no_score.columns
    with pytest.raises(CursedsimError, match="no column 'seals'"):
        stats.summarize(_frame(), "seals")


def _solo_frame():
    """Outcomes of a game measured over all games (souls), over won games only (bonus) and as a share
    (a bool); player count 2 has no wins."""
    return pd.DataFrame({
        "players": np.array([1, 1, 1, 1, 2, 2, 2], dtype=np.int8),
        "win": [True, False, True, False, False, False, False],
        "souls": np.array([8, 3, 8, 5, 1, 2, 6], dtype=np.int8),
        "bonus": np.array([4, 0, 6, 0, 0, 0, 0], dtype=np.int16),
        "used_shield": [True, False, False, True, True, True, False],
    })


SOLO_MEASURES = (Measure("souls", "mean souls ± SE", se=True),
                 Measure("bonus", "mean bonus (won) ± SE", won_only=True, se=True),
                 Measure("used_shield", "shield used"))


def test_summarize_measures_give_means_and_standard_errors_as_declared():
    summary = stats.summarize(_solo_frame(), "players", measures=SOLO_MEASURES)
    assert list(summary.columns) == ["players", "n", "wins", "win_rate", "ci_low", "ci_high", "mean_souls",
                                     "souls_se", "mean_bonus", "bonus_se", "mean_used_shield"]
    one, two = summary.iloc[0], summary.iloc[1]
    assert one["mean_souls"] == 6.0                                        # (8 + 3 + 8 + 5) / 4, every game
    assert one["souls_se"] == pytest.approx(np.std([8, 3, 8, 5], ddof=1) / 2)
    assert one["mean_bonus"] == 5.0                                        # (4 + 6) / 2, won games only
    assert one["bonus_se"] == pytest.approx(1.0)                           # sd 1.414 / sqrt(2)
    assert one["mean_used_shield"] == 0.5                                  # a bool averages to a share
    assert two["mean_souls"] == 3.0 and two["souls_se"] == pytest.approx(np.std([1, 2, 6], ddof=1) / math.sqrt(3))
    assert two["wins"] == 0 and math.isnan(two["mean_bonus"]) and math.isnan(two["bonus_se"])   # no wins: NaN
    assert two["mean_used_shield"] == pytest.approx(2 / 3)
    # one won game has a mean but no standard error
    single = stats.summarize(_solo_frame().iloc[:2], measures=SOLO_MEASURES).iloc[0]
    assert single["mean_bonus"] == 4.0 and math.isnan(single["bonus_se"]) and single["souls_se"] == pytest.approx(2.5)
    with pytest.raises(CursedsimError, match="no column 'souls'"):
        stats.summarize(_frame(), measures=SOLO_MEASURES)


def test_summarize_measures_cover_the_score_and_turns_columns():
    frame = _frame()
    conventional = conventional_measures(tuple(frame.columns))
    assert [m.column for m in conventional] == ["score", "turns"] and conventional[0].won_only
    pd.testing.assert_frame_equal(stats.summarize(frame, "players", measures=conventional),
                                  stats.summarize(frame, "players"))
    # a measure of a column replaces its default treatment: the score over every game, no SE
    every_game = stats.summarize(frame, measures=[Measure("score", "mean score")])
    assert list(every_game.columns)[-2:] == ["mean_score", "mean_turns"]
    assert every_game["mean_score"].iloc[0] == pytest.approx(25 / 7)      # 10 + 20 - 5, over 7 games
    assert "mean_turns" not in stats.summarize(frame, turns=None).columns


def test_games_declare_measures_of_their_outcome_columns():
    assert COIN.measures == conventional_measures(COIN.outcome_columns)   # none declared: score and turns
    assert dataclasses.replace(COIN, measures=()).measures == ()
    with pytest.raises(CursedsimError, match="outcome columns: win, score, turns, end"):
        dataclasses.replace(COIN, measures=(Measure("souls", "mean souls"),))
    verflucht, cursed = get_game("verflucht"), get_game("cursed")
    assert [(m.column, m.won_only, m.se) for m in verflucht.measures] == [("score", True, True), ("turns", False, False)]
    assert verflucht.measures[0].header == "mean score (won) ± SE"
    assert [(m.column, m.won_only, m.se) for m in cursed.measures] == [
        ("souls", False, True), ("rounds", False, False), ("damage_taken", False, False)]
    assert cursed.measures[0].header == "mean souls ± SE"


def test_summarize_keeps_groups_with_missing_keys():
    frame = _frame().assign(param_x=[1.0, 1.0, 1.0, 1.0, np.nan, np.nan, np.nan])
    summary = stats.summarize(frame, ["param_x"])
    assert summary["n"].tolist() == [4, 3]


def test_sample_size_for_difference_matches_the_normal_formula():
    z = scipy_stats.norm.ppf
    assert stats.sample_size_for_difference(0.5, 0.6) == 388   # the textbook value
    for p1, p2 in [(0.5, 0.6), (0.30, 0.32), (0.9, 0.85)]:
        h = abs(2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2)))
        expected = 2 * ((z(0.975) + z(0.8)) / h) ** 2   # per arm; the difference has variance 2/n
        assert abs(stats.sample_size_for_difference(p1, p2) - expected) <= 1
    assert stats.sample_size_for_difference(0.3, 0.32) > stats.sample_size_for_difference(0.3, 0.4)
    assert stats.sample_size_for_difference(0.5, 0.6, power=0.9) > stats.sample_size_for_difference(0.5, 0.6)
    with pytest.raises(CursedsimError, match="equal"):
        stats.sample_size_for_difference(0.4, 0.4)
    with pytest.raises(CursedsimError, match="probability"):
        stats.sample_size_for_difference(1.2, 0.4)


def test_holm_matches_the_step_down_rule_by_hand():
    """Holm: sort p ascending, multiply the i-th (0-based) by m - i, take running maxima, clip at 1."""
    from cursedsim.stats import holm
    p = [0.01, 0.04, 0.03, 0.005, float("nan")]
    order = [3, 0, 2, 1]   # 0.005, 0.01, 0.03, 0.04; m = 4 (NaN is no test)
    by_hand, running = {}, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, p[i] * (4 - rank)))
        by_hand[i] = running
    adjusted = holm(p)
    assert [adjusted[i] for i in range(4)] == pytest.approx([by_hand[i] for i in range(4)])
    assert np.isnan(adjusted[4])
    assert adjusted[0] == pytest.approx(0.03) and adjusted[1] == pytest.approx(0.06)


def test_holm_never_lowers_a_p_value_and_refuses_non_probabilities():
    from cursedsim.stats import holm
    rng = np.random.default_rng(3)
    p = rng.uniform(size=17)
    assert np.all(holm(p) >= p)
    with pytest.raises(CursedsimError, match="0-1"):
        holm([0.2, 1.5])


def _covens_frame(game: str | None = "covens"):
    """Six hand-made Curses & Covens games: the hunter wins 2 of 3 at 4 players, 0 of 3 at 5."""
    columns = {"players": np.array([4, 4, 4, 5, 5, 5], dtype=np.int8),
               "hunter_won": [True, True, False, False, False, False],
               "town_won": [False, False, True, True, True, True],
               "rounds": np.array([3, 5, 4, 6, 2, 4], dtype=np.int16)}
    if game is not None:
        columns = {"game": pd.Categorical([game] * 6), **columns}
    return pd.DataFrame(columns)


def test_summarize_infers_the_sides_of_a_game_of_sides_from_its_game_column():
    """README's ``summarize(frame, ["players"])`` on a frame of sides: the game's first side is ``win``."""
    summary = stats.summarize(_covens_frame(), "players")
    assert list(summary["wins"]) == [2, 0] and list(summary["hunter_wins"]) == [2, 0]
    assert list(summary["town_wins"]) == [1, 3]
    assert summary["win_rate"].iloc[0] == pytest.approx(2 / 3)
    explicit = stats.summarize(_covens_frame(), "players", **stats_args("covens"))
    pd.testing.assert_frame_equal(summary, explicit)


def stats_args(game: str) -> dict:
    from cursedsim.sides import summary_args
    return summary_args(get_game(game))


def test_summarize_infers_sides_from_won_columns_without_a_game_column():
    summary = stats.summarize(_covens_frame(game=None))
    assert summary["hunter_wins"].iloc[0] == 2 and summary["town_wins"].iloc[0] == 4
    assert summary["wins"].iloc[0] == 2   # the first <side>_won column is ``win``


def test_summarize_without_a_win_column_says_what_to_pass():
    frame = _covens_frame().drop(columns=["hunter_won", "town_won", "game"])
    with pytest.raises(CursedsimError, match=r"no column 'win' to summarise: pass win= \(a game of sides"):
        stats.summarize(frame)
