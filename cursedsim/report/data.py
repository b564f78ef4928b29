"""What every game's report shares to simulate: the run folder (``<report>/runs`` or ``--runs-dir``;
resumable, replaced when the settings or sources change), a :class:`Runs` helper that plays every run
of a report through :func:`cursedsim.simulate` or :func:`cursedsim.compare.compare` with the report's
one seed (common random numbers; a game of sides passes ``side=``/``others=`` or a policy per side
through), counts them and shows them on the report's one progress bar, what the user adds to a
report's plan (:class:`ReportChoices`: more policies, a tuned-parameters file, a deck file), the
policies a report plays (:class:`ReportPolicy`), the fields every report's data has
(:class:`ReportData`) and the paired reductions of one run against another on the same games.

The game-specific plans and tables live in the game's own report package (``report/<game>/data.py``);
only summaries leave them, the per-game frames stay in the run directories.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.errors import CursedsimError, RunError
from cursedsim.files import write_atomic
from cursedsim.games import list_games
from cursedsim.report.progress import ReportProgress

#: Folder of a report's run directories (per-game Parquet chunks; not committed).
RUNS_DIR = "runs"
#: Marker file in ``runs/``: the settings and sources the runs there were played with.
RUNS_MARKER = "report-runs.json"


class ReportError(CursedsimError):
    """A report that cannot be made: a game without a report, or an unusable output folder."""


@dataclass(kw_only=True)
class ReportData:
    """What every report's data states: the game's ``title``, the settings (``n_games`` per cell,
    ``seed``), the cursedsim ``version`` and the ``code`` digest of the game's sources, the rule
    options' docs and defaults, how many ``runs`` and games were played in how many ``seconds``, and
    ``tables``: the numbers behind every figure by name (written as ``tables/<name>.csv``). A game's
    report extends it with its own tables."""

    title: str
    n_games: int
    seed: int
    version: str
    code: str
    option_docs: dict[str, str]
    option_defaults: dict[str, Any]
    runs: int = 0
    games_played: int = 0
    seconds: float = 0.0
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)


# ---------------------------------------------------------------- what the user adds

#: The label suffix of a tuned policy (the palette draws it in its policy's colour, darker).
TUNED_SUFFIX = " (tuned)"


@dataclass(frozen=True)
class ReportChoices:
    """What a report plays besides its own plan, and where.

    runs_dir: the folder of the run directories (None: ``<out>/runs``); policies: policies added next
    to the built-in ones (names, also a plugin's, or ``"name:param=value,..."``); tuned_file: a file of
    tuned parameters (``cursedsim tune --out``; its policies join as ``"<policy> (tuned)"``), or None;
    tracker: the report's one progress bar (None: no bar); deck: a deck file every run plays instead of
    the game's default deck (a game with a ``deck`` option; checked by :func:`report_deck`), or None;
    board: likewise a board file every run plays (a game with a ``board`` option; :func:`report_board`).
    """

    runs_dir: str | None = None
    policies: tuple[str, ...] = ()
    tuned_file: str | None = None
    tracker: ReportProgress | None = None
    deck: str | None = None
    board: str | None = None


@dataclass(frozen=True)
class ReportPolicy:
    """A policy a report plays: its ``label`` (tables, legends, colours), the ``policy`` it runs and its
    parameter overrides, the same at every player count (``params``) or per player count
    (``by_players``, e.g. tuned; a player count missing there is not played); ``source`` says where it
    came from (``built-in``, ``--policy`` or the tuned file); ``side``: the side it plays in a game of
    sides (None otherwise)."""

    label: str
    policy: str
    params: Mapping[str, float] = field(default_factory=dict)
    by_players: Mapping[int, Mapping[str, float]] | None = None
    source: str = "built-in"
    side: str | None = None

    def plays(self, players: int) -> bool:
        """Whether it has parameters for ``players`` players."""
        return self.by_players is None or players in self.by_players

    def params_at(self, players: int) -> dict[str, float]:
        """Its parameter overrides at ``players`` players."""
        return dict(self.params if self.by_players is None else self.by_players[players])

    def contender(self, players: int) -> dict[str, Any]:
        """It as one side of ``compare`` at ``players`` players."""
        return {"label": self.label, "policy": self.policy, "params": self.params_at(players)}

    def run_name(self, players: int) -> str:
        """A folder name for its runs at ``players`` players: the label as a slug, and a digest of
        the parameters when it has some (other parameters never reuse a run of these); a side's policy
        starts with the side (``hunter-tracker``)."""
        name = run_name(self.label, self.params_at(players))
        return name if self.side is None else f"{self.side}-{name}"


def run_name(label: str, params: Mapping[str, float] | None = None) -> str:
    """``label`` as a folder name (``smart (tuned)`` -> ``smart-tuned``), with an 8-digit digest of
    ``params`` when there are any."""
    slug = re.sub(r"[^a-z0-9_.=+-]+", "-", label.lower()).strip("-") or "policy"
    if not params:
        return slug
    digest = hashlib.sha256(json.dumps(sorted(params.items())).encode()).hexdigest()[:8]
    return f"{slug.split(':')[0]}-{digest}"


def default_tuned_file(game: str) -> str | None:
    """The tuned parameters ``make results`` writes for ``game`` (``results/<game>/tuned.json`` in the
    repository), or None when there is none (e.g. an installed package)."""
    from cursedsim.report.content import REPO_ROOT
    path = REPO_ROOT / "results" / game / "tuned.json"
    return str(path) if path.is_file() else None


def load_tuned(path: str, game: Any) -> list[ReportPolicy]:
    """The tuned policies of a tuning file: the JSON ``cursedsim tune --out`` and ``tune_summary``
    write (one policy: ``{"game", "policy", "players": {"3": {"params": {...}}, ...}}``; a game of sides
    adds the tuned ``side``) or a mapping policy name -> such a document; parameters per player count. A
    ReportError names what is wrong."""
    from cursedsim.contenders import check_policy
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except OSError as error:
        raise ReportError(f"cannot read the tuned parameters {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise ReportError(f"the tuned parameters {path} are not JSON ({error})") from None
    if isinstance(document, dict) and "players" in document:
        document = {document.get("policy"): document}
    if not isinstance(document, dict) or not document:
        raise ReportError(f"{path} holds no tuned parameters (expected the JSON of `cursedsim tune --out`)")
    tuned = []
    for name, entry in document.items():
        players = entry.get("players") if isinstance(entry, dict) else None
        if not isinstance(players, dict) or not players:
            raise ReportError(f"{path}: entry {name!r} has no 'players' with tuned parameters per player count")
        if entry.get("game", game.name) != game.name:
            raise ReportError(f"{path} was tuned for {entry.get('game')!r}, not {game.name!r}")
        policy = entry.get("policy", name)
        side = entry.get("side")
        if game.sides and side not in game.side_names:
            raise ReportError(f"{path}: {policy!r} names no side of {game.name} ({', '.join(game.side_names)}); "
                              "tune files of a game of sides hold the tuned 'side'")
        by_players = {}
        for count, result in players.items():
            try:
                count = int(count)
                params = {k: float(v) for k, v in result["params"].items()}
            except (TypeError, ValueError, KeyError, AttributeError):
                raise ReportError(f"{path}: {policy!r} at {count!r} players has no parameters "
                                  "(expected players: {count: {params: {name: number}}})") from None
            try:
                check_policy(game, policy, params, side if game.sides else None)
            except CursedsimError as error:
                raise ReportError(f"{path}: {error}") from None
            by_players[count] = params
        tuned.append(ReportPolicy(f"{policy}{TUNED_SUFFIX}", policy, by_players=by_players, source=path,
                                  side=side if game.sides else None))
    return tuned


def report_policies(game: Any, builtin: Sequence[str], choices: ReportChoices | None,
                    side: str | None = None) -> list[ReportPolicy]:
    """The policies a report plays: its ``builtin`` ones, then the tuned ones of ``choices.tuned_file``,
    then ``choices.policies`` (one already there is not added twice); checked, labels distinct.

    A game of sides: the policies of ``side`` (a report varying the hunter calls it for ``"hunter"``);
    ``choices.policies`` are then ``SIDE=POLICY[:param=value,...]`` and the tuned file's entries name
    their side: only those of ``side`` are taken (a side no game side has is an error)."""
    from cursedsim.compare import contenders
    if game.sides:
        game.side(side)   # a game of sides needs the side (an error naming them)
    result = [ReportPolicy(name, name, side=side) for name in builtin]
    choices = choices or ReportChoices()
    if choices.tuned_file:
        result += [p for p in load_tuned(choices.tuned_file, game) if p.side == side]
    extra = [spec for spec in dict.fromkeys(_side_entries(game, choices.policies, side))
             if spec not in {p.label for p in result}]
    if extra:   # checked as compare checks its policies (names, parameters, values), after a built-in one
        head = list(builtin[:1])
        for entry in contenders(game, head + extra, side)[len(head):]:
            result.append(ReportPolicy(entry.label, entry.policy, dict(entry.params), source="--policy", side=side))
    labels = [p.label for p in result]
    if len(set(labels)) != len(labels):
        raise ReportError(f"two policies of the report share a label: {labels}")
    return result


def report_deck(game: Any, deck: Any) -> str | None:
    """The deck file a report plays instead of ``game``'s default deck, as an absolute path (None: no
    deck given), checked before anything is played: ``game`` has a ``deck`` option (otherwise a
    ReportError naming the reports that take one) and the file is a valid deck (the game's own
    validator raises its one-line error naming the field and the line)."""
    from cursedsim.runner import option_kinds
    if deck is None:
        return None
    if not isinstance(deck, (str, os.PathLike)) or not os.fspath(deck).strip():
        raise ReportError(f"a report's deck must be a deck file path, got {deck!r}")
    if "deck" not in option_kinds(game.options_type):
        raise ReportError(f"only the {' and '.join(_decked_reports()) or 'gifts'} report takes a deck (--deck FILE); "
                          f"{game.name} has no deck option")
    given = os.fspath(deck)   # checked as given, so that the error names the file as the user wrote it
    game.option_columns(game.make_options({"deck": given}), game.default_players or game.min_players)
    return os.path.abspath(given)


def report_board(game: Any, board: Any) -> str | None:
    """The board file a report plays instead of ``game``'s default board, as an absolute path (None: no
    board given), checked before anything is played as :func:`report_deck` checks a deck: ``game`` has a
    ``board`` option and the file is a valid board (the validator's one-line error names field and line)."""
    from cursedsim.runner import option_kinds
    if board is None:
        return None
    if not isinstance(board, (str, os.PathLike)) or not os.fspath(board).strip():
        raise ReportError(f"a report's board must be a board file path, got {board!r}")
    if "board" not in option_kinds(game.options_type):
        raise ReportError(f"only the village report takes a board (--board FILE); {game.name} has no board option")
    given = os.fspath(board)
    game.option_columns(game.make_options({"board": given}), game.default_players or game.min_players)
    return os.path.abspath(given)


def _decked_reports() -> list[str]:
    """The games whose report takes a deck file (their rule options have a ``deck``)."""
    from cursedsim.runner import option_kinds, resolve_game
    records = [resolve_game(name) for name in list_games()]
    return [game.name for game in records
            if game.report_module is not None and "deck" in option_kinds(game.options_type)]


def _side_entries(game: Any, entries: Sequence[str], side: str | None) -> list[str]:
    """The ``--policy`` entries of ``side`` (``hunter=mine:x=1`` -> ``mine:x=1``); all of them for a
    single-side game."""
    if not game.sides:
        return list(entries)
    mine = []
    for entry in entries:
        name, sep, rest = entry.partition("=")
        if not sep or not rest.strip():
            raise ReportError(f"{game.name} has sides ({', '.join(game.side_names)}): a report's --policy takes "
                              f"SIDE=POLICY[:param=value,...], got {entry!r}")
        if game.side(name.strip()).name == side:
            mine.append(rest.strip())
    return mine


# ---------------------------------------------------------------- run directories

def runs_folder(out: str, runs_dir: str | None = None) -> str:
    """Where a report's runs go: ``runs_dir``, or ``<out>/runs``. ``runs_dir`` may not be the report
    folder, hold it, or lie in its ``figures/`` or ``tables/`` (removing the runs would remove them)."""
    if runs_dir is None:
        return os.path.join(out, RUNS_DIR)
    runs = os.path.realpath(runs_dir)
    report = os.path.realpath(out)
    inside = [os.path.join(report, name) for name in ("figures", "tables")]
    if runs == report or report.startswith(runs + os.sep) or \
            any(runs == d or runs.startswith(d + os.sep) for d in inside):
        raise ReportError(f"--runs-dir {runs_dir} would mix the runs with the report in {out}; choose a folder "
                          "outside it (or its own subfolder, like the default runs/)")
    return os.fspath(runs_dir)


def prepare_runs(out: str, marker: dict[str, Any], runs_dir: str | None = None) -> str:
    """The run folder (``runs_dir`` or ``out/runs``), emptied when its runs were played with other
    settings or other sources (they could not be resumed), created when missing; refuses a folder it
    did not make, or one holding another game's report runs."""
    runs = runs_folder(out, runs_dir)
    path = os.path.join(runs, RUNS_MARKER)
    where = "--runs-dir" if runs_dir is not None else "--out"
    if os.path.isdir(runs) and os.listdir(runs):
        if not os.path.isfile(path):
            raise ReportError(f"{runs} exists and was not made by a report; choose another {where}")
        try:
            with open(path) as f:
                old = json.load(f)
        except (OSError, ValueError):
            old = None
        if isinstance(old, dict) and old.get("game") not in (None, marker.get("game")):
            raise ReportError(f"{runs} holds the runs of the {old['game']} report; choose another {where}")
        if old != marker:
            shutil.rmtree(runs)
    os.makedirs(runs, exist_ok=True)
    if not os.path.isfile(path):
        write_atomic(path, json.dumps(marker, indent=1))
    return runs


def remove_runs(folder: str) -> None:
    """Remove a report's run folder (``--no-keep-runs``): only one marked as a report's."""
    if os.path.isfile(os.path.join(folder, RUNS_MARKER)):
        shutil.rmtree(folder)


def check_settings(n_games: int, seed: int, n_jobs: int) -> tuple[int, int]:
    """``(n_games, seed)`` checked as the runner checks them; a report needs 2+ games per cell."""
    from cursedsim.runner import check_n_games, check_n_jobs, check_seed
    n_games = check_n_games(n_games)
    if n_games < 2:
        raise RunError(f"a report needs at least 2 games per cell (paired intervals), got {n_games}")
    seed = check_seed(seed)
    check_n_jobs(n_jobs)
    return n_games, seed


class Runs:
    """The runs of one report: every one plays games ``0 .. n_games-1`` with ``seed`` into a run
    directory under the run folder (so an interrupted report resumes), is counted, and advances the
    report's one progress bar (``choices.tracker``; the runs themselves show none).

    Creating it prepares the run folder (see :func:`prepare_runs`); check the plan before. ``total``:
    the runs the plan plays (for "run k of N"). ``settings``: what else every run depends on that its
    run directory is not keyed on (e.g. the deck played: its ``name@digest`` and file), kept in the run
    folder's marker under ``settings``: runs of other settings are replaced, never resumed.
    ``kernel_only``: every run plays kernel policies, so the folder is keyed on the compiled sources only
    (``numba_cache.NOT_COMPILED`` left out); False for runs of search or reference-engine policies.
    """

    def __init__(self, game: Any, out: str, *, n_games: int, seed: int, n_jobs: int,
                 progress: bool | None = None, log: Callable[[str], Any] | None = None,
                 choices: ReportChoices | None = None, total: int | None = None,
                 settings: Mapping[str, Any] | None = None, kernel_only: bool = True) -> None:
        from cursedsim.version import __version__
        from cursedsim.numba_cache import source_digest
        choices = choices or ReportChoices()
        self.game = game
        self.n_games = n_games
        self.seed = seed
        self.n_jobs = n_jobs
        self.tracker = choices.tracker or ReportProgress(enabled=False, log=log)
        self.log = self.tracker.message
        self.version = __version__
        # kernel runs depend on the compiled sources only; runs of search or reference-engine policies on all
        self.code = source_digest(game.name, compiled_only=kernel_only)
        self.started = time.perf_counter()
        self.count = 0
        self.games_short = 0   # games the runs of ``simulate_n`` played fewer than n_games
        marker = {"game": game.name, "n_games": n_games, "seed": seed, "version": __version__, "code": self.code}
        if settings:   # a marker without settings stays as it was (its runs still resume)
            marker["settings"] = json.loads(json.dumps(dict(settings)))
        self.folder = prepare_runs(out, marker, choices.runs_dir)
        self.tracker.begin(total or 0, n_games)

    def _played(self, path: str, runs: int, label: str, play: Callable[[], Any]) -> Any:
        """``play()`` counted as ``runs`` runs on the bar (resumed when all their frames are there)."""
        from cursedsim.runner import FRAME_FILE
        folder = os.path.join(self.folder, path)
        resumed = len(glob.glob(os.path.join(glob.escape(folder), "**", FRAME_FILE), recursive=True)) >= runs
        self.tracker.run(label, runs, resumed)
        result = play()
        self.tracker.done()
        self.count += runs
        return result

    def simulate(self, path: str, **kwargs: Any) -> pd.DataFrame:
        """One run (``simulate``'s keyword arguments: players, policy, params, options; a game of sides:
        policy and params per side) in ``<runs>/<path>``."""
        from cursedsim.runner import simulate
        return self._played(path, 1, path, lambda: simulate(
            self.game, self.n_games, seed=self.seed, n_jobs=self.n_jobs, progress=False,
            out=os.path.join(self.folder, path), **kwargs))

    def simulate_n(self, path: str, n_games: int, **kwargs: Any) -> pd.DataFrame:
        """Like ``simulate`` with ``n_games`` games (0 .. n_games-1 of the same seed), e.g. a search run
        far slower than the report's other cells."""
        from cursedsim.runner import simulate
        frame = self._played(path, 1, path, lambda: simulate(
            self.game, n_games, seed=self.seed, n_jobs=self.n_jobs, progress=False,
            out=os.path.join(self.folder, path), **kwargs))
        self.games_short += self.n_games - n_games   # games_played counts n_games per run
        return frame

    def compare(self, path: str, policies: Sequence[Any], **kwargs: Any):
        """``compare.compare`` of ``policies`` on the same games (one run each) in ``<runs>/<path>``; a game
        of sides passes ``side=`` (the varied side) and ``others=`` (the fixed sides) in ``kwargs``."""
        from cursedsim.compare import compare
        return self._played(path, len(policies), path, lambda: compare(
            self.game, list(policies), self.n_games, seed=self.seed, n_jobs=self.n_jobs,
            out=os.path.join(self.folder, path), progress=False, **kwargs))

    def provenance(self) -> dict[str, Any]:
        """The :class:`ReportData` fields of these runs (title, settings, version, sources, option docs
        and defaults, runs, games, seconds so far)."""
        from cursedsim.describe import option_docs
        options = self.game.make_options(None)
        docs = option_docs(self.game.options_type)
        return {"title": self.game.title, "n_games": self.n_games, "seed": self.seed, "version": self.version,
                "code": self.code, "option_docs": docs,
                "option_defaults": {name: getattr(options, name) for name in docs},
                "runs": self.count, "games_played": self.count * self.n_games - self.games_short,
                "seconds": time.perf_counter() - self.started}


# ---------------------------------------------------------------- reductions

def concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The non-empty frames one below the other (if none: an empty frame with the first one's columns)."""
    full = [f for f in frames if len(f)]
    if full:
        return pd.concat(full, ignore_index=True)
    return pd.DataFrame(columns=frames[0].columns) if frames else pd.DataFrame()


def games_changed(alt: pd.DataFrame, default: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Per game: whether any of ``columns`` differs between two runs of the same games (missing
    values of a categorical column count as equal)."""
    changed = np.zeros(len(alt), dtype=bool)
    for column in columns:
        a, d = alt[column], default[column]
        if isinstance(a.dtype, pd.CategoricalDtype) and a.hasnans | d.hasnans:
            a, d = a.astype(object).fillna(""), d.astype(object).fillna("")
        changed |= a.to_numpy() != d.to_numpy()
    return changed


def paired_win_change(alt: pd.DataFrame, default: pd.DataFrame, outcome_columns: Sequence[str],
                      win: str = "win") -> dict[str, Any]:
    """The paired difference alt - default of the win rate on the same games (``paired_difference``'s
    n, diff, se, ci_low, ci_high, p_value), the two rates (``value_default``, ``value_option``) and
    ``games_changed``: the share of games whose outcome columns differ at all. ``win``: the boolean win
    column (a game of sides: a side's, ``game.win_column(side)``)."""
    from cursedsim.stats import paired_difference
    win_a = alt[win].to_numpy()
    win_d = default[win].to_numpy()
    row = paired_difference(win_a.astype(np.float64), win_d.astype(np.float64))
    row.pop("sd", None)
    return {"measure": "win_rate", "value_default": win_d.mean(), "value_option": win_a.mean(), **row,
            "games_changed": float(games_changed(alt, default, outcome_columns).mean())}


#: The level at which a (Holm-adjusted) p-value counts as significant.
ALPHA = 0.05


def with_holm(table: pd.DataFrame, p_column: str = "p_value") -> pd.DataFrame:
    """``table`` with ``p_holm``: its p-values Holm-adjusted over all its rows (one family; rows without a
    p-value stay NaN and do not count) and ``survives``: ``p_holm`` below ALPHA."""
    from cursedsim.stats import holm
    if p_column not in table:   # no tests at all (e.g. an empty table)
        return table.assign(p_holm=np.nan, survives=False)
    adjusted = holm(table[p_column].to_numpy(np.float64))
    return table.assign(p_holm=adjusted, survives=adjusted < ALPHA)


def difference_of_differences(changes: Mapping[str, np.ndarray], reference: str | None = None) -> list[dict[str, Any]]:
    """Whether an effect depends on the policy: ``changes`` maps each policy to its per-game change
    (option - default, on the same games); per policy other than ``reference`` (default: the first),
    the paired difference of the two policies' changes, game by game (``diff`` = effect with the policy
    - effect with the reference, its t interval and ``p_value``; ``effect``, ``effect_reference``)."""
    from cursedsim.stats import paired_difference
    reference = reference if reference is not None else next(iter(changes))
    rows = []
    for policy, change in changes.items():
        if policy == reference:
            continue
        d = paired_difference(change, changes[reference])
        rows.append({"policy": policy, "reference": reference, "effect": float(np.mean(change)),
                     "effect_reference": float(np.mean(changes[reference])), "diff": d["diff"], "se": d["se"],
                     "ci_low": d["ci_low"], "ci_high": d["ci_high"], "p_value": d["p_value"]})
    return rows


__all__ = ["ALPHA", "RUNS_DIR", "RUNS_MARKER", "TUNED_SUFFIX", "ReportChoices", "ReportData", "ReportError",
           "ReportPolicy", "Runs", "check_settings", "concat", "default_tuned_file", "difference_of_differences",
           "games_changed", "load_tuned", "paired_win_change", "prepare_runs", "remove_runs", "report_board",
           "report_deck",
           "report_policies", "run_name", "runs_folder", "with_holm"]
