"""The numba engine of Curses & Covens: the procedure of docs/rules/covens.md over flat state.

``play_chunk`` plays games ``start .. start+count-1`` of a run, each as one loop over rounds (Census,
Arrival, Travel, Hunt) with the rule steps as small helpers, and ``run_chunk`` is the Python entry
(outcome arrays by ``rules.OUTCOME_DTYPES``). Random draws happen exactly where the reference engine
makes them (``state``: set-up shuffle, hunter shuffles, discard orders and hunt picks on STREAM_DECK,
each side's policy on its own stream), and every decision the reference asks is asked here, so the two
engines play the same games. Every action a policy returns is checked against the legal set; an illegal
one stops the chunk and ``run_chunk`` raises a RunError.

State (docs/architecture.md, "Kernels"): scalars in locals of ``play_chunk``'s game loop; hands and the
per-round records (census hands, dealt, given and received cards) as uint64 card masks in small arrays
allocated once per chunk; the deck as a circular int64 queue (``deck[top]`` is the top card, discards are written
at ``top + n_deck``), so drawing and discarding move no card; the hunter's knowledge of the deck as a
mask of queue slots holding a witch he saw go under. Policies get a view tuple (``observe_hunter``,
``observe_town``) built from these, holding only what the spec lets that side see; the ``random``
policies need no view and skip building it.

Compile time: a decision of a side's policy is one call (``ask_town``) or one small inline helper
(``ask_hunter``), the policies are compiled once each, and the locals handed to them start as int64 (see
``play_chunk``), so the kernel compiles in seconds, not minutes (issue 24).
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from cursedsim.bits import ONE, ZERO, bit, count, has, lowest, nth, select_get
from cursedsim.errors import RunError
from cursedsim.games.covens import policies as pol
from cursedsim.games.covens import policy_specs as PS
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens import tables as TB
from cursedsim.rng import below_t, seed_tuple

#: Slots of the circular deck (the whole deck fits, so the queue never overwrites itself).
CAP = R.N_CARDS
#: An error code of a game: 0 = no error, else 1 + kind * N_ACTIONS + action (mod N_ACTIONS).
NO_ERROR = np.int64(0)
#: No town (a ``me`` or ``about`` of a view), no spell; the reveals of a round before its Hunt, the hand
#: sizes after Travel before it ends (int64: see ``play_chunk``).
NONE = np.int64(-1)
NO_REVEALS = (np.int64(0), np.int64(0))
BEFORE_TRAVEL = (NONE, NONE, NONE, NONE, NONE)

FAKE_BIT = uint64(TB.FAKE_BIT)
WILD_BIT = uint64(TB.WILD_BIT)
RITUALS = uint64(TB.RITUAL_MASK)
ALL_SLOTS = uint64((1 << CAP) - 1)


# ---------------------------------------------------------------- the deck: a circular queue


@njit(cache=True, inline="always")
def slot(top, i):
    """The array slot of the i-th card from the top (0 <= top, i < CAP)."""
    k = top + i
    return k - CAP if k >= CAP else k


@njit(cache=True, inline="always")
def shuffle_range(deck, top, first, n, rng):
    """Fisher-Yates over the n cards at positions first .. first+n-1 from the top: for i = n-1 down to
    1, j = below(i + 1), swap (``state``: set-up, hunter shuffles, random discard orders)."""
    for i in range(n - 1, 0, -1):
        j, rng = below_t(rng, i + 1)
        a = slot(top, first + i)
        b = slot(top, first + j)
        card = deck[a]
        deck[a] = deck[b]
        deck[b] = card
    return rng


@njit(cache=True, inline="always")
def to_bottom(deck, top, n_deck, cards, random, rng):
    """One discard event: ``cards`` go face-down under the deck, in ascending code order shuffled by
    Fisher-Yates when ``random`` (the first ends nearest the top). Returns (n_deck, the slots they
    took as a mask, rng)."""
    first = n_deck
    slots = ZERO
    rest = cards
    while rest != ZERO:
        k = slot(top, n_deck)
        deck[k] = lowest(rest)
        slots |= bit(k)
        rest &= rest - ONE
        n_deck += 1
    if random:
        rng = shuffle_range(deck, top, first, n_deck - first, rng)
    return n_deck, slots, rng


@njit(cache=True, inline="always")
def positions_from_top(slots, top):
    """A mask of queue slots as a mask of positions from the top (bit i = the i-th card)."""
    t = uint64(top)
    return ((slots >> t) | (slots << (uint64(CAP) - t))) & ALL_SLOTS


# ---------------------------------------------------------------- spells


@njit(cache=True, inline="always")
def icon_cards(suit, opts):
    """The cards that fill one icon of ``suit``: its witches, the wild, the fake with fake_casts."""
    cards = uint64(TB.SUIT_MASK[suit]) | WILD_BIT
    if opts[S.OPT_FAKE_CASTS]:
        cards |= FAKE_BIT
    return cards


@njit(cache=True)
def can_cast(hand, spell, opts):
    """Whether ``hand`` holds 2 distinct witch cards matching the spell's 2 icons (one card per icon);
    with wild_icons="both" the wild alone fills both."""
    if opts[S.OPT_WILD_ICONS] == S.WILD_BOTH and has(hand, R.WILD):
        return True
    icons = TB.SPELL_ICONS[opts[S.OPT_SPELL_ICONS], opts[S.OPT_DARKNESS_BACKS], spell]
    a = hand & icon_cards(icons[0], opts)
    b = hand & icon_cards(icons[1], opts)
    # two distinct cards, one per icon, exist unless a side is empty or both are the same single card
    return a != ZERO and b != ZERO and not (a == b and count(a) == 1)


@njit(cache=True, inline="always")
def up_spells(faces, opts):
    """The spell id of each tile's face-up side."""
    backs = opts[S.OPT_DARKNESS_BACKS]
    return (TB.TILE_SPELL[backs, 0, (faces >> 0) & 1], TB.TILE_SPELL[backs, 1, (faces >> 1) & 1],
            TB.TILE_SPELL[backs, 2, (faces >> 2) & 1])


@njit(cache=True, inline="always")
def coven_in(hand):
    """Whether a hand reveals 3 witches of one suit (the wild counting as any suit)."""
    wild = count(hand & WILD_BIT)
    for suit in range(R.N_SUITS):
        if count(hand & uint64(TB.SUIT_MASK[suit])) + wild >= R.COVEN_SIZE:
            return True
    return False


# ---------------------------------------------------------------- legal actions


@njit(cache=True, inline="always")
def town_set(towns, allowed_mask):
    """A_TOWN + u for every u < towns in ``allowed_mask``."""
    legal = pol.NO_LEGAL
    for u in range(towns):
        if has(allowed_mask, u):
            legal = pol.legal_add(legal, S.A_TOWN + u)
    return legal


@njit(cache=True, inline="always")
def card_set(legal, cards):
    """``legal`` with A_CARD + c added for every card c in ``cards``."""
    rest = cards
    while rest != ZERO:
        legal = pol.legal_add(legal, S.A_CARD + lowest(rest))
        rest &= rest - ONE
    return legal


@njit(cache=True, inline="always")
def give_set(legal, hand, targets, towns):
    """``legal`` with A_GIVE + c*MAX_TOWNS + u added for every c in ``hand`` and u < towns in ``targets``:
    per card, the targets' bits shifted to the card's block of MAX_TOWNS ids (a block may straddle
    two words), so the set is built in a few operations per card."""
    m = targets & ((ONE << uint64(towns)) - ONE)
    w0 = legal[0]
    w1 = legal[1]
    w2 = legal[2]
    w3 = legal[3]
    rest = hand
    while rest != ZERO:
        first = S.A_GIVE + lowest(rest) * S.MAX_TOWNS
        rest &= rest - ONE
        word = first >> 6
        shift = uint64(first & 63)
        low = m << shift
        high = (m >> (uint64(64) - shift)) if shift > uint64(64 - S.MAX_TOWNS) else ZERO
        w0 |= low if word == 0 else ZERO
        w1 |= (low if word == 1 else ZERO) | (high if word == 0 else ZERO)
        w2 |= (low if word == 2 else ZERO) | (high if word == 1 else ZERO)
        w3 |= high if word == 2 else ZERO
    return (w0, w1, w2, w3)


@njit(cache=True, inline="always")
def travel_set(hands, a, towns, ask_empty):
    """D_TRAVEL for town a: give (a holds >= 2 cards), ask (any other town; an empty one with
    ask_empty), swap (a holds a card); A_NO only when none of these is legal."""
    hand = hands[a]
    others = ((ONE << uint64(towns)) - ONE) & ~bit(a)
    legal = pol.NO_LEGAL
    if count(hand) >= 2:
        legal = give_set(legal, hand, others, towns)
    for u in range(towns):
        if u != a and (ask_empty or hands[u] != ZERO):
            legal = pol.legal_add(legal, S.A_ASK + u)
    rest = hand
    while rest != ZERO:
        legal = pol.legal_add(legal, S.A_SWAP + lowest(rest))
        rest &= rest - ONE
    if pol.legal_count(legal) == 0:
        legal = pol.legal_add(legal, S.A_NO)
    return legal


@njit(cache=True)
def checked(action, legal, kind, err):
    """(the action to carry out, error code): an illegal ``action`` is recorded (the first one) and
    replaced by the first legal action, so the game runs on safely to its end; ``run_chunk`` raises."""
    if pol.legal_has(legal, action):
        return action, err
    if err == NO_ERROR:
        err = 1 + kind * S.N_ACTIONS + (action % S.N_ACTIONS if action >= 0 else 0)
    return pol.legal_first(legal), err


# ---------------------------------------------------------------- views


@njit(cache=True, inline="always")
def five(a):
    """The first MAX_TOWNS entries of an array as a tuple."""
    return (a[0], a[1], a[2], a[3], a[4])


@njit(cache=True, inline="always")
def sizes_of(hands):
    """Hand sizes of all towns as a tuple."""
    return (count(hands[0]), count(hands[1]), count(hands[2]), count(hands[3]), count(hands[4]))


@njit(cache=True, inline="always")
def observe_hunter(kind, about, rnd, towns, faces, active, captured, fake, ritual_cards, hands, n_deck, reveals,
                   n_reveals, after_travel, census, announced, log_address, n_log, woods_known, dealt, deal_left, drawn,
                   known_slots, top, opts):
    """The hunter's view (``reference.Table.observe``): public state, census hands, the talk (not under
    Despair), the travel log (not under Darkness), his deals, the woods card while he knows it, the
    deck positions he knows to hold a witch."""
    heard = -1 if active == R.DESPAIR else announced
    seen = 0 if active == R.DARKNESS else n_log
    in_game = ALL_SLOTS if opts[S.OPT_RITUALS] else ALL_SLOTS & ~RITUALS
    return pol.HunterView(rnd, kind, about, towns, up_spells(faces, opts), active, captured, fake,
                          count(ritual_cards), ritual_cards, in_game, sizes_of(hands), n_deck, reveals, n_reveals,
                          after_travel, five(census), heard, log_address, seen, woods_known, five(dealt), deal_left,
                          drawn, positions_from_top(known_slots, top))


@njit(cache=True, inline="always")
def observe_town(kind, me, about, rnd, towns, faces, active, captured, fake, ritual_cards, hands, n_deck, reveals,
                 n_reveals, census, announced, log_address, n_log, woods_known, gave, received, opts):
    """A town's view (``me``; -1 for the side's census decisions): public state, census hands, the talk,
    the travel log, its own hand and the cards that passed through it, the woods card it knows."""
    if me < 0:
        hand = ZERO
        given = ZERO
        got = ZERO
        known = -1
    else:
        hand = select_get(hands, me)
        given = select_get(gave, me)
        got = select_get(received, me)
        known = select_get(woods_known, me)
    return pol.TownView(rnd, kind, about, towns, up_spells(faces, opts), active, captured, fake,
                        count(ritual_cards), sizes_of(hands), n_deck, reveals, n_reveals, five(census), announced,
                        log_address, n_log, known, me, hand, given, got)


@njit(cache=True, inline="always")
def ask_hunter(hunter_id, hunter_params, rng_h, legal, kind, about, rnd, towns, faces, active, captured, fake,
               ritual_cards, hands, n_deck, reveals, n_reveals, after_travel, census, announced, log_address, n_log,
               woods_known, dealt, deal_left, drawn, known_slots, top, opts):
    """The action of the hunter's policy (not ``random``: that needs no view) at decision ``kind``, the
    arguments after ``kind`` being ``observe_hunter``'s: (action, rng_h). Inlined: a call per hunter
    decision costs up to a fifth of the kernel's time with ``largest_hand`` (``ask_town`` is a call)."""
    view = observe_hunter(kind, about, rnd, towns, faces, active, captured, fake, ritual_cards, hands, n_deck,
                          reveals, n_reveals, after_travel, census, announced, log_address, n_log, woods_known,
                          dealt, deal_left, drawn, known_slots, top, opts)
    return pol.hunter_decide(hunter_id, hunter_params, rng_h, view, legal)


@njit(cache=True)
def ask_town(town_id, town_params, rng_t, legal, kind, me, about, rnd, towns, faces, active, captured, fake,
             ritual_cards, hands, n_deck, reveals, n_reveals, census, announced, log_address, n_log, woods_known, gave,
             received, opts):
    """The action of the town policy (not ``random``) at a town's (``me``; -1: the side's) decision ``kind``,
    the arguments after ``kind`` being ``observe_town``'s: (action, rng_t). One compiled function for every
    town decision (the view and the policies typed once, not at each of the six). The arrays come as
    ``five`` tuples: an array argument costs two atomic reference-count operations per call."""
    view = observe_town(kind, me, about, rnd, towns, faces, active, captured, fake, ritual_cards, hands, n_deck,
                        reveals, n_reveals, census, announced, log_address, n_log, woods_known, gave, received, opts)
    return pol.town_decide(town_id, town_params, rng_t, view, legal)


# ---------------------------------------------------------------- one game


@njit(cache=True, inline="always")
def set_reveal(reveals, i, entry):
    """The reveals pair with entry i replaced."""
    return (entry, reveals[1]) if i == 0 else (reveals[0], entry)


@njit(cache=True, inline="always")
def pol_reveals(reveals, n_reveals, town, card):
    """The reveals pair with this pick's card added (no townsfolk target yet)."""
    return set_reveal(reveals, n_reveals, pol.reveal_entry(town, card, -1))


@njit(cache=True)
def play_chunk(seed, start, n_games, towns, opts, hunter_id, hunter_params, town_id, town_params,
               out_winner, out_win_type, hunter_won, town_won, rounds, witches, out_fake, rituals, out_spells,
               cards_left, out_picks):
    """Play games start .. start+n_games-1 of the run ``seed``, each to its end as one loop over rounds
    (Census, Arrival, Travel, Hunt), and fill the outcome arrays (``out_spells``: n_games x 6 casts by
    spell id). Returns (0, 0), or (game offset, error code) of the first illegal decision. The games are
    played in this loop, not by a function called once per game: the call would cost reference-count
    operations on its nine scratch arrays every game, and inlining it numba copies the game's IR once per
    block (tens of seconds of compile)."""
    deck = np.zeros(CAP, np.int64)
    hands = np.zeros(S.MAX_TOWNS, np.uint64)
    census = np.zeros(S.MAX_TOWNS, np.uint64)
    dealt = np.zeros(S.MAX_TOWNS, np.uint64)
    gave = np.zeros(S.MAX_TOWNS, np.uint64)
    received = np.zeros(S.MAX_TOWNS, np.uint64)
    woods_known = np.zeros(S.MAX_TOWNS, np.int64)
    log = np.zeros(pol.LOG_SIZE, np.int64)
    spells = np.zeros(R.N_SPELLS, np.int64)   # this game's casts by spell id
    for g in range(n_games):
        index = start + g
        rng_deck = seed_tuple(seed, index, S.STREAM_DECK)
        rng_h = seed_tuple(seed, index, S.STREAM_HUNTER)
        rng_t = seed_tuple(seed, index, S.STREAM_TOWN)
        log_address = log.ctypes.data   # views carry the log's address (``pol.log_at``)
        ask_empty = opts[S.OPT_ASK_EMPTY] != 0
        random_discards = opts[S.OPT_DISCARD_ORDER] == S.DISCARD_RANDOM
        all_towns = (ONE << uint64(towns)) - ONE
        err = NO_ERROR
        hands[:] = ZERO
        census[:] = ZERO
        dealt[:] = ZERO
        gave[:] = ZERO
        received[:] = ZERO
        woods_known[:] = -1
        log[:] = 0
        spells[:] = 0

        # ---- set-up: shuffle, the woods, 2 cards to each town round-robin
        n_deck = R.N_CARDS if opts[S.OPT_RITUALS] else R.N_CARDS - R.N_RITUALS
        for c in range(n_deck):
            deck[c] = c
        # the locals passed to ask_hunter / ask_town start as int64: one started at a literal (0, -1) would
        # compile them once more for each literal type numba sees on its way to the int64 of the loop
        top = np.int64(0)
        rng_deck = shuffle_range(deck, top, 0, n_deck, rng_deck)
        woods = deck[top]
        top = slot(top, 1)
        n_deck -= 1
        for _ in range(R.HAND_AT_SETUP):
            for t in range(towns):
                hands[t] |= bit(deck[top])
                top = slot(top, 1)
                n_deck -= 1
        hunter_woods = woods     # the hunter saw it; -1 once any swap happened
        known_slots = ZERO       # queue slots holding a witch he saw go under
        captured = ZERO          # true witches in front of the hunter
        fake = np.int64(0)
        ritual_cards = ZERO      # rituals in front of the hunter
        faces = np.int64(0)      # bit t: tile t shows its curse
        picks = 0
        winner = R.WINNER_NONE
        win_type = R.WIN_UNFINISHED
        rnd = np.int64(1)
        max_rounds = opts[S.OPT_MAX_ROUNDS]
        disabled = opts[S.OPT_DISABLED_SPELL] - 1   # the spell the town may not cast, -1 for none
        while True:
            # ---------------- Census (the round's records start empty: ``reference.new_round_records``)
            active = NONE
            cast_tile = -1
            announced = NONE
            drawn = ZERO
            n_log = np.int64(0)
            n_reveals = np.int64(0)
            reveals = NO_REVEALS
            after_travel = BEFORE_TRAVEL
            census[:] = ZERO
            dealt[:] = ZERO
            gave[:] = ZERO
            received[:] = ZERO
            if opts[S.OPT_SHUFFLE_TIMING] == S.SHUFFLE_CENSUS_AND_ARRIVAL and n_deck >= 2:
                legal = pol.legal_add(pol.legal_add(pol.NO_LEGAL, S.A_YES), S.A_NO)
                if hunter_id == PS.HUNTER_RANDOM:
                    action, rng_h = pol.random_action(legal, rng_h)
                else:
                    action, rng_h = ask_hunter(hunter_id, hunter_params, rng_h, legal, S.D_SHUFFLE, NONE, rnd, towns,
                                               faces, active, captured, fake, ritual_cards, hands, n_deck, reveals,
                                               n_reveals, after_travel, census, announced, log_address, n_log,
                                               hunter_woods, dealt, ZERO, drawn, known_slots, top, opts)
                action, err = checked(action, legal, S.D_SHUFFLE, err)
                if action == S.A_YES:
                    rng_deck = shuffle_range(deck, top, 0, n_deck, rng_deck)
                    known_slots = ZERO
            for t in range(towns):
                if hands[t] == ZERO and n_deck > 0:
                    hands[t] = bit(deck[top])
                    known_slots &= ~bit(top)
                    top = slot(top, 1)
                    n_deck -= 1
            for t in range(towns):
                census[t] = hands[t]
            coven = False
            for t in range(towns):
                coven |= coven_in(hands[t])
            if coven:
                winner = R.WINNER_TOWN
                win_type = R.WIN_COVEN
                break
            up = up_spells(faces, opts)
            legal = pol.NO_LEGAL
            for tile in range(R.N_TILES):
                spell = up[tile]
                if spell == disabled:
                    continue
                for t in range(towns):
                    if can_cast(hands[t], spell, opts):
                        legal = pol.legal_add(legal, S.A_SPELL + tile)
                        break
            if pol.legal_count(legal) > 0:
                legal = pol.legal_add(legal, S.A_NO)
                if town_id == PS.TOWN_RANDOM:
                    action, rng_t = pol.random_action(legal, rng_t)
                else:
                    action, rng_t = ask_town(town_id, town_params, rng_t, legal, S.D_SPELL, NONE, NONE, rnd, towns,
                                             faces, active, captured, fake, ritual_cards, five(hands), n_deck, reveals,
                                             n_reveals, five(census), announced, log_address, n_log, five(woods_known),
                                             five(gave), five(received), opts)
                action, err = checked(action, legal, S.D_SPELL, err)
                if action != S.A_NO:
                    cast_tile = action - S.A_SPELL
                    active = up[cast_tile]
                    spells[active] += 1
            legal = town_set(towns, all_towns)
            legal = pol.legal_add(legal, S.A_NO)
            if town_id == PS.TOWN_RANDOM:
                action, rng_t = pol.random_action(legal, rng_t)
            else:
                action, rng_t = ask_town(town_id, town_params, rng_t, legal, S.D_ANNOUNCE, NONE, NONE, rnd, towns,
                                         faces, active, captured, fake, ritual_cards, five(hands), n_deck, reveals,
                                         n_reveals, five(census), announced, log_address, n_log, five(woods_known),
                                         five(gave), five(received), opts)
            action, err = checked(action, legal, S.D_ANNOUNCE, err)
            announced = action - S.A_TOWN if action != S.A_NO else -1
            legal = town_set(towns, all_towns)
            if town_id == PS.TOWN_RANDOM:
                action, rng_t = pol.random_action(legal, rng_t)
            else:
                action, rng_t = ask_town(town_id, town_params, rng_t, legal, S.D_HAT, NONE, NONE, rnd, towns, faces,
                                         active, captured, fake, ritual_cards, five(hands), n_deck, reveals, n_reveals,
                                         five(census), announced, log_address, n_log, five(woods_known), five(gave),
                                         five(received), opts)
            action, err = checked(action, legal, S.D_HAT, err)
            hat = action - S.A_TOWN

            # ---------------- Arrival (twice with Growth)
            for _ in range(2 if active == R.GROWTH else 1):
                if opts[S.OPT_SHUFFLE_TIMING] != S.SHUFFLE_NEVER and n_deck >= 2:
                    legal = pol.legal_add(pol.legal_add(pol.NO_LEGAL, S.A_YES), S.A_NO)
                    if hunter_id == PS.HUNTER_RANDOM:
                        action, rng_h = pol.random_action(legal, rng_h)
                    else:
                        action, rng_h = ask_hunter(hunter_id, hunter_params, rng_h, legal, S.D_SHUFFLE, NONE, rnd,
                                                   towns, faces, active, captured, fake, ritual_cards, hands, n_deck,
                                                   reveals, n_reveals, after_travel, census, announced, log_address,
                                                   n_log, hunter_woods, dealt, ZERO, drawn, known_slots, top, opts)
                    action, err = checked(action, legal, S.D_SHUFFLE, err)
                    if action == S.A_YES:
                        rng_deck = shuffle_range(deck, top, 0, n_deck, rng_deck)
                        known_slots = ZERO
                short = n_deck < towns and opts[S.OPT_SHORT_DECK_ARRIVAL] == S.SHORT_DEAL_NONE
                if ritual_cards == ZERO:
                    if not short:
                        for t in range(towns):
                            if n_deck == 0:
                                break
                            card = deck[top]
                            known_slots &= ~bit(top)
                            top = slot(top, 1)
                            n_deck -= 1
                            hands[t] |= bit(card)
                            dealt[t] |= bit(card)
                    continue
                # a ritual in front of the hunter: he draws one card per town and chooses who gets which
                remaining = ZERO
                if not short:
                    for _ in range(min(towns, n_deck)):
                        remaining |= bit(deck[top])
                        known_slots &= ~bit(top)
                        top = slot(top, 1)
                        n_deck -= 1
                drawn |= remaining
                for t in range(towns):
                    if remaining == ZERO:
                        break
                    legal = card_set(pol.NO_LEGAL, remaining)
                    if count(remaining) < towns - t:
                        legal = pol.legal_add(legal, S.A_NO)
                    if hunter_id == PS.HUNTER_RANDOM:
                        action, rng_h = pol.random_action(legal, rng_h)
                    else:
                        action, rng_h = ask_hunter(hunter_id, hunter_params, rng_h, legal, S.D_DEAL, t, rnd, towns,
                                                   faces, active, captured, fake, ritual_cards, hands, n_deck, reveals,
                                                   n_reveals, after_travel, census, announced, log_address, n_log,
                                                   hunter_woods, dealt, remaining, drawn, known_slots, top, opts)
                    action, err = checked(action, legal, S.D_DEAL, err)
                    if action != S.A_NO:
                        card = bit(action - S.A_CARD)
                        remaining &= ~card
                        hands[t] |= card
                        dealt[t] |= card

            # ---------------- Travel (twice with Nature)
            if active == R.DARKNESS:
                hunter_woods = -1   # he cannot see whether the woods card moves
            for lap in range(2 if active == R.NATURE_SPELL else 1):
                first = hat if lap == 0 or opts[S.OPT_NATURE_RESTART] else (hat + 1) % towns
                for i in range(towns):
                    a = (first + i) % towns
                    legal = travel_set(hands, a, towns, ask_empty)
                    if town_id == PS.TOWN_RANDOM:
                        action, rng_t = pol.random_action(legal, rng_t)
                    else:
                        action, rng_t = ask_town(town_id, town_params, rng_t, legal, S.D_TRAVEL, a, NONE, rnd, towns,
                                                 faces, active, captured, fake, ritual_cards, five(hands), n_deck,
                                                 reveals, n_reveals, five(census), announced, log_address, n_log,
                                                 five(woods_known), five(gave), five(received), opts)
                    action, err = checked(action, legal, S.D_TRAVEL, err)
                    if action < S.A_ASK:
                        # give, and under Passage more while a still holds >= 2 cards
                        c = (action - S.A_GIVE) // S.MAX_TOWNS
                        u = (action - S.A_GIVE) % S.MAX_TOWNS
                        while True:
                            hands[a] &= ~bit(c)
                            hands[u] |= bit(c)
                            gave[a] |= bit(c)
                            received[u] |= bit(c)
                            log[n_log] = pol.log_entry(a, S.LOG_GIVE, u, 1)
                            n_log += 1
                            if active != R.PASSAGE or count(hands[a]) < 2:
                                break
                            one_town = opts[S.OPT_PASSAGE_TARGETS] == S.PASSAGE_ONE_TOWN
                            targets = bit(u) if one_town else all_towns & ~bit(a)
                            legal = pol.legal_add(give_set(pol.NO_LEGAL, hands[a], targets, towns), S.A_NO)
                            if town_id == PS.TOWN_RANDOM:
                                action, rng_t = pol.random_action(legal, rng_t)
                            else:
                                action, rng_t = ask_town(town_id, town_params, rng_t, legal, S.D_MORE, a, u, rnd, towns,
                                                         faces, active, captured, fake, ritual_cards, five(hands),
                                                         n_deck, reveals, n_reveals, five(census), announced,
                                                         log_address, n_log, five(woods_known), five(gave),
                                                         five(received), opts)
                            action, err = checked(action, legal, S.D_MORE, err)
                            if action == S.A_NO:
                                break
                            c = (action - S.A_GIVE) // S.MAX_TOWNS
                            u = (action - S.A_GIVE) % S.MAX_TOWNS
                    elif action < S.A_SWAP:
                        u = action - S.A_ASK
                        moved = 0
                        if count(hands[u]) >= 2:
                            legal = card_set(pol.NO_LEGAL, hands[u])
                            if town_id == PS.TOWN_RANDOM:
                                action, rng_t = pol.random_action(legal, rng_t)
                            else:
                                action, rng_t = ask_town(town_id, town_params, rng_t, legal, S.D_ANSWER, u, a, rnd,
                                                         towns, faces, active, captured, fake, ritual_cards,
                                                         five(hands), n_deck, reveals, n_reveals, five(census),
                                                         announced, log_address, n_log, five(woods_known), five(gave),
                                                         five(received), opts)
                            action, err = checked(action, legal, S.D_ANSWER, err)
                            card = bit(action - S.A_CARD)
                            hands[u] &= ~card
                            hands[a] |= card
                            gave[u] |= card
                            received[a] |= card
                            moved = 1
                        log[n_log] = pol.log_entry(a, S.LOG_ASK, u, moved)
                        n_log += 1
                    elif action < S.A_CARD:
                        c = action - S.A_SWAP
                        hands[a] = (hands[a] & ~bit(c)) | bit(woods)
                        gave[a] |= bit(c)
                        received[a] |= bit(woods)
                        woods = c
                        woods_known[:] = -1
                        woods_known[a] = c
                        hunter_woods = -1
                        log[n_log] = pol.log_entry(a, S.LOG_SWAP, -1, 1)
                        n_log += 1
                    else:
                        log[n_log] = pol.log_entry(a, S.LOG_PASS, -1, 0)
                        n_log += 1

            after_travel = sizes_of(hands)

            # ---------------- Hunt
            doom_town = -1
            if active == R.DOOM:
                allowed = ZERO
                for u in range(towns):
                    if hands[u] != ZERO or opts[S.OPT_DOOM_EMPTY]:
                        allowed |= bit(u)
                if allowed != ZERO:
                    legal = town_set(towns, allowed)
                    if hunter_id == PS.HUNTER_RANDOM:
                        action, rng_h = pol.random_action(legal, rng_h)
                    else:
                        action, rng_h = ask_hunter(hunter_id, hunter_params, rng_h, legal, S.D_DOOM, NONE, rnd, towns,
                                                   faces, active, captured, fake, ritual_cards, hands, n_deck, reveals,
                                                   n_reveals, after_travel, census, announced, log_address, n_log,
                                                   hunter_woods, dealt, ZERO, drawn, known_slots, top, opts)
                    action, err = checked(action, legal, S.D_DOOM, err)
                    doom_town = action - S.A_TOWN
            # picks: under Doom both from the town named (none if it was named empty, none if no town could
            # be named); its hand emptied by the first pick, the second per doom_second_pick
            doom_picks = active == R.DOOM and doom_town >= 0 and hands[doom_town] != ZERO
            over = False
            for p in range(R.PICKS_PER_HUNT):
                nonempty = ZERO
                for u in range(towns):
                    if hands[u] != ZERO:
                        nonempty |= bit(u)
                u = -1
                if doom_picks and hands[doom_town] != ZERO:
                    u = doom_town
                elif (active != R.DOOM or (doom_picks and p > 0 and opts[S.OPT_DOOM_SECOND_PICK] ==
                                           S.DOOM_SECOND_ANY_TOWN)) and nonempty != ZERO:
                    legal = town_set(towns, nonempty)
                    if hunter_id == PS.HUNTER_RANDOM:
                        action, rng_h = pol.random_action(legal, rng_h)
                    else:
                        action, rng_h = ask_hunter(hunter_id, hunter_params, rng_h, legal, S.D_PICK, NONE, rnd, towns,
                                                   faces, active, captured, fake, ritual_cards, hands, n_deck, reveals,
                                                   n_reveals, after_travel, census, announced, log_address, n_log,
                                                   hunter_woods, dealt, ZERO, drawn, known_slots, top, opts)
                    action, err = checked(action, legal, S.D_PICK, err)
                    u = action - S.A_TOWN
                if u < 0:
                    continue
                k, rng_deck = below_t(rng_deck, count(hands[u]))
                card = nth(hands[u], k)
                hands[u] &= ~bit(card)
                picks += 1
                to = -1
                if card >= R.FIRST_FOLK and card < R.FIRST_RITUAL:
                    allowed = all_towns if opts[S.OPT_TOWNSFOLK_TO] == S.FOLK_ANY_TOWN else all_towns & ~bit(u)
                    legal = town_set(towns, allowed)
                    if hunter_id == PS.HUNTER_RANDOM:
                        action, rng_h = pol.random_action(legal, rng_h)
                    else:
                        action, rng_h = ask_hunter(hunter_id, hunter_params, rng_h, legal, S.D_TOWNSFOLK, u, rnd, towns,
                                                   faces, active, captured, fake, ritual_cards, hands, n_deck,
                                                   pol_reveals(reveals, n_reveals, u, card), n_reveals + 1,
                                                   after_travel, census, announced, log_address, n_log, hunter_woods,
                                                   dealt, ZERO, drawn, known_slots, top, opts)
                    action, err = checked(action, legal, S.D_TOWNSFOLK, err)
                    to = action - S.A_TOWN
                    hands[to] |= bit(card)
                elif card >= R.FIRST_RITUAL:
                    ritual_cards |= bit(card)
                else:
                    # a witch, true or fake: captured; the rest of the hand flees under the deck
                    n_deck, _, rng_deck = to_bottom(deck, top, n_deck, hands[u], random_discards, rng_deck)
                    hands[u] = ZERO
                    if card == R.FAKE:
                        fake = 1
                        n_deck, slots, rng_deck = to_bottom(deck, top, n_deck, captured, random_discards, rng_deck)
                        known_slots |= slots
                        captured = ZERO
                    else:
                        captured |= bit(card)
                reveals = set_reveal(reveals, n_reveals, pol.reveal_entry(u, card, to))
                n_reveals += 1
                if card >= R.FIRST_RITUAL and count(ritual_cards) >= R.RITUALS_TO_WIN:
                    winner = R.WINNER_TOWN
                    win_type = R.WIN_RITUAL
                    over = True
                    break
                if card < R.FIRST_FOLK and count(captured) + fake >= R.CAPTURES_TO_WIN:
                    winner = R.WINNER_HUNTER
                    win_type = R.WIN_CAPTURE
                    over = True
                    break
            if over:
                break
            if cast_tile >= 0:
                faces ^= 1 << cast_tile
            if rnd >= max_rounds:
                break
            rnd += 1
        if err != NO_ERROR:
            return g, err
        out_winner[g] = winner
        out_win_type[g] = win_type
        hunter_won[g] = winner == R.WINNER_HUNTER
        town_won[g] = winner == R.WINNER_TOWN
        rounds[g] = rnd
        witches[g] = count(captured) + fake
        out_fake[g] = fake != 0
        rituals[g] = count(ritual_cards)
        for k in range(R.N_SPELLS):
            out_spells[g, k] = spells[k]
        cards_left[g] = n_deck
        out_picks[g] = picks
    return 0, NO_ERROR


def run_chunk(seed: int, start: int, count: int, players: int, options, hunter_id: int, hunter_params,
              town_id: int, town_params) -> dict[str, np.ndarray]:
    """Python entry: play ``count`` games (``players`` = hunter + towns) and return the outcome arrays
    by column (``rules.OUTCOME_DTYPES``). ``options``: a RuleOptions or its ``state.option_tuple``.
    An illegal decision by a policy raises a RunError naming the game, side, decision and action."""
    opts = S.option_tuple(options) if isinstance(options, R.RuleOptions) else tuple(options)
    towns = int(players) - 1
    out = {column: np.empty(count, np.dtype(dtype)) for column, dtype in R.OUTCOME_DTYPES.items()}
    spells = np.empty((count, R.N_SPELLS), np.int8)
    game, err = play_chunk(
        np.uint64(seed), np.int64(start), np.int64(count), np.int64(towns), tuple(np.int64(v) for v in opts),
        np.int64(hunter_id), pol.params_tuple(hunter_params), np.int64(town_id), pol.params_tuple(town_params),
        out["winner"], out["win_type"], out["hunter_won"], out["town_won"], out["rounds"],
        out["witches_captured"], out["fake_witch_caught"], out["rituals_taken"], spells, out["cards_left"],
        out["picks"])
    if err != NO_ERROR:
        kind, action = divmod(int(err) - 1, S.N_ACTIONS)
        side = R.SIDES[S.DECISION_SIDE[kind]]
        policy_id = hunter_id if side == "hunter" else town_id
        raise RunError(f"game {start + int(game)} of seed {seed}: the {side} policy (id {policy_id}) chose "
                       f"{S.action_name(action)!r} (action {action}), which is not legal at decision "
                       f"{S.DECISION_NAMES[kind]!r}")
    for k, name in enumerate(R.SPELL_NAMES):
        out[f"spells_{name}"] = np.ascontiguousarray(spells[:, k])
    return out
