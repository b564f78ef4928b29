"""Which Cursed!? policy wins most often, and when should a player stop drawing weapons?

1. Plays the policies of the report's figure 1 on the same 1,000,000 games (common random numbers):
   threshold (k=2), counting (margin 0), no_items, random with their defaults, and next to them the
   tuned threshold and counting of ``results/cursed/tuned.json`` (``cursed_tune.py``, run first: the one
   place the tuned parameters are kept). Writes ``results/cursed/compare.csv`` (one row per pair: both
   win rates with Wilson 95% intervals, the paired difference a - b with its 95% interval, p-value and
   Holm-adjusted p-value, the unpaired interval, the games needed to detect one point),
   ``results/cursed/policies.csv`` (per policy: its parameters, win rate, mean souls, rounds, damage,
   items used per game by kind, how the games ended) and ``results/cursed/best_policy.json`` (the
   policy that won most, with its margin over threshold: the report's rule, on more games).
2. Sweeps the stopping rule on 200,000 common games per cell: threshold's and no_items' k from 0 to 8
   (stop when the gap to the monster's power is at most k) and counting's margin; writes
   ``results/cursed/stop_rule.csv`` and ``results/cursed/stop_rule.png``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd
from common import pairs_with_intervals, results_dir, shown, write_csv, write_figure, write_json  # experiments/common.py
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import cursedsim
from cursedsim.games.cursed.rules import END_NAMES, ITEM_SLUGS
from cursedsim.palette import policy_color
from cursedsim.report.cursed.data import PLAN, PLAYERS, compared_policies
from cursedsim.report.data import ReportChoices

GAME = "cursed"
TUNED = "tuned.json"
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


def contenders(tuned_file: Path) -> list[dict]:
    """The report's figure-1 policies (``compared_policies``) as compare's contenders."""
    game = cursedsim.get_game(GAME)
    policies = compared_policies(game, ReportChoices(tuned_file=str(tuned_file)))
    return [p.contender(PLAYERS) for p in policies]


def best_policy(pairs: pd.DataFrame, rates: pd.DataFrame, seed: int) -> dict:
    """The policy with the highest win rate and its paired margin over the reference (the report's rule)."""
    best = str(rates["win_rate"].idxmax())
    row = {"seed": seed, "n": int(rates.loc[best, "n"]), "policy": best, "reference": PLAN.reference,
           **{c: float(rates.loc[best, c]) for c in ("win_rate", "ci_low", "ci_high")}}
    if best == PLAN.reference:
        return {**row, "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0}
    pair = pairs[(pairs["a"] == best) & (pairs["b"] == PLAN.reference)]
    sign = 1.0
    if pair.empty:   # every pair is listed once: the reference may be its a side
        pair, sign = pairs[(pairs["a"] == PLAN.reference) & (pairs["b"] == best)], -1.0
    pair = pair.iloc[0]
    low, high = sorted((sign * pair["ci_low"], sign * pair["ci_high"]))
    return {**row, "diff": float(sign * pair["diff"]), "diff_ci_low": float(low), "diff_ci_high": float(high),
            "p_holm": float(pair["p_holm"])}


def compare_policies(n_games: int, seed: int, n_jobs: int, tuned_file: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    t0 = time.perf_counter()
    sides = contenders(tuned_file)
    result = cursedsim.compare(GAME, sides, n_games, seed=seed, n_jobs=n_jobs, pairs="all", progress=False)
    rates = result.policies.set_index("policy")
    pairs = pairs_with_intervals(result)
    pairs.insert(0, "seed", seed)
    for side in sides:
        label = side["label"]
        print(f"{label:>22}: {100 * rates.loc[label, 'win_rate']:6.2f}% "
              f"[{100 * rates.loc[label, 'ci_low']:.2f}, {100 * rates.loc[label, 'ci_high']:.2f}]")
    best = best_policy(pairs, rates, seed)
    print(f"  best: {best['policy']}, {best['policy']} - {PLAN.reference} = {100 * best['diff']:+.3f} pp "
          f"[{100 * best['diff_ci_low']:+.3f}, {100 * best['diff_ci_high']:+.3f}] "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    table = policy_table(result, seed)
    params = {side["label"]: ",".join(f"{k}={v:g}" for k, v in side["params"].items()) for side in sides}
    table.insert(2, "params", table["policy"].map(params))
    return pairs, table, best


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
            color = policy_color(policy)
            ax.plot(cell["value"], 100 * cell["win_rate"], marker="o", ms=3, color=color, label=policy)
            ax.fill_between(cell["value"], 100 * cell["ci_low"], 100 * cell["ci_high"], color=color, alpha=0.25,
                            lw=0)
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
    tuned_file = out / TUNED
    if not tuned_file.is_file():
        raise SystemExit(f"{shown(tuned_file)} is missing: run experiments/cursed_tune.py first")
    pairs, policies, best = compare_policies(args.games, args.seed, args.jobs, tuned_file)
    stop = sweep_stop_rule(args.sweep_games, args.seed, args.jobs)
    written = [write_csv(pairs, out / "compare.csv"), write_csv(policies, out / "policies.csv"),
               write_json(best, out / "best_policy.json"),
               write_csv(stop, out / "stop_rule.csv"), write_figure(plot_stop_rule(stop), out / "stop_rule.png")]
    print(f"written: {shown(*written)}")


if __name__ == "__main__":
    main()
