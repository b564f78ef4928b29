"""Cold start per game: a new process's first ``simulate`` (one game, default players, options and
policies) with an empty numba cache, then again with the cache that run left (warm), one core each
(``NUMBA_NUM_THREADS=1``, one game at a time); and ``cursedsim compile --jobs 2`` of every game into an
empty cache, the step ``make test`` starts with. With each cold run, what numba compiled: the compiles, the
functions and those compiled more than once. Writes ``results/benchmarks/compile.json``.

Targets (issue 24): every game's cold first simulate <= 60 s, their sum (one core) <= 240 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from common import ROOT, machine, write_result

from cursedsim.games import list_games

#: The first result of a new process: one game of ``game``; prints, as JSON, the functions numba compiled
#: (a listener on numba's "numba:compile" events: a cache hit is no compile) and how often each.
FIRST_SIMULATE = """
import collections, json
from numba.core import event
compiled = collections.Counter()
class Count(event.Listener):
    def on_start(self, e): pass
    def on_end(self, e):
        f = e.data["dispatcher"].py_func
        compiled[f.__module__ + "." + f.__qualname__] += 1
event.register("numba:compile", Count())
import cursedsim
cursedsim.simulate({game!r}, 1, n_jobs=1, progress=False)
print(json.dumps(compiled))
"""
TARGET_GAME_S = 60
TARGET_TOTAL_S = 240


def timed(args: list[str], cache: str) -> tuple[float, str]:
    """(wall seconds, stdout) of ``args`` in a new process whose numba cache lives in ``cache``."""
    env = {**os.environ, "CURSEDSIM_CACHE": cache, "NUMBA_CACHE_DIR": "", "NUMBA_NUM_THREADS": "1"}
    started = time.perf_counter()
    done = subprocess.run(args, check=True, env=env, cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout


def compile_counts(game: str, stdout: str) -> dict:
    """The compiles of a cold first simulate: how many, of how many functions, and the package's functions
    compiled more than once (a literal argument or a type that changes: issue 24 wants none)."""
    compiled = json.loads(stdout.strip().splitlines()[-1])
    again = sorted(name.removeprefix("cursedsim.") for name, n in compiled.items()
                   if n > 1 and name.startswith("cursedsim."))
    return {f"{game}_compiles": sum(compiled.values()), f"{game}_compiled_functions": len(compiled),
            f"{game}_compiled_more_than_once": again}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list_games(), help="games to measure (default: all)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    result: dict = {}
    for game in args.games:
        with tempfile.TemporaryDirectory() as cache:
            snippet = [sys.executable, "-c", FIRST_SIMULATE.format(game=game)]
            seconds, stdout = timed(snippet, cache)
            result[f"{game}_cold_first_simulate_s"] = round(seconds, 1)
            result[f"{game}_warm_first_simulate_s"] = round(timed(snippet, cache)[0], 1)
            result.update(compile_counts(game, stdout))
    cold = [result[f"{game}_cold_first_simulate_s"] for game in args.games]
    result["cold_total_one_core_s"] = round(sum(cold), 1)
    with tempfile.TemporaryDirectory() as cache:
        command = [sys.executable, "-m", "cursedsim", "compile", *args.games, "--jobs", "2"]
        result["compile_all_2_jobs_wall_s"] = round(timed(command, cache)[0], 1)
    result["target_game_s"] = TARGET_GAME_S
    result["target_total_s"] = TARGET_TOTAL_S
    result["meets_targets"] = bool(max(cold) <= TARGET_GAME_S and sum(cold) <= TARGET_TOTAL_S)
    import numba
    result["numba"] = numba.__version__
    result.update(machine(load_before))
    write_result("compile", result)


if __name__ == "__main__":
    main()
