"""One colour per policy in every figure of every report, experiment and notebook.

Built-in policies have fixed colours (a reader learns them once); a tuned variant is drawn in its
policy's colour, darker; any other policy (a user's, a plugin's) gets a colour from the spare list
chosen by its name, so it keeps that colour from figure to figure and run to run.
"""

from __future__ import annotations

import hashlib

#: The built-in policies of every game. A name used by two games means the same kind of player.
POLICY_COLORS: dict[str, str] = {
    "random": "#7f7f7f",      # the floor: grey
    "baseline": "#1f77b4",    # Verflucht!'s reference heuristic
    "smart": "#ff7f0e",
    "threshold": "#1f77b4",   # Cursed!?'s reference heuristic, the same blue as baseline
    "counting": "#ff7f0e",
    "no_items": "#2ca02c",
    "optimal_fight": "#d62728",   # Cursed!?'s exact fight: red
    "ismcts": "#17becf",          # the search agent of every game: cyan
    "rollout": "#006d5b",         # the compiled search of every game: dark teal
}
#: Colours for policies not listed above, none of them in POLICY_COLORS.
SPARE_COLORS: tuple[str, ...] = ("#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#393b79", "#637939",
                                 "#8c6d31", "#843c39")
#: The suffix that marks a tuned variant of a policy (``"smart (tuned)"``).
TUNED_SUFFIX = " (tuned)"


def _darker(hex_colour: str, factor: float = 0.65) -> str:
    red, green, blue = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{int(channel * factor):02x}" for channel in (red, green, blue))


def policy_color(name: str) -> str:
    """The colour of policy ``name`` (a label such as ``"smart:slack=3"`` is coloured as its policy)."""
    if name.endswith(TUNED_SUFFIX):
        return _darker(policy_color(name[:-len(TUNED_SUFFIX)]))
    base = name.split(":", 1)[0].strip()
    if base in POLICY_COLORS:
        return POLICY_COLORS[base]
    digest = hashlib.sha256(base.encode()).digest()
    return SPARE_COLORS[digest[0] % len(SPARE_COLORS)]


__all__ = ["POLICY_COLORS", "SPARE_COLORS", "TUNED_SUFFIX", "policy_color"]
