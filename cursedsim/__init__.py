"""cursedsim: Monte-Carlo simulation of the "cursed" family of tabletop games.

Public API::

    simulate(game, n_games, *, players, policy, options, params, seed, n_jobs, backend, chunk_size, out,
             progress) -> pandas.DataFrame   # one row per game
    replay(game, seed, index, *, players, policy, options, params) -> str   # the turn log of one game
    list_games() -> list[str]
    get_game(name) -> Game
"""

from __future__ import annotations

__version__ = "0.1.0"

from cursedsim.numba_cache import pin_cache_dir  # noqa: E402

pin_cache_dir()  # before any kernel module is imported: see numba_cache.py

from cursedsim.games import get_game, list_games  # noqa: E402
from cursedsim.runner import replay, simulate  # noqa: E402

__all__ = ["__version__", "get_game", "list_games", "replay", "simulate"]
