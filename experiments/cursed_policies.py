"""Which Cursed!? policy wins most often, and when should a player stop drawing weapons?

1. Plays random, no_items, threshold (k=2), counting (margin 0) and counting with margin -0.25 on the
   same 1,000,000 games (common random numbers) and writes ``results/cursed/compare.csv`` (one row per
   pair: both win rates with Wilson 95% intervals, the paired difference a - b with its 95% interval
   and p-value, the unpaired interval, the games needed to detect one point) and
   ``results/cursed/policies.csv`` (per policy: win rate, mean souls, rounds, damage, items used per
   game by kind, how the games ended).
2. Sweeps the stopping rule on 200,000 common games per cell: threshold's and no_items' k from 0 to 8
   (stop when the gap to the monster's power is at most k) and counting's margin; writes
   ``results/cursed/stop_rule.csv`` and ``results/cursed/stop_rule.png``.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from common import pairs_with_intervals, results_dir, shown, write_csv, write_figure  # experiments/common.py
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import cursedsim
from cursedsim.games.cursed.rules import END_NAMES, ITEM_SLUGS

GAME = "cursed"
CONTENDERS = ("threshold", "counting", "counting:margin=-0.25", "no_items", "random")
K_VALUES = tuple(range(9))
MARGINS = (-1.0, -0.75, -0.5, -0.375, -0.25, -0.125, 0.0, 0.25, 0.5, 1.0)


def policy_table(result, seed: int) -> pd.DataFrame:
    """Per contender: the summary of ``compare`` (win rate, the game's measures: mean souls ± SE, rounds,
    damage) plus weapons drawn, busts and items used per game by kind and the share of each way the
    game ended."""
    rows = []
    for label, frame in result.frames.items():
        row = {"policy": label, "mean_weapons_drawn": frame["weapons_drawn"].mean(),
               "mean_busts": frame["busts"].mean()}
        row.update({f"used_{slug}": frame[f"used_{slug}"].mean() for slug in ITEM_SLUGS})
        shares = frame["end"].value_counts(normalize=True)
        row.update({f"end_{name}": float(shares.get(name, 0.0)) for name in END_NAMES})
        rows.append(row)
    table = result.policies.merge(pd.DataFrame(rows), on="policy")
    table.insert(0, "seed", seed)
    return table


def compare_policies(n_games: int, seed: int, n_jobs: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    t0 = time.perf_counter()
    result = cursedsim.compare(GAME, list(CONTENDERS), n_games, seed=seed, n_jobs=n_jobs, pairs="all", progress=False)
    rates = result.policies.set_index("policy")
    pairs = pairs_with_intervals(result)
    pairs.insert(0, "seed", seed)
    for label in CONTENDERS:
        print(f"{label:>22}: {100 * rates.loc[label, 'win_rate']:6.2f}% "
              f"[{100 * rates.loc[label, 'ci_low']:.2f}, {100 * rates.loc[label, 'ci_high']:.2f}]")
    for row in pairs[pairs["b"] == "threshold"].itertuples():
        print(f"  {row.a} - threshold = {100 * row.diff:+.3f} pp [{100 * row.ci_low:+.3f}, {100 * row.ci_high:+.3f}]")
    print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    return pairs, policy_table(result, seed)


def sweep_stop_rule(n_games: int, seed: int, n_jobs: int) -> pd.DataFrame:
    """One row per (policy, k or margin) on the same games."""
    t0 = time.perf_counter()
    frames = []
    for policy, name, values in (("threshold", "k", K_VALUES), ("no_items", "k", K_VALUES),
                                 ("counting", "margin", MARGINS)):
        table = cursedsim.sweep(GAME, policies=policy, params={policy: {name: list(values)}}, n_games=n_games,
                                seed=seed, n_jobs=n_jobs, progress=False)
        table = table.assign(parameter=name, value=table[f"param_{name}"])
        frames.append(table)
        best = table.loc[table["win_rate"].idxmax()]
        print(f"{policy}: best {name}={best['value']:g} wins {100 * best['win_rate']:.2f}% "
              f"[{100 * best['ci_low']:.2f}, {100 * best['ci_high']:.2f}]", flush=True)
    table = pd.concat(frames, ignore_index=True)
    front = ["policy", "parameter", "value", "n", "wins", "win_rate", "ci_low", "ci_high"]
    print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    return table[front + [c for c in table.columns if c not in front and not c.startswith("param_")]]


def plot_stop_rule(table: pd.DataFrame) -> Figure:
    """Win rate (95% band) against k (threshold, no_items) and against counting's margin."""
    figure = Figure(figsize=(9, 3.4), layout="constrained")
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2, sharey=True)
    for ax, parameter, policies, label in ((left, "k", ("threshold", "no_items"), "k: stop when the gap is at most k"),
                                           (right, "margin", ("counting",), "counting's margin")):
        for policy in policies:
            cell = table[(table["policy"] == policy) & (table["parameter"] == parameter)].sort_values("value")
            ax.plot(cell["value"], 100 * cell["win_rate"], marker="o", ms=3, label=policy)
            ax.fill_between(cell["value"], 100 * cell["ci_low"], 100 * cell["ci_high"], alpha=0.25, lw=0)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    left.set_ylabel("win rate (%)")
    figure.suptitle("Cursed!?: when to stop drawing weapons", fontsize=10)
    return figure


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games per policy in the comparison")
    parser.add_argument("--sweep-games", type=int, default=200_000, help="games per cell of the stop-rule sweep")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    out = results_dir(GAME)
    pairs, policies = compare_policies(args.games, args.seed, args.jobs)
    stop = sweep_stop_rule(args.sweep_games, args.seed, args.jobs)
    written = [write_csv(pairs, out / "compare.csv"), write_csv(policies, out / "policies.csv"),
               write_csv(stop, out / "stop_rule.csv"), write_figure(plot_stop_rule(stop), out / "stop_rule.png")]
    print(f"written: {shown(*written)}")


if __name__ == "__main__":
    main()
