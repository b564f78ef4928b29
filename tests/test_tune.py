"""tune: successive halving on common random numbers, held-out seeds that share no stream with the
search, the evaluation against the reference, the search space."""

from __future__ import annotations

import math

import numpy as np
import pytest

import cursedsim
from cursedsim import rng
from cursedsim.errors import CursedsimError, RunError, UnknownPolicyError
from cursedsim.tune import (TAG_HOLDOUT, check_disjoint_seeds, derive_seed, draw_candidates,
                            halving_rounds, parse_space, tune, tune_summary)

from research_games import BEST_BOOST, DIAL, register_dial


@pytest.fixture
def dial(monkeypatch):
    return register_dial(monkeypatch)


def test_tune_is_part_of_the_public_api():
    assert cursedsim.tune is tune


def test_halving_rounds_halve_the_field_and_double_the_games():
    assert halving_rounds(32, 20_000) == [(32, 20_000), (16, 40_000), (8, 80_000), (4, 160_000), (2, 320_000)]
    assert halving_rounds(5, 10) == [(5, 10), (3, 20), (2, 40)]
    assert halving_rounds(1, 10) == []


def test_tune_finds_the_best_setting_and_checks_it_on_held_out_games(dial):
    result = tune("dial", "dial", players=1, space={"boost": (0, 14)}, candidates=16, start_games=2_000,
                  final_games=20_000, reference="fixed", seed=5)
    # 15 distinct settings exist: all of them enter (defaults first), and on common random numbers a higher
    # chance of a win wins a superset of the games, so the paired ranking finds the best one exactly
    history = result.history
    assert sorted(history.loc[history["round"] == 0, "param_boost"]) == [float(b) for b in range(15)]
    assert history.loc[history["round"] == 0, "candidate"].min() == 0
    assert history.loc[(history["round"] == 0) & (history["candidate"] == 0), "param_boost"].item() == 0.0
    assert result.params == {"boost": float(BEST_BOOST), "noise": 0.0}
    # successive halving: 15 -> 8 -> 4 -> 2 -> 1, games 2,000 -> 16,000, the better half kept each round
    sizes = history.groupby("round").agg(count=("candidate", "size"), n=("n_games", "first"), kept=("kept", "sum"))
    assert sizes["count"].tolist() == [15, 8, 4, 2] and sizes["n"].tolist() == [2_000, 4_000, 8_000, 16_000]
    assert sizes["kept"].tolist() == [8, 4, 2, 1]
    for _, round_rows in history.groupby("round"):
        kept = round_rows[round_rows["kept"]]
        assert kept["wins"].min() >= round_rows.loc[~round_rows["kept"], "wins"].max()
        assert sorted(round_rows["rank"]) == list(range(1, len(round_rows) + 1))
    assert (history["n"] == history["n_games"]).all()
    assert result.search_games == 15 * 2_000 + 8 * 4_000 + 4 * 8_000 + 2 * 16_000

    # held out: the tuned policy (50%), the reference (30%) and the defaults (43%) on the same fresh games
    holdout = result.holdout.set_index("role")
    assert list(holdout.index) == ["tuned", "reference", "default"]
    assert holdout.loc["reference", "label"] == "fixed" and (holdout["n"] == 20_000).all()
    d = result.difference
    assert (d["a"], d["b"]) == ("dial (tuned)", "fixed")
    assert abs(d["diff"] - 0.20) < 4 * d["se"] and d["ci_low"] > 0.18           # true difference: 20 points
    assert holdout.loc["tuned", "diff"] == d["diff"] and holdout.loc["tuned", "diff_ci_low"] == d["ci_low"]
    assert abs(result.versus_default["diff"] - 0.07) < 4 * result.versus_default["se"]
    assert holdout.loc["default", "diff"] == pytest.approx(holdout.loc["default", "win_rate"] - holdout.loc[
        "reference", "win_rate"])
    for role, p in (("tuned", 0.50), ("reference", 0.30), ("default", 0.43)):
        assert holdout.loc[role, "ci_low"] < holdout.loc[role, "win_rate"] < holdout.loc[role, "ci_high"]
        assert abs(holdout.loc[role, "win_rate"] - p) < 0.015, role

    # seeds: the search plays `seed`, the held-out games a seed derived from it
    assert result.seed == 5 and result.holdout_seed == derive_seed(5, TAG_HOLDOUT) != 5
    frame = cursedsim.simulate("dial", 16_000, policy="dial", params={"boost": BEST_BOOST}, seed=5, progress=False)
    last = history[history["round"] == 3].set_index("candidate").loc[result.candidate]
    assert last["wins"] == frame["win"].sum()    # the search's numbers are those of plain runs with `seed`


def test_tune_is_reproducible_and_the_seed_matters(dial):
    kwargs = dict(players=1, space={"boost": (0, 30), "noise": [0, 1]}, candidates=6, start_games=500,
                  final_games=2_000, reference="fixed")
    a, b = tune("dial", "dial", seed=1, **kwargs), tune("dial", "dial", seed=1, **kwargs)
    assert a.params == b.params and a.history.equals(b.history) and a.holdout.equals(b.holdout)
    c = tune("dial", "dial", seed=2, **kwargs)
    assert not c.history["param_boost"].equals(a.history["param_boost"])       # other candidates
    own = tune("dial", "dial", seed=1, holdout_seed=77, **kwargs)
    assert own.holdout_seed == 77 and own.history.equals(a.history) and not own.holdout.equals(a.holdout)


def test_reference_may_be_the_policy_itself(dial):
    result = tune("dial", "dial", players=1, space={"boost": [0, 7]}, candidates=2, start_games=1_000,
                  final_games=5_000, reference="dial")
    assert result.params["boost"] == 7.0
    assert result.holdout["role"].tolist() == ["tuned", "reference"] and result.versus_default is None
    assert result.difference["b"] == "dial" and result.difference["diff"] > 0.05


def test_to_dict_and_summary_are_json(dial):
    import json
    result = tune("dial", "dial", players=2, options={"shift": 5}, space={"boost": [3, 7]}, candidates=2,
                  start_games=1_000, final_games=3_000, reference="fixed", seed=3)
    doc = json.loads(json.dumps(tune_summary([result])))
    entry = doc["players"]["2"]
    assert entry["params"] == {"boost": 7.0, "noise": 0.0} and entry["options"] == {"shift": 5}
    assert entry["holdout"]["fixed"]["diff_ci_low"] is None          # NaN becomes null
    assert entry["holdout"]["dial (tuned)"]["win_rate"] == pytest.approx(0.55, abs=0.03)
    assert doc["seed"] == 3 and doc["holdout_seed"] == derive_seed(3, TAG_HOLDOUT)
    assert doc["settings"]["space"] == {"boost": {"choices": [3.0, 7.0]}}


# ---------------------------------------------------------------- seeds

def test_held_out_games_share_no_random_stream_with_the_search():
    # the check is a proof (see tune.py); here, directly: no stream key of the search's games equals one
    # of the held-out games'
    for seed in (0, 1, 2026):
        holdout = derive_seed(seed, TAG_HOLDOUT)
        check_disjoint_seeds(seed, holdout, 10_000_000)
        search = {rng.stream_key(seed, i, s) for i in range(2_000) for s in (0, 1)}
        held = {rng.stream_key(holdout, i, s) for i in range(2_000) for s in (0, 1)}
        assert not search & held
    with pytest.raises(RunError, match="must differ"):
        check_disjoint_seeds(4, 4, 100)


def test_the_disjointness_check_catches_overlapping_seeds(dial):
    # seeds whose mixed values differ only in low bits are built by inverting splitmix64's finaliser
    mask = (1 << 64) - 1

    def unmix(z):   # inverse of x -> out of _splitmix64_py(x)
        def unxorshift(y, k):
            x = y
            for _ in range(64 // k + 1):
                x = y ^ (x >> k)
            return x & mask
        z = unxorshift(z, 31)
        z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & mask
        z = unxorshift(z, 27)
        z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & mask
        z = unxorshift(z, 30)
        return (z - 0x9E3779B97F4A7C15) & mask
    a = 123456789
    mixed = rng._splitmix64_py(a)[1]
    b = unmix(mixed ^ 5)
    assert rng._splitmix64_py(b)[1] == mixed ^ 5
    assert rng.stream_key(a, 0, 0) == rng.stream_key(b, 5, 0)      # game 0 of a is game 5 of b
    with pytest.raises(RunError, match="may share random streams"):
        check_disjoint_seeds(a, b, 100)
    with pytest.raises(RunError, match="may share random streams"):
        tune("dial", "dial", players=1, space={"boost": [1, 2]}, candidates=2, start_games=10, final_games=10,
             reference="fixed", seed=a, holdout_seed=b)


# ---------------------------------------------------------------- search space

def test_space_ranges_choices_and_fixed_values():
    dims = {d.name: d for d in parse_space(DIAL, "dial", {"boost": (0, 14), "noise": [0, 0.5]})}
    assert (dims["boost"].kind, dims["boost"].low, dims["boost"].high) == ("int", 0.0, 14.0)
    assert dims["noise"].kind == "choice" and dims["noise"].values == (0.0, 0.5)
    assert parse_space(DIAL, "dial", {"boost": (0, 1.5)})[0].kind == "float"
    assert parse_space(DIAL, "dial", {"boost": 3})[0].kind == "fixed"
    generator = np.random.default_rng(0)
    draws = draw_candidates({"boost": 0.0, "noise": 0.0}, list(dims.values()), 10, generator)
    assert draws[0] == {"boost": 0.0, "noise": 0.0}                            # the defaults first
    assert len({tuple(d.values()) for d in draws}) == 10
    assert all(0 <= d["boost"] <= 14 and d["boost"] == int(d["boost"]) and d["noise"] in (0, 0.5) for d in draws)
    floats = draw_candidates({"boost": 0.0, "noise": 0.0}, parse_space(DIAL, "dial", {"boost": (0, 1.5)}), 50,
                             generator, include_default=False)
    assert all(0 <= d["boost"] <= 1.5 for d in floats) and len({d["boost"] for d in floats}) == 50
    tiny = draw_candidates({"boost": 0.0, "noise": 0.0}, parse_space(DIAL, "dial", {"boost": [1, 2]}), 8, generator)
    assert sorted(d["boost"] for d in tiny) == [0.0, 1.0, 2.0]                # all there is


def test_local_candidates_change_a_few_parameters_of_the_defaults(verflucht):
    spec = verflucht.policy("smart")
    dims = parse_space(verflucht, "smart", None)
    defaults = {k: float(v) for k, v in spec.params.items()}
    near = draw_candidates(spec.params, dims, 200, np.random.default_rng(1), local=1.0)
    changed = [sum(c[k] != defaults[k] for k in defaults) for c in near[1:]]
    assert near[0] == defaults and min(changed) >= 1 and np.mean(changed) < 2.5      # ~2 of 8 redrawn
    far = draw_candidates(spec.params, dims, 200, np.random.default_rng(1), local=0.0)
    assert np.mean([sum(c[k] != defaults[k] for k in defaults) for c in far[1:]]) > 5
    half = draw_candidates(spec.params, dims, 21, np.random.default_rng(1), local=0.5)
    assert [sum(c[k] != defaults[k] for k in defaults) <= 4 for c in half[1:11]].count(True) >= 9
    with pytest.raises(CursedsimError, match="local"):
        draw_candidates(spec.params, dims, 5, np.random.default_rng(1), local=2)


def test_default_space_of_verflucht_smart_covers_its_parameters(verflucht):
    spec = verflucht.policy("smart")
    space = spec.tune_space
    assert set(space) == set(spec.params)
    for dim in parse_space(verflucht, "smart", None):
        default = spec.params[dim.name]
        assert (dim.low <= default <= dim.high) if dim.kind == "int" else default in dim.values, dim.name


@pytest.mark.parametrize("policy, space, error, fragment", [
    ("fixed", {"boost": (0, 1)}, UnknownPolicyError, "no parameters to tune"),
    ("dial", None, CursedsimError, "no default search space"),
    ("dial", {"nope": (0, 1)}, UnknownPolicyError, "no parameter 'nope'; valid parameters: boost, noise"),
    ("dial", {"boost": (3, 1)}, CursedsimError, "low <= high"),
    ("dial", {"boost": (0, 1, 2)}, CursedsimError, "low <= high"),
    ("dial", {"boost": []}, CursedsimError, "non-empty list"),
    ("dial", {"boost": "x"}, CursedsimError, "use \\(low, high\\)"),
    ("dial", {}, CursedsimError, "non-empty mapping"),
    ("nope", {"boost": (0, 1)}, UnknownPolicyError, "unknown policy 'nope'"),
])
def test_bad_spaces_are_refused(dial, policy, space, error, fragment):
    with pytest.raises(error, match=fragment):
        tune("dial", policy, players=1, space=space, candidates=2, start_games=10, final_games=10, reference="fixed")


@pytest.mark.parametrize("kwargs, fragment", [
    ({"candidates": 0}, "candidates must be a positive integer"),
    ({"start_games": 0}, "positive integer"),
    ({"final_games": -5}, "positive integer"),
    ({"reference": "nope"}, "unknown policy 'nope'"),
    ({"holdout_seed": 9}, "must differ"),
    ({"players": 7}, "1-3 players"),
    ({"local": 1.5}, "local must be a share"),
])
def test_bad_settings_are_refused(dial, kwargs, fragment):
    settings = {"players": 1, "space": {"boost": (0, 1)}, "candidates": 2, "start_games": 10, "final_games": 10,
                "reference": "fixed", "seed": 9, **kwargs}
    with pytest.raises(CursedsimError, match=fragment):
        tune("dial", "dial", **settings)


def test_tune_on_verflucht(verflucht):
    result = tune("verflucht", "smart", players=2, candidates=3, start_games=1_000, final_games=4_000, seed=8)
    assert set(result.params) == set(verflucht.policy("smart").params)
    assert result.holdout["role"].tolist() == ["tuned", "reference", "default"]
    assert result.reference == "baseline" and result.options["seals"] == 4
    assert math.isfinite(result.difference["diff"]) and result.difference["n"] == 4_000


def test_one_bar_over_the_search_and_the_held_out_games(dial, capsys, monkeypatch):
    """tune's progress (the research tools' shared step): one bar whose total is every round's games and
    the held-out games, ending on the held-out stage."""
    monkeypatch.setenv("COLUMNS", "200")   # the bar on one line
    tune("dial", "dial", players=1, space={"boost": (0, 3)}, candidates=4, start_games=100, final_games=200,
         reference="fixed", seed=5, progress=True)
    err = capsys.readouterr().err
    total = 4 * 100 + 2 * 200 + 3 * 200
    assert f"{total}/{total}" in err and "tune dial dial p=1: held-out games" in err
