"""The runner's run directories: the identity of a run (``run.json``), the finished chunks checkpointed
as Parquet files (each verified before it is read back, ``rundir.py``), and whether a directory without
``run.json`` holds only a run's own files."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from cursedsim import rundir
from cursedsim.errors import CursedsimError, warn
from cursedsim.games import Game
from cursedsim.resolve import is_int
from cursedsim.runner.collect import _check_chunk

RUN_FILE = "run.json"
FRAME_FILE = "games.parquet"
SUMMARY_FILE = "summary.json"
_CHUNK_RE = re.compile(r"^chunk-(\d+)-(\d+)\.parquet$")
#: Keys of run.json that do not change the games played, so a resume may differ in them.
_FREE_KEYS = ("chunk_size",)


# ---------------------------------------------------------------- checkpoints

def _json_value(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if is_int(value):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    return value if value is None or isinstance(value, str) else str(value)


def _options_dict(game: Game, options: Any, players: int) -> dict[str, Any]:
    if dataclasses.is_dataclass(options):
        return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    return dict(game.option_columns(options, players))



def _adopt_run_dir(directory: str, entries: list[str]) -> bool:
    """Whether a directory without run.json holds only a run's own files (chunk files, games.parquet,
    summary.json), each Parquet file written by cursedsim: its run.json was removed (e.g. after it was
    damaged); the files are verified one by one before any is used."""
    import pyarrow.parquet as pq
    for name in entries:
        if not (_CHUNK_RE.match(name) or name in (FRAME_FILE, SUMMARY_FILE)):
            return False
        if name.endswith(".parquet"):
            try:
                if rundir.META_KEY not in (pq.read_schema(os.path.join(directory, name)).metadata or {}):
                    return False
            except Exception:
                return False
    return True


def _chunk_path(out: str, start: int, stop: int) -> str:
    return os.path.join(out, f"chunk-{start}-{stop}.parquet")


def _chunk_identity(key: str, start: int, stop: int) -> dict[str, Any]:
    return {"run_key": key, "start": start, "stop": stop, "rows": stop - start}


def _verified_chunks(out: str, game: Game, n_games: int, key: str) -> Iterator[tuple[int, int, dict[str, np.ndarray]]]:
    """The chunk files under ``out`` that pass verification and fit this run, as non-overlapping ranges
    (greedy by start), one at a time; files that fail are removed and reported in one line."""
    ranges = []
    for name in os.listdir(out):
        match = _CHUNK_RE.match(name)
        if match:
            start, stop = int(match[1]), int(match[2])
            if 0 <= start < stop <= n_games:
                ranges.append((start, stop))
    failed = []
    position = 0
    for start, stop in sorted(ranges):
        if start < position:
            continue
        path = _chunk_path(out, start, stop)
        try:
            arrays = rundir.read_chunk(path, _chunk_identity(key, start, stop), tuple(game.outcome_columns))
            arrays = _check_chunk(game, start, stop, arrays)
        except (rundir.InvalidFile, CursedsimError) as error:
            failed.append(f"{os.path.basename(path)}: {error}")
            with contextlib.suppress(OSError):
                os.remove(path)
            continue
        position = stop
        yield start, stop, arrays
    if failed:
        more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
        warn(f"{len(failed)} chunk file(s) in {out} failed verification and are played again "
             f"({'; '.join(failed[:3])}{more})")


__all__ = ["FRAME_FILE", "RUN_FILE", "SUMMARY_FILE"]
