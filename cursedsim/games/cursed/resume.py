"""Resuming a Cursed!? game mid-fight, for the ``rollout`` search (rollout.py) and the step state (step.py):
the control array ``ctl``.

``kernel.play_dealt`` keeps a fight's state in local variables, so a fight cannot be copied halfway. It is
replayed instead (as So, You've Been Cursed.'s turns, village/kernel.py): with ``ctl[C_ON]`` the kernel
saves the position at the top of each round (``save``: the zones, counters, items and both streams, before
the items between fights and the next monster), and a later call resumes from it (``C_RESUME``, ``load``)
with the fight's decisions taken so far as a script (``steer``): at each fight decision point the policy is
asked as always (its stream advances as in its own game, optimal_fight's pending attack is set) and the
script's entry is taken instead. Past the script the real game halts (``C_HALT``), recording the base
policy's choice and what the candidates need; a playout (``C_BRANCH``) takes the script's last entry,
the candidate, after laying out what the decider cannot see anew (``branch``), and plays on; with
``C_CUT`` it halts at the next round's top (its position saved), to finish with another policy.

The step state (``step.ArrayState``) runs the real game under ``C_STEP``: every question of the engine (a
fight decision point, one between fights, an attack's choices, a Soul Crystal offer) takes the script's
next entry (``take``), or halts with the question and the position written into ``ctl`` (``dump``); the
souls are noted in capture order (``note_soul``), and a determinisation drawn at a question is kept as
the pile's order and deck stream to put in place when the replay reaches it (``C_SETS``). The kernel's own
policy is still asked at each question; its answers are not taken.

Every other run passes ``ctl=None``: numba prunes the control's branches from that compile of
``play_dealt``, which stays the code (and the speed) it was; the rollout's compile is a second one.
"""

from __future__ import annotations

import numpy as np
from numba import int64, njit, uint64

from cursedsim.bits import ONE, ZERO, bit, lowest
from cursedsim.games.cursed import optimal_kernel as ofk
from cursedsim.games.cursed.policies import OPTIMAL_FIGHT
from cursedsim.games.cursed.rules import N_CARDS
from cursedsim.games.cursed.state import (
    N_ZONES, PILE, V_ATTACK_OK, V_DISCARD_CARDS, V_ITEMS, V_PILE, V_STORED, V_USABLE, V_WHET_TARGETS,
)
from cursedsim.rng import below_t, rollout_stream, seed_tuple

# ---- control slots
C_ON = 0          # control on (else the kernel reads nothing else)
C_RESUME = 1      # start from the saved position, not from the arguments
C_SAVE = 2        # save the position at each round's top past the script (and empty the script)
C_CUT = 3         # halt at the first round's top past the script (after saving)
C_HALT = 4        # halt at the first fight decision point past the script
C_HALTED = 5      # set by the kernel when it halted
C_N = 6           # script entries
C_POS = 7         # script entries taken
C_BRANCH = 8      # a playout: the last entry is the candidate, taken after ``branch``
C_PEEK = 9        # the clairvoyant variant: the playout keeps the real pile order and deck stream
C_SCRAMBLE = 10   # the hidden-information test: at the branch, first permute the pile and change the deck
                  # stream (key > 0)
C_SEED = 11       # the run's seed (bits), the game, the decision and the playout: the playout's stream keys
C_INDEX = 12
C_DECISION = 13
C_PLAYOUT = 14
C_BASE = 15       # at a halt: the policy's own choice (kind, card, target)
C_VIEW = 18       # at a halt: what the candidates are listed from (V_ATTACK_OK, ... below)
N_HALT_VIEW = 7
# ---- the saved position
P_PILE = 32
P_DISCARD = 33
P_DISCARD_CARDS = 34
P_ITEMS = 35
P_STORED = 36
P_SOULS = 37
P_STARTING = 38
P_PENDING = 39
P_ROUNDS = 40
P_DAMAGE = 41
P_DRAWN = 42
P_BUSTS = 43
P_START_ITEM = 44
P_RNG_DECK = 48
P_RNG_POLICY = 52
# ---- the script: (kind, card, target) per entry
C_SCRIPT = 64
#: Script entries per fight, at most (a fight has at most ~30 decision points: every draw is one).
MAX_SCRIPT = 96
C_ZONES = C_SCRIPT + 3 * MAX_SCRIPT
# ---- the step state (``step.ArrayState``, ``C_STEP``): every question of the engine is a script entry
C_STEP = C_ZONES + N_ZONES   # step mode: the fight, between-fights, attack and crystal questions all halt
C_QUESTION = C_STEP + 1      # at a halt: which question (Q_*), then its card and its argument (the open
C_QCARD = C_STEP + 2         # choices' bits of an attack, the total of a crystal offer)
C_QARG = C_STEP + 3
C_SOULS = C_STEP + 4         # the souls captured, in capture order (N_CARDS slots)
C_NOW = C_SOULS + N_CARDS    # at a halt: the position (D_* below), for the step state's table
C_SETS = C_NOW + 32          # determinisations: count, then per set (position, pile size, pile, deck stream)
MAX_SETS = 16
SET_SIZE = 2 + N_CARDS + 4
N_CTL = C_SETS + 1 + MAX_SETS * SET_SIZE

#: The questions of the step state (``C_QUESTION``): none (the game ran to its end), a fight decision
#: point, one between fights, an attack's choices, a Soul Crystal offer; END_FIGHT: the game ended in the
#: final monster's fight, whose position was kept (``C_NOW``).
Q_NONE = 0
Q_FIGHT = 1
Q_BETWEEN = 2
Q_ATTACK = 3
Q_CRYSTAL = 4
Q_END_FIGHT = 5
#: ``C_NOW + D_*``: the position at a halt (the zones hold the ordered piles).
(D_PILE, D_DISCARD, D_DISCARD_CARDS, D_ITEMS, D_STORED, D_SOULS, D_ROUNDS, D_DAMAGE, D_DRAWN, D_BUSTS,
 D_START_ITEM, D_MONSTER, D_IS_MIMIC, D_POWER, D_TRAIT, D_CHEST, D_TOTAL, D_ATTACKS, D_TRAIT_SPENT, D_BLOCKED,
 D_ARMED, D_WHETTABLE, D_WEAPONS, D_USED, D_BETWEEN) = range(25)

#: Sub-streams of a playout (``rng.rollout_stream``): its deck stream, its policy stream, the pile's new
#: order, the hidden-information test's scramble.
SUB_DECK = 0
SUB_POLICY = 1
SUB_DEAL = 2
SUB_SCRAMBLE = 3


@njit(cache=True, _nrt=True)
def save(zones, ctl, n_pile, n_discard, discard_cards, items, stored, souls, starting_left, pending_mimic, rounds,
         damage_taken, weapons_drawn, busts, start_item, rng_deck, rng_pol):
    """The position at a round's top into ``ctl`` (the zones copied whole: the used-item counts too); the
    script emptied, a new fight's starts here."""
    ctl[C_ZONES:C_ZONES + N_ZONES] = zones[:N_ZONES]
    ctl[P_PILE] = n_pile
    ctl[P_DISCARD] = n_discard
    ctl[P_DISCARD_CARDS] = int64(discard_cards)
    ctl[P_ITEMS] = int64(items)
    ctl[P_STORED] = int64(stored)
    ctl[P_SOULS] = souls
    ctl[P_STARTING] = starting_left
    ctl[P_PENDING] = pending_mimic
    ctl[P_ROUNDS] = rounds
    ctl[P_DAMAGE] = damage_taken
    ctl[P_DRAWN] = weapons_drawn
    ctl[P_BUSTS] = busts
    ctl[P_START_ITEM] = start_item
    for w in range(4):
        ctl[P_RNG_DECK + w] = int64(rng_deck[w])
        ctl[P_RNG_POLICY + w] = int64(rng_pol[w])
    ctl[C_N] = 0
    ctl[C_POS] = 0
    ctl[C_SETS] = 0


@njit(cache=True, _nrt=True)
def load(zones, ctl):
    """The saved position: the zones restored; (pile, discard, discard contents, items, stored, souls,
    starting items left, pending Mimic!, rounds, damage taken, weapons drawn, busts, start item, deck
    stream, policy stream)."""
    zones[:N_ZONES] = ctl[C_ZONES:C_ZONES + N_ZONES]
    rng_deck = (uint64(ctl[P_RNG_DECK]), uint64(ctl[P_RNG_DECK + 1]), uint64(ctl[P_RNG_DECK + 2]),
                uint64(ctl[P_RNG_DECK + 3]))
    rng_pol = (uint64(ctl[P_RNG_POLICY]), uint64(ctl[P_RNG_POLICY + 1]), uint64(ctl[P_RNG_POLICY + 2]),
               uint64(ctl[P_RNG_POLICY + 3]))
    return (ctl[P_PILE], ctl[P_DISCARD], uint64(ctl[P_DISCARD_CARDS]), uint64(ctl[P_ITEMS]), uint64(ctl[P_STORED]),
            ctl[P_SOULS], ctl[P_STARTING], ctl[P_PENDING], ctl[P_ROUNDS], ctl[P_DAMAGE], ctl[P_DRAWN], ctl[P_BUSTS],
            ctl[P_START_ITEM], rng_deck, rng_pol)


@njit(cache=True, inline="always")
def shuffle_pile(zones, n, rng):
    """Fisher-Yates on the pile's ``n`` cards (``kernel.shuffle``'s draws)."""
    for i in range(n - 1, 0, -1):
        j, rng = below_t(rng, i + 1)
        a = zones[PILE + i]
        zones[PILE + i] = zones[PILE + j]
        zones[PILE + j] = a
    return rng


@njit(cache=True, _nrt=True)
def branch(zones, ctl, n_pile):
    """A playout leaves the real game: the pile laid out anew from its contents (ascending ids, then
    shuffled with the playout's own stream: it depends on the pile's composition only, never its order)
    and the playout's own deck and policy streams; (deck stream, policy stream). ``C_PEEK``: the real
    order and deck stream are kept (clairvoyant). ``C_SCRAMBLE``: first the pile permuted and the deck
    stream changed, what the hidden-information test changes."""
    seed = uint64(ctl[C_SEED])
    index = ctl[C_INDEX]
    decision = ctl[C_DECISION]
    playout = ctl[C_PLAYOUT]
    rng_deck = (ZERO, ZERO, ZERO, ZERO)   # (peek without scramble: the caller keeps the real stream)
    if ctl[C_SCRAMBLE] > 0:
        rng_deck = seed_tuple(seed, index, rollout_stream(decision, ctl[C_SCRAMBLE], np.int64(SUB_SCRAMBLE)))
        rng_deck = shuffle_pile(zones, n_pile, rng_deck)
    if not ctl[C_PEEK]:
        cards = ZERO
        for i in range(n_pile):
            cards |= bit(zones[PILE + i])
        for i in range(n_pile):
            c = lowest(cards)
            cards &= cards - ONE
            zones[PILE + i] = c
        shuffle_pile(zones, n_pile, seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_DEAL))))
        rng_deck = seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_DECK)))
    rng_pol = seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_POLICY)))
    return rng_deck, rng_pol


@njit(cache=True, _nrt=True)
def steer(zones, ctl, n_pile, kind, card, target, view, rng_deck, rng_pol, memo, opts, params, policy_id,
          n_weapons, n_used):
    """At a fight decision point under control, after the policy chose (kind, card, target): the script's
    entry when one is left (after ``branch`` for a playout's candidate), else a halt (the real game) or the
    policy's choice. (halt, kind, card, target, deck stream, policy stream)."""
    pos = ctl[C_POS]
    if pos < ctl[C_N]:
        entry = C_SCRIPT + 3 * pos
        kind = ctl[entry]
        card = ctl[entry + 1]
        target = ctl[entry + 2]
        ctl[C_POS] = pos + 1
        if memo is not None:   # pruned when None (a run without the DP)
            if policy_id == OPTIMAL_FIGHT:
                ofk.take_action(memo, view, opts, params, int64(n_weapons), int64(n_used), kind)
        if ctl[C_BRANCH] and pos + 1 == ctl[C_N]:
            new_deck, rng_pol = branch(zones, ctl, n_pile)
            if not ctl[C_PEEK] or ctl[C_SCRAMBLE] > 0:
                rng_deck = new_deck
        return False, kind, card, target, rng_deck, rng_pol
    if ctl[C_HALT]:
        ctl[C_HALTED] = 1
        ctl[C_BASE] = kind
        ctl[C_BASE + 1] = card
        ctl[C_BASE + 2] = target
        ctl[C_VIEW] = view[V_ATTACK_OK]
        ctl[C_VIEW + 1] = view[V_PILE]
        ctl[C_VIEW + 2] = int64(view[V_ITEMS])
        ctl[C_VIEW + 3] = int64(view[V_STORED])
        ctl[C_VIEW + 4] = int64(view[V_DISCARD_CARDS])
        ctl[C_VIEW + 5] = int64(view[V_USABLE])
        ctl[C_VIEW + 6] = int64(view[V_WHET_TARGETS])
        return True, kind, card, target, rng_deck, rng_pol
    return False, kind, card, target, rng_deck, rng_pol


@njit(cache=True, _nrt=True)
def append(ctl, kind, card, target):
    """A decision appended to the script (an error past ``MAX_SCRIPT`` entries)."""
    n = ctl[C_N]
    if n >= MAX_SCRIPT:
        raise ValueError("rollout: more decision points in one fight than the script holds")
    ctl[C_SCRIPT + 3 * n] = kind
    ctl[C_SCRIPT + 3 * n + 1] = card
    ctl[C_SCRIPT + 3 * n + 2] = target
    ctl[C_N] = n + 1


# ------------------------------------------------------------------ the step state (``C_STEP``)

@njit(cache=True, _nrt=True)
def take(zones, ctl, n_pile, rng_deck):
    """A question under step mode: first the determinisations made at this point (the pile's order and
    the deck stream they drew), then the script's entry when one is left (it is taken), else a halt.
    (halt, the entry's three values, deck stream)."""
    pos = ctl[C_POS]
    for s in range(ctl[C_SETS]):
        at = C_SETS + 1 + s * SET_SIZE
        if ctl[at] == pos:
            if ctl[at + 1] != n_pile:
                raise ValueError("step: a determinisation does not fit the pile it is replayed on")
            zones[PILE:PILE + n_pile] = ctl[at + 2:at + 2 + n_pile]
            rng_deck = (uint64(ctl[at + 2 + N_CARDS]), uint64(ctl[at + 3 + N_CARDS]), uint64(ctl[at + 4 + N_CARDS]),
                        uint64(ctl[at + 5 + N_CARDS]))
    if pos < ctl[C_N]:
        entry = C_SCRIPT + 3 * pos
        ctl[C_POS] = pos + 1
        return False, ctl[entry], ctl[entry + 1], ctl[entry + 2], rng_deck
    ctl[C_HALTED] = 1
    return True, int64(0), int64(0), int64(0), rng_deck


@njit(cache=True, _nrt=True)
def dump(ctl, question, qcard, qarg, n_pile, n_discard, discard_cards, items, stored, souls, rounds, damage_taken,
         weapons_drawn, busts, start_item, monster, is_mimic, power, trait, chest, total, attacks, trait_spent,
         blocked, armed, whettable, n_weapons, n_used, between):
    """The position at a halt (or at the end in the final monster's fight) into ``ctl`` for the step
    state: the question and every counter the reference table shows (the zones keep the piles)."""
    ctl[C_QUESTION] = question
    ctl[C_QCARD] = qcard
    ctl[C_QARG] = qarg
    ctl[C_NOW + D_PILE] = int64(n_pile)
    ctl[C_NOW + D_DISCARD] = int64(n_discard)
    ctl[C_NOW + D_DISCARD_CARDS] = int64(discard_cards)
    ctl[C_NOW + D_ITEMS] = int64(items)
    ctl[C_NOW + D_STORED] = int64(stored)
    ctl[C_NOW + D_SOULS] = int64(souls)
    ctl[C_NOW + D_ROUNDS] = int64(rounds)
    ctl[C_NOW + D_DAMAGE] = int64(damage_taken)
    ctl[C_NOW + D_DRAWN] = int64(weapons_drawn)
    ctl[C_NOW + D_BUSTS] = int64(busts)
    ctl[C_NOW + D_START_ITEM] = int64(start_item)
    ctl[C_NOW + D_MONSTER] = int64(monster)
    ctl[C_NOW + D_IS_MIMIC] = int64(is_mimic)
    ctl[C_NOW + D_POWER] = int64(power)
    ctl[C_NOW + D_TRAIT] = int64(trait)
    ctl[C_NOW + D_CHEST] = int64(chest)
    ctl[C_NOW + D_TOTAL] = int64(total)
    ctl[C_NOW + D_ATTACKS] = int64(attacks)
    ctl[C_NOW + D_TRAIT_SPENT] = int64(trait_spent)
    ctl[C_NOW + D_BLOCKED] = int64(blocked)
    ctl[C_NOW + D_ARMED] = int64(armed)
    ctl[C_NOW + D_WHETTABLE] = int64(whettable)
    ctl[C_NOW + D_WEAPONS] = int64(n_weapons)
    ctl[C_NOW + D_USED] = int64(n_used)
    ctl[C_NOW + D_BETWEEN] = int64(between)


@njit(cache=True, _nrt=True)
def note_soul(ctl, souls, monster):
    """A soul captured (``souls`` now): its card in capture order, for the step state's table."""
    ctl[C_SOULS + souls - 1] = monster
