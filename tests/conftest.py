"""Plumbing shared by every test module."""
import os
import time

import pytest

from astjax.errors import give_every_frame_a_line


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
