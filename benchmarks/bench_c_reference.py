"""Verflucht! against plain C (issue 30): our kernel end to end vs an independent C program of the same
rules and policy, games/s on one core, and a check that both play the same game (win rates agree).

The C program, ``benchmarks/c/verflucht_baseline.c``, is written from docs/rules/verflucht.md (default
rule options, the ``baseline`` policy), one xoshiro256** stream per game, no allocation in the loop. It
is compiled here with ``gcc -O2 -march=x86-64`` into a temporary directory. Ours is timed through
``cursedsim.simulate(..., n_jobs=1)`` end to end (frame included) after a warm-up game, so compile
time is excluded. Both are single-threaded; timings are wall clock, best of ``--repeat`` runs, with
the CPU time of the process beside them and the machine's load recorded.

Correctness: the two programs draw different random numbers, so they play different games of the same
distribution. The win rates must agree within ``--tolerance`` (4) standard errors of their difference,
sqrt(p1 (1 - p1) / n1 + p2 (1 - p2) / n2); the mean score of won games is compared the same way. The
script exits with status 1 when either does not (status 2: no gcc).

Run: ``python benchmarks/bench_c_reference.py`` (2,000,000 games each at 3 players; ``--players``
1-5). Writes results/benchmarks/c_reference.json (``c_reference_<P>p.json`` at another player count,
or ``--out PATH``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, machine, write_result  # benchmarks/common.py

import cursedsim

SOURCE = ROOT / "benchmarks" / "c" / "verflucht_baseline.c"
CFLAGS = ["-O2", "-march=x86-64"]
POLICY = "baseline"
SEED = 2026
#: issue 30: every kernel within 0.8x of plain C
TARGET_OURS_OVER_C = 0.8


class NoCompiler(RuntimeError):
    """gcc is not on PATH."""


def compile_c(directory: str | Path, source: Path = SOURCE) -> Path:
    """Compile the C reference into ``directory``; returns the executable. Raises NoCompiler without gcc."""
    gcc = shutil.which("gcc")
    if gcc is None:
        raise NoCompiler("gcc not found on PATH: the plain-C reference needs it (e.g. apt-get install gcc)")
    exe = Path(directory) / source.stem
    done = subprocess.run([gcc, *CFLAGS, "-o", str(exe), str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"gcc failed on {source}:\n{done.stderr}")
    return exe


def gcc_version() -> str:
    out = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else "?"


def run_c(exe: Path, games: int, players: int, seed: int = SEED) -> dict:
    """One run of the C program: its JSON line, plus ``cpu_seconds`` (the child's user + system time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([str(exe), str(games), str(players), str(seed)], capture_output=True, text=True,
                          check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(done.stdout)
    result["cpu_seconds"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result


def run_ours(games: int, players: int, seed: int = SEED) -> dict:
    """One ``simulate`` of ``games`` games in this process: wins, won scores, wall and CPU seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    frame = cursedsim.simulate("verflucht", games, players=players, policy=POLICY, seed=seed, n_jobs=1,
                               progress=False)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    won = frame["score"][frame["win"]].astype("int64")
    return {"games": games, "wins": int(frame["win"].sum()), "won_score_sum": int(won.sum()),
            "won_score_sq_sum": int((won * won).sum()), "seconds": seconds, "cpu_seconds": cpu}


def win_rate_se(wins: int, games: int) -> tuple[float, float]:
    """(win rate, its standard error) from the sample size."""
    p = wins / games
    return p, math.sqrt(p * (1 - p) / games)


def score_mean_se(run: dict) -> tuple[float, float]:
    """(mean score of won games, its standard error)."""
    n = run["wins"]
    mean = run["won_score_sum"] / n
    var = max(run["won_score_sq_sum"] / n - mean * mean, 0.0) * n / max(n - 1, 1)
    return mean, math.sqrt(var / n)


def agreement(c: dict, ours: dict) -> dict:
    """Win rates and mean won scores of both runs, each difference in standard errors of the difference."""
    pc, sc = win_rate_se(c["wins"], c["games"])
    po, so = win_rate_se(ours["wins"], ours["games"])
    se = math.hypot(sc, so)
    mc, mcs = score_mean_se(c)
    mo, mos = score_mean_se(ours)
    mse = math.hypot(mcs, mos)
    return {"c_win_rate": round(pc, 6), "ours_win_rate": round(po, 6),
            "win_rate_diff": round(po - pc, 6), "win_rate_diff_se": round(se, 6),
            "win_rate_diff_in_se": round((po - pc) / se, 2) if se else 0.0,
            "c_mean_won_score": round(mc, 3), "ours_mean_won_score": round(mo, 3),
            "mean_won_score_diff_in_se": round((mo - mc) / mse, 2) if mse else 0.0}


def best(runs: list[dict]) -> dict:
    """The run with the shortest wall time (all runs play the same games)."""
    return min(runs, key=lambda r: r["seconds"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000_000, help="games for each of C and ours (>= 10^6 "
                        "for the correctness check of issue 30)")
    parser.add_argument("--players", type=int, default=3, choices=range(1, 6))
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each; the fastest counts")
    parser.add_argument("--tolerance", type=float, default=4.0, help="allowed difference in standard errors")
    parser.add_argument("--out", type=Path, default=None, help="write the JSON here instead of results/")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            exe = compile_c(tmp)
        except NoCompiler as error:
            print(f"bench_c_reference: {error}", file=sys.stderr)
            return 2
        c = best([run_c(exe, args.games, args.players) for _ in range(args.repeat)])
    run_ours(1, args.players)  # warm-up: load / compile the kernel outside the timing
    ours = best([run_ours(args.games, args.players) for _ in range(args.repeat)])

    check = agreement(c, ours)
    passed = (abs(check["win_rate_diff_in_se"]) <= args.tolerance
              and abs(check["mean_won_score_diff_in_se"]) <= args.tolerance)
    c_gps, ours_gps = args.games / c["seconds"], args.games / ours["seconds"]
    result = {
        "game": "verflucht", "players": args.players, "policy": POLICY, "games": args.games,
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
        write_result("c_reference" if args.players == 3 else f"c_reference_{args.players}p", result)
    if not passed:
        print(f"bench_c_reference: C and ours disagree: win rate {check['win_rate_diff_in_se']} SE, mean won "
              f"score {check['mean_won_score_diff_in_se']} SE (tolerance {args.tolerance})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
