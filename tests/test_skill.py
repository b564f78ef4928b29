"""The skill curve (cursedsim/skill.py, ``cursedsim ceiling``): contenders on the same games, paired steps,
the x4 extension while the curve still rises, and clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cursedsim import runner, skill
from cursedsim.cli import main
from cursedsim.skill import SkillError, skill_curve


def test_a_small_curve_has_every_heuristic_and_budget_on_the_same_games(tmp_path):
    curve = skill_curve("verflucht", players=3, budgets=(1, 2), games=40, seed=3, extend=False, out=tmp_path)
    table = curve.table
    assert list(table["label"]) == ["random", "baseline", "smart", "rollout:n=1", "rollout:n=2"]
    assert (table["games"] == 40).all()
    best = table[table["label"] == curve.best_heuristic].iloc[0]
    assert best["win_rate"] == table[table["kind"] == "heuristic"]["win_rate"].max()
    assert best["vs_best"] == 0
    assert np.isnan(table.iloc[3]["step"]) and not np.isnan(table.iloc[4]["step"])
    # the runs resume: a second call reads the same games from disk
    again = skill_curve("verflucht", players=3, budgets=(1, 2), games=40, seed=3, extend=False, out=tmp_path)
    pd.testing.assert_frame_equal(again.table.drop(columns="seconds"), table.drop(columns="seconds"))
    skill.write_csv(curve, tmp_path / "skill.csv")
    written = pd.read_csv(tmp_path / "skill.csv")
    assert list(written["label"]) == list(table["label"]) and (written["game"] == "verflucht").all()
    assert "lower bound on skilled play" in curve.summary()


def _fake_simulate(rates):
    """A simulate whose rollout wins game i when i < rate(n) * games: rates by n, heuristics fixed."""
    def simulate(game, n_games, *, policy=None, params=None, **kwargs):
        rate = rates(params["n"]) if policy == "rollout" else {"random": 0.0, "baseline": 0.1, "smart": 0.2}[policy]
        index = np.arange(n_games)
        return pd.DataFrame({"game_index": index, "win": index < round(rate * n_games)})
    return simulate


def test_the_curve_goes_on_while_it_still_rises_and_stops_when_it_saturates(monkeypatch):
    monkeypatch.setattr(runner, "simulate", _fake_simulate(lambda n: min(0.9, 0.2 + 0.1 * np.log2(n))))
    rising = skill_curve("verflucht", budgets=(1, 4), games=2000, max_n=64)
    assert list(rising.table["n"].dropna().astype(int)) == [1, 4, 16, 64] and not rising.saturated
    monkeypatch.setattr(runner, "simulate", _fake_simulate(lambda n: 0.3 if n < 16 else 0.4))
    flat = skill_curve("verflucht", budgets=(1, 4, 16), games=2000, max_n=1024)
    assert list(flat.table["n"].dropna().astype(int)) == [1, 4, 16, 64] and flat.saturated
    assert flat.strongest()["n"] == 16   # the first of the equal best rates


@pytest.mark.parametrize("kwargs, message", [
    ({"side": "town"}, "verflucht has no sides"),
    ({"budgets": (4, 1)}, "budgets must increase"),
    ({"budgets": (0, 4)}, "whole numbers >= 1"),
    ({"games": 1}, "games must be a whole number >= 2"),
    ({"budgets": (1, 4096)}, "max_n (1024) must be at least"),
])
def test_bad_curves_are_refused_with_the_reason(kwargs, message):
    with pytest.raises(SkillError, match=message.replace("(", r"\(").replace(")", r"\)")):
        skill_curve("verflucht", **kwargs)


def test_a_side_without_a_search_names_the_policies_it_has():
    from cursedsim.games import get_game
    for name in ("covens", "village", "gifts", "cursed"):
        game = get_game(name)
        for side in game.side_names or (None,):
            if "rollout" not in game.policies_of(side):
                with pytest.raises(SkillError, match="has no 'rollout' policy yet; policies: "):
                    skill_curve(name, side=side)
                return
    pytest.skip("every game has a rollout")


def test_the_ceiling_command_prints_the_curve(capsys, tmp_path):
    try:
        main(["ceiling", "verflucht", "--games", "20", "--budgets", "1,2", "--max-n", "2", "--out", str(tmp_path)])
        status = 0
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "skill curve, 3 players" in out and "rollout:n=2" in out and "lower bound on skilled play" in out
    assert (tmp_path / "skill.csv").exists()
    try:
        main(["ceiling", "verflucht", "--budgets", "1,x"])
        status = 0
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == 2 and "--budgets takes whole numbers" in err
