"""Directories a run can trust: one writer at a time, every file verified before it is read, and no
writing into a directory the run does not own.

The lock
    ``cursedsim.lock`` in the directory, held with ``flock`` for as long as the run writes there and
    holding the holder's pid, host and start time (for the message that refuses a second writer). The
    kernel releases an ``flock`` when its process dies, however it dies, so a lock file left by a
    killed run is stale by construction and the next run takes it over. On a filesystem without
    ``flock`` the lock file is created with ``O_EXCL`` instead; it is stale when its holder ran on this
    host and that process is gone (or its pid now belongs to a younger process).

Owned directories
    A run directory holds ``run.json``, a sweep directory ``sweep.json``, and so on: the marker file
    says whose directory it is. A run refuses a non-empty directory without its marker (a foreign
    directory) and a marker describing another run; everything is checked before anything is written,
    and a directory it created for a run that then fails to start is removed again.

Verified files
    Every Parquet file a run writes carries, in its metadata, the run's identity (``run_key``: a digest
    of the configuration, and the game range and row count) and a SHA-256 checksum of its contents.
    A file is only read back when all of it matches; anything else (a flipped byte, a truncated file,
    another range's or another run's file copied in) is recomputed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from cursedsim.errors import CursedsimError, RunError, shorten
from cursedsim.files import write_via

LOCK_FILE = "cursedsim.lock"
#: Temporary names of ``files.write_via``: ``.<name>.<pid>.<8 hex digits>.tmp``.
TEMP_RE = re.compile(r"^\..+\.\d+\.[0-9a-f]{8}\.tmp$")
#: The key of cursedsim's entry in a Parquet file's metadata.
META_KEY = b"cursedsim"
#: Version of that entry's layout.
META_FORMAT = 1


# ---------------------------------------------------------------- paths

def check_out(out: Any, what: str = "out") -> str:
    """``out`` as a path string, or a RunError unless it names a directory path (a non-empty str or
    os.PathLike) that is not an existing file."""
    if isinstance(out, os.PathLike):
        out = os.fspath(out)
    if not isinstance(out, str):
        raise RunError(f"{what} must be a directory path (a str or os.PathLike), got {type(out).__name__} "
                       f"{shorten(out)}")
    if not out.strip():
        raise RunError(f"{what} must name a directory, got an empty path")
    if "\x00" in out:
        raise RunError(f"{what} must be a directory path without NUL characters, got {shorten(out)}")
    if os.path.exists(out) and not os.path.isdir(out):
        raise RunError(f"{what} {out} is a file, not a directory")
    return out


def check_output_file(path: Any, what: str = "out") -> str:
    """``path`` as a string, or a RunError unless a file can be written there: a non-empty path that is
    not a directory, whose folder exists or can be created and is writable (checked with a probe file
    that is removed again; a folder created for the probe is removed too)."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or not path.strip() or "\x00" in path:
        raise RunError(f"{what} must name a file, got {shorten(path)}")
    if os.path.isdir(path):
        raise RunError(f"{what} {path} is a directory; name a file")
    directory = os.path.dirname(os.path.abspath(path))
    with contextlib.ExitStack() as stack:
        try:
            created = stack.enter_context(_created_dirs(directory))
        except RunError as error:
            raise RunError(f"cannot write {what} {path}: {error}") from None
        try:
            probe = os.path.join(directory, f".cursedsim-probe.{os.getpid()}.tmp")
            with open(probe, "wb"):
                pass
            os.remove(probe)
        except OSError as error:
            raise RunError(f"cannot write {what} {path}: {error.strerror or error}") from None
        finally:
            for folder in reversed(created):   # the probe's folders: created again when the file is written
                with contextlib.suppress(OSError):
                    os.rmdir(folder)
    return path


@contextlib.contextmanager
def _created_dirs(path: str) -> Iterator[list[str]]:
    """Create ``path`` (and missing parents); yields the folders created, outermost first. OSError
    becomes a RunError naming the path."""
    missing = []
    head = os.path.abspath(path)
    while not os.path.exists(head):
        missing.append(head)
        parent = os.path.dirname(head)
        if parent == head:
            break
        head = parent
    if os.path.exists(head) and not os.path.isdir(head):
        raise RunError(f"cannot create {path}: {head} is a file")
    missing.reverse()
    created = []
    try:
        for folder in missing:
            try:
                os.mkdir(folder)
            except FileExistsError:   # made by another process meanwhile: not ours
                if not os.path.isdir(folder):
                    raise
                continue
            created.append(folder)
    except OSError as error:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        raise RunError(f"cannot create {path}: {error.strerror or error}") from None
    yield created


# ---------------------------------------------------------------- the lock

def _holder_text() -> bytes:
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time(),
                       "started_text": time.strftime("%Y-%m-%d %H:%M:%S")}).encode()


def _read_holder(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as f:
            holder = json.loads(f.read(4096) or b"null")
        return holder if isinstance(holder, dict) else None
    except (OSError, ValueError):
        return None


def _describe(holder: dict[str, Any] | None) -> str:
    if not holder:
        return "a process that has not yet recorded itself"
    return (f"pid {holder.get('pid')} on host {holder.get('host')}, started {holder.get('started_text', '?')}")


def _process_is_gone(holder: dict[str, Any]) -> bool:
    """Whether the holder of a lock file (on this host) no longer runs: its pid is free, or it now
    belongs to a process younger than the lock."""
    pid = holder.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    try:
        import psutil
        return psutil.Process(pid).create_time() > float(holder.get("started", 0)) + 1.0
    except Exception:   # psutil missing or the process vanished meanwhile
        return False


class DirectoryLock:
    """The exclusive lock of one directory (see the module docstring). ``acquire`` raises a RunError
    naming the holder when another process holds it; ``release`` removes the lock file."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.path = os.path.join(directory, LOCK_FILE)
        self._fd: int | None = None
        self._exclusive = False

    def acquire(self) -> DirectoryLock:
        for _ in range(100):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise RunError(f"{self.directory} is in use by another cursedsim run ({_describe(_read_holder(self.path))}); "
                               f"wait for it to finish or use another directory") from None
            except OSError as error:
                os.close(fd)
                if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    return self._acquire_exclusive()
                raise
            try:   # the file may have been removed (and replaced) by its last holder meanwhile
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.pwrite(fd, _holder_text(), 0)
            self._fd = fd
            return self
        raise RunError(f"could not lock {self.directory}: its lock file keeps changing")

    def _acquire_exclusive(self) -> DirectoryLock:
        """The lock where the filesystem has no flock: O_EXCL, stale when its holder is gone."""
        for _ in range(100):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            except FileExistsError:
                holder = _read_holder(self.path)
                if holder and holder.get("host") == socket.gethostname() and _process_is_gone(holder):
                    stale = f"{self.path}.stale.{os.getpid()}"
                    with contextlib.suppress(FileNotFoundError):
                        os.rename(self.path, stale)
                        if _read_holder(stale) != holder:   # another process broke it first: give it back
                            with contextlib.suppress(OSError):
                                os.link(stale, self.path)
                        os.remove(stale)
                    continue
                raise RunError(f"{self.directory} is in use by another cursedsim run ({_describe(holder)}); "
                               f"wait for it to finish or use another directory (remove {self.path} if that "
                               "process is gone)") from None
            os.write(fd, _holder_text())
            self._fd = fd
            self._exclusive = True
            return self
        raise RunError(f"could not lock {self.directory}: its lock file keeps changing")

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            if os.stat(self.path).st_ino == os.fstat(self._fd).st_ino:
                os.remove(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> DirectoryLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


# ---------------------------------------------------------------- owned directories

def first_difference(old: Any, new: Any, prefix: str = "") -> str | None:
    """``"key is X there but Y now"`` for the first key where two JSON documents differ, else None."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            found = first_difference(old.get(key), new.get(key), f"{prefix}{key}.")
            if found:
                return found
        return None
    if old != new:
        return f"{prefix[:-1]} is {old!r} there but {new!r} now"
    return None


def dump_json(data: Any, path: str) -> None:
    """``data`` as indented JSON in the file ``path``."""
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def remove_temp_files(directory: str) -> list[str]:
    """Remove what a killed write left behind in ``directory`` (``write_via``'s temporary files; call
    with the directory's lock held); returns their names."""
    removed = []
    for name in os.listdir(directory):
        if TEMP_RE.match(name):
            with contextlib.suppress(OSError):
                os.remove(os.path.join(directory, name))
                removed.append(name)
    return removed


def _foreign_entries(directory: str, marker: str, adopt: Callable[[str, list[str]], bool] | None) -> list[str]:
    """The entries of ``directory`` that are not cursedsim's (none when it has its marker)."""
    names = os.listdir(directory)
    if marker in names:
        return []
    foreign = [name for name in names if name != LOCK_FILE and not TEMP_RE.match(name)]
    if foreign and adopt is not None and adopt(directory, foreign):
        return []
    return foreign


@contextlib.contextmanager
def owned_directory(out: Any, *, marker: str, config: Mapping[str, Any], kind: str,
                    same: tuple[str, ...] | None = None, free: tuple[str, ...] = (),
                    adopt: Callable[[str, list[str]], bool] | None = None) -> Iterator[str]:
    """Lock the directory ``out`` for this process and make sure it is this ``kind`` of directory
    (``run``, ``sweep``, ...): its ``marker`` file holds ``config`` (written when new) or a config
    that agrees on the keys ``same`` (None: every key except ``free``). A non-empty directory without
    the marker is refused unless ``adopt(directory, entries)`` says it is one of ours (e.g. made by an
    older version). Leftover temporary files are removed. Yields the path; the lock is released on exit.
    Every refusal is a RunError and leaves the filesystem as it was."""
    path = check_out(out)
    if os.path.isdir(path) and _foreign_entries(path, marker, adopt):
        raise RunError(f"{path} is not empty and holds no {marker}: not a cursedsim {kind} directory")
    for attempt in range(5):
        with _created_dirs(path) as created:
            lock = DirectoryLock(path)
            try:
                lock.acquire()
            except FileNotFoundError:   # the folder went away meanwhile (a refused run removed what it made)
                if attempt < 4:
                    continue
                raise RunError(f"cannot write into {path}: it keeps disappearing") from None
            except OSError as error:
                _undo(created)
                raise RunError(f"cannot write into {path}: {error.strerror or error}") from None
            # held by another run (a RunError): the folder is that run's now, whoever created it
            break
    try:
        try:
            _check_marker(path, marker, dict(config), kind, same, free, adopt)
        except BaseException:
            lock.release()
            _undo(created)
            raise
        yield path
    finally:
        lock.release()


def _undo(created: list[str]) -> None:
    """Remove the folders a refused run created, where they are still empty (another run may have
    started to use them: then they stay)."""
    for folder in reversed(created):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _check_marker(path: str, marker: str, config: dict[str, Any], kind: str, same: tuple[str, ...] | None,
                  free: tuple[str, ...], adopt: Callable[[str, list[str]], bool] | None) -> None:
    marker_path = os.path.join(path, marker)
    remove_temp_files(path)
    if os.path.isfile(marker_path):
        try:
            with open(marker_path) as f:
                old = json.load(f)
            if not isinstance(old, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as error:
            raise RunError(f"{marker_path} is damaged ({error}); remove it (verified files there are reused) "
                           "or use another directory") from None
        keys = list(same) if same is not None else [k for k in {**old, **config} if k not in free]
        diff = first_difference({k: old.get(k) for k in keys}, {k: config.get(k) for k in keys})
        if diff:
            raise RunError(f"{path} holds a different {kind} ({diff}); use another output directory")
        return
    if _foreign_entries(path, marker, adopt):   # checked again under the lock
        raise RunError(f"{path} is not empty and holds no {marker}: not a cursedsim {kind} directory")
    try:
        write_via(marker_path, lambda tmp: dump_json(config, tmp))
    except OSError as error:
        raise RunError(f"cannot write into {path}: {error.strerror or error}") from None


# ---------------------------------------------------------------- identity and checksums

def run_key(config: Mapping[str, Any], free: tuple[str, ...] = ()) -> str:
    """A digest of a run's configuration (without the keys ``free``): the identity every file of the
    run carries."""
    identity = {k: v for k, v in config.items() if k not in free}
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]


def _update(digest: Any, name: str, values: np.ndarray) -> None:
    values = np.ascontiguousarray(values)
    digest.update(f"{name}\0{values.dtype.str}\0{values.shape[0]}\0".encode())
    digest.update(memoryview(values).cast("B") if values.size else b"")


def arrays_checksum(arrays: Mapping[str, np.ndarray]) -> str:
    """SHA-256 of outcome arrays: names, dtypes, lengths and bytes, in order."""
    digest = hashlib.sha256()
    for name, values in arrays.items():
        _update(digest, name, np.asarray(values))
    return digest.hexdigest()


def frame_checksum(frame: Any) -> str:
    """SHA-256 of a frame: every column's name, dtype and values (categoricals as categories and codes)."""
    import pandas as pd
    digest = hashlib.sha256()
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            digest.update(json.dumps([str(c) for c in column.cat.categories]).encode())
            _update(digest, str(name), column.cat.codes.to_numpy())
        elif column.dtype == object:
            digest.update(json.dumps([str(v) for v in column], ensure_ascii=False).encode())
        else:
            _update(digest, str(name), column.to_numpy())
    return digest.hexdigest()


class InvalidFile(Exception):
    """A file that failed verification; the message says why."""


def _metadata(identity: Mapping[str, Any], checksum: str) -> bytes:
    return json.dumps({"format": META_FORMAT, **identity, "checksum": checksum}).encode()


def _check_metadata(table: Any, identity: Mapping[str, Any]) -> dict[str, Any]:
    raw = (table.schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise InvalidFile("no checksum (written by another program or an older cursedsim)")
    try:
        meta = json.loads(raw)
    except ValueError:
        raise InvalidFile("damaged metadata") from None
    if not isinstance(meta, dict) or meta.get("format") != META_FORMAT:
        raise InvalidFile("unknown metadata format")
    for key, value in identity.items():
        if meta.get(key) != value:
            what = "another run's file" if key == "run_key" else f"{key} is {meta.get(key)!r}, not {value!r}"
            raise InvalidFile(what)
    if table.num_rows != identity.get("rows", table.num_rows):
        raise InvalidFile(f"{table.num_rows} rows, not {identity['rows']}")
    return meta


def write_chunk(path: str, arrays: Mapping[str, np.ndarray], identity: Mapping[str, Any]) -> None:
    """Outcome arrays as a Parquet file whose metadata holds ``identity`` and their checksum."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pa.table({name: np.ascontiguousarray(values) for name, values in arrays.items()})
    table = table.replace_schema_metadata({META_KEY: _metadata(identity, arrays_checksum(arrays))})
    write_via(path, lambda tmp: pq.write_table(table, tmp))


def read_chunk(path: str, identity: Mapping[str, Any], columns: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The outcome arrays of a chunk file, or InvalidFile unless its identity, columns and checksum all
    match."""
    import pyarrow.parquet as pq
    try:
        table = pq.read_table(path)
    except Exception as error:   # ArrowInvalid, OSError, ...: unreadable
        raise InvalidFile(f"unreadable ({type(error).__name__})") from None
    meta = _check_metadata(table, identity)
    if tuple(table.column_names) != tuple(columns):
        raise InvalidFile("other columns")
    try:
        arrays = {name: table.column(name).to_numpy() for name in columns}
    except Exception as error:
        raise InvalidFile(f"unreadable ({type(error).__name__})") from None
    if arrays_checksum(arrays) != meta.get("checksum"):
        raise InvalidFile("checksum mismatch")
    return arrays


def write_frame(path: str, frame: Any, identity: Mapping[str, Any]) -> None:
    """A frame as Parquet, with ``identity`` and its checksum in the metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = {**(table.schema.metadata or {}), META_KEY: _metadata(identity, frame_checksum(frame))}
    table = table.replace_schema_metadata(metadata)
    write_via(path, lambda tmp: pq.write_table(table, tmp))


def read_frame(path: str, identity: Mapping[str, Any]) -> Any:
    """The frame in ``path``, or InvalidFile unless its identity, row count and checksum match."""
    import pyarrow.parquet as pq
    try:
        table = pq.read_table(path)
    except Exception as error:
        raise InvalidFile(f"unreadable ({type(error).__name__})") from None
    meta = _check_metadata(table, identity)
    try:
        frame = table.to_pandas()
    except Exception as error:
        raise InvalidFile(f"unreadable ({type(error).__name__})") from None
    del table
    if frame_checksum(frame) != meta.get("checksum"):
        raise InvalidFile("checksum mismatch")
    return frame


def write_json_verified(path: str, data: Mapping[str, Any], identity: Mapping[str, Any]) -> None:
    """``data`` as JSON with ``identity`` and a checksum of the content."""
    body = json.dumps(dict(data), sort_keys=True)
    document = {"format": META_FORMAT, **identity, "checksum": hashlib.sha256(body.encode()).hexdigest(),
                "data": dict(data)}
    write_via(path, lambda tmp: dump_json(document, tmp))


def read_json_verified(path: str, identity: Mapping[str, Any]) -> dict[str, Any]:
    """The data of a ``write_json_verified`` file, or InvalidFile."""
    try:
        with open(path) as f:
            document = json.load(f)
    except (OSError, ValueError) as error:
        raise InvalidFile(f"unreadable ({type(error).__name__})") from None
    if not isinstance(document, dict) or document.get("format") != META_FORMAT:
        raise InvalidFile("unknown format")
    for key, value in identity.items():
        if document.get(key) != value:
            raise InvalidFile("another run's file" if key == "run_key" else f"{key} differs")
    data = document.get("data")
    if not isinstance(data, dict) or \
            hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest() != document.get("checksum"):
        raise InvalidFile("checksum mismatch")
    return data


__all__ = ["DirectoryLock", "InvalidFile", "LOCK_FILE", "arrays_checksum", "check_out", "check_output_file",
           "first_difference", "frame_checksum", "owned_directory", "read_chunk", "read_frame",
           "read_json_verified", "remove_temp_files", "run_key", "write_chunk", "write_frame",
           "write_json_verified"]
