"""The clairvoyant bound of Verflucht! (issue 14): on the runner's games, every built-in policy's win is
a clairvoyant win, and every exact clairvoyant win replays through the reference engine as a win."""

from __future__ import annotations

import pytest

import cursedsim
from cursedsim.games import get_game
from cursedsim.games.verflucht import reference
from cursedsim.games.verflucht.clairvoyant import ScriptedPolicy, _pareto, _spends, _values, solve, solve_chunk
from cursedsim.games.verflucht.rules import RuleOptions

SEED = 14


def mask(*values):
    m = 0
    for v in values:
        m |= 1 << v
    return m


def check_bound(players: int, n_games: int, options: dict, budget: int, search_policies: bool = False) -> dict:
    """Policy win => clairvoyant win on each game, and each exact win replays as a win; returns counts.
    The kernel policies always; the search policies (ISMCTS, slow) only with ``search_policies``."""
    opts = RuleOptions(**options)
    sols = [solve(SEED, i, players, opts, budget=budget) for i in range(n_games)]
    for name, spec in get_game("verflucht").policies.items():
        if spec.engine != "kernel" and not search_policies:
            continue
        frame = cursedsim.simulate("verflucht", n_games, players=players, policy=name, seed=SEED,
                                   options=options, progress=False)
        for i, won in enumerate(frame["win"]):
            assert not won or sols[i].won, f"{name} won game {i} at {players} players, the clairvoyant lost it"
    for i, sol in enumerate(sols):
        if sol.won and sol.exact:
            outcome = reference.play(SEED, i, players, opts, ScriptedPolicy(sol.line))
            assert outcome.win, f"the clairvoyant line of game {i} at {players} players does not win"
        if not sol.exact:
            assert sol.won, "an unsettled game must count as won (upper bound)"
    return {"exact": sum(s.exact for s in sols), "won": sum(s.won for s in sols)}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_policy_win_is_a_clairvoyant_win_and_lines_replay(players):
    counts = check_bound(players, 40, {}, budget=300)
    assert counts["exact"] > 0, "no game settled: the test would check nothing"


def test_non_default_option_partial_items_before_seal():
    counts = check_bound(3, 40, {"partial_items_before_seal": True}, budget=300)
    assert counts["exact"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_bound_on_200_games(players):
    check_bound(players, 200, {}, budget=2000)


@pytest.mark.slow
def test_bound_holds_for_the_search_policies_too():
    check_bound(3, 10, {}, budget=300, search_policies=True)


def test_solve_chunk_columns_match_solve():
    chunk = solve_chunk(SEED, 3, 4, 3, RuleOptions(seals=1), budget=200)
    assert set(chunk) == {"clairvoyant_won", "clairvoyant_exact", "clairvoyant_nodes"}
    for j in range(4):
        sol = solve(SEED, 3 + j, 3, RuleOptions(seals=1), budget=200)
        assert (chunk["clairvoyant_won"][j], chunk["clairvoyant_exact"][j], chunk["clairvoyant_nodes"][j]) == (
            sol.won, sol.exact, sol.nodes)


def test_budget_of_zero_nodes_gives_an_upper_bound():
    sol = solve(SEED, 0, 3, budget=0)
    assert sol.won and not sol.exact and sol.line == {}


def test_spends_are_the_minimal_sufficing_sets_or_all_of_them():
    hand = mask(3, 5, 9)
    assert sorted(map(_values, _spends(hand, 8, False))) == [[3, 5], [9]]
    assert sorted(map(_values, _spends(hand, 8, True))) == [[3, 5], [3, 5, 9], [3, 9], [5, 9], [9]]
    assert _spends(hand, 18, False) == []


def test_pareto_drops_outcomes_whose_hands_are_subsets_of_another():
    options = [((mask(1), mask(2)), "a"), ((mask(1, 4), mask(2)), "b"), ((mask(7), 0), "c")]
    assert [o[1] for o in _pareto(options)] == ["b", "c"]
