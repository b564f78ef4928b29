"""Peak memory of huge runs: Verflucht! games in streaming mode (``summary_only=True``) for 10^6, 10^7 and
10^8 games, and for contrast the full frame for 10^6 and 10^7. Writes results/benchmarks/memory.json.

Run: ``make bench`` (or ``python benchmarks/bench_memory.py --sizes 1e6,1e7,1e8``; ~4 minutes on 2 quiet
cores). Every run plays in a fresh process whose memory a thread samples every 0.1 s: the peak resident
set (RSS) of the parent (exact, from getrusage), of each worker, and of the whole process tree: the
parent's peak plus every worker's peak, as if all peaked at once (an upper bound; shared library pages
are counted once per process, so it overstates what the machine needs), next to the largest sum seen in
one sample and the tree's proportional set size (PSS, shared pages split between their processes). The acceptance of issue 9: the tree's peak RSS for
10^8 streamed games below 2 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time

from common import machine, write_result  # benchmarks/common.py

GAME, PLAYERS, POLICY, SEED, JOBS = "verflucht", 3, "baseline", 2026, 2
MB = 1024 * 1024

CHILD = """
import json, os, resource, sys, threading, time
import psutil
sys.path.insert(0, {bench!r})
import cursedsim
from bench_memory import sample_tree

n, summary_only = {n}, {summary_only}
me = psutil.Process()
peaks = {{"tree_rss": 0, "tree_pss": 0, "workers": {{}}}}
stop = threading.Event()
threading.Thread(target=sample_tree, args=(me, peaks, stop), daemon=True).start()
t0 = time.perf_counter()
result = cursedsim.simulate({game!r}, n, players={players}, policy={policy!r}, seed={seed}, n_jobs={jobs},
                            summary_only=summary_only, progress=False)
seconds = time.perf_counter() - t0
stop.set()
time.sleep(0.3)
row = (result.summarize() if summary_only else cursedsim.stats.summarize(
    result, measures=cursedsim.get_game({game!r}).measures)).iloc[0]
print(json.dumps({{"seconds": seconds, "parent_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  **peaks, "win_rate": float(row["win_rate"]), "n": int(row["n"])}}))
"""


def sample_tree(process, peaks: dict, stop: threading.Event, every: float = 0.1) -> None:
    """Record in ``peaks`` the largest RSS (and PSS, sampled less often) of ``process`` and its children
    together, and of any one child, until ``stop`` is set."""
    import psutil
    tick = 0
    while not stop.is_set():
        try:
            members = [process] + process.children(recursive=True)
            rss = {}
            for member in members:
                try:
                    rss[member.pid] = member.memory_info().rss
                except psutil.Error:
                    pass
            peaks["tree_rss"] = max(peaks["tree_rss"], sum(rss.values()))
            for pid, value in rss.items():
                if pid != process.pid:
                    peaks["workers"][str(pid)] = max(peaks["workers"].get(str(pid), 0), value)
            if tick % 10 == 0:   # PSS reads /proc/*/smaps: slower
                pss = 0
                for member in members:
                    try:
                        pss += member.memory_full_info().pss
                    except psutil.Error:
                        pass
                peaks["tree_pss"] = max(peaks["tree_pss"], pss)
        except psutil.Error:
            pass
        tick += 1
        stop.wait(every)


def measure(n: int, summary_only: bool) -> dict:
    """Play ``n`` games in a fresh process and return its timings and memory peaks (MiB)."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = CHILD.format(bench=here, n=n, summary_only=summary_only, game=GAME, players=PLAYERS, policy=POLICY,
                        seed=SEED, jobs=JOBS)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    data = json.loads(done.stdout.strip().splitlines()[-1])
    workers = data["workers"].values()
    # an upper bound of the tree's peak: the parent's exact peak plus every worker's own peak, as if they
    # all peaked at once (the sampled sum can miss a short peak between two samples)
    bound = data["parent_rss"] + sum(workers)
    return {"games": n, "seconds": round(data["seconds"], 1), "games_per_s": round(n / data["seconds"]),
            "peak_rss_tree_mib": round(max(bound, data["tree_rss"]) / MB),
            "peak_rss_tree_sampled_mib": round(data["tree_rss"] / MB), "peak_pss_tree_mib": round(data["tree_pss"] / MB),
            "peak_rss_parent_mib": round(data["parent_rss"] / MB),
            "peak_rss_worker_mib": round(max(workers, default=0) / MB), "workers": len(workers),
            "win_rate": round(data["win_rate"], 6)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e6,1e7,1e8", help="streamed run sizes (default: 1e6,1e7,1e8)")
    parser.add_argument("--frame-sizes", default="1e6,1e7", help="full-frame run sizes, for contrast")
    parser.add_argument("--out", default="memory", help="result name under results/benchmarks/")
    args = parser.parse_args()
    sizes = [int(float(x)) for x in args.sizes.split(",") if x]
    frame_sizes = [int(float(x)) for x in args.frame_sizes.split(",") if x]
    load = os.getloadavg()[0]
    streaming = []
    for n in sizes:
        streaming.append(measure(n, True))
        print(f"streamed {n:,}: {streaming[-1]}", file=sys.stderr)
    frames = []
    for n in frame_sizes:
        frames.append(measure(n, False))
        print(f"frame {n:,}: {frames[-1]}", file=sys.stderr)
    per_game = None
    if len(frames) >= 2:   # the slope of the parent's peak between the frame runs: what a game costs
        a, b = frames[0], frames[-1]
        per_game = round((b["peak_rss_parent_mib"] - a["peak_rss_parent_mib"]) * MB / (b["games"] - a["games"]), 1)
    largest = streaming[-1] if streaming else None
    write_result(args.out, {
        "what": f"peak memory of {GAME} runs ({PLAYERS} players, {POLICY}, seed {SEED}, n_jobs={JOBS}), each in a "
                "fresh process: streamed (summary_only=True) and, for contrast, the full frame",
        "streaming": streaming,
        "frame": frames,
        "frame_bytes_per_game": per_game,
        "largest_streamed_games": largest and largest["games"],
        "largest_streamed_peak_rss_tree_mib": largest and largest["peak_rss_tree_mib"],
        "acceptance_below_2_gib": largest is not None and largest["peak_rss_tree_mib"] < 2048,
        **machine(load),
        "max_rss_this_process_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "timestamp": time.time(),
    })


if __name__ == "__main__":
    main()
