"""The exceptions cursedsim raises for bad input; each message names the valid choices.

Messages are clipped: a word (anything between spaces) longer than ``LONG_WORD`` characters, such as a
100,000-character name a user passed, is shortened to its start and end around an ellipsis, and the
whole message to ``MAX_MESSAGE`` characters, so an error is always one readable line.
"""

from __future__ import annotations

import re
import sys

#: Words longer than this are shortened in error messages ...
LONG_WORD = 100
#: ... to their first HEAD and last TAIL characters around "…".
HEAD, TAIL = 60, 20
#: No error message is longer than this.
MAX_MESSAGE = 1_000

_LONG_WORD_RE = re.compile(rf"\S{{{LONG_WORD + 1},}}")


def clip(text: str) -> str:
    """``text`` with every over-long word shortened (``'aaaa…aaaa'``) and at most MAX_MESSAGE characters."""
    text = _LONG_WORD_RE.sub(lambda m: m[0][:HEAD] + "…" + m[0][-TAIL:], text)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


def shorten(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (for echoing user input in messages)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


class CursedsimError(ValueError):
    """Base of every user-facing cursedsim error (the CLI prints it in one line and exits 2)."""

    def __init__(self, message: object = "", *args: object) -> None:
        super().__init__(clip(str(message)) if isinstance(message, str) else message, *args)


class UnknownGameError(CursedsimError):
    """A game name that is not in the registry."""


class UnknownPolicyError(CursedsimError):
    """A policy name (or policy parameter) the game does not have."""


class OptionError(CursedsimError):
    """An unknown rule option, or a value outside its range."""


class PlayersError(CursedsimError):
    """A player count the game does not support."""


class CompareError(CursedsimError):
    """A comparison's reference that names no contender, or more than one."""


class PluginError(CursedsimError):
    """A plugin (``--plugin`` or a ``cursedsim.policies`` entry point) that cannot be found or fails to load."""


class RunError(CursedsimError):
    """Bad run settings: non-positive game counts, chunk sizes, job counts, or a mismatched resume."""


def warn(message: str) -> None:
    """One line ``cursedsim: warning: <message>`` on stderr: a fault that was survived (a file that
    failed verification and was recomputed, a worker that died and whose chunks were played again)."""
    print(f"cursedsim: warning: {' '.join(clip(message).split())}", file=sys.stderr, flush=True)
