"""What the steppable reference tables share: the rules run as a generator of decisions, and a copy is
the same table rebuilt from its recipe with the same actions applied (so it shares no state)."""

from __future__ import annotations


class ReplayableTable:
    """Mixin of a reference ``Table`` (a dataclass) that keeps ``_game`` (the generator of the rules),
    ``_pending`` (its current decision, None once over), ``_history`` (the actions applied) and
    ``_recipe``: ``("deal", seed, index, players, options, labels)`` or ``("position", kwargs)``, the
    arguments of its ``deal`` or ``from_position`` class methods."""

    def clone(self):
        """An independent copy at the same point (rebuilt from the recipe, the same actions applied)."""
        if self._recipe[0] == "deal":
            _, seed, index, players, options, labels = self._recipe
            copy = type(self).deal(seed, index, players, options, log=self.logging, labels=labels)
        else:
            copy = type(self).from_position(**self._recipe[1])
        for action in self._history:
            copy.apply(action)
        return copy

    def _advance(self, action: int | None) -> None:
        """Send ``action`` to the rules' generator (None: start it) and keep its next decision."""
        try:
            self._pending = self._game.send(action) if action is not None else next(self._game)
        except StopIteration:
            self._pending = None
