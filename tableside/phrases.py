"""What tableside says aloud, in the games' own words: small pure functions from game facts to sentences.

The Announcer (:mod:`tableside.announcer`) speaks whatever these return; keeping the wording here lets the
live loop, the tests and the docs share one phrasing. Colours are what players say for suits (Suns = Red,
Moons = Black, Crowns = Green, Arms = Blue), ranks are ``Null``, ``Ace``, ``2`` .. ``5`` (see
:func:`rules.pieces.spoken_name`), and Easy Slider's Caller is quoted: "Blue 5, Green Null, Green 2, Red Ace".

Players are named by a label (``"Anna"``) or, in games where a player *is* a suit or colour, by a
:class:`~rules.pieces.Suit` (spoken as its colour) or a colour word (``"blue"`` -> ``"Blue"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rules.pieces import PYRAMID_COLORS, Coin, Suit, Tile, rank_name, spoken_name

__all__ = [
    "who",
    "count",
    "join_names",
    # Easy Slider: the Caller
    "pawn_drawn",
    "coin_drawn",
    "tile_flipped",
    "tile_row",
    "caller_signal",
    "slide_signal",
    # Easy Slider: Done! checks and scores
    "done_called",
    "board_correct",
    "fumble",
    "points_awarded",
    "bonus_points",
    "standings",
    "round_over",
    "winner",
    "playoff",
    # any game: moves and the camera
    "illegal_move",
    "not_sure",
    "move_hand",
    "camera_stopped",
    "camera_moved",
    "camera_recalibrated",
    # Slides of Action
    "turn",
    "no_slide_back",
    "slides_winner",
    # Martian Shuffleboard
    "pyramid_name",
    "flick_scores",
    "knocked_flat",
    "fell_off",
    "shuffleboard_result",
    # Epic Funhouse
    "room_title",
    "room_moves",
    "room_score",
    "next_room",
    "funhouse_total",
]

Player = str | Suit
TileLike = Tile | Coin | tuple[Suit, int]

# --------------------------------------------------------------------------------------------- helpers


def who(player: Player) -> str:
    """How a player is named aloud: a suit by its colour ("Blue"), a colour word capitalised, a name as given."""
    if isinstance(player, Suit):
        return player.colour.capitalize()
    text = str(player).strip()
    if text.lower() in PYRAMID_COLORS or text.lower() in {"red", "black", "green", "blue"}:
        return text.capitalize()
    return text


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "point") == "1 point"``, ``count(3, "point") == "3 points"``."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def join_names(names: Sequence[str]) -> str:
    """``["Red"] -> "Red"``, ``["Red", "Blue"] -> "Red and Blue"``, three or more with commas."""
    names = list(names)
    if not names:
        return "nobody"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _possessive(name: str) -> str:
    return f"{name}'s"


def _tile_words(tile: TileLike) -> str:
    if isinstance(tile, Tile | Coin):
        return tile.spoken
    suit, rank = tile
    return spoken_name(suit if isinstance(suit, Suit) else Suit.parse(str(suit)), rank)


def _score_list(scores: Mapping[Player, int]) -> str:
    # Highest first; equal scores keep the order they were given in (sorted() is stable).
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    return ", ".join(f"{who(p)} {s}" for p, s in ranked)


def _leaders(scores: Mapping[Player, int], lowest_wins: bool = False) -> list[str]:
    if not scores:
        return []
    best = min(scores.values()) if lowest_wins else max(scores.values())
    return [who(p) for p, s in scores.items() if s == best]


# ------------------------------------------------------------------------------ Easy Slider: the Caller


def pawn_drawn(suit: Suit | str) -> str:
    """The Caller draws a pawn from the bag and announces its colour: ``"Red"``."""
    return (suit if isinstance(suit, Suit) else Suit.parse(str(suit))).colour.capitalize()


def coin_drawn(rank: int) -> str:
    """The Caller draws a coin and announces its value: ``"Ace"``, ``"3"``."""
    return rank_name(rank)


def tile_flipped(suit: Suit | str, rank: int) -> str:
    """The Caller flips a tile and announces colour and value: ``"Blue 5"``, ``"Green Null"``."""
    return spoken_name(suit if isinstance(suit, Suit) else Suit.parse(str(suit)), rank)


def tile_row(tiles: Iterable[TileLike]) -> str:
    """Several flips read in one breath, as in the rules: ``"Blue 5, Green Null, Green 2, Red Ace"``."""
    return ", ".join(_tile_words(t) for t in tiles)


def caller_signal() -> str:
    """The Caller's signal that starts the sliding."""
    return "Go!"


def slide_signal() -> str:
    """The "Slide!" variant: every player must slide one tile now."""
    return "Slide!"


# ---------------------------------------------------------------------- Easy Slider: Done! and scoring


def done_called(player: Player) -> str:
    return f"{who(player)} calls Done!"


def board_correct(player: Player) -> str:
    """A Done! check that passes: ``"Red's board is correct"``."""
    return f"{_possessive(who(player))} board is correct"


def fumble(row: int, column: int, expected: TileLike | str) -> str:
    """A Done! check that fails, naming the first wrong cell (rows from the top, columns from the left, 1-based).

    ``expected`` is the tile that belongs there, or words such as ``"a Null tile"`` for the parity-sponge row.
    """
    what = expected if isinstance(expected, str) else _tile_words(expected)
    return f"Fumble: the tile in row {row}, column {column} should be {what}"


def points_awarded(player: Player, points: int) -> str:
    return f"{who(player)} scores {count(points, 'point')}"


def bonus_points(player: Player, points: int) -> str:
    """End-of-round bonus for every player who did not fumble."""
    return f"{who(player)} gets {count(points, 'bonus point')}"


def standings(scores: Mapping[Player, int]) -> str:
    """``"Standings: Red 5, Blue 3, Green 0"`` (highest first)."""
    return f"Standings: {_score_list(scores)}"


def round_over(number: int) -> str:
    return f"Round {number} is over"


def winner(players: Sequence[Player]) -> str:
    """``"Red wins!"``; several players: ``"Red and Blue tie"``."""
    names = [who(p) for p in players]
    if len(names) == 1:
        return f"{names[0]} wins!"
    return f"{join_names(names)} tie"


def playoff(players: Sequence[Player]) -> str:
    """Easy Slider's tie-break: the tied players play one more round."""
    return f"{join_names([who(p) for p in players])} are tied: playoff round"


# ------------------------------------------------------------------------ any game: moves and camera


def illegal_move(reason: str) -> str:
    """An :class:`~rules.base.IllegalMove` reason read out: ``"Illegal move: that tile is not next to the hole"``."""
    reason = reason.strip().rstrip(".")
    return f"Illegal move: {reason}" if reason else "Illegal move"


def not_sure() -> str:
    """The vision abstains rather than judge wrongly."""
    return "I cannot see that clearly: please check the board"


def move_hand() -> str:
    return "Please move your hand"


def camera_stopped() -> str:
    return "The camera stopped sending pictures"


def camera_moved() -> str:
    return "The camera moved: recalibrating"


def camera_recalibrated() -> str:
    return "Recalibrated: watching again"


def camera_back() -> str:
    return "The camera is back: watching again"


def light_changed() -> str:
    return "The light changed"


def please_recalibrate() -> str:
    return "I cannot find the table: please recalibrate"


def position_restored() -> str:
    return "Back to the last legal position"


# ----------------------------------------------------------------------------------- Slides of Action


def turn(player: Player) -> str:
    """Whose turn it is: ``turn(Suit.ARMS) == "Blue's turn"``."""
    return f"{_possessive(who(player))} turn"


def no_slide_back() -> str:
    """A slide that undoes the previous one is forbidden."""
    return "No slide backs!"


def slides_winner(player: Player, connected: Sequence[Player] = ()) -> str:
    """The winner: all five coins connected. If several suits connected at once, the mover wins."""
    name = who(player)
    others = [who(p) for p in connected if who(p) != name]
    if not others:
        return f"{name} wins: all five coins are connected"
    return f"{join_names(others + [name])} are all connected; {name} moved, so {name} wins"


# ------------------------------------------------------------------------------ Martian Shuffleboard


def pyramid_name(color: str, size: str) -> str:
    """``pyramid_name("blue", "large") == "Blue Large"``."""
    return f"{who(color)} {str(getattr(size, 'value', size)).capitalize()}"


def flick_scores(scores: Mapping[Player, int]) -> str:
    """The score after each flick: ``"Score: Blue 5, Red 3"``."""
    return f"Score: {_score_list(scores)}"


def knocked_flat(color: str, size: str) -> str:
    """A crash knocks a piece flat: its owner gets it back to slide again."""
    return f"{pyramid_name(color, size)} knocked flat: back to {who(color)}"


def fell_off(color: str, size: str, own_turn: bool) -> str:
    """A piece slides off the table: the flicker's own piece is out, anyone else's goes back to its owner."""
    name = pyramid_name(color, size)
    if own_turn:
        return f"{name} fell off the table: out of the game"
    return f"{name} fell off the table: back to {who(color)}"


def shuffleboard_result(scores: Mapping[Player, int]) -> str:
    """``"Final score: Blue 8, Red 3. Blue wins!"``"""
    leaders = _leaders(scores)
    if len(leaders) == 1:
        ending = f"{leaders[0]} wins!"
    else:
        ending = f"{join_names(leaders)} tie with {count(max(scores.values()), 'point')}"
    return f"Final score: {_score_list(scores)}. {ending}"


# -------------------------------------------------------------------------------------- Epic Funhouse

_ROOM_TITLES = {
    "slide-jam": "Slide Jam",
    "magic-mirror": "Magic Mirror",
    "catwalk": "Catwalk",
    "roll-out-the-barrels": "Roll Out the Barrels",
    "whack-a-dummy": "Whack-a-Dummy",
    "trampo-land": "Trampo-Land",
}


def room_title(room: str) -> str:
    """A room's name as the rules print it: ``"roll-out-the-barrels" -> "Roll Out the Barrels"``."""
    key = room.strip().lower().replace("_", "-").replace(" ", "-")
    return _ROOM_TITLES.get(key, room.replace("-", " ").title())


def room_moves(moves: int) -> str:
    return count(moves, "move")


def room_score(room: str, score: int) -> str:
    """A room's score; zero is perfect in every Funhouse room."""
    if score == 0:
        return f"{room_title(room)}: zero, a perfect score!"
    return f"{room_title(room)} score: {score}"


def next_room(room: str) -> str:
    return f"Next room: {room_title(room)}"


def funhouse_total(score: int) -> str:
    """The whole Funhouse: the sum of the room scores (zero is perfect)."""
    if score == 0:
        return "Funhouse total: zero, a perfect Funhouse!"
    return f"Funhouse total: {score}"
