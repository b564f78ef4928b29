"""Where a value sits in a TOML or JSON data file, and the one form of a validation error about it.

tomllib and json give values without positions, so ``Lines`` scans the raw text once and records the
line of every key, array element and table by its path (``("road", 3, "kind")``: the key ``kind`` of the
4th entry of ``road``). Deck, cards and board files name the line of a bad field with it
(``error_text``: ``<file>, line N: <entry> field 'x': <message>``).
"""

from __future__ import annotations

import re

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


__all__ = ["Lines", "Path", "error", "error_text"]
