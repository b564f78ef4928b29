"""How often can Verflucht! be won, per player count and seal count, and which policy does best?

Plays players 1-5 x seals 0-8 x policies, ``--games`` per cell (default 200,000), and writes
``results/verflucht/seals.csv`` (win rate with its Wilson 95% interval, mean score of won games with
its standard error, mean turns, per cell) and two figures. Per-game frames are kept as Parquet chunks
under ``results/verflucht/runs/`` (not committed), so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from common import ROOT, results_dir, shown, write_csv, write_figure

import cursedsim
from cursedsim.palette import policy_color
from cursedsim.stats import summarize

OUT = ROOT / "results" / "verflucht"
POLICIES = ("random", "baseline", "smart")
PLAYERS = range(1, 6)
SEALS = range(9)


def run_cells(n_games: int, seed: int, n_jobs: int) -> pd.DataFrame:
    """One summary row per (policy, players, seals) cell."""
    rows = []
    for policy in POLICIES:
        for players in PLAYERS:
            for seals in SEALS:
                frame = cursedsim.simulate(
                    "verflucht", n_games, players=players, policy=policy, options={"seals": seals},
                    seed=seed, n_jobs=n_jobs, out=str(OUT / "runs" / f"{policy}-p{players}-s{seals}"),
                    progress=False)
                cell = summarize(frame, by=["policy", "players", "seals"])
                rows.append(cell)
                print(f"{policy:>8} players {players} seals {seals}: win {cell['win_rate'].iat[0]:7.2%}",
                      flush=True)
    return pd.concat(rows, ignore_index=True)


def plot(table: pd.DataFrame, column: str, ylabel: str, path: Path, low=None, high=None) -> None:
    """One panel per player count, one line per policy (the palette's colour, as in the report), x = seals."""
    fig, axes = plt.subplots(1, len(PLAYERS), figsize=(16, 3.6), sharey=True)
    for ax, players in zip(axes, PLAYERS):
        for policy in POLICIES:
            cell = table[(table["players"] == players) & (table["policy"] == policy)]
            y = cell[column] * (100 if column == "win_rate" else 1)
            ax.plot(cell["seals"], y, marker="o", label=policy, color=policy_color(policy))
            if low is not None:
                ax.fill_between(cell["seals"], cell[low] * 100, cell[high] * 100, alpha=0.25, lw=0,
                                color=policy_color(policy))
        ax.set_title(f"{players} player{'s' if players > 1 else ''}")
        ax.set_xlabel("seals")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(ylabel)
    axes[-1].legend()
    fig.tight_layout()
    write_figure(fig, path)
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000, help="games per cell")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    results_dir("verflucht")
    table = run_cells(args.games, args.seed, args.jobs)
    table.insert(0, "seed", args.seed)
    csv = write_csv(table, OUT / "seals.csv")
    plot(table, "win_rate", "win rate (%)", OUT / "win_rate_by_seals.png", "ci_low", "ci_high")
    plot(table, "mean_score", "mean score of won games (lower is better)", OUT / "score_by_seals.png")
    print(f"written: {shown(csv, OUT / 'win_rate_by_seals.png', OUT / 'score_by_seals.png')}")


if __name__ == "__main__":
    main()
