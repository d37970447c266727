"""The live loop: watch the table, judge every settled change with the rules, speak, and keep the record.

One :class:`Session` runs one game in front of one camera::

    frames --> StillnessTracker --settled--> reader.read(frame) --Reading--> GameTracker --Verdict-->
                   |                                                                     journal (fsync'ed)
                   +-- dropout / camera moved / light changed --> announcements          Narrator --> Announcer

* **Every frame** goes to :class:`vision.stillness.StillnessTracker` (cheap). Nothing is judged while the table
  moves or a hand is in view: only the first still frame after a change (``settled``) is read.
* **A settled frame** is read by the session's :class:`TableReader` (``read(frame) -> Reading``; the vision
  pipeline in ``tableside watch``, the renderer's ground truth in tests) and judged by the
  :class:`~tableside.tracker.GameTracker`. Whatever the verdict, the stillness reference moves to this frame
  (``accept``), so the next change is measured from what was just judged. A reading that could not be judged
  (a hand, an unsure piece) is read again once the table has stayed still for ``recheck_s``.
* **Legal moves** are appended to the journal (written and fsync'ed) *before* they are announced, so whatever
  was said is on disk. The journal is opened when the starting position is known (its header holds that
  position, so ``--resume`` can rebuild the game by replaying the moves).
* **The camera**: a live source that stops (:class:`~vision.errors.CameraLost`) is reopened, with the loss and
  the return said aloud; blank frames or a gap in time (``dropout``) are said once; a bumped camera
  (``camera-moved``) is said, and the reader re-locks onto the table (``reader.relock(frame)``: the sheet's
  markers found again and the homography recomputed); when it cannot, the players are asked to recalibrate and
  judging waits until a re-lock succeeds. A large light change is said once.
* **What is said** is game-specific (:class:`Narrator` and its subclasses): Slides of Action says whose turn it
  is, illegal slide backs and the winner; Martian Shuffleboard the score after each flick, crashes and returns,
  and the final result; Plans of Action and the Funhouse rooms the move count and the room's score; Easy Slider
  (watched alone) illegal slides and the Done check when the board is solved.

Every step is also an :class:`Event` (``session.events``; printed as one line each, or JSON lines) and,
optionally, an annotated frame (:class:`Annotator`: a video file or a folder of JPEGs showing what tableside
saw: the hand and change boxes, the pieces read, the state and the last thing said).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

import cv2
import numpy as np

from rules.base import RulesError
from tableside import phrases
from tableside.journal import Journal, MoveRecord
from tableside.tracker import GameRules, GameTracker, Reading, Verdict
from vision.errors import CameraLost, VisionError
from vision.sources import Frame, FrameSource
from vision.stillness import StillnessParams, StillnessState, StillnessTracker

__all__ = [
    "TableReader",
    "Event",
    "Narrator",
    "narrator_for",
    "Annotator",
    "Session",
    "SessionReport",
]


class TableReader(Protocol):
    """What the session needs from the vision: a reading of a still frame, and re-locking after a bump."""

    def read(self, frame: Frame) -> Reading: ...

    def relock(self, frame: Frame) -> str | None:
        """Find the table again in ``frame`` (the camera moved); None when done, else why it could not."""
        ...



def one_blas_thread() -> contextlib.AbstractContextManager:
    """A context in which numpy's BLAS (OpenBLAS) uses one thread. The detector makes many small matrix products
    per frame; OpenBLAS's extra threads busy-wait between them. Measured on a shared 2-core machine:
    ``tableside call --reveal`` on the reveal fixture took 37-39 s CPU and 76 s wall with BLAS's 2 threads,
    9.5 s CPU and 20 s wall with one. The live loop judges one frame at a time, so one thread is all it needs.
    (threadpoolctl sets it at run time; numpy is already loaded when a verb runs, too late for
    OPENBLAS_NUM_THREADS.) Without threadpoolctl nothing changes."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")

@dataclass(frozen=True)
class Event:
    """One thing that happened: ``kind`` (start, move, illegal, restored, unreadable, ambiguous, over,
    camera-lost, camera-back, dropout, camera-moved, relocked, relock-failed, light-changed, say, end),
    the frame and its time, a line of ``text`` and JSON-ready ``data``."""

    kind: str
    frame: int
    time_s: float
    text: str
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "frame": self.frame, "time_s": round(self.time_s, 3), "text": self.text,
                **self.data}

    def __str__(self) -> str:
        return f"[{self.frame:5d} {self.time_s:7.2f}s] {self.kind}: {self.text}"


# ------------------------------------------------------------------------------------------------ narration


def _sentence_reason(reason: str) -> str:
    reason = reason.strip().rstrip(".")
    return reason[:1].upper() + reason[1:] if reason else reason


class Narrator:
    """What tableside says about a game's verdicts. The base class covers what every game shares."""

    say_moves = False

    def __init__(self, say_moves: bool | None = None) -> None:
        if say_moves is not None:
            self.say_moves = say_moves

    def who(self, before: Any, move: Any) -> str | None:
        """The player (or board) a move is recorded for in the journal."""
        return None

    def start(self, state: Any, resumed: bool, played: int = 0) -> list[str]:
        """What is said when watching starts (``played``: moves already in the journal when resumed)."""
        if resumed:
            return [f"Resumed after {phrases.count(played, 'move')}: watching again"]
        return ["I can see the board: watching"]

    def move_words(self, before: Any, move: Any, after: Any) -> str:
        return str(move)

    def moves(self, verdict: Verdict, before: Any) -> list[str]:
        out = []
        if self.say_moves:
            state = before
            for move, after in zip(verdict.moves, verdict.states, strict=True):
                out.append(self.move_words(state, move, after))
                state = after
        return out + self.after_moves(verdict, before)

    def after_moves(self, verdict: Verdict, before: Any) -> list[str]:
        return self.over(verdict.state) if verdict.state.is_over() else []

    def over(self, state: Any) -> list[str]:
        result = getattr(state, "result", None)
        return [_sentence_reason(result())] if callable(result) else ["The game is over"]

    def illegal(self, verdict: Verdict) -> list[str]:
        return [phrases.illegal_move(verdict.reason or "")]

    def unreadable(self, verdict: Verdict) -> list[str]:
        reason = verdict.reason or ""
        if "hand" in reason:
            return [phrases.move_hand()]
        if not reason:
            return [phrases.not_sure()]
        return [f"I cannot see that clearly: {reason}", "Please move your hand or fix the piece"]

    def ambiguous(self, verdict: Verdict) -> list[str]:
        return [phrases.not_sure()]

    def restored(self, verdict: Verdict) -> list[str]:
        return [phrases.position_restored()]


class EasySliderNarrator(Narrator):
    """Easy Slider watched on its own board: illegal slides, and the Done check once the board is solved."""

    def who(self, before: Any, move: Any) -> str | None:
        return "board"

    def move_words(self, before: Any, move: Any, after: Any) -> str:
        tile = before.tile_at(move.from_cell)
        name = tile.spoken if tile is not None else str(move.from_cell)
        return f"{name} {move.direction or 'slides'}"

    def start(self, state: Any, resumed: bool, played: int = 0) -> list[str]:
        if resumed:
            return [f"Resumed after {phrases.count(played, 'slide')}: watching again"]
        return ["I can see the board: slide!"]

    def after_moves(self, verdict: Verdict, before: Any) -> list[str]:
        if verdict.state.is_over():
            return ["Done! " + verdict.state.done_check().spoken()]
        return []


class SlidesOfActionNarrator(Narrator):
    """Slides of Action: whose turn it is after every slide, illegal slide backs, the winner."""

    say_moves = True

    def who(self, before: Any, move: Any) -> str | None:
        return phrases.who(before.turn)

    def move_words(self, before: Any, move: Any, after: Any) -> str:
        return f"{phrases.who(before.turn)}: {move.describe()}"

    def start(self, state: Any, resumed: bool, played: int = 0) -> list[str]:
        lead = "Resumed" if resumed else "I can see the board"
        if state.is_over():
            return [f"{lead}", *self.over(state)]
        return [f"{lead}: {phrases.turn(state.turn)}"]

    def after_moves(self, verdict: Verdict, before: Any) -> list[str]:
        state = verdict.state
        if state.is_over():
            return self.over(state)
        return [phrases.turn(state.turn)]

    def over(self, state: Any) -> list[str]:
        winner = state.winner()
        if winner is not None and winner in state.players:
            return [phrases.slides_winner(winner, [s for s in state.connected_suits() if s != winner])]
        return [_sentence_reason(state.result())]

    def illegal(self, verdict: Verdict) -> list[str]:
        reason = verdict.reason or ""
        if reason.startswith("no slide backs"):
            return [phrases.no_slide_back()]
        return [phrases.illegal_move(reason)]


class PlansOfActionNarrator(Narrator):
    """Plans of Action: the move count after each move, the result when a suit is connected."""

    def who(self, before: Any, move: Any) -> str | None:
        return "solitaire"

    def after_moves(self, verdict: Verdict, before: Any) -> list[str]:
        state = verdict.state
        out = [phrases.room_moves(state.moves)]
        if state.is_over():
            out += self.over(state)
        return out


class ShuffleboardNarrator(Narrator):
    """Martian Shuffleboard: crashes and returns, the score after each flick, the final result."""

    def who(self, before: Any, move: Any) -> str | None:
        return phrases.who(move.player)

    def start(self, state: Any, resumed: bool, played: int = 0) -> list[str]:
        lead = "Resumed" if resumed else "Martian Shuffleboard"
        if state.is_over():
            return [lead, phrases.shuffleboard_result(state.scores())]
        return [f"{lead}: {phrases.who(state.player_to_move)} to flick"]

    def moves(self, verdict: Verdict, before: Any) -> list[str]:
        from rules.martian_shuffleboard import Crash, Placement

        out: list[str] = []
        for move in verdict.moves:
            mover = move.player
            for piece, outcome in ((move.piece, move.outcome), *move.crashes):
                if outcome is Crash.FLAT:
                    out.append(phrases.knocked_flat(piece.color, piece.size.value))
                elif outcome is Crash.OFF:
                    out.append(phrases.fell_off(piece.color, piece.size.value, own_turn=piece.color == mover))
                elif isinstance(outcome, Placement) and self.say_moves and piece == move.piece:
                    out.append(f"{phrases.pyramid_name(piece.color, piece.size.value)} is in play")
        state = verdict.state
        if state.is_over():
            out.append(phrases.shuffleboard_result(state.scores()))
        else:
            out.append(phrases.flick_scores(state.scores()))
            out.append(f"{phrases.who(state.player_to_move)} to flick")
        return out


class RoomNarrator(Narrator):
    """An Epic Funhouse room: the move count, and the room's score when it is over."""

    def __init__(self, room: str, say_moves: bool | None = None) -> None:
        super().__init__(say_moves)
        self.room = room
        self.count = 0

    def start(self, state: Any, resumed: bool, played: int = 0) -> list[str]:
        self.count = played
        return [phrases.room_title(self.room)] + ([] if not resumed else ["Resumed: watching again"])

    def after_moves(self, verdict: Verdict, before: Any) -> list[str]:
        self.count += len(verdict.moves)
        out = [phrases.room_moves(self.count)]
        state = verdict.state
        if state.is_over():
            score = state.score() if callable(getattr(state, "score", None)) else 0
            out.append(phrases.room_score(self.room, int(score)))
            nxt = _next_room(self.room)
            if nxt is not None:
                out.append(phrases.next_room(nxt))
        return out


def _next_room(room: str) -> str | None:
    from rules import ROOMS

    names = list(ROOMS)
    i = names.index(room) if room in names else -1
    return names[i + 1] if 0 <= i < len(names) - 1 else None


def narrator_for(game: str, say_moves: bool | None = None) -> Narrator:
    """The narrator of a game (or Epic Funhouse room) by name."""
    from rules import ROOMS

    if game == "easy-slider":
        return EasySliderNarrator(say_moves)
    if game == "slides-of-action":
        return SlidesOfActionNarrator(say_moves)
    if game == "plans-of-action":
        return PlansOfActionNarrator(say_moves)
    if game == "martian-shuffleboard":
        return ShuffleboardNarrator(say_moves)
    if game in ROOMS:
        return RoomNarrator(game, say_moves)
    return Narrator(say_moves)


# ----------------------------------------------------------------------------------------------- annotation


_COLOURS = {"hand": (40, 40, 230), "changed": (0, 200, 255), "ok": (60, 200, 60), "unsure": (0, 140, 255),
            "text": (255, 255, 255), "bar": (30, 30, 30)}


class Annotator:
    """Draws what tableside saw on each frame and writes it to a video (``.mp4``/``.avi``) or a folder (JPEGs).

    ``every``: keep one frame in ``every`` (judged frames are always kept); ``max_width``: frames wider than
    this are scaled down first (annotated output is for people, not for the vision).
    """

    def __init__(self, target: str | Path, fps: float = 4.0, every: int = 1, max_width: int = 1280) -> None:
        self.target = Path(target)
        self.fps = float(fps) if fps and fps > 0 else 4.0
        self.every = max(1, int(every))
        self.max_width = int(max_width)
        self.video = self.target.suffix.lower() in (".mp4", ".avi")
        self._writer: cv2.VideoWriter | None = None
        self.written = 0
        if not self.video:
            self.target.mkdir(parents=True, exist_ok=True)

    def draw(self, frame: Frame, still: StillnessState | None, status: str, said: Sequence[str],
             reading: Reading | None) -> np.ndarray:
        """The frame with the hand boxes (red), the changed regions (orange), the pieces of the last reading
        (green; orange when unsure: drawn only while the table is still, i.e. while they are what was read) and a
        status bar: frame, time, state and the last two things said."""
        image = frame.image.copy()
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        scale = min(1.0, self.max_width / image.shape[1])
        if scale < 1.0:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        font = max(0.32, min(0.6, image.shape[1] / 1100.0))
        if reading is not None and still is not None and still.still:
            for points, label, ok in reading.overlay:
                pts = np.asarray(points, dtype=np.float64).reshape(-1, 2) * scale
                colour = _COLOURS["ok" if ok else "unsure"]
                if len(pts) > 1:
                    cv2.polylines(image, [np.round(pts).astype(np.int32)], True, colour, 1, cv2.LINE_AA)
                centre = pts.mean(axis=0)
                if label:
                    _text(image, str(label), (int(centre[0] - 10 * font), int(centre[1] + 6 * font)), font * 0.8,
                          colour)
        if still is not None:
            for box, key, width in [(b, "changed", 1) for b in still.changed_boxes] + [(b, "hand", 2)
                                                                                        for b in still.hand_boxes]:
                x, y, w, h = (int(round(v * scale)) for v in box)
                cv2.rectangle(image, (x, y), (x + w, y + h), _COLOURS[key], width)
        lines = [f"frame {frame.index}  {frame.time_s:.2f}s  {status}"] + [f"> {s}" for s in said[-2:]]
        step = int(40 * font) + 2
        cv2.rectangle(image, (0, 0), (image.shape[1], step * len(lines) + 6), _COLOURS["bar"], -1)
        for i, line in enumerate(lines):
            _text(image, line[:160], (6, step * (i + 1) - 2), font, _COLOURS["text"])
        return image

    def write(self, image: np.ndarray, index: int, keep: bool = False) -> None:
        if not keep and index % self.every:
            return
        if self.video:
            if self._writer is None:
                fourcc = "mp4v" if self.target.suffix.lower() == ".mp4" else "MJPG"
                self.target.parent.mkdir(parents=True, exist_ok=True)
                self._writer = cv2.VideoWriter(str(self.target), cv2.VideoWriter_fourcc(*fourcc), self.fps,
                                               (image.shape[1], image.shape[0]))
                if not self._writer.isOpened():
                    raise VisionError(f"cannot write the annotated video {self.target} (codec {fourcc})")
            self._writer.write(image)
        else:
            cv2.imwrite(str(self.target / f"frame_{index:06d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        self.written += 1

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()
            self._writer = None


def _text(image: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int]) -> None:
    # One pass: OpenCV 5 draws FONT_HERSHEY_* with a real font whose width grows with the thickness, so a thick
    # dark "outline" pass would not line up with the text.
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


# ------------------------------------------------------------------------------------------------- session


@dataclass
class SessionReport:
    """How a session ended: frames seen, the verdicts, the moves recorded, the events."""

    frames: int
    moves: list[str]
    events: list[Event]
    state: Any
    ended: str  # "end of source", "camera lost", "stopped", "game over"

    def kinds(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


class Session:
    """One game watched live (see the module docstring).

    ``source``: frames; ``reader``: a :class:`TableReader`; ``tracker``: the game's
    :class:`~tableside.tracker.GameTracker` (its ``state`` is the start when known); ``announcer``: anything
    with ``say(text)`` (None: silent); ``narrator``: the game's :class:`Narrator`; ``journal_path``: where to
    record the game (opened at the start, or ``journal`` an already resumed :class:`~tableside.journal.Journal`);
    ``annotator``: optional :class:`Annotator`; ``echo``: a stream for one line per event (None: quiet),
    ``json_events``: print them as JSON lines instead.
    """

    def __init__(
        self,
        source: FrameSource,
        reader: TableReader,
        tracker: GameTracker,
        announcer: Any = None,
        narrator: Narrator | None = None,
        journal_path: str | Path | None = None,
        journal: Journal | None = None,
        journal_options: dict | None = None,
        annotator: Annotator | None = None,
        stillness: StillnessParams | None = None,
        play_region: tuple[int, int, int, int] | None = None,
        echo: TextIO | None = None,
        json_events: bool = False,
        recheck_s: float = 0.75,
        max_rechecks: int = 3,
        reopen_attempts: int = 5,
        reopen_delay_s: float = 1.0,
        stop_when_over: bool = False,
        on_verdict: Callable[[Verdict, Frame], None] | None = None,
    ) -> None:
        self.source = source
        self.reader = reader
        self.tracker = tracker
        self.rules: GameRules = tracker.rules
        self.announcer = announcer
        self.narrator = narrator or narrator_for(tracker.rules.name)
        self.journal_path = None if journal_path is None else Path(journal_path)
        self.journal = journal
        self.journal_options = dict(journal_options or {})
        self.annotator = annotator
        self.stillness = StillnessTracker(stillness or StillnessParams(), play_region)
        self.echo = echo
        self.json_events = json_events
        self.recheck_s = recheck_s
        self.max_rechecks = max_rechecks
        self.reopen_attempts = reopen_attempts
        self.reopen_delay_s = reopen_delay_s
        self.stop_when_over = stop_when_over
        self.on_verdict = on_verdict
        self.events: list[Event] = []
        self.said: list[str] = []
        self.frames = 0
        self.judged_frames: list[int] = []  # the frames read and judged (for tests and the annotated record)
        self.latencies_s: list[float] = []  # wall time from reading a settled frame to its announcement
        self._resumed = journal is not None
        self._played_at_start = len(tracker.history)
        self._started_announced = False
        self._locked = True
        self._dropout = False
        self._recheck_due: float | None = None
        self._rechecks = 0
        self._asked = False
        self._last_reading: Reading | None = None
        self._status = "starting"
        self._stop = False

    # -------------------------------------------------------------------------------------------- output

    def _event(self, kind: str, frame: Frame | None, text: str, **data: Any) -> Event:
        event = Event(kind, -1 if frame is None else frame.index, 0.0 if frame is None else frame.time_s, text,
                      data)
        self.events.append(event)
        if self.echo is not None:
            line = json.dumps(event.to_json(), default=str) if self.json_events else str(event)
            print(line, file=self.echo, flush=True)
        return event

    def say(self, text: str, frame: Frame | None = None) -> None:
        if not text:
            return
        self.said.append(text)
        self._event("say", frame, text)
        if self.announcer is not None:
            self.announcer.say(text)

    def stop(self) -> None:
        """Ask the loop to end after the current frame (from another thread or a callback)."""
        self._stop = True

    # ---------------------------------------------------------------------------------------------- run

    def run(self, max_frames: int | None = None) -> SessionReport:
        """Watch until the source ends (or ``max_frames``, or :meth:`stop`, or the game is over with
        ``stop_when_over``); returns the :class:`SessionReport`. The journal stays open (close it or resume)."""
        ended = "end of source"
        try:
            while not self._stop:
                if max_frames is not None and self.frames >= max_frames:
                    ended = "stopped"
                    break
                try:
                    frame = self.source.read()
                except CameraLost as err:
                    if not self._camera_lost(str(err)):
                        ended = "camera lost"
                        break
                    continue
                if frame is None:
                    break
                self.frames += 1
                self.step(frame)
                if self.stop_when_over and self.tracker.state is not None and self._over(self.tracker.state):
                    ended = "game over"
                    break
            else:
                ended = "stopped"
        finally:
            if self.annotator is not None:
                self.annotator.close()
        self._event("end", None, ended, moves=len(self.tracker.history))
        return SessionReport(self.frames, [str(m) for m in self.tracker.moves], list(self.events),
                             self.tracker.state, ended)

    @staticmethod
    def _over(state: Any) -> bool:
        try:
            return bool(state.is_over())
        except Exception:  # noqa: BLE001 - a position that cannot say is not over
            return False

    def _camera_lost(self, why: str) -> bool:
        self._event("camera-lost", None, why)
        self.say(phrases.camera_stopped())
        for attempt in range(1, self.reopen_attempts + 1):
            time.sleep(self.reopen_delay_s * min(attempt, 4))
            try:
                self.source.reopen()
            except VisionError as err:
                self._event("reopen-failed", None, str(err), attempt=attempt)
                continue
            self.stillness.reset()  # a new stream: compare nothing with the old one
            self._event("camera-back", None, f"reopened after {attempt} attempt(s)")
            self.say(phrases.camera_back())
            return True
        return False

    def step(self, frame: Frame) -> Verdict | None:
        """Process one frame (the loop calls this; tests and the Caller may too). Returns the verdict if the
        frame was judged."""
        still = self.stillness.update(frame.image, frame.time_s)
        verdict = None
        said_before = len(self.said)
        if still.event == "dropout":
            if not self._dropout:
                self._dropout = True
                self._event("dropout", frame, "blank frames or a gap in time")
                self.say(phrases.camera_stopped(), frame)
            self._status = "camera dropout"
        else:
            if self._dropout:
                self._dropout = False
                self._event("camera-back", frame, "frames again")
                self.say(phrases.camera_back(), frame)
            if still.event == "light-changed":
                self._event("light-changed", frame, f"brightness x{still.light_ratio:.2f}")
                self.say(phrases.light_changed(), frame)
            if still.event == "camera-moved":
                self._event("camera-moved", frame, f"view shifted by {still.shift_px}")
                self.say(phrases.camera_moved(), frame)
                self._relock(frame)
            elif not self._locked and still.settled:
                self._relock(frame)
            if still.hand:
                self._status = "hand in view"
            elif not still.still:
                self._status = "moving"
            else:
                self._status = "still"
            if self._locked and self._should_judge(still):
                verdict = self._judge(frame, recheck=not still.settled)
        if self.annotator is not None:
            image = self.annotator.draw(frame, still, self._status, self.said, self._last_reading)
            self.annotator.write(image, frame.index, keep=verdict is not None or len(self.said) > said_before)
        return verdict

    def _should_judge(self, still: StillnessState) -> bool:
        if still.settled:
            return still.changed or self.tracker.state is None or not self._started_announced
        if still.still and self._recheck_due is not None and still.time_s >= self._recheck_due:
            return True
        return False

    def _relock(self, frame: Frame) -> None:
        relock = getattr(self.reader, "relock", None)
        why = relock(frame) if callable(relock) else None
        if why is None:
            if not self._locked or relock is not None:
                self._event("relocked", frame, "the table was found again")
                self.say(phrases.camera_recalibrated(), frame)
            self._locked = True
            return
        was_locked = self._locked
        self._locked = False
        self._event("relock-failed", frame, why)
        if was_locked:
            self.say(phrases.please_recalibrate(), frame)

    # -------------------------------------------------------------------------------------------- judging

    def _judge(self, frame: Frame, recheck: bool = False) -> Verdict:
        """Read and judge one still frame. ``recheck``: the same still table read again after a reading that
        could not be judged (no new change)."""
        t0 = time.perf_counter()
        if not recheck:
            self._rechecks = 0
            self._asked = False
        self._status = "reading"
        try:
            reading = self.reader.read(frame)
        except (VisionError, RulesError) as err:
            reading = Reading(None, reason=str(err))
        self._last_reading = reading
        before = self.tracker.state
        verdict = self.tracker.observe(reading)
        self.stillness.accept()  # judged (or abstained): the next change is measured from this frame
        self.judged_frames.append(frame.index)
        self._status = verdict.kind
        if verdict.judged or verdict.kind in ("start", "unchanged"):
            self._recheck_due, self._rechecks = None, 0
        elif self._rechecks < self.max_rechecks:
            self._rechecks += 1
            self._recheck_due = frame.time_s + self.recheck_s
        else:
            self._recheck_due = None
        self._handle(verdict, before, frame, recheck)
        self.latencies_s.append(time.perf_counter() - t0)
        if self.on_verdict is not None:
            self.on_verdict(verdict, frame)
        return verdict

    def _handle(self, verdict: Verdict, before: Any, frame: Frame, recheck: bool = False) -> None:
        kind = verdict.kind
        if not self._started_announced and kind in ("start", "unchanged", "moves", "illegal", "restored"):
            self._open_journal(self.tracker.start_state, frame)
            self._started_announced = True
            self._event("start", frame, "watching" if not self._resumed else "resumed",
                        moves=len(self.tracker.history))
            shown = self.tracker.state if kind != "moves" else before
            for line in self.narrator.start(shown, self._resumed, self._played_at_start):
                self.say(line, frame)
            if kind == "start":
                return
        if kind == "moves":
            state = before
            for move, after in zip(verdict.moves, verdict.states, strict=True):
                self._record(move, state, after, frame)
                state = after
            for line in self.narrator.moves(verdict, before):
                self.say(line, frame)
        elif kind == "illegal":
            self._event("illegal", frame, verdict.reason or "", repeated=verdict.repeated)
            if not verdict.repeated:
                for line in self.narrator.illegal(verdict):
                    self.say(line, frame)
        elif kind == "restored":
            self._event("restored", frame, "back to the last legal position")
            for line in self.narrator.restored(verdict):
                self.say(line, frame)
        elif kind in ("unreadable", "ambiguous"):
            self._event(kind, frame, verdict.reason or "")
            # Ask once per change, and only when a second look does not read it either (one unsure frame is
            # often just noise): at the first recheck, or at once when no recheck is coming.
            if not self._asked and (recheck or self._recheck_due is None):
                self._asked = True
                lines = self.narrator.unreadable(verdict) if kind == "unreadable" else self.narrator.ambiguous(verdict)
                for line in lines:
                    self.say(line, frame)
        elif kind == "unchanged":
            pass

    def _open_journal(self, start: Any, frame: Frame) -> None:
        if self.journal is not None or self.journal_path is None:
            return
        setup = {"state": self.rules.encode(start)}
        self.journal = Journal.open(self.journal_path, self.rules.name, setup=setup, options=self.journal_options)
        self._event("journal", frame, f"recording to {self.journal_path}")

    def _record(self, move: Any, before: Any, after: Any, frame: Frame) -> None:
        who = self.narrator.who(before, move)
        if self.journal is not None:
            self.journal.append(MoveRecord(str(move), who=who, state=self.rules.encode(after),
                                           extra={"frame": frame.index}))
        self._event("move", frame, str(move), who=who, number=len(self.tracker.history))

    # ------------------------------------------------------------------------------------------ resume

    @classmethod
    def resume_tracker(cls, rules: GameRules, journal: Journal) -> GameTracker:
        """A tracker rebuilt from a journal: its start position (header) and every recorded move replayed."""
        setup = journal.header.setup
        if "state" not in setup:
            raise RulesError(f"{journal.path}: the journal has no starting position to resume from")
        if journal.game != rules.name:
            raise RulesError(f"{journal.path} records a game of {journal.game}, not {rules.name}")
        tracker = GameTracker(rules)
        tracker.restore(rules.decode(setup["state"]), journal.moves)
        return tracker


def print_events(events: Sequence[Event], stream: TextIO = sys.stdout) -> None:
    for event in events:
        print(event, file=stream)
