"""Reference policies of Curses & Covens, per side: hunter ``random``, ``largest_hand``, ``tracker``;
town ``random``, ``coven``, ``bluff``. Each reads only the View it is given (``reference.View`` and its
subclasses hold no other hand and no deck order) and returns one legal action id:
``act(view, legal, rng) -> int``. The numba twins in ``policies.py`` copy these rules line by line, so
every order, tie-break and arithmetic step is written down here.

Conventions: "lowest" of a card set = its lowest code; ties between towns go to the lowest index;
``legal`` is ascending. Only the ``random`` policies draw from their stream (``j = rng.below(len(legal))``
at every decision asked, one legal action included). Floats are IEEE doubles evaluated in the order the
docstrings write them (left to right), so the kernel can reproduce every comparison exactly.
"""

from __future__ import annotations

from cursedsim.errors import UnknownPolicyError
from cursedsim.games.base import PolicySpec
from cursedsim.games.covens import policy_specs as P
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S
from cursedsim.games.covens import tables as TB
from cursedsim.games.covens.reference import bits, count

#: Belief classes of the tracker: true witches (wild included), the fake, rituals, townsfolk.
C_WITCH, C_FAKE, C_RITUAL, C_FOLK = 0, 1, 2, 3
N_CLASSES = 4
CLASS_OF_KIND = (C_WITCH, C_WITCH, C_FAKE, C_FOLK, C_RITUAL)   # by rules.KIND_*
#: Coven's spell preference: the first castable of these is cast.
SPELL_PREFERENCE = (R.DARKNESS, R.NATURE_SPELL, R.PASSAGE, R.DOOM, R.DESPAIR, R.GROWTH)


def lowest(mask: int) -> int:
    """The lowest code of a non-empty card set (-1 if empty)."""
    return (mask & -mask).bit_length() - 1 if mask else -1


def towns_of(legal) -> list[int]:
    """The towns of the A_TOWN actions in ``legal``."""
    return [a - S.A_TOWN for a in legal if S.A_TOWN <= a < S.A_SPELL]


class RandomPolicy:
    """``random`` (either side): ``legal[rng.below(len(legal))]`` at every decision."""

    label = "random"

    def act(self, view, legal, rng) -> int:
        return legal[rng.below(len(legal))]


# ---------------------------------------------------------------- hunter


class LargestHand:
    """Hunter ``largest_hand``. D_PICK / D_DOOM: the legal town with the most cards (view.hand_sizes;
    ties lowest). D_TOWNSFOLK: the legal town with the fewest cards (ties lowest). D_DEAL: the
    lowest-code card left (``legal[0]``, never A_NO). D_SHUFFLE: A_NO."""

    label = "largest_hand"

    def act(self, view, legal, rng) -> int:
        if view.decision in (S.D_PICK, S.D_DOOM):
            towns = towns_of(legal)
            return S.A_TOWN + max(towns, key=lambda u: (view.hand_sizes[u], -u))
        if view.decision == S.D_TOWNSFOLK:
            towns = towns_of(legal)
            return S.A_TOWN + min(towns, key=lambda u: (view.hand_sizes[u], u))
        if view.decision == S.D_DEAL:
            return legal[0]
        return S.A_NO


def card_classes(mask: int) -> list[float]:
    """Counts per belief class of a known card set, as floats."""
    counts = [0.0] * N_CLASSES
    for c in bits(mask):
        counts[CLASS_OF_KIND[int(TB.CARD_KIND[c])]] += 1.0
    return counts


def belief(view) -> list[list[float]]:
    """The tracker's expected counts [W, F, R, S] per location: towns 0..T-1, then the woods (index T).

    1. Town t: the classes of ``census[t] | dealt[t]`` (exact); its size N_t = popcount of that set.
    2. Pool = cards_in_game minus every census hand, every dealt set, deal_left, the captured witches,
       the fake if held, ritual_cards. Woods[k] = pool_k / n_pool (0.0 when the pool is empty).
    3. Travel: under Darkness, once Travel ended (``sizes_after_travel[0] >= 0``): total_k = sum over
       towns 0..T-1 then the woods of counts[.][k]; D = sum(sizes_after_travel) + 1; town t gets
       total_k * sat_t / D, the woods total_k / D. Otherwise the travel log in order: a give (a, GIVE,
       b, 1) moves from a to b, an ask (a, ASK, u, 1) from u to a, (moved 0 and passes: nothing); a move
       src -> dst: n = N_src; for k: m = c[src][k] / n; c[src][k] = c[src][k] - m; c[dst][k] =
       c[dst][k] + m; then N_src -= 1, N_dst += 1. A swap (a, SWAP): n = N_a; for k: m = c[a][k] / n;
       c[a][k] = c[a][k] - m + c[woods][k] (left to right); c[woods][k] = m.
    4. The Hunt's reveals in order (src, card, target): c[src][class] = max(0.0, c[src][class] - 1.0);
       a true witch or the fake empties the hand: c[src][k] = 0.0 for all k; a townsfolk with a target:
       c[target][FOLK] += 1.0.
    """
    towns = view.towns
    counts = [card_classes(view.census[t] | view.dealt[t]) for t in range(towns)]
    sizes = [count(view.census[t] | view.dealt[t]) for t in range(towns)]
    pool = view.cards_in_game
    for t in range(towns):
        pool &= ~(view.census[t] | view.dealt[t])
    pool &= ~(view.deal_left | view.captured | view.ritual_cards | (TB.FAKE_BIT if view.fake_held else 0))
    n_pool = count(pool)
    pool_counts = card_classes(pool)
    counts.append([pool_counts[k] / n_pool if n_pool > 0 else 0.0 for k in range(N_CLASSES)])
    woods = towns
    if view.active_spell == R.DARKNESS and view.sizes_after_travel[0] >= 0:
        spread = sum(view.sizes_after_travel) + 1
        for k in range(N_CLASSES):
            total = 0.0
            for loc in range(towns + 1):
                total = total + counts[loc][k]
            for t in range(towns):
                counts[t][k] = total * view.sizes_after_travel[t] / spread
            counts[woods][k] = total / spread
    else:
        for actor, kind, target, moved in view.travel_log:
            if kind == S.LOG_GIVE or (kind == S.LOG_ASK and moved):
                src, dst = (actor, target) if kind == S.LOG_GIVE else (target, actor)
                n = sizes[src]
                for k in range(N_CLASSES):
                    m = counts[src][k] / n
                    counts[src][k] = counts[src][k] - m
                    counts[dst][k] = counts[dst][k] + m
                sizes[src] -= 1
                sizes[dst] += 1
            elif kind == S.LOG_SWAP:
                n = sizes[actor]
                for k in range(N_CLASSES):
                    m = counts[actor][k] / n
                    counts[actor][k] = counts[actor][k] - m + counts[woods][k]
                    counts[woods][k] = m
    for src, card, target in view.hunt:
        kind = int(TB.CARD_KIND[card])
        cls = CLASS_OF_KIND[kind]
        counts[src][cls] = max(0.0, counts[src][cls] - 1.0)
        if kind in (R.KIND_WITCH, R.KIND_WILD, R.KIND_FAKE):
            counts[src] = [0.0] * N_CLASSES
        elif kind == R.KIND_FOLK and target >= 0:
            counts[target][C_FOLK] += 1.0
    return counts


def coven_threat(hand: int) -> float:
    """1.0 when a census hand holds 2 cards of one suit's coven (its witches and the wild), else 0.0."""
    return 1.0 if any(count(hand & (int(TB.SUIT_MASK[s]) | TB.WILD_BIT)) >= 2 for s in range(R.N_SUITS)) else 0.0


class Tracker:
    """Hunter ``tracker`` (ritual_fear, fake_fear, trust, shuffle).

    Score of town u from ``belief(view)``: with N = hand_sizes[u], C = popcount(captured), K =
    rituals_held: base = ((W - fake_fear * C * F) - ritual_fear * (1 + K) * R) / N (products left to
    right), 0.0 when N == 0; score = base + trust * (1.0 if u == announced else 0.0) + threat * (1.0 if
    census[u] holds 2 cards of one suit's coven, its 3 witches and the wild, else 0.0): a town one card
    from a coven is worth a pick, since a witch taken from it discards the rest of its hand.
    D_PICK / D_DOOM: the legal town with the highest score (ties lowest). D_TOWNSFOLK: the lowest score
    (ties lowest). D_DEAL for town t (view.about): towns t..T-1 ranked by score descending (ties lowest
    index): i = number of towns v > t with score_v > score_t; the cards of deal_left ranked by
    tables.CARD_VALUE descending, ties lowest code: the i-th card if i < their number, else A_NO.
    D_SHUFFLE: A_YES when shuffle >= 0.5 and one of the first min(T, deck) entries of deck_known is a true
    witch (code 0..9), else A_NO.
    """

    label = "tracker"

    def __init__(self, ritual_fear: float = 1.0, fake_fear: float = 0.5, trust: float = 0.0,
                 shuffle: float = 1.0, threat: float = 1.0):
        self.ritual_fear, self.fake_fear, self.trust, self.shuffle = ritual_fear, fake_fear, trust, shuffle
        self.threat = threat

    def scores(self, view) -> list[float]:
        counts = belief(view)
        captured = float(count(view.captured))
        held = float(view.rituals_held)
        out = []
        for u in range(view.towns):
            n = view.hand_sizes[u]
            w, f, r = counts[u][C_WITCH], counts[u][C_FAKE], counts[u][C_RITUAL]
            base = ((w - self.fake_fear * captured * f) - self.ritual_fear * (1.0 + held) * r) / n if n else 0.0
            out.append(base + self.trust * (1.0 if u == view.announced else 0.0)
                       + self.threat * coven_threat(view.census[u]))
        return out

    def act(self, view, legal, rng) -> int:
        if view.decision == S.D_SHUFFLE:
            top = view.deck_known[:min(view.towns, view.deck_size)]
            known_witch = any(0 <= c < R.N_TRUE_WITCHES for c in top)
            return S.A_YES if self.shuffle >= 0.5 and known_witch else S.A_NO
        score = self.scores(view)
        if view.decision in (S.D_PICK, S.D_DOOM):
            best = -1
            for u in towns_of(legal):
                if best < 0 or score[u] > score[best]:
                    best = u
            return S.A_TOWN + best
        if view.decision == S.D_TOWNSFOLK:
            best = -1
            for u in towns_of(legal):
                if best < 0 or score[u] < score[best]:
                    best = u
            return S.A_TOWN + best
        if view.decision == S.D_DEAL:
            t = view.about
            rank = sum(1 for v in range(t + 1, view.towns) if score[v] > score[t])
            cards = sorted(bits(view.deal_left), key=lambda c: (-int(TB.CARD_VALUE[c]), c))
            return S.A_CARD + cards[rank] if rank < len(cards) else S.A_NO
        return legal[0]


# ---------------------------------------------------------------- town


def suit_cards(suit: int) -> int:
    """The cards of a coven of ``suit``: its three witches and the wild (an "s-card")."""
    return int(TB.SUIT_MASK[suit]) | TB.WILD_BIT


def plan(view) -> tuple[int, int]:
    """Coven's plan (gatherer g, suit s) from the census hands: the (town, suit) with the most s-cards
    (popcount(census[t] & SUIT_MASK[s]) + the wild) in one hand; scan t ascending, s ascending, keep
    the first maximum."""
    best, g, s = -1, 0, 0
    for t in range(view.towns):
        for suit in range(R.N_SUITS):
            n = count(view.census[t] & suit_cards(suit))
            if n > best:
                best, g, s = n, t, suit
    return g, s


class Coven:
    """Town ``coven`` (risk, feed, cast): every town follows ``plan(view)`` = (g, s), an "s-card" being
    a witch of suit s or the wild.

    D_SPELL: cast >= 0.5: the first spell of SPELL_PREFERENCE (darkness, nature, passage, doom, despair,
    growth) whose tile (view.up_spells, tiles ascending) is legal to cast; else A_NO.
    D_ANNOUNCE: A_TOWN + g (``announce``). D_HAT: the town != g with the most s-cards at the census (ties
    lowest); if that count is 0, (g + 1) % T.
    D_TRAVEL for town a = view.me, hand H, n = popcount(H), in order:
      1. a != g, H holds an s-card, n >= 2: give the lowest s-card to g.
      2. a == g: u = the town != g with the most s-cards at the census (count >= 1, ties lowest); if
         hand_sizes[u] >= 2: ask u.
      3. n >= 1, (true witches in H) / n >= risk, H holds a true witch that is not an s-card, and not
         (woods_known >= 0 and woods_known is a true witch): swap the lowest such witch.
      4. feed >= 0.5, a != g, H holds a ritual, n >= 2: give the lowest ritual to g.
      5. n >= 2: give the lowest townsfolk (else the lowest non-true-witch, else the lowest card) to the
         town v != a with the fewest cards (ties lowest).
      6. ask g (a == g: (a + 1) % T) if legal, else legal[0].
    D_ANSWER (asker = view.about): asker == g and H holds an s-card: the lowest s-card; else the first
    non-empty class of townsfolk, ritual, fake, true witch not an s-card, s-card: its lowest card.
    D_MORE: H holds an s-card and giving the lowest one to g is legal: that; else A_NO.
    """

    label = "coven"

    def __init__(self, risk: float = 0.5, feed: float = 1.0, cast: float = 1.0):
        self.risk, self.feed, self.cast = risk, feed, cast

    def announce(self, view, g: int, s: int) -> int:
        return S.A_TOWN + g

    def act(self, view, legal, rng) -> int:
        g, s = plan(view)
        kind = view.decision
        if kind == S.D_SPELL:
            return self.spell(view, legal)
        if kind == S.D_ANNOUNCE:
            return self.announce(view, g, s)
        if kind == S.D_HAT:
            u = self.best_feeder(view, g, s)
            return S.A_TOWN + (u if u >= 0 else (g + 1) % view.towns)
        if kind == S.D_TRAVEL:
            return self.travel(view, legal, g, s)
        if kind == S.D_ANSWER:
            return S.A_CARD + self.answer(view, g, s)
        if kind == S.D_MORE:
            more = view.hand & suit_cards(s)
            if more and S.give(lowest(more), g) in legal:
                return S.give(lowest(more), g)
            return S.A_NO
        return legal[0]

    def spell(self, view, legal) -> int:
        if self.cast < 0.5:
            return S.A_NO
        for spell in SPELL_PREFERENCE:
            for tile in range(R.N_TILES):
                if view.up_spells[tile] == spell and S.A_SPELL + tile in legal:
                    return S.A_SPELL + tile
        return S.A_NO

    @staticmethod
    def best_feeder(view, g: int, s: int) -> int:
        """The town != g with the most s-cards at the census (ties lowest); -1 if none holds one."""
        best, town = 0, -1
        for u in range(view.towns):
            n = count(view.census[u] & suit_cards(s))
            if u != g and n > best:
                best, town = n, u
        return town

    def travel(self, view, legal, g: int, s: int) -> int:
        a, hand = view.me, view.hand
        n = count(hand)
        mine = hand & suit_cards(s)
        if a != g and mine and n >= 2:
            return S.give(lowest(mine), g)
        if a == g:
            u = self.best_feeder(view, g, s)
            if u >= 0 and view.hand_sizes[u] >= 2:
                return S.A_ASK + u
        off = hand & TB.TRUE_WITCH_MASK & ~suit_cards(s)
        woods_witch = 0 <= view.woods_known < R.N_TRUE_WITCHES
        if n >= 1 and off and count(hand & TB.TRUE_WITCH_MASK) / n >= self.risk and not woods_witch:
            return S.A_SWAP + lowest(off)
        rituals = hand & TB.RITUAL_MASK
        if self.feed >= 0.5 and a != g and rituals and n >= 2:
            return S.give(lowest(rituals), g)
        if n >= 2:
            card = lowest(hand & TB.FOLK_MASK)
            if card < 0:
                card = lowest(hand & ~TB.TRUE_WITCH_MASK)
            if card < 0:
                card = lowest(hand)
            target = min((v for v in range(view.towns) if v != a), key=lambda v: (view.hand_sizes[v], v))
            return S.give(card, target)
        target = g if a != g else (a + 1) % view.towns
        return S.A_ASK + target if S.A_ASK + target in legal else legal[0]

    @staticmethod
    def answer(view, g: int, s: int) -> int:
        hand = view.hand
        mine = hand & suit_cards(s)
        if view.about == g and mine:
            return lowest(mine)
        for group in (TB.FOLK_MASK, TB.RITUAL_MASK, TB.FAKE_BIT, TB.TRUE_WITCH_MASK & ~suit_cards(s), mine):
            if hand & group:
                return lowest(hand & group)
        return lowest(hand)


class Bluff(Coven):
    """Town ``bluff``: ``coven`` in every decision but the talk: it announces a decoy, the town != g
    with the fewest true witches (codes 0..9) at the census (ties lowest)."""

    label = "bluff"

    def announce(self, view, g: int, s: int) -> int:
        decoy = min((u for u in range(view.towns) if u != g),
                    key=lambda u: (count(view.census[u] & TB.TRUE_WITCH_MASK), u))
        return S.A_TOWN + decoy


class RolloutPolicy:
    """The ``rollout`` search of ``side`` on the reference engine: each decision is ``rollout.decide`` on the
    kernel's state of the same game, laid out by replaying the table's decisions so far on the kernel
    (``act_on_table``: the engine passes the table, since the layout needs the whole game, not a view),
    so reference and kernel play the same games. ``other``: the other side's policy of the run in the
    playouts, (policy id, parameter vector); its base policy if it searches too (``reference_twins`` sets it;
    the other side's best heuristic by default)."""

    label = "rollout"

    def __init__(self, side: str, n: float = 16.0, base: float = 0.0, cap: float = 16.0, infer: float | None = None):
        from cursedsim.games.covens import rollout
        self.side = side
        self.rollout = rollout
        values = [n, base, cap] + ([] if infer is None else [infer])
        self.n, self.base, self.base_params, self.cap, self.infer = rollout.settings(side, values)
        self.work = rollout.new_workspace()
        # the other side's policy in the playouts: its best heuristic (its default) unless the run sets it
        other = "town" if side == "hunter" else "hunter"
        spec = P.POLICIES[other][{"hunter": "tracker", "town": "coven"}[other]]
        self.other = (spec.policy_id, spec.param_vector())

    def act(self, view, legal, rng) -> int:
        raise RuntimeError("rollout needs the table (reference.play_game passes it to act_on_table)")

    def act_on_table(self, table, legal, rng) -> int:
        import numpy as np
        from cursedsim.games.covens import kernel
        from cursedsim.games.covens import policies as pol
        seed, index = table.origin
        if seed is None:
            raise ValueError("rollout plays dealt games only (Table.deal): its streams are keyed by (seed, game)")
        opts = tuple(np.int64(v) for v in S.option_tuple(table.options))
        towns = np.int64(table.towns)
        arrays = S.new_arrays()
        kernel.start_game(*arrays, np.uint64(seed), np.int64(index), towns, opts)
        both = np.int64(S.STOP_HUNTER | S.STOP_TOWN)
        no_params = pol.params_tuple([])
        act = np.int64(-1)
        for action in [*table._history, None]:
            kernel.advance(*arrays, towns, opts, np.int64(0), no_params, np.int64(0), no_params, both, act)
            act = np.int64(-1 if action is None else action)
        counts, masks = arrays[3], arrays[4]
        side, town, kind = table.to_move()
        if (int(counts[S.C_KIND]), int(counts[S.C_ME])) != (kind, town if kind in (S.D_TRAVEL, S.D_MORE, S.D_ANSWER)
                                                           else -1):
            raise RuntimeError("rollout: the kernel's replay of the game stands elsewhere than the table")
        stream = S.M_RNG_HUNTER if side == S.SIDE_HUNTER else S.M_RNG_TOWN
        masks[stream:stream + 4] = rng.s
        other_id, other_params = self.other
        action = self.rollout.decide(*arrays, towns, opts, np.int64(side), np.int64(self.base), self.base_params,
                                     np.int64(other_id), pol.params_tuple(other_params), np.int64(self.n),
                                     np.int64(self.cap), np.bool_(self.infer), np.uint64(seed), np.int64(index), np.bool_(False), self.work)
        rng.s = [int(w) for w in masks[stream:stream + 4]]
        return int(action)


def _rollout(side: str):
    return lambda **params: RolloutPolicy(side, **params)


_FACTORIES = {
    "hunter": {"random": RandomPolicy, "largest_hand": LargestHand, "tracker": Tracker, "rollout": _rollout("hunter")},
    "town": {"random": RandomPolicy, "coven": Coven, "bluff": Bluff, "rollout": _rollout("town")},
}


def make(side: str, spec_or_name: str | PolicySpec, params=None):
    """The reference policy of ``side`` named by ``spec_or_name`` with the parameter vector ``params``
    (the spec's defaults when None)."""
    if side not in P.POLICIES:
        raise UnknownPolicyError(f"unknown side {side!r}; valid sides: {', '.join(P.POLICIES)}")
    specs = P.POLICIES[side]
    name = spec_or_name.name if isinstance(spec_or_name, PolicySpec) else spec_or_name
    if name not in _FACTORIES[side]:
        raise UnknownPolicyError(f"unknown {side} policy {name!r}; valid policies: {', '.join(specs)}")
    spec = specs[name]
    values = spec.param_vector() if params is None else params
    if len(values) != len(spec.params):
        raise UnknownPolicyError(f"{side} policy {name!r} takes {len(spec.params)} parameters "
                                 f"({', '.join(spec.params) or 'none'}), got {len(values)}")
    return _FACTORIES[side][name](**{key: float(v) for key, v in zip(spec.params, values)})
