"""memubot: a proactive memory daemon for AI agents."""

import os

__version__ = "0.1.0"

# One BLAS thread, set before numpy loads (this package is imported first). The embedding
# engine runs an OpenMP team on every core; OpenBLAS workers busy-wait after each call and
# take those cores away, which doubled query-embedding latency here (20 → 44 ms p50, measured
# with bench/locomo.py). memubot's matrix products are small mat-vecs bound by memory, so a
# single BLAS thread costs them nothing. An explicit setting in the environment still wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
