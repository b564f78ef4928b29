"""The Verflucht! report's seven figures: one function per figure, each returning a
:class:`~cursedsim.report.figures.ReportFigure` with its reading computed from the numbers it shows, at
every player count. Every policy has the palette's colour (``labels.color``) in every figure; the rule
sensitivity figure is in ``sensitivity.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from cursedsim.report.figures import ReportFigure, new_figure, panels, points, weighted_quantile
from cursedsim.report.verflucht.data import VerfluchtData
from cursedsim.report.verflucht.labels import CAUSE_COLORS, CAUSE_TEXT, color, per_players, players_label, players_text
from cursedsim.report.verflucht.sensitivity import rule_sensitivity

#: Marker and line style of each player count in the overlay figure (cycled).
PLAYER_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
PLAYER_LINES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)))
#: Hatches telling the policies apart where colour means the cause of a loss (figure 6).
HATCHES = (None, "//", "..", "xx", "\\\\", "++")


def _rate(table: pd.DataFrame, policy: str, players: int, seals: int) -> float:
    row = table[(table["players"] == players) & (table["policy"] == policy) & (table["seals"] == seals)]
    return float(row["win_rate"].iloc[0]) if len(row) else float("nan")


def _one(value: float) -> str:
    return f"{100 * value:.1f}"


def _policy_lists(values: dict[str, dict[int, float]], fmt: Callable[[float], str], unit: str = "") -> str:
    """``baseline a / b / c%, smart d / e / f% at 1-3 players`` (values missing or NaN left out; the
    player counts named once when every policy has the same)."""
    values = {policy: {p: v for p, v in by_p.items() if not np.isnan(v)} for policy, by_p in values.items()}
    values = {policy: by_p for policy, by_p in values.items() if by_p}
    same = len({tuple(sorted(by_p)) for by_p in values.values()}) == 1
    parts = [f"{policy} {per_players(by_p, fmt, unit, where=not same)}" for policy, by_p in values.items()]
    tail = f" at {players_text(next(iter(values.values())))}" if same and values else ""
    return ", ".join(parts) + tail


# ---------------------------------------------------------------- 1. win rate by seals

def win_rate_by_seals(data: VerfluchtData) -> ReportFigure:
    """Win rate against seal count, one panel per player count, one line (and 95% band) per policy."""
    table = data.seals
    plan = data.plan
    figure = new_figure(2.3 * len(plan.players) + 0.6)
    axes = panels(figure, len(plan.players))
    for ax, p in zip(axes, plan.players):
        for policy in data.labels:
            cell = table[(table["players"] == p) & (table["policy"] == policy)].sort_values("seals")
            if not len(cell):
                continue
            ax.plot(cell["seals"], 100 * cell["win_rate"], marker="o", ms=3, color=color(policy), label=policy)
            ax.fill_between(cell["seals"], 100 * cell["ci_low"], 100 * cell["ci_high"], color=color(policy),
                            alpha=0.25, lw=0)
        ax.axvline(data.rulebook_seals[p], color="0.4", ls=":", lw=1)
        ax.set_title(players_label(p))
        ax.set_xlabel("seals")
        ax.set_xticks(list(plan.seals)[::2])
    axes[0].set_ylabel("win rate (%)")
    axes[-1].legend(loc="upper left", fontsize=8)

    most = max(plan.seals)
    book = per_players(data.rulebook_seals, str)

    def rates(seals_of: Callable[[int], int]) -> str:
        return _policy_lists({policy: {p: _rate(table, policy, p, seals_of(p)) for p in plan.players}
                              for policy in data.labels}, _one, "%")

    reading = (f"With the rulebook's seals ({book}), the win rate is {rates(data.rulebook_seals.get)}; "
               f"with {most} seals, {rates(lambda p: most)}.")
    about = ("Share of games won (95% Wilson band) as the number of seals grows from "
             f"{min(plan.seals)} to {most}; the dotted line marks the rulebook's seal count for that many players.")
    return ReportFigure("win_rate_by_seals", "Win rate by seal count", about, figure, reading)


# ---------------------------------------------------------------- 2. the same, in one panel

def win_rate_by_seals_overlay(data: VerfluchtData) -> ReportFigure:
    """Figure 1 in one panel: every player count and policy together (colour: policy; marker and line
    style: player count)."""
    table = data.seals
    plan = data.plan
    figure = new_figure(9.5, 5.2)
    (ax,) = panels(figure, 1)
    for j, p in enumerate(plan.players):
        for policy in data.labels:
            cell = table[(table["players"] == p) & (table["policy"] == policy)].sort_values("seals")
            if len(cell):
                ax.plot(cell["seals"], 100 * cell["win_rate"], color=color(policy),
                        marker=PLAYER_MARKERS[j % len(PLAYER_MARKERS)], ms=4.5,
                        ls=PLAYER_LINES[j % len(PLAYER_LINES)], lw=1.3)
    ax.set_xlabel("seals")
    ax.set_ylabel("win rate (%)")
    ax.set_xticks(list(plan.seals))
    policy_handles = [Line2D([], [], color=color(policy), lw=2.5, label=policy) for policy in data.labels]
    player_handles = [Line2D([], [], color="0.25", marker=PLAYER_MARKERS[j % len(PLAYER_MARKERS)],
                             ls=PLAYER_LINES[j % len(PLAYER_LINES)], label=players_label(p))
                      for j, p in enumerate(plan.players)]
    first = ax.legend(handles=policy_handles, title="policy", fontsize=8, title_fontsize=8, loc="upper left")
    ax.add_artist(first)
    ax.legend(handles=player_handles, title="players", fontsize=8, title_fontsize=8, loc="lower right")

    middle = sorted(plan.seals)[len(plan.seals) // 2]
    reference = plan.reference
    at = {policy: {p: _rate(table, policy, p, middle) for p in plan.players} for policy in data.labels}
    costs = [at[reference][p - 1] - at[reference][p] for p in plan.players[1:] if p - 1 in at[reference]]
    reading = f"With {middle} seals, the win rate is {_policy_lists(at, _one, '%')}"
    if costs:
        reading += (f": each added player costs {reference} {points(min(costs), False)} to "
                    f"{points(max(costs), False)} points")
    gains = [at[policy][p] - at[reference][p] for policy in data.labels if policy != reference
             for p in plan.players if not np.isnan(at[policy][p])]
    if gains:
        best = max((policy for policy in data.labels if policy != reference),
                   key=lambda policy: np.nanmean([at[policy][p] - at[reference][p] for p in plan.players]))
        best_gains = [at[best][p] - at[reference][p] for p in plan.players if not np.isnan(at[best][p])]
        reading += (f", and {best} wins {points(min(best_gains), False)} to {points(max(best_gains), False)} "
                    f"points more than {reference} at the same player count")
    reading += "."
    about = ("Figure 1 in one panel, to compare player counts directly: colour is the policy (as in every "
             "figure), marker and line style the player count. The 95% intervals are in figure 1 and "
             "tables/win_rate_by_seals.csv.")
    return ReportFigure("win_rate_by_seals_overlay", "Win rate by seal count, all player counts in one panel",
                        about, figure, reading)


# ---------------------------------------------------------------- 3. policy comparison

def _describe_differences(label: str, reference: str, diffs: pd.DataFrame) -> str:
    values = per_players(dict(zip(diffs["players"], diffs["diff"])), lambda d: points(d), " points")
    if (diffs["ci_low"] > 0).all():
        return f"{label} wins more games than {reference}: {values} (every 95% interval above zero)"
    if (diffs["ci_high"] < 0).all():
        if (diffs["win_rate_a"] == 0).all():
            return f"{label} never wins ({values} against {reference})"
        return f"{label} wins fewer games than {reference}: {values} (every 95% interval below zero)"
    return f"{label} differs from {reference} by {values} (some 95% intervals include zero)"


def policy_differences(data: VerfluchtData) -> ReportFigure:
    """Paired win-rate differences challenger - reference at the rulebook's seals, per player count."""
    plan = data.plan
    diffs = data.policy_diffs
    challengers = [c for c in dict.fromkeys(diffs["a"]) if c != plan.reference]
    figure = new_figure(4.6 * len(challengers) + 0.6, 3.5)
    axes = panels(figure, len(challengers), sharey=False)
    parts = []
    for ax, label in zip(axes, challengers):
        rows = diffs[diffs["a"] == label].sort_values("players")
        y = 100 * rows["diff"].to_numpy()
        err = 100 * np.vstack([rows["diff"] - rows["ci_low"], rows["ci_high"] - rows["diff"]])
        ax.errorbar(rows["players"], y, yerr=err, fmt="o", capsize=4, color=color(label))
        for x, value in zip(rows["players"], y):
            ax.annotate(f"{value:+.1f}", (x, value), textcoords="offset points", xytext=(7, 0), fontsize=8,
                        va="center")
        ax.axhline(0, color="0.3", lw=1)
        ax.set_xlim(min(plan.players) - 0.5, max(plan.players) + 0.7)
        ax.set_title(f"{label} − {plan.reference}")
        ax.set_xlabel("players (rulebook seals)")
        ax.set_xticks(list(plan.players), [f"{p} ({data.rulebook_seals[p]})" for p in plan.players])
        ax.set_ylabel("win rate difference (points)")
        parts.append(_describe_differences(label, plan.reference, rows))
    reading = "; ".join(parts) + "."
    about = (f"Each policy played the same games as {plan.reference} (same seed and game indices), so "
             "the difference is measured game by game: points are the paired difference in win rate, "
             "bars its 95% interval.")
    return ReportFigure("policy_differences", "Policies compared on the same games", about, figure, reading)


# ---------------------------------------------------------------- 4. score of won games

def score_distribution(data: VerfluchtData) -> ReportFigure:
    """Distribution of the score of won games (lower is better), per player count and policy."""
    plan = data.plan
    scores = data.scores
    figure = new_figure(2.3 * len(plan.players) + 0.6)
    axes = panels(figure, len(plan.players))
    top = int(scores["score"].max()) if len(scores) else 10
    bins = np.arange(0, max(top, 10) + 6, 5)
    medians: dict[str, dict[int, float]] = {}
    zeros: dict[str, dict[int, float]] = {}
    for ax, p in zip(axes, plan.players):
        for policy in data.labels:
            cell = scores[(scores["players"] == p) & (scores["policy"] == policy)]
            if not len(cell):
                continue
            counts, _ = np.histogram(cell["score"], bins=bins, weights=cell["games"])
            share = 100 * counts / counts.sum()
            ax.stairs(share, bins, color=color(policy), label=f"{policy} ({int(cell['games'].sum()):,} won)", lw=1.4)
            medians.setdefault(policy, {})[p] = weighted_quantile(cell["score"].to_numpy(), cell["games"].to_numpy(),
                                                                  0.5)
            zeros.setdefault(policy, {})[p] = cell.loc[cell["score"] == 0, "games"].sum() / cell["games"].sum()
        ax.set_title(players_label(p))
        ax.set_xlabel("score (lower is better)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper right")
    axes[0].set_ylabel("share of won games (%)")

    if medians:
        reading = (f"A won game scores on median (lower is better) {_policy_lists(medians, lambda v: f'{v:g}')}; "
                   f"won games scoring 0: {_policy_lists(zeros, _one, '%')}.")
    else:
        reading = "No game was won."
    about = ("Score = total value of the Creatures left in the display at the end of a won game, after "
             "each remaining seal discards the lowest one; bins of 5 (the first bar is mostly games that "
             "score 0), at the rulebook's seals.")
    return ReportFigure("score_distribution", "Score of won games", about, figure, reading)


# ---------------------------------------------------------------- 5. game length

def game_length(data: VerfluchtData) -> ReportFigure:
    """Distribution of the number of draw turns, won and lost games apart, per player count."""
    plan = data.plan
    turns = data.turns
    figure = new_figure(2.3 * len(plan.players) + 0.6)
    axes = panels(figure, len(plan.players))
    top = int(turns["turns"].max()) if len(turns) else 80
    bins = np.arange(0, top + 3, 2)
    for ax, p in zip(axes, plan.players):
        for policy in data.labels:
            for won, style in ((True, "-"), (False, "--")):
                cell = turns[(turns["players"] == p) & (turns["policy"] == policy) & (turns["won"] == won)]
                if not len(cell):
                    continue
                counts, _ = np.histogram(cell["turns"], bins=bins, weights=cell["games"])
                ax.stairs(100 * counts / counts.sum(), bins, color=color(policy), ls=style, lw=1.2,
                          label=f"{policy}, {'won' if won else 'lost'}")
        ax.set_title(players_label(p))
        ax.set_xlabel("draw turns")
    axes[0].set_ylabel("share of games (%)")
    axes[0].legend(fontsize=7, loc="upper left")

    policy = plan.reference
    cell = turns[turns["policy"] == policy]
    won, lost = cell[cell["won"]], cell[~cell["won"]]
    parts = []
    if len(won):
        parts.append(f"won games last {int(won['turns'].min())}-{int(won['turns'].max())} draw turns at every "
                     "player count")
    if len(lost):
        median = {p: weighted_quantile(g["turns"].to_numpy(), g["games"].to_numpy(), 0.5)
                  for p, g in lost.groupby("players")}
        parts.append(f"lost games end at draw turn {per_players(median, lambda v: f'{v:g}')} on median")
    reading = f"With {policy}, " + " and ".join(parts) + "." if parts else f"{policy} played no game."
    about = ("Draw turns played (one card drawn per turn, the losing turn included; the last turns after "
             "the final card are not counted). A won game draws all 80 cards plus every Creature a seal "
             "shuffled back. Solid: won games, dashed: lost games; each line sums to 100%.")
    return ReportFigure("game_length", "Game length", about, figure, reading)


# ---------------------------------------------------------------- 6. what kills a game

def _value(table: pd.DataFrame, players: int, policy: str, cause: str, column: str) -> float:
    row = table[(table["players"] == players) & (table["policy"] == policy) & (table["end"] == cause)]
    return float(row[column].iloc[0]) if len(row) else float("nan")


def _cause_bars(ax, data: VerfluchtData, causes: Sequence[str]) -> None:
    """Stacked bars: the share of lost games each cause ended, per player count and policy (hatched;
    a square in the policy's colour on top)."""
    plan, losses, labels = data.plan, data.losses, data.labels
    width = 0.8 / len(labels)
    for i, policy in enumerate(labels):
        offset = (i - (len(labels) - 1) / 2) * width
        bottom = np.zeros(len(plan.players))
        for cause in causes:
            share = np.nan_to_num(np.array([_value(losses, p, policy, cause, "share") for p in plan.players]))
            ax.bar(np.array(plan.players) + offset, 100 * share, width * 0.95, bottom=100 * bottom,
                   color=CAUSE_COLORS.get(cause), hatch=HATCHES[i % len(HATCHES)], edgecolor="white", lw=0.5)
            bottom += share
        ax.plot(np.array(plan.players) + offset, np.full(len(plan.players), 103), ls="none", marker="s", ms=5,
                color=color(policy))
    ax.set_ylim(0, 108)
    ax.set_xticks(list(plan.players))
    ax.set_xlabel("players")
    ax.set_ylabel("share of lost games (%)")
    ax.set_title("which attack ends a lost game")
    handles = [Patch(color=CAUSE_COLORS.get(cause), label=cause.replace("_", " ")) for cause in causes]
    handles += [Patch(facecolor="white", edgecolor=color(policy), hatch=HATCHES[i % len(HATCHES)], label=policy)
                for i, policy in enumerate(labels)]
    ax.legend(handles=handles, fontsize=8, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))


def _loss_turns(ax, data: VerfluchtData, causes: Sequence[str]) -> None:
    """Median draw turn of the loss with its quartiles, per player count, policy (marker) and cause."""
    plan, loss_turns, labels = data.plan, data.loss_turns, data.labels
    for i, policy in enumerate(labels):
        for j, cause in enumerate(causes):
            offset = (i * len(causes) + j - (len(labels) * len(causes) - 1) / 2) * 0.1
            rows = loss_turns[(loss_turns["policy"] == policy) & (loss_turns["end"] == cause)].sort_values("players")
            rows = rows[rows["games"] > 0]
            if not len(rows):
                continue
            err = np.vstack([rows["median"] - rows["q25"], rows["q75"] - rows["median"]])
            ax.errorbar(rows["players"] + offset, rows["median"], yerr=err, fmt=PLAYER_MARKERS[i % len(PLAYER_MARKERS)],
                        capsize=3, color=CAUSE_COLORS.get(cause), mec=color(policy), mew=1.2,
                        label=f"{policy}, {cause.replace('_', ' ')}")
    ax.set_xticks(list(plan.players))
    ax.set_xlabel("players")
    ax.set_ylabel("draw turn of the loss")
    ax.set_title("when: median turn, bars from first to third quartile")
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))


def what_kills(data: VerfluchtData) -> ReportFigure:
    """Share of lost games by the attack that ended them, and the turn of the loss."""
    plan = data.plan
    losses = data.losses
    causes = list(dict.fromkeys(losses["end"]))
    figure = new_figure(11.5, 4.6)
    left, right = panels(figure, 2, sharey=False)
    _cause_bars(left, data, causes)
    _loss_turns(right, data, causes)

    policy = plan.reference
    mean_share = {cause: np.nanmean([_value(losses, p, policy, cause, "share") for p in plan.players])
                  for cause in causes}
    ordered = sorted(causes, key=lambda cause: -mean_share[cause])
    parts = [f"{CAUSE_TEXT.get(cause, cause)} ends "
             f"{per_players({p: _value(losses, p, policy, cause, 'share') for p in plan.players}, _one, '%')}"
             for cause in ordered]
    any_turn = data.loss_turns[(data.loss_turns["policy"] == policy) & (data.loss_turns["end"] == "any")]
    median = {int(r["players"]): float(r["median"]) for _, r in any_turn.iterrows() if r["games"] > 0}
    reading = f"Of {policy}'s lost games, " + " and ".join(parts)
    if median:
        reading += f"; the median lost game ends at draw turn {per_players(median, lambda v: f'{v:g}')}"
    reading += "."
    about = ("A lost game ends when an attack comes with no green seal left: either a group (two or more "
             "Creatures of consecutive values) or the highest Creature when a sixth one enters the display. "
             "Left: the share of the lost games each attack ended (colour: the attack; hatch and the square "
             "on top: the policy); right: the draw turn of the loss (marker and its edge: the policy).")
    return ReportFigure("what_kills", "What kills a game", about, figure, reading)


#: The report's figures, in order.
FIGURES: tuple[Callable[[VerfluchtData], ReportFigure], ...] = (
    win_rate_by_seals, win_rate_by_seals_overlay, policy_differences, score_distribution, game_length, what_kills,
    rule_sensitivity)


__all__ = ["FIGURES", "game_length", "policy_differences", "rule_sensitivity", "score_distribution", "what_kills",
           "win_rate_by_seals", "win_rate_by_seals_overlay"]
