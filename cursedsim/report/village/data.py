"""The So, You've Been Cursed. report's plan and simulations. Every run goes through
:class:`cursedsim.report.data.Runs` (one seed, resumable run directories), so game i of every run draws
from the same random streams (same seed, same game index):

1. every Wizard policy against every Monster policy on the base board (the pairing decides the mode:
   possessed + rabid is the 0-player game, a player's policy against an automaton that solo game, two
   players' policies the duel): both sides' win rates, the unfinished share;
2. game length per pairing (from the runs of 1);
3. the Panic effects: in how many games each fired and from which turn (from the runs of 1);
4. a player's policy in the place of its side's automaton, against the same opponent, paired game by
   game (from the runs of 1);
5. boards drawn by ``board.generate`` (every constraint holds), written into ``<report>/boards/`` and
   played in the study pairings (the 0-player game and both solo games);
6. the base board with its Curse track and with its Cure track at other lengths (written into
   ``boards/``), played in the study pairings: where the balance point lies.
7. the calibrated game's sensitivity: each variation of one assumption (a calibrated track length ±2,
   a card preset, a generated board at the calibrated lengths, every other value of each debatable
   reading) played in the modes it reaches, paired with the default (``sensitivity``);
8. round by round: the first games of each mode's pairing replayed by the reference engine (each replay
   must end as its kernel row), and the plausibility checks of every mode's games (``trajectories``).

The default board is a RECONSTRUCTION (the publisher's board is not public): every table carries the
board's label (``name@digest``) and whether it is reconstructed. Another board file (``cursedsim report
village --board FILE``, ``ReportChoices.board``) is played by every run of 1-4 instead and is the base
of the track variants of 6; the run folder's marker holds its label and file, so runs of another board
are replaced, never resumed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from cursedsim.games.village import rules
from cursedsim.games.village.policy_specs import MODE_PAIRINGS as _PAIRINGS
from cursedsim.report.data import ReportChoices, ReportData, ReportError, ReportPolicy, Runs, check_settings, \
    report_policies, with_holm
from cursedsim.report.village import boards, reduce
from cursedsim.report.village import sensitivity as sensitivity_mod
from cursedsim.report.village import trajectories

#: Generated boards of the default report.
GENERATED_BOARDS = 12
#: The Curse and Cure track lengths of the default report (the base board's own length is its own run).
CURSE_LENGTHS = (6, 8, 10, 14, 16, 18, 20, 22, 24, 27, 30)
CURE_LENGTHS = (3, 4, 5, 6, 7, 8, 10, 14, 16, 20)
#: The pairing of each mode the report uses where one pairing stands for a mode (figures 2-3, 5-6): the
#: game's own table (``Game.modes``, policy_specs.MODE_PAIRINGS) as mode -> (wizard, monster).
MODE_PAIRINGS = {mode: (pairing[rules.WIZARD], pairing[rules.MONSTER]) for mode, pairing in _PAIRINGS.items()}
#: The modes of the board and track studies: the 0-player game and both solo games.
STUDY_MODES = (rules.AUTOMATA, rules.RABID_MONSTER, rules.POSSESSED_WIZARD)


@dataclass(frozen=True)
class Plan:
    """What the village report simulates.

    wizards / monsters: the policies of each side, every one against every one (figure 1); pairings:
    mode -> (wizard, monster), the pairing standing for that mode; study_modes: the modes played on every
    generated board and track variant; generated_boards: how many generated boards (from seed
    ``board_seed``); curse_lengths / cure_lengths: the track lengths of the track study (figure 6); board:
    the base board every run of figures 1-4 plays ("default" or a board file).
    """

    game: str
    wizards: tuple[str, ...]
    monsters: tuple[str, ...]
    pairings: tuple[tuple[str, str, str], ...]
    study_modes: tuple[str, ...]
    generated_boards: int
    curse_lengths: tuple[int, ...]
    cure_lengths: tuple[int, ...]
    board_seed: int = 2026
    rules_doc: str = "docs/rules/village.md"
    board: str = "default"
    #: the options the sensitivity table varies (figure 7; ``board``: generated boards at the played
    #: lengths), None for every one (``sensitivity.variations``)
    sensitivity: tuple[str, ...] | None = None
    #: the generated boards the sensitivity table plays at the played lengths
    sensitivity_boards: int = sensitivity_mod.BOARDS
    #: the games of each mode's pairing replayed for the round-by-round trajectories (figure 8)
    trajectory_games: int = trajectories.GAMES

    def pairing(self, mode: str) -> tuple[str, str]:
        """The (wizard, monster) pairing standing for ``mode``."""
        return next((w, m) for k, w, m in self.pairings if k == mode)

    def variation_runs(self, lengths: dict[str, int], generated: list) -> list[tuple[sensitivity_mod.Variation, str]]:
        """The runs of the sensitivity table (figure 7) around the played track ``lengths``: each variation
        in each mode it reaches that the plan has a pairing for."""
        modes = {mode for mode, _, _ in self.pairings}
        return [(v, mode) for v in sensitivity_mod.variations(lengths, generated, boards=self.sensitivity_boards,
                                                              only=self.sensitivity) for mode in v.modes if mode in modes]

    @property
    def run_count(self) -> int:
        """The runs the plan plays besides the sensitivity table's (``variations``: one run per mode each)."""
        return (len(self.wizards) * len(self.monsters) + len(self.study_modes) *
                (1 + self.generated_boards + len(self.curse_lengths) + len(self.cure_lengths)))


def make_plan(board: str = "default") -> Plan:
    """The report's plan from the game as it is now: every policy of each side, on ``board``."""
    from cursedsim.games.village.policy_specs import MONSTER_POLICIES, WIZARD_POLICIES
    return Plan(game="village", wizards=tuple(WIZARD_POLICIES), monsters=tuple(MONSTER_POLICIES),
                pairings=tuple((mode, w, m) for mode, (w, m) in MODE_PAIRINGS.items()), study_modes=STUDY_MODES,
                generated_boards=GENERATED_BOARDS, curse_lengths=CURSE_LENGTHS, cure_lengths=CURE_LENGTHS,
                board=board)


PLAN = make_plan()


def load(board: str) -> Any:
    """The Board of ``board`` ("default" or a file), read now (a BoardError names the field and line)."""
    from cursedsim.games.village.board import load_board
    return load_board(None if board == "default" else board)


@dataclass(kw_only=True)
class VillageData(ReportData):
    """The numbers behind every figure of the village report (small frames; see ``collect``)."""

    plan: Plan
    #: the base board: its ``name@digest`` label, whether it is a reconstruction, its file ("default": the
    #: reconstructed default board), its Curse and Cure track lengths
    board_label: str
    board_reconstructed: bool
    board_file: str
    track_lengths: dict[str, int]
    #: per (wizard, monster): the mode, both sides' win rates and the unfinished share (Wilson), mean turns
    pairings: pd.DataFrame
    #: per (pairing, turns): games, share, wins of each side
    lengths: pd.DataFrame
    #: per pairing: mean turns (se), percentiles, longest, unfinished share
    length_summary: pd.DataFrame
    #: per (pairing, Panic effect): the level it starts at, share of games it fired (Wilson), first turn
    panic: pd.DataFrame
    #: per (side, player policy, opponent): the player policy - the side's automaton, paired; Holm
    advantage: pd.DataFrame
    #: per (board, study pairing): the base board first, then the generated boards
    generated: pd.DataFrame
    #: per (track, length, study pairing): the base board at its own length and the variants
    tracks: pd.DataFrame
    #: per (track, study pairing): the length where the Wizard wins half the games
    balance: pd.DataFrame
    #: the track lengths the base board plays with the default options (length option -> spaces)
    played_lengths: dict[str, int]
    #: per (variation, mode it reaches): the Wizard's win rate with it and the paired change from the default
    sensitivity: pd.DataFrame
    #: per (mode, round): games still on and the mean Curse, Cure and Panic after that round
    trajectories: pd.DataFrame
    #: per mode's pairing: rounds played, the Curse's share from cards, the Cure's from Spells, coins lost
    plausibility: pd.DataFrame

    @property
    def board_tag(self) -> str:
        """``name@digest, RECONSTRUCTED`` (or only the label when the file does not say so): for titles."""
        return f"{self.board_label}, RECONSTRUCTED" if self.board_reconstructed else self.board_label

    @property
    def board_text(self) -> str:
        """The base board in words: its label, file and whether it is a reconstruction."""
        if self.board_file == "default":
            return (f"the RECONSTRUCTED default board {self.board_label} (the publisher's board is not public: "
                    "road graph, houses, pastures and track lengths are documented choices)")
        if self.board_reconstructed:
            return f"the board {self.board_label} of {self.board_file}, marked reconstructed"
        return f"the board {self.board_label} of {self.board_file}, not marked reconstructed (reconstructed = false)"

    def __post_init__(self) -> None:
        tables = {"pairings": self.pairings, "game_length": self.lengths, "game_length_summary": self.length_summary,
                  "panic_effects": self.panic, "player_vs_automaton": self.advantage,
                  "generated_boards": self.generated, "track_lengths": self.tracks, "balance_points": self.balance,
                  "sensitivity": self.sensitivity, "trajectories": self.trajectories,
                  "plausibility": self.plausibility}
        self.tables = {name: labelled(table, self.board_label, self.board_reconstructed)
                       for name, table in tables.items()}


def labelled(table: pd.DataFrame, label: str, reconstructed: bool) -> pd.DataFrame:
    """``table`` with the base board's label and whether it is reconstructed as its first columns (a table
    with its own ``board`` column, one board per row, keeps it)."""
    if "board" in table:
        return table
    return pd.concat([pd.DataFrame({"board": [label] * len(table), "board_reconstructed": [reconstructed] * len(table)},
                                   index=table.index), table], axis=1)


# ---------------------------------------------------------------- checks

def check_plan(game_obj: Any, plan: Plan) -> None:
    """Every policy and mode of the plan exists, the pairings play their modes, the board file is valid
    and the track lengths are in the validator's ranges (a bad plan fails before anything is played)."""
    from cursedsim.games.village import board as B
    load(plan.board)
    for name in plan.wizards:
        game_obj.policy(name, rules.WIZARD)
    for name in plan.monsters:
        game_obj.policy(name, rules.MONSTER)
    for mode, wizard, monster in plan.pairings:
        spec = rules.MODES.get(mode)
        if spec is None:
            raise ReportError(f"unknown mode {mode!r}; modes: {', '.join(rules.MODES)}")
        auto = rules.AUTOMATON_POLICIES
        automata = (wizard == auto[rules.WIZARD], monster == auto[rules.MONSTER])
        if automata != (spec.wizard_automaton, spec.monster_automaton):
            raise ReportError(f"the pairing {wizard} + {monster} does not play the mode {mode}")
        if wizard not in plan.wizards or monster not in plan.monsters:
            raise ReportError(f"the pairing {wizard} + {monster} of {mode} is not in the plan's policies")
    for mode in plan.study_modes:
        plan.pairing(mode)
    for name, lengths, low, high in (("curse_lengths", plan.curse_lengths, B.CURSE_MIN, B.CURSE_MAX),
                                     ("cure_lengths", plan.cure_lengths, B.CURE_MIN, B.CURE_MAX)):
        if any(not low <= n <= high for n in lengths):
            raise ReportError(f"{name} must be in {low}..{high} (the board validator's range), got {lengths}")
    if plan.generated_boards < 0:
        raise ReportError(f"generated_boards must be 0 or more, got {plan.generated_boards}")


def played_policies(game_obj: Any, plan: Plan, choices: ReportChoices | None) -> dict[str, list[ReportPolicy]]:
    """Side -> the policies of the matrix: the plan's, then the tuned and added ones of that side
    (``--policy wizard=planner:...``)."""
    return {rules.WIZARD: report_policies(game_obj, plan.wizards, choices, rules.WIZARD),
            rules.MONSTER: report_policies(game_obj, plan.monsters, choices, rules.MONSTER)}


# ---------------------------------------------------------------- collect

def collect(out: str, *, n_games: int, seed: int, n_jobs: int, progress: bool | None = None,
            log: Callable[[str], Any] | None = None, plan: Plan | None = None,
            choices: ReportChoices | None = None) -> VillageData:
    """Play every run of the plan (``n_games`` games each, one ``seed``) with run directories under the
    run folder, write the generated boards and track variants into ``<out>/boards/`` and reduce the runs
    to the tables of :class:`VillageData`. ``choices.board``: a board file every run plays instead of the
    plan's base board (and the base of the track variants). ``plan``: this module's ``PLAN`` when None
    (read at the call, so a smaller plan can stand in for it)."""
    from cursedsim.games.village.board import board_of
    from cursedsim.runner import resolve_game

    plan = PLAN if plan is None else plan
    game_obj = resolve_game(plan.game)
    n_games, seed = check_settings(n_games, seed, n_jobs)
    if choices is not None and getattr(choices, "board", None) is not None:
        plan = dataclasses.replace(plan, board=os.path.abspath(os.fspath(choices.board)))
    check_plan(game_obj, plan)
    played = played_policies(game_obj, plan, choices)
    log = log or (lambda message: None)
    base = load(plan.board)   # read now: the file as it is, not as this process read it before
    board_of.cache_clear()   # the runs' boards too (a file rewritten since)
    on_board: dict[str, Any] = {} if plan.board == "default" else {"board": plan.board}
    lengths = {track: boards.track_length(base, track) for track in boards.TRACKS}
    generated = boards.generated(out, plan.generated_boards, plan.board_seed)
    variants = {track: boards.track_variants(out, base, track, [n for n in wanted if n != lengths[track]])
                for track, wanted in (("curse", plan.curse_lengths), ("cure", plan.cure_lengths))}
    boards.prune(out, generated + [bf for files in variants.values() for bf in files])
    played_lengths = sensitivity_mod.played_lengths(base)
    variation_runs = plan.variation_runs(played_lengths, generated)
    runs = Runs(game_obj, out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=progress, log=log,
                choices=choices, total=plan.run_count + len(variation_runs),
                settings={"board": base.label, "board_file": plan.board})
    rows: dict[str, list[dict[str, Any]]] = {key: [] for key in (
        "pairings", "lengths", "length_summary", "panic", "advantage", "generated", "tracks", "sensitivity",
        "trajectories", "plausibility")}

    def simulate(path: str, wizard: ReportPolicy, monster: ReportPolicy, options: dict[str, Any] | None,
                 board: Any) -> pd.DataFrame:
        params = {side: p.params_at(2) for side, p in ((rules.WIZARD, wizard), (rules.MONSTER, monster))
                  if p.params_at(2)}
        frame = runs.simulate(path, policy={rules.WIZARD: wizard.policy, rules.MONSTER: monster.policy},
                              params=params or None, options=options or None)
        check_board(frame, board.label, path)
        return frame[reduce.kept(frame)]

    # 1-4. every pairing on the base board
    pairs = [(w, m) for w in played[rules.WIZARD] for m in played[rules.MONSTER]]
    log(f"pairings: {len(pairs)} runs of {n_games:,} games on {base.label}")
    frames: dict[tuple[str, str], pd.DataFrame] = {}
    for w, m in pairs:
        frame = simulate(os.path.join("pairings", f"{w.run_name(2)}-{m.run_name(2)}"), w, m, on_board, base)
        frames[(w.label, m.label)] = frame
        rows["pairings"].append(reduce.pairing_row(frame, w.label, m.label))
        rows["lengths"] += reduce.length_rows(frame, w.label, m.label)
        rows["length_summary"].append(reduce.length_summary(frame, w.label, m.label))
        rows["panic"] += reduce.panic_rows(frame, w.label, m.label, base)
    automata = rules.AUTOMATON_POLICIES
    for side, mine, others in ((rules.WIZARD, played[rules.WIZARD], played[rules.MONSTER]),
                               (rules.MONSTER, played[rules.MONSTER], played[rules.WIZARD])):
        for policy in mine:
            if policy.label == automata[side]:
                continue
            for other in others:
                key = (policy.label, other.label) if side == rules.WIZARD else (other.label, policy.label)
                auto = (automata[side], other.label) if side == rules.WIZARD else (other.label, automata[side])
                rows["advantage"].append(reduce.advantage_row(frames[key], frames[auto], side, policy.label,
                                                              automata[side], other.label))

    # 8. round by round: each mode's first games replayed by the reference engine (each must end as its row)
    by_label = {p.label: p for side in played.values() for p in side}
    count = min(plan.trajectory_games, n_games)
    log(f"trajectories: {len(plan.pairings)} x {count:,} games replayed")
    for mode, w, m in plan.pairings:
        pair = {rules.WIZARD: by_label[w], rules.MONSTER: by_label[m]}
        policy = {side: p.policy for side, p in pair.items()}
        params = {side: p.params_at(2) for side, p in pair.items() if p.params_at(2)} or None

        def replay(index: int, policy=policy, params=params) -> list[dict]:
            from cursedsim.runner import replay as replay_game
            return replay_game(plan.game, seed, index, policy=policy, params=params, options=on_board or None,
                               format="events")
        rows["trajectories"] += trajectories.collect(replay, frames[(w, m)], mode, count)
        rows["plausibility"].append(reduce.plausibility_row(frames[(w, m)], mode, w, m))

    # 5-6. generated boards and track lengths, in the study pairings. Every board there plays the track
    # lengths its file writes (the calibrated lengths, option track_calibration, belong to the default board
    # alone), so their base is the base board as its file is written: track_calibration="board".
    study = [(mode, *plan.pairing(mode)) for mode in plan.study_modes]
    as_written = {**on_board, "track_calibration": "board"}
    log(f"the base board as written (track_calibration=board): {len(study)} runs of {n_games:,} games")
    for mode, w, m in study:
        frame = simulate(os.path.join("as-written", mode), by_label[w], by_label[m], as_written, base)
        rows["generated"].append(reduce.board_row(frame, base, _base_file(plan.board), "base", 0, w, m))
        for track in boards.TRACKS:
            rows["tracks"].append(reduce.board_row(frame, base, _base_file(plan.board), track, lengths[track], w, m))
    log(f"generated boards: {len(generated) * len(study)} runs of {n_games:,} games")
    for bf in generated:
        for mode, w, m in study:
            frame = simulate(os.path.join("generated", str(bf.value), mode), by_label[w], by_label[m],
                             {"board": bf.path}, bf.board)
            rows["generated"].append(reduce.board_row(frame, bf.board, bf.file, bf.kind, bf.value, w, m))
    count = sum(len(v) for v in variants.values())
    log(f"track lengths: {count * len(study)} runs of {n_games:,} games")
    for track, files in variants.items():
        for bf in files:
            for mode, w, m in study:
                frame = simulate(os.path.join("tracks", f"{track}{bf.value}", mode), by_label[w], by_label[m],
                                 {"board": bf.path}, bf.board)
                rows["tracks"].append(reduce.board_row(frame, bf.board, bf.file, track, bf.value, w, m))

    # 7. the calibrated game's sensitivity: each variation in the modes it reaches, paired with the default
    log(f"sensitivity: {len(variation_runs)} runs of {n_games:,} games")
    for variation, mode in variation_runs:
        board = next((bf.board for bf in generated if bf.path == variation.options.get("board")), base)
        w, m = plan.pairing(mode)
        frame = simulate(os.path.join("sensitivity", variation.key, mode), by_label[w], by_label[m],
                         {**on_board, **variation.options}, board)
        rows["sensitivity"].append(sensitivity_mod.row(frame, frames[(w, m)], variation, mode, w, m))

    tables = {key: pd.DataFrame(value) for key, value in rows.items()}
    advantage = with_holm(tables["advantage"]) if len(tables["advantage"]) else tables["advantage"]
    tracks = tables["tracks"]
    if len(tracks):   # per track (curse, cure), the modes in the plan's order, shortest first
        order = {mode: k for k, mode in enumerate(plan.study_modes)}
        track_order = {track: k for k, track in enumerate(boards.TRACKS)}
        tracks = tracks.sort_values(["kind", "mode", "value"], kind="stable", key=lambda c: c.map(
            track_order if c.name == "kind" else order) if c.name in ("kind", "mode") else c).reset_index(drop=True)
    balance = pd.DataFrame(reduce.balance_rows(tracks, lengths)) if len(tracks) else pd.DataFrame()
    return VillageData(
        **runs.provenance(), plan=plan, board_label=base.label, board_reconstructed=base.reconstructed,
        board_file=plan.board, track_lengths=lengths, pairings=tables["pairings"], lengths=tables["lengths"],
        length_summary=tables["length_summary"], panic=tables["panic"], advantage=advantage,
        generated=tables["generated"], tracks=tracks, balance=balance, played_lengths=played_lengths,
        sensitivity=tables["sensitivity"], trajectories=tables["trajectories"],
        plausibility=tables["plausibility"])


def _base_file(board: str) -> str:
    return "(default)" if board == "default" else board


def check_board(frame: pd.DataFrame, label: str, what: str) -> None:
    """The run played the board the report names (the frame's ``board`` column)."""
    played = set(frame["board"].astype(str).unique())
    if played != {label}:
        raise ReportError(f"{what}: played board {', '.join(sorted(played))}, expected {label}")


__all__ = ["CURE_LENGTHS", "CURSE_LENGTHS", "GENERATED_BOARDS", "MODE_PAIRINGS", "PLAN", "STUDY_MODES", "Plan",
           "VillageData", "check_board", "check_plan", "collect", "labelled", "load", "make_plan", "played_policies"]
