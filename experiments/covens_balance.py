"""Is Curses & Covens balanced, and whose skill matters more? Every hunter policy against every town policy.

For each player count 4-6 (3-5 towns) and each town policy (random, coven, bluff), ``compare`` varies the
hunter's policy (random, largest_hand, tracker) with the town's fixed (``side="hunter"``), every run on
the same 500,000 games of one seed (common random numbers). So every cell of the 3 x 3 matrix at a
player count plays the same deals, and both sides' gains are paired differences game by game: the
hunter's (tracker minus each simpler hunter, the town fixed) and the town's (coven and bluff minus a
random town, the hunter fixed), Holm-adjusted over all of them. Writes
``results/covens/pairings.csv`` (per cell: both sides' win rates with Wilson 95% intervals, unfinished
share, mean rounds), ``results/covens/skill.csv`` (the paired gains), ``results/covens/balance.json``
(per player count: the tracker-vs-coven hunter win rate and the verdict of the report's
recommendations) and the heat-map ``results/covens/hunter_win_matrix.png`` (the report's figure 1,
drawn from these games).
"""

from __future__ import annotations

import argparse
import time
from types import SimpleNamespace

import pandas as pd
from common import results_dir, shown, write_csv, write_figure, write_json  # experiments/common.py

from cursedsim.compare import compare
from cursedsim.report.covens import figures, reduce
from cursedsim.report.covens.data import PLAN, skill_rows
from cursedsim.report.covens.recommend import BALANCE_BAND, verdict
from cursedsim.report.data import with_holm

GAME = "covens"


def run(n_games: int, seed: int, n_jobs: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The matrix rows and the paired skill gains of every player count."""
    cells, skill = [], []
    for players in PLAN.players:
        t0 = time.perf_counter()
        frames = {}
        for town in PLAN.towns:
            comparison = compare(GAME, list(PLAN.hunters), n_games, players=players, side="hunter",
                                 others={"town": town}, seed=seed, n_jobs=n_jobs, progress=False)
            for hunter in PLAN.hunters:
                frames[hunter, town] = comparison.frames[hunter][list(reduce.KEPT)]
                cells.append(reduce.cell_row(frames[hunter, town], players, hunter, town))
        skill += skill_rows(frames, players, PLAN)
        main = cells[-len(PLAN.hunters) * len(PLAN.towns):]
        best = max(main, key=lambda row: row["hunter_win_rate"])
        print(f"{players} players: hunter win rate {100 * min(r['hunter_win_rate'] for r in main):.1f}-"
              f"{100 * best['hunter_win_rate']:.1f}% over the pairings ({time.perf_counter() - t0:.0f} s)",
              flush=True)
    matrix = pd.DataFrame(cells)
    matrix.insert(0, "seed", seed)
    return matrix, with_holm(pd.DataFrame(skill))


def balance(matrix: pd.DataFrame) -> dict:
    """Per player count, the main pairing's hunter win rate with its interval and the verdict."""
    hunter, town = PLAN.main
    rows = matrix[(matrix["hunter"] == hunter) & (matrix["town"] == town)]
    return {"game": GAME, "pairing": {"hunter": hunter, "town": town}, "balance_band": BALANCE_BAND,
            "games_per_cell": int(rows["n"].iloc[0]), "seed": int(rows["seed"].iloc[0]),
            "players": {str(r.players): {"towns": int(r.towns), "hunter_win_rate": round(r.hunter_win_rate, 6),
                                         "ci_low": round(r.ci_low, 6), "ci_high": round(r.ci_high, 6),
                                         "verdict": verdict(r.hunter_win_rate)} for r in rows.itertuples()}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500_000, help="games per pairing and player count")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    out = results_dir(GAME)
    matrix, skill = run(args.games, args.seed, args.jobs)
    figure = figures.hunter_win_matrix(SimpleNamespace(plan=PLAN, matrix=matrix, n_games=args.games))
    print(figure.reading)
    written = [write_csv(matrix, out / "pairings.csv"), write_csv(skill, out / "skill.csv"),
               write_json(balance(matrix), out / "balance.json"),
               write_figure(figure.figure, out / "hunter_win_matrix.png")]
    print(f"written: {shown(*written)}")


if __name__ == "__main__":
    main()
