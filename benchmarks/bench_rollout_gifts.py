"""Cursed Gifts ``rollout``: how much it wins over the best heuristic, paired, and how fast it plays.

For each field policy and each playout budget ``n``: the focus seat (rotating, game i at seat i % players)
plays ``rollout:n=N`` over ``spread`` (the best heuristic of the policy matrix, results/gifts/
policy_matrix.csv), then ``spread`` itself, on the same games (seed, index): the focus seat's win rate of
each with its 95% Wilson interval, the paired difference with its 95% t interval, games/s per core of the
rollout run (one process, wall clock, with the machine's load) and the process's peak memory. Writes
results/benchmarks/rollout_gifts.json.

Run: ``python benchmarks/bench_rollout_gifts.py`` (``--games 2000 --n 16 64 --field spread leader``).
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
from common import OUT_DIR, machine, write_result  # benchmarks/common.py

from cursedsim.games.gifts import kernel, rollout
from cursedsim.games.gifts import policy_specs as P
from cursedsim.games.gifts.deck import load_deck
from cursedsim.games.gifts.rules import RuleOptions
from cursedsim.stats import paired_difference, wilson_interval

BASE = "spread"
SEED = 2026


def focus_won(out: dict) -> np.ndarray:
    return ((out["winner_seat"] == out["focus_seat"]) & ~out["unfinished"]).astype(float)


def cell(players: int, field: str, n: int, games: int) -> dict:
    """One (field, n) cell: rates, paired difference, speed."""
    options = RuleOptions()
    heuristic = focus_won(kernel.run_chunk(SEED, 0, games, players, options, BASE, None, field, None))
    params = [float(n), float(P.POLICIES[BASE].policy_id), 24.0]
    rollout.run_chunk(SEED, 0, 2, players, options, P.ROLLOUT, params, field, None)   # load / compile
    t0 = time.perf_counter()
    searched = focus_won(rollout.run_chunk(SEED, 0, games, players, options, P.ROLLOUT, params, field, None))
    seconds = time.perf_counter() - t0
    low, high = wilson_interval(searched.sum(), games)
    h_low, h_high = wilson_interval(heuristic.sum(), games)
    diff = paired_difference(searched, heuristic)
    return {"field": field, "n": n, "games": games,
            "rollout_rate": round(float(searched.mean()), 4), "rollout_ci": [round(low, 4), round(high, 4)],
            f"{BASE}_rate": round(float(heuristic.mean()), 4), f"{BASE}_ci": [round(h_low, 4), round(h_high, 4)],
            "paired_diff": round(diff["diff"], 4), "paired_ci": [round(diff["ci_low"], 4), round(diff["ci_high"], 4)],
            "games_per_s_per_core": round(games / seconds, 1), "seconds": round(seconds, 1)}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--n", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--field", nargs="+", default=["spread", "leader"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--out", default=str(OUT_DIR / "rollout_gifts.json"))
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    cells = []
    for field in args.field:
        for n in args.n:
            cells.append(cell(args.players, field, n, args.games))
            print(cells[-1], flush=True)
    result = {"game": "gifts", "players": args.players, "base": BASE, "seed": SEED, "deck": load_deck().label,
              "focus_seat": "rotate", "cap": 24, "cells": cells,
              "peak_memory_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
              **machine(load_before)}
    if args.out == str(OUT_DIR / "rollout_gifts.json"):
        write_result("rollout_gifts", result)
    else:
        import json
        from pathlib import Path
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
