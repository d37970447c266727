"""A fast, near-optimal solver for width x width sliding-tile puzzles (the 8-, 15- and 24-puzzle and up to 8x8).

Boards are sequences of tile numbers in row-major order from the top-left, ``0`` for the hole::

    >>> solve([1, 2, 3, 4, 0, 5, 7, 8, 6], [1, 2, 3, 4, 5, 6, 7, 8, 0], 3)
    [5, 6]

:func:`solve` returns the tile numbers slid into the hole, in order. Equal numbers in a goal are
interchangeable tiles (any of them may end on any of those cells). :func:`solve_to_targets` is the general
form used by Easy Slider: every tile number names the *set* of cells it may end on, and the hole takes
whatever cell is left (Easy Slider's nulls go anywhere in the bottom row and so does the hole); it answers
with the cells slid from, since a number does not say which of two equal tiles moves.

How it works, and why it is written here rather than taken from a library: no maintained Python package
solves 24-puzzles near-optimally in well under a second, so this module does it with the standard recipe of
the search literature, compiled with numba:

* **Heuristic: additive disjoint pattern databases** (Korf & Felner 2002). The cells are cut into compact
  blocks of at most five cells (5x5: two 2-row bands of two blocks each, and the bottom row). The tiles
  whose target cells lie in a block form a pattern; a breadth-first search over the positions of just those
  tiles (other cells treated as free, the hole ignored) gives, for every placement, the least number of
  moves *of pattern tiles* needed to bring them home. Such counts of disjoint tile sets add up to a lower
  bound of the real distance. A table is indexed directly by ``sum(pos_i * cells**i)`` (no ranking), costs
  ``cells**k`` bytes (9.8 MB for five tiles on 5x5) and takes about a second to build; tables are kept in
  memory and in a disk cache (see :func:`cache_dir`).
* **Search: weighted IDA*** with the bound on ``g + w*h``, children tried best-first, only the move back
  to the parent pruned. With ``w = 1`` (``optimal=True``) it is plain IDA* and returns optimal solutions
  (practical up to the 15-puzzle); the default uses a few weights in turn within a node budget and keeps
  the shortest solution found, which is within ``w`` times the optimum and in practice a few per cent
  above it (see ``benchmarks/bench_solver.py``).
* **Polish:** loops are cut out of the path, then every window of the path whose end states are within a
  small distance is replaced by an optimal path between them when one is shorter.

Errors: malformed boards raise :class:`rules.base.LayoutError`, unsolvable ones :class:`Unsolvable`; both
have a one-sentence message.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from rules.base import LayoutError, RulesError

__all__ = [
    "Unsolvable",
    "SearchLimit",
    "solve",
    "solve_to_targets",
    "is_solvable",
    "apply_moves",
    "slide_cells",
    "manhattan",
    "cache_dir",
    "MAX_WIDTH",
]

#: Boards kept per depth by the beam search (memory about ``width * (cells + 60)`` bytes per depth).
BEAM_WIDTH = 16384
#: Largest supported width (occupancy of a board is kept in one 64-bit word).
MAX_WIDTH = 8
_UNSEEN = 255
_INF = 1 << 60


class Unsolvable(RulesError):
    """The start cannot reach the goal by sliding: the tile order has the wrong parity for the hole's place."""


class SearchLimit(RulesError):
    """The search gave up within its node budget (only with ``optimal=True`` or a tiny budget)."""


# ---------------------------------------------------------------------------------------------------------------
# Checking and relabelling the input
# ---------------------------------------------------------------------------------------------------------------


def _check_board(board: Sequence[int], width: int, what: str) -> list[int]:
    if not isinstance(width, int) or isinstance(width, bool) or not 2 <= width <= MAX_WIDTH:
        raise LayoutError(f"the width of a sliding puzzle must be an integer from 2 to {MAX_WIDTH}, not {width!r}")
    try:
        cells = [int(x) for x in board]
    except (TypeError, ValueError):
        raise LayoutError(f"the {what} board must be a sequence of tile numbers (0 for the hole)") from None
    if len(cells) != width * width:
        raise LayoutError(f"the {what} board has {len(cells)} cells but a {width}x{width} puzzle has {width * width}")
    holes = cells.count(0)
    if holes != 1:
        raise LayoutError(f"the {what} board must have exactly one hole (0), it has {holes}")
    if any(c < 0 for c in cells):
        raise LayoutError(f"the {what} board has a negative tile number")
    return cells


def _permutation_parity(perm: Sequence[int]) -> int:
    seen = [False] * len(perm)
    parity = 0
    for i in range(len(perm)):
        length = 0
        j = i
        while not seen[j]:
            seen[j] = True
            j = perm[j]
            length += 1
        if length:
            parity ^= (length - 1) & 1
    return parity


def _concrete_solvable(start: Sequence[int], goal: Sequence[int], width: int) -> bool:
    """Parity test for a start and a goal that hold the same *distinct* tiles (0 = hole).

    A slide swaps the hole with a neighbour: it flips the parity of the arrangement (as a permutation of all
    cells, hole included) and moves the hole by one step. So the permutation parity must equal the parity
    of the hole's taxicab distance between start and goal.
    """
    where = {t: i for i, t in enumerate(goal)}
    perm = [where[t] for t in start]
    hs, hg = start.index(0), goal.index(0)
    dist = abs(hs // width - hg // width) + abs(hs % width - hg % width)
    return _permutation_parity(perm) == dist & 1


@dataclass(frozen=True)
class _Problem:
    """A puzzle relabelled for the search: tile k (0..T-1) sits on ``cells`` and may end on ``targets[k]``."""

    width: int
    cells: tuple[int, ...]  # tile index per cell, -1 for the hole
    labels: tuple[int, ...]  # the caller's number of tile k
    targets: tuple[frozenset[int], ...]


def _make_problem(start: Sequence[int], targets: Mapping[int, Iterable[int]], width: int) -> _Problem:
    cells = _check_board(start, width, "start")
    n = width * width
    wanted: dict[int, frozenset[int]] = {}
    for label, where in targets.items():
        cell_set = frozenset(int(c) for c in where)
        if int(label) == 0:
            raise LayoutError("the hole (0) takes whatever cell is left: give targets for tiles only")
        if not cell_set or any(not 0 <= c < n for c in cell_set):
            raise LayoutError(f"tile {label} needs target cells between 0 and {n - 1}")
        wanted[int(label)] = cell_set
    counts: dict[int, int] = {}
    for c in cells:
        if c:
            counts[c] = counts.get(c, 0) + 1
    for label, count in sorted(counts.items()):
        if label not in wanted:
            raise LayoutError(f"tile {label} is on the start board but not in the goal")
        if len(wanted[label]) < count:
            raise LayoutError(f"there are {count} tiles {label} but only {len(wanted[label])} cells for them")
    for label in wanted:
        if label not in counts:
            raise LayoutError(f"tile {label} is in the goal but not on the start board")
    labels_sorted = sorted(wanted)
    for a, b in itertools.combinations(labels_sorted, 2):
        if wanted[a] & wanted[b]:
            raise LayoutError(f"tiles {a} and {b} are given the same target cell {min(wanted[a] & wanted[b])}")
    tile_cells: list[int] = []
    labels: list[int] = []
    targets_k: list[frozenset[int]] = []
    for cell, label in enumerate(cells):
        if label:
            tile_cells.append(cell)
            labels.append(label)
            targets_k.append(wanted[label])
    board = [-1] * n
    for k, cell in enumerate(tile_cells):
        board[cell] = k
    return _Problem(width, tuple(board), tuple(labels), tuple(targets_k))


def _targets_solvable(problem: _Problem) -> bool:
    """Whether some goal allowed by the target sets is reachable (see :func:`_concrete_solvable`)."""
    labels = problem.labels
    width = problem.width
    by_label: dict[int, list[int]] = {}
    for k, label in enumerate(labels):
        by_label.setdefault(label, []).append(k)
    if any(len(ks) >= 2 for ks in by_label.values()):
        return True  # swapping two equal tiles flips the parity without moving anything else
    start = [0 if k < 0 else k + 1 for k in problem.cells]
    # Every tile is unique: the goals differ only in which spare target cell each tile takes, which moves
    # the hole. Try them all (few: only labels with more cells than tiles have a choice).
    choices = [sorted(problem.targets[k]) for k in range(len(labels))]
    tried = 0
    for pick in itertools.product(*choices):
        if len(set(pick)) < len(pick):
            continue
        goal = [0] * (width * width)
        for k, cell in enumerate(pick):
            goal[cell] = k + 1
        if _concrete_solvable(start, goal, width):
            return True
        tried += 1
        if tried > 5000:
            break
    return False


# ---------------------------------------------------------------------------------------------------------------
# Pattern databases
# ---------------------------------------------------------------------------------------------------------------


def _neighbours(width: int) -> tuple[np.ndarray, np.ndarray]:
    n = width * width
    nb = np.full((n, 4), -1, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    for c in range(n):
        r, col = divmod(c, width)
        for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
            rr, cc = r + dr, col + dc
            if 0 <= rr < width and 0 <= cc < width:
                nb[c, count[c]] = rr * width + cc
                count[c] += 1
    return nb, count


@njit(cache=True)
def _build_pdb(n_cells, k, sources, nb, nb_count):  # pragma: no cover - compiled
    """Breadth-first search over placements of ``k`` pattern tiles, from every goal placement in ``sources``.

    ``sources[s, i]`` is the cell of pattern tile i in goal placement s (several when tiles are interchangeable
    or have spare target cells). Entry ``sum(pos[i] * n_cells**i)`` of the result holds the least number of
    pattern-tile moves from that placement to a goal placement (other cells count as free); impossible
    entries (two tiles on one cell) stay 255. The queue holds placements packed six bits a tile, so that no
    division is needed to decode them.
    """
    size = n_cells**k
    pdb = np.full(size, 255, dtype=np.uint8)
    mult = np.ones(k, dtype=np.int64)
    for i in range(1, k):
        mult[i] = mult[i - 1] * n_cells
    n_states = 1
    for i in range(k):
        n_states *= n_cells - i
    queue = np.empty(n_states, dtype=np.int32)
    head = 0
    tail = 0
    for s in range(sources.shape[0]):
        idx = 0
        packed = 0
        for i in range(k):
            idx += sources[s, i] * mult[i]
            packed |= sources[s, i] << (6 * i)
        if pdb[idx] == 255:
            pdb[idx] = 0
            queue[tail] = packed
            tail += 1
    pos = np.empty(k, dtype=np.int64)
    while head < tail:
        packed = np.int64(queue[head])
        head += 1
        idx = 0
        occ = np.int64(0)
        for i in range(k):
            p = (packed >> (6 * i)) & 63
            pos[i] = p
            idx += p * mult[i]
            occ |= np.int64(1) << p
        d = pdb[idx] + 1
        for i in range(k):
            p = pos[i]
            for j in range(nb_count[p]):
                q = nb[p, j]
                if (occ & (np.int64(1) << q)) != 0:
                    continue
                nidx = idx + (q - p) * mult[i]
                if pdb[nidx] == 255:
                    pdb[nidx] = d
                    queue[tail] = packed + ((q - p) << (6 * i))
                    tail += 1
    return pdb


def _goal_placements(pattern: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """Every placement of the pattern's tiles on distinct cells of their target sets."""
    rows = [pick for pick in itertools.product(*pattern) if len(set(pick)) == len(pick)]
    return np.array(rows, dtype=np.int64).reshape(len(rows), len(pattern))


def cache_dir() -> Path | None:
    """Where pattern databases are cached between runs: ``$TABLESIDE_CACHE_DIR/sliding``, else
    ``$XDG_CACHE_HOME/tableside/sliding``, else ``~/.cache/tableside/sliding``. None disables the disk cache
    (set ``TABLESIDE_CACHE_DIR`` to an empty string)."""
    root = os.environ.get("TABLESIDE_CACHE_DIR")
    if root is not None:
        return Path(root) / "sliding" if root else None
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "tableside" / "sliding"


_PDB_MEMORY: dict[tuple, np.ndarray] = {}
_PDB_VERSION = 2


def _pattern_db(width: int, pattern: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """The table of one pattern (a tuple of target-cell tuples, one per tile), from memory, disk or built."""
    key = (width, pattern)
    table = _PDB_MEMORY.get(key)
    if table is not None:
        return table
    name = hashlib.sha1(repr((_PDB_VERSION, key)).encode()).hexdigest()[:20]
    folder = cache_dir()
    path = folder / f"pdb-{width}x{width}-{len(pattern)}-{name}.npz" if folder else None
    if path is not None and path.exists():
        try:
            with np.load(path) as data:
                table = data["pdb"]
            if table.shape != ((width * width) ** len(pattern),):
                table = None
        except (OSError, ValueError, KeyError):
            table = None
    if table is None:
        nb, count = _neighbours(width)
        table = _build_pdb(width * width, len(pattern), _goal_placements(pattern), nb, count)
        if path is not None:
            _save_quietly(path, table)
    _PDB_MEMORY[key] = table
    return table


def _save_quietly(path: Path, table: np.ndarray) -> None:
    """Write atomically (temp file then rename) so that parallel test workers never read half a file; a cache
    that cannot be written is only slower, never an error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp.npz")
        os.close(fd)
        np.savez_compressed(tmp, pdb=table)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)  # type: ignore[possibly-undefined]
        except (OSError, UnboundLocalError):
            pass


def _blocks(width: int, k: int) -> list[list[int]]:
    """Compact blocks of at most ``k`` cells: bands of two rows, each cut column by column into nearly equal
    chunks (a 2x2 or 2x2+1 block keeps the tiles that interfere most, neighbours, in one pattern)."""
    blocks: list[list[int]] = []
    for top in range(0, width, 2):
        rows = [r for r in (top, top + 1) if r < width]
        band = [r * width + c for c in range(width) for r in rows]
        parts = -(-len(band) // k)
        size = -(-len(band) // parts)
        for i in range(0, len(band), size):
            blocks.append(band[i : i + size])
    return blocks


def _pattern_size(width: int) -> int:
    """Tiles per pattern: five on 5x5 (9.8 MB tables), fewer on bigger boards to keep tables small."""
    n = width * width
    k = 1
    while k < 5 and n ** (k + 1) <= 10_000_000:
        k += 1
    return k


@dataclass(frozen=True)
class _Heuristic:
    tile_group: np.ndarray  # int64[T]
    tile_mult: np.ndarray  # int64[T]
    group_off: np.ndarray  # int64[G]
    pdb: np.ndarray  # uint8, all tables end to end


_HEURISTICS: dict[tuple, _Heuristic] = {}


def _heuristic(problem: _Problem) -> _Heuristic:
    width = problem.width
    n = width * width
    k = _pattern_size(width)
    block_of = {}
    for b, cells in enumerate(_blocks(width, k)):
        for c in cells:
            block_of[c] = b
    members: dict[int, list[int]] = {}
    for t, cells in enumerate(problem.targets):
        members.setdefault(block_of[min(cells)], []).append(t)
    groups: list[list[int]] = []
    for b in sorted(members):
        ts = sorted(members[b], key=lambda t: (sorted(problem.targets[t]), t))
        for i in range(0, len(ts), k):
            groups.append(ts[i : i + k])
    patterns = [tuple(tuple(sorted(problem.targets[t])) for t in g) for g in groups]
    key = (width, tuple(patterns))
    cached = _HEURISTICS.get(key)
    tile_group = np.zeros(len(problem.targets), dtype=np.int64)
    tile_mult = np.zeros(len(problem.targets), dtype=np.int64)
    for gi, g in enumerate(groups):
        for slot, t in enumerate(g):
            tile_group[t] = gi
            tile_mult[t] = n**slot
    if cached is None:
        tables = [_pattern_db(width, p) for p in patterns]
        offsets = np.cumsum([0] + [len(t) for t in tables[:-1]]).astype(np.int64)
        flat = np.concatenate(tables)
        # Keep each table once: the memory cache now points into the concatenated copy.
        for p, off, table in zip(patterns, offsets, tables, strict=True):
            _PDB_MEMORY[(width, p)] = flat[off : off + len(table)]
        cached = _Heuristic(tile_group, tile_mult, offsets, flat)
        if len(_HEURISTICS) > 8:
            _HEURISTICS.clear()
        _HEURISTICS[key] = cached
    # Tile numbering depends on where the tiles start, the tables only on the pattern: re-map per problem.
    return _Heuristic(tile_group, tile_mult, cached.group_off, cached.pdb)


# ---------------------------------------------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------------------------------------------


@njit(cache=True)
def _wida(cells, tile_group, tile_mult, group_off, pdb, nb, nb_count, wnum, wden, max_nodes, max_depth):  # noqa: E501  # pragma: no cover
    """Weighted IDA*: depth-first with a bound on ``wden*g + wnum*h``, raised to the least excess each round.

    ``cells`` holds tile indices (-1 = hole) and is modified in place. Returns ``(length, nodes, path)``:
    ``path[0..length]`` are the hole's cells along the solution; length -1 = budget spent, -2 = bound.
    """
    n = cells.shape[0]
    n_groups = group_off.shape[0]
    idx = np.zeros(n_groups, dtype=np.int64)
    hole = 0
    for c in range(n):
        t = cells[c]
        if t < 0:
            hole = c
        else:
            idx[tile_group[t]] += c * tile_mult[t]
    h0 = 0
    for g in range(n_groups):
        h0 += pdb[group_off[g] + idx[g]]
    path = np.zeros(max_depth + 1, dtype=np.int64)
    path[0] = hole
    if h0 == 0:
        return 0, 0, path
    child_pos = np.zeros((max_depth + 1, 4), dtype=np.int64)
    child_h = np.zeros((max_depth + 1, 4), dtype=np.int64)
    n_child = np.zeros(max_depth + 1, dtype=np.int64)
    next_child = np.zeros(max_depth + 1, dtype=np.int64)
    h_at = np.zeros(max_depth + 1, dtype=np.int64)
    nodes = 0
    bound = wnum * h0
    while True:
        next_bound = _INF
        depth = 0
        h_at[0] = h0
        n_child[0] = -1  # children not generated yet
        while depth >= 0:
            blank = path[depth]
            if n_child[depth] < 0:
                # Generate and sort the children of this node by their heuristic (best first).
                m = 0
                for j in range(nb_count[blank]):
                    q = nb[blank, j]
                    if depth > 0 and q == path[depth - 1]:
                        continue
                    t = cells[q]
                    g = tile_group[t]
                    old = idx[g]
                    new = old + (blank - q) * tile_mult[t]
                    nh = h_at[depth] - pdb[group_off[g] + old] + pdb[group_off[g] + new]
                    i = m
                    while i > 0 and child_h[depth, i - 1] > nh:
                        child_h[depth, i] = child_h[depth, i - 1]
                        child_pos[depth, i] = child_pos[depth, i - 1]
                        i -= 1
                    child_h[depth, i] = nh
                    child_pos[depth, i] = q
                    m += 1
                n_child[depth] = m
                next_child[depth] = 0
            if next_child[depth] < n_child[depth] and depth < max_depth:
                i = next_child[depth]
                next_child[depth] = i + 1
                q = child_pos[depth, i]
                nh = child_h[depth, i]
                nodes += 1
                f = wden * (depth + 1) + wnum * nh
                if f > bound:
                    if f < next_bound:
                        next_bound = f
                    continue
                t = cells[q]
                g = tile_group[t]
                idx[g] += (blank - q) * tile_mult[t]
                cells[blank] = t
                cells[q] = -1
                depth += 1
                path[depth] = q
                h_at[depth] = nh
                n_child[depth] = -1
                if nh == 0:
                    return depth, nodes, path
                if nodes > max_nodes:
                    return -1, nodes, path
            else:
                # Undo the move that led here.
                if depth == 0:
                    break
                prev = path[depth - 1]
                t = cells[prev]
                g = tile_group[t]
                idx[g] += (blank - prev) * tile_mult[t]
                cells[blank] = t
                cells[prev] = -1
                depth -= 1
        if next_bound >= _INF:
            return -2, nodes, path
        bound = next_bound


def _cut_loops(cells: Sequence[int], hole_path: list[int]) -> list[int]:
    """Remove every stretch of the path that comes back to a board already seen."""
    board = list(cells)
    states = [tuple(board)]
    first_seen = {states[0]: 0}
    out = [hole_path[0]]
    for a, b in itertools.pairwise(hole_path):
        board[a], board[b] = board[b], -1
        key = tuple(board)
        if key in first_seen:
            i = first_seen[key]
            for s in states[i + 1 :]:
                del first_seen[s]
            del states[i + 1 :]
            del out[i + 1 :]
        else:
            first_seen[key] = len(states)
            states.append(key)
            out.append(b)
    return out


@njit(cache=True)
def _beam(cells0, tile_group, tile_mult, group_off, pdb, md, nb, nb_count, zob, width_b, max_depth, tbits):  # noqa: C901, E501  # pragma: no cover
    """Beam search: breadth-first, keeping at each depth the ``width_b`` boards of least heuristic.

    All boards of one depth have the same cost so far, so ranking them by ``h`` alone ranks them by ``g + h``;
    ties are broken by the Manhattan distance (``md[t, c]``: distance of tile t on cell c to its targets),
    which gains about one per cent in length for nothing. Boards met before (any depth) are skipped through a
    table of 64-bit Zobrist keys (``2**tbits`` slots, filled at most half). ``par_log``/``hole_log`` record
    each kept board's parent and hole cell, to read the path back. Returns ``(index of the goal board in the
    last layer or -1, depth, par_log, hole_log)``.
    """
    n = cells0.shape[0]
    n_groups = group_off.shape[0]
    cur = np.empty((width_b, n), dtype=np.int8)
    nxt = np.empty((width_b, n), dtype=np.int8)
    cur_idx = np.empty((width_b, n_groups), dtype=np.int64)
    nxt_idx = np.empty((width_b, n_groups), dtype=np.int64)
    cur_h = np.empty(width_b, dtype=np.int32)
    nxt_h = np.empty(width_b, dtype=np.int32)
    cur_md = np.empty(width_b, dtype=np.int32)
    nxt_md = np.empty(width_b, dtype=np.int32)
    cur_key = np.empty(width_b, dtype=np.uint64)
    nxt_key = np.empty(width_b, dtype=np.uint64)
    cur_blank = np.empty(width_b, dtype=np.int32)
    nxt_blank = np.empty(width_b, dtype=np.int32)
    m_cap = 4 * width_b
    cand_par = np.empty(m_cap, dtype=np.int32)
    cand_q = np.empty(m_cap, dtype=np.int32)
    cand_h = np.empty(m_cap, dtype=np.int32)
    cand_md = np.empty(m_cap, dtype=np.int32)
    par_log = np.empty((max_depth + 1, width_b), dtype=np.int32)
    hole_log = np.empty((max_depth + 1, width_b), dtype=np.int8)
    tsize = 1 << tbits
    seen = np.zeros(tsize, dtype=np.uint64)
    filled = 0
    key = np.uint64(0)
    blank0 = 0
    h = 0
    dist = 0
    for g in range(n_groups):
        cur_idx[0, g] = 0
    for c in range(n):
        cur[0, c] = cells0[c]
        t = cells0[c]
        if t >= 0:
            cur_idx[0, tile_group[t]] += c * tile_mult[t]
            key ^= zob[t, c]
            dist += md[t, c]
        else:
            blank0 = c
    for g in range(n_groups):
        h += pdb[group_off[g] + cur_idx[0, g]]
    cur_h[0] = h
    cur_md[0] = dist
    cur_key[0] = key | np.uint64(1)
    cur_blank[0] = blank0
    hole_log[0, 0] = blank0
    par_log[0, 0] = -1
    if h == 0:
        return 0, 0, par_log, hole_log
    size = 1
    hist_h = np.zeros(256, dtype=np.int64)
    hist_md = np.zeros(4096, dtype=np.int64)
    for depth in range(1, max_depth + 1):
        m = 0
        hist_h[:] = 0
        for i in range(size):
            blank = cur_blank[i]
            for j in range(nb_count[blank]):
                q = nb[blank, j]
                t = cur[i, q]
                g = tile_group[t]
                old = cur_idx[i, g]
                new = old + (blank - q) * tile_mult[t]
                nh = cur_h[i] - pdb[group_off[g] + old] + pdb[group_off[g] + new]
                cand_par[m] = i
                cand_q[m] = q
                cand_h[m] = nh
                cand_md[m] = min(cur_md[i] - md[t, q] + md[t, blank], 4095)
                hist_h[nh] += 1
                m += 1
        # Threshold on h, then on the Manhattan distance among the boards at that h.
        below = 0
        thr = 0
        while thr < 255 and below + hist_h[thr] < width_b:
            below += hist_h[thr]
            thr += 1
        hist_md[:] = 0
        for k in range(m):
            if cand_h[k] == thr:
                hist_md[cand_md[k]] += 1
        thr_md = 0
        while thr_md < 4095 and below + hist_md[thr_md] < width_b:
            below += hist_md[thr_md]
            thr_md += 1
        new_size = 0
        # Two passes: boards below the thresholds first, then ties, so that ties never crowd out better boards.
        for pass_ in range(2):
            for k in range(m):
                if new_size >= width_b:
                    break
                hk = cand_h[k]
                mk = cand_md[k]
                better = hk < thr or (hk == thr and mk < thr_md)
                if pass_ == 0 and not better:
                    continue
                if pass_ == 1 and not (hk == thr and mk == thr_md):
                    continue
                i = cand_par[k]
                q = cand_q[k]
                blank = cur_blank[i]
                t = cur[i, q]
                nkey = (cur_key[i] ^ zob[t, q] ^ zob[t, blank]) | np.uint64(1)
                slot = np.int64((nkey >> np.uint64(1)) & np.uint64(tsize - 1))
                dup = False
                while seen[slot] != 0:
                    if seen[slot] == nkey:
                        dup = True
                        break
                    slot = (slot + 1) & (tsize - 1)
                if dup:
                    continue
                if 2 * filled < tsize:
                    seen[slot] = nkey
                    filled += 1
                for c in range(n):
                    nxt[new_size, c] = cur[i, c]
                nxt[new_size, blank] = t
                nxt[new_size, q] = -1
                for gg in range(n_groups):
                    nxt_idx[new_size, gg] = cur_idx[i, gg]
                nxt_idx[new_size, tile_group[t]] += (blank - q) * tile_mult[t]
                nxt_h[new_size] = hk
                nxt_md[new_size] = mk
                nxt_key[new_size] = nkey
                nxt_blank[new_size] = q
                par_log[depth, new_size] = i
                hole_log[depth, new_size] = q
                new_size += 1
                if hk == 0:
                    return new_size - 1, depth, par_log, hole_log
        if new_size == 0:
            return -1, depth, par_log, hole_log
        cur, nxt = nxt, cur
        cur_idx, nxt_idx = nxt_idx, cur_idx
        cur_h, nxt_h = nxt_h, cur_h
        cur_md, nxt_md = nxt_md, cur_md
        cur_key, nxt_key = nxt_key, cur_key
        cur_blank, nxt_blank = nxt_blank, cur_blank
        size = new_size
    return -1, max_depth, par_log, hole_log


@njit(cache=True)
def _ida_between(a, b, width, nb, nb_count, limit, max_nodes, path):  # pragma: no cover - compiled
    """IDA* with Manhattan distance from board ``a`` to board ``b`` (tile indices, -1 = hole), looking only for
    paths shorter than ``limit``. Returns ``(length, nodes)`` with the hole's cells in ``path``; length -1 when
    there is none shorter or the budget ran out."""
    n = a.shape[0]
    goal_pos = np.empty(n, dtype=np.int64)
    for c in range(n):
        if b[c] >= 0:
            goal_pos[b[c]] = c
    cells = a.copy()
    h0 = 0
    hole = 0
    for c in range(n):
        t = cells[c]
        if t < 0:
            hole = c
        else:
            g = goal_pos[t]
            h0 += abs(c // width - g // width) + abs(c % width - g % width)
    path[0] = hole
    if h0 == 0:
        return 0, 0
    next_child = np.zeros(limit + 1, dtype=np.int64)
    h_at = np.zeros(limit + 1, dtype=np.int64)
    nodes = 0
    bound = h0
    while bound < limit:
        next_bound = 1 << 30
        depth = 0
        h_at[0] = h0
        next_child[0] = 0
        while depth >= 0:
            blank = path[depth]
            if next_child[depth] < nb_count[blank]:
                j = next_child[depth]
                next_child[depth] = j + 1
                q = nb[blank, j]
                if depth > 0 and q == path[depth - 1]:
                    continue
                t = cells[q]
                g = goal_pos[t]
                d_old = abs(q // width - g // width) + abs(q % width - g % width)
                d_new = abs(blank // width - g // width) + abs(blank % width - g % width)
                nh = h_at[depth] - d_old + d_new
                nodes += 1
                f = depth + 1 + nh
                if f > bound:
                    if f < next_bound:
                        next_bound = f
                    continue
                cells[blank] = t
                cells[q] = -1
                depth += 1
                path[depth] = q
                h_at[depth] = nh
                next_child[depth] = 0
                if nh == 0:
                    return depth, nodes
                if nodes > max_nodes:
                    return -1, nodes
            else:
                if depth == 0:
                    break
                prev = path[depth - 1]
                cells[blank] = cells[prev]
                cells[prev] = -1
                depth -= 1
        bound = next_bound
    return -1, nodes


def _run_search(problem: _Problem, heur: _Heuristic, weight: tuple[int, int], max_nodes: int,
                cells: Sequence[int] | None = None, max_depth: int = 2000) -> list[int] | None:
    """Weighted IDA* from ``cells`` (default: the start): hole cells along a solution, or None (budget/bound)."""
    nb, count = _neighbours(problem.width)
    board = np.array(problem.cells if cells is None else cells, dtype=np.int64)
    wnum, wden = weight
    length, _nodes, path = _wida(
        board, heur.tile_group, heur.tile_mult, heur.group_off, heur.pdb, nb, count, wnum, wden, max_nodes, max_depth
    )
    if length < 0:
        return None
    return [int(c) for c in path[: length + 1]]


def _zobrist(n: int) -> np.ndarray:
    rng = np.random.default_rng(20030309)  # fixed: the search must be deterministic
    return rng.integers(0, 2**63, size=(n, n), dtype=np.int64).astype(np.uint64)


def _run_beam(problem: _Problem, heur: _Heuristic, beam_width: int) -> list[int] | None:
    """Beam search: hole cells along a solution, or None if the beam found none within its depth limit."""
    nb, count = _neighbours(problem.width)
    n = problem.width * problem.width
    max_depth = max(400, 12 * n)
    tbits = max(16, min(26, int(np.ceil(np.log2(beam_width * 256)))))
    board = np.array(problem.cells, dtype=np.int8)
    md = np.zeros((len(problem.targets), n), dtype=np.int64)
    for t, cells in enumerate(problem.targets):
        for c in range(n):
            md[t, c] = min(abs(c // problem.width - g // problem.width) + abs(c % problem.width - g % problem.width)
                           for g in cells)
    last, depth, par_log, hole_log = _beam(
        board, heur.tile_group, heur.tile_mult, heur.group_off, heur.pdb, md, nb, count, _zobrist(n), beam_width,
        max_depth, tbits,
    )
    if last < 0:
        return None
    holes = []
    i = last
    for d in range(depth, -1, -1):
        holes.append(int(hole_log[d, i]))
        i = int(par_log[d, i])
    return holes[::-1]


def _boards_along(cells: Sequence[int], hole_path: Sequence[int]) -> list[np.ndarray]:
    board = list(cells)
    out = [np.array(board, dtype=np.int64)]
    for a, b in itertools.pairwise(hole_path):
        board[a], board[b] = board[b], -1
        out.append(np.array(board, dtype=np.int64))
    return out


def _optimal_ending(problem: _Problem, heur: _Heuristic, path: list[int], budget: int) -> list[int]:
    """Replace the end of the path by a shortest one, going back from the goal while the optimal search stays
    cheap (the pattern databases are accurate near the goal); a short path is made optimal as a whole."""
    nb, count = _neighbours(problem.width)
    boards = _boards_along(problem.cells, path)
    best = path
    remaining = min(16, len(best) - 1)
    spent = 0
    while remaining > 0 and spent < budget:
        k = len(best) - 1 - remaining
        board = boards[k].copy()
        length, nodes, tail = _wida(board, heur.tile_group, heur.tile_mult, heur.group_off, heur.pdb, nb, count,
                                    1, 1, min(budget - spent, budget // 4), remaining)
        spent += nodes
        if length == -1:
            break  # too expensive from here on
        if 0 <= length < remaining:
            best = best[:k] + [int(c) for c in tail[: length + 1]]
            boards = _boards_along(problem.cells, best)
        if k == 0:
            break
        remaining = min(len(best) - 1 - k + 8, len(best) - 1)
    return best


def _smooth(problem: _Problem, path: list[int], budget: int) -> list[int]:
    """Replace windows of the path by shortest paths between their end boards (IDA* with Manhattan distance to the
    window's last board), small windows first."""
    width = problem.width
    nb, count = _neighbours(width)
    spent = 0
    for window in (12, 20, 28, 36):
        scratch = np.zeros(window + 2, dtype=np.int64)
        boards = _boards_along(problem.cells, path)
        i = 0
        while i < len(path) - 1 and spent < budget:
            j = min(i + window, len(path) - 1)
            length, nodes = _ida_between(boards[i], boards[j], width, nb, count, j - i,
                                         min(budget - spent, budget // 20), scratch)
            spent += nodes
            if 0 <= length < j - i:
                path = path[:i] + [int(c) for c in scratch[: length + 1]] + path[j + 1 :]
                boards = _boards_along(problem.cells, path)
                i = max(0, i - window // 2)
                continue
            i += max(1, window // 4)
    return path


def _solve_problem(problem: _Problem, optimal: bool, max_nodes: int | None, beam_width: int) -> list[int]:
    """Cells slid from along a good (or, with ``optimal``, a shortest) solution."""
    heur = _heuristic(problem)
    if optimal:
        path = _run_search(problem, heur, (1, 1), max_nodes or 10**12, max_depth=1000)
        if path is None:
            raise SearchLimit("the optimal search ran out of its node budget; try optimal=False")
        return path[1:]
    path = None
    if problem.width <= 4:
        # Small boards: an optimal search usually finishes at once.
        path = _run_search(problem, heur, (1, 1), 2_000_000, max_depth=1000)
        if path is not None:
            return path[1:]
    path = _run_beam(problem, heur, beam_width)
    if path is None:
        path = _run_search(problem, heur, (8, 1), 10**10)  # very greedy: always finishes quickly
        if path is None:
            raise SearchLimit("the solver ran out of its node budget")
    path = _cut_loops(problem.cells, path)
    path = _optimal_ending(problem, heur, path, 8_000_000)
    path = _smooth(problem, path, 10_000_000)
    return _cut_loops(problem.cells, path)[1:]


# ---------------------------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------------------------


def solve_to_targets(
    start: Sequence[int],
    targets: Mapping[int, Iterable[int]],
    width: int,
    *,
    optimal: bool = False,
    max_nodes: int | None = None,
    beam_width: int = BEAM_WIDTH,
) -> list[int]:
    """The cells to slide from, in order (each move slides the tile on that cell into the hole), so that every
    tile of ``start`` ends on one of its target cells.

    ``start`` lists the tile numbers in row-major order from the top-left, ``0`` for the hole; a number may
    appear several times (interchangeable tiles — which is why moves are given as cells, not numbers).
    ``targets`` maps each number to the cells (row-major indices) its tiles may end on; these sets must not
    overlap. The hole ends on whatever cell is left. ``optimal=True`` returns a shortest solution (practical
    up to 4x4); otherwise a near-optimal one, fast. Raises :class:`rules.base.LayoutError` for malformed input
    and :class:`Unsolvable` when no allowed goal is reachable. Replay with :func:`slide_cells`.
    """
    problem = _make_problem(start, targets, width)
    if not _targets_solvable(problem):
        raise Unsolvable("this puzzle cannot be solved: the tiles are in an odd order for the hole's place (parity)")
    return _solve_problem(problem, optimal, max_nodes, beam_width)


def _goal_targets(goal: Sequence[int], width: int) -> dict[int, set[int]]:
    targets: dict[int, set[int]] = {}
    for cell, label in enumerate(goal):
        if label:
            targets.setdefault(label, set()).add(cell)
    return targets


def solve(
    start: Sequence[int],
    goal: Sequence[int],
    width: int,
    *,
    optimal: bool = False,
    max_nodes: int | None = None,
    beam_width: int = BEAM_WIDTH,
) -> list[int]:
    """Tile numbers to slide, in order, to turn ``start`` into ``goal`` (both row-major, 0 = the hole).

    With equal numbers (interchangeable tiles) a number may not say which tile moves: use
    :func:`solve_to_targets`, which answers with cells.

    Near-optimal by default (weighted IDA* over additive pattern databases: on the 24-puzzle typically a few
    per cent above the optimum, in a fraction of a second); ``optimal=True`` for a shortest solution (fine on
    3x3 and most 4x4). Raises :class:`rules.base.LayoutError` for malformed boards (wrong size, no or two
    holes, tiles that differ between start and goal) and :class:`Unsolvable` for the wrong parity.
    """
    start_cells = _check_board(start, width, "start")
    goal_cells = _check_board(goal, width, "goal")
    if sorted(start_cells) != sorted(goal_cells):
        raise LayoutError("the start and the goal must hold the same tiles")
    targets = _goal_targets(goal_cells, width)
    cells = solve_to_targets(start_cells, targets, width, optimal=optimal, max_nodes=max_nodes, beam_width=beam_width)
    return _cells_to_tiles(start_cells, cells)


def _cells_to_tiles(board: list[int], cells: Iterable[int]) -> list[int]:
    board = list(board)
    tiles = []
    hole = board.index(0)
    for cell in cells:
        tiles.append(board[cell])
        board[hole], board[cell] = board[cell], 0
        hole = cell
    return tiles


def is_solvable(start: Sequence[int], goal: Sequence[int], width: int) -> bool:
    """Whether ``goal`` can be reached from ``start`` (the parity test; equal numbers are interchangeable)."""
    start_cells = _check_board(start, width, "start")
    goal_cells = _check_board(goal, width, "goal")
    if sorted(start_cells) != sorted(goal_cells):
        raise LayoutError("the start and the goal must hold the same tiles")
    return _targets_solvable(_make_problem(start_cells, _goal_targets(goal_cells, width), width))


def apply_moves(board: Sequence[int], moves: Iterable[int], width: int) -> list[int]:
    """Replay tile numbers slid into the hole; raises LayoutError if a tile is not next to the hole."""
    cells = _check_board(board, width, "start")
    for step, tile in enumerate(moves, start=1):
        hole = cells.index(0)
        r, c = divmod(hole, width)
        for q in (hole - width if r > 0 else -1, hole + width if r < width - 1 else -1,
                  hole - 1 if c > 0 else -1, hole + 1 if c < width - 1 else -1):
            if q >= 0 and cells[q] == tile:
                cells[hole], cells[q] = tile, 0
                break
        else:
            raise LayoutError(f"move {step}: tile {tile} is not next to the hole")
    return cells


def slide_cells(board: Sequence[int], cells: Iterable[int], width: int) -> list[int]:
    """Replay moves given as the cells slid from (see :func:`solve_to_targets`); LayoutError if a cell is not
    next to the hole."""
    out = _check_board(board, width, "start")
    hole = out.index(0)
    for step, cell in enumerate(cells, start=1):
        step_size = abs(cell // width - hole // width) + abs(cell % width - hole % width)
        if not (0 <= cell < width * width and step_size == 1):
            raise LayoutError(f"move {step}: cell {cell} is not next to the hole")
        out[hole], out[cell] = out[cell], 0
        hole = cell
    return out


def manhattan(start: Sequence[int], goal: Sequence[int], width: int) -> int:
    """Sum over tiles of the row plus column distance to their goal cell (distinct tiles only)."""
    start_cells = _check_board(start, width, "start")
    goal_cells = _check_board(goal, width, "goal")
    where = {t: i for i, t in enumerate(goal_cells) if t}
    total = 0
    for i, t in enumerate(start_cells):
        if t:
            j = where[t]
            total += abs(i // width - j // width) + abs(i % width - j % width)
    return total
