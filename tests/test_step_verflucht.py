"""The step API of Verflucht! (cursedsim/games/verflucht/step.py): built-in policies stepped through it
give the runner's rows (every policy, player count and non-default options), agents and policies mix,
and a seat's determinisations hide what it cannot see (the other hands, the face-down pile). What every
game meets (copies independent, illegal actions named, observations bounded, ...) is checked once for
all games by tests/game_contract.py; here what is Verflucht!'s own.
"""

from __future__ import annotations

import random

import pytest

import cursedsim
from cursedsim.errors import UnknownPolicyError
from cursedsim.games.verflucht import GAME
from cursedsim.games.verflucht.step import STEP, action_name
from cursedsim.step.api import TERMINAL, step_spec

COLUMNS = GAME.outcome_columns

# (players, options, policy, params): every player count, every built-in policy, non-default options
CONFIGS = [
    (2, None, "baseline", None),
    (3, {"partial_items_before_seal": True, "seals": 2}, "random", None),
    (4, {"voluntary_seal": False, "drawer_last_turn": False}, "smart", None),
    (5, None, "random", None),
    (5, {"seals": 0}, "baseline", None),
    (3, None, "smart", {"multi_items": 1.0, "big_hand_first": 1.0, "banish_multi": 1.0, "slack": 4.0}),
    (2, {"partial_items_before_seal": True, "voluntary_seal": False, "seals": 6}, "smart", None),
    (4, {"partial_items_before_seal": True}, "random", None),
]
GAMES = 50


def played(seed, index, players, options, policy, params):
    state = STEP.new_state(seed, index, players, options)
    while not state.is_terminal():
        state.apply_policy(policy, params)
    return state


@pytest.mark.parametrize("players, options, policy, params", CONFIGS)
def test_apply_policy_gives_the_runners_rows(players, options, policy, params):
    seed, first = 20, 7
    frame = cursedsim.simulate("verflucht", GAMES, players=players, policy=policy, params=params,
                               options=options, seed=seed, first_game=first)
    for row in frame.itertuples(index=False):
        state = played(seed, row.game_index, players, options, policy, params)
        expected = {column: getattr(row, column) for column in COLUMNS}
        expected = {k: (v if isinstance(v, str) else v.item() if hasattr(v, "item") else v)
                    for k, v in expected.items()}
        assert state.outcome() == expected, (row.game_index, policy, options)
        assert state.returns() == [float(expected["win"])] * players


def random_walk(state, rnd, stop_after=None):
    """Uniform legal actions until the end (or ``stop_after`` actions); the actions taken."""
    taken = []
    while not state.is_terminal() and (stop_after is None or len(taken) < stop_after):
        legal = state.legal_actions()
        assert legal == sorted(legal) and legal and all(0 <= a < STEP.num_actions for a in legal)
        action = rnd.choice(legal)
        state.apply(action)
        taken.append(action)
    return taken


@pytest.mark.parametrize("players", [2, 4])
def test_random_playouts_end_and_share_the_result(players):
    """Under non-default options, at the player counts the contract (1, 3, 5 players, default rules) skips."""
    rnd = random.Random(players)
    for index in range(8):
        options = {"partial_items_before_seal": bool(index % 2), "voluntary_seal": index % 3 != 0}
        state = STEP.new_state(3, index, players, options)
        random_walk(state, rnd)
        assert state.actor() == TERMINAL
        assert state.returns() == [float(state.outcome()["win"])] * players


def test_mixed_agents_and_policies_stay_legal():
    """Agent actions and built-in policies in any mix (a policy asked in the middle of a question it
    did not start) always give legal answers the engine accepts, to the end."""
    rnd = random.Random(11)
    for index in range(12):
        state = STEP.new_state(8, index, 2 + index % 4, {"partial_items_before_seal": index % 2 == 0})
        while not state.is_terminal():
            if rnd.random() < 0.5:
                state.apply(rnd.choice(state.legal_actions()))
            else:
                state.apply_policy(rnd.choice(["random", "baseline", "smart"]))
        assert state.clone().outcome() == state.outcome()


def test_determinise_hides_only_what_the_seat_cannot_see():
    rnd = random.Random(3)
    hidden_differs = checked = 0
    for index in range(6):
        players = 2 + index % 4
        state = STEP.new_state(6, index, players, {"voluntary_seal": index % 2 == 0})
        while not state.is_terminal():
            actor = state.actor()
            if rnd.random() < 0.3:
                for agent in {actor, rnd.randrange(players)}:
                    one, two = state.determinise(agent, 1), state.determinise(agent, 2)
                    for d in (one, two):   # under non-default options (the contract: the default rules)
                        assert d.information(agent) == state.information(agent)
                    checked += 1
                    others = [q for q in range(players) if q != agent]
                    if any(one.table.hands[q] != two.table.hands[q] for q in others) or \
                            sorted(one.table.face_down) != sorted(two.table.face_down):
                        hidden_differs += 1
                    assert one.table.hands[agent] == state.table.hands[agent]
                    assert [len(h) for h in one.table.hands] == [len(h) for h in state.table.hands]
                    assert len(one.table.face_down) == len(state.table.face_down)
                    assert sorted(one.table.display) == sorted(state.table.display)
                    random_walk(one, random.Random(checked))      # a determinisation plays on
            state.apply(rnd.choice(state.legal_actions()))
    assert checked > 20 and hidden_differs > checked // 2


def test_information_differs_between_seats():
    state = STEP.new_state(2, 4, 3)
    random_walk(state, random.Random(1), stop_after=30)
    infos = {state.information(a) for a in range(3)}
    assert len(infos) == 3


def test_spec_and_names():
    assert step_spec("verflucht") is STEP
    assert STEP.agents(4, None) == ("seat0", "seat1", "seat2", "seat3")
    assert STEP.agent_sides(2, None) == (None, None)
    assert [action_name(a) for a in (0, 1, 2, 3, 42, 43, 82)] == ["done", "seal", "fight", "C1", "C40", "I1", "I40"]
    state = STEP.new_state(0, 0, 2)
    with pytest.raises(UnknownPolicyError):
        state.apply_policy("no_such_policy")
    with pytest.raises(UnknownPolicyError):
        STEP.new_state(0, 0, 2, fixed={"field": "baseline"})


@pytest.mark.parametrize("policy", ["random", "baseline", "smart"])
def test_play_out_equals_step_by_step(policy):
    """The fast play-out (one policy for every seat) ends as apply_policy step by step does, from any
    point (also in the middle of a question), and a clone replays it."""
    rnd = random.Random(2)
    for index in range(6):
        players = 2 + index % 4
        options = {"partial_items_before_seal": index % 2 == 1}
        fast = STEP.new_state(12, index, players, options)
        random_walk(fast, rnd, stop_after=rnd.randrange(0, 40))
        slow = fast.clone()
        fast.play_out({q: (policy, None) for q in range(players)})
        while not slow.is_terminal():
            slow.apply_policy(policy)
        assert fast.is_terminal() and fast.outcome() == slow.outcome()
        assert fast.clone().outcome() == fast.outcome()
    mixed = STEP.new_state(12, 0, 2)
    mixed.play_out({0: ("baseline", None), 1: ("smart", {"slack": 1.0})})   # the step-by-step loop
    assert mixed.is_terminal()


def _same(array_state, logged, players, where):
    assert array_state.actor() == logged.actor() and array_state.legal_actions() == logged.legal_actions(), where
    for agent in range(players):
        assert array_state.information(agent) == logged.information(agent), (where, agent)
        assert (array_state.observation(agent) == logged.observation(agent)).all(), (where, agent)
    if logged.is_terminal():
        assert array_state.outcome() == logged.outcome(), where


@pytest.mark.parametrize("seed", [0, 1])
def test_array_state_steps_as_the_logged_reference_state(seed):
    """The state over the kernel's arrays (log=False) and the reference engine's (log=True) agree at every
    step: actor, legal actions, every seat's information and observation, outcome, and the same
    determinisations (hands and face-down order), through actions, built-in policies, fast play-outs
    and copies, under every player count and non-default options."""
    from cursedsim.games.verflucht.step import ArrayState, VerfluchtState
    rnd = random.Random(seed)
    for index in range(30):
        players = 1 + index % 5
        options = {"partial_items_before_seal": rnd.random() < 0.5, "voluntary_seal": rnd.random() < 0.7,
                   "drawer_last_turn": rnd.random() < 0.7, "seals": rnd.randint(0, 5)}
        fast, logged = STEP.new_state(9, index, players, options), STEP.new_state(9, index, players, options, log=True)
        assert isinstance(fast, ArrayState) and isinstance(logged, VerfluchtState)
        while not logged.is_terminal():
            x = rnd.random()
            if x < 0.1:
                agent, draw = rnd.randrange(players), rnd.randrange(1000)
                fast, logged = fast.determinise(agent, draw), logged.determinise(agent, draw)
                assert [sorted(h) for h in fast.table.hands] == [sorted(h) for h in logged.table.hands]
                assert fast.table.face_down == logged.table.face_down
            elif x < 0.15:
                name = rnd.choice(["random", "baseline", "smart"])
                ended = [s.clone() for s in (fast, logged)]
                for s in ended:
                    s.play_out({q: (name, None) for q in range(players)})
                _same(*ended, players, (index, "play_out", name))
            elif x < 0.55:
                action = rnd.choice(logged.legal_actions())
                fast.apply(action)
                logged.apply(action)
            else:
                name = rnd.choice(["random", "baseline", "smart"])
                assert fast.apply_policy(name) == logged.apply_policy(name)
            if rnd.random() < 0.2:
                fast, logged = fast.clone(), logged.clone()
            _same(fast, logged, players, index)
