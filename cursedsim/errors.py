"""The exceptions cursedsim raises for bad input; each message names the valid choices."""


class CursedsimError(ValueError):
    """Base of every user-facing cursedsim error (the CLI prints it in one line and exits 2)."""


class UnknownGameError(CursedsimError):
    """A game name that is not in the registry."""


class UnknownPolicyError(CursedsimError):
    """A policy name (or policy parameter) the game does not have."""


class OptionError(CursedsimError):
    """An unknown rule option, or a value outside its range."""


class PlayersError(CursedsimError):
    """A player count the game does not support."""


class RunError(CursedsimError):
    """Bad run settings: non-positive game counts, chunk sizes, job counts, or a mismatched resume."""
