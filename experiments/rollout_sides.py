"""Does the search beat the best heuristic on every side of every game? For each game and side that has the
compiled ``rollout``, every built-in heuristic of that side and ``rollout`` at n = 16 and 64 play the same
games (the other sides their defaults); the paired difference of rollout against the best heuristic, with
its 95% interval. A game whose search runs over a policy that is not a heuristic (``BASES``: Cursed!?'s
optimal_fight, an exact fight DP) also gets rows against that base, named in the ``best_heuristic`` column.
Writes ``results/rollout/sides.csv``; runs resume from results/rollout/runs/; ``--only`` plays only those
games and keeps the other games' rows of the CSV.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from common import ROOT, shown, write_csv  # experiments/common.py

import cursedsim
from cursedsim import stats
from cursedsim.games import get_game, list_games
from cursedsim.skill import SEARCH, heuristics_of

#: Players per game (the game's default when absent).
PLAYERS = {"verflucht": 3}
#: Games left to their own experiment: So, You've Been Cursed.'s search plays 1-10 games per CPU-second
#: (experiments/village_rollout.py, results/rollout/village.csv).
ELSEWHERE = ("village",)
BUDGETS = (16, 64)
#: The search's base where it is not one of the heuristics: compared apart (its own rows) and left out of
#: the best heuristic.
BASES = {"cursed": "optimal_fight"}


def settings(games=None) -> list[tuple[str, str | None]]:
    """(game, side) of every side that has the search (of ``games`` when given)."""
    out = []
    for name in list_games():
        if name in ELSEWHERE or (games and name not in games):
            continue
        game = get_game(name)
        for side in game.side_names or (None,):
            if SEARCH in game.policies_of(side):
                out.append((name, side))
    return out


def play(name: str, side: str | None, policy: str, params: dict, games: int, seed: int, n_jobs: int,
         runs: Path) -> np.ndarray:
    game = get_game(name)
    pol = policy if side is None else {side: policy}
    par = (params or None) if side is None else {side: params}
    label = f"{name}-{side or 'all'}-{policy}" + "".join(f"-{k}{v:g}" for k, v in params.items())
    frame = cursedsim.simulate(name, games, players=PLAYERS.get(name), policy=pol, params=par, seed=seed,
                               n_jobs=n_jobs, out=runs / label, progress=False)
    column = "win" if not game.sides else f"{side}_won"
    return frame.sort_values("game_index")[column].to_numpy(np.float64)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, help="play only these games, keep the others' rows")
    args = parser.parse_args(argv)
    out = ROOT / "results" / "rollout"
    runs = out / "runs"
    rows = []
    if args.only and (out / "sides.csv").exists():
        kept = pd.read_csv(out / "sides.csv", keep_default_na=False)
        rows = kept[~kept["game"].isin(args.only)].to_dict("records")
    for name, side in settings(args.only):
        started = time.perf_counter()
        game = get_game(name)
        wins = {h: play(name, side, h, {}, args.games, args.seed, args.jobs, runs) for h in heuristics_of(game, side)}
        best = max((h for h in wins if h != BASES.get(name)), key=lambda h: wins[h].mean())
        versus = [best] + ([BASES[name]] if name in BASES else [])
        for against in versus:
            for n in BUDGETS:   # (the second comparison's rollout games are read back from runs/)
                w = play(name, side, SEARCH, {"n": float(n)}, args.games, args.seed, args.jobs, runs)
                d = stats.paired_difference(w, wins[against])
                low, high = stats.wilson_interval(int(w.sum()), w.size)
                b_low, b_high = stats.wilson_interval(int(wins[against].sum()), w.size)
                rows.append({"game": name, "side": side or "", "players": PLAYERS.get(name) or game.default_players,
                             "best_heuristic": against, "best_win_rate": wins[against].mean(), "best_ci_low": b_low,
                             "best_ci_high": b_high, "rollout_n": n, "rollout_win_rate": w.mean(),
                             "rollout_ci_low": low, "rollout_ci_high": high, "diff": d["diff"],
                             "diff_ci_low": d["ci_low"], "diff_ci_high": d["ci_high"], "games": w.size,
                             "seed": args.seed})
                print(f"{name} {side or ''}: rollout:n={n} {100 * w.mean():.1f}% vs {against} "
                      f"{100 * wins[against].mean():.1f}%: {100 * d['diff']:+.1f} [{100 * d['ci_low']:+.1f}, "
                      f"{100 * d['ci_high']:+.1f}] ({time.perf_counter() - started:.0f} s)", flush=True)
    write_csv(pd.DataFrame(rows), out / "sides.csv")
    print(f"wrote {shown(out / 'sides.csv')}")


if __name__ == "__main__":
    main()
