"""The compile notice: a slow first game is announced while it runs, with an estimate that the last
compile on this machine sets; a fast one (a cached kernel) shows nothing."""

from __future__ import annotations

import time

import pytest

from cursedsim import compile_notice
from cursedsim.games import get_game


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CURSEDSIM_CACHE", str(tmp_path))
    monkeypatch.setattr(compile_notice, "NOTICE_AFTER", 0.05)
    return tmp_path


def first_estimate(game: str) -> float:
    """What a machine that never compiled ``game`` expects: its record's figure, else the default."""
    figure = get_game(game).compile_estimate
    return compile_notice.DEFAULT_ESTIMATE if figure is None else figure


def test_a_slow_first_game_is_announced_before_it_ends_and_sets_the_next_estimate(cache, capsys):
    assert compile_notice.estimate("verflucht") == first_estimate("verflucht")
    with compile_notice.compiling("verflucht", "baseline"):
        time.sleep(0.3)
        during = capsys.readouterr().err   # written while the body still runs
    after = capsys.readouterr().err
    assert "compiling the verflucht kernel (baseline)" in during and f"~{first_estimate('verflucht'):.0f} s" in during
    assert "compiled the verflucht kernel for policy baseline in 0.3 s" in after
    assert compile_notice.estimate("verflucht") == pytest.approx(0.3, abs=0.1)
    assert compile_notice.estimate("cursed") == first_estimate("cursed")   # per game


def test_a_fast_first_game_or_progress_off_shows_nothing(cache, capsys):
    with compile_notice.compiling("verflucht", "baseline"):
        pass
    with compile_notice.compiling("verflucht", "baseline", enabled=False):
        time.sleep(0.2)
    assert capsys.readouterr().err == ""
    assert not (cache / compile_notice.RECORD_NAME).exists()


def test_a_damaged_record_falls_back_to_the_games_figure(cache):
    (cache / compile_notice.RECORD_NAME).write_text("{not json")
    assert compile_notice.estimate("verflucht") == first_estimate("verflucht")
    compile_notice.record("verflucht", 12.0)
    assert compile_notice.estimate("verflucht") == 12.0


def test_every_built_in_game_has_a_measured_first_estimate_and_an_unknown_name_gets_the_default(cache):
    from cursedsim.games import list_games
    for name in list_games():
        assert get_game(name).compile_estimate is not None, f"{name}: its cold first simulate, compile.json"
        assert compile_notice.estimate(name) == get_game(name).compile_estimate
    assert compile_notice.estimate("no-such-game") == compile_notice.DEFAULT_ESTIMATE
