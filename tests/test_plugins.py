"""Plugins: a module named by ``--plugin``/``load_plugin`` or declared as a ``cursedsim.policies`` entry
point registers policies that every command then plays, in this process, in loky workers and on Dask.

The plugin policies here are built-in policies' readable twins (``tests/plugin_package``): at their
default parameters they must play exactly the built-in policy's games, which checks that they were
played at all, and played right, wherever they ran.
"""

from __future__ import annotations

import os
import re
import subprocess
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


# ---------------------------------------------------------------- an installed plugin, from the command line

DISTRIBUTION = "cursedsim_demo_policies"
ENTRY_POINTS = {"wide": "demo_policies.verflucht", "careful": "demo_policies.cursed:register"}


def build_wheel(folder: Path) -> Path:
    """A wheel of tests/plugin_package/demo_policies, built by hand (a zip of the package and its
    .dist-info: METADATA, WHEEL, entry_points.txt, RECORD with each file's sha256), no build backend."""
    import base64
    import hashlib
    import zipfile

    info = f"{DISTRIBUTION}-0.1.dist-info"
    files = {f"demo_policies/{path.name}": path.read_bytes()
             for path in sorted((PACKAGE / "demo_policies").glob("*.py"))}
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: 0.1\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/entry_points.txt"] = (f"[{plugins.ENTRY_POINT_GROUP}]\n"
                                         + "".join(f"{k} = {v}\n" for k, v in ENTRY_POINTS.items())).encode()
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = folder / f"{DISTRIBUTION}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A folder into which the venv's pip installed the demo plugin's wheel (no index, no network)."""
    folder = tmp_path_factory.mktemp("plugin")
    target = folder / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
                           "--disable-pip-version-check", "--target", str(target), str(build_wheel(folder))],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (target / "demo_policies" / "verflucht.py").is_file()
    return target


def cli(*args: str, cwd: Path, path: Path | None = None, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess:
    """``python -m cursedsim ARGS`` in a new process in ``cwd``, with ``path`` (if any) as PYTHONPATH."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", plugins.DISABLE_VARIABLE)}
    if path is not None:
        environment["PYTHONPATH"] = str(path)
    return subprocess.run([sys.executable, "-m", "cursedsim", *args], capture_output=True, text=True, cwd=cwd,
                          env={**environment, **(env or {})}, timeout=1200)


def ok(done: subprocess.CompletedProcess) -> str:
    """The standard output of a command that must succeed."""
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def games_of(folder: Path, policy: str | None = None):
    """The frame a run wrote to ``folder``, only ``policy``'s games if given."""
    import pandas as pd

    frame = pd.read_parquet(folder / "games.parquet")
    return frame if policy is None else frame[frame["policy"] == policy].reset_index(drop=True)


def verflucht_games(n_games: int, policy: str = "baseline", seed: int = 0):
    """This process's run of a built-in Verflucht! policy at 3 players (the command line's default)."""
    return cursedsim.simulate("verflucht", n_games, players=3, policy=policy, seed=seed, progress=False)


VERFLUCHT_OUTCOMES = list(get_game("verflucht").outcome_columns)


def test_list_shows_an_installed_plugin_s_policies_unless_disabled(installed, tmp_path):
    listing = ok(cli("list", cwd=tmp_path, path=installed))
    assert ", wide" in listing and ", careful" in listing
    verflucht = ok(cli("list", "verflucht", cwd=tmp_path, path=installed))
    assert re.search(r"^\s+wide\b", verflucht, re.MULTILINE) and "voluntary banishing: an item beats" in verflucht
    listing = ok(cli("list", cwd=tmp_path, path=installed, env={plugins.DISABLE_VARIABLE: "wide"}))
    assert ", wide" not in listing and ", careful" in listing
    listing = ok(cli("list", cwd=tmp_path, path=installed, env={plugins.DISABLE_VARIABLE: "1"}))
    assert ", wide" not in listing and ", careful" not in listing


def test_simulate_plays_an_installed_plugin_s_policy_on_two_workers(installed, tmp_path):
    """``wide`` is baseline's readable twin: on two workers it plays baseline's games exactly, and the
    built-in baseline, played next to it, is undisturbed."""
    ok(cli("simulate", "verflucht", "--policy", "wide", "--policy", "baseline", "--games", "2000", "--jobs", "2",
           "--seed", "3", "--no-progress", "--out", str(tmp_path / "run"), cwd=tmp_path, path=installed))
    expected = verflucht_games(2000, seed=3)
    assert_same_games(games_of(tmp_path / "run", "wide"), expected, VERFLUCHT_OUTCOMES)
    assert_same_games(games_of(tmp_path / "run", "baseline"), expected, VERFLUCHT_OUTCOMES)


def test_compare_sweep_tune_and_replay_play_installed_plugin_policies(installed, tmp_path):
    import json

    import pandas as pd

    ok(cli("compare", "verflucht", "--policy", "baseline", "--policy", "wide", "--policy", "wide:margin=0",
           "--games", "2000", "--jobs", "2", "--no-progress", "--out", str(tmp_path / "compare"),
           cwd=tmp_path, path=installed))
    pairs = pd.read_csv(tmp_path / "compare" / "pairs.csv").set_index("a")
    assert set(pairs["b"]) == {"baseline"}
    assert (pairs.loc["wide", ["diff", "ci_low", "ci_high"]] == 0).all()   # the same games, won alike
    assert pairs.loc["wide:margin=0", "diff"] != 0                       # the parameter reached the policy

    ok(cli("sweep", "cursed", "--policy", "careful", "--param", "careful.k=1,2", "--games", "1000", "--jobs", "2",
           "--no-progress", "--out", str(tmp_path / "sweep"), cwd=tmp_path, path=installed))
    rows = pd.read_csv(tmp_path / "sweep" / "sweep.csv").set_index("param_k")
    threshold = cursedsim.simulate("cursed", 1000, policy="threshold", progress=False)
    assert sorted(rows.index) == [1, 2] and rows.loc[2, "wins"] == threshold["win"].sum()
    assert rows.loc[1, "wins"] != rows.loc[2, "wins"]

    ok(cli("tune", "cursed", "--policy", "careful", "--space", "k=1:3", "--candidates", "2", "--games", "200",
           "--final-games", "400", "--reference", "threshold", "--no-progress", "--out", str(tmp_path / "tuned.json"),
           cwd=tmp_path, path=installed))
    tuned = json.loads((tmp_path / "tuned.json").read_text())
    assert tuned["policy"] == "careful" and 1 <= tuned["players"]["1"]["params"]["k"] <= 3

    log = ok(cli("replay", "verflucht", "--policy", "wide", "--seed", "0", "--index", "3", cwd=tmp_path,
                 path=installed))
    expected = cursedsim.replay("verflucht", seed=0, index=3, players=3, policy="baseline")
    assert "policy wide" in log and log.splitlines()[1:] == expected.splitlines()[1:]


def test_target_searches_an_installed_plugin_s_parameter(installed, tmp_path):
    """``careful.k`` for a win rate: k=2 is threshold, so its games are threshold's."""
    import pandas as pd

    ok(cli("target", "cursed", "--policy", "careful", "--vary", "k", "--values", "1,2", "--win-rate", "20",
           "--start-games", "500", "--max-games", "1000", "--jobs", "2", "--no-progress", "--out",
           str(tmp_path / "target"), cwd=tmp_path, path=installed))
    rows = pd.read_csv(tmp_path / "target" / "candidates.csv").set_index("value")
    games = int(rows.loc[2.0, "games"])
    threshold = cursedsim.simulate("cursed", games, policy="threshold", progress=False)
    assert sorted(rows.index) == [1.0, 2.0] and rows.loc[2.0, "wins"] == threshold["win"].sum()
    assert rows.loc[1.0, "wins"] != rows.loc[2.0, "wins"]


def test_report_plays_an_installed_plugin_s_policy_next_to_the_built_in_ones(installed, tmp_path):
    """``report --policy careful``: threshold's twin gets threshold's row in the report's policy table."""
    import pandas as pd

    if "--policy" not in ok(cli("report", "--help", cwd=tmp_path)):
        pytest.skip("this checkout's report command has no --policy yet")
    ok(cli("report", "cursed", "--policy", "careful", "--games", "200", "--tuned", "none", "--no-keep-runs",
           "--no-progress", "--out", str(tmp_path / "report"), cwd=tmp_path, path=installed))
    table = pd.read_csv(tmp_path / "report" / "tables" / "policies.csv").set_index("policy")
    assert table.loc["careful", "n"] == 200 and table.loc["careful", "wins"] > 0
    assert table.loc["careful"].equals(table.loc["threshold"])
    assert "careful" in (tmp_path / "report" / "report.md").read_text()


def test_a_broken_installed_plugin_is_one_line_naming_how_to_disable_it(installed, tmp_path):
    site = tmp_path / "broken"
    write(site / "broken_policies.py", "raise ImportError('needs a package that is not installed')\n")
    install_entry_points(site, "broken-policies", {"broken": "broken_policies"})
    path = Path(f"{installed}{os.pathsep}{site}")
    done = cli("simulate", "verflucht", "--policy", "wide", "--games", "100", cwd=tmp_path, path=path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("cursedsim: error: plugin 'broken' failed to load: ImportError: needs a package")
    assert f"{plugins.DISABLE_VARIABLE}=broken" in done.stderr
    ok(cli("simulate", "verflucht", "--policy", "wide", "--games", "100", "--no-progress", cwd=tmp_path, path=path,
           env={plugins.DISABLE_VARIABLE: "broken"}))


def guide_numba_example() -> str:
    """docs/extending.md's numba policy ``exact`` for Verflucht!, as a plugin module: the guide's code
    without its last line, which plays a million games."""
    code = re.findall(r"```python\n(.*?)```", (HERE.parent / "docs" / "extending.md").read_text(), re.DOTALL)[0]
    lines = code.rstrip().splitlines()
    assert lines[-1].startswith("frame = cursedsim.simulate(") and "add_numba_policy(\"exact\"" in code
    return "\n".join(lines[:-1]) + "\n"


@pytest.mark.slow
def test_a_numba_plugin_plays_the_same_games_on_two_workers_as_in_one_process(tmp_path):
    """The guide's numba policy as ``--plugin exact_plugin`` (a module in the current directory, not
    installed) with two loky workers, each compiling its own kernel, and as ``--plugin PATH`` in one
    process: the same games, not baseline's; baseline, played by the same workers, plays its own games."""
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    write(here / "exact_plugin.py", guide_numba_example())
    elsewhere.mkdir()
    ok(cli("simulate", "verflucht", "--plugin", "exact_plugin", "--policy", "exact", "--policy", "baseline",
           "--games", "2000", "--jobs", "2", "--chunk-size", "500", "--no-progress", "--out", str(tmp_path / "two"),
           cwd=here))
    ok(cli("simulate", "verflucht", "--plugin", str(here / "exact_plugin.py"), "--policy", "exact", "--games", "2000",
           "--jobs", "1", "--no-progress", "--out", str(tmp_path / "one"), cwd=elsewhere))
    two, one = games_of(tmp_path / "two", "exact"), games_of(tmp_path / "one")
    assert_same_games(two, one, VERFLUCHT_OUTCOMES)
    baseline = verflucht_games(2000)
    assert not all((two[c].to_numpy() == baseline[c].to_numpy()).all() for c in VERFLUCHT_OUTCOMES)
    assert_same_games(games_of(tmp_path / "two", "baseline"), baseline, VERFLUCHT_OUTCOMES)   # undisturbed


def test_a_plugin_file_plays_on_a_dask_local_cluster(tmp_path):
    """``--plugin PATH`` on a LocalCluster of two worker processes: baseline's games, as in this process."""
    pytest.importorskip("distributed")
    plugin = write(tmp_path / "wide_file.py", (PACKAGE / "demo_policies" / "verflucht.py").read_text())
    ok(cli("simulate", "verflucht", "--plugin", str(plugin), "--policy", "wide", "--backend", "dask", "--jobs", "2",
           "--games", "2000", "--chunk-size", "500", "--no-progress", "--out", str(tmp_path / "dask"),
           cwd=tmp_path))
    assert_same_games(games_of(tmp_path / "dask"), verflucht_games(2000), VERFLUCHT_OUTCOMES)


def test_an_unknown_plugin_is_one_line(tmp_path):
    done = cli("simulate", "verflucht", "--plugin", "no_such_plugin_module", "--policy", "wide", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("cursedsim: error: plugin module 'no_such_plugin_module' not found")


def test_the_extending_guide_plugin_runs_as_written(tmp_path):
    """docs/extending.md's plugin, saved as my_policies.py, and its command lines (with few games)."""
    text = (HERE.parent / "docs" / "extending.md").read_text()
    section = text[text.index("## Your policies from the command line: plugins"):text.index("## Another game")]
    write(tmp_path / "my_policies.py", re.findall(r"```python\n(.*?)```", section, re.DOTALL)[0])
    commands = [line.split("#")[0].split()[1:] for line in re.findall(r"```bash\n(.*?)```", section, re.DOTALL)[0]
                .splitlines() if line.startswith("cursedsim ")]
    few = {"simulate": ["--games", "300"], "compare": ["--games", "300"],
           "tune": ["--players", "3", "--candidates", "2", "--games", "100", "--final-games", "200"],
           "target": ["--start-games", "100", "--max-games", "200"]}
    assert [args[0] for args in commands] == ["list", "simulate", "compare", "tune", "target"]
    for args in commands:
        output = ok(cli(*args, *few.get(args[0], []), *(["--no-progress"] if args[0] != "list" else []),
                        cwd=tmp_path))
        assert "wide" in output, args
