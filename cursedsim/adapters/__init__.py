"""Adapters of every game's step API (``cursedsim.step``) to Gymnasium (``CursedsimEnv``, ids
``cursedsim/<game>-v0``), PettingZoo AEC (``cursedsim_aec_env``) and OpenSpiel (``register``): see
docs/adapters.md. Importing this package registers the Gymnasium ids (when Gymnasium is installed);
PettingZoo and OpenSpiel are imported only when their adapter is first used."""

from __future__ import annotations

_EXPORTS = {
    "CursedsimEnv": "cursedsim.adapters.gymnasium_env",
    "register_envs": "cursedsim.adapters.gymnasium_env",
    "CursedsimAEC": "cursedsim.adapters.pettingzoo_env",
    "cursedsim_aec_env": "cursedsim.adapters.pettingzoo_env",
    "register": "cursedsim.adapters.openspiel_game",
    "register_all": "cursedsim.adapters.openspiel_game",
    "game_name": "cursedsim.adapters.openspiel_game",
}


def __getattr__(name):
    if name in _EXPORTS:
        import importlib
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'cursedsim.adapters' has no attribute {name!r}")


__all__ = list(_EXPORTS)


try:   # the ids cursedsim/<game>-v0, for gymnasium.make
    from cursedsim.adapters.gymnasium_env import register_envs as _register_envs
except ImportError:   # Gymnasium not installed: the other adapters still work
    pass
else:
    _register_envs()
