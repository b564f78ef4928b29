"""What every report's figures share: :class:`ReportFigure` (the matplotlib figure, drawn on the Agg
canvas without pyplot, its title, how to read it and a one-line plain-language reading computed from
the numbers it shows, plus any small tables shown under it) and the drawing and number-formatting
helpers. Each game's figures are in its report package (``report/<game>/figures.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

PANEL_HEIGHT = 3.3
DPI = 100


@dataclass
class TextTable:
    """A small table shown in the document under a figure's reading: ``title``, ``columns``, ``rows``
    (cells as text) and a ``note``. The first column is a label, the others numbers."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""


@dataclass
class ReportFigure:
    """A figure of a report: ``name`` (file stem), ``title``, ``about`` (how to read it), the
    matplotlib ``figure``, its one-line ``reading`` and ``tables`` shown under it (optional)."""

    name: str
    title: str
    about: str
    figure: Figure
    reading: str
    tables: list[TextTable] = field(default_factory=list)

    def png(self) -> bytes:
        """The figure as PNG bytes."""
        import io
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=DPI)
        return buffer.getvalue()


#: A figure function: the report's data in, a ReportFigure out.
FigureMaker = Callable[[object], ReportFigure]


def make_figures(data, which: Sequence[FigureMaker]) -> list[ReportFigure]:
    """The figures ``which`` of ``data``, in order."""
    return [make(data) for make in which]


def new_figure(width: float, height: float = PANEL_HEIGHT) -> Figure:
    """An empty figure on the Agg canvas, constrained layout."""
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def panels(figure: Figure, count: int, sharey: bool = True):
    """``count`` axes side by side, with a light grid."""
    axes = figure.subplots(1, count, sharey=sharey, squeeze=False)[0]
    for ax in axes:
        ax.grid(alpha=0.3)
    return axes


def color(colors: dict[str, str], name: str, index: int = 0) -> str:
    """``name``'s colour in ``colors``, else the matplotlib cycle colour ``index + 3``."""
    return colors.get(name, f"C{index + 3}")


def pct(value: float) -> str:
    """A share as a percentage with one decimal: ``0.1234`` -> ``12.3%``."""
    return f"{100 * value:.1f}%"


def points(value: float, sign: bool = True) -> str:
    """A difference of shares in percentage points, one decimal, signed (or its size)."""
    text = f"{100 * value:+.1f}" if sign else f"{100 * abs(value):.1f}"
    return text.replace("-0.0", "0.0").replace("+0.0", "0.0")


def error_bars(center, low, high) -> np.ndarray:
    """Error bar lengths (below, above) of intervals around ``center``, never negative (rounding)."""
    center, low, high = (np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in (center, low, high))
    return np.clip(np.vstack([center - low, high - center]), 0, None)


def join_words(parts) -> str:
    """``a, b and c`` (``none`` for no parts)."""
    parts = list(parts)
    if not parts:
        return "none"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``values`` counted ``weights`` times each."""
    order = np.argsort(values)
    values, weights = np.asarray(values)[order], np.asarray(weights, dtype=np.float64)[order]
    if weights.sum() == 0:
        return float("nan")
    cumulative = np.cumsum(weights) / weights.sum()
    return float(values[np.searchsorted(cumulative, q)])


def option_label(name: str, value) -> str:
    """``name = value`` (booleans in lower case)."""
    return f"{name} = {str(value).lower()}"


__all__ = ["DPI", "FigureMaker", "PANEL_HEIGHT", "ReportFigure", "TextTable", "color", "make_figures",
           "error_bars", "join_words", "new_figure", "option_label", "panels", "pct", "points", "weighted_quantile"]
