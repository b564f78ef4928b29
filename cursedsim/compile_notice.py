"""Say that a kernel is compiling while it compiles: a first run (after an install or a code change)
spends tens of seconds in numba before the first game, and a silent wait reads as a hang.

A compile is noticed when playing the first game takes longer than ``NOTICE_AFTER`` seconds: a
spinner on stderr then names the game and policy, the seconds so far and an estimate (the last compile
of that game on this machine, recorded next to numba's cache; before the first, the ``compile_estimate``
of the game's record, else ``DEFAULT_ESTIMATE``).
Loading a cached kernel takes well under a second and shows nothing.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from cursedsim.errors import UnknownGameError
from cursedsim.games import get_game

#: Seconds of silence before the notice appears.
NOTICE_AFTER = 1.0
#: The estimate before this machine has compiled a game once (2 cores, numba 0.6x: 20-40 s), for a game
#: whose record gives none (``Game.compile_estimate``: a game's cold first simulate on one core in
#: results/benchmarks/compile.json).
DEFAULT_ESTIMATE = 30.0
#: Where the last compile time per game is kept (in the numba cache root, so it goes with the cache).
RECORD_NAME = "compile_seconds.json"


def _record_path() -> Path:
    from cursedsim.numba_cache import cache_root
    return cache_root() / RECORD_NAME


def estimate(game: str) -> float:
    """Seconds the last compile of ``game``'s kernels took here, else its record's ``compile_estimate`` or
    ``DEFAULT_ESTIMATE``."""
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
        seconds = float(json.loads(_record_path().read_text())[game])
        if 0 < seconds < 3600:
            return seconds
    first = None
    with contextlib.suppress(UnknownGameError):
        first = get_game(game).compile_estimate
    return DEFAULT_ESTIMATE if first is None else float(first)


def record(game: str, seconds: float) -> None:
    """Keep ``seconds`` as ``game``'s compile time (best effort: a read-only cache only loses the estimate)."""
    from cursedsim.files import write_via
    path = _record_path()
    with contextlib.suppress(OSError, ValueError, TypeError):
        try:
            times = json.loads(path.read_text())
            if not isinstance(times, dict):
                times = {}
        except (OSError, ValueError):
            times = {}
        times[game] = round(seconds, 1)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_via(str(path), lambda tmp: Path(tmp).write_text(json.dumps(times, indent=1, sort_keys=True)))


def _message(game: str, policy: str, expected: float, elapsed: float | None = None) -> str:
    so_far = "" if elapsed is None else f"{elapsed:.0f} s of "
    return f"compiling the {game} kernel ({policy}): {so_far}~{expected:.0f} s, once, then cached"


@contextlib.contextmanager
def compiling(game: str, policy: str, enabled: bool = True) -> Iterator[None]:
    """Around the first game of a run: after ``NOTICE_AFTER`` s a spinner (a terminal) or one line
    (otherwise) on stderr says what is compiling and for how long; at the end, the seconds it took
    (recorded as the next estimate). ``enabled=False``: silent (progress=False)."""
    if not enabled:
        yield
        return
    expected = estimate(game)
    started = time.perf_counter()
    done = threading.Event()
    shown: list[object] = []

    def notice() -> None:
        if done.wait(NOTICE_AFTER):
            return
        if sys.stderr.isatty():
            from rich.console import Console
            status = Console(stderr=True).status(_message(game, policy, expected))
            status.start()
            shown.append(status)
            while not done.wait(0.5):
                elapsed = time.perf_counter() - started
                status.update(_message(game, policy, expected, elapsed))
        else:
            print(f"cursedsim: {_message(game, policy, expected)} ...", file=sys.stderr, flush=True)
            shown.append(None)

    watcher = threading.Thread(target=notice, name="cursedsim-compile-notice", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        seconds = time.perf_counter() - started
        for status in shown:
            if status is not None:
                status.stop()
        if shown:
            print(f"cursedsim: compiled the {game} kernel for policy {policy} in {seconds:.1f} s",
                  file=sys.stderr, flush=True)
            record(game, seconds)


__all__ = ["DEFAULT_ESTIMATE", "NOTICE_AFTER", "compiling", "estimate", "record"]
