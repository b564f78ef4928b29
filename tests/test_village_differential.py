"""So, You've Been Cursed.: the numba kernel equals the reference engine game by game on every outcome
column (and its dtype) in the 0-player mode (Possessed Wizard vs Rabid Monster), on the default board
and two generated boards, with every option value that matters to the 0-player mode in some block, the
padded decks (``unlisted_cards``, deck sizes) and all non-default values at once.

~9,700 games compared; the reference plays ~500-1,000 games/s here, so the file takes about 35 s on a
busy 2-core machine once the kernel is compiled (its compile: ~25 s more on an empty cache).
"""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim.games.village import board as B
from cursedsim.games.village import kernel as KN
from cursedsim.games.village import reference as REF
from cursedsim.games.village import rules as R
from cursedsim.games.village import state as S

SEED = 20261202
BOARDS = {"default": lambda: B.board_of("default"), "generated 1": lambda: B.generate(1),
          "generated 2": lambda: B.generate(2)}
#: One block per option value the 0-player mode reads (the rest are players' rules: O2, O3, O5, O7, O8,
#: O10, O11, O16, O17). Blank padding at the default deck sizes: a blank Possessed Wizard card is no
#: action, a blank Rabid Monster card hunts nobody.
VARIANTS = [
    {"max_turns": 12}, {"panic_threshold": "above_level"}, {"full_stomach": "stop"},
    {"automata_targets": "rabid_cards"}, {"rabid_path": "stop_at_villagers"}, {"rabid_stop_count": "slots"},
    {"rabid_pasture": "most_sheep"}, {"pw_next_ingredient": "next_only"}, {"pw_mix_counts": "matching"},
    {"pw_full_unmatched": "mix_cure"}, {"pw_steal_amount": "best_expectation"},
    {"pw_adjacent_steal_skip": "as_printed"}, {"pw_buy_adjacent": "any_district"}, {"pw_distance": "crossings"},
    {"pw_unpaid_crossing": "move_anyway"}, {"pw_card_count": "at_turn"},
    {"unlisted_cards": "blank"}, {"unlisted_cards": "blank", "automata_targets": "rabid_cards"},
    {"unlisted_cards": "copies"},
    {"unlisted_cards": "copies", "spell_deck_size": 30, "power_deck_size": 40, "possessed_deck_size": 20},
    {"unlisted_cards": "omit"}, {"pw_unlisted_actions": "none"}, {"power_requirements": "none"},
    {"unlisted_cards": "placeholder", "possessed_deck_size": 16, "rabid_deck_size": 9},
    {"possessed_cure_length": 6, "rabid_curse_length": 18}, {"possessed_cure_length": 20, "rabid_curse_length": 4},
]
ALL_OTHER = {"panic_threshold": "above_level", "full_stomach": "stop", "rabid_path": "stop_at_villagers",
             "rabid_stop_count": "slots", "rabid_pasture": "most_sheep", "pw_next_ingredient": "next_only",
             "pw_mix_counts": "matching", "pw_full_unmatched": "mix_cure", "pw_steal_amount": "best_expectation",
             "pw_adjacent_steal_skip": "as_printed", "pw_buy_adjacent": "any_district",
             "pw_distance": "crossings", "pw_unpaid_crossing": "move_anyway", "pw_card_count": "at_turn",
             "unlisted_cards": "copies"}


@pytest.fixture(scope="module")
def boards():
    return {name: make() for name, make in BOARDS.items()}


def compare(seed, start, count, options, board):
    """Kernel and reference outcomes of the same games; every column equal, dtypes too."""
    k = KN.run_chunk(seed, start, count, options, board, R.AUTOMATA, 0, None, 0, None)
    r = REF.play_chunk(seed, start, count, options, board=board)
    assert tuple(k) == R.OUTCOME_COLUMNS
    for column, dtype in R.OUTCOME_DTYPES.items():
        assert k[column].dtype == np.dtype(dtype) == r[column].dtype, column
        diff = np.flatnonzero(k[column] != r[column])
        assert diff.size == 0, (f"{column} differs at game {start + int(diff[0])} on {board.label} with "
                                f"{options}: kernel {k[column][diff[0]]}, reference {r[column][diff[0]]}")
    return r


@pytest.mark.parametrize("name", BOARDS)
def test_default_options(boards, name):
    r = compare(SEED, 0, 500, R.RuleOptions(), boards[name])
    assert r["turns"].min() >= 1 and not r["unfinished"].any()
    assert r["coins_stolen"].sum() > 0 and r["eaten_sheep"].sum() > 0


def test_both_sides_win_and_every_panic_effect_fires(boards):
    """The games the blocks compare reach both wins and every Possessed-side Panic effect (else a block
    could pass without its rule ever playing)."""
    frames = [compare(SEED, 10_000, 300, R.RuleOptions(), b) for b in boards.values()]
    winner = np.concatenate([f["winner"] for f in frames])
    assert {0, 1} <= set(winner.tolist())
    for effect in ("extra_action", "stay_inside", "extra_feeding_card"):
        assert sum(f[f"fired_{effect}"].sum() for f in frames) > 0, effect


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={v[k]}" for k in v))
def test_option_variant(boards, variant):
    options = R.RuleOptions(**variant)
    for k, b in enumerate(boards.values()):
        r = compare(SEED + 1 + k, 1000 * (1 + VARIANTS.index(variant)), 120, options, b)
        if "max_turns" in variant:
            assert r["unfinished"].any() and (r["turns"] <= variant["max_turns"]).all()


def test_all_other_values_at_once(boards):
    options = R.RuleOptions(**ALL_OTHER)
    for k, b in enumerate(boards.values()):
        compare(SEED + 50 + k, 0, 150, options, b)


def test_chunking_does_not_change_rows(boards):
    """Game i is the same row whatever chunk plays it (counter-keyed streams per game)."""
    b = boards["generated 1"]
    whole = KN.run_chunk(SEED, 100, 60, None, b, R.AUTOMATA, 0, None, 0, None)
    parts = [KN.run_chunk(SEED, 100 + s, n, None, b, R.AUTOMATA, 0, None, 0, None)
             for s, n in ((0, 1), (1, 25), (26, 34))]
    for column in R.OUTCOME_COLUMNS:
        assert np.array_equal(whole[column], np.concatenate([p[column] for p in parts])), column
    other_seed = KN.run_chunk(SEED + 1, 100, 60, None, b, R.AUTOMATA, 0, None, 0, None)
    assert any(not np.array_equal(whole[c], other_seed[c]) for c in R.OUTCOME_COLUMNS)


def test_board_from_the_options():
    """board=None plays the options' board (as the reference deals it)."""
    a = KN.run_chunk(SEED, 0, 20, None, None, R.AUTOMATA, 0, None, 0, None)
    b = KN.run_chunk(SEED, 0, 20, None, B.board_of("default"), R.AUTOMATA, 0, None, 0, None)
    assert all(np.array_equal(a[c], b[c]) for c in R.OUTCOME_COLUMNS)


@pytest.mark.parametrize("mode, wizard, monster", [("duel", 0, 0), ("automata", 1, 0), ("automata", 0, 2),
                                                    ("rabid_monster", 0, 0), ("rabid_monster", 1, 1), ("rabid_monster", 3, 0)])
def test_what_does_not_play_yet_is_named(mode, wizard, monster):
    with pytest.raises(NotImplementedError, match=f"mode '{mode}' with wizard policy {wizard} and monster "
                                                  f"policy {monster}"):
        KN.run_chunk(SEED, 0, 1, None, None, mode, wizard, None, monster, None)


def test_numbering_shared_with_the_reference():
    """The kernel's streams are the reference's; every rule option has a slot; the columns are the rules'."""
    for name in REF.STREAMS:
        assert getattr(S, f"STREAM_{name.upper()}") == getattr(REF, f"STREAM_{name.upper()}")
    assert S.N_STREAMS == len(REF.STREAMS)
    assert len(S.option_array(None)) == len(R.OPTION_NAMES) <= S.MAX_OPTIONS
    assert KN.COLUMNS == R.OUTCOME_COLUMNS
