"""Cursed Gifts (Maudits Cadeaux, issue 12), not yet registered: the deck file and its validator, the
rule options, the readable reference engine with its policies and turn log, and the numba kernel that
plays the same games (tests/test_gifts_differential.py). The registry entry with the focus/field sides,
the report, the experiments and the benchmark are still to come (issue 12)."""
