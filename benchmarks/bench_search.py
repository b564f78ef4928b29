"""ISMCTS decisions per second per game (issue 14): a fixed budget, the first decisions of a few games of
each game's default setting, one process on the reference engine. Writes results/benchmarks/search.json.

    python benchmarks/bench_search.py [--iterations 20] [--games 3] [--decisions 20]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

from cursedsim import rng
from cursedsim.search.ismcts import Budget, choose
from cursedsim.step.api import step_spec
from cursedsim.search.play import SEARCH_STREAM

#: Per game: the players and the sides fixed to built-in policies (the searcher is every other agent).
SETTINGS = {
    "cursed": (1, None),
    "verflucht": (3, None),
    "gifts": (4, {"field": ("leader", None)}),
    "covens": (5, {"town": ("coven", None)}),
    "village": (2, {"monster": ("rabid", None)}),
}


def rollouts(state, game: str) -> dict:
    """Every agent's rollout: the one ``ismcts`` plays by default (its side's default rollout policy)."""
    from cursedsim.games import get_game
    from cursedsim.search.policy import rollout_policy
    from cursedsim.step.play import agent_side
    record = get_game(game)
    spec = step_spec(game)
    players, _ = SETTINGS[game]
    return {a: (rollout_policy(record, agent_side(state, spec, players, None, a), -1), None)
            for a in range(len(state.returns()))}


def bench(game: str, iterations: int, games: int, decisions: int) -> dict:
    """Time ``decisions`` searched decisions (at most) of each of ``games`` games."""
    spec = step_spec(game)
    players, fixed = SETTINGS[game]
    count, seconds = 0, 0.0
    for index in range(games):
        state = spec.new_state(2026, index, players, None, fixed=fixed)
        stream = rng.Stream(2026, index, SEARCH_STREAM)
        plan = rollouts(state, game)
        taken = 0
        while not state.is_terminal() and taken < decisions:
            if len(state.legal_actions()) > 1:
                started = time.perf_counter()
                action = choose(state, Budget(iterations), plan, stream)
                seconds += time.perf_counter() - started
                count += 1
                taken += 1
            else:
                action = state.legal_actions()[0]
            state.apply(action)
    return {"decisions": count, "seconds": round(seconds, 3), "decisions_per_second": round(count / seconds, 2),
            "iterations": iterations, "players": players}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--out", default="results/benchmarks/search.json")
    args = parser.parse_args(argv)
    results = {}
    for game in SETTINGS:
        results[game] = bench(game, args.iterations, args.games, args.decisions)
        print(f"{game:10s} {results[game]['decisions_per_second']:8.2f} ISMCTS decisions/s "
              f"({args.iterations} iterations, {results[game]['decisions']} decisions)", flush=True)
    payload = {"benchmark": "ismcts decisions per second, one process", "python": sys.version.split()[0],
               "machine": platform.machine(), "cpus": os.cpu_count(), "load_before": os.getloadavg()[0],
               "results": results}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(payload, handle, indent=2)
    os.replace(tmp, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
