"""So, You've Been Cursed.: each player side's ``rollout`` against that side's best heuristic (planner for
the Wizard, glutton for the Monster), paired on the same games, in its solo mode (against the other
side's automaton) and in the duel (the other side playing its heuristic), at n = 16 and 64 (cap 8, margin 1: the clear-lead rule), on the default board
(reconstructed, its track lengths calibrated for contests: docs/rules/village.md O39) and on generated
board 3 (``board.generate(3)``, its own lengths). ``--games64 0`` skips n=64. Also games per CPU-second of the rollout (one
core, this process). Writes results/rollout/village.csv, a row per cell as it finishes.

Run: ``python experiments/village_rollout.py [--games 200] [--games64 100] [--boards default,gen3]``.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from cursedsim import stats
from cursedsim.games.village import board as B
from cursedsim.games.village import kernel as K
from cursedsim.games.village import rollout as RO
from cursedsim.games.village.policy_specs import ROLLOUT

ROOT = Path(__file__).resolve().parents[1]
SEED = 2029
#: (mode, searched side, wizard id, monster id): 2 = planner / glutton, 0 = the automaton.
CELLS = (("rabid_monster", "wizard", 2, 0), ("duel", "wizard", 2, 2),
         ("possessed_wizard", "monster", 0, 2), ("duel", "monster", 2, 2))
#: The clear-lead rule's margin (the rollout's default).
MARGIN = 1.0
BOARDS = {"default": lambda: B.board_of("default"), "gen3": lambda: B.generate(3)}


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per cell at n=16")
    parser.add_argument("--games64", type=int, default=100, help="games per cell at n=64")
    parser.add_argument("--boards", default="default,gen3")
    parser.add_argument("--out", default=str(ROOT / "results" / "rollout" / "village.csv"))
    args = parser.parse_args(argv)
    rows = []
    for board_name in args.boards.split(","):
        board = BOARDS[board_name]()
        for n, games in ((16, args.games), (64, args.games64)):
            if games <= 0:
                continue
            for mode, side_name, w, m in CELLS:
                side = 0 if side_name == "wizard" else 1
                base = K.run_chunk(SEED, 0, games, None, board, mode, w, None, m, None)
                ids, params = [w, m], [None, None]
                params[side] = [n, ids[side], 8, MARGIN]
                ids[side] = ROLLOUT
                t0 = time.process_time()
                got = RO.run_chunk(SEED, 0, games, None, board, mode, ids[0], params[0], ids[1], params[1])
                cpu = time.process_time() - t0
                a = (got["winner"] == side).astype(float)
                b = (base["winner"] == side).astype(float)
                pd_ = stats.paired_difference(a, b) if (a != b).any() else {"diff": 0.0, "ci_low": 0.0,
                                                                          "ci_high": 0.0}
                lo_r, hi_r = stats.wilson_interval(a.sum(), games)
                lo_h, hi_h = stats.wilson_interval(b.sum(), games)
                row = {"board": board_name, "mode": mode, "side": side_name, "n": n, "cap": 8, "margin": MARGIN,
                       "games": games,
                       "heuristic": "planner" if side == 0 else "glutton", "heuristic_rate": b.mean(),
                       "heuristic_low": lo_h, "heuristic_high": hi_h, "rollout_rate": a.mean(),
                       "rollout_low": lo_r, "rollout_high": hi_r, "diff": pd_["diff"], "diff_low": pd_["ci_low"],
                       "diff_high": pd_["ci_high"], "games_per_cpu_s": games / cpu,
                       "load": os.getloadavg()[0]}
                rows.append(row)
                print(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
                      flush=True)
                pd.DataFrame(rows).to_csv(args.out, index=False)
    return pd.DataFrame(rows)


if __name__ == "__main__":
    main()
