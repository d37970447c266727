"""``tableside score``: the score of a finished game or room from a photo."""

from __future__ import annotations

import argparse
from typing import Any

from tableside.commands.state import check_game, game_options
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

NAME = "score"
ORDER = 43
HELP = "score a finished solitaire room, Plans of Action or Martian Shuffleboard from a photo"
DESCRIPTION = """\
Score what is on the table.

  tableside score photo.jpg --game martian-shuffleboard [--small-height-mm 25.4] [--variant any/smaller-on-larger]
  tableside score photo.jpg --game epic-funhouse --room slide-jam        (sum of the tiles left)
  tableside score photo.jpg --game epic-funhouse --room magic-mirror [--cousins N --distant-relatives N]
  tableside score photo.jpg --game epic-funhouse --room roll-out-the-barrels   (the scoring path from the die)
  tableside score photo.jpg --game epic-funhouse --room trampo-land
  tableside score photo.jpg --game plans-of-action [--goal all]          (is the goal reached?)

Martian Shuffleboard: every upright pyramid's footprint, every pair's edge-to-edge gap in mm and in Small
heights, which pairs score, each colour's points, and the pyramids lying flat (back to their owners). A gap
within --close-mm (default 1) of the Small height is "too close to call": it is counted as measured, and
"close_calls" says which points hinge on it ("sure_scores" leaves them out). --json prints
{"pieces": [{"color", "size", "pose", "x_mm", "y_mm", "angle_deg"}], "pairs": [{"a", "b", "gap_mm",
"gap_small_heights", "scores", "scorer", "points", "too_close_to_call"}], "scores": {colour: points}, ...}
(a, b and scorer index "pieces"). --annotate draws the gaps as rulers with their lengths.

Magic Mirror's removed pairs lie stacked beside the board, so their kinship cannot be seen: without --cousins
and --distant-relatives (the number of pairs on those stacks) the score is a range, "score".."score_max".
Plans of Action's score is the number of moves, which a photo cannot show: it reports whether the goal is
reached. Errors (no board, wrong game, hidden pieces, no calibration): one line on stderr, exit 2.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_frame_arguments(p)
    g = p.add_argument_group("game")
    g.add_argument("--game", required=True, help="martian-shuffleboard, plans-of-action or epic-funhouse")
    g.add_argument("--room", help="the Epic Funhouse room: slide-jam, magic-mirror, roll-out-the-barrels, trampo-land")
    g.add_argument("--small-height-mm", type=float, default=None,
                   help="Martian Shuffleboard: the proximity unit in mm (default 25.4, a Small's height)")
    g.add_argument("--variant", help="Martian Shuffleboard: choice/scoring, e.g. any/larger-on-smaller")
    g.add_argument("--close-mm", type=float, default=1.0, help="Martian Shuffleboard: gaps this close to the Small "
                   "height are too close to call (default 1)")
    g.add_argument("--goal", choices=("one", "all"), default="one", help="Plans of Action: one suit or all four")
    g.add_argument("--cousins", type=int, help="Magic Mirror: pairs on the Cousins stack")
    g.add_argument("--distant-relatives", type=int, help="Magic Mirror: pairs on the Distant Relatives stack")
    g.add_argument("--arrangement", default="counter", help="the die's face arrangement")
    add_output_arguments(p)


def _small_height(args: argparse.Namespace) -> float | None:
    if args.small_height_mm is None:
        return None
    from calibration.units import SmallHeight

    return SmallHeight(float(args.small_height_mm)).mm  # refuses implausible values with a one-line error


def _room_text(result: Any) -> list[str]:
    from tableside import phrases

    name = result.name
    if name == "plans-of-action":
        connected = ", ".join(result.details["connected"]) or "no suit"
        head = "goal reached" if result.goal_reached else "goal not reached"
        return [f"Plans of Action: {head} ({connected} connected; goal: {result.details['goal']})"]
    if result.score_max is not None:
        lines = [f"{phrases.room_title(name)} score: {result.score} to {result.score_max}"]
    else:
        lines = [f"{phrases.room_title(name)} score: {result.score}"]
    d = result.details
    if name == "slide-jam":
        lines.append(f"  {d['tiles_left']} tiles left ({'jammed' if d['jammed'] else 'families still removable'})")
    elif name == "magic-mirror":
        lines.append(f"  {d['strangers_per_side']} strangers each side ({d['strangers_points']} points), "
                     f"{d['pairs_removed']} pairs removed")
    elif name == "roll-out-the-barrels":
        path = " ".join(f"{c}({v})" for c, v in zip(d["path"], d["path_values"], strict=True))
        lines.append(f"  die on {d['die_on']}" + (": out at the exit" if d["at_exit"] else f"; path {path}"))
    elif name == "trampo-land":
        lines.append(f"  {d['kids']} kids, {d['adults']} adults left")
    lines.append(result.reading.text)
    lines += [f"note: {n}" for n in result.reading.notes]
    return lines


def _spoken_room(result: Any) -> str:
    from tableside import phrases

    if result.name == "plans-of-action":
        return "Goal reached!" if result.goal_reached else "The goal is not reached yet"
    if result.score_max is not None:
        return f"{phrases.room_title(result.name)} score: {result.score} to {result.score_max}"
    return phrases.room_score(result.name, result.score)


def _spoken_shuffleboard(result: Any) -> list[str]:
    from tableside import phrases

    if not result.scores:
        return ["No upright pyramids"]
    said = [phrases.shuffleboard_result(result.scores)]
    for call in result.close_calls:
        said.append(f"Too close to call: {phrases.count(call['points'], 'point')} for {phrases.who(call['color'])}")
    return said


def _refuse_another_game(frame: Any, result: Any) -> None:
    """Most pyramids seen but not read: look at everything in the frame once more, and refuse a frame of another
    game (an Easy Slider board's numerals and pawns fit pyramids poorly, and one may even fit surely) rather than
    score it. A Shuffleboard frame read poorly is still scored (its unread pyramids noted)."""
    from tableside.reading import all_pieces, refuse_another_game

    unread = sum(1 for p in result.pieces if p.uncertain)
    if unread * 2 <= len(result.pieces) or frame.kinds is None or frame.image is None:
        return
    refuse_another_game(all_pieces(frame.everything()), "martian-shuffleboard", "Martian Shuffleboard")


def run(args: argparse.Namespace) -> int:
    from tableside.reading import score_room, score_shuffleboard

    game, room = check_game(args)
    check_output_path(args.annotate)
    if args.annotate and game != "martian-shuffleboard":
        raise UserError("--annotate draws Martian Shuffleboard's gaps (and `tableside check`'s Done checks); "
                        "rooms are not drawn")
    height = _small_height(args)
    if args.close_mm < 0:
        raise UserError("--close-mm cannot be negative")
    frame = load_frame(args, GAME_KINDS[room or game])
    if game == "martian-shuffleboard":
        result = read_or_explain(frame, lambda seen: score_shuffleboard(seen, small_height_mm=height,
                                                                        variant=args.variant, close_mm=args.close_mm))
        _refuse_another_game(frame, result)
        if args.annotate:
            if frame.image is None or frame.calibration is None:
                raise UserError("--annotate needs the IMAGE (and its calibration) to draw on")
            from tableside.annotate_game import draw_shuffleboard

            write_image_atomic(draw_shuffleboard(frame.image, frame.calibration, result), args.annotate)
        if args.json:
            print_json(result.to_json())
        else:
            print(result.text())
            for note in result.notes():
                print(f"note: {note}")
        speak(args, _spoken_shuffleboard(result))
        return 0
    options = game_options(args)
    options.update(goal=args.goal, cousins=args.cousins, distant_relatives=args.distant_relatives)
    result = read_or_explain(frame, lambda seen: score_room(seen, game, room, **options))
    if args.json:
        print_json(result.to_json())
    else:
        print("\n".join(_room_text(result)))
    speak(args, [_spoken_room(result)])
    return 0
