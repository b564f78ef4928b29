"""Plugins: modules outside cursedsim that register policies (``add_numba_policy`` /
``add_python_policy`` of a game's ``user_policies``), so that every command plays them by name.

Two ways in, both loading a plugin once per process:

- ``load_plugin(source)`` (the command line's ``--plugin SOURCE``): ``source`` is a dotted module name
  importable from ``sys.path`` or the current directory, a path to a ``.py`` file, or either followed
  by ``:function``, a function called without arguments once the module is imported.
- The entry-point group ``cursedsim.policies``: every installed distribution that declares an entry
  point there is loaded when the game registry is first used (``load_entry_points``, which the
  composition root ``cursedsim.compose`` has ``games.get_game`` call). ``CURSEDSIM_NO_PLUGINS=1`` skips
  them all, ``CURSEDSIM_NO_PLUGINS=a,b`` the entry points (or distributions) named ``a`` and ``b``.

Worker processes get a plugin's policies inside the pickled game (``runner._play_chunk``): functions
and classes of an importable module travel by name and the worker imports the module. So a plugin file
is imported as an ordinary module: its directory goes first on ``sys.path``, which loky and Dask's
local workers inherit when they start, and the module is pickled by value as well (``cloudpickle``), so
workers that started earlier, or run on other machines, need nothing.

``add_policy(game, spec, side=...)`` is where every game's ``user_policies`` puts a user's policy: into
the game's policies, or, in a game of sides, into the policies of the side it plays (``side`` is then
required, and a policy plays for that side only: ``--policy hunter=mine``). A plugin's policies of a
game of sides are listed as ``side=name``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from cursedsim.errors import PluginError, shorten

#: The entry-point group whose entry points name plugins (a module, or ``module:function``).
ENTRY_POINT_GROUP = "cursedsim.policies"
#: Environment variable: ``1`` skips every entry-point plugin, ``a,b`` those named a and b.
DISABLE_VARIABLE = "CURSEDSIM_NO_PLUGINS"
_ALL = ("1", "all", "true", "yes")
_DOTTED_RE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin: how it was named (``source``), its module and the policies it registered, as
    (game, policy) pairs."""

    source: str
    module: ModuleType
    policies: tuple[tuple[str, str], ...]


#: Plugins loaded in this process, by source (a file path resolved), in load order.
_LOADED: dict[str, Plugin] = {}
#: Entry points loaded in this process, by (name, value).
_ENTRY_POINTS_DONE: set[tuple[str, str]] = set()
#: "busy" while entry points load (a plugin that uses the registry must not load them again), "done"
#: once every one loaded.
_entry_points_state = ""


# ---------------------------------------------------------------- what the policies are

def _registered() -> dict[tuple[str, str], object]:
    """(game, policy) -> its PolicySpec, for every user policy of every game already imported (a plugin
    imports the games it registers policies with)."""
    from cursedsim.games import GAME_MODULES

    found = {}
    for game, module_name in GAME_MODULES.items():
        module = sys.modules.get(module_name)
        game_record = getattr(module, "GAME", None)
        if game_record is not None:
            found.update(((game, name), spec) for name, spec in game_record.policies.items()
                         if spec.impl is not None)
            for side in game_record.sides:
                found.update(((game, f"{side.name}={name}"), spec) for name, spec in side.policies.items()
                             if spec.impl is not None)
    return found


def add_policy(game, spec, side: str | None = None):
    """Register the user policy ``spec`` (a PolicySpec with its ``impl``) with ``game`` (a name or the Game):
    in its policies, or (a game of sides) in the policies of ``side``, which a game of sides requires and a
    single-side game refuses; it replaces an earlier user policy of that name, never a built-in one.
    Returns ``spec``."""
    from cursedsim.errors import UnknownPolicyError
    from cursedsim.games import Game, get_game
    record = game if isinstance(game, Game) else get_game(game)
    if record.sides and side is None:
        raise UnknownPolicyError(f"{record.name} has sides ({', '.join(record.side_names)}): register policy "
                                 f"{spec.name!r} for one of them (side=...)")
    if not record.sides and side is not None:
        raise UnknownPolicyError(f"{record.name} has no sides (one policy plays every seat): register policy "
                                 f"{spec.name!r} without side=, got side {shorten(side)}")
    policies = record.policies_of(side)
    current = policies.get(spec.name)
    if current is not None and current.impl is None:
        built_in = ", ".join(name for name, p in policies.items() if p.impl is None)
        where = "" if side is None else f" of side {side!r}"
        raise UnknownPolicyError(f"policy name {spec.name!r} is a built-in policy{where}; choose another name "
                                 f"(built-in: {built_in})")
    policies[spec.name] = spec
    return spec


def loaded_plugins() -> list[Plugin]:
    """The plugins loaded in this process (``--plugin``, ``load_plugin`` and entry points), in order."""
    return list(_LOADED.values())


def plugin_of(game: str, policy: str) -> str | None:
    """The source of the plugin that registered ``policy`` of ``game`` last, or None."""
    found = None
    for plugin in _LOADED.values():
        if (game, policy) in plugin.policies:
            found = plugin.source
    return found


# ---------------------------------------------------------------- loading

def _split(source: str) -> tuple[str, str | None]:
    """(module part, function name or None) of ``source``; a Windows drive letter is no function."""
    module, sep, function = source.rpartition(":")
    if not sep or not _DOTTED_RE.match(function) or (len(module) == 1 and module.isalpha()):
        return source, None
    return module, function


def _is_path(module: str) -> bool:
    return module.endswith(".py") or "/" in module or os.sep in module


def _import_file(text: str) -> ModuleType:
    """The module of the ``.py`` file ``text``, imported under its file name from its directory, which
    goes first on ``sys.path`` (as for a script run by ``python FILE``)."""
    path = Path(text).expanduser().resolve()
    if path.suffix != ".py" or not path.is_file():
        raise PluginError(f"plugin file {shorten(text)} not found (a plugin is a module name or a path to a "
                          ".py file)")
    name = path.stem
    if not name.isidentifier():
        raise PluginError(f"plugin file {shorten(text)}: {name!r} is not a module name; rename the file "
                          "(letters, digits and _)")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.find_spec(name)
    found = spec is not None and spec.has_location and Path(spec.origin).resolve() == path
    if not found:
        where = f"is {spec.origin}" if spec is not None and spec.origin else "cannot be imported by that name"
        raise PluginError(f"plugin file {path} is imported as module {name!r}, but module {name!r} {where}; "
                          "rename the file")
    return importlib.import_module(name)


def _import_name(name: str, from_here: bool) -> ModuleType:
    """Module ``name``, from ``sys.path`` or else (``from_here``) the current directory."""
    if not _DOTTED_RE.match(name):
        raise PluginError(f"plugin {shorten(name)} is not a module name (dotted, e.g. mypackage.policies) "
                          "nor a path to a .py file")
    here = os.getcwd()
    if from_here and here not in sys.path and "" not in sys.path:
        sys.path.append(here)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            where = f"on sys.path nor in the current directory {here}" if from_here else "on sys.path"
            raise PluginError(f"plugin module {name!r} not found {where} (a plugin is a module name or a path "
                              "to a .py file)") from None
        raise


def _pickle_by_value(module: ModuleType) -> None:
    """Let every cloudpickle in use (loky's and Dask's) pickle ``module``'s functions and classes by
    value, so a worker need not import a plugin file."""
    for name in ("joblib.externals.cloudpickle", "cloudpickle"):
        try:
            cloudpickle = importlib.import_module(name)
        except ImportError:   # pragma: no cover
            continue
        register = getattr(cloudpickle, "register_pickle_by_value", None)
        if register is not None:
            register(module)


def _run(label: str, action: Callable[[], object], hint: str) -> object:
    """``action()``, its failures a PluginError naming the plugin ``label`` (and ``hint``)."""
    try:
        return action()
    except PluginError as error:
        if not hint:
            raise
        raise PluginError(f"{error}{hint}") from error
    except Exception as error:   # anything a plugin's own code raises
        detail = " ".join(str(error).split()) or "no message"
        raise PluginError(f"plugin {label} failed to load: {type(error).__name__}: {detail}{hint}") from error


def _load(source: str, label: str, hint: str = "", from_here: bool = True) -> Plugin:
    """Import (and call) ``source``, recording what it registered; once per process."""
    module_text, function_name = _split(source)
    path_like = _is_path(module_text)
    key = str(Path(module_text).expanduser().resolve()) if path_like else module_text
    key = key if function_name is None else f"{key}:{function_name}"
    if key in _LOADED:
        return _LOADED[key]
    before = _registered()

    def load() -> ModuleType:
        module = _import_file(module_text) if path_like else _import_name(module_text, from_here)
        if path_like:
            _pickle_by_value(module)
        if function_name is not None:
            function = module
            for part in function_name.split("."):
                function = getattr(function, part, None)
            if not callable(function):
                raise PluginError(f"plugin {label}: module {module.__name__!r} has no function {function_name!r}")
            function()
        return module

    module = _run(label, load, hint)
    after = _registered()
    added = tuple(pair for pair, spec in after.items() if before.get(pair) is not spec)
    plugin = Plugin(source, module, added)
    _LOADED[key] = plugin
    return plugin


def load_plugin(source: str) -> Plugin:
    """Load the plugin ``source``: a dotted module name (from ``sys.path`` or the current directory) or
    a path to a ``.py`` file, optionally followed by ``:function`` (called without arguments). Importing
    it registers its policies; a second call with the same source does nothing. Errors (a module not
    found, or anything the plugin raises) are a PluginError naming it."""
    if not isinstance(source, str) or not source.strip():
        raise PluginError(f"a plugin is a module name or a path to a .py file, got {shorten(source)}")
    source = source.strip()
    return _load(source, repr(source))


def disabled_entry_points() -> tuple[bool, frozenset[str]]:
    """(every entry-point plugin disabled?, names disabled) from ``CURSEDSIM_NO_PLUGINS``."""
    text = os.environ.get(DISABLE_VARIABLE, "").strip()
    if text.lower() in _ALL:
        return True, frozenset()
    return False, frozenset(part.strip() for part in text.split(",") if part.strip() and part.strip() != "0")


def entry_points() -> list[importlib.metadata.EntryPoint]:
    """The entry points of group ``cursedsim.policies`` of the installed distributions, by name (one of
    each name and value)."""
    found = {(ep.name, ep.value): ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return [found[key] for key in sorted(found)]


def _distribution(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return f"{dist.metadata['Name']} {dist.version}" if dist is not None else "an unknown distribution"


def load_entry_points() -> list[Plugin]:
    """Load every entry-point plugin not disabled by ``CURSEDSIM_NO_PLUGINS`` and not loaded yet in this
    process (the game registry calls this on every use, installed by ``cursedsim.compose``; after the first
    it returns at once). A plugin that fails is a PluginError naming it and how to run without it; the
    next call tries it again."""
    global _entry_points_state
    if _entry_points_state:
        return []
    every, names = disabled_entry_points()
    if every:
        _entry_points_state = "done"
        return []
    loaded = []
    _entry_points_state = "busy"
    try:
        for ep in entry_points():
            key = (ep.name, ep.value)
            dist = getattr(ep, "dist", None)
            dist_name = dist.metadata["Name"] if dist is not None else None
            if key in _ENTRY_POINTS_DONE or ep.name in names or dist_name in names:
                continue
            hint = (f" (entry point {ep.name} = {ep.value} of {_distribution(ep)}, group {ENTRY_POINT_GROUP}); "
                    f"to run without it set {DISABLE_VARIABLE}={ep.name}, or {DISABLE_VARIABLE}=1 for no plugins")
            source = f"{ep.module}:{ep.attr}" if ep.attr else ep.module
            loaded.append(_load(source, repr(ep.name), hint, from_here=False))
            _ENTRY_POINTS_DONE.add(key)
    except BaseException:
        _entry_points_state = ""
        raise
    _entry_points_state = "done"
    return loaded


__all__ = ["DISABLE_VARIABLE", "ENTRY_POINT_GROUP", "Plugin", "add_policy", "disabled_entry_points", "entry_points",
           "load_entry_points", "load_plugin", "loaded_plugins", "plugin_of"]
