"""The kernel's Monster player (kernel_monster.py) against the reference engine (monster_player.py,
monster_policies.py) in ``possessed_wizard``: game by game, every outcome column equal, over the default
board and two generated boards, both policies (random, glutton with default and other parameters) and the
options that change the Monster player's or the Possessed Wizard's play."""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim.games.village import board as B
from cursedsim.games.village import kernel
from cursedsim.games.village import monster_policies as MP
from cursedsim.games.village import reference
from cursedsim.games.village import rules as R
from cursedsim.games.village import state as S

MODE = R.POSSESSED_WIZARD
POLICY_ID = {"random": S.POLICY_RANDOM, "glutton": 2}
DEFAULTS = {name: [row[1] for row in rows] for name, rows in MP.PARAMS.items()}
#: Glutton away from its defaults: Quiet Nights early, no match bonus, distance heavy, Panic spent late,
#: no movement bought.
GLUTTON_OTHER = [4.0, 0.0, 3.0, 9.0, 0.0, 0.0]
GLUTTON_BUYER = [10.9, 15.0, 0.0, 2.0, 4.0, 1.0]

OPTIONS_A = dict(night_arrival_chooser="monster", panic_threshold="above_level", unmatched_meal="no_change",
                 quiet_night_adjusts=True, full_stomach="stop", start_location_visited=False,
                 guard_movement_loss="carry_over")
OPTIONS_PW = dict(pw_next_ingredient="next_only", pw_mix_counts="matching", pw_full_unmatched="mix_cure",
                  pw_steal_amount="best_expectation", pw_adjacent_steal_skip="as_printed",
                  pw_buy_adjacent="any_district", pw_distance="crossings", pw_unpaid_crossing="move_anyway",
                  pw_card_count="at_turn")
OPTIONS_DECKS = dict(unlisted_cards="copies", spell_deck_size=12, power_deck_size=14, possessed_deck_size=10,
                     night_arrival_chooser="monster", max_turns=120)
OPTIONS_BLANK = dict(unlisted_cards="blank", guard_movement_loss="carry_over", full_stomach="stop")
#: The decks before issue 26 (listed cards only, no Power requirement, no printed Possessed Wizard counts);
#: the per-side track lengths (O35-O38).
OPTIONS_OLD_DECKS = dict(unlisted_cards="omit", power_requirements="none", pw_unlisted_actions="none")
OPTIONS_TRACKS = dict(possessed_cure_length=20, monster_curse_length=8, pw_unlisted_actions="none")

_BOARDS: dict = {}


def board(which):
    if which not in _BOARDS:
        _BOARDS[which] = B.board_of("default") if which == "default" else B.generate(which)
    return _BOARDS[which]


def compare(seed, count, options, which, policy, params):
    options = R.RuleOptions(**options)
    b = board(which)
    got = kernel.run_chunk(seed, 0, count, options, b, MODE, S.POLICY_AUTOMATON, None, POLICY_ID[policy],
                           np.array(params, np.float64))
    want = reference.play_chunk(seed, 0, count, options, board=b, mode=MODE,
                                controllers={R.MONSTER: MP.make(policy, params)})
    for column in R.OUTCOME_COLUMNS:
        bad = np.nonzero(got[column] != want[column])[0]
        assert bad.size == 0, (f"{column} differs in {bad.size} of {count} games (seed {seed}, board {which}, "
                               f"{policy} {params}, {options}); first at index {bad[0]}: kernel "
                               f"{got[column][bad[0]]}, reference {want[column][bad[0]]}")
    return want


#: (seed, games, options, board, policy, params): >= 1,000 games unmarked ...
FAST = [
    (11, 300, {}, "default", "random", DEFAULTS["random"]),
    (12, 250, {}, "default", "glutton", DEFAULTS["glutton"]),
    (13, 200, OPTIONS_A, 3, "random", DEFAULTS["random"]),
    (14, 150, OPTIONS_PW, 5, "glutton", GLUTTON_OTHER),
    (15, 150, OPTIONS_DECKS, "default", "glutton", GLUTTON_BUYER),
    (16, 120, OPTIONS_OLD_DECKS, "default", "glutton", DEFAULTS["glutton"]),
    (17, 120, OPTIONS_TRACKS, 3, "glutton", DEFAULTS["glutton"]),
    (18, 120, OPTIONS_BLANK, "default", "glutton", DEFAULTS["glutton"]),
]
#: ... and >= 5,000 with the slow ones.
SLOW = [
    (21, 800, {}, "default", "random", DEFAULTS["random"]),
    (22, 500, {}, 3, "random", DEFAULTS["random"]),
    (23, 500, OPTIONS_PW, 5, "random", DEFAULTS["random"]),
    (24, 400, OPTIONS_DECKS, 3, "random", DEFAULTS["random"]),
    (25, 300, OPTIONS_BLANK, 5, "random", DEFAULTS["random"]),
    (26, 500, {}, "default", "glutton", DEFAULTS["glutton"]),
    (27, 400, OPTIONS_A, 3, "glutton", DEFAULTS["glutton"]),
    (28, 400, {}, 5, "glutton", GLUTTON_BUYER),
    (29, 300, OPTIONS_A, "default", "glutton", GLUTTON_OTHER),
    (30, 250, OPTIONS_BLANK, "default", "glutton", DEFAULTS["glutton"]),
]


@pytest.mark.parametrize("seed,count,options,which,policy,params", FAST)
def test_kernel_matches_reference(seed, count, options, which, policy, params):
    want = compare(seed, count, options, which, policy, params)
    assert (want["mode"] == R.MODE_NAMES.index(MODE)).all()


@pytest.mark.slow
@pytest.mark.parametrize("seed,count,options,which,policy,params", SLOW)
def test_kernel_matches_reference_more(seed, count, options, which, policy, params):
    compare(seed, count, options, which, policy, params)


def test_blocks_reach_both_ends_and_quiet_nights():
    """The games compared are not all alike: the Wizard beats the random Monster and Glutton beats the
    Wizard, and the Monster takes Quiet Nights and eats sheep (else a differential test would pass over half
    the rules)."""
    random = compare(41, 100, {}, "default", "random", DEFAULTS["random"])
    glutton = compare(42, 100, {}, "default", "glutton", DEFAULTS["glutton"])
    assert (random["winner"] == 0).any() and (glutton["winner"] == 1).any()
    assert random["quiet_nights"].sum() > 0 and glutton["quiet_nights"].sum() > 0
    assert random["eaten_sheep"].sum() > 0


class Counting:
    """A Monster controller that plays ``inner`` and counts the situations of the Monster readings M3 and
    M10: a movement on sale while a road can be taken (a Hydrophobia bridge), A Taste of Rural Life played
    on a Quiet Night, a single-use card waiting at a Quiet Night's free card."""

    def __init__(self, inner):
        self.inner = inner
        self.seen = {"buy_with_a_road": 0, "night_meal": 0, "night_waiting": 0}

    def act(self, t, side, decision, legal, stream):
        from cursedsim.games.village import monster_player as P
        code = self.inner.act(t, side, decision, legal, stream)
        if decision == P.DECIDE_MOVE and P.BUY_MOVEMENT in legal and any(c >= P.MOVE for c in legal):
            self.seen["buy_with_a_road"] += 1
        if decision == P.DECIDE_NIGHT_POWER:
            self.seen["night_waiting"] += P.single_use_card(t) is not None
            self.seen["night_meal"] += bool(code) and t.power_hand[code - 1].effect == "eat_rolled_houses"
        return code


@pytest.mark.parametrize("seed,count,options,policy,params", [
    (51, 200, dict(OPTIONS_DECKS, power_requirements="none", track_calibration="board"), "random",
     DEFAULTS["random"]),   # as found
    (52, 150, {}, "glutton", GLUTTON_BUYER),
])
def test_hydrophobia_buys_and_quiet_night_meals_and_waiting_cards(seed, count, options, policy, params):
    """M3 and M10 in games that reach them (counted on the reference's side): the kernel plays them alike."""
    options = R.RuleOptions(**options)
    b = board("default")
    spy = Counting(MP.make(policy, params))
    want = reference.play_chunk(seed, 0, count, options, board=b, mode=MODE, controllers={R.MONSTER: spy})
    got = kernel.run_chunk(seed, 0, count, options, b, MODE, S.POLICY_AUTOMATON, None, POLICY_ID[policy],
                           np.array(params, np.float64))
    for column in R.OUTCOME_COLUMNS:
        bad = np.nonzero(got[column] != want[column])[0]
        assert bad.size == 0, (column, seed, int(bad[0]), got[column][bad[0]], want[column][bad[0]])
    if policy == "random":
        assert min(spy.seen.values()) > 0, spy.seen


def test_run_chunk_none_params_are_the_policy_defaults():
    """kernel.run_chunk: parameters None play the policy's defaults (policy_specs), not zeros."""
    options = R.RuleOptions()
    b = board("default")
    none = kernel.run_chunk(61, 0, 40, options, b, MODE, S.POLICY_AUTOMATON, None, POLICY_ID["glutton"], None)
    given = kernel.run_chunk(61, 0, 40, options, b, MODE, S.POLICY_AUTOMATON, None, POLICY_ID["glutton"],
                             np.array(DEFAULTS["glutton"], np.float64))
    zeros = kernel.run_chunk(61, 0, 40, options, b, MODE, S.POLICY_AUTOMATON, None, POLICY_ID["glutton"],
                             np.zeros(len(DEFAULTS["glutton"]), np.float64))
    for column in R.OUTCOME_COLUMNS:
        assert (none[column] == given[column]).all(), column
    assert any((zeros[column] != given[column]).any() for column in R.OUTCOME_COLUMNS)
    assert kernel.default_params(1, POLICY_ID["glutton"]) == DEFAULTS["glutton"]
    assert kernel.default_params(1, S.POLICY_RANDOM) is None and kernel.default_params(0, 0) is None


@pytest.mark.parametrize("location", ["house 20", "house"])
def test_a_card_with_an_unpacked_location_requirement_is_refused(tmp_path, location):
    """state.pack_cards keeps a location kind: a cards file whose card requires another location (the
    reference reads an id such as "house 20") is refused at packing with the card named, not played
    differently."""
    from cursedsim.games.village import cards as K
    text = K.DEFAULT_CARDS.read_text(encoding="utf-8")
    i = text.index('id = "P10"')
    j = text.index('need_location = ""', i)
    path = tmp_path / "cards.toml"
    path.write_text(text[:j] + f'need_location = "{location}"' + text[j + len('need_location = ""'):],
                    encoding="utf-8")
    cards = K.load_cards(path)
    with pytest.raises(ValueError, match=r"P10.*supported: 'laboratory', 'market'"):
        S.pack_cards(cards, MODE)
    with pytest.raises(ValueError, match="P10"):
        kernel.run_chunk(1, 0, 1, R.RuleOptions(cards=str(path)), board("default"), MODE, S.POLICY_AUTOMATON,
                         None, POLICY_ID["random"], None)
    assert S.pack_cards(K.load_cards(), MODE)[0].shape[1] > 0     # the default cards pack
