"""Curses & Covens ``rollout``, for either side: flat Monte-Carlo search at each of that side's decisions,
compiled, over the resumable kernel (``kernel.advance``).

At a decision of the searching side, a few legal candidates are listed (``candidates``; the base
policy's own choice first), each is played ``n`` times from the current state to the end of the game
(the searching side by its base policy, the other side by its policy of the run), and the candidate
that wins most often is taken (ties: the earlier candidate, so the base policy's choice). A playout
copies the game's five state arrays and runs ``kernel.advance`` on the copy with the candidate as its
first action: the real game and every playout run the same compiled rules.

What a playout may know (docs/rules/covens.md, "rollout: covens"): each playout starts from a
*redraw* (``redraw``) of what the deciding side cannot see, on a stream of its own keyed by (seed, game,
decision, playout) and the same for every candidate (common random numbers): the cards it cannot place
are dealt at random to the places it cannot see into (the other towns' unknown cards, the woods, the
deck positions it does not know), every hand keeping its size. The searching side's own knowledge is
computed from what its view holds (``known_hands``): census hands, the hunter's deals, the travel log it
saw (with the cards of the moves a town took part in), the hunt's reveals.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from cursedsim.bits import ONE, ZERO, bit, count, lowest, nth, select_get, select_set
from cursedsim.games.covens import kernel as k
from cursedsim.games.covens import policies as pol
from cursedsim.games.covens import policy_specs as PS
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens import tables as TB
from cursedsim.rng import below_t, rollout_stream, seed_tuple

#: Candidates per decision, at most (the ``cap`` parameter may lower it).
MAX_CANDIDATES = 32

# ---- parameters of the rollout policy (PolicySpec order in policy_specs.py)
P_N = 0
P_BASE = 1
P_CAP = 2

#: Sub-streams of a playout (``rng.rollout_stream``): its redraw, its deck, the hunter's and the towns' policies.
SUB_DEAL = 0
SUB_DECK = 1
SUB_HUNTER = 2
SUB_TOWN = 3

TRUE_WITCHES = uint64(TB.TRUE_WITCH_MASK)
WITCH_OR_FAKE = uint64(TB.TRUE_WITCH_MASK | TB.FAKE_BIT)
FAKE_BIT = uint64(TB.FAKE_BIT)
RITUALS = uint64(TB.RITUAL_MASK)
ALL_CARDS = uint64(TB.ALL_CARDS_MASK)
NONE = np.int64(-1)
NO_KNOWN = (ZERO, ZERO, ZERO, ZERO, ZERO)


@njit(cache=True)
def new_workspace():
    """The arrays one chunk of rollout games reuses: the redrawn state of a playout, the playout's copy,
    the candidates and their wins, the Travel a hunter's redraw replays."""
    sample = (np.zeros(R.N_CARDS, np.int64), np.zeros((S.N_ROWS, S.MAX_TOWNS), np.uint64),
              np.zeros((2, pol.LOG_SIZE), np.int64), np.zeros(S.N_COUNTS, np.int64), np.zeros(S.N_MASKS, np.uint64))
    scratch = (np.zeros(R.N_CARDS, np.int64), np.zeros((S.N_ROWS, S.MAX_TOWNS), np.uint64),
               np.zeros((2, pol.LOG_SIZE), np.int64), np.zeros(S.N_COUNTS, np.int64), np.zeros(S.N_MASKS, np.uint64))
    replay = (np.zeros(R.N_CARDS, np.int64), np.zeros((S.N_ROWS, S.MAX_TOWNS), np.uint64),
              np.zeros((2, pol.LOG_SIZE), np.int64), np.zeros(S.N_COUNTS, np.int64), np.zeros(S.N_MASKS, np.uint64))
    cand = np.zeros(MAX_CANDIDATES, np.int64)
    wins = np.zeros(MAX_CANDIDATES, np.int64)
    return sample, scratch, cand, wins, replay


# ------------------------------------------------------------------ candidates


@njit(cache=True, inline="always")
def add(cand, n_cand, cap, action, legal):
    """Append ``action`` when legal, not listed and the list is not full; the new count."""
    if n_cand >= cap or not pol.legal_has(legal, action):
        return n_cand
    for i in range(n_cand):
        if cand[i] == action:
            return n_cand
    cand[n_cand] = action
    return n_cand + 1


@njit(cache=True)
def candidates(cand, cap, base_action, kind, me, towns, hands, census, legal):
    """The actions tried at a decision, the base policy's first. A Travel turn: each ask, each card given
    to the town whose census hand holds most cards of its coven (its suit's witches and the wild; a card of
    no suit: to the town holding fewest cards), each swap with the woods. Passage's more: each card to each
    allowed town, and stopping. Every other decision: every legal action (at most 6). In ascending action
    id within each group; ``cap`` cuts the list."""
    n_cand = add(cand, 0, cap, base_action, legal)
    if kind == S.D_TRAVEL:
        for u in range(towns):
            n_cand = add(cand, n_cand, cap, S.A_ASK + u, legal)
        hand = hands[me]
        rest = hand
        while rest != ZERO:
            c = lowest(rest)
            rest &= rest - ONE
            best = NONE
            best_k = np.int64(-1)
            suit = TB.CARD_SUIT[c]
            for u in range(towns):
                if u == me:
                    continue
                if suit >= 0 or c == R.WILD:
                    k_u = np.int64(0)
                    for s in range(R.N_SUITS):
                        if suit < 0 or s == suit:
                            k_u = max(k_u, np.int64(count(census[u] & (uint64(TB.SUIT_MASK[s]) | uint64(TB.WILD_BIT)))))
                else:
                    k_u = -np.int64(count(hands[u]))
                if best < 0 or k_u > best_k:
                    best = u
                    best_k = k_u
            if best >= 0:
                n_cand = add(cand, n_cand, cap, S.A_GIVE + c * S.MAX_TOWNS + best, legal)
        rest = hand
        while rest != ZERO:
            n_cand = add(cand, n_cand, cap, S.A_SWAP + lowest(rest), legal)
            rest &= rest - ONE
        return n_cand
    for w in range(4):
        word = select_get(legal, w)
        while word != ZERO:
            n_cand = add(cand, n_cand, cap, 64 * w + lowest(word), legal)
            word &= word - ONE
    return n_cand


# ------------------------------------------------------------------ what the deciding side knows


@njit(cache=True)
def known_hands(cards, log, counts, masks, towns, side, me, kind):
    """The cards the deciding side knows each town holds (a 5-tuple of masks), from its view only: the
    census hands; the hunter's own deals; the travel log it saw, where a town that gave, answered an ask or
    swapped keeps no known card unless the decider took part in the move (then it knows the card: the
    giver loses it, the receiver holds it); the hunt's reveals (a picked card leaves its town, a townsfolk
    is known where the hunter gave it, a captured witch's town holds nothing). A town knows its own hand.
    The hunter knows nothing of Travel under Darkness, nor anything at a census shuffle offer."""
    hunter = side == S.SIDE_HUNTER
    known = NO_KNOWN
    for t in range(towns):
        hand = cards[S.ROW_CENSUS, t]
        if hunter:
            hand |= cards[S.ROW_DEALT, t]
        known = select_set(known, t, hand)
    after_travel = kind == S.D_DOOM or kind == S.D_PICK or kind == S.D_TOWNSFOLK
    if hunter and after_travel and counts[S.C_ACTIVE] == R.DARKNESS:
        known = NO_KNOWN
    else:
        for i in range(counts[S.C_N_LOG]):
            actor, what, target, moved = pol.log_fields(log[0, i])
            card = log[1, i]
            if what == S.LOG_GIVE or (what == S.LOG_ASK and moved != 0):
                src = actor if what == S.LOG_GIVE else target
                dst = target if what == S.LOG_GIVE else actor
                if not hunter and (src == me or dst == me):
                    known = select_set(known, src, select_get(known, src) & ~bit(card))
                    known = select_set(known, dst, select_get(known, dst) | bit(card))
                else:
                    known = select_set(known, src, ZERO)
            elif what == S.LOG_SWAP and (hunter or actor != me):
                known = select_set(known, actor, ZERO)
    for i in range(counts[S.C_N_REVEALS]):
        src, card, to = pol.reveal_fields(counts[S.C_REVEALS + i])
        if bit(card) & WITCH_OR_FAKE != ZERO:
            known = select_set(known, src, ZERO)
        else:
            known = select_set(known, src, select_get(known, src) & ~bit(card))
        if to >= 0:
            known = select_set(known, to, select_get(known, to) | bit(card))
    if me >= 0:
        known = select_set(known, me, cards[S.ROW_HANDS, me])
    return known


@njit(cache=True, inline="always")
def copy_state(deck, cards, log, counts, masks, into):
    """Copy a game's five arrays into ``into`` (the log up to its entries)."""
    i_deck, i_cards, i_log, i_counts, i_masks = into
    i_deck[:] = deck
    i_cards[:] = cards
    n_log = counts[S.C_N_LOG]
    i_log[:, :n_log] = log[:, :n_log]
    i_counts[:] = counts
    i_masks[:] = masks


@njit(cache=True, inline="always")
def random_card(cards, rng):
    """A card of the non-empty set ``cards``, uniformly: (card, rng)."""
    j, rng = below_t(rng, count(cards))
    return nth(cards, j), rng


@njit(cache=True)
def infer_travel(deck, cards, log, counts, masks, towns, opts, hands, woods, town_id, town_params, replay, rng):
    """This round's Travel played again from its start, as the hunter can reconstruct it (the hands he
    knows, the woods card drawn for him, the town knowing it if he saw it swap), by the towns' policy of
    the run wherever its choice agrees with the travel log he saw (its give to the logged town, its swap,
    its answer to an ask), else with the logged move made with a card drawn uniformly from the mover's
    hand. Returns (whether it replayed the whole log, the hands and the woods card after it, rng). The
    towns' policy draws (``random``) come from ``rng``, never from the game's streams."""
    r_deck, r_cards, r_log, r_counts, r_masks = replay
    copy_state(deck, cards, log, counts, masks, replay)
    for t in range(towns):
        r_cards[S.ROW_HANDS, t] = select_get(hands, t)
        r_cards[S.ROW_GAVE, t] = ZERO
        r_cards[S.ROW_RECEIVED, t] = ZERO
    r_counts[S.C_WOODS] = woods
    r_counts[S.C_HUNTER_WOODS] = counts[S.C_HUNTER_WOODS_TRAVEL]
    for t in range(S.MAX_TOWNS):
        r_counts[S.C_WOODS_KNOWN + t] = -1
    if counts[S.C_HOLDER_TRAVEL] >= 0:
        r_counts[S.C_WOODS_KNOWN + counts[S.C_HOLDER_TRAVEL]] = woods
    r_counts[S.C_N_LOG] = 0
    r_counts[S.C_N_REVEALS] = 0
    r_counts[S.C_REVEALS] = 0
    r_counts[S.C_REVEALS + 1] = 0
    for t in range(S.MAX_TOWNS):
        r_counts[S.C_AFTER + t] = -1
    r_counts[S.C_POS] = k.POS_TRAVEL_TURN
    r_counts[S.C_LAP] = 0
    r_counts[S.C_STEP] = 0
    for w in range(4):
        r_masks[S.M_RNG_TOWN + w] = rng[w]
        r_masks[S.M_RNG_DECK + w] = rng[w]
    _, rng = below_t(rng, np.int64(2))
    both = np.int64(S.STOP_HUNTER | S.STOP_TOWN)
    pos = k.advance(r_deck, r_cards, r_log, r_counts, r_masks, towns, opts, town_id, town_params, town_id,
                    town_params, both, NONE)
    n_log = counts[S.C_N_LOG]
    i = 0
    while pos == k.POS_TRAVEL_TURN or pos == k.POS_MORE or pos == k.POS_ANSWER:
        kind = r_counts[S.C_KIND]
        a = r_counts[S.C_ME]
        k.advance(r_deck, r_cards, r_log, r_counts, r_masks, towns, opts, town_id, town_params, town_id, town_params,
                  both, np.int64(S.ASK_FIRST))
        choice = r_counts[S.C_ACTION]
        hand = r_cards[S.ROW_HANDS, a]
        if kind == S.D_ANSWER:
            act = choice
            i += 1
        else:
            if i >= n_log:
                return False, hands, woods, rng
            actor, what, target, moved = pol.log_fields(log[0, i])
            if kind == S.D_MORE:
                if actor != a or what != S.LOG_GIVE:
                    act = np.int64(S.A_NO)
                elif choice < S.A_ASK and (choice - S.A_GIVE) % S.MAX_TOWNS == target:
                    act = choice
                    i += 1
                else:
                    c, rng = random_card(hand, rng)
                    act = S.A_GIVE + c * S.MAX_TOWNS + target
                    i += 1
            elif actor != a:
                return False, hands, woods, rng
            elif what == S.LOG_GIVE:
                if choice < S.A_ASK and (choice - S.A_GIVE) % S.MAX_TOWNS == target:
                    act = choice
                else:
                    c, rng = random_card(hand, rng)
                    act = S.A_GIVE + c * S.MAX_TOWNS + target
                i += 1
            elif what == S.LOG_ASK:
                act = S.A_ASK + target
                if moved == 0:
                    i += 1
            elif what == S.LOG_SWAP:
                if choice >= S.A_SWAP and choice < S.A_CARD:
                    act = choice
                else:
                    c, rng = random_card(hand, rng)
                    act = S.A_SWAP + c
                i += 1
            else:
                act = np.int64(S.A_NO)
                i += 1
        pos = k.advance(r_deck, r_cards, r_log, r_counts, r_masks, towns, opts, town_id, town_params, town_id,
                        town_params, both, act)
    if i != n_log or r_counts[S.C_ERR] != k.NO_ERROR or (pos != k.POS_DOOM and pos != k.POS_PICK):
        return False, hands, woods, rng
    out = NO_KNOWN
    for t in range(towns):
        out = select_set(out, t, r_cards[S.ROW_HANDS, t])
    return True, out, r_counts[S.C_WOODS], rng


@njit(cache=True)
def hunter_travel_replay(deck, cards, log, counts, masks, towns, opts, placed, slot_cards, in_game, infer, town_id,
                         town_params, replay, rng):
    """The hunter's redraw after an open Travel (his Hunt decisions, not under Darkness): the hands as they
    were when Travel began (his census and deals: exact), the woods card then (known, the card a town took
    from the woods and the Hunt revealed, or drawn from the cards he cannot place), then the travel log
    replayed with each moved card drawn uniformly from its mover's hand (he never sees which), then the
    Hunt's reveals: a revealed card is swapped into its town's drawn hand if it is not there, then leaves
    it (a witch's town flees: its drawn cards join the deck). Returns (hands, woods, the cards of the
    deck's unknown positions, rng)."""
    hands = NO_KNOWN
    start = ZERO
    for t in range(towns):
        h = cards[S.ROW_CENSUS, t] | cards[S.ROW_DEALT, t]
        hands = select_set(hands, t, h)
        start |= h
    revealed = ZERO
    for i in range(counts[S.C_N_REVEALS]):
        _, card, _ = pol.reveal_fields(counts[S.C_REVEALS + i])
        revealed |= bit(card)
    # the woods card and the deck's unknown cards when Travel began
    unknown = in_game & ~start & ~placed & ~slot_cards & ~revealed
    woods = counts[S.C_HUNTER_WOODS_TRAVEL]
    if woods >= 0:
        unknown &= ~bit(woods)
    elif revealed & ~start != ZERO:
        woods = lowest(revealed & ~start)   # a revealed card no hand held: it came from the woods
    else:
        woods, rng = random_card(unknown, rng)
        unknown &= ~bit(woods)
    inferred = False
    if infer:
        inferred, hands_i, woods_i, rng = infer_travel(deck, cards, log, counts, masks, towns, opts, hands, woods,
                                                       town_id, town_params, replay, rng)
        if inferred:
            hands = hands_i
            woods = woods_i
    if not inferred:
        for i in range(counts[S.C_N_LOG]):
            actor, what, target, moved = pol.log_fields(log[0, i])
            if what == S.LOG_GIVE or (what == S.LOG_ASK and moved != 0):
                src = actor if what == S.LOG_GIVE else target
                dst = target if what == S.LOG_GIVE else actor
                c, rng = random_card(select_get(hands, src), rng)
                hands = select_set(hands, src, select_get(hands, src) & ~bit(c))
                hands = select_set(hands, dst, select_get(hands, dst) | bit(c))
            elif what == S.LOG_SWAP:
                c, rng = random_card(select_get(hands, actor), rng)
                hands = select_set(hands, actor, (select_get(hands, actor) & ~bit(c)) | bit(woods))
                woods = c
    for i in range(counts[S.C_N_REVEALS]):
        src, card, to = pol.reveal_fields(counts[S.C_REVEALS + i])
        c = bit(card)
        held = select_get(hands, src)
        if held & c == ZERO:
            x, rng = random_card(held, rng)
            if woods == card:
                woods = x
            else:
                for t in range(towns):
                    if select_get(hands, t) & c != ZERO:
                        hands = select_set(hands, t, (select_get(hands, t) & ~c) | bit(x))
            held = (held & ~bit(x)) | c
        held &= ~c
        if c & WITCH_OR_FAKE != ZERO:
            unknown |= held   # the rest of the hand fled under the deck
            held = ZERO
        hands = select_set(hands, src, held)
        if to >= 0:
            hands = select_set(hands, to, select_get(hands, to) | c)
    return hands, woods, unknown, rng


@njit(cache=True)
def redraw(deck, cards, log, counts, masks, sample, towns, opts, side, me, kind, infer, other_id, other_params, replay,
           rng):
    """Copy the game into ``sample`` with what the deciding side (``side``, town ``me``) cannot see drawn
    anew from ``rng``, every hand keeping its size. A town, and the hunter before Travel or under Darkness:
    every card it cannot place (``known_hands``; not in front of the hunter, not the woods card or a deck
    card it knows) shuffled and dealt to the unknown part of the hands, the woods (unless known) and the
    deck positions it does not know. The hunter after an open Travel: ``hunter_travel_replay``. The
    records that follow the cards are redrawn with them: the towns' notes of what they gave, received and
    know of the woods (the last swapper's, when the decider saw who swapped), the hunter's deals to other
    towns and knowledge of the woods (a town's redraw), the announcement under Despair (the hunter's).
    Returns rng."""
    s_deck, s_cards, s_log, s_counts, s_masks = sample
    copy_state(deck, cards, log, counts, masks, sample)
    hunter = side == S.SIDE_HUNTER
    top = counts[S.C_TOP]
    n_deck = counts[S.C_N_DECK]
    # cards out of every hand, the woods and the deck: in front of the hunter, drawn and not dealt yet, a
    # picked townsfolk awaiting its town
    placed = masks[S.M_CAPTURED] | masks[S.M_RITUALS] | masks[S.M_REMAINING]
    if counts[S.C_FAKE] != 0:
        placed |= FAKE_BIT
    if kind == S.D_TOWNSFOLK:
        placed |= bit(counts[S.C_PICK_CARD])
    # deck positions the deciding side knows: the hunter the witches he saw go under; a town knows which
    # witches they are, not their order, so they are shuffled among those positions
    known_slots = masks[S.M_KNOWN_SLOTS]
    slot_cards = ZERO
    for i in range(n_deck):
        q = k.slot(top, i)
        if (known_slots >> uint64(q)) & ONE != ZERO:
            slot_cards |= bit(deck[q])
    in_game = ALL_CARDS if opts[S.OPT_RITUALS] else ALL_CARDS & ~RITUALS
    after_travel = kind == S.D_DOOM or kind == S.D_PICK or kind == S.D_TOWNSFOLK
    if hunter and after_travel and counts[S.C_ACTIVE] != R.DARKNESS:
        hands, woods, rest, rng = hunter_travel_replay(deck, cards, log, counts, masks, towns, opts, placed, slot_cards,
                                                       in_game, infer, other_id, other_params, replay, rng)
        for t in range(towns):
            s_cards[S.ROW_HANDS, t] = select_get(hands, t)
    else:
        known = known_hands(cards, log, counts, masks, towns, side, me, kind)
        taken = placed | slot_cards
        for t in range(towns):
            taken |= select_get(known, t)
        woods = counts[S.C_HUNTER_WOODS] if hunter else (counts[S.C_WOODS_KNOWN + me] if me >= 0 else NONE)
        if woods >= 0:
            taken |= bit(woods)
        rest = in_game & ~taken
        for t in range(towns):
            hand = select_get(known, t)
            for _ in range(count(cards[S.ROW_HANDS, t]) - count(hand)):
                c, rng = random_card(rest, rng)
                rest &= ~bit(c)
                hand |= bit(c)
            s_cards[S.ROW_HANDS, t] = hand
        if woods < 0:
            woods, rng = random_card(rest, rng)
            rest &= ~bit(woods)
    s_counts[S.C_WOODS] = woods
    # the deck: its unknown positions from ``rest`` in a random order; the known witches kept (the hunter)
    # or in a random order among their positions (a town)
    order = slot_cards
    for i in range(n_deck):
        q = k.slot(top, i)
        if (known_slots >> uint64(q)) & ONE != ZERO:
            if not hunter:
                c, rng = random_card(order, rng)
                order &= ~bit(c)
                s_deck[q] = c
        else:
            if rest == ZERO:
                raise ValueError("rollout: the redraw has fewer cards than the deck's unknown positions")
            c, rng = random_card(rest, rng)
            rest &= ~bit(c)
            s_deck[q] = c
    if rest != ZERO:
        raise ValueError("rollout: the redraw has cards left over")
    for t in range(towns):
        if count(s_cards[S.ROW_HANDS, t]) != count(cards[S.ROW_HANDS, t]):
            raise ValueError("rollout: a redrawn hand does not keep its size")
        if t != me:
            s_cards[S.ROW_GAVE, t] = ZERO
            s_cards[S.ROW_RECEIVED, t] = ZERO
    if not hunter:
        # the hunter's deals to the other towns, as many as he dealt each: cards outside every census hand
        # (as dealt cards are), the town's own drawn cards first, so the hunter's notes stay in step
        censused = ZERO
        for t in range(towns):
            censused |= cards[S.ROW_CENSUS, t]
        spare = in_game & ~censused & ~placed & ~slot_cards
        if me >= 0:
            spare &= ~cards[S.ROW_DEALT, me]
        for t in range(towns):
            n_dealt = count(cards[S.ROW_DEALT, t])
            if t == me or n_dealt == 0:
                continue
            dealt = ZERO
            mine = s_cards[S.ROW_HANDS, t] & spare
            while count(dealt) < n_dealt and (mine | spare) != ZERO:
                c = lowest(mine) if mine != ZERO else lowest(spare)
                mine &= ~bit(c)
                spare &= ~bit(c)
                dealt |= bit(c)
            s_cards[S.ROW_DEALT, t] = dealt
    # the records that follow the cards
    holder = NONE
    for t in range(towns):
        if counts[S.C_WOODS_KNOWN + t] >= 0:
            holder = t
    for t in range(S.MAX_TOWNS):
        if t != me:
            s_counts[S.C_WOODS_KNOWN + t] = -1
    seen = counts[S.C_SWAP_SEEN] != 0 or not hunter   # towns always see the travel log
    if holder >= 0 and holder != me and seen:
        s_counts[S.C_WOODS_KNOWN + holder] = woods
    if not hunter:
        if counts[S.C_HUNTER_WOODS] >= 0:
            s_counts[S.C_HUNTER_WOODS] = woods
        if masks[S.M_DRAWN] != ZERO:
            drawn = ZERO
            for t in range(towns):
                drawn |= s_cards[S.ROW_DEALT, t]
            s_masks[S.M_DRAWN] = drawn
    elif counts[S.C_ACTIVE] == R.DESPAIR:
        s_counts[S.C_ANNOUNCED] = -1
    return rng


# ------------------------------------------------------------------ one decision


@njit(cache=True, inline="always")
def set_streams(masks, seed, index, decision, playout):
    """A playout's own deck and policy streams."""
    deck_rng = seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_DECK)))
    h_rng = seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_HUNTER)))
    t_rng = seed_tuple(seed, index, rollout_stream(decision, playout, np.int64(SUB_TOWN)))
    for w in range(4):
        masks[S.M_RNG_DECK + w] = deck_rng[w]
        masks[S.M_RNG_HUNTER + w] = h_rng[w]
        masks[S.M_RNG_TOWN + w] = t_rng[w]


@njit(cache=True)
def decide(deck, cards, log, counts, masks, towns, opts, side, base_id, base_params, other_id, other_params, n, cap,
           infer, seed, index, peek, work):
    """The rollout's action at the game's pending decision (``kernel.advance`` halted at a decision of
    ``side``). The base policy's own choice is asked first (``state.ASK_FIRST``: on the side's stream in
    ``masks``, advanced as the base policy would draw it); playouts run the side by ``base_id`` and the
    other side by ``other_id``. The decision number keying the streams is the game's count of decisions
    so far. ``peek`` (tests only): the clairvoyant variant, whose playouts continue the real hidden cards
    and streams (no redraw): the hidden-information test must catch it."""
    sample, scratch, cand, wins, replay = work
    kind = counts[S.C_KIND]
    me = counts[S.C_ME]
    decision = counts[S.C_DECISIONS]
    legal = (masks[S.M_LEGAL], masks[S.M_LEGAL + 1], masks[S.M_LEGAL + 2], masks[S.M_LEGAL + 3])
    k.advance(deck, cards, log, counts, masks, towns, opts, base_id, base_params, base_id, base_params, k.NO_STOP,
              np.int64(S.ASK_FIRST))
    n_cand = candidates(cand, cap, counts[S.C_ACTION], kind, me, towns, cards[S.ROW_HANDS], cards[S.ROW_CENSUS],
                        legal)
    best = 0
    if n_cand > 1 and n > 0:
        wins[:n_cand] = 0
        win_value = R.WINNER_HUNTER if side == S.SIDE_HUNTER else R.WINNER_TOWN
        h_id = base_id if side == S.SIDE_HUNTER else other_id
        h_params = base_params if side == S.SIDE_HUNTER else other_params
        t_id = other_id if side == S.SIDE_HUNTER else base_id
        t_params = other_params if side == S.SIDE_HUNTER else base_params
        s_deck, s_cards, s_log, s_counts, s_masks = scratch
        for j in range(n):
            if peek:
                copy_state(deck, cards, log, counts, masks, sample)
            else:
                rng = seed_tuple(seed, index, rollout_stream(decision, j, np.int64(SUB_DEAL)))
                redraw(deck, cards, log, counts, masks, sample, towns, opts, side, me, kind, infer, other_id, other_params,
                       replay, rng)
                set_streams(sample[4], seed, index, decision, np.int64(j))
            for i in range(n_cand):
                copy_state(sample[0], sample[1], sample[2], sample[3], sample[4], scratch)
                k.advance(s_deck, s_cards, s_log, s_counts, s_masks, towns, opts, h_id, h_params, t_id, t_params,
                          k.NO_STOP, cand[i])
                if s_counts[S.C_WINNER] == win_value:
                    wins[i] += 1
        for i in range(1, n_cand):
            if wins[i] > wins[best]:
                best = i
    return cand[best]


# ------------------------------------------------------------------ whole games


@njit(cache=True)
def play_chunk(seed, start, n_games, towns, opts, hunter_id, hunter_params, town_id, town_params, h_search, h_n,
               h_cap, h_infer, t_search, t_n, t_cap, out_winner, out_win_type, hunter_won, town_won, rounds, witches, out_fake,
               rituals, out_spells, cards_left, out_picks):
    """Games start .. start+n_games-1 of the run ``seed`` with the rollout deciding for the sides whose
    ``*_search`` is set (``hunter_id``/``town_id`` are then that side's base policy, its ``*_n`` and
    ``*_cap`` the search's, ``h_infer`` the hunter's ``infer``), fills the outcome arrays as ``kernel.play_chunk``. Returns (0, 0) or
    (game offset, error code) of the first illegal decision."""
    deck, cards, log, counts, masks = k.new_arrays()
    work = new_workspace()
    stop = np.int64((S.STOP_HUNTER if h_search else 0) | (S.STOP_TOWN if t_search else 0))
    for g in range(n_games):
        index = start + g
        k.start_game(deck, cards, log, counts, masks, seed, index, towns, opts)
        pos = k.advance(deck, cards, log, counts, masks, towns, opts, hunter_id, hunter_params, town_id, town_params,
                        stop, k.NONE)
        while pos != k.POS_OVER:
            if counts[S.C_KIND] == S.D_SHUFFLE or counts[S.C_KIND] == S.D_DEAL or counts[S.C_KIND] >= S.D_DOOM:
                action = decide(deck, cards, log, counts, masks, towns, opts, np.int64(S.SIDE_HUNTER), hunter_id,
                                hunter_params, town_id, town_params, h_n, h_cap, h_infer, seed, index, np.bool_(False),
                                work)
            else:
                action = decide(deck, cards, log, counts, masks, towns, opts, np.int64(S.SIDE_TOWN), town_id,
                                town_params, hunter_id, hunter_params, t_n, t_cap, np.bool_(False), seed, index,
                                np.bool_(False), work)
            pos = k.advance(deck, cards, log, counts, masks, towns, opts, hunter_id, hunter_params, town_id,
                            town_params, stop, action)
        if counts[S.C_ERR] != k.NO_ERROR:
            return g, counts[S.C_ERR]
        k.write_outcome(g, counts, masks, out_winner, out_win_type, hunter_won, town_won, rounds, witches, out_fake,
                        rituals, out_spells, cards_left, out_picks)
    return 0, k.NO_ERROR


# ------------------------------------------------------------------ Python entry


def settings(side: str, params) -> tuple[int, int, tuple, int, bool]:
    """The rollout's parameter vector of ``side`` (PolicySpec order: n, base, cap, and the hunter's infer)
    checked and resolved: (n, base policy id, base parameter tuple (its defaults), cap, infer)."""
    from cursedsim.errors import UnknownPolicyError
    values = [float(v) for v in params]
    names = list(PS.POLICIES[side]["rollout"].params)
    if len(values) != len(names):
        raise UnknownPolicyError(f"{side} policy 'rollout' takes {len(names)} parameters ({', '.join(names)}), "
                                 f"got {len(values)}")
    n, base, cap = values[:3]
    infer = values[3] if side == "hunter" else 0.0
    bases = {spec.policy_id: spec for spec in PS.POLICIES[side].values()   # built-in heuristics only
             if spec.name != "rollout" and spec.impl is None and spec.engine == "kernel"}
    if base not in bases:
        raise UnknownPolicyError(f"{side} rollout parameter base={base:g} is not a built-in {side} policy of covens; "
                                 "valid: " + ", ".join(f"{i} ({spec.name})" for i, spec in sorted(bases.items())))
    if n < 0 or n != int(n) or n >= 1 << 22:
        raise UnknownPolicyError(f"rollout parameter n must be a whole number 0 .. {(1 << 22) - 1}, got {n:g}")
    if not 1 <= cap <= MAX_CANDIDATES or cap != int(cap):
        raise UnknownPolicyError(f"rollout parameter cap must be a whole number 1 .. {MAX_CANDIDATES}, got {cap:g}")
    if infer not in (0.0, 1.0):
        raise UnknownPolicyError(f"rollout parameter infer must be 0 or 1, got {infer:g}")
    spec = bases[int(base)]
    return int(n), int(base), pol.params_tuple(spec.param_vector()), int(cap), bool(infer)


def run_chunk(seed: int, start: int, count: int, players: int, options, hunter_id: int, hunter_params,
              town_id: int, town_params) -> dict[str, np.ndarray]:
    """Python entry as ``kernel.run_chunk``: a side whose id is ``PS.ROLLOUT`` plays the rollout search with
    its parameter vector (n, base, cap)."""
    from cursedsim.errors import RunError
    opts = S.option_tuple(options) if isinstance(options, R.RuleOptions) else tuple(options)
    towns = int(players) - 1
    sides = []
    for side, policy_id, params in (("hunter", hunter_id, hunter_params), ("town", town_id, town_params)):
        if policy_id == PS.ROLLOUT:
            n, base, base_params, cap, infer = settings(side, params)
            sides.append((True, base, base_params, n, cap, infer))
        else:
            sides.append((False, int(policy_id), pol.params_tuple(params), 0, 1, False))
    (h_search, h_id, h_params, h_n, h_cap, h_infer), (t_search, t_id, t_params, t_n, t_cap, _) = sides
    out = {column: np.empty(count, np.dtype(dtype)) for column, dtype in R.OUTCOME_DTYPES.items()}
    spells = np.empty((count, R.N_SPELLS), np.int8)
    game, err = play_chunk(
        np.uint64(seed), np.int64(start), np.int64(count), np.int64(towns), tuple(np.int64(v) for v in opts),
        np.int64(h_id), h_params, np.int64(t_id), t_params, np.bool_(h_search), np.int64(h_n), np.int64(h_cap),
        np.bool_(h_infer), np.bool_(t_search), np.int64(t_n), np.int64(t_cap),
        out["winner"], out["win_type"], out["hunter_won"], out["town_won"], out["rounds"],
        out["witches_captured"], out["fake_witch_caught"], out["rituals_taken"], spells, out["cards_left"],
        out["picks"])
    if err != k.NO_ERROR:
        kind, action = divmod(int(err) - 1, S.N_ACTIONS)
        raise RunError(f"game {start + int(game)} of seed {seed}: the {R.SIDES[S.DECISION_SIDE[kind]]} chose "
                       f"{S.action_name(action)!r} (action {action}), which is not legal at decision "
                       f"{S.DECISION_NAMES[kind]!r}")
    for j, name in enumerate(R.SPELL_NAMES):
        out[f"spells_{name}"] = np.ascontiguousarray(spells[:, j])
    return out
