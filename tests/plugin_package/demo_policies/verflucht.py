"""Entry point ``wide = demo_policies.verflucht`` (a module: importing it registers the policy).

``wide``: Verflucht!'s readable baseline with its voluntary-banishing margin as parameter ``margin``;
at margin 3 it is ``baseline`` itself."""

from cursedsim.games.verflucht.reference_policies import BaselinePolicy
from cursedsim.games.verflucht.user_policies import add_python_policy


class WideBaseline(BaselinePolicy):
    """baseline, banishing voluntarily when a single item beats a Creature by at most ``margin``."""

    def __init__(self, margin: float):
        self.VOLUNTARY_MARGIN = int(margin)


add_python_policy("wide", lambda params: WideBaseline(params[0]), params={"margin": 3},
                  param_docs={"margin": "voluntary banishing: an item beats a Creature by at most this"},
                  doc="baseline with its voluntary-banishing margin as a parameter (a plugin's policy)")
