"""So, You've Been Cursed. (``village``): a Wizard racing up the Cure track against a Monster racing up
the Curse track on a village board, for 2, 1 or 0 players (issue 13).

Foundation only: the game is NOT registered yet (``cursedsim.games`` does not list it). What exists:

- ``rules.py``: the four modes, the sides ``wizard`` and ``monster``, the rule options (``RuleOptions``,
  every point the rulebook leaves open, validated) and the planned outcome columns;
- ``components.py``, ``board.py`` and ``data/default_board.toml``: the component facts and the board
  file (reconstructed default, validator, generator);
- ``cards.py`` and ``data/cards.toml``: the Spell, Power, Possessed Wizard and Rabid Monster cards;
- ``reference.py`` with ``automata.py`` and ``turnlog.py``: the readable engine, so far the 0-player mode
  only (Possessed Wizard against Rabid Monster; its docstring lists what is not yet played).

Every rule, numbered and quoted: docs/rules/village.md (board: docs/rules/village_board.md; cards:
docs/rules/village_cards.md). Still to come: the other three modes, the human-side policies, the numba
kernel, the registry entry, the report.
"""
