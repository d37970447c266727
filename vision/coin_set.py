"""What a piecepack's make-up tells about the coins of one photo: each suit has one coin of each rank (a null, an
ace and 2-5), so a suit whose six coins the frame's sure readings already account for has no coin left to be one of
the frame's blank nulls."""

from __future__ import annotations

from rules.pieces import RANKS


def complete_suits(readings: list[tuple[object, str, int | None]]) -> frozenset:
    """The suits all of whose coins (one per rank of ``RANKS``) are among ``readings``: the (suit, side, rank) of the
    frame's coins read surely (suit known; a suit side's rank None). A suit side may be any of its suit's coins, so a
    suit is complete where its distinct ranks read on value sides and its suit sides together number ``len(RANKS)``:
    then its null is one of them (a value-side null or, by count, a suit side), not a blank null read without a
    suit. Readings of a rank seen twice count once (a doubtful double is no coin more)."""
    ranks: dict = {}
    sides: dict = {}
    for suit, side, rank in readings:
        if suit is None:
            continue
        if side == "suit":
            sides[suit] = sides.get(suit, 0) + 1
        elif rank is not None:
            ranks.setdefault(suit, set()).add(rank)
    return frozenset(suit for suit in set(ranks) | set(sides)
                     if len(ranks.get(suit, ())) + sides.get(suit, 0) >= len(RANKS))
