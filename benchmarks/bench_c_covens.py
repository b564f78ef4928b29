"""Curses & Covens against plain C (issue 30): our kernel end to end vs an independent C program of the
same rules and policies, rounds/s and games/s on one core, and a check that both play the same game
(the hunter's win rate and the mean rounds per game agree).

The C program, ``benchmarks/c/covens_random.c``, is written from docs/rules/covens.md with the readable
engine (``cursedsim/games/covens/reference.py``) as the spec for details: default rule options, the
``random`` policy on both sides (a uniform legal action at every decision), one xoshiro256** stream per
game, no allocation in the loop. It is compiled with ``gcc -O2 -march=x86-64`` into a temporary
directory (``bench_c_reference.compile_c``). Ours is timed through ``cursedsim.simulate("covens", ...,
policy={"hunter": "random", "town": "random"}, n_jobs=1)`` end to end (frame included) after a warm-up
game, so compile time is excluded. Both are single-threaded; timings are wall clock, best of
``--repeat`` runs, with the CPU time of the process beside them and the machine's load recorded.

Games differ in length (a game is over at the first win, ~5.4 rounds at 4 towns), so the speed that
compares the work of one round is rounds/s; games/s is given beside it.

Correctness: the two programs draw different random numbers, so they play different games of the same
distribution. The hunter's win rate must agree within ``--tolerance`` (4) standard errors of the
difference, sqrt(p1 (1 - p1) / n1 + p2 (1 - p2) / n2); the mean rounds per game is compared the same way
(standard errors from each run's sample variance). The script exits with status 1 when either does not
(status 2: no gcc). The rate of the towns' coven wins (the rest of their wins are ritual wins) is
compared too, in standard errors, as information.

Run: ``python benchmarks/bench_c_covens.py`` (2,000,000 games each at 5 players: 4 towns;
``--players`` 4-6). Writes results/benchmarks/c_reference_covens.json (``c_reference_covens_<P>p.json``
at another player count, or ``--out PATH``).
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

from bench_c_reference import (CFLAGS, NoCompiler, SEED, TARGET_OURS_OVER_C, best, compile_c, gcc_version,
                               run_c, win_rate_se)
from common import ROOT, machine, write_result  # benchmarks/common.py

import cursedsim

SOURCE = ROOT / "benchmarks" / "c" / "covens_random.c"
POLICY = {"hunter": "random", "town": "random"}
PLAYERS = 5


def run_ours(games: int, players: int, seed: int = SEED) -> dict:
    """One ``simulate`` of ``games`` games in this process: hunter wins, rounds, wall and CPU seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    frame = cursedsim.simulate("covens", games, players=players, policy=POLICY, seed=seed, n_jobs=1,
                               progress=False)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    rounds = frame["rounds"].to_numpy().astype("int64")
    return {"games": games, "hunter_wins": int(frame["hunter_won"].sum()),
            "town_wins": int(frame["town_won"].sum()),
            "coven_wins": int((frame["town_won"] & (frame["win_type"] == "coven")).sum()),
            "rounds_sum": int(rounds.sum()),
            "rounds_sq_sum": int((rounds * rounds).sum()), "seconds": seconds, "cpu_seconds": cpu}


def rounds_mean_se(run: dict) -> tuple[float, float]:
    """(mean rounds per game, its standard error)."""
    n = run["games"]
    mean = run["rounds_sum"] / n
    var = max(run["rounds_sq_sum"] / n - mean * mean, 0.0) * n / max(n - 1, 1)
    return mean, math.sqrt(var / n)


def agreement(c: dict, ours: dict) -> dict:
    """The hunter's win rates and the mean rounds of both runs, each difference in standard errors."""
    pc, sc = win_rate_se(c["hunter_wins"], c["games"])
    po, so = win_rate_se(ours["hunter_wins"], ours["games"])
    se = math.hypot(sc, so)
    mc, mcs = rounds_mean_se(c)
    mo, mos = rounds_mean_se(ours)
    mse = math.hypot(mcs, mos)
    kc, kcs = win_rate_se(c["coven_wins"], c["games"])
    ko, kos = win_rate_se(ours["coven_wins"], ours["games"])
    kse = math.hypot(kcs, kos)
    return {"c_hunter_win_rate": round(pc, 6), "ours_hunter_win_rate": round(po, 6),
            "hunter_win_rate_diff": round(po - pc, 6), "hunter_win_rate_diff_se": round(se, 6),
            "hunter_win_rate_diff_in_se": round((po - pc) / se, 2) if se else 0.0,
            "c_town_win_rate": round(c["town_wins"] / c["games"], 6),
            "ours_town_win_rate": round(ours["town_wins"] / ours["games"], 6),
            "c_coven_win_rate": round(kc, 6), "ours_coven_win_rate": round(ko, 6),
            "coven_win_rate_diff_in_se": round((ko - kc) / kse, 2) if kse else 0.0,
            "c_mean_rounds": round(mc, 4), "ours_mean_rounds": round(mo, 4),
            "mean_rounds_diff_se": round(mse, 5),
            "mean_rounds_diff_in_se": round((mo - mc) / mse, 2) if mse else 0.0}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000_000, help="games for each of C and ours (>= 10^6 "
                        "for the correctness check of issue 30)")
    parser.add_argument("--players", type=int, default=PLAYERS, choices=range(4, 7),
                        help="one hunter and players - 1 towns (default 5: 4 towns)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each; the fastest counts")
    parser.add_argument("--tolerance", type=float, default=4.0, help="allowed difference in standard errors")
    parser.add_argument("--out", type=Path, default=None, help="write the JSON here instead of results/")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            exe = compile_c(tmp, SOURCE)
        except NoCompiler as error:
            print(f"bench_c_covens: {error}", file=sys.stderr)
            return 2
        c = best([run_c(exe, args.games, args.players) for _ in range(args.repeat)])
    run_ours(1, args.players)  # warm-up: load / compile the kernel outside the timing
    ours = best([run_ours(args.games, args.players) for _ in range(args.repeat)])

    check = agreement(c, ours)
    passed = (abs(check["hunter_win_rate_diff_in_se"]) <= args.tolerance
              and abs(check["mean_rounds_diff_in_se"]) <= args.tolerance)
    c_rps, ours_rps = c["rounds_sum"] / c["seconds"], ours["rounds_sum"] / ours["seconds"]
    c_rpc, ours_rpc = c["rounds_sum"] / c["cpu_seconds"], ours["rounds_sum"] / ours["cpu_seconds"]
    result = {
        "game": "covens", "players": args.players, "towns": args.players - 1, "policy": POLICY,
        "games": args.games,
        "c_rounds_per_s": round(c_rps), "c_rounds_per_cpu_s": round(c_rpc),
        "ours_rounds_per_s": round(ours_rps), "ours_rounds_per_cpu_s": round(ours_rpc),
        "ours_over_c": round(ours_rps / c_rps, 3), "ours_over_c_cpu": round(ours_rpc / c_rpc, 3),
        "c_games_per_s": round(args.games / c["seconds"]), "c_games_per_cpu_s": round(args.games / c["cpu_seconds"]),
        "ours_games_per_s": round(args.games / ours["seconds"]),
        "ours_games_per_cpu_s": round(args.games / ours["cpu_seconds"]),
        "target_ours_over_c": TARGET_OURS_OVER_C, "meets_target": bool(ours_rps / c_rps >= TARGET_OURS_OVER_C),
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
        write_result("c_reference_covens" if args.players == PLAYERS else f"c_reference_covens_{args.players}p",
                     result)
    if not passed:
        print(f"bench_c_covens: C and ours disagree: hunter win rate {check['hunter_win_rate_diff_in_se']} SE, "
              f"mean rounds {check['mean_rounds_diff_in_se']} SE (tolerance {args.tolerance})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
