"""The Cursed!? report for decisions: the recommendations (best policy, starting items ranked), the
Holm-adjusted rule sensitivity and its policy-dependence, tuned policies next to the built-in ones and
one colour per policy, each checked against numbers computed here from the report's CSV tables or from
direct simulations, never against the report's own reductions. One small real report (1,500 games per
cell, a tuned file written by the test) is made once per test process.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb
from scipy import stats as scipy_stats

import cursedsim
from cursedsim.palette import policy_color
from cursedsim.report import report
from cursedsim.report.content import percent_ci, points_ci
from cursedsim.report.cursed.data import PLAN
from cursedsim.report.cursed.figures import item_names

GAMES = 1_500
SEED = 11
#: The tuned parameters the test gives the report (k=3: another stopping rule than threshold's default).
TUNED = {"threshold": {"game": "cursed", "policy": "threshold", "players": {"1": {"params": {"k": 3.0, "shield_due": 1.0}}}}}
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A small real Cursed!? report with a tuned threshold."""
    folder = tmp_path_factory.mktemp("cursed_decisions")
    tuned = folder / "tuned.json"
    tuned.write_text(json.dumps(TUNED))
    return report("cursed", folder / "report", n_games=GAMES, seed=SEED, n_jobs=1, progress=False, tuned=str(tuned))


def table(result, name: str) -> pd.DataFrame:
    """A table as a reader gets it: ``tables/<name>.csv``."""
    return pd.read_csv(Path(result.out) / "tables" / f"{name}.csv")


def holm_by_hand(p_values) -> np.ndarray:
    """Holm's step-down adjustment written out: the k-th smallest of m p-values times (m - k + 1), made
    monotone and capped at 1; NaN stays NaN and is not counted."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    present = np.flatnonzero(~np.isnan(p))
    m = len(present)
    running = 0.0
    for k, index in enumerate(present[np.argsort(p[present], kind="stable")]):
        running = max(running, min(1.0, (m - k) * p[index]))
        adjusted[index] = running
    return adjusted


def p_cell(p: float) -> str:
    return "-" if math.isnan(p) else "<0.001" if p < 0.001 else f"{p:.3g}"


def markdown_table(result, title: str) -> list[list[str]]:
    """The rows (cells as text) of the table under ``**title**`` in report.md."""
    lines = Path(result.markdown).read_text().splitlines()
    start = lines.index(f"**{title}**") + 4   # title, blank, header, rule
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


# ---------------------------------------------------------------- recommendations

def test_starting_items_are_ranked_by_their_paired_value_from_the_tables(made):
    starts = table(made, "starting_items")
    names = item_names()
    first = PLAN.item_policies[0]
    # the value of a start is its paired difference from the random start: the difference of the win rates
    random_rate = starts.set_index(["policy", "start"])["win_rate"]
    for row in starts.itertuples():
        assert row.diff == pytest.approx(row.win_rate - random_rate[(row.policy, "random")], abs=1e-5)
    # Holm over every start x policy compared with the random start
    compared = starts["start"] != "random"
    assert starts.loc[~compared, "p_holm"].isna().all()
    np.testing.assert_allclose(starts.loc[compared, "p_holm"], holm_by_hand(starts.loc[compared, "p_value"]),
                               rtol=1e-4, atol=1e-9)
    ranked = starts[compared & (starts["policy"] == first)].sort_values("diff", ascending=False, kind="stable")
    rows = made.recommendations["rows"][1:]
    assert len(rows) == len(ranked) == len(PLAN.items) + 1
    for rank, (row, expected) in enumerate(zip(rows, ranked.itertuples()), 1):
        assert row[0] == f"starting item, rank {rank}"
        assert row[1] == names[expected.start]
        assert row[3] == percent_ci(expected.win_rate, expected.ci_low, expected.ci_high)
        assert row[4] == points_ci(expected.diff, expected.diff_ci_low, expected.diff_ci_high)
        assert row[5] == p_cell(expected.p_holm)
    assert rows[0][1] == "Scroll of Purge Life"   # doubles the win rate: far beyond the noise of 1,500 games


def test_best_policy_and_its_margin_over_threshold_from_the_tables(made):
    rates = table(made, "policies").set_index("policy")
    pairs = table(made, "policy_differences")
    assert set(pairs["b"]) == {PLAN.reference}
    best = rates["win_rate"].idxmax()
    row = made.recommendations["rows"][0]
    assert row[0] == "best way to play"
    assert row[1].split(" (")[0] == best.split(" (")[0] and ("tuned" in row[1]) == ("tuned" in best)
    assert row[3] == percent_ci(rates.loc[best, "win_rate"], rates.loc[best, "ci_low"], rates.loc[best, "ci_high"])
    if best == PLAN.reference:
        assert row[4] == "reference"
    else:
        pair = pairs.set_index("a").loc[best]
        assert pair["diff"] == pytest.approx(rates.loc[best, "win_rate"] - rates.loc[PLAN.reference, "win_rate"],
                                             abs=1e-5)
        assert row[4] == points_ci(pair["diff"], pair["ci_low"], pair["ci_high"])
        np.testing.assert_allclose(pairs["p_holm"], holm_by_hand(pairs["p_value"]), rtol=1e-4, atol=1e-9)
        assert row[5] == p_cell(pair["p_holm"])
    # the same answer first in the Markdown and the HTML
    markdown = Path(made.markdown).read_text()
    assert markdown.index("## Recommendations") < markdown.index("## How this report was made")
    assert f"| {' | '.join(row)} |" in markdown
    assert "Recommendations" in Path(made.html).read_text()


# ---------------------------------------------------------------- rule sensitivity

def test_holm_flags_of_the_rule_sensitivity_from_the_tables(made):
    effects = table(made, "rule_sensitivity")
    dependence = table(made, "rule_policy_dependence")
    assert len(effects) == len(PLAN.options) * len(PLAN.sensitivity_policies)
    assert len(dependence) == len(PLAN.options) * (len(PLAN.sensitivity_policies) - 1)
    p_effects = holm_by_hand(effects["p_value"])
    p_dependence = holm_by_hand(dependence["p_value"])
    np.testing.assert_allclose(effects["p_holm"], p_effects, rtol=1e-4, atol=1e-9)
    np.testing.assert_allclose(dependence["p_holm"], p_dependence, rtol=1e-4, atol=1e-9)
    assert (effects["survives"] == (p_effects < 0.05)).all()
    assert (dependence["survives"] == (p_dependence < 0.05)).all()
    # a difference of the policies' effects on the same games is the difference of their mean effects
    effect = effects.pivot_table(index=["option", "value"], columns="policy", values="diff")
    first, other = PLAN.sensitivity_policies
    for row in dependence.itertuples():
        assert row.reference == first and row.policy == other
        expected = effect.loc[(row.option, row.value), other] - effect.loc[(row.option, row.value), first]
        assert row.diff == pytest.approx(expected, abs=1e-5)
    # the table under the figure: every effect, its adjusted p and the verdict those flags give
    rows = {cells[0]: cells for cells in markdown_table(
        made, "Which effects survive the adjustment for many comparisons, and which depend on the policy")}
    assert len(rows) == len(PLAN.options)
    surviving = 0
    for (option, value), cell in effects.groupby(["option", "value"], sort=False):
        cells = rows[f"{option}={str(value).lower()}"]
        kept = [p for p in PLAN.sensitivity_policies if bool(cell.set_index("policy").loc[p, "survives"])]
        surviving += len(kept)
        dep = dependence[(dependence["option"] == option) & (dependence["value"].astype(str) == str(value))]
        assert cells[1] == f"{100 * cell.set_index('policy').loc[first, 'diff']:+.2f}"
        assert cells[2] == p_cell(cell.set_index("policy").loc[first, "p_holm"])
        assert cells[6] == p_cell(dep["p_holm"].iloc[0])
        assert cells[7] == (", ".join(kept) or "-")
        assert cells[8] == ("yes" if dep["survives"].iloc[0] else "no")
    reading = made.readings["rule_sensitivity"]
    assert f"after Holm's adjustment over all {len(effects)} effects, {surviving} survive at 0.05" in reading
    flagged = int(dependence["survives"].sum())
    assert f"and {flagged} reading{'s' if flagged != 1 else ''} depend" in reading
    assert surviving > 0   # some readings change the game beyond any doubt (the Daggers always at 1)


def test_policy_dependence_is_the_paired_difference_of_differences(made):
    """Recomputed from four direct simulations: (option - default with counting) - (option - default
    with threshold), game by game, with a t interval."""
    def wins(policy, options=None):
        frame = cursedsim.simulate("cursed", GAMES, policy=policy, options=options, seed=SEED, progress=False)
        return frame["win"].to_numpy(float)

    option = {"bust": "soul_lost"}
    d = (wins("counting", option) - wins("counting")) - (wins("threshold", option) - wins("threshold"))
    half = scipy_stats.t.ppf(0.975, GAMES - 1) * d.std(ddof=1) / math.sqrt(GAMES)
    row = made.data.dependence.query("option == 'bust'").iloc[0]
    assert row["diff"] == pytest.approx(d.mean(), abs=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((d.mean() - half, d.mean() + half), abs=1e-9)


# ---------------------------------------------------------------- tuned policies

def test_tuned_policies_play_next_to_their_built_in_policy(made):
    labels = made.data.labels
    assert labels[:3] == ("threshold", "threshold (tuned)", "counting")
    assert set(PLAN.policies) <= set(labels)
    frame = cursedsim.simulate("cursed", GAMES, policy="threshold", params={"k": 3, "shield_due": 1}, seed=SEED,
                               progress=False)
    rates = table(made, "policies").set_index("policy")
    assert rates.loc["threshold (tuned)", "wins"] == frame["win"].sum()
    summary = made.summary.set_index("policy")
    assert summary.loc["threshold (tuned)", "diff"] == pytest.approx(
        frame["win"].mean() - rates.loc["threshold", "win_rate"], abs=1e-12)
    markdown = Path(made.markdown).read_text()
    assert "| threshold (tuned: k=3, shield_due=1) |" in markdown      # the summary names what tuning changed
    assert re.search(r"\| threshold \(tuned\) \| k=3, .*shield_due=1,.*tuned\.json", markdown)   # settings


# ---------------------------------------------------------------- colours

def _policy_colours(figure) -> set[tuple[float, float, float]]:
    """The non-grey colours drawn in a matplotlib figure (lines, markers, bars, bands), as RGB."""
    from matplotlib.collections import PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle
    found = set()
    for artist in figure.findobj():
        if isinstance(artist, Line2D):
            colours = [artist.get_color(), artist.get_markerfacecolor()]
        elif isinstance(artist, Rectangle) and artist.axes is not None and artist is not artist.axes.patch:
            colours = [artist.get_facecolor()]
        elif isinstance(artist, PolyCollection):
            colours = list(artist.get_facecolor())
        else:
            continue
        for colour in colours:
            if isinstance(colour, str) and colour == "none":
                continue
            rgb = tuple(round(c, 3) for c in to_rgb(colour))
            if len(set(rgb)) > 1:   # grey, black and white are frames, references and the random policy
                found.add(rgb)
    return found


def _palette(policies) -> set[tuple[float, float, float]]:
    return {tuple(round(c, 3) for c in to_rgb(policy_color(p))) for p in policies} - \
        {(g, g, g) for g in np.round(np.linspace(0, 1, 256), 3)}


def test_every_report_figure_draws_each_policy_in_its_palette_colour(made):
    figures = {figure.name: figure.figure for figure in made.figures}
    labels = made.data.labels
    assert _policy_colours(figures["win_rate_by_policy"]) == _palette(labels)
    assert _policy_colours(figures["souls_distribution"]) == _palette(PLAN.souls_policies)
    assert _policy_colours(figures["when_to_stop"]) == _palette(PLAN.stop_policies + ("counting",))
    assert _policy_colours(figures["item_value"]) == _palette(PLAN.item_policies)
    assert _policy_colours(figures["rule_sensitivity"]) == _palette(PLAN.sensitivity_policies)


def test_experiment_figures_use_the_palette():
    sys.path.insert(0, str(ROOT / "experiments"))
    try:
        import cursed_items
        import cursed_policies
    finally:
        sys.path.remove(str(ROOT / "experiments"))
    sweep = pd.DataFrame([{"policy": policy, "parameter": parameter, "value": value, "win_rate": 0.2,
                           "ci_low": 0.19, "ci_high": 0.21}
                          for policy, parameter in (("threshold", "k"), ("no_items", "k"), ("counting", "margin"))
                          for value in (0, 1, 2)])
    assert _policy_colours(cursed_policies.plot_stop_rule(sweep)) == _palette(["threshold", "no_items", "counting"])
    starts = pd.DataFrame([{"policy": label, "start": start, "diff": 0.01 * i, "diff_ci_low": 0.0,
                            "diff_ci_high": 0.02 * i}
                           for label, _, _ in cursed_items.POLICIES
                           for i, (start, _) in enumerate(cursed_items.STARTS)])
    assert _policy_colours(cursed_items.plot(starts)) == _palette(PLAN.item_policies)


# ---------------------------------------------------------------- the page in a browser

def test_recommendations_render_first_in_headless_chromium(made, tmp_path):
    from test_report import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS, _browser_or_skip
    webdriver = _browser_or_skip()
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.get(Path(made.html).resolve().as_uri())
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(
            "return document.readyState === 'complete' && Array.from(document.images).every(i => i.complete)"))
        shown = driver.execute_script(
            "const s = document.querySelector('section#recommendations'); const r = s.getBoundingClientRect();"
            "return {top: r.top, height: r.height, rows: s.querySelectorAll('tbody tr').length,"
            " first: s.querySelector('tbody tr').innerText, figures: document.querySelector('section.figure')"
            ".getBoundingClientRect().top, images: Array.from(document.images).filter(i => i.naturalWidth > 0).length}")
        fetched = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    finally:
        driver.quit()
    assert shown["rows"] == len(made.recommendations["rows"]) and shown["height"] > 200
    assert shown["top"] < shown["figures"]                            # before the figures
    assert "best way to play" in shown["first"]
    assert shown["images"] == len(made.figures)
    assert [name for name in fetched if not name.startswith("data:")] == []
