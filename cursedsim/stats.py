"""Statistics of outcome frames: win rates with 95% Wilson intervals, means with standard errors,
per-group summaries and sample sizes. The formulas come from statsmodels and scipy, imported inside the
functions so that ``import cursedsim`` stays fast.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from cursedsim.errors import CursedsimError


def wilson_interval(successes, n, alpha: float = 0.05):
    """(low, high) of the Wilson score interval (1 - alpha confidence) of ``successes`` out of ``n``;
    vectorised over arrays; NaN where ``n`` is 0."""
    from statsmodels.stats.proportion import proportion_confint
    successes = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    safe_n = np.where(n > 0, n, 1.0)
    low, high = proportion_confint(successes, safe_n, alpha=alpha, method="wilson")
    # exact at the ends: no wins gives a lower bound of 0 (statsmodels returns float noise like 4e-22),
    # all wins an upper bound of 1
    low = np.where(n > 0, np.where(successes == 0, 0.0, low), np.nan)
    high = np.where(n > 0, np.where(successes == n, 1.0, high), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def mean_se(values) -> tuple[float, float]:
    """(mean, standard error of the mean) of ``values``; the SE is NaN for fewer than two values."""
    from scipy.stats import sem
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return math.nan, math.nan
    se = float(sem(values)) if values.size > 1 else math.nan
    return float(values.mean()), se


def infer_sides(frame: pd.DataFrame) -> tuple[str, dict[str, str]]:
    """(win, sides) for ``summarize`` of a game of sides' frame without a ``win`` column: the game's own
    (``sides.summary_args``) when the ``game`` column names one game, else every boolean ``<side>_won``
    column, the first one as ``win``; a CursedsimError says what to pass when there is none."""
    if "game" in frame.columns and frame["game"].nunique() == 1:
        from cursedsim.games import GAME_MODULES, get_game
        from cursedsim.resolve import summary_args
        name = str(frame["game"].iloc[0])
        if name in GAME_MODULES and get_game(name).sides:
            args = summary_args(get_game(name))
            if all(column in frame.columns for column in args["sides"].values()):
                return args["win"], args["sides"]
    sides = {column[:-len("_won")]: column for column in frame.columns
             if column.endswith("_won") and frame[column].dtype == bool}
    if not sides:
        raise CursedsimError("no column 'win' to summarise: pass win= (a game of sides: win='<side>_won' and "
                             "sides={'<side>': '<side>_won', ...}, as cursedsim.sides.summary_args(game) gives them); "
                             f"columns: {', '.join(map(str, frame.columns))}")
    return next(iter(sides.values())), sides


def summarize(frame: pd.DataFrame, by: str | Sequence[str] | None = None, *, win: str = "win",
              score: str | None = "score", turns: str | None = "turns", measures: Sequence | None = None,
              alpha: float = 0.05, sides: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per group of ``by``: n, wins, win_rate, ci_low, ci_high (Wilson, 1 - alpha) of the boolean
    column ``win``, then the means of the outcome measures. ``by=None`` summarises the whole frame.

    sides: a game of sides' side -> win column (``sides.summary_args(game, side)`` gives both this and
    ``win``): per side ``<side>_wins``, ``<side>_win_rate``, ``<side>_ci_low``, ``<side>_ci_high``, after
    ``ci_high``; "won games" of won-only measures are those of ``win``. A frame without a ``win`` column
    given neither ``win`` nor ``sides`` (Curses & Covens, Cursed Gifts) gets its game's (``infer_sides``).

    measures: ``Measure``s (``cursedsim.games.base``; a game's are ``game.measures``), in order: each
    gives ``mean_<column>``, over the games that were won when ``won_only`` (NaN without wins), and
    ``<column>_se``, the standard error of that mean, when ``se`` (NaN for fewer than two games).
    ``score`` and ``turns`` name columns summarised as well when the frame has them and no measure
    covers them: mean_score and score_se over won games (a lost game's score, -1, is never averaged
    in), mean_turns over all games; None leaves them out. So ``summarize(frame, by)`` of a
    Verflucht! frame and ``summarize(frame, by, measures=game.measures)`` give the same columns."""
    from cursedsim.games.base import Measure
    if win == "win" and "win" not in frame.columns and not sides:
        win, sides = infer_sides(frame)
    keys = [] if by is None else [by] if isinstance(by, str) else list(by)
    measures = list(measures or ())
    covered = {measure.column for measure in measures}
    if score is not None and score in frame.columns and score not in covered:
        measures.append(Measure(score, "", won_only=True, se=True))
    if turns is not None and turns in frame.columns and turns not in covered:
        measures.append(Measure(turns, ""))
    sides = dict(sides or {})
    missing = [name for name in keys + [win] + list(sides.values()) + [m.column for m in measures]
               if name not in frame.columns]
    if missing:
        raise CursedsimError(f"no column {missing[0]!r} to summarise; columns: {', '.join(frame.columns)}")
    data = frame.assign(_all=0) if not keys else frame
    # each measure as _m<i> (int64 where the sums are exact, else float64) and, exact, _s<i> its squares
    extra = {}
    exact = []
    for i, measure in enumerate(measures):
        values = data[measure.column].to_numpy()
        exact.append(is_exact(values.dtype))
        if exact[-1]:
            values = values.astype(np.int64)
            extra[f"_s{i}"] = values * values
        extra[f"_m{i}"] = values if exact[-1] else values.astype(np.float64)
    data = data.assign(**extra) if extra else data
    keys = keys or ["_all"]
    groups = data.groupby(keys, observed=True, sort=True, dropna=False)
    won = data[win].astype(bool)
    result = pd.DataFrame({"n": groups.size(), "wins": groups[win].sum().astype(np.int64)})
    result["win_rate"] = result["wins"] / result["n"]
    result["ci_low"], result["ci_high"] = wilson_interval(result["wins"].to_numpy(), result["n"].to_numpy(), alpha)
    for side, column in sides.items():
        side_wins = groups[column].sum().astype(np.int64)
        for name, values in side_rates(side, side_wins.to_numpy(), result["n"].to_numpy(), alpha).items():
            result[name] = values
    won_groups = None
    for i, measure in enumerate(measures):
        if measure.won_only:
            if won_groups is None:
                won_groups = data[won].groupby(keys, observed=True, sort=True, dropna=False)
            chosen = won_groups
        else:
            chosen = groups
        if exact[i]:
            counts = chosen.size().reindex(result.index, fill_value=0).to_numpy()
            sums = chosen[[f"_m{i}", f"_s{i}"]].sum().reindex(result.index, fill_value=0).to_numpy()
            result[f"mean_{measure.column}"] = [mean_from_sums(int(c), int(s)) for c, s in zip(counts, sums[:, 0])]
            if measure.se:
                result[f"{measure.column}_se"] = [se_from_sums(int(c), int(s), int(q))
                                                  for c, s, q in zip(counts, sums[:, 0], sums[:, 1])]
        else:
            stats = chosen[f"_m{i}"].agg(["mean", "sem"] if measure.se else ["mean"]).reindex(result.index)
            result[f"mean_{measure.column}"] = stats["mean"].astype(np.float64)
            if measure.se:
                result[f"{measure.column}_se"] = stats["sem"].astype(np.float64)
    result = result.reset_index()
    if by is None:
        result = result.drop(columns="_all")
    return result


def side_rates(side: str, wins, n, alpha: float = 0.05) -> dict[str, object]:
    """``<side>_wins``, ``<side>_win_rate``, ``<side>_ci_low``, ``<side>_ci_high`` (Wilson) of a side's
    ``wins`` out of ``n`` games (vectorised)."""
    low, high = wilson_interval(wins, n, alpha)
    n_safe = np.where(np.asarray(n) > 0, n, np.nan)
    rate = np.asarray(wins, dtype=np.float64) / n_safe
    return {f"{side}_wins": wins, f"{side}_win_rate": float(rate) if np.ndim(rate) == 0 else rate,
            f"{side}_ci_low": low, f"{side}_ci_high": high}


def seat_rates(winners: Mapping[int, int], n: int, players: int, alpha: float = 0.05) -> pd.DataFrame:
    """The win rate of every seat 0..players-1 from ``winners`` (winning seat -> games; other keys such as
    -1, no winner, only count in ``n``): ``seat``, ``wins``, ``win_rate``, its Wilson ``ci_low``/``ci_high``,
    the fair share ``1/players`` and ``excess``, the rate minus the fair share (its interval is the
    rate's, shifted)."""
    seats = np.arange(players)
    wins = np.array([int(winners.get(seat, 0)) for seat in seats], dtype=np.int64)
    low, high = wilson_interval(wins, np.full(players, n))
    fair = 1.0 / players
    rate = wins / n if n > 0 else np.full(players, np.nan)
    return pd.DataFrame({"seat": seats, "wins": wins, "n": n, "win_rate": rate, "ci_low": low, "ci_high": high,
                         "fair_share": fair, "excess": rate - fair, "excess_low": low - fair,
                         "excess_high": high - fair})


def is_exact(dtype: np.dtype) -> bool:
    """Whether ``summarize`` averages a column of this dtype from exact integer sums: bools and integers
    of at most 16 bits (squares below 2**32, so the sums of any frame that fits in memory stay exact in
    int64). Wider integers and floats are averaged in floating point."""
    dtype = np.dtype(dtype)
    return dtype.kind == "b" or (dtype.kind in "iu" and dtype.itemsize <= 2)


def mean_from_sums(count: int, total: int) -> float:
    """``total / count`` correctly rounded (NaN without values): the mean of exact integer sums."""
    return total / count if count else math.nan


def se_from_sums(count: int, total: int, squares: int) -> float:
    """The standard error of the mean (sample standard deviation / sqrt(count)) from exact integer sums
    of the values and of their squares, rounded once (NaN for fewer than two values). ``summarize``
    and the streaming summary both use it, so their numbers are identical."""
    if count < 2:
        return math.nan
    from fractions import Fraction
    return math.sqrt(Fraction(count * squares - total * total, count * count * (count - 1)))


def sample_size_for_difference(p1: float, p2: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Games per arm that a two-sided test at level ``alpha`` needs to detect win rates ``p1`` vs ``p2``
    with probability ``power`` (independent samples, Cohen's h; statsmodels' power tools). Paired runs
    on common random numbers usually need fewer."""
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize
    for name, value in (("p1", p1), ("p2", p2)):
        if not 0 <= value <= 1:
            raise CursedsimError(f"{name} must be a probability in 0-1, got {value!r}")
    if not (0 < alpha < 1 and 0 < power < 1):
        raise CursedsimError(f"alpha and power must lie strictly between 0 and 1, got {alpha!r}, {power!r}")
    if p1 == p2:
        raise CursedsimError("p1 and p2 are equal: no sample size detects a difference of zero")
    effect = abs(proportion_effectsize(p1, p2))
    n = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=1.0,
                                     alternative="two-sided")
    return int(math.ceil(n))


def paired_difference(a, b, alpha: float = 0.05) -> dict[str, float]:
    """Mean of ``a - b`` over paired observations (same game, two policies) with its standard error and
    t interval (1 - alpha): the comparison on common random numbers. Keys: n, diff, se, ci_low,
    ci_high, sd (of the differences), p_value (two-sided, zero difference)."""
    from statsmodels.stats.weightstats import DescrStatsW
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if d.size < 2:
        raise CursedsimError(f"a paired difference needs at least 2 pairs, got {d.size}")
    stats = DescrStatsW(d)
    low, high = stats.tconfint_mean(alpha=alpha)
    sd = float(d.std(ddof=1))
    p_value = float(stats.ttest_mean(0.0)[1]) if sd > 0 else (1.0 if d.mean() == 0 else 0.0)
    return {"n": int(d.size), "diff": float(d.mean()), "se": sd / math.sqrt(d.size), "ci_low": float(low),
            "ci_high": float(high), "sd": sd, "p_value": p_value}


def unpaired_difference(a, b, alpha: float = 0.05) -> dict[str, float]:
    """Mean of ``a`` minus mean of ``b`` treated as independent samples (Welch t interval, 1 - alpha):
    what the same games would give without pairing. Keys: diff, se, ci_low, ci_high."""
    from statsmodels.stats.weightstats import CompareMeans, DescrStatsW
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    compare = CompareMeans(DescrStatsW(a), DescrStatsW(b))
    low, high = compare.tconfint_diff(alpha=alpha, usevar="unequal")
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return {"diff": float(a.mean() - b.mean()), "se": se, "ci_low": float(low), "ci_high": float(high)}


def paired_sample_size(sd_diff: float, delta: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Pairs needed to detect a mean paired difference ``delta`` when the differences have standard
    deviation ``sd_diff`` (two-sided paired t test at ``alpha`` with ``power``; statsmodels)."""
    from statsmodels.stats.power import TTestPower
    if delta == 0:
        raise CursedsimError("a difference of zero cannot be detected")
    if sd_diff <= 0:
        return 2
    n = TTestPower().solve_power(effect_size=abs(delta) / sd_diff, alpha=alpha, power=power,
                                 alternative="two-sided")
    if not math.isfinite(n):   # the solver gives up at extreme settings: the normal approximation
        from scipy.stats import norm
        n = ((norm.isf(alpha / 2) + norm.ppf(power)) * sd_diff / abs(delta)) ** 2
    return int(math.ceil(n))


def holm(p_values) -> np.ndarray:
    """Holm-adjusted p-values (step-down, family-wise error rate) of a family of tests, in the given
    order: a comparison "survives" at level alpha when its adjusted p-value is below alpha. NaN entries
    (no test) stay NaN and do not count towards the family (statsmodels' ``multipletests``)."""
    from statsmodels.stats.multitest import multipletests
    p = np.asarray(p_values, dtype=np.float64).reshape(-1)
    if np.any((p < 0) | (p > 1)):
        raise CursedsimError(f"p-values must lie in 0-1, got {p[(p < 0) | (p > 1)][:3].tolist()}")
    adjusted = np.full(p.shape, np.nan)
    present = ~np.isnan(p)
    if present.any():
        adjusted[present] = multipletests(p[present], method="holm")[1]
    return adjusted


__all__ = ["holm", "infer_sides", "is_exact", "side_rates", "mean_from_sums", "mean_se", "paired_difference",
           "paired_sample_size", "sample_size_for_difference", "se_from_sums", "seat_rates", "summarize",
           "unpaired_difference", "wilson_interval"]
