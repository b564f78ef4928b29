"""Reference policies of Cursed Gifts: ``random``, ``leader``, ``weakest_link``, ``spread``,
``defensive``. Each reads only the View it is given and returns one legal action id:
``act(view, legal, rng) -> int``. The kernel to come copies these rules, so every order and tie-break is
written down here.

Conventions: ``legal`` is ascending; "clockwise order" from seat s is s+1, s+2, ... (mod players); ties
between seats go to the first in clockwise order from the deciding seat; ties between cards to the lowest
copy id. Only ``random`` draws from its stream (``legal[rng.below(len(legal))]`` at every decision).
"""

from __future__ import annotations

from cursedsim.errors import UnknownPolicyError
from cursedsim.games.base import PolicySpec
from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import policy_specs as P
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts import state as S


class RandomPolicy:
    """``random``: ``legal[rng.below(len(legal))]`` at every decision."""

    label = "random"

    def act(self, view, legal, rng) -> int:
        return legal[rng.below(len(legal))]


def clockwise_rank(view, seat: int) -> int:
    """0 for the seat after the decider, 1 for the next, ..."""
    return (seat - view.seat - 1) % len(view.alive)


def plays(legal, view, effects) -> list[int]:
    """The cards of the A_PLAY actions in ``legal`` whose effect is in ``effects``."""
    return [a - S.A_PLAY for a in legal if S.A_PLAY <= a < S.A_SEAT and view.cards.effect[a - S.A_PLAY] in effects]


def biggest(cards, view) -> int:
    """The card of largest absolute value (ties: lowest id)."""
    return min(cards, key=lambda c: (-abs(view.cards.value[c]), c))


def take_rank(cards, c: int) -> tuple[int, int, int]:
    """The preference of a card Mugging may take (``mugging_take="chosen"``), lower first: a RIPOSTE
    card, then an antidote, then a Cursed Gift, then any other card, then a Useless Gift; within a class
    the largest |value|, then the lowest copy id."""
    if cards.flags[c] & E.RIPOSTE:
        rank = 0
    elif cards.type[c] == E.ANTIDOTE:
        rank = 1
    elif cards.type[c] == E.GIFT:
        rank = 2
    elif cards.type[c] == E.USELESS:
        rank = 4
    else:
        rank = 3
    return rank, -abs(cards.value[c]), c


class Targeting:
    """``leader``, ``weakest_link``, ``spread`` and ``defensive``: one decision rule, a target rule apart.

    Target score of a seat (lower is better, then clockwise order): leader/defensive ``-gauge_total``;
    weakest_link ``(hand_size, -gauge_total)``; spread ``gauge_total``.

    D_MAIN: the *heal step* (when own gauge total >= heal_at: the legal antidote of largest |value|, else a
    legal Emergency Ifren) and the *attack step* (in this order: the legal gift of largest value; the
    bonus A_BONUS; the legal raise Trick of largest value (target and gift chosen as below); Mugging when
    the hand holds a Useless Gift to pay with; Day of mourning), the heal step
    first when heal_first >= 0.5, else the attack step first; A_END when neither applies.
    D_TARGET: the best legal seat by the target score. D_GIFT: the target's entry of largest value (ties
    lowest key). D_DISCARD: the lowest Useless Gift, else the lowest card that is neither an antidote nor
    a RIPOSTE, else the lowest card. D_ANTIDOTE: A_PASS if legal, else the legal antidote of largest
    |value|. D_HEAL and D_REMOVE: the legal entry of largest value (ties lowest key). D_TAKE (Mugging
    with ``mugging_take="chosen"``): the victim's card first by ``take_rank`` (a RIPOSTE card, an
    antidote, a gift, another card, a Useless Gift; then largest |value|, lowest id).
    D_RESPOND: when the card answered is a Defense (a riposte chain): the lowest legal riposte. Else, when
    own total + the value it adds >= 10 (it would eliminate): A_CACARMA if legal, else the lowest legal
    riposte; when that value >= riposte_min: A_CACARMA if legal, else the lowest legal riposte if the hand
    holds more than ``keep`` RIPOSTE cards, else A_PASS; otherwise A_PASS.
    """

    def __init__(self, rule: str, heal_at: float, riposte_min: float, heal_first: float, keep: float):
        self.label, self.rule = rule, rule
        self.heal_at, self.riposte_min, self.heal_first, self.keep = heal_at, riposte_min, heal_first >= 0.5, keep

    def score(self, view, seat: int):
        total = view.gauge_totals[seat]
        if self.rule == "weakest_link":
            key = (view.hand_sizes[seat], -total)
        elif self.rule == "spread":
            key = (total,)
        else:
            key = (-total,)
        return key + (clockwise_rank(view, seat),)

    def act(self, view, legal, rng) -> int:
        kind = view.decision
        if kind == S.D_MAIN:
            return self.main(view, legal)
        if kind == S.D_TARGET:
            return min(legal, key=lambda a: self.score(view, a - S.A_SEAT))
        if kind in (S.D_GIFT, S.D_HEAL, S.D_REMOVE):
            seat = view.target if kind == S.D_GIFT else view.seat
            values = {key: value for key, value, _, _ in view.gauges[seat]}
            return min(legal, key=lambda a: (-values[a - S.A_PICK], a))
        if kind == S.D_DISCARD:
            return self.discard(view, legal)
        if kind == S.D_ANTIDOTE:
            return S.A_PASS if S.A_PASS in legal else S.A_PLAY + biggest([a - S.A_PLAY for a in legal], view)
        if kind == S.D_RESPOND:
            return self.respond(view, legal)
        if kind == S.D_TAKE:
            return S.A_PICK + min((a - S.A_PICK for a in legal), key=lambda c: take_rank(view.cards, c))
        return legal[0]

    def main(self, view, legal) -> int:
        steps = (self.heal, self.attack) if self.heal_first else (self.attack, self.heal)
        for step in steps:
            action = step(view, legal)
            if action is not None:
                return action
        return S.A_END

    def heal(self, view, legal):
        if view.gauge_totals[view.seat] < self.heal_at:
            return None
        antidotes = plays(legal, view, (E.E_ANTIDOTE,))
        if antidotes:
            return S.A_PLAY + biggest(antidotes, view)
        ifren = plays(legal, view, (E.E_REMOVE_GIFT,))
        return S.A_PLAY + ifren[0] if ifren else None

    def attack(self, view, legal):
        gifts = plays(legal, view, (E.E_GIFT, E.E_GOLDEN_GIFT))
        if gifts:
            return S.A_PLAY + biggest(gifts, view)
        if S.A_BONUS in legal:
            return S.A_BONUS
        raises = plays(legal, view, (E.E_RAISE_GIFT,))
        if raises:
            return S.A_PLAY + biggest(raises, view)
        muggings = plays(legal, view, (E.E_MUGGING,))
        if muggings and any(view.cards.type[c] == E.USELESS for c in view.hand):
            return S.A_PLAY + muggings[0]
        mourning = plays(legal, view, (E.E_DAY_OF_MOURNING,))
        return S.A_PLAY + mourning[0] if mourning else None

    @staticmethod
    def discard(view, legal) -> int:
        cards = [a - S.A_PICK for a in legal]
        useless = [c for c in cards if view.cards.type[c] == E.USELESS]
        if useless:
            return S.A_PICK + useless[0]
        plain = [c for c in cards if view.cards.type[c] != E.ANTIDOTE and not view.cards.flags[c] & E.RIPOSTE]
        return S.A_PICK + (plain[0] if plain else cards[0])

    def respond(self, view, legal) -> int:
        card, _, _, adds = view.pending
        ripostes = [a for a in legal if a < S.A_SEAT]
        if card >= 0 and view.cards.type[card] == E.DEFENSE:
            return ripostes[0] if ripostes else S.A_PASS
        lethal = view.gauge_totals[view.seat] + adds >= R.GAUGE_LIMIT
        if not lethal and adds < self.riposte_min:
            return S.A_PASS
        if S.A_CACARMA in legal:
            return S.A_CACARMA
        held = sum(1 for c in view.hand if view.cards.flags[c] & E.RIPOSTE)
        if ripostes and (lethal or held > self.keep):
            return ripostes[0]
        return S.A_PASS


def make(spec_or_name: str | PolicySpec, params=None):
    """The reference policy named by ``spec_or_name`` with the parameter vector ``params`` (the spec's
    defaults when None)."""
    name = spec_or_name.name if isinstance(spec_or_name, PolicySpec) else spec_or_name
    if name in P.SEARCH_POLICIES:
        raise UnknownPolicyError(f"gifts policy {name!r} plays in the kernel only (rollout.py): its games "
                                 "cannot be replayed on the reference engine yet")
    if name not in P.POLICIES:
        raise UnknownPolicyError(f"unknown gifts policy {name!r}; valid policies: {', '.join(P.POLICIES)}")
    spec = P.POLICIES[name]
    values = spec.param_vector() if params is None else params
    if len(values) != len(spec.params):
        raise UnknownPolicyError(f"gifts policy {name!r} takes {len(spec.params)} parameters "
                                 f"({', '.join(spec.params) or 'none'}), got {len(values)}")
    if name == "random":
        return RandomPolicy()
    return Targeting(name, **{key: float(v) for key, v in zip(spec.params, values)})
