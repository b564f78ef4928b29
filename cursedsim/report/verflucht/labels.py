"""What every Verflucht! figure writes the same way: the colour of a policy (the palette's, in every
figure of every report), the colours of the ways a game is lost, player counts as words and a value
per player count as one compact list ("20.6 / 16.0 / 11.9% at 1-3 players")."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from cursedsim.palette import TUNED_SUFFIX, policy_color

#: Colours of the ways a game is lost (none of them a policy's colour).
CAUSE_COLORS = {"sixth_creature": "#e6ab02", "group": "#b2182b"}
CAUSE_TEXT = {"sixth_creature": "a sixth-creature attack", "group": "a group attack"}


def color(policy: str) -> str:
    """The colour of ``policy`` (a label such as ``smart (tuned)``) in every figure: the palette's; a
    variant with parameters (``smart:slack=3``, added with ``--policy``), which the palette colours as
    its policy, lighter, so that it stays apart from its policy in the same figure."""
    if ":" in policy and not policy.endswith(TUNED_SUFFIX):
        red, green, blue = (int(policy_color(policy)[i:i + 2], 16) for i in (1, 3, 5))
        return "#" + "".join(f"{channel + (255 - channel) // 2:02x}" for channel in (red, green, blue))
    return policy_color(policy)


def players_label(players: int) -> str:
    """``1 player`` / ``3 players``."""
    return f"{players} player{'s' if players != 1 else ''}"


def players_range(players: Sequence[int]) -> str:
    """``1-5`` for consecutive counts, else ``1, 3, 5``."""
    players = sorted(players)
    if len(players) > 2 and players == list(range(players[0], players[-1] + 1)):
        return f"{players[0]}-{players[-1]}"
    return ", ".join(str(p) for p in players)


def per_players(values: Mapping[int, float], fmt: Callable[[float], str], unit: str = "", where: bool = True) -> str:
    """``a / b / c<unit> at 1-3 players`` (one value: ``a<unit> at 2 players``; ``where=False``: without
    the player counts, for a list that names them once)."""
    players = sorted(values)
    numbers = " / ".join(fmt(values[p]) for p in players) + unit
    return f"{numbers} at {players_text(players)}" if where else numbers


def players_text(players: Sequence[int]) -> str:
    """``1-5 players`` / ``1 player``."""
    players = sorted(players)
    return f"{players_range(players)} player{'s' if players != [1] else ''}"


__all__ = ["CAUSE_COLORS", "CAUSE_TEXT", "color", "per_players", "players_label", "players_range", "players_text"]
