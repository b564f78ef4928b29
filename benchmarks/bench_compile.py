"""Cold start per game: a new process's first ``simulate`` (one game, default players, options and
policies) with an empty numba cache, then again with the cache that run left (warm), one core each
(``NUMBA_NUM_THREADS=1``, one game at a time); and ``cursedsim compile --jobs 2`` of every game into an
empty cache, the step ``make test`` starts with. Writes ``results/benchmarks/compile.json``.

Targets (issue 24): every game's cold first simulate <= 60 s, their sum (one core) <= 240 s.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from common import ROOT, machine, write_result

from cursedsim.games import list_games

#: The first result of a new process: one game of ``GAME``; prints its own seconds from interpreter start.
FIRST_SIMULATE = ("import time; t0 = time.perf_counter(); import cursedsim; "
                  "cursedsim.simulate({game!r}, 1, n_jobs=1, progress=False); print(time.perf_counter() - t0)")
TARGET_GAME_S = 60
TARGET_TOTAL_S = 240


def timed(args: list[str], cache: str) -> float:
    """Wall seconds of ``args`` in a new process whose numba cache lives in ``cache``."""
    env = {**os.environ, "CURSEDSIM_CACHE": cache, "NUMBA_CACHE_DIR": "", "NUMBA_NUM_THREADS": "1"}
    started = time.perf_counter()
    subprocess.run(args, check=True, env=env, cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list_games(), help="games to measure (default: all)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    result: dict = {}
    for game in args.games:
        with tempfile.TemporaryDirectory() as cache:
            snippet = [sys.executable, "-c", FIRST_SIMULATE.format(game=game)]
            result[f"{game}_cold_first_simulate_s"] = round(timed(snippet, cache), 1)
            result[f"{game}_warm_first_simulate_s"] = round(timed(snippet, cache), 1)
    cold = [result[f"{game}_cold_first_simulate_s"] for game in args.games]
    result["cold_total_one_core_s"] = round(sum(cold), 1)
    with tempfile.TemporaryDirectory() as cache:
        command = [sys.executable, "-m", "cursedsim", "compile", *args.games, "--jobs", "2"]
        result["compile_all_2_jobs_wall_s"] = round(timed(command, cache), 1)
    result["target_game_s"] = TARGET_GAME_S
    result["target_total_s"] = TARGET_TOTAL_S
    result["meets_targets"] = bool(max(cold) <= TARGET_GAME_S and sum(cold) <= TARGET_TOTAL_S)
    import numba
    result["numba"] = numba.__version__
    result.update(machine(load_before))
    write_result("compile", result)


if __name__ == "__main__":
    main()
