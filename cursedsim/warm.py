"""Compile every game's kernels ahead of a run (``cursedsim compile``), so the first ``simulate`` of a
game, a test suite's workers or a cluster's start from a warm cache instead of compiling each on its own.

A game is warmed by playing one game of each of its built-in kernel policies, on each side, at the
default players and options: the kernels take policies by number at run time, so this compiles (or
loads) every entry point a default run calls. Games run in parallel, one per worker, longest first.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence

from cursedsim.compile_notice import estimate


def _policy_sets(game) -> list[object]:
    """One ``policy`` argument of ``simulate`` per built-in kernel policy of ``game`` (a side's policy with
    the other sides at their defaults), and every side at ``random`` where each side has it."""
    if not game.sides:
        return [name for name, spec in game.policies.items() if spec.engine == "kernel"]
    runs = []
    for side in game.sides:
        for name, spec in side.policies.items():
            if spec.engine == "kernel":
                runs.append({side.name: name})
    # every side "random": a game may play that pairing by a kernel of its own (covens: random_play.py)
    if all(side.policies.get("random") is not None and side.policies["random"].engine == "kernel"
           for side in game.sides):
        runs.append({side.name: "random" for side in game.sides})
    return runs


def _warm_seconds(name: str) -> float:
    """The expected seconds of ``warm_game(name)``: the game's ``warm_estimate``, else its first compile's
    (``compile_notice.estimate``). A first simulate compiles one policy's kernel, a warm every one: ordered
    by the first, Cursed!? (five times its first compile) started third and ran alone at the end."""
    from cursedsim.games import get_game
    whole = get_game(name).warm_estimate
    return estimate(name) if whole is None else float(whole)


def warm_game(name: str) -> float:
    """Compile or load every kernel entry point a default run of game ``name`` calls; the seconds it took."""
    from cursedsim.games import get_game
    from cursedsim.runner import simulate
    started = time.perf_counter()
    for policy in _policy_sets(get_game(name)):
        simulate(name, 1, policy=policy, n_jobs=1, progress=False)
    return time.perf_counter() - started


def warm(games: Sequence[str] | None = None, n_jobs: int = 1) -> dict[str, float]:
    """Warm the kernels of ``games`` (all by default), ``n_jobs`` games at once in separate processes,
    the longest compiles first; seconds per game, in the order given."""
    from cursedsim.games import get_game, list_games
    names = list(list_games() if not games else games)
    for name in names:
        get_game(name)   # an unknown name fails here, with the valid ones
    order = sorted(names, key=_warm_seconds, reverse=True)
    if n_jobs == 1 or len(order) == 1:
        seconds = [warm_game(name) for name in order]
    else:
        from joblib import Parallel, delayed
        with warnings.catch_warnings():
            # a worker whose memory grew by a game's compile exits cleanly after it (loky's leak check)
            # and loky starts another for the games left, saying so: nothing is lost, the notice only alarms
            warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given",
                                    category=UserWarning)
            seconds = Parallel(n_jobs=n_jobs, backend="loky")(delayed(warm_game)(name) for name in order)
    taken = dict(zip(order, seconds))
    return {name: taken[name] for name in names}


__all__ = ["warm", "warm_game"]
