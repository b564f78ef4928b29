"""The village reference engine in the 0-player mode (docs/rules/village.md V13-V15): the worked example
E5 on the default board (whose houses 1, 3, 7, 11 have the example's relations), every automaton tie-break,
both wins the instant they happen, the turn cap, reproducibility, and 200 games on three boards."""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim.games.village import automata as A
from cursedsim.games.village import board as B
from cursedsim.games.village import cards as K
from cursedsim.games.village import components as C
from cursedsim.games.village import reference as V
from cursedsim.games.village import rules as R
from cursedsim.games.village import turnlog

CARDS = K.load_cards()
FARMER, HUNTER, WOODCUTTER, BUTCHER = (C.VILLAGER_NAMES.index(n) for n in ("Farmer", "Hunter", "Woodcutter",
                                                                           "Butcher"))


def bare(board="default", **options) -> V.Table:
    """A dealt table with every house emptied (villagers back in the bag), logging on."""
    t = V.Table.deal(0, 0, R.RuleOptions(**options), board=board, log=True)
    for n in range(1, C.HOUSES + 1):
        if t.houses[n] != V.EMPTY:
            t.bag[t.houses[n]] += 1
            t.houses[n] = V.EMPTY
    return t


def place(t: V.Table, **houses) -> None:
    """place(t, h7="Butcher", ...): villagers from the bag into houses."""
    for key, name in houses.items():
        v = C.VILLAGER_NAMES.index(name)
        t.bag[v] -= 1
        t.houses[int(key[1:])] = v


def actions(t: V.Table) -> list[str]:
    return [e["action"] for e in t.events]


# ---------------------------------------------------------------- E5 and the Rabid Monster (V13)

def e5_table(**options) -> V.Table:
    t = bare(**options)
    place(t, h1="Butcher", h7="Butcher", h3="Farmer", h11="Farmer")
    t.at = t.board.house(7)
    assert t.sheep[0] > 0 and t.board.pastures[0].next_to == ("market", "house 7")
    return t


def test_e5_rabid_monster_movement():
    """E5 (V13.5-V13.7): Butcher at 7 (distance 0, highest of 1 and 7) eaten in place; Farmer 3 roads
    away at 3 and 11: a sheep from the pasture by house 7, then the Farmer at 11, same slot; no Hunter
    within 2 roads of 11 and no pasture there: skipped."""
    t = e5_table()
    sheep0 = t.sheep[0]
    A.hunt(t, BUTCHER)
    assert t.at == t.board.house(7) and t.houses[7] == V.EMPTY and t.houses[1] == BUTCHER
    assert t.stomach == [["Butcher"]]
    A.hunt(t, FARMER)
    assert t.sheep[0] == sheep0 - 1
    assert t.at == t.board.house(11) and t.houses[11] == V.EMPTY and t.houses[3] == FARMER
    assert t.stomach == [["Butcher"], ["Sheep", "Farmer"]]
    A.hunt(t, HUNTER)
    assert t.stomach == [["Butcher"], ["Sheep", "Farmer"]] and t.at == t.board.house(11)
    assert actions(t)[-1] == "skip"


def hunted(*ids):
    return [CARDS.by_id(i) for i in ids]


@pytest.mark.parametrize("count, third_eaten", [("tokens", False), ("slots", True)])
def test_rabid_stops_after_three_eaten(count, third_eaten):
    """V13.8 / O14: after E5's two actions 3 tokens are eaten (stop) but only 2 slots filled (go on)."""
    t = e5_table(automata_targets="possessed_cards", rabid_stop_count=count)
    place(t, h12="Farmer")                                  # within 2 roads of 11, not of 7
    t.pw_used = hunted("PW06", "PW01", "PW04")              # Butcher, Farmer, Farmer
    t.power_deck, t.power_discard, t.pw_feeding = [], [], []
    t.side = R.MONSTER
    t.step()
    assert (t.houses[12] == V.EMPTY) == third_eaten
    villagers = 3 if third_eaten else 2
    panic, curse = R.RABID_ADJUSTMENT[villagers]            # V13.9
    assert t.panic == 1 + panic and t.curse == t.board.sides("automata").curse_start + curse
    assert t.stomach == [] and sum(t.bag) + sum(v != V.EMPTY for v in t.houses[1:]) == C.VILLAGER_TOKENS


def test_rabid_highest_number_within_two_roads():
    """V13.5: among villagers of the type within 2 roads, the highest house number."""
    t = bare()
    place(t, h2="Hunter", h20="Hunter", h3="Hunter")        # from house 1: all within 2 roads
    t.at = t.board.house(1)
    A.hunt(t, HUNTER)
    assert t.houses[20] == V.EMPTY and t.at == t.board.house(20) and t.houses[2] == t.houses[3] == HUNTER


def test_rabid_skips_at_three_roads_without_sheep():
    """V13.6-V13.7: a villager exactly 3 roads away needs a sheep in an adjacent pasture."""
    t = bare()
    place(t, h3="Farmer")
    t.at = t.board.house(7)
    t.sheep[0] = 0
    A.hunt(t, FARMER)
    assert t.houses[3] == FARMER and t.stomach == []


@pytest.mark.parametrize("rule", ["highest_number", "most_sheep"])
def test_rabid_pasture_choice(rule):
    """O15: two adjacent pastures with sheep (a generated board has such a location)."""
    board = B.generate(1)
    t = bare(board, rabid_pasture=rule)
    a = t.arrays
    loc = next(i for i in range(len(board.locations))
               if a["location_pastures_start"][i + 1] - a["location_pastures_start"][i] > 1)
    start, stop = a["location_pastures_start"][loc], a["location_pastures_start"][loc + 1]
    ps = sorted(int(k) for k in a["location_pastures"][start:stop])
    far = [n for n in range(1, 21) if a["distance"][loc, board.house(n)] == 3]
    assert far
    t.at = loc
    place(t, **{f"h{far[0]}": "Noble"})
    t.sheep = [0] * len(t.sheep)
    t.sheep[ps[0]], t.sheep[ps[-1]] = 3, 1                  # the lower-numbered pasture is fuller
    A.hunt(t, C.VILLAGER_NAMES.index("Noble"))
    expected = ps[-1] if rule == "highest_number" else ps[0]
    assert t.sheep[expected] == (0 if expected == ps[-1] else 2)
    assert t.stomach == [["Sheep", "Noble"]]


def test_rabid_path_stop_at_villagers():
    """O13: ``roads`` ignores villagers on the way; ``stop_at_villagers`` cannot pass an occupied house."""
    t = bare(rabid_path="stop_at_villagers")
    start = t.board.house(7)
    plain = [int(x) for x in t.arrays["distance"][start]]
    assert A.road_distances(t, start) == plain
    for n in range(1, 21):
        t.houses[n] = FARMER
    blocked = A.road_distances(t, start)
    assert all(b >= p for b, p in zip(blocked, plain)) and blocked != plain


def test_feeding_card_gives_the_wizard_coins():
    """V14.13: eating the villager of a feeding card applies its effect, each time; Energy effects do
    nothing (V13.4)."""
    t = e5_table()
    t.pw_feeding = hunted("PW04", "PW06")                   # Farmer: +2 coins; Butcher: Energy less
    coins = t.coins
    A.hunt(t, BUTCHER)
    assert t.coins == coins
    A.hunt(t, FARMER)
    assert t.coins == coins + 2


# ---------------------------------------------------------------- the Possessed Wizard (V14)

def test_arrival_closest_empty_house_tie_goes_higher():
    """V2.4: house 5 occupied, 4 and 6 empty: the tie goes to 6."""
    t = bare()
    for n in range(1, 21):
        if n not in (4, 6, 9):
            place(t, **{f"h{n}": "Farmer"}) if t.bag[FARMER] else place(t, **{f"h{n}": "Hunter"})
    assert t.closest_empty_house(5) == 6
    assert t.closest_empty_house(8) == 9
    t.d20 = lambda: 5
    t.arrive()
    assert t.events[-1]["house"] == 6 and t.houses[6] != V.EMPTY


@pytest.mark.parametrize("farmers, chosen", [
    ((1, 3), 3),          # cheapest: 4 coins vs 2
    ((3, 7), 3),          # 2 coins vs 2 + 1 crossing
    ((11, 15), 15),       # both 2 coins with the crossing: the closer (2 roads vs 3)
    ((5, 8, 14), 14),     # all 2 coins and 4 roads: the highest number
])
def test_buy_any_district_tie_breaks(farmers, chosen):
    """V14.6: cheapest (crossings included), then closest (O24 roads), then the highest number."""
    t = bare()
    place(t, **{f"h{n}": "Farmer" for n in farmers})
    t.coins = 10
    assert t.cure_seq[0] == C.INGREDIENTS.index("Mandrake Root") and t.at == t.board.laboratory
    A.buy(t, "any")
    assert t.held == [FARMER] and t.at == t.board.house(chosen)
    loc = t.board.house(chosen)
    assert t.coins == 10 - t.board.locations[loc].price - t.crossings(t.board.laboratory, loc)


def test_buy_skipped_without_coins_and_current_district_only():
    """V14.6: not enough coins to move and buy: skipped; V14.7: only the current district."""
    t = bare()
    place(t, h5="Farmer")
    t.coins = 1
    A.buy(t, "any")
    assert t.held == [] and actions(t)[-1] == "skip" and t.coins == 1
    t.coins = 10
    A.buy(t, "current")
    assert t.held == [] and actions(t)[-1] == "skip"


def test_buy_seeks_first_missing_ingredient():
    """O18: the first step from the next on not covered by the ingredients held."""
    t = bare()
    t.held = [t.cure_seq[0]]
    assert A.sought_ingredient(t) == t.cure_seq[1]
    t2 = bare(pw_next_ingredient="next_only")
    t2.held = [t2.cure_seq[0]]
    assert A.sought_ingredient(t2) is None


@pytest.mark.parametrize("occupied, at, chosen", [((1, 2, 3), 1, 3), ((8, 11, 9), 8, 11)])
def test_steal_most_coins_then_highest_number(occupied, at, chosen):
    """V14.8: the occupied house with the most coins in the district (8 and 11 both 4: 11); a roll above
    the declared number (O21: the house's coins) takes them, else nothing (no distraction)."""
    t = bare()
    place(t, **{f"h{n}": "Farmer" for n in occupied})
    t.at = t.board.house(at)
    value = t.board.locations[t.board.house(chosen)].coins
    t.d6 = lambda: value
    coins = t.coins
    A.steal(t, "current")
    assert t.at == t.board.house(chosen) and t.coins == coins and t.events[-1]["taken"] == 0
    t.d6 = lambda: value + 1
    A.steal(t, "current")
    assert t.coins == coins + value and t.coins_stolen == value


def test_steal_adjacent_skipped_without_houses_and_pays_crossing():
    """V14.9 / O22: no occupied house in an adjacent district: skipped; else it pays the crossing."""
    t = bare()
    A.steal(t, "adjacent")
    assert actions(t)[-1] == "skip"
    place(t, h7="Farmer")                                   # market_row, next to the Laboratory's district
    t.d6 = lambda: 6
    coins = t.coins
    A.steal(t, "adjacent")
    assert t.at == t.board.house(7) and t.coins == coins - 1 + 3


def test_mix_condition_and_mix_cure():
    """V14.2, V14.3 (O19 all_held; E1: several steps in one action), O20."""
    t = bare()
    t.held = list(t.cure_seq[:3])
    t.at = t.board.house(7)                                 # one crossing back to the Laboratory
    assert A.mix_condition(t)
    coins = t.coins
    A.mix_cure(t)
    assert t.cure == 3 and t.held == [] and t.at == t.board.laboratory and t.coins == coins - 1
    t.held = [t.cure_seq[5]] * 3                            # 3 held, not the next steps
    assert not A.mix_condition(t)
    assert A.mix_condition(_with(bare(pw_full_unmatched="mix_cure"), held=[t.cure_seq[5]] * 3))
    m = _with(bare(pw_mix_counts="matching"), held=[t.cure_seq[0], t.cure_seq[5]])
    A.mix_cure(m)
    assert m.cure == (2 if t.cure_seq[1] == t.cure_seq[5] else 1)


def _with(t, **fields):
    for k, v in fields.items():
        setattr(t, k, v)
    return t


def test_mix_condition_last_steps():
    """V14.2: 1 or 2 steps left and the ingredients held cover them."""
    t = bare()
    t.cure = len(t.cure_seq) - 2
    t.held = [t.cure_seq[-1]]
    assert not A.mix_condition(t)
    t.held = [t.cure_seq[-1], t.cure_seq[-2]]
    assert A.mix_condition(t)


def test_mix_cure_pays_all_coins_when_short():
    """V14.3: short of coins it still returns to the Laboratory, spending all it has."""
    t = bare()
    t.at, t.coins = t.board.house(7), 0
    A.mix_cure(t)
    assert t.at == t.board.laboratory and t.coins == 0


def test_possessed_card_actions_in_order_and_next_cards():
    """V14.4, V14.5: the leftmost card acts first; afterwards 3 cards below the board, 1 feeding card."""
    t = bare()
    t.spell_deck, t.spell_discard = [], []
    t.pw_deck.extend(t.pw_row)
    t.pw_row = hunted("PW03", "PW07", "PW02")
    t.pw_deck = [c for c in t.pw_deck if c.id not in ("PW03", "PW07", "PW02")]
    t.step()
    whats = [e["what"] for e in t.events if e["action"] == "action"]
    assert whats == ["steal_current_district", "buy_current_district", "steal_adjacent_district"]
    assert len(t.pw_row) == 3 and len(t.pw_feeding) == 1
    assert len(t.pw_row) + len(t.pw_feeding) + len(t.pw_deck) == len(K.deck_for("automata")["possessed_wizard"])


def test_panic_effects_on_the_possessed_side():
    """V14.14, V10.2: Stay inside! skips the arrival; Maximum Possession! and Possession intensifies!
    add a card below the board and next to the Monster board (levels from the board file, O6)."""
    t = bare()
    t.panic = t.panic_top
    t.spell_deck, t.spell_discard = [], []
    t.step()
    assert "no_arrival" in actions(t) and t.events[2]["reason"] == "Stay inside!"
    assert len(t.pw_row) == 4 and len(t.pw_feeding) == 2
    assert t.fired["stay_inside"] == t.fired["extra_action"] == t.fired["extra_feeding_card"] == 1
    assert t.first["stay_inside"] == 1


# ---------------------------------------------------------------- wins the instant they happen (V12)

def test_cure_top_wins_instantly():
    """V12.1: the mix reaching the top ends the game at once: no further action of the turn."""
    t = bare()
    t.spell_deck, t.spell_discard = [], []
    t.cure = len(t.cure_seq) - 1
    t.held = [t.cure_seq[-1]]
    t.step()
    assert t.is_over() and t.winner == R.SIDES.index(R.WIZARD) and not t.unfinished
    assert actions(t)[-2:] == ["mix", "end"] and len(t.pw_row) == 2
    assert t.outcome()["winner"] == 0 and t.outcome()["cure"] == len(t.cure_seq)


def test_curse_top_wins_instantly():
    """V12.2: Noble Blood (V13.3) reaching the top ends the game before any hunting."""
    t = bare()
    place(t, h1="Farmer", h2="Farmer", h3="Farmer")
    t.at = t.board.house(1)
    t.curse = t.curse_top - 1
    t.power_deck = [CARDS.by_id("P10")]
    t.side = R.MONSTER
    t.step()
    assert t.is_over() and t.winner == R.SIDES.index(R.MONSTER)
    assert "eat" not in actions(t) and "targets" in actions(t)
    assert actions(t).count("end") == 1 and actions(t)[-2:] == ["power", "end"]
    assert t.curse == t.curse_top and t.houses[1] == FARMER


def test_curse_top_by_adjustment():
    """V13.9 + V12.2: the end-of-turn adjustment reaching the top wins."""
    t = e5_table(automata_targets="possessed_cards")
    t.pw_used = hunted("PW06")
    t.power_deck, t.power_discard, t.pw_feeding = [], [], []
    t.curse = t.curse_top - 1
    t.side = R.MONSTER
    t.step()
    assert t.is_over() and t.winner == 1 and t.curse == t.curse_top


def test_turn_cap_unfinished():
    """O1: the game still on after max_turns turns is unfinished, with no winner."""
    t = V.play(5, 0, R.RuleOptions(max_turns=3), log=True)
    out = t.outcome()
    assert out["unfinished"] and out["winner"] == R.NO_WINNER and out["turns"] == 3
    assert t.events[-1]["action"] == "end" and "unfinished" in turnlog.text(t.events).splitlines()[-1]


# ---------------------------------------------------------------- reproducibility and many games

def test_same_seed_same_log_different_seeds_differ():
    a = V.play(11, 3, log=True).text()
    assert a == V.play(11, 3, log=True).text()
    assert a != V.play(12, 3, log=True).text()
    assert a != V.play(11, 4, log=True).text()
    assert len(a.splitlines()) > 10


def test_clone_plays_on_identically():
    t = V.Table.deal(2, 2, log=True)
    t.step()
    c = t.clone()
    assert t.play_out().text() == c.play_out().text()


@pytest.mark.parametrize("board", ["default", 1, 2])
def test_200_games_finish(board):
    b = B.board_of(board) if isinstance(board, str) else B.generate(board)
    rows = [V.play(21, i, board=b).outcome() for i in range(200)]
    b = B.with_track_lengths(b, *R.RuleOptions().track_lengths(b))   # the lengths played (O39: calibrated)
    cols = {c: np.array([r[c] for r in rows], dtype=d) for c, d in R.OUTCOME_DTYPES.items()}
    assert set(rows[0]) == set(R.OUTCOME_COLUMNS)
    finished = cols["winner"] >= 0
    assert np.all(finished != cols["unfinished"])
    assert np.all(cols["mode"] == R.MODE_NAMES.index(R.AUTOMATA)) and np.all(cols["quiet_nights"] == 0)
    assert np.all((cols["winner"] != 0) | (cols["cure"] == len(b.sides("automata").cure)))
    assert np.all((cols["winner"] != 1) | (cols["curse"] == b.sides("automata").curse_length))


def test_options_run():
    opts = R.RuleOptions(rabid_path="stop_at_villagers", rabid_pasture="most_sheep", rabid_stop_count="slots",
                         automata_targets="possessed_cards", pw_next_ingredient="next_only",
                         pw_mix_counts="matching", pw_full_unmatched="mix_cure", pw_steal_amount="best_expectation",
                         pw_adjacent_steal_skip="as_printed", pw_buy_adjacent="any_district", pw_distance="crossings",
                         pw_unpaid_crossing="move_anyway", pw_card_count="at_turn", panic_threshold="above_level",
                         full_stomach="stop")
    for i in range(30):
        V.play(4, i, opts)


@pytest.mark.parametrize("threshold, level, applies", [
    ("at_level", 7, (True, True, False)),
    ("at_level", 9, (True, True, True)),
    ("above_level", 9, (True, True, False)),
    ("above_level", 10, (True, True, True)),
])
def test_e8_panic_levels_possessed_side(threshold, level, applies):
    """E8 (V10.4, O6) on the default board's Possessed Wizard side (levels 4, 7, 9): at 7 the first two
    effects apply; after 9 all three."""
    t = bare(panic_threshold=threshold)
    assert t.panic_from == (4, 7, 9)
    t.panic = level
    assert tuple(t.panic_effect(k) for k in range(3)) == applies


def test_no_arrival_when_houses_full_and_spell_coins_capped():
    """V2.5: the first turn has all 20 houses occupied; V3.8 / V11.2: a spell's coins as the supply
    allows."""
    t = V.Table.deal(3, 1, log=True)
    t.coins = C.COIN_TOTAL
    t.step()
    assert t.events[2]["action"] == "no_arrival" and t.events[2]["reason"] == "all houses occupied"
    assert all(e["result"].endswith("+0 coins") for e in t.events if e["action"] == "spell")
    assert t.coins <= C.COIN_TOTAL


def test_play_chunk_matches_play():
    chunk = V.play_chunk(8, 10, 5)
    assert {c: a.dtype.name for c, a in chunk.items()} == R.OUTCOME_DTYPES
    assert chunk["turns"][2] == V.play(8, 12).outcome()["turns"]
