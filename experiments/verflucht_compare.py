"""How much better than baseline is smart, and how far above the floor (random) are both, per player count?

Plays smart, baseline and random on the same 1,000,000 games (common random numbers: game i of every
policy starts from the same random streams) at every player count with the rulebook's seals, and writes
``results/verflucht/compare.csv``: one row per (players, pair of policies) with both win rates and
their Wilson 95% intervals, the paired difference a - b with its 95% interval and p-value, the unpaired
interval the same games would give, the games a paired (and an unpaired) comparison needs to detect one
percentage point, and the paired score difference over the games both policies won.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from common import pairs_with_intervals, results_dir, shown, write_csv  # experiments/common.py

import cursedsim

POLICIES = ("smart", "baseline", "random")
PLAYERS = range(1, 6)


def run(n_games: int, seed: int, n_jobs: int) -> pd.DataFrame:
    """One row per (players, pair); per-policy Wilson intervals joined in as ``ci_low_a`` etc."""
    rows = []
    for players in PLAYERS:
        t0 = time.perf_counter()
        result = cursedsim.compare("verflucht", list(POLICIES), n_games, players=players, seed=seed, n_jobs=n_jobs,
                                   pairs="all", progress=False)
        seals = int(result.frames[POLICIES[0]]["seals"].iat[0])
        pairs = pairs_with_intervals(result)
        pairs.insert(0, "seals", seals)
        pairs.insert(0, "players", players)
        rows.append(pairs)
        for row in pairs.itertuples():
            print(f"players {players} ({seals} seals): {row.a} - {row.b} = {100 * row.diff:+.3f} pp "
                  f"[{100 * row.ci_low:+.3f}, {100 * row.ci_high:+.3f}]", flush=True)
        print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    table = pd.concat(rows, ignore_index=True)
    table.insert(0, "seed", seed)
    return table


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games per policy and player count")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    table = run(args.games, args.seed, args.jobs)
    csv = write_csv(table, results_dir("verflucht") / "compare.csv")
    print(f"written: {shown(csv)}")


if __name__ == "__main__":
    main()
