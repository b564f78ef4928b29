"""Cursed Gifts throughput: kernel and reference games/s per core with ``leader`` at every seat at 4
players, their ratio, the kernel rates of two other seatings, and the time a new process needs to its
first result (warm numba cache, and empty cache: the compile). Writes results/benchmarks/gifts.json.

Run: ``python benchmarks/bench_gifts.py`` (``--games 500000`` by default). Timings are best of
``--repeat`` runs, wall clock and CPU time of this process, with the machine's load. Targets (issue 12):
>= 100,000 games/s per core and >= 100x the reference engine. This times the kernel's own ``run_chunk``
(focus and field seats, no frame) on the default (reconstructed) deck. The machine may be shared: the
result keeps the load average before and after, so say how busy it was with every figure.
"""

from __future__ import annotations

import argparse
import os
import time

from common import best_of, finish, throughput  # benchmarks/common.py

from cursedsim.games.gifts import kernel, reference
from cursedsim.games.gifts import reference_policies as RP
from cursedsim.games.gifts.deck import load_deck
from cursedsim.games.gifts.rules import RuleOptions

POLICY = "leader"
OTHER_SEATINGS = ({"focus": "defensive", "field": "leader"}, {"focus": "random", "field": "random"})
PLAYERS = 4
SEED = 2026
TARGET_GAMES_PER_S = 100_000
TARGET_RATIO = 100

FIRST_RESULT = """
import time; t0 = time.perf_counter()
from cursedsim.games.gifts import kernel
from cursedsim.numba_cache import source_digest
kernel.run_chunk(1, 0, 1000, 4, None, "leader", None, "leader", None)
print(source_digest(), time.perf_counter() - t0)
"""


def kernel_seconds(focus: str, field: str, n_games: int, repeat: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for ``n_games`` kernel games, best of ``repeat``."""
    kernel.run_chunk(SEED, 0, 1000, PLAYERS, RuleOptions(), focus, None, field, None)  # load / compile
    run = lambda: kernel.run_chunk(SEED, 0, n_games, PLAYERS, RuleOptions(), focus, None, field, None)
    return best_of(repeat, run), best_of(repeat, run, time.process_time)


def reference_rate(n_games: int) -> float:
    """Reference-engine games/s (the readable steppable Table), the same policy and games."""
    t0 = time.perf_counter()
    reference.play_chunk(SEED, 0, n_games, PLAYERS, RuleOptions(), RP.make(POLICY))
    return n_games / (time.perf_counter() - t0)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500_000, help="kernel games per timing")
    parser.add_argument("--reference-games", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-compile", action="store_true", help="skip the new-process timings")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    kernel_s, kernel_cpu_s = kernel_seconds(POLICY, POLICY, args.games, args.repeat)
    ref_gps = reference_rate(args.reference_games)
    others = {}
    for seating in OTHER_SEATINGS:
        wall, _ = kernel_seconds(seating["focus"], seating["field"], args.games, args.repeat)
        others[f"kernel_games_per_s_{seating['focus']}_in_{seating['field']}"] = round(args.games / wall)
    deck = load_deck()
    result = {"game": "gifts", "policy": POLICY, "players": PLAYERS, "deck": deck.label, "games": args.games,
              **throughput(args.games, kernel_s, kernel_cpu_s, ref_gps, others, TARGET_GAMES_PER_S,
                          TARGET_RATIO, args.reference_games)}
    return finish("gifts", result, FIRST_RESULT, args.no_compile, load_before)


if __name__ == "__main__":
    main()
