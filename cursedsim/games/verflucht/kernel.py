"""The numba engine of Verflucht!: the procedure of docs/rules/verflucht.md over flat state.

One function per rule step (deal, attack check, attack resolution, Seal, voluntary banishing, last
turns, final Seals); ``play_chunk`` plays games ``start .. start+count-1`` of a run and writes one outcome
per game. The engine checks every policy decision and raises on an illegal one.

Speed (~900,000 games/s per core at 3 players with ``baseline``; docs/architecture.md, "Kernels"):
the state of a game lives in local variables of ``play_game``: counters, bitmasks, the active
player's hand and the random streams as state tuples. Step functions take and return these values,
so no array crosses a call in the hot path (every array argument costs numba two atomic
reference-count operations). Arrays live only in ``play_game``: the face-down cards, ``int64[80]``,
whose first ``n_deck`` entries are still face down (a draw picks one of them at random and moves the
last into its place), and the hands of all players (policies get them as a tuple). Per turn the loop
does as little as it can, since a game is ~66 turns and ~8 attacks:

- a face-down card is its value with ``ITEM_FLAG`` set for an Item, so a draw is a mask and a shift,
  and the card goes to the hand or the display by mask (no branch on a coin flip);
- only what a turn changes is kept in the loop: turns, Seals used and the drawer are derived at the
  end; the hands array is indexed unsigned (no negative-index fix-up); voluntary banishing's
  "something to banish and Items to pay" test is one branch;
- tuple entries by run-time player index go through ``bits.tuple_get`` (a load from the stack)
  instead of numba's ``switch`` over the index (an indirect jump, often mispredicted); an attack's
  plan is checked per player only when it is not a plain Seal, and the Items spent are removed from
  every hand at once (hands are disjoint);
- with no Seal left, whether Items can banish every attacker is ``plan_exists``: at most three
  attackers, nested loops over players, no arrays.

Every change of this kind must leave every game as it was: a fingerprint of the outcome arrays over
all player counts, policies and rule options, before and after (and tests/test_verflucht_differential.py).
"""

from __future__ import annotations


import numpy as np
from numba import int64, njit, uint64
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from cursedsim.bits import ONE, ZERO, bit, count, has, highest, lowest, span, total, tuple_get
from cursedsim.games.verflucht import policies as pol
from cursedsim.games.verflucht.rules import (
    DISPLAY_LIMIT, END_GROUP, END_SIXTH, END_WIN, FIRST_ITEM_CODE, LOST_SCORE, MAX_PLAYERS, N_CARDS,
)
from cursedsim.games.verflucht.state import OPT_DRAWER_LAST, OPT_PARTIAL, OPT_SEALS, OPT_VOLUNTARY_SEAL
from cursedsim.kernel_rebuild import rebuild
from cursedsim.rng import STREAM_DECK, STREAM_POLICY, below_t, seed_tuple

#: Voluntary banishings asked of one player in one turn, at most (a policy that never stops is a bug).
MAX_BANISHINGS = 64

#: Outcome columns of a game, in order, with the dtype the kernel fills.
OUTCOME_DTYPES = {"win": np.bool_, "score": np.int16, "turns": np.int16, "seals_used": np.int8,
                  "end": np.int8, "attacks": np.int16}
OUTCOME_COLUMNS = tuple(OUTCOME_DTYPES)


#: The kernel's face-down cards are values with this bit set for an Item: a draw reads the value and
#: the kind without arithmetic. Position for position the same cards as the rules' codes 0-79.
ITEM_SHIFT = 6
ITEM_FLAG = 1 << ITEM_SHIFT


@njit(cache=True)
def deal(deck):
    """Set-up: all 80 cards face down, in code order (the Creatures 1-40, then the Items 1-40, each
    as ``value`` or ``value | ITEM_FLAG``). Their order means nothing: every draw picks one of the
    face-down cards at random ("put them on the table all jumbled together")."""
    for i in range(N_CARDS):
        deck[i] = i + 1 if i < FIRST_ITEM_CODE else (i - FIRST_ITEM_CODE + 1) | ITEM_FLAG


@njit(cache=True, inline="always")
def attackers_after_adding(display, n_display, value):
    """Step 2: (attackers, is_group) once Creature ``value`` joined the display. The group is the run
    of consecutive values around it (its ends found by counting the ones above and below ``value``
    in one instruction each); without one, a sixth Creature makes the highest attack."""
    up = trailing_zeros(~(display >> uint64(value)))          # value and the run above it
    down = leading_zeros(~(display << uint64(63 - value)))    # value and the run below it
    if up + down > 2:
        return span(value - int64(down) + 1, value + int64(up) - 1), True
    if n_display > DISPLAY_LIMIT:
        return bit(highest(display)), False
    return ZERO, False


@njit(cache=True)
def shuffle_back(deck, n_deck, creatures):
    """A Seal's Creatures go back among the face-down cards (appended in ascending value; draws pick
    at random, so no shuffle is needed). Returns the new number of face-down cards."""
    rest = creatures
    while rest != ZERO:
        deck[n_deck] = lowest(rest)
        rest &= rest - ONE
        n_deck += 1
    return n_deck


@njit(cache=True, inline="always")
def check_plan(hands, take, use, n_players, active, attackers, is_group, must_cover):
    """Validate a banishing plan against the rules; returns the attackers it banishes. A plan
    without a Seal (``must_cover``) has to banish every attacker. (``tuple_get``: a tuple entry by
    run-time index without numba's ``switch``.)"""
    covered = ZERO
    for p in range(len(take)):
        taken = tuple_get(take, p)
        spent = tuple_get(use, p)
        if taken == ZERO:
            if spent != ZERO:
                raise ValueError("policy spends items without banishing a creature")
            continue
        if p >= n_players:
            raise ValueError("policy names a player who is not in the game")
        if not is_group and p != active:
            raise ValueError("only the active player may answer a sixth-creature attack")
        if taken & ~attackers != ZERO:
            raise ValueError("policy banishes a creature that is not attacking")
        if taken & covered != ZERO:
            raise ValueError("each creature must be banished by a single player")
        if spent & ~tuple_get(hands, p) != ZERO:
            raise ValueError("policy spends items that are not in the player's hand")
        if total(spent) < total(taken):
            raise ValueError("items must sum to at least the creatures they banish")
        covered |= taken
    if must_cover and covered != attackers:
        raise ValueError("the plan leaves attackers and the policy did not use a Seal")
    return covered


@njit(cache=True)
def plan_exists(hands, n_players, active, attackers, is_group):
    """Whether Items can banish every attacker: exactly the ``found`` of ``pol.assign_by_totals``
    (attackers assigned to eligible players, each player's whole-hand total at least the Creatures
    assigned to them), without its arrays. An attack has at most three attackers (the display holds
    no group and at most five Creatures between turns), so the assignments are three nested loops;
    a larger set goes to ``assign_by_totals``."""
    k = count(attackers)
    if k == 0:
        return True
    if k > 3:
        found, _ = pol.assign_by_totals(hands, n_players, active, attackers, is_group)
        return found
    if not is_group:  # only the active player answers a sixth-creature attack
        return total(tuple_get(hands, active)) >= total(attackers)
    caps = (total(hands[0]), total(hands[1]), total(hands[2]), total(hands[3]), total(hands[4]))
    c0 = highest(attackers)
    rest = attackers & ~bit(c0)
    c1 = highest(rest)  # -1 when absent
    c2 = highest(rest & ~bit(c1)) if c1 > 0 else -1
    for a in range(n_players):
        left_a = tuple_get(caps, a) - c0
        if left_a < 0:
            continue
        if c1 < 0:
            return True
        for b in range(n_players):
            left_b = (left_a if b == a else tuple_get(caps, b)) - c1
            if left_b < 0:
                continue
            if c2 < 0:
                return True
            for d in range(n_players):
                left_d = left_b if d == b else (left_a if d == a else tuple_get(caps, d))
                if left_d >= c2:
                    return True
    return False


@njit(cache=True, inline="always")
def ask_for_plan(hands, n_players, active, display, attackers, is_group, opts, seals_left, n_deck,
                 gone_creatures, gone_items, policy_id, params, rng_pol):
    """Step 3a: the policy's answer to an attack, checked and paid: returns (hands, attackers
    banished by Items, Items spent, policy stream). Attackers left over must be answered by a Seal.
    The Items spent leave their owners' hands; since every Item is in one hand only and each
    player's Items were checked to be in that player's hand, removing ``spent`` from every hand does
    exactly that (``play_game`` does it on its hands array)."""
    seal_allowed = True
    if seals_left == 0 or not opts[OPT_VOLUNTARY_SEAL]:
        # no choice but to banish when items can: with no Seal left, or a Seal only as a last resort
        seal_allowed = not plan_exists(hands, n_players, active, attackers, is_group)
    wants_seal, take, use, rng_pol = pol.decide_attack(
        policy_id, params, rng_pol, hands, n_players, active, display, attackers, is_group,
        seal_allowed, seals_left, n_deck, gone_creatures, gone_items)
    spent = use[0] | use[1] | use[2] | use[3] | use[4]
    taken = take[0] | take[1] | take[2] | take[3] | take[4]
    if wants_seal:
        if not seal_allowed:
            raise ValueError("a Seal is not allowed while items can banish every attacker (no Seal left,"
                             " or voluntary_seal off)")
        if not opts[OPT_PARTIAL]:
            if spent != ZERO or taken != ZERO:
                raise ValueError("items and a Seal on one attack need partial_items_before_seal")
    if spent == ZERO and taken == ZERO:  # an empty plan (a plain Seal): nothing to check per player
        covered = ZERO
        if not wants_seal:
            raise ValueError("the plan leaves attackers and the policy did not use a Seal")
    else:
        covered = check_plan(hands, take, use, n_players, active, attackers, is_group, not wants_seal)
    if wants_seal and covered == attackers:
        raise ValueError("a Seal on an attack whose plan already banishes every attacker")
    after = (hands[0] & ~spent, hands[1] & ~spent, hands[2] & ~spent, hands[3] & ~spent,
             hands[4] & ~spent)
    return after, covered, spent, rng_pol


@njit(cache=True, inline="always")
def voluntary_banishing(hand, n_players, player, display, seals_left, n_deck, gone_creatures,
                        gone_items, last_turn, policy_id, params, rng_pol):
    """Step 4 (and the last turns): ``player``, holding ``hand``, banishes display Creatures one at a
    time, each with Items from that hand summing to at least its value, until the policy stops.
    Returns (hand, display, gone_creatures, gone_items, policy stream)."""
    for _ in range(MAX_BANISHINGS):
        if (display == ZERO) | (hand == ZERO):  # one branch, not two
            break
        creature, items, rng_pol = pol.decide_banish(
            policy_id, params, rng_pol, hand, n_players, player, display, seals_left, n_deck,
            gone_creatures, gone_items, last_turn)
        if creature == 0:
            break
        if not has(display, creature):
            raise ValueError("policy banishes a creature that is not in the display")
        if items & ~hand != ZERO:
            raise ValueError("policy spends items that are not in the player's hand")
        if total(items) < creature:
            raise ValueError("items must sum to at least the creature they banish")
        display &= ~bit(creature)
        gone_creatures |= bit(creature)
        hand &= ~items
        gone_items |= items
    else:
        raise ValueError("policy kept banishing past the limit of one turn")
    return hand, display, gone_creatures, gone_items, rng_pol


@njit(cache=True)
def final_seals(display, seals_left):
    """Each green Seal left discards the lowest Creature in the display."""
    for _ in range(seals_left):
        if display == ZERO:
            break
        display &= display - ONE
    return display


@njit(cache=True)
def play_game(deck, hands, seed, index, n_players, opts, policy_id, params):
    """Play game ``index`` of the run ``seed`` to its end. Returns (score, turns, seals_used, end,
    attacks); the score is LOST_SCORE for a lost game. ``hands`` (uint64[MAX_PLAYERS]) is scratch
    space for the hands of the players who are not active; policies get them as a tuple."""
    deal(deck)
    # int64, not int literals, for the arguments of compiled calls: numba compiles a callee once per literal
    # (also for a variable that starts at one, as ``active``)
    rng_deck = seed_tuple(seed, index, np.int64(STREAM_DECK))
    rng_pol = seed_tuple(seed, index, np.int64(STREAM_POLICY))
    hands[:] = ZERO
    n_deck = N_CARDS
    display = ZERO
    gone_creatures = ZERO
    gone_items = ZERO
    seals_left = opts[OPT_SEALS]
    returned = 0  # Creatures a Seal put back face down: turns = N_CARDS + returned - n_deck
    attacks = 0
    active = np.int64(0)
    end = END_WIN
    hand = ZERO  # the active player's hand; ``hands`` holds the others' between their turns
    while n_deck > 0:
        # step 1: draw. Written without a branch on the card's kind (Item or Creature is a coin
        # flip the CPU cannot predict): the card's bit goes to the hand or to the display by mask.
        j, rng_deck = below_t(rng_deck, n_deck)
        n_deck -= 1
        drawn = deck[j]
        deck[j] = deck[n_deck]
        value = drawn & (ITEM_FLAG - 1)
        card = bit(value)
        item_mask = ZERO - uint64(drawn >> ITEM_SHIFT)  # all ones for an Item, else zero
        hand |= card & item_mask
        display |= card & ~item_mask
        # steps 2-3: attack check and resolution (an Item forms no group and leaves the display
        # at five at most, so the check finds no attackers for it)
        attackers, is_group = attackers_after_adding(display, count(display), value)
        if attackers != ZERO:
            attacks += 1
            hands[active] = hand
            _, covered, spent, rng_pol = ask_for_plan(
                (hands[0], hands[1], hands[2], hands[3], hands[4]), n_players, active, display,
                attackers, is_group, opts, seals_left, n_deck, gone_creatures, gone_items,
                policy_id, params, rng_pol)
            if spent != ZERO:
                for p in range(n_players):
                    hands[p] &= ~spent
                hand &= ~spent
                gone_items |= spent
            display &= ~covered
            gone_creatures |= covered
            rest = attackers & ~covered
            if rest != ZERO:
                if seals_left == 0:
                    end = END_GROUP if is_group else END_SIXTH
                    break
                seals_left -= 1
                display &= ~rest
                returned += count(rest)
                n_deck = shuffle_back(deck, n_deck, rest)
        # step 4: voluntary banishing by the active player (asked only while there is something
        # to banish and Items to pay with)
        hand, display, gone_creatures, gone_items, rng_pol = voluntary_banishing(
            hand, n_players, active, display, seals_left, n_deck, gone_creatures, gone_items,
            np.bool_(False), policy_id, params, rng_pol)
        # step 5: next player (an unsigned index skips numba's negative-index wraparound)
        hands[uint64(active)] = hand
        active = active + 1 if active + 1 < n_players else 0
        hand = hands[uint64(active)]
    hands[active] = hand
    turns = N_CARDS + returned - n_deck
    seals_used = opts[OPT_SEALS] - seals_left
    score = LOST_SCORE
    if end == END_WIN:
        # last turns from the player after the drawer (the player before ``active`` now); the
        # drawer's own last (option)
        n_last = n_players if opts[OPT_DRAWER_LAST] else n_players - 1
        player = active - 1 if active > 0 else n_players - 1
        for _ in range(n_last):
            player = player + 1 if player + 1 < n_players else 0
            hands[player], display, gone_creatures, gone_items, rng_pol = voluntary_banishing(
                hands[player], n_players, player, display, seals_left, np.int64(0), gone_creatures,
                gone_items, np.bool_(True), policy_id, params, rng_pol)
        score = total(final_seals(display, seals_left))
    return score, turns, seals_used, end, attacks


@njit(cache=True)
def play_chunk(seed, start, n_games, n_players, opts, policy_id, params,
               win, score, turns, seals_used, end, attacks):
    """Play games start .. start+n_games-1 of the run ``seed``; fill the outcome arrays."""
    deck = np.zeros(N_CARDS, np.int64)
    hands = np.zeros(MAX_PLAYERS, np.uint64)
    option = (opts[0], opts[1], opts[2], opts[3])
    for g in range(n_games):
        result, n_turns, n_seals, how, n_attacks = play_game(deck, hands, seed, start + g, n_players,
                                                            option, policy_id, params)
        win[g] = result != LOST_SCORE
        score[g] = result
        turns[g] = n_turns
        seals_used[g] = n_seals
        end[g] = how
        attacks[g] = n_attacks


def run_chunk(seed: int, start: int, n_games: int, players: int, opts: np.ndarray, policy_id: int,
              params, play=None) -> dict[str, np.ndarray]:
    """Python entry: play ``n_games`` games and return their outcome arrays by column name.
    ``play`` is the compiled chunk player: the built-in ``play_chunk`` unless a user policy's."""
    out = {column: np.empty(n_games, dtype) for column, dtype in OUTCOME_DTYPES.items()}
    (play or play_chunk)(np.uint64(seed), np.int64(start), np.int64(n_games), np.int64(players),
               np.ascontiguousarray(opts, dtype=np.int64), np.int64(policy_id),
               pol.params_tuple(params), *out.values())
    return out


#: The kernel functions that call the policy, directly or through one another: what a kernel for a
#: user's policy must compile anew (every other step function is shared with the built-in kernel).
POLICY_CALLERS = ("ask_for_plan", "voluntary_banishing", "play_game", "play_chunk")


def build_play_chunk(decide_attack, decide_banish):
    """A ``play_chunk`` whose policy decisions come from the user's numba functions ``decide_attack``
    and ``decide_banish`` (same signatures as in policies.py), with the same rule code as the built-in
    kernel: the policy-calling functions are recompiled over a namespace where ``pol`` names the
    user's functions. Compiled on first call in each process (not cached: numba cannot cache it)."""
    functions = {"decide_attack": decide_attack, "decide_banish": decide_banish,
                 "assign_by_totals": pol.assign_by_totals}
    return rebuild(globals(), POLICY_CALLERS, functions)["play_chunk"]

