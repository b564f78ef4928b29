"""Curses & Covens with the ``random`` policy on both sides, played straight through (issue 30).

``kernel.run_chunk`` plays a chunk here when both sides are ``random``: the rounds of docs/rules/covens.md
written out in their own order, as the plain-C reference (benchmarks/c/covens_random.c) is, instead of
the phase machine of ``kernel.advance`` with its generic decision point. It plays the same games as
``advance``: the same draws on the same three streams in the same order (``state``: STREAM_DECK for the
set-up, the shuffles, the discard orders and the Hunt's cards; the hunter's and the towns' decisions on
their own), each decision drawn as ``policies.random_action`` over its legal set (j = below(size), the
j-th action in ascending id order) but decoded from the set's parts without building it. What no
``random`` player reads is not kept: the per-round records, the travel log, what each side knows.
tests/test_covens_random_play.py compares its outcomes with ``kernel.play_chunk``'s for every rule option.

No reference counting (``_nrt=False``): the two work arrays come from ``run_chunk``, nothing is
allocated; the rule options' tables (icons per spell, spell per tile side) are read once per chunk.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64
from numba.cpython.unsafe.numbers import trailing_zeros

from cursedsim.bits import ONE, ZERO, count
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens import tables as TB
from cursedsim.rng import below_t, seed_tuple

#: Deck slots: a circular queue of a power of two above N_CARDS (``i & QMASK``: no compare per slot).
QUEUE = 32
QMASK = QUEUE - 1
assert R.N_CARDS <= QUEUE

FAKE_BIT = uint64(TB.FAKE_BIT)
WILD_BIT = uint64(TB.WILD_BIT)
SUIT0 = uint64(TB.SUIT_MASK[0])
SUIT1 = uint64(TB.SUIT_MASK[1])
SUIT2 = uint64(TB.SUIT_MASK[2])


@njit(cache=True, inline="always")
def kth(mask, k):
    """The k-th smallest member (k from 0) of a set with more than k members."""
    for _ in range(k):
        mask &= mask - ONE
    return np.int64(trailing_zeros(mask))


@njit(cache=True, inline="always")
def low(mask):
    """The smallest member of a non-empty set."""
    return kth(mask, 0)


@njit(cache=True, inline="always")
def shuffle(deck, top, first, n, rng):
    """Fisher-Yates over the n cards at positions first .. first+n-1 from the top (``kernel.shuffle_range``)."""
    for i in range(n - 1, 0, -1):
        j, rng = below_t(rng, i + 1)
        a = (top + first + i) & QMASK
        b = (top + first + j) & QMASK
        card = deck[a]
        deck[a] = deck[b]
        deck[b] = card
    return rng


@njit(cache=True, inline="always")
def to_bottom(deck, top, n_deck, cards, random, rng):
    """``cards`` under the deck in ascending code order, shuffled when ``random`` (``kernel.to_bottom``)."""
    first = n_deck
    rest = cards
    while rest != ZERO:
        deck[(top + n_deck) & QMASK] = low(rest)
        rest &= rest - ONE
        n_deck += 1
    if random:
        rng = shuffle(deck, top, first, n_deck - first, rng)
    return n_deck, rng


@njit(cache=True, inline="always")
def coven_in(hand):
    """3 witches of one suit, the wild counting as any suit."""
    wild = count(hand & WILD_BIT)
    return (count(hand & SUIT0) + wild >= R.COVEN_SIZE or count(hand & SUIT1) + wild >= R.COVEN_SIZE
            or count(hand & SUIT2) + wild >= R.COVEN_SIZE)


@njit(cache=True, inline="always")
def castable(hands, towns, first, second, wild_both):
    """Whether some town's hand casts a spell of icon masks ``first`` and ``second`` (``kernel.can_cast``)."""
    for t in range(towns):
        hand = hands[t]
        if wild_both and hand & WILD_BIT != ZERO:
            return True
        a = hand & first
        b = hand & second
        if a != ZERO and b != ZERO and not (a == b and count(a) == 1):
            return True
    return False


@njit(cache=True, _nrt=False)
def play_chunk(seed, start, n_games, towns, opts, deck, hands, spell_of, icons, out_winner, out_win_type,
               hunter_won, town_won, rounds, witches, out_fake, rituals, out_spells, cards_left, out_picks):
    """Games start .. start+n_games-1 of the run ``seed``, random against random, into the outcome arrays
    (as ``kernel.play_chunk``). ``deck``: QUEUE int64 slots; ``hands``: MAX_TOWNS uint64; ``spell_of``:
    the spell id of (tile, face) as 6 int64; ``icons``: the two icon masks of each spell as 12 uint64."""
    ask_empty = opts[S.OPT_ASK_EMPTY] != 0
    random_discards = opts[S.OPT_DISCARD_ORDER] == S.DISCARD_RANDOM
    max_rounds = opts[S.OPT_MAX_ROUNDS]
    disabled = opts[S.OPT_DISABLED_SPELL] - 1
    wild_both = opts[S.OPT_WILD_ICONS] == S.WILD_BOTH
    census_shuffle = opts[S.OPT_SHUFFLE_TIMING] == S.SHUFFLE_CENSUS_AND_ARRIVAL
    arrival_shuffle = opts[S.OPT_SHUFFLE_TIMING] != S.SHUFFLE_NEVER
    short_none = opts[S.OPT_SHORT_DECK_ARRIVAL] == S.SHORT_DEAL_NONE
    one_town = opts[S.OPT_PASSAGE_TARGETS] == S.PASSAGE_ONE_TOWN
    nature_restart = opts[S.OPT_NATURE_RESTART] != 0
    doom_empty = opts[S.OPT_DOOM_EMPTY] != 0
    second_any = opts[S.OPT_DOOM_SECOND_PICK] == S.DOOM_SECOND_ANY_TOWN
    folk_any = opts[S.OPT_TOWNSFOLK_TO] == S.FOLK_ANY_TOWN
    n_cards = R.N_CARDS if opts[S.OPT_RITUALS] else R.N_CARDS - R.N_RITUALS
    all_towns = (ONE << uint64(towns)) - ONE
    others = towns - 1
    for g in range(n_games):
        index = start + g
        rng_d = seed_tuple(seed, index, np.int64(S.STREAM_DECK))
        rng_h = seed_tuple(seed, index, np.int64(S.STREAM_HUNTER))
        rng_t = seed_tuple(seed, index, np.int64(S.STREAM_TOWN))
        # ---- set-up: the deck shuffled, the woods card, 2 cards to each town round-robin
        for c in range(n_cards):
            deck[c] = c
        top = np.int64(0)
        n_deck = np.int64(n_cards)
        rng_d = shuffle(deck, top, 0, n_deck, rng_d)
        woods = deck[0]
        top = np.int64(1)
        n_deck -= 1
        for t in range(S.MAX_TOWNS):
            hands[t] = ZERO
        for _ in range(R.HAND_AT_SETUP):
            for t in range(towns):
                hands[t] |= ONE << uint64(deck[top])
                top += 1
                n_deck -= 1
        fake = np.int64(0)
        faces = np.int64(0)
        picks = np.int64(0)
        captured = ZERO
        ritual_cards = ZERO
        s0 = s1 = s2 = s3 = s4 = s5 = np.int64(0)
        winner = np.int64(R.WINNER_NONE)
        win_type = np.int64(R.WIN_UNFINISHED)
        rnd = np.int64(1)
        while True:
            # ---- census: the hunter's shuffle offer, draws to empty hands, the coven check
            if census_shuffle and n_deck >= 2:
                j, rng_h = below_t(rng_h, 2)
                if j == 0:
                    rng_d = shuffle(deck, top, 0, n_deck, rng_d)
            coven = False
            for t in range(towns):
                if hands[t] == ZERO and n_deck > 0:
                    hands[t] = ONE << uint64(deck[top & QMASK])
                    top += 1
                    n_deck -= 1
                coven |= coven_in(hands[t])
            if coven:
                winner = np.int64(R.WINNER_TOWN)
                win_type = np.int64(R.WIN_COVEN)
                break
            # ---- the spell: castable tiles (ascending), then "no"
            n_cast = np.int64(0)
            cast0 = cast1 = cast2 = np.int64(-1)
            for tile in range(R.N_TILES):
                spell = spell_of[2 * tile + ((faces >> tile) & 1)]
                if spell != disabled and castable(hands, towns, icons[2 * spell], icons[2 * spell + 1], wild_both):
                    if n_cast == 0:
                        cast0 = tile
                    elif n_cast == 1:
                        cast1 = tile
                    else:
                        cast2 = tile
                    n_cast += 1
            cast_tile = np.int64(-1)
            active = np.int64(-1)
            if n_cast > 0:
                j, rng_t = below_t(rng_t, n_cast + 1)
                if j < n_cast:
                    cast_tile = cast0 if j == 0 else (cast1 if j == 1 else cast2)
                    active = spell_of[2 * cast_tile + ((faces >> cast_tile) & 1)]
                    if active == 0:
                        s0 += 1
                    elif active == 1:
                        s1 += 1
                    elif active == 2:
                        s2 += 1
                    elif active == 3:
                        s3 += 1
                    elif active == 4:
                        s4 += 1
                    else:
                        s5 += 1
            # the announcement (any town or none: read by no random player) and the hat
            _, rng_t = below_t(rng_t, towns + 1)
            hat, rng_t = below_t(rng_t, towns)
            # ---- Arrivals (two under Growth): the shuffle offer, then the deal
            for _lap in range(2 if active == R.GROWTH else 1):
                if arrival_shuffle and n_deck >= 2:
                    j, rng_h = below_t(rng_h, 2)
                    if j == 0:
                        rng_d = shuffle(deck, top, 0, n_deck, rng_d)
                short = n_deck < towns and short_none
                if ritual_cards == ZERO:
                    if not short:
                        for t in range(towns):
                            if n_deck == 0:
                                break
                            hands[t] |= ONE << uint64(deck[top & QMASK])
                            top += 1
                            n_deck -= 1
                    continue
                # a ritual in front of the hunter: he deals the drawn cards, town by town
                remaining = ZERO
                if not short:
                    for _ in range(min(towns, n_deck)):
                        remaining |= ONE << uint64(deck[top & QMASK])
                        top += 1
                        n_deck -= 1
                step = np.int64(0)
                while remaining != ZERO and step != towns:
                    k = count(remaining)
                    j, rng_h = below_t(rng_h, k + 1 if k < towns - step else k)
                    if j < k:
                        card = ONE << uint64(kth(remaining, j))
                        remaining &= ~card
                        hands[step] |= card
                    step += 1
            # ---- Travel (twice under Nature): each town's turn from the hat
            for lap in range(2 if active == R.NATURE_SPELL else 1):
                first = hat if lap == 0 or nature_restart else (hat + 1) % towns
                for step in range(towns):
                    a = first + step
                    if a >= towns:
                        a -= towns
                    hand = hands[a]
                    n = count(hand)
                    gives = n * others if n >= 2 else 0
                    askable = ZERO
                    for u in range(towns):
                        if u != a and (ask_empty or hands[u] != ZERO):
                            askable |= ONE << uint64(u)
                    asks = count(askable)
                    size = gives + asks + n
                    j, rng_t = below_t(rng_t, size if size > 0 else 1)
                    if size == 0:
                        continue   # pass
                    if j < gives:
                        # give; under Passage more while a holds >= 2 cards
                        k = j % others
                        u = k if k < a else k + 1
                        card = ONE << uint64(kth(hand, j // others))
                        hands[a] = hand & ~card
                        hands[u] |= card
                        if active == R.PASSAGE:
                            while count(hands[a]) >= 2:
                                targets = (ONE << uint64(u)) if one_town else all_towns & ~(ONE << uint64(a))
                                nt = count(targets)
                                m = count(hands[a])
                                j, rng_t = below_t(rng_t, m * nt + 1)
                                if j == m * nt:
                                    break
                                card = ONE << uint64(kth(hands[a], j // nt))
                                u = kth(targets, j % nt)
                                hands[a] &= ~card
                                hands[u] |= card
                        continue
                    j -= gives
                    if j < asks:
                        u = kth(askable, j)
                        m = count(hands[u])
                        if m >= 2:
                            # the asked town answers with a card of its choice
                            k, rng_t = below_t(rng_t, m)
                            card = ONE << uint64(kth(hands[u], k))
                            hands[u] &= ~card
                            hands[a] |= card
                        continue
                    # swap a card with the woods card
                    c = kth(hand, j - asks)
                    hands[a] = (hand & ~(ONE << uint64(c))) | (ONE << uint64(woods))
                    woods = c
            # ---- the Hunt: two picks (under Doom from the town the hunter names)
            doom_town = np.int64(-1)
            doom_picks = False
            if active == R.DOOM:
                allowed = ZERO
                for u in range(towns):
                    if hands[u] != ZERO or doom_empty:
                        allowed |= ONE << uint64(u)
                if allowed != ZERO:
                    j, rng_h = below_t(rng_h, count(allowed))
                    doom_town = kth(allowed, j)
                    doom_picks = hands[doom_town] != ZERO
            over = False
            for step in range(R.PICKS_PER_HUNT):
                if doom_picks and hands[doom_town] != ZERO:
                    u = doom_town
                else:
                    nonempty = ZERO
                    for v in range(towns):
                        if hands[v] != ZERO:
                            nonempty |= ONE << uint64(v)
                    if (active != R.DOOM or (doom_picks and step > 0 and second_any)) and nonempty != ZERO:
                        j, rng_h = below_t(rng_h, count(nonempty))
                        u = kth(nonempty, j)
                    else:
                        continue
                hand = hands[u]
                k, rng_d = below_t(rng_d, count(hand))
                c = kth(hand, k)
                hands[u] = hand & ~(ONE << uint64(c))
                picks += 1
                if c >= R.FIRST_FOLK and c < R.FIRST_RITUAL:
                    # townsfolk: the hunter gives it to a town
                    allowed = all_towns if folk_any else all_towns & ~(ONE << uint64(u))
                    j, rng_h = below_t(rng_h, count(allowed))
                    hands[kth(allowed, j)] |= ONE << uint64(c)
                    continue
                if c >= R.FIRST_RITUAL:
                    ritual_cards |= ONE << uint64(c)
                    if count(ritual_cards) >= R.RITUALS_TO_WIN:
                        winner = np.int64(R.WINNER_TOWN)
                        win_type = np.int64(R.WIN_RITUAL)
                        over = True
                        break
                    continue
                # a witch, true or fake: captured; the rest of the hand flees under the deck
                n_deck, rng_d = to_bottom(deck, top, n_deck, hands[u], random_discards, rng_d)
                hands[u] = ZERO
                if c == R.FAKE:
                    fake = np.int64(1)
                    n_deck, rng_d = to_bottom(deck, top, n_deck, captured, random_discards, rng_d)
                    captured = ZERO
                else:
                    captured |= ONE << uint64(c)
                if count(captured) + fake >= R.CAPTURES_TO_WIN:
                    winner = np.int64(R.WINNER_HUNTER)
                    win_type = np.int64(R.WIN_CAPTURE)
                    over = True
                    break
            if over:
                break
            if cast_tile >= 0:
                faces ^= 1 << cast_tile
            if rnd >= max_rounds:
                break
            rnd += 1
            top &= QMASK
        out_winner[g] = winner
        out_win_type[g] = win_type
        hunter_won[g] = winner == R.WINNER_HUNTER
        town_won[g] = winner == R.WINNER_TOWN
        rounds[g] = rnd
        witches[g] = count(captured) + fake
        out_fake[g] = fake != 0
        rituals[g] = count(ritual_cards)
        out_spells[g, 0] = s0
        out_spells[g, 1] = s1
        out_spells[g, 2] = s2
        out_spells[g, 3] = s3
        out_spells[g, 4] = s4
        out_spells[g, 5] = s5
        cards_left[g] = n_deck
        out_picks[g] = picks
    return 0


def tables(opts) -> tuple[np.ndarray, np.ndarray]:
    """(spell_of, icons) of ``play_chunk`` for the option tuple ``opts``: the spell id of each (tile,
    face) and the two icon masks of each spell (its suit's witches, the wild, the fake with fake_casts)."""
    backs = opts[S.OPT_DARKNESS_BACKS]
    spell_of = np.array([TB.TILE_SPELL[backs, tile, face] for tile in range(R.N_TILES) for face in range(2)],
                        np.int64)
    extra = TB.WILD_BIT | (TB.FAKE_BIT if opts[S.OPT_FAKE_CASTS] else 0)
    icons = np.array([int(TB.SUIT_MASK[TB.SPELL_ICONS[opts[S.OPT_SPELL_ICONS], backs, spell, side]]) | extra
                      for spell in range(R.N_SPELLS) for side in range(2)], np.uint64)
    return spell_of, icons
