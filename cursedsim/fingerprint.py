"""Golden fingerprints: one SHA-256 over every outcome column of a seeded run, so that a change meant to
keep behaviour (a faster kernel, a new cache key) can be checked game by game against committed digests.

The digest covers the frame's columns that are not the run's identity or configuration (``game``,
``seed``, ``game_index``, ``players``, the policy and parameter columns, the option columns): the game's
``outcome_columns`` and any other metric column it adds. Each column contributes its name, its dtype
and its bytes (a categorical: its codes and its categories), in sorted name order, so the digest
changes with any outcome, dtype or column, and with nothing else. tests/golden/ holds the presets and
their expected digests (docs/architecture.md, "fingerprint").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from cursedsim.errors import CursedsimError
from cursedsim.games import Game, get_game

#: Bumped when what the digest covers or how it encodes a column changes (every digest then moves).
FINGERPRINT_VERSION = 1
#: Frame columns that say what was run, not what happened (besides the option columns and those
#: starting with ``policy_`` or ``param_``).
IDENTITY_COLUMNS = ("game", "seed", "game_index", "players", "policy")


def outcome_column_names(game: Game, frame: pd.DataFrame, option_columns: Mapping[str, Any]) -> list[str]:
    """The frame's columns a fingerprint covers, sorted: the game's ``outcome_columns`` and every other
    column but the identity, policy, parameter and option ones (an outcome column may share an option's
    name, as gifts' per-game ``focus_seat`` does: the outcome wins). Raises if an outcome column is missing."""
    missing = [name for name in game.outcome_columns if name not in frame.columns]
    if missing:
        raise CursedsimError(f"{game.name}: outcome columns {', '.join(missing)} are not in the frame")
    config = set(IDENTITY_COLUMNS) | set(option_columns)
    others = {str(name) for name in frame.columns
              if name not in config and not str(name).startswith(("policy_", "param_"))}
    return sorted(others | set(game.outcome_columns))


def _column_bytes(name: str, column: pd.Series) -> list[bytes]:
    """The parts one column adds to the digest: name, dtype, length and values (categorical: codes and
    categories), each a deterministic byte string."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = np.ascontiguousarray(column.cat.codes.to_numpy())
        categories = json.dumps([str(c) for c in column.cat.categories]).encode()
        return [name.encode(), b"category", codes.dtype.str.encode(), str(len(codes)).encode(), codes.tobytes(),
                categories]
    values = column.to_numpy()
    if values.dtype == object or not isinstance(column.dtype, np.dtype):
        raise CursedsimError(f"outcome column {name!r} has dtype {column.dtype}, which a fingerprint cannot "
                             "encode as bytes (numeric, boolean or categorical columns only)")
    values = np.ascontiguousarray(values)
    return [name.encode(), values.dtype.str.encode(), str(len(values)).encode(), values.tobytes()]


def frame_digest(game: Game, frame: pd.DataFrame, option_columns: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of the outcome columns of ``frame``, a run of ``game`` with these option columns."""
    digest = hashlib.sha256(f"cursedsim-fingerprint-v{FINGERPRINT_VERSION}".encode())
    for name in outcome_column_names(game, frame, option_columns):
        for part in _column_bytes(name, frame[name]):
            # each part length-prefixed, so no two different columns give the same byte stream
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
    return digest.hexdigest()


def fingerprint(game: str | Game, n_games: int, *, players: int | None = None, policy: Any = None,
                options: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
                seed: int = 0) -> str:
    """The fingerprint of games ``0..n_games-1`` of the run ``seed``: ``simulate`` in-process (one job,
    no progress bar), then ``frame_digest`` of its outcome columns."""
    from cursedsim.runner import resolve_players, simulate
    game = get_game(game) if isinstance(game, str) else game
    frame = simulate(game, n_games, players=players, policy=policy, options=options, params=params, seed=seed,
                     n_jobs=1, progress=False)
    option_columns = game.option_columns(game.make_options(options), resolve_players(game, players))
    return frame_digest(game, frame, option_columns)


def kernel_policies(game: Game, side: str | None = None) -> list[str]:
    """The built-in policies the kernel plays (of ``side`` in a game of sides): not the search or
    reference-engine ones, nor users' policies, which carry their implementation."""
    return [name for name, spec in game.policies_of(side).items() if spec.engine == "kernel" and spec.impl is None]
