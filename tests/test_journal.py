"""The game journal with real files: round trips, power cuts at every byte, a killed writer, PPN export."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rules import easy_slider as es
from rules import ppn
from rules import slides_of_action as soa
from rules.base import RecordError
from rules.ppn.games import replay
from tableside.cli import main
from tableside.journal import Journal, MoveRecord, write_ppn

SETUP = {"players": ["Red", "Blue"], "layout": "AS.../....", "pawns": ["suns", "arms", "moons", "crowns"]}
OPTIONS = {"variant": "slide", "rounds": 3}


def make_journal(path: Path, n: int = 4) -> tuple[bytes, list[str]]:
    moves = [f"e{i + 1}-D" for i in range(n)]
    with Journal.open(path, "easy-slider", setup=SETUP, options=OPTIONS) as journal:
        for i, move in enumerate(moves):
            journal.append(MoveRecord(move, who="Red" if i % 2 == 0 else "Blue", state={"hole": [5, i + 1]}))
    return path.read_bytes(), moves


def test_append_and_resume_round_trip(tmp_path):
    path = tmp_path / "game.jsonl"
    journal = Journal.open(path, "easy-slider", setup=SETUP, options=OPTIONS)
    first = journal.append(MoveRecord("e4-D", who="Red", state={"hole": [5, 4]}, extra={"board": "left"}))
    second = journal.append({"move": "d4-R", "who": "Blue", "state": ("tuple", 1), "note": "fast"})
    third = journal.append("c4-R")  # a move object: its text form
    journal.close()
    assert (first.seq, second.seq, third.seq) == (1, 2, 3)

    again = Journal.resume(path)
    assert again.recovered is None
    assert again.game == "easy-slider"
    assert dict(again.header.setup) == SETUP and dict(again.header.options) == OPTIONS
    assert again.entries == [first, second, third]
    assert again.moves == ["e4-D", "d4-R", "c4-R"]
    assert again.entries[0].extra == {"board": "left"} and again.entries[1].state == ["tuple", 1]
    fourth = again.append(MoveRecord("c3-U", who="Red"))
    again.close()
    assert fourth.seq == 4
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5
    head = json.loads(lines[0])
    assert head["journal"] == "tableside" and head["game"] == "easy-slider" and head["version"] == 1
    assert [json.loads(line)["seq"] for line in lines[1:]] == [1, 2, 3, 4]
    assert all(json.loads(line)["game"] == "easy-slider" and json.loads(line)["time"] for line in lines[1:])


def test_a_real_game_is_rebuilt_from_the_journal(tmp_path):
    path = tmp_path / "soa.jsonl"
    state = soa.State.initial(players=3)
    with Journal.open(path, "slides-of-action", setup={"players": 3}) as journal:
        for _ in range(6):
            move = state.legal_moves()[0]
            mover = state.turn
            state = state.apply(move)
            journal.append(MoveRecord(move, who=mover.value, state=str(state)))
    resumed = Journal.resume(path)
    resumed.close()
    replayed = soa.State.initial(players=resumed.header.setup["players"])
    for entry in resumed.entries:
        replayed = replayed.apply(soa.Move.parse(entry.move))
        assert entry.state == str(replayed)
    assert replayed == state


def test_open_never_overwrites(tmp_path):
    path = tmp_path / "game.jsonl"
    make_journal(path)
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        Journal.open(path, "easy-slider")
    assert path.read_bytes() == before


def test_power_cut_at_every_byte_of_the_last_line(tmp_path):
    data, moves = make_journal(tmp_path / "full.jsonl")
    start = data.rstrip(b"\n").rfind(b"\n") + 1  # first byte of the last move line
    assert len(data) - start > 80
    for cut in range(start, len(data)):  # every cut short of the last line's newline
        path = tmp_path / f"cut-{cut}.jsonl"
        path.write_bytes(data[:cut])
        journal = Journal.resume(path)
        assert journal.moves == moves[:-1], cut
        assert path.read_bytes() == data[:start], cut
        partial = Path(str(path) + ".partial")
        if cut == start:
            assert journal.recovered is None and not partial.exists()
        else:
            assert journal.recovered.line == len(moves) + 1
            assert journal.recovered.dropped_bytes == cut - start
            assert partial.read_bytes() == data[start:cut]
        entry = journal.append(MoveRecord("z9-L", who="Red"))  # the game goes on where it stopped
        journal.close()
        assert entry.seq == len(moves)
        assert Journal.load(path).moves == moves[:-1] + ["z9-L"]


def test_garbage_after_the_last_line_is_cut_and_kept(tmp_path):
    path = tmp_path / "game.jsonl"
    data, moves = make_journal(path)
    path.write_bytes(data + b"\0" * 4096)  # a file system that grew the file but never wrote the data
    journal = Journal.resume(path)
    journal.close()
    assert journal.moves == moves
    assert path.read_bytes() == data
    assert Path(str(path) + ".partial").read_bytes() == b"\0" * 4096
    # A second cut keeps the first one's bytes and writes beside them.
    path.write_bytes(data + b'{"game":"easy-slider","seq":5,"ti')
    Journal.resume(path).close()
    assert Path(str(path) + ".partial").read_bytes() == b"\0" * 4096
    assert Path(str(path) + ".partial.2").read_bytes() == b'{"game":"easy-slider","seq":5,"ti'


def test_unreadable_last_line_with_its_newline_is_a_torn_write(tmp_path):
    path = tmp_path / "game.jsonl"
    data, moves = make_journal(path)
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[:start] + b'{"game":"easy-slider","se\0\0\0\0\n')
    journal = Journal.resume(path)
    journal.close()
    assert journal.moves == moves[:-1] and journal.recovered.line == len(moves) + 1
    assert path.read_bytes() == data[:start]


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [(b"{not json", "not a JSON object"), (b'{"seq": 7, "move": "a1-U"}', "move number 7")],
)
def test_a_broken_line_in_the_middle_is_an_error_with_its_number(tmp_path, bad_line, reason):
    path = tmp_path / "game.jsonl"
    data, _moves = make_journal(path)
    lines = data.split(b"\n")
    lines[2] = bad_line  # line 3 of the file: the second move
    broken = b"\n".join(lines)
    path.write_bytes(broken)
    with pytest.raises(RecordError, match=rf"line 3: {reason}"):
        Journal.resume(path)
    assert path.read_bytes() == broken  # nothing was cut
    assert not Path(str(path) + ".partial").exists()


def test_a_file_that_is_not_a_journal_is_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"hello\n")
    with pytest.raises(RecordError, match="line 1 is not a tableside journal header"):
        Journal.resume(path)
    path.write_bytes(b'{"journal":"tableside","ver')  # created, then the power went
    with pytest.raises(RecordError, match="no complete header"):
        Journal.resume(path)


def test_load_reads_without_cutting(tmp_path):
    path = tmp_path / "game.jsonl"
    data, moves = make_journal(path)
    path.write_bytes(data[:-7])
    journal = Journal.load(path)
    assert journal.moves == moves[:-1] and journal.recovered.partial_path is None
    assert path.read_bytes() == data[:-7]
    with pytest.raises(ValueError, match="closed"):
        journal.append("a1-U")


def test_bad_moves_are_refused(tmp_path):
    with Journal.open(tmp_path / "game.jsonl", "easy-slider") as journal:
        with pytest.raises(ValueError, match="one non-empty line"):
            journal.append("a1-U\nb1-U")
        with pytest.raises(ValueError, match="needs a 'move'"):
            journal.append({"who": "Red"})
        assert journal.entries == []


def test_another_process_sees_each_line_as_soon_as_append_returns(tmp_path):
    path = tmp_path / "game.jsonl"
    reader = "import sys; print(open(sys.argv[1], 'rb').read().split(b'\\n')[-2].decode())"
    with Journal.open(path, "easy-slider", setup=SETUP) as journal:
        for i in range(3):
            entry = journal.append(MoveRecord(f"e{i + 1}-D", who="Red"))
            seen = subprocess.run([sys.executable, "-c", reader, str(path)], capture_output=True, timeout=30)
            assert json.loads(seen.stdout) == entry.to_json()


WRITER = """
import sys
from tableside.journal import Journal, MoveRecord
journal = Journal.open(sys.argv[1], "easy-slider", setup={"players": ["Red"]})
pad = "x" * 50000  # long lines: a kill is likelier to land inside a write
i = 0
while True:
    i += 1
    entry = journal.append(MoveRecord(f"m{i}", who="Red", state={"pad": pad}))
    print(entry.seq, flush=True)
"""


def test_a_killed_writer_loses_nothing_it_reported(tmp_path):
    path = tmp_path / "game.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    reported = []
    try:
        while len(reported) < 40:
            line = proc.stdout.readline()
            assert line, "the writer stopped on its own"
            reported.append(int(line))
        os.kill(proc.pid, signal.SIGKILL)
        reported += [int(line) for line in proc.stdout.read().split()]
    finally:
        proc.kill()
        proc.wait(timeout=30)
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    journal = Journal.resume(path)
    journal.close()
    seqs = [e.seq for e in journal.entries]
    assert seqs == list(range(1, len(seqs) + 1))
    assert set(reported) <= set(seqs)
    assert len(seqs) - max(reported) <= 1  # at most the one being written when killed


def test_export_ppn_reads_back_with_rules_ppn(tmp_path):
    path = tmp_path / "soa.jsonl"
    start = state = soa.State.initial(players=3)
    played, movers = [], []
    with Journal.open(path, "slides-of-action", setup={"players": 3}, options={"one_diagonal": False}) as journal:
        for _ in range(4):
            move = state.legal_moves()[-1]
            movers.append(state.turn.colour.capitalize())
            state = state.apply(move)
            played.append(move)
            journal.append(MoveRecord(move, who=movers[-1]))
    out = Journal.load(path).export_ppn(tmp_path / "soa.ppn", start=start)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    (game,) = ppn.read(out)
    meta = game.metadata
    assert meta["GameType"] == "Slides of Action" and meta["Players"] == 3 and meta["Event"] == "tableside"
    assert str(meta["Date"]) == Journal.load(path).header.started[:10]
    assert meta["Tableside"] == {"options": {"one_diagonal": False}, "setup": {"players": 3}}
    assert game.game_type == "slides-of-action"
    assert [m.number for m in game.moves] == ["1.", "2.", "3.", "4."]
    # The record's moves are the journal's: each step's submoves read back as the same slide.
    steps = [" ".join(str(sub) for sub in step.submoves) for step in game.steps()]
    assert [soa.Move.parse(step) for step in steps] == played
    assert [step.comments for step in game.steps()] == [[name] for name in movers]
    result = replay(game)
    assert result.illegal is None and result.moves == played and result.state == state
    again = write_ppn(Journal.load(path), tmp_path / "soa.ppn", date="2024-05-01", start=start)
    assert str(ppn.read(again)[0].metadata["Date"]) == "2024-05-01"
    # Without a starting position (neither given nor in the set-up) there is no record to write.
    with pytest.raises(RecordError, match=r"holds no starting position \(setup.state\)"):
        Journal.load(path).export_ppn(tmp_path / "none.ppn")
    assert not (tmp_path / "none.ppn").exists()


def test_easy_slider_journal_exports_a_record_that_tableside_replay_replays(tmp_path, capsys):
    # As the live session writes it: the start in setup["state"] (the rules' to_dict), moves in any text form
    # Move.parse reads (e2-D is not PPN), who as the comment.
    start = state = es.Setup.from_seed(11).state()
    path = tmp_path / "slider.jsonl"
    rng = random.Random(11)
    played = []
    with Journal.open(path, "easy-slider", setup={"state": start.to_dict()}) as journal:
        for _ in range(12):
            move = rng.choice(state.legal_moves())
            state = state.apply(move)
            played.append(move)
            text = f"{move.from_cell.name}-{move.direction[0].upper()}"  # e2-D style
            assert es.Move.parse(text) == move and text != str(move)
            journal.append(MoveRecord(text, who="Red", state=state.to_dict()))
    out = Journal.load(path).export_ppn(tmp_path / "slider.ppn")
    (game,) = ppn.read(out)
    assert game.metadata["GameType"]["Tiles"] and game.metadata["GameType"]["Pawns"] == start.pawn_text()
    assert [" ".join(str(s) for s in step.submoves) for step in game.steps()] == [str(m) for m in played]
    code = main(["replay", str(out), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["game"] == "easy-slider" and report["illegal"] is None
    assert report["moves"] == [str(m) for m in played]
    assert report["final_position"]["board"] == state.to_dict()["board"]
    assert report["goal_reached"] is state.is_over()


def test_export_of_a_journal_whose_move_the_rules_refuse_names_it(tmp_path):
    start = es.Setup.from_seed(3).state()  # the hole is on e1
    path = tmp_path / "bad.jsonl"
    with Journal.open(path, "easy-slider", setup={"state": start.to_dict()}) as journal:
        journal.append(MoveRecord("e2-D"))
        journal.append(MoveRecord("a5-R"))  # not next to the hole
    with pytest.raises(RecordError, match=r"move 2 \('a5-R'\): that tile cannot slide"):
        Journal.load(path).export_ppn(tmp_path / "bad.ppn")
    assert not (tmp_path / "bad.ppn").exists()
    with Journal.open(tmp_path / "broken.jsonl", "easy-slider", setup={"state": {"board": "nonsense"}}) as journal:
        journal.append(MoveRecord("e2-D"))
    with pytest.raises(RecordError, match="cannot read the starting position"):
        Journal.load(tmp_path / "broken.jsonl").export_ppn(tmp_path / "broken.ppn")


def test_export_refuses_moves_that_are_not_ppn(tmp_path):
    # A game without a PPN form (Epic Funhouse) is written as the journal holds it: a move text that is not PPN
    # movetext is refused, naming the move.
    path = tmp_path / "game.jsonl"
    with Journal.open(path, "epic-funhouse", setup=SETUP, options=OPTIONS) as journal:
        journal.append(MoveRecord("a6b6a5>1 U", who="me"))
    with pytest.raises(RecordError, match=r"move 1 \('a6b6a5>1 U'\) is not PPN movetext"):
        Journal.load(path).export_ppn(tmp_path / "game.ppn")
    assert not (tmp_path / "game.ppn").exists()


