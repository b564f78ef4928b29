"""Verflucht! replay events: the vocabulary (what each action means and carries) and the turn-log line
each one renders to, so the text log and the events cannot disagree. The table of actions is in
docs/rules/verflucht.md (Replay events).

Cards are labels (``C26`` the Creature 26, ``I12`` the Item 12, ``rules.card_name``); creature and item
fields hold values. Players are ``P1``..``P5``. The state after each event: ``face_down`` (cards left
to draw), ``seals_left``, ``display`` (Creature values in play) and ``hands`` (``hands[p]``: the Item
values of P{p+1}).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cursedsim.events import EventKind, render_lines


def player_name(player: int) -> str:
    """Players are 0..P-1 inside, P1..P5 in the log and the events."""
    return f"P{player + 1}"


def player_index(name: str) -> int:
    """The inverse of :func:`player_name`."""
    return int(name[1:]) - 1


def values_text(values: Iterable[int], sep: str = ", ") -> str:
    return sep.join(str(v) for v in values)


def plus(values: Iterable[int]) -> str:
    return "+".join(str(v) for v in values)


def display_text(state: Mapping[str, Any]) -> str:
    return f"display [{values_text(state['display'])}]"


def attack_kind(attackers: Sequence[int], group: bool) -> str:
    """How the log names an attack: ``group attack 19-20-21`` or ``sixth-creature attack by 28``."""
    return f"group attack {'-'.join(str(v) for v in sorted(attackers))}" if group \
        else f"sixth-creature attack by {attackers[0]}"


# ---------------------------------------------------------------- one renderer per action

def _setup(e) -> str:
    players = e["players"]
    return (f"set-up · {players} player{'s' if players > 1 else ''} · {e['state']['seals_left']} green seals"
            f" · {e['state']['face_down']} face-down cards · P1 begins")


def _draw(e) -> str:
    state = e["state"]
    if e["kind"] == "creature":
        after = display_text(state)
        what = "Creature"
    else:
        after = f"hand [{values_text(state['hands'][player_index(e['actor'])])}]"
        what = "Item"
    return f"turn {e['turn']} · {e['actor']} draws {what} {e['value']} ({state['face_down']} left) → {after}"


def _attack(e) -> str:
    return "hands: " + " · ".join(f"{player_name(p)} [{values_text(hand)}]"
                                  for p, hand in enumerate(e["state"]["hands"]))


def _answer(e) -> str:
    parts = [f"{part['player']} banishes {plus(part['creatures'])} with {plus(part['items'])}"
             for part in e["plan"]]
    kind = attack_kind(e["attackers"], e["group"])
    if not e["seal"]:
        return f"{kind}: {'; '.join(parts)} → {display_text(e['state'])}"
    if e["state"]["seals_left"] == 0:
        parts.append("no seal left for the rest" if parts else "no seal left")
    else:
        parts.append("a seal for the rest" if parts else "answered with a seal")
    return f"{kind}: {'; '.join(parts)}"


def _seal(e) -> str:
    state = e["state"]
    return (f"seal used ({state['seals_left']} left): {values_text(e['creatures'])} shuffled back"
            f" ({state['face_down']} face-down) → {display_text(state)}")


def _loss(e) -> str:
    hands = e["state"]["hands"]
    creatures = plus(sorted(e["creatures"], reverse=True))
    if len(e["eligible"]) == 1:
        who = e["eligible"][0]
        why = f"{who}'s items (total {sum(hands[player_index(who)])}) cannot banish {creatures}"
    else:
        totals = ", ".join(f"{who} {sum(hands[player_index(who)])}" for who in e["eligible"])
        why = f"the items (totals {totals}) cannot banish {creatures}"
    return f"LOSS: {attack_kind(e['attackers'], e['group'])}: {why} and no green seal is left"


def _banish(e) -> str:
    return f"{e['actor']} banishes {e['creature']} with {plus(e['items'])} → {display_text(e['state'])}"


def _last_turn(e) -> str:
    return f"last turn · {e['actor']} holds [{values_text(e['state']['hands'][player_index(e['actor'])])}]"


def _final_seals(e) -> str:
    if e["creatures"]:
        return f"seals remove {values_text(e['creatures'])} → {display_text(e['state'])}"
    return "seals remove nothing" + (" (no green seal left)" if not e["state"]["seals_left"] else " (display empty)")


#: The actions of a Verflucht! replay, in the order a game meets them.
EVENTS = {
    "setup": EventKind("rule", ("players", "seals", "policy", "options"),
                       "the table is laid out: player count, green Seals, the policy's name, every rule option",
                       _setup),
    "draw": EventKind("P1-P5", ("kind", "value"),
                      "the active player draws a face-down card: kind creature (to the display) or item (to "
                      "their hand), its value", _draw),
    "attack": EventKind("creatures", ("attackers", "group", "seal_allowed", "can_banish_all"),
                        "Creatures attack (highest first; group or sixth Creature); what the answer may be: "
                        "whether a Seal is allowed and whether the items could banish every attacker "
                        "(text: every hand)", _attack),
    "answer": EventKind("P1-P5", ("attackers", "group", "seal", "plan"),
                        "the policy's answer on the active player's turn: a Seal or not, and the plan, "
                        "[{player, creatures, items}] (values ascending)", _answer),
    "seal": EventKind("rule", ("creatures",),
                      "a green Seal is broken and the creatures are shuffled back among the face-down cards",
                      _seal),
    "loss": EventKind("rule", ("end", "attackers", "group", "creatures", "eligible"),
                      "the attack cannot be answered: the game is lost (end sixth_creature or group); "
                      "creatures: those left, eligible: the players who could have banished", _loss),
    "banish": EventKind("P1-P5", ("creature", "items", "could_banish", "last_turn"),
                        "the active player banishes one display Creature with items of their hand; "
                        "could_banish: the display Creatures their hand total covered before it", _banish),
    "pass": EventKind("P1-P5", ("could_banish", "last_turn"),
                      "asked for a banishment (holding items, Creatures on display), the policy banishes "
                      "nothing more this turn (no log line)", lambda e: None),
    "last_turns": EventKind("rule", (), "the face-down cards ran out: the last turns begin",
                            lambda e: "last turns"),
    "last_turn": EventKind("P1-P5", (), "a player's last turn (text: their hand)", _last_turn),
    "final_seals": EventKind("rule", ("creatures",),
                             "each green Seal left removes the lowest display Creature", _final_seals),
    "win": EventKind("rule", ("end", "score"), "the game is won; score: the display total left (lower is better)",
                     lambda e: f"WIN, score {e['score']}"),
}


def log_lines(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The turn-log lines of ``events`` (no header)."""
    return render_lines(events, EVENTS)


def header(events: Sequence[Mapping[str, Any]]) -> str:
    """The log's first line, from the set-up event (seed, game, players, policy) and the last (end)."""
    setup, last = events[0], events[-1]
    players = setup["players"]
    return (f"Verflucht! · seed {setup['seed']} · game {setup['game_index']} · {players} player"
            f"{'s' if players > 1 else ''} · policy {setup['policy']} · end: {last['end']}")


def text(events: Sequence[Mapping[str, Any]]) -> str:
    """The whole turn log of a replayed game: the header, then one line per event that has one."""
    return "\n".join((header(events), *log_lines(events)))
