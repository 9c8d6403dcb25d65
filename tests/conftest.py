"""Plumbing shared by every test module."""
import atexit
import gc
import os
import shutil
import tempfile
import time

import pytest

# The test profile compiles with LLVM's optimizations off (NUMBA_OPT=0): Numba's compiles, most of the suite's
# time, take about half as long, and the results are the same, since astjax's generated code asks for no
# fast-math flag except reassociation in fused sums, whose accuracy tests run fully optimized
# (`numba_fully_optimized` below). Speed is measured by benchmarks/, never by tests. `NUMBA_OPT=3 pytest`
# runs the whole suite as users compile.
os.environ.setdefault("NUMBA_OPT", "0")

# Numba emits each compiled callee's machine code once and the callers call it there, instead of emitting a
# copy inside every caller (tests/numba_linking.py: nothing is inlined at NUMBA_OPT=0, and a jitted loss
# calling 35 helpers compiled in 14.6 CPU-s instead of 23.5). Numba's machine-code cache, whose object code
# must hold its callees, is off except in the tests of that cache, which switch it on (and link as Numba does).
os.environ.setdefault("ASTJAX_NUMBA_CACHE", "0")
import numba_linking  # noqa: E402
numba_linking.leave_callees_to_the_engine()

# Every run starts with an empty jit disk cache of its own, shared by its workers (they inherit the variable
# from the process that starts them) and removed at the end: a test run neither reads nor fills the user's
# ~/.cache/astjax, and passes cold.
if "ASTJAX_CACHE_DIR" not in os.environ:
    _CACHE_DIR = tempfile.mkdtemp(prefix="astjax-test-cache-")
    os.environ["ASTJAX_CACHE_DIR"] = _CACHE_DIR
    atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)

from astjax.errors import give_every_frame_a_line


def pytest_sessionfinish(session):
    """Freeze what the run left alive before pytest's last clean-up: that clean-up runs five full
    collections (to report exceptions raised in destructors), and over the heap of a whole run they took
    8 s of each worker's time. Objects made and dropped by a test are still collected during the run."""
    gc.freeze()


_FREEZE_EVERY = 50      # tests
_tests_ended = 0


def pytest_runtest_teardown(item, nextitem):
    """Every 50 tests, move what the run holds (modules, astjax's caches of earlier tests' derivations and
    compiled functions) out of the collector's reach (`gc.freeze`): each full collection used to scan that
    whole, ever larger heap again. In `tests/test_adversarial.py` run alone: full collections 6.5 -> 0.4 CPU-s,
    the file 123 -> 111 CPU-s. Objects a test makes and drops are still freed by reference counting, and its
    cyclic garbage by the collections during the next tests; only cycles left over at a freeze are kept."""
    global _tests_ended
    _tests_ended += 1
    if _tests_ended % _FREEZE_EVERY == 0:
        gc.freeze()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test's exception whose traceback has an entry without a line (Python 3.11 gives None for a frame
    stopped on a lineless cleanup instruction, as when the adversarial harness's time limit interrupts
    compiled code) would crash pytest's report and with it the whole run (INTERNALERROR): give every entry
    a line before the report is written."""
    if call.excinfo is not None:
        give_every_frame_a_line(call.excinfo.value)
        call.excinfo = pytest.ExceptionInfo.from_exception(call.excinfo.value)
    yield


# ASTJAX_TEST_TIMES=PATH: every test's CPU and wall seconds, one line per test, appended to PATH.<worker> as it
# ends (a run cut off by a time limit keeps what it measured). CPU time hardly moves when other processes load
# the machine, wall time does: docs/testing.md sums the lines per file.
_TIMES = os.environ.get("ASTJAX_TEST_TIMES")

if _TIMES:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        cpu, wall = time.process_time(), time.perf_counter()
        yield
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{_TIMES}.{worker}", "a") as fh:
            fh.write(f"{item.nodeid}\t{time.process_time() - cpu:.3f}\t{time.perf_counter() - wall:.3f}\n")


@pytest.fixture(autouse=True)
def _jax_float64_flag_restored():
    """Tests that use JAX as an oracle may switch on its float64 mode (`jax_enable_x64`): it is put back
    after each test, so a later test's oracle runs in JAX's default float32 whatever ran before it."""
    import sys
    jax = sys.modules.get("jax")
    before = bool(jax.config.jax_enable_x64) if jax is not None else False
    yield
    jax = sys.modules.get("jax")
    if jax is not None and bool(jax.config.jax_enable_x64) != before:
        jax.config.update("jax_enable_x64", before)


@pytest.fixture
def numba_fully_optimized():
    """Compile at Numba's default optimization level (NUMBA_OPT=3) during the test, whatever the profile:
    for tests of results that LLVM's optimizations may change (reassociated, vectorized sums). jit's cache
    keys hold the level, so nothing compiled at another level is reused."""
    from numba.core import config
    before = config.OPT
    config.OPT = config._OptLevel(3)
    yield
    config.OPT = before
