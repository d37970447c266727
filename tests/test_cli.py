"""The CLI skeleton: verbs are discovered, errors are one line with a non-zero exit."""

import subprocess
import sys

import pytest

from rules import game_module
from rules.base import RulesError
from tableside.cli import main


def test_help_lists_verbs(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "verbs" in out


def test_no_verb_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "usage: tableside" in capsys.readouterr().out


def test_unknown_game_is_a_clear_error():
    with pytest.raises(RulesError, match="unknown game 'chess'"):
        game_module("chess")


def test_console_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "tableside", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.startswith("tableside ")
