"""The composition root: where the layers that must not know each other are put together, once, when
``cursedsim`` is imported (``cursedsim/__init__`` imports this module first after pinning numba's cache).

The game registry (``cursedsim.games``) knows the games and nothing above them; the step API
(``cursedsim.step``) knows the registry; search (``cursedsim.search``) knows both. Two things every game
gets from above the registry are installed into it here:

- before every look-up, the policies of the installed plugins (``plugins.load_entry_points``: the
  ``cursedsim.policies`` entry points, loaded on first use);
- on each game's first load, the search policy ``ismcts`` for every side (``search.attach.attach``: runs
  that use it are played through the step API).

Worker processes import ``cursedsim`` too, so a game they unpickle or look up is composed the same way.
"""

from __future__ import annotations

from cursedsim import games, plugins
from cursedsim.search.attach import attach

games.extend(before_use=plugins.load_entry_points, wrap=attach)

__all__: list[str] = []
