"""What the determinisations of the card games share: a seeded shuffle of a list and a random deal of
hidden cards into zones with exact capacities (a hand holds n cards, a pile m) that fits what one side
saw (each card's possible zones)."""

from __future__ import annotations

from cursedsim import rng
from cursedsim.errors import RunError


def shuffle(items: list, stream: rng.Stream) -> None:
    """Fisher-Yates in place with ``stream`` (the games' own order of draws: i = n-1 down to 1)."""
    for i in range(len(items) - 1, 0, -1):
        j = stream.below(i + 1)
        items[i], items[j] = items[j], items[i]


def match_zones(cards: list[int], zones: dict[int, int], capacity: dict[int, int], stream: rng.Stream,
                game: str = "") -> dict[int, int]:
    """A random assignment card -> zone bit with each zone's exact ``capacity``, each card inside its
    ``zones`` mask (Kuhn's augmenting paths over the zones' slots, cards and slots in random order); a
    RunError naming ``game`` when no assignment fits (the knowledge would be inconsistent)."""
    slots = [bit for bit, n in capacity.items() for _ in range(n)]
    shuffle(slots, stream)
    order = list(cards)
    shuffle(order, stream)
    owner: list[int | None] = [None] * len(slots)

    def augment(card: int, seen: set[int]) -> bool:
        for i, bit in enumerate(slots):
            if i not in seen and zones[card] & bit:
                seen.add(i)
                if owner[i] is None or augment(owner[i], seen):
                    owner[i] = card
                    return True
        return False

    for card in order:
        if not augment(card, set()):
            raise RunError(f"{game} determinisation: no deal of the hidden cards fits what the agent saw "
                           f"(card {card})")
    return {card: slots[i] for i, card in enumerate(owner)}
