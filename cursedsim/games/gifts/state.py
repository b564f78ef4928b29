"""Cursed Gifts numbering shared by the reference engine and (later) the kernel: action ids, decision
kinds, random streams and zones.

**Cards** are copies numbered 0..size-1 in deck-file order (``Deck.arrays()``). A gauge entry is named by
its first gift card (the bonus gift: its lower Useless Gift).

**Actions** (``N_ACTIONS`` = 510 ids; legal actions always listed ascending):

========== ===================== =====================================================================
A_PLAY     0 + card              play ``card`` from your hand (D_MAIN), add it to an antidote heal
                                 (D_ANTIDOTE), or answer with it as a RIPOSTE (D_RESPOND)
A_SEAT     250 + seat            the target seat of the card being played (D_TARGET)
A_PICK     256 + card            a card: a gauge entry (D_GIFT, D_HEAL, D_REMOVE), a hand card to
                                 discard (D_DISCARD) or the victim's card Mugging takes (D_TAKE)
A_BONUS    506                   play 2 Useless Gifts (the two lowest) as a 1-point INEVITABLE gift
A_CACARMA  507                   answer with Cacarma (the three lowest Useless Gifts)
A_PASS     508                   no answer (D_RESPOND); no more antidotes (D_ANTIDOTE)
A_END      509                   end the turn by drawing a card (D_MAIN)
========== ===================== =====================================================================

**Decisions** (``to_move()`` -> (seat, kind)): D_MAIN at every step of a turn (A_END always legal);
D_TARGET after playing a gift, a Trick or the bonus; D_GIFT (which gift a raise Trick sits on);
D_DISCARD (Mugging's cost); D_ANTIDOTE when another antidote could join the heal; D_HEAL while the heal
has value left; D_REMOVE (Emergency Ifren); D_RESPOND to the player a card was played on, only when
they hold an answer (a fitting RIPOSTE card, or Cacarma); D_TAKE (the card an effective Mugging takes,
with ``mugging_take="chosen"``: the legal actions name the victim's hand). D_TAKE is numbered after
D_NONE so the older numbers stay.
"""

from __future__ import annotations

from cursedsim.games.gifts.deck import MAX_COPIES
from cursedsim.games.gifts.rules import MAX_PLAYERS

A_PLAY = 0
A_SEAT = A_PLAY + MAX_COPIES
A_PICK = A_SEAT + MAX_PLAYERS
A_BONUS = A_PICK + MAX_COPIES
A_CACARMA = A_BONUS + 1
A_PASS = A_CACARMA + 1
A_END = A_PASS + 1
N_ACTIONS = A_END + 1

D_MAIN = 0
D_TARGET = 1
D_GIFT = 2
D_DISCARD = 3
D_ANTIDOTE = 4
D_HEAL = 5
D_REMOVE = 6
D_RESPOND = 7
D_NONE = 8
D_TAKE = 9
DECISION_NAMES = ("main", "target", "gift", "discard", "antidote", "heal", "remove", "respond", "none", "take")

#: Random streams of game (seed, index): the deck (shuffles, blind takes) and one per seat's policy.
STREAM_DECK = 0
STREAM_POLICY = 1   # seat s draws from stream STREAM_POLICY + s


def action_name(action: int) -> str:
    """E.g. ``play 12``, ``seat 3``, ``pick 40``, ``bonus``, ``cacarma``, ``pass``, ``end``."""
    if A_PLAY <= action < A_SEAT:
        return f"play {action - A_PLAY}"
    if A_SEAT <= action < A_PICK:
        return f"seat {action - A_SEAT}"
    if A_PICK <= action < A_BONUS:
        return f"pick {action - A_PICK}"
    return {A_BONUS: "bonus", A_CACARMA: "cacarma", A_PASS: "pass", A_END: "end"}.get(action, f"? {action}")


# ---------------------------------------------------------------- the kernel's flat state

#: The numba kernel (``kernel.py``) and its policies (``policies.py``) keep a game in three arrays,
#: allocated once per chunk: ``cd`` (int64, N_CD x copies: the deck's facts per copy), ``st`` (int64:
#: every integer of the game at the ST_* offsets) and ``bits`` (uint64, N_BROWS x W: card bit sets and
#: the random streams). W words of 64 bits hold a set of MAX_COPIES cards.
W = 4
CD_TYPE, CD_VALUE, CD_FLAGS, CD_EFFECT, CD_KIND = range(5)
N_CD = 5

#: Card sets by role (rows B_MASK + MK_*), built from the deck by ``kernel.card_masks``.
MK_USELESS = 0
MK_ANTIDOTE = 1
MK_RIPOSTE = 2          # any card with the RIPOSTE flag
MK_ANSWERS_ATTACK = 3   # RIPOSTE cards that answer a gift or a Trick (riposte_cancel)
MK_ANSWERS_DEFENSE = 4  # RIPOSTE cards that answer a Defense (cancel_defense)
MK_GIFT = 5             # Cursed Gifts (effects gift, golden_gift)
MK_RAISE = 6
MK_MUGGING = 7
MK_MOURNING = 8
MK_REMOVE = 9
N_MASKS = 10

#: Rows of ``bits``: each hand, each gauge's entry keys, the masks, a scratch set, the main decision's
#: playable cards, and the xoshiro256** states of the random streams (row B_STREAM + stream: 0 the deck,
#: 1 + seat the seats' policies; 4 words each).
B_HAND = 0
B_GAUGE = B_HAND + MAX_PLAYERS
B_MASK = B_GAUGE + MAX_PLAYERS
B_SCRATCH = B_MASK + N_MASKS
B_PLAYABLE = B_SCRATCH + 1
B_STREAM = B_PLAYABLE + 1
N_BROWS = B_STREAM + 1 + MAX_PLAYERS

#: Offsets in ``st``: the game's scalars first (reset per game), then the options, the seats' policy ids,
#: per-seat arrays, the card arrays (pile, Septic Discard, gauge entries by key card), the legal list and
#: scratch lists.
ST_PLAYED = 0
ST_GIFT_GIVEN = 1
ST_NPILE = 2
ST_NDISC = 3
ST_OVER = 4
ST_WINNER = 5
ST_ERR = 6
ST_RIPOSTES = 7
ST_CACARMAS = 8
ST_BONUS = 9
ST_COUNTS = 10           # 5 slots: played cards by type (effects.TYPE_NAMES)
ST_NELIM = 15
ST_ELIM = 16
ST_TURN = 17
ST_UNFINISHED = 18
ST_TARGET = 19
ST_PCARD = 20
ST_PADDS = 21
ST_PLAYERS = 22
ST_DEALT = 23            # the kinds dealt to the focus seat (bit mask)
ST_BONUS_OK = 24         # the main decision: A_BONUS legal
# where a game stands, so that ``kernel.advance`` halts at a decision and resumes from it (issue 29)
ST_PHASE = 25            # kernel.PH_*: a turn begins, a main decision, an answer awaited, over
ST_SEAT = 26             # whose turn it is
ST_STEP = 27             # the card step waiting for the answer (kernel.STEP_*)
ST_SCARD = 28            # its card
ST_SKEY = 29             # its own datum: the gauge entry a raise sits on, the card Mugging's cost discarded
ST_FTARGET = 30          # a target given from outside for the next D_TARGET (-1: the policy chooses)
ST_STOPMASK = 31         # bit s: halt at seat s's searched decisions (advance's ``stop_mask``)
N_SCALARS = 32
ST_OPTS = 32             # the rule options (kernel.option_array), 16 slots
ST_PID = 48              # + seat: the seat's policy id
ST_HANDN = 56            # + seat
ST_GTOTAL = 64           # + seat
ST_ALIVE = 72            # + seat
ST_PILE = 80             # the draw pile (top last)
ST_DISC = ST_PILE + MAX_COPIES          # the Septic Discard in order of arrival
ST_ESEAT = ST_DISC + MAX_COPIES         # + key: the seat of the entry (-1 none)
ST_EVALUE = ST_ESEAT + MAX_COPIES       # + key: its value with its Tricks
ST_ELEN = ST_EVALUE + MAX_COPIES        # + key: its cards
ST_LEGAL = ST_ELEN + MAX_COPIES         # the legal actions of a decision
ST_CHAIN = ST_LEGAL + N_ACTIONS         # scratch lists
ST_EXTRA = ST_CHAIN + MAX_COPIES
ST_HEALED = ST_EXTRA + MAX_COPIES
MAX_ENTRY_CARDS = 16
ST_ECARDS = ST_HEALED + MAX_COPIES      # + key * MAX_ENTRY_CARDS: the entry's cards in landing order
# the step API's record (step.py ``ArrayState``; 0 in runs and playouts, which never read it): with
# ST_HOOK set, every decision inside a card step takes the next action of the script, and when the
# script is spent the kernel notes the question (kind, seat, legal list length) and raises
# ``kernel.Question``; the hidden cards' moves are logged as events (kernel.EV_*: code, a, b).
ST_HOOK = ST_ECARDS + MAX_COPIES * MAX_ENTRY_CARDS
ST_QKIND = ST_HOOK + 1
ST_QSEAT = ST_HOOK + 2
ST_QN = ST_HOOK + 3
ST_NSCRIPT = ST_HOOK + 4
ST_ISCRIPT = ST_HOOK + 5
ST_NEV = ST_HOOK + 6
MAX_SCRIPT = 64
ST_SCRIPT = ST_HOOK + 8
MAX_EVENTS = 2 * MAX_COPIES + 64
ST_EVENTS = ST_SCRIPT + MAX_SCRIPT      # + 3 * i: event i
N_ST = ST_EVENTS + 3 * MAX_EVENTS
