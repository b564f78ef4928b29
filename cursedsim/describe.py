"""What a game's rule options and policies are, as text: descriptions, types, defaults and valid values.

The CLI (``cursedsim list GAME``, error messages) and the reports both read these; neither imports the
other.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OptionInfo:
    """One rule option: its name, type name, default, full description and valid values (a tuple of
    choices for string options, ``(False, True)`` for bools, ``None`` when any value of the type goes)."""

    name: str
    type_name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] | None


def option_docs(options_type: type) -> dict[str, str]:
    """Option name -> its description, from the ``name: text`` entries of the options' docstring."""
    names = {f.name for f in dataclasses.fields(options_type)}
    docs: dict[str, str] = {}
    current = None
    for line in (options_type.__doc__ or "").splitlines():
        match = re.match(r"^\s*(\w+):\s+(.*)$", line)
        if match and match[1] in names:
            current = match[1]
            docs[current] = match[2]
        elif current and line.strip():
            docs[current] += " " + line.strip()
        else:
            current = None
    return docs


def option_choices(options_type: type) -> dict[str, tuple[Any, ...]]:
    """Option name -> its valid values where they are a closed set: the ``CHOICES`` table of the
    options' module (string options) and ``(False, True)`` for bools."""
    module = importlib.import_module(options_type.__module__)
    choices = {name: tuple(values) for name, values in getattr(module, "CHOICES", {}).items()}
    hints = typing.get_type_hints(options_type)
    for field in dataclasses.fields(options_type):
        if hints.get(field.name) is bool:
            choices.setdefault(field.name, (False, True))
    return choices


def options_info(options_type: type) -> list[OptionInfo]:
    """Every rule option of ``options_type`` in declaration order."""
    hints = typing.get_type_hints(options_type)
    docs = option_docs(options_type)
    choices = option_choices(options_type)
    infos = []
    for field in dataclasses.fields(options_type):
        hint = hints.get(field.name)
        type_name = getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
        infos.append(OptionInfo(field.name, type_name, field.default, docs.get(field.name, ""),
                                choices.get(field.name)))
    return infos


#: ``int_range`` tries every value this far on either side of an option's default for the values its
#: validation refuses, then doubles the distance up to FAR (an end beyond FAR counts as none).
PROBE = 1_000
FAR = 2**62


def int_range(options_type: type, name: str, fixed: Mapping[str, Any] | None = None
              ) -> tuple[int | None, int | None] | None:
    """The valid values of the integer option ``name`` as ``(low, high)``, found by trying values on either
    side of its default (0 for a None default) with the other options at their defaults (or at ``fixed``,
    e.g. a forced starting item needs a starting item): one by one within PROBE, then by doubling the
    distance and halving back to the last valid value (Cursed Gifts' max_turns: 1-100000); an end is None
    where no value within FAR is refused, and the whole is None when the anchor itself is refused."""
    default = next(f.default for f in dataclasses.fields(options_type) if f.name == name)
    anchor = default if isinstance(default, int) and not isinstance(default, bool) else 0

    def valid(value: int) -> bool:
        try:
            options_type(**{**(fixed or {}), name: value})
        except ValueError:   # a CursedsimError (an OptionError) of the options' validation
            return False
        return True

    if not valid(anchor):
        return None
    ends = []
    for step in (-1, 1):
        end = anchor
        while abs(end - anchor) < PROBE and valid(end + step):
            end += step
        if abs(end - anchor) >= PROBE:   # still valid: double the distance until refused, then halve back
            good, bad, distance = end, None, PROBE
            while distance < FAR:
                distance *= 2
                if not valid(anchor + step * distance):
                    bad = anchor + step * distance
                    break
                good = anchor + step * distance
            while bad is not None and abs(bad - good) > 1:
                middle = (good + bad) // 2
                good, bad = (middle, bad) if valid(middle) else (good, middle)
            end = None if bad is None else good
        ends.append(end)
    return ends[0], ends[1]


def first_sentence(text: str, limit: int | None = None) -> str:
    """The first sentence of ``text`` (cut at ``limit`` characters with an ellipsis when given)."""
    line = text.strip().split("\n")[0] if text.strip() else ""
    sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z\"(])", line, maxsplit=1)[0]   # "Mimic! taken" goes on
    if limit is None or len(sentence) <= limit:
        return sentence
    return sentence[:limit - 1].rstrip() + "…"


def value_text(value: Any) -> str:
    """An option value as the command line writes it: ``true``/``false``, ``none``, numbers, names."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


__all__ = ["FAR", "OptionInfo", "PROBE", "first_sentence", "int_range", "option_choices", "option_docs", "options_info",
           "value_text"]
