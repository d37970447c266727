"""Roll Out the Barrels' maze is one set's 24 coins, one of each suit and value: where value sides show their suit
(the default and bold editions print numerals in the suit's colour), the suits read narrow a barrel left open
further than the four coins of each value do. On detections built from a maze (no rendering)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tablescene import coin_grid
from test_reading import _neighbours, _suited, seen, unclear

from rules.epic_funhouse import roll_out_the_barrels
from rules.pieces import Suit
from tableside.reading import NotReadable, read_state


def _maze() -> tuple[list[int], list[tuple[Suit, int]], int, int]:
    """A maze (values, suited coins) and two of its barrels of values 3 and 4, not neighbours of each other nor
    of another 3 or 4 (so neither the count of values nor the neighbour rule can tell them apart)."""
    grid = list(roll_out_the_barrels.build_maze([], list(range(6)) * 4, seed=3).grid)
    coins = _suited(grid)

    def alone(i: int) -> bool:
        return not any(grid[n] in (3, 4) for n in _neighbours(i))

    three = next(i for i, v in enumerate(grid) if v == 3 and alone(i))
    four = next(i for i, v in enumerate(grid) if v == 4 and alone(i) and i not in _neighbours(three)
                and coins[i][0] != coins[three][0])
    return grid, coins, three, four


def test_a_barrel_whose_suit_is_read_is_the_value_of_that_suit_the_others_leave():
    grid, coins, three, four = _maze()
    pieces = seen(coin_grid(coins, (60.0, 50.0), 4, rng=2), 10, rotate_deg=3.0)
    # too blurred to read the numeral, the colour still read (vision: CoinReader._blurred_could_be): each barrel
    # names every face of its suit
    for i in (three, four):
        suit = coins[i][0]
        pieces[i] = replace(unclear(pieces[i], *((suit, v, "value") for v in range(6)), (suit, None, "suit")),
                            reason="too blurred")
    reading = read_state(pieces, "epic-funhouse", "roll-out-the-barrels")
    assert reading.state.grid == tuple(grid)
    settled = {s.where: s for s in reading.settled}
    assert settled[f"the barrel on {roll_out_the_barrels.cell_name(three)}"].reading == "the 3"
    assert settled[f"the barrel on {roll_out_the_barrels.cell_name(four)}"].reading == "the 4"
    assert all("one of each suit and value" in s.rule for s in reading.settled)


def test_barrels_without_a_suit_to_trust_stay_open():
    """The same two barrels named only by value (a classic coin's black numeral), or "face unclear" naming suits
    (not trusted: a glare-washed moons 2 was named as the 2 of the three other suits): either may be the 3 or
    the 4."""
    grid, coins, three, four = _maze()
    pieces = seen(coin_grid(coins, (60.0, 50.0), 4, rng=2), 10, rotate_deg=3.0)
    black = list(pieces)
    for i in (three, four):
        black[i] = replace(unclear(pieces[i], *((None, v, "value") for v in range(6))), reason="too blurred")
    with pytest.raises(NotReadable, match="could be the 3 or the 4"):
        read_state(black, "epic-funhouse", "roll-out-the-barrels")
    unclear_faces = list(pieces)
    for i in (three, four):
        unclear_faces[i] = unclear(pieces[i], *((coins[i][0], v, "value") for v in (3, 4)))
    with pytest.raises(NotReadable, match="could be the 3 or the 4"):
        read_state(unclear_faces, "epic-funhouse", "roll-out-the-barrels")
