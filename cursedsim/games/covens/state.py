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
