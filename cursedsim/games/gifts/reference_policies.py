"""Reference policies of Cursed Gifts: ``random``, ``leader``, ``weakest_link``, ``spread``,
``defensive``. Each reads only the View it is given and returns one legal action id:
``act(view, legal, rng) -> int``. The kernel to come copies these rules, so every order and tie-break is
written down here.

Conventions: ``legal`` is ascending; "clockwise order" from seat s is s+1, s+2, ... (mod players); ties
between seats go to the first in clockwise order from the deciding seat; ties between cards to the lowest
copy id. Only ``random`` draws from its stream (``legal[rng.below(len(legal))]`` at every decision).
"""

from __future__ import annotations

import numpy as np

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
        return RolloutPolicy(spec_or_name.param_vector() if params is None and isinstance(spec_or_name, PolicySpec)
                             else P.SEARCH_POLICIES[name].param_vector() if params is None else params)
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


def kernel_policy(policy) -> tuple[int, np.ndarray]:
    """(kernel policy id, parameter vector) of a reference policy: the seat's policy in a rollout's playouts
    (a rollout seat: its base)."""
    if isinstance(policy, RolloutPolicy):
        return policy.base, policy.base_params
    if isinstance(policy, RandomPolicy):
        return P.RANDOM, np.zeros(4)
    if isinstance(policy, Targeting):
        return P.POLICIES[policy.rule].policy_id, np.array(
            [policy.heal_at, policy.riposte_min, float(policy.heal_first), policy.keep], np.float64)
    raise UnknownPolicyError(f"rollout plays against built-in gifts policies only, got {policy!r}")


class RolloutPolicy:
    """The ``rollout`` search on the reference engine: each searched decision (a main decision, the first
    answer to a card played on the seat) is ``rollout.decide`` on the kernel state laid out from the table,
    so reference and kernel play the same games; the D_TARGET of a searched main decision is the search's;
    every other decision is the base policy's twin. The search's streams are keyed by the game
    (``table.origin``) and the number of searched decisions in it (``table.rollout_decisions``)."""

    label = "rollout"

    def __init__(self, params):
        # the compiled modules are loaded with the first search, not with the reference engine
        from cursedsim.games.gifts import kernel, policies, rollout
        self.kernel, self.policies, self.rollout = kernel, policies, rollout
        self.n, self.base, self.base_params, self.cap = rollout.settings(params)
        spec = next(s for s in P.POLICIES.values() if s.policy_id == self.base)
        self.base_policy = make(spec, spec.param_vector())
        self.work = rollout.new_workspace()
        self.card_arrays = {}

    def act(self, view, legal, rng) -> int:
        raise UnknownPolicyError("rollout needs the whole table (reference.play_game asks act_table)")

    def searched(self, table, seat: int, kind: int) -> bool:
        """Whether the kernel halts here: a main decision, or the first answer of a window (not a riposte
        chain's later one: the card answered is then a riposte)."""
        if kind == S.D_MAIN:
            return True
        card = table.pending[0]
        return kind == S.D_RESPOND and not (card >= 0 and table.ct.flags[card] & E.RIPOSTE)

    def act_table(self, table, seat: int, policies, streams) -> int:
        kind = table.to_move()[1]
        forced = getattr(table, "rollout_target", None)
        if kind == S.D_TARGET and forced is not None:
            table.rollout_target = None
            return S.A_SEAT + forced
        if not self.searched(table, seat, kind):
            return self.base_policy.act(table.observe(seat), table.legal_actions(), streams[seat])
        K = self.kernel
        G = self.layout(table, seat, policies, streams, K.PH_MAIN if kind == S.D_MAIN else K.PH_RESPOND)
        seed, index = table.origin
        decision = getattr(table, "rollout_decisions", 0)
        table.rollout_decisions = decision + 1
        _, action, target = self.rollout.decide(G, np.int64(self.n), np.int64(self.cap), np.uint64(seed),
                                                np.int64(index), np.int64(decision), np.bool_(False), self.work)
        streams[seat].s = [int(w) for w in G[2][S.B_STREAM + S.STREAM_POLICY + seat]]
        table.rollout_target = int(target) if kind == S.D_MAIN and target >= 0 else None
        return int(action)

    def layout(self, table, seat: int, policies, streams, phase: int):
        """The kernel's arrays ``G`` of the table at this decision (kernel.py, state.py)."""
        K, pol = self.kernel, self.policies
        if table.deck.label not in self.card_arrays:
            arr = table.deck.arrays()
            self.card_arrays[table.deck.label] = (K.card_data(arr), K.card_masks(arr))
        cd, masks = self.card_arrays[table.deck.label]
        st = np.zeros(S.N_ST, np.int64)
        bits = np.zeros((S.N_BROWS, S.W), np.uint64)
        params = np.zeros((R.MAX_PLAYERS, pol.N_PARAMS), np.float64)
        opts = K.option_array(table.options)
        st[K.OPT:K.OPT + opts.size] = opts
        bits[S.B_MASK:S.B_MASK + S.N_MASKS] = masks
        card, _, target, adds = table.pending
        st[S.ST_PLAYED], st[S.ST_GIFT_GIVEN] = table.played, table.gift_given
        st[S.ST_NPILE], st[S.ST_NDISC] = len(table.pile), len(table.discard)
        st[S.ST_WINNER] = -1
        st[S.ST_RIPOSTES], st[S.ST_CACARMAS], st[S.ST_BONUS] = table.ripostes, table.cacarmas, table.bonus_gifts
        st[S.ST_COUNTS:S.ST_COUNTS + len(table.counts)] = table.counts
        st[S.ST_NELIM], st[S.ST_ELIM] = len(table.eliminated), R.encode_elimination_order(table.eliminated)
        st[S.ST_TURN], st[S.ST_PLAYERS] = table.turn, table.players
        st[S.ST_TARGET], st[S.ST_PCARD], st[S.ST_PADDS] = table.target, card, adds
        st[S.ST_PHASE], st[S.ST_SEAT], st[S.ST_FTARGET] = phase, table.current, -1
        st[S.ST_SKEY] = -1
        if phase == K.PH_RESPOND:   # the card step awaiting the answer, its own datum the decision just taken
            effect = table.ct.effect[card]
            if effect == E.E_RAISE_GIFT:
                st[S.ST_STEP], st[S.ST_SKEY] = K.STEP_RAISE, table._history[-1] - S.A_PICK
            elif effect == E.E_MUGGING:
                st[S.ST_STEP], st[S.ST_SKEY] = K.STEP_MUGGING, table._history[-1] - S.A_PICK
            elif table.ct.flags[card] & E.INEVITABLE and table.options.cacarma_vs_inevitable:
                st[S.ST_STEP] = K.STEP_GIFT_INEVITABLE
            else:
                st[S.ST_STEP] = K.STEP_GIFT
            st[S.ST_SCARD] = card
        st[S.ST_ESEAT:S.ST_ESEAT + table.deck.size] = -1
        st[S.ST_PILE:S.ST_PILE + len(table.pile)] = table.pile
        st[S.ST_DISC:S.ST_DISC + len(table.discard)] = table.discard
        for s in range(table.players):
            st[S.ST_HANDN + s] = len(table.hands[s])
            st[S.ST_GTOTAL + s] = table.gauge_total(s)
            st[S.ST_ALIVE + s] = table.alive[s]
            st[S.ST_PID + s], params[s] = kernel_policy(policies[s])
            for c in table.hands[s]:
                bits[S.B_HAND + s, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
            for e in table.gauges[s]:
                key = e.key
                bits[S.B_GAUGE + s, key >> 6] |= np.uint64(1) << np.uint64(key & 63)
                st[S.ST_ESEAT + key], st[S.ST_EVALUE + key] = s, e.value(table.ct)
                cards = e.all_cards()
                st[S.ST_ELEN + key] = len(cards)
                st[S.ST_ECARDS + key * S.MAX_ENTRY_CARDS:][:len(cards)] = cards
            bits[S.B_STREAM + S.STREAM_POLICY + s] = streams[s].s
        bits[S.B_STREAM + S.STREAM_DECK] = table.deck_rng.s
        return cd, st, bits, params
