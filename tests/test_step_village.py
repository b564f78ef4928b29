"""The step API of So, You've Been Cursed. (``cursedsim.games.village.step``): in every mode (duel, each solo
game, the 0-player game) a game stepped with ``apply_policy`` is the runner's row of that game; sides fixed
inside the engine play as in the runner; an agent's information hides the other hand, the deck orders and
the Town Guard tiles, which ``determinise`` redraws. What every game meets (copies independent, illegal
actions named, observations bounded, ...) is checked once for all games by tests/game_contract.py, in the
duel under the default rules; here what is So, You've Been Cursed.'s own, and the solo and 0-player
modes."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

import cursedsim
from cursedsim.errors import PlayersError, UnknownPolicyError
from cursedsim.games.village import board as B
from cursedsim.games.village import rules as R
from cursedsim.games.village import step as S
from cursedsim.games.village import wizard_player as WP
from cursedsim.step.api import TERMINAL, IllegalActionError, step_spec

STEP = step_spec("village")
W, M = 0, 1

#: Non-default rules that open decisions (moves alone, the Monster's arrival house, padded decks).
OPTIONS_A = {"night_arrival_chooser": "monster", "wizard_move_alone": True, "full_stomach": "stop",
             "quiet_night_adjusts": True, "guard_movement_loss": "carry_over", "unmatched_meal": "no_change",
             "max_turns": 80}
OPTIONS_B = {"unlisted_cards": "copies", "panic_threshold": "above_level", "rabid_spent_actions": "free",
             "rabid_get_busy": "ignored", "automata_targets": "rabid_cards", "plethora_at_market": False,
             "start_location_visited": False, "pw_mix_counts": "matching", "pw_steal_amount": "best_expectation"}
OPTIONS_C = {"unlisted_cards": "blank", "spell_deck_size": 20, "power_deck_size": 24, "possessed_deck_size": 12,
             "rabid_deck_size": 14, "rabid_path": "stop_at_villagers", "pw_distance": "crossings",
             "max_turns": 60}
PLANNER = {"spell_min": 2, "coin_target": 6, "declare_cap": 2, "card_keep": 5}
GLUTTON = {"night_panic": 4, "max_buy": 3, "match": 2}

#: (wizard policy, monster policy, params by side, options, agents, games): every built-in policy of both
#: sides, every mode, agents on both sides or one (the other side fixed inside the engine).
CONFIGS = [
    ("planner", "glutton", {}, {}, "both", 80),
    ("random", "random", {}, {}, "both", 25),
    ("planner", "random", {"wizard": PLANNER}, OPTIONS_A, "both", 40),
    ("random", "glutton", {"monster": GLUTTON}, OPTIONS_B, "both", 40),
    ("planner", "glutton", {"wizard": PLANNER, "monster": GLUTTON}, OPTIONS_C, "wizard", 40),
    ("random", "glutton", {}, OPTIONS_A, "monster", 40),
    ("planner", "random", {}, {}, "wizard", 30),
    ("planner", "rabid", {}, {}, "wizard", 80),
    ("random", "rabid", {}, OPTIONS_B, "wizard", 50),
    ("planner", "rabid", {"wizard": PLANNER}, OPTIONS_C, "wizard", 50),
    ("possessed", "glutton", {}, {}, "monster", 80),
    ("possessed", "random", {}, OPTIONS_A, "monster", 50),
    ("possessed", "glutton", {"monster": GLUTTON}, OPTIONS_B, "monster", 50),
    ("possessed", "rabid", {}, {}, "none", 100),
    ("possessed", "rabid", {}, OPTIONS_B, "none", 60),
]


def frame_codes(frame, column):
    """A frame column as the engines' integer codes (categorical columns back to their codes)."""
    values = frame[column]
    return values.cat.codes.to_numpy() if hasattr(values, "cat") else values.to_numpy()


def make_state(seed, index, wizard, monster, params, options, agents, log=False):
    """The state of that game with the sides that are not agents fixed inside the engine."""
    policy = {"wizard": wizard, "monster": monster}
    acting = {"both": ("wizard", "monster"), "none": ()}.get(agents, (agents,))
    fixed = {side: (policy[side], params.get(side)) for side in R.SIDES if side not in acting}
    return STEP.new_state(seed, index, 2, options, fixed=fixed or None, log=log)


@pytest.mark.parametrize("wizard, monster, params, options, agents, games", CONFIGS,
                         ids=[f"{c[0]}-{c[1]}-{c[4]}-{sorted(c[2])}-{len(c[3])}" for c in CONFIGS])
def test_apply_policy_plays_the_runner_row(wizard, monster, params, options, agents, games):
    seed = 1414
    frame = cursedsim.simulate("village", games, policy={"wizard": wizard, "monster": monster}, params=params,
                               options=options, seed=seed, progress=False)
    columns = {column: frame_codes(frame, column) for column in R.FRAME_OUTCOME_COLUMNS}
    policies = {W: (wizard, params.get("wizard")), M: (monster, params.get("monster"))}
    for index in range(games):
        state = make_state(seed, index, wizard, monster, params, options, agents)
        if agents == "none":                 # the 0-player game is played to its end by new_state
            assert state.is_terminal() and state.actor() == TERMINAL and state.acting_agents() == ()
        state.play_out(policies)
        got = state.outcome()
        expected = {column: columns[column][index].item() for column in R.FRAME_OUTCOME_COLUMNS}
        assert got == expected, (index, {c: (got[c], expected[c]) for c in got if got[c] != expected[c]})
        assert state.returns() == [float(expected["wizard_won"]), float(expected["monster_won"])]
        assert R.MODE_NAMES[got["mode"]] == frame["mode"].iloc[index]


def _board_file(tmp_path):
    """A generated board written as a board file (JSON), and the board."""
    b = B.generate(3)
    data = json.loads(b.canonical())
    raw = {"schema": 1, "name": b.name, "reconstructed": True,
           "district": [{"id": d, "name": n} for d, n in data["district"]],
           "location": [{"id": i, "kind": k, "district": d, **({"number": n, "coins": c, "price": p}
                                                               if k == "house" else {})}
                        for i, k, d, n, c, p in data["location"]],
           "road": [{"a": a, "b": x, "kind": k} for a, x, k in data["road"]],
           "pasture": [{"id": i, "sheep": s, "next_to": n} for i, s, n in data["pasture"]],
           "panic": {s: {"length": ln, "start": st, **dict(e)} for s, ln, st, e in data["panic"]},
           "cure": {s: {"sequence": q} for s, q in data["cure"]},
           "curse": {s: {"length": ln, "start": st} for s, ln, st in data["curse"]}}
    path = tmp_path / "board.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return str(path), b


@pytest.mark.parametrize("wizard, monster, agents", [("planner", "glutton", "both"), ("random", "rabid", "wizard"),
                                                     ("possessed", "random", "monster"),
                                                     ("possessed", "rabid", "none")])
def test_a_board_file_option_is_dealt_as_the_runner_deals_it(tmp_path, wizard, monster, agents):
    path, board = _board_file(tmp_path)
    options = {"board": path}
    assert B.board_of(path).digest == board.digest
    seed, games = 77, 30
    frame = cursedsim.simulate("village", games, policy={"wizard": wizard, "monster": monster}, options=options,
                               seed=seed, progress=False)
    columns = {column: frame_codes(frame, column) for column in R.FRAME_OUTCOME_COLUMNS}
    for index in range(games):
        state = make_state(seed, index, wizard, monster, {}, options, agents)
        assert state.table.board.digest == board.digest
        state.play_out({W: (wizard, None), M: (monster, None)})
        assert state.outcome() == {c: columns[c][index].item() for c in R.FRAME_OUTCOME_COLUMNS}, index
    assert STEP.observation_size(2, options) == len(state.observation(W))


def random_playout(state, seed, limit=20_000):
    """Uniform random legal actions to the end; the decisions met, each state's checks on the way."""
    chooser = random.Random(seed)
    decisions = set()
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and legal == sorted(legal) and all(0 <= a < STEP.num_actions for a in legal)
        side, decision = state._request.context
        assert state.actor() == (W if side == "wizard" else M) and state.actor() in state.acting_agents()
        assert {S.decode(a)[1] for a in legal} == {decision}
        decisions.add(decision)
        state.apply(chooser.choice(legal))
        steps += 1
        assert steps < limit
    assert state.legal_actions() == [] and state.actor() == TERMINAL
    return decisions


def test_random_playouts_end_and_meet_every_kind_of_decision():
    met = set()
    cases = [({}, None), (OPTIONS_A, None), (OPTIONS_B, None), (OPTIONS_C, None), ({}, {"monster": "rabid"}),
             (OPTIONS_A, {"wizard": "possessed"}), (OPTIONS_B, {"monster": "rabid"})]
    for n, (options, fixed) in enumerate(cases):
        for index in range(4):
            state = STEP.new_state(5, index, 2, options, fixed=fixed)
            met |= random_playout(state, 100 * n + index)
            assert state.returns() in ([1.0, 0.0], [0.0, 1.0], [0.0, 0.0])
            assert state.returns() == [float(state.outcome()["wizard_won"]), float(state.outcome()["monster_won"])]
    # the common decisions of both players (rarer ones depend on the cards drawn)
    assert {WP.ACTION, WP.BUY_HOUSE, WP.STEAL_HOUSE, WP.STEAL_AMOUNT, WP.PAY, WP.MOVE_TO, WP.RM_CARD,
            "monster_turn", "monster_between", "monster_move", "monster_eat", "night_arrival_house"} <= met


def test_the_0_player_game_refuses_actions():
    done = STEP.new_state(2, 0, 2, None, fixed={"wizard": "possessed", "monster": "rabid"})
    with pytest.raises(IllegalActionError, match="game is over"):
        done.apply(0)
    with pytest.raises(IllegalActionError, match="game is over"):
        done.apply_policy("planner")


def test_new_state_checks_players_fixed_and_policies():
    with pytest.raises(PlayersError):
        STEP.new_state(0, 0, 3, None)
    with pytest.raises(UnknownPolicyError, match="valid sides: wizard, monster"):
        STEP.new_state(0, 0, 2, None, fixed={"hunter": "tracker"})
    with pytest.raises(UnknownPolicyError, match="planner"):
        STEP.new_state(0, 0, 2, None, fixed={"wizard": "glutton"})
    with pytest.raises(UnknownPolicyError, match="no parameter"):
        STEP.new_state(0, 0, 2, None, fixed={"monster": ("glutton", {"nope": 1})})
    state = STEP.new_state(0, 0, 2, None)
    assert state.acting_agents() == (W, M) and STEP.agents(2, None) == ("wizard", "monster")
    assert [state.side_of(a) for a in (W, M)] == list(STEP.agent_sides(2, None))
    with pytest.raises(UnknownPolicyError, match="automaton"):
        state.apply_policy("possessed")
    with pytest.raises(UnknownPolicyError, match="random, planner"):
        state.apply_policy("glutton")
    solo = STEP.new_state(0, 0, 2, None, fixed={"wizard": "possessed"})
    assert solo.acting_agents() == (M,) and solo.actor() == M and solo.table.mode == R.POSSESSED_WIZARD


def _all_cards(t):
    """Every Spell and Power card of the table wherever it lies (a determinisation keeps them all)."""
    zones = (t.spell_hand, t.spell_deck, t.spell_discard, t.power_hand, t.power_deck, t.power_discard,
             t.in_front_of_wizard, t.in_front_of_monster)
    return Counter(c.id for zone in zones for c in zone)


def _hidden(t, agent):
    """What ``agent`` cannot see: the other hand, the deck orders, the Town Guard tiles."""
    other = t.power_hand if agent == W else t.spell_hand
    return ([c.id for c in other], [c.id for c in t.spell_deck], [c.id for c in t.power_deck],
            [c.id for c in t.pw_deck], [c.id for c in t.rm_deck], list(t.guards))


def _check_determinisations(state, agent, seed):
    """Two determinisations for ``agent`` keep its information and every card (the contract checks the
    observation and legal actions, in the duel); whether their hidden parts differ."""
    info = state.information(agent)
    a, b = state.determinise(agent, seed), state.determinise(agent, seed + 1)
    for d in (a, b):
        assert d.information(agent) == info
        assert _all_cards(d.table) == _all_cards(state.table)
        if state.casting() >= 0:          # the card a Wizard is casting is shown: it stays where it is
            assert d.casting() == state.casting()
            assert d.table.spell_hand[d.casting()] is state.table.spell_hand[state.casting()]
    return a, _hidden(a.table, agent) != _hidden(b.table, agent)


@pytest.mark.parametrize("options, fixed", [({}, None), (OPTIONS_A, None), ({}, {"monster": "rabid"}),
                                            (OPTIONS_B, {"wizard": "possessed"}),
                                            (OPTIONS_C, {"monster": "glutton"})])
def test_determinise_keeps_the_information_and_redraws_the_hidden(options, fixed):
    differ = checked = 0
    for index in range(2):
        state = STEP.new_state(21, index, 2, options, fixed=fixed)
        chooser = random.Random(index)
        steps = 0
        while not state.is_terminal() and steps < 150:
            if steps % 9 == 0:
                for agent in state.acting_agents():
                    a, hidden_differs = _check_determinisations(state, agent, 1000 + steps)
                    differ += hidden_differs
                    checked += 1
                a.play_out({W: ("random", None), M: ("random", None)})   # a determinisation plays on
                assert a.is_terminal()
            state.apply(chooser.choice(state.legal_actions()) if steps % 2 else state.legal_actions()[-1])
            steps += 1
    assert checked and differ > checked // 2


def test_a_spell_being_cast_stays_in_the_hand_the_monster_redraws():
    """The Wizard agent chose a Spell and now picks the Rabid Monster card it uses (a Spell with a location
    would pay its way first): a determinisation from the Monster's side redraws the Wizard's hand but that
    card, which the Monster has seen."""
    found = 0
    for index in range(30):
        state = STEP.new_state(8, index, 2, None, fixed={"monster": "rabid"})
        while not state.is_terminal() and found < 3:
            if state.casting() >= 0 and state.actor() == W:
                _check_determinisations(state, M, 50 + index)
                found += 1
                break
            state.apply_policy("random")
        if found >= 3:
            break
    assert found >= 1


def test_the_other_hand_is_redrawn_and_the_own_kept():
    state = STEP.new_state(4, 1, 2, None)
    for _ in range(12):
        state.apply_policy("planner" if state.actor() == W else "glutton")
    while state.actor() != W or len(state.table.power_hand) < 2:
        state.apply_policy("planner" if state.actor() == W else "glutton")
    own = [c.id for c in state.table.spell_hand]
    others = {tuple(c.id for c in state.determinise(W, s).table.power_hand) for s in range(20)}
    mine = {tuple(c.id for c in state.determinise(W, s).table.spell_hand) for s in range(5)}
    assert mine == {tuple(own)} and len(others) > 1
    assert {len(h) for h in others} == {len(state.table.power_hand)}


def test_observation_is_a_bounded_function_of_the_information_in_the_solo_games():
    """(The contract checks the duel under the default rules.)"""
    for options, fixed in ((OPTIONS_C, {"monster": "rabid"}), (OPTIONS_B, {"wizard": "possessed"})):
        size = STEP.observation_size(2, options)
        state = STEP.new_state(8, 0, 2, options, fixed=fixed)
        chooser = random.Random(3)
        seen = {}
        while not state.is_terminal():
            for agent in (W, M):
                obs = state.observation(agent)
                assert obs.dtype == np.float32 and obs.shape == (size,)
                assert float(obs.min()) >= 0.0 and float(obs.max()) <= 1.0
                key = state.information(agent)
                if key in seen:
                    assert np.array_equal(seen[key], obs)
                seen[key] = obs
            state.apply(chooser.choice(state.legal_actions()))
        assert state.observation(W).shape == (size,)


def test_actions_by_id_are_the_policy_answers():
    """Applying the ids a policy chose, by hand, plays the same game as apply_policy."""
    a = STEP.new_state(31, 2, 2, OPTIONS_A)
    b = STEP.new_state(31, 2, 2, OPTIONS_A)
    while not a.is_terminal():
        policy = "planner" if a.actor() == W else "random"
        b.apply(a.apply_policy(policy))
    # b's random Monster stream never moved (its answers came by id): the game is the same all the same
    assert b.is_terminal() and b.outcome() == a.outcome()
    assert all(" " in a.action_name(x) for x in range(STEP.num_actions))


def test_the_logged_events_are_the_runners_replay():
    seed, index = 12, 4
    state = STEP.new_state(seed, index, 2, None, fixed={"monster": "glutton"}, log=True)
    state.play_out({W: ("planner", None)})
    text = cursedsim.replay("village", seed, index, policy={"wizard": "planner", "monster": "glutton"})
    from cursedsim.games.village import turnlog
    assert turnlog.text(state.events()) == text


class _FullReplay(S.VillageState):
    """The copies of before (issue 27 point 3): the whole history kept and replayed on a new deal."""

    def _turn_begins(self):
        kept = self.history
        super()._turn_begins()
        self.history = kept

    def _fresh(self):
        return type(self)(self.recipe, None, self._policies)


def _same_state(copied, replayed, where):
    assert copied.actor() == replayed.actor() and copied.legal_actions() == replayed.legal_actions(), where
    assert [copied.action_name(a) for a in copied.legal_actions()] == \
        [replayed.action_name(a) for a in replayed.legal_actions()], where
    for agent in (W, M):
        assert copied.information(agent) == replayed.information(agent), (where, agent)
        assert np.array_equal(copied.observation(agent), replayed.observation(agent)), (where, agent)
    assert copied.returns() == replayed.returns() and copied.casting() == replayed.casting(), where
    if replayed.is_terminal():
        assert copied.outcome() == replayed.outcome(), where


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_copies_from_the_turn_start_play_as_the_whole_history_replayed(seed):
    """A state copied from its turn's start (``TurnStart``: the table copied, the turn so far replayed) and
    one copied by replaying its whole history agree at every step: actor, legal actions and their names,
    both agents' information and observation, returns, outcome, the built-in policies' answers and the
    determinisations, through actions, policies, play-outs, copies and determinisations, in every mode
    (both sides agents, each solo game, a player side fixed, the 0-player game) and non-default options."""
    rnd = random.Random(seed)
    fixes = [None, {"monster": "rabid"}, {"wizard": "possessed"}, {"monster": ("glutton", GLUTTON)},
             {"wizard": "random"}, {"wizard": "possessed", "monster": "rabid"}]
    players = {W: ("random", "planner"), M: ("random", "glutton")}
    for index in range(4):
        fixed, options = fixes[(index + seed) % len(fixes)], rnd.choice([{}, OPTIONS_A, OPTIONS_B, OPTIONS_C])
        copied = STEP.new_state(seed, index, 2, options, fixed=fixed)
        replayed = _FullReplay(copied.recipe)
        _same_state(copied, replayed, (index, 0))
        steps = 0
        while not replayed.is_terminal():
            x = rnd.random()
            if x < 0.08:
                agent, draw = rnd.choice(copied.acting_agents()), rnd.randrange(1000)
                copied, replayed = copied.determinise(agent, draw), replayed.determinise(agent, draw)
            elif x < 0.11:
                ended = [s.clone() for s in (copied, replayed)]
                for s in ended:
                    s.play_out({a: (players[a][1], None) for a in (W, M)})
                _same_state(*ended, (index, steps, "play_out"))
            elif x < 0.55:
                action = rnd.choice(replayed.legal_actions())
                copied.apply(action)
                replayed.apply(action)
            else:
                name = rnd.choice(players[replayed.actor()])
                assert copied.apply_policy(name) == replayed.apply_policy(name), (index, steps)
            if rnd.random() < 0.3:
                copied = copied.clone()
            if rnd.random() < 0.05:
                replayed = replayed.clone()
            steps += 1
            _same_state(copied, replayed, (index, steps))
        assert isinstance(copied, S.VillageState) and len(copied.history) <= len(replayed.history)
