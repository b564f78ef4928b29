"""Write a report: ``report.md`` (figures as PNG files beside it), a self-contained ``report.html``
(figures as base64 PNG data URIs, CSS inline: one file to mail or open anywhere) and the tables behind
the figures as CSV. Both documents are rendered from the jinja2 templates in ``templates/``. Every file
is written atomically (``cursedsim.files.write_atomic``, re-exported here), so a file that exists is
complete.
"""

from __future__ import annotations

import base64
import os
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import pandas as pd

from cursedsim.files import write_atomic
from cursedsim.report.figures import ReportFigure

MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"
FIGURES_DIR = "figures"
TABLES_DIR = "tables"
TEMPLATES = ("report.md.j2", "report.html.j2", "report.css")


@dataclass
class Written:
    """Paths of a written report."""

    markdown: str
    html: str
    figures: list[str]
    tables: list[str]


def _environment():
    import jinja2
    return jinja2.Environment(
        loader=jinja2.PackageLoader("cursedsim.report", "templates"),
        autoescape=lambda name: bool(name) and name.endswith(".html.j2"),
        trim_blocks=False, lstrip_blocks=False, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


def css() -> str:
    """The report's style sheet (inlined into the HTML)."""
    return resources.files("cursedsim.report").joinpath("templates", "report.css").read_text(encoding="utf-8")


def render_markdown(context: Mapping[str, Any], figures: Sequence[Mapping[str, Any]]) -> str:
    """The Markdown report; each figure mapping needs name, title, about, reading, tables (TextTables
    shown under the reading, may be empty) and file."""
    return _environment().get_template("report.md.j2").render(**context, figures=figures)


def render_html(context: Mapping[str, Any], figures: Sequence[Mapping[str, Any]]) -> str:
    """The self-contained HTML report; each figure mapping needs name, title, about, reading, tables,
    data_uri, width and height."""
    from markupsafe import Markup
    return _environment().get_template("report.html.j2").render(**context, figures=figures, css=Markup(css()))


def data_uri(png: bytes) -> str:
    """A PNG as a ``data:`` URI."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) in pixels of a PNG, from its header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return struct.unpack(">II", png[16:24])


def write_report(out: str | os.PathLike, context: Mapping[str, Any], figures: Sequence[ReportFigure],
                 tables: Mapping[str, pd.DataFrame] | None = None,
                 table_notes: Mapping[str, str] | None = None) -> Written:
    """Write the figures (PNG), the tables (CSV), ``report.md`` and ``report.html`` under ``out``.

    ``context``: the template variables besides the figures (title, intro, settings, method,
    summary (heading, columns, rows, note), options, rules_doc, rules_link, rules_note, command,
    reports_doc, version); see ``content.context``.
    """
    out = os.fspath(out)
    os.makedirs(os.path.join(out, FIGURES_DIR), exist_ok=True)
    figure_paths, md_figures, html_figures = [], [], []
    for figure in figures:
        png = figure.png()
        relative = f"{FIGURES_DIR}/{figure.name}.png"
        path = os.path.join(out, FIGURES_DIR, f"{figure.name}.png")
        write_atomic(path, png)
        figure_paths.append(path)
        common = {"name": figure.name, "title": figure.title, "about": figure.about, "reading": figure.reading,
                  "tables": figure.tables}
        width, height = png_size(png)
        md_figures.append({**common, "file": relative})
        html_figures.append({**common, "data_uri": data_uri(png), "width": width, "height": height})
    table_paths, table_entries = [], []
    if tables:
        os.makedirs(os.path.join(out, TABLES_DIR), exist_ok=True)
        for name, table in tables.items():
            path = os.path.join(out, TABLES_DIR, f"{name}.csv")
            write_atomic(path, table.to_csv(index=False, float_format="%.6g"))
            table_paths.append(path)
            table_entries.append({"file": f"{TABLES_DIR}/{name}.csv", "about": (table_notes or {}).get(name, "")})
    context = {**context, "tables": table_entries}
    markdown_path = os.path.join(out, MARKDOWN_FILE)
    html_path = os.path.join(out, HTML_FILE)
    write_atomic(markdown_path, render_markdown(context, md_figures))
    write_atomic(html_path, render_html(context, html_figures))
    return Written(markdown_path, html_path, figure_paths, table_paths)


__all__ = ["HTML_FILE", "MARKDOWN_FILE", "Written", "css", "data_uri", "render_html", "render_markdown",
           "write_atomic", "write_report"]
