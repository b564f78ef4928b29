"""Run in a fresh process by tests/test_policy_isolation.py: register two numba user policies per
game, play the named policies in the given order and print each one's frame digest as JSON.

Usage: python fresh_process_policies.py GAME N_JOBS N_GAMES POLICY[,POLICY...]
(for covens and gifts each POLICY is a pairing label such as hunter=tracker;town=coven, ";" between sides;
for gifts a bare name plays every seat).
The user policies are registered (not played) up front, so any order of user and built-in names works.
"""

from __future__ import annotations

import json
import sys

import pandas as pd
from numba import njit

import cursedsim
from cursedsim.games.cursed import policies as cpol
from cursedsim.games.cursed.state import DRAW, STOP, V_PILE
from cursedsim.games.verflucht import policies as vpol


@njit
def exact_attack(policy_id, params, rng, hands, n_players, active, display, attackers, is_group,
                 seal_allowed, seals_left, deck_left, gone_creatures, gone_items):
    """docs/extending.md's ``exact``: baseline's attack answers."""
    return vpol.baseline_attack(hands, n_players, active, attackers, is_group, seal_allowed, rng)


@njit
def exact_banish(policy_id, params, rng, hand, n_players, player, display, seals_left, deck_left,
                 gone_creatures, gone_items, last_turn):
    """Banish only with an Item of exactly the Creature's value."""
    both = display & hand
    if both == 0:
        return 0, vpol.ZERO, rng
    c = vpol.highest(both)
    return c, vpol.bit(c), rng


@njit
def lazy_banish(policy_id, params, rng, hand, n_players, player, display, seals_left, deck_left,
                gone_creatures, gone_items, last_turn):
    """Never banish voluntarily."""
    return 0, vpol.ZERO, rng


@njit
def careful_fight(policy_id, params, rng, view, opts):
    """docs/extending.md's ``careful``: threshold, but no weapon from a pile of 3 cards or fewer."""
    kind, card, target = cpol.item_rules_fight(view, opts, params, True, False)
    if kind == DRAW and view[V_PILE] <= 3:
        kind = STOP
    return kind, card, target, rng


@njit
def threshold_attack(policy_id, params, rng, view, opts, card, open_):
    """threshold's value, kind and items for an attack."""
    value, kind = cpol.threshold_value_kind(view, opts, card, open_)
    value, kind, relic, whetstone, frenzy = cpol.item_rules_attack(view, opts, card, open_, value, kind)
    return value, kind, relic, whetstone, frenzy, rng


@njit
def take_crystal(policy_id, params, rng, view, opts, card, total):
    """Spend a held Soul Crystal whenever offered."""
    return True, rng


@njit
def short_fight(policy_id, params, rng, view, opts):
    """threshold's rules, but no weapon from a pile of 6 cards or fewer."""
    kind, card, target = cpol.item_rules_fight(view, opts, params, True, False)
    if kind == DRAW and view[V_PILE] <= 6:
        kind = STOP
    return kind, card, target, rng


@njit
def keep_crystal(policy_id, params, rng, view, opts, card, total):
    """Never spend a Soul Crystal."""
    return False, rng


def register(game: str) -> None:
    """The two user policies of ``game``: verflucht exact/lazy, cursed careful/short (covens and gifts:
    none, their pairings of built-in policies are what is played)."""
    if game in ("covens", "gifts"):
        return
    if game == "verflucht":
        from cursedsim.games.verflucht.user_policies import add_numba_policy
        add_numba_policy("exact", exact_attack, exact_banish)
        add_numba_policy("lazy", exact_attack, lazy_banish, inline=False)   # the called path beside the merged
    else:
        from cursedsim.games.cursed.user_policies import add_numba_policy
        # called, not merged (inline=False): what could mix is the rebuilt kernels' symbols, the same on
        # both paths, and a merged kernel of threshold's rules compiles ~6 s longer (16 s, not 10) per process
        add_numba_policy("careful", careful_fight, threshold_attack, take_crystal,
                         params=cpol.THRESHOLD_PARAMS, param_docs=cpol.THRESHOLD_PARAM_DOCS, inline=False)
        add_numba_policy("short", short_fight, threshold_attack, keep_crystal,
                         params=cpol.THRESHOLD_PARAMS, param_docs=cpol.THRESHOLD_PARAM_DOCS, inline=False)


def digest(frame: pd.DataFrame) -> str:
    """A digest of every outcome column of ``frame`` (the policy column left out: names differ)."""
    values = frame.drop(columns=[c for c in frame.columns if c == "policy" or c.startswith("policy_")])
    values = values.astype({column: str for column in values.select_dtypes("category")})
    return format(int(pd.util.hash_pandas_object(values, index=False).sum()) & (2**64 - 1), "016x")


def main(game: str, n_jobs: int, n_games: int, order: list[str]) -> dict:
    register(game)
    players = 3 if game == "verflucht" else None
    played = {}
    for name in order:
        policy = name.replace(";", ",")
        # with workers, two chunks each (the default chunk is at least 1,000 games: one worker only)
        chunk = max(1, n_games // (2 * n_jobs)) if n_jobs > 1 else None
        frame = cursedsim.simulate(game, n_games, players=players, policy=policy, seed=5, n_jobs=n_jobs,
                                   chunk_size=chunk, progress=False)
        win = {"covens": "hunter_won", "gifts": "focus_won", "village": "wizard_won"}.get(game, "win")
        played[name] = {"digest": digest(frame), "win_rate": float(frame[win].mean())}
    return played


if __name__ == "__main__":
    game, n_jobs, n_games, order = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
    print(json.dumps(main(game, n_jobs, n_games, order)))
