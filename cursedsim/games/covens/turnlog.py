"""Curses & Covens replay events: the vocabulary (what each action means and carries) and the turn-log
line each renders to, so the text log and the events cannot disagree (docs/rules/covens.md, "Replay
events").

The log is the researcher's, so it is omniscient: it names every card, including those hidden from one
side (the woods card, the cards given face-down, the discards). Cards are named as ``rules.card_name``
(``love witch 2``, ``townsfolk 7``); ``turn`` is the round. The state after each event: every town's
``hands``, the ``woods`` card, the ``deck`` size, the hunter's ``captured`` witches (the fake included)
and ``rituals``, the tile ``faces``, the ``active`` spell and the ``hat`` holder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cursedsim.events import EventKind, render_lines
from cursedsim.games.covens import rules as R


def names(cards: Iterable[int]) -> str:
    """``love witch 1, townsfolk 3``: cards as the log shows them."""
    return ", ".join(R.card_name(c) for c in cards) or "-"


def _hands(e) -> str:
    return " · ".join(f"town {t} [{names(h)}]" for t, h in enumerate(e["state"]["hands"]))


def _round(e) -> str:
    st = e["state"]
    front = f"captured [{names(st['captured'])}] · rituals {len(st['rituals'])}"
    return f"round {e['round']} · deck {st['deck']} · woods {R.card_name(st['woods'])} · {front}"


def _ask(e) -> str:
    got = f"gets {names(e['cards'])}" if e["moved"] else "nothing moves"
    return f"  town {e['town']} asks town {e['to']}: {got}"


def _end(e) -> str:
    why = {"coven": f"town {e['town']} forms a {e['suit']} coven", "ritual": "the hunter holds 2 rituals",
           "capture": "the hunter holds 5 witches", "unfinished": "max_rounds reached"}[e["win_type"]]
    return f"end: {e['winner']} wins ({e['win_type']}): {why}" if e["winner"] != "none" else f"end: {why}"


#: The actions of a Curses & Covens replay, in the order a round meets them.
EVENTS = {
    "setup": EventKind("rule", ("towns", "hunter", "town", "options"),
                       "the deck is shuffled, the top card hidden in the woods (cards: it), 2 cards dealt to "
                       "each town; the policies' names and every rule option",
                       lambda e: f"set-up · {e['towns']} towns · woods {names(e['cards'])} · {_hands(e)}"),
    "round": EventKind("rule", ("round",), "a round begins (its Census)", _round),
    "shuffle": EventKind("hunter", ("shuffled",), "the hunter was offered a shuffle (shuffled: he took it)",
                         lambda e: "  hunter shuffles the deck" if e["shuffled"] else None),
    "census_draw": EventKind("town", ("town",), "a town with no cards draws the top card",
                             lambda e: f"  town {e['town']} had no cards, draws {names(e['cards'])}"),
    "reveal": EventKind("rule", (), "every hand is revealed (cards: all of them; state: the hands)",
                        lambda e: f"  census: {_hands(e)}"),
    "no_spell": EventKind("town", (), "a spell could be cast and the town side chose none",
                          lambda e: "  no spell cast"),
    "cast": EventKind("town", ("tile", "spell"), "the town side casts the face-up side of a tile",
                      lambda e: f"  casts {R.SPELL_TITLES[R.SPELL_NAMES.index(e['spell'])]} (tile {e['tile']})"),
    "announce": EventKind("town", ("gather", "heard"),
                          "the census talk: the town named as the gathering (None: none); heard: the hunter "
                          "heard it (not under Despair)",
                          lambda e: (f"  talk: \"we gather at town {e['gather']}\"" if e["gather"] >= 0
                                     else "  talk: no plan named") + ("" if e["heard"] else " (unheard: Despair)")),
    "hat": EventKind("town", ("town",), "the witch's hat goes to the first Town Player of the Travel",
                     lambda e: f"  hat to town {e['town']}"),
    "arrival_none": EventKind("rule", ("deck",), "short_deck_arrival=deal_none: fewer cards than towns",
                              lambda e: f"  arrival: only {e['deck']} cards, nobody gets one"),
    "arrive": EventKind("hunter", ("town",), "the hunter gives a card to a town (Arrival)",
                        lambda e: f"  arrival: {names(e['cards'])} to town {e['town']}"),
    "ritual_draw": EventKind("hunter", (), "with a ritual in front of him the hunter draws a card per town",
                             lambda e: f"  arrival with a ritual: the hunter draws {names(e['cards'])}"),
    "deal_none": EventKind("hunter", ("town",), "under a ritual, a town gets none of the drawn cards",
                           lambda e: f"  town {e['town']} gets no card"),
    "travel": EventKind("rule", ("first",), "a Travel begins at the town named",
                        lambda e: f"  travel from town {e['first']}"),
    "give": EventKind("town", ("town", "to"), "a town gives a card to another",
                      lambda e: f"  town {e['town']} gives {names(e['cards'])} to town {e['to']}"),
    "ask": EventKind("town", ("town", "to", "moved"), "a town asks another for a card (moved: 0 or 1)", _ask),
    "swap": EventKind("town", ("town",), "a town swaps a card with the woods (cards: put there, taken)",
                      lambda e: f"  town {e['town']} swaps {R.card_name(e['cards'][0])} for the woods' "
                                f"{R.card_name(e['cards'][1])}"),
    "pass": EventKind("town", ("town",), "a town with no legal action passes", lambda e: f"  town {e['town']} passes"),
    "doom": EventKind("hunter", ("town",), "Curse of Doom: the town both picks come from",
                      lambda e: f"  doom on town {e['town']}"),
    "pick": EventKind("hunter", ("town", "kind"), "a card picked at random from a town's hand and revealed",
                      lambda e: f"  hunter picks from town {e['town']}: {names(e['cards'])}"),
    "townsfolk": EventKind("hunter", ("town", "to"), "the hunter passes the picked townsfolk on",
                           lambda e: f"    → given to town {e['to']}"),
    "flee": EventKind("town", ("town",), "the rest of the town's hand goes to the bottom (in this order)",
                      lambda e: f"    town {e['town']} flees: {names(e['cards'])} to the bottom"),
    "escape": EventKind("rule", (), "the fake witch: the other captured witches escape to the bottom",
                        lambda e: f"    witches escape: {names(e['cards'])} to the bottom"),
    "flip": EventKind("rule", ("tile", "spell"), "the tile cast this round turns over (spell: its new side)",
                      lambda e: f"  tile {e['tile']} turns over to {e['spell']}"),
    "end": EventKind("rule", ("winner", "win_type", "town", "suit"),
                     "the game ends: winner hunter/town/none, win_type coven/ritual/capture/unfinished "
                     "(town and suit of a coven)", _end),
}


def log_lines(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The turn-log lines of ``events`` (no header)."""
    return render_lines(events, EVENTS)


def header(events: Sequence[Mapping[str, Any]]) -> str:
    """The log's first line: seed, game, policies (set-up event) and the result (last event)."""
    setup, last = events[0], events[-1]
    if last["action"] != "end":
        result = "not over"
    elif last["winner"] == "none":
        result = f"no winner ({last['win_type']})"
    else:
        result = f"won by the {last['winner']} ({last['win_type']})"
    return (f"Curses & Covens · seed {setup['seed']} · game {setup['game_index']} · hunter {setup['hunter']}"
            f" · town {setup['town']} · {result}")


def text(events: Sequence[Mapping[str, Any]]) -> str:
    """The whole turn log of a replayed game: the header, then one line per event that has one."""
    return "\n".join((header(events), *log_lines(events)))
