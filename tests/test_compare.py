"""compare: policies on common random numbers, paired against unpaired intervals, validation, the score
difference over games both won, games to detect."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim import stats
from cursedsim.compare import compare, pair_row
from cursedsim.errors import PlayersError, RunError, UnknownPolicyError


def test_compare_is_part_of_the_public_api():
    assert cursedsim.compare is compare
    assert "compare" in cursedsim.__all__


# ---------------------------------------------------------------- Verflucht!: why pairing pays

@pytest.fixture(scope="module")
def verflucht_comparison():
    """baseline vs smart at 3 players with 4 seals, 20,000 common games (~1 s once compiled)."""
    return compare("verflucht", ["baseline", "smart"], 20_000, players=3, options={"seals": 4}, seed=11,
                   progress=False)


def test_paired_interval_is_narrower_than_the_unpaired_one_on_the_same_games(verflucht, verflucht_comparison):
    result = verflucht_comparison
    row = result.pairs.iloc[0]
    a, b = result.frames["baseline"], result.frames["smart"]
    # both policies played the very same deals: same seed, same indices, and their wins are correlated
    assert (a["game_index"].to_numpy() == b["game_index"].to_numpy()).all() and (a["seed"] == 11).all()
    win_a, win_b = a["win"].to_numpy(float), b["win"].to_numpy(float)
    assert np.corrcoef(win_a, win_b)[0, 1] > 0.3
    # the paired statistics are those of the per-game differences ...
    d = win_a - win_b
    assert row["diff"] == pytest.approx(win_a.mean() - win_b.mean(), abs=1e-15)
    assert row["se"] == pytest.approx(d.std(ddof=1) / math.sqrt(d.size), rel=1e-12)
    # ... the unpaired ones treat the two columns as independent samples
    assert row["unpaired_se"] == pytest.approx(math.sqrt(win_a.var(ddof=1) / d.size + win_b.var(ddof=1) / d.size),
                                               rel=1e-12)
    paired_width = row["ci_high"] - row["ci_low"]
    unpaired_width = row["unpaired_ci_high"] - row["unpaired_ci_low"]
    assert row["ci_low"] < row["diff"] < row["ci_high"]
    assert paired_width < 0.9 * unpaired_width      # measured ratio ~0.8 (correlation ~0.5)
    # a comparison of the same games is also what independent simulate runs with that seed give
    alone = cursedsim.simulate("verflucht", 20_000, players=3, policy="smart", options={"seals": 4}, seed=11,
                               progress=False)
    assert (alone["win"].to_numpy() == b["win"].to_numpy()).all()


def test_games_to_detect_is_smaller_paired_than_unpaired(verflucht, verflucht_comparison):
    row = verflucht_comparison.pairs.iloc[0]
    assert row["detect"] == 0.01
    assert 2 < row["games_to_detect"] < row["games_to_detect_unpaired"]
    # the paired count is the paired t test's sample size for the observed spread of the differences
    frames = verflucht_comparison.frames
    sd = (frames["baseline"]["win"].to_numpy(float) - frames["smart"]["win"].to_numpy(float)).std(ddof=1)
    assert row["games_to_detect"] == stats.paired_sample_size(sd, 0.01)
    normal = ((1.959964 + 0.841621) * sd / 0.01) ** 2    # the z approximation, within the t correction
    assert normal < row["games_to_detect"] < normal + 10
    # a larger difference needs fewer games
    wider = compare("verflucht", ["baseline", "smart"], 2_000, players=3, options={"seals": 4}, seed=11,
                    detect=0.05, progress=False).pairs.iloc[0]
    assert wider["games_to_detect"] < row["games_to_detect"] / 10


def test_score_difference_is_over_the_games_both_won_on_verflucht(verflucht, verflucht_comparison):
    row = verflucht_comparison.pairs.iloc[0]
    a, b = verflucht_comparison.frames["baseline"], verflucht_comparison.frames["smart"]
    both = a["win"].to_numpy() & b["win"].to_numpy()
    assert row["both_won"] == both.sum() > 100
    expected = (a["score"].to_numpy(float)[both] - b["score"].to_numpy(float)[both]).mean()
    assert row["score_diff"] == pytest.approx(expected, rel=1e-12)
    assert row["score_ci_low"] < row["score_diff"] < row["score_ci_high"]
    # not the difference of the per-policy means (over different games), nor one that counts lost games
    per_policy = a.loc[a["win"], "score"].mean() - b.loc[b["win"], "score"].mean()
    all_games = a["score"].mean() - b["score"].mean()
    assert abs(row["score_diff"] - per_policy) > 1 and abs(row["score_diff"] - all_games) > 1


def test_score_difference_counts_only_games_both_won():
    a = pd.DataFrame({"win": [True, True, False, True, False], "score": np.array([10, 20, -1, 30, -1], np.int16)})
    b = pd.DataFrame({"win": [True, False, True, True, False], "score": np.array([5, -1, 7, 40, -1], np.int16)})
    row = pair_row("a", "b", a, b, has_score=True, detect=0.1, alpha=0.05, power=0.8)
    assert row["both_won"] == 2                        # games 0 and 3
    assert row["score_diff"] == pytest.approx(-2.5)    # (10 - 5 + 30 - 40) / 2
    assert row["diff"] == pytest.approx(0.0)           # 3 wins each
    one = pair_row("a", "b", a.iloc[:3], b.iloc[:3], has_score=True, detect=0.1, alpha=0.05, power=0.8)
    assert one["both_won"] == 1 and math.isnan(one["score_diff"])   # one game is no interval
    assert "score_diff" not in pair_row("a", "b", a, b, has_score=False, detect=0.1, alpha=0.05, power=0.8)


# ---------------------------------------------------------------- the coin: layout, labels, errors

def test_pairs_and_policies_tables(coin):
    result = compare("coin", ["plain", "greedy", "greedy:bonus=9"], 3_000, seed=4, progress=False)
    assert list(result.frames) == ["plain", "greedy", "greedy:bonus=9"]
    assert result.pairs[["a", "b"]].values.tolist() == [["plain", "greedy"], ["plain", "greedy:bonus=9"],
                                                        ["greedy", "greedy:bonus=9"]]
    assert result.policies["policy"].tolist() == ["plain", "greedy", "greedy:bonus=9"]
    assert (result.frames["greedy:bonus=9"]["param_bonus"] == 9).all()
    # the coin's win does not depend on the policy: every paired difference is exactly zero
    assert (result.pairs["diff"] == 0).all() and (result.pairs["ci_low"] == 0).all()
    # its score is 1-100 plus the bonus: over the games both won, greedy (5) - plain (0) = -5 for a - b
    assert result.pairs["score_diff"].tolist() == pytest.approx([-5.0, -9.0, -4.0])
    labelled = compare("coin", [{"policy": "plain", "label": "p"}, {"policy": "plain", "params": {"bonus": 3}}],
                       1_000, seed=4, progress=False)
    assert list(labelled.frames) == ["p", "plain:bonus=3"]


def test_compare_resumes_from_its_out_directory(coin, tmp_path):
    first = compare("coin", ["plain", "greedy"], 2_000, seed=2, out=str(tmp_path / "cmp"), progress=False)
    assert sorted(p.name for p in (tmp_path / "cmp").iterdir()) == ["compare.json", "greedy", "plain"]
    again = compare("coin", ["plain", "greedy"], 2_000, seed=2, out=str(tmp_path / "cmp"), progress=False)
    pd.testing.assert_frame_equal(first.pairs, again.pairs)
    with pytest.raises(RunError, match="seed is 2 there but 3 now"):
        compare("coin", ["plain", "greedy"], 2_000, seed=3, out=str(tmp_path / "cmp"), progress=False)


@pytest.mark.parametrize("policies, error, fragment", [
    (["plain"], UnknownPolicyError, "two or more distinct policies"),
    (["plain", "plain"], UnknownPolicyError, "two or more distinct policies"),
    (["plain", "nope"], UnknownPolicyError, "unknown policy 'nope'"),
    (["plain", "greedy:nope=1"], UnknownPolicyError, "no parameter 'nope'"),
    (["plain", "greedy:bonus"], UnknownPolicyError, "not NAME=VALUE"),
    (["plain", 42], UnknownPolicyError, "a name or a dict"),
])
def test_bad_policies_are_refused_before_any_game(coin, policies, error, fragment):
    with pytest.raises(error, match=fragment):
        compare("coin", policies, 100, progress=False)


@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"n_games": 0}, RunError, "positive integer"),
    ({"players": 9}, PlayersError, "1-4 players"),
    ({"seed": -1}, RunError, "0..2"),
])
def test_bad_run_settings_are_refused(coin, kwargs, error, fragment):
    settings = {"n_games": 100, **kwargs}
    with pytest.raises(error, match=fragment):
        compare("coin", ["plain", "greedy"], progress=False, **settings)
