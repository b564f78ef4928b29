"""So, You've Been Cursed. throughput: kernel and reference games/s per core of the 0-player mode (the
Possessed Wizard against the Rabid Monster) on the default board, their ratio, the kernel rates on a
generated board and with the slowest automaton option (``rabid_path = stop_at_villagers``: a
breadth-first search per hunt), and the time a new process needs to its first result (warm numba cache,
and empty cache: the compile). Writes results/benchmarks/village.json.

Run: ``python benchmarks/bench_village.py`` (``--games 200000`` by default). Timings are best of
``--repeat`` runs, wall clock and CPU time of this process, with the machine's load. Targets: >= 20,000
games/s per core and >= 50x the reference engine. This times the kernel's own ``run_chunk`` (no frame) on
the default (reconstructed) board and cards. The machine may be shared: the result keeps the load
average before and after, so say how busy it was with every figure.
"""

from __future__ import annotations

import argparse
import os
import time

from common import best_of, finish, throughput  # benchmarks/common.py

from cursedsim.games.village import board as B
from cursedsim.games.village import kernel, reference
from cursedsim.games.village.rules import AUTOMATA, RuleOptions

SEED = 2026
TARGET_GAMES_PER_S = 20_000
TARGET_RATIO = 50
#: Other timings: (name, options, board).
OTHERS = (("generated_board_1", {}, lambda: B.generate(1)),
          ("rabid_path_stop_at_villagers", {"rabid_path": "stop_at_villagers"}, lambda: B.board_of("default")))

FIRST_RESULT = """
import time; t0 = time.perf_counter()
from cursedsim.games.village import kernel
from cursedsim.numba_cache import source_digest
kernel.run_chunk(1, 0, 1000, None, None, "automata", 0, None, 0, None)
print(source_digest(), time.perf_counter() - t0)
"""


def kernel_seconds(options: RuleOptions, board, n_games: int, repeat: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for ``n_games`` kernel games, best of ``repeat``."""
    kernel.run_chunk(SEED, 0, 1000, options, board, AUTOMATA, 0, None, 0, None)   # load / compile
    run = lambda: kernel.run_chunk(SEED, 0, n_games, options, board, AUTOMATA, 0, None, 0, None)  # noqa: E731
    return best_of(repeat, run), best_of(repeat, run, time.process_time)


def reference_rate(board, n_games: int) -> float:
    """Reference-engine games/s (the readable steppable Table), the same games."""
    t0 = time.perf_counter()
    reference.play_chunk(SEED, 0, n_games, RuleOptions(), board=board)
    return n_games / (time.perf_counter() - t0)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000, help="kernel games per timing")
    parser.add_argument("--reference-games", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-compile", action="store_true", help="skip the new-process timings")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    board = B.board_of("default")
    kernel_s, kernel_cpu_s = kernel_seconds(RuleOptions(), board, args.games, args.repeat)
    ref_gps = reference_rate(board, args.reference_games)
    others = {}
    for name, values, make in OTHERS:
        wall, _ = kernel_seconds(RuleOptions(**values), make(), args.games, args.repeat)
        others[f"kernel_games_per_s_{name}"] = round(args.games / wall)
    result = {"game": "village", "mode": AUTOMATA, "policies": "possessed vs rabid", "board": board.label,
              "games": args.games,
              **throughput(args.games, kernel_s, kernel_cpu_s, ref_gps, others, TARGET_GAMES_PER_S,
                          TARGET_RATIO, args.reference_games)}
    return finish("village", result, FIRST_RESULT, args.no_compile, load_before)


if __name__ == "__main__":
    main()
