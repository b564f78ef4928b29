"""Cursed Gifts: the numba kernel equals the reference engine game by game (every outcome column and its
dtype, and the focus seat), over 2-6 players, every policy as focus and as field, non-default
parameters, every rule option value, the default deck and two generated decks.

Each block also asserts that its games went through what it is there to test (ripostes, Cacarma, bonus
gifts, heals, eliminations, reshuffles, chains, returned gifts, unfinished games), from the outcome
columns or from the reference's events of a sample of its games. ~11,700 games; the reference plays a
few hundred games/s, so the file takes about a minute after the kernel's compile. The ``slow`` variant
plays 10x more.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from cursedsim.games.gifts import effects as E
from cursedsim.games.gifts import kernel as K
from cursedsim.games.gifts import policy_specs as P
from cursedsim.games.gifts import reference as G
from cursedsim.games.gifts import reference_policies as RP
from cursedsim.games.gifts import rules as R
from cursedsim.games.gifts.deck import generate, load_deck

PLAYERS = range(R.MIN_PLAYERS, R.MAX_PLAYERS + 1)
POLICIES = tuple(P.POLICIES)
#: Non-default parameter vectors (heal_at, riposte_min, heal_first, keep) for the four parametric policies.
PARAMS = {"leader": [5.0, 2.0, 1.0, 1.0], "weakest_link": [8.0, 4.0, 1.0, 0.0], "spread": [3.0, 0.0, 0.0, 2.0],
          "defensive": [6.0, 1.0, 0.0, 0.0]}
OPTION_VALUES = [
    {"riposte_chains": True}, {"max_turns": 12}, {"eliminated_cards": "random_positions"},
    {"eliminated_hand": "gifts_only"}, {"cacarma": "return"}, {"cacarma_vs_inevitable": True},
    {"bonus_is_the_gift": False}, {"mugging_cost": "if_taken"}, {"mugging_take": "chosen"},
]
ALL_OTHER = {"riposte_chains": True, "eliminated_cards": "random_positions", "eliminated_hand": "gifts_only",
             "cacarma": "return", "cacarma_vs_inevitable": True, "bonus_is_the_gift": False,
             "mugging_cost": "if_taken", "mugging_take": "chosen"}
SEED = 20261201


def spec_vector(name, params=None):
    return P.POLICIES[name].param_vector() if params is None else np.asarray(params, np.float64)


def compare(seed, start, count, players, options, focus, field, focus_params=None, field_params=None,
            focus_seat=-1):
    """Kernel and reference outcomes of the same games; asserts equality column by column, dtypes too."""
    k = K.run_chunk(seed, start, count, players, options, focus, spec_vector(focus, focus_params), field,
                    spec_vector(field, field_params), focus_seat)
    r = G.play_chunk_sides(seed, start, count, players, options, RP.make(focus, focus_params),
                           RP.make(field, field_params), focus_seat)
    assert set(k) == set(R.OUTCOME_DTYPES) | {"focus_seat"} == set(r)
    for column in r:
        assert k[column].dtype == r[column].dtype, column
        if column in R.OUTCOME_DTYPES:
            assert k[column].dtype == np.dtype(R.OUTCOME_DTYPES[column]), column
        diff = np.flatnonzero(k[column] != r[column])
        assert diff.size == 0, (f"{column} differs at game {start + int(diff[0])} ({players} players, focus {focus}, "
                                f"field {field}, options {options}): kernel {k[column][diff[0]]}, "
                                f"reference {r[column][diff[0]]}")
    return r


def merge(frames):
    return {c: np.concatenate([f[c] for f in frames]) for c in frames[0]}


def events_of(seed, indices, players, options, focus, field, focus_seat=-1, focus_params=None,
              field_params=None):
    """Counts of the reference's event kinds (and riposte-on-riposte answers) over the given games."""
    counts = Counter()
    deck = G.deck_for(options)
    types = deck.arrays()["type"]
    for i in indices:
        fs = G.focus_seat_of(i, players, focus_seat)
        pols = [RP.make(focus, focus_params) if s == fs else RP.make(field, field_params) for s in range(players)]
        for ev in G.replay_events(seed, i, players, options, pols):
            counts[ev["action"]] += 1
            if ev["action"] == "riposte" and ev.get("answers", -1) >= 0 and types[ev["answers"]] == E.DEFENSE:
                counts["chained_riposte"] += 1
    return counts


def long_games(out, n=6):
    """Indices (offsets) of the ``n`` longest games."""
    return [int(i) for i in np.argsort(-out["turns"], kind="stable")[:n]]


def assert_played(out, *columns):
    for column in columns:
        assert out[column].sum() > 0, f"no game of this block had {column}"


def assert_eliminations(out):
    assert (out["elimination_order"] > 0).any(), "no elimination"
    finished = ~out["unfinished"]
    assert finished.any() and (out["winner_seat"][finished] >= 0).all()


@pytest.fixture(scope="module")
def generated_decks(tmp_path_factory):
    """Two generated decks written as JSON deck files: (options, deck) pairs."""
    out = []
    for seed in (3, 8):
        deck = generate(seed)
        path = tmp_path_factory.mktemp("decks") / f"generated-{seed}.json"
        path.write_text(json.dumps({"schema": 1, "name": deck.name, "reconstructed": True,
                                    "card": [{"name": c.name, "type": c.type, "value": c.value, "count": c.count,
                                              "flags": list(c.flags), "effect": c.effect} for c in deck.cards]}))
        assert load_deck(path).digest == deck.digest
        out.append((R.RuleOptions(deck=str(path)), deck))
    return out


def run_policy_block(scale):
    n = 12 * scale
    frames = []
    for p in POLICIES:
        for field in dict.fromkeys(("random", "leader", p)):
            for players in PLAYERS:
                frames.append(compare(SEED, 1000 * players, n, players, None, p, field))
    return merge(frames)


def test_every_policy_as_focus_and_field_default_deck():
    """Each policy against random, against leader and alone, 2-6 players, rotating focus (3,360 games)."""
    out = run_policy_block(4)
    n_kinds = len(load_deck().cards)
    assert (out["focus_dealt"] > 0).all() and (out["focus_dealt"] < 1 << n_kinds).all()
    assert_eliminations(out)
    assert_played(out, "played_gift", "played_antidote", "played_trick", "played_defense", "played_useless",
                  "ripostes", "cacarmas", "bonus_gifts")
    assert set(out["focus_seat"]) == set(range(R.MAX_PLAYERS))
    ev = events_of(SEED, [6000 + i for i in range(6)], 6, None, "random", "random")
    assert ev["reshuffle"] > 0 and ev["heal"] > 0 and ev["take"] > 0 and ev["mourning"] > 0 and ev["remove"] > 0


def test_non_default_parameters_and_fixed_focus_seat():
    """Every parametric policy with other parameters, as focus (fixed seats) and as field (1,200 games)."""
    frames = []
    for p, params in PARAMS.items():
        for players in PLAYERS:
            frames.append(compare(SEED + 1, 0, 30, players, None, p, "random", focus_params=params,
                                  focus_seat=players - 1))
            frames.append(compare(SEED + 2, 0, 30, players, None, "leader", p, field_params=params,
                                  focus_seat=0))
    out = merge(frames)
    assert_eliminations(out)
    assert_played(out, "ripostes", "cacarmas", "bonus_gifts", "played_antidote")


@pytest.mark.parametrize("change", OPTION_VALUES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_every_rule_option_value(change):
    """Each non-default option value (the defaults run in every other block), 2-6 players, a focus
    policy per player count against a field (5 x 80 games)."""
    options = R.RuleOptions(**change)
    frames = []
    for players, (focus, field) in zip(PLAYERS, [("leader", "random"), ("random", "defensive"),
                                                  ("defensive", "spread"), ("weakest_link", "random"),
                                                  ("random", "random")]):
        frames.append(compare(SEED + 3, 0, 80, players, options, focus, field))
    out = merge(frames)
    if "max_turns" in change:
        assert out["unfinished"].any() and (out["winner_seat"][out["unfinished"]] == -1).all()
        assert (out["turns"] <= change["max_turns"]).all()
        return
    assert_eliminations(out)
    if "cacarma" in change:
        ev = events_of(SEED + 3, range(40), 6, options, "random", "random")
        assert ev["returned"] > 0, "no gift went back to its giver"
    if "cacarma_vs_inevitable" in change or "cacarma" in change:
        assert_played(out, "cacarmas")
    if "bonus_is_the_gift" in change:
        assert_played(out, "bonus_gifts")
    if "mugging_cost" in change:
        ev = events_of(SEED + 3, range(40), 6, options, "random", "random")
        assert ev["refund"] > 0 and ev["take"] > 0, "no Mugging cancelled and none effective"
    if "mugging_take" in change:
        ev = events_of(SEED + 3, range(40), 4, options, "leader", "random", focus_seat=0)
        assert ev["take"] > 0, "no card taken by choice"
    if "eliminated_cards" in change or "eliminated_hand" in change:
        assert (out["elimination_order"] >= R.ELIM_BASE).any(), "no game with two eliminations"


def test_generated_decks(generated_decks):
    """Two generated decks (every effect of the vocabulary), every policy as focus against random and
    alone, default options and every option changed at once (riposte chains on), 2-6 players."""
    for options, deck in generated_decks:
        assert {c.effect for c in deck.cards} == set(E.CARD_EFFECTS)
        chains = R.RuleOptions(deck=options.deck, **ALL_OTHER)
        for opts in (options, chains):
            frames = []
            for p in POLICIES:
                for field in dict.fromkeys(("random", p)):
                    for players in PLAYERS:
                        frames.append(compare(SEED + 4, 0, 24, players, opts, p, field))
            out = merge(frames)
            assert_eliminations(out)
            assert_played(out, "played_gift", "played_antidote", "played_trick", "played_defense",
                          "ripostes", "bonus_gifts")
        ev = events_of(SEED + 4, range(30), 4, chains, "random", "random")
        assert ev["chained_riposte"] > 0 or ev["riposte"] > 0
    # chains: somewhere on the generated decks a riposte answered a riposte
    total = Counter()
    for options, _ in generated_decks:
        chains = R.RuleOptions(deck=options.deck, **ALL_OTHER)
        total += events_of(SEED + 4, range(60), 2, chains, "random", "random")
    assert total["chained_riposte"] > 0, "no riposte chain happened"


@pytest.mark.slow
def test_every_policy_slow():
    """The policy block with 10x the games."""
    out = run_policy_block(30)
    assert_eliminations(out)
