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


def test_every_verb_module_loads_and_is_listed(capsys):
    from tableside.cli import _verbs, build_parser

    names = [v.name for v in _verbs()]
    assert {"calibrate", "replay", "demo"} <= set(names)
    parser = build_parser()  # imports every verb and adds its options
    for name in names:
        with pytest.raises(SystemExit) as exit_info:
            parser.parse_args([name, "--help"])
        assert exit_info.value.code == 0
        assert f"usage: tableside {name}" in capsys.readouterr().out


def test_help_does_not_import_the_heavy_verbs():
    code = "import sys; from tableside.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n" \
        "print('cv2' in sys.modules, 'numba' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip().splitlines()[-1] == "False False"
