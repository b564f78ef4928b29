"""Writing files so that a file that exists is complete: write to a temporary name beside the target,
then move it into place with ``os.replace``; on any error the temporary file is removed and an existing
target is left as it was. Every writer of run chunks, tables, reports and results uses these."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable


def write_via(path: str | os.PathLike, write: Callable[[str], object]) -> None:
    """``write(tmp_path)`` writes the content (e.g. ``frame.to_parquet``); then it is moved to ``path``."""
    path = os.fspath(path)
    directory, name = os.path.split(path)
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_atomic(path: str | os.PathLike, data: bytes | str) -> None:
    """``data`` (text as UTF-8) written to ``path``."""
    payload = data.encode("utf-8") if isinstance(data, str) else data

    def write(tmp: str) -> None:
        with open(tmp, "xb") as f:
            f.write(payload)

    write_via(path, write)


__all__ = ["write_atomic", "write_via"]
