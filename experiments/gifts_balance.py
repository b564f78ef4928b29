"""Does the first player of Cursed Gifts win too often, which strategy wins against which, and what is each
card kind worth? On the reconstructed default deck (its label name@digest is in every file).

With ``leader`` at every seat at 2-6 players: every seat's win rate (Wilson 95%) and seat 0's advantage,
against the fair share 1/players and against every other seat on the same games (per game 1[seat 0 won]
- 1[seat s won], paired). At 4 players, every focus policy against every field policy (the focus seat
rotating: game i at seat i mod 4): the focus win rate and its excess over 1/4. The card kinds at 4
players with ``leader``: the focus seat's win rate when dealt at least one card of the kind or not
(``focus_dealt``), and the deck without the kind (``without_card``) against the full deck on the same
500,000 games of one seed: the paired change of seat 0's win rate and of the mean turns. The same
reductions as the report (``cursedsim.report.gifts.reduce``), so these files equal the report's tables
for the same seed and games. Writes ``results/gifts/seat_win_rates.csv``,
``first_player_advantage.csv``, ``policy_matrix.csv``, ``card_dealt.csv``, ``card_removal.csv``,
``balance.json`` (per player count seat 0's verdict; the matrix's best and worst cells) and the figures
``seat_win_rates.png`` and ``policy_matrix.png`` (the report's figures 1 and 4, drawn from these games).
"""

from __future__ import annotations

import argparse
import time
from types import SimpleNamespace

import pandas as pd
from common import results_dir, shown, write_csv, write_figure, write_json  # experiments/common.py

from cursedsim import simulate
from cursedsim.games.gifts.deck import deck_of
from cursedsim.report.data import with_holm
from cursedsim.report.gifts import figures, reduce
from cursedsim.report.gifts.data import PLAN
from cursedsim.report.gifts.recommend import FIRST_PLAYER_BAND, verdict

GAME = "gifts"


def _labelled(table: pd.DataFrame, deck) -> pd.DataFrame:
    """``table`` with the deck's label and whether it is reconstructed as its first columns."""
    return pd.concat([pd.DataFrame({"deck": deck.label, "deck_reconstructed": deck.reconstructed}, index=table.index),
                      table], axis=1)


def run(n_games: int, seed: int, n_jobs: int) -> dict[str, pd.DataFrame]:
    """The seat rows, the first player's advantage, the policy matrix and the card values."""
    deck = deck_of()
    common = {"seed": seed, "n_jobs": n_jobs, "progress": False}
    seats, first, matrix, dealt, removal = [], [], [], [], []
    default = None
    for players in PLAN.players:
        t0 = time.perf_counter()
        frame = simulate(GAME, n_games, players=players, policy=PLAN.seat_policy, **common)
        frame = frame[reduce.kept(frame)]
        seats += reduce.seat_rows(frame, players)
        first += reduce.first_player_rows(frame, players)
        if players == PLAN.card_players:
            default = frame
        row = first[-players]
        print(f"{players} players: seat 0 wins {100 * row['seat0_rate']:.2f}% (fair share {100 / players:.1f}%) "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    t0 = time.perf_counter()
    p = PLAN.matrix_players
    for focus in PLAN.policies:
        for field in PLAN.fields:
            frame = simulate(GAME, n_games, players=p, policy={"focus": focus, "field": field}, **common)
            matrix.append(reduce.matrix_row(frame, p, focus, field))
    print(f"policy matrix at {p} players ({time.perf_counter() - t0:.0f} s)", flush=True)
    t0 = time.perf_counter()
    if reduce.DEALT in default:
        dealt = reduce.dealt_rows(default, deck.cards)
    for card in deck.cards:
        frame = simulate(GAME, n_games, players=PLAN.card_players, policy=PLAN.seat_policy,
                         options={"without_card": card.name}, **common)
        removal += reduce.removal_rows(frame[reduce.kept(frame)], default, card)
    print(f"card kinds at {PLAN.card_players} players ({time.perf_counter() - t0:.0f} s)", flush=True)
    removal = pd.DataFrame(removal)
    removal = pd.concat([with_holm(removal[removal["measure"] == m]) for m in ("turns", "seat0_win")],
                        ignore_index=True)
    tables = {"seat_win_rates": pd.DataFrame(seats), "first_player_advantage": with_holm(pd.DataFrame(first)),
              "policy_matrix": pd.DataFrame(matrix),
              "card_dealt": with_holm(pd.DataFrame(dealt)) if dealt else pd.DataFrame(dealt),
              "card_removal": removal}
    return {name: _labelled(table, deck) for name, table in tables.items()}


def balance(tables: dict[str, pd.DataFrame], n_games: int, seed: int) -> dict:
    """Per player count seat 0's win rate against the fair share and the verdict; the matrix's extremes."""
    first = tables["first_player_advantage"]
    fair = first[first["against"] == "fair share"]
    matrix = tables["policy_matrix"]
    best, worst = matrix.loc[matrix["excess"].idxmax()], matrix.loc[matrix["excess"].idxmin()]
    deck = deck_of()

    def cell(r) -> dict:
        return {"focus": r["focus"], "field": r["field"], "rate": round(r["rate"], 6), "ci_low": round(r["ci_low"], 6),
                "ci_high": round(r["ci_high"], 6), "excess": round(r["excess"], 6)}

    return {"game": GAME, "deck": deck.label, "deck_reconstructed": deck.reconstructed, "seed": seed,
            "games_per_run": n_games, "seat_policy": PLAN.seat_policy, "fair_band": FIRST_PLAYER_BAND,
            "players": {str(r.players): {"seat0_rate": round(r.seat0_rate, 6), "minus_fair_share": round(r.diff, 6),
                                         "ci_low": round(r.ci_low, 6), "ci_high": round(r.ci_high, 6),
                                         "verdict": verdict(r.diff)} for r in fair.itertuples()},
            "policy_matrix": {"players": PLAN.matrix_players, "best": cell(best), "worst": cell(worst)}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500_000, help="games per run")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    out = results_dir(GAME)
    tables = run(args.games, args.seed, args.jobs)
    deck = deck_of()
    view = SimpleNamespace(plan=PLAN, n_games=args.games, deck_label=deck.label,
                           deck_reconstructed=deck.reconstructed, seats=tables["seat_win_rates"],
                           first_player=tables["first_player_advantage"], matrix=tables["policy_matrix"])
    drawn = [figures.seat_win_rates(view), figures.policy_matrix(view)]
    for figure in drawn:
        print(figure.reading)
    written = [write_csv(table, out / f"{name}.csv") for name, table in tables.items()]
    written += [write_json(balance(tables, args.games, args.seed), out / "balance.json")]
    written += [write_figure(figure.figure, out / f"{figure.name}.png") for figure in drawn]
    print(f"written: {shown(*written)}")


if __name__ == "__main__":
    main()
