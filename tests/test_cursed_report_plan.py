"""The Cursed!? report's rule-sensitivity figure plays every reading of every ambiguous rule option
(docs/rules/cursed.md, Rule options) against the default."""

from __future__ import annotations

import dataclasses

from cursedsim.games.cursed import rules
from cursedsim.report.cursed.data import PLAN

#: Options that are not readings of an unclear sentence: a study setting and a way to keep score.
NOT_READINGS = {"starting_item", "play_on_after_win"}
#: Integer options played at the value the text suggests besides the default (the transcription's 4).
INTEGER_READINGS = {"turkey_cards": 4}


def test_every_reading_of_every_ambiguous_option_is_in_the_sensitivity_figure():
    defaults = rules.RuleOptions()
    expected = set()
    for field in dataclasses.fields(rules.RuleOptions):
        default = getattr(defaults, field.name)
        if field.name in NOT_READINGS:
            continue
        if field.name in rules.CHOICES:
            expected |= {(field.name, value) for value in rules.CHOICES[field.name] if value != default}
        elif isinstance(default, bool):
            expected.add((field.name, not default))
        elif field.name in INTEGER_READINGS:
            expected.add((field.name, INTEGER_READINGS[field.name]))
    assert set(PLAN.options) == expected
    assert len(PLAN.options) == len(expected)                       # each once
    for name, value in PLAN.options:                                 # every one a valid non-default value
        assert getattr(defaults, name) != value and rules.RuleOptions(**{name: value})
