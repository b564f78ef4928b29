"""The balance reports: the writer (Markdown with every figure, its reading and its tables,
self-contained HTML, atomic writes), the run folder it resumes from, the registry of games with a
report and input errors, a small real Verflucht! and Cursed!? report each (every figure, reading and
table; the numbers against direct simulations; readings that quote the tables; resume), the ``report``
command, and the HTML opened in real headless Chromium (every figure loads; a screenshot is taken).

The browser test needs Debian's ``chromium`` and ``chromium-driver`` and ``selenium``: without them it
is skipped, except under CI (``CI`` set), where it fails (``.ci/run`` installs them).
"""

from __future__ import annotations

import base64
import json
import os
import re
import struct
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from markupsafe import escape
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import cursedsim
from cursedsim.errors import RunError, UnknownGameError
from cursedsim.report import report, writer
from cursedsim.report.cursed.data import PLAN as CURSED_PLAN
from cursedsim.report.cursed.figures import FIGURES as CURSED_FIGURES
from cursedsim.report.data import RUNS_MARKER, ReportError, prepare_runs
from cursedsim.report.figures import ReportFigure, TextTable
from cursedsim.report.registry import REPORTS, report_for
from cursedsim.report.verflucht.figures import FIGURES

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SMALL_GAMES = 200
SMALL_SEED = 3


# ---------------------------------------------------------------- helpers

def fake_figure(name: str, reading: str, color: str = "C0") -> ReportFigure:
    figure = Figure(figsize=(3, 2))
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    ax.plot([0, 1, 2], [1, 3, 2], color=color)
    return ReportFigure(name, f"Title of {name}", f"How to read {name}.", figure, reading)


def fake_context(**overrides):
    context = {
        "title": "Game balance report", "intro": "An introduction.", "settings": [("seed", "7"), ("games", "10")],
        "method": "Common random numbers.", "options": [{"name": "opt", "default": "true", "tested": "false",
                                                          "doc": "an option"}],
        "summary": {"heading": "Summary of the game", "columns": ["players", "win %"], "rows": [["1", "12.5"],
                                                                                             ["2", "10.0"]],
                    "note": "A note."},
        "rules_doc": "docs/rules/game.md", "rules_link": "../docs/rules/game.md",
        "rules_note": "the last figure weighs them", "command": "cursedsim report x",
        "reports_doc": "docs/reports.md", "version": cursedsim.__version__,
    }
    context.update(overrides)
    return context


class Resources(HTMLParser):
    """Every tag with its attributes, and the text of <style> elements."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)


def parse_html(text: str) -> Resources:
    parser = Resources()
    parser.feed(text)
    return parser


def assert_self_contained(text: str) -> Resources:
    """No attribute of any tag points outside the page: every src is a data: URI, every href an anchor
    in the page; no external style sheets, scripts, frames or CSS imports/urls."""
    parsed = parse_html(text)
    for tag, attrs in parsed.tags:
        for key in ("src", "srcset", "data", "poster", "background", "action", "formaction"):
            if key in attrs:
                assert attrs[key].startswith("data:"), (tag, key, attrs[key][:80])
        if "href" in attrs:
            assert attrs["href"].startswith("#"), (tag, attrs["href"])
        assert tag not in ("link", "script", "iframe", "object", "embed", "base"), tag
    css = "\n".join(parsed.styles)
    assert css.strip(), "no inline CSS"
    assert "@import" not in css and not re.search(r"url\(\s*['\"]?(?!data:)", css), css
    return parsed


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# ---------------------------------------------------------------- the writer

def test_markdown_has_every_figure_and_its_reading(tmp_path):
    figures = [fake_figure("first", "One reads 11.1% here."), fake_figure("second", "Two reads +0.8 points.", "C1")]
    written = writer.write_report(tmp_path, fake_context(), figures, {"numbers": pd.DataFrame({"a": [1, 2]})},
                                  {"numbers": "the numbers"})
    text = Path(written.markdown).read_text()
    positions = []
    for index, figure in enumerate(figures, 1):
        image = f"![{figure.title}](figures/{figure.name}.png)"
        assert f"## {index}. {figure.title}" in text and image in text and figure.about in text
        reading = f"**Reading:** {figure.reading}"
        assert reading in text and text.index(image) < text.index(reading)   # the reading under its figure
        png = (tmp_path / "figures" / f"{figure.name}.png").read_bytes()
        assert png == figure.png() and png_size(png)[0] > 100
        positions.append(text.index(image))
    assert positions == sorted(positions)
    assert "[docs/rules/game.md](../docs/rules/game.md)" in text
    assert "| players | win % |" in text and "| 1 | 12.5 |" in text
    assert "[tables/numbers.csv](tables/numbers.csv): the numbers" in text
    assert pd.read_csv(tmp_path / "tables" / "numbers.csv")["a"].tolist() == [1, 2]


def test_figure_tables_and_game_words_come_from_the_context(tmp_path):
    table = TextTable("Items < used", ["item", "a", "b"], [["Shield", "0.250", "1.000"], ["Mimic!", "0.125", "0"]],
                      "A note & more.")
    figures = [fake_figure("first", "One.", "C0"), fake_figure("second", "Two.", "C1")]
    figures[0].tables = [table]
    written = writer.write_report(tmp_path, fake_context(), figures)
    markdown = Path(written.markdown).read_text()
    html = Path(written.html).read_text()
    # the table sits under its figure's reading, before the next figure
    block = markdown[markdown.index("**Reading:** One."):markdown.index("## 2. Title of second")]
    assert "**Items < used**" in block and "| item | a | b |" in block and "| Shield | 0.250 | 1.000 |" in block
    assert "| --- | ---: | ---: |" in block and "A note & more." in block
    assert "<h3>Items &lt; used</h3>" in html and "<td>Mimic!</td><td>0.125</td>" in html
    assert "A note &amp; more." in html
    # no game's words are in the templates: the summary heading and the note on rules come from the context
    for text in (markdown, html):
        assert "## Summary of the game" in text or "<h2>Summary of the game</h2>" in text
        assert "the last figure weighs them." in text
        assert "seal" not in text.lower() and "verflucht" not in text.lower()
    for name in writer.TEMPLATES:
        source = (Path(writer.__file__).parent / "templates" / name).read_text().lower()
        assert not {"seal", "verflucht", "souls", "cursed!?"} & set(re.findall(r"[a-z!?]+", source)), name


def test_html_is_self_contained_and_embeds_every_figure(tmp_path):
    figures = [fake_figure("first", "Reading one: a < b & c."), fake_figure("second", "Reading two.", "C1")]
    written = writer.write_report(tmp_path, fake_context(title="Odd <title> & co"), figures)
    text = Path(written.html).read_text()
    parsed = assert_self_contained(text)
    images = [attrs for tag, attrs in parsed.tags if tag == "img"]
    assert len(images) == len(figures)
    for attrs, figure in zip(images, figures):
        prefix = "data:image/png;base64,"
        assert attrs["src"].startswith(prefix) and attrs["alt"] == figure.title
        assert base64.b64decode(attrs["src"][len(prefix):]) == figure.png()
    # text is escaped, not interpreted; the stylesheet is inline and intact (quotes not escaped)
    assert "Reading one: a &lt; b &amp; c." in text and "Odd &lt;title&gt; &amp; co" in text
    assert '"Segoe UI"' in text and "docs/rules/game.md" in text
    # every anchor names a section of the page
    ids = {attrs["id"] for _, attrs in parsed.tags if "id" in attrs}
    assert {attrs["href"][1:] for _, attrs in parsed.tags if "href" in attrs} <= ids


def test_self_containment_check_catches_external_resources():
    page = '<html><head><style>body{{}}</style></head><body>{}</body></html>'
    assert_self_contained(page.format('<img src="data:image/png;base64,AAAA"><a href="#x">x</a>'))
    for bad in ('<img src="figures/a.png">', '<a href="https://example.org">x</a>', '<link rel="stylesheet" href="#a">',
                '<script src="data:text/javascript,1"></script>'):
        with pytest.raises(AssertionError):
            assert_self_contained(page.format(bad))


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path, monkeypatch):
    figures = [fake_figure("first", "First reading.")]
    writer.write_report(tmp_path, fake_context(), figures, {"numbers": pd.DataFrame({"a": [1]})})
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert files == ["figures/first.png", "report.html", "report.md", "tables/numbers.csv"]
    before = (tmp_path / "report.html").read_bytes()

    # a failure while moving the new HTML into place leaves the old file whole and no temporary file
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst).endswith("report.html"):
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr(writer.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        writer.write_report(tmp_path, fake_context(title="A new title"), figures)
    assert (tmp_path / "report.html").read_bytes() == before
    assert "A new title" in (tmp_path / "report.md").read_text()   # written before the failure
    leftovers = [p.name for p in tmp_path.rglob("*") if p.name.startswith(".") or p.name.endswith(".tmp")]
    assert leftovers == []


def test_write_atomic_replaces_and_cleans_up(tmp_path, monkeypatch):
    path = tmp_path / "a.txt"
    writer.write_atomic(path, "one")
    writer.write_atomic(path, b"two")
    assert path.read_text() == "two" and os.listdir(tmp_path) == ["a.txt"]

    def failing_open(*args, **kwargs):
        raise OSError("no space")

    monkeypatch.setattr("builtins.open", failing_open)
    with pytest.raises(OSError):
        writer.write_atomic(path, "three")
    monkeypatch.undo()
    assert path.read_text() == "two" and os.listdir(tmp_path) == ["a.txt"]


# ---------------------------------------------------------------- the run folder and bad input

def test_runs_of_other_settings_are_replaced_and_foreign_folders_refused(tmp_path):
    marker = {"game": "verflucht", "n_games": 10, "seed": 1, "version": "x", "code": "abc"}
    runs = prepare_runs(str(tmp_path), marker)
    (Path(runs) / "seals").mkdir()
    assert prepare_runs(str(tmp_path), marker) == runs and (Path(runs) / "seals").is_dir()   # kept: resumable
    assert prepare_runs(str(tmp_path), {**marker, "code": "def"}) == runs
    assert not (Path(runs) / "seals").exists()                                           # other sources: replaced
    assert json.loads((Path(runs) / RUNS_MARKER).read_text())["code"] == "def"

    foreign = tmp_path / "other"
    (foreign / "runs").mkdir(parents=True)
    (foreign / "runs" / "precious.parquet").write_text("x")
    with pytest.raises(ReportError, match="not made by a report"):
        prepare_runs(str(foreign), marker)
    assert (foreign / "runs" / "precious.parquet").exists()


def test_bad_input_raises_before_anything_is_played(tmp_path, coin):
    with pytest.raises(UnknownGameError, match="verflucht"):
        report("nosuchgame", tmp_path / "a")
    with pytest.raises(ReportError, match="reports exist for: verflucht, cursed"):
        report("coin", tmp_path / "b")
    for game in REPORTS:
        for kwargs in ({"n_games": 0}, {"n_games": -5}, {"n_games": 1}, {"seed": -1}, {"n_jobs": 0}):
            with pytest.raises(RunError):
                report(game, tmp_path / "c", **kwargs)
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(ReportError, match="is a file"):
        report("cursed", afile)
    assert sorted(os.listdir(tmp_path)) == ["file"]


def test_registry_finds_each_games_report_and_names_them_otherwise(coin):
    assert list(REPORTS) == ["verflucht", "cursed", "covens", "gifts", "village"]
    for game in REPORTS:
        entry = report_for(game)
        assert entry.game == game and entry.figures and callable(entry.collect)
        assert set(entry.table_notes)   # every report explains its CSV tables
    assert report_for(cursedsim.get_game("cursed")).game == "cursed"
    # an unknown game and a game without a report: a ReportError naming every game that has one
    for name, error in (("nosuchgame", UnknownGameError), ("coin", ReportError)):
        with pytest.raises(ReportError) as caught:
            report_for(name)
        assert isinstance(caught.value, error) and name in str(caught.value)
        assert str(caught.value).endswith("reports exist for: verflucht, cursed, covens, gifts, village")


# ---------------------------------------------------------------- a small real report

@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    """A real Verflucht! report with few games per cell (built-in policies only), made once per test process."""
    out = tmp_path_factory.mktemp("report")
    return report("verflucht", out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)


def test_small_report_has_every_figure_reading_and_table(small_report):
    result = small_report
    assert [f.name for f in result.figures] == [make.__name__ for make in FIGURES]
    markdown = Path(result.markdown).read_text()
    html = Path(result.html).read_text()
    assert_self_contained(html)
    for figure in result.figures:
        assert re.search(r"\d", figure.reading) and "nan" not in figure.reading, figure.reading
        assert "\n" not in figure.reading and figure.reading.endswith(".")
        assert f"**Reading:** {figure.reading}" in markdown
        assert str(escape(figure.reading)) in html
        assert (Path(result.out) / "figures" / f"{figure.name}.png").is_file()
    for fragment in (f"{SMALL_GAMES:,}", f"seed {SMALL_SEED}", cursedsim.__version__, "baseline", "smart", "random",
                     "partial_items_before_seal", "voluntary_seal", "drawer_last_turn"):
        assert fragment in markdown and fragment in html, fragment
    assert "](../" in markdown and "docs/rules/verflucht.md)" in markdown
    target = Path(result.out) / re.search(r"\]\((\.\./[^)]*verflucht\.md)\)", markdown)[1]
    assert target.resolve() == (Path(cursedsim.__file__).parents[1] / "docs/rules/verflucht.md").resolve()
    tables = sorted(os.listdir(Path(result.out) / "tables"))
    assert tables == sorted(f"{name}.csv" for name in result.data.tables)
    assert result.data.runs == 135 and result.data.games_played == 135 * SMALL_GAMES


def test_small_report_numbers_match_direct_simulations(small_report):
    data = small_report.data
    # figure 1: a cell of the sweep is the run simulate plays with the same settings
    frame = cursedsim.simulate("verflucht", SMALL_GAMES, players=2, policy="smart", options={"seals": 6},
                               seed=SMALL_SEED, progress=False)
    cell = data.seals[(data.seals["players"] == 2) & (data.seals["policy"] == "smart") & (data.seals["seals"] == 6)]
    assert int(cell["wins"].iloc[0]) == int(frame["win"].sum())
    # the summary and figure 2 at the rulebook's seals, paired on the same games
    base = cursedsim.simulate("verflucht", SMALL_GAMES, players=4, policy="baseline", seed=SMALL_SEED, progress=False)
    smart = cursedsim.simulate("verflucht", SMALL_GAMES, players=4, policy="smart", seed=SMALL_SEED, progress=False)
    row = small_report.summary.set_index("players").loc[4]
    assert row["seals"] == 5 and row["baseline_win_rate"] == base["win"].mean()
    assert row["smart-baseline_diff"] == pytest.approx(smart["win"].mean() - base["win"].mean(), abs=1e-12)
    # figure 3-5 tables count every game of those runs
    scores = data.scores[(data.scores["players"] == 4) & (data.scores["policy"] == "baseline")]
    assert scores["games"].sum() == base["win"].sum()
    assert sorted(scores["score"]) == sorted(base.loc[base["win"], "score"].unique())
    turns = data.turns[(data.turns["players"] == 4) & (data.turns["policy"] == "smart")]
    assert turns["games"].sum() == SMALL_GAMES
    losses = data.losses[(data.losses["players"] == 4) & (data.losses["policy"] == "baseline")]
    assert losses.set_index("end")["games"].to_dict() == \
        base.loc[~base["win"], "end"].value_counts().drop("win", errors="ignore").to_dict()
    assert losses["share"].sum() == pytest.approx(1.0)
    # figure 6: the option run against the default, game by game
    alt = cursedsim.simulate("verflucht", SMALL_GAMES, players=4, policy="baseline",
                             options={"voluntary_seal": False}, seed=SMALL_SEED, progress=False)
    sens = data.sensitivity.set_index(["option", "policy", "players", "measure"])
    diff = sens.loc[("voluntary_seal", "baseline", 4, "win_rate"), "diff"]
    assert diff == pytest.approx(alt["win"].mean() - base["win"].mean(), abs=1e-12)
    # drawer_last_turn only acts after the last card: it never changes who wins
    assert (data.sensitivity.query("option == 'drawer_last_turn' and measure == 'win_rate'")["diff"] == 0).all()


def test_rerun_resumes_from_the_run_folder(small_report, tmp_path):
    runs = Path(small_report.out) / "runs"
    frames = sorted(runs.rglob("games.parquet"))
    assert len(frames) == 135
    stamps = {path: path.stat().st_mtime_ns for path in frames}
    again = report("verflucht", small_report.out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False,
                   tuned=None)
    assert {path: path.stat().st_mtime_ns for path in frames} == stamps   # nothing played again
    assert again.readings == small_report.readings


# ---------------------------------------------------------------- a small real Cursed!? report

@pytest.fixture(scope="module")
def small_cursed(tmp_path_factory):
    """A real Cursed!? report with few games per cell (built-in policies only), made once per test process."""
    out = tmp_path_factory.mktemp("cursed_report")
    return report("cursed", out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False, tuned=None)


def _table(result, name: str) -> pd.DataFrame:
    """A table as written to tables/<name>.csv (what a reader of the report gets)."""
    return pd.read_csv(Path(result.out) / "tables" / f"{name}.csv")


def _pct(share: float) -> str:
    return f"{100 * share:.1f}%"


def _pts(diff: float) -> str:
    return f"{100 * diff:+.1f}".replace("-0.0", "0.0").replace("+0.0", "0.0")


def test_cursed_report_has_every_figure_reading_and_table(small_cursed):
    result = small_cursed
    assert result.game == "cursed"
    assert [f.name for f in result.figures] == [make.__name__ for make in CURSED_FIGURES]
    markdown = Path(result.markdown).read_text()
    html = Path(result.html).read_text()
    assert_self_contained(html)
    for index, figure in enumerate(result.figures, 1):
        assert re.search(r"\d", figure.reading) and "nan" not in figure.reading, figure.reading
        assert "\n" not in figure.reading and figure.reading.endswith(".")
        assert f"## {index}. {figure.title}" in markdown and f"**Reading:** {figure.reading}" in markdown
        assert str(escape(figure.reading)) in html
        assert png_size((Path(result.out) / "figures" / f"{figure.name}.png").read_bytes())[0] > 500
    assert html.count("<img ") == len(CURSED_FIGURES) == 5
    for fragment in (f"{SMALL_GAMES:,}", f"seed {SMALL_SEED}", cursedsim.__version__, "Cursed!? balance report",
                     "## Summary: win rate by policy", "threshold (k=2)", "counting (margin=0)", "no_items (k=2)",
                     "random", "**Items used per game**", "**How games end (% of games)**", "docs/rules/cursed.md)"):
        assert fragment in markdown, fragment
    for name, value in CURSED_PLAN.options:           # every tested reading is named in the report
        assert f"{name}={str(value).lower()}" in markdown and name in html
    assert "seal" not in markdown.lower() and "verflucht" not in markdown.lower()
    tables = sorted(os.listdir(Path(result.out) / "tables"))
    assert tables == sorted(f"{name}.csv" for name in result.data.tables)
    assert result.data.runs == CURSED_PLAN.run_count == 93   # figure 5: 21 readings x 2 policies
    assert result.data.games_played == 93 * SMALL_GAMES
    # the summary: every policy, the reference's difference from itself is 0
    summary = result.summary.set_index("policy")
    assert list(summary.index) == list(CURSED_PLAN.policies)
    assert summary.loc["threshold", "diff"] == 0 and (summary["ci_low"] <= summary["win_rate"]).all()


def test_cursed_readings_quote_the_numbers_of_their_tables(small_cursed):
    result = small_cursed
    reading = result.readings
    # 1: the reference's win rate, every paired difference, how the reference's games end; the items table
    policies = _table(result, "policies").set_index("policy")
    assert f"threshold wins {_pct(policies.loc['threshold', 'win_rate'])} of games" in reading["win_rate_by_policy"]
    for row in _table(result, "policy_differences").itertuples():
        assert row.b == "threshold"
        assert f"{row.a} wins {_pts(row.diff).lstrip('+-')} points" in reading["win_rate_by_policy"]
    ends = _table(result, "ends").query("policy == 'threshold'").set_index("end")
    for end in ("pile_empty", "final_monster"):
        assert f"({_pct(ends.loc[end, 'share'])})" in reading["win_rate_by_policy"]
    markdown = Path(result.markdown).read_text()
    used = _table(result, "items_used").query("item == 'shield'").set_index("policy")["per_game"]
    assert "| Shield | " + " | ".join(f"{used[p]:.3f}" for p in CURSED_PLAN.policies) + " |" in markdown
    # 2: each policy's most common number of souls and its share
    souls = _table(result, "souls")
    for policy, cell in souls.groupby("policy"):
        mode = cell.loc[cell["share"].idxmax()]
        assert f"{policy} ({_pct(mode['share'])})" in reading["souls_distribution"]
        assert f"{int(mode['souls'])} souls with" in reading["souls_distribution"]
    # 3: the best k of each swept policy and counting's best margin, with their win rates
    sweep = _table(result, "stop_sweep")
    for row in sweep[sweep["best"]].itertuples():
        assert f"{row.policy} wins most with {row.param}={row.value:g}, {_pct(row.win_rate)}" in reading["when_to_stop"]
    # 4: the most valuable starting item for the first item policy, and the value of none
    starts = _table(result, "starting_items")
    first = starts.query("policy == 'threshold' and start != 'random'").sort_values("diff")
    from cursedsim.games.cursed.rules import ITEM_NAMES, ITEM_SLUGS
    best = first.iloc[-1]
    assert f"starting with {dict(zip(ITEM_SLUGS, ITEM_NAMES))[best['start']]} is worth the most " \
           f"({_pts(best['diff'])} points with threshold" in reading["item_value"]
    none = starts.query("start == 'none'").set_index("policy")["diff"]
    assert f"starting with no item: {_pts(none['threshold'])} points with threshold, " \
           f"{_pts(none['counting'])} with counting" in reading["item_value"]
    # 5: the reading that moves the win rate most
    sens = _table(result, "rule_sensitivity")
    top = sens.loc[sens["diff"].abs().idxmax()]
    row = sens[(sens["option"] == top["option"]) & (sens["value"] == top["value"]) & (sens["policy"] == "threshold")]
    assert f"most are {top['option']}={str(top['value']).lower()} ({_pts(row['diff'].iloc[0])} points with " \
           "threshold" in reading["rule_sensitivity"]
    small = sens.groupby(["option", "value"])["diff"].apply(lambda d: (d.abs() < 0.005).all()).sum()
    assert f"; {small} of the {len(CURSED_PLAN.options)} readings move" in reading["rule_sensitivity"]


def test_cursed_numbers_match_direct_simulations(small_cursed):
    data = small_cursed.data

    def play(**kwargs):
        return cursedsim.simulate("cursed", SMALL_GAMES, seed=SMALL_SEED, progress=False, **kwargs)

    threshold, counting = play(policy="threshold"), play(policy="counting")
    rates = data.policies.set_index("policy")
    assert rates.loc["threshold", "wins"] == threshold["win"].sum()
    assert rates.loc["counting", "mean_souls"] == pytest.approx(counting["souls"].mean())
    diff = data.policy_diffs.set_index("a").loc["counting", "diff"]
    assert diff == pytest.approx(counting["win"].mean() - threshold["win"].mean(), abs=1e-12)
    # items used, ends and souls count every game of the default runs
    used = data.items_used.set_index(["policy", "item"])
    assert used.loc[("threshold", "shield"), "per_game"] == pytest.approx(threshold["used_shield"].mean())
    ends = data.ends[data.ends["policy"] == "counting"].set_index("end")
    assert ends["games"].to_dict() == counting["end"].value_counts().reindex(ends.index, fill_value=0).to_dict()
    souls = data.souls.groupby("policy")["games"].sum()
    assert (souls == SMALL_GAMES).all() and set(souls.index) == set(CURSED_PLAN.souls_policies)
    # figure 3: a point of the sweep is the run simulate plays with that parameter; k=2 is the default
    sweep = data.stop_sweep.set_index(["policy", "param", "value"])
    assert sweep.loc[("threshold", "k", 3), "wins"] == play(policy="threshold", params={"k": 3})["win"].sum()
    assert sweep.loc[("threshold", "k", 2), "wins"] == threshold["win"].sum()
    assert sweep.loc[("counting", "margin", -0.5), "wins"] == \
        play(policy="counting", params={"margin": -0.5})["win"].sum()
    # figure 4: a forced starting item against the random start, game by game
    shield = play(policy="threshold", options={"starting_item": "shield"})
    assert (shield["start_item"] == "shield").all()
    starts = data.start_items.set_index(["policy", "start"])
    assert starts.loc[("threshold", "shield"), "diff"] == \
        pytest.approx(shield["win"].mean() - threshold["win"].mean(), abs=1e-12)
    none = play(policy="counting", options={"starting_items": 0})
    assert none["start_item"].isna().all() and starts.loc[("counting", "none"), "wins"] == none["win"].sum()
    # figure 5: a rule option against the default, game by game
    alt = play(policy="counting", options={"bust": "soul_lost"})
    row = data.sensitivity[(data.sensitivity["option"] == "bust") & (data.sensitivity["policy"] == "counting")]
    assert row["diff"].iloc[0] == pytest.approx(alt["win"].mean() - counting["win"].mean(), abs=1e-12)
    outcomes = [c for c in cursedsim.get_game("cursed").outcome_columns if c != "game_index"]
    changed = np.zeros(SMALL_GAMES, dtype=bool)
    for column in outcomes:   # a missing start_item equals a missing one
        changed |= alt[column].astype(object).fillna("-").to_numpy() != \
            counting[column].astype(object).fillna("-").to_numpy()
    assert row["games_changed"].iloc[0] == pytest.approx(changed.mean())


def test_cursed_rerun_resumes_from_the_run_folder(small_cursed):
    runs = Path(small_cursed.out) / "runs"
    frames = sorted(runs.rglob("games.parquet"))
    assert len(frames) == CURSED_PLAN.run_count
    stamps = {path: path.stat().st_mtime_ns for path in frames}
    again = report("cursed", small_cursed.out, n_games=SMALL_GAMES, seed=SMALL_SEED, n_jobs=1, progress=False,
                   tuned=None)
    assert {path: path.stat().st_mtime_ns for path in frames} == stamps   # nothing played again
    assert again.readings == small_cursed.readings
    pd.testing.assert_frame_equal(again.summary, small_cursed.summary)


# ---------------------------------------------------------------- the command

def test_report_command_prints_a_summary_and_writes_the_report(small_report, capsys):
    from cursedsim.cli import main
    try:
        main(["report", "verflucht", "--out", small_report.out, "--games", str(SMALL_GAMES), "--seed",
              str(SMALL_SEED), "--jobs", "1", "--no-progress", "--tuned", "none"])
        status = 0
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "baseline %" in out and "smart − baseline" in out and f"seed {SMALL_SEED}" in out
    row = small_report.summary.set_index("players").loc[3]
    low, high = 100 * row["baseline_ci_low"], 100 * row["baseline_ci_high"]
    assert f"{100 * row['baseline_win_rate']:.1f} [{low:.1f}, {high:.1f}]" in out
    for figure in small_report.figures:
        assert figure.title in out
    assert "report.html" in err and f"{len(FIGURES)} figures" in err


def test_report_command_makes_the_cursed_report(small_cursed, capsys):
    from cursedsim.cli import main
    try:
        main(["report", "cursed", "--out", small_cursed.out, "--games", str(SMALL_GAMES), "--seed", str(SMALL_SEED),
              "--jobs", "1", "--no-progress", "--tuned", "none"])
        status = 0
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "Cursed!?, 1 player" in out and "− threshold" in out and f"seed {SMALL_SEED}" in out
    row = small_cursed.summary.set_index("policy").loc["counting"]
    assert f"{100 * row['win_rate']:.1f} [{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]" in out
    assert f"{100 * row['diff']:+.1f} [{100 * row['diff_ci_low']:+.1f}, {100 * row['diff_ci_high']:+.1f}]" in out
    for figure in small_cursed.figures:
        assert figure.title in out
    assert "report.html" in err and "5 figures" in err


@pytest.mark.parametrize("args, fragments", [
    (["report", "verflucht", "--out", "{tmp}/r", "--games", "0"], ["number of games", "0"]),
    (["report", "nosuchgame", "--out", "{tmp}/r"], ["nosuchgame", "reports exist for: verflucht, cursed, covens, gifts, village"]),
    (["report", "cursed", "--out", "{tmp}/r", "--games", "1"], ["at least 2 games"]),
    (["report", "verflucht"], ["--out"]),
    (["report", "verflucht", "--out", "{tmp}/r", "--jobs", "0"], ["job"]),
    (["report", "verflucht", "--out", "{tmp}/r", "--games", "many"], ["many"]),
])
def test_report_command_errors_are_one_line(tmp_path, capsys, args, fragments):
    from cursedsim.cli import main
    try:
        main([arg.replace("{tmp}", str(tmp_path)) for arg in args])
        status = 0
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cursedsim: error: "), err
    for fragment in fragments:
        assert fragment.lower() in lines[0].lower(), lines[0]
    assert not (tmp_path / "r" / "runs").exists()


# ---------------------------------------------------------------- the HTML in a real browser

def _browser_or_skip():
    """selenium's webdriver module, or skip (fail under CI) naming what is missing."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(path)]
    try:
        from selenium import webdriver
    except ImportError:
        webdriver = None
        missing.append("the selenium package (pip install -e '.[test]')")
    if missing:
        reason = ("headless browser test needs " + ", ".join(missing)
                  + " (apt-get install chromium chromium-driver)")
        if os.environ.get("CI"):
            pytest.fail(reason + "; CI must install them (.ci/run)")
        pytest.skip(reason)
    return webdriver


@pytest.mark.parametrize("made", ["small_report", "small_cursed"])
def test_report_loads_in_headless_chromium(made, request, tmp_path):
    webdriver = _browser_or_skip()
    small_report = request.getfixturevalue(made)
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'profile'}")
    options.add_argument("--window-size=1280,1000")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.get(Path(small_report.html).resolve().as_uri())
        WebDriverWait(driver, 30).until(
            lambda d: d.execute_script("return document.readyState === 'complete' && "
                                       "Array.from(document.images).every(i => i.complete)"))
        images = driver.execute_script(
            "return Array.from(document.images).map(i => ({complete: i.complete, width: i.naturalWidth, "
            "height: i.naturalHeight, alt: i.alt, shown: i.getBoundingClientRect().width}))")
        assert len(images) == len(small_report.figures) == len(report_for(small_report.game).figures)
        for image, figure in zip(images, small_report.figures):
            assert image["complete"] and image["width"] > 0 and image["height"] > 0, image
            assert image["alt"] == figure.title and image["shown"] > 600, image
            assert (image["width"], image["height"]) == png_size(figure.png())
        # nothing was fetched: the page is one file
        fetched = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert [name for name in fetched if not name.startswith("data:")] == []
        assert driver.title == f"{small_report.data.title} balance report"
        # a screenshot of the whole page
        height = driver.execute_script("return document.documentElement.scrollHeight")
        assert height > 3000
        driver.set_window_size(1280, min(height, 12000))
        shot = tmp_path / "report.png"
        assert driver.save_screenshot(str(shot))
    finally:
        driver.quit()
    data = shot.read_bytes()
    width, height = png_size(data)
    assert width >= 1000 and height >= 3000 and len(data) > 100_000
    pixels = (_decode_png(data)[::2, ::2, :3] * 255).astype(np.uint32)
    colors = np.unique((pixels[..., 0] << 16) | (pixels[..., 1] << 8) | pixels[..., 2])
    assert len(colors) > 100 and pixels.std() > 10   # text and figures, not a blank page


def _decode_png(data: bytes) -> np.ndarray:
    """Pixels of a PNG (via matplotlib's reader, which needs no browser)."""
    import io

    from matplotlib import image
    return image.imread(io.BytesIO(data), format="png")
