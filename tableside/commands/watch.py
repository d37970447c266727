"""``tableside watch``: follow a game live from a camera (or a video, or a folder of frames), judge every move with
the rules, speak, and keep the journal. Also the vision side of the live loop (:class:`VisionReader`) and of
the Caller (:class:`BoardsWatcher`), which ``tableside call`` and ``tableside demo`` use."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from calibration.errors import CalibrationError
from rules import ROOMS
from rules.base import LayoutError, RulesError
from tableside.errors import UserError
from tableside.tracker import GameRules, GameTracker, Reading, game_rules
from vision.errors import VisionError
from vision.sources import Frame

NAME = "watch"
ORDER = 70
HELP = "follow a game live: judge every move with the rules, speak, keep the journal"
DESCRIPTION = """\
Watch a game being played: tableside looks at the table, waits until it is still (no hands, nothing moving),
reads the position, and has the rules judge what changed. A legal move is recorded in the journal (and said,
where the game calls for it); an illegal one is said with its reason; when it cannot read the board it asks
you to move your hand or fix the piece. A camera that stops, is bumped or sees the light change is said aloud,
and tableside finds the table again by itself (it asks for a recalibration only when it must).

  tableside watch --game easy-slider --source picamera --journal game.jsonl
  tableside watch --game slides-of-action --players 3 --source 0 --calibration table.json
  tableside watch --game martian-shuffleboard --players red,blue --source picamera
  tableside watch --game slide-jam --source game.mp4 --annotate-to seen.mp4 --speak-to said/
  tableside watch --game easy-slider --resume game.jsonl      carry on after a crash or a power cut
  tableside watch --game easy-slider --seed 42 ...             expect the Caller's deal of seed 42
  tableside watch --game whack-a-dummy --grid n23a/45n2/... --source picamera

Whack-a-Dummy: face-down coins hide their values, so give the maze's 24 values with --grid (reading order, from
Roll Out the Barrels). The die hides the coin it stands on: tableside follows that coin with the rules (the
move that lands on a coin flips it), from the set-up (every coin face down, the die not yet placed, or placed
on its unflipped start coin). Joining a game under way, say which side the coin under the die shows:
--die-coin up|down.

Games: easy-slider, slides-of-action, plans-of-action, martian-shuffleboard and the Epic Funhouse rooms
(slide-jam, magic-mirror, catwalk, roll-out-the-barrels, whack-a-dummy, trampo-land).
Sources: picamera (the Pi camera), a camera index (0), a video file, a folder of images. Without
--calibration the calibration sheet's markers are found in the first still frame.
Output: one line per event (moves, illegal moves, camera events, what was said); --json prints them as JSON
lines. The journal (--journal) holds every accepted move, on disk before it is announced; --export-ppn writes
the game as a PPN record at the end.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tableside.announcer import add_speech_arguments

    p.add_argument("--game", required=True, help="the game or Epic Funhouse room")
    p.add_argument("--source", metavar="SPEC", help="picamera, a camera index, a video or a folder "
                   "(default: picamera on a Raspberry Pi, else camera 0)")
    p.add_argument("--calibration", metavar="TABLE_JSON", help="the table calibration (default: the sheet's markers)")
    p.add_argument("--profile", metavar="SET_JSON", help="the piece set (tableside teach; default: built-in)")
    rec = p.add_argument_group("record")
    rec.add_argument("--journal", metavar="FILE", help="record the game in FILE (a new file)")
    rec.add_argument("--resume", metavar="JOURNAL", help="carry on the game recorded in JOURNAL")
    rec.add_argument("--export-ppn", metavar="PPN", help="write the game as a PPN record when watching ends")
    rec.add_argument("--annotate-to", metavar="DIR_OR_VIDEO",
                     help="write what tableside saw: a folder of JPEGs, or a .mp4/.avi video")
    rec.add_argument("--annotate-every", type=int, default=1, metavar="N",
                     help="keep every Nth annotated frame (judged frames are always kept)")
    g = p.add_argument_group("game options")
    g.add_argument("--players", help="Slides of Action: 2, 3 or suits in seating order; Martian Shuffleboard: "
                   "colours in turn order (red,blue)")
    g.add_argument("--one-diagonal", action="store_true", help="Slides of Action: the one-diagonal variant")
    g.add_argument("--goal", choices=("one", "all"), default="one", help="Plans of Action: one suit or all four")
    g.add_argument("--variant", help="Martian Shuffleboard: choice/scoring, e.g. any/smaller-on-larger")
    g.add_argument("--small-height-mm", type=float, help="Martian Shuffleboard: the Small height (default 25.4)")
    g.add_argument("--seed", help="Easy Slider: the Caller's deal expected on the table (tableside call --seed)")
    g.add_argument("--grid", help="Whack-a-Dummy: the maze's 24 coin values in reading order (e.g. n23a/45n2/...)")
    g.add_argument("--die-coin", choices=("up", "down"), help="Whack-a-Dummy joined under way: the side of the "
                   "coin under the die now (up = face up); later the rules know it")
    g.add_argument("--say-moves", action="store_true", help="also say every move")
    out = p.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print events as JSON lines")
    out.add_argument("--quiet", action="store_true", help="print only the summary")
    out.add_argument("--max-frames", type=int, metavar="N", help="stop after N frames")
    add_speech_arguments(p)


# ---------------------------------------------------------------------------------------------- game set-up


def game_and_room(name: str) -> tuple[str, str | None, str]:
    """(reading's game, room, the tracker's game name) of a --game value (a game or a Funhouse room)."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if key in ROOMS:
        return "epic-funhouse", key, key
    if key == "epic-funhouse":
        raise UserError("watch one Epic Funhouse room at a time: --game slide-jam, magic-mirror, catwalk, "
                        "roll-out-the-barrels, whack-a-dummy or trampo-land")
    return key, None, key


def game_options(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """The options tableside.reading and the rules take, from the command line."""
    players: Any = getattr(args, "players", None)
    if game == "slides-of-action":
        players = players or "2"
        players = int(players) if str(players).strip().isdigit() else [s.strip() for s in str(players).split(",")]
    elif game == "martian-shuffleboard":
        if not players:
            raise UserError("Martian Shuffleboard needs the players' colours in turn order: --players red,blue")
        players = [s.strip().lower() for s in str(players).split(",") if s.strip()]
    return {"players": players, "one_diagonal": getattr(args, "one_diagonal", False),
            "goal": getattr(args, "goal", "one"), "variant": getattr(args, "variant", None),
            "small_height_mm": getattr(args, "small_height_mm", None)}


def whack_options(args: argparse.Namespace, room: str | None, resumed: Any = None) -> dict[str, Any]:
    """``--grid`` (parsed, checked) for Whack-a-Dummy; --grid and --die-coin are refused for other games. On
    ``--resume`` without --grid the journal's grid (``resumed``: its tracked position) is used."""
    grid, die_coin = getattr(args, "grid", None), getattr(args, "die_coin", None)
    if room != "whack-a-dummy":
        if grid is not None or die_coin is not None:
            raise UserError("--grid and --die-coin are for --game whack-a-dummy")
        return {}
    if grid is None:
        if resumed is not None:
            return {"grid": list(resumed.grid)}
        raise UserError("Whack-a-Dummy: face-down coins hide their values: give the maze's 24 values with --grid "
                        "(reading order, from Roll Out the Barrels, e.g. n23a/45n2/...)")
    from tableside.reading import NotReadable, _parse_grid

    try:
        values = _parse_grid(grid)
    except NotReadable as err:
        raise UserError(str(err)) from None
    if resumed is not None and list(resumed.grid) != values:
        raise UserError("--grid differs from the grid of the game in the journal")
    return {"grid": values}


def start_state(game: str, options: dict[str, Any], seed: str | None, die_coin: str | None = None) -> Any:
    """The position a game starts from when it is known before looking (else None: the first reading).
    Whack-a-Dummy starts from the rules' set-up (every coin face down, the die not placed) unless ``die_coin``
    says the game is joined under way."""
    if game == "whack-a-dummy" and die_coin is None:
        from rules.epic_funhouse import whack_a_dummy as wad

        return wad.setup(options["grid"])
    if game == "martian-shuffleboard":
        from rules import martian_shuffleboard as ms

        kwargs = {"variant": options.get("variant")}
        if options.get("small_height_mm"):
            kwargs["small_height_mm"] = float(options["small_height_mm"])
        return ms.State.new(options["players"], **kwargs)
    if game == "easy-slider" and seed is not None:
        from rules.easy_slider import Setup
        from tableside.commands.call import _seed

        return Setup.from_seed(_seed(seed)).state()
    return None


def default_source() -> str:
    """``picamera`` on a Raspberry Pi, else camera 0."""
    try:
        model = Path("/proc/device-tree/model").read_text(errors="ignore")
    except OSError:
        model = ""
    return "picamera" if "raspberry" in model.lower() else "0"


# ----------------------------------------------------------------------------------------- the vision side


class VisionReader:
    """The live loop's :class:`~tableside.session.TableReader`: frames -> pieces (:mod:`vision.detect`) ->
    the game's position (:mod:`tableside.reading`) as a :class:`~tableside.tracker.Reading`.

    The calibration is the one given, or found from the sheet's markers in the first frame read; after a bump,
    :meth:`relock` finds the sheet again (keeping the lens model). Easy Slider boards are read cell by cell, so
    cells the vision could not read surely go to the tracker as *uncertain* (resolved with the rules); the
    other games' readers either read the whole position or say why not. Martian Shuffleboard positions are
    the upright pyramids seen (lying ones are being returned to their owners).
    """

    def __init__(self, game: str, room: str | None = None, options: dict[str, Any] | None = None,
                 calibration: Any = None, profile: Any = None) -> None:
        self.game = game
        self.room = room
        self.options = dict(options or {})
        self.calibration = calibration
        self.profile = profile
        from tableside.frame_input import GAME_KINDS

        # only the kinds of piece the game is played with (figures cost seconds where they do not matter)
        self.kinds = GAME_KINDS.get(room or game)
        self._detector: Any = None
        self.last_detection: Any = None

    # -- calibration
    def _ensure(self, image: Any) -> None:
        if self._detector is not None:
            return
        if self.calibration is None:
            from calibration.table_calibration import calibrate_from_sheet

            try:
                self.calibration = calibrate_from_sheet(image)
            except CalibrationError as err:
                raise VisionError(f"cannot find the table: show the calibration sheet or give --calibration "
                                  f"({str(err).rstrip('.')})") from None
        else:
            self.calibration.check_frame((image.shape[1], image.shape[0]))
        self._detector = self._make_detector(self.calibration)

    def _make_detector(self, calibration: Any) -> Any:
        from vision.detect import Detector

        try:
            # one set all session long: its tiles' colours are judged until a frame proves them the profile's
            return Detector(calibration, self.profile, colours_once=True)
        except CalibrationError:
            # No piece-set profile at all: pyramids need none (it describes a piecepack), the figure detector
            # alone reads them; every other game needs one, and the error says so.
            if self.kinds is not None and set(self.kinds) <= {"pyramid"} and self.profile is None:
                return _FigureDetector(calibration)
            raise

    def relock(self, frame: Frame) -> str | None:
        from calibration.table_calibration import calibrate_from_sheet

        lens = getattr(self.calibration, "lens", None) if self.calibration is not None else None
        if lens is not None and getattr(lens, "source", None) == "sheet":
            lens = None  # estimated from the sheet: estimate it again from the new view
        try:
            calibration = calibrate_from_sheet(frame.image, lens=lens)
        except CalibrationError as err:
            return f"the calibration sheet cannot be found ({str(err).rstrip('.')})"
        self.calibration = calibration
        proven = getattr(self._detector, "colours_proven", False)
        self._detector = self._make_detector(calibration)
        if proven:  # the table was found again: the pieces on it are the set a frame proved them before
            self._detector.colours_proven = True
        return None

    # -- reading
    def detect(self, frame: Frame) -> Any:
        self._ensure(frame.image)
        self.last_detection = self._detector.detect(frame.image, kinds=self.kinds)
        return self.last_detection

    def read(self, frame: Frame) -> Reading:
        detection = self.detect(frame)
        overlay = _overlay(detection)
        try:
            if self.game == "easy-slider":
                boards = self.read_boards(detection)
                if len(boards) != 1:
                    return Reading(None, reason=f"{len(boards)} Easy Slider boards are seen where one was expected",
                                   overlay=overlay, detection=detection)
                reading = boards[0]
            elif self.game == "martian-shuffleboard":
                reading = self._shuffleboard(detection)
            elif self.room == "whack-a-dummy":
                reading = self._whack(detection)
            else:
                from tableside.reading import read_state

                options = {k: v for k, v in self.options.items() if v is not None}
                reading = Reading(read_state(detection, self.game, self.room, **options).state)
        except (VisionError, RulesError) as err:
            return Reading(None, reason=str(err), overlay=overlay, detection=detection)
        return Reading(reading.state, reading.uncertain, reading.reason, reading.cells, overlay, detection)

    def read_boards(self, detection: Any) -> list[Reading]:
        """Every Easy Slider board in the detection (reading order), each as a Reading."""
        from tableside.reading import check_easy_slider

        return [_board_reading(verdict) for verdict in check_easy_slider(detection)]

    def _whack(self, detection: Any) -> Reading:
        """Whack-a-Dummy: the coin under the die is never seen; it goes to the tracker as the one unsure cell
        (the rules know its side), the rest read as ``state`` reads it."""
        from rules.epic_funhouse.roll_out_the_barrels import cell_name
        from rules.pieces import Kind
        from tableside.reading import NotReadable, all_pieces, read_state

        options = {k: v for k, v in self.options.items() if v is not None}
        options["die_coin"] = "down"  # a stand-in, marked unsure below: the tracker puts the rules' side there
        try:
            state = read_state(detection, self.game, self.room, **options).state
        except NotReadable:
            if not any(p.kind is Kind.DIE for p in all_pieces(detection)):  # mid-game: the die was taken off
                raise NotReadable("the die is not seen on the board: put it back on its coin") from None
            raise
        if state.cell is None:
            return Reading(state)
        die = cell_name(state.cell)
        return Reading(state, frozenset({die}), reason=f"the dummy under the die on {die} cannot be seen: say which "
                       "side is up with --die-coin up|down")

    def _shuffleboard(self, detection: Any) -> Reading:
        from rules import martian_shuffleboard as ms
        from rules.pieces import Kind

        unsure = [p for p in detection.uncertain if p.kind is Kind.PYRAMID]
        if unsure:
            return Reading(None, reason=f"a pyramid cannot be read surely: {unsure[0].reason or 'unclear'}")
        pyramids = [p for p in detection.pieces if p.kind is Kind.PYRAMID]
        kwargs = {"variant": self.options.get("variant")}
        if self.options.get("small_height_mm"):
            kwargs["small_height_mm"] = float(self.options["small_height_mm"])
        try:
            state = ms.State.from_layout(self.options["players"], pyramids, **kwargs)
        except LayoutError as err:
            return Reading(None, reason=str(err))
        return Reading(state)


#: The colours of solid pawns (B, G, R; only the hue matters) by suit.
_PAWN_BGR = {"suns": (40, 40, 220), "moons": (40, 40, 40), "crowns": (60, 160, 40), "arms": (200, 90, 30)}


def pawn_references(detection: Any, expected: Sequence[Any]) -> list[Any]:
    """Reference patches for :func:`vision.sources.channel_order_check` whose colour is known without reading
    it: Easy Slider's four pawns, top to bottom, are the Caller's draws (``expected`` suits, from the deal's
    seed). The vision's own colour readings cannot serve: it reads suits by colour, so a swapped camera reads
    a red pawn as blue and the check would agree with it. Empty unless exactly four pawns are seen left of the
    tiles."""
    import numpy as np

    from rules.pieces import TILE_MM, Kind, Suit
    from vision.sources import ReferencePatch

    tiles = [p.x_mm for p in detection.pieces if p.kind is Kind.TILE]
    if not tiles:
        return []
    left = min(tiles) - 0.6 * TILE_MM  # the pawns stand left of rows 1-4, beyond the first column's tiles
    def left_pawns(pieces: Any) -> list[Any]:
        return sorted((p for p in pieces if p.kind is Kind.PAWN and p.outline_px is not None and p.x_mm < left),
                      key=lambda p: p.y_mm)

    # the surely seen pawns when they are the four (a swapped camera's pawns still look like pawns), else all
    pawns = left_pawns(detection.pieces)
    if len(pawns) != len(expected):
        pawns = left_pawns([*detection.pieces, *detection.uncertain])
    if len(pawns) != len(expected):
        return []
    patches = []
    for pawn, suit in zip(pawns, expected, strict=True):
        name = Suit.parse(str(getattr(suit, "value", suit))).value
        pts = np.asarray(pawn.outline_px, dtype=np.float64).reshape(-1, 2)
        centre, half = pts.mean(axis=0), (pts.max(axis=0) - pts.min(axis=0)) / 6.0  # the middle third
        x, y = (centre - half).astype(int)
        w, h = np.maximum(2 * half, 2).astype(int)
        patches.append(ReferencePatch((int(x), int(y), int(w), int(h)), _PAWN_BGR[name], f"{name} pawn"))
    return patches


class ChannelCheckingReader:
    """A reader that checks once whether the Pi camera's red and blue channels are swapped (some camera and
    pipeline pairs do it: raspberrypi/picamera2#1325) against pieces of known colour (``references(detection)``
    -> patches, e.g. :func:`pawn_references` for a Caller's deal), and switches the source to swapping them back
    if they are (this frame is read again, swapped back). Readings pass through unchanged otherwise."""

    def __init__(self, reader: VisionReader, source: Any, references: Any, note: Any = print) -> None:
        self.reader = reader
        self.source = source
        self.references = references
        self.note = note
        self.checked = False

    def relock(self, frame: Frame) -> str | None:
        return self.reader.relock(frame)

    def read(self, frame: Frame) -> Reading:
        reading = self.reader.read(frame)
        if self.checked or reading.detection is None:
            return reading
        from dataclasses import replace

        from vision.sources import channel_order_check, swap_red_blue

        patches = self.references(reading.detection)
        if not patches:
            return reading
        report = channel_order_check(frame.image, patches)
        if report.swapped is None:
            return reading
        self.checked = True
        self.note(f"colour order checked on {report.patches_used} piece(s): {report.message}")
        if not report.swapped:
            return reading
        self.source.swap_red_blue = not getattr(self.source, "swap_red_blue", False)  # the next frames
        return self.reader.read(replace(frame, image=swap_red_blue(frame.image)))  # and this one


class _FigureDetector:
    """Pawns, dice and pyramids alone (vision.figures), in a Detection, with no piece-set profile."""

    def __init__(self, calibration: Any) -> None:
        self.calibration = calibration

    def detect(self, image: Any, kinds: Any = None) -> Any:
        import time

        from vision.figures import detect_figures
        from vision.pieces import Detection

        start = time.perf_counter()
        found = detect_figures(image, self.calibration, None, kinds=tuple(kinds or ("pyramid",)))
        return Detection([p for p in found if not p.uncertain], [p for p in found if p.uncertain],
                         (image.shape[1], image.shape[0]), {"figures": (time.perf_counter() - start) * 1000.0})


def _board_reading(verdict: Any) -> Reading:
    """A Done-check verdict of one board (tableside.reading) as a Reading: what is sure as cells, the rest
    uncertain; the whole position when everything is sure."""
    import rules.easy_slider as es

    cells: dict[Any, Any] = {}
    uncertain: set[Any] = set()
    reason = None
    for c in verdict.cells:
        cell = es.Cell(c.row, c.col)
        # A Done check cannot judge a cell whose pawn or coin is not read, but the tile on it may well be read
        # surely: for following the game, what is ON the cell is what counts.
        if c.status == "unknown" and c.found is None:
            uncertain.add(cell)
            reason = reason or f"{cell.name}: {c.reason}"
        else:
            cells[cell] = None if c.hole else c.found
    for i, suit in enumerate(verdict.pawns):
        if suit is None:
            uncertain.add(("pawn", i + 1))
            reason = reason or f"the pawn beside row {i + 1} cannot be read"
        cells[("pawn", i + 1)] = suit
    for j, rank in enumerate(verdict.coins):
        if rank is None:
            uncertain.add(("coin", j + 1))
            reason = reason or f"the coin above column {j + 1} cannot be read"
        cells[("coin", j + 1)] = rank
    if not uncertain:
        try:
            board = [cells[cell] for cell in es.CELLS]
            state = es.State.from_layout(board, verdict.pawns, verdict.coins)
            return Reading(state)
        except LayoutError as err:
            return Reading(None, reason=str(err))
    known = {k: v for k, v in cells.items() if k not in uncertain}
    return Reading(None, frozenset(uncertain), reason, known)


def _overlay(detection: Any) -> tuple:
    """What the annotated frames show of a detection: every outline, a short label on the pieces read surely
    (``5A`` a tile, ``c3`` a coin, ``pS`` a pawn, ``L red`` a pyramid), none on the unsure ones (drawn orange)."""
    from rules.pieces import Kind

    ranks = "na2345"
    items = []
    for piece, ok in [(p, True) for p in detection.pieces] + [(p, False) for p in detection.uncertain]:
        if piece.outline_px is None:
            continue
        suit = piece.suit.letter if piece.suit is not None else "?"
        rank = ranks[piece.rank] if piece.rank is not None and 0 <= piece.rank <= 5 else "?"
        if not ok:
            label = ""
        elif piece.kind is Kind.TILE:
            label = "back" if piece.side == "back" else f"{rank}{suit}"
        elif piece.kind is Kind.COIN:
            label = f"c{rank}" if piece.side == "value" else f"c{suit}"
        elif piece.kind is Kind.PAWN:
            label = f"p{suit}"
        else:
            label = piece.label
        items.append((piece.outline_px, label, ok))
    return tuple(items)


class BoardsWatcher:
    """The Caller's eyes: every Easy Slider board in view read whenever the table settles (``tableside call
    --source``), for Done checks, "Slide!" checks, boards solved (``--auto-done``) and the Caller's reveal."""

    def __init__(self, source: Any, reader: VisionReader, echo: TextIO | None = None) -> None:
        from vision.stillness import StillnessTracker

        self.source = source
        self.reader = reader
        self.echo = echo
        self.stillness = StillnessTracker()
        self.latest: list[Reading] = []
        self.ended = False
        self._auto_called: set[int] = set()
        self._first = True
        self.read_frames: list[int] = []  # the frames read (indexes)

    @classmethod
    def open(cls, spec: str, calibration: str | None = None, profile: str | None = None,
             echo: TextIO | None = None) -> BoardsWatcher:
        from vision.sources import open_source

        source = open_source(spec)
        reader = VisionReader("easy-slider", calibration=_load_calibration(calibration, source),
                              profile=_load_profile(profile))
        return cls(source, reader, echo)

    def close(self) -> None:
        self.source.close()

    def _frame(self) -> tuple[Frame, Any] | None:
        from vision.errors import CameraLost

        if self.ended:
            return None
        try:
            frame = self.source.read()
        except CameraLost as err:
            self._note(f"camera lost: {err}")
            try:
                self.source.reopen()
            except VisionError:
                self.ended = True
            return None
        if frame is None:
            self.ended = True
            return None
        still = self.stillness.update(frame.image, frame.time_s)
        return frame, still

    def _note(self, text: str) -> None:
        if self.echo is not None:
            print(f"camera: {text}", file=self.echo, flush=True)

    def step(self, caller: Any, auto_done: bool) -> None:
        """Read one frame; when the table settles, read the boards (and call Done for newly solved ones)."""
        got = self._frame()
        if got is None:
            return
        frame, still = got
        if still.event == "camera-moved":
            why = self.reader.relock(frame)
            self._note("moved: " + ("re-locked" if why is None else why))
        if not (still.settled and (still.changed or self._first)):
            return
        self._first = False
        self.read_frames.append(frame.index)
        try:
            self.latest = self.reader.read_boards(self.reader.detect(frame))
        except (VisionError, RulesError) as err:
            self._note(str(err))
            self.latest = []
        self.stillness.accept()
        self._note(f"{len(self.latest)} board(s) seen")
        if not auto_done:
            return
        for i, reading in enumerate(self.latest):
            if i >= len(caller.players) or i in self._auto_called:
                continue
            state = reading.state
            if state is not None and state.is_over() and caller.players[i] in caller.match.still_playing():
                self._auto_called.add(i)
                caller.key(str(i + 1), self.latest)

    def boards(self, players: list[str]) -> list[Reading]:
        return list(self.latest)

    def board_states(self, players: list[str]) -> dict[str, Any]:
        return {p: (self.latest[i].state if i < len(self.latest) else None) for i, p in enumerate(players)}

    def reveal(self, caller: Any, recheck_s: float = 0.75, max_rechecks: int = 3) -> None:
        """Follow the Caller revealing the board on the table, saying each pawn, coin and tile as it appears.

        The reveal starts once no tile is seen face up (Setup 1: the tiles are laid face down first; the previous
        round's board is not read out again). The board is read when the table settles after a change (never
        while a hand is in view). A piece in
        place but not read surely is looked at again after ``recheck_s`` seconds of continued stillness (the
        camera's noise differs from frame to frame), up to ``max_rechecks`` times, rather than waiting for the
        next change."""
        from tableside.reading import all_pieces
        from vision.grid_games import find_easy_slider_boards

        caller.say(f"Round {caller.round_number}: reveal the board")
        due: float | None = None
        rechecks = 0
        started = False
        while True:
            got = self._frame()
            if got is None:
                if self.ended:
                    raise UserError("the frames ended before the whole board was revealed")
                continue
            frame, still = got
            if still.event == "camera-moved":
                why = self.reader.relock(frame)
                self._note("moved: " + ("re-locked" if why is None else why))
            if still.settled and (still.changed or self._first):
                rechecks = 0
            elif still.still and due is not None and frame.time_s >= due:
                rechecks += 1
            else:
                continue
            due = None
            self._first = False
            self.stillness.accept()
            self.read_frames.append(frame.index)
            try:
                boards = find_easy_slider_boards(all_pieces(self.reader.detect(frame)))
            except (VisionError, RulesError) as err:
                boards, why = [], str(err)
            else:
                why = f"{len(boards)} boards seen: the Caller's board must be the only one in view"
            if len(boards) != 1:
                self._note(f"frame {frame.index}: {why}")
                seen = None
            else:
                seen = _revealed(boards[0])
                self._note(f"frame {frame.index}: read {sum(p is not None for p in seen.pawns)} pawn(s), "
                           f"{sum(c is not None for c in seen.coins)} coin(s), {len(seen.tiles)} tile face(s)"
                           + (f"; {seen.unread} piece(s) not read surely" if seen.unread else ""))
                if not started and seen.tiles:
                    # the previous round's board still face up: the reveal starts from the tiles face down
                    self._note("waiting for the tiles to be laid face down (rules, Setup 1)")
                    continue
                started = True
                if caller.reveal(seen.pawns, seen.coins, seen.tiles):
                    return
            if (seen is None or seen.unread) and rechecks < max_rechecks:
                due = frame.time_s + recheck_s


@dataclass(frozen=True)
class RevealSeen:
    """What the camera sees of a board being revealed: ``pawns`` by row and ``coins`` by column (None: not there
    or not read), the face-up ``tiles`` by cell, and how many pieces are in place but ``unread``."""

    pawns: list[Any]
    coins: list[Any]
    tiles: dict[Any, Any]
    unread: int


def _revealed(layout: Any) -> RevealSeen:
    """What is revealed of a board (a :class:`vision.grid_games.EasySliderLayout`) so far."""
    import rules.easy_slider as es
    from rules.pieces import SUITS, Tile

    present_pawns = [p is not None for p in layout.pawns]
    present_coins = [c is not None for c in layout.coins]
    pawns = [None if p is None or p.uncertain else p.suit for p in layout.pawns]
    coins = [None if c is None or c.uncertain or c.side != "value" else c.rank for c in layout.coins]
    # The Caller's four pawns are one of each suit and his five coins the ace to the 5 of one suit (Setup 2):
    # the last one in place, when the others are read, is known by elimination.
    pawns = _by_elimination(pawns, present_pawns, list(SUITS))
    coins = _by_elimination(coins, present_coins, [1, 2, 3, 4, 5])
    tiles = {}
    unread = sum(1 for p, there in zip(pawns, present_pawns, strict=True) if there and p is None)
    unread += sum(1 for c, there in zip(coins, present_coins, strict=True) if there and c is None)
    for (c, r), fits in layout.cells.items():
        piece = fits[0].piece if len(fits) == 1 else None
        if piece is not None and not piece.uncertain and piece.side == "face" and piece.suit is not None \
                and piece.rank is not None:
            tiles[es.Cell(r + 1, c + 1)] = Tile(piece.suit, piece.rank)
        elif piece is None or piece.uncertain:
            unread += 1
    unread += max(0, 24 - len(layout.cells))  # tiles not seen at all
    return RevealSeen(pawns, coins, tiles, unread)


def _by_elimination(marks: list[Any], present: list[bool], universe: list[Any]) -> list[Any]:
    """``marks`` with the one piece in place but not read filled in, when every other one of ``universe`` is read
    (each exactly once)."""
    known = [m for m in marks if m is not None]
    missing = [i for i, m in enumerate(marks) if m is None and present[i]]
    free = [u for u in universe if u not in known]
    if len(missing) == 1 and len(free) == 1 and len(set(known)) == len(known) == len(universe) - 1:
        marks = list(marks)
        marks[missing[0]] = free[0]
    return marks


def _load_calibration(path: str | None, source: Any) -> Any:
    if not path:
        return None
    from calibration.calibration_file import load_calibration

    return load_calibration(path)


def _load_profile(path: str | None) -> Any:
    if not path:
        return None
    from calibration.profile import load_profile

    return load_profile(path)


# --------------------------------------------------------------------------------------------------- the verb


def run(args: argparse.Namespace) -> int:
    from tableside.announcer import VoiceError, announcer_from_args
    from tableside.journal import Journal
    from tableside.session import Annotator, Session, narrator_for, one_blas_thread
    from vision.sources import open_source

    reading_game, room, name = game_and_room(args.game)
    try:
        rules = game_rules(name, die_coin=getattr(args, "die_coin", None)) if room == "whack-a-dummy" \
            else game_rules(name)
    except RulesError as err:
        raise UserError(str(err)) from None
    options = game_options(args, reading_game)
    if args.resume and getattr(args, "die_coin", None) is not None:
        raise UserError("--die-coin is for joining a game under way: a resumed game knows the coin under the die")
    if args.journal and args.resume:
        raise UserError("give --journal (a new game) or --resume (carry one on), not both")
    if args.journal and Path(args.journal).exists():
        raise UserError(f"{args.journal} already exists: use --resume {args.journal} to carry that game on, "
                        "or give a new file")
    if args.export_ppn:
        _check_writable(Path(args.export_ppn))
    if args.annotate_every < 1:
        raise UserError("--annotate-every must be at least 1")
    journal = None
    if args.resume:
        journal = Journal.resume(args.resume)
        try:
            tracker = Session.resume_tracker(rules, journal)
            options.update(whack_options(args, room, tracker.state))
        except (RulesError, UserError):
            journal.close()
            raise
        if journal.recovered is not None:
            print(f"{args.resume}: dropped a half-written last line (kept in {journal.recovered.partial_path})",
                  file=sys.stderr)
    else:
        options.update(whack_options(args, room))
        tracker = GameTracker(rules, start_state(name, options, args.seed, getattr(args, "die_coin", None)))
    try:
        announcer = announcer_from_args(args)
    except VoiceError as err:
        raise UserError(str(err)) from None
    source = open_source(args.source or default_source())
    session = None
    try:
        reader: Any = VisionReader(reading_game, room, options, _load_calibration(args.calibration, source),
                                   _load_profile(args.profile))
        if hasattr(source, "swap_red_blue") and name == "easy-slider" and args.seed is not None:
            # the Pi camera: check its colour order once, on the Caller's pawns (their colours are known)
            from rules.easy_slider import Setup
            from tableside.commands.call import _seed

            pawns = Setup.from_seed(_seed(args.seed)).pawns
            reader = ChannelCheckingReader(reader, source, lambda detection: pawn_references(detection, pawns),
                                           note=lambda text: print(text, file=sys.stderr))
        annotator = None
        if args.annotate_to:
            fps = getattr(source, "fps", None) or 4.0
            annotator = Annotator(args.annotate_to, fps=fps, every=args.annotate_every)
        echo = None if args.quiet else sys.stdout
        session = Session(source, reader, tracker, announcer=announcer,
                          narrator=narrator_for(name, args.say_moves or None), journal_path=args.journal,
                          journal=journal, journal_options={k: v for k, v in options.items() if v is not None},
                          annotator=annotator, echo=echo, json_events=args.json)
        with one_blas_thread():
            report = session.run(args.max_frames)
    finally:
        source.close()
        announcer.close()
        recorded = session.journal if session is not None else journal
        if recorded is not None:
            recorded.close()
    if args.export_ppn:
        export_ppn(rules, tracker, Path(args.export_ppn), session.journal)
    summary = {"game": name, "frames": report.frames, "moves": report.moves, "ended": report.ended,
               "journal": str(session.journal.path) if session.journal is not None else None}
    if args.json:
        print(json.dumps({"summary": summary}, default=str))
    else:
        print(f"{len(report.moves)} move(s) recorded over {report.frames} frames ({report.ended})"
              + (f"; journal {summary['journal']}" if summary["journal"] else ""))
    return 0


def _check_writable(path: Path) -> None:
    if path.is_dir():
        raise UserError(f"{path} is a folder: give a file name for --export-ppn")
    if not path.parent.exists():
        raise UserError(f"no folder {path.parent} for --export-ppn")


def export_ppn(rules: GameRules, tracker: GameTracker, path: Path, journal: Any = None) -> Path:
    """Write the game as a PPN record: through the game's PPN adapter (set-up and moves piecepackr can replay)
    when it has one, else the journal's own export."""
    from rules import ppn
    from rules.ppn.games import ADAPTERS, record

    if tracker.start_state is None:
        raise UserError("nothing to export: the game never started (the board was never read)")
    if rules.name in ADAPTERS:
        game = record(rules.name, tracker.start_state, tracker.moves, {"Event": "tableside watch"})
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(ppn.dumps(game), encoding="utf-8")
        tmp.replace(path)
        return path
    if journal is None:
        raise UserError(f"{rules.name} has no PPN adapter: record it with --journal to export it")
    return journal.export_ppn(path)
