"""Adding your own Cursed!? policy: fast as numba functions in the kernel, or any Python on the
reference engine. Both become policy names that ``simulate``, ``replay``, ``compare`` and the CLI (from
Python) accept. docs/extending.md has a worked example of each (run by the tests).

Numba (fast): the three decisions with the signatures of ``decide_fight``, ``decide_attack`` and
``decide_crystal`` in policies.py, whose docstring documents the answers; a copy of ``threshold``'s is
the easiest start::

    @njit
    def fight(policy_id, params, rng, view, opts):
        kind, card, target = pol.item_rules_fight(view, opts, params, True, False)
        return kind, card, target, rng

    @njit
    def attack(policy_id, params, rng, view, opts, card, open_):
        value, kind = pol.threshold_value_kind(view, opts, card, open_)
        value, kind, relic, whetstone, frenzy = pol.item_rules_attack(view, opts, card, open_, value, kind)
        return value, kind, relic, whetstone, frenzy, rng

    @njit
    def crystal(policy_id, params, rng, view, opts, card, total):
        return True, rng

    add_numba_policy("mine", fight, attack, crystal, params=pol.THRESHOLD_PARAMS)

The kernel built around them (``kernel.build_play_chunk``) checks every decision, as for a built-in
policy; ``KernelPolicy`` plays the same functions on the reference engine (``replay``).

Python (slow, any logic; see ``reference_policies.Policy``)::

    add_python_policy("mine", lambda params: MyPolicy(), doc="...")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cursedsim.errors import UnknownPolicyError
from cursedsim.games.base import PolicySpec
from cursedsim.games.cursed import kernel, policies
from cursedsim.games.cursed.policies import MAX_PARAMS, POLICIES
from cursedsim.games.cursed.reference import (
    DRAW,
    PLAY,
    STOP,
    USE,
    Action,
    AttackChoice,
    AttackOptions,
)
from cursedsim.games.cursed.rules import N_UNIQUE
from cursedsim.games.cursed.state import (
    ARMED_FRENZY,
    ARMED_WHETSTONE,
    OPEN_FRENZY,
    OPEN_KIND,
    OPEN_RELIC,
    OPEN_VALUE,
    OPEN_WHETSTONE,
    option_tuple,
)
from cursedsim.kernel_rebuild import merged
from cursedsim.rng import Stream

if TYPE_CHECKING:
    from cursedsim.games.cursed.reference import Table

#: Policy id handed to a user's numba functions (no built-in policy's: they may ignore it).
USER_POLICY_ID = -1


#: Kernels built in this process, by (decide_fight, decide_attack, decide_crystal, sees_pile, inline). A worker
#: unpickles the policy anew with every chunk, but numba hands back the same function objects (it
#: memoizes them by uuid), so the kernel is compiled once per process, not once per chunk.
_BUILT: dict[tuple, Any] = {}


@dataclass
class NumbaPolicy:
    """A user's numba decision functions and, once built in this process, the kernel that calls them.
    Pickles without the compiled kernel, so every worker process builds its own (once: ``_BUILT``)."""

    decide_fight: Any
    decide_attack: Any
    decide_crystal: Any
    sees_pile: bool = False
    inline: bool = True
    _play: Any = field(default=None, repr=False)

    def play_chunk(self):
        """The compiled chunk player for these functions (built on first use in each process)."""
        if self._play is None:
            key = (self.decide_fight, self.decide_attack, self.decide_crystal, self.sees_pile, self.inline)
            if key not in _BUILT:
                functions = map(merged, key[:3]) if self.inline else key[:3]
                _BUILT[key] = kernel.build_play_chunk(*functions, self.sees_pile)
            self._play = _BUILT[key]
        return self._play

    def __getstate__(self):
        return {"decide_fight": self.decide_fight, "decide_attack": self.decide_attack,
                "decide_crystal": self.decide_crystal, "sees_pile": self.sees_pile, "inline": self.inline,
                "_play": None}


def _register(spec: PolicySpec) -> PolicySpec:
    if spec.name in POLICIES and POLICIES[spec.name].impl is None:
        raise UnknownPolicyError(f"policy name {spec.name!r} is a built-in policy; choose another name "
                                 f"(built-in: {', '.join(n for n, p in POLICIES.items() if p.impl is None)})")
    if len(spec.params) > MAX_PARAMS:
        raise UnknownPolicyError(f"policy {spec.name!r}: at most {MAX_PARAMS} parameters, got "
                                 f"{len(spec.params)} ({', '.join(spec.params)})")
    POLICIES[spec.name] = spec
    return spec


def add_numba_policy(name: str, decide_fight, decide_attack, decide_crystal, *,
                     params: Mapping[str, float] | None = None, param_docs: Mapping[str, str] | None = None,
                     doc: str = "", sees_pile: bool = False, inline: bool = True) -> PolicySpec:
    """Register numba functions as policy ``name`` (replacing an earlier user policy of that name).

    ``decide_fight(policy_id, params, rng, view, opts) -> (kind, card, target, rng)``,
    ``decide_attack(policy_id, params, rng, view, opts, card, open_) -> (value, kind, relic, whetstone,
    frenzy, rng)`` and ``decide_crystal(policy_id, params, rng, view, opts, card, total) -> (spend, rng)``:
    the signatures of ``policies.decide_*``. ``params`` (at most ``MAX_PARAMS`` names, in slot order;
    the functions get them as a float tuple) and ``param_docs`` as for a built-in policy: functions that
    call threshold's item rules read threshold's slots (``params=policies.THRESHOLD_PARAMS``).
    ``sees_pile=False`` leaves ``view[V_PILE_CARDS]`` (the draw pile's contents) at 0, which saves a pass
    over the pile at every decision, for functions that do not read it. ``inline=True`` merges the
    functions into the game loop as the built-in policies' are (same speed; a longer first compile, once
    per process); ``inline=False`` calls them (the view copied into each call: slower games)."""
    impl = NumbaPolicy(decide_fight, decide_attack, decide_crystal, bool(sees_pile), bool(inline))
    return _register(PolicySpec(name, USER_POLICY_ID, doc or f"user policy {name}", dict(params or {}),
                                dict(param_docs or {}), engine="kernel", impl=impl))


def add_python_policy(name: str, factory: Callable[[Any], Any], *, params: Mapping[str, float] | None = None,
                      param_docs: Mapping[str, str] | None = None, doc: str = "") -> PolicySpec:
    """Register ``factory(params) -> policy object`` (see ``reference_policies.Policy``; ``params`` is the
    parameter vector, in the order of ``params``) as policy ``name``, played by the reference engine."""
    return _register(PolicySpec(name, USER_POLICY_ID, doc or f"user policy {name}", dict(params or {}),
                                dict(param_docs or {}), engine="python", impl=factory))


# ---------------------------------------------------------------- numba policies on the reference engine

def _mask(cards) -> np.uint64:
    bits = 0
    for card in cards:
        bits |= 1 << card
    return np.uint64(bits)


def _open_bits(open_: AttackOptions) -> int:
    return ((OPEN_VALUE if open_.value else 0) | (OPEN_KIND if open_.kind else 0) | (OPEN_RELIC if open_.relic else 0)
            | (OPEN_WHETSTONE if open_.whetstone else 0) | (OPEN_FRENZY if open_.frenzy else 0))


class KernelPolicy:
    """Plays numba policy ``policy_id`` of policies.py (with parameter vector ``params``), or a user's
    numba ``decide_fight``/``decide_attack``/``decide_crystal``, on the reference engine: ``replay`` of a
    user's numba policy, and a check that the kernel hands policies the position the reference holds.

    Each question becomes the kernel's call: the ``view`` tuple built from the table as the kernel
    builds it (``usable`` only at a fight decision point, the pile's contents only when ``sees_pile``),
    the option tuple, the parameters as a float tuple and the policy stream as a state tuple, which the
    function returns advanced and which is written back into ``rng``. The answers go to the reference's
    checks unchanged (but the card of a DRAW and the target of a DRAW or PLAY, which the kernel ignores).
    """

    def __init__(self, policy_id: int, params, decide_fight=None, decide_attack=None, decide_crystal=None,
                 sees_pile: bool | None = None):
        self.policy_id = int(policy_id)
        self.params = policies.params_tuple(params)
        self.decide_fight = decide_fight or policies.decide_fight
        self.decide_attack = decide_attack or policies.decide_attack
        self.decide_crystal = decide_crystal or policies.decide_crystal
        self.sees_pile = bool(policies.sees_pile(self.policy_id) if sees_pile is None else sees_pile)
        self.label = f"KernelPolicy({self.policy_id})"
        self._options = self._opts = None

    def _options_tuple(self, table: Table) -> tuple:
        if table.options is not self._options:
            self._options, self._opts = table.options, option_tuple(table.options)
        return self._opts

    def view(self, table: Table, at_decision_point: bool) -> tuple:
        """The kernel's ``view`` of this position (``state.V_*``)."""
        usable = 0
        targets = []
        if at_decision_point:
            for item in range(N_UNIQUE):
                if table.held(item) >= 0 and table.item_usable(item):
                    usable |= 1 << (3 * item)
            targets = table.whet_targets()
        armed = (ARMED_WHETSTONE if table.whetstone_armed else 0) | (ARMED_FRENZY if table.frenzy_armed else 0)
        return (table.power, table.trait, table.total, table.attacks, table.blocked, len(table.pile),
                len(table.discard), len(table.souls), int(table.is_mimic), int(table.can_attack()),
                int(table.trait_spent), armed, _mask(table.items), _mask(table.stored), _mask(table.discard),
                np.uint64(usable), _mask(table.pile) if self.sees_pile else np.uint64(0), int(table.between),
                _mask(targets))

    def _call(self, function, table: Table, rng: Stream, at_decision_point: bool, *extra):
        *answer, state = function(self.policy_id, self.params, tuple(np.uint64(w) for w in rng.s),
                                  self.view(table, at_decision_point), self._options_tuple(table), *extra)
        rng.s = [int(w) for w in state]
        return answer

    def fight(self, table: Table, legal: list[Action], rng: Stream) -> Action:
        kind, card, target = (int(v) for v in self._call(self.decide_fight, table, rng, True))
        if kind == DRAW:
            return Action(DRAW)
        if kind == PLAY:
            return Action(PLAY, card)
        if kind == USE:
            return Action(USE, card, target)
        return Action(STOP) if kind == STOP else Action(kind, card, target)

    def attack(self, table: Table, card: int, open_: AttackOptions, rng: Stream) -> AttackChoice:
        value, kind, relic, whetstone, frenzy = self._call(self.decide_attack, table, rng, False, card,
                                                           _open_bits(open_))
        return AttackChoice(int(value), int(kind), bool(relic), bool(whetstone), bool(frenzy))

    def crystal(self, table: Table, card: int, total: int, rng: Stream) -> bool:
        (spend,) = self._call(self.decide_crystal, table, rng, False, card, total)
        return bool(spend)


def kernel_policy(spec: PolicySpec, params) -> KernelPolicy:
    """The reference engine's player of a numba policy: a user's (``spec.impl``) or a built-in's."""
    impl = spec.impl
    if impl is None:
        return KernelPolicy(spec.policy_id, params)
    return KernelPolicy(spec.policy_id, params, impl.decide_fight, impl.decide_attack, impl.decide_crystal,
                        impl.sees_pile)


__all__ = [
    "USER_POLICY_ID",
    "KernelPolicy",
    "NumbaPolicy",
    "add_numba_policy",
    "add_python_policy",
    "kernel_policy",
]
