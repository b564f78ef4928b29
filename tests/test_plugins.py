"""Plugins: a module named by ``--plugin``/``load_plugin`` or declared as a ``cursedsim.policies`` entry
point registers policies that every command then plays, in this process, in loky workers and on Dask.

The plugin policies here are built-in policies' readable twins (``tests/plugin_package``): at their
default parameters they must play exactly the built-in policy's games, which checks that they were
played at all, and played right, wherever they ran.
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

import cursedsim
from cursedsim import plugins
from cursedsim.errors import PluginError
from cursedsim.games import get_game

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "plugin_package"
OUTCOMES = ["win", "souls", "rounds", "damage_taken"]


# ---------------------------------------------------------------- in this process

@pytest.fixture
def isolated(monkeypatch):
    """Plugins loaded by a test stay in it: registries, the plugin records, sys.path and the modules
    the test imported are restored afterwards."""
    saved = {name: (get_game(name).policies, dict(get_game(name).policies)) for name in ("verflucht", "cursed")}
    modules = set(sys.modules)
    monkeypatch.setattr(plugins, "_LOADED", {})
    monkeypatch.setattr(plugins, "_ENTRY_POINTS_DONE", set())
    monkeypatch.setattr(plugins, "_entry_points_state", "")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delenv(plugins.DISABLE_VARIABLE, raising=False)
    yield
    for registry, policies in saved.values():
        registry.clear()
        registry.update(policies)
    for name in set(sys.modules) - modules:
        if name.startswith("plug_"):
            del sys.modules[name]


def unique(prefix: str = "plug") -> str:
    """A name no other test (and no other run of this one) uses for a module or a policy."""
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def careful_source(policy: str, *, register: bool = True, log: Path | None = None) -> str:
    """A plugin module registering ``policy``: Cursed!?'s readable threshold with parameter ``k``
    (threshold itself at k=2); at import (``register``) or in its ``register()``; each import appends a
    line to ``log``."""
    lines = ["from cursedsim.games.cursed.reference_policies import ThresholdPolicy",
             "from cursedsim.games.cursed.user_policies import add_python_policy",
             "",
             "def register():",
             f"    add_python_policy({policy!r}, lambda params: ThresholdPolicy(k=float(params[0])), "
             "params={'k': 2}, doc='threshold, readable')",
             ""]
    if log is not None:
        lines.append(f"open({str(log)!r}, 'a').write('imported\\n')")
    if register:
        lines.append("register()")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str) -> Path:
    """``text`` in a new file ``path`` (folders made), import caches refreshed."""
    import importlib

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    importlib.invalidate_caches()
    return path


def assert_same_games(frame, expected, columns=OUTCOMES):
    """Game by game, the same outcomes (the policy column may differ)."""
    assert len(frame) == len(expected) and frame["win"].sum() > 0
    for column in columns:
        assert (frame[column].to_numpy() == expected[column].to_numpy()).all(), column


def test_a_module_in_the_current_directory_registers_its_policies_once(tmp_path, monkeypatch, isolated):
    module, policy, log = unique(), unique("careful"), tmp_path / "imports.log"
    write(tmp_path / f"{module}.py", careful_source(policy, log=log))
    monkeypatch.chdir(tmp_path)
    sys.path[:] = [entry for entry in sys.path if entry not in ("", str(tmp_path))]
    plugin = plugins.load_plugin(module)
    assert plugin.policies == (("cursed", policy),) and plugin.module.__name__ == module
    assert plugins.load_plugin(module) is plugin and log.read_text() == "imported\n"   # once per process
    assert plugins.loaded_plugins() == [plugin] and plugins.plugin_of("cursed", policy) == module
    spec = get_game("cursed").policy(policy)
    assert spec.engine == "python" and dict(spec.params) == {"k": 2}
    frame = cursedsim.simulate("cursed", 300, policy=policy, seed=5, progress=False)
    assert_same_games(frame, cursedsim.simulate("cursed", 300, policy="threshold", seed=5, progress=False))


def test_a_file_plugin_with_a_register_function(tmp_path, isolated):
    module, policy = unique(), unique("careful")
    path = write(tmp_path / "elsewhere" / f"{module}.py", careful_source(policy, register=False))
    source = f"{path}:register"
    plugin = plugins.load_plugin(source)
    assert plugin.policies == (("cursed", policy),) and plugins.plugin_of("cursed", policy) == source
    assert sys.path[0] == str(path.parent) and sys.modules[module] is plugin.module   # importable by name
    assert plugins.plugin_of("cursed", "threshold") is None


@pytest.mark.parametrize("make, fragment", [
    (lambda tmp: "", "a plugin is a module name or a path to a .py file"),
    (lambda tmp: 5, "a plugin is a module name or a path to a .py file"),
    (lambda tmp: "no_such_module_for_cursedsim", "plugin module 'no_such_module_for_cursedsim' not found"),
    (lambda tmp: "1abc", "is not a module name"),
    (lambda tmp: str(tmp / "missing.py"), "not found"),
    (lambda tmp: str(write(tmp / "bad-name.py", "")), "'bad-name' is not a module name; rename the file"),
    (lambda tmp: str(write(tmp / "json.py", "")), "but module 'json' is"),
    (lambda tmp: str(write(tmp / f"{unique()}.py", "raise ValueError('the plugin is broken')")),
     "failed to load: ValueError: the plugin is broken"),
    (lambda tmp: str(write(tmp / f"{unique()}.py", careful_source("threshold"))),
     "failed to load: UnknownPolicyError: policy name 'threshold' is a built-in policy"),
    (lambda tmp: f"{write(tmp / f'{unique()}.py', '')}:register", "has no function 'register'"),
])
def test_a_plugin_that_cannot_load_is_a_plugin_error(tmp_path, isolated, make, fragment):
    with pytest.raises(PluginError, match="plugin") as caught:
        plugins.load_plugin(make(tmp_path))
    assert fragment in str(caught.value)
    assert plugins.loaded_plugins() == []


def install_entry_points(site: Path, distribution: str, entry_points: dict[str, str]) -> None:
    """A distribution's metadata under ``site`` (as an installer leaves it) declaring ``entry_points``
    (name -> value) in group cursedsim.policies."""
    info = site / f"{distribution.replace('-', '_')}-0.1.dist-info"
    write(info / "METADATA", f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    write(info / "entry_points.txt", f"[{plugins.ENTRY_POINT_GROUP}]\n"
          + "".join(f"{name} = {value}\n" for name, value in entry_points.items()))


def test_entry_points_load_when_the_registry_is_first_used(tmp_path, monkeypatch, isolated):
    site = tmp_path / "site"
    good, bad, policy = unique(), unique(), unique("careful")
    write(site / f"{good}.py", careful_source(policy, register=False))
    write(site / f"{bad}.py", "raise RuntimeError('cannot start')\n")
    install_entry_points(site, "demo-good", {"good": f"{good}:register"})
    install_entry_points(site, "demo-bad", {"bad": bad})
    sys.path.insert(0, str(site))
    with pytest.raises(PluginError) as caught:
        get_game("cursed")
    message = str(caught.value)
    for fragment in ("plugin 'bad' failed to load: RuntimeError: cannot start", f"bad = {bad}", "demo-bad 0.1",
                     f"{plugins.DISABLE_VARIABLE}=bad", f"{plugins.DISABLE_VARIABLE}=1"):
        assert fragment in message
    with pytest.raises(PluginError, match="cannot start"):   # still, until disabled
        get_game("verflucht")
    monkeypatch.setenv(plugins.DISABLE_VARIABLE, "demo-bad")   # a distribution's name works too
    assert policy in get_game("cursed").policies
    assert [p.source for p in plugins.loaded_plugins()] == [f"{good}:register"]
    assert plugins.load_entry_points() == []   # once per process


def test_no_entry_point_loads_when_plugins_are_disabled(tmp_path, monkeypatch, isolated):
    site, module, policy = tmp_path / "site", unique(), unique("careful")
    write(site / f"{module}.py", careful_source(policy))
    install_entry_points(site, "demo-off", {"off": module})
    sys.path.insert(0, str(site))
    monkeypatch.setenv(plugins.DISABLE_VARIABLE, "1")
    assert plugins.entry_points()[0].name == "off"
    assert policy not in get_game("cursed").policies and plugins.loaded_plugins() == []
