"""User numba policies and built-in ones never play each other's decisions, whatever ran first.

The state this needs is a fresh process with a warm on-disk numba cache: the built-in kernels load
from the cache while a user's kernel is compiled in the same process (a shared compiled symbol once
let whichever was linked first play for both). The test suite's own process hides it, so every order
runs in a new interpreter (tests/fresh_process_policies.py) and each policy's frame must equal the frame
it gives when played first in its process. Every order runs with 1 job; the same orders with 2 worker
processes (each worker compiles every user kernel again) are marked ``slow`` (``make test-all``).
Curses & Covens, Cursed Gifts and So, You've Been Cursed., games of sides, are checked the same way with
pairings of their built-in policies (2 workers: ``slow`` too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from cursedsim.games import get_game

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "fresh_process_policies.py"
USER_POLICIES = {"verflucht": ("exact", "lazy"), "cursed": ("careful", "short")}
#: Games per policy: enough for every policy to play other games than the others (checked), few enough that
#: the searches (`rollout`, `optimal_fight`: 8 and 4 s for 2,000 Cursed!? games) do not dominate a process.
N_GAMES = 400


def built_ins(game: str) -> list[str]:
    """Every built-in kernel policy of ``game`` (user policies carry an implementation; search and
    reference-engine policies build no kernel, what this test is about)."""
    return [name for name, spec in get_game(game).policies.items() if spec.impl is None and spec.engine == "kernel"]


@cache
def play_in_fresh_process(game: str, n_jobs: int, order: tuple[str, ...]) -> dict[str, dict]:
    """{policy: {digest, win_rate}} of ``order`` played one after another in a new interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(SCRIPT), game, str(n_jobs), str(N_GAMES), ",".join(order)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def orders(game: str) -> dict[str, tuple[str, ...]]:
    """The orders checked, each a new process: both user policies, the second right after the first,
    then every built-in; the second user policy, every built-in, then the first. Each user policy is first
    in one of them (its frame alone), comes after the other in both and, once, after every built-in."""
    first, second = USER_POLICIES[game]
    return {"users first": (first, second, *built_ins(game)),
            "built-ins between": (second, *built_ins(game), first)}


def alone(game: str) -> dict[str, dict]:
    """Each policy's frame when it is the first one played in its process: the built-ins in a process
    without any user policy (which also warms the on-disk cache), each user policy from the order that
    plays it first (each process runs once for both uses: a user kernel compiles anew in each)."""
    first, second = USER_POLICIES[game]
    frames = play_in_fresh_process(game, 1, tuple(built_ins(game)))
    frames[first] = play_in_fresh_process(game, 1, orders(game)["users first"])[first]
    frames[second] = play_in_fresh_process(game, 1, orders(game)["built-ins between"])[second]
    return frames


def check_orders(game: str, n_jobs: int) -> None:
    """Every order of ``orders`` played with ``n_jobs`` gives each policy its frame alone."""
    reference = alone(game)
    digests = [entry["digest"] for entry in reference.values()]
    assert len(set(digests)) == len(digests), "two policies play identical games: the check could not fail"
    for label, order in orders(game).items():
        played = play_in_fresh_process(game, n_jobs, order)
        for name in order:
            assert played[name] == reference[name], (
                f"{game}, {n_jobs} job(s), {label}: {name} won {played[name]['win_rate']:.4f} "
                f"after {list(order[:order.index(name)])} but {reference[name]['win_rate']:.4f} alone")


@pytest.mark.parametrize("game", ["verflucht", "cursed"])
def test_every_policy_plays_its_own_games_whatever_ran_before_it(game):
    check_orders(game, 1)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["verflucht", "cursed"])
def test_every_policy_plays_its_own_games_whatever_ran_before_it_in_2_workers(game):
    """The same orders with 2 worker processes: each worker builds its user kernels anew."""
    check_orders(game, 2)


#: Games of sides: one kernel plays every pairing (policy ids at run time); pairings of both sides (Cursed
#: Gifts: a bare name plays every seat, focus=...;field=... one seat against the rest).
PAIRINGS = {
    "covens": ("hunter=tracker;town=coven", "hunter=random;town=bluff", "hunter=largest_hand;town=random"),
    "gifts": ("leader", "focus=defensive;field=random", "focus=spread;field=weakest_link"),
    # So, You've Been Cursed.: the pairing decides the mode (0-player, a solo game, the duel)
    "village": ("wizard=possessed;monster=rabid", "wizard=planner;monster=glutton", "wizard=random;monster=rabid"),
}


def check_pairings(game: str, n_jobs: int) -> None:
    """Each pairing alone in a new process, then all in both orders with ``n_jobs``: same frames. (With
    1 job the first pairing's frame alone is the forward order's first, the last one's the reverse
    order's first: those processes run once for both.)"""
    pairings = PAIRINGS[game]
    first_of = {pairings[0]: pairings, pairings[-1]: pairings[::-1]}
    reference = {name: play_in_fresh_process(game, 1, first_of.get(name, (name,)))[name] for name in pairings}
    digests = [entry["digest"] for entry in reference.values()]
    assert len(set(digests)) == len(digests), "two pairings play identical games: the check could not fail"
    for order in (pairings, pairings[::-1]):
        played = play_in_fresh_process(game, n_jobs, order)
        for name in order:
            assert played[name] == reference[name], (
                f"{game}, {n_jobs} job(s): {name} won {played[name]['win_rate']:.4f} after "
                f"{list(order[:order.index(name)])} but {reference[name]['win_rate']:.4f} alone")


@pytest.mark.parametrize("game", list(PAIRINGS))
def test_every_pairing_plays_its_own_games_whatever_ran_before_it(game):
    check_pairings(game, 1)


@pytest.mark.slow
@pytest.mark.parametrize("game", list(PAIRINGS))
def test_every_pairing_plays_its_own_games_whatever_ran_before_it_in_2_workers(game):
    """The same orders with 2 worker processes (each loads the kernel from the cache anew)."""
    check_pairings(game, 2)
