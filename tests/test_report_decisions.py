"""The reports for decisions (the shared layer and the Verflucht! report): the recommendations table
against the seal sweep it is read from (computed here independently), the overlay figure, Holm flags
against ``stats.holm``, policy dependence against the per-game differences, the palette's colours in
every figure, tuned and added policies, ``--runs-dir`` / ``--no-keep-runs``, and one progress bar for
the whole report (no per-run bars).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import matplotlib.colors as mcolors
import numpy as np
import pytest

import cursedsim
from cursedsim import runner
from cursedsim.palette import policy_color
from cursedsim.report import report
from cursedsim.report.data import RUNS_MARKER, ReportChoices, ReportError, load_tuned, report_policies, runs_folder
from cursedsim.report.progress import ReportProgress
from cursedsim.report.verflucht.data import PLAN
from cursedsim.report.verflucht.labels import color
from cursedsim.stats import holm

GAMES = 200
SEED = 5
TUNED_PLAYERS = (2, 4)
ADDED = "smart:slack=3"


def _tuned_file(path: Path) -> Path:
    """A tuning file as ``cursedsim tune --out`` writes it, for 2 and 4 players only."""
    defaults = dict(cursedsim.get_game("verflucht").policy("smart").params)
    players = {str(p): {"players": p, "params": {**defaults, "slack": float(p % 3), "late_bonus": 2.0}}
               for p in TUNED_PLAYERS}
    path.write_text(json.dumps({"game": "verflucht", "policy": "smart", "reference": "baseline", "players": players}))
    return path


@pytest.fixture(scope="module")
def decided(tmp_path_factory):
    """A small Verflucht! report with a tuned policy (2 and 4 players) and an added one, made with the
    progress bar on: the result, the runner's progress bars opened (none expected), the report bars
    started and what went to stderr."""
    root = tmp_path_factory.mktemp("decisions")
    tuned = _tuned_file(root / "tuned.json")
    counts = {"runner_bars": 0, "report_bars": 0, "statuses": []}
    original_bar, original_start = runner._progress_bar, ReportProgress._start_bar
    original_done = ReportProgress.done

    def runner_bar(*args, **kwargs):
        counts["runner_bars"] += 1
        return original_bar(*args, **kwargs)

    def start(self):
        counts["report_bars"] += 1
        return original_start(self)

    def done(self):
        original_done(self)
        counts["statuses"].append(self.status())

    stderr = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stderr(stderr):
        patch.setattr(runner, "_progress_bar", runner_bar)
        patch.setattr(ReportProgress, "_start_bar", start)
        patch.setattr(ReportProgress, "done", done)
        result = report("verflucht", root / "report", n_games=GAMES, seed=SEED, n_jobs=1, progress=True,
                        tuned=str(tuned), policies=[ADDED, "baseline"])
    return result, counts, stderr.getvalue()


# ---------------------------------------------------------------- policies played

def test_tuned_and_added_policies_join_the_built_in_ones(decided):
    result, _, _ = decided
    data = result.data
    assert data.labels == ["baseline", "smart", "smart (tuned)", ADDED]   # "baseline" not added twice
    seals = data.seals
    assert set(seals.loc[seals["policy"] == "smart (tuned)", "players"]) == set(TUNED_PLAYERS)
    assert set(seals.loc[seals["policy"] == ADDED, "players"]) == set(PLAN.players)
    # a tuned cell is the run simulate plays with that player count's parameters
    tuned = load_tuned(str(Path(result.out).parent / "tuned.json"), cursedsim.get_game("verflucht"))[0]
    frame = cursedsim.simulate("verflucht", GAMES, players=4, policy="smart", params=tuned.params_at(4),
                               options={"seals": 2}, seed=SEED, progress=False)
    cell = seals[(seals["policy"] == "smart (tuned)") & (seals["players"] == 4) & (seals["seals"] == 2)]
    assert int(cell["wins"].iloc[0]) == int(frame["win"].sum())
    # and in the paired comparison, against baseline on the same games
    diffs = data.policy_diffs
    row = diffs[(diffs["a"] == ADDED) & (diffs["players"] == 3)]
    added = cursedsim.simulate("verflucht", GAMES, players=3, policy="smart", params={"slack": 3}, seed=SEED,
                               progress=False)
    base = cursedsim.simulate("verflucht", GAMES, players=3, policy="baseline", seed=SEED, progress=False)
    assert row["diff"].iloc[0] == pytest.approx(added["win"].mean() - base["win"].mean(), abs=1e-12)
    assert set(diffs.loc[diffs["a"] == "smart (tuned)", "players"]) == set(TUNED_PLAYERS)
    settings = Path(result.markdown).read_text()
    assert "tuned.json" in settings and "added with --policy" in settings
    assert data.runs == PLAN.run_count(data.played)


def test_bad_tuned_files_and_policies_fail_before_anything_is_played(tmp_path):
    game = cursedsim.get_game("verflucht")
    for text, fragment in (("{", "not JSON"), ("[]", "no tuned parameters"),
                           ('{"game": "cursed", "policy": "smart", "players": {"1": {"params": {}}}}', "cursed"),
                           ('{"policy": "smart", "players": {"1": {"params": {"nosuch": 1}}}}', "nosuch"),
                           ('{"policy": "smart", "players": {"x": {"params": {}}}}', "'x'")):
        path = tmp_path / "t.json"
        path.write_text(text)
        with pytest.raises(ReportError, match=fragment):
            load_tuned(str(path), game)
        with pytest.raises(ReportError):
            report("verflucht", tmp_path / "r", n_games=GAMES, tuned=str(path))
    with pytest.raises(ReportError, match="not found"):
        report("verflucht", tmp_path / "r", n_games=GAMES, tuned=str(tmp_path / "missing.json"))
    with pytest.raises(cursedsim.errors.CursedsimError, match="baseline"):
        report_policies(game, ["baseline"], ReportChoices(policies=("nosuch",)))
    assert not (tmp_path / "r" / "runs").exists()


# ---------------------------------------------------------------- recommendations

def _expected_recommendations(data) -> list[tuple]:
    """The recommendations read off the seal sweep here, independently of the report's code: per player
    count the best policy (highest win rate at the rulebook's seals, the first on ties) and the
    reference; per target the seal count of the nearest win rate (fewer seals on ties), or the top /
    bottom of the range when the target lies outside it."""
    rows = []
    for players in PLAN.players:
        sweep = data.seals[data.seals["players"] == players]
        book = data.rulebook_seals[players]
        at_book = {label: float(sweep[(sweep["policy"] == label) & (sweep["seals"] == book)]["win_rate"].iloc[0])
                   for label in data.labels if label in set(sweep["policy"])}
        best = next(label for label in at_book if at_book[label] == max(at_book.values()))
        for policy in dict.fromkeys([best, PLAN.reference]):
            points = sorted((int(r.seals), float(r.win_rate)) for r in sweep[sweep["policy"] == policy].itertuples())
            for target in PLAN.targets:
                if all(rate < target for _, rate in points):
                    choice = max(points, key=lambda point: (point[1], -point[0]))
                    status = "not reached"
                elif all(rate > target for _, rate in points):
                    choice = min(points, key=lambda point: (point[1], point[0]))
                    status = "exceeded"
                else:
                    choice = min(points, key=lambda point: (abs(point[1] - target), point[0]))
                    status = "closest"
                rows.append((players, policy, target, choice[0], choice[1], status))
    return rows


def test_recommendations_are_what_the_seal_sweep_says(decided):
    result, _, _ = decided
    table = result.data.recommendations
    got = [(int(r.players), r.policy, r.target, int(r.seals), r.win_rate, r.status) for r in table.itertuples()]
    assert got == _expected_recommendations(result.data)
    # each row quotes its cell's Wilson interval, and the text shows every row first in the report
    seals = result.data.seals.set_index(["policy", "players", "seals"])
    for r in table.itertuples():
        cell = seals.loc[(r.policy, r.players, r.seals)]
        assert (r.ci_low, r.ci_high) == (cell["ci_low"], cell["ci_high"])
    text = result.recommendations
    markdown = Path(result.markdown).read_text()
    html = Path(result.html).read_text()
    assert markdown.index(text["heading"]) < markdown.index("How this report was made")
    assert html.index('id="recommendations"') < html.index('id="method"')
    for row in text["rows"]:
        assert "| " + " | ".join(row) + " |" in markdown
    for r in table.itertuples():
        rate = f"{100 * r.win_rate:.1f} [{100 * r.ci_low:.1f}, {100 * r.ci_high:.1f}]"
        seals_text = f"{r.seals} seal{'s' if r.seals != 1 else ''}"
        expected = {"closest": f"{seals_text}: {rate}", "not reached": f"not reached ({seals_text}: {rate})",
                    "exceeded": f"exceeded at {seals_text} ({rate})"}[r.status]
        assert any(expected in cell for row in text["rows"] if row[0] == str(r.players) for cell in row)


# ---------------------------------------------------------------- figures

def test_overlay_figure_draws_every_player_count_and_policy_in_one_panel(decided):
    result, _, _ = decided
    names = [figure.name for figure in result.figures]
    assert names.index("win_rate_by_seals_overlay") == names.index("win_rate_by_seals") + 1
    overlay = result.figures[names.index("win_rate_by_seals_overlay")]
    assert (Path(result.out) / "figures" / "win_rate_by_seals_overlay.png").is_file()
    (ax,) = overlay.figure.axes
    lines = [line for line in ax.get_lines() if len(line.get_xdata())]
    cells = result.data.seals.groupby(["policy", "players"]).ngroups
    assert len(lines) == cells                      # one line per (policy, player count) of the sweep
    styles = {(mcolors.to_hex(line.get_color()), line.get_marker(), str(line.get_linestyle())) for line in lines}
    assert len(styles) == cells                     # told apart by colour, marker and line style
    assert {mcolors.to_hex(line.get_color()) for line in lines} == {color(p) for p in result.data.labels}
    assert f"{int(result.data.seals['seals'].median())} seals" in overlay.reading


def test_every_policy_has_the_palettes_colour_in_every_figure(decided):
    result, _, _ = decided
    figures = {figure.name: figure for figure in result.figures}
    palette = {label: mcolors.to_hex(color(label)) for label in result.data.labels + ["random"]}
    for label in ("baseline", "smart", "smart (tuned)", "random"):   # the palette's own colours
        assert palette[label] == policy_color(label)
    # an added variant is its policy's colour, lighter: the same hue, apart from its policy
    assert len(set(palette.values())) == len(palette)
    smart, variant = (np.array(mcolors.to_rgb(palette[label])) for label in ("smart", ADDED))
    assert (variant >= smart).all() and np.allclose((1 - variant) * 2, 1 - smart, atol=2 / 255)
    for ax in figures["win_rate_by_seals"].figure.axes:
        for line in ax.get_lines():
            if not line.get_label().startswith("_"):
                assert mcolors.to_hex(line.get_color()) == palette[line.get_label()]
    for name in ("score_distribution", "game_length"):   # labels "smart (tuned) (12 won)", "smart, lost"
        for ax in figures[name].figure.axes:
            for patch in ax.patches:
                text = patch.get_label()
                label = max((p for p in palette if text.startswith((p + " (", p + ", "))), key=len)
                assert mcolors.to_hex(patch.get_edgecolor()) == palette[label], (name, text)
    for ax in figures["policy_differences"].figure.axes:
        label = ax.get_title().split(" − ")[0]
        assert {mcolors.to_hex(line.get_color()) for line in ax.get_lines()} <= {palette[label], mcolors.to_hex("0.3")}
    legend = figures["rule_sensitivity"].figure.axes[0].get_legend()
    for handle, text in zip(legend.legend_handles, legend.get_texts()):
        if text.get_text() in palette:
            assert mcolors.to_hex(handle.get_color()) == palette[text.get_text()]


def test_every_player_count_is_read(decided):
    result, _, _ = decided
    for figure in result.figures:
        if figure.name in ("win_rate_by_seals", "win_rate_by_seals_overlay", "policy_differences",
                           "score_distribution", "game_length", "what_kills"):
            assert "at 1-5 players" in figure.reading, (figure.name, figure.reading)
    # figure 1's reading quotes the rate of every player count at the rulebook's seals
    reading = result.figures[0].reading
    seals = result.data.seals.set_index(["policy", "players", "seals"])
    rates = " / ".join(f"{100 * seals.loc[('baseline', p, result.data.rulebook_seals[p]), 'win_rate']:.1f}"
                       for p in PLAN.players)
    assert f"baseline {rates}%" in reading


# ---------------------------------------------------------------- many comparisons

def test_holm_flags_are_stats_holm_over_every_reading_scanned(decided):
    result, _, _ = decided
    for name in ("rule_sensitivity", "rule_policy_dependence"):
        table = result.data.tables[name]
        expected = holm(table["p_value"].to_numpy(np.float64))
        np.testing.assert_allclose(table["p_holm"].to_numpy(np.float64), expected, rtol=0, atol=0)
        assert (table["survives"] == (np.nan_to_num(expected, nan=1.0) < 0.05)).all()
    sens = result.data.sensitivity
    assert len(sens) == sum(len([q for q in result.data.played if q.plays(p)]) for p in PLAN.players) * \
        (len(PLAN.options) + len(PLAN.score_options))
    # the table under the figure marks exactly the survivors, and the reading counts them
    figure = next(f for f in result.figures if f.name == "rule_sensitivity")
    marks = sum(cell.endswith(" *") for row in figure.tables[0].rows for cell in row)
    assert marks == int(sens.loc[sens["measure"] == "win_rate", "survives"].sum())
    assert f"{int(sens['survives'].sum())} of the {len(sens)} effects scanned survive" in figure.reading


def test_policy_dependence_is_the_paired_difference_of_differences(decided):
    result, _, _ = decided
    dep = result.data.dependence.set_index(["option", "players", "policy"])
    name, value = "voluntary_seal", False
    frames = {}
    for policy, params in (("baseline", None), ("smart", None)):
        for options in ({}, {name: value}):
            frames[(policy, bool(options))] = cursedsim.simulate(
                "verflucht", GAMES, players=3, policy=policy, params=params, options=options, seed=SEED,
                progress=False)["win"].to_numpy(np.float64)
    change = {policy: frames[(policy, True)] - frames[(policy, False)] for policy in ("baseline", "smart")}
    d = change["smart"] - change["baseline"]
    row = dep.loc[(name, 3, "smart")]
    assert row["reference"] == "baseline"
    assert row["diff"] == pytest.approx(d.mean(), abs=1e-12)
    half = row["ci_high"] - row["diff"]
    assert half == pytest.approx(row["diff"] - row["ci_low"])
    assert half == pytest.approx(1.97 * d.std(ddof=1) / np.sqrt(GAMES), rel=0.01)   # t(199) quantile ~1.972
    # every pair of the dependence table is (policy, reference) at one player count, never the reference
    assert set(result.data.dependence["reference"]) == {"baseline"}
    assert "baseline" not in set(result.data.dependence["policy"])


# ---------------------------------------------------------------- one progress bar

def test_one_progress_bar_for_the_whole_report(decided):
    result, counts, stderr = decided
    assert counts["report_bars"] == 1 and counts["runner_bars"] == 0
    total = result.data.runs
    final = counts["statuses"][-1]
    assert final.startswith(f"run {total} of {total}") and "games/s" in final and "ETA 0:00" in final
    assert f"run {total} of {total}" in stderr


def test_progress_counts_resumed_runs_but_not_their_speed():
    progress = ReportProgress(enabled=False)
    progress.begin(4, 1000)
    assert progress.status() == "run 0 of 4 · ? games/s · ETA ?"
    progress.run("a", resumed=True)
    progress.done()
    assert progress.finished == 1 and progress.rate is None       # a resumed run says nothing about speed
    progress.run("b, c", runs=2)
    progress.played_seconds = 0.0
    progress.done()
    assert progress.finished == 3 and progress.played_games == 2000
    progress.played_seconds = 2.0                                 # 2,000 games in 2 s
    assert progress.rate == pytest.approx(1000.0) and progress.remaining_seconds == pytest.approx(1.0)
    assert progress.status() == "run 3 of 4 · 1,000 games/s · ETA 0:01"
    messages = []
    ReportProgress(enabled=False, log=messages.append).message("stage")
    assert messages == ["stage"]


# ---------------------------------------------------------------- the run folder

def test_runs_dir_must_stay_apart_from_the_report(tmp_path):
    out = tmp_path / "report"
    assert runs_folder(str(out)) == str(out / "runs")
    assert runs_folder(str(out), str(tmp_path / "elsewhere")) == str(tmp_path / "elsewhere")
    for bad in (out, tmp_path, out / "figures", out / "tables" / "x"):
        with pytest.raises(ReportError, match="--runs-dir"):
            runs_folder(str(out), str(bad))


def _cli(args: list[str]) -> tuple[int, str, str]:
    from cursedsim.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
            status = 0
        except SystemExit as exit:
            status = exit.code
    return status, out.getvalue(), err.getvalue()


def test_runs_dir_and_no_keep_runs_from_the_command_line(tmp_path):
    out, runs = tmp_path / "report", tmp_path / "runs"
    common = ["report", "verflucht", "--out", str(out), "--games", "2", "--seed", "1", "--jobs", "1", "--no-progress",
              "--tuned", "none", "--runs-dir", str(runs)]
    status, printed, err = _cli(common)
    assert status == 0, err
    assert (runs / RUNS_MARKER).is_file() and not (out / "runs").exists()
    frames = sorted(runs.rglob("games.parquet"))
    assert len(frames) == PLAN.run_count(report_policies(cursedsim.get_game("verflucht"), PLAN.policies, None))
    assert f"runs in {runs}" in err and "seals for a target win rate" in printed
    # --no-keep-runs: the report is made (from the runs there), then they go
    (out / "report.md").unlink()
    status, _, err = _cli(common + ["--no-keep-runs"])
    assert status == 0, err
    assert not runs.exists() and "runs removed" in err
    assert (out / "report.html").is_file() and (out / "report.md").is_file()
    # a folder the report did not make, or one inside the report, is refused in one line
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("x")
    for runs_dir, fragment in ((foreign, "not made by a report"), (out, "--runs-dir")):
        status, printed, err = _cli(common[:-1] + [str(runs_dir)])
        assert status == 2 and printed == "" and len(err.splitlines()) == 1 and fragment in err, err
    assert (foreign / "keep.txt").is_file()


def test_runs_of_another_games_report_are_refused_not_deleted(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / RUNS_MARKER).write_text(json.dumps({"game": "cursed", "n_games": 2, "seed": 1}))
    (runs / "kept").mkdir()
    with pytest.raises(ReportError, match="cursed report"):
        report("verflucht", tmp_path / "out", n_games=2, seed=1, n_jobs=1, progress=False, tuned=None,
               runs_dir=runs)
    assert (runs / "kept").is_dir()


@pytest.mark.parametrize("args, fragment", [
    (["--policy", "nosuch"], "nosuch"),
    (["--tuned", "{tmp}/missing.json"], "not found"),
])
def test_policy_and_tuned_errors_are_one_line(tmp_path, args, fragment):
    status, printed, err = _cli(["report", "verflucht", "--out", str(tmp_path / "r"), "--games", "2"]
                                + [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert status == 2 and printed == "" and len(err.splitlines()) == 1, err
    assert err.startswith("cursedsim: error: ") and fragment in err
    assert not (tmp_path / "r" / "runs").exists()
    assert not os.path.exists(tmp_path / "r" / "report.md")


def test_the_strong_play_row_reads_the_rollout_sweep_like_the_others():
    """The recommendations' strong-play rows: per player count the seal count of the rollout sweep closest to
    each target, from the same rule as the heuristics' rows, labelled as a lower bound."""
    import pandas as pd

    from cursedsim.report.verflucht.data import PLAN, strong_recommendations
    sweep = pd.DataFrame({"policy": "rollout:n=16", "players": 3, "seals": [0, 1, 2, 3, 4],
                          "win_rate": [0.05, 0.12, 0.16, 0.24, 0.30], "ci_low": 0.0, "ci_high": 1.0, "n": 100})
    rows = strong_recommendations(sweep, {3: 4}, PLAN.targets)
    assert list(rows["seals"]) == [1, 2, 3] and set(rows["role"]) == {"strong play"}
    assert (rows["rulebook_win_rate"] == 0.30).all()
    assert strong_recommendations(pd.DataFrame(), {3: 4}, PLAN.targets).empty
    assert PLAN.strong_games_for(200) == 0 and PLAN.strong_games_for(200_000) == 2_000
