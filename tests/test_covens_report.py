"""The Curses & Covens balance report: a small real report builds with every figure and table, its
numbers are those of direct simulations of the same games, its readings quote the numbers they read,
the plan covers every open reading of the rules, and the spells are measured per spell as soon as the
rules have an option to take one out."""

from __future__ import annotations

import dataclasses
import re
from html import unescape as html_unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim.games.covens import rules
from cursedsim.report import report
from cursedsim.report.covens import data as covens_data
from cursedsim.report.covens import recommend
from cursedsim.report.covens.data import PLAN
from cursedsim.report.covens.figures import FIGURES
from cursedsim.report.data import ALPHA, ReportError
from cursedsim.report.figures import pct, points
from cursedsim.stats import holm, paired_difference, wilson_interval

SMALL_GAMES = 240
SMALL_SEED = 11


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A real covens report with few games per cell, made once per test process."""
    out = tmp_path_factory.mktemp("covens_report")
    return report("covens", out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)


def _direct(players: int, hunter: str, town: str, **kwargs) -> pd.DataFrame:
    return cursedsim.simulate("covens", SMALL_GAMES, players=players, policy={"hunter": hunter, "town": town},
                              seed=SMALL_SEED, progress=False, **kwargs)


# ---------------------------------------------------------------- the plan

def test_the_plan_reads_every_open_point_of_the_rules_once():
    defaults = rules.RuleOptions()
    expected = set()
    for field in dataclasses.fields(rules.RuleOptions):
        value = getattr(defaults, field.name)
        if field.name in covens_data.NOT_READINGS:
            continue
        if field.name in rules.CHOICES:
            expected |= {(field.name, v) for v in rules.CHOICES[field.name] if v != value}
        elif isinstance(value, bool):
            expected.add((field.name, not value))
    assert set(PLAN.readings) == expected and len(PLAN.readings) == len(expected)
    for name, value in PLAN.readings:
        assert rules.RuleOptions(**{name: value})   # every one a valid value
    # every string or boolean option is either read, or named as not a reading
    named = {name for name, _ in PLAN.readings} | set(covens_data.NOT_READINGS)
    closed = {f.name for f in dataclasses.fields(rules.RuleOptions)
              if f.name in rules.CHOICES or isinstance(getattr(defaults, f.name), bool)}
    assert closed <= named
    assert set(PLAN.players) == set(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1))


def test_spells_are_measured_per_spell_once_the_rules_can_take_one_out(monkeypatch):
    if covens_data.DISABLED_SPELL not in rules.CHOICES:
        assert covens_data.spell_variants() == ((f"{covens_data.CAST_PARAM}=0", {}, {covens_data.CAST_PARAM: 0.0}),)
        monkeypatch.setitem(rules.CHOICES, covens_data.DISABLED_SPELL, ("none",) + rules.SPELL_NAMES)
        monkeypatch.setattr(rules.RuleOptions, covens_data.DISABLED_SPELL, "none", raising=False)
    default = getattr(rules.RuleOptions(), covens_data.DISABLED_SPELL)
    variants = covens_data.spell_variants()
    values = [v for v in rules.CHOICES[covens_data.DISABLED_SPELL] if v != default]
    assert [options for _, options, _ in variants] == [{covens_data.DISABLED_SPELL: v} for v in values]
    assert all(params == {} for _, _, params in variants)


# ---------------------------------------------------------------- a small real report

def test_small_report_has_every_figure_table_and_reading(small):
    out = Path(small.out)
    names = [figure.name for figure in small.figures]
    assert len(names) == len(FIGURES) == 7 and len(set(names)) == 7
    for name in names:
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000
    for table in small.data.tables:
        assert (out / "tables" / f"{table}.csv").is_file()
        assert len(pd.read_csv(out / "tables" / f"{table}.csv")) > 0
    markdown = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert markdown.index("## Recommendations") < markdown.index("## How this report was made")
    for figure in small.figures:
        assert figure.reading and figure.title in markdown and figure.reading in markdown
        assert figure.title in html_unescape(html)
    plan = small.data.plan
    assert len(small.data.matrix) == len(plan.hunters) * len(plan.towns) * len(plan.players)
    assert len(small.data.sensitivity) == len(plan.readings) * len(plan.players)
    assert small.data.runs == plan.run_count and small.data.games_played == plan.run_count * SMALL_GAMES


def test_matrix_cells_are_direct_simulations_of_the_same_games(small):
    matrix = small.data.matrix.set_index(["players", "hunter", "town"])
    for players, hunter, town in ((4, "tracker", "coven"), (6, "random", "bluff"), (5, "largest_hand", "random")):
        frame = _direct(players, hunter, town)
        cell = matrix.loc[(players, hunter, town)]
        wins = int(frame["hunter_won"].sum())
        assert cell["hunter_wins"] == wins and cell["n"] == SMALL_GAMES
        low, high = wilson_interval(wins, SMALL_GAMES)
        assert cell["ci_low"] == pytest.approx(low) and cell["ci_high"] == pytest.approx(high)
        assert cell["town_win_rate"] == pytest.approx(frame["town_won"].mean())
        assert cell["mean_rounds"] == pytest.approx(frame["rounds"].mean())


def test_skill_effects_are_paired_on_the_same_games_with_holm(small):
    skill = small.data.skill
    row = skill[(skill["kind"] == "town") & (skill["players"] == 5) & (skill["better"] == "coven")
                & (skill["against"] == "tracker")].iloc[0]
    a = _direct(5, "tracker", "coven")["town_won"]
    b = _direct(5, "tracker", "random")["town_won"]
    expected = paired_difference(a.to_numpy(float), b.to_numpy(float))
    assert row["diff"] == pytest.approx(expected["diff"]) and row["ci_low"] == pytest.approx(expected["ci_low"])
    np.testing.assert_allclose(skill["p_holm"], holm(skill["p_value"]))
    assert (skill["survives"] == (skill["p_holm"] < ALPHA)).all()
    assert len(skill) == 2 * 2 * 3 * len(PLAN.players)   # 2 baselines x 3 towns + 2 town policies x 3 hunters


def test_rituals_and_readings_are_paired_against_the_default_games(small):
    default = _direct(4, *PLAN.main)
    without = _direct(4, *PLAN.main, options={"rituals": False})
    row = small.data.rituals.set_index("players").loc[4]
    assert row["diff"] == pytest.approx(without["hunter_won"].mean() - default["hunter_won"].mean())
    assert row["ritual_option"] == 0.0   # no ritual win without rituals
    name, value = PLAN.readings[0]
    option = _direct(6, *PLAN.main, options={name: value})
    base = _direct(6, *PLAN.main)
    sens = small.data.sensitivity
    cell = sens[(sens["option"] == name) & (sens["players"] == 6)].iloc[0]
    assert cell["diff"] == pytest.approx(option["hunter_won"].mean() - base["hunter_won"].mean())
    np.testing.assert_allclose(sens["p_holm"], holm(sens["p_value"]))


def test_spell_values_are_the_town_with_its_spells_minus_without(small):
    label, options, params = PLAN.spells[0]
    values = small.data.spell_values
    row = values[(values["variant"] == label) & (values["players"] == 5)].iloc[0]
    with_spells = _direct(5, *PLAN.main)["town_won"].mean()
    without = _direct(5, *PLAN.main, options=options or None, params={"town": params} if params else None)
    assert row["diff"] == pytest.approx(with_spells - without["town_won"].mean())
    cast = small.data.spells_cast.set_index(["players", "spell"])
    frame = _direct(5, *PLAN.main)
    for spell in rules.SPELL_NAMES:
        assert cast.loc[(5, spell), "per_game"] == pytest.approx(frame[f"spells_{spell}"].mean())


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"[+-]?\d+\.\d+", text))


def test_readings_quote_the_numbers_of_their_tables(small):
    readings = small.readings
    d = small.data
    main = d.matrix[(d.matrix["hunter"] == PLAN.main[0]) & (d.matrix["town"] == PLAN.main[1])]
    for row in main.itertuples():
        assert f"{pct(row.hunter_win_rate)} with {row.towns} towns" in readings["hunter_win_matrix"]
    low = d.matrix["hunter_win_rate"].min()
    assert pct(low) in readings["hunter_win_matrix"] and pct(d.matrix["hunter_win_rate"].max()) in readings[
        "hunter_win_matrix"]
    wins = d.matrix.set_index(["players", "hunter", "town"])["hunter_wins"]
    same = all(wins[(p, h, "bluff")] == wins[(p, h, "coven")] for p in PLAN.players for h in PLAN.hunters)
    assert ("bluff and coven give the hunter the same number of wins" in readings["hunter_win_matrix"]) == same
    assert f"{int(d.skill['survives'].sum())} of the {len(d.skill)} effects" in readings["skill_effects"]
    hunter_gain = d.skill[(d.skill["kind"] == "hunter") & (d.skill["baseline"] == "random")
                          & (d.skill["against"] == PLAN.main[1])]
    for row in hunter_gain.itertuples():
        assert f"{points(row.diff)} points at {row.towns} towns" in readings["skill_effects"]
    for row in d.rituals.itertuples():
        assert f"{points(row.diff)} points at {row.towns} towns" in readings["rituals_value"]
    for row in d.length_summary[(d.length_summary["hunter"] == PLAN.main[0])
                                & (d.length_summary["town"] == PLAN.main[1])].itertuples():
        assert f"{row.mean:.2f} rounds on average at {row.towns} towns" in readings["game_length"]
    totals = d.spells_cast.groupby("towns")["per_game"].sum()
    for towns, total in totals.items():
        assert f"{total:.2f} spells per game at {towns} towns" in readings["spells_value"]
    shares = d.win_types[(d.win_types["hunter"] == PLAN.main[0]) & (d.win_types["town"] == PLAN.main[1])]
    for row in shares[(shares["share"] > 0) & (shares["win_type"] != "unfinished")].itertuples():
        assert f"{pct(row.share)} {row.win_type}" in readings["win_types"]
    unfinished = int(shares.loc[shares["win_type"] == "unfinished", "games"].sum())
    assert f"{unfinished:,} of its {int(shares['games'].sum()):,} games were unfinished" in readings["win_types"]
    assert f"{int(d.sensitivity['survives'].sum())} survive" in readings["rule_sensitivity"]
    top = d.sensitivity.loc[d.sensitivity["diff"].abs().idxmax()]
    assert f"{top['option']}={str(top['value']).lower()}" in readings["rule_sensitivity"]
    assert points(top["diff"]) in readings["rule_sensitivity"]


def test_recommendations_follow_the_numbers(small):
    recommendations = small.recommendations
    rows = recommendations["rows"]
    balance = recommend.balance(small.data)
    for row, cell in zip(rows, balance.itertuples()):
        assert str(cell.players) in row[0]
        assert row[1] == recommend.verdict(cell.hunter_win_rate)
        assert f"{100 * cell.hunter_win_rate:.2f}" in row[3]
    contest = recommend.skill_contest(small.data)
    for row, cell in zip(rows[len(balance):], contest.itertuples()):
        larger = "hunter" if abs(cell.hunter_gain) >= abs(cell.town_gain) else "town"
        assert row[1].startswith(f"the {larger}'s")


def test_balance_verdict_uses_the_band_around_half():
    band = recommend.BALANCE_BAND
    assert recommend.verdict(0.5) == "balanced"
    assert recommend.verdict(0.5 + 0.99 * band) == "balanced" and recommend.verdict(0.5 - 0.99 * band) == "balanced"
    assert recommend.verdict(0.5 + 2 * band) == "favours the hunter"
    assert recommend.verdict(0.5 - 2 * band) == "favours the town"


def test_rerun_resumes_from_the_run_folder(small):
    frames = sorted((Path(small.out) / "runs").rglob("games.parquet"))
    assert len(frames) == small.data.plan.run_count
    stamps = {path: path.stat().st_mtime_ns for path in frames}
    again = report("covens", small.out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)
    assert {path: path.stat().st_mtime_ns for path in frames} == stamps
    assert again.readings == small.readings


def test_report_command_prints_recommendations_summary_and_readings(small, capsys):
    from cursedsim.cli import main
    try:
        main(["report", "covens", "--out", small.out, "--games", str(SMALL_GAMES), "--seed", str(SMALL_SEED),
              "--jobs", "1", "--no-progress", "--tuned", "none"])
        status = 0
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "Recommendations" in out or "recommendations" in out
    cell = small.data.matrix.set_index(["players", "hunter", "town"]).loc[(4, *PLAN.main)]
    assert f"{100 * cell['hunter_win_rate']:.1f}" in out
    for figure in small.figures:
        assert figure.title in out
    assert "7 figures" in err


def test_an_added_policy_without_every_player_count_is_refused(tmp_path):
    from cursedsim.report.data import ReportChoices, ReportPolicy
    game = cursedsim.get_game("covens")
    partial = ReportPolicy("tracker (tuned)", "tracker", by_players={4: {"trust": 1.0}}, source="file", side="hunter")
    original = covens_data.report_policies

    def with_partial(game_obj, builtin, choices, side):
        played = original(game_obj, builtin, choices, side)
        return played + [partial] if side == "hunter" else played

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(covens_data, "report_policies", with_partial)
        with pytest.raises(ReportError, match="no parameters for 5, 6 players"):
            covens_data.played_policies(game, PLAN, ReportChoices())
    assert not list(tmp_path.iterdir())


def test_the_experiment_script_plays_the_reports_matrix(small, tmp_path, monkeypatch):
    """experiments/covens_balance.py (compare with side="hunter") on the report's seed and games gives the
    report's matrix and skill gains, and writes its files."""
    import json
    import sys
    from conftest import ROOT
    sys.path.insert(0, str(Path(ROOT, "experiments")))
    try:
        import covens_balance
    finally:
        sys.path.remove(str(Path(ROOT, "experiments")))
    monkeypatch.setattr(covens_balance, "results_dir", lambda game: tmp_path)
    monkeypatch.setattr(covens_balance, "shown", lambda *paths: ", ".join(str(p) for p in paths))
    covens_balance.main(["--games", str(SMALL_GAMES), "--seed", str(SMALL_SEED), "--jobs", "1"])
    pairings = pd.read_csv(tmp_path / "pairings.csv")
    keys = ["players", "hunter", "town"]
    mine = pairings.set_index(keys).sort_index()
    report_matrix = small.data.matrix.set_index(keys).sort_index()
    assert (mine["hunter_wins"] == report_matrix["hunter_wins"]).all()
    np.testing.assert_allclose(mine["mean_rounds"], report_matrix["mean_rounds"], rtol=1e-5)
    skill = pd.read_csv(tmp_path / "skill.csv")
    np.testing.assert_allclose(skill["diff"], small.data.skill["diff"], rtol=1e-5, atol=1e-9)
    balance = json.loads((tmp_path / "balance.json").read_text())
    for players, entry in balance["players"].items():
        rate = report_matrix.loc[(int(players), *PLAN.main), "hunter_win_rate"]
        assert entry["verdict"] == recommend.verdict(rate)
    assert (tmp_path / "hunter_win_matrix.png").stat().st_size > 1000
