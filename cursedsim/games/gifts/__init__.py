"""Cursed Gifts (Maudits Cadeaux, issue 12): the foundation only -- the deck file and its validator, the
rule options, the readable reference engine, its policies and turn log. The numba kernel, the registry
entry in ``cursedsim/games/__init__.py``, the report and the benchmark are still to come (issue 12)."""
