"""The words every report shares: number formats, the provenance rows of the settings table, the
method paragraph, the rule options table, the link to the rules document, and the template context
they go into (:func:`context`). Each game's report adds its own summary, settings and intro
(``report/<game>/content.py``); the writer's templates turn the context into Markdown and HTML.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from cursedsim.report.data import ReportData

#: Where the documentation lives, relative to the repository root.
REPORTS_DOC = "docs/reports.md"
REPO_ROOT = Path(__file__).resolve().parents[2]


def percent_ci(rate: float, low: float, high: float, digits: int = 2) -> str:
    """``12.34 [12.00, 12.68]``: a share and its interval in percent."""
    return f"{100 * rate:.{digits}f} [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def points_ci(diff: float, low: float, high: float, digits: int = 2) -> str:
    """``+1.23 [+1.00, +1.46]``: a difference of shares and its interval in percentage points."""
    return f"{100 * diff:+.{digits}f} [{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]"


def value_text(value: Any) -> str:
    """An option value as the CLI takes it (booleans in lower case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")


def figures_phrase(data: ReportData, own: int) -> str:
    """``"six figures"``: a report's ``own`` figures and, when it was played, the skill-ceiling figure."""
    count = own + ("skill_ceiling" in data.tables)
    return f"{NUMBER_WORDS[count] if count < len(NUMBER_WORDS) else count} figures"


def provenance(data: ReportData, game: str) -> list[tuple[str, str]]:
    """The first rows of the settings table: game, version and sources, seed, games per cell, runs."""
    return [
        ("game", f"{data.title} ({game})"),
        ("cursedsim", f"version {data.version}, sources {data.code}"),
        ("seed", f"{data.seed} (game i of every run starts from the same deal)"),
        ("games per cell", f"{data.n_games:,}"),
        ("runs and games", f"{data.runs} runs, {data.games_played:,} games"),
    ]


def method_text(data: ReportData) -> str:
    """How the runs were played: one seed, common random numbers, resumable runs."""
    return (f"Every run plays games 0 to {data.n_games - 1:,} with seed {data.seed}; game i draws its cards "
            "from a random stream keyed by (seed, i), so game i of every run starts from the same deal. "
            "Policies and rule options are therefore compared game by game (common random numbers), which "
            "makes their differences more precise than independent samples of the same size. The "
            "per-game results are kept as Parquet files under runs/ (not committed), so an interrupted "
            "report resumes where it stopped.")


def option_rows(data: ReportData, tested: Mapping[str, str], ambiguous: Collection[str] = (),
                defaults: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """The rule options table: per option its default (``value_text``, or ``defaults[name]``), what the
    report tested (``tested[name]``, else "-") and its documentation; the ``ambiguous`` ones are
    marked as readings of an ambiguous rule."""
    rows = []
    for name, doc in data.option_docs.items():
        default = (defaults or {}).get(name, value_text(data.option_defaults.get(name)))
        note = " One reading of an ambiguous rule." if name in ambiguous else ""
        rows.append({"name": name, "default": default, "tested": tested.get(name, "-"),
                     "doc": " ".join(doc.replace("``", "").split()) + note})
    return rows


def rules_link(rules_doc: str, out: str) -> str | None:
    """The rules document as a path relative to the report folder (None if it is not there)."""
    path = REPO_ROOT / rules_doc if rules_doc else None
    if path is None or not path.is_file():
        return None
    return Path(os.path.relpath(path, os.path.abspath(out))).as_posix()


def context(data: ReportData, *, out: str, command: str, intro: str, settings: Sequence[tuple[str, str]],
            summary: Mapping[str, Any], options: Sequence[Mapping[str, str]], rules_doc: str,
            rules_note: str, headline: bool = True) -> dict[str, Any]:
    """The template variables of a report (everything but the figures): ``summary`` is a game's
    ``summary_text`` (heading, columns, rows, note); ``rules_note`` ends the sentence on ambiguous
    rules ("the last figure measures how much each of them matters"). ``headline``: end the intro with
    the skill ceiling's strongest play (``ceiling.headline``) when the report played one (a game whose
    intro says it in its own words passes False)."""
    if headline and "skill_ceiling" in data.tables:
        from cursedsim.report.ceiling import headline as strong_play
        intro += strong_play(data.tables["skill_ceiling"])
    return {
        "title": f"{data.title} balance report", "intro": intro, "settings": list(settings),
        "method": method_text(data), "summary": summary, "options": list(options), "rules_doc": rules_doc,
        "rules_link": rules_link(rules_doc, out), "rules_note": rules_note, "command": command,
        "reports_doc": REPORTS_DOC, "version": data.version,
    }


__all__ = ["REPORTS_DOC", "context", "method_text", "option_rows", "percent_ci", "points_ci", "provenance",
           "rules_link", "value_text"]
