"""Curses & Covens throughput: kernel and reference games/s per core with hunter ``tracker`` against town
``coven`` at 4 towns (5 players), their ratio, the kernel rates of two other pairings, and the time a new
process needs to its first result (warm numba cache, and empty cache: the compile). Writes
results/benchmarks/covens.json.

Run: ``python benchmarks/bench_covens.py`` (``--games 1000000`` by default). Timings are best of
``--repeat`` runs, wall clock and CPU time of this process; the machine's load is recorded with them
because a busy second core changes every figure. Targets (issue 11): >= 200,000 games/s per core and
>= 100x the reference engine.
"""

from __future__ import annotations

import argparse
import os
import time

from common import best_of, finish, throughput  # benchmarks/common.py

from cursedsim.games.covens import GAME, reference, reference_twins
from cursedsim.games.covens.rules import RuleOptions

PAIRING = {"hunter": "tracker", "town": "coven"}
OTHER_PAIRINGS = ({"hunter": "random", "town": "random"}, {"hunter": "largest_hand", "town": "bluff"})
PLAYERS = 5
SEED = 2026
TARGET_GAMES_PER_S = 200_000
TARGET_RATIO = 100

FIRST_RESULT = """
import time; t0 = time.perf_counter()
import cursedsim
from cursedsim.games.covens import GAME
from cursedsim.games.covens.rules import RuleOptions
from cursedsim.numba_cache import source_digest
specs = {side.name: side.policies[name] for side, name in zip(GAME.sides, ("tracker", "coven"))}
GAME.run_chunk(1, 0, 1000, 5, RuleOptions(), specs, {s: p.param_vector() for s, p in specs.items()})
print(source_digest(), time.perf_counter() - t0)
"""


def specs_of(pairing: dict) -> tuple[dict, dict]:
    """(side -> PolicySpec, side -> default parameter vector) of a pairing of policy names."""
    specs = {side.name: side.policies[pairing[side.name]] for side in GAME.sides}
    return specs, {side: spec.param_vector() for side, spec in specs.items()}


def kernel_seconds(pairing: dict, n_games: int, repeat: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for ``n_games`` kernel games, best of ``repeat``."""
    specs, params = specs_of(pairing)
    GAME.run_chunk(SEED, 0, 1000, PLAYERS, RuleOptions(), specs, params)  # load / compile
    run = lambda: GAME.run_chunk(SEED, 0, n_games, PLAYERS, RuleOptions(), specs, params)
    return best_of(repeat, run), best_of(repeat, run, time.process_time)


def reference_rate(n_games: int) -> float:
    """Reference-engine games/s (the readable steppable Table), same pairing and games."""
    specs, params = specs_of(PAIRING)
    hunter, town = reference_twins(specs, params)
    t0 = time.perf_counter()
    reference.play_chunk(SEED, 0, n_games, PLAYERS, RuleOptions(), hunter, town)
    return n_games / (time.perf_counter() - t0)


def label(pairing: dict) -> str:
    return f"{pairing['hunter']}_vs_{pairing['town']}"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="kernel games per timing")
    parser.add_argument("--reference-games", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-compile", action="store_true", help="skip the new-process timings")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    kernel_s, kernel_cpu_s = kernel_seconds(PAIRING, args.games, args.repeat)
    ref_gps = reference_rate(args.reference_games)
    others = {}
    for pairing in OTHER_PAIRINGS:
        wall, _ = kernel_seconds(pairing, args.games, args.repeat)
        others[f"kernel_games_per_s_{label(pairing)}"] = round(args.games / wall)
    result = {"game": "covens", "hunter": PAIRING["hunter"], "town": PAIRING["town"], "players": PLAYERS,
              "towns": PLAYERS - 1, "games": args.games,
              **throughput(args.games, kernel_s, kernel_cpu_s, ref_gps, others, TARGET_GAMES_PER_S,
                          TARGET_RATIO, args.reference_games)}
    return finish("covens", result, FIRST_RESULT, args.no_compile, load_before)


if __name__ == "__main__":
    main()
