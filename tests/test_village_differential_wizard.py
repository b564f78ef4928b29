"""So, You've Been Cursed.: the numba kernel equals the reference engine game by game on every outcome
column (and its dtype) in ``rabid_monster`` (the Wizard player, policies ``random`` and ``planner``, against
the Rabid Monster), on the default board and two generated boards, with every option value that matters to
the mode in some block, the padded decks, non-default planner parameters, and all non-default values at once.

~7,900 games compared, ~4,900 of them in the quick run (about a minute on a busy 2-core machine once the
kernel is compiled; the slow block adds ~40 s); the compile, both players' modules included, takes minutes
on an empty cache.
"""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim.games.village import board as B
from cursedsim.games.village import kernel as KN
from cursedsim.games.village import reference as REF
from cursedsim.games.village import rules as R
from cursedsim.games.village import wizard_policies as WPOL

SEED = 20261203
BOARDS = {"default": lambda: B.board_of("default"), "generated 1": lambda: B.generate(1),
          "generated 2": lambda: B.generate(2)}
POLICIES = {"random": 1, "planner": 2}
DEFAULTS = {name: [row[1] for row in rows] for name, rows in WPOL.PARAMS.items()}
#: One block per option value the mode reads: the Wizard player's (O3, O5, O16, O17), the shared ones (O1,
#: O6) and the Rabid Monster's (O9, O13-O15); the Possessed Wizard's and the Monster player's are unread.
VARIANTS = [
    {"max_turns": 12}, {"panic_threshold": "above_level"}, {"full_stomach": "stop"},
    {"rabid_path": "stop_at_villagers"}, {"rabid_stop_count": "slots"}, {"rabid_pasture": "most_sheep"},
    {"wizard_move_alone": True}, {"plethora_at_market": False}, {"rabid_spent_actions": "free"},
    {"rabid_spent_actions": "discard_card"}, {"rabid_spent_actions": "discard_card", "wizard_move_alone": True},
    {"rabid_get_busy": "ignored"}, {"unlisted_cards": "blank"}, {"unlisted_cards": "copies"},
    {"unlisted_cards": "copies", "spell_deck_size": 30, "power_deck_size": 40, "rabid_deck_size": 20},
    {"unlisted_cards": "blank", "spell_deck_size": 20, "power_deck_size": 12, "rabid_deck_size": 16},
    {"unlisted_cards": "omit"}, {"unlisted_cards": "placeholder", "rabid_deck_size": 8},
    {"wizard_cure_length": 5, "rabid_curse_length": 24}, {"wizard_cure_length": 30, "rabid_curse_length": 3},
]
ALL_OTHER = {"panic_threshold": "above_level", "full_stomach": "stop", "rabid_path": "stop_at_villagers",
             "rabid_stop_count": "slots", "rabid_pasture": "most_sheep", "wizard_move_alone": True,
             "plethora_at_market": False, "rabid_spent_actions": "free", "rabid_get_busy": "ignored",
             "unlisted_cards": "copies"}
#: Non-default planner vectors: every parameter moved (eager caster, hoarder of coins, distracting thief).
PLANNER_PARAMS = [[1.0, 8.0, 3.0, 1.0, 1.0, 0.0, 5.0, 12.0, 0.0, 0.0], [9.0, 1.0, 0.0, 4.0, 3.0, 40.0, 0.0, 6.0, 1.0, 1.0],
                  [4.0, 4.0, 0.0, 3.0, 2.0, 10.0, 20.0, 0.0, 1.0, 0.0]]


@pytest.fixture(scope="module")
def boards():
    return {name: make() for name, make in BOARDS.items()}


def compare(seed, start, count, options, board, policy, params=None):
    """Kernel and reference outcomes of the same games; every column equal, dtypes too."""
    if params is None:
        params = DEFAULTS[policy]
    k = KN.run_chunk(seed, start, count, options, board, R.RABID_MONSTER, POLICIES[policy], params or None, 0, None)
    r = REF.play_chunk(seed, start, count, options, board=board, mode=R.RABID_MONSTER,
                       controllers={R.WIZARD: WPOL.make(policy, params)})
    assert tuple(k) == R.OUTCOME_COLUMNS
    for column, dtype in R.OUTCOME_DTYPES.items():
        assert k[column].dtype == np.dtype(dtype) == r[column].dtype, column
        diff = np.flatnonzero(k[column] != r[column])
        assert diff.size == 0, (f"{column} differs at game {start + int(diff[0])} (seed {seed}) on {board.label} "
                                f"with {policy} {params} and {options}: kernel {k[column][diff[0]]}, reference "
                                f"{r[column][diff[0]]}")
    return r


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", BOARDS)
def test_default_options(boards, name, policy):
    r = compare(SEED, 0, 100, R.RuleOptions(), boards[name], policy)
    assert r["turns"].min() >= 1 and (r["mode"] == R.MODE_NAMES.index(R.RABID_MONSTER)).all()
    assert r["eaten_sheep"].sum() > 0


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", BOARDS)
def test_default_options_many(boards, name, policy):
    """3,000 more games (500 per board and policy)."""
    r = compare(SEED, 5000, 500, R.RuleOptions(), boards[name], policy)
    assert r["turns"].min() >= 1


def test_both_sides_win_and_the_wizards_panic_effects_fire(boards):
    """The games compared reach both wins, Steals and each Wizard-side Panic effect (else a block could pass
    without its rule ever playing)."""
    frames = [compare(SEED, 10_000, 150, R.RuleOptions(), b, p) for b in boards.values() for p in POLICIES]
    winner = np.concatenate([f["winner"] for f in frames])
    assert {0, 1} <= set(winner.tolist())
    assert sum(f["coins_stolen"].sum() for f in frames) > 0
    for effect in ("extra_action", "stay_inside", "cheaper_ingredients"):
        assert sum(f[f"fired_{effect}"].sum() for f in frames) > 0, effect


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={v[k]}" for k in v))
def test_option_variant(boards, variant):
    options = R.RuleOptions(**variant)
    for k, b in enumerate(boards.values()):
        for policy in POLICIES:
            r = compare(SEED + 1 + k, 1000 * (1 + VARIANTS.index(variant)), 30, options, b, policy)
            if "max_turns" in variant:
                assert r["unfinished"].any() and (r["turns"] <= variant["max_turns"]).all()


def test_a_discarded_card_changes_games(boards):
    """O16 ``discard_card`` is reached: some games differ from ``use_a_card``'s, whose spent actions' cards
    are hunted."""
    for policy in POLICIES:
        for variant in ({}, {"wizard_move_alone": True}):
            opts = [R.RuleOptions(rabid_spent_actions=value, **variant) for value in ("use_a_card", "discard_card")]
            a, b = (KN.run_chunk(SEED, 0, 60, o, boards["default"], R.RABID_MONSTER, POLICIES[policy], None, 0, None)
                    for o in opts)
            assert any((a[c] != b[c]).any() for c in R.OUTCOME_COLUMNS), (policy, variant)


@pytest.mark.parametrize("params", PLANNER_PARAMS, ids=("eager", "thief", "spendthrift"))
def test_planner_parameters(boards, params):
    for k, b in enumerate(boards.values()):
        compare(SEED + 20 + k, 0, 100, R.RuleOptions(), b, "planner", params)


def test_all_other_values_at_once(boards):
    options = R.RuleOptions(**ALL_OTHER)
    for k, b in enumerate(boards.values()):
        for policy in POLICIES:
            compare(SEED + 50 + k, 0, 50, options, b, policy)


def test_chunking_does_not_change_rows(boards):
    """Game i is the same row whatever chunk plays it; the policy stream is the game's own."""
    b = boards["generated 1"]
    whole = KN.run_chunk(SEED, 100, 40, None, b, R.RABID_MONSTER, 1, None, 0, None)
    parts = [KN.run_chunk(SEED, 100 + s, n, None, b, R.RABID_MONSTER, 1, None, 0, None)
             for s, n in ((0, 1), (1, 19), (20, 20))]
    for column in R.OUTCOME_COLUMNS:
        assert np.array_equal(whole[column], np.concatenate([p[column] for p in parts])), column
