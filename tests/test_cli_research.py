"""The command line of the research tools: compare, sweep, tune; their tables, files and one-line errors."""

from __future__ import annotations

import json

import click
import pandas as pd
import pytest

import cursedsim
from cursedsim import cli
from cursedsim.cli import main, parse_number_values, parse_space_texts
from cursedsim.cli.tables import mean_se_cell
from cursedsim.tune import derive_seed, TAG_HOLDOUT

from research_games import BEST_BOOST, register_dial
from test_cli import _table_row, assert_one_line_error, run
from test_sweep import register_measured


@pytest.fixture
def dial(monkeypatch):
    return register_dial(monkeypatch)


def test_number_values_and_space_texts():
    assert parse_number_values("1,2.5,4-6,5", "x") == [1.0, 2.5, 4.0, 5.0, 6.0]
    assert parse_space_texts(("slack=0:8", "rate=0.5:1.5", "multi=0,1")) == {
        "slack": (0, 8), "rate": (0.5, 1.5), "multi": [0.0, 1.0]}


def test_compare_prints_paired_differences_and_win_rates(coin, capsys, tmp_path):
    status, out, err = run(capsys, "compare", "coin", "--policy", "plain", "--policy", "greedy:bonus=3",
                           "--players", "1-2", "--option", "p_percent=40", "--games", "3000", "--seed", "4",
                           "--detect", "2", "--no-progress", "--out", str(tmp_path / "cmp"))
    assert status == 0, err
    assert "X − ref, pp [95% CI]" in out and "p Holm" in out and "2 pp" in out
    api = cursedsim.compare("coin", ["plain", "greedy:bonus=3"], 3000, players=2, options={"p_percent": 40}, seed=4,
                            detect=0.02, progress=False)
    rate = api.policies.iloc[0]
    assert f"{100 * rate['win_rate']:.2f} [{100 * rate['ci_low']:.2f}, {100 * rate['ci_high']:.2f}]" in out
    assert "+0.00 [+0.00, +0.00]" in out                  # the coin's win ignores the policy
    pairs = pd.read_csv(tmp_path / "cmp" / "pairs.csv")
    assert pairs["players"].tolist() == [1, 2] and (pairs["p_percent"] == 40).all()
    assert pairs.loc[1, "games_to_detect"] == api.pairs.loc[0, "games_to_detect"]
    assert len(pd.read_csv(tmp_path / "cmp" / "policies.csv")) == 4


def test_compare_on_verflucht_prints_the_difference_and_the_games_to_detect(verflucht, capsys):
    status, out, err = run(capsys, "compare", "verflucht", "--policy", "baseline", "--policy", "smart",
                           "--players", "3", "--seals", "4", "--games", "20000", "--seed", "11", "--no-progress")
    assert status == 0, err
    row = cursedsim.compare("verflucht", ["baseline", "smart"], 20_000, players=3, options={"seals": 4}, seed=11,
                            progress=False).pairs.iloc[0]
    assert (row["a"], row["b"]) == ("smart", "baseline")
    line = next(line for line in out.splitlines() if line.split()[:1] == ["smart"] and "[" in line)
    assert f"{100 * row['diff']:+.2f} [{100 * row['ci_low']:+.2f}, {100 * row['ci_high']:+.2f}]" in line
    assert f"{row['games_to_detect']:,}" in line


def test_sweep_prints_one_row_per_cell_writes_sweep_csv_and_resumes(coin, capsys, tmp_path):
    out_dir = tmp_path / "sw"
    args = ["sweep", "coin", "--players", "1-2", "--policy", "plain", "--policy", "greedy", "--seals", "0,3",
            "--param", "greedy.bonus=1,2", "--games", "1500", "--seed", "2", "--no-progress", "--out", str(out_dir)]
    status, out, err = run(capsys, *args)
    assert status == 0, err
    table = pd.read_csv(out_dir / "sweep.csv")
    assert len(table) == 4 + 8 and len([line for line in out.splitlines() if "1,500" in line]) == 12
    assert table.loc[table["policy"] == "greedy", "param_bonus"].tolist() == [1, 2] * 4
    api = cursedsim.sweep("coin", players=[1, 2], policies=["plain", "greedy"], options={"seals": [0, 3]},
                          params={"greedy": {"bonus": [1, 2]}}, n_games=1500, seed=2, progress=False)
    pd.testing.assert_frame_equal(table, api, check_dtype=False)
    status, again, _ = run(capsys, *args)
    assert status == 0 and again == out
    # a parameter without a policy goes to every chosen policy that has it
    status, out, err = run(capsys, "sweep", "coin", "--policy", "plain", "--policy", "greedy", "--param", "bonus=0-1",
                           "--games", "1000", "--no-progress")
    assert status == 0, err
    assert len([line for line in out.splitlines() if "1,000" in line]) == 4


def test_compare_and_sweep_tables_show_the_measures_the_game_declares(monkeypatch, capsys, tmp_path):
    register_measured(monkeypatch)
    status, out, err = run(capsys, "compare", "measuredcoin", "--policy", "plain", "--policy", "greedy",
                           "--games", "2000", "--seed", "3", "--no-progress")
    assert status == 0, err
    assert "mean turns ± SE" in out and "mean score (every game)" in out and "(won)" not in out
    api = cursedsim.compare("measuredcoin", ["plain", "greedy"], 2000, seed=3, progress=False)
    assert "score_diff" not in api.pairs.columns              # no measure over won games: no paired score
    greedy = api.policies.set_index("policy").loc["greedy"]
    cells = _table_row(out, "greedy")
    assert cells[-2:] == [mean_se_cell(greedy["mean_turns"], greedy["turns_se"]), f"{greedy['mean_score']:.2f}"]

    status, out, err = run(capsys, "sweep", "measuredcoin", "--policy", "plain", "--policy", "greedy",
                           "--games", "2000", "--seed", "3", "--no-progress", "--out", str(tmp_path / "s"))
    assert status == 0, err
    table = pd.read_csv(tmp_path / "s" / "sweep.csv").set_index("policy")
    for policy in ("plain", "greedy"):   # the table shows the sweep.csv numbers, which are compare's
        row = table.loc[policy]
        assert _table_row(out, f"│ {policy} ")[-2:] == [mean_se_cell(row["mean_turns"], row["turns_se"]),
                                                        f"{row['mean_score']:.2f}"]
    assert table.loc["greedy", "mean_score"] == pytest.approx(greedy["mean_score"], rel=1e-12)


def test_tune_prints_the_held_out_comparison_and_writes_json(dial, capsys, tmp_path):
    path = tmp_path / "tuned" / "dial.json"
    status, out, err = run(capsys, "tune", "dial", "--players", "1-2", "--space", "boost=0:14", "--candidates", "16",
                           "--games", "2000", "--final-games", "10000", "--reference", "fixed", "--seed", "5",
                           "--no-progress", "--out", str(path))
    assert status == 0, err
    doc = json.loads(path.read_text())
    assert set(doc["players"]) == {"1", "2"} and doc["holdout_seed"] == derive_seed(5, TAG_HOLDOUT)
    for entry in doc["players"].values():
        assert entry["params"]["boost"] == BEST_BOOST
        assert entry["difference"]["ci_low"] > 0.15       # 50% against 30%
    diff = doc["players"]["1"]["difference"]
    assert f"{100 * diff['diff']:+.2f} [{100 * diff['ci_low']:+.2f}, {100 * diff['ci_high']:+.2f}]" in out
    assert "boost=7" in out and "tuned − fixed" in out


@pytest.mark.parametrize("args, fragments", [
    (["compare", "coin", "--policy", "plain"], ["two or more --policy", "--option", "plain, greedy"]),
    (["compare", "coin", "--policy", "plain", "--policy", "plain"], ["distinct"]),
    (["compare", "coin", "--policy", "plain", "--policy", "greedy:nope=1"], ["no parameter 'nope'"]),
    (["compare", "coin", "--policy", "plain", "--policy", "greedy", "--detect", "0"], ["--detect"]),
    (["compare", "coin", "--policy", "plain", "--policy", "greedy", "--players", "9"], ["1-4 players"]),
    (["compare", "coin", "--policy", "plain", "--policy", "greedy", "--games", "0"], ["positive integer"]),
    (["sweep", "coin", "--param", "greedy.bonus=1"], ["'greedy' is not swept"]),
    (["sweep", "coin", "--param", "plain.spare=1"], ["no parameter 'spare'", "bonus"]),
    (["sweep", "coin", "--param", "nope=1"], ["parameter 'nope'"]),
    (["sweep", "coin", "--param", "bonus=x"], ["malformed value 'x'"]),
    (["sweep", "coin", "--param", "bonus=1", "--param", "plain.bonus=2"], ["given twice"]),
    (["sweep", "coin", "--seals", "0-99"], ["0-10"]),
    (["sweep", "coin", "--policy", "nope"], ["unknown policy 'nope'"]),
    (["tune", "coin", "--seals", "1-2"], ["one value per option"]),
    (["tune", "coin"], ["no default search space", "bonus"]),
    (["tune", "coin", "--policy", "nope"], ["unknown policy 'nope'"]),
    (["tune", "coin", "--space", "bonus=a:b"], ["NAME=LOW:HIGH"]),
    (["tune", "coin", "--space", "nope=0:1"], ["no parameter 'nope'"]),
    (["tune", "coin", "--space", "bonus=0:3", "--candidates", "0"], ["candidates"]),
    (["tune", "coin", "--players", "0"], ["1-4 players"]),
])
def test_bad_input_is_one_line_and_status_2(coin, capsys, args, fragments):
    assert_one_line_error(*run(capsys, *args), *fragments)


def test_commands_from_other_modules_register_on_main(capsys):
    @click.command("hello")
    def hello():
        click.echo("hello from elsewhere")
    main.add_command(hello)
    try:
        status, out, _ = run(capsys, "hello")
        assert status == 0 and out == "hello from elsewhere\n"
    finally:
        cli.cli.commands.pop("hello")
    assert "report" in cli.cli.commands   # cursedsim/cli/report.py, registered like every other command
