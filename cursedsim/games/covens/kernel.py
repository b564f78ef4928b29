"""The numba engine of Curses & Covens: the procedure of docs/rules/covens.md over flat state.

A game under way is five small arrays (``state``: the deck, the towns' card rows, the travel log, counts
and masks), and ``advance`` plays it on from wherever it stands: a phase machine (``POS_*``) that can halt
at the next decision of either side and resume with an action given from outside. So the same compiled
rules play a whole game with two policies (``play_chunk``: ``start_game`` + ``advance`` per game), and a
search's real game and its playouts from any decision point (rollout.py): copying a game is copying its
arrays. ``run_chunk`` is the Python entry (outcome arrays by ``rules.OUTCOME_DTYPES``). Random draws
happen exactly where the reference engine makes them (``state``: set-up shuffle, hunter shuffles, discard
orders and hunt picks on STREAM_DECK, each side's policy on its own stream), and every decision the
reference asks is asked here, so the two engines play the same games. Every action is checked against
the legal set (but the random towns' Travel turns, legal by construction: ``random_travel``); an illegal
one stops the chunk and ``run_chunk`` raises a RunError. Random against random, a plain run, is played
straight through by ``random_play.py`` (``run_chunk``), the same games.

State (docs/architecture.md, "Kernels"): between the loads at the entry of ``advance`` and the stores at
its exit, scalars live in locals; hands and the per-round records (census hands, dealt, given and
received cards) are uint64 card masks in rows of one array; the deck is a circular int64 queue
(``deck[top]`` is the top card, discards are written at ``top + n_deck``), so drawing and discarding
move no card; the hunter's knowledge of the deck is a mask of queue slots holding a witch he saw go
under. Policies get a view tuple (``observe_hunter``, ``observe_town``) built from these, holding only
what the spec lets that side see; the ``random`` policies need no view and skip building it.

Compile time: each decision is posed by the block of its position and asked at one place, one small
inline helper for the hunter (``ask_hunter``) and one call for the towns (``ask_town``), so each policy
is linked in a few times, not once per decision point; the policies are compiled once each, and the
values handed to them are int64 loaded from the state arrays (issue 24).
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from cursedsim.bits import ONE, ZERO, bit, count, has, lowest, nth, select_get
from cursedsim.errors import RunError
from cursedsim.games.covens import policies as pol
from cursedsim.games.covens import policy_specs as PS
from cursedsim.games.covens import random_play as RP
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
#: ``advance`` playing on to the end (no side halts).
NO_STOP = np.int64(S.STOP_NONE)

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


#: The town actions A_TOWN + u (u < MAX_TOWNS) lie in the last word of a legal set, from this bit.
TOWN_SHIFT = uint64(S.A_TOWN - 192)
assert S.A_TOWN >= 192 and S.A_TOWN + S.MAX_TOWNS <= 256 and S.N_ACTIONS <= 256


@njit(cache=True, inline="always")
def town_set(towns, allowed_mask):
    """A_TOWN + u for every u < towns in ``allowed_mask``: the mask shifted into the last word (a loop
    of ``legal_add`` per town: 1-2 % of random against random)."""
    return (ZERO, ZERO, ZERO, (allowed_mask & ((ONE << uint64(towns)) - ONE)) << TOWN_SHIFT)


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
    rest = hand
    while rest != ZERO:
        first = S.A_GIVE + lowest(rest) * S.MAX_TOWNS
        rest &= rest - ONE
        word = first >> 6
        shift = uint64(first & 63)
        high = (m >> (uint64(64) - shift)) if shift > uint64(64 - S.MAX_TOWNS) else ZERO
        legal = pol.or_word(pol.or_word(legal, word, m << shift), word + 1, high)
    return legal


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


@njit(cache=True, inline="always")
def random_travel(hands, a, towns, ask_empty, rng):
    """The ``random`` town policy at town a's D_TRAVEL without building the legal set: the draw and the
    action of ``pol.random_action(travel_set(hands, a, towns, ask_empty), rng)``. The set's size is
    counted (gives: cards x other towns when a holds >= 2; asks; swaps: a's cards; else A_NO alone),
    j = below(size) drawn as there, and the j-th action in ascending id order decoded: gives by card
    then town (A_GIVE + c*MAX_TOWNS + u), then asks by town, then swaps by card. Legal by construction,
    so ``advance`` does not check it. Building the 4-word set and scanning it for the j-th member was
    the largest cost of random against random (docs/performance.md, "Where the time goes")."""
    hand = hands[a]
    n = count(hand)
    others = towns - 1
    gives = n * others if n >= 2 else 0
    askable = ZERO
    for u in range(towns):
        if u != a and (ask_empty or hands[u] != ZERO):
            askable |= bit(u)
    asks = count(askable)
    size = gives + asks + n
    j, rng = below_t(rng, size if size > 0 else 1)
    if size == 0:
        return np.int64(S.A_NO), rng
    if j < gives:
        k = j % others
        return S.A_GIVE + nth(hand, j // others) * S.MAX_TOWNS + (k if k < a else k + 1), rng
    j -= gives
    if j < asks:
        return S.A_ASK + nth(askable, j), rng
    return S.A_SWAP + nth(hand, j - asks), rng


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


# ---------------------------------------------------------------- one game: a resumable phase machine


@njit(cache=True, inline="always")
def set_reveal(reveals, i, entry):
    """The reveals pair with entry i replaced."""
    return (entry, reveals[1]) if i == 0 else (reveals[0], entry)


#: Where a game stands (``counts[C_POS]``). A position marked (decision) is a decision point: resumed
#: there, ``advance`` poses the same decision again (recomputing its legal set from the state, with no
#: other effect), so a halted game resumes exactly where it stopped.
POS_ROUND = 0             # a round begins: its records start empty
POS_CENSUS_SHUFFLE = 1    # (decision) the hunter's shuffle offer at the census (census_and_arrival)
POS_CENSUS = 2            # draw if empty, reveal, coven check
POS_SPELL = 3             # (decision) the town side casts a spell or not
POS_ANNOUNCE = 4          # (decision) the town side's announcement
POS_HAT = 5               # (decision) the witch's hat
POS_ARRIVAL = 6           # Arrival number C_LAP begins (or Travel, once they are all played)
POS_ARRIVAL_SHUFFLE = 7   # (decision) the hunter's shuffle offer at an Arrival
POS_DEAL_DRAW = 8         # the cards arrive (no ritual) or the hunter draws them (a ritual)
POS_DEAL = 9              # (decision) the hunter deals a drawn card to town C_STEP
POS_TRAVEL = 10           # Travel begins
POS_TRAVEL_TURN = 11      # (decision) turn C_STEP of Travel C_LAP (or the Hunt, once all are played)
POS_MORE = 12             # (decision) Passage: the giver C_ACTOR gives more
POS_ANSWER = 13           # (decision) the town C_TARGET answers the ask of C_ACTOR
POS_HUNT = 14             # the Hunt begins
POS_DOOM = 15             # (decision) the hunter names Doom's town
POS_PICK = 16             # (decision) pick C_STEP: the hunter names a town (or Doom's town gives, or no pick)
POS_PICK_FROM = 17        # the card is drawn from town C_PICK_TOWN and resolved
POS_TOWNSFOLK = 18        # (decision) the hunter gives the townsfolk C_PICK_CARD to a town
POS_HUNT_END = 19         # the cast tile turns; the next round or the end
POS_OVER = 20             # the game is over


@njit(cache=True, inline="always")
def start_game(deck, cards, log, counts, masks, seed, index, towns, opts):
    """Set up game ``index`` of the run ``seed`` in the state arrays (the deck shuffled, the woods card,
    2 cards to each town round-robin) and the game's three streams; the first round is next."""
    rng_deck = seed_tuple(seed, index, np.int64(S.STREAM_DECK))
    rng_h = seed_tuple(seed, index, np.int64(S.STREAM_HUNTER))
    rng_t = seed_tuple(seed, index, np.int64(S.STREAM_TOWN))
    cards[:] = ZERO
    counts[:] = 0
    masks[:] = ZERO
    n_deck = R.N_CARDS if opts[S.OPT_RITUALS] else R.N_CARDS - R.N_RITUALS
    for c in range(n_deck):
        deck[c] = c
    top = np.int64(0)
    rng_deck = shuffle_range(deck, top, 0, n_deck, rng_deck)
    woods = deck[top]
    top = slot(top, 1)
    n_deck -= 1
    for _ in range(R.HAND_AT_SETUP):
        for t in range(towns):
            cards[S.ROW_HANDS, t] |= bit(deck[top])
            top = slot(top, 1)
            n_deck -= 1
    counts[S.C_TOP] = top
    counts[S.C_N_DECK] = n_deck
    counts[S.C_WOODS] = woods
    counts[S.C_HUNTER_WOODS] = woods   # the hunter saw it; -1 once any swap happened
    counts[S.C_WINNER] = R.WINNER_NONE
    counts[S.C_WIN_TYPE] = R.WIN_UNFINISHED
    counts[S.C_ROUND] = 1
    counts[S.C_POS] = POS_ROUND
    counts[S.C_KIND] = S.D_NONE
    for t in range(S.MAX_TOWNS):
        counts[S.C_WOODS_KNOWN + t] = -1
    for w in range(4):
        masks[S.M_RNG_DECK + w] = rng_deck[w]
        masks[S.M_RNG_HUNTER + w] = rng_h[w]
        masks[S.M_RNG_TOWN + w] = rng_t[w]


@njit(cache=True)
def advance(deck, cards, log, counts, masks, towns, opts, hunter_id, hunter_params, town_id, town_params, stop,
            act):
    """Play the game held in the state arrays on from where it stands (``counts[C_POS]``): the rounds of
    docs/rules/covens.md as a phase machine, so that the real game and every playout of a search run
    the same compiled rules from any decision point. The action ``act`` (>= 0) is carried out at the first
    decision, in place of asking a policy; after it, the hunter's decisions come from policy
    ``hunter_id`` and the towns' from ``town_id``, or the game halts at the next decision of a side whose
    bit (``state.STOP_*``) is set in ``stop``, with the decision's kind, town, about and legal set in
    ``counts``/``masks`` (C_KIND, C_ME, C_ABOUT, M_LEGAL). With ``act`` = ``state.ASK_FIRST``
    the policy is asked at the pending decision, its action stored in C_ACTION and the game halted before
    carrying it out (a search's base choice). Every action is checked (``checked``: the first illegal one
    is recorded in C_ERR and the first legal action played), but a Travel turn of the ``random`` towns
    when no town halts and no action is given: ``random_travel`` draws it without the legal set. Returns
    the position it halted at (POS_OVER once the game is over).

    Speed: the state lives in local variables between the loads at entry and the stores at exit. Each
    decision is posed by the block of its position (its kind, town, about and legal set), asked at one
    place (one inlined hunter view, one call for the towns: a few copies of the policies' code, not one
    per decision point, so the kernel compiles in seconds), then carried out by the block of its
    position."""
    hands = cards[S.ROW_HANDS]
    census = cards[S.ROW_CENSUS]
    dealt = cards[S.ROW_DEALT]
    gave = cards[S.ROW_GAVE]
    received = cards[S.ROW_RECEIVED]
    woods_known = counts[S.C_WOODS_KNOWN:S.C_WOODS_KNOWN + S.MAX_TOWNS]
    spells = counts[S.C_SPELLS:S.C_SPELLS + R.N_SPELLS]
    log_address = log.ctypes.data   # views carry the log's address (``pol.log_at``)
    top = counts[S.C_TOP]
    n_deck = counts[S.C_N_DECK]
    woods = counts[S.C_WOODS]
    hunter_woods = counts[S.C_HUNTER_WOODS]
    fake = counts[S.C_FAKE]
    faces = counts[S.C_FACES]
    picks = counts[S.C_PICKS]
    winner = counts[S.C_WINNER]
    win_type = counts[S.C_WIN_TYPE]
    rnd = counts[S.C_ROUND]
    active = counts[S.C_ACTIVE]
    cast_tile = counts[S.C_CAST_TILE]
    announced = counts[S.C_ANNOUNCED]
    n_log = counts[S.C_N_LOG]
    n_reveals = counts[S.C_N_REVEALS]
    reveals = (counts[S.C_REVEALS], counts[S.C_REVEALS + 1])
    after_travel = (counts[S.C_AFTER], counts[S.C_AFTER + 1], counts[S.C_AFTER + 2], counts[S.C_AFTER + 3],
                    counts[S.C_AFTER + 4])
    hat = counts[S.C_HAT]
    pos = counts[S.C_POS]
    lap = counts[S.C_LAP]
    step = counts[S.C_STEP]
    actor = counts[S.C_ACTOR]
    target = counts[S.C_TARGET]
    doom_town = counts[S.C_DOOM_TOWN]
    doom_picks = counts[S.C_DOOM_PICKS]
    pick_town = counts[S.C_PICK_TOWN]
    pick_card = counts[S.C_PICK_CARD]
    err = counts[S.C_ERR]
    swap_seen = counts[S.C_SWAP_SEEN]
    decisions = counts[S.C_DECISIONS]
    captured = masks[S.M_CAPTURED]
    ritual_cards = masks[S.M_RITUALS]
    known_slots = masks[S.M_KNOWN_SLOTS]
    drawn = masks[S.M_DRAWN]
    remaining = masks[S.M_REMAINING]
    rng_deck = (masks[S.M_RNG_DECK], masks[S.M_RNG_DECK + 1], masks[S.M_RNG_DECK + 2], masks[S.M_RNG_DECK + 3])
    rng_h = (masks[S.M_RNG_HUNTER], masks[S.M_RNG_HUNTER + 1], masks[S.M_RNG_HUNTER + 2],
             masks[S.M_RNG_HUNTER + 3])
    rng_t = (masks[S.M_RNG_TOWN], masks[S.M_RNG_TOWN + 1], masks[S.M_RNG_TOWN + 2], masks[S.M_RNG_TOWN + 3])
    ask_empty = opts[S.OPT_ASK_EMPTY] != 0
    random_discards = opts[S.OPT_DISCARD_ORDER] == S.DISCARD_RANDOM
    all_towns = (ONE << uint64(towns)) - ONE
    max_rounds = opts[S.OPT_MAX_ROUNDS]
    disabled = opts[S.OPT_DISABLED_SPELL] - 1   # the spell the town may not cast, -1 for none
    kind = np.int64(S.D_NONE)
    me = NONE
    about = NONE
    legal = pol.NO_LEGAL
    halted = False
    # the towns' random policy asked at Travel (no halt, no action given) draws without the legal set
    random_towns = town_id == PS.TOWN_RANDOM and (stop >> S.SIDE_TOWN) & 1 == 0
    lazy = False
    while True:
        # ---------------- pose: the rules from ``pos`` on, up to the next decision (kind, me, about, legal)
        while True:
            if pos == POS_ROUND:
                # the round's records start empty (``reference.new_round_records``)
                active = NONE
                cast_tile = NONE
                announced = NONE
                drawn = ZERO
                remaining = ZERO
                n_log = np.int64(0)
                n_reveals = np.int64(0)
                reveals = NO_REVEALS
                after_travel = BEFORE_TRAVEL
                hat = NONE
                census[:] = ZERO
                dealt[:] = ZERO
                gave[:] = ZERO
                received[:] = ZERO
                if opts[S.OPT_SHUFFLE_TIMING] == S.SHUFFLE_CENSUS_AND_ARRIVAL and n_deck >= 2:
                    pos = POS_CENSUS_SHUFFLE
                else:
                    pos = POS_CENSUS
            if pos == POS_CENSUS_SHUFFLE or pos == POS_ARRIVAL_SHUFFLE:
                kind = np.int64(S.D_SHUFFLE)
                me = NONE
                about = NONE
                legal = pol.legal_add(pol.legal_add(pol.NO_LEGAL, S.A_YES), S.A_NO)
                break
            if pos == POS_CENSUS:
                for t in range(towns):
                    if hands[t] == ZERO and n_deck > 0:
                        hands[t] = bit(deck[top])
                        known_slots &= ~bit(top)
                        top = slot(top, 1)
                        n_deck -= 1
                coven = False
                for t in range(towns):
                    census[t] = hands[t]
                    coven |= coven_in(hands[t])
                if coven:
                    winner = R.WINNER_TOWN
                    win_type = R.WIN_COVEN
                    pos = POS_OVER
                    break
                pos = POS_SPELL
            if pos == POS_SPELL:
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
                    kind = np.int64(S.D_SPELL)
                    me = NONE
                    about = NONE
                    legal = pol.legal_add(legal, S.A_NO)
                    break
                pos = POS_ANNOUNCE
            if pos == POS_ANNOUNCE:
                kind = np.int64(S.D_ANNOUNCE)
                me = NONE
                about = NONE
                legal = pol.legal_add(town_set(towns, all_towns), S.A_NO)
                break
            if pos == POS_HAT:
                kind = np.int64(S.D_HAT)
                me = NONE
                about = NONE
                legal = town_set(towns, all_towns)
                break
            if pos == POS_ARRIVAL:
                if lap == (2 if active == R.GROWTH else 1):
                    pos = POS_TRAVEL
                elif opts[S.OPT_SHUFFLE_TIMING] != S.SHUFFLE_NEVER and n_deck >= 2:
                    pos = POS_ARRIVAL_SHUFFLE
                    continue
                else:
                    pos = POS_DEAL_DRAW
            if pos == POS_DEAL_DRAW:
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
                    lap += 1
                    pos = POS_ARRIVAL
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
                step = np.int64(0)
                pos = POS_DEAL
            if pos == POS_DEAL:
                if remaining == ZERO or step == towns:
                    lap += 1
                    pos = POS_ARRIVAL
                    continue
                kind = np.int64(S.D_DEAL)
                me = NONE
                about = step
                legal = card_set(pol.NO_LEGAL, remaining)
                if count(remaining) < towns - step:
                    legal = pol.legal_add(legal, S.A_NO)
                break
            if pos == POS_TRAVEL:
                if active == R.DARKNESS:
                    hunter_woods = NONE   # he cannot see whether the woods card moves
                counts[S.C_HUNTER_WOODS_TRAVEL] = hunter_woods
                holder = NONE
                if swap_seen != 0:
                    for t in range(towns):
                        if woods_known[t] >= 0:
                            holder = np.int64(t)
                counts[S.C_HOLDER_TRAVEL] = holder
                lap = np.int64(0)
                step = np.int64(0)
                pos = POS_TRAVEL_TURN
            if pos == POS_TRAVEL_TURN:
                if step == towns:
                    lap += 1
                    step = np.int64(0)
                if lap == (2 if active == R.NATURE_SPELL else 1):
                    after_travel = sizes_of(hands)
                    pos = POS_HUNT
                else:
                    first = hat if lap == 0 or opts[S.OPT_NATURE_RESTART] else (hat + 1) % towns
                    actor = (first + step) % towns
                    kind = np.int64(S.D_TRAVEL)
                    me = actor
                    about = NONE
                    if random_towns and act == NONE:
                        lazy = True
                        legal = pol.NO_LEGAL
                    else:
                        legal = travel_set(hands, actor, towns, ask_empty)
                    break
            if pos == POS_MORE:
                one_town = opts[S.OPT_PASSAGE_TARGETS] == S.PASSAGE_ONE_TOWN
                targets = bit(target) if one_town else all_towns & ~bit(actor)
                kind = np.int64(S.D_MORE)
                me = actor
                about = target
                legal = pol.legal_add(give_set(pol.NO_LEGAL, hands[actor], targets, towns), S.A_NO)
                break
            if pos == POS_ANSWER:
                kind = np.int64(S.D_ANSWER)
                me = target
                about = actor
                legal = card_set(pol.NO_LEGAL, hands[target])
                break
            if pos == POS_HUNT:
                doom_town = NONE
                doom_picks = np.int64(0)
                step = np.int64(0)
                pos = POS_PICK
                if active == R.DOOM:
                    for u in range(towns):
                        if hands[u] != ZERO or opts[S.OPT_DOOM_EMPTY]:
                            pos = POS_DOOM
            if pos == POS_DOOM:
                allowed = ZERO
                for u in range(towns):
                    if hands[u] != ZERO or opts[S.OPT_DOOM_EMPTY]:
                        allowed |= bit(u)
                kind = np.int64(S.D_DOOM)
                me = NONE
                about = NONE
                legal = town_set(towns, allowed)
                break
            if pos == POS_PICK:
                # picks: under Doom both from the town named (none if it was named empty, none if no town
                # could be named); its hand emptied by the first pick, the second per doom_second_pick
                if step == R.PICKS_PER_HUNT:
                    pos = POS_HUNT_END
                else:
                    nonempty = ZERO
                    for u in range(towns):
                        if hands[u] != ZERO:
                            nonempty |= bit(u)
                    if doom_picks != 0 and hands[doom_town] != ZERO:
                        pick_town = doom_town
                        pos = POS_PICK_FROM
                    elif (active != R.DOOM or (doom_picks != 0 and step > 0 and opts[S.OPT_DOOM_SECOND_PICK] ==
                                               S.DOOM_SECOND_ANY_TOWN)) and nonempty != ZERO:
                        kind = np.int64(S.D_PICK)
                        me = NONE
                        about = NONE
                        legal = town_set(towns, nonempty)
                        break
                    else:
                        step += 1
                        continue
            if pos == POS_PICK_FROM:
                u = pick_town
                k, rng_deck = below_t(rng_deck, count(hands[u]))
                card = nth(hands[u], k)
                hands[u] &= ~bit(card)
                picks += 1
                if card >= R.FIRST_FOLK and card < R.FIRST_RITUAL:
                    # revealed now; the town it goes to is the hunter's decision
                    pick_card = card
                    reveals = set_reveal(reveals, n_reveals, pol.reveal_entry(u, card, -1))
                    n_reveals += 1
                    pos = POS_TOWNSFOLK
                else:
                    if card >= R.FIRST_RITUAL:
                        ritual_cards |= bit(card)
                    else:
                        # a witch, true or fake: captured; the rest of the hand flees under the deck
                        n_deck, _, rng_deck = to_bottom(deck, top, n_deck, hands[u], random_discards, rng_deck)
                        hands[u] = ZERO
                        if card == R.FAKE:
                            fake = 1
                            n_deck, slots, rng_deck = to_bottom(deck, top, n_deck, captured, random_discards,
                                                                rng_deck)
                            known_slots |= slots
                            captured = ZERO
                        else:
                            captured |= bit(card)
                    reveals = set_reveal(reveals, n_reveals, pol.reveal_entry(u, card, -1))
                    n_reveals += 1
                    if card >= R.FIRST_RITUAL and count(ritual_cards) >= R.RITUALS_TO_WIN:
                        winner = R.WINNER_TOWN
                        win_type = R.WIN_RITUAL
                        pos = POS_OVER
                        break
                    if card < R.FIRST_FOLK and count(captured) + fake >= R.CAPTURES_TO_WIN:
                        winner = R.WINNER_HUNTER
                        win_type = R.WIN_CAPTURE
                        pos = POS_OVER
                        break
                    step += 1
                    pos = POS_PICK
                    continue
            if pos == POS_TOWNSFOLK:
                allowed = all_towns if opts[S.OPT_TOWNSFOLK_TO] == S.FOLK_ANY_TOWN else all_towns & ~bit(pick_town)
                kind = np.int64(S.D_TOWNSFOLK)
                me = NONE
                about = pick_town
                legal = town_set(towns, allowed)
                break
            if pos == POS_HUNT_END:
                if cast_tile >= 0:
                    faces ^= 1 << cast_tile
                if rnd >= max_rounds:
                    pos = POS_OVER
                    break
                rnd += 1
                pos = POS_ROUND
                continue
            break   # POS_OVER
        if pos == POS_OVER:
            kind = np.int64(S.D_NONE)
            break

        # ---------------- the decision: given from outside, a halt, or the side's policy
        side = S.SIDE_HUNTER if kind == S.D_SHUFFLE or kind == S.D_DEAL or kind >= S.D_DOOM else S.SIDE_TOWN
        if act >= 0:
            action = act
            act = NONE
        elif (stop >> side) & 1 and act != S.ASK_FIRST:
            halted = True
            break
        elif side == S.SIDE_HUNTER:
            if hunter_id == PS.HUNTER_RANDOM:
                action, rng_h = pol.random_action(legal, rng_h)
            else:
                action, rng_h = ask_hunter(hunter_id, hunter_params, rng_h, legal, kind, about, rnd, towns, faces,
                                           active, captured, fake, ritual_cards, hands, n_deck, reveals, n_reveals,
                                           after_travel, census, announced, log_address, n_log, hunter_woods, dealt,
                                           remaining if kind == S.D_DEAL else ZERO, drawn, known_slots, top, opts)
        elif lazy:
            action, rng_t = random_travel(hands, actor, towns, ask_empty, rng_t)
        elif town_id == PS.TOWN_RANDOM:
            action, rng_t = pol.random_action(legal, rng_t)
        else:
            action, rng_t = ask_town(town_id, town_params, rng_t, legal, kind, me, about, rnd, towns, faces, active,
                                     captured, fake, ritual_cards, five(hands), n_deck, reveals, n_reveals,
                                     five(census), announced, log_address, n_log, five(woods_known), five(gave),
                                     five(received), opts)
        if act == S.ASK_FIRST:
            counts[S.C_ACTION] = action
            act = NONE
            halted = True
            break
        if lazy:
            lazy = False   # legal by construction (random_travel)
        else:
            action, err = checked(action, legal, kind, err)
        decisions += 1

        # ---------------- carried out by the block of its position
        if pos == POS_TRAVEL_TURN:
            a = actor
            if action < S.A_ASK:
                # give, and under Passage more while a still holds >= 2 cards
                c = (action - S.A_GIVE) // S.MAX_TOWNS
                u = (action - S.A_GIVE) % S.MAX_TOWNS
                hands[a] &= ~bit(c)
                hands[u] |= bit(c)
                gave[a] |= bit(c)
                received[u] |= bit(c)
                log[0, n_log] = pol.log_entry(a, S.LOG_GIVE, u, 1)
                log[1, n_log] = c
                n_log += 1
                if active == R.PASSAGE and count(hands[a]) >= 2:
                    target = u
                    pos = POS_MORE
                else:
                    step += 1
            elif action < S.A_SWAP:
                u = action - S.A_ASK
                if count(hands[u]) >= 2:
                    target = u
                    pos = POS_ANSWER
                else:
                    log[0, n_log] = pol.log_entry(a, S.LOG_ASK, u, 0)
                    log[1, n_log] = -1
                    n_log += 1
                    step += 1
            elif action < S.A_CARD:
                c = action - S.A_SWAP
                hands[a] = (hands[a] & ~bit(c)) | bit(woods)
                gave[a] |= bit(c)
                received[a] |= bit(woods)
                woods = c
                woods_known[:] = -1
                woods_known[a] = c
                hunter_woods = NONE
                swap_seen = np.int64(active != R.DARKNESS)
                log[0, n_log] = pol.log_entry(a, S.LOG_SWAP, -1, 1)
                log[1, n_log] = c
                n_log += 1
                step += 1
            else:
                log[0, n_log] = pol.log_entry(a, S.LOG_PASS, -1, 0)
                log[1, n_log] = -1
                n_log += 1
                step += 1
        elif pos == POS_MORE:
            if action == S.A_NO:
                step += 1
                pos = POS_TRAVEL_TURN
            else:
                a = actor
                c = (action - S.A_GIVE) // S.MAX_TOWNS
                u = (action - S.A_GIVE) % S.MAX_TOWNS
                hands[a] &= ~bit(c)
                hands[u] |= bit(c)
                gave[a] |= bit(c)
                received[u] |= bit(c)
                log[0, n_log] = pol.log_entry(a, S.LOG_GIVE, u, 1)
                log[1, n_log] = c
                n_log += 1
                target = u
                if count(hands[a]) < 2:
                    step += 1
                    pos = POS_TRAVEL_TURN
        elif pos == POS_ANSWER:
            card = bit(action - S.A_CARD)
            hands[target] &= ~card
            hands[actor] |= card
            gave[target] |= card
            received[actor] |= card
            log[0, n_log] = pol.log_entry(actor, S.LOG_ASK, target, 1)
            log[1, n_log] = action - S.A_CARD
            n_log += 1
            step += 1
            pos = POS_TRAVEL_TURN
        elif pos == POS_PICK:
            pick_town = action - S.A_TOWN
            pos = POS_PICK_FROM
        elif pos == POS_TOWNSFOLK:
            to = action - S.A_TOWN
            hands[to] |= bit(pick_card)
            reveals = set_reveal(reveals, n_reveals - 1, pol.reveal_entry(pick_town, pick_card, to))
            step += 1
            pos = POS_PICK
        elif pos == POS_DEAL:
            if action != S.A_NO:
                card = bit(action - S.A_CARD)
                remaining &= ~card
                hands[step] |= card
                dealt[step] |= card
            step += 1
        elif pos == POS_DOOM:
            doom_town = action - S.A_TOWN
            doom_picks = np.int64(hands[doom_town] != ZERO)
            pos = POS_PICK
        elif pos == POS_CENSUS_SHUFFLE or pos == POS_ARRIVAL_SHUFFLE:
            if action == S.A_YES:
                rng_deck = shuffle_range(deck, top, 0, n_deck, rng_deck)
                known_slots = ZERO
            pos = POS_CENSUS if pos == POS_CENSUS_SHUFFLE else POS_DEAL_DRAW
        elif pos == POS_SPELL:
            if action != S.A_NO:
                cast_tile = action - S.A_SPELL
                active = up_spells(faces, opts)[cast_tile]
                spells[active] += 1
            pos = POS_ANNOUNCE
        elif pos == POS_ANNOUNCE:
            announced = action - S.A_TOWN if action != S.A_NO else NONE
            pos = POS_HAT
        else:   # POS_HAT
            hat = action - S.A_TOWN
            lap = np.int64(0)
            pos = POS_ARRIVAL
    if act >= 0 and not halted:
        raise ValueError("an action given to a game that is over")
    counts[S.C_TOP] = top
    counts[S.C_N_DECK] = n_deck
    counts[S.C_WOODS] = woods
    counts[S.C_HUNTER_WOODS] = hunter_woods
    counts[S.C_FAKE] = fake
    counts[S.C_FACES] = faces
    counts[S.C_PICKS] = picks
    counts[S.C_WINNER] = winner
    counts[S.C_WIN_TYPE] = win_type
    counts[S.C_ROUND] = rnd
    counts[S.C_ACTIVE] = active
    counts[S.C_CAST_TILE] = cast_tile
    counts[S.C_ANNOUNCED] = announced
    counts[S.C_N_LOG] = n_log
    counts[S.C_N_REVEALS] = n_reveals
    counts[S.C_REVEALS] = reveals[0]
    counts[S.C_REVEALS + 1] = reveals[1]
    for t in range(S.MAX_TOWNS):
        counts[S.C_AFTER + t] = select_get(after_travel, t)
    counts[S.C_HAT] = hat
    counts[S.C_POS] = pos
    counts[S.C_LAP] = lap
    counts[S.C_STEP] = step
    counts[S.C_ACTOR] = actor
    counts[S.C_TARGET] = target
    counts[S.C_DOOM_TOWN] = doom_town
    counts[S.C_DOOM_PICKS] = doom_picks
    counts[S.C_PICK_TOWN] = pick_town
    counts[S.C_PICK_CARD] = pick_card
    counts[S.C_ERR] = err
    counts[S.C_SWAP_SEEN] = swap_seen
    counts[S.C_DECISIONS] = decisions
    counts[S.C_KIND] = kind
    counts[S.C_ME] = me
    counts[S.C_ABOUT] = about
    masks[S.M_CAPTURED] = captured
    masks[S.M_RITUALS] = ritual_cards
    masks[S.M_KNOWN_SLOTS] = known_slots
    masks[S.M_DRAWN] = drawn
    masks[S.M_REMAINING] = remaining
    for w in range(4):
        masks[S.M_LEGAL + w] = select_get(legal, w)
        masks[S.M_RNG_DECK + w] = select_get(rng_deck, w)
        masks[S.M_RNG_HUNTER + w] = select_get(rng_h, w)
        masks[S.M_RNG_TOWN + w] = select_get(rng_t, w)
    return pos


@njit(cache=True, inline="always")
def write_outcome(g, counts, masks, out_winner, out_win_type, hunter_won, town_won, rounds, witches, out_fake,
                  rituals, out_spells, cards_left, out_picks):
    """Row g of the outcome arrays from a finished game's state."""
    winner = counts[S.C_WINNER]
    captured = masks[S.M_CAPTURED]
    out_winner[g] = winner
    out_win_type[g] = counts[S.C_WIN_TYPE]
    hunter_won[g] = winner == R.WINNER_HUNTER
    town_won[g] = winner == R.WINNER_TOWN
    rounds[g] = counts[S.C_ROUND]
    witches[g] = count(captured) + counts[S.C_FAKE]
    out_fake[g] = counts[S.C_FAKE] != 0
    rituals[g] = count(masks[S.M_RITUALS])
    for k in range(R.N_SPELLS):
        out_spells[g, k] = counts[S.C_SPELLS + k]
    cards_left[g] = counts[S.C_N_DECK]
    out_picks[g] = counts[S.C_PICKS]


@njit(cache=True)
def play_chunk(seed, start, n_games, towns, opts, hunter_id, hunter_params, town_id, town_params,
               out_winner, out_win_type, hunter_won, town_won, rounds, witches, out_fake, rituals, out_spells,
               cards_left, out_picks):
    """Play games start .. start+n_games-1 of the run ``seed``, each set up (``start_game``) and played to
    its end by one ``advance``, and fill the outcome arrays (``out_spells``: n_games x 6 casts by spell
    id). Returns (0, 0), or (game offset, error code) of the first illegal decision."""
    deck, cards, log, counts, masks = new_arrays()
    for g in range(n_games):
        start_game(deck, cards, log, counts, masks, seed, start + g, towns, opts)
        advance(deck, cards, log, counts, masks, towns, opts, hunter_id, hunter_params, town_id, town_params,
                NO_STOP, NONE)
        if counts[S.C_ERR] != NO_ERROR:
            return g, counts[S.C_ERR]
        write_outcome(g, counts, masks, out_winner, out_win_type, hunter_won, town_won, rounds, witches, out_fake,
                      rituals, out_spells, cards_left, out_picks)
    return 0, NO_ERROR


@njit(cache=True, inline="always")
def new_arrays():
    """``state.new_arrays`` in numba: (deck, cards, log, counts, masks) of one game."""
    return (np.zeros(CAP, np.int64), np.zeros((S.N_ROWS, S.MAX_TOWNS), np.uint64), np.zeros((2, pol.LOG_SIZE), np.int64),
            np.zeros(S.N_COUNTS, np.int64), np.zeros(S.N_MASKS, np.uint64))


def run_chunk(seed: int, start: int, count: int, players: int, options, hunter_id: int, hunter_params,
              town_id: int, town_params) -> dict[str, np.ndarray]:
    """Python entry: play ``count`` games (``players`` = hunter + towns) and return the outcome arrays
    by column (``rules.OUTCOME_DTYPES``). ``options``: a RuleOptions or its ``state.option_tuple``.
    An illegal decision by a policy raises a RunError naming the game, side, decision and action.
    Random against random is played by ``random_play.play_chunk`` (the same games, without the phase
    machine: 1.7x faster, and its first compile about a third of this kernel's)."""
    opts = S.option_tuple(options) if isinstance(options, R.RuleOptions) else tuple(options)
    towns = int(players) - 1
    out = {column: np.empty(count, np.dtype(dtype)) for column, dtype in R.OUTCOME_DTYPES.items()}
    spells = np.empty((count, R.N_SPELLS), np.int8)
    outcome = (out["winner"], out["win_type"], out["hunter_won"], out["town_won"], out["rounds"],
               out["witches_captured"], out["fake_witch_caught"], out["rituals_taken"], spells, out["cards_left"],
               out["picks"])
    if hunter_id == PS.HUNTER_RANDOM and town_id == PS.TOWN_RANDOM:
        # random against random: the same games played straight through (random_play.py)
        spell_of, icons = RP.tables(opts)
        RP.play_chunk(np.uint64(seed), np.int64(start), np.int64(count), np.int64(towns),
                      tuple(np.int64(v) for v in opts), np.zeros(RP.QUEUE, np.int64),
                      np.zeros(S.MAX_TOWNS, np.uint64), spell_of, icons, *outcome)
        game, err = 0, NO_ERROR
    else:
        game, err = play_chunk(
            np.uint64(seed), np.int64(start), np.int64(count), np.int64(towns), tuple(np.int64(v) for v in opts),
            np.int64(hunter_id), pol.params_tuple(hunter_params), np.int64(town_id), pol.params_tuple(town_params),
            *outcome)
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
