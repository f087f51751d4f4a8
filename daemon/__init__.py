"""memubot: a proactive memory daemon for AI agents."""

import os

__version__ = "0.1.0"

# One BLAS thread, set before numpy loads (this package is imported first). The embedding
# engine runs an OpenMP team on every core; OpenBLAS workers busy-wait after each call and
# take those cores away, which doubled query-embedding latency here (20 → 44 ms p50, measured
# with bench/locomo.py). memubot's matrix products are small mat-vecs bound by memory, so a
# single BLAS thread costs them nothing. An explicit setting in the environment still wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# The engine's OpenMP threads sleep while they wait instead of spinning. This machine's two cores
# are shared with other jobs: a spinning thread burns the time slice its descheduled partner
# needs, at every barrier of every layer, and a query embedding took 0.24-2.6 s at load 12-14
# against 49 ms with PASSIVE (`python bench/omp_wait.py`; the vectors are the same, bit for bit).
# It is read when libgomp loads, i.e. at the first embedder, after this import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
