"""Clairvoyant solvers: games solved per second, nodes per game, the share solved exactly and the bound's
win rate, one function per game (``bench_<game>``), gathered by ``main`` into
results/benchmarks/clairvoyant.json.

Run: ``python benchmarks/bench_clairvoyant.py`` (``--games 200 --budget 20000`` by default). One core,
wall clock and CPU time of this process; the machine's load is recorded with them (write the JSON only
from a quiet machine: the search is pure Python and a busy core halves every figure).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from common import machine, write_result  # benchmarks/common.py

from cursedsim.games.cursed.clairvoyant import DEFAULT_BUDGET
from cursedsim.games.cursed.clairvoyant import solve_chunk as solve_cursed_chunk
from cursedsim.games.cursed.rules import RuleOptions

SEED = 2026


def bench_cursed(n_games: int, budget: int = DEFAULT_BUDGET) -> dict:
    """Cursed!? (default rules): games 0..n_games-1 of the run SEED, one core."""
    wall, cpu = time.perf_counter(), time.process_time()
    columns = solve_cursed_chunk(SEED, 0, n_games, RuleOptions(), budget=budget)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    nodes, exact, won = columns["clairvoyant_nodes"], columns["clairvoyant_exact"], columns["clairvoyant_won"]
    return {"games": n_games, "budget": budget, "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "games_per_s": round(n_games / wall, 3), "games_per_cpu_s": round(n_games / cpu, 3),
            "nodes_per_s": round(float(nodes.sum()) / wall),
            "nodes_mean": round(float(nodes.mean()), 1), "nodes_median": float(np.median(nodes)),
            "nodes_max": int(nodes.max()), "exact_share": round(float(exact.mean()), 4),
            "won_exact": int((won & exact).sum()), "lost_exact": int((~won & exact).sum()),
            "win_rate_upper_bound": round(float(won.mean()), 4)}


BENCHES = {"cursed": bench_cursed}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per solver")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="node budget per game")
    parser.add_argument("--game", action="append", choices=sorted(BENCHES), help="only these games")
    parser.add_argument("--no-write", action="store_true", help="print only (a small run on a busy machine)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    result = {name: BENCHES[name](args.games, args.budget) for name in (args.game or sorted(BENCHES))}
    result = {"seed": SEED, **result, "machine": machine(load_before)}
    if args.no_write:
        for key, value in result.items():
            print(f"{key}: {value}")
    else:
        write_result("clairvoyant", result)
    return result


if __name__ == "__main__":
    main()
