"""``tableside funhouse``: Epic Funhouse played through stdin: rooms, transitions, reasons, saves, JSON, errors."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules.base import IllegalMove, RulesError
from rules.epic_funhouse.suite import ROOMS, TITLES, Funhouse
from tableside.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent / "rules" / "epic_funhouse"))
from test_suite import Game, play_room  # noqa: E402  (the suite tests' simple player)


def run_cli(monkeypatch, capsys, lines, *argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    code = main(["funhouse", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def script_for(game: Game) -> list[str]:
    """What a player types to play ``game`` in the terminal: each room's moves, 'done' where the player stopped
    a room its rules had not ended, and an empty answer (the default / the seeded die) to each set-up question."""
    lines = []
    for number, end in enumerate(game.ends):
        lines += list(game.final.rooms[number].moves)
        if not (end.room_over() and not end.can_retry()):
            lines.append("done")
        lines += [""] * len(end.questions())
    return lines


def test_a_scripted_game_goes_through_all_six_rooms(monkeypatch, capsys):
    game = Game(Funhouse.new(2024))
    code, out, err = run_cli(monkeypatch, capsys, script_for(game), "--seed", "2024", "--json", "--list", "3")
    assert code == 0
    # --json: stdout holds only the summary; the play went to stderr
    summary = json.loads(out)
    assert summary == game.final.summary()
    assert set(summary) == {"room", "rooms", "total", "over", "seed"} and summary["over"] is True
    assert [r["name"] for r in summary["rooms"]] == list(ROOMS)
    assert summary["total"] == sum(r["score"] for r in summary["rooms"])
    for number, name in enumerate(ROOMS, start=1):
        assert f"== Room {number} of 6: {TITLES[name]} ==" in err
    # the hand-overs are shown at each transition
    for text in ("Slide Jam's two stacks of 12 (top first):", "Magic Mirror's four stacks (top first):",
                 "Catwalk's scoreboard", "the barrels are flipped face down", "Whack-a-Dummy's column sums"):
        assert text in err
    sums = " ".join(map(str, game.starts[5].rooms[-1].setup_data["column_sums"]))
    assert f"column sums (west to east): {sums}" in err
    assert "You are out of the Funhouse!" in err


def test_transition_illegal_move_reason_and_bad_input(monkeypatch, capsys, tmp_path):
    save = tmp_path / "game.json"
    fh = Funhouse.new(5)
    mirror = fh.finish_room(top=2)
    with pytest.raises(IllegalMove) as reason:
        mirror.apply("a6a1")
    lines = ["done", "7", "2", "a6a1", "xyz", "999", "help", "score", "hint", "moves", "save"]
    code, out, err = run_cli(monkeypatch, capsys, lines, "--seed", "5", "--save", str(save))
    assert code == 0 and err == ""
    assert "Slide Jam is over" not in out  # it was stopped, not jammed
    assert "answer 1 or 2 (which Slide Jam stack makes the top grid), not '7'" in out
    assert "stack 2 makes the top grid" in out and "== Room 2 of 6: Magic Mirror ==" in out
    assert f"Slide Jam scores {fh.state.score()}" in out
    assert f"illegal move: {reason.value}" in out
    assert "cannot read cells 'xyz': name cells like a1b2c3 (column letter, row number) ('help' shows how" in out
    assert f"there is no move 999: the legal moves are numbered 1 to {len(mirror.legal_moves())}" in out
    assert "a move names one tile next to the mirror on each side" in out  # help
    assert f"  1. Slide Jam{fh.state.score():>17}" in out  # score
    assert "hint: " in out and f"saved to {save}" in out
    # end of input saved the game: it resumes to exactly where the player was
    assert Funhouse.from_json(save.read_text()) == mirror


def test_resume_carries_on_and_end_of_input_saves(monkeypatch, capsys, tmp_path):
    save = tmp_path / "game.json"
    start = Funhouse.new(17)
    save.write_text(json.dumps(start.to_json()))
    first = start.legal_moves()[0]
    code, out, _ = run_cli(monkeypatch, capsys, ["1", "save " + str(tmp_path / "copy.json")],
                           "--resume", str(save), "--save", str(save))
    assert code == 0
    assert "resumed: room 1 of 6, Slide Jam, 0 moves played" in out and f"Slide Jam: {first}" in out
    resumed = Funhouse.from_json(save.read_text())
    assert resumed == start.apply(first) == Funhouse.from_json((tmp_path / "copy.json").read_text())
    # --json progress summary on quit, mid-room
    code, out, err = run_cli(monkeypatch, capsys, ["quit"], "--resume", str(save), "--json")
    assert code == 0 and "resumed" in err
    assert json.loads(out) == {"room": "slide-jam", "rooms": [{"name": "slide-jam", "score": resumed.room_score(),
                                                              "moves": 1, "finished": False}],
                               "total": resumed.room_score(), "over": False, "seed": 17}


def test_catwalk_dead_end_rolls_asked_at_the_terminal(monkeypatch, capsys):
    for seed in range(40):
        end = play_room(play_room(Funhouse.new(seed)).finish_room())
        rolls = len(end.finish_room().rooms[-1].setup_data["rolls"])
        if rolls:
            break
    else:
        pytest.skip("no dead end in 40 seeded games")
    faces = ["x", "5"] + ["2"] * (rolls - 1)
    lines = list(end.rooms[0].moves)
    sj_end = Funhouse.new(seed)
    for move in lines:
        sj_end = sj_end.apply(move)
    if not sj_end.room_over():
        lines.append("done")
    lines += [""] + list(end.rooms[1].moves)
    if not end.room_over():
        lines.append("done")
    lines += ["", "ask"] + faces + ["quit"]
    code, out, _ = run_cli(monkeypatch, capsys, lines, "--seed", str(seed))
    assert code == 0
    assert out.count("dead end before the") == rolls + 1  # one asked twice: 'x' is not a die face
    assert "unknown rank 'x'" in out
    expected = end.finish_room(rolls=[5] + [2] * (rolls - 1))
    assert "die rolls at dead ends: " + ", ".join(["5"] + ["2"] * (rolls - 1)) + "\n" in out
    assert expected.state.track.render() in out


def test_bad_save_files_and_arguments_are_one_line_errors(monkeypatch, capsys, tmp_path):
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{this is not json")
    damaged = tmp_path / "damaged.json"
    data = Funhouse.new(3).apply(Funhouse.new(3).legal_moves()[0]).to_json()
    data["rooms"][0]["moves"] = ["a6b6c6>1 U"]
    damaged.write_text(json.dumps(data))
    cases = [
        (["--resume", str(corrupt)], f"{corrupt}: not a saved Epic Funhouse: the file is not JSON"),
        (["--resume", str(damaged)], f"{damaged}: Slide Jam, move 1 (a6b6c6>1 U):"),
        (["--resume", str(tmp_path / "missing.json")], "No such file or directory"),
        (["--resume", str(corrupt), "--seed", "4"], "not both"),
        (["--list", "0"], "--list must be at least 1"),
    ]
    for argv, message in cases:
        code, out, err = run_cli(monkeypatch, capsys, ["1"], *argv)
        assert code == 2, argv
        assert err.startswith("tableside funhouse: error: ") and message in err, err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert corrupt.read_text() == "{this is not json"  # nothing is lost or overwritten


def test_save_without_a_file_says_so_and_end_of_input_without_save_is_clean(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, ["save", "done"], "--seed", "1")
    assert code == 0 and err == ""
    assert "no file to save to" in out
    assert "Which Slide Jam stack makes the top grid" in out  # the input ended in the question: clean exit
    assert "scores (0 is perfect):" in out


def test_command_line_process_reads_a_pipe_and_saves_at_end_of_input(tmp_path):
    save = tmp_path / "game.json"
    fh = Funhouse.new(31)
    move = str(fh.legal_moves()[3])
    result = subprocess.run([sys.executable, "-m", "tableside", "funhouse", "--seed", "31", "--save", str(save),
                             "--json"], input=f"{move}\nnot a move\n", capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert json.loads(result.stdout)["rooms"][0]["moves"] == 1
    assert "cannot read move 'not a move'" in result.stderr and "Traceback" not in result.stderr
    assert Funhouse.from_json(save.read_text()) == fh.apply(move)
    with pytest.raises(RulesError):
        Funhouse.from_json(save.read_text().replace(move, "a1a1a1>1 U"))
