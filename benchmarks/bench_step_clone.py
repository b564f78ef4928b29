"""What a step state's copy costs as a game goes on (issue 27 point 3): per game, the time of ``clone()``
and of ``determinise(actor, seed)`` (which ISMCTS calls once per iteration; repeated on one state, and
once on a fresh copy, ``first_determinise_us``, which a cache kept by the state cannot hide) at states
after k decisions,
early, middle and late in one game of the game's default setting (the ISMCTS benchmark's), every
decision taken by the agent's default rollout policy. A state that copies its arrays costs the same at
every k; one that replays its history grows with k. Writes results/benchmarks/step_clone.json, keeping
the other stage's figures already there (``--stage before`` / ``--stage after`` of a change) and, within
a stage, the games not timed now; each game's figures carry the machine's load while it was timed.

    python benchmarks/bench_step_clone.py [--stage after] [--games verflucht ...] [--budget 0.3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search import SETTINGS, rollouts  # noqa: E402
from common import OUT_DIR, machine, write_result  # noqa: E402

from cursedsim.step.api import step_spec  # noqa: E402

#: Where in the game the copies are timed: these fractions of its decisions taken.
FRACTIONS = (0.0, 0.25, 0.5, 0.75, 0.95)


def timed(fn, budget: float, at_least: int = 3) -> float:
    """The shortest of repeated calls of ``fn`` (at least ``at_least``, then until ``budget`` seconds)."""
    best, spent, n = float("inf"), 0.0, 0
    while n < at_least or spent < budget:
        t0 = time.perf_counter()
        fn()
        took = time.perf_counter() - t0
        best, spent, n = min(best, took), spent + took, n + 1
        if n >= 1000:
            break
    return best


def once(fn) -> float:
    """The time of one call of ``fn`` (a first call: what a cache a state keeps cannot hide)."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def states_along(game: str, index: int) -> list[tuple[int, object]]:
    """(k, a clone of the state after k decisions) at FRACTIONS of one game's decisions."""
    spec = step_spec(game)
    players, fixed = SETTINGS[game]
    state = spec.new_state(2026, index, players, None, fixed=fixed)
    plan = rollouts(state, game)
    length = 0
    probe = spec.new_state(2026, index, players, None, fixed=fixed)
    while not probe.is_terminal():
        probe.apply_policy(*plan[probe.actor()])
        length += 1
    wanted = sorted({min(int(f * length), length - 1) for f in FRACTIONS})
    kept, k = [], 0
    while wanted:
        if k == wanted[0]:
            kept.append((k, state.clone()))
            wanted.pop(0)
        state.apply_policy(*plan[state.actor()])
        k += 1
    return kept


def bench(game: str, budget: float, index: int) -> dict:
    """The clone and determinise times (microseconds) at each k of one game."""
    rows = []
    for k, state in states_along(game, index):
        actor = state.actor()
        first_s = once(lambda: state.clone().determinise(actor, 0))   # before any determinise of the state
        clone_s = timed(state.clone, budget)
        seeds = iter(range(10**9))
        det_s = timed(lambda: state.determinise(actor, next(seeds)), budget)
        rows.append({"k": k, "clone_us": round(clone_s * 1e6, 1), "determinise_us": round(det_s * 1e6, 1),
                     "first_determinise_us": round(first_s * 1e6, 1)})
        print(f"{game:10s} k={k:4d}  clone {rows[-1]['clone_us']:12.1f} us  determinise "
              f"{rows[-1]['determinise_us']:12.1f} us  (first {rows[-1]['first_determinise_us']:.1f} us)", flush=True)
    late, early = rows[-1], rows[0]
    return {"players": SETTINGS[game][0], "game_index": index, "states": rows,
            "clone_late_over_early": round(late["clone_us"] / early["clone_us"], 1)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default="before", help="the key the figures go under (before / after)")
    parser.add_argument("--games", nargs="*", default=list(SETTINGS))
    parser.add_argument("--budget", type=float, default=0.3, help="seconds of repeats per timing")
    parser.add_argument("--index", type=int, default=0, help="the game of the run seed 2026 timed")
    parser.add_argument("--out", default=None, help="a JSON file instead of results/benchmarks/step_clone.json")
    args = parser.parse_args(argv)
    figures = {}
    for game in args.games:   # each game with the machine's load while it was timed
        load = os.getloadavg()[0]
        figures[game] = {**bench(game, args.budget, args.index), **machine(load)}
    path = Path(args.out) if args.out else OUT_DIR / "step_clone.json"
    result = json.loads(path.read_text()) if path.exists() else {}
    result.setdefault("benchmark", "step state clone() and determinise() time at k decisions into a game")
    stage = result.get(args.stage, {})
    stage["games"] = {**stage.get("games", {}), **figures}   # the games not timed now keep their figures
    if all("load_average_before" in g for g in stage["games"].values()):   # no stage-wide figures left
        stage = {"games": stage["games"]}
    result[args.stage] = stage
    if args.out:
        path.write_text(json.dumps(result, indent=2) + "\n")
    else:
        write_result("step_clone", result)


if __name__ == "__main__":
    main()
