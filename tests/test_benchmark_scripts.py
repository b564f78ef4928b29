"""The search and bound benchmarks of issue 14 run end to end (tiny sizes, nothing written to results/):
a benchmark that crashes is found here, not on the quiet machine it was meant for. No timing is checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_ismcts_benchmark_searches_every_game(tmp_path):
    out = tmp_path / "search.json"
    _run("bench_search.py", "--iterations", "2", "--games", "1", "--decisions", "2", "--out", str(out))
    results = json.loads(out.read_text())["results"]
    assert set(results) == {"cursed", "verflucht", "gifts", "covens", "village"}
    assert all(r["decisions"] >= 1 and r["decisions_per_second"] > 0 for r in results.values())


def test_clairvoyant_benchmarks_solve_games():
    text = _run("bench_clairvoyant.py", "--games", "2", "--budget", "300", "--no-write")
    assert "games_per_s" in text
    text = _run("bench_clairvoyant_verflucht.py", "--games", "2", "--budget", "30", "--players", "3", "--dry-run")
    assert "'3p'" in text and "exact_share" in text


def test_step_clone_benchmark_times_copies(tmp_path):
    out = tmp_path / "step_clone.json"
    _run("bench_step_clone.py", "--games", "verflucht", "cursed", "--budget", "0", "--out", str(out))
    games = json.loads(out.read_text())["before"]["games"]
    assert set(games) == {"verflucht", "cursed"}
    assert all(len(g["states"]) >= 3 and g["states"][-1]["k"] > 0 for g in games.values())
