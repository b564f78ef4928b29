"""Cursed!? ``optimal_fight`` in the kernel (issue 29.4): games/s per core and the worker's peak memory,
in a new process that plays like a runner worker (the chunks of one run, the DP's table kept across
them), and the cold compile of the kernel with and without the DP. Writes
results/benchmarks/optimal_fight.json.

Run: ``python benchmarks/bench_optimal_fight.py`` (``--games 40000`` in chunks of ``--chunk 5000`` by
default; ``--no-compile`` skips the two cold compiles, ~1-2 min each). The table starts empty, so the
first chunks solve more states than later ones (each chunk's rate is recorded); the machine's load is
recorded beside every figure. Targets: >= 2,000 games/s per core, < 1 GiB per worker.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from common import ROOT, machine, new_process_seconds, write_result  # benchmarks/common.py

from cursedsim.games.cursed import optimal_kernel

TARGET_GAMES_PER_S = 2_000
TARGET_WORKER_BYTES = 1 << 30
SEED = 2026

WORKER = """
import json, resource, sys, time
import numpy as np
from cursedsim.games.cursed import GAME, optimal_kernel
from cursedsim.games.cursed.rules import RuleOptions
games, chunk = int(sys.argv[1]), int(sys.argv[2])
spec = GAME.policy("optimal_fight")
vector = spec.param_vector()
GAME.run_chunk(1, 0, 1, 1, RuleOptions(), spec, vector)   # compile or load the kernel
rows, wins = [], 0
cpu0, wall0 = time.process_time(), time.perf_counter()
meta = optimal_kernel._MEMO["memo"][1]
for start in range(0, games, chunk):
    solved0, t0 = int(meta[optimal_kernel.M_SOLVED]), time.perf_counter()
    out = GAME.run_chunk(%(seed)d, start, chunk, 1, RuleOptions(), spec, vector)
    seconds = time.perf_counter() - t0
    wins += int(out["win"].sum())
    rows.append({"start": start, "games_per_s": round(chunk / seconds),
                 "states_solved_per_game": round((int(meta[optimal_kernel.M_SOLVED]) - solved0) / chunk),
                 "load": round(__import__("os").getloadavg()[0], 2)})
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
print(json.dumps({"games": games, "wall_s": wall, "cpu_s": cpu, "chunks": rows, "win_rate": wins / games,
                  "table_fill": int(meta[optimal_kernel.M_FILL]), "table_clears": int(meta[optimal_kernel.M_CLEARS]),
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""

FIRST_GAME = """
import time; t0 = time.perf_counter()
from cursedsim.games.cursed import GAME
from cursedsim.games.cursed.rules import RuleOptions
from cursedsim.numba_cache import source_digest
spec = GAME.policy("%s")
GAME.run_chunk(1, 0, 1, 1, RuleOptions(), spec, spec.param_vector())
print(source_digest(), time.perf_counter() - t0)
"""


def worker(games: int, chunk: int) -> dict:
    """The worker's figures (a new process, the numba cache warm)."""
    out = subprocess.run([sys.executable, "-c", WORKER % {"seed": SEED}, str(games), str(chunk)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cold_first_game(policy: str) -> float:
    """A new process's first game of ``policy`` with an empty numba cache (one thread): the compile."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "CURSEDSIM_CACHE": cache, "NUMBA_CACHE_DIR": "", "NUMBA_NUM_THREADS": "1"}
        return new_process_seconds(FIRST_GAME % policy, env)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40_000)
    parser.add_argument("--chunk", type=int, default=5_000)
    parser.add_argument("--no-compile", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    figures = worker(args.games, args.chunk)
    steady = figures["chunks"][len(figures["chunks"]) // 2:]
    steady_gps = sum(r["games_per_s"] for r in steady) / len(steady)
    result = {
        "policy": "optimal_fight", "options": "rulebook", "seed": SEED, "games": figures["games"],
        "chunk": args.chunk,
        "games_per_s_per_core": round(figures["games"] / figures["wall_s"]),
        "games_per_cpu_s": round(figures["games"] / figures["cpu_s"]),
        "games_per_s_second_half": round(steady_gps),
        "chunks": figures["chunks"],
        "win_rate": round(figures["win_rate"], 4),
        "worker_peak_rss_bytes": figures["peak_rss_bytes"],
        "worker_peak_rss_mib": round(figures["peak_rss_bytes"] / 2**20),
        "table_slots": optimal_kernel.SLOTS, "table_bytes": optimal_kernel.memo_bytes(),
        "table_fill_at_end": figures["table_fill"], "table_clears": figures["table_clears"],
        "target_games_per_s_per_core": TARGET_GAMES_PER_S, "target_worker_bytes": TARGET_WORKER_BYTES,
        "meets_speed_target": figures["games"] / figures["wall_s"] >= TARGET_GAMES_PER_S,
        "meets_memory_target": figures["peak_rss_bytes"] < TARGET_WORKER_BYTES,
    }
    if not args.no_compile:
        t0 = time.perf_counter()
        result["cold_first_game_threshold_s"] = round(cold_first_game("threshold"), 1)
        result["cold_first_game_optimal_fight_s"] = round(cold_first_game("optimal_fight"), 1)
        result["compile_measured_in_s"] = round(time.perf_counter() - t0, 1)
    result.update(machine(load_before))
    write_result("optimal_fight", result)


if __name__ == "__main__":
    main()
