"""Validation shared by the games' ``RuleOptions`` dataclasses: every field is a string among its
choices, an integer in its range or a boolean, and a bad value is an OptionError naming the valid ones."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from cursedsim.errors import OptionError


def check_fields(options, choices: Mapping[str, tuple[str, ...]], int_ranges: Mapping[str, tuple[int, int]],
                 skip: Collection[str] = ()) -> None:
    """Check every field of the dataclass ``options`` but those in ``skip`` (the caller checks them):
    strings by ``choices``, integers by their inclusive ``int_ranges``, every other field a bool."""
    for f in dataclasses.fields(options):
        if f.name in skip:
            continue
        value = getattr(options, f.name)
        if f.name in choices:
            if not isinstance(value, str) or value not in choices[f.name]:
                raise OptionError(f"option {f.name!r} must be one of {', '.join(choices[f.name])}; got {value!r}")
        elif f.name in int_ranges:
            low, high = int_ranges[f.name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"option {f.name!r} must be an integer {low}-{high}, got {value!r}")
            if not low <= value <= high:
                raise OptionError(f"option {f.name!r} must be in {low}-{high}, got {value}")
        elif not isinstance(value, bool):
            raise OptionError(f"option {f.name!r} must be true or false, got {value!r}")
