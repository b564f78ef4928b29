"""Do Cursed!?'s threshold and counting policies improve with tuned parameters, and which of the two is
best once both are tuned?

``cursedsim.tune`` searches each policy's default space (its ``PolicySpec.tune_space``: the stopping
parameter k or margin and the item-use thresholds) by successive halving on common random numbers
(games 0..n-1 of ``--seed``), then plays the winner, the reference ``threshold`` with its defaults and
the policy's own defaults on ``--final-games`` held-out games (a derived seed that shares no random
stream with the search). Finally ``compare`` plays the two tuned policies and both defaults on the
same held-out games, so "which is best" is answered on games no choice was made on.

The search seed (2027) is not the seed of ``cursed_policies.py`` and of the report (2026), and shares
no random stream with their games (checked): the tuned policies join those comparisons (read from
``tuned.json``, the one place their parameters are kept) on games they were not chosen on. Run this
script before them (``make results`` does).

Writes ``results/cursed/tuned.json`` (per policy: the tuned parameters, seeds and held-out differences),
``results/cursed/tune_holdout.csv`` (per tuned policy and role on the held-out games) and
``results/cursed/tuned_compare.csv`` (the final paired comparison).
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from common import pairs_with_intervals, results_dir, shown, write_csv, write_json  # experiments/common.py

import cursedsim
from cursedsim.tune import TAG_HOLDOUT, check_disjoint_seeds, derive_seed, tune_summary

GAME = "cursed"
POLICIES = ("threshold", "counting")
REFERENCE = "threshold"
#: The search seed, and the seed of the comparisons the tuned policies join (cursed_policies.py, the report).
SEED = 2027
COMPARISON_SEED = 2026
#: Games of either seed checked to share no random stream (more than any of these scripts plays).
GAMES_CHECKED = 1 << 24


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=32)
    parser.add_argument("--start-games", type=int, default=20_000, help="games per candidate in the first round")
    parser.add_argument("--final-games", type=int, default=1_000_000, help="held-out games per policy")
    parser.add_argument("--seed", type=int, default=SEED, help="the search seed")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    out = results_dir(GAME)
    for seed in (args.seed, derive_seed(args.seed, TAG_HOLDOUT)):   # search and held-out games
        check_disjoint_seeds(seed, COMPARISON_SEED, GAMES_CHECKED)

    results, holdouts = {}, []
    for policy in POLICIES:
        t0 = time.perf_counter()
        result = cursedsim.tune(GAME, policy, players=1, candidates=args.candidates, start_games=args.start_games,
                                final_games=args.final_games, reference=REFERENCE, seed=args.seed,
                                n_jobs=args.jobs, progress=False)
        results[policy] = result
        holdouts.append(result.holdout.assign(tuned_policy=policy))
        defaults = cursedsim.get_game(GAME).policy(policy).params
        changed = {k: v for k, v in result.params.items() if v != defaults[k]}
        d = result.difference
        print(f"{policy}: tuned {changed or '(the defaults)'}; held out: tuned - {REFERENCE} "
              f"{100 * d['diff']:+.2f} pp [{100 * d['ci_low']:+.2f}, {100 * d['ci_high']:+.2f}] "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)

    holdout_seed = results[POLICIES[0]].holdout_seed
    contenders = [{"policy": p, "params": results[p].params, "label": f"{p} (tuned)"} for p in POLICIES]
    contenders += [{"policy": p, "label": f"{p} (defaults)"} for p in POLICIES]
    comparison = cursedsim.compare(GAME, contenders, args.final_games, seed=holdout_seed, n_jobs=args.jobs,
                                   pairs="all", progress=False)
    pairs = pairs_with_intervals(comparison)
    pairs.insert(0, "seed", str(holdout_seed))
    for row in pairs.itertuples():
        print(f"  {row.a} - {row.b} = {100 * row.diff:+.3f} pp [{100 * row.ci_low:+.3f}, {100 * row.ci_high:+.3f}]")

    summary = {policy: tune_summary([result]) for policy, result in results.items()}
    table = pd.concat(holdouts, ignore_index=True)
    table.insert(0, "holdout_seed", str(holdout_seed))
    written = [write_json(summary, out / "tuned.json"), write_csv(table, out / "tune_holdout.csv"),
               write_csv(pairs, out / "tuned_compare.csv")]
    print(f"written: {shown(*written)}")


if __name__ == "__main__":
    main()
