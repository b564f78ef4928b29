"""Entry point ``careful = demo_policies.cursed:register`` (a function called once the module is
imported).

``careful``: Cursed!?'s readable threshold policy with its stop rule ``k`` as the only parameter; at
k=2 it is ``threshold`` itself."""

from cursedsim.games.cursed.reference_policies import ThresholdPolicy
from cursedsim.games.cursed.user_policies import add_python_policy


def register():
    """Register ``careful``."""
    add_python_policy("careful", lambda params: ThresholdPolicy(k=float(params[0])), params={"k": 2},
                      param_docs={"k": "stop drawing when the gap to the monster's power is at most k"},
                      doc="threshold's readable twin, stop rule k only (a plugin's policy)")
