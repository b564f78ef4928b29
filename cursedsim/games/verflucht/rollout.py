"""Verflucht! ``rollout``: flat Monte-Carlo search at every decision, compiled, over the resumable kernel.

At each decision the team lists a few legal candidates (``attack_candidates``, ``banish_candidates``;
the base policy's own choice always first), plays ``n`` playouts of each from the current state to the
end of the game with the base policy, and takes the candidate that wins most often (ties: the earlier
candidate, so the base policy's choice). A playout copies the game's four state arrays and runs
``kernel.advance`` on the copy: the real game and every playout run the same compiled rules.

What a playout may know (docs/search.md, "rollout"): never the order of the face-down cards. Each
playout draws from the face-down *set* (everything not in a hand, the display or the discard pile,
laid out in code order) with a stream of its own keyed by (seed, game, decision, playout), the same for
every candidate of the decision (common random numbers). A candidate replaces the base policy's choice only
when it won clearly more often (``games/clear_lead.py``: a sign test at ``margin`` standard errors). With ``information="private"`` the other
players' Items are redrawn too: each keeps their hand size and the Items the candidate makes them spend
(said aloud in the plan), the rest comes at random from the Items the decider cannot see.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64
from numba.cpython.unsafe.tuple import tuple_setitem

from cursedsim.bits import ONE, ZERO, bit, count, highest, lowest, nth, total, tuple_get
from cursedsim.games.verflucht import kernel as k
from cursedsim.games.verflucht import policies as pol
from cursedsim.games.verflucht.rules import LOST_SCORE, MAX_PLAYERS, MAX_VALUE, N_CARDS
from cursedsim.games.verflucht.state import (
    ACTIVE, ATTACKERS, DISPLAY, GONE_CREATURES, GONE_ITEMS, IS_GROUP, N_COUNTS, N_DECK, N_MASKS, PHASE, PLAYER,
    RNG_DECK, RNG_POLICY, SCORE, SEALS_LEFT,
)
from cursedsim.rng import below_t, rollout_stream, seed_tuple
from cursedsim.games import clear_lead

#: Candidates per decision, at most (the ``cap`` parameter may lower it).
MAX_CANDIDATES = 16
#: Attackers up to which a group attack's assignments to players are all enumerated (5^4 = 625 at 5
#: players); a larger group (five attackers, rare) gets the base choice, the Seal and the forced plan.
MAX_ENUMERATED = 4

# ---- parameters (indices into the rollout's parameter tuple; PolicySpec order in policies.py)
P_N = 0
P_BASE = 1
P_CAP = 2
P_WASTE = 3
P_MARGIN = 4

#: Sub-streams of a playout (``rng.rollout_stream``): its draws, its base policy's choices, its redeal.
SUB_DECK = 0
SUB_POLICY = 1
SUB_DEAL = 2


@njit(cache=True)
def new_workspace():
    """The arrays one chunk of rollout games reuses: the playout's state copy, the candidates, the
    face-down set laid out, the wins per candidate."""
    scratch = (np.zeros(N_CARDS, np.int64), np.zeros(MAX_PLAYERS, np.uint64), np.zeros(N_MASKS, np.uint64),
               np.zeros(N_COUNTS, np.int64))
    cand_seal = np.zeros(MAX_CANDIDATES, np.bool_)
    cand_take = np.zeros((MAX_CANDIDATES, MAX_PLAYERS), np.uint64)
    cand_use = np.zeros((MAX_CANDIDATES, MAX_PLAYERS), np.uint64)
    cand_creature = np.zeros(MAX_CANDIDATES, np.int64)
    cand_items = np.zeros(MAX_CANDIDATES, np.uint64)
    layout = np.zeros(N_CARDS, np.int64)
    wins = np.zeros(2 * MAX_CANDIDATES, np.int64)   # wins, then playouts that ended unlike the base choice's
    return scratch, cand_seal, cand_take, cand_use, cand_creature, cand_items, layout, wins


# ------------------------------------------------------------------ candidates

@njit(cache=True)
def add_plan(n_cand, cap, cand_seal, cand_take, cand_use, seal, take, use):
    """Append the answer (seal, take, use) unless already listed or the list is full; the new count."""
    if n_cand >= cap:
        return n_cand
    for i in range(n_cand):
        same = cand_seal[i] == seal
        for p in range(MAX_PLAYERS):
            same = same and cand_take[i, p] == tuple_get(take, p) and cand_use[i, p] == tuple_get(use, p)
        if same:
            return n_cand
    cand_seal[n_cand] = seal
    for p in range(MAX_PLAYERS):
        cand_take[n_cand, p] = tuple_get(take, p)
        cand_use[n_cand, p] = tuple_get(use, p)
    return n_cand + 1


#: ``policies.least_cover`` is exact while a least cover sums to less than 128: for targets up to this.
MAX_JOINT_TARGET = 88


@njit(cache=True)
def pay_for(hand, creatures):
    """Items of ``hand`` paying for ``creatures`` together: the least-waste set while their total is at
    most MAX_JOINT_TARGET, else each Creature's least-waste set in turn, highest first; 0 if it cannot."""
    target = total(creatures)
    if target <= MAX_JOINT_TARGET:
        return pol.least_cover(hand, target)
    paid = ZERO
    rest = creatures
    while rest != ZERO:
        c = highest(rest)
        rest &= ~bit(c)
        pay = pol.least_cover(hand & ~paid, c)
        if pay == ZERO:
            return ZERO
        paid |= pay
    return paid


@njit(cache=True)
def attack_candidates(handt, n_players, active, attackers, is_group, allowed, seals_left, cap, cand_seal,
                      cand_take, cand_use, n_cand):
    """Append the answers to an attack worth trying: a Seal (while one is left and allowed); the plan of
    least waste (Items spent beyond the attackers' total) over every assignment of attackers to players
    who may pay; for each such player, the least-waste plan in which they pay the highest attacker; the
    plan whose highest Item spent is lowest (keeps high Items); and with no Seal allowed the forced plan.
    A player pays the Creatures assigned to them with the least-waste set of their Items (``pay_for``)."""
    empty = k.NO_PLAN
    if allowed and seals_left > 0:
        n_cand = add_plan(n_cand, cap, cand_seal, cand_take, cand_use, True, empty, empty)
    if not allowed:
        found, take, use = pol.forced_plan(handt, n_players, active, attackers, is_group)
        if found:
            n_cand = add_plan(n_cand, cap, cand_seal, cand_take, cand_use, False, take, use)
    n_att = count(attackers)
    if n_att > MAX_ENUMERATED:
        return n_cand
    creatures = (0, 0, 0, 0)
    rest = attackers
    for i in range(n_att):
        c = highest(rest)
        creatures = tuple_setitem(creatures, i, c)
        rest &= ~bit(c)
    n_elig = n_players if is_group else 1
    n_assign = 1
    for _ in range(n_att):
        n_assign *= n_elig
    need_total = total(attackers)
    best_waste = 1 << 30
    best_take = empty
    best_use = empty
    low_top = 1 << 30
    low_waste = 1 << 30
    low_take = empty
    low_use = empty
    by_payer_waste = (1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30)
    by_payer_take = (empty, empty, empty, empty, empty)
    by_payer_use = (empty, empty, empty, empty, empty)
    for code in range(n_assign):
        take = empty
        rest_code = code
        first = -1
        for i in range(n_att):
            p = (active + rest_code % n_elig) % n_players
            rest_code //= n_elig
            if i == 0:
                first = p
            take = tuple_setitem(take, p, tuple_get(take, p) | bit(tuple_get(creatures, i)))
        use = empty
        waste = -need_total
        top = 0
        ok = True
        for p in range(n_players):
            t = tuple_get(take, p)
            if t == ZERO:
                continue
            pay = pay_for(tuple_get(handt, p), t)
            if pay == ZERO:
                ok = False
                break
            use = tuple_setitem(use, p, pay)
            waste += total(pay)
            top = max(top, highest(pay))
        if not ok:
            continue
        if waste < best_waste:
            best_waste, best_take, best_use = waste, take, use
        if top < low_top or (top == low_top and waste < low_waste):
            low_top, low_waste, low_take, low_use = top, waste, take, use
        if waste < tuple_get(by_payer_waste, first):
            by_payer_waste = tuple_setitem(by_payer_waste, first, waste)
            by_payer_take = tuple_setitem(by_payer_take, first, take)
            by_payer_use = tuple_setitem(by_payer_use, first, use)
    if best_waste < (1 << 30):
        n_cand = add_plan(n_cand, cap, cand_seal, cand_take, cand_use, False, best_take, best_use)
        n_cand = add_plan(n_cand, cap, cand_seal, cand_take, cand_use, False, low_take, low_use)
        for j in range(n_elig):
            p = (active + j) % n_players
            if tuple_get(by_payer_waste, p) < (1 << 30):
                n_cand = add_plan(n_cand, cap, cand_seal, cand_take, cand_use, False,
                                  tuple_get(by_payer_take, p), tuple_get(by_payer_use, p))
    return n_cand


@njit(cache=True)
def add_banish(n_cand, cap, cand_creature, cand_items, creature, items):
    """Append the banishing (creature, items) (creature 0: stop) unless listed or the list is full."""
    if n_cand >= cap:
        return n_cand
    for i in range(n_cand):
        if cand_creature[i] == creature and cand_items[i] == items:
            return n_cand
    cand_creature[n_cand] = creature
    cand_items[n_cand] = items
    return n_cand + 1


@njit(cache=True)
def banish_candidates(hand, display, waste, cap, cand_creature, cand_items, n_cand):
    """Append the voluntary banishings worth trying: stop; for each display Creature, highest first,
    the smallest single Item >= it when it exceeds the Creature by at most ``waste``; for the highest
    Creature the hand can pay, the smallest pair and the least-waste set of Items."""
    n_cand = add_banish(n_cand, cap, cand_creature, cand_items, 0, ZERO)
    rest = display
    while rest != ZERO:
        c = highest(rest)
        rest &= ~bit(c)
        single = pol.smallest_single(hand, c)
        if single != 0 and single - c <= waste:
            n_cand = add_banish(n_cand, cap, cand_creature, cand_items, c, bit(single))
    budget = min(total(hand), MAX_VALUE)
    affordable = display & ((ONE << uint64(budget + 1)) - ONE)
    if affordable != ZERO:
        c = highest(affordable)
        pair = pol.smallest_pair(hand, c)
        if pair != ZERO:
            n_cand = add_banish(n_cand, cap, cand_creature, cand_items, c, pair)
        n_cand = add_banish(n_cand, cap, cand_creature, cand_items, c, pol.least_cover(hand, c))
    return n_cand


# ------------------------------------------------------------------ what a playout may know

@njit(cache=True)
def lay_out_face_down(hands, masks, n_players, layout):
    """The face-down cards as the team knows them: every card not in a hand, the display or the
    discard pile, in code order (kernel cards). Returns their number."""
    held = masks[GONE_ITEMS]
    for p in range(n_players):
        held |= hands[p]
    seen = masks[DISPLAY] | masks[GONE_CREATURES]
    n = 0
    for v in range(1, MAX_VALUE + 1):
        if (seen >> uint64(v)) & ONE == ZERO:
            layout[n] = v
            n += 1
    for v in range(1, MAX_VALUE + 1):
        if (held >> uint64(v)) & ONE == ZERO:
            layout[n] = v | k.ITEM_FLAG
            n += 1
    return n


@njit(cache=True)
def redeal_others(hands, n_players, decider, announced, pool, rng):
    """``information="private"``: the players other than ``decider`` get their hands anew, each keeping
    its size and its ``announced`` Items, the rest drawn at random from ``pool`` (the Items the decider
    cannot place: the others' unannounced Items and the face-down Items). Returns (what is left of the
    pool, rng): those Items lie face down."""
    for p in range(n_players):
        if p == decider:
            continue
        keep = tuple_get(announced, p)
        hand = keep
        for _ in range(count(hands[p]) - count(keep)):
            j, rng = below_t(rng, count(pool))
            item = nth(pool, j)
            pool &= ~bit(item)
            hand |= bit(item)
        hands[p] = hand
    return pool, rng


@njit(cache=True)
def playout_streams(seed, index, decision, playout):
    """Playout ``playout``'s streams at decision ``decision``: (policy, deck, deal), the same for every
    candidate (common random numbers), so computed once per playout."""
    return (seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_POLICY))),
            seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_DECK))),
            seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_DEAL))))


@njit(cache=True)
def prepare_playout(deck, hands, masks, counts, scratch, layout, n_layout, n_players, private, decider, announced,
                    streams, peek):
    """Copy the game into ``scratch`` as one playout sees it: the face-down set laid out (or, only with
    ``peek``, the real face-down order and stream: the clairvoyant variant the hidden-information test
    must catch), the playout's own streams, and with ``private`` the others' Items redrawn."""
    s_deck, s_hands, s_masks, s_counts = scratch
    # copies element by element: an array-to-slice copy compiles numba's shape-error message (~1 s)
    for i in range(counts.shape[0]):
        s_counts[i] = counts[i]
    for i in range(masks.shape[0]):
        s_masks[i] = masks[i]
    for i in range(hands.shape[0]):
        s_hands[i] = hands[i]
    pol_rng, deck_rng, deal_rng = streams
    for w in range(4):
        s_masks[RNG_POLICY + w] = pol_rng[w]
    n_deck = counts[N_DECK]
    if peek:
        for i in range(n_deck):
            s_deck[i] = deck[i]
        return
    for w in range(4):
        s_masks[RNG_DECK + w] = deck_rng[w]
    if not private:
        for i in range(n_layout):
            s_deck[i] = layout[i]
        return
    pool = ZERO
    for p in range(n_players):
        if p != decider:
            pool |= hands[p] & ~tuple_get(announced, p)
    n = 0
    for i in range(n_layout):
        card = layout[i]
        if card & k.ITEM_FLAG:
            pool |= bit(card & (k.ITEM_FLAG - 1))
        else:
            s_deck[n] = card
            n += 1
    pool, deal_rng = redeal_others(s_hands, n_players, decider, announced, pool, deal_rng)
    while pool != ZERO:
        v = lowest(pool)
        pool &= pool - ONE
        s_deck[n] = v | k.ITEM_FLAG
        n += 1


# ------------------------------------------------------------------ one decision

@njit(cache=True)
def decide(deck, hands, masks, counts, n_players, opts, base_id, base_params, n, cap, waste, margin, private, seed,
           index, decision, peek, stop_early, work):
    """The rollout's decision at the game's current decision point (phase PH_ATTACK, PH_BANISH or
    PH_LAST): (act_kind, seal, take, use, creature, items). The base policy's own choice is drawn from
    the game's policy stream (advanced in ``masks``), as the base policy would draw it. ``stop_early``:
    stop playing candidates ``clear_lead.still_open`` rules out (the same decision, sooner); the reference engine
    plays every playout, so kernel == reference checks that the two agree."""
    scratch, cand_seal, cand_take, cand_use, cand_creature, cand_items, layout, wins = work
    phase = counts[PHASE]
    rng_pol = (masks[RNG_POLICY], masks[RNG_POLICY + 1], masks[RNG_POLICY + 2], masks[RNG_POLICY + 3])
    handt = (hands[0], hands[1], hands[2], hands[3], hands[4])
    display = masks[DISPLAY]
    seals_left = counts[SEALS_LEFT]
    n_deck = counts[N_DECK]
    active = counts[ACTIVE]
    if phase == k.PH_ATTACK:
        kind = np.int64(k.ACT_PLAN)
        decider = active
        attackers = masks[ATTACKERS]
        is_group = counts[IS_GROUP] != 0
        allowed = k.seal_allowed_for(handt, n_players, active, attackers, is_group, opts, seals_left)
        seal, take, use, rng_pol = pol.decide_attack(
            base_id, base_params, rng_pol, handt, n_players, active, display, attackers, is_group, allowed,
            seals_left, n_deck, masks[GONE_CREATURES], masks[GONE_ITEMS])
        n_cand = add_plan(0, cap, cand_seal, cand_take, cand_use, seal, take, use)
        n_cand = attack_candidates(handt, n_players, active, attackers, is_group, allowed, seals_left, cap,
                                   cand_seal, cand_take, cand_use, n_cand)
    else:
        kind = np.int64(k.ACT_BANISH)
        last = phase == k.PH_LAST
        decider = counts[PLAYER] if last else active
        hand = tuple_get(handt, decider)
        creature, items, rng_pol = pol.decide_banish(
            base_id, base_params, rng_pol, hand, n_players, decider, display, seals_left,
            np.int64(0) if last else n_deck, masks[GONE_CREATURES], masks[GONE_ITEMS], last)
        n_cand = add_banish(0, cap, cand_creature, cand_items, creature, items)
        n_cand = banish_candidates(hand, display, waste, cap, cand_creature, cand_items, n_cand)
    for w in range(4):
        masks[RNG_POLICY + w] = rng_pol[w]
    best = 0
    if n_cand > 1 and n > 0:
        n_layout = lay_out_face_down(hands, masks, n_players, layout)
        if n_layout != n_deck:
            raise ValueError("rollout: the face-down set does not match the number of face-down cards")
        wins[:] = 0
        won_by, discordant = wins[:MAX_CANDIDATES], wins[MAX_CANDIDATES:]
        base_won = False
        s_deck, s_hands, s_masks, s_counts = scratch
        for j in range(n):
            open_ = clear_lead.still_open(won_by, discordant, n_cand, n - j, margin) if stop_early else (1 << n_cand) - 2
            if open_ == 0:
                break
            streams = playout_streams(seed, index, decision, j)
            for i in range(n_cand):
                if i > 0 and (open_ >> i) & 1 == 0:
                    continue
                if kind == k.ACT_PLAN:
                    announced = (cand_use[i, 0], cand_use[i, 1], cand_use[i, 2], cand_use[i, 3], cand_use[i, 4])
                else:
                    announced = k.NO_PLAN
                prepare_playout(deck, hands, masks, counts, scratch, layout, n_layout, n_players, private, decider,
                                announced, streams, peek)
                k.advance(s_deck, s_hands, s_masks, s_counts, n_players, opts, base_id, base_params, np.bool_(False),
                          kind, cand_seal[i],
                          (cand_take[i, 0], cand_take[i, 1], cand_take[i, 2], cand_take[i, 3], cand_take[i, 4]),
                          (cand_use[i, 0], cand_use[i, 1], cand_use[i, 2], cand_use[i, 3], cand_use[i, 4]),
                          cand_creature[i], cand_items[i])
                won = s_counts[SCORE] != LOST_SCORE
                if i == 0:
                    base_won = won
                clear_lead.tally(won_by, discordant, i, won, base_won)
        best = clear_lead.choose(won_by, discordant, n_cand, margin)
    if kind == k.ACT_PLAN:
        return (kind, cand_seal[best],
                (cand_take[best, 0], cand_take[best, 1], cand_take[best, 2], cand_take[best, 3], cand_take[best, 4]),
                (cand_use[best, 0], cand_use[best, 1], cand_use[best, 2], cand_use[best, 3], cand_use[best, 4]),
                np.int64(0), ZERO)
    return kind, False, k.NO_PLAN, k.NO_PLAN, cand_creature[best], cand_items[best]


# ------------------------------------------------------------------ whole games

@njit(cache=True, inline="always")
def play_game(deck, hands, masks, counts, seed, index, n_players, opts, base_id, base_params, n, cap, waste,
              margin, private, work):
    """Game ``index`` of the run ``seed`` with every decision the rollout's: (score, turns, seals_used,
    end, attacks) as ``kernel.play_game``. Inlined into ``play_chunk`` (its one caller): as a call, its
    compile optimised the linked ``decide`` and ``advance`` once more (~2 s of ``cursedsim compile``)."""
    k.start_game(deck, hands, masks, counts, seed, index, opts)
    phase = k.advance(deck, hands, masks, counts, n_players, opts, base_id, base_params, np.bool_(True),
                      np.int64(k.ACT_NONE), np.bool_(False), k.NO_PLAN, k.NO_PLAN, np.int64(0), ZERO)
    decision = np.int64(0)
    while phase != k.PH_END:
        kind, seal, take, use, creature, items = decide(deck, hands, masks, counts, n_players, opts, base_id,
                                                        base_params, n, cap, waste, margin, private, seed, index,
                                                        decision, np.bool_(False), np.bool_(True), work)
        phase = k.advance(deck, hands, masks, counts, n_players, opts, base_id, base_params, np.bool_(True), kind,
                          seal, take, use, creature, items)
        decision += 1
    return k.outcome(counts, opts)


@njit(cache=True)
def play_chunk(seed, start, n_games, n_players, opts, base_id, base_params, n, cap, waste, margin, private,
               win, score, turns, seals_used, end, attacks):
    """Games start .. start+n_games-1 of the run ``seed`` played by the rollout; fills the outcome arrays."""
    deck = np.zeros(N_CARDS, np.int64)
    hands = np.zeros(MAX_PLAYERS, np.uint64)
    masks = np.zeros(N_MASKS, np.uint64)
    counts = np.zeros(N_COUNTS, np.int64)
    work = new_workspace()
    option = (opts[0], opts[1], opts[2], opts[3])
    for g in range(n_games):
        result, n_turns, n_seals, how, n_attacks = play_game(deck, hands, masks, counts, seed, start + g, n_players,
                                                            option, base_id, base_params, n, cap, waste, margin,
                                                            private, work)
        win[g] = result != LOST_SCORE
        score[g] = result
        turns[g] = n_turns
        seals_used[g] = n_seals
        end[g] = how
        attacks[g] = n_attacks


# ------------------------------------------------------------------ Python entry

def settings(params) -> tuple[int, int, tuple, int, int, float]:
    """The rollout's parameter vector (PolicySpec order: n, base, cap, waste, margin) checked and resolved:
    (n, base policy id, base parameter tuple (its defaults), cap, waste, margin)."""
    from cursedsim.errors import UnknownPolicyError
    values = [float(v) for v in params]
    n, base, cap, waste = values[:4]
    margin = values[4] if len(values) > 4 else 1.0
    bases = {spec.policy_id: spec for spec in pol.POLICIES.values()   # built-in heuristics only (a user's
             if spec.policy_id != pol.ROLLOUT and spec.impl is None and spec.engine == "kernel"}   # shares id 0)
    if base not in bases:
        raise UnknownPolicyError(f"rollout parameter base={base:g} is not a built-in policy of verflucht; valid: "
                                 + ", ".join(f"{i} ({spec.name})" for i, spec in sorted(bases.items())))
    if n < 0 or n != int(n) or n >= 1 << 22:
        raise UnknownPolicyError(f"rollout parameter n must be a whole number 0 .. {(1 << 22) - 1}, got {n:g}")
    if not 1 <= cap <= MAX_CANDIDATES or cap != int(cap):
        raise UnknownPolicyError(f"rollout parameter cap must be a whole number 1 .. {MAX_CANDIDATES}, got {cap:g}")
    if waste < 0 or waste != int(waste):
        raise UnknownPolicyError(f"rollout parameter waste must be a whole number >= 0, got {waste:g}")
    if not 0 <= margin <= 100:
        raise UnknownPolicyError(f"rollout parameter margin must be a number 0 .. 100, got {margin:g}")
    spec = bases[int(base)]
    return int(n), int(base), pol.params_tuple(spec.param_vector()), int(cap), int(waste), float(margin)


def run_chunk(seed: int, start: int, n_games: int, players: int, opts: np.ndarray, params, private: bool
              ) -> dict[str, np.ndarray]:
    """Python entry: ``n_games`` rollout games from ``start``; outcome arrays by column (as kernel.run_chunk)."""
    n, base, base_params, cap, waste, margin = settings(params)
    out = {column: np.empty(n_games, dtype) for column, dtype in k.OUTCOME_DTYPES.items()}
    play_chunk(np.uint64(seed), np.int64(start), np.int64(n_games), np.int64(players),
               np.ascontiguousarray(opts, dtype=np.int64), np.int64(base), base_params, np.int64(n), np.int64(cap),
               np.int64(waste), np.float64(margin), np.bool_(private), *out.values())
    return out
