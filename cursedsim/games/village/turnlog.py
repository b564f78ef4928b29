"""So, You've Been Cursed. replay events: the vocabulary (what each action means and carries) and the
turn-log line each renders to, so the text log and the events cannot disagree (as the gifts turn log).

The log is the researcher's, so it is omniscient. ``turn`` counts sides' turns (the Wizard's first turn
is 1). Every event carries the state after it: ``panic``, ``cure``, ``curse``, ``coins``, ``at`` (the
shared token's location id), ``held`` (the Wizard's ingredients), ``stomach`` (slots, each a list of
kinds), ``houses`` (house number -> villager, occupied houses only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cursedsim.events import EventKind, render_lines


def _line(text: str):
    """A renderer: ``turn  12 · wizard: <text>`` with the event's fields."""
    def render(e):
        fields = {k: v for k, v in e.items() if k != "state"}
        return f"turn {e['turn']:>3} · {e['actor']}: " + text.format(**fields)
    return render


def _end_line(e) -> str:
    result = "unfinished (turn cap)" if e["unfinished"] else f"{e['winner']} wins ({e['reason']})"
    s = e["state"]
    return (f"turn {e['turn']:>3} · rule: game over: {result}; cure {s['cure']}, curse {s['curse']}, "
            f"panic {s['panic']}")


EVENTS = {
    "setup": EventKind("rule", ("board", "spells", "mode", "houses"), "the board dealt (V1)",
                       _line("set-up on {board} ({mode}), villagers {houses}")),
    "turn": EventKind("side", ("panic",), "a side's turn begins", _line("turn begins (panic {panic})")),
    "arrive": EventKind("rule", ("villager", "roll", "house"), "a villager arrives (V2.2, V2.4)",
                        _line("{villager} arrives: d20 {roll}, placed in house {house}")),
    "no_arrival": EventKind("rule", ("reason",), "no villager arrives (V2.5, V10.2)",
                            _line("no villager arrives ({reason})")),
    "spell": EventKind("side", ("card", "effect", "result"), "a Spell card played ignoring costs (V14.1, V14.11)",
                       _line("casts {card}: {effect} -> {result}")),
    "power": EventKind("side", ("card", "effect", "result"), "a Power card played ignoring costs (V13.3)",
                       _line("develops {card}: {effect} -> {result}")),
    "action": EventKind("side", ("n", "card", "what"), "a Possessed Wizard action begins (V14.2-V14.4)",
                        _line("action {n}: {what} (card {card})")),
    "move": EventKind("side", ("to", "paid"), "the token moves (V4, V13.5)", _line("moves to {to}, pays {paid}")),
    "buy": EventKind("side", ("ingredient", "at", "price"), "an ingredient bought (V3.2, V14.6)",
                     _line("buys {ingredient} at {at} for {price}")),
    "steal": EventKind("side", ("at", "declared", "roll", "taken"), "a Steal (V3.10-V3.12, V14.8)",
                       _line("steals at {at}: declares {declared}, d6 {roll}, takes {taken}")),
    "mix": EventKind("side", ("spent", "steps"), "Mix Cure (V14.3, V14.10)",
                     _line("mixes {spent}: Cure +{steps}")),
    "skip": EventKind("side", ("reason",), "an action skipped, its card ignored (V14.4, V13.7)",
                      _line("skips ({reason})")),
    "cards": EventKind("rule", ("row", "feeding"), "the Possessed Wizard cards for the next turn (V14.5)",
                       _line("next actions {row}; feeding cards {feeding}")),
    "targets": EventKind("side", ("hunted", "villagers"), "what the Rabid Monster hunts (O12)",
                         _line("hunts {villagers} (cards {hunted})")),
    "eat": EventKind("side", ("kind", "at"), "a villager or sheep eaten (V13.5, V13.6)",
                     _line("eats a {kind} at {at}")),
    "feeding_effect": EventKind("rule", ("card", "effect"), "a feeding card's effect (V14.13)",
                                _line("feeding card {card}: {effect}")),
    "adjust": EventKind("rule", ("villagers", "panic_change", "curse_change"),
                        "end of the Rabid Monster's turn (V13.9)",
                        _line("{villagers} villagers eaten: panic {panic_change:+d}, curse {curse_change:+d}; "
                              "digested")),
    "reshuffle": EventKind("rule", ("deck", "size"), "a discard pile shuffled into a new deck (V5.1, V9.5)",
                           _line("the {deck} discard is shuffled into a new deck of {size}")),
    # the Monster player's turn (monster_player.py)
    "quiet_night": EventKind("side", (), "a Quiet Night (V6)", _line("Quiet Night: Panic -2, Curse -1")),
    "energy": EventKind("side", ("use", "spent"), "Energy spent (V7.11)", _line("spends {spent} Energy: {use}")),
    "town_guard": EventKind("rule", ("tile", "slot"), "a Town Guard tile revealed (V7.4, V7.5)",
                            _line("Town Guard tile {slot} revealed: {tile}")),
    "discard": EventKind("side", ("card", "reason"), "a card discarded (V8.4, C11)",
                         _line("{card} discarded ({reason})")),
    "use": EventKind("side", ("card",), "a single-use card activated (V8.3)", _line("activates {card}")),
    "roll": EventKind("side", ("d20",), "a d20 rolled for a card (C13)", _line("rolls d20 {d20}")),
    "leap": EventKind("side", ("to",), "Monstrous Leap (C17)", _line("leaps to {to}")),
    "end": EventKind("rule", ("winner", "reason", "unfinished"), "the game ends (V12)", _end_line),
}


def log_lines(events: Sequence[Mapping[str, Any]]) -> list[str]:
    return render_lines(events, EVENTS)


def text(events: Sequence[Mapping[str, Any]]) -> str:
    """The whole turn log of a game, one line per event."""
    return "\n".join(log_lines(events))
