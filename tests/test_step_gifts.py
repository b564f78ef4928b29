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
                taken = state.legal_actions()[0] - S.A_PICK
                state.apply(S.A_PICK + taken)
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


def _same(fast, logged, players, where):
    assert fast.actor() == logged.actor() and fast.legal_actions() == logged.legal_actions(), where
    names = [[s.action_name(a) for a in s.legal_actions()] for s in (fast, logged)]
    assert names[0] == names[1], where
    for agent in range(players):
        assert fast.information(agent) == logged.information(agent), (where, agent)
        assert (fast.observation(agent) == logged.observation(agent)).all(), (where, agent)
    assert fast.returns() == logged.returns(), where
    if logged.is_terminal():
        assert fast.outcome() == logged.outcome(), where


SIDE_BY_SIDE_OPTIONS = [None, {"mugging_take": "chosen", "mugging_cost": "if_taken", "riposte_chains": True},
                        {"eliminated_cards": "random_positions", "eliminated_hand": "gifts_only", "cacarma": "return",
                         "cacarma_vs_inevitable": True, "bonus_is_the_gift": False, "focus_seat": "1"},
                        {"max_turns": 14, "riposte_chains": True, "mugging_take": "chosen"}]


def chain_deck(tmp_path) -> str:
    """The default deck plus 8 expansion ripostes that answer Defenses, so riposte chains happen."""
    from cursedsim.games.gifts.deck import DEFAULT_DECK
    path = tmp_path / "chains.toml"
    path.write_text(DEFAULT_DECK.read_text(encoding="utf-8") + (
        '\n[[card]]\nname = "Phoque you"\ntype = "defense"\nvalue = 0\ncount = 8\nflags = ["RIPOSTE"]\n'
        'effect = "cancel_defense"\n'), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_array_state_steps_as_the_logged_reference_state(seed, tmp_path):
    """The state over the kernel's arrays (log=False) and the reference engine's (log=True) agree at every
    step: actor, legal actions and their names, every seat's information and observation, returns and
    outcome, the same determinisations (hands and pile order, in and between card steps), through actions,
    built-in policies, play-outs and copies, under 2-6 players and non-default options (a deck with
    riposte chains among them)."""
    from cursedsim.games.gifts.step import ArrayState, GiftsState
    rnd = random.Random(seed)
    chains = {"riposte_chains": True, "mugging_take": "chosen", "cacarma_vs_inevitable": True,
              "deck": chain_deck(tmp_path)}
    for index in range(12):
        players = 2 + (index + seed) % 5
        options = (SIDE_BY_SIDE_OPTIONS + [chains] * 2)[(index + seed) % (len(SIDE_BY_SIDE_OPTIONS) + 2)]
        fixed = {"field": rnd.choice(["leader", "random"])} if index % 5 == 4 else None
        fast = STEP.new_state(seed, index, players, options, fixed=fixed)
        logged = STEP.new_state(seed, index, players, options, fixed=fixed, log=True)
        assert isinstance(fast, ArrayState) and isinstance(logged, GiftsState)
        _same(fast, logged, players, index)
        while not logged.is_terminal():
            x = rnd.random()
            if x < 0.08:
                agent, draw = rnd.choice([logged.actor(), rnd.randrange(players)]), rnd.randrange(1000)
                fast, logged = fast.determinise(agent, draw), logged.determinise(agent, draw)
                assert fast.table.hands == logged.table.hands and fast.table.pile == logged.table.pile, index
            elif x < 0.12:
                name = rnd.choice(["random", "leader", "spread", "defensive", "weakest_link"])
                ended = [s.clone() for s in (fast, logged)]
                for s in ended:
                    s.play_out({q: (name, None) for q in range(players)})
                _same(*ended, players, (index, "play_out", name))
            elif x < 0.55:   # a card rather than the end of the turn, mostly: longer card steps
                legal = logged.legal_actions()
                cards = [a for a in legal if a < S.A_SEAT]
                action = rnd.choice(cards if cards and rnd.random() < 0.6 else legal)
                fast.apply(action)
                logged.apply(action)
            else:
                name = rnd.choice(["random", "leader", "spread", "defensive", "weakest_link"])
                params = {"heal_at": 4.0, "keep": 0.0} if name == "defensive" and rnd.random() < 0.5 else None
                assert fast.apply_policy(name, params) == logged.apply_policy(name, params)
            if rnd.random() < 0.2:
                fast, logged = fast.clone(), logged.clone()
            _same(fast, logged, players, index)
