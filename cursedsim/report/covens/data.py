"""The Curses & Covens report's plan and simulations: every hunter policy against every town policy at
4-6 players (3-5 towns), then, for the main pairing, the deck without rituals, the spells switched off
and every open reading of the rules, each paired on the same games as the default. Every run goes
through :class:`cursedsim.report.data.Runs` (one seed, resumable run directories), so game i of every
run starts from the same deal.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from cursedsim.report.covens import reduce
from cursedsim.report.data import (
    ReportChoices,
    ReportData,
    ReportError,
    ReportPolicy,
    Runs,
    check_settings,
    report_policies,
    with_holm,
)

#: The option a late rules change may add to switch one spell off (its values name the spell).
DISABLED_SPELL = "disabled_spell"
#: The coven policy's parameter that switches casting off (0) or on (1), used while there is no
#: ``disabled_spell`` option.
CAST_PARAM = "cast"
#: Options that are not readings of an open rule: rituals (figure 5 of their own), one spell switched
#: off (figure 6) and the safety limit on the game length.
NOT_READINGS = ("rituals", DISABLED_SPELL, "max_rounds")


def open_readings() -> tuple[tuple[str, Any], ...]:
    """Every non-default value of every open-point option of the rules (``rules.CHOICES`` and the
    boolean options, but not ``NOT_READINGS``), in field order: the sensitivity figure's readings."""
    from cursedsim.games.covens import rules
    defaults = rules.RuleOptions()
    readings = []
    for field in dataclasses.fields(rules.RuleOptions):
        default = getattr(defaults, field.name)
        if field.name in NOT_READINGS:
            continue
        if field.name in rules.CHOICES:
            readings += [(field.name, value) for value in rules.CHOICES[field.name] if value != default]
        elif isinstance(default, bool):
            readings.append((field.name, not default))
    return tuple(readings)


def spell_variants() -> tuple[tuple[str, dict[str, Any], dict[str, Any]], ...]:
    """How the spells' value is measured: per spell, ``disabled_spell=<spell>`` when the rules have that
    option; otherwise the town playing with ``cast=0`` (no spell at all). Each as (label, options,
    town parameter overrides)."""
    from cursedsim.games.covens import rules
    if DISABLED_SPELL in rules.CHOICES:
        default = getattr(rules.RuleOptions(), DISABLED_SPELL)
        return tuple((f"{DISABLED_SPELL}={value}", {DISABLED_SPELL: value}, {})
                     for value in rules.CHOICES[DISABLED_SPELL] if value != default)
    return ((f"{CAST_PARAM}=0", {}, {CAST_PARAM: 0.0}),)


@dataclass(frozen=True)
class Plan:
    """What the Curses & Covens report simulates.

    players: the player counts (towns = players - 1); hunters, towns: the policies of each side, every
    hunter against every town at every player count (the matrix); main: the (hunter, town) pairing of
    the rituals, spells and sensitivity figures; readings: (option, value) of every open rule played
    against the default; spells: (label, options, town params) of the spell figure.
    """

    game: str
    players: tuple[int, ...]
    hunters: tuple[str, ...]
    towns: tuple[str, ...]
    main: tuple[str, str]
    readings: tuple[tuple[str, Any], ...]
    spells: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...]
    rules_doc: str = ""

    @property
    def run_count(self) -> int:
        """The runs the plan plays."""
        per_players = len(self.hunters) * len(self.towns) + 1 + len(self.spells) + len(self.readings)
        return per_players * len(self.players)


def make_plan() -> Plan:
    """The report's plan from the rules as they are now (new options and spells join by themselves)."""
    from cursedsim.games.covens import rules
    return Plan(game="covens", players=tuple(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1)),
                hunters=("random", "largest_hand", "tracker"), towns=("random", "coven", "bluff"),
                main=("tracker", "coven"), readings=open_readings(), spells=spell_variants(),
                rules_doc="docs/rules/covens.md")


PLAN = make_plan()


@dataclass(kw_only=True)
class CovensData(ReportData):
    """The numbers behind every figure of the Curses & Covens report (small frames; see ``collect``)."""

    plan: Plan
    #: per (players, hunter, town): hunter and town win rates with Wilson intervals, unfinished share, mean rounds
    matrix: pd.DataFrame
    #: paired effects of skill on the same games: ``kind`` "hunter" (hunter ``better`` - ``baseline`` with
    #: the town policy ``against``; the hunter's win rate) or "town" (town ``better`` - ``baseline`` with
    #: the hunter policy ``against``; the town's win rate), with ``p_holm`` over all of them and ``survives``
    skill: pd.DataFrame
    #: per (players, hunter, town, win_type): games and share with its Wilson interval
    win_types: pd.DataFrame
    #: per (players, rounds) of the main pairing: games and share
    lengths: pd.DataFrame
    #: per (players, hunter, town): mean (se), median, 90th percentile and longest game in rounds
    length_summary: pd.DataFrame
    #: per players: the hunter's win rate without rituals - with them (paired), win types of both, Holm
    rituals: pd.DataFrame
    #: per (players, spell) of the main pairing: casts per game and share of games casting it
    spells_cast: pd.DataFrame
    #: per (players, variant): the town's win rate with the default - with the spell(s) off (paired;
    #: positive: the spell helps the town), with ``p_holm`` and ``survives``
    spell_values: pd.DataFrame
    #: per (option, value, players): the hunter's win rate with the reading - with the default (paired),
    #: games changed, ``p_holm`` over every reading and player count, ``survives``
    sensitivity: pd.DataFrame

    def __post_init__(self) -> None:
        self.tables = {"hunter_win_matrix": self.matrix, "skill_effects": self.skill, "win_types": self.win_types,
                       "game_length": self.lengths, "game_length_summary": self.length_summary,
                       "rituals": self.rituals, "spells_cast": self.spells_cast, "spell_values": self.spell_values,
                       "rule_sensitivity": self.sensitivity}


# ---------------------------------------------------------------- checks

def check_plan(game_obj: Any, plan: Plan) -> None:
    """Every policy, parameter and option of the plan exists (a bad plan fails before anything is played)."""
    for name in plan.hunters:
        game_obj.policy(name, "hunter")
    for name in plan.towns:
        game_obj.policy(name, "town")
    for _, options, params in plan.spells:
        game_obj.make_options(options)
        game_obj.policy(plan.main[1], "town").param_vector(params)
    for name, value in plan.readings:
        game_obj.make_options({name: value})
    for players in plan.players:
        game_obj.check_players(players)


def played_policies(game_obj: Any, plan: Plan, choices: ReportChoices | None) -> dict[str, list[ReportPolicy]]:
    """Side -> the policies it plays: the plan's, then the tuned and added ones of that side (``--policy
    hunter=tracker:trust=1``, a tuned file's entries naming the side); each must play at every player
    count of the plan (the matrix has no holes)."""
    played = {"hunter": report_policies(game_obj, plan.hunters, choices, "hunter"),
              "town": report_policies(game_obj, plan.towns, choices, "town")}
    for side, policies in played.items():
        for policy in policies:
            missing = [p for p in plan.players if not policy.plays(p)]
            if missing:
                raise ReportError(f"the {side} policy {policy.label!r} has no parameters for "
                                  f"{', '.join(map(str, missing))} players; the covens report plays every policy at "
                                  f"{', '.join(map(str, plan.players))} players")
    return played


# ---------------------------------------------------------------- skill effects

def skill_rows(frames: dict[tuple[str, str], pd.DataFrame], players: int, plan: Plan) -> list[dict[str, Any]]:
    """At one player count: the hunter's gain from each cleverer hunter policy (the main hunter minus
    every other hunter policy) against each town policy, and the town's gain from each coordinated town
    policy (every town policy but the first minus the first) against each hunter policy, paired."""
    rows = []
    clever = plan.main[0]
    for baseline in (h for h in plan.hunters if h != clever):
        for town in plan.towns:
            d = reduce.paired(frames[clever, town]["hunter_won"], frames[baseline, town]["hunter_won"])
            rows.append({"kind": "hunter", "players": players, "towns": reduce.towns(players), "better": clever,
                         "baseline": baseline, "against": town, "measure": "hunter_won", **d})
    first = plan.towns[0]
    for better in plan.towns[1:]:
        for hunter in plan.hunters:
            d = reduce.paired(frames[hunter, better]["town_won"], frames[hunter, first]["town_won"])
            rows.append({"kind": "town", "players": players, "towns": reduce.towns(players), "better": better,
                         "baseline": first, "against": hunter, "measure": "town_won", **d})
    return rows


# ---------------------------------------------------------------- collect

def _policy(hunter: str, town: str) -> dict[str, str]:
    return {"hunter": hunter, "town": town}


def _pairing_run(hunter: ReportPolicy, town: ReportPolicy, players: int) -> dict[str, Any]:
    """``Runs.simulate``'s path and arguments for one cell of the matrix."""
    params = {side: p.params_at(players) for side, p in (("hunter", hunter), ("town", town)) if p.params_at(players)}
    return {"path": os.path.join("pairings", f"p{players}", f"{hunter.run_name(players)}-{town.run_name(players)}"),
            "players": players, "policy": _policy(hunter.policy, town.policy), "params": params or None}


def collect(out: str, *, n_games: int, seed: int, n_jobs: int, progress: bool | None = None,
            log: Callable[[str], Any] | None = None, plan: Plan = PLAN,
            choices: ReportChoices | None = None) -> CovensData:
    """Play every run of the plan (``n_games`` games each, one ``seed``) with run directories under the
    run folder and reduce them to the tables of :class:`CovensData`."""
    from cursedsim.games.covens import rules
    from cursedsim.runner import resolve_game

    game_obj = resolve_game(plan.game)
    n_games, seed = check_settings(n_games, seed, n_jobs)
    check_plan(game_obj, plan)
    played = played_policies(game_obj, plan, choices)
    plan = dataclasses.replace(plan, hunters=tuple(p.label for p in played["hunter"]),
                               towns=tuple(p.label for p in played["town"]))
    log = log or (lambda message: None)
    runs = Runs(game_obj, out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=progress, log=log,
                choices=choices, total=plan.run_count)
    kinds = rules.WIN_TYPE_NAMES
    hunter, town = plan.main
    spells = tuple(rules.SPELL_NAMES)
    keep = list(reduce.KEPT) + [f"spells_{s}" for s in spells]
    rows: dict[str, list[dict[str, Any]]] = {key: [] for key in (
        "matrix", "skill", "win_types", "lengths", "length_summary", "rituals", "spells_cast", "spell_values",
        "sensitivity")}
    defaults: dict[int, pd.DataFrame] = {}

    # 1-4. every hunter policy against every town policy (the matrix, skill, win types, lengths)
    log(f"policy pairings: {len(plan.hunters) * len(plan.towns) * len(plan.players)} runs of {n_games:,} games")
    for players in plan.players:
        frames = {}
        for hunter_policy in played["hunter"]:
            for town_policy in played["town"]:
                h, t = hunter_policy.label, town_policy.label
                frame = runs.simulate(**_pairing_run(hunter_policy, town_policy, players))[keep]
                frames[h, t] = frame
                rows["matrix"].append(reduce.cell_row(frame, players, h, t))
                rows["win_types"] += reduce.win_type_rows(frame, players, h, t, kinds)
                rows["length_summary"].append(reduce.length_summary(frame, players, h, t))
        rows["skill"] += skill_rows(frames, players, plan)
        defaults[players] = frames[plan.main]
        rows["lengths"] += reduce.length_rows(defaults[players], players, hunter, town)
        rows["spells_cast"] += reduce.spells_cast_rows(defaults[players], players, spells)
        del frames

    # 5. the deck without rituals
    log(f"rituals off: {len(plan.players)} runs of {n_games:,} games")
    for players in plan.players:
        frame = runs.simulate(os.path.join("rituals", f"p{players}"), players=players, policy=_policy(hunter, town),
                              options={"rituals": False})[keep]
        row = {"players": players, "towns": reduce.towns(players),
               **reduce.effect_row(frame, defaults[players], "hunter_won")}
        for kind in kinds:
            row[f"{kind}_default"] = float((defaults[players]["win_type"].astype(str) == kind).mean())
            row[f"{kind}_option"] = float((frame["win_type"].astype(str) == kind).mean())
        row["rounds_default"] = float(defaults[players]["rounds"].mean())
        row["rounds_option"] = float(frame["rounds"].mean())
        rows["rituals"].append(row)

    # 6. the spells switched off (per spell when the rules allow it, else no spell at all)
    log(f"spells: {len(plan.spells) * len(plan.players)} runs of {n_games:,} games")
    for label, options, params in plan.spells:
        for players in plan.players:
            frame = runs.simulate(os.path.join("spells", label.replace("=", "-"), f"p{players}"), players=players,
                                  policy=_policy(hunter, town), options=options or None,
                                  params={"town": params} if params else None)[keep]
            with_spell, without = defaults[players]["town_won"].to_numpy(), frame["town_won"].to_numpy()
            rows["spell_values"].append({"variant": label, "players": players, "towns": reduce.towns(players),
                                         "measure": "town_won", "value_with": float(with_spell.mean()),
                                         "value_without": float(without.mean()),
                                         **reduce.paired(with_spell, without),   # with - without
                                         "games_changed": reduce.changed(frame, defaults[players])})

    # 7. every open reading of the rules against the default
    log(f"rule options: {len(plan.readings) * len(plan.players)} runs of {n_games:,} games")
    for name, value in plan.readings:
        for players in plan.players:
            frame = runs.simulate(os.path.join("options", f"{name}-{value}".lower(), f"p{players}"),
                                  players=players, policy=_policy(hunter, town), options={name: value})[keep]
            rows["sensitivity"].append({"option": name, "value": value, "players": players,
                                        "towns": reduce.towns(players),
                                        **reduce.effect_row(frame, defaults[players], "hunter_won")})

    tables = {key: pd.DataFrame(value) for key, value in rows.items()}
    return CovensData(
        **runs.provenance(), plan=plan, matrix=tables["matrix"], skill=with_holm(tables["skill"]),
        win_types=tables["win_types"], lengths=tables["lengths"], length_summary=tables["length_summary"],
        rituals=with_holm(tables["rituals"]), spells_cast=tables["spells_cast"],
        spell_values=with_holm(tables["spell_values"]), sensitivity=with_holm(tables["sensitivity"]))


__all__ = ["CAST_PARAM", "DISABLED_SPELL", "NOT_READINGS", "PLAN", "CovensData", "Plan", "check_plan", "collect",
           "make_plan", "open_readings", "played_policies", "skill_rows", "spell_variants"]
