"""So, You've Been Cursed. ``rollout``: flat Monte-Carlo search at every decision of a side (Wizard or
Monster player), compiled, over the resumable kernel (``kernel.advance``, ``kernel.steer``).

At each decision of a searching side with two or more legal options (docs/rules/village.md, "rollout"),
the candidates are the base policy's own choice first, then every other legal option in the order the
kernel lists them (ascending codes), up to ``cap``. For each candidate ``n`` playouts run from the
decision to the end of the game: the candidate is taken, then the searching side plays its base policy
and the other side its own policy of the run (automaton or player). A candidate replaces the base
policy's choice only with a clear lead in playouts won by the decider (``games/clear_lead.py``: more
than ``margin`` square roots of the playouts the two ended differently; among those the most wins, ties
to the earlier), and candidates that can no longer reach one are not played further.

What a playout may know: what the decider sees. At the decision (``kernel.branch``) every deck's order,
the other player's hand (pooled with its deck and dealt again, its size kept) and the Town Guard tiles
still face down (permuted among their slots) are laid out anew from a stream keyed by (seed, game,
decision, playout), and every random stream of the game is reseeded from another: the same for every
candidate of a decision (common random numbers), unrelated to the game's own streams. ``branch`` lays
that game out once per playout from the real game kept at its halt, and the playout's ``steer`` takes it
at the candidate (a copy: the kernel's decisions do not link the redraw).

How a decision is reached (kernel docstring, "Resuming"): the real game runs with ``ctl[C_HALT]`` and
halts at the searching side's next decision; the turn's start is kept (``st0``, ``rs0``), and the game
resumes from it with the turn's searched decisions so far replayed as a script. A playout is that same
replay with the candidate as the script's last entry, then ``advance`` to the end of the game.

The real game's searching sides have their base policy's id in the kernel, so every decision the search
does not take (a single option, the other side's) is the base policy's, drawn from the game's streams as
the base policy would draw it: with ``cap=1`` or ``n=0`` a rollout game is the base policy's game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cursedsim.errors import UnknownPolicyError
from cursedsim.games.village import kernel as K
from cursedsim.games.village import policy_specs as P
from cursedsim.games.village import rules as R
from cursedsim.games.village import state as S
from cursedsim.games import clear_lead

#: Candidates per decision, at most (the ``cap`` parameter may lower it).
MAX_CANDIDATES = 64
#: Playouts per candidate, at most (``rng.rollout_stream``: 2**22 playouts per decision).
MAX_N = (1 << 22) - 1
#: The hidden-information test's record: decisions per game, at most.
MAX_RECORD = 4096


@njit(cache=True)
def new_workspace():
    """The arrays a chunk of rollout games reuses: the real game's turn start, a playout's game and
    control, the candidates and their wins."""
    st0 = np.zeros(S.N_ST, np.int64)
    rs0 = np.zeros((S.N_STREAMS, 4), np.uint64)
    pst = np.zeros(S.N_ST, np.int64)
    prs = np.zeros((S.N_STREAMS, 4), np.uint64)
    pctl = np.zeros(K.N_CTL, np.int64)
    cand = np.zeros(MAX_CANDIDATES, np.int64)
    wins = np.zeros(MAX_CANDIDATES, np.int64)
    discordant = np.zeros(MAX_CANDIDATES, np.int64)
    return st0, rs0, pst, prs, pctl, cand, wins, discordant


@njit(cache=True)
def run(G, st0, rs0):
    """``kernel.advance`` (inlined here, the search's one copy of the rules)."""
    K.advance(G, st0, rs0)


@njit(cache=True, inline="always")  # one caller: play_game
def decide(G, n, cap, margin, seed, index, decision, peek, scramble, stop_early, work):
    """The rollout's choice at the real game's halt (``ctl[C_H_*]``), its turn start in ``work``.
    ``stop_early``: stop playing the candidates ``clear_lead.still_open`` rules out (the same choice,
    sooner; a test compares the two). Inlined: a compiled function of its own would link, optimise and
    emit the whole kernel (``run``) once more."""
    ctl = G[6]
    st0, rs0, pst, prs, pctl, cand, wins, discordant = work
    side = ctl[K.C_H_SIDE]
    base = ctl[K.C_H_BASE]
    nl = ctl[K.C_H_NL]
    cand[0] = base
    n_cand = 1
    for k in range(nl):
        if n_cand >= cap:
            break
        x = ctl[K.C_H_LEGAL + k]
        if x != base:
            cand[n_cand] = x
            n_cand += 1
    if n_cand <= 1 or n <= 0:
        return base
    Gp = (pst, prs, G[2], G[3], G[4], G[5], pctl)
    nscript = ctl[K.C_N]
    for i in range(K.C_SCRIPT):
        pctl[i] = 0
    pctl[K.C_ON] = 1
    pctl[K.C_MASK] = ctl[K.C_MASK]
    pctl[K.C_BRANCH] = 1
    pctl[K.C_N] = nscript + 1
    for i in range(nscript):
        pctl[K.C_SCRIPT + i] = ctl[K.C_SCRIPT + i]
    for i in range(n_cand):
        wins[i] = 0
        discordant[i] = 0
    base_won = False
    for j in range(n):
        open_ = clear_lead.still_open(wins, discordant, n_cand, n - j, margin) if stop_early else np.int64(-2)
        if open_ == 0:
            break
        K.branch(ctl, pst, prs, pctl, side, seed, index, decision, j, peek, scramble)
        for i in range(n_cand):
            if i > 0 and (open_ >> i) & 1 == 0:
                continue
            K.save(st0, rs0, pst, prs)
            pctl[K.C_POS] = 0
            pctl[K.C_HALTED] = 0
            pctl[K.C_SCRIPT + nscript] = cand[i]
            run(Gp, st0, rs0)             # C_SAVE is 0: st0, rs0 are not written
            won = pst[S.ST_WINNER] == side
            if i == 0:
                base_won = won
            clear_lead.tally(wins, discordant, i, won, base_won)
    return cand[clear_lead.choose(wins, discordant, n_cand, margin)]


@njit(cache=True, inline="always")  # one caller: play_chunk (as ``decide``: no other copy of the kernel)
def play_game(G, seed, index, mask, n_side, cap_side, margin_side, peek, scramble, stop_early, record, work):
    """Deal game ``index`` of run ``seed`` and play it to its end, the sides of ``mask`` searching with
    ``n_side[side]`` playouts, ``cap_side[side]`` candidates and ``margin_side[side]``. With ``scramble`` > 0 (the hidden-
    information test) every searched decision is decided a second time with what the decider cannot see
    changed (``kernel.scramble_hidden``, key ``scramble``). ``record`` (3 x up to ``MAX_RECORD``): searched
    decision d's choice (played), its decision code, and with ``scramble`` the second choice. Returns the
    number of searched decisions."""
    st, rs, ctl = G[0], G[1], G[6]
    st0, rs0 = work[0], work[1]
    K.deal(G, seed, index)
    for i in range(K.N_CTL):
        ctl[i] = 0
    ctl[K.C_ON] = 1
    ctl[K.C_MASK] = mask
    ctl[K.C_HALT] = 1
    ctl[K.C_SAVE] = 1
    K.save(st, rs, st0, rs0)
    decision = np.int64(0)
    while True:
        run(G, st0, rs0)
        if ctl[K.C_HALTED] == 0 or st[S.ST_ERR] != 0:
            break
        side = ctl[K.C_H_SIDE]
        x = np.int64(0)
        # the choice played, then with ``scramble`` (recorded decisions only) the second one: one call site
        for again in range(2 if scramble > 0 and decision < record.shape[1] else 1):
            y = decide(G, n_side[side], cap_side[side], margin_side[side], seed, index, decision, peek,
                       scramble if again else np.int64(0), stop_early, work)
            if again:
                record[2, decision] = y
            else:
                x = y
        if decision < record.shape[1]:
            record[0, decision] = x
            record[1, decision] = ctl[K.C_H_DECISION]
        K.save(st0, rs0, st, rs)          # back to the turn's start
        if ctl[K.C_N] >= K.MAX_SCRIPT:
            st[S.ST_ERR] = 1
            break
        ctl[K.C_SCRIPT + ctl[K.C_N]] = x
        ctl[K.C_N] += 1
        ctl[K.C_POS] = 0
        ctl[K.C_HALTED] = 0
        decision += 1
    return decision


@njit(cache=True)
def play_chunk(seed, start, count, mode, opts, bd, cd, dk, policies, pp, mask, n_side, cap_side, margin_side, peek,
               scramble, stop_early, record, out):
    """``kernel.play_chunk`` with the sides of ``mask`` searching (their base policies' ids in
    ``policies``). Returns (the first game whose play set ``ST_ERR`` or -1, searched decisions of the last
    game)."""
    st = np.zeros(S.N_ST, np.int64)
    rs = np.zeros((S.N_STREAMS, 4), np.uint64)
    ctl = np.zeros(K.N_CTL, np.int64)
    for i in range(opts.shape[0]):
        st[K.OPT + i] = opts[i]
    st[S.ST_POLICY] = policies[0]
    st[S.ST_POLICY + 1] = policies[1]
    G = (st, rs, bd, cd, dk, pp, ctl)
    work = new_workspace()
    failed = -1
    decisions = np.int64(0)
    for g in range(count):
        decisions = play_game(G, seed, start + g, mask, n_side, cap_side, margin_side, peek, scramble, stop_early,
                              record, work)
        if st[S.ST_ERR] and failed < 0:
            failed = start + g
        K.write_outcome(st, out, g, mode)
    return failed, decisions


# ------------------------------------------------------------------ Python entry

def settings(side: int, params) -> tuple[int, int, int, float]:
    """The rollout's parameter vector of ``side`` (PolicySpec order: n, base, cap, margin) checked: (n,
    base policy id, cap, margin)."""
    vec = [float(v) for v in np.asarray(params, np.float64).ravel()]
    if len(vec) != 4:
        raise UnknownPolicyError(f"rollout takes 4 parameters (n, base, cap, margin), got {len(vec)}")
    n, base, cap, margin = vec
    specs = (P.WIZARD_POLICIES, P.MONSTER_POLICIES)[side]
    bases = {spec.policy_id: spec for spec in specs.values() if spec.policy_id in K.PLAYER_POLICIES[side]}
    if base not in bases:
        raise UnknownPolicyError(f"rollout parameter base={base:g} is not a {R.SIDES[side]} player policy of "
                                 "village; valid: " + ", ".join(f"{i} ({spec.name})"
                                                                for i, spec in sorted(bases.items())))
    if n < 0 or n != int(n) or n > MAX_N:
        raise UnknownPolicyError(f"rollout parameter n must be a whole number 0 .. {MAX_N}, got {n:g}")
    if not 1 <= cap <= MAX_CANDIDATES or cap != int(cap):
        raise UnknownPolicyError(f"rollout parameter cap must be a whole number 1 .. {MAX_CANDIDATES}, "
                                 f"got {cap:g}")
    if not 0 <= margin <= 100:
        raise UnknownPolicyError(f"rollout parameter margin must be a number 0 .. 100, got {margin:g}")
    return int(n), int(base), int(cap), float(margin)


def run_chunk(seed: int, start: int, count: int, options, board, mode: str, wizard_policy: int, wizard_params,
              monster_policy: int, monster_params, cards=None, *, peek: int = 0, scramble: int = 0,
              record: np.ndarray | None = None, stop_early: bool = True) -> dict[str, np.ndarray]:
    """``kernel.run_chunk`` where either side may be ``rollout`` (policy id ``policy_specs.ROLLOUT``, its
    parameters n, base, cap). ``peek``, ``scramble`` and ``record``: the hidden-information test's
    (``play_game``; ``peek`` 1 or True: playouts keep the real hidden arrangement and streams, the
    clairvoyant variant; 2: only the streams reseeded; 3: only the hidden cards redrawn; diagnostics);
    the number of searched decisions of the last game is ``out["_decisions"]``. ``stop_early=False`` plays
    every playout of every candidate (the same games: a test)."""
    ids, vecs = [wizard_policy, monster_policy], [wizard_params, monster_params]
    mask = 0
    n_side = np.zeros(2, np.int64)
    cap_side = np.ones(2, np.int64)
    margin_side = np.zeros(2, np.float64)
    for side in range(2):
        if int(ids[side]) == P.ROLLOUT:
            params = P.SEARCH_POLICIES[side]["rollout"].param_vector() if vecs[side] is None else vecs[side]
            n, base, cap, margin = settings(side, params)
            ids[side], vecs[side] = base, None
            n_side[side], cap_side[side], margin_side[side] = n, cap, margin
            mask |= 1 << side
    opts, bd, cd, dk, policies, pp, mode_code = K.pack_run(options, board, mode, ids[0], vecs[0], ids[1], vecs[1],
                                                           cards)
    if record is None:
        record = np.zeros((3, 0), np.int64)
    out = np.zeros((count, len(K.COLUMNS)), np.int64)
    failed, decisions = play_chunk(np.uint64(seed), np.int64(start), np.int64(count), mode_code, opts, bd, cd, dk,
                                   policies, pp, np.int64(mask), n_side, cap_side, margin_side, np.int64(peek),
                                   np.int64(scramble), np.bool_(stop_early), record, out)
    if failed >= 0:
        raise RuntimeError(f"village rollout: game {failed} of run {seed} in mode {mode!r} reached a state the "
                           f"reference rejects (a decision with no legal option, or a script not legal)")
    result = K.columns_of(out)
    result["_decisions"] = np.int64(decisions)
    return result
