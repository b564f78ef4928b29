"""Balance reports: simulate what a game's report needs, draw its figures, write Markdown and a
self-contained HTML file.

    from cursedsim.report import report
    result = report("verflucht", "results/verflucht/report", n_games=200_000, seed=2026, n_jobs=2)
    result.html, result.markdown, result.figures[0].reading

Shared modules, one job each: ``registry`` (which games have a report, and what a game's report
provides), ``data`` (the resumable run folder, ``<out>/runs`` or ``--runs-dir``, the runs through
``cursedsim.simulate`` and ``cursedsim.compare.compare``, all with one seed, and the policies a user
adds or tuned), ``progress`` (one progress bar for the whole report), ``figures`` (``ReportFigure``
and the drawing helpers), ``content`` (number formats, settings, method and rule options as text),
``writer`` (jinja2 templates in ``templates/``, atomic writes), ``command`` (the ``cursedsim report``
click command). Each game's report is a package beside them (``verflucht/``, ``cursed/``: its plan
and tables, its figures with their readings, its summary, recommendations and settings), found through
``registry.REPORTS`` (read from each game's record, ``Game.report_module``).
Importing this package stays light: the heavy modules load when a report is made.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # pragma: no cover
    import pandas as pd

    from cursedsim.report.data import ReportData
    from cursedsim.report.figures import ReportFigure

#: Games per cell of the default reports: a few minutes on 2 cores (Verflucht!: 135 runs, 27 million
#: games; Cursed!?: 85 runs, 17 million games).
DEFAULT_GAMES = 200_000
#: The default seed (the seal experiment's, so figure 1 matches results/verflucht/seals.csv).
DEFAULT_SEED = 2026
#: Worker processes by default: every core.
DEFAULT_JOBS = -1


#: ``tuned`` of :func:`report`: the repository's ``results/<game>/tuned.json`` when there is one.
TUNED_DEFAULT = "default"


@dataclass
class Report:
    """A written report of ``game``: its folder and files, the figures with their readings, the summary
    table (numbers), the recommendations (text, or None), the data behind the figures, the run folder
    (None once removed) and the seconds it took."""

    game: str
    out: str
    markdown: str
    html: str
    figures: list[ReportFigure]
    summary: pd.DataFrame
    data: ReportData
    seconds: float
    recommendations: dict[str, Any] | None = None
    runs_dir: str | None = None

    @property
    def readings(self) -> dict[str, str]:
        return {figure.name: figure.reading for figure in self.figures}


def report(game: str, out: str | os.PathLike, *, n_games: int = DEFAULT_GAMES, seed: int = DEFAULT_SEED,
           n_jobs: int = DEFAULT_JOBS, progress: bool | None = None,
           log: Callable[[str], Any] | None = None, command: str | None = None,
           runs_dir: str | os.PathLike | None = None, keep_runs: bool = True, policies: Sequence[str] = (),
           tuned: str | os.PathLike | None = TUNED_DEFAULT, deck: str | os.PathLike | None = None,
           board: str | os.PathLike | None = None, search_games: int | None = None) -> Report:
    """Simulate, draw and write the balance report of ``game`` into the folder ``out``.

    ``n_games`` games per cell (every policy x setting the game's report varies), all with
    ``seed``; ``n_jobs`` worker processes (-1: every core); ``progress``: one progress bar for the
    whole report (None: for big reports on a terminal); ``log``: called with a line per stage. Runs
    are checkpointed under ``runs_dir`` (default ``out/runs``; rerunning resumes; runs of other
    settings or sources are replaced); ``keep_runs=False`` removes them once the report is written.
    ``policies``: more policies played next to the built-in ones (names or ``"name:param=value"``);
    ``tuned``: a tuned-parameters file (``cursedsim tune --out``) whose policies join too, with their
    parameters per player count; the default is the repository's ``results/<game>/tuned.json`` when it
    exists, None for none. ``deck``: a deck file every run plays instead of the default deck (only a
    game with a deck option: gifts); a bad file fails with the validator's one-line error before
    anything is written or played, and runs of another deck are never resumed. ``board``: likewise a
    board file every run plays (only a game with a board option: village). ``search_games``: games per
    contender of the skill-ceiling section (``ceiling``; None: one per 1,000 ``n_games``, at most
    ``ceiling.DEFAULT_SEARCH_GAMES``; 0: no section), played on games 0.. of the same seed. Writes ``report.md``,
    ``report.html``, ``figures/*.png`` and ``tables/*.csv``.
    """
    from cursedsim.errors import RunError
    from cursedsim.report import data, figures, writer
    from cursedsim.report.progress import ReportProgress, want_bar
    from cursedsim.report.registry import report_for
    from cursedsim.rundir import check_out

    started = time.perf_counter()
    game_report = report_for(game)
    data.check_settings(n_games, seed, n_jobs)
    search_games = _search_games(search_games, n_games)
    try:
        out = check_out(out, "out")   # a path that is not a file
        runs_dir = None if runs_dir is None else check_out(runs_dir, "runs_dir")
    except RunError as error:
        raise data.ReportError(str(error)) from None
    runs = data.runs_folder(out, runs_dir)
    deck_file = None
    if deck is not None:   # the game takes a deck and the file is one, before anything is written or played
        from cursedsim.runner import resolve_game
        deck_file = data.report_deck(resolve_game(game_report.game), deck)
    board_file = None
    if board is not None:   # the same for a board file
        from cursedsim.runner import resolve_game
        board_file = data.report_board(resolve_game(game_report.game), board)
    tuned_file = _tuned_file(game_report.game, tuned)
    policies = _policy_specs(policies)
    if tuned_file or policies:   # a bad file or policy fails before anything is written or played
        from cursedsim.runner import resolve_game
        game_obj = resolve_game(game_report.game)
        for side in game_obj.side_names or (None,):   # a game of sides: every side's policies
            data.report_policies(game_obj, list(game_obj.policies_of(side))[:1],
                                 data.ReportChoices(policies=policies, tuned_file=tuned_file), side)
    os.makedirs(out, exist_ok=True)
    with ReportProgress(enabled=want_bar(progress, n_games * 100), log=log) as tracker:   # ~100 runs a report
        choices = data.ReportChoices(runs_dir=runs_dir, policies=policies, tuned_file=tuned_file, tracker=tracker,
                                     deck=deck_file, board=board_file)
        report_data = game_report.collect(out, n_games=n_games, seed=seed, n_jobs=n_jobs, progress=False,
                                          log=tracker.message, choices=choices)
        ceiling_figures = _ceiling(game_report, report_data, out, runs, search_games, seed, n_jobs, choices)
    (log or (lambda message: None))("figures and documents")
    drawn = figures.make_figures(report_data, [*game_report.figures, *ceiling_figures])
    command = command or _command(game_report.game, out, n_games, seed, runs_dir, policies, tuned, tuned_file,
                                  None if deck is None else os.fspath(deck),
                                  None if board is None else os.fspath(board), search_games)
    recommendations = game_report.recommendations(report_data) if game_report.recommendations else None
    context = {**game_report.context(report_data, out=out, command=command), "recommendations": recommendations}
    notes = {**game_report.table_notes, **({"skill_ceiling": _ceiling_note(game_report)} if ceiling_figures else {})}
    written = writer.write_report(out, context, drawn, report_data.tables, notes)
    if not keep_runs:
        data.remove_runs(runs)
    return Report(game=game_report.game, out=out, markdown=written.markdown, html=written.html, figures=drawn,
                  summary=game_report.summary_table(report_data), data=report_data,
                  seconds=time.perf_counter() - started, recommendations=recommendations,
                  runs_dir=runs if keep_runs else None)


def _search_games(search_games: Any, n_games: int) -> int:
    """The games per contender of the skill-ceiling section, or a ReportError. None: one per 1,000 games
    of the report's cells, at most ``ceiling.DEFAULT_SEARCH_GAMES`` (a small report plays none)."""
    from cursedsim.report.ceiling import DEFAULT_SEARCH_GAMES
    from cursedsim.report.data import ReportError
    if search_games is None:
        return min(DEFAULT_SEARCH_GAMES, n_games // 1000)
    if isinstance(search_games, bool) or not isinstance(search_games, int) or not 0 <= search_games <= 10**7:
        raise ReportError(f"search_games must be an integer from 0 (no skill-ceiling section) to 10,000,000, "
                          f"got {search_games!r}")
    return search_games


def _ceiling(game_report, report_data, out: str, runs: str, search_games: int, seed: int, n_jobs: int,
             choices) -> list:
    """Play the game's skill-ceiling section (``ceiling``) into ``<runs>/ceiling``, add its table to
    ``report_data``; its figure maker (none when the game has no plan or ``search_games`` is 0)."""
    import dataclasses

    from cursedsim.report import ceiling
    from cursedsim.report.data import Runs
    from cursedsim.runner import resolve_game
    if game_report.ceiling is None or not search_games:
        return []
    game = resolve_game(game_report.game)
    plan = game_report.ceiling()
    n_rollout = min(ceiling.ROLLOUT_GAMES, report_data.n_games // 100)
    n_rollout = n_rollout if n_rollout >= 20 else 0   # too few to say anything: ISMCTS's small look instead
    searches = [len(plan.rollout_budgets) if ceiling.has_rollout(game, s) and n_rollout else len(plan.budgets)
                for s in plan.settings]
    ceiling_runs = Runs(game, out, n_games=plan.games(search_games), seed=seed, n_jobs=n_jobs,
                        choices=dataclasses.replace(choices, runs_dir=os.path.join(runs, "ceiling")),
                        total=sum(len(s.heuristics) + k for s, k in zip(plan.settings, searches)),
                        settings={"ceiling": repr(plan), "rollout_games": n_rollout}, kernel_only=False)
    table, maker = ceiling.section(ceiling_runs, plan, search_games, game.title, n_rollout)
    report_data.tables["skill_ceiling"] = table
    report_data.runs += ceiling_runs.count
    report_data.games_played += int(table[table["kind"] != "clairvoyant"]["games"].sum())
    return [maker]


def _ceiling_note(game_report) -> str:
    from cursedsim.report.ceiling import table_note
    return table_note(game_report.ceiling())


def _tuned_file(game: str, tuned: Any) -> str | None:
    """The tuned-parameters file to read: ``tuned``, the default's (``data.default_tuned_file``) or
    None; a named file that does not exist is a ReportError."""
    from cursedsim.report.data import ReportError, default_tuned_file
    if tuned is None:
        return None
    if isinstance(tuned, str) and tuned == TUNED_DEFAULT:
        return default_tuned_file(game)
    if not isinstance(tuned, (str, os.PathLike)):
        raise ReportError(f"tuned must be a file path, None or {TUNED_DEFAULT!r}, got {type(tuned).__name__}")
    if not os.path.isfile(tuned):
        raise ReportError(f"tuned parameters {os.fspath(tuned)} not found (a file of `cursedsim tune --out`)")
    return os.fspath(tuned)


def _policy_specs(policies: Any) -> tuple[str, ...]:
    """``policies`` as a tuple of strings (a single string is one policy)."""
    from cursedsim.report.data import ReportError
    if isinstance(policies, str):
        policies = (policies,)
    if not all(isinstance(p, str) for p in policies):
        raise ReportError(f"policies must be names or 'name:param=value' strings, got {policies!r}")
    return tuple(policies)


def _command(game: str, out: str, n_games: int, seed: int, runs_dir: str | None, policies: Sequence[str],
             tuned: Any, tuned_file: str | None, deck: str | None = None, board: str | None = None,
             search_games: int | None = None) -> str:
    """The command line that makes this report again."""
    parts = [f"cursedsim report {game} --out {out} --games {n_games} --seed {seed}"]
    parts += [f"--runs-dir {runs_dir}"] if runs_dir else []
    parts += [f"--deck {deck}"] if deck else []
    parts += [f"--board {board}"] if board else []
    from cursedsim.report.ceiling import DEFAULT_SEARCH_GAMES
    default = min(DEFAULT_SEARCH_GAMES, n_games // 1000)
    parts += [f"--search-games {search_games}"] if search_games not in (None, default) else []
    parts += [f"--policy {p}" for p in policies]
    if tuned is None:
        parts.append("--tuned none")
    elif not (isinstance(tuned, str) and tuned == TUNED_DEFAULT) and tuned_file:
        parts.append(f"--tuned {tuned_file}")
    return " ".join(parts)


__all__ = ["DEFAULT_GAMES", "DEFAULT_JOBS", "DEFAULT_SEED", "TUNED_DEFAULT", "Report", "report"]
