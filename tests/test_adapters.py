"""The Gymnasium, PettingZoo and OpenSpiel adapters (cursedsim.adapters): each library's own checker
passes, on a tiny test-only game and on every game whose step API exists; an episode is the runner's
row; the docs' examples run."""

from __future__ import annotations

import copy
import importlib
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from cursedsim.step.api import TERMINAL, StepSpec, StepState, check_action

# ---------------------------------------------------------------------------------------------------
# A tiny two-agent betting game with a hidden card each (test-only): p0 checks or bets; p1 answers;
# after check-bet p0 folds or calls; the higher card wins a showdown.

CHECK, BET = 0, 1
CARDS = 5


class ToyState(StepState):
    """Cards dealt from (seed, index); each agent's policy stream from (seed, index, agent)."""

    def __init__(self, seed: int, index: int):
        self.spec = TOY
        rng = np.random.default_rng([seed, index])
        self.cards = [int(c) for c in rng.choice(CARDS, 2, replace=False)]
        self.streams = [np.random.default_rng([seed, index, 100 + agent]) for agent in range(2)]
        self.hist: list[int] = []

    def actor(self):
        if self.hist in ([], [CHECK, BET]):
            return 0
        if len(self.hist) == 1:
            return 1
        return TERMINAL

    def legal_actions(self):
        return [] if self.is_terminal() else [CHECK, BET]

    def apply(self, action):
        self.hist.append(check_action(self, action))

    def apply_policy(self, policy, params=None):
        card = self.cards[self.actor()]
        if policy == "honest":
            action = BET if card >= 2 else CHECK
        elif policy == "random":
            action = int(self.streams[self.actor()].random() < 0.5)
        else:
            raise ValueError(policy)
        self.apply(action)
        return action

    def clone(self):
        return copy.deepcopy(self)

    def is_terminal(self):
        return self.hist not in ([], [CHECK], [BET], [CHECK, BET])

    def _winner(self):
        if self.hist == [BET, CHECK]:
            return 0
        if self.hist == [CHECK, BET, CHECK]:
            return 1
        return int(self.cards[1] > self.cards[0])

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        return [float(self._winner() == agent) for agent in range(2)]

    def information(self, agent):
        return f"agent {agent} card {self.cards[agent]} moves {self.hist}"

    def observation(self, agent):
        obs = np.zeros(CARDS + 6, np.float32)
        obs[self.cards[agent]] = 1
        for i, action in enumerate(self.hist):
            obs[CARDS + 2 * i + action] = 1
        return obs

    def determinise(self, agent, seed):
        copy_ = self.clone()
        rng = np.random.default_rng(seed)
        other = [c for c in range(CARDS) if c != self.cards[agent]]
        copy_.cards[1 - agent] = int(rng.choice(other))
        copy_.streams = [np.random.default_rng([seed, a]) for a in range(2)]
        return copy_

    def outcome(self):
        return {"winner": self._winner(), "moves": len(self.hist)}

    def action_name(self, action):
        return ("check", "bet")[action]


TOY = StepSpec(name="toy", agents=lambda players, options: ("p0", "p1"), num_actions=2,
               observation_size=lambda players, options: CARDS + 6,
               agent_sides=lambda players, options: ("p0", "p1"),
               new_state=lambda seed, index, players, options, fixed=None, log=False: ToyState(seed, index))
TOY_POLICIES = {"p0": "random", "p1": "random"}

GAMES = ["cursed", "verflucht", "gifts", "covens", "village"]


def step_or_skip(game):
    """The game's StepSpec, or a skip while its step.py has not landed."""
    try:
        module = importlib.import_module(f"cursedsim.games.{game}.step")
    except ImportError as error:
        pytest.skip(f"{game}: step API not importable yet ({error})")
    return module.STEP


# ---------------------------------------------------------------------------------------------------
# Gymnasium

def test_gymnasium_check_env_on_the_toy():
    from gymnasium.utils.env_checker import check_env

    from cursedsim.adapters.gymnasium_env import CursedsimEnv
    check_env(CursedsimEnv(TOY, agent=1, others=TOY_POLICIES), skip_render_check=True)


def test_gymnasium_episodes_follow_the_run_indices_and_the_policies():
    from cursedsim.adapters.gymnasium_env import CursedsimEnv
    env = CursedsimEnv(TOY, agent="p1", others=TOY_POLICIES, seed=7)
    for expected_index in [0, 1, 2]:
        obs, info = env.reset() if expected_index else env.reset(seed=11)
        assert (info["seed"], info["index"]) == (11, expected_index)
        done = False
        while not done:
            obs, reward, done, truncated, info = env.step_policy()
        reference = TOY.new_state(11, expected_index, None, None)
        reference.play_out({0: ("random", None), 1: ("random", None)})
        assert info["outcome"] == reference.outcome()
        assert reward == reference.returns()[1]
    _, info = env.reset(options={"index": 40})
    assert info["index"] == 40


def test_gymnasium_illegal_action_ends_the_episode_with_minus_one():
    from cursedsim.adapters.gymnasium_env import CursedsimEnv
    env = CursedsimEnv(TOY, agent=0, others=TOY_POLICIES)
    obs, _ = env.reset(seed=3)
    assert obs["action_mask"].tolist() == [1, 1]
    obs, reward, terminated, truncated, info = env.step(5)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)


def test_gymnasium_ids_are_registered():
    import gymnasium

    import cursedsim.adapters.gymnasium_env  # noqa: F401  (registers the ids)
    for game in GAMES:
        assert gymnasium.spec(f"cursedsim/{game}-v0").kwargs == {"game": game}


# ---------------------------------------------------------------------------------------------------
# PettingZoo

def test_pettingzoo_api_test_on_the_toy():
    from pettingzoo.test import api_test

    from cursedsim.adapters.pettingzoo_env import cursedsim_aec_env
    api_test(cursedsim_aec_env(TOY), num_cycles=50)


def test_pettingzoo_rewards_at_the_end_are_the_returns():
    from cursedsim.adapters.pettingzoo_env import cursedsim_aec_env
    env = cursedsim_aec_env(TOY, seed=5)
    for index in range(6):
        env.reset() if index else env.reset(seed=5)
        totals = {agent: 0.0 for agent in env.possible_agents}
        for agent in env.agent_iter():
            _, reward, terminated, truncated, info = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
            else:
                env.step_policy("random")
        reference = TOY.new_state(5, index, None, None)
        reference.play_out({0: ("random", None), 1: ("random", None)})
        assert [totals[a] for a in env.possible_agents] == reference.returns()


def test_pettingzoo_illegal_action_costs_the_mover():
    from cursedsim.adapters.pettingzoo_env import cursedsim_aec_env
    env = cursedsim_aec_env(TOY)
    env.reset(seed=0)
    mover = env.agent_selection
    env.step(9)
    assert env.rewards[mover] == -1.0 and all(env.terminations.values())
    assert env.infos[mover]["illegal_action"] is True


# ---------------------------------------------------------------------------------------------------
# OpenSpiel

def mcts_bots(game, simulations, seed):
    from open_spiel.python.algorithms import mcts
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return [mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rng)
            for _ in range(game.num_players())]


def test_openspiel_toy_plays_with_mcts_and_random_simulation():
    import pyspiel
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from cursedsim.adapters.openspiel_game import register
    name = register(TOY)
    assert register(TOY) == name   # idempotent
    for params in ["", "(deals=4,index=10)"]:
        game = pyspiel.load_game(name + params)
        returns = evaluate_bots(game.new_initial_state(), mcts_bots(game, 8, 1), np.random.RandomState(2))
        assert sorted(returns) == [0.0, 1.0]
        pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


def test_openspiel_state_matches_the_step_state_and_resamples_hidden_cards():
    import pyspiel

    from cursedsim.adapters.openspiel_game import register
    game = pyspiel.load_game(register(TOY), {"seed": 4, "index": 2})
    state = game.new_initial_state()
    reference = TOY.new_state(4, 2, None, None)
    assert state.current_player() == 0 and state.legal_actions() == reference.legal_actions()
    state.apply_action(BET)
    reference.apply(BET)
    assert state.information_state_string(1) == reference.information(1)
    assert np.array_equal(np.array(state.observation_tensor(0), np.float32), reference.observation(0))
    sampler = pyspiel.UniformProbabilitySampler(0, 0.0, 1.0)
    seen = set()
    for _ in range(20):
        other = state.resample_from_infostate(1, sampler)
        assert other.information_state_string(1) == state.information_state_string(1)
        seen.add(other.information_state_string(0))
    assert len(seen) > 1   # the card p1 cannot see is redrawn
    clone = state.clone()
    clone.apply_action(CHECK)
    assert clone.is_terminal() and not state.is_terminal()
    state.apply_action(CHECK)
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.returns() == [1.0, 0.0]


# ---------------------------------------------------------------------------------------------------
# Every game whose step API exists

def outcome_matches_row(outcome, row, game):
    """The step state's outcome equals the runner's row on every outcome column (categories by name)."""
    for column in game.outcome_columns:
        value, expected = outcome[column], row[column]
        categories = game.outcome_categories.get(column)
        if categories is not None and isinstance(value, (int, np.integer)) and isinstance(expected, str):
            value = categories[value]
        if isinstance(expected, float) and np.isnan(expected):
            assert value is None or np.isnan(value), column
        else:
            assert value == expected, (column, value, expected)


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env_on_every_game(game):
    step_or_skip(game)
    from gymnasium.utils.env_checker import check_env

    from cursedsim.adapters.gymnasium_env import CursedsimEnv
    check_env(CursedsimEnv(game), skip_render_check=True)


#: The runner's policies for the row test where a default is not a player's (village: automata).
ROW_POLICY = {"village": {"wizard": "planner", "monster": "rabid"}}


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_episode_i_is_the_runner_row_i(game):
    step_or_skip(game)
    import cursedsim
    from cursedsim.adapters.gymnasium_env import CursedsimEnv
    from cursedsim.games import get_game
    policy = ROW_POLICY.get(game)
    frame = cursedsim.simulate(game, 3, seed=2026, policy=policy, progress=False)
    env = CursedsimEnv(game)
    mine = (policy or {}).get(env.setup.sides[0])
    for index in range(3):
        env.reset(seed=2026) if index == 0 else env.reset()
        done, info = False, {}
        while not done:
            _, _, done, _, info = env.step_policy(mine)
        outcome_matches_row(info["outcome"], frame.iloc[index], get_game(game))


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test_on_every_game(game):
    step_or_skip(game)
    from pettingzoo.test import api_test

    from cursedsim.adapters.pettingzoo_env import cursedsim_aec_env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # api_test warns of dict observations and all-zero masks
        api_test(cursedsim_aec_env(game), num_cycles=30)


#: OpenSpiel parameters of the quick MCTS test: the village duel's random rollouts run ~1,000 decisions
#: (about ten minutes of search here), so the quick test plays its solo mode; the duel is marked slow.
MCTS_PARAMS = {"village": {"fixed": "monster=rabid"}}


@pytest.mark.parametrize("game", GAMES)
def test_openspiel_mcts_plays_every_game_to_the_end(game):
    play_with_mcts(game, MCTS_PARAMS.get(game, {}))


@pytest.mark.slow
def test_openspiel_mcts_plays_the_village_duel_to_the_end():
    play_with_mcts("village", {})


def play_with_mcts(game, params):
    step_or_skip(game)
    import pyspiel
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from cursedsim.adapters.openspiel_game import register
    loaded = pyspiel.load_game(register(game), params)
    returns = evaluate_bots(loaded.new_initial_state(), mcts_bots(loaded, 4, 0), np.random.RandomState(0))
    assert len(returns) == loaded.num_players() and all(r in (0.0, 1.0) for r in returns)
    pyspiel.random_sim_test(loaded, num_sims=2, serialize=False, verbose=False)


# ---------------------------------------------------------------------------------------------------
# docs/adapters.md: every example runs

DOC = Path(__file__).resolve().parents[1] / "docs" / "adapters.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S) if DOC.exists() else []


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_docs_example_runs(number):
    code = EXAMPLES[number]
    for game in re.findall(r'"(cursed|verflucht|gifts|covens|village)"', code):
        step_or_skip(game)
    exec(compile(code, f"docs/adapters.md example {number + 1}", "exec"), {})


def test_gymnasium_a_game_over_before_the_agent_acts_ends_at_the_first_step():
    step_or_skip("village")
    import cursedsim
    from cursedsim.adapters.gymnasium_env import CursedsimEnv
    from cursedsim.games import get_game
    automata = {"wizard": "possessed", "monster": "rabid"}   # the 0-player game: no agent ever acts
    frame = cursedsim.simulate("village", 1, seed=5, policy=automata, progress=False)
    env = CursedsimEnv("village", fixed=automata)
    obs, _ = env.reset(seed=5)
    assert not obs["action_mask"].any()
    _, reward, terminated, _, info = env.step(0)
    assert terminated and reward == info["returns"][0]
    outcome_matches_row(info["outcome"], frame.iloc[0], get_game("village"))


def test_openspiel_parameter_pairs():
    from cursedsim.adapters.openspiel_game import parse_pairs
    assert parse_pairs("") == {}
    assert parse_pairs("a=1; b=x;c=true;d=0.5") == {"a": 1, "b": "x", "c": True, "d": 0.5}
    with pytest.raises(Exception, match="name=value"):
        parse_pairs("a")


#: Player policies of every side for the AEC row test (village's defaults are automata: a duel here).
AEC_ROW_POLICY = {"village": {"wizard": "planner", "monster": "glutton"}}


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_game_i_is_the_runner_row_i(game):
    step_or_skip(game)
    import cursedsim
    from cursedsim.adapters.pettingzoo_env import cursedsim_aec_env
    from cursedsim.games import get_game
    policy = AEC_ROW_POLICY.get(game)
    frame = cursedsim.simulate(game, 2, seed=99, policy=policy, progress=False)
    env = cursedsim_aec_env(game)
    for index in range(2):
        env.reset(seed=99) if index == 0 else env.reset()
        outcome = None
        for agent in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                outcome = info["outcome"]
                env.step(None)
            else:
                side = env.setup.sides[env.possible_agents.index(agent)]
                env.step_policy((policy or {}).get(side))
        outcome_matches_row(outcome, frame.iloc[index], get_game(game))
