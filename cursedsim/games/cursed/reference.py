"""Cursed!? as a readable pure-Python engine: the oracle the numba kernel (``kernel.py``) is compared with,
game by game, and the source of replay logs.

It implements exactly the procedure of ``docs/rules/cursed.md`` and consumes the deck stream
``rng.Stream(seed, index, rng.STREAM_DECK)`` in exactly the order written there (every random draw is a
Fisher-Yates shuffle: of the deck at set-up, of the discard pile for a chest or a Big Turkey Dinner, of
the draw pile after a Smoke Bomb). Policies get their own stream ``rng.Stream(seed, index,
rng.STREAM_POLICY)``, so a policy that draws random numbers never changes the cards.

The :class:`Table` holds one game and has one method per rule step (``pile_check``, ``between_fights``,
``draw_monster``, ``fight``, ``attack``, ``use_item``, ``take_damage``, ``capture``, ``escape``,
``open_chest``, ``gain_item``, ...). Policies decide (``reference_policies.py``): at each *decision
point* (a fight's, or between fights) an :class:`Action`, at each attack an :class:`AttackChoice`, on an
attack going over the monster's power whether to spend a Soul Crystal. The table enforces the rules and
raises :class:`IllegalDecision` on anything else. A table that logs records one event per step
(``events``, vocabulary in ``turnlog.py``); the turn log is rendered from them.

State, and how the kernel holds it (card ids 0-29, see ``rules.py``; layout in ``state.py``):

==================  ===========================================  ==========================================
attribute           meaning                                      kernel form
==================  ===========================================  ==========================================
``pile``            draw pile, **top = last**                    block PILE of the int64 zones + count
``discard``         discard pile, top = last                     block DISCARD + count, uint64 card mask
``souls``           captured monsters, in capture order          count
``items``           held items (card ids; order unused)          uint64 bitmask over card ids
``stored``          Large Backpack weapons (order unused)        uint64 bitmask over card ids
``monster``         card fought, -1 between fights               int
``weapons``         attacks landed this fight, in order          block WEAPONS + count
``used``            items used this fight, in order              block USED + count
fight scalars       power, trait, chest, total, attacks,         ints / bools
                    trait_spent, blocked, armed flags
counters            rounds, damage_taken, weapons_drawn, busts,  ints; used_count in block USED_COUNT
                    used_count[item]
``start_item``      item code of the first starting item, or -1  int
==================  ===========================================  ==========================================

Whenever several copies of an item are held, the one used is the policy's choice; built-in policies and
the canonical action list take the lowest card id (``held``). Orders that matter for later shuffles
(pile, discard, weapons, used) are spelt out in the docs and kept here as lists.

    >>> from cursedsim.games.cursed.reference import play, replay_log
    >>> from cursedsim.games.cursed.reference_policies import ThresholdPolicy
    >>> from cursedsim.games.cursed.rules import RuleOptions
    >>> outcome = play(seed=7, index=0, options=RuleOptions(), policy=ThresholdPolicy(2))
    >>> print(replay_log(7, 0, RuleOptions(), ThresholdPolicy(2)))   # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from cursedsim import rng
from cursedsim.events import make_event, policy_label
from cursedsim.games.cursed import turnlog
from cursedsim.games.cursed.rules import (
    BEWITCHING_RELIC,
    BIG_TURKEY_DINNER,
    CARD_CHEST,
    CARD_POWER,
    CARD_TRAIT,
    CARD_WEAPON_HIGH,
    CARD_WEAPON_KINDS,
    CARD_WEAPON_POWER,
    COPIES,
    END_EIGHT_SOULS,
    END_FINAL_MONSTER,
    END_NAMES,
    END_PILE_EMPTY,
    ETHEREAL,
    EVASIVE,
    EXPLODES,
    FLYING,
    FRENZY_FACTOR,
    FRENZY_POTION,
    ITEM_OF_CARD,
    ITEM_SLUGS,
    KIND_NAMES,
    LARGE_BACKPACK,
    MELEE,
    MIMIC,
    N_CARDS,
    N_UNIQUE,
    NO_START_ITEM,
    NO_TRAIT,
    OUTCOME_DTYPES,
    RANGED,
    SCROLL_OF_PURGE_LIFE,
    SHIELD,
    SHIELD_BLOCK,
    SMOKE_BOMB,
    SOUL_CRYSTAL,
    TOUGH_SKIN,
    TRAIT_NAMES,
    WHETSTONE,
    WHETSTONE_BONUS,
    RuleOptions,
    is_split,
    weapon_text,
)

if TYPE_CHECKING:
    from cursedsim.games.cursed.reference_policies import Policy

# ---------------------------------------------------------------- decisions

#: Action kinds at a fight decision point.
DRAW = 0   # draw the top card of the pile as a weapon and attack with it
PLAY = 1   # attack with a weapon stored by the Large Backpack (``card``)
USE = 2    # use held item ``card`` (Large Backpack: ``target`` = the discard card to take)
STOP = 3   # stop attacking: take the damage (power - total - blocked)
ACTION_NAMES = ("draw", "play", "use", "stop")

#: How a fight closes (internal): a capture with no damage, a stop (damage step), a Smoke Bomb, a bust
#: with ``bust="soul_lost"`` (damage step, no capture).
CLOSE_CAPTURE = 0
CLOSE_STOP = 1
CLOSE_SMOKE = 2
CLOSE_LOST = 3

#: Items a policy may use at a fight decision point in every timing (Whetstone and Frenzy Potion too
#: with ``item_timing="before_draw"``, the Whetstone on a weapon in play with ``whetstone_in_play``; Soul
#: Crystal and Bewitching Relic only at an attack; a Mimic! is never held).
DECISION_POINT_ITEMS = (BIG_TURKEY_DINNER, SMOKE_BOMB, SCROLL_OF_PURGE_LIFE, SHIELD, LARGE_BACKPACK)
#: Items a policy may use between fights (``items_between_fights``): those that act without a monster.
BETWEEN_FIGHTS_ITEMS = (BIG_TURKEY_DINNER, LARGE_BACKPACK)


class Action(NamedTuple):
    """A decision at a fight decision point: ``Action(DRAW)``, ``Action(PLAY, card)``, ``Action(USE,
    card)``, ``Action(USE, backpack_card, target)`` or ``Action(STOP)``."""

    kind: int
    card: int = -1
    target: int = -1

    def __str__(self) -> str:
        text = ACTION_NAMES[self.kind]
        if self.card >= 0:
            text += f" #{self.card}"
        if self.target >= 0:
            text += f" -> #{self.target}"
        return text


class AttackOptions(NamedTuple):
    """What is open to choose when a weapon attacks (the engine asks only when one of these is True)."""

    value: bool = False       # a "1/6" weapon with dagger_value "choose_kind" or "choose": 1 or 6
    kind: bool = False        # the Spear with spear_kind="choose": MELEE or RANGED
    relic: bool = False       # a Bewitching Relic is held
    whetstone: bool = False   # a Whetstone is held (item_timing="after_reveal")
    frenzy: bool = False      # a Frenzy Potion is held, this is the fight's first attack (after_reveal)

    def any(self) -> bool:
        return self.value or self.kind or self.relic or self.whetstone or self.frenzy


class AttackChoice(NamedTuple):
    """The answer at an attack: the 1/6 value (1 or 6) and the Spear's kind when open, and which of the
    open items to spend on this attack (Bewitching Relic, Whetstone, Frenzy Potion)."""

    value: int = 0
    kind: int = 0
    relic: bool = False
    whetstone: bool = False
    frenzy: bool = False


NO_CHOICE = AttackChoice()


def spent_items(choice: AttackChoice) -> tuple[int, ...]:
    """The items an attack ``choice`` spends, in the order ``Table.attack`` spends them."""
    return tuple(item for item, chosen in ((BEWITCHING_RELIC, choice.relic), (WHETSTONE, choice.whetstone),
                                           (FRENZY_POTION, choice.frenzy)) if chosen)


def trait_cancels(trait: int, kinds: int, parity_value: int) -> bool:
    """Whether ``trait``'s "first ..." condition fits an attack (Flying: melee, Tough Skin: ranged,
    Ethereal: odd value, Evasive: even value)."""
    if trait == FLYING:
        return bool(kinds & MELEE)
    if trait == TOUGH_SKIN:
        return bool(kinds & RANGED)
    if trait == ETHEREAL:
        return parity_value % 2 == 1
    if trait == EVASIVE:
        return parity_value % 2 == 0
    return False


def trait_after(options: RuleOptions, trait: int, spent: bool, base: int, kinds: int, whetstone: bool,
                ignores: bool) -> tuple[bool, bool]:
    """Step 3 of ``Table.attack`` as a pure function (``optimal_fight`` plays it too): (the trait spent
    after an attack of ``base`` value and ``kinds``, the attack cancelled by it); ``ignores``: the Relic or
    a Frenzy Potion ignores traits."""
    if spent or (ignores and not options.ignoring_attack_spends_trait):
        return spent, False
    parity = base + (WHETSTONE_BONUS if whetstone and options.parity_includes_whetstone else 0)
    if trait_cancels(trait, kinds, parity):
        return True, not ignores
    return False, False


class IllegalDecision(RuntimeError):
    """A policy decision the rules do not allow; the message names the rule it breaks."""


@dataclass(frozen=True)
class Outcome:
    """How one game ended: the row the kernel must reproduce (columns of ``rules.OUTCOME_COLUMNS``),
    plus the readable log when asked for."""

    win: bool
    #: Captured souls at the end.
    souls: int
    #: Rounds started (monsters drawn from the pile; Mimic! fights are not rounds).
    rounds: int
    #: Cards discarded from the draw pile as damage.
    damage_taken: int
    #: Cards in the draw pile at the end.
    cards_left: int
    #: ``rules.END_EIGHT_SOULS``, ``rules.END_PILE_EMPTY`` or ``rules.END_FINAL_MONSTER``.
    end: int
    #: Item code of the first starting item taken (after Mimic! redraws; a Mimic! fought at set-up is
    #: ``rules.MIMIC``), ``rules.NO_START_ITEM`` (-1) when none was taken.
    start_item: int
    #: Weapons drawn from the pile (Large Backpack weapons not counted).
    weapons_drawn: int
    #: Attacks that went over the monster's power and were discarded.
    busts: int
    used_soul_crystal: int
    used_big_turkey_dinner: int
    used_smoke_bomb: int
    used_bewitching_relic: int
    used_scroll_of_purge_life: int
    used_shield: int
    used_whetstone: int
    used_frenzy_potion: int
    used_large_backpack: int
    #: Mimic! cards met as items (each one is fought at once).
    used_mimic: int
    #: The turn log (rendered from ``events``) and the events, when the game was played with a log.
    log: tuple[str, ...] = ()
    events: tuple[dict, ...] = ()

    def columns(self) -> dict[str, int | bool]:
        """The outcome as {column: value}, in ``rules.OUTCOME_COLUMNS`` order."""
        return {column: getattr(self, column) for column in OUTCOME_DTYPES}


# ---------------------------------------------------------------- the table

class Table:
    """The state of one game of Cursed!? and the rule steps that change it (see the module docstring
    for the layout). A table made by the constructor is empty, so tests can lay out any position;
    :meth:`deal` makes the shuffled deck of game ``index`` of a run with ``seed``.
    """

    def __init__(self, options: RuleOptions | None = None, *, deck_rng: rng.Stream | None = None,
                 log: bool = False):
        self.options = options if options is not None else RuleOptions()
        self.deck_rng = deck_rng
        self.pile: list[int] = []
        self.discard: list[int] = []
        self.souls: list[int] = []
        self.items: list[int] = []
        self.stored: list[int] = []
        self.rounds = 0
        self.damage_taken = 0
        self.weapons_drawn = 0
        self.busts = 0
        self.used_count = [0] * N_UNIQUE
        #: item code of the first starting item taken (a Mimic! fought at set-up too), or NO_START_ITEM
        self.start_item = NO_START_ITEM
        self.end: int | None = None
        #: True at the decision points between fights (``items_between_fights``)
        self.between = False
        self.logging = log
        #: (seed, game index) of a dealt game, stamped on its events; None for a table laid out by hand
        self.origin: tuple[int | None, int | None] = (None, None)
        self.events: list[dict] = []
        self._clear_fight()

    def _clear_fight(self) -> None:
        self.monster = -1
        self.is_mimic = False
        self.power = 0
        self.trait = NO_TRAIT
        self.chest = False
        self.weapons: list[int] = []
        self.used: list[int] = []
        self.total = 0
        #: attacks made this fight: landed, cancelled by a trait or busted
        self.attacks = 0
        #: the trait has met its "first ..." attack (Explodes: its single attack has landed)
        self.trait_spent = False
        #: damage the Shields used this fight block
        self.blocked = 0
        self.whetstone_armed = False
        self.frenzy_armed = False
        #: weapons in play that dealt damage and carry no Whetstone (``whetstone_in_play`` targets)
        self.whettable: list[int] = []

    @classmethod
    def deal(cls, seed: int, index: int, options: RuleOptions | None = None, *, log: bool = False,
             label: str | None = None) -> Table:
        """"Shuffle the deck of cards": the pile is ``[0, 1, ..., 29]`` shuffled by Fisher-Yates on the
        deck stream of (seed, index); its last card is the top. ``label`` names the policy in the set-up
        event."""
        table = cls(options, deck_rng=rng.Stream(seed, index, rng.STREAM_DECK), log=log)
        table.origin = (seed, index)
        table.pile = list(range(N_CARDS))
        table.shuffle(table.pile)
        if log:
            table.record("rule", "setup", win_souls=table.options.win_souls, policy=label,
                         options=dataclasses.asdict(table.options))
        return table

    # ------------------------------------------------------------ events and the log

    def record(self, actor: str, action: str, cards=(), **fields) -> None:
        """Add an event (``turnlog.EVENTS``) with the state after it, when the table keeps a log."""
        if self.logging:
            self.events.append(make_event(self.origin, len(self.events), self.rounds, actor, action, cards,
                                          fields, self.summary()))

    def summary(self) -> dict:
        """The state an event carries: the monster fought, its power and the weapon total, the pile,
        discard and souls counts, the held items and the Large Backpack weapons."""
        return {"monster": self.monster if self.monster >= 0 else None, "power": self.power, "total": self.total,
                "pile": len(self.pile), "discard": len(self.discard), "souls": len(self.souls),
                "items": sorted(self.items), "backpack": sorted(self.stored)}

    @property
    def log(self) -> list[str]:
        """The turn log so far, one line per event that has one (rendered from ``events``)."""
        return turnlog.log_lines(self.events)

    # ------------------------------------------------------------ small helpers

    def shuffle(self, cards: list[int]) -> None:
        """Fisher-Yates in place on the deck stream: for i = n-1 down to 1, j = below(i + 1), swap
        cards[i] and cards[j] (n - 1 draws; none for n <= 1)."""
        below = self.deck_rng.below
        for i in range(len(cards) - 1, 0, -1):
            j = below(i + 1)
            cards[i], cards[j] = cards[j], cards[i]

    def held(self, item: int) -> int:
        """The lowest card id of item code ``item`` among the held items, or -1."""
        return min((card for card in self.items if ITEM_OF_CARD[card] == item), default=-1)

    def held_items(self) -> dict[int, int]:
        """{item code: lowest held card id of it} over the held items."""
        lowest: dict[int, int] = {}
        for card in self.items:
            item = ITEM_OF_CARD[card]
            if item not in lowest or card < lowest[item]:
                lowest[item] = card
        return lowest

    @property
    def souls_count(self) -> int:
        return len(self.souls)

    @property
    def gap(self) -> int:
        """The monster's power minus the weapon total (what stopping now would cost before Shields)."""
        return self.power - self.total

    @property
    def damage_due(self) -> int:
        """The damage stopping now would deal: the gap less what Shields block, at least 0."""
        return max(0, self.power - self.total - self.blocked)

    def can_attack(self) -> bool:
        """Explodes: "You are only able to land a single attack"; otherwise attacks are unlimited (in a
        fight: between fights there is nothing to attack)."""
        return not self.between and not (self.trait == EXPLODES and self.trait_spent)

    def overshoot_captures(self) -> bool:
        """Whether the next attack, if it goes over the monster's power, captures the soul with no
        damage (the single-weapon overshoot rule, option ``overshoot``)."""
        rule = self.options.overshoot
        if rule == "first_attack":
            return self.attacks == 0
        if rule == "zero_total":
            return self.total == 0
        return False

    def value_chosen(self, card: int) -> bool:
        """Whether the policy chooses this weapon's value: a "1/6" weapon with dagger_value "choose_kind"
        or "choose"."""
        return is_split(card) and self.options.dagger_value in ("choose_kind", "choose")

    def weapon_value(self, card: int, choice: AttackChoice = NO_CHOICE) -> int:
        """The weapon's own value before items: the printed power, or for a "1/6" weapon the value
        ``dagger_value`` gives (the choice's with "choose_kind" and "choose")."""
        if not is_split(card):
            return CARD_WEAPON_POWER[card]
        mode = self.options.dagger_value
        if mode in ("choose_kind", "choose"):
            return choice.value
        if mode == "low":
            return CARD_WEAPON_POWER[card]
        if mode == "high":
            return CARD_WEAPON_HIGH[card]
        # "split": the first number for the ranged Throwing Daggers, the second for the melee Dagger
        return CARD_WEAPON_POWER[card] if CARD_WEAPON_KINDS[card] == RANGED else CARD_WEAPON_HIGH[card]

    def weapon_kinds(self, card: int, choice: AttackChoice = NO_CHOICE) -> int:
        """The weapon's kinds (MELEE | RANGED bits) before the Spear's choice: the printed ones, but with
        dagger_value="choose_kind" a "1/6" weapon used for 1 is a ranged weapon and for 6 a melee one
        ("for a ranged/melee split value": value and kind go together)."""
        if is_split(card) and self.options.dagger_value == "choose_kind":
            return RANGED if choice.value == CARD_WEAPON_POWER[card] else MELEE
        return CARD_WEAPON_KINDS[card]

    # ------------------------------------------------------------ set-up

    def force_starting_item(self, item: int) -> None:
        """The study setting ``starting_item`` (not a rule): copy 0 of item code ``item`` (card
        ``item * COPIES``, wherever it lies) moves to the top of the pile; the other cards keep their
        order. A fixed copy, not the topmost one: then the other 29 cards are in uniformly random order,
        as after a deal whose top card is that item (the topmost copy would leave the other two copies
        deeper than chance; docs/rules/cursed.md). Nothing moves if the card is not in the pile (only a
        hand-built table can lack it)."""
        card = item * COPIES
        if card in self.pile:
            self.pile.remove(card)
            self.pile.append(card)
            self.record("rule", "force_start_item", [card], item=ITEM_SLUGS[item])

    def take_starting_items(self, policy: Policy, policy_rng: rng.Stream) -> None:
        """"Take one card and place it item side up in the items area": the top card of the pile,
        ``starting_items`` times. A Mimic! is fought at once (``starting_mimic="fight"``) or put under
        the pile and the next card taken (``"redraw"``). With the study setting ``starting_item`` set to
        an item, a card of that item is first moved to the top of the pile (``force_starting_item``).
        ``start_item`` notes the item of the first card taken."""
        if self.options.starting_item != "random" and self.options.starting_items > 0:
            self.force_starting_item(ITEM_SLUGS.index(self.options.starting_item))
        for _ in range(self.options.starting_items):
            if not self.pile or self.end is not None:
                return
            card = self.pile.pop()
            if self.options.starting_mimic == "redraw":
                for _ in range(len(self.pile)):
                    if ITEM_OF_CARD[card] != MIMIC:
                        break
                    self.pile.insert(0, card)
                    self.record("rule", "mimic_under", [card])
                    card = self.pile.pop()
            if self.start_item == NO_START_ITEM:
                self.start_item = ITEM_OF_CARD[card]
            self.record("player", "starting_item", [card], item=ITEM_SLUGS[ITEM_OF_CARD[card]])
            self.gain_item(card, policy, policy_rng)

    # ------------------------------------------------------------ a round

    def play_round(self, policy: Policy, policy_rng: rng.Stream) -> None:
        """"Draw a card, this will be the monster you face this round", fight it, and on a capture open
        its chest. With no card to draw the game is lost ("running out of cards to draw is the same as
        running out of life"): checked before the monster is drawn and (``empty_pile_before_chest``)
        before the chest, each time after the items between fights."""
        if not self.pile_check(policy, policy_rng):
            return
        monster = self.draw_monster()
        if self.fight(monster, False, policy, policy_rng) and self.end is None and CARD_CHEST[monster]:
            if self.options.empty_pile_before_chest and not self.pile_check(policy, policy_rng):
                return
            self.open_chest(policy, policy_rng)

    def pile_check(self, policy: Policy, policy_rng: rng.Stream) -> bool:
        """Between fights: the items between fights (``items_between_fights``), then the loss if the
        draw pile is empty. Returns whether the game goes on."""
        if self.options.items_between_fights:
            self.between_fights(policy, policy_rng)
        if not self.pile:
            self.finish(END_PILE_EMPTY)
            return False
        return True

    def between_fights(self, policy: Policy, policy_rng: rng.Stream) -> None:
        """"Use any items at any point during the round", with no monster in play: decision points whose
        legal actions are USE of a held Big Turkey Dinner or Large Backpack (``BETWEEN_FIGHTS_ITEMS``)
        and STOP (done), asked until STOP; the policy is asked only when an item is usable. The items
        used go to the discard pile, in use order, when the window closes."""
        self.between = True
        while True:
            legal = self.legal_actions()
            if len(legal) == 1:
                break
            action = policy.fight(self, legal, policy_rng)
            self.check_action(action, legal)
            self.record_decision(action, legal)
            if action.kind == STOP:
                break
            self.use_item(action.card, action.target)
        self.between = False
        self.discard.extend(self.used)
        self.used = []

    def draw_monster(self) -> int:
        """The top card of the (not empty) pile as this round's monster."""
        self.rounds += 1
        return self.pile.pop()

    # ------------------------------------------------------------ a fight

    def open_fight(self, card: int, is_mimic: bool) -> None:
        """Put ``card`` in the Monster area: its monster side, or a Mimic! at ``mimic_power`` with no
        trait and no chest."""
        self._clear_fight()
        self.monster = card
        self.is_mimic = is_mimic
        if is_mimic:
            self.power = self.options.mimic_power
            self.record("monster", "mimic", [card], power=self.power)
        else:
            self.power = CARD_POWER[card]
            self.trait = CARD_TRAIT[card]
            self.chest = CARD_CHEST[card]
            if self.logging:
                self.record("monster", "monster", [card], power=self.power,
                            trait=TRAIT_NAMES[self.trait] if self.trait != NO_TRAIT else None, chest=bool(self.chest))

    def fight(self, card: int, is_mimic: bool, policy: Policy, policy_rng: rng.Stream) -> bool:
        """Fight ``card``: decision points until the fight closes, then the damage and the capture (or
        the escape). Returns True when the soul was captured."""
        self.open_fight(card, is_mimic)
        close = None
        while close is None:
            legal = self.legal_actions()
            if len(legal) == 1:      # only STOP: nothing to decide, the policy is not asked
                action = legal[0]
            else:
                action = policy.fight(self, legal, policy_rng)
                self.check_action(action, legal)
                self.record_decision(action, legal)
            close = self.apply(action, policy, policy_rng)
        if close == CLOSE_SMOKE:
            self.escape()
            return False
        damage = 0 if close == CLOSE_CAPTURE else self.stop()
        if damage > len(self.pile):
            self.final_monster(damage, close == CLOSE_LOST)
            return False
        self.take_damage(damage)
        if close == CLOSE_LOST:
            self.lose_soul()
            return False
        self.capture()
        return True

    def record_decision(self, action: Action, legal: list[Action]) -> None:
        """The ``decide`` event of a decision point: the policy's action and the open ones."""
        if self.logging:
            self.record("player", "decide", choice=str(action), open=[str(a) for a in legal],
                        between=self.between)

    def legal_actions(self) -> list[Action]:
        """The actions open at a decision point (a fight's, or between fights), in the canonical order (a
        random policy and the kernel index this list): DRAW; PLAY of each stored weapon (ascending card
        id); USE of each item kind usable now in item-code order, the lowest held card of the kind, Large
        Backpack once per discard card as target (ascending card id), Whetstone (armed, then once per
        weapon in play it may be put on, ascending card id); STOP last (between fights: done)."""
        actions = []
        attack_ok = self.can_attack()
        if attack_ok and self.pile:
            actions.append(Action(DRAW))
        if attack_ok and self.stored:
            actions.extend(Action(PLAY, card) for card in sorted(self.stored))
        for item, card in sorted(self.held_items().items()):
            if item == LARGE_BACKPACK:
                if self.item_usable(item):
                    actions.extend(Action(USE, card, target) for target in sorted(self.discard))
                continue
            if self.item_usable(item):
                actions.append(Action(USE, card))
            if item == WHETSTONE:
                actions.extend(Action(USE, card, target) for target in self.whet_targets())
        actions.append(Action(STOP))
        return actions

    def item_usable(self, item: int) -> bool:
        """Whether a held item of code ``item`` may be used (without a target weapon in play) at this
        decision point: a fight's, or between fights (``BETWEEN_FIGHTS_ITEMS``)."""
        if item == LARGE_BACKPACK:
            return bool(self.discard)
        if self.between:
            return item in BETWEEN_FIGHTS_ITEMS
        if item in DECISION_POINT_ITEMS:
            return True
        if self.options.item_timing != "before_draw" or not self.can_attack():
            return False
        if item == WHETSTONE:
            return not self.whetstone_armed
        if item == FRENZY_POTION:
            return self.attacks == 0 and not self.frenzy_armed
        return False

    def whet_targets(self) -> list[int]:
        """``whetstone_in_play``: the weapons in play a held Whetstone may be put on now, ascending: those
        that dealt damage and carry no Whetstone, while the +3 keeps the total within the power (a fight
        decision point only)."""
        if (not self.options.whetstone_in_play or self.between or self.monster < 0 or self.held(WHETSTONE) < 0
                or self.total + WHETSTONE_BONUS > self.power):
            return []
        return sorted(self.whettable)

    def check_action(self, action: Action, legal: list[Action]) -> None:
        """Refuse an action that is not open now (any held copy of an item may be named)."""
        if not isinstance(action, Action):
            raise IllegalDecision(f"a fight decision must be an Action, got {action!r}")
        if action in legal:
            return
        if action.kind == USE and action.card in self.items:
            canonical = Action(USE, self.held(ITEM_OF_CARD[action.card]), action.target)
            if canonical in legal:
                return
        raise IllegalDecision(f"{action} is not open now; open: {', '.join(str(a) for a in legal)}")

    def apply(self, action: Action, policy: Policy, policy_rng: rng.Stream) -> int | None:
        """Carry out a legal action; returns how the fight closes, or None while it stays open."""
        if action.kind == DRAW:
            card = self.pile.pop()
            self.weapons_drawn += 1
            return self.attack(card, False, policy, policy_rng)
        if action.kind == PLAY:
            self.stored.remove(action.card)
            return self.attack(action.card, True, policy, policy_rng)
        if action.kind == USE:
            return self.use_item(action.card, action.target)
        self.record("player", "stop")
        return CLOSE_STOP

    # ------------------------------------------------------------ items at a decision point

    def spend(self, card: int) -> int:
        """Move held item ``card`` to the fight's used items; returns its item code."""
        self.items.remove(card)
        self.used.append(card)
        item = ITEM_OF_CARD[card]
        self.used_count[item] += 1
        return item

    def use_item(self, card: int, target: int = -1) -> int | None:
        """Use a held item at a decision point (a fight's, or between fights); returns how the fight
        closes, or None."""
        item = self.spend(card)
        close = packet = None
        if item == SCROLL_OF_PURGE_LIFE:
            # "Instantly kill a monster when used, ignoring any monster traits" (the printed card: captures the soul)
            close = CLOSE_CAPTURE
        elif item == SMOKE_BOMB:
            close = CLOSE_SMOKE
        elif item == SHIELD:
            self.blocked += SHIELD_BLOCK
        elif item == BIG_TURKEY_DINNER:
            packet = self.eat_turkey()
        elif item == LARGE_BACKPACK:
            # "Take a weapon card from the discard pile and keep it with your items"
            self.discard.remove(target)
            self.stored.append(target)
        elif item == WHETSTONE and target >= 0:
            # whetstone_in_play: "+3 damage to a single weapon" already in play
            self.whettable.remove(target)
            self.total += WHETSTONE_BONUS
            if self.total == self.power:
                close = CLOSE_CAPTURE
        elif item == WHETSTONE:
            self.whetstone_armed = True
        elif item == FRENZY_POTION:
            self.frenzy_armed = True
        if self.logging:
            self.record("player", "use", [card] if target < 0 else [card, target], item=ITEM_SLUGS[item],
                        target=target if target >= 0 else None, between=self.between,
                        blocked=self.blocked if item == SHIELD else None, packet=packet)
            if item == WHETSTONE and close == CLOSE_CAPTURE:
                self.record("rule", "whetstone_capture")
        return close

    def eat_turkey(self) -> list[int]:
        """"Shuffle discard pile, take 3 cards, place them at the bottom of your draw pile": the discard
        pile is shuffled, its top ``k = min(turkey_cards, len)`` cards go, as a packet in their order,
        under the pile (pile = discard[-k:] + pile). Returns the packet."""
        self.shuffle(self.discard)
        k = min(self.options.turkey_cards, len(self.discard))
        packet = self.discard[len(self.discard) - k:]
        del self.discard[len(self.discard) - k:]
        self.pile[0:0] = packet
        return packet

    # ------------------------------------------------------------ an attack

    def attack_options(self, card: int) -> AttackOptions:
        """What is open when ``card`` attacks."""
        options = self.options
        after_reveal = options.item_timing == "after_reveal"
        held = {ITEM_OF_CARD[c] for c in self.items}
        return AttackOptions(
            value=self.value_chosen(card),
            kind=options.spear_kind == "choose" and CARD_WEAPON_KINDS[card] == MELEE | RANGED,
            relic=BEWITCHING_RELIC in held,
            whetstone=after_reveal and WHETSTONE in held,
            frenzy=after_reveal and self.attacks == 0 and FRENZY_POTION in held,
        )

    def check_attack_choice(self, card: int, choice: AttackChoice, open_: AttackOptions) -> None:
        if not isinstance(choice, AttackChoice):
            raise IllegalDecision(f"an attack needs an AttackChoice, got {choice!r}")
        if open_.value and choice.value not in (CARD_WEAPON_POWER[card], CARD_WEAPON_HIGH[card]):
            raise IllegalDecision(f"#{card} {weapon_text(card)} attacks for 1 or 6, not {choice.value!r}")
        if open_.kind and choice.kind not in (MELEE, RANGED):
            raise IllegalDecision(f"#{card} {weapon_text(card)} attacks as melee ({MELEE}) or ranged ({RANGED}),"
                                  f" not {choice.kind!r}")
        for name in ("relic", "whetstone", "frenzy"):
            if getattr(choice, name) and not getattr(open_, name):
                raise IllegalDecision(f"#{card}: {name} is not open at this attack")

    def trait_cancels(self, kinds: int, parity_value: int) -> bool:
        """Whether the trait's "first ..." condition fits this attack (``trait_cancels``)."""
        return trait_cancels(self.trait, kinds, parity_value)

    def attack(self, card: int, from_backpack: bool, policy: Policy, policy_rng: rng.Stream) -> int | None:
        """``card`` attacks the monster (drawn from the pile, or from the Large Backpack).

        1. Attack choices (asked only when something is open): the 1/6 value, the Spear's kind, the
           Relic, Whetstone and Frenzy Potion (after_reveal timing); an armed Whetstone/Frenzy applies.
        2. Value = base (printed, 1/6 value, or the card's monster power with the Relic), + 3 with a
           Whetstone, x 2 with a Frenzy Potion. The Relic and the Frenzy Potion ignore traits.
        3. Trait: unless ignored, the trait's first qualifying attack deals 0 (and spends the trait).
        4. Over the power: captured if the overshoot rule covers this attack; else a held Soul Crystal
           may capture (asked when the value *ignoring traits* goes over); else a bust: the weapon is
           discarded. Otherwise the attack lands; Explodes then allows no further attack; a total equal
           to the power captures.
        """
        open_ = self.attack_options(card)
        choice = policy.attack(self, card, open_, policy_rng) if open_.any() else NO_CHOICE
        self.check_attack_choice(card, choice, open_)
        first_capture = self.overshoot_captures()
        self.attacks += 1
        relic = bool(choice.relic)
        whetstone = bool(choice.whetstone or self.whetstone_armed)
        frenzy = bool(choice.frenzy or self.frenzy_armed)
        spent = []
        for item in spent_items(choice):
            spent.append(self.held(item))
            self.spend(spent[-1])
        self.whetstone_armed = self.frenzy_armed = False
        base = CARD_POWER[card] if relic else self.weapon_value(card, choice)
        kinds = choice.kind if open_.kind else self.weapon_kinds(card, choice)
        value = base + (WHETSTONE_BONUS if whetstone else 0)
        if frenzy:
            value *= FRENZY_FACTOR
        ignores = relic or frenzy
        self.trait_spent, cancelled = trait_after(self.options, self.trait, self.trait_spent, base, kinds,
                                                  whetstone, ignores)
        effective = 0 if cancelled else value
        new_total = self.total + effective
        facts = None
        if self.logging:
            facts = {"open": [name for name in AttackOptions._fields if getattr(open_, name)], "base": int(base),
                     "kind": KIND_NAMES[kinds],
                     "kind_follows_value": is_split(card) and self.options.dagger_value == "choose_kind",
                     "relic": relic, "whetstone": whetstone, "frenzy": frenzy, "spent": spent,
                     "cancelled_by": TRAIT_NAMES[self.trait] if cancelled else None, "value": int(effective)}
        if new_total > self.power and first_capture:
            self.weapons.append(card)
            self._record_attack(card, from_backpack, facts, "overshoot_capture", new_total)
            return CLOSE_CAPTURE
        raw_total = self.total + value  # ignoring traits
        crystal_offered = raw_total > self.power and self.held(SOUL_CRYSTAL) >= 0
        if crystal_offered and policy.crystal(self, card, raw_total, policy_rng):
            crystal = self.held(SOUL_CRYSTAL)
            self.spend(crystal)
            self.weapons.append(card)
            self._record_attack(card, from_backpack, facts, "crystal_capture", raw_total, True, crystal)
            return CLOSE_CAPTURE
        if new_total > self.power:
            # "Drawing a weapon that takes you over the monster's power is discarded."
            self.discard.append(card)
            self.busts += 1
            if self.options.bust == "soul_lost":
                self._record_attack(card, from_backpack, facts, "soul_lost", new_total, crystal_offered)
                return CLOSE_LOST
            self._record_attack(card, from_backpack, facts, "bust", new_total, crystal_offered)
            return None
        self.weapons.append(card)
        self.total = new_total
        if not cancelled and not whetstone:
            self.whettable.append(card)
        if self.trait == EXPLODES and (not ignores or self.options.ignoring_attack_spends_trait):
            self.trait_spent = True
        if self.total == self.power:
            self._record_attack(card, from_backpack, facts, "capture", new_total, crystal_offered)
            return CLOSE_CAPTURE
        self._record_attack(card, from_backpack, facts, "landed", new_total, crystal_offered)
        return None

    def _record_attack(self, card: int, from_backpack: bool, facts: dict | None, result: str, total: int,
                       crystal_offered: bool = False, crystal: int = -1) -> None:
        """The ``draw`` or ``play`` event of an attack: ``facts`` (how it was made), its ``result``
        (``turnlog.ATTACK_RESULTS``) and the total it made."""
        if self.logging:
            cards = [card, *facts["spent"], *([crystal] if crystal >= 0 else [])]
            self.record("player", "play" if from_backpack else "draw", cards, **facts, total=int(total),
                        result=result, crystal_offered=crystal_offered, crystal=crystal if crystal >= 0 else None)

    # ------------------------------------------------------------ closing a fight

    def stop(self) -> int:
        """"The difference in total power when you decide to stop pulling weapons is how much damage
        you take", less what Shields block. Returns the damage."""
        damage = self.damage_due
        if self.blocked and self.gap > 0:
            self.record("rule", "block", gap=self.gap, blocked=min(self.blocked, self.gap), damage=damage)
        return damage

    def take_damage(self, damage: int) -> None:
        """"Discard from the draw pile for each damage taken": ``damage`` cards from the top (option
        ``damage_from``) to the discard pile, one at a time."""
        if damage <= 0:
            return
        moved = []
        for _ in range(damage):
            card = self.pile.pop() if self.options.damage_from == "top" else self.pile.pop(0)
            self.discard.append(card)
            moved.append(card)
        self.damage_taken += damage
        self.record("rule", "damage", moved, damage=damage)

    def capture(self) -> None:
        """"Capture the monster's soul by putting the captured monster into the captured souls pile and
        put any items and weapons used into the discard pile": the monster to the souls (a Mimic! to the
        discard pile with ``mimic_soul=False``), then the used items in use order, then the weapons in
        attack order, to the discard pile. The winning soul ends the game (unless ``play_on_after_win``)."""
        monster, to_discard = self.monster, self.is_mimic and not self.options.mimic_soul
        (self.discard if to_discard else self.souls).append(monster)
        self.discard.extend(self.used)
        self.discard.extend(self.weapons)
        self._clear_fight()
        self.record("rule", "capture", [monster], to="discard" if to_discard else "souls")
        if self.souls_count >= self.options.win_souls and not self.options.play_on_after_win:
            self.finish(END_EIGHT_SOULS)

    def escape(self) -> None:
        """Smoke Bomb: "Place all cards in the current encounter into the draw deck and shuffle": the
        monster, then the weapons in attack order (then, with ``smoke_bomb_returns_items``, the used
        items in use order) go on the pile, which is shuffled; otherwise the used items (the Smoke Bomb
        among them) go to the discard pile. No soul, no damage."""
        returned = [self.monster, *self.weapons]
        if self.options.smoke_bomb_returns_items:
            returned += self.used
        else:
            self.discard.extend(self.used)
        self.pile.extend(returned)
        self.shuffle(self.pile)
        self._clear_fight()
        self.record("rule", "escape", returned)

    def lose_soul(self) -> None:
        """``bust="soul_lost"``: "you cannot deal more damage than the monster has, or the soul is lost":
        the monster, then the used items in use order, then the weapons in attack order, to the discard
        pile."""
        monster = self.monster
        self.discard.append(monster)
        self.discard.extend(self.used)
        self.discard.extend(self.weapons)
        self._clear_fight()
        self.record("rule", "soul_lost", [monster])

    def final_monster(self, damage: int, lost: bool = False) -> None:
        """"On the final monster, if the damage is more than the cards left in the draw pile, its soul
        is not captured and the game ends." With ``final_monster_captures`` the whole pile is discarded
        and the soul captured before the game ends (not after a bust that lost the soul)."""
        self.record("rule", "final_monster", damage=damage)
        if self.options.final_monster_captures and not lost:
            self.take_damage(len(self.pile))
            self.capture()
        if self.end is None:
            self.finish(END_FINAL_MONSTER)

    # ------------------------------------------------------------ chests and items gained

    def open_chest(self, policy: Policy, policy_rng: rng.Stream) -> None:
        """"If the monster guarded an item chest you gain an item": the discard pile is shuffled and its
        top card taken (``chest_loot="discard"``), or the top card of the draw pile is taken
        (``"draw_pile"``); nothing when that pile is empty."""
        source = self.options.chest_loot
        cards = self.discard if source == "discard" else self.pile
        if not cards:
            self.record("rule", "chest", source=source, loot=None)
            return
        if source == "discard":
            self.shuffle(cards)
        card = cards.pop()
        self.record("rule", "chest", [card], source=source, loot=card)
        self.gain_item(card, policy, policy_rng)

    def gain_item(self, card: int, policy: Policy, policy_rng: rng.Stream) -> None:
        """A card taken item side up joins the items, except a Mimic!: "When drawn as an item, immediately
        treat the Mimic as a monster with a power of 4" (no trait, no chest)."""
        if ITEM_OF_CARD[card] != MIMIC:
            self.items.append(card)
            return
        self.used_count[MIMIC] += 1
        self.fight(card, True, policy, policy_rng)

    # ------------------------------------------------------------ the game

    def finish(self, end: int) -> None:
        """The game ends (``rules.END_*``): won with at least ``win_souls`` souls, else lost."""
        self.end = end
        self.record("rule", "win" if self.won else "loss", end=END_NAMES[end])

    @property
    def won(self) -> bool:
        return self.souls_count >= self.options.win_souls

    def play_game(self, policy: Policy, policy_rng: rng.Stream) -> int:
        """Play rounds from the current position to the end; returns the end code (``rules.END_*``)."""
        while self.end is None:
            self.play_round(policy, policy_rng)
        return self.end

    def all_cards(self) -> list[int]:
        """Every card in some zone, sorted (a finished or running game holds each of the 30 once)."""
        cards = [*self.pile, *self.discard, *self.souls, *self.items, *self.stored, *self.weapons, *self.used]
        if self.monster >= 0:
            cards.append(self.monster)
        return sorted(cards)

    def outcome(self) -> Outcome:
        """The finished game as an :class:`Outcome`."""
        if self.end is None:
            raise RuntimeError("the game is not over")
        used = {f"used_{slug}": self.used_count[item] for item, slug in enumerate(ITEM_SLUGS)}
        return Outcome(win=self.won, souls=self.souls_count, rounds=self.rounds, damage_taken=self.damage_taken,
                       cards_left=len(self.pile), end=self.end, start_item=self.start_item,
                       weapons_drawn=self.weapons_drawn,
                       busts=self.busts, **used, log=tuple(self.log), events=tuple(self.events))


# ---------------------------------------------------------------- public entry points

def play(seed: int, index: int, options: RuleOptions, policy: Policy, *, log: bool = False,
         label: str | None = None) -> Outcome:
    """Play game ``index`` of a run with ``seed`` to the end: shuffle, starting items, rounds. With
    ``log=True`` the outcome carries the events and the turn log (``label`` names the policy there, by
    default ``events.policy_label``)."""
    table = Table.deal(seed, index, options, log=log, label=label or policy_label(policy))
    policy_rng = rng.Stream(seed, index, rng.STREAM_POLICY)
    table.take_starting_items(policy, policy_rng)
    table.play_game(policy, policy_rng)
    return table.outcome()


def replay_events(seed: int, index: int, options: RuleOptions, policy: Policy, label: str | None = None) -> list[dict]:
    """The events of game ``index`` of a run with ``seed`` (``turnlog.EVENTS``), in order."""
    return list(play(seed, index, options, policy, log=True, label=label).events)


def replay_log(seed: int, index: int, options: RuleOptions, policy: Policy, label: str | None = None) -> str:
    """The readable turn log of game ``index`` of a run with ``seed``: a header, then one line per event
    (rendered from the events)."""
    return turnlog.text(replay_events(seed, index, options, policy, label))


def play_chunk(seed: int, start: int, count: int, options: RuleOptions, policy: Policy):
    """Games ``start .. start+count-1`` of the run ``seed`` on the reference engine, as outcome arrays by
    column (the kernel's format, ``rules.OUTCOME_DTYPES``)."""
    import numpy as np

    outcomes = [play(seed, start + i, options, policy) for i in range(count)]
    return {column: np.array([getattr(o, column) for o in outcomes], dtype=dtype)
            for column, dtype in OUTCOME_DTYPES.items()}
