"""``tableside funhouse``: play Epic Funhouse in the terminal, all six rooms in order, without the camera.

The game itself is :class:`rules.epic_funhouse.suite.Funhouse`; this verb only reads lines and prints. It reads
from stdin line by line, so it can be scripted (``tableside funhouse --seed 7 < moves.txt``): with stdin not a
terminal each line read is echoed after its prompt, so the output reads as a transcript.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from rules.base import IllegalMove, RulesError
from rules.epic_funhouse import catwalk, slide_jam
from rules.epic_funhouse.common import tile_code
from rules.epic_funhouse.die import ARRANGEMENTS
from rules.epic_funhouse.suite import ROOMS, TITLES, Funhouse
from rules.pieces import Tile, parse_rank
from tableside.errors import UserError
from tableside.output import print_json

NAME = "funhouse"
ORDER = 50
HELP = "play Epic Funhouse (six solitaire rooms) in the terminal, without the camera"
DESCRIPTION = """\
Play Epic Funhouse in the terminal: Slide Jam, Magic Mirror, Catwalk, Roll Out the Barrels, Whack-a-Dummy and
Trampo-Land, each room set up from how you left the one before. Every random input (the deal, die rolls, the
barrel draw, the coin cast) comes from one generator seeded by --seed, or you type what you rolled.

Each turn shows the room's board and its legal moves, numbered. Type a move's text or its number, or:
  help          this list and how to write the room's moves
  moves         list every legal move (long lists are cut short otherwise)
  board         show the board again
  hint          a suggested move (a bounded search of the room)
  score         the score of each room so far and the total (0 is perfect)
  done          stop this room now and score it as it stands (not before every Catwalk coin is flicked)
  retry         Roll Out the Barrels: take the die off and start a new attempt
  save [FILE]   save the game (to FILE, else to --save FILE)
  quit          save (with --save) and stop; end of input does the same

  tableside funhouse --seed 7                       a new game; the same seed deals the same game
  tableside funhouse --seed 7 --save game.json      save after every room and on quit / end of input
  tableside funhouse --resume game.json --save game.json    carry on where you stopped
  tableside funhouse --seed 7 --json < moves.txt    play a script; the play goes to stderr and stdout gets
                                                    {"room", "rooms": [{"name", "score", "moves", "finished"}],
                                                     "total", "over", "seed"}

"room" is the room being played (null once the Funhouse is over), "moves" the number of moves played in a room,
an unfinished room's "score" what it scores if stopped now. A save file that is not a saved game, or does not
replay through the rules: one line on stderr, exit 2.
"""

_LIST_DEFAULT = 30
_QUIT_WORDS = ("quit", "exit", "q")
_DONE_WORDS = ("done", "stop", "finish", "give up", "giveup")

_MOVE_HELP = {
    "slide-jam": "a move names a family's three cells in stacking order, the stack (1 or 2) and the slide: "
                 "'a6b5c4>1 U' (slides U, D, L, R)",
    "magic-mirror": "a move names one tile next to the mirror on each side: 'b4c3' (the first named is stacked first)",
    "catwalk": "first choose the coins: 'flick suns from first' (or '... from last'); then say what each flicked "
               "coin did: '5 off 12' (the 5 fell off tile 12) or '5 off end' (it left the far end)",
    "roll-out-the-barrels": "first place the die on a6: 'start top=null north=2' (east follows); then tip it: "
                            "'tip east' (or just 'e'); 'retry' starts a new attempt",
    "whack-a-dummy": "first place the die: 'start c3' (b4, c4, b3 or c3); then 'go north' (east, south, west): "
                     "it walks or jumps as the coin under it says",
    "trampo-land": "'jump 4-1' bounces the piece between 4 and 1 out; 'walk 5-4' moves an adult (or you) to a "
                   "free neighbour",
}


class _EndOfInput(Exception):
    """stdin ran out (or the player quit) in the middle of a question."""


class Session:
    """One terminal game: the Funhouse, where to print, where to read, where to save."""

    def __init__(self, funhouse: Funhouse, out: TextIO, stdin: TextIO, save_path: str | None,
                 list_limit: int = _LIST_DEFAULT) -> None:
        self.fh = funhouse
        self.out = out
        self.stdin = stdin
        self.save_path = save_path
        self.list_limit = list_limit
        self.echo = not _isatty(stdin)
        self.stuck_told = False

    # ----------------------------------------------------------------- i/o
    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def ask(self, prompt: str) -> str | None:
        """One line from stdin (None at end of input)."""
        self.out.write(prompt)
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            self.say()
            return None
        text = line.rstrip("\r\n")
        if self.echo:
            self.out.write(text + "\n")
        return text.strip()

    def save(self, path: str | None = None) -> None:
        target = path or self.save_path
        if not target:
            self.say("no file to save to: type 'save FILE' or start with --save FILE")
            return
        write_save(self.fh, target)
        self.say(f"saved to {target}")

    # ----------------------------------------------------------------- display
    def show_moves(self, everything: bool = False) -> None:
        moves = self.fh.legal_moves()
        if not moves:
            return
        self.say(f"legal moves ({len(moves)}):")
        groups = [(i, i, str(m)) for i, m in enumerate(moves)] if everything else _grouped(self.fh.state, moves)
        limit = len(groups) if everything else self.list_limit
        numbers = [f"{first + 1}" if first == last else f"{first + 1}-{last + 1}" for first, last, _ in groups[:limit]]
        width = max(len(n) for n in numbers)
        for number, (_, _, label) in zip(numbers, groups[:limit], strict=True):
            self.say(f"  {number:>{width}}. {label}")
        if len(groups) > limit:
            self.say(f"  ... and {len(moves) - groups[limit][0]} more: 'moves' lists them all")

    def show_turn(self) -> None:
        self.say(self.fh.state.render())
        if self.fh.room_over() and self.fh.can_retry():
            self.say(f"the die is stuck: 'retry' for a new attempt, or 'done' to finish the room "
                     f"(score {self.fh.room_score()})")
        self.show_moves()

    def show_room(self) -> None:
        fh = self.fh
        self.say()
        self.say(f"== Room {fh.room_number} of {len(ROOMS)}: {fh.title} ==")
        self.say(fh.setup_text())
        self.show_turn()

    def show_scores(self) -> None:
        self.say("scores (0 is perfect):")
        for number, (name, score, finished) in enumerate(self.fh.scores(), start=1):
            note = "" if finished else "  (so far: this room is being played)"
            self.say(f"  {number}. {TITLES[name]:<22}{score:>4}{note}")
        state = "the Funhouse is over" if self.fh.is_over() else f"now in {self.fh.title}"
        self.say(f"  total{'':<20}{self.fh.score():>4}  ({state})")

    def show_help(self) -> None:
        self.say(DESCRIPTION.split("\n\n")[1].rstrip())
        self.say(f"{self.fh.title}: {_MOVE_HELP[self.fh.room]}")

    # ----------------------------------------------------------------- the room's end
    def ask_roll(self, tile: Tile, options: tuple) -> int | None:
        names = ", ".join(d.value for d in options)
        while True:
            text = self.ask(f"dead end before the {tile}: open {names}. Roll the die (null, ace, 2..5) "
                            "[the seeded die] ")
            if text is None or text.lower() in _QUIT_WORDS:
                raise _EndOfInput
            if not text:
                return None
            try:
                return parse_rank(text)
            except ValueError as err:
                self.say(str(err))

    def finish_room(self) -> bool:
        """Ask the set-up questions and go on to the next room; False when the input ended (or 'quit')."""
        while True:
            choices: dict[str, Any] = {}
            for question in self.fh.questions():
                while True:
                    text = self.ask(f"{question.prompt} [{question.default}] ")
                    if text is None or text.lower() in _QUIT_WORDS:
                        return False
                    try:
                        value = question.read(text)
                    except RulesError as err:
                        self.say(str(err))
                        continue
                    break
                if question.name == "rolls" and value == "ask":
                    value = self.ask_roll
                if value is not None:
                    choices[question.name] = value
            try:
                self.fh = self.fh.finish_room(**choices)
            except _EndOfInput:
                return False
            except RulesError as err:
                self.say(f"{err}; answer again")
                continue
            break
        done = [log for log in self.fh.rooms if log.finished]
        self.say(f"{done[-1].title} scores {done[-1].score} (rooms finished: {len(done)}, total "
                 f"{sum(log.score for log in done)}).")
        if self.save_path:
            self.save()
        if not self.fh.is_over():
            self.stuck_told = False
            self.show_room()
        return True

    # ----------------------------------------------------------------- the loop
    def play(self, resumed: bool = False) -> None:
        """Play until the Funhouse is over, the player quits, or the input ends (saving with --save)."""
        if not self.fh.is_over():
            if resumed:
                self.say(f"resumed: room {self.fh.room_number} of {len(ROOMS)}, {self.fh.title}, "
                         f"{len(self.fh.rooms[-1].moves)} moves played")
            self.show_room()
        while not self.fh.is_over():
            if self.fh.room_over() and not self.fh.can_retry():
                self.say(f"{self.fh.title} is over.")
                if not self.finish_room():
                    return self.stop()
                continue
            text = self.ask(f"{self.fh.room}> ")
            if text is None:
                return self.stop()
            if not self.command(text):
                return self.stop()
        self.say("You are out of the Funhouse!")

    def stop(self) -> None:
        if self.save_path:
            self.save()

    def command(self, text: str) -> bool:
        """Handle one line; False to stop playing."""
        word = text.lower()
        if not word:
            return True
        if word in _QUIT_WORDS:
            return False
        if word == "help":
            self.show_help()
        elif word == "moves":
            self.show_moves(everything=True)
        elif word == "board":
            self.show_turn()
        elif word == "score":
            self.show_scores()
        elif word == "hint":
            hint = self.fh.hint()
            self.say(f"hint: {hint.move} ({hint.note})" if hint.move else f"hint: {hint.note}")
        elif word == "save" or word.startswith("save "):
            self.save(text[4:].strip() or None)
        elif word in _DONE_WORDS:
            problem = self.fh.finish_problem()
            if problem:
                self.say(f"cannot finish {self.fh.title} yet: {problem}")
            elif not self.finish_room():
                return False
        else:
            self.play_move(text)
        return True

    def play_move(self, text: str) -> None:
        moves = self.fh.legal_moves()
        move: Any = text
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(moves):
                self.say(f"there is no move {number}: the legal moves are numbered 1 to {len(moves)}"
                         if moves else "there is no legal move to pick: 'retry' or 'done'")
                return
            move = moves[number - 1]
        try:
            self.fh = self.fh.apply(move)
        except IllegalMove as err:
            self.say(f"illegal move: {err}")
            return
        except RulesError as err:
            self.say(f"{err} ('help' shows how to write moves)")
            return
        self.say(f"{self.fh.title}: {self.fh.rooms[-1].moves[-1]}")
        self.show_turn()


def _grouped(state: Any, moves: list) -> list[tuple[int, int, str]]:
    """Long move lists in short: Slide Jam's 48 ways of taking one family and a Catwalk coin's events as one
    line each, ``(first index, last index, text)``; other rooms' moves one by one."""
    if isinstance(state, slide_jam.State):
        key: Callable[[Any], Any] = lambda m: frozenset(m.cells)  # noqa: E731
    elif isinstance(state, catwalk.State):
        key = lambda m: m.coin  # noqa: E731
    else:
        return [(i, i, str(m)) for i, m in enumerate(moves)]
    groups: list[tuple[int, int, str]] = []
    for i, move in enumerate(moves):
        if groups and key(moves[groups[-1][0]]) == key(move) and groups[-1][1] == i - 1:
            groups[-1] = (groups[-1][0], i, groups[-1][2])
        else:
            groups.append((i, i, str(move)))
    out = []
    for first, last, text in groups:
        if first == last:
            out.append((first, last, text))
        elif isinstance(state, slide_jam.State):
            tiles = " ".join(tile_code(state.tile_at(c)) for c in moves[first].cells)
            out.append((first, last, f"{text}  (the family {tiles}: in any order, on stack 1 or 2, sliding U D L R)"))
        else:
            out.append((first, last, f"{text} .. {moves[last]}"))
    return out


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def write_save(fh: Funhouse, path: str) -> None:
    """Write the save file whole or not at all (a temporary file renamed over the target)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(fh.to_json(), handle, indent=1)
            handle.write("\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_save(path: str) -> Funhouse:
    """The game saved in ``path``; a :class:`UserError` naming the file when it is not a saved game."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        return Funhouse.from_json(text)
    except RulesError as err:
        raise UserError(f"{path}: {err}") from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, metavar="N", help="seed of the random generator (default: a random seed, "
                                                         "printed so the game can be dealt again)")
    p.add_argument("--save", metavar="FILE", help="save the game to FILE after each room, on 'save', on quit and at "
                                                  "the end of input")
    p.add_argument("--resume", metavar="FILE", help="carry on the game saved in FILE")
    p.add_argument("--json", action="store_true", help="print the final (or progress) summary as JSON on stdout; "
                                                       "the play goes to stderr")
    p.add_argument("--die", choices=sorted(ARRANGEMENTS), default="counter",
                   help="how the piecepack die's faces are arranged (Roll Out the Barrels; default counter)")
    p.add_argument("--list", type=int, default=_LIST_DEFAULT, metavar="N",
                   help=f"list at most N legal moves each turn (default {_LIST_DEFAULT}; 'moves' lists all)")


def run(args: argparse.Namespace) -> int:
    if args.resume and args.seed is not None:
        raise UserError("give --seed for a new game or --resume FILE for a saved one, not both (a saved game keeps "
                        "its seed)")
    if args.list < 1:
        raise UserError(f"--list must be at least 1, not {args.list}")
    out = sys.stderr if args.json else sys.stdout
    if args.resume:
        fh = read_save(args.resume)
    else:
        fh = Funhouse.new(args.seed, die=args.die)
        print(f"Epic Funhouse, seed {fh.seed}. Type a move, its number, or 'help'.", file=out)
    session = Session(fh, out, sys.stdin, args.save, args.list)
    try:
        session.play(resumed=bool(args.resume))
    except KeyboardInterrupt:
        session.stop()
        raise
    fh = session.fh
    if args.json:
        print_json(fh.summary())
    else:
        session.say()
        session.show_scores()
    return 0

