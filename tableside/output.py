"""Printing a verb's report: JSON for machines (``--json``), plain lines for people."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO


def print_json(obj: Any, stream: TextIO | None = None) -> None:
    """Print ``obj`` as JSON (enums print as their value, sets and tuples as lists)."""
    json.dump(obj, stream or sys.stdout, indent=2, default=_default, ensure_ascii=False)
    (stream or sys.stdout).write("\n")


def _default(obj: Any) -> Any:
    if hasattr(obj, "value") and isinstance(obj.value, str | int):
        return obj.value
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    if hasattr(obj, "to_json"):
        return obj.to_json()
    raise TypeError(f"cannot write {type(obj).__name__} as JSON")
