"""The Cursed Gifts balance report: a small real report builds with every figure and table, its numbers are
those of direct simulations of the same games (seat rates add up to the games, intervals contain their
estimates, the first player's advantage and the seat moves are paired game by game, the deck without a
card kind is paired with the full deck on the same game indices), the reconstructed deck's label is in
the header and every table, the sensitivity decks load back from their files, and the readings quote
the numbers they read. With ``--deck FILE`` every run plays that deck and the report names it; a broken
file fails at once with the validator's line; runs of another deck are never resumed."""

from __future__ import annotations

import re
from html import unescape as html_unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim.games.gifts import deck as gifts_deck
from cursedsim.games.gifts.deck import deck_of, load_deck
from cursedsim.games.gifts.policy_specs import POLICIES
from cursedsim.report import report
from cursedsim.report.data import ALPHA, ReportError
from cursedsim.report.figures import pct, points
from cursedsim.report.gifts import decks, recommend, reduce
from cursedsim.report.gifts.data import PLAN
from cursedsim.report.gifts.figures import FIGURES
from cursedsim.stats import holm, paired_difference, wilson_interval

SMALL_GAMES = 200
SMALL_SEED = 11


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A real gifts report with few games per cell, made once per test process."""
    out = tmp_path_factory.mktemp("gifts_report")
    return report("gifts", out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)


def _direct(players: int, policy, **kwargs) -> pd.DataFrame:
    return cursedsim.simulate("gifts", SMALL_GAMES, players=players, policy=policy, seed=SMALL_SEED, progress=False,
                              **kwargs)


def _inside(table: pd.DataFrame, center: str, low: str, high: str) -> None:
    """Every row's interval contains its estimate."""
    rows = table.dropna(subset=[center])
    assert ((rows[low] <= rows[center] + 1e-12) & (rows[center] <= rows[high] + 1e-12)).all(), (center, low, high)


# ---------------------------------------------------------------- the plan

def test_the_plan_covers_every_player_count_policy_and_card_kind():
    assert PLAN.players == (2, 3, 4, 5, 6)
    assert set(PLAN.policies) == set(POLICIES) == set(PLAN.fields)
    assert PLAN.cards == tuple(card.name for card in deck_of().cards)
    assert PLAN.focus_pair[0] != PLAN.focus_pair[1]
    assert PLAN.run_count == 5 + (2 + 3 + 4 + 5 + 6) + len(POLICIES) ** 2 + len(PLAN.cards) + PLAN.deck_variants


def test_scaled_decks_are_seeded_within_the_limits_and_round_trip(tmp_path):
    base = deck_of()
    variants = decks.write_variants(tmp_path, base, 4, seed=7)
    again = decks.write_variants(tmp_path / "again", base, 4, seed=7)
    other = decks.write_variants(tmp_path / "other", base, 4, seed=8)
    assert [v.deck.label for v in variants] == [v.deck.label for v in again]
    assert [v.deck.label for v in variants] != [v.deck.label for v in other]
    for variant in variants:
        loaded = load_deck(variant.path)   # the file loads back, with the same content
        assert loaded.label == variant.deck.label and loaded.reconstructed
        assert gifts_deck.MIN_COPIES <= loaded.size <= gifts_deck.MAX_COPIES
        assert ((decks.SCALE_LOW <= variant.factors) & (variant.factors <= decks.SCALE_HIGH)).all()
        for card, old, factor in zip(loaded.cards, base.cards, variant.factors):
            assert (card.name, card.type, card.value, card.flags, card.effect) == \
                (old.name, old.type, old.value, old.flags, old.effect)
            assert card.count == max(1, min(gifts_deck.MAX_COUNT, int(np.floor(old.count * factor + 0.5))))
        assert (tmp_path / variant.file).is_file()


def test_same_games_refuses_runs_of_other_game_indices():
    a = pd.DataFrame({"game_index": np.arange(5)})
    with pytest.raises(ReportError, match="not the same games"):
        reduce.same_games(a, pd.DataFrame({"game_index": np.arange(1, 6)}), "test")
    with pytest.raises(ReportError, match="not the same games"):
        reduce.same_games(a, pd.DataFrame({"game_index": np.arange(4)}), "test")
    reduce.same_games(a, a.copy(), "test")


# ---------------------------------------------------------------- a small real report

def test_small_report_has_every_figure_table_and_reading(small):
    out = Path(small.out)
    names = [figure.name for figure in small.figures]
    assert len(names) == len(FIGURES) == 6 and len(set(names)) == 6
    for name in names:
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000
    label = deck_of().label
    for name in small.data.tables:
        table = pd.read_csv(out / "tables" / f"{name}.csv")
        assert len(table) > 0, name
        assert "deck" in table and table["deck_reconstructed"].all(), name   # every table names its deck
        assert table["deck"].str.startswith("reconstructed-base-v1").all(), name
    for name in ("seat_win_rates", "policy_matrix", "card_removal", "card_dealt", "game_length_summary"):
        assert (pd.read_csv(out / "tables" / f"{name}.csv")["deck"] == label).all()
    markdown = (out / "report.md").read_text()
    html = html_unescape((out / "report.html").read_text())
    header = markdown.split("## Recommendations")[0]
    assert label in header and "reconstructed" in header
    assert markdown.index("## Recommendations") < markdown.index("## How this report was made")
    assert label in small.recommendations["note"]
    for figure in small.figures:
        assert figure.reading and figure.title in markdown and figure.reading in markdown
        assert figure.title in html
    assert small.data.runs == small.data.plan.run_count
    assert small.data.games_played == small.data.plan.run_count * SMALL_GAMES


def test_seat_rates_are_direct_simulations_and_add_up(small):
    seats = small.data.seats
    _inside(seats, "rate", "ci_low", "ci_high")
    for players in PLAN.players:
        rows = seats[seats["players"] == players]
        assert sorted(rows["seat"]) == [-1] + list(range(players))
        assert rows["wins"].sum() == SMALL_GAMES and (rows["n"] == SMALL_GAMES).all()
    for players in (2, 4, 6):
        frame = _direct(players, "leader")
        counts = frame["winner_seat"].value_counts()
        rows = seats[seats["players"] == players].set_index("seat")
        for seat, row in rows.iterrows():
            wins = int(counts.get(seat, 0))
            assert row["wins"] == wins
            low, high = wilson_interval(wins, SMALL_GAMES)
            assert row["ci_low"] == pytest.approx(low) and row["ci_high"] == pytest.approx(high)
        assert rows.loc[-1, "wins"] == int(frame["unfinished"].sum())


def test_first_player_advantage_is_paired_on_the_same_games(small):
    fp = small.data.first_player
    _inside(fp, "diff", "ci_low", "ci_high")
    np.testing.assert_allclose(fp["p_holm"], holm(fp["p_value"]))
    assert len(fp) == sum(PLAN.players)   # the fair share and every other seat
    frame = _direct(5, "leader")
    winner = frame["winner_seat"].to_numpy()
    for seat in range(1, 5):
        row = fp[(fp["players"] == 5) & (fp["other_seat"] == seat)].iloc[0]
        expected = paired_difference((winner == 0).astype(float), (winner == seat).astype(float))
        assert row["diff"] == pytest.approx(expected["diff"]) and row["ci_low"] == pytest.approx(expected["ci_low"])
        assert row["ci_high"] == pytest.approx(expected["ci_high"])
    fair = fp[(fp["players"] == 5) & (fp["against"] == "fair share")].iloc[0]
    low, high = wilson_interval(int((winner == 0).sum()), SMALL_GAMES)
    assert fair["diff"] == pytest.approx((winner == 0).mean() - 0.2)
    assert fair["ci_low"] == pytest.approx(low - 0.2) and fair["ci_high"] == pytest.approx(high - 0.2)


def test_focus_at_each_seat_is_paired_by_game_index_against_seat_0(small):
    table = small.data.focus_seats
    focus, field = PLAN.focus_pair
    _inside(table, "rate", "ci_low", "ci_high")
    _inside(table, "diff", "ci_low_diff", "ci_high_diff")
    tested = table[table["seat"] > 0]
    np.testing.assert_allclose(tested["p_holm"], holm(tested["p_value"]))
    assert (tested["survives"] == (tested["p_holm"] < ALPHA)).all()
    assert len(table) == sum(PLAN.players)
    frames = {s: _direct(3, {"focus": focus, "field": field}, options={"focus_seat": str(s)}) for s in range(3)}
    for s, frame in frames.items():
        assert (frame["focus_seat"] == s).all()
        np.testing.assert_array_equal(frame["game_index"], frames[0]["game_index"])
    row = table[(table["players"] == 3) & (table["seat"] == 2)].iloc[0]
    expected = paired_difference(frames[2]["focus_won"].to_numpy(float), frames[0]["focus_won"].to_numpy(float))
    assert row["diff"] == pytest.approx(expected["diff"]) and row["ci_low_diff"] == pytest.approx(expected["ci_low"])
    assert row["wins"] == int(frames[2]["focus_won"].sum())


def test_game_length_is_the_direct_simulation(small):
    frame = _direct(4, "leader")
    row = small.data.length_summary.set_index("players").loc[4]
    assert row["mean"] == pytest.approx(frame["turns"].mean()) and row["max"] == frame["turns"].max()
    assert row["median"] == np.quantile(frame["turns"], 0.5, method="inverted_cdf")
    assert row["unfinished"] == pytest.approx(frame["unfinished"].mean())
    _inside(small.data.length_summary, "unfinished", "unfinished_ci_low", "unfinished_ci_high")
    shares = small.data.lengths.groupby("players")["share"].sum()
    np.testing.assert_allclose(shares, 1.0)
    assert (small.data.lengths.groupby("players")["games"].sum() == SMALL_GAMES).all()


def test_policy_matrix_cells_are_direct_simulations(small):
    matrix = small.data.matrix
    assert len(matrix) == len(PLAN.policies) * len(PLAN.fields)
    _inside(matrix, "rate", "ci_low", "ci_high")
    _inside(matrix, "excess", "excess_ci_low", "excess_ci_high")
    np.testing.assert_allclose(matrix["excess"], matrix["rate"] - 0.25)
    cells = matrix.set_index(["focus", "field"])
    for focus, field in (("defensive", "leader"), ("random", "spread"), ("weakest_link", "weakest_link")):
        frame = _direct(4, {"focus": focus, "field": field})
        assert cells.loc[(focus, field), "wins"] == int(frame["focus_won"].sum())
        assert cells.loc[(focus, field), "mean_turns"] == pytest.approx(frame["turns"].mean())
    # leader everywhere with the focus rotating: the focus wins when seat i mod 4 wins game i
    seats = _direct(4, "leader")
    rotating = int((seats["winner_seat"].to_numpy() == seats["game_index"].to_numpy() % 4).sum())
    assert cells.loc[("leader", "leader"), "wins"] == rotating


def test_card_dealt_splits_the_focus_seats_games_by_its_bit(small):
    dealt = small.data.dealt
    frame = _direct(4, "leader")
    if reduce.DEALT not in frame:
        pytest.fail("the engines give no focus_dealt column")
    cards = deck_of().cards
    assert list(dealt["card"]) == [card.name for card in cards]
    assert ((dealt["n_dealt"] + dealt["n_not"]) == SMALL_GAMES).all()
    for column in ("dealt", "not"):
        _inside(dealt, f"rate_{column}", f"ci_low_{column}", f"ci_high_{column}")
    _inside(dealt, "diff", "ci_low", "ci_high")
    bits = frame[reduce.DEALT].to_numpy(np.int64)
    assert (bits < (1 << len(cards))).all() and (bits > 0).all()
    won = frame["focus_won"].to_numpy()
    for k in (0, len(cards) - 1):
        has = (bits >> k) & 1 == 1
        row = dealt.iloc[k]
        assert row["n_dealt"] == int(has.sum())
        assert row["rate_dealt"] == pytest.approx(won[has].mean())
        assert row["diff"] == pytest.approx(won[has].mean() - won[~has].mean())


def test_removal_runs_are_paired_on_the_same_game_indices(small):
    out = Path(small.out)
    removal = small.data.removal
    assert len(removal) == 2 * len(PLAN.cards)
    _inside(removal, "diff", "ci_low", "ci_high")
    for measure in ("turns", "seat0_win"):
        part = removal[removal["measure"] == measure]
        np.testing.assert_allclose(part["p_holm"], holm(part["p_value"]))
    columns = ["game_index", "turns", "winner_seat", "deck"]
    default = pd.read_parquet(out / "runs" / "seats" / "p4" / "games.parquet", columns=columns)
    for name in (PLAN.cards[0], PLAN.cards[-1]):
        slug = re.sub(r"[^a-z0-9_.=+-]+", "-", name.lower()).strip("-")
        run = pd.read_parquet(out / "runs" / "without" / slug / "games.parquet", columns=columns)
        np.testing.assert_array_equal(run["game_index"], default["game_index"])   # the same games, in order
        assert set(run["deck"].astype(str)) == {deck_of("default", name).label}
        rows = removal[removal["card"] == name].set_index("measure")
        assert rows.loc["turns", "deck_without"] == deck_of("default", name).label
        expected = paired_difference(run["turns"].to_numpy(float), default["turns"].to_numpy(float))
        assert rows.loc["turns", "diff"] == pytest.approx(expected["diff"])
        assert rows.loc["turns", "ci_low"] == pytest.approx(expected["ci_low"])
        seat0 = paired_difference((run["winner_seat"] == 0).to_numpy(float),
                                  (default["winner_seat"] == 0).to_numpy(float))
        assert rows.loc["seat0_win", "diff"] == pytest.approx(seat0["diff"])
    direct = _direct(4, "leader", options={"without_card": PLAN.cards[0]})
    row = removal[(removal["card"] == PLAN.cards[0]) & (removal["measure"] == "turns")].iloc[0]
    assert row["value_without"] == pytest.approx(direct["turns"].mean())


def test_sensitivity_decks_load_back_and_are_the_runs_played(small):
    out = Path(small.out)
    table = small.data.deck_sensitivity
    assert len(table) == 1 + PLAN.deck_variants and not table["scaled"].iloc[0] and table["scaled"].iloc[1:].all()
    assert table["deck"].iloc[0] == deck_of().label
    for column in ("seat0", "unfinished"):
        center = "seat0_rate" if column == "seat0" else "unfinished"
        _inside(table, center, f"{column}_ci_low", f"{column}_ci_high")
    counts = small.data.deck_counts
    for row in table.iloc[1:].itertuples():
        loaded = load_deck(out / row.file)
        assert loaded.label == row.deck and loaded.reconstructed and loaded.size == row.size
        mine = counts[counts["deck"] == row.deck]
        assert list(mine["count"]) == [card.count for card in loaded.cards]
    row = table.iloc[1]
    frame = _direct(4, "leader", options={"deck": str(out / row["file"])})
    assert set(frame["deck"].astype(str)) == {row["deck"]}
    assert row["seat0_rate"] == pytest.approx((frame["winner_seat"] == 0).mean())
    assert row["mean_turns"] == pytest.approx(frame["turns"].mean())


def test_readings_quote_the_numbers_of_their_tables(small):
    readings = small.readings
    d = small.data
    fair = d.first_player[d.first_player["against"] == "fair share"]
    for r in fair.itertuples():
        assert f"{pct(r.seat0_rate)} at {r.players} players ({points(r.diff)} points" in readings["seat_win_rates"]
    for r in d.length_summary.itertuples():
        assert f"{r.mean:.1f} turns on average at {r.players} players (median {r.median:g}" in readings["game_length"]
    best = d.matrix.loc[d.matrix["excess"].idxmax()]
    worst = d.matrix.loc[d.matrix["excess"].idxmin()]
    assert f"best focus is {best['focus']} against a {best['field']} field ({pct(best['rate'])}" in \
        readings["policy_matrix"]
    assert f"worst {worst['focus']} against {worst['field']} ({pct(worst['rate'])}" in readings["policy_matrix"]
    turns = d.removal[d.removal["measure"] == "turns"]
    longer = turns.loc[turns["diff"].idxmax()]
    assert f"removing {longer['card']} changes the mean game by {longer['diff']:+.2f} turns" in readings["card_values"]
    scaled = d.deck_sensitivity.iloc[1:]
    assert f"seat 0 wins {pct(scaled['seat0_rate'].min())}-{pct(scaled['seat0_rate'].max())}" in \
        readings["deck_sensitivity"]
    tested = d.focus_seats[d.focus_seats["seat"] > 0]
    assert f"{int(tested['survives'].sum())} of the {len(tested)} seat changes" in readings["focus_by_seat"]


def test_recommendations_follow_the_numbers(small):
    rows = small.recommendations["rows"]
    table = recommend.first_player(small.data)
    for row, cell in zip(rows, table.itertuples()):
        assert f"at {cell.players} players" in row[0]
        assert row[1] == recommend.verdict(cell.diff)
        assert f"{100 * cell.diff:+.2f}" in row[3]
    band = recommend.FIRST_PLAYER_BAND
    assert recommend.verdict(0.99 * band) == "fair" and recommend.verdict(-0.99 * band) == "fair"
    assert recommend.verdict(2 * band) == "favours the first player"
    assert recommend.verdict(-2 * band) == "against the first player"


def test_rerun_resumes_from_the_run_folder(small):
    frames = sorted((Path(small.out) / "runs").rglob("games.parquet"))
    assert len(frames) == small.data.plan.run_count
    stamps = {path: path.stat().st_mtime_ns for path in frames}
    again = report("gifts", small.out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)
    assert {path: path.stat().st_mtime_ns for path in frames} == stamps
    assert again.readings == small.readings


def test_report_command_prints_recommendations_summary_and_readings(small, capsys):
    from cursedsim.cli import main
    try:
        main(["report", "gifts", "--out", small.out, "--games", str(SMALL_GAMES), "--seed", str(SMALL_SEED),
              "--jobs", "1", "--no-progress", "--tuned", "none"])
        status = 0
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "recommendations" in out and "reconstructed" in out
    seat0 = small.data.seats.set_index(["players", "seat"]).loc[(4, 0)]
    assert f"{100 * seat0['rate']:.1f}" in out
    for figure in small.figures:
        assert figure.title in out
    assert "6 figures" in err


def test_the_experiment_script_gives_the_reports_tables(small, tmp_path, monkeypatch):
    """experiments/gifts_balance.py on the report's seed and games gives the report's seat rates, policy
    matrix and card values, and writes its files."""
    import json
    import sys

    from conftest import ROOT
    sys.path.insert(0, str(Path(ROOT, "experiments")))
    try:
        import gifts_balance
    finally:
        sys.path.remove(str(Path(ROOT, "experiments")))
    monkeypatch.setattr(gifts_balance, "results_dir", lambda game: tmp_path)
    monkeypatch.setattr(gifts_balance, "shown", lambda *paths: ", ".join(str(p) for p in paths))
    gifts_balance.main(["--games", str(SMALL_GAMES), "--seed", str(SMALL_SEED), "--jobs", "1"])
    for name in ("seat_win_rates", "first_player_advantage", "policy_matrix", "card_dealt", "card_removal"):
        mine = pd.read_csv(tmp_path / f"{name}.csv")
        theirs = pd.read_csv(Path(small.out) / "tables" / f"{name}.csv")
        assert list(mine.columns) == list(theirs.columns), name
        pd.testing.assert_frame_equal(mine, theirs, check_exact=False, rtol=1e-5)
    balance = json.loads((tmp_path / "balance.json").read_text())
    assert balance["deck"] == deck_of().label and balance["deck_reconstructed"]
    table = recommend.first_player(small.data).set_index("players")
    for players, entry in balance["players"].items():
        assert entry["verdict"] == table.loc[int(players), "verdict"]
    for name in ("seat_win_rates", "policy_matrix"):
        assert (tmp_path / f"{name}.png").stat().st_size > 1000


# ---------------------------------------------------------------- another deck (--deck FILE)

DECK_GAMES = 40


def _my_deck(path: Path, *, name: str = "my-deck", first_count: int = 9, reconstructed: bool = False) -> Path:
    """The default deck file with another name, its ``reconstructed`` flag, the first card kind renamed
    ("Small Gift") and its count changed: a different deck (label, kinds and counts)."""
    text = gifts_deck.DEFAULT_DECK.read_text(encoding="utf-8")
    first = deck_of().cards[0]
    text = re.sub(r'^name = ".*"$', f'name = "{name}"', text, count=1, flags=re.M)
    text = re.sub(r"^reconstructed = \w+$", f"reconstructed = {'true' if reconstructed else 'false'}", text,
                  count=1, flags=re.M)
    block = text.index(f'name = "{first.name}"')
    head, tail = text[:block], text[block:]
    tail = tail.replace(f'name = "{first.name}"', 'name = "Small Gift"', 1)
    tail = re.sub(rf"^count = {first.count}\b", f"count = {first_count}", tail, count=1, flags=re.M)
    path.write_text(head + tail, encoding="utf-8")
    deck = load_deck(path)
    assert deck.cards[0].name == "Small Gift" and deck.cards[0].count == first_count
    return path


def _deck_report(out: Path, deck: Path, **kwargs):
    return report("gifts", out, n_games=DECK_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None,
                  deck=deck, **kwargs)


def _run_decks(runs: Path) -> dict[str, set[str]]:
    """Run directory (relative) -> the deck labels its frame played."""
    return {str(path.parent.relative_to(runs)): set(pd.read_parquet(path, columns=["deck"])["deck"].astype(str))
            for path in runs.rglob("games.parquet")}


def test_a_report_on_another_deck_plays_it_everywhere_and_names_it(tmp_path):
    import json
    path = _my_deck(tmp_path / "my_deck.toml")
    mine = load_deck(path)
    kinds = tuple(card.name for card in mine.cards)
    out = tmp_path / "report"
    result = _deck_report(out, path)
    data = result.data
    assert data.deck_label == mine.label != deck_of().label and not data.deck_reconstructed
    assert data.deck_file == str(path.resolve()) and data.plan.deck == str(path.resolve())
    # figure 5's kinds are the deck's (the renamed one in, the default's first kind out)
    assert data.plan.cards == kinds and "Small Gift" in kinds and deck_of().cards[0].name not in kinds
    assert set(data.removal["card"]) == set(kinds) and list(data.dealt["card"]) == list(kinds)
    assert set(data.removal["deck_without"]) == {mine.without(k).label for k in kinds}
    # every table names the deck played; the sensitivity decks are scaled from it
    for name, table in data.tables.items():
        if name not in ("deck_sensitivity", "deck_counts"):
            assert (table["deck"] == mine.label).all() and not table["deck_reconstructed"].any(), name
    sens = data.deck_sensitivity
    assert sens["deck"].iloc[0] == mine.label and sens["file"].iloc[0] == str(path.resolve())
    assert all(label.startswith("my-deck-scaled-") for label in sens["deck"].iloc[1:])
    first = data.deck_counts[data.deck_counts["card"] == "Small Gift"]
    assert len(first) == PLAN.deck_variants and (first["default_count"] == 9).all()
    for file in sens["file"].iloc[1:]:
        assert load_deck(out / file).name.startswith("my-deck-scaled-")
    # every run played it, with options {"deck": path}; the runs' marker holds its label and file
    runs = out / "runs"
    played = _run_decks(runs)
    assert len(played) == data.plan.run_count
    for folder, labels in played.items():
        if folder.startswith(("seats", "focus_seat", "matrix")):
            assert labels == {mine.label}, folder
            assert json.loads((runs / folder / "run.json").read_text())["options"]["deck"] == str(path.resolve())
    marker = json.loads((runs / "report-runs.json").read_text())
    assert marker["settings"] == {"deck": mine.label, "deck_file": str(path.resolve())}
    seats = pd.read_parquet(runs / "seats" / "p4" / "games.parquet", columns=["turns", "winner_seat"])
    direct = cursedsim.simulate("gifts", DECK_GAMES, players=4, policy="leader", seed=SMALL_SEED, progress=False,
                                options={"deck": str(path)})
    np.testing.assert_array_equal(seats["turns"], direct["turns"])
    # the documents name it, with its file and flag
    header = (out / "report.md").read_text().split("## Recommendations")[0]
    assert mine.label in header and "not marked reconstructed" in header and str(path.resolve()) in header
    assert f"--deck {path}" in (out / "report.md").read_text()
    assert mine.label in result.recommendations["title"] and "reconstructed" not in result.recommendations["title"]


def test_a_broken_deck_file_fails_at_once_with_the_validators_line(tmp_path, capsys):
    from cursedsim.cli import main
    from cursedsim.errors import CursedsimError
    path = _my_deck(tmp_path / "broken.toml")
    path.write_text(path.read_text().replace('effect = "mugging"', 'effect = "muging"'))
    with pytest.raises(gifts_deck.DeckError) as error:
        _deck_report(tmp_path / "report", path)
    message = str(error.value)
    assert "line " in message and "field 'effect'" in message and "muging" in message and "\n" not in message
    assert not (tmp_path / "report").exists()   # nothing written, nothing played
    for game, deck, expected in (("gifts", path, message), ("cursed", tmp_path / "any.toml", "only the gifts")):
        try:
            main(["report", game, "--out", str(tmp_path / "cli"), "--games", "10", "--jobs", "1", "--no-progress",
                  "--tuned", "none", "--deck", str(deck)])
            status = 0
        except SystemExit as exit:
            status = exit.code
        err = capsys.readouterr().err
        assert status == 2 and err.strip().count("\n") == 0 and expected in err, err
        assert not (tmp_path / "cli").exists()
    with pytest.raises(CursedsimError, match="only the gifts report takes a deck"):
        report("cursed", tmp_path / "cursed", n_games=10, n_jobs=1, progress=False, tuned=None, deck=path)


def test_resuming_with_another_deck_replays_every_run(tmp_path):
    import os
    path = _my_deck(tmp_path / "deck.toml", first_count=9)
    out = tmp_path / "report"
    first = _deck_report(out, path)
    runs = out / "runs"
    # the same file rewritten with another count: same path, another label; nothing of the first deck stays
    _my_deck(path, first_count=5)
    second = load_deck(path)
    assert second.label != first.data.deck_label
    again = _deck_report(out, path)
    assert again.data.deck_label == second.label
    played = _run_decks(runs)
    assert len(played) == again.data.plan.run_count
    assert not any(first.data.deck_label in labels for labels in played.values())
    assert played["seats/p4"] == {second.label}
    old_variants = set(first.data.deck_sensitivity["deck"].iloc[1:])
    assert not old_variants & set().union(*played.values())
    assert {p.name for p in (out / "decks").glob("*.toml")} == {os.path.basename(f) for f in
                                                               again.data.deck_sensitivity["file"].iloc[1:]}
    direct = cursedsim.simulate("gifts", DECK_GAMES, players=4, policy="leader", seed=SMALL_SEED, progress=False,
                                options={"deck": str(path)})
    seats = pd.read_parquet(runs / "seats" / "p4" / "games.parquet", columns=["turns"])
    np.testing.assert_array_equal(seats["turns"], direct["turns"])
    # the same deck again resumes every run (nothing replayed); another file path replays
    stamps = {p: p.stat().st_mtime_ns for p in runs.rglob("games.parquet")}
    _deck_report(out, path)
    assert {p: p.stat().st_mtime_ns for p in runs.rglob("games.parquet")} == stamps
    copy = tmp_path / "copy.toml"
    copy.write_text(path.read_text())
    _deck_report(out, copy)
    assert all(p.stat().st_mtime_ns != stamps[p] for p in stamps)


def test_runs_key_their_folder_on_the_settings(tmp_path):
    """Runs with other settings (another deck's label) empty the run folder; without settings the marker
    is as before."""
    import json

    from cursedsim.report.data import RUNS_MARKER, Runs
    from cursedsim.runner import resolve_game
    game = resolve_game("gifts")

    def runs(settings):
        return Runs(game, str(tmp_path), n_games=10, seed=1, n_jobs=1, settings=settings)

    folder = Path(runs(None).folder)
    assert "settings" not in json.loads((folder / RUNS_MARKER).read_text())
    runs({"deck": "a@1"})
    (folder / "kept").mkdir()
    runs({"deck": "a@1"})
    assert (folder / "kept").is_dir()   # the same settings resume
    runs({"deck": "b@2"})
    assert not (folder / "kept").exists()   # other settings: replaced
    assert json.loads((folder / RUNS_MARKER).read_text())["settings"] == {"deck": "b@2"}
