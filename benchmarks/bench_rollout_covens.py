"""Curses & Covens ``rollout``: how much each side's search wins over that side's best heuristic, paired, and
how fast it plays.

For each side and each playout budget ``n``: the side plays ``rollout:n=N`` (over its best heuristic: hunter
``tracker``, town ``coven``), then that heuristic itself, on the same games (seed, index), the other side at
its best heuristic: the side's win rate of each with its 95% Wilson interval, the paired difference with its
95% t interval, games/s per core of the rollout run (one process, wall clock, with the machine's load) and
the process's peak memory. Writes results/benchmarks/rollout_covens.json.

Run: ``python benchmarks/bench_rollout_covens.py`` (``--games 1000 --n 16 64 --side hunter town``).
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
from common import OUT_DIR, machine, write_result  # benchmarks/common.py

from cursedsim.games.covens import GAME
from cursedsim.games.covens.rules import RuleOptions
from cursedsim.stats import paired_difference, wilson_interval

BEST = {"hunter": "tracker", "town": "coven"}
OTHER = {"hunter": "town", "town": "hunter"}
SEED = 2026


def games_of(side: str, name: str, params: dict, games: int, players: int) -> tuple[np.ndarray, float]:
    """(the side's wins per game, seconds) of ``games`` games with ``side`` playing ``name``."""
    other = OTHER[side]
    specs = {side: GAME.side(side).policies[name], other: GAME.side(other).policies[BEST[other]]}
    vectors = {s: spec.param_vector(params if s == side else None) for s, spec in specs.items()}
    GAME.run_chunk(SEED, 0, 2, players, RuleOptions(), specs, vectors)   # load / compile
    t0 = time.perf_counter()
    out = GAME.run_chunk(SEED, 0, games, players, RuleOptions(), specs, vectors)
    return out[f"{side}_won"].astype(float), time.perf_counter() - t0


def cell(side: str, n: int, games: int, players: int, extra: dict) -> dict:
    """One (side, n) cell: rates, paired difference, speed."""
    heuristic, _ = games_of(side, BEST[side], {}, games, players)
    searched, seconds = games_of(side, "rollout", {"n": n, **extra}, games, players)
    low, high = wilson_interval(searched.sum(), games)
    h_low, h_high = wilson_interval(heuristic.sum(), games)
    diff = paired_difference(searched, heuristic)
    return {"side": side, "n": n, **extra, "games": games,
            "rollout_rate": round(float(searched.mean()), 4), "rollout_ci": [round(low, 4), round(high, 4)],
            "heuristic": BEST[side], "heuristic_rate": round(float(heuristic.mean()), 4),
            "heuristic_ci": [round(h_low, 4), round(h_high, 4)],
            "paired_diff": round(diff["diff"], 4), "paired_ci": [round(diff["ci_low"], 4), round(diff["ci_high"], 4)],
            "games_per_s_per_core": round(games / seconds, 1), "seconds": round(seconds, 1)}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--n", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--side", nargs="+", default=["hunter", "town"])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--uniform", action="store_true", help="also the hunter with infer=0 (uniform Travel replay)")
    parser.add_argument("--out", default=str(OUT_DIR / "rollout_covens.json"))
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    cells = []
    for side in args.side:
        for n in args.n:
            cells.append(cell(side, n, args.games, args.players, {}))
            print(cells[-1], flush=True)
            if side == "hunter" and args.uniform:
                cells.append(cell(side, n, args.games, args.players, {"infer": 0.0}))
                print(cells[-1], flush=True)
    result = {"game": "covens", "players": args.players, "seed": SEED, "best": BEST, "cap": 16, "cells": cells,
              "peak_memory_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
              **machine(load_before)}
    if args.out == str(OUT_DIR / "rollout_covens.json"):
        write_result("rollout_covens", result)
    else:
        import json
        from pathlib import Path
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
