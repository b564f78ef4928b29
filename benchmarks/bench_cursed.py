"""Cursed!? throughput: kernel and reference games/s per core with the ``threshold`` policy, their ratio,
the other policies' kernel rates, and the time a new process needs to its first result (warm numba cache
and empty cache, i.e. the compile). Writes results/benchmarks/cursed.json.

Run: ``python benchmarks/bench_cursed.py`` (``--games 2000000`` by default). Timings are best of
``--repeat`` runs, wall clock and CPU time of this process; the machine's load is recorded with them
because a busy second core changes every figure. Targets: >= 500,000 games/s per core and >= 100x the
reference engine.
"""

from __future__ import annotations

import argparse
import os
import time

from common import best_of, finish, throughput  # benchmarks/common.py

from cursedsim.games.cursed import GAME, reference, reference_policy
from cursedsim.games.cursed.rules import RuleOptions

POLICY = "threshold"
SEED = 2026
TARGET_GAMES_PER_S = 500_000
TARGET_RATIO = 100

FIRST_RESULT = """
import time; t0 = time.perf_counter()
import cursedsim
from cursedsim.games.cursed import GAME
from cursedsim.games.cursed.rules import RuleOptions
from cursedsim.numba_cache import source_digest
spec = GAME.policy("threshold")
GAME.run_chunk(1, 0, 1000, 1, RuleOptions(), spec, spec.param_vector())
print(source_digest(), time.perf_counter() - t0)
"""


def kernel_seconds(policy: str, n_games: int, repeat: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for ``n_games`` kernel games, best of ``repeat``."""
    spec = GAME.policy(policy)
    params = spec.param_vector()
    GAME.run_chunk(SEED, 0, 1000, 1, RuleOptions(), spec, params)  # load / compile
    run = lambda: GAME.run_chunk(SEED, 0, n_games, 1, RuleOptions(), spec, params)
    return best_of(repeat, run), best_of(repeat, run, time.process_time)


def reference_rate(n_games: int) -> float:
    """Reference-engine games/s (the readable Python engine), same policy and games."""
    policy = reference_policy(POLICY)
    t0 = time.perf_counter()
    for i in range(n_games):
        reference.play(SEED, i, RuleOptions(), policy)
    return n_games / (time.perf_counter() - t0)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000_000, help="kernel games per timing")
    parser.add_argument("--reference-games", type=int, default=3_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-compile", action="store_true", help="skip the new-process timings")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    kernel_s, kernel_cpu_s = kernel_seconds(POLICY, args.games, args.repeat)
    ref_gps = reference_rate(args.reference_games)
    others = {}
    for policy in ("no_items", "random"):
        wall, _ = kernel_seconds(policy, args.games, args.repeat)
        others[f"kernel_games_per_s_{policy}"] = round(args.games / wall)
    result = {"game": "cursed", "policy": POLICY, "games": args.games,
              **throughput(args.games, kernel_s, kernel_cpu_s, ref_gps, others, TARGET_GAMES_PER_S, TARGET_RATIO)}
    return finish("cursed", result, FIRST_RESULT, args.no_compile, load_before)


if __name__ == "__main__":
    main()
