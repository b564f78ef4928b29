"""So, You've Been Cursed. stepped one decision at a time (``cursedsim.step``) on the reference engine
(``reference.py``, its players' turns in ``wizard_player.py`` / ``monster_player.py``).

How it steps and copies: the engine plays whole turns (``Table.step``) on a greenlet that hands out each
decision of an agent side (``step/driven.py``). At the start of every turn the state keeps a copy of the
table (``TurnStart``) and empties its ``history``, which then holds only what was done since (actions,
built-in policies, determinisations). ``clone()`` copies that table once more and replays the turn so far
on it: O(state + the turn under way), whatever the game's length (issue 27 point 3; it replayed the whole
game before). The choices made in the finished turns (part of ``information``) are a chain the copies
share. ``log=True`` steps the same way (its copies copy the events too).

Agents: the two sides, always numbered by side: agent 0 is the ``wizard``, agent 1 the ``monster``
(``STEP.agents`` and ``agent_sides`` are ``("wizard", "monster")``, ``side_of(agent)`` names it). Only
the sides that are *players* and not ``fixed`` ever act (``acting_agents()``); the mode follows from the
pairing, as in the runner: ``fixed`` maps a side to a policy played inside the engine, its automaton
(``possessed`` / ``rabid``: that side is played by the printed automaton) or a player policy
(``random``, ``planner``, ``glutton``: a player side that is not an agent). The default ``fixed=None``
makes both sides agents: the duel. ``{"monster": "rabid"}`` is the solo game of a Wizard agent,
``{"wizard": "possessed"}`` that of a Monster agent, ``{"monster": "glutton"}`` a duel in which only the
Wizard is an agent. Both automata (the 0-player game) leave no agent: ``new_state`` plays the game to its
end at once and returns a terminal state (its ``outcome()`` is the runner's row). ``returns()`` always
has two entries (a side never an agent scores as its side did).

Actions: every question the engine asks a player side (``Table.choose(side, decision, legal)``; a
decision with a single legal option is taken without asking, as in the runner) is one decision; its
integer codes (the tables of ``wizard_player`` and ``monster_player``) map to action ids through
``DECISIONS``: one block of ids per decision, each code range of the decision a run of consecutive
ids, so a decision's legal ids are sorted like its codes and no two decisions share an id
(``NUM_ACTIONS`` in all; ``decode(action) -> (side, decision, code)``). Board-sized blocks are sized for
``MAX_LOCATIONS`` locations and ``MAX_PASTURES`` pastures; a board file with more is refused.

What is hidden: each player's hand (the Wizard's Spell cards, the Monster's Power cards: their counts are
public), the order of every deck (Spell, Power, Possessed Wizard, the Rabid Monster cards not drawn this
turn), where the unrevealed Town Guard tiles lie (their multiset is public) and all future chance (the
bag, the dice, every reshuffle) and the other side's policy draws. Public: the board, tracks, coins,
ingredients, stomach, bag counts, every face-up card, and every choice made (a choice of a card in hand
is seen as the card played). ``determinise(agent, seed)`` redraws the other player's hand together with
the deck it comes from (the card a Wizard is casting stays in its hand), shuffles every deck and the
unrevealed Town Guard tiles, and re-seeds every stream except the agent's own policy stream.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cursedsim import rng
from cursedsim.errors import CursedsimError, OptionError, UnknownPolicyError
from cursedsim.games.village import GAME
from cursedsim.games.village import board as B
from cursedsim.games.village import cards as K
from cursedsim.games.village import components as C
from cursedsim.games.village import monster_player as MP
from cursedsim.games.village import monster_policies
from cursedsim.games.village import reference as REF
from cursedsim.games.village import rules as R
from cursedsim.games.village import wizard_player as WP
from cursedsim.games.village import wizard_policies
from cursedsim.step.api import TERMINAL, StepSpec
from cursedsim.step.driven import DrivenState, Request

W, M = R.WIZARD, R.MONSTER
AGENT = {side: k for k, side in enumerate(R.SIDES)}
EMPTY = -1

#: Largest board the action and observation blocks hold (the default board has 22 locations, 4 pastures).
MAX_LOCATIONS = 64
MAX_PASTURES = 16
#: Cards that can lie in front of one player (every Spell and Power card at most).
MAX_FRONT = 2 * K.MAX_DECK
HOUSES, HAND, INGREDIENTS = C.HOUSES, C.HAND_SIZE, len(C.INGREDIENTS)

#: (side, decision, ((first code, count), ...)): the code ranges of each decision, in action-id order.
DECISIONS = (
    (W, WP.ACTION, ((0, len(WP.ACTION_NAMES)),)),
    (W, WP.BUY_HOUSE, ((1, HOUSES),)),
    (W, WP.BUY_COUNT, ((1, C.INGREDIENT_TILES_EACH),)),
    (W, WP.MARKET_PICK, ((0, INGREDIENTS),)),
    (W, WP.SPELL, ((0, HAND),)),
    (W, WP.STEAL_HOUSE, ((1, HOUSES),)),
    (W, WP.STEAL_AMOUNT, ((1, B.COINS_MAX),)),
    (W, WP.DISTRACT, ((0, 2),)),
    (W, WP.PAY, ((0, 2),)),
    (W, WP.MOVE_TO, ((0, MAX_LOCATIONS),)),
    (W, WP.DISCARD, ((0, INGREDIENTS),)),
    (W, WP.ARRIVAL_HOUSE, ((1, HOUSES),)),
    (W, WP.HYPNOTIZE, ((0, INGREDIENTS),)),
    (W, WP.DISCARD_POWER, ((0, MAX_FRONT),)),
    (W, WP.RM_CARD, ((0, R.RABID_CARDS_DRAWN),)),
    (M, MP.DECIDE_TURN, ((0, 2),)),
    (M, MP.DECIDE_NIGHT_POWER, ((0, 1 + HAND),)),
    (M, MP.DECIDE_NIGHT_SINGLE, ((0, 2),)),
    (M, MP.DECIDE_ARRIVAL, ((1, HOUSES),)),
    (M, MP.DECIDE_BETWEEN, ((0, 3), (MP.PLAY, HAND))),
    (M, MP.DECIDE_MOVE, ((0, 5), (MP.MOVE, MAX_LOCATIONS))),
    (M, MP.DECIDE_EAT, ((0, 5), (MP.EAT_SHEEP, MAX_PASTURES))),
    (M, MP.DECIDE_AFTER_MEAL, ((0, 5),)),
    (M, MP.DECIDE_DISCARD_SPELL, ((0, MAX_FRONT), (MP.MONSTER_CARD, MAX_FRONT))),
    (M, MP.DECIDE_LEAP, ((0, MAX_LOCATIONS),)),
    (M, MP.DECIDE_SHEEP, ((0, MAX_PASTURES),)),
)
DECISION_NAMES = tuple(d for _, d, _ in DECISIONS)
_ENCODE: dict[str, dict[int, int]] = {}
_DECODE: list[tuple[str, str, int]] = []
for _side, _decision, _ranges in DECISIONS:
    _ENCODE[_decision] = {}
    for _first, _count in _ranges:
        for _code in range(_first, _first + _count):
            _ENCODE[_decision][_code] = len(_DECODE)
            _DECODE.append((_side, _decision, _code))
NUM_ACTIONS = len(_DECODE)
assert set(WP.DECISIONS) | set(MP.DECISIONS) == set(DECISION_NAMES)

#: Decisions whose code points into the deciding player's hand: the log shows the card instead.
HAND_INDEX = {WP.SPELL: (W, 0), MP.DECIDE_NIGHT_POWER: (M, 1), MP.DECIDE_BETWEEN: (M, MP.PLAY)}

#: Determinisation streams: ids far from the engine's (0-9) and the search's (1000 + agent).
RESEED_BASE = 2000
SHUFFLE_STREAM = 2100


def encode(decision: str, code: int) -> int:
    """The action id of ``code`` of ``decision``."""
    try:
        return _ENCODE[decision][code]
    except KeyError:
        raise AssertionError(f"village step: code {code!r} of decision {decision!r} is outside its action block "
                             f"(a board or deck beyond MAX_LOCATIONS / MAX_PASTURES / MAX_FRONT?)") from None


def decode(action: int) -> tuple[str, str, int]:
    """(side, decision, code) of an action id."""
    return _DECODE[action]


# ---------------------------------------------------------------- readable names

MONSTER_CODES = {
    MP.DECIDE_TURN: {MP.QUIET_NIGHT: "quiet night", MP.FEEDING: "feeding"},
    MP.DECIDE_NIGHT_SINGLE: {0: "keep the single-use card", 1: "activate the single-use card"},
    MP.DECIDE_BETWEEN: {MP.END_TURN: "end the turn", MP.NEXT_ACTION: "next action",
                        MP.USE_SINGLE_BETWEEN: "activate the single-use card"},
    MP.DECIDE_MOVE: {MP.END_MOVING: "end moving", MP.BUY_MOVEMENT: "buy a movement", MP.DISCARD_SPELL:
                     "4 Energy: discard a Spell", MP.PANIC_DOWN: "6 Energy: Panic -1", MP.USE_SINGLE:
                     "activate the single-use card"},
    MP.DECIDE_EAT: {MP.EAT_NOTHING: "eat nothing", MP.EAT_VILLAGER: "eat the villager here", MP.DISCARD_SPELL:
                    "4 Energy: discard a Spell", MP.PANIC_DOWN: "6 Energy: Panic -1", MP.USE_SINGLE:
                    "activate the single-use card"},
    MP.DECIDE_AFTER_MEAL: {MP.END_ACTION: "end the action", MP.DISCARD_SPELL: "4 Energy: discard a Spell",
                           MP.PANIC_DOWN: "6 Energy: Panic -1", MP.USE_SINGLE: "activate the single-use card"},
}


def code_name(decision: str, code: int, board: B.Board | None = None) -> str:
    """What ``code`` of ``decision`` does, in words."""
    def place(n):
        return board.locations[n].id if board is not None and n < len(board.locations) else f"location {n}"
    if decision == WP.ACTION:
        return WP.ACTION_NAMES[code] if code < len(WP.ACTION_NAMES) else f"action {code}"
    if decision in (WP.BUY_HOUSE, WP.STEAL_HOUSE, WP.ARRIVAL_HOUSE, MP.DECIDE_ARRIVAL):
        return f"house {code}"
    if decision in (WP.MARKET_PICK, WP.DISCARD, WP.HYPNOTIZE):
        return C.INGREDIENTS[code] if decision != WP.HYPNOTIZE else C.VILLAGER_NAMES[code]
    if decision in (WP.MOVE_TO, MP.DECIDE_LEAP):
        return place(code)
    if decision == WP.PAY:
        return ("pay in coins", "spend an action")[code]
    if decision == WP.DISTRACT:
        return ("take nothing", "distract (an action)")[code]
    if decision == MP.DECIDE_NIGHT_POWER:
        return "play no card" if code == 0 else f"play hand card {code - 1}"
    if decision == MP.DECIDE_BETWEEN and code >= MP.PLAY:
        return f"play hand card {code - MP.PLAY}"
    if decision == MP.DECIDE_MOVE and code >= MP.MOVE:
        return f"move to {place(code - MP.MOVE)}"
    if decision == MP.DECIDE_EAT and code >= MP.EAT_SHEEP:
        return f"eat a sheep of pasture {code - MP.EAT_SHEEP}"
    if decision == MP.DECIDE_DISCARD_SPELL:
        return (f"discard the Monster's card {code - MP.MONSTER_CARD}" if code >= MP.MONSTER_CARD
                else f"discard the Wizard's card {code}")
    if decision in MONSTER_CODES and code in MONSTER_CODES[decision]:
        return MONSTER_CODES[decision][code]
    return str(code)


# ---------------------------------------------------------------- the engine's table, its choices seen

class _Table(REF.Table):
    """The reference Table, unchanged, that also tells the step state every choice made (forced ones
    included: the card a forced Spell casts is public all the same)."""

    on_choice: Callable[[str, str, int], None] | None = None

    def choose(self, side: str, decision: str, legal: list[int]) -> int:
        code = super().choose(side, decision, legal)
        if self.on_choice is not None:
            self.on_choice(side, decision, code)
        return code


class _Agent:
    """The controller of an agent's side: each question becomes a Request the step driver answers."""

    def __init__(self, state: VillageState, side: str, ask: Callable[[Request], int]):
        self.state, self.side, self.ask = state, side, ask

    def act(self, table, side, decision, legal, stream) -> int:
        codes = list(legal)
        state = self.state

        def by_policy(name: str, params: Mapping[str, float] | None) -> int:
            return encode(decision, state.policy(side, name, params).act(table, side, decision, list(codes), stream))

        action = self.ask(Request(AGENT[side], [encode(decision, c) for c in codes], by_policy, (side, decision)))
        return decode(action)[2]


def _ids(cards) -> tuple:
    return tuple(None if c is None else c.id for c in cards)


def _shuffle(cards: list, stream: rng.Stream) -> None:
    REF.shuffle_in_place(cards, stream)


# ---------------------------------------------------------------- turn starts, copied

#: Table attributes a copy shares: never changed during play (the board, options, cards) or set anew.
_SHARED = frozenset({"board", "options", "arrays", "origin", "cure_seq", "panic_from", "streams", "controllers",
                     "on_choice"})


def copy_table(t: REF.Table, controllers: dict) -> REF.Table:
    """An independent copy of the table ``t`` (between two turns) played by ``controllers``: its lists and
    dicts copied one level down (the stomach's slots two), its streams copied, the board and cards shared
    (nothing changes them). O(state): no history is replayed."""
    c = copy.copy(t)
    for name, value in vars(t).items():
        if name in _SHARED:
            continue
        if isinstance(value, list):
            setattr(c, name, [list(x) if isinstance(x, list) else x for x in value])
        elif isinstance(value, (dict, set)):
            setattr(c, name, type(value)(value))
    c.streams = [_stream_copy(s) for s in t.streams]
    c.controllers = controllers
    c.on_choice = None
    return c


def _stream_copy(stream: rng.Stream) -> rng.Stream:
    c = object.__new__(rng.Stream)
    c.s = list(stream.s)
    return c


@dataclass(frozen=True)
class TurnStart:
    """The game as it stood when the turn under way began: a table nobody plays on (each copy of the state
    resumes on a copy of it), the choices made before it (a chain ``(earlier, turn's choices)``, shared by
    every copy) and the Spell being cast then."""

    table: REF.Table
    past: tuple
    cast: tuple | None


def _flatten(chain: tuple) -> list:
    """The choices of a chain ``(earlier, turn's choices)``, oldest first."""
    turns = []
    while chain:
        chain, turn = chain
        turns.append(turn)
    return [entry for turn in reversed(turns) for entry in turn]


# ---------------------------------------------------------------- the state

class VillageState(DrivenState):
    """A village game on the reference engine, stepped at each decision of an agent side. Each turn's start
    is kept (``TurnStart``) and ``history`` holds only what was done since it, so a copy resumes a copy of
    that table and replays the turn so far: O(state + turn), whatever the game's length."""

    def __init__(self, recipe: Mapping[str, Any], start: TurnStart | None = None, policies: dict | None = None):
        self._policies: dict = {} if policies is None else policies
        self._start = start                  # the turn under way's start (set by _play)
        self._past: tuple = ()               # the choices of the turns before this one (a shared chain)
        self._log: list[tuple] = []          # this turn's choices: (side, decision, code or card id)
        self._cast: tuple | None = None      # (hand position, card) of the Spell being cast
        self._cards = K.cards_of(recipe["options"].cards)
        super().__init__(recipe)

    # ------------------------------------------------------------ the engine

    def _controllers(self, ask: Callable[[Request], int]) -> dict:
        """Side -> the controller of each player side: the agents' ask the driver, the fixed play inside."""
        r, controllers = self.recipe, {}
        for side in R.SIDES:
            if side in r["agents"]:
                controllers[side] = _Agent(self, side, ask)
            elif r["fixed"][side][0] != R.AUTOMATON_POLICIES[side]:
                controllers[side] = self.policy(side, *r["fixed"][side])
        return controllers

    def _play(self, ask: Callable[[Request], int]) -> None:
        r = self.recipe
        controllers = self._controllers(ask)
        resumed = self._start is not None
        if resumed:
            t = copy_table(self._start.table, controllers)
            self._past, self._cast = self._start.past, self._start.cast
        else:
            t = _Table.deal(r["seed"], r["index"], r["options"], mode=r["mode"], controllers=controllers,
                            log=r["log"])
        t.on_choice = self._seen
        self.table = t
        while not t.over:
            if not resumed:
                self._turn_begins()
            resumed = False
            t.step()

    def _turn_begins(self) -> None:
        """Keep the start of the turn about to be played; what was done before it leaves ``history``."""
        if self._log:
            self._past, self._log = (self._past, tuple(self._log)), []
        self._start = TurnStart(copy_table(self.table, {}), self._past, self._cast)
        self.history = []

    def _fresh(self) -> VillageState:
        """The same game at the start of the turn under way (``clone`` replays ``history`` on it)."""
        return type(self)(self.recipe, self._start, self._policies)

    def policy(self, side: str, name: str, params: Mapping[str, float] | None = None):
        """The reference policy object ``name`` of player side ``side`` with ``params`` over its defaults
        (cached per state; the runner's controller of that policy)."""
        key = (side, name, None if params is None else tuple(sorted(dict(params).items())))
        if key not in self._policies:
            spec = GAME.policy(name, side)
            if name == R.AUTOMATON_POLICIES[side]:
                players = ", ".join(n for n, p in GAME.policies_of(side).items() if n != name and p.engine != "step")
                raise UnknownPolicyError(f"village: {name!r} is the {side}'s automaton, which plays a whole mode, "
                                         f"not a player's decision (fix it with fixed={{{side!r}: {name!r}}}); "
                                         f"player policies of the {side}: {players}")
            if spec.engine == "step":
                raise UnknownPolicyError(f"village: {name!r} is not a built-in policy of the {side}")
            module = wizard_policies if side == W else monster_policies
            self._policies[key] = module.make(name, spec.param_vector(params))
        return self._policies[key]

    def _seen(self, side: str, decision: str, code: int) -> None:
        """Log a choice as the other side sees it (a card chosen from the hand: the card)."""
        shown: Any = code
        if decision in HAND_INDEX:
            owner, offset = HAND_INDEX[decision]
            hand = self.table.spell_hand if owner == W else self.table.power_hand
            if code >= offset:
                shown = hand[code - offset].id
        if decision == WP.SPELL:
            self._cast = (code, self.table.spell_hand[code])
        elif decision == WP.ACTION:
            self._cast = None
        self._log.append((side, decision, shown))

    def casting(self) -> int:
        """The hand position of the Spell the Wizard chose and is still casting (paying its way, picking
        its Rabid Monster card: the card is shown but not yet out of the hand), or -1."""
        if self._cast is None or self.table is None:
            return -1
        p, card = self._cast
        return p if p < len(self.table.spell_hand) and self.table.spell_hand[p] is card else -1

    def _resample(self, agent: int, seed: int) -> None:
        t = self.table
        if t is None or t.over:
            return
        side = R.SIDES[agent]
        shuffler = rng.Stream(seed, t.origin[1], SHUFFLE_STREAM)
        # the other player's hand joins the deck it came from (the card being cast stays: it is shown)
        pinned = self.casting()
        for owner, hand, deck in ((W, t.spell_hand, t.spell_deck), (M, t.power_hand, t.power_deck)):
            free = [p for p in range(len(hand)) if p != pinned or owner != W] if owner != side else []
            pool = list(deck) + [hand[p] for p in free]
            _shuffle(pool, shuffler)
            for p in free:
                hand[p] = pool.pop()
            deck[:] = pool
        for deck in (t.pw_deck, t.rm_deck):
            _shuffle(deck, shuffler)
        # the unrevealed Town Guard tiles among their roads
        slots = [s for s, g in enumerate(t.guards) if g != EMPTY]
        tiles = [t.guards[s] for s in slots]
        _shuffle(tiles, shuffler)
        for s, g in zip(slots, tiles):
            t.guards[s] = g
        # the future: every stream but the agent's own policy's, re-seeded in place (the engine holds them)
        for sid, stream in enumerate(t.streams):
            if sid != REF.POLICY_STREAM[side]:
                stream.s = rng.initial_state(seed, t.origin[1], RESEED_BASE + sid)

    # ------------------------------------------------------------ who, what

    def side_of(self, agent: int) -> str:
        """The runner side agent ``agent`` plays (0 wizard, 1 monster)."""
        return R.SIDES[agent]

    def acting_agents(self) -> tuple[int, ...]:
        """The agents that take decisions in this game (the player sides not fixed)."""
        return tuple(AGENT[side] for side in self.recipe["agents"])

    def action_name(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return str(action)
        side, decision, code = decode(action)
        board = self.table.board if self.table is not None else None
        return f"{side} {decision}: {code_name(decision, code, board)}"

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        return [1.0 if self.table.winner == k else 0.0 for k in range(len(R.SIDES))]

    def outcome(self) -> dict[str, Any]:
        if not self.is_terminal():
            raise CursedsimError("village: the game is not over; outcome() is the row of a finished game")
        row = self.table.outcome()
        row.update({f"{side}_won": self.table.winner == k for k, side in enumerate(R.SIDES)})
        return row

    # ------------------------------------------------------------ what an agent knows

    def _public(self) -> tuple:
        t = self.table
        return (
            t.mode, t.turn, t.side, t.over, t.winner, t.unfinished,
            tuple(t.houses), tuple(t.bag), tuple(t.sheep), t.at, t.panic, t.cure, t.curse, t.coins, tuple(t.held),
            tuple(tuple(s) for s in t.stomach), t.energy,
            _ids(t.spell_discard), _ids(t.power_discard), _ids(t.in_front_of_wizard), _ids(t.in_front_of_monster),
            _ids(t.pw_row), _ids(t.pw_feeding), _ids(t.pw_used), _ids(t.rm_drawn), _ids(t.rm_used),
            len(t.spell_deck), len(t.power_deck), len(t.pw_deck), len(t.rm_deck), len(t.spell_hand),
            len(t.power_hand), t.wizard_actions_left, t.wizard_pending,
            tuple(g != EMPTY for g in t.guards), tuple(sorted(g for g in t.guards if g != EMPTY)),
            tuple(t.guards_revealed), tuple(t.m_visited), t.m_new_moon, t.m_actions, t.m_moves, t.m_moving,
            t.m_guard_debt, t.sheep_curse_pending, t.coins_stolen, tuple(sorted(t.eaten.items())),
            tuple(sorted(t.fired.items())), tuple(sorted(t.first.items())), t.quiet_nights)

    def _own(self, side: str) -> tuple:
        return _ids(self.table.spell_hand if side == W else self.table.power_hand)

    def information(self, agent: int) -> str:
        side = R.SIDES[agent]
        if self.table is None:
            return f"{side}|no table"
        now = None
        if self._request is not None:
            decider, decision = self._request.context
            now = (decider, decision, tuple(self._request.legal) if decider == side else None)
        return repr((side, self._public(), self._own(side), tuple(_flatten(self._past) + self._log), now))

    def observation(self, agent: int) -> np.ndarray:
        return observe(self, R.SIDES[agent])


# ---------------------------------------------------------------- the observation vector

ZONES = ("hand", "in_front_of_wizard", "in_front_of_monster", "spell_discard", "power_discard", "pw_row",
         "pw_feeding", "pw_used", "rm_drawn", "rm_used")
DECKS = ("spell", "power", "possessed_wizard", "rabid_monster")
PENDING = len(WP.ACTION_NAMES) + 2          # an action code, ARRIVAL, RM_CARD
GUARD_CODES = len(C.TOWN_GUARD_TILES)


def _layout(board: B.Board, cards: K.Cards) -> list[tuple[str, int]]:
    """(name, size) of each piece of the observation, in order."""
    n_loc, n_past, n_card = len(board.locations), len(board.pastures), len(cards.cards) + len(DECKS)
    guards = int(sum(board.arrays()["road_border"]))
    return [("houses", HOUSES * (1 + len(C.VILLAGERS))), ("bag", len(C.VILLAGERS)), ("sheep", n_past),
            ("at", n_loc), ("visited", n_loc), ("tracks", 5), ("held", INGREDIENTS),
            ("stomach", len(R.EATEN_KINDS) + 1), ("zones", len(ZONES) * n_card), ("sizes", 6),
            ("guards", guards + GUARD_CODES), ("turn", 12), ("pending", PENDING + 2), ("decision", len(DECISIONS)),
            ("who", 6)]


def observation_size(players: int, options: Any) -> int:
    """Entries of the observation vector for the options' board and cards."""
    options = GAME.make_options(options)
    return sum(size for _, size in _layout(B.board_of(options.board), K.cards_of(options.cards)))


def observe(state: VillageState, side: str) -> np.ndarray:
    """The float32 observation of ``side``: a function of its ``information`` (public zones, its own hand,
    the decision under way), each entry in [0, 1]."""
    t = state.table
    cards = state._cards
    card_index = {c.id: k for k, c in enumerate(cards.cards)}

    def slot(card) -> int:
        return card_index[card.id] if not card.blank else len(cards.cards) + DECKS.index(card.deck)

    def frac(x, top):
        return min(1.0, max(0.0, x / top)) if top > 0 else 0.0

    n_card = len(cards.cards) + len(DECKS)
    parts: list[np.ndarray] = []
    houses = np.zeros((HOUSES, 1 + len(C.VILLAGERS)), np.float32)
    for n in range(1, HOUSES + 1):
        houses[n - 1, 1 + t.houses[n] if t.houses[n] != EMPTY else 0] = 1.0
    parts.append(houses.ravel())
    parts.append(np.array([frac(b, c) for b, c in zip(t.bag, C.VILLAGER_COUNTS)], np.float32))
    parts.append(np.array([frac(s, C.SHEEP_TOKENS) for s in t.sheep], np.float32))
    at = np.zeros(len(t.board.locations), np.float32)
    at[t.at] = 1.0
    visited = np.zeros(len(t.board.locations), np.float32)
    visited[list(t.m_visited)] = 1.0
    parts += [at, visited]
    parts.append(np.array([frac(t.panic, t.panic_top), frac(t.cure, len(t.cure_seq)), frac(t.curse, t.curse_top),
                           frac(t.coins, C.COIN_TOTAL), frac(t.energy, C.ENERGY_MAX)], np.float32))
    parts.append(np.array([frac(t.held.count(i), C.INGREDIENT_TILES_EACH) for i in range(INGREDIENTS)], np.float32))
    stomach = [sum(1 for s in t.stomach for k in s if k.lower() == kind) for kind in R.EATEN_KINDS]
    parts.append(np.array([frac(x, C.STOMACH_SLOTS) for x in stomach] + [frac(len(t.stomach), C.STOMACH_SLOTS)],
                          np.float32))
    zones = np.zeros((len(ZONES), n_card), np.float32)
    own = t.spell_hand if side == W else t.power_hand
    for z, name in enumerate(ZONES):
        for card in (own if name == "hand" else getattr(t, name)):
            if card is not None:
                zones[z, slot(card)] += 0.25
    parts.append(np.minimum(zones, 1.0).ravel())
    parts.append(np.array([frac(len(d), K.MAX_DECK) for d in (t.spell_deck, t.power_deck, t.pw_deck, t.rm_deck)]
                          + [frac(len(t.spell_hand), HAND), frac(len(t.power_hand), HAND)], np.float32))
    n_guards = int(sum(t.arrays["road_border"]))
    guards = np.zeros(n_guards + GUARD_CODES, np.float32)
    for s, g in enumerate(t.guards[:n_guards]):
        guards[s] = float(g != EMPTY)
    counts = [count for _, count in C.TOWN_GUARD_TILES]
    for g in t.guards:
        if g != EMPTY:
            guards[n_guards + g] += 1.0 / counts[g]
    parts.append(guards)
    parts.append(np.array([frac(t.turn, t.options.max_turns), float(t.side == W), float(t.over),
                           float(t.winner == 0), float(t.winner == 1), float(t.m_new_moon), float(t.m_moving),
                           frac(t.m_actions, 6), frac(t.m_moves, 6), frac(t.m_guard_debt, 3),
                           frac(t.wizard_actions_left, 6), frac(t.sheep_curse_pending, 3)], np.float32))
    pending = np.zeros(PENDING + 2, np.float32)
    p = t.wizard_pending
    if p:
        kind = p[0]
        pending[kind if isinstance(kind, int) else (PENDING - 2 if kind == WP.ARRIVAL else PENDING - 1)] = 1.0
        if len(p) > 1 and isinstance(p[1], int):
            pending[PENDING] = frac(p[1], MAX_LOCATIONS)
        if len(p) > 2:
            pending[PENDING + 1] = frac(p[2], C.COIN_TOTAL)
    parts.append(pending)
    decision = np.zeros(len(DECISIONS), np.float32)
    who = np.zeros(6, np.float32)
    who[AGENT[side]] = 1.0
    if state._request is not None:
        decider, name = state._request.context
        decision[DECISION_NAMES.index(name)] = 1.0
        who[2 + AGENT[decider]] = 1.0
    else:
        who[4] = 1.0
    who[5] = float(len(state.recipe["agents"]) == 2)
    parts += [decision, who]
    out = np.concatenate(parts).astype(np.float32)
    return out


# ---------------------------------------------------------------- dealing

def _fixed(fixed: Mapping | None) -> dict[str, tuple[str, dict | None]]:
    """Side -> (policy name, params) of the sides played inside the engine; errors name the valid ones."""
    out = {}
    for side, value in dict(fixed or {}).items():
        GAME.side(side)                                   # an UnknownPolicyError naming the sides
        name, params = (value, None) if isinstance(value, str) else tuple(value)
        spec = GAME.policy(name, side)
        if spec.engine == "step":
            raise UnknownPolicyError(f"village: {name!r} cannot be fixed inside the engine (a search policy)")
        params = None if params is None else dict(params)
        spec.param_vector({k: v for k, v in (params or {}).items()})   # unknown parameter: an error
        out[side] = (name, params)
    return out


def new_state(seed: int, index: int, players: int | None = None, options: Any = None, fixed: Mapping | None = None,
              log: bool = False) -> VillageState:
    """Game ``index`` of the run ``seed`` dealt as the runner deals that row, in the mode of the pairing
    (``fixed`` sides played inside the engine, the others agents); both sides fixed to their automata:
    the 0-player game, played to its end at once (a terminal state)."""
    GAME.check_players(GAME.default_players if players is None else players)
    options = GAME.make_options(options)
    board = B.board_of(options.board)
    if len(board.locations) > MAX_LOCATIONS or len(board.pastures) > MAX_PASTURES:
        raise OptionError(f"village step API: boards of at most {MAX_LOCATIONS} locations and {MAX_PASTURES} "
                          f"pastures; {board.label} has {len(board.locations)} and {len(board.pastures)}")
    fixed = _fixed(fixed)
    automaton = {side: side in fixed and fixed[side][0] == R.AUTOMATON_POLICIES[side] for side in R.SIDES}
    mode = R.mode_of(automaton[W], automaton[M])
    recipe = {"seed": int(seed), "index": int(index), "options": options, "mode": mode, "fixed": fixed,
              "agents": tuple(side for side in R.SIDES if side not in fixed), "log": bool(log)}
    return VillageState(recipe)


STEP = StepSpec(
    name="village",
    agents=lambda players, options: R.SIDES,
    num_actions=NUM_ACTIONS,
    observation_size=observation_size,
    agent_sides=lambda players, options: R.SIDES,
    new_state=new_state,
    doc="agents wizard (0) and monster (1), acting when a player side and not fixed; the automata and fixed "
        "player policies play inside the engine",
    default_rollout={R.WIZARD: "planner", R.MONSTER: "glutton"},   # the defaults are the automata
)
VillageState.spec = STEP

__all__ = ["STEP", "VillageState", "new_state", "encode", "decode", "NUM_ACTIONS", "observation_size", "TERMINAL"]
