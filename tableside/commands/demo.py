"""``tableside demo``: tableside watching the recorded example games, and the example records replayed.

The live demo runs the real live loop (:class:`tableside.session.Session` with the vision of ``tableside
watch``) on the committed fixture videos in ``fixtures/video`` (``*_live.mp4``: an Easy Slider round and a
Martian Shuffleboard turn, rendered with their truth): every move judged by the rules, the announcements
spoken (or written as WAVs where there is no sound device), an annotated video of what tableside saw, the
journal and the PPN record, and the moves compared with the videos' truth. Then every ``.ppn`` record in
``fixtures/records`` is replayed by the rules (with ``--brief``, ``--json`` or ``--records`` only that).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import rules.ppn as ppn
from rules.base import RecordError
from rules.ppn.games import replay
from tableside.commands.replay import print_replay
from tableside.errors import UserError
from tableside.output import print_json

NAME = "demo"
ORDER = 90
HELP = "watch the example game videos live (no camera needed) and replay the example records"
DESCRIPTION = """\
tableside on the embedded fixtures, no camera needed: the live loop watches the example videos (an Easy Slider
round, a Martian Shuffleboard turn) move by move, judges them with the rules and says what it sees; then the
example game records (fixtures/records/*.ppn) are replayed through the rules.

  tableside demo                 both: the videos watched live, then one line per record
  tableside demo --out DIR       where the demo writes (default ./tableside-demo): NAME_seen.mp4 (what tableside
                                 saw), NAME.jsonl (the journal), NAME.ppn (the record), said/ (the WAVs when there
                                 is no sound device, or with --speak-to)
  tableside demo --records DIR   only the records: every move, the first illegal move if any, the final position
  tableside demo --brief         only the records, one line per game
  tableside demo --json          only the records, as JSON (the shape of `tableside replay --json`, plus "record")
"""

#: The example records and videos shipped with the source tree.
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDS_DIR = FIXTURES / "records"
VIDEOS_DIR = FIXTURES / "video"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tableside.announcer import add_speech_arguments

    p.add_argument("--records", type=Path, default=None, metavar="DIR",
                   help="only replay the .ppn records in DIR (default folder: the examples in fixtures/records)")
    p.add_argument("--brief", action="store_true", help="only the records, one line per game")
    p.add_argument("--json", action="store_true", help="only the records, as JSON")
    p.add_argument("--out", type=Path, default=Path("tableside-demo"), metavar="DIR",
                   help="where the live demo writes its videos, journals, records and WAVs (default tableside-demo)")
    p.add_argument("--videos", type=Path, default=VIDEOS_DIR, metavar="DIR",
                   help="folder of *_live.mp4 videos with their .json (default fixtures/video)")
    p.add_argument("--profile", metavar="SET_JSON", help="the piece set (default: the built-in default edition)")
    add_speech_arguments(p)


def run(args: argparse.Namespace) -> int:
    if args.records is None and not args.brief and not args.json:
        from tableside.session import one_blas_thread

        with one_blas_thread():
            code = run_live(args)
        print()
        print("== the example records, replayed by the rules ==")
        args.brief = True
        replayed = replay_records(RECORDS_DIR, args)
        return code or replayed
    return replay_records(args.records or RECORDS_DIR, args)


def has_sound_device() -> bool:
    """Whether this machine can play sound (Linux: an ALSA card; elsewhere assumed)."""
    if not sys.platform.startswith("linux"):
        return True
    cards = Path("/proc/asound/cards")
    try:
        return "no soundcards" not in cards.read_text() and bool(cards.read_text().strip())
    except OSError:
        return False


def run_live(args: argparse.Namespace) -> int:
    """Watch every ``*_live.mp4`` in the videos folder with the live loop (see the module docstring)."""
    import json
    import shutil

    from rules.base import RulesError
    from tableside.announcer import VoiceError, announcer_from_args
    from tableside.commands.watch import VisionReader, _load_profile, export_ppn, start_state
    from tableside.session import Annotator, Session, narrator_for
    from tableside.tracker import GameTracker, game_rules
    from vision.sources import open_source

    videos = sorted(args.videos.glob("*_live.mp4")) if args.videos.is_dir() else []
    if not videos:
        raise UserError(f"no *_live.mp4 videos in {args.videos}")
    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file: give a folder")
    out.mkdir(parents=True, exist_ok=True)
    speak_to = args.speak_to
    if speak_to is None and not has_sound_device() and args.speech != "text":
        speak_to = out / "said"
        print(f"no sound device: the announcements are written as WAVs in {speak_to}")
    if speak_to is not None:
        shutil.rmtree(speak_to, ignore_errors=True)
    args.speak_to = speak_to
    try:
        announcer = announcer_from_args(args)
    except VoiceError as err:
        raise UserError(str(err)) from None
    profile = _load_profile(args.profile)
    failures = 0
    try:
        for video in videos:
            meta_path = video.with_suffix(".json")
            if not meta_path.exists():
                raise UserError(f"{video.name} has no {meta_path.name} (its game and players)")
            meta = json.loads(meta_path.read_text())
            game = meta["game"]
            name = video.stem[: -len("_live")]
            options = {"players": meta.get("players") or None}
            journal_path = out / f"{name}.jsonl"
            for old in (journal_path, out / f"{name}.ppn", out / f"{name}_seen.mp4"):
                old.unlink(missing_ok=True)
            print(f"\n== {video.name}: {game.replace('-', ' ')}, watched live ==")
            rules = game_rules(game)
            seed = meta.get("notes", {}).get("seed") if game == "easy-slider" else None
            if seed is not None:
                print(f"(the board is the Caller's deal of seed {seed}: tableside call easy-slider --seed {seed})")
            tracker = GameTracker(rules, start_state(game, options, None if seed is None else str(seed)))
            source = open_source(str(video))
            reader = VisionReader(game, None, options, profile=profile)
            try:
                session = Session(source, reader, tracker, announcer=announcer,
                                  narrator=narrator_for(game), journal_path=journal_path,
                                  annotator=Annotator(out / f"{name}_seen.mp4", fps=float(meta.get("fps", 4.0))),
                                  echo=sys.stdout)
                report = session.run()
            finally:
                source.close()
                if session.journal is not None:
                    session.journal.close()
            truth = [m for m in meta.get("moves", []) if not m.startswith("illegal")]
            same = report.moves == truth if game != "martian-shuffleboard" else _same_flicks(report.moves, truth)
            failures += not same
            print(f"{len(report.moves)} move(s) recorded; the video's true moves: {len(truth)}; "
                  + ("all recorded as played" if same else "NOT the same: " + "; ".join(truth)))
            wrote = [out / f"{name}_seen.mp4", journal_path]
            if tracker.start_state is not None and tracker.moves:
                try:
                    wrote.append(export_ppn(rules, tracker, out / f"{name}.ppn", session.journal))
                except (RulesError, UserError) as err:
                    print(f"(no PPN record: {err})")
            print("wrote " + ", ".join(str(p) for p in wrote if p.exists()))
    finally:
        announcer.close()
    if speak_to is not None:
        print(f"said: {len(list(Path(speak_to).glob('*.wav')))} WAVs in {speak_to}")
    return 0 if not failures else 1


def _same_flicks(seen: list[str], truth: list[str], tolerance_mm: float = 6.0) -> bool:
    """Martian Shuffleboard flicks match when the same pieces had the same fates, positions within a tolerance
    (the vision measures positions; the truth is exact)."""
    from rules import martian_shuffleboard as ms

    if len(seen) != len(truth):
        return False
    for a, b in zip(seen, truth, strict=True):
        ma, mb = ms.Move.parse(a), ms.Move.parse(b)
        fates_a = [(ma.piece, ma.outcome), *ma.crashes]
        fates_b = [(mb.piece, mb.outcome), *mb.crashes]
        if [p for p, _ in fates_a] != [p for p, _ in fates_b]:
            return False
        for (_, oa), (_, ob) in zip(fates_a, fates_b, strict=True):
            if isinstance(oa, ms.Placement) and isinstance(ob, ms.Placement):
                if oa.distance_mm(ob) > tolerance_mm:
                    return False
            elif oa != ob:
                return False
    return True


def replay_records(folder: Path, args: argparse.Namespace) -> int:
    """Replay every .ppn record in ``folder`` through the rules (the demo before the camera loop existed)."""
    if not folder.is_dir():
        raise UserError(f"no records folder at {folder}")
    files = sorted(folder.glob("*.ppn"))
    if not files:
        raise UserError(f"no .ppn records in {folder}")
    results = []
    for path in files:
        try:
            games = ppn.read(path)
            outcomes = [replay(game) for game in games]
        except RecordError as err:
            raise UserError(f"{path.name}: {err}") from None
        for i, outcome in enumerate(outcomes, start=1):
            label = path.name if len(outcomes) == 1 else f"{path.name} (game {i})"
            results.append((label, outcome))
    if args.json:
        print_json([{"record": label, **outcome.to_json()} for label, outcome in results])
        return 0
    for n, (label, outcome) in enumerate(results):
        if args.brief:
            verdict = (f"illegal move {outcome.illegal.number}: {outcome.illegal.reason}" if outcome.illegal
                       else "goal reached" if outcome.goal_reached else "goal not reached")
            print(f"{label}: {len(outcome.moves)} legal moves; {verdict}")
            continue
        if n:
            print()
        print(f"== {label} ==")
        print_replay(outcome)
    return 0
