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
