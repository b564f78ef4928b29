"""Replay events: one record per step of a replayed game (a draw, an attack, a policy's decision, an
end), made by the reference engines. The turn log is rendered from them, and they convert to JSON lines
and to a frame, so a researcher can analyse decisions (docs/architecture.md#replay-events).

An event is a plain dict, JSON-able, its keys in this order: ``seed``, ``game_index``, ``seq`` (0, 1,
... within the game), ``turn``, ``actor``, ``action``, ``cards``, then the action's own fields (each
game documents its vocabulary: docs/rules/<game>.md), then ``state`` (a summary of the table after the
step, the same keys in every event of a game).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from cursedsim.errors import RunError

#: What ``replay(..., format=...)`` returns: the turn log (str), JSON lines (str, one event a line), the
#: events (list of dicts) or a frame (one row per event).
FORMATS = ("text", "json", "events", "frame")
#: Keys every event has, in order; the action's fields follow, then ``STATE_KEY``.
COMMON_KEYS = ("seed", "game_index", "seq", "turn", "actor", "action", "cards")
STATE_KEY = "state"
#: Frame columns of the state summary are named ``state_<key>``.
STATE_PREFIX = "state_"


class EventKind(NamedTuple):
    """One action of a game's event vocabulary: who acts, the fields it carries (besides the common
    keys and the state), what it means, and its turn-log line (``render(event)``: a line, or None for
    an event the log does not show, such as a policy declining to act)."""

    actor: str
    fields: tuple[str, ...]
    doc: str
    render: Callable[[Mapping[str, Any]], str | None]


def make_event(origin: tuple[int | None, int | None], seq: int, turn: int, actor: str, action: str,
               cards: Iterable, fields: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
    """An event dict in the canonical key order; ``origin`` is (seed, game index), None for a table laid
    out by hand."""
    return {"seed": origin[0], "game_index": origin[1], "seq": seq, "turn": turn, "actor": actor,
            "action": action, "cards": list(cards), **fields, STATE_KEY: dict(state)}


def policy_label(policy: object) -> str:
    """A policy's name for the set-up event and the log header: its ``label`` attribute, else its class
    name."""
    return getattr(policy, "label", None) or type(policy).__name__


def render_lines(events: Iterable[Mapping[str, Any]], kinds: Mapping[str, EventKind]) -> list[str]:
    """The turn-log lines of ``events``, in order (events without a line skipped)."""
    lines = []
    for event in events:
        line = kinds[event["action"]].render(event)
        if line is not None:
            lines.append(line)
    return lines


def check_format(format: str) -> str:
    """``format`` if it is one of ``FORMATS``, else a RunError naming them."""
    if not isinstance(format, str) or format not in FORMATS:
        raise RunError(f"unknown replay format {format!r}; valid formats: {', '.join(FORMATS)}")
    return format


def to_json_lines(events: Iterable[Mapping[str, Any]]) -> str:
    """One JSON object a line, in event order (no trailing newline)."""
    return "\n".join(json.dumps(event, ensure_ascii=False) for event in events)


def flatten(event: Mapping[str, Any]) -> dict[str, Any]:
    """The event as one frame row: the state's keys lifted to ``state_<key>``; lists stay lists."""
    row = {key: value for key, value in event.items() if key != STATE_KEY}
    row.update((STATE_PREFIX + key, value) for key, value in event[STATE_KEY].items())
    return row


def to_frame(events: Sequence[Mapping[str, Any]]):
    """A DataFrame with one row per event: the common keys, then every action field in order of first
    appearance, then the ``state_<key>`` columns. A field an action does not have (or a ``None``) is
    missing in its rows (``<NA>``, NaN in a text column); columns of integers or of booleans keep that type (pandas' nullable Int64 and boolean);
    lists and dicts stay Python objects."""
    import pandas as pd

    rows = [flatten(event) for event in events]
    fields: dict[str, None] = {}
    states: dict[str, None] = {}
    for event, row in zip(events, rows):
        for key in row:
            if key not in COMMON_KEYS:
                is_state = key.startswith(STATE_PREFIX) and key[len(STATE_PREFIX):] in event[STATE_KEY]
                (states if is_state else fields)[key] = None
    columns = {}
    for name in (*COMMON_KEYS, *fields, *states):
        values = [row.get(name) for row in rows]
        columns[name] = pd.Series(values, dtype=_nullable_dtype(values))
    return pd.DataFrame(columns)


def _nullable_dtype(values: Iterable) -> str | None:
    """"boolean" for a column of bools (and None), "Int64" for ints, else None (pandas infers it)."""
    kinds = {"boolean" if isinstance(value, bool) else "Int64" if isinstance(value, int) else "other"
             for value in values if value is not None}
    kind = kinds.pop() if len(kinds) == 1 else "other"
    return None if kind == "other" else kind


def convert(events: list[dict[str, Any]], format: str):
    """``events`` in a non-text ``format`` of ``FORMATS``: "json", "events" or "frame"."""
    if format == "json":
        return to_json_lines(events)
    if format == "frame":
        return to_frame(events)
    if format == "events":
        return events
    raise RunError(f"events convert to json, events or frame, not {format!r}")


__all__ = ["COMMON_KEYS", "FORMATS", "STATE_KEY", "EventKind", "check_format", "convert", "flatten",
           "make_event", "policy_label", "render_lines", "to_frame", "to_json_lines"]
