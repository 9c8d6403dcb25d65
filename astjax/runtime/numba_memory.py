"""Keep freed buffers in the process for compiled code's next call (glibc's malloc), once jit builds something.

A compiled function's output array (`np.empty(shape)` inside a fused loop) is allocated by Numba's
runtime with `malloc`. glibc serves a request above its mmap threshold (128 KiB at start) with a
fresh `mmap` and returns it to the system on `free`, so every call of `jit(grad(f))` on 1e6 float32
faulted its 4 MB output in again: 3,875 page faults a call, 18 ms at load 6 against 0.6 ms without
them (measured on `grad(sum(sigmoid))`; whether glibc raised its threshold by itself depended on what
the process had freed before, so the same call was fast in one process and 25x slower in another).

With the thresholds glibc itself moves to after freeing a 32 MiB block (mmap threshold 32 MiB, trim
threshold twice that), buffers up to 32 MiB are reused from the heap, and up to 64 MiB of freed
memory at the heap's top stays in the process. Larger arrays still come from mmap. This is one
process-wide setting, made when jit first lowers a function (never by `import astjax`);
ASTJAX_MALLOC_TUNING=0 leaves malloc as it is. Other C libraries do nothing here.
"""
import os

__all__ = ["keep_freed_buffers"]

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD
_done = []


def keep_freed_buffers():
    """Set glibc's mmap and trim thresholds once per process (a no-op elsewhere, or when disabled)."""
    if _done:
        return
    _done.append(True)
    if os.environ.get("ASTJAX_MALLOC_TUNING", "1") == "0":
        return
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    except (OSError, AttributeError):     # not glibc: nothing to tune
        pass
