"""The step API of Cursed Gifts (cursedsim/games/gifts/step.py): built-in policies through ``apply_policy``
give the runner's rows (every policy, non-default options and parameters), fixed sides play inside, the
winning seat alone scores, determinisations keep what the agent knows and redraw the other hands and the
pile. What every game meets (copies independent, illegal actions named, observations bounded, ...) is
checked once for all games by tests/game_contract.py; here what is the Cursed Gifts' own."""

from __future__ import annotations

import random

import pytest

import cursedsim
from cursedsim.games.gifts import GAME, reference, reference_policies, rules, side_columns
from cursedsim.games.gifts import state as S
from cursedsim.games.gifts.policy_specs import POLICIES
from cursedsim.step.api import step_spec

STEP = step_spec("gifts")
GAMES = 60

# (seed, players, options, focus policy, field policy, params of the focus)
CONFIGS = [
    (5, 4, None, "random", "leader", None),
    (6, 3, {"mugging_take": "chosen", "mugging_cost": "if_taken", "riposte_chains": True}, "weakest_link", "spread",
     None),
    (7, 5, {"eliminated_cards": "random_positions", "eliminated_hand": "gifts_only", "cacarma": "return",
            "cacarma_vs_inevitable": True, "bonus_is_the_gift": False, "focus_seat": "2"}, "defensive", "random",
     {"heal_at": 5.0, "keep": 0.0}),
    (8, 2, {"max_turns": 12}, "leader", "defensive", {"riposte_min": 3.0}),
    (9, 6, None, "spread", "weakest_link", None),
]


def play_by_policies(seed, index, players, options, focus, field, params):
    state = STEP.new_state(seed, index, players, options)
    while not state.is_terminal():
        side = state.side_of(state.actor())
        state.apply_policy(*((focus, params) if side == "focus" else (field, None)))
    return state


def rows_of(chunk, i):
    return {column: chunk[column][i].item() for column in GAME.outcome_columns}


@pytest.mark.parametrize("seed,players,options,focus,field,params", CONFIGS)
def test_policies_give_the_runners_rows(seed, players, options, focus, field, params):
    """Every built-in policy (and non-default options and parameters) played through apply_policy gives the
    reference runner's row of each game, every column (the kernel equals the reference: its own tests)."""
    opts = GAME.make_options(options)
    chunk = reference.play_chunk_sides(seed, 0, GAMES, players, opts,
                                       reference_policies.make(focus, POLICIES[focus].param_vector(params)),
                                       reference_policies.make(field), rules.focus_seat_number(opts, players))
    chunk.update(side_columns(chunk["winner_seat"], chunk["focus_seat"], chunk["unfinished"]))
    for i in range(GAMES):
        state = play_by_policies(seed, i, players, options, focus, field, params)
        assert state.outcome() == rows_of(chunk, i), i


@pytest.mark.slow
def test_policies_give_the_kernels_rows():
    """Against the runner itself (the numba kernel, compiled once per policy pair)."""
    frame = cursedsim.simulate("gifts", 40, players=4, policy={"focus": "random", "field": "leader"}, seed=11)
    for i in range(40):
        state = play_by_policies(11, i, 4, None, "random", "leader", None)
        assert state.outcome() == {c: frame[c].iloc[i].item() for c in GAME.outcome_columns}, i


def test_fixed_sides_play_inside():
    """A fixed field never acts; the game is the same as playing it through apply_policy."""
    for i in range(5):
        state = STEP.new_state(3, i, 4, None, fixed={"field": "leader"})
        while not state.is_terminal():
            assert state.side_of(state.actor()) == "focus"
            state.apply_policy("random")
        assert state.outcome() == play_by_policies(3, i, 4, None, "random", "leader", None).outcome()


def random_playout(state, rng):
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == sorted(legal) and legal
        assert all(0 <= a < STEP.num_actions for a in legal)
        state.apply(rng.choice(legal))
        steps += 1
    return steps


def test_the_winning_seat_alone_scores():
    for i in range(8):
        state = STEP.new_state(2, i, 2 + i % 5, {"mugging_take": "chosen"} if i % 2 else None)
        random_playout(state, random.Random(i))
        out, ret = state.outcome(), state.returns()
        assert sum(ret) == (0.0 if out["unfinished"] else 1.0)
        if not out["unfinished"]:
            assert ret[out["winner_seat"]] == 1.0


def test_action_names():
    state = STEP.new_state(1, 0, 3, None)
    assert state.action_name(S.A_END) == "end"


def test_determinise_keeps_information_and_redraws_the_hidden():
    """Two determinisations keep the agent's information, its legal actions and its observation; the other
    hands or the pile differ in some of them; play goes on from them and they can be determinised again."""
    differ = 0
    for i, options in enumerate([None, {"mugging_take": "chosen", "mugging_cost": "if_taken"},
                                 {"eliminated_hand": "gifts_only", "eliminated_cards": "random_positions"}]):
        state = STEP.new_state(12, i, 4, options)
        rng = random.Random(i)
        step = 0
        while not state.is_terminal():
            agent = state.actor()
            if step % 5 == 0:
                one, two = state.determinise(agent, 1), state.determinise(agent, 2)
                for d in (one, two):   # under non-default options (the contract: the default rules)
                    assert d.information(agent) == state.information(agent)
                    assert d.table.hands[agent] == state.table.hands[agent]
                    assert [len(h) for h in d.table.hands] == [len(h) for h in state.table.hands]
                    assert sorted(d.table.pile + [c for h in d.table.hands for c in h]) == sorted(state.table.pile + [c for h in state.table.hands for c in h])
                hidden = lambda d: (d.table.pile, [h for s, h in enumerate(d.table.hands) if s != agent])
                differ += hidden(one) != hidden(two)
                other = (agent + 1) % 4
                again = one.determinise(other, 3)   # a determinised state can be determinised for another seat
                assert again.information(other) == one.information(other)
                if step % 15 == 0:
                    random_playout(one.clone(), random.Random(step))
            state.apply(rng.choice(state.legal_actions()))
            step += 1
    assert differ > 10


def test_determinise_keeps_a_card_the_agent_knows():
    """The victim of a Mugging knows the card taken: in its determinisations the mugger still holds it."""
    checked = 0
    for i in range(40):
        state = STEP.new_state(21, i, 3, {"mugging_take": "chosen"})
        rng = random.Random(i)
        while not state.is_terminal() and checked < 5:
            mugger, kind = state.table.to_move()
            if kind == S.D_TAKE:
                victim = state.table.target
                state.apply(state.legal_actions()[0])
                taken = state.history[-1][1] - S.A_PICK
                for k in range(6):
                    d = state.determinise(victim, k)
                    assert d.information(victim) == state.information(victim)
                    if taken in state.table.hands[mugger]:
                        assert taken in d.table.hands[mugger]
                checked += 1
            else:
                state.apply(rng.choice(state.legal_actions()))
        if checked >= 5:
            break
    assert checked >= 5


def test_agents_and_their_sides():
    assert STEP.agents(3, None) == ("seat 0", "seat 1", "seat 2")
    assert STEP.agent_sides(3, {"focus_seat": "1"}) == ("field", "focus", "field")
