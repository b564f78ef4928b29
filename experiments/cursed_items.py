"""What is each Cursed!? item worth? The win rate when the game starts with that item.

For the policies of the report's figure 4 (``PLAN.item_policies``: threshold and counting, with their
defaults), plays the same 1,000,000 games (common random numbers) with the rulebook's random starting
item, with no starting item
(``starting_items=0``) and with each of the ten items forced as the starting item (the study setting
``starting_item``: game i's deal with that card taken first, docs/rules/cursed.md). Writes
``results/cursed/starting_items.csv``: per policy and start, the win rate with its Wilson 95% interval,
the paired difference from the random start with its 95% interval, its p-value and Holm-adjusted
p-value (over every start and policy), and the mean souls; and the figure
``results/cursed/starting_items.png`` (each policy in its colour of every figure, ``palette.policy_color``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from common import results_dir, shown, write_csv, write_figure  # experiments/common.py
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import cursedsim
from cursedsim.games.cursed.rules import ITEM_NAMES, ITEM_SLUGS
from cursedsim.palette import policy_color
from cursedsim.report.cursed.data import PLAN
from cursedsim.stats import holm, paired_difference, wilson_interval

GAME = "cursed"
#: (label, policy, parameter overrides): the report's item policies with their defaults
POLICIES = tuple((policy, policy, {}) for policy in PLAN.item_policies)
#: (label, rule options) of every start; the first is the reference of the paired differences.
STARTS = (("random item", {}), ("no item", {"starting_items": 0})) + tuple(
    (name, {"starting_item": slug}) for name, slug in zip(ITEM_NAMES, ITEM_SLUGS))


def run(n_games: int, seed: int, n_jobs: int) -> pd.DataFrame:
    rows = []
    for label, policy, params in POLICIES:
        t0 = time.perf_counter()
        reference = None
        for start, options in STARTS:
            frame = cursedsim.simulate(GAME, n_games, policy=policy, params=params, options=options, seed=seed,
                                       n_jobs=n_jobs, progress=False)
            win = frame["win"].to_numpy(np.float64)
            if reference is None:
                reference = win
            low, high = wilson_interval(int(win.sum()), n_games)
            diff = paired_difference(win, reference)
            rows.append({"policy": label, "start": start, "option": ",".join(f"{k}={v}" for k, v in options.items()),
                         "n": n_games, "wins": int(win.sum()), "win_rate": win.mean(), "ci_low": float(low),
                         "ci_high": float(high), "diff": diff["diff"], "diff_ci_low": diff["ci_low"],
                         "diff_ci_high": diff["ci_high"],
                         "p_value": diff["p_value"] if options else np.nan, "mean_souls": frame["souls"].mean()})
        best = max((r for r in rows if r["policy"] == label and r["option"].startswith("starting_item")),
                   key=lambda r: r["diff"])
        print(f"{label}: random start {100 * rows[-len(STARTS)]['win_rate']:.2f}%; best start {best['start']} "
              f"{100 * best['diff']:+.2f} pp ({time.perf_counter() - t0:.0f} s)", flush=True)
    table = pd.DataFrame(rows)
    table.insert(table.columns.get_loc("p_value") + 1, "p_holm", holm(table["p_value"]))
    table.insert(0, "seed", seed)
    return table


def plot(table: pd.DataFrame) -> Figure:
    """Per policy, the paired difference of each start from the random start, sorted by value."""
    figure = Figure(figsize=(10, 4.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, len(POLICIES), sharey=False)
    for ax, (label, _, _) in zip(np.atleast_1d(axes), POLICIES):
        cells = table[(table["policy"] == label) & (table["start"] != STARTS[0][0])].sort_values("diff")
        y = np.arange(len(cells))
        ax.barh(y, 100 * cells["diff"], color=policy_color(label),
                hatch=["//" if s == "no item" else "" for s in cells["start"]], edgecolor="white")
        ax.errorbar(100 * cells["diff"], y, xerr=[100 * (cells["diff"] - cells["diff_ci_low"]),
                                                  100 * (cells["diff_ci_high"] - cells["diff"])],
                    fmt="none", ecolor="k", lw=1)
        ax.set_yticks(y, cells["start"])
        ax.axvline(0, color="k", lw=0.8)
        ax.set_xlabel("win rate − random start (points, 95% CI)")
        ax.set_title(label, fontsize=10)
        ax.grid(alpha=0.3, axis="x")
    figure.suptitle("Cursed!?: the value of each starting item", fontsize=10)
    return figure


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games per policy and start")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    out = results_dir(GAME)
    table = run(args.games, args.seed, args.jobs)
    written = [write_csv(table, out / "starting_items.csv"), write_figure(plot(table), out / "starting_items.png")]
    print(f"written: {shown(*written)}")


if __name__ == "__main__":
    main()
