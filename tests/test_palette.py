"""One colour per policy everywhere: fixed for built-ins, stable for any other name."""

from __future__ import annotations

import json
import subprocess
import sys

from cursedsim.palette import POLICY_COLORS, SPARE_COLORS, policy_color


#: Every game's policies as a new process registers them: the built-ins only (a test in this worker may
#: have registered a user's policy on a game).
BUILT_INS = ("import json; from cursedsim.games import get_game, list_games; "
             "print(json.dumps({name: list(get_game(name).policies) for name in list_games()}))")


def test_every_built_in_policy_has_its_own_colour_within_its_game():
    out = subprocess.run([sys.executable, "-c", BUILT_INS], capture_output=True, text=True, check=True)
    for name, policies in json.loads(out.stdout.splitlines()[-1]).items():
        colours = [policy_color(policy) for policy in policies]
        assert all(policy in POLICY_COLORS for policy in policies), name
        assert len(set(colours)) == len(colours), (name, colours)


def test_labels_tuned_variants_and_unknown_names():
    assert policy_color("smart:slack=3") == policy_color("smart")
    assert policy_color("smart (tuned)") not in (policy_color("smart"), policy_color("baseline"))
    assert policy_color("mine") in SPARE_COLORS and policy_color("mine") == policy_color("mine:k=2")
    # the same colour in another process (no per-process hash seed)
    out = subprocess.run([sys.executable, "-c", "from cursedsim.palette import policy_color; "
                          "print(policy_color('mine'))"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == policy_color("mine")
