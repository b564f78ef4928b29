"""The Cursed Gifts report's plan and simulations. Every run goes through
:class:`cursedsim.report.data.Runs` (one seed, resumable run directories), so game i of every run draws
from the same random stream (the same deal, when the deck is the same):

1. ``leader`` at every seat at 2-6 players (win rate per seat, the first player's advantage, game
   length), then the focus policy ``defensive`` in a ``leader`` field with the focus fixed at each seat
   in turn (the rotation-paired measure: the focus at seat s against seat 0, game by game);
2. (game length: the runs of 1);
3. every focus policy against every field policy at 4 players, the focus seat rotating;
4. the value of each card kind: from ``focus_dealt`` of the 4-player ``leader`` run of 1, and the deck
   without each kind (``without_card``), paired against that run;
5. K decks whose counts are scaled at random (``decks.py``), written into the report's ``decks/`` and
   played with ``leader`` at 4 players.

The default deck is a reconstruction: every table carries its label (``name@digest``) and whether it is
reconstructed. Another deck file (``cursedsim report gifts --deck FILE``, ``ReportChoices.deck``) is
played by every run instead (option ``deck``): the card kinds of 4 are that deck's, the scaled decks of
5 are scaled from it, and the run folder's marker holds its label and file, so runs of another deck
are replaced, never resumed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from cursedsim.report.data import (
    ALPHA,
    ReportChoices,
    ReportData,
    ReportError,
    ReportPolicy,
    Runs,
    check_settings,
    report_policies,
    with_holm,
)
from cursedsim.report.gifts import decks, reduce

#: Sensitivity decks of the default report.
SENSITIVITY_DECKS = 8


@dataclass(frozen=True)
class Plan:
    """What the Cursed Gifts report simulates.

    players: the player counts of figures 1-2; seat_policy: the policy at every seat there (and in
    figures 4-5); focus_pair: (focus, field) of the rotation-paired measure (figure 2); policies: every
    focus policy against every field policy (``fields``; the same list unless policies were added to one
    side) at ``matrix_players`` players (figure 3); card_players: the player count of the card values and
    the deck sensitivity; cards: the card kinds of the plan's deck (each removed once); deck_variants:
    how many scaled decks (figure 5); deck: the deck every run plays ("default" or a deck file).
    """

    game: str
    players: tuple[int, ...]
    seat_policy: str
    focus_pair: tuple[str, str]
    policies: tuple[str, ...]
    fields: tuple[str, ...]
    matrix_players: int
    card_players: int
    cards: tuple[str, ...]
    deck_variants: int
    rules_doc: str = ""
    deck: str = "default"

    @property
    def run_count(self) -> int:
        """The runs the plan plays."""
        return (len(self.players) + sum(self.players) + len(self.policies) * len(self.fields) + len(self.cards)
                + self.deck_variants)


def make_plan(deck: str = "default") -> Plan:
    """The report's plan from the game as it is now (every card kind of ``deck``, "default" or a deck
    file; every policy)."""
    from cursedsim.games.gifts import rules
    from cursedsim.games.gifts.policy_specs import POLICIES
    policies = tuple(POLICIES)
    return Plan(game="gifts", players=tuple(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1)), seat_policy="leader",
                focus_pair=("defensive", "leader"), policies=policies, fields=policies, matrix_players=4,
                card_players=4, cards=_kinds(_load(deck)), deck_variants=SENSITIVITY_DECKS,
                rules_doc="docs/rules/gifts.md", deck=deck)


def _load(deck: str) -> Any:
    """The Deck of ``deck`` ("default" or a file), read now (a DeckError names the field and line)."""
    from cursedsim.games.gifts.deck import load_deck
    return load_deck(None if deck == "default" else deck)


def _kinds(deck: Any) -> tuple[str, ...]:
    return tuple(card.name for card in deck.cards)


def plan_for_deck(plan: Plan, deck: str) -> Plan:
    """``plan`` playing ``deck`` ("default" or a deck file) instead of its own deck: a plan removing
    every kind of its deck removes every kind of ``deck`` (a plan choosing some kinds keeps them;
    ``check_plan`` then checks that ``deck`` has them)."""
    if deck == plan.deck:
        return plan
    every = plan.cards == _kinds(_load(plan.deck))
    return dataclasses.replace(plan, deck=deck, cards=_kinds(_load(deck)) if every else plan.cards)


PLAN = make_plan()


@dataclass(kw_only=True)
class GiftsData(ReportData):
    """The numbers behind every figure of the Cursed Gifts report (small frames; see ``collect``)."""

    plan: Plan
    #: the deck every run played: its ``name@digest`` label and whether it is a reconstruction (the file's
    #: ``reconstructed`` flag)
    deck_label: str
    deck_reconstructed: bool
    #: per (players, seat): wins, rate with Wilson interval, fair share; seat -1: games without a winner
    seats: pd.DataFrame
    #: per (players, against): seat 0 against the fair share and against every other seat (paired), Holm
    first_player: pd.DataFrame
    #: per (players, seat): the focus policy's win rate with the focus fixed there, and its paired change
    #: against seat 0 (``diff``, ``ci_low_diff``, ``ci_high_diff``), Holm
    focus_seats: pd.DataFrame
    #: per (players, turns): games and share (``leader`` everywhere)
    lengths: pd.DataFrame
    #: per players: mean turns (se), quantiles, longest, unfinished share (Wilson)
    length_summary: pd.DataFrame
    #: per (focus, field): the focus win rate, its excess over the fair share, mean turns, unfinished
    matrix: pd.DataFrame
    #: per card kind: the focus seat's win rate dealt / not dealt the kind, the difference (Welch), Holm;
    #: empty when the engines give no ``focus_dealt``
    dealt: pd.DataFrame
    #: per (card kind, measure): the deck without the kind - the full deck on the same games (paired), Holm
    #: per measure
    removal: pd.DataFrame
    #: per deck (the default first, then the scaled variants): seat 0's win rate, mean turns, unfinished
    deck_sensitivity: pd.DataFrame
    #: per (deck, card): the count in the variant, the default count and the factor drawn
    deck_counts: pd.DataFrame
    #: the deck file played ("default": the game's reconstructed default deck)
    deck_file: str = "default"

    @property
    def deck_word(self) -> str:
        """How the figures name the deck the scaled ones are drawn from: ``default`` or ``base``."""
        return "default" if self.deck_file == "default" else "base"

    @property
    def deck_tag(self) -> str:
        """``name@digest, reconstructed`` (or only the label when the file does not say so): for titles."""
        return f"{self.deck_label}, reconstructed" if self.deck_reconstructed else self.deck_label

    @property
    def deck_text(self) -> str:
        """The deck in words: its label, file and whether it is a reconstruction."""
        if self.deck_file == "default":
            return (f"the reconstructed default deck {self.deck_label} (counts and values chosen, not the "
                    "publisher's card list)")
        if self.deck_reconstructed:
            return (f"the deck {self.deck_label} of {self.deck_file}, marked reconstructed (counts and values "
                    "chosen, not the publisher's card list)")
        return f"the deck {self.deck_label} of {self.deck_file}, not marked reconstructed (reconstructed = false)"

    def __post_init__(self) -> None:
        tables = {"seat_win_rates": self.seats, "first_player_advantage": self.first_player,
                  "focus_by_seat": self.focus_seats, "game_length": self.lengths,
                  "game_length_summary": self.length_summary, "policy_matrix": self.matrix,
                  "card_dealt": self.dealt, "card_removal": self.removal, "deck_sensitivity": self.deck_sensitivity,
                  "deck_counts": self.deck_counts}
        self.tables = {name: _labelled(table, self.deck_label, self.deck_reconstructed)
                       for name, table in tables.items()}


def _labelled(table: pd.DataFrame, label: str, reconstructed: bool) -> pd.DataFrame:
    """``table`` with the deck's label and whether it is reconstructed as its first columns (a table with
    its own ``deck`` column, one deck per row, keeps it)."""
    if "deck" in table:
        return table
    return pd.concat([pd.DataFrame({"deck": [label] * len(table), "deck_reconstructed": [reconstructed] * len(table)},
                                   index=table.index), table], axis=1)


# ---------------------------------------------------------------- checks

def check_plan(game_obj: Any, plan: Plan) -> None:
    """Every policy, player count and card kind of the plan exists, its deck file is valid (a bad plan
    or deck fails before anything is played)."""
    deck = _load(plan.deck)   # a DeckError names the field and line
    for name in (plan.seat_policy, *plan.focus_pair, *plan.policies):
        game_obj.policy(name, "focus")
    for players in (*plan.players, plan.matrix_players, plan.card_players):
        game_obj.check_players(players)
    for card in plan.cards:
        deck.without(card)   # a DeckError names the kinds
    if plan.card_players not in plan.players:
        raise ReportError(f"card_players ({plan.card_players}) must be one of the plan's player counts {plan.players}")
    if plan.deck_variants < 0:
        raise ReportError(f"deck_variants must be 0 or more, got {plan.deck_variants}")


def played_policies(game_obj: Any, plan: Plan, choices: ReportChoices | None) -> dict[str, list[ReportPolicy]]:
    """Side -> the policies of the matrix: the plan's, then the tuned and added ones of that side
    (``--policy focus=defensive:heal_at=5``); each must play at the matrix's player count."""
    played = {side: report_policies(game_obj, plan.policies, choices, side) for side in ("focus", "field")}
    for side, policies in played.items():
        for policy in policies:
            if not policy.plays(plan.matrix_players):
                raise ReportError(f"the {side} policy {policy.label!r} has no parameters for {plan.matrix_players} "
                                  f"players; the gifts report plays its policy matrix at {plan.matrix_players} players")
    return played


# ---------------------------------------------------------------- collect

def _matrix_run(focus: ReportPolicy, field: ReportPolicy, players: int,
                options: dict[str, Any] | None = None) -> dict[str, Any]:
    """``Runs.simulate``'s path and arguments for one cell of the matrix (``options``: the deck's)."""
    params = {side: p.params_at(players) for side, p in (("focus", focus), ("field", field)) if p.params_at(players)}
    return {"path": os.path.join("matrix", f"p{players}", f"{focus.run_name(players)}-{field.run_name(players)}"),
            "players": players, "policy": {"focus": focus.policy, "field": field.policy}, "params": params or None,
            "options": options or None}


def _slug(name: str) -> str:
    from cursedsim.report.data import run_name
    return run_name(name)


def collect(out: str, *, n_games: int, seed: int, n_jobs: int, progress: bool | None = None,
            log: Callable[[str], Any] | None = None, plan: Plan = PLAN,
            choices: ReportChoices | None = None) -> GiftsData:
    """Play every run of the plan (``n_games`` games each, one ``seed``) with run directories under the
    run folder, write the sensitivity decks into ``<out>/decks/`` and reduce the runs to the tables of
    :class:`GiftsData`. ``choices.deck``: a deck file every run plays instead of the plan's deck (its
    card kinds removed one at a time, the sensitivity decks scaled from it)."""
    from cursedsim.games.gifts.deck import deck_of
    from cursedsim.runner import resolve_game

    game_obj = resolve_game(plan.game)
    n_games, seed = check_settings(n_games, seed, n_jobs)
    if choices is not None and choices.deck is not None:
        plan = plan_for_deck(plan, os.path.abspath(os.fspath(choices.deck)))
    check_plan(game_obj, plan)
    played = played_policies(game_obj, plan, choices)
    plan = dataclasses.replace(plan, policies=tuple(p.label for p in played["focus"]),
                               fields=tuple(p.label for p in played["field"]))
    log = log or (lambda message: None)
    base = _load(plan.deck)   # read now: the file as it is, not as this process read it before
    deck_of.cache_clear()   # the runs' decks too (a file rewritten since, e.g. a scaled deck of another base)
    # every run plays the plan's deck (the default deck's runs keep their options: they resume as before)
    on_deck: dict[str, Any] = {} if plan.deck == "default" else {"deck": plan.deck}
    variants = decks.write_variants(out, base, plan.deck_variants, seed)
    runs = Runs(game_obj, out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=progress, log=log,
                choices=choices, total=plan.run_count,
                settings={"deck": base.label, "deck_file": plan.deck})
    rows: dict[str, list[dict[str, Any]]] = {key: [] for key in (
        "seats", "first_player", "focus_seats", "lengths", "length_summary", "matrix", "dealt", "removal",
        "deck_sensitivity", "deck_counts")}

    def simulate(path: str, **kwargs: Any) -> pd.DataFrame:
        frame = runs.simulate(path, **kwargs)
        return frame[reduce.kept(frame)]

    # 1-2. leader at every seat: seats, the first player's advantage, game length
    log(f"seats: {len(plan.players)} runs of {n_games:,} games with {plan.seat_policy} at every seat")
    defaults: dict[int, pd.DataFrame] = {}
    for players in plan.players:
        frame = simulate(os.path.join("seats", f"p{players}"), players=players, policy=plan.seat_policy,
                         options=on_deck or None)
        _check_deck(frame, base.label, f"the runs on {plan.deck}")
        rows["seats"] += reduce.seat_rows(frame, players)
        rows["first_player"] += reduce.first_player_rows(frame, players)
        rows["lengths"] += reduce.length_rows(frame, players)
        rows["length_summary"].append(reduce.length_summary(frame, players))
        if players == plan.card_players:
            defaults[players] = frame
    focus, field = plan.focus_pair
    log(f"focus at each seat: {sum(plan.players)} runs of {n_games:,} games ({focus} in a {field} field)")
    for players in plan.players:
        frames = {seat: simulate(os.path.join("focus_seat", f"p{players}", f"s{seat}"), players=players,
                                 policy={"focus": focus, "field": field},
                                 options={"focus_seat": str(seat), **on_deck})
                  for seat in range(players)}
        rows["focus_seats"] += reduce.focus_seat_rows(frames, players, focus, field)
        del frames

    # 3. the policy matrix
    p = plan.matrix_players
    log(f"policy matrix: {len(plan.policies) * len(plan.fields)} runs of {n_games:,} games at {p} players")
    for focus_policy in played["focus"]:
        for field_policy in played["field"]:
            frame = simulate(**_matrix_run(focus_policy, field_policy, p, on_deck))
            rows["matrix"].append(reduce.matrix_row(frame, p, focus_policy.label, field_policy.label))

    # 4. the card kinds: dealt or not (focus_dealt), and the deck without each kind
    p = plan.card_players
    default = defaults[p]
    if reduce.DEALT in default:
        rows["dealt"] = reduce.dealt_rows(default, base.cards)
    log(f"card kinds: {len(plan.cards)} runs of {n_games:,} games, each without one kind")
    cards = {card.name: card for card in base.cards}
    for name in plan.cards:
        frame = simulate(os.path.join("without", _slug(name)), players=p, policy=plan.seat_policy,
                         options={"without_card": name, **on_deck})
        rows["removal"] += reduce.removal_rows(frame, default, cards[name])

    # 5. the scaled decks
    log(f"deck sensitivity: {len(variants)} runs of {n_games:,} games, one per scaled deck")
    base_file = "(default)" if plan.deck == "default" else plan.deck
    rows["deck_sensitivity"].append(reduce.deck_row(default, base, base_file, False))
    for variant in variants:
        frame = simulate(os.path.join("decks", _slug(variant.deck.label)), players=p, policy=plan.seat_policy,
                         options={"deck": variant.path})
        _check_deck(frame, variant.deck.label, variant.file)
        rows["deck_sensitivity"].append(reduce.deck_row(frame, variant.deck, variant.file, True))
        for card, old, factor in zip(variant.deck.cards, base.cards, variant.factors):
            rows["deck_counts"].append({"deck": variant.deck.label, "deck_reconstructed": variant.deck.reconstructed,
                                        "file": variant.file, "card": card.name, "default_count": old.count,
                                        "factor": float(factor), "count": card.count})

    tables = {key: pd.DataFrame(value) for key, value in rows.items()}
    removal = tables["removal"]
    if len(removal):
        removal = pd.concat([with_holm(removal[removal["measure"] == m]) for m in ("turns", "seat0_win")],
                            ignore_index=True)
    return GiftsData(
        **runs.provenance(), plan=plan, deck_label=base.label, deck_reconstructed=base.reconstructed,
        seats=tables["seats"], first_player=with_holm(tables["first_player"]),
        focus_seats=_holm_seats(tables["focus_seats"]), lengths=tables["lengths"],
        length_summary=tables["length_summary"], matrix=tables["matrix"],
        dealt=with_holm(tables["dealt"]) if len(tables["dealt"]) else tables["dealt"], removal=removal,
        deck_sensitivity=tables["deck_sensitivity"], deck_counts=tables["deck_counts"], deck_file=plan.deck)


def _holm_seats(table: pd.DataFrame) -> pd.DataFrame:
    """The focus-by-seat table with Holm over its comparisons (seat 0 against itself is none)."""
    from cursedsim.stats import holm
    tested = table["seat"] != 0
    adjusted = pd.Series(float("nan"), index=table.index)
    adjusted[tested] = holm(table.loc[tested, "p_value"].to_numpy(float))
    return table.assign(p_holm=adjusted, survives=(adjusted < ALPHA) & tested)


def _check_deck(frame: pd.DataFrame, label: str, what: str) -> None:
    """The runs played the deck the report names (the frame's ``deck`` column)."""
    played = set(frame["deck"].astype(str).unique())
    if played != {label}:
        raise ReportError(f"{what}: played deck {', '.join(sorted(played))}, expected {label}")


__all__ = ["PLAN", "SENSITIVITY_DECKS", "GiftsData", "Plan", "check_plan", "collect", "make_plan",
           "plan_for_deck", "played_policies"]
