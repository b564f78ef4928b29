"""A plugin module that is not installed (``--plugin exact_plugin`` or a path to this file): a numba
policy for Verflucht!, ``exact``, played in the kernel (the example of docs/extending.md)."""

from numba import njit

from cursedsim.games.verflucht import policies as pol
from cursedsim.games.verflucht.user_policies import add_numba_policy


@njit
def attack(policy_id, params, rng, hands, n_players, active, display, attackers, is_group,
           seal_allowed, seals_left, deck_left, gone_creatures, gone_items):
    """baseline's answer to an attack."""
    return pol.baseline_attack(hands, n_players, active, attackers, is_group, seal_allowed, rng)


@njit
def banish_exact(policy_id, params, rng, hand, n_players, player, display, seals_left, deck_left,
                 gone_creatures, gone_items, last_turn):
    """Banish the highest display Creature with an Item of exactly its value; else stop."""
    both = display & hand
    if both == 0:
        return 0, pol.ZERO, rng
    c = pol.highest(both)
    return c, pol.bit(c), rng


add_numba_policy("exact", attack, banish_exact, doc="banish only with an exact Item (a plugin's numba policy)")
