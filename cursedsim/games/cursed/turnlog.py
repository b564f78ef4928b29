"""Cursed!? replay events: the vocabulary (what each action means and carries) and the turn-log line
each one renders to, so the text log and the events cannot disagree. The table of actions is in
docs/rules/cursed.md (Replay events).

Cards are card ids 0-29 (the card table of docs/rules/cursed.md; ``#12`` in the log); items are named by
slug (``rules.ITEM_SLUGS``), traits and kinds by name. ``turn`` is the round (0 during set-up). The state
after each event: ``monster`` (the card fought, None between fights), its ``power``, the weapon
``total``, the ``pile``, ``discard`` and ``souls`` counts, and the held ``items`` and Large Backpack
weapons (``backpack``) as card ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cursedsim.events import EventKind, render_lines
from cursedsim.games.cursed.rules import (
    END_NAMES,
    N_CARDS,
    WHETSTONE_BONUS,
    is_split,
    item_text,
    monster_text,
    weapon_text,
)

#: The end names that win (``rules.END_NAMES``).
WIN_END = END_NAMES[0]
#: What the log says before the souls, per end.
END_WHY = {"eight_souls": "", "pile_empty": "the draw pile is empty · ",
           "final_monster": "final monster, soul not captured · "}
#: How an attack ends (the ``result`` of a draw or play event).
ATTACK_RESULTS = ("landed", "capture", "bust", "soul_lost", "overshoot_capture", "crystal_capture")


def cards_text(cards: Iterable[int]) -> str:
    """``#3, #17``: card ids as the log shows them."""
    return ", ".join(f"#{c}" for c in cards)


def _fraction(e) -> str:
    return f"{e['state']['total']}/{e['state']['power']}"


# ---------------------------------------------------------------- one renderer per action

def _starting_item(e) -> str:
    card = e["cards"][0]
    return f"starting item #{card} {item_text(card)} · pile {e['state']['pile']}"


def _monster(e) -> str:
    state, card = e["state"], e["cards"][0]
    held = ", ".join(item_text(c) for c in state["items"]) or "-"
    stored = f" · backpack [{cards_text(state['backpack'])}]" if state["backpack"] else ""
    return (f"round {e['turn']} · #{card} {monster_text(card)} · pile {state['pile']} · souls {state['souls']}"
            f" · items [{held}]{stored}")


def _attack_notes(e, card: int) -> list[str]:
    notes = []
    if e["relic"]:
        notes.append(f"Bewitching Relic: monster side {e['base']}")
        if e["kind_follows_value"]:
            notes.append(f"as {e['kind']}")
    elif is_split(card):
        notes.append(f"as {e['base']} {e['kind']}" if e["kind_follows_value"] else f"as {e['base']}")
    if "kind" in e["open"]:
        notes.append(f"as {e['kind']}")
    if e["whetstone"]:
        notes.append(f"Whetstone +{WHETSTONE_BONUS}")
    if e["frenzy"]:
        notes.append("Frenzy x2")
    if e["cancelled_by"]:
        notes.append(f"{e['cancelled_by']}: deals 0")
    return notes


def _attack(e) -> str:
    card, total, power = e["cards"][0], e["total"], e["state"]["power"]
    result = {
        "landed": f"{_fraction(e)} · pile {e['state']['pile']}",
        "capture": f"{_fraction(e)} → captured, no damage",
        "bust": f"{total} > {power}: bust, discarded → {_fraction(e)}",
        "soul_lost": f"{total} > {power}: bust, discarded, the soul is lost",
        "overshoot_capture": f"{total} > {power} with a single weapon → captured, no damage",
        "crystal_capture": f"{total} > {power}: Soul Crystal #{e['crystal']} → captured, no damage",
    }[e["result"]]
    notes = _attack_notes(e, card)
    source = "backpack" if e["action"] == "play" else "draw"
    return f"  {source} #{card} {weapon_text(card)}{' (' + ', '.join(notes) + ')' if notes else ''} → {result}"


def _use(e) -> str:
    card, item, target = e["cards"][0], e["item"], e["target"]
    name = f"{'between fights: ' if e['between'] else '  '}use #{card} {item_text(card)}"
    if item == "scroll_of_purge_life":
        return f"{name} → captured, no damage"
    if item == "smoke_bomb":
        return name
    if item == "shield":
        return f"{name}: blocks up to {e['blocked']} damage this fight"
    if item == "big_turkey_dinner":
        return (f"{name}: discard shuffled, {cards_text(e['packet']) or 'nothing'} under the pile"
                f" → pile {e['state']['pile']}")
    if item == "large_backpack":
        return f"{name}: takes #{target} {weapon_text(target)} from the discard pile"
    if item == "whetstone" and target is not None:
        return f"{name} on #{target} {weapon_text(target)}: +{WHETSTONE_BONUS} → {_fraction(e)}"
    if item == "whetstone":
        return f"{name}: +{WHETSTONE_BONUS} on the next attack"
    return f"{name}: the first attack hits double and ignores traits"   # frenzy_potion


def _chest(e) -> str:
    loot, pile_name = e["loot"], "discard" if e["source"] == "discard" else "draw"
    if loot is None:
        return f"  chest: the {pile_name} pile is empty, no loot"
    if e["source"] == "discard":
        return f"  chest: discard shuffled, loot #{loot} {item_text(loot)}"
    return f"  chest: loot #{loot} {item_text(loot)} from the pile → pile {e['state']['pile']}"


def _end(e) -> str:
    state = e["state"]
    return (f"{'WIN' if e['action'] == 'win' else 'LOSS'}: {END_WHY[e['end']]}{state['souls']} souls"
            f" · round {e['turn']} · pile {state['pile']}")


_ATTACK_FIELDS = ("open", "base", "kind", "kind_follows_value", "relic", "whetstone", "frenzy", "spent",
                  "cancelled_by", "value", "total", "result", "crystal_offered", "crystal")
#: The fields of an attack (``draw`` or ``play``): open (the attack choices the policy had: value, kind,
#: relic, whetstone, frenzy), base (the weapon's value, or the monster side with the Relic), kind (as it
#: attacked), kind_follows_value (the 1/6 value chose the kind: dagger_value="choose_kind"), relic /
#: whetstone / frenzy (applied to it), spent (item cards spent on it), cancelled_by (the trait that made it
#: deal 0), value (dealt), total (the total it made, over the power for a bust), result (ATTACK_RESULTS),
#: crystal_offered (the policy was asked whether to spend a Soul Crystal), crystal (the card spent).
_ATTACK_DOC = "attacks; result: " + ", ".join(ATTACK_RESULTS) + " (the fields: below the table)"

#: The actions of a Cursed!? replay, roughly in the order a game meets them.
EVENTS = {
    "setup": EventKind("rule", ("win_souls", "policy", "options"),
                       "the deck is shuffled: souls to win, the policy's name, every rule option",
                       lambda e: f"set-up · {N_CARDS} cards shuffled · win at {e['win_souls']} souls"),
    "force_start_item": EventKind("rule", ("item",),
                                  "study setting starting_item: the card moves to the top of the pile",
                                  lambda e: f"study setting starting_item={e['item']}: #{e['cards'][0]} "
                                            f"{item_text(e['cards'][0])} moved to the top of the pile"),
    "mimic_under": EventKind("rule", (), "starting_mimic=redraw: a Mimic! taken at set-up goes under the pile",
                             lambda e: f"starting item #{e['cards'][0]} Mimic! goes under the pile"),
    "starting_item": EventKind("player", ("item",), "a starting item is taken from the top of the pile",
                               _starting_item),
    "decide": EventKind("player", ("choice", "open", "between"),
                        "the policy's decision at a decision point with more than one open action (a fight's, "
                        "or between fights): the choice and the open actions, each as draw, play #c, use #c, "
                        "use #c -> #t or stop (no log line)", lambda e: None),
    "monster": EventKind("monster", ("power", "trait", "chest"),
                         "a round begins: the top card of the pile is the monster fought (trait None without one)",
                         _monster),
    "mimic": EventKind("monster", ("power",), "a Mimic! taken as an item attacks and is fought (not a round)",
                       lambda e: f"Mimic! #{e['cards'][0]} attacks: monster {e['power']}"),
    "draw": EventKind("player", _ATTACK_FIELDS, "a weapon drawn from the pile " + _ATTACK_DOC, _attack),
    "play": EventKind("player", _ATTACK_FIELDS, "a Large Backpack weapon " + _ATTACK_DOC, _attack),
    "use": EventKind("player", ("item", "target", "between", "blocked", "packet"),
                     "an item is used (target: the Large Backpack's discard card or the weapon a Whetstone "
                     "goes on; blocked: the Shields' total this fight; packet: the cards a Big Turkey Dinner "
                     "put under the pile)", _use),
    "whetstone_capture": EventKind("rule", (), "a Whetstone on a weapon in play made the total the power",
                                   lambda e: "  → captured, no damage"),
    "stop": EventKind("player", (), "the player stops attacking (or nothing else is open)",
                      lambda e: f"  stop at {_fraction(e)}"),
    "block": EventKind("rule", ("gap", "blocked", "damage"), "Shields block part of the damage",
                       lambda e: f"  damage {e['gap']} - {e['blocked']} blocked = {e['damage']}"),
    "damage": EventKind("rule", ("damage",), "cards discarded from the pile as damage",
                        lambda e: f"  damage {e['damage']}: {cards_text(e['cards'])} discarded"
                                  f" → pile {e['state']['pile']}"),
    "capture": EventKind("rule", ("to",), "the soul is captured: the monster goes to the souls (or the "
                         "discard pile: a Mimic! with mimic_soul=False), items and weapons used to the discard",
                         lambda e: f"  soul captured → souls {e['state']['souls']} · discard {e['state']['discard']}"),
    "escape": EventKind("rule", (), "Smoke Bomb: the fight's cards are shuffled into the pile",
                        lambda e: f"  escaped: {cards_text(e['cards'])} shuffled into the pile"
                                  f" → pile {e['state']['pile']}"),
    "soul_lost": EventKind("rule", (), "bust=soul_lost: the fight ends without the soul",
                           lambda e: f"  soul lost → discard {e['state']['discard']}"),
    "final_monster": EventKind("rule", ("damage",), "the damage exceeds the cards left",
                               lambda e: f"  final monster: damage {e['damage']} > {e['state']['pile']} cards left"),
    "chest": EventKind("rule", ("source", "loot"), "the chest is opened: loot from the discard pile or the "
                       "draw pile (None when that pile is empty)", _chest),
    "win": EventKind("rule", ("end",), "the game ends with at least win_souls souls: end eight_souls (or, "
                     "with play_on_after_win or final_monster_captures, pile_empty / final_monster)", _end),
    "loss": EventKind("rule", ("end",), "the game ends with fewer souls: end pile_empty or final_monster", _end),
}


def log_lines(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The turn-log lines of ``events`` (no header)."""
    return render_lines(events, EVENTS)


def header(events: Sequence[Mapping[str, Any]]) -> str:
    """The log's first line, from the set-up event (seed, game, policy) and the last (end)."""
    setup, last = events[0], events[-1]
    return (f"Cursed!? · seed {setup['seed']} · game {setup['game_index']} · policy {setup['policy']}"
            f" · end: {last['end']}")


def text(events: Sequence[Mapping[str, Any]]) -> str:
    """The whole turn log of a replayed game: the header, then one line per event that has one."""
    return "\n".join((header(events), *log_lines(events)))
