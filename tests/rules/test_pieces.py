import pytest

from rules.pieces import SUITS, Coin, Suit, Tile, parse_rank, rank_name, spoken_name


def test_suit_words_colours_and_letters():
    assert [s.colour for s in SUITS] == ["red", "black", "green", "blue"]
    assert [s.letter for s in SUITS] == ["S", "M", "C", "A"]
    for s in SUITS:
        assert Suit.parse(s.value) is s
        assert Suit.parse(s.colour.upper()) is s
        assert Suit.parse(s.letter) is s
    assert Suit.parse("sun") is Suit.SUNS
    with pytest.raises(ValueError, match="unknown suit"):
        Suit.parse("hearts")


def test_ranks():
    assert [rank_name(r) for r in range(6)] == ["Null", "Ace", "2", "3", "4", "5"]
    assert parse_rank("null") == 0 and parse_rank("A") == 1 and parse_rank(5) == 5
    with pytest.raises(ValueError):
        parse_rank(6)
    with pytest.raises(ValueError):
        parse_rank("king")


def test_spoken_names_follow_the_seed():
    # Easy Slider's Caller: "Blue 5, Green Null, Green 2, Red Ace..."
    calls = [spoken_name(Suit.ARMS, 5), spoken_name(Suit.CROWNS, 0), Tile("crowns", 2).spoken, Coin("suns", 1).spoken]
    assert ", ".join(calls) == "Blue 5, Green Null, Green 2, Red Ace"


def test_pieces_are_hashable_values():
    assert Tile(Suit.SUNS, "ace") == Tile("red", 1)
    assert len({Tile("suns", 1), Tile("S", "a"), Coin("suns", 1)}) == 2
