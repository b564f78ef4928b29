"""How often do skilled players win Verflucht!? The skill curve at 3 players (4 Seals): every heuristic and
``rollout`` at n = 1, 4, 16, 64, 256 (and x4 while it still rises, up to ``--max-n``: 256 by default, what
this machine plays in minutes) on the same games, and what
table talk beyond the rules is worth (``information`` team against private, rollout n=64, paired).

Writes ``results/verflucht/skill.csv`` (cursedsim/skill.py's table), ``results/verflucht/skill.png`` and
``results/verflucht/information.csv``. Runs resume from finished chunks (results/verflucht/runs/skill/).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from common import results_dir, shown, write_csv, write_figure  # experiments/common.py

import cursedsim
from cursedsim import stats
from cursedsim.report.figures import new_figure
from cursedsim.skill import skill_curve, write_csv as write_curve


def figure(table: pd.DataFrame):
    """Win rate against n (log scale) with 95% intervals; heuristics as horizontal lines."""
    fig = new_figure(6.4, 3.6)
    ax = fig.add_subplot()
    search = table[table["kind"] == "search"]
    ax.errorbar(search["n"], 100 * search["win_rate"],
                yerr=[100 * (search["win_rate"] - search["ci_low"]), 100 * (search["ci_high"] - search["win_rate"])],
                marker="o", capsize=3, label="rollout (over baseline)")
    for row in table[table["kind"] == "heuristic"].itertuples():
        if row.win_rate > 0:
            ax.axhline(100 * row.win_rate, linestyle="--", linewidth=1, color="grey")
            ax.annotate(row.label, (search["n"].min(), 100 * row.win_rate), textcoords="offset points",
                        xytext=(0, 3), fontsize=8, color="grey")
    ax.set_xscale("log", base=4)
    ax.set_xlabel("playouts per candidate (n)")
    ax.set_ylabel("win rate %")
    ax.set_title("Verflucht!, 3 players: win rate against search budget")
    ax.legend(loc="lower right")
    return fig


def information(games: int, seed: int, n_jobs: int, runs) -> pd.DataFrame:
    """rollout n=64 with information private and team on the same games: rates and the paired difference."""
    wins = {}
    for model in ("private", "team"):
        frame = cursedsim.simulate("verflucht", games, players=3, policy="rollout", params={"n": 64},
                                   options={"information": model}, seed=seed, n_jobs=n_jobs,
                                   out=runs / f"information_{model}", progress=False)
        wins[model] = frame.sort_values("game_index")["win"].to_numpy(np.float64)
    d = stats.paired_difference(wins["team"], wins["private"])
    rows = []
    for model, w in wins.items():
        low, high = stats.wilson_interval(int(w.sum()), w.size)
        rows.append({"information": model, "games": w.size, "win_rate": w.mean(), "ci_low": low, "ci_high": high})
    table = pd.DataFrame(rows)
    table["team_minus_private"] = d["diff"]
    table["diff_ci_low"] = d["ci_low"]
    table["diff_ci_high"] = d["ci_high"]
    table.insert(0, "seed", seed)
    return table


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-n", type=int, default=256,
                        help="the largest budget (the curve goes past 256 x4 at a time while it still rises)")
    args = parser.parse_args(argv)
    out = results_dir("verflucht")
    runs = out / "runs" / "skill"
    started = time.perf_counter()
    curve = skill_curve("verflucht", players=3, games=args.games, seed=args.seed, n_jobs=args.jobs, out=runs,
                        max_n=args.max_n,
                        progress=False, echo=lambda row: print(f"{row['label']:<16} {100 * row['win_rate']:6.2f}% "
                                                               f"({row['seconds']:.0f} s)", flush=True))
    write_curve(curve, out / "skill.csv")
    write_figure(figure(curve.table), out / "skill.png")
    print(curve.summary(), flush=True)
    table = information(args.games, args.seed, args.jobs, runs)
    write_csv(table, out / "information.csv")
    print(table.to_string(index=False), flush=True)
    print(f"{time.perf_counter() - started:.0f} s; wrote {shown(out / 'skill.csv', out / 'skill.png', out / 'information.csv')}")


if __name__ == "__main__":
    main()
