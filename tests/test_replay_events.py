"""Replay events (``replay(..., format=...)``, ``cursedsim replay --format json``): each replayed game's
events tell the row ``simulate`` played (counted from the events alone), follow their game's documented
vocabulary, and convert to JSON lines and frames without loss; the text log is rendered from them."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

import cursedsim
from cursedsim import events as ev
from cursedsim.errors import RunError
from cursedsim.games.cursed import reference as cursed_reference
from cursedsim.games.cursed import rules as cursed_rules
from cursedsim.games.cursed import turnlog as cursed_log
from cursedsim.games.cursed.reference_policies import ThresholdPolicy
from cursedsim.games.verflucht import reference as verflucht_reference
from cursedsim.games.verflucht import rules as verflucht_rules
from cursedsim.games.verflucht import turnlog as verflucht_log
from cursedsim.games.verflucht.reference_policies import AttackChoice, BaselinePolicy, forced_plan

from test_cli import assert_one_line_error
from test_cli import run as run_cli

ROOT = Path(__file__).resolve().parents[1]
VOCABULARY = {"verflucht": verflucht_log.EVENTS, "cursed": cursed_log.EVENTS}
TEXT = {"verflucht": verflucht_log.text, "cursed": cursed_log.text}


def count(events, *actions) -> int:
    return sum(event["action"] in actions for event in events)


def verflucht_outcome(events) -> dict:
    """The outcome columns of a Verflucht! game, read from its events alone."""
    last = events[-1]
    won = last["action"] == "win"
    return {"win": won, "end": last["end"], "turns": count(events, "draw"), "seals_used": count(events, "seal"),
            "attacks": count(events, "attack"),
            "score": sum(last["state"]["display"]) if won else verflucht_rules.LOST_SCORE}


def cursed_outcome(events) -> dict:
    """The outcome columns of a Cursed!? game, read from its events alone."""
    last = events[-1]
    used = Counter(event["item"] for event in events if event["action"] == "use")
    for event in events:
        if event["action"] in ("draw", "play"):
            used.update(cursed_rules.ITEM_SLUGS[cursed_rules.ITEM_OF_CARD[card]] for card in event["spent"])
            used["soul_crystal"] += event["result"] == "crystal_capture"
    used["mimic"] = count(events, "mimic")
    starts = [event["item"] for event in events if event["action"] == "starting_item"]
    attacks = [event for event in events if event["action"] in ("draw", "play")]
    return {"win": last["action"] == "win", "souls": last["state"]["souls"], "rounds": count(events, "monster"),
            "damage_taken": sum(event["damage"] for event in events if event["action"] == "damage"),
            "cards_left": last["state"]["pile"], "end": last["end"], "start_item": starts[0] if starts else None,
            "weapons_drawn": count(events, "draw"),
            "busts": sum(event["result"] in ("bust", "soul_lost") for event in attacks),
            **{f"used_{slug}": used[slug] for slug in cursed_rules.ITEM_SLUGS}}


def frame_row(frame: pd.DataFrame, index: int, columns) -> dict:
    row = frame.iloc[index]
    return {column: None if pd.isna(row[column]) else row[column] for column in columns}


# ---------------------------------------------------------------- the events tell the simulated game

VERFLUCHT_CELLS = [(1, "random", {}), (3, "baseline", {}), (5, "smart", {"seals": 8}),
                   (2, "baseline", {"seals": 0, "drawer_last_turn": False}), (4, "smart", {"voluntary_seal": False}),
                   (3, "baseline", {"partial_items_before_seal": True})]


@pytest.mark.parametrize("players, policy, options", VERFLUCHT_CELLS)
def test_verflucht_events_tell_the_row_simulate_played(players, policy, options):
    frame = cursedsim.simulate("verflucht", 40, players=players, policy=policy, options=options, seed=11,
                               n_jobs=1, progress=False)
    ends = Counter()
    for index in range(40):
        events = cursedsim.replay("verflucht", 11, index, players=players, policy=policy, options=options,
                                  format="events")
        expected = verflucht_outcome(events)
        assert frame_row(frame, index, expected) == expected, index
        assert events[-1]["turn"] == expected["turns"]
        if expected["win"]:
            assert events[-1]["score"] == expected["score"]
        ends[expected["end"]] += 1
    assert len(ends) >= 2 or policy == "random"   # the check saw wins and losses, or group and sixth


CURSED_CELLS = [("random", {}), ("threshold", {}), ("no_items", {"bust": "soul_lost"}),
                ("counting", {"chest_loot": "draw_pile"}),
                ("threshold", {"item_timing": "before_draw", "whetstone_in_play": True, "starting_item": "whetstone"}),
                ("threshold", {"starting_item": "large_backpack", "final_monster_captures": True}),
                ("counting", {"starting_item": "mimic", "starting_mimic": "redraw", "starting_items": 2}),
                ("threshold", {"starting_item": "smoke_bomb", "smoke_bomb_returns_items": True}),
                ("threshold", {"starting_item": "soul_crystal", "spear_kind": "choose", "dagger_value": "choose"}),
                ("threshold", {"starting_item": "bewitching_relic", "play_on_after_win": True, "win_souls": 5})]


@pytest.mark.parametrize("policy, options", CURSED_CELLS)
def test_cursed_events_tell_the_row_simulate_played(policy, options):
    frame = cursedsim.simulate("cursed", 60, policy=policy, options=options, seed=12, n_jobs=1, progress=False)
    for index in range(60):
        events = cursedsim.replay("cursed", 12, index, policy=policy, options=options, format="events")
        expected = cursed_outcome(events)
        assert frame_row(frame, index, expected) == expected, index
        assert events[-1]["turn"] == expected["rounds"]


def test_the_cells_above_meet_every_action_and_attack_result():
    """The agreement tests are only as good as the events they see: together they meet each action."""
    seen = Counter()
    for players, policy, options in VERFLUCHT_CELLS:
        for index in range(40):
            seen.update("verflucht." + e["action"] for e in cursedsim.replay(
                "verflucht", 11, index, players=players, policy=policy, options=options, format="events"))
    for policy, options in CURSED_CELLS:
        for index in range(60):
            for e in cursedsim.replay("cursed", 12, index, policy=policy, options=options, format="events"):
                seen["cursed." + e["action"]] += 1
                if e["action"] in ("draw", "play"):
                    seen["result." + e["result"]] += 1
    expected = {f"{game}.{action}" for game, kinds in VOCABULARY.items() for action in kinds}
    expected |= {"result." + result for result in cursed_log.ATTACK_RESULTS}
    assert expected - set(seen) <= {"cursed.whetstone_capture"}, expected - set(seen)


# ---------------------------------------------------------------- the vocabulary and the formats

def replays():
    """A few games of each game, with policies and options that reach most actions."""
    yield "verflucht", cursedsim.replay("verflucht", 4, 3, players=3, format="events")
    yield "verflucht", cursedsim.replay("verflucht", 4, 8, players=1, policy="smart", options={"seals": 8},
                                        format="events")
    yield "cursed", cursedsim.replay("cursed", 1, 136, format="events")
    yield "cursed", cursedsim.replay("cursed", 4, 2, options={"starting_item": "large_backpack"}, format="events")


def test_every_event_has_the_common_keys_its_actions_fields_and_the_state_in_order():
    for game, events in replays():
        state_keys = list(events[0]["state"])
        for seq, event in enumerate(events):
            kind = VOCABULARY[game][event["action"]]
            assert list(event) == [*ev.COMMON_KEYS, *kind.fields, "state"], event
            assert list(event["state"]) == state_keys and event["seq"] == seq
            assert event["actor"] == kind.actor or re.fullmatch(r"P[1-5]", event["actor"]) and kind.actor == "P1-P5"
        assert events[0]["action"] == "setup" and events[-1]["action"] in ("win", "loss")


def test_json_lines_parse_back_to_the_events():
    for game, events in replays():
        text = cursedsim.replay(game, events[0]["seed"], events[0]["game_index"], format="json",
                                players=events[0].get("players"), policy=events[0]["policy"],
                                options=events[0]["options"])
        lines = text.split("\n")
        assert len(lines) == len(events)
        assert [json.loads(line) for line in lines] == events
        assert all(set(ev.COMMON_KEYS) <= set(json.loads(line)) for line in lines)


def test_the_frame_holds_the_events_one_row_each():
    for game, events in replays():
        frame = cursedsim.replay(game, events[0]["seed"], events[0]["game_index"], format="frame",
                                 players=events[0].get("players"), policy=events[0]["policy"],
                                 options=events[0]["options"])
        assert list(frame.columns[:len(ev.COMMON_KEYS)]) == list(ev.COMMON_KEYS)
        assert list(frame.columns[-len(events[0]["state"]):]) == [f"state_{k}" for k in events[0]["state"]]
        assert len(frame) == len(events)
        for row, event in zip(frame.to_dict("records"), events):
            present = {k: v for k, v in row.items() if isinstance(v, (list, dict)) or not pd.isna(v)}
            assert present == {k: v for k, v in ev.flatten(event).items() if v is not None}
        assert str(frame["turn"].dtype) == "Int64" and str(frame["seq"].dtype) == "Int64"


def test_the_text_log_is_the_header_and_the_line_of_each_event():
    for game, events in replays():
        first = events[0]
        text = cursedsim.replay(game, first["seed"], first["game_index"], players=first.get("players"),
                                policy=first["policy"], options=first["options"])
        assert text == TEXT[game](events)
        lines = text.split("\n")
        assert lines[0].endswith(f"policy {first['policy']} · end: {events[-1]['end']}")
        shown = [event for event in events if VOCABULARY[game][event["action"]].render(event) is not None]
        assert len(lines) == 1 + len(shown) and count(events, "pass", "decide") == len(events) - len(shown)


def test_decisions_carry_what_was_open():
    """Each decision event says what the policy could do, and what it did is among it."""
    for game, events in replays():
        for before, event in zip(events, events[1:]):
            if event["action"] == "decide":
                assert event["choice"] in event["open"] and len(event["open"]) > 1
            if event["action"] == "answer":
                assert before["action"] == "attack"
                assert not event["seal"] or before["seal_allowed"]
                assert event["seal"] or before["can_banish_all"]
            if event["action"] == "banish":
                assert event["creature"] in event["could_banish"]


def test_a_users_python_policy_replays_with_events():
    """A Python policy registered by a user (reference engine) replays as events that tell its row."""
    from cursedsim.games.verflucht.policies import POLICIES
    from cursedsim.games.verflucht.user_policies import add_python_policy

    class SealFirst:
        label = "SealFirst"

        def attack(self, table, attackers, is_group, seal_allowed, rng):
            if seal_allowed:
                return AttackChoice(seal=True)
            return AttackChoice(seal=False, plan=forced_plan(table, attackers, is_group))

        def banish(self, table, player, last_turn, rng):
            return None

    add_python_policy("seal_first_events", lambda params: SealFirst(), doc="seals every attack it may")
    try:
        frame = cursedsim.simulate("verflucht", 12, players=2, policy="seal_first_events", seed=5, progress=False)
        for index in range(12):
            events = cursedsim.replay("verflucht", 5, index, players=2, policy="seal_first_events", format="events")
            assert events[0]["policy"] == "seal_first_events"
            assert count(events, "banish") == 0 and count(events, "pass") > 0
            expected = verflucht_outcome(events)
            assert frame_row(frame, index, expected) == expected
    finally:
        POLICIES.pop("seal_first_events")


def test_reference_functions_name_the_policy_they_are_given():
    events = verflucht_reference.replay_events(2, 0, 2, verflucht_rules.RuleOptions(), BaselinePolicy())
    assert events[0]["policy"] == "BaselinePolicy" and (events[0]["seed"], events[0]["game_index"]) == (2, 0)
    events = cursed_reference.replay_events(2, 0, cursed_rules.RuleOptions(), ThresholdPolicy(2), "mine")
    assert events[0]["policy"] == "mine" and cursed_log.header(events).startswith("Cursed!? · seed 2 · game 0")


def test_a_bad_format_names_the_valid_ones(coin):
    with pytest.raises(RunError, match="unknown replay format 'xml'; valid formats: text, json, events, frame"):
        cursedsim.replay("verflucht", 0, 0, format="xml")
    with pytest.raises(RunError, match="coin replays as text only"):
        cursedsim.replay("coin", 0, 0, format="json")
    assert cursedsim.replay("coin", 0, 0, format="text").startswith("coin game 0")


# ---------------------------------------------------------------- the documented vocabulary

@pytest.mark.parametrize("game", ["verflucht", "cursed"])
def test_the_rules_doc_lists_every_action_with_its_actor_and_fields(game):
    doc = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    section = doc[doc.index("## Replay events"):]
    rows = {}
    for line in section.splitlines()[1:]:
        if line.startswith("## "):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = (cells[1], tuple(re.findall(r"`(\w+)`", cells[2])))
    assert rows == {action: (kind.actor, kind.fields) for action, kind in VOCABULARY[game].items()}


# ---------------------------------------------------------------- the command line

def test_cli_replay_writes_json_lines_or_the_text_log(capsys):
    args = ["replay", "cursed", "--seed", "4", "--index", "2", "--option", "starting_item=large_backpack"]
    status, out, err = run_cli(capsys, *args, "--format", "json")
    assert status == 0, err
    events = cursedsim.replay("cursed", 4, 2, options={"starting_item": "large_backpack"}, format="events")
    assert [json.loads(line) for line in out.splitlines()] == events
    status, text, err = run_cli(capsys, *args)
    assert status == 0 and text.rstrip("\n") == cursed_log.text(events)
    assert run_cli(capsys, *args, "--format", "text")[1] == text
    status, out, err = run_cli(capsys, "replay", "verflucht", "--seed", "0", "--index", "17", "--players", "3",
                               "--policy", "smart", "--param", "slack=3", "--format", "json")
    assert status == 0 and json.loads(out.splitlines()[0])["policy"] == "smart"
    assert out.splitlines() == cursedsim.replay("verflucht", 0, 17, players=3, policy="smart", params={"slack": 3},
                                                format="json").splitlines()


def test_cli_replay_refuses_a_bad_format_naming_the_valid_ones(capsys):
    status, out, err = run_cli(capsys, "replay", "cursed", "--seed", "1", "--index", "0", "--format", "xml")
    assert_one_line_error(status, out, err, "'xml'", "'text', 'json'")
