"""The command line: ``cursedsim list``, ``simulate``, ``replay``, ``compile``, the research tools ``compare``,
``sweep``, ``tune`` and ``target``, and ``report``.

One module per command over one shared parser of the grid flags (``grid.py``) and one set of table
cells (``tables.py``); ``app.py`` holds the click group and ``main``. Bad input of any kind ends in one
line ``cursedsim: error: <message>`` on stderr and exit status 2.
"""

from __future__ import annotations

# importing a command module registers its command
from cursedsim.cli import ceiling, compare, compile, listing, replay, report, simulate, sweep, target, tune  # noqa: F401
from cursedsim.cli.app import PROG, cli, main
from cursedsim.cli.grid import (CliError, parse_int_values, parse_number_values, parse_option_values,
                                parse_options, parse_params, parse_sweep_params)
from cursedsim.cli.tune import parse_space_texts

__all__ = ["CliError", "PROG", "cli", "main", "parse_int_values", "parse_number_values", "parse_option_values",
           "parse_options", "parse_params", "parse_space_texts", "parse_sweep_params"]
