"""So, You've Been Cursed.: the numba kernel equals the reference engine game by game on every outcome
column (and its dtype) in ``duel`` (the Wizard player, ``random`` or ``planner``, against the Monster player,
``random`` or ``glutton``), over every policy pair on the default board and two generated boards, and with
the options that join the two players (the Quiet Night arrival's chooser O2, a Box of Holding the Monster
discards) in blocks of their own.

~5,300 games compared; the bigger block is marked slow, ~1,300 games stay in the quick run.
"""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim.games.village import board as B
from cursedsim.games.village import kernel as KN
from cursedsim.games.village import monster_policies as MPOL
from cursedsim.games.village import reference as REF
from cursedsim.games.village import rules as R
from cursedsim.games.village import wizard_policies as WPOL

SEED = 20261204
BOARDS = {"default": lambda: B.board_of("default"), "generated 1": lambda: B.generate(1),
          "generated 2": lambda: B.generate(2)}
WIZARD = {"random": 1, "planner": 2}
MONSTER = {"random": 1, "glutton": 2}
PAIRS = [(w, m) for w in WIZARD for m in MONSTER]
#: Options that play in a duel, each moved from its default in one block (both players' rules).
VARIANTS = [
    {"night_arrival_chooser": "monster"}, {"wizard_move_alone": True}, {"plethora_at_market": False},
    {"panic_threshold": "above_level"}, {"unmatched_meal": "no_change"}, {"quiet_night_adjusts": True},
    {"full_stomach": "stop"}, {"start_location_visited": True}, {"guard_movement_loss": "carry_over"},
    {"max_turns": 12}, {"unlisted_cards": "copies"}, {"unlisted_cards": "blank"}, {"unlisted_cards": "omit"},
    {"power_requirements": "none"}, {"unlisted_cards": "placeholder", "spell_deck_size": 12, "power_deck_size": 30},
    {"wizard_cure_length": 7, "monster_curse_length": 20}, {"wizard_cure_length": 25, "monster_curse_length": 5},
    {"wizard_cure_length": 1, "monster_curse_length": 2}, {"wizard_cure_length": 2, "monster_curse_length": 1},
]


def defaults(module, name):
    return [row[1] for row in module.PARAMS[name]] or None


@pytest.fixture(scope="module")
def boards():
    return {name: make() for name, make in BOARDS.items()}


def compare(seed, start, count, options, board, wizard, monster):
    """Kernel and reference outcomes of the same duel games; every column equal, dtypes too."""
    wp, mp = defaults(WPOL, wizard), defaults(MPOL, monster)
    k = KN.run_chunk(seed, start, count, options, board, R.DUEL, WIZARD[wizard], wp, MONSTER[monster], mp)
    r = REF.play_chunk(seed, start, count, options, board=board, mode=R.DUEL,
                       controllers={R.WIZARD: WPOL.make(wizard, wp), R.MONSTER: MPOL.make(monster, mp)})
    for column, dtype in R.OUTCOME_DTYPES.items():
        assert k[column].dtype == np.dtype(dtype) == r[column].dtype, column
        diff = np.flatnonzero(k[column] != r[column])
        assert diff.size == 0, (f"{column} differs at game {start + int(diff[0])} (seed {seed}) on {board.label} "
                                f"with {wizard} vs {monster} and {options}: kernel {k[column][diff[0]]}, "
                                f"reference {r[column][diff[0]]}")
    return r


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
@pytest.mark.parametrize("name", BOARDS)
def test_pairs_quick(boards, name, pair):
    r = compare(SEED, 0, 60, R.RuleOptions(), boards[name], *pair)
    assert (r["mode"] == R.MODE_NAMES.index(R.DUEL)).all() and r["turns"].min() >= 1
    assert r["coins_stolen"].sum() + r["eaten_sheep"].sum() + r["quiet_nights"].sum() > 0


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={v[k]}" for k in v))
def test_option_variant(boards, variant):
    options = R.RuleOptions(**variant)
    for k, b in enumerate(boards.values()):
        for pair in PAIRS:
            r = compare(SEED + 1 + k, 1000 * (1 + VARIANTS.index(variant)), 5, options, b, *pair)
            if "max_turns" in variant:
                assert (r["turns"] <= variant["max_turns"]).all()


@pytest.mark.parametrize("params", [(0.0, 1.0, 1.0), (1.0, 0.0, 1.0), (1.0, 1.0, 0.0), (0.0, 0.0, 0.0)],
                         ids=lambda p: f"ahead{p[0]:g}-spare{p[1]:g}-zero{p[2]:g}")
def test_planner_and_glutton_before_issue_26(boards, params):
    """The planner without the furthest-ahead discard or the spare-action cast and Glutton without its
    value-0 plays (those parameters 0), on the default decks and on the listed cards alone (unlisted_cards
    omit)."""
    wp, mp = defaults(WPOL, "planner"), defaults(MPOL, "glutton")
    wp[-2], wp[-1], mp[-1] = params
    for k, options in enumerate((R.RuleOptions(), R.RuleOptions(unlisted_cards="omit"))):
        for b in boards.values():
            seed = SEED + 50 + k
            kk = KN.run_chunk(seed, 0, 25, options, b, R.DUEL, WIZARD["planner"], wp, MONSTER["glutton"], mp)
            r = REF.play_chunk(seed, 0, 25, options, board=b, mode=R.DUEL,
                               controllers={R.WIZARD: WPOL.make("planner", wp), R.MONSTER: MPOL.make("glutton", mp)})
            for column in R.OUTCOME_DTYPES:
                diff = np.flatnonzero(kk[column] != r[column])
                assert diff.size == 0, (column, params, options, int(diff[0]) if diff.size else None)


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
@pytest.mark.parametrize("name", BOARDS)
def test_pairs(boards, name, pair):
    """~4,000 games, 330 per pair and board."""
    r = compare(SEED + 100, 0, 330, R.RuleOptions(), boards[name], *pair)
    assert r["turns"].min() >= 1


class Counting:
    """The Monster policy ``inner``, counting the situations of M3 and M10 it meets: a movement on sale while
    a road can be taken (a Hydrophobia bridge), A Taste of Rural Life on a Quiet Night, a single-use card
    waiting at a Quiet Night's free card."""

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


@pytest.mark.parametrize("wizard,monster", [("random", "random"), ("planner", "glutton")])
def test_hydrophobia_buys_and_quiet_night_meals(boards, wizard, monster):
    """M3 (a movement bought for a Hydrophobia bridge), M10 (the night's meal digested, only the night's
    single-use card): games that reach them (counted on the reference's side), played alike by the kernel."""
    options, b = R.RuleOptions(unlisted_cards="copies"), boards["default"]
    wp, mp = defaults(WPOL, wizard), defaults(MPOL, monster)
    spy = Counting(MPOL.make(monster, mp))
    r = REF.play_chunk(SEED + 7, 0, 120, options, board=b, mode=R.DUEL,
                       controllers={R.WIZARD: WPOL.make(wizard, wp), R.MONSTER: spy})
    k = KN.run_chunk(SEED + 7, 0, 120, options, b, R.DUEL, WIZARD[wizard], wp, MONSTER[monster], mp)
    for column in R.OUTCOME_DTYPES:
        diff = np.flatnonzero(k[column] != r[column])
        assert diff.size == 0, (column, int(diff[0]), k[column][diff[0]], r[column][diff[0]])
    if monster == "random":
        assert min(spy.seen.values()) > 0, spy.seen
