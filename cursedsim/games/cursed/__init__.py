"""Cursed!? (Goblin Hour Games, 2023): solo; fight monsters with blackjack-style weapon draws from a deck
that is also your life. Rules and facts: ``rules.py``; the readable engine: ``reference.py``; its
policies: ``reference_policies.py``; everything implemented and assumed: docs/rules/cursed.md.

Not registered as a game yet: the registry entry (``GAME``) comes with the numba kernel.
"""
