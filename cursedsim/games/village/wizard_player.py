"""The Wizard player's turn in the reference engine (a side played by a person or a policy, not by its
automaton): set-up of its components and its turn, every choice asked of its controller through
``Table.choose``. Being written (issue 13)."""

from __future__ import annotations


def deal(t) -> None:
    """The Wizard player's set-up (V1)."""
    raise NotImplementedError("the Wizard player's set-up is not written yet")


def turn(t) -> None:
    """One Wizard player's turn."""
    raise NotImplementedError("the Wizard player's turn is not written yet")
