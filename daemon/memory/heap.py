"""The process heap: give the memory a big build freed back to the operating system.

Building a scope's index allocates and frees hundreds of megabytes of temporaries (the
snapshot's columns, the postings before they are packed). glibc keeps freed blocks in its
arenas, so the daemon's RSS stayed near the build's peak (bench/ready.py: ~90 MB of a 100k build
came back with `malloc_trim`). Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import functools


@functools.cache
def _malloc_trim() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    try:  # the process's own symbols: no find_library (it may run ldconfig or gcc)
        fn = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc (musl, macOS), or no dlopen (Windows)
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


def trim() -> bool:
    """Return the heap's free memory to the OS; whether the C library could."""
    fn = _malloc_trim()
    if fn is None:
        return False
    fn(0)
    return True
