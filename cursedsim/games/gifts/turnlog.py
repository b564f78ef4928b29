"""Cursed Gifts replay events: the vocabulary (what each action means and carries) and the turn-log line
each renders to, so the text log and the events cannot disagree (docs/rules/gifts.md, "Replay events").

The log is the researcher's, so it is omniscient: it names every card, the hidden ones too. Cards are
named by copy id and deck line (``#12 Cursed Gift 2``); ``turn`` counts players' turns. The state after
each event: every seat's ``hands``, the ``gauges`` totals, the ``pile`` and ``discard`` sizes, ``alive``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cursedsim.events import EventKind, render_lines
from cursedsim.games.gifts.deck import deck_of


CARD_REF = re.compile(r"#(\d+)")


def _fmt(value):
    """A list of card ids as ``#a, #b`` (``nothing`` when empty); anything else as is."""
    if isinstance(value, list):
        return ", ".join(f"#{c}" for c in value) or "nothing"
    return value


def _line(text: str):
    """A renderer: ``turn  12 · seat 0: <text>`` with the event's fields (card lists as ``#a, #b``)."""
    def render(e):
        fields = {k: _fmt(v) for k, v in e.items() if k != "state"}
        gauges = " ".join(str(g) for g in e["state"]["gauges"])
        return f"turn {e['turn']:>3} · {e['actor']}: " + text.format(**fields, gauges=gauges)
    return render


def _end_line(e) -> str:
    """``game over: seat 2 wins; eliminated in order: seats 1, 3, 0`` (seats, not cards)."""
    order = ", ".join(str(seat) for seat in e["eliminated"]) or "none"
    result = "unfinished (turn cap)" if e["unfinished"] else f"seat {e['winner']} wins"
    return f"turn {e['turn']:>3} · {e['actor']}: game over: {result}; eliminated in order: seats {order}"


EVENTS = {
    "setup": EventKind("rule", ("players", "deck", "policies", "options"),
                       "7 cards dealt to each seat from a shuffled deck", lambda e: None),
    "turn": EventKind("seat", (), "a seat's turn begins", _line("turn begins (gauges {gauges})")),
    "give": EventKind("seat", ("target",), "a Cursed Gift given to target", _line("gives {cards} to seat {target}")),
    "bonus_gift": EventKind("seat", ("target",), "2 Useless Gifts given as a 1-point INEVITABLE gift",
                            _line("gives the Useless Gifts {cards} as a 1-point INEVITABLE gift to seat {target}")),
    "trick": EventKind("seat", ("target", "gift"), "a raise Trick played on a gift of target",
                       _line("plays the Trick {cards} on gift #{gift} of seat {target}")),
    "mugging": EventKind("seat", ("target", "discarded"), "Mugging on target, paying with a discarded card",
                         _line("mugs seat {target} with {cards}, discarding #{discarded}")),
    "take": EventKind("seat", ("target",), "the card Mugging took from target",
                      _line("takes {cards} from seat {target}")),
    "refund": EventKind("seat", (), "Mugging took nothing: its cost goes back to the hand (mugging_cost if_taken)",
                        _line("takes back {cards}, the cost of a Mugging that took nothing")),
    "mourning": EventKind("seat", ("discarded", "drawn"), "Day of mourning: Useless Gifts out, as many cards in",
                          _line("Day of mourning {cards}: discards {discarded}, draws {drawn}")),
    "remove": EventKind("seat", ("gift",), "Emergency Ifren discards a gift of the player's gauge",
                        _line("plays {cards} and discards {gift} from its gauge")),
    "heal": EventKind("seat", ("healed",), "antidotes heal gifts of exactly their total",
                      _line("heals {healed} with {cards}")),
    "riposte": EventKind("seat", ("answers",), "a RIPOSTE answers the last card played",
                         _line("ripostes with {cards} to #{answers}")),
    "cacarma": EventKind("seat", ("answers", "returned"), "3 Useless Gifts used as a Cacarma",
                         _line("Cacarma with {cards} against #{answers} (returned: {returned})")),
    "cancelled": EventKind("rule", (), "the card answered has no effect", _line("{cards} is cancelled")),
    "returned": EventKind("rule", ("target",), "a gift returned to its giver by Cacarma",
                          _line("{cards} goes back to seat {target}")),
    "reshuffle": EventKind("rule", ("size",), "the Septic Discard becomes the draw pile, shuffled",
                           _line("the Septic Discard is shuffled into a new draw pile of {size}")),
    "draw": EventKind("seat", (), "the turn ends by drawing a card", _line("ends the turn, draws {cards}")),
    "eliminated": EventKind("rule", ("seat",), "a seat is eliminated; its cards go into the draw pile",
                            _line("seat {seat} is eliminated; {cards} go into the draw pile")),
    "end": EventKind("rule", ("winner", "unfinished", "eliminated"), "the game ends",
                     lambda e: _end_line(e)),
}


def log_lines(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The turn-log lines of ``events`` (no header)."""
    return render_lines(events, EVENTS)


def header(events: Sequence[Mapping[str, Any]]) -> str:
    """The log's first line: seed, game, deck, policies and the result."""
    setup, last = events[0], events[-1]
    if last["action"] != "end":
        result = "not over"
    elif last["unfinished"]:
        result = "unfinished (turn cap)"
    else:
        result = f"won by seat {last['winner']}"
    return (f"Cursed Gifts · seed {setup['seed']} · game {setup['game_index']} · {setup['players']} players · "
            f"deck {setup['deck']} · policies {', '.join(setup['policies'])} · {result}")


def card_names(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The name of every card copy of the game's deck (read from the set-up event's ``deck`` option)."""
    options = events[0]["options"]
    deck = deck_of(options["deck"], options.get("without_card", "none"))
    return [card.name for card in deck.cards for _ in range(card.count)]


def text(events: Sequence[Mapping[str, Any]]) -> str:
    """The whole turn log of a replayed game: the header, then one line per event that has one, each
    card reference ``#12`` followed by its name."""
    names = card_names(events)
    lines = [CARD_REF.sub(lambda m: f"#{m[1]} {names[int(m[1])]}", line) for line in log_lines(events)]
    return "\n".join((header(events), *lines))
