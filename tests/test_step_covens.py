"""The step API of Curses & Covens (cursedsim/games/covens/step.py): built-in policies through
``apply_policy`` give the runner's rows (both sides' policies, non-default options and parameters), the
agents follow the decisions, determinisations keep what each agent (hunter, the town group, each town)
knows and give positions every policy pair plays on from. What every game meets (copies independent,
illegal actions named, observations bounded, ...) is checked once for all games by
tests/game_contract.py; here what is Curses & Covens' own."""

from __future__ import annotations

import random

import pytest

import cursedsim
from cursedsim.games.covens import GAME, reference, reference_twins
from cursedsim.games.covens import state as S
from cursedsim.games.covens.step import FIRST_TOWN, GROUP, HUNTER
from cursedsim.step.api import TERMINAL, step_spec

STEP = step_spec("covens")
GAMES = 60

# (seed, players, options, hunter policy, town policy, town params)
CONFIGS = [
    (5, 5, None, "tracker", "coven", None),
    (6, 4, {"rituals": False, "shuffle_timing": "census_and_arrival", "discard_order": "ascending",
            "wild_icons": "both", "fake_casts": True}, "random", "bluff", {"risk": 0.2}),
    (7, 6, {"darkness_backs": "nature", "spell_icons": "all_mixed", "short_deck_arrival": "deal_none",
            "ask_empty": False, "passage_targets": "any_town", "nature_restart": False, "doom_empty": True,
            "doom_second_pick": "any_town", "townsfolk_to": "any_town"}, "largest_hand", "random", None),
    (8, 5, {"max_rounds": 3, "spell_icons": "curses_mixed"}, "tracker", "coven", {"feed": 0.0, "cast": 0.0}),
]


def play_by_policies(seed, index, players, options, hunter, town, params):
    state = STEP.new_state(seed, index, players, options)
    while not state.is_terminal():
        if state.side_of(state.actor()) == "hunter":
            state.apply_policy(hunter)
        else:
            state.apply_policy(town, params)
    return state


@pytest.mark.parametrize("seed,players,options,hunter,town,params", CONFIGS)
def test_policies_give_the_runners_rows(seed, players, options, hunter, town, params):
    """Every built-in policy of both sides (non-default options and parameters too) played through
    apply_policy gives the reference runner's row of each game, every column (the kernel equals the
    reference: its own tests)."""
    opts = GAME.make_options(options)
    vectors = {"town": GAME.policy(town, "town").param_vector(params)} if params else None
    twins = reference_twins({"hunter": hunter, "town": town}, vectors)
    chunk = reference.play_chunk(seed, 0, GAMES, players, opts, *twins)
    for i in range(GAMES):
        state = play_by_policies(seed, i, players, options, hunter, town, params)
        assert state.outcome() == {c: chunk[c][i].item() for c in GAME.outcome_columns}, i


@pytest.mark.slow
def test_policies_give_the_kernels_rows():
    """Against the runner itself (the numba kernel)."""
    frame = cursedsim.simulate("covens", 40, players=5, policy={"hunter": "tracker", "town": "coven"}, seed=11)
    for i in range(40):
        state = play_by_policies(11, i, 5, None, "tracker", "coven", None)
        row = {c: frame[c].iloc[i] for c in GAME.outcome_columns}
        out = state.outcome()
        for c in GAME.outcome_columns:
            expected = row[c]
            if c in GAME.outcome_categories:
                assert GAME.outcome_categories[c][out[c]] == str(expected), (i, c)
            else:
                assert out[c] == expected.item(), (i, c)


def test_fixed_sides_play_inside():
    """A fixed hunter never acts; the game is the one apply_policy plays."""
    for i in range(5):
        state = STEP.new_state(3, i, 5, None, fixed={"hunter": ("tracker", {"trust": 0.5})})
        while not state.is_terminal():
            assert state.actor() != HUNTER
            state.apply_policy("coven")
        other = STEP.new_state(3, i, 5, None)
        while not other.is_terminal():
            other.apply_policy(*(("tracker", {"trust": 0.5}) if other.actor() == HUNTER else ("coven", None)))
        assert state.outcome() == other.outcome()


def random_playout(state, rng):
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == sorted(legal) and legal
        assert all(0 <= a < STEP.num_actions for a in legal)
        state.apply(rng.choice(legal))


def test_the_hunter_scores_alone_and_the_town_agents_together():
    for i in range(12):
        state = STEP.new_state(2, i, 4 + i % 3, {"rituals": bool(i % 2)})
        random_playout(state, random.Random(i))
        out, ret = state.outcome(), state.returns()
        assert ret[HUNTER] == float(out["hunter_won"])
        assert all(r == float(out["town_won"]) for r in ret[GROUP:])


def test_agents_follow_the_decisions():
    """Census decisions go to the town group, Travel ones to the town named by the Decision."""
    state = STEP.new_state(4, 0, 5, None)
    seen = set()
    for _ in range(200):
        if state.is_terminal():
            break
        side, town, kind = state.table.to_move()
        expected = HUNTER if side == S.SIDE_HUNTER else GROUP if town < 0 else FIRST_TOWN + town
        assert state.actor() == expected
        seen.add(expected)
        state.apply(state.legal_actions()[0])
    assert {HUNTER, GROUP, FIRST_TOWN} <= seen


def test_action_names():
    state = STEP.new_state(1, 0, 5, None)
    assert state.action_name(S.A_NO) == S.action_name(S.A_NO)


def pool(state):
    """Every card in the deck, the woods or a hand."""
    t = state.table
    return sorted(t.deck + [t.woods] + [c for h in t.hands for c in range(27) if h >> c & 1])


def test_determinise_keeps_information_and_redraws_the_hidden():
    """Determinisations for any agent (under non-default options; the contract: the default rules) keep
    its information, every card and the hand sizes, and a town's own hand; the hidden part (deck order,
    others' hands, woods) differs between two of them in many states; play goes on from them."""
    differ = 0
    for i, options in enumerate([None, {"discard_order": "ascending", "passage_targets": "any_town"},
                                 {"rituals": False}]):
        state = STEP.new_state(12, i, 5, options)
        rng = random.Random(i)
        step = 0
        while not state.is_terminal():
            actor = state.actor()
            for agent in (actor, HUNTER, FIRST_TOWN + step % 4):
                one, two = state.determinise(agent, 2 * step), state.determinise(agent, 2 * step + 1)
                for d in (one, two):
                    assert d.information(agent) == state.information(agent)
                    assert len(d.table.deck) == len(state.table.deck)
                    assert pool(d) == pool(state)
                    assert [bin(h).count("1") for h in d.table.hands] == [bin(h).count("1") for h in state.table.hands]
                    if agent >= FIRST_TOWN:
                        assert d.table.hands[agent - FIRST_TOWN] == state.table.hands[agent - FIRST_TOWN]
                hidden = lambda d: (d.table.deck, d.table.woods, d.table.hands)
                differ += hidden(one) != hidden(two)
            if step % 10 == 0:
                random_playout(one.clone(), random.Random(step))
            state.apply(rng.choice(state.legal_actions()))
            step += 1
    assert differ > 20


def test_determinise_keeps_what_the_hunter_dealt():
    """The card the hunter gave a town at Arrival stays in that town's hand (until Travel moves it) in the
    hunter's determinisations, and the woods card he looked at stays in the woods before any swap."""
    checked = 0
    for i in range(10):
        state = STEP.new_state(30, i, 5, None)
        rng = random.Random(i)
        while not state.is_terminal() and state.table.phase != S.PH_TRAVEL:
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal() or state.table.hunter_woods < 0:
            continue
        for k in range(4):
            d = state.determinise(HUNTER, k)
            assert d.table.woods == state.table.woods
            for u, dealt in enumerate(state.table.dealt):
                assert d.table.hands[u] & dealt == dealt
        checked += 1
    assert checked


def test_agent_sides():
    assert STEP.agent_sides(4, None) == ("hunter", "town", "town", "town", "town")


def test_darkness_hides_travel_from_the_hunter():
    """After a Travel in Darkness with no swap in fact, the hunter cannot tell that nothing moved: his
    determinisations put different cards in the woods (and never change what he sees)."""
    from cursedsim.games.covens import rules as R
    varied = 0
    for i in range(60):
        state = STEP.new_state(40, i, 5, None)
        rng = random.Random(i)
        while not state.is_terminal() and not (state.table.active == R.DARKNESS and state.table.phase == S.PH_HUNT):
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal() or any(entry[1] == S.LOG_SWAP for entry in state.table.travel_log):
            continue
        worlds = [state.determinise(HUNTER, k) for k in range(8)]
        assert all(d.information(HUNTER) == state.information(HUNTER) for d in worlds)
        varied += len({d.table.woods for d in worlds}) > 1
        if varied >= 2:
            break
    assert varied >= 2


HUNTER_POLICIES = ("random", "largest_hand", "tracker")
TOWN_POLICIES = ("random", "coven", "bluff")


def records_agree(table):
    """Facts every real position keeps: the hunter's deals and the census hands name distinct cards, each
    woods note names the woods card, each deck position the hunter knows holds that card."""
    named = [m for m in (table.census or []) if m >= 0] + list(table.dealt)
    union = 0
    for m in named:
        assert not union & m
        union |= m
    assert all(w in (-1, table.woods) for w in table.town_woods + [table.hunter_woods])
    assert all(k in (-1, c) for k, c in zip(table.deck_known, table.deck))


def steered(state):
    """At the town's spell choice: the Curse of Darkness if castable, else the Charm of Passage (Darkness
    is on its back), so that games reach Darkness often; None elsewhere."""
    from cursedsim.games.covens import rules as R
    if state.table.to_move()[2] != S.D_SPELL:
        return None
    for spell in (R.DARKNESS, R.PASSAGE):
        for a in state.legal_actions():
            if a != S.A_NO and state.table.spell_of(a - S.A_SPELL) == spell:
                return a
    return None


def real_states(seed, players, hunter, town, dark=4, light=12, games=300):
    """States along games the built-in policies play (the town steered to Darkness): ``dark`` states under
    the Curse of Darkness (one in 3 decisions) and ``light`` others (one in 9), from games 0, 1, ..."""
    from cursedsim.games.covens import rules as R
    want = {True: dark, False: light}
    for index in range(games):
        state = STEP.new_state(seed, index, players, None)
        step = 0
        while not state.is_terminal() and any(want.values()):
            darkness = state.table.active == R.DARKNESS
            if want[darkness] and step % (3 if darkness else 9) == 0:
                want[darkness] -= 1
                yield state.clone()
            action = steered(state)
            if action is None:
                state.apply_policy(hunter if state.actor() == HUNTER else town)
            else:
                state.apply(action)
            step += 1
        if not any(want.values()):
            return


@pytest.mark.parametrize("seed,players,hunter,town", [(2026, 5, "tracker", "coven"), (3, 4, "random", "bluff"),
                                                      (4, 6, "largest_hand", "coven")])
def test_determinised_states_play_on_with_every_policy_pair(seed, players, hunter, town):
    """From states of real games (Darkness on and off), the worlds a determinisation for the hunter, the town
    group or a town draws are positions the engine could reach: the agent's information is unchanged, the
    records agree, and every pair of built-in policies (the tracker reads the hunter's deals, the census
    and the travel log) plays each world to the end, as does the tracker against towns acting at random."""
    from cursedsim.games.covens import rules as R
    darkness = {True: 0, False: 0}
    for n, state in enumerate(real_states(seed, players, hunter, town)):
        darkness[state.table.active == R.DARKNESS] += 1
        for agent in (HUNTER, GROUP, FIRST_TOWN + n % (players - 1)):
            before = state.information(agent)
            for k in range(2):
                world = state.determinise(agent, 10 * n + k)
                assert world.information(agent) == before
                records_agree(world.table)
                for h in HUNTER_POLICIES:
                    for t in TOWN_POLICIES:
                        play = world.clone()
                        while not play.is_terminal():
                            play.apply_policy(h if play.actor() == HUNTER else t)
                        assert play.actor() == TERMINAL
                for r in range(3):   # as a search tree plays: any legal town action, the tracker hunting
                    play, rng = world.clone(), random.Random(r)
                    while not play.is_terminal():
                        if play.actor() == HUNTER:
                            play.apply_policy("tracker")
                        else:
                            play.apply(rng.choice(play.legal_actions()))
    assert darkness == {True: 4, False: 12}


@pytest.mark.slow
def test_town_search_against_the_tracker_runs():
    """The run that crashed (a town ISMCTS against the tracker, whose belief divides by the hand sizes
    the deals and the census give): every game ends with a winner column."""
    frame = cursedsim.simulate("covens", 20, seed=2026, players=5, policy={"town": "ismcts", "hunter": "tracker"},
                               params={"town": {"iterations": 5}}, n_jobs=1, progress=False)
    assert len(frame) == 20 and frame["winner"].notna().all()


def _same(fast, logged, where):
    """The array state and the reference state agree on everything an agent or a policy reads."""
    assert fast.actor() == logged.actor() and fast.legal_actions() == logged.legal_actions(), where
    for agent in range(logged.n_agents):
        assert fast.information(agent) == logged.information(agent), (where, agent)
        assert (fast.observation(agent) == logged.observation(agent)).all(), (where, agent)
        assert fast.action_name(agent) == logged.action_name(agent)
    assert fast.returns() == logged.returns(), where
    if logged.is_terminal():
        assert fast.outcome() == logged.outcome(), where
    hidden = lambda s: (s.table.deck, s.table.deck_known, s.table.woods, s.table.hands, s.table.gave,   # noqa: E731
                        s.table.received, s.table.town_woods, s.table.hunter_woods, s.table.drawn, s.table.deal_left)
    assert hidden(fast) == hidden(logged), where


# (seed, players, options, hunter policy, town policy)
SIDE_BY_SIDE = [
    (0, 5, None, "tracker", "coven"),
    (1, 4, {"rituals": False, "shuffle_timing": "census_and_arrival", "discard_order": "ascending",
            "wild_icons": "both", "fake_casts": True}, "random", "bluff"),
    (2, 6, {"darkness_backs": "nature", "spell_icons": "all_mixed", "short_deck_arrival": "deal_none",
            "ask_empty": False, "passage_targets": "any_town", "nature_restart": False, "doom_empty": True,
            "doom_second_pick": "any_town", "townsfolk_to": "any_town"}, "largest_hand", "random"),
    (3, 5, {"max_rounds": 3, "spell_icons": "curses_mixed"}, "tracker", "coven"),
]


@pytest.mark.parametrize("seed,players,options,hunter,town", SIDE_BY_SIDE)
def test_array_state_steps_as_the_logged_reference_state(seed, players, options, hunter, town):
    """The state over the kernel's arrays (log=False) and the reference engine's (log=True) agree at every
    step: actor, legal actions, every agent's information and observation, returns, outcome and the hidden
    cards, through random actions, built-in policies (the same draws), copies and determinisations for
    any agent (the same worlds), under every town count and non-default options."""
    from cursedsim.games.covens.step import ArrayState, CovensState
    rnd = random.Random(seed)
    for index in range(8):
        fast, logged = STEP.new_state(seed, index, players, options), STEP.new_state(seed, index, players, options,
                                                                                    log=True)
        assert isinstance(fast, ArrayState) and isinstance(logged, CovensState)
        _same(fast, logged, (index, "deal"))
        step = 0
        while not logged.is_terminal():
            x = rnd.random()
            if x < 0.08:
                agent, draw = rnd.randrange(logged.n_agents), rnd.randrange(1000)
                other = rnd.randrange(logged.n_agents)   # a second world from the same state (a search's root)
                _same(fast.determinise(other, draw + 1), logged.determinise(other, draw + 1), (index, step, "again"))
                fast, logged = fast.determinise(agent, draw), logged.determinise(agent, draw)
            elif x < 0.5:
                action = rnd.choice(logged.legal_actions())
                fast.apply(action)
                logged.apply(action)
            else:
                name = hunter if logged.actor() == HUNTER else town
                name = rnd.choice([name, "random"])
                assert fast.apply_policy(name) == logged.apply_policy(name), (index, step)
            if rnd.random() < 0.2:
                fast, logged = fast.clone(), logged.clone()
            _same(fast, logged, (index, step))
            step += 1


def test_array_state_fixed_sides_and_the_rollout_search():
    """Fixed sides play inside the array state as in the reference state, and the rollout search answers
    the same on both (its playouts run on the kernel either way)."""
    fixed = {"town": ("bluff", {"risk": 0.3})}
    fast, logged = STEP.new_state(5, 1, 5, None, fixed=fixed), STEP.new_state(5, 1, 5, None, fixed=fixed, log=True)
    n = 0
    while not logged.is_terminal():
        name, params = ("rollout", {"n": 2.0, "cap": 4.0}) if n % 3 == 0 else ("tracker", None)
        assert fast.apply_policy(name, params) == logged.apply_policy(name, params)
        _same(fast, logged, n)
        n += 1
    assert n
