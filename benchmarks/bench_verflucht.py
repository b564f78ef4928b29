"""Verflucht! throughput: kernel and reference games/s per core, their ratio, simulate's overhead over
the bare kernel, the 2-job speed-up, cold-start and compile times. Writes results/benchmarks/.

Run: ``make bench`` (or ``python benchmarks/bench_verflucht.py --games 2000000``). Timings are wall
clock, best of ``--repeat`` runs; the machine's load is recorded with them because a busy second core
changes every figure. ``kernel_games_per_cpu_s`` divides by the CPU time of this process instead: what
one core did, less sensitive to other work on the machine. The target is 800,000 kernel games/s per
core (0.8x an independent C implementation of the same rules and policy).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from common import best_of, machine, write_result  # benchmarks/common.py

import cursedsim
from cursedsim.games import get_game
from cursedsim.games.verflucht import reference, reference_policy
from cursedsim.games.verflucht.rules import RuleOptions

PLAYERS = 3
POLICY = "baseline"
SEED = 2026

COLD_START = """
import time; t0 = time.perf_counter()
import cursedsim
frame = cursedsim.simulate("verflucht", 1000, players=3, policy="baseline", seed=1, progress=False)
print(time.perf_counter() - t0)
"""


def kernel_seconds(n_games: int, repeat: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for n_games kernel games, best of ``repeat``.
    CPU time is what a core spent; wall time also counts time the VM gave to others."""
    game = get_game("verflucht")
    params = game.policy(POLICY).param_vector()
    game.run_chunk(SEED, 0, 1000, PLAYERS, RuleOptions(), POLICY, params)  # load / compile
    run = lambda: game.run_chunk(SEED, 0, n_games, PLAYERS, RuleOptions(), POLICY, params)
    return best_of(repeat, run), best_of(repeat, run, time.process_time)


def reference_rate(n_games: int) -> float:
    """Reference-engine games/s (readable Python baseline)."""
    policy = reference_policy(POLICY, np.zeros(0))
    t0 = time.perf_counter()
    for i in range(n_games):
        reference.play(SEED, i, PLAYERS, RuleOptions(), policy)
    return n_games / (time.perf_counter() - t0)


def simulate_seconds(n_games: int, n_jobs: int, repeat: int) -> float:
    """Wall time of ``cursedsim.simulate`` end to end (frame included), workers already started."""
    run = lambda: cursedsim.simulate("verflucht", n_games, players=PLAYERS, policy=POLICY, seed=SEED,
                                     n_jobs=n_jobs, progress=False)
    cursedsim.simulate("verflucht", 20_000, players=PLAYERS, policy=POLICY, seed=SEED, n_jobs=n_jobs,
                       progress=False)  # start and warm the worker processes
    return best_of(repeat, run)


def new_process_seconds(env: dict | None = None) -> float:
    """Seconds from interpreter start to a finished 1,000-game simulate, in a fresh process."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", COLD_START], capture_output=True, text=True, check=True,
                         env=env)
    total = time.perf_counter() - t0
    return max(total, float(out.stdout.strip() or 0))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000_000, help="games for kernel and simulate timings")
    parser.add_argument("--reference-games", type=int, default=3_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    kernel_s, kernel_cpu_s = kernel_seconds(args.games, args.repeat)
    kernel_gps = args.games / kernel_s
    ref_gps = reference_rate(args.reference_games)
    sim1 = simulate_seconds(args.games, 1, args.repeat)
    sim2 = simulate_seconds(args.games, 2, args.repeat)
    warm_start = new_process_seconds()
    with tempfile.TemporaryDirectory() as cache:
        cold_compile = new_process_seconds({**os.environ, "CURSEDSIM_CACHE": cache})

    result = {
        "game": "verflucht", "players": PLAYERS, "policy": POLICY, "games": args.games,
        "kernel_games_per_s_per_core": round(kernel_gps),
        "kernel_games_per_cpu_s": round(args.games / kernel_cpu_s),
        "reference_games_per_s": round(ref_gps),
        "kernel_over_reference": round(kernel_gps / ref_gps, 1),
        "kernel_seconds": round(kernel_s, 3),
        "simulate_1_job_seconds": round(sim1, 3),
        "simulate_over_kernel": round(sim1 / kernel_s, 3),
        "simulate_2_jobs_seconds": round(sim2, 3),
        "speedup_2_jobs": round(sim1 / sim2, 2),
        "new_process_to_first_result_s": round(warm_start, 2),
        "new_process_empty_cache_s": round(cold_compile, 2),
        **machine(load_before),
    }
    write_result("verflucht", result)
    return result


if __name__ == "__main__":
    main()
