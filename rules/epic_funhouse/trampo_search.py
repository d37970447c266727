"""The search behind Trampo-Land's solver, compiled with numba (the hot loop of :func:`trampo_land.solve`).

Why hand-written and compiled: the best reachable score is the lowest score of *any* position reachable from
the start (the player may stop anywhere), so the solver is a reachability search with a visited set — which
also copes with walks going round in circles. Positions with many empty trampolines let the adults walk
almost anywhere, so a full search can meet millions of positions; plain Python manages ~10,000 a second,
this kernel about a hundred times more. No graph library offers a visited-set search over an implicit graph
of this kind at that speed.

Positions are packed into one int64: two bits per trampoline (0 empty, 1 kid, 2 adult, 3 you; trampoline n
at bits 2(n-1)) shifted left by 4, plus the trampoline of the last walker (0 for none) in the low 4 bits.
Positions equal under the triangle's six symmetries are searched once (the key is the smallest of the six
images). Order: jump results are explored at once (depth first), walk results wait in a first-in first-out
queue, so lines with few walks are tried first; the search stops as soon as it reaches the lowest score the
position could ever have.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from rules.epic_funhouse import trampo_land as tl

# Tables (index 0 unused so trampoline numbers index directly).
ADJ = -np.ones((16, 6), np.int64)
JUMP_OVER = -np.ones((16, 6), np.int64)
JUMP_TO = -np.ones((16, 6), np.int64)
for _n in range(1, 16):
    for _k, _m in enumerate(tl.adjacent(_n)):
        ADJ[_n, _k] = _m
    for _k, (_o, _t) in enumerate(tl.jumps_from(_n)):
        JUMP_OVER[_n, _k] = _o
        JUMP_TO[_n, _k] = _t


def _symmetries() -> np.ndarray:
    """The six symmetries of the triangle as permutations of trampolines 0..15 (0 fixed)."""
    coords = {}
    n = 1
    for r in range(5):
        for i in range(r + 1):
            coords[n] = (r, i)
            n += 1
    number = {rc: k for k, rc in coords.items()}

    def rotate(rc: tuple[int, int]) -> tuple[int, int]:
        r, i = rc  # barycentric (a, b, c) = (4 - r, r - i, i); rotation maps it to (c, a, b)
        a, b, c = 4 - r, r - i, i
        a, b, c = c, a, b
        return 4 - a, c

    def reflect(rc: tuple[int, int]) -> tuple[int, int]:
        r, i = rc
        return r, r - i

    perms = []
    for flip in (False, True):
        for turns in range(3):
            p = [0] * 16
            for k, rc in coords.items():
                x = reflect(rc) if flip else rc
                for _ in range(turns):
                    x = rotate(x)
                p[k] = number[x]
            perms.append(p)
    return np.array(perms, np.int64)


SYMMETRIES = _symmetries()


def _chunk_tables(perms: np.ndarray) -> np.ndarray:
    """tables[s, c, v]: the bits that five trampolines 5c+1..5c+5 holding ``v`` (10 bits) take under symmetry s,
    so an image of a whole board is three look-ups instead of fifteen moves."""
    tables = np.zeros((perms.shape[0], 3, 1024), np.int64)
    for s in range(perms.shape[0]):
        for c in range(3):
            for v in range(1024):
                img = 0
                for j in range(5):
                    piece = (v >> (2 * j)) & 3
                    img |= piece << (2 * (perms[s, 5 * c + j + 1] - 1))
                tables[s, c, v] = img
    return tables


CHUNKS = _chunk_tables(SYMMETRIES)
#: Fibonacci hashing multiplier 0x9E3779B97F4A7C15 as a signed int64.
_GOLDEN = -7046029254386353131
CODES = {tl.EMPTY: 0, tl.KID: 1, tl.ADULT: 2, tl.YOU: 3}


def encode(board: str, last_walker: int | None) -> int:
    value = 0
    for n, ch in enumerate(board, start=1):
        value |= CODES[ch] << (2 * (n - 1))
    return (value << 4) | (last_walker or 0)


@nb.njit(cache=True)
def _get(b: int, n: int) -> int:
    return (b >> (2 * (n - 1))) & 3


@nb.njit(cache=True)
def canonical(key: int, perms: np.ndarray, chunks: np.ndarray) -> int:
    """The smallest key among the six symmetric images of ``key``."""
    b = key >> 4
    lw = key & 15
    best = -1
    for s in range(perms.shape[0]):
        img = chunks[s, 0, b & 1023] | chunks[s, 1, (b >> 10) & 1023] | chunks[s, 2, (b >> 20) & 1023]
        k = (img << 4) | perms[s, lw]
        if best < 0 or k < best:
            best = k
    return best


@nb.njit(cache=True)
def _score(b: int) -> int:
    total = 0
    for n in range(1, 16):
        v = _get(b, n)
        if v == 1:
            total += 4
        elif v == 2:
            total += 1
    return total


@nb.njit(cache=True)
def _lowest_possible(b: int) -> int:
    """A lower bound on any score reachable from b: pieces never come back, you are never bounced, and the
    last jumper always stays. Kids that are all on corner trampolines stay too."""
    kids = 0
    adults = 0
    you = 0
    for n in range(1, 16):
        v = _get(b, n)
        if v == 1:
            kids += 1
        elif v == 2:
            adults += 1
        elif v == 3:
            you += 1
    corner_kids = int(_get(b, 1) == 1) + int(_get(b, 11) == 1) + int(_get(b, 15) == 1)
    if kids and corner_kids == kids:
        # Every kid is on a corner: no two kids are adjacent, so no kid can ever jump, and nobody can jump
        # over a corner: all of them stay.
        return 4 * kids + (1 if adults > 0 and you == 0 else 0)
    if you:
        return 0
    if adults:
        return 1
    if kids:
        return 4
    return 0


@nb.njit(cache=True)
def _insert(keys: np.ndarray, parents: np.ndarray, key: int, parent: int) -> bool:
    mask = keys.shape[0] - 1
    h = ((key * _GOLDEN) >> 17) & mask
    while True:
        v = keys[h]
        if v == 0:
            keys[h] = key + 1
            parents[h] = parent
            return True
        if v == key + 1:
            return False
        h = (h + 1) & mask


@nb.njit(cache=True)
def lookup_parent(keys: np.ndarray, parents: np.ndarray, key: int) -> int:
    mask = keys.shape[0] - 1
    h = ((key * _GOLDEN) >> 17) & mask
    while True:
        v = keys[h]
        if v == 0:
            return -2
        if v == key + 1:
            return parents[h]
        h = (h + 1) & mask


@nb.njit(cache=True)
def _grow(keys: np.ndarray, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    new_keys = np.zeros(keys.shape[0] * 2, np.int64)
    new_parents = np.zeros(keys.shape[0] * 2, np.int64)
    for i in range(keys.shape[0]):
        if keys[i] != 0:
            _insert(new_keys, new_parents, keys[i] - 1, parents[i])
    return new_keys, new_parents


@nb.njit(cache=True)
def search(start: int, adj: np.ndarray, jump_over: np.ndarray, jump_to: np.ndarray, perms: np.ndarray,
           chunks: np.ndarray, max_states: int) -> tuple[int, int, int, bool, np.ndarray, np.ndarray]:
    """Returns (best score, canonical key reaching it, positions searched, exact, key table, parent table).

    ``exact`` is False when ``max_states`` ran out before the search could prove the best score.
    """
    keys = np.zeros(1 << 16, np.int64)
    parents = np.zeros(1 << 16, np.int64)
    root = canonical(start, perms, chunks)
    _insert(keys, parents, root, -1)
    count = 1
    stack = np.empty(1024, np.int64)
    sp = 0
    queue = np.empty(1024, np.int64)
    qhead = 0
    qtail = 0
    stack[0] = root
    sp = 1
    low = _lowest_possible(start >> 4)
    best = _score(start >> 4)
    best_key = root
    searched = 0
    while sp > 0 or qhead < qtail:
        if sp > 0:
            sp -= 1
            key = stack[sp]
        else:
            key = queue[qhead]
            qhead += 1
        searched += 1
        b = key >> 4
        lw = key & 15
        sc = _score(b)
        if sc < best:
            best = sc
            best_key = key
        if best <= low:
            return best, best_key, searched, True, keys, parents
        if searched >= max_states:
            return best, best_key, searched, False, keys, parents
        for n in range(1, 16):
            mover = _get(b, n)
            if mover == 0:
                continue
            for k in range(6):
                o = jump_over[n, k]
                if o < 0:
                    break
                t = jump_to[n, k]
                if _get(b, t) != 0:
                    continue
                jumped = _get(b, o)
                if jumped == 0 or (mover == 1 and jumped != 1) or (mover == 2 and jumped == 3):
                    continue
                nb_ = b & ~(3 << (2 * (n - 1))) & ~(3 << (2 * (o - 1)))
                nb_ |= mover << (2 * (t - 1))
                child = canonical(nb_ << 4, perms, chunks)
                if count * 2 >= keys.shape[0]:
                    keys, parents = _grow(keys, parents)
                if _insert(keys, parents, child, key):
                    count += 1
                    if sp == stack.shape[0]:
                        bigger = np.empty(stack.shape[0] * 2, np.int64)
                        bigger[:sp] = stack[:sp]
                        stack = bigger
                    stack[sp] = child
                    sp += 1
            if mover >= 2 and n != lw:
                for k in range(6):
                    m = adj[n, k]
                    if m < 0:
                        break
                    if _get(b, m) != 0:
                        continue
                    nb_ = (b & ~(3 << (2 * (n - 1)))) | (mover << (2 * (m - 1)))
                    child = canonical((nb_ << 4) | m, perms, chunks)
                    if count * 2 >= keys.shape[0]:
                        keys, parents = _grow(keys, parents)
                    if _insert(keys, parents, child, key):
                        count += 1
                        if qtail == queue.shape[0]:
                            live = qtail - qhead
                            size = queue.shape[0] * 2 if live * 2 > queue.shape[0] else queue.shape[0]
                            bigger = np.empty(size, np.int64)
                            bigger[:live] = queue[qhead:qtail]
                            queue = bigger
                            qhead = 0
                            qtail = live
                        queue[qtail] = child
                        qtail += 1
    return best, best_key, searched, True, keys, parents
