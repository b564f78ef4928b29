"""``cursedsim ceiling GAME``: the skill curve (cursedsim/skill.py): the win rate of ``rollout`` against its
budget n, beside every heuristic of the side, on the same games; whether it saturates."""

from __future__ import annotations

import click

from cursedsim.cli.app import command


def _budgets(text: str) -> list[int]:
    from cursedsim.cli.grid import CliError
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CliError(f"--budgets takes whole numbers separated by commas, like 1,4,16,64; got {text!r}") from None
    return values


@command("ceiling")
@click.argument("game")
@click.option("--players", type=int, default=None, help="Player count (default: the game's).")
@click.option("--side", default=None, help="A game of sides: the side that searches (default: the first).")
@click.option("--option", "option_texts", multiple=True, metavar="NAME=VALUE",
              help="A rule option, one value (e.g. information=team). Repeatable.")
@click.option("--budgets", default="1,4,16,64,256", show_default=True, metavar="N,N,...",
              help="Playouts per candidate of rollout, increasing; the curve goes on x4 while the last step still "
                   "rises by more than its interval, up to --max-n.")
@click.option("--max-n", type=click.IntRange(min=1), default=1024, show_default=True,
              help="The largest budget the curve extends to.")
@click.option("--base", type=int, default=None, help="rollout's base policy id (default: its own default).")
@click.option("--games", type=click.IntRange(min=2), default=2000, show_default=True,
              help="Games per contender (the same games for every one: paired intervals).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", "n_jobs", type=int, default=1, show_default=True, help="Worker processes (-1: all cores).")
@click.option("--out", default=None, metavar="DIR",
              help="Directory: each contender's games as a resumable run, and skill.csv.")
def ceiling_command(game, players, side, option_texts, budgets, max_n, base, games, seed, n_jobs, out):
    """How strong play wins GAME: rollout at growing budgets beside the heuristics, on the same games. The
    strongest point is a lower bound on skilled play; the table says whether the curve saturated."""
    import os

    from rich.table import Table

    from cursedsim.cli.grid import parse_options, single_options
    from cursedsim.cli.tables import pp, print_table
    from cursedsim.games import get_game
    from cursedsim.skill import skill_curve, write_csv

    spec = get_game(game)
    options = single_options(parse_options(spec, option_texts, None), "ceiling")

    def echo(row):
        click.echo(f"  {row['label']:<24} {100 * row['win_rate']:6.2f}%  ({row['games']} games, "
                   f"{row['seconds']:.0f} s)", err=True)

    curve = skill_curve(spec, players=players, side=side, options=options, budgets=_budgets(budgets), games=games,
                        seed=seed, n_jobs=n_jobs, base=None if base is None else {"base": base}, max_n=max_n,
                        out=out, progress=False, echo=echo)
    title = f"{spec.title}: skill curve, {curve.players} players" + (f", {curve.side}" if curve.side else "")
    table = Table(title=title)
    for header in ("policy", "n", "games", "win rate % [95% CI]", "vs best heuristic (pp)", "step (pp)", "s"):
        table.add_column(header, justify="left" if header == "policy" else "right")
    for row in curve.table.to_dict("records"):
        n = "-" if row["kind"] == "heuristic" else str(int(row["n"]))
        vs = f"{pp(row['vs_best'], 1, True)} [{pp(row['vs_low'], 1, True)}, {pp(row['vs_high'], 1, True)}]"
        step = "-" if row.get("step") != row.get("step") or "step" not in row else \
            f"{pp(row['step'], 1, True)} [{pp(row['step_low'], 1, True)}, {pp(row['step_high'], 1, True)}]"
        table.add_row(row["label"], n, str(row["games"]),
                      f"{pp(row['win_rate'])} [{pp(row['ci_low'])}, {pp(row['ci_high'])}]", vs, step,
                      f"{row['seconds']:.0f}")
    print_table(table)
    click.echo(curve.summary())
    if out is not None:
        write_csv(curve, os.path.join(out, "skill.csv"))
        click.echo(f"wrote {os.path.join(out, 'skill.csv')}")
