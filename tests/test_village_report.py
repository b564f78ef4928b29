"""The So, You've Been Cursed. balance report: a small real report (a smaller plan: every policy of both
sides, one generated board and one length of each track) builds with every figure and table; its numbers
are those of direct simulations of the same games (each pairing's win rates, lengths, Panic effects; a
player policy against its side's automaton paired on the same game indices); the RECONSTRUCTED board's
label is in the header and every table; the generated boards and track variants load back from their
files and are the boards the runs played; the balance point is the linear interpolation worked by hand;
the report's files are written atomically. With ``--board FILE`` every run plays that board and the report
names it; a broken board file fails at once naming its field and line."""

from __future__ import annotations

import dataclasses
import json
import math
from html import unescape as html_unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim.games.village import board as village_board
from cursedsim.games.village import rules
from cursedsim.games.village.board import board_of, generate, load_board
from cursedsim.games.village.policy_specs import MONSTER_POLICIES, WIZARD_POLICIES
from cursedsim.report import report
from cursedsim.report.figures import pct, points
from cursedsim.report.village import boards, data, recommend, reduce
from cursedsim.report.village import FIGURES
from cursedsim.stats import holm, paired_difference, wilson_interval

SMALL_GAMES = 6
SMALL_SEED = 11
#: The default plan cut down for the test suite's time budget (every pairing still played).
SMALL_PLAN = dataclasses.replace(data.PLAN, generated_boards=1, curse_lengths=(24,), cure_lengths=(4,),
                                 board_seed=5, sensitivity=("rabid_curse_length", "rabid_path", "board"),
                                 sensitivity_boards=1, trajectory_games=4)
#: The small plan's sensitivity runs: rabid_curse_length ±2 and rabid_path in the two Rabid Monster modes,
#: a generated board in all four.
SMALL_SENSITIVITY_RUNS = 2 * 2 + 2 + 4


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A real village report with few games per cell and the small plan, made once per test process."""
    out = tmp_path_factory.mktemp("village_report")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(data, "PLAN", SMALL_PLAN)
        return report("village", out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)


def _direct(wizard: str, monster: str, **options) -> pd.DataFrame:
    return cursedsim.simulate("village", SMALL_GAMES, policy={"wizard": wizard, "monster": monster}, seed=SMALL_SEED,
                              progress=False, n_jobs=1, options=options or None)


def _row(table: pd.DataFrame, wizard: str, monster: str, **where) -> pd.Series:
    mask = (table["wizard"] == wizard) & (table["monster"] == monster)
    for key, value in where.items():
        mask &= table[key] == value
    assert mask.sum() == 1, (wizard, monster, where)
    return table[mask].iloc[0]


# ---------------------------------------------------------------- the plan, the boards, the balance point

def test_the_plan_covers_every_policy_mode_and_track():
    plan = data.PLAN
    assert plan.wizards == tuple(WIZARD_POLICIES) and plan.monsters == tuple(MONSTER_POLICIES)
    assert {mode for mode, _, _ in plan.pairings} == set(rules.MODES)
    for mode, wizard, monster in plan.pairings:   # each mode's pairing plays that mode (rules.mode_of)
        assert rules.mode_of(wizard == "possessed", monster == "rabid") == mode
    assert plan.pairing(rules.AUTOMATA) == ("possessed", "rabid")
    assert set(plan.study_modes) == {rules.AUTOMATA, rules.RABID_MONSTER, rules.POSSESSED_WIZARD}
    assert 12 <= plan.generated_boards <= 20
    assert min(plan.curse_lengths) < board_of().curse[0][1] < max(plan.curse_lengths)
    assert min(plan.cure_lengths) < len(board_of().cure[0][1]) < max(plan.cure_lengths)
    assert plan.run_count == 9 + 3 * (1 + plan.generated_boards + len(plan.curse_lengths) + len(plan.cure_lengths))


def test_a_bad_plan_fails_before_anything_is_played(tmp_path):
    from cursedsim.report.data import ReportError
    for change, message in ((dict(curse_lengths=(2,)), "curse_lengths must be in 3..30"),
                            (dict(pairings=(("automata", "planner", "rabid"),)), "does not play the mode automata"),
                            (dict(generated_boards=-1), "generated_boards must be 0 or more")):
        with pytest.raises(ReportError, match=message):
            data.collect(str(tmp_path / "r"), n_games=4, seed=1, n_jobs=1,
                         plan=dataclasses.replace(SMALL_PLAN, **change))
    assert not (tmp_path / "r").exists()


def test_board_files_round_trip_and_change_only_their_track(tmp_path):
    base = board_of()
    same = boards.write(str(tmp_path), "same", boards.document(base), "base", 0)
    assert same.board.digest == base.digest and same.board.reconstructed   # every field written back
    generated = boards.generated(str(tmp_path), 2, 40)
    for k, bf in enumerate(generated):
        assert bf.board.digest == generate(40 + k).digest and bf.board.reconstructed
        assert load_board(tmp_path / bf.file).label == bf.board.label
    base_doc = boards.document(base)
    for track, length in (("curse", 20), ("cure", 5), ("cure", 30)):
        bf = boards.track_variants(str(tmp_path), base, track, [length])[0]
        assert boards.track_length(bf.board, track) == length and bf.board.reconstructed
        doc = boards.document(bf.board)
        for key in base_doc:
            if key not in (track, "name", "description"):
                assert doc[key] == base_doc[key], key
        if track == "cure":   # the sequence's first spaces, then it again from its start
            sequence = list(base.cure[0][1])
            assert list(bf.board.cure[0][1]) == (sequence * 3)[:length]
        else:
            assert all(length == n and start == 0 for _, n, start in bf.board.curse)


def test_balance_point_is_the_linear_interpolation():
    # 12 spaces: 40%, 16 spaces: 80%: 50% is a quarter of the way, at 13
    assert reduce.balance_point([8, 12, 16], [0.2, 0.4, 0.8]) == pytest.approx(13.0)
    assert reduce.balance_point([16, 8, 12], [0.8, 0.2, 0.4]) == pytest.approx(13.0)   # any order
    assert reduce.balance_point([4, 8], [0.9, 0.1]) == pytest.approx(4 + 4 * 0.4 / 0.8)   # falling
    assert reduce.balance_point([3, 5, 7], [0.1, 0.5, 0.9]) == 5.0
    assert math.isnan(reduce.balance_point([8, 12], [0.0, 0.3]))


# ---------------------------------------------------------------- the small report

def test_small_report_has_every_figure_table_and_reading(small):
    out = Path(small.out)
    names = [figure.name for figure in small.figures]
    assert len(names) == len(FIGURES) == 8 and len(set(names)) == 8
    for name in names:
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000
    label = board_of().label
    assert label.startswith("reconstructed-village-v1@")
    for name in small.data.tables:
        table = pd.read_csv(out / "tables" / f"{name}.csv")
        assert len(table) > 0, name
        assert "board" in table and table["board_reconstructed"].all(), name   # every table names its board
    for name in ("pairings", "game_length", "game_length_summary", "panic_effects", "player_vs_automaton",
                 "balance_points"):
        assert (pd.read_csv(out / "tables" / f"{name}.csv")["board"] == label).all(), name
    markdown = (out / "report.md").read_text()
    html = html_unescape((out / "report.html").read_text())
    header = markdown.split("## Recommendations")[0]
    assert label in header and "RECONSTRUCTED" in header
    assert label in small.recommendations["note"] and "RECONSTRUCTED" in small.recommendations["title"]
    for figure in small.figures:
        assert figure.reading and figure.title in markdown and figure.reading in markdown and figure.title in html
        assert label in figure.reading
    assert small.data.runs == SMALL_PLAN.run_count + SMALL_SENSITIVITY_RUNS
    assert small.data.games_played == (SMALL_PLAN.run_count + SMALL_SENSITIVITY_RUNS) * SMALL_GAMES
    assert not list(out.rglob("*.tmp*")) and not [p for p in out.rglob("*") if p.name.startswith(".")]


def test_the_report_is_written_atomically(small, tmp_path, monkeypatch):
    """A report whose writing fails leaves the old files as they were, and no partial file."""
    from cursedsim.report import writer
    out = Path(small.out)
    before = {p: p.read_bytes() for p in (out / "report.md", out / "report.html")}

    def broken(path, content):
        raise OSError("disk full")

    monkeypatch.setattr(writer, "write_atomic", broken)
    monkeypatch.setattr(data, "PLAN", SMALL_PLAN)
    with pytest.raises(OSError, match="disk full"):
        report("village", out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)
    assert {p: p.read_bytes() for p in before} == before


def test_pairings_are_direct_simulations_and_add_up(small):
    table = small.data.pairings
    assert len(table) == len(WIZARD_POLICIES) * len(MONSTER_POLICIES)
    for r in table.itertuples():
        assert r.wizard_wins + r.monster_wins + round(r.unfinished * r.n) == r.n == SMALL_GAMES
        for side in ("wizard", "monster"):
            low, high = wilson_interval(getattr(r, f"{side}_wins"), r.n)
            assert getattr(r, f"{side}_ci_low") == pytest.approx(low)
            assert getattr(r, f"{side}_ci_high") == pytest.approx(high)
    for mode, wizard, monster in SMALL_PLAN.pairings:
        frame = _direct(wizard, monster)
        row = _row(table, wizard, monster)
        assert row["mode"] == mode == str(frame["mode"].iloc[0])
        assert row["wizard_wins"] == int(frame["wizard_won"].sum())
        assert row["monster_wins"] == int(frame["monster_won"].sum())
        assert row["mean_turns"] == pytest.approx(frame["turns"].mean())


def test_game_length_and_panic_effects_are_what_the_frames_say(small):
    d = small.data
    for (wizard, monster), part in d.lengths.groupby(["wizard", "monster"]):
        assert part["games"].sum() == SMALL_GAMES and part["share"].sum() == pytest.approx(1.0)
    mode, wizard, monster = SMALL_PLAN.pairings[0]
    frame = _direct(wizard, monster)
    counts = frame["turns"].value_counts()
    rows = d.lengths[(d.lengths["wizard"] == wizard) & (d.lengths["monster"] == monster)]
    assert dict(zip(rows["turns"], rows["games"])) == {int(t): int(c) for t, c in counts.items()}
    summary = _row(d.length_summary, wizard, monster)
    assert summary["max"] == frame["turns"].max()
    # the Possessed Wizard side's effects in the 0-player game, at the levels of the board file
    panic = d.panic[(d.panic["wizard"] == wizard) & (d.panic["monster"] == monster)]
    assert set(panic["village_side"]) == {"possessed"}
    assert set(panic["effect"]) == {"extra_action", "stay_inside", "extra_feeding_card"}
    levels = dict(dict(board_of().panic)["possessed"].effects)
    for r in panic.itertuples():
        fired = frame[f"fired_{r.effect}"].to_numpy()
        assert r.games_fired == int((fired > 0).sum()) and r.from_level == levels[r.printed]
        first = frame[f"first_{r.effect}"].to_numpy()[fired > 0]
        if len(first):
            assert r.first_turn_mean == pytest.approx(first.mean())
    solo = d.panic[(d.panic["wizard"] == "planner") & (d.panic["monster"] == "rabid")]
    assert set(solo["village_side"]) == {"wizard"} and "cheaper_ingredients" in set(solo["effect"])


def test_player_policies_are_paired_with_the_automata_on_the_same_games(small):
    adv = small.data.advantage
    expected = {("wizard", w, m) for w in WIZARD_POLICIES if w != "possessed" for m in MONSTER_POLICIES} | \
               {("monster", m, w) for m in MONSTER_POLICIES if m != "rabid" for w in WIZARD_POLICIES}
    assert set(zip(adv["side"], adv["policy"], adv["opponent"])) == expected
    np.testing.assert_allclose(adv["p_holm"], holm(adv["p_value"].to_numpy(float)))
    row = adv[(adv["side"] == "wizard") & (adv["policy"] == "planner") & (adv["opponent"] == "rabid")].iloc[0]
    planner, possessed = _direct("planner", "rabid"), _direct("possessed", "rabid")
    d = paired_difference(planner["wizard_won"].to_numpy(float), possessed["wizard_won"].to_numpy(float))
    assert row["diff"] == pytest.approx(d["diff"]) and row["ci_low"] == pytest.approx(d["ci_low"])
    assert row["rate_policy"] == pytest.approx(planner["wizard_won"].mean())
    assert row["mode_policy"] == "rabid_monster" and row["mode_automaton"] == "automata"
    with pytest.raises(Exception, match="not the same games"):
        reduce.advantage_row(planner.iloc[1:], possessed.iloc[:-1], "wizard", "planner", "possessed", "rabid")


def test_generated_boards_and_track_variants_are_the_boards_played(small):
    out = Path(small.out)
    d = small.data
    gen = d.generated
    assert list(gen["kind"].iloc[:3]) == ["base"] * 3 and (gen["board"].iloc[:3] == board_of().label).all()
    generated = gen[gen["kind"] == "generated"]
    assert len(generated) == len(SMALL_PLAN.study_modes) * SMALL_PLAN.generated_boards
    assert {json_name.name for json_name in (out / "boards").glob("*.json")} == \
        {Path(f).name for f in pd.concat([generated["file"], d.tracks[d.tracks["file"] != "(default)"]["file"]])}
    for r in generated.itertuples():
        assert load_board(out / r.file).label == r.board == generate(r.value).label
    r = generated[generated["mode"] == rules.AUTOMATA].iloc[0]
    frame = _direct("possessed", "rabid", board=str(out / r.file))
    assert r.wizard_wins == int(frame["wizard_won"].sum()) and r.mean_turns == pytest.approx(frame["turns"].mean())
    tracks = d.tracks
    for track, base_length in d.track_lengths.items():
        part = tracks[tracks["kind"] == track]
        assert set(part["value"]) == {base_length, *getattr(SMALL_PLAN, f"{track}_lengths")}
        for r in part.itertuples():
            played = board_of() if r.file == "(default)" else load_board(out / r.file)
            assert played.label == r.board and boards.track_length(played, track) == r.value
    for r in d.balance.itertuples():
        part = tracks[(tracks["kind"] == r.track) & (tracks["mode"] == r.mode)]
        expected = reduce.balance_point(part["value"], part["wizard_rate"])
        assert (math.isnan(expected) and math.isnan(r.balance_length)) or r.balance_length == pytest.approx(expected)


def test_readings_and_recommendations_quote_their_numbers(small):
    readings = small.readings
    d = small.data
    automata = _row(d.pairings, "possessed", "rabid")
    assert f"The Wizard wins {pct(automata['wizard_rate'])} in the 0-player game (possessed vs rabid)" in \
        readings["pairings"]
    s = _row(d.length_summary, "possessed", "rabid")
    assert f"median {s['median']} turns in the 0-player game" in readings["game_length"]
    adv = d.advantage
    r = adv[(adv["side"] == "monster") & (adv["policy"] == "glutton") & (adv["opponent"] == "possessed")].iloc[0]
    assert f"glutton in place of rabid against possessed: {points(r['diff'])} points" in readings["player_vs_automaton"]
    rows = small.recommendations["rows"]
    assert rows[0][1] == recommend.verdict(automata["wizard_rate"])
    band = recommend.BALANCE_BAND
    assert recommend.verdict(0.5 + 0.99 * band) == "balanced" and recommend.verdict(0.5 - 0.99 * band) == "balanced"
    assert recommend.verdict(0.5 + 2 * band) == "favours the Wizard"
    assert recommend.verdict(0.02) == "favours the Monster"


def test_rerun_resumes_from_the_run_folder(small, monkeypatch):
    frames = sorted((Path(small.out) / "runs").rglob("games.parquet"))
    assert len(frames) == SMALL_PLAN.run_count + SMALL_SENSITIVITY_RUNS
    stamps = {path: path.stat().st_mtime_ns for path in frames}
    monkeypatch.setattr(data, "PLAN", SMALL_PLAN)
    again = report("village", small.out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)
    assert {path: path.stat().st_mtime_ns for path in frames} == stamps
    assert again.readings == small.readings


def test_the_experiment_script_gives_the_reports_tables(small, tmp_path, monkeypatch):
    """experiments/village_balance.py on the report's seed and games gives the report's tables and writes
    its files (the board files it played among them)."""
    import sys

    from conftest import ROOT
    sys.path.insert(0, str(Path(ROOT, "experiments")))
    try:
        import village_balance
    finally:
        sys.path.remove(str(Path(ROOT, "experiments")))
    monkeypatch.setattr(village_balance, "results_dir", lambda game: tmp_path)
    monkeypatch.setattr(village_balance, "shown", lambda *paths: ", ".join(str(p) for p in paths))
    monkeypatch.setattr(data, "PLAN", SMALL_PLAN)
    village_balance.main(["--games", str(SMALL_GAMES), "--seed", str(SMALL_SEED), "--jobs", "1"])
    for name in small.data.tables:
        mine = pd.read_csv(tmp_path / f"{name}.csv")
        theirs = pd.read_csv(Path(small.out) / "tables" / f"{name}.csv")
        assert list(mine.columns) == list(theirs.columns), name
        pd.testing.assert_frame_equal(mine, theirs, check_exact=False, rtol=1e-5)
    balance = json.loads((tmp_path / "balance.json").read_text())
    assert balance["board"] == board_of().label and balance["board_reconstructed"]
    assert balance["modes"]["automata"]["verdict"] == small.recommendations["rows"][0][1]
    for figure in small.figures:
        assert (tmp_path / f"{figure.name}.png").stat().st_size > 1000
    assert sorted(p.name for p in (tmp_path / "boards").glob("*.json")) == \
        sorted(p.name for p in (Path(small.out) / "boards").glob("*.json"))


# ---------------------------------------------------------------- another board (--board FILE)

BOARD_GAMES = 4
TINY_PLAN = dataclasses.replace(SMALL_PLAN, wizards=("possessed", "planner"), monsters=("rabid",),
                                pairings=(("automata", "possessed", "rabid"), ("rabid_monster", "planner", "rabid")),
                                study_modes=("automata",), generated_boards=0)


def _my_board(path: Path, curse: int = 20) -> Path:
    """The default board, not marked reconstructed, renamed, with Curse tracks of ``curse`` spaces."""
    content = boards.document(board_of(), name="my-board")
    content["reconstructed"] = False
    for side in content["curse"].values():
        side["length"] = curse
    path.write_text(json.dumps(content), encoding="utf-8")
    return path


def test_a_report_on_another_board_plays_it_everywhere_and_names_it(tmp_path, monkeypatch):
    path = _my_board(tmp_path / "my_board.json")
    mine = load_board(path)
    out = tmp_path / "report"
    monkeypatch.setattr(data, "PLAN", TINY_PLAN)
    result = report("village", out, n_games=BOARD_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None,
                    board=path)
    d = result.data
    assert d.board_label == mine.label != board_of().label and not d.board_reconstructed
    assert d.board_file == str(path.resolve()) and d.track_lengths["curse"] == 20
    for name in ("pairings", "game_length", "panic_effects", "player_vs_automaton", "balance_points"):
        assert (d.tables[name]["board"] == mine.label).all() and not d.tables[name]["board_reconstructed"].any()
    # the track variants are variants of my board (its other Curse length, its Cure lengths)
    assert all(label.startswith("my-board-") for label in d.tracks.loc[d.tracks["file"] != str(path.resolve()),
                                                                          "board"])
    runs = out / "runs"
    for frame in runs.joinpath("pairings").rglob("games.parquet"):
        assert set(pd.read_parquet(frame, columns=["board"])["board"].astype(str)) == {mine.label}
    marker = json.loads((runs / "report-runs.json").read_text())
    assert marker["settings"] == {"board": mine.label, "board_file": str(path.resolve())}
    direct = cursedsim.simulate("village", BOARD_GAMES, seed=SMALL_SEED, progress=False, n_jobs=1,
                                options={"board": str(path)})
    assert _row(d.pairings, "possessed", "rabid")["wizard_wins"] == int(direct["wizard_won"].sum())
    markdown = (out / "report.md").read_text()
    header = markdown.split("## Recommendations")[0]
    assert mine.label in header and "not marked reconstructed" in header and f"--board {path}" in markdown


def test_a_broken_board_file_fails_at_once_naming_its_field_and_line(tmp_path, capsys):
    from cursedsim.cli import main
    from cursedsim.errors import CursedsimError
    path = tmp_path / "broken.toml"
    text = village_board.DEFAULT_BOARD.read_text(encoding="utf-8")
    path.write_text(text.replace("length = 12                 # reconstructed: as long", "length = 99  # as long"),
                    encoding="utf-8")
    with pytest.raises(village_board.BoardError) as error:
        report("village", tmp_path / "report", n_games=4, n_jobs=1, progress=False, tuned=None, board=path)
    message = str(error.value)
    assert "line " in message and "curse.monster field 'length'" in message and "99" in message
    assert "\n" not in message and not (tmp_path / "report").exists()   # nothing written, nothing played
    for game, board, expected in (("village", path, message), ("gifts", path, "only the village report")):
        try:
            main(["report", game, "--out", str(tmp_path / "cli"), "--games", "10", "--jobs", "1", "--no-progress",
                  "--tuned", "none", "--board", str(board)])
            status = 0
        except SystemExit as exit:
            status = exit.code
        err = capsys.readouterr().err
        assert status == 2 and err.strip().count("\n") == 0 and expected in err, err
        assert not (tmp_path / "cli").exists()
    with pytest.raises(CursedsimError, match="only the village report takes a board"):
        report("cursed", tmp_path / "cursed", n_games=10, n_jobs=1, progress=False, tuned=None, board=path)
