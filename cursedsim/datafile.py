"""The data files of the games (a deck, a cards file, a board), read by one pipeline:
load -> validate -> compile -> digest.

- **load**: ``DataFormat.load`` reads a TOML (or JSON, by the ``.json`` suffix) file, ``parse`` its text,
  ``of`` an option value ("default" or a path) cached per file version (path, modification time, size);
- **validate**: ``DataFormat.validate`` checks what every data file has (a table of keys, known and required
  top-level fields, ``schema``, ``name``, ``reconstructed``, ``description``, non-empty arrays of entries),
  then hands the data to the format's ``build``, which checks each table of keys with ``Fields`` and returns
  the record;
- **compile**: the record's ``arrays()`` give the engines flat int64 arrays (``int64_arrays``);
- **digest**: a record is ``Digested``: 12 hex of the sha256 of its canonical JSON, ``label`` ``name@digest``
  (the frames' ``deck`` / ``cards`` / ``board`` column).

A new data file type is a ``DataFormat`` (its error type, default file, schema, top-level keys and arrays,
and ``build``), not a copy of a loader.

tomllib and json give values without positions, so ``Lines`` scans the raw text once and records the
line of every key, array element and table by its path (``("road", 3, "kind")``: the key ``kind`` of the
4th entry of ``road``). Every validation error names the line of the bad field
(``error_text``: ``<file>, line N: <entry> field 'x': <message>``).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from functools import cached_property, lru_cache
from pathlib import Path as FilePath
from typing import Any, Callable, Generic, TypeVar

import numpy as np

#: A path into the data: keys (str) and array indices (int), outermost first.
Path = tuple[str | int, ...]

_TOML_TOKEN = re.compile(r'''
    (?P<newline>\n)
  | (?P<space>[ \t\r]+)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')
  | (?P<punct>[\[\]{},=.])
  | (?P<bare>[^\s\[\]{},=.\#"']+)
''', re.VERBOSE | re.DOTALL)
_JSON_TOKEN = re.compile(r'''
    (?P<newline>\n)
  | (?P<space>[ \t\r]+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<punct>[\[\]{},:])
  | (?P<bare>[^\s\[\]{},:"]+)
''', re.VERBOSE | re.DOTALL)


def error_text(source: str, line: int, where: str, message: str) -> str:
    """The message of a validation error: ``<source>, line <line>: <where>: <message>``."""
    return f"{source}, line {line}: {where}: {message}"


def error(kind: type[Exception], source: str, line: int, where: str, message: str) -> Exception:
    """An exception of type ``kind`` carrying ``error_text`` (the caller raises it)."""
    return kind(error_text(source, line, where, message))


class Lines:
    """The lines (1-based) of the keys, array entries and tables of a data file's text, by path.

    ``line(*path)`` gives the line of the deepest part of ``path`` the text shows: a missing key falls back
    to its entry or table, a missing entry to its array, and nothing at all to line 1 (a generated file has
    no text). ``top``, ``entry`` and ``side`` name the usual paths.
    """

    def __init__(self, text: str, is_json: bool):
        self.lines = text.splitlines()
        self.is_json = is_json
        self.at: dict[Path, int] = {}
        try:
            (_JsonScan if is_json else _TomlScan)(text, self.at).run()
        except _Stop:
            pass   # text the parsers accepted always scans; anything else keeps what was found

    def line(self, *path: str | int | None) -> int:
        """The line of ``path`` (None parts are dropped), else of its longest prefix found, else 1."""
        parts = tuple(p for p in path if p is not None)
        for end in range(len(parts), 0, -1):
            if parts[:end] in self.at:
                return self.at[parts[:end]]
        return 1

    def top(self, key: str) -> int:
        """The line of a top-level key (or table)."""
        return self.line(key)

    def entry(self, array: str, index: int, key: str | None = None) -> int:
        """The line of ``key`` in the ``index``-th (0-based) entry of the top-level array ``array``, or of
        the entry's start when ``key`` is None or not in it."""
        return self.line(array, index, key)

    def side(self, table: str, side: str, key: str | None = None) -> int:
        """The line of ``key`` in the sub-table ``side`` of the top-level table ``table``."""
        return self.line(table, side, key)


class _Stop(Exception):
    """The end of the tokens, or text the scanner does not follow."""


class _Scan:
    """Shared token walking: ``tokens`` of (kind, text, line), newlines and comments kept for TOML."""

    PATTERN: re.Pattern[str]
    SKIP: tuple[str, ...]

    def __init__(self, text: str, at: dict[Path, int]):
        self.at = at
        self.tokens: list[tuple[str, str, int]] = []
        line, pos = 1, 0
        while pos < len(text):
            m = self.PATTERN.match(text, pos)
            if m is None:
                break
            kind = m.lastgroup or ""
            if kind not in self.SKIP:
                self.tokens.append((kind, m.group(), line))
            line += m.group().count("\n")
            pos = m.end()
        self.pos = 0

    def peek(self) -> tuple[str, str, int]:
        if self.pos >= len(self.tokens):
            raise _Stop
        return self.tokens[self.pos]

    def take(self) -> tuple[str, str, int]:
        token = self.peek()
        self.pos += 1
        return token

    def mark(self, path: Path, line: int) -> None:
        """Record ``path`` at ``line`` unless an earlier line holds it already."""
        self.at.setdefault(path, line)

    @staticmethod
    def key_text(kind: str, text: str) -> str:
        """A key as written: quotes and simple escapes removed."""
        if kind != "string":
            return text
        quote = 3 if text[:3] in ('"""', "'''") else 1
        inner = text[quote:-quote]
        return inner.replace('\\"', '"').replace("\\\\", "\\") if text[0] == '"' else inner


class _JsonScan(_Scan):
    PATTERN = _JSON_TOKEN
    SKIP = ("space", "newline")

    def run(self) -> None:
        self.value(())

    def value(self, path: Path) -> None:
        kind, text, line = self.take()
        if text == "{":
            while True:
                kind, text, line = self.take()
                if text == "}":
                    return
                if text == ",":
                    continue
                key = (*path, self.key_text(kind, text))
                self.mark(key, line)
                if self.take()[1] != ":":
                    raise _Stop
                self.value(key)
        elif text == "[":
            index = 0
            while True:
                kind, text, line = self.peek()
                if text == "]":
                    self.take()
                    return
                if text == ",":
                    self.take()
                    continue
                self.mark((*path, index), line)
                self.value((*path, index))
                index += 1


class _TomlScan(_Scan):
    PATTERN = _TOML_TOKEN
    SKIP = ("space", "comment")

    def run(self) -> None:
        table: Path = ()
        arrays: dict[Path, int] = {}     # array-of-tables path -> index of its last [[entry]]
        while self.pos < len(self.tokens):
            kind, text, line = self.peek()
            if kind == "newline":
                self.take()
            elif text == "[":
                self.take()
                double = self.peek()[1] == "["
                if double:
                    self.take()
                parts, _ = self.dotted_key()
                table = ()
                for k, part in enumerate(parts):
                    table = (*table, part)
                    last = k == len(parts) - 1
                    if last and double:
                        arrays[table] = arrays.get(table, -1) + 1
                        self.mark(table, line)
                        table = (*table, arrays[table])
                    elif table in arrays and not last:
                        self.mark(table, line)
                        table = (*table, arrays[table])
                    self.mark(table, line)
                self.skip_line()
            else:
                self.key_value(table)

    def dotted_key(self) -> tuple[list[str], int]:
        """The parts of a (dotted) key and the line of its first part; stops before ``=`` or ``]``."""
        parts, first = [], 0
        while True:
            kind, text, line = self.take()
            if kind not in ("bare", "string"):
                raise _Stop
            parts.append(self.key_text(kind, text))
            first = first or line
            if self.peek()[1] != ".":
                return parts, first
            self.take()

    def key_value(self, table: Path) -> Path:
        parts, line = self.dotted_key()
        path = table
        for part in parts:
            path = (*path, part)
            self.mark(path, line)
        if self.take()[1] != "=":
            raise _Stop
        self.value(path)
        return path

    def value(self, path: Path) -> None:
        while self.peek()[0] == "newline":
            self.take()
        kind, text, line = self.take()
        if text == "{":
            while True:
                kind, text, line = self.peek()
                if text == "}":
                    self.take()
                    return
                if text == "," or kind == "newline":
                    self.take()
                    continue
                self.key_value(path)
        elif text == "[":
            index = 0
            while True:
                kind, text, line = self.peek()
                if text == "]":
                    self.take()
                    return
                if text == "," or kind == "newline":
                    self.take()
                    continue
                self.mark((*path, index), line)
                self.value((*path, index))
                index += 1
        else:   # a scalar: one token, or a few (1.5, dates with a space); up to the next separator
            while self.pos < len(self.tokens) and self.peek()[0] != "newline" and self.peek()[1] not in ",]}":
                self.take()

    def skip_line(self) -> None:
        while self.pos < len(self.tokens) and self.take()[0] != "newline":
            pass




# ---------------------------------------------------------------- the pipeline

R = TypeVar("R")


def canonical_json(content: dict) -> str:
    """``content`` as canonical JSON (sorted keys, no spaces): what a digest covers."""
    return json.dumps(content, sort_keys=True, separators=(",", ":"))


class Digested:
    """A validated data file (a frozen dataclass with ``name``, ``reconstructed`` and ``SCHEMA``) whose
    ``canonical()`` is ``canonical_json`` of the schema, name, reconstructed flag and its ``content()``:
    ``digest`` (12 hex of its sha256) and ``label`` (``name@digest``)."""

    SCHEMA: int

    def content(self) -> dict:
        """The format's own content the digest covers (source path, descriptions and comments excluded)."""
        raise NotImplementedError

    def canonical(self) -> str:
        """The content the digest covers, as canonical JSON."""
        return canonical_json({"schema": self.SCHEMA, "name": self.name, "reconstructed": self.reconstructed,
                               **self.content()})

    @cached_property
    def digest(self) -> str:
        return hashlib.sha256(self.canonical().encode()).hexdigest()[:12]

    @property
    def label(self) -> str:
        """``name@digest``: the frames' column of this data file."""
        return f"{self.name}@{self.digest}"


def int64_arrays(columns: dict[str, Any], *, read_only: bool = True) -> dict[str, np.ndarray]:
    """Each column as an int64 array (read-only unless told): a record's ``arrays()`` for the engines."""
    out = {}
    for key, value in columns.items():
        arr = np.array(value, np.int64)
        if read_only:
            arr.setflags(write=False)
        out[key] = arr
    return out


def is_int(value: object) -> bool:
    """An integer and not a bool (TOML and JSON booleans are Python ints)."""
    return isinstance(value, int) and not isinstance(value, bool)


class Fields:
    """One table of keys of a data file under validation, at ``path``, named ``label`` in messages.

    Checks it is a table (else ``<label>: must be a table of keys`` at its line), that its keys are in
    ``keys`` (``<label> field 'k': unknown field; valid fields: ...`` at the key's line) and that those of
    ``required`` are there (``<label> field 'k': missing`` at its line). ``bad(key, message)`` is the
    error about a key at the key's line; ``missing(key, message)`` one at the table's line.
    """

    def __init__(self, fmt: DataFormat, lines: Lines, source: str, path: Path, label: str, raw: object,
                 keys: tuple[str, ...], required: tuple[str, ...] = (), *, table_label: str | None = None):
        self.fmt, self.lines, self.source, self.path, self.label, self.raw = fmt, lines, source, path, label, raw
        if not isinstance(raw, dict):
            raise self.at((), table_label or label, "must be a table of keys")
        for key in raw:
            if key not in keys:
                raise self.bad(key, f"unknown field; valid fields: {', '.join(keys)}")
        for key in required:
            if key not in raw:
                raise self.missing(key)

    def where(self, key: str) -> str:
        return f"{self.label} field {key!r}" if self.label else f"field {key!r}"

    def at(self, sub: Path, where: str, message: str) -> Exception:
        """The error ``where: message`` at the line of ``path + sub``."""
        return self.fmt.fail(self.source, self.lines.line(*self.path, *sub), where, message)

    def bad(self, key: str, message: str) -> Exception:
        return self.at((key,), self.where(key), message)

    def missing(self, key: str, message: str = "missing") -> Exception:
        return self.at((), self.where(key), message)


class DataFormat(Generic[R]):
    """One kind of data file and the pipeline that reads it (see the module docstring).

    ``noun`` names the file in "cannot read <noun> file" and the top level in its errors (``top_label``
    when that differs); ``arrays`` maps each top-level array of entries to what its entries are
    ("cards": "field 'card': must be a non-empty list of cards"); ``build(data, lines, source, name,
    reconstructed)`` validates the rest and returns the record; ``derive(record, *args)`` gives what
    ``of(option, *args)`` returns for extra arguments (a deck without a card kind).
    """

    def __init__(self, *, noun: str, error: type[Exception], default: FilePath, schema: int,
                 top_keys: tuple[str, ...], required_top: tuple[str, ...], arrays: dict[str, str],
                 build: Callable[..., R], top_label: str | None = None,
                 derive: Callable[..., R] | None = None, cache_size: int = 16):
        self.noun, self.error, self.default, self.schema = noun, error, default, schema
        self.top_keys, self.required_top, self.arrays = top_keys, required_top, arrays
        self.build, self.top_label, self.derive = build, top_label or noun, derive
        self._version = lru_cache(maxsize=cache_size)(self._load_version)

    def fail(self, source: str, line: int, where: str, message: str) -> Exception:
        """The format's error carrying ``error_text`` (the caller raises it)."""
        return error(self.error, source, line, where, message)

    # ------------------------------------------------------------ load

    def load(self, path: str | FilePath | None = None) -> R:
        """The record of the file ``path`` (``.toml`` or ``.json``), validated; the default file when None."""
        path = FilePath(self.default if path is None else path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise self.error(f"cannot read {self.noun} file {str(path)!r}: {exc.strerror or exc}") from None
        return self.parse(text, json_format=path.suffix.lower() == ".json", source=str(path))

    def parse(self, text: str, *, json_format: bool = False, source: str = "") -> R:
        """The record of the text of a TOML (or JSON) file; the format's error names field and line."""
        source = source or f"<{self.noun}>"
        try:
            data = json.loads(text) if json_format else tomllib.loads(text)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            raise self.error(f"{source}: not valid {'JSON' if json_format else 'TOML'}: {exc}") from None
        return self.validate(data, Lines(text, json_format), source)

    def of(self, option: str = "default", *args: Any) -> R:
        """The record of an option value ("default" or a path), ``derive``d with ``args`` when given. Loaded
        once per process and file version: the cache is keyed by the file's path, modification time and
        size, so a file rewritten since is read again (in workers too)."""
        path = FilePath(self.default if option == "default" else option)
        try:
            stat = path.stat()
            version = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            version = None   # load names the unreadable file
        return self._version(str(path), version, args)

    def _load_version(self, path: str, version: tuple[int, int] | None, args: tuple) -> R:
        record = self.load(path)
        return self.derive(record, *args) if self.derive is not None and args else record

    def cache_clear(self) -> None:
        """Forget every file ``of`` loaded."""
        self._version.cache_clear()

    # ------------------------------------------------------------ validate

    def validate(self, data: object, lines: Lines, source: str) -> R:
        """The record ``data`` describes, or the format's error on its first fault: the top level first
        (fields, schema, name, reconstructed, description, the arrays of entries), then ``build``."""
        if not isinstance(data, dict):
            raise self.fail(source, 1, self.top_label, "must be a table of keys")
        Fields(self, lines, source, (), "", data, self.top_keys, self.required_top)
        if data["schema"] != self.schema or not is_int(data["schema"]):
            raise self.fail(source, lines.top("schema"), "field 'schema'",
                            f"must be {self.schema}, got {data['schema']!r}")
        name = data["name"]
        if not isinstance(name, str) or not name.strip():
            raise self.fail(source, lines.top("name"), "field 'name'", f"must be a non-empty string, got {name!r}")
        reconstructed = data.get("reconstructed", False)
        if not isinstance(reconstructed, bool):
            raise self.fail(source, lines.top("reconstructed"), "field 'reconstructed'",
                            f"must be true or false, got {reconstructed!r}")
        if not isinstance(data.get("description", ""), str):
            raise self.fail(source, lines.top("description"), "field 'description'",
                            f"must be a string, got {data['description']!r}")
        for key, entries in self.arrays.items():
            if not isinstance(data[key], list) or not data[key]:
                raise self.fail(source, lines.top(key), f"field {key!r}", f"must be a non-empty list of {entries}")
        return self.build(data, lines, source, name.strip(), reconstructed)

    def entry(self, lines: Lines, source: str, array: str, index: int, raw: object, keys: tuple[str, ...],
              required: tuple[str, ...] = (), id_key: str = "id") -> Fields:
        """The ``index``-th (0-based) entry of the top-level ``array`` as ``Fields`` labelled
        ``<array> <index + 1>`` and, when its ``id_key`` is a string, `` (<id>)``."""
        label = f"{array} {index + 1}"
        named = f"{label} ({raw[id_key]!r})" if isinstance(raw, dict) and isinstance(raw.get(id_key), str) else label
        return Fields(self, lines, source, (array, index), named, raw, keys, required, table_label=label)


__all__ = ["DataFormat", "Digested", "Fields", "Lines", "Path", "canonical_json", "error", "error_text",
           "int64_arrays", "is_int"]
