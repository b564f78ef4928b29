"""The automata on points found by the kernel's differential work (docs/rules/village.md V12, V2.5, O12,
O28): a win stops the turn at once (no meal after a Curse won at a sheep), the Rabid Monster of
``possessed_cards`` hunts the villagers of the cards the Possessed Wizard used, blank cards are played as
nothing, and Hypnotize draws no villager when every house is occupied."""

from __future__ import annotations

import pytest

from cursedsim.games.village import automata as A
from cursedsim.games.village import cards as K
from cursedsim.games.village import components as C
from cursedsim.games.village import reference as V
from cursedsim.games.village import rules as R

CARDS = {card.id: card for card in K.load_cards().cards}


def winning_index(t: V.Table) -> int | None:
    """The index of the first event whose state shows a track at its top."""
    for k, e in enumerate(t.events):
        s = e.get("state") or {}
        if s.get("curse", 0) >= t.curse_top or s.get("cure", 0) >= len(t.cure_seq):
            return k
    return None


@pytest.mark.parametrize("options", [{}, {"rabid_stop_count": "slots"}, {"automata_targets": "rabid_cards"}])
def test_nothing_happens_after_a_track_reaches_its_top(options):
    opts = R.RuleOptions(**options)
    checked = 0
    for index in range(150):
        t = V.play(11, index, opts, log=True)
        k = winning_index(t)
        if k is None:
            continue
        checked += 1
        tail = [e["action"] for e in t.events[k:]]
        assert tail in (["end"], [tail[0], "end"]), (index, tail)   # the event that won, if it is logged after
    assert checked >= 100


def test_the_game_the_kernel_found_ends_at_the_sheep():
    """Found on the listed cards alone, the board file's track lengths and the Rabid Monster cards' targets
    (the defaults before issue 26)."""
    t = V.play(11, 8, R.RuleOptions(unlisted_cards="omit", track_calibration="board", automata_targets="rabid_cards"),
               log=True)
    eats = [e for e in t.events if e["action"] == "eat"]
    assert t.winner == R.SIDES.index(R.MONSTER) and eats[-1]["kind"] == "Sheep"


def test_possessed_cards_hunts_the_villagers_of_the_cards_the_wizard_used():
    opts = R.RuleOptions(automata_targets="possessed_cards")
    hunted = 0
    for index in range(40):
        t = V.play(3, index, opts, log=True)
        for e in t.events:
            if e["action"] == "targets":
                hunted += bool(e["hunted"])
    assert hunted > 40


def test_blank_cards_are_played_as_nothing():
    opts = R.RuleOptions(unlisted_cards="blank")
    skips = 0
    for index in range(60):
        t = V.play(5, index, opts, log=True)
        skips += sum(1 for e in t.events if e["action"] == "skip" and "shows no" in e["reason"])
    assert skips > 0


def test_hypnotize_draws_no_villager_when_every_house_is_occupied():
    t = V.Table.deal(2, 0)
    assert all(t.houses[n] != V.EMPTY for n in range(1, C.HOUSES + 1))
    probe = t.clone()
    result = A.apply_spell(t, CARDS["S09"], "place_villager")
    assert "every house occupied" in result
    assert t.bag == probe.bag
    assert t.streams[V.STREAM_BAG].below(1000) == probe.streams[V.STREAM_BAG].below(1000)
    assert t.streams[V.STREAM_D20].below(1000) == probe.streams[V.STREAM_D20].below(1000)
