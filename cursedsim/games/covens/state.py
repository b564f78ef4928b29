"""Curses & Covens numbering shared by the reference engine and the kernel: option slots, action ids,
decision kinds, sides, random streams, phases and travel-log kinds.

**Options.** ``option_tuple(options)`` gives an int64 per RuleOptions field in field order (slot i = the
i-th field, ``OPT_<FIELD>``): a string as its index in ``rules.CHOICES[field]``, a bool as 0/1, an int
as itself.

**Actions** (``N_ACTIONS`` = 204 ids; legal actions always listed in ascending id):

========== ===================== =====================================================
A_GIVE     0 + card*5 + town     give ``card`` to ``town`` (Travel, Passage's more)
A_ASK      135 + town            ask ``town`` for a card (Travel)
A_SWAP     140 + card            swap ``card`` with the woods card (Travel)
A_CARD     167 + card            a card: answer to an ask; a card dealt under a ritual
A_TOWN     194 + town            a town: announce, hat, Doom, pick, townsfolk target
A_SPELL    199 + tile            cast the face-up side of ``tile``
A_YES      202                   shuffle
A_NO       203                   no: no spell / no announcement / no shuffle / no card
                                 for this town / stop giving / pass
========== ===================== =====================================================

**Decisions.** ``to_move()`` returns (side, town or -1, decision kind D_*). A decision is asked whenever
its condition holds (docs/rules/covens.md), even when only one action is legal, so a ``random``
policy draws ``below(n)`` for every decision asked, n = 1 included. Conditions: D_SHUFFLE when the deck
holds >= 2 cards; D_SPELL when some face-up side is castable; D_ANSWER when the asked town holds >= 2
cards; D_MORE while the giver holds >= 2 cards; D_PICK when some town holds a card; D_DOOM when Doom is
active and some town may be named; D_DEAL while drawn cards remain; the rest always.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cursedsim.games.covens import rules as R

MAX_TOWNS = R.MAX_TOWNS
N_CARDS = R.N_CARDS

# ---------------------------------------------------------------- options

OPT_RITUALS = 0
OPT_DARKNESS_BACKS = 1
OPT_SPELL_ICONS = 2
OPT_WILD_ICONS = 3
OPT_FAKE_CASTS = 4
OPT_SHUFFLE_TIMING = 5
OPT_SHORT_DECK_ARRIVAL = 6
OPT_ASK_EMPTY = 7
OPT_PASSAGE_TARGETS = 8
OPT_NATURE_RESTART = 9
OPT_DOOM_EMPTY = 10
OPT_DOOM_SECOND_PICK = 11
OPT_TOWNSFOLK_TO = 12
OPT_DISCARD_ORDER = 13
OPT_MAX_ROUNDS = 14
OPT_DISABLED_SPELL = 15
N_OPTIONS = 16

#: Choice indices of the string options (``rules.CHOICES[name].index(value)``), named.
BACKS_PASSAGE, BACKS_NATURE = 0, 1
ICONS_CHARMS_MIXED, ICONS_CURSES_MIXED, ICONS_ALL_MIXED = 0, 1, 2
WILD_ONE, WILD_BOTH = 0, 1
SHUFFLE_ARRIVAL, SHUFFLE_NEVER, SHUFFLE_CENSUS_AND_ARRIVAL = 0, 1, 2
SHORT_DEAL_WHAT_THERE_IS, SHORT_DEAL_NONE = 0, 1
PASSAGE_ONE_TOWN, PASSAGE_ANY_TOWN = 0, 1
DOOM_SECOND_SKIP, DOOM_SECOND_ANY_TOWN = 0, 1
FOLK_OTHER_TOWN, FOLK_ANY_TOWN = 0, 1
DISCARD_RANDOM, DISCARD_ASCENDING = 0, 1
#: disabled_spell: 0 is "none", 1 + spell id names the spell the town may not cast.
DISABLED_NONE = 0


def option_tuple(options: R.RuleOptions) -> tuple[int, ...]:
    """The options as one int per RuleOptions field, in field order (strings as CHOICES index)."""
    values = []
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        values.append(R.CHOICES[f.name].index(value) if f.name in R.CHOICES else int(value))
    return tuple(np.int64(v) for v in values)


# ---------------------------------------------------------------- actions

A_GIVE = 0
A_ASK = A_GIVE + N_CARDS * MAX_TOWNS       # 135
A_SWAP = A_ASK + MAX_TOWNS                 # 140
A_CARD = A_SWAP + N_CARDS                  # 167
A_TOWN = A_CARD + N_CARDS                  # 194
A_SPELL = A_TOWN + MAX_TOWNS               # 199
A_YES = A_SPELL + R.N_TILES                # 202
A_NO = A_YES + 1                           # 203
N_ACTIONS = A_NO + 1                       # 204


def give(card: int, town: int) -> int:
    """The id of "give ``card`` to ``town``"."""
    return A_GIVE + card * MAX_TOWNS + town


def action_name(action: int) -> str:
    """E.g. ``give love witch 1 to town 2``, ``ask town 0``, ``town 3``, ``no``."""
    if A_GIVE <= action < A_ASK:
        card, town = divmod(action - A_GIVE, MAX_TOWNS)
        return f"give {R.card_name(card)} to town {town}"
    if action < A_SWAP:
        return f"ask town {action - A_ASK}"
    if action < A_CARD:
        return f"swap {R.card_name(action - A_SWAP)} with the woods"
    if action < A_TOWN:
        return R.card_name(action - A_CARD)
    if action < A_SPELL:
        return f"town {action - A_TOWN}"
    if action < A_YES:
        return f"cast tile {action - A_SPELL}"
    return {A_YES: "yes", A_NO: "no"}.get(action, f"action {action}")


# ---------------------------------------------------------------- sides, decisions, streams, phases

SIDE_HUNTER = 0
SIDE_TOWN = 1
NO_TOWN = -1

D_NONE = -1       # the game is over
D_SHUFFLE = 0     # hunter: shuffle the deck? (A_YES / A_NO)
D_SPELL = 1       # town side (census view): A_SPELL + tile or A_NO
D_ANNOUNCE = 2    # town side (census view): A_TOWN + u ("we gather at u") or A_NO
D_HAT = 3         # town side (census view): A_TOWN + u gets the witch's hat
D_DEAL = 4        # hunter, ritual Arrival, for one town: A_CARD + c or A_NO
D_TRAVEL = 5      # the acting town: A_GIVE / A_ASK / A_SWAP (A_NO only when nothing else is legal)
D_ANSWER = 6      # the asked town: A_CARD + c to give the asker
D_MORE = 7        # the giver under Passage: A_GIVE another card or A_NO to stop
D_DOOM = 8        # hunter: A_TOWN + u, both picks from u
D_PICK = 9        # hunter: A_TOWN + u to pick a random card from
D_TOWNSFOLK = 10  # hunter: A_TOWN + v receives the townsfolk just picked
DECISION_NAMES = ("shuffle", "spell", "announce", "hat", "deal", "travel", "answer", "more", "doom", "pick",
                  "townsfolk")
#: The side deciding each kind.
DECISION_SIDE = np.array([SIDE_HUNTER, SIDE_TOWN, SIDE_TOWN, SIDE_TOWN, SIDE_HUNTER, SIDE_TOWN, SIDE_TOWN,
                          SIDE_TOWN, SIDE_HUNTER, SIDE_HUNTER, SIDE_HUNTER], np.int64)

#: Random streams of (seed, index): the cards (set-up and hunter shuffles, discard orders, hunt picks, in
#: the order they happen), the hunter policy's and the town policy's own draws.
STREAM_DECK = 0
STREAM_HUNTER = 1
STREAM_TOWN = 2
SIDE_STREAM = (STREAM_HUNTER, STREAM_TOWN)

PH_CENSUS = 0
PH_ARRIVAL = 1
PH_TRAVEL = 2
PH_HUNT = 3
PH_OVER = 4
PHASE_NAMES = ("census", "arrival", "travel", "hunt", "over")

#: Travel-log entry kinds: (actor, kind, target town or -1, cards moved). One entry per card given
#: (each further Passage card is its own entry), per ask (moved 0 or 1), per swap (target -1), per pass.
LOG_GIVE = 0
LOG_ASK = 1
LOG_SWAP = 2
LOG_PASS = 3
LOG_NAMES = ("give", "ask", "swap", "pass")

assert tuple(name for name in R.OPTION_NAMES) == tuple(
    n[len("OPT_"):].lower() for n, v in sorted(
        ((k, v) for k, v in globals().items() if k.startswith("OPT_")), key=lambda kv: kv[1])), \
    "OPT_* slots must follow RuleOptions' field order"

# ---------------------------------------------------------------- the kernel's state of a game under way
# A game in the kernel (kernel.advance) is five arrays, so copying a game is copying them:
# ``deck`` int64[N_CARDS] (the circular queue), ``cards`` uint64[N_ROWS, MAX_TOWNS] (per town: hand and
# this round's records), ``log`` int64[2, LOG_SIZE] (this round's travel log: packed entries, and the
# card each entry moved, -1 for none), ``counts`` int64[N_COUNTS] and ``masks`` uint64[N_MASKS] below.

ROW_HANDS = 0
ROW_CENSUS = 1      # each town's hand revealed at this round's census (0 before)
ROW_DEALT = 2       # cards the hunter dealt each town this round
ROW_GAVE = 3        # cards each town gave this round (give, answer, swap)
ROW_RECEIVED = 4    # cards each town received this round (give, ask, swap)
N_ROWS = 5

# counts (int64)
C_TOP = 0            # queue slot of the deck's top card
C_N_DECK = 1         # cards in the deck
C_WOODS = 2          # the card hidden in the woods
C_HUNTER_WOODS = 3   # the woods card as the hunter knows it, -1 once he cannot know it
C_FAKE = 4           # 1 once the fake witch is in front of the hunter
C_FACES = 5          # bit t: tile t shows its curse
C_PICKS = 6          # cards picked so far
C_WINNER = 7         # rules.WINNER_* (WINNER_NONE while the game goes on)
C_WIN_TYPE = 8       # rules.WIN_*
C_ROUND = 9          # the round under way, from 1
C_ACTIVE = 10        # the spell cast this round, -1 none
C_CAST_TILE = 11     # the tile cast this round, -1 none
C_ANNOUNCED = 12     # the gathering town named at this census, -1 none
C_N_LOG = 13         # travel-log entries this round
C_N_REVEALS = 14     # this Hunt's picks revealed
C_REVEALS = 15       # 2 packed reveals (policies.reveal_entry) from here
C_AFTER = 17         # MAX_TOWNS hand sizes when this round's Travel ended (-1 before) from here
C_HAT = 22           # the town holding the witch's hat this round
C_POS = 23           # where the game stands: kernel.POS_*
C_LAP = 24           # Arrival or Travel under way (0 or 1: Growth and Nature play them twice)
C_STEP = 25          # the town dealt to (ritual Arrival), the Travel turn (0 .. towns-1), the pick (0, 1)
C_ACTOR = 26         # Travel: the town acting (the giver of Passage's more, the asker)
C_TARGET = 27        # Travel: the first give's target (Passage), the town asked
C_DOOM_TOWN = 28     # the town Doom named, -1 none
C_DOOM_PICKS = 29    # 1 when both picks come from C_DOOM_TOWN
C_PICK_TOWN = 30     # the town of the pick under way
C_PICK_CARD = 31     # the townsfolk picked, awaiting the hunter's choice of a town
C_ERR = 32           # the first illegal decision's code (kernel.checked), 0 none
C_SPELLS = 33        # N_SPELLS casts by spell id this game, from here
C_WOODS_KNOWN = 39   # MAX_TOWNS: the woods card each town knows (-1 none), from here
C_KIND = 44          # the decision pending at a halt (D_*), D_NONE once over
C_ME = 45            # its deciding town (-1: the hunter, the town side's census decisions)
C_ABOUT = 46         # its ``about`` (reference.Decision.about)
C_SWAP_SEEN = 47     # 1 when the hunter saw the last swap with the woods (not under Darkness)
C_DECISIONS = 48     # decisions carried out so far this game (a search's decision number)
C_ACTION = 49        # the policy's action asked with ``ASK_FIRST``
C_HUNTER_WOODS_TRAVEL = 50   # C_HUNTER_WOODS when this round's Travel began
C_HOLDER_TRAVEL = 51 # the town knowing the woods card when Travel began, if the hunter saw it swap; else -1
N_COUNTS = 52

# masks (uint64)
M_CAPTURED = 0       # true witches in front of the hunter
M_RITUALS = 1        # rituals in front of the hunter
M_KNOWN_SLOTS = 2    # queue slots holding a witch the hunter saw go under
M_DRAWN = 3          # cards drawn under a ritual this round
M_REMAINING = 4      # drawn cards not dealt yet
M_LEGAL = 5          # the pending decision's legal set: 4 words from here
M_RNG_DECK = 9       # the cards' stream: 4 words from here
M_RNG_HUNTER = 13    # the hunter policy's stream
M_RNG_TOWN = 17      # the town policy's stream
N_MASKS = 21

#: ``kernel.advance``'s ``stop``: bit SIDE_* set = halt at that side's next decision.
STOP_NONE = 0
STOP_HUNTER = 1 << SIDE_HUNTER
STOP_TOWN = 1 << SIDE_TOWN
NO_ACTION = -1
#: ``kernel.advance``'s ``act`` asking the policy at the pending decision, storing its action in C_ACTION
#: and halting before carrying it out (a search's base choice).
ASK_FIRST = -2


def new_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh (deck, cards, log, counts, masks) arrays for one game (``policies.LOG_SIZE`` = MAX_TOWNS * N_CARDS)."""
    return (np.zeros(N_CARDS, np.int64), np.zeros((N_ROWS, MAX_TOWNS), np.uint64),
            np.zeros((2, MAX_TOWNS * N_CARDS), np.int64), np.zeros(N_COUNTS, np.int64), np.zeros(N_MASKS, np.uint64))
