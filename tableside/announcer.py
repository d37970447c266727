"""The speech announcer: one queue served by one worker thread, so ``say()`` never blocks the camera loop.

    with Announcer(voice="en-us", rate=170) as speaker:
        speaker.say(phrases.tile_row(tiles))       # returns at once
        speaker.say(phrases.board_correct("Red"))
    # leaving the block waits (with a timeout) until everything was said

Backends, started lazily on the worker thread the first time something is said (``detect()`` forces it
early); the first that starts is used and reported by :attr:`Announcer.backend`:

``espeak-ng``
    The ``espeak-ng`` program, run once per announcement (``espeak-ng -w FILE`` writes a WAV; without it the
    program plays on the default audio device). First choice on Linux, see below.
``pyttsx3``
    The portable text-to-speech library: SAPI5 on Windows, NSSpeech on macOS (first choice there), and
    libespeak-ng through its "espeak" driver elsewhere (second choice there).
``text``
    No speech engine: each announcement is printed as a ``[say] ...`` line on a stream (stderr by default,
    so JSON on stdout stays clean).

``speak_to=DIR`` writes each announcement to ``DIR/NNNN-words.wav`` (``0001-blue-5.wav``) instead of playing
it, numbered after the highest number already in the folder. An engine error never reaches the caller:
it is logged, that announcement falls back to the text line, and an engine that hangs or breaks is
dropped for the next one in the list.

Why the espeak-ng program comes before pyttsx3 on Linux (the documented fallback of the design; checked on
pyttsx3 2.99 with libespeak-ng 1.51 on this machine, in a worker thread as here; the project's issue
tracker has many reports of ``runAndWait`` hanging or raising "run loop already started"). Its espeak
driver initialises libespeak-ng in ``AUDIO_OUTPUT_RETRIEVAL`` mode, which synthesises asynchronously on
espeak's own thread, and matches espeak's callbacks to utterances by timing alone:

* ``runAndWait()`` can return before the synthesis is done: right after it the WAV of ``save_to_file`` did
  not exist yet (seen on a process's first utterance);
* ``runAndWait()`` starts with ``stop()``, which calls ``espeak_Cancel`` while espeak's command fifo is still
  busy, e.g. with the rate change just set: that rate change was lost (a 300 wpm WAV came out at 100);
* under CPU load a stray end-of-message event was seen to close an utterance before its audio came: an
  empty WAV, and the late audio spills into the next utterance's file;
* it prints ``Audio saved to ...`` on stdout from espeak's thread (corrupting ``--json`` output), and keeps
  the last ``save_to_file`` name so that a later ``say`` overwrites that file instead of playing.

The program has none of this (one process per announcement, nothing shared) and sounds the same (same
library, same voices). pyttsx3 is still used where it is first choice or the program is missing, driven
defensively: one engine per process shared under a lock and only ever driven by one thread; each utterance
waits for ``finished-utterance`` and for the driver to go idle, ``espeak_Synchronize`` before
``runAndWait``, one retry for a cancelled or empty utterance, the driver's ``print`` routed to the log, the
sticky file name cleared; a hang (timeout) or an exception inside ``runAndWait`` marks it broken for the
process and the announcer moves on to the next backend.
"""

from __future__ import annotations

import argparse
import logging
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import wave
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

__all__ = [
    "BACKENDS",
    "DEFAULT_RATE",
    "MIN_RATE",
    "MAX_RATE",
    "SpeechError",
    "VoiceError",
    "Voice",
    "Announcement",
    "Spoken",
    "Announcer",
    "match_voice",
    "wav_name",
    "list_voices",
    "auto_order",
    "available_backends",
    "add_speech_arguments",
    "announcer_from_args",
]

log = logging.getLogger(__name__)

#: The speech backends (``backend="auto"`` tries them in the order of :func:`auto_order`).
BACKENDS: tuple[str, ...] = ("pyttsx3", "espeak-ng", "text")
#: Words per minute when no rate is given (a little slower than espeak's 175: announcements over table noise).
DEFAULT_RATE = 170
#: espeak-ng's own limits for its rate parameter (words per minute).
MIN_RATE, MAX_RATE = 80, 450


class SpeechError(RuntimeError):
    """A speech engine failed. ``fatal`` means the engine cannot be used again in this process."""

    def __init__(self, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal


class VoiceError(ValueError):
    """No voice of the speech engine matches what the user asked for."""


@dataclass(frozen=True)
class Voice:
    """A voice of a speech engine. ``id`` is what the engine takes; ``name`` is for people."""

    id: str
    name: str
    languages: tuple[str, ...] = ()
    gender: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "languages": list(self.languages), "gender": self.gender}


@dataclass(frozen=True)
class Announcement:
    """What :meth:`Announcer.say` queued: its number, text and (with ``speak_to``) the WAV it will write."""

    seq: int
    text: str
    wav_path: Path | None = None


@dataclass(frozen=True)
class Spoken:
    """An announcement once handled: which backend said it, the WAV written (if any) and why a fallback was used."""

    seq: int
    text: str
    backend: str
    wav_path: Path | None = None
    error: str | None = None


# ----------------------------------------------------------------------------------------- pure helpers


def match_voice(query: str | None, voices: Sequence[Voice]) -> Voice | None:
    """The voice a user means by ``query``: an id (``gmw/en-us``), its last part (``en-us``), a language code,
    a full name (``English (America)``) or else a part of a name or id (``america``), case-insensitive.

    ``None`` or an empty query means the engine's default voice (returns None). Among several partial
    matches the engine's order decides, MBROLA voices (``mb/...``, which need extra data files) last.
    Raises :class:`VoiceError` naming a few voices when nothing matches.
    """
    if query is None or not query.strip():
        return None
    q = query.strip().lower()
    q_name = q.replace("_", " ")
    tests = (
        lambda v: v.id.lower() == q,
        lambda v: v.id.lower().rsplit("/", 1)[-1] == q,
        lambda v: q in (lang.lower() for lang in v.languages),
        lambda v: v.name.lower().replace("_", " ") == q_name,
    )
    for test in tests:
        for voice in voices:
            if test(voice):
                return voice
    partial = [v for v in voices if q_name in v.name.lower().replace("_", " ") or q in v.id.lower()]
    if partial:
        return sorted(partial, key=lambda v: v.id.lower().startswith("mb/"))[0]
    english = [v for v in voices if any(lang.lower().startswith("en") for lang in v.languages)]
    some = ", ".join(v.id for v in (english or list(voices))[:6])
    raise VoiceError(f"no voice matches {query!r}" + (f" (voices include {some}, ...)" if some else ""))


def wav_name(seq: int, text: str, max_words_chars: int = 40) -> str:
    """The file name of an announcement in ``speak_to``: ``wav_name(1, "Blue 5") == "0001-blue-5.wav"``."""
    words = re.sub(r"[^a-z0-9]+", "-", text.lower().replace("'", "")).strip("-")
    if len(words) > max_words_chars:
        words = words[:max_words_chars].rsplit("-", 1)[0] or words[:max_words_chars]
    return f"{seq:04d}-{words or 'announcement'}.wav"


def _first_free_number(folder: Path) -> int:
    numbers = [int(m.group(1)) for p in folder.glob("*.wav") if (m := re.match(r"(\d{4,})-", p.name))]
    return max(numbers, default=0) + 1


def _check_wav(path: Path) -> None:
    """A WAV an engine wrote must open and hold some sound; some voices (MBROLA without data) write none."""
    try:
        with wave.open(str(path), "rb") as wav:
            frames = wav.getnframes()
    except (OSError, EOFError, wave.Error) as err:
        raise SpeechError(f"no readable WAV at {path}: {err}") from err
    if frames == 0:
        raise SpeechError(f"the engine wrote an empty WAV at {path} (is the voice's data installed?)")


def _utterance_timeout(text: str, rate: int) -> float:
    """Seconds to wait for one utterance: generous for playing it aloud, bounded for a hung engine."""
    seconds_aloud = len(text.split()) / max(rate, MIN_RATE) * 60.0
    return 10.0 + 3.0 * seconds_aloud


# ------------------------------------------------------------------------------------------- backends


class _Backend(Protocol):
    name: str
    voices: list[Voice]

    def speak(self, text: str, voice_id: str | None, rate: int, wav_path: Path | None, timeout: float) -> None: ...


class _TextBackend:
    """No engine: ``[say] text`` lines on a stream."""

    name = "text"

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream
        self.voices: list[Voice] = []

    def speak(self, text: str, voice_id: str | None, rate: int, wav_path: Path | None, timeout: float) -> None:
        stream = self._stream or sys.stderr  # looked up per call: sys.stderr may be swapped (tests, daemons)
        print(f"[say] {text}", file=stream, flush=True)


class _EspeakNgBackend:
    """The espeak-ng program, one process per announcement (``-w FILE`` writes a WAV, else it plays)."""

    name = "espeak-ng"

    def __init__(self) -> None:
        exe = shutil.which("espeak-ng") or shutil.which("espeak")
        if exe is None:
            raise SpeechError("espeak-ng is not installed", fatal=True)
        self._exe = exe
        try:
            listing = subprocess.run([exe, "--voices"], capture_output=True, text=True, timeout=20, check=True)
        except (OSError, subprocess.SubprocessError) as err:
            raise SpeechError(f"espeak-ng does not run: {err}", fatal=True) from err
        self.voices = _parse_espeak_voices(listing.stdout)

    def speak(self, text: str, voice_id: str | None, rate: int, wav_path: Path | None, timeout: float) -> None:
        cmd = [self._exe, "-s", str(rate)]
        if voice_id:
            cmd += ["-v", voice_id]
        if wav_path is not None:
            cmd += ["-w", str(wav_path)]
        try:
            # The text goes on stdin so that one starting with "-" is never read as an option.
            done = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as err:
            raise SpeechError(f"espeak-ng took more than {timeout:.0f} s", fatal=True) from err
        except OSError as err:
            raise SpeechError(f"espeak-ng does not run: {err}", fatal=True) from err
        if done.returncode != 0:
            detail = (done.stderr or "").strip().splitlines()
            raise SpeechError(f"espeak-ng failed: {detail[-1] if detail else f'exit {done.returncode}'}")


def _parse_espeak_voices(listing: str) -> list[Voice]:
    """Rows of ``espeak-ng --voices``: ``Pty Language Age/Gender VoiceName File (Other languages)``."""
    voices = []
    for line in listing.splitlines()[1:]:
        parts = line.split()
        if len(parts) < 5:
            continue
        _pty, language, age_gender, name, file_id = parts[:5]
        gender = {"M": "Male", "F": "Female"}.get(age_gender.rsplit("/", 1)[-1])
        voices.append(Voice(id=file_id, name=name.replace("_", " "), languages=(language,), gender=gender))
    return voices


class _SharedPyttsx3:
    """The process's one pyttsx3 engine, its lock, and the events its callbacks report (see module doc)."""

    lock = threading.Lock()
    engine: Any = None
    default_voice: str | None = None
    current_voice: str | None = None
    current_rate: int | None = None
    voices: list[Voice] = []
    broken: str | None = None
    finished = threading.Event()
    completed = True
    errors: list[BaseException] = []

    @classmethod
    def get(cls) -> Any:
        """The engine, started on first use; call with ``lock`` held."""
        if cls.broken:
            raise SpeechError(cls.broken, fatal=True)
        if cls.engine is None:
            try:
                import pyttsx3
            except ImportError as err:
                raise SpeechError("pyttsx3 is not installed", fatal=True) from err
            try:
                engine = pyttsx3.init()
                engine.connect("finished-utterance", cls._on_finished)
                engine.connect("error", cls._on_error)
                cls.default_voice = cls.current_voice = engine.getProperty("voice")
                # The driver proxy starts "busy": commands would queue until a loop runs. One empty loop makes
                # it idle, so that every setProperty afterwards runs at once on the calling thread.
                engine.runAndWait()
                cls.voices = [
                    Voice(
                        id=str(v.id),
                        name=str(v.name or v.id),
                        languages=tuple(str(lang) for lang in (v.languages or ())),
                        gender=v.gender,
                    )
                    for v in engine.getProperty("voices")
                ]
            except Exception as err:  # noqa: BLE001 - any driver failure (missing libespeak, COM error) means "not available"
                raise SpeechError(f"pyttsx3 could not start: {err}", fatal=True) from err
            _quiet_driver_prints()
            cls.engine = engine  # keep a strong reference: pyttsx3 caches engines in a WeakValueDictionary
        return cls.engine

    @classmethod
    def _on_finished(cls, name: str | None = None, completed: bool = True) -> None:
        cls.completed = bool(completed)
        cls.finished.set()

    @classmethod
    def _on_error(cls, name: str | None = None, exception: BaseException | None = None) -> None:
        cls.errors.append(exception or RuntimeError("pyttsx3 reported an error"))


def _driver_print(*args: Any, **kwargs: Any) -> None:
    log.debug("pyttsx3: %s", " ".join(str(a) for a in args))


def _quiet_driver_prints() -> None:
    # pyttsx3 2.99's espeak driver print()s "Audio saved to ..." on stdout (see module doc). Shadowing the
    # name ``print`` in that one module sends those lines to the log and touches nothing else.
    driver_module = sys.modules.get("pyttsx3.drivers.espeak")
    if driver_module is not None:
        driver_module.print = _driver_print  # type: ignore[attr-defined]


class _Pyttsx3Backend:
    name = "pyttsx3"

    def __init__(self) -> None:
        with _SharedPyttsx3.lock:
            _SharedPyttsx3.get()
            self.voices = list(_SharedPyttsx3.voices)

    def speak(self, text: str, voice_id: str | None, rate: int, wav_path: Path | None, timeout: float) -> None:
        with _SharedPyttsx3.lock:
            try:
                self._utter(text, voice_id, rate, wav_path, timeout)
            except SpeechError as err:
                if err.fatal:
                    raise
                # A cancelled or empty utterance (see module doc) is tried once more before giving up.
                log.debug("speech: pyttsx3 retrying %r after: %s", text, err)
                self._utter(text, voice_id, rate, wav_path, timeout)

    def _utter(self, text: str, voice_id: str | None, rate: int, wav_path: Path | None, timeout: float) -> None:
        shared = _SharedPyttsx3
        engine = shared.get()
        shared.finished.clear()
        shared.completed = True
        shared.errors.clear()
        try:
            # Only what changed is set: the engine may serve several announcers with other voices.
            if (voice_id or shared.default_voice) != shared.current_voice:
                engine.setProperty("voice", voice_id or shared.default_voice)
                shared.current_voice = voice_id or shared.default_voice
            if rate != shared.current_rate:
                engine.setProperty("rate", rate)
                shared.current_rate = rate
            _espeak_synchronize(engine)
            if wav_path is not None:
                engine.save_to_file(text, str(wav_path))
            else:
                driver = getattr(getattr(engine, "proxy", None), "_driver", None)
                if getattr(driver, "_save_file", None):
                    driver._save_file = None  # the sticky file name (see module doc)
                engine.say(text)
            engine.runAndWait()
        except Exception as err:  # noqa: BLE001 - whatever the driver raises, the engine's loop is now unusable
            shared.broken = f"pyttsx3 failed: {err}"
            raise SpeechError(shared.broken, fatal=True) from err
        if not shared.finished.wait(timeout) or not _wait_idle(engine, timeout):
            shared.broken = f"pyttsx3 did not finish an utterance within {timeout:.0f} s"
            raise SpeechError(shared.broken, fatal=True)
        if shared.errors:
            raise SpeechError(f"pyttsx3 reported: {shared.errors[0]}")
        if not shared.completed:
            _espeak_synchronize(engine)  # let whatever is left of it drain before the next one
            raise SpeechError("pyttsx3 cancelled the utterance")
        if wav_path is not None:
            _check_wav(wav_path)


def _espeak_synchronize(engine: Any) -> None:
    """Let libespeak-ng apply the voice/rate commands just queued before ``runAndWait`` starts.

    libespeak-ng queues parameter changes on its command fifo; the espeak driver's ``runAndWait`` begins with
    ``stop()``, which calls ``espeak_Cancel`` if that fifo is still busy: the new rate was seen to be dropped
    (and the utterance cancelled with it). ``espeak_Synchronize`` waits until the fifo is empty.
    """
    if getattr(engine, "driver_name", None) != "espeak":
        return
    espeak = sys.modules.get("pyttsx3.drivers._espeak")
    synchronize = getattr(espeak, "Synchronize", None)
    if synchronize is not None:
        synchronize()


def _wait_idle(engine: Any, timeout: float) -> bool:
    """Wait until the driver has left its synthesis callback (it reports "finished" a little before).

    Until then the driver would run our next ``setProperty`` from inside espeak's callback thread, where a
    rate change was seen to be lost; after it, commands run at once on the announcer's thread.
    """
    deadline = time.monotonic() + timeout
    while engine.isBusy():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def auto_order(platform: str | None = None) -> list[str]:
    """The backends ``auto`` tries, first to last, on ``platform`` (default: this one).

    Windows and macOS: pyttsx3 first (its SAPI5 and NSSpeech drivers are the system voices). Elsewhere
    pyttsx3 would drive libespeak-ng through its espeak driver, whose races are listed in the module doc;
    the espeak-ng program gives the same voice without them, so it goes first and pyttsx3 second.
    """
    platform = sys.platform if platform is None else platform
    if platform in ("win32", "darwin"):
        return ["pyttsx3", "espeak-ng", "text"]
    return ["espeak-ng", "pyttsx3", "text"]


def available_backends() -> list[str]:
    """The backends that look installed (without starting them); ``text`` is always there."""
    import importlib.util

    names = []
    if importlib.util.find_spec("pyttsx3") is not None:
        names.append("pyttsx3")
    if shutil.which("espeak-ng") or shutil.which("espeak"):
        names.append("espeak-ng")
    return names + ["text"]


# ------------------------------------------------------------------------------------------ announcer

_STOP = object()


@dataclass
class _Detect:
    done: threading.Event


class Announcer:
    """Speaks announcements one after another on a worker thread.

    ``voice``: a voice id or part of its name (see :func:`match_voice`); None for the engine's default.
    ``rate``: words per minute (80..450; default :data:`DEFAULT_RATE`).
    ``speak_to``: a folder; each announcement is written there as a numbered WAV instead of being played.
    ``backend``: ``auto`` (see :func:`auto_order`: the espeak-ng program, then pyttsx3, then text on Linux;
    pyttsx3 first on Windows and macOS) or one of :data:`BACKENDS`; a named engine that does not start
    falls back to ``text``.
    ``stream``: where the text fallback writes its ``[say] ...`` lines (default: ``sys.stderr``).
    ``echo``: also write the ``[say]`` line when an engine speaks.
    ``utterance_timeout``: seconds one utterance may take before the engine is deemed hung (default: from
    the text's length and the rate).
    """

    def __init__(
        self,
        voice: str | None = None,
        rate: int | None = None,
        speak_to: str | Path | None = None,
        backend: str = "auto",
        stream: TextIO | None = None,
        echo: bool = False,
        utterance_timeout: float | None = None,
    ) -> None:
        if backend != "auto" and backend not in BACKENDS:
            raise ValueError(f"unknown speech backend {backend!r}: use auto, {', '.join(BACKENDS)}")
        rate = DEFAULT_RATE if rate is None else int(rate)
        if not MIN_RATE <= rate <= MAX_RATE:
            raise ValueError(f"speech rate must be {MIN_RATE}..{MAX_RATE} words per minute, not {rate}")
        self._voice_query = voice
        self._rate = rate
        self._speak_to = Path(speak_to) if speak_to is not None else None
        if self._speak_to is not None:
            self._speak_to.mkdir(parents=True, exist_ok=True)
        self._chain = auto_order() if backend == "auto" else [backend] + (["text"] if backend != "text" else [])
        self._text = _TextBackend(stream)
        self._echo = echo
        self._utterance_timeout = utterance_timeout

        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._cond = threading.Condition()
        self._pending = 0
        self._next_seq = _first_free_number(self._speak_to) if self._speak_to is not None else 1
        self._closed = False
        self._abandon = False
        self._spoken: list[Spoken] = []

        self._active: _Backend | None = None  # set by the worker thread only
        self._voice: Voice | None = None
        self._voice_error: VoiceError | None = None

        self._worker = threading.Thread(target=self._run, name="tableside-announcer", daemon=True)
        self._worker.start()

    # ---------------------------------------------------------------------------------- public API

    def say(self, text: str) -> Announcement | None:
        """Queue ``text`` and return at once (None for empty text or a closed announcer)."""
        text = " ".join(str(text).split())
        if not text:
            return None
        with self._cond:
            if self._closed:
                log.warning("speech: announcer closed, not saying %r", text)
                return None
            seq = self._next_seq
            self._next_seq += 1
            self._pending += 1
        wav_path = self._speak_to / wav_name(seq, text) if self._speak_to is not None else None
        announcement = Announcement(seq, text, wav_path)
        self._queue.put(announcement)
        return announcement

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Wait until everything queued so far was said; False if ``timeout`` seconds passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._pending > 0:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    def close(self, timeout: float | None = 30.0) -> bool:
        """Say what is queued (up to ``timeout`` seconds), then stop the worker. False if some were dropped."""
        with self._cond:
            if self._closed:
                return self._pending == 0
            self._closed = True
        drained = self.flush(timeout)
        if not drained:
            with self._cond:
                log.warning("speech: %d announcements dropped at close (engine too slow)", self._pending)
                self._abandon = True
        self._queue.put(_STOP)
        self._worker.join(timeout=5.0 if drained else 0.5)
        return drained

    def detect(self, timeout: float = 20.0) -> str | None:
        """Start the speech engine now and return the backend's name (None if it took longer than ``timeout``).

        Raises :class:`VoiceError` if the requested voice matches none of the engine's voices (say() would
        use the default voice and log a warning instead).
        """
        if self._active is None:
            request = _Detect(threading.Event())
            self._queue.put(request)
            request.done.wait(timeout)
        if self._voice_error is not None:
            raise self._voice_error
        return self.backend

    @property
    def backend(self) -> str | None:
        """The backend in use (``pyttsx3``, ``espeak-ng`` or ``text``), None before the first announcement."""
        active = self._active
        return active.name if active is not None else None

    @property
    def voice(self) -> Voice | None:
        """The voice in use (None: the engine's default)."""
        return self._voice

    @property
    def rate(self) -> int:
        return self._rate

    @property
    def speak_to(self) -> Path | None:
        return self._speak_to

    def voices(self) -> list[Voice]:
        """The voices of the backend in use (starts it if needed; empty for ``text``)."""
        if self._active is None:
            try:
                self.detect()
            except VoiceError:
                pass
        active = self._active
        return list(active.voices) if active is not None else []

    @property
    def spoken(self) -> list[Spoken]:
        """Every announcement handled so far, in order."""
        with self._cond:
            return list(self._spoken)

    @property
    def pending(self) -> int:
        with self._cond:
            return self._pending

    def __enter__(self) -> Announcer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------- worker thread

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            if isinstance(item, _Detect):
                self._ensure_backend()
                item.done.set()
                continue
            try:
                if not self._abandon:
                    self._announce(item)
            except Exception:  # the worker must survive anything, or later say() calls would pile up unheard
                log.exception("speech: could not announce %r", item.text)
            finally:
                with self._cond:
                    self._pending -= 1
                    self._cond.notify_all()

    def _ensure_backend(self) -> None:
        while self._active is None:
            name = self._chain[0]
            try:
                self._activate(self._start(name))
            except SpeechError as err:
                log.info("speech: %s is not available: %s", name, err)
                self._chain.pop(0)

    def _start(self, name: str) -> _Backend:
        if name == "pyttsx3":
            return _Pyttsx3Backend()
        if name == "espeak-ng":
            return _EspeakNgBackend()
        return self._text

    def _activate(self, backend: _Backend) -> None:
        self._voice, self._voice_error = None, None
        if backend.name != "text":
            try:
                self._voice = match_voice(self._voice_query, backend.voices)
            except VoiceError as err:
                self._voice_error = err
                log.warning("speech: %s; using the default voice", err)
        self._active = backend
        log.info("speech: using %s%s", backend.name, f" ({self._voice.id})" if self._voice else "")

    def _drop_active(self) -> None:
        """The active engine is broken: move on to the next backend of the chain."""
        if self._chain and self._active is not None and self._chain[0] == self._active.name:
            self._chain.pop(0)
        self._active = None
        self._ensure_backend()

    def _announce(self, item: Announcement) -> None:
        self._ensure_backend()
        while True:
            backend = self._active
            assert backend is not None  # _ensure_backend ends on "text" at worst
            if backend.name == "text":
                self._text.speak(item.text, None, self._rate, None, 0)
                self._record(Spoken(item.seq, item.text, "text"))
                return
            try:
                self._speak_with(backend, item)
            except SpeechError as err:
                log.warning("speech: %s could not say %r: %s", backend.name, item.text, err)
                if err.fatal:
                    self._drop_active()
                    if self._active is not None and self._active.name != "text":
                        continue  # say it with the next engine
                self._text.speak(item.text, None, self._rate, None, 0)
                self._record(Spoken(item.seq, item.text, "text", None, str(err)))
                return
            if self._echo:
                self._text.speak(item.text, None, self._rate, None, 0)
            self._record(Spoken(item.seq, item.text, backend.name, item.wav_path))
            return

    def _speak_with(self, backend: _Backend, item: Announcement) -> None:
        if item.wav_path is not None and not item.wav_path.parent.is_dir():
            # Checked here: a failed write inside pyttsx3's synthesis callback would hang the engine for good.
            raise SpeechError(f"cannot write {item.wav_path}: the folder is gone")
        timeout = self._utterance_timeout or _utterance_timeout(item.text, self._rate)
        voice_id = self._voice.id if self._voice is not None else None
        try:
            backend.speak(item.text, voice_id, self._rate, item.wav_path, timeout)
        except SpeechError:
            raise
        except Exception as err:  # noqa: BLE001 - an engine's own bug is still only an engine error
            raise SpeechError(f"{type(err).__name__}: {err}") from err
        if item.wav_path is not None:
            _check_wav(item.wav_path)

    def _record(self, spoken: Spoken) -> None:
        with self._cond:
            self._spoken.append(spoken)


# ------------------------------------------------------------------------------------- CLI helpers


def list_voices(backend: str = "auto") -> list[Voice]:
    """The voices of the first speech backend that starts (empty when only the text fallback is left)."""
    speaker = Announcer(backend=backend)
    try:
        return speaker.voices()
    finally:
        speaker.close(timeout=1.0)


def _rate_arg(text: str) -> int:
    try:
        rate = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of words per minute: {text!r}") from None
    if not MIN_RATE <= rate <= MAX_RATE:
        raise argparse.ArgumentTypeError(f"must be {MIN_RATE}..{MAX_RATE} words per minute")
    return rate


def add_speech_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--voice``, ``--rate``, ``--speak-to`` and ``--speech`` to a verb's parser."""
    group = parser.add_argument_group("speech")
    group.add_argument("--voice", metavar="NAME", help="voice id or part of its name, e.g. en-us (default: engine's)")
    group.add_argument(
        "--rate", type=_rate_arg, default=DEFAULT_RATE, metavar="WPM",
        help=f"speaking rate in words per minute, {MIN_RATE}..{MAX_RATE} (default {DEFAULT_RATE})",
    )
    group.add_argument("--speak-to", metavar="DIR", help="write each announcement as a numbered WAV in DIR")
    group.add_argument(
        "--speech", choices=("auto",) + BACKENDS, default="auto",
        help="speech engine: auto tries espeak-ng then pyttsx3 on Linux (pyttsx3 first on Windows/macOS), "
        "else prints [say] lines",
    )


def announcer_from_args(args: argparse.Namespace, stream: TextIO | None = None) -> Announcer:
    """An Announcer from the options of :func:`add_speech_arguments`; a bad voice raises :class:`VoiceError`."""
    speaker = Announcer(
        voice=getattr(args, "voice", None),
        rate=getattr(args, "rate", None),
        speak_to=getattr(args, "speak_to", None),
        backend=getattr(args, "speech", "auto"),
        stream=stream,
    )
    try:
        speaker.detect()
    except VoiceError:
        speaker.close(timeout=1.0)
        raise
    return speaker
