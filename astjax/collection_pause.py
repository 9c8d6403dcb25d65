"""Python's cyclic garbage collector paused while astjax builds code.

Building a derivative or a jitted function allocates hundreds of thousands of
short-lived objects (syntax trees, Numba's IR), and each allocation burst makes
the collector scan every live object of the process, astjax's caches and the
user's data included, again and again: in the test suite those full scans were
about a third of the CPU time. Almost nothing a build allocates is cyclic
garbage (reference counting frees it), so astjax switches the collector off
for the build and back on after it; the next ordinary collection picks up
whatever cycles the build left.

Only building is paused: a derivative's build, and jit's first call for a
signature (which lowers, compiles, and runs the function once on the reference
backend to learn its types, then once compiled). Later calls, where the user's
computation runs for as long as it likes, run with the collector as the user
set it. A build nested in another (a callee's derivative, a jit of a gradient)
leaves the outermost one in charge, and a collector the user switched off
stays off.
"""
import contextlib
import functools
import gc
import threading

__all__ = ["paused_collection", "pausing_collection"]

_lock = threading.Lock()
_depth = 0          # builds under way in this process
_resume = False     # whether the collector was on when the first of them began


@contextlib.contextmanager
def paused_collection():
    """Run the body with the cyclic collector off (if it was on), then restore it."""
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()


def pausing_collection(fn):
    """`fn` run under `paused_collection()`."""
    @functools.wraps(fn)
    def paused(*args, **kwargs):
        with paused_collection():
            return fn(*args, **kwargs)
    return paused
