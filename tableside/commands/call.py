"""``tableside call easy-slider``: tableside as Easy Slider's Caller (the deal read out, Done calls, scores)."""

from __future__ import annotations

import argparse
import contextlib
import queue
import sys
import threading
import time
from typing import Any

from rules.base import RulesError
from rules.easy_slider import Match
from tableside.caller import Caller, player_names
from tableside.errors import UserError

NAME = "call"
ORDER = 72
HELP = "be Easy Slider's Caller: read out the deal, judge Done calls, keep the score"
DESCRIPTION = """\
tableside as the Caller of Easy Slider (Bring Your Own Piecepack): it deals a random board, reads out the pawn
draws, the coin draws and the tile flips in order, so every player (around the table, on the phone) sets up the
same board, says "Go!", then judges the "Done!" calls, scores them by the rules (points for the players still
solving, fumbles, the bonus for fumbles), says the standings after each round and plays off a tie.

  tableside call easy-slider --players 3 --rounds 3          three players, three rounds, a random deal
  tableside call easy-slider --players Ann,Bob --seed 42     names; the same seed gives the same deals
  tableside call easy-slider --seed 42 --deal-only           just read out round 1's deal (solitaire, remote)
  tableside call easy-slider --players 2 --slide-every 20    the "Slide!" variant: a slide every 20 seconds
  tableside call easy-slider --players 2 --source 0          boards judged by the camera (Done and Slide!)
  tableside call easy-slider --source picamera --reveal      read out what the Caller reveals on the table

With --reveal the Caller deals with real pieces: he lays the 24 tiles face down (the hole bottom right), puts
the pawns left of rows 1-4 and the coins above columns 1-5 as he draws them, and flips the tiles row by row;
tableside reads out each pawn, coin and tile once the camera sees it on a still table (never while a hand is
over the board), in the rules' order, then says "Go!". Keep the Caller's board alone in view.

Key presses (then Enter): a player's number or name when they call "Done!" (with the camera, the board is judged
when it can be read; otherwise tableside asks "correct? y or n"); "2 y" or "2 n" to give the verdict at once;
"s" for the standings; "q" to stop. Between rounds, Enter deals the next one. --pace sets the seconds between
the Caller's calls (default 1.5; 0 for none). The seed is printed so the match can be replayed (not with
--reveal: the Caller's shuffle deals).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tableside.announcer import add_speech_arguments

    p.add_argument("game", choices=["easy-slider"], help="the game (Easy Slider is the one with a Caller)")
    p.add_argument("--players", default="2", help="the number of players, or their names: Ann,Bob,Cy")
    p.add_argument("--rounds", type=int, default=3, help="the agreed number of rounds (default 3)")
    p.add_argument("--seed", help="the deal's seed (an integer or any text); default: random, printed")
    p.add_argument("--pace", type=float, default=1.5, metavar="SECONDS",
                   help="pause between the Caller's calls (default 1.5)")
    p.add_argument("--deal-only", action="store_true", help="read out round 1's deal and stop")
    p.add_argument("--slide-every", type=float, metavar="SECONDS",
                   help='the "Slide!" variant: call "Slide!" every SECONDS and check each board made one slide')
    cam = p.add_argument_group("camera")
    cam.add_argument("--source", metavar="SPEC", help="a camera (picamera, 0 ...), video or folder over the boards")
    cam.add_argument("--calibration", metavar="TABLE_JSON", help="the table calibration (default: the sheet)")
    cam.add_argument("--profile", metavar="SET_JSON", help="the piece set (tableside teach)")
    cam.add_argument("--reveal", action="store_true",
                     help="read out the pawns, coins and tiles as the Caller reveals them on the table (needs "
                          "--source) instead of dealing")
    cam.add_argument("--auto-done", action="store_true",
                     help="a board seen solved calls Done by itself (with --source)")
    p.add_argument("--json", action="store_true", help="print the match result as JSON at the end")
    add_speech_arguments(p)


def _seed(text: str | None) -> int | str | None:
    if text is None:
        return None
    text = text.strip()
    return int(text) if text.lstrip("-").isdigit() else text


class _Lines:
    """Key press lines from a stream, read on a thread so timers and the camera go on meanwhile."""

    def __init__(self, stream: Any) -> None:
        self.queue: queue.Queue[str | None] = queue.Queue()
        self.closed = False
        thread = threading.Thread(target=self._read, args=(stream,), daemon=True, name="tableside-keys")
        thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.queue.put(line.rstrip("\n"))
        self.queue.put(None)

    def get(self, timeout: float) -> str | None | bool:
        """A line, None at the end of input, False when nothing came within ``timeout``."""
        if self.closed:
            return None
        try:
            line = self.queue.get(timeout=timeout)
        except queue.Empty:
            return False
        if line is None:
            self.closed = True
        return line


def run(args: argparse.Namespace) -> int:
    from tableside.announcer import VoiceError, announcer_from_args

    try:
        players = player_names(args.players)
        if args.rounds < 1:
            raise UserError("--rounds must be at least 1")
        if args.pace < 0:
            raise UserError("--pace must be 0 or more seconds")
        if args.slide_every is not None and args.slide_every <= 0:
            raise UserError("--slide-every must be a positive number of seconds")
        if (args.reveal or args.auto_done) and not args.source:
            raise UserError("--reveal and --auto-done need a camera: give --source")
        Match(players, args.rounds)  # the names and rounds as the rules check them
    except RulesError as err:
        raise UserError(str(err)) from None
    try:
        announcer = announcer_from_args(args)
    except VoiceError as err:
        raise UserError(str(err)) from None
    out = sys.stdout
    eyes = None
    blas = contextlib.ExitStack()
    try:
        if args.source:
            from tableside.session import one_blas_thread

            blas.enter_context(one_blas_thread())
            from tableside.commands.watch import BoardsWatcher

            eyes = BoardsWatcher.open(args.source, args.calibration, args.profile, echo=out)
        caller = Caller(players, args.rounds, _seed(args.seed), say=lambda text: _speak(announcer, out, text),
                        pause=(lambda: time.sleep(args.pace)) if args.pace > 0 else None)
        if args.reveal:  # the Caller deals with real pieces, tableside reads them out as they appear
            assert eyes is not None
            deal_round = lambda: eyes.reveal(caller)  # noqa: E731
        else:
            print(f"seed {caller.seed}", file=out, flush=True)
            deal_round = lambda: caller.read_out(caller.deal())  # noqa: E731
        deal_round()
        if args.deal_only:
            return 0
        result = _play(caller, _Lines(sys.stdin), out, args.slide_every, eyes, args.auto_done, deal_round)
        if args.reveal:
            result["seed"] = None  # the Caller's own shuffle dealt
    finally:
        if eyes is not None:
            eyes.close()
        announcer.close()
        blas.close()
    if args.json:
        from tableside.output import print_json

        print_json(result)
    return 0


def _speak(announcer: Any, out: Any, text: str) -> None:
    print(f"caller: {text}", file=out, flush=True)
    announcer.say(text)


def _play(caller: Caller, lines: _Lines, out: Any, slide_every: float | None, eyes: Any, auto_done: bool,
          deal_round: Any) -> dict:
    """The match: key presses, "Slide!" timers and the camera, until the match is over or input ends;
    ``deal_round()`` deals (or follows the Caller's reveal of) each next round."""
    stopped = False
    next_slide = time.monotonic() + slide_every if slide_every else None
    while not stopped:
        if caller.match.round_over:
            if not caller.start_next():
                break
            print("press Enter to deal the next round", file=out, flush=True)
            line = _wait_line(lines, eyes, caller)
            if line is None or line.strip().lower() in ("q", "quit"):
                stopped = True
                break
            deal_round()
            next_slide = time.monotonic() + slide_every if slide_every else None
            continue
        if eyes is not None:
            eyes.step(caller, auto_done)
        if next_slide is not None and time.monotonic() >= next_slide:
            boards = eyes.board_states(caller.players) if eyes is not None else {}
            caller.slide_call(boards)
            next_slide += slide_every
        line = lines.get(0.05 if eyes is not None or next_slide is not None else 1.0)
        if line is False:
            continue
        if line is None:
            stopped = True
            break
        word = line.strip().lower()
        if not word:
            continue
        if word in ("q", "quit", "stop"):
            stopped = True
            break
        if word in ("s", "standings"):
            caller.say(caller_standings(caller))
            continue
        try:
            question = caller.key(line, eyes.boards(caller.players) if eyes is not None else None)
        except RulesError as err:
            print(f"? {err}", file=out, flush=True)
            continue
        if question:
            print(question, file=out, flush=True)
            caller.say(question)
    totals = caller.match.totals()
    if stopped and not caller.match.is_over():
        caller.say(caller_standings(caller))
    return {"seed": caller.seed, "players": caller.players, "rounds": caller.match.round_scores(),
            "totals": totals, "winner": caller.match.winner(), "over": caller.match.is_over()}


def caller_standings(caller: Caller) -> str:
    from tableside import phrases

    return phrases.standings(caller.match.totals())


def _wait_line(lines: _Lines, eyes: Any, caller: Caller) -> str | None:
    while True:
        line = lines.get(0.05 if eyes is not None else 1.0)
        if line is False:
            if eyes is not None:
                eyes.step(caller, False)
            continue
        return line
