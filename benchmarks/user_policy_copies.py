"""The C references' policies written as a user would write them (issue 30: "with a user numba policy"):
numba functions built from the games' public policy functions, registered with ``add_numba_policy``.

Each plays the games of the built-in policy it copies (``bench_c_reference.py --user-policy`` checks it
against the C program, tests/test_benchmark_scripts.py against the built-in); timed beside the built-in,
it shows what a user's policy costs on the kernel's fast path.
"""

from __future__ import annotations

from numba import njit

from cursedsim.games.cursed import policies as cursed_pol
from cursedsim.games.verflucht import policies as verflucht_pol


@njit
def threshold_fight(policy_id, params, rng, view, opts):
    """threshold's fight decision: its item rules at its parameters."""
    kind, card, target = cursed_pol.item_rules_fight(view, opts, params, True, False)
    return kind, card, target, rng


@njit
def threshold_attack(policy_id, params, rng, view, opts, card, open_):
    """threshold's attack: its value and kind, then the item rules."""
    value, kind = cursed_pol.threshold_value_kind(view, opts, card, open_)
    value, kind, relic, whetstone, frenzy = cursed_pol.item_rules_attack(view, opts, card, open_, value, kind)
    return value, kind, relic, whetstone, frenzy, rng


@njit
def threshold_crystal(policy_id, params, rng, view, opts, card, total):
    """threshold spends every Soul Crystal that captures."""
    return True, rng


@njit
def baseline_attack(policy_id, params, rng, hands, n_players, active, display, attackers, is_group,
                    seal_allowed, seals_left, deck_left, gone_creatures, gone_items):
    """baseline's answer to an attack."""
    return verflucht_pol.baseline_attack(hands, n_players, active, attackers, is_group, seal_allowed, rng)


@njit
def baseline_banish(policy_id, params, rng, hand, n_players, player, display, seals_left, deck_left,
                    gone_creatures, gone_items, last_turn):
    """baseline's voluntary banishing."""
    c, items = verflucht_pol.baseline_banish(hand, display)
    return c, items, rng


#: The built-in policy each game's copy plays, and the copy's registered name.
COPIES = {"cursed": ("threshold", "user_threshold"), "verflucht": ("baseline", "user_baseline")}


def register(game: str) -> str:
    """Register ``game``'s copy (merged into the game loop: ``add_numba_policy``'s default); its name."""
    if game == "cursed":
        from cursedsim.games.cursed.user_policies import add_numba_policy
        add_numba_policy(COPIES[game][1], threshold_fight, threshold_attack, threshold_crystal,
                         params=cursed_pol.THRESHOLD_PARAMS, param_docs=cursed_pol.THRESHOLD_PARAM_DOCS,
                         doc="threshold, written as a user policy")
    elif game == "verflucht":
        from cursedsim.games.verflucht.user_policies import add_numba_policy
        add_numba_policy(COPIES[game][1], baseline_attack, baseline_banish, doc="baseline, written as a user policy")
    else:
        raise ValueError(f"no user-policy copy for {game!r}; games with one: {', '.join(sorted(COPIES))}")
    return COPIES[game][1]
