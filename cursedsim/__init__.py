"""cursedsim: Monte-Carlo simulation of the "cursed" family of tabletop games.

Public API::

    simulate(game, n_games, *, players, policy, options, params, seed, n_jobs, backend, chunk_size, out,
             progress) -> pandas.DataFrame   # one row per game
    replay(game, seed, index, *, players, policy, options, params, format) -> str   # the turn log of one
                                  # game; format="json" its events as JSON lines, "events" a list, "frame"
    compare(game, policies, n_games, *, players, options, vary, reference, seed, ...) -> Comparison
                                  # policies x option values on the same games: X - reference (compare.py)
    sweep(game, *, players, policies, options, params, n_games, seed, n_jobs, out, ...) -> pandas.DataFrame
                                                          # one row per cell of a grid (sweep.py)
    tune(game, policy, *, players, options, space, candidates, start_games, final_games, reference, seed,
         ...) -> TuneResult                               # successive halving + held-out check (tune.py)
    target(game, win_rate, *, vary, players, values, policy, options, tolerance, max_games, seed, ...)
         -> TargetResult                                  # the value closest to a win rate (target.py)
    report(game, out, *, n_games, seed, n_jobs, ...) -> Report   # balance report, Markdown + HTML
    list_games() -> list[str]
    get_game(name) -> Game

The functions ``compare``, ``sweep``, ``target``, ``tune`` and ``report`` share their names with their modules; as attributes of
the package they are the functions. Import anything else from the modules by name
(``from cursedsim.tune import parse_space``).
"""

from __future__ import annotations

from cursedsim.numba_cache import pin_cache_dir  # noqa: E402

pin_cache_dir()  # before any kernel module is imported: see numba_cache.py

from cursedsim.version import __version__  # noqa: E402

import cursedsim.compose  # noqa: E402, F401  (the composition root: plugins and search into the registry)

from cursedsim.games import get_game, list_games  # noqa: E402
from cursedsim.runner import replay, simulate  # noqa: E402
from cursedsim.compare import compare  # noqa: E402
from cursedsim.sweep import sweep  # noqa: E402
from cursedsim.tune import tune  # noqa: E402
from cursedsim.target import target  # noqa: E402
from cursedsim.report import report  # noqa: E402  (light: figures and templates load on use)

__all__ = ["__version__", "compare", "get_game", "list_games", "replay", "report", "simulate", "sweep",
           "target", "tune"]
