"""Verflucht! clairvoyant solver throughput and bound: games solved per second (wall and CPU), nodes per
game, how many games the search settles within its budget, and the bound's win rate beside the best
built-in policy's on the same games. Writes results/benchmarks/clairvoyant_verflucht.json.

Run on a quiet machine: ``python benchmarks/bench_clairvoyant_verflucht.py --games 1000``
(``--dry-run`` prints without writing, for a small check).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from common import machine, write_result  # benchmarks/common.py

import cursedsim
from cursedsim.games import get_game
from cursedsim.games.verflucht.clairvoyant import DEFAULT_BUDGET, solve_chunk
from cursedsim.games.verflucht.rules import RuleOptions

SEED = 2026
PLAYERS = (2, 3, 4, 5)


def verflucht(n_games: int, budget: int, players_list=PLAYERS) -> dict:
    """Per player count: games/s, nodes, settled share, the bound and the best kernel policy's win rate
    (the search policies, ISMCTS, are too slow for a benchmark of this size)."""
    out = {}
    for players in players_list:
        wall, cpu = time.perf_counter(), time.process_time()
        cols = solve_chunk(SEED, 0, n_games, players, RuleOptions(), budget=budget)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rates = {name: float(cursedsim.simulate("verflucht", n_games, players=players, policy=name, seed=SEED,
                                                progress=False)["win"].mean())
                 for name, spec in get_game("verflucht").policies.items() if spec.engine == "kernel"}
        best = max(rates, key=rates.get)
        won, exact, nodes = cols["clairvoyant_won"], cols["clairvoyant_exact"], cols["clairvoyant_nodes"]
        out[f"{players}p"] = {
            "games": n_games, "budget": budget,
            "games_per_s": round(n_games / wall, 3), "games_per_cpu_s": round(n_games / cpu, 3),
            "nodes_mean": round(float(nodes.mean()), 1), "nodes_median": float(np.median(nodes)),
            "nodes_max": int(nodes.max()),
            "exact_share": round(float(exact.mean()), 4),
            "bound_win_rate": round(float(won.mean()), 4),               # upper bound (unsettled = won)
            "proven_win_rate": round(float((won & exact).mean()), 4),    # lower bound on the clairvoyant
            "best_policy": best, "best_policy_win_rate": round(rates[best], 4),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--players", type=int, nargs="*", default=list(PLAYERS))
    parser.add_argument("--dry-run", action="store_true", help="print, do not write the result file")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    result = {"verflucht": verflucht(args.games, args.budget, args.players), "seed": SEED, **machine(load)}
    if args.dry_run:
        print(result)
    else:
        write_result("clairvoyant_verflucht", result)


if __name__ == "__main__":
    main()
