"""``cursedsim compare`` on the command line: rule option values and policies on the same games, each
minus the reference, Holm over the printed table, a header naming every setting, one-line errors."""

from __future__ import annotations

import pandas as pd
import pytest
from rich.console import Console

import cursedsim
from cursedsim import stats
from cursedsim.cli.compare import caption, differences_table

from test_cli import assert_one_line_error, run


def _line(out: str, *markers: str) -> str:
    """The first line of ``out`` holding every marker."""
    return next(line for line in out.splitlines() if all(marker in line for marker in markers))


def _diff_text(row) -> str:
    return f"{100 * row['diff']:+.2f} [{100 * row['ci_low']:+.2f}, {100 * row['ci_high']:+.2f}]"


def test_option_values_are_compared_with_the_first_on_the_same_games(coin, capsys, tmp_path):
    status, out, err = run(capsys, "compare", "coin", "--option", "p_percent=30,40,20", "--games", "3000",
                           "--seed", "4", "--no-progress", "--out", str(tmp_path / "cmp"))
    assert status == 0, err
    api = cursedsim.compare("coin", ["plain"], 3000, vary={"p_percent": [30, 40, 20]}, seed=4, progress=False)
    # the header: every setting, and the sign convention
    assert "coin: 3,000 games per contender (seed 4), 2 players" in out
    assert "policy:   plain" in out and "compared: p_percent = 30, 40, 20" in out
    assert "options:  seals=2, others as the rulebook" in out       # seals: set per player count
    assert "X − reference (p_percent=30), in percentage points" in out
    # one row per value other than the reference, X − reference, with both p-values
    for row in api.pairs.to_dict("records"):
        value = row["a"].split("=")[1]
        line = _line(out, _diff_text(row))
        assert line.split()[0] == value and f"{row['games_to_detect']:,}" in line
    assert "p Holm" in out and "adjusted for the 2 comparisons of this table" in " ".join(out.split())
    pairs = pd.read_csv(tmp_path / "cmp" / "pairs.csv")
    assert pairs["a"].tolist() == ["p_percent=40", "p_percent=20"] and (pairs["b"] == "p_percent=30").all()
    assert pairs["p_holm"].tolist() == pytest.approx(stats.holm(pairs["p_value"]).tolist(), rel=1e-12)
    assert len(pd.read_csv(tmp_path / "cmp" / "policies.csv")) == 3


def test_reference_flips_the_sign(coin, capsys):
    status, out, err = run(capsys, "compare", "coin", "--option", "p_percent=30,40", "--reference", "40",
                           "--games", "3000", "--seed", "4", "--no-progress")
    assert status == 0, err
    assert "X − reference (p_percent=40)" in out
    row = cursedsim.compare("coin", ["plain"], 3000, vary={"p_percent": [30, 40]}, reference=40, seed=4,
                            progress=False).pairs.iloc[0]
    assert row["a"] == "p_percent=30" and row["diff"] < 0
    assert _line(out, _diff_text(row)).split()[0] == "30"
    assert "p Holm" not in out and "adjusted" not in out        # a single comparison


def test_holm_family_is_every_comparison_of_the_table_across_player_counts(coin, capsys, tmp_path):
    status, out, err = run(capsys, "compare", "coin", "--players", "1-3", "--option", "lucky=false,true",
                           "--games", "2000", "--seed", "6", "--no-progress", "--out", str(tmp_path / "cmp"))
    assert status == 0, err
    pairs = pd.read_csv(tmp_path / "cmp" / "pairs.csv")
    assert pairs["players"].tolist() == [1, 2, 3] and (pairs["a"] == "lucky=true").all()
    assert pairs["p_holm"].tolist() == pytest.approx(stats.holm(pairs["p_value"]).tolist(), rel=1e-12)
    assert "adjusted for the 3 comparisons of this table, over 3 player counts" in " ".join(out.split())
    assert "1, 2, 3 players" in out and "seals=1/2/3" in out


def test_policies_and_options_mix_and_the_header_lists_changed_options(coin, capsys):
    status, out, err = run(capsys, "compare", "coin", "--policy", "plain", "--policy", "greedy", "--option",
                           "lucky=false,true", "--option", "p_percent=45", "--players", "3", "--reference",
                           "greedy/true", "--games", "2000", "--no-progress")
    assert status == 0, err
    assert "options:  p_percent=45, seals=3, others as the rulebook" in out
    assert "policies: plain, greedy" in out and "compared: lucky = false, true" in out
    api = cursedsim.compare("coin", ["plain", "greedy"], 2000, players=3, options={"p_percent": 45},
                            vary={"lucky": [False, True]}, reference="greedy / true", progress=False)
    assert "X − reference (greedy / lucky=true)" in out
    for row in api.pairs.to_dict("records"):
        assert _line(out, row["a"] + " ", _diff_text(row))


def test_smart_against_baseline_at_five_players(verflucht, capsys):
    status, out, err = run(capsys, "compare", "verflucht", "--policy", "baseline", "--policy", "smart",
                           "--players", "5", "--games", "20000", "--seed", "11", "--no-progress")
    assert status == 0, err
    assert "options:  seals=5, others as the rulebook" in out and "X − reference (baseline)" in out
    row = cursedsim.compare("verflucht", ["baseline", "smart"], 20_000, players=5, seed=11,
                            progress=False).pairs.iloc[0]
    assert row["a"] == "smart" and row["diff"] > 0
    assert _line(out, "smart", _diff_text(row))


@pytest.mark.parametrize("args, fragments", [
    (["--option", "p_percent=30,40", "--reference", "50"], ["reference '50' names no contender",
                                                           "p_percent=30, p_percent=40"]),
    (["--option", "lucky=false,true", "--policy", "plain", "--policy", "greedy", "--reference", "true"],
     ["fits 2 contenders"]),
    (["--option", "p_percent=30,101"], ["p_percent", "0-100"]),
    (["--option", "nope=1,2"], ["unknown option 'nope'", "valid options: p_percent"]),
    (["--policy", "plain"], ["two or more --policy", "--option", "plain, greedy"]),
])
def test_bad_input_is_one_line_naming_the_choices(coin, capsys, args, fragments):
    assert_one_line_error(*run(capsys, "compare", "coin", "--games", "100", "--no-progress", *args), *fragments)


def test_a_string_option_names_its_values(capsys):
    assert_one_line_error(*run(capsys, "compare", "cursed", "--option", "starting_item=random,sword", "--games",
                               "100"), "'starting_item' must be one of random, soul_crystal")


def test_the_table_of_starting_items_fits_80_columns():
    items = ["scroll_of_purge_life", "big_turkey_dinner", "bewitching_relic", "soul_crystal", "large_backpack"]
    pairs = pd.DataFrame({"a": items, "diff": -0.2412, "ci_low": -0.2501, "ci_high": -0.2323, "p_value": 0.0,
                          "p_holm": 0.0, "games_to_detect": 1_234_567})
    table = differences_table(pairs, [], "starting_item", {item: item for item in items}, 1.0,
                              caption(len(pairs), 1))
    assert Console(width=1000).measure(table).maximum <= 80
    # and so does the header naming every value compared
    from cursedsim.cli.compare import header_lines
    from cursedsim.games.cursed.rules import CHOICES
    game = cursedsim.get_game("cursed")
    settings = [{"game": "cursed", "players": 1, "n_games": 1_000_000, "seed": 0, "policies": ["threshold"],
                 "vary": {"starting_item": list(CHOICES["starting_item"])},
                 "options": game.option_columns(game.make_options(None), 1)}]
    lines = header_lines(game, settings, {}, "starting_item=random")
    assert max(map(len, lines)) <= 80 and "scroll_of_purge_life" in "".join(lines)


def test_tune_table_gives_holm_p_values_over_its_comparisons(monkeypatch, capsys, tmp_path):
    from research_games import register_dial

    from cursedsim.cli.tables import p_value_cell
    register_dial(monkeypatch)
    path = tmp_path / "dial.json"
    status, out, err = run(capsys, "tune", "dial", "--players", "1-2", "--space", "boost=5:9", "--candidates", "4",
                           "--games", "1000", "--final-games", "4000", "--reference", "fixed", "--seed", "5",
                           "--no-progress", "--out", str(path))
    assert status == 0, err
    import json
    doc = json.loads(path.read_text())["players"]
    raw = [doc[p]["difference"]["p_value"] for p in ("1", "2")] + \
        [doc[p]["versus_default"]["p_value"] for p in ("1", "2")]
    adjusted = stats.holm(raw)
    for p, h in zip(raw, adjusted):
        assert f"{p_value_cell(p)} ({p_value_cell(h)})" in out
    assert "p (Holm)" in out and "adjusted for the 4 comparisons of this table" in " ".join(out.split())
