"""What every benchmark script shares: best-of timing, the machine's description, and writing the
result JSON atomically with a readable echo."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cursedsim
from cursedsim.files import write_atomic

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "results" / "benchmarks"


def best_of(repeat: int, fn, clock=time.perf_counter) -> float:
    """The shortest time of ``repeat`` calls of ``fn`` on ``clock``."""
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times)


def machine(load_before: float) -> dict:
    """Load, CPU, Python and cursedsim version, date: recorded with every figure (a busy second core
    changes all of them)."""
    return {
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
        "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
        "python": platform.python_version(), "cursedsim": cursedsim.__version__,
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }


def write_result(name: str, result: dict) -> Path:
    """Write ``results/benchmarks/<name>.json`` (temp file, then rename) and print it as a table."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    target = OUT_DIR / f"{name}.json"
    write_atomic(target, json.dumps(result, indent=2) + "\n")
    width = max(map(len, result))
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")
    print(f"written to {target.relative_to(ROOT)}")
    return target


def new_process_seconds(snippet: str, env: dict | None = None) -> tuple[float, str]:
    """(seconds from interpreter start to the end of ``snippet`` in a fresh process, the digest of the
    package sources it saw: its numba cache directory). ``snippet`` prints the digest and its own time."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, check=True, env=env,
                         cwd=ROOT)
    total = time.perf_counter() - t0
    digest, seconds = out.stdout.split()
    return max(total, float(seconds)), digest


def warm_start_seconds(snippet: str, tries: int = 4) -> float:
    """A new process's time to its first result with the numba cache of the current sources in place:
    started again until two runs in a row saw the same sources (the first one fills the cache; edits to
    the package in between start a new cache)."""
    seconds, digest = new_process_seconds(snippet)
    for _ in range(tries - 1):
        again, seen = new_process_seconds(snippet)
        if seen == digest:
            return again
        seconds, digest = again, seen
    return seconds


def startup_seconds(snippet: str) -> dict:
    """A new process's time to its first result with a warm numba cache, and with an empty one (the
    compile), as the two ``new_process_*`` fields of a result."""
    with tempfile.TemporaryDirectory() as cache:
        empty = {**os.environ, "CURSEDSIM_CACHE": cache, "NUMBA_CACHE_DIR": ""}
        return {"new_process_to_first_result_s": round(warm_start_seconds(snippet), 2),
                "new_process_empty_cache_s": round(new_process_seconds(snippet, empty)[0], 2)}


def throughput(games: int, kernel_s: float, kernel_cpu_s: float, ref_gps: float, others: dict,
               target_gps: int, target_ratio: int, reference_games: int | None = None) -> dict:
    """The kernel and reference figures of a game benchmark, its other timings (``others``) and whether
    both targets (games/s per core, ratio to the reference) are met."""
    kernel_gps = games / kernel_s
    result = {"kernel_games_per_s_per_core": round(kernel_gps),
              "kernel_games_per_cpu_s": round(games / kernel_cpu_s),
              "reference_games_per_s": round(ref_gps)}
    if reference_games is not None:
        result["reference_games"] = reference_games
    return {**result, "kernel_over_reference": round(kernel_gps / ref_gps, 1), "kernel_seconds": round(kernel_s, 3),
            **others, "target_games_per_s_per_core": target_gps, "target_kernel_over_reference": target_ratio,
            "meets_targets": bool(kernel_gps >= target_gps and kernel_gps / ref_gps >= target_ratio)}


def finish(name: str, result: dict, first_result: str, no_compile: bool, load_before: float) -> dict:
    """Add the new-process timings (unless ``no_compile``) and the machine, write and echo the result."""
    if not no_compile:
        result.update(startup_seconds(first_result))
    result.update(machine(load_before))
    write_result(name, result)
    return result
