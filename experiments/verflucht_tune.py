"""Can the smart policy family do better with parameters tuned per player count, and does the tuned
policy beat baseline on games it was not tuned on?

For each player count 1-5 (rulebook seals) ``cursedsim.tune`` draws ``--candidates`` parameter sets of
smart (its defaults, half near them, half anywhere in the default search space), plays them by
successive halving on common random numbers (games 0..n-1 of seed ``--seed``, n doubling each round),
and then plays the winner, ``baseline`` and smart's defaults on ``--final-games`` held-out games (a seed
derived from ``--seed`` that shares no random stream with the search; see cursedsim/tune.py).

Writes ``results/verflucht/tuned.json`` (per player count: the tuned parameters, the seeds, the
held-out win rates and the paired differences against baseline and against the defaults) and
``results/verflucht/tune_holdout.csv`` (one row per player count and policy on the held-out games).
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from common import results_dir, shown, write_csv, write_json  # experiments/common.py

import cursedsim
from cursedsim.tune import tune_summary

PLAYERS = range(1, 6)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=32)
    parser.add_argument("--start-games", type=int, default=20_000, help="games per candidate in the first round")
    parser.add_argument("--final-games", type=int, default=400_000, help="held-out games per policy")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    out = results_dir("verflucht")

    results, frames = [], []
    for players in PLAYERS:
        t0 = time.perf_counter()
        result = cursedsim.tune("verflucht", "smart", players=players, candidates=args.candidates,
                                start_games=args.start_games, final_games=args.final_games, reference="baseline",
                                seed=args.seed, n_jobs=args.jobs, progress=False)
        results.append(result)
        holdout = result.holdout.copy()
        holdout.insert(0, "seals", result.options["seals"])
        holdout.insert(0, "players", players)
        frames.append(holdout)
        d, g = result.difference, result.versus_default
        changed = {k: v for k, v in result.params.items()
                   if v != cursedsim.get_game("verflucht").policy("smart").params[k]}
        print(f"players {players}: tuned {changed or '(the defaults)'}; held out: tuned - baseline "
              f"{100 * d['diff']:+.2f} pp [{100 * d['ci_low']:+.2f}, {100 * d['ci_high']:+.2f}], tuned - default "
              f"{100 * g['diff']:+.2f} pp [{100 * g['ci_low']:+.2f}, {100 * g['ci_high']:+.2f}] "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)

    summary = tune_summary(results)
    path = write_json(summary, out / "tuned.json")
    table = pd.concat(frames, ignore_index=True)
    table.insert(0, "holdout_seed", str(results[0].holdout_seed))
    csv = write_csv(table, out / "tune_holdout.csv")
    print(f"written: {shown(path, csv)}")


if __name__ == "__main__":
    main()
