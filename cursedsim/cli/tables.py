"""Terminal tables of the commands: how rates, differences, p-values and measures read as cells, the
one table of win rates per cell that simulate, sweep and compare print, and how every table is fitted
to the terminal (no number is ever wrapped or cut)."""

from __future__ import annotations

import math
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from cursedsim.console import chosen_width, make_console

#: Significant digits of a standard error in a ``mean ± SE`` cell.
SE_DIGITS = 2
#: Attribute of a rich Table naming the columns ``fit_table`` may leave out on a narrow terminal, in order.
OPTIONAL = "cursedsim_optional"
#: Off a terminal (and without COLUMNS) a table is printed as wide as it needs, between these widths.
PIPE_WIDTHS = (120, 400)


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


def mean_se_cell(mean: float, se: float) -> str:
    """``mean ± SE`` with the standard error to SE_DIGITS significant digits and the mean to the same
    decimal place (``6.7612 ± 0.0034``, ``75.5 ± 1.2``; never ``± 0.00``); two decimals where the SE
    is missing or zero; ``-`` without a mean."""
    if mean != mean:
        return "-"
    if se != se or se == 0 or math.isinf(se):
        return f"{mean:.2f}" if se != se else f"{mean:.2f} ± {se:g}"
    decimals = max(0, SE_DIGITS - 1 - math.floor(math.log10(abs(se))))
    return f"{mean:.{decimals}f} ± {se:.{decimals}f}"


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
        cells.append(mean_se_cell(mean, se))
    return cells


def key_cell(value: Any) -> str:
    """A key column's cell (policy, players, an option or a parameter value); ``-`` for a missing number."""
    if isinstance(value, float):
        return "-" if value != value else f"{value:g}"
    return str(value)


def rates_table(game, rows: list[dict[str, Any]], keys: list[str], title: str | None = None):
    """One row per cell: its ``keys``, games, win rate [95% CI] (a game of sides: every side's, ``hunter
    wins % [95% CI]``, from the rows' ``<side>_win_rate``) and the game's measures."""
    from rich.table import Table

    from cursedsim.cli.sides import side_cells, side_headers
    rates = side_headers(game) if game.sides else ["win rate % [95% CI]"]
    table = Table(*keys, "games", *rates, *measure_headers(game), title=title)
    for column in table.columns[len(keys):]:
        column.justify = "right"
    for row in rows:
        table.add_row(*[key_cell(row[key]) for key in keys], f"{row['n']:,}",
                      *(side_cells(game, row) if game.sides else [rate_cell(row)]), *measure_cells(game, row))
    setattr(table, OPTIONAL, measure_headers(game)[::-1])   # on a narrow terminal the last measures go first
    return table


def seat_table(rows: list[dict[str, Any]], keys: list[str]):
    """The win rate of each seat per cell (rows of ``stats.seat_rates`` with the cell's ``keys``): the
    rate with its 95% interval and its excess over the fair share 1/players, in points."""
    from rich.table import Table
    table = Table(*keys, "seat", "games", "wins % [95% CI]", "vs fair share, points [95% CI]",
                  title="Win rate by seat (seat 0 starts; the focus and field policies together; an "
                        "unfinished game counts for no seat)")
    for column in table.columns[len(keys):]:
        column.justify = "right"
    for row in rows:
        excess = {"diff": row["excess"], "ci_low": row["excess_low"], "ci_high": row["excess_high"]}
        table.add_row(*[key_cell(row[key]) for key in keys], str(row["seat"]), f"{row['n']:,}", rate_cell(row),
                      diff_cell(excess))
    return table


def _minimum_width(table) -> int:
    """The narrowest the table prints with every column at its ``min_width`` (``_set_minimums``)."""
    from rich.console import Console
    return Console(width=10_000).measure(table).minimum


def _set_minimums(table) -> None:
    """Each column's ``min_width``: its header's longest line and its cells whole (numbers, which never
    wrap) or their longest word (labels), so that rich never cuts a cell with an ellipsis."""
    from rich.cells import cell_len
    for column in table.columns:
        header = column.header if isinstance(column.header, str) else ""
        widths = [cell_len(line) for line in header.splitlines()] + [1]
        for cell in column.cells:
            if isinstance(cell, str):
                parts = cell.splitlines() if column.no_wrap else cell.split()
                widths += [cell_len(part) for part in parts]
        column.min_width = max(widths)


def _wrap_headers(table) -> None:
    """Every header wrapped onto lines no wider than its column's cells (or its longest word)."""
    from rich.cells import cell_len
    for column in table.columns:
        if not isinstance(column.header, str):
            continue
        cells = [cell_len(cell) for cell in column.cells if isinstance(cell, str)]
        words = [cell_len(word) for word in column.header.split()]
        width = max(cells + words + [1])
        column.header = "\n".join(textwrap.wrap(column.header, width, break_on_hyphens=False)) or column.header
    _set_minimums(table)


def fit_table(table, width: int, optional: Sequence[str] = ()):
    """``table`` made to fit ``width`` columns without wrapping a number: right-aligned (number) columns
    never wrap and labels fold; if it is too wide, the headers wrap over their cells, then the rules get
    light (no edges, two spaces between columns, then one), then the columns named in ``optional`` (and in
    the table's OPTIONAL attribute) are left out, in that order, and the caption says which. Returns the
    table (changed in place)."""
    from rich import box
    for column in table.columns:
        if column.justify == "right":
            column.no_wrap = True
        else:
            column.overflow = "fold"
    _set_minimums(table)
    if _minimum_width(table) <= width:
        return table
    _wrap_headers(table)
    for padding in ((0, 1), (0, 0)):   # light rules: two spaces between columns, then one
        if _minimum_width(table) > width:
            table.box, table.show_edge, table.pad_edge, table.collapse_padding = box.SIMPLE_HEAD, False, False, True
            table.padding = padding
    dropped = []
    for header in [*optional, *getattr(table, OPTIONAL, ())]:
        if _minimum_width(table) <= width:
            break
        for index, column in enumerate(table.columns):
            if isinstance(column.header, str) and " ".join(column.header.split()) == header:
                del table.columns[index]
                dropped.append(header)
                break
    if dropped:
        note = f"Left out to fit {width} columns: {'; '.join(dropped)}."
        table.caption = f"{table.caption} {note}" if table.caption else note
        table.caption_justify = "left"
    return table


def print_table(table, optional: Sequence[str] = ()) -> None:
    """Print a rich table fitted to the terminal (``fit_table``; COLUMNS wins when set); off a terminal as
    wide as the table needs (no wrapped cells in files and pipes). Never narrower than the table's
    numbers: a table that cannot fit is printed whole, for the terminal to wrap its lines."""
    from rich.console import Console
    width = chosen_width() or (make_console().width if sys.stdout.isatty() else None)
    if width is None:
        fit_table(table, 10_000)
        needed = Console(width=10_000).measure(table).maximum
        width = max(PIPE_WIDTHS[0], min(needed, PIPE_WIDTHS[1]))
    else:
        fit_table(table, width, optional)
    Console(width=max(width, _minimum_width(table)), force_terminal=sys.stdout.isatty() or None).print(table)


__all__ = ["OPTIONAL", "diff_cell", "fit_table", "key_cell", "mean_se_cell", "measure_cells", "measure_headers",
           "p_value_cell", "pp", "print_table", "rate_cell", "rates_table", "seat_table"]
