"""Does exact play of each fight beat the heuristics? optimal_fight against counting and threshold.

Plays ``optimal_fight`` (the exact fight DP, reference engine), ``counting`` and ``threshold`` (their
defaults) on the same games (seed 2026, game indices 0..N-1: common random numbers) with
``cursedsim.compare`` and writes ``results/cursed/optimal_fight/comparison.csv`` (one row per pair a - b:
both win rates with Wilson 95% intervals, the paired difference with its 95% interval and p-values) and
``README.md`` (the same numbers in words). N defaults to what fits in about 8 minutes on one core
(optimal_fight plays about one game a second on the reference engine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import pairs_with_intervals, results_dir, write_csv  # noqa: E402  (experiments/common.py)

import cursedsim  # noqa: E402
from cursedsim.files import write_atomic  # noqa: E402

GAME = "cursed"
SEED = 2026
POLICIES = ("optimal_fight", "counting", "threshold")


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def points(x: float) -> str:
    return f"{100 * x:+.1f}"


def readme(result, pairs, games: int, seconds: float) -> str:
    """The README: what was played and the numbers."""
    rates = result.policies.set_index("policy")
    lines = [
        "# optimal_fight against counting and threshold (Cursed!?)",
        "",
        f"`experiments/cursed_optimal_fight.py`: {games:,} games (seed {SEED}, game indices 0..{games - 1}), every "
        "policy on the same deals (common random numbers), default rule options and default policy "
        f"parameters; {seconds / 60:.1f} minutes on one core. `optimal_fight` plays each fight by exact dynamic "
        "programming over the draw pile's known composition (docs/rules/cursed.md, \"optimal_fight\"); its "
        "decisions between fights, the Big Turkey Dinner and the Large Backpack's pick are `counting`'s.",
        "",
        "| policy | wins | win rate | 95% Wilson interval | mean souls |",
        "|---|---|---|---|---|",
    ]
    for policy in POLICIES:
        row = rates.loc[policy]
        lines.append(f"| {policy} | {int(row['wins']):,} | {pct(row['win_rate'])} | "
                     f"{pct(row['ci_low'])} - {pct(row['ci_high'])} | {row['mean_souls']:.2f} |")
    lines += ["", "Paired differences of win rate (a - b, points, 95% interval over the same games):", "",
              "| a | b | difference | 95% interval | p (Holm) |", "|---|---|---|---|---|"]
    for _, row in pairs.iterrows():
        lines.append(f"| {row['a']} | {row['b']} | {points(row['diff'])} | {points(row['ci_low'])} to "
                     f"{points(row['ci_high'])} | {row['p_holm']:.2g} |")
    key = pairs[(pairs["a"] == "optimal_fight") & (pairs["b"] == "counting")].iloc[0]
    verdict = ("above counting: the interval excludes 0" if key["ci_low"] > 0 else
               "not shown to differ from counting at this sample size" if key["ci_high"] > 0 else
               "below counting: the interval excludes 0")
    lines += ["", f"optimal_fight - counting = {points(key['diff'])} points "
              f"({points(key['ci_low'])} to {points(key['ci_high'])}): {verdict}.", "",
              "The sample is small because optimal_fight runs on the reference engine (about a second a game); "
              "`python experiments/cursed_optimal_fight.py --games N` plays more.", ""]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per policy (default 500: about 8 minutes)")
    args = parser.parse_args(argv)
    out = results_dir(GAME) / "optimal_fight"
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    result = cursedsim.compare(GAME, list(POLICIES), args.games, seed=SEED, pairs="all", n_jobs=1, progress=False)
    seconds = time.perf_counter() - start
    pairs = pairs_with_intervals(result)
    write_csv(pairs, out / "comparison.csv")
    write_atomic(out / "README.md", readme(result, pairs, args.games, seconds))
    print(readme(result, pairs, args.games, seconds))


if __name__ == "__main__":
    main()
