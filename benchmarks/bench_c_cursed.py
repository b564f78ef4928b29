"""Cursed!? against plain C (issue 30): our kernel end to end vs an independent C program of the same
rules and the item-heavy ``threshold`` policy, games/s on one core, and a check that both play the same
game (win rates and mean damage agree).

The C program, ``benchmarks/c/cursed_threshold.c``, is written from docs/rules/cursed.md (default rule
options, ``threshold`` at its defaults), one xoshiro256** stream per game, no allocation in the loop. It is
compiled and run by the functions of ``bench_c_reference.py`` (the Verflucht! reference: the same flags,
command line and timing). Ours is timed through ``cursedsim.simulate("cursed", N, policy="threshold",
n_jobs=1)`` end to end (frame included) after a warm-up game, so compile time is excluded. Both are
single-threaded; timings are wall clock, best of ``--repeat`` runs, with the CPU time of the process
beside them and the machine's load recorded.

Correctness: the two programs draw different random numbers, so they play different games of the same
distribution. The win rates must agree within ``--tolerance`` (4) standard errors of their difference,
sqrt(p1 (1 - p1) / n1 + p2 (1 - p2) / n2); the mean damage taken per game (the frame's ``damage_taken``:
cards discarded from the pile as damage) and the mean captured souls per game are compared the same way,
each with the standard error of its sample. The script exits with status 1 when any does not (status 2:
no gcc).

Run: ``python benchmarks/bench_c_cursed.py`` (2,000,000 games each). Writes
results/benchmarks/c_reference_cursed.json (or ``--out PATH``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

from bench_c_reference import (  # benchmarks/bench_c_reference.py
    CFLAGS,
    SEED,
    TARGET_OURS_OVER_C,
    NoCompiler,
    best,
    compile_c,
    gcc_version,
    run_c,
    win_rate_se,
)
from common import ROOT, machine, write_result  # benchmarks/common.py

import cursedsim

SOURCE = ROOT / "benchmarks" / "c" / "cursed_threshold.c"
GAME = "cursed"
POLICY = "threshold"
#: per-game numbers compared by their means (C prints <name>_sum and <name>_sq_sum over all games)
MEANS = {"damage": "damage_taken", "souls": "souls"}


def run_ours(games: int, seed: int = SEED) -> dict:
    """One ``simulate`` of ``games`` games in this process: wins, the sums of each compared number, wall
    and CPU seconds (the C program's keys)."""
    t0, c0 = time.perf_counter(), time.process_time()
    frame = cursedsim.simulate(GAME, games, policy=POLICY, seed=seed, n_jobs=1, progress=False)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    result = {"games": games, "wins": int(frame["win"].sum()), "seconds": seconds, "cpu_seconds": cpu}
    for name, column in MEANS.items():
        values = frame[column].astype("int64")
        result[f"{name}_sum"] = int(values.sum())
        result[f"{name}_sq_sum"] = int((values * values).sum())
    return result


def mean_se(run: dict, name: str) -> tuple[float, float]:
    """(mean of the per-game number ``name`` over all games, its standard error)."""
    n = run["games"]
    mean = run[f"{name}_sum"] / n
    var = max(run[f"{name}_sq_sum"] / n - mean * mean, 0.0) * n / max(n - 1, 1)
    return mean, math.sqrt(var / n)


def agreement(c: dict, ours: dict) -> dict:
    """Win rates and the compared means of both runs, each difference in standard errors of the
    difference."""
    pc, sc = win_rate_se(c["wins"], c["games"])
    po, so = win_rate_se(ours["wins"], ours["games"])
    se = math.hypot(sc, so)
    check = {"c_win_rate": round(pc, 6), "ours_win_rate": round(po, 6),
             "win_rate_diff": round(po - pc, 6), "win_rate_diff_se": round(se, 6),
             "win_rate_diff_in_se": round((po - pc) / se, 2) if se else 0.0}
    for name in MEANS:
        mc, mcs = mean_se(c, name)
        mo, mos = mean_se(ours, name)
        mse = math.hypot(mcs, mos)
        check |= {f"c_mean_{name}": round(mc, 4), f"ours_mean_{name}": round(mo, 4),
                  f"mean_{name}_diff_in_se": round((mo - mc) / mse, 2) if mse else 0.0}
    return check


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000_000, help="games for each of C and ours (>= 10^6 "
                        "for the correctness check of issue 30)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each; the fastest counts")
    parser.add_argument("--tolerance", type=float, default=4.0, help="allowed difference in standard errors")
    parser.add_argument("--out", type=Path, default=None, help="write the JSON here instead of results/")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            exe = compile_c(tmp, SOURCE)
        except NoCompiler as error:
            print(f"bench_c_cursed: {error}", file=sys.stderr)
            return 2
        c = best([run_c(exe, args.games, 1) for _ in range(args.repeat)])
    run_ours(1)  # warm-up: load / compile the kernel outside the timing
    ours = best([run_ours(args.games) for _ in range(args.repeat)])

    check = agreement(c, ours)
    diffs = {"win_rate": check["win_rate_diff_in_se"],
             **{f"mean {name}": check[f"mean_{name}_diff_in_se"] for name in MEANS}}
    passed = all(abs(d) <= args.tolerance for d in diffs.values())
    c_gps, ours_gps = args.games / c["seconds"], args.games / ours["seconds"]
    result = {
        "game": GAME, "players": 1, "policy": POLICY, "games": args.games,
        "c_games_per_s": round(c_gps), "c_games_per_cpu_s": round(args.games / c["cpu_seconds"]),
        "ours_games_per_s": round(ours_gps), "ours_games_per_cpu_s": round(args.games / ours["cpu_seconds"]),
        "ours_over_c": round(ours_gps / c_gps, 3),
        "ours_over_c_cpu": round(c["cpu_seconds"] / ours["cpu_seconds"], 3),
        "target_ours_over_c": TARGET_OURS_OVER_C, "meets_target": bool(ours_gps / c_gps >= TARGET_OURS_OVER_C),
        "c_seconds": round(c["seconds"], 3), "ours_seconds": round(ours["seconds"], 3),
        **check, "tolerance_in_se": args.tolerance, "agrees": bool(passed),
        "c_compiler": f"{gcc_version()} {' '.join(CFLAGS)}", "repeat": args.repeat,
        **machine(load_before),
    }
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
        for key, value in result.items():
            print(f"{key}  {value}")
    else:
        write_result("c_reference_cursed", result)
    if not passed:
        shown = ", ".join(f"{name} {d} SE" for name, d in diffs.items())
        print(f"bench_c_cursed: C and ours disagree: {shown} (tolerance {args.tolerance})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
