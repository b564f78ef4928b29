"""What every experiment script shares: where results go and how they are written (atomically: a
temporary file beside the target, then ``os.replace``, so a file in results/ is always complete)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd

from cursedsim.files import write_atomic

ROOT = Path(__file__).resolve().parents[1]


def results_dir(game: str) -> Path:
    """``results/<game>/``, created when missing."""
    path = ROOT / "results" / game
    path.mkdir(parents=True, exist_ok=True)
    return path


def pairs_with_intervals(comparison) -> pd.DataFrame:
    """``compare``'s pair rows with each side's Wilson 95% interval joined in (``ci_low_a``,
    ``ci_high_a``, ``ci_low_b``, ``ci_high_b``)."""
    rates = comparison.policies.set_index("policy")
    pairs = comparison.pairs.copy()
    for side in ("a", "b"):
        pairs[f"ci_low_{side}"] = pairs[side].map(rates["ci_low"])
        pairs[f"ci_high_{side}"] = pairs[side].map(rates["ci_high"])
    return pairs


def write_csv(table: pd.DataFrame, path: Path) -> Path:
    """``table`` as CSV (6 significant digits)."""
    write_atomic(path, table.to_csv(index=False, float_format="%.6g"))
    return path


def write_json(document: Any, path: Path) -> Path:
    write_atomic(path, json.dumps(document, indent=2) + "\n")
    return path


def write_figure(figure, path: Path, dpi: int = 110) -> Path:
    """A matplotlib figure as PNG."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    write_atomic(path, buffer.getvalue())
    return path


def shown(*paths: Path) -> str:
    """The paths relative to the repository root, for the closing line of a script."""
    return ", ".join(str(Path(p).relative_to(ROOT)) for p in paths)
