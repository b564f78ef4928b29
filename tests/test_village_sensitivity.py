"""The village report's sensitivity table (figure 7) plays each variation only in the modes it reaches
(cursedsim/report/village/sensitivity.py): here every variation is played in every other mode and must
change no game there, and every rule option is either varied or left out on purpose."""

from __future__ import annotations

import pandas as pd
import pytest

import cursedsim
from cursedsim.games.village import rules
from cursedsim.games.village.board import board_of
from cursedsim.games.village.policy_specs import MODE_PAIRINGS
from cursedsim.report.village import sensitivity

GAMES = 60
SEED = 7


def _play(mode: str, options: dict | None = None) -> pd.DataFrame:
    frame = cursedsim.simulate("village", GAMES, policy=dict(MODE_PAIRINGS[mode]), seed=SEED, progress=False,
                               n_jobs=1, options=options or None)
    return frame[list(rules.FRAME_OUTCOME_COLUMNS)].reset_index(drop=True)


@pytest.fixture(scope="module")
def defaults() -> dict[str, pd.DataFrame]:
    return {mode: _play(mode) for mode in rules.MODE_NAMES}


VARIATIONS = sensitivity.variations(sensitivity.played_lengths(board_of()))
UNREACHED = [(v, mode) for v in VARIATIONS for mode in rules.MODE_NAMES if mode not in v.modes]


def test_every_option_is_varied_or_left_out_on_purpose():
    sensitivity.check_covered()
    varied = {name for v in VARIATIONS for name in v.options}
    assert varied | set(sensitivity.NOT_VARIED) == set(rules.OPTION_NAMES)


def test_lengths_move_the_calibrated_ones_by_two():
    lengths = sensitivity.played_lengths(board_of())
    cure, curse = rules.RuleOptions().track_lengths(board_of())
    assert lengths == {"wizard_cure_length": cure["wizard"], "possessed_cure_length": cure["possessed"],
                       "monster_curse_length": curse["monster"], "rabid_curse_length": curse["rabid"]}
    moved = {(name, value) for v in VARIATIONS if v.group == "track length" for name, value in v.options.items()}
    assert moved == {(name, length + d) for name, length in lengths.items() for d in (-2, 2)}


@pytest.mark.parametrize("variation,mode", UNREACHED, ids=[f"{v.key}-{mode}" for v, mode in UNREACHED])
def test_a_variation_changes_no_game_of_a_mode_it_does_not_reach(variation, mode, defaults):
    pd.testing.assert_frame_equal(_play(mode, dict(variation.options)), defaults[mode])


def test_a_row_pairs_the_games_and_says_when_none_changed(defaults):
    """The row of a variation: the paired difference of the Wizard's wins, and games_changed 0 exactly when
    no game differs (the table then says "no game changed" rather than a zero effect)."""
    base = defaults[rules.RABID_MONSTER].assign(game_index=range(GAMES))
    variation = next(v for v in VARIATIONS if v.key == "rabid_curse_length=19")
    same = sensitivity.row(base, base, variation, rules.RABID_MONSTER, "planner", "rabid")
    assert same["diff"] == 0 and same["games_changed"] == 0 and same["winner_changed"] == 0
    longer = _play(rules.RABID_MONSTER, dict(variation.options)).assign(game_index=range(GAMES))
    moved = sensitivity.row(longer, base, variation, rules.RABID_MONSTER, "planner", "rabid")
    wins = longer["wizard_won"].to_numpy(float) - base["wizard_won"].to_numpy(float)
    assert moved["diff"] == pytest.approx(wins.mean()) and moved["games_changed"] > 0
    assert moved["diff"] > 0   # a longer Curse track gives the Wizard more time (here: more wins on these games)
    with pytest.raises(Exception, match="not the same games"):
        sensitivity.row(longer.iloc[1:], base, variation, rules.RABID_MONSTER, "planner", "rabid")
