"""The step API: every game as a state stepped one decision at a time (api.py), and the driver of
callback-style engines (driven.py)."""
