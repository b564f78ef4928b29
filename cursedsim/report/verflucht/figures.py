"""The Verflucht! report's six figures: one function per figure, each returning a
:class:`~cursedsim.report.figures.ReportFigure` with its one-line reading computed from the numbers it
shows, at the game's default player count unless it says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from cursedsim.report.figures import (
    ReportFigure,
    new_figure,
    option_label,
    panels,
    pct,
    points,
    weighted_quantile,
)
from cursedsim.report.figures import color as _palette
from cursedsim.report.verflucht.data import VerfluchtData

#: One colour per policy, the same in every figure.
POLICY_COLORS = {"baseline": "#1f77b4", "smart": "#ff7f0e", "random": "#2ca02c"}
#: Colours of the ways a game is lost.
CAUSE_COLORS = {"sixth_creature": "#8c564b", "group": "#d62728"}
CAUSE_TEXT = {"sixth_creature": "a sixth-creature attack", "group": "a group attack"}


def _color(policy: str, index: int = 0) -> str:
    return _palette(POLICY_COLORS, policy, index)


def _players_label(players: int) -> str:
    return f"{players} player{'s' if players != 1 else ''}"


def _focus_players(data: VerfluchtData) -> int:
    return data.default_players if data.default_players in data.plan.players else data.plan.players[0]


# ---------------------------------------------------------------- 1. win rate by seals

def win_rate_by_seals(data: VerfluchtData) -> ReportFigure:
    """Win rate against seal count, one panel per player count, one line (and 95% band) per policy."""
    table = data.seals
    plan = data.plan
    figure = new_figure(2.3 * len(plan.players) + 0.6)
    axes = panels(figure, len(plan.players))
    for ax, p in zip(axes, plan.players):
        for i, policy in enumerate(plan.policies):
            cell = table[(table["players"] == p) & (table["policy"] == policy)].sort_values("seals")
            ax.plot(cell["seals"], 100 * cell["win_rate"], marker="o", ms=3, color=_color(policy, i), label=policy)
            ax.fill_between(cell["seals"], 100 * cell["ci_low"], 100 * cell["ci_high"], color=_color(policy, i),
                            alpha=0.25, lw=0)
        ax.axvline(data.rulebook_seals[p], color="0.4", ls=":", lw=1)
        ax.set_title(_players_label(p))
        ax.set_xlabel("seals")
        ax.set_xticks(list(plan.seals)[::2])
    axes[0].set_ylabel("win rate (%)")
    axes[-1].legend(loc="upper left", fontsize=8)

    p = _focus_players(data)
    seals = data.rulebook_seals[p]
    most = max(plan.seals)

    def rate(policy: str, s: int) -> float:
        row = table[(table["players"] == p) & (table["policy"] == policy) & (table["seals"] == s)]
        return float(row["win_rate"].iloc[0])

    first, *others = plan.policies
    at_rulebook = pct(rate(first, seals)) + f" of games with {first}" + "".join(
        f" and {pct(rate(policy, seals))} with {policy}" for policy in others)
    at_most = " and ".join(pct(rate(policy, most)) for policy in plan.policies)
    reading = (f"With {seals} seals (the rulebook's count), {p} players win {at_rulebook}; "
               f"with {most} seals, {at_most}.")
    about = ("Share of games won (95% Wilson band) as the number of seals grows from "
             f"{min(plan.seals)} to {most}; the dotted line marks the rulebook's seal count for that many players.")
    return ReportFigure("win_rate_by_seals", "Win rate by seal count", about, figure, reading)


# ---------------------------------------------------------------- 2. policy comparison

def _describe_differences(label: str, reference: str, diffs: pd.DataFrame) -> str:
    low, high = diffs["diff"].min(), diffs["diff"].max()
    span = points(low, False) if round(100 * low, 1) == round(100 * high, 1) else \
        f"{points(min(abs(low), abs(high)), False)} to {points(max(abs(low), abs(high)), False)}"
    if (diffs["ci_low"] > 0).all():
        return (f"{label} wins {span} points more games than {reference} at every player count "
                "(every 95% interval above zero)")
    if (diffs["ci_high"] < 0).all():
        if (diffs["win_rate_a"] == 0).all():
            return f"{label} never wins ({span} points fewer than {reference})"
        return f"{label} wins {span} points fewer games than {reference} at every player count"
    return (f"{label} differs from {reference} by {points(low)} to {points(high)} points "
            "(some 95% intervals include zero)")


def policy_differences(data: VerfluchtData) -> ReportFigure:
    """Paired win-rate differences challenger - reference at the rulebook's seals, per player count."""
    plan = data.plan
    diffs = data.policy_diffs
    challengers = [c for c in plan.challengers if c != plan.reference]
    figure = new_figure(4.6 * len(challengers) + 0.6, 3.5)
    axes = panels(figure, len(challengers), sharey=False)
    parts = []
    for ax, (i, label) in zip(axes, enumerate(challengers)):
        rows = diffs[diffs["a"] == label].sort_values("players")
        y = 100 * rows["diff"].to_numpy()
        err = 100 * np.vstack([rows["diff"] - rows["ci_low"], rows["ci_high"] - rows["diff"]])
        ax.errorbar(rows["players"], y, yerr=err, fmt="o", capsize=4, color=_color(label, i))
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


# ---------------------------------------------------------------- 3. score of won games

def score_distribution(data: VerfluchtData) -> ReportFigure:
    """Distribution of the score of won games (lower is better), per player count and policy."""
    plan = data.plan
    scores = data.scores
    figure = new_figure(2.3 * len(plan.players) + 0.6)
    axes = panels(figure, len(plan.players))
    top = int(scores["score"].max()) if len(scores) else 10
    bins = np.arange(0, max(top, 10) + 6, 5)
    for ax, p in zip(axes, plan.players):
        for i, policy in enumerate(plan.policies):
            cell = scores[(scores["players"] == p) & (scores["policy"] == policy)]
            if not len(cell):
                continue
            counts, _ = np.histogram(cell["score"], bins=bins, weights=cell["games"])
            share = 100 * counts / counts.sum()
            ax.stairs(share, bins, color=_color(policy, i), label=f"{policy} ({int(cell['games'].sum()):,} won)",
                      lw=1.4)
        ax.set_title(_players_label(p))
        ax.set_xlabel("score (lower is better)")
        ax.legend(fontsize=7, loc="upper right")
    axes[0].set_ylabel("share of won games (%)")

    p = _focus_players(data)
    medians, zeros = [], []
    for policy in plan.policies:
        cell = scores[(scores["players"] == p) & (scores["policy"] == policy)]
        if len(cell):
            median = weighted_quantile(cell["score"].to_numpy(), cell["games"].to_numpy(), 0.5)
            medians.append(f"{median:g} with {policy}")
            zeros.append(pct(cell.loc[cell["score"] == 0, "games"].sum() / cell["games"].sum()))
    if medians:
        reading = (f"At {p} players, a won game scores {' and '.join(medians)} on median (lower is better); "
                   f"{' and '.join(zeros)} of their won games score 0.")
    else:
        reading = f"At {p} players no game was won."
    about = ("Score = total value of the Creatures left in the display at the end of a won game, after "
             "each remaining seal discards the lowest one; bins of 5 (the first bar is mostly games that "
             "score 0), at the rulebook's seals.")
    return ReportFigure("score_distribution", "Score of won games", about, figure, reading)


# ---------------------------------------------------------------- 4. game length

def game_length(data: VerfluchtData) -> ReportFigure:
    """Distribution of the number of draw turns, won and lost games apart, per player count."""
    plan = data.plan
    turns = data.turns
    figure = new_figure(2.3 * len(plan.players) + 0.6)
    axes = panels(figure, len(plan.players))
    top = int(turns["turns"].max()) if len(turns) else 80
    bins = np.arange(0, top + 3, 2)
    for ax, p in zip(axes, plan.players):
        for i, policy in enumerate(plan.policies):
            for won, style in ((True, "-"), (False, "--")):
                cell = turns[(turns["players"] == p) & (turns["policy"] == policy) & (turns["won"] == won)]
                if not len(cell):
                    continue
                counts, _ = np.histogram(cell["turns"], bins=bins, weights=cell["games"])
                ax.stairs(100 * counts / counts.sum(), bins, color=_color(policy, i), ls=style, lw=1.2,
                          label=f"{policy}, {'won' if won else 'lost'}")
        ax.set_title(_players_label(p))
        ax.set_xlabel("draw turns")
    axes[0].set_ylabel("share of games (%)")
    axes[0].legend(fontsize=7, loc="upper left")

    p = _focus_players(data)
    policy = plan.reference
    cell = turns[(turns["players"] == p) & (turns["policy"] == policy)]
    won, lost = cell[cell["won"]], cell[~cell["won"]]
    parts = []
    if len(won):
        parts.append(f"won games last {int(won['turns'].min())}-{int(won['turns'].max())} draw turns (median "
                     f"{weighted_quantile(won['turns'].to_numpy(), won['games'].to_numpy(), 0.5):g})")
    if len(lost):
        q = [weighted_quantile(lost["turns"].to_numpy(), lost["games"].to_numpy(), x) for x in (0.25, 0.5, 0.75)]
        parts.append(f"lost games end at turn {q[1]:g} on median (half of them between turns {q[0]:g} and {q[2]:g})")
    reading = f"At {p} players with {policy}, " + " and ".join(parts) + "."
    about = ("Draw turns played (one card drawn per turn, the losing turn included; the last turns after "
             "the final card are not counted). A won game draws all 80 cards plus every Creature a seal "
             "shuffled back. Solid: won games, dashed: lost games; each line sums to 100%.")
    return ReportFigure("game_length", "Game length", about, figure, reading)


# ---------------------------------------------------------------- 5. what kills a game

def what_kills(data: VerfluchtData) -> ReportFigure:
    """Share of lost games by the attack that ended them, and the turn of the loss."""
    plan = data.plan
    losses = data.losses
    loss_turns = data.loss_turns
    causes = [c for c in dict.fromkeys(losses["end"])]
    figure = new_figure(11.5, 4.4)
    left, right = panels(figure, 2, sharey=False)
    width = 0.8 / len(plan.policies)
    for i, policy in enumerate(plan.policies):
        offset = (i - (len(plan.policies) - 1) / 2) * width
        bottom = np.zeros(len(plan.players))
        for cause in causes:
            share = np.array([_value(losses, p, policy, cause, "share") for p in plan.players])
            share = np.nan_to_num(share)
            left.bar(np.array(plan.players) + offset, 100 * share, width * 0.95, bottom=100 * bottom,
                     color=CAUSE_COLORS.get(cause), hatch="//" if i else None, edgecolor="white", lw=0.5,
                     label=f"{cause.replace('_', ' ')}" if i == 0 else None)
            bottom += share
        for x in plan.players:
            left.annotate(policy[0], (x + offset, 101), ha="center", fontsize=7)
    left.set_ylim(0, 108)
    left.set_xticks(list(plan.players))
    left.set_xlabel("players (" + ", ".join(f"{p[0]} = {p}" for p in plan.policies) + ")")
    left.set_ylabel("share of lost games (%)")
    left.set_title("which attack ends a lost game")
    left.legend(fontsize=8, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))

    markers = "os^D"
    for i, policy in enumerate(plan.policies):
        for j, cause in enumerate(causes):
            offset = (i * len(causes) + j - (len(plan.policies) * len(causes) - 1) / 2) * 0.12
            rows = loss_turns[(loss_turns["policy"] == policy) & (loss_turns["end"] == cause)].sort_values("players")
            rows = rows[rows["games"] > 0]
            if not len(rows):
                continue
            err = np.vstack([rows["median"] - rows["q25"], rows["q75"] - rows["median"]])
            right.errorbar(rows["players"] + offset, rows["median"], yerr=err, fmt=markers[i % 4], capsize=3,
                           color=CAUSE_COLORS.get(cause), mfc="white" if i else None,
                           label=f"{policy}, {cause.replace('_', ' ')}")
    right.set_xticks(list(plan.players))
    right.set_xlabel("players")
    right.set_ylabel("draw turn of the loss")
    right.set_title("when: median turn, bars from first to third quartile")
    right.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))

    p = _focus_players(data)
    policy = plan.reference
    ordered = sorted(causes, key=lambda c: -_value(losses, p, policy, c, "share"))
    shares = [f"{pct(_value(losses, p, policy, cause, 'share'))}" for cause in ordered]
    parts = [f"{shares[0]} of {policy}'s lost games end in {CAUSE_TEXT.get(ordered[0], ordered[0])}"]
    parts += [f"{share} in {CAUSE_TEXT.get(cause, cause)}" for share, cause in zip(shares[1:], ordered[1:])]
    any_row = loss_turns[(loss_turns["players"] == p) & (loss_turns["policy"] == policy)
                         & (loss_turns["end"] == "any")]
    median = float(any_row["median"].iloc[0]) if len(any_row) else float("nan")
    reading = (f"At {p} players, {' and '.join(parts)}; "
               f"the median lost game ends at draw turn {median:g}.")
    hatched = f" (plain: {plan.policies[0]}, hatched: {plan.policies[1]})" if len(plan.policies) > 1 else ""
    about = ("A lost game ends when an attack comes with no green seal left: either a group (two or more "
             "Creatures of consecutive values) or the highest Creature when a sixth one enters the display. "
             f"Left: the share of the lost games each attack ended{hatched}; right: the draw turn of the loss.")
    return ReportFigure("what_kills", "What kills a game", about, figure, reading)


def _value(table: pd.DataFrame, players: int, policy: str, cause: str, column: str) -> float:
    row = table[(table["players"] == players) & (table["policy"] == policy) & (table["end"] == cause)]
    return float(row[column].iloc[0]) if len(row) else float("nan")


# ---------------------------------------------------------------- 6. rule sensitivity

def rule_sensitivity(data: VerfluchtData) -> ReportFigure:
    """Paired change of the win rate (and of the score, for options that only move scores) when one
    ambiguous rule takes its other reading, per player count and policy."""
    plan = data.plan
    table = data.sensitivity
    shown = [(name, value, "win_rate") for name, value in plan.options]
    shown += [(name, value, "score") for name, value in plan.options if name in plan.score_options]
    figure = new_figure(3.1 * len(shown) + 0.6, 3.6)
    axes = panels(figure, len(shown), sharey=False)
    for ax, (name, value, measure) in zip(axes, shown):
        scale = 100 if measure == "win_rate" else 1
        for i, policy in enumerate(plan.policies):
            rows = table[(table["option"] == name) & (table["policy"] == policy)
                         & (table["measure"] == measure)].sort_values("players")
            if not len(rows):
                continue
            offset = (i - (len(plan.policies) - 1) / 2) * 0.18
            err = scale * np.vstack([rows["diff"] - rows["ci_low"], rows["ci_high"] - rows["diff"]])
            ax.errorbar(rows["players"] + offset, scale * rows["diff"], yerr=np.nan_to_num(err), fmt="o", ms=4,
                        capsize=3, color=_color(policy, i), label=policy)
        ax.axhline(0, color="0.3", lw=1)
        ax.set_title(option_label(name, value) + ("" if measure == "win_rate" else "\n(score of won games)"),
                     fontsize=9)
        ax.set_xticks(list(plan.players))
        ax.set_xlabel("players")
        ax.set_ylabel("win rate change (points)" if measure == "win_rate" else "score change (lower is better)")
    axes[0].legend(fontsize=8)
    reading = _sensitivity_reading(plan, table)
    about = ("Each ambiguous rule (a named option, see the rules document) was played in its other reading "
             "on the same games as the default at the rulebook's seals; points are the paired difference "
             "option − default, bars its 95% interval.")
    return ReportFigure("rule_sensitivity", "Sensitivity to the rulebook's ambiguities", about, figure, reading)


def _where(row: pd.Series, policies: Sequence[str]) -> str:
    where = _players_label(int(row["players"]))
    return where + (f", {row['policy']}" if len(policies) > 1 else "")


def _sensitivity_reading(plan, table: pd.DataFrame) -> str:
    """One clause per option: unchanged games, or the range of the win-rate change (and of the score
    change for options that only move scores), with where it is largest."""
    parts = []
    for name, value in plan.options:
        label = option_label(name, value).replace(" = ", "=")
        rows = table[(table["option"] == name) & (table["measure"] == "win_rate")]
        if not len(rows):
            continue
        if (rows["games_changed"] == 0).all():
            parts.append(f"{label} leaves every game unchanged with these policies")
            continue
        low, high = 100 * rows["diff"].min(), 100 * rows["diff"].max()
        top = rows.loc[rows["diff"].abs().idxmax()]
        if (rows["diff"] == 0).all():
            clause = f"{label} never changes who wins"
        elif low >= 0 or high <= 0:
            verb = "raises" if low >= 0 else "lowers"
            span = f"{min(abs(low), abs(high)):.1f} to {max(abs(low), abs(high)):.1f}"
            clause = f"{label} {verb} the win rate by {span} points (most at {_where(top, plan.policies)})"
        else:
            clause = f"{label} moves the win rate by {low:+.1f} to {high:+.1f} points"
        score = table[(table["option"] == name) & (table["measure"] == "score")]
        if name in plan.score_options and len(score):
            low, high = score["diff"].min(), score["diff"].max()
            top = score.loc[score["diff"].abs().idxmax()]
            if low >= 0 or high <= 0:
                verb, effect = ("raises", "worse") if low >= 0 else ("lowers", "better")
                clause += (f" and {verb} the mean score of won games by up to {max(abs(low), abs(high)):.1f} "
                           f"({effect}; most at {_where(top, plan.policies)})")
            else:
                clause += f" and moves the mean score of won games by {low:+.1f} to {high:+.1f}"
        parts.append(clause)
    text = "; ".join(parts) + "."
    return text


#: The report's figures, in order.
FIGURES: tuple[Callable[[VerfluchtData], ReportFigure], ...] = (
    win_rate_by_seals, policy_differences, score_distribution, game_length, what_kills, rule_sensitivity)


__all__ = ["FIGURES", "game_length", "policy_differences", "rule_sensitivity", "score_distribution", "what_kills",
           "win_rate_by_seals"]
