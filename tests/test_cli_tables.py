"""The terminal output of the CLI: ``mean ± SE`` cells with enough digits, tables that fit the terminal
without splitting a number, and ``cursedsim list [GAME]`` without truncation."""

from __future__ import annotations

import io
import math

import pytest
from rich.console import Console
from rich.table import Table
from test_cli import assert_one_line_error, run

import cursedsim
from cursedsim.cli.listing import plain
from cursedsim.cli.tables import fit_table, mean_se_cell, rates_table
from cursedsim.describe import options_info


# ---------------------------------------------------------------- mean ± SE

@pytest.mark.parametrize("mean, se, text", [
    (75.5412, 0.5401, "75.54 ± 0.54"),
    (6.75581, 0.00661, "6.7558 ± 0.0066"),
    (63.71, 1.349, "63.7 ± 1.3"),
    (1234.6, 56.7, "1235 ± 57"),
    (5.0, 0.00004, "5.000000 ± 0.000040"),
    (5.0, math.nan, "5.00"),
    (5.0, 0.0, "5.00 ± 0"),
    (math.nan, 0.1, "-"),
])
def test_mean_se_cells_show_the_se_to_two_significant_digits(mean, se, text):
    assert mean_se_cell(mean, se) == text


def test_a_positive_se_never_reads_as_zero():
    for exponent in range(-9, 4):
        for mantissa in (1.0, 1.04, 2.5, 9.96):
            se = mantissa * 10.0 ** exponent
            shown = float(mean_se_cell(3.0, se).split(" ± ")[1])
            assert shown > 0 and abs(shown - se) <= 0.05 * se, (se, shown)


# ---------------------------------------------------------------- fitting the terminal

def _rows(game, keys: dict[str, list], n: int = 2_000_000):
    """Summary rows with the widest numbers a real table shows (rates near 50%, measures with SEs)."""
    rows = []
    for i, values in enumerate(zip(*keys.values())):
        row = dict(zip(keys, values), n=n, win_rate=0.4987 - i / 100, ci_low=0.4981 - i / 100,
                   ci_high=0.4994 - i / 100)
        for measure in game.measures:
            row[f"mean_{measure.column}"] = 123.456 + i
            row[f"{measure.column}_se"] = 0.0123
        rows.append(row)
    return rows


def _rendered(table, width: int) -> list[str]:
    buffer = io.StringIO()
    Console(file=buffer, width=max(width, 1), force_terminal=False).print(table)
    return buffer.getvalue().splitlines()


def _numbers(table) -> list[str]:
    """The cells of the right-aligned (number) columns."""
    return [cell for column in table.columns if column.justify == "right" for cell in column.cells]


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("game_name, keys", [
    ("verflucht", {"policy": ["baseline", "smart"], "players": [1, 5], "seals": [0, 10]}),
    ("cursed", {"policy": ["threshold", "counting"], "players": [1, 1], "starting_item": ["scroll", "shield"]}),
])
def test_a_table_fits_the_terminal_without_splitting_a_number(game_name, keys, width):
    game = cursedsim.get_game(game_name)
    table = fit_table(rates_table(game, _rows(game, keys), list(keys)), width)
    lines = _rendered(table, width)
    assert max(len(line) for line in lines) <= width
    headers = [" ".join(column.header.split()) for column in table.columns]
    assert headers[:len(keys) + 2] == [*keys, "games", "win rate % [95% CI]"]   # rates are never left out
    left_out = [measure.header for measure in reversed(game.measures) if measure.header not in headers]
    assert (f"Left out to fit {width} columns: {'; '.join(left_out)}." in " ".join(" ".join(lines).split())
            if left_out else table.caption is None)
    numbers = _numbers(table)
    assert len(numbers) == 2 * (len(headers) - len(keys))
    for cell in numbers:   # every number whole, on one line
        assert any(cell in line for line in lines), (cell, lines)
    if width == 120:
        assert not left_out


def test_the_unfitted_table_would_split_numbers_at_80_columns():
    """The test above can fail: rich left alone wraps an interval over lines at 80 columns."""
    game = cursedsim.get_game("cursed")
    keys = {"policy": ["threshold", "counting"], "players": [1, 1], "starting_item": ["scroll", "shield"]}
    table = rates_table(game, _rows(game, keys), list(keys))
    lines = _rendered(table, 80)
    assert not all(any(cell in line for line in lines) for cell in _numbers(table))


def test_a_table_too_wide_even_with_light_rules_leaves_out_optional_columns_and_says_so():
    table = Table("label", "wide one", "wide two", "wide three", title="t")
    for column in table.columns[1:]:
        column.justify = "right"
    table.add_row("x", "1" * 30, "2" * 30, "3" * 30)
    fit_table(table, 80, optional=("wide two", "absent"))
    lines = _rendered(table, 80)
    assert max(len(line) for line in lines) <= 80
    assert "2" * 30 not in "\n".join(lines) and "1" * 30 in "\n".join(lines)
    assert "Left out to fit 80 columns: wide two." in " ".join(" ".join(lines).split())


def test_simulate_fits_an_80_column_terminal(verflucht, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    status, out, err = run(capsys, "simulate", "verflucht", "--players", "1-5", "--seals", "0,10", "--games", "3000",
                           "--no-progress")
    assert status == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    summary = cursedsim.stats.summarize(
        cursedsim.simulate("verflucht", 3000, players=5, options={"seals": 10}, progress=False))
    row = summary.iloc[0]
    rate = f"{100 * row['win_rate']:.2f} [{100 * row['ci_low']:.2f}, {100 * row['ci_high']:.2f}]"
    assert any(rate in line and mean_se_cell(row["mean_score"], row["score_se"]) in line for line in out.splitlines())


# ---------------------------------------------------------------- list

def test_list_points_to_the_details_and_cuts_nothing(verflucht, capsys):
    status, out, err = run(capsys, "list")
    assert status == 0, err
    assert "…" not in out and "cursedsim list GAME" in out
    for name in cursedsim.list_games():
        game = cursedsim.get_game(name)
        assert plain(game.description) in " ".join(out.split())
        assert all(policy in out for policy in game.policies)


@pytest.mark.parametrize("name", ["verflucht", "cursed"])
def test_list_game_gives_every_option_and_policy_in_full(name, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    status, out, err = run(capsys, "list", name)
    assert status == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    text = " ".join(out.split())
    game = cursedsim.get_game(name)
    for info in options_info(game.options_type):
        assert plain(info.doc) in text, info.name
        assert f"{info.name}: {info.type_name}, default" in text
        for choice in info.choices or ():
            assert str(choice).lower() in text
    for policy in game.policies.values():
        assert plain(policy.doc) in text, policy.name
        assert "issue" not in policy.doc.lower()
        for param, value in policy.params.items():
            assert f"{param}={value:g}: {plain(policy.param_docs[param])}" in text


def test_list_names_the_valid_range_of_integer_options(capsys):
    status, out, _ = run(capsys, "list", "verflucht")
    assert "seals: int | None, default none; valid: 0-10, none" in out
    status, out, _ = run(capsys, "list", "cursed")
    assert "win_souls: int, default 8; valid: 1-30" in out and "mimic_power: int, default 4; valid: 1-20" in out


def test_list_of_an_unknown_game_names_the_valid_games(capsys):
    assert_one_line_error(*run(capsys, "list", "nope"), "nope", *cursedsim.list_games())
