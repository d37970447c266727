"""Shared pytest set-up. The scene renderer and fixture generators live under tests/ (on sys.path)."""

import os

# Numba caches compiled code; keep the cache out of the source tree in tests.
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".venv", "numba-cache"))
