"""The rich console every command and the report command print to: the terminal's width on a
terminal (or ``COLUMNS`` when set), 120 columns in files and pipes (so logs do not depend on where they
were written)."""

from __future__ import annotations

import os
import sys

#: Width of the output off a terminal.
PIPE_WIDTH = 120


def chosen_width() -> int | None:
    """The width the user chose: ``COLUMNS`` when set to a positive number, else None."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else None


def make_console():
    """A rich Console for stdout: the terminal's width (``COLUMNS`` when set), or PIPE_WIDTH columns
    off a terminal."""
    from rich.console import Console
    return Console(width=chosen_width() or (None if sys.stdout.isatty() else PIPE_WIDTH))


__all__ = ["PIPE_WIDTH", "chosen_width", "make_console"]
