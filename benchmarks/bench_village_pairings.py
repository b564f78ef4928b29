"""So, You've Been Cursed.: kernel games per CPU-second of every built-in pairing (the four modes with the
players' best heuristics: possessed/rabid, planner/rabid, possessed/glutton, planner/glutton), best of
``--repeat`` timings of ``--games`` games, CPU time of this process (the machine may be shared: the load
average is printed). Used to check a kernel change keeps the speed of every mode (issue 29.1).

Run: ``python benchmarks/bench_village_pairings.py [--games N] [--repeat R] [--out FILE.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from cursedsim.games.village import kernel

PAIRINGS = (("automata", 0, 0), ("rabid_monster", 2, 0), ("possessed_wizard", 0, 2), ("duel", 2, 2))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    result = {"load_average_before": os.getloadavg()[0]}
    for mode, w, m in PAIRINGS:
        kernel.run_chunk(1, 0, 10, None, None, mode, w, None, m, None)   # compiled / loaded
        best = None
        for r in range(args.repeat):
            t0 = time.process_time()
            kernel.run_chunk(7, r * args.games, args.games, None, None, mode, w, None, m, None)
            dt = time.process_time() - t0
            best = dt if best is None else min(best, dt)
        result[mode] = round(args.games / best)
        print(f"{mode:18s} {result[mode]:>9,d} games per CPU-second", flush=True)
    result["load_average_after"] = os.getloadavg()[0]
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
