"""How much the calibrated game (issue 26) rests on each assumption: every calibrated track length ±2,
the card presets, generated boards at the calibrated lengths and every debatable reading (each rule
option's other values), each played in the modes it reaches and paired game by game with the default.

What an option reaches is data (``READING_MODES``, ``CARD_MODES``, ``LENGTH_MODES``): an option changes
only the games of the modes listed with it, so the report plays it there alone; tests/test_village_
sensitivity.py plays every variation in the other modes and checks that no game changes there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.games.village import rules
from cursedsim.report.gifts.reduce import paired, rate, same_games

#: Modes by who plays: the Rabid Monster automaton, the Possessed Wizard automaton, a Wizard player, a
#: Monster player (the only one with Energy, Town Guards, Power requirements and Quiet Nights).
ALL_MODES = tuple(rules.MODE_NAMES)
WITH_RABID = (rules.RABID_MONSTER, rules.AUTOMATA)
WITH_POSSESSED = (rules.POSSESSED_WIZARD, rules.AUTOMATA)
WITH_WIZARD_PLAYER = (rules.DUEL, rules.RABID_MONSTER)
WITH_MONSTER_PLAYER = (rules.DUEL, rules.POSSESSED_WIZARD)

#: Every reading option (docs/rules/village.md O2-O26) -> the modes whose games it can change.
READING_MODES: dict[str, tuple[str, ...]] = {
    "night_arrival_chooser": WITH_MONSTER_PLAYER,   # a Quiet Night is the Monster player's
    "wizard_move_alone": WITH_WIZARD_PLAYER,
    "plethora_at_market": WITH_WIZARD_PLAYER,       # the Wizard board side's Panic effect
    "panic_threshold": ALL_MODES,
    "unmatched_meal": WITH_MONSTER_PLAYER,          # the 2-player feeding table
    "quiet_night_adjusts": WITH_MONSTER_PLAYER,
    "full_stomach": WITH_MONSTER_PLAYER,
    "start_location_visited": WITH_MONSTER_PLAYER,  # Power requirements (the Rabid Monster ignores them)
    "guard_movement_loss": WITH_MONSTER_PLAYER,     # Town Guards are not used against an automaton Monster
    "automata_targets": (rules.AUTOMATA,),
    "rabid_path": WITH_RABID,
    "rabid_stop_count": WITH_RABID,
    "rabid_pasture": WITH_RABID,
    "rabid_spent_actions": (rules.RABID_MONSTER,),  # the Wizard player's actions from the Rabid cards
    "rabid_get_busy": (rules.RABID_MONSTER,),
    **{name: WITH_POSSESSED for name in rules.OPTION_NAMES if name.startswith("pw_") and name != "pw_unlisted_actions"},
}
#: The card presets (O28, O33, O34) -> the modes they reach.
CARD_MODES: dict[str, tuple[str, ...]] = {
    "unlisted_cards": ALL_MODES,
    "pw_unlisted_actions": WITH_POSSESSED,
    "power_requirements": WITH_MONSTER_PLAYER,      # the Rabid Monster plays its Powers "ignoring ... requirements"
}
#: The track-length options (O35-O38) -> the modes that play that board side's track.
LENGTH_MODES: dict[str, tuple[str, ...]] = {
    "wizard_cure_length": WITH_WIZARD_PLAYER,
    "possessed_cure_length": WITH_POSSESSED,
    "monster_curse_length": WITH_MONSTER_PLAYER,
    "rabid_curse_length": WITH_RABID,
}
#: Options the table does not vary: the turn cap, the data files (the board is varied by generated boards),
#: the deck sizes and the calibration switch (the lengths are varied one by one).
NOT_VARIED = ("max_turns", "board", "cards", "spell_deck_size", "power_deck_size", "possessed_deck_size",
              "rabid_deck_size", "track_calibration")
#: A game counts as changed by a variation when one of these differs from the default's game.
CHANGED_WHEN = ("winner", "turns", "cure", "curse", "panic", "coins_stolen")
#: Track lengths are moved by this many spaces each way.
LENGTH_STEP = 2
#: Generated boards played at the calibrated lengths.
BOARDS = 3
#: The groups in the table's order.
GROUPS = ("track length", "cards", "board", "reading")


@dataclass(frozen=True)
class Variation:
    """One changed assumption: its ``group`` (GROUPS), ``label``, the rule ``options`` it sets over the
    default and the ``modes`` it reaches (it is played there)."""

    group: str
    label: str
    options: Mapping[str, Any] = field(hash=False)
    modes: tuple[str, ...]
    #: the run folder's name (``sensitivity/<key>/<mode>``)
    key: str = ""


def _other_values(name: str) -> list[Any]:
    """The values of option ``name`` other than its default, in the order the option lists them."""
    default = getattr(rules.RuleOptions(), name)
    values = rules.CHOICES[name] if name in rules.CHOICES else (False, True)
    return [v for v in values if v != default]


def played_lengths(board: Any, options: rules.RuleOptions | None = None) -> dict[str, int]:
    """Length option -> the length ``board`` plays with ``options`` (default options: the calibrated lengths
    of the default board, a board file's own)."""
    options = options or rules.RuleOptions()
    cure, curse = options.track_lengths(board)
    own_cure = {side: len(sequence) for side, sequence in board.cure}
    own_curse = {side: length for side, length, _ in board.curse}
    out = {f"{side}_cure_length": cure.get(side, own_cure[side]) for side in own_cure}
    out.update({f"{side}_curse_length": curse.get(side, own_curse[side]) for side in own_curse})
    return out


def variations(lengths: Mapping[str, int], generated: Sequence[Any] = (), *, boards: int = BOARDS,
               only: Sequence[str] | None = None) -> list[Variation]:
    """Every variation of the table: each length of ``lengths`` ±LENGTH_STEP (within its valid range), the
    other values of each card option, the first ``boards`` ``generated`` boards (BoardFile) at ``lengths``,
    and the other values of each reading. ``only``: the option names varied (``board``: the generated
    boards), None for all."""
    out = []
    for name, length in lengths.items():
        low, high = rules.TRACK_LENGTHS[name]
        for delta in (-LENGTH_STEP, LENGTH_STEP):
            if low <= length + delta <= high:
                out.append(Variation("track length", f"{name} {length} -> {length + delta}",
                                     {name: length + delta}, LENGTH_MODES[name], f"{name}={length + delta}"))
    for name, modes in CARD_MODES.items():
        out += [Variation("cards", f"{name} = {value}", {name: value}, modes, f"{name}={value}")
                for value in _other_values(name)]
    for bf in list(generated)[:boards]:
        out.append(Variation("board", f"generated board {bf.value} ({bf.file})", {"board": bf.path, **lengths},
                             ALL_MODES, f"board={bf.value}"))
    for name, modes in READING_MODES.items():
        for value in _other_values(name):
            text = str(value).lower() if isinstance(value, bool) else str(value)
            out.append(Variation("reading", f"{name} = {text}", {name: value}, modes, f"{name}={text}"))
    if only is None:
        return out
    return [v for v in out if ("board" in only if v.group == "board" else bool(set(v.options) & set(only)))]


def row(variant: pd.DataFrame, base: pd.DataFrame, variation: Variation, mode: str, wizard: str,
        monster: str) -> dict[str, Any]:
    """One variation in one mode's pairing: the Wizard's win rate with it and with the default on the same
    games, their paired difference, the shares of games whose winner changed and that changed at all
    (CHANGED_WHEN), the unfinished share. A reading the mode's policies never meet changes no game."""
    same_games(variant, base, f"{variation.label} in {mode}")
    a, b = variant["wizard_won"].to_numpy(), base["wizard_won"].to_numpy()
    ra, rb = rate(a), rate(b)
    return {"group": variation.group, "variation": variation.label, "mode": mode, "wizard": wizard,
            "monster": monster, "n": ra["n"], "wizard_rate": ra["rate"], "wizard_ci_low": ra["ci_low"],
            "wizard_ci_high": ra["ci_high"], "base_rate": rb["rate"], **paired(a, b),
            "winner_changed": float(np.mean(variant["winner"].to_numpy() != base["winner"].to_numpy())),
            "games_changed": float(np.mean(np.any([variant[c].to_numpy() != base[c].to_numpy()
                                                   for c in CHANGED_WHEN], axis=0))),
            "unfinished": float(variant["unfinished"].mean()), "mean_turns": float(variant["turns"].mean())}


def check_covered() -> None:
    """Every rule option is varied (READING_MODES, CARD_MODES, LENGTH_MODES) or left out on purpose
    (NOT_VARIED): a new option cannot drop out of the table unseen."""
    listed = set(READING_MODES) | set(CARD_MODES) | set(LENGTH_MODES) | set(NOT_VARIED)
    missing = sorted(set(rules.OPTION_NAMES) - listed)
    unknown = sorted(listed - set(rules.OPTION_NAMES))
    if missing or unknown:
        raise AssertionError(f"sensitivity options out of date: not listed {missing}, not options {unknown}")


__all__ = ["BOARDS", "CARD_MODES", "CHANGED_WHEN", "GROUPS", "LENGTH_MODES", "LENGTH_STEP", "NOT_VARIED", "READING_MODES",
           "Variation", "check_covered", "played_lengths", "row", "variations"]
