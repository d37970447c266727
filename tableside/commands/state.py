"""``tableside state``: a game's state read from a photo, as its rules engine sees it, with its PPN position."""

from __future__ import annotations

import argparse
from typing import Any

from tableside.errors import UserError
from tableside.frame_input import (
    GAME_KINDS,
    add_frame_arguments,
    add_output_arguments,
    load_frame,
    read_or_explain,
    speak,
)
from tableside.output import print_json

NAME = "state"
ORDER = 41
HELP = "read a game's state from a photo (text board and PPN position)"
DESCRIPTION = """\
Read the state of a game from one frame: the rules engine's text board and the position in Portable Piecepack
Notation, or the reason it cannot be read.

  tableside state photo.jpg --game easy-slider
  tableside state photo.jpg --game plans-of-action --json
  tableside state photo.jpg --game epic-funhouse --room roll-out-the-barrels
  tableside state photo.jpg --game epic-funhouse --room whack-a-dummy --grid n23a45n2... --die-coin down
                                   (the maze's values: face-down coins hide theirs; the die hides its coin's side)
  tableside state --source picamera --game slides-of-action --players 3

Games: easy-slider, slides-of-action, plans-of-action, martian-shuffleboard, epic-funhouse (--room slide-jam,
magic-mirror, catwalk, roll-out-the-barrels, whack-a-dummy, trampo-land).

What a photo cannot show (whose turn it is, moves made, stacks beside the board, the die's hidden sides) is
listed under "notes". --json prints {"game", "room", "text", "state", "ppn", "notes", "settled_by_rules"}.
A piece the photo leaves open between a few readings (a classic coin's value-side ace looks like its suit side)
is taken as the one reading the game's rules allow at its place (Slides of Action's coins lie suit side up, the
barrels value side up...): each such piece is listed in "settled_by_rules" ({"where", "reading", "rule"}) and
in a note; where two readings stay possible, state abstains and says what the piece could be.
Exit 2 with one line saying why when the state cannot be read surely: no board, the wrong game, two boards
where one was expected, a hand over the board (hidden or unreadable pieces), a piece between cells.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_frame_arguments(p)
    g = p.add_argument_group("game")
    g.add_argument("--game", required=True, help="easy-slider, slides-of-action, plans-of-action, "
                   "martian-shuffleboard or epic-funhouse")
    g.add_argument("--room", help="the Epic Funhouse room (slide-jam, magic-mirror, catwalk, roll-out-the-barrels, "
                   "whack-a-dummy, trampo-land)")
    g.add_argument("--players", default="2", help="Slides of Action: 2, 3 or the suits in seating order")
    g.add_argument("--one-diagonal", action="store_true", help="Slides of Action: the one-diagonal variant")
    g.add_argument("--goal", choices=("one", "all"), default="one", help="Plans of Action: one suit or all four")
    g.add_argument("--grid", help="Whack-a-Dummy: the maze's 24 coin values in reading order (e.g. n23a/45n2/...)")
    g.add_argument("--die-coin", choices=("up", "down"), help="Whack-a-Dummy: the side of the coin under the die "
                   "(up = face up), which a photo cannot show")
    g.add_argument("--arrangement", default="counter", help="the die's face arrangement (counter or "
                   "opposites_sum_to_5)")
    g.add_argument("--small-height-mm", type=float, help="Martian Shuffleboard: the Small height (default 25.4)")
    g.add_argument("--variant", help="Martian Shuffleboard: choice/scoring, e.g. any/smaller-on-larger")
    add_output_arguments(p, annotate=False)


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    """The per-game options of the state and score verbs, as tableside.reading takes them."""
    players: Any = getattr(args, "players", "2") or "2"
    if isinstance(players, str):
        players = int(players) if players.strip().isdigit() else [s.strip() for s in players.split(",")]
    return {"players": players, "one_diagonal": getattr(args, "one_diagonal", False),
            "goal": getattr(args, "goal", "one"), "grid": getattr(args, "grid", None),
            "die_coin": getattr(args, "die_coin", None),
            "arrangement": getattr(args, "arrangement", "counter"),
            "small_height_mm": getattr(args, "small_height_mm", None), "variant": getattr(args, "variant", None)}


def check_game(args: argparse.Namespace) -> tuple[str, str | None]:
    from rules import GAMES, ROOMS

    game = args.game.strip().lower().replace("_", "-")
    room = args.room.strip().lower().replace("_", "-") if getattr(args, "room", None) else None
    if game in ROOMS:  # a room named as the game: accept it
        game, room = "epic-funhouse", game
    if game not in GAMES:
        raise UserError(f"unknown game {args.game!r}: use {', '.join(GAMES)}")
    if game == "epic-funhouse":
        if room is None:
            raise UserError(f"say which Epic Funhouse room: --room {', '.join(ROOMS)}")
        if room not in ROOMS:
            raise UserError(f"unknown room {args.room!r}: use {', '.join(ROOMS)}")
    elif room is not None:
        raise UserError("--room is for --game epic-funhouse")
    return game, room


def _state_json(state: Any) -> Any:
    for name in ("to_dict", "to_layout", "to_json"):
        method = getattr(state, name, None)
        if callable(method):
            return method()
    if hasattr(state, "diagram"):
        return state.diagram()
    return str(state)


def _spoken(reading: Any) -> str:
    from tableside import phrases

    state = reading.state
    name = reading.room or reading.game
    if name == "easy-slider":
        wrong = len(state.done_check().wrong_cells)
        return "The board is solved" if wrong == 0 else f"{phrases.count(wrong, 'cell')} still wrong"
    if name == "martian-shuffleboard":
        return phrases.flick_scores(state.scores) if state.scores else "No upright pyramids"
    if hasattr(state, "result"):
        return str(state.result())
    if hasattr(state, "score"):
        score = state.score() if callable(state.score) else state.score
        return phrases.room_score(name, score)
    return phrases.room_title(name)


def run(args: argparse.Namespace) -> int:
    from tableside.reading import ppn_position, read_state

    game, room = check_game(args)
    frame = load_frame(args, GAME_KINDS[room or game])
    options = game_options(args)
    reading = read_or_explain(frame, lambda seen: read_state(seen, game, room, **options))
    ppn = ppn_position(reading)
    if args.json:
        print_json({"game": game, "room": room, "text": reading.text, "state": _state_json(reading.state),
                    "ppn": ppn, "notes": reading.notes,
                    "settled_by_rules": [s.to_json() for s in getattr(reading, "settled", [])]})
    else:
        text = reading.text
        # one-line diagrams ("ACSA/SACS/CSAC/ACS.") are rows separated by "/": print them as rows
        print("\n".join(text.split("/")) if "\n" not in text and "/" in text else text)
        for note in reading.notes:
            print(f"note: {note}")
        if ppn:
            print("PPN:")
            print(ppn.rstrip())
    speak(args, [_spoken(reading)])
    return 0
