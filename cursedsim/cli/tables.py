"""Terminal tables of the commands: how rates, differences, p-values and measures read as cells, and
the one table of win rates per cell that simulate, sweep and compare print."""

from __future__ import annotations

import sys
from typing import Any

from cursedsim.console import make_console


def pp(value: float, digits: int = 2, sign: bool = False) -> str:
    """A fraction as percentage points (``-`` for NaN)."""
    if value != value:
        return "-"
    return f"{100 * value:+.{digits}f}" if sign else f"{100 * value:.{digits}f}"


def rate_cell(row: Any) -> str:
    """A win rate with its 95% interval, in percent: ``24.81 [24.72, 24.89]``."""
    return f"{pp(row['win_rate'])} [{pp(row['ci_low'])}, {pp(row['ci_high'])}]"


def diff_cell(row: Any, digits: int = 2) -> str:
    """A difference with its 95% interval, in signed percentage points: ``-5.19 [-5.27, -5.11]``."""
    return (f"{pp(row['diff'], digits, True)} [{pp(row['ci_low'], digits, True)}, "
            f"{pp(row['ci_high'], digits, True)}]")


def p_value_cell(p: float) -> str:
    """A p-value to two significant digits (``< 1e-300`` where it underflows)."""
    if p != p:
        return "-"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def measure_headers(game) -> list[str]:
    """The table headers of the game's measures (``game.measures``), in order."""
    return [measure.header for measure in game.measures]


def measure_cells(game, row) -> list[str]:
    """The cells of the game's measures in a summary row (``mean_<column>``, ``± <column>_se`` where the
    measure shows its standard error); ``-`` where the row has no number (e.g. no game won)."""
    cells = []
    for measure in game.measures:
        mean = row.get(f"mean_{measure.column}", float("nan"))
        se = row.get(f"{measure.column}_se", float("nan")) if measure.se else float("nan")
        cells.append("-" if mean != mean else f"{mean:.2f} ± {se:.2f}" if se == se else f"{mean:.2f}")
    return cells


def key_cell(value: Any) -> str:
    """A key column's cell (policy, players, an option or a parameter value); ``-`` for a missing number."""
    if isinstance(value, float):
        return "-" if value != value else f"{value:g}"
    return str(value)


def rates_table(game, rows: list[dict[str, Any]], keys: list[str], title: str | None = None):
    """One row per cell: its ``keys``, games, win rate [95% CI] and the game's measures."""
    from rich.table import Table
    table = Table(*keys, "games", "win rate % [95% CI]", *measure_headers(game), title=title)
    for column in table.columns[len(keys):]:
        column.justify = "right"
    for row in rows:
        table.add_row(*[key_cell(row[key]) for key in keys], f"{row['n']:,}", rate_cell(row),
                      *measure_cells(game, row))
    return table


def print_table(table) -> None:
    """Print a rich table; off a terminal as wide as the table needs (no wrapped cells in files and pipes)."""
    console = make_console()
    if not sys.stdout.isatty():
        from rich.console import Console
        needed = Console(width=1000).measure(table).maximum
        console = Console(width=max(120, min(needed, 400)))
    console.print(table)


__all__ = ["diff_cell", "key_cell", "measure_cells", "measure_headers", "p_value_cell", "pp", "print_table",
           "rate_cell", "rates_table"]
