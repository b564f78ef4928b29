"""Adding your own Verflucht! policy: fast as numba functions in the kernel, or any Python on the
reference engine. Both become policy names that ``simulate``, ``replay`` and the CLI accept.

Numba (fast; same signatures as ``decide_attack``/``decide_banish`` in policies.py)::

    from numba import njit
    from cursedsim.games.verflucht import policies as pol
    from cursedsim.games.verflucht.user_policies import add_numba_policy

    @njit
    def attack(policy_id, params, rng, hands, n_players, active, display, attackers, is_group,
               seal_allowed, seals_left, deck_left, gone_creatures, gone_items):
        return pol.baseline_attack(hands, n_players, active, attackers, is_group, seal_allowed, rng)

    @njit
    def never_banish(policy_id, params, rng, hand, n_players, player, display, seals_left,
                     deck_left, gone_creatures, gone_items, last_turn):
        return 0, pol.ZERO, rng            # never banish voluntarily

    add_numba_policy("lazy", attack, never_banish, doc="baseline's attack answers, never banishes")
    cursedsim.simulate("verflucht", 100_000, players=3, policy="lazy")

Python (slow, any logic; see ``reference_policies.Policy``)::

    add_python_policy("mine", lambda params: MyPolicy(), doc="...")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cursedsim.errors import UnknownPolicyError
from cursedsim.games.base import PolicySpec
from cursedsim.games.verflucht import kernel
from cursedsim.games.verflucht.policies import POLICIES
from cursedsim.kernel_rebuild import merged

#: Policy id handed to a user's numba functions (they may ignore it).
USER_POLICY_ID = 0

#: Kernels built in this process, by (decide_attack, decide_banish, inline). A worker unpickles the policy anew
#: with every chunk, but numba hands back the same function objects (it memoizes them by uuid), so the
#: kernel is compiled once per process, not once per chunk.
_BUILT: dict[tuple, Any] = {}


@dataclass
class NumbaPolicy:
    """A user's numba decision functions and, once built in this process, the kernel that calls them.
    Pickles without the compiled kernel, so every worker process builds its own (once: ``_BUILT``)."""

    decide_attack: Any
    decide_banish: Any
    inline: bool = True
    _play: Any = field(default=None, repr=False)

    def play_chunk(self):
        """The compiled chunk player for these functions (built on first use in each process)."""
        if self._play is None:
            key = (self.decide_attack, self.decide_banish, self.inline)
            if key not in _BUILT:
                functions = map(merged, key[:2]) if self.inline else key[:2]
                _BUILT[key] = kernel.build_play_chunk(*functions)
            self._play = _BUILT[key]
        return self._play

    def __getstate__(self):
        return {"decide_attack": self.decide_attack, "decide_banish": self.decide_banish, "inline": self.inline,
                "_play": None}


def _register(spec: PolicySpec) -> PolicySpec:
    if spec.name in POLICIES and POLICIES[spec.name].impl is None:
        raise UnknownPolicyError(f"policy name {spec.name!r} is a built-in policy; choose another name "
                                 f"(built-in: {', '.join(n for n, p in POLICIES.items() if p.impl is None)})")
    POLICIES[spec.name] = spec
    return spec


def add_numba_policy(name: str, decide_attack, decide_banish, *, params: Mapping[str, float] | None = None,
                     param_docs: Mapping[str, str] | None = None, doc: str = "", inline: bool = True) -> PolicySpec:
    """Register numba functions as policy ``name`` (replacing an earlier user policy of that name).
    ``inline=True`` merges them into the game loop as the built-in policies' are (same speed; a longer
    first compile, once per process); ``inline=False`` calls them."""
    return _register(PolicySpec(name, USER_POLICY_ID, doc or f"user policy {name}", dict(params or {}),
                                dict(param_docs or {}), engine="kernel",
                                impl=NumbaPolicy(decide_attack, decide_banish, bool(inline))))


def add_python_policy(name: str, factory: Callable[[Any], Any], *, params: Mapping[str, float] | None = None,
                      param_docs: Mapping[str, str] | None = None, doc: str = "") -> PolicySpec:
    """Register ``factory(params) -> policy object`` (see reference_policies.Policy) as policy ``name``,
    played by the reference engine."""
    return _register(PolicySpec(name, USER_POLICY_ID, doc or f"user policy {name}", dict(params or {}),
                                dict(param_docs or {}), engine="python", impl=factory))
