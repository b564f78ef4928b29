"""``cursedsim compile [GAME ...]``: compile (or load from the cache) every kernel of the named games, all
by default, and print the seconds each took: a cold cache compiles, a warm one loads in a second or two."""

from __future__ import annotations

import time

import click

from cursedsim.cli.app import command


@command("compile")
@click.argument("games", nargs=-1)
@click.option("--jobs", "n_jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games compiled at once, each in its own process.")
def compile_command(games: tuple[str, ...], n_jobs: int) -> None:
    """Compile every kernel of GAMES (default: every game) into numba's cache, ahead of a run."""
    from cursedsim.warm import warm
    started = time.perf_counter()
    seconds = warm(games, n_jobs=n_jobs)
    for name, taken in seconds.items():
        click.echo(f"{name:<10} {taken:7.1f} s")
    click.echo(f"{'total':<10} {time.perf_counter() - started:7.1f} s (wall, {n_jobs} job{'s' if n_jobs > 1 else ''})")
