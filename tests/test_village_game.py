"""The village game's record for the runner: registered, sides and their policies, the mode following
from the pairing, the board and cards named in every frame, a bad board file named by field and line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cursedsim
from cursedsim.errors import CursedsimError, PlayersError
from cursedsim.games import get_game, list_games
from cursedsim.games.village import mode_of_pairing
from cursedsim.games.village.board import DEFAULT_BOARD, board_of
from cursedsim.games.village.policy_specs import MONSTER_POLICIES, WIZARD_POLICIES

GAME = get_game("village") if "village" in list_games() else None


def test_village_is_registered_with_its_two_sides():
    assert "village" in list_games()
    assert GAME.side_names == ("wizard", "monster")
    assert GAME.default_policy_of("wizard") == "possessed" and GAME.default_policy_of("monster") == "rabid"
    assert GAME.win_column("wizard") == "wizard_won" and GAME.win_column("monster") == "monster_won"


@pytest.mark.parametrize("wizard,monster,mode", [
    ("possessed", "rabid", "automata"), ("planner", "rabid", "rabid_monster"), ("random", "rabid", "rabid_monster"),
    ("possessed", "glutton", "possessed_wizard"), ("planner", "glutton", "duel"), ("random", "random", "duel")])
def test_the_pairing_decides_the_mode(wizard, monster, mode):
    assert mode_of_pairing({"wizard": WIZARD_POLICIES[wizard], "monster": MONSTER_POLICIES[monster]}) == mode


def test_a_player_count_other_than_the_two_sides_says_how_the_mode_is_chosen():
    with pytest.raises(PlayersError, match=r"played by 2 players, got 0 .*--policy wizard=planner"):
        GAME.check_players(0)


def test_every_frame_names_the_reconstructed_board_and_the_cards():
    frame = cursedsim.simulate("village", 6, seed=3, progress=False)
    assert set(frame["board"]) == {board_of().label} and board_of().label.startswith("reconstructed")
    assert frame["cards"].nunique() == 1 and "@" in frame["cards"].iloc[0]
    assert (frame["mode"] == "automata").all()
    assert (frame["wizard_won"] == (frame["winner"] == "wizard")).all()
    assert (frame["monster_won"] == (frame["winner"] == "monster")).all()
    assert not (frame["wizard_won"] & frame["monster_won"]).any()


def test_a_board_file_is_played_and_named(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text(Path(DEFAULT_BOARD).read_text(encoding="utf-8").replace(
        'name = "reconstructed-village-v1"', 'name = "my-village"'), encoding="utf-8")
    frame = cursedsim.simulate("village", 4, seed=3, options={"board": str(mine)}, progress=False)
    assert frame["board"].iloc[0].startswith("my-village@")


def test_a_broken_board_file_names_the_field_and_line(tmp_path):
    text = Path(DEFAULT_BOARD).read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(re.sub(r"(number = 1, coins = )\d", r'\1"x"', text, count=1), encoding="utf-8")
    with pytest.raises(CursedsimError, match=r"bad\.toml, line \d+: .*field 'coins'"):
        cursedsim.simulate("village", 4, options={"board": str(bad)}, progress=False)


def test_the_cli_takes_a_board_and_names_a_broken_field(tmp_path, capsys):
    from cursedsim.cli import main
    text = Path(DEFAULT_BOARD).read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(re.sub(r"(number = 1, coins = )\d", r'\1"x"', text, count=1), encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "village", "--games", "4", "--board", str(bad), "--no-progress"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "field 'coins'" in err and "bad.toml, line" in err and len(err.strip().splitlines()) == 1


def test_list_shows_the_file_options_as_default_or_a_path(capsys):
    from cursedsim.cli import main
    main(["list", "village"])
    out = " ".join(capsys.readouterr().out.split())
    for name in ("board", "cards"):
        assert f"{name}: str, default default; valid: default, or the path of a TOML or JSON file" in out


@pytest.mark.parametrize("wizard,monster", [("possessed", "rabid"), ("planner", "rabid"), ("random", "rabid"),
                                            ("possessed", "glutton"), ("possessed", "random"),
                                            ("planner", "glutton"), ("random", "random")])
def test_every_pairing_is_played_by_the_kernel_as_the_reference_plays_it(wizard, monster):
    """The runner's chunks come from the kernel (no fallback), and they are the reference's games."""
    from cursedsim.games.village import controllers, kernel, mode_of_pairing, reference
    from cursedsim.games.village.cards import cards_of
    specs = {"wizard": WIZARD_POLICIES[wizard], "monster": MONSTER_POLICIES[monster]}
    mode = mode_of_pairing(specs)
    assert mode in kernel.KERNEL_MODES
    frame = cursedsim.simulate("village", 12, seed=9, policy={"wizard": wizard, "monster": monster}, progress=False)
    options = __import__("cursedsim.games.village.rules", fromlist=["RuleOptions"]).RuleOptions()
    ref = reference.play_chunk(9, 0, 12, options, mode=mode, controllers=controllers(specs, None))
    for column, values in ref.items():
        got = frame[column].to_numpy()
        if column in ("winner", "mode"):
            names = {"winner": ("wizard", "monster"), "mode": tuple(__import__(
                "cursedsim.games.village.rules", fromlist=["MODE_NAMES"]).MODE_NAMES)}[column]
            got = [names.index(v) if isinstance(v, str) else -1 for v in got]
        assert list(got) == list(values), column
    assert cards_of().label in set(frame["cards"])


#: The four modes by their pairings (0-player, Wizard player vs Rabid Monster, Monster player vs Possessed
#: Wizard, the duel), and options that reach Quiet Nights' -1 after an adjustment (O8) and a short Curse track.
MODE_PAIRINGS = [{"wizard": "possessed", "monster": "rabid"}, {"wizard": "planner", "monster": "rabid"},
                 {"wizard": "possessed", "monster": "glutton"}, {"wizard": "planner", "monster": "glutton"}]
SPLIT_OPTIONS = [{}, {"quiet_night_adjusts": True, "monster_curse_length": 6, "rabid_curse_length": 6}]


@pytest.mark.parametrize("options", SPLIT_OPTIONS, ids=("default", "short_curse"))
@pytest.mark.parametrize("pairing", MODE_PAIRINGS, ids=lambda p: f"{p['wizard']}-{p['monster']}")
def test_the_split_columns_add_up_to_what_the_tracks_moved(pairing, options):
    """curse_from_table + curse_from_cards == final Curse - its start space; cure_from_mix + cure_from_spells
    == final Cure, game by game (docs/rules/village.md, "Outcome columns"); lost coins are never negative."""
    from cursedsim.games.village import board as B
    from cursedsim.games.village import rules as R
    frame = cursedsim.simulate("village", 400, seed=31, policy=pairing, options=options, progress=False)
    mode = mode_of_pairing({"wizard": WIZARD_POLICIES[pairing["wizard"]],
                            "monster": MONSTER_POLICIES[pairing["monster"]]})
    opts = R.RuleOptions(**options)
    board = board_of("default")
    start = B.with_track_lengths(board, *opts.track_lengths(board)).sides(mode).curse_start
    curse = frame["curse"].to_numpy().astype(int)
    table, cards = frame["curse_from_table"].to_numpy(), frame["curse_from_cards"].to_numpy()
    assert (table + cards == curse - start).all()
    assert (frame["cure_from_mix"].astype(int) + frame["cure_from_spells"] == frame["cure"]).all()
    assert (frame["cure_from_mix"] >= 0).all() and (frame["cure_from_spells"] >= 0).all()
    assert (cards >= 0).all() and (frame["coins_lost_to_cap"] >= 0).all()   # no card lowers the Curse
    assert cards.sum() > 0 and table.sum() > 0
    if pairing["wizard"] == "possessed":                 # the automaton's Broth and Feast (cure_if_next)
        assert frame["cure_from_spells"].sum() > 0
