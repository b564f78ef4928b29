"""Speed and memory of the ``rollout`` search, per game and budget: games per second per core and the peak
resident memory of the process that plays them. Writes results/benchmarks/rollout.json (Verflucht!) and
rollout_<game>.json for the other games measured here (``--games cursed``).

Run: ``python benchmarks/bench_rollout.py`` (a few minutes on a quiet machine; ``--games-scale 0.25`` for a
quick look). Every (game, n) plays in a fresh process, one core (n_jobs=1), warm numba cache (the first
call of each process is excluded from the timing): ``games_per_cpu_second`` is games over the process's
CPU time (what one core gives when the machine is busy with other work too), ``games_per_second`` over
wall time; ``peak_rss_mb`` is the process's peak resident set (getrusage), i.e. what one worker needs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from common import machine, write_result  # benchmarks/common.py

#: (game, players, policy spec for simulate, params besides n, side or None) per setting measured.
#: Cursed!?'s rollout runs over optimal_fight, whose table (256 MiB at most) is in the peak.
SETTINGS = {"verflucht": ("verflucht", 3, "rollout", {}, None), "cursed": ("cursed", 1, "rollout", {}, None)}
#: Budgets and games played at each (fewer at larger n: the same ~order of time per point).
BUDGETS = {1: 4000, 4: 2000, 16: 1000, 64: 400, 256: 100}

CHILD = """
import json, resource, sys, time
import cursedsim
game, players, policy, params, side, n, games = json.loads(sys.argv[1])
def policy_of(n):
    par = dict(params, n=n)
    return (policy, par) if side is None else ({{side: policy}}, {{side: par}})
pol, par = policy_of(n)
cursedsim.simulate(game, 2, players=players, policy=pol, params=par, seed=1, progress=False)   # compile / load
cpu, wall = time.process_time(), time.perf_counter()
frame = cursedsim.simulate(game, games, players=players, policy=pol, params=par, seed=7, progress=False)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
print(json.dumps({{"n": n, "games": games, "games_per_cpu_second": round(games / cpu, 1),
                  "games_per_second": round(games / wall, 1),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}}))
"""


def measure(name: str, scale: float) -> list[dict]:
    game, players, policy, params, side = SETTINGS[name]
    rows = []
    for n, games in BUDGETS.items():
        games = max(10, int(games * scale))
        out = subprocess.run([sys.executable, "-c", CHILD.format(), json.dumps([game, players, policy, params, side,
                                                                               n, games])],
                             capture_output=True, text=True, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        print(name, row, flush=True)
        rows.append(row)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-scale", type=float, default=1.0, help="multiply every setting's games by this")
    parser.add_argument("--games", nargs="*", default=["verflucht"], choices=list(SETTINGS),
                        help="games to measure (verflucht: rollout.json; another: rollout_<game>.json)")
    args = parser.parse_args(argv)
    for name in args.games:
        load = os.getloadavg()[0]
        result = {name: {"players": SETTINGS[name][1], "side": SETTINGS[name][4],
                         "params": SETTINGS[name][3], "rows": measure(name, args.games_scale)}}
        write_result("rollout" if name == "verflucht" else f"rollout_{name}", {**result, **machine(load)})


if __name__ == "__main__":
    main()
