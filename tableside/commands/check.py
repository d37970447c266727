"""``tableside check``: the Easy Slider Done check from a photo."""

from __future__ import annotations

import argparse
from typing import Any

from tableside.errors import UserError
from tableside.frame_input import (
    GAME_KINDS,
    add_frame_arguments,
    add_output_arguments,
    check_output_path,
    load_frame,
    read_or_explain,
    speak,
    write_image_atomic,
)
from tableside.output import print_json

NAME = "check"
ORDER = 42
HELP = "Easy Slider Done check from a photo: correct, fumble (and which cells) or unsure"
DESCRIPTION = """\
A player called "Done!": is the board correct? Every Easy Slider board in the frame (one per player, each with
its pawns left of rows 1-4 and coins above columns 1-5) is judged, in reading order.

  tableside check photo.jpg --game easy-slider
  tableside check --source picamera --game easy-slider --speak --players Ann,Bob
  tableside check photo.jpg --game easy-slider --json --annotate checked.png

Verdicts: "correct", "fumble" (with the cells that are surely wrong) or "unsure": whenever a piece that could
change the verdict is hidden (a hand over the board), unreadable, between cells or read twice, tableside
abstains rather than cost a player a round. A fumble is declared only when a cell is wrong whatever the
unclear pieces are.

--json prints {"verdict", "wrong_cells", "unsure_cells", "reason", "pawns", "coins", "settled_by_rules",
"boards": [...]}: the top-level fields are the first board's, "boards" holds every board's in reading order.
"settled_by_rules" lists the pieces the photo left open between a few readings that the rules settle ({"where",
"reading", "rule"}: a coin above a column that is a value-side ace or a suit side is the ace, since the coins
show their values; a tile that is one face or a back is that face). Each wrong cell is
{"cell", "row", "col", "found", "wanted"} (cells as in the rules: a5 top left, rows 1-5 from the top).
--annotate draws wrong cells red, unsure cells orange and the verdict. Exit 0 whatever the verdict; a frame
with no Easy Slider board, an unreadable image or no calibration: one line on stderr, exit 2, nothing written.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_frame_arguments(p)
    p.add_argument("--game", default="easy-slider", help="the game (only easy-slider has a Done check)")
    p.add_argument("--players", metavar="NAMES", help="names of the boards' players in reading order, comma-separated "
                   "(for speech; default Player 1, Player 2, ...)")
    add_output_arguments(p)


def _spoken(verdict: Any, player: str) -> str:
    from tableside import phrases

    if verdict.verdict == "correct":
        return phrases.board_correct(player)
    if verdict.verdict == "fumble":
        first = verdict.wrong_cells[0]
        more = len(verdict.wrong_cells) - 1
        return first.spoken() + (f", and {phrases.count(more, 'more cell')}" if more else "")
    return f"{player}: {phrases.not_sure()}"


def run(args: argparse.Namespace) -> int:
    from tableside.reading import check_easy_slider

    if args.game.strip().lower() != "easy-slider":
        raise UserError(f"only Easy Slider has a Done check, not {args.game!r}: use `tableside score` or "
                        "`tableside state`")
    check_output_path(args.annotate)
    frame = load_frame(args, GAME_KINDS["easy-slider"])
    verdicts = read_or_explain(frame, check_easy_slider)
    names = [n.strip() for n in (args.players or "").split(",") if n.strip()]
    names += [f"Player {k}" for k in range(len(names) + 1, len(verdicts) + 1)]
    if args.annotate:
        if frame.image is None or frame.calibration is None:
            raise UserError("--annotate needs the IMAGE (and its calibration) to draw on")
        from tableside.annotate_game import draw_done_check

        write_image_atomic(draw_done_check(frame.image, frame.calibration, verdicts), args.annotate)
    boards = [v.to_json() for v in verdicts]
    if args.json:
        print_json({**boards[0], "boards": boards})
    else:
        for k, v in enumerate(verdicts):
            who = names[k] if len(verdicts) > 1 or args.players else ""
            head = f"{who}: " if who else ""
            print(f"{head}{v.verdict.upper()}: {v.reason}")
            for cell in v.wrong_cells:
                found = "the hole" if cell.hole else f"the {cell.found}"
                wanted = (f"the {cell.wanted}" if cell.wanted else
                          "a null tile or the hole" if cell.row == 5 else "another tile")
                print(f"  {cell.name} has {found}, should have {wanted}")
            for settled in v.settled:
                print(f"  settled by the rules: {settled}")
            for cell in v.unsure_cells[:8]:
                print(f"  {cell.name}: {cell.reason}")
            if len(v.unsure_cells) > 8:
                print(f"  ... and {len(v.unsure_cells) - 8} more cells cannot be judged")
    speak(args, [_spoken(v, names[k]) for k, v in enumerate(verdicts)])
    return 0
