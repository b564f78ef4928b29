"""Calibrate So, You've Been Cursed.'s reconstructed track lengths (issue 26): the real board is not public,
so the four per-side track lengths (rule options O35-O38, docs/rules/village.md) are chosen so that the
modes are contests with the default policies: the duel (planner vs glutton) near 50%, each solo mode's
player near 40%; the 0-player game falls where it falls.

The modes share tracks: duel = Wizard Cure x Monster Curse, rabid_monster = Wizard Cure x Rabid Curse,
possessed_wizard = Possessed Cure x Monster Curse, automata = Possessed Cure x Rabid Curse. So, in order:
(1) the duel fixes the Wizard Cure and Monster Curse lengths together (every pair within ``--spread`` of
the board's lengths, the pair nearest 50% and, among ties, nearest the board); (2) the Rabid Curse
length from the Wizard player's solo game given (1); (3) the Possessed Cure length from the Monster
player's solo game given (1). Each step scans on ``--scan-games`` games, then replays its best few on
``--games`` games (the same games for every length: common random numbers) and takes the nearest.
Finally every mode at the chosen lengths on ``--games`` games. Writes ``results/village/calibration.csv``
(every length played, each step's rows) and ``calibration.json`` (the chosen lengths and the four modes).
"""

from __future__ import annotations

import argparse
import itertools
import time

import pandas as pd
from common import results_dir, shown, write_csv, write_json  # experiments/common.py

import cursedsim
from cursedsim.stats import wilson_interval

GAME = "village"
#: The pairing that stands for each mode (docs/rules/village.md, "Modes"): (wizard policy, monster policy).
PAIRINGS = {"duel": ("planner", "glutton"), "rabid_monster": ("planner", "rabid"),
            "possessed_wizard": ("possessed", "glutton"), "automata": ("possessed", "rabid")}
#: Each calibrated mode's target: the Wizard's win rate (the Monster player's 40% is the Wizard's 60%).
TARGETS = {"duel": 0.50, "rabid_monster": 0.40, "possessed_wizard": 0.60}
CURE, CURSE = (3, 30), (3, 30)


def wizard_rate(mode: str, lengths: dict[str, int], games: int, seed: int, jobs: int) -> tuple[float, int]:
    """The Wizard's win rate in ``mode`` at ``lengths`` (rule options) on games 0..games-1, and its wins."""
    wizard, monster = PAIRINGS[mode]
    frame = cursedsim.simulate(GAME, games, policy={"wizard": wizard, "monster": monster}, options=lengths,
                               seed=seed, n_jobs=jobs, progress=False)
    wins = int(frame["wizard_won"].sum())
    return wins / games, wins


def board_lengths() -> dict[str, int]:
    """The default board's track lengths per side option (what the options' 0 means)."""
    from cursedsim.games.village.board import board_of
    board = board_of("default")
    cure, curse = dict(board.cure), {side: length for side, length, _ in board.curse}
    return {"wizard_cure_length": len(cure["wizard"]), "possessed_cure_length": len(cure["possessed"]),
            "monster_curse_length": curse["monster"], "rabid_curse_length": curse["rabid"]}


def step(name: str, mode: str, grid: list[dict[str, int]], fixed: dict[str, int], base: dict[str, int],
         args, rows: list[dict]) -> dict[str, int]:
    """Scan ``grid`` (option dicts) in ``mode`` on the scan games, replay the best few on the full games,
    return the lengths nearest the target (ties: nearest the board's lengths)."""
    target = TARGETS[mode]

    def play(lengths: dict[str, int], games: int, stage: str) -> dict:
        rate, wins = wizard_rate(mode, {**fixed, **lengths}, games, args.seed, args.jobs)
        low, high = wilson_interval(wins, games)
        row = {"step": name, "stage": stage, "mode": mode, **{**fixed, **lengths}, "games": games,
               "wizard_rate": rate, "ci_low": low, "ci_high": high, "target": target}
        rows.append(row)
        print(f"{name:>9} {stage:>5} {mode:>16} {lengths} {100 * rate:5.1f}%", flush=True)
        return row

    def distance(row: dict) -> tuple[float, int]:
        return abs(row["wizard_rate"] - target), sum(abs(row[k] - base[k]) for k in grid[0])

    scanned = sorted((play(lengths, args.scan_games, "scan") for lengths in grid), key=distance)
    final = [play({k: row[k] for k in grid[0]}, args.games, "final") for row in scanned[:args.keep]]
    best = min(final, key=distance)
    return {k: int(best[k]) for k in grid[0]}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="games of each final check (default 20,000)")
    parser.add_argument("--scan-games", type=int, default=2_000, help="games per length in a scan")
    parser.add_argument("--keep", type=int, default=3, help="best scanned lengths replayed on --games")
    parser.add_argument("--spread", type=int, default=3, help="the duel's pairs: board lengths +- this")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    base = board_lengths()
    rows: list[dict] = []
    duel_grid = [{"wizard_cure_length": c, "monster_curse_length": m} for c, m in itertools.product(
        range(max(CURE[0], base["wizard_cure_length"] - args.spread), min(CURE[1], base["wizard_cure_length"] + args.spread) + 1),
        range(CURSE[0], CURSE[1] + 1))]
    chosen = step("1 duel", "duel", duel_grid, {}, base, args, rows)
    chosen |= step("2 rabid", "rabid_monster", [{"rabid_curse_length": r} for r in range(CURSE[0], CURSE[1] + 1)],
                   {"wizard_cure_length": chosen["wizard_cure_length"]}, base, args, rows)
    chosen |= step("3 possessed", "possessed_wizard",
                   [{"possessed_cure_length": p} for p in range(CURE[0], CURE[1] + 1)],
                   {"monster_curse_length": chosen["monster_curse_length"]}, base, args, rows)
    modes = {}
    for mode in PAIRINGS:
        rate, wins = wizard_rate(mode, chosen, args.games, args.seed, args.jobs)
        low, high = wilson_interval(wins, args.games)
        modes[mode] = {"pairing": "%s vs %s" % PAIRINGS[mode], "wizard_rate": round(rate, 6),
                       "ci_low": round(low, 6), "ci_high": round(high, 6), "target": TARGETS.get(mode)}
        print(f"check {mode:>16} {100 * rate:5.1f}% [{100 * low:.1f}, {100 * high:.1f}]", flush=True)
    out = results_dir(GAME)
    csv = write_csv(pd.DataFrame(rows), out / "calibration.csv")
    doc = write_json({"game": GAME, "seed": args.seed, "games": args.games, "scan_games": args.scan_games,
                      "board_lengths": base, "chosen": chosen, "targets": TARGETS, "modes": modes,
                      "seconds": round(time.perf_counter() - started)}, out / "calibration.json")
    print("chosen:", chosen)
    print("written:", shown(csv, doc))


if __name__ == "__main__":
    main()
