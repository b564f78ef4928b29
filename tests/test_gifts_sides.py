"""Cursed Gifts through the runner and the command line: seats as sides (``focus`` and ``field``, a bare
policy name at every seat), the focus seat rotating or fixed, the ``deck`` column naming the deck
played, ``--deck FILE`` with its errors, and the table of every seat's win rate."""

from __future__ import annotations

import csv
import os
import re

import numpy as np
import pytest

import cursedsim
from cursedsim.errors import OptionError, UnknownPolicyError
from cursedsim.games.gifts.deck import DEFAULT_DECK, load_deck
from cursedsim.games.gifts.rules import decode_elimination_order

from test_cli import assert_one_line_error, run

PAIRING = {"focus": "defensive", "field": "random"}


def outcome(frame):
    """The frame without its policy label columns (names differ between equal runs)."""
    return frame.drop(columns=[c for c in frame.columns if c == "policy" or c.startswith("policy_")])


def test_a_single_name_plays_every_seat():
    bare = cursedsim.simulate("gifts", 300, policy="leader", seed=3, progress=False)
    both = cursedsim.simulate("gifts", 300, policy={"focus": "leader", "field": "leader"}, seed=3, progress=False)
    assert outcome(bare).equals(outcome(both))
    assert set(bare["policy_focus"]) == set(bare["policy_field"]) == {"leader"}
    other = cursedsim.simulate("gifts", 300, policy="random", seed=3, progress=False)
    assert not outcome(other).equals(outcome(bare))   # the name reaches the kernel: the check can fail


def test_the_focus_rotates_and_the_side_columns_agree_with_the_winner():
    frame = cursedsim.simulate("gifts", 400, players=4, policy=PAIRING, seed=7, progress=False)
    assert (frame["focus_seat"] == frame["game_index"] % 4).all()
    finished = ~frame["unfinished"]
    assert (frame["focus_won"] == (finished & (frame["winner_seat"] == frame["focus_seat"]))).all()
    assert (frame["field_won"] == (finished & (frame["winner_seat"] >= 0)
                                   & (frame["winner_seat"] != frame["focus_seat"]))).all()
    assert (frame["focus_won"].astype(int) + frame["field_won"] + frame["unfinished"] == 1).all()
    assert 0 < frame["focus_won"].sum() < len(frame)


def test_a_fixed_focus_seat_keeps_the_deals_so_seats_are_paired():
    """With one policy everywhere, moving the focus changes only which seat is called the focus: the
    games (winners, lengths) are the same game by game."""
    rotate = cursedsim.simulate("gifts", 300, players=3, policy="leader", seed=11, progress=False)
    fixed = cursedsim.simulate("gifts", 300, players=3, policy="leader", seed=11, progress=False,
                               options={"focus_seat": "2"})
    assert (fixed["focus_seat"] == 2).all()
    for column in ("winner_seat", "turns", "elimination_order", "played_gift"):
        assert (rotate[column].to_numpy() == fixed[column].to_numpy()).all(), column
    assert (fixed["focus_won"] == (fixed["winner_seat"] == 2)).all()


def test_a_focus_seat_beyond_the_table_names_the_valid_seats():
    with pytest.raises(OptionError, match="0-2 at 3 players"):
        cursedsim.simulate("gifts", 10, players=3, options={"focus_seat": "3"}, progress=False)
    with pytest.raises(OptionError, match="rotate, 0, 1"):
        cursedsim.simulate("gifts", 10, options={"focus_seat": "left"}, progress=False)


def test_the_deck_column_names_the_deck_played(tmp_path):
    default = load_deck()
    frame = cursedsim.simulate("gifts", 50, seed=1, progress=False)
    assert set(frame["deck"]) == {default.label} and default.label.startswith("reconstructed-base-v1@")
    changed = tmp_path / "mine.toml"
    changed.write_text(DEFAULT_DECK.read_text(encoding="utf-8").replace("count = 8 ", "count = 9 ", 1),
                       encoding="utf-8")
    mine = cursedsim.simulate("gifts", 50, seed=1, options={"deck": str(changed)}, progress=False)
    assert set(mine["deck"]) == {load_deck(changed).label} != {default.label}
    assert not (mine["turns"].to_numpy() == frame["turns"].to_numpy()).all()
    without = cursedsim.simulate("gifts", 50, seed=1, options={"without_card": "Gracula"}, progress=False)
    (label,) = set(without["deck"])
    assert label == default.without("Gracula").label and "-without-Gracula@" in label
    with pytest.raises(OptionError, match="its kinds: Cursed Gift 1"):
        cursedsim.simulate("gifts", 10, options={"without_card": "Gracul"}, progress=False)


def test_policy_names_and_sides_are_checked():
    with pytest.raises(UnknownPolicyError, match="valid policies of focus: random, leader"):
        cursedsim.simulate("gifts", 10, policy={"focus": "nobody"}, progress=False)
    with pytest.raises(UnknownPolicyError, match="valid sides: focus, field"):
        cursedsim.simulate("gifts", 10, policy={"seat0": "leader"}, progress=False)


def test_replay_plays_the_row_the_kernel_played():
    frame = cursedsim.simulate("gifts", 12, players=4, policy=PAIRING, seed=5, progress=False)
    for index in (0, 5, 11):
        log = cursedsim.replay("gifts", 5, index, players=4, policy=PAIRING)
        header = log.splitlines()[0]
        seats = header.split("policies ")[1].split(" · ")[0].split(", ")
        assert seats[int(frame["focus_seat"][index])] == "defensive" and seats.count("random") == 3
        assert header.endswith(f"won by seat {int(frame['winner_seat'][index])}")
        order = decode_elimination_order(int(frame["elimination_order"][index]))
        assert log.splitlines()[-1].endswith(f"game over: seat {int(frame['winner_seat'][index])} wins; eliminated "
                                             f"in order: seats {', '.join(map(str, order))}")
        assert len(order) == 3


# ---------------------------------------------------------------- command line

def test_simulate_prints_every_seats_win_rate_with_intervals(capsys, tmp_path):
    out_dir = tmp_path / "run"
    status, out, err = run(capsys, "simulate", "gifts", "--players", "2-3", "--games", "3000", "--seed", "4",
                           "--no-progress", "--out", str(out_dir))
    assert status == 0, err
    assert "Win rate by seat" in out and "vs fair share" in out
    with open(os.path.join(out_dir, "seats.csv"), newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(int(r["players"]), int(r["seat"])) for r in rows] == [(2, 0), (2, 1), (3, 0), (3, 1), (3, 2)]
    for players in (2, 3):
        frame = cursedsim.simulate("gifts", 3000, players=players, seed=4, progress=False)
        mine = [r for r in rows if int(r["players"]) == players]
        assert [int(r["wins"]) for r in mine] == [int((frame["winner_seat"] == s).sum()) for s in range(players)]
        for r in mine:
            rate, low, high = float(r["win_rate"]), float(r["ci_low"]), float(r["ci_high"])
            assert low < rate < high
            cell = f"{100 * rate:.2f} [{100 * low:.2f}, {100 * high:.2f}]"
            assert any(cell in line and f" {r['seat']} " in line for line in out.splitlines()), cell
        assert np.isclose(sum(float(r["excess"]) for r in mine), -frame["unfinished"].mean())


def test_a_broken_deck_file_names_the_field_and_line(capsys, tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text(DEFAULT_DECK.read_text(encoding="utf-8").replace('effect = "mugging"', 'effect = "muging"'),
                      encoding="utf-8")
    assert_one_line_error(*run(capsys, "simulate", "gifts", "--deck", str(broken), "--games", "10", "--no-progress"),
                          "broken.toml, line", "field 'effect'", "unknown effect 'muging'", "known effects: gift")
    assert_one_line_error(*run(capsys, "simulate", "gifts", "--deck", str(tmp_path / "none.toml"), "--games", "10",
                               "--no-progress"), "cannot read deck file")
    assert_one_line_error(*run(capsys, "simulate", "covens", "--deck", str(broken), "--games", "10",
                               "--no-progress"), "covens has no 'deck' option", "valid options: rituals")


def test_bare_and_side_policies_on_the_command_line(capsys):
    status, out, err = run(capsys, "simulate", "gifts", "--policy", "leader", "--policy", "random", "--games", "200",
                           "--no-progress")
    assert status == 0, err
    assert sum(1 for line in out.splitlines() if "leader" in line and line.count("leader") == 2) >= 1
    status, out, err = run(capsys, "simulate", "gifts", "--policy", "leader:heal_at=3", "--games", "200",
                           "--no-progress")
    assert status == 0, err
    assert any(line.count("leader:heal_at=3") == 2 for line in out.splitlines())
    assert_one_line_error(*run(capsys, "simulate", "gifts", "--policy", "leader", "--policy", "field=random",
                               "--games", "10", "--no-progress"), "either bare policies", "or SIDE=POLICY")
    assert_one_line_error(*run(capsys, "compare", "gifts", "--policy", "leader", "--policy", "random",
                               "--games", "10", "--no-progress"), "give --policy SIDE=POLICY", "focus, field")


def test_a_focus_seat_given_as_a_number_names_the_choices():
    with pytest.raises(OptionError, match=r"takes a string \(one of rotate, 0, 1, 2, 3, 4, 5\), got 2"):
        cursedsim.simulate("gifts", 10, options={"focus_seat": 2}, progress=False)


def test_a_run_directory_never_resumes_with_a_rewritten_deck_file(tmp_path):
    """The deck file's digest is part of the run's identity, and a rewritten file is read again."""
    from cursedsim.errors import RunError
    deck = tmp_path / "deck.toml"
    deck.write_text(DEFAULT_DECK.read_text(encoding="utf-8"), encoding="utf-8")
    first = cursedsim.simulate("gifts", 100, options={"deck": str(deck)}, out=str(tmp_path / "run"), progress=False)
    again = cursedsim.simulate("gifts", 100, options={"deck": str(deck)}, out=str(tmp_path / "run"), progress=False)
    assert again.equals(first)   # the same file resumes
    deck.write_text(DEFAULT_DECK.read_text(encoding="utf-8").replace("count = 8 ", "count = 9 ", 1), encoding="utf-8")
    old, new = load_deck().label, load_deck(deck).label
    assert old != new
    with pytest.raises(RunError, match=f"identity.deck is '{re.escape(old)}' there but '{re.escape(new)}' now"):
        cursedsim.simulate("gifts", 100, options={"deck": str(deck)}, out=str(tmp_path / "run"), progress=False)
    fresh = cursedsim.simulate("gifts", 100, options={"deck": str(deck)}, progress=False)
    assert set(fresh["deck"]) == {load_deck(deck).label} != set(first["deck"])
