"""What a set of pieces leaves possible: each place holds one piece of a known set, some places are read, others
are open between a few readings; which readings can each place still hold?

A piecepack has one of each tile, four coins of each value, five or six coins of each suit in play... When the
photo leaves a place open between readings (``DetectedPiece.could_be``, or anything at all), the other places'
readings may use up all the pieces of some readings: the place then holds what is left. The question is a
bipartite matching (places on one side, the set's pieces on the other, an edge where a place may hold a piece):
a place may hold a reading when some matching puts a piece of that reading there and every other place gets a
piece too. SciPy's Hopcroft-Karp (:func:`scipy.sparse.csgraph.maximum_bipartite_matching`) answers each such
question; the sets are small (at most 24 places and 24 kinds of piece).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

__all__ = ["still_possible"]

H = TypeVar("H", bound=Hashable)


def _matches_all(options: Sequence[frozenset[H]], copies: list[H]) -> bool:
    """Whether every place gets its own piece (a piece of ``copies`` it may hold)."""
    if not options:
        return True
    if len(options) > len(copies):
        return False
    rows, cols = [], []
    for i, allowed in enumerate(options):
        for j, item in enumerate(copies):
            if item in allowed:
                rows.append(i)
                cols.append(j)
    if not rows:
        return False
    graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(len(options), len(copies)))
    matched = maximum_bipartite_matching(graph, perm_type="column")
    return bool(np.all(matched >= 0))


def still_possible(options: Sequence[frozenset[H] | set[H]], supply: Mapping[H, int]) -> list[set[H]] | None:
    """For places each holding one piece of a set with ``supply[h]`` pieces reading ``h`` (at most: some may be
    elsewhere or hidden), where place ``i`` may hold a reading of ``options[i]``: the readings each place holds in
    at least one way of giving every place its own piece. None when there is no such way (the readings
    contradict the set: two places read as the one tile, five aces...).

    Readings not in ``supply`` are impossible. A place whose set has one reading is settled by the others."""
    opts = [frozenset(h for h in o if supply.get(h, 0) > 0) for o in options]
    copies = [h for h, n in supply.items() for _ in range(n)]
    if not _matches_all(opts, copies):
        return None
    out: list[set[H]] = []
    for i, allowed in enumerate(opts):
        if len(allowed) == 1:
            out.append(set(allowed))
            continue
        keep = set()
        for h in allowed:
            fixed = list(opts)
            fixed[i] = frozenset((h,))
            if _matches_all(fixed, copies):
                keep.add(h)
        out.append(keep)
    return out
