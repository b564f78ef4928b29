"""compare: policies and rule option values on common random numbers, each minus the reference (or every
pair), paired against unpaired intervals, Holm-adjusted p-values, validation, the score difference over
games both won, games to detect."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim import stats
from cursedsim.compare import changed_options, compare, pair_row
from cursedsim.errors import CompareError, OptionError, PlayersError, RunError, UnknownPolicyError


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
    assert (row["a"], row["b"]) == ("smart", "baseline")      # X - reference, the reference the first policy
    a, b = result.frames["smart"], result.frames["baseline"]
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
    assert (alone["win"].to_numpy() == a["win"].to_numpy()).all()


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
    a, b = verflucht_comparison.frames["smart"], verflucht_comparison.frames["baseline"]
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
    result = compare("coin", ["plain", "greedy", "greedy:bonus=9"], 3_000, seed=4, pairs="all", progress=False)
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


# ---------------------------------------------------------------- rule options as contenders

def test_option_values_play_the_games_separate_simulate_runs_play(coin):
    values = [30, 40, 20]
    result = compare("coin", ["plain"], 5_000, players=3, options={"lucky": False}, vary={"p_percent": values},
                     seed=7, progress=False)
    labels = [f"p_percent={v}" for v in values]
    assert list(result.frames) == labels == [c.label for c in result.contenders]
    alone = {v: cursedsim.simulate("coin", 5_000, players=3, options={"lucky": False, "p_percent": v}, seed=7,
                                   progress=False) for v in values}
    for value, label in zip(values, labels):
        pd.testing.assert_frame_equal(result.frames[label], alone[value])
    # each value minus the reference (the first value), computed by hand from the separate runs
    assert result.reference == "p_percent=30"
    assert result.pairs[["a", "b"]].values.tolist() == [["p_percent=40", "p_percent=30"],
                                                        ["p_percent=20", "p_percent=30"]]
    reference = alone[30]["win"].to_numpy(float)
    for row, value in zip(result.pairs.to_dict("records"), (40, 20)):
        d = alone[value]["win"].to_numpy(float) - reference
        assert row["diff"] == pytest.approx(d.mean(), abs=1e-15)
        assert row["se"] == pytest.approx(d.std(ddof=1) / math.sqrt(d.size), rel=1e-12)
        # the coin wins when its one draw is below p_percent: ten points more win a superset of the games
        assert np.all(d * np.sign(value - 30) >= 0)
        assert abs(row["diff"] - (value - 30) / 100) < 4 * row["se"]
    assert result.pairs["p_holm"].tolist() == stats.holm(result.pairs["p_value"]).tolist()
    assert result.policies["policy"].tolist() == labels and result.policies["p_percent"].tolist() == values


def test_policies_and_options_mix_in_one_grid_with_readable_labels(coin):
    result = compare("coin", ["plain", "greedy:bonus=2"], 2_000, vary={"lucky": [False, True], "p_percent": [50]},
                     reference="greedy / true", seed=3, progress=False)
    labels = ["plain / lucky=false", "plain / lucky=true", "greedy:bonus=2 / lucky=false", "greedy:bonus=2 / lucky=true"]
    assert list(result.frames) == labels      # every policy x every value; a one-value option is no label part
    assert result.reference == "greedy:bonus=2 / lucky=true"
    assert (result.pairs["b"] == result.reference).all() and result.pairs["a"].tolist() == labels[:3]
    for label, side in zip(labels, result.contenders):
        frame = result.frames[label]
        assert (frame["p_percent"] == 50).all() and (frame["lucky"] == label.endswith("true")).all()
        assert frame["policy"].iat[0] == side.policy
    # the coin's win ignores the policy: lucky adds 10 points, and the same games decide it
    rows = result.pairs.set_index("a")
    assert rows.loc["plain / lucky=true", "diff"] == 0
    assert rows.loc["plain / lucky=false", "diff"] < 0 and rows.loc["greedy:bonus=2 / lucky=false", "diff"] < 0
    assert rows.loc["plain / lucky=false", "diff"] == rows.loc["greedy:bonus=2 / lucky=false", "diff"]
    assert result.pairs["p_holm"].tolist() == stats.holm(result.pairs["p_value"]).tolist()


@pytest.mark.parametrize("reference, expected", [
    (None, "p_percent=30"), ("p_percent=40", "p_percent=40"), ("40", "p_percent=40"), (40, "p_percent=40"),
    (" p_percent=40 ", "p_percent=40"),
])
def test_reference_is_named_by_label_or_value_and_every_row_is_x_minus_reference(coin, reference, expected):
    result = compare("coin", ["plain"], 2_000, vary={"p_percent": [30, 40]}, reference=reference, seed=5,
                     progress=False)
    assert result.reference == expected == result.settings["reference"]
    (row,) = result.pairs.to_dict("records")
    assert row["b"] == expected and row["a"] != expected
    wins = {label: frame["win"].to_numpy(float) for label, frame in result.frames.items()}
    assert row["diff"] == pytest.approx(wins[row["a"]].mean() - wins[expected].mean(), abs=1e-15)
    assert (row["diff"] > 0) == (expected == "p_percent=30")
    assert row["p_holm"] == row["p_value"]     # a family of one


def test_every_pair_on_request_with_holm_over_all_of_them(coin):
    result = compare("coin", ["plain"], 2_000, vary={"p_percent": [30, 40, 20]}, pairs="all", seed=5, progress=False)
    assert result.reference is None
    assert result.pairs[["a", "b"]].values.tolist() == [["p_percent=30", "p_percent=40"],
                                                        ["p_percent=30", "p_percent=20"],
                                                        ["p_percent=40", "p_percent=20"]]
    assert result.pairs["p_holm"].tolist() == stats.holm(result.pairs["p_value"]).tolist()
    assert (result.pairs["p_holm"] >= result.pairs["p_value"]).all()


def test_the_result_records_every_setting(coin):
    result = compare("coin", ["plain", "greedy"], 1_000, players=4, options={"p_percent": 45},
                     vary={"lucky": [False, True]}, seed=9, detect=0.02, progress=False)
    settings = result.settings
    assert settings["game"] == "coin" and settings["players"] == 4 and settings["seed"] == 9
    assert settings["n_games"] == 1_000 and settings["detect"] == 0.02
    assert settings["vary"] == {"lucky": [False, True]} and settings["policies"] == ["plain", "greedy"]
    # every fixed option, resolved at the player count (seals None is the player count for the coin)
    assert settings["options"] == {"p_percent": 45, "seals": 4, "work": 0}
    assert changed_options(cursedsim.get_game("coin"), {"p_percent": 45}, 4) == {"p_percent": 45}
    assert changed_options(cursedsim.get_game("coin"), {"seals": 4}, 4) == {}


def test_option_compare_resumes_from_its_out_directory(coin, tmp_path):
    out = str(tmp_path / "cmp")
    first = compare("coin", ["plain"], 2_000, vary={"lucky": [False, True]}, seed=2, out=out, progress=False)
    assert sorted(p.name for p in (tmp_path / "cmp").iterdir()) == ["compare.json", "lucky=false", "lucky=true"]
    again = compare("coin", ["plain"], 2_000, vary={"lucky": [False, True]}, seed=2, out=out, progress=False)
    pd.testing.assert_frame_equal(first.pairs, again.pairs)
    with pytest.raises(RunError, match="p_percent is 30 there but 31 now"):
        compare("coin", ["plain"], 2_000, options={"p_percent": 31}, vary={"lucky": [False, True]}, seed=2, out=out,
                progress=False)


@pytest.mark.parametrize("kwargs, error, fragments", [
    ({"vary": {"nope": [1, 2]}}, OptionError, ["unknown option 'nope'", "valid options: p_percent, lucky"]),
    ({"vary": {"p_percent": [30, 101]}}, OptionError, ["p_percent", "0-100", "101"]),
    ({"vary": {"p_percent": [30, "x"]}}, OptionError, ["p_percent", "takes an integer", "'x'"]),
    ({"vary": {"p_percent": [30, 30]}}, OptionError, ["value 30", "twice"]),
    ({"vary": {"p_percent": []}}, OptionError, ["no value"]),
    ({"vary": {"p_percent": [30]}}, UnknownPolicyError, ["two or more distinct contenders", "got ['plain']"]),
    ({"vary": [30, 40]}, OptionError, ["vary must map", "valid options"]),
    ({"vary": {"p_percent": [30, 40]}, "options": {"p_percent": 50}}, OptionError, ["both as fixed", "varied"]),
    ({"vary": {"p_percent": [30, 40]}, "reference": 50}, CompareError,
     ["reference 50 names no contender", "p_percent=30, p_percent=40"]),
    ({"vary": {"p_percent": [30, 40]}, "reference": "greedy"}, CompareError, ["names no contender"]),
    ({"vary": {"p_percent": [30, 40]}, "pairs": "some"}, CompareError, ["pairs must be one of reference, all"]),
    ({"vary": {"p_percent": [30, 40]}, "pairs": "all", "reference": 30}, CompareError, ["takes no reference"]),
])
def test_bad_options_and_references_are_refused_naming_the_choices(coin, kwargs, error, fragments):
    with pytest.raises(error) as caught:
        compare("coin", ["plain"], 100, progress=False, **kwargs)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_an_ambiguous_reference_lists_the_contenders_it_fits(coin):
    with pytest.raises(CompareError, match=r"reference 'true' fits 2 contenders \(plain / lucky=true, greedy / "
                                           r"lucky=true\)"):
        compare("coin", ["plain", "greedy"], 100, vary={"lucky": [False, True]}, reference="true", progress=False)


def test_a_string_option_on_cursed_names_its_valid_values_before_any_game():
    with pytest.raises(OptionError, match="'starting_item' must be one of random, soul_crystal"):
        compare("cursed", ["threshold"], 100, vary={"starting_item": ["random", "sword"]}, progress=False)


def test_cursed_starting_items_compared_on_the_same_deals():
    items = ["random", "scroll_of_purge_life", "shield"]
    result = compare("cursed", ["threshold"], 3_000, vary={"starting_item": items}, reference="random", seed=4,
                     progress=False)
    assert result.pairs["a"].tolist() == ["starting_item=scroll_of_purge_life", "starting_item=shield"]
    assert (result.pairs["b"] == "starting_item=random").all()
    for item in items:
        alone = cursedsim.simulate("cursed", 3_000, policy="threshold", options={"starting_item": item}, seed=4,
                                   progress=False)
        pd.testing.assert_frame_equal(result.frames[f"starting_item={item}"], alone)
    base = result.frames["starting_item=random"]["win"].to_numpy(float)
    for row in result.pairs.to_dict("records"):
        d = result.frames[row["a"]]["win"].to_numpy(float) - base
        assert row["diff"] == pytest.approx(d.mean(), abs=1e-15) and row["ci_low"] < row["diff"] < row["ci_high"]
