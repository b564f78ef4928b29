"""Cursed!? user policies: numba functions in the kernel (``add_numba_policy``), any Python on the
reference engine (``add_python_policy``), and ``KernelPolicy``, which plays numba policies on the
reference engine (``replay`` of a user's numba policy).

A user kernel compiles in 20-50 s per process and set of functions (its functions merged into the
game loop by default: ``inline=True``), so the numba policies here are
three: a copy of ``threshold`` built from its functions, ``_stubborn`` (always stop, or with a parameter
an illegal play) and ``picky`` (threshold naming the highest held copy of every item it uses and
declining some Soul Crystals, with a readable Python twin: the differential test of the paths no
built-in policy takes), each registered once per test process.
"""

from __future__ import annotations

import pickle
import re
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from numba import njit

import cursedsim
from cursedsim.bits import count, highest
from cursedsim.errors import UnknownPolicyError
from cursedsim.games.cursed import GAME, kernel, reference, reference_policy
from cursedsim.games.cursed import policies as pol
from cursedsim.games.cursed import reference_policies as readable
from cursedsim.games.cursed.policies import POLICIES
from cursedsim.games.cursed.reference import USE, Action, IllegalDecision
from cursedsim.games.cursed.rules import ITEM_OF_CARD, OUTCOME_COLUMNS, RuleOptions
from cursedsim.games.cursed.state import (
    NO_CARD,
    PLAY,
    STOP,
    V_ITEMS,
    V_PILE,
    V_PILE_CARDS,
    V_POWER,
    kind_cards,
)
from cursedsim.games.cursed.user_policies import (
    USER_POLICY_ID,
    KernelPolicy,
    add_numba_policy,
    add_python_policy,
)

ROOT = Path(__file__).resolve().parents[1]
BUILT_IN = ("random", "threshold", "no_items", "counting")


@pytest.fixture(autouse=True)
def restore_policies():
    """Every test leaves the policy registry as it found it (other tests check the built-in set)."""
    before = dict(POLICIES)
    yield
    POLICIES.clear()
    POLICIES.update(before)


def outcomes(frame: pd.DataFrame) -> pd.DataFrame:
    """The outcome columns of a frame (the policy and parameter columns dropped)."""
    return frame[list(OUTCOME_COLUMNS)]


# ---------------------------------------------------------------- numba policies

@njit
def _fight(policy_id, params, rng, view, opts):
    """threshold's fight decision, from its built-in functions."""
    kind, card, target = pol.item_rules_fight(view, opts, params, True, False)
    return kind, card, target, rng


@njit
def _attack(policy_id, params, rng, view, opts, card, open_):
    """threshold's attack choices."""
    value, kind = pol.threshold_value_kind(view, opts, card, open_)
    value, kind, relic, whetstone, frenzy = pol.item_rules_attack(view, opts, card, open_, value, kind)
    return value, kind, relic, whetstone, frenzy, rng


@njit
def _crystal(policy_id, params, rng, view, opts, card, total):
    """threshold spends every Soul Crystal that captures."""
    return True, rng


@njit
def _stubborn(policy_id, params, rng, view, opts):
    """Always stop. Registered with ``sees_pile=True``, it checks that the view holds the pile's contents
    (else it answers an unknown action, which the engines refuse). With params[0] = 1 it plays card 0
    from the Backpack, which never holds it: illegal."""
    if params[0] == 1.0:
        return PLAY, 0, NO_CARD, rng
    if count(view[V_PILE_CARDS]) != view[V_PILE]:
        return 7, NO_CARD, NO_CARD, rng
    return STOP, NO_CARD, NO_CARD, rng


@njit
def _picky_fight(policy_id, params, rng, view, opts):
    """threshold's decision, but a USE names the highest held copy of its item (the canonical action
    names the lowest)."""
    kind, card, target = pol.item_rules_fight(view, opts, params, True, False)
    if kind == USE:
        card = highest(view[V_ITEMS] & kind_cards(card // 3))
    return kind, card, target, rng


@njit
def _picky_crystal(policy_id, params, rng, view, opts, card, total):
    """Spend a Soul Crystal only when the total goes over the power by an odd amount: some are declined."""
    return (total - view[V_POWER]) % 2 == 1, rng


class _PickyTwin(readable.ThresholdPolicy):
    """The readable twin of ``picky``; counts (class-wide) the uses of a copy other than the lowest held
    one and the Soul Crystals spent and declined, so the test can check the paths were taken."""

    counts = {"other_copy": 0, "spent": 0, "declined": 0}

    def __init__(self, params):
        super().__init__(**dict(zip(pol.THRESHOLD_PARAMS, (float(v) for v in params))))

    def fight(self, table, legal, rng):
        action = super().fight(table, legal, rng)
        if action.kind != USE:
            return action
        copies = [c for c in table.items if ITEM_OF_CARD[c] == ITEM_OF_CARD[action.card]]
        self.counts["other_copy"] += len(copies) > 1
        return Action(USE, max(copies), action.target)

    def crystal(self, table, card, total, rng):
        spend = (total - table.power) % 2 == 1
        self.counts["spent" if spend else "declined"] += 1
        return spend


def register_picky():
    add_numba_policy("picky", _picky_fight, _attack, _picky_crystal, params=pol.THRESHOLD_PARAMS,
                     param_docs=pol.THRESHOLD_PARAM_DOCS, doc="threshold, highest copies, some Crystals declined",
                     inline=False)   # the called path (the copy of threshold takes the merged one)
    return add_python_policy("picky_py", _PickyTwin, params=pol.THRESHOLD_PARAMS,
                             param_docs=pol.THRESHOLD_PARAM_DOCS, doc="picky's readable twin")


def register_copy(name: str = "threshold_copy", inline: bool = True):
    return add_numba_policy(name, _fight, _attack, _crystal, params=pol.THRESHOLD_PARAMS,
                            param_docs=pol.THRESHOLD_PARAM_DOCS, doc="threshold, rebuilt from its functions",
                            inline=inline)


def register_stubborn(name: str = "stubborn"):
    return add_numba_policy(name, _stubborn, _attack, _crystal, params={"illegal": 0.0}, sees_pile=True,
                            doc="always stops", inline=False)


def test_a_copy_of_threshold_plays_thresholds_games_in_worker_processes():
    """The policy travels inside the pickled game to two loky workers, which build its kernel there;
    every game, and its parameters, is threshold's. (Called, not merged: each worker compiles it anew, and
    the called kernel compiles in about half the time; the merged one is played in process elsewhere.)"""
    register_copy("threshold_called", inline=False)
    frames = []
    for params in ({}, {"k": 3, "shield_due": 1}):
        copy = cursedsim.simulate("cursed", 4000, policy="threshold_called", params=params, seed=9, n_jobs=2,
                                  chunk_size=1000, progress=False)
        threshold = cursedsim.simulate("cursed", 4000, policy="threshold", params=params, seed=9,
                                       progress=False)
        pd.testing.assert_frame_equal(outcomes(copy), outcomes(threshold))
        assert set(copy.policy) == {"threshold_called"}
        frames.append(copy)
    assert (frames[0].souls != frames[1].souls).any()   # the parameters reach the functions


def test_a_user_numba_policy_is_compiled_once_per_process():
    """Workers unpickle the policy with every chunk; the copy must reuse the kernel built in the process."""
    spec = register_copy("threshold_once")
    built = spec.impl.play_chunk()
    copy = pickle.loads(pickle.dumps(spec.impl))
    assert copy._play is None and copy.play_chunk() is built


def test_a_changed_copy_plays_its_own_games():
    """Also: with sees_pile=True the user kernel fills the view's pile contents (_stubborn checks)."""
    register_stubborn()
    frame = cursedsim.simulate("cursed", 1000, policy="stubborn", seed=9, progress=False)
    threshold = cursedsim.simulate("cursed", 1000, policy="threshold", seed=9, progress=False)
    assert (frame.weapons_drawn == 0).all() and (frame.busts == 0).all()   # it never draws
    assert (frame.used_shield == 0).all() and (frame.used_large_backpack == 0).all()   # nor uses an item
    assert frame.souls.mean() < threshold.souls.mean() and not frame.win.any()


def test_an_illegal_user_decision_raises_in_both_engines():
    register_stubborn()
    with pytest.raises(ValueError, match="not a Backpack weapon"):
        cursedsim.simulate("cursed", 10, policy="stubborn", params={"illegal": 1}, progress=False)
    with pytest.raises(IllegalDecision, match="play #0 is not open now"):
        cursedsim.replay("cursed", 0, 0, policy="stubborn", params={"illegal": 1})


def test_a_user_numba_policy_replays_the_games_the_kernel_played():
    """``replay`` plays the user's functions on the reference engine (KernelPolicy): the same games."""
    for name, spec in (("threshold_copy", register_copy()), ("stubborn", register_stubborn())):
        params = spec.param_vector()
        rows = GAME.run_chunk(4, 0, 200, 1, RuleOptions(), spec, params)
        twin = reference_policy(spec, params)
        assert isinstance(twin, KernelPolicy) and twin.policy_id == USER_POLICY_ID
        assert twin.sees_pile == (name == "stubborn")
        for i in range(200):
            expected = reference.play(4, i, RuleOptions(), twin).columns()
            assert {c: rows[c][i].item() for c in OUTCOME_COLUMNS} == expected, (name, i)
        log = cursedsim.replay("cursed", 4, 17, policy=name).splitlines()
        assert log[0].startswith(f"Cursed!? · seed 4 · game 17 · policy {name} · end: ")
        assert log[-1].startswith("WIN: " if rows["win"][17] else "LOSS: ")


VIEW_CASES = [
    {},
    {"item_timing": "before_draw", "dagger_value": "choose", "spear_kind": "choose", "starting_items": 3},
    {"overshoot": "bust", "bust": "soul_lost", "chest_loot": "draw_pile", "starting_items": 5,
     "starting_mimic": "redraw", "damage_from": "bottom"},
]


@pytest.mark.parametrize("policy", ["random", "counting"])
@pytest.mark.parametrize("variant", VIEW_CASES, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) or "defaults")
def test_kernel_policy_hands_the_built_in_numba_policies_the_kernels_view(variant, policy):
    """The numba ``random`` (which indexes the canonical action list from the view's usable items,
    Backpack and discard masks) and ``counting`` (which reads the pile's contents), asked through
    KernelPolicy on the reference engine, play the kernel's games: the view it builds is the kernel's."""
    options = RuleOptions(**variant)
    spec = GAME.policy(policy)
    params = spec.param_vector()
    rows = GAME.run_chunk(6, 0, 150, 1, options, spec, params)
    twin = KernelPolicy(spec.policy_id, params)
    assert twin.sees_pile == (policy == "counting")
    for i in range(150):
        expected = reference.play(6, i, options, twin).columns()
        assert {c: rows[c][i].item() for c in OUTCOME_COLUMNS} == expected, i


PICKY_CASES = [
    {"starting_items": 3},
    {"starting_items": 4, "whetstone_in_play": True, "item_timing": "before_draw", "turkey_cards": 6},
    {"starting_items": 5, "chest_loot": "draw_pile", "dagger_value": "choose", "items_between_fights": False,
     "empty_pile_before_chest": False},
    {"starting_items": 3, "whetstone_in_play": True, "spear_kind": "choose", "bust": "soul_lost",
     "smoke_bomb_returns_items": True},
]
PICKY_GAMES = 2_000


@pytest.mark.parametrize("variant", PICKY_CASES, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()))
def test_a_policy_naming_other_copies_and_declining_crystals_plays_the_same_games_in_both_engines(variant):
    """``picky`` as numba functions in a user kernel and as a Python policy on the reference engine, both
    through the user-policy path: every game equal, with other copies used and Crystals both spent and
    declined in these games (the card ids then differ from the canonical ones in every later shuffle)."""
    register_picky()
    _PickyTwin.counts.update(other_copy=0, spent=0, declined=0)
    kernel_frame = cursedsim.simulate("cursed", PICKY_GAMES, policy="picky", options=variant, seed=12,
                                      progress=False)
    python_frame = cursedsim.simulate("cursed", PICKY_GAMES, policy="picky_py", options=variant, seed=12,
                                      progress=False)
    pd.testing.assert_frame_equal(outcomes(kernel_frame), outcomes(python_frame))
    assert min(_PickyTwin.counts.values()) > 0, _PickyTwin.counts
    threshold = cursedsim.simulate("cursed", PICKY_GAMES, policy="threshold", options=variant, seed=12,
                                   progress=False)
    assert (outcomes(kernel_frame) != outcomes(threshold)).any(axis=None)   # other games than threshold's


def test_picky_replays_the_kernels_games_through_kernel_policy():
    """The same numba functions asked through ``KernelPolicy`` on the reference engine (``replay``)."""
    spec = register_picky() and GAME.policy("picky")
    params = spec.param_vector()
    options = RuleOptions(**PICKY_CASES[1])
    rows = GAME.run_chunk(5, 0, 150, 1, options, spec, params)
    twin = reference_policy(spec, params)
    for i in range(150):
        assert reference.play(5, i, options, twin).columns() == {c: rows[c][i].item() for c in OUTCOME_COLUMNS}, i


def test_every_kernel_function_that_asks_the_policy_is_rebuilt_for_a_user_policy():
    """A kernel function that calls the policy (``pol.decide_*``, ``pol.sees_pile``), or calls one that
    does, must be in ``POLICY_CALLERS`` (callees first): one left out would ask the built-in policy
    inside a user's kernel."""
    import inspect

    from cursedsim.games.cursed import kernel
    bodies = {name: inspect.getsource(f.py_func).split(":", 1)[1] for name, f in vars(kernel).items()
              if hasattr(f, "py_func") and f.py_func.__module__ == kernel.__name__}
    callers: set[str] = set()
    while True:
        new = {name for name, body in bodies.items() if name not in callers and (
            re.search(r"\bpol\.(decide_\w+|sees_pile)\(", body)
            or any(re.search(rf"\b{caller}\(", body) for caller in callers))}
        if not new:
            break
        callers |= new
    assert callers == set(kernel.POLICY_CALLERS)
    order = list(kernel.POLICY_CALLERS)
    for name in order:
        assert all(order.index(callee) < order.index(name) for callee in order
                   if callee != name and re.search(rf"\b{callee}\(", bodies[name])), name


# ---------------------------------------------------------------- Python policies

class _Bold(readable.ThresholdPolicy):
    """threshold that spends no Soul Crystal, with a parameter: k."""

    def __init__(self, params):
        super().__init__(k=float(params[0]))

    def crystal(self, table, card, total, rng):
        return False


def test_a_user_python_policy_runs_through_simulate_and_replays():
    add_python_policy("bold", _Bold, params={"k": 2.0}, param_docs={"k": "draw while the gap is above k"})
    frame = cursedsim.simulate("cursed", 200, policy="bold", params={"k": 1}, seed=3, progress=False)
    assert (frame.used_soul_crystal == 0).all() and set(frame.param_k) == {1.0}
    for i in range(0, 200, 9):
        expected = reference.play(3, i, RuleOptions(), _Bold([1.0])).columns()
        assert {c: frame[c].iloc[i] for c in ("win", "souls", "rounds", "damage_taken", "cards_left")} == {
            c: expected[c] for c in ("win", "souls", "rounds", "damage_taken", "cards_left")}
    log = cursedsim.replay("cursed", 3, 5, policy="bold", params={"k": 1}).splitlines()
    assert log[0] == f"Cursed!? · seed 3 · game 5 · policy bold · end: {frame['end'][5]}"
    assert log[1:] == reference.replay_log(3, 5, RuleOptions(), _Bold([1.0])).splitlines()[1:]


def test_a_user_policy_may_not_take_a_built_in_name():
    for name in BUILT_IN:
        with pytest.raises(UnknownPolicyError, match="built-in policy; choose another name .built-in: random, "
                                                     "threshold, no_items, counting"):
            add_python_policy(name, _Bold)
        with pytest.raises(UnknownPolicyError, match="built-in"):
            add_numba_policy(name, _fight, _attack, _crystal)
    assert all(POLICIES[name].impl is None for name in BUILT_IN)
    with pytest.raises(UnknownPolicyError, match="at most 12 parameters, got 13"):
        add_python_policy("wide", _Bold, params={f"p{i}": 0.0 for i in range(13)})


def test_a_user_policy_replaces_an_earlier_one_of_its_name():
    add_python_policy("bold", _Bold, params={"k": 2.0})
    spec = add_python_policy("bold", _Bold, params={"k": 4.0}, doc="bolder")
    assert GAME.policy("bold") is spec and spec.params == {"k": 4.0} and spec.doc == "bolder"


def test_the_cli_lists_and_runs_a_user_policy_registered_in_process(capsys):
    from cursedsim.cli import main

    def run(*args):
        """(exit status, stdout, stderr) of ``cursedsim ARGS`` run in-process."""
        try:
            main(list(args))
            status = 0
        except SystemExit as exit:
            status = exit.code
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    add_python_policy("bold", _Bold, params={"k": 2.0}, doc="threshold without Soul Crystals")
    status, out, _ = run("list", "cursed")
    assert status == 0 and re.search(r"bold\W+threshold without Soul Crystals\W+parameters:\W+k=2", out)
    status, out, err = run("simulate", "cursed", "--policy", "bold", "--param", "k=1", "--games", "50",
                           "--no-progress")
    assert status == 0, err
    assert "bold" in out


# ---------------------------------------------------------------- the guide

def test_the_extending_guide_documents_every_view_field_bit_and_action_code():
    """docs/extending.md's table lists every ``state.V_*`` field at its index, and the answers name every
    ``OPEN_*`` bit and action code with its value (so a new field cannot go undocumented)."""
    from cursedsim.games.cursed import state
    section = (ROOT / "docs" / "extending.md").read_text()
    section = section[section.index("## Your own Cursed!? policy"):section.index("## Another game")]
    fields = {name: value for name, value in vars(state).items() if name.startswith("V_")}
    assert sorted(fields.values()) == list(range(state.N_VIEW))
    rows = re.findall(r"^\| (\d+) \| `(V_\w+)` \|", section, re.MULTILINE)
    assert [(int(index), name) for index, name in rows] == sorted(((v, k) for k, v in fields.items()))
    assert f"`state.N_VIEW` ({state.N_VIEW})" in section
    for name in ("OPEN_VALUE", "OPEN_KIND", "OPEN_RELIC", "OPEN_WHETSTONE", "OPEN_FRENZY", "DRAW", "PLAY", "USE",
                 "STOP", "NO_CARD", "ARMED_WHETSTONE", "ARMED_FRENZY"):
        assert f"`state.{name}` ({getattr(state, name)}" in section, name


def test_the_extending_guide_example_runs():
    """docs/extending.md's Cursed!? numba policy example, run as written with fewer games and in this
    process: 2 workers would each compile its merged kernel for 2,000 games (92 s in CI before); the worker path
    is test_a_copy_of_threshold_plays_thresholds_games_in_worker_processes's."""
    text = (ROOT / "docs" / "extending.md").read_text()
    section = text[text.index("## Your own Cursed!? policy"):]
    code = re.findall(r"```python\n(.*?)```", section, re.DOTALL)[0]
    assert "1_000_000" in code and "n_jobs=2" in code
    namespace: dict = {}
    code = code.replace("1_000_000", "2_000").replace("n_jobs=2", "n_jobs=1")
    exec(textwrap.dedent(code), namespace)  # noqa: S102 (the guide's code)
    frame = namespace["frame"]
    assert len(frame) == 2_000 and set(frame.policy) == {"careful"} and set(frame.param_k) == {1.0}
    threshold = cursedsim.simulate("cursed", 2_000, policy="threshold", params={"k": 1}, progress=False)
    assert (outcomes(frame) != outcomes(threshold)).any(axis=None)   # its change plays other games


def test_a_user_policy_is_merged_into_the_loop_unless_told_not_to(monkeypatch):
    """By default the kernel is built over copies of the user's functions that numba inlines (the
    built-in policies' fast path); inline=False hands it the functions themselves. Both are cached apart."""
    from cursedsim.games.cursed.user_policies import NumbaPolicy
    from cursedsim.kernel_rebuild import merged

    @njit
    def fight(policy_id, params, rng, view, opts):
        return STOP, NO_CARD, NO_CARD, rng

    built = []
    monkeypatch.setattr(kernel, "build_play_chunk", lambda *functions: built.append(functions) or len(built))
    assert NumbaPolicy(fight, _attack, _crystal).play_chunk() == 1
    assert NumbaPolicy(fight, _attack, _crystal, inline=False).play_chunk() == 2
    assert NumbaPolicy(fight, _attack, _crystal).play_chunk() == 1        # built once per process
    merged_fns, called_fns = built[0][:3], built[1][:3]
    assert all(f.targetoptions["inline"] == "always" for f in merged_fns)
    assert [f.py_func for f in merged_fns] == [fight.py_func, _attack.py_func, _crystal.py_func]
    assert called_fns == (fight, _attack, _crystal)
    assert merged(merged_fns[0]) is merged_fns[0] and merged(len) is len
    assert pickle.loads(pickle.dumps(NumbaPolicy(fight, _attack, _crystal, inline=False))).inline is False

