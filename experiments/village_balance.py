"""Who wins So, You've Been Cursed. in each mode, and where does the balance point of the board lie? On the
RECONSTRUCTED default board (its label name@digest is in every file) or a board file (``--board``).

Every Wizard policy against every Monster policy (the pairing decides the mode: possessed + rabid is the
0-player game, planner + rabid the Wizard player's solo game, possessed + glutton the Monster player's,
planner + glutton the duel): both sides' win rates (Wilson 95%), game length, which Panic effects fire
and from which turn; each player policy in the place of its side's automaton on the same games (paired,
Holm). Then the sensitivity to the reconstructed board in the 0-player and both solo games: boards drawn
by ``board.generate`` (every constraint holds) and the base board with its Curse or its Cure track at
other lengths, where the Wizard's win rate crosses 50%; the calibrated game's sensitivity to each of its
assumptions; how games unfold round by round, with plausibility checks. The same plan and reductions as the report
(``cursedsim.report.village``), so these files equal the report's tables for the same seed and games.
Writes into ``results/village/``: ``pairings.csv``, ``game_length.csv``, ``game_length_summary.csv``,
``panic_effects.csv``, ``player_vs_automaton.csv``, ``generated_boards.csv``, ``track_lengths.csv``,
``balance_points.csv``, ``sensitivity.csv``, ``trajectories.csv``, ``plausibility.csv``, ``balance.json``
(per mode the verdict and the balance lengths), the board files played (``boards/*.json``) and the report's
eight figures as PNG. The game count is an argument (``--games``, per run: 203 runs).
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time

from common import results_dir, shown, write_csv, write_figure, write_json  # experiments/common.py

from cursedsim.report.data import ReportChoices
from cursedsim.report.village import FIGURES, data
from cursedsim.report.village.recommend import BALANCE_BAND, verdict

GAME = "village"


def balance(d: data.VillageData) -> dict:
    """Per mode: its pairing, the Wizard's win rate with its interval and the verdict; per track and study
    mode: the length where the Wizard wins half the games (None: not within the lengths played)."""
    modes = {}
    for mode, wizard, monster in d.plan.pairings:
        row = d.pairings[(d.pairings["wizard"] == wizard) & (d.pairings["monster"] == monster)].iloc[0]
        modes[mode] = {"wizard": wizard, "monster": monster, "verdict": verdict(row["wizard_rate"]),
                       **{key: round(float(row[column]), 6) for key, column in (
                           ("wizard_rate", "wizard_rate"), ("ci_low", "wizard_ci_low"),
                           ("ci_high", "wizard_ci_high"), ("unfinished", "unfinished"))}}
    points = {f"{r.track}/{r.mode}": None if not math.isfinite(r.balance_length) else round(r.balance_length, 3)
              for r in d.balance.itertuples()}
    return {"game": GAME, "board": d.board_label, "board_reconstructed": d.board_reconstructed,
            "board_file": d.board_file, "seed": d.seed, "games_per_run": d.n_games, "balance_band": BALANCE_BAND,
            "track_lengths": d.track_lengths, "modes": modes, "balance_lengths": points}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="games per run (every pairing, board and length)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--board", default=None, help="a board file every run plays instead of the default board")
    args = parser.parse_args(argv)
    out = results_dir(GAME)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="village-runs-") as runs:
        d = data.collect(str(out), n_games=args.games, seed=args.seed, n_jobs=args.jobs, progress=False, log=print,
                         choices=ReportChoices(runs_dir=runs, board=args.board))
    print(f"{d.runs} runs, {d.games_played:,} games ({time.perf_counter() - started:.0f} s)")
    drawn = [make(d) for make in FIGURES]
    for figure in drawn:
        print(figure.reading)
    written = [write_csv(table, out / f"{name}.csv") for name, table in d.tables.items()]
    written += [write_json(balance(d), out / "balance.json")]
    written += [write_figure(figure.figure, out / f"{figure.name}.png") for figure in drawn]
    print(f"written: {shown(*written)} and the boards played in {shown(out / 'boards')}")


if __name__ == "__main__":
    main()
