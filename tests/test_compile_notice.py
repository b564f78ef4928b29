"""The compile notice: a slow first game is announced while it runs, with an estimate that the last
compile on this machine sets; a fast one (a cached kernel) shows nothing."""

from __future__ import annotations

import time

import pytest

from cursedsim import compile_notice


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CURSEDSIM_CACHE", str(tmp_path))
    monkeypatch.setattr(compile_notice, "NOTICE_AFTER", 0.05)
    return tmp_path


def test_a_slow_first_game_is_announced_before_it_ends_and_sets_the_next_estimate(cache, capsys):
    assert compile_notice.estimate("verflucht") == compile_notice.DEFAULT_ESTIMATE
    with compile_notice.compiling("verflucht", "baseline"):
        time.sleep(0.3)
        during = capsys.readouterr().err   # written while the body still runs
    after = capsys.readouterr().err
    assert "compiling the verflucht kernel (baseline)" in during and f"~{compile_notice.DEFAULT_ESTIMATE:.0f} s" in during
    assert "compiled the verflucht kernel for policy baseline in 0.3 s" in after
    assert compile_notice.estimate("verflucht") == pytest.approx(0.3, abs=0.1)
    assert compile_notice.estimate("cursed") == compile_notice.DEFAULT_ESTIMATE   # per game


def test_a_fast_first_game_or_progress_off_shows_nothing(cache, capsys):
    with compile_notice.compiling("verflucht", "baseline"):
        pass
    with compile_notice.compiling("verflucht", "baseline", enabled=False):
        time.sleep(0.2)
    assert capsys.readouterr().err == ""
    assert not (cache / compile_notice.RECORD_NAME).exists()


def test_a_damaged_record_falls_back_to_the_default(cache):
    (cache / compile_notice.RECORD_NAME).write_text("{not json")
    assert compile_notice.estimate("verflucht") == compile_notice.DEFAULT_ESTIMATE
    compile_notice.record("verflucht", 12.0)
    assert compile_notice.estimate("verflucht") == 12.0
