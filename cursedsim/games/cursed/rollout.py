"""Cursed!? ``rollout``: flat Monte-Carlo search at every fight decision point, compiled, over the kernel
made resumable by replaying a fight from its saved start (``resume.py``).

At each fight decision point the candidates are the base policy's own choice first, then STOP, DRAW, each
usable item (its lowest copy; the Large Backpack taking the best discard weapon, the Whetstone put on the
lowest weapon it may go on), and PLAY of each Backpack weapon (one per unique card), up to ``cap``
(``candidates``). Each candidate plays ``n`` playouts to the end of the game: the fight replayed from its
start with the decisions taken so far, the candidate taken, the rest of the fight by the base policy and
the later fights by the ``finish`` policy (the base itself when -1). A candidate replaces the base
choice only with a clear lead (``games/clear_lead.py``: a sign test at ``margin`` standard errors).
Not searched: the attack choices, the Soul Crystal and the items between fights (the base policy's).

What a playout may know: every zone is public but the draw pile's order. At the candidate (``resume.branch``)
the pile is laid out anew from its contents with a stream keyed by (seed, game, decision, playout), and the
deck and policy streams are replaced by that playout's own: the same for every candidate of a decision
(common random numbers), unrelated to the game's own streams.

The real game plays the base policy's id in the kernel, so every decision the search does not take is the
base policy's, drawn from the game's streams as the base policy would draw it: with ``cap=1`` or ``n=0`` a
rollout game is the base policy's game.
"""

from __future__ import annotations

import numpy as np
from numba import int64, njit

from cursedsim.bits import ONE, ZERO, lowest
from cursedsim.errors import UnknownPolicyError
from cursedsim.games.base import PolicySpec
from cursedsim.games.cursed import kernel as k
from cursedsim.games.cursed import optimal_kernel as ofk
from cursedsim.games.cursed import policies as pol
from cursedsim.games.cursed import resume as rs
from cursedsim.games.cursed.rules import COPIES, LARGE_BACKPACK, N_CARDS, N_UNIQUE, WHETSTONE
from cursedsim.games.cursed.state import (
    DRAW, FORCED_ITEM_CODE, MAX_BEST_VALUE, NO_CARD, OPT_STARTING_ITEM, OPT_STARTING_ITEMS, OPT_WIN_SOULS, PLAY,
    STARTING_ITEM_RANDOM, STOP, USE, best_weapon, kind_bit, lowest_of,
)
from cursedsim.rng import STREAM_DECK, STREAM_POLICY, seed_tuple
from cursedsim.games import clear_lead

#: Candidates per decision, at most (the ``cap`` parameter may lower it).
MAX_CANDIDATES = 16
#: Playouts per candidate, at most (``rng.rollout_stream``: 2**22 playouts per decision).
MAX_N = (1 << 22) - 1
#: The hidden-information test's record: decisions per game, at most.
MAX_RECORD = 512
#: ``finish``: no finishing policy, the base plays the whole playout.
SAME = -1


@njit(cache=True)
def new_workspace():
    """The arrays a chunk of rollout games reuses: a playout's control and zones, the candidates, the
    wins per candidate."""
    pctl = np.zeros(rs.N_CTL, np.int64)
    pzones = np.zeros(k.N_ZONES, np.int64)
    cand = np.zeros((MAX_CANDIDATES, 3), np.int64)
    wins = np.zeros(2 * MAX_CANDIDATES, np.int64)   # wins, then playouts that ended unlike the base choice's
    return pctl, pzones, cand, wins


# ------------------------------------------------------------------ candidates

@njit(cache=True, inline="always")
def same(cand, i, kind, card, target):
    """Whether candidate i is the action (kind, card, target): a PLAY by unique card (copies are the same
    weapon), a USE by item and target."""
    if cand[i, 0] != kind or cand[i, 2] != target:
        return False
    if kind == PLAY or kind == USE:
        return cand[i, 1] // COPIES == card // COPIES
    return True


@njit(cache=True)
def add(cand, n_cand, cap, kind, card, target):
    """Append the action unless listed or the list is full; the new count."""
    if n_cand >= cap:
        return n_cand
    for i in range(n_cand):
        if same(cand, i, kind, card, target):
            return n_cand
    cand[n_cand, 0] = kind
    cand[n_cand, 1] = card
    cand[n_cand, 2] = target
    return n_cand + 1


@njit(cache=True)
def candidates(ctl, cap, cand):
    """The candidates at the real game's halt (``resume.steer`` recorded the base choice and the view):
    the base choice, STOP, DRAW, each usable item by item code, PLAY of each Backpack weapon by unique
    card. Returns their number."""
    v = rs.C_VIEW
    attack_ok = ctl[v] != 0
    n_pile = ctl[v + 1]
    items = np.uint64(ctl[v + 2])
    stored = np.uint64(ctl[v + 3])
    discard = np.uint64(ctl[v + 4])
    usable = np.uint64(ctl[v + 5])
    whet_targets = np.uint64(ctl[v + 6])
    n_cand = add(cand, 0, cap, ctl[rs.C_BASE], ctl[rs.C_BASE + 1], ctl[rs.C_BASE + 2])
    n_cand = add(cand, n_cand, cap, STOP, NO_CARD, NO_CARD)
    if attack_ok and n_pile > 0:
        n_cand = add(cand, n_cand, cap, DRAW, NO_CARD, NO_CARD)
    for item in range(N_UNIQUE):
        card = lowest_of(items, item)
        if card < 0:
            continue
        if usable & kind_bit(item) != ZERO:
            target = best_weapon(discard, MAX_BEST_VALUE) if item == LARGE_BACKPACK else NO_CARD
            n_cand = add(cand, n_cand, cap, USE, card, target)
        if item == WHETSTONE and whet_targets != ZERO:
            n_cand = add(cand, n_cand, cap, USE, card, lowest(whet_targets))
    if attack_ok:
        rest = stored
        while rest != ZERO:
            card = lowest(rest)
            rest &= rest - ONE
            n_cand = add(cand, n_cand, cap, PLAY, card, NO_CARD)
    return n_cand


# ------------------------------------------------------------------ one decision

@njit(cache=True)
def playout(ctl, work, opts, base_id, base_params, finish_id, finish_params, memo, i, j, peek, scramble):
    """Playout ``j`` of candidate ``i``: the fight replayed from its saved start with the script and the
    candidate, the pile laid out anew at the candidate, then the game to its end (the later fights by
    ``finish_id`` when >= 0). Whether it was won."""
    pctl, pzones, cand, _ = work
    pctl[:rs.C_STEP] = ctl[:rs.C_STEP]   # the slots past C_STEP are the step state's, never set here
    pctl[rs.C_HALT] = 0
    pctl[rs.C_HALTED] = 0
    pctl[rs.C_RESUME] = 1
    pctl[rs.C_POS] = 0
    pctl[rs.C_BRANCH] = 1
    pctl[rs.C_PEEK] = peek
    pctl[rs.C_SCRAMBLE] = scramble
    pctl[rs.C_PLAYOUT] = j
    cut = finish_id >= 0
    pctl[rs.C_SAVE] = cut
    pctl[rs.C_CUT] = cut
    rs.append(pctl, cand[i, 0], cand[i, 1], cand[i, 2])
    none = int64(0)
    z4 = (ZERO, ZERO, ZERO, ZERO)
    result = k.play_dealt(pzones, none, none, ZERO, ZERO, ZERO, none, none, opts, base_id, base_params, z4, z4,
                          memo, pctl)
    if pctl[rs.C_HALTED]:
        pctl[rs.C_HALTED] = 0
        pctl[rs.C_SAVE] = 0
        pctl[rs.C_CUT] = 0
        pctl[rs.C_BRANCH] = 0
        result = k.play_dealt(pzones, none, none, ZERO, ZERO, ZERO, none, none, opts, finish_id, finish_params, z4,
                              z4, memo, pctl)
    return result[0] >= opts[OPT_WIN_SOULS]


@njit(cache=True)
def decide(ctl, work, opts, base_id, base_params, finish_id, finish_params, memo, n, cap, margin, peek, scramble,
           stop_early):
    """The rollout's action (kind, card, target) at the real game's halt (``ctl``: its fight's saved start,
    the script so far, the base choice). ``stop_early``: stop playing candidates ``clear_lead.still_open``
    rules out (the same decision, sooner)."""
    _, _, cand, wins = work
    n_cand = candidates(ctl, cap, cand)
    best = 0
    if n_cand > 1 and n > 0:
        wins[:] = 0
        won_by, discordant = wins[:MAX_CANDIDATES], wins[MAX_CANDIDATES:]
        base_won = False
        for j in range(n):
            open_ = clear_lead.still_open(won_by, discordant, n_cand, n - j, margin) if stop_early else \
                (1 << n_cand) - 2
            if open_ == 0:
                break
            for i in range(n_cand):
                if i > 0 and (open_ >> i) & 1 == 0:
                    continue
                won = playout(ctl, work, opts, base_id, base_params, finish_id, finish_params, memo, i, j, peek,
                              scramble)
                if i == 0:
                    base_won = won
                clear_lead.tally(won_by, discordant, i, won, base_won)
        best = clear_lead.choose(won_by, discordant, n_cand, margin)
    return cand[best, 0], cand[best, 1], cand[best, 2]


@njit(cache=True, inline="always")
def action_code(kind, card, target):
    """An action as one number (the hidden-information test's record)."""
    return (kind * 64 + card + 1) * 64 + target + 1


# ------------------------------------------------------------------ whole games

@njit(cache=True)
def play_game(zones, ctl, seed, index, opts, base_id, base_params, finish_id, finish_params, memo, n, cap, margin,
              peek, scramble, stop_early, record, work):
    """Game ``index`` of the run ``seed`` with every fight decision the rollout's: (souls, rounds,
    damage_taken, cards_left, end, start_item, weapons_drawn, busts, decisions) as ``kernel.play_game``.
    With ``scramble`` > 0 every decision is decided a second time with the pile's order and the deck
    stream changed at the decision (the hidden-information test); ``record`` (2 x up to MAX_RECORD): the
    decisions played and those second decisions, as ``action_code``."""
    rng_deck = seed_tuple(seed, index, np.int64(STREAM_DECK))
    rng_pol = seed_tuple(seed, index, np.int64(STREAM_POLICY))
    rng_deck = k.shuffle_deck(zones, rng_deck)
    if opts[OPT_STARTING_ITEM] != STARTING_ITEM_RANDOM:
        k.force_starting_item(zones, N_CARDS, opts[OPT_STARTING_ITEM] - FORCED_ITEM_CODE)
    ctl[:] = 0
    ctl[rs.C_ON] = 1
    ctl[rs.C_SAVE] = 1
    ctl[rs.C_HALT] = 1
    ctl[rs.C_SEED] = int64(seed)
    ctl[rs.C_INDEX] = index
    none = int64(0)
    result = k.play_dealt(zones, int64(N_CARDS), none, ZERO, ZERO, ZERO, none, opts[OPT_STARTING_ITEMS], opts,
                          base_id, base_params, rng_deck, rng_pol, memo, ctl)
    decision = int64(0)
    while ctl[rs.C_HALTED]:
        ctl[rs.C_DECISION] = decision
        kind, card, target = decide(ctl, work, opts, base_id, base_params, finish_id, finish_params, memo, n, cap,
                                    margin, peek, int64(0), stop_early)
        if decision < record.shape[1]:
            record[0, decision] = action_code(kind, card, target)
            if scramble > 0:
                k2, c2, t2 = decide(ctl, work, opts, base_id, base_params, finish_id, finish_params, memo, n, cap,
                                    margin, peek, scramble, stop_early)
                record[1, decision] = action_code(k2, c2, t2)
        rs.append(ctl, kind, card, target)
        ctl[rs.C_HALTED] = 0
        ctl[rs.C_POS] = 0
        ctl[rs.C_RESUME] = 1
        result = k.play_dealt(zones, int64(N_CARDS), none, ZERO, ZERO, ZERO, none, opts[OPT_STARTING_ITEMS], opts,
                              base_id, base_params, rng_deck, rng_pol, memo, ctl)
        decision += 1
    souls, rounds, damage_taken, n_pile, end, start_item, weapons_drawn, busts, _, _, _ = result
    return souls, rounds, damage_taken, n_pile, end, start_item, weapons_drawn, busts, decision


@njit(cache=True)
def play_chunk(seed, start, n_games, opts, base_id, base_params, finish_id, finish_params, memo, n, cap, margin,
               peek, scramble, stop_early, record, win, souls, rounds, damage_taken, cards_left, end, start_item,
               weapons_drawn, busts, used):
    """Games start .. start+n_games-1 of the run ``seed`` played by the rollout; fills the outcome arrays
    as ``kernel.play_chunk``. Returns the searched decisions of the last game."""
    zones = np.zeros(k.N_ZONES, np.int64)
    ctl = np.zeros(rs.N_CTL, np.int64)
    work = new_workspace()
    decisions = int64(0)
    for g in range(n_games):
        n_souls, n_rounds, damage, left, how, first_item, drawn, n_busts, decisions = play_game(
            zones, ctl, seed, start + g, opts, base_id, base_params, finish_id, finish_params, memo, n, cap, margin,
            peek, scramble, stop_early, record, work)
        win[g] = n_souls >= opts[OPT_WIN_SOULS]
        souls[g] = n_souls
        rounds[g] = n_rounds
        damage_taken[g] = damage
        cards_left[g] = left
        end[g] = how
        start_item[g] = first_item
        weapons_drawn[g] = drawn
        busts[g] = n_busts
        for item in range(N_UNIQUE):
            used[g, item] = zones[k.USED_COUNT + item]
    return decisions


# ------------------------------------------------------------------ the policy and its Python entry

#: Parameters (PolicySpec order) and their defaults.
#: ``margin`` is 2 here, not 1 as in the other games: over optimal_fight, whose choices are rarely beaten,
#: margin 1 switched on noise and lost 3.0 points at n=16 (+-0.8, paired, 2,000 games, seed 11), margin 2
#: gained +0.3 (+-0.3) at n=16 and +1.1 (+-0.4) at n=64. ``finish`` is counting: the base playing whole
#: playouts ran 7.6 games per CPU-second at n=16 (counting: 232) for no measurable gain (docs/rules/cursed.md).
PARAMS = {"n": 16.0, "base": float(pol.OPTIMAL_FIGHT), "cap": 8.0, "margin": 2.0, "finish": float(pol.COUNTING)}
PARAM_DOCS = {
    "n": "playouts per candidate at each fight decision point (0: the base policy alone)",
    "base": "policy id of the built-in policy that gives the first candidate and plays the rest of the current "
            "fight in every playout (0 random, 1 threshold, 2 no_items, 3 counting, 4 optimal_fight, with "
            "their default parameters)",
    "cap": f"candidates per decision, at most (1: the base policy's choice alone), up to {MAX_CANDIDATES}",
    "margin": "a candidate replaces the base choice when its lead in wins exceeds margin x sqrt(playouts the two "
              "ended differently) (0: the most wins)",
    "finish": "policy id of the built-in policy that plays a playout's later fights (-1: the base itself)",
}
SPEC = PolicySpec(
    "rollout", pol.ROLLOUT,
    "Flat Monte-Carlo search (compiled) at every fight decision point: the base policy's choice, STOP, DRAW, "
    "each usable item and PLAY of each Backpack weapon are each played out n times to the end of the game (the "
    "fight replayed from its start, the rest of it by the base policy, the later fights by `finish`), the draw "
    "pile laid out anew from its known contents in every playout (never its order), the same random numbers "
    "for every candidate; a candidate replaces the base choice only when it won more playouts by over `margin` "
    "times the square root of the playouts where the two ended differently. Attack choices, the Soul Crystal "
    "and the items between fights are the base policy's. docs/search.md, 'rollout'.",
    params=PARAMS, param_docs=PARAM_DOCS)


def _bases() -> dict[int, PolicySpec]:
    """The built-in kernel policies by id (a user's policy, registered with id 0, never is one)."""
    return {spec.policy_id: spec for spec in pol.POLICIES.values()
            if spec.policy_id != pol.ROLLOUT and spec.impl is None and spec.engine == "kernel"}


def settings(params) -> tuple[int, int, tuple, int, tuple, int, float]:
    """The rollout's parameter vector (PolicySpec order: n, base, cap, margin, finish) checked and resolved:
    (n, base id, base parameter tuple (its defaults), finish id or -1, its parameter tuple, cap, margin)."""
    values = [float(v) for v in np.asarray(params, np.float64).ravel()]
    if len(values) != len(PARAMS):
        raise UnknownPolicyError(f"rollout takes {len(PARAMS)} parameters ({', '.join(PARAMS)}), got {len(values)}")
    n, base, cap, margin, finish = values
    bases = _bases()
    valid = ", ".join(f"{i} ({spec.name})" for i, spec in sorted(bases.items()))
    if base not in bases:
        raise UnknownPolicyError(f"rollout parameter base={base:g} is not a built-in policy of cursed; valid: {valid}")
    if finish != SAME and finish not in bases:
        raise UnknownPolicyError(f"rollout parameter finish={finish:g} is not a built-in policy of cursed; valid: "
                                 f"-1 (the base), {valid}")
    if n < 0 or n != int(n) or n > MAX_N:
        raise UnknownPolicyError(f"rollout parameter n must be a whole number 0 .. {MAX_N}, got {n:g}")
    if not 1 <= cap <= MAX_CANDIDATES or cap != int(cap):
        raise UnknownPolicyError(f"rollout parameter cap must be a whole number 1 .. {MAX_CANDIDATES}, got {cap:g}")
    if not 0 <= margin <= 100:
        raise UnknownPolicyError(f"rollout parameter margin must be a number 0 .. 100, got {margin:g}")
    base_params = pol.params_tuple(bases[int(base)].param_vector())
    finish_params = pol.params_tuple(bases[int(finish)].param_vector()) if finish != SAME else base_params
    return int(n), int(base), base_params, int(finish), finish_params, int(cap), float(margin)


def run_chunk(seed: int, start: int, n_games: int, opts, params, *, peek: bool = False, scramble: int = 0,
              stop_early: bool = True, record: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Python entry: ``n_games`` rollout games from ``start``; outcome arrays by column (as
    ``kernel.run_chunk``). ``peek`` (the clairvoyant variant: playouts continue the real pile order and deck
    stream), ``scramble`` and ``record``: the hidden-information test's (``play_game``); ``stop_early=False``
    plays every playout; the searched decisions of the last game are ``out["_decisions"]``."""
    n, base, base_params, finish, finish_params, cap, margin = settings(params)
    opts = tuple(int(v) for v in opts)
    uses_dp = pol.OPTIMAL_FIGHT in (base, finish)
    memo = ofk.memo_for(opts, pol.params_tuple(_bases()[pol.OPTIMAL_FIGHT].param_vector())) if uses_dp \
        else ofk.empty_memo()
    scalars = {column: np.empty(n_games, np.dtype(k.OUTCOME_DTYPES[column])) for column in k.SCALAR_COLUMNS}
    used = np.empty((n_games, N_UNIQUE), np.int8)
    if record is None:
        record = np.zeros((2, 0), np.int64)
    decisions = play_chunk(np.uint64(seed), np.int64(start), np.int64(n_games), opts, np.int64(base), base_params,
                           np.int64(finish), finish_params, memo, np.int64(n), np.int64(cap), np.float64(margin),
                           np.int64(bool(peek)), np.int64(scramble), np.bool_(stop_early), record, *scalars.values(),
                           used)
    items = {column: np.ascontiguousarray(used[:, i]) for i, column in enumerate(k.ITEM_COLUMNS)}
    out = {column: scalars[column] if column in scalars else items[column] for column in k.OUTCOME_COLUMNS}
    out["_decisions"] = np.int64(decisions)
    return out
