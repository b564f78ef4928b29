"""ISMCTS and the step API inside the runner (cursedsim/search/policy.py, cursedsim/step/play.py): a chunk
played through the step API with built-in policies is the kernel's chunk row for row; a search policy's
results do not depend on jobs or chunking; its games replay; bad parameters are clear errors."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

import cursedsim
from cursedsim.errors import UnknownPolicyError
from cursedsim.runner import policy_specs, resolve_game, resolve_policy
from cursedsim.games import get_game, list_games
from cursedsim.search.play import play_chunk

#: Each game's step API, as its Game record names it.
STEP_MODULES = {g: get_game(g).step_module for g in list_games()}
GAMES = [g for g, module in STEP_MODULES.items() if module is not None and importlib.util.find_spec(module) is not None]

#: Per game: (players, policy) runs checked through the step path (sides: a mapping side -> policy).
BUILT_IN_RUNS = {
    "cursed": [(1, "counting"), (1, "random")],
    "verflucht": [(2, "smart"), (4, "baseline")],
    "gifts": [(3, {"focus": "spread", "field": "leader"}), (5, {"focus": "random", "field": "defensive"})],
    "covens": [(5, {"hunter": "tracker", "town": "bluff"}), (4, {"hunter": "random", "town": "coven"})],
    "village": [(2, {"wizard": "possessed", "monster": "rabid"}), (2, {"wizard": "planner", "monster": "rabid"}),
                (2, {"wizard": "possessed", "monster": "glutton"}), (2, {"wizard": "random", "monster": "glutton"})],
}


def test_every_game_has_a_step_api():
    assert GAMES == list_games()


@pytest.mark.parametrize("game,players,policy", [(g, p, pol) for g in GAMES for p, pol in BUILT_IN_RUNS[g]])
def test_the_step_path_plays_the_kernels_games(game, players, policy):
    """Built-in policies forced through the step API (the path a search run takes, sides fixed inside the
    engine) give the kernel's rows, every outcome column and dtype."""
    record = resolve_game(game)
    names, vectors, _ = resolve_policy(record, policy, None)
    specs = policy_specs(record, names)
    options = record.make_options(None)
    stepped = play_chunk(record, 11, 5, 30, players, options, specs, vectors)
    kernel = record.run_chunk(11, 5, 30, players, options, specs, vectors)
    for column in record.outcome_columns:
        np.testing.assert_array_equal(stepped[column], kernel[column], err_msg=column)
        assert stepped[column].dtype == np.asarray(kernel[column]).dtype, column


def _search_run(game: str, **kwargs) -> pd.DataFrame:
    record = resolve_game(game)
    if record.sides:
        side = record.side_names[0] if game != "village" else "wizard"
        others = {"village": {"monster": "rabid"}}.get(game, {})
        return cursedsim.simulate(game, 3, seed=5, policy={**others, side: "ismcts"},
                                  params={side: {"iterations": 3}}, progress=False, **kwargs)
    return cursedsim.simulate(game, 3, seed=5, policy="ismcts", params={"iterations": 3},
                              players=record.default_players, progress=False, **kwargs)


@pytest.mark.parametrize("game", ["cursed", "gifts"])
def test_search_results_do_not_depend_on_jobs_or_chunks(game):
    one = _search_run(game, n_jobs=1)
    two = _search_run(game, n_jobs=2, chunk_size=1)
    outcome = list(resolve_game(game).outcome_columns)
    pd.testing.assert_frame_equal(one[outcome], two[outcome])


def test_a_search_game_replays_with_the_games_turn_log():
    frame = cursedsim.simulate("cursed", 2, seed=5, policy="ismcts", params={"iterations": 3}, progress=False)
    text = cursedsim.replay("cursed", 5, 1, policy="ismcts", params={"iterations": 3})
    assert text.startswith("(decisions of ismcts by search")
    events = cursedsim.replay("cursed", 5, 1, policy="ismcts", params={"iterations": 3}, format="events")
    assert events[-1]["action"] == ("win" if frame["win"].iloc[1] else "loss")
    assert events[0]["policy"] == "ismcts"
    again = cursedsim.replay("cursed", 5, 1, policy="ismcts", params={"iterations": 3})
    assert again == text


def test_a_bad_rollout_names_the_valid_policies():
    with pytest.raises(UnknownPolicyError, match=r"rollout=7 is not a built-in policy of cursed; valid: -1"):
        cursedsim.simulate("cursed", 1, seed=5, policy="ismcts", params={"rollout": 7, "iterations": 2},
                           progress=False)


@pytest.mark.parametrize("game", GAMES)
def test_every_side_offers_ismcts(game):
    record = resolve_game(game)
    for side in record.side_names or (None,):
        spec = record.policy("ismcts", side)
        assert spec.engine == "step" and "rollout" in spec.param_docs
