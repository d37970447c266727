"""Shared pytest set-up. The scene renderer and fixture generators live under tests/ (on sys.path)."""

import os

# One BLAS thread per test process (set before numpy loads where pytest is run directly; `make test` sets it too):
# xdist workers already fill the cores, and spare OpenBLAS threads busy-wait between small matrix products.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Numba caches compiled code; keep the cache out of the source tree in tests.
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".venv", "numba-cache"))
