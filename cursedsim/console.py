"""The rich console every command and the report command print to: the terminal's width on a
terminal, 120 columns in files and pipes (so logs do not depend on where they were written)."""

from __future__ import annotations

import sys

#: Width of the output off a terminal.
PIPE_WIDTH = 120


def make_console():
    """A rich Console for stdout: the terminal's width, or PIPE_WIDTH columns off a terminal."""
    from rich.console import Console
    return Console(width=None if sys.stdout.isatty() else PIPE_WIDTH)


__all__ = ["PIPE_WIDTH", "make_console"]
