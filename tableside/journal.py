"""The game journal: every accepted move appended to a JSON-lines file, on disk before ``append`` returns.

A journal is one UTF-8 text file, one JSON object per line::

    {"journal":"tableside","version":1,"game":"easy-slider","options":{},"setup":{...},"started":"2025-..."}
    {"game":"easy-slider","seq":1,"time":"2025-...","move":"e4-D","who":"Red","state":...}
    {"game":"easy-slider","seq":2,"time":"2025-...","move":"d4-R","who":"Red","state":...}

The first line (the header) names the game, its variant/options and the set-up (the Easy Slider layout,
the players ...). Every later line is one accepted move: ``seq`` counts from 1, ``time`` is local ISO 8601
with the UTC offset, ``move`` is the move's text form (``str(move)``, which the game's ``Move.parse`` reads
back), ``who`` the player or board, ``state`` the position after the move as the rules module writes it
(``to_json()`` if it has one, else its text form) or null; any other keys are kept as given.

Durability: each line is written with one ``write`` call on an ``O_APPEND`` descriptor and ``fsync``'ed
before :meth:`Journal.append` returns; the header too, and the folder is synced when the file is created.
A line counts once its newline is on disk. :meth:`Journal.resume` treats an unfinished or unreadable *last*
line as a write cut short (a power cut, a killed process): it copies those bytes to ``PATH.partial`` and
truncates the file to the last good line. Anything wrong *before* the last line is not a torn write and
raises :class:`~rules.base.RecordError` naming the line, leaving the file untouched.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from rules.base import RecordError

__all__ = [
    "JOURNAL_MAGIC",
    "JOURNAL_VERSION",
    "MoveRecord",
    "Entry",
    "Header",
    "Recovery",
    "Journal",
    "ppn_game_type",
    "write_ppn",
]

#: The value of the header's ``journal`` key, and the format version.
JOURNAL_MAGIC = "tableside"
JOURNAL_VERSION = 1

_ENTRY_KEYS = ("game", "seq", "time", "move", "who", "state")


@dataclass(frozen=True)
class MoveRecord:
    """What the live loop hands to :meth:`Journal.append`: an accepted move and what to keep with it."""

    move: Any
    who: str | None = None
    state: Any = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Entry:
    """One move line of a journal, as written or read back."""

    game: str
    seq: int
    time: str
    move: str
    who: str | None = None
    state: Any = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"game": self.game, "seq": self.seq, "time": self.time, "move": self.move}
        if self.who is not None:
            line["who"] = self.who
        line["state"] = self.state
        line.update({k: v for k, v in self.extra.items() if k not in _ENTRY_KEYS})
        return line


@dataclass(frozen=True)
class Header:
    """The first line: which game, with which options, from which set-up."""

    game: str
    options: Mapping[str, Any]
    setup: Mapping[str, Any]
    started: str
    version: int = JOURNAL_VERSION

    def to_json(self) -> dict[str, Any]:
        return {
            "journal": JOURNAL_MAGIC,
            "version": self.version,
            "game": self.game,
            "options": dict(self.options),
            "setup": dict(self.setup),
            "started": self.started,
        }


@dataclass(frozen=True)
class Recovery:
    """What :meth:`Journal.resume` dropped: the broken last line (its number) and where its bytes were kept."""

    line: int
    dropped_bytes: int
    partial_path: Path | None


def _now() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="milliseconds")


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "to_json"):
        return obj.to_json()
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    if isinstance(obj, Path):
        return str(obj)
    return str(obj)  # a state or move without a JSON form is kept as its text form


def _dumps(obj: Any) -> str:
    # Compact, and never a raw newline: json escapes the ones inside strings.
    return json.dumps(obj, default=_json_default, ensure_ascii=False, separators=(",", ":"))


def _state_json(state: Any) -> Any:
    if state is None or isinstance(state, str | int | float | bool | list | tuple | dict):
        return state
    if hasattr(state, "to_json"):
        return state.to_json()
    return str(state)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # some platforms cannot open folders; the file itself is synced
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass
class _Parsed:
    header: Header
    entries: list[Entry]
    good_bytes: int  # the file up to here is complete lines
    broken_line: int | None  # number of the dropped last line, if any


def _parse_header(raw: bytes, path: Path) -> Header:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        obj = None
    if not isinstance(obj, dict) or obj.get("journal") != JOURNAL_MAGIC or not isinstance(obj.get("game"), str):
        raise RecordError(f"{path}: line 1 is not a tableside journal header")
    version = obj.get("version")
    if not isinstance(version, int) or version > JOURNAL_VERSION:
        raise RecordError(f"{path}: journal format version {version!r} is newer than this tableside reads")
    return Header(
        game=obj["game"],
        options=obj.get("options") or {},
        setup=obj.get("setup") or {},
        started=str(obj.get("started", "")),
        version=version,
    )


def _parse_entry(raw: bytes) -> Entry:
    """One move line; ValueError (with a short reason) if it is not one."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except ValueError:
        raise ValueError("not a JSON object") from None
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    seq, move = obj.get("seq"), obj.get("move")
    if not isinstance(seq, int) or not isinstance(move, str):
        raise ValueError("a move line needs an integer seq and a move text")
    return Entry(
        game=str(obj.get("game", "")),
        seq=seq,
        time=str(obj.get("time", "")),
        move=move,
        who=obj.get("who"),
        state=obj.get("state"),
        extra={k: v for k, v in obj.items() if k not in _ENTRY_KEYS},
    )


def _parse(data: bytes, path: Path) -> _Parsed:
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]  # tail: bytes after the last newline (b"" for a clean file)
    if not complete:
        raise RecordError(f"{path}: no complete header line (the journal was never fully created)")
    header = _parse_header(complete[0], path)
    entries: list[Entry] = []
    good = len(complete[0]) + 1
    broken_line: int | None = None
    for index, raw in enumerate(complete[1:], start=2):
        is_last = index == len(complete) and not tail
        try:
            entry = _parse_entry(raw)
        except ValueError as err:
            if is_last:
                broken_line = index  # a newline-ended last line that cannot be read: a torn write too
                break
            raise RecordError(f"{path}: line {index}: {err}") from None
        expected = entries[-1].seq + 1 if entries else 1
        if entry.seq != expected:
            raise RecordError(f"{path}: line {index}: move number {entry.seq} where {expected} was expected")
        entries.append(entry)
        good += len(raw) + 1
    if tail and broken_line is None:
        broken_line = len(complete) + 1
    return _Parsed(header, entries, good, broken_line)


def _free_partial_path(path: Path) -> Path:
    candidate = Path(str(path) + ".partial")
    n = 2
    while candidate.exists():  # an earlier recovery's bytes are never overwritten
        candidate = Path(f"{path}.partial.{n}")
        n += 1
    return candidate


class Journal:
    """An open journal: its header, the moves so far, and :meth:`append` for the next ones.

    Make one with :meth:`open` (a new file) or :meth:`resume` (carry on after a stop or a power cut);
    :meth:`load` reads one without changing it.
    """

    def __init__(self, path: Path, header: Header, entries: list[Entry], fd: int | None,
                 recovered: Recovery | None = None) -> None:
        self.path = path
        self.header = header
        self._entries = entries
        self._fd = fd
        self._lock = threading.Lock()  # one line at a time, whichever thread appends
        self.recovered = recovered

    # --------------------------------------------------------------------------------- constructors

    @classmethod
    def open(
        cls,
        path: str | Path,
        game: str,
        setup: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Journal:
        """Create a new journal at ``path`` and write its header. An existing file is never overwritten."""
        path = Path(path)
        header = Header(game=game, options=dict(options or {}), setup=dict(setup or {}), started=_now())
        line = (_dumps(header.to_json()) + "\n").encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)  # FileExistsError if there
        try:
            _write_all(fd, line)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        _fsync_dir(path.resolve().parent)
        return cls(path, header, [], fd)

    @classmethod
    def resume(cls, path: str | Path) -> Journal:
        """Open an existing journal to carry on appending.

        A broken last line is dropped: its bytes are copied to ``PATH.partial`` (``.partial.2`` ... if that
        exists) and the file is truncated to the last complete line; :attr:`recovered` says so. A broken
        line before the last raises :class:`~rules.base.RecordError` with its line number.
        """
        path = Path(path)
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
        try:
            data = _read_all(fd)
            parsed = _parse(data, path)
            recovered = None
            if parsed.broken_line is not None:
                dropped = data[parsed.good_bytes:]
                partial = _free_partial_path(path) if dropped else None
                if partial is not None:
                    # Keep the bytes first, then cut: a crash in between loses nothing.
                    pfd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    try:
                        _write_all(pfd, dropped)
                        os.fsync(pfd)
                    finally:
                        os.close(pfd)
                os.ftruncate(fd, parsed.good_bytes)
                os.fsync(fd)
                _fsync_dir(path.resolve().parent)
                recovered = Recovery(parsed.broken_line, len(dropped), partial)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, parsed.header, parsed.entries, fd, recovered)

    @classmethod
    def load(cls, path: str | Path) -> Journal:
        """Read a journal without changing it (a broken last line is ignored, not cut); it cannot append."""
        path = Path(path)
        data = path.read_bytes()
        parsed = _parse(data, path)
        recovered = None
        if parsed.broken_line is not None:
            recovered = Recovery(parsed.broken_line, len(data) - parsed.good_bytes, None)
        return cls(path, parsed.header, parsed.entries, None, recovered)

    # ----------------------------------------------------------------------------------------- use

    @property
    def game(self) -> str:
        return self.header.game

    @property
    def entries(self) -> list[Entry]:
        return list(self._entries)

    @property
    def moves(self) -> list[str]:
        """The move texts in order: with the set-up, enough to replay the game."""
        return [e.move for e in self._entries]

    @property
    def closed(self) -> bool:
        return self._fd is None

    def append(self, record: MoveRecord | Mapping[str, Any] | Any) -> Entry:
        """Write one accepted move and return its entry once it is on disk (written and fsync'ed).

        ``record`` is a :class:`MoveRecord`, a mapping with ``move`` (and optionally ``who``, ``state`` and
        more keys), or a move object (its ``str()`` is the move text).
        """
        with self._lock:
            return self._append(record)

    def _append(self, record: MoveRecord | Mapping[str, Any] | Any) -> Entry:
        if self._fd is None:
            raise ValueError(f"journal {self.path} is closed (or was only loaded)")
        if isinstance(record, MoveRecord):
            move, who, state, extra = record.move, record.who, record.state, dict(record.extra)
        elif isinstance(record, Mapping):
            if "move" not in record:
                raise ValueError("a journal record needs a 'move'")
            extra = {k: v for k, v in record.items() if k not in _ENTRY_KEYS}
            move, who, state = record["move"], record.get("who"), record.get("state")
        else:
            move, who, state, extra = record, None, None, {}
        move_text = str(move).strip()
        if not move_text or "\n" in move_text:
            raise ValueError(f"a move text must be one non-empty line, not {str(move)!r}")
        seq = self._entries[-1].seq + 1 if self._entries else 1
        entry = Entry(
            game=self.header.game,
            seq=seq,
            time=_now(),
            move=move_text,
            who=None if who is None else str(who),
            state=_state_json(state),
            extra=extra,
        )
        data = (_dumps(entry.to_json()) + "\n").encode("utf-8")
        _write_all(self._fd, data)  # one write on an O_APPEND descriptor: the line lands whole or torn at the end
        os.fsync(self._fd)
        # Keep what a reader will see (JSON turns tuples into lists and so on).
        entry = _parse_entry(data[:-1])
        self._entries.append(entry)
        return entry

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing to do at interpreter exit
            pass

    # -------------------------------------------------------------------------------------- export

    def export_ppn(self, out: str | Path, event: str = "tableside", date: str | None = None, start: Any = None,
                   decode: Callable[[Any], Any] | None = None) -> Path:
        """Write the game as a PPN file (see :func:`write_ppn`) and return its path."""
        return write_ppn(self, out, event=event, date=date, start=start, decode=decode)


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


# ------------------------------------------------------------------------------------------------ PPN


def ppn_game_type(game: str) -> str:
    """The PPN ``GameType`` name of a tableside game name (``easy-slider`` -> ``Easy Slider``)."""
    from rules.ppn import GAME_TYPES

    return GAME_TYPES.get(game, game.replace("-", " ").title())


def write_ppn(journal: Journal, out: str | Path, event: str = "tableside", date: str | None = None,
              start: Any = None, decode: Callable[[Any], Any] | None = None) -> Path:
    """Export a journal as a Portable Piecepack Notation file (written with :mod:`rules.ppn`).

    Metadata: ``GameType`` (the game's PPN name), ``Event`` (``tableside``), ``Date`` (the day the journal
    was started, ``YYYY-MM-DD``) and, when the journal has them, its options and set-up under ``Tableside``
    (``{options: ..., setup: ...}``; a key of its own so that PPN readers do not take it for theirs). The
    movetext numbers the moves (``1. c1-d1 b1-c1 {Blue}``) with the player or board as a comment.

    Games with a PPN adapter in :mod:`rules.ppn` (Easy Slider, Slides of Action, Plans of Action, Martian
    Shuffleboard) are written through it, so the record replays (``tableside replay``, piecepackr): the
    ``GameType`` carries the set-up the adapter writes (Easy Slider's ``Tiles``/``Coins``/``Pawns`` ...), and
    every journal move is read with the game's ``Move.parse``, played through the rules from the starting
    position, and written in the adapter's PPN form (an Easy Slider ``e2-D`` becomes ``e2-e1``). The starting
    position is ``start`` (a rules ``State``) or the journal's ``setup["state"]`` read back with ``decode``
    (default: the live session's decoder in :mod:`tableside.tracker`, else the rules' own ``State.from_dict`` or
    ``State.from_layout(**data)``). A journal without a starting position, or a move the rules refuse, raises
    :class:`~rules.base.RecordError` naming it. Other games (Epic Funhouse) have no PPN form: their move texts are
    written as they are, and one that is not PPN movetext is a RecordError naming the move. Either way the text is
    parsed back with :func:`rules.ppn.parse` before anything is written, and the file is replaced atomically.
    """
    import yaml

    from rules import ppn
    from rules.ppn.games import ADAPTERS

    out = Path(out)
    header = journal.header
    if date is None:
        date = header.started[:10] if len(header.started) >= 10 else _dt.date.today().isoformat()
    extra: dict[str, Any] = {"Event": event, "Date": date}
    tableside = {k: dict(v) for k, v in (("options", header.options), ("setup", header.setup)) if v}
    if tableside:
        extra["Tableside"] = tableside
    if header.game in ADAPTERS:
        text = ppn.dumps(_adapted_game(journal, extra, start, decode))
        head_lines = 0
    else:
        metadata: dict[str, Any] = {"GameType": ppn_game_type(header.game), **extra}
        block = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, default_flow_style=False)
        head = ["---", *block.rstrip("\n").splitlines(), "..."]
        body = []
        for entry in journal.entries:
            comment = f" {{{_ppn_comment(entry.who)}}}" if entry.who else ""
            body.append(f"{entry.seq}. {entry.move}{comment}")
        text = "\n".join(head + body) + "\n"
        head_lines = len(head)
    try:
        games = ppn.parse(text, source=str(out))
    except RecordError as err:
        reason = _which_move(str(err), head_lines, journal) if head_lines else str(err)
        raise RecordError(f"{journal.path}: cannot export as PPN: {reason}") from None
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(ppn.dumps(games), encoding="utf-8")
    os.replace(tmp, out)  # never a half-written record under the real name
    return out


def _adapted_game(journal: Journal, extra: dict[str, Any], start: Any,
                  decode: Callable[[Any], Any] | None) -> Any:
    """The journal as a :class:`rules.ppn.Game` written by the game's PPN adapter (set-up, moves, comments)."""
    from rules import game_module
    from rules.base import RulesError
    from rules.ppn import Step
    from rules.ppn.games import record

    game = journal.game
    where = f"{journal.path}: cannot export as PPN"
    if start is None:
        data = journal.header.setup.get("state")
        if data is None:
            raise RecordError(f"{where}: the journal's set-up holds no starting position (setup.state), and a "
                              f"{ppn_game_type(game)} record starts from one")
        try:
            start = (decode or _default_decoder(game))(data)
        except (RulesError, KeyError, TypeError, ValueError) as err:
            raise RecordError(f"{where}: cannot read the starting position in the journal's set-up: {err}") from None
    parse = game_module(game).Move.parse
    state, moves = start, []
    for entry in journal.entries:
        try:
            move = parse(entry.move)
            state = state.apply(move)
        except RulesError as err:
            raise RecordError(f"{where}: move {entry.seq} ({entry.move!r}): {err}") from None
        moves.append(move)
    try:
        result = record(game, start, moves, extra)
    except RulesError as err:  # e.g. a Plans of Action record must start from a set-up
        raise RecordError(f"{where}: {err}") from None
    for move_entry, entry in zip(result.moves, journal.entries, strict=True):
        if entry.who:
            move_entry.steps = [Step(step.submoves, [_ppn_comment(entry.who)]) for step in move_entry.steps]
    return result


def _default_decoder(game: str) -> Callable[[Any], Any]:
    """How to read ``setup["state"]`` back: the live session writes it with :mod:`tableside.tracker`'s encoder,
    which for Easy Slider is the rules' own ``to_dict``; without the tracker, the rules' own JSON forms."""
    try:
        from tableside.tracker import game_rules

        return game_rules(game).decode
    except (ImportError, AttributeError):
        pass
    from rules import game_module

    cls = game_module(game).State
    if hasattr(cls, "from_dict"):
        return cls.from_dict
    return lambda data: cls.from_layout(**data)


def _which_move(message: str, head_lines: int, journal: Journal) -> str:
    """Turn the PPN parser's "line L, column C: ..." into the journal move it is about."""
    match = re.search(r"line (\d+), column \d+: (.*)", message)
    if match:
        index = int(match.group(1)) - head_lines - 1
        if 0 <= index < len(journal.entries):
            entry = journal.entries[index]
            return f"move {entry.seq} ({entry.move!r}) is not PPN movetext: {match.group(2)}"
    return message


def _ppn_comment(text: str) -> str:
    # PPN comments cannot hold braces.
    return str(text).replace("{", "(").replace("}", ")")
