"""Golden fingerprints: every preset of tests/golden/fingerprints.json still plays the games it played when
committed, digest for digest, so a change meant to keep behaviour (kernel speed, compile time, cache
keys) is checked against every game, its kernel policies, player counts and rule options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cursedsim.fingerprint import FINGERPRINT_VERSION, fingerprint, kernel_policies
from cursedsim.games import get_game, list_games

GOLDEN = Path(__file__).resolve().parent / "golden" / "fingerprints.json"
DOCUMENT = json.loads(GOLDEN.read_text())
PRESETS = DOCUMENT["presets"]
REGENERATE = ("python tests/golden/regenerate.py (only in a commit that intends to change behaviour; say so in "
              "its message: docs/architecture.md, 'fingerprint')")


def test_the_file_is_of_this_fingerprint_version():
    assert DOCUMENT["version"] == FINGERPRINT_VERSION, f"fingerprint version moved; regenerate: {REGENERATE}"


def test_every_game_and_kernel_policy_has_presets():
    """A new game or a new built-in kernel policy is not left out of the golden presets."""
    for name in list_games():
        game = get_game(name)
        presets = [p for p in PRESETS if p["game"] == name]
        assert presets, f"no golden preset of {name}; add it with {REGENERATE}"
        for side in game.side_names or (None,):
            played = {p["policy"] if side is None else p["policy"][side] for p in presets}
            missing = set(kernel_policies(game, side)) - played
            assert not missing, (f"{name}{'' if side is None else ' ' + side}: no golden preset plays "
                                 f"{', '.join(sorted(missing))}; add it with {REGENERATE}")


@pytest.mark.parametrize("preset", PRESETS, ids=[p["id"] for p in PRESETS])
def test_golden_fingerprint(preset):
    actual = fingerprint(preset["game"], preset["n_games"], players=preset["players"], policy=preset["policy"],
                         options=preset["options"], params=preset.get("params"), seed=preset["seed"])
    assert actual == preset["digest"], (
        f"golden preset {preset['id']} ({preset['n_games']} games, seed {preset['seed']}) plays differently: "
        f"digest {actual}, golden {preset['digest']}. If the change is meant to change behaviour, regenerate "
        f"with {REGENERATE}; otherwise it broke {preset['game']}.")
