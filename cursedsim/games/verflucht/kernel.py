"""The numba engine of Verflucht!: the procedure of docs/rules/verflucht.md over flat state.

One function per rule step (deal, attack check, attack resolution, Seal, voluntary banishing, last
turns, final Seals). A game under way is four small arrays (state.py), and ``advance`` plays it on from
wherever it stands: a phase machine (``PH_*``) that can halt at the next decision and resume with a
decision given from outside. So the same compiled rules play a whole game (``play_game``, one policy),
and a search's real game and its playouts from any decision point (rollout.py): copying a game is
copying its arrays. ``play_chunk`` plays games ``start .. start+count-1`` of a run and writes one outcome
per game. The engine checks every decision and raises on an illegal one.

Speed (~780,000 games/s per core at 3 players with ``baseline``; docs/architecture.md, "Kernels"):
between the loads at the entry of ``advance`` and the stores at its exit, the state of a game lives in
local variables: counters, bitmasks, the active player's hand and the random streams as state tuples.
Step functions take and return these values, so no array crosses a call in the hot path (every array
argument costs numba two atomic reference-count operations). The face-down cards are ``int64[80]``,
whose first ``n_deck`` entries are still face down (a draw picks one of them at random and moves the
last into its place); policies get the hands as a tuple. Per turn the loop does as little as it can,
since a game is ~66 turns and ~8 attacks:

- a face-down card is its value with ``ITEM_FLAG`` set for an Item, so a draw is a mask and a shift,
  and the card goes to the hand or the display by mask (no branch on a coin flip);
- only what a turn changes is kept in the loop: turns and Seals used are derived at the end; the hands
  array is indexed unsigned (no negative-index fix-up); voluntary banishing's "something to banish and
  Items to pay" test is one branch;
- tuple entries by run-time player index go through ``bits.tuple_get`` (a load from the stack)
  instead of numba's ``switch`` over the index (an indirect jump, often mispredicted); an attack's
  plan is checked per player only when it is not a plain Seal, and the Items spent are removed from
  every hand at once (hands are disjoint);
- with no Seal left, whether Items can banish every attacker is ``plan_exists``: at most three
  attackers, nested loops over players, no arrays.

The phase machine costs ~14% against the straight loop it replaced (~900,000 games/s; the loads and
stores, the phase tests and more live variables), the price of one compiled copy of the rules for the
heuristics and the search alike (docs/performance.md).

Compile time (docs/performance.md, "Compile time: Verflucht!"): ``baseline``, the default policy, plays
in a kernel compiled for it alone (``play_chunk_baseline``: ``advance`` with the constant ``fixed``, which
prunes the other policies' decisions before they are inlined), so a first ``simulate`` compiles none of
random's and smart's functions; the other policies, the search and the step API share the ``advance``
that chooses by ``policy_id``.

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
from cursedsim.games.verflucht.state import (
    ACTIVE, ATTACKERS, ATTACKS, BANISHINGS, DISPLAY, END, GONE_CREATURES, GONE_ITEMS, IS_GROUP, LAST_LEFT, N_COUNTS,
    N_DECK, N_MASKS, OPT_DRAWER_LAST, OPT_PARTIAL, OPT_SEALS, OPT_VOLUNTARY_SEAL, PHASE, PLAYER, RETURNED, RNG_DECK,
    RNG_POLICY, SCORE, SEALS_LEFT,
)
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


#: Codes of ``refuse``: the engine's refusals of an illegal decision.
R_SPENDS_IDLE = 1
R_NOT_IN_GAME = 2
R_NOT_ACTIVE = 3
R_NOT_ATTACKING = 4
R_TWICE = 5
R_NOT_HELD = 6
R_TOO_LITTLE = 7
R_UNCOVERED = 8
R_SEAL_REFUSED = 9
R_NOT_PARTIAL = 10
R_SEAL_COVERED = 11
R_NOT_DISPLAYED = 12
R_TOO_LITTLE_ONE = 13
R_WANTS_PLAN = 14
R_WANTS_BANISH = 15
R_ENDLESS = 16
R_OVER = 17


@njit(cache=True)
def refuse(code):
    """Raise the ValueError of refusal ``code`` (``R_*``). A real call, made only on an illegal decision:
    a raise inlined at each check costs IR statements that numba types and optimises in ``advance``."""
    if code == R_SPENDS_IDLE:
        raise ValueError("policy spends items without banishing a creature")
    if code == R_NOT_IN_GAME:
        raise ValueError("policy names a player who is not in the game")
    if code == R_NOT_ACTIVE:
        raise ValueError("only the active player may answer a sixth-creature attack")
    if code == R_NOT_ATTACKING:
        raise ValueError("policy banishes a creature that is not attacking")
    if code == R_TWICE:
        raise ValueError("each creature must be banished by a single player")
    if code == R_NOT_HELD:
        raise ValueError("policy spends items that are not in the player's hand")
    if code == R_TOO_LITTLE:
        raise ValueError("items must sum to at least the creatures they banish")
    if code == R_UNCOVERED:
        raise ValueError("the plan leaves attackers and the policy did not use a Seal")
    if code == R_SEAL_REFUSED:
        raise ValueError("a Seal is not allowed while items can banish every attacker (no Seal left,"
                         " or voluntary_seal off)")
    if code == R_NOT_PARTIAL:
        raise ValueError("items and a Seal on one attack need partial_items_before_seal")
    if code == R_SEAL_COVERED:
        raise ValueError("a Seal on an attack whose plan already banishes every attacker")
    if code == R_NOT_DISPLAYED:
        raise ValueError("policy banishes a creature that is not in the display")
    if code == R_TOO_LITTLE_ONE:
        raise ValueError("items must sum to at least the creature they banish")
    if code == R_WANTS_PLAN:
        raise ValueError("a banishing given where the game awaits the answer to an attack")
    if code == R_WANTS_BANISH:
        raise ValueError("an answer to an attack given where the game awaits a banishing")
    if code == R_ENDLESS:
        raise ValueError("policy kept banishing past the limit of one turn")
    raise ValueError("a decision given to a game that is over")


@njit(cache=True, inline="always")
def check_plan(hands, take, use, n_players, active, attackers, is_group, must_cover):
    """Validate a banishing plan against the rules; returns the attackers it banishes. A plan
    without a Seal (``must_cover``) has to banish every attacker. (``tuple_get``: a tuple entry by
    run-time index without numba's ``switch``.)"""
    covered = ZERO
    for p in range(len(take)):
        taken = tuple_get(take, p)
        spent = tuple_get(use, p)
        code = 0
        if taken == ZERO:
            if spent != ZERO:
                code = R_SPENDS_IDLE
        elif p >= n_players:
            code = R_NOT_IN_GAME
        elif not is_group and p != active:
            code = R_NOT_ACTIVE
        elif taken & ~attackers != ZERO:
            code = R_NOT_ATTACKING
        elif taken & covered != ZERO:
            code = R_TWICE
        elif spent & ~tuple_get(hands, p) != ZERO:
            code = R_NOT_HELD
        elif total(spent) < total(taken):
            code = R_TOO_LITTLE
        if code != 0:
            refuse(code)
        covered |= taken
    if must_cover and covered != attackers:
        refuse(np.int64(R_UNCOVERED))
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
def seal_allowed_for(hands, n_players, active, attackers, is_group, opts, seals_left):
    """Whether a Seal may answer this attack: always while Seals are left and voluntary_seal is on;
    otherwise only when Items cannot banish every attacker (the players may not choose to lose)."""
    if seals_left == 0 or not opts[OPT_VOLUNTARY_SEAL]:
        return not plan_exists(hands, n_players, active, attackers, is_group)
    return True


@njit(cache=True, inline="always")
def check_answer(hands, n_players, active, attackers, is_group, opts, seal_allowed, wants_seal, take, use):
    """Step 3a: an answer to an attack checked against the rules: returns (attackers banished by
    Items, Items spent). Attackers left over must be answered by a Seal."""
    spent = use[0] | use[1] | use[2] | use[3] | use[4]
    taken = take[0] | take[1] | take[2] | take[3] | take[4]
    if wants_seal:
        if not seal_allowed:
            refuse(np.int64(R_SEAL_REFUSED))
        if not opts[OPT_PARTIAL]:
            if spent != ZERO or taken != ZERO:
                refuse(np.int64(R_NOT_PARTIAL))
    if spent == ZERO and taken == ZERO:  # an empty plan (a plain Seal): nothing to check per player
        covered = ZERO
        if not wants_seal:
            refuse(np.int64(R_UNCOVERED))
    else:
        covered = check_plan(hands, take, use, n_players, active, attackers, is_group, not wants_seal)
    if wants_seal and covered == attackers:
        refuse(np.int64(R_SEAL_COVERED))
    return covered, spent


@njit(cache=True, inline="always")
def check_banish(hand, display, creature, items):
    """Step 4: one voluntary banishing checked against the rules (``creature`` > 0)."""
    if not has(display, creature):
        refuse(np.int64(R_NOT_DISPLAYED))
    if items & ~hand != ZERO:
        refuse(np.int64(R_NOT_HELD))
    if total(items) < creature:
        refuse(np.int64(R_TOO_LITTLE_ONE))


@njit(cache=True)
def final_seals(display, seals_left):
    """Each green Seal left discards the lowest Creature in the display."""
    for _ in range(seals_left):
        if display == ZERO:
            break
        display &= display - ONE
    return display


#: Where a game stands (``counts[PHASE]``): a turn's draw is next; an attack awaits the team's answer
#: (``ATTACKERS``, ``IS_GROUP``); the active player may banish (own turn); last turns (``PLAYER`` may
#: banish, ``LAST_LEFT`` turns left); over.
PH_DRAW = 0
PH_ATTACK = 1
PH_BANISH = 2
PH_LAST = 3
PH_END = 4

#: The decision a resumed game is given to carry out first (``advance``'s ``act_kind``).
ACT_NONE = 0
ACT_PLAN = 1     # the answer to the attack: act_seal, act_take, act_use
ACT_BANISH = 2   # one voluntary banishing: act_creature (0: stop) paid with act_items

#: The empty plan (no player takes or spends anything).
NO_PLAN = (ZERO, ZERO, ZERO, ZERO, ZERO)


@njit(cache=True, inline="always")
def start_game(deck, hands, masks, counts, seed, index, opts):
    """Set up game ``index`` of the run ``seed`` in the state arrays: every card face down, empty
    hands and display, the Seals, the game's two streams; the first turn's draw is next. Inlined where
    the game loops call it (a call of its own: one more compile that links ``deal`` and ``seed_tuple``)."""
    deal(deck)
    # int64, not int literals, for the arguments of compiled calls: numba compiles a callee once per literal
    rng_deck = seed_tuple(seed, index, np.int64(STREAM_DECK))
    rng_pol = seed_tuple(seed, index, np.int64(STREAM_POLICY))
    hands[:] = ZERO
    masks[:] = ZERO
    counts[:] = 0
    counts[N_DECK] = N_CARDS
    counts[SEALS_LEFT] = opts[OPT_SEALS]
    counts[END] = END_WIN
    counts[PHASE] = PH_DRAW
    counts[SCORE] = LOST_SCORE
    for k in range(4):
        masks[RNG_DECK + k] = rng_deck[k]
        masks[RNG_POLICY + k] = rng_pol[k]


@njit(cache=True)
def advance(deck, hands, masks, counts, n_players, opts, policy_id, params, stop, act_kind, act_seal, act_take,
            act_use, act_creature, act_items, fixed=None):
    """Play the game held in the state arrays on from where it stands: the procedure of
    docs/rules/verflucht.md as a phase machine, so that the real game and every playout of a search
    run the same compiled rules from any decision point. The decision ``act_kind`` (if any) is carried
    out first, in place of asking the policy; after it, decisions come from policy ``policy_id``, or
    with ``stop`` the game halts at the next decision. Every decision is checked. Returns the phase
    it halted at (PH_END: over; the arrays hold the state either way). ``fixed``: None, the policy
    chosen by ``policy_id`` at each decision; the constant BASELINE (``play_chunk_baseline``), baseline's
    decisions alone in a whole game (``act_kind`` ACT_NONE, ``stop`` False: neither is read): numba prunes
    the other branch of each ``fixed is not None``, so that compile holds no other policy's code.

    Speed (~900,000 games/s per core at 3 players with ``baseline``): the state lives in local
    variables between the loads at entry and the stores at exit; a turn's draw, attack and banishing
    run in this order without a return to the loop head; tuples, not arrays, cross the calls."""
    n_deck = counts[N_DECK]
    seals_left = counts[SEALS_LEFT]
    returned = counts[RETURNED]
    attacks = counts[ATTACKS]
    active = counts[ACTIVE]
    phase = counts[PHASE]
    end = counts[END]
    is_group = counts[IS_GROUP] != 0
    last_left = counts[LAST_LEFT]
    player = counts[PLAYER]
    banishings = counts[BANISHINGS]
    score = counts[SCORE]
    display = masks[DISPLAY]
    gone_creatures = masks[GONE_CREATURES]
    gone_items = masks[GONE_ITEMS]
    attackers = masks[ATTACKERS]
    rng_deck = (masks[RNG_DECK], masks[RNG_DECK + 1], masks[RNG_DECK + 2], masks[RNG_DECK + 3])
    rng_pol = (masks[RNG_POLICY], masks[RNG_POLICY + 1], masks[RNG_POLICY + 2], masks[RNG_POLICY + 3])
    hand = hands[active]  # the active player's hand (PH_DRAW .. PH_BANISH); ``hands`` holds the others'
    halted = False
    while True:
        if phase == PH_DRAW:
            if n_deck == 0:
                # last turns from the player after the drawer (``active`` now); the drawer's own (option)
                hands[uint64(active)] = hand
                player = active
                last_left = n_players if opts[OPT_DRAWER_LAST] else n_players - 1
                banishings = 0
                phase = PH_LAST
            else:
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
                # step 2: attack check (an Item forms no group and leaves the display at five at
                # most, so the check finds no attackers for it)
                attackers, is_group = attackers_after_adding(display, count(display), value)
                banishings = 0
                if attackers != ZERO:
                    attacks += 1
                    phase = PH_ATTACK
                else:
                    phase = PH_BANISH
        if phase == PH_ATTACK:
            # step 3: the team's answer, checked and paid
            hands[active] = hand
            handt = (hands[0], hands[1], hands[2], hands[3], hands[4])
            allowed = seal_allowed_for(handt, n_players, active, attackers, is_group, opts, seals_left)
            if fixed is not None:   # pruned: baseline alone (a whole game: no decision given, no halt), or
                wants_seal, take, use, rng_pol = pol.baseline_attack(handt, n_players, active, attackers, is_group,
                                                                     allowed, rng_pol)
            elif act_kind == ACT_PLAN:   # every policy by number
                wants_seal, take, use = act_seal, act_take, act_use
                act_kind = ACT_NONE
            elif act_kind != ACT_NONE:
                refuse(np.int64(R_WANTS_PLAN))
            elif stop:
                halted = True
                break
            else:
                wants_seal, take, use, rng_pol = pol.decide_attack(
                    policy_id, params, rng_pol, handt, n_players, active, display, attackers, is_group,
                    allowed, seals_left, n_deck, gone_creatures, gone_items)
            covered, spent = check_answer(handt, n_players, active, attackers, is_group, opts, allowed,
                                          wants_seal, take, use)
            if spent != ZERO:  # the Items spent leave their owners' hands (hands are disjoint)
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
                    phase = PH_END
                    break
                seals_left -= 1
                display &= ~rest
                returned += count(rest)
                n_deck = shuffle_back(deck, n_deck, rest)
            attackers = ZERO
            phase = PH_BANISH
        if phase == PH_BANISH:
            # step 4: voluntary banishing by the active player, asked only while there is something to
            # banish and Items to pay with (one branch, not two)
            while (display != ZERO) & (hand != ZERO):
                if fixed is not None:   # pruned, as the attack's
                    creature, items = pol.baseline_banish(hand, display)
                elif act_kind == ACT_BANISH:
                    creature, items = act_creature, act_items
                    act_kind = ACT_NONE
                elif act_kind != ACT_NONE:
                    refuse(np.int64(R_WANTS_BANISH))
                elif stop:
                    halted = True
                    break
                else:
                    creature, items, rng_pol = pol.decide_banish(
                        policy_id, params, rng_pol, hand, n_players, active, display, seals_left, n_deck,
                        gone_creatures, gone_items, np.bool_(False))
                if creature == 0:
                    break
                check_banish(hand, display, creature, items)
                display &= ~bit(creature)
                gone_creatures |= bit(creature)
                hand &= ~items
                gone_items |= items
                banishings += 1
                if banishings >= MAX_BANISHINGS:
                    refuse(np.int64(R_ENDLESS))
            if halted:
                break
            # step 5: next player (an unsigned index skips numba's negative-index wraparound)
            hands[uint64(active)] = hand
            active = active + 1 if active + 1 < n_players else 0
            hand = hands[uint64(active)]
            phase = PH_DRAW
            continue
        if phase == PH_LAST:
            while last_left > 0:
                own = hands[player]
                while (display != ZERO) & (own != ZERO):
                    if fixed is not None:   # pruned, as the attack's
                        creature, items = pol.baseline_banish(own, display)
                    elif act_kind == ACT_BANISH:
                        creature, items = act_creature, act_items
                        act_kind = ACT_NONE
                    elif act_kind != ACT_NONE:
                        refuse(np.int64(R_WANTS_BANISH))
                    elif stop:
                        halted = True
                        break
                    else:
                        creature, items, rng_pol = pol.decide_banish(
                            policy_id, params, rng_pol, own, n_players, player, display, seals_left,
                            np.int64(0), gone_creatures, gone_items, np.bool_(True))
                    if creature == 0:
                        break
                    check_banish(own, display, creature, items)
                    display &= ~bit(creature)
                    gone_creatures |= bit(creature)
                    own &= ~items
                    gone_items |= items
                    banishings += 1
                    if banishings >= MAX_BANISHINGS:
                        refuse(np.int64(R_ENDLESS))
                hands[player] = own
                if halted:
                    break
                player = player + 1 if player + 1 < n_players else 0
                last_left -= 1
                banishings = 0
            if halted:
                break
            score = total(final_seals(display, seals_left))
            phase = PH_END
        break
    if fixed is None and act_kind != ACT_NONE:   # pruned with baseline alone: no decision given
        refuse(np.int64(R_OVER))
    if phase < PH_LAST:
        hands[uint64(active)] = hand
    counts[N_DECK] = n_deck
    counts[SEALS_LEFT] = seals_left
    counts[RETURNED] = returned
    counts[ATTACKS] = attacks
    counts[ACTIVE] = active
    counts[PHASE] = phase
    counts[END] = end
    counts[IS_GROUP] = is_group
    counts[LAST_LEFT] = last_left
    counts[PLAYER] = player
    counts[BANISHINGS] = banishings
    counts[SCORE] = score
    masks[DISPLAY] = display
    masks[GONE_CREATURES] = gone_creatures
    masks[GONE_ITEMS] = gone_items
    masks[ATTACKERS] = attackers
    for k in range(4):
        masks[RNG_DECK + k] = rng_deck[k]
        masks[RNG_POLICY + k] = rng_pol[k]
    return phase


@njit(cache=True, inline="always")
def outcome(counts, opts):
    """(score, turns, seals_used, end, attacks) of a finished game; score LOST_SCORE when lost."""
    return (counts[SCORE], N_CARDS + counts[RETURNED] - counts[N_DECK], opts[OPT_SEALS] - counts[SEALS_LEFT],
            counts[END], counts[ATTACKS])


@njit(cache=True, inline="always")
def play_game(deck, hands, masks, counts, seed, index, n_players, opts, policy_id, params, fixed):
    """Play game ``index`` of the run ``seed`` to its end with one policy. Returns (score, turns,
    seals_used, end, attacks); the score is LOST_SCORE for a lost game. Inlined into ``play_chunk``: as a
    call of its own, its compile optimised and emitted the whole linked ``advance`` once more (~0.9 s).
    ``fixed``: as ``advance``'s, a constant where this is inlined (numba prunes the branch not taken): None
    leaves it out, so ``advance`` has the signature the search and the step API call it with (one compile
    serves all three; a None passed on would be typed ``none``, not ``omitted``, and compile it again)."""
    start_game(deck, hands, masks, counts, seed, index, opts)
    if fixed is None:
        advance(deck, hands, masks, counts, n_players, opts, policy_id, params, np.bool_(False), np.int64(ACT_NONE),
                np.bool_(False), NO_PLAN, NO_PLAN, np.int64(0), ZERO)
    else:
        advance(deck, hands, masks, counts, n_players, opts, policy_id, params, np.bool_(False), np.int64(ACT_NONE),
                np.bool_(False), NO_PLAN, NO_PLAN, np.int64(0), ZERO, fixed)
    return outcome(counts, opts)


@njit(cache=True, inline="always")
def play_games(seed, start, n_games, n_players, opts, policy_id, params, win, score, turns, seals_used, end,
               attacks, fixed):
    """``play_chunk``'s body, inlined into it and into ``play_chunk_baseline``. (``np.empty``:
    ``start_game`` writes every entry; ``np.zeros`` compiled numba's zeros and fill besides.)"""
    deck = np.empty(N_CARDS, np.int64)
    hands = np.empty(MAX_PLAYERS, np.uint64)
    masks = np.empty(N_MASKS, np.uint64)
    counts = np.empty(N_COUNTS, np.int64)
    option = (opts[0], opts[1], opts[2], opts[3])
    for g in range(n_games):
        result, n_turns, n_seals, how, n_attacks = play_game(deck, hands, masks, counts, seed, start + g,
                                                            n_players, option, policy_id, params, fixed)
        win[g] = result != LOST_SCORE
        score[g] = result
        turns[g] = n_turns
        seals_used[g] = n_seals
        end[g] = how
        attacks[g] = n_attacks


@njit(cache=True)
def play_chunk(seed, start, n_games, n_players, opts, policy_id, params,
               win, score, turns, seals_used, end, attacks):
    """Play games start .. start+n_games-1 of the run ``seed`` with policy ``policy_id``; fill the
    outcome arrays."""
    play_games(seed, start, n_games, n_players, opts, policy_id, params, win, score, turns, seals_used, end,
               attacks, None)


#: ``play_chunk_baseline``'s ``fixed``: a global, so numba types it as a literal (``pol.BASELINE`` would be an int64).
BASELINE = pol.BASELINE


@njit(cache=True)
def play_chunk_baseline(seed, start, n_games, n_players, opts, params, win, score, turns, seals_used, end,
                        attacks):
    """``play_chunk`` with ``baseline``, the default policy, compiled for it alone: ``fixed`` is a
    constant here, so ``advance`` prunes the other policies' code before inlining (docs/performance.md,
    "Compile time: Verflucht!")."""
    play_games(seed, start, n_games, n_players, opts, np.int64(BASELINE), params, win, score, turns,
               seals_used, end, attacks, BASELINE)


def run_chunk(seed: int, start: int, n_games: int, players: int, opts: np.ndarray, policy_id: int,
              params, play=None) -> dict[str, np.ndarray]:
    """Python entry: play ``n_games`` games and return their outcome arrays by column name.
    ``play`` is the compiled chunk player: the built-in ``play_chunk`` unless a user policy's."""
    out = {column: np.empty(n_games, dtype) for column, dtype in OUTCOME_DTYPES.items()}
    opts = np.ascontiguousarray(opts, dtype=np.int64)
    if play is None and policy_id == pol.BASELINE:   # the kernel compiled for baseline alone
        play_chunk_baseline(np.uint64(seed), np.int64(start), np.int64(n_games), np.int64(players), opts,
                            pol.params_tuple(params), *out.values())
    else:
        (play or play_chunk)(np.uint64(seed), np.int64(start), np.int64(n_games), np.int64(players), opts,
                             np.int64(policy_id), pol.params_tuple(params), *out.values())
    return out


#: The kernel functions that call the policy, directly or through one another: what a kernel for a
#: user's policy must compile anew (every other step function is shared with the built-in kernel).
POLICY_CALLERS = ("advance", "play_game", "play_games", "play_chunk")


def build_play_chunk(decide_attack, decide_banish):
    """A ``play_chunk`` whose policy decisions come from the user's numba functions ``decide_attack``
    and ``decide_banish`` (same signatures as in policies.py), with the same rule code as the built-in
    kernel: the policy-calling functions are recompiled over a namespace where ``pol`` names the
    user's functions. Compiled on first call in each process (not cached: numba cannot cache it)."""
    functions = {"decide_attack": decide_attack, "decide_banish": decide_banish,
                 "assign_by_totals": pol.assign_by_totals}
    return rebuild(globals(), POLICY_CALLERS, functions)["play_chunk"]

